//! `ptx-cvt check` of recorded results at speed: the verdict of every line
//! of a block of lines, computed on any thread, for the caller to apply in
//! file order.
//!
//! A line is first tried on a fast path (plain ASCII `instr hex... => hex`,
//! the instruction and its register widths prepared once and cached); it may
//! only conclude that the line is blank, filtered out or passes. A pass is
//! the fast engine's answer (sm90 profile) or, where it disagrees or does not
//! cover the form, the exact engine's. Everything else (errors, mismatches,
//! unusual syntax) goes through the same code as a line-by-line check, so
//! every error and every reported mismatch is the exact engine's, as before.
//! With --target, a line whose form is legal but not on that target is
//! skipped; the verdict is cached with the form (it never depends on values).

use std::collections::HashMap;

use ptx_cvt::caseline::MAX_LINE;
use ptx_cvt::{parse_case, Case, Cvt, Operand};
use ptx_cvt_harness::judge::{Judge, Legal, MAX_OPERANDS};
use ptx_cvt_harness::lines::{line_text, LineError};
use ptx_cvt_harness::{Mismatch, Origin};

use crate::common::{accept_case, eval_case, VariantFilter};
use crate::EvalOpts;

/// What a block of lines comes to, in file order (blank lines leave nothing).
pub enum Event {
    /// `n` passed cases of one variant in a row.
    Passes(Cvt, u64),
    /// Cases the --filter leaves out.
    Filtered,
    /// `n` cases of one variant in a row that are not legal on --target.
    Skipped(Cvt, u64),
    /// Line `.0` could not be checked.
    Error(usize, String),
    /// Line `.0` has a wrong result.
    Mismatch(usize, Box<Mismatch>),
}

const NO_RESULT: &str =
    "no result to check (expected `=> <hex>` after the operands; or name an implementation: --target-lib, --target-cmd, --target-ptx, ...)";

/// What the lines are checked against; shared by every thread.
pub struct Checker<'a> {
    pub opts: &'a EvalOpts,
    pub filter: &'a VariantFilter,
    pub name: &'a str,
    pub path: Path,
}

/// How lines that pass are judged (a switch for tests).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// The fast path with the fast engine, the exact one where they differ.
    Fast,
    /// The fast path with the exact engine alone.
    Exact,
    /// Every line through the line-by-line code.
    Line,
}

/// One thread's memory of spellings and forms.
#[derive(Default)]
pub struct Cache {
    spellings: HashMap<Vec<u8>, Option<Spelling>>,
    last_spelling: Option<(Vec<u8>, Option<Spelling>)>,
    /// Legality and engines per form (made on the thread's first line).
    judge: Option<Judge>,
}

/// An instruction token that parses: the instruction, and whether --filter chooses it.
#[derive(Clone, Copy)]
struct Spelling {
    cvt: Cvt,
    chosen: bool,
}

enum Verdict {
    Blank,
    Filtered,
    Pass(Cvt),
    Skipped(Cvt),
    Error(String),
    Mismatch(Box<Mismatch>),
}

impl Checker<'_> {
    /// The events of whole lines `text`, the first numbered `first`.
    pub fn check(&self, text: &[u8], first: usize, cache: &mut Cache) -> Vec<Event> {
        let mut out: Vec<Event> = Vec::new();
        let (body, last_ends) = match text.strip_suffix(b"\n") {
            Some(b) => (b, true),
            None => (text, false),
        };
        if text.is_empty() {
            return out;
        }
        let mut rest = body;
        let mut n = first;
        loop {
            let (raw, newline, more) = match find_newline(rest) {
                Some(i) => (&rest[..i], true, true),
                None => (rest, last_ends, false),
            };
            if more {
                rest = &rest[raw.len() + 1..];
            }
            let fast = if self.path == Path::Line { None } else { self.fast(raw, cache) };
            let verdict = match fast {
                Some(v) => v,
                None => self.slow(line_text(raw, newline), n),
            };
            match verdict {
                Verdict::Blank => {}
                Verdict::Pass(c) => match out.last_mut() {
                    Some(Event::Passes(last, k)) if *last == c => *k += 1,
                    _ => out.push(Event::Passes(c, 1)),
                },
                Verdict::Filtered => {
                    if !matches!(out.last(), Some(Event::Filtered)) {
                        out.push(Event::Filtered)
                    }
                }
                Verdict::Skipped(c) => match out.last_mut() {
                    Some(Event::Skipped(last, k)) if *last == c => *k += 1,
                    _ => out.push(Event::Skipped(c, 1)),
                },
                Verdict::Error(e) => out.push(Event::Error(n, e)),
                Verdict::Mismatch(m) => out.push(Event::Mismatch(n, m)),
            }
            n += 1;
            if !more {
                return out;
            }
        }
    }

    /// The line-by-line check of one line (every error, every mismatch).
    fn slow(&self, line: Result<&str, LineError>, n: usize) -> Verdict {
        let case = match line.map_err(|e| e.to_string()).and_then(|l| parse_case(l).map_err(|e| e.to_string())) {
            Ok(None) => return Verdict::Blank,
            Ok(Some(c)) => c,
            Err(e) => return Verdict::Error(e),
        };
        if !self.filter.matches(&case.instr) {
            return Verdict::Filtered;
        }
        if case.result.is_none() || case.result_is_placeholder() {
            return Verdict::Error(NO_RESULT.into());
        }
        let accept = match accept_case(&case, self.opts) {
            Ok(s) => s,
            Err(_) if legal_elsewhere(&case, self.opts) => return Verdict::Skipped(case.instr),
            Err(e) => return Verdict::Error(e),
        };
        if case.result.as_ref().expect("checked above").is_subset_of(&accept) {
            return Verdict::Pass(case.instr);
        }
        match build_mismatch(self.opts, self.name, n, case) {
            Ok(m) => Verdict::Mismatch(Box::new(m)),
            Err(e) => Verdict::Error(e),
        }
    }

    /// The common line, without allocating: `None` sends it to [`Self::slow`].
    fn fast(&self, raw: &[u8], cache: &mut Cache) -> Option<Verdict> {
        // Non-ASCII (a BOM, bad UTF-8) and long lines take the slow path.
        if raw.len() > MAX_LINE || !raw.is_ascii() {
            return None;
        }
        // (A final `\r` is whitespace to the split.)
        let mut toks = Tokens(raw);
        let Some(instr) = toks.next() else { return Some(Verdict::Blank) };
        let mut ops = [Operand { bits: 0, width: 0 }; MAX_OPERANDS];
        let mut count = 0;
        let result = loop {
            let t = toks.next()?;
            if t == b"=>" {
                break parse_hex(toks.next()?)?;
            }
            if count == MAX_OPERANDS {
                return None;
            }
            let (bits, width) = parse_hex(t)?;
            ops[count] = Operand { bits, width };
            count += 1;
        };
        if count == 0 || toks.next().is_some() {
            return None;
        }
        let sp = self.spelling(instr, cache)?;
        if !sp.chosen {
            return Some(Verdict::Filtered);
        }
        let ops = &ops[..count];
        let (bits, dst) = result;
        let judge = cache.judge.get_or_insert_with(|| match self.path {
            Path::Exact => Judge::exact_only(self.opts.scope()),
            _ => Judge::new(self.opts.scope()),
        });
        match judge.legal(&sp.cvt, ops, dst) {
            Legal::Yes => {}
            Legal::Elsewhere => return Some(Verdict::Skipped(sp.cvt)),
            // The slow path reports it.
            Legal::No(_) => return None,
        }
        judge.accepts(&sp.cvt, ops, dst, bits).then_some(Verdict::Pass(sp.cvt))
    }

    fn spelling(&self, token: &[u8], cache: &mut Cache) -> Option<Spelling> {
        if let Some((t, s)) = &cache.last_spelling {
            if t == token {
                return *s;
            }
        }
        let s = match cache.spellings.get(token) {
            Some(s) => *s,
            None => {
                let s = std::str::from_utf8(token).ok().and_then(|t| ptx_cvt::instr::parse(t).ok()).map(|cvt| {
                    let chosen = self.filter.matches(&cvt);
                    Spelling { cvt, chosen }
                });
                cache.spellings.insert(token.to_vec(), s);
                s
            }
        };
        cache.last_spelling = Some((token.to_vec(), s));
        s
    }
}

/// The first newline in `h`, eight bytes a step.
fn find_newline(h: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut chunks = h.chunks_exact(8);
    for (k, c) in chunks.by_ref().enumerate() {
        let x = u64::from_le_bytes(c.try_into().expect("8 bytes")) ^ (ONES * b'\n' as u64);
        // The lowest byte that is zero sets the lowest flag (borrows only go up).
        let zero = x.wrapping_sub(ONES) & !x & HIGH;
        if zero != 0 {
            return Some(k * 8 + zero.trailing_zeros() as usize / 8);
        }
    }
    let tail = chunks.remainder();
    tail.iter().position(|&b| b == b'\n').map(|i| h.len() - tail.len() + i)
}

/// The whitespace-separated tokens of a line before its first `#`, as
/// parse_case splits them (char::is_whitespace, on ASCII).
struct Tokens<'a>(&'a [u8]);

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let space = |b: u8| b == b' ' || (9..=13).contains(&b);
        let start = self.0.iter().position(|&b| !space(b))?;
        let r = &self.0[start..];
        if r[0] == b'#' {
            self.0 = &[];
            return None;
        }
        let end = r.iter().position(|&b| space(b) || b == b'#').unwrap_or(r.len());
        let (t, rest) = r.split_at(end);
        self.0 = rest;
        Some(t)
    }
}

/// Whether the fast engine's set holds `bits` (as `to_accept(width).contains`).
/// Plain hex of a register width, as [`ptx_cvt::accept::parse_hex`] takes it.
fn parse_hex(t: &[u8]) -> Option<(u64, u32)> {
    let width = ptx_cvt::accept::width_of_digits(t.len())?;
    let mut v = 0u64;
    for &b in t {
        let d = HEX[b as usize];
        if d > 15 {
            return None;
        }
        v = v << 4 | d as u64;
    }
    Some((v, width))
}

/// Hex digit values (0-9, a-f, A-F: `is_ascii_hexdigit`), 255 elsewhere.
static HEX: [u8; 256] = {
    let mut t = [255u8; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => 255,
        };
        i += 1;
    }
    t
};

/// Whether a case that --target/--ptx-version refuses would be checked
/// without them: then it is skipped, not an error. (A target the version
/// cannot reach is the command line's error, reported on every line.)
pub fn legal_elsewhere(case: &Case, opts: &EvalOpts) -> bool {
    opts.scope().legal(&case.instr, &case.operands, case.dst_width()) == Legal::Elsewhere
}

/// The full report of a wrong result, with the exact engine's explanation.
pub fn build_mismatch(opts: &EvalOpts, name: &str, n: usize, case: Case) -> Result<Mismatch, String> {
    let outcome = eval_case(&case, opts)?;
    Ok(Mismatch::new(Origin { file: Some(name.to_string()), line: Some(n) }, case, outcome, opts.profile))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlines_found_at_every_offset() {
        for len in 0..40 {
            for at in 0..len {
                let mut h = vec![b'x'; len];
                h[at] = b'\n';
                if at + 3 < len {
                    h[at + 3] = b'\n';
                }
                // Bytes just around '\n' (0x0a) must not be taken for it.
                h.iter_mut().take(at).for_each(|b| *b = [0x0b, 0x09, 0x8a, 0x0a ^ 0x80][len % 4]);
                assert_eq!(find_newline(&h), Some(at), "len {len} at {at}");
            }
            assert_eq!(find_newline(&vec![0x0b; len]), None);
        }
    }

    #[test]
    fn tokens_split_as_parse_case_splits() {
        for line in [
            "cvt.rn.f16.f32 3f800000 => 3c00  # c",
            "cvt.rn.f16.f32\t3f800000\x0b=>\x0c3c00#c d",
            "  # only a comment",
            "",
            "a#b c",
            "a #b",
            "x\r",
            "\x1f a \x1c",
        ] {
            let want: Vec<&str> = line.split('#').next().unwrap().split_whitespace().collect();
            let got: Vec<&[u8]> = Tokens(line.as_bytes()).collect();
            assert_eq!(got, want.iter().map(|t| t.as_bytes()).collect::<Vec<_>>(), "{line:?}");
        }
    }

    #[test]
    fn hex_as_the_oracle_reads_it() {
        for t in ["3c00", "3C0f", "00", "ffffffffffffffff", "3c0", "3c0g", "0x3c", "+3c0", "", "3c00000000"] {
            let want = ptx_cvt::accept::parse_hex(t).ok();
            assert_eq!(parse_hex(t.as_bytes()), want, "{t}");
        }
    }
}
