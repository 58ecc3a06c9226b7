//! Every PTX rule that decides a result, as one named decision.
//!
//! The arithmetic (decoding, rounding once, encoding) is the same for every
//! reading of the ISA; what a NaN becomes, where an overflow goes, what a
//! modifier does to −0 are choices. Each choice is one method of
//! [`Decisions`], whose default is the oracle's answer, stated in
//! `docs/semantics.md` (the §8.1 rule row is named in each doc comment, with
//! its evidence tag). Both engines ask these methods and nothing else for
//! these choices: the exact engine ([`crate::eval`]) while it evaluates, the
//! fast engine ([`crate::fast`]) mostly once per instruction, when it plans.
//!
//! [`Ptx`] is the default set. Another set overrides some methods (and may
//! call the free functions of [`ptx`] for the rest): the mutation test
//! defines its plausible wrong implementations this way
//! (`tests/mutants.rs`), and [`crate::eval::evaluate_with`] and
//! [`crate::fast::Plan::with_decisions`] evaluate under such a set.
//!
//! Where the answer depends on the evidence profile (the open questions,
//! the NaN bits) the decision asks [`Profile`], which keeps those answers.
//!
//! ```
//! use ptx_cvt::decide::{ptx, Decisions, Special};
//! use ptx_cvt::eval::evaluate_with;
//! use ptx_cvt::format::Format;
//! use ptx_cvt::round::Mode;
//! use ptx_cvt::{evaluate, parse_case, Profile, Rule};
//!
//! /// A reading in which overflow always saturates to ±MAX_NORM.
//! struct Saturating;
//! impl Decisions for Saturating {
//!     fn overflow(&self, dst: Format, _: bool, mode: Mode, neg: bool, away: bool) -> (Special, Rule) {
//!         ptx::overflow(self, dst, true, mode, neg, away)
//!     }
//! }
//!
//! // 65536 is above f16's MAX_NORM (65504).
//! let case = parse_case("cvt.rn.f16.f32 47800000").unwrap().unwrap();
//! let (w, p) = (case.dst_width(), Profile::Sm90);
//! assert_eq!(evaluate(&case.instr, &case.operands, w, p).unwrap().accept.to_string(), "7c00");
//! let other = evaluate_with(&case.instr, &case.operands, w, p, &Saturating).unwrap();
//! assert_eq!(other.accept.to_string(), "7bff");
//! assert_eq!(other.deciding_rule(), Rule::SatFinite);
//! ```

use crate::format::Format;
use crate::instr::{Cvt, Rounding, Type};
use crate::policy::{self, Answers, NanOut, Profile, Question, Rule};
use crate::round::Mode;

/// A result that does not depend on the source's magnitude, in the
/// destination format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// +0.
    Zero,
    /// +1.0.
    One,
    /// ±MAX_NORM, the largest finite magnitude.
    Max { neg: bool },
    /// ±Inf.
    Inf { neg: bool },
    /// The canonical NaN (sign clear, every fraction bit set).
    Nan,
}

/// How an int→int conversion produces its bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntToInt {
    /// `.sat`: clamp the value to the destination range.
    Saturate,
    /// A wider source: keep the low bits.
    Chop,
    /// A narrower signed source.
    SignExtend,
    /// A narrower unsigned source.
    ZeroExtend,
    /// The same width: the bits are reinterpreted.
    SameWidth,
}

/// What `.ftz` does to a subnormal source of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFlush {
    /// Kept: `.ftz` does not apply to this source.
    Keep,
    /// Flushed to ±0 (`ftz-input`).
    Flush,
    /// `cvt.ftz.f16.f32`: the profile's answer to [`Question::FtzF16Input`]
    /// decides (`ftz-f16-f32-erratum`); `flush` is that answer.
    Erratum { flush: bool },
}

/// One step after a float result is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// `.sat`: clamp to [0, 1] (§5.7).
    Sat,
    /// `.relu`: a negative result becomes +0 (§5.8).
    Relu,
    /// A magnitude above MAX_NORM: [`Decisions::overflow`] (§5.4, §5.8); ends the steps.
    Overflow,
    /// `.ftz` on the result: [`Decisions::flushes_result`], [`Decisions::ftz_cutoff`] (§5.6, §5.17).
    FlushResult,
    /// `.pzo`: −0 becomes +0 (§5.15).
    PositiveZero,
    /// A zero in a format without one: [`Decisions::zero_code`] (§5.12); ends the steps.
    ZeroCode,
}

/// The order of the steps after rounding, defined once: the exact engine
/// (`eval/float.rs`) and the fast engine's lane path (`fast/generic.rs`) run
/// this list; the batch kernels (`fast/lanes.rs`) are checked against the
/// lane path on every input of their forms (`tests/kernels.rs`, `tests/fast.rs`).
pub const FINISH: [Finish; 6] =
    [Finish::Sat, Finish::Relu, Finish::Overflow, Finish::FlushResult, Finish::PositiveZero, Finish::ZeroCode];

/// Where `.ftz` cuts a subnormal f32 result off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FtzCutoff {
    /// A tiny result: judged on the rounded result or on the exact value, by
    /// the profile's answer to [`Question::FtzAfterRounding`] (`ftz-tininess`).
    Answer,
    /// Flushed exactly when the exact magnitude is below 2^emin − 2^(emin −
    /// `gap`), or 2^emin without a `gap` (`ftz-f32-f64-cutoff`, §5.17).
    Below { gap: Option<u32> },
}

impl SourceFlush {
    /// Whether a subnormal source becomes ±0.
    pub fn flushes(self) -> bool {
        matches!(self, SourceFlush::Flush | SourceFlush::Erratum { flush: true })
    }
}

macro_rules! decisions {
    ($($v:ident $method:literal;)*) => {
        /// The name of each method of [`Decisions`], for tests that check
        /// both engines ask every one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Decision { $($v,)* }
        impl Decision {
            pub const ALL: &'static [Decision] = &[$(Decision::$v,)*];
            /// The method of [`Decisions`] that makes this decision.
            pub fn method(self) -> &'static str { match self { $(Decision::$v => $method,)* } }
        }
    };
}

decisions! {
    RoundingMode "rounding_mode";
    DefaultRounding "default_rounding";
    StochasticBits "stochastic_bits";
    Answers "answers";
    FlushesSource "flushes_source";
    FlushesResult "flushes_result";
    FtzCutoff "ftz_cutoff";
    NoModifier "no_modifier";
    NanSource "nan_source";
    CanonicalNanSign "canonical_nan_keeps_sign";
    InfSource "inf_source";
    Overflow "overflow";
    SatNegZero "sat_neg_zero_to_positive";
    DropsSign "drops_sign";
    ZeroCode "zero_code";
    NanToInt "nan_to_int";
    InfToInt "inf_to_int";
    IntOutOfRange "int_out_of_range";
    IntToInt "int_to_int";
    SourceBits "source_bits";
    DestSignExtends "dest_sign_extends";
    SourceLane "source_lane";
    PackCShift "pack_c_shift";
    ScaleByteShift "scale_byte_shift";
    UnscaledCode "unscaled_code";
    ScaleDivides "scale_divides";
    ScaleNan "scale_nan";
    NanToFixed "nan_to_fixed";
    ReluZeroesFixed "relu_zeroes_fixed";
    FixedRange "fixed_range";
    PositiveZeroOnly "positive_zero_only";
    SingleScaleCode "single_scale_code";
    SingleScaleFlush "single_scale_flush";
    Tf32LowBits "tf32_low_bits";
}

/// The decisions of a `cvt` semantics. Every method has the oracle's answer
/// as its default (the function of the same name in [`ptx`]).
pub trait Decisions {
    /// The rounding rule a modifier names (`round-to-float`, `round-to-int`
    /// `[PTX]`, §5.3–5.4); `None` for `.rs`, whose rule takes each lane's
    /// random bits ([`Decisions::stochastic_bits`]).
    fn rounding_mode(&self, r: Rounding) -> Option<Mode> {
        ptx::rounding_mode(self, r)
    }
    /// The rounding rule without a modifier (`f16-bf16-default-rn` `[OPEN]`, §5.4).
    fn default_rounding(&self) -> Mode {
        ptx::default_rounding(self)
    }
    /// `.rs`: the random bits of lane `lane` (0 = lowest) and their count
    /// (`round-stochastic` `[OPEN]`, §5.10).
    fn stochastic_bits(&self, dtype: Type, rbits: u64, lane: u32) -> (u64, u32) {
        ptx::stochastic_bits(self, dtype, rbits, lane)
    }
    /// The answers to the open questions the profile takes first
    /// (`ftz-f16-f32-erratum` `[HW]`, `ftz-tininess` `[OPEN]`, `relu-neg-zero` `[OPEN]`).
    fn answers(&self, profile: Profile) -> Answers {
        ptx::answers(self, profile)
    }
    /// Whether `.ftz` flushes a subnormal source of this instruction
    /// (`ftz-input` `[HW]`, §5.6), under the profile's `answers` for the
    /// f16.f32 form (`ftz-f16-f32-erratum` `[HW]`: hardware keeps that source).
    fn flushes_source(&self, c: &Cvt, answers: Answers) -> SourceFlush {
        ptx::flushes_source(self, c, answers)
    }
    /// Whether `.ftz` flushes a subnormal result (`ftz-output` `[HW]`, §5.6).
    fn flushes_result(&self, c: &Cvt) -> bool {
        ptx::flushes_result(self, c)
    }
    /// Where `.ftz` flushes a result of sign `neg` (`ftz-tininess` `[OPEN]`,
    /// §5.6; `ftz-f32-f64-cutoff` `[SASS]`, §5.17).
    fn ftz_cutoff(&self, c: &Cvt, neg: bool, profile: Profile) -> FtzCutoff {
        ptx::ftz_cutoff(self, c, neg, profile)
    }
    /// Whether the instruction has no modifier at all: the premise of
    /// `nan-copy` `[OPEN]` (§5.9).
    fn no_modifier(&self, c: &Cvt) -> bool {
        ptx::no_modifier(self, c)
    }
    /// What a NaN source becomes in a float destination (`sat-nan` `[HW]`,
    /// `satfinite-nan-to-max` `[PTX]`, `ue8m0-nan` `[EMU]`, the sequences'
    /// rules `[SASS]` (§5.17), `relu-nan` `[PTX]`, `satfinite-nan` `[PTX]`,
    /// then the profile's NaN rule, §5.7–5.9), and the rule.
    fn nan_source(&self, c: &Cvt, profile: Profile) -> (NanOut, Rule) {
        ptx::nan_source(self, c, profile)
    }
    /// Whether the canonical NaN keeps the source NaN's sign
    /// (`nan-canonical` `[EMU]`, §5.9: it does not).
    fn canonical_nan_keeps_sign(&self) -> bool {
        ptx::canonical_nan_keeps_sign(self)
    }
    /// What ±Inf becomes in a float destination (`sat-clamp` `[HW]`, `relu`
    /// `[PTX]`, `satfinite` `[PTX]`, `overflow-nan` `[EMU]`, `inf-to-inf` `[IEEE]`), and the rule.
    fn inf_source(&self, c: &Cvt, dst: Format, neg: bool) -> (Special, Rule) {
        ptx::inf_source(self, c, dst, neg)
    }
    /// What a rounded magnitude above MAX_NORM becomes (`overflow-inf`,
    /// `overflow-max` `[IEEE]`, `satfinite` `[PTX]`, `overflow-nan` `[EMU]`; `.rs`
    /// like a directed rounding `[OPEN]`, §5.4, §5.8, §5.10), and the rule.
    /// `away`: whether the rounding went away from zero.
    #[inline(always)]
    fn overflow(&self, dst: Format, satfinite: bool, mode: Mode, neg: bool, away: bool) -> (Special, Rule) {
        ptx::overflow(self, dst, satfinite, mode, neg, away)
    }
    /// Whether `.sat` turns −0 into +0 (`sat-neg-zero` `[HW]`, §5.7).
    fn sat_neg_zero_to_positive(&self) -> bool {
        ptx::sat_neg_zero_to_positive(self)
    }
    /// Whether a negative value is converted by its magnitude: the
    /// destination has no sign (`ue8m0-unsigned` `[EMU]`, §5.12).
    fn drops_sign(&self, dst: Format) -> bool {
        ptx::drops_sign(self, dst)
    }
    /// The code a zero result takes in a format without a zero
    /// (`ue8m0-no-zero` `[OPEN]`, §5.12); `None` where zero is representable.
    fn zero_code(&self, dst: Format) -> Option<u64> {
        ptx::zero_code(self, dst)
    }
    /// The integer a NaN becomes, as type-width bits (`nan-to-int-zero`,
    /// `nan-to-int-sign-bit` `[PTX]`, `nan-to-int-narrow-f64` `[OPEN]`, §5.3), and the rule.
    fn nan_to_int(&self, src: Type, dst: Type) -> (u64, Rule) {
        ptx::nan_to_int(self, src, dst)
    }
    /// The integer ±Inf becomes (`int-clamp` `[HW]`, §5.3).
    fn inf_to_int(&self, dst: Type, neg: bool) -> i128 {
        ptx::inf_to_int(self, dst, neg)
    }
    /// The integer a rounded value outside the destination range becomes
    /// (`int-clamp` `[HW]`, §5.3). `neg`: below the range; `low_bits`: the
    /// value's low 64 bits in two's complement.
    fn int_out_of_range(&self, dst: Type, neg: bool, low_bits: u64) -> i128 {
        ptx::int_out_of_range(self, dst, neg, low_bits)
    }
    /// How an int→int conversion makes its bits (`int-wrap` `[PTX]`,
    /// `int-sat-clamp` `[HW]`, `pack-sat` `[PTX]`, §5.1, §5.13).
    fn int_to_int(&self, sat: bool, src: Type, dst: Type) -> IntToInt {
        ptx::int_to_int(self, sat, src, dst)
    }
    /// How many low bits of a `reg_width`-bit source register are read for
    /// a scalar source type (`source-chop` `[PTX]`, §4).
    fn source_bits(&self, src: Type, reg_width: u32) -> u32 {
        ptx::source_bits(self, src, reg_width)
    }
    /// Whether a destination register wider than the type is sign-extended
    /// (`dest-extend` `[PTX]`, §4).
    fn dest_sign_extends(&self, dst: Type) -> bool {
        ptx::dest_sign_extends(self, dst)
    }
    /// Which source lane feeds destination lane `lane` of `lanes` (0 =
    /// lowest; `pack` `[PTX]`, §5.11).
    fn source_lane(&self, lane: u32, lanes: u32) -> u32 {
        ptx::source_lane(self, lane, lanes)
    }
    /// cvt.pack: the bit of `d` where the bits of `c` start, for two lanes
    /// of `lane_bits`; `None` if `c` is not used (`pack-c-bits` `[PTX]`, §5.13).
    fn pack_c_shift(&self, lane_bits: u32) -> Option<u32> {
        ptx::pack_c_shift(self, lane_bits)
    }
    /// `.scaled::n2::ue8m0`: the bit of the `scale` operand where the ue8m0
    /// byte of lane `lane` (0 = low) starts (`scale-ue8m0` `[EMU]`, §5.14, §7.13).
    fn scale_byte_shift(&self, lane: u32) -> u32 {
        ptx::scale_byte_shift(self, lane)
    }
    /// The ue8m0 code that scales each lane of an s2f6x2 form without
    /// `.scaled::n2::ue8m0` (`scale-ue8m0` `[EMU]`, §5.14, §7.13).
    fn unscaled_code(&self) -> u8 {
        ptx::unscaled_code(self)
    }
    /// Whether a lane is divided by its scale (into a fixed-point `dst`)
    /// rather than multiplied (into bf16) (`scale-ue8m0` `[EMU]`, §5.14).
    fn scale_divides(&self, dst: Format) -> bool {
        ptx::scale_divides(self, dst)
    }
    /// What a lane scaled by the NaN code `ff` becomes (`scale-nan` `[OPEN]`,
    /// §5.14, §7.12), and the rule. In a fixed-point `dst` (no NaN),
    /// [`NanOut::MaxNorm`] is its largest code and [`NanOut::Zero`] is 0.
    fn scale_nan(&self, dst: Format, profile: Profile) -> (NanOut, Rule) {
        ptx::scale_nan(self, dst, profile)
    }
    /// What a NaN source becomes in a fixed-point `dst` (`s2f6-nan` `[OPEN]`,
    /// §5.14, §7.11), as in [`Decisions::scale_nan`], and the rule.
    fn nan_to_fixed(&self, dst: Format) -> (NanOut, Rule) {
        ptx::nan_to_fixed(self, dst)
    }
    /// Whether `c`'s `.relu` turns a negative source (−Inf included) of a
    /// fixed-point lane into 0, or, with `nan`, a NaN source (`relu` `[PTX]`,
    /// `s2f6-nan` `[OPEN]`, §5.14: negatives yes, NaN no).
    fn relu_zeroes_fixed(&self, c: &Cvt, nan: bool) -> bool {
        ptx::relu_zeroes_fixed(self, c, nan)
    }
    /// The range `.satfinite` clamps a fixed-point `dst` to, in units of its
    /// last fraction bit, ±Inf included (`s2f6-satfinite` `[EMU]`, §5.14, §7.13).
    fn fixed_range(&self, dst: Format) -> (i64, i64) {
        ptx::fixed_range(self, dst)
    }
    /// Whether a −0 result of `c` is written as +0 (`pzo` `[PTX]`, §5.15: `.pzo`).
    fn positive_zero_only(&self, c: &Cvt) -> bool {
        ptx::positive_zero_only(self, c)
    }
    /// `.scaled::n1::ue8m0`: the ue8m0 code that divides lane `lane` (0 = low),
    /// given the 8-bit `scale` operand (`scale-n1-ue8m0` `[PTX]`, §5.15: the same for both lanes).
    fn single_scale_code(&self, scale: u8, lane: u32) -> u8 {
        ptx::single_scale_code(self, scale, lane)
    }
    /// `.scaled::n1::ue8m0`: whether a subnormal input is flushed before the
    /// division (`scale-n1-flush` `[PTX]`), and if so whether the zero keeps its
    /// sign, under the profile's `answers` (`scale-n1-flush-sign` `[HW]`, §5.15, §7.16).
    fn single_scale_flush(&self, answers: Answers) -> Option<bool> {
        ptx::single_scale_flush(self, answers)
    }
    /// The bits of a tf32 result the profile pins: the ISA leaves bits 12..0
    /// implementation defined; the sm90 profile expects zeros (`tf32-low-bits`
    /// `[OPEN]`, §1.3, §7.7).
    fn tf32_low_bits(&self, profile: Profile) -> u64 {
        ptx::tf32_low_bits(self, profile)
    }
}

/// The rounding rule in force for `c` under `d` (for `.rs` a placeholder:
/// each lane's rule carries its own random bits).
pub fn mode_of<D: Decisions + ?Sized>(d: &D, c: &Cvt) -> Mode {
    match c.rounding {
        None => d.default_rounding(),
        Some(r) => d.rounding_mode(r).unwrap_or(Mode::NearestEven),
    }
}

/// The oracle's semantics: every decision at its default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ptx;

impl Decisions for Ptx {}

/// The oracle's answer to each decision, for sets that override others.
/// Each takes the set it serves, so a decision that builds on another
/// (the NaN rule on "no modifier") asks that set.
pub mod ptx {
    use super::*;

    pub fn rounding_mode<D: Decisions + ?Sized>(_: &D, r: Rounding) -> Option<Mode> {
        r.mode()
    }

    pub fn default_rounding<D: Decisions + ?Sized>(_: &D) -> Mode {
        Mode::NearestEven
    }

    pub fn stochastic_bits<D: Decisions + ?Sized>(_: &D, dtype: Type, rbits: u64, lane: u32) -> (u64, u32) {
        policy::stochastic_bits(dtype, rbits, lane)
    }

    pub fn answers<D: Decisions + ?Sized>(_: &D, profile: Profile) -> Answers {
        profile.answers()
    }

    pub fn flushes_source<D: Decisions + ?Sized>(_: &D, c: &Cvt, answers: Answers) -> SourceFlush {
        if !(c.ftz && c.atype.format() == Format::F32) {
            SourceFlush::Keep
        } else if c.dtype.format() == Format::F16 {
            SourceFlush::Erratum { flush: answers.get(Question::FtzF16Input) }
        } else {
            SourceFlush::Flush
        }
    }

    pub fn flushes_result<D: Decisions + ?Sized>(_: &D, c: &Cvt) -> bool {
        c.ftz && c.dtype.format() == Format::F32
    }

    pub fn ftz_cutoff<D: Decisions + ?Sized>(d: &D, c: &Cvt, neg: bool, profile: Profile) -> FtzCutoff {
        let narrow = c.ftz && c.atype.format() == Format::F64 && c.dtype.format() == Format::F32;
        if profile == Profile::Isa || !narrow {
            return FtzCutoff::Answer;
        }
        // The thresholds of ptxas 13.5's DSETP/FSETP before its flushing FMUL (docs/semantics.md §5.17).
        let gap = match mode_of(d, c) {
            Mode::NearestEven => Some(25),
            Mode::Down if neg => Some(24),
            Mode::Up if !neg => Some(24),
            _ => None,
        };
        FtzCutoff::Below { gap }
    }

    pub fn no_modifier<D: Decisions + ?Sized>(_: &D, c: &Cvt) -> bool {
        c.rounding.is_none() && !c.ftz && !c.relu && !c.satfinite
    }

    pub fn nan_source<D: Decisions + ?Sized>(d: &D, c: &Cvt, profile: Profile) -> (NanOut, Rule) {
        let (src, dst) = (c.atype.format(), c.dtype.format());
        if c.sat {
            return (NanOut::Zero, Rule::SatNan);
        }
        if !dst.float_layout().expect("float destination").has_nan() {
            // e2m1/e2m3/e3m2 have no NaN: .satfinite gives +MAX_NORM (docs/semantics.md §5.8).
            return (NanOut::MaxNorm, Rule::SatFiniteNanToMax);
        }
        if dst == Format::Ue8m0 {
            (NanOut::Canonical, Rule::Ue8m0Nan)
        } else if dst == Format::Ue5m3 {
            // ff is ue5m3's only NaN code, under either profile.
            (NanOut::Canonical, if c.satfinite { Rule::SatFiniteNan } else { Rule::Ue5m3Nan })
        } else if let Some(answer) = sequence_nan(profile, c) {
            answer
        } else if c.relu {
            canonical_nan(profile, Rule::ReluNan)
        } else if c.satfinite {
            canonical_nan(profile, Rule::SatFiniteNan)
        } else {
            profile_nan(profile, dst, src, d.no_modifier(c))
        }
    }

    pub fn canonical_nan_keeps_sign<D: Decisions + ?Sized>(_: &D) -> bool {
        false
    }

    pub fn inf_source<D: Decisions + ?Sized>(_: &D, c: &Cvt, dst: Format, neg: bool) -> (Special, Rule) {
        let l = dst.float_layout().expect("float destination");
        if c.sat {
            (if neg { Special::Zero } else { Special::One }, Rule::SatClamp)
        } else if c.relu && neg {
            (Special::Zero, Rule::Relu)
        } else if c.satfinite {
            (Special::Max { neg }, Rule::SatFinite)
        } else if !l.has_inf() {
            // Only ue8m0 and ue5m3 get here (the other Inf-less formats require .satfinite).
            (Special::Nan, no_inf_overflow_rule(dst))
        } else {
            (Special::Inf { neg }, Rule::InfToInf)
        }
    }

    #[inline(always)]
    pub fn overflow<D: Decisions + ?Sized>(
        _: &D,
        dst: Format,
        satfinite: bool,
        mode: Mode,
        neg: bool,
        away: bool,
    ) -> (Special, Rule) {
        let l = dst.float_layout().expect("float destination");
        // IEEE 754 §7.4: Inf when rounding to nearest or away from zero in the value's direction.
        let to_inf = !satfinite
            && match mode {
                Mode::NearestEven | Mode::NearestAway => true,
                Mode::Up => !neg,
                Mode::Down => neg,
                Mode::TowardZero => false,
                // Like a directed rounding: Inf when the random carry rounded away from zero [OPEN].
                Mode::Stochastic { .. } => away,
            };
        match (to_inf, l.has_inf(), l.has_nan()) {
            (true, true, _) => (Special::Inf { neg }, Rule::OverflowToInf),
            (true, false, true) => (Special::Nan, no_inf_overflow_rule(dst)),
            _ if satfinite => (Special::Max { neg }, Rule::SatFinite),
            _ => (Special::Max { neg }, Rule::OverflowToMax),
        }
    }

    pub fn sat_neg_zero_to_positive<D: Decisions + ?Sized>(_: &D) -> bool {
        true
    }

    pub fn drops_sign<D: Decisions + ?Sized>(_: &D, dst: Format) -> bool {
        dst.float_layout().is_some_and(|l| !l.signed)
    }

    pub fn zero_code<D: Decisions + ?Sized>(_: &D, dst: Format) -> Option<u64> {
        // ue8m0's code 00 is 2^-127, its smallest value.
        (dst == Format::Ue8m0).then_some(0)
    }

    pub fn nan_to_int<D: Decisions + ?Sized>(_: &D, src: Type, dst: Type) -> (u64, Rule) {
        let n = dst.bits();
        if src != Type::F64 && n != 64 {
            (0, Rule::NanToIntZero)
        } else if n <= 16 {
            (1 << (n - 1), Rule::NanToIntNarrowFromF64)
        } else {
            (1 << (n - 1), Rule::NanToIntSignBit)
        }
    }

    pub fn inf_to_int<D: Decisions + ?Sized>(_: &D, dst: Type, neg: bool) -> i128 {
        let (lo, hi) = int_range(dst);
        if neg {
            lo
        } else {
            hi
        }
    }

    pub fn int_out_of_range<D: Decisions + ?Sized>(_: &D, dst: Type, neg: bool, _low_bits: u64) -> i128 {
        let (lo, hi) = int_range(dst);
        if neg {
            lo
        } else {
            hi
        }
    }

    pub fn int_to_int<D: Decisions + ?Sized>(_: &D, sat: bool, src: Type, dst: Type) -> IntToInt {
        use std::cmp::Ordering::*;
        match (sat, src.bits().cmp(&dst.bits())) {
            (true, _) => IntToInt::Saturate,
            (false, Greater) => IntToInt::Chop,
            (false, Less) if src.format().is_signed_int() => IntToInt::SignExtend,
            (false, Less) => IntToInt::ZeroExtend,
            (false, Equal) => IntToInt::SameWidth,
        }
    }

    pub fn source_bits<D: Decisions + ?Sized>(_: &D, src: Type, _reg_width: u32) -> u32 {
        src.bits()
    }

    pub fn dest_sign_extends<D: Decisions + ?Sized>(_: &D, dst: Type) -> bool {
        dst.format().is_signed_int()
    }

    pub fn source_lane<D: Decisions + ?Sized>(_: &D, lane: u32, _lanes: u32) -> u32 {
        lane
    }

    pub fn pack_c_shift<D: Decisions + ?Sized>(_: &D, lane_bits: u32) -> Option<u32> {
        Some(2 * lane_bits)
    }

    pub fn scale_byte_shift<D: Decisions + ?Sized>(_: &D, lane: u32) -> u32 {
        // The NVIDIA SASS and the CuTe DSL round trip: the high byte scales the high lane.
        8 * lane
    }

    pub fn unscaled_code<D: Decisions + ?Sized>(_: &D) -> u8 {
        // 2^0: NVIDIA's SASS for the unscaled spellings passes the constant scale 7f7f.
        127
    }

    pub fn scale_divides<D: Decisions + ?Sized>(_: &D, dst: Format) -> bool {
        dst.fixed_frac_bits().is_some()
    }

    pub fn scale_nan<D: Decisions + ?Sized>(_: &D, dst: Format, profile: Profile) -> (NanOut, Rule) {
        match dst {
            _ if dst.fixed_frac_bits().is_some() => (NanOut::MaxNorm, Rule::ScaleNan),
            // The n2 scale multiplies only into bf16.
            Format::Bf16 => canonical_nan(profile, Rule::ScaleNan),
            // The n1 destinations: the quotient is NaN, then the destination's NaN rule.
            Format::Ue5m3 => (NanOut::Canonical, Rule::ScaleN1Nan),
            _ if !dst.float_layout().is_some_and(|l| l.has_nan()) => (NanOut::MaxNorm, Rule::ScaleN1Nan),
            _ => canonical_nan(profile, Rule::ScaleN1Nan),
        }
    }

    pub fn nan_to_fixed<D: Decisions + ?Sized>(_: &D, _dst: Format) -> (NanOut, Rule) {
        (NanOut::MaxNorm, Rule::FixedNan)
    }

    pub fn relu_zeroes_fixed<D: Decisions + ?Sized>(_: &D, c: &Cvt, nan: bool) -> bool {
        c.relu && !nan
    }

    pub fn fixed_range<D: Decisions + ?Sized>(_: &D, dst: Format) -> (i64, i64) {
        dst.fixed_units().expect("a fixed-point destination")
    }

    pub fn positive_zero_only<D: Decisions + ?Sized>(_: &D, c: &Cvt) -> bool {
        c.pzo
    }

    pub fn single_scale_code<D: Decisions + ?Sized>(_: &D, scale: u8, _lane: u32) -> u8 {
        scale
    }

    pub fn single_scale_flush<D: Decisions + ?Sized>(_: &D, answers: Answers) -> Option<bool> {
        Some(answers.get(Question::ScaleFlushKeepsSign))
    }

    /// The profile's NaN rule for float→float (docs/semantics.md §5.9).
    /// `plain`: the instruction has no modifier at all (a same-type move).
    pub fn profile_nan(profile: Profile, dtype: Format, atype: Format, plain: bool) -> (NanOut, Rule) {
        use Format::*;
        if profile == Profile::Isa {
            return (NanOut::Any(Rule::NanUnspecified), Rule::NanUnspecified);
        }
        match (dtype, atype) {
            (F16 | Bf16, _) if dtype == atype && plain => (NanOut::Canonical, Rule::NanMoveCanonical),
            (d, a) if d == a && plain => (NanOut::Copy, Rule::NanCopy),
            (F64, F32) | (F32, F64) => (NanOut::Payload, Rule::NanPayload),
            (F16 | Bf16 | Tf32, _) | (F32, F16) => (NanOut::Canonical, Rule::NanCanonical),
            (F32 | F64, Bf16) => (NanOut::Any(Rule::NanUnspecified), Rule::NanUnspecified),
            _ => (NanOut::Any(Rule::NanOpen), Rule::NanOpen),
        }
    }

    /// The NaN answers of the forms ptxas lowers to a sequence whose NaN
    /// bits differ from the other rules (docs/semantics.md §5.17; `sm90` only).
    pub fn sequence_nan(profile: Profile, c: &Cvt) -> Option<(NanOut, Rule)> {
        use Format::*;
        if profile == Profile::Isa || c.sat || c.relu {
            return None;
        }
        match (c.dtype.format(), c.atype.format(), c.rounding) {
            (Tf32, F32, Some(Rounding::Rna)) if c.satfinite => {
                Some((NanOut::Masked { step_down: true }, Rule::Tf32RnaSatFiniteNan))
            }
            (Tf32, F32, Some(Rounding::Rna)) => Some((NanOut::Masked { step_down: false }, Rule::Tf32RnaNan)),
            (F64, F32, _) if c.ftz => Some((NanOut::SourceCanonical, Rule::FtzWidenNan)),
            // With .ftz it is one F2F.FTZ.F32.BF16, which the ISA text leaves to any NaN.
            (F32, Bf16, _) if !c.ftz => Some((NanOut::Shifted, Rule::Bf16WidenNan)),
            (F32, F32, None) if c.ftz && !c.satfinite => Some((NanOut::Canonical, Rule::NanMoveCanonical)),
            _ => None,
        }
    }

    /// A NaN that a rule calls canonical (.relu, .satfinite, a NaN scale):
    /// its bits in the sm90 profile, any NaN in the isa profile.
    pub fn canonical_nan(profile: Profile, rule: Rule) -> (NanOut, Rule) {
        match profile {
            Profile::Isa => (NanOut::Any(Rule::NanOpen), rule),
            Profile::Sm90 => (NanOut::Canonical, rule),
        }
    }

    pub fn tf32_low_bits<D: Decisions + ?Sized>(_: &D, profile: Profile) -> u64 {
        match profile {
            Profile::Isa => 0xffff_e000,
            Profile::Sm90 => 0xffff_ffff,
        }
    }

    /// The rule of an overflow to NaN in a format without infinity.
    pub fn no_inf_overflow_rule(dst: Format) -> Rule {
        if dst == Format::Ue5m3 {
            Rule::Ue5m3OverflowNan
        } else {
            Rule::OverflowToNan
        }
    }

    /// The range of an integer type (at most 64 bits).
    pub fn int_range(t: Type) -> (i128, i128) {
        t.format().int_range_i128().expect("an integer type")
    }
}
