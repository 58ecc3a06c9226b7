//! The command-line contract of `ptx-cvt` (README "Command-line contract"
//! and "JSON output"), each defect of issue 11's second list run with the
//! command that showed it: write errors exit 2 (a closed pipe does not),
//! output files are only regular files written whole, numeric options are
//! bounded, empty input is an error, a byte-order mark is skipped, `gen`
//! keeps its folder equal to its MANIFEST, `gpu` looks for a driver first,
//! one option vocabulary, and `--json` output that parses.
//!
//! The binary is found as in tests/cli.rs (`ptx_cvt_tests::bin`). The
//! expected results are the case lines of vectors/known-answers/sm90.cases
//! (cvt.rn.f16.f32 3f800000 => 3c00: 1.0 is exact in f16, PTX ISA §9.7.9.21
//! with IEEE 754 binary16) and of vectors/README.md.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ptx_cvt_tests::{bin, workspace};
use serde_json::Value;

struct Out {
    what: String,
    code: Option<i32>,
    out: String,
    err: String,
}

impl Out {
    fn code(&self, want: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(want),
            "{}: exit status\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            clip(&self.out),
            self.err
        );
        assert!(!self.err.contains("panicked"), "{}: panic\n{}", self.what, self.err);
        self
    }
    fn err_has(&self, needle: &str) -> &Self {
        assert!(self.err.contains(needle), "{}: stderr lacks {needle:?}\n--- stderr\n{}", self.what, self.err);
        self
    }
    fn out_has(&self, needle: &str) -> &Self {
        assert!(self.out.contains(needle), "{}: stdout lacks {needle:?}\n--- stdout\n{}", self.what, clip(&self.out));
        self
    }
}

fn clip(s: &str) -> String {
    s.chars().take(4000).collect()
}

/// Run `ptx-cvt ARGS` in the workspace with `stdin`, stdout to `stdout` (or captured).
fn run_with(args: &[&str], stdin: &str, stdout: Option<Stdio>) -> Out {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(workspace())
        .stdin(Stdio::piped())
        .stdout(stdout.unwrap_or(Stdio::piped()))
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ptx-cvt");
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Out {
        what: format!("ptx-cvt {}", args.join(" ")),
        code: o.status.code(),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn run(args: &[&str]) -> Out {
    run_with(args, "", None)
}

fn run_stdin(args: &[&str], stdin: &str) -> Out {
    run_with(args, stdin, None)
}

/// A scratch folder for one test, removed when dropped.
struct Scratch(PathBuf);
impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ptx-cvt-contract-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }
    /// Names in the folder, sorted.
    fn names(&self, sub: &str) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(self.0.join(sub))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn dev_full() -> Option<fs::File> {
    let f = fs::OpenOptions::new().write(true).open("/dev/full").ok();
    if f.is_none() {
        println!("SKIPPED: no /dev/full on this system");
    }
    f
}

const KNOWN: &str = "vectors/known-answers/sm90.cases";
const ONE_CASE: &str = "cvt.rn.f16.f32 3f800000 => 3c00\n";

// ---------------------------------------------------------------------------
// 1. Write errors
// ---------------------------------------------------------------------------

/// `ptx-cvt list > /dev/full` and the others of the issue exited 0.
#[test]
fn write_errors_on_stdout_exit_2() {
    let commands: &[&[&str]] = &[
        &["list"],
        &["eval", "cvt.rn.f16.f32", "3f800000"],
        &["explain", "cvt.rn.f16.f32", "3f800000"],
        &["ptx", "--target", "sm_90", "--filter", "cvt.rn.f16.f32"],
        &["check", KNOWN],
        &["sweep", "cvt.f32.f16"],
        &["gen", "--filter", "cvt.rn.f16.f32", "--out", "-"],
        &["--help"],
        &["sweep", "--help"],
    ];
    for args in commands {
        let Some(full) = dev_full() else { return };
        run_with(args, "", Some(Stdio::from(full))).code(2).err_has("cannot write to stdout");
    }
    // The eval stream too.
    let Some(full) = dev_full() else { return };
    run_with(&["eval"], &ONE_CASE.repeat(10), Some(Stdio::from(full))).code(2).err_has("cannot write to stdout");
}

/// A failing stderr cannot carry the message, but the status is still 2, not a panic's 101.
#[test]
fn write_errors_on_stderr_exit_2() {
    let Some(full) = dev_full() else { return };
    let st = Command::new(bin()).args(["eval", "bogus", "00"]).stderr(Stdio::from(full)).status().unwrap();
    assert_eq!(st.code(), Some(2));
}

/// `ptx-cvt list | head -1`: a closed pipe ends the output quietly.
#[test]
fn closed_pipe_ends_quietly() {
    let mut child = Command::new(bin()).args(["list"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap(); // then dropped: the pipe closes
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "stderr: {err}");
}

/// `sweep --out` left a partial file behind when the implementation failed.
#[test]
fn sweep_out_leaves_nothing_on_error() {
    let s = Scratch::new("sweep-partial");
    let out = s.path("out.cases");
    run(&["sweep", "cvt.f32.f16", "--target-cmd", "exit 3", "--out", &out]).code(2);
    assert!(s.names("").is_empty(), "left behind: {:?}", s.names(""));
    // And a whole file when it succeeds (-o is --out).
    run(&["sweep", "cvt.f32.f16", "-o", &out]).code(0);
    assert_eq!(fs::read_to_string(&out).unwrap().lines().count(), 1 << 16);
    assert_eq!(s.names(""), ["out.cases"]);
    // `-o -`: the case lines on stdout, the report on stderr.
    let r = run(&["sweep", "cvt.f32.f16", "-o", "-"]);
    r.code(0).err_has("digest ");
    assert_eq!(r.out, fs::read_to_string(&out).unwrap());
}

// ---------------------------------------------------------------------------
// 2. Output files are regular files
// ---------------------------------------------------------------------------

/// `ptx --out /dev/full` (as root) turned the device into a regular file; a
/// symlink was replaced, a FIFO too.
#[cfg(unix)]
#[test]
fn output_paths_that_are_not_regular_files_are_refused() {
    use std::os::unix::fs::FileTypeExt;
    let s = Scratch::new("special");
    std::os::unix::fs::symlink(s.0.join("elsewhere"), s.0.join("link")).unwrap();
    fs::create_dir(s.0.join("dir")).unwrap();
    let fifo = Command::new("mkfifo").arg(s.path("fifo")).status().is_ok_and(|st| st.success());
    let mut paths = vec![(s.path("link"), "a symbolic link"), (s.path("dir"), "a directory")];
    if fifo {
        paths.push((s.path("fifo"), "a FIFO"));
    }
    // A character device: as root (who could replace /dev/full), a copy of
    // /dev/null's node made in the scratch folder; otherwise /dev/full itself.
    let dev = if Command::new("mknod").arg(s.path("dev")).args(["c", "1", "3"]).status().is_ok_and(|st| st.success()) {
        Some(s.path("dev"))
    } else {
        Path::new("/dev/full").exists().then(|| "/dev/full".to_string())
    };
    if let Some(d) = &dev {
        paths.push((d.clone(), "a character device"));
    }
    for (p, kind) in &paths {
        run(&["ptx", "--target", "sm_90", "--filter", "cvt.rn.f16.f32", "--out", p]).code(2).err_has(kind);
        run(&["sweep", "cvt.f32.f16", "--out", p]).code(2).err_has(kind);
    }
    if let Some(d) = &dev {
        assert!(fs::symlink_metadata(d).unwrap().file_type().is_char_device(), "{d} was replaced");
    }
    assert!(fs::symlink_metadata(s.0.join("link")).unwrap().file_type().is_symlink());
    assert!(!s.0.join("elsewhere").exists());
    // gen refuses a symlink where a generated file goes.
    let g = s.0.join("gen");
    fs::create_dir(&g).unwrap();
    std::os::unix::fs::symlink(s.0.join("elsewhere"), g.join("cvt.rn.f16.f32.cases")).unwrap();
    run(&["gen", "--filter", "cvt.rn.f16.f32", "--out", g.to_str().unwrap()]).code(2).err_has("a symbolic link");
    // `-` is stdout for ptx.
    run(&["ptx", "--target", "sm_90", "--filter", "cvt.rn.f16.f32", "-o", "-"])
        .code(0)
        .out_has(".entry cvt_rn_f16_f32(");
}

// ---------------------------------------------------------------------------
// 3. Numeric options
// ---------------------------------------------------------------------------

/// These panicked ("cannot convert float seconds to Duration") or were accepted.
#[test]
fn durations_and_jobs_are_bounded() {
    for args in [
        &["fuzz", "--target-cmd", "cat", "--seconds", "1e20"][..],
        &["fuzz", "--target-cmd", "cat", "--timeout", "1e20"],
        &["sweep", "cvt.f32.f16", "--target-cmd", "cat", "--timeout", "inf"],
        &["sweep", "cvt.f32.f16", "--target-cmd", "cat", "--timeout", "nan"],
        &["sweep", "cvt.f32.f16", "--target-cmd", "cat", "--timeout", "0"],
        &["fuzz", "--target-cmd", "cat", "--timeout=-1"],
    ] {
        run(args).code(2).err_has("seconds must be a finite number");
    }
    // `sweep cvt.f32.f16 --jobs 10000` and `gen --jobs 100000` made thousands of threads.
    for args in [
        &["sweep", "cvt.f32.f16", "--jobs", "10000"][..],
        &["gen", "--jobs", "100000", "--out", "-"],
        &["gen", "--jobs", "0", "--out", "-"],
    ] {
        run(args).code(2).err_has("worker threads must be a whole number from 1 to");
    }
}

// ---------------------------------------------------------------------------
// 4. Empty input
// ---------------------------------------------------------------------------

/// `coverage --fail-on-missing` on an empty file passed.
#[test]
fn empty_input_is_an_error_unless_allowed() {
    let s = Scratch::new("empty");
    let empty = s.path("empty.cases");
    fs::write(&empty, "# only a comment\n\n").unwrap();
    run(&["coverage", "--fail-on-missing", &empty]).code(2).err_has("no cases");
    run(&["coverage", "--fail-on-missing", "--allow-empty", &empty]).code(0);
    run_stdin(&["coverage", "-"], "").code(2).err_has("no cases");
    run(&["sweep", "cvt.f32.f16", "--against", &empty]).code(2).err_has("no cases");
    run(&["sweep", "cvt.f32.f16", "--against", &empty, "--allow-empty"]).code(0);
}

/// `coverage DIR` reads the directory's `*.cases` files, as `check DIR` does
/// (it failed with "Is a directory"); a directory without any is exit 2.
#[test]
fn coverage_takes_a_directory_like_check() {
    let s = Scratch::new("coverage-dir");
    fs::write(s.path("a.cases"), ONE_CASE).unwrap();
    fs::write(s.path("notes.txt"), "not a case file\n").unwrap();
    let dir = s.path("");
    run(&["coverage", "--no-reachable", &dir]).code(0).out_has("normal/normal/exact");
    run(&["check", &dir]).code(0).out_has("1 passed, 0 failed");
    let empty = Scratch::new("coverage-empty");
    run(&["coverage", &empty.path("")]).code(2).err_has("holds no *.cases files");
}

// ---------------------------------------------------------------------------
// 5. Byte-order mark
// ---------------------------------------------------------------------------

/// A file starting with a UTF-8 BOM was rejected with an invisible character in the message.
#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let s = Scratch::new("bom");
    let f = s.path("bom.cases");
    fs::write(&f, format!("\u{feff}{ONE_CASE}cvt.rni.s8.f32 42fe0000 => 7f\n")).unwrap();
    run(&["check", &f]).code(0).out_has("2 passed, 0 failed");
    run(&["coverage", "--no-reachable", &f]).code(0);
    fs::write(s.path("one.cases"), format!("\u{feff}{ONE_CASE}")).unwrap();
    run(&["sweep", "cvt.rn.f16.f32", "--range", "0x3f800000..0x3f800001", "--against", &s.path("one.cases")])
        .code(0)
        .out_has("1 case(s) checked, 0 mismatch(es)");
    let e = run_stdin(&["eval"], "\u{feff}cvt.rn.f16.f32 3f800000\n");
    e.code(0);
    assert_eq!(e.out, "cvt.rn.f16.f32 3f800000 => 3c00\n");
}

// ---------------------------------------------------------------------------
// 6. gen's output folder
// ---------------------------------------------------------------------------

#[test]
fn gen_keeps_its_folder_equal_to_its_manifest() {
    let s = Scratch::new("gen");
    // In the scratch folder: `gen --out ''` used to write into the current one.
    let o = Command::new(bin())
        .args(["gen", "--filter", "cvt.rn.bf16.f32", "--out", ""])
        .current_dir(&s.0)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--out is empty"));
    assert!(s.names("").is_empty(), "{:?}", s.names(""));
    let dir = s.path("v");
    // `gen --filter 'cvt.{rn.bf16.f32,rz.bf16.f32}'` found nothing.
    run(&["gen", "--filter", "cvt.{rn.bf16.f32,rz.bf16.f32}", "--out", &dir]).code(0).err_has("2 variants");
    fs::write(s.0.join("v/notes.txt"), "mine").unwrap();
    assert_eq!(s.names("v"), ["MANIFEST", "cvt.rn.bf16.f32.cases", "cvt.rz.bf16.f32.cases", "notes.txt"]);
    let manifest_before = fs::read_to_string(s.0.join("v/MANIFEST")).unwrap();
    // A narrower filter would leave cvt.rz.bf16.f32.cases stale: refused, nothing written.
    run(&["gen", "--filter", "cvt.rn.bf16.f32", "--out", &dir])
        .code(2)
        .err_has("cvt.rz.bf16.f32.cases")
        .err_has("--clean");
    assert_eq!(fs::read_to_string(s.0.join("v/MANIFEST")).unwrap(), manifest_before);
    // --clean removes the stale *.cases file, nothing else.
    run(&["gen", "--filter", "cvt.rn.bf16.f32", "--out", &dir, "--clean"]).code(0);
    assert_eq!(s.names("v"), ["MANIFEST", "cvt.rn.bf16.f32.cases", "notes.txt"]);
    let manifest = fs::read_to_string(s.0.join("v/MANIFEST")).unwrap();
    let listed: Vec<&str> =
        manifest.lines().filter(|l| !l.starts_with('#')).map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(listed, ["cvt.rn.bf16.f32.cases"]);
}

// ---------------------------------------------------------------------------
// 7. gpu without a driver
// ---------------------------------------------------------------------------

/// `gpu FILE` printed its plan before it said there is no driver.
#[test]
fn gpu_checks_for_a_driver_before_planning() {
    if Path::new("/dev/nvidia0").exists() {
        println!("SKIPPED: this machine has an NVIDIA device");
        return;
    }
    let r = run(&["gpu", KNOWN]);
    r.code(2).err_has("no CUDA driver");
    assert!(!r.err.contains("variants,"), "a plan was printed before the driver check:\n{}", r.err);
    assert!(r.out.is_empty(), "{}", r.out);
}

// ---------------------------------------------------------------------------
// 8. One vocabulary
// ---------------------------------------------------------------------------

#[test]
fn one_option_vocabulary() {
    // `list --profile` had no effect: it is gone.
    run(&["list", "--profile", "isa"]).code(2).err_has("--profile");
    // `fuzz --help` pointed --target-lib at capi/include/ptx_cvt.h.
    let h = run(&["fuzz", "--help"]);
    h.code(0).out_has("capi/include/ptx_cvt_impl.h");
    assert!(!h.out.contains("ptx_cvt.h)"), "{}", h.out);
    // --filter: globs with {a,b}, repeatable, on every command that chooses variants.
    let l = run(&["list", "--filter", "cvt.{rn,rz}.bf16.f32", "--filter", "cvt.f32.f16"]);
    l.code(0);
    let mut names: Vec<&str> = l.out.lines().collect();
    names.sort();
    assert_eq!(names, ["cvt.f32.f16", "cvt.rn.bf16.f32", "cvt.rz.bf16.f32"]);
    for cmd in ["list", "ptx", "gen", "gpu", "coverage", "fuzz"] {
        run(&[cmd, "--help"]).code(0).out_has("{a,b}");
    }
    for cmd in ["ptx", "gen", "sweep", "gpu"] {
        run(&[cmd, "--help"]).code(0).out_has("-o, --out");
    }
    // One error prefix FILE:LINE: for input lines; stdin is <stdin>.
    run_stdin(&["eval"], "bogus 00\n").code(2).err_has("<stdin>:1: error: ");
    run_stdin(&["coverage", "-"], "bogus 00\n").code(2).err_has("<stdin>:1: error: ");
    run_stdin(&["check", "-"], "bogus 00\n").code(2).err_has("<stdin>:1: error: ");
}

/// In `sweep`, --max-failures N stops after N mismatches, as in check and
/// fuzz; --show N only limits what is printed.
#[test]
fn sweep_max_failures_stops_and_show_limits_printing() {
    let s = Scratch::new("maxfail");
    let f = s.path("wrong.cases");
    // cvt.f32.f16 of 3c00 (1.0) is 3f800000; these three answers are wrong.
    fs::write(&f, "cvt.f32.f16 3c00 => 3f800001\ncvt.f32.f16 3c00 => 3f800002\ncvt.f32.f16 3c00 => 3f800003\n")
        .unwrap();
    let r = run(&["sweep", "cvt.f32.f16", "--against", &f, "--max-failures", "2"]);
    r.code(1).err_has("stopped after 2 mismatch(es)");
    assert_eq!(r.out.matches("MISMATCH").count(), 2, "{}", r.out);
    r.out_has("digest (none: the sweep stopped early)");
    let r = run(&["sweep", "cvt.f32.f16", "--against", &f, "--show", "1"]);
    r.code(1).err_has("1 mismatch(es) shown of 3");
    assert_eq!(r.out.matches("MISMATCH").count(), 1, "{}", r.out);
}

// ---------------------------------------------------------------------------
// 9. JSON output
// ---------------------------------------------------------------------------

/// Every stdout line parses; JSON Lines end with `{"summary": {...}}`.
fn json_lines(r: &Out) -> Vec<Value> {
    r.out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: not JSON ({e}): {l:?}", r.what)))
        .collect()
}

fn summary(r: &Out) -> Value {
    let v = json_lines(r);
    let last = v.last().unwrap_or_else(|| panic!("{}: no output", r.what)).clone();
    let obj = last.as_object().unwrap_or_else(|| panic!("{}: last line is not an object", r.what));
    assert_eq!(obj.keys().collect::<Vec<_>>(), ["summary"], "{}: last line {last}", r.what);
    last["summary"].clone()
}

#[test]
fn json_on_every_command_parses() {
    let s = Scratch::new("json");
    // One document.
    let one = |args: &[&str]| -> Value {
        let r = run(args);
        r.code(0);
        let v = json_lines(&r);
        assert_eq!(v.len(), 1, "{}: {}", r.what, r.out);
        v[0].clone()
    };
    assert!(one(&["list", "--json", "--filter", "cvt.f32.f16"]).as_array().is_some_and(|a| a.len() == 1));
    assert_eq!(one(&["eval", "--json", "cvt.rn.f16.f32", "3f800000"])["result"], "3c00");
    assert_eq!(one(&["explain", "--json", "cvt.rn.f16.f32", "3f800000"])["result"], "3c00");
    let p = one(&["ptx", "--json", "--target", "sm_90", "--filter", "cvt.rn.f16.f32"]);
    assert_eq!(p["kernels"][0]["name"], "cvt_rn_f16_f32");
    assert!(p["module"].as_str().is_some_and(|m| m.contains(".entry cvt_rn_f16_f32(")));
    let p = one(&["ptx", "--json", "--target", "sm_90", "--filter", "cvt.rn.f16.f32", "-o", &s.path("m.ptx")]);
    assert_eq!(p["kernels"][0]["dst_width"], 16);
    assert!(p.get("module").is_none() && Path::new(&s.path("m.ptx")).is_file());
    let g = one(&["gen", "--json", "--filter", "cvt.rn.bf16.f32", "--out", &s.path("g")]);
    assert_eq!(g["variants"], 1);
    assert_eq!(g["files"][0]["file"], "cvt.rn.bf16.f32.cases");
    json_error(&run(&["gen", "--json", "--out", "-"]), "--json");

    // JSON Lines with a final summary.
    let e = run_stdin(&["eval", "--json"], ONE_CASE);
    e.code(0);
    assert_eq!(summary(&e)["evaluated"], 1);
    let c = run(&["coverage", "--json", "--no-reachable", KNOWN]);
    c.code(0);
    assert!(summary(&c)["cases"].as_u64().is_some_and(|n| n > 100));
    let w = run(&["sweep", "--json", "cvt.f32.f16"]);
    w.code(0);
    assert_eq!(summary(&w)["inputs"], 65536);
    let f = s.path("wrong.cases");
    fs::write(&f, "cvt.f32.f16 3c00 => 3f800001\n").unwrap();
    let w = run(&["sweep", "--json", "cvt.f32.f16", "--against", &f]);
    w.code(1);
    assert_eq!(summary(&w)["mismatches"], 1);
    assert_eq!(json_lines(&w).len(), 2, "{}", w.out);
    // check and fuzz: {"mismatch": …} lines, then the summary (triage, tallies).
    let wrong = s.path("wrong2.cases");
    fs::write(&wrong, "cvt.rn.f16.f32 3f803000 => 3c01\ncvt.rn.f16.f32 3f800000 => 3c00\n").unwrap();
    let k = run(&["check", "--json", &wrong]);
    k.code(1);
    assert_eq!(summary(&k)["cases"]["failed"], 1);
    assert!(json_lines(&k)[0]["mismatch"]["rule"].is_string(), "{}", k.out);
    let z =
        run(&["fuzz", "--json", "--target-cmd", "sed -u 's/?/0/g'", "--filter", "cvt.u16.u8", "--max-failures", "2"]);
    z.code(1);
    assert!(summary(&z)["cases"]["failed"].as_u64().is_some_and(|n| n > 0), "{}", z.out);
    assert!(json_lines(&z)[0]["mismatch"]["case"].is_string(), "{}", z.out);
    assert_eq!(json_lines(&z)[0]["mismatch"]["bug_class"], 1, "{}", z.out);
    // gpu: without a driver the failure is one JSON object on stdout too.
    let g = run(&["gpu", "--json", KNOWN]);
    if g.code == Some(2) {
        json_error(&g, "");
    } else {
        summary(&g);
    }
}

/// The `{"error": {"message": …}}` line of a failed `--json` run (exit 2),
/// whose message holds `needle`.
fn json_error(r: &Out, needle: &str) {
    r.code(2);
    let lines = json_lines(r);
    let e =
        lines.iter().find_map(|v| v.get("error")).unwrap_or_else(|| panic!("{}: no error object\n{}", r.what, r.out));
    let m = e["message"].as_str().unwrap_or_else(|| panic!("{}: error without a message: {e}", r.what));
    assert!(m.contains(needle), "{}: {m} lacks {needle:?}", r.what);
}

/// Issue 34: under --json every failure of every command is a JSON object
/// on stdout (a bad option, a bad instruction, a missing file, a filter
/// that chooses nothing), with the exit status of the text form.
#[test]
fn json_failures_are_json_on_every_command() {
    json_error(&run(&["explain", "--json", "cvt.bogus", "1"]), "bogus");
    json_error(&run(&["eval", "--json", "cvt.rn.f16.f32", "zz"]), "");
    json_error(&run(&["check", "--json", "--bogus", KNOWN]), "--bogus");
    json_error(&run(&["check", "--json", "/nonexistent.cases"]), "/nonexistent.cases");
    json_error(&run(&["list", "--json", "--filter", "nothing*"]), "nothing*");
    json_error(&run(&["gen", "--json", "--filter", "nothing*", "--out", "/tmp/x"]), "nothing*");
    json_error(&run(&["fuzz", "--json", "--target-cmd", "cat", "--filter", "nothing*"]), "nothing*");
    json_error(&run(&["sweep", "--json", "cvt.bogus"]), "bogus");
    json_error(&run(&["coverage", "--json", "/nonexistent.cases"]), "/nonexistent.cases");
    json_error(&run(&["atlas", "check", "--json", "/tmp"]), "not an atlas folder");
    json_error(&run(&["lowering", "--json", "--target", "sm_1"]), "");
    // The same failures in text go to stderr, stdout stays empty.
    let t = run(&["list", "--filter", "nothing*"]);
    t.code(2).err_has("no variant legal on some target matches --filter `nothing*`");
    assert!(t.out.is_empty(), "{}", t.out);
}

/// Issue 34: docs/cli.md is the option table of the clap definitions
/// (regenerate with `ptx-cvt __cli-reference > docs/cli.md`).
#[test]
fn cli_reference_is_current() {
    let r = run(&["__cli-reference"]);
    r.code(0);
    let committed = fs::read_to_string(workspace().join("docs/cli.md")).expect("docs/cli.md");
    assert!(
        committed == r.out,
        "docs/cli.md is stale: run `ptx-cvt __cli-reference > docs/cli.md` (or cargo run -p ptx-cvt-cli -- __cli-reference)"
    );
}
