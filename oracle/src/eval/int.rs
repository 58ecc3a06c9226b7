//! Conversions with an integer on either side: int→int (wrap, extend or
//! clamp) and float→int (NaN, ±Inf, rounding to an integer, clamping).

use rug::Integer;

use super::{Ctx, Event, TypeResult};
use crate::decide::{Decisions, IntToInt};
use crate::encode;
use crate::exact::Value;
use crate::operand::fmt_hex;
use crate::policy::Rule;
use crate::round::{round, Grid};

impl<D: Decisions + ?Sized> Ctx<'_, D> {
    pub(super) fn int_to_int(&mut self, v: &Value) -> TypeResult {
        let i = v.as_integer().expect("integer source");
        let d = self.c.dtype;
        let (ab, db) = (self.c.atype.bits(), d.bits());
        let (event, how) = match self.d.int_to_int(self.c.sat, self.c.atype, d) {
            IntToInt::Saturate => {
                let (lo, hi) = d.format().int_bounds().unwrap();
                let clamped = i.clone().clamp(lo, hi);
                let event = if clamped == i { Event::InRange } else { Event::Clamped };
                let what =
                    if clamped == i { "in range, unchanged".to_string() } else { format!("clamped to {clamped}") };
                if d.is_pack() {
                    note!(self, Rule::PackSat, format!("{i} → {} range [{lo}, {hi}]: {what}", d.name()); event);
                } else {
                    note!(self, Rule::IntSatClamp, format!("{i} → {} range: {what}", d.name()); event);
                }
                return TypeResult::Bits(encode::encode_int(d.format(), &clamped));
            }
            IntToInt::Chop => (Event::Chop, "chop to the low bits"),
            IntToInt::SignExtend => (Event::SignExtend, "sign-extend"),
            IntToInt::ZeroExtend => (Event::ZeroExtend, "zero-extend"),
            IntToInt::SameWidth => (Event::SameWidth, "reinterpret the bits"),
        };
        // Zero-extension reads the source's bits as unsigned.
        let i = if event == Event::ZeroExtend { Integer::from(encode::wrap(&i, ab)) } else { i };
        let bits = encode::wrap(&i, db);
        note!(self, Rule::IntWrap, format!("{how}: {} {}", d.name(), fmt_hex(bits, db)); event);
        TypeResult::Bits(bits)
    }

    pub(super) fn float_to_int(&mut self, v: &Value) -> TypeResult {
        let d = self.c.dtype;
        let n = d.bits();
        if let Value::Nan(_) = v {
            let (bits, rule) = self.d.nan_to_int(self.c.atype, d);
            if rule == Rule::NanToIntZero {
                note!(self, rule, format!("{} source, {n}-bit destination → 0", self.c.atype.name()));
            } else {
                note!(self, rule, format!("→ 1<<{} = {}", n - 1, fmt_hex(bits, n)));
            }
            return TypeResult::Bits(bits);
        }
        let flushed = self.ftz_input(v);
        let v = flushed.as_ref().unwrap_or(v);
        let i = match v {
            Value::Inf { neg } => {
                let i = Integer::from(self.d.inf_to_int(d, *neg));
                note!(self, Rule::IntClamp, format!("{} → {}", v, i));
                i
            }
            Value::Num { neg, mag } => {
                let r = round(*neg, mag, Grid::integers(), self.mode);
                self.note_rounding(Rule::RoundToInt, *neg, mag, &r);
                let i = if *neg { -r.mag.floor_int() } else { r.mag.floor_int() };
                let (lo, hi) = d.format().int_bounds().unwrap();
                if i < *lo || i > *hi {
                    let c = Integer::from(self.d.int_out_of_range(d, i < 0, encode::wrap(&i, 64)));
                    if c != i {
                        note!(self, Rule::IntClamp, format!("{i} is outside {} [{lo}, {hi}] → {c}", d.name()));
                    }
                    c
                } else {
                    i
                }
            }
            Value::Nan(_) => unreachable!(),
        };
        TypeResult::Bits(encode::encode_int(d.format(), &i))
    }
}
