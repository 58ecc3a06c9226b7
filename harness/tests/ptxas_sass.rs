//! The ptxas read-back on committed disassembly (no ptxas needed): kernels
//! written by `ptx-cvt check --target-ptxas` with PTX_CVT_PTXAS_KEEP set,
//! assembled by ptxas 13.5.37 with `-O3 -arch=<target>` and listed by
//! nvdisasm 13.5.37 `-c -hex` (tests/data/ptxas/<target>-<form>.{ptx,sass};
//! the cases are <form>.cases). The expected answers are read off the SASS
//! quoted beside each.

use ptx_cvt::{parse_case, Operand};
use ptx_cvt_harness::ptxas::{kernel, read_back, replay, sass, NOT_FOLDED};
use ptx_cvt_harness::Answer;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ptxas");

fn cases(form: &str) -> Vec<(ptx_cvt::Cvt, Vec<Operand>, u32)> {
    let text = std::fs::read_to_string(format!("{DATA}/{form}.cases")).unwrap();
    text.lines().filter_map(|l| parse_case(l).unwrap()).map(|c| (c.instr, c.operands.clone(), c.dst_width())).collect()
}

/// The answers read back from `<target>-<form>.sass`, after checking that
/// the committed kernel is what `kernel::module` writes for those cases today.
fn answers(target: &str, form: &str) -> Vec<Answer> {
    let cs = cases(form);
    let batch: Vec<(Vec<Operand>, u32)> = cs.iter().map(|(_, o, w)| (o.clone(), *w)).collect();
    let ptx = std::fs::read_to_string(format!("{DATA}/{target}-{form}.ptx")).unwrap();
    assert_eq!(ptx, kernel::module(&cs[0].0, &batch, target.parse().unwrap(), ptx_cvt::PtxVersion::LATEST));
    let listing = std::fs::read_to_string(format!("{DATA}/{target}-{form}.sass")).unwrap();
    read_back(&listing, &batch)
}

fn bits(v: &[u64]) -> Vec<Answer> {
    v.iter().map(|b| Answer::Bits(*b)).collect()
}

fn not_folded() -> Answer {
    Answer::Declined(NOT_FOLDED.into())
}

#[test]
fn rni_s32_f64_the_folding_bug_on_three_architectures() {
    // 3fe0000000000001 (0.5 + 1 ulp) folds to 0 (`STG.E desc[UR4][R2.64], RZ` on sm_90);
    // the NaN stays run-time code (`F2I.F64 R5, +QNAN`, sm_80), so it is not folded.
    let want = vec![Answer::Bits(0), Answer::Bits(2), not_folded(), Answer::Bits(0xffff_fffe)];
    for t in ["sm_75", "sm_80", "sm_90"] {
        assert_eq!(answers(t, "cvt_rni_s32_f64"), want, "{t}");
    }
}

#[test]
fn wide_narrow_and_half_immediates() {
    // sm_90: `HFMA2.MMA R6, -RZ, RZ, 0, 5.96e-08` (R6 = 1) and `MOV R7, 0x100000`, then
    // `STG.E.64 [R2.64+0x20], R6`; `IMAD.MOV.U32 R4, RZ, RZ, 0x0` and `R5 = -0x80000000`.
    let s64 = bits(&[0, 0x8000_0000_0000_0000, 0x0010_0000_0000_0001]);
    // `HFMA2.MMA R0, -RZ, RZ, 0, 1` (3c00), `MOV R4, 0x7fff` (a NaN: MOV, not HFMA2), -Inf.
    let f16 = bits(&[0x3c00, 0x7fff, 0xfc00]);
    // `STG.E.U8 [R2.64], R0` with R0 = 0x81; `MOV R4, 0xff`.
    let s8 = bits(&[0x81, 0xff]);
    for t in ["sm_75", "sm_80", "sm_90"] {
        assert_eq!(answers(t, "cvt_rni_s64_f64"), s64, "{t}");
        assert_eq!(answers(t, "cvt_s8_s32"), s8, "{t}");
    }
    assert_eq!(answers("sm_90", "cvt_rn_f16_f32"), f16);
    // sm_80 moves the NaN with `HFMA2.MMA R4, -RZ, RZ, 0, +QNAN`: an FMA that
    // might make a NaN canonical, so the reader does not take it.
    assert_eq!(answers("sm_80", "cvt_rn_f16_f32"), vec![Answer::Bits(0x3c00), not_folded(), Answer::Bits(0xfc00)]);
    // sm_75 takes 3c00 from a constant bank the listing does not show
    // (`HADD2 R0, -RZ.H0_H0, c[0x2] [0x0].F32`): not read, so declined; the
    // others are merged into run-time registers with `PRMT R0, R2, 0x7610, R0`
    // (low 16 bits from R2 = 0x7fff), which still stores known low bytes.
    assert_eq!(answers("sm_75", "cvt_rn_f16_f32"), vec![not_folded(), Answer::Bits(0x7fff), Answer::Bits(0xfc00)]);
    // `MOV R5, 0x7f800000` for 7f800001; `HFMA2.MMA R7, -RZ, RZ, 1.875, 0.0078125` = 3f802000.
    assert_eq!(answers("sm_90", "cvt_rna_tf32_f32"), bits(&[0x7f80_0000, 0x3f80_2000]));
}

/// A listing made of `lines` (`OPCODE operands` each), one function `cvt_fold`
/// with a pointer in R2:R3, ending in EXIT; immediates go in the encoding too.
fn listing(lines: &[&str]) -> String {
    let mut s = String::from("\t.section\t.text.cvt_fold,\"ax\",@progbits\n");
    let mut all = vec!["LDC.64 R2, c[0x0][0x210]".to_string()];
    all.extend(lines.iter().map(|l| l.to_string()));
    all.push("EXIT".into());
    for (k, l) in all.iter().enumerate() {
        let imm =
            l.rsplit(", ").next().and_then(|x| x.strip_prefix("0x")).and_then(|h| u32::from_str_radix(h, 16).ok());
        let word = (u64::from(imm.unwrap_or(0)) << 32) | 0x7802;
        s.push_str(&format!("        /*{:04x}*/   {l} ;   /* 0x{word:016x} */\n", 16 * k));
        s.push_str("                          /* 0x000fe20000000f00 */\n");
    }
    s
}

fn read(lines: &[&str], n: usize, w: u32) -> Vec<Answer> {
    let batch: Vec<(Vec<Operand>, u32)> = (0..n).map(|_| (vec![Operand { bits: 0, width: 32 }], w)).collect();
    read_back(&listing(lines), &batch)
}

#[test]
fn a_slot_counts_only_when_one_exact_store_of_immediates_writes_it() {
    let got = read(
        &[
            "MOV R4, 0x11",
            "STG.E desc[UR4][R2.64], R4",
            // slot 1: written twice
            "STG.E desc[UR4][R2.64+0x10], R4",
            "STG.E desc[UR4][R2.64+0x10], RZ",
            // slot 2: a guarded store
            "@P0 STG.E desc[UR4][R2.64+0x20], R4",
            // slot 3: a run-time value
            "F2I.TRUNC.NTZ R5, R4",
            "STG.E desc[UR4][R2.64+0x30], R5",
            // slot 4: too narrow a store
            "STG.E.U16 desc[UR4][R2.64+0x40], R4",
            // slot 5: a register clobbered after its immediate (I2F writes R6)
            "MOV R6, 0x22",
            "I2F R6, R4",
            "STG.E desc[UR4][R2.64+0x50], R6",
            // slot 6: PRMT of immediates: bytes 0x11 and sign of 0x80
            "MOV R7, 0x80",
            "PRMT R8, R7, 0x8880, R4",
            "STG.E desc[UR4][R2.64+0x60], R8",
            // slot 7: through a moved pointer, IADD3 with carry into IADD3.X
            "IADD3 R10, P1, R2, 0x70, RZ",
            "IADD3.X R11, RZ, R3, RZ, P1, !PT",
            "STG.E desc[UR4][R10.64], R4",
        ],
        8,
        32,
    );
    let nf = not_folded();
    assert_eq!(
        got,
        vec![
            Answer::Bits(0x11),
            nf.clone(),
            nf.clone(),
            nf.clone(),
            nf.clone(),
            nf.clone(),
            Answer::Bits(0xffff_ff80),
            Answer::Bits(0x11)
        ]
    );
}

#[test]
fn anything_unreadable_declines_the_whole_kernel() {
    let why = |got: Vec<Answer>| match got.as_slice() {
        [Answer::Declined(a), Answer::Declined(b)] if a == b => a.clone(),
        other => panic!("not one decline for both: {other:?}"),
    };
    // A branch before the EXIT: not straight-line.
    let w = why(read(&["MOV R4, 0x1", "STG.E desc[UR4][R2.64], R4", "@P0 BRA `(.L_x_1)"], 2, 32));
    assert!(w.starts_with(NOT_FOLDED) && w.contains("straight-line"), "{w}");
    // A store through an address computed at run time could hit any slot.
    let w = why(read(&["MOV R4, 0x1", "STG.E desc[UR4][R2.64], R4", "STG.E desc[UR4][R8.64], R4"], 2, 32));
    assert!(w.contains("cannot place"), "{w}");
    // A store wider than the reader knows (sm_100's 256-bit form) is not read as 32 bits.
    let w = why(read(&["MOV R4, 0x1", "STG.E.ENL2.256 desc[UR4][R2.64], R4"], 2, 32));
    assert!(w.contains("cannot place"), "{w}");
    // Not a listing of ours at all.
    let w = why(read_back("no functions here\n", &[(vec![], 32), (vec![], 32)]));
    assert!(w.contains("no function cvt_fold"), "{w}");
}

#[test]
fn listing_lines_split_into_guard_opcode_operands_and_encoding() {
    let text = listing(&["@!P0 STG.E.64 desc[UR4][R2.64+0x8], R4"]);
    let f = sass::parse(&text).unwrap();
    let i = &f[0].instrs[1];
    assert_eq!((i.guard.as_deref(), i.opcode.as_str(), i.base()), (Some("!P0"), "STG.E.64", "STG"));
    assert_eq!(i.operands, ["desc[UR4][R2.64+0x8]", "R4"]);
    assert_eq!(i.text(), "@!P0 STG.E.64 desc[UR4][R2.64+0x8], R4");
    let s = replay::stores(&f[0].instrs).unwrap();
    assert_eq!((s[0].offset, s[0].width, s[0].guarded, s[0].value), (8, 64, true, None));
    assert!(sass::parse("        /*0000*/  MOV R1, R2 ;\n").is_err(), "an instruction without its encoding");
}

#[test]
fn hfma2_counts_as_a_move_only_of_an_immediate() {
    // `HFMA2.MMA R7, -RZ, RZ, 1.875, 0.0078125` is 3f802000 (ptxas 13.5.37 sm_90 listing above);
    // with a register operand it is run-time code, whatever the encoding's upper word holds.
    let imm = read(&["HFMA2.MMA R6, -RZ, RZ, 0x3f802000", "STG.E desc[UR4][R2.64], R6"], 1, 32);
    assert_eq!(imm, vec![Answer::Bits(0x3f80_2000)]);
    let reg = read(&["MOV R4, 0x1", "HFMA2 R6, -RZ, RZ, R4.H0_H0", "STG.E desc[UR4][R2.64], R6"], 1, 32);
    assert_eq!(reg, vec![not_folded()]);
}
