//! `ptx-cvt gpu`, `scripts/gpu-check.sh` and `scripts/device-run.sh` end to
//! end on the stand-in CUDA driver (`cuda-standin/`: a `libcuda.so` that runs
//! the kernels on the CPU with the fast engine, checks every launch against
//! the kernel's declared parameters, and injects faults on request through
//! `PTX_CVT_STANDIN_FAULTS`). `ptx-cvt gpu` judges the answers like every
//! command (a rejection is the exact engine's), so agreement here means the
//! plumbing (module, parameter order, buffer widths, multi-operand columns,
//! output files) is right.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ptx_cvt::instr::parse;
use ptx_cvt_tests::{bin, standin_dir, workspace};

/// A fresh output folder for one test, removed when dropped.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("ptx-cvt-gpu-standin-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    Scratch(d)
}

fn compact(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| workspace().join("vectors/compact").join(format!("{n}.cases")).display().to_string()).collect()
}

/// `ptx-cvt gpu ARGS` on the stand-in with these faults.
fn gpu(args: &[&str], faults: &str) -> Output {
    Command::new(bin())
        .arg("gpu")
        .args(args)
        .env("LD_LIBRARY_PATH", standin_dir())
        .env("PTX_CVT_STANDIN_FAULTS", faults)
        .output()
        .expect("run ptx-cvt gpu")
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// summary.txt rows: (variant, cases, mismatches, status).
fn summary(dir: &Path) -> Vec<(String, usize, usize, String)> {
    let t = std::fs::read_to_string(dir.join("summary.txt")).expect("summary.txt");
    assert!(t.starts_with("# recorded: device 0 "), "{t}");
    t.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("variant\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "{l}");
            (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].to_string())
        })
        .collect()
}

/// The case lines of a file (comments dropped).
fn case_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(String::from)
        .collect()
}

/// Operands of a case line: the text between the instruction and `=>`.
fn operands(line: &str) -> String {
    let l = line.split('#').next().unwrap();
    let l = l.split("=>").next().unwrap();
    l.split_whitespace().skip(1).collect::<Vec<_>>().join(" ")
}

const FEW: [&str; 4] = ["cvt.f32.f16", "cvt.rn.f16x2.f32", "cvt.rni.s8.f32", "cvt.rn.satfinite.e4m3x2.f32"];

/// Every variant legal on sm_90 (PTX ISA 8.7, natural registers) runs through
/// its committed compact vectors, and every answer matches the oracle.
#[test]
fn every_sm90_variant_through_its_compact_vectors() {
    let out = scratch("compact");
    let mut files: Vec<String> = std::fs::read_dir(workspace().join("vectors/compact"))
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".cases"))
        .collect();
    files.sort();
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["--out", out.to_str().unwrap()]);
    let o = gpu(&args, "");
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let rows = summary(&out);
    let want: BTreeSet<String> = ptx_cvt::gen::legal_variants(&[("sm_90".parse().unwrap(), "8.7".parse().unwrap())])
        .into_iter()
        .map(|(c, _)| c.to_string())
        .collect();
    let got: BTreeSet<String> = rows.iter().map(|r| r.0.clone()).collect();
    assert_eq!(got, want, "variants run differ from those legal on sm_90 at PTX ISA 8.7 (a vector file missing?)");
    assert!(rows.len() > 800, "{}", rows.len());
    assert!(rows.iter().all(|r| r.3 == "ok" && r.2 == 0 && r.1 > 0), "{rows:?}");
    let total: usize = rows.iter().map(|r| r.1).sum();
    assert!(stdout.ends_with(&format!("{total} passed, 0 failed\n")), "{stdout}");
    // The multi-operand packed forms: each recorded answer belongs to the same
    // operands, in the same order, as the vector file's case.
    for name in ["cvt.rn.f16x2.f32", "cvt.rn.bf16x2.f32", "cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.relu.f16x2.f32"] {
        let input: Vec<String> = case_lines(&workspace().join(format!("vectors/compact/{name}.cases")));
        let recorded = case_lines(&out.join(format!("{name}.cases")));
        assert_eq!(input.len(), recorded.len(), "{name}");
        for (i, r) in input.iter().zip(&recorded) {
            assert_eq!(operands(i), operands(r), "{name}");
            assert_eq!(operands(r).split(' ').count(), 2, "{name}: {r}");
        }
    }
    // Recorded answers re-check with `ptx-cvt check` (the file format is the usual one).
    let c = Command::new(bin()).arg("check").arg(out.join("cvt.rn.f16x2.f32.cases")).output().unwrap();
    assert_eq!(c.status.code(), Some(0), "{}", String::from_utf8_lossy(&c.stdout));
}

/// Every input of two packed ≤16-bit variants (one launch of 65536 threads
/// each, destination wider than the source) and of cvt.f32.f16.
#[test]
fn exhaustive_sweeps() {
    let out = scratch("exhaustive");
    let o = gpu(&["--exhaustive", "--filter", "cvt.rn.f16x2.e[45]m[23]x2", "--out", out.to_str().unwrap()], "");
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stdout.ends_with("131072 passed, 0 failed\n"), "{stdout}");
    let rows = summary(&out);
    assert_eq!(
        rows.iter().map(|r| (r.0.as_str(), r.1)).collect::<Vec<_>>(),
        [("cvt.rn.f16x2.e4m3x2", 65536), ("cvt.rn.f16x2.e5m2x2", 65536)]
    );
    let lines = case_lines(&out.join("cvt.rn.f16x2.e5m2x2.cases"));
    let seen: BTreeSet<String> = lines.iter().map(|l| operands(l)).collect();
    assert_eq!(seen.len(), 65536);
    assert!(seen.contains("0000") && seen.contains("ffff"));
    // --keep open keeps only answers the oracle leaves open: here the f16
    // NaN inputs (NaN bits of f16→f64 are an open question, README).
    let out2 = scratch("exhaustive-open");
    let o = gpu(&["--exhaustive", "--filter", "cvt.f64.f16", "--record", "open", "--out", out2.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let kept = case_lines(&out2.join("cvt.f64.f16.cases"));
    assert_eq!(kept.len(), 2046, "2 signs × 1023 NaN payloads");
    assert!(kept.iter().all(|l| l.ends_with("=> 7fffffffffffffff")), "{:?}", &kept[..3]);
    // A sweep that selects nothing is an error, not an empty success.
    let o = gpu(&["--exhaustive", "--filter", "cvt.nothing"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("error: no cases: nothing to run"), "{}", text(&o).1);
}

/// Run the FEW variants' compact vectors under a fault; the output folder.
fn faulty(name: &str, faults: &str, extra: &[&str]) -> (Output, Scratch) {
    let out = scratch(name);
    let files = compact(&FEW);
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(extra);
    (gpu(&args, faults), out)
}

/// The compact cases of a variant that `ptx-cvt gpu` runs: natural register
/// widths only (the kernels have no others).
fn natural(variant: &str) -> Vec<String> {
    case_lines(&workspace().join(format!("vectors/compact/{variant}.cases")))
        .into_iter()
        .filter(|l| {
            let c = ptx_cvt::parse_case(l).unwrap().unwrap();
            let shape = ptx_cvt::instr::shape(&c.instr);
            c.operands.iter().map(|o| o.width).eq(shape.srcs.iter().copied()) && c.dst_width() == c.instr.dtype.bits()
        })
        .collect()
}

/// A finished variant's recorded file holds all its cases.
fn complete(out: &Path, variant: &str) {
    assert_eq!(case_lines(&out.join(format!("{variant}.cases"))).len(), natural(variant).len(), "{variant}");
}

#[test]
fn module_that_does_not_load() {
    let (o, out) = faulty("load", "load", &[]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("error: loading the PTX module: DriverError(CUDA_ERROR_INVALID_PTX"), "{err}");
    assert!(err.contains("JIT log: ptx-cvt CUDA stand-in JIT: injected fault `load`"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let rows = summary(&out);
    assert_eq!(rows.len(), FEW.len());
    assert!(rows.iter().all(|r| r.3 == "error: the PTX module did not load"), "{rows:?}");
}

/// One kernel the driver refuses costs only its variant.
#[test]
fn one_kernel_that_does_not_load() {
    let (o, out) = faulty("load-one", "load=cvt.rn.f16x2.f32", &[]);
    let (stdout, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("error: cvt.rn.f16x2.f32: loading its kernel: DriverError(CUDA_ERROR_INVALID_PTX"), "{err}");
    assert!(err.contains("error: 1 of 4 variants did not run"), "{err}");
    for r in summary(&out) {
        if r.0 == "cvt.rn.f16x2.f32" {
            assert!(r.3.starts_with("error: loading its kernel"), "{r:?}");
        } else {
            assert_eq!(r.3, "ok", "{r:?}");
            complete(&out, &r.0);
        }
    }
    assert!(stdout.ends_with(" passed, 0 failed\n"), "{stdout}");
}

/// A launch error that leaves the device usable: the other variants run.
#[test]
fn launch_failure() {
    let (o, out) = faulty("launch", "launch=cvt.rni.s8.f32", &[]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("error: cvt.rni.s8.f32: DriverError(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"), "{err}");
    for r in summary(&out) {
        if r.0 == "cvt.rni.s8.f32" {
            assert!(r.3.contains("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"), "{r:?}");
            assert!(!out.join("cvt.rni.s8.f32.cases").exists());
        } else {
            assert_eq!(r.3, "ok", "{r:?}");
            complete(&out, &r.0);
        }
    }
}

/// A kernel fault leaves the device unusable (CUDA's sticky errors): what ran
/// before is kept, the rest is reported as not run.
#[test]
fn device_fault_stops_the_run_and_keeps_what_ran() {
    // Trap the second variant in run order.
    let (o, out) = faulty("order", "", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let order: Vec<String> = summary(&out).into_iter().map(|r| r.0).collect();
    let trapped = &order[1];
    let (o, out) = faulty("trap", &format!("trap={trapped}"), &[]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("error: {trapped}: DriverError(CUDA_ERROR_LAUNCH_FAILED")), "{err}");
    assert!(err.contains("the remaining variants are not run"), "{err}");
    let rows = summary(&out);
    assert_eq!(rows[0].3, "ok", "{rows:?}");
    complete(&out, &rows[0].0);
    assert!(rows[1].3.contains("CUDA_ERROR_LAUNCH_FAILED"), "{rows:?}");
    for r in &rows[2..] {
        assert!(r.3.starts_with("error: not run: the device failed earlier"), "{r:?}");
        assert!(!out.join(format!("{}.cases", r.0)).exists());
    }
}

/// A run killed midway (a time limit, say) leaves every finished variant's
/// results whole, and a summary that says which variants never ran.
#[test]
fn killed_run_keeps_what_ran() {
    let (o, out) = faulty("order-kill", "", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let order: Vec<String> = summary(&out).into_iter().map(|r| r.0).collect();
    let (o, out) = faulty("kill", &format!("abort={}", order[2]), &[]);
    assert_eq!(o.status.code(), Some(137), "{}", text(&o).1);
    let rows = summary(&out);
    for r in &rows[..2] {
        assert_eq!(r.3, "ok", "{rows:?}");
        complete(&out, &r.0);
    }
    for r in &rows[2..] {
        assert_eq!(r.3, "not run", "{rows:?}");
        assert!(!out.join(format!("{}.cases", r.0)).exists());
    }
    assert_eq!(listing(&out).len(), 3, "two variants and summary.txt, no temporary files: {:?}", listing(&out));
}

/// Too little device memory for a whole sweep: the launch is split.
#[test]
fn out_of_memory_splits_the_sweep() {
    let o = gpu(&["--exhaustive", "--filter", "cvt.f32.f16"], "oom=200000");
    let (stdout, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("note: cvt.f32.f16: out of device memory for 65536 cases at once; trying 32768"), "{err}");
    assert!(stdout.ends_with("65536 passed, 0 failed\n"), "{stdout}");
}

/// No memory at all: each variant reports it; the run still ends cleanly.
#[test]
fn out_of_memory_at_any_size() {
    let (o, out) = faulty("oom", "oom=100", &[]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("CUDA_ERROR_OUT_OF_MEMORY") && !err.contains("panicked"), "{err}");
    assert!(summary(&out).iter().all(|r| r.3.contains("CUDA_ERROR_OUT_OF_MEMORY")));
}

/// A wrong answer in one lane (thread) shows as a mismatch with the usual
/// diagnostics, in every variant, multi-operand forms included; the oracle's
/// own `check` agrees that the recorded answers are wrong.
#[test]
fn wrong_answer_in_one_lane() {
    let (o, out) = faulty("lane", "wrong-lane=2", &[]);
    let (stdout, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(stdout.contains("MISMATCH cvt.rn.f16x2.f32 ") && stdout.contains("\n  expected "), "{stdout}");
    let rows = summary(&out);
    assert!(rows.iter().all(|r| r.2 == 1 && r.3 == "mismatch"), "{rows:?}");
    let bad = case_lines(&out.join("mismatches.cases"));
    assert_eq!(bad.len(), FEW.len());
    for (line, variant) in bad.iter().zip(rows.iter().map(|r| &r.0)) {
        let third = &natural(variant)[2];
        assert_eq!(operands(line), operands(third), "lane 2 is the third case of {variant}");
        complete(&out, variant);
    }
    let c = Command::new(bin()).arg("check").arg(out.join("mismatches.cases")).output().unwrap();
    assert_eq!(c.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&c.stdout).ends_with("0 passed, 4 failed\n"));
}

/// A wrong top bit in 8-bit destination registers only: exactly the variant
/// with an 8-bit destination fails.
#[test]
fn wrong_answer_in_one_register_width() {
    let (o, out) = faulty("width", "wrong-width=8", &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).1);
    for r in summary(&out) {
        let w = parse(&r.0).unwrap().dtype.bits();
        assert_eq!((r.3.as_str(), r.2), if w == 8 { ("mismatch", 1) } else { ("ok", 0) }, "{r:?}");
    }
}

#[test]
fn device_older_than_the_target() {
    let o = gpu(&["--exhaustive", "--filter", "cvt.f32.f16"], "cc=8.0");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "(compute capability 8.0, CUDA driver 13.0): kernels for sm_90 cannot run on it; give --target sm_80"
        ),
        "{err}"
    );
    let o = gpu(&["--exhaustive", "--filter", "cvt.f32.f16", "--target", "sm_80"], "cc=8.0");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
}

#[test]
fn device_newer_than_the_target() {
    let o = gpu(&["--exhaustive", "--filter", "cvt.f32.f16"], "cc=10.0");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("compute capability 10.0") && err.contains("running sm_90 kernels"), "{err}");
}

#[test]
fn driver_too_old_for_the_ptx_version() {
    let o = gpu(&["--exhaustive", "--filter", "cvt.f32.f16", "--ptx-version", "8.7"], "ptx-max=8.4");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("CUDA_ERROR_UNSUPPORTED_PTX_VERSION") && err.contains("accepts up to 8.4"), "{err}");
    let o = gpu(&["--exhaustive", "--filter", "cvt.f32.f16", "--ptx-version", "8.4"], "ptx-max=8.4");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    // By default the kernels' .version is the oldest the form needs on sm_90
    // (sm_90 came with PTX ISA 7.8), which this driver loads.
    let o = gpu(&["--exhaustive", "--filter", "cvt.f32.f16"], "ptx-max=8.4");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("sm_90, PTX ISA 7.8"), "{err}");
}

/// The stand-in's own checks fail when they should: a module whose header
/// table disagrees with its bodies, a target or version the device lacks, a
/// bad launch shape, a buffer too small for n. Called directly, as a driver.
#[test]
fn standin_refuses_what_a_driver_would() {
    type Init = unsafe extern "C" fn(u32) -> u32;
    type Retain = unsafe extern "C" fn(*mut usize, i32) -> u32;
    type SetCurrent = unsafe extern "C" fn(usize) -> u32;
    type Load = unsafe extern "C" fn(*mut usize, *const std::ffi::c_char) -> u32;
    type GetFunction = unsafe extern "C" fn(*mut usize, usize, *const std::ffi::c_char) -> u32;
    type Alloc = unsafe extern "C" fn(*mut u64, usize) -> u32;
    type HtoD = unsafe extern "C" fn(u64, *const u32, usize) -> u32;
    type DtoH = unsafe extern "C" fn(*mut u32, u64, usize) -> u32;
    type Launch = unsafe extern "C" fn(
        usize,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
        usize,
        *mut *mut std::ffi::c_void,
        *mut *mut std::ffi::c_void,
    ) -> u32;
    type Sync = unsafe extern "C" fn() -> u32;
    // SAFETY: the stand-in's exports have these signatures (the CUDA driver API's).
    unsafe {
        let lib = libloading::Library::new(standin_dir().join("libcuda.so")).unwrap();
        let init: libloading::Symbol<Init> = lib.get(b"cuInit").unwrap();
        let retain: libloading::Symbol<Retain> = lib.get(b"cuDevicePrimaryCtxRetain").unwrap();
        let set_current: libloading::Symbol<SetCurrent> = lib.get(b"cuCtxSetCurrent").unwrap();
        let load: libloading::Symbol<Load> = lib.get(b"cuModuleLoadData").unwrap();
        let function: libloading::Symbol<GetFunction> = lib.get(b"cuModuleGetFunction").unwrap();
        let alloc: libloading::Symbol<Alloc> = lib.get(b"cuMemAlloc_v2").unwrap();
        let htod: libloading::Symbol<HtoD> = lib.get(b"cuMemcpyHtoD_v2").unwrap();
        let dtoh: libloading::Symbol<DtoH> = lib.get(b"cuMemcpyDtoH_v2").unwrap();
        let launch: libloading::Symbol<Launch> = lib.get(b"cuLaunchKernel").unwrap();
        let sync: libloading::Symbol<Sync> = lib.get(b"cuCtxSynchronize").unwrap();
        assert_eq!(init(0), 0);
        let mut ctx = 0;
        assert_eq!(retain(&mut ctx, 0), 0);
        assert_eq!(set_current(ctx), 0);
        let o = Command::new(bin())
            .args(["ptx", "--target", "sm_90", "--ptx-version", "8.7", "--filter", "cvt.rn.f16x2.f32"])
            .output()
            .unwrap();
        let good = String::from_utf8(o.stdout).unwrap();
        let row = "// kernel cvt_rn_f16x2_f32 cvt.rn.f16x2.f32 32 32 -> 32";
        assert!(good.contains(row), "{good}");
        let mut m = 0;
        let try_load = |text: &str, m: &mut usize| load(m, std::ffi::CString::new(text).unwrap().as_ptr());
        // CUDA_ERROR_INVALID_PTX (218), _NO_BINARY_FOR_GPU (209), _UNSUPPORTED_PTX_VERSION (222).
        assert_eq!(try_load(&good.replace(row, "// kernel cvt_rn_f16x2_f32 cvt.rn.f16x2.f32 32 -> 32"), &mut m), 218);
        assert_eq!(try_load(&good.replace(".target sm_90", ".target sm_100a"), &mut m), 209);
        assert_eq!(try_load(&good.replace(".version 8.7", ".version 9.1"), &mut m), 222);
        assert_eq!(try_load(&good.replace("cvt.rn.f16x2.f32 %d", "cvt.rz.f16x2.f32 %d"), &mut m), 218);
        assert_eq!(try_load(&good, &mut m), 0);
        let mut f = 0;
        assert_eq!(function(&mut f, m, c"nope".as_ptr()), 500);
        assert_eq!(function(&mut f, m, c"cvt_rn_f16x2_f32".as_ptr()), 0);
        // Four lanes; a → high half (vectors/README.md: `cvt.rn.f16x2.f32 3f800000 40000000 => 3c004000`;
        // PTX ISA, cvt: "d = {cvt(a), cvt(b)}" packs a into the upper half).
        let a = [0x3f80_0000u32, 0x4000_0000, 0, 0xbf80_0000];
        let b = [0x4000_0000u32, 0x3f80_0000, 0, 0];
        let (mut da, mut db, mut dout) = (0u64, 0u64, 0u64);
        assert_eq!(alloc(&mut da, 16) | alloc(&mut db, 16) | alloc(&mut dout, 16), 0);
        assert_eq!(htod(da, a.as_ptr(), 16) | htod(db, b.as_ptr(), 16), 0);
        let mut n = 4u64; // read as its declared .u32
        let mut params = [
            &mut da as *mut u64 as *mut std::ffi::c_void,
            &mut db as *mut u64 as *mut _,
            &mut dout as *mut u64 as *mut _,
            &mut n as *mut u64 as *mut _,
        ];
        let null = std::ptr::null_mut();
        assert_eq!(launch(f, 1, 1, 1, 2048, 1, 1, 0, 0, params.as_mut_ptr(), null), 1, "2048 threads a block");
        assert_eq!(launch(f, 1, 1, 1, 4, 1, 1, 0, 0, params.as_mut_ptr(), params.as_mut_ptr()), 1, "extra");
        // Two threads for four cases: lanes 2 and 3 keep what the allocation held.
        assert_eq!(launch(f, 1, 1, 1, 2, 1, 1, 0, 0, params.as_mut_ptr(), null), 0);
        let mut got = [0u32; 4];
        assert_eq!(dtoh(got.as_mut_ptr(), dout, 16), 0);
        assert_eq!(got, [0x3c00_4000, 0x4000_3c00, 0xa5a5_a5a5, 0xa5a5_a5a5]);
        assert_eq!(launch(f, 1, 1, 1, 4, 1, 1, 0, 0, params.as_mut_ptr(), null), 0);
        assert_eq!(dtoh(got.as_mut_ptr(), dout, 16), 0);
        assert_eq!(got, [0x3c00_4000, 0x4000_3c00, 0, 0xbc00_0000]);
        // n = 5 does not fit the 4-element buffers: an illegal address (700), sticky.
        std::ptr::write_volatile(&mut n, 5);
        assert_eq!(launch(f, 1, 1, 1, 8, 1, 1, 0, 0, params.as_mut_ptr(), null), 700);
        assert_eq!(sync(), 700);
    }
}

/// scripts/gpu-check.sh end to end, clean and with a wrong lane.
#[test]
fn gpu_check_script() {
    for (faults, code) in [("", 0), ("wrong-lane=0", 1)] {
        let out = scratch(&format!("check-{code}"));
        let o = Command::new("bash")
            .arg(workspace().join("scripts/gpu-check.sh"))
            .arg(&*out)
            .env("PTX_CVT", bin())
            .env("PTX_CVT_GPU_FILTER", "cvt.f32.f16")
            .env("LD_LIBRARY_PATH", standin_dir())
            .env("PTX_CVT_STANDIN_FAULTS", faults)
            .output()
            .unwrap();
        let (stdout, err) = text(&o);
        assert_eq!(o.status.code(), Some(code), "{stdout}{err}");
        let md = std::fs::read_to_string(out.join("SUMMARY.md")).unwrap();
        if code == 0 {
            assert!(md.contains("89 passed, 0 failed") && md.contains("65536 passed, 0 failed"), "{md}");
            assert_eq!(md.matches("(none)").count(), 2, "{md}");
        } else {
            assert!(md.contains("88 passed, 1 failed") && md.contains("65535 passed, 1 failed"), "{md}");
            assert!(
                md.contains("cvt.f32.f16\t89\t1\tmismatch") && md.contains("cvt.f32.f16\t65536\t1\tmismatch"),
                "{md}"
            );
        }
        assert_eq!(case_lines(&out.join("vectors/cvt.f32.f16.cases")).len(), natural("cvt.f32.f16").len());
        // --keep open: f16→f32 answers are all pinned, so only a mismatch is kept.
        assert_eq!(case_lines(&out.join("exhaustive/cvt.f32.f16.cases")).len(), code as usize);
    }
}

/// Run scripts/device-run.sh on the stand-in, narrowed to one variant.
fn device_run(name: &str, faults: &str) -> (Output, Scratch) {
    let out = scratch(name);
    let o = Command::new("bash")
        .arg(workspace().join("scripts/device-run.sh"))
        .env("OUT", &*out)
        .env("PTX_CVT", bin())
        .env("PTX_CVT_DEVICE_FILTER", "cvt.f32.f16")
        .env("LD_LIBRARY_PATH", standin_dir())
        .env("PTX_CVT_STANDIN_FAULTS", faults)
        .output()
        .unwrap();
    (o, out)
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn device_script() {
    let (o, out) = device_run("device", "");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        listing(&out),
        ["RESULTS.md", "device-run.log", "exhaustive.tar.gz", "open.tar.gz", "smoke.tar.gz", "vectors.tar.gz"]
    );
    let md = std::fs::read_to_string(out.join("RESULTS.md")).unwrap();
    for step in ["## smoke: exit 0", "## vectors: exit 0", "## exhaustive: exit 0", "## open: exit 0"] {
        assert!(md.contains(step), "{md}");
    }
    let t = Command::new("tar").arg("-tzf").arg(out.join("vectors.tar.gz")).output().unwrap();
    let names = String::from_utf8_lossy(&t.stdout);
    assert!(names.contains("vectors/summary.txt") && names.contains("vectors/cvt.f32.f16.cases"), "{names}");
    assert!(names.contains("vectors.log"), "{names}");

    // A driver whose JIT stops at PTX ISA 8.4: the smoke test finds a version that loads.
    let (o, _out) = device_run("device-ptx", "ptx-max=8.4");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("trying 8.4") && err.contains("using PTX ISA 8.4"), "{err}");

    // A smoke test that fails stops the run: nothing else is spent.
    let (o, out) = device_run("device-fail", "load");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("smoke test failed: nothing else runs"), "{err}");
    assert_eq!(listing(&out), ["RESULTS.md", "device-run.log", "smoke.tar.gz"]);
}

/// Issue 11: the CUDA runner is one more implementation under test, so
/// `check --device` runs case files on the device with the usual triage
/// (`--target-gpu`, the old spelling, still works: issue 34).
#[test]
fn check_runs_vectors_on_the_gpu_as_an_implementation() {
    let check = |args: &[&str], faults: &str| {
        Command::new(bin())
            .arg("check")
            .args(args)
            .env("LD_LIBRARY_PATH", standin_dir())
            .env("PTX_CVT_STANDIN_FAULTS", faults)
            .output()
            .expect("run ptx-cvt check")
    };
    let files = compact(&["cvt.rn.f16.f32", "cvt.s16.s8", "cvt.rn.f16x2.f32"]);
    let mut args = vec!["--device", "0"];
    args.extend(files.iter().map(String::as_str));
    let o = check(&args, "");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let mut old = vec!["--target-gpu", "0"];
    old.extend(files.iter().map(String::as_str));
    assert_eq!(text(&check(&old, "")).0, out, "the old spelling runs the same");
    // Wider registers than the types are declined (the kernels use natural widths).
    assert!(out.contains("the GPU runner uses natural register widths only"), "{out}");
    assert!(out.contains("variants: 3 passed, 0 failed, 0 unsupported"), "{out}");
    // A wrong answer from the device is a mismatch with the usual report.
    let o = check(&args, "wrong-lane=3");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("MISMATCH") && out.contains("bug class(es)"), "{out}");
    // A device fault is an adapter error (exit 2), reported with the variant.
    let o = check(&args, "trap=cvt.s16.s8");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cvt.s16.s8"), "{err}");
}

/// The MISMATCH reports in a run's output, each without the lines that
/// only `check` adds (a `FILE:LINE: ` prefix, the bug class).
fn mismatch_reports(stdout: &str) -> Vec<String> {
    let mut reports: Vec<String> = Vec::new();
    let mut open = false;
    for line in stdout.lines() {
        if let Some(at) = line.find("MISMATCH ") {
            reports.push(line[at..].to_string());
            open = true;
        } else if open && line.starts_with("  ") {
            if !line.starts_with("  bug ") {
                let r = reports.last_mut().expect("a report is open");
                r.push('\n');
                r.push_str(line);
            }
        } else {
            open = false;
        }
    }
    reports
}

/// Issue 34: `gpu` and `check --device` are one run loop with one judge:
/// on the same cases and the same wrong lane they give the same verdicts
/// and the same mismatch reports.
#[test]
fn gpu_and_check_device_agree() {
    let files = compact(&FEW);
    let run = |cmd: &str, extra: &[&str]| {
        let o = Command::new(bin())
            .arg(cmd)
            .args(extra)
            .args(&files)
            .env("LD_LIBRARY_PATH", standin_dir())
            .env("PTX_CVT_STANDIN_FAULTS", "wrong-lane=2")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{cmd}: {}", text(&o).1);
        text(&o).0
    };
    let gpu = run("gpu", &[]);
    let check = run("check", &["--device", "0", "--all"]);
    let (mut g, mut c) = (mismatch_reports(&gpu), mismatch_reports(&check));
    g.sort();
    c.sort();
    assert_eq!(g.len(), FEW.len(), "{gpu}");
    assert_eq!(g, c);
    let totals = |s: &str| s.lines().last().unwrap_or("").to_string();
    assert_eq!(totals(&gpu), totals(&check));
    assert!(totals(&gpu).ends_with(" passed, 4 failed"), "{gpu}");
}
