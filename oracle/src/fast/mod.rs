//! The fast engine: a second, independent evaluation of `cvt` with integer
//! bit manipulation only (`u64`/`u128`, no `rug`, no host floating point).
//!
//! One generic path, driven by the format table's layouts, converts one lane:
//! decode, (flush), round with the `u128` core (`arith::round`, the same
//! decision as `round::decide`), apply .sat/.relu/overflow/.ftz, encode.
//! Scalar forms are one lane; tf32 and the packed forms are lanes of the
//! same path, packed high lane first (docs/semantics.md §5.11).
//!
//! Scope: the **sm90 profile** only. Every choice a PTX rule makes comes
//! from the decisions both engines ask ([`crate::decide::Decisions`]; a
//! [`Plan`] asks most of them once per instruction, the tf32 mask included);
//! legality is the instruction model's
//! (`instr::check`).
//!
//! Speed: an instruction is turned into a [`Plan`] once (the last plan is
//! cached per thread, so repeated [`evaluate`] calls on one instruction skip
//! the legality check); evaluating a plan allocates nothing.
//!
//! Files: `plan.rs` (a [`Plan`]: the decisions asked once per instruction),
//! `generic.rs` (the generic lane path that evaluates it), `result.rs`
//! ([`FastResult`]), `arith.rs` (the integer decode/round/encode), `scaled.rs`
//! (lane scales, s2f6), and for batches `kernels.rs`, `lanes.rs` (kernels
//! specialised per form) and `table.rs` (lookup tables); here, the entry
//! points and the operand checks.

mod arith;
mod generic;
mod kernels;
mod lanes;
mod plan;
mod result;
mod scaled;
mod single;
mod table;
mod word;

#[doc(hidden)]
pub use self::kernels::Isa;
pub use self::plan::Plan;
pub use self::result::FastResult;
#[doc(hidden)]
pub use self::single::PlainLane;
pub use self::word::Word;

use std::cell::RefCell;

use crate::instr::{self, Cvt};
use crate::operand::{check_packed_widths, operand_count_error, EvalError, Operand};
use crate::policy::Profile;

/// Check the operand count as the exact engine does.
#[inline]
fn check_count(c: &Cvt, ops: &[Operand]) -> Result<(), EvalError> {
    if ops.len() == instr::shape(c).srcs.len() {
        return Ok(());
    }
    Err(operand_count_error(c, ops.len()))
}

/// Packed forms: every operand register exactly as wide as the form wants
/// (after legality, as in the exact engine); the common case is checked inline.
#[inline]
fn check_widths(c: &Cvt, ops: &[Operand]) -> Result<(), EvalError> {
    if c.is_scalar() {
        return Ok(());
    }
    if ops.iter().map(|o| o.width).eq(instr::shape(c).srcs.iter().copied()) {
        return Ok(());
    }
    check_packed_widths(c, ops)
}

/// A plan cached for [`evaluate`], with what its operand checks need.
struct Cached {
    plan: Plan,
    src_width: u32,
    /// The operand registers' widths the form takes (`instr::shape`), and
    /// whether the form is scalar (no widths to compare).
    srcs: instr::Widths,
    scalar: bool,
}

impl Cached {
    /// Whether `ops` pass `evaluate`'s operand checks, on the widths kept
    /// with the plan (else the full checks run, and make the error).
    #[inline(always)]
    fn takes(&self, ops: &[Operand]) -> bool {
        ops.len() == self.srcs.len() && (self.scalar || ops.iter().map(|o| o.width).eq(self.srcs.iter().copied()))
    }
}

thread_local! {
    /// The last plan built on this thread, keyed by instruction and register
    /// widths. Evaluated in place: copying a plan out on every call costs more
    /// than evaluating it.
    static LAST: RefCell<Option<Cached>> = const { RefCell::new(None) };
}

/// Evaluate `c` on its operands, writing a register of `dst_width` bits,
/// under the sm90 profile.
#[inline]
pub fn evaluate(c: &Cvt, ops: &[Operand], dst_width: u32) -> Result<FastResult, EvalError> {
    let src_width = ops.first().map_or(c.atype.bits(), |o| o.width);
    LAST.with(|last| {
        if let Some(k) = &*last.borrow() {
            // A cached plan passed the legality check for these widths.
            if k.plan.dst_width == dst_width && k.src_width == src_width && k.plan.c == *c && k.takes(ops) {
                return Ok(k.plan.eval(ops));
            }
        }
        evaluate_new(last, c, ops, src_width, dst_width)
    })
}

/// [`evaluate`] with the full checks on a new plan, cached for the calls
/// that follow (kept out of line: the cached path stays small).
#[cold]
#[inline(never)]
fn evaluate_new(
    last: &RefCell<Option<Cached>>,
    c: &Cvt,
    ops: &[Operand],
    src_width: u32,
    dst_width: u32,
) -> Result<FastResult, EvalError> {
    check_count(c, ops)?;
    let plan = Plan::new(c, src_width, dst_width)?;
    check_widths(c, ops)?;
    let r = plan.eval(ops);
    let srcs = instr::shape(c).srcs;
    *last.borrow_mut() = Some(Cached { plan, src_width, srcs, scalar: c.is_scalar() });
    Ok(r)
}

/// [`evaluate`] under a named profile: the fast engine implements the sm90
/// profile only.
pub fn evaluate_profile(c: &Cvt, ops: &[Operand], dst_width: u32, profile: Profile) -> Result<FastResult, EvalError> {
    match profile {
        Profile::Sm90 => evaluate(c, ops, dst_width),
        Profile::Isa => Err(EvalError::Operands("fast engine implements the sm90 profile".into())),
    }
}

/// A plan for a single-operand form at natural register widths.
fn batch_plan(c: &Cvt) -> Result<Plan, EvalError> {
    let shape = instr::shape(c);
    let count = shape.srcs.len();
    if count != 1 {
        return Err(EvalError::Operands(format!(
            "{c} takes {count} source operands: the batch API takes single-operand forms"
        )));
    }
    Plan::new(c, shape.srcs[0], c.dtype.bits())
}

/// Width of the `scale` operand of `.scaled::n2::ue8m0` forms (ue8m0x2).
const SCALE_BITS: u32 = 16;

/// A plan for [`fold_range`]: a single-operand form, or a scaled pair form
/// of two operands (`a`, `scale`) whose input number is `a` above `scale`,
/// as the atlas numbers them (first operand in the high bits).
fn fold_plan(c: &Cvt) -> Result<Plan, EvalError> {
    let shape = instr::shape(c);
    if c.scaled && c.atype.is_packed() && shape.srcs.len() == 2 && shape.srcs[1] == SCALE_BITS {
        return Plan::new(c, shape.srcs[0], c.dtype.bits());
    }
    batch_plan(c)
}

/// Evaluate a single-operand form at natural register widths on many
/// inputs: `out[i]` gets the result for `inputs[i]` (for a set result, its
/// [`FastResult::representative`]: the canonical NaN for any NaN).
/// Panics if the slices differ in length. [`evaluate_slice`] takes and
/// gives registers of their own width.
///
/// Most forms (every one with sources of at most 32 bits) run as kernels
/// specialised per form, or on per-lane lookup tables, vectorised for the
/// CPU's widest vector unit; the rest run the generic lane path.
pub fn evaluate_batch(c: &Cvt, inputs: &[u64], out: &mut [u64]) -> Result<(), EvalError> {
    evaluate_slice_on(c, inputs, out, Isa::Best)
}

/// [`evaluate_batch`] on registers of the caller's types: `&[u32]` of f32
/// codes into `&mut [u16]` for `cvt.rn.f16.f32`, say. `I` must hold the
/// source type (wider inputs are read at the type's width) and `O` the
/// destination type (results are zero-extended into wider words).
pub fn evaluate_slice<I: Word, O: Word>(c: &Cvt, inputs: &[I], out: &mut [O]) -> Result<(), EvalError> {
    evaluate_slice_on(c, inputs, out, Isa::Best)
}

/// [`evaluate_batch`] with the kernels built for a given vector unit (for
/// tests and benchmarks; an unavailable one falls back to the baseline).
#[doc(hidden)]
pub fn evaluate_batch_on(c: &Cvt, inputs: &[u64], out: &mut [u64], isa: Isa) -> Result<(), EvalError> {
    evaluate_slice_on(c, inputs, out, isa)
}

/// [`evaluate_slice`] on a given vector unit.
#[doc(hidden)]
pub fn evaluate_slice_on<I: Word, O: Word>(c: &Cvt, inputs: &[I], out: &mut [O], isa: Isa) -> Result<(), EvalError> {
    assert_eq!(inputs.len(), out.len(), "evaluate_slice: inputs and out differ in length");
    let plan = batch_plan(c)?;
    let (a, d) = (c.atype.bits(), c.dtype.bits());
    if I::BITS < a || O::BITS < d {
        return Err(EvalError::Operands(format!(
            "{c} reads a {a}-bit source and writes a {d}-bit destination: the slices hold {}-bit inputs \
             and {}-bit results",
            I::BITS,
            O::BITS
        )));
    }
    if !kernels::try_run(&plan, &mut kernels::Slices { isa, inputs, out: &mut *out }) {
        evaluate_batch_generic(&plan, inputs, out);
    }
    Ok(())
}

/// The generic lane path over a slice.
fn evaluate_batch_generic<I: Word, O: Word>(plan: &Plan, inputs: &[I], out: &mut [O]) {
    for (o, &a) in out.iter_mut().zip(inputs) {
        *o = O::narrow(plan.eval_input(a.widen()).representative());
    }
}

/// Whether [`fold_range`] (and [`evaluate_batch`], for single-operand
/// forms) runs `c` as a specialised kernel (or on tables).
#[doc(hidden)]
pub fn has_kernel(c: &Cvt) -> bool {
    fold_plan(c).is_ok_and(|p| {
        kernels::try_run(&p, &mut kernels::Slices::<u64, u64> { isa: Isa::Baseline, inputs: &[], out: &mut [] })
    })
}

/// [`evaluate_batch`] on the `n` consecutive inputs from `first` (wrapping),
/// each result folded as it is made: `acc = fold(acc, input, result)`, and
/// the final `acc` returned. No buffers: where the form has a kernel, the
/// (inlined) fold is vectorised with the conversion, as a sweep's digest is.
/// The scaled pair forms (`a`, `scale`) take input numbers `a << 16 | scale`.
#[doc(hidden)]
pub fn fold_range<F: Fn(u64, u64, u64) -> u64>(
    c: &Cvt,
    first: u64,
    n: u64,
    acc: u64,
    fold: F,
) -> Result<u64, EvalError> {
    let plan = fold_plan(c)?;
    let mut job = kernels::Fold { first, n, acc, f: fold };
    if kernels::try_run(&plan, &mut job) {
        return Ok(job.acc);
    }
    let kernels::Fold { mut acc, f: fold, .. } = job;
    const SUB: u64 = 1 << 12;
    let (mut inputs, mut out) = (vec![0u64; SUB as usize], vec![0u64; SUB as usize]);
    for at in (0..n).step_by(SUB as usize) {
        let m = (n - at).min(SUB) as usize;
        for (j, x) in inputs[..m].iter_mut().enumerate() {
            *x = first.wrapping_add(at + j as u64);
        }
        if !kernels::try_run(&plan, &mut kernels::Slices { isa: Isa::Best, inputs: &inputs[..m], out: &mut out[..m] }) {
            evaluate_batch_generic(&plan, &inputs[..m], &mut out[..m]);
        }
        acc = inputs[..m].iter().zip(&out[..m]).fold(acc, |a, (&x, &r)| fold(a, x, r));
    }
    Ok(acc)
}

/// [`evaluate_batch`] keeping every result's full set.
pub fn evaluate_batch_results(c: &Cvt, inputs: &[u64], out: &mut [FastResult]) -> Result<(), EvalError> {
    assert_eq!(inputs.len(), out.len(), "evaluate_batch_results: inputs and out differ in length");
    let plan = batch_plan(c)?;
    for (o, &a) in out.iter_mut().zip(inputs) {
        *o = plan.eval1(a);
    }
    Ok(())
}
