//! The generic lane path: a [`Plan`] evaluated on operands, one lane at a
//! time (decode, (flush), round with `arith::round`, apply
//! the steps of `decide::FINISH`, encode), then placed in the register.

use super::arith::{
    self, decode_float, decode_int, encode_finite, encode_inf, encode_max, encode_nan, greater, msb, round, Fl, Lf, Val,
};
use super::plan::{NanPlan, Plan};
use super::result::FastResult;
use super::SCALE_BITS;
use crate::accept::width_mask;
use crate::decide::{Decisions, Finish, FtzCutoff, IntToInt, Special, FINISH};
use crate::operand::Operand;
use crate::round::Mode;

/// What one lane produced, at the lane's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LaneOut {
    Bits(u64),
    AnyNan,
}

impl<D: Decisions> Plan<D> {
    /// Evaluate on operands (their count and widths are the caller's to check,
    /// see [`super::evaluate`]): through the form's batch kernel lane where
    /// the plan holds one (fast/single.rs), else the generic lane path.
    #[inline(always)]
    pub fn eval(&self, ops: &[Operand]) -> FastResult {
        match &self.single {
            Some(s) => s.eval(ops[0].bits),
            None => self.eval_lanes(ops),
        }
    }

    /// The form's kernel lane, where [`Plan::eval`] on one operand is
    /// always `FastResult::Bits` of the lane's answer (a scalar
    /// single-operand form with a kernel, whose results are single values
    /// that fill the register: no any NaN, no sign extension, no open bits).
    #[doc(hidden)]
    pub fn plain_lane(&self) -> Option<super::PlainLane> {
        self.single.as_ref().and_then(|s| s.plain())
    }

    /// The generic lane path, not inlined: inlined, its size (and stack
    /// frame) would slow every single-value call on a kernel lane.
    #[inline(never)]
    fn eval_lanes(&self, ops: &[Operand]) -> FastResult {
        self.eval_generic(ops)
    }

    /// [`Plan::eval`] on the generic lane path only (the reference the
    /// kernels are tested against).
    #[doc(hidden)]
    #[inline(always)]
    pub fn eval_generic(&self, ops: &[Operand]) -> FastResult {
        if !self.packed {
            return self.finish_scalar(self.lane(ops[0].bits, self.mode));
        }
        let c = &self.c;
        let rbits = if self.stochastic { ops[ops.len() - 1].bits } else { 0 };
        let lb = self.d_bits;
        let (mut value, mut nan_lanes) = (0u64, 0u8);
        for i in (0..self.lanes).rev() {
            let j = self.d.source_lane(i, self.lanes);
            let bits = if c.atype.is_packed() {
                (ops[0].bits >> (j * self.a_bits)) & width_mask(self.a_bits)
            } else {
                ops[(self.lanes - 1 - j) as usize].bits
            };
            let mode = if self.stochastic {
                let (rbits, width) = self.d.stochastic_bits(c.dtype, rbits, i);
                Mode::Stochastic { rbits, width }
            } else {
                self.mode
            };
            value <<= lb;
            let out = match self.lane_code(ops, i) {
                Some(code) => self.lane_scaled(bits, code, mode),
                None => self.lane(bits, mode),
            };
            match out {
                LaneOut::Bits(b) => value |= b & width_mask(lb),
                LaneOut::AnyNan => nan_lanes |= 1 << i,
            }
        }
        if let Some(shift) = self.pack_c_shift {
            // cvt.pack: c's low bits above the two lanes.
            value |= (ops[2].bits << shift) & width_mask(32);
        }
        if nan_lanes == 0 {
            FastResult::Bits(value)
        } else {
            FastResult::Lanes {
                lane_bits: lb as u8,
                count: self.lanes as u8,
                nan_lanes,
                format: c.dtype.format(),
                value,
            }
        }
    }

    /// Evaluate a single-operand form on the source bits.
    #[inline(always)]
    pub fn eval1(&self, a: u64) -> FastResult {
        self.eval(&[Operand { bits: a, width: self.c.atype.bits() }])
    }

    /// Evaluate on an input number of the fold path: the source bits, or
    /// for a scaled pair form ([`super::fold_plan`]) the pair above its 16-bit scale.
    #[inline(always)]
    pub(super) fn eval_input(&self, x: u64) -> FastResult {
        if !self.c.scaled {
            return self.eval1(x);
        }
        let a = Operand { bits: x >> SCALE_BITS, width: self.c.atype.bits() };
        self.eval(&[a, Operand { bits: x & width_mask(SCALE_BITS), width: SCALE_BITS }])
    }

    /// Place a scalar (or tf32) type-width result in the destination register (docs/semantics.md §4).
    #[inline(always)]
    fn finish_scalar(&self, r: LaneOut) -> FastResult {
        match r {
            LaneOut::AnyNan => FastResult::AnyNan(self.c.dtype.format()),
            LaneOut::Bits(b) => {
                let n = self.d_bits;
                let mut bits = b & width_mask(n);
                if self.dst_signed_int && self.dst_width > n && (bits >> (n - 1)) & 1 == 1 {
                    bits |= width_mask(self.dst_width) & !width_mask(n);
                }
                if self.dst_mask == width_mask(self.dst_width) {
                    FastResult::Bits(bits)
                } else {
                    FastResult::Pattern { value: bits & self.dst_mask, mask: self.dst_mask }
                }
            }
        }
    }

    /// Convert one lane (or a scalar) from the low bits of `x`.
    #[inline(always)]
    fn lane(&self, x: u64, mode: Mode) -> LaneOut {
        match (self.src, self.dst) {
            (Lf::Int { bits: sb, signed: ss }, Lf::Int { bits: db, .. }) => {
                let v = match self.int_to_int {
                    IntToInt::Saturate => decode_int(sb, ss, x).clamp(self.int_lo, self.int_hi),
                    IntToInt::ZeroExtend => decode_int(sb, false, x),
                    IntToInt::Chop | IntToInt::SignExtend | IntToInt::SameWidth => decode_int(sb, ss, x),
                };
                LaneOut::Bits(v as u64 & width_mask(db))
            }
            (Lf::Int { bits, signed }, Lf::Float(d)) => {
                let v = decode_int(bits, signed, x);
                let (neg, sig) = (v < 0, v.unsigned_abs());
                let r = round(neg, sig, 0, d.prec, d.qmin, mode);
                self.finish_float(&d, neg, sig, 0, r, mode)
            }
            (Lf::Float(s), Lf::Int { .. }) => self.float_to_int(&s, x, mode),
            (Lf::Float(s), Lf::Float(d)) => self.float_to_float(&s, &d, x, mode),
        }
    }

    #[inline(always)]
    fn ftz_input(&self, s: &Fl, v: Val) -> Val {
        match v {
            Val::Num { neg, sig, exp } if self.ftz_in && sig != 0 && msb(sig, exp) < s.emin && s.subnormals => {
                Val::Num { neg, sig: 0, exp: 0 }
            }
            v => v,
        }
    }

    #[inline(always)]
    fn float_to_int(&self, s: &Fl, x: u64, mode: Mode) -> LaneOut {
        let n = self.d_bits;
        let v = match self.ftz_input(s, decode_float(s, x)) {
            Val::Nan { .. } => return LaneOut::Bits(self.nan_int),
            Val::Inf { neg } => self.d.inf_to_int(self.c.dtype, neg),
            Val::Num { neg, sig, exp } => {
                let mag: Option<u128> = if sig == 0 {
                    Some(0)
                } else if exp >= 0 {
                    // Integral already; 2^64 and above is outside every destination range.
                    (msb(sig, exp) < 64).then(|| sig << exp as u32)
                } else {
                    Some(round(neg, sig, exp, 0, 0, mode).sig)
                };
                match mag {
                    // mag <= 2^64: fits an i128 with its sign.
                    Some(m) => {
                        let i = if neg { -(m as i128) } else { m as i128 };
                        if i < self.int_lo || i > self.int_hi {
                            self.d.int_out_of_range(self.c.dtype, i < 0, i as u64)
                        } else {
                            i
                        }
                    }
                    None => {
                        // At least 2^64, integral (exp >= 0): its low 64 bits.
                        let low = if exp >= 128 { 0 } else { (sig << exp as u32) as u64 };
                        self.d.int_out_of_range(self.c.dtype, neg, if neg { low.wrapping_neg() } else { low })
                    }
                }
            }
        };
        LaneOut::Bits(v as u64 & width_mask(n))
    }

    #[inline(always)]
    pub(super) fn float_to_float(&self, s: &Fl, d: &Fl, x: u64, mode: Mode) -> LaneOut {
        self.value_to_float(s, d, decode_float(s, x), mode)
    }

    /// [`Plan::float_to_float`] on a decoded value (the n1 scale divides it first).
    #[inline(always)]
    pub(super) fn value_to_float(&self, s: &Fl, d: &Fl, v: Val, mode: Mode) -> LaneOut {
        if let Val::Nan { neg, quiet, payload } = v {
            return match self.nan {
                NanPlan::Fixed(b) => LaneOut::Bits(if neg { b | self.nan_sign } else { b }),
                NanPlan::Any => LaneOut::AnyNan,
                NanPlan::Copy => LaneOut::Bits(encode_nan(d, neg, payload) & !(d.quiet_bit * (!quiet) as u64)),
                NanPlan::Source(out) => LaneOut::Bits(
                    out.source_bits(self.c.atype.format(), self.c.dtype.format(), neg, quiet, payload)
                        .expect("float formats"),
                ),
                NanPlan::Payload => {
                    // Align the payload's top bits under the quiet bit.
                    let (sb, db) = (s.man_bits.saturating_sub(1), d.man_bits - 1);
                    let p = if sb >= db { payload >> (sb - db) } else { payload << (db - sb) };
                    LaneOut::Bits(encode_nan(d, neg, p))
                }
            };
        }
        let mut v = self.ftz_input(s, v);
        if self.drop_sign {
            // ue8m0: the magnitude is converted.
            v = match v {
                Val::Num { sig, exp, .. } => Val::Num { neg: false, sig, exp },
                Val::Inf { .. } => Val::Inf { neg: false },
                nan => nan,
            };
        }
        match v {
            Val::Num { neg, sig, exp } => {
                let r = round(neg, sig, exp, self.prec, self.qmin, mode);
                self.finish_float(d, neg, sig, exp, r, mode)
            }
            Val::Inf { neg } => LaneOut::Bits(self.inf(d, neg)),
            Val::Nan { .. } => unreachable!("handled above"),
        }
    }

    #[inline(always)]
    fn inf(&self, d: &Fl, neg: bool) -> u64 {
        special(d, self.d.inf_source(&self.c, self.c.dtype.format(), neg).0)
    }

    /// After rounding to a float destination: the steps of [`FINISH`] in
    /// their order, then the encoding.
    #[inline(always)]
    pub(super) fn finish_float(
        &self,
        d: &Fl,
        neg: bool,
        exact_sig: u128,
        exact_exp: i32,
        r: arith::Rounded,
        mode: Mode,
    ) -> LaneOut {
        let c = &self.c;
        let (mut neg, mut sig, mut q) = (neg, r.sig, r.q);
        for step in FINISH {
            match step {
                Finish::Sat if c.sat => {
                    // Clamp to [0, 1].
                    if neg && (sig != 0 || self.sat_neg_zero_positive) {
                        (neg, sig) = (false, 0);
                    } else if greater(sig, q, 1, 0) {
                        (sig, q) = (1, 0);
                    }
                }
                Finish::Relu if !c.sat && c.relu && neg && (sig != 0 || self.relu_neg_zero_positive) => {
                    (neg, sig) = (false, 0);
                }
                Finish::Overflow if !c.sat && greater(sig, q, d.max_sig, d.max_exp) => {
                    let (s, _) = self.d.overflow(c.dtype.format(), c.satfinite, mode, neg, r.away);
                    return LaneOut::Bits(special(d, s));
                }
                Finish::FlushResult if self.ftz_out && sig != 0 => {
                    let tiny = match self.ftz_cut[neg as usize] {
                        FtzCutoff::Below { gap } => below_cutoff(exact_sig, exact_exp, d.emin, gap),
                        FtzCutoff::Answer => {
                            let tiny_after = msb(sig, q) < d.emin;
                            if self.ftz_after || exact_sig == 0 {
                                tiny_after
                            } else {
                                msb(exact_sig, exact_exp) < d.emin
                            }
                        }
                    };
                    if tiny {
                        sig = 0;
                    }
                }
                Finish::PositiveZero if sig == 0 && self.pzo => neg = false,
                Finish::ZeroCode if sig == 0 => {
                    if let Some(code) = self.zero_code {
                        // ue8m0 has no zero: 00 is 2^-127.
                        return LaneOut::Bits(code);
                    }
                }
                _ => {}
            }
        }
        LaneOut::Bits(encode_finite(d, neg, sig, q))
    }
}

/// Whether sig·2^exp (nonzero) is below 2^emin − 2^(emin − gap) (no
/// `gap`: 2^emin), exactly.
#[inline(always)]
fn below_cutoff(sig: u128, exp: i32, emin: i32, gap: Option<u32>) -> bool {
    let top = msb(sig, exp);
    if top != emin - 1 {
        return top < emin - 1;
    }
    let Some(g) = gap else { return true };
    // Both sides in units of 2^(emin − 101): the value's bits shifted there
    // (a right shift drops bits, which cannot change a strict comparison
    // with an integer), the bound (2^g − 1)·2^(101 − g).
    let base = emin - 101;
    let v = if exp >= base { sig << (exp - base) as u32 } else { sig >> (base - exp) as u32 };
    v < ((1u128 << g) - 1) << (101 - g)
}

/// The bits of a magnitude-independent result.
#[inline(always)]
fn special(d: &Fl, s: Special) -> u64 {
    match s {
        Special::Zero => encode_finite(d, false, 0, 0),
        Special::One => encode_finite(d, false, 1, 0),
        Special::Max { neg } => encode_max(d, neg),
        Special::Inf { neg } => encode_inf(d, neg),
        Special::Nan => encode_nan(d, false, u64::MAX),
    }
}
