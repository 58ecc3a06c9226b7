//! `ptx-cvt check` of recorded results in blocks checked in parallel (issue
//! 14): the output is the same whatever the block size and whichever way a
//! line passes (fast path with the fast engine, with the exact engine, or
//! every line through the line-by-line code), and names the right lines.
//!
//! The input is the committed compact vectors with a BOM, CRLF line ends,
//! comments, blank lines, two planted mismatches, a malformed line, a non-UTF-8
//! line and an over-long line mixed in; the small block sizes put lines
//! across every block boundary.

use std::path::PathBuf;
use std::process::Command;

use ptx_cvt_tests::{bin, compact_vectors};
use serde_json::Value;

/// The input, and the line numbers of what was planted in it.
struct Input {
    text: Vec<u8>,
    cases: u64,
    early_mismatch: usize,
    deep_mismatch: usize,
    malformed: usize,
    not_utf8: usize,
    too_long: usize,
}

fn input() -> Input {
    let mut text = b"\xef\xbb\xbf# recorded results\r\n".to_vec();
    let mut n = 1;
    let mut cases = 0;
    let mut put = |text: &mut Vec<u8>, line: &[u8], crlf: bool| {
        text.extend_from_slice(line);
        text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        n += 1;
        n
    };
    let lines: Vec<String> = compact_vectors()
        .iter()
        .step_by(9)
        .flat_map(|(_, t)| t.lines().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let at = |f: f64| (lines.len() as f64 * f) as usize;
    let (mut early_mismatch, mut deep_mismatch, mut malformed, mut not_utf8, mut too_long) = (0, 0, 0, 0, 0);
    for (i, l) in lines.iter().enumerate() {
        let body = l.split('#').next().unwrap_or("").trim();
        cases += !body.is_empty() as u64;
        put(&mut text, l.as_bytes(), i % 5 == 0);
        if i % 97 == 0 {
            put(&mut text, b"", false);
            put(&mut text, b"  \t# a note", i % 2 == 0);
        }
        if i == at(0.01) {
            early_mismatch = put(&mut text, b"cvt.rn.f16.f32 3f800000 => 3c01  # planted", false);
        }
        if i == at(0.7) {
            malformed = put(&mut text, b"cvt.rn.f16.f32 3f80000 => 3c00", true);
        }
        if i == at(0.75) {
            not_utf8 = put(&mut text, b"cvt.rn.f16.f32 3f800000 => 3c00 # \xff", false);
        }
        if i == at(0.9) {
            deep_mismatch = put(&mut text, b"cvt.rzi.s32.f32 4f000000 => 80000000", false);
        }
        if i == at(0.95) {
            let mut long = b"cvt.rn.f16.f32 3f800000 => 3c00 #".to_vec();
            long.resize(5000, b'x');
            too_long = put(&mut text, &long, false);
        }
    }
    // No newline after the last line.
    text.extend_from_slice(b"cvt.s16.s8 139231c2 => ffffffc2");
    cases += 3;
    Input { text, cases, early_mismatch, deep_mismatch, malformed, not_utf8, too_long }
}

fn write(name: &str, text: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("ptx-cvt-check-blocks-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

/// Exit code, stdout, stderr of `ptx-cvt check ARGS FILE`.
fn check(args: &[&str], file: &str, block: Option<usize>, path: Option<&str>) -> (i32, String, String) {
    let mut c = Command::new(bin());
    c.arg("check").args(args).arg(file);
    c.env_remove("PTX_CVT_CHECK_BLOCK").env_remove("PTX_CVT_CHECK_PATH");
    if let Some(b) = block {
        c.env("PTX_CVT_CHECK_BLOCK", b.to_string());
    }
    if let Some(p) = path {
        c.env("PTX_CVT_CHECK_PATH", p);
    }
    let o = c.output().expect("run ptx-cvt check");
    (o.status.code().unwrap_or(-1), String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
}

#[test]
fn same_report_for_every_block_size_and_path() {
    let inp = input();
    let f = write("all.cases", &inp.text);
    let file = f.to_str().unwrap();
    assert!(inp.text.len() > 4 << 18, "more than four default blocks");
    let args_sets: [&[&str]; 6] = [
        &["--all"],
        &["--json", "--all"],
        &["--max-failures", "2"],
        &[],
        &["--profile", "isa", "--all"],
        &["--target", "sm_90", "--filter", "cvt.r[nz].*", "--json"],
    ];
    for args in args_sets {
        let want = check(args, file, Some(16), Some("line"));
        for (block, path) in [(Some(16), None), (Some(100), Some("exact")), (Some(4096), None), (None, None)] {
            assert_eq!(check(args, file, block, path), want, "{args:?} block {block:?} path {path:?}");
        }
        for (block, path) in [(None, Some("line")), (None, Some("exact"))] {
            assert_eq!(check(args, file, block, path), want, "{args:?} block {block:?} path {path:?}");
        }
    }

    // What the report says, and where.
    let (code, out, err) = check(&["--all"], file, None, None);
    assert_eq!(code, 2, "{err}");
    let passed = inp.cases - 2;
    assert!(out.ends_with(&format!("{passed} passed, 2 failed\n")), "{}", &out[out.len().saturating_sub(300)..]);
    for (line, what) in [
        (inp.malformed, "error: operand 1: `3f80000` has 7 hex digits"),
        (inp.not_utf8, "error: line is not valid UTF-8"),
        (inp.too_long, "error: line is 5000 bytes long"),
    ] {
        assert!(err.contains(&format!("{file}:{line}: {what}")), "no `{file}:{line}: {what}` in\n{err}");
    }
    assert_eq!(err.matches(": error: ").count(), 3, "{err}");
    let reported: Vec<&str> = out.lines().filter(|l| l.contains(" MISMATCH ")).collect();
    assert_eq!(
        reported,
        [
            format!("{file}:{}: MISMATCH cvt.rn.f16.f32 3f800000", inp.early_mismatch),
            format!("{file}:{}: MISMATCH cvt.rzi.s32.f32 4f000000", inp.deep_mismatch)
        ]
    );

    // JSON: every line whole; the errors as read, then the mismatches (grouped
    // into classes at the end), each in file order.
    let (_, out, _) = check(&["--json", "--all"], file, Some(100), None);
    let values: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).expect("a whole JSON line")).collect();
    let lines: Vec<u64> = values
        .iter()
        .filter_map(|v| v.get("error").or_else(|| v.get("mismatch")))
        .map(|m| m["line"].as_u64().unwrap())
        .collect();
    let want = [inp.malformed, inp.not_utf8, inp.too_long, inp.early_mismatch, inp.deep_mismatch].map(|n| n as u64);
    assert_eq!(lines, want);
    assert!(values.iter().filter_map(|v| v.get("mismatch")).all(|m| m["bug_class"].as_u64().is_some()));
    assert!(values.last().unwrap().get("summary").is_some());

    // --max-failures 2 stops at the deep mismatch: the long line after it is not read.
    let (code, out, err) = check(&["--max-failures", "2"], file, Some(4096), None);
    assert_eq!(code, 2, "(errors before the stop) {err}");
    assert!(err.contains(&format!("stopped early at {file}:{} after 2 mismatch(es)", inp.deep_mismatch)), "{err}");
    assert!(!err.contains("5000 bytes"), "{err}");
    assert!(out.contains(&format!("{file}:{}: MISMATCH", inp.early_mismatch)), "{out}");
    let _ = std::fs::remove_file(f);
}

#[test]
fn stdin_and_file_agree() {
    let inp = input();
    let f = write("stdin.cases", &inp.text);
    let (code, out, err) = check(&["--json"], f.to_str().unwrap(), Some(1000), None);
    let o = Command::new(bin())
        .args(["check", "--json", "-"])
        .env("PTX_CVT_CHECK_BLOCK", "1000")
        .stdin(std::fs::File::open(&f).unwrap())
        .output()
        .unwrap();
    let name = f.to_str().unwrap();
    let json_name = serde_json::to_string(name).unwrap();
    assert_eq!(o.status.code(), Some(code));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), out.replace(&json_name, "\"<stdin>\""));
    assert_eq!(String::from_utf8(o.stderr).unwrap(), err.replace(name, "<stdin>"));
    let _ = std::fs::remove_file(f);
}
