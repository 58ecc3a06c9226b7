//! The oracle's legality verdicts for `cvt.pack` against ptxas 13.5 on every
//! target it knows, for every row of `tests/data/ptxas-legality-pack.tsv`
//! (regenerate with `python3 scripts/ptxas-legality-pack.py`, about 15 s).
//! The one deliberate difference is listed below with its reason.

use ptx_cvt::instr::{self, packed, Regs};
use ptx_cvt_tests::snapshot::{self, bits, Row};

const SNAPSHOT: &str = include_str!("data/ptxas-legality-pack.tsv");

/// ptxas also takes 64-bit registers for every cvt.pack operand; what it
/// does with their upper bits is unknown, so the oracle keeps to 32 bits.
fn deliberate_difference(r: &Row) -> Option<&'static str> {
    r.ops.iter().any(|(_, reg)| bits(reg) == 64).then_some("64-bit registers are not modeled for cvt.pack")
}

fn oracle(r: &Row) -> Result<(), String> {
    let c = instr::parse(r.instruction).map_err(|e| e.message)?;
    let shape = instr::shape(&c);
    let (dst, srcs) = r.ops.split_first().expect("a destination");
    let names: Vec<&str> = srcs.iter().map(|(n, _)| n.as_str()).collect();
    if names != shape.names {
        return Err(format!("operands {names:?}, the form takes {:?}", shape.names));
    }
    instr::check(&c, Regs { dst: bits(&dst.1), src: bits(&srcs[0].1) }, Some(r.target), Some(r.version))
        .map_err(|e| e.to_string())?;
    match srcs.iter().enumerate().find(|(i, (_, reg))| !packed::width_ok(&c, Some(*i), bits(reg))) {
        Some((_, (n, reg))) => Err(format!("operand {n} in a {}-bit register", bits(reg))),
        None => Ok(()),
    }
}

#[test]
fn oracle_matches_ptxas_on_every_pack_row() {
    let cmp = snapshot::compare(snapshot::rows(SNAPSHOT, "pack"), deliberate_difference, oracle);
    eprintln!(
        "compared {} rows on {} targets ({} legal); skipped: {:?}",
        cmp.rows,
        cmp.targets.len(),
        cmp.accepted,
        cmp.skipped
    );
    assert!(
        cmp.rows > 10_000 && cmp.targets.len() >= 26,
        "snapshot too small: {} rows, {} targets",
        cmp.rows,
        cmp.targets.len()
    );
    assert!(cmp.accepted > 1000, "{}", cmp.accepted);
    cmp.assert_no_mismatch();
}
