//! The lane scale of `.scaled::n2::ue8m0` and the s2f6 fixed-point lanes
//! (docs/semantics.md §5.14), in the exact engine.
//!
//! Evidence (no PTX ISA 9.1 text was available): ptxas 13.5 accepts the
//! spellings; NVIDIA's own SASS for the unscaled s2f6x2 forms passes a
//! constant scale of two ue8m0 codes 7f (2^0 each); an NVIDIA CuTe DSL
//! kernel reads an int8 byte as s2f6 worth b/64 and restores it exactly
//! through bf16x2 with the factor 2^6. A peer emulator supplies the NaN
//! choices, recorded as open points.

use rug::Integer;

use super::{Ctx, Event, TypeResult};
use crate::decide::Decisions;
use crate::encode;
use crate::exact::{Dyadic, Nan, Value};
use crate::instr::Cvt;
use crate::operand::{fmt_hex, Operand};
use crate::policy::Rule;
use crate::round::{round, Grid};

/// The ue8m0 code that means NaN.
const NAN_CODE: u64 = 0xff;
/// The ue8m0 code of 2^0.
pub(crate) const UNIT_CODE: u64 = 127;

/// The ue8m0 code that scales lane `lane` (0 = low) of `c`, if the form scales
/// its lanes: the lane's byte of the last operand, or 2^0 for the s2f6x2
/// forms without `.scaled::n2::ue8m0`.
pub(super) fn lane_code(c: &Cvt, srcs: &[Operand], lane: u32) -> Option<u64> {
    if !c.lane_scale() {
        return None;
    }
    Some(if c.scaled { (srcs[srcs.len() - 1].bits >> (8 * lane)) & 0xff } else { UNIT_CODE })
}

impl<D: Decisions + ?Sized> Ctx<'_, D> {
    /// Convert one lane scaled by the ue8m0 `code`: multiply into bf16, divide into s2f6.
    pub(super) fn convert_scaled(&mut self, v: &Value, code: u64) -> TypeResult {
        let to_fixed = self.dst.fixed_frac_bits().is_some();
        if code == NAN_CODE {
            return self.scale_nan(to_fixed);
        }
        let k = code as i64 - UNIT_CODE as i64;
        let event = if k == 0 { Event::ScaleOne } else { Event::ScaleOther };
        let k = if to_fixed { -k } else { k };
        let v = match v {
            Value::Num { neg, mag } if !mag.is_zero() => Value::num(*neg, Dyadic::new(mag.sig.clone(), mag.exp + k)),
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
                let l = self.dst.float_layout().expect("a scaled lane is bf16 or s2f6");
                let r = round(*neg, mag, Grid::float(l), self.mode);
                self.note_rounding(Rule::RoundToFloat, *neg, mag, &r);
                self.finish_float(*neg, mag, r)
            }
            // NaN and ±Inf sources: the rules of the unscaled conversion.
            _ => self.float_to_float(&v),
        }
    }

    fn scale_nan(&mut self, to_fixed: bool) -> TypeResult {
        if to_fixed {
            let bits = self.fixed_code(self.dst.fixed_units().unwrap().1);
            note!(self, Rule::ScaleNan, format!("scale byte ff (NaN) → {}", fmt_hex(bits, 8)));
            return TypeResult::Bits(bits);
        }
        let (out, rule) = self.profile.canonical_nan(Rule::ScaleNan);
        let nan = Nan { neg: false, quiet: true, payload: 0, payload_bits: 0 };
        self.nan(out, rule, &nan)
    }

    /// The two's-complement code of `units` (in range) in the fixed-point destination.
    fn fixed_code(&self, units: i64) -> u64 {
        encode::wrap(&Integer::from(units), self.dst.container_bits())
    }

    /// Into a fixed-point lane: NaN, .relu, round once to 2^-f, clamp (.satfinite).
    fn convert_to_fixed(&mut self, v: &Value) -> TypeResult {
        let d = self.dst;
        let f = d.fixed_frac_bits().unwrap();
        let (lo, hi) = d.fixed_units().unwrap();
        let (neg, mag) = match v {
            Value::Nan(_) => {
                let bits = self.fixed_code(hi);
                note!(self, Rule::FixedNan, format!("NaN → {}", fmt_hex(bits, d.container_bits())));
                return TypeResult::Bits(bits);
            }
            Value::Inf { neg } if self.c.relu && *neg => {
                note!(self, Rule::Relu, "-inf → +0");
                return TypeResult::Bits(0);
            }
            Value::Inf { neg } => {
                let units = if *neg { lo } else { hi };
                note!(self, Rule::FixedSatFinite, format!("{v} → {units}/2^{f}"); Event::Clamped);
                return TypeResult::Bits(self.fixed_code(units));
            }
            Value::Num { neg, mag } => (*neg, mag),
        };
        if self.c.relu && neg && !mag.is_zero() {
            note!(self, Rule::Relu, format!("-{mag} → +0"));
            return TypeResult::Bits(0);
        }
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
