//! An implementation under test in a shared library exporting the C function
//! of `capi/include/ptx_cvt_impl.h` (default symbol `cvt_impl`): the same
//! contract as `ptx-cvt fuzz --target-lib` (tools/src/shared_lib.rs, which
//! this small loader mirrors; the fuzz crate cannot depend on the tools binary).
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
//! 0: `*result` holds the answer; non-zero: the case is declined. Loading
//! runs the library's initialisers, and a crash in the function ends the
//! fuzzer (libFuzzer then saves the input, which is what we want).

use std::ffi::{c_char, c_int, CString};
use std::path::{Path, PathBuf};

use libloading::Library;
use ptx_cvt::{Cvt, Implementation, Operand};

/// The symbol looked up when none is given.
pub const DEFAULT_SYMBOL: &str = "cvt_impl";

type CvtImplFn = unsafe extern "C" fn(*const c_char, *const u64, *const u32, usize, u32, *mut u64) -> c_int;

/// A loaded library and its function (valid while `_lib` stays loaded).
pub struct SharedLib {
    func: CvtImplFn,
    _lib: Library,
    path: PathBuf,
    symbol: String,
}

impl SharedLib {
    /// Load `path` (a file path, made absolute; never searched for) and look up `symbol`.
    pub fn open(path: &Path, symbol: &str) -> Result<SharedLib, String> {
        let shown = path.display();
        if symbol.is_empty() || symbol.contains('\0') {
            return Err(format!("bad symbol name {symbol:?}"));
        }
        let abs = std::fs::canonicalize(path).map_err(|e| format!("cannot open shared library `{shown}`: {e}"))?;
        // SAFETY: loading runs the library's initialisers; the user asked for this library.
        let lib = unsafe { Library::new(&abs) }.map_err(|e| format!("cannot load `{shown}` as a shared library: {e}"))?;
        // SAFETY: the symbol is trusted to have the documented C signature.
        let func: CvtImplFn = match unsafe { lib.get::<CvtImplFn>(symbol.as_bytes()) } {
            Ok(f) => *f,
            Err(e) => return Err(format!("`{shown}` does not export `{symbol}`: {e} (see capi/include/ptx_cvt_impl.h)")),
        };
        Ok(SharedLib { func, _lib: lib, path: abs, symbol: symbol.to_string() })
    }
}

impl Implementation for SharedLib {
    fn name(&self) -> String {
        format!("shared library: {} ({})", self.path.display(), self.symbol)
    }

    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<u64, String> {
        let text = CString::new(c.to_string()).map_err(|_| format!("instruction {c} contains a NUL byte"))?;
        let bits: Vec<u64> = operands.iter().map(|o| o.bits).collect();
        let widths: Vec<u32> = operands.iter().map(|o| o.width).collect();
        let mut result = 0u64;
        // SAFETY: valid pointers for the documented lengths, alive for the call.
        let rc = unsafe { (self.func)(text.as_ptr(), bits.as_ptr(), widths.as_ptr(), operands.len(), dst_width, &mut result) };
        if rc != 0 {
            return Err(format!("{} declined {c} (returned {rc})", self.symbol));
        }
        Ok(result)
    }
}
