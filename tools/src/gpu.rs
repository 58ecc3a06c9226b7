//! `ptx-cvt gpu`: run cases on an NVIDIA GPU through the CUDA driver API and
//! check every result against the oracle.
//!
//! The kernels come from `ptx-cvt ptx` (one per variant, natural register
//! widths). CUDA is loaded dynamically (cudarc), so this binary builds and runs
//! its other commands on machines without CUDA; without a driver this command
//! fails with a clear message.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use clap::Args;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use ptx_cvt::accept::width_mask;
use ptx_cvt::gen;
use ptx_cvt::{evaluate_accept, format_case, instr, parse_case, AcceptSet, Cvt, Operand, Profile, PtxVersion, Target};
use rayon::prelude::*;

use crate::common::{describe_bits, write_atomic};

#[derive(Args)]
pub struct GpuArgs {
    /// Case files to run (their results, if any, are ignored: the GPU answers).
    files: Vec<String>,
    /// Also run every input of every variant whose sources total 16 bits or less.
    #[arg(long)]
    exhaustive: bool,
    #[arg(long = "filter", value_name = "GLOB", help = crate::options::FILTER_HELP)]
    filters: Vec<String>,
    /// The `.target` of the kernels; only variants legal there run.
    #[arg(long, default_value = "sm_90", value_parser = crate::parse_target)]
    target: Target,
    /// The `.version` of the kernels (the driver must support it).
    #[arg(long, default_value = "8.7", value_parser = crate::parse_version)]
    ptx_version: PtxVersion,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// Evidence profile to check against.
    #[arg(long, default_value = "sm90", value_parser = |s: &str| s.parse::<Profile>())]
    profile: Profile,
    /// Write results here: one `<variant>.cases` per variant (the GPU's answers
    /// as case lines), `mismatches.cases` and `summary.txt`.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Stop checking after N mismatches (variants in name order); the summary still follows.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_failures: Option<u64>,
    /// Print at most N mismatches (all are counted, and recorded with --out).
    #[arg(long, value_name = "N", default_value_t = 20)]
    show: u64,
    /// Exit 0 when the files hold no case to run (default: "no cases", exit 2).
    #[arg(long)]
    allow_empty: bool,
    /// JSON Lines: one object per shown mismatch, then `{"summary": ...}`.
    #[arg(long)]
    json: bool,
}

/// Cases of one variant: operands and destination width (natural widths).
type Cases = BTreeMap<Cvt, Vec<Vec<Operand>>>;

/// The cases to run; errors come formatted (`FILE:LINE: error: ...` or `error: ...`).
fn collect(a: &GpuArgs) -> Result<(Cases, usize), String> {
    let filter = crate::options::VariantFilter::new(&a.filters).map_err(|e| format!("error: {e}"))?;
    let legal = |c: &Cvt| {
        instr::check(c, gen::natural_regs(c), Some(a.target), Some(a.ptx_version)).is_ok() && filter.matches(c)
    };
    let mut cases: Cases = BTreeMap::new();
    let mut skipped = 0;
    for f in &a.files {
        let text = fs::read_to_string(f).map_err(|e| format!("error: cannot read {f}: {e}"))?;
        for (n, line) in text.lines().enumerate() {
            let Some(c) =
                parse_case(line).map_err(|e| format!("{}:{}: error: {e}", crate::options::input_name(f), n + 1))?
            else {
                continue;
            };
            let shape = instr::shape(&c.instr);
            let natural = c.operands.iter().map(|o| o.width).eq(shape.srcs.iter().copied())
                && c.dst_width() == c.instr.dtype.bits();
            if !natural || !legal(&c.instr) {
                skipped += 1;
                continue;
            }
            cases.entry(c.instr).or_default().push(c.operands);
        }
    }
    if a.exhaustive {
        for (c, _) in gen::legal_variants(&[(a.target, a.ptx_version)]) {
            let shape = instr::shape(&c);
            let total: u32 = shape.srcs.iter().sum();
            if total > 16 || !legal(&c) {
                continue;
            }
            let list = cases.entry(c).or_default();
            for v in 0..(1u64 << total) {
                let mut ops = Vec::new();
                let mut shift = total;
                for w in &shape.srcs {
                    shift -= w;
                    ops.push(Operand { bits: (v >> shift) & width_mask(*w), width: *w });
                }
                list.push(ops);
            }
        }
    }
    Ok((cases, skipped))
}

/// A device buffer of one register width.
enum Buf {
    B8(CudaSlice<u8>),
    B16(CudaSlice<u16>),
    B32(CudaSlice<u32>),
    B64(CudaSlice<u64>),
}

fn upload(s: &std::sync::Arc<CudaStream>, width: u32, v: &[u64]) -> Result<Buf, String> {
    let e = |e: cudarc::driver::DriverError| format!("CUDA copy to device: {e}");
    Ok(match width {
        8 => Buf::B8(s.clone_htod(&v.iter().map(|x| *x as u8).collect::<Vec<_>>()).map_err(e)?),
        16 => Buf::B16(s.clone_htod(&v.iter().map(|x| *x as u16).collect::<Vec<_>>()).map_err(e)?),
        32 => Buf::B32(s.clone_htod(&v.iter().map(|x| *x as u32).collect::<Vec<_>>()).map_err(e)?),
        _ => Buf::B64(s.clone_htod(v).map_err(e)?),
    })
}

fn alloc(s: &std::sync::Arc<CudaStream>, width: u32, n: usize) -> Result<Buf, String> {
    let e = |e: cudarc::driver::DriverError| format!("CUDA allocation: {e}");
    Ok(match width {
        8 => Buf::B8(s.alloc_zeros(n).map_err(e)?),
        16 => Buf::B16(s.alloc_zeros(n).map_err(e)?),
        32 => Buf::B32(s.alloc_zeros(n).map_err(e)?),
        _ => Buf::B64(s.alloc_zeros(n).map_err(e)?),
    })
}

fn download(s: &std::sync::Arc<CudaStream>, b: &Buf) -> Result<Vec<u64>, String> {
    let e = |e: cudarc::driver::DriverError| format!("CUDA copy to host: {e}");
    Ok(match b {
        Buf::B8(d) => s.clone_dtoh(d).map_err(e)?.into_iter().map(u64::from).collect(),
        Buf::B16(d) => s.clone_dtoh(d).map_err(e)?.into_iter().map(u64::from).collect(),
        Buf::B32(d) => s.clone_dtoh(d).map_err(e)?.into_iter().map(u64::from).collect(),
        Buf::B64(d) => s.clone_dtoh(d).map_err(e)?,
    })
}

/// Open the device; a missing driver library is reported, not a crash.
fn open(device: usize) -> Result<std::sync::Arc<CudaContext>, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(|| CudaContext::new(device));
    std::panic::set_hook(hook);
    match r {
        Ok(Ok(ctx)) => Ok(ctx),
        Ok(Err(e)) => Err(format!("CUDA device {device}: {e}")),
        Err(_) => {
            Err("no CUDA driver: libcuda could not be loaded (ptx-cvt gpu needs an NVIDIA GPU and driver)".into())
        }
    }
}

/// Run every variant's cases on the GPU: the results, in case order.
fn run_on_gpu(
    ctx: &std::sync::Arc<CudaContext>,
    a: &GpuArgs,
    cases: &Cases,
) -> Result<BTreeMap<Cvt, Vec<u64>>, String> {
    let stream = ctx.default_stream();
    let variants: Vec<Cvt> = cases.keys().copied().collect();
    let ptx = crate::ptx::module(&variants, a.target, a.ptx_version);
    let module = ctx.load_module(Ptx::from_src(ptx)).map_err(|e| format!("loading the PTX module: {e}"))?;
    let mut results = BTreeMap::new();
    for (c, list) in cases {
        let f = module.load_function(&crate::ptx::kernel_name(c)).map_err(|e| format!("{c}: {e}"))?;
        let shape = instr::shape(c);
        let n = list.len();
        let inputs: Vec<Buf> = shape
            .srcs
            .iter()
            .enumerate()
            .map(|(k, w)| upload(&stream, *w, &list.iter().map(|ops| ops[k].bits).collect::<Vec<_>>()))
            .collect::<Result<_, _>>()?;
        let mut out = alloc(&stream, c.dtype.bits(), n)?;
        let count = n as u32;
        let mut b = stream.launch_builder(&f);
        for buf in &inputs {
            match buf {
                Buf::B8(d) => b.arg(d),
                Buf::B16(d) => b.arg(d),
                Buf::B32(d) => b.arg(d),
                Buf::B64(d) => b.arg(d),
            };
        }
        match &mut out {
            Buf::B8(d) => b.arg(d),
            Buf::B16(d) => b.arg(d),
            Buf::B32(d) => b.arg(d),
            Buf::B64(d) => b.arg(d),
        };
        b.arg(&count);
        // SAFETY: the kernel's parameters are the input pointers, the output
        // pointer and n, in that order (see `ptx-cvt ptx`), and every buffer
        // holds n elements of the operand's width.
        unsafe { b.launch(LaunchConfig::for_num_elems(count)) }.map_err(|e| format!("{c}: launch: {e}"))?;
        stream.synchronize().map_err(|e| format!("{c}: {e}"))?;
        results.insert(*c, download(&stream, &out)?);
    }
    Ok(results)
}

pub fn run(a: GpuArgs) -> u8 {
    if a.files.is_empty() && !a.exhaustive {
        eprintln!("error: give case files and/or --exhaustive");
        return 2;
    }
    // The driver first: no plan is printed for a machine that cannot run it.
    let ctx = match open(a.device) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let (cases, skipped) = match collect(&a) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}"); // FILE:LINE: error: ..., or error: ...
            return 2;
        }
    };
    if skipped > 0 {
        eprintln!(
            "note: {skipped} cases skipped (wider registers, or not legal on {} with PTX ISA {})",
            a.target, a.ptx_version
        );
    }
    let total: usize = cases.values().map(Vec::len).sum();
    if total == 0 && !a.allow_empty {
        eprintln!("error: no cases to run (--allow-empty accepts that)");
        return 2;
    }
    eprintln!("{} variants, {total} cases on device {} ({})", cases.len(), a.device, a.target);
    let start = std::time::Instant::now();
    let results = match run_on_gpu(&ctx, &a, &cases) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let gpu_time = start.elapsed();
    // Check on all host cores.
    let checked: Vec<(Cvt, Vec<String>, Vec<(String, AcceptSet, u64)>)> = cases
        .par_iter()
        .map(|(c, list)| {
            let got = &results[c];
            let mut lines = Vec::with_capacity(list.len());
            let mut bad = Vec::new();
            for (ops, g) in list.iter().zip(got) {
                let w = c.dtype.bits();
                let want = evaluate_accept(c, ops, w, a.profile).expect("legal case");
                let line = format_case(c, ops, &AcceptSet::exact(w, *g));
                if !want.contains(*g) {
                    bad.push((line.clone(), want, *g));
                }
                lines.push(line);
            }
            (*c, lines, bad)
        })
        .collect();
    let mut summary = String::from("variant\tcases\tmismatches\n");
    let mut mismatches = String::new();
    let (mut failed, mut passed, mut shown) = (0u64, 0u64, 0u64);
    let mut stopped = false;
    'variants: for (c, lines, bad) in &checked {
        summary.push_str(&format!("{c}\t{}\t{}\n", lines.len(), bad.len()));
        passed += (lines.len() - bad.len()) as u64;
        for (line, expected, got) in bad {
            if a.max_failures.is_some_and(|m| failed >= m) {
                stopped = true;
                break 'variants;
            }
            if shown < a.show {
                shown += 1;
                if a.json {
                    say!(
                        "{}",
                        serde_json::json!({"case": line, "instruction": c.to_string(), "expected": expected.to_string(), "got": ptx_cvt::eval::fmt_hex(*got, c.dtype.bits())})
                    );
                } else {
                    say!(
                        "MISMATCH {line}\n  expected {expected}\n  got      {}",
                        describe_bits(c, *got, c.dtype.bits())
                    );
                }
            }
            failed += 1;
            mismatches.push_str(&format!("{line}  # oracle: {expected}\n"));
        }
    }
    if let Some(dir) = &a.out {
        let write = || -> Result<(), String> {
            fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            for (c, lines, _) in &checked {
                let text = format!(
                    "# ptx-cvt case lines v1\n# recorded: device {} {}\n{}\n",
                    a.device,
                    a.target,
                    lines.join("\n")
                );
                write_atomic(&dir.join(format!("{c}.cases")), text.as_bytes())?;
            }
            write_atomic(&dir.join("mismatches.cases"), mismatches.as_bytes())?;
            write_atomic(&dir.join("summary.txt"), summary.as_bytes())
        };
        if let Err(e) = write() {
            eprintln!("error: {e}");
            return 2;
        }
    }
    eprintln!(
        "GPU time {:.1} s, check {:.1} s",
        gpu_time.as_secs_f64(),
        start.elapsed().as_secs_f64() - gpu_time.as_secs_f64()
    );
    if stopped {
        eprintln!("stopped after {failed} mismatch(es) (--max-failures)");
    }
    if shown < failed && !a.json {
        eprintln!("{shown} mismatch(es) shown of {failed} (--show N shows more)");
    }
    if a.json {
        say!(
            "{}",
            serde_json::json!({"summary": {"variants": cases.len(), "cases": total, "passed": passed, "failed": failed,
                "stopped": stopped, "skipped": skipped, "target": a.target.to_string(), "device": a.device,
                "gpu_seconds": gpu_time.as_secs_f64()}})
        );
    } else {
        say!("{passed} passed, {failed} failed");
    }
    u8::from(failed > 0)
}
