//! The lane scales of `.scaled::n2::ue8m0` and `.scaled::n1::ue8m0` and the
//! s2f6 fixed-point lanes (docs/semantics.md §5.14, §5.15), in the exact engine.
//!
//! Evidence: the PTX ISA `cvt` section (9.4: §9.7.10.24) states the scale
//! operands, their byte order, their defaults, division before down-conversion
//! and multiplication after up-conversion, the n1 flush, and s2f6's NaN rule.
//! What a NaN scale byte gives is open.

use rug::Integer;

use super::{Ctx, Event, TypeResult};
use crate::decide::Decisions;
use crate::encode;
use crate::exact::{is_subnormal, Dyadic, Nan, Value};
use crate::operand::{fmt_hex, Operand};
use crate::policy::{NanOut, Question, Rule};
use crate::round::{round, Grid};

/// The ue8m0 code that means NaN.
const NAN_CODE: u64 = 0xff;
/// The ue8m0 code of 2^0 (the format's bias).
const UNIT_CODE: u64 = 127;

impl<D: Decisions + ?Sized> Ctx<'_, D> {
    /// The ue8m0 code that scales lane `lane` (0 = low), if the form scales
    /// its lanes: the lane's byte of the last operand, or the unit code of
    /// the s2f6x2 forms without `.scaled::n2::ue8m0`.
    pub(super) fn lane_code(&self, srcs: &[Operand], lane: u32) -> Option<u64> {
        let c = self.c;
        if !self.p.lane_scale {
            return None;
        }
        Some(if c.scaled_n1 {
            self.d.single_scale_code(srcs[srcs.len() - 1].bits as u8, lane) as u64
        } else if c.scaled {
            let shift = self.d.scale_byte_shift(lane);
            srcs[srcs.len() - 1].bits.checked_shr(shift).unwrap_or(0) & 0xff
        } else {
            self.d.unscaled_code() as u64
        })
    }

    /// Convert one lane scaled by the ue8m0 `code`: multiply into bf16, divide into s2f6.
    pub(super) fn convert_scaled(&mut self, v: &Value, code: u64) -> TypeResult {
        let to_fixed = self.p.dst.fixed_frac_bits().is_some();
        if code == NAN_CODE {
            return self.scale_nan(to_fixed);
        }
        if self.c.scaled_n1 {
            return self.convert_single_scaled(v, code);
        }
        let k = code as i64 - UNIT_CODE as i64;
        let event = if k == 0 { Event::ScaleOne } else { Event::ScaleOther };
        let k = if self.d.scale_divides(self.p.dst) { -k } else { k };
        let v = match v {
            Value::Num { neg, mag } if !mag.is_zero() => Value::num(*neg, mag.times_pow2(k)),
            other => other.clone(),
        };
        note!(
            self,
            Rule::LaneScale,
            format!("scale byte {code:02x}: × 2^{k} → {v}");
            event
        );
        if to_fixed {
            return self.convert_to_fixed(&v);
        }
        match &v {
            Value::Num { neg, mag } => {
                let l = self.p.dst.float_layout().expect("a scaled lane is bf16 or s2f6");
                let r = round(*neg, mag, Grid::float(l), self.mode);
                self.note_rounding(Rule::RoundToFloat, *neg, mag, &r);
                self.finish_float(*neg, mag, r)
            }
            // NaN and ±Inf sources: the rules of the unscaled conversion.
            _ => self.float_to_float(&v),
        }
    }

    /// `.scaled::n1::ue8m0`: flush a subnormal input, divide exactly by
    /// 2^(code−127), then convert as the unscaled form does (docs/semantics.md §5.15).
    fn convert_single_scaled(&mut self, v: &Value, code: u64) -> TypeResult {
        let v = match self.d.single_scale_flush(self.answers) {
            Some(keep_sign) if is_subnormal(self.p.src, v) => {
                self.consult(Question::ScaleFlushKeepsSign);
                let neg = keep_sign && v.is_negative();
                note!(
                    self,
                    Rule::ScaleN1Flush,
                    format!("{} subnormal input {v} → {}0", self.p.src.name(), if neg { "-" } else { "+" })
                );
                Value::num(neg, Dyadic::zero())
            }
            _ => v.clone(),
        };
        let k = code as i64 - UNIT_CODE as i64;
        let event = if k == 0 { Event::ScaleOne } else { Event::ScaleOther };
        let v = match v {
            Value::Num { neg, mag } if !mag.is_zero() => Value::num(neg, mag.times_pow2(-k)),
            other => other,
        };
        note!(self, Rule::ScaleN1, format!("scale byte {code:02x}: ÷ 2^{k} → {v}"); event);
        self.float_to_float(&v)
    }

    fn scale_nan(&mut self, to_fixed: bool) -> TypeResult {
        let (out, rule) = self.d.scale_nan(self.p.dst, self.profile);
        if to_fixed {
            let bits = self.fixed_nan_code(out);
            note!(self, rule, format!("scale byte ff (NaN) → {}", fmt_hex(bits, self.p.dst.container_bits())));
            return TypeResult::Bits(bits);
        }
        let nan = Nan { neg: false, quiet: true, payload: 0, payload_bits: 0 };
        self.nan_from(out, rule, &nan, Some("scale byte ff (NaN)"))
    }

    /// The two's-complement code of `units` (in range) in the fixed-point destination.
    fn fixed_code(&self, units: i64) -> u64 {
        encode::wrap(&Integer::from(units), self.p.dst.container_bits())
    }

    /// The code a NaN answer gives in the fixed-point destination, which has no NaN.
    fn fixed_nan_code(&self, out: NanOut) -> u64 {
        match out {
            NanOut::Zero => 0,
            NanOut::MaxNorm => self.fixed_code(self.p.dst.fixed_units().unwrap().1),
            other => unreachable!("a fixed-point lane has no NaN: {other:?}"),
        }
    }

    /// Into a fixed-point lane: NaN, .relu, round once to 2^-f, clamp (.satfinite).
    fn convert_to_fixed(&mut self, v: &Value) -> TypeResult {
        let d = self.p.dst;
        let f = d.fixed_frac_bits().unwrap();
        let (lo, hi) = self.d.fixed_range(d);
        let relu_zeroes = match v {
            Value::Nan(_) => self.d.relu_zeroes_fixed(self.c, true),
            Value::Inf { neg } => *neg && self.d.relu_zeroes_fixed(self.c, false),
            Value::Num { neg, mag } => *neg && !mag.is_zero() && self.d.relu_zeroes_fixed(self.c, false),
        };
        if relu_zeroes {
            note!(self, Rule::Relu, format!("{v} → +0"));
            return TypeResult::Bits(0);
        }
        let (neg, mag) = match v {
            Value::Nan(_) => {
                let (out, rule) = self.d.nan_to_fixed(d);
                let bits = self.fixed_nan_code(out);
                note!(self, rule, format!("NaN → {}", fmt_hex(bits, d.container_bits())));
                return TypeResult::Bits(bits);
            }
            Value::Inf { neg } => {
                let units = if *neg { lo } else { hi };
                note!(self, Rule::FixedSatFinite, format!("{v} → {units}/2^{f}"); Event::Clamped);
                return TypeResult::Bits(self.fixed_code(units));
            }
            Value::Num { neg, mag } => (*neg, mag),
        };
        let r = round(neg, mag, Grid::fixed(f), self.mode);
        self.note_rounding(Rule::RoundToFixed, neg, mag, &r);
        let units = r.mag.scaled_to(-(f as i64));
        let units = if neg { -units } else { units };
        let clamped = units.clone().clamp(&Integer::from(lo), &Integer::from(hi));
        let (event, what) = if clamped == units {
            (Event::InRange, "in range".to_string())
        } else {
            (Event::Clamped, format!("clamped to {clamped}"))
        };
        note!(self, Rule::FixedSatFinite, format!("{units} units of 2^-{f}, range [{lo}, {hi}]: {what}"); event);
        TypeResult::Bits(encode::wrap(&clamped, d.container_bits()))
    }
}
