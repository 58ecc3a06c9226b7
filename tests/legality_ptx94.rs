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

/// Legal on sm_107a and evaluated: known answers worked out from the PTX ISA 9.4
/// `cvt` text (§9.7.10.24: `.pzo`, `.scaled::n1::ue8m0`, `.satfinite` into ue5m3x2;
/// docs/semantics.md §5.15, §5.16), under both profiles.
#[test]
fn ptx94_forms_evaluate_to_the_isa_answers() {
    let op = |bits: u64, width: u32| Operand { bits, width };
    let cases: [(&str, Vec<Operand>, u32, &str); 7] = [
        // -0 is e4m3 80; .pzo writes +0. 1.0 is 38.
        ("cvt.rn.satfinite.pzo.e4m3x2.f32", vec![op(0x8000_0000, 32), op(0x3f80_0000, 32)], 16, "0038"),
        // -2^-26 rounds toward zero to -0 in f16; .pzo writes +0.
        ("cvt.rz.pzo.f16.f32", vec![op(0xb280_0000, 32)], 16, "0000"),
        // .pzo leaves other results alone: NaN into e2m1 is +MAX_NORM 7 (.satfinite); -0 becomes 0.
        ("cvt.rn.satfinite.pzo.e2m1x2.f32", vec![op(0x7fc0_0000, 32), op(0x8000_0000, 32)], 8, "70"),
        // One scale 81 (2^2) divides both lanes: 8 and 1 give 2 (40) and 0.25 (28).
        (
            "cvt.rz.satfinite.scaled::n1::ue8m0.e4m3x2.f32",
            vec![op(0x4100_0000, 32), op(0x3f80_0000, 32), op(0x81, 8)],
            16,
            "4028",
        ),
        // .satfinite into ue5m3: NaN is ff, |-Inf| > MAX_NORM gives fe.
        ("cvt.rn.satfinite.ue5m3x2.f32", vec![op(0x7fc0_0000, 32), op(0xff80_0000, 32)], 16, "fffe"),
        // The scale applies before the conversion into ue5m3: 2 / 2^1 is 1.0 (78), 2^-13 / 2^1 is 2^-14 (08).
        (
            "cvt.rn.satfinite.scaled::n1::ue8m0.ue5m3x2.f32",
            vec![op(0x4000_0000, 32), op(0x3900_0000, 32), op(0x80, 8)],
            16,
            "7808",
        ),
        // The scale byte 7f (2^0) leaves subnormal bf16 inputs flushed to zero: 0001 and 0040 give 00.
        ("cvt.rn.satfinite.scaled::n1::ue8m0.e5m2x2.bf16x2", vec![op(0x0001_0040, 32), op(0x7f, 8)], 16, "0000"),
    ];
    for (text, srcs, dst, want) in cases {
        let c = instr::parse(text).unwrap();
        let on = instr::check(&c, ptx_cvt::gen::natural_regs(&c), Some("sm_107a".parse().unwrap()), None);
        assert!(on.is_ok(), "{text}: {on:?}");
        for p in [Profile::Sm90, Profile::Isa] {
            let got = evaluate(&c, &srcs, dst, p).unwrap().accept.to_string();
            assert_eq!(got, want, "{text} under {p}");
        }
    }
}
