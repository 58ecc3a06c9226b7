//! Conversions to a float destination: NaN and ±Inf sources, rounding,
//! then .sat, .relu, overflow, .ftz and the encoding of the result.

use rug::Integer;

use super::trace::signed;
use super::{Ctx, Mutant, TypeResult};
use crate::encode::{self, fit, Fit, Overflow};
use crate::exact::{is_subnormal, Dyadic, Nan, Value};
use crate::format::Format;
use crate::instr::{self, Family};
use crate::operand::fmt_hex;
use crate::policy::{NanOut, Question, Rule};
use crate::round::{round, Grid, Mode, Rounded};

impl Ctx<'_> {
    pub(super) fn int_to_float(&mut self, v: &Value) -> TypeResult {
        let Value::Num { neg, mag } = v else { unreachable!("integers are finite") };
        let l = self.dformat().float_layout().unwrap();
        let r = round(*neg, mag, Grid::float(l), self.mode());
        self.note_rounding(Rule::RoundToFloat, *neg, mag, &r);
        self.finish_float(*neg, mag, r)
    }

    /// The flushed value, if the source is flushed.
    pub(super) fn ftz_input(&mut self, v: &Value) -> Option<Value> {
        if !(self.c.ftz && self.src == Format::F32 && is_subnormal(Format::F32, v)) || self.is(Mutant::NoFtz) {
            return None;
        }
        if self.dst == Format::F16 && !self.ask(Question::FtzF16Input) {
            note!(self, Rule::FtzErratumF16, "the f32 subnormal source is kept");
            return None;
        }
        let neg = v.is_negative();
        note!(self, Rule::FtzInput, format!("f32 subnormal source {v} → {}0", if neg { "-" } else { "+" }));
        Some(Value::num(neg, Dyadic::zero()))
    }

    pub(super) fn nan(&mut self, out: NanOut, rule: Rule, n: &Nan) -> TypeResult {
        let d = self.dformat();
        let l = d.float_layout().unwrap();
        let r = match out {
            NanOut::Any(_) => TypeResult::AnyNan,
            NanOut::Canonical => {
                TypeResult::Bits(encode::encode_nan(d, n.neg && self.is(Mutant::NanSignKept), u64::MAX))
            }
            NanOut::Payload if self.is(Mutant::NanPayloadDropped) => {
                TypeResult::Bits(encode::encode_nan(d, false, u64::MAX))
            }
            NanOut::Copy => {
                TypeResult::Bits(encode::encode_nan(d, n.neg, n.payload) & !(l.quiet_bit() * (!n.quiet) as u64))
            }
            NanOut::Payload => {
                // Align the payload's top bits under the quiet bit.
                let pb = l.man_bits - 1;
                let p = if n.payload_bits >= pb {
                    n.payload >> (n.payload_bits - pb)
                } else {
                    n.payload << (pb - n.payload_bits)
                };
                TypeResult::Bits(encode::encode_nan(d, n.neg, p))
            }
        };
        let shown = match &r {
            TypeResult::AnyNan => "any NaN".to_string(),
            TypeResult::Bits(b) => fmt_hex(*b, d.container_bits()),
        };
        note!(self, rule, format!("NaN source → {shown}"));
        r
    }

    pub(super) fn float_to_float(&mut self, v: &Value) -> TypeResult {
        let c = *self.c;
        let d = self.dformat();
        if let Value::Nan(n) = v {
            if c.sat && !self.is(Mutant::SatNanPassesNan) {
                note!(self, Rule::SatNan, "NaN → +0");
                return TypeResult::Bits(encode::encode_finite(d, false, &Dyadic::zero()));
            }
            if !d.float_layout().unwrap().has_nan() || (c.satfinite && self.is(Mutant::SatfiniteNanToMax)) {
                // e2m1/e2m3/e3m2 have no NaN: .satfinite gives +MAX_NORM (docs/semantics.md §5.8).
                note!(self, Rule::SatFiniteNanToMax, "NaN → +MAX_NORM");
                return TypeResult::Bits(encode::encode_max(d, false));
            }
            let plain = c.rounding.is_none() && !c.ftz && !c.relu && !c.satfinite;
            let (out, rule) = if d == Format::Ue8m0 {
                (NanOut::Canonical, Rule::Ue8m0Nan)
            } else if c.relu {
                self.profile.canonical_nan(Rule::ReluNan)
            } else if c.satfinite {
                self.profile.canonical_nan(Rule::SatFiniteNan)
            } else {
                self.profile.nan_out(self.dst, self.src, plain)
            };
            return self.nan(out, rule, n);
        }
        let flushed = self.ftz_input(v);
        let v = flushed.as_ref().unwrap_or(v);
        // ue8m0 has no sign: the magnitude is converted.
        let drop_sign = !d.float_layout().unwrap().signed && v.is_negative() && !self.is(Mutant::Ue8m0UsesSign);
        if drop_sign {
            note!(self, Rule::Ue8m0Unsigned, "the sign is ignored: converting the magnitude");
        }
        let (neg, mag) = match v {
            Value::Num { neg, mag } => (*neg && !drop_sign, mag),
            Value::Inf { neg } => return self.inf(*neg && !drop_sign),
            Value::Nan(_) => unreachable!(),
        };
        let l = d.float_layout().unwrap();
        let (grid, rule) = match (instr::family(self.src, self.dst), c.rounding) {
            (Family::SameFloat, Some(r)) if r.is_integer() => (Grid::integers(), Rule::RoundToIntegral),
            (Family::SameFloat, _) => (Grid::float(l), Rule::Copy),
            (Family::Widen, _) => (Grid::float(l), Rule::Exact),
            _ => {
                if c.rounding.is_none() {
                    note!(self, Rule::DefaultRounding, "no rounding modifier: rounding to nearest even");
                }
                let rule = if matches!(self.mode, Mode::Stochastic { .. }) {
                    Rule::RoundStochastic
                } else {
                    Rule::RoundToFloat
                };
                (Grid::float(l), rule)
            }
        };
        let r = round(neg, mag, grid, self.mode());
        self.note_rounding(rule, neg, mag, &r);
        self.finish_float(neg, mag, r)
    }

    pub(super) fn inf(&mut self, neg: bool) -> TypeResult {
        let d = self.dformat();
        if self.c.sat {
            let one = Dyadic::from_int(Integer::from(1));
            let m = if neg { Dyadic::zero() } else { one };
            note!(self, Rule::SatClamp, format!("{}inf → {}", if neg { "-" } else { "+" }, m));
            return TypeResult::Bits(encode::encode_finite(d, false, &m));
        }
        if self.c.relu && neg {
            note!(self, Rule::Relu, "-inf → +0");
            return TypeResult::Bits(encode::encode_finite(d, false, &Dyadic::zero()));
        }
        if self.c.satfinite && !(self.is(Mutant::SatfinitePassesInf) && d.float_layout().unwrap().has_inf()) {
            note!(self, Rule::SatFinite, "±inf → ±MAX_NORM");
            return TypeResult::Bits(encode::encode_max(d, neg));
        }
        if !d.float_layout().unwrap().has_inf() {
            // Only ue8m0 gets here (the other Inf-less formats require .satfinite).
            note!(self, Rule::OverflowToNan, "+inf → NaN");
            return TypeResult::Bits(encode::encode_nan(d, false, u64::MAX));
        }
        note!(self, Rule::InfToInf, "");
        TypeResult::Bits(encode::encode_inf(d, neg))
    }

    /// After rounding to a float destination: .sat, .relu, overflow, .ftz, encode.
    pub(super) fn finish_float(&mut self, mut neg: bool, exact: &Dyadic, r: Rounded) -> TypeResult {
        let c = *self.c;
        let d = self.dformat();
        let l = d.float_layout().unwrap();
        let Rounded { mag, remainder, away, mode } = r;
        let mut mag = mag;
        if c.sat {
            let one = Dyadic::from_int(Integer::from(1));
            if neg && !(mag.is_zero() && self.is(Mutant::SatKeepsNegZero)) {
                let rule = if mag.is_zero() { Rule::SatNegZero } else { Rule::SatClamp };
                note!(self, rule, format!("{} → +0", signed(true, &mag)));
                (neg, mag) = (false, Dyadic::zero());
            } else if mag > one {
                note!(self, Rule::SatClamp, format!("{mag} → 1"));
                mag = one;
            }
        } else {
            if c.relu && neg {
                if !mag.is_zero() {
                    note!(self, Rule::Relu, format!("{} → +0", signed(true, &mag)));
                    (neg, mag) = (false, Dyadic::zero());
                } else if self.ask(Question::ReluNegZeroToPositive) {
                    note!(self, Rule::ReluNegZero, "-0 → +0");
                    neg = false;
                } else {
                    note!(self, Rule::ReluNegZero, "-0 stays -0");
                }
            }
            let policy =
                if c.satfinite && !self.is(Mutant::SatfinitePassesInf) { Overflow::SatFinite } else { Overflow::Ieee };
            let rounded = Rounded { mag, remainder, away, mode };
            let fits = fit(l, neg, &rounded, policy);
            mag = rounded.mag;
            match fits {
                Fit::Finite => {}
                Fit::OverflowToInf
                    if self.is(Mutant::OverflowToMaxUnderRn) && matches!(self.mode, Mode::NearestEven) =>
                {
                    return TypeResult::Bits(encode::encode_max(d, neg));
                }
                Fit::OverflowToInf => {
                    note!(
                        self,
                        Rule::OverflowToInf,
                        format!("{} exceeds max finite {} → {}inf", mag, l.max_finite(), if neg { "-" } else { "+" })
                    );
                    return TypeResult::Bits(encode::encode_inf(d, neg));
                }
                Fit::OverflowToNan => {
                    note!(self, Rule::OverflowToNan, format!("{mag} exceeds max finite {} → NaN", l.max_finite()));
                    return TypeResult::Bits(encode::encode_nan(d, false, u64::MAX));
                }
                Fit::OverflowToMax => {
                    let rule = if c.satfinite { Rule::SatFinite } else { Rule::OverflowToMax };
                    note!(self, rule, format!("{} exceeds max finite → {}", mag, signed(neg, &l.max_finite())));
                    return TypeResult::Bits(encode::encode_max(d, neg));
                }
            }
        }
        if c.ftz && self.dst == Format::F32 && !self.is(Mutant::NoFtz) {
            let tiny_after = mag.msb_exp().is_some_and(|e| e < l.emin());
            let tiny_before = exact.msb_exp().is_some_and(|e| e < l.emin());
            if tiny_after != tiny_before {
                let after = self.ask(Question::FtzAfterRounding);
                let flush = if after { tiny_after } else { tiny_before };
                note!(
                    self,
                    Rule::FtzTininess,
                    format!(
                        "judged {} rounding: {}",
                        if after { "after" } else { "before" },
                        if flush { "subnormal" } else { "normal" }
                    ),
                );
                if flush {
                    note!(self, Rule::FtzOutput, format!("subnormal result → {}0", if neg { "-" } else { "+" }));
                    mag = Dyadic::zero();
                }
            } else if tiny_after {
                note!(
                    self,
                    Rule::FtzOutput,
                    format!("subnormal result {} → {}0", signed(neg, &mag), if neg { "-" } else { "+" })
                );
                mag = Dyadic::zero();
            }
        }
        if self.is(Mutant::FlushSubnormalResults) && mag.msb_exp().is_some_and(|e| l.subnormals && e < l.emin()) {
            mag = Dyadic::zero();
        }
        if self.is(Mutant::NegZeroLosesSign) && mag.is_zero() {
            neg = false;
        }
        if mag.is_zero() && d == Format::Ue8m0 {
            note!(self, Rule::Ue8m0NoZero, "below 2^-127 → 00 (2^-127)");
            return TypeResult::Bits(0);
        }
        TypeResult::Bits(encode::encode_finite(d, neg, &mag))
    }
}
