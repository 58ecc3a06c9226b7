//! The C ABI of libptx_cvt_capi: called directly from Rust (arguments,
//! NULL pointers, small buffers, agreement with the oracle on the known
//! answers), and from C (examples/eval_demo.c compiled with `cc` against the
//! cdylib; skipped with a message when no C compiler is installed).

use std::ffi::{c_char, c_int, CStr, CString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::{null, null_mut};

use ptx_cvt::{evaluate, parse_case, Profile};
use ptx_cvt_capi::*;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("capi/ has a parent").to_path_buf()
}

/// What one `ptx_cvt_eval` call gave back.
#[derive(Debug)]
struct Eval {
    rc: c_int,
    bits: u64,
    mask: u64,
    text: String,
    err: String,
}

fn c_text(b: &[c_char]) -> String {
    let end = b.iter().position(|c| *c == 0).expect("buffer is NUL-terminated");
    String::from_utf8(b[..end].iter().map(|c| *c as u8).collect()).expect("buffer holds UTF-8")
}

fn eval_with(
    instr: &str,
    ops: &[(u64, u32)],
    dst: u32,
    profile: Option<&str>,
    text_len: usize,
    err_len: usize,
) -> Eval {
    let instr = CString::new(instr).unwrap();
    let profile = profile.map(|p| CString::new(p).unwrap());
    let bits: Vec<u64> = ops.iter().map(|o| o.0).collect();
    let widths: Vec<u32> = ops.iter().map(|o| o.1).collect();
    let (mut rb, mut rm) = (0xdead_u64, 0xbeef_u64);
    let mut text = vec![1 as c_char; text_len.max(1)];
    let mut err = vec![1 as c_char; err_len.max(1)];
    let rc = unsafe {
        ptx_cvt_eval(
            instr.as_ptr(),
            bits.as_ptr(),
            widths.as_ptr(),
            ops.len(),
            dst,
            profile.as_ref().map_or(null(), |p| p.as_ptr()),
            &mut rb,
            &mut rm,
            text.as_mut_ptr(),
            text_len,
            err.as_mut_ptr(),
            err_len,
        )
    };
    let text = if text_len > 0 { c_text(&text) } else { String::new() };
    let err = if err_len > 0 { c_text(&err) } else { String::new() };
    Eval { rc, bits: rb, mask: rm, text, err }
}

fn eval(instr: &str, ops: &[(u64, u32)], dst: u32, profile: Option<&str>) -> Eval {
    eval_with(instr, ops, dst, profile, PTX_CVT_TEXT_LEN, PTX_CVT_ERR_LEN)
}

fn accepts(instr: &str, ops: &[(u64, u32)], dst: u32, profile: Option<&str>, bits: u64) -> (c_int, String) {
    let instr = CString::new(instr).unwrap();
    let profile = profile.map(|p| CString::new(p).unwrap());
    let b: Vec<u64> = ops.iter().map(|o| o.0).collect();
    let w: Vec<u32> = ops.iter().map(|o| o.1).collect();
    let mut err = [1 as c_char; 256];
    let rc = unsafe {
        ptx_cvt_accepts(
            instr.as_ptr(),
            b.as_ptr(),
            w.as_ptr(),
            ops.len(),
            dst,
            profile.as_ref().map_or(null(), |p| p.as_ptr()),
            bits,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    (rc, c_text(&err))
}

#[test]
fn header_constants_match() {
    let h = std::fs::read_to_string(workspace().join("capi/include/ptx_cvt.h")).unwrap();
    for (name, v) in [
        ("PTX_CVT_OK", PTX_CVT_OK),
        ("PTX_CVT_NOT_BITS", PTX_CVT_NOT_BITS),
        ("PTX_CVT_ACCEPT", PTX_CVT_ACCEPT),
        ("PTX_CVT_REJECT", PTX_CVT_REJECT),
        ("PTX_CVT_EARG", PTX_CVT_EARG),
        ("PTX_CVT_EPARSE", PTX_CVT_EPARSE),
        ("PTX_CVT_EILLEGAL", PTX_CVT_EILLEGAL),
        ("PTX_CVT_EINTERNAL", PTX_CVT_EINTERNAL),
        ("PTX_CVT_TEXT_LEN", PTX_CVT_TEXT_LEN as c_int),
        ("PTX_CVT_ERR_LEN", PTX_CVT_ERR_LEN as c_int),
    ] {
        let want = if v < 0 { format!("#define {name} ({v})") } else { format!("#define {name} {v}") };
        assert!(h.contains(&want), "ptx_cvt.h lacks `{want}`");
    }
    for f in ["ptx_cvt_eval(", "ptx_cvt_accepts(", "ptx_cvt_eval1(", "ptx_cvt_version(void)"] {
        assert!(h.contains(f), "ptx_cvt.h does not declare {f}");
    }
}

#[test]
fn known_conversions() {
    // vectors/known-answers/sm90.cases
    let e = eval("cvt.rn.f16.f32", &[(0x3f80_0000, 32)], 16, None);
    assert_eq!((e.rc, e.bits, e.mask, e.text.as_str(), e.err.as_str()), (0, 0x3c00, 0xffff, "3c00", ""));
    let e = eval("cvt.rzi.s32.f64", &[(0x7ff8_0000_0000_0000, 64)], 32, Some("sm90"));
    assert_eq!((e.rc, e.bits, e.mask, e.text.as_str()), (0, 0x8000_0000, 0xffff_ffff, "80000000"));
    let e = eval("cvt.s16.s8", &[(0x1392_31c2, 32)], 32, None);
    assert_eq!((e.rc, e.bits, e.mask, e.text.as_str()), (0, 0xffff_ffc2, 0xffff_ffff, "ffffffc2"));
    let e = eval("cvt.f64.bf16", &[(0x7fc1, 16)], 64, None);
    assert_eq!((e.rc, e.bits, e.mask, e.text.as_str(), e.err.as_str()), (PTX_CVT_NOT_BITS, 0, 0, "nan", ""));
    // A 64-bit destination: the mask is all ones.
    let e = eval("cvt.rzi.s64.f32", &[(0x7fc0_0000, 32)], 64, None);
    assert_eq!((e.rc, e.bits, e.mask), (0, 0x8000_0000_0000_0000, u64::MAX));
}

#[test]
fn patterns_sets_and_packed() {
    // A value/mask pattern: the ISA leaves tf32's low 13 bits open (sm_90 writes zeros).
    let e = eval("cvt.rna.tf32.f32", &[(0x3f80_1000, 32)], 32, Some("isa"));
    assert_eq!((e.rc, e.bits, e.mask, e.text.as_str()), (0, 0x3f80_2000, 0xffff_e000, "3f802000/ffffe000"));
    let e = eval("cvt.rna.tf32.f32", &[(0x3f80_1000, 32)], 32, None);
    assert_eq!((e.rc, e.bits, e.mask, e.text.as_str()), (0, 0x3f80_2000, 0xffff_ffff, "3f802000"));
    // Several alternatives under the ISA profile: not bits/mask.
    let e = eval("cvt.rn.relu.f16.f32", &[(0x8000_0000, 32)], 16, Some("isa"));
    assert_eq!((e.rc, e.bits, e.mask, e.text.as_str()), (PTX_CVT_NOT_BITS, 0, 0, "0000|8000"));
    let e = eval("cvt.rn.relu.f16.f32", &[(0x8000_0000, 32)], 16, Some("sm90"));
    assert_eq!((e.rc, e.bits, e.text.as_str()), (0, 0, "0000"));
    // Packed: two operands, lanes high first.
    let e = eval("cvt.rn.f16x2.f32", &[(0x3f80_0000, 32), (0x4000_0000, 32)], 32, None);
    assert_eq!((e.rc, e.bits, e.mask, e.text.as_str()), (0, 0x3c00_4000, 0xffff_ffff, "3c004000"));
    // A NaN lane: sm_90 writes the canonical 7fff, the ISA allows any NaN there.
    let e = eval("cvt.rn.f16x2.f32", &[(0x7fc0_0000, 32), (0x3f80_0000, 32)], 32, None);
    assert_eq!((e.rc, e.bits, e.text.as_str()), (0, 0x7fff_3c00, "7fff3c00"));
    let e = eval("cvt.rn.f16x2.f32", &[(0x7fc0_0000, 32), (0x3f80_0000, 32)], 32, Some("isa"));
    assert_eq!((e.rc, e.bits, e.mask, e.text.as_str()), (PTX_CVT_NOT_BITS, 0, 0, "nan_3c00"));
}

#[test]
fn errors_have_codes_and_messages() {
    let e = eval("mov.b32", &[(0, 32)], 32, None);
    assert_eq!(e.rc, PTX_CVT_EPARSE);
    assert!(e.err.contains("not a cvt"), "{}", e.err);
    assert_eq!((e.bits, e.mask, e.text.as_str()), (0, 0, ""), "outputs are cleared on errors");
    let e = eval("cvt.rn.f16.f33", &[(0, 32)], 16, None);
    assert_eq!(e.rc, PTX_CVT_EPARSE, "{e:?}");
    let e = eval("cvt.rni.f16.f32", &[(0x3f80_0000, 32)], 16, None);
    assert_eq!(e.rc, PTX_CVT_EILLEGAL);
    assert!(e.err.contains("rounding-required-frnd"), "{}", e.err);
    // Operand count, register widths, stray bits, bf16's exact registers.
    for (instr, ops, dst, needle) in [
        ("cvt.rn.f16.f32", vec![(0x3f80_0000, 32), (0, 32)], 16, "takes 1 source operand"),
        ("cvt.rn.f16x2.f32", vec![(0x3f80_0000, 32)], 32, "takes 2"),
        ("cvt.rn.f16.f32", vec![(0x3f80_0000, 12)], 16, "12 bits"),
        ("cvt.rn.f16.f32", vec![(0x1_0000_0000, 32)], 16, "does not fit a 32-bit register"),
        ("cvt.rn.f16.f32", vec![(0x3f80_0000, 32)], 12, "destination register of 12 bits"),
        ("cvt.rn.f16.f32", vec![(0x3f80, 16)], 16, "cannot hold"),
        ("cvt.f32.bf16", vec![(0x3f80, 32)], 32, "bf16"),
    ] {
        let e = eval(instr, &ops, dst, None);
        assert_eq!(e.rc, PTX_CVT_EILLEGAL, "{instr} {ops:?} {dst}: {e:?}");
        assert!(e.err.contains(needle), "{instr}: `{}` lacks `{needle}`", e.err);
    }
    let many = vec![(0u64, 32u32); 1000];
    assert_eq!(eval("cvt.rn.f16.f32", &many, 16, None).rc, PTX_CVT_EILLEGAL);
    let e = eval("cvt.rn.f16.f32", &[(0x3f80_0000, 32)], 16, Some("sm80"));
    assert_eq!(e.rc, PTX_CVT_EARG);
    assert!(e.err.contains("unknown profile"), "{}", e.err);
    // Not UTF-8.
    let bad = [b'c' as c_char, b'v' as c_char, b't' as c_char, 0xff_u8 as c_char, 0];
    let (mut b, mut m) = (0, 0);
    let mut text = [0 as c_char; 64];
    let mut err = [0 as c_char; 128];
    let rc = unsafe {
        ptx_cvt_eval(
            bad.as_ptr(),
            [0u64].as_ptr(),
            [32u32].as_ptr(),
            1,
            16,
            null(),
            &mut b,
            &mut m,
            text.as_mut_ptr(),
            64,
            err.as_mut_ptr(),
            128,
        )
    };
    assert_eq!(rc, PTX_CVT_EPARSE);
    assert!(c_text(&err).contains("UTF-8"));
}

#[test]
fn null_pointers_and_zero_lengths() {
    let instr = CString::new("cvt.rn.f16.f32").unwrap();
    let ops = [0x3f80_0000u64];
    let widths = [32u32];
    let (mut b, mut m) = (7u64, 7u64);
    let mut text = [1 as c_char; 64];
    let mut err = [1 as c_char; 128];
    let ip = instr.as_ptr();
    let (op, wp) = (ops.as_ptr(), widths.as_ptr());
    let (bp, mp, tp, ep): (*mut u64, *mut u64, *mut c_char, *mut c_char) =
        (&mut b, &mut m, text.as_mut_ptr(), err.as_mut_ptr());
    // (instruction, operands, widths, n, bits, mask, text, text_len, what the message names)
    type Args = (*const c_char, *const u64, *const u32, usize, *mut u64, *mut u64, *mut c_char, usize, &'static str);
    let cases: [Args; 8] = [
        (null(), op, wp, 1, bp, mp, tp, 64, "instruction is NULL"),
        (ip, null(), wp, 1, bp, mp, tp, 64, "operands is NULL"),
        (ip, op, null(), 1, bp, mp, tp, 64, "operand_widths is NULL"),
        (ip, op, wp, 0, bp, mp, tp, 64, "n_operands is 0"),
        (ip, op, wp, 1, null_mut(), mp, tp, 64, "result_bits is NULL"),
        (ip, op, wp, 1, bp, null_mut(), tp, 64, "result_mask is NULL"),
        (ip, op, wp, 1, bp, mp, null_mut(), 64, "result_text is NULL"),
        (ip, op, wp, 1, bp, mp, tp, 0, "result_text_len is 0"),
    ];
    for (i, o, w, n, rb, rm, t, tl, needle) in cases {
        let rc = unsafe { ptx_cvt_eval(i, o, w, n, 16, null(), rb, rm, t, tl, ep, 128) };
        assert_eq!(rc, PTX_CVT_EARG, "{needle}");
        assert!(c_text(&err).starts_with(needle), "{} lacks {needle}", c_text(&err));
    }
    // No error buffer: -1, nothing to write the message to, outputs cleared.
    let (mut b, mut m) = (7u64, 7u64);
    let mut text = [1 as c_char; 64];
    let rc = unsafe { ptx_cvt_eval(ip, op, wp, 1, 16, null(), &mut b, &mut m, text.as_mut_ptr(), 64, null_mut(), 128) };
    assert_eq!((rc, b, m, text[0]), (PTX_CVT_EARG, 0, 0, 0));
    let mut err = [1 as c_char; 8];
    let rc =
        unsafe { ptx_cvt_eval(ip, op, wp, 1, 16, null(), &mut b, &mut m, text.as_mut_ptr(), 64, err.as_mut_ptr(), 0) };
    assert_eq!((rc, err[0]), (PTX_CVT_EARG, 1), "err_len 0: nothing written");
    // Everything NULL at once.
    let rc = unsafe {
        ptx_cvt_eval(null(), null(), null(), 0, 0, null(), null_mut(), null_mut(), null_mut(), 0, null_mut(), 0)
    };
    assert_eq!(rc, PTX_CVT_EARG);
    let rc = unsafe { ptx_cvt_accepts(null(), null(), null(), 0, 0, null(), 0, null_mut(), 0) };
    assert_eq!(rc, PTX_CVT_EARG);
    let mut err = [1 as c_char; 64];
    let rc = unsafe { ptx_cvt_accepts(ip, null(), wp, 1, 16, null(), 0x3c00, err.as_mut_ptr(), 64) };
    assert_eq!((rc, c_text(&err).as_str()), (PTX_CVT_EARG, "operands is NULL"));
}

#[test]
fn tiny_buffers() {
    // Error messages are truncated to the buffer, always NUL-terminated.
    let full = eval("mov.b32", &[(0, 32)], 32, None);
    assert!(full.err.len() > 20);
    for n in [1usize, 2, 7, 20] {
        let e = eval_with("mov.b32", &[(0, 32)], 32, None, 64, n);
        assert_eq!(e.rc, PTX_CVT_EPARSE);
        assert!(e.err.len() < n, "{n}: {:?}", e.err);
        assert!(full.err.starts_with(&e.err), "{n}: {:?} is not a prefix of {:?}", e.err, full.err);
    }
    // A result that does not fit result_text is an argument error, not a truncation.
    let e = eval_with("cvt.rn.f16.f32", &[(0x3f80_0000, 32)], 16, None, 4, 128);
    assert_eq!((e.rc, e.text.as_str()), (PTX_CVT_EARG, ""));
    assert!(e.err.contains("needs 5"), "{}", e.err);
    let e = eval_with("cvt.rn.f16.f32", &[(0x3f80_0000, 32)], 16, None, 5, 128);
    assert_eq!((e.rc, e.text.as_str()), (0, "3c00"));
    // Unaligned operand arrays are read correctly.
    let instr = CString::new("cvt.rn.f16.f32").unwrap();
    let mut raw = [0u8; 8 + 1 + 4 + 1];
    raw[1..9].copy_from_slice(&0x3f80_0000u64.to_ne_bytes());
    raw[10..14].copy_from_slice(&32u32.to_ne_bytes());
    let (mut b, mut m) = (0u64, 0u64);
    let mut text = [0 as c_char; 16];
    let mut err = [0 as c_char; 64];
    let rc = unsafe {
        ptx_cvt_eval(
            instr.as_ptr(),
            raw.as_ptr().add(1).cast(),
            raw.as_ptr().add(10).cast(),
            1,
            16,
            null(),
            &mut b,
            &mut m,
            text.as_mut_ptr(),
            16,
            err.as_mut_ptr(),
            64,
        )
    };
    assert_eq!((rc, b), (0, 0x3c00), "{}", c_text(&err));
}

#[test]
fn accepts_decides_membership() {
    assert_eq!(
        accepts("cvt.f64.bf16", &[(0x7fc1, 16)], 64, None, 0x7ff8_0000_0000_0001),
        (PTX_CVT_ACCEPT, String::new())
    );
    assert_eq!(accepts("cvt.f64.bf16", &[(0x7fc1, 16)], 64, None, 0x3ff0_0000_0000_0000).0, PTX_CVT_REJECT);
    assert_eq!(accepts("cvt.rn.f16.f32", &[(0x3f80_0000, 32)], 16, None, 0x3c00).0, PTX_CVT_ACCEPT);
    assert_eq!(accepts("cvt.rn.f16.f32", &[(0x3f80_0000, 32)], 16, None, 0x3c01).0, PTX_CVT_REJECT);
    assert_eq!(
        accepts("cvt.rn.f16.f32", &[(0x3f80_0000, 32)], 16, None, 0x1_3c00).0,
        PTX_CVT_REJECT,
        "bits above dst_width"
    );
    assert_eq!(accepts("cvt.rn.relu.f16.f32", &[(0x8000_0000, 32)], 16, Some("isa"), 0x8000).0, PTX_CVT_ACCEPT);
    assert_eq!(accepts("cvt.rn.relu.f16.f32", &[(0x8000_0000, 32)], 16, Some("sm90"), 0x8000).0, PTX_CVT_REJECT);
    let (rc, msg) = accepts("cvt.rni.f16.f32", &[(0x3f80_0000, 32)], 16, None, 0);
    assert_eq!(rc, PTX_CVT_EILLEGAL);
    assert!(msg.contains("rule"), "{msg}");
    assert_eq!(accepts("cvt", &[(0, 32)], 16, None, 0).0, PTX_CVT_EPARSE);
}

#[test]
fn version_is_the_crate_version() {
    let v = unsafe { CStr::from_ptr(ptx_cvt_version()) };
    assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

/// Every known-answer line through the ABI: the text is the oracle's, the
/// bits/mask agree with it, and the expected result is accepted.
#[test]
fn known_answers_through_the_abi() {
    let mut n = 0;
    for (file, profile) in [("sm90.cases", Profile::Sm90), ("isa.cases", Profile::Isa)] {
        let text = std::fs::read_to_string(workspace().join("vectors/known-answers").join(file)).unwrap();
        for line in text.lines() {
            let Some(case) = parse_case(line).unwrap() else { continue };
            let Some(expected) = &case.result else { continue };
            let ops: Vec<(u64, u32)> = case.operands.iter().map(|o| (o.bits, o.width)).collect();
            let dst = case.dst_width();
            let instr = case.instr.to_string();
            let want = evaluate(&case.instr, &case.operands, dst, profile).unwrap().accept;
            let e = eval(&instr, &ops, dst, Some(profile.name()));
            assert!(e.rc >= 0, "{line}: {}", e.err);
            assert_eq!(e.text, want.to_string(), "{line}");
            match want.single() {
                Some(v) => assert_eq!((e.rc, e.bits, e.mask), (0, v, ptx_cvt::accept::width_mask(dst)), "{line}"),
                None if e.rc == 0 => {
                    assert!(want.contains(e.bits) && e.mask != ptx_cvt::accept::width_mask(dst), "{line}");
                }
                None => assert_eq!((e.rc, e.bits, e.mask), (1, 0, 0), "{line}"),
            }
            if let Some(v) = expected.single() {
                assert_eq!(accepts(&instr, &ops, dst, Some(profile.name()), v).0, PTX_CVT_ACCEPT, "{line}");
            }
            n += 1;
        }
    }
    assert!(n > 100, "only {n} known answers read");
}

/// The directory holding libptx_cvt_capi.so, after `cargo build -p ptx-cvt-capi`
/// in this test's own profile (a release test must not load a stale release
/// library while a fresh one is built for debug).
fn cdylib_dir() -> PathBuf {
    let ws = workspace();
    // This test runs from <target>/<profile>/deps/.
    let beside = std::env::current_exe().ok().and_then(|e| Some(e.parent()?.parent()?.to_path_buf()));
    let release = beside.as_ref().is_some_and(|d| d.file_name().is_some_and(|n| n == "release"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut build = Command::new(cargo);
    build.args(["build", "-q", "-p", "ptx-cvt-capi", "--lib"]).current_dir(&ws);
    if release {
        build.arg("--release");
    }
    let out = build.output().expect("could not run cargo to build ptx-cvt-capi");
    assert!(out.status.success(), "cargo build -p ptx-cvt-capi failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let name = format!("{}ptx_cvt_capi{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        Some(d) => ws.join(d),
        None => ws.join("target"),
    };
    let profile = target.join(if release { "release" } else { "debug" });
    let candidates: Vec<PathBuf> = beside.into_iter().chain([profile]).collect();
    candidates
        .iter()
        .find(|d| d.join(&name).is_file())
        .cloned()
        .unwrap_or_else(|| panic!("built ptx-cvt-capi but {name} is in none of {candidates:?}"))
}

/// A C compiler: $CC, else `cc`, if it runs.
fn c_compiler(var: &str, default: &str) -> Option<String> {
    let cc = std::env::var(var).unwrap_or_else(|_| default.to_string());
    let ok = Command::new(&cc).arg("--version").output().is_ok_and(|o| o.status.success());
    ok.then_some(cc)
}

fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptx-cvt-capi-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Compile capi/examples/NAME.c against the cdylib and run it: its stdout,
/// or None (with a message) when there is no C compiler.
fn run_c_example(name: &str) -> Option<String> {
    let Some(cc) = c_compiler("CC", "cc") else {
        eprintln!("SKIPPED {name}: no C compiler (set CC or install cc) to build capi/examples/{name}.c");
        return None;
    };
    let lib_dir = cdylib_dir();
    let ws = workspace();
    let tmp = scratch_dir(name);
    let exe = tmp.join(name);
    let out = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(ws.join("capi/include"))
        .arg(ws.join(format!("capi/examples/{name}.c")))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib_dir.display()))
        .arg("-lptx_cvt_capi")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .output()
        .expect("run the C compiler");
    assert!(out.status.success(), "compiling {name}.c failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().expect("run the example");
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(run.status.success(), "{name} failed ({}):\n{stdout}{}", run.status, String::from_utf8_lossy(&run.stderr));
    println!("{stdout}");
    assert!(stdout.contains("all checks passed"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    Some(stdout)
}

#[test]
fn eval_demo_c_program() {
    if let Some(stdout) = run_c_example("eval_demo") {
        assert!(stdout.contains(&format!("ptx-cvt C API {}", env!("CARGO_PKG_VERSION"))), "{stdout}");
    }
}

/// Issue 36: the prepared interface from C (capi/examples/prepared_demo.c).
#[test]
fn prepared_demo_c_program() {
    if let Some(stdout) = run_c_example("prepared_demo") {
        // NaN source: sm90 writes the canonical f16 NaN (docs/semantics.md).
        assert!(stdout.contains("cvt.rn.f16.f32 7f800001 => 7fff"), "{stdout}");
        // ptx_cvt_eval1 on a set: the canonical f64 NaN, one member of any NaN.
        assert!(stdout.contains("cvt.f64.bf16 7fc1 => 7fffffffffffffff (ptx_cvt_eval1: PTX_CVT_NOT_BITS"), "{stdout}");
    }
}

/// The header compiles as C++ (the `extern "C"` guards), when a C++ compiler exists.
#[test]
fn header_compiles_as_cpp() {
    let Some(cxx) = c_compiler("CXX", "c++") else {
        eprintln!("SKIPPED header_compiles_as_cpp: no C++ compiler (set CXX or install c++)");
        return;
    };
    let tmp = scratch_dir("cpp");
    let src = tmp.join("use_header.cpp");
    std::fs::write(
        &src,
        "#include \"ptx_cvt.h\"\n\
         #include \"ptx_cvt_impl.h\"\n\
         extern \"C\" int cvt_impl(const char *, const uint64_t *, const uint32_t *, size_t, uint32_t, uint64_t *) { return 1; }\n\
         static ptx_cvt_impl_fn check_type = cvt_impl;\n\
         int main() { uint64_t b, m; char t[PTX_CVT_TEXT_LEN], e[PTX_CVT_ERR_LEN];\n\
           (void)check_type; return ptx_cvt_eval(\"cvt.rn.f16.f32\", nullptr, nullptr, 0, 16, nullptr, &b, &m, t, sizeof t, e, sizeof e)\n\
             + (ptx_cvt_version() == nullptr); }\n",
    )
    .unwrap();
    let out = Command::new(&cxx)
        .args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I"])
        .arg(workspace().join("capi/include"))
        .arg(&src)
        .output()
        .expect("run the C++ compiler");
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(out.status.success(), "ptx_cvt.h as C++ failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// A prepared handle (prepared once per instruction and register widths).
struct Handle(*mut Prepared);

impl Handle {
    fn new(
        instr: &str,
        widths: &[u32],
        dst: u32,
        target: Option<&str>,
        profile: Option<&str>,
    ) -> Result<Handle, (c_int, String)> {
        let instr = CString::new(instr).unwrap();
        let target = target.map(|t| CString::new(t).unwrap());
        let profile = profile.map(|p| CString::new(p).unwrap());
        let mut h = null_mut();
        let mut err = vec![1 as c_char; 512];
        let rc = unsafe {
            ptx_cvt_prepare(
                instr.as_ptr(),
                widths.as_ptr(),
                widths.len(),
                dst,
                target.as_ref().map_or(null(), |t| t.as_ptr()),
                null(),
                profile.as_ref().map_or(null(), |p| p.as_ptr()),
                &mut h,
                err.as_mut_ptr(),
                err.len(),
            )
        };
        if rc == PTX_CVT_OK {
            assert!(!h.is_null());
            Ok(Handle(h))
        } else {
            assert!(h.is_null(), "a failed prepare leaves the handle NULL");
            Err((rc, c_text(&err)))
        }
    }

    fn eval(&self, ops: &[u64]) -> (c_int, u64, u64) {
        let (mut b, mut m) = (7, 7);
        let mut err = vec![1 as c_char; 512];
        let rc = unsafe { ptx_cvt_eval_prepared(self.0, ops.as_ptr(), &mut b, &mut m, err.as_mut_ptr(), err.len()) };
        assert!(rc >= 0, "{}", c_text(&err));
        (rc, b, m)
    }

    /// `ptx_cvt_eval1`: (code, bits).
    fn eval1(&self, x: u64) -> (c_int, u64) {
        let mut b = 0xdead_beef;
        let rc = unsafe { ptx_cvt_eval1(self.0, x, &mut b) };
        (rc, b)
    }

    fn accepts(&self, ops: &[u64], bits: u64) -> c_int {
        let mut err = vec![1 as c_char; 512];
        unsafe { ptx_cvt_accepts_prepared(self.0, ops.as_ptr(), bits, err.as_mut_ptr(), err.len()) }
    }

    fn batch(&self, rows: &[Vec<u64>]) -> Result<Vec<u64>, (c_int, String)> {
        let flat: Vec<u64> = rows.iter().flatten().copied().collect();
        let mut out = vec![0u64; rows.len()];
        let mut err = vec![1 as c_char; 512];
        let rc = unsafe {
            ptx_cvt_eval_batch(self.0, rows.len(), flat.as_ptr(), out.as_mut_ptr(), err.as_mut_ptr(), err.len())
        };
        if rc == PTX_CVT_OK {
            Ok(out)
        } else {
            Err((rc, c_text(&err)))
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { ptx_cvt_release(self.0) }
    }
}

// SAFETY: the header promises a handle may be used from any number of threads.
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

/// Issue 36: the prepared calls give what the per-call ones give, on every
/// known answer and on the compact vectors of a spread of variants (scalar,
/// packed, integer, .rs with three operands, wider registers), under both
/// profiles; the batch gives a member of each element's set.
#[test]
fn prepared_calls_agree_with_per_call_ones() {
    use std::collections::HashMap;
    let mut files: Vec<PathBuf> =
        ["sm90.cases", "isa.cases"].iter().map(|f| workspace().join("vectors/known-answers").join(f)).collect();
    for v in [
        "cvt.rn.f16.f32",
        "cvt.rzi.s32.f64",
        "cvt.s16.s8",
        "cvt.rn.satfinite.e4m3x2.f32",
        "cvt.rn.bf16x2.f32",
        "cvt.rs.satfinite.e2m1x4.f32",
        "cvt.rna.satfinite.tf32.f32",
        "cvt.f32.bf16",
        "cvt.rn.f16x2.e4m3x2",
    ] {
        files.push(workspace().join("vectors/compact").join(format!("{v}.cases")));
    }
    let (mut checked, mut eval1_sets, mut eval1_patterns) = (0, 0, 0);
    for profile in [Profile::Sm90, Profile::Isa] {
        let mut handles: HashMap<(String, Vec<u32>, u32), Handle> = HashMap::new();
        let mut rows: HashMap<(String, Vec<u32>, u32), Vec<Vec<u64>>> = HashMap::new();
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            for line in text.lines() {
                let Some(case) = parse_case(line).unwrap() else { continue };
                let ops: Vec<(u64, u32)> = case.operands.iter().map(|o| (o.bits, o.width)).collect();
                let bits: Vec<u64> = ops.iter().map(|o| o.0).collect();
                let widths: Vec<u32> = ops.iter().map(|o| o.1).collect();
                let (instr, dst) = (case.instr.to_string(), case.dst_width());
                let key = (instr.clone(), widths.clone(), dst);
                let want = eval(&instr, &ops, dst, Some(profile.name()));
                if !handles.contains_key(&key) {
                    match Handle::new(&instr, &widths, dst, None, Some(profile.name())) {
                        Ok(h) => {
                            handles.insert(key.clone(), h);
                        }
                        Err((rc, e)) => {
                            assert!(want.rc < 0, "{line}: prepare refused ({rc}: {e}) what ptx_cvt_eval takes");
                            continue;
                        }
                    }
                }
                let h = &handles[&key];
                let got = h.eval(&bits);
                assert_eq!(got, (want.rc, want.bits, want.mask), "{line} ({})", profile.name());
                // ptx_cvt_eval1: OK with the value exactly when the result is
                // one value; else NOT_BITS with a member (the batch's, below).
                let one = h.eval1(bits[0]);
                if bits.len() == 1 {
                    let all = ptx_cvt::accept::width_mask(dst);
                    match (want.rc, want.mask == all) {
                        (PTX_CVT_OK, true) => assert_eq!(one, (PTX_CVT_OK, want.bits), "{line}"),
                        (PTX_CVT_OK, false) => {
                            assert_eq!(one, (PTX_CVT_NOT_BITS, want.bits), "{line}");
                            eval1_patterns += 1;
                        }
                        _ => {
                            assert_eq!(one.0, PTX_CVT_NOT_BITS, "{line}");
                            assert_eq!(h.accepts(&bits, one.1), PTX_CVT_ACCEPT, "{line}: {:x}", one.1);
                        }
                    }
                    eval1_sets += (one.0 == PTX_CVT_NOT_BITS) as usize;
                } else {
                    assert_eq!(one, (PTX_CVT_EILLEGAL, 0), "{line}: eval1 on a form of {} operands", bits.len());
                }
                for b in [want.bits, want.bits ^ 1, case.result.as_ref().and_then(|r| r.single()).unwrap_or(0)] {
                    let b = b & ptx_cvt::accept::width_mask(dst);
                    assert_eq!(
                        h.accepts(&bits, b),
                        accepts(&instr, &ops, dst, Some(profile.name()), b).0,
                        "{line} {b:x}"
                    );
                }
                rows.entry(key).or_default().push(bits);
                checked += 1;
            }
        }
        for (key, rs) in &rows {
            let out = handles[key].batch(rs).unwrap();
            for (r, o) in rs.iter().zip(out) {
                if r.len() == 1 {
                    // The member eval1 gives for a set is the batch's.
                    assert_eq!(handles[key].eval1(r[0]).1, o, "{} {r:x?}: eval1 and the batch", key.0);
                }
                let ops: Vec<(u64, u32)> = r.iter().copied().zip(key.1.iter().copied()).collect();
                assert_eq!(
                    accepts(&key.0, &ops, key.2, Some(profile.name()), o).0,
                    PTX_CVT_ACCEPT,
                    "{} {r:x?} => {o:x}",
                    key.0
                );
            }
        }
    }
    assert!(checked > 2000, "only {checked} cases");
    // The sets (any NaN, open bits) were among them.
    assert!(eval1_sets > 50, "only {eval1_sets} sets through ptx_cvt_eval1");
    assert!(eval1_patterns > 0, "no value/mask pattern through ptx_cvt_eval1");
}

/// Errors of the prepared calls: refused at prepare time, or naming the
/// element of a batch; a shared handle gives the same answers on threads.
#[test]
fn prepared_errors_and_threads() {
    let e = Handle::new("cvt.rn.satfinite.e4m3x2.f32", &[32, 32], 16, Some("sm_80"), None).err().unwrap();
    assert_eq!(e.0, PTX_CVT_EILLEGAL, "{}", e.1);
    assert_eq!(Handle::new("cvt.bogus", &[32], 16, None, None).err().unwrap().0, PTX_CVT_EPARSE);
    assert_eq!(Handle::new("cvt.rn.f16.f32", &[32, 32], 16, None, None).err().unwrap().0, PTX_CVT_EILLEGAL);
    assert_eq!(Handle::new("cvt.rn.f16.f32", &[32], 12, None, None).err().unwrap().0, PTX_CVT_EILLEGAL);
    assert_eq!(Handle::new("cvt.rn.f16.f32", &[32], 16, Some("sm_1"), None).err().unwrap().0, PTX_CVT_EARG);
    assert_eq!(Handle::new("cvt.rn.f16.f32", &[32], 16, None, Some("nope")).err().unwrap().0, PTX_CVT_EARG);
    let h = Handle::new("cvt.rn.f16.f32", &[32], 16, Some("sm_90"), None).unwrap();
    let e = h.batch(&[vec![0x3f80_0000], vec![1 << 32]]).unwrap_err();
    assert_eq!(e.0, PTX_CVT_EILLEGAL);
    assert!(e.1.contains("element 1"), "{}", e.1);
    let mut err = vec![1 as c_char; 64];
    let rc = unsafe { ptx_cvt_eval_batch(null(), 1, [0u64].as_ptr(), [0u64].as_mut_ptr(), err.as_mut_ptr(), 64) };
    assert_eq!(rc, PTX_CVT_EARG);
    let rc =
        unsafe { ptx_cvt_prepare(null(), null(), 0, 16, null(), null(), null(), null_mut(), err.as_mut_ptr(), 64) };
    assert_eq!(rc, PTX_CVT_EARG);
    unsafe { ptx_cvt_release(null_mut()) };
    // ptx_cvt_eval1: codes without messages; *result 0 on an error.
    assert_eq!(h.eval1(0x3f80_0000), (PTX_CVT_OK, 0x3c00));
    assert_eq!(h.eval1(1 << 32), (PTX_CVT_EILLEGAL, 0), "stray bits above the 32-bit register");
    let mut b = 7;
    assert_eq!(unsafe { ptx_cvt_eval1(null(), 0x3f80_0000, &mut b) }, PTX_CVT_EARG);
    assert_eq!(b, 0);
    assert_eq!(unsafe { ptx_cvt_eval1(h.0, 0x3f80_0000, null_mut()) }, PTX_CVT_EARG);
    let pair = Handle::new("cvt.rn.f16x2.f32", &[32, 32], 32, None, None).unwrap();
    assert_eq!(pair.eval1(0), (PTX_CVT_EILLEGAL, 0), "a form of two operands");
    // A wider register than the type: its stray bits are the register's, not the type's.
    let wide = Handle::new("cvt.s16.s8", &[32], 32, None, None).unwrap();
    assert_eq!(wide.eval1(0x1392_31c2), (PTX_CVT_OK, 0xffff_ffc2));
    // Any NaN (cvt.f64.bf16 under sm90): a set, answered by its canonical NaN.
    let nan = Handle::new("cvt.f64.bf16", &[16], 64, None, None).unwrap();
    assert_eq!(nan.eval1(0x7fc1), (PTX_CVT_NOT_BITS, 0x7fff_ffff_ffff_ffff));
    // Threads: every f32 whose high 16 bits vary, through one handle, as per call.
    let rows: Vec<Vec<u64>> = (0..1u64 << 16).map(|x| vec![x << 16 | 0x1234]).collect();
    let serial = h.batch(&rows).unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (h, rows, serial) = (&h, &rows, &serial);
            s.spawn(move || {
                for (i, r) in rows.iter().enumerate().skip(t).step_by(4) {
                    let (rc, b, _) = h.eval(r);
                    if rc == PTX_CVT_OK {
                        assert_eq!(b, serial[i], "{r:x?}");
                    } else {
                        assert_eq!(h.accepts(r, serial[i]), PTX_CVT_ACCEPT, "{r:x?}");
                    }
                    let (rc1, b1) = h.eval1(r[0]);
                    assert!(rc1 == PTX_CVT_OK || rc1 == PTX_CVT_NOT_BITS, "{r:x?}: {rc1}");
                    assert_eq!(b1, serial[i], "{r:x?}: eval1");
                }
            });
        }
    });
}
