//! `cargo fuzz run parse`: arbitrary text into the instruction parser
//! (`instr::parse`), the case-line parser (`parse_case`), the result parser
//! (`AcceptSet::parse`, under every destination NaN format) and the target
//! and PTX version parsers. None may panic, and each parse∘print round-trips:
//! what parses, printed canonically, parses back equal.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    ptx_cvt_fuzz::parse::check_text(&text);
    if text.contains('\n') {
        for line in text.lines() {
            ptx_cvt_fuzz::parse::check_text(line);
        }
    }
});
