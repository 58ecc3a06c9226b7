//! Conversions with an integer on either side: int→int (wrap, extend or
//! clamp) and float→int (NaN, ±Inf, rounding to an integer, clamping).

use rug::Integer;

use super::{Ctx, Event, TypeResult};
use crate::accept::width_mask;
use crate::decide::{Decisions, IntToInt};
use crate::encode;
use crate::exact::Value;
use crate::format::Format;
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

    #[inline(always)]
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
        match self.ftz_input(v) {
            Some(zero) => self.float_to_int_flushed(&zero),
            None => self.float_to_int_value(v),
        }
    }

    /// [`Self::float_to_int_value`] of a flushed source: out of line, so
    /// that the common path reads its value in place.
    #[inline(never)]
    fn float_to_int_flushed(&mut self, zero: &Value) -> TypeResult {
        self.float_to_int_value(zero)
    }

    /// A float→int conversion of a source that is not a NaN, after `.ftz`.
    #[inline(always)]
    fn float_to_int_value(&mut self, v: &Value) -> TypeResult {
        let d = self.c.dtype;
        // The integer stays an i128 (every destination range fits one).
        let i = match v {
            Value::Inf { neg } => {
                let i = self.d.inf_to_int(d, *neg);
                note!(self, Rule::IntClamp, format!("{} → {}", v, i));
                i
            }
            Value::Num { neg, mag } => {
                let r = round(*neg, mag, Grid::integers(), self.mode);
                self.note_rounding(Rule::RoundToInt, *neg, mag, &r);
                let (lo, hi) = int_range(d.format());
                let i = r.mag.floor_u128().and_then(|m| i128::try_from(m).ok()).map(|m| if *neg { -m } else { m });
                match i {
                    Some(i) if (lo..=hi).contains(&i) => i,
                    _ => {
                        // Out of range (a nonzero value, so `neg` is its sign).
                        let low = r.mag.floor_low64();
                        let c = self.d.int_out_of_range(d, *neg, if *neg { low.wrapping_neg() } else { low });
                        if i != Some(c) {
                            note!(self, Rule::IntClamp, {
                                let m = r.mag.floor_int();
                                let i = if *neg { -m } else { m };
                                format!("{i} is outside {} [{lo}, {hi}] → {c}", d.name())
                            });
                        }
                        c
                    }
                }
            }
            Value::Nan(_) => unreachable!(),
        };
        TypeResult::Bits(i as u64 & width_mask(d.format().container_bits()))
    }
}

/// The smallest and largest value of an integer format.
fn int_range(f: Format) -> (i128, i128) {
    let n = f.container_bits();
    if f.is_signed_int() {
        (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)
    } else {
        (0, (1i128 << n) - 1)
    }
}
