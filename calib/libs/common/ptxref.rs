//! An independent reference for the PTX answers of the few forms the Rust
//! calibration adapters map, used ONLY to decide the ground-truth log (does
//! the library's answer differ from PTX's, and which documented difference is
//! the cause). It is not the ptx-cvt oracle: written from the PTX ISA rules
//! (round the exact value once; NaN -> the destination's canonical NaN;
//! `.satfinite` clamps to the largest finite value, infinities included;
//! `.relu` turns negative results into +0; `.ftz` flushes f32 subnormals).
//! `calib/libs/verify.py` cross-checks it against `ptx-cvt check`.

#![allow(dead_code)]

/// A binary floating-point format.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Fmt {
    pub ebits: u32,
    pub mbits: u32,
    /// All-ones exponent means Inf/NaN (IEEE-like).
    pub ieee: bool,
    /// E4M3: only S.1111.111 is NaN.
    pub e4m3_nan: bool,
    /// The largest finite magnitude's encoding (exponent and mantissa fields).
    pub max_enc: u64,
}

impl Fmt {
    pub const fn width(self) -> u32 {
        1 + self.ebits + self.mbits
    }
    pub const fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    pub const fn sign_bit(self) -> u64 {
        1 << (self.ebits + self.mbits)
    }
    pub const fn inf(self) -> u64 {
        ((1 << self.ebits) - 1) << self.mbits
    }
}

const fn ieee(ebits: u32, mbits: u32) -> Fmt {
    Fmt { ebits, mbits, ieee: true, e4m3_nan: false, max_enc: (((1u64 << ebits) - 2) << mbits) | ((1u64 << mbits) - 1) }
}
pub const F64: Fmt = ieee(11, 52);
pub const F32: Fmt = ieee(8, 23);
pub const F16: Fmt = ieee(5, 10);
pub const BF16: Fmt = ieee(8, 7);
pub const E5M2: Fmt = ieee(5, 2);
pub const E4M3: Fmt = Fmt { ebits: 4, mbits: 3, ieee: false, e4m3_nan: true, max_enc: 0x7e };

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Val {
    Nan,
    Inf(bool),
    /// sign, m, e: the value m * 2^e
    Fin(bool, u128, i32),
}

pub fn decode(f: Fmt, bits: u64) -> Val {
    let sign = (bits >> (f.ebits + f.mbits)) & 1 == 1;
    let emask = (1u64 << f.ebits) - 1;
    let e = (bits >> f.mbits) & emask;
    let m = bits & ((1u64 << f.mbits) - 1);
    if f.ieee && e == emask {
        return if m == 0 { Val::Inf(sign) } else { Val::Nan };
    }
    if f.e4m3_nan && e == emask && m == (1 << f.mbits) - 1 {
        return Val::Nan;
    }
    let q = 1 - f.bias() - f.mbits as i32;
    if e == 0 {
        Val::Fin(sign, m as u128, q)
    } else {
        Val::Fin(sign, (m | 1 << f.mbits) as u128, q + e as i32 - 1)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rnd {
    N,
    Z,
    M,
    P,
}

/// The magnitude encoding of m * 2^e rounded once to `f` (sign only steers
/// the directed modes), or None when it is beyond the largest finite value.
pub fn round_mag(f: Fmt, sign: bool, m: u128, e: i32, r: Rnd) -> Option<u64> {
    if m == 0 {
        return Some(0);
    }
    let mb = f.mbits as i32;
    let emin = 1 - f.bias();
    let msb = 127 - m.leading_zeros() as i32;
    let mut q = (msb + e).max(emin) - mb;
    let sh = q - e;
    let mut k: u128;
    if sh <= 0 {
        k = m << (-sh) as u32;
    } else {
        let (kk, rem, half) = if sh >= 128 { (0u128, m, None) } else { (m >> sh, m & ((1u128 << sh) - 1), Some(1u128 << (sh - 1))) };
        k = kk;
        let up = match r {
            Rnd::N => match half {
                Some(h) => rem > h || (rem == h && k & 1 == 1),
                None => false,
            },
            Rnd::Z => false,
            Rnd::P => !sign && rem != 0,
            Rnd::M => sign && rem != 0,
        };
        if up {
            k += 1;
        }
    }
    if k >= 1u128 << (mb + 1) {
        k >>= 1;
        q += 1;
    }
    let enc = if k >= 1u128 << mb {
        let biased = q + mb + f.bias();
        if biased >= 1 << f.ebits {
            return None;
        }
        ((biased as u64) << mb) | (k as u64 - (1u64 << mb))
    } else {
        k as u64
    };
    if enc > f.max_enc {
        None
    } else {
        Some(enc)
    }
}

/// What PTX accepts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ans {
    Bits(u64),
    AnyNan,
}

/// Canonical NaN of a destination format as PTX writes it.
pub fn canonical_nan(f: Fmt) -> u64 {
    if f == E4M3 || f == E5M2 {
        0x7f
    } else {
        f.sign_bit() - 1 // 0x7fff, 0x7fffffff, ...
    }
}

/// A float-to-float conversion as PTX defines it (one rounding of the exact
/// value), for a narrowing or widening between the formats above.
pub fn ptx_convert(dst: Fmt, v: Val, r: Rnd, satfinite: bool, relu: bool, nan: Ans) -> Ans {
    let res = match v {
        Val::Nan => return nan,
        Val::Inf(s) => {
            if satfinite {
                (s, dst.max_enc)
            } else {
                (s, dst.inf())
            }
        }
        Val::Fin(s, m, e) => match round_mag(dst, s, m, e, r) {
            Some(enc) => (s, enc),
            None => {
                let to_max = satfinite
                    || !dst.ieee
                    || match r {
                        Rnd::N => false,
                        Rnd::Z => true,
                        Rnd::P => s,
                        Rnd::M => !s,
                    };
                (s, if to_max { dst.max_enc } else { dst.inf() })
            }
        },
    };
    let (s, enc) = res;
    if relu && s {
        return Ans::Bits(0);
    }
    Ans::Bits(if s { enc | dst.sign_bit() } else { enc })
}
