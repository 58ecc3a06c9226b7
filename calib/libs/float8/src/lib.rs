//! ptx-cvt calibration adapter for the `float8` crate (=0.7.0): each PTX FP8
//! form it can express is mapped to the crate's one natural conversion
//! (`F8E4M3::from_f32`, `F8E5M2::from_f32`, `to_f16`, `to_f32`), as a naive
//! porter would. See calib/libs/README.md.
//!
//! Ground truth: with FLOAT8_CALIB_LOG set, each case whose answer differs
//! from PTX's is appended there as `KEY<TAB>DEFECT`.

#[path = "../../common/adapter.rs"]
mod adapter;
#[path = "../../common/ptxref.rs"]
mod ptxref;

use adapter::{Answer, Form};
use float8::{F8E4M3, F8E5M2};
use half::{bf16, f16};
use ptxref::*;

const LOG_ENV: &str = "FLOAT8_CALIB_LOG";

// The documented differences (README.md, "float8").
const NAN: &str = "nan-not-canonical";
const RND: &str = "rounding-modifier-ignored";
const UNEXPLAINED: &str = "unexplained";

fn f8_fmt(t: &str) -> Option<Fmt> {
    match t {
        "e4m3x2" => Some(E4M3),
        "e5m2x2" => Some(E5M2),
        _ => None,
    }
}

/// One byte lane of a narrowing to FP8 from an f32 value (the exact value of
/// the source lane, whatever its format).
fn narrow_lane(f: &Form, df: Fmt, x: f32, src: Val) -> (u64, Option<&'static str>) {
    let mut got = if df == E4M3 { F8E4M3::from_f32(x).to_bits() } else { F8E5M2::from_f32(x).to_bits() } as u64;
    // `.relu`: a negative (non-NaN) result becomes +0.
    if f.has("relu") && got & 0x80 != 0 && !matches!(decode(df, got), Val::Nan) {
        got = 0;
    }
    let r = if f.rnd == Some("rz") { Rnd::Z } else { Rnd::N };
    let want = ptx_convert(df, src, r, true, f.has("relu"), Ans::Bits(canonical_nan(df)));
    if want == Ans::Bits(got) {
        return (got, None);
    }
    let cause = if src == Val::Nan {
        NAN
    } else if r == Rnd::Z {
        RND
    } else {
        UNEXPLAINED
    };
    (got, Some(cause))
}

/// One lane of a widening from FP8 to f16/bf16.
fn widen_lane(f: &Form, d: &str, sf: Fmt, b: u8) -> (u64, Option<&'static str>) {
    let h = if sf == E4M3 { F8E4M3::from_bits(b).to_f16() } else { F8E5M2::from_bits(b).to_f16() };
    let (df, mut got) = if d == "f16" { (F16, h.to_bits() as u64) } else { (BF16, bf16::from_f32(h.to_f32()).to_bits() as u64) };
    if f.has("relu") && got & 0x8000 != 0 && !matches!(decode(df, got), Val::Nan) {
        got = 0;
    }
    let src = decode(sf, b as u64);
    let want = ptx_convert(df, src, Rnd::N, false, f.has("relu"), Ans::Bits(canonical_nan(df)));
    if want == Ans::Bits(got) {
        return (got, None);
    }
    (got, Some(if src == Val::Nan { NAN } else { UNEXPLAINED }))
}

fn convert(f: &Form, ops: &[u64], _dst_width: u32) -> Result<Answer, String> {
    let name = f.name();
    let unsupported = || Err(format!("float8 has no conversion for {name}"));
    let mut defects = Vec::new();
    if let Some(df) = f8_fmt(f.d) {
        // Narrowing to FP8x2 (PTX requires .satfinite; the crate always saturates).
        if !matches!(f.rnd, Some("rn" | "rz")) || !f.has("satfinite") || !f.only(&["satfinite", "relu"]) {
            return unsupported();
        }
        let lanes: [(f32, Val); 2] = match (f.a, ops.len()) {
            ("f32", 2) => {
                let l = |x: u64| (f32::from_bits(x as u32), decode(F32, x & 0xffff_ffff));
                [l(ops[0]), l(ops[1])]
            }
            ("f16x2" | "bf16x2", 1) => {
                let sf = if f.a == "f16x2" { F16 } else { BF16 };
                let l = |h: u64| {
                    let x = if sf == F16 { f16::from_bits(h as u16).to_f32() } else { bf16::from_bits(h as u16).to_f32() };
                    (x, decode(sf, h))
                };
                [l(ops[0] >> 16 & 0xffff), l(ops[0] & 0xffff)]
            }
            _ => return unsupported(),
        };
        let (hi, c1) = narrow_lane(f, df, lanes[0].0, lanes[0].1);
        let (lo, c2) = narrow_lane(f, df, lanes[1].0, lanes[1].1);
        defects.extend(c1);
        defects.extend(c2);
        return Ok(Answer { bits: hi << 8 | lo, defects });
    }
    if let (Some(sf), "f16x2" | "bf16x2") = (f8_fmt(f.a), f.d) {
        if f.rnd != Some("rn") || !f.only(&["relu"]) || ops.len() != 1 {
            return unsupported();
        }
        let d = &f.d[..f.d.len() - 2];
        let (hi, c1) = widen_lane(f, d, sf, (ops[0] >> 8) as u8);
        let (lo, c2) = widen_lane(f, d, sf, ops[0] as u8);
        defects.extend(c1);
        defects.extend(c2);
        return Ok(Answer { bits: hi << 16 | lo, defects });
    }
    unsupported()
}

export_cvt_impl!(convert, LOG_ENV);
