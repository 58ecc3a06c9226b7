//! `ptx-cvt check --target T` over vectors of every target (issue 13): case
//! lines whose instruction is legal, but not on T, are skipped and counted,
//! not errors; without --target every line is checked as before.
//!
//! Which files hold forms legal on sm_90 comes from their `# targets:` header
//! line (written by `ptx-cvt gen` from the legality snapshot).

use std::path::{Path, PathBuf};
use std::process::Command;

use ptx_cvt_tests::{bin, compact_vectors, python3, workspace};
use serde_json::Value;

/// Exit code, stdout, stderr of `ptx-cvt check ARGS`.
fn check(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(bin()).arg("check").args(args).output().expect("run ptx-cvt check");
    (o.status.code().unwrap_or(-1), String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
}

/// The value of a `# KEY: value` header line.
fn header<'a>(text: &'a str, key: &str) -> &'a str {
    let tag = format!("# {key}:");
    text.lines().find_map(|l| l.strip_prefix(tag.as_str())).map(str::trim).expect("a header line")
}

fn legal_on(text: &str, target: &str) -> bool {
    header(text, "targets").split_whitespace().any(|t| t == target)
}

fn case_lines(text: &str) -> u64 {
    text.lines().filter(|l| !l.split('#').next().unwrap_or("").trim().is_empty()).count() as u64
}

fn summary(out: &str) -> Value {
    let last = out.lines().last().expect("a summary line");
    serde_json::from_str::<Value>(last).expect("JSON")["summary"].clone()
}

/// A fresh directory holding `files` (name, text).
fn folder(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptx-cvt-check-on-target-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (f, t) in files {
        std::fs::write(d.join(f), t).unwrap();
    }
    d
}

fn vector(name: &str) -> String {
    std::fs::read_to_string(workspace().join("vectors/compact").join(name)).unwrap()
}

/// Legal on sm_90, and legal only on newer targets (its header says which).
const LEGAL: &str = "cvt.rn.f16.f32.cases";
const NEWER: &str = "cvt.rn.bf16x2.e2m1x2.cases";

#[test]
fn committed_vectors_on_sm_90_skip_the_other_targets_forms() {
    let files = compact_vectors();
    let off: Vec<&(String, String)> = files.iter().filter(|(_, t)| !legal_on(t, "sm_90")).collect();
    let skipped: u64 = off.iter().map(|(_, t)| case_lines(t)).sum();
    let all: u64 = files.iter().map(|(_, t)| case_lines(t)).sum();
    assert!(skipped > 0 && skipped < all, "the folder mixes targets");
    let dir = workspace().join("vectors/compact");
    let (code, out, err) = check(&["--target", "sm_90", "--json", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let s = summary(&out);
    assert_eq!(s["skipped_target"], skipped);
    assert_eq!(s["cases"]["passed"], all - skipped);
    assert_eq!((s["cases"]["failed"].as_u64(), s["errors"].as_u64()), (Some(0), Some(0)));
    let first = header(&off[0].1, "instruction");
    let want = format!(
        "{skipped} case(s) skipped: not legal on sm_90 with PTX ISA 9.5 ({} instruction(s), e.g. {first})",
        off.len()
    );
    assert!(err.contains(&want), "no `{want}` in\n{err}");
}

#[test]
fn mixed_folder_skips_by_form_never_by_value() {
    let (legal, newer) = (vector(LEGAL), vector(NEWER));
    assert!(legal_on(&legal, "sm_90") && !legal_on(&newer, "sm_90") && legal_on(&newer, "sm_100a"));
    // A wrong result on a skipped line is not looked at (the real one is 00000000:
    // the file's first case).
    let planted = format!("{newer}cvt.rn.bf16x2.e2m1x2 00 => 00000001\n");
    assert!(newer.contains("\ncvt.rn.bf16x2.e2m1x2 00 => 00000000 "));
    let d = folder("mixed", &[(LEGAL, &legal), (NEWER, &planted)]);
    let dir = d.to_str().unwrap();
    let (n_legal, n_newer) = (case_lines(&legal), case_lines(&planted));

    let (code, out, err) = check(&["--target", "sm_90", dir]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().last(), Some(format!("{n_legal} passed, 0 failed").as_str()), "{out}");
    let want = format!(
        "{n_newer} case(s) skipped: not legal on sm_90 with PTX ISA 9.5 (1 instruction(s), e.g. cvt.rn.bf16x2.e2m1x2)"
    );
    assert!(err.contains(&want), "no `{want}` in\n{err}");
    assert!(!err.contains("error"), "{err}");

    // Without --target every line is checked, the planted mismatch too.
    let (code, out, err) = check(&[dir]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out.lines().last(), Some(format!("{} passed, 1 failed", n_legal + n_newer - 1).as_str()), "{out}");
    assert!(!err.contains("skipped"), "{err}");
    let (_, out, _) = check(&["--json", dir]);
    assert_eq!(summary(&out)["skipped_target"], 0);

    // On a target that has both forms nothing is skipped.
    let (code, out, err) = check(&["--target", "sm_100a", "--json", dir]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(summary(&out)["skipped_target"], 0);
    assert_eq!(summary(&out)["cases"]["failed"], 1);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn everything_skipped_is_no_cases() {
    let newer = vector(NEWER);
    let d = folder("newer", &[(NEWER, &newer)]);
    let dir = d.to_str().unwrap();
    let (code, out, err) = check(&["--target", "sm_90", dir]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("error: no cases: all cases were skipped as not legal on sm_90 with PTX ISA 9.5"), "{err}");
    assert_eq!(out, "0 passed, 0 failed\n");
    let (code, out, err) = check(&["--target", "sm_90", "--allow-empty", "--json", dir]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(summary(&out)["skipped_target"], case_lines(&newer));
    // A version too old for the form: on sm_100a it needs PTX ISA 9.2
    // (tests/data/ptxas-legality-packed.tsv, the row of sm_100a at 8.8).
    let (code, _, err) = check(&["--target", "sm_100a", "--ptx-version", "8.8", dir]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("all cases were skipped as not legal on sm_100a with PTX ISA 8.8"), "{err}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn lines_wrong_on_every_target_stay_errors() {
    // Two operands where the form takes one: an error with or without --target.
    let line = "cvt.rn.bf16x2.e2m1x2 00 00 => 00000000\n";
    let d = folder("wrong", &[("wrong.cases", line)]);
    let file = d.join("wrong.cases");
    for args in [&["--target", "sm_90"][..], &[]] {
        let mut a = args.to_vec();
        a.push(file.to_str().unwrap());
        let (code, _, err) = check(&a);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("wrong.cases:1: error:") && !err.contains("skipped"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn implementation_runs_only_the_targets_cases() {
    if !python3() {
        return;
    }
    let (legal, newer) = (vector(LEGAL), vector(NEWER));
    let d = folder("imp", &[(LEGAL, &legal), (NEWER, &newer)]);
    let interp: &Path = &workspace().join("examples/toy-interp/toy_interp.py");
    let cmd = format!("python3 '{}' --fixed", interp.display());
    let (code, out, err) = check(&["--target", "sm_90", "--json", "--target-cmd", &cmd, d.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let s = summary(&out);
    assert_eq!(s["skipped_target"], case_lines(&newer));
    assert_eq!(
        s["cases"]["passed"].as_u64().unwrap() + s["cases"]["unsupported"].as_u64().unwrap(),
        case_lines(&legal)
    );
    let _ = std::fs::remove_dir_all(d);
}
