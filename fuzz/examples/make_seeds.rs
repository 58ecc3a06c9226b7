//! Write the committed seed corpora (fuzz/corpus/{cvt,parse}/seed-*) from the
//! known-answer vectors, keeping the seed-regression-* files of findings
//! (fuzz/regressions.md). Run from the repository root:
//!
//!     cargo run --manifest-path fuzz/Cargo.toml --example make_seeds
//!
//! Deterministic: the same vectors give the same files. Seeds are starting
//! points only; anything libFuzzer adds to a corpus directory (named by
//! SHA-1) is ignored by git (fuzz/.gitignore).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use ptx_cvt::{parse_case, PtxVersion, Target};
use ptx_cvt_fuzz::Raw;

/// Seeds from the vectors (one per distinct instruction, in file order).
const CVT_SEEDS: usize = 40;
const PARSE_SEEDS: usize = 30;

/// Hostile and borderline text for the parsers.
const HOSTILE: &[&str] = &[
    "",
    "cvt",
    "cvt.",
    "cvt..f16.f32",
    "cvt.rn.rn.f16.f32",
    "cvt.f16.f32.rn.ftz.sat",
    "CVT.RN.F16.F32 3f800000",
    "cvt.rn.f16.f32 0x3f800000 => 3c00",
    "cvt.rn.f16.f32 3f800000 =>",
    "cvt.rn.f16.f32 3f800000 => 3c00 extra",
    "cvt.rn.f16.f32 3f800000=>3c00",
    "cvt.rn.f16.f32 3f80000 => 3c00",
    "cvt.rn.f16.f32 3f800000 => 3c0?|nan|3c00/ff00 # comment",
    "cvt.rn.f16x2.f32 7fc00000 3f800000 => nan_3c00",
    "cvt.rn.satfinite.e2m1x2.f32 7fc00000 3f800000 => ??",
    "cvt.rs.satfinite.e4m3x4.f32 3f800000 40000000 c0000000 7f800000 12345678 => 38_40_c0_7e",
    "nan:64|nan:8|nan:",
    "ffffffffffffffff/0000000000000000",
    "3c00_nan_nan_3c00",
    "????????????????",
    "cvt.rn.f16.f32 3f800000 => 3c00\r",
    "cvt.rn.f16.f32\t3f800000\u{a0}=>\u{2003}3c00",
    "cvt.s2f6x2.f32",
    "cvt.rn.satfinite.scaled::n2::ue8m0.scaled::n2::ue8m0.s2f6x2.f32",
    "cvt.rn.satfinite.ue5m3x2.f32 3f800000 3f800000",
    "sm_100a",
    "sm_90f",
    "sm_0",
    "9.5",
    "09.05",
    "\u{0}\u{1}\u{7f}é漢字🦀",
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let mut lines = Vec::new();
    for name in ["sm90.cases", "isa.cases"] {
        let text = fs::read_to_string(root.join("vectors/known-answers").join(name)).expect("read known answers");
        lines.extend(text.lines().filter(|l| l.starts_with("cvt")).map(str::to_string));
    }

    let (cvt_dir, parse_dir) = (root.join("fuzz/corpus/cvt"), root.join("fuzz/corpus/parse"));
    for d in [&cvt_dir, &parse_dir] {
        fs::create_dir_all(d).unwrap();
        for e in fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            // Regression seeds (fuzz/regressions.md) are kept.
            if name.starts_with("seed-") && !name.starts_with("seed-regression-") {
                fs::remove_file(p).unwrap();
            }
        }
    }

    // cvt: one case per distinct instruction; every fifth with a target.
    let sm90 = ("sm_90".parse::<Target>().unwrap(), PtxVersion::LATEST);
    let (mut seen, mut n) = (BTreeSet::new(), 0);
    for line in &lines {
        let Ok(Some(case)) = parse_case(line) else { continue };
        let Some(result) = &case.result else { continue };
        if n == CVT_SEEDS || !seen.insert(case.instr) {
            continue;
        }
        let target = (n % 5 == 4).then_some(sm90);
        if let Some(raw) = Raw::encode(&case.instr, &case.operands, result.width, target) {
            fs::write(cvt_dir.join(format!("seed-{n:02}")), raw.to_bytes()).unwrap();
            n += 1;
        }
    }
    // Plus one seed per cvt.pack, s2f6x2 and scaled known answer's instruction (they come last).
    for line in &lines {
        let Ok(Some(case)) = parse_case(line) else { continue };
        let Some(result) = &case.result else { continue };
        if !(case.instr.dtype.is_pack() || case.instr.lane_scale()) || !seen.insert(case.instr) {
            continue;
        }
        if let Some(raw) = Raw::encode(&case.instr, &case.operands, result.width, None) {
            fs::write(cvt_dir.join(format!("seed-{n:02}")), raw.to_bytes()).unwrap();
            n += 1;
        }
    }
    let cvt_count = n;

    // parse: distinct instructions' lines, then the hostile strings.
    let (mut seen, mut n) = (BTreeSet::new(), 0);
    for line in &lines {
        let instr = line.split_whitespace().next().unwrap_or("");
        if n < PARSE_SEEDS && seen.insert(instr.to_string()) {
            fs::write(parse_dir.join(format!("seed-{n:02}")), line).unwrap();
            n += 1;
        }
    }
    for (i, h) in HOSTILE.iter().enumerate() {
        fs::write(parse_dir.join(format!("seed-h{i:02}")), h).unwrap();
    }
    println!("wrote {cvt_count} cvt seeds and {} parse seeds", n + HOSTILE.len());
}
