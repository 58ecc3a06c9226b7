//! `ptx-cvt sweep cvt.rn.f16.f32` (all 2^32 inputs, digest) against its
//! hardware peer: the same 2^32 inputs converted by the `half` crate's
//! `convert_from_f32_slice` (the CPU's F16C `vcvtps2ph`) and folded into the
//! same digest, on the same number of threads. Prints each run's wall time,
//! the medians and their ratio. The digests differ: PTX gives the canonical
//! NaN (7fff) for every NaN, F16C keeps the payload.
//!
//!   cargo build --release -p ptx-cvt-cli                 # at the repository root
//!   cd bench && cargo bench --bench sweep_peer       # RUNS=3 by default
//!
//! The sweep runs as the `ptx-cvt` binary (`PTX_CVT`, default
//! `../target/release/ptx-cvt`), so what is timed is the harness users run;
//! its own `sweep_seconds` is used (process start and legality check excluded).

use std::process::Command;
use std::time::Instant;

use half::f16;
use half::slice::HalfFloatSliceExt;
use ptx_cvt_harness::digest::{digest_run, digest_term};
use rayon::prelude::*;

/// Inputs per parallel task, and per conversion call inside it (as the sweep).
const CHUNK: u64 = 1 << 20;
const SUB: usize = 1 << 14;

/// The peer: F16C conversion, results widened to the digest's `u64`, the
/// sweep's vectorised digest.
fn peer() -> u64 {
    (0..(1u64 << 32) / CHUNK)
        .into_par_iter()
        .map_init(
            || (vec![0f32; SUB], vec![f16::ZERO; SUB], vec![0u64; SUB]),
            |(src, dst, wide), i| {
                let mut d = 0u64;
                for base in (i * CHUNK..(i + 1) * CHUNK).step_by(SUB) {
                    for (j, v) in src.iter_mut().enumerate() {
                        *v = f32::from_bits((base + j as u64) as u32);
                    }
                    dst.convert_from_f32_slice(src);
                    for (w, h) in wide.iter_mut().zip(dst.iter()) {
                        *w = h.to_bits() as u64;
                    }
                    d = d.wrapping_add(digest_run(base, wide));
                }
                d
            },
        )
        .reduce(|| 0, u64::wrapping_add)
}

/// The 40-line peer: F16C conversion, a plain (scalar) fold of the digest.
fn peer_scalar_fold() -> u64 {
    (0..(1u64 << 32) / CHUNK)
        .into_par_iter()
        .map_init(
            || (vec![0f32; SUB], vec![f16::ZERO; SUB]),
            |(src, dst), i| {
                let mut d = 0u64;
                for base in (i * CHUNK..(i + 1) * CHUNK).step_by(SUB) {
                    for (j, v) in src.iter_mut().enumerate() {
                        *v = f32::from_bits((base + j as u64) as u32);
                    }
                    dst.convert_from_f32_slice(src);
                    for (j, h) in dst.iter().enumerate() {
                        d = d.wrapping_add(digest_term(base + j as u64, h.to_bits() as u64));
                    }
                }
                d
            },
        )
        .reduce(|| 0, u64::wrapping_add)
}

/// One `ptx-cvt sweep --json` run: its digest and sweep seconds.
fn sweep(bin: &str) -> (u64, f64) {
    let out = Command::new(bin)
        .args(["sweep", "cvt.rn.f16.f32", "--json"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e} (build it: cargo build --release -p ptx-cvt-cli)"));
    assert!(out.status.success(), "{bin} sweep failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |k: &str| {
        let at = text.find(&format!("\"{k}\":")).unwrap_or_else(|| panic!("no {k} in {text}"));
        let rest = text[at + k.len() + 3..].trim_start_matches('"');
        rest[..rest.find(['"', ',', '}']).unwrap()].to_string()
    };
    (u64::from_str_radix(&field("digest"), 16).unwrap(), field("sweep_seconds").parse().unwrap())
}

fn timed(f: impl Fn() -> u64) -> (u64, f64) {
    let t = Instant::now();
    let d = f();
    (d, t.elapsed().as_secs_f64())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes --bench; nothing else is taken.
    let bin = std::env::var("PTX_CVT").unwrap_or_else(|_| "../target/release/ptx-cvt".into());
    let runs: usize = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    println!("threads: {}; runs: {runs}; interleaved", rayon::current_num_threads());
    let (mut s, mut p, mut q) = (vec![], vec![], vec![]);
    for r in 0..runs {
        let (ds, ts) = sweep(&bin);
        let (dp, tp) = timed(peer);
        let (dq, tq) = timed(peer_scalar_fold);
        assert_eq!(dp, dq, "the two peers' digests differ");
        println!("run {r}: ptx-cvt sweep {ts:.2} s (digest {ds:016x}), peer {tp:.2} s (digest {dp:016x}), peer (scalar digest fold) {tq:.2} s");
        (s.push(ts), p.push(tp), q.push(tq));
    }
    let (ms, mp, mq) = (median(s), median(p), median(q));
    println!("median: ptx-cvt sweep {ms:.2} s, peer {mp:.2} s, peer (scalar fold) {mq:.2} s");
    println!("ratio sweep / peer: {:.2}; sweep / peer (scalar fold): {:.2}", ms / mp, ms / mq);
}
