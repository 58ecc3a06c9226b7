//! Issue 24: nothing is lost when the implementation under test fails. A
//! flaky process adapter (adapters/flaky_adapter.rs) and a crashing C library
//! (adapters/crashing_impl.c, built here with the system cc) fail at
//! pseudo-random points over the committed compact vectors, in every way
//! they know. Checked: every case read ends as exactly one outcome (passed +
//! failed + unsupported + crashed + not run = cases read); with --restart and
//! --isolate every case that did not crash gets the clean run's answer, case
//! by case; each crash is reported with its case; without them the run stops
//! and says where. A soak of the same kind runs for 60 s
//! (PTX_CVT_SOAK_SECONDS changes it).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use ptx_cvt::{parse_case, Case, Cvt, Operand};
use ptx_cvt_harness::process::{request_line, ProcessImpl};
use ptx_cvt_harness::shared_lib::SharedLib;
use ptx_cvt_harness::worker::Isolated;
use ptx_cvt_harness::{settle, Answer, Implementation, Outcome};
use ptx_cvt_tests::{bin, compact_vectors, workspace};
use serde_json::Value;

/// adapters/flaky_adapter.rs, built once next to `ptx-cvt` (bin() builds that).
fn flaky() -> &'static Path {
    static EXE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "-q", "-p", "ptx-cvt-tests", "--bin", "flaky-adapter"])
            .current_dir(workspace())
            .output()
            .expect("run cargo to build flaky-adapter");
        assert!(out.status.success(), "building flaky-adapter failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let exe = bin().with_file_name("flaky-adapter");
        assert!(exe.is_file(), "built flaky-adapter but {} does not exist", exe.display());
        exe
    })
}
/// As `ptx-cvt check` batches: one instruction, at most this many cases.
const BATCH: usize = 1024;

/// The share of the compact vector files these tests run: every file in the
/// full suite, else every fourth (in name order), so that the README's test
/// command stays short. The failure rates given to the adapters scale with
/// it ([`every`]), so each run meets about as many failures either way.
fn share() -> u64 {
    if ptx_cvt_tests::full_suite() {
        1
    } else {
        4
    }
}

/// A failure every `n` cases of the whole compact set, scaled to the share run.
fn every(n: u64) -> u64 {
    n / share()
}

/// A case with its file and line.
type Located = (String, usize, Case);

/// The case files the tests run, as a folder `ptx-cvt check` reads (the
/// share of `vectors/compact`, linked into a scratch folder), and their
/// cases: (file, line, case).
fn corpus() -> &'static (String, Vec<Located>) {
    static CORPUS: std::sync::OnceLock<(String, Vec<Located>)> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let files: Vec<(String, String)> = compact_vectors().into_iter().step_by(share() as usize).collect();
        let dir = if share() == 1 {
            "vectors/compact".to_string()
        } else {
            let d = scratch("corpus");
            for (name, _) in &files {
                std::os::unix::fs::symlink(workspace().join("vectors/compact").join(name), d.join(name)).unwrap();
            }
            d.to_string_lossy().into_owned()
        };
        let mut cases = Vec::new();
        for (name, text) in files {
            for (i, l) in text.lines().enumerate() {
                if let Some(c) = parse_case(l).unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1)) {
                    cases.push((name.clone(), i + 1, c));
                }
            }
        }
        (dir, cases)
    })
}

/// The cases of [`corpus`].
fn cases() -> Vec<(String, usize, Case)> {
    corpus().1.clone()
}

/// The folder of [`corpus`].
fn vectors() -> &'static str {
    &corpus().0
}

/// Runs of consecutive cases of one instruction, at most BATCH long: (start, end).
fn batches(all: &[(String, usize, Case)]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=all.len() {
        if i == all.len() || all[i].2.instr != all[start].2.instr || i - start == BATCH {
            out.push((start, i));
            start = i;
        }
    }
    out
}

/// Settle every batch of `all[range]`; the outcomes in order.
fn run(imp: &mut dyn Implementation, all: &[(String, usize, Case)], max_crashes: u64) -> Vec<Outcome> {
    let mut out = Vec::with_capacity(all.len());
    for (s, e) in batches(all) {
        let c: Cvt = all[s].2.instr;
        let asked: Vec<(Vec<Operand>, u32)> =
            all[s..e].iter().map(|(_, _, k)| (k.operands.clone(), k.dst_width())).collect();
        let settled = settle(imp, &c, &asked, max_crashes);
        assert_eq!(settled.outcomes.len(), asked.len(), "one outcome per case");
        let stop = settled.stopped.is_some();
        out.extend(settled.outcomes);
        if stop {
            out.resize(all.len(), Outcome::NotRun);
            break;
        }
    }
    out
}

fn answers(outcomes: Vec<Outcome>) -> Vec<Answer> {
    outcomes
        .into_iter()
        .map(|o| match o {
            Outcome::Answered(a) => a,
            o => panic!("the clean run failed: {o:?}"),
        })
        .collect()
}

/// Every outcome that is not a crash equals the clean answer; each crash
/// names its case. Returns the crash messages.
fn compare(all: &[(String, usize, Case)], clean: &[Answer], got: &[Outcome]) -> Vec<String> {
    assert_eq!(got.len(), clean.len());
    let mut crashes = Vec::new();
    for (i, ((f, n, c), o)) in all.iter().zip(got).enumerate() {
        match o {
            Outcome::Answered(a) => assert_eq!(a, &clean[i], "{f}:{n}: another answer than the clean run's"),
            Outcome::Crashed(m) => {
                let line = request_line(&c.instr, &c.operands, c.dst_width());
                assert!(m.contains(&line), "{f}:{n}: the crash report does not name `{line}`:\n{m}");
                crashes.push(m.clone());
            }
            Outcome::NotRun => panic!("{f}:{n}: not run although the run goes on"),
        }
    }
    crashes
}

/// How each failure shows in the message, by the adapters' mode names.
fn modes_seen(crashes: &[String], signs: &[(&'static str, &str)]) -> BTreeSet<&'static str> {
    crashes.iter().flat_map(|m| signs.iter().filter(|(_, s)| m.contains(s)).map(|(k, _)| *k)).collect()
}

const PROCESS_SIGNS: [(&str, &str); 8] = [
    ("exit", "exited (exit status 3)"),
    ("segv", "SIGSEGV"),
    ("kill", "SIGKILL"),
    ("abort", "SIGABRT"),
    ("hang", "no answer within 1 s"),
    ("garbage", "%%% flaky garbage %%%"),
    ("wrong", "answered with operands"),
    ("short", "answered `cvt."),
];

const LIB_SIGNS: [(&str, &str); 6] = [
    ("exit", "exit status 3"),
    ("segv", "SIGSEGV"),
    ("kill", "SIGKILL"),
    ("abort", "SIGABRT"),
    ("hang", "no answer in 1 s"),
    // std's handler in the worker tells a stack overflow and aborts.
    ("stack", "overflowed its stack"),
];

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptx-cvt-crash-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn flaky_cmd(state: Option<&Path>, every: u64, seed: u64, modes: &str) -> String {
    let flaky = flaky().display();
    match state {
        // exec: the adapter's own signal shows, not the shell's exit status.
        Some(s) => format!("exec '{flaky}' --state '{}' --every {every} --seed {seed} --modes {modes}", s.display()),
        None => format!("'{flaky}'"),
    }
}

/// adapters/crashing_impl.c as dir/libcrashing_impl.so, or None without cc.
fn crash_lib(dir: &Path) -> Option<PathBuf> {
    let so = dir.join("libcrashing_impl.so");
    let ws = workspace();
    let out = match Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(ws.join("capi/include"))
        .arg("-I")
        .arg(ws.join("capi/examples"))
        .arg(ws.join("tests/adapters/crashing_impl.c"))
        .arg("-o")
        .arg(&so)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("SKIPPED: no C compiler (cc): {e}");
            return None;
        }
    };
    assert!(out.status.success(), "building crashing_impl.c failed:\n{}", String::from_utf8_lossy(&out.stderr));
    Some(so)
}

/// The library in workers started as `env VAR=… ptx-cvt __worker …` (the
/// tests run in parallel: this process's environment stays untouched).
fn isolated(so: &Path, symbol: &str, env: &[(&str, String)]) -> Isolated {
    let mut args: Vec<OsString> = env.iter().map(|(k, v)| format!("{k}={v}").into()).collect();
    args.extend([bin().into(), "__worker".into(), "--target-lib".into(), so.into(), "--symbol".into(), symbol.into()]);
    Isolated::spawn(Path::new("env"), args, format!("isolated {symbol}"), symbol, Duration::from_secs(1)).unwrap()
}

fn check(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.arg("check").args(args).current_dir(workspace());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run ptx-cvt check")
}

/// The JSON lines of a `check --json` run: the events and the summary.
struct Report {
    crashed: Vec<Value>,
    mismatches: BTreeSet<(String, u64)>,
    summary: Value,
    code: Option<i32>,
    stderr: String,
}

fn report(o: &Output) -> Report {
    let text = String::from_utf8_lossy(&o.stdout);
    let mut r = Report {
        crashed: Vec::new(),
        mismatches: BTreeSet::new(),
        summary: Value::Null,
        code: o.status.code(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("stdout is not JSON lines ({e}): {l}"));
        if let Some(c) = v.get("crashed") {
            r.crashed.push(c.clone());
        } else if let Some(m) = v.get("mismatch") {
            r.mismatches.insert((m["file"].as_str().unwrap().to_string(), m["line"].as_u64().unwrap()));
        } else if let Some(s) = v.get("summary") {
            r.summary = s.clone();
        }
    }
    assert!(!r.summary.is_null(), "no summary:\n{text}\n{}", r.stderr);
    r
}

impl Report {
    fn count(&self, k: &str) -> u64 {
        self.summary["cases"][k].as_u64().unwrap_or_else(|| panic!("no cases.{k} in {}", self.summary))
    }

    /// passed + failed + unsupported + crashed + not run = cases read.
    fn assert_identity(&self, read: usize) {
        let sum: u64 = ["passed", "failed", "unsupported", "crashed", "not_run"].iter().map(|k| self.count(k)).sum();
        assert_eq!(sum, read as u64, "the five outcomes do not add up to the cases read: {}", self.summary["cases"]);
        assert_eq!(self.crashed.len() as u64, self.count("crashed"), "each crashed case is reported");
        for c in &self.crashed {
            let case = c["case"].as_str().unwrap();
            assert!(c["message"].as_str().unwrap().contains(case), "the report names the case: {c}");
        }
    }

    /// Per variant: passed, failed, unsupported.
    fn tallies(&self) -> BTreeMap<String, [u64; 3]> {
        let per = self.summary["per_variant"].as_array().unwrap();
        per.iter()
            .map(|v| {
                let n = |k: &str| v[k].as_u64().unwrap();
                (v["variant"].as_str().unwrap().to_string(), [n("passed"), n("failed"), n("unsupported")])
            })
            .collect()
    }

    /// The same verdicts as the clean run for every case that did not crash.
    fn assert_like_clean(&self, clean: &Report) {
        let crashed: BTreeSet<(String, u64)> = self
            .crashed
            .iter()
            .map(|c| (c["file"].as_str().unwrap().to_string(), c["line"].as_u64().unwrap()))
            .collect();
        let want: BTreeSet<(String, u64)> = clean.mismatches.difference(&crashed).cloned().collect();
        assert_eq!(self.mismatches, want, "the mismatches differ from the clean run's (less the crashed cases)");
        let mut crashed_in: BTreeMap<String, u64> = BTreeMap::new();
        for c in &self.crashed {
            let instr = c["case"].as_str().unwrap().split(' ').next().unwrap().to_string();
            *crashed_in.entry(instr).or_default() += 1;
        }
        let (mine, theirs) = (self.tallies(), clean.tallies());
        for (v, t) in &theirs {
            let m = mine.get(v).copied().unwrap_or_default();
            let lost = crashed_in.get(v).copied().unwrap_or_default();
            assert_eq!(m.iter().sum::<u64>() + lost, t.iter().sum::<u64>(), "{v}: cases lost");
            assert!(
                m[0] <= t[0] && m[2] <= t[2] && t[0] + t[2] - m[0] - m[2] + t[1] - m[1] == lost,
                "{v}: {m:?} {t:?}"
            );
        }
    }
}

#[test]
fn restart_sends_the_rest_again_and_changes_no_verdict() {
    let all = cases();
    let dir = scratch("restart");
    let clean = answers(run(
        &mut ProcessImpl::spawn(&flaky_cmd(None, 0, 0, ""), Duration::from_secs(5), false).unwrap(),
        &all,
        1,
    ));
    let state = dir.join("lives");
    let cmd = flaky_cmd(Some(&state), every(5000), 7, "exit,segv,kill,abort,hang,garbage,wrong,short");
    let mut p = ProcessImpl::spawn(&cmd, Duration::from_secs(1), true).unwrap();
    let got = run(&mut p, &all, u64::MAX);
    let crashes = compare(&all, &clean, &got);
    assert!(crashes.len() >= 20, "{} crashes", crashes.len());
    let seen = modes_seen(&crashes, &PROCESS_SIGNS);
    assert_eq!(seen.len(), PROCESS_SIGNS.len(), "failure modes seen: {seen:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn isolate_survives_every_crash_and_changes_no_verdict() {
    let all = cases();
    let dir = scratch("isolate");
    let Some(so) = crash_lib(&dir) else { return };
    let mut clean_lib = SharedLib::open(&so, "clean_impl").unwrap();
    let clean = answers(run(&mut clean_lib, &all, 1));
    let env = [("CRASH_EVERY", every(15000).to_string()), ("CRASH_SEED", "3".to_string())];
    let mut iso = isolated(&so, "crashing_impl", &env);
    let got = run(&mut iso, &all, u64::MAX);
    let crashes = compare(&all, &clean, &got);
    assert!(crashes.len() >= 8, "{} crashes", crashes.len());
    let seen = modes_seen(&crashes, &LIB_SIGNS);
    assert_eq!(seen.len(), LIB_SIGNS.len(), "failure modes seen: {seen:?}");
    // Decline reasons come from crashing_impl_reason, through the worker too.
    assert!(clean.iter().any(|a| matches!(a, Answer::Declined(w) if w.starts_with("the toy does not do cvt."))));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_accounts_for_every_case_of_a_flaky_program() {
    let read = cases().len();
    let dir = scratch("check-cmd");
    let clean = report(&check(&["--json", "--all", "--target-cmd", &flaky_cmd(None, 0, 0, ""), vectors()], &[]));
    clean.assert_identity(read);
    assert_eq!(clean.code, Some(1), "{}", clean.stderr);
    assert!(clean.count("failed") > 0 && clean.count("unsupported") > 0 && clean.count("crashed") == 0);

    // Every failure mode at once, with --restart: the run goes on.
    let state = dir.join("lives");
    let cmd = flaky_cmd(Some(&state), every(8000), 11, "exit,segv,kill,abort,hang,garbage,wrong,short");
    let r = report(&check(&["--json", "--all", "--restart", "--timeout", "1", "--target-cmd", &cmd, vectors()], &[]));
    r.assert_identity(read);
    assert_eq!(r.code, Some(2));
    assert!(r.count("crashed") >= 10 && r.count("not_run") == 0, "{}", r.summary["cases"]);
    r.assert_like_clean(&clean);

    // One mode at a time, without --restart: the run stops at the crash, the rest is not run.
    for mode in ["exit", "segv", "kill", "abort", "hang", "garbage", "wrong", "short"] {
        let _ = std::fs::remove_file(&state);
        let cmd = flaky_cmd(Some(&state), every(4000), 5, mode);
        let r = report(&check(&["--json", "--timeout", "1", "--target-cmd", &cmd, vectors()], &[]));
        r.assert_identity(read);
        assert_eq!((r.code, r.count("crashed")), (Some(2), 1), "{mode}: {}", r.summary["cases"]);
        assert!(r.count("not_run") > 0, "{mode}: {}", r.summary["cases"]);
        assert!(r.stderr.contains("stopped at the crash above (--restart"), "{mode}: {}", r.stderr);
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_isolates_a_crashing_library() {
    let read = cases().len();
    let dir = scratch("check-lib");
    let Some(so) = crash_lib(&dir) else { return };
    let so = so.to_str().unwrap();
    let clean = report(&check(&["--json", "--all", "--target-lib", so, "--symbol", "clean_impl", vectors()], &[]));
    clean.assert_identity(read);
    assert!(clean.count("failed") > 0 && clean.count("unsupported") > 0);
    // A seed for which the isolated run meets each mode checked below (in the
    // share of the vectors run), so that each has a first crash to compare.
    let seed = if share() == 1 { "9" } else { "5" };
    let env = [("CRASH_EVERY", every(20000).to_string()), ("CRASH_SEED", seed.to_string())];
    let args = ["--json", "--all", "--isolate", "--timeout", "1", "--target-lib", so, "--symbol", "crashing_impl"];
    let r = report(&check(&[&args[..], &[vectors()]].concat(), &env));
    r.assert_identity(read);
    assert_eq!(r.code, Some(2));
    assert!(r.count("crashed") >= 5 && r.count("not_run") == 0, "{}", r.summary["cases"]);
    r.assert_like_clean(&clean);
    // Declines are grouped by the library's reasons.
    let reasons: Vec<&str> =
        r.summary["per_variant"].as_array().unwrap().iter().filter_map(|v| v["decline"].as_str()).collect();
    assert!(reasons.iter().any(|w| w.starts_with("the toy does not do cvt.")), "{reasons:?}");

    // In process (no --isolate) each crash still names the case in flight:
    // the first case of that mode, among those the isolated run reported.
    for (mode, says, sign) in [
        ("abort", "crashed (SIGABRT)", "SIGABRT"),
        ("segv", "crashed (SIGSEGV)", "SIGSEGV"),
        ("stack", "crashed (SIGSEGV)", "overflowed its stack"),
        ("exit", "the library called exit()", "exit status 3"),
    ] {
        let env = [
            ("CRASH_EVERY", every(20000).to_string()),
            ("CRASH_SEED", seed.to_string()),
            ("CRASH_MODES", mode.to_string()),
        ];
        let o = check(&["--target-lib", so, "--symbol", "crashing_impl", vectors()], &env);
        let err = String::from_utf8_lossy(&o.stderr);
        let want = format!("{says} in crashing_impl on: ");
        let at = err.find(&want).unwrap_or_else(|| panic!("{mode}: no crash note on stderr:\n{err}"));
        let line = err[at + want.len()..].split("; run with --isolate to go on").next().unwrap();
        // (A stack overflow in the worker aborts too, after std says so.)
        let first = r.crashed.iter().find(|c| {
            let m = c["message"].as_str().unwrap();
            m.contains(sign) && (mode != "abort" || !m.contains("overflowed its stack"))
        });
        assert_eq!(first.and_then(|c| c["case"].as_str()), Some(line), "{mode}: {err}");
        assert!(!o.status.success(), "{mode}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn batch_end_marks_each_batch() {
    let read = cases().len();
    let dir = scratch("batch-end");
    // The adapter asserts that an empty line comes only after a request; with
    // --batch 7 and a restart after each failure the batches are many and short.
    let state = dir.join("lives");
    let cmd = format!("{} --batch-end", flaky_cmd(Some(&state), every(20000), 2, "exit,garbage"));
    let args = ["--json", "--batch-end", "--batch", "7", "--restart", "--target-cmd", &cmd, vectors()];
    let r = report(&check(&args, &[]));
    r.assert_identity(read);
    assert!(r.count("crashed") >= 3, "{}", r.summary["cases"]);
    assert!(!r.stderr.contains("an empty line where none was due"), "{}", r.stderr);
    // An adapter that does not expect the marker fails at once (the marker is opt-in).
    let r = report(&check(&["--json", "--batch-end", "--target-cmd", &flaky_cmd(None, 0, 0, ""), vectors()], &[]));
    r.assert_identity(read);
    assert_eq!(r.count("crashed"), 1);
    let _ = std::fs::remove_dir_all(dir);
}

/// PTX_CVT_SOAK_SECONDS, default 60 in the full suite, else 10.
fn soak_seconds() -> u64 {
    let default = if ptx_cvt_tests::full_suite() { 60 } else { 10 };
    std::env::var("PTX_CVT_SOAK_SECONDS").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Seconds (`soak_seconds`) of pseudo-random windows of the vectors through a flaky program with
/// --restart and a crashing library in workers, alternately, each seed
/// different: no case lost, no verdict changed.
#[test]
fn soak() {
    let all = cases();
    let dir = scratch("soak");
    let so = crash_lib(&dir);
    let clean = answers(run(
        &mut ProcessImpl::spawn(&flaky_cmd(None, 0, 0, ""), Duration::from_secs(5), false).unwrap(),
        &all,
        1,
    ));
    let clean_lib = so.as_ref().map(|so| answers(run(&mut SharedLib::open(so, "clean_impl").unwrap(), &all, 1)));
    let until = Instant::now() + Duration::from_secs(soak_seconds());
    let (mut rounds, mut crashes) = (0u64, 0usize);
    let mut seed = 100u64;
    while Instant::now() < until {
        seed += 1;
        let len = 2000 + (seed * 7919 % 8000) as usize;
        let start = (seed * 104_729 % (all.len() - len) as u64) as usize;
        let window = &all[start..start + len];
        match (&so, &clean_lib) {
            (Some(so), Some(clean_lib)) if !seed.is_multiple_of(2) => {
                let env = [
                    ("CRASH_EVERY", (200 + seed % 700).to_string()),
                    ("CRASH_SEED", seed.to_string()),
                    ("CRASH_MODES", "exit,segv,kill,abort,stack,print".to_string()),
                ];
                let mut iso = isolated(so, "crashing_impl", &env);
                let want = &clean_lib[start..start + len];
                crashes += compare(window, want, &run(&mut iso, window, u64::MAX)).len();
            }
            _ => {
                let state = dir.join(format!("lives-{seed}"));
                // Hangs cost a timeout each: the other tests have them.
                let cmd = flaky_cmd(Some(&state), 200 + seed % 800, seed, "exit,segv,kill,abort,garbage,wrong,short");
                let mut p = ProcessImpl::spawn(&cmd, Duration::from_secs(2), true).unwrap();
                crashes += compare(window, &clean[start..start + len], &run(&mut p, window, u64::MAX)).len();
            }
        }
        rounds += 1;
    }
    eprintln!("soak: {rounds} rounds, {crashes} crashes survived");
    assert!(rounds >= 2 && crashes > 0);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn fuzz_and_sweep_go_on_with_isolate() {
    let dir = scratch("fuzz-sweep");
    let Some(so) = crash_lib(&dir) else { return };
    let so = so.to_str().unwrap();
    let env = [("CRASH_EVERY", "2000".to_string()), ("CRASH_MODES", "abort,segv".to_string())];
    let lib = ["--target-lib", so, "--symbol", "crashing_impl", "--isolate", "--timeout", "2"];
    let mut cmd = Command::new(bin());
    cmd.arg("fuzz").args(lib).args(["--filter", "cvt.rn.f16.f32", "--cases", "20000", "--seconds", "0", "--seed", "1"]);
    let o = cmd.envs(env.iter().map(|(k, v)| (k, v))).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    let crashed = err.matches("isolated: the worker died (signal: ").count();
    assert!(crashed >= 2, "{err}");
    // All 20000 cases accounted, each crash once.
    // `cases: 1 passed, 2 failed, 3 unsupported, 4 crashed, 5 not run; variants: …`
    let totals = out.lines().find(|l| l.starts_with("cases: ")).unwrap_or_else(|| panic!("no totals:\n{out}"));
    let cases = totals["cases: ".len()..].split(';').next().unwrap();
    let n = |k: &str| -> u64 {
        let part = cases.split(", ").find(|p| p.ends_with(k)).unwrap_or_else(|| panic!("no {k} in {totals}"));
        part.split(' ').next().unwrap().parse().unwrap()
    };
    assert_eq!(n("crashed") as usize, crashed, "{totals}");
    let sum: u64 = cases.split(", ").map(|p| p.split(' ').next().unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(sum, 20000, "{totals}");

    let mut cmd = Command::new(bin());
    cmd.args(["sweep", "cvt.rn.f16.f32", "--range", "0x3f000000..0x3f010000"]).args(lib);
    let o = cmd.envs(env.iter().map(|(k, v)| (k, v))).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let crashed = err.matches("isolated: the worker died (signal: ").count() as u64;
    assert!(crashed >= 2, "{err}");
    let all = format!("{out}{err}");
    let compared: u64 = all.split(" input(s) compared").next().unwrap().rsplit(' ').next().unwrap().parse().unwrap();
    assert_eq!(compared + crashed, 0x10000, "{all}");
    let _ = std::fs::remove_dir_all(dir);
}
