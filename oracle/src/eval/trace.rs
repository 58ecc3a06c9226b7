//! The trace of an evaluation: the steps that fired, their structured
//! events beside their text, and the helpers that record them.

use std::fmt;

use super::Ctx;
use crate::exact::Dyadic;
use crate::policy::Rule;
use crate::round::{Mode, Rounded};

/// One rule that fired, with what it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub rule: Rule,
    /// What it did, for people (the wording may change between versions).
    pub detail: String,
    /// What it did, for programs (coverage classes, rule attribution).
    pub event: Event,
    /// For rounding steps: where the value sat and which way it went.
    pub rounding: Option<RoundEvent>,
    /// The lane this step belongs to (empty for scalar forms).
    pub lane: &'static str,
}

/// What a step did, where its rule alone does not say: the structured twin
/// of the step's text, which programs read instead of the wording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The rule says it all.
    Applied,
    /// int→int without `.sat`: the source is wider, the low bits are kept.
    Chop,
    /// int→int without `.sat`: a narrower signed source, sign-extended.
    SignExtend,
    /// int→int without `.sat`: a narrower unsigned source, zero-extended.
    ZeroExtend,
    /// int→int without `.sat`: the same width, the bits reinterpreted.
    SameWidth,
    /// A saturating rule found the value in range.
    InRange,
    /// A saturating rule clamped the value.
    Clamped,
    /// A lane scale of 2^0 (unscaled s2f6x2 forms, or a scale byte 7f).
    ScaleOne,
    /// A lane scale other than 2^0.
    ScaleOther,
}

/// What a rounding step did, for coverage classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundEvent {
    pub remainder: crate::round::Remainder,
    pub away: bool,
    pub mode: Mode,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<24} [{}] {}", self.rule.name(), self.rule.evidence().tag(), self.detail)
    }
}

pub(super) fn signed(neg: bool, mag: &Dyadic) -> String {
    format!("{}{}", if neg { "-" } else { "" }, mag)
}

impl<D: ?Sized> Ctx<'_, D> {
    pub(super) fn push_step(&mut self, rule: Rule, detail: String, event: Event) {
        let detail = if self.lane.is_empty() { detail } else { format!("[{}] {}", self.lane, detail) };
        if let Some(rec) = self.rec.as_deref_mut() {
            rec.trace.push(Step { rule, detail, event, rounding: None, lane: self.lane });
        }
    }

    #[inline(always)]
    pub(super) fn note_rounding(&mut self, rule: Rule, neg: bool, exact: &Dyadic, r: &Rounded) {
        if self.tracing {
            self.push_rounding(rule, neg, exact, r);
        }
    }

    fn push_rounding(&mut self, rule: Rule, neg: bool, exact: &Dyadic, r: &Rounded) {
        let detail = if r.inexact() {
            format!(
                "{} lies between {} and {}, {}; {} → {}",
                signed(neg, exact),
                signed(neg, &r.lower()),
                signed(neg, &r.upper()),
                r.remainder,
                self.mode.name(),
                signed(neg, &r.mag)
            )
        } else {
            format!("{} is representable: exact", signed(neg, exact))
        };
        note!(self, rule, detail);
        if let Some(s) = self.rec.as_deref_mut().and_then(|r| r.trace.last_mut()) {
            s.rounding = Some(RoundEvent { remainder: r.remainder, away: r.away, mode: self.mode });
        }
    }
}
