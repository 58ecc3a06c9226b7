//! Batch kernels: the fast engine's lane rules for the most used scalar
//! forms, specialised at compile time (layouts from the format table, the
//! rounding mode a constant) and written without branches on `u64`, so that
//! LLVM vectorises the slice loop. The widest vector unit the CPU has is
//! picked at run time (AVX-512, AVX2, or the x86-64 baseline).
//!
//! Each kernel computes what `Plan::eval(..).representative()` computes for
//! its forms (tests/fast.rs compares them on every vector unit); forms outside
//! the kernels' reach take the generic path. The lane rules are in `lanes`;
//! packed forms with lanes of at most 16 bits use per-lane tables (`table`).

use super::arith::Lf;
use super::lanes::{mode_const, Exact, FromInt, IntToInt, Lane, NanBits, Narrow, ToInt};
use super::lanes::{RELU, RM, RN, RNA, RP, RZ, SAT, SATFINITE};
use super::plan::{NanPlan, Plan};
use super::word::Word;
use crate::format::{low_mask, Format};
use crate::instr::Family;
use crate::policy::NanOut;

/// Results are narrowed to `O` (the caller checked that the destination
/// type fits); inputs of any width are masked by the lane.
#[inline(always)]
fn drive<K: Lane, I: Word, O: Word>(k: K, inputs: &[I], out: &mut [O]) {
    if k.has_lane32() {
        // The lane masks its input to the source width (32 bits here).
        for (o, &x) in out.iter_mut().zip(inputs) {
            *o = O::narrow(k.lane32(x.widen() as u32) as u64);
        }
        return;
    }
    for (o, &x) in out.iter_mut().zip(inputs) {
        *o = O::narrow(k.lane(x.widen()));
    }
}

/// Inputs per block of a 32-bit lane's fold: its results stay in L1.
const BLOCK32: usize = 512;

/// The inputs `first..first + n` folded as they are converted: no input or
/// result buffers, except that 32-bit lanes convert a block into a small
/// buffer first, so that the conversion runs with twice the lanes per vector
/// of the (64-bit) fold.
#[inline(always)]
fn drive_fold<K: Lane, F: Fn(u64, u64, u64) -> u64>(k: K, first: u64, n: u64, acc: u64, f: &F) -> u64 {
    let mut acc = acc;
    if k.has_lane32() {
        let mut buf = [0u32; BLOCK32];
        let mut at = 0u64;
        while at < n {
            let m = (n - at).min(BLOCK32 as u64) as usize;
            let base = first.wrapping_add(at);
            // The lane masks its input to 32 bits: the low bits of the input number.
            for (j, r) in buf[..m].iter_mut().enumerate() {
                *r = k.lane32((base as u32).wrapping_add(j as u32));
            }
            for (j, &r) in buf[..m].iter().enumerate() {
                acc = f(acc, base.wrapping_add(j as u64), r as u64);
            }
            at += m as u64;
        }
        return acc;
    }
    for j in 0..n {
        let x = first.wrapping_add(j);
        acc = f(acc, x, k.lane(x));
    }
    acc
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn drive_avx512<K: Lane, I: Word, O: Word>(k: K, inputs: &[I], out: &mut [O]) {
    drive(k, inputs, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn drive_avx2<K: Lane, I: Word, O: Word>(k: K, inputs: &[I], out: &mut [O]) {
    drive(k, inputs, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx512cd,avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn drive_fold_avx512<K: Lane, F: Fn(u64, u64, u64) -> u64>(k: K, first: u64, n: u64, acc: u64, f: &F) -> u64 {
    drive_fold(k, first, n, acc, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn drive_fold_avx2<K: Lane, F: Fn(u64, u64, u64) -> u64>(k: K, first: u64, n: u64, acc: u64, f: &F) -> u64 {
    drive_fold(k, first, n, acc, f)
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

    /// The unit the kernels run on: for `Best`, [`Isa::chosen`]; `self` if
    /// the CPU has it; the baseline otherwise.
    fn resolve(self) -> Isa {
        match self {
            Isa::Best => Isa::chosen(),
            Isa::Avx512 | Isa::Avx2 if self.available() => self,
            _ => Isa::Baseline,
        }
    }

    /// The widest unit this CPU has, or a narrower one named by the
    /// environment variable `PTX_CVT_ISA` (`avx512`, `avx2`, `baseline`): to
    /// measure or test what a CPU without AVX-512 runs. Read once.
    pub fn chosen() -> Isa {
        static CHOSEN: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let widest = [Isa::Avx512, Isa::Avx2].into_iter().find(|i| i.available()).unwrap_or(Isa::Baseline);
            match std::env::var("PTX_CVT_ISA").as_deref() {
                Ok("baseline") => Isa::Baseline,
                Ok("avx2") if widest != Isa::Baseline => Isa::Avx2,
                _ => widest,
            }
        })
    }
}

/// What a kernel is run for: a slice of inputs, or a range folded as it goes.
pub(super) trait Job {
    fn run<K: Lane>(&mut self, k: K);
    /// Whether the job only asks if there is a kernel (an empty slice job).
    fn is_probe(&self) -> bool;
}

/// `out[i]` = the result for `inputs[i]`, on a vector unit.
pub(super) struct Slices<'a, I, O> {
    pub isa: Isa,
    pub inputs: &'a [I],
    pub out: &'a mut [O],
}

impl<I: Word, O: Word> Job for Slices<'_, I, O> {
    fn run<K: Lane>(&mut self, k: K) {
        let (inputs, out) = (self.inputs, &mut *self.out);
        match self.isa.resolve() {
            // SAFETY: `resolve` gives these units only when the CPU has every
            // feature the functions are compiled for.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { drive_avx512(k, inputs, out) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { drive_avx2(k, inputs, out) },
            _ => drive(k, inputs, out),
        }
    }
    fn is_probe(&self) -> bool {
        self.inputs.is_empty()
    }
}

/// `acc = f(acc, x, result)` over the inputs `first..first + n`.
pub(super) struct Fold<F> {
    pub first: u64,
    pub n: u64,
    pub acc: u64,
    pub f: F,
}

impl<F: Fn(u64, u64, u64) -> u64> Job for Fold<F> {
    fn run<K: Lane>(&mut self, k: K) {
        let (first, n, acc, f) = (self.first, self.n, self.acc, &self.f);
        self.acc = match Isa::Best.resolve() {
            // SAFETY: as in `Slices::run`.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { drive_fold_avx512(k, first, n, acc, f) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { drive_fold_avx2(k, first, n, acc, f) },
            _ => drive_fold(k, first, n, acc, f),
        };
    }
    fn is_probe(&self) -> bool {
        false
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

/// `$body` with the const item `$name: $t` bound to `$x`, one of the listed
/// values (otherwise no kernel: `false`).
macro_rules! with_const {
    ($x:expr, $t:ty, [$($v:expr),*], |$name:ident| $body:expr) => {{
        let x: $t = $x;
        $(if x == $v {
            const $name: $t = $v;
            $body
        } else)* {
            false
        }
    }};
}

/// The NaN rule of a float→float plan, as the lanes take it (unshifted).
fn nan_bits(plan: &Plan, df: Format) -> NanBits {
    let shift = df.float_layout().map_or(0, |l| l.shift);
    let fixed = |b: u64| NanBits { fixed: b >> shift, payload: false, copy: false, moved: false, step_down: false };
    match plan.nan {
        NanPlan::Fixed(b) => fixed(b),
        NanPlan::Any => fixed(super::result::canonical_nan(df)),
        NanPlan::Payload => NanBits { payload: true, ..fixed(0) },
        NanPlan::Copy => NanBits { copy: true, ..fixed(0) },
        NanPlan::Source(NanOut::Shifted) => NanBits { moved: true, ..fixed(0) },
        NanPlan::Source(NanOut::Masked { step_down }) => NanBits { moved: true, step_down, ..fixed(0) },
        NanPlan::Source(other) => unreachable!("no per-source NaN plan {other:?}"),
    }
}

/// Run the kernel for `plan`'s form, if there is one (false: use the generic path).
pub(super) fn try_run(plan: &Plan, job: &mut impl Job) -> bool {
    let c = &plan.c;
    if plan.packed {
        return super::table::try_run(plan, job);
    }
    let full = plan.dst_width == c.dtype.bits() && plan.dst_mask == low_mask(plan.dst_width);
    let Some(m) = mode_const(plan.mode) else {
        return super::table::try_run(plan, job);
    };
    let pol = (c.sat as u8 * SAT) | (c.relu as u8 * RELU) | (c.satfinite as u8 * SATFINITE);
    let (sf, df) = (c.atype.format(), c.dtype.format());
    let (flush, pzo) = (plan.ftz_in, plan.pzo);
    let kernel = match plan.family {
        // The .ftz result flush is the generic path's (f64→f32).
        Family::Narrow if plan.ftz_out => false,
        Family::Narrow if df == Format::Tf32 => {
            let (nan, relu_neg_zero, out_mask) = (nan_bits(plan, df), plan.relu_neg_zero_positive, plan.dst_mask);
            with_format!(sf, [F32], |S| with_const!(m, u8, [RN, RZ, RNA], |M| {
                const D: u8 = Format::Tf32 as u8;
                with_const!(pol, u8, [0, RELU, SATFINITE, RELU | SATFINITE], |P| {
                    job.run(Narrow::<S, D, M, P> { flush, nan, relu_neg_zero, out_mask, pzo });
                    true
                })
            }))
        }
        Family::Narrow if full => {
            let (nan, relu_neg_zero, out_mask) = (nan_bits(plan, df), plan.relu_neg_zero_positive, plan.dst_mask);
            match sf {
                // The lane ignores .ftz and .pzo on f64 sources (neither exists).
                Format::F64 if flush || pzo => false,
                Format::F64 => with_format!(df, [F32, F16, Bf16], |D| with_const!(m, u8, [RN, RZ, RM, RP], |M| {
                    const S: u8 = Format::F64 as u8;
                    with_const!(pol, u8, [0, SAT], |P| {
                        job.run(Narrow::<S, D, M, P> { flush, nan, relu_neg_zero, out_mask, pzo });
                        true
                    })
                })),
                Format::F32 => with_format!(df, [F16, Bf16], |D| with_const!(m, u8, [RN, RZ, RM, RP], |M| {
                    const S: u8 = Format::F32 as u8;
                    with_const!(pol, u8, [0, SAT, RELU, SATFINITE, RELU | SATFINITE], |P| {
                        job.run(Narrow::<S, D, M, P> { flush, nan, relu_neg_zero, out_mask, pzo });
                        true
                    })
                })),
                _ => false,
            }
        }
        // Same format: the .ftz result flush cannot fire after the source flush
        // (copies and integral values are not tiny).
        Family::SameFloat if full && (!plan.ftz_out || flush) => {
            let nan = nan_bits(plan, df);
            let int = c.rounding.is_some_and(|r| r.is_integer());
            with_format!(sf, [F16, Bf16, F32, F64], |S| with_const!(pol, u8, [0, SAT], |P| {
                if int {
                    with_const!(m, u8, [RN, RZ, RM, RP], |M| {
                        job.run(Exact::<S, S, M, true, P> { flush, nan });
                        true
                    })
                } else {
                    job.run(Exact::<S, S, RN, false, P> { flush, nan });
                    true
                }
            }))
        }
        Family::Widen if full && !plan.ftz_out => {
            let nan = nan_bits(plan, df);
            with_const!(pol, u8, [0, SAT], |P| match (sf, df) {
                (Format::F16, Format::F32) => widen::<{ Format::F16 as u8 }, { Format::F32 as u8 }, P>(flush, nan, job),
                (Format::F16, Format::F64) => widen::<{ Format::F16 as u8 }, { Format::F64 as u8 }, P>(flush, nan, job),
                (Format::Bf16, Format::F32) =>
                    widen::<{ Format::Bf16 as u8 }, { Format::F32 as u8 }, P>(flush, nan, job),
                (Format::Bf16, Format::F64) =>
                    widen::<{ Format::Bf16 as u8 }, { Format::F64 as u8 }, P>(flush, nan, job),
                (Format::F32, Format::F64) => widen::<{ Format::F32 as u8 }, { Format::F64 as u8 }, P>(flush, nan, job),
                _ => false,
            })
        }
        Family::FloatToInt if full && pol & !SAT == 0 => {
            // Saturation bounds: int_lo is 0 for unsigned destinations.
            let (pos_max, neg_max, neg_limit) =
                (plan.int_hi as u64, plan.int_lo.unsigned_abs() as u64, plan.int_lo as u64);
            let mask = low_mask(plan.d_bits);
            with_format!(sf, [F16, Bf16, F32, F64], |S| with_const!(m, u8, [RN, RZ, RM, RP], |M| {
                job.run(ToInt::<S, M> { flush, pos_max, neg_max, neg_limit, nan: plan.nan_int, mask });
                true
            }))
        }
        // .ftz cannot fire: integers convert to 0 or at least 1.
        Family::IntToFloat if full => {
            let Lf::Int { bits, signed } = plan.src else {
                return false;
            };
            with_format!(df, [F16, Bf16, F32, F64], |D| with_const!(m, u8, [RN, RZ, RM, RP], |M| {
                with_const!(pol, u8, [0, SAT], |P| {
                    job.run(FromInt::<D, M, P> { bits, signed });
                    true
                })
            }))
        }
        Family::IntToInt if full => {
            let (Lf::Int { bits, signed }, true) = (plan.src, pol & !SAT == 0) else {
                return false;
            };
            if bits >= 64 {
                return false;
            }
            let clip = |v: i128| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            let (lo, hi, mask) = (clip(plan.int_lo), clip(plan.int_hi), low_mask(plan.d_bits));
            if c.sat {
                job.run(IntToInt::<true> { bits, signed, lo, hi, mask });
            } else {
                job.run(IntToInt::<false> { bits, signed, lo, hi, mask });
            }
            true
        }
        _ => false,
    };
    kernel || super::table::try_run(plan, job)
}

fn widen<const S: u8, const D: u8, const P: u8>(flush: bool, nan: NanBits, job: &mut impl Job) -> bool {
    job.run(Exact::<S, D, RN, false, P> { flush, nan });
    true
}
