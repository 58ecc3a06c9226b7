//! An implementation under test that is a user's shared library exporting
//! one C function (`--target-lib libmine.so [--symbol NAME]` of `ptx-cvt
//! check`, `fuzz`, `sweep`).
//!
//! # The C function
//!
//! Declared for implementers in `capi/include/ptx_cvt_impl.h` (worked example:
//! `capi/examples/toy_impl.c`):
//!
//! ```c
//! int cvt_impl(const char *instruction,        /* "cvt.rn.f16.f32", NUL-terminated */
//!              const uint64_t *operands,       /* n source registers' bits */
//!              const uint32_t *operand_widths, /* their widths: 8, 16, 32 or 64 */
//!              size_t n_operands,
//!              uint32_t dst_width,             /* destination register width */
//!              uint64_t *result);              /* out: the destination's bits */
//! ```
//!
//! The instruction is the oracle's canonical spelling (`Cvt`'s `Display`:
//! `cvt`, modifiers, destination type, source type). Operands are in PTX
//! order, bits above each register's width zero. The function returns 0 with
//! the destination register's bits in `*result` (`*result` is 0 before the
//! call), or non-zero when it does not handle the case: the case is then
//! [`Answer::Declined`] (counted as unsupported; the run goes on). The bits are
//! returned as they are, even with bits set above `dst_width`: that is a wrong
//! answer for the comparison with the oracle to report, not an adapter error.
//! The name may be any exported C symbol; [`DEFAULT_SYMBOL`] is `cvt_impl`.
//!
//! Optionally the library also exports `<symbol>_reason` (`cvt_impl_reason`):
//! `const char *cvt_impl_reason(void)`, the message of the last decline on
//! the calling thread (or NULL). When present it is called after each
//! decline and its text is the decline's reason (reports group declines by
//! it); without it the reason is `cvt_impl returned N`.
//!
//! # Safety and failures
//!
//! Loading a library runs its initialisers, and the function is trusted to
//! follow the contract above: a crash in it (or a C++ exception escaping it)
//! ends this process, which no adapter in the process can prevent; with
//! [`SharedLib::note_crashes`] the case in flight is written to stderr first
//! ([`crate::crash_note`]). To survive crashes, run the library in worker
//! processes instead ([`crate::worker`], `--isolate`). Opening reports, as
//! `Err` messages: a missing file, a directory, a file the dynamic loader
//! refuses (not a shared library, wrong architecture, missing dependencies)
//! and a missing symbol.

use std::ffi::{c_char, c_int, CString};
use std::path::{Path, PathBuf};

use libloading::Library;
use ptx_cvt::{Cvt, Operand};

use crate::implementation::{Answer, Implementation};

/// The symbol looked up when none is given.
pub const DEFAULT_SYMBOL: &str = "cvt_impl";

/// The C signature of the implementation (see the module documentation).
pub type CvtImplFn = unsafe extern "C" fn(
    instruction: *const c_char,
    operands: *const u64,
    operand_widths: *const u32,
    n_operands: usize,
    dst_width: u32,
    result: *mut u64,
) -> c_int;

/// The optional companion: the message of the last decline on this thread.
pub type ReasonFn = unsafe extern "C" fn() -> *const c_char;

/// Characters of a decline reason kept.
const REASON_CHARS: usize = 300;

/// A loaded shared library and its implementation function.
pub struct SharedLib {
    /// The function pointers; valid while `_lib` stays loaded (they are
    /// dropped with, and so never outlive, the library).
    func: CvtImplFn,
    reason: Option<ReasonFn>,
    /// Whether each call is noted for the crash handler.
    note: bool,
    _lib: Library,
    path: PathBuf,
    symbol: String,
}

impl std::fmt::Debug for SharedLib {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedLib").field("path", &self.path).field("symbol", &self.symbol).finish()
    }
}

impl SharedLib {
    /// Load `path` and look up `symbol` (e.g. [`DEFAULT_SYMBOL`]).
    ///
    /// The path is taken as a file path (made absolute), never searched for
    /// on the loader's library path.
    pub fn open(path: &Path, symbol: &str) -> Result<SharedLib, String> {
        let shown = path.display();
        if symbol.is_empty() {
            return Err("empty symbol name: name the exported C function (default cvt_impl)".into());
        }
        if symbol.contains('\0') {
            return Err(format!("symbol name {symbol:?} contains a NUL byte"));
        }
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!("shared library `{shown}` does not exist"));
            }
            Err(e) => return Err(format!("cannot read shared library `{shown}`: {e}")),
        };
        if meta.is_dir() {
            return Err(format!("`{shown}` is a directory, not a shared library"));
        }
        let abs = std::fs::canonicalize(path).map_err(|e| format!("cannot resolve `{shown}`: {e}"))?;
        // SAFETY: loading runs the library's initialisers; the user asked for this library.
        let lib = unsafe { Library::new(&abs) }.map_err(|e| {
            format!(
                "cannot load `{shown}` as a shared library: {e}\n  \
                 (build it with e.g. `cc -shared -fPIC -O2 mine.c -o libmine.so`; see capi/include/ptx_cvt_impl.h)"
            )
        })?;
        // SAFETY: the symbol is trusted to have the documented C signature.
        let func: CvtImplFn = match unsafe { lib.get::<CvtImplFn>(symbol) } {
            Ok(f) => *f,
            Err(e) => {
                return Err(format!(
                    "`{shown}` does not export a function `{symbol}`: {e}\n  \
                     (define `int {symbol}(const char *, const uint64_t *, const uint32_t *, size_t, uint32_t, uint64_t *)` \
                     with C linkage — `extern \"C\"` in C++ — and default visibility; see capi/include/ptx_cvt_impl.h)"
                ))
            }
        };
        // SAFETY: the companion symbol, if exported, is trusted to have the documented signature.
        let reason = unsafe { lib.get::<ReasonFn>(format!("{symbol}_reason")) }.ok().map(|f| *f);
        Ok(SharedLib { func, reason, note: false, _lib: lib, path: abs, symbol: symbol.to_string() })
    }

    /// Before each call, note the case for a crash handler that names it on
    /// stderr if the library crashes this process (see [`crate::crash_note`]).
    pub fn note_crashes(&mut self) {
        crate::crash_note::install();
        self.note = true;
    }

    /// Whether the library exports `<symbol>_reason`.
    pub fn has_reasons(&self) -> bool {
        self.reason.is_some()
    }

    /// The library's absolute path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The function's symbol.
    pub fn symbol(&self) -> &str {
        &self.symbol
    }
}

impl SharedLib {
    /// Why the last call declined: `<symbol>_reason()`'s text, else the return code.
    fn reason(&self, rc: c_int) -> String {
        let said = self.reason.and_then(|f| {
            // SAFETY: called on the thread that just declined, as documented; the
            // pointer is NULL or a NUL-terminated string valid until the next call.
            let p = unsafe { f() };
            // SAFETY: non-NULL: a NUL-terminated string (the documented contract).
            (!p.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().trim().to_string())
        });
        match said {
            Some(r) if !r.is_empty() => ptx_cvt::accept::clip_to(&r, REASON_CHARS),
            _ => format!("{} returned {rc}", self.symbol),
        }
    }
}

impl Implementation for SharedLib {
    fn name(&self) -> String {
        format!("shared library: {} ({})", self.path.display(), self.symbol)
    }

    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<Answer, String> {
        let instr = c.to_string();
        let text = CString::new(instr.as_str()).map_err(|_| format!("instruction {instr:?} contains a NUL byte"))?;
        let bits: Vec<u64> = operands.iter().map(|o| o.bits).collect();
        let widths: Vec<u32> = operands.iter().map(|o| o.width).collect();
        let mut result = 0u64;
        let _noted = self.note.then(|| {
            let line = crate::process::request_line(c, operands, dst_width);
            crate::crash_note::enter(&format!("{} on: {line}", self.symbol))
        });
        // SAFETY: valid pointers for the documented lengths, alive for the call.
        let rc = unsafe {
            (self.func)(text.as_ptr(), bits.as_ptr(), widths.as_ptr(), operands.len(), dst_width, &mut result)
        };
        if rc != 0 {
            return Ok(Answer::Declined(self.reason(rc)));
        }
        Ok(Answer::Bits(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_cvt::Profile;
    use std::process::Command;

    fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
    }

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ptx-cvt-shared-lib-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// capi/examples/toy_impl.c built as a shared library in a scratch
    /// directory (returned for cleanup), or None without a C compiler.
    fn toy_lib(tag: &str) -> Option<(PathBuf, PathBuf)> {
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        if !Command::new(&cc).arg("--version").output().is_ok_and(|o| o.status.success()) {
            eprintln!("SKIPPED: no C compiler (set CC or install cc) to build capi/examples/toy_impl.c");
            return None;
        }
        let dir = scratch(tag);
        let lib = dir.join(format!("{}toy_impl{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX));
        let ws = workspace();
        let out = Command::new(&cc)
            .args(["-shared", "-fPIC", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(ws.join("capi/include"))
            .arg(ws.join("capi/examples/toy_impl.c"))
            .arg("-o")
            .arg(&lib)
            .output()
            .expect("run the C compiler");
        assert!(out.status.success(), "building toy_impl.c failed:\n{}", String::from_utf8_lossy(&out.stderr));
        Some((lib, dir))
    }

    fn op(bits: u64, width: u32) -> Operand {
        Operand { bits, width }
    }

    /// Whether the implementation's answer is in the oracle's acceptance set.
    fn agrees(imp: &mut SharedLib, instr: &str, ops: &[Operand], dst: u32) -> Result<bool, String> {
        let c = ptx_cvt::instr::parse(instr).unwrap();
        let got = imp.eval(&c, ops, dst)?.bits().ok_or_else(|| "declined".to_string())?;
        let want = ptx_cvt::evaluate_accept(&c, ops, dst, Profile::Sm90).unwrap();
        Ok(want.contains(got))
    }

    #[test]
    fn toy_implementation_matches_the_oracle() {
        let Some((path, dir)) = toy_lib("ok") else { return };
        let mut imp = SharedLib::open(&path, DEFAULT_SYMBOL).unwrap();
        assert!(imp.name().contains("toy_impl") && imp.name().contains("cvt_impl"), "{}", imp.name());
        assert_eq!(imp.symbol(), "cvt_impl");
        assert!(imp.path().is_absolute());

        // vectors/known-answers/sm90.cases: `cvt.s16.s8 139231c2 => ffffffc2`.
        let c = ptx_cvt::instr::parse("cvt.s16.s8").unwrap();
        assert_eq!(imp.eval(&c, &[op(0x1392_31c2, 32)], 32), Ok(Answer::Bits(0xffff_ffc2)));
        assert_eq!(imp.eval(&c, &[op(0x7f, 8)], 16), Ok(Answer::Bits(0x007f)));
        let c = ptx_cvt::instr::parse("cvt.rn.f16.f32").unwrap();
        assert_eq!(imp.eval(&c, &[op(0x3f80_0000, 32)], 16), Ok(Answer::Bits(0x3c00)));

        for (instr, ops, dst) in [
            ("cvt.s16.s8", vec![op(0xc2, 8)], 16),
            ("cvt.s16.s8", vec![op(0x1392_31c2, 32)], 32),
            ("cvt.s16.s8", vec![op(0x80, 16)], 64),
            ("cvt.u32.u16", vec![op(0xffff, 16)], 32),
            ("cvt.u32.u16", vec![op(0x1234_5678, 32)], 64),
        ] {
            assert!(agrees(&mut imp, instr, &ops, dst).unwrap(), "{instr} {ops:?} {dst}");
        }
        // f32 → f16 round to nearest even: specials, boundaries, ties, then a seeded sweep.
        let mut inputs: Vec<u32> = vec![
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0001,
            0x7f80_0001,
            0x0000_0001,
            0x807f_ffff,
            0x3380_0000,
            0x3300_0000,
            0x3300_0001,
            0x3880_0000,
            0x387f_e000,
            0x387f_f000,
            0x477f_e000,
            0x477f_efff,
            0x477f_f000,
            0x4780_0000,
            0x3f80_1000,
            0x3f80_3000,
            0x3f80_1001,
            0xc77f_f000,
            0x7f7f_ffff,
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            inputs.push((x >> 32) as u32);
        }
        for a in inputs {
            assert!(agrees(&mut imp, "cvt.rn.f16.f32", &[op(a as u64, 32)], 16).unwrap(), "cvt.rn.f16.f32 {a:08x}");
        }
        // Batches go through the same function.
        let c = ptx_cvt::instr::parse("cvt.s16.s8").unwrap();
        let got = imp.eval_batch(&c, &[(vec![op(0xff, 8)], 16), (vec![op(0x01, 8)], 16)]);
        assert_eq!(got, (vec![Answer::Bits(0xffff), Answer::Bits(0x0001)], None));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn rejections_and_wrong_answers() {
        let Some((path, dir)) = toy_lib("reject") else { return };
        let mut imp = SharedLib::open(&path, DEFAULT_SYMBOL).unwrap();
        let c = ptx_cvt::instr::parse("cvt.rz.f16.f32").unwrap();
        let e = imp.eval(&c, &[op(0x3f80_0000, 32)], 16).unwrap();
        assert_eq!(e, Answer::Declined("cvt_impl returned 1".into()));
        // The deliberately wrong symbol truncates: 1 + 3·2^-12 rounds up to 3c02 under .rn.
        let mut bad = SharedLib::open(&path, "cvt_impl_truncating").unwrap();
        assert!(!agrees(&mut bad, "cvt.rn.f16.f32", &[op(0x3f80_3000, 32)], 16).unwrap());
        assert!(agrees(&mut bad, "cvt.rn.f16.f32", &[op(0x3f80_0000, 32)], 16).unwrap());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn open_errors_are_clear() {
        let dir = scratch("errors");
        let missing = dir.join("libnothere.so");
        let e = SharedLib::open(&missing, DEFAULT_SYMBOL).unwrap_err();
        assert!(e.contains("does not exist") && e.contains("libnothere.so"), "{e}");
        let e = SharedLib::open(&dir, DEFAULT_SYMBOL).unwrap_err();
        assert!(e.contains("is a directory"), "{e}");
        let text = dir.join("libtext.so");
        std::fs::write(&text, "not a library\n").unwrap();
        let e = SharedLib::open(&text, DEFAULT_SYMBOL).unwrap_err();
        assert!(e.contains("cannot load") && e.contains("as a shared library"), "{e}");
        assert!(SharedLib::open(&text, "").unwrap_err().contains("empty symbol"));
        assert!(SharedLib::open(&text, "a\0b").unwrap_err().contains("NUL"));
        let _ = std::fs::remove_dir_all(&dir);
        if let Some((path, dir)) = toy_lib("nosym") {
            let e = SharedLib::open(&path, "no_such_function").unwrap_err();
            assert!(e.contains("does not export a function `no_such_function`"), "{e}");
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    #[test]
    fn is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<SharedLib>();
    }
}
