//! Mutation score of the committed compact vectors: every plausible wrong
//! implementation below (one decision of `ptx_cvt::decide::Decisions`
//! answered wrong each) must disagree with at least one committed vector,
//! in the exact engine and in the fast engine alike. And both engines ask
//! every decision: the mutants live here, outside the semantics.

use std::cell::Cell;

use ptx_cvt::decide::{ptx, Decision, Decisions, FtzCutoff, IntToInt, SourceFlush, Special};
use ptx_cvt::eval::evaluate_with;
use ptx_cvt::fast::Plan;
use ptx_cvt::format::Format;
use ptx_cvt::policy::{Answers, NanOut, Question};
use ptx_cvt::round::Mode;
use ptx_cvt::{parse_case, AcceptSet, Case, Cvt, Profile, Rounding, Rule, Type};
use ptx_cvt_tests::compact_vectors;

macro_rules! mutants {
    ($($v:ident $text:literal;)*) => {
        /// Plausible bugs of a cvt implementation, one rule wrong each: each
        /// variant is a decision set that overrides one decision (below).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Mutant { $($v,)* }
        impl Mutant {
            const ALL: &'static [Mutant] = &[$(Mutant::$v,)*];
            fn describe(self) -> &'static str { match self { $(Mutant::$v => $text,)* } }
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
    ScaleBytesSwapped "the low scale byte scales the high lane";
    UnscaledReadsZero "s2f6x2 forms without .scaled::n2::ue8m0 scale by code 00 (2^-127) instead of 2^0";
    ScaleMultipliesIntoS2f6 "the scale multiplies into s2f6 too, instead of dividing";
    ScaleNanGivesZero "a NaN scale byte (ff) gives 0 instead of NaN (bf16) or 7f (s2f6)";
    NanToS2f6Zero "NaN → s2f6 gives 0 instead of 7f";
    ReluZeroesS2f6Nan ".relu into s2f6 zeroes NaN too";
    S2f6RangeSymmetric "s2f6 .satfinite clamps to [-127, 127] units instead of [-128, 127]";
    Ue5m3KeepsSign "the sign is kept into ue5m3 (a negative input rounds as a negative value)";
    PzoIgnored ".pzo ignored (-0 results stay -0)";
    SingleScaleHighLaneOnly "the .scaled::n1::ue8m0 scale divides the high lane only";
    NoFlushBeforeSingleScale "subnormal inputs are not flushed before the .scaled::n1::ue8m0 division";
}

use Mutant::*;

/// Each mutant's one wrong answer; every other decision is the oracle's.
impl Decisions for Mutant {
    fn rounding_mode(&self, r: Rounding) -> Option<Mode> {
        let m = ptx::rounding_mode(self, r)?;
        Some(match (self, m) {
            (TiesAway, Mode::NearestEven) => Mode::NearestAway,
            (RnTruncates, Mode::NearestEven) => Mode::TowardZero,
            (RnaAsRn, Mode::NearestAway) => Mode::NearestEven,
            (RmRpSwapped, Mode::Down) => Mode::Up,
            (RmRpSwapped, Mode::Up) => Mode::Down,
            _ => m,
        })
    }
    fn default_rounding(&self) -> Mode {
        match self {
            TiesAway => Mode::NearestAway,
            RnTruncates => Mode::TowardZero,
            _ => ptx::default_rounding(self),
        }
    }
    fn stochastic_bits(&self, dtype: Type, rbits: u64, lane: u32) -> (u64, u32) {
        let (value, width) = ptx::stochastic_bits(self, dtype, rbits, lane);
        (if *self == RbitsShifted { value >> 1 } else { value }, width)
    }
    fn answers(&self, profile: Profile) -> Answers {
        let a = ptx::answers(self, profile);
        match self {
            FtzErratumIgnored => a.with(Question::FtzF16Input, true),
            TininessBeforeRounding => a.with(Question::FtzAfterRounding, false),
            ReluKeepsNegZero => a.with(Question::ReluNegZeroToPositive, false),
            _ => a,
        }
    }
    fn flushes_source(&self, c: &Cvt, answers: Answers) -> SourceFlush {
        match self {
            NoFtz => SourceFlush::Keep,
            _ => ptx::flushes_source(self, c, answers),
        }
    }
    fn flushes_result(&self, c: &Cvt) -> bool {
        match self {
            NoFtz => false,
            FlushSubnormalResults => true,
            _ => ptx::flushes_result(self, c),
        }
    }
    fn ftz_cutoff(&self, c: &Cvt, neg: bool, profile: Profile) -> FtzCutoff {
        match self {
            // Tininess judged by the open question's answer, not ptxas's threshold.
            TininessBeforeRounding => FtzCutoff::Answer,
            _ => ptx::ftz_cutoff(self, c, neg, profile),
        }
    }
    fn nan_source(&self, c: &Cvt, profile: Profile) -> (NanOut, Rule) {
        match self {
            SatNanPassesNan if c.sat => ptx::nan_source(self, &Cvt { sat: false, ..*c }, profile),
            SatfiniteNanToMax if c.satfinite => (NanOut::MaxNorm, Rule::SatFiniteNanToMax),
            NanPayloadDropped => match ptx::nan_source(self, c, profile) {
                (NanOut::Payload, rule) => (NanOut::Canonical, rule),
                other => other,
            },
            _ => ptx::nan_source(self, c, profile),
        }
    }
    fn canonical_nan_keeps_sign(&self) -> bool {
        *self == NanSignKept || ptx::canonical_nan_keeps_sign(self)
    }
    fn inf_source(&self, c: &Cvt, dst: Format, neg: bool) -> (Special, Rule) {
        let has_inf = dst.float_layout().is_some_and(|l| l.has_inf());
        match self {
            SatfinitePassesInf if has_inf => ptx::inf_source(self, &Cvt { satfinite: false, ..*c }, dst, neg),
            _ => ptx::inf_source(self, c, dst, neg),
        }
    }
    fn overflow(&self, dst: Format, satfinite: bool, mode: Mode, neg: bool, away: bool) -> (Special, Rule) {
        match (self, ptx::overflow(self, dst, satfinite && *self != SatfinitePassesInf, mode, neg, away)) {
            (OverflowToMaxUnderRn, (Special::Inf { neg }, _)) if mode == Mode::NearestEven => {
                (Special::Max { neg }, Rule::OverflowToMax)
            }
            (_, decided) => decided,
        }
    }
    fn sat_neg_zero_to_positive(&self) -> bool {
        *self != SatKeepsNegZero && ptx::sat_neg_zero_to_positive(self)
    }
    fn drops_sign(&self, dst: Format) -> bool {
        let kept = *self == Ue8m0UsesSign || (*self == Ue5m3KeepsSign && dst == Format::Ue5m3);
        !kept && ptx::drops_sign(self, dst)
    }
    fn zero_code(&self, dst: Format) -> Option<u64> {
        // +0 is all zero bits in every float format.
        let code = ptx::zero_code(self, dst);
        if *self == NegZeroLosesSign {
            code.or(Some(0))
        } else {
            code
        }
    }
    fn nan_to_int(&self, src: Type, dst: Type) -> (u64, Rule) {
        match self {
            NanToIntAlwaysZero => (0, Rule::NanToIntZero),
            NanToIntAlwaysSignBit => (1 << (dst.bits() - 1), Rule::NanToIntSignBit),
            _ => ptx::nan_to_int(self, src, dst),
        }
    }
    fn inf_to_int(&self, dst: Type, neg: bool) -> i128 {
        if *self == InfToIntZero {
            0
        } else {
            ptx::inf_to_int(self, dst, neg)
        }
    }
    fn int_out_of_range(&self, dst: Type, neg: bool, low_bits: u64) -> i128 {
        let n = dst.bits();
        match self {
            ClampOffByOne if !neg => ptx::int_out_of_range(self, dst, neg, low_bits) - 1,
            UnsignedNegativeWraps if neg && !dst.format().is_signed_int() => {
                (low_bits & (u64::MAX >> (64 - n))) as i128
            }
            _ => ptx::int_out_of_range(self, dst, neg, low_bits),
        }
    }
    fn int_to_int(&self, sat: bool, src: Type, dst: Type) -> IntToInt {
        match (self, ptx::int_to_int(self, sat && *self != IntSatIgnored, src, dst)) {
            (SextAsZext, IntToInt::SignExtend) => IntToInt::ZeroExtend,
            (_, how) => how,
        }
    }
    fn source_bits(&self, src: Type, reg_width: u32) -> u32 {
        if *self == SourceNotChopped && src.is_int() {
            reg_width
        } else {
            ptx::source_bits(self, src, reg_width)
        }
    }
    fn dest_sign_extends(&self, dst: Type) -> bool {
        *self != DestExtendZero && ptx::dest_sign_extends(self, dst)
    }
    fn source_lane(&self, lane: u32, lanes: u32) -> u32 {
        if *self == LanesSwapped {
            lanes - 1 - lane
        } else {
            ptx::source_lane(self, lane, lanes)
        }
    }
    fn pack_c_shift(&self, lane_bits: u32) -> Option<u32> {
        match self {
            PackCDropped => None,
            PackCAtBit16 => Some(16),
            _ => ptx::pack_c_shift(self, lane_bits),
        }
    }
    fn scale_byte_shift(&self, lane: u32) -> u32 {
        match self {
            ScaleBytesSwapped => ptx::scale_byte_shift(self, lane ^ 1),
            _ => ptx::scale_byte_shift(self, lane),
        }
    }
    fn unscaled_code(&self) -> u8 {
        match self {
            UnscaledReadsZero => 0,
            _ => ptx::unscaled_code(self),
        }
    }
    fn scale_divides(&self, dst: Format) -> bool {
        *self != ScaleMultipliesIntoS2f6 && ptx::scale_divides(self, dst)
    }
    fn scale_nan(&self, dst: Format, profile: Profile) -> (NanOut, Rule) {
        match (self, ptx::scale_nan(self, dst, profile)) {
            (ScaleNanGivesZero, (_, rule)) => (NanOut::Zero, rule),
            (_, decided) => decided,
        }
    }
    fn nan_to_fixed(&self, dst: Format) -> (NanOut, Rule) {
        match (self, ptx::nan_to_fixed(self, dst)) {
            (NanToS2f6Zero, (_, rule)) => (NanOut::Zero, rule),
            (_, decided) => decided,
        }
    }
    fn relu_zeroes_fixed(&self, c: &Cvt, nan: bool) -> bool {
        match self {
            ReluZeroesS2f6Nan => c.relu,
            _ => ptx::relu_zeroes_fixed(self, c, nan),
        }
    }
    fn fixed_range(&self, dst: Format) -> (i64, i64) {
        let (lo, hi) = ptx::fixed_range(self, dst);
        match self {
            S2f6RangeSymmetric => (-hi, hi),
            _ => (lo, hi),
        }
    }
    fn positive_zero_only(&self, c: &Cvt) -> bool {
        *self != PzoIgnored && ptx::positive_zero_only(self, c)
    }
    fn single_scale_code(&self, scale: u8, lane: u32) -> u8 {
        match self {
            // The low lane keeps 2^0.
            SingleScaleHighLaneOnly if lane == 0 => 127,
            _ => ptx::single_scale_code(self, scale, lane),
        }
    }
    fn single_scale_flush(&self, answers: Answers) -> Option<bool> {
        match self {
            NoFlushBeforeSingleScale => None,
            _ => ptx::single_scale_flush(self, answers),
        }
    }
}

/// Which engine evaluates a mutant.
#[derive(Clone, Copy, Debug)]
enum Engine {
    Exact,
    Fast,
}

fn accept<D: Decisions + Copy>(engine: Engine, c: &Case, d: D) -> Option<AcceptSet> {
    let w = c.dst_width();
    match engine {
        Engine::Exact => evaluate_with(&c.instr, &c.operands, w, Profile::Sm90, &d).ok().map(|o| o.accept),
        Engine::Fast => {
            let src_width = c.operands.first().map_or(c.instr.atype.bits(), |o| o.width);
            let plan = Plan::with_decisions(&c.instr, src_width, w, d).ok()?;
            Some(plan.eval(&c.operands).to_accept(w))
        }
    }
}

/// The first committed case the mutant gets wrong, if any.
fn killer(engine: Engine, m: Mutant, cases: &[(String, Case)]) -> Option<String> {
    cases.iter().find_map(|(line, c)| {
        let want = c.result.as_ref().unwrap();
        match accept(engine, c, m) {
            Some(a) if want.is_subset_of(&a) => None,
            _ => Some(line.clone()),
        }
    })
}

fn cases() -> Vec<(String, Case)> {
    let cases: Vec<(String, Case)> = compact_vectors()
        .into_iter()
        .flat_map(|(_, text)| text.lines().map(String::from).collect::<Vec<_>>())
        .filter_map(|l| parse_case(&l).unwrap().map(|c| (l, c)))
        .collect();
    assert!(cases.len() > 100_000);
    cases
}

fn kill_every_mutant(engine: Engine) {
    let cases = cases();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunks: Vec<&[Mutant]> = Mutant::ALL.chunks(Mutant::ALL.len().div_ceil(threads)).collect();
    let results: Vec<(Mutant, Option<String>)> = std::thread::scope(|s| {
        let hs: Vec<_> = chunks
            .into_iter()
            .map(|ms| s.spawn(|| ms.iter().map(|m| (*m, killer(engine, *m, &cases))).collect::<Vec<_>>()))
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut survivors = Vec::new();
    for (m, k) in &results {
        match k {
            Some(line) => eprintln!("killed   {m:?} ({}) by: {line}", m.describe()),
            None => survivors.push(format!("{m:?}: {}", m.describe())),
        }
    }
    let killed = results.len() - survivors.len();
    eprintln!(
        "{engine:?} engine: mutation score: {killed}/{} ({:.0}%)",
        results.len(),
        100.0 * killed as f64 / results.len() as f64
    );
    assert!(results.len() >= 25);
    assert!(survivors.is_empty(), "surviving mutants ({engine:?} engine):\n{}", survivors.join("\n"));
}

#[test]
fn compact_vectors_kill_every_mutant() {
    kill_every_mutant(Engine::Exact);
}

/// The fast engine asks the same decisions: each mutant breaks it too.
#[test]
fn compact_vectors_kill_every_mutant_in_the_fast_engine() {
    kill_every_mutant(Engine::Fast);
}

/// The oracle's decisions, noting which were asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Recorder<'a>(&'a Cell<u64>);

impl Recorder<'_> {
    fn asked(&self, d: Decision) {
        self.0.set(self.0.get() | 1 << d as u32);
    }
}

impl Decisions for Recorder<'_> {
    fn rounding_mode(&self, r: Rounding) -> Option<Mode> {
        self.asked(Decision::RoundingMode);
        ptx::rounding_mode(self, r)
    }
    fn default_rounding(&self) -> Mode {
        self.asked(Decision::DefaultRounding);
        ptx::default_rounding(self)
    }
    fn stochastic_bits(&self, dtype: Type, rbits: u64, lane: u32) -> (u64, u32) {
        self.asked(Decision::StochasticBits);
        ptx::stochastic_bits(self, dtype, rbits, lane)
    }
    fn answers(&self, profile: Profile) -> Answers {
        self.asked(Decision::Answers);
        ptx::answers(self, profile)
    }
    fn flushes_source(&self, c: &Cvt, answers: Answers) -> SourceFlush {
        self.asked(Decision::FlushesSource);
        ptx::flushes_source(self, c, answers)
    }
    fn flushes_result(&self, c: &Cvt) -> bool {
        self.asked(Decision::FlushesResult);
        ptx::flushes_result(self, c)
    }
    fn ftz_cutoff(&self, c: &Cvt, neg: bool, profile: Profile) -> FtzCutoff {
        self.asked(Decision::FtzCutoff);
        ptx::ftz_cutoff(self, c, neg, profile)
    }
    fn no_modifier(&self, c: &Cvt) -> bool {
        self.asked(Decision::NoModifier);
        ptx::no_modifier(self, c)
    }
    fn nan_source(&self, c: &Cvt, profile: Profile) -> (NanOut, Rule) {
        self.asked(Decision::NanSource);
        ptx::nan_source(self, c, profile)
    }
    fn canonical_nan_keeps_sign(&self) -> bool {
        self.asked(Decision::CanonicalNanSign);
        ptx::canonical_nan_keeps_sign(self)
    }
    fn inf_source(&self, c: &Cvt, dst: Format, neg: bool) -> (Special, Rule) {
        self.asked(Decision::InfSource);
        ptx::inf_source(self, c, dst, neg)
    }
    fn overflow(&self, dst: Format, satfinite: bool, mode: Mode, neg: bool, away: bool) -> (Special, Rule) {
        self.asked(Decision::Overflow);
        ptx::overflow(self, dst, satfinite, mode, neg, away)
    }
    fn sat_neg_zero_to_positive(&self) -> bool {
        self.asked(Decision::SatNegZero);
        ptx::sat_neg_zero_to_positive(self)
    }
    fn drops_sign(&self, dst: Format) -> bool {
        self.asked(Decision::DropsSign);
        ptx::drops_sign(self, dst)
    }
    fn zero_code(&self, dst: Format) -> Option<u64> {
        self.asked(Decision::ZeroCode);
        ptx::zero_code(self, dst)
    }
    fn nan_to_int(&self, src: Type, dst: Type) -> (u64, Rule) {
        self.asked(Decision::NanToInt);
        ptx::nan_to_int(self, src, dst)
    }
    fn inf_to_int(&self, dst: Type, neg: bool) -> i128 {
        self.asked(Decision::InfToInt);
        ptx::inf_to_int(self, dst, neg)
    }
    fn int_out_of_range(&self, dst: Type, neg: bool, low_bits: u64) -> i128 {
        self.asked(Decision::IntOutOfRange);
        ptx::int_out_of_range(self, dst, neg, low_bits)
    }
    fn int_to_int(&self, sat: bool, src: Type, dst: Type) -> IntToInt {
        self.asked(Decision::IntToInt);
        ptx::int_to_int(self, sat, src, dst)
    }
    fn source_bits(&self, src: Type, reg_width: u32) -> u32 {
        self.asked(Decision::SourceBits);
        ptx::source_bits(self, src, reg_width)
    }
    fn dest_sign_extends(&self, dst: Type) -> bool {
        self.asked(Decision::DestSignExtends);
        ptx::dest_sign_extends(self, dst)
    }
    fn source_lane(&self, lane: u32, lanes: u32) -> u32 {
        self.asked(Decision::SourceLane);
        ptx::source_lane(self, lane, lanes)
    }
    fn pack_c_shift(&self, lane_bits: u32) -> Option<u32> {
        self.asked(Decision::PackCShift);
        ptx::pack_c_shift(self, lane_bits)
    }
    fn scale_byte_shift(&self, lane: u32) -> u32 {
        self.asked(Decision::ScaleByteShift);
        ptx::scale_byte_shift(self, lane)
    }
    fn unscaled_code(&self) -> u8 {
        self.asked(Decision::UnscaledCode);
        ptx::unscaled_code(self)
    }
    fn scale_divides(&self, dst: Format) -> bool {
        self.asked(Decision::ScaleDivides);
        ptx::scale_divides(self, dst)
    }
    fn scale_nan(&self, dst: Format, profile: Profile) -> (NanOut, Rule) {
        self.asked(Decision::ScaleNan);
        ptx::scale_nan(self, dst, profile)
    }
    fn nan_to_fixed(&self, dst: Format) -> (NanOut, Rule) {
        self.asked(Decision::NanToFixed);
        ptx::nan_to_fixed(self, dst)
    }
    fn relu_zeroes_fixed(&self, c: &Cvt, nan: bool) -> bool {
        self.asked(Decision::ReluZeroesFixed);
        ptx::relu_zeroes_fixed(self, c, nan)
    }
    fn fixed_range(&self, dst: Format) -> (i64, i64) {
        self.asked(Decision::FixedRange);
        ptx::fixed_range(self, dst)
    }
    fn positive_zero_only(&self, c: &Cvt) -> bool {
        self.asked(Decision::PositiveZeroOnly);
        ptx::positive_zero_only(self, c)
    }
    fn single_scale_code(&self, scale: u8, lane: u32) -> u8 {
        self.asked(Decision::SingleScaleCode);
        ptx::single_scale_code(self, scale, lane)
    }
    fn single_scale_flush(&self, answers: Answers) -> Option<bool> {
        self.asked(Decision::SingleScaleFlush);
        ptx::single_scale_flush(self, answers)
    }
    fn tf32_low_bits(&self, profile: Profile) -> u64 {
        self.asked(Decision::Tf32LowBits);
        ptx::tf32_low_bits(self, profile)
    }
}

/// Every decision is asked by both engines on the compact vectors, and a
/// recording set changes no result.
#[test]
fn both_engines_ask_every_decision() {
    assert!(Decision::ALL.len() <= 64);
    let cases = cases();
    for engine in [Engine::Exact, Engine::Fast] {
        let asked = Cell::new(0u64);
        for (line, c) in &cases {
            let got = accept(engine, c, Recorder(&asked)).unwrap_or_else(|| panic!("{line}: no result"));
            assert!(c.result.as_ref().unwrap().is_subset_of(&got), "{engine:?}: {line}: {got}");
        }
        let missing: Vec<&str> =
            Decision::ALL.iter().filter(|d| asked.get() >> **d as u32 & 1 == 0).map(|d| d.method()).collect();
        assert!(missing.is_empty(), "{engine:?} engine never asked: {}", missing.join(", "));
    }
}
