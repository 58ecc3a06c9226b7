//! The fast engine's lane scales and s2f6 lanes (docs/semantics.md §5.14, §5.15):
//! the same decisions as the exact engine's `eval/scale.rs`, on u128 bits;
//! asked once per plan, except the two that place a lane's scale byte.

use super::arith::{decode_float, decode_int, encode_finite, encode_max, encode_nan, greater, msb, round, Lf, Val};
use super::generic::LaneOut;
use super::plan::Plan;
use crate::decide::Decisions;
use crate::instr::Cvt;
use crate::operand::Operand;
use crate::policy::{NanOut, Profile};
use crate::round::Mode;

/// The ue8m0 code that means NaN, and the code of 2^0 (the format's bias).
const NAN_CODE: u64 = 0xff;
const UNIT_CODE: u64 = 127;

/// The scale and fixed-point decisions of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ScalePlan {
    /// Divide by the scale (multiply if false).
    divides: bool,
    /// A lane scaled by the NaN code: these bits, or any NaN.
    nan_scale_any: bool,
    nan_scale: u32,
    /// Fixed-point destination: the code of a NaN source; whether .relu
    /// zeroes negative and NaN sources; the .satfinite range in units.
    nan_fixed: u8,
    relu_neg: bool,
    relu_nan: bool,
    lo: i32,
    hi: i32,
}

impl ScalePlan {
    pub(super) fn new<D: Decisions>(c: &Cvt, d: &D, profile: Profile) -> ScalePlan {
        let mut p = ScalePlan {
            divides: false,
            nan_scale_any: false,
            nan_scale: 0,
            nan_fixed: 0,
            relu_neg: false,
            relu_nan: false,
            lo: 0,
            hi: 0,
        };
        if !c.lane_scale() {
            return p;
        }
        let df = c.dtype.format();
        p.divides = d.scale_divides(df);
        let nan_scale = d.scale_nan(df, profile).0;
        match Lf::of(df) {
            Lf::Float(l) => {
                let bits = match nan_scale {
                    NanOut::Zero => encode_finite(&l, false, 0, 0),
                    NanOut::MaxNorm => encode_max(&l, false),
                    NanOut::Canonical => encode_nan(&l, false, u64::MAX),
                    // No source NaN to copy: the quiet NaN without payload, as the exact engine.
                    NanOut::Copy | NanOut::Payload => encode_nan(&l, false, 0),
                    NanOut::Any(_) => 0,
                    other => unreachable!("a NaN scale has no source NaN for {other:?}"),
                };
                p.nan_scale_any = matches!(nan_scale, NanOut::Any(_));
                p.nan_scale = bits as u32;
            }
            Lf::Int { bits, .. } => {
                let top = df.fixed_units().expect("a fixed-point lane").1;
                let code = |out| match out {
                    NanOut::Zero => 0,
                    NanOut::MaxNorm => fixed_code(top, bits),
                    other => unreachable!("a fixed-point lane has no NaN: {other:?}"),
                };
                p.nan_scale = code(nan_scale) as u32;
                p.nan_fixed = code(d.nan_to_fixed(df).0) as u8;
                p.relu_neg = d.relu_zeroes_fixed(c, false);
                p.relu_nan = d.relu_zeroes_fixed(c, true);
                let (lo, hi) = d.fixed_range(df);
                (p.lo, p.hi) = (lo as i32, hi as i32);
            }
        }
        p
    }
}

/// The two's-complement code of `units` in a `bits`-bit fixed-point lane.
fn fixed_code(units: i64, bits: u32) -> u64 {
    (units as u64) & ((1u64 << bits) - 1)
}

impl<D: Decisions> Plan<D> {
    /// The ue8m0 code that scales lane `lane` (0 = low), if the form scales
    /// its lanes. Asked per lane: the byte's place and the unit code are
    /// constants of the decision set (free for the default set).
    #[inline(always)]
    pub(super) fn lane_code(&self, ops: &[Operand], lane: u32) -> Option<u64> {
        let c = &self.c;
        if !c.lane_scale() {
            return None;
        }
        Some(if c.scaled_n1 {
            self.d.single_scale_code(ops[ops.len() - 1].bits as u8, lane) as u64
        } else if c.scaled {
            ops[ops.len() - 1].bits.checked_shr(self.d.scale_byte_shift(lane)).unwrap_or(0) & 0xff
        } else {
            self.d.unscaled_code() as u64
        })
    }

    /// One lane scaled by the ue8m0 `code`: into s2f6 or bf16.
    #[inline(always)]
    pub(super) fn lane_scaled(&self, x: u64, code: u64, mode: Mode) -> LaneOut {
        let p = &self.scale;
        if code == NAN_CODE {
            return if p.nan_scale_any { LaneOut::AnyNan } else { LaneOut::Bits(p.nan_scale as u64) };
        }
        let k = code as i32 - UNIT_CODE as i32;
        if self.c.scaled_n1 {
            return self.lane_single_scaled(x, k, mode);
        }
        let k = if p.divides { -k } else { k };
        match (self.src, self.dst) {
            (Lf::Float(s), Lf::Int { bits, .. }) => {
                // s2f6: 8-bit two's complement in units of 2^-6.
                let (lo, hi) = (p.lo as i64, p.hi as i64);
                match decode_float(&s, x) {
                    Val::Nan { .. } if p.relu_nan => LaneOut::Bits(0),
                    Val::Nan { .. } => LaneOut::Bits(p.nan_fixed as u64),
                    Val::Inf { neg } if neg && p.relu_neg => LaneOut::Bits(0),
                    Val::Inf { neg } => LaneOut::Bits(fixed_code(if neg { lo } else { hi }, bits)),
                    Val::Num { neg, sig, .. } if neg && sig != 0 && p.relu_neg => LaneOut::Bits(0),
                    Val::Num { neg, sig, exp } => {
                        let r = round(neg, sig, exp + k, 0, -6, mode);
                        let limit = if neg { lo.unsigned_abs() as u128 } else { hi.unsigned_abs() as u128 };
                        let units = if greater(r.sig, r.q, limit, -6) {
                            limit as i64
                        } else if r.sig == 0 {
                            0
                        } else {
                            (r.sig << (r.q + 6) as u32) as i64
                        };
                        LaneOut::Bits(fixed_code(if neg { -units } else { units }, bits))
                    }
                }
            }
            (src, Lf::Float(d)) => {
                let (neg, sig, exp) = match src {
                    Lf::Int { bits, signed } => {
                        let u = decode_int(bits, signed, x);
                        (u < 0, u.unsigned_abs(), -6)
                    }
                    Lf::Float(s) => match decode_float(&s, x) {
                        Val::Num { neg, sig, exp } => (neg, sig, exp),
                        // NaN and ±Inf: the unscaled conversion's rules.
                        _ => return self.float_to_float(&s, &d, x, mode),
                    },
                };
                let exp = if sig == 0 { exp } else { exp + k };
                let r = round(neg, sig, exp, d.prec, d.qmin, mode);
                self.finish_float(&d, neg, sig, exp, r, mode)
            }
            _ => unreachable!("scaled lanes convert between a float and s2f6, or into bf16"),
        }
    }

    /// `.scaled::n1::ue8m0`: flush a subnormal input, divide by 2^k, convert unscaled.
    #[inline(always)]
    fn lane_single_scaled(&self, x: u64, k: i32, mode: Mode) -> LaneOut {
        let (Lf::Float(s), Lf::Float(d)) = (self.src, self.dst) else {
            unreachable!("the n1 scale converts float lanes into float lanes")
        };
        let v = match decode_float(&s, x) {
            Val::Num { neg, sig, exp } if sig != 0 => match self.scale_flush {
                Some(keep_sign) if s.subnormals && msb(sig, exp) < s.emin => {
                    Val::Num { neg: neg && keep_sign, sig: 0, exp: 0 }
                }
                _ => Val::Num { neg, sig, exp: exp - k },
            },
            v => v,
        };
        self.value_to_float(&s, &d, v, mode)
    }
}
