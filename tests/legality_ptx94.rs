//! The oracle's legality verdicts for the PTX ISA 9.4 modifiers `.pzo` and
//! `.scaled::n1::ue8m0` against ptxas 13.5, for every row of
//! `tests/data/ptxas-legality-ptx94.tsv` (regenerate with
//! `python3 scripts/ptxas-legality-ptx94.py`; summary in `tests/data/ptxas-legality-ptx94.md`),
//! scalar and packed spellings alike; and their refusal to evaluate.

use ptx_cvt::instr;
use ptx_cvt::{evaluate, Operand, Profile};
use ptx_cvt_tests::snapshot::{self, Row};

const SNAPSHOT: &str = include_str!("data/ptxas-legality-ptx94.tsv");

#[test]
fn oracle_matches_ptxas_on_every_ptx94_row() {
    // As in tests/legality_packed.rs: typed register declarations are not modeled, only widths.
    let typed = |r: &Row| r.ops.iter().any(|(_, reg)| !reg.starts_with('b')).then_some("typed registers");
    let cmp = snapshot::compare(snapshot::rows(SNAPSHOT, "ptx94"), typed, |r| {
        snapshot::oracle(r.instruction, &r.ops, r.target, r.version)
    });
    eprintln!("compared {} rows ({} legal); skipped: {:?}", cmp.rows, cmp.accepted, cmp.skipped);
    assert!(cmp.rows > 15_000 && cmp.accepted > 2_000, "snapshot too small: {} rows, {} legal", cmp.rows, cmp.accepted);
    cmp.assert_no_mismatch();
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
