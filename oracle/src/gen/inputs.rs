//! Source values for vector generation, derived from the format table: the
//! specials of the source, the source codes nearest every boundary of the
//! destination (overflow threshold, max, min normal, subnormal edges, ties,
//! integer range edges), an exponent sweep with significand patterns, and
//! seeded random values. No per-pair hand tables.

use rand_chacha::rand_core::RngCore;
use rand_chacha::ChaCha8Rng;
use rug::Integer;

use crate::encode::encode_finite;
use crate::exact::Dyadic;
use crate::format::{low_mask, FloatLayout, Format, Kind};
use crate::round::{round, Grid, Mode};

use super::Level;

/// Appends values once each, keeping first-seen order (deterministic).
#[derive(Default)]
pub struct Values {
    seen: std::collections::HashSet<u64>,
    pub list: Vec<u64>,
}

impl Values {
    pub fn push(&mut self, v: u64) {
        if self.seen.insert(v) {
            self.list.push(v);
        }
    }
}

fn pow2(e: i64) -> Dyadic {
    Dyadic::new(Integer::from(1), e)
}

/// Exact magnitudes where the destination's behaviour changes.
fn thresholds(d: Format) -> Vec<Dyadic> {
    match d.info().kind {
        Kind::Float(l) => {
            let max = l.max_finite();
            let ulp_max = pow2(max.msb_exp().unwrap() - l.man_bits as i64);
            let half_ulp_max = ulp_max.times_pow2(-1);
            let over = Dyadic::new(max.scaled_to(half_ulp_max.exp) + 1u32, half_ulp_max.exp);
            let q = l.qmin();
            let one_ulp = l.man_bits as i64;
            let mut t = vec![
                max.clone(),
                over,
                pow2(l.emin()),
                pow2(q),
                pow2(q - 1),
                Dyadic::new(Integer::from(3), q - 1),
                Dyadic::new((Integer::from(1) << (l.man_bits + 1)) + 1u32, -one_ulp - 1),
                Dyadic::new((Integer::from(1) << (l.man_bits + 1)) + 3u32, -one_ulp - 1),
                pow2(0),
            ];
            // Ties in the top and bottom normal binades.
            let top = max.msb_exp().unwrap();
            t.push(Dyadic::new((Integer::from(1) << (l.man_bits + 1)) + 1u32, top - one_ulp - 1));
            t.push(Dyadic::new((Integer::from(1) << (l.man_bits + 1)) + 1u32, l.emin() - one_ulp - 1));
            if l.subnormals {
                // Just below the smallest normal: rounds up into it at some modes.
                t.push(Dyadic::new((Integer::from(1) << (l.man_bits + 1)) - 1u32, l.emin() - one_ulp - 1));
            }
            t
        }
        Kind::Fixed { frac_bits } => {
            // Units of 2^-f: the largest code, the clamp threshold half a unit above
            // it, the smallest code (-2^(n-1) units), one unit and the ties around it.
            let (n, f) = (d.container_bits() as i64, frac_bits as i64);
            let max = (1i64 << (n - 1)) - 1;
            vec![
                Dyadic::new(Integer::from(max), -f),
                Dyadic::new(Integer::from(2 * max + 1), -f - 1),
                pow2(n - 1 - f),
                pow2(-f),
                pow2(-f - 1),
                Dyadic::new(Integer::from(3), -f - 1),
                Dyadic::new(Integer::from(5), -f - 1),
                pow2(0),
            ]
        }
        Kind::Int { signed } => {
            let n = d.container_bits() as i64;
            let top = if signed { n - 1 } else { n };
            let half = |sig: i64| Dyadic::new(Integer::from(sig), -1);
            vec![
                pow2(top),
                Dyadic::new((Integer::from(1) << top as u32) * 2u32 - 1u32, -1),
                pow2(0),
                half(1),
                half(3),
                half(5),
            ]
        }
    }
}

/// Source codes (in the format's own bits, before any container shift)
/// nearest to a positive magnitude.
fn codes_near(a: Format, l: &FloatLayout, x: &Dyadic) -> Vec<u64> {
    let max = l.max_finite_code();
    let r = round(false, x, Grid::float(l), Mode::TowardZero);
    let code = if r.mag > l.max_finite() { max } else { encode_finite(a, false, &r.mag) >> l.shift };
    (code.saturating_sub(1)..=(code + 2).min(max)).collect()
}

fn float_values(a: Format, l: &FloatLayout, d: Format, level: Level, rng: &mut ChaCha8Rng, out: &mut Values) {
    let sign = l.sign_bit();
    let place = |code: u64| code << l.shift;
    let both = |out: &mut Values, code: u64| {
        out.push(place(code));
        if l.signed {
            out.push(place(code | sign));
        }
    };
    // Specials.
    let max = l.max_finite_code();
    let exp_max = l.exp_field_max();
    for code in [0, 1, (1 << l.man_bits) - 1, 1 << l.man_bits, max, max - 1, l.exp_field_max().min(1) << l.man_bits] {
        both(out, code & low_mask(l.width()));
    }
    if l.has_inf() {
        both(out, exp_max << l.man_bits);
    }
    if l.has_nan() {
        let nan = if l.man_bits == 0 { exp_max } else { (exp_max << l.man_bits) | l.quiet_bit() };
        both(out, nan);
        if l.man_bits > 1 {
            both(out, (exp_max << l.man_bits) | 1); // signalling, smallest payload
            both(out, (exp_max << l.man_bits) | low_mask(l.man_bits)); // all payload bits
        }
    }
    // Source codes around every destination threshold.
    for t in thresholds(d) {
        for code in codes_near(a, l, &t) {
            both(out, code);
        }
    }
    // Exponent sweep with significand patterns. The compact level keeps the
    // exponents around the destination's range.
    // Integer destinations quantise at 2^0, fixed-point ones at 2^-frac_bits.
    let fq = -(d.fixed_frac_bits().unwrap_or(0) as i64);
    let (lo, hi) = match d.float_layout() {
        Some(dl) => (dl.qmin() - 2, dl.max_finite().msb_exp().unwrap() + 2),
        None => (fq - 2, d.container_bits() as i64 + fq + 1),
    };
    let drop = match d.float_layout() {
        Some(dl) => l.man_bits as i64 - dl.man_bits as i64,
        None => 0,
    };
    let tie = |k: i64| if k > 0 && k <= l.man_bits as i64 { 1u64 << (k - 1) } else { 0 };
    let bias = l.bias as i64;
    let in_source = |e: i64| e + bias >= 0 && e + bias < exp_max as i64;
    let exponents: Vec<u64> = if level == Level::Deep {
        (0..exp_max).collect()
    } else {
        // Around each edge of the destination and of the source, plus a stride
        // through the destination's range.
        let mut marks: Vec<i64> = vec![lo + 2, hi - 2, 0, -1, 1, -bias, exp_max as i64 - 1 - bias];
        if let Some(dl) = d.float_layout() {
            marks.push(dl.emin());
        }
        let mut es: Vec<i64> = marks.iter().flat_map(|m| (m - 2)..=(m + 2)).collect();
        let step = ((hi - lo) / 24).max(1);
        es.extend((lo..=hi).step_by(step as usize));
        es.retain(|e| in_source(*e));
        es.sort();
        es.dedup();
        es.into_iter().map(|e| (e + bias) as u64).collect()
    };
    for e_field in exponents {
        let e = e_field as i64 - bias;
        // Integer destinations care about the bit at 2^-1 (the tie to an integer).
        let t = if d.float_layout().is_some() { tie(drop) } else { tie(l.man_bits as i64 - e + fq) };
        let m_all = low_mask(l.man_bits);
        let mut patterns = vec![0, 1, m_all, t, t.wrapping_sub(1) & m_all, t | 1];
        patterns.push(rng.next_u64() & m_all);
        for (i, m) in patterns.into_iter().enumerate() {
            let code = (e_field << l.man_bits) | (m & m_all);
            if code <= max {
                out.push(place(code | if i % 2 == 1 && l.signed { sign } else { 0 }));
            }
        }
    }
}

fn int_values(n: u32, signed: bool, d: Format, level: Level, rng: &mut ChaCha8Rng, out: &mut Values) {
    let mask = low_mask(n);
    let (min, max): (i128, i128) =
        if signed { (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1) } else { (0, (1i128 << n) - 1) };
    let push = |out: &mut Values, v: i128| {
        if v >= min && v <= max {
            out.push(v as u64 & mask);
        }
    };
    for v in [0, 1, -1, 2, -2, min, max, min + 1, max - 1] {
        push(out, v);
    }
    match d.float_layout() {
        Some(dl) => {
            let p = dl.precision();
            for k in 1..=n {
                let base = 1i128 << (k - 1);
                let mut vs = vec![base, (base << 1) - 1, base + 1];
                if k > p {
                    let t = base + (1i128 << (k - 1 - p));
                    vs.extend([t, t - 1, t + 1, t + (1i128 << (k - p))]);
                }
                for v in vs {
                    push(out, v);
                    push(out, -v);
                }
            }
            // Around the destination's max finite and overflow threshold.
            if let Some(m) = dl.max_finite().floor_int().to_i128() {
                for v in [m - 1, m, m + 1, m + (1i128 << (dl.max_finite().exp.max(0) as u32)) / 2] {
                    push(out, v);
                    push(out, -v);
                }
            }
        }
        None => {
            let (dmin, dmax) = d.int_range().unwrap();
            for b in [dmin.to_i128().unwrap(), dmax.to_i128().unwrap()] {
                for v in [b - 1, b, b + 1] {
                    push(out, v);
                }
            }
        }
    }
    let _ = level;
    let _ = rng;
}

/// Values of source format `a` for a conversion to `d`, in the format's
/// container bits, structured first, then `random` seeded values.
pub fn values(a: Format, d: Format, level: Level, random: usize, rng: &mut ChaCha8Rng) -> Vec<u64> {
    let bits = a.float_layout().map_or(a.container_bits(), |l| l.width() + l.shift);
    let mut out = Values::default();
    if bits <= 8 || (bits <= 16 && level == Level::Deep) {
        // Small formats: every code.
        let width = a.float_layout().map_or(bits, |l| l.width());
        for v in 0..(1u64 << width) {
            out.push(v);
        }
        return out.list;
    }
    match a.info().kind {
        Kind::Float(l) => float_values(a, &l, d, level, rng, &mut out),
        Kind::Int { signed } => int_values(a.container_bits(), signed, d, level, rng, &mut out),
        // s2f6 is 8 bits wide: every code is listed above.
        Kind::Fixed { .. } => {}
    }
    let mask = low_mask(a.container_bits());
    for _ in 0..random {
        out.push(rng.next_u64() & mask);
    }
    out.list
}
