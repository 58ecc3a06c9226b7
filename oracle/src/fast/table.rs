//! Packed forms with source lanes of at most 16 bits (`f16x2`, `bf16x2`,
//! the FP8/FP6/FP4 pairs): every lane converts on its own with the same
//! rule, so one table of a lane's every source value, filled by the generic
//! lane path itself, gives each lane's result by lookup. Equal to
//! `Plan::eval(..).representative()` by construction (a NaN lane that is a
//! set is the format's canonical NaN, as there). Scalar forms with sources
//! of at most 16 bits that have no kernel (f16↔bf16, .ftz widening) use a
//! table of whole results the same way.

use std::cell::RefCell;

use super::Plan;
use crate::format::low_mask;
use crate::instr::Cvt;

/// Source lanes up to this many bits: a table of 2^16 `u16` is 128 KiB.
const MAX_LANE_BITS: u32 = 16;

thread_local! {
    /// The last table built on this thread and the instruction it is for.
    static LAST: RefCell<Option<(Cvt, Vec<u16>)>> = const { RefCell::new(None) };
    /// The same for scalar forms: whole results.
    static LAST_SCALAR: RefCell<Option<(Cvt, Vec<u64>)>> = const { RefCell::new(None) };
}

/// Run a scalar `plan` with a source of at most 16 bits on a table of its
/// results, if it fits (false: use the generic path).
pub(super) fn try_run_scalar(plan: &Plan, inputs: &[u64], out: &mut [u64]) -> bool {
    let c = &plan.c;
    if plan.packed || c.atype.bits() > MAX_LANE_BITS || plan.dst_width != c.dtype.bits() {
        return false;
    }
    if inputs.is_empty() {
        return true;
    }
    LAST_SCALAR.with(|l| {
        let mut l = l.borrow_mut();
        if l.as_ref().is_none_or(|(k, _)| k != c) {
            let t = (0..1u64 << c.atype.bits()).map(|x| plan.eval1(x).representative()).collect();
            *l = Some((*c, t));
        }
        let (t, mask) = (&l.as_ref().expect("just built").1, low_mask(c.atype.bits()));
        for (o, &x) in out.iter_mut().zip(inputs) {
            *o = t[(x & mask) as usize];
        }
    });
    true
}

/// Whether `plan` runs on tables: single packed source, lanes of at most 16
/// bits in and out, deterministic rounding, nothing but the lanes in the result.
fn fits(plan: &Plan) -> bool {
    let c = &plan.c;
    plan.packed
        && c.atype.is_packed()
        && !plan.stochastic
        && !c.dtype.takes_c()
        && plan.a_bits <= MAX_LANE_BITS
        && plan.d_bits <= MAX_LANE_BITS
        && plan.lanes * plan.a_bits == c.atype.bits()
        && plan.lanes * plan.d_bits == c.dtype.bits()
        && plan.dst_width == c.dtype.bits()
}

/// Every lane's result for every source lane value, from the lane path:
/// the source with all lanes equal to the value, its lowest result lane.
fn build(plan: &Plan) -> Vec<u16> {
    let (ab, lb) = (plan.a_bits, plan.d_bits);
    (0..1u64 << ab)
        .map(|v| {
            let x = (0..plan.lanes).fold(0u64, |x, i| x | v << (i * ab));
            (plan.eval1(x).representative() & low_mask(lb)) as u16
        })
        .collect()
}

/// Run `plan` on tables, if it fits (false: use the generic path).
pub(super) fn try_run(plan: &Plan, inputs: &[u64], out: &mut [u64]) -> bool {
    if !fits(plan) {
        return false;
    }
    if inputs.is_empty() {
        return true;
    }
    LAST.with(|l| {
        let mut l = l.borrow_mut();
        if l.as_ref().is_none_or(|(c, _)| *c != plan.c) {
            *l = Some((plan.c, build(plan)));
        }
        let t = &l.as_ref().expect("just built").1;
        let (ab, lb, amask) = (plan.a_bits, plan.d_bits, low_mask(plan.a_bits));
        if plan.lanes == 2 {
            for (o, &x) in out.iter_mut().zip(inputs) {
                let (lo, hi) = (t[(x & amask) as usize], t[((x >> ab) & amask) as usize]);
                *o = (hi as u64) << lb | lo as u64;
            }
        } else {
            for (o, &x) in out.iter_mut().zip(inputs) {
                *o = (0..plan.lanes).fold(0u64, |r, i| r | (t[((x >> (i * ab)) & amask) as usize] as u64) << (i * lb));
            }
        }
    });
    true
}
