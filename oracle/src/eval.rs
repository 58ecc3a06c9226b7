//! Evaluation of scalar `cvt` forms: the PTX policy layer over the exact
//! core. Each decision is recorded as a named `Rule` step so `explain` can
//! show why a result is what it is.

use std::fmt;

use rug::Integer;

use crate::accept::{width_mask, AcceptSet, Alt, LaneSet};
use crate::encode::{self, fit, Fit, Overflow};
use crate::exact::{decode, is_subnormal, Dyadic, Nan, Value};
use crate::format::Format;
use crate::instr::{self, Cvt, Family, Regs, Type};
use crate::operand::{check_evaluated, check_packed_widths, operand_count_error};
pub use crate::operand::{fmt_hex, EvalError, Operand};
use crate::policy::{self, Answers, NanOut, Profile, Question, Rule};
use crate::round::{round, Grid, Mode, Rounded};

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

/// What a conversion may produce, and why.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub accept: AcceptSet,
    /// The exact source value of each lane, high lane first, with its name.
    pub inputs: Vec<(&'static str, Value)>,
    pub trace: Vec<Step>,
}

impl Outcome {
    /// The decoded inputs as text: `1.5` for one lane, `a=1.5 b=-2` for several.
    pub fn inputs_text(&self) -> String {
        match self.inputs.as_slice() {
            [(_, v)] => v.to_string(),
            lanes => lanes.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" "),
        }
    }
    /// The rule that decided the result: the last value-changing step.
    pub fn deciding_rule(&self) -> Rule {
        self.trace
            .iter()
            .rev()
            .map(|s| s.rule)
            // cvt.pack's c bits come after the lanes: blame the pack, like other packed forms.
            .find(|r| !r.only_moves_bits() && *r != Rule::PackC)
            .unwrap_or(Rule::Decode)
    }
}

/// Evaluate `c` on its operands, writing a register of `dst_width` bits,
/// with the trace of every rule that fired.
pub fn evaluate(c: &Cvt, srcs: &[Operand], dst_width: u32, profile: Profile) -> Result<Outcome, EvalError> {
    evaluate_inner(c, srcs, dst_width, profile, None)
}

/// What the destination register may hold: [`evaluate`]'s set and errors,
/// without building the explanation (several times faster).
pub fn evaluate_accept(c: &Cvt, srcs: &[Operand], dst_width: u32, profile: Profile) -> Result<AcceptSet, EvalError> {
    check_case(c, srcs, dst_width)?;
    Ok(explore(c, srcs, dst_width, profile, None, false).accept)
}

fn evaluate_inner(
    c: &Cvt,
    srcs: &[Operand],
    dst_width: u32,
    profile: Profile,
    mutant: Option<Mutant>,
) -> Result<Outcome, EvalError> {
    check_case(c, srcs, dst_width)?;
    Ok(explore(c, srcs, dst_width, profile, mutant, true))
}

/// Operand count, legality for the registers, packed operand widths: in this order.
fn check_case(c: &Cvt, srcs: &[Operand], dst_width: u32) -> Result<(), EvalError> {
    if srcs.len() != instr::shape(c).srcs.len() {
        return Err(operand_count_error(c, srcs.len()));
    }
    let src_width = srcs.first().map_or(c.atype.bits(), |o| o.width);
    instr::check(c, Regs { dst: dst_width, src: src_width }, None, None).map_err(EvalError::Illegal)?;
    check_evaluated(c)?;
    check_packed_widths(c, srcs)
}

/// An instruction prepared for evaluation on many operands: legality is
/// checked once, and evaluation records no trace (use [`evaluate`] for the
/// explanation). Same results and errors as [`evaluate`].
#[derive(Clone, Debug)]
pub struct Evaluator {
    c: Cvt,
    src_width: u32,
    dst_width: u32,
    profile: Profile,
    operands: usize,
}

impl Evaluator {
    /// Prepare `c` for a `src_width`-bit source register (of the first
    /// operand) and a `dst_width`-bit destination register.
    pub fn new(c: &Cvt, src_width: u32, dst_width: u32, profile: Profile) -> Result<Evaluator, EvalError> {
        instr::check(c, Regs { dst: dst_width, src: src_width }, None, None).map_err(EvalError::Illegal)?;
        check_evaluated(c)?;
        Ok(Evaluator { c: *c, src_width, dst_width, profile, operands: instr::shape(c).srcs.len() })
    }

    pub fn cvt(&self) -> &Cvt {
        &self.c
    }

    /// What the destination register may hold for these operands.
    pub fn accept(&self, srcs: &[Operand]) -> Result<AcceptSet, EvalError> {
        if srcs.len() != self.operands {
            return Err(operand_count_error(&self.c, srcs.len()));
        }
        if let Some(o) = srcs.first().filter(|o| o.width != self.src_width) {
            return Err(EvalError::Operands(format!(
                "{} was prepared for a {}-bit source register, got {} bits",
                self.c, self.src_width, o.width
            )));
        }
        check_packed_widths(&self.c, srcs)?;
        Ok(explore(&self.c, srcs, self.dst_width, self.profile, None, false).accept)
    }
}

/// Run the policy layer on checked operands; under a profile that accepts
/// every answer to the open questions, explore each combination the input reached.
fn explore(
    c: &Cvt,
    srcs: &[Operand],
    dst_width: u32,
    profile: Profile,
    mutant: Option<Mutant>,
    tracing: bool,
) -> Outcome {
    let base = profile.answers();
    let Run { set: mut accept, inputs, mut trace, consulted } =
        Ctx::run(c, srcs, dst_width, profile, base, mutant, tracing);
    if profile.accepts_all_answers() {
        let mut seen = vec![base];
        let mut queue = vec![(base, consulted)];
        while let Some((a, consulted)) = queue.pop() {
            for q in Question::ALL.into_iter().filter(|q| consulted & (1 << *q as u8) != 0) {
                let b = a.flipped(q);
                if seen.contains(&b) {
                    continue;
                }
                seen.push(b);
                let alt = Ctx::run(c, srcs, dst_width, profile, b, mutant, false);
                if !alt.set.is_subset_of(&accept) {
                    if tracing {
                        trace.push(Step {
                            rule: q.rule(),
                            event: Event::Applied,
                            detail: format!(
                                "the ISA profile also accepts {} (the other answer to this open question)",
                                alt.set
                            ),
                            rounding: None,
                            lane: "",
                        });
                    }
                    accept.union(alt.set);
                }
                queue.push((b, alt.consulted));
            }
        }
    }
    Outcome { accept, inputs, trace }
}

/// The error for a wrong number of source operands (shared with the fast engine).
/// Evaluate with one deliberate bug, for mutation testing of vector sets.
#[doc(hidden)]
pub fn evaluate_mutant(
    c: &Cvt,
    srcs: &[Operand],
    dst_width: u32,
    profile: Profile,
    m: Mutant,
) -> Result<Outcome, EvalError> {
    evaluate_inner(c, srcs, dst_width, profile, Some(m))
}

macro_rules! mutants {
    ($($v:ident $text:literal;)*) => {
        /// Plausible bugs of a cvt implementation, one rule wrong each. The
        /// committed vectors must notice every one (tests/mutants.rs).
        #[doc(hidden)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Mutant { $($v,)* }
        impl Mutant {
            pub const ALL: &'static [Mutant] = &[$(Mutant::$v,)*];
            pub fn describe(self) -> &'static str { match self { $(Mutant::$v => $text,)* } }
        }
    };
}

mutants! {
    TiesAway "round to nearest with ties away from zero instead of to even";
    RnTruncates "round to nearest implemented as truncation";
    RmRpSwapped "rm and rp swapped";
    RnaAsRn ".rna implemented as ties to even";
    NoFtz ".ftz ignored";
    FtzErratumIgnored "cvt.ftz.f16.f32 flushes its f32 input (the hardware erratum ignored)";
    TininessBeforeRounding ".ftz judges tininess before rounding";
    NanToIntAlwaysZero "NaN → int always 0";
    NanToIntAlwaysSignBit "NaN → int always 1<<(n-1)";
    InfToIntZero "±Inf → int gives 0 instead of clamping";
    ClampOffByOne "float→int clamp to MAX off by one (e.g. 2^31-2)";
    UnsignedNegativeWraps "negative float → unsigned int wraps instead of clamping to 0";
    SextAsZext "int widening zero-extends a signed source";
    SourceNotChopped "a wider source register is used whole instead of chopped";
    DestExtendZero "a signed result is zero-extended into a wider register";
    IntSatIgnored "int→int .sat ignored (wraps)";
    OverflowToMaxUnderRn "overflow under round to nearest gives max finite instead of Inf";
    FlushSubnormalResults "subnormal results flushed to zero without .ftz";
    NegZeroLosesSign "-0 results become +0";
    SatNanPassesNan ".sat keeps NaN instead of giving +0";
    SatKeepsNegZero ".sat keeps -0";
    ReluKeepsNegZero ".relu keeps -0";
    SatfinitePassesInf ".satfinite lets ±Inf and overflow through";
    SatfiniteNanToMax ".satfinite turns NaN into MAX_NORM in formats that have NaN";
    NanPayloadDropped "f32↔f64 NaN payload dropped (canonical NaN)";
    NanSignKept "canonical NaN keeps the source's sign";
    Ue8m0UsesSign "ue8m0 rounding uses the sign of the source";
    RbitsShifted ".rs random bits added one position too low";
    LanesSwapped "packed lanes swapped (a in the low half)";
    PackCDropped "cvt.pack drops c (the bits above the lanes stay zero)";
    PackCAtBit16 "cvt.pack puts c's bits from bit 16 up whatever the lane width";
}

/// Record a step of the trace (with an [`Event`] where the rule alone does
/// not say what happened); its text is built only when tracing.
macro_rules! note {
    ($cx:expr, $rule:expr, $detail:expr $(,)?) => {
        note!($cx, $rule, $detail; Event::Applied)
    };
    ($cx:expr, $rule:expr, $detail:expr; $event:expr) => {
        if $cx.tracing {
            let detail: String = ($detail).into();
            $cx.push_step($rule, detail, $event);
        }
    };
}

// After `note!`, which it uses (macros are in scope textually).
mod scale;

/// The result at the destination type's width, before register extension.
enum TypeResult {
    Bits(u64),
    AnyNan,
}

struct Run {
    set: AcceptSet,
    inputs: Vec<(&'static str, Value)>,
    trace: Vec<Step>,
    consulted: u8,
}

struct Ctx<'a> {
    c: &'a Cvt,
    profile: Profile,
    answers: Answers,
    consulted: u8,
    /// Whether to record the trace (explain, coverage) or only the result.
    tracing: bool,
    trace: Vec<Step>,
    /// The lane being converted (empty for scalar forms), shown in the trace.
    lane: &'static str,
    /// Lane formats and the rounding rule in force.
    src: Format,
    dst: Format,
    mode: Mode,
    /// A deliberate bug to apply (mutation testing only).
    mutant: Option<Mutant>,
    /// The ue8m0 scale byte of the lane being converted, for the scaled and s2f6x2 forms.
    scale: Option<u64>,
}

fn signed(neg: bool, mag: &Dyadic) -> String {
    format!("{}{}", if neg { "-" } else { "" }, mag)
}

impl<'a> Ctx<'a> {
    fn run(
        c: &'a Cvt,
        srcs: &[Operand],
        dst_width: u32,
        profile: Profile,
        answers: Answers,
        mutant: Option<Mutant>,
        tracing: bool,
    ) -> Run {
        let mode = c.rounding.and_then(|r| r.mode()).unwrap_or(Mode::NearestEven);
        let mut cx = Ctx {
            c,
            profile,
            answers,
            consulted: 0,
            tracing,
            trace: Vec::new(),
            lane: "",
            src: c.atype.format(),
            dst: c.dtype.format(),
            mode,
            mutant,
            scale: None,
        };
        if c.dtype.is_packed() || c.atype.is_packed() {
            return cx.run_packed(srcs, dst_width);
        }
        let src = srcs[0];
        let abits = c.atype.bits();
        let bits = src.bits & width_mask(abits);
        if src.width > abits {
            note!(
                cx,
                Rule::SourceChop,
                format!(
                    "{}-bit register {}: low {abits} bits {}",
                    src.width,
                    fmt_hex(src.bits, src.width),
                    fmt_hex(bits, abits)
                ),
            );
        }
        let mut input = cx.decode(bits);
        if cx.is(Mutant::SourceNotChopped) && src.width > abits && c.atype.is_int() {
            let full = Integer::from(src.bits);
            let neg = c.atype.format().is_signed_int() && (src.bits >> (src.width - 1)) & 1 == 1;
            input = Value::from_integer(if neg { full - (Integer::from(1) << src.width) } else { full });
        }
        let r = cx.convert(&input);
        let set = cx.extend(r, dst_width);
        let inputs = if cx.tracing { vec![("a", input)] } else { Vec::new() };
        Run { set, inputs, trace: cx.trace, consulted: cx.consulted }
    }

    /// Packed forms: convert lane by lane, high lane first, then pack (docs/semantics.md §5.11).
    fn run_packed(mut self, srcs: &[Operand], dst_width: u32) -> Run {
        let c = self.c;
        let lanes = c.dtype.lanes().max(c.atype.lanes());
        let names = lane_names(c);
        let rbits = (c.rounding == Some(crate::instr::Rounding::Rs)).then(|| srcs[srcs.len() - 1].bits);
        let mut inputs = Vec::new();
        let mut outs = Vec::new();
        for i in (0..lanes).rev() {
            self.lane = names[i as usize];
            let j = if self.is(Mutant::LanesSwapped) { lanes - 1 - i } else { i };
            let bits = if c.atype.is_packed() {
                (srcs[0].bits >> (j * c.atype.lane_bits())) & width_mask(c.atype.lane_bits())
            } else {
                srcs[(lanes - 1 - j) as usize].bits
            };
            if let Some(r) = rbits {
                let (mut value, width) = policy::stochastic_bits(c.dtype, r, i);
                if self.is(Mutant::RbitsShifted) {
                    value >>= 1;
                }
                self.mode = Mode::Stochastic { rbits: value, width };
                note!(self, Rule::RoundStochastic, format!("random bits {value:#x} ({width} bits) for this lane"));
            }
            self.scale = scale::lane_code(c, srcs, i);
            let v = self.decode(bits);
            outs.push(self.convert(&v));
            if self.tracing {
                inputs.push((self.lane, v));
            }
        }
        self.lane = "";
        let lb = c.dtype.lane_bits();
        let lane_sets: Vec<LaneSet> = outs
            .into_iter()
            .map(|r| match r {
                TypeResult::Bits(b) => LaneSet::Bits { value: b & width_mask(lb), mask: width_mask(lb) },
                TypeResult::AnyNan => LaneSet::AnyNan(c.dtype.format()),
            })
            .collect();
        let mut set = AcceptSet::from_lanes(dst_width, lb, lane_sets);
        note!(
            self,
            Rule::Pack,
            format!(
                "lanes {} packed high to low: {set}",
                names[..lanes as usize].iter().rev().copied().collect::<Vec<_>>().join(", ")
            )
        );
        if c.dtype.takes_c() {
            set = self.pack_c(set, srcs[2].bits, 2 * lb);
        }
        Run { set, inputs, trace: self.trace, consulted: self.consulted }
    }

    /// cvt.pack: the low `32 - low` bits of `c` fill `d` above the two lanes.
    fn pack_c(&mut self, set: AcceptSet, c: u64, low: u32) -> AcceptSet {
        let low = if self.is(Mutant::PackCAtBit16) { 16 } else { low };
        let upper = if self.is(Mutant::PackCDropped) { 0 } else { (c << low) & width_mask(32) };
        note!(self, Rule::PackC, format!("bits 31..{low} of d from c {}: {}", fmt_hex(c, 32), fmt_hex(upper, 32)));
        let alts = set.alts.into_iter().map(|a| match a {
            Alt::Bits { value, mask } => Alt::Bits { value: value | upper, mask },
            other => unreachable!("integer lanes are exact: {other:?}"),
        });
        AcceptSet { width: set.width, alts: alts.collect() }
    }

    fn decode(&mut self, bits: u64) -> Value {
        let v = decode(self.src, bits);
        let w = if self.c.atype.is_packed() { self.c.atype.lane_bits() } else { self.src.container_bits() };
        note!(self, Rule::Decode, format!("{} {} = {v}", self.src.name(), fmt_hex(bits, w)));
        v
    }

    /// Convert one value (a scalar, or one lane) by its family.
    fn convert(&mut self, v: &Value) -> TypeResult {
        if let Some(code) = self.scale {
            return self.convert_scaled(v, code);
        }
        match instr::family(self.src, self.dst) {
            Family::IntToInt => self.int_to_int(v),
            Family::IntToFloat => self.int_to_float(v),
            Family::FloatToInt => self.float_to_int(v),
            Family::SameFloat | Family::Widen | Family::Narrow => self.float_to_float(v),
        }
    }

    fn push_step(&mut self, rule: Rule, detail: String, event: Event) {
        let detail = if self.lane.is_empty() { detail } else { format!("[{}] {}", self.lane, detail) };
        self.trace.push(Step { rule, detail, event, rounding: None, lane: self.lane });
    }

    fn ask(&mut self, q: Question) -> bool {
        self.consulted |= 1 << q as u8;
        match (q, self.mutant) {
            (Question::ReluNegZeroToPositive, Some(Mutant::ReluKeepsNegZero)) => false,
            (Question::FtzAfterRounding, Some(Mutant::TininessBeforeRounding)) => false,
            (Question::FtzF16Input, Some(Mutant::FtzErratumIgnored)) => true,
            _ => self.answers.get(q),
        }
    }

    fn is(&self, m: Mutant) -> bool {
        self.mutant == Some(m)
    }

    fn dformat(&self) -> Format {
        self.dst
    }

    fn int_to_int(&mut self, v: &Value) -> TypeResult {
        let i = v.as_integer().expect("integer source");
        let d = self.c.dtype;
        if self.c.sat && !self.is(Mutant::IntSatIgnored) {
            let (lo, hi) = d.format().int_bounds().unwrap();
            let clamped = i.clone().clamp(lo, hi);
            let event = if clamped == i { Event::InRange } else { Event::Clamped };
            let what = if clamped == i { "in range, unchanged".to_string() } else { format!("clamped to {clamped}") };
            if d.is_pack() {
                note!(self, Rule::PackSat, format!("{i} → {} range [{lo}, {hi}]: {what}", d.name()); event);
            } else {
                note!(self, Rule::IntSatClamp, format!("{i} → {} range: {what}", d.name()); event);
            }
            return TypeResult::Bits(encode::encode_int(d.format(), &clamped));
        }
        let (ab, db) = (self.c.atype.bits(), d.bits());
        let (event, how) = match ab.cmp(&db) {
            std::cmp::Ordering::Greater => (Event::Chop, "chop to the low bits"),
            std::cmp::Ordering::Less if self.c.atype.format().is_signed_int() => (Event::SignExtend, "sign-extend"),
            std::cmp::Ordering::Less => (Event::ZeroExtend, "zero-extend"),
            std::cmp::Ordering::Equal => (Event::SameWidth, "reinterpret the bits"),
        };
        let i = if self.is(Mutant::SextAsZext) && event == Event::SignExtend {
            Integer::from(encode::wrap(&i, ab))
        } else {
            i
        };
        let bits = encode::wrap(&i, db);
        note!(self, Rule::IntWrap, format!("{how}: {} {}", d.name(), fmt_hex(bits, db)); event);
        TypeResult::Bits(bits)
    }

    fn mode(&self) -> Mode {
        match (self.mode, self.mutant) {
            (Mode::NearestEven, Some(Mutant::TiesAway)) => Mode::NearestAway,
            (Mode::NearestEven, Some(Mutant::RnTruncates)) => Mode::TowardZero,
            (Mode::NearestAway, Some(Mutant::RnaAsRn)) => Mode::NearestEven,
            (Mode::Down, Some(Mutant::RmRpSwapped)) => Mode::Up,
            (Mode::Up, Some(Mutant::RmRpSwapped)) => Mode::Down,
            (m, _) => m,
        }
    }

    fn note_rounding(&mut self, rule: Rule, neg: bool, exact: &Dyadic, r: &Rounded) {
        if !self.tracing {
            return;
        }
        let detail = if r.inexact() {
            format!(
                "{} lies between {} and {}, {}; {} → {}",
                signed(neg, exact),
                signed(neg, &r.lower()),
                signed(neg, &r.upper()),
                r.remainder,
                r.mode.name(),
                signed(neg, &r.mag)
            )
        } else {
            format!("{} is representable: exact", signed(neg, exact))
        };
        note!(self, rule, detail);
        if let Some(s) = self.trace.last_mut() {
            s.rounding = Some(RoundEvent { remainder: r.remainder, away: r.away, mode: r.mode });
        }
    }

    fn int_to_float(&mut self, v: &Value) -> TypeResult {
        let Value::Num { neg, mag } = v else { unreachable!("integers are finite") };
        let l = self.dformat().float_layout().unwrap();
        let r = round(*neg, mag, Grid::float(l), self.mode());
        self.note_rounding(Rule::RoundToFloat, *neg, mag, &r);
        self.finish_float(*neg, mag, r)
    }

    fn float_to_int(&mut self, v: &Value) -> TypeResult {
        let d = self.c.dtype;
        let n = d.bits();
        if let Value::Nan(_) = v {
            if self.is(Mutant::NanToIntAlwaysZero) {
                return TypeResult::Bits(0);
            }
            if self.c.atype != Type::F64 && n != 64 && !self.is(Mutant::NanToIntAlwaysSignBit) {
                note!(self, Rule::NanToIntZero, format!("{} source, {n}-bit destination → 0", self.c.atype.name()));
                return TypeResult::Bits(0);
            }
            let rule = if n <= 16 { Rule::NanToIntNarrowFromF64 } else { Rule::NanToIntSignBit };
            let bits = 1u64 << (n - 1);
            note!(self, rule, format!("→ 1<<{} = {}", n - 1, fmt_hex(bits, n)));
            return TypeResult::Bits(bits);
        }
        let flushed = self.ftz_input(v);
        let v = flushed.as_ref().unwrap_or(v);
        let (lo, hi) = d.format().int_bounds().unwrap();
        let i = match v {
            Value::Inf { .. } if self.is(Mutant::InfToIntZero) => Integer::new(),
            Value::Inf { neg } => {
                let i = if *neg { lo.clone() } else { hi.clone() };
                note!(self, Rule::IntClamp, format!("{} → {}", v, i));
                i
            }
            Value::Num { neg, mag } => {
                let r = round(*neg, mag, Grid::integers(), self.mode());
                self.note_rounding(Rule::RoundToInt, *neg, mag, &r);
                let i = if *neg { -r.mag.floor_int() } else { r.mag.floor_int() };
                let mut c = i.clone().clamp(lo, hi);
                if self.is(Mutant::ClampOffByOne) && c == *hi && c != i {
                    c -= 1u32;
                }
                if self.is(Mutant::UnsignedNegativeWraps) && i < 0 && !d.format().is_signed_int() {
                    c = i.clone().keep_bits(n);
                }
                if c != i {
                    note!(self, Rule::IntClamp, format!("{i} is outside {} [{lo}, {hi}] → {c}", d.name()));
                }
                c
            }
            Value::Nan(_) => unreachable!(),
        };
        TypeResult::Bits(encode::encode_int(d.format(), &i))
    }

    /// .ftz on an f32 source (docs/semantics.md §5.6), with the f16.f32 erratum.
    /// The flushed value, if the source is flushed.
    fn ftz_input(&mut self, v: &Value) -> Option<Value> {
        if !(self.c.ftz && self.src == Format::F32 && is_subnormal(Format::F32, v)) || self.is(Mutant::NoFtz) {
            return None;
        }
        if self.dst == Format::F16 && !self.ask(Question::FtzF16Input) {
            note!(self, Rule::FtzErratumF16, "the f32 subnormal source is kept");
            return None;
        }
        let neg = v.is_negative();
        note!(self, Rule::FtzInput, format!("f32 subnormal source {v} → {}0", if neg { "-" } else { "+" }));
        Some(Value::num(neg, Dyadic::zero()))
    }

    fn nan(&mut self, out: NanOut, rule: Rule, n: &Nan) -> TypeResult {
        let d = self.dformat();
        let l = d.float_layout().unwrap();
        let r = match out {
            NanOut::Any(_) => TypeResult::AnyNan,
            NanOut::Canonical => {
                TypeResult::Bits(encode::encode_nan(d, n.neg && self.is(Mutant::NanSignKept), u64::MAX))
            }
            NanOut::Payload if self.is(Mutant::NanPayloadDropped) => {
                TypeResult::Bits(encode::encode_nan(d, false, u64::MAX))
            }
            NanOut::Copy => {
                TypeResult::Bits(encode::encode_nan(d, n.neg, n.payload) & !(l.quiet_bit() * (!n.quiet) as u64))
            }
            NanOut::Payload => {
                // Align the payload's top bits under the quiet bit.
                let pb = l.man_bits - 1;
                let p = if n.payload_bits >= pb {
                    n.payload >> (n.payload_bits - pb)
                } else {
                    n.payload << (pb - n.payload_bits)
                };
                TypeResult::Bits(encode::encode_nan(d, n.neg, p))
            }
        };
        let shown = match &r {
            TypeResult::AnyNan => "any NaN".to_string(),
            TypeResult::Bits(b) => fmt_hex(*b, d.container_bits()),
        };
        note!(self, rule, format!("NaN source → {shown}"));
        r
    }

    fn float_to_float(&mut self, v: &Value) -> TypeResult {
        let c = *self.c;
        let d = self.dformat();
        if let Value::Nan(n) = v {
            if c.sat && !self.is(Mutant::SatNanPassesNan) {
                note!(self, Rule::SatNan, "NaN → +0");
                return TypeResult::Bits(encode::encode_finite(d, false, &Dyadic::zero()));
            }
            if !d.float_layout().unwrap().has_nan() || (c.satfinite && self.is(Mutant::SatfiniteNanToMax)) {
                // e2m1/e2m3/e3m2 have no NaN: .satfinite gives +MAX_NORM (docs/semantics.md §5.8).
                note!(self, Rule::SatFiniteNanToMax, "NaN → +MAX_NORM");
                return TypeResult::Bits(encode::encode_max(d, false));
            }
            let plain = c.rounding.is_none() && !c.ftz && !c.relu && !c.satfinite;
            let (out, rule) = if d == Format::Ue8m0 {
                (NanOut::Canonical, Rule::Ue8m0Nan)
            } else if c.relu {
                self.profile.canonical_nan(Rule::ReluNan)
            } else if c.satfinite {
                self.profile.canonical_nan(Rule::SatFiniteNan)
            } else {
                self.profile.nan_out(self.dst, self.src, plain)
            };
            return self.nan(out, rule, n);
        }
        let flushed = self.ftz_input(v);
        let v = flushed.as_ref().unwrap_or(v);
        // ue8m0 has no sign: the magnitude is converted.
        let drop_sign = !d.float_layout().unwrap().signed && v.is_negative() && !self.is(Mutant::Ue8m0UsesSign);
        if drop_sign {
            note!(self, Rule::Ue8m0Unsigned, "the sign is ignored: converting the magnitude");
        }
        let (neg, mag) = match v {
            Value::Num { neg, mag } => (*neg && !drop_sign, mag),
            Value::Inf { neg } => return self.inf(*neg && !drop_sign),
            Value::Nan(_) => unreachable!(),
        };
        let l = d.float_layout().unwrap();
        let (grid, rule) = match (instr::family(self.src, self.dst), c.rounding) {
            (Family::SameFloat, Some(r)) if r.is_integer() => (Grid::integers(), Rule::RoundToIntegral),
            (Family::SameFloat, _) => (Grid::float(l), Rule::Copy),
            (Family::Widen, _) => (Grid::float(l), Rule::Exact),
            _ => {
                if c.rounding.is_none() {
                    note!(self, Rule::DefaultRounding, "no rounding modifier: rounding to nearest even");
                }
                let rule = if matches!(self.mode, Mode::Stochastic { .. }) {
                    Rule::RoundStochastic
                } else {
                    Rule::RoundToFloat
                };
                (Grid::float(l), rule)
            }
        };
        let r = round(neg, mag, grid, self.mode());
        self.note_rounding(rule, neg, mag, &r);
        self.finish_float(neg, mag, r)
    }

    fn inf(&mut self, neg: bool) -> TypeResult {
        let d = self.dformat();
        if self.c.sat {
            let one = Dyadic::from_int(Integer::from(1));
            let m = if neg { Dyadic::zero() } else { one };
            note!(self, Rule::SatClamp, format!("{}inf → {}", if neg { "-" } else { "+" }, m));
            return TypeResult::Bits(encode::encode_finite(d, false, &m));
        }
        if self.c.relu && neg {
            note!(self, Rule::Relu, "-inf → +0");
            return TypeResult::Bits(encode::encode_finite(d, false, &Dyadic::zero()));
        }
        if self.c.satfinite && !(self.is(Mutant::SatfinitePassesInf) && d.float_layout().unwrap().has_inf()) {
            note!(self, Rule::SatFinite, "±inf → ±MAX_NORM");
            return TypeResult::Bits(encode::encode_max(d, neg));
        }
        if !d.float_layout().unwrap().has_inf() {
            // Only ue8m0 gets here (the other Inf-less formats require .satfinite).
            note!(self, Rule::OverflowToNan, "+inf → NaN");
            return TypeResult::Bits(encode::encode_nan(d, false, u64::MAX));
        }
        note!(self, Rule::InfToInf, "");
        TypeResult::Bits(encode::encode_inf(d, neg))
    }

    /// After rounding to a float destination: .sat, .relu, overflow, .ftz, encode.
    fn finish_float(&mut self, mut neg: bool, exact: &Dyadic, r: Rounded) -> TypeResult {
        let c = *self.c;
        let d = self.dformat();
        let l = d.float_layout().unwrap();
        let Rounded { mag, remainder, away, mode } = r;
        let mut mag = mag;
        if c.sat {
            let one = Dyadic::from_int(Integer::from(1));
            if neg && !(mag.is_zero() && self.is(Mutant::SatKeepsNegZero)) {
                let rule = if mag.is_zero() { Rule::SatNegZero } else { Rule::SatClamp };
                note!(self, rule, format!("{} → +0", signed(true, &mag)));
                (neg, mag) = (false, Dyadic::zero());
            } else if mag > one {
                note!(self, Rule::SatClamp, format!("{mag} → 1"));
                mag = one;
            }
        } else {
            if c.relu && neg {
                if !mag.is_zero() {
                    note!(self, Rule::Relu, format!("{} → +0", signed(true, &mag)));
                    (neg, mag) = (false, Dyadic::zero());
                } else if self.ask(Question::ReluNegZeroToPositive) {
                    note!(self, Rule::ReluNegZero, "-0 → +0");
                    neg = false;
                } else {
                    note!(self, Rule::ReluNegZero, "-0 stays -0");
                }
            }
            let policy =
                if c.satfinite && !self.is(Mutant::SatfinitePassesInf) { Overflow::SatFinite } else { Overflow::Ieee };
            let rounded = Rounded { mag, remainder, away, mode };
            let fits = fit(l, neg, &rounded, policy);
            mag = rounded.mag;
            match fits {
                Fit::Finite => {}
                Fit::OverflowToInf
                    if self.is(Mutant::OverflowToMaxUnderRn) && matches!(self.mode, Mode::NearestEven) =>
                {
                    return TypeResult::Bits(encode::encode_max(d, neg));
                }
                Fit::OverflowToInf => {
                    note!(
                        self,
                        Rule::OverflowToInf,
                        format!("{} exceeds max finite {} → {}inf", mag, l.max_finite(), if neg { "-" } else { "+" })
                    );
                    return TypeResult::Bits(encode::encode_inf(d, neg));
                }
                Fit::OverflowToNan => {
                    note!(self, Rule::OverflowToNan, format!("{mag} exceeds max finite {} → NaN", l.max_finite()));
                    return TypeResult::Bits(encode::encode_nan(d, false, u64::MAX));
                }
                Fit::OverflowToMax => {
                    let rule = if c.satfinite { Rule::SatFinite } else { Rule::OverflowToMax };
                    note!(self, rule, format!("{} exceeds max finite → {}", mag, signed(neg, &l.max_finite())));
                    return TypeResult::Bits(encode::encode_max(d, neg));
                }
            }
        }
        if c.ftz && self.dst == Format::F32 && !self.is(Mutant::NoFtz) {
            let tiny_after = mag.msb_exp().is_some_and(|e| e < l.emin());
            let tiny_before = exact.msb_exp().is_some_and(|e| e < l.emin());
            if tiny_after != tiny_before {
                let after = self.ask(Question::FtzAfterRounding);
                let flush = if after { tiny_after } else { tiny_before };
                note!(
                    self,
                    Rule::FtzTininess,
                    format!(
                        "judged {} rounding: {}",
                        if after { "after" } else { "before" },
                        if flush { "subnormal" } else { "normal" }
                    ),
                );
                if flush {
                    note!(self, Rule::FtzOutput, format!("subnormal result → {}0", if neg { "-" } else { "+" }));
                    mag = Dyadic::zero();
                }
            } else if tiny_after {
                note!(
                    self,
                    Rule::FtzOutput,
                    format!("subnormal result {} → {}0", signed(neg, &mag), if neg { "-" } else { "+" })
                );
                mag = Dyadic::zero();
            }
        }
        if self.is(Mutant::FlushSubnormalResults) && mag.msb_exp().is_some_and(|e| l.subnormals && e < l.emin()) {
            mag = Dyadic::zero();
        }
        if self.is(Mutant::NegZeroLosesSign) && mag.is_zero() {
            neg = false;
        }
        if mag.is_zero() && d == Format::Ue8m0 {
            note!(self, Rule::Ue8m0NoZero, "below 2^-127 → 00 (2^-127)");
            return TypeResult::Bits(0);
        }
        TypeResult::Bits(encode::encode_finite(d, neg, &mag))
    }

    /// Place the type-width result in the destination register (docs/semantics.md §4).
    fn extend(&mut self, r: TypeResult, width: u32) -> AcceptSet {
        let d = self.c.dtype;
        let n = d.bits();
        match r {
            TypeResult::AnyNan => AcceptSet { width, alts: vec![Alt::AnyNan(d.format())] },
            TypeResult::Bits(b) if d == Type::Tf32 => {
                let mask = self.profile.tf32_low_bits_mask();
                note!(
                    self,
                    Rule::Tf32LowBits,
                    format!("bits 12..0 {}", if mask == u32::MAX as u64 { "are zero" } else { "are left open" })
                );
                AcceptSet { width, alts: vec![Alt::Bits { value: b & mask, mask }] }
            }
            TypeResult::Bits(b) => {
                let mut bits = b & width_mask(n);
                if width > n {
                    let sext =
                        d.format().is_signed_int() && (bits >> (n - 1)) & 1 == 1 && !self.is(Mutant::DestExtendZero);
                    if sext {
                        bits |= width_mask(width) & !width_mask(n);
                    }
                    note!(
                        self,
                        Rule::DestExtend,
                        format!(
                            "{} into a {width}-bit register: {}",
                            if sext { "sign-extend" } else { "zero-extend" },
                            fmt_hex(bits, width)
                        ),
                    );
                }
                AcceptSet::exact(width, bits)
            }
        }
    }
}

/// Names of the lanes, lowest lane first (docs/semantics.md §5.11: `a` is the high part).
fn lane_names(c: &Cvt) -> &'static [&'static str] {
    match (c.atype.is_packed(), c.dtype.lanes()) {
        (true, _) => &["lo", "hi"],
        (false, 4) => &["f", "e", "b", "a"],
        (false, _) => &["b", "a"],
    }
}
