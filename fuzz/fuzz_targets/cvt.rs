//! `cargo fuzz run cvt`: an arbitrary cvt case (instruction, registers,
//! operands, optional target), the implementation under test against the
//! exact engine (`ptx_cvt::evaluate`, sm90 profile). The implementation is
//! the fast engine unless PTX_CVT_FUZZ_LIB names a shared library (see
//! fuzz/README.md). A mismatch panics with the case line, so libFuzzer saves
//! the input under fuzz/artifacts/cvt/.
#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use ptx_cvt_fuzz::{report, Raw, Subject};

thread_local! {
    static SUBJECT: RefCell<Subject> = RefCell::new(Subject::from_env());
}

fuzz_target!(|raw: Raw| {
    let case = raw.decode();
    SUBJECT.with(|s| {
        if let Err(msg) = s.borrow_mut().check(&case) {
            report(&case, &msg);
        }
    });
});
