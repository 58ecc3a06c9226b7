//! The floating-point instructions of the modelled sequences, by their
//! documented behaviour: compares are IEEE 754 ordered or unordered compares;
//! an FP32/FP16/BF16 arithmetic result that is NaN is the canonical NaN
//! (`7fffffff`, `7fff`; docs/semantics.md §5.9, `nan-canonical`); `.FTZ`
//! flushes a subnormal f32 operand to a zero of its sign; F2F is the IEEE
//! conversion (the oracle's own `cvt.rX.f32.f64` and `cvt.f64.f32`, whose NaN
//! rule is `nan-payload`). Register bits in, register bits out.

use std::cell::RefCell;

use crate::fast::{FastResult, Plan};

const F32_ABS: u32 = 0x7fff_ffff;
const F32_INF: u32 = 0x7f80_0000;
const F64_ABS: u64 = 0x7fff_ffff_ffff_ffff;
const F64_INF: u64 = 0x7ff0_0000_0000_0000;

fn f32_is_nan(x: u32) -> bool {
    x & F32_ABS > F32_INF
}

fn f32_is_subnormal(x: u32) -> bool {
    x & F32_INF == 0 && x & 0x007f_ffff != 0
}

/// `FSETP.GEU.AND P, PT, |x|, +INF, PT`: |x| ≥ ∞ or unordered, so true
/// exactly for ±Inf and NaN.
pub fn fsetp_geu_abs_inf(x: u32) -> bool {
    x & F32_ABS >= F32_INF
}

/// `FSETP.GEU.AND P, PT, |x|, y, PT` for a positive finite `y`: true for NaN.
pub fn fsetp_geu_abs(x: u32, y: u32) -> bool {
    f32_is_nan(x) || x & F32_ABS >= y
}

/// `DSETP.GEU.AND P, PT, |x|, y, PT` for a positive finite `y`: true for NaN.
/// Magnitudes of non-NaN doubles order like their bits.
pub fn dsetp_geu_abs(x: u64, y: u64) -> bool {
    x & F64_ABS > F64_INF || x & F64_ABS >= y
}

/// `DSETP.GT.AND P, PT, t, |x|, PT` for a positive finite `t`: false for NaN.
pub fn dsetp_gt_abs(t: u64, x: u64) -> bool {
    x & F64_ABS <= F64_INF && t > x & F64_ABS
}

/// `FMUL.FTZ d, x, 1`: x, a subnormal flushed to a zero of its sign, a NaN canonical.
pub fn fmul_ftz_one(x: u32) -> u32 {
    if f32_is_nan(x) {
        0x7fff_ffff
    } else if f32_is_subnormal(x) {
        x & 0x8000_0000
    } else {
        x
    }
}

/// `FADD.FTZ d, x, -RZ`: x + (−0), the same as [`fmul_ftz_one`] (−0 + −0 = −0, +0 + −0 = +0).
pub fn fadd_ftz_minus_zero(x: u32) -> u32 {
    fmul_ftz_one(x)
}

/// `FADD.SAT d, RZ, x`: 0 + x clamped to [0, 1]: a NaN, every negative
/// value and −0 give +0 (+0 + −0 = +0); subnormals are kept (no `.FTZ`).
pub fn fadd_sat_zero(x: u32) -> u32 {
    if f32_is_nan(x) || x >> 31 != 0 {
        0
    } else {
        x.min(0x3f80_0000)
    }
}

/// `HADD2 d, x.H0_H0, -RZ.H0_H0` on an f16: x (f16 subnormals are kept), a NaN canonical.
pub fn hadd2_minus_zero(x: u16) -> u16 {
    if x & 0x7fff > 0x7c00 {
        0x7fff
    } else {
        x
    }
}

/// `HFMA2.BF16_V2 d, -RZ.H0_H0, RZ.H0_H0, x.H0_H0` on a bf16: −0·0 + x = x, a NaN canonical.
pub fn hfma2_bf16_minus_zero(x: u16) -> u16 {
    if x & 0x7fff > 0x7f80 {
        0x7fff
    } else {
        x
    }
}

/// `F2F.F64.F32`: the exact widening; a NaN keeps its sign and payload, quiet bit set.
pub fn f2f_f64_f32(x: u32) -> u64 {
    let sign = ((x >> 31) as u64) << 63;
    let (e, m) = ((x >> 23) & 0xff, (x & 0x007f_ffff) as u64);
    match (e, m) {
        (0xff, 0) => sign | F64_INF,
        (0xff, m) => sign | F64_INF | 1 << 51 | m << 29,
        (0, 0) => sign,
        (0, m) => {
            // value m·2^-149: normalise to 1.f·2^(p-149), p the msb of m.
            let p = 63 - m.leading_zeros() as u64;
            sign | (p + 1023 - 149) << 52 | (m << (52 - p)) & ((1 << 52) - 1)
        }
        (e, m) => sign | (e as u64 + 1023 - 127) << 52 | m << 29,
    }
}

thread_local! {
    /// Prepared `cvt.{rn,rz,rm,rp}.f32.f64` plans.
    static F2F: RefCell<Vec<(&'static str, Plan)>> = const { RefCell::new(Vec::new()) };
}

/// `F2F.F32.F64{,.RZ,.RM,.RP}` (no `.FTZ`): the IEEE conversion with
/// rounding `mode` ("rn", "rz", "rm", "rp"), subnormal results kept.
pub fn f2f_f32_f64(x: u64, mode: &'static str) -> u32 {
    F2F.with(|plans| {
        let mut plans = plans.borrow_mut();
        let i = match plans.iter().position(|(m, _)| *m == mode) {
            Some(i) => i,
            None => {
                let c = format!("cvt.{mode}.f32.f64").parse().expect("a valid spelling");
                plans.push((mode, Plan::new(&c, 64, 32).expect("legal")));
                plans.len() - 1
            }
        };
        match plans[i].1.eval1(x) {
            FastResult::Bits(b) => b as u32,
            other => unreachable!("cvt.{mode}.f32.f64 answers one value, not {other:?}"),
        }
    })
}

/// `FMUL d, r, 1.175494350822287508e-38` (2^-126, round to nearest even, no
/// `.FTZ`). The product of an f32 and a power of two is exact in f64, so it
/// is r widened, scaled, then rounded once by [`f2f_f32_f64`].
pub fn fmul_min_normal(r: u32) -> u32 {
    if f32_is_nan(r) {
        return 0x7fff_ffff;
    }
    let w = f2f_f64_f32(r);
    if w & F64_ABS == 0 || w & F64_ABS == F64_INF {
        return r;
    }
    // Every nonzero f32 widens to a normal f64 with exponent ≥ −149: −126 more stays normal.
    f2f_f32_f64(w - (126u64 << 52), "rn")
}
