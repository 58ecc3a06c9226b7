//! Integer-only arithmetic of the fast engine: decoding codes of any float
//! layout of the format table, the rounding core on `u128`, and encoding.
//!
//! Values are `sig × 2^exp` with `sig: u128`: every source value fits (64-bit
//! integers, 53-bit significands), and every rounded result does too.

use crate::format::{low_mask, FloatLayout, Format, Kind, Specials};
use crate::round::Mode;

/// The constants of a float layout that the hot path needs, computed once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fl {
    pub man_bits: u32,
    pub exp_max: u64,
    pub bias: i32,
    pub signed: bool,
    pub specials: Specials,
    pub subnormals: bool,
    pub shift: u32,
    /// sign + exponent + fraction.
    pub width: u32,
    /// Precision in bits (`man_bits + 1`).
    pub prec: u32,
    /// Unbiased exponent of the smallest normal.
    pub emin: i32,
    /// Quantum exponent at the bottom of the range.
    pub qmin: i32,
    pub sign_bit: u64,
    pub quiet_bit: u64,
    /// The code (no sign) of the largest finite value, and its value `max_sig × 2^max_exp`.
    pub max_code: u64,
    pub max_sig: u128,
    pub max_exp: i32,
}

impl Fl {
    pub const fn new(l: &FloatLayout) -> Fl {
        let exp_max = (1u64 << l.exp_bits) - 1;
        let all_man = (1u64 << l.man_bits) - 1;
        let (me, mm) = match l.specials {
            Specials::Ieee | Specials::NanMaxCode => (exp_max - 1, all_man),
            Specials::NanAllOnes => (exp_max, all_man - 1),
            Specials::None => (exp_max, all_man),
        };
        let emin = if l.subnormals { 1 - l.bias } else { -l.bias };
        Fl {
            man_bits: l.man_bits,
            exp_max,
            bias: l.bias,
            signed: l.signed,
            specials: l.specials,
            subnormals: l.subnormals,
            shift: l.shift,
            width: l.signed as u32 + l.exp_bits + l.man_bits,
            prec: l.man_bits + 1,
            emin,
            qmin: emin - l.man_bits as i32,
            sign_bit: if l.signed { 1u64 << (l.exp_bits + l.man_bits) } else { 0 },
            quiet_bit: if l.man_bits == 0 { 0 } else { 1u64 << (l.man_bits - 1) },
            max_code: (me << l.man_bits) | mm,
            max_sig: (mm | (1u64 << l.man_bits)) as u128,
            max_exp: me as i32 - l.bias - l.man_bits as i32,
        }
    }
    #[inline(always)]
    pub const fn has_inf(&self) -> bool {
        matches!(self.specials, Specials::Ieee)
    }
}

/// How a lane's number format is stored: a two's-complement integer or a float layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lf {
    Int { bits: u32, signed: bool },
    Float(Fl),
}

impl Lf {
    pub fn of(f: Format) -> Lf {
        match f.info().kind {
            Kind::Int { signed } => Lf::Int { bits: f.container_bits(), signed },
            Kind::Float(l) => Lf::Float(Fl::new(&l)),
            // s2f6: its code as a signed integer (the units; fast/scaled.rs applies 2^-6).
            Kind::Fixed { .. } => Lf::Int { bits: f.container_bits(), signed: true },
        }
    }
}

/// A decoded float code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    /// `sig × 2^exp`; `sig == 0` is a signed zero.
    Num {
        neg: bool,
        sig: u128,
        exp: i32,
    },
    Inf {
        neg: bool,
    },
    /// `payload`: the fraction bits below the quiet bit.
    Nan {
        neg: bool,
        quiet: bool,
        payload: u64,
    },
}

/// Number of significant bits (0 for 0).
#[inline(always)]
pub(crate) fn bitlen(x: u128) -> i32 {
    128 - x.leading_zeros() as i32
}

/// The two's-complement integer in the low `bits` bits.
#[inline(always)]
pub(crate) fn decode_int(bits: u32, signed: bool, x: u64) -> i128 {
    let x = x & low_mask(bits);
    if signed && (x >> (bits - 1)) & 1 == 1 {
        x as i128 - (1i128 << bits)
    } else {
        x as i128
    }
}

/// Decode the low bits of a container as a float of layout `f`.
#[inline(always)]
pub(crate) fn decode_float(f: &Fl, x: u64) -> Val {
    let code = (x >> f.shift) & low_mask(f.width);
    let neg = code & f.sign_bit != 0;
    let mag = code & !f.sign_bit;
    let e = mag >> f.man_bits;
    let m = mag & low_mask(f.man_bits);
    let nan = match f.specials {
        Specials::Ieee => e == f.exp_max && m != 0,
        Specials::NanAllOnes => mag == low_mask(f.width - f.signed as u32),
        Specials::None => false,
        Specials::NanMaxCode => mag == f.exp_max,
    };
    if nan {
        return Val::Nan {
            neg,
            quiet: m & f.quiet_bit != 0,
            payload: m & f.quiet_bit.wrapping_sub(1) & low_mask(f.man_bits),
        };
    }
    if f.has_inf() && e == f.exp_max {
        return Val::Inf { neg };
    }
    if e == 0 && f.subnormals {
        Val::Num { neg, sig: m as u128, exp: f.qmin }
    } else {
        Val::Num { neg, sig: (m | (1u64 << f.man_bits)) as u128, exp: e as i32 - f.bias - f.man_bits as i32 }
    }
}

/// A rounded magnitude `sig × 2^q` and whether rounding moved away from zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rounded {
    pub sig: u128,
    pub q: i32,
    pub away: bool,
}

/// The rounding core: round the magnitude `sig × 2^exp` of a value with
/// sign `neg` to `prec` significant bits (0: unbounded, i.e. integers when
/// `qmin` is 0), never below the quantum `2^qmin`. The exponent is unbounded
/// above; overflow is the caller's business. The decision is the one of
/// `round::decide`: the remainder against half an ulp, the lower
/// neighbour's parity, or the carry of the random bits into the cut bits.
#[inline(always)]
pub(crate) fn round(neg: bool, sig: u128, exp: i32, prec: u32, qmin: i32, mode: Mode) -> Rounded {
    if sig == 0 {
        return Rounded { sig: 0, q: 0, away: false };
    }
    let q = if prec == 0 { qmin } else { (exp + bitlen(sig) - prec as i32).max(qmin) };
    let cut = q as i64 - exp as i64;
    if cut <= 0 {
        // Already on the grid: the value is kept as it is (same value as at quantum q).
        return Rounded { sig, q: exp, away: false };
    }
    let cut = cut as u32;
    let (kept, rest) = if cut >= 128 { (0, sig) } else { (sig >> cut, sig & ((1u128 << cut) - 1)) };
    if rest == 0 {
        return Rounded { sig: kept, q, away: false };
    }
    // rest against half = 2^(cut-1): rest < 2^128 <= half when cut > 128.
    let half_cmp = if cut > 128 { std::cmp::Ordering::Less } else { rest.cmp(&(1u128 << (cut - 1))) };
    use std::cmp::Ordering::*;
    let away = match mode {
        Mode::TowardZero => false,
        Mode::Down => neg,
        Mode::Up => !neg,
        Mode::NearestAway => half_cmp != Less,
        Mode::NearestEven => half_cmp == Greater || (half_cmp == Equal && kept & 1 == 1),
        Mode::Stochastic { rbits, width } => {
            // The top `width` bits of the fraction, zero-padded when fewer were cut.
            let top = if cut >= width {
                let s = cut - width;
                if s >= 128 {
                    0
                } else {
                    rest >> s
                }
            } else {
                rest << (width - cut)
            };
            let mask = low_mask(width) as u128;
            top + (rbits as u128 & mask) > mask
        }
    };
    Rounded { sig: kept + away as u128, q, away }
}

/// `a_sig × 2^a_exp > b_sig × 2^b_exp` for nonzero `b_sig`.
#[inline(always)]
pub(crate) fn greater(a_sig: u128, a_exp: i32, b_sig: u128, b_exp: i32) -> bool {
    if a_sig == 0 {
        return false;
    }
    let (ma, mb) = (a_exp + bitlen(a_sig), b_exp + bitlen(b_sig));
    if ma != mb {
        return ma > mb;
    }
    // Same top bit: aligning the one with the larger exponent keeps it within 128 bits.
    if a_exp >= b_exp {
        (a_sig << (a_exp - b_exp) as u32) > b_sig
    } else {
        a_sig > (b_sig << (b_exp - a_exp) as u32)
    }
}

/// Exponent of the top bit of a nonzero `sig × 2^exp`.
#[inline(always)]
pub(crate) fn msb(sig: u128, exp: i32) -> i32 {
    exp + bitlen(sig) - 1
}

#[inline(always)]
fn shl_signed(x: u128, s: i32) -> u128 {
    if s >= 0 {
        x << s as u32
    } else {
        x >> (-s) as u32
    }
}

#[inline(always)]
pub(crate) fn place(f: &Fl, neg: bool, code: u64) -> u64 {
    ((if neg { f.sign_bit } else { 0 }) | code) << f.shift
}

/// Bits of a finite magnitude `sig × 2^q` on the format's grid and in range.
#[inline(always)]
pub(crate) fn encode_finite(f: &Fl, neg: bool, sig: u128, q: i32) -> u64 {
    if sig == 0 {
        return place(f, neg, 0);
    }
    let top = msb(sig, q);
    let code = if f.subnormals && top < f.emin {
        shl_signed(sig, q - f.qmin) as u64
    } else {
        let e = (top + f.bias) as u64;
        let frac = shl_signed(sig, q - (top - f.man_bits as i32)) as u64 & low_mask(f.man_bits);
        (e << f.man_bits) | frac
    };
    place(f, neg, code)
}

#[inline(always)]
pub(crate) fn encode_inf(f: &Fl, neg: bool) -> u64 {
    place(f, neg, f.exp_max << f.man_bits)
}

#[inline(always)]
pub(crate) fn encode_max(f: &Fl, neg: bool) -> u64 {
    place(f, neg, f.max_code)
}

/// A quiet NaN with the sign and fraction bits (the quiet bit is set here).
#[inline(always)]
pub(crate) fn encode_nan(f: &Fl, neg: bool, fraction: u64) -> u64 {
    place(f, neg, (f.exp_max << f.man_bits) | f.quiet_bit | (fraction & low_mask(f.man_bits)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fl(f: Format) -> Fl {
        Fl::new(f.float_layout().unwrap())
    }

    // IEEE 754-2008 §4.3 rounding directions on 2.5, 3.5, -2.5 (integer grid).
    #[test]
    fn integer_ties() {
        let r = |neg, sig, exp, m| round(neg, sig, exp, 0, 0, m).sig;
        assert_eq!(r(false, 5, -1, Mode::NearestEven), 2);
        assert_eq!(r(false, 7, -1, Mode::NearestEven), 4);
        assert_eq!(r(false, 5, -1, Mode::NearestAway), 3);
        assert_eq!(r(true, 5, -1, Mode::Down), 3);
        assert_eq!(r(true, 5, -1, Mode::Up), 2);
        assert_eq!(r(true, 5, -1, Mode::TowardZero), 2);
        // 1 + 3/8 with 3 random bits: 3 + 5 carries, 3 + 4 does not.
        assert!(round(false, 11, -3, 0, 0, Mode::Stochastic { rbits: 5, width: 3 }).away);
        assert!(!round(false, 11, -3, 0, 0, Mode::Stochastic { rbits: 4, width: 3 }).away);
        // Far below the grid: below half an ulp.
        assert_eq!(round(false, 1, -1000, 11, -24, Mode::NearestEven).sig, 0);
        assert_eq!(round(false, 1, -1000, 11, -24, Mode::Up).sig, 1);
    }

    // Encodings from the docs/semantics.md §1 table.
    #[test]
    fn codes_round_trip() {
        for f in [
            Format::F16,
            Format::Bf16,
            Format::E4m3,
            Format::E5m2,
            Format::E2m3,
            Format::E3m2,
            Format::E2m1,
            Format::Ue8m0,
        ] {
            let l = fl(f);
            for code in 0..(1u64 << l.width) {
                match decode_float(&l, code) {
                    Val::Num { neg, sig, exp } => {
                        let r = round(neg, sig, exp, l.prec, l.qmin, Mode::NearestEven);
                        assert_eq!(encode_finite(&l, neg, r.sig, r.q), code, "{} {code:x}", f.name());
                    }
                    Val::Inf { neg } => assert_eq!(encode_inf(&l, neg), code),
                    Val::Nan { .. } => {}
                }
            }
        }
        assert_eq!(fl(Format::E4m3).max_code, 0x7e);
        assert_eq!(encode_nan(&fl(Format::F32), false, u64::MAX), 0x7fff_ffff);
        assert_eq!(encode_nan(&fl(Format::Tf32), false, u64::MAX), 0x7fff_e000);
        assert_eq!(encode_nan(&fl(Format::Ue8m0), false, u64::MAX), 0xff);
        assert!(greater(65520, 0, fl(Format::F16).max_sig, fl(Format::F16).max_exp));
    }
}
