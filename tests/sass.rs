//! The SASS sequence models (`ptx_cvt::sass`) against the oracle under the
//! sm90 profile: for every modelled form the profile must answer exactly the
//! model's bits. 16-bit sources: every value; 32-bit sources: every sign,
//! exponent and a set of fraction patterns (the low 13 bits that tf32
//! rounding and NaN payloads turn on among them), plus seeded random values;
//! 64-bit sources: the structured set of the generator, every value within
//! 4096 ulps of the `.ftz` thresholds, exponent sweeps and random values.
//! `SASS_EXHAUSTIVE=1` runs all 2^32 values of the 32-bit sources instead
//! (at most 8 mismatches counted per 2^16 inputs; 216 s on 2 cores, none). A few seconds
//! on 2 cores.

use ptx_cvt::fast;
use ptx_cvt::gen::{self, SeededRng};
use ptx_cvt::sass::{Sequence, SEQUENCES};
use ptx_cvt::{evaluate_accept, Cvt, Operand, Profile};
use rayon::prelude::*;

const RANDOM: usize = 1 << 20;

fn f32_inputs(rng: &mut SeededRng) -> Vec<u64> {
    let mut fracs: Vec<u32> = vec![
        0, 1, 2, 0xfff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x2001, 0x3000, 0x3fff, 0x400000, 0x400001, 0x401000, 0x7fffff,
        0x7fe000, 0x7ff000, 0x7fefff, 0x7ff001, 0x7fdfff, 0x002000, 0x003000,
    ];
    fracs.extend((0..8).map(|_| rng.below(1 << 23) as u32));
    let mut v = Vec::new();
    for top in 0..512u32 {
        for &f in &fracs {
            v.push(((top << 23) | f) as u64);
        }
    }
    v.extend((0..RANDOM).map(|_| rng.next() & 0xffff_ffff));
    v
}

fn f64_inputs(s: &Sequence, rng: &mut SeededRng) -> Vec<u64> {
    let mut v = gen::boundary_values(&s.cvt());
    // The thresholds of the .ftz.f32.f64 sequences: 2^-126, 2^-126 - 2^-150, 2^-126 - 2^-151.
    for t in [0x3810_0000_0000_0000u64, 0x380f_ffff_e000_0000, 0x380f_ffff_f000_0000, 0x380f_ffff_c000_0000] {
        for d in 0..4096u64 {
            for sign in [0, 1u64 << 63] {
                v.push(sign | (t + d));
                v.push(sign | (t - d));
            }
        }
    }
    for e in 0..2048u64 {
        for m in
            [0u64, 1, (1 << 52) - 1, 1 << 51, (1 << 51) + 1, 0xf_ffff_f000_0000, 0xf_ffff_e000_0000, 1 << 28, 1 << 29]
        {
            v.push(e << 52 | m);
            v.push(1 << 63 | e << 52 | m);
        }
    }
    v.extend((0..RANDOM).map(|_| rng.next()));
    v
}

fn inputs(s: &Sequence) -> Vec<u64> {
    let mut rng = SeededRng::new(33);
    match s.src_bits {
        16 => (0..1 << 16).collect(),
        32 => f32_inputs(&mut rng),
        _ => f64_inputs(s, &mut rng),
    }
}

/// The case line of `x` if the profile does not answer exactly the model's bits.
fn mismatch(s: &Sequence, c: &Cvt, x: u64) -> Option<String> {
    let ops = [Operand { bits: x, width: s.src_bits }];
    let want = (s.run)(x);
    let got = fast::evaluate(c, &ops, s.dst_bits).expect("legal").to_accept(s.dst_bits);
    (got.single() != Some(want) || got.alts.len() != 1).then(|| {
        let (w, d) = ((s.src_bits / 4) as usize, (s.dst_bits / 4) as usize);
        format!("{} {x:0w$x}: sequence {want:0d$x}, sm90 profile {got}", s.form)
    })
}

/// The mismatches among `inputs` (all 2^32 values of a 32-bit source with
/// `SASS_EXHAUSTIVE` set): their count and the first few.
fn mismatches(s: &Sequence, inputs: &[u64]) -> (usize, Vec<String>) {
    let c = s.cvt();
    let bad: Vec<String> = if s.src_bits == 32 && std::env::var_os("SASS_EXHAUSTIVE").is_some() {
        (0..1u64 << 16)
            .into_par_iter()
            .flat_map_iter(|hi| (0..1u64 << 16).filter_map(move |lo| mismatch(s, &c, hi << 16 | lo)).take(8))
            .collect()
    } else {
        inputs.par_chunks(1 << 16).flat_map_iter(|chunk| chunk.iter().filter_map(|&x| mismatch(s, &c, x))).collect()
    };
    (bad.len(), bad.into_iter().take(8).collect())
}

#[test]
fn every_sequence_equals_the_sm90_profile() {
    let mut report = Vec::new();
    for s in SEQUENCES {
        let inputs = inputs(s);
        let (n, shown) = mismatches(s, &inputs);
        if n > 0 {
            report.push(format!("{}: {n} inputs differ, e.g.\n  {}", s.form, shown.join("\n  ")));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// The fast engine answers for the comparison above; the exact one must agree
/// on the points where the sequences depart from the ISA text.
#[test]
fn the_exact_engine_agrees_on_the_departures() {
    for s in SEQUENCES {
        let c = s.cvt();
        let xs: Vec<u64> = match s.src_bits {
            16 => (0..1 << 16).step_by(7).collect(),
            32 => f32_inputs(&mut SeededRng::new(7)).into_iter().step_by(61).collect(),
            _ => f64_inputs(s, &mut SeededRng::new(7)).into_iter().step_by(61).collect(),
        };
        for x in xs {
            let ops = [Operand { bits: x, width: s.src_bits }];
            let exact = evaluate_accept(&c, &ops, s.dst_bits, Profile::Sm90).unwrap();
            assert_eq!(exact.single(), Some((s.run)(x)), "{} {x:x}", s.form);
        }
    }
}
