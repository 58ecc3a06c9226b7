//! Prepared conversions for hot loops (`ptx_cvt_prepare` in the header): the
//! instruction is parsed and its legality and registers checked once; each
//! evaluation then only reads operands. Results come from the fast engine
//! (tested equal to the exact engine on every variant) under the sm90
//! profile, from the exact engine under `isa` (which the fast one lacks).

use std::ffi::{c_char, c_int};

use ptx_cvt::accept::{width_mask, Alt, LaneSet};
use ptx_cvt::fast::{self, FastResult, PlainLane, Plan};
use ptx_cvt::{evaluate_accept, Cvt, Operand, Profile, PtxVersion, Target};

use crate::{
    check_register, fail, profile_arg, str_arg, Error, PTX_CVT_EARG, PTX_CVT_EILLEGAL, PTX_CVT_EPARSE,
    PTX_CVT_NOT_BITS, PTX_CVT_OK,
};

/// A checked instruction with its register widths (opaque to C: `ptx_cvt_prepared`): immutable once made, so
/// any number of threads may evaluate through one handle.
pub struct Prepared {
    cvt: Cvt,
    widths: Vec<u32>,
    dst_width: u32,
    profile: Profile,
    /// The fast engine's plan (sm90 profile only).
    plan: Option<Plan>,
    /// Whether `fast::evaluate_batch` takes the form: one operand, registers
    /// of the types' own widths.
    natural_single: bool,
    /// `ptx_cvt_eval1`: the bits an operand may have (0 where the form
    /// takes more than one operand), and the destination register's.
    one_mask: u64,
    dst_mask: u64,
    /// `ptx_cvt_eval1`'s hot path: the form's kernel lane, where its answer
    /// is the result as it stands (sm90, one operand; see `Plan::plain_lane`).
    lane: Option<PlainLane>,
}

impl Prepared {
    /// # Safety
    /// Pointers as `ptx_cvt_prepare` documents.
    pub(crate) unsafe fn new(
        instruction: *const c_char,
        operand_widths: *const u32,
        n_operands: usize,
        dst_width: u32,
        target: *const c_char,
        ptx_version: *const c_char,
        profile: *const c_char,
    ) -> Result<Prepared, Error> {
        let text = str_arg(instruction, "instruction", PTX_CVT_EPARSE)?
            .ok_or(Error { code: PTX_CVT_EARG, message: "instruction is NULL".into() })?;
        if operand_widths.is_null() {
            return fail(PTX_CVT_EARG, "operand_widths is NULL");
        }
        let profile = profile_arg(profile)?;
        let target = match str_arg(target, "target", PTX_CVT_EARG)? {
            None => None,
            Some(t) => Some(t.parse::<Target>().map_err(|e| Error { code: PTX_CVT_EARG, message: e.0 })?),
        };
        let version = match str_arg(ptx_version, "ptx_version", PTX_CVT_EARG)? {
            None => None,
            Some(v) => Some(v.parse::<PtxVersion>().map_err(|e| Error { code: PTX_CVT_EARG, message: e.0 })?),
        };
        let cvt = ptx_cvt::instr::parse(&text).map_err(|e| Error { code: PTX_CVT_EPARSE, message: e.message })?;
        let shape = ptx_cvt::instr::shape(&cvt);
        if n_operands != shape.srcs.len() || n_operands > MAX_OPS {
            return fail(PTX_CVT_EILLEGAL, format!("{n_operands} operand(s): {cvt} takes {}", shape.describe()));
        }
        check_register("destination", dst_width)?;
        let widths: Vec<u32> = (0..n_operands).map(|i| operand_widths.add(i).read_unaligned()).collect();
        for (i, &w) in widths.iter().enumerate() {
            check_register(&format!("operand {}:", i + 1), w)?;
        }
        let regs = ptx_cvt::Regs { dst: dst_width, src: widths[0] };
        ptx_cvt::instr::check(&cvt, regs, target, version)
            .map_err(|e| Error { code: PTX_CVT_EILLEGAL, message: e.to_string() })?;
        // One evaluation on zero operands makes the engines' own checks
        // (packed register widths) now rather than on the first real call.
        let zeros: Vec<Operand> = widths.iter().map(|&width| Operand { bits: 0, width }).collect();
        evaluate_accept(&cvt, &zeros, dst_width, profile)
            .map_err(|e| Error { code: PTX_CVT_EILLEGAL, message: e.to_string() })?;
        let plan = match profile {
            Profile::Sm90 => {
                fast::evaluate(&cvt, &zeros, dst_width)
                    .map_err(|e| Error { code: PTX_CVT_EILLEGAL, message: e.to_string() })?;
                Some(
                    Plan::new(&cvt, widths[0], dst_width)
                        .map_err(|e| Error { code: PTX_CVT_EILLEGAL, message: e.to_string() })?,
                )
            }
            _ => None,
        };
        let natural_single = widths.len() == 1 && widths[0] == cvt.atype.bits() && dst_width == cvt.dtype.bits();
        let one_mask = if widths.len() == 1 { width_mask(widths[0]) } else { 0 };
        let dst_mask = width_mask(dst_width);
        let lane = plan.as_ref().filter(|_| widths.len() == 1).and_then(Plan::plain_lane);
        Ok(Prepared { cvt, widths, dst_width, profile, plan, natural_single, one_mask, dst_mask, lane })
    }

    /// The operands of element `row` of a row-major array, checked.
    ///
    /// # Safety
    /// `operands` holds at least `(row + 1) * widths.len()` values.
    unsafe fn operands(&self, operands: *const u64, row: usize, out: &mut [Operand]) -> Result<(), Error> {
        let n = self.widths.len();
        for (i, (o, &width)) in out.iter_mut().zip(&self.widths).enumerate() {
            let bits = operands.add(row * n + i).read_unaligned();
            if bits & !width_mask(width) != 0 {
                return fail(
                    PTX_CVT_EILLEGAL,
                    format!("element {row}, operand {}: {bits:#x} does not fit a {width}-bit register", i + 1),
                );
            }
            *o = Operand { bits, width };
        }
        Ok(())
    }

    fn result(&self, ops: &[Operand]) -> Result<Answer, Error> {
        match &self.plan {
            Some(p) => Ok(Answer::Fast(p.eval(ops))),
            None => evaluate_accept(&self.cvt, ops, self.dst_width, self.profile)
                .map(Answer::Exact)
                .map_err(|e| Error { code: PTX_CVT_EILLEGAL, message: e.to_string() }),
        }
    }

    /// One evaluation: (code, bits, mask) as `ptx_cvt_eval_prepared`
    /// returns them (as `ptx_cvt_eval` does: 0, 0 for a set bits/mask
    /// cannot express).
    ///
    /// # Safety
    /// `operands` holds the handle's operand count.
    pub(crate) unsafe fn eval_one(&self, operands: *const u64) -> Result<(c_int, u64, u64), Error> {
        let mut ops = [Operand { bits: 0, width: 8 }; MAX_OPS];
        let ops = &mut ops[..self.widths.len()];
        self.operands(operands, 0, ops)?;
        Ok(match self.result(ops)?.pattern(self.dst_width) {
            Some((value, mask)) => (PTX_CVT_OK, value, mask),
            None => (PTX_CVT_NOT_BITS, 0, 0),
        })
    }

    /// The hot path of `ptx_cvt_eval_prepared`: one operand that fits its
    /// register, under the fast engine, answered by one value or pattern.
    /// None sends the call down the full path (checks, messages, sets).
    #[inline(always)]
    pub(crate) fn quick(&self, x: u64) -> Option<(u64, u64)> {
        let plan = self.plan.as_ref()?;
        let [width] = self.widths[..] else { return None };
        if x & !width_mask(width) != 0 {
            return None;
        }
        let all = width_mask(self.dst_width);
        match plan.eval(&[Operand { bits: x, width }]) {
            FastResult::Bits(v) => Some((v, all)),
            FastResult::Pattern { value, mask } => Some((value & mask & all, mask & all)),
            _ => None,
        }
    }

    /// `ptx_cvt_eval1`: (code, bits) for one operand. `PTX_CVT_OK` with the
    /// value when the result is one value; `PTX_CVT_NOT_BITS` with one member
    /// of the set otherwise (the member `eval_batch` writes: open bits zero,
    /// the canonical NaN for any NaN); a negative code (bits 0) for a form
    /// of several operands or an operand that does not fit its register.
    #[inline(always)]
    pub(crate) fn eval1(&self, x: u64) -> (c_int, u64) {
        // The hot path: one test, one call of the form's kernel lane.
        if let Some(lane) = &self.lane {
            if x & !self.one_mask == 0 {
                return (PTX_CVT_OK, lane.eval(x));
            }
        }
        self.eval1_full(x)
    }

    /// `ptx_cvt_eval1`'s hot path: the form's kernel lane, where it answers
    /// `x` (one operand that fits its register, a plain lane under sm90).
    #[inline(always)]
    pub(crate) fn hot_lane(&self, x: u64) -> Option<&PlainLane> {
        self.lane.as_ref().filter(|_| x & !self.one_mask == 0)
    }

    /// [`Prepared::eval1`] without a plain kernel lane (or with stray bits).
    #[inline(never)]
    fn eval1_full(&self, x: u64) -> (c_int, u64) {
        // One test refuses both: a form of several operands has `one_mask` 0
        // (and every x, 0 included, is refused below).
        if x & !self.one_mask != 0 || self.one_mask == 0 {
            return (PTX_CVT_EILLEGAL, 0);
        }
        let all = self.dst_mask;
        match &self.plan {
            Some(plan) => match plan.eval(&[Operand { bits: x, width: self.widths[0] }]) {
                FastResult::Bits(v) => (PTX_CVT_OK, v),
                FastResult::Pattern { value, mask } if mask & all == all => (PTX_CVT_OK, value & all),
                r => (PTX_CVT_NOT_BITS, r.representative() & all),
            },
            None => self.eval1_exact(x),
        }
    }

    /// [`Prepared::eval1`] under the exact engine (the `isa` profile).
    #[cold]
    #[inline(never)]
    fn eval1_exact(&self, x: u64) -> (c_int, u64) {
        let ops = [Operand { bits: x, width: self.widths[0] }];
        let answer = match self.result(&ops) {
            Ok(a) => a,
            Err(e) => return (e.code, 0),
        };
        match answer.pattern(self.dst_width) {
            Some((value, mask)) if mask == self.dst_mask => (PTX_CVT_OK, value),
            _ => (PTX_CVT_NOT_BITS, answer.member() & self.dst_mask),
        }
    }

    /// Whether `bits` is acceptable for the operands.
    ///
    /// # Safety
    /// As for [`Prepared::eval_one`].
    pub(crate) unsafe fn accepts(&self, operands: *const u64, bits: u64) -> Result<bool, Error> {
        let mut ops = [Operand { bits: 0, width: 8 }; MAX_OPS];
        let ops = &mut ops[..self.widths.len()];
        self.operands(operands, 0, ops)?;
        if bits & !width_mask(self.dst_width) != 0 {
            return Ok(false);
        }
        Ok(match self.result(ops)? {
            Answer::Fast(FastResult::Bits(v)) => v == bits,
            Answer::Fast(r) => r.to_accept(self.dst_width).contains(bits),
            Answer::Exact(set) => set.contains(bits),
        })
    }

    /// Evaluate `n` elements: each result, or for a set (any NaN) one member
    /// of it (the canonical NaN, as the Rust batch API gives).
    ///
    /// # Safety
    /// `operands` holds `n` rows of the operand count, `results` `n` values.
    pub(crate) unsafe fn eval_batch(&self, n: usize, operands: *const u64, results: *mut u64) -> Result<(), Error> {
        if n == 0 {
            return Ok(());
        }
        if operands.is_null() {
            return fail(PTX_CVT_EARG, "operands is NULL");
        }
        if results.is_null() {
            return fail(PTX_CVT_EARG, "results is NULL");
        }
        let out = std::slice::from_raw_parts_mut(results, n);
        if self.natural_single && self.plan.is_some() && operands.is_aligned() {
            let inputs = std::slice::from_raw_parts(operands, n);
            let mask = width_mask(self.widths[0]);
            // One OR over the inputs (vectorised); the search only on a failure.
            let stray = inputs.iter().fold(0u64, |a, &x| a | x) & !mask != 0;
            if let Some(row) = inputs.iter().position(|&x| stray && x & !mask != 0) {
                return fail(
                    PTX_CVT_EILLEGAL,
                    format!(
                        "element {row}, operand 1: {:#x} does not fit a {}-bit register",
                        inputs[row], self.widths[0]
                    ),
                );
            }
            return fast::evaluate_batch(&self.cvt, inputs, out)
                .map_err(|e| Error { code: PTX_CVT_EILLEGAL, message: e.to_string() });
        }
        let mut ops = [Operand { bits: 0, width: 8 }; MAX_OPS];
        let ops = &mut ops[..self.widths.len()];
        for (row, o) in out.iter_mut().enumerate() {
            self.operands(operands, row, ops)?;
            *o = self.result(ops)?.member();
        }
        Ok(())
    }
}

impl Prepared {
    /// Evaluate `n` elements held in arrays of the registers' own widths
    /// (`ptx_cvt_eval_slice`): single-operand forms only.
    ///
    /// # Safety
    /// `operands` holds `n` elements of the source register's width,
    /// `results` room for `n` of the destination's; both aligned for them.
    pub(crate) unsafe fn eval_slice(&self, n: usize, operands: *const u8, results: *mut u8) -> Result<(), Error> {
        if self.widths.len() != 1 {
            return fail(
                PTX_CVT_EILLEGAL,
                format!("{} takes {} operands: ptx_cvt_eval_batch takes them in rows", self.cvt, self.widths.len()),
            );
        }
        if n == 0 {
            return Ok(());
        }
        if operands.is_null() || results.is_null() {
            return fail(PTX_CVT_EARG, if operands.is_null() { "operands is NULL" } else { "results is NULL" });
        }
        let (iw, ow) = (self.widths[0], self.dst_width);
        if !(operands as usize).is_multiple_of(iw as usize / 8) {
            return fail(PTX_CVT_EARG, format!("operands is not aligned for {iw}-bit elements"));
        }
        if !(results as usize).is_multiple_of(ow as usize / 8) {
            return fail(PTX_CVT_EARG, format!("results is not aligned for {ow}-bit elements"));
        }
        macro_rules! run {
            ($i:ty, $o:ty) => {{
                let ins = std::slice::from_raw_parts(operands.cast::<$i>(), n);
                let outs = std::slice::from_raw_parts_mut(results.cast::<$o>(), n);
                self.slice_typed(ins, outs)
            }};
        }
        match (iw, ow) {
            (8, 8) => run!(u8, u8),
            (8, 16) => run!(u8, u16),
            (8, 32) => run!(u8, u32),
            (8, 64) => run!(u8, u64),
            (16, 8) => run!(u16, u8),
            (16, 16) => run!(u16, u16),
            (16, 32) => run!(u16, u32),
            (16, 64) => run!(u16, u64),
            (32, 8) => run!(u32, u8),
            (32, 16) => run!(u32, u16),
            (32, 32) => run!(u32, u32),
            (32, 64) => run!(u32, u64),
            (64, 8) => run!(u64, u8),
            (64, 16) => run!(u64, u16),
            (64, 32) => run!(u64, u32),
            _ => run!(u64, u64),
        }
    }

    fn slice_typed<I: fast::Word, O: fast::Word>(&self, ins: &[I], outs: &mut [O]) -> Result<(), Error> {
        if self.natural_single && self.plan.is_some() {
            return fast::evaluate_slice(&self.cvt, ins, outs)
                .map_err(|e| Error { code: PTX_CVT_EILLEGAL, message: e.to_string() });
        }
        for (o, &x) in outs.iter_mut().zip(ins) {
            let ops = [Operand { bits: x.widen(), width: self.widths[0] }];
            *o = O::narrow(self.result(&ops)?.member());
        }
        Ok(())
    }
}

/// Room for the operands of any form (x4 `.rs` forms take five: four
/// sources and the random bits); `Prepared::new` checks the count.
const MAX_OPS: usize = 8;

/// A result from either engine.
enum Answer {
    Fast(FastResult),
    Exact(ptx_cvt::AcceptSet),
}

impl Answer {
    /// (value, mask) when the result is one value/mask pattern.
    fn pattern(&self, width: u32) -> Option<(u64, u64)> {
        let all = width_mask(width);
        match self {
            Answer::Fast(FastResult::Bits(v)) => Some((*v, all)),
            Answer::Fast(FastResult::Pattern { value, mask }) => Some((value & mask & all, mask & all)),
            Answer::Fast(_) => None,
            Answer::Exact(set) => match set.alts.as_slice() {
                [Alt::Bits { value, mask }] => Some((value & mask & all, mask & all)),
                _ => None,
            },
        }
    }

    /// One member of the set.
    fn member(&self) -> u64 {
        match self {
            Answer::Fast(r) => r.representative(),
            Answer::Exact(set) => match set.alts.first() {
                Some(Alt::Bits { value, mask }) => value & mask,
                Some(Alt::AnyNan(f)) => FastResult::AnyNan(*f).representative(),
                Some(Alt::Lanes { bits, lanes }) => lanes.iter().fold(0, |acc, l| {
                    let v = match l {
                        LaneSet::Bits { value, mask } => value & mask,
                        LaneSet::AnyNan(f) => FastResult::AnyNan(*f).representative(),
                    };
                    acc << bits | (v & width_mask(*bits))
                }),
                None => 0,
            },
        }
    }
}
