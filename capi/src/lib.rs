//! C ABI over the ptx-cvt oracle, built as `libptx_cvt_capi.so` (cdylib).
//!
//! The functions here are declared and documented for C in
//! `capi/include/ptx_cvt.h`; keep the two in step. Every entry point checks
//! its pointers, catches panics (`catch_unwind`: none crosses into C) and
//! reports errors as a negative code with a NUL-terminated message.
//!
//! Return codes (`PTX_CVT_*` in the header):
//! - `0`  success; for `ptx_cvt_eval` the result is expressible as bits/mask;
//! - `1`  `ptx_cvt_eval` succeeded but the result is a set bits/mask cannot
//!   express (e.g. `nan`, or several alternatives); `ptx_cvt_accepts`: accepted;
//! - `-1` bad arguments (NULL pointer, zero length, unknown profile, small buffer);
//! - `-2` the instruction does not parse;
//! - `-3` illegal instruction, bad register widths or bad operands;
//! - `-4` internal error (a panic in the oracle, caught).

use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use ptx_cvt::accept::{width_mask, Alt};

mod prepared;
pub use prepared::Prepared;
use ptx_cvt::{evaluate_accept, AcceptSet, Cvt, Operand, Profile};

pub const PTX_CVT_OK: c_int = 0;
pub const PTX_CVT_NOT_BITS: c_int = 1;
pub const PTX_CVT_ACCEPT: c_int = 1;
pub const PTX_CVT_REJECT: c_int = 0;
pub const PTX_CVT_EARG: c_int = -1;
pub const PTX_CVT_EPARSE: c_int = -2;
pub const PTX_CVT_EILLEGAL: c_int = -3;
pub const PTX_CVT_EINTERNAL: c_int = -4;
/// A `result_text` buffer of this many bytes holds any result.
pub const PTX_CVT_TEXT_LEN: usize = 512;
/// An `err` buffer of this many bytes holds the messages in practice.
pub const PTX_CVT_ERR_LEN: usize = 512;

/// Most source operands any `cvt` form takes is 3 (`.rs` packed forms: a, b,
/// random bits); more than this is refused before reading the arrays.
const MAX_OPERANDS: usize = 16;

const REG_WIDTHS: [u32; 4] = [8, 16, 32, 64];

/// An error on its way to C: a negative code and its message.
#[derive(Debug)]
struct Error {
    code: c_int,
    message: String,
}

fn fail<T>(code: c_int, message: impl Into<String>) -> Result<T, Error> {
    Err(Error { code, message: message.into() })
}

/// Copy `msg` into the C buffer `buf` of `len` bytes, truncated at a UTF-8
/// character boundary so that it fits with its NUL, and NUL-terminated.
/// Interior NULs (impossible in practice) become spaces.
///
/// # Safety
/// `buf` is NULL or valid for `len` bytes of writes.
unsafe fn write_c_str(buf: *mut c_char, len: usize, msg: &str) {
    if buf.is_null() || len == 0 {
        return;
    }
    let mut n = msg.len().min(len - 1);
    while !msg.is_char_boundary(n) {
        n -= 1;
    }
    // Only the bytes written are touched (a huge `len` is never made into a slice).
    let out = std::slice::from_raw_parts_mut(buf.cast::<u8>(), n + 1);
    for (d, s) in out.iter_mut().zip(&msg.as_bytes()[..n]) {
        *d = if *s == 0 { b' ' } else { *s };
    }
    out[n] = 0;
}

/// Run `f` with panics caught; on an error write its message to `err`.
/// `err`/`err_len` must already have been checked (non-NULL, non-zero).
///
/// # Safety
/// `err` is valid for `err_len` bytes of writes.
unsafe fn guarded(err: *mut c_char, err_len: usize, f: impl FnOnce() -> Result<c_int, Error>) -> c_int {
    let r = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(Error {
                code: PTX_CVT_EINTERNAL,
                message: format!("internal error in the ptx-cvt oracle (please report): {what}"),
            })
        }
    };
    match r {
        Ok(code) => {
            write_c_str(err, err_len, "");
            code
        }
        Err(e) => {
            write_c_str(err, err_len, &e.message);
            e.code
        }
    }
}

/// A string argument: None for NULL, else its text; `code` is the error
/// for text that is not UTF-8.
///
/// # Safety
/// `p` is NULL or NUL-terminated.
unsafe fn str_arg(p: *const c_char, what: &str, code: c_int) -> Result<Option<String>, Error> {
    if p.is_null() {
        return Ok(None);
    }
    let s = CStr::from_ptr(p).to_str().map_err(|_| Error { code, message: format!("{what} is not valid UTF-8") })?;
    Ok(Some(s.to_string()))
}

/// The `profile` argument (NULL: the default, sm90).
///
/// # Safety
/// As for [`str_arg`].
unsafe fn profile_arg(profile: *const c_char) -> Result<Profile, Error> {
    match str_arg(profile, "profile", PTX_CVT_EARG)? {
        None => Ok(Profile::default()),
        Some(p) => p.parse::<Profile>().map_err(|e| Error { code: PTX_CVT_EARG, message: e.to_string() }),
    }
}

/// A register width (`what`: "destination", "operand 2"): 8, 16, 32 or 64.
fn check_register(what: &str, width: u32) -> Result<(), Error> {
    if REG_WIDTHS.contains(&width) {
        return Ok(());
    }
    fail(PTX_CVT_EILLEGAL, format!("{what} register of {width} bits: PTX registers have 8, 16, 32 or 64 bits"))
}

/// A checked request: the parsed instruction, its operands and registers.
struct Request {
    cvt: Cvt,
    operands: Vec<Operand>,
    dst_width: u32,
    profile: Profile,
}

/// Read and check the arguments shared by `ptx_cvt_eval` and `ptx_cvt_accepts`.
///
/// # Safety
/// Pointers are NULL or valid as the header documents (NUL-terminated
/// strings; `n_operands` elements in each array).
unsafe fn request(
    instruction: *const c_char,
    operands: *const u64,
    operand_widths: *const u32,
    n_operands: usize,
    dst_width: u32,
    profile: *const c_char,
) -> Result<Request, Error> {
    if instruction.is_null() {
        return fail(PTX_CVT_EARG, "instruction is NULL");
    }
    if operands.is_null() {
        return fail(PTX_CVT_EARG, "operands is NULL");
    }
    if operand_widths.is_null() {
        return fail(PTX_CVT_EARG, "operand_widths is NULL");
    }
    if n_operands == 0 {
        return fail(PTX_CVT_EARG, "n_operands is 0: every cvt takes at least one source operand");
    }
    let profile = profile_arg(profile)?;
    let text = str_arg(instruction, "instruction", PTX_CVT_EPARSE)?.unwrap_or_default();
    let cvt = ptx_cvt::instr::parse(&text).map_err(|e| Error { code: PTX_CVT_EPARSE, message: e.message })?;
    if n_operands > MAX_OPERANDS {
        return fail(
            PTX_CVT_EILLEGAL,
            format!("{n_operands} operands: {cvt} takes {}", ptx_cvt::instr::shape(&cvt).describe()),
        );
    }
    check_register("destination", dst_width)?;
    let mut ops = Vec::with_capacity(n_operands);
    for i in 0..n_operands {
        // Unaligned reads: a caller's packed buffer must not be undefined behaviour.
        let bits = operands.add(i).read_unaligned();
        let width = operand_widths.add(i).read_unaligned();
        check_register(&format!("operand {}:", i + 1), width)?;
        if bits & !width_mask(width) != 0 {
            return fail(PTX_CVT_EILLEGAL, format!("operand {}: {bits:#x} does not fit a {width}-bit register", i + 1));
        }
        ops.push(Operand { bits, width });
    }
    Ok(Request { cvt, operands: ops, dst_width, profile })
}

fn eval_request(r: &Request) -> Result<AcceptSet, Error> {
    evaluate_accept(&r.cvt, &r.operands, r.dst_width, r.profile)
        .map_err(|e| Error { code: PTX_CVT_EILLEGAL, message: e.to_string() })
}

/// The (value, mask) of a set, when it is one value or one value/mask pattern.
fn as_bits(set: &AcceptSet) -> Option<(u64, u64)> {
    match set.alts.as_slice() {
        [Alt::Bits { value, mask }] => {
            let mask = mask & width_mask(set.width);
            Some((value & mask, mask))
        }
        _ => None,
    }
}

/// Evaluate a `cvt`. See `ptx_cvt_eval` in `include/ptx_cvt.h`.
///
/// # Safety
/// Every pointer is NULL or valid as documented in the header: strings
/// NUL-terminated, `operands`/`operand_widths` hold `n_operands` elements,
/// `result_text` and `err` are writable for their lengths.
#[no_mangle]
pub unsafe extern "C" fn ptx_cvt_eval(
    instruction: *const c_char,
    operands: *const u64,
    operand_widths: *const u32,
    n_operands: usize,
    dst_width: u32,
    profile: *const c_char,
    result_bits: *mut u64,
    result_mask: *mut u64,
    result_text: *mut c_char,
    result_text_len: usize,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    if err.is_null() || err_len == 0 {
        // Nowhere to say why; still clear what outputs we can.
        if !result_bits.is_null() {
            result_bits.write_unaligned(0);
        }
        if !result_mask.is_null() {
            result_mask.write_unaligned(0);
        }
        write_c_str(result_text, result_text_len, "");
        return PTX_CVT_EARG;
    }
    guarded(err, err_len, || {
        let missing = [
            (result_bits.is_null(), "result_bits is NULL"),
            (result_mask.is_null(), "result_mask is NULL"),
            (result_text.is_null(), "result_text is NULL"),
            (result_text_len == 0, "result_text_len is 0"),
        ];
        if !result_bits.is_null() {
            result_bits.write_unaligned(0);
        }
        if !result_mask.is_null() {
            result_mask.write_unaligned(0);
        }
        write_c_str(result_text, result_text_len, "");
        if let Some((_, m)) = missing.iter().find(|(bad, _)| *bad) {
            return fail(PTX_CVT_EARG, *m);
        }
        let req = request(instruction, operands, operand_widths, n_operands, dst_width, profile)?;
        let set = eval_request(&req)?;
        let text = set.to_string();
        if text.len() + 1 > result_text_len {
            return fail(
                PTX_CVT_EARG,
                format!("result_text holds {result_text_len} bytes; the result `{text}` needs {} (PTX_CVT_TEXT_LEN = {PTX_CVT_TEXT_LEN} is always enough)", text.len() + 1),
            );
        }
        write_c_str(result_text, result_text_len, &text);
        match as_bits(&set) {
            Some((value, mask)) => {
                result_bits.write_unaligned(value);
                result_mask.write_unaligned(mask);
                Ok(PTX_CVT_OK)
            }
            None => Ok(PTX_CVT_NOT_BITS),
        }
    })
}

/// Whether `bits` is an acceptable result. See `ptx_cvt_accepts` in `include/ptx_cvt.h`.
///
/// # Safety
/// As for [`ptx_cvt_eval`].
#[no_mangle]
pub unsafe extern "C" fn ptx_cvt_accepts(
    instruction: *const c_char,
    operands: *const u64,
    operand_widths: *const u32,
    n_operands: usize,
    dst_width: u32,
    profile: *const c_char,
    bits: u64,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    if err.is_null() || err_len == 0 {
        return PTX_CVT_EARG;
    }
    guarded(err, err_len, || {
        let req = request(instruction, operands, operand_widths, n_operands, dst_width, profile)?;
        let set = eval_request(&req)?;
        Ok(if set.contains(bits) { PTX_CVT_ACCEPT } else { PTX_CVT_REJECT })
    })
}

/// Run `f` on the handle with panics caught and errors written to `err`
/// (the shared frame of the calls that take a handle).
///
/// # Safety
/// `handle` is NULL or from `ptx_cvt_prepare`; `err` valid for `err_len` bytes.
unsafe fn with_handle(
    handle: *const Prepared,
    err: *mut c_char,
    err_len: usize,
    f: impl FnOnce(&Prepared) -> Result<c_int, Error>,
) -> c_int {
    if err.is_null() || err_len == 0 {
        return PTX_CVT_EARG;
    }
    guarded(err, err_len, || match handle.as_ref() {
        Some(h) => f(h),
        None => fail(PTX_CVT_EARG, "handle is NULL"),
    })
}

/// Prepare a conversion for many evaluations. See `ptx_cvt_prepare` in `include/ptx_cvt.h`.
///
/// # Safety
/// Pointers NULL or valid as the header documents; `handle` receives a
/// pointer that only `ptx_cvt_release` may free.
#[no_mangle]
pub unsafe extern "C" fn ptx_cvt_prepare(
    instruction: *const c_char,
    operand_widths: *const u32,
    n_operands: usize,
    dst_width: u32,
    target: *const c_char,
    ptx_version: *const c_char,
    profile: *const c_char,
    handle: *mut *mut Prepared,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    if !handle.is_null() {
        handle.write_unaligned(std::ptr::null_mut());
    }
    if err.is_null() || err_len == 0 {
        return PTX_CVT_EARG;
    }
    guarded(err, err_len, || {
        if handle.is_null() {
            return fail(PTX_CVT_EARG, "handle is NULL");
        }
        let p = Prepared::new(instruction, operand_widths, n_operands, dst_width, target, ptx_version, profile)?;
        handle.write_unaligned(Box::into_raw(Box::new(p)));
        Ok(PTX_CVT_OK)
    })
}

/// Free a handle of `ptx_cvt_prepare` (NULL is ignored).
///
/// # Safety
/// `handle` is NULL or from `ptx_cvt_prepare`, not released before, and no
/// other thread uses it any more.
#[no_mangle]
pub unsafe extern "C" fn ptx_cvt_release(handle: *mut Prepared) {
    if !handle.is_null() {
        drop(Box::from_raw(handle));
    }
}

/// One evaluation through a handle. See `ptx_cvt_eval_prepared` in `include/ptx_cvt.h`.
///
/// # Safety
/// `handle` from `ptx_cvt_prepare`; `operands` holds its operand count.
#[no_mangle]
pub unsafe extern "C" fn ptx_cvt_eval_prepared(
    handle: *const Prepared,
    operands: *const u64,
    result_bits: *mut u64,
    result_mask: *mut u64,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    let ready = !handle.is_null() && !operands.is_null() && !result_bits.is_null() && !result_mask.is_null();
    if ready && !err.is_null() && err_len > 0 {
        // The hot path (one operand, one value), still with panics caught.
        let (h, x) = (&*handle, operands.read_unaligned());
        if let Ok(Some((bits, mask))) = catch_unwind(AssertUnwindSafe(|| h.quick(x))) {
            result_bits.write_unaligned(bits);
            result_mask.write_unaligned(mask);
            err.write(0);
            return PTX_CVT_OK;
        }
    }
    for p in [result_bits, result_mask] {
        if !p.is_null() {
            p.write_unaligned(0);
        }
    }
    if err.is_null() || err_len == 0 {
        return PTX_CVT_EARG;
    }
    guarded(err, err_len, || {
        let missing = [
            (handle.is_null(), "handle is NULL"),
            (operands.is_null(), "operands is NULL"),
            (result_bits.is_null(), "result_bits is NULL"),
            (result_mask.is_null(), "result_mask is NULL"),
        ];
        if let Some((_, m)) = missing.iter().find(|(bad, _)| *bad) {
            return fail(PTX_CVT_EARG, *m);
        }
        let (code, bits, mask) = (*handle).eval_one(operands)?;
        result_bits.write_unaligned(bits);
        result_mask.write_unaligned(mask);
        Ok(code)
    })
}

/// One value through a handle, for hot loops: no mask, no message. See
/// `ptx_cvt_eval1` in `include/ptx_cvt.h`.
///
/// # Safety
/// `handle` is NULL or from `ptx_cvt_prepare` (not yet released); `result`
/// is NULL or valid for one (unaligned) write.
#[no_mangle]
pub unsafe extern "C" fn ptx_cvt_eval1(handle: *const Prepared, operand: u64, result: *mut u64) -> c_int {
    if let (Some(h), false) = (handle.as_ref(), result.is_null()) {
        if let Some(lane) = h.hot_lane(operand) {
            // One call of the form's own function (a tail call): it writes
            // *result and catches its panics (PANICKED is PTX_CVT_EINTERNAL).
            return lane.write(operand, result);
        }
    }
    eval1_slow(handle, operand, result)
}

/// `PlainLane::write`'s code for a caught panic is the header's.
const _: () = assert!(ptx_cvt::fast::PlainLane::PANICKED == PTX_CVT_EINTERNAL);

/// [`ptx_cvt_eval1`] off its hot path: NULL pointers, stray bits, forms
/// without a plain kernel lane, sets, the `isa` profile.
///
/// # Safety
/// As for [`ptx_cvt_eval1`].
#[inline(never)]
unsafe extern "C" fn eval1_slow(handle: *const Prepared, operand: u64, result: *mut u64) -> c_int {
    let (code, bits) = match handle.as_ref() {
        // Panics caught as everywhere (none crosses into C); the happy path
        // pays nothing for it.
        Some(h) => catch_unwind(AssertUnwindSafe(|| h.eval1(operand))).unwrap_or((PTX_CVT_EINTERNAL, 0)),
        None => (PTX_CVT_EARG, 0),
    };
    if result.is_null() {
        return PTX_CVT_EARG;
    }
    result.write_unaligned(bits);
    code
}

/// Membership through a handle. See `ptx_cvt_accepts_prepared` in `include/ptx_cvt.h`.
///
/// # Safety
/// As for [`ptx_cvt_eval_prepared`].
#[no_mangle]
pub unsafe extern "C" fn ptx_cvt_accepts_prepared(
    handle: *const Prepared,
    operands: *const u64,
    bits: u64,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    with_handle(handle, err, err_len, |h| {
        if operands.is_null() {
            return fail(PTX_CVT_EARG, "operands is NULL");
        }
        Ok(if h.accepts(operands, bits)? { PTX_CVT_ACCEPT } else { PTX_CVT_REJECT })
    })
}

/// Many evaluations through a handle. See `ptx_cvt_eval_batch` in `include/ptx_cvt.h`.
///
/// # Safety
/// `handle` from `ptx_cvt_prepare`; `operands` holds `n` rows of its
/// operand count, `results` `n` values.
#[no_mangle]
pub unsafe extern "C" fn ptx_cvt_eval_batch(
    handle: *const Prepared,
    n: usize,
    operands: *const u64,
    results: *mut u64,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    with_handle(handle, err, err_len, |h| h.eval_batch(n, operands, results).map(|()| PTX_CVT_OK))
}

/// Many evaluations on arrays of the registers' own widths. See
/// `ptx_cvt_eval_slice` in `include/ptx_cvt.h`.
///
/// # Safety
/// `handle` from `ptx_cvt_prepare`; `operands` holds `n` elements of the
/// source register's width and `results` room for `n` of the destination's.
#[no_mangle]
pub unsafe extern "C" fn ptx_cvt_eval_slice(
    handle: *const Prepared,
    n: usize,
    operands: *const std::ffi::c_void,
    results: *mut std::ffi::c_void,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    with_handle(handle, err, err_len, |h| h.eval_slice(n, operands.cast(), results.cast()).map(|()| PTX_CVT_OK))
}

/// The library version, e.g. `0.1.0`: a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn ptx_cvt_version() -> *const c_char {
    static VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf_text(b: &[c_char]) -> String {
        let end = b.iter().position(|c| *c == 0).expect("NUL-terminated");
        String::from_utf8(b[..end].iter().map(|c| *c as u8).collect()).expect("UTF-8")
    }

    #[test]
    fn panics_become_internal_errors() {
        let mut err = [1 as c_char; 64];
        let code = unsafe { guarded(err.as_mut_ptr(), err.len(), || panic!("boom")) };
        assert_eq!(code, PTX_CVT_EINTERNAL);
        let msg = buf_text(&err);
        assert!(msg.starts_with("internal error"), "{msg}");
    }

    #[test]
    fn truncation_keeps_utf8() {
        let mut b = [1 as c_char; 4];
        unsafe { write_c_str(b.as_mut_ptr(), b.len(), "a§b") };
        // `§` is two bytes: 3 bytes of room hold `a§`.
        assert_eq!(buf_text(&b), "a§");
        let mut b = [1 as c_char; 3];
        unsafe { write_c_str(b.as_mut_ptr(), b.len(), "a§b") };
        assert_eq!(buf_text(&b), "a");
        let mut b = [1 as c_char; 1];
        unsafe { write_c_str(b.as_mut_ptr(), b.len(), "abc") };
        assert_eq!(b[0], 0);
    }
}
