//! `--target-ptx`, the module protocol, end to end: on the stand-in CUDA
//! driver through examples/cuda-module-driver.py (the README's front-door
//! example, compared with its printed output; check, sweep and fuzz), and with small shell drivers
//! for the batch folder's contents and every way a driver can fail. Also
//! `--adapter-log` and `-v`, and decline reasons grouped without their numbers.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ptx_cvt_tests::{bin, python3, standin_dir, workspace};

/// A fresh folder for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("ptx-cvt-module-protocol-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const DRIVER: &str = "python3 examples/cuda-module-driver.py";

/// `ptx-cvt check ARGS` in the workspace, on the stand-in with these faults.
fn check(args: &[&str], faults: &str) -> Output {
    Command::new(bin())
        .arg("check")
        .args(args)
        .current_dir(workspace())
        .env("LD_LIBRARY_PATH", standin_dir())
        .env("PTX_CVT_STANDIN_FAULTS", faults)
        .output()
        .expect("run ptx-cvt check")
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn json_summary(o: &Output) -> serde_json::Value {
    let (out, err) = text(o);
    let line = out.lines().find(|l| l.contains("\"per_variant\"")).unwrap_or_else(|| panic!("no summary:\n{out}{err}"));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["summary"].clone()
}

/// The README block between the front-door markers runs as printed.
#[test]
fn readme_front_door_example_works_as_printed() {
    if !python3() {
        return;
    }
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let block = readme
        .split("<!-- front door:")
        .nth(1)
        .and_then(|b| b.split("<!-- end front door -->").next())
        .expect("README has the front-door example");
    let body = block.split("```console\n").nth(1).and_then(|b| b.split("\n```").next()).expect("a console block");
    let commands: Vec<&str> = body.lines().filter_map(|l| l.strip_prefix("$ ")).collect();
    assert_eq!(commands.len(), 3, "{body}");
    // The first two build the stand-in and link it as /tmp/standin/libcuda.so: standin_dir() does that.
    assert!(commands[0] == "cargo build -p ptx-cvt-cuda-standin" && commands[1].contains("/tmp/standin/libcuda.so"));
    let printed: Vec<&str> = body.lines().skip_while(|l| l.starts_with("$ ")).collect();
    let cmd = commands[2]
        .replace("LD_LIBRARY_PATH=/tmp/standin", &format!("LD_LIBRARY_PATH={}", standin_dir().display()))
        .replace(" ptx-cvt check ", &format!(" {} check ", bin().display()));
    let o = Command::new("sh").arg("-c").arg(&cmd).current_dir(workspace()).output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{cmd}\n{out}{err}");
    assert_eq!(out.lines().collect::<Vec<_>>(), printed, "the README's output differs; stderr:\n{err}");
}

/// The README's emulator driver, as printed, on an emulator API that runs
/// on the stand-in (tests/adapters/myemu.py): right answers pass, a wrong
/// lane is found, a module the emulator cannot load declines its variant
/// with the emulator's message.
#[test]
fn readme_emulator_driver_works_as_printed() {
    if !python3() {
        return;
    }
    let readme = std::fs::read_to_string(workspace().join("docs/checking.md")).unwrap();
    let driver = readme
        .split("`load_module(text)` and `launch(name, grid, block, args)`")
        .nth(1)
        .and_then(|t| t.split("```python\n").nth(1))
        .and_then(|t| t.split("\n```").next())
        .expect("docs/checking.md has the emulator driver");
    assert!(driver.lines().count() <= 40, "a few dozen lines:\n{driver}");
    let dir = Scratch::new("readme-driver");
    std::fs::write(dir.0.join("driver.py"), format!("{driver}\n")).unwrap();
    let cmd = format!("python3 {}", dir.0.join("driver.py").display());
    let files = [
        "vectors/compact/cvt.rn.f16.f32.cases",
        "vectors/compact/cvt.rz.f16.f32.cases",
        "vectors/compact/cvt.s16.s8.cases",
    ];
    let run = |faults: &str| {
        Command::new(bin())
            .args(["check", "--json", "--target-ptx", &cmd])
            .args(files)
            .current_dir(workspace())
            .env("LD_LIBRARY_PATH", standin_dir())
            .env("PYTHONPATH", workspace().join("tests/adapters"))
            .env("PTX_CVT_STANDIN_FAULTS", faults)
            .output()
            .unwrap()
    };
    let o = run("");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let s = json_summary(&o);
    assert_eq!(s["variants"]["passed"], 3, "{s}");
    assert_eq!(s["cases"]["unsupported"], 0, "{s}");

    let o = run("wrong-lane=1,load=cvt.rz.f16.f32");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).1);
    let s = json_summary(&o);
    assert_eq!(s["variants"]["failed"], 2, "{s}");
    assert_eq!(s["variants"]["unsupported"], 1, "{s}");
    assert_eq!(s["declines"][0]["reason"], "myemu cannot load the module: CUDA error #", "{s}");
}

/// Every case of a few variants, one to five operands, natural and wider
/// registers, through modules on the stand-in (a compute capability 10.0
/// device, so that the sm_100a module runs too): every answer right.
#[test]
fn check_runs_modules_on_the_stand_in() {
    if !python3() {
        return;
    }
    let files: Vec<String> =
        ["cvt.rn.f16.f32", "cvt.s16.s8", "cvt.rn.f16x2.f32", "cvt.rn.bf16.s8", "cvt.rs.satfinite.e4m3x4.f32"]
            .iter()
            .map(|n| format!("vectors/compact/{n}.cases"))
            .collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let o = check(&[&["--json", "--target-ptx", DRIVER][..], &files].concat(), "cc=10.0");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let s = json_summary(&o);
    let cases = &s["cases"];
    assert!(cases["passed"].as_u64().unwrap() > 2000, "{cases}");
    for k in ["failed", "unsupported", "crashed", "not_run"] {
        assert_eq!(cases[k], 0, "{k}: {cases}");
    }
    // Wider registers ran as kernels of their own: cvt.s16.s8's file has them.
    let wide = std::fs::read_to_string(workspace().join("vectors/compact/cvt.s16.s8.cases")).unwrap();
    assert!(wide.lines().any(|l| l.starts_with("cvt.s16.s8 ") && l.split_whitespace().nth(1).unwrap().len() == 8));

    // A wrong lane in every launch is found, in every variant.
    let o = check(&[&["--json", "--target-ptx", DRIVER][..], &files].concat(), "cc=10.0,wrong-lane=2");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).1);
    let s = json_summary(&o);
    let failed: Vec<&str> = s["per_variant"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["status"] == "failed")
        .map(|v| v["variant"].as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 5, "{failed:?}");
}

/// A module the JIT refuses declines its batch with the JIT's reason (every
/// kernel of the variant here, natural and wider registers); a driver killed
/// at one kernel's launch crashes one case, and with --restart the run goes
/// on with that kernel declined and the variant's other kernels run.
#[test]
fn refused_modules_decline_and_a_dying_driver_costs_one_case() {
    if !python3() {
        return;
    }
    let files = ["vectors/compact/cvt.rn.f16.f32.cases", "vectors/compact/cvt.rz.f16.f32.cases"];
    let o = check(&[&["--json", "--allow-empty", "--target-ptx", DRIVER][..], &files].concat(), "load=cvt.rn.f16.f32");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let s = json_summary(&o);
    let d = &s["declines"][0];
    assert!(d["reason"].as_str().unwrap().contains("stand-in JIT: injected fault `load=cvt_rn_f16_f32"), "{d}");
    assert_eq!(s["variants"]["unsupported"], 1, "{s}");
    assert_eq!(s["variants"]["passed"], 1, "{s}");

    // Killed at the launch, without --restart: one crash, the rest not run.
    let o = check(&[&["--json", "--target-ptx", DRIVER][..], &files].concat(), "abort=cvt_rn_f16_f32");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let said = format!("{out}{err}");
    assert!(said.contains("the driver exited (exit status 137) before answering the batch"), "{said}");
    assert!(said.contains("cuda-standin: launch cvt_rn_f16_f32: injected fault `abort`"), "stderr quoted: {said}");
    let s = json_summary(&o);
    assert_eq!(s["cases"]["crashed"], 1, "{s}");
    assert!(s["cases"]["not_run"].as_u64().unwrap() > 0, "{s}");

    // With --restart: one crash, that kernel declined from then on, the other variant passes.
    let o = check(&[&["--json", "--restart", "--target-ptx", DRIVER][..], &files].concat(), "abort=cvt_rn_f16_f32");
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let s = json_summary(&o);
    assert_eq!(s["cases"]["crashed"], 1, "{s}");
    assert_eq!(s["cases"]["not_run"], 0, "{s}");
    let reasons = s["declines"].to_string();
    assert!(reasons.contains("the driver failed on an earlier batch of kernel cvt_rn_f16_f32"), "{reasons}");
    let rz = s["per_variant"].as_array().unwrap().iter().find(|v| v["variant"] == "cvt.rz.f16.f32").unwrap();
    assert_eq!(rz["status"], "passed", "{rz}");
}

/// An emulator that reads one register per `.reg` line (the stand-in does)
/// fed a module with a declaration list: the parse failure is reported for
/// the variant, with the emulator's reason, and the run goes on.
#[test]
fn a_parse_failure_is_reported_per_variant() {
    if !python3() {
        return;
    }
    let driver = format!(
        "while read d; do sed -i 's/^\t.reg .b32 %r0;$/\t.reg .b32 %r0, %r9;/' \"$d/module.ptx\"; \
         echo \"$d\"; done | {DRIVER}"
    );
    let files = ["vectors/compact/cvt.rn.f16.f32.cases", "vectors/compact/cvt.rz.f16.f32.cases"];
    let o = check(&[&["--json", "--allow-empty", "--target-ptx", &driver][..], &files].concat(), "");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let s = json_summary(&o);
    assert_eq!(s["variants"]["unsupported"], 2, "{s}");
    let reason = s["declines"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("`.reg .b32 %r0, %r9`: one register per .reg line"), "{reason}");
}

/// A driver that keeps each folder it gets: the module, the manifest and
/// the input buffers are what the protocol says, for the cases of a file.
#[test]
fn the_batch_folder_holds_module_manifest_and_buffers() {
    let dir = Scratch::new("folder");
    let keep = dir.0.join("kept");
    std::fs::create_dir(&keep).unwrap();
    let cases = dir.0.join("t.cases");
    std::fs::write(
        &cases,
        "cvt.rn.f16x2.f32 3f800000 40000000 => 3c004000\n\
         cvt.rn.f16x2.f32 00000000 bf800000 => 0000bc00\n\
         cvt.s16.s8 139231c2 => ffffffc2\n",
    )
    .unwrap();
    let driver =
        format!("n=0; while read d; do n=$((n+1)); cp -r \"$d\" {}/$n; echo \"error: kept $n\"; done", keep.display());
    let child = Command::new(bin())
        .args(["check", "--json", "--allow-empty", "--target-ptx", &driver])
        .arg(&cases)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let manifest = String::from_utf8(read(&keep.join("1/manifest.txt"))).unwrap();
    assert_eq!(
        manifest,
        "ptx-cvt module batch v1\nmodule module.ptx\nkernel cvt_rn_f16x2_f32\ninstruction cvt.rn.f16x2.f32\n\
         target sm_80\nversion 7.0\ncount 2\ninput in_a 32 in_a.bin\ninput in_b 32 in_b.bin\n\
         output out 32 out.bin\nscalar n u32 2\n"
    );
    assert_eq!(read(&keep.join("1/in_a.bin")), [0x00, 0x00, 0x80, 0x3f, 0, 0, 0, 0]);
    assert_eq!(read(&keep.join("1/in_b.bin")), [0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x80, 0xbf]);
    let module = String::from_utf8(read(&keep.join("1/module.ptx"))).unwrap();
    assert!(module.contains("\n.version 7.0\n.target sm_80\n") && module.contains(".visible .entry cvt_rn_f16x2_f32("));
    // The 32-bit registers of cvt.s16.s8: a kernel of its own, named with its widths.
    let manifest = String::from_utf8(read(&keep.join("2/manifest.txt"))).unwrap();
    assert!(manifest.contains("kernel cvt_s16_s8__32_32\n") && manifest.contains("input in_a 32 in_a.bin\n"));
    assert_eq!(read(&keep.join("2/in_a.bin")), [0xc2, 0x31, 0x92, 0x13]);
    assert!(!keep.join("3").exists());
    // Both batches declined with the driver's reason, numbers grouped.
    let s = json_summary(&o);
    assert_eq!(s["declines"].as_array().unwrap().len(), 1, "{s}");
    assert_eq!(s["declines"][0]["reason"], "kept #", "{s}");
    assert_eq!(s["declines"][0]["example"], "kept 1", "{s}");
    // The scratch folder is gone.
    let prefix = format!("ptx-cvt-modules-{pid}-");
    let left: Vec<String> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Each way a driver can fail is an adapter error naming the batch, the
/// driver is killed, and its stderr is quoted.
#[test]
fn driver_failures_are_reported() {
    let dir = Scratch::new("fail");
    let cases = dir.0.join("t.cases");
    std::fs::write(&cases, "cvt.rn.f16.f32 3f800000 => 3c00\ncvt.rn.f16.f32 40000000 => 4000\n").unwrap();
    for (driver, says) in [
        (
            "while read d; do echo hello; done",
            "the driver answered `hello` to the batch of 2 case(s) of cvt.rn.f16.f32",
        ),
        ("while read d; do : > \"$d/out.bin\"; echo ok; done", "out.bin holds 0 bytes, not 2 × 2"),
        ("while read d; do echo ok; done", "out.bin cannot be read"),
        ("read d; echo 'stuck in the parser' >&2; sleep 30", "no answer within 1 s"),
        ("read d; echo 'panicked at src/parse.rs:12' >&2; exit 101", "the driver exited (exit status 101)"),
        ("exit 3", "the driver exited (exit status 3)"),
    ] {
        let o =
            Command::new(bin()).args(["check", "--timeout", "1", "--target-ptx", driver]).arg(&cases).output().unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{driver}: {out}{err}");
        assert!(err.contains(says), "{driver}: wanted {says:?} in\n{err}");
        if driver.contains(">&2") {
            assert!(err.contains("last stderr lines:"), "{driver}: {err}");
        }
    }
}

/// `--adapter-log FILE` keeps the driver's stderr, `-v` shows it live;
/// declines that differ only in offsets are one reason.
#[test]
fn adapter_stderr_is_kept_and_shown() {
    let dir = Scratch::new("log");
    let cases = dir.0.join("t.cases");
    std::fs::write(&cases, "cvt.rn.f16.f32 3f800000 => 3c00\ncvt.rz.f16.f32 40000000 => 4000\n").unwrap();
    let log = dir.0.join("adapter.log");
    let driver = "n=0; while read d; do n=$((n+7)); echo \"parser: unexpected token at byte $n\" >&2; \
                  echo \"error: cannot parse module.ptx at byte $n\"; done";
    for verbose in [false, true] {
        let mut args = vec!["check", "--allow-empty", "--adapter-log", log.to_str().unwrap(), "--target-ptx", driver];
        if verbose {
            args.push("-v");
        }
        let o = Command::new(bin()).args(&args).arg(&cases).output().unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}{err}");
        assert!(
            out.contains("2 case(s) of   2 variant(s): cannot parse module.ptx at byte #")
                && out.contains("first as given: cannot parse module.ptx at byte 7"),
            "{out}"
        );
        assert_eq!(err.contains("adapter: parser: unexpected token at byte 14"), verbose, "{err}");
    }
    let kept = std::fs::read_to_string(&log).unwrap();
    assert_eq!(kept.matches("parser: unexpected token at byte 7\n").count(), 2, "{kept}");
    assert_eq!(kept.lines().count(), 4, "{kept}");
    // An unwritable log is an error before anything runs.
    let o = Command::new(bin())
        .args(["check", "--adapter-log", "/nonexistent/dir/log", "--target-ptx", "cat"])
        .arg(&cases)
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--adapter-log /nonexistent/dir/log"), "{err}");
}

/// `sweep` and `fuzz` drive modules the same way: every input of a 16-bit
/// variant, one flipped lane per launch found; a fuzz run with wider registers.
#[test]
fn sweep_and_fuzz_run_modules() {
    if !python3() {
        return;
    }
    let run = |args: &[&str], faults: &str| {
        Command::new(bin())
            .args(args)
            .current_dir(workspace())
            .env("LD_LIBRARY_PATH", standin_dir())
            .env("PTX_CVT_STANDIN_FAULTS", faults)
            .output()
            .unwrap()
    };
    let o = run(&["sweep", "--target-ptx", DRIVER, "cvt.f32.f16"], "");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("65536 input(s) compared, 0 mismatch(es), 0 declined"), "{out}");
    // --batch 1024: 64 launches, thread 5 of each wrong.
    let o = run(&["sweep", "--target-ptx", DRIVER, "cvt.f32.f16"], "wrong-lane=5");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("65536 input(s) compared, 64 mismatch(es)"), "{out}");

    let o = run(&["fuzz", "--target-ptx", DRIVER, "--filter", "cvt.s16.s8", "--cases", "3000", "--seed", "1"], "");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("3000 passed, 0 failed"), "{out}");
    let o = run(
        &["fuzz", "--target-ptx", DRIVER, "--filter", "cvt.s16.s8", "--cases", "3000", "--seed", "1"],
        "wrong-width=32",
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("the upper register bits are wrong"), "32-bit registers ran: {out}");
}
