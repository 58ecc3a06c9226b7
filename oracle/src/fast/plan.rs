//! A [`Plan`]: everything about an instruction that does not depend on the
//! operand values, decided once (legality, the decisions of
//! [`crate::decide::Decisions`], the format layouts), evaluated by the
//! generic lane path (`generic.rs`) or the batch kernels (`kernels.rs`).

use super::arith::{encode_finite, encode_max, encode_nan, Lf};
use super::scaled;
use super::single::Single;
use crate::accept::width_mask;
use crate::decide::{self, Decisions, FtzCutoff, IntToInt, Ptx};
use crate::instr::{self, Cvt, Family, Regs, Rounding, Type};
use crate::operand::EvalError;
use crate::policy::{NanOut, Profile, Question};
use crate::round::Mode;

/// How NaN sources come out of a float→float lane (decided once per plan).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NanPlan {
    Fixed(u64),
    Any,
    Copy,
    Payload,
    /// Computed from each source NaN by [`NanOut::source_bits`] (the batch kernels: `NanBits::moved`).
    Source(NanOut),
}

/// Everything about an instruction that does not depend on the operand
/// values, under a decision set (the oracle's, [`Ptx`], unless built by
/// [`Plan::with_decisions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan<D = Ptx> {
    pub(super) c: Cvt,
    pub(super) d: D,
    pub(super) src: Lf,
    pub(super) dst: Lf,
    pub(super) family: Family,
    pub(super) mode: Mode,
    /// Rounding grid of float destinations: precision (0 = integers) and qmin.
    pub(super) prec: u32,
    pub(super) qmin: i32,
    /// .ftz flushes an f32 subnormal source (the f16.f32 erratum answered by the profile).
    pub(super) ftz_in: bool,
    /// .ftz flushes f32 subnormal results; judged after rounding?
    pub(super) ftz_out: bool,
    pub(super) ftz_after: bool,
    /// Where .ftz cuts results off, for a positive and a negative result.
    pub(super) ftz_cut: [FtzCutoff; 2],
    pub(super) relu_neg_zero_positive: bool,
    pub(super) sat_neg_zero_positive: bool,
    /// `.pzo`: a −0 result is written as +0.
    pub(super) pzo: bool,
    /// `.scaled::n1::ue8m0`: subnormal inputs flushed (keeping their sign?) before the division.
    pub(super) scale_flush: Option<bool>,
    pub(super) nan: NanPlan,
    /// Bits a negative NaN source adds to a canonical NaN result (0: none).
    pub(super) nan_sign: u64,
    /// ue8m0: the magnitude is converted; the bits a zero result takes.
    pub(super) drop_sign: bool,
    pub(super) zero_code: Option<u64>,
    pub(super) int_to_int: IntToInt,
    pub(super) pack_c_shift: Option<u32>,
    /// float→int NaN result; int destination range.
    pub(super) nan_int: u64,
    pub(super) int_lo: i128,
    pub(super) int_hi: i128,
    /// Source type bits (scalar) / lane bits (packed source); destination type bits.
    pub(super) a_bits: u32,
    pub(super) d_bits: u32,
    pub(super) lanes: u32,
    pub(super) packed: bool,
    pub(super) stochastic: bool,
    /// Destination register width; mask the profile compares (tf32).
    pub(super) dst_width: u32,
    pub(super) dst_mask: u64,
    pub(super) dst_signed_int: bool,
    /// The lane scale and the s2f6 rules (fast/scaled.rs).
    pub(super) scale: scaled::ScalePlan,
    /// The batch kernel's lane that evaluates one value (fast/single.rs), if the form has one.
    pub(super) single: Option<Single>,
}

fn int_range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

impl Plan {
    /// Check legality for the registers and prepare the evaluation.
    pub fn new(c: &Cvt, src_width: u32, dst_width: u32) -> Result<Plan, EvalError> {
        let mut plan = Plan::with_decisions(c, src_width, dst_width, Ptx)?;
        plan.single = Single::new(&plan);
        Ok(plan)
    }
}

impl<D: Decisions> Plan<D> {
    /// [`Plan::new`] under another decision set than the oracle's (an
    /// alternative reading of the ISA, or a deliberate bug: `tests/mutants.rs`).
    pub fn with_decisions(c: &Cvt, src_width: u32, dst_width: u32, d: D) -> Result<Plan<D>, EvalError> {
        instr::check(c, Regs { dst: dst_width, src: src_width }, None, None).map_err(EvalError::Illegal)?;
        Ok(Plan::prepare(c, src_width, dst_width, d))
    }

    fn prepare(c: &Cvt, src_width: u32, dst_width: u32, d: D) -> Plan<D> {
        let profile = Profile::Sm90;
        let answers = d.answers(profile);
        let (sf, df) = (c.atype.format(), c.dtype.format());
        let (mut src, dst) = (Lf::of(sf), Lf::of(df));
        if let (Lf::Int { bits, signed }, false) = (src, c.atype.is_packed()) {
            let read = d.source_bits(c.atype, src_width);
            if read != bits {
                src = Lf::Int { bits: read, signed };
            }
        }
        let family = instr::family(sf, df);
        let mode = decide::mode_of(&d, c);
        let (prec, qmin) = match (dst, family, c.rounding) {
            (Lf::Float(_), Family::SameFloat, Some(r)) if r.is_integer() => (0, 0),
            (Lf::Float(l), _, _) => (l.prec, l.qmin),
            (Lf::Int { .. }, _, _) => (0, 0),
        };
        let (nan, nan_sign) = match dst {
            Lf::Float(l) => match d.nan_source(c, profile).0 {
                NanOut::Zero => (NanPlan::Fixed(encode_finite(&l, false, 0, 0)), 0),
                NanOut::MaxNorm => (NanPlan::Fixed(encode_max(&l, false)), 0),
                NanOut::Canonical => {
                    let b = encode_nan(&l, false, u64::MAX);
                    let sign = if d.canonical_nan_keeps_sign() { encode_nan(&l, true, u64::MAX) ^ b } else { 0 };
                    (NanPlan::Fixed(b), sign)
                }
                NanOut::Any(_) => (NanPlan::Any, 0),
                NanOut::Copy => (NanPlan::Copy, 0),
                NanOut::Payload => (NanPlan::Payload, 0),
                NanOut::SourceCanonical => {
                    // The same bits for every source NaN.
                    let b = NanOut::SourceCanonical.source_bits(sf, df, false, true, 0).expect("float formats");
                    (NanPlan::Fixed(b), 0)
                }
                out @ (NanOut::Masked { .. } | NanOut::Shifted) => (NanPlan::Source(out), 0),
            },
            Lf::Int { .. } => (NanPlan::Any, 0),
        };
        let d_bits = c.dtype.bits();
        let (int_lo, int_hi, dst_signed_int) = match dst {
            Lf::Int { bits, signed } => {
                let (lo, hi) = int_range(bits, signed);
                (lo, hi, d.dest_sign_extends(c.dtype))
            }
            Lf::Float(_) => (0, 0, false),
        };
        let nan_int = match dst {
            Lf::Int { .. } => d.nan_to_int(c.atype, c.dtype).0,
            Lf::Float(_) => 0,
        };
        let dst_mask = if c.dtype == Type::Tf32 { d.tf32_low_bits(profile) } else { width_mask(dst_width) };
        let packed = c.dtype.is_packed() || c.atype.is_packed();
        Plan {
            c: *c,
            src,
            dst,
            family,
            mode,
            prec,
            qmin,
            ftz_in: d.flushes_source(c, answers).flushes(),
            ftz_out: matches!(dst, Lf::Float(_)) && d.flushes_result(c),
            ftz_after: answers.get(Question::FtzAfterRounding),
            ftz_cut: [false, true].map(|neg| d.ftz_cutoff(c, neg, profile)),
            relu_neg_zero_positive: answers.get(Question::ReluNegZeroToPositive),
            sat_neg_zero_positive: d.sat_neg_zero_to_positive(),
            pzo: d.positive_zero_only(c),
            scale_flush: if c.scaled_n1 { d.single_scale_flush(answers) } else { None },
            nan,
            nan_sign,
            drop_sign: matches!(dst, Lf::Float(_)) && d.drops_sign(df),
            zero_code: if matches!(dst, Lf::Float(_)) { d.zero_code(df) } else { None },
            int_to_int: d.int_to_int(c.sat, c.atype, c.dtype),
            pack_c_shift: if c.dtype.takes_c() { d.pack_c_shift(c.dtype.lane_bits()) } else { None },
            nan_int,
            int_lo,
            int_hi,
            a_bits: if c.atype.is_packed() { c.atype.lane_bits() } else { c.atype.bits() },
            d_bits: if packed { c.dtype.lane_bits() } else { d_bits },
            lanes: c.dtype.lanes().max(c.atype.lanes()),
            packed,
            stochastic: c.rounding == Some(Rounding::Rs),
            dst_width,
            dst_mask,
            dst_signed_int,
            scale: scaled::ScalePlan::new(c, &d, profile),
            single: None,
            d,
        }
    }

    /// The instruction this plan evaluates.
    pub fn cvt(&self) -> &Cvt {
        &self.c
    }

    /// Whether [`Plan::eval`] runs the form's batch kernel lane (else the
    /// generic lane path).
    #[doc(hidden)]
    pub fn holds_kernel(&self) -> bool {
        self.single.is_some()
    }
}
