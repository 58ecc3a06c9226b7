//! One value through a batch kernel: a [`Plan`] of a scalar single-operand
//! form holds the kernel lane that `kernels::try_run` picks for it (so the
//! choice of kernel stays in one place), as the monomorphised lane function
//! and the lane's run-time fields, and turns the lane's one answer into the
//! [`FastResult`] the generic lane path gives: any NaN stays a set, tf32's
//! open bits stay open, a signed integer is extended to a wider register
//! (as `finish_scalar` places it).

use super::arith::Lf;
use super::kernels::{self, Isa, Job};
use super::lanes::{Exact, FromInt, IntToInt, Lane, NanBits, Narrow, ToInt};
use super::plan::{NanPlan, Plan};
use super::result::{canonical_nan, FastResult};
use crate::accept::width_mask;
use crate::format::Format;
use crate::instr::{self, Type};

/// The run-time fields of every kernel lane, in one block a plan can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Params {
    flush: bool,
    pzo: bool,
    relu_neg_zero: bool,
    signed: bool,
    bits: u32,
    nan: NanBits,
    mask: u64,
    pos_max: u64,
    neg_max: u64,
    neg_limit: u64,
    nan_int: u64,
    lo: i64,
    hi: i64,
}

const NONE: Params = Params {
    flush: false,
    pzo: false,
    relu_neg_zero: false,
    signed: false,
    bits: 0,
    nan: NanBits { fixed: 0, payload: false, copy: false, moved: false, step_down: false },
    mask: 0,
    pos_max: 0,
    neg_max: 0,
    neg_limit: 0,
    nan_int: 0,
    lo: 0,
    hi: 0,
};

/// A kernel lane that can be kept as [`Params`] and rebuilt from them.
pub(super) trait Hold: Lane + 'static {
    fn params(&self) -> Params;
    fn from_params(p: &Params) -> Self;
}

/// A kernel lane held: its function (one per form and vector unit) and its fields.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    /// `run` or, where the CPU has AVX2, `run_avx2`.
    run: unsafe fn(&Params, u64) -> u64,
    /// `write` or `write_avx2`: [`PlainLane::write`].
    /// `extern "C"` (it unwinds into no caller): a caller's tail call.
    write: unsafe extern "C" fn(&Params, u64, *mut u64) -> i32,
    params: Params,
}

impl Held {
    pub(super) fn of<K: Hold>(k: K) -> Held {
        #[cfg(target_arch = "x86_64")]
        if Isa::Avx2.available() {
            return Held { run: run_avx2::<K>, write: write_avx2::<K>, params: k.params() };
        }
        Held { run: run::<K>, write: write::<K>, params: k.params() }
    }

    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        // SAFETY: `run_avx2` is chosen only where the CPU has its features.
        unsafe { (self.run)(&self.params, x) }
    }
}

fn run<K: Hold>(p: &Params, x: u64) -> u64 {
    K::from_params(p).lane(x)
}

/// The lane's answer written to `out` (0), or a caught panic (`PANICKED`,
/// `out` untouched): the whole of a single-value call, in one function.
#[inline(always)]
fn write_body<K: Hold>(p: &Params, x: u64, out: *mut u64) -> i32 {
    match std::panic::catch_unwind(|| K::from_params(p).lane(x)) {
        Ok(v) => {
            // SAFETY: the caller's (`PlainLane::write`).
            unsafe { out.write_unaligned(v) };
            0
        }
        Err(_) => PlainLane::PANICKED,
    }
}

extern "C" fn write<K: Hold>(p: &Params, x: u64, out: *mut u64) -> i32 {
    write_body::<K>(p, x, out)
}

/// `write` with AVX2's instructions, as `run_avx2`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe extern "C" fn write_avx2<K: Hold>(p: &Params, x: u64, out: *mut u64) -> i32 {
    write_body::<K>(p, x, out)
}

/// `run` with the instructions AVX2 CPUs add (`lzcnt`, BMI2 shifts): one
/// value is not vectorised, but its lane takes fewer instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn run_avx2<K: Hold>(p: &Params, x: u64) -> u64 {
    K::from_params(p).lane(x)
}

/// A plan's kernel lane whose answer is the result as it stands
/// ([`Plan::plain_lane`]): for callers that keep it beside the plan and
/// evaluate one value with one (indirect) call, as the C interface's
/// `ptx_cvt_eval1` does.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct PlainLane(Held);

impl PlainLane {
    /// What [`Plan::eval`] answers on the source bits `x`: always
    /// [`FastResult::Bits`] of this value.
    #[inline(always)]
    pub fn eval(&self, x: u64) -> u64 {
        self.0.lane(x)
    }

    /// What [`PlainLane::write`] returns for a caught panic (a bug): the C
    /// interface's `PTX_CVT_EINTERNAL`.
    pub const PANICKED: i32 = -4;

    /// [`PlainLane::eval`] written to `*out`, returning 0; a panic is caught
    /// (none unwinds out of this call) and gives [`PlainLane::PANICKED`]
    /// with `*out` untouched. One call of a function made for the form, so
    /// that a caller can hand it a single value as its last act (a tail call).
    ///
    /// # Safety
    /// `out` is valid for one (unaligned) write of a `u64`.
    #[inline(always)]
    pub unsafe fn write(&self, x: u64, out: *mut u64) -> i32 {
        // SAFETY: `write_avx2` is chosen only where the CPU has its features;
        // `out` as the caller promises.
        unsafe { (self.0.write)(&self.0.params, x, out) }
    }
}

/// How a lane's type-width answer becomes the register's [`FastResult`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Finish {
    /// The answer is the result (none of the below applies).
    plain: bool,
    /// The lane's bits for a NaN source where the result is any NaN.
    any_nan: Option<(u64, Format)>,
    /// Sign extension: the type's sign bit (0: none) and the register bits above the type.
    sign: u64,
    above: u64,
    /// The bits the profile compares, where it leaves others open (tf32).
    open: Option<u64>,
}

/// A plan's kernel lane and how its answers are placed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Single {
    held: Held,
    finish: Finish,
}

// The lane function follows from the rest of the plan (the same `try_run`
// choice), so plans are equal when their fields are.
impl PartialEq for Single {
    fn eq(&self, other: &Single) -> bool {
        self.held.params == other.held.params && self.finish == other.finish
    }
}

impl Eq for Single {}

/// A job that keeps the lane `try_run` picks instead of running it.
struct Pick(Option<Held>);

impl Job for Pick {
    fn run<K: Lane>(&mut self, k: K) {
        self.0 = k.held();
    }
    fn is_probe(&self) -> bool {
        // The tables (thread-local, not for a plan to hold) are only probed.
        true
    }
}

impl Single {
    /// The kernel lane for `plan`, if its form is scalar, takes one operand
    /// and has a kernel.
    pub(super) fn new(plan: &Plan) -> Option<Single> {
        let c = &plan.c;
        if plan.packed || c.scaled || c.scaled_n1 || instr::shape(c).srcs.len() != 1 {
            return None;
        }
        // The kernels answer at the type's width; `Finish` places the answer.
        let n = plan.d_bits;
        let natural_mask = if c.dtype == Type::Tf32 { plan.dst_mask } else { width_mask(n) };
        let natural = Plan { dst_width: n, dst_mask: natural_mask, ..*plan };
        let mut pick = Pick(None);
        kernels::try_run(&natural, &mut pick);
        let held = pick.0?;
        let float = matches!(plan.dst, Lf::Float(_));
        let df = c.dtype.format();
        // A kernel writes the canonical NaN for any NaN, and no other answer is that code.
        let any_nan = (float && plan.nan == NanPlan::Any).then(|| (canonical_nan(df) & plan.dst_mask, df));
        let extend = plan.dst_signed_int && plan.dst_width > n;
        let sign = if extend { 1 << (n - 1) } else { 0 };
        let open = (plan.dst_mask != width_mask(plan.dst_width)).then_some(plan.dst_mask);
        let finish = Finish {
            plain: any_nan.is_none() && sign == 0 && open.is_none(),
            any_nan,
            sign,
            above: width_mask(plan.dst_width) & !width_mask(n),
            open,
        };
        Some(Single { held, finish })
    }

    /// The kernel lane alone, where its answer is the result as it stands.
    pub(super) fn plain(&self) -> Option<PlainLane> {
        self.finish.plain.then_some(PlainLane(self.held))
    }

    /// The result for the source bits `x`.
    #[inline(always)]
    pub(super) fn eval(&self, x: u64) -> FastResult {
        let (f, r) = (&self.finish, self.held.lane(x));
        if f.plain {
            return FastResult::Bits(r);
        }
        if let Some((code, format)) = f.any_nan {
            if r == code {
                return FastResult::AnyNan(format);
            }
        }
        let r = if r & f.sign != 0 { r | f.above } else { r };
        match f.open {
            Some(mask) => FastResult::Pattern { value: r, mask },
            None => FastResult::Bits(r),
        }
    }
}

impl<const S: u8, const D: u8, const M: u8, const P: u8> Hold for Narrow<S, D, M, P> {
    fn params(&self) -> Params {
        let (flush, nan, relu_neg_zero, mask, pzo) =
            (self.flush, self.nan, self.relu_neg_zero, self.out_mask, self.pzo);
        Params { flush, nan, relu_neg_zero, mask, pzo, ..NONE }
    }
    #[inline(always)]
    fn from_params(p: &Params) -> Self {
        Narrow { flush: p.flush, nan: p.nan, relu_neg_zero: p.relu_neg_zero, out_mask: p.mask, pzo: p.pzo }
    }
}

impl<const S: u8, const D: u8, const M: u8, const INT: bool, const P: u8> Hold for Exact<S, D, M, INT, P> {
    fn params(&self) -> Params {
        Params { flush: self.flush, nan: self.nan, ..NONE }
    }
    #[inline(always)]
    fn from_params(p: &Params) -> Self {
        Exact { flush: p.flush, nan: p.nan }
    }
}

impl<const S: u8, const M: u8> Hold for ToInt<S, M> {
    fn params(&self) -> Params {
        let (flush, pos_max, neg_max, neg_limit) = (self.flush, self.pos_max, self.neg_max, self.neg_limit);
        Params { flush, pos_max, neg_max, neg_limit, nan_int: self.nan, mask: self.mask, ..NONE }
    }
    #[inline(always)]
    fn from_params(p: &Params) -> Self {
        let (flush, pos_max, neg_max, neg_limit) = (p.flush, p.pos_max, p.neg_max, p.neg_limit);
        ToInt { flush, pos_max, neg_max, neg_limit, nan: p.nan_int, mask: p.mask }
    }
}

impl<const D: u8, const M: u8, const P: u8> Hold for FromInt<D, M, P> {
    fn params(&self) -> Params {
        Params { bits: self.bits, signed: self.signed, ..NONE }
    }
    #[inline(always)]
    fn from_params(p: &Params) -> Self {
        FromInt { bits: p.bits, signed: p.signed }
    }
}

impl<const SAT_: bool> Hold for IntToInt<SAT_> {
    fn params(&self) -> Params {
        Params { bits: self.bits, signed: self.signed, lo: self.lo, hi: self.hi, mask: self.mask, ..NONE }
    }
    #[inline(always)]
    fn from_params(p: &Params) -> Self {
        IntToInt { bits: p.bits, signed: p.signed, lo: p.lo, hi: p.hi, mask: p.mask }
    }
}
