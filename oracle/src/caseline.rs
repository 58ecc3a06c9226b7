//! Case-line format v1 (specified in vectors/README.md):
//! `<instruction> <operand hex>... [=> <result>] [# comment]`.
//!
//! Operand hex has as many digits as its register has nibbles, so the text
//! itself says the register widths. A result of only `?` digits asks `eval`
//! for that destination width.

use std::fmt;

use crate::accept::{clip_to, parse_hex, AcceptSet, Alt};
use crate::instr::{parse, Cvt};
use crate::operand::{fmt_hex, Operand};

/// One parsed case line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub instr: Cvt,
    pub operands: Vec<Operand>,
    /// The result after `=>`, if any.
    pub result: Option<AcceptSet>,
    /// Text after `#`, without the `#`.
    pub comment: Option<String>,
}

/// A problem with a line, with the column-free message users see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseError(pub String);

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for CaseError {}

/// Longest line accepted; anything longer is not a case line.
pub const MAX_LINE: usize = 4096;

impl Case {
    /// Destination register width: from the result if given, else the type's.
    pub fn dst_width(&self) -> u32 {
        self.result.as_ref().map_or(self.instr.dtype.bits(), |r| r.width)
    }
    /// Whether the result is a width request only (all `?`).
    pub fn result_is_placeholder(&self) -> bool {
        self.result.as_ref().is_some_and(|r| r.alts.iter().all(|a| matches!(a, Alt::Bits { mask: 0, .. })))
    }
}

/// Parse one line. `Ok(None)` for blank and comment-only lines. A leading
/// byte-order mark (U+FEFF, as some editors write at the start of a file)
/// is skipped.
pub fn parse_case(line: &str) -> Result<Option<Case>, CaseError> {
    let err = |m: String| Err(CaseError(m));
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    if line.len() > MAX_LINE {
        return err(format!("line is {} bytes long; case lines are at most {MAX_LINE}", line.len()));
    }
    let line = line.strip_suffix('\r').unwrap_or(line);
    let (body, comment) = match line.split_once('#') {
        Some((b, c)) => (b, Some(c.trim().to_string())),
        None => (line, None),
    };
    let mut toks = body.split_whitespace();
    let Some(instr_text) = toks.next() else { return Ok(None) };
    let instr = parse(instr_text).map_err(|e| CaseError(e.message))?;
    let mut operands = Vec::new();
    let mut result = None;
    while let Some(t) = toks.next() {
        if t == "=>" {
            let Some(r) = toks.next() else { break };
            let nan_format = instr.dtype.is_float().then(|| instr.dtype.format());
            result = Some(AcceptSet::parse(r, nan_format).map_err(|e| CaseError(format!("result: {e}")))?);
            if let Some(extra) = toks.next() {
                return err(format!("unexpected `{}` after the result (comments start with #)", clip_to(extra, 40)));
            }
            break;
        }
        let (bits, width) = parse_hex(t).map_err(|e| CaseError(format!("operand {}: {e}", operands.len() + 1)))?;
        operands.push(Operand { bits, width });
    }
    if operands.is_empty() {
        return err(format!("`{instr}` has no operands: expected hex after the instruction"));
    }
    Ok(Some(Case { instr, operands, result, comment }))
}

/// Print a case line with a result.
pub fn format_case(instr: &Cvt, operands: &[Operand], result: &AcceptSet) -> String {
    let mut s = instr.to_string();
    for o in operands {
        s.push(' ');
        s.push_str(&fmt_hex(o.bits, o.width));
    }
    s.push_str(" => ");
    s.push_str(&result.to_string());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines() {
        let c = parse_case("cvt.s16.s8 139231c2 => ffffffc2  # docs/semantics.md §4\r").unwrap().unwrap();
        assert_eq!(c.operands, vec![Operand { bits: 0x1392_31c2, width: 32 }]);
        assert_eq!(c.dst_width(), 32);
        assert_eq!(c.comment.as_deref(), Some("docs/semantics.md §4"));
        assert!(parse_case("   # only a comment").unwrap().is_none());
        assert!(parse_case("").unwrap().is_none());
        let p = parse_case("cvt.s16.s8 c2 => ????????").unwrap().unwrap();
        assert!(p.result_is_placeholder());
        // "cvt.f16.f32 =>": found by the `parse` fuzz target (fuzz/regressions.md #1).
        for bad in [
            "cvt.rn.f16.f32",
            "cvt.rn.f16.f32 3f80000",
            "cvt.rn.f16.f32 3f80000g",
            "cvt.rn.f16.f32 3f800000 => 3c00 x",
            "cvt.f16.f32 =>",
        ] {
            assert!(parse_case(bad).is_err(), "{bad}");
        }
    }
}
