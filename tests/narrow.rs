//! Narrow and packed conversions: the 8/6/4-bit formats, ue8m0, the x2/x4
//! packed forms and `.rs` (docs/semantics.md §1, §2, §5.8–5.12), checked against laws
//! that any correct implementation obeys rather than against the oracle's
//! own arithmetic:
//!
//! - exhaustive round trips of every code through f16, f32 and bf16;
//! - packed forms equal the lane-wise scalar rule, lanes in the right order;
//! - `.rs` always lands on one of the two grid neighbours, is `.rz` with zero
//!   random bits and rounds away with all-one random bits;
//! - `.relu` results are never negative, `.satfinite` results never infinite
//!   nor beyond MAX_NORM;
//! - a few hand-checked edge cases.
//!
//! Exact values come from the oracle's `decode` (a dyadic rational per code)
//! and `encode_finite` (the bits of a representable value); every comparison
//! is on bits or on exact values. Profile: sm90.

use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::BoxedStrategy;

use ptx_cvt::encode::{encode_finite, encode_inf, encode_nan};
use ptx_cvt::exact::{decode, Dyadic, Value};
use ptx_cvt::format::{low_mask, FloatLayout, Format};
use ptx_cvt::instr::packed::{Req, FORMS};
use ptx_cvt::instr::{parse, shape};
use ptx_cvt::{evaluate, AcceptSet, Cvt, Operand, Outcome, Profile, Rounding, Type};

// ---------------------------------------------------------------------------
// Evaluation helpers
// ---------------------------------------------------------------------------

fn cvt(s: &str) -> Cvt {
    parse(s).unwrap_or_else(|e| panic!("`{s}` does not parse: {e}"))
}

/// Evaluate with registers exactly as wide as the form's operands.
fn accept(c: &Cvt, ops: &[u64], profile: Profile) -> AcceptSet {
    evaluate_in(c, ops, profile).accept
}

fn evaluate_in(c: &Cvt, ops: &[u64], profile: Profile) -> Outcome {
    let sh = shape(c);
    assert_eq!(ops.len(), sh.srcs.len(), "{c} takes {}", sh.describe());
    let srcs: Vec<Operand> =
        ops.iter().zip(&sh.srcs).map(|(&bits, &width)| Operand { bits: bits & low_mask(width), width }).collect();
    evaluate(c, &srcs, c.dtype.bits(), profile).unwrap_or_else(|e| panic!("{c} {}: {e}", hex_ops(ops)))
}

/// The sm90 profile's evaluation, with its rules.
fn outcome(c: &Cvt, ops: &[u64]) -> Outcome {
    evaluate_in(c, ops, Profile::Sm90)
}

/// The one result the sm90 profile allows.
fn run(c: &Cvt, ops: &[u64]) -> u64 {
    let set = accept(c, ops, Profile::Sm90);
    set.single().unwrap_or_else(|| panic!("{c} {}: not one exact result: {set}", hex_ops(ops)))
}

fn hex_ops(ops: &[u64]) -> String {
    ops.iter().map(|o| format!("{o:x}")).collect::<Vec<_>>().join(" ")
}

/// The lanes of a packed value, high lane first.
fn lanes(t: Type, bits: u64) -> Vec<u64> {
    let lb = t.lane_bits();
    (0..t.lanes()).rev().map(|i| (bits >> (i * lb)) & low_mask(lb)).collect()
}

/// Pack lanes given high lane first.
fn pack(t: Type, ls: &[u64]) -> u64 {
    assert_eq!(ls.len() as u32, t.lanes());
    ls.iter().fold(0, |acc, &l| (acc << t.lane_bits()) | (l & low_mask(t.lane_bits())))
}

fn layout(f: Format) -> &'static FloatLayout {
    f.float_layout().expect("float format")
}

/// Bits of `v` in format `f`; `v` must be representable (NaN: a quiet NaN of the same sign).
fn bits_of(f: Format, v: &Value) -> u64 {
    match v {
        Value::Num { neg, mag } => {
            let b = encode_finite(f, *neg, mag);
            assert_eq!(&decode(f, b), v, "{v} is not representable in {}", f.name());
            b
        }
        Value::Inf { neg } => encode_inf(f, *neg),
        Value::Nan(n) => encode_nan(f, n.neg, 0),
    }
}

/// Re-encode a `src` code exactly in the wider `dst`.
fn widen(src: Format, bits: u64, dst: Format) -> u64 {
    bits_of(dst, &decode(src, bits))
}

fn mag(v: &Value) -> Option<&Dyadic> {
    match v {
        Value::Num { mag, .. } => Some(mag),
        _ => None,
    }
}

/// The five signed narrow formats, as lanes of their x2 types.
const NARROW_X2: [(Type, Format); 5] = [
    (Type::E4m3x2, Format::E4m3),
    (Type::E5m2x2, Format::E5m2),
    (Type::E2m3x2, Format::E2m3),
    (Type::E3m2x2, Format::E3m2),
    (Type::E2m1x2, Format::E2m1),
];

// ---------------------------------------------------------------------------
// 1. Exhaustive round trips
// ---------------------------------------------------------------------------

/// What re-encoding a narrow code with `.satfinite` must give: the code
/// itself, except ±Inf → ±MAX_NORM (docs/semantics.md §5.8) and NaN → a NaN (None here).
fn satfinite_image(f: Format, code: u64) -> Option<u64> {
    match decode(f, code) {
        Value::Nan(_) => None,
        Value::Inf { neg } => Some(ptx_cvt::encode::encode_max(f, neg)),
        Value::Num { .. } => Some(code),
    }
}

fn check_lane_back(c: &Cvt, f: Format, code: u64, got: u64, via: &str) {
    match satfinite_image(f, code) {
        Some(want) => assert_eq!(got, want, "{c}: {} code {code:02x} via {via} came back as {got:02x}", f.name()),
        None => {
            assert!(layout(f).is_nan_code(got), "{c}: NaN code {code:02x} via {via} came back as {got:02x}, not a NaN")
        }
    }
}

// docs/semantics.md §1 (format table), §5.5 (widening is exact), §5.8 (.satfinite), §5.11 (lane packing).
#[test]
fn every_narrow_code_round_trips_through_f16_f32_bf16() {
    for (t, f) in NARROW_X2 {
        let l = layout(f);
        let width = l.width();
        let name = t.name();
        let widen_c = cvt(&format!("cvt.rn.f16x2.{name}"));
        let widen_relu = cvt(&format!("cvt.rn.relu.f16x2.{name}"));
        let back_f16 = cvt(&format!("cvt.rn.satfinite.{name}.f16x2"));
        let back_f32 = cvt(&format!("cvt.rn.satfinite.{name}.f32"));
        let back_bf16 = cvt(&format!("cvt.rn.satfinite.{name}.bf16x2"));
        for x in 0..(1u64 << width) {
            // The other lane holds the bitwise complement within the code width.
            let y = !x & low_mask(width);
            let src = pack(t, &[x, y]);
            // Widen to f16x2: each half is the exact value of its code.
            let h = run(&widen_c, &[src]);
            let hl = lanes(Type::F16x2, h);
            for (code, half) in [(x, hl[0]), (y, hl[1])] {
                let want = decode(f, code);
                let got = decode(Format::F16, half);
                if want.is_nan() {
                    assert!(got.is_nan(), "{widen_c} {src:x}: NaN code {code:02x} widened to non-NaN f16 {half:04x}");
                } else {
                    assert_eq!(got, want, "{widen_c} {src:x}: code {code:02x} widened to f16 {half:04x}");
                }
            }
            // .relu (docs/semantics.md §5.8): negative codes (−0 included) → +0, NaN → the canonical 7fff, the rest unchanged.
            let hr = lanes(Type::F16x2, run(&widen_relu, &[src]));
            for (code, relu_half, half) in [(x, hr[0], hl[0]), (y, hr[1], hl[1])] {
                let want = match decode(f, code) {
                    Value::Nan(_) => 0x7fff,
                    v if v.is_negative() => 0,
                    _ => half,
                };
                assert_eq!(relu_half, want, "{widen_relu} {src:x}: code {code:02x}");
            }
            // Back from f16x2.
            let back = lanes(t, run(&back_f16, &[h]));
            check_lane_back(&back_f16, f, x, back[0], "f16 (high lane)");
            check_lane_back(&back_f16, f, y, back[1], "f16 (low lane)");
            // Back from two f32 built from the exact values.
            let (ax, ay) = (widen(f, x, Format::F32), widen(f, y, Format::F32));
            let back = lanes(t, run(&back_f32, &[ax, ay]));
            check_lane_back(&back_f32, f, x, back[0], "f32 a");
            check_lane_back(&back_f32, f, y, back[1], "f32 b");
            // Back from bf16x2 (PTX 9.1 form; no target given, so it evaluates).
            let bsrc = (widen(f, x, Format::Bf16) << 16) | widen(f, y, Format::Bf16);
            let back = lanes(t, run(&back_bf16, &[bsrc]));
            check_lane_back(&back_bf16, f, x, back[0], "bf16 (high lane)");
            check_lane_back(&back_bf16, f, y, back[1], "bf16 (low lane)");
            if width == 6 {
                let raw = run(&back_f16, &[h]);
                assert_eq!(
                    raw & 0xc0c0,
                    0,
                    "{back_f16} {h:08x}: 6-bit lanes must leave bits 7:6 zero (docs/semantics.md §5.11)"
                );
            }
        }
    }
}

// docs/semantics.md §1 (ue8m0 = 2^(e−127), ff NaN) and §5.12 (ff → 7fff, rz/rp pick the power of two).
#[test]
fn every_ue8m0_code_round_trips_through_bf16_and_f32() {
    let widen_c = cvt("cvt.rn.bf16x2.ue8m0x2");
    let backs: Vec<Cvt> = [
        "cvt.rz.ue8m0x2.bf16x2",
        "cvt.rp.ue8m0x2.bf16x2",
        "cvt.rz.satfinite.ue8m0x2.bf16x2",
        "cvt.rp.satfinite.ue8m0x2.bf16x2",
    ]
    .map(cvt)
    .to_vec();
    let backs_f32: Vec<Cvt> =
        ["cvt.rz.ue8m0x2.f32", "cvt.rp.ue8m0x2.f32", "cvt.rz.satfinite.ue8m0x2.f32", "cvt.rp.satfinite.ue8m0x2.f32"]
            .map(cvt)
            .to_vec();
    for x in 0..=0xfeu64 {
        let y = 0xfe - x;
        let src = (x << 8) | y;
        let b = run(&widen_c, &[src]);
        for (code, half) in [(x, b >> 16), (y, b & 0xffff)] {
            assert_eq!(
                decode(Format::Bf16, half),
                decode(Format::Ue8m0, code),
                "{widen_c} {src:04x}: code {code:02x} → bf16 {half:04x}"
            );
        }
        for c in &backs {
            assert_eq!(run(c, &[b]), src, "{c} {b:08x}: expected the codes {src:04x} back");
        }
        let (fx, fy) = (widen(Format::Ue8m0, x, Format::F32), widen(Format::Ue8m0, y, Format::F32));
        for c in &backs_f32 {
            assert_eq!(run(c, &[fx, fy]), src, "{c} {fx:08x} {fy:08x}: expected {src:04x}");
        }
    }
    // ff is the NaN: → bf16 7fff, and NaN → ff even with .satfinite (docs/semantics.md §5.12).
    let b = run(&widen_c, &[0xff3f]);
    assert_eq!(b, 0x7fff_0000 | widen(Format::Ue8m0, 0x3f, Format::Bf16), "{widen_c} ff3f");
    for c in &backs {
        assert_eq!(run(c, &[b]), 0xff3f, "{c} {b:08x}");
    }
}

// ---------------------------------------------------------------------------
// Structured inputs
// ---------------------------------------------------------------------------

/// Interesting f32 values: ±0, ±Inf, NaNs, and the edges of f16, bf16 and the
/// narrow formats (max, the tie above max, the smallest subnormal and half of it).
const F32_SPECIALS: &[u64] = &[
    0x0000_0000,
    0x7f80_0000,
    0x7fc0_0000,
    0x7f80_0001,
    0x7fff_ffff,
    0x7f7f_ffff,
    0x0000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x0040_0000, // 2^-127
    // f16: 65504, just below the tie, the tie 65520, above it; 2^-24, 2^-25 (tie), 2^-14.
    0x477f_e000,
    0x477f_efff,
    0x477f_f000,
    0x477f_f001,
    0x3380_0000,
    0x3300_0000,
    0x3300_0001,
    0x3880_0000,
    0x387f_ffff,
    // bf16 max and its tie.
    0x7f7f_0000,
    0x7f7f_7fff,
    0x7f7f_8000,
    0x7f7f_8001,
    // e4m3 448, 464 (tie), 480; 2^-9, 2^-10.
    0x43e0_0000,
    0x43e7_ffff,
    0x43e8_0000,
    0x43f0_0000,
    0x3b00_0000,
    0x3a80_0000,
    0x3a80_0001,
    // e5m2 57344, 61440 (tie), 2^-16, 2^-17.
    0x4760_0000,
    0x476f_ffff,
    0x4770_0000,
    0x3780_0000,
    0x3700_0000,
    // e2m3 7.5, 7.75; 1/8, 1/16.   e3m2 28, 30; 2^-4, 2^-5.
    0x40f0_0000,
    0x40f8_0000,
    0x3e00_0000,
    0x3d80_0000,
    0x41e0_0000,
    0x41f0_0000,
    0x3d00_0000,
    // e2m1 6, 5 (tie), 7 (tie past max), 0.5, 0.25.
    0x40c0_0000,
    0x40a0_0000,
    0x40e0_0000,
    0x3f00_0000,
    0x3e80_0000,
];

const F16_SPECIALS: &[u64] = &[
    0x0000, 0x7c00, 0x7e00, 0x7c01, 0x7bff, 0x0001, 0x03ff, 0x0400, 0x5f00, 0x5f40, 0x7b00, 0x7b80, 0x4780, 0x4f00,
    0x4600, 0x4700,
];

/// Bits of a binary float with `exp_bits`/`man_bits`: mostly values whose low
/// `cut` mantissa bits sit at or next to zero, a tie, or all ones (the edges
/// of a rounding decision), with exponents drawn from `exps`.
fn structured(exp_bits: u32, man_bits: u32, exps: BoxedStrategy<u64>, specials: &'static [u64]) -> BoxedStrategy<u64> {
    let total = 1 + exp_bits + man_bits;
    let near = (any::<bool>(), exps, 1..=man_bits, 0u32..7, any::<u64>()).prop_map(move |(neg, e, cut, kind, r)| {
        let half = 1u64 << (cut - 1);
        let tail = match kind {
            0 => 0,
            1 => 1,
            2 => half - 1,
            3 => half,
            4 => half + 1,
            5 => low_mask(cut),
            _ => r >> 40,
        } & low_mask(cut);
        let man = (r & low_mask(man_bits) & !low_mask(cut)) | tail;
        ((neg as u64) << (total - 1)) | (e.min(low_mask(exp_bits)) << man_bits) | man
    });
    let special = (select(specials), any::<bool>()).prop_map(move |(b, neg)| b | ((neg as u64) << (total - 1)));
    prop_oneof![
        2 => any::<u64>().prop_map(move |b| b & low_mask(total)),
        2 => special,
        6 => near,
    ]
    .boxed()
}

/// f32 inputs: exponents near the f16 range edges, near the f32/bf16 extremes,
/// the narrow formats' ranges, and anywhere.
fn f32_in() -> BoxedStrategy<u64> {
    let exps = prop_oneof![100u64..=145, 0u64..=4, 250u64..=255, 0u64..=255, 110u64..=145].boxed();
    structured(8, 23, exps, F32_SPECIALS)
}

fn f16_in() -> BoxedStrategy<u64> {
    structured(5, 10, (0u64..=31).boxed(), F16_SPECIALS)
}

/// bf16 inputs: the top halves of interesting f32 values, with their own ties.
fn bf16_in() -> BoxedStrategy<u64> {
    let exps = prop_oneof![0u64..=4, 100u64..=145, 250u64..=255, 0u64..=255].boxed();
    structured(
        8,
        7,
        exps,
        &[0x0000, 0x7f80, 0x7fc0, 0x7f7f, 0x0001, 0x0040, 0x0041, 0x007f, 0x0080, 0x3fc0, 0x7f00, 0x7f40],
    )
}

fn rbits_in() -> BoxedStrategy<u64> {
    prop_oneof![1 => Just(0u64), 1 => Just(0xffff_ffffu64), 6 => any::<u32>().prop_map(u64::from)].boxed()
}

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

// ---------------------------------------------------------------------------
// 2a. Packed = lane-wise scalar
// ---------------------------------------------------------------------------

fn mods(relu: bool, sat: bool) -> String {
    format!("{}{}", if relu { ".relu" } else { "" }, if sat { ".satfinite" } else { "" })
}

/// `(packed, scalar)` pairs: cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32 and the scalar form.
fn f16x2_scalar_pairs() -> Vec<(Cvt, Cvt)> {
    let mut v = Vec::new();
    for d in ["f16", "bf16"] {
        for r in ["rn", "rz"] {
            for relu in [false, true] {
                for sat in [false, true] {
                    let m = mods(relu, sat);
                    v.push((cvt(&format!("cvt.{r}{m}.{d}x2.f32")), cvt(&format!("cvt.{r}{m}.{d}.f32"))));
                }
            }
        }
    }
    v
}

/// The narrow x2 forms from f32 next to the same form from f16x2, bf16x2.
fn narrow_pairs() -> Vec<(Type, Cvt, Cvt, Cvt)> {
    let mut v = Vec::new();
    for (t, _) in NARROW_X2 {
        for relu in [false, true] {
            let m = if relu { ".relu" } else { "" };
            let n = t.name();
            v.push((
                t,
                cvt(&format!("cvt.rn.satfinite{m}.{n}.f32")),
                cvt(&format!("cvt.rn.satfinite{m}.{n}.f16x2")),
                cvt(&format!("cvt.rn.satfinite{m}.{n}.bf16x2")),
            ));
        }
    }
    v
}

proptest! {
    #![proptest_config(cfg(5000))]

    // docs/semantics.md §5.11 (a → high half) and §2: each lane of cvt.{rn,rz}{.relu}{.satfinite}.{f16,bf16}x2.f32 is the scalar cvt.
    #[test]
    fn f16x2_bf16x2_are_lanewise_scalar(i in 0usize..16, a in f32_in(), b in f32_in()) {
        let (packed, scalar) = f16x2_scalar_pairs()[i];
        let p = run(&packed, &[a, b]);
        let want = (run(&scalar, &[a]) << 16) | run(&scalar, &[b]);
        prop_assert_eq!(p, want, "{} {:08x} {:08x}: {:08x}, lane-wise {}: {:08x}", packed, a, b, p, scalar, want);
    }

    // docs/semantics.md §5.11: the f32 form, the f16x2 form and the bf16x2 form agree on values all three can hold; swapping a and b swaps the lanes.
    #[test]
    fn narrow_x2_from_f32_matches_f16x2_and_lane_order(i in 0usize..10, ha in f16_in(), hb in f16_in(), ba in bf16_in(), bb in bf16_in()) {
        let (t, from_f32, from_f16, from_bf16) = narrow_pairs()[i];
        let (a, b) = (widen(Format::F16, ha, Format::F32), widen(Format::F16, hb, Format::F32));
        let r = run(&from_f32, &[a, b]);
        let r16 = run(&from_f16, &[(ha << 16) | hb]);
        prop_assert_eq!(r, r16, "{} {:08x} {:08x} = {:x} but {} {:04x}{:04x} = {:x}", from_f32, a, b, r, from_f16, ha, hb, r16);
        let l = lanes(t, r);
        let swapped = run(&from_f32, &[b, a]);
        prop_assert_eq!(swapped, pack(t, &[l[1], l[0]]), "{} {:08x} {:08x}: {:x}, swapped operands give {:x}", from_f32, a, b, r, swapped);
        let (a, b) = (widen(Format::Bf16, ba, Format::F32), widen(Format::Bf16, bb, Format::F32));
        let r = run(&from_f32, &[a, b]);
        let rb = run(&from_bf16, &[(ba << 16) | bb]);
        prop_assert_eq!(r, rb, "{} {:08x} {:08x} = {:x} but {} {:04x}{:04x} = {:x}", from_f32, a, b, r, from_bf16, ba, bb, rb);
    }

    // docs/semantics.md §5.12, §5.11: cvt.{rz,rp}{.satfinite}.ue8m0x2 from two f32 equals the bf16x2 form on bf16 values, a in the high byte.
    #[test]
    fn ue8m0x2_from_f32_matches_bf16x2(i in 0usize..4, ba in bf16_in(), bb in bf16_in()) {
        let (r, sat) = [("rz", false), ("rp", false), ("rz", true), ("rp", true)][i];
        let s = if sat { ".satfinite" } else { "" };
        let (f, h) = (cvt(&format!("cvt.{r}{s}.ue8m0x2.f32")), cvt(&format!("cvt.{r}{s}.ue8m0x2.bf16x2")));
        let (a, b) = (widen(Format::Bf16, ba, Format::F32), widen(Format::Bf16, bb, Format::F32));
        let x = run(&f, &[a, b]);
        prop_assert_eq!(x, run(&h, &[(ba << 16) | bb]), "{} {:08x} {:08x} vs {} {:04x}{:04x}", f, a, b, h, ba, bb);
        let swapped = run(&f, &[b, a]);
        prop_assert_eq!(swapped, ((x & 0xff) << 8) | (x >> 8), "{} lane order", f);
    }
}

// ---------------------------------------------------------------------------
// 2b/2c. Stochastic rounding
// ---------------------------------------------------------------------------

/// Where an f32 value sits relative to the grid of a float format with
/// precision `p` and smallest quantum 2^qmin: the discarded fraction of an
/// ulp (exact in f64: an f32 scaled by a power of two, minus its floor).
fn discarded_fraction(x: u64, p: u32, qmin: i64) -> f64 {
    let v = f32::from_bits(x as u32).abs() as f64;
    if v == 0.0 || !v.is_finite() {
        return 0.0;
    }
    let msb = ((v.to_bits() >> 52) as i64) - 1023; // f32 values are normal in f64
    let q = (msb - (p as i64 - 1)).max(qmin);
    let scaled = v * f64::from_bits(((1023 - q) as u64) << 52);
    scaled - scaled.floor()
}

/// What a stochastic-rounding lane may hold next to the `.rz` result.
/// `width` is the count of random bits per lane, `fmt` the lane format.
#[allow(clippy::too_many_arguments)]
fn check_rs_lane(
    c: &Cvt,
    fmt: Format,
    width: u32,
    x: u64,
    rz: u64,
    rs: u64,
    rbits_all_ones: bool,
    rbits_zero: bool,
) -> Result<(), TestCaseError> {
    let l = layout(fmt);
    let xv = decode(Format::F32, x);
    let ctx = format!("{c} lane input {x:08x}: rz {rz:x}, rs {rs:x}");
    // NaN, ±Inf, and anything .relu clamps to zero convert the same way whatever the rounding.
    if xv.is_nan() || matches!(xv, Value::Inf { .. }) || (c.relu && xv.is_negative()) || rbits_zero {
        prop_assert_eq!(rs, rz, "{} (rs must equal rz here)", ctx);
        return Ok(());
    }
    let frac = discarded_fraction(x, l.precision(), l.qmin());
    if frac == 0.0 {
        prop_assert_eq!(rs, rz, "{} (nothing discarded: docs/semantics.md §5.10)", ctx);
        return Ok(());
    }
    let mag_bits = rz & !l.sign_bit();
    let at_top = mag_bits >= l.max_finite_code();
    if at_top {
        // Rounding away from max finite: max (with .satfinite) or Inf [OPEN without it].
        let inf_ok = !c.satfinite && l.has_inf() && rs == encode_inf(fmt, xv.is_negative());
        prop_assert!(rs == rz || inf_ok, "{} (at the top: rz's max or, without .satfinite, Inf)", ctx);
        return Ok(());
    }
    // A set bit among the top `width` discarded bits carries with all-one random bits. Below
    // those (only f16 subnormal results discard more than 13 bits) which bits count is [OPEN]
    // (docs/semantics.md §5.10): there only the neighbour property is asserted.
    let top_bits_set = frac >= (-(width as f64)).exp2();
    if rbits_all_ones && top_bits_set {
        prop_assert_eq!(rs, rz + 1, "{} (all-one random bits and discarded bits set: away from zero)", ctx);
    } else {
        prop_assert!(rs == rz || rs == rz + 1, "{} (not a neighbour)", ctx);
    }
    Ok(())
}

/// f16x2/bf16x2: `.rs` forms next to the `.rz` form with the same modifiers.
fn rs_rz_pairs() -> Vec<(Cvt, Cvt)> {
    let mut v = Vec::new();
    for d in ["f16x2", "bf16x2"] {
        for relu in [false, true] {
            for sat in [false, true] {
                let m = mods(relu, sat);
                v.push((cvt(&format!("cvt.rs{m}.{d}.f32")), cvt(&format!("cvt.rz{m}.{d}.f32"))));
            }
        }
    }
    v
}

/// Non-negative finite codes of a format with their exact magnitudes, ascending.
fn magnitudes(f: Format) -> Vec<(Dyadic, u64)> {
    let l = layout(f);
    let mut v: Vec<(Dyadic, u64)> =
        (0..=low_mask(l.width()) & !l.sign_bit()).filter_map(|c| mag(&decode(f, c)).map(|m| (m.clone(), c))).collect();
    v.sort();
    v
}

/// x4 `.rs` lane: one of the grid neighbours of the exact input (docs/semantics.md §5.10), .satfinite and .relu applied (§5.8).
fn check_x4_lane(c: &Cvt, table: &[(Dyadic, u64)], x: u64, got: u64) -> Result<(), TestCaseError> {
    let f = c.dtype.format();
    let l = layout(f);
    let ctx = format!("{c} lane input {x:08x} → {got:02x}");
    let max = l.max_finite_code();
    let xv = decode(Format::F32, x);
    if c.relu && xv.is_negative() && !xv.is_nan() {
        prop_assert_eq!(got, 0, "{} (.relu: +0)", ctx);
        return Ok(());
    }
    match &xv {
        Value::Nan(_) if l.has_nan() => prop_assert!(l.is_nan_code(got), "{} (NaN → NaN)", ctx),
        Value::Nan(_) => prop_assert_eq!(got, max, "{} (no NaN in the format: +MAX_NORM)", ctx),
        Value::Inf { neg } => {
            prop_assert_eq!(got, max | if *neg { l.sign_bit() } else { 0 }, "{} (±Inf → ±MAX_NORM)", ctx)
        }
        Value::Num { neg, mag: m } => {
            prop_assert_eq!(got & l.sign_bit() != 0, *neg, "{} (sign)", ctx);
            let code = got & !l.sign_bit();
            // lo: largest magnitude ≤ |x|; hi: smallest ≥ |x|, or max finite above the range.
            let k = table.partition_point(|(v, _)| v <= m);
            let lo = table[k - 1].1;
            let hi = if table[k - 1].0 == *m { lo } else { table.get(k).map_or(max, |e| e.1) };
            prop_assert!(code == lo || code == hi, "{} (neighbours {:02x}, {:02x})", ctx, lo, hi);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(cfg(5000))]

    // docs/semantics.md §5.10: zero random bits never carry (rs = rz); all-one bits carry whenever a top discarded bit is set.
    #[test]
    fn rs_with_zero_or_all_one_rbits(i in 0usize..8, a in f32_in(), b in f32_in()) {
        let (rs, rz) = rs_rz_pairs()[i];
        let (fmt, width) = if rs.dtype == Type::F16x2 { (Format::F16, 13) } else { (Format::Bf16, 16) };
        let z = run(&rz, &[a, b]);
        prop_assert_eq!(run(&rs, &[a, b, 0]), z, "{} {:08x} {:08x} 0 vs {}", rs, a, b, rz);
        let one = run(&rs, &[a, b, 0xffff_ffff]);
        for (k, x) in [a, b].into_iter().enumerate() {
            let sh = 16 * (1 - k as u32);
            check_rs_lane(&rs, fmt, width, x, (z >> sh) & 0xffff, (one >> sh) & 0xffff, true, false)?;
        }
    }

    // docs/semantics.md §5.10: with any random bits a .rs lane is the .rz result or the next code away from zero.
    #[test]
    fn rs_f16x2_bf16x2_lands_on_a_neighbour(i in 0usize..8, a in f32_in(), b in f32_in(), r in rbits_in()) {
        let (rs, rz) = rs_rz_pairs()[i];
        let (fmt, width) = if rs.dtype == Type::F16x2 { (Format::F16, 13) } else { (Format::Bf16, 16) };
        let z = run(&rz, &[a, b]);
        let got = run(&rs, &[a, b, r]);
        for (k, x) in [a, b].into_iter().enumerate() {
            let sh = 16 * (1 - k as u32);
            let ones = if rs.dtype == Type::F16x2 { r & 0x1fff_1fff == 0x1fff_1fff } else { r == 0xffff_ffff };
            let zero = if rs.dtype == Type::F16x2 { r & 0x1fff_1fff == 0 } else { r == 0 };
            check_rs_lane(&rs, fmt, width, x, (z >> sh) & 0xffff, (got >> sh) & 0xffff, ones, zero)?;
        }
    }

    // docs/semantics.md §5.10, §5.8, §5.11: each lane of cvt.rs{.relu}.satfinite.<fmt>x4.f32 is a grid neighbour of its input, a on top.
    #[test]
    fn rs_x4_lands_on_a_neighbour(i in 0usize..10, xs in proptest::array::uniform4(f32_in()), r in rbits_in()) {
        let x4 = [Type::E4m3x4, Type::E5m2x4, Type::E2m3x4, Type::E3m2x4, Type::E2m1x4];
        let t = x4[i / 2];
        let c = cvt(&format!("cvt.rs{}.satfinite.{}.f32", if i % 2 == 1 { ".relu" } else { "" }, t.name()));
        let table = magnitudes(t.format());
        let got = run(&c, &[xs[0], xs[1], xs[2], xs[3], r]);
        if t.lane_bits() == 8 && layout(t.format()).width() == 6 {
            prop_assert_eq!(got & 0xc0c0_c0c0, 0, "{}: bits 7:6 of each byte must be zero", c);
        }
        for (x, lane) in xs.iter().zip(lanes(t, got)) {
            check_x4_lane(&c, &table, *x, lane)?;
        }
        // All-zero random bits: toward zero, i.e. never above |x|.
        let z = run(&c, &[xs[0], xs[1], xs[2], xs[3], 0]);
        for (x, lane) in xs.iter().zip(lanes(t, z)) {
            if let (Value::Num { mag: m, .. }, Value::Num { mag: got, .. }) = (decode(Format::F32, *x), decode(t.format(), lane)) {
                prop_assert!(got <= m, "{} rbits 0: lane {:02x} = {} exceeds |{:08x}|", c, lane, got, x);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 2d/2e. .relu and .satfinite over every form that has them
// ---------------------------------------------------------------------------

/// Every tf32/packed spelling in the form table, scaled where the row allows, plus the scalar f16/bf16
/// .relu/.satfinite forms.
fn all_modifier_forms() -> Vec<Cvt> {
    let mut v = Vec::new();
    for f in FORMS {
        for &d in f.dtypes {
            for &a in f.atypes {
                for &r in f.roundings {
                    for relu in if f.relu { vec![false, true] } else { vec![false] } {
                        let sats = match f.satfinite {
                            Req::Required => vec![true],
                            Req::Optional => vec![false, true],
                            Req::Absent => vec![false],
                        };
                        let scales = if f.scale == Req::Absent { vec![false] } else { vec![false, true] };
                        for (satfinite, scaled) in sats.iter().flat_map(|s| scales.iter().map(move |k| (*s, *k))) {
                            let c = Cvt { rounding: Some(r), relu, satfinite, scaled, ..Cvt::new(d, a) };
                            v.push(c);
                        }
                    }
                }
            }
        }
    }
    for d in [Type::F16, Type::Bf16] {
        for r in [Rounding::Rn, Rounding::Rz] {
            for (relu, satfinite) in [(true, false), (false, true), (true, true)] {
                v.push(Cvt { rounding: Some(r), relu, satfinite, ..Cvt::new(d, Type::F32) });
            }
        }
    }
    v
}

/// Operands for a form: f32 values per lane, a structured f16x2/bf16x2, raw
/// bits for narrow packed sources, then random bits.
fn operands(c: &Cvt, f32s: &[u64; 4], h: [u64; 2], bf: [u64; 2], raw: u64, r: u64) -> Vec<u64> {
    let sh = shape(c);
    let mut ops = Vec::new();
    for (k, name) in sh.names.iter().enumerate() {
        ops.push(match (*name, c.atype) {
            ("rbits", _) => r,
            ("scale", _) => r & 0xffff,
            (_, Type::F32) => f32s[k],
            (_, Type::F16x2) => (h[0] << 16) | h[1],
            (_, Type::Bf16x2) => (bf[0] << 16) | bf[1],
            (_, t) => raw & low_mask(t.bits()),
        });
    }
    ops
}

/// Lanes of a result in its destination type (a scalar is one lane).
fn dest_lanes(c: &Cvt, bits: u64) -> Vec<u64> {
    if c.dtype.is_packed() {
        lanes(c.dtype, bits)
    } else {
        vec![bits]
    }
}

proptest! {
    #![proptest_config(cfg(8000))]

    // docs/semantics.md §5.8: .relu turns negative results into +0 and NaN into the (positive) canonical NaN.
    // (−0 → +0 is the sm90 profile's answer to the open relu-neg-zero question.)
    #[test]
    fn relu_results_are_never_negative(
        pick in any::<prop::sample::Index>(), f32s in proptest::array::uniform4(f32_in()),
        h in proptest::array::uniform2(f16_in()), bf in proptest::array::uniform2(bf16_in()), raw in any::<u64>(), r in rbits_in(),
    ) {
        let forms: Vec<Cvt> = all_modifier_forms().into_iter().filter(|c| c.relu).collect();
        let c = *pick.get(&forms);
        let ops = operands(&c, &f32s, h, bf, raw, r);
        let d = run(&c, &ops);
        let f = c.dtype.format();
        // s2f6 (fixed point, docs/semantics.md §5.14): the sign is bit 7 of the two's-complement byte.
        let sign = |lane: u64| match f.float_layout() {
            Some(l) => (lane >> l.shift) & l.sign_bit(),
            None => lane & (1 << (f.container_bits() - 1)),
        };
        for lane in dest_lanes(&c, d) {
            prop_assert_eq!(sign(lane), 0, "{} {}: {:x} has a negative lane {:x}", c, hex_ops(&ops), d, lane);
        }
    }

    // docs/semantics.md §5.8, §5.12: .satfinite results are finite (or NaN) and within ±MAX_NORM; 6-bit lanes keep bits 7:6 zero (§5.11).
    #[test]
    fn satfinite_results_are_finite_and_bounded(
        pick in any::<prop::sample::Index>(), f32s in proptest::array::uniform4(f32_in()),
        h in proptest::array::uniform2(f16_in()), bf in proptest::array::uniform2(bf16_in()), raw in any::<u64>(), r in rbits_in(),
    ) {
        let forms: Vec<Cvt> = all_modifier_forms().into_iter().filter(|c| c.satfinite).collect();
        let c = *pick.get(&forms);
        let ops = operands(&c, &f32s, h, bf, raw, r);
        let d = run(&c, &ops);
        let f = c.dtype.format();
        if f.float_layout().is_none() {
            // s2f6: every code is a finite value within the range (docs/semantics.md §5.14).
            return Ok(());
        }
        let l = layout(f);
        for lane in dest_lanes(&c, d) {
            match decode(f, lane) {
                Value::Inf { .. } => prop_assert!(false, "{} {}: {:x} has an infinite lane {:x}", c, hex_ops(&ops), d, lane),
                Value::Num { mag: m, .. } => prop_assert!(m <= l.max_finite(), "{} {}: lane {:x} = {} beyond MAX_NORM", c, hex_ops(&ops), lane, m),
                Value::Nan(_) => {}
            }
            if l.width() == 6 {
                prop_assert_eq!(lane & 0xc0, 0, "{} {}: 6-bit lane {:02x} sets bits 7:6", c, hex_ops(&ops), lane);
            }
        }
    }
}

proptest! {
    #![proptest_config(cfg(4000))]

    // docs/semantics.md §6 and the preamble: the sm90 profile picks one result inside what the ISA contract accepts, for every tf32/packed form.
    #[test]
    fn sm90_result_is_inside_the_isa_set(
        pick in any::<prop::sample::Index>(), f32s in proptest::array::uniform4(f32_in()),
        h in proptest::array::uniform2(f16_in()), bf in proptest::array::uniform2(bf16_in()), raw in any::<u64>(), r in rbits_in(),
    ) {
        let forms = all_modifier_forms();
        let c = *pick.get(&forms);
        let ops = operands(&c, &f32s, h, bf, raw, r);
        let d = run(&c, &ops);
        let isa = accept(&c, &ops, Profile::Isa);
        // ptxas's tf32 .rna code turns some NaNs into Inf or MAX_NORM, which the text does not permit (§5.17).
        prop_assume!(isa.contains(d) || !outcome(&c, &ops).trace.iter().any(|s| s.rule.departs_from_isa()));
        prop_assert!(isa.contains(d), "{} {}: sm90 gives {:x}, outside the ISA set {}", c, hex_ops(&ops), d, isa);
    }
}

// ---------------------------------------------------------------------------
// 3. Hand-checked edge cases
// ---------------------------------------------------------------------------

// docs/semantics.md §5.8 [HW]: e4m3 −448 is fe; −464 ties between −448 (even) and −480 (whose code is the NaN) → fe.
#[test]
fn e4m3_negative_max_and_tie() {
    let c = cvt("cvt.rn.satfinite.e4m3x2.f32");
    assert_eq!(run(&c, &[0xc3e0_0000, 0xc3e8_0000]), 0xfefe);
    // −480 and −Inf as well; the f16x2 form gives the same (f16 −448 = df00, −464 = df40).
    assert_eq!(run(&c, &[0xc3f0_0000, 0xff80_0000]), 0xfefe);
    assert_eq!(run(&cvt("cvt.rn.satfinite.e4m3x2.f16x2"), &[0xdf00_df40]), 0xfefe);
}

// docs/semantics.md §5.8 [HW]: e5m2 −61440 is the tie between −57344 (fb, odd) and −65536; even is −65536, which overflows → −MAX_NORM fb.
#[test]
fn e5m2_negative_tie_above_max() {
    assert_eq!(run(&cvt("cvt.rn.satfinite.e5m2x2.f32"), &[0xc770_0000, 0xc760_0000]), 0xfbfb);
    // The value just below the tie rounds down to fb too; f16 −61440 = fb80.
    assert_eq!(run(&cvt("cvt.rn.satfinite.e5m2x2.f32"), &[0xc76f_ffff, 0x4770_0000]), 0xfb7b);
    assert_eq!(run(&cvt("cvt.rn.satfinite.e5m2x2.f16x2"), &[0xfb80_7b80]), 0xfb7b);
}

// docs/semantics.md §1 (e2m1 max 6) and §5.8: −7 ties between −6 (odd code 7) and −8 → even −8 overflows → −MAX_NORM f.
#[test]
fn e2m1_negative_seven() {
    assert_eq!(run(&cvt("cvt.rn.satfinite.e2m1x2.f32"), &[0xc0e0_0000, 0x3f00_0000]), 0xf1);
    assert_eq!(run(&cvt("cvt.rn.satfinite.e2m1x2.f16x2"), &[0xc700_3800]), 0xf1);
    // With .relu the negative lane is +0 instead.
    assert_eq!(run(&cvt("cvt.rn.satfinite.relu.e2m1x2.f32"), &[0xc0e0_0000, 0x3f00_0000]), 0x01);
}

// docs/semantics.md §5.11 (lane independence) with §5.8/§5.9: a NaN in the high half of an f16x2/bf16x2 source touches only the high lane.
#[test]
fn packed_source_nan_high_half_finite_low_half() {
    // e4m3: NaN → canonical 7f [EMU]; 1.0 → 38.
    assert_eq!(run(&cvt("cvt.rn.satfinite.e4m3x2.f16x2"), &[0x7e00_3c00]), 0x7f38);
    assert_eq!(run(&cvt("cvt.rn.satfinite.e4m3x2.f16x2"), &[0xfc01_bc00]), 0x7fb8);
    // e5m2: NaN → 7f; 1.0 → 3c.
    assert_eq!(run(&cvt("cvt.rn.satfinite.e5m2x2.f16x2"), &[0x7e00_3c00]), 0x7f3c);
    // e2m1 has no NaN: NaN → +6 (7); 1.0 → 2. e2m3: +7.5 (1f); 1.0 → 08. e3m2: +28 (1f); 1.0 → 0c.
    assert_eq!(run(&cvt("cvt.rn.satfinite.e2m1x2.f16x2"), &[0x7e00_3c00]), 0x72);
    assert_eq!(run(&cvt("cvt.rn.satfinite.e2m3x2.f16x2"), &[0xfe00_3c00]), 0x1f08);
    assert_eq!(run(&cvt("cvt.rn.satfinite.e3m2x2.bf16x2"), &[0x7fc0_3f80]), 0x1f0c);
    // ue8m0 from bf16x2: NaN → ff, 1.0 → 7f.
    assert_eq!(run(&cvt("cvt.rz.ue8m0x2.bf16x2"), &[0x7fc0_3f80]), 0xff7f);
    // The low half NaN, the high half finite: mirrored.
    assert_eq!(run(&cvt("cvt.rn.satfinite.e4m3x2.f16x2"), &[0x3c00_7e00]), 0x387f);
}

// docs/semantics.md §5.12 and §1 (ue8m0 00 = 2^−127, no zero): f32 subnormal inputs under rz and rp.
#[test]
fn ue8m0_at_and_below_two_to_minus_127() {
    let rz = cvt("cvt.rz.ue8m0x2.f32");
    let rp = cvt("cvt.rp.ue8m0x2.f32");
    // 2^−127 (00400000) is code 00 exactly, both ways.
    assert_eq!(run(&rz, &[0x0040_0000, 0x0040_0000]), 0x0000);
    assert_eq!(run(&rp, &[0x0040_0000, 0x0040_0000]), 0x0000);
    // Below 2^−127 (2^−149, 2^−128): rp rounds up to 2^−127 = 00; rz has no smaller code: 00 [OPEN, Ue8m0NoZero].
    assert_eq!(run(&rp, &[0x0000_0001, 0x0020_0000]), 0x0000);
    assert_eq!(run(&rz, &[0x0000_0001, 0x0020_0000]), 0x0000);
    // Just below 2^−126 (007fffff): rz 2^−127 = 00, rp 2^−126 = 01; 2^−126 itself (00800000) is 01 both ways.
    assert_eq!(run(&rz, &[0x007f_ffff, 0x0080_0000]), 0x0001);
    assert_eq!(run(&rp, &[0x007f_ffff, 0x0080_0000]), 0x0101);
    // Negative subnormals: the sign is ignored (docs/semantics.md §5.12).
    assert_eq!(run(&rp, &[0x807f_ffff, 0x8040_0000]), 0x0100);
    // The bf16x2 form on bf16 subnormals: 0040 = 2^−127, 0001 = 2^−133, 0041 = (1+1/64)·2^−127.
    assert_eq!(run(&cvt("cvt.rz.ue8m0x2.bf16x2"), &[0x0040_0001]), 0x0000);
    assert_eq!(run(&cvt("cvt.rp.ue8m0x2.bf16x2"), &[0x0041_0001]), 0x0100);
    // And back: 00 widens to bf16 0040 (docs/semantics.md §5.12).
    assert_eq!(run(&cvt("cvt.rn.bf16x2.ue8m0x2"), &[0x0001]), 0x0040_0080);
}
