//! Packed forms with two source lanes of at most 16 bits (`f16x2`,
//! `bf16x2`, the FP8/FP6/FP4 pairs): each lane converts on its own with the
//! same rule, so one table of a lane's every source value, filled by the
//! generic lane path itself, gives each lane's result by lookup. Equal to
//! `Plan::eval(..).representative()` by construction (a NaN lane that is a
//! set is the format's canonical NaN, as there). Scalar forms with sources
//! of at most 16 bits that have no kernel (f16↔bf16, .ftz widening) use a
//! table of whole results the same way. The lookups are lanes like the
//! kernels' (`kernels::Job`), so they vectorise (gathers) and fold the same.
//! The `.scaled::n2::ue8m0` pair forms look up each lane by its element and
//! its scale byte (input number `a << 16 | scale`, see `fold_range`).

use std::cell::RefCell;

use super::kernels::Job;
use super::lanes::Lane;
use super::plan::Plan;
use crate::decide::Decisions;
use crate::format::low_mask;
use crate::instr::Cvt;

/// Source lanes up to this many bits: a table of 2^16 `u16` is 128 KiB.
const MAX_LANE_BITS: u32 = 16;
const ENTRIES: usize = 1 << MAX_LANE_BITS;

type Lanes = Box<[u16; ENTRIES]>;
type Whole = Box<[u64; ENTRIES]>;

thread_local! {
    /// The last tables built on this thread and the instructions they are for.
    static LANES: RefCell<Option<(Cvt, Lanes)>> = const { RefCell::new(None) };
    static WHOLE: RefCell<Option<(Cvt, Whole)>> = const { RefCell::new(None) };
    static SCALED: RefCell<Option<(Cvt, Lanes)>> = const { RefCell::new(None) };
}

/// Bits of a scale byte, and of the `scale` operand in an input number.
const CODE_BITS: u32 = 8;
const SCALE_BITS: u32 = 16;

/// Two lanes, each looked up by its element and its scale byte: the table
/// is indexed by `code << a_bits | element`.
#[derive(Clone, Copy)]
struct ScaledLane<'a> {
    t: &'a [u16; ENTRIES],
    a_bits: u32,
    d_bits: u32,
    /// Where each lane's scale byte sits in `scale` (low lane first).
    shifts: [u32; 2],
}

impl Lane for ScaledLane<'_> {
    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let (m, a) = (low_mask(self.a_bits), x >> SCALE_BITS);
        let key = |lane: usize| {
            let code = (x >> self.shifts[lane]) & 0xff;
            let e = (a >> (lane as u32 * self.a_bits)) & m;
            ((code << self.a_bits) | e) as usize & (ENTRIES - 1)
        };
        let (lo, hi) = (self.t[key(0)], self.t[key(1)]);
        ((hi as u64) << self.d_bits) | lo as u64
    }
}

/// Two lanes, each looked up.
#[derive(Clone, Copy)]
struct PairLane<'a> {
    t: &'a [u16; ENTRIES],
    a_bits: u32,
    d_bits: u32,
}

impl Lane for PairLane<'_> {
    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let m = low_mask(self.a_bits);
        let (lo, hi) =
            (self.t[(x & m) as usize & (ENTRIES - 1)], self.t[((x >> self.a_bits) & m) as usize & (ENTRIES - 1)]);
        ((hi as u64) << self.d_bits) | lo as u64
    }
}

/// A whole result looked up.
#[derive(Clone, Copy)]
struct WholeLane<'a> {
    t: &'a [u64; ENTRIES],
    mask: u64,
}

impl Lane for WholeLane<'_> {
    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        self.t[(x & self.mask) as usize & (ENTRIES - 1)]
    }
}

/// Whether a packed `plan` runs on tables: a single source of two lanes of
/// at most 16 bits, result lanes of at most 16 bits, deterministic rounding,
/// nothing but the lanes in the result.
fn fits_pair(plan: &Plan) -> bool {
    let c = &plan.c;
    plan.packed
        && c.atype.is_packed()
        && !c.scaled
        && !plan.stochastic
        && !c.dtype.takes_c()
        && plan.lanes == 2
        && plan.a_bits <= MAX_LANE_BITS
        && plan.d_bits <= MAX_LANE_BITS
        && 2 * plan.a_bits == c.atype.bits()
        && 2 * plan.d_bits == c.dtype.bits()
        && plan.dst_width == c.dtype.bits()
}

/// The scale bytes' places (low lane first), if a scaled pair `plan` runs
/// on a table: two lanes of at most 8 bits into lanes of at most 16 bits,
/// each result lane from its own source lane, and scale bytes at bit 0 or 8
/// (what a table filled from equal lanes and equal bytes can answer).
fn fits_scaled(plan: &Plan) -> Option<[u32; 2]> {
    let c = &plan.c;
    let shifts = [plan.d.scale_byte_shift(0), plan.d.scale_byte_shift(1)];
    let fits = plan.packed
        && c.scaled
        && c.atype.is_packed()
        && !plan.stochastic
        && !c.dtype.takes_c()
        && plan.lanes == 2
        && plan.a_bits + CODE_BITS <= MAX_LANE_BITS
        && plan.d_bits <= MAX_LANE_BITS
        && 2 * plan.a_bits == c.atype.bits()
        && 2 * plan.d_bits == c.dtype.bits()
        && plan.dst_width == c.dtype.bits()
        && (0..2).all(|i| plan.d.source_lane(i, 2) == i)
        && shifts.iter().all(|&s| s == 0 || s == CODE_BITS);
    fits.then_some(shifts)
}

/// Whether a scalar `plan` runs on a table of whole results.
fn fits_whole(plan: &Plan) -> bool {
    let c = &plan.c;
    !plan.packed && c.atype.bits() <= MAX_LANE_BITS && plan.dst_width == c.dtype.bits()
}

/// A table of `f(v)` for every `v` below `2^bits` (zero above).
fn fill<T: Copy + Default>(bits: u32, f: impl Fn(u64) -> T) -> Box<[T; ENTRIES]> {
    let mut t: Box<[T; ENTRIES]> = vec![T::default(); ENTRIES].try_into().unwrap_or_else(|_| unreachable!());
    for v in 0..1u64 << bits {
        t[v as usize] = f(v);
    }
    t
}

/// Run `plan` on tables, if it fits (false: use the generic path). An
/// empty slice job only asks whether it fits.
pub(super) fn try_run(plan: &Plan, job: &mut impl Job) -> bool {
    let c = plan.c;
    let empty = job.is_probe();
    if fits_pair(plan) {
        if !empty {
            let (ab, lb) = (plan.a_bits, plan.d_bits);
            LANES.with(|l| {
                let mut l = l.borrow_mut();
                if l.as_ref().is_none_or(|(k, _)| *k != c) {
                    // The lowest result lane of a source whose lanes are all `v`.
                    let t = fill(ab, |v| (plan.eval1((v << ab) | v).representative() & low_mask(lb)) as u16);
                    *l = Some((c, t));
                }
                let t = &l.as_ref().expect("just built").1;
                job.run(PairLane { t, a_bits: ab, d_bits: lb });
            });
        }
        return true;
    }
    if let Some(shifts) = fits_scaled(plan) {
        if !empty {
            let (ab, lb) = (plan.a_bits, plan.d_bits);
            SCALED.with(|l| {
                let mut l = l.borrow_mut();
                if l.as_ref().is_none_or(|(k, _)| *k != c) {
                    // The lowest result lane of a source whose lanes are all
                    // the element, scaled by a `scale` whose bytes are all the code.
                    let t = fill(ab + CODE_BITS, |k| {
                        let (e, code) = (k & low_mask(ab), k >> ab);
                        let x = (((e << ab) | e) << SCALE_BITS) | (code << CODE_BITS) | code;
                        (plan.eval_input(x).representative() & low_mask(lb)) as u16
                    });
                    *l = Some((c, t));
                }
                let t = &l.as_ref().expect("just built").1;
                job.run(ScaledLane { t, a_bits: ab, d_bits: lb, shifts });
            });
        }
        return true;
    }
    if fits_whole(plan) {
        if !empty {
            WHOLE.with(|l| {
                let mut l = l.borrow_mut();
                if l.as_ref().is_none_or(|(k, _)| *k != c) {
                    *l = Some((c, fill(c.atype.bits(), |x| plan.eval1(x).representative())));
                }
                let t = &l.as_ref().expect("just built").1;
                job.run(WholeLane { t, mask: low_mask(c.atype.bits()) });
            });
        }
        return true;
    }
    false
}
