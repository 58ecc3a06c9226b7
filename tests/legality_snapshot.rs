//! The oracle's legality verdicts against what ptxas 13.5 actually does,
//! for every scalar spelling in `tests/data/ptxas-legality.tsv`
//! (regenerate with `python3 scripts/ptxas-legality.py`; summary in
//! `tests/data/ptxas-legality.md`). Deliberate differences are listed below
//! with their reasons; any other disagreement fails.

use std::collections::BTreeMap;

use ptx_cvt::instr::{self, PtxVersion, Regs, Target};

const COMMITTED: &str = include_str!("data/ptxas-legality.tsv");

/// The committed snapshot, or the file `PTX_CVT_SCALAR_SNAPSHOT` names (e.g. one written by
/// `python3 scripts/ptxas-legality.py --all-targets --out FILE`, too large to commit).
fn snapshot() -> &'static str {
    static S: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    S.get_or_init(|| match std::env::var("PTX_CVT_SCALAR_SNAPSHOT") {
        Ok(path) => std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("PTX_CVT_SCALAR_SNAPSHOT={path}: {e}")),
        Err(_) => COMMITTED.to_string(),
    })
}

/// Rows the oracle deliberately does not judge like ptxas, and why.
fn deliberate_difference(_instruction: &str, dreg: &str, areg: &str) -> Option<&'static str> {
    let typed = |r: &str| !r.starts_with('b');
    if typed(dreg) || typed(areg) {
        // ptxas also checks the declared register type's kind (.f32 vs .u32);
        // case lines carry only widths, which the bit-size rows cover.
        return Some("typed register declarations are not modeled, only widths");
    }
    if dreg == "b128" || areg == "b128" {
        return Some("128-bit registers do not exist for scalar cvt; case lines cannot express them");
    }
    None
}

fn bits(reg: &str) -> u32 {
    reg[1..].parse().unwrap_or(0)
}

#[test]
fn oracle_matches_ptxas_on_every_snapshot_row() {
    let mut rows = 0;
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for (n, line) in snapshot().lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let [target, version, instruction, dreg, areg, verdict, message] = f[..] else {
            panic!("snapshot line {} has {} columns", n + 1, f.len());
        };
        if let Some(why) = deliberate_difference(instruction, dreg, areg) {
            *skipped.entry(why).or_default() += 1;
            continue;
        }
        rows += 1;
        let t: Target = target.parse().unwrap();
        let v: PtxVersion = version.parse().unwrap();
        // Every row of this snapshot is written `d, a`: one source operand.
        let ours = instr::parse(instruction).map_err(|e| e.message).and_then(|c| {
            let shape = instr::shape(&c);
            if shape.srcs.len() != 1 {
                return Err(format!("takes {} source operands", shape.srcs.len()));
            }
            instr::check(&c, Regs { dst: bits(dreg), src: bits(areg) }, Some(t), Some(v)).map_err(|e| e.to_string())
        });
        let ptxas_ok = verdict == "ok";
        if ours.is_ok() != ptxas_ok {
            mismatches.push(format!(
                "{target} {version} {instruction} d.{dreg} a.{areg}: ptxas {verdict} {message:?}, oracle {:?}",
                ours.err().unwrap_or_else(|| "ok".into())
            ));
        }
    }
    eprintln!("compared {rows} rows; deliberate differences: {skipped:?}");
    assert!(rows > 70_000, "snapshot too small: {rows} rows");
    let shown: Vec<_> = mismatches.iter().take(40).collect();
    assert!(
        mismatches.is_empty(),
        "{} rows differ from ptxas:\n{}",
        mismatches.len(),
        shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn every_sm90_spelling_is_in_the_snapshot() {
    // The snapshot must cover the canonical space the oracle enumerates:
    // 12×12 types × 9 roundings × ftz × sat on sm_90 at PTX 9.5.
    let n = snapshot()
        .lines()
        .filter(|l| l.starts_with("sm_90\t9.5\tcvt.") && !l.contains("relu") && !l.contains("satfinite"))
        .count();
    assert!(n >= 12 * 12 * 9 * 4, "only {n} sm_90 rows");
}

#[test]
fn every_spelling_ptxas_accepts_on_sm90_is_evaluated() {
    // Operands that reach every branch: zeros, ones, sign bits, all ones, NaN/Inf
    // patterns of every float width, subnormals and a few arbitrary bit strings.
    let patterns: [u64; 14] = [
        0,
        1,
        0x80,
        0x8000,
        0x7c00,
        0x7e01,
        0x7fc1,
        0x8000_0000,
        0x7f80_0001,
        0x0000_0001,
        0x7ff0_0000_0000_0001,
        0x8000_0000_0000_0000,
        u64::MAX,
        0x1392_31c2_dead_beef,
    ];
    let mut evaluated = 0;
    for line in snapshot().lines().filter(|l| l.starts_with("sm_90\t9.5\t") && l.contains("\tok\t")) {
        let f: Vec<&str> = line.split('\t').collect();
        let (instruction, dreg, areg) = (f[2], f[3], f[4]);
        if deliberate_difference(instruction, dreg, areg).is_some() {
            continue;
        }
        let c = instr::parse(instruction).unwrap();
        let (dw, aw) = (bits(dreg), bits(areg));
        for p in patterns {
            let op = ptx_cvt::Operand { bits: p & ptx_cvt::accept::width_mask(aw), width: aw };
            for profile in ptx_cvt::Profile::ALL {
                let o = ptx_cvt::evaluate(&c, &[op], dw, profile)
                    .unwrap_or_else(|e| panic!("{instruction} d.{dreg} a.{areg} on {p:x}: {e}"));
                assert_eq!(o.accept.width, dw);
                assert!(!o.accept.alts.is_empty());
                evaluated += 1;
            }
        }
    }
    assert!(evaluated > 10_000, "{evaluated}");
}
