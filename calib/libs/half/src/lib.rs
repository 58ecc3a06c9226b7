//! ptx-cvt calibration adapter for the `half` crate (=2.7.1): each PTX form
//! it can express is mapped to the crate's one natural conversion
//! (`f16::from_f32`, `f16::from_f64`, `bf16::from_f32`, `bf16::from_f64`,
//! `to_f32`, `to_f64`), as a naive porter would. See calib/libs/README.md.
//!
//! Ground truth: with HALF_CALIB_LOG set, each case whose answer differs
//! from PTX's is appended there as `KEY<TAB>DEFECT`.

#[path = "../../common/adapter.rs"]
mod adapter;
#[path = "../../common/ptxref.rs"]
mod ptxref;

use adapter::{Answer, Form};
use half::{bf16, f16};
use ptxref::*;

const LOG_ENV: &str = "HALF_CALIB_LOG";

// The documented differences (README.md, "half").
const NAN: &str = "nan-payload-kept";
const RND: &str = "rounding-modifier-ignored";
const F64_F16: &str = "f64-f16-via-f32";
const F64_BF16: &str = "f64-bf16-low-word-dropped";
const FTZ: &str = "ftz-ignored";
const SNAN_QUIETED: &str = "snan-quieted";
const UNEXPLAINED: &str = "unexplained";
/// Only correcting several differences together fixes the case.
const INTERACTION: &str = "interaction";

fn fmt_of(t: &str) -> Option<Fmt> {
    Some(match t {
        "f16" => F16,
        "bf16" => BF16,
        "f32" => F32,
        "f64" => F64,
        _ => return None,
    })
}

fn rnd_of(r: Option<&str>) -> Rnd {
    match r {
        Some("rz") => Rnd::Z,
        Some("rm") => Rnd::M,
        Some("rp") => Rnd::P,
        _ => Rnd::N,
    }
}

/// The library's narrowing of one source value to f16/bf16 (16 bits).
fn lib_narrow(d: &str, a: &str, x: u64) -> u16 {
    match (d, a) {
        ("f16", "f32") => f16::from_f32(f32::from_bits(x as u32)).to_bits(),
        ("f16", "f64") => f16::from_f64(f64::from_bits(x)).to_bits(),
        ("bf16", "f32") => bf16::from_f32(f32::from_bits(x as u32)).to_bits(),
        ("bf16", "f64") => bf16::from_f64(f64::from_bits(x)).to_bits(),
        // No direct f16 <-> bf16 conversion: through f32, as the docs suggest.
        ("bf16", "f16") => bf16::from_f32(f16::from_bits(x as u16).to_f32()).to_bits(),
        ("f16", "bf16") => f16::from_f32(bf16::from_bits(x as u16).to_f32()).to_bits(),
        _ => unreachable!(),
    }
}

/// One lane of a narrowing form: the library's answer (with the simple
/// `.relu`/`.satfinite` emulation) and the causes of a difference from PTX.
fn narrow_lane(f: &Form, d: &str, a: &str, x: u64) -> (u64, Vec<&'static str>) {
    let (df, af) = (fmt_of(d).unwrap(), fmt_of(a).unwrap());
    let x = x & (if af.width() == 64 { u64::MAX } else { (1u64 << af.width()) - 1 });
    let mut got = lib_narrow(d, a, x) as u64;
    let is_nan = |b: u64| matches!(decode(df, b), Val::Nan);
    // `.satfinite`: an infinite result becomes the largest finite value of its sign.
    if f.has("satfinite") && matches!(decode(df, got), Val::Inf(_)) {
        got = (got & df.sign_bit()) | df.max_enc;
    }
    // `.relu`: a negative (non-NaN) result becomes +0.
    if f.has("relu") && got & df.sign_bit() != 0 && !is_nan(got) {
        got = 0;
    }
    // PTX: the exact source rounded once; `.ftz` flushes an f32 subnormal
    // source for a bf16 destination (for f16 it does not: ptx-cvt's
    // `ftz-f16-f32-erratum`, sm_90 hardware).
    let mut v = decode(af, x);
    let ftz_hit = f.has("ftz") && af == F32 && df == BF16 && matches!(v, Val::Fin(_, m, _) if m != 0 && m < 1 << 23);
    if ftz_hit {
        if let Val::Fin(s, _, _) = v {
            v = Val::Fin(s, 0, 0);
        }
    }
    let want = ptx_convert(df, v, rnd_of(f.rnd), f.has("satfinite"), f.has("relu"), Ans::Bits(canonical_nan(df)));
    if want == Ans::Bits(got) {
        return (got, Vec::new());
    }
    // The ground truth, as for the mutants: each documented difference whose
    // correction alone gives PTX's answer; `interaction` where none does.
    // The library rounds to nearest, does not flush, and takes its own path
    // for f64 sources (F16C rounds to f32 first; the bf16 one drops the low
    // 32 bits).
    let (sat, relu) = (f.has("satfinite"), f.has("relu"));
    let fixes = |v: Val, r: Rnd| ptx_convert(df, v, r, sat, relu, Ans::AnyNan) == want;
    let unflushed = decode(af, x);
    let (path, on_path) = match (d, a) {
        ("f16", "f64") => (Some(F64_F16), decode(F32, (f64::from_bits(x) as f32).to_bits() as u64)),
        ("bf16", "f64") => (Some(F64_BF16), decode(F64, x & !0xffff_ffff)),
        _ => (None, unflushed),
    };
    let causes: Vec<&'static str> = if matches!(unflushed, Val::Nan) {
        vec![NAN]
    } else {
        let mut causes = Vec::new();
        if f.rnd != Some("rn") && fixes(on_path, rnd_of(f.rnd)) {
            causes.push(RND);
        }
        if ftz_hit && fixes(v, Rnd::N) {
            causes.push(FTZ);
        }
        if path.is_some() && fixes(unflushed, Rnd::N) {
            causes.extend(path);
        }
        if causes.is_empty() {
            causes.push(INTERACTION);
        }
        causes
    };
    (got, causes)
}

fn convert(f: &Form, ops: &[u64], _dst_width: u32) -> Result<Answer, String> {
    let unsupported = || Err(format!("half has no conversion for {}", f.name()));
    let mut defects = Vec::new();
    match (f.d, f.a) {
        // Narrowing to f16/bf16 (scalar).
        ("f16" | "bf16", "f32" | "f64" | "f16" | "bf16") if f.d != f.a => {
            if !matches!(f.rnd, Some("rn" | "rz" | "rm" | "rp")) || !f.only(&["relu", "satfinite", "ftz"]) || ops.len() != 1 {
                return unsupported();
            }
            let (bits, cause) = narrow_lane(f, f.d, f.a, ops[0]);
            defects.extend(cause);
            Ok(Answer { bits, defects })
        }
        // Two f32 -> packed f16x2/bf16x2: a in the upper half, b in the lower.
        ("f16x2" | "bf16x2", "f32") => {
            if !matches!(f.rnd, Some("rn" | "rz")) || !f.only(&["relu", "satfinite"]) || ops.len() != 2 {
                return unsupported();
            }
            let d = &f.d[..f.d.len() - 2];
            let (hi, c1) = narrow_lane(f, d, "f32", ops[0]);
            let (lo, c2) = narrow_lane(f, d, "f32", ops[1]);
            defects.extend(c1);
            defects.extend(c2);
            Ok(Answer { bits: hi << 16 | lo, defects })
        }
        // Widening f16/bf16 -> f32/f64 (exact; any rounding modifier is moot).
        ("f32" | "f64", "f16" | "bf16") => {
            if !f.only(&["ftz"]) || ops.len() != 1 || !matches!(f.rnd, None | Some("rn" | "rz" | "rm" | "rp")) {
                return unsupported();
            }
            let x = ops[0] & 0xffff;
            let got = match (f.d, f.a) {
                ("f32", "f16") => f16::from_bits(x as u16).to_f32().to_bits() as u64,
                ("f64", "f16") => f16::from_bits(x as u16).to_f64().to_bits(),
                ("f32", "bf16") => bf16::from_bits(x as u16).to_f32().to_bits() as u64,
                _ => bf16::from_bits(x as u16).to_f64().to_bits(),
            };
            let (df, af) = (fmt_of(f.d).unwrap(), fmt_of(f.a).unwrap());
            let mut v = decode(af, x);
            // .ftz flushes an f32 subnormal result (only bf16 subnormals give one).
            let ftz_hit = f.has("ftz") && f.d == "f32" && matches!(v, Val::Fin(_, m, e) if m != 0 && (127 - m.leading_zeros() as i32 + e) < -126);
            if ftz_hit {
                if let Val::Fin(s, _, _) = v {
                    v = Val::Fin(s, 0, 0);
                }
            }
            // PTX: f16 -> f32 NaN is the canonical NaN; bf16 -> f32 keeps the
            // bits without `.ftz`, a signalling NaN too (ptx-cvt's sm90 profile,
            // semantics version 5: the SASS shifts the bits); the rest accept any NaN.
            let nan = match (f.d, f.a) {
                ("f32", "f16") => Ans::Bits(canonical_nan(F32)),
                ("f32", "bf16") if !f.has("ftz") => Ans::Bits(x << 16),
                _ => Ans::AnyNan,
            };
            let want = ptx_convert(df, v, Rnd::N, false, false, nan);
            let ok = want == Ans::Bits(got) || (want == Ans::AnyNan && matches!(decode(df, got), Val::Nan));
            if !ok {
                defects.push(if v == Val::Nan && f.a == "bf16" {
                    SNAN_QUIETED
                } else if v == Val::Nan {
                    NAN
                } else if ftz_hit {
                    FTZ
                } else {
                    UNEXPLAINED
                });
            }
            Ok(Answer { bits: got, defects })
        }
        _ => unsupported(),
    }
}

export_cvt_impl!(convert, LOG_ENV);
