//! The batch paths added for issue 14 (kernels with .sat/.relu/.satfinite
//! as compile-time flags, tf32, widening and same-format float forms,
//! int→int, int→float .sat/.ftz; per-lane tables for packed forms) against
//! the generic lane path (`Plan::eval_generic(..).representative()`), which
//! tests/fast.rs proves equal to the exact engine: every input of sources of
//! at most 16 bits, `STRUCTURED` seeded structured inputs (plus every
//! boundary value) of wider ones, on every vector unit this CPU has; and
//! `fast::fold_range` (the sweep's buffer-free path) against the same
//! results on consecutive ranges. And the single-value route (`Plan::eval`
//! through a kernel lane, issue 27) against the generic lane path.

use std::sync::atomic::{AtomicUsize, Ordering};

use ptx_cvt::fast::{self, Isa, Plan};
use ptx_cvt::gen::{self, SeededRng as Rng};
use ptx_cvt::instr::{self, Family, REG_WIDTHS};
use ptx_cvt::{Cvt, Operand, PtxVersion, Target, Type};
use ptx_cvt_harness::atlas;
use rayon::prelude::*;

/// Structured inputs per variant with sources of more than 16 bits.
const STRUCTURED: usize = 2 << 20;

/// Single-operand variants of sm_90 and sm_100a, and every atlas variant.
fn variants() -> Vec<Cvt> {
    let targets = [("sm_90", PtxVersion::LATEST), ("sm_100a", PtxVersion::LATEST)]
        .map(|(t, v)| (t.parse::<Target>().unwrap(), v));
    let mut v: Vec<Cvt> = gen::legal_variants(&targets).into_iter().map(|(c, _)| c).collect();
    v.extend(atlas::variants(atlas::MAX_BITS));
    v.sort();
    v.dedup();
    v.retain(|c| instr::shape(c).srcs.len() == 1);
    v
}

/// Forms that took the generic lane path before issue 14.
fn newly_kernelised(c: &Cvt) -> bool {
    let family = c.family();
    let packed = c.atype.is_packed() || c.dtype.is_packed();
    packed
        || c.relu
        || c.satfinite
        || (c.sat && family != Family::FloatToInt)
        || c.dtype == Type::Tf32
        || matches!(family, Family::IntToInt | Family::SameFloat | Family::Widen)
        || (family == Family::IntToFloat && c.ftz)
}

/// A structured value of a scalar type: random bits, or a random exponent
/// (specials included) with a fraction on, just below or just above a
/// rounding boundary; integers with a random bit length and sign.
fn structured_scalar(t: Type, rng: &mut Rng) -> u64 {
    let bits = t.bits();
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let pattern = |rng: &mut Rng, len: u32| -> u64 {
        let k = rng.below(len as u64 + 1) as u32;
        let top = if k >= 64 { 0 } else { rng.next() << k };
        let low = if k == 0 { 0 } else { (1u64 << (k - 1)) - 1 };
        let below = [0, low, rng.next() & low, 1 & low][rng.below(4) as usize];
        top | if k == 0 { 0 } else { rng.below(2) << (k - 1) } | below
    };
    match (rng.below(4), t.format().float_layout()) {
        (0, _) => rng.next() & mask,
        (_, None) => {
            let len = rng.below(bits as u64) as u32 + 1;
            let v = pattern(rng, len) & (u64::MAX >> (64 - len)) | 1u64 << (len - 1);
            (if rng.below(2) == 0 { v.wrapping_neg() } else { v }) & mask
        }
        (_, Some(l)) => {
            let e = rng.below(1 << l.exp_bits);
            let m = pattern(rng, l.man_bits) & ((1u64 << l.man_bits) - 1);
            ((rng.below(2) << (bits - 1)) | (e << l.man_bits) | m) << l.shift
        }
    }
}

/// A structured source of `c` (packed: each lane structured or a boundary value).
fn structured(c: &Cvt, bounds: &[u64], rng: &mut Rng) -> u64 {
    if !c.atype.is_packed() {
        return structured_scalar(c.atype, rng);
    }
    let (lb, lane) = (c.atype.lane_bits(), Type::from_name(c.atype.format().name()));
    (0..c.atype.lanes()).fold(0, |v, _| {
        let x = match (lane, rng.below(3)) {
            (_, 0) if !bounds.is_empty() => bounds[rng.below(bounds.len() as u64) as usize],
            (Some(t), _) if t.format().float_layout().is_some() => structured_scalar(t, rng),
            _ => rng.next(),
        };
        (v << lb) | (x & ((1u64 << lb) - 1))
    })
}

/// A plan at natural register widths, and the width of its (first) source.
fn natural_plan(c: &Cvt) -> (Plan, u32) {
    let w = instr::shape(c).srcs[0];
    (Plan::new(c, w, c.dtype.bits()).unwrap(), w)
}

/// The generic lane path of a single-operand form.
fn lane_path(p: &(Plan, u32), x: u64) -> u64 {
    p.0.eval_generic(&[Operand { bits: x, width: p.1 }]).representative()
}

/// A fold that depends on each input's place and result (not a plain sum).
fn mix(acc: u64, x: u64, r: u64) -> u64 {
    acc.wrapping_add(ptx_cvt_harness::digest::digest_term(x, r))
}

#[test]
fn every_atlas_variant_has_a_batch_path() {
    let missing: Vec<String> =
        atlas::variants(atlas::MAX_BITS).iter().filter(|c| !fast::has_kernel(c)).map(|c| c.to_string()).collect();
    assert!(missing.is_empty(), "no kernel or table for: {}", missing.join(" "));
}

/// The `.scaled::n2::ue8m0` pair forms (operands `a` and `scale`; input
/// number `a << 16 | scale`): `fold_range` on the lookup tables against the
/// lane path, for `PAIRS` structured pairs `a` (every one of 8 bits) each with every `scale` (so
/// every pair of scale bytes, 00, 01, 7f, 80, fe and ff among them).
#[test]
fn scaled_pair_tables_equal_the_lane_path() {
    const PAIRS: u64 = 64;
    let all: Vec<Cvt> = atlas::variants(atlas::MAX_BITS).into_iter().filter(|c| c.scaled).collect();
    let names: Vec<String> = all.iter().map(|c| c.to_string()).collect();
    assert_eq!(all.len(), 26, "the scaled pair forms of the atlas changed: {names:?}");
    let fails: Vec<String> = all
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, c)| {
            assert!(fast::has_kernel(c), "{c}: no table");
            let widths = instr::shape(c).srcs;
            assert_eq!((widths.len(), widths[1]), (2, 16), "{c}: operands");
            let a_mask = (1u64 << widths[0]) - 1;
            let mut rng = Rng::new(0x5343_4c44 ^ i as u64);
            let bounds = gen::boundary_values(c);
            let plan = natural_plan(c);
            // Every pair of a narrow source (e2m1x2), else structured ones.
            let pairs: Vec<u64> = if a_mask < PAIRS * 4 {
                (0..=a_mask).collect()
            } else {
                [0, a_mask].into_iter().chain((2..PAIRS).map(|_| structured(c, &bounds, &mut rng) & a_mask)).collect()
            };
            let mut bad = Vec::new();
            for a in pairs {
                let first = a << 16;
                let got = fast::fold_range(c, first, 1 << 16, 7, mix).unwrap();
                let want = (first..first + (1 << 16)).fold(7, |acc, x| mix(acc, x, lane(&plan, x)));
                if got != want {
                    // Name the first differing input.
                    let x = (0..1u64 << 16)
                        .map(|s| first | s)
                        .find(|&x| fast::fold_range(c, x, 1, 0, mix).unwrap() != mix(0, x, lane(&plan, x)))
                        .unwrap_or(first);
                    bad.push(format!("{c}: a={a:04x} scale={:04x}", x & 0xffff));
                }
            }
            bad
        })
        .collect();
    assert!(fails.is_empty(), "{} differences, e.g.:\n{}", fails.len(), fails[..fails.len().min(20)].join("\n"));
}

/// The generic lane path of a scaled pair form on input number `x`.
fn lane(p: &(Plan, u32), x: u64) -> u64 {
    let ops = [Operand { bits: x >> 16, width: p.1 }, Operand { bits: x & 0xffff, width: 16 }];
    p.0.eval_generic(&ops).representative()
}

#[test]
fn new_kernels_equal_the_lane_path() {
    let all: Vec<Cvt> = variants().into_iter().filter(|c| newly_kernelised(c) && fast::has_kernel(c)).collect();
    assert!(all.len() >= 200, "{} newly kernelised variants", all.len());
    let isas: Vec<Isa> = [Isa::Baseline, Isa::Avx2, Isa::Avx512].into_iter().filter(|i| i.available()).collect();
    let cases = AtomicUsize::new(0);
    let fails: Vec<String> = all
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, c)| {
            let bits = instr::shape(c).srcs[0];
            let mut rng = Rng::new(0x4b45_524e ^ i as u64);
            let bounds = gen::boundary_values(c);
            let plan = natural_plan(c);
            let mut inputs: Vec<u64> = if bits <= 16 {
                (0..1u64 << bits).collect()
            } else {
                let mut v: Vec<u64> = (0..STRUCTURED).map(|_| structured(c, &bounds, &mut rng)).collect();
                if !c.atype.is_packed() {
                    v.extend(&bounds);
                }
                v
            };
            inputs.iter_mut().for_each(|x| *x &= u64::MAX >> (64 - bits));
            let want: Vec<u64> = inputs.iter().map(|&x| lane_path(&plan, x)).collect();
            let mut bad = Vec::new();
            for &isa in &isas {
                let mut out = vec![0u64; inputs.len()];
                fast::evaluate_batch_on(c, &inputs, &mut out, isa).unwrap();
                if let Some(j) = (0..inputs.len()).find(|&j| out[j] != want[j]) {
                    bad.push(format!("{c} {:x}: {isa:?} batch {:x}, lane path {:x}", inputs[j], out[j], want[j]));
                }
            }
            // fold_range on consecutive runs: from 0, at a random start, and up to the top.
            let top = u64::MAX >> (64 - bits);
            let n = if top < 5000 { top + 1 } else { 5000 };
            for first in [0, (rng.next() & top).min(top - (n - 1)), top - (n - 1)] {
                let got = fast::fold_range(c, first, n, 7, mix).unwrap();
                let want = (0..n).fold(7, |a, j| mix(a, first + j, lane_path(&plan, first + j)));
                if got != want {
                    bad.push(format!("{c}: fold_range from {first:x} gives {got:x}, the lane path {want:x}"));
                }
            }
            cases.fetch_add(inputs.len() * isas.len() + 3 * n as usize, Ordering::Relaxed);
            bad
        })
        .collect();
    eprintln!("{} variants, {} cases on {isas:?}", all.len(), cases.into_inner());
    assert!(fails.is_empty(), "{} differences, e.g.:\n{}", fails.len(), fails[..fails.len().min(20)].join("\n"));
}

/// Structured inputs per form and register widths for the single-value route.
const SINGLE: usize = 1 << 16;

/// The single-value route (`Plan::eval` through the form's kernel lane,
/// fast/single.rs) against the generic lane path, whole results compared
/// (any-NaN sets, tf32 patterns): every single-operand scalar variant whose
/// plan holds a kernel lane, at every legal pair of register widths; every
/// source value of types of at most 16 bits, else `SINGLE` structured inputs
/// and every boundary; in a register wider than the type, each also with
/// random bits above the type.
#[test]
fn single_value_route_equals_the_generic_path() {
    for text in ["cvt.rzi.s32.f32", "cvt.rn.f32.f64", "cvt.rn.f16.f32", "cvt.rn.bf16.f32", "cvt.rn.f32.u64"] {
        let (plan, _) = natural_plan(&instr::parse(text).unwrap());
        assert!(plan.holds_kernel(), "{text}: no kernel lane");
    }
    let all: Vec<Cvt> = variants().into_iter().filter(|c| c.is_scalar()).collect();
    let (plans, wide, cases) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    let fails: Vec<String> = all
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, c)| {
            let mut rng = Rng::new(0x5349_4e47 ^ i as u64);
            let bounds = gen::boundary_values(c);
            let bits = c.atype.bits();
            let typ = u64::MAX >> (64 - bits);
            let base: Vec<u64> = if bits <= 16 {
                (0..=typ).collect()
            } else {
                (0..SINGLE).map(|_| structured(c, &bounds, &mut rng)).chain(bounds.iter().copied()).collect()
            };
            let mut bad = Vec::new();
            for (src, dst) in REG_WIDTHS.into_iter().flat_map(|s| REG_WIDTHS.map(|d| (s, d))) {
                let Some(plan) = Plan::new(c, src, dst).ok().filter(|p| p.holds_kernel()) else {
                    continue;
                };
                let reg = u64::MAX >> (64 - src);
                let above = |x: u64, rng: &mut Rng| if src > bits { x | (rng.next() & reg & !typ) } else { x };
                let inputs = base.iter().map(|&x| x & typ).chain(base.iter().map(|&x| above(x & typ, &mut rng)));
                let mut n = 0;
                for x in inputs {
                    let ops = [Operand { bits: x & reg, width: src }];
                    let (got, want) = (plan.eval(&ops), plan.eval_generic(&ops));
                    if got != want && bad.len() < 5 {
                        bad.push(format!(
                            "{c} (registers {dst} <- {src}) {x:x}: kernel lane {got:?}, generic {want:?}"
                        ));
                    }
                    n += 1;
                }
                plans.fetch_add(1, Ordering::Relaxed);
                wide.fetch_add(usize::from((src, dst) != (bits, c.dtype.bits())), Ordering::Relaxed);
                cases.fetch_add(n, Ordering::Relaxed);
            }
            bad
        })
        .collect();
    let (plans, wide) = (plans.into_inner(), wide.into_inner());
    eprintln!("single-value route: {plans} plans ({wide} at wider registers), {} cases", cases.into_inner());
    assert!(plans >= 300 && wide >= 50, "{plans} plans hold a kernel lane, {wide} of them at wider registers");
    assert!(fails.is_empty(), "{} differences, e.g.:\n{}", fails.len(), fails[..fails.len().min(20)].join("\n"));
}

/// `fast::evaluate_slice` on registers of their own width (and on wider
/// words) gives `evaluate_batch`'s results on every vector unit; words too
/// narrow for the types are refused.
#[test]
fn typed_slices_equal_the_u64_batch() {
    fn check<I: fast::Word, O: fast::Word>(c: &Cvt, inputs: &[u64], want: &[u64], isa: Isa) -> Option<String> {
        let src: Vec<I> = inputs.iter().map(|&x| I::narrow(x)).collect();
        let mut out = vec![O::default(); src.len()];
        fast::evaluate_slice_on(c, &src, &mut out, isa).unwrap();
        let j = (0..src.len()).find(|&j| out[j].widen() != want[j])?;
        Some(format!(
            "{c} {:x} as u{}→u{} on {isa:?}: {:x}, batch {:x}",
            inputs[j],
            I::BITS,
            O::BITS,
            out[j].widen(),
            want[j]
        ))
    }
    fn natural<O: fast::Word>(c: &Cvt, inputs: &[u64], want: &[u64], isa: Isa) -> Option<String> {
        match c.atype.bits() {
            8 => check::<u8, O>(c, inputs, want, isa),
            16 => check::<u16, O>(c, inputs, want, isa),
            32 => check::<u32, O>(c, inputs, want, isa),
            _ => check::<u64, O>(c, inputs, want, isa),
        }
    }
    let all: Vec<Cvt> = variants().into_iter().filter(fast::has_kernel).collect();
    let isas: Vec<Isa> = [Isa::Baseline, Isa::Avx2, Isa::Avx512].into_iter().filter(|i| i.available()).collect();
    let fails: Vec<String> = all
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, c)| {
            let bits = c.atype.bits();
            let mut rng = Rng::new(0x534c_4943 ^ i as u64);
            let bounds = gen::boundary_values(c);
            let mut inputs: Vec<u64> = (0..1 << 12).map(|_| structured(c, &bounds, &mut rng)).collect();
            inputs.extend(&bounds);
            inputs.iter_mut().for_each(|x| *x &= u64::MAX >> (64 - bits));
            let mut want = vec![0u64; inputs.len()];
            fast::evaluate_batch(c, &inputs, &mut want).unwrap();
            let mut bad = Vec::new();
            for &isa in &isas {
                let found = match c.dtype.bits() {
                    8 => natural::<u8>(c, &inputs, &want, isa),
                    16 => natural::<u16>(c, &inputs, &want, isa),
                    32 => natural::<u32>(c, &inputs, &want, isa),
                    _ => natural::<u64>(c, &inputs, &want, isa),
                };
                bad.extend(found);
                bad.extend(natural::<u64>(c, &inputs, &want, isa));
            }
            bad
        })
        .collect();
    assert!(fails.is_empty(), "{} differences, e.g.:\n{}", fails.len(), fails[..fails.len().min(20)].join("\n"));
    // A destination wider than the output words, a source wider than the input words.
    let c = instr::parse("cvt.rn.f32.f64").unwrap();
    let err = fast::evaluate_slice(&c, &[0u64], &mut [0u16]).unwrap_err().to_string();
    assert!(err.contains("32-bit destination") && err.contains("16-bit results"), "{err}");
    let err = fast::evaluate_slice(&c, &[0u32], &mut [0u32]).unwrap_err().to_string();
    assert!(err.contains("64-bit source") && err.contains("32-bit inputs"), "{err}");
}
