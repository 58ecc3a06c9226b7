//! The decision sets of the hypotheses that read the ISA another way: each
//! variant overrides one decision of [`Decisions`] and keeps the oracle's
//! answer ([`ptx`]) for every other.

use ptx_cvt::decide::{ptx, Decisions, IntToInt, SourceFlush, Special};
use ptx_cvt::format::Format;
use ptx_cvt::policy::{NanOut, Profile, Rule};
use ptx_cvt::round::Mode;
use ptx_cvt::{Cvt, Rounding, Type};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alt {
    /// Every rounding (written or default) is this mode.
    Mode(Mode),
    /// Subnormal float sources are flushed to ±0 whatever is written.
    FlushSources,
    /// Subnormal float results are flushed to ±0 whatever is written.
    FlushResults,
    /// A float NaN keeps its payload (sign and top fraction bits).
    NanPayload,
    /// A float NaN becomes the canonical NaN.
    NanCanonical,
    /// The canonical NaN keeps the source's sign.
    NanSignKept,
    /// NaN → integer gives these type-width bits (`None`: the x86 integer
    /// indefinite, also for ±Inf and out-of-range values).
    NanToInt(NanInt),
    /// Out-of-range float → integer wraps modulo 2^n.
    Wraps,
    /// Negative values into an unsigned integer wrap (two's complement) instead of giving 0.
    WrapsNegative,
    /// The integer clamp bounds off by one (MAX−1, MIN+1).
    ClampOffByOne,
    /// A signed ↔ unsigned mix-up of the clamp: the other signedness's range.
    ClampOtherSign,
    /// The destination register is sign-extended (true) or zero-extended.
    Extend(bool),
    /// A signed int source zero-extended, or an unsigned one sign-extended.
    IntExtendFlipped,
    /// A source register wider than its integer type is read whole.
    SourceWhole,
    /// Packed lanes swapped.
    LanesSwapped,
    /// Overflow under round to nearest gives ±MAX_NORM instead of ±Inf.
    OverflowToMax,
    /// Overflow under any rounding gives ±Inf.
    OverflowToInf,
    /// `.sat` keeps −0.
    SatKeepsNegZero,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanInt {
    Zero,
    SignBit,
    AllOnes,
    Indefinite,
}

/// The x86 "integer indefinite" (cvttss2si and friends) in an `n`-bit
/// integer: 1<<31 or 1<<63, the low bits of the 32-bit one for narrower types.
pub fn indefinite(dst: Type) -> i128 {
    let n = dst.bits();
    match (n >= 32, dst.format().is_signed_int()) {
        (false, _) => 0,
        (true, true) => -(1i128 << (n - 1)),
        (true, false) => 1i128 << (n - 1),
    }
}

impl Decisions for Alt {
    fn rounding_mode(&self, r: Rounding) -> Option<Mode> {
        match self {
            Alt::Mode(m) => Some(*m),
            _ => ptx::rounding_mode(self, r),
        }
    }
    fn default_rounding(&self) -> Mode {
        match self {
            Alt::Mode(m) => *m,
            _ => ptx::default_rounding(self),
        }
    }
    fn flushes_source(&self, c: &Cvt, answers: ptx_cvt::policy::Answers) -> SourceFlush {
        match self {
            Alt::FlushSources if c.atype.is_float() => SourceFlush::Flush,
            _ => ptx::flushes_source(self, c, answers),
        }
    }
    fn flushes_result(&self, c: &Cvt) -> bool {
        *self == Alt::FlushResults || ptx::flushes_result(self, c)
    }
    fn nan_source(&self, c: &Cvt, profile: Profile) -> (NanOut, Rule) {
        match (self, ptx::nan_source(self, c, profile)) {
            (Alt::NanPayload, (NanOut::Canonical | NanOut::Copy, r)) => (NanOut::Payload, r),
            (Alt::NanCanonical, (NanOut::Payload | NanOut::Copy | NanOut::Any(_), r)) => (NanOut::Canonical, r),
            (_, decided) => decided,
        }
    }
    fn canonical_nan_keeps_sign(&self) -> bool {
        *self == Alt::NanSignKept || ptx::canonical_nan_keeps_sign(self)
    }
    fn overflow(&self, dst: Format, satfinite: bool, mode: Mode, neg: bool, away: bool) -> (Special, Rule) {
        match (self, ptx::overflow(self, dst, satfinite, mode, neg, away)) {
            (Alt::OverflowToMax, (Special::Inf { neg }, _)) => (Special::Max { neg }, Rule::OverflowToMax),
            (Alt::OverflowToInf, (Special::Max { neg }, Rule::OverflowToMax))
                if dst.float_layout().is_some_and(|l| l.has_inf()) =>
            {
                (Special::Inf { neg }, Rule::OverflowToInf)
            }
            (_, decided) => decided,
        }
    }
    fn sat_neg_zero_to_positive(&self) -> bool {
        *self != Alt::SatKeepsNegZero && ptx::sat_neg_zero_to_positive(self)
    }
    fn nan_to_int(&self, src: Type, dst: Type) -> (u64, Rule) {
        let n = dst.bits();
        let mask = u64::MAX >> (64 - n);
        let bits = match self {
            Alt::NanToInt(NanInt::Zero) => 0,
            Alt::NanToInt(NanInt::SignBit) => 1 << (n - 1),
            Alt::NanToInt(NanInt::AllOnes) => mask,
            Alt::NanToInt(NanInt::Indefinite) => indefinite(dst) as u64 & mask,
            _ => return ptx::nan_to_int(self, src, dst),
        };
        (bits, Rule::NanToIntZero)
    }
    fn inf_to_int(&self, dst: Type, neg: bool) -> i128 {
        match self {
            Alt::NanToInt(NanInt::Indefinite) => indefinite(dst),
            Alt::ClampOffByOne => ptx::inf_to_int(self, dst, neg) + if neg { 1 } else { -1 },
            Alt::ClampOtherSign => other_sign_bound(dst, neg),
            _ => ptx::inf_to_int(self, dst, neg),
        }
    }
    fn int_out_of_range(&self, dst: Type, neg: bool, low_bits: u64) -> i128 {
        let n = dst.bits();
        let low = low_bits & (u64::MAX >> (64 - n));
        match self {
            Alt::NanToInt(NanInt::Indefinite) => indefinite(dst),
            Alt::Wraps if dst.format().is_signed_int() && low >> (n - 1) == 1 => low as i128 - (1i128 << n),
            Alt::Wraps => low as i128,
            Alt::WrapsNegative if neg && !dst.format().is_signed_int() => low as i128,
            Alt::ClampOffByOne => ptx::int_out_of_range(self, dst, neg, low_bits) + if neg { 1 } else { -1 },
            Alt::ClampOtherSign => {
                let v = low_bits as i64 as i128;
                let (lo, hi) = other_sign_range(dst);
                if neg {
                    v.max(lo)
                } else {
                    hi
                }
            }
            _ => ptx::int_out_of_range(self, dst, neg, low_bits),
        }
    }
    fn int_to_int(&self, sat: bool, src: Type, dst: Type) -> IntToInt {
        match (self, ptx::int_to_int(self, sat, src, dst)) {
            (Alt::IntExtendFlipped, IntToInt::SignExtend) => IntToInt::ZeroExtend,
            (Alt::IntExtendFlipped, IntToInt::ZeroExtend) => IntToInt::SignExtend,
            (_, how) => how,
        }
    }
    fn source_bits(&self, src: Type, reg_width: u32) -> u32 {
        if *self == Alt::SourceWhole && src.is_int() {
            reg_width
        } else {
            ptx::source_bits(self, src, reg_width)
        }
    }
    fn dest_sign_extends(&self, dst: Type) -> bool {
        match self {
            Alt::Extend(sign) => *sign,
            _ => ptx::dest_sign_extends(self, dst),
        }
    }
    fn source_lane(&self, lane: u32, lanes: u32) -> u32 {
        if *self == Alt::LanesSwapped {
            lanes - 1 - lane
        } else {
            ptx::source_lane(self, lane, lanes)
        }
    }
}

/// The range of the integer type of `dst`'s width and the other signedness.
fn other_sign_range(dst: Type) -> (i128, i128) {
    let n = dst.bits();
    if dst.format().is_signed_int() {
        (0, (1i128 << n) - 1)
    } else {
        (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)
    }
}

fn other_sign_bound(dst: Type, neg: bool) -> i128 {
    let (lo, hi) = other_sign_range(dst);
    if neg {
        lo
    } else {
        hi
    }
}
