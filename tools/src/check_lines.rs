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
use ptx_cvt::eval::Evaluator;
use ptx_cvt::fast::{FastResult, Plan};
use ptx_cvt::{parse_case, AcceptSet, Case, Cvt, Operand, Profile, PtxVersion};
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

/// One thread's memory of spellings and prepared forms.
#[derive(Default)]
pub struct Cache {
    spellings: HashMap<Vec<u8>, Option<Spelling>>,
    last_spelling: Option<(Vec<u8>, Option<Spelling>)>,
    prepared: HashMap<Key, Prepared>,
    last_prepared: Option<(Key, Prepared)>,
}

/// An instruction token that parses: the instruction, and whether --filter chooses it.
#[derive(Clone, Copy)]
struct Spelling {
    cvt: Cvt,
    chosen: bool,
}

/// An instruction with its register widths: everything legality depends on.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    cvt: Cvt,
    srcs: [u8; MAX_FAST_OPERANDS],
    count: u8,
    dst: u8,
}

const MAX_FAST_OPERANDS: usize = 6;

/// What the cases of a form with these widths come to.
// Inline, not boxed: read on every line of the fast path.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Prepared {
    /// All legal: evaluate them.
    Ready(Engines),
    /// Legal, but not on --target: skip them.
    Skip,
    /// Errors: the slow path reports them.
    Slow,
}

/// A form whose cases with these widths are all legal, prepared to evaluate.
#[derive(Clone)]
struct Engines {
    fast: Option<Plan>,
    exact: Evaluator,
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
        let mut ops = [Operand { bits: 0, width: 0 }; MAX_FAST_OPERANDS];
        let mut count = 0;
        let result = loop {
            let t = toks.next()?;
            if t == b"=>" {
                break parse_hex(toks.next()?)?;
            }
            if count == MAX_FAST_OPERANDS {
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
        let key = Key {
            cvt: sp.cvt,
            srcs: std::array::from_fn(|i| ops.get(i).map_or(0, |o| o.width as u8)),
            count: count as u8,
            dst: dst as u8,
        };
        let engines = match self.prepared(key, ops, dst, cache) {
            Some(Prepared::Ready(e)) => e,
            Some(Prepared::Skip) => return Some(Verdict::Skipped(sp.cvt)),
            _ => return None,
        };
        let fast_pass = engines.fast.as_ref().is_some_and(|p| fast_contains(p.eval(ops), dst, bits));
        let pass =
            fast_pass || engines.exact.accept(ops).is_ok_and(|set| AcceptSet::exact(dst, bits).is_subset_of(&set));
        pass.then_some(Verdict::Pass(sp.cvt))
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

    fn prepared<'c>(&self, key: Key, ops: &[Operand], dst: u32, cache: &'c mut Cache) -> Option<&'c Prepared> {
        if cache.last_prepared.as_ref().is_none_or(|(k, _)| *k != key) {
            let e = match cache.prepared.get(&key) {
                Some(e) => e.clone(),
                None => {
                    let e = self.prepare(key.cvt, ops, dst);
                    cache.prepared.insert(key, e.clone());
                    e
                }
            };
            cache.last_prepared = Some((key, e));
        }
        cache.last_prepared.as_ref().map(|(_, e)| e)
    }

    /// Engines for a form whose every case at these widths the slow path
    /// would evaluate, or its skip or errors (legality depends on widths,
    /// never on values).
    fn prepare(&self, cvt: Cvt, ops: &[Operand], dst: u32) -> Prepared {
        let probe = Case {
            instr: cvt,
            operands: ops.iter().map(|o| Operand { bits: 0, width: o.width }).collect(),
            result: Some(AcceptSet::exact(dst, 0)),
            comment: None,
        };
        if accept_case(&probe, self.opts).is_err() {
            return if legal_elsewhere(&probe, self.opts) { Prepared::Skip } else { Prepared::Slow };
        }
        let profile = self.opts.profile;
        let Ok(exact) = Evaluator::new(&cvt, ops[0].width, dst, profile) else { return Prepared::Slow };
        let fast = (profile == Profile::Sm90 && self.path == Path::Fast)
            .then(|| Plan::new(&cvt, ops[0].width, dst).ok())
            .flatten();
        Prepared::Ready(Engines { fast, exact })
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
fn fast_contains(r: FastResult, width: u32, bits: u64) -> bool {
    match r {
        FastResult::Bits(v) => v & ptx_cvt::accept::width_mask(width) == bits,
        other => other.to_accept(width).contains(bits),
    }
}

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
    let Some(t) = opts.target else { return false };
    let v = opts.ptx_version.unwrap_or(PtxVersion::LATEST);
    if t.min_version().is_some_and(|min| v < min) {
        return false;
    }
    accept_case(case, &EvalOpts { target: None, ..opts.clone() }).is_ok()
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
