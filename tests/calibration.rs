//! The calibration corpus (calib/README.md): calib/calibrate.py scores the
//! diagnosis against implementations with known defects (mutants of
//! calib/c/convert.c). These tests check that the scorer runs and that its
//! numbers are sane; they do not judge the diagnosis (no quality
//! thresholds).

use std::process::Command;

use ptx_cvt_tests::{bin, python3, workspace};
use serde_json::Value;

fn have_cc() -> bool {
    let ok = Command::new("cc").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: no C compiler (`cc`) to build calib/c/convert.c");
    }
    ok
}

/// The scorer's arithmetic on a tiny hand-made input.
#[test]
fn calibration_scorer_arithmetic() {
    if !python3() {
        return;
    }
    let out = Command::new("python3")
        .current_dir(workspace())
        .args(["calib/calibrate.py", "--self-test"])
        .output()
        .expect("run calib/calibrate.py --self-test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "self-test failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("self-test: ok"), "{stdout}");
}

fn unit(r: &Value, key: &str, who: &str) -> f64 {
    let x = r[key].as_f64().unwrap_or_else(|| panic!("{who}: no {key} in {r}"));
    assert!((0.0..=1.0).contains(&x), "{who}: {key} = {x} is outside [0, 1]");
    x
}

/// Three mutants of the sample, scored with the binary under test.
#[test]
fn calibration_sample_runs() {
    if !python3() || !have_cc() {
        return;
    }
    let out = Command::new("python3")
        .current_dir(workspace())
        .args(["calib/calibrate.py", "--sample", "3", "--no-libs", "--json", "--bin"])
        .arg(bin())
        .output()
        .expect("run calib/calibrate.py");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "calibrate.py failed:\n{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("calibrate.py --json prints one JSON object");
    let impls = v["implementations"].as_array().expect("implementations");
    assert_eq!(impls.len(), 3, "{stderr}");
    let mut table = String::from("name\tdefects\tclasses\tpurity\thome\tmismatches\n");
    for r in impls {
        let name = r["name"].as_str().unwrap_or("?");
        assert!(r.get("error").is_none(), "{name}: {}", r["error"]);
        let defects = r["defects"].as_u64().unwrap();
        assert!(defects >= 1, "{name}: no defect made a mismatch");
        assert!(r["classes"].as_u64().unwrap() >= 1, "{name}: no class");
        let purity = unit(r, "purity", name);
        let home = unit(r, "home", name);
        assert_eq!(r["unattributed"].as_u64(), Some(0), "{name}: mismatches without a defect");
        table += &format!("{name}\t{defects}\t{}\t{purity:.3}\t{home:.3}\t{}\n", r["classes"], r["mismatches"]);
    }
    let corpus = &v["corpus"];
    for which in ["mean", "pooled"] {
        unit(&corpus[which], "purity", which);
        unit(&corpus[which], "home", which);
    }
    assert_eq!(corpus["unattributed"].as_u64(), Some(0));
    eprintln!("{table}corpus: {}", corpus);
}
