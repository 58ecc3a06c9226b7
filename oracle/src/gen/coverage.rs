//! Coverage classes: what a case exercises, as `input/result/event` for its
//! first lane (the scalar value, or lane `a`/`hi` of a packed form), e.g.
//! `normal/subnormal/tie-even-up` or `nan/int/nan-to-int`. Derived from the
//! oracle's own trace, so every named rule shows up as an event.

use crate::accept::{width_mask, Alt};
use crate::eval::{Event, Outcome, Step};
use crate::exact::{decode, is_subnormal, Value};
use crate::format::Format;
use crate::instr::Cvt;
use crate::policy::Rule;
use crate::round::{Mode, Remainder};

fn value_class(f: Format, v: &Value) -> &'static str {
    match v {
        Value::Nan(_) => "nan",
        Value::Inf { .. } => "inf",
        Value::Num { mag, .. } if mag.is_zero() => "zero",
        Value::Num { neg, mag } if f.fixed_frac_bits().is_some() => {
            // Fixed point: the extreme codes, else the sign.
            let (lo, hi) = f.fixed_units().unwrap();
            let units = mag.scaled_to(-(f.fixed_frac_bits().unwrap() as i64));
            match (*neg, units.to_i64()) {
                (true, Some(u)) if -u == lo => "min",
                (false, Some(u)) if u == hi => "max",
                (true, _) => "neg",
                (false, _) => "pos",
            }
        }
        Value::Num { neg, mag } => match f.int_range() {
            Some((lo, hi)) => {
                let i = if *neg { -mag.floor_int() } else { mag.floor_int() };
                if i == lo && *neg {
                    "min"
                } else if i == hi {
                    "max"
                } else if *neg {
                    "neg"
                } else {
                    "pos"
                }
            }
            None if is_subnormal(f, v) => "subnormal",
            None if f.float_layout().is_some_and(|l| *mag == l.max_finite()) => "max",
            None => "normal",
        },
    }
}

/// The class of the result's first lane.
fn result_class(c: &Cvt, o: &Outcome) -> &'static str {
    let Some(bits) = o.accept.single() else {
        return match o.accept.alts.as_slice() {
            [Alt::AnyNan(_)] => "any-nan",
            _ => "set",
        };
    };
    let d = c.dtype;
    let lane = if d.is_packed() {
        (bits >> ((d.lanes() - 1) * d.lane_bits())) & width_mask(d.lane_bits())
    } else {
        bits & width_mask(d.bits())
    };
    value_class(d.format(), &decode(d.format(), lane))
}

fn rule_event(s: &Step) -> Option<&'static str> {
    use Rule::*;
    Some(match s.rule {
        NanToIntZero | NanToIntSignBit | NanToIntNarrowFromF64 => "nan-to-int",
        NanPayload | NanCanonical | NanUnspecified | NanOpen | NanCopy | Ue8m0Nan | ReluNan => "nan",
        NanMoveCanonical | Tf32RnaNan | FtzWidenNan | Bf16WidenNan => "nan",
        SatFiniteNan | SatFiniteNanToMax | Tf32RnaSatFiniteNan => "satfinite-nan",
        SatNan => "sat-nan",
        OverflowToInf => "overflow-inf",
        OverflowToMax => "overflow-max",
        OverflowToNan => "overflow-nan",
        IntClamp => "clamp",
        SatFinite => "satfinite-clamp",
        SatClamp => "sat-clamp",
        SatNegZero => "sat-neg-zero",
        IntSatClamp if s.event == Event::Clamped => "sat-clamp",
        Relu => "relu",
        ReluNegZero => "relu-neg-zero",
        FtzInput | FtzOutput | FtzCutoff => "ftz-flush",
        FtzErratumF16 => "ftz-erratum",
        Ue8m0NoZero => "ue8m0-min",
        FixedNan => "nan",
        ScaleNan => "nan-scale",
        FixedSatFinite if s.event == Event::Clamped => "fixed-clamp",
        InfToInf => "inf",
        Pzo => "pzo",
        Ue5m3Unsigned => "sign-dropped",
        Ue5m3OverflowNan => "overflow-nan",
        Ue5m3Nan => "nan",
        ScaleN1Flush => "n1-flush",
        ScaleN1Nan => "nan-scale",
        _ => return None,
    })
}

fn rounding_event(s: &Step) -> Option<&'static str> {
    let r = s.rounding?;
    Some(match (r.remainder, r.mode) {
        (Remainder::Exact, _) => "exact",
        (_, Mode::Stochastic { .. }) if r.away => "rs-carry",
        (_, Mode::Stochastic { .. }) => "rs-no-carry",
        (Remainder::Half, Mode::NearestEven) if r.away => "tie-even-up",
        (Remainder::Half, Mode::NearestEven) => "tie-even-down",
        (Remainder::Half, Mode::NearestAway) => "tie-away",
        (_, Mode::NearestEven | Mode::NearestAway) if r.away => "nearest-up",
        (_, Mode::NearestEven | Mode::NearestAway) => "nearest-down",
        _ if r.away => "directed-away",
        _ => "directed-in",
    })
}

fn wrap_event(s: &Step) -> Option<&'static str> {
    let event = match s.event {
        Event::Chop => "chop",
        Event::SignExtend => "sext",
        Event::ZeroExtend => "zext",
        _ => "same-width",
    };
    (s.rule == Rule::IntWrap).then_some(event)
}

/// cvt.pack: `<a input>:<b input>/pack/<a event>:<b event>/<c>`, the events
/// `in`, `sat-lo` or `sat-hi` per lane and `c-kept` (nonzero bits of c
/// reach d), `c-zero` or `no-c`: saturation of each lane and c's bits.
fn pack_class(c: &Cvt, o: &Outcome) -> String {
    let lane = |name: &str| {
        let input = o.inputs.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
        let clamped = o.trace.iter().any(|s| s.rule == Rule::PackSat && s.lane == name && s.event == Event::Clamped);
        let event = match input {
            Some(v) if clamped && v.is_negative() => "sat-lo",
            Some(_) if clamped => "sat-hi",
            _ => "in",
        };
        (input.map_or("none", |v| value_class(c.atype.format(), v)), event)
    };
    let ((ai, ae), (bi, be)) = (lane("a"), lane("b"));
    let kept = o.trace.iter().find(|s| s.rule == Rule::PackC);
    let cbits = match (kept, o.accept.single()) {
        (None, _) => "no-c",
        (Some(_), Some(d)) if d >> (2 * c.dtype.lane_bits()) != 0 => "c-kept",
        (Some(_), _) => "c-zero",
    };
    format!("{ai}:{bi}/pack/{ae}:{be}/{cbits}")
}

/// `input/result/event` for a case.
pub fn classify(c: &Cvt, o: &Outcome) -> String {
    if c.dtype.is_pack() {
        return pack_class(c, o);
    }
    let lane = o.inputs.first().map_or("", |(n, _)| *n);
    let steps: Vec<&Step> = o.trace.iter().filter(|s| s.lane.is_empty() || s.lane == lane).collect();
    let input = o.inputs.first().map_or("none", |(_, v)| value_class(c.atype.format(), v));
    let wide = steps.iter().any(|s| matches!(s.rule, Rule::SourceChop | Rule::DestExtend));
    let event = steps
        .iter()
        .rev()
        .find_map(|s| rule_event(s))
        .or_else(|| steps.iter().find_map(|s| rounding_event(s)))
        .or_else(|| steps.iter().find_map(|s| wrap_event(s)))
        .unwrap_or("copy");
    let class = format!("{input}{}/{}/{event}", if wide { "+wide" } else { "" }, result_class(c, o));
    if !c.lane_scale() {
        return class;
    }
    // Scaled lanes: whether the first lane's factor was 2^0, another power, or NaN.
    let scale = steps
        .iter()
        .find_map(|s| match (s.rule, s.event) {
            (Rule::ScaleNan | Rule::ScaleN1Nan, _) => Some("scale-nan"),
            (Rule::LaneScale | Rule::ScaleN1, Event::ScaleOne) => Some("scale-one"),
            (Rule::ScaleN1, _) => Some("n1-scale-applied"),
            (Rule::LaneScale, _) => Some("scale-applied"),
            _ => None,
        })
        .unwrap_or("scale-nan");
    format!("{class}/{scale}")
}
