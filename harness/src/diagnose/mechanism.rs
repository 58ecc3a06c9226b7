//! Faulty converters: the decode → round → encode of one lane with one
//! mechanism changed, the way hand-written converters go wrong (the carry
//! lost, the exponent saturated, subnormals rounded at the normal
//! position, ...). Everything is derived from the format table's layouts,
//! so one definition serves every pair of formats.
//!
//! A mechanism answers only where it changes something; elsewhere the lane
//! keeps the oracle's answer. To stay honest it first recomputes the
//! correct rounding itself and gives up (`None`) where that does not equal
//! the oracle's answer (a policy it does not model decided the lane:
//! `.ftz`, `.satfinite`, NaN, the sign of ue8m0, ...). Overflow mechanisms
//! answer only for values that overflow.

use ptx_cvt::exact::{decode, Value};
use ptx_cvt::format::{low_mask, FloatLayout, Format};
use ptx_cvt::round::Mode;

/// One mechanism of a faulty converter (each a catalogue row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// Subnormal results rounded to full precision first, then shifted right (truncated).
    SubnormalRoundThenShift,
    /// Subnormal results truncated (shifted right without rounding).
    SubnormalTruncated,
    /// A rounding carry out of the fraction is lost: the exponent is not incremented.
    CarryLost,
    /// The rounding carry is OR-ed into the exponent field (lost where the field is odd).
    CarryOred,
    /// Overflow clamps the exponent field to all ones and keeps the fraction.
    OverflowKeepsFraction,
    /// Overflow gives every exponent and fraction bit set.
    OverflowAllOnes,
    /// Overflow wraps the exponent field modulo its width.
    OverflowExponentWraps,
    /// No range check: the exponent field overflows into the sign bit.
    OverflowIntoSign,
    /// The result's exponent field one too high (a bias off by one).
    BiasHigh,
    /// The result's exponent field one too low.
    BiasLow,
    /// To nearest even, but a tie is judged by the rounding bit alone (the sticky bits ignored).
    StickyIgnored,
    /// Directed rounding judges "inexact" by the rounding bit alone.
    InexactByRoundBit,
    /// The rounding increment added one bit too low: rounds up only from 3/4 ulp.
    IncrementTooLow,
    /// The value converted to an integer of the destination's width, not to its format.
    ValueAsInteger,
    /// A subnormal source normalised, but its fraction written with exponent field 0.
    NormalisedKeptSubnormal,
    /// A subnormal result written with exponent field 1 (its implicit leading 1 kept).
    SubnormalResultAsNormal,
    /// A subnormal source read as a normal one with exponent field 0: an
    /// implicit leading 1 and the exponent −bias (no subnormal branch).
    SubnormalSourceFieldZero,
    /// A format whose top binade is finite (e4m3, fp6, fp4) written as if
    /// it were IEEE's: the largest value is the top of the binade below, where
    /// `.satfinite` clamps.
    IeeeSpecials,
}

/// One lane of a case as a mechanism sees it.
pub struct LaneCase {
    pub src: Format,
    pub dst: Format,
    pub mode: Mode,
    pub relu: bool,
    /// The lane's source bits and the oracle's answer for the lane (its container bits).
    pub src_bits: u64,
    pub expected: u64,
}

/// A finite nonzero magnitude `sig · 2^exp`.
#[derive(Clone, Copy)]
struct Fin {
    neg: bool,
    sig: u64,
    exp: i64,
}

impl Fin {
    fn msb(&self) -> i64 {
        self.exp + 63 - self.sig.leading_zeros() as i64
    }
}

/// `|v| / 2^q` cut to an integer: what is kept and what is dropped.
#[derive(Clone, Copy)]
struct Cut {
    kept: u64,
    q: i64,
    /// The top dropped bit (the rounding bit), the next one, and any below.
    round: bool,
    next: bool,
    sticky: bool,
}

impl Cut {
    fn inexact(&self) -> bool {
        self.round || self.next || self.sticky
    }
}

fn cut(v: Fin, q: i64) -> Option<Cut> {
    let d = q - v.exp;
    if d <= 0 {
        // On the grid already (the significand shifted up, if it fits).
        let s = u32::try_from(-d).ok().filter(|&s| s < 64 && v.sig.leading_zeros() >= s)?;
        return Some(Cut { kept: v.sig << s, q, round: false, next: false, sticky: false });
    }
    let bit = |k: i64| (0..64).contains(&k) && v.sig >> k & 1 == 1;
    let below = |k: i64| k > 0 && v.sig & low_mask(k.min(64) as u32) != 0;
    Some(Cut {
        kept: if d >= 64 { 0 } else { v.sig >> d },
        q,
        round: bit(d - 1),
        next: bit(d - 2),
        sticky: below(d - 2),
    })
}

/// Whether the rounding goes away from zero (`None`: stochastic, not modelled).
fn away(mode: Mode, neg: bool, c: &Cut) -> Option<bool> {
    Some(match mode {
        Mode::NearestEven => c.round && (c.next || c.sticky || c.kept & 1 == 1),
        Mode::NearestAway => c.round,
        Mode::TowardZero => false,
        Mode::Down => neg && c.inexact(),
        Mode::Up => !neg && c.inexact(),
        Mode::Stochastic { .. } => return None,
    })
}

/// An encoding before its range is checked: the exponent field may be
/// past the format's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Enc {
    field: i64,
    frac: u64,
}

/// `kept · 2^q` as exponent field and fraction (a carry renormalised).
fn encode(l: &FloatLayout, mut kept: u64, mut q: i64) -> Enc {
    if kept == 0 {
        return Enc { field: 0, frac: 0 };
    }
    let p = l.precision();
    let bits = 64 - kept.leading_zeros();
    if bits > p {
        kept >>= bits - p;
        q += (bits - p) as i64;
    }
    let msb = q + (64 - kept.leading_zeros()) as i64 - 1;
    if l.subnormals && msb < l.emin() {
        return Enc { field: 0, frac: kept };
    }
    Enc { field: msb + l.bias as i64, frac: kept & low_mask(l.man_bits) }
}

fn quantum(l: &FloatLayout, v: Fin) -> i64 {
    (v.msb() - l.man_bits as i64).max(l.qmin())
}

/// The container bits of an encoding with the sign, if it is a finite code of the format.
fn place(l: &FloatLayout, neg: bool, e: Enc) -> Option<u64> {
    let mag = u64::try_from(e.field).ok()?.checked_shl(l.man_bits)? | e.frac;
    if e.field < 0 || mag > l.max_finite_code() {
        return None;
    }
    Some(raw(l, neg, mag))
}

/// The container bits of a magnitude code and sign, whatever the code means.
fn raw(l: &FloatLayout, neg: bool, mag: u64) -> u64 {
    let sign = if neg { l.sign_bit() } else { 0 };
    ((sign | mag) & low_mask(l.width())) << l.shift
}

/// The answer of the lane under the mechanism, where it differs from
/// the oracle's; `None` where the mechanism does not apply.
pub fn fault(m: Mechanism, x: &LaneCase) -> Option<u64> {
    if !x.dst.is_float() {
        return fault_int(m, x);
    }
    let l = x.dst.float_layout()?;
    let (neg, mag) = match decode(x.src, x.src_bits) {
        Value::Num { neg, mag } if !mag.is_zero() => (neg, mag),
        // Inf clamped by `.satfinite`, to the IEEE reading's largest value.
        Value::Inf { neg } if m == Mechanism::IeeeSpecials && !(x.relu && neg) => {
            return ieee_max(l, neg, x.expected);
        }
        _ => return None,
    };
    if x.relu && neg || l.shift != 0 && m == Mechanism::ValueAsInteger {
        return None;
    }
    // An unsigned format (ue8m0) takes the magnitude: rounded as positive.
    let neg = neg && l.signed;
    let v = Fin { neg, sig: mag.sig_u64()?, exp: mag.exp };
    let c = cut(v, quantum(l, v))?;
    let up = away(x.mode, neg, &c)?;
    let t = encode(l, c.kept, c.q);
    let r = encode(l, c.kept + up as u64, c.q);
    let rounded = place(l, neg, r);
    // The lane as the oracle has it, else a policy decided it: not ours to model.
    if rounded.is_some_and(|b| b != x.expected & low_mask(x.dst.container_bits())) {
        return None;
    }
    let out = match (m, rounded) {
        (Mechanism::OverflowKeepsFraction, None) => raw(l, neg, l.exp_field_max() << l.man_bits | r.frac),
        (Mechanism::OverflowAllOnes, None) => raw(l, neg, low_mask(l.exp_bits + l.man_bits)),
        (Mechanism::OverflowExponentWraps, None) => {
            raw(l, neg, ((r.field as u64) & l.exp_field_max()) << l.man_bits | r.frac)
        }
        (Mechanism::OverflowIntoSign, None) => {
            let sign = if neg { l.sign_bit() } else { 0 };
            let code = sign.wrapping_add((r.field as u64) << l.man_bits | r.frac);
            (code & low_mask(l.width())) << l.shift
        }
        (Mechanism::IeeeSpecials, None) => return ieee_max(l, neg, x.expected),
        (Mechanism::IeeeSpecials, Some(_)) if r.field == l.exp_field_max() as i64 => {
            return ieee_max(l, neg, x.expected);
        }
        (_, None) => return None,
        (Mechanism::SubnormalRoundThenShift, Some(_)) if l.subnormals && v.msb() < l.emin() => {
            // Rounded at the normal position (precision p), then shifted to the subnormal grid.
            let q = v.msb() - l.man_bits as i64;
            let full = cut(v, q)?;
            let r1 = full.kept + away(x.mode, neg, &full)? as u64;
            let shifted = r1.checked_shr(u32::try_from(l.qmin() - q).ok()?).unwrap_or(0);
            place(l, neg, encode(l, shifted, l.qmin()))?
        }
        (Mechanism::SubnormalTruncated, Some(_)) if l.subnormals && v.msb() < l.emin() => place(l, neg, t)?,
        (Mechanism::CarryLost | Mechanism::CarryOred, Some(b)) if up && r.field > t.field => {
            // The fraction wrapped to 0; the exponent field stays (or gets bit 0 OR-ed in).
            let field = if m == Mechanism::CarryOred { t.field | 1 } else { t.field };
            let lost = place(l, neg, Enc { field, frac: 0 })?;
            if lost == b {
                return None;
            }
            lost
        }
        (Mechanism::BiasHigh | Mechanism::BiasLow, Some(_)) if r.field > 0 => {
            let field = r.field + if m == Mechanism::BiasHigh { 1 } else { -1 };
            if field < 0 || field as u64 > l.exp_field_max() {
                return None;
            }
            raw(l, neg, (field as u64) << l.man_bits | r.frac)
        }
        (Mechanism::StickyIgnored, Some(_)) if x.mode == Mode::NearestEven && up && (c.next || c.sticky) => {
            // Taken for a tie: to even.
            if c.kept & 1 == 1 {
                return None;
            }
            place(l, neg, t)?
        }
        (Mechanism::InexactByRoundBit, Some(_)) if matches!(x.mode, Mode::Up | Mode::Down) && up && !c.round => {
            place(l, neg, t)?
        }
        (Mechanism::IncrementTooLow, Some(_))
            if matches!(x.mode, Mode::NearestEven | Mode::NearestAway) && up != (c.round && c.next) =>
        {
            place(l, neg, encode(l, c.kept + (c.round && c.next) as u64, c.q))?
        }
        (Mechanism::ValueAsInteger, Some(_)) => {
            let int = if v.exp >= 0 {
                v.sig.checked_shl(v.exp as u32)?
            } else {
                v.sig.checked_shr(-v.exp as u32).unwrap_or(0)
            };
            if v.exp >= 0 && int >> v.exp != v.sig {
                return None;
            }
            let bits = if neg { int.wrapping_neg() } else { int };
            bits & low_mask(x.dst.container_bits())
        }
        (Mechanism::SubnormalResultAsNormal, Some(_)) if l.subnormals && r.field == 0 && r.frac != 0 => {
            raw(l, neg, 1 << l.man_bits | r.frac)
        }
        (Mechanism::SubnormalSourceFieldZero, Some(_)) => {
            let (s, frac) = (x.src.float_layout()?, subnormal_fraction(x.src, x.src_bits)?);
            // (1.frac) · 2^−bias: half the value `subnormal-source-as-normal` reads.
            let w = Fin { neg, sig: 1 << s.man_bits | frac, exp: -(s.bias as i64) - s.man_bits as i64 };
            let c = cut(w, quantum(l, w))?;
            place(l, neg, encode(l, c.kept + away(x.mode, neg, &c)? as u64, c.q))?
        }
        (Mechanism::NormalisedKeptSubnormal, Some(_)) if r.field > 0 => {
            subnormal_fraction(x.src, x.src_bits)?;
            raw(l, neg, r.frac)
        }
        _ => return None,
    };
    (out != x.expected).then_some(out)
}

/// The fraction of `bits` if they are a subnormal code of float format `f`.
pub fn subnormal_fraction(f: Format, bits: u64) -> Option<u64> {
    let l = f.float_layout().filter(|l| l.subnormals)?;
    let code = (bits >> l.shift) & low_mask(l.width());
    let frac = code & low_mask(l.man_bits);
    (code >> l.man_bits & l.exp_field_max() == 0 && frac != 0).then_some(frac)
}

/// Whether a float format's top binade is finite (no Inf; e4m3, fp6, fp4),
/// where a converter written for IEEE formats would reserve it.
pub fn top_binade_finite(f: Format) -> bool {
    f.float_layout().is_some_and(finite_top)
}

/// The format table's largest finite code lies in the all-ones binade.
fn finite_top(l: &FloatLayout) -> bool {
    l.max_finite_code() >> l.man_bits == l.exp_field_max()
}

/// The IEEE reading's largest value (exponent field one below all ones,
/// fraction all ones) with the sign, for a lane the oracle clamped or that
/// lies in the top binade; `None` elsewhere.
fn ieee_max(l: &FloatLayout, neg: bool, expected: u64) -> Option<u64> {
    if !finite_top(l) {
        return None;
    }
    let code = (expected >> l.shift) & low_mask(l.width());
    let field = (code >> l.man_bits) & l.exp_field_max();
    // The oracle's answer is in the top binade (clamped there or rounded to it); a NaN is not.
    if field != l.exp_field_max() || l.is_nan_code(code) || (code & l.sign_bit() != 0) != neg {
        return None;
    }
    Some(raw(l, neg, (l.exp_field_max() - 1) << l.man_bits | l.man_mask()))
}

/// A source lane a converter written for IEEE formats reads as Inf or NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadAsSpecial {
    pub inf: bool,
    pub neg: bool,
}

/// How a converter written for IEEE formats reads a source lane of a
/// format whose top binade is finite: its exponent field all ones is Inf
/// (fraction 0) or NaN. `None` for other lanes and formats.
pub fn ieee_special_source(src: Format, src_bits: u64) -> Option<ReadAsSpecial> {
    let l = src.float_layout().filter(|_| top_binade_finite(src))?;
    let code = (src_bits >> l.shift) & low_mask(l.width());
    let neg = code & l.sign_bit() != 0;
    if (code >> l.man_bits) & l.exp_field_max() != l.exp_field_max() || l.is_nan_code(code) {
        return None;
    }
    Some(ReadAsSpecial { inf: code & l.man_mask() == 0, neg })
}

/// The rounding and exponent mechanisms where the destination is an
/// integer: the value cut at the units bit, the increment decided the
/// faulty way (or the value doubled or halved first); only where
/// the right rounding is in range and is the oracle's answer (clamping and
/// NaN are policies, not ours to model).
fn fault_int(m: Mechanism, x: &LaneCase) -> Option<u64> {
    let (neg, mag) = match decode(x.src, x.src_bits) {
        Value::Num { neg, mag } if !mag.is_zero() => (neg, mag),
        _ => return None,
    };
    let v = Fin { neg, sig: mag.sig_u64()?, exp: mag.exp };
    let c = cut(v, 0)?;
    let up = away(x.mode, neg, &c)?;
    // The faulty cut: the value doubled or halved (the exponent off by one), or
    // the increment decided from the wrong bits.
    let rescaled = |d: i64| -> Option<(u64, bool)> {
        let c = cut(Fin { exp: v.exp + d, ..v }, 0)?;
        Some((c.kept, away(x.mode, neg, &c)?))
    };
    let (kept, faulty) = match m {
        Mechanism::BiasHigh => rescaled(1)?,
        Mechanism::BiasLow => rescaled(-1)?,
        Mechanism::StickyIgnored if x.mode == Mode::NearestEven && up && (c.next || c.sticky) && c.kept & 1 == 0 => {
            (c.kept, false)
        }
        Mechanism::InexactByRoundBit if matches!(x.mode, Mode::Up | Mode::Down) && up && !c.round => (c.kept, false),
        Mechanism::IncrementTooLow
            if matches!(x.mode, Mode::NearestEven | Mode::NearestAway) && up != (c.round && c.next) =>
        {
            (c.kept, c.round && c.next)
        }
        _ => return None,
    };
    let bits = x.dst.container_bits();
    let (lo, hi) = x.dst.int_range_i128()?;
    let int = |k: u64| {
        let v = if neg { -(k as i128) } else { k as i128 };
        (lo..=hi).contains(&v).then(|| (v as u64) & low_mask(bits))
    };
    let right = int(c.kept + up as u64)?;
    if right != x.expected & low_mask(bits) {
        return None;
    }
    // Float → integer saturates: the faulty value is clamped as the right one would be.
    let k = kept.checked_add(faulty as u64)? as i128;
    let v = (if neg { -k } else { k }).clamp(lo, hi);
    Some((v as u64) & low_mask(bits)).filter(|&out| out != right)
}

/// The bits of the finite value an `Inf` or NaN source lane means when its
/// exponent field is read as an ordinary one (`(1.f) · 2^(emax+1)`) in
/// the destination under `mode`: `Ok(code)`, or `Err(())` when it
/// overflows there; `None` for other sources.
pub fn special_as_finite(src: Format, src_bits: u64, dst: Format, mode: Mode) -> Option<Result<u64, ()>> {
    let s = src.float_layout()?;
    if !matches!(decode(src, src_bits), Value::Nan(_) | Value::Inf { .. }) {
        return None;
    }
    let code = (src_bits >> s.shift) & low_mask(s.width());
    let field = (code >> s.man_bits) & s.exp_field_max();
    let v = Fin {
        neg: code & s.sign_bit() != 0,
        sig: code & low_mask(s.man_bits) | 1 << s.man_bits,
        exp: field as i64 - s.bias as i64 - s.man_bits as i64,
    };
    round_to(dst, v, mode)
}

/// The integer an `Inf` or NaN source lane means when its exponent field
/// is read as an ordinary one, clamped to `dst`'s range as float → integer
/// conversions clamp (negative values to 0 for unsigned types); `None` for
/// other sources.
pub fn special_as_finite_int(src: Format, src_bits: u64, dst: Format) -> Option<u64> {
    let s = src.float_layout()?;
    if !matches!(decode(src, src_bits), Value::Nan(_) | Value::Inf { .. }) {
        return None;
    }
    let code = (src_bits >> s.shift) & low_mask(s.width());
    let neg = code & s.sign_bit() != 0;
    let exp = s.exp_field_max() as i64 - s.bias as i64 - s.man_bits as i64;
    let sig = (code & low_mask(s.man_bits) | 1 << s.man_bits) as i128;
    let bits = dst.container_bits();
    let (lo, hi) = dst.int_range_i128()?;
    // Past 2^100 every integer type is saturated: no need to form the value.
    let mag = if exp >= 100 - s.man_bits as i64 {
        i128::MAX
    } else if exp >= 0 {
        sig << exp
    } else {
        sig >> -exp
    };
    let v = if neg { -mag } else { mag };
    Some((v.clamp(lo, hi) as u64) & low_mask(bits))
}

/// Whether the finite source `src_bits` overflows `dst` under `mode`.
pub fn overflows(src: Format, src_bits: u64, dst: Format, mode: Mode) -> Option<bool> {
    let Value::Num { neg, mag } = decode(src, src_bits) else { return None };
    Some(round_to(dst, Fin { neg, sig: mag.sig_u64()?, exp: mag.exp }, mode)?.is_err())
}

fn round_to(dst: Format, v: Fin, mode: Mode) -> Option<Result<u64, ()>> {
    let l = dst.float_layout()?;
    let c = cut(v, quantum(l, v))?;
    let r = encode(l, c.kept + away(mode, v.neg, &c)? as u64, c.q);
    Some(place(l, v.neg, r).ok_or(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(src: Format, dst: Format, mode: Mode, src_bits: u64, expected: u64) -> LaneCase {
        LaneCase { src, dst, mode, relu: false, src_bits, expected }
    }

    // Known answers worked by hand from the formats' definitions (OCP FP8: e4m3
    // bias 7, max 448 = 0x7e; IEEE binary16 bias 15).
    #[test]
    fn the_carry_ored_into_an_odd_exponent_is_lost() {
        // f32 1.97 (3ffc28f6) rounds to e4m3 2.0 (40): from 1.111 × 2^0, field 7 (odd).
        let x = lane(Format::F32, Format::E4m3, Mode::NearestEven, 0x3ffc_28f6, 0x40);
        assert_eq!(fault(Mechanism::CarryOred, &x), Some(0x38)); // 1.0
        assert_eq!(fault(Mechanism::CarryLost, &x), Some(0x38));
        // 3.9 (40799999) rounds to 4.0 (48) from field 8 (even): OR-ing sets it right.
        let y = lane(Format::F32, Format::E4m3, Mode::NearestEven, 0x4079_9999, 0x48);
        assert_eq!(fault(Mechanism::CarryOred, &y), None);
        assert_eq!(fault(Mechanism::CarryLost, &y), Some(0x40));
    }

    #[test]
    fn overflow_by_exponent_saturation() {
        // f32 1000.0 (447a0000) = 1.953125 × 2^9: e4m3 .satfinite gives 7e (448);
        // the exponent clamped at field 15 with the fraction kept (1.111 rounds to 10.00: the carry
        // renormalises to 1.000 × 2^10, fraction 0) gives 78 (256).
        let x = lane(Format::F32, Format::E4m3, Mode::NearestEven, 0x447a_0000, 0x7e);
        assert_eq!(fault(Mechanism::OverflowKeepsFraction, &x), Some(0x78));
        assert_eq!(fault(Mechanism::OverflowAllOnes, &x), Some(0x7f));
        // In range: no answer.
        assert_eq!(
            fault(
                Mechanism::OverflowKeepsFraction,
                &lane(Format::F32, Format::E4m3, Mode::NearestEven, 0x3f80_0000, 0x38)
            ),
            None
        );
    }

    #[test]
    fn subnormal_results() {
        // f16 smallest subnormal 2^-24 (0001). f32 1.5 × 2^-24 (33c00000): to nearest even 0002;
        // truncated 0001. f32 1.75 × 2^-25 (33600000) = 0.875 × 2^-24: rn 0001; rounded
        // at the normal position first: 1.75 × 2^-25 exact in 11 bits, then shifted: 0000.
        let x = lane(Format::F32, Format::F16, Mode::NearestEven, 0x33c0_0000, 0x0002);
        assert_eq!(fault(Mechanism::SubnormalTruncated, &x), Some(0x0001));
        let y = lane(Format::F32, Format::F16, Mode::NearestEven, 0x3360_0000, 0x0001);
        assert_eq!(fault(Mechanism::SubnormalRoundThenShift, &y), Some(0x0000));
    }

    #[test]
    fn a_subnormal_result_written_as_normal() {
        // f32 2^-24 (33800000) is the smallest f16 subnormal, 0001; with exponent field 1
        // (the implicit leading 1 kept) it is written 0401 = (1 + 2^-10) × 2^-14.
        let x = lane(Format::F32, Format::F16, Mode::NearestEven, 0x3380_0000, 0x0001);
        assert_eq!(fault(Mechanism::SubnormalResultAsNormal, &x), Some(0x0401));
        // A normal result is left alone.
        let y = lane(Format::F32, Format::F16, Mode::NearestEven, 0x3f80_0000, 0x3c00);
        assert_eq!(fault(Mechanism::SubnormalResultAsNormal, &y), None);
    }

    #[test]
    fn specials_read_as_finite_into_integers() {
        // IEEE binary32 NaN 7fc00000 read as 1.5 × 2^128: clamped to s16's 7fff.
        assert_eq!(special_as_finite_int(Format::F32, 0x7fc0_0000, Format::S16), Some(0x7fff));
        // -Inf (ff800000) as -2^128 into u32: negative values clamp to 0.
        assert_eq!(special_as_finite_int(Format::F32, 0xff80_0000, Format::U32), Some(0));
        // binary16 Inf (7c00) as 1.0 × 2^16 = 65536 fits s32; e4m3 NaN (7f) is 1.875 × 2^8 = 480.
        assert_eq!(special_as_finite_int(Format::F16, 0x7c00, Format::S32), Some(0x0001_0000));
        assert_eq!(special_as_finite_int(Format::E4m3, 0x7f, Format::S32), Some(0x1e0));
        // Finite sources are not its business.
        assert_eq!(special_as_finite_int(Format::F32, 0x3f80_0000, Format::S32), None);
    }

    #[test]
    fn rounding_mechanisms_into_integers() {
        // f32 2.5000002 (40200001) to s32 under .rni: above the tie, 3; judged a tie by the
        // rounding bit alone, to even: 2. f32 2.75 (40300000): the increment one bit too low
        // still rounds up (round and next bit set): no answer; 2.5625 (40240000): only the
        // round bit set, so it stays 2 where the right rounding gives 3.
        let x = lane(Format::F32, Format::S32, Mode::NearestEven, 0x4020_0001, 3);
        assert_eq!(fault(Mechanism::StickyIgnored, &x), Some(2));
        let y = lane(Format::F32, Format::S32, Mode::NearestEven, 0x4030_0000, 3);
        assert_eq!(fault(Mechanism::IncrementTooLow, &y), None);
        let z = lane(Format::F32, Format::S32, Mode::NearestEven, 0x4024_0000, 3);
        assert_eq!(fault(Mechanism::IncrementTooLow, &z), Some(2));
        // -2.5000002 → -3 (fffffffd); sticky ignored: -2 (fffffffe). Out of range: no answer.
        let n = lane(Format::F32, Format::S32, Mode::NearestEven, 0xc020_0001, 0xffff_fffd);
        assert_eq!(fault(Mechanism::StickyIgnored, &n), Some(0xffff_fffe));
        let big = lane(Format::F32, Format::S8, Mode::NearestEven, 0x4420_0001, 0x7f);
        assert_eq!(fault(Mechanism::StickyIgnored, &big), None);
        // 3.0 (40400000): the exponent one too high gives 6, one too low 1.5, to even 2.
        let three = lane(Format::F32, Format::S32, Mode::NearestEven, 0x4040_0000, 3);
        assert_eq!(fault(Mechanism::BiasHigh, &three), Some(6));
        assert_eq!(fault(Mechanism::BiasLow, &three), Some(2));
    }

    #[test]
    fn the_value_instead_of_the_bits() {
        // 1.5 → f16 bits 0001.
        let x = lane(Format::F32, Format::F16, Mode::NearestEven, 0x3fc0_0000, 0x3e00);
        assert_eq!(fault(Mechanism::ValueAsInteger, &x), Some(0x0001));
    }

    #[test]
    fn a_policy_it_does_not_model_is_left_alone() {
        // 1.0 → e4m3 is 38; an expected answer that is not the plain rounding (as if a policy
        // decided it) makes every mechanism give up.
        let x = lane(Format::F32, Format::E4m3, Mode::NearestEven, 0x3f80_0000, 0x00);
        assert_eq!(fault(Mechanism::BiasHigh, &x), None);
    }

    // OCP FP8 e4m3 (bias 7, no Inf, NaN only S.1111.111): 7e is 448, 78 is 256. Read the
    // IEEE way (LLVM's f8E4M3, exponent 1111 reserved), the largest value is 77 = 240 and
    // 78 is Inf; e2m1 (OCP MX, no specials) would top out at 3.0 (5) with 6 (4.0) as Inf.
    #[test]
    fn a_finite_top_binade_written_as_ieee() {
        // f32 300.0 (43960000) rounds to e4m3 288 (79): the IEEE reading clamps to 240 (77).
        let x = lane(Format::F32, Format::E4m3, Mode::NearestEven, 0x4396_0000, 0x79);
        assert_eq!(fault(Mechanism::IeeeSpecials, &x), Some(0x77));
        // -1000.0 (c47a0000) clamped by .satfinite to -448 (fe): -240 (f7).
        let y = lane(Format::F32, Format::E4m3, Mode::NearestEven, 0xc47a_0000, 0xfe);
        assert_eq!(fault(Mechanism::IeeeSpecials, &y), Some(0xf7));
        // Inf (7f800000) clamped to 7e as well; 200.0 (43480000, e4m3 74) is below the top binade.
        let inf = lane(Format::F32, Format::E4m3, Mode::NearestEven, 0x7f80_0000, 0x7e);
        assert_eq!(fault(Mechanism::IeeeSpecials, &inf), Some(0x77));
        let low = lane(Format::F32, Format::E4m3, Mode::NearestEven, 0x4348_0000, 0x74);
        assert_eq!(fault(Mechanism::IeeeSpecials, &low), None);
        // e2m1: 4.0 (40800000) is 6; the IEEE reading's largest value 3.0 is 5.
        let fp4 = lane(Format::F32, Format::E2m1, Mode::NearestEven, 0x4080_0000, 0x6);
        assert_eq!(fault(Mechanism::IeeeSpecials, &fp4), Some(0x5));
        // An IEEE destination is not this mechanism's.
        let f16 = lane(Format::F32, Format::F16, Mode::NearestEven, 0x477f_e000, 0x7bff);
        assert_eq!(fault(Mechanism::IeeeSpecials, &f16), None);
        // Sources: e4m3 78 read as +Inf, f9 as -NaN; 7f is NaN anyway; e2m1 7 (6.0) as NaN.
        let read = |f, b| ieee_special_source(f, b).map(|r| (r.inf, r.neg));
        assert_eq!(read(Format::E4m3, 0x78), Some((true, false)));
        assert_eq!(read(Format::E4m3, 0xf9), Some((false, true)));
        assert_eq!(read(Format::E4m3, 0x7f), None);
        assert_eq!(read(Format::E4m3, 0x77), None);
        assert_eq!(read(Format::E2m1, 0x7), Some((false, false)));
        assert_eq!(read(Format::E5m2, 0x7c), None);
    }

    #[test]
    fn specials_read_as_finite() {
        // e4m3 NaN 7f read as 1.875 × 2^8 = 480: f16 5f80.
        assert_eq!(special_as_finite(Format::E4m3, 0x7f, Format::F16, Mode::NearestEven), Some(Ok(0x5f80)));
        // f32 Inf read as 2^128: overflows f16.
        assert_eq!(special_as_finite(Format::F32, 0x7f80_0000, Format::F16, Mode::NearestEven), Some(Err(())));
        assert_eq!(special_as_finite(Format::F32, 0x3f80_0000, Format::F16, Mode::NearestEven), None);
    }
}
