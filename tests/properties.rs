//! Property tests of the oracle against the algebraic laws of correct
//! rounding (IEEE 754-2008 §4.3, §5.4.1, §5.8, §7.4; PTX ISA §6.5 for the
//! integer clamps) and against independent peers: Rust's `as` casts and
//! `round_ties_even`/`trunc`/`floor`/`ceil`, which are IEEE operations, and
//! the `half` crate's f32→f16/bf16 and f16/bf16 widening conversions.
//!
//! Every exactness comparison goes through the oracle's own `decode` and the
//! exact `Dyadic` magnitudes; host floats appear only as the independent
//! peer in the last group.
//!
//! Inputs are structured, not only uniform bits: exponents near the
//! destination's subnormal and overflow edges, mantissas at and next to the
//! rounding tie of the destination, integers whose low bits sit at the tie
//! of the destination precision, and the range edges.

use std::cmp::Ordering;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::TestCaseError;

use ptx_cvt::exact::{decode, Dyadic, Value};
use ptx_cvt::format::{low_mask, FloatLayout, Format};
use ptx_cvt::{evaluate, Cvt, Operand, Profile, Rounding, Type};

// ---------------------------------------------------------------------------
// Evaluation helpers
// ---------------------------------------------------------------------------

/// A conversion pair: destination and source type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Form {
    d: Type,
    a: Type,
}

const fn form(d: Type, a: Type) -> Form {
    Form { d, a }
}

/// The four rounding rules, in the order nearest, toward zero, down, up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum M {
    N,
    Z,
    Dn,
    Up,
}

const MODES: [M; 4] = [M::N, M::Z, M::Dn, M::Up];

impl Form {
    fn rounding(self, m: M) -> Rounding {
        let int = self.d.is_int() || self.d == self.a;
        match (m, int) {
            (M::N, false) => Rounding::Rn,
            (M::Z, false) => Rounding::Rz,
            (M::Dn, false) => Rounding::Rm,
            (M::Up, false) => Rounding::Rp,
            (M::N, true) => Rounding::Rni,
            (M::Z, true) => Rounding::Rzi,
            (M::Dn, true) => Rounding::Rmi,
            (M::Up, true) => Rounding::Rpi,
        }
    }
    fn cvt(self, m: M) -> Cvt {
        Cvt { rounding: Some(self.rounding(m)), ..Cvt::new(self.d, self.a) }
    }
    /// Evaluate with natural register widths under the sm90 profile; the
    /// result must be a single bit pattern.
    fn run(self, m: M, bits: u64) -> u64 {
        run(&self.cvt(m), bits)
    }
    /// The mode that rounds away from zero for a value of this sign.
    fn away(neg: bool) -> M {
        if neg {
            M::Dn
        } else {
            M::Up
        }
    }
}

fn run(c: &Cvt, bits: u64) -> u64 {
    let out = evaluate(c, &[Operand { bits, width: c.atype.bits() }], c.dtype.bits(), Profile::Sm90)
        .unwrap_or_else(|e| panic!("{c} on {bits:x}: {e}"));
    out.accept.single().unwrap_or_else(|| panic!("{c} on {bits:x}: not a single result: {}", out.accept))
}

/// Evaluate a widening (no rounding modifier) conversion.
fn run_plain(d: Type, a: Type, bits: u64) -> u64 {
    run(&Cvt::new(d, a), bits)
}

fn val(t: Type, bits: u64) -> Value {
    decode(t.format(), bits)
}

fn is_nan(t: Type, bits: u64) -> bool {
    val(t, bits).is_nan()
}

fn show(t: Type, bits: u64) -> String {
    format!("{} {:0w$x} = {}", t.name(), bits & low_mask(t.bits()), val(t, bits), w = (t.bits() / 4) as usize)
}

/// Order on non-NaN values as extended reals; −0 and +0 are equal.
fn cmp_v(a: &Value, b: &Value) -> Ordering {
    use Value::{Inf, Nan, Num};
    match (a, b) {
        (Nan(_), _) | (_, Nan(_)) => panic!("NaN in an ordered comparison: {a} vs {b}"),
        (Inf { neg: x }, Inf { neg: y }) => y.cmp(x),
        (Inf { neg }, _) => {
            if *neg {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (_, Inf { neg }) => {
            if *neg {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Num { neg: n1, mag: m1 }, Num { neg: n2, mag: m2 }) => {
            let s = |n: bool, m: &Dyadic| {
                if m.is_zero() {
                    0
                } else if n {
                    -1
                } else {
                    1
                }
            };
            let (s1, s2) = (s(*n1, m1), s(*n2, m2));
            if s1 != s2 {
                return s1.cmp(&s2);
            }
            match s1 {
                0 => Ordering::Equal,
                1 => m1.cmp(m2),
                _ => m2.cmp(m1),
            }
        }
    }
}

/// Order on magnitudes of non-NaN values (Inf above every finite value).
fn cmp_abs(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Inf { .. }, Value::Inf { .. }) => Ordering::Equal,
        (Value::Inf { .. }, _) => Ordering::Greater,
        (_, Value::Inf { .. }) => Ordering::Less,
        (Value::Num { mag: m1, .. }, Value::Num { mag: m2, .. }) => m1.cmp(m2),
        _ => panic!("NaN in a magnitude comparison: {a} vs {b}"),
    }
}

fn negate(v: &Value) -> Value {
    match v {
        Value::Num { neg, mag } => Value::Num { neg: !neg, mag: mag.clone() },
        Value::Inf { neg } => Value::Inf { neg: !neg },
        Value::Nan(_) => panic!("negating a NaN"),
    }
}

/// The destination's integer range as values, for integer destinations.
fn int_range(t: Type) -> Option<(Value, Value)> {
    t.format().int_range().map(|(lo, hi)| (Value::from_integer(lo), Value::from_integer(hi)))
}

/// Whether a non-NaN source value lies inside an integer destination's range
/// (always true for float destinations).
fn in_int_range(d: Type, x: &Value) -> bool {
    match int_range(d) {
        None => true,
        Some((lo, hi)) => cmp_v(&lo, x) != Ordering::Greater && cmp_v(x, &hi) != Ordering::Greater,
    }
}

/// The magnitude a result stands for in the nearest-rounding test: an
/// overflow to Inf counts as 2^(emax+1), the next grid point above max finite
/// (IEEE 754-2008 §4.3.1: "an infinitely precise result with magnitude at
/// least b^emax × (b − ½ b^(1−p)) shall round to ∞").
fn nearest_mag(t: Type, bits: u64) -> Dyadic {
    match val(t, bits) {
        Value::Num { mag, .. } => mag,
        Value::Inf { .. } => {
            let mf = t.format().float_layout().expect("Inf only in floats").max_finite();
            Dyadic::new(mf.sig().into_owned() + 1u32, mf.exp)
        }
        Value::Nan(_) => panic!("NaN result {}", show(t, bits)),
    }
}

// ---------------------------------------------------------------------------
// Input strategies
// ---------------------------------------------------------------------------

/// What a conversion rounds onto, for aiming inputs at its rounding points.
#[derive(Clone, Copy, Debug)]
enum Aim {
    /// A float destination's grid.
    Float(Format),
    /// The integers, with the destination's width (float destinations of
    /// round-to-integral: the source's precision).
    Int(u32),
}

/// A small offset from a rounding point: mostly none (the point itself).
fn delta() -> impl Strategy<Value = i64> {
    prop_oneof![3 => Just(0i64), 2 => -3i64..=3]
}

/// Float source bits with structure aimed at `aim`: exponents at the
/// destination's subnormal range, its overflow edge and its ordinary binades
/// (integers: from 1/8 to past the range), and mantissas at or next to the
/// tie of the destination grid for that exponent.
fn float_bits(src: Format, aim: Aim) -> BoxedStrategy<u64> {
    let l = *src.float_layout().unwrap();
    let (eb, mb) = (l.exp_bits, l.man_bits);
    let width = l.width();
    let emax_field = (1u64 << eb) - 1;
    let bias = l.bias as i64;
    let clampf = move |e: i64| e.clamp(0, emax_field as i64) as u64;
    let mut ranges: Vec<(u64, u64)> = vec![(0, emax_field), (0, 2), (emax_field - 2, emax_field)];
    // The destination quantum exponent for a value whose top bit is 2^msb.
    let quantum: Box<dyn Fn(i64) -> i64 + Send + Sync> = match aim {
        Aim::Float(dst) => {
            let dl = *dst.float_layout().unwrap();
            ranges.push((clampf(bias + dl.qmin() - 2), clampf(bias + dl.emin() + 1)));
            let emax_d = dl.max_finite().msb_exp().unwrap();
            ranges.push((clampf(bias + emax_d - 1), clampf(bias + emax_d + 1)));
            ranges.push((clampf(bias + dl.emin()), clampf(bias + emax_d)));
            Box::new(move |msb| (msb - dl.man_bits as i64).max(dl.qmin()))
        }
        Aim::Int(n) => {
            let n = n as i64;
            ranges.push((clampf(bias - 3), clampf(bias + n + 1)));
            ranges.push((clampf(bias + n - 2), clampf(bias + n + 1)));
            Box::new(|_| 0)
        }
    };
    let exp = select(ranges).prop_flat_map(|(lo, hi)| lo..=hi);
    let mask = low_mask(mb);
    let structured =
        (any::<bool>(), exp, 0..4u8, any::<u64>(), 1..=mb, delta()).prop_map(move |(s, e, kind, r, rc, d)| {
            // Bits of the source cut off by the destination grid at this exponent.
            let msb = e.max(1) as i64 - bias;
            let cut = quantum(msb) - (msb - mb as i64);
            let m = match kind {
                0 => r & mask,
                // The tie of the destination grid (or a random cut when the
                // grid is as fine as the source's or coarser than the binade).
                1 | 2 => {
                    let c = if kind == 1 && (1..=mb as i64).contains(&cut) { cut as u32 } else { rc };
                    (((r << c) | (1u64 << (c - 1))).wrapping_add(d as u64)) & mask
                }
                // Next to 0 or all ones (the binade edges).
                _ => (d as u64) & mask,
            };
            ((s as u64) << (eb + mb)) | (e << mb) | m
        });
    let full = low_mask(width);
    // Landmarks of the destination, as source encodings, with a random sign
    // and a small offset in the last source bits.
    let mut marks: Vec<u64> = landmarks(aim).iter().filter_map(|v| encode_normal(&l, v)).collect();
    // (None of bf16's landmarks is a normal f16, for instance: then 1.0.)
    marks.push((bias as u64) << mb);
    let sign = 1u64 << (eb + mb);
    let near_marks = (select(marks), delta(), any::<bool>())
        .prop_map(move |(b, d, neg)| (b.wrapping_add(d as u64) & (sign - 1)) | if neg { sign } else { 0 });
    prop_oneof![1 => any::<u64>().prop_map(move |b| b & full), 5 => structured, 1 => near_marks].boxed()
}

/// Values where a destination's rounding changes character: max finite, the
/// overflow threshold (max finite + ½ ulp) and 2^(emax+1); the smallest normal,
/// the largest subnormal and the midpoint between them; the smallest
/// subnormal, half of it and 3/2 of it. Integers: k ± ½ and 2^k at the range
/// edges, and the first ties ½, 1½, 2½.
fn landmarks(aim: Aim) -> Vec<Dyadic> {
    let d = |sig: u128, exp: i64| {
        let mut z = Dyadic::zero().sig().into_owned();
        z += sig;
        Dyadic::new(z, exp)
    };
    match aim {
        Aim::Float(f) => {
            let l = f.float_layout().unwrap();
            let mf = l.max_finite();
            let (sig, exp) = (mf.sig().to_u128().unwrap(), mf.exp);
            let (q, m) = (l.qmin(), l.man_bits);
            vec![
                d(sig, exp),
                d(2 * sig + 1, exp - 1),
                d(sig + 1, exp),
                d(1, l.emin()),
                d((1 << m) - 1, q),
                d((1 << (m + 1)) - 1, q - 1),
                d(1, q),
                d(1, q - 1),
                d(3, q - 1),
            ]
        }
        Aim::Int(n) => {
            let mut v = vec![d(1, -1), d(3, -1), d(5, -1)];
            for k in [n - 1, n] {
                v.extend([d((1 << (k + 1)) - 1, -1), d(1, k as i64), d((1 << (k + 1)) + 1, -1)]);
            }
            v
        }
    }
}

/// The encoding of a positive value that is a normal number of `l`, if it is one.
fn encode_normal(l: &FloatLayout, v: &Dyadic) -> Option<u64> {
    let msb = v.msb_exp()?;
    let e = msb + l.bias as i64;
    if e < 1 || e >= ((1i64 << l.exp_bits) - 1) {
        return None;
    }
    let bits = v.sig_bits();
    if bits > l.precision() {
        return None;
    }
    let m = (v.sig_u64()? << (l.precision() - bits)) & low_mask(l.man_bits);
    Some(((e as u64) << l.man_bits) | m)
}

/// Integer source bits with structure aimed at the destination `dst`.
fn int_bits(src: Type, dst: Format) -> BoxedStrategy<u64> {
    let n = src.bits();
    let signed = src.format().is_signed_int();
    let mask = low_mask(n);
    // The precision at which a float destination rounds (integers: none).
    let p = dst.float_layout().map(|l| l.precision()).unwrap_or(n + 1);
    let structured =
        (1..=n, any::<u64>(), any::<bool>(), 1..=n, delta(), any::<bool>()).prop_map(move |(w, r, at_p, c, d, neg)| {
            let top = 1u64 << (w - 1);
            let mut m = top | (r & (top - 1));
            // A tie when w - c bits stay: c = w - p is the destination's.
            let c = if at_p { w.saturating_sub(p) } else { c.min(w) };
            if c >= 1 && c < w {
                m = ((m >> c) << c) | (1u64 << (c - 1));
            }
            m = m.wrapping_add(d as u64);
            let v = if signed && neg { m.wrapping_neg() } else { m };
            v & mask
        });
    let half = mask >> 1;
    let mut edges = vec![0, 1, mask, half, half + 1, 2, mask - 1];
    // Integral landmarks of a float destination (f16: 65504, 65520, 65536).
    if let Some(l) = dst.float_layout() {
        let mf = l.max_finite();
        let (sig, exp) = (mf.sig_u64().unwrap(), mf.exp);
        for (s, e) in [(sig, exp), (2 * sig + 1, exp - 1), (sig + 1, exp)] {
            if (0..64).contains(&e) && s.leading_zeros() as i64 >= e {
                let v = s << e;
                if (signed && v <= half) || (!signed && v <= mask) {
                    edges.push(v);
                }
            }
        }
    }
    let near_edges = (select(edges), delta(), any::<bool>()).prop_map(move |(v, d, neg)| {
        let v = v.wrapping_add(d as u64);
        (if signed && neg { v.wrapping_neg() } else { v }) & mask
    });
    prop_oneof![1 => any::<u64>().prop_map(move |b| b & mask), 1 => near_edges, 6 => structured].boxed()
}

fn src_bits(f: Form) -> BoxedStrategy<u64> {
    if f.a.is_float() {
        let aim = if f.d.is_int() {
            Aim::Int(f.d.bits())
        } else if f.d == f.a {
            Aim::Int(f.a.format().float_layout().unwrap().precision() + 1)
        } else {
            Aim::Float(f.d.format())
        };
        float_bits(f.a.format(), aim)
    } else {
        int_bits(f.a, f.d.format())
    }
}

fn form_and_input(forms: &'static [Form]) -> impl Strategy<Value = (Form, u64)> {
    select(forms).prop_flat_map(|f| (Just(f), src_bits(f)))
}

/// Two inputs of one form: often adjacent encodings, sometimes independent.
fn form_and_pair(forms: &'static [Form]) -> impl Strategy<Value = (Form, u64, u64)> {
    select(forms).prop_flat_map(|f| {
        let mask = low_mask(f.a.bits());
        let near = (src_bits(f), -4i64..=4).prop_map(move |(x, k)| (x, x.wrapping_add(k as u64) & mask));
        let far = (src_bits(f), src_bits(f));
        (Just(f), prop_oneof![3 => near, 1 => far]).prop_map(|(f, (x, y))| (f, x, y))
    })
}

// ---------------------------------------------------------------------------
// The forms under test
// ---------------------------------------------------------------------------

use Type::*;

/// Float→float conversions that round (Table 15's narrowing, f16↔bf16 both ways).
const NARROW: [Form; 7] = [
    form(F32, F64),
    form(F16, F64),
    form(Bf16, F64),
    form(F16, F32),
    form(Bf16, F32),
    form(Bf16, F16),
    form(F16, Bf16),
];

/// Integer→float conversions, inexact ones included.
const INT_TO_FLOAT: [Form; 13] = [
    form(F32, S64),
    form(F16, U64),
    form(F16, S32),
    form(F32, U64),
    form(F64, S64),
    form(F64, U64),
    form(F32, S32),
    form(F32, U32),
    form(Bf16, U32),
    form(Bf16, S64),
    form(F16, S16),
    form(F16, U16),
    form(Bf16, S16),
];

/// Float→integer conversions.
const FLOAT_TO_INT: [Form; 13] = [
    form(S32, F32),
    form(S32, F64),
    form(U32, F32),
    form(S64, F64),
    form(U64, F64),
    form(S64, F32),
    form(U64, F32),
    form(S8, F16),
    form(U8, F16),
    form(S16, F16),
    form(U16, F64),
    form(S16, Bf16),
    form(U8, Bf16),
];

/// Same-format rounding to an integral value (cvt.rni.f32.f32 …).
const TO_INTEGRAL: [Form; 4] = [form(F16, F16), form(Bf16, Bf16), form(F32, F32), form(F64, F64)];

/// Every rounding form above.
const ALL_ROUNDING: [Form; 37] = {
    let mut all = [form(F32, F32); 37];
    let mut i = 0;
    while i < 7 {
        all[i] = NARROW[i];
        i += 1;
    }
    let mut j = 0;
    while j < 13 {
        all[7 + j] = INT_TO_FLOAT[j];
        all[20 + j] = FLOAT_TO_INT[j];
        j += 1;
    }
    let mut k = 0;
    while k < 4 {
        all[33 + k] = TO_INTEGRAL[k];
        k += 1;
    }
    all
};

/// Forms whose source has a sign (negation maps the source set to itself,
/// bar the most negative integer).
const SIGNED_SOURCE: [Form; 20] = [
    form(F32, F64),
    form(F16, F64),
    form(Bf16, F64),
    form(F16, F32),
    form(Bf16, F32),
    form(Bf16, F16),
    form(F16, Bf16),
    form(F32, S64),
    form(F16, S32),
    form(F64, S64),
    form(F32, S32),
    form(Bf16, S64),
    form(F16, S16),
    form(S32, F32),
    form(S32, F64),
    form(S64, F64),
    form(S8, F16),
    form(S16, Bf16),
    form(F32, F32),
    form(F16, F16),
];

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

// ---------------------------------------------------------------------------
// Checks shared by the properties
// ---------------------------------------------------------------------------

/// Property 1: |rz| ≤ |x| ≤ |away| inside the destination range; outside an
/// integer range every mode gives the nearer bound.
fn check_bracket(f: Form, x_bits: u64) -> Result<(), TestCaseError> {
    let x = val(f.a, x_bits);
    if x.is_nan() {
        return Ok(());
    }
    let rz = f.run(M::Z, x_bits);
    let away = f.run(Form::away(x.is_negative()), x_bits);
    let (vz, va) = (val(f.d, rz), val(f.d, away));
    let ctx = || format!("{:?} x = {}: rz {} away {}", f, show(f.a, x_bits), show(f.d, rz), show(f.d, away));
    if in_int_range(f.d, &x) {
        prop_assert!(cmp_abs(&vz, &x) != Ordering::Greater, "|rz| > |x|: {}", ctx());
        prop_assert!(cmp_abs(&x, &va) != Ordering::Greater, "|x| > |away|: {}", ctx());
        // The two are grid neighbours: equal exactly when x is on the grid.
        let exact = cmp_v(&vz, &x) == Ordering::Equal;
        prop_assert_eq!(exact, rz == away, "rz == away iff exact: {}", ctx());
        // And the bracket is tight: away is rz's successor in magnitude on the
        // destination grid (float encodings are consecutive, max finite → Inf
        // included; integers and integral values differ by one).
        if !exact {
            match f.d.format().float_layout() {
                Some(l) if f.d != f.a => {
                    let m = !l.sign_bit() & low_mask(f.d.bits());
                    prop_assert_eq!(away & m, (rz & m) + 1, "rz and away are not neighbours: {}", ctx());
                }
                _ => {
                    let (Value::Num { mag: mz, .. }, Value::Num { mag: ma, .. }) = (&vz, &va) else {
                        return Err(TestCaseError::fail(format!("non-finite integral result: {}", ctx())));
                    };
                    prop_assert!(ma.floor_int() - mz.floor_int() == 1, "rz and away are not neighbours: {}", ctx());
                }
            }
        }
    } else {
        // PTX ISA §6.5 / docs/semantics.md §5.3: float→int clamps to the destination range.
        let (lo, hi) = int_range(f.d).unwrap();
        let bound = if cmp_v(&x, &lo) == Ordering::Less { lo } else { hi };
        for m in MODES {
            let r = val(f.d, f.run(m, x_bits));
            prop_assert!(cmp_v(&r, &bound) == Ordering::Equal, "{m:?} of out-of-range {}: {r}, want {bound}", ctx());
        }
    }
    Ok(())
}

/// Property 2: rm ≤ rn ≤ rp and rm ≤ rz ≤ rp (as values), and rm ≤ x ≤ rp in range.
fn check_order(f: Form, x_bits: u64) -> Result<(), TestCaseError> {
    let x = val(f.a, x_bits);
    if x.is_nan() {
        return Ok(());
    }
    let r: Vec<Value> = MODES.iter().map(|m| val(f.d, f.run(*m, x_bits))).collect();
    let (n, z, dn, up) = (&r[0], &r[1], &r[2], &r[3]);
    let ctx = || format!("{:?} x = {}: rn {n} rz {z} rm {dn} rp {up}", f, show(f.a, x_bits));
    prop_assert!(cmp_v(dn, n) != Ordering::Greater, "rm > rn: {}", ctx());
    prop_assert!(cmp_v(n, up) != Ordering::Greater, "rn > rp: {}", ctx());
    prop_assert!(cmp_v(dn, z) != Ordering::Greater, "rm > rz: {}", ctx());
    prop_assert!(cmp_v(z, up) != Ordering::Greater, "rz > rp: {}", ctx());
    if in_int_range(f.d, &x) {
        prop_assert!(cmp_v(dn, &x) != Ordering::Greater, "rm > x: {}", ctx());
        prop_assert!(cmp_v(&x, up) != Ordering::Greater, "x > rp: {}", ctx());
    }
    Ok(())
}

/// Property 3: rn is the nearer of rz and away; on a tie, the even one.
fn check_nearest(f: Form, x_bits: u64) -> Result<(), TestCaseError> {
    let x = val(f.a, x_bits);
    if x.is_nan() || !in_int_range(f.d, &x) {
        return Ok(());
    }
    let rn = f.run(M::N, x_bits);
    let rz = f.run(M::Z, x_bits);
    let away = f.run(Form::away(x.is_negative()), x_bits);
    let ctx = || {
        format!("{:?} x = {}: rn {} rz {} away {}", f, show(f.a, x_bits), show(f.d, rn), show(f.d, rz), show(f.d, away))
    };
    prop_assert!(rn == rz || rn == away, "rn is neither neighbour: {}", ctx());
    if rz == away {
        return Ok(());
    }
    let Value::Num { mag: mx, .. } = &x else {
        return Err(TestCaseError::fail(format!("an infinite source rounded inexactly: {}", ctx())));
    };
    let (mz, ma) = (nearest_mag(f.d, rz), nearest_mag(f.d, away));
    let q = mx.exp.min(mz.exp).min(ma.exp);
    let twice_x = mx.scaled_to(q) << 1u32;
    let sum = mz.scaled_to(q) + ma.scaled_to(q);
    let want = match twice_x.cmp(&sum) {
        Ordering::Less => rz,
        Ordering::Greater => away,
        // Ties to even: the even integer when rounding to integers, else the
        // encoding whose last significand bit is 0.
        Ordering::Equal if is_even(f, rz) => rz,
        Ordering::Equal => away,
    };
    prop_assert_eq!(rn, want, "rn is not the nearest (ties to even): {}", ctx());
    Ok(())
}

/// Whether a result is the even one of two neighbours.
fn is_even(f: Form, bits: u64) -> bool {
    if f.d.is_int() || f.d == f.a {
        match val(f.d, bits) {
            Value::Num { mag, .. } => mag.floor_int().is_even(),
            v => panic!("non-finite integral result {v}"),
        }
    } else {
        bits & 1 == 0
    }
}

/// Property 5: x ≤ y implies cvt(x) ≤ cvt(y), every mode.
fn check_monotone(f: Form, x_bits: u64, y_bits: u64) -> Result<(), TestCaseError> {
    let (x, y) = (val(f.a, x_bits), val(f.a, y_bits));
    if x.is_nan() || y.is_nan() {
        return Ok(());
    }
    let (lo, hi) = if cmp_v(&x, &y) == Ordering::Greater { (y_bits, x_bits) } else { (x_bits, y_bits) };
    for m in MODES {
        let (rl, rh) = (f.run(m, lo), f.run(m, hi));
        prop_assert!(
            cmp_v(&val(f.d, rl), &val(f.d, rh)) != Ordering::Greater,
            "{:?} {m:?} not monotone: {} → {} but {} → {}",
            f,
            show(f.a, lo),
            show(f.d, rl),
            show(f.a, hi),
            show(f.d, rh)
        );
    }
    Ok(())
}

/// The source bits of −x, when the source type has it.
fn neg_bits(t: Type, bits: u64) -> Option<u64> {
    let n = t.bits();
    if let Some(l) = t.format().float_layout() {
        return Some(bits ^ l.sign_bit());
    }
    let mask = low_mask(n);
    let min = 1u64 << (n - 1);
    (t.format().is_signed_int() && bits & mask != min).then(|| bits.wrapping_neg() & mask)
}

/// Property 6: rn(−x) = −rn(x), rz(−x) = −rz(x), rm(−x) = −rp(x).
fn check_symmetry(f: Form, x_bits: u64) -> Result<(), TestCaseError> {
    if is_nan(f.a, x_bits) {
        return Ok(());
    }
    let Some(nx_bits) = neg_bits(f.a, x_bits) else {
        return Ok(());
    };
    if f.a.is_int() && nx_bits == x_bits {
        // Integer 0 has no sign: IEEE 754-2008 §5.4.1 converts it to +0 in every mode.
        for m in MODES {
            prop_assert_eq!(f.run(m, x_bits), 0, "{:?} {:?} of integer 0", f, m);
        }
        return Ok(());
    }
    for (m_neg, m_pos) in [(M::N, M::N), (M::Z, M::Z), (M::Dn, M::Up), (M::Up, M::Dn)] {
        let (rneg, rpos) = (f.run(m_neg, nx_bits), f.run(m_pos, x_bits));
        let ctx = || {
            format!(
                "{:?}: {m_neg:?}({}) = {} but {m_pos:?}({}) = {}",
                f,
                show(f.a, nx_bits),
                show(f.d, rneg),
                show(f.a, x_bits),
                show(f.d, rpos)
            )
        };
        match f.d.format().float_layout() {
            // Float results: bit-exact, the sign of zero included.
            Some(l) => prop_assert_eq!(rneg, rpos ^ l.sign_bit(), "{}", ctx()),
            None => {
                let (lo, _) = int_range(f.d).unwrap();
                let (vneg, vpos) = (val(f.d, rneg), val(f.d, rpos));
                // The asymmetric edge: −2^(n−1) has no positive partner.
                if cmp_v(&vneg, &lo) == Ordering::Equal || cmp_v(&vpos, &lo) == Ordering::Equal {
                    continue;
                }
                prop_assert!(cmp_v(&vneg, &negate(&vpos)) == Ordering::Equal, "{}", ctx());
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Properties 1–3, 5, 6 (sampled)
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(cfg(10_000))]

    // IEEE 754-2008 §4.3.2: roundTowardZero and the directed rounding away from
    // zero bracket the exact value; PTX ISA §6.5: float→int saturates outside the range.
    #[test]
    fn p1_bracket_narrowing((f, x) in form_and_input(&NARROW)) {
        check_bracket(f, x)?;
    }

    // IEEE 754-2008 §4.3.2 (the same law for integer sources, §5.4.1 convertFromInt).
    #[test]
    fn p1_bracket_int_to_float((f, x) in form_and_input(&INT_TO_FLOAT)) {
        check_bracket(f, x)?;
    }

    // IEEE 754-2008 §5.8 convertToIntegerToward{Zero,Positive,Negative}; PTX ISA §6.5 clamps.
    #[test]
    fn p1_bracket_float_to_int((f, x) in form_and_input(&FLOAT_TO_INT)) {
        check_bracket(f, x)?;
    }

    // IEEE 754-2008 §5.9 roundToIntegral: the same bracket in the source format.
    #[test]
    fn p1_bracket_to_integral((f, x) in form_and_input(&TO_INTEGRAL)) {
        check_bracket(f, x)?;
    }

    // IEEE 754-2008 §4.3: rounding is monotone in the direction, so rm ≤ rn, rz ≤ rp.
    #[test]
    fn p2_directed_order((f, x) in form_and_input(&ALL_ROUNDING)) {
        check_order(f, x)?;
    }

    // IEEE 754-2008 §4.3.1 roundTiesToEven: the nearest neighbour, the even one on a
    // tie, and Inf from b^emax × (b − ½ b^(1−p)) up.
    #[test]
    fn p3_nearest_even((f, x) in form_and_input(&ALL_ROUNDING)) {
        check_nearest(f, x)?;
    }

    // IEEE 754-2008 §4.3: every rounding-direction attribute is a monotone function.
    #[test]
    fn p5_monotone((f, x, y) in form_and_pair(&ALL_ROUNDING)) {
        check_monotone(f, x, y)?;
    }

    // IEEE 754-2008 §4.3.1–2: rn and rz are odd functions; roundTowardNegative(−x) =
    // −roundTowardPositive(x). Float→signed int except at the −2^(n−1) clamp.
    #[test]
    fn p6_sign_symmetry((f, x) in form_and_input(&SIGNED_SOURCE)) {
        check_symmetry(f, x)?;
    }
}

// ---------------------------------------------------------------------------
// Property 4: widen then narrow is the identity (exhaustive for 16 bits)
// ---------------------------------------------------------------------------

/// For every non-NaN `a` input (all of them when `inputs` is None), narrowing
/// the exact widening back with each mode returns the input bits.
fn round_trip_float(a: Type, w: Type, inputs: impl Iterator<Item = u64>) -> u64 {
    let back = form(a, w);
    let mut checked = 0u64;
    for x in inputs {
        if is_nan(a, x) {
            continue;
        }
        let wide = run_plain(w, a, x);
        assert!(
            cmp_v(&val(w, wide), &val(a, x)) == Ordering::Equal
                && val(w, wide).is_negative() == val(a, x).is_negative(),
            "widening {} gave {}",
            show(a, x),
            show(w, wide)
        );
        for m in MODES {
            let r = back.run(m, wide);
            assert_eq!(r, x, "{:?} {m:?}: {} → {} → {}", back, show(a, x), show(w, wide), show(a, r));
        }
        checked += 1;
    }
    checked
}

// IEEE 754-2008 §5.4.2 formatOf-convertFormat: widening is exact, and rounding
// a representable value is the identity in every direction (§4.3).
#[test]
fn p4_round_trip_f16_via_f32() {
    // Every non-NaN encoding: 2^16 − 2×(2^m − 1) of them.
    assert_eq!(round_trip_float(F16, F32, 0..=0xffff), 65536 - 2 * ((1 << 10) - 1));
}

// IEEE 754-2008 §5.4.2 / §4.3 (as above), bf16 through f32.
#[test]
fn p4_round_trip_bf16_via_f32() {
    // Every non-NaN encoding: 2^16 − 2×(2^m − 1) of them.
    assert_eq!(round_trip_float(Bf16, F32, 0..=0xffff), 65536 - 2 * ((1 << 7) - 1));
}

// IEEE 754-2008 §5.4.2 / §4.3 (as above), f16 through f64.
#[test]
fn p4_round_trip_f16_via_f64() {
    // Every non-NaN encoding: 2^16 − 2×(2^m − 1) of them.
    assert_eq!(round_trip_float(F16, F64, 0..=0xffff), 65536 - 2 * ((1 << 10) - 1));
}

// IEEE 754-2008 §5.4.2 / §4.3 (as above), bf16 through f64.
#[test]
fn p4_round_trip_bf16_via_f64() {
    // Every non-NaN encoding: 2^16 − 2×(2^m − 1) of them.
    assert_eq!(round_trip_float(Bf16, F64, 0..=0xffff), 65536 - 2 * ((1 << 7) - 1));
}

proptest! {
    #![proptest_config(cfg(10_000))]

    // IEEE 754-2008 §5.4.2 / §4.3 (as above), f32 through f64, sampled.
    #[test]
    fn p4_round_trip_f32_via_f64(x in float_bits(Format::F32, Aim::Float(Format::F64))) {
        round_trip_float(F32, F64, std::iter::once(x));
    }

    // IEEE 754-2008 §5.4.1 convertFromInt is exact when the integer fits the
    // precision, and §5.8 convertToInteger of an integral value is the identity.
    #[test]
    fn p4_round_trip_s32_via_f64(x in int_bits(S32, Format::F64)) {
        round_trip_int(S32, F64, std::iter::once(x));
    }

    // IEEE 754-2008 §5.4.1 / §5.8 (as above), u32 through f64.
    #[test]
    fn p4_round_trip_u32_via_f64(x in int_bits(U32, Format::F64)) {
        round_trip_int(U32, F64, std::iter::once(x));
    }
}

/// int → float (every float mode, all exact) → int (every integer mode) is the identity.
fn round_trip_int(a: Type, w: Type, inputs: impl Iterator<Item = u64>) {
    let to = form(w, a);
    let back = form(a, w);
    for x in inputs {
        let wides: Vec<u64> = MODES.iter().map(|m| to.run(*m, x)).collect();
        assert!(
            wides.iter().all(|b| *b == wides[0]),
            "{:?}: the modes disagree on exact {}: {wides:x?}",
            to,
            show(a, x)
        );
        let wide = wides[0];
        assert!(cmp_v(&val(w, wide), &val(a, x)) == Ordering::Equal, "{:?}: {} → {}", to, show(a, x), show(w, wide));
        for m in MODES {
            let r = back.run(m, wide);
            assert_eq!(
                r,
                x & low_mask(a.bits()),
                "{:?} {m:?}: {} → {} → {}",
                back,
                show(a, x),
                show(w, wide),
                show(a, r)
            );
        }
    }
}

// IEEE 754-2008 §5.4.1 / §5.8: s16 → f32 → s16 exhaustively.
#[test]
fn p4_round_trip_s16_via_f32() {
    round_trip_int(S16, F32, 0..=0xffff);
}

// IEEE 754-2008 §5.4.1 / §5.8: u8 → f16 → u8 and s8 → f16 → s8 exhaustively.
#[test]
fn p4_round_trip_8bit_via_f16() {
    round_trip_int(U8, F16, 0..=0xff);
    round_trip_int(S8, F16, 0..=0xff);
    round_trip_int(U8, Bf16, 0..=0xff);
    round_trip_int(S8, Bf16, 0..=0xff);
}

// IEEE 754-2008 §5.4.1 / §5.8: u16 → f32 → u16 exhaustively.
#[test]
fn p4_round_trip_u16_via_f32() {
    round_trip_int(U16, F32, 0..=0xffff);
}

// ---------------------------------------------------------------------------
// Property 7: independent peers (Rust's IEEE conversions)
// ---------------------------------------------------------------------------

/// Non-NaN f64 bits.
fn f64_input() -> impl Strategy<Value = u64> {
    prop_oneof![
        float_bits(Format::F64, Aim::Float(Format::F32)),
        float_bits(Format::F64, Aim::Int(32)),
        float_bits(Format::F64, Aim::Int(64)),
        float_bits(Format::F64, Aim::Int(53))
    ]
    .prop_filter("NaN", |b| !f64::from_bits(*b).is_nan())
}

/// Non-NaN f32 bits.
fn f32_input() -> impl Strategy<Value = u64> {
    prop_oneof![
        float_bits(Format::F32, Aim::Int(32)),
        float_bits(Format::F32, Aim::Int(64)),
        float_bits(Format::F32, Aim::Int(24)),
        float_bits(Format::F32, Aim::Float(Format::F16))
    ]
    .prop_filter("NaN", |b| !f32::from_bits(*b as u32).is_nan())
}

fn c(s: &str) -> Cvt {
    ptx_cvt::instr::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

proptest! {
    #![proptest_config(cfg(20_000))]

    // Rust reference, "Type cast expressions": f64 as f32 rounds to nearest, ties
    // to even (IEEE 754-2008 §5.4.2), overflow to ±Inf.
    #[test]
    fn p7_rn_f32_f64_matches_rust(x in f64_input()) {
        let want = (f64::from_bits(x) as f32).to_bits() as u64;
        prop_assert_eq!(run(&c("cvt.rn.f32.f64"), x), want, "{}", show(F64, x));
    }

    // Rust reference: f32 as f64 is exact (IEEE 754-2008 §5.4.2, widening).
    #[test]
    fn p7_f64_f32_matches_rust(x in f32_input()) {
        let want = (f32::from_bits(x as u32) as f64).to_bits();
        prop_assert_eq!(run(&c("cvt.f64.f32"), x), want, "{}", show(F32, x));
    }

    // Rust reference: integer as float rounds to nearest, ties to even
    // (IEEE 754-2008 §5.4.1 convertFromInt).
    #[test]
    fn p7_rn_int_to_float_matches_rust(
        s in int_bits(S64, Format::F64),
        u in int_bits(U64, Format::F32),
        s32 in int_bits(S32, Format::F32),
        u2 in int_bits(U64, Format::F64),
    ) {
        prop_assert_eq!(run(&c("cvt.rn.f64.s64"), s), (s as i64 as f64).to_bits(), "s64 {:x}", s);
        prop_assert_eq!(run(&c("cvt.rn.f32.u64"), u), (u as f32).to_bits() as u64, "u64 {:x}", u);
        prop_assert_eq!(run(&c("cvt.rn.f32.s32"), s32), (s32 as u32 as i32 as f32).to_bits() as u64, "s32 {:x}", s32);
        prop_assert_eq!(run(&c("cvt.rn.f64.u64"), u2), (u2 as f64).to_bits(), "u64 {:x}", u2);
    }

    // Rust reference: float as int truncates toward zero and saturates (PTX ISA
    // §6.5 clamps the same way); NaN excluded: Rust gives 0, PTX f64→s32 gives 80000000.
    #[test]
    fn p7_rzi_float_to_int_matches_rust(x in f64_input(), y in f32_input()) {
        let (d, s) = (f64::from_bits(x), f32::from_bits(y as u32));
        prop_assert_eq!(run(&c("cvt.rzi.s32.f64"), x), d as i32 as u32 as u64, "{}", show(F64, x));
        prop_assert_eq!(run(&c("cvt.rzi.u64.f64"), x), d as u64, "{}", show(F64, x));
        prop_assert_eq!(run(&c("cvt.rzi.s64.f32"), y), s as i64 as u64, "{}", show(F32, y));
        prop_assert_eq!(run(&c("cvt.rzi.u32.f32"), y), s as u32 as u64, "{}", show(F32, y));
    }

    // IEEE 754-2008 §5.8 convertToIntegerTiesToEven/TowardNegative/TowardPositive,
    // peered with Rust's round_ties_even/floor/ceil followed by a saturating cast.
    #[test]
    fn p7_irnd_float_to_int_matches_rust(x in f64_input(), y in f32_input()) {
        let (d, s) = (f64::from_bits(x), f32::from_bits(y as u32));
        prop_assert_eq!(run(&c("cvt.rni.s32.f64"), x), d.round_ties_even() as i32 as u32 as u64, "{}", show(F64, x));
        prop_assert_eq!(run(&c("cvt.rmi.s64.f64"), x), d.floor() as i64 as u64, "{}", show(F64, x));
        prop_assert_eq!(run(&c("cvt.rpi.u32.f64"), x), d.ceil() as u32 as u64, "{}", show(F64, x));
        prop_assert_eq!(run(&c("cvt.rni.s64.f32"), y), s.round_ties_even() as i64 as u64, "{}", show(F32, y));
        prop_assert_eq!(run(&c("cvt.rmi.s32.f32"), y), s.floor() as i32 as u32 as u64, "{}", show(F32, y));
        prop_assert_eq!(run(&c("cvt.rpi.s32.f32"), y), s.ceil() as i32 as u32 as u64, "{}", show(F32, y));
    }

    // IEEE 754-2008 §5.9 roundToIntegralTiesToEven/TowardZero/TowardNegative/
    // TowardPositive (sign of zero kept), peered with Rust's f32/f64 methods.
    #[test]
    fn p7_round_to_integral_matches_rust(x in f64_input(), y in f32_input()) {
        let (d, s) = (f64::from_bits(x), f32::from_bits(y as u32));
        prop_assert_eq!(run(&c("cvt.rni.f64.f64"), x), d.round_ties_even().to_bits(), "{}", show(F64, x));
        prop_assert_eq!(run(&c("cvt.rzi.f64.f64"), x), d.trunc().to_bits(), "{}", show(F64, x));
        prop_assert_eq!(run(&c("cvt.rmi.f64.f64"), x), d.floor().to_bits(), "{}", show(F64, x));
        prop_assert_eq!(run(&c("cvt.rpi.f64.f64"), x), d.ceil().to_bits(), "{}", show(F64, x));
        prop_assert_eq!(run(&c("cvt.rni.f32.f32"), y), s.round_ties_even().to_bits() as u64, "{}", show(F32, y));
        prop_assert_eq!(run(&c("cvt.rzi.f32.f32"), y), s.trunc().to_bits() as u64, "{}", show(F32, y));
        prop_assert_eq!(run(&c("cvt.rmi.f32.f32"), y), s.floor().to_bits() as u64, "{}", show(F32, y));
        prop_assert_eq!(run(&c("cvt.rpi.f32.f32"), y), s.ceil().to_bits() as u64, "{}", show(F32, y));
    }
}

/// Non-NaN f32 bits aimed at the f16 and bf16 grids.
fn f32_half_input() -> impl Strategy<Value = u64> {
    prop_oneof![float_bits(Format::F32, Aim::Float(Format::F16)), float_bits(Format::F32, Aim::Float(Format::Bf16))]
        .prop_filter("NaN", |b| !f32::from_bits(*b as u32).is_nan())
}

proptest! {
    #![proptest_config(cfg(20_000))]

    // The `half` crate's f16::from_f32 (x86 F16C `vcvtps2ph` with round-to-nearest-even,
    // or its software fallback) and bf16::from_f32 are IEEE 754-2008 §5.4.2
    // convertFormat with roundTiesToEven, subnormals and overflow to ±Inf included.
    #[test]
    fn p7_rn_f16_bf16_from_f32_match_half(x in f32_half_input()) {
        let v = f32::from_bits(x as u32);
        prop_assert_eq!(run(&c("cvt.rn.f16.f32"), x), half::f16::from_f32(v).to_bits() as u64, "{}", show(F32, x));
        prop_assert_eq!(run(&c("cvt.rn.bf16.f32"), x), half::bf16::from_f32(v).to_bits() as u64, "{}", show(F32, x));
    }
}

// IEEE 754-2008 §5.4.2: widening f16/bf16 → f32/f64 is exact; peered with the
// `half` crate on every non-NaN encoding.
#[test]
fn p7_widen_f16_bf16_match_half() {
    for x in 0..=0xffffu64 {
        let (h, b) = (half::f16::from_bits(x as u16), half::bf16::from_bits(x as u16));
        if !h.is_nan() {
            assert_eq!(run_plain(F32, F16, x), h.to_f32().to_bits() as u64, "{}", show(F16, x));
            assert_eq!(run_plain(F64, F16, x), h.to_f64().to_bits(), "{}", show(F16, x));
        }
        if !b.is_nan() {
            assert_eq!(run_plain(F32, Bf16, x), b.to_f32().to_bits() as u64, "{}", show(Bf16, x));
            assert_eq!(run_plain(F64, Bf16, x), b.to_f64().to_bits(), "{}", show(Bf16, x));
        }
    }
}

// A sanity anchor for the helpers themselves: the ordering treats −0 = +0,
// puts Inf at the ends, and the nearest-rounding magnitude of f16 Inf is 2^16.
#[test]
fn helpers_order_and_inf_magnitude() {
    assert_eq!(cmp_v(&val(F16, 0x8000), &val(F16, 0x0000)), Ordering::Equal);
    assert_eq!(cmp_v(&val(F16, 0xfc00), &val(F16, 0xfbff)), Ordering::Less);
    assert_eq!(cmp_v(&val(F16, 0x7c00), &val(F16, 0x7bff)), Ordering::Greater);
    assert_eq!(cmp_v(&val(F16, 0xbc00), &val(F16, 0x3c00)), Ordering::Less);
    assert_eq!(cmp_v(&val(S8, 0x80), &val(S8, 0x7f)), Ordering::Less);
    assert_eq!(nearest_mag(F16, 0x7c00), val(F32, 0x4780_0000).pipe_mag());
    assert_eq!(neg_bits(S8, 0x80), None);
    assert_eq!(neg_bits(S8, 0x01), Some(0xff));
}

// The aimed landmarks land where intended: f16's in f32 encodings, and the
// integer ones for s8 (±½ around 127 and 255, 128, 256) in f16 encodings.
#[test]
fn helpers_landmarks() {
    let f32l = Format::F32.float_layout().unwrap();
    let got: Vec<u64> = landmarks(Aim::Float(Format::F16)).iter().filter_map(|v| encode_normal(f32l, v)).collect();
    // 65504, 65520, 65536, 2^-14, 1023×2^-24, 2047×2^-25, 2^-24, 2^-25, 3×2^-25.
    let want =
        [0x477fe000, 0x477ff000, 0x47800000, 0x38800000, 0x387fc000, 0x387fe000, 0x33800000, 0x33000000, 0x33c00000];
    assert_eq!(got, want.map(|b: u64| b));
    let f16l = Format::F16.float_layout().unwrap();
    let got: Vec<u64> = landmarks(Aim::Int(8)).iter().filter_map(|v| encode_normal(f16l, v)).collect();
    // 0.5, 1.5, 2.5, 127.5, 128, 128.5, 255.5, 256, 256.5.
    let want = [0x3800, 0x3e00, 0x4100, 0x57f8, 0x5800, 0x5804, 0x5bfc, 0x5c00, 0x5c02];
    assert_eq!(got, want.map(|b: u64| b));
}

trait PipeMag {
    fn pipe_mag(self) -> Dyadic;
}
impl PipeMag for Value {
    fn pipe_mag(self) -> Dyadic {
        match self {
            Value::Num { mag, .. } => mag,
            v => panic!("not finite: {v}"),
        }
    }
}
