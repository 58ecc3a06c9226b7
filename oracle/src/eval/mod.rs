//! Evaluation of scalar `cvt` forms: the PTX policy layer over the exact
//! core. Each decision is recorded as a named `Rule` step so `explain` can
//! show why a result is what it is.

/// Record a step of the trace (with an [`Event`] where the rule alone does
/// not say what happened); its text is built only when tracing.
macro_rules! note {
    ($cx:expr, $rule:expr, $detail:expr $(,)?) => {
        note!($cx, $rule, $detail; $crate::eval::Event::Applied)
    };
    ($cx:expr, $rule:expr, $detail:expr; $event:expr) => {
        if $cx.tracing {
            let detail: String = ($detail).into();
            $cx.push_step($rule, detail, $event);
        }
    };
}

mod float;
mod int;
mod scale;
mod trace;

pub use self::trace::{Event, RoundEvent, Step};

use rug::Integer;

use crate::accept::{alts, width_mask, AcceptSet, Alt, LaneSet};
use crate::decide::{self, Decisions, Finish, Ptx, FINISH};
use crate::exact::{decode, decode_float, Value};
use crate::format::{FloatLayout, Format};
use crate::instr::{self, Cvt, Family, Regs, Type};
use crate::operand::{check_packed_widths, operand_count_error};
pub use crate::operand::{fmt_hex, EvalError, Operand};
use crate::policy::{Answers, Profile, Question, Rule};
use crate::round::Mode;

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
    evaluate_with(c, srcs, dst_width, profile, &Ptx)
}

/// What the destination register may hold: [`evaluate`]'s set and errors,
/// without building the explanation (several times faster).
pub fn evaluate_accept(c: &Cvt, srcs: &[Operand], dst_width: u32, profile: Profile) -> Result<AcceptSet, EvalError> {
    check_case(c, srcs, dst_width)?;
    Ok(explore_accept(c, &Prepared::new(c, &Ptx), srcs, dst_width, profile, &Ptx))
}

/// Operand count, legality for the registers, packed operand widths: in this order.
fn check_case(c: &Cvt, srcs: &[Operand], dst_width: u32) -> Result<(), EvalError> {
    if srcs.len() != instr::shape(c).srcs.len() {
        return Err(operand_count_error(c, srcs.len()));
    }
    let src_width = srcs.first().map_or(c.atype.bits(), |o| o.width);
    instr::check(c, Regs { dst: dst_width, src: src_width }, None, None).map_err(EvalError::Illegal)?;
    check_packed_widths(c, srcs)
}

/// An instruction prepared for evaluation on many operands: legality is
/// checked once, and evaluation records no trace (use [`evaluate`] for the
/// explanation). Same results and errors as [`evaluate`].
#[derive(Clone, Debug)]
pub struct Evaluator {
    c: Cvt,
    prepared: Prepared,
    src_width: u32,
    dst_width: u32,
    profile: Profile,
    operands: usize,
    /// Bit `w` of entry `i`: whether operand `i` may sit in a `w`-bit
    /// register (packed forms; empty for scalar forms, which take any).
    widths: Vec<u128>,
}

impl Evaluator {
    /// Prepare `c` for a `src_width`-bit source register (of the first
    /// operand) and a `dst_width`-bit destination register.
    pub fn new(c: &Cvt, src_width: u32, dst_width: u32, profile: Profile) -> Result<Evaluator, EvalError> {
        instr::check(c, Regs { dst: dst_width, src: src_width }, None, None).map_err(EvalError::Illegal)?;
        let operands = instr::shape(c).srcs.len();
        let width_ok = |i, w| instr::packed::width_ok(c, Some(i), w) as u128;
        let widths = if c.is_scalar() {
            Vec::new()
        } else {
            (0..operands).map(|i| (0..=64).fold(0, |m, w| m | width_ok(i, w) << w)).collect()
        };
        Ok(Evaluator { c: *c, prepared: Prepared::new(c, &Ptx), src_width, dst_width, profile, operands, widths })
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
        // The widths checked against the table made once; the full check says what is wrong.
        let fits = |(o, m): (&Operand, &u128)| o.width <= 64 && m >> o.width & 1 == 1;
        if !srcs.iter().zip(&self.widths).all(fits) {
            check_packed_widths(&self.c, srcs)?;
        }
        Ok(explore_accept(&self.c, &self.prepared, srcs, self.dst_width, self.profile, &Ptx))
    }
}

/// What a conversion derives from its instruction alone (and the decision
/// set), once: per [`Evaluator`], or per call of [`evaluate`].
#[derive(Clone, Copy, Debug)]
struct Prepared {
    /// Lane formats, with their layouts where they are floats.
    src: Format,
    dst: Format,
    src_layout: Option<&'static FloatLayout>,
    dst_layout: Option<&'static FloatLayout>,
    family: Family,
    /// Whether a type is packed (the lanes are converted one by one).
    packed: bool,
    /// Bits of the source and destination types.
    abits: u32,
    dbits: u32,
    /// Packed forms: how many lanes, their names (lowest first), the
    /// source lanes' width when the source is packed, the destination's.
    lanes: u32,
    lane_names: &'static [&'static str],
    src_lane_bits: Option<u32>,
    dst_lane_bits: u32,
    /// Whether each lane is scaled by a ue8m0 factor ([`Cvt::lane_scale`]).
    lane_scale: bool,
    /// Whether a float destination has no sign ([`Decisions::drops_sign`]).
    drops_sign: bool,
    /// The rounding rule (`.rs` lanes each carry their own random bits).
    mode: Mode,
    /// The steps of [`FINISH`] this instruction can take, in their order
    /// (the others' conditions are false for every value).
    finish: [Finish; FINISH.len()],
    finish_len: usize,
}

impl Prepared {
    fn new<D: Decisions + ?Sized>(c: &Cvt, d: &D) -> Prepared {
        let (src, dst) = (c.atype.format(), c.dtype.format());
        let can_take = |step: &Finish| match step {
            Finish::Sat => c.sat,
            Finish::Relu => !c.sat && c.relu,
            Finish::Overflow => !c.sat,
            Finish::FlushResult => d.flushes_result(c),
            Finish::PositiveZero => d.positive_zero_only(c),
            Finish::ZeroCode => dst.is_float() && d.zero_code(dst).is_some(),
        };
        let mut finish = FINISH;
        let mut finish_len = 0;
        for step in FINISH.iter().filter(|s| can_take(s)) {
            finish[finish_len] = *step;
            finish_len += 1;
        }
        Prepared {
            src,
            dst,
            src_layout: src.float_layout(),
            dst_layout: dst.float_layout(),
            family: instr::family(src, dst),
            packed: c.dtype.is_packed() || c.atype.is_packed(),
            abits: c.atype.bits(),
            dbits: c.dtype.bits(),
            lanes: c.dtype.lanes().max(c.atype.lanes()),
            lane_names: lane_names(c),
            src_lane_bits: c.atype.is_packed().then(|| c.atype.lane_bits()),
            dst_lane_bits: c.dtype.lane_bits(),
            lane_scale: c.lane_scale(),
            drops_sign: dst.is_float() && d.drops_sign(dst),
            mode: decide::mode_of(d, c),
            finish,
            finish_len,
        }
    }
    /// The steps after rounding to a float destination that can apply.
    #[inline(always)]
    fn finish_steps(&self) -> &[Finish] {
        &self.finish[..self.finish_len]
    }
}

/// The explanation's parts, filled only when tracing.
#[derive(Default)]
struct Record {
    inputs: Vec<(&'static str, Value)>,
    trace: Vec<Step>,
}

/// [`explore`] without the explanation: the result set only.
#[inline(always)]
fn explore_accept<D: Decisions + ?Sized>(
    c: &Cvt,
    p: &Prepared,
    srcs: &[Operand],
    dst_width: u32,
    profile: Profile,
    decisions: &D,
) -> AcceptSet {
    explore(c, p, srcs, dst_width, profile, decisions, None)
}

/// Run the policy layer on checked operands; under a profile that accepts
/// every answer to the open questions, explore each combination the input
/// reached. With a `rec`, record the inputs and the trace there.
// This and the policy functions down to the encoding are `inline(always)`:
// one function for the optimiser, whose values then stay in registers (the
// calls and the moves between them cost more than the rules themselves).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn explore<D: Decisions + ?Sized>(
    c: &Cvt,
    p: &Prepared,
    srcs: &[Operand],
    dst_width: u32,
    profile: Profile,
    decisions: &D,
    mut rec: Option<&mut Record>,
) -> AcceptSet {
    let base = decisions.answers(profile);
    let Run { set: accept, consulted } = Ctx::run(c, p, srcs, dst_width, profile, base, decisions, rec.as_deref_mut());
    if profile.accepts_all_answers() {
        return explore_answers(c, p, srcs, dst_width, profile, decisions, rec, accept, (base, consulted));
    }
    accept
}

/// The rest of [`explore`] under a profile that accepts every answer: each
/// combination of answers the input reached, from the `first` run's. Out of
/// line: the sm90 profile's path stays one copy of the engine.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn explore_answers<D: Decisions + ?Sized>(
    c: &Cvt,
    p: &Prepared,
    srcs: &[Operand],
    dst_width: u32,
    profile: Profile,
    decisions: &D,
    mut rec: Option<&mut Record>,
    mut accept: AcceptSet,
    first: (Answers, u8),
) -> AcceptSet {
    let mut seen = vec![first.0];
    let mut queue = vec![first];
    while let Some((a, consulted)) = queue.pop() {
        for q in Question::ALL.into_iter().filter(|q| consulted & (1 << *q as u8) != 0) {
            let b = a.flipped(q);
            if seen.contains(&b) {
                continue;
            }
            seen.push(b);
            let alt = Ctx::run(c, p, srcs, dst_width, profile, b, decisions, None);
            if !alt.set.is_subset_of(&accept) {
                if let Some(rec) = rec.as_deref_mut() {
                    rec.trace.push(Step {
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
    accept
}

/// [`evaluate`] under another decision set than the oracle's ([`Ptx`]): an
/// alternative reading of the ISA, or a deliberate bug (the mutation test,
/// `tests/mutants.rs`).
pub fn evaluate_with<D: Decisions + ?Sized>(
    c: &Cvt,
    srcs: &[Operand],
    dst_width: u32,
    profile: Profile,
    decisions: &D,
) -> Result<Outcome, EvalError> {
    check_case(c, srcs, dst_width)?;
    let mut rec = Record::default();
    let accept = explore(c, &Prepared::new(c, decisions), srcs, dst_width, profile, decisions, Some(&mut rec));
    Ok(Outcome { accept, inputs: rec.inputs, trace: rec.trace })
}

/// [`evaluate_accept`] under another decision set: the result set without
/// the explanation (the harness's diagnosis tries many sets per mismatch).
pub fn evaluate_accept_with<D: Decisions + ?Sized>(
    c: &Cvt,
    srcs: &[Operand],
    dst_width: u32,
    profile: Profile,
    decisions: &D,
) -> Result<AcceptSet, EvalError> {
    check_case(c, srcs, dst_width)?;
    Ok(explore_accept(c, &Prepared::new(c, decisions), srcs, dst_width, profile, decisions))
}

/// [`evaluate_accept_with`] without the legality check: what the policy
/// layer gives for a spelling the ISA does not allow, such as a form
/// without the `.satfinite` the ISA requires. Only for reading an
/// implementation's answers (the diagnosis: "answers equal the form without
/// `.satfinite`"); the operand count and packed widths are still checked.
pub fn evaluate_accept_unchecked_with<D: Decisions + ?Sized>(
    c: &Cvt,
    srcs: &[Operand],
    dst_width: u32,
    profile: Profile,
    decisions: &D,
) -> Result<AcceptSet, EvalError> {
    if srcs.len() != instr::shape(c).srcs.len() {
        return Err(operand_count_error(c, srcs.len()));
    }
    // Registers narrower than the types: the legality check says why.
    if dst_width < c.dtype.bits() || srcs.first().is_some_and(|o| o.width < c.atype.bits()) {
        check_case(c, srcs, dst_width)?;
    }
    check_packed_widths(c, srcs)?;
    Ok(explore_accept(c, &Prepared::new(c, decisions), srcs, dst_width, profile, decisions))
}

/// The result at the destination type's width, before register extension.
#[derive(Clone, Copy)]
enum TypeResult {
    Bits(u64),
    AnyNan,
}

struct Run {
    set: AcceptSet,
    consulted: u8,
}

struct Ctx<'a, D: ?Sized> {
    c: &'a Cvt,
    p: &'a Prepared,
    /// Every PTX rule's answer.
    d: &'a D,
    profile: Profile,
    answers: Answers,
    consulted: u8,
    /// Whether to record the trace and inputs (explain, coverage) or only
    /// the result: whether there is a `rec`.
    tracing: bool,
    rec: Option<&'a mut Record>,
    /// The lane being converted (empty for scalar forms), shown in the trace.
    lane: &'static str,
    /// The rounding rule in force (`p.mode`, or a `.rs` lane's own).
    mode: Mode,
    /// The ue8m0 scale byte of the lane being converted, for the scaled and s2f6x2 forms.
    scale: Option<u64>,
}

impl<'a, D: Decisions + ?Sized> Ctx<'a, D> {
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn run(
        c: &'a Cvt,
        p: &'a Prepared,
        srcs: &[Operand],
        dst_width: u32,
        profile: Profile,
        answers: Answers,
        d: &'a D,
        rec: Option<&'a mut Record>,
    ) -> Run {
        let mut cx = Ctx {
            c,
            p,
            d,
            profile,
            answers,
            consulted: 0,
            tracing: rec.is_some(),
            rec,
            lane: "",
            mode: p.mode,
            scale: None,
        };
        if p.packed {
            return cx.run_packed(srcs, dst_width);
        }
        let src = srcs[0];
        let abits = p.abits;
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
        let read = cx.d.source_bits(c.atype, src.width);
        let input = if read > abits && c.atype.is_int() {
            // More bits than the type holds: an integer as wide as the bits read.
            let full = Integer::from(src.bits & width_mask(read));
            let neg = c.atype.format().is_signed_int() && (src.bits >> (read - 1)) & 1 == 1;
            Value::from_integer(if neg { full - (Integer::from(1) << read) } else { full })
        } else {
            cx.decode(bits & width_mask(read))
        };
        let r = cx.convert(&input);
        let set = cx.extend(r, dst_width);
        if let Some(rec) = cx.rec {
            rec.inputs.push(("a", input));
        }
        Run { set, consulted: cx.consulted }
    }

    /// Packed forms: convert lane by lane, high lane first, then pack (docs/semantics.md §5.11).
    #[inline(always)]
    fn run_packed(mut self, srcs: &[Operand], dst_width: u32) -> Run {
        let (c, p) = (self.c, self.p);
        let (lanes, names) = (p.lanes, p.lane_names);
        let rbits = (c.rounding == Some(crate::instr::Rounding::Rs)).then(|| srcs[srcs.len() - 1].bits);
        // At most four lanes: held on the stack.
        let mut outs = [TypeResult::AnyNan; 4];
        for (k, i) in (0..lanes).rev().enumerate() {
            self.lane = names[i as usize];
            let j = self.d.source_lane(i, lanes);
            let bits = if let Some(sb) = p.src_lane_bits {
                (srcs[0].bits >> (j * sb)) & width_mask(sb)
            } else {
                srcs[(lanes - 1 - j) as usize].bits
            };
            if let Some(r) = rbits {
                let (value, width) = self.d.stochastic_bits(c.dtype, r, i);
                self.mode = Mode::Stochastic { rbits: value, width };
                note!(self, Rule::RoundStochastic, format!("random bits {value:#x} ({width} bits) for this lane"));
            }
            self.scale = self.lane_code(srcs, i);
            let v = self.decode(bits);
            outs[k] = self.convert(&v);
            if let Some(rec) = self.rec.as_deref_mut() {
                rec.inputs.push((self.lane, v));
            }
        }
        self.lane = "";
        let lb = p.dst_lane_bits;
        let lane_sets = outs.map(|r| match r {
            TypeResult::Bits(b) => LaneSet::Bits { value: b & width_mask(lb), mask: width_mask(lb) },
            TypeResult::AnyNan => LaneSet::AnyNan(c.dtype.format()),
        });
        let mut set = AcceptSet::from_lane_slice(dst_width, lb, &lane_sets[..lanes as usize]);
        note!(
            self,
            Rule::Pack,
            format!(
                "lanes {} packed high to low: {set}",
                names[..lanes as usize].iter().rev().copied().collect::<Vec<_>>().join(", ")
            )
        );
        if c.dtype.takes_c() {
            set = self.pack_c(set, srcs[2].bits, lb);
        }
        Run { set, consulted: self.consulted }
    }

    /// cvt.pack: the low bits of `c` fill `d` above the two lanes of `lane_bits`.
    fn pack_c(&mut self, set: AcceptSet, c: u64, lane_bits: u32) -> AcceptSet {
        let shift = self.d.pack_c_shift(lane_bits);
        let low = shift.unwrap_or(2 * lane_bits);
        let upper = shift.map_or(0, |s| (c << s) & width_mask(32));
        note!(self, Rule::PackC, format!("bits 31..{low} of d from c {}: {}", fmt_hex(c, 32), fmt_hex(upper, 32)));
        let alts = set.alts.into_iter().map(|a| match a {
            Alt::Bits { value, mask } => Alt::Bits { value: value | upper, mask },
            other => unreachable!("integer lanes are exact: {other:?}"),
        });
        AcceptSet { width: set.width, alts: alts.collect() }
    }

    #[inline(always)]
    fn decode(&mut self, bits: u64) -> Value {
        let v = match self.p.src_layout {
            Some(l) => decode_float(l, bits),
            None => decode(self.p.src, bits),
        };
        note!(self, Rule::Decode, {
            let w = if self.c.atype.is_packed() { self.c.atype.lane_bits() } else { self.p.src.container_bits() };
            format!("{} {} = {v}", self.p.src.name(), fmt_hex(bits, w))
        });
        v
    }

    /// Convert one value (a scalar, or one lane) by its family.
    #[inline(always)]
    fn convert(&mut self, v: &Value) -> TypeResult {
        if let Some(code) = self.scale {
            return self.convert_scaled(v, code);
        }
        match self.p.family {
            Family::IntToInt => self.int_to_int(v),
            Family::IntToFloat => self.int_to_float(v),
            Family::FloatToInt => self.float_to_int(v),
            Family::SameFloat | Family::Widen | Family::Narrow => self.float_to_float(v),
        }
    }

    fn ask(&mut self, q: Question) -> bool {
        self.consult(q);
        self.answers.get(q)
    }

    /// Note that the answer to `q` decided this result.
    fn consult(&mut self, q: Question) {
        self.consulted |= 1 << q as u8;
    }

    fn dformat(&self) -> Format {
        self.p.dst
    }

    /// The destination's float layout (float destinations only).
    #[inline(always)]
    fn dlayout(&self) -> &'static FloatLayout {
        self.p.dst_layout.expect("float destination")
    }

    /// Place the type-width result in the destination register (docs/semantics.md §4).
    #[inline(always)]
    fn extend(&mut self, r: TypeResult, width: u32) -> AcceptSet {
        let d = self.c.dtype;
        let n = self.p.dbits;
        match r {
            TypeResult::AnyNan => AcceptSet { width, alts: alts::one(Alt::AnyNan(d.format())) },
            TypeResult::Bits(b) if d == Type::Tf32 => {
                let mask = self.d.tf32_low_bits(self.profile);
                note!(
                    self,
                    Rule::Tf32LowBits,
                    format!("bits 12..0 {}", if mask == u32::MAX as u64 { "are zero" } else { "are left open" })
                );
                AcceptSet { width, alts: alts::one(Alt::Bits { value: b & mask, mask }) }
            }
            TypeResult::Bits(b) => {
                let mut bits = b & width_mask(n);
                if width > n {
                    let sext = self.d.dest_sign_extends(d) && (bits >> (n - 1)) & 1 == 1;
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
