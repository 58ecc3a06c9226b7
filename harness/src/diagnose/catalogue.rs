//! The catalogue of hypotheses: one table, one row per hypothesis (name,
//! one-line meaning, how the oracle computes its answer). The order of the
//! rows is the preference order: where several hypotheses reproduce every
//! case of a class, the first one names it (specific before generic).
//! Adding a hypothesis is adding a row; docs/diagnosis.md lists them.
//!
//! In a meaning, `{rounding}` stands for the rounding modifiers of the
//! class's variants (`.rz/.rm/.rp`) and `{modifiers}` for the modifiers
//! ignored (`.sat/.ftz`: those whose own `no-…` row reproduces some case of
//! the class, else every modifier written).

use std::collections::BTreeSet;

use ptx_cvt::accept::{width_mask, Alt as Bits, LaneSet};
use ptx_cvt::decide::{Decisions, Ptx};
use ptx_cvt::instr::Family;
use ptx_cvt::round::Mode;
use ptx_cvt::{AcceptSet, Cvt, Operand, Profile, Rounding, Type};

use super::alt::{Alt, NanInt};
use super::lanes::Lanes;
use super::mechanism::{
    fault, ieee_special_source, overflows, special_as_finite, special_as_finite_int, subnormal_fraction,
    top_binade_finite, LaneCase, Mechanism,
};
use super::probe::{legalize, types_of_width, Probe};

/// One alternative semantics that may explain a wrong answer.
pub struct Hypothesis {
    /// Stable name (JSON key `explanation.name`).
    pub name: &'static str,
    /// What the implementation does, in words, for the report.
    pub meaning: &'static str,
    /// Generic hypotheses (a zero, one lane right, ...) say little; they
    /// stand last, so they name a class only where no specific hypothesis
    /// reproduces as many of its cases.
    pub generic: bool,
    /// The answer under the hypothesis; `None` where it does not apply.
    pub compute: fn(&Probe) -> Option<AcceptSet>,
}

macro_rules! row {
    ($name:literal, $meaning:literal, $f:expr) => {
        Hypothesis { name: $name, meaning: $meaning, generic: false, compute: $f }
    };
    (generic $name:literal, $meaning:literal, $f:expr) => {
        Hypothesis { name: $name, meaning: $meaning, generic: true, compute: $f }
    };
}

/// Every hypothesis, most specific first.
pub static CATALOGUE: &[Hypothesis] = &[
    // A modifier ignored: all of them first (one defect often ignores several;
    // `{modifiers}` names those whose single hypothesis reproduces some case).
    row!("modifiers-ignored", "{modifiers} ignored: answers equal the form without them", |p| {
        let any = p.c.sat || p.c.ftz || p.c.relu || p.c.satfinite;
        let c = Cvt { sat: false, ftz: false, relu: false, satfinite: false, ..*p.c };
        any.then(|| p.eval(&c).or_else(|| p.eval_any(&c))).flatten()
    }),
    row!("no-sat", "`.sat` ignored: answers equal the form without `.sat`", |p| drop(p, |c| c.sat, |c| c.sat = false)),
    row!("no-ftz", "`.ftz` ignored: subnormals are not flushed", |p| drop(p, |c| c.ftz, |c| c.ftz = false)),
    row!("no-relu", "`.relu` ignored: negative results are kept", |p| drop(p, |c| c.relu, |c| c.relu = false)),
    row!("satfinite-skips-inf", "`.satfinite` not applied to ±Inf sources: they give what they give without it", satfinite_skips_inf),
    row!("sat-skips-nan", "`.sat` not applied to NaN sources: they give a NaN, as without it", |p| {
        let float = p.scalar() && p.c.sat && p.c.dtype.is_float();
        (float && p.source_is_nan()).then(|| AcceptSet { width: p.dst_width, alts: vec![Bits::AnyNan(p.c.dtype.format())].into() })
    }),
    row!("no-satfinite", "`.satfinite` ignored: overflow and NaN as without it", no_satfinite),
    row!("no-pzo", "`.pzo` ignored: a −0 result stays −0", |p| drop(p, |c| c.pzo, |c| c.pzo = false)),
    row!("no-scale", "the ue8m0 scale ignored: answers equal a scale of 2^0", no_scale),
    row!("sat-keeps-neg-zero", "`.sat` keeps −0 instead of giving +0", |p| {
        p.c.sat.then(|| p.with(&Alt::SatKeepsNegZero)).flatten()
    }),
    // Modifiers applied that are not written.
    row!("flushes-sources", "subnormal sources flushed to zero though `.ftz` is not written", |p| {
        (p.c.atype.is_float() && !p.c.ftz).then(|| p.with(&Alt::FlushSources)).flatten()
    }),
    row!("flushes-results", "subnormal results flushed to zero though `.ftz` is not written", |p| {
        (p.c.dtype.is_float() && !p.c.ftz).then(|| p.with(&Alt::FlushResults)).flatten()
    }),
    // NaN rules.
    row!("nan-int-zero", "NaN → integer gives 0", |p| nan_int(p, NanInt::Zero)),
    row!("nan-int-sign-bit", "NaN → integer gives 1<<(n−1)", |p| nan_int(p, NanInt::SignBit)),
    row!("nan-int-all-ones", "NaN → integer gives all ones", |p| nan_int(p, NanInt::AllOnes)),
    row!("x86-indefinite", "NaN, ±Inf and out-of-range values give the x86 integer indefinite (1<<31, 1<<63)", |p| {
        (p.family() == Family::FloatToInt).then(|| p.with(&Alt::NanToInt(NanInt::Indefinite))).flatten()
    }),
    row!("nan-payload-kept", "a NaN keeps its payload instead of becoming the canonical NaN", |p| {
        nan_into_float(p).then(|| p.with(&Alt::NanPayload)).flatten()
    }),
    row!("nan-canonical", "a NaN becomes the canonical NaN instead of keeping its payload", |p| {
        nan_into_float(p).then(|| p.with(&Alt::NanCanonical)).flatten()
    }),
    row!("nan-sign-kept", "the canonical NaN keeps the source's sign", |p| {
        nan_into_float(p).then(|| p.with(&Alt::NanSignKept)).flatten()
    }),
    row!("nan-to-inf", "a NaN source gives ±Inf", nan_to_inf),
    row!("nan-to-zero", "a NaN source gives ±0", nan_to_zero),
    // Registers.
    row!("upper-bits-zero", "the low bits are right; the upper register bits are zero instead of the sign", |p| {
        wide_dst(p).then(|| p.with(&Alt::Extend(false))).flatten()
    }),
    row!("upper-bits-sign", "the low bits are right; the upper register bits copy the sign instead of zero", |p| {
        wide_dst(p).then(|| p.with(&Alt::Extend(true))).flatten()
    }),
    row!("source-not-chopped", "a source register wider than its type is read whole, not chopped", |p| {
        (p.c.atype.is_int() && p.ops.first().is_some_and(|o| o.width > p.c.atype.bits()))
            .then(|| p.with(&Alt::SourceWhole))
            .flatten()
    }),
    row!("int-extend-flipped", "a signed source is zero-extended (or an unsigned one sign-extended)", |p| {
        (p.family() == Family::IntToInt && p.c.atype.bits() < p.c.dtype.bits())
            .then(|| p.with(&Alt::IntExtendFlipped))
            .flatten()
    }),
    row!("lanes-swapped", "packed lanes swapped (the sources' or the result's)", lanes_swapped),
    // Range.
    row!("wraps", "out-of-range values wrap modulo 2^n instead of clamping", |p| {
        (p.family() == Family::FloatToInt).then(|| p.with(&Alt::Wraps)).flatten()
    }),
    row!("wraps-negative", "negative values into an unsigned type wrap (two's complement) instead of giving 0", |p| {
        (p.family() == Family::FloatToInt && !p.c.dtype.format().is_signed_int())
            .then(|| p.with(&Alt::WrapsNegative))
            .flatten()
    }),
    row!("clamp-off-by-one", "the clamp bound is off by one (MAX−1, MIN+1)", |p| {
        (p.family() == Family::FloatToInt).then(|| p.with(&Alt::ClampOffByOne)).flatten()
    }),
    row!("clamp-other-sign", "clamped to the range of the other signedness of the same width", |p| {
        (p.family() == Family::FloatToInt).then(|| p.with(&Alt::ClampOtherSign)).flatten()
    }),
    row!(
        "clamp-bound-rounds-up",
        "the clamp compares in the source's float format, where MAX rounds up to 2^n: 2^n itself is not clamped and wraps (to 0, or to MIN)",
        clamp_bound_rounds_up
    ),
    row!("overflow-to-max", "overflow gives ±MAX_NORM where the rounding gives ±Inf", |p| {
        (p.c.dtype.is_float() && p.rounds()).then(|| p.with(&Alt::OverflowToMax)).flatten()
    }),
    row!("overflow-to-inf", "overflow gives ±Inf where the rounding gives ±MAX_NORM", |p| {
        (p.c.dtype.is_float() && p.rounds()).then(|| p.with(&Alt::OverflowToInf)).flatten()
    }),
    // Computed through another format first (before the rounding replaced:
    // these change fewer answers, so they are the more specific).
    row!("via-f32", "computed through f32 first (rounded twice)", |p| via_float(p, p.c, Type::F32)),
    row!("via-f64", "computed through f64 first (rounded twice)", |p| via_float(p, p.c, Type::F64)),
    row!("via-f16", "f32 pairs computed through f16x2 first (rounded twice)", |p| via_pair(p, Type::F16x2)),
    row!("via-bf16", "f32 pairs computed through bf16x2 first (rounded twice)", |p| via_pair(p, Type::Bf16x2)),
    row!(
        "via-s32",
        "computed through a 32-bit signed integer first (its overflow clamped, wrapped or x86-indefinite; then extended or chopped)",
        |p| { via_int(p, Type::S32) }
    ),
    row!(
        "via-u32",
        "computed through a 32-bit unsigned integer first (its overflow clamped, wrapped or x86-indefinite; then extended or chopped)",
        |p| { via_int(p, Type::U32) }
    ),
    // The rounding replaced: to nearest even (an ignored mode falls back to
    // it), then ties away (it changes only ties, so it goes before the directed ones).
    row!("rounding-rn", "{rounding} ignored: answers equal round to nearest even (`.rn`/`.rni`)", |p| {
        mode(p, Mode::NearestEven)
    }),
    // A library's `(half)(float)x`: it knows no rounding modes, so every
    // step rounds to nearest even, whatever the instruction writes.
    row!("via-f32-rn", "computed through f32 first, both steps to nearest even (the rounding modifier ignored)", |p| {
        let float = p.c.rounding.is_some_and(|r| !r.is_integer());
        float.then(|| via_float(p, &Cvt { rounding: Some(Rounding::Rn), ..*p.c }, Type::F32)).flatten()
    }),
    row!("rounding-rna", "{rounding} replaced: ties round away from zero (`.rna`)", |p| mode(p, Mode::NearestAway)),
    row!("rounding-rz", "{rounding} replaced: answers equal round toward zero (`.rz`/`.rzi`)", |p| {
        mode(p, Mode::TowardZero)
    }),
    row!("rounding-rm", "{rounding} replaced: answers equal round down (`.rm`/`.rmi`)", |p| mode(p, Mode::Down)),
    row!("rounding-rp", "{rounding} replaced: answers equal round up (`.rp`/`.rpi`)", |p| mode(p, Mode::Up)),
    row!("round-to-odd", "{rounding} replaced: round to odd (truncate, set the last bit when inexact)", round_to_odd),
    row!("rounding-away", "{rounding} replaced: rounds away from zero (the magnitude up) whenever inexact", round_away),
    row!("integer-rounding-ignored", "{rounding} ignored: the value is copied, not rounded to an integer", |p| {
        (p.family() == Family::SameFloat && p.c.rounding.is_some_and(Rounding::is_integer))
            .then(|| p.eval(&Cvt { rounding: None, ..*p.c }))
            .flatten()
    }),
    row!("integer-rounding-applied", "rounded to an integral value though no integer rounding is written", |p| {
        if !p.c.dtype.is_float() || p.c.rounding.is_some_and(Rounding::is_integer) || !p.c.atype.is_float() {
            return None;
        }
        let each = Rounding::INT4.iter().map(|&r| {
            let c = Cvt { rounding: Some(r), dtype: p.c.atype, sat: false, ..*p.c };
            let bits = p.eval_ops(&c, p.ops, p.c.atype.bits())?.single()?;
            p.eval_ops(p.c, &[Operand { bits, width: p.ops[0].width }], p.dst_width)
        });
        union_all(each.collect::<Option<Vec<_>>>()?)
    }),
    // The mechanisms of hand-written converters (mechanism.rs), lane by lane:
    // after the plain readings, which a tie prefers (the evidence separates them).
    row!("carry-lost", "a rounding carry out of the fraction is lost: the exponent is not incremented", |p| {
        mech(p, Mechanism::CarryLost)
    }),
    row!("carry-ored", "the rounding carry is OR-ed into the exponent field (lost where the field is odd)", |p| mech(
        p,
        Mechanism::CarryOred
    )),
    row!("overflow-keeps-fraction", "overflow sets the exponent field to all ones and keeps the fraction", |p| {
        mech(p, Mechanism::OverflowKeepsFraction)
    }),
    row!("overflow-all-ones", "overflow sets every exponent and fraction bit", |p| {
        mech(p, Mechanism::OverflowAllOnes)
    }),
    row!("overflow-exponent-wraps", "overflow wraps the exponent field (no range check)", |p| {
        mech(p, Mechanism::OverflowExponentWraps)
    }),
    row!("overflow-into-sign", "overflow carries the exponent field into the sign bit (no range check)", |p| {
        mech(p, Mechanism::OverflowIntoSign)
    }),
    row!(
        "subnormal-round-then-shift",
        "subnormal results are rounded at the normal position, then shifted right (truncated)",
        |p| mech(p, Mechanism::SubnormalRoundThenShift)
    ),
    row!("subnormal-truncated", "subnormal results are shifted right without rounding (truncated)", |p| {
        mech(p, Mechanism::SubnormalTruncated)
    }),
    row!(
        "sticky-ignored",
        "to nearest even, but ties are judged by the rounding bit alone (sticky bits ignored)",
        |p| { mech(p, Mechanism::StickyIgnored) }
    ),
    row!("inexact-by-round-bit", "directed rounding judges inexactness by the rounding bit alone", |p| {
        mech(p, Mechanism::InexactByRoundBit)
    }),
    row!("increment-too-low", "the rounding increment is added one bit too low (rounds up only from 3/4 ulp)", |p| {
        mech(p, Mechanism::IncrementTooLow)
    }),
    row!("bias-high", "the result's exponent is one too high (a bias off by one; an integer result doubled)", |p| {
        mech(p, Mechanism::BiasHigh)
    }),
    row!("bias-low", "the result's exponent is one too low (a bias off by one; an integer result halved)", |p| {
        mech(p, Mechanism::BiasLow)
    }),
    row!(
        "subnormal-source-as-normal",
        "subnormal sources are decoded as normal (an implicit leading 1, exponent field 1)",
        subnormal_source_as_normal
    ),
    row!(
        "subnormal-source-field-zero",
        "subnormal sources are decoded as normal with their exponent field 0 (an implicit leading 1, exponent −bias)",
        |p| mech(p, Mechanism::SubnormalSourceFieldZero)
    ),
    row!("normalised-kept-subnormal", "a subnormal source is normalised but written with exponent field 0", |p| mech(
        p,
        Mechanism::NormalisedKeptSubnormal
    )),
    row!(
        "subnormal-result-as-normal",
        "subnormal results are written with exponent field 1 (their implicit leading 1 kept)",
        |p| mech(p, Mechanism::SubnormalResultAsNormal)
    ),
    row!(
        "specials-as-finite",
        "NaN and Inf sources go through the finite path (their exponent read as a number; into an integer, the huge value clamps)",
        specials_as_finite
    ),
    row!(
        "ieee-specials",
        "e4m3, fp6 or fp4 handled as an IEEE format: the top binade read as Inf and NaN, and past it the largest value clamps",
        ieee_specials
    ),
    row!(
        "value-as-integer",
        "the value is converted to an integer of the destination's width, not to its format",
        |p| { mech(p, Mechanism::ValueAsInteger) }
    ),
    // Only what the ISA leaves open differs.
    row!("isa-open-bits", "only bits the ISA leaves open differ (passes under --profile isa)", |p| {
        (p.profile != Profile::Isa).then(|| p.under(Profile::Isa)).flatten()
    }),
    // The source read another way.
    row!("source-other-sign", "the integer source is read with the other signedness", |p| {
        let t = other_sign(p.c.atype)?;
        p.eval(&Cvt { atype: t, ..*p.c })
    }),
    row!(
        "negation-ones-complement",
        "a negative integer source is negated without the +1 (one's complement): read one nearer zero",
        negation_ones_complement
    ),
    row!("source-as-float", "the integer source's bits are read as a float of the same width", |p| {
        reread(p, |t| t.is_int(), |t| t.is_float())
    }),
    row!("source-as-int", "the float source's bits are read as an integer of the same width", |p| {
        reread(p, |t| t.is_float(), |t| t.is_int())
    }),
    row!(
        "source-as-other-float",
        "the float source is read as the other float type of its width (f16 ↔ bf16)",
        |p| { reread(p, |t| t.is_float(), |t| t.is_float()) }
    ),
    row!("source-as-f32", "the 16-bit float source's bits are read as an f32 (an f32 path for a 16-bit source)", |p| {
        let a = p.c.atype;
        if !(p.scalar() && a.is_float() && a.bits() == 16) {
            return None;
        }
        let ops = [Operand { bits: p.ops[0].bits & width_mask(16), width: 32 }];
        p.eval_ops(&Cvt { atype: Type::F32, ..*p.c }, &ops, p.dst_width)
    }),
    // Unrelated to the value.
    row!(generic "source-zero", "the source is read as 0: answers are those of converting 0", |p| {
        let ops: Vec<Operand> = p.ops.iter().map(|o| Operand { bits: 0, width: o.width }).collect();
        (p.ops.iter().any(|o| o.bits != 0)).then(|| p.eval_ops(p.c, &ops, p.dst_width)).flatten()
    }),
    row!(generic "identity", "the source bits are copied unchanged", |p| {
        p.scalar().then(|| AcceptSet::exact(p.dst_width, p.ops[0].bits & width_mask(p.dst_width)))
    }),
    row!(generic "zero", "every answer is +0 (all bits zero)", |p| Some(AcceptSet::exact(p.dst_width, 0))),
    row!(generic "zero-sign-lost", "a −0 result becomes +0", zero_sign_lost),
    row!(generic "low-bits-right", "the low bits are right; the upper register bits are wrong", |p| {
        let e = p.expected_bits()?;
        wide_dst(p).then(|| AcceptSet {
            width: p.dst_width,
            alts: vec![Bits::Bits { value: e, mask: width_mask(p.c.dtype.bits()) }].into(),
        })
    }),
];

/// The rounding a `rounding-*` row answers with, as a float mode (`.rni`
/// read as `.rn`: one switch serves both in most converters).
pub fn answers_with(h: usize) -> Option<Rounding> {
    Some(match CATALOGUE.get(h)?.name {
        "rounding-rn" => Rounding::Rn,
        "rounding-rna" => Rounding::Rna,
        "rounding-rz" => Rounding::Rz,
        "rounding-rm" => Rounding::Rm,
        "rounding-rp" => Rounding::Rp,
        _ => return None,
    })
}

/// The float mode of an integer rounding (`.rni` → `.rn`); others as they are.
pub fn as_float(r: Rounding) -> Rounding {
    Rounding::INT4.iter().position(|&x| x == r).map_or(r, |i| Rounding::FLOAT4[i])
}

/// The integer mode of a float rounding (`.rn` → `.rni`), where there is one.
pub fn as_integer(r: Rounding) -> Option<Rounding> {
    Rounding::FLOAT4.iter().position(|&x| x == r).map(|i| Rounding::INT4[i])
}

/// A decision of a converter that goes wrong in different ways in
/// different variants of one implementation (one switch over the rounding
/// modes, one range check): the hypotheses chosen for its units are one
/// class, named by the cause where more than one of them is chosen.
pub struct Cause {
    pub name: &'static str,
    pub meaning: &'static str,
    pub members: &'static [&'static str],
}

/// Every cause (a hypothesis is in at most one).
pub static CAUSES: &[Cause] = &[
    Cause {
        name: "rounding-direction",
        meaning: "the rounding direction is another mode's (overflow goes to ±Inf or ±MAX_NORM by the direction)",
        members: &[
            "rounding-rn",
            "rounding-rna",
            "rounding-rz",
            "rounding-rm",
            "rounding-rp",
            "round-to-odd",
            "overflow-to-max",
            "overflow-to-inf",
        ],
    },
    Cause {
        name: "rounding-increment",
        meaning: "the decision to round up reads the wrong bits",
        members: &["sticky-ignored", "increment-too-low", "inexact-by-round-bit"],
    },
    Cause {
        name: "rounding-carry",
        meaning: "the rounding carry into the exponent is mishandled",
        members: &["carry-lost", "carry-ored"],
    },
    Cause {
        name: "overflow-unchecked",
        meaning: "overflow is not range-checked: the exponent field is written as computed",
        members: &["overflow-keeps-fraction", "overflow-all-ones", "overflow-exponent-wraps", "overflow-into-sign"],
    },
    Cause {
        name: "nan-to-float",
        meaning: "a NaN source into a float gives another value than the rule's",
        members: &["nan-payload-kept", "nan-canonical", "nan-sign-kept", "nan-to-inf", "nan-to-zero"],
    },
    Cause {
        name: "nan-to-int",
        meaning: "NaN → integer gives another value than the rule's",
        members: &["nan-int-zero", "nan-int-sign-bit", "nan-int-all-ones", "x86-indefinite"],
    },
];

/// The cause of catalogue row `h`, if it has one.
pub fn cause_of(h: usize) -> Option<&'static Cause> {
    let name = CATALOGUE.get(h)?.name;
    CAUSES.iter().find(|c| c.members.contains(&name))
}

/// The class key of row `h`: its cause's first member's row, else `h`.
pub fn cause_key(h: usize) -> usize {
    cause_of(h).and_then(|c| CATALOGUE.iter().position(|r| r.name == c.members[0])).unwrap_or(h)
}

/// The name of the group-level explanation of a class that no catalogue
/// hypothesis explains but whose every answer is the same bits.
pub const CONSTANT: &str = "constant";

/// The form without a modifier: a legal spelling where there is one, else
/// the policy layer's answer for the spelling the ISA does not allow.
fn drop(p: &Probe, has: fn(&Cvt) -> bool, strip: fn(&mut Cvt)) -> Option<AcceptSet> {
    if !has(p.c) {
        return None;
    }
    let mut c = *p.c;
    strip(&mut c);
    p.eval(&c).or_else(|| p.eval_any(&c).map(|set| overflow_nan_either_sign(p, set)))
}

fn no_satfinite(p: &Probe) -> Option<AcceptSet> {
    drop(p, |c| c.satfinite, |c| c.satfinite = false)
}

/// `.satfinite` applied after an early return for ±Inf (a special-value
/// branch that comes before the clamp): the Inf source lanes as without
/// `.satfinite`, the others as written.
fn satfinite_skips_inf(p: &Probe) -> Option<AcceptSet> {
    let without = no_satfinite(p)?.single()?;
    let (e, lanes) = (p.expected_bits()?, Lanes::of(p.c));
    let mut out = e;
    for i in 0..lanes.n {
        if lanes.source_is_inf(p.ops, i)? {
            out = lanes.with_lane(out, i, lanes.lane(without, i));
        }
    }
    (out != e).then(|| AcceptSet::exact(p.dst_width, out))
}

/// A spelling the ISA does not allow (e4m3 without `.satfinite`) has no PTX
/// rule for the sign of the NaN its overflow gives (`7f` or `ff`, both NaN
/// codes); a converter without the clamp takes the value's sign. So a
/// finite source lane's NaN answer is accepted with either sign.
fn overflow_nan_either_sign(p: &Probe, set: AcceptSet) -> AcceptSet {
    let Some(l) = p.c.dtype.format().float_layout() else {
        return set;
    };
    let lanes = Lanes::of(p.c);
    let sign = l.sign_bit() << l.shift;
    // Lane i (0 the lowest) has its sign open where its source is finite
    // and its answer a NaN code.
    let open = |i: u32, code: u64| lanes.source_is_nan(p.ops, i) == Some(false) && l.is_nan_code(code >> l.shift);
    let alts = set
        .alts
        .iter()
        .map(|a| match a {
            Bits::Bits { value, mask } => {
                let mut m = *mask;
                for i in (0..lanes.n).filter(|&i| open(i, lanes.lane(*value, i))) {
                    m = lanes.with_lane(m, i, lanes.lane(m, i) & !sign);
                }
                Bits::Bits { value: *value, mask: m }
            }
            // Lanes are listed high lane first.
            Bits::Lanes { bits, lanes: ls } => {
                let n = ls.len() as u32;
                let ls = ls
                    .iter()
                    .enumerate()
                    .map(|(k, x)| match x {
                        LaneSet::Bits { value, mask } if open(n - 1 - k as u32, *value) => {
                            LaneSet::Bits { value: *value, mask: mask & !sign }
                        }
                        x => x.clone(),
                    })
                    .collect();
                Bits::Lanes { bits: *bits, lanes: ls }
            }
            a => a.clone(),
        })
        .collect();
    AcceptSet { width: set.width, alts }
}

/// The scaled forms with the scale operand (the last) replaced by 2^0 in
/// every lane: `7f` for `.scaled::n1::ue8m0`, `7f7f` for `.scaled::n2::ue8m0`.
fn no_scale(p: &Probe) -> Option<AcceptSet> {
    if !(p.c.scaled || p.c.scaled_n1) {
        return None;
    }
    let mut ops = p.ops.to_vec();
    ops.last_mut()?.bits = if p.c.scaled_n1 { 0x7f } else { 0x7f7f };
    p.eval_ops(p.c, &ops, p.dst_width)
}

/// A NaN source into a float format with a fraction to hold a NaN payload.
fn nan_into_float(p: &Probe) -> bool {
    p.source_is_nan() && p.c.dtype.format().float_layout().is_some_and(|l| l.has_nan() && l.man_bits > 0)
}

fn nan_int(p: &Probe, how: NanInt) -> Option<AcceptSet> {
    (p.family() == Family::FloatToInt && p.source_is_nan()).then(|| p.with(&Alt::NanToInt(how))).flatten()
}

fn nan_to_inf(p: &Probe) -> Option<AcceptSet> {
    let l = p.c.dtype.format().float_layout()?;
    let inf = l.inf_code()?;
    (p.scalar() && p.source_is_nan()).then(|| AcceptSet {
        width: p.dst_width,
        alts: [inf, inf | l.sign_bit()]
            .into_iter()
            .map(|v| Bits::Bits { value: v, mask: width_mask(p.dst_width) })
            .collect(),
    })
}

/// Every NaN source lane as a zero of either sign (+0, the NaN's sign, or
/// the other: a format without NaN may take its `-0` code for one).
fn nan_to_zero(p: &Probe) -> Option<AcceptSet> {
    let c = p.c;
    let l = c.dtype.format().float_layout()?;
    let lanes = Lanes::of(c);
    let expected = p.expected_bits()?;
    let (mut value, mut mask) = (expected, width_mask(p.dst_width));
    for i in 0..lanes.n {
        if lanes.source_is_nan(p.ops, i)? {
            value = lanes.with_lane(value, i, 0);
            mask = lanes.with_lane(mask, i, lanes.lane(mask, i) & !(l.sign_bit() << l.shift));
        }
    }
    (value != expected || mask != width_mask(p.dst_width))
        .then(|| AcceptSet { width: p.dst_width, alts: std::iter::once(Bits::Bits { value, mask }).collect() })
}

fn wide_dst(p: &Probe) -> bool {
    p.scalar() && p.dst_width > p.c.dtype.bits()
}

fn mode(p: &Probe, m: Mode) -> Option<AcceptSet> {
    if !p.rounds() || ptx_cvt::decide::mode_of(&ptx_cvt::decide::Ptx, p.c) == m {
        return None;
    }
    p.with(&Alt::Mode(m))
}

fn round_to_odd(p: &Probe) -> Option<AcceptSet> {
    if !p.c.dtype.is_float() {
        return None;
    }
    let (z, up, down) = directed(p)?;
    Some(AcceptSet::exact(p.dst_width, if up == down { z } else { z | 1 }))
}

/// Away from zero: of `.rp` and `.rm`, the one that is not `.rz`.
fn round_away(p: &Probe) -> Option<AcceptSet> {
    let (z, up, down) = directed(p)?;
    Some(AcceptSet::exact(p.dst_width, if up == z { down } else { up }))
}

/// The answers toward zero, up and down, where the instruction rounds a
/// scalar: what the rows built from the directed roundings start from.
fn directed(p: &Probe) -> Option<(u64, u64, u64)> {
    if !p.rounds() || !p.scalar() {
        return None;
    }
    let at = |m: Mode| p.with(&Alt::Mode(m))?.single();
    Some((at(Mode::TowardZero)?, at(Mode::Up)?, at(Mode::Down)?))
}

/// `if (f > INT_MAX)` with a float `f`: INT_MAX (2^31 − 1) becomes 2^31 in
/// f32, so 2^31 passes the check and the conversion overflows. Only where
/// the source format cannot hold the bound, and only for the bound itself.
fn clamp_bound_rounds_up(p: &Probe) -> Option<AcceptSet> {
    let d = p.c.dtype;
    if p.family() != Family::FloatToInt || !p.scalar() {
        return None;
    }
    let k = d.bits() - u32::from(d.format().is_signed_int());
    if p.c.atype.format().float_layout()?.precision() >= k {
        return None;
    }
    let ptx_cvt::exact::Value::Num { neg: false, mag } = p.source()? else { return None };
    let sig = mag.sig_u64()?;
    let bound = sig.is_power_of_two() && mag.exp + i64::from(sig.trailing_zeros()) == i64::from(k);
    bound.then(|| p.with(&Alt::Wraps)).flatten()
}

fn via_float(p: &Probe, c: &Cvt, mid: Type) -> Option<AcceptSet> {
    let (a, d) = (c.atype, c.dtype);
    // An f64 result through an f32 temporary (a float-only helper on a
    // double) loses what f32 cannot hold, whatever the destination.
    let temporary = d == Type::F64 && mid == Type::F32 && a.bits() == 64;
    let narrower = d.is_float() && d.bits() < mid.bits() || d == Type::F32 && mid == Type::F64 || temporary;
    if !p.scalar() || a == mid || d == mid || !narrower || (a.is_float() && a.bits() <= mid.bits()) {
        return None;
    }
    let first = Cvt { dtype: mid, sat: false, relu: false, satfinite: false, ..*c };
    let bits = p.eval_ops(&first, p.ops, mid.bits())?.single()?;
    let ops = [Operand { bits, width: mid.bits() }];
    p.eval_ops(&Cvt { atype: mid, ..*c }, &ops, p.dst_width)
}

/// An f32 pair into a narrow packed format through the 16-bit pair `mid`
/// first, as converters without a direct f32 → fp8 path do. Both steps
/// must be legal PTX: fp8, fp6 and fp4 from f16x2 or bf16x2, whose every
/// value those hold, so only the double rounding differs.
fn via_pair(p: &Probe, mid: Type) -> Option<AcceptSet> {
    let c = p.c;
    let narrow = Lanes::of(c).dst_bits < 16;
    if c.atype != Type::F32 || !c.dtype.is_packed() || !narrow || c.lane_scale() || p.ops.len() != 2 {
        return None;
    }
    // Both steps as written (no rounding swapped in to make one legal).
    let first = Cvt { dtype: mid, sat: false, relu: false, satfinite: false, ..*c };
    let second = Cvt { atype: mid, ..*c };
    if legalize(&first, 32, 32) != Some(first) || legalize(&second, 32, p.dst_width) != Some(second) {
        return None;
    }
    let bits = p.eval_ops(&first, p.ops, 32)?.single()?;
    p.eval_ops(&second, &[Operand { bits, width: 32 }], p.dst_width)
}

/// Through a 32-bit integer temporary (`int t = f;`), whose own overflow is
/// whatever the host's conversion gives: clamped, wrapped, or the x86
/// indefinite; then extended or chopped into the destination.
fn via_int(p: &Probe, mid: Type) -> Option<AcceptSet> {
    let d = p.c.dtype;
    if p.family() != Family::FloatToInt || !p.scalar() || d == mid || d.format().is_signed_int() != (mid == Type::S32) {
        return None;
    }
    let overflows: [&dyn Decisions; 3] = [&Ptx, &Alt::Wraps, &Alt::NanToInt(NanInt::Indefinite)];
    let first = Cvt { dtype: mid, ..*p.c };
    // In range the three agree: each distinct temporary is extended once.
    let temps: BTreeSet<u64> =
        overflows.into_iter().filter_map(|o| p.eval_under(&first, p.ops, 32, o)?.single()).collect();
    union_all(
        temps.into_iter().filter_map(|bits| p.eval_ops(&Cvt::new(d, mid), &[Operand { bits, width: 32 }], p.dst_width)),
    )
}

/// One set holding every answer of `sets` (`None` when there is none).
fn union_all(sets: impl IntoIterator<Item = AcceptSet>) -> Option<AcceptSet> {
    let mut sets = sets.into_iter().peekable();
    let mut all = AcceptSet { width: sets.peek()?.width, alts: Default::default() };
    sets.for_each(|s| all.union(s));
    Some(all)
}

fn other_sign(t: Type) -> Option<Type> {
    use Type::*;
    Some(match t {
        S8 => U8,
        U8 => S8,
        S16 => U16,
        U16 => S16,
        S32 => U32,
        U32 => S32,
        S64 => U64,
        U64 => S64,
        _ => return None,
    })
}

/// The source's bits read as the first other type of its width that `to`
/// accepts and that gives the same answer shape (every such type tried).
fn reread(p: &Probe, from: fn(Type) -> bool, to: fn(Type) -> bool) -> Option<AcceptSet> {
    let a = p.c.atype;
    if !p.scalar() || !from(a) {
        return None;
    }
    let types = types_of_width(a.bits()).filter(|t| *t != a && to(*t) && other_sign(a) != Some(*t));
    union_all(types.filter_map(|t| p.eval(&Cvt { atype: t, ..*p.c })))
}

/// The sources' lanes swapped, or the two lanes of the expected result.
fn lanes_swapped(p: &Probe) -> Option<AcceptSet> {
    let d = p.c.dtype;
    if !(d.is_packed() || p.c.atype.is_packed()) {
        return None;
    }
    let mut set = p.with(&Alt::LanesSwapped)?;
    if let (Some(e), 2) = (p.expected_bits(), d.lanes()) {
        let lb = d.lane_bits();
        let m = width_mask(lb);
        let swapped = (e & !width_mask(2 * lb)) | (e >> lb & m) | (e & m) << lb;
        set.union(AcceptSet::exact(p.dst_width, swapped));
    }
    Some(set)
}

/// A mechanism of a faulty converter in every lane it applies to (float
/// destinations; not the scaled forms, whose value is divided first).
fn mech(p: &Probe, m: Mechanism) -> Option<AcceptSet> {
    let c = p.c;
    if !(c.dtype.is_float() || c.dtype.is_int()) || c.lane_scale() {
        return None;
    }
    let expected = p.expected_bits()?;
    let lanes = Lanes::of(c);
    let mode = ptx_cvt::decide::mode_of(&ptx_cvt::decide::Ptx, c);
    let mut out = expected;
    for i in 0..lanes.n {
        let x = LaneCase {
            src: lanes.src,
            dst: lanes.dst,
            mode,
            relu: c.relu,
            src_bits: lanes.source(p.ops, i)?,
            expected: lanes.lane(expected, i),
        };
        if let Some(code) = fault(m, &x) {
            out = lanes.with_lane(out, i, code);
        }
    }
    (out != expected).then(|| AcceptSet::exact(p.dst_width, out))
}

/// A negative integer source `x` read as `x + 1` (`~x` taken for `-x`):
/// where a converter works on the magnitude, which it gets one short.
fn negation_ones_complement(p: &Probe) -> Option<AcceptSet> {
    let a = p.c.atype;
    if !a.format().is_signed_int() || !p.c.dtype.is_float() || !p.scalar() {
        return None;
    }
    let bits = a.bits();
    let x = p.ops.first()?.bits & width_mask(bits);
    if x >> (bits - 1) == 0 {
        return None;
    }
    let mut ops = p.ops.to_vec();
    ops[0].bits = x.wrapping_add(1) & width_mask(bits);
    p.eval_ops(p.c, &ops, p.dst_width)
}

/// Every subnormal float source lane read with exponent field 1 (an
/// implicit leading 1), through the oracle.
fn subnormal_source_as_normal(p: &Probe) -> Option<AcceptSet> {
    let lanes = Lanes::of(p.c);
    let l = lanes.src.float_layout().filter(|l| l.subnormals && !p.c.lane_scale())?;
    let mut ops = p.ops.to_vec();
    for i in 0..lanes.n {
        let bits = lanes.source(&ops, i)?;
        if subnormal_fraction(lanes.src, bits).is_some() {
            let code = (bits >> l.shift) & width_mask(l.width());
            ops = lanes.with_source(&ops, i, (code + (1 << l.man_bits)) << l.shift);
        }
    }
    (ops != p.ops).then(|| p.eval_ops(p.c, &ops, p.dst_width)).flatten()
}

/// NaN and Inf source lanes read as the finite value their exponent field
/// would mean: exact where it fits the destination, else the oracle's
/// overflow (the source's largest finite value, same sign, in its place).
fn specials_as_finite(p: &Probe) -> Option<AcceptSet> {
    let c = p.c;
    if c.dtype.is_int() && c.atype.is_float() {
        // Natural registers only: a wider one's upper bits are another rule's.
        if !p.scalar() || p.dst_width != c.dtype.bits() {
            return None;
        }
        let bits = special_as_finite_int(c.atype.format(), p.ops.first()?.bits, c.dtype.format())?;
        return Some(AcceptSet::exact(p.dst_width, bits));
    }
    if !(c.dtype.is_float() && c.atype.is_float()) || c.lane_scale() {
        return None;
    }
    let lanes = Lanes::of(c);
    let s = lanes.src.float_layout()?;
    let mode = ptx_cvt::decide::mode_of(&ptx_cvt::decide::Ptx, c);
    let mut ops = p.ops.to_vec();
    let mut exact = Vec::new();
    for i in 0..lanes.n {
        let bits = lanes.source(p.ops, i)?;
        match special_as_finite(lanes.src, bits, lanes.dst, mode) {
            None => {}
            Some(Ok(code)) => exact.push((i, code)),
            Some(Err(())) => {
                let neg = (bits >> s.shift) & s.sign_bit() != 0;
                // The largest finite source stands for the value only where it overflows too.
                let max = (s.max_finite_code() | if neg { s.sign_bit() } else { 0 }) << s.shift;
                if overflows(lanes.src, max, lanes.dst, mode) != Some(true) {
                    return None;
                }
                ops = lanes.with_source(&ops, i, max);
            }
        }
    }
    if exact.is_empty() && ops == p.ops {
        return None;
    }
    let mut out = if ops == p.ops { p.expected_bits()? } else { p.eval_ops(c, &ops, p.dst_width)?.single()? };
    for (i, code) in exact {
        if c.relu && code & lanes.dst.float_layout()?.sign_bit() != 0 {
            continue;
        }
        out = lanes.with_lane(out, i, code);
    }
    Some(AcceptSet::exact(p.dst_width, out))
}

/// Every −0 lane of the answer written as +0 (the sign taken from `x < 0`,
/// false for −0).
fn zero_sign_lost(p: &Probe) -> Option<AcceptSet> {
    let e = p.expected_bits()?;
    let lanes = Lanes::of(p.c);
    let l = lanes.dst.float_layout()?;
    let mut out = e;
    for i in 0..lanes.n {
        if lanes.lane(e, i) == l.sign_bit() << l.shift {
            out = lanes.with_lane(out, i, 0);
        }
    }
    (out != e).then(|| AcceptSet::exact(p.dst_width, out))
}

/// A converter written for IEEE formats, on a format whose top binade is
/// finite: a source lane there is read as Inf (fraction 0) or NaN, and a
/// result there (or clamped) becomes the IEEE reading's largest value.
fn ieee_specials(p: &Probe) -> Option<AcceptSet> {
    let c = p.c;
    let lanes = Lanes::of(c);
    if !top_binade_finite(lanes.src) {
        // Only a result in such a format can be written the IEEE way.
        return top_binade_finite(lanes.dst).then(|| mech(p, Mechanism::IeeeSpecials)).flatten();
    }
    if !c.dtype.is_float() || c.lane_scale() {
        return None;
    }
    let (s, d) = (lanes.src.float_layout()?, lanes.dst.float_layout()?);
    let mut ops = p.ops.to_vec();
    // Lanes set afterwards: (lane, code, bits of the lane that are free).
    let mut set = Vec::new();
    for i in 0..lanes.n {
        let Some(r) = ieee_special_source(lanes.src, lanes.source(p.ops, i)?) else { continue };
        let sign = |l: &ptx_cvt::format::FloatLayout| if r.neg { l.sign_bit() } else { 0 };
        if r.inf {
            let code = if c.relu && r.neg { 0 } else { d.inf_code()? | sign(d) };
            set.push((i, code << d.shift, 0));
        } else if s.has_nan() {
            // The format's own NaN with the lane's sign: the policy layer decides its answer.
            let nan = ptx_cvt::format::low_mask(s.exp_bits + s.man_bits);
            ops = lanes.with_source(&ops, i, (nan | sign(s)) << s.shift);
        } else {
            // A format with no NaN of its own: the converter's NaN, any quiet one.
            let quiet = d.inf_code()? | d.quiet_bit();
            set.push((i, quiet << d.shift, (d.sign_bit() | d.man_mask() & !d.quiet_bit()) << d.shift));
        }
    }
    let expected = p.expected_bits()?;
    let mut out = if ops == p.ops { expected } else { p.eval_ops(c, &ops, p.dst_width)?.single()? };
    let mut free = 0;
    for (i, code, lane_free) in set {
        out = lanes.with_lane(out, i, code);
        free = lanes.with_lane(free, i, lane_free);
    }
    let mask = width_mask(p.dst_width) & !free;
    (out & mask != expected & mask)
        .then(|| AcceptSet { width: p.dst_width, alts: vec![Bits::Bits { value: out & mask, mask }].into() })
}

/// The instruction a *rewrite* hypothesis reads `c` as (a modifier dropped,
/// the rounding replaced), so that another cause can be looked for on top
/// of it (two defects in one answer); `None` for the other hypotheses.
pub fn rewrite(name: &str, c: &Cvt) -> Option<Cvt> {
    let int = c.rounding.is_some_and(Rounding::is_integer);
    let round = |float: Rounding| {
        let r = if int { as_integer(float)? } else { float };
        (c.rounding != Some(r) && c.rounding != Some(Rounding::Rs)).then_some(Cvt { rounding: Some(r), ..*c })
    };
    match name {
        "rounding-rn" => round(Rounding::Rn),
        "rounding-rna" => round(Rounding::Rna),
        "rounding-rz" => round(Rounding::Rz),
        "rounding-rm" => round(Rounding::Rm),
        "rounding-rp" => round(Rounding::Rp),
        "no-sat" => c.sat.then_some(Cvt { sat: false, ..*c }),
        "no-ftz" => c.ftz.then_some(Cvt { ftz: false, ..*c }),
        "no-relu" => c.relu.then_some(Cvt { relu: false, ..*c }),
        "no-satfinite" => c.satfinite.then_some(Cvt { satfinite: false, ..*c }),
        "modifiers-ignored" => Some(Cvt { sat: false, ftz: false, relu: false, satfinite: false, ..*c }),
        _ => None,
    }
}
