//! Conversions to a float destination: NaN and ±Inf sources, rounding,
//! then the steps of [`crate::decide::FINISH`] and the encoding of the result.

use super::trace::signed;
use super::{Ctx, TypeResult};
use crate::decide::{Decisions, Finish, FtzCutoff, SourceFlush, Special};
use crate::encode;
use crate::exact::{is_subnormal, Dyadic, Nan, Value};
use crate::instr::Family;
use crate::operand::fmt_hex;
use crate::policy::{NanOut, Question, Rule};
use crate::round::{round, Grid, Mode, Rounded};

fn sign(neg: bool) -> &'static str {
    if neg {
        "-"
    } else {
        "+"
    }
}

impl<D: Decisions + ?Sized> Ctx<'_, D> {
    #[inline(always)]
    pub(super) fn int_to_float(&mut self, v: &Value) -> TypeResult {
        let Value::Num { neg, mag } = v else { unreachable!("integers are finite") };
        let l = self.dlayout();
        let r = round(*neg, mag, Grid::float(l), self.mode);
        self.note_rounding(Rule::RoundToFloat, *neg, mag, &r);
        self.finish_float(*neg, mag, r)
    }

    /// .ftz on an f32 source (docs/semantics.md §5.6), with the f16.f32 erratum.
    /// The flushed value, if the source is flushed.
    #[inline(always)]
    pub(super) fn ftz_input(&mut self, v: &Value) -> Option<Value> {
        let how = self.d.flushes_source(self.c, self.answers);
        if how == SourceFlush::Keep || !is_subnormal(self.p.src, v) {
            return None;
        }
        if let SourceFlush::Erratum { flush } = how {
            // The answer decided: the ISA profile also tries the other one.
            self.consult(Question::FtzF16Input);
            if !flush {
                note!(self, Rule::FtzErratumF16, "the f32 subnormal source is kept");
                return None;
            }
        }
        let neg = v.is_negative();
        note!(self, Rule::FtzInput, format!("f32 subnormal source {v} → {}0", sign(neg)));
        Some(Value::num(neg, Dyadic::zero()))
    }

    /// The bits of a magnitude-independent result.
    #[inline(always)]
    fn special(&self, s: Special) -> u64 {
        let l = self.dlayout();
        match s {
            Special::Zero => encode::finite_bits(l, false, &Dyadic::zero()),
            Special::One => encode::finite_bits(l, false, &Dyadic::word(1, 0)),
            Special::Max { neg } => encode::max_bits(l, neg),
            Special::Inf { neg } => encode::inf_bits(l, neg),
            Special::Nan => encode::nan_bits(l, false, u64::MAX),
        }
    }

    pub(super) fn nan(&mut self, out: NanOut, rule: Rule, n: &Nan) -> TypeResult {
        self.nan_from(out, rule, n, None)
    }

    /// The NaN answer `out` for the NaN `n`, which came `from` there (a
    /// source operand if `None`), as the trace shows it.
    pub(super) fn nan_from(&mut self, out: NanOut, rule: Rule, n: &Nan, from: Option<&str>) -> TypeResult {
        let d = self.dformat();
        let l = self.dlayout();
        let r = match out {
            NanOut::Zero => {
                note!(self, rule, format!("{} → +0", from.unwrap_or("NaN")));
                return TypeResult::Bits(self.special(Special::Zero));
            }
            NanOut::MaxNorm => {
                note!(self, rule, format!("{} → +MAX_NORM", from.unwrap_or("NaN")));
                return TypeResult::Bits(self.special(Special::Max { neg: false }));
            }
            NanOut::Any(_) => TypeResult::AnyNan,
            NanOut::Canonical => {
                TypeResult::Bits(encode::encode_nan(d, n.neg && self.d.canonical_nan_keeps_sign(), u64::MAX))
            }
            NanOut::Copy => {
                TypeResult::Bits(encode::encode_nan(d, n.neg, n.payload) & !(l.quiet_bit() * (!n.quiet) as u64))
            }
            NanOut::Masked { .. } | NanOut::SourceCanonical | NanOut::Shifted => TypeResult::Bits(
                out.source_bits(self.p.src, d, n.neg, n.quiet, n.payload).expect("float source and destination"),
            ),
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
        note!(self, rule, format!("{} → {shown}", from.unwrap_or("NaN source")));
        r
    }

    #[inline(always)]
    pub(super) fn float_to_float(&mut self, v: &Value) -> TypeResult {
        if let Value::Nan(n) = v {
            let (out, rule) = self.d.nan_source(self.c, self.profile);
            return self.nan(out, rule, n);
        }
        match self.ftz_input(v) {
            Some(zero) => self.float_to_float_flushed(&zero),
            None => self.float_to_float_value(v),
        }
    }

    /// [`Self::float_to_float_value`] of a flushed source: out of line, so
    /// that the common path reads its value in place.
    #[inline(never)]
    fn float_to_float_flushed(&mut self, zero: &Value) -> TypeResult {
        self.float_to_float_value(zero)
    }

    /// A float→float conversion of a source that is not a NaN, after `.ftz`.
    #[inline(always)]
    fn float_to_float_value(&mut self, v: &Value) -> TypeResult {
        let c = self.c;
        let d = self.dformat();
        // ue8m0 and ue5m3 have no sign: the magnitude is converted.
        let drop_sign = self.p.drops_sign && v.is_negative();
        if drop_sign {
            let rule = if d == crate::format::Format::Ue5m3 { Rule::Ue5m3Unsigned } else { Rule::Ue8m0Unsigned };
            note!(self, rule, "the sign is ignored: converting the magnitude");
        }
        let (neg, mag) = match v {
            Value::Num { neg, mag } => (*neg && !drop_sign, mag),
            Value::Inf { neg } => return self.inf(*neg && !drop_sign),
            Value::Nan(_) => unreachable!(),
        };
        let l = self.dlayout();
        let (grid, rule) = match (self.p.family, c.rounding) {
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
        let r = round(neg, mag, grid, self.mode);
        self.note_rounding(rule, neg, mag, &r);
        self.finish_float(neg, mag, r)
    }

    pub(super) fn inf(&mut self, neg: bool) -> TypeResult {
        let (s, rule) = self.d.inf_source(self.c, self.p.dst, neg);
        // The text is built only when tracing.
        note!(self, rule, {
            let one = if s == Special::One { "1" } else { "0" };
            match s {
                Special::Zero | Special::One if rule == Rule::SatClamp => format!("{}inf → {one}", sign(neg)),
                Special::Zero | Special::One => format!("{}inf → +{one}", sign(neg)),
                Special::Max { .. } => "±inf → ±MAX_NORM".to_string(),
                Special::Nan => format!("{}inf → NaN", sign(neg)),
                Special::Inf { .. } => String::new(),
            }
        });
        TypeResult::Bits(self.special(s))
    }

    /// After rounding to a float destination: the steps of [`FINISH`] in
    /// their order, then the encoding.
    #[inline(always)]
    pub(super) fn finish_float(&mut self, mut neg: bool, exact: &Dyadic, r: Rounded) -> TypeResult {
        let c = self.c;
        let d = self.dformat();
        let l = self.dlayout();
        let Rounded { mag, away, .. } = r;
        let mode = self.mode;
        let mut mag = mag;
        // Only the steps the instruction can take (`Prepared`): the guards here test the value.
        for &step in self.p.finish_steps() {
            match step {
                Finish::Sat => self.sat(&mut neg, &mut mag),
                Finish::Relu if neg => self.relu(&mut neg, &mut mag),
                Finish::Overflow if !encode::fits(l, &mag) => {
                    let (s, rule) = self.d.overflow(d, c.satfinite, mode, neg, away);
                    // The text is built only when tracing.
                    note!(self, rule, {
                        let max = l.max_finite();
                        match s {
                            Special::Inf { neg } => format!("{mag} exceeds max finite {max} → {}inf", sign(neg)),
                            Special::Nan => format!("{mag} exceeds max finite {max} → NaN"),
                            Special::Max { neg } => format!("{mag} exceeds max finite → {}", signed(neg, &max)),
                            Special::Zero | Special::One => format!("{mag} exceeds max finite {max} → {s:?}"),
                        }
                    });
                    return TypeResult::Bits(self.special(s));
                }
                Finish::FlushResult => self.flush_result(neg, exact, &mut mag),
                Finish::PositiveZero if neg && mag.is_zero() => {
                    note!(self, Rule::Pzo, "-0 → +0");
                    neg = false;
                }
                Finish::ZeroCode if mag.is_zero() => {
                    if let Some(code) = self.d.zero_code(d) {
                        note!(self, Rule::Ue8m0NoZero, "below 2^-127 → 00 (2^-127)");
                        return TypeResult::Bits(code);
                    }
                }
                _ => {}
            }
        }
        TypeResult::Bits(encode::finite_bits(l, neg, &mag))
    }

    /// `.sat`: clamp to [0, 1] (docs/semantics.md §5.7).
    #[inline(always)]
    fn sat(&mut self, neg: &mut bool, mag: &mut Dyadic) {
        let one = Dyadic::word(1, 0);
        if *neg && (!mag.is_zero() || self.d.sat_neg_zero_to_positive()) {
            let rule = if mag.is_zero() { Rule::SatNegZero } else { Rule::SatClamp };
            note!(self, rule, format!("{} → +0", signed(true, mag)));
            (*neg, *mag) = (false, Dyadic::zero());
        } else if *mag > one {
            note!(self, Rule::SatClamp, format!("{mag} → 1"));
            *mag = one;
        }
    }

    /// `.relu` on a negative result (docs/semantics.md §5.8).
    #[inline(always)]
    fn relu(&mut self, neg: &mut bool, mag: &mut Dyadic) {
        if !mag.is_zero() {
            note!(self, Rule::Relu, format!("{} → +0", signed(true, mag)));
            (*neg, *mag) = (false, Dyadic::zero());
        } else if self.ask(Question::ReluNegZeroToPositive) {
            note!(self, Rule::ReluNegZero, "-0 → +0");
            *neg = false;
        } else {
            note!(self, Rule::ReluNegZero, "-0 stays -0");
        }
    }

    /// `.ftz` on the result (docs/semantics.md §5.6, §5.17): `exact` is the value before rounding.
    #[inline(always)]
    fn flush_result(&mut self, neg: bool, exact: &Dyadic, mag: &mut Dyadic) {
        let l = self.dlayout();
        if let FtzCutoff::Below { gap } = self.d.ftz_cutoff(self.c, neg, self.profile) {
            // The sequence compares the exact source with its threshold.
            let emin = l.emin();
            let bound = match gap {
                Some(g) => Dyadic::word((1u64 << g) - 1, emin - g as i64),
                None => Dyadic::word(1, emin),
            };
            if !mag.is_zero() && *exact < bound {
                note!(self, Rule::FtzCutoff, format!("|{}| < {bound}: → {}0", signed(neg, exact), sign(neg)));
                *mag = Dyadic::zero();
            }
            return;
        }
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
                note!(self, Rule::FtzOutput, format!("subnormal result → {}0", sign(neg)));
                *mag = Dyadic::zero();
            }
        } else if tiny_after {
            note!(self, Rule::FtzOutput, format!("subnormal result {} → {}0", signed(neg, mag), sign(neg)));
            *mag = Dyadic::zero();
        }
    }
}
