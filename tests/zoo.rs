//! The defect zoo (issue 23): implementations carrying many planted defects
//! at once, over overlapping scopes, checked over the committed vectors with
//! `ptx-cvt check --json --all`: tests/zoo/zoo_interp.py (15 defects,
//! `--target-cmd`) and tests/zoo/zoo_impl.c (6 defects, `--target-lib`).
//! Each zoo logs which defect changed each case (its ground truth); the
//! report must have exactly one bug class per defect, named by the planted
//! explanation, holding at least 95% of the defect's cases, and each class
//! must hold one defect.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use ptx_cvt_tests::{bin, python3, workspace};
use serde_json::Value;

/// Each planted defect and the explanations that name it (several where
/// the committed vectors cannot tell them apart).
const PYTHON_DEFECTS: &[(&str, &[&str])] = &[
    ("int64-source-zero", &["source-zero"]),
    ("rn-for-s32", &["rounding-rn"]),
    ("sat-ignored-int-float", &["modifiers-ignored"]),
    // On the vectors, copying the register and zero upper bits are the same answers.
    ("same-size-copy", &["identity", "upper-bits-zero"]),
    ("f16-through-f32", &["source-as-f32"]),
    ("s64-clamped-in-32-bits", &["via-s32"]),
    ("x86-indefinite", &["x86-indefinite"]),
    ("narrow-wraps", &["wraps"]),
    ("f64-integer-rounding-ignored", &["integer-rounding-ignored"]),
    ("f32-f64-modifiers-ignored", &["modifiers-ignored"]),
    ("bf16-truncates", &["rounding-rz"]),
    ("f16x2-lanes-swapped", &["lanes-swapped"]),
    ("f16-subnormals-flushed", &["flushes-sources"]),
    ("f64-nan-all-ones", &["nan-int-all-ones"]),
    ("relu-ignored", &["modifiers-ignored"]),
];

const C_DEFECTS: &[(&str, &[&str])] = &[
    ("via-f64", &["via-f64"]),
    ("x86", &["x86-indefinite"]),
    ("sat", &["modifiers-ignored"]),
    ("zext", &["int-extend-flipped"]),
    ("rz-f64", &["rounding-rn"]),
    ("u32-wraps", &["wraps-negative"]),
];

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptx-cvt-zoo-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `check --json --all` over vectors/compact with `target` args: the
/// mismatch objects and the summary.
fn check(target: &[&str], env: &[(&str, &Path)]) -> (Vec<Value>, Value) {
    let mut cmd = Command::new(bin());
    cmd.current_dir(workspace()).args(["check", "--json", "--all"]).args(target).arg("vectors/compact");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run ptx-cvt check");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr:\n{stderr}");
    let mut mismatches = Vec::new();
    let mut summary = Value::Null;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).expect("JSON lines");
        if let Some(m) = v.get("mismatch") {
            mismatches.push(m.clone());
        } else if let Some(s) = v.get("summary") {
            summary = s.clone();
        }
    }
    (mismatches, summary)
}

/// The key a zoo logs a case by: `instruction operands /WIDTH`.
fn key(m: &Value) -> String {
    let ops: Vec<&str> = m["operands"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
    let width = m["got"].as_str().unwrap().len() * 4;
    format!("{} {} /{width}", m["instruction"].as_str().unwrap(), ops.join(" ")).to_lowercase()
}

fn assess(zoo: &str, planted: &[(&str, &[&str])], log: &Path, mismatches: &[Value], summary: &Value) {
    let truth: HashMap<String, String> = std::fs::read_to_string(log)
        .expect("the zoo's log")
        .lines()
        .map(|l| {
            let (k, d) = l.split_once('\t').expect("key<TAB>defect");
            (k.to_lowercase(), d.to_string())
        })
        .collect();
    let classes: BTreeMap<u64, &Value> =
        summary["bug_classes"].as_array().unwrap().iter().map(|b| (b["id"].as_u64().unwrap(), b)).collect();
    // defect → class → cases, and class → defect → cases.
    let mut by_defect: BTreeMap<&str, BTreeMap<u64, usize>> = BTreeMap::new();
    let mut by_class: BTreeMap<u64, BTreeMap<&str, usize>> = BTreeMap::new();
    for m in mismatches {
        let class = m["bug_class"].as_u64().expect("every mismatch names its class");
        assert!(classes.contains_key(&class), "{m}");
        let d = truth.get(&key(m)).map_or("(no defect)", String::as_str);
        *by_defect.entry(d).or_default().entry(class).or_default() += 1;
        *by_class.entry(class).or_default().entry(d).or_default() += 1;
    }
    assert!(!by_defect.contains_key("(no defect)"), "{zoo}: mismatches no defect made: {:?}", by_defect["(no defect)"]);
    let mut report = String::new();
    // Two defects that are one hypothesis in two families share its class
    // (docs/diagnosis.md, "One cause, one class"); a class is the home of
    // two defects only then.
    let mut homes: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    for (defect, names) in planted {
        let spread = by_defect.get(defect).unwrap_or_else(|| panic!("{zoo}: defect {defect} made no mismatch"));
        let total: usize = spread.values().sum();
        let (&home, &n) = spread.iter().max_by_key(|(_, n)| **n).unwrap();
        let b = classes[&home];
        let name = b["explanation"]["name"].as_str().unwrap_or("(none)");
        report += &format!(
            "{defect}: {n}/{total} in class {home} ({name}: {})\n",
            b["explanation"]["text"].as_str().unwrap_or("")
        );
        assert!(n * 100 >= total * 95, "{zoo}: {defect}: only {n} of {total} cases in one class\n{report}");
        assert!(names.contains(&name), "{zoo}: {defect} is explained as {name}, planted {names:?}\n{report}");
        assert!(!b["explanation"]["text"].as_str().unwrap().is_empty());
        homes.entry(home).or_default().push(defect);
    }
    eprintln!("{zoo}:\n{report}");
    assert_eq!(classes.len(), homes.len(), "{zoo}: one class per planted defect\n{report}{by_class:?}");
    for (class, defects) in &by_class {
        let total: usize = defects.values().sum();
        let own: usize = homes[class].iter().map(|d| defects.get(d).copied().unwrap_or(0)).sum();
        assert!(own * 100 >= total * 95, "{zoo}: class {class} mixes defects: {defects:?}");
    }
}

#[test]
fn python_zoo_over_the_process_adapter() {
    if !python3() {
        return;
    }
    let dir = scratch("py");
    let log = dir.join("zoo.log");
    let cmd = format!("python3 tests/zoo/zoo_interp.py vectors/compact {}", log.display());
    let (mismatches, summary) = check(&["--target-cmd", &cmd], &[]);
    assess("zoo_interp.py", PYTHON_DEFECTS, &log, &mismatches, &summary);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn c_zoo_over_the_library_adapter() {
    let dir = scratch("c");
    let so = dir.join("libzoo_impl.so");
    let ws = workspace();
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-frounding-math", "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-I"])
        .arg(ws.join("capi/include"))
        .arg(ws.join("tests/zoo/zoo_impl.c"))
        .arg("-o")
        .arg(&so)
        .arg("-lm")
        .status()
        .is_ok_and(|s| s.success());
    if !built {
        eprintln!("skipped: no C compiler (`cc`) to build tests/zoo/zoo_impl.c");
        return;
    }
    let log = dir.join("zoo.log");
    let (mismatches, summary) = check(&["--target-lib", so.to_str().unwrap()], &[("ZOO_LOG", &log)]);
    assess("zoo_impl.c", C_DEFECTS, &log, &mismatches, &summary);
    std::fs::remove_dir_all(dir).ok();
}
