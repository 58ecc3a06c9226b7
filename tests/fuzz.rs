//! End-to-end tests of `ptx-cvt fuzz --target-cmd` (tools/src/fuzz.rs and
//! tools/src/process.rs), run as a child process: the README demo finds the
//! three bugs planted in examples/toy-interp/toy_interp.py with reproducers,
//! correct programs pass, and programs that die, hang, answer garbage or
//! decline get exit status 2 with a clear message and never a panic; a
//! shared library (capi/examples/toy_impl.c, built with `cc` when there is
//! one) goes through `--target-lib`.
//!
//! The programs under test are Python 3 scripts (examples/toy-interp/ and
//! small ones written to a temporary folder); without `python3` on PATH the
//! tests print why and pass. The expected results in the reproducers are
//! checked against the oracle itself (the `ptx_cvt` library).

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use ptx_cvt::{evaluate, parse_case, Profile};
use ptx_cvt_tests::{bin, build_toy_impl, python3 as python, workspace};

/// The variants of the README demo: the toy's three buggy forms and some
/// it gets right.
const DEMO_FILTER: &str = "cvt.{rn.f16.f32,rzi.s32.f32,rzi.s32.f64,s32.s8,s16.s8,u32.u16,s32.s16}";

/// Upper bound for any single command.
const DEADLINE: Duration = Duration::from_secs(60);

fn toy() -> String {
    format!("python3 '{}'", workspace().join("examples/toy-interp/toy_interp.py").display())
}

/// A Python program in a fresh temporary folder; the command that runs it.
fn script(name: &str, text: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("ptx-cvt-fuzz-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, text).unwrap();
    (dir, format!("python3 '{}'", path.display()))
}

struct Run {
    what: String,
    code: Option<i32>,
    out: String,
    err: String,
    secs: f64,
}

impl Run {
    fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "{}: exit status\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            clip(&self.out),
            clip(&self.err)
        );
        assert!(!self.err.contains("panicked"), "{}: panic\n{}", self.what, self.err);
        self
    }
    fn out_has(&self, needle: &str) -> &Self {
        assert!(
            self.out.contains(needle),
            "{}: stdout lacks {needle:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            clip(&self.out),
            clip(&self.err)
        );
        self
    }
    fn err_has(&self, needle: &str) -> &Self {
        assert!(self.err.contains(needle), "{}: stderr lacks {needle:?}\n--- stderr\n{}", self.what, clip(&self.err));
        self
    }
    fn within(&self, secs: f64) -> &Self {
        assert!(self.secs < secs, "{}: took {:.1} s, expected under {secs} s", self.what, self.secs);
        self
    }
}

fn clip(s: &str) -> String {
    if s.len() <= 6000 {
        return s.to_string();
    }
    let mut end = 6000;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &s[..end], s.len())
}

fn fuzz(args: &[&str]) -> Run {
    let what = format!("ptx-cvt fuzz {}", args.join(" "));
    let start = Instant::now();
    let mut child = Command::new(bin())
        .arg("fuzz")
        .args(args)
        .env_remove("RUST_BACKTRACE")
        // The programs must flush by themselves, as the protocol says.
        .env_remove("PYTHONUNBUFFERED")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ptx-cvt");
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let out = thread::spawn(move || {
        let mut s = String::new();
        let _ = so.read_to_string(&mut s);
        s
    });
    let err = thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("{what}: still running after {DEADLINE:?}");
        }
        thread::sleep(Duration::from_millis(10));
    };
    let secs = start.elapsed().as_secs_f64();
    Run { what, code: status.code(), out: out.join().unwrap(), err: err.join().unwrap(), secs }
}

/// The text of the mismatch block for `instr` (from its `MISMATCH` line to the next blank line).
fn block<'a>(r: &'a Run, instr: &str) -> &'a str {
    let head = format!("MISMATCH {instr} ");
    let at =
        r.out.find(&head).unwrap_or_else(|| panic!("{}: no mismatch reported for {instr}\n{}", r.what, clip(&r.out)));
    let rest = &r.out[at..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

/// The `case` line of a mismatch block, checked against the oracle.
fn reproducer(r: &Run, instr: &str) -> String {
    let b = block(r, instr);
    let line = b
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("case     "))
        .unwrap_or_else(|| panic!("no case line in\n{b}"));
    let case = parse_case(line).unwrap().unwrap();
    let o = evaluate(&case.instr, &case.operands, case.dst_width(), Profile::Sm90).unwrap();
    assert_eq!(
        case.result.as_ref().unwrap(),
        &o.accept,
        "{instr}: the reproducer's result is not the oracle's: {line}"
    );
    assert!(b.contains(&format!("\t{instr} %d, %a;")), "{instr}: no PTX reproducer in\n{b}");
    assert!(b.contains("  got      "), "{b}");
    line.to_string()
}

#[test]
fn demo_finds_the_three_planted_bugs() {
    if !python() {
        return;
    }
    let rec = std::env::temp_dir().join(format!("ptx-cvt-fuzz-test-{}-demo.cases", std::process::id()));
    let rec_s = rec.to_str().unwrap();
    let cmd = toy();
    let r = fuzz(&[
        "--target-cmd",
        &cmd,
        "--filter",
        DEMO_FILTER,
        "--seconds",
        "5",
        "--seed",
        "1",
        "--record",
        rec_s,
        "--reproducers",
        "5",
    ]);
    r.expect_code(1).within(5.0 + 10.0);
    // Bug 1: ties away from zero.
    let f16 = reproducer(&r, "cvt.rn.f16.f32");
    assert!(block(&r, "cvt.rn.f16.f32").contains("tie"), "{}", block(&r, "cvt.rn.f16.f32"));
    // Bug 2: NaN from f64 is 0x80000000, not 0 (f32 NaN → 0 is right).
    let nan = reproducer(&r, "cvt.rzi.s32.f64");
    assert!(nan.ends_with("=> 80000000"), "{nan}");
    assert!(block(&r, "cvt.rzi.s32.f64").contains("got      00000000 (0)"));
    // Bug 3: s8 zero-extended, in two variants: one bug class, shown once, counted in both.
    let shown: Vec<&str> =
        ["cvt.s32.s8", "cvt.s16.s8"].into_iter().filter(|i| r.out.contains(&format!("MISMATCH {i} "))).collect();
    assert_eq!(shown.len(), 1, "{}", clip(&r.out));
    reproducer(&r, shown[0]);
    assert!(block(&r, shown[0]).contains("sext"), "{}", block(&r, shown[0]));
    let row =
        r.out.lines().find(|l| l.contains(" case(s) in ") && l.contains("a signed source is zero-extended")).unwrap();
    assert!(row.contains(" 2 variant(s)"), "{row}");
    // The forms the toy gets right pass.
    for ok in ["cvt.rzi.s32.f32", "cvt.u32.u16", "cvt.s32.s16"] {
        assert!(!r.out.contains(&format!("MISMATCH {ok} ")), "{ok} reported\n{}", clip(&r.out));
        let row = r.out.lines().find(|l| l.trim_start().starts_with(&format!("{ok} "))).expect("per-variant row");
        assert!(row.trim_end().ends_with(" 0"), "{row}");
    }
    r.out_has("cases/s").out_has("seed 1").out_has("unsupported");
    // Triage: the three planted bugs are three bug classes (the two sign-extension
    // variants share one), each named once.
    r.out_has("3 bug class(es)");
    // (--reproducers 5 shows each class's example in full with a PTX module.)
    let rows: Vec<&str> = r.out.lines().filter(|l| l.contains(" case(s) in ")).collect();
    for bug in ["a signed source is zero-extended", "NaN → integer gives 0", "ties round away from zero"] {
        assert_eq!(rows.iter().filter(|l| l.contains(bug)).count(), 1, "{bug}\n{}", r.out);
    }
    assert!(!f16.is_empty());

    // The record re-checks with `ptx-cvt check` to the same counts.
    let last = r.out.lines().last().unwrap();
    let check = Command::new(bin()).args(["check", "-q", rec_s]).output().unwrap();
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&check.stdout).trim(), last.trim(), "fuzz and check disagree");
    let _ = std::fs::remove_file(&rec);
}

#[test]
fn fixed_toy_passes() {
    if !python() {
        return;
    }
    let cmd = format!("{} --fixed", toy());
    let all = "cvt.{rn.f16.f32,rzi.s32.f32,rzi.s32.f64,s32.s8,s16.s8,u16.u8,u32.u8,u32.u16,s32.s16,u64.u32,s64.s32}";
    let r = fuzz(&["--target-cmd", &cmd, "--filter", all, "--seconds", "2", "--seed", "2"]);
    r.expect_code(0).out_has(" 0 failed");
    assert!(!r.out.contains("MISMATCH"));
}

#[test]
fn small_correct_program_passes_with_repeated_filters() {
    if !python() {
        return;
    }
    let (dir, cmd) = script(
        "correct",
        r#"import sys
for line in sys.stdin:
    left, right = line.split("=>")
    instr, op = left.split()
    w = len(right.strip())
    x = int(op, 16)
    if instr == "cvt.u32.u16":
        v = x & 0xffff
    elif instr == "cvt.s32.s8":
        v = (x & 0xff) - ((x & 0x80) << 1)
    else:
        print("error: not mine:", instr, flush=True)
        continue
    print("%s %s => %0*x" % (instr, op, w, v & ((1 << 4 * w) - 1)), flush=True)
"#,
    );
    let r = fuzz(&[
        "--target-cmd",
        &cmd,
        "--filter",
        "cvt.u32.u16",
        "--filter",
        "cvt.s32.s8",
        "--cases",
        "5000",
        "--seconds",
        "0",
        "--seed",
        "3",
    ]);
    r.expect_code(0).out_has("5000 passed, 0 failed").out_has("stopped after 5000 cases (--cases)");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn program_that_dies_is_reported() {
    if !python() {
        return;
    }
    let (dir, cmd) = script(
        "dies",
        r#"import sys
for n, line in enumerate(sys.stdin):
    if n == 30:
        print("toy: internal error at case", n, file=sys.stderr, flush=True)
        sys.exit(3)
    left, right = line.split("=>")
    print(left + "=> " + "0" * len(right.strip()), flush=True)
"#,
    );
    let r = fuzz(&["--target-cmd", &cmd, "--filter", "cvt.u16.u8", "--seconds", "5", "--seed", "4"]);
    r.expect_code(2)
        .within(5.0)
        .err_has("exited (exit status 3) before answering `cvt.u16.u8 ")
        .err_has("toy: internal error at case 30")
        .out_has("stopped at the adapter error above");
    // Answers given before the crash were still compared.
    r.out_has("e.g. cvt.u16.u8 ").out_has(" 29 failed");

    // With --restart it goes on, reporting every crash (a program that answers
    // right until it dies, so the crashes are the only failures).
    let (dir2, cmd) = script(
        "dies-right",
        r#"import sys
for n, line in enumerate(sys.stdin):
    if n == 30:
        print("toy: internal error at case", n, file=sys.stderr, flush=True)
        sys.exit(3)
    left, right = line.split("=>")
    print(left + "=> %0*x" % (len(right.strip()), int(left.split()[1], 16) & 0xff), flush=True)
"#,
    );
    let r = fuzz(&[
        "--target-cmd",
        &cmd,
        "--filter",
        "cvt.u16.u8",
        "--seconds",
        "5",
        "--seed",
        "4",
        "--restart",
        "--max-failures",
        "3",
    ]);
    r.expect_code(2)
        .within(5.0)
        .out_has("stopped after 3 adapter errors (--max-failures)")
        .out_has("3 adapter error(s)");
    assert_eq!(r.err.matches("exited (exit status 3)").count(), 3, "{}", r.err);
    assert!(!r.out.contains("MISMATCH"), "{}", r.out);
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(dir2);
}

#[test]
fn garbage_answers_are_reported() {
    if !python() {
        return;
    }
    for (name, answer, message) in [
        ("words", r#""hello there""#, "the program answered `hello there` to `cvt.u32.u16 "),
        ("narrow", r#"left + "=> 00""#, "the program answered an 8-bit result `00` to `cvt.u32.u16 "),
        ("operands", r#""cvt.u32.u16 1234 => 00001234""#, "the program answered with operands `1234` but was asked"),
        ("pattern", r#"left + "=> " + "?" * len(right.strip())"#, "without a result"),
        ("empty", r#""""#, "answered an empty line"),
    ] {
        let (dir, cmd) = script(
            name,
            &format!("import sys\nfor line in sys.stdin:\n    left, right = line.split('=>')\n    print({answer}, flush=True)\n"),
        );
        let r = fuzz(&["--target-cmd", &cmd, "--filter", "cvt.u32.u16", "--seconds", "5", "--seed", "5"]);
        r.expect_code(2).within(5.0).err_has(message).out_has("1 adapter error(s)");
        let _ = std::fs::remove_dir_all(dir);
    }
    // Issue 11: `error: MESSAGE` declines a case: counted as unsupported, the
    // program keeps running, the run goes on (exit 0 unless --fail-on-unsupported).
    let r = fuzz(&["--target-cmd", &toy(), "--filter", "cvt.{u8.u16,u32.u16}", "--seconds", "2"]);
    r.expect_code(0).out_has("toy_interp does not implement {instr}").out_has(" unsupported");
    assert!(!r.err.contains("error:"), "{}", r.err);
    let row = r.out.lines().find(|l| l.trim_start().starts_with("cvt.u32.u16 ")).expect("a row for cvt.u32.u16");
    assert!(row.split_whitespace().nth(1).is_some_and(|n| n.parse::<u64>().unwrap() > 1000), "{row}");
    let r = fuzz(&["--target-cmd", &toy(), "--filter", "cvt.u8.u16", "--seconds", "1", "--fail-on-unsupported"]);
    r.expect_code(1);
}

#[test]
fn hung_program_hits_the_timeout_and_is_killed() {
    if !python() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ptx-cvt-fuzz-test-{}-hangs", std::process::id()));
    let pidfile = dir.join("pid");
    let (dir, cmd) = script(
        "hangs",
        &format!(
            "import os, sys, time\nopen({:?}, 'w').write(str(os.getpid()))\nsys.stdin.readline()\nprint('about to hang', file=sys.stderr, flush=True)\ntime.sleep(300)\n",
            pidfile.to_str().unwrap()
        ),
    );
    // `; true` keeps sh as the parent, so the program is a grandchild: it must die too.
    let cmd = format!("{cmd}; true");
    let r = fuzz(&["--target-cmd", &cmd, "--filter", "cvt.u32.u16", "--timeout", "1", "--seconds", "10"]);
    r.expect_code(2)
        .within(6.0)
        .err_has("no answer within 1 s to `cvt.u32.u16 ")
        .err_has("the program was killed")
        .err_has("flush stdout")
        .err_has("about to hang");
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let proc_dir = PathBuf::from(format!("/proc/{}", pid.trim()));
    if PathBuf::from("/proc/self").exists() {
        let gone = (0..100).any(|_| {
            thread::sleep(Duration::from_millis(20));
            !proc_dir.exists() || std::fs::read_to_string(proc_dir.join("stat")).is_ok_and(|s| s.contains(") Z "))
        });
        assert!(gone, "the hung program (pid {}) still runs", pid.trim());
    }

    // A program that never flushes looks the same, and the message says why.
    let (dir2, cmd) =
        script("noflush", "import sys\nfor line in sys.stdin:\n    print(line.split('=>')[0] + '=> 00000000')\n");
    let r = fuzz(&["--target-cmd", &cmd, "--filter", "cvt.u32.u16", "--timeout", "1", "--seconds", "10"]);
    r.expect_code(2).within(6.0).err_has("does it not flush stdout after each answer?");
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(dir2);
}

#[test]
fn bad_options_are_reported() {
    let r = fuzz(&["--target-cmd", "cat", "--filter", "cvt.nothing.like.this"]);
    r.expect_code(2).err_has("no variant legal on sm_90");
    let r = fuzz(&["--target-cmd", "cat", "--filter", "cvt.{a,b"]);
    r.expect_code(2).err_has("`{` without `}`");
    let r = fuzz(&["--filter", "cvt.u32.u16"]);
    r.expect_code(2).err_has("--target-cmd");
    let r = fuzz(&["--target-cmd", "exit 0", "--filter", "cvt.u32.u16", "--timeout", "0"]);
    r.expect_code(2).err_has("--timeout");
    let r = fuzz(&["--target-cmd", "no-such-program-ptx-cvt", "--filter", "cvt.u32.u16", "--seconds", "5"]);
    r.expect_code(2).err_has("exited (exit status 127)").err_has("not found");
}

#[test]
fn shared_library_target() {
    let dir = std::env::temp_dir().join(format!("ptx-cvt-fuzz-test-{}-lib", std::process::id()));
    let Some(so) = build_toy_impl(&dir) else { return };
    let so_s = so.to_str().unwrap();
    let filter = "cvt.{s16.s8,u32.u16,rn.f16.f32}";
    let r = fuzz(&["--target-lib", so_s, "--filter", filter, "--seconds", "1", "--seed", "6"]);
    r.expect_code(0).out_has(" 0 failed").out_has("shared library");
    let r = fuzz(&[
        "--target-lib",
        so_s,
        "--symbol",
        "cvt_impl_truncating",
        "--filter",
        "cvt.rn.f16.f32",
        "--seconds",
        "1",
        "--seed",
        "6",
        "--reproducers",
        "1",
    ]);
    r.expect_code(1).out_has("MISMATCH cvt.rn.f16.f32 ");
    reproducer(&r, "cvt.rn.f16.f32");
    // Issue 11: a form the library declines (non-zero return) is unsupported, not an adapter error.
    let r = fuzz(&["--target-lib", so_s, "--filter", "cvt.{u16.u32,s16.s8}", "--seconds", "1"]);
    r.expect_code(0).out_has("cvt_impl returned 1").out_has("unsupported");
    let _ = std::fs::remove_dir_all(dir);
}
