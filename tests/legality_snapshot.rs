//! The oracle's legality verdicts against what ptxas 13.5 actually does,
//! for every scalar spelling in `tests/data/ptxas-legality.tsv`
//! (regenerate with `python3 scripts/ptxas-legality.py`; summary in
//! `tests/data/ptxas-legality.md`). Deliberate differences are listed below
//! with their reasons; any other disagreement fails.

use std::collections::BTreeMap;

use ptx_cvt::instr::{self, PtxVersion, Regs, Target};

const SNAPSHOT: &str = include_str!("data/ptxas-legality.tsv");

/// Rows the oracle deliberately does not judge like ptxas, and why.
fn deliberate_difference(instruction: &str, dreg: &str, areg: &str) -> Option<&'static str> {
    let typed = |r: &str| !r.starts_with('b');
    if typed(dreg) || typed(areg) {
        // ptxas also checks the declared register type's kind (.f32 vs .u32);
        // case lines carry only widths, which the bit-size rows cover.
        return Some("typed register declarations are not modeled, only widths");
    }
    if dreg == "b128" || areg == "b128" {
        return Some("128-bit registers do not exist for scalar cvt; case lines cannot express them");
    }
    if instruction.split('.').any(|t| t == "tf32") {
        return Some("tf32 forms are evaluated by the narrow-format issue, not yet modeled");
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
    for (n, line) in SNAPSHOT.lines().enumerate() {
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
        let ours = instr::parse(instruction)
            .map_err(|e| e.message)
            .and_then(|c| instr::check(&c, Regs { dst: bits(dreg), src: bits(areg) }, Some(t), Some(v)).map_err(|e| e.to_string()));
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
    assert!(mismatches.is_empty(), "{} rows differ from ptxas:\n{}", mismatches.len(), shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"));
}

#[test]
fn every_sm90_spelling_is_in_the_snapshot() {
    // The snapshot must cover the canonical space the oracle enumerates:
    // 12×12 types × 9 roundings × ftz × sat on sm_90 at PTX 9.5.
    let n = SNAPSHOT
        .lines()
        .filter(|l| l.starts_with("sm_90\t9.5\tcvt.") && !l.contains("relu") && !l.contains("satfinite"))
        .count();
    assert!(n >= 12 * 12 * 9 * 4, "only {n} sm_90 rows");
}
