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
//! [`Plan`] asks most of them once per instruction), and
//! `Profile::tf32_low_bits_mask`; legality is the instruction model's
//! (`instr::check`).
//!
//! Speed: an instruction is turned into a [`Plan`] once (the last plan is
//! cached per thread, so repeated [`evaluate`] calls on one instruction skip
//! the legality check); evaluating a plan allocates nothing.

mod arith;
mod kernels;
mod lanes;
mod scaled;
mod table;

#[doc(hidden)]
pub use self::kernels::Isa;

use std::cell::RefCell;
use std::fmt;

use crate::accept::{width_mask, AcceptSet, Alt, LaneSet};
use crate::decide::{self, Decisions, IntToInt, Ptx, Special};
use crate::format::Format;
use crate::instr::{self, Cvt, Family, Regs, Rounding, Type};
use crate::operand::{check_evaluated, check_packed_widths, operand_count_error, EvalError, Operand};
use crate::policy::{NanOut, Profile, Question};
use crate::round::Mode;

use self::arith::{
    decode_float, decode_int, encode_finite, encode_inf, encode_max, encode_nan, greater, msb, round, Fl, Lf, Val,
};

/// What the destination register may hold: the fast engine's counterpart of
/// an [`AcceptSet`], small and `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastResult {
    /// Exactly these bits.
    Bits(u64),
    /// These bits wherever `mask` is set (tf32 low bits left open by a profile).
    Pattern { value: u64, mask: u64 },
    /// Any NaN of the format, zero-extended to the register.
    AnyNan(Format),
    /// A packed result with any-NaN lanes: `count` lanes of `lane_bits`;
    /// lane `i` (0 = lowest) is any NaN of `format` when bit `i` of
    /// `nan_lanes` is set, else its bits in `value`.
    Lanes { lane_bits: u8, count: u8, nan_lanes: u8, format: Format, value: u64 },
}

impl FastResult {
    /// The acceptance set, in the exact engine's canonical representation.
    pub fn to_accept(&self, width: u32) -> AcceptSet {
        match *self {
            FastResult::Bits(v) => AcceptSet::exact(width, v),
            FastResult::Pattern { value, mask } => AcceptSet { width, alts: vec![Alt::Bits { value, mask }] },
            FastResult::AnyNan(f) => AcceptSet::any_nan(width, f),
            FastResult::Lanes { lane_bits, count, nan_lanes, format, value } => {
                let lb = lane_bits as u32;
                let lanes = (0..count as u32)
                    .rev()
                    .map(|i| {
                        if nan_lanes >> i & 1 == 1 {
                            LaneSet::AnyNan(format)
                        } else {
                            LaneSet::Bits { value: (value >> (i * lb)) & width_mask(lb), mask: width_mask(lb) }
                        }
                    })
                    .collect();
                AcceptSet { width, alts: vec![Alt::Lanes { bits: lb, lanes }] }
            }
        }
    }
    /// The single value, when the result is one value.
    pub fn single(&self, width: u32) -> Option<u64> {
        match *self {
            FastResult::Bits(v) => Some(v),
            FastResult::Pattern { value, mask } if mask == width_mask(width) => Some(value),
            _ => None,
        }
    }
    /// One member of the set: the value itself, the pattern with open bits
    /// zero, the format's canonical NaN (all fraction bits set) for any NaN.
    #[inline(always)]
    pub fn representative(&self) -> u64 {
        match *self {
            FastResult::Bits(v) => v,
            FastResult::Pattern { value, mask } => value & mask,
            FastResult::AnyNan(f) => canonical_nan(f),
            FastResult::Lanes { lane_bits, count, nan_lanes, format, value } => {
                let lb = lane_bits as u32;
                (0..count as u32).fold(value, |v, i| {
                    if nan_lanes >> i & 1 == 1 {
                        (v & !(width_mask(lb) << (i * lb))) | (canonical_nan(format) & width_mask(lb)) << (i * lb)
                    } else {
                        v
                    }
                })
            }
        }
    }
}

fn canonical_nan(f: Format) -> u64 {
    match Lf::of(f) {
        Lf::Float(l) => encode_nan(&l, false, u64::MAX),
        Lf::Int { .. } => 0,
    }
}

impl fmt::Display for FastResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FastResult::Bits(v) => write!(f, "{v:x}"),
            FastResult::Pattern { value, mask } => write!(f, "{value:x}/{mask:x}"),
            FastResult::AnyNan(fm) => write!(f, "any {} NaN", fm.name()),
            FastResult::Lanes { lane_bits, count, .. } => {
                write!(f, "{}", self.to_accept((lane_bits as u32 * count as u32).max(8)))
            }
        }
    }
}

/// What one lane produced, at the lane's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LaneOut {
    Bits(u64),
    AnyNan,
}

/// How NaN sources come out of a float→float lane (decided once per plan).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NanPlan {
    Fixed(u64),
    Any,
    Copy,
    Payload,
}

/// Everything about an instruction that does not depend on the operand
/// values, under a decision set (the oracle's, [`Ptx`], unless built by
/// [`Plan::with_decisions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan<D = Ptx> {
    c: Cvt,
    d: D,
    src: Lf,
    dst: Lf,
    family: Family,
    mode: Mode,
    /// Rounding grid of float destinations: precision (0 = integers) and qmin.
    prec: u32,
    qmin: i32,
    /// .ftz flushes an f32 subnormal source (erratum answered by the profile).
    ftz_in: bool,
    /// .ftz flushes f32 subnormal results; judged after rounding?
    ftz_out: bool,
    ftz_after: bool,
    relu_neg_zero_positive: bool,
    sat_neg_zero_positive: bool,
    nan: NanPlan,
    /// Bits a negative NaN source adds to a canonical NaN result (0: none).
    nan_sign: u64,
    /// ue8m0: the magnitude is converted; the bits a zero result takes.
    drop_sign: bool,
    zero_code: Option<u64>,
    int_to_int: IntToInt,
    pack_c_shift: Option<u32>,
    /// float→int NaN result; int destination range.
    nan_int: u64,
    int_lo: i128,
    int_hi: i128,
    /// Source type bits (scalar) / lane bits (packed source); destination type bits.
    a_bits: u32,
    d_bits: u32,
    lanes: u32,
    packed: bool,
    stochastic: bool,
    /// Destination register width; mask the profile compares (tf32).
    dst_width: u32,
    dst_mask: u64,
    dst_signed_int: bool,
    /// The lane scale and the s2f6 rules (fast/scaled.rs).
    scale: scaled::ScalePlan,
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
        Plan::with_decisions(c, src_width, dst_width, Ptx)
    }
}

impl<D: Decisions> Plan<D> {
    /// [`Plan::new`] under another decision set than the oracle's (an
    /// alternative reading of the ISA, or a deliberate bug: `tests/mutants.rs`).
    pub fn with_decisions(c: &Cvt, src_width: u32, dst_width: u32, d: D) -> Result<Plan<D>, EvalError> {
        instr::check(c, Regs { dst: dst_width, src: src_width }, None, None).map_err(EvalError::Illegal)?;
        check_evaluated(c)?;
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
        let dst_mask = if c.dtype == Type::Tf32 { profile.tf32_low_bits_mask() } else { width_mask(dst_width) };
        let packed = c.dtype.is_packed() || c.atype.is_packed();
        Plan {
            c: *c,
            src,
            dst,
            family,
            mode,
            prec,
            qmin,
            // The f16.f32 erratum: the profile says whether that form flushes its source.
            ftz_in: d.flushes_source(c) && (df != Format::F16 || answers.get(Question::FtzF16Input)),
            ftz_out: matches!(dst, Lf::Float(_)) && d.flushes_result(c),
            ftz_after: answers.get(Question::FtzAfterRounding),
            relu_neg_zero_positive: answers.get(Question::ReluNegZeroToPositive),
            sat_neg_zero_positive: d.sat_neg_zero_to_positive(),
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
            d,
        }
    }

    /// The instruction this plan evaluates.
    pub fn cvt(&self) -> &Cvt {
        &self.c
    }

    /// Evaluate on operands (their count and widths are the caller's to check,
    /// see [`evaluate`]).
    #[inline(always)]
    pub fn eval(&self, ops: &[Operand]) -> FastResult {
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
    /// for a scaled pair form ([`fold_plan`]) the pair above its 16-bit scale.
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
    fn float_to_float(&self, s: &Fl, d: &Fl, x: u64, mode: Mode) -> LaneOut {
        let v = decode_float(s, x);
        if let Val::Nan { neg, quiet, payload } = v {
            return match self.nan {
                NanPlan::Fixed(b) => LaneOut::Bits(if neg { b | self.nan_sign } else { b }),
                NanPlan::Any => LaneOut::AnyNan,
                NanPlan::Copy => LaneOut::Bits(encode_nan(d, neg, payload) & !(d.quiet_bit * (!quiet) as u64)),
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

    /// After rounding to a float destination: .sat, .relu, overflow, .ftz, encode.
    #[inline(always)]
    fn finish_float(
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
        if c.sat {
            // Clamp to [0, 1]; the .ftz result flush below still applies.
            if neg && (sig != 0 || self.sat_neg_zero_positive) {
                (neg, sig) = (false, 0);
            } else if greater(sig, q, 1, 0) {
                (sig, q) = (1, 0);
            }
        } else if c.relu && neg && (sig != 0 || self.relu_neg_zero_positive) {
            (neg, sig) = (false, 0);
        }
        if !c.sat && greater(sig, q, d.max_sig, d.max_exp) {
            let (s, _) = self.d.overflow(c.dtype.format(), c.satfinite, mode, neg, r.away);
            return LaneOut::Bits(special(d, s));
        }
        if self.ftz_out && sig != 0 {
            let tiny_after = msb(sig, q) < d.emin;
            let tiny = if self.ftz_after || exact_sig == 0 { tiny_after } else { msb(exact_sig, exact_exp) < d.emin };
            if tiny {
                sig = 0;
            }
        }
        if sig == 0 {
            if let Some(code) = self.zero_code {
                // ue8m0 has no zero: 00 is 2^-127.
                return LaneOut::Bits(code);
            }
        }
        LaneOut::Bits(encode_finite(d, neg, sig, q))
    }
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

thread_local! {
    /// The last plan built on this thread, keyed by instruction and register
    /// widths. Evaluated in place: copying a plan out on every call costs more
    /// than evaluating it.
    static LAST: RefCell<Option<(u32, Plan)>> = const { RefCell::new(None) };
}

/// Evaluate `c` on its operands, writing a register of `dst_width` bits,
/// under the sm90 profile.
#[inline]
pub fn evaluate(c: &Cvt, ops: &[Operand], dst_width: u32) -> Result<FastResult, EvalError> {
    check_count(c, ops)?;
    let src_width = ops.first().map_or(c.atype.bits(), |o| o.width);
    let cached = LAST.with(|l| match &*l.borrow() {
        // A cached plan passed the legality check for these widths.
        Some((w, p)) if p.c == *c && p.dst_width == dst_width && *w == src_width => {
            Some(check_widths(c, ops).map(|()| p.eval(ops)))
        }
        _ => None,
    });
    if let Some(r) = cached {
        return r;
    }
    let plan = Plan::new(c, src_width, dst_width)?;
    check_widths(c, ops)?;
    let r = plan.eval(ops);
    LAST.with(|l| *l.borrow_mut() = Some((src_width, plan)));
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
/// Panics if the slices differ in length.
///
/// Most forms (every one with sources of at most 32 bits) run as kernels
/// specialised per form, or on per-lane lookup tables, vectorised for the
/// CPU's widest vector unit; the rest run the generic lane path.
pub fn evaluate_batch(c: &Cvt, inputs: &[u64], out: &mut [u64]) -> Result<(), EvalError> {
    evaluate_batch_on(c, inputs, out, Isa::Best)
}

/// [`evaluate_batch`] with the kernels built for a given vector unit (for
/// tests and benchmarks; an unavailable one falls back to the baseline).
#[doc(hidden)]
pub fn evaluate_batch_on(c: &Cvt, inputs: &[u64], out: &mut [u64], isa: Isa) -> Result<(), EvalError> {
    assert_eq!(inputs.len(), out.len(), "evaluate_batch: inputs and out differ in length");
    let plan = batch_plan(c)?;
    if !kernels::try_run(&plan, &mut kernels::Slices { isa, inputs, out: &mut *out }) {
        evaluate_batch_generic(&plan, inputs, out);
    }
    Ok(())
}

/// The generic lane path over a slice.
fn evaluate_batch_generic(plan: &Plan, inputs: &[u64], out: &mut [u64]) {
    for (o, &a) in out.iter_mut().zip(inputs) {
        *o = plan.eval_input(a).representative();
    }
}

/// Whether [`fold_range`] (and [`evaluate_batch`], for single-operand
/// forms) runs `c` as a specialised kernel (or on tables).
#[doc(hidden)]
pub fn has_kernel(c: &Cvt) -> bool {
    fold_plan(c)
        .is_ok_and(|p| kernels::try_run(&p, &mut kernels::Slices { isa: Isa::Baseline, inputs: &[], out: &mut [] }))
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
