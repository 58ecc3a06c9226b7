//! Conversions with an integer on either side: int→int (wrap, extend or
//! clamp) and float→int (NaN, ±Inf, rounding to an integer, clamping).

use rug::Integer;

use super::{Ctx, Event, Mutant, TypeResult};
use crate::encode;
use crate::exact::Value;
use crate::instr::Type;
use crate::operand::fmt_hex;
use crate::policy::Rule;
use crate::round::{round, Grid};

impl Ctx<'_> {
    pub(super) fn int_to_int(&mut self, v: &Value) -> TypeResult {
        let i = v.as_integer().expect("integer source");
        let d = self.c.dtype;
        if self.c.sat && !self.is(Mutant::IntSatIgnored) {
            let (lo, hi) = d.format().int_bounds().unwrap();
            let clamped = i.clone().clamp(lo, hi);
            let event = if clamped == i { Event::InRange } else { Event::Clamped };
            let what = if clamped == i { "in range, unchanged".to_string() } else { format!("clamped to {clamped}") };
            if d.is_pack() {
                note!(self, Rule::PackSat, format!("{i} → {} range [{lo}, {hi}]: {what}", d.name()); event);
            } else {
                note!(self, Rule::IntSatClamp, format!("{i} → {} range: {what}", d.name()); event);
            }
            return TypeResult::Bits(encode::encode_int(d.format(), &clamped));
        }
        let (ab, db) = (self.c.atype.bits(), d.bits());
        let (event, how) = match ab.cmp(&db) {
            std::cmp::Ordering::Greater => (Event::Chop, "chop to the low bits"),
            std::cmp::Ordering::Less if self.c.atype.format().is_signed_int() => (Event::SignExtend, "sign-extend"),
            std::cmp::Ordering::Less => (Event::ZeroExtend, "zero-extend"),
            std::cmp::Ordering::Equal => (Event::SameWidth, "reinterpret the bits"),
        };
        let i = if self.is(Mutant::SextAsZext) && event == Event::SignExtend {
            Integer::from(encode::wrap(&i, ab))
        } else {
            i
        };
        let bits = encode::wrap(&i, db);
        note!(self, Rule::IntWrap, format!("{how}: {} {}", d.name(), fmt_hex(bits, db)); event);
        TypeResult::Bits(bits)
    }

    pub(super) fn float_to_int(&mut self, v: &Value) -> TypeResult {
        let d = self.c.dtype;
        let n = d.bits();
        if let Value::Nan(_) = v {
            if self.is(Mutant::NanToIntAlwaysZero) {
                return TypeResult::Bits(0);
            }
            if self.c.atype != Type::F64 && n != 64 && !self.is(Mutant::NanToIntAlwaysSignBit) {
                note!(self, Rule::NanToIntZero, format!("{} source, {n}-bit destination → 0", self.c.atype.name()));
                return TypeResult::Bits(0);
            }
            let rule = if n <= 16 { Rule::NanToIntNarrowFromF64 } else { Rule::NanToIntSignBit };
            let bits = 1u64 << (n - 1);
            note!(self, rule, format!("→ 1<<{} = {}", n - 1, fmt_hex(bits, n)));
            return TypeResult::Bits(bits);
        }
        let flushed = self.ftz_input(v);
        let v = flushed.as_ref().unwrap_or(v);
        let (lo, hi) = d.format().int_bounds().unwrap();
        let i = match v {
            Value::Inf { .. } if self.is(Mutant::InfToIntZero) => Integer::new(),
            Value::Inf { neg } => {
                let i = if *neg { lo.clone() } else { hi.clone() };
                note!(self, Rule::IntClamp, format!("{} → {}", v, i));
                i
            }
            Value::Num { neg, mag } => {
                let r = round(*neg, mag, Grid::integers(), self.mode());
                self.note_rounding(Rule::RoundToInt, *neg, mag, &r);
                let i = if *neg { -r.mag.floor_int() } else { r.mag.floor_int() };
                let mut c = i.clone().clamp(lo, hi);
                if self.is(Mutant::ClampOffByOne) && c == *hi && c != i {
                    c -= 1u32;
                }
                if self.is(Mutant::UnsignedNegativeWraps) && i < 0 && !d.format().is_signed_int() {
                    c = i.clone().keep_bits(n);
                }
                if c != i {
                    note!(self, Rule::IntClamp, format!("{i} is outside {} [{lo}, {hi}] → {c}", d.name()));
                }
                c
            }
            Value::Nan(_) => unreachable!(),
        };
        TypeResult::Bits(encode::encode_int(d.format(), &i))
    }
}
