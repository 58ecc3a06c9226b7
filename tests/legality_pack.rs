//! The oracle's legality verdicts for `cvt.pack` against ptxas 13.5 on every
//! target it knows, for every row of `tests/data/ptxas-legality-pack.tsv`
//! (regenerate with `python3 scripts/ptxas-legality-pack.py`, about 15 s).
//! The one deliberate difference is listed below with its reason.

use ptx_cvt::instr::{self, packed, PtxVersion, Regs, Target};

const SNAPSHOT: &str = include_str!("data/ptxas-legality-pack.tsv");

/// `d:b32 a:b32 b:b32 c:b32` → (name, register bits).
fn operands(col: &str) -> Vec<(&str, u32)> {
    col.split(' ')
        .map(|o| {
            let (name, reg) = o.split_once(":b").expect("name:bN");
            (name, reg.parse().expect("register bits"))
        })
        .collect()
}

/// ptxas also takes 64-bit registers for every cvt.pack operand; what it
/// does with their upper bits is unknown, so the oracle keeps to 32 bits.
fn deliberate_difference(ops: &[(&str, u32)]) -> Option<&'static str> {
    ops.iter().any(|(_, w)| *w == 64).then_some("64-bit registers are not modeled for cvt.pack")
}

fn oracle(instruction: &str, ops: &[(&str, u32)], t: Target, v: PtxVersion) -> Result<(), String> {
    let c = instr::parse(instruction).map_err(|e| e.message)?;
    let shape = instr::shape(&c);
    let (dst, srcs) = ops.split_first().expect("a destination");
    let names: Vec<&str> = srcs.iter().map(|(n, _)| *n).collect();
    if names != shape.names {
        return Err(format!("operands {names:?}, the form takes {:?}", shape.names));
    }
    instr::check(&c, Regs { dst: dst.1, src: srcs[0].1 }, Some(t), Some(v)).map_err(|e| e.to_string())?;
    match srcs.iter().enumerate().find(|(i, (_, w))| !packed::width_ok(&c, Some(*i), *w)) {
        Some((_, (n, w))) => Err(format!("operand {n} in a {w}-bit register")),
        None => Ok(()),
    }
}

#[test]
fn oracle_matches_ptxas_on_every_pack_row() {
    let (mut rows, mut accepted, mut skipped) = (0, 0, 0);
    let mut targets = std::collections::BTreeSet::new();
    let mut mismatches = Vec::new();
    for (n, line) in SNAPSHOT.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let [target, version, instruction, ops, verdict, message] = f[..] else {
            panic!("pack snapshot line {} has {} columns", n + 1, f.len());
        };
        let ops = operands(ops);
        if deliberate_difference(&ops).is_some() {
            skipped += 1;
            continue;
        }
        rows += 1;
        let t: Target = target.parse().unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        targets.insert(t);
        let ours = oracle(instruction, &ops, t, version.parse().unwrap());
        accepted += ours.is_ok() as usize;
        if ours.is_ok() != (verdict == "ok") {
            mismatches.push(format!(
                "{target} {version} {instruction} {ops:?}: ptxas {verdict} {message:?}, oracle {:?}",
                ours.err().unwrap_or_else(|| "ok".into())
            ));
        }
    }
    eprintln!(
        "compared {rows} rows on {} targets ({accepted} legal); {skipped} rows with 64-bit registers skipped",
        targets.len()
    );
    assert!(rows > 10_000 && targets.len() >= 26, "snapshot too small: {rows} rows, {} targets", targets.len());
    assert!(accepted > 1000, "{accepted}");
    let shown: Vec<&str> = mismatches.iter().take(40).map(|s| s.as_str()).collect();
    assert!(mismatches.is_empty(), "{} rows differ from ptxas:\n{}", mismatches.len(), shown.join("\n"));
}
