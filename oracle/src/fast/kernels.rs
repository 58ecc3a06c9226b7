//! Batch kernels: the fast engine's lane rules for the most used scalar
//! forms, specialised at compile time (layouts from the format table, the
//! rounding mode a constant) and written without branches on `u64`, so that
//! LLVM vectorises the slice loop. The widest vector unit the CPU has is
//! picked at run time (AVX-512, AVX2, or the x86-64 baseline).
//!
//! Each kernel computes what `Plan::eval(..).representative()` computes for
//! its forms (tests/fast.rs compares them on every vector unit); forms outside
//! the kernels' reach take the generic path.
//!
//! Three shapes, each an instance of the fast engine's one rounding rule
//! (`arith::round`): the result's quantum `q` is found from the value's top
//! bit, the significand is cut at `q`, the decision is taken on the cut bits,
//! and the code is `((q - qmin) << man_bits) + kept + away`, so a carry out
//! of the significand moves into the exponent field by itself.

use super::arith::Fl;
use super::{NanPlan, Plan};
use crate::format::{low_mask, Format};
use crate::instr::Family;
use crate::round::Mode;

/// Rounding modes as compile-time constants.
const RN: u8 = 0;
const RZ: u8 = 1;
const RM: u8 = 2;
const RP: u8 = 3;

fn mode_const(m: Mode) -> Option<u8> {
    match m {
        Mode::NearestEven => Some(RN),
        Mode::TowardZero => Some(RZ),
        Mode::Down => Some(RM),
        Mode::Up => Some(RP),
        Mode::NearestAway | Mode::Stochastic { .. } => None,
    }
}

/// The layout constants of a float format, at compile time.
const fn fl(f: u8) -> Fl {
    Fl::new(&Format::ALL[f as usize].float_layout_const())
}

/// IEEE formats with subnormals, stored at bit 0: what the kernels assume.
const fn plain_ieee(l: &Fl) -> bool {
    l.has_inf() && l.subnormals && l.signed && l.shift == 0
}

#[inline(always)]
fn sel(c: bool, a: u64, b: u64) -> u64 {
    if c {
        a
    } else {
        b
    }
}

/// Cut `cut` (< 64) low bits off `sig`: the kept bits and whether mode `M`
/// rounds away from zero (`round::decide`).
#[inline(always)]
fn cut_round<const M: u8>(neg: bool, sig: u64, cut: u32) -> (u64, bool) {
    let kept = sig >> cut;
    let rest = sig & ((1u64 << cut) - 1);
    let half = (1u64 << cut) >> 1;
    let inexact = rest != 0;
    let away = match M {
        RN => rest > half || (inexact && rest == half && kept & 1 == 1),
        RZ => false,
        RM => neg && inexact,
        _ => !neg && inexact,
    };
    (kept, away)
}

/// Overflow goes to infinity (IEEE 754 §7.4; `encode::fit`)?
#[inline(always)]
fn overflow_to_inf<const M: u8>(neg: bool) -> bool {
    match M {
        RN => true,
        RZ => false,
        RM => neg,
        _ => !neg,
    }
}

/// A source float code taken apart: sign, exponent and fraction fields.
struct Fields {
    neg: bool,
    e: u64,
    m: u64,
}

#[inline(always)]
fn fields(s: &Fl, x: u64) -> Fields {
    let code = x & low_mask(s.width);
    let mag = code & !s.sign_bit;
    Fields { neg: code & s.sign_bit != 0, e: mag >> s.man_bits, m: mag & low_mask(s.man_bits) }
}

/// The finite value of the fields as `sig × 2^exp`, and an upper bound of
/// its top bit's exponent (exact for normals).
#[inline(always)]
fn value(s: &Fl, f: &Fields, flush: bool) -> (u64, i64, i64) {
    let sub = f.e == 0;
    let sig = sel(sub && flush, 0, f.m | sel(sub, 0, 1u64 << s.man_bits));
    let field = f.e as i64 + sub as i64;
    (sig, field - s.bias as i64 - s.man_bits as i64, field - s.bias as i64)
}

/// One lane of a form, applied over a slice by [`run`].
trait Lane: Copy {
    fn lane(&self, x: u64) -> u64;
}

/// Float → narrower float (f64→f32/f16/bf16, f32→f16/bf16), no .sat, .relu,
/// .satfinite or result flush; an f32 source may be flushed (.ftz).
#[derive(Clone, Copy)]
struct Narrow<const S: u8, const D: u8, const M: u8> {
    flush: bool,
    /// NaN result: these bits, or the source payload under the quiet bit.
    nan: u64,
    payload: bool,
}

impl<const S: u8, const D: u8, const M: u8> Lane for Narrow<S, D, M> {
    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let (s, d) = const {
            let (s, d) = (fl(S), fl(D));
            // A source subnormal then lands on the destination's bottom quantum,
            // so its top bit need not be found.
            assert!(plain_ieee(&s) && plain_ieee(&d) && s.prec >= d.prec && s.emin <= d.emin);
            (s, d)
        };
        let f = fields(&s, x);
        let (sig, exp, top) = value(&s, &f, self.flush);
        let q = (top - (d.prec as i64 - 1)).max(d.qmin as i64);
        // q >= exp here; past prec+1 bits everything is below half an ulp.
        let cut = (q - exp).min(s.prec as i64 + 1) as u32;
        let (kept, away) = cut_round::<M>(f.neg, sig, cut);
        let code = (((q - d.qmin as i64) as u64) << d.man_bits) + kept + away as u64;
        let inf = d.exp_max << d.man_bits;
        let finite = sel(code > d.max_code, sel(overflow_to_inf::<M>(f.neg), inf, d.max_code), code);
        let special = f.e == s.exp_max;
        let bits = sel(special, inf, finite) | sel(f.neg, d.sign_bit, 0);
        let payload = (f.m & (s.quiet_bit - 1)) >> (s.man_bits - d.man_bits);
        let nan = sel(self.payload, sel(f.neg, d.sign_bit, 0) | inf | d.quiet_bit | payload, self.nan);
        sel(special && f.m != 0, nan, bits)
    }
}

/// Float → integer (rni, rzi, rmi, rpi; saturating), any integer width.
#[derive(Clone, Copy)]
struct ToInt<const S: u8, const M: u8> {
    flush: bool,
    /// Largest positive result; largest magnitude of a negative result and its bits.
    pos_max: u64,
    neg_max: u64,
    neg_limit: u64,
    nan: u64,
    mask: u64,
}

impl<const S: u8, const M: u8> Lane for ToInt<S, M> {
    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let s = const {
            let s = fl(S);
            assert!(plain_ieee(&s) && s.prec < 63);
            s
        };
        let f = fields(&s, x);
        let (sig, exp, top) = value(&s, &f, self.flush);
        let (kept, away) = cut_round::<M>(f.neg, sig, (-exp).clamp(0, s.prec as i64 + 1) as u32);
        let mag = (kept << exp.clamp(0, 63) as u32) + away as u64;
        // 2^64 and above (and ±Inf) saturate every destination.
        let big = top >= 64 || f.e == s.exp_max;
        let pos = sel(big || mag > self.pos_max, self.pos_max, mag);
        let neg = sel(big || mag > self.neg_max, self.neg_limit, mag.wrapping_neg());
        let r = sel(f.neg, neg, pos);
        sel(f.e == s.exp_max && f.m != 0, self.nan, r) & self.mask
    }
}

/// Integer (any width, signed or not) → float.
#[derive(Clone, Copy)]
struct FromInt<const D: u8, const M: u8> {
    bits: u32,
    signed: bool,
}

impl<const D: u8, const M: u8> Lane for FromInt<D, M> {
    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let d = const {
            let d = fl(D);
            assert!(plain_ieee(&d) && d.qmin <= 0);
            d
        };
        let v = x & low_mask(self.bits);
        let neg = self.signed && (v >> (self.bits - 1)) & 1 == 1;
        let mag = sel(neg, (v | !low_mask(self.bits)).wrapping_neg(), v);
        let top = 63 - mag.leading_zeros() as i64;
        let q = (top - (d.prec as i64 - 1)).max(d.qmin as i64);
        let (kept, away) = cut_round::<M>(neg, mag, q.clamp(0, 63) as u32);
        let code = (((q - d.qmin as i64) as u64) << d.man_bits) + (kept << (-q).clamp(0, 63) as u32) + away as u64;
        let inf = d.exp_max << d.man_bits;
        let finite = sel(code > d.max_code, sel(overflow_to_inf::<M>(neg), inf, d.max_code), code);
        sel(mag == 0, 0, finite | sel(neg, d.sign_bit, 0))
    }
}

#[inline(always)]
fn drive<K: Lane>(k: K, inputs: &[u64], out: &mut [u64]) {
    for (o, &x) in out.iter_mut().zip(inputs) {
        *o = k.lane(x);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn drive_avx512<K: Lane>(k: K, inputs: &[u64], out: &mut [u64]) {
    drive(k, inputs, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn drive_avx2<K: Lane>(k: K, inputs: &[u64], out: &mut [u64]) {
    drive(k, inputs, out)
}

/// Which vector unit a kernel runs on.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// The best the CPU has.
    Best,
    /// The x86-64 baseline (SSE2), or whatever the build targets elsewhere.
    Baseline,
    Avx2,
    Avx512,
}

impl Isa {
    /// Whether this CPU can run kernels built for `self`.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = || {
                is_x86_feature_detected!("avx2")
                    && is_x86_feature_detected!("bmi1")
                    && is_x86_feature_detected!("bmi2")
                    && is_x86_feature_detected!("lzcnt")
                    && is_x86_feature_detected!("popcnt")
            };
            match self {
                Isa::Best | Isa::Baseline => true,
                Isa::Avx2 => avx2(),
                Isa::Avx512 => {
                    avx2()
                        && is_x86_feature_detected!("avx512f")
                        && is_x86_feature_detected!("avx512vl")
                        && is_x86_feature_detected!("avx512bw")
                        && is_x86_feature_detected!("avx512dq")
                        && is_x86_feature_detected!("avx512cd")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        matches!(self, Isa::Best | Isa::Baseline)
    }

    /// The unit the kernels run on: the best this CPU has for `Best`, `self`
    /// if the CPU has it, the baseline otherwise.
    fn resolve(self) -> Isa {
        match self {
            Isa::Best if Isa::Avx512.available() => Isa::Avx512,
            Isa::Best if Isa::Avx2.available() => Isa::Avx2,
            Isa::Avx512 | Isa::Avx2 if self.available() => self,
            _ => Isa::Baseline,
        }
    }
}

fn run<K: Lane>(k: K, isa: Isa, inputs: &[u64], out: &mut [u64]) {
    match isa.resolve() {
        // SAFETY: `resolve` gives these units only when the CPU has every
        // feature the functions are compiled for.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { drive_avx512(k, inputs, out) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { drive_avx2(k, inputs, out) },
        _ => drive(k, inputs, out),
    }
}

/// `$body` with the const item `$name` bound to the format `$f` (one of the
/// listed ones; otherwise no kernel: `false`).
macro_rules! with_format {
    ($f:expr, [$($fmt:ident),*], |$name:ident| $body:expr) => {
        match $f {
            $(Format::$fmt => {
                const $name: u8 = Format::$fmt as u8;
                $body
            })*
            _ => false,
        }
    };
}

/// `$body` with the const item `$name` bound to the rounding mode `$m`.
macro_rules! with_mode {
    ($m:expr, |$name:ident| $body:expr) => {
        match $m {
            RN => {
                const $name: u8 = RN;
                $body
            }
            RZ => {
                const $name: u8 = RZ;
                $body
            }
            RM => {
                const $name: u8 = RM;
                $body
            }
            _ => {
                const $name: u8 = RP;
                $body
            }
        }
    };
}

/// Run the kernel for `plan`'s form, if there is one (false: use the generic path).
pub(super) fn try_run(plan: &Plan, isa: Isa, inputs: &[u64], out: &mut [u64]) -> bool {
    let c = &plan.c;
    if plan.packed || c.sat && plan.family != Family::FloatToInt || c.relu || c.satfinite || plan.ftz_out {
        return false;
    }
    if plan.dst_width != c.dtype.bits() || plan.dst_mask != low_mask(plan.dst_width) {
        return false;
    }
    let Some(m) = mode_const(plan.mode) else {
        return false;
    };
    let (sf, df) = (c.atype.format(), c.dtype.format());
    match plan.family {
        Family::Narrow => {
            let (nan, payload) = match plan.nan {
                NanPlan::Fixed(b) => (b, false),
                NanPlan::Payload => (0, true),
                NanPlan::Any | NanPlan::Copy => (super::canonical_nan(df), false),
            };
            with_format!(sf, [F64, F32], |S| with_format!(df, [F32, F16, Bf16], |D| with_mode!(m, |M| {
                run(Narrow::<S, D, M> { flush: plan.ftz_in, nan, payload }, isa, inputs, out);
                true
            })))
        }
        Family::FloatToInt => {
            // Saturation bounds: int_lo is 0 for unsigned destinations.
            let (pos_max, neg_max, neg_limit) =
                (plan.int_hi as u64, plan.int_lo.unsigned_abs() as u64, plan.int_lo as u64);
            let mask = low_mask(plan.d_bits);
            with_format!(sf, [F16, Bf16, F32, F64], |S| with_mode!(m, |M| {
                run(
                    ToInt::<S, M> { flush: plan.ftz_in, pos_max, neg_max, neg_limit, nan: plan.nan_int, mask },
                    isa,
                    inputs,
                    out,
                );
                true
            }))
        }
        Family::IntToFloat if !c.ftz => {
            let super::Lf::Int { bits, signed } = plan.src else {
                return false;
            };
            with_format!(df, [F16, Bf16, F32, F64], |D| with_mode!(m, |M| {
                run(FromInt::<D, M> { bits, signed }, isa, inputs, out);
                true
            }))
        }
        _ => false,
    }
}
