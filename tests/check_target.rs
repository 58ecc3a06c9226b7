//! `ptx-cvt check --target-cmd / --target-lib` (issue 11): an implementation
//! runs over every committed compact vector in one command; declined cases
//! are counted as unsupported; the triage names each planted bug class once.
//!
//! The implementations are the deliberately buggy toys of this repository:
//! examples/toy-interp/toy_interp.py (four planted bugs, declines every form
//! it lacks) and capi/examples/toy_impl.c's `cvt_impl_buggy` (two bugs).

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::{Command, Output};

use ptx_cvt_tests::{bin, build_toy_impl, compact_vectors, python3 as python, workspace};
use serde_json::Value;

fn toy_interp(fixed: bool) -> String {
    let path = workspace().join("examples/toy-interp/toy_interp.py");
    format!("python3 '{}'{}", path.display(), if fixed { " --fixed" } else { "" })
}

/// capi/examples/toy_impl.c as a shared library, or None without a C compiler.
fn toy_lib() -> Option<PathBuf> {
    build_toy_impl(&std::env::temp_dir().join(format!("ptx-cvt-check-target-{}", std::process::id())))
}

fn check(args: &[&str]) -> Output {
    Command::new(bin()).arg("check").args(args).output().expect("run ptx-cvt check")
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Case lines in the committed compact vectors whose instruction is not in `implemented`.
fn cases_outside(implemented: &[&str]) -> u64 {
    let set: HashSet<&str> = implemented.iter().copied().collect();
    compact_vectors()
        .iter()
        .flat_map(|(_, t)| t.lines())
        .filter_map(|l| l.split('#').next().and_then(|b| b.split_whitespace().next()))
        .filter(|instr| !set.contains(instr))
        .count() as u64
}

/// The summary object of `--json` output (its last line), every line parsed.
fn summary(stdout: &str) -> Value {
    let values: Vec<Value> =
        stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}"))).collect();
    let last = values.last().expect("output").clone();
    last.get("summary").unwrap_or_else(|| panic!("no summary in {last}")).clone()
}

/// The forms toy_interp.py implements (its FORMS table).
const TOY_FORMS: [&str; 11] = [
    "cvt.rn.f16.f32",
    "cvt.rzi.s32.f32",
    "cvt.rzi.s32.f64",
    "cvt.s32.s8",
    "cvt.s16.s8",
    "cvt.u16.u8",
    "cvt.u32.u8",
    "cvt.u32.u16",
    "cvt.s32.s16",
    "cvt.u64.u32",
    "cvt.s64.s32",
];

/// Its four planted bugs, as bug classes: the explanation's words and name.
const TOY_BUGS: [(&str, &str); 4] = [
    ("`.rn` replaced: ties round away from zero (`.rna`)", "rounding-rna"), // 1: ties away from zero
    ("NaN → integer gives 0", "nan-int-zero"),                              // 2: f64 NaN → 0
    ("a signed source is zero-extended", "int-extend-flipped"),             // 3: s8 zero-extended
    // 4: u32.u8's register upper half is the byte's sign: nothing more specific than that.
    ("the low bits are right; the upper register bits are wrong", "low-bits-right"),
];

#[test]
fn process_over_the_committed_vectors() {
    if !python() {
        return;
    }
    let vectors = workspace().join("vectors/compact");
    let dir = vectors.to_str().unwrap();
    let out = check(&["--target-cmd", &toy_interp(false), dir]);
    let (so, se) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{so}\n{se}");
    assert!(!se.contains("error"), "declines are no adapter errors:\n{se}");
    // Each planted bug is named exactly once, and nothing else is.
    assert!(so.contains(&format!("{} bug class(es)", TOY_BUGS.len())), "{so}");
    for (bug, _) in TOY_BUGS {
        assert_eq!(so.matches(bug).count(), 1, "{bug}\n{so}");
    }
    // Every case of a form it lacks is unsupported, counted from the files themselves.
    let unsupported = cases_outside(&TOY_FORMS);
    assert!(so.contains(&format!(", {unsupported} unsupported, 0 crashed, 0 not run;")), "{so}");
    assert!(so.lines().count() < 60, "the default report stays short:\n{so}");

    // The same in JSON (on the toy's own forms, for time): every line parses,
    // the summary holds the classes and tallies.
    let filter = format!("cvt.{{{}}}", TOY_FORMS.iter().map(|f| &f[4..]).collect::<Vec<_>>().join(","));
    let out = check(&["--json", "--filter", &filter, "--target-cmd", &toy_interp(false), dir]);
    let s = summary(&text(&out).0);
    let classes: Vec<String> = s["bug_classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["explanation"]["name"].as_str().unwrap().to_string())
        .collect();
    let mut want: Vec<String> = TOY_BUGS.iter().map(|(_, name)| name.to_string()).collect();
    let mut got = classes.clone();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(s["cases"]["unsupported"].as_u64(), Some(0));
    assert_eq!(s["variants"]["failed"].as_u64(), Some(5), "{s}");

    // Fixed, it passes; unsupported cases fail only on request.
    let fixed = check(&["--filter", &filter, "--target-cmd", &toy_interp(true), dir]);
    assert_eq!(fixed.status.code(), Some(0), "{}", text(&fixed).0);
    let some = format!("{},u8.u16", &filter[..filter.len() - 1]);
    let some = format!("{some}}}");
    let lenient = check(&["-q", "--filter", &some, "--target-cmd", &toy_interp(true), dir]);
    assert_eq!(lenient.status.code(), Some(0));
    let strict = check(&["-q", "--fail-on-unsupported", "--filter", &some, "--target-cmd", &toy_interp(true), dir]);
    assert_eq!(strict.status.code(), Some(1));
    // Every case declined: nothing was checked, exit 2, unless --allow-empty.
    let none = check(&["-q", "--filter", "cvt.u8.u16", "--target-cmd", &toy_interp(true), dir]);
    assert_eq!(none.status.code(), Some(2));
    assert!(text(&none).1.contains("error: no case was answered: "), "{}", text(&none).1);
    let allowed = check(&["-q", "--allow-empty", "--filter", "cvt.u8.u16", "--target-cmd", &toy_interp(true), dir]);
    assert_eq!(allowed.status.code(), Some(0));

    // --natural-widths: simple adapters see no wider registers, so bug 4 (a
    // register-width bug) is out of reach and the rest stay.
    let natural = check(&["--natural-widths", "--filter", &filter, "--target-cmd", &toy_interp(false), dir]);
    let (so, se) = text(&natural);
    assert!(so.contains("3 bug class(es)") && !so.contains(TOY_BUGS[3].0), "{so}");
    assert!(se.contains("with wider registers left out (--natural-widths)"), "{se}");
}

#[test]
fn shared_library_over_the_committed_vectors() {
    let Some(so_path) = toy_lib() else { return };
    let lib = so_path.to_str().unwrap();
    let vectors = workspace().join("vectors/compact");
    let dir = vectors.to_str().unwrap();
    // The correct symbol: everything it handles passes, the rest is unsupported.
    let out = check(&["--target-lib", lib, dir]);
    let (so, se) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{so}\n{se}");
    let implemented = ["cvt.s16.s8", "cvt.u32.u16", "cvt.rn.f16.f32"];
    let unsupported = cases_outside(&implemented);
    assert!(so.contains(&format!(", {unsupported} unsupported, 0 crashed, 0 not run;")), "{so}");
    assert!(so.contains("cvt_impl returned 1"), "{so}");

    // cvt_impl_buggy: its two bugs, each named once.
    let out = check(&["--target-lib", lib, "--symbol", "cvt_impl_buggy", dir]);
    let (so, se) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{so}\n{se}");
    assert!(so.contains("2 bug class(es)"), "{so}");
    // 7e00 for NaN is a NaN (sm_90 writes 7fff); the u32.u16 source register is used unchopped.
    assert_eq!(so.matches("only bits the ISA leaves open differ").count(), 1, "{so}");
    assert_eq!(so.matches("the source bits are copied unchanged").count(), 1, "{so}");
    // --table lists every variant with its tally.
    let out = check(&["--table", "-q", "--target-lib", lib, "--symbol", "cvt_impl_buggy", dir]);
    assert_eq!(text(&out).0.lines().count(), 1, "-q: the totals line only");
    let _ = std::fs::remove_dir_all(so_path.parent().unwrap());
}

#[test]
fn recorded_results_in_lane_syntax_and_without_classes() {
    // Issue 11: `3c00_3c00` is the same result as `3c003c00` (vectors/README.md, lanes).
    let dir = std::env::temp_dir().join(format!("ptx-cvt-check-lanes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("lanes.cases");
    std::fs::write(&f, "cvt.rn.f16x2.f32 3f800000 3f800000 => 3c00_3c00\ncvt.rn.f16.f32 3f803000 => 3c01\n").unwrap();
    let out = check(&[f.to_str().unwrap()]);
    let (so, _) = text(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(so.ends_with("1 passed, 1 failed\n"), "{so}");
    // A bare results file still gets coverage classes (from the oracle): 1+3·2^-12 is a tie, to even is up.
    assert!(so.contains("  class    normal/normal/tie-even-up"), "{so}");
    let _ = std::fs::remove_dir_all(dir);
}
