//! The fast engine's lane scale and s2f6 lanes (docs/semantics.md §5.14):
//! the same decisions as the exact engine's `eval/scale.rs`, asked once per
//! plan, on u128 bits.

use super::arith::{decode_float, decode_int, encode_finite, encode_max, encode_nan, greater, round, Lf, Val};
use super::{LaneOut, Plan};
use crate::decide::Decisions;
use crate::instr::Cvt;
use crate::operand::Operand;
use crate::policy::{NanOut, Profile};
use crate::round::Mode;

/// The ue8m0 code that means NaN, and the code of 2^0 (the format's bias).
const NAN_CODE: u64 = 0xff;
const UNIT_CODE: u64 = 127;

/// Where a lane's scale code comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The form does not scale its lanes.
    None,
    /// Every lane: this code (the s2f6x2 forms without `.scaled::n2::ue8m0`).
    Unit(u64),
    /// Lane i: the byte of the last operand from bit `shifts[i]`.
    Operand,
}

/// The scale and fixed-point decisions of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ScalePlan {
    source: Source,
    shifts: [u32; 4],
    /// Divide by the scale (multiply if false).
    divides: bool,
    /// A lane scaled by the NaN code.
    nan_scale: LaneOut,
    /// Fixed-point destination: the code of a NaN source; whether .relu
    /// zeroes negative and NaN sources; the .satfinite range in units.
    nan_fixed: u64,
    relu_neg: bool,
    relu_nan: bool,
    lo: i64,
    hi: i64,
}

impl ScalePlan {
    pub(super) fn new<D: Decisions>(c: &Cvt, d: &D, profile: Profile) -> ScalePlan {
        let off = ScalePlan {
            source: Source::None,
            shifts: [0; 4],
            divides: false,
            nan_scale: LaneOut::AnyNan,
            nan_fixed: 0,
            relu_neg: false,
            relu_nan: false,
            lo: 0,
            hi: 0,
        };
        if !c.lane_scale() {
            return off;
        }
        let df = c.dtype.format();
        let mut p = ScalePlan {
            source: if c.scaled { Source::Operand } else { Source::Unit(d.unscaled_code()) },
            divides: d.scale_divides(df),
            ..off
        };
        if c.scaled {
            let lanes = c.dtype.lanes().max(c.atype.lanes()).min(4);
            for (i, s) in p.shifts.iter_mut().enumerate().take(lanes as usize) {
                *s = d.scale_byte_shift(i as u32);
            }
        }
        let nan_scale = d.scale_nan(df, profile).0;
        match Lf::of(df) {
            Lf::Float(l) => {
                p.nan_scale = match nan_scale {
                    NanOut::Zero => LaneOut::Bits(encode_finite(&l, false, 0, 0)),
                    NanOut::MaxNorm => LaneOut::Bits(encode_max(&l, false)),
                    NanOut::Canonical => LaneOut::Bits(encode_nan(&l, false, u64::MAX)),
                    // No source NaN to copy: the quiet NaN without payload, as the exact engine.
                    NanOut::Copy | NanOut::Payload => LaneOut::Bits(encode_nan(&l, false, 0)),
                    NanOut::Any(_) => LaneOut::AnyNan,
                };
            }
            Lf::Int { bits, .. } => {
                let top = df.fixed_units().expect("a fixed-point lane").1;
                let code = |out| match out {
                    NanOut::Zero => 0,
                    NanOut::MaxNorm => fixed_code(top, bits),
                    other => unreachable!("a fixed-point lane has no NaN: {other:?}"),
                };
                p.nan_scale = LaneOut::Bits(code(nan_scale));
                p.nan_fixed = code(d.nan_to_fixed(df).0);
                p.relu_neg = d.relu_zeroes_fixed(c, false);
                p.relu_nan = d.relu_zeroes_fixed(c, true);
                (p.lo, p.hi) = d.fixed_range(df);
            }
        }
        p
    }

    /// The ue8m0 code that scales lane `lane` (0 = low), if the form scales its lanes.
    #[inline(always)]
    pub(super) fn code(&self, ops: &[Operand], lane: u32) -> Option<u64> {
        match self.source {
            Source::None => None,
            Source::Unit(code) => Some(code),
            Source::Operand => {
                Some(ops[ops.len() - 1].bits.checked_shr(self.shifts[lane as usize]).unwrap_or(0) & 0xff)
            }
        }
    }
}

/// The two's-complement code of `units` in a `bits`-bit fixed-point lane.
fn fixed_code(units: i64, bits: u32) -> u64 {
    (units as u64) & ((1u64 << bits) - 1)
}

impl<D: Decisions> Plan<D> {
    /// One lane scaled by the ue8m0 `code`: into s2f6 or bf16.
    #[inline(always)]
    pub(super) fn lane_scaled(&self, x: u64, code: u64, mode: Mode) -> LaneOut {
        let p = &self.scale;
        if code == NAN_CODE {
            return p.nan_scale;
        }
        let k = code as i32 - UNIT_CODE as i32;
        let k = if p.divides { -k } else { k };
        match (self.src, self.dst) {
            (Lf::Float(s), Lf::Int { bits, .. }) => {
                // s2f6: 8-bit two's complement in units of 2^-6.
                let (lo, hi) = (p.lo, p.hi);
                match decode_float(&s, x) {
                    Val::Nan { .. } if p.relu_nan => LaneOut::Bits(0),
                    Val::Nan { .. } => LaneOut::Bits(p.nan_fixed),
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
}
