//! The fast engine's lane scale and s2f6 lanes (docs/semantics.md §5.14):
//! the same decisions as the exact engine's `eval/scale.rs`, on u128 bits.

use super::arith::{decode_float, decode_int, encode_nan, greater, round, Lf, Val};
use super::{LaneOut, Plan};
use crate::decide::Decisions;
use crate::instr::Cvt;
use crate::operand::Operand;
use crate::round::Mode;

/// The ue8m0 code that means NaN, and the code of 2^0.
const NAN_CODE: u64 = 0xff;
const UNIT_CODE: u64 = 127;

/// The ue8m0 code that scales lane `lane` (0 = low), if the form scales its lanes.
#[inline(always)]
pub(super) fn lane_code(c: &Cvt, ops: &[Operand], lane: u32) -> Option<u64> {
    if !c.lane_scale() {
        return None;
    }
    Some(if c.scaled { (ops[ops.len() - 1].bits >> (8 * lane)) & 0xff } else { UNIT_CODE })
}

impl<D: Decisions> Plan<D> {
    /// One lane scaled by the ue8m0 `code`: into s2f6 (divide) or bf16 (multiply).
    #[inline(always)]
    pub(super) fn lane_scaled(&self, x: u64, code: u64, mode: Mode) -> LaneOut {
        let k = code as i32 - UNIT_CODE as i32;
        match (self.src, self.dst) {
            (Lf::Float(s), Lf::Int { bits, .. }) => {
                // s2f6: 8-bit two's complement in units of 2^-6.
                let (lo, hi) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
                let code_of = |u: i64| (u as u64) & ((1u64 << bits) - 1);
                if code == NAN_CODE {
                    return LaneOut::Bits(code_of(hi));
                }
                match decode_float(&s, x) {
                    Val::Nan { .. } => LaneOut::Bits(code_of(hi)),
                    Val::Inf { neg } if neg && self.c.relu => LaneOut::Bits(0),
                    Val::Inf { neg } => LaneOut::Bits(code_of(if neg { lo } else { hi })),
                    Val::Num { neg, sig, .. } if neg && sig != 0 && self.c.relu => LaneOut::Bits(0),
                    Val::Num { neg, sig, exp } => {
                        let r = round(neg, sig, exp - k, 0, -6, mode);
                        let limit = if neg { (-lo) as u128 } else { hi as u128 };
                        let units = if greater(r.sig, r.q, limit, -6) {
                            limit as i64
                        } else if r.sig == 0 {
                            0
                        } else {
                            (r.sig << (r.q + 6) as u32) as i64
                        };
                        LaneOut::Bits(code_of(if neg { -units } else { units }))
                    }
                }
            }
            (src, Lf::Float(d)) => {
                if code == NAN_CODE {
                    // The sm90 profile's canonical NaN (the exact engine's scale-nan rule).
                    return LaneOut::Bits(encode_nan(&d, false, u64::MAX));
                }
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
