//! NVIDIA's host emulation of the ue5m3 conversions (cuda_fp8.hpp of CUDA
//! 13.5, PyPI `nvidia-cuda-runtime==13.5.37`: `__nv_cvt_half2raw_to_ue5m3x2`,
//! `__nv_cvt_bfloat162raw_to_ue5m3x2`, `__nv_cvt_float2_to_ue5m3x2`,
//! `__nv_cvt_ue5m3x2_to_halfraw2`) against the oracle: every f16 and bf16
//! input of the six conversions into ue5m3x2 from each, a structured f32 set,
//! and every code into f16x2. The answers in `tests/data/emu-ue5m3/` were
//! recorded by `scripts/emu-ue5m3.sh` ([EMU] evidence, docs/semantics.md §5.16).
//! Under the sm90 profile the oracle's answer must equal the emulation's, and
//! the ISA profile must accept it.

use ptx_cvt::eval::Evaluator;
use ptx_cvt::{evaluate_accept, parse_case, Operand, Profile};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/emu-ue5m3");

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}")).unwrap_or_else(|e| panic!("{DIR}/{name}: {e}"))
}

/// The case-line files: every line's result is the oracle's (sm90), and inside the ISA set.
#[test]
fn case_files_match_the_oracle() {
    let mut count = 0;
    for name in ["f32.cases", "f16x2.cases"] {
        for (n, line) in read(name).lines().enumerate() {
            let Some(case) = parse_case(line).unwrap_or_else(|e| panic!("{name}:{}: {e}", n + 1)) else { continue };
            let want = case.result.clone().unwrap();
            let w = case.dst_width();
            let sm90 = evaluate_accept(&case.instr, &case.operands, w, Profile::Sm90).unwrap();
            assert_eq!(sm90, want, "{name}:{}: {line}: the oracle gives {sm90}", n + 1);
            let isa = evaluate_accept(&case.instr, &case.operands, w, Profile::Isa).unwrap();
            assert!(want.is_subset_of(&isa), "{name}:{}: {line}: not in the ISA set {isa}", n + 1);
            count += 1;
        }
    }
    assert_eq!(count, 11_340 + 256);
}

/// The tables: byte x of each is the code of the 16-bit input x; the oracle
/// converts x in the high half and x with its sign flipped in the low half.
#[test]
fn every_f16_and_bf16_input_matches_the_oracle() {
    let mut variants = 0;
    for src in ["f16x2", "bf16x2"] {
        for rnd in ["rn", "rz", "rp"] {
            for sat in ["", ".satfinite"] {
                let spelling = format!("cvt.{rnd}{sat}.ue5m3x2.{src}");
                let text = read(&format!("{spelling}.table"));
                let codes: Vec<u64> = text
                    .lines()
                    .flat_map(|l| (0..l.len()).step_by(2).map(move |i| u64::from_str_radix(&l[i..i + 2], 16).unwrap()))
                    .collect();
                assert_eq!(codes.len(), 65_536, "{spelling}");
                let c = ptx_cvt::instr::parse(&spelling).unwrap();
                for profile in [Profile::Sm90, Profile::Isa] {
                    let ev = Evaluator::new(&c, 32, 16, profile).unwrap();
                    for x in 0..65_536u64 {
                        let a = x << 16 | (x ^ 0x8000);
                        let want = codes[x as usize] << 8 | codes[(x ^ 0x8000) as usize];
                        let got = ev.accept(&[Operand { bits: a, width: 32 }]).unwrap();
                        assert_eq!(
                            got.single(),
                            Some(want),
                            "{spelling} {a:08x}: emulation {want:04x}, oracle {got} ({profile})"
                        );
                    }
                }
                variants += 1;
            }
        }
    }
    assert_eq!(variants, 12);
}
