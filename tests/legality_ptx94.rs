//! The oracle's legality verdicts for the PTX ISA 9.4 modifiers `.pzo` and
//! `.scaled::n1::ue8m0` against ptxas 13.5, for every row of
//! `tests/data/ptxas-legality-ptx94.tsv` (regenerate with
//! `python3 scripts/ptxas-legality-ptx94.py`; summary in `tests/data/ptxas-legality-ptx94.md`),
//! scalar and packed spellings alike; and their refusal to evaluate.

use ptx_cvt::instr::{self, packed, PtxVersion, Regs, Target};
use ptx_cvt::{evaluate, Operand, Profile};

const SNAPSHOT: &str = include_str!("data/ptxas-legality-ptx94.tsv");

/// (names, register type) per operand; `{a,b}:b32` gives `{a}` and `{b}`.
fn operands(col: &str) -> Vec<(String, String)> {
    col.split(' ')
        .flat_map(|o| {
            let (names, reg) = o.split_once(':').expect("name:reg");
            let vector = names.starts_with('{');
            names
                .trim_matches(|c| c == '{' || c == '}')
                .split(',')
                .map(move |n| (if vector { format!("{{{n}}}") } else { n.to_string() }, reg.to_string()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The oracle's verdict for one row: the spelling, its operand names and every register width.
fn oracle(instruction: &str, ops: &[(String, String)], t: Target, v: PtxVersion) -> Result<(), String> {
    let c = instr::parse(instruction).map_err(|e| e.message)?;
    let shape = instr::shape(&c);
    let (dst, srcs) = ops.split_first().expect("a destination");
    let got: Vec<&str> = srcs.iter().map(|(n, _)| n.as_str()).collect();
    if got != shape.names {
        return Err(format!("operands {got:?}, the form takes {:?}", shape.names));
    }
    let bits = |r: &str| r[1..].parse::<u32>().unwrap();
    instr::check(&c, Regs { dst: bits(&dst.1), src: bits(&srcs[0].1) }, Some(t), Some(v)).map_err(|e| e.to_string())?;
    if !c.is_scalar() {
        for (i, (_, r)) in srcs.iter().enumerate() {
            if !packed::width_ok(&c, Some(i), bits(r)) {
                return Err(format!("operand {} register {r}", i + 1));
            }
        }
    }
    Ok(())
}

#[test]
fn oracle_matches_ptxas_on_every_ptx94_row() {
    let (mut rows, mut accepted, mut typed) = (0, 0, 0);
    let mut mismatches = Vec::new();
    for (n, line) in SNAPSHOT.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let [target, version, instruction, ops, verdict, message] = f[..] else {
            panic!("ptx94 snapshot line {} has {} columns", n + 1, f.len());
        };
        let ops = operands(ops);
        if ops.iter().any(|(_, r)| !r.starts_with('b')) {
            // As in tests/legality_packed.rs: typed register declarations are not modeled, only widths.
            typed += 1;
            continue;
        }
        rows += 1;
        let t: Target = target.parse().unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let v: PtxVersion = version.parse().unwrap();
        let ours = oracle(instruction, &ops, t, v);
        accepted += ours.is_ok() as usize;
        if ours.is_ok() != (verdict == "ok") {
            mismatches.push(format!(
                "line {}: {target} {version} {instruction} {ops:?}: ptxas {verdict} {message:?}, oracle {:?}",
                n + 1,
                ours.err().unwrap_or_else(|| "ok".into())
            ));
        }
    }
    eprintln!("compared {rows} rows ({accepted} legal); {typed} typed-register rows skipped");
    assert!(rows > 15_000 && accepted > 2_000, "snapshot too small: {rows} rows, {accepted} legal");
    let shown: Vec<&str> = mismatches.iter().take(40).map(|s| s.as_str()).collect();
    assert!(mismatches.is_empty(), "{} rows differ from ptxas:\n{}", mismatches.len(), shown.join("\n"));
}

/// Legal on sm_107a, but evaluation refuses with what is missing (docs/semantics.md §5.15).
#[test]
fn pzo_and_single_scale_are_refused_with_the_reason() {
    let op = |bits: u64, width: u32| Operand { bits, width };
    let cases: [(&str, Vec<Operand>, u32, &str); 4] = [
        ("cvt.rn.satfinite.pzo.e4m3x2.f32", vec![op(0x3f80_0000, 32), op(0x3f80_0000, 32)], 16, "meaning of .pzo"),
        ("cvt.rz.pzo.f16.f32", vec![op(0x3f80_0000, 32)], 16, "meaning of .pzo"),
        (
            "cvt.rz.satfinite.scaled::n1::ue8m0.e4m3x2.f32",
            vec![op(0x3f80_0000, 32), op(0x3f80_0000, 32), op(0x7f, 8)],
            16,
            "single ue8m0 scale (.scaled::n1::ue8m0) is not published",
        ),
        (
            "cvt.rn.satfinite.scaled::n1::ue8m0.ue5m3x2.f32",
            vec![op(0x3f80_0000, 32), op(0x3f80_0000, 32), op(0x7f, 8)],
            16,
            "single ue8m0 scale (.scaled::n1::ue8m0) is not published",
        ),
    ];
    for (text, srcs, dst, why) in cases {
        let c = instr::parse(text).unwrap();
        let on = instr::check(&c, ptx_cvt::gen::natural_regs(&c), Some("sm_107a".parse().unwrap()), None);
        assert!(on.is_ok(), "{text}: {on:?}");
        let e = evaluate(&c, &srcs, dst, Profile::Isa).unwrap_err().to_string();
        assert!(e.contains(why) && e.contains("not evaluated"), "{text}: {e}");
    }
}
