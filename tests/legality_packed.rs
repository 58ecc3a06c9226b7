//! The oracle's legality verdicts for tf32 and packed forms against ptxas
//! 13.5, for every row of `tests/data/ptxas-legality-packed.tsv`
//! (regenerate with `python3 scripts/ptxas-legality-packed.py`; summary in
//! `tests/data/ptxas-legality-packed.md`). Rows the oracle deliberately does
//! not judge like ptxas are listed below with their reasons.

use std::collections::BTreeMap;

use ptx_cvt::instr::{self, packed, PtxVersion, Regs, Target};

const COMMITTED: &str = include_str!("data/ptxas-legality-packed.tsv");

/// The committed snapshot, or the file `PTX_CVT_PACKED_SNAPSHOT` names (e.g. one written by
/// `python3 scripts/ptxas-legality-packed.py --all-targets --out FILE`, too large to commit).
fn snapshot() -> &'static str {
    static S: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    S.get_or_init(|| match std::env::var("PTX_CVT_PACKED_SNAPSHOT") {
        Ok(path) => std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("PTX_CVT_PACKED_SNAPSHOT={path}: {e}")),
        Err(_) => COMMITTED.to_string(),
    })
}

/// One operand column entry: names (a vector names several) and register type.
fn operands(col: &str) -> Vec<(String, String)> {
    col.split(' ')
        .flat_map(|o| {
            let (names, reg) = o.split_once(':').expect("name:reg");
            let names: Vec<String> =
                names.trim_matches(|c| c == '{' || c == '}').split(',').map(String::from).collect();
            let vector = names.len() > 1 || o.starts_with('{');
            names.into_iter().map(move |n| (if vector { format!("{{{n}}}") } else { n }, reg.to_string()))
        })
        .collect()
}

fn deliberate_difference(instruction: &str, ops: &[(String, String)]) -> Option<&'static str> {
    if instruction.ends_with(".ue5m3x2.bf16x2")
        && !instruction.contains("scaled")
        && ops.iter().any(|(n, _)| n == "scale")
    {
        // Verified with single-spelling runs: the unscaled spelling assembles with a stray 16-bit operand.
        return Some("ptxas 13.5 also takes an extra scale operand on the unscaled ue5m3x2.bf16x2 (an assembler hole)");
    }
    if instruction.ends_with(".e2m1x2.bf16x2") && ops.iter().any(|(n, _)| n.starts_with('{')) {
        // Verified with single-spelling runs; the ISA gives this form one b32 source.
        return Some("ptxas 13.5 also takes a vector source for e2m1x2.bf16x2 (an assembler hole)");
    }
    if ops.iter().any(|(_, r)| !r.starts_with('b') || r == "b128") {
        return Some("typed register declarations are not modeled, only widths");
    }
    None
}

/// The oracle's verdict for one row.
fn oracle(instruction: &str, ops: &[(String, String)], t: Target, v: PtxVersion) -> Result<(), String> {
    let c = instr::parse(instruction).map_err(|e| e.message)?;
    let shape = instr::shape(&c);
    let (dst, srcs) = ops.split_first().expect("a destination");
    let want: Vec<String> = shape
        .names
        .iter()
        .map(|n| if c.dtype.lanes() == 4 && *n != "rbits" { format!("{{{n}}}") } else { n.to_string() })
        .collect();
    let got: Vec<String> = srcs.iter().map(|(n, _)| n.clone()).collect();
    if want != got {
        return Err(format!("operands {got:?}, the form takes {want:?}"));
    }
    let bits = |r: &str| r[1..].parse::<u32>().unwrap();
    instr::check(&c, Regs { dst: bits(&dst.1), src: bits(&srcs[0].1) }, Some(t), Some(v)).map_err(|e| e.to_string())?;
    if c.is_scalar() {
        return Err("scalar spelling in the packed snapshot".into());
    }
    for (i, (_, r)) in srcs.iter().enumerate() {
        if !packed::width_ok(&c, Some(i), bits(r)) {
            return Err(format!("operand {} register {r}", i + 1));
        }
    }
    Ok(())
}

#[test]
fn oracle_matches_ptxas_on_every_packed_row() {
    let mut rows = 0;
    let mut accepted = 0;
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for (n, line) in snapshot().lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let [target, version, instruction, ops, verdict, message] = f[..] else {
            panic!("packed snapshot line {} has {} columns", n + 1, f.len());
        };
        let ops = operands(ops);
        if let Some(why) = deliberate_difference(instruction, &ops) {
            *skipped.entry(why).or_default() += 1;
            continue;
        }
        rows += 1;
        let t: Target = target.parse().unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let v: PtxVersion = version.parse().unwrap();
        let ours = oracle(instruction, &ops, t, v);
        accepted += ours.is_ok() as usize;
        if ours.is_ok() != (verdict == "ok") {
            mismatches.push(format!(
                "{target} {version} {instruction} {:?}: ptxas {verdict} {message:?}, oracle {:?}",
                ops.iter().map(|(n, r)| format!("{n}:{r}")).collect::<Vec<_>>(),
                ours.err().unwrap_or_else(|| "ok".into())
            ));
        }
    }
    eprintln!("compared {rows} rows ({accepted} legal); deliberate differences: {skipped:?}");
    assert!(rows > 35_000, "snapshot too small: {rows} rows");
    let shown: Vec<&str> = mismatches.iter().take(40).map(|s| s.as_str()).collect();
    assert!(mismatches.is_empty(), "{} rows differ from ptxas:\n{}", mismatches.len(), shown.join("\n"));
}

/// PTX versions the snapshot does not sample, run one spelling at a time with ptxas 13.5
/// (`.version V / .target T`, natural registers): the first version of each s2f6x2 and
/// scaled form.
#[test]
fn s2f6_and_scale_version_gates_from_single_ptxas_runs() {
    let cases = [
        ("cvt.rn.satfinite.s2f6x2.f32", "sm_100a", "9.0", false),
        ("cvt.rn.satfinite.s2f6x2.f32", "sm_100a", "9.1", true),
        ("cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32", "sm_100a", "9.1", true),
        ("cvt.rn.scaled::n2::ue8m0.bf16x2.s2f6x2", "sm_100a", "9.0", false),
        ("cvt.rn.scaled::n2::ue8m0.bf16x2.s2f6x2", "sm_100a", "9.1", true),
        ("cvt.rn.bf16x2.s2f6x2", "sm_121a", "9.1", true),
        ("cvt.rn.bf16x2.s2f6x2", "sm_100f", "9.5", false),
        ("cvt.rn.scaled::n2::ue8m0.bf16x2.e4m3x2", "sm_100a", "9.1", false),
        ("cvt.rn.scaled::n2::ue8m0.bf16x2.e4m3x2", "sm_100a", "9.2", true),
        ("cvt.rn.scaled::n2::ue8m0.bf16x2.e4m3x2", "sm_120f", "9.5", true),
        ("cvt.rz.satfinite.s2f6x2.f32", "sm_107a", "9.4", true),
        ("cvt.rz.satfinite.s2f6x2.f32", "sm_100a", "9.5", false),
        ("cvt.rz.bf16x2.s2f6x2", "sm_107a", "9.5", false),
    ];
    for (text, t, v, ok) in cases {
        let c = instr::parse(text).unwrap();
        let r = instr::check(&c, ptx_cvt::gen::natural_regs(&c), Some(t.parse().unwrap()), Some(v.parse().unwrap()));
        assert_eq!(r.is_ok(), ok, "{text} on {t} at {v}: {r:?}");
    }
}
