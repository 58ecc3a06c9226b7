//! Instruction counts of the exact engine for BENCHMARKS.md: runs the
//! prepared, trace-free `Evaluator::accept` (or the benchmark's naive rug
//! f32→f16 conversion) over the inputs of `bench/benches/conversions.rs`
//! (same generators and seeds), `PASSES` times. Under callgrind, the
//! difference between two pass counts divided by the conversions is the
//! cost of one conversion, setup excluded:
//!
//!     cargo build --release -p ptx-cvt --example exact_profile
//!     valgrind --tool=callgrind target/release/examples/exact_profile f16 1
//!     valgrind --tool=callgrind target/release/examples/exact_profile f16 11
//!
//! Forms: s32 (cvt.rzi.s32.f32), f64 (cvt.rn.f32.f64), f16, bf16, u64
//! (cvt.rn.f32.u64), e4m3x2 (cvt.rn.satfinite.e4m3x2.f32, two values per
//! instruction), naive (the naive rug f32→f16 conversion).

use std::hint::black_box;

use ptx_cvt::eval::Evaluator;
use ptx_cvt::instr::parse;
use ptx_cvt::rug::{Assign, Integer};
use ptx_cvt::{Operand, Profile};

const N: usize = 4096;

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// f32 codes, NaNs replaced by subnormals (as the benchmark's).
fn inputs_f32(seed: u64) -> Vec<u64> {
    let mut r = SplitMix(seed);
    (0..N)
        .map(|_| {
            let x = r.next() as u32;
            let nan = (x >> 23) & 0xff == 0xff && x & 0x7f_ffff != 0;
            (if nan { x & 0x807f_ffff } else { x }) as u64
        })
        .collect()
}

/// f64 values with exponents uniform over [-160, 140].
fn inputs_f64(seed: u64) -> Vec<u64> {
    let mut r = SplitMix(seed);
    (0..N)
        .map(|_| {
            let x = r.next();
            let e = 1023 - 160 + (r.next() % 301);
            (x & 0x800f_ffff_ffff_ffff) | (e << 52)
        })
        .collect()
}

/// u64 values with a bit length uniform over 0..=64.
fn inputs_u64(seed: u64) -> Vec<u64> {
    let mut r = SplitMix(seed);
    (0..N)
        .map(|_| {
            let len = r.next() % 65;
            let x = r.next();
            if len == 0 {
                0
            } else {
                (x >> (64 - len)) | (1u64 << (len - 1))
            }
        })
        .collect()
}

#[derive(Default)]
struct Naive {
    sig: Integer,
    rest: Integer,
    half: Integer,
}

/// The benchmark's naive rug f32 → f16 round-to-nearest-even, verbatim.
fn naive_rug_f32_to_f16(x: u32, n: &mut Naive) -> u16 {
    let sign = ((x >> 16) & 0x8000) as u16;
    let (e, m) = ((x >> 23) & 0xff, x & 0x7f_ffff);
    if e == 0xff {
        return sign | 0x7c00;
    }
    n.sig.assign(if e == 0 { m } else { m | 0x80_0000 });
    if n.sig == 0 {
        return sign;
    }
    let exp = if e == 0 { -149 } else { e as i32 - 150 };
    let msb = exp + n.sig.significant_bits() as i32 - 1;
    let q = (msb - 10).max(-24);
    let cut = (q - exp) as u32;
    n.rest.assign(n.sig.keep_bits_ref(cut));
    n.sig >>= cut;
    n.half.assign(1);
    n.half <<= cut - 1;
    if n.rest > n.half || (n.rest == n.half && n.sig.is_odd()) {
        n.sig += 1;
    }
    let code = (((q + 24) as u32) << 10) + n.sig.to_u32_wrapping();
    sign | code.min(0x7c00) as u16
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let form = args.get(1).map_or("f16", String::as_str);
    let passes: usize = args.get(2).and_then(|p| p.parse().ok()).unwrap_or(1);
    let (spelling, inputs) = match form {
        "s32" => ("cvt.rzi.s32.f32", inputs_f32(1)),
        "f64" => ("cvt.rn.f32.f64", inputs_f64(2)),
        "f16" | "naive" => ("cvt.rn.f16.f32", inputs_f32(3)),
        "bf16" => ("cvt.rn.bf16.f32", inputs_f32(4)),
        "u64" => ("cvt.rn.f32.u64", inputs_u64(5)),
        "e4m3x2" => ("cvt.rn.satfinite.e4m3x2.f32", inputs_f32(6)),
        other => panic!("unknown form {other}"),
    };
    let c = parse(spelling).unwrap();
    let mut acc = 0u64;
    if form == "naive" {
        let mut n = Naive::default();
        for _ in 0..passes {
            acc = inputs.iter().fold(acc, |a, &x| a ^ naive_rug_f32_to_f16(black_box(x) as u32, &mut n) as u64);
        }
    } else {
        let width = c.atype.bits();
        let ev = Evaluator::new(&c, width, c.dtype.bits(), Profile::Sm90).unwrap();
        // One operand per source: the x2 forms take two consecutive inputs.
        let ops: Vec<Operand> = inputs.iter().map(|&bits| Operand { bits, width }).collect();
        let per = ptx_cvt::instr::shape(&c).srcs.len();
        for _ in 0..passes {
            for o in ops.chunks(per) {
                acc += ev.accept(black_box(o)).unwrap().alts.len() as u64;
            }
        }
    }
    println!("{form} {passes} passes: {acc}");
}
