//! The `parse` target's properties (see fuzz_targets/parse.rs).

use std::sync::OnceLock;

use ptx_cvt::format::Format;
use ptx_cvt::{format_case, instr, parse_case, AcceptSet, Case, PtxVersion, Target, Type};

/// `None` and every destination NaN format a case line can imply.
fn nan_formats() -> &'static [Option<Format>] {
    static F: OnceLock<Vec<Option<Format>>> = OnceLock::new();
    F.get_or_init(|| {
        let mut v = vec![None];
        for t in Type::all().filter(|t| t.is_float()) {
            if !v.contains(&Some(t.format())) {
                v.push(Some(t.format()));
            }
        }
        v
    })
}

/// Parse `text` every way; panic on a round-trip failure (parsers must not panic themselves).
pub fn check_text(text: &str) {
    // Instructions: canonical print re-parses to the same instruction.
    if let Ok(c) = instr::parse(text) {
        let printed = c.to_string();
        match instr::parse(&printed) {
            Ok(c2) if c2 == c => {}
            other => panic!("instr::parse({text:?}) = {c:?}, printed `{printed}`, re-parsed {other:?}"),
        }
    }
    // Case lines: printed with format_case (or without a result), re-parse equal, comment dropped.
    if let Ok(Some(case)) = parse_case(text) {
        let printed = match &case.result {
            Some(r) => format_case(&case.instr, &case.operands, r),
            None => {
                let mut s = case.instr.to_string();
                for o in &case.operands {
                    s.push(' ');
                    s.push_str(&ptx_cvt::eval::fmt_hex(o.bits, o.width));
                }
                s
            }
        };
        let want = Case { comment: None, ..case.clone() };
        match parse_case(&printed) {
            Ok(Some(c2)) if c2 == want => {}
            other => panic!("parse_case({text:?}) = {case:?}\n  printed `{printed}`\n  re-parsed {other:?}"),
        }
    }
    // Results, under each NaN format (which matters only for `nan`).
    let formats = if text.contains("nan") { nan_formats() } else { &nan_formats()[..1] };
    for &f in formats {
        if let Ok(set) = AcceptSet::parse(text, f) {
            let printed = set.to_string();
            match AcceptSet::parse(&printed, f) {
                Ok(s2) if s2 == set => {}
                other => {
                    panic!("AcceptSet::parse({text:?}, {f:?}) = {set:?}\n  printed `{printed}`\n  re-parsed {other:?}")
                }
            }
        }
    }
    // Targets and PTX ISA versions.
    if let Ok(t) = text.parse::<Target>() {
        let printed = t.to_string();
        assert_eq!(printed.parse::<Target>().ok(), Some(t), "Target {text:?} printed `{printed}`");
        // Whatever the target, its minimum version query must not panic.
        let _ = t.min_version();
    }
    if let Ok(v) = text.parse::<PtxVersion>() {
        let printed = v.to_string();
        assert_eq!(printed.parse::<PtxVersion>().ok(), Some(v), "PtxVersion {text:?} printed `{printed}`");
    }
}
