//! The PTX policy layer's vocabulary: every rule that can decide a result,
//! with its evidence, and the two evidence profiles.
//!
//! Where the ISA leaves a choice open (`[OPEN]`) or only NVIDIA's host
//! emulation speaks (`[EMU]`), the profile's answer is kept here, so a
//! hardware run can confirm or change it. Every rule's decision itself
//! (profile-dependent or not) is one method of [`crate::decide::Decisions`].

use std::fmt;
use std::str::FromStr;

use crate::format::{FloatLayout, Format};
use crate::instr::Type;

/// Strength of the evidence behind a rule (docs/semantics.md §0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// Normative PTX ISA text.
    Ptx,
    /// A public run on NVIDIA hardware.
    Hw,
    /// What the code ptxas 13.5 emits for the form computes (docs/semantics.md §5.17).
    Sass,
    /// NVIDIA's CPU emulation in the CUDA headers.
    Emu,
    /// Unknown; the profile's choice awaits a GPU run.
    Open,
    /// IEEE 754 arithmetic the ISA defers to.
    Ieee,
}

impl Evidence {
    pub fn tag(self) -> &'static str {
        match self {
            Evidence::Ptx => "PTX",
            Evidence::Hw => "HW",
            Evidence::Sass => "SASS",
            Evidence::Emu => "EMU",
            Evidence::Open => "OPEN",
            Evidence::Ieee => "IEEE",
        }
    }
}

macro_rules! rules {
    ($($v:ident $name:literal $ev:ident $sec:literal $text:literal;)*) => {
        /// Every named rule a conversion can apply; `explain` reports them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Rule { $($v,)* }
        impl Rule {
            pub const ALL: &'static [Rule] = &[$(Rule::$v,)*];
            /// Stable kebab-case name.
            pub fn name(self) -> &'static str { match self { $(Rule::$v => $name,)* } }
            pub fn evidence(self) -> Evidence { match self { $(Rule::$v => Evidence::$ev,)* } }
            /// One-line statement of the rule.
            pub fn text(self) -> &'static str { match self { $(Rule::$v => $text,)* } }
            /// The section of `docs/semantics.md` that states this rule, e.g. `"5.3"`;
            /// its row in that document's rule index (§8.1) gives the same name, tag and section.
            pub fn section(self) -> &'static str { match self { $(Rule::$v => $sec,)* } }
        }
    };
}

rules! {
    Decode "decode" Ptx "1" "read the source register's low bits as the source type";
    SourceChop "source-chop" Ptx "4" "a source register wider than the type: only the low bits are used (docs/semantics.md §4)";
    IntWrap "int-wrap" Ptx "5.1" "int→int without .sat: two's-complement chop, sign- or zero-extension (Table 15)";
    IntSatClamp "int-sat-clamp" Hw "5.1" "int→int .sat: clamp the value to the destination range";
    RoundToFloat "round-to-float" Ieee "5.4" "round the exact value once to the destination precision and exponent range";
    RoundToIntegral "round-to-integral" Hw "5.5" "integer rounding in the same float format: round to an integral value";
    RoundToInt "round-to-int" Ptx "5.3" "float→int: round to an integer with the .rni/.rzi/.rmi/.rpi rule";
    Exact "exact" Ieee "5.5" "the destination holds the value exactly: no rounding";
    Copy "copy" Ptx "5.5" "same type without rounding: the value is copied (.ftz/.sat still apply)";
    DefaultRounding "f16-bf16-default-rn" Open "5.4" "f16↔bf16 without a rounding modifier rounds to nearest even (docs/semantics.md §5.4)";
    OverflowToInf "overflow-inf" Ieee "5.4" "overflow rounding to nearest or away in the value's direction gives ±Inf";
    OverflowToMax "overflow-max" Ieee "5.4" "overflow rounding toward zero gives ±max finite";
    InfToInf "inf-to-inf" Ieee "5.4" "±Inf converts to ±Inf";
    IntClamp "int-clamp" Hw "5.3" "float→int: clamp to the destination range; ±Inf → MAX/MIN, negative → 0 for unsigned";
    NanToIntZero "nan-to-int-zero" Ptx "5.3" "NaN → 0 when the source is not f64 and the destination is not 64-bit";
    NanToIntSignBit "nan-to-int-sign-bit" Ptx "5.3" "NaN → 1<<(n−1) when the source is f64 or the destination is 64-bit";
    NanToIntNarrowFromF64 "nan-to-int-narrow-f64" Open "5.3" "f64 NaN → 8/16-bit integer: 1<<(n−1) by the PTX rule, unconfirmed";
    FtzInput "ftz-input" Hw "5.6" ".ftz flushes an f32 subnormal source to a signed zero";
    FtzErratumF16 "ftz-f16-f32-erratum" Hw "5.6" "cvt.ftz.f16.f32 does not flush the f32 source on hardware (docs/semantics.md §5.6)";
    FtzOutput "ftz-output" Hw "5.6" ".ftz flushes an f32 subnormal result to a signed zero";
    FtzTininess "ftz-tininess" Open "5.6" "whether .ftz judges the result subnormal before or after rounding is unconfirmed";
    SatClamp "sat-clamp" Hw "5.7" ".sat on a float destination clamps to [0.0, 1.0]";
    SatNan "sat-nan" Hw "5.7" ".sat maps NaN to +0";
    SatNegZero "sat-neg-zero" Hw "5.7" ".sat maps −0 to +0";
    Relu "relu" Ptx "5.8" ".relu: a negative result becomes +0";
    ReluNegZero "relu-neg-zero" Open "5.8" ".relu on −0: +0 or −0 is unconfirmed";
    ReluNan "relu-nan" Ptx "5.8" ".relu: NaN becomes the canonical NaN";
    SatFinite "satfinite" Ptx "5.8" ".satfinite: |x| > MAX_NORM (Inf included) gives ±MAX_NORM";
    SatFiniteNan "satfinite-nan" Ptx "5.8" ".satfinite: NaN gives NaN in the destination";
    NanPayload "nan-payload" Emu "5.9" "f32↔f64 NaN: sign and payload kept, quiet bit set (EMU, checked against a device)";
    NanCanonical "nan-canonical" Emu "5.9" "NaN becomes the canonical NaN (sign dropped) per NVIDIA's host emulation";
    NanUnspecified "nan-unspecified" Ptx "5.9" "the NaN's bits are not specified: any NaN is accepted";
    NanOpen "nan-open" Open "5.9" "the NaN's bits are unconfirmed: any NaN is accepted until a GPU run pins them";
    NanCopy "nan-copy" Sass "5.9" "cvt.f32.f32 and cvt.f64.f64 without modifiers: ptxas emits no instruction, the NaN's bits are moved unchanged";
    NanMoveCanonical "nan-f16-bf16-move" Sass "5.17" "cvt.f16.f16, cvt.bf16.bf16 without modifiers and cvt.ftz.f32.f32 are an FP add of −0 (HADD2, HFMA2.BF16, FADD.FTZ): a NaN becomes the canonical NaN";
    Tf32RnaNan "tf32-rna-nan" Sass "5.17" "cvt.rna.tf32.f32 of a NaN: the source bits with bits 12..0 cleared (a NaN whose payload lies only there becomes ±Inf)";
    Tf32RnaSatFiniteNan "tf32-rna-satfinite-nan" Sass "5.17" "cvt.rna.satfinite.tf32.f32 of a NaN: bits 12..0 cleared, then minus 0x2000 where that is ±Inf or NaN (a NaN can become ±MAX_NORM, ±Inf or another NaN)";
    FtzWidenNan "ftz-f64-f32-nan" Sass "5.17" "cvt.ftz.f64.f32 of a NaN: 7fffffffe0000000, the canonical f32 NaN (FMUL.FTZ first) widened";
    Bf16WidenNan "bf16-f32-nan" Sass "5.17" "cvt.f32.bf16 of a NaN: the bf16 bits shifted into the upper half, unchanged (SHF.L.U32)";
    FtzCutoff "ftz-f32-f64-cutoff" Sass "5.17" ".ftz.f32.f64 flushes |x| below 2^-126 − 2^-151 (.rn), 2^-126 (.rz; .rm of x > 0; .rp of x < 0), 2^-126 − 2^-150 (.rm of x < 0; .rp of x > 0)";
    SatFiniteNanToMax "satfinite-nan-to-max" Ptx "5.8" ".satfinite into a format without NaN (e2m1, e2m3, e3m2): NaN gives +MAX_NORM";
    OverflowToNan "overflow-nan" Emu "5.12" "ue8m0 without .satfinite: +Inf and overflow give the NaN code ff";
    Ue5m3OverflowNan "ue5m3-overflow-nan" Emu "5.16" "ue5m3 without .satfinite: ±Inf, and a magnitude that .rn or .rp rounds above 114688, give the NaN code ff (.rz gives fe)";
    Ue5m3Unsigned "ue5m3-unsigned" Emu "5.16" "ue5m3 has no sign: the sign is dropped first, then the magnitude is converted (.rp rounds it up)";
    Ue5m3Nan "ue5m3-nan" Emu "5.16" "NaN → ue5m3 ff, its only NaN code (without .satfinite; with it the ISA says NaN)";
    Pzo "pzo" Ptx "5.15" ".pzo: a −0 result of the conversion is written as +0 (other results, NaN included, unchanged)";
    ScaleN1 "scale-n1-ue8m0" Ptx "5.15" ".scaled::n1::ue8m0: both lanes are divided by 2^(s−127), s the 8-bit scale operand, exactly; one rounding afterwards";
    ScaleN1Flush "scale-n1-flush" Ptx "5.15" ".scaled::n1::ue8m0: a subnormal input is flushed to zero before the division";
    ScaleN1FlushSign "scale-n1-flush-sign" Hw "5.15" ".scaled::n1::ue8m0: the flushed zero keeps the input's sign (an NVIDIA test reported as measured on sm_107; the ISA text is silent)";
    ScaleN1Nan "scale-n1-nan" Open "5.15" ".scaled::n1::ue8m0 with scale byte ff (NaN): the lane follows the destination's NaN rule (e4m3/e5m2 7f as reported on sm_107, ue5m3 ff, e2m1/e2m3/e3m2 +MAX_NORM)";
    Ue8m0Unsigned "ue8m0-unsigned" Emu "5.12" "ue8m0 has no sign: the magnitude is converted";
    Ue8m0NoZero "ue8m0-no-zero" Open "5.12" "ue8m0 has no zero: zero and magnitudes rounding below 2^-127 give 00 (2^-127)";
    Ue8m0Nan "ue8m0-nan" Emu "5.12" "NaN → ue8m0 ff, even with .satfinite";
    RoundStochastic "round-stochastic" Open "5.10" ".rs: add the lane's random bits to the top discarded bits; a carry rounds away from zero (bit use per docs/semantics.md §5.10, subnormal results and pair bit order unconfirmed)";
    Tf32LowBits "tf32-low-bits" Open "1.3" "tf32 in a 32-bit container: bits 12..0 are implementation defined (sm90 profile: zero)";
    PackSat "pack-sat" Ptx "5.13" "cvt.pack: a and b (s32) are each clamped to the range of the destination type (PTX ISA \"cvt.pack\")";
    PackC "pack-c-bits" Ptx "5.13" "cvt.pack to u8/s8/u4/s4/u2/s2: the bits of d above the two lanes are the low bits of c (PTX ISA \"cvt.pack\")";
    LaneScale "scale-ue8m0" Ptx "5.14" "each lane is multiplied (into bf16x2) or divided (into s2f6x2) by 2^(s−127), s its byte of `scale` (high byte: lane a / hi); s2f6x2 forms without .scaled::n2::ue8m0 use s = 127 (docs/semantics.md §5.14)";
    ScaleNan "scale-nan" Open "5.14" "a scale byte ff (ue8m0 NaN): a bf16 lane gets the canonical NaN 7fff (a peer emulator), an s2f6 lane 7f like a NaN source (unconfirmed)";
    RoundToFixed "round-to-fixed" Ptx "5.14" "into s2f6: round the exact (scaled) value once to a multiple of 2^-6 by the rounding modifier";
    FixedSatFinite "s2f6-satfinite" Emu "5.14" "into s2f6 (.satfinite is mandatory): clamp to the range [−2, 127/64], ±Inf included";
    FixedNan "s2f6-nan" Ptx "5.14" "NaN into s2f6 gives 7f (127/64), the positive MAX_NORM (PTX ISA .satfinite)";
    Pack "pack" Ptx "5.11" "packed results: a in the high lane, then b (e, f); 6-bit lanes in bits 5..0 of each byte (docs/semantics.md §5.11)";
    DestExtend "dest-extend" Ptx "4" "a destination register wider than the type: sign-extend signed integers, zero-extend the rest (docs/semantics.md §4)";
}

impl Rule {
    /// Whether the rule only reads or places register bits (decoding the
    /// source, chopping a wider source register, extending a wider
    /// destination): it never decides a value.
    pub fn only_moves_bits(self) -> bool {
        matches!(self, Rule::Decode | Rule::SourceChop | Rule::DestExtend)
    }

    /// Whether the rule gives results the ISA text does not permit: where
    /// ptxas's code departs from the text, the `sm90` profile follows the
    /// code and its answer lies outside the `isa` set (docs/semantics.md §6).
    pub fn departs_from_isa(self) -> bool {
        matches!(self, Rule::Tf32RnaNan | Rule::Tf32RnaSatFiniteNan)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.name(), self.evidence().tag())
    }
}

/// Which evidence the oracle follows where the ISA leaves room.
///
/// ```
/// use ptx_cvt::{evaluate_accept, Cvt, Operand, Profile};
///
/// // An f32 NaN to f16: sm_90 emits the canonical 7fff; the ISA allows any NaN.
/// let c: Cvt = "cvt.rn.f16.f32".parse().unwrap();
/// let nan = [Operand { bits: 0x7fc0_0001, width: 32 }];
/// assert_eq!(evaluate_accept(&c, &nan, 16, Profile::Sm90).unwrap().to_string(), "7fff");
/// assert_eq!(evaluate_accept(&c, &nan, 16, "isa".parse().unwrap()).unwrap().to_string(), "nan");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    /// The ISA contract: every result the PTX text permits is accepted.
    Isa,
    /// The best evidence of what an sm_90 GPU emits, bit for bit (`[HW]`, then `[EMU]`).
    #[default]
    Sm90,
}

impl Profile {
    pub const ALL: [Profile; 2] = [Profile::Isa, Profile::Sm90];
    pub fn name(self) -> &'static str {
        match self {
            Profile::Isa => "isa",
            Profile::Sm90 => "sm90",
        }
    }
}

impl FromStr for Profile {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Profile, UnknownProfile> {
        Profile::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| UnknownProfile(s.into()))
    }
}

/// A profile name that is none of [`Profile::ALL`]'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProfile(pub String);

impl fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown profile `{}` (known: isa, sm90)", self.0)
    }
}

impl std::error::Error for UnknownProfile {}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Open questions that split evaluation into alternatives. The ISA profile
/// accepts every answer; the sm90 profile picks one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// Does `cvt.ftz.f16.f32` flush the f32 source? (ISA text: yes; hardware: no.)
    FtzF16Input,
    /// Is a result subnormal for .ftz judged after rounding?
    FtzAfterRounding,
    /// Does .relu turn −0 into +0?
    ReluNegZeroToPositive,
    /// Does the flush before a `.scaled::n1::ue8m0` division keep the input's sign?
    ScaleFlushKeepsSign,
}

impl Question {
    pub const ALL: [Question; 4] = [
        Question::FtzF16Input,
        Question::FtzAfterRounding,
        Question::ReluNegZeroToPositive,
        Question::ScaleFlushKeepsSign,
    ];
    pub fn rule(self) -> Rule {
        match self {
            Question::FtzF16Input => Rule::FtzErratumF16,
            Question::FtzAfterRounding => Rule::FtzTininess,
            Question::ReluNegZeroToPositive => Rule::ReluNegZero,
            Question::ScaleFlushKeepsSign => Rule::ScaleN1FlushSign,
        }
    }
    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// One answer to every open question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answers(u8);

impl Answers {
    pub fn get(self, q: Question) -> bool {
        self.0 & q.bit() != 0
    }
    /// The same answers with `q` answered `yes`.
    pub fn with(self, q: Question, yes: bool) -> Answers {
        if self.get(q) == yes {
            self
        } else {
            self.flipped(q)
        }
    }
    /// The same answers with `q` flipped.
    pub fn flipped(self, q: Question) -> Answers {
        Answers(self.0 ^ q.bit())
    }
}

impl Profile {
    /// The answers this profile takes first (the sm90 profile takes only these).
    pub fn answers(self) -> Answers {
        // Hardware: the erratum keeps the input [HW]; after rounding and −0 → +0 are the guesses [OPEN].
        let mut a = Answers(0);
        // The n1 flush keeps the sign: reported measured on sm_107 [HW].
        a.0 |= Question::FtzAfterRounding.bit()
            | Question::ReluNegZeroToPositive.bit()
            | Question::ScaleFlushKeepsSign.bit();
        if self == Profile::Isa {
            // ISA text: .ftz flushes f32 subnormal inputs, f16.f32 included.
            a.0 |= Question::FtzF16Input.bit();
        }
        a
    }
    /// Whether results for other answers are also accepted.
    pub fn accepts_all_answers(self) -> bool {
        self == Profile::Isa
    }
}

/// How a float→float conversion produces a NaN from a NaN source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanOut {
    /// Keep sign and the top payload bits, set the quiet bit.
    Payload,
    /// The destination's canonical NaN (all fraction bits set, sign clear).
    Canonical,
    /// Move the bits unchanged.
    Copy,
    /// Any NaN.
    Any(Rule),
    /// +0 (`.sat`).
    Zero,
    /// +MAX_NORM (`.satfinite` into a format without NaN).
    MaxNorm,
    /// tf32 `.rna`: the source's bits with those below tf32 cleared; with
    /// `step_down`, minus one tf32 unit where that is ±Inf or NaN (§5.17).
    Masked { step_down: bool },
    /// The source's canonical NaN, widened with its payload (`cvt.ftz.f64.f32`).
    SourceCanonical,
    /// The source's bits moved into the destination's upper bits (bf16→f32).
    Shifted,
}

impl NanOut {
    /// The bits of the answers computed from the source NaN's sign, quiet
    /// bit and payload (the sequences of docs/semantics.md §5.17); `None`
    /// for the others. One definition for both engines.
    pub fn source_bits(self, src: Format, dst: Format, neg: bool, quiet: bool, payload: u64) -> Option<u64> {
        let (s, d) = (src.float_layout()?, dst.float_layout()?);
        let frac = if quiet { s.quiet_bit() } else { 0 } | payload;
        let inf = |l: &FloatLayout| l.exp_field_max() << l.man_bits << l.shift;
        let sign = |l: &FloatLayout, neg: bool| if neg { l.sign_bit() << l.shift } else { 0 };
        match self {
            NanOut::Masked { step_down } => {
                let x = sign(s, neg) | inf(s) | frac << s.shift;
                let r = x & !((1u64 << d.shift) - 1);
                let abs = r & (sign(d, true) - 1);
                Some(if step_down && abs >= inf(d) { r - (1 << d.shift) } else { r })
            }
            NanOut::SourceCanonical => {
                let all = (1u64 << s.man_bits) - 1;
                Some(inf(d) | all << (d.man_bits - s.man_bits) << d.shift)
            }
            NanOut::Shifted => Some(sign(d, neg) | inf(d) | frac << (d.man_bits - s.man_bits) << d.shift),
            _ => None,
        }
    }
}

/// The random bits `.rs` adds for lane `lane` (0 = lowest) of `dtype`, and
/// how many there are (docs/semantics.md §5.10).
///
/// f16x2: `rbits[28:16]` for a, `[12:0]` for b; bf16x2: `[31:16]` for a, `[15:0]` for b.
/// x4 forms: a and b share one 16-bit field, e and f another (`[31:16]` and
/// `[15:0]`; for e2m1x4 the upper bytes of each half feed a, b and the lower
/// bytes e, f). Within a pair the first lane (a, e) reads its field
/// bit-reversed: a public B200 measurement reports this; unconfirmed here `[OPEN]`.
pub(crate) fn stochastic_bits(dtype: Type, rbits: u64, lane: u32) -> (u64, u32) {
    let r = rbits as u32;
    match dtype {
        Type::F16x2 => (((r >> (16 * lane)) & 0x1fff) as u64, 13),
        Type::Bf16x2 => (((r >> (16 * lane)) & 0xffff) as u64, 16),
        _ => {
            let (hi, lo) = if dtype.lane_bits() == 8 {
                (r >> 16, r & 0xffff)
            } else {
                (((r >> 24) & 0xff) << 8 | ((r >> 8) & 0xff), ((r >> 16) & 0xff) << 8 | (r & 0xff))
            };
            // Lanes 3, 2 are a, b (the high field); 1, 0 are e, f.
            let field = if lane >= 2 { hi } else { lo };
            let first_of_pair = lane % 2 == 1;
            let bits = if first_of_pair { (field as u16).reverse_bits() as u32 } else { field };
            (bits as u64, 16)
        }
    }
}

/// The `rbits` operand that gives lane `lane` the random field `value`
/// (the inverse of `stochastic_bits` for that lane; other lanes get zeros,
/// except the partner that shares an x4 field).
pub(crate) fn rbits_for_lane(dtype: Type, lane: u32, value: u64) -> u32 {
    let v = value as u32;
    match dtype {
        Type::F16x2 => (v & 0x1fff) << (16 * lane),
        Type::Bf16x2 => (v & 0xffff) << (16 * lane),
        _ => {
            let field = if lane % 2 == 1 { (v as u16).reverse_bits() as u32 } else { v & 0xffff };
            let high_pair = lane >= 2;
            if dtype.lane_bits() == 8 {
                if high_pair {
                    field << 16
                } else {
                    field
                }
            } else {
                // e2m1x4: the field's high byte sits in byte 3 (or 2), its low byte in byte 1 (or 0).
                let (hb, lb) = (field >> 8, field & 0xff);
                if high_pair {
                    (hb << 24) | (lb << 8)
                } else {
                    (hb << 16) | lb
                }
            }
        }
    }
}
