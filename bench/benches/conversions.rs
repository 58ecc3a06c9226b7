//! Conversions per second of the ptx-cvt engines on representative
//! variants, next to other implementations of the same conversion where
//! their semantics coincide (on the inputs used):
//!
//! | group        | PTX instruction                  | peers |
//! |--------------|----------------------------------|-------|
//! | f32→s32 rzi  | `cvt.rzi.s32.f32`                | `as i32` (saturating; NaN differs, so no NaN inputs), SoftFloat `f32_to_i32_r_minMag` |
//! | f64→f32 rn   | `cvt.rn.f32.f64`                 | `as f32` (round to nearest even), SoftFloat `f64_to_f32` |
//! | f32→f16 rn   | `cvt.rn.f16.f32`                 | `half::f16::from_f32` (F16C when the CPU has it), half's slice conversion, SoftFloat `f32_to_f16` |
//! | f32→bf16 rn  | `cvt.rn.bf16.f32`                | `half::bf16::from_f32`, SoftFloat `f32_to_bf16` (softfloat-sys ships SoftFloat 3 with a bf16 extension) |
//! | u64→f32 rn   | `cvt.rn.f32.u64`                 | `as f32`, SoftFloat `ui64_to_f32` |
//! | f32→e4m3x2   | `cvt.rn.satfinite.e4m3x2.f32`    | none (neither Rust, half nor SoftFloat has FP8) |
//!
//! Every contender of a group converts the same 4096 pseudo-random inputs
//! (seeded SplitMix64; see `inputs_*`), and criterion reports elements per
//! second (`Throughput::Elements(4096)`): one element is one value converted
//! (for e4m3x2, one instruction converts two f32 values: 2048 instructions).
//!
//! Contenders:
//! - `fast/call`: `ptx_cvt::fast::evaluate` once per input (the per-thread
//!   plan cache makes repeated calls on one instruction skip legality);
//! - `fast/plan`: `fast::Plan::eval` on a prepared plan, once per input;
//! - `fast/slice`: `fast::evaluate_slice` on registers of their own width
//!   (`&[u32]` of f32 codes in, `&mut [u16]` out for f32→f16, ...);
//! - `fast/batch`: `ptx_cvt::fast::evaluate_batch` on the 4096 inputs
//!   (single-source forms; kernels specialised per form on the CPU's widest
//!   vector unit); `fast/batch baseline`: the same kernels built for the
//!   x86-64 baseline (SSE2, what every other contender is compiled for);
//! - `exact`: `ptx_cvt::evaluate` (the `rug`-based reference, sm90 profile,
//!   with its explanation); `exact/prepared`: `eval::Evaluator::accept`
//!   (legality checked once, no explanation);
//! - `naive rug` (f32→f16 only): a straightforward conversion on `rug`
//!   integers with reused buffers, the yardstick the issue gives;
//! - `native/loop`: the `as` cast over the slice (the compiler vectorizes it);
//! - `native/scalar`: the `as` cast with each input through `black_box` (no vectorization);
//! - `half/...`, `softfloat`: per element;
//! - `capi/per-call`, `capi/prepared`, `capi/eval1`, `capi/batch`: the C
//!   interface's `ptx_cvt_eval` (parses the instruction every call),
//!   `ptx_cvt_eval_prepared` (one value through a handle, with mask and
//!   message), `ptx_cvt_eval1` (one value through a handle: status and
//!   bits only), `ptx_cvt_eval_batch` (the 4096 inputs as
//!   u64 rows) and, for f32→f16, `ptx_cvt_eval_slice` (u32 in, u16 out),
//!   called through their `extern "C"` entry points as a C program calls them.
//!
//! Run: `cd bench && cargo bench -- --warm-up-time 1 --measurement-time 2`.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use ptx_cvt::eval::Evaluator;
use ptx_cvt::fast::{self, Plan};
use ptx_cvt::fast::{Isa, Word};
use ptx_cvt::instr::parse;
// The naive conversion uses the oracle's own `rug` (re-exported), as callers should.
use ptx_cvt::rug::{Assign, Integer};
use ptx_cvt::{evaluate, Cvt, Operand, Profile};
use softfloat_sys as sf;

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

/// f32 bit patterns, uniform over all codes except NaNs (a NaN code is
/// replaced by its sign with the exponent field cleared: a subnormal).
fn inputs_f32(seed: u64) -> Vec<u64> {
    let mut r = SplitMix(seed);
    (0..N)
        .map(|_| {
            let x = r.next() as u32;
            let x = if f32::from_bits(x).is_nan() { x & 0x807f_ffff } else { x };
            x as u64
        })
        .collect()
}

/// f64 values with random sign and fraction and an exponent uniform over
/// [-160, 140]: about 5% below f32's subnormals, 5% subnormal in f32, 8% above
/// f32's range, the rest normal in f32 (uniform f64 bits would nearly all
/// overflow or underflow).
fn inputs_f64(seed: u64) -> Vec<u64> {
    let mut r = SplitMix(seed);
    (0..N)
        .map(|_| {
            let x = r.next();
            let e = (1023 - 160 + (r.next() % 301)) as u64;
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

fn ops(c: &Cvt, x: u64) -> [Operand; 1] {
    [Operand { bits: x, width: c.atype.bits() }]
}

/// The three ptx-cvt contenders of a single-source form.
fn engines(g: &mut BenchmarkGroup<WallTime>, spelling: &str, inputs: &[u64]) {
    let c = parse(spelling).unwrap();
    let w = c.dtype.bits();
    g.bench_function("ptx-cvt fast/call", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for &x in inputs {
                acc ^= fast::evaluate(&c, &ops(&c, black_box(x)), w).unwrap().representative();
            }
            acc
        })
    });
    let plan = Plan::new(&c, c.atype.bits(), w).unwrap();
    g.bench_function("ptx-cvt fast/plan", |b| {
        b.iter(|| inputs.iter().fold(0u64, |a, &x| a ^ plan.eval1(black_box(x)).representative()))
    });
    let mut out = vec![0u64; inputs.len()];
    g.bench_function("ptx-cvt fast/batch", |b| {
        b.iter(|| {
            fast::evaluate_batch(&c, black_box(inputs), &mut out).unwrap();
            black_box(&out);
        })
    });
    slice_contender(g, &c, inputs);
    g.bench_function("ptx-cvt fast/batch baseline", |b| {
        b.iter(|| {
            fast::evaluate_batch_on(&c, black_box(inputs), &mut out, Isa::Baseline).unwrap();
            black_box(&out);
        })
    });
    g.bench_function("ptx-cvt exact", |b| {
        b.iter(|| {
            let mut acc = 0usize;
            for &x in inputs {
                acc += evaluate(&c, &ops(&c, black_box(x)), w, Profile::Sm90).unwrap().accept.alts.len();
            }
            acc
        })
    });
    capi_contenders(g, spelling, &c, inputs);
    let ev = Evaluator::new(&c, c.atype.bits(), w, Profile::Sm90).unwrap();
    g.bench_function("ptx-cvt exact/prepared", |b| {
        b.iter(|| {
            let mut acc = 0usize;
            for &x in inputs {
                acc += ev.accept(&ops(&c, black_box(x))).unwrap().alts.len();
            }
            acc
        })
    });
}

/// The C interface's three ways in, on one form.
fn capi_contenders(g: &mut BenchmarkGroup<WallTime>, spelling: &str, c: &Cvt, inputs: &[u64]) {
    use ptx_cvt_capi as capi;
    use std::ffi::{c_char, CString};
    let name = CString::new(spelling).unwrap();
    let widths = [c.atype.bits()];
    let dst = c.dtype.bits();
    let mut err = [0 as c_char; 256];
    g.bench_function("capi/per-call", |b| {
        let mut text = [0 as c_char; capi::PTX_CVT_TEXT_LEN];
        b.iter(|| {
            let (mut acc, mut bits, mut mask) = (0u64, 0u64, 0u64);
            for &x in inputs {
                let x = black_box(x);
                // SAFETY: every pointer is valid for the lengths given (header).
                unsafe {
                    capi::ptx_cvt_eval(
                        name.as_ptr(),
                        &x,
                        widths.as_ptr(),
                        1,
                        dst,
                        std::ptr::null(),
                        &mut bits,
                        &mut mask,
                        text.as_mut_ptr(),
                        text.len(),
                        err.as_mut_ptr(),
                        err.len(),
                    );
                }
                acc ^= bits;
            }
            acc
        })
    });
    let mut h = std::ptr::null_mut();
    // SAFETY: as above; the handle is released below.
    let rc = unsafe {
        capi::ptx_cvt_prepare(
            name.as_ptr(),
            widths.as_ptr(),
            1,
            dst,
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null(),
            &mut h,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    assert_eq!(rc, 0, "ptx_cvt_prepare({spelling})");
    let handle = h as *const capi::Prepared;
    g.bench_function("capi/prepared", |b| {
        b.iter(|| {
            let (mut acc, mut bits, mut mask) = (0u64, 0u64, 0u64);
            for &x in inputs {
                let x = black_box(x);
                // SAFETY: as above.
                unsafe { capi::ptx_cvt_eval_prepared(handle, &x, &mut bits, &mut mask, err.as_mut_ptr(), err.len()) };
                acc ^= bits;
            }
            acc
        })
    });
    g.bench_function("capi/eval1", |b| {
        b.iter(|| {
            let (mut acc, mut bits) = (0u64, 0u64);
            for &x in inputs {
                // SAFETY: as above.
                unsafe { capi::ptx_cvt_eval1(handle, black_box(x), &mut bits) };
                acc ^= bits;
            }
            acc
        })
    });
    let mut out = vec![0u64; inputs.len()];
    g.bench_function("capi/batch", |b| {
        b.iter(|| {
            // SAFETY: as above.
            unsafe {
                capi::ptx_cvt_eval_batch(
                    handle,
                    inputs.len(),
                    black_box(inputs).as_ptr(),
                    out.as_mut_ptr(),
                    err.as_mut_ptr(),
                    err.len(),
                )
            };
            black_box(&out);
        })
    });
    if let (32, 16) = (widths[0], dst) {
        // Arrays of the registers' own widths, as fast/slice takes them.
        let ins: Vec<u32> = inputs.iter().map(|&x| x as u32).collect();
        let mut outs = vec![0u16; inputs.len()];
        g.bench_function("capi/slice", |b| {
            b.iter(|| {
                // SAFETY: as above; the arrays hold inputs.len() elements of the widths.
                unsafe {
                    capi::ptx_cvt_eval_slice(
                        handle,
                        ins.len(),
                        black_box(&ins).as_ptr().cast(),
                        outs.as_mut_ptr().cast(),
                        err.as_mut_ptr(),
                        err.len(),
                    )
                };
                black_box(&outs);
            })
        });
    }
    // SAFETY: made above, used by nothing else.
    unsafe { capi::ptx_cvt_release(h) };
}

/// `fast/slice`: the batch kernels on registers of their own width (`&[u32]`
/// of f32 codes into `&mut [u16]`, say), as a caller holding such arrays calls them.
fn slice_contender(g: &mut BenchmarkGroup<WallTime>, c: &Cvt, inputs: &[u64]) {
    match (c.atype.bits(), c.dtype.bits()) {
        (32, 32) => typed_slices::<u32, u32>(g, c, inputs),
        (64, 32) => typed_slices::<u64, u32>(g, c, inputs),
        (32, 16) => typed_slices::<u32, u16>(g, c, inputs),
        (a, d) => panic!("no slice contender for {a}-bit sources and {d}-bit results"),
    }
}

fn typed_slices<I: Word, O: Word>(g: &mut BenchmarkGroup<WallTime>, c: &Cvt, inputs: &[u64]) {
    let src: Vec<I> = inputs.iter().map(|&x| I::narrow(x)).collect();
    let (mut out, mut wide) = (vec![O::default(); src.len()], vec![0u64; src.len()]);
    fast::evaluate_slice(c, &src, &mut out).unwrap();
    fast::evaluate_batch(c, inputs, &mut wide).unwrap();
    assert!(out.iter().zip(&wide).all(|(o, &w)| o.widen() == w), "{c}: evaluate_slice differs from evaluate_batch");
    g.bench_function("ptx-cvt fast/slice", |b| {
        b.iter(|| {
            fast::evaluate_slice(c, black_box(&src), &mut out).unwrap();
            black_box(&out);
        })
    });
}

/// Buffers of the naive big-integer conversion, reused across calls.
#[derive(Default)]
struct Naive {
    sig: Integer,
    rest: Integer,
    half: Integer,
}

/// A naive f32 → f16 round-to-nearest-even on `rug` integers (the issue's
/// yardstick for the exact engine): the significand as a big integer, cut,
/// compared with half an ulp, encoded; no NaN inputs (the benchmark has none).
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

/// Report (stderr, before timing) on how many inputs a peer's bits differ
/// from the fast engine's result.
fn agreement(group: &str, spelling: &str, inputs: &[u64], peer: &str, f: impl Fn(u64) -> u64) {
    let c = parse(spelling).unwrap();
    let mut want = vec![0u64; inputs.len()];
    fast::evaluate_batch(&c, inputs, &mut want).unwrap();
    let differ: Vec<usize> = (0..inputs.len()).filter(|&i| f(inputs[i]) != want[i]).collect();
    match differ.first() {
        None => eprintln!("agreement: {group}: {peer} = ptx-cvt on all {} inputs", inputs.len()),
        Some(&i) => eprintln!(
            "agreement: {group}: {peer} differs from ptx-cvt on {} of {} inputs (first: {:x} -> {:x}, ptx-cvt {:x})",
            differ.len(),
            inputs.len(),
            inputs[i],
            f(inputs[i]),
            want[i]
        ),
    }
}

fn set_rounding(mode: u8) {
    // SAFETY: writes SoftFloat's thread-local rounding mode.
    unsafe { sf::softfloat_roundingMode_write_helper(mode) }
}

fn f32_to_s32_rzi(cr: &mut Criterion) {
    let inputs = inputs_f32(1);
    let floats: Vec<f32> = inputs.iter().map(|&x| f32::from_bits(x as u32)).collect();
    let (g0, i0) = ("f32->s32 rzi", "cvt.rzi.s32.f32");
    agreement(g0, i0, &inputs, "as i32", |x| (f32::from_bits(x as u32) as i32) as u32 as u64);
    agreement(
        g0,
        i0,
        &inputs,
        "softfloat",
        |x| unsafe { sf::f32_to_i32_r_minMag(sf::float32_t { v: x as u32 }, false) } as u32 as u64,
    );
    let mut g = cr.benchmark_group("f32->s32 rzi");
    g.throughput(Throughput::Elements(N as u64));
    engines(&mut g, "cvt.rzi.s32.f32", &inputs);
    let mut out = vec![0i32; N];
    g.bench_function("native as/loop", |b| {
        b.iter(|| {
            for (o, &x) in out.iter_mut().zip(black_box(&floats)) {
                *o = x as i32;
            }
            black_box(&out);
        })
    });
    g.bench_function("native as/scalar", |b| b.iter(|| floats.iter().fold(0i32, |a, &x| a ^ (black_box(x) as i32))));
    g.bench_function("softfloat", |b| {
        b.iter(|| {
            floats.iter().fold(0i32, |a, &x| {
                a ^ unsafe { sf::f32_to_i32_r_minMag(sf::float32_t { v: black_box(x).to_bits() }, false) } as i32
            })
        })
    });
    g.finish();
}

fn f64_to_f32_rn(cr: &mut Criterion) {
    let inputs = inputs_f64(2);
    let floats: Vec<f64> = inputs.iter().map(|&x| f64::from_bits(x)).collect();
    let (g0, i0) = ("f64->f32 rn", "cvt.rn.f32.f64");
    set_rounding(sf::softfloat_round_near_even);
    agreement(g0, i0, &inputs, "as f32", |x| (f64::from_bits(x) as f32).to_bits() as u64);
    agreement(g0, i0, &inputs, "softfloat", |x| unsafe { sf::f64_to_f32(sf::float64_t { v: x }) }.v as u64);
    let mut g = cr.benchmark_group("f64->f32 rn");
    g.throughput(Throughput::Elements(N as u64));
    engines(&mut g, "cvt.rn.f32.f64", &inputs);
    let mut out = vec![0f32; N];
    g.bench_function("native as/loop", |b| {
        b.iter(|| {
            for (o, &x) in out.iter_mut().zip(black_box(&floats)) {
                *o = x as f32;
            }
            black_box(&out);
        })
    });
    g.bench_function("native as/scalar", |b| {
        b.iter(|| floats.iter().fold(0u32, |a, &x| a ^ (black_box(x) as f32).to_bits()))
    });
    g.bench_function("softfloat", |b| {
        b.iter(|| {
            set_rounding(sf::softfloat_round_near_even);
            floats
                .iter()
                .fold(0u32, |a, &x| a ^ unsafe { sf::f64_to_f32(sf::float64_t { v: black_box(x).to_bits() }) }.v)
        })
    });
    g.finish();
}

/// An f32 → 16-bit float group: the ptx-cvt engines, half's scalar and slice
/// conversions and SoftFloat (round to nearest even), plus `extra` contenders.
/// Generic over the conversions (closures), so each is inlined as before.
fn f32_to_16bit(
    cr: &mut Criterion,
    seed: u64,
    group: &str,
    spelling: &str,
    half_scalar: impl Fn(f32) -> u16,
    mut half_slice: impl FnMut(&[f32]),
    softfloat: impl Fn(u32) -> u16,
    extra: impl FnOnce(&mut BenchmarkGroup<WallTime>, &[u64]),
) {
    let inputs = inputs_f32(seed);
    let floats: Vec<f32> = inputs.iter().map(|&x| f32::from_bits(x as u32)).collect();
    set_rounding(sf::softfloat_round_near_even);
    agreement(group, spelling, &inputs, "half", |x| half_scalar(f32::from_bits(x as u32)) as u64);
    agreement(group, spelling, &inputs, "softfloat", |x| softfloat(x as u32) as u64);
    let mut g = cr.benchmark_group(group);
    g.throughput(Throughput::Elements(N as u64));
    engines(&mut g, spelling, &inputs);
    extra(&mut g, &inputs);
    g.bench_function("half from_f32", |b| b.iter(|| floats.iter().fold(0u16, |a, &x| a ^ half_scalar(black_box(x)))));
    g.bench_function("half slice", |b| b.iter(|| half_slice(black_box(&floats))));
    g.bench_function("softfloat", |b| {
        b.iter(|| {
            set_rounding(sf::softfloat_round_near_even);
            floats.iter().fold(0u16, |a, &x| a ^ softfloat(black_box(x).to_bits()))
        })
    });
    g.finish();
}

fn f32_to_f16_rn(cr: &mut Criterion) {
    use half::slice::HalfFloatSliceExt;
    let mut out = vec![half::f16::ZERO; N];
    let naive = |g: &mut BenchmarkGroup<WallTime>, inputs: &[u64]| {
        agreement("f32->f16 rn", "cvt.rn.f16.f32", inputs, "naive rug", |x| {
            naive_rug_f32_to_f16(x as u32, &mut Naive::default()) as u64
        });
        let mut n = Naive::default();
        g.bench_function("naive rug", |b| {
            b.iter(|| inputs.iter().fold(0u16, |a, &x| a ^ naive_rug_f32_to_f16(black_box(x) as u32, &mut n)))
        });
    };
    f32_to_16bit(
        cr,
        3,
        "f32->f16 rn",
        "cvt.rn.f16.f32",
        |x| half::f16::from_f32(x).to_bits(),
        |f| {
            out.convert_from_f32_slice(f);
            black_box(&out);
        },
        |x| unsafe { sf::f32_to_f16(sf::float32_t { v: x }) }.v,
        naive,
    );
}

fn f32_to_bf16_rn(cr: &mut Criterion) {
    use half::slice::HalfFloatSliceExt;
    let mut out = vec![half::bf16::ZERO; N];
    f32_to_16bit(
        cr,
        4,
        "f32->bf16 rn",
        "cvt.rn.bf16.f32",
        |x| half::bf16::from_f32(x).to_bits(),
        |f| {
            out.convert_from_f32_slice(f);
            black_box(&out);
        },
        |x| unsafe { sf::f32_to_bf16(sf::float32_t { v: x }) }.v,
        |_, _| {},
    );
}

fn u64_to_f32_rn(cr: &mut Criterion) {
    let inputs = inputs_u64(5);
    let (g0, i0) = ("u64->f32 rn", "cvt.rn.f32.u64");
    set_rounding(sf::softfloat_round_near_even);
    agreement(g0, i0, &inputs, "as f32", |x| (x as f32).to_bits() as u64);
    agreement(g0, i0, &inputs, "softfloat", |x| unsafe { sf::ui64_to_f32(x) }.v as u64);
    let mut g = cr.benchmark_group("u64->f32 rn");
    g.throughput(Throughput::Elements(N as u64));
    engines(&mut g, "cvt.rn.f32.u64", &inputs);
    let mut out = vec![0f32; N];
    g.bench_function("native as/loop", |b| {
        b.iter(|| {
            for (o, &x) in out.iter_mut().zip(black_box(&inputs)) {
                *o = x as f32;
            }
            black_box(&out);
        })
    });
    g.bench_function("native as/scalar", |b| {
        b.iter(|| inputs.iter().fold(0u32, |a, &x| a ^ (black_box(x) as f32).to_bits()))
    });
    g.bench_function("softfloat", |b| {
        b.iter(|| {
            set_rounding(sf::softfloat_round_near_even);
            inputs.iter().fold(0u32, |a, &x| a ^ unsafe { sf::ui64_to_f32(black_box(x)) }.v)
        })
    });
    g.finish();
}

fn f32_to_e4m3x2(cr: &mut Criterion) {
    let inputs = inputs_f32(6);
    let c = parse("cvt.rn.satfinite.e4m3x2.f32").unwrap();
    let pairs: Vec<[Operand; 2]> =
        inputs.chunks(2).map(|p| [Operand { bits: p[0], width: 32 }, Operand { bits: p[1], width: 32 }]).collect();
    let mut g = cr.benchmark_group("f32->e4m3x2 rn satfinite");
    // Two f32 values per instruction: 2048 instructions convert the 4096 inputs.
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("ptx-cvt fast/call", |b| {
        b.iter(|| pairs.iter().fold(0u64, |a, p| a ^ fast::evaluate(&c, black_box(p), 16).unwrap().representative()))
    });
    let plan = Plan::new(&c, 32, 16).unwrap();
    g.bench_function("ptx-cvt fast/plan", |b| {
        b.iter(|| pairs.iter().fold(0u64, |a, p| a ^ plan.eval(black_box(p)).representative()))
    });
    g.bench_function("ptx-cvt exact", |b| {
        b.iter(|| {
            pairs
                .iter()
                .fold(0usize, |a, p| a + evaluate(&c, black_box(p), 16, Profile::Sm90).unwrap().accept.alts.len())
        })
    });
    let ev = Evaluator::new(&c, 32, 16, Profile::Sm90).unwrap();
    g.bench_function("ptx-cvt exact/prepared", |b| {
        b.iter(|| pairs.iter().fold(0usize, |a, p| a + ev.accept(black_box(p)).unwrap().alts.len()))
    });
    g.finish();
}

criterion_group!(benches, f32_to_s32_rzi, f64_to_f32_rn, f32_to_f16_rn, f32_to_bf16_rn, u64_to_f32_rn, f32_to_e4m3x2);
criterion_main!(benches);
