//! End-to-end tests of `ptx-cvt sweep` (tools/src/sweep.rs), run as a child
//! process (see tests/cli.rs for how the binary is found): the digest of a
//! full 16-bit sweep against one computed here from the exact engine, shard
//! digests adding up, `--against` catching a planted wrong line, `--out`
//! files that `check` accepts, an implementation under test, bad options.
//!
//! The digest (documented in tools/src/sweep.rs and `ptx-cvt sweep --help`):
//! the wrapping sum over inputs x of splitmix64(x * 0xd6e8feb86659fd93 ^ r),
//! r the result bits, a set result's representative being the canonical NaN.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptx_cvt::accept::{width_mask, Alt};
use ptx_cvt::instr::{self, parse};
use ptx_cvt::{evaluate, format_case, AcceptSet, Cvt, Operand, Profile};
use ptx_cvt_tests::{bin, workspace};

struct Run {
    code: Option<i32>,
    out: String,
    err: String,
}

fn sweep(args: &[&str]) -> Run {
    let o = Command::new(bin()).arg("sweep").args(args).output().expect("run ptx-cvt");
    let r = Run {
        code: o.status.code(),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(!r.err.contains("panicked"), "ptx-cvt sweep {args:?} panicked:\n{}", r.err);
    r
}

impl Run {
    fn expect(&self, code: i32) -> &Self {
        assert_eq!(self.code, Some(code), "exit status\n--- stdout\n{}\n--- stderr\n{}", self.out, self.err);
        self
    }
    fn digest(&self) -> u64 {
        let line = self
            .out
            .lines()
            .find_map(|l| l.strip_prefix("digest "))
            .unwrap_or_else(|| panic!("no digest line in\n{}", self.out));
        u64::from_str_radix(line.trim(), 16).unwrap_or_else(|_| panic!("digest line `{line}`"))
    }
}

fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One member of the exact engine's set, as the digest defines it: the
/// value, or the canonical NaN (sign clear, every other bit set) of a
/// scalar signed float destination.
fn representative(c: &Cvt, set: &AcceptSet) -> u64 {
    if let Some(v) = set.single() {
        return v;
    }
    match set.alts.as_slice() {
        [Alt::AnyNan(_)] if !c.dtype.is_packed() => width_mask(c.dtype.bits() - 1),
        other => panic!("{c}: no representative defined here for {other:?}"),
    }
}

/// The digest of `[start, end)` computed with the exact engine.
fn exact_digest(c: &Cvt, start: u64, end: u64) -> u64 {
    let w = instr::shape(c).srcs[0];
    (start..end).fold(0u64, |d, x| {
        let o = evaluate(c, &[Operand { bits: x, width: w }], c.dtype.bits(), Profile::Sm90).unwrap();
        d.wrapping_add(splitmix64(x.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ representative(c, &o.accept)))
    })
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptx-cvt-sweep-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn full_16_bit_sweeps_match_the_exact_engine() {
    // f16 → f32 widens every code (NaN payloads included); bf16 → f16 rounds
    // and overflows; f16 → s32 rounds to integers, NaN → 0; e4m3x2 → f16x2
    // unpacks a 16-bit packed source.
    for spelling in ["cvt.f32.f16", "cvt.rn.f16.bf16", "cvt.rzi.s32.f16", "cvt.rn.f16x2.e4m3x2"] {
        let c = parse(spelling).unwrap();
        assert_eq!(*instr::shape(&c).srcs, [16], "{spelling}");
        let r = sweep(&[spelling]);
        r.expect(0);
        assert!(r.out.contains("65536 inputs evaluated, 0 mismatches"), "{}", r.out);
        assert_eq!(r.digest(), exact_digest(&c, 0, 1 << 16), "{spelling}");
    }
}

#[test]
fn ranges_of_wide_sources_match_the_exact_engine() {
    // A 64-bit source needs --range; 1.0 and the next 4095 doubles, and the top of the range.
    let c = parse("cvt.rn.f32.f64").unwrap();
    let r = sweep(&["cvt.rn.f32.f64", "--range", "0x3ff0000000000000..0x3ff0000000001000"]);
    r.expect(0);
    assert_eq!(r.digest(), exact_digest(&c, 0x3ff0_0000_0000_0000, 0x3ff0_0000_0000_1000));
    let r = sweep(&["cvt.rn.f32.f64", "--range", "0xfffffffffffff000..=0xffffffffffffffff"]);
    r.expect(0);
    // [f000, MAX) plus the last input, MAX itself (a NaN).
    let below = exact_digest(&c, 0xffff_ffff_ffff_f000, u64::MAX);
    let o = evaluate(&c, &[Operand { bits: u64::MAX, width: 64 }], 32, Profile::Sm90).unwrap();
    let top = splitmix64(u64::MAX.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ representative(&c, &o.accept));
    assert_eq!(r.digest(), below.wrapping_add(top));
    sweep(&["cvt.rn.f32.f64"]).expect(2);
}

#[test]
fn shard_digests_add_up() {
    let full = sweep(&["cvt.rn.f16.bf16"]);
    full.expect(0);
    let halves: Vec<u64> =
        ["0/2", "1/2"].iter().map(|s| sweep(&["cvt.rn.f16.bf16", "--shard", s]).expect(0).digest()).collect();
    assert_eq!(halves[0].wrapping_add(halves[1]), full.digest());
    assert_ne!(halves[0], full.digest());
    // Uneven splits, of a range too.
    let thirds = ["0/3", "1/3", "2/3"].iter().map(|s| sweep(&["cvt.rn.f16.bf16", "--shard", s]).expect(0).digest());
    assert_eq!(thirds.fold(0u64, u64::wrapping_add), full.digest());
    let range = sweep(&["cvt.rn.f16.bf16", "--range", "0x100..0x1ff"]).expect(0).digest();
    let parts = ["0/7", "1/7", "2/7", "3/7", "4/7", "5/7", "6/7"]
        .iter()
        .map(|s| sweep(&["cvt.rn.f16.bf16", "--range", "0x100..0x1ff", "--shard", s]).expect(0).digest());
    assert_eq!(parts.fold(0u64, u64::wrapping_add), range);
    let r = sweep(&["cvt.rn.f16.bf16", "--shard", "1/2"]);
    assert!(r.out.contains("inputs 8000..10000"), "{}", r.out);
}

#[test]
fn against_reports_a_planted_wrong_line() {
    let dir = scratch("against");
    let c = parse("cvt.rn.f16.f32").unwrap();
    // 1.0 - 4096 ulp .. 1.0 + 4095 ulp.
    let mut lines = vec!["# results of some implementation".to_string()];
    for x in 0x3f7f_f000u64..0x3f80_1000 {
        let ops = [Operand { bits: x, width: 32 }];
        lines.push(format_case(&c, &ops, &evaluate(&c, &ops, 16, Profile::Sm90).unwrap().accept));
    }
    let good = dir.join("good.cases");
    std::fs::write(&good, lines.join("\n") + "\n").unwrap();
    let r = sweep(&["cvt.rn.f16.f32", "--range", "0x3f7ff000..0x3f801000", "--against", good.to_str().unwrap()]);
    r.expect(0);
    assert!(r.out.contains("8192 case(s) checked, 0 mismatch(es)"), "{}", r.out);

    // Line 1 + 4096 + 5: 1.0 + 4 ulp (3f800004 → 3c00); plant 3c01.
    let planted = 1 + 4096 + 5;
    assert_eq!(lines[planted - 1], "cvt.rn.f16.f32 3f800004 => 3c00");
    lines[planted - 1] = "cvt.rn.f16.f32 3f800004 => 3c01".into();
    let bad = dir.join("bad.cases");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let r = sweep(&["cvt.rn.f16.f32", "--range", "0x3f7ff000..0x3f801000", "--against", bad.to_str().unwrap()]);
    r.expect(1);
    assert!(r.out.contains(&format!("bad.cases:{planted}: MISMATCH cvt.rn.f16.f32 3f800004")), "{}", r.out);
    assert!(r.out.contains("expected 3c00 (1)"), "{}", r.out);
    assert!(r.out.contains("8192 case(s) checked, 1 mismatch(es)"), "{}", r.out);
    assert!(r.out.contains(", 1 mismatches"), "{}", r.out);

    // Outside the shard: skipped, not checked.
    let r = sweep(&[
        "cvt.rn.f16.f32",
        "--range",
        "0x3f7ff000..0x3f801000",
        "--shard",
        "0/2",
        "--against",
        bad.to_str().unwrap(),
    ]);
    r.expect(0);
    assert!(r.out.contains("4096 case(s) checked, 0 mismatch(es), 4096 outside"), "{}", r.out);

    // Another instruction and a malformed line are errors.
    std::fs::write(dir.join("other.cases"), "cvt.rz.f16.f32 3f800000 => 3c00\ncvt.rn.f16.f32 zz => 3c00\n").unwrap();
    let r = sweep(&["cvt.rn.f16.f32", "--range", "0..16", "--against", dir.join("other.cases").to_str().unwrap()]);
    r.expect(2);
    assert!(r.err.contains("other.cases:1: error: a case of `cvt.rz.f16.f32`"), "{}", r.err);
    assert!(r.err.contains("other.cases:2: error"), "{}", r.err);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn out_files_pass_check() {
    let dir = scratch("out");
    let f = dir.join("s8.cases");
    let r = sweep(&["cvt.rn.f16.s8", "--out", f.to_str().unwrap()]);
    r.expect(0);
    let text = std::fs::read_to_string(&f).unwrap();
    assert_eq!(text.lines().count(), 256);
    assert_eq!(text.lines().nth(0x81).unwrap(), "cvt.rn.f16.s8 81 => d7f0"); // -127
    let o = Command::new(bin()).args(["check", "-q"]).arg(&f).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    // The same digest with and without --out.
    assert_eq!(r.digest(), sweep(&["cvt.rn.f16.s8"]).expect(0).digest());
    // All 2^32 lines without --range or --force: refused before anything runs.
    let r = sweep(&["cvt.rn.f16.f32", "--out", dir.join("huge.cases").to_str().unwrap()]);
    r.expect(2);
    assert!(r.err.contains("--range, or --force"), "{}", r.err);
    assert!(!dir.join("huge.cases").exists());
    let _ = std::fs::remove_dir_all(dir);
}

fn python() -> bool {
    let ok = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: needs python3 on PATH");
    }
    ok
}

fn toy() -> String {
    format!("python3 '{}'", workspace().join("examples/toy-interp/toy_interp.py").display())
}

#[test]
fn implementations_under_test() {
    if !python() {
        return;
    }
    // The toy interpreter gets cvt.u16.u8 right and sign-extends nothing (bug 3).
    let r = sweep(&["cvt.u16.u8", "--target-cmd", &toy()]);
    r.expect(0);
    assert!(r.out.contains("256 input(s) compared, 0 mismatch(es)"), "{}", r.out);
    let r = sweep(&["cvt.s16.s8", "--target-cmd", &toy(), "--batch", "100", "--show", "2"]);
    r.expect(1);
    assert!(r.out.contains("256 input(s) compared, 128 mismatch(es)"), "{}", r.out);
    assert!(r.out.contains("MISMATCH cvt.s16.s8 80"), "{}", r.out);
    assert_eq!(r.out.matches("MISMATCH").count(), 2, "{}", r.out);
    // A program that dies is an error.
    sweep(&["cvt.u16.u8", "--target-cmd", "exit 3"]).expect(2);
    sweep(&["cvt.u16.u8", "--target-lib", Path::new("/nonexistent/lib.so").to_str().unwrap()]).expect(2);
}

#[test]
fn bad_instructions_and_options_exit_2() {
    for args in [
        &["cvt.f16.bogus"][..],
        &["not-an-instruction"],
        &["cvt.rn.f16.f16"],   // illegal
        &["cvt.rn.f16x2.f32"], // two source operands
        &["cvt.rn.f32.f64"],   // 64-bit source without --range
        &["cvt.f32.f16", "--shard", "2/2"],
        &["cvt.f32.f16", "--shard", "1"],
        &["cvt.f32.f16", "--shard", "a/b"],
        &["cvt.f32.f16", "--shard", "0/0"],
        &["cvt.f32.f16", "--range", "5..5"],
        &["cvt.f32.f16", "--range", "0..0x10001"],
        &["cvt.f32.f16", "--range", "x"],
    ] {
        let r = sweep(args);
        assert_eq!(r.code, Some(2), "{args:?}\n{}\n{}", r.out, r.err);
        assert!(r.err.contains("error"), "{args:?}: {}", r.err);
    }
    // Two f32 sources: 2^64 input numbers, so a --range is needed.
    let r = sweep(&["cvt.rn.f16x2.f32"]);
    assert!(r.err.contains("cannot all be swept; give a --range"), "{}", r.err);
}

#[test]
fn several_operands_form_one_input_number() {
    // cvt.rn.f16x2.f32 d, a, b: x = a·2^32 + b; a range around a = 1.0 with b
    // crossing 1.0, and the top of the space (a and b NaN).
    let c = parse("cvt.rn.f16x2.f32").unwrap();
    let exact = |start: u64, end: u64| {
        (start..end).fold(0u64, |d, x| {
            let ops = [Operand { bits: x >> 32, width: 32 }, Operand { bits: x & 0xffff_ffff, width: 32 }];
            let o = evaluate(&c, &ops, 32, Profile::Sm90).unwrap();
            let r = o.accept.single().unwrap_or_else(|| {
                // NaN lanes: the canonical f16 NaN 7fff in each NaN lane.
                (0..2).fold(0u64, |v, i| {
                    let lane = if o.accept.contains(v | 0x7fff << (16 * i)) { 0x7fffu64 } else { 0 };
                    v | lane << (16 * i)
                })
            });
            d.wrapping_add(splitmix64(x.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ r))
        })
    };
    let r = sweep(&["cvt.rn.f16x2.f32", "--range", "0x3f8000003f7ff800..0x3f8000003f800800"]);
    r.expect(0);
    assert_eq!(r.digest(), exact(0x3f80_0000_3f7f_f800, 0x3f80_0000_3f80_0800));
    let parts = ["0/3", "1/3", "2/3"].iter().map(|s| {
        sweep(&["cvt.rn.f16x2.f32", "--range", "0x3f8000003f7ff800..0x3f8000003f800800", "--shard", s])
            .expect(0)
            .digest()
    });
    assert_eq!(parts.fold(0u64, u64::wrapping_add), r.digest());
    let r = sweep(&["cvt.rn.f16x2.f32", "--range", "0xffffffffffffff00..=0xffffffffffffffff"]);
    r.expect(0);
    // The last input, 2^64 - 1, is two NaNs: 7fff in both lanes.
    let o = evaluate(&c, &[Operand { bits: 0xffff_ffff, width: 32 }; 2], 32, Profile::Sm90).unwrap();
    assert!(o.accept.contains(0x7fff_7fff));
    let top = splitmix64(u64::MAX.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ 0x7fff_7fff);
    assert_eq!(r.digest(), exact(0xffff_ffff_ffff_ff00, u64::MAX).wrapping_add(top));
    // --out writes both operands; `check` accepts the file.
    let dir = scratch("multi");
    let f = dir.join("x2.cases");
    sweep(&["cvt.rn.f16x2.f32", "--range", "0x3f80000040000000..0x3f80000040000010", "--out", f.to_str().unwrap()])
        .expect(0);
    let text = std::fs::read_to_string(&f).unwrap();
    assert_eq!(text.lines().next(), Some("cvt.rn.f16x2.f32 3f800000 40000000 => 3c004000"));
    let o = Command::new(bin()).args(["check", "-q"]).arg(&f).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    // No --range over 2^64 inputs; .rs forms take 96 bits.
    sweep(&["cvt.rn.f16x2.f32"]).expect(2);
    let r = sweep(&["cvt.rs.f16x2.f32", "--range", "0..16"]);
    r.expect(2);
    assert!(r.err.contains("96 bits in all"), "{}", r.err);
    let _ = std::fs::remove_dir_all(dir);
}
