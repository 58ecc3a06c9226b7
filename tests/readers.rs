//! The reference readers in vectors/readers/ (Python and C, no dependencies):
//! they read the known-answer files, reject malformed lines with a
//! `file:line:` reference, and answer `accepts` the way the oracle does;
//! the digest programs (atlas_digest.py/.c) give the atlas's digests.
//!
//! Python tests need `python3`, C tests a C compiler (`$CC`, `cc`, `gcc` or
//! `clang`); without one, the test prints why and passes.
//!
//! Sources: vectors/README.md (case-line format v1, acceptance sets) and the
//! oracle's own `AcceptSet::contains` for the agreement test.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ptx_cvt::accept::{width_mask, Alt, LaneSet};
use ptx_cvt::parse_case;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

fn readers() -> PathBuf {
    workspace().join("vectors/readers")
}

const FILES: [&str; 2] = ["vectors/known-answers/sm90.cases", "vectors/known-answers/isa.cases"];

/// Case lines in a file: lines with something before any `#`.
fn count_cases(path: &str) -> usize {
    let text = std::fs::read_to_string(workspace().join(path)).unwrap();
    text.lines().filter(|l| !l.split('#').next().unwrap().trim().is_empty()).count()
}

/// Per-file counts from "PATH: N cases read" lines.
fn printed_counts(stdout: &[u8]) -> Vec<(String, usize)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| {
            let (path, rest) = l.rsplit_once(": ")?;
            let n = rest.split(" cases read").next()?.parse().ok()?;
            Some((path.to_string(), n))
        })
        .collect()
}

fn python() -> Option<&'static str> {
    let ok = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        println!("SKIPPED: python3 not found; the Python reader is not tested");
    }
    ok.then_some("python3")
}

fn run(cmd: &mut Command, stdin: &str) -> Output {
    let mut child = cmd
        .current_dir(workspace())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("wait");
    writer.join().unwrap().unwrap();
    out
}

/// A scratch directory for one test, removed when dropped.
struct Scratch(PathBuf);
impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ptx-cvt-readers-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Compile `source` (C99) into `exe`; None (with a message) when no compiler is found.
fn compile_c(source: &Path, exe: &Path, defines: &[&str]) -> Option<()> {
    let mut candidates: Vec<String> = std::env::var("CC").ok().into_iter().collect();
    candidates.extend(["cc", "gcc", "clang"].map(String::from));
    let Some(cc) =
        candidates.into_iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
    else {
        println!("SKIPPED: no C compiler found ($CC, cc, gcc, clang); the C reader is not tested");
        return None;
    };
    let out = Command::new(&cc)
        .args(["-std=c99", "-O1", "-Wall", "-Wextra"])
        .args(defines)
        .arg("-o")
        .arg(exe)
        .arg(source)
        .output()
        .expect("run the C compiler");
    assert!(out.status.success(), "{cc} failed on {}:\n{}", source.display(), String::from_utf8_lossy(&out.stderr));
    Some(())
}

fn c_reader(scratch: &Scratch) -> Option<PathBuf> {
    let exe = scratch.0.join("read_cases");
    compile_c(&readers().join("read_cases.c"), &exe, &[])?;
    Some(exe)
}

fn assert_counts(who: &str, out: &Output) {
    assert!(out.status.success(), "{who} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let counts = printed_counts(&out.stdout);
    let expected: Vec<(String, usize)> = FILES.iter().map(|f| (f.to_string(), count_cases(f))).collect();
    assert_eq!(counts, expected, "{who} output:\n{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn python_reads_known_answers() {
    let Some(py) = python() else { return };
    let out = run(Command::new(py).arg("vectors/readers/read_cases.py").arg("--check-self").args(FILES), "");
    assert_counts("read_cases.py", &out);
}

#[test]
fn c_reads_known_answers() {
    let scratch = Scratch::new("count");
    let Some(exe) = c_reader(&scratch) else { return };
    let out = run(Command::new(&exe).args(FILES), "");
    assert_counts("read_cases.c", &out);
}

const MALFORMED: [&str; 4] = [
    "cvt.rn.f16.f32 3f8 => 3c00",
    "cvt.rn.f16.f32 3f800000 => 3c0",
    "cvt.rn.f16.f32 3f800000 => 3c00 extra",
    "cvt.rzi.s32.f32 7fc00000 => nan",
];

#[test]
fn both_reject_malformed_lines() {
    let scratch = Scratch::new("malformed");
    let exe = c_reader(&scratch);
    let py = python();
    for (i, line) in MALFORMED.iter().enumerate() {
        // The bad line is line 1, then a good one, so the reference must be `:1:`.
        let file = scratch.0.join(format!("bad{i}.cases"));
        std::fs::write(&file, format!("{line}\ncvt.rn.f16.f32 3f800000 => 3c00\n")).unwrap();
        let expect = format!("{}:1: ", file.display());
        let mut runs = Vec::new();
        if let Some(py) = py {
            runs.push(("read_cases.py", run(Command::new(py).arg("vectors/readers/read_cases.py").arg(&file), "")));
        }
        if let Some(exe) = &exe {
            runs.push(("read_cases.c", run(Command::new(exe).arg(&file), "")));
        }
        for (who, out) in runs {
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{who} on `{line}`: {err}");
            assert!(err.starts_with(&expect), "{who} on `{line}`: expected `{expect}...`, got: {err}");
            assert!(!err.contains("Traceback"), "{who} on `{line}`: {err}");
        }
    }
}

/// A file that starts with a UTF-8 byte-order mark (as some Windows editors
/// save text) reads like the same file without it: both readers skip it.
#[test]
fn both_skip_a_byte_order_mark() {
    let scratch = Scratch::new("bom");
    let file = scratch.0.join("bom.cases");
    std::fs::write(&file, "\u{feff}cvt.rn.f16.f32 3f800000 => 3c00\ncvt.rzi.s32.f32 7fc00000 => 00000000\n").unwrap();
    let mut runs = Vec::new();
    if let Some(py) = python() {
        runs.push(("read_cases.py", run(Command::new(py).arg("vectors/readers/read_cases.py").arg(&file), "")));
    }
    if let Some(exe) = c_reader(&scratch) {
        runs.push(("read_cases.c", run(Command::new(&exe).arg(&file), "")));
    }
    for (who, out) in runs {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{who}: {err}");
        assert_eq!(printed_counts(&out.stdout), vec![(file.display().to_string(), 2)], "{who}");
    }
}

/// Runs the Python reader's `accepts` on "line<TAB>bits" pairs; one answer per pair.
const PY_ACCEPTS: &str = r#"
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "vectors/readers")
from read_cases import parse_line, accepts
for row in sys.stdin:
    line, bits = row.rstrip("\n").split("\t")
    try:
        print(int(accepts(parse_line(line)["result"], int(bits, 16))))
    except ValueError:
        print("E")
"#;

/// The same for the C reader.
const C_ACCEPTS: &str = r#"
#define PTXCVT_NO_MAIN
#include "read_cases.c"
int main(void) {
    static char row[8192];
    char err[256];
    struct ptxcvt_case c;
    while (fgets(row, sizeof row, stdin)) {
        char *tab = strchr(row, '\t');
        *tab = 0;
        if (ptxcvt_parse_line(row, &c, err, sizeof err) < 0) puts("E");
        else printf("%d\n", ptxcvt_accepts(&c, strtoull(tab + 1, NULL, 16)));
    }
    return 0;
}
"#;

fn py_accepts(pairs: &[(String, u64)]) -> Option<Vec<String>> {
    let py = python()?;
    let input: String = pairs.iter().map(|(l, b)| format!("{l}\t{b:x}\n")).collect();
    let out = run(Command::new(py).arg("-c").arg(PY_ACCEPTS), &input);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect())
}

fn c_accepts(pairs: &[(String, u64)]) -> Option<Vec<String>> {
    let scratch = Scratch::new("accepts");
    let driver = scratch.0.join("driver.c");
    std::fs::write(&driver, C_ACCEPTS).unwrap();
    let exe = scratch.0.join("driver");
    compile_c(&driver, &exe, &["-I", readers().to_str().unwrap()])?;
    let input: String = pairs.iter().map(|(l, b)| format!("{l}\t{b:x}\n")).collect();
    let out = run(&mut Command::new(&exe), &input);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect())
}

#[test]
fn python_accepts_examples() {
    // (line, register bits, accepted?)
    let cases: [(&str, u64, bool); 12] = [
        ("cvt.rn.f16.f32 7fc00000 => nan", 0x7e00, true),
        ("cvt.rn.f16.f32 7fc00000 => nan", 0xfe01, true),
        ("cvt.rn.f16.f32 7fc00000 => nan", 0x7c00, false),
        ("cvt.rn.f16.f32 7fc00000 => nan", 0x1_7e00, false),
        ("cvt.rna.tf32.f32 3f801000 => 3f800000/ffffe000", 0x3f80_1fff, true),
        ("cvt.rna.tf32.f32 3f801000 => 3f800000/ffffe000", 0x3f80_2000, false),
        ("cvt.rn.f16x2.f32 7fc00000 3f800000 => nan_3c00", 0x7e00_3c00, true),
        ("cvt.rn.f16x2.f32 7fc00000 3f800000 => nan_3c00", 0x7e00_3c01, false),
        ("cvt.rn.tf32.f32 7fc00000 => nan", 0x7f80_2000, true),
        ("cvt.rn.tf32.f32 7fc00000 => nan", 0x7f80_1fff, false),
        ("cvt.rn.satfinite.e4m3x2.f32 7fc00000 3f800000 => nan_38", 0xff38, true),
        ("cvt.rn.satfinite.e4m3x2.f32 7fc00000 3f800000 => nan_38", 0x7e38, false),
    ];
    let pairs: Vec<(String, u64)> = cases.iter().map(|(l, b, _)| (l.to_string(), *b)).collect();
    let Some(got) = py_accepts(&pairs) else { return };
    for ((line, bits, want), got) in cases.iter().zip(&got) {
        assert_eq!(got, if *want { "1" } else { "0" }, "accepts({line}, {bits:x})");
    }
}

/// Result spellings beyond the known-answer files, one per syntax and format.
const EXTRA: [&str; 20] = [
    "cvt.rn.f16.f32 3f800000 => 3c0?",
    "cvt.rn.f16.f32 3f800000 => 3c00/fc00",
    "cvt.rn.f16.f32 3f800000 => nan:32",
    "cvt.rn.f16.f32 3f800000 => nan|7c00",
    "cvt.rn.f16.f32 3f800000 => ????????",
    "cvt.f32.f16 7e00 => nan:64|7fc0????????????",
    "cvt.f64.f32 7fc00000 => fff8????????????|nan",
    "cvt.rn.bf16.f32 7fc00000 => nan",
    "cvt.rn.tf32.f32 7fc00000 => nan|7f800000/ffffe000",
    "cvt.rn.f16x2.f32 3f800000 7fc00000 => 3c0?_nan",
    "cvt.rn.f16x2.f32 7fc00000 7fc00000 => nan_nan",
    "cvt.rn.bf16x2.f32 7fc00000 3f800000 => nan_3f80",
    "cvt.rn.satfinite.e4m3x2.f32 7fc00000 7fc00000 => nan_nan",
    "cvt.rn.satfinite.e5m2x2.f32 7fc00000 3f800000 => nan_3c",
    "cvt.rz.satfinite.ue8m0x2.f32 7fc00000 3f800000 => nan_7f",
    "cvt.rz.satfinite.ue8m0x2.f32 7fc00000 3f800000 => nan:16",
    "cvt.rn.satfinite.e2m1x2.f32 7fc00000 3f800000 => nan_2",
    "cvt.rn.satfinite.e2m1x4.f32 3f800000 40000000 7fc00000 00000000 => 2_4_nan_0",
    "cvt.rn.satfinite.e2m3x2.f32 7fc00000 3f800000 => nan_08",
    "cvt.rs.satfinite.e4m3x4.f32 7fc00000 3f800000 7fc00000 00000000 00000000 => nan_38_nan_00",
];

/// NaN and near-NaN codes of every format, as register or lane bits.
const SPECIALS: [u64; 24] = [
    0x7e00,
    0xfc01,
    0x7c00,
    0x7fc0,
    0xff81,
    0x7f80,
    0x7fc0_0000,
    0xff80_0001,
    0x7f80_0000,
    0x7f80_2000,
    0x7f80_1fff,
    0x7ff8_0000_0000_0000,
    0xfff0_0000_0000_0001,
    0x7ff0_0000_0000_0000,
    0x7f,
    0xff,
    0x7e,
    0x7d,
    0x7c,
    0xfe,
    0xf,
    0x7,
    0x3f,
    0x8,
];

/// Register values to try against an acceptance set: members, near misses, NaNs.
fn probes(width: u32, alts: &[Alt]) -> Vec<u64> {
    let w = width_mask(width);
    let mut v: Vec<u64> = SPECIALS.to_vec();
    v.extend([0, w, w >> 1]);
    for a in alts {
        match a {
            Alt::Bits { value, mask } => {
                v.extend([*value, *value | (w & !mask), *value ^ 1, *value ^ (1 << (width - 1))])
            }
            Alt::AnyNan(_) => {}
            Alt::Lanes { bits, lanes } => {
                // Each NaN lane takes each special code; exact lanes their value.
                for s in SPECIALS.iter().chain([&0]) {
                    let mut x = 0u64;
                    for l in lanes {
                        x = (x << bits)
                            | match l {
                                LaneSet::Bits { value, .. } => *value,
                                LaneSet::AnyNan(_) => s & width_mask(*bits),
                            };
                    }
                    v.extend([x, x ^ 1, x ^ (1 << (width - 1))]);
                }
            }
        }
    }
    let mut more: Vec<u64> = v.iter().map(|x| x ^ (1 << width.min(63))).collect();
    v.append(&mut more);
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn readers_agree_with_the_oracle() {
    let mut lines: Vec<String> = EXTRA.iter().map(|s| s.to_string()).collect();
    for f in FILES {
        let text = std::fs::read_to_string(workspace().join(f)).unwrap();
        lines.extend(text.lines().map(String::from));
    }
    let mut pairs = Vec::new();
    let mut expected = Vec::new();
    for line in &lines {
        let Some(case) = parse_case(line).unwrap_or_else(|e| panic!("oracle rejects `{line}`: {e}")) else { continue };
        let Some(set) = case.result else { continue };
        for bits in probes(set.width, &set.alts) {
            pairs.push((line.clone(), bits));
            expected.push(if set.contains(bits) { "1" } else { "0" });
        }
    }
    assert!(pairs.len() > 1000 && expected.contains(&"1") && expected.contains(&"0"));
    for (who, got) in [("read_cases.py", py_accepts(&pairs)), ("read_cases.c", c_accepts(&pairs))] {
        let Some(got) = got else { continue };
        assert_eq!(got.len(), pairs.len(), "{who}: one answer per probe");
        for (((line, bits), want), got) in pairs.iter().zip(&expected).zip(&got) {
            assert_eq!(got, want, "{who}: accepts(`{line}`, {bits:x}) = {got}, oracle says {want}");
        }
    }
}

/// The digest references (atlas_digest.py, atlas_digest.c) on `ptx-cvt
/// sweep --out` case lines: the printed block digests, or why it failed.
fn digest_outputs(scratch: &Scratch, files: &[&Path], flags: &[&str]) -> Vec<(String, Output)> {
    let mut out = Vec::new();
    if let Some(py) = python() {
        let o = run(Command::new(py).arg("vectors/readers/atlas_digest.py").args(flags).args(files), "");
        out.push(("atlas_digest.py".to_string(), o));
    }
    let exe = scratch.0.join("atlas_digest");
    if exe.exists() || compile_c(&readers().join("atlas_digest.c"), &exe, &[]).is_some() {
        out.push(("atlas_digest.c".to_string(), run(Command::new(&exe).args(flags).args(files), "")));
    }
    out
}

fn sweep_out(c: &str, path: &Path) {
    let o = Command::new(ptx_cvt_tests::bin()).args(["sweep", c, "--out"]).arg(path).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `BLOCK DIGEST` lines of an output.
fn blocks(o: &Output) -> Vec<(u64, u64)> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| ptx_cvt_harness::atlas::parse_block_line(l).expect("a block line"))
        .collect()
}

#[test]
fn digest_references_equal_the_atlas() {
    let scratch = Scratch::new("digest");
    let atlas = ptx_cvt_harness::atlas::read_dir(&workspace().join("vectors/atlas")).unwrap();
    // An 8-bit source, NaN results the profile leaves open, packed lanes from a packed source.
    for c in ["cvt.rn.f16.s8", "cvt.f64.bf16", "cvt.rn.f16x2.e4m3x2", "cvt.rn.bf16x2.ue8m0x2"] {
        let e = atlas.iter().find(|e| e.c.to_string() == c).unwrap();
        let f = scratch.0.join(format!("{c}.cases"));
        sweep_out(c, &f);
        for (who, o) in digest_outputs(&scratch, &[&f], &[]) {
            assert!(o.status.success(), "{who}: {}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(blocks(&o), [(0, e.blocks[0])], "{who} on {c}");
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            assert!(text.starts_with(&format!("# instruction: {c}\n")), "{who}: {text}");
            assert!(text.ends_with(&format!("# digest: {:016x}\n", e.digest())), "{who}: {text}");
        }
    }
    // A GPU's own NaN bits on an open-nan variant: equal with --open-nan only;
    // one wrong result: never equal.
    let e = atlas.iter().find(|e| e.c.to_string() == "cvt.f64.bf16").unwrap();
    assert!(e.open.nan);
    let text = std::fs::read_to_string(scratch.0.join("cvt.f64.bf16.cases")).unwrap();
    let gpu = scratch.0.join("gpu.cases");
    std::fs::write(&gpu, text.replace("=> nan", "=> fff8000000000001")).unwrap();
    let wrong = scratch.0.join("wrong.cases");
    assert!(text.contains("cvt.f64.bf16 3f80 => 3ff0000000000000\n"));
    std::fs::write(
        &wrong,
        text.replace("cvt.f64.bf16 3f80 => 3ff0000000000000", "cvt.f64.bf16 3f80 => 3ff0000000000001"),
    )
    .unwrap();
    for (who, o) in digest_outputs(&scratch, &[&gpu], &["--open-nan"]) {
        assert_eq!(blocks(&o), [(0, e.blocks[0])], "{who} --open-nan");
    }
    for (who, o) in digest_outputs(&scratch, &[&gpu], &[]) {
        assert_ne!(blocks(&o), [(0, e.blocks[0])], "{who} without --open-nan");
    }
    for (who, o) in digest_outputs(&scratch, &[&wrong], &["--open-nan"]) {
        assert_ne!(blocks(&o), [(0, e.blocks[0])], "{who}: one wrong bit");
    }
    // 32-bit inputs land in blocks of 2^24: block 0 and block 0x3f.
    let two = scratch.0.join("two.cases");
    std::fs::write(&two, "cvt.rn.f16.f32 3f800000 => 3c00\ncvt.rn.f16.f32 00000001 => 0000\n").unwrap();
    let c = ptx_cvt::instr::parse("cvt.rn.f16.f32").unwrap();
    let fast = |x: u64| ptx_cvt_harness::atlas::fast_digest(&c, x, x + 1);
    for (who, o) in digest_outputs(&scratch, &[&two], &[]) {
        assert_eq!(blocks(&o), [(0, fast(1)), (0x3f, fast(0x3f80_0000))], "{who}");
    }
    // A bad line is refused with its place.
    std::fs::write(&two, "cvt.rn.f16.f32 3f800000 => 3c00\ncvt.rn.f16.f32 3f800000\n").unwrap();
    for (who, o) in digest_outputs(&scratch, &[&two], &[]) {
        assert_eq!(o.status.code(), Some(1), "{who}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("two.cases:2: "), "{who}");
    }
}
