//! The oracle's verdict on answers, as a run needs it many times: legality
//! once per form and register widths (on the run's target and PTX version),
//! then each answer judged by the fast engine where it covers the form under
//! the `sm90` profile, and by the exact engine where it does not or where the
//! fast engine rejects the answer. So every rejected answer is the exact
//! engine's verdict, and a reported mismatch its explanation
//! ([`crate::Mismatch::of`]).

use std::collections::HashMap;

use ptx_cvt::eval::Evaluator;
use ptx_cvt::fast::{FastResult, Plan};
use ptx_cvt::{evaluate_accept, instr, AcceptSet, Cvt, Operand, Profile, PtxVersion, Regs, Target};

/// Whether the cases of a form can be evaluated in this run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Legal {
    Yes,
    /// Legal, but not on the run's target (or its PTX version): skipped, not an error.
    Elsewhere,
    /// Not a case the oracle evaluates (the message says why).
    No(String),
}

/// Where a run's cases are checked: the profile, and the target and PTX
/// version legality is judged on (`None`: any).
#[derive(Clone, Copy, Debug)]
pub struct Scope {
    pub profile: Profile,
    pub target: Option<Target>,
    pub version: Option<PtxVersion>,
}

impl Scope {
    /// The oracle's acceptance set of a case (no explanation built), or why
    /// it has none: not legal on the target (`illegal on sm_90 with PTX ISA
    /// 9.5: …`) or not evaluable at all.
    pub fn accept(&self, c: &Cvt, ops: &[Operand], dst: u32) -> Result<AcceptSet, String> {
        if let Some(t) = self.target {
            let v = self.version.unwrap_or(PtxVersion::LATEST);
            let src = ops.first().map_or(c.atype.bits(), |o| o.width);
            instr::check(c, Regs { dst, src }, Some(t), Some(v))
                .map_err(|e| format!("illegal on {t} with PTX ISA {v}: {e}"))?;
        }
        evaluate_accept(c, ops, dst, self.profile).map_err(|e| e.to_string())
    }

    /// Legality of one case (legality depends on the form and widths, never on values).
    pub fn legal(&self, c: &Cvt, ops: &[Operand], dst: u32) -> Legal {
        match self.accept(c, ops, dst) {
            Ok(_) => Legal::Yes,
            Err(_) if self.legal_elsewhere(c, ops, dst) => Legal::Elsewhere,
            Err(e) => Legal::No(e),
        }
    }

    /// Whether a case that the target or version refuses would be evaluated
    /// without them. (A target the version cannot reach is the command
    /// line's error, reported on every case.)
    fn legal_elsewhere(&self, c: &Cvt, ops: &[Operand], dst: u32) -> bool {
        let Some(t) = self.target else { return false };
        let v = self.version.unwrap_or(PtxVersion::LATEST);
        if t.min_version().is_some_and(|min| v < min) {
            return false;
        }
        Scope { target: None, ..*self }.accept(c, ops, dst).is_ok()
    }
}

/// A form with its register widths: everything legality depends on.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Form {
    cvt: Cvt,
    /// The source registers' widths (at most [`MAX_OPERANDS`]; more: not cached).
    srcs: [u8; MAX_OPERANDS],
    count: u8,
    dst: u32,
}

/// The most source operands of a `cvt` form is five (x4 `.rs` forms).
pub const MAX_OPERANDS: usize = 6;

/// The engines of a legal form.
#[derive(Clone)]
struct Engines {
    fast: Option<Plan>,
    exact: Evaluator,
}

/// [`Scope`] with what it learnt of each form kept: legality and prepared engines.
pub struct Judge {
    pub scope: Scope,
    /// Whether the fast engine may judge (off: the exact engine alone, for tests).
    fast: bool,
    forms: HashMap<Form, Option<Engines>>,
    /// The last form looked up (runs of one form are the rule): no hashing.
    last: Option<(Form, Option<Engines>)>,
}

impl Judge {
    pub fn new(scope: Scope) -> Judge {
        Judge { scope, fast: true, forms: HashMap::new(), last: None }
    }

    /// The same, judging with the exact engine alone.
    pub fn exact_only(scope: Scope) -> Judge {
        Judge { fast: false, ..Judge::new(scope) }
    }

    /// [`Scope::legal`], computed once per form and widths (refusals are
    /// computed again per case, so each message is its own case's).
    pub fn legal(&mut self, c: &Cvt, ops: &[Operand], dst: u32) -> Legal {
        match self.engines(c, ops, dst) {
            Some(_) => Legal::Yes,
            None => self.scope.legal(c, ops, dst),
        }
    }

    /// Whether the oracle accepts `got` (a register of `dst` bits) for a case
    /// [`Judge::legal`] passed; an illegal case accepts nothing.
    pub fn accepts(&mut self, c: &Cvt, ops: &[Operand], dst: u32, got: u64) -> bool {
        let scope = self.scope;
        let Some(e) = self.engines(c, ops, dst) else {
            return scope.accept(c, ops, dst).is_ok_and(|s| s.contains(got));
        };
        let fast = e.fast.as_ref().is_some_and(|p| fast_contains(p.eval(ops), dst, got));
        fast || e.exact.accept(ops).is_ok_and(|set| set.contains(got))
    }

    fn engines(&mut self, c: &Cvt, ops: &[Operand], dst: u32) -> Option<&Engines> {
        if ops.len() > MAX_OPERANDS {
            return None;
        }
        let srcs = std::array::from_fn(|i| ops.get(i).map_or(0, |o| o.width as u8));
        let form = Form { cvt: *c, srcs, count: ops.len() as u8, dst };
        if self.last.as_ref().is_some_and(|(f, _)| *f == form) {
            return self.last.as_ref().and_then(|(_, e)| e.as_ref());
        }
        if !self.forms.contains_key(&form) {
            let engines = (self.scope.legal(c, ops, dst) == Legal::Yes)
                .then(|| Evaluator::new(c, ops.first()?.width, dst, self.scope.profile).ok())
                .flatten()
                .map(|exact| {
                    let sm90 = self.fast && self.scope.profile == Profile::Sm90;
                    let fast = sm90.then(|| Plan::new(c, ops[0].width, dst).ok()).flatten();
                    Engines { fast, exact }
                });
            self.forms.insert(form, engines);
        }
        self.last = Some((form, self.forms[&form].clone()));
        self.last.as_ref().and_then(|(_, e)| e.as_ref())
    }
}

/// Whether the fast engine's answer `r` (a register of `width` bits) contains `bits`.
pub fn fast_contains(r: FastResult, width: u32, bits: u64) -> bool {
    match r {
        FastResult::Bits(v) => v & ptx_cvt::accept::width_mask(width) == bits,
        other => other.to_accept(width).contains(bits),
    }
}
