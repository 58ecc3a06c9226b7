//! ptxas as evidence: the committed lowering atlas is what
//! scripts/ptxas-lowering.py makes of its committed record (no ptxas needed),
//! `ptx-cvt lowering` prints it, and `check --target-ptxas` finds ptxas
//! 13.5's folding defect end to end where ptxas and nvdisasm can be had
//! (scripts/get-ptxas.sh, scripts/get-nvdisasm.sh; $PTX_CVT_PTXAS,
//! $PTX_CVT_NVDISASM or PATH), and says SKIPPED where not.

use std::process::Command;

use ptx_cvt_harness::ptxas::Tools;
use ptx_cvt_tests::{bin, python3, workspace};

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin()).args(args).current_dir(workspace()).output().unwrap();
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), s(&out.stdout), s(&out.stderr))
}

#[test]
fn the_committed_lowering_table_is_what_the_script_makes_of_its_record() {
    if !python3() {
        println!("SKIPPED: no python3 to run scripts/ptxas-lowering.py");
        return;
    }
    let out = Command::new("python3")
        .args(["scripts/ptxas-lowering.py", "--table-only", "--check"])
        .current_dir(workspace())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn lowering_prints_a_targets_rows() {
    // ptxas 13.5.37 -O3 -arch=sm_90: cvt.f32.bf16 is `SHF.L.U32 R7, R2, 0x10, RZ`, a sequence.
    let (code, out, err) = run(&["lowering", "--target", "sm_90", "--filter", "cvt.f32.bf16"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("cvt.f32.bf16") && out.contains("sequence") && out.contains("SHF.L.U32"), "{out}");
    assert!(out.contains("# tools: ptxas 13.5.37"), "{out}");
    let (code, out, _) = run(&["lowering", "--target", "sm_120a", "--json", "--kind", "one"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["rows"].as_array().unwrap().iter().all(|r| r["class"] == "one"));
}

/// The defect: `cvt.rni.<int>.f64 3fe0000000000001` (0.5 + 1 ulp) folds to 0,
/// where the correctly rounded answer is 1 (ptxas 13.5.37 -O3 -arch=sm_90:
/// `STG.E desc[UR4][R2.64], RZ`; its run-time code is one `F2I.F64`).
/// 1.5 folds to 2 for each, so no one rounding mode explains the defect; a
/// NaN source is not folded.
const DEFECT: &str = "\
cvt.rni.s32.f64 3fe0000000000001
cvt.rni.u32.f64 3fe0000000000001
cvt.rni.s64.f64 3fe0000000000001
cvt.rni.u64.f64 3fe0000000000001
cvt.rni.u16.f64 3fe0000000000001
cvt.rni.s32.f64 3ff8000000000000
cvt.rni.u32.f64 3ff8000000000000
cvt.rni.s64.f64 3ff8000000000000
cvt.rni.u64.f64 3ff8000000000000
cvt.rni.u16.f64 3ff8000000000000
cvt.rni.s32.f64 7ff8000000000000
";

#[test]
fn check_target_ptxas_finds_the_folding_defect() {
    let tools = match Tools::find(None) {
        Ok(t) => t,
        Err(e) => {
            println!("SKIPPED the end-to-end ptxas test: {e}");
            return;
        }
    };
    println!("with {} and {}", tools.ptxas.display(), tools.nvdisasm.display());
    let dir = std::env::temp_dir().join(format!("ptx-cvt-ptxas-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("defect.cases");
    std::fs::write(&file, DEFECT).unwrap();
    let (code, out, err) = run(&["check", "--target-ptxas", file.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("cases: 5 passed, 5 failed, 1 unsupported"), "{out}");
    // One defect, one class, naming all five destinations.
    assert!(out.contains("1 bug class(es)") && out.contains("cvt.rni.{"), "{out}");
    assert!(out.contains("not folded by ptxas at -O3"), "{out}");
}

#[test]
fn without_ptxas_the_command_says_so_and_exits_2() {
    let (code, _, err) = run(&["check", "--target-ptxas=/nonexistent/ptxas", "vectors/known-answers"]);
    assert_eq!(code, 2);
    assert!(err.contains("--target-ptxas /nonexistent/ptxas: no such file"), "{err}");
    let empty = std::env::temp_dir().join(format!("ptx-cvt-no-tools-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(bin())
        .args(["fuzz", "--target-ptxas", "--seconds", "1"])
        .env("PATH", &empty)
        .env("HOME", &empty)
        .env("XDG_CACHE_HOME", &empty)
        .env_remove("PTX_CVT_PTXAS")
        .env_remove("PTX_CVT_NVDISASM")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&empty);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ptxas not found") && err.contains("scripts/get-ptxas.sh"), "{err}");
}

/// The cases of evidence/ptxas-13.5/ that may fail under the default profile
/// (its README, "Measured"): the folding defect only (the `sm90` profile
/// follows the sequences). Any other failure is a new disagreement to write
/// up; the defect must always fail.
#[test]
fn the_evidence_folder_fails_only_where_its_readme_says() {
    let (code, out, err) = run(&["check", "--all", "evidence/ptxas-13.5/"]);
    assert!(code == 0 || code == 1, "{err}");
    let failed: Vec<(String, String)> = out
        .lines()
        .filter_map(|l| l.split_once("MISMATCH ").map(|(_, c)| c))
        .map(|c| {
            let (i, o) = c.split_once(' ').unwrap();
            (i.to_string(), o.to_string())
        })
        .collect();
    for (i, o) in &failed {
        let documented =
            i.starts_with("cvt.rni.") && i.ends_with(".f64") && (o == "3fe0000000000001" || o == "bfe0000000000001");
        assert!(documented, "not in evidence/ptxas-13.5/README.md: {i} {o}\n{out}");
    }
    assert_eq!(failed.len(), 14, "{out}");
    for f in ["cvt.rni.s32.f64", "cvt.rni.u32.f64", "cvt.rni.s64.f64", "cvt.rni.u64.f64", "cvt.rni.u16.f64"] {
        assert!(failed.iter().any(|(i, o)| i == f && o == "3fe0000000000001"), "the defect passes for {f}?\n{out}");
    }
}
