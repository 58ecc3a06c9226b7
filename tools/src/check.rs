use std::collections::HashMap;
use std::io::{BufRead, BufReader};

use clap::Args;
use ptx_cvt::accept::width_mask;
use ptx_cvt::{parse_case, Case, Outcome, Rule, Target};
use serde_json::{json, Value};

use crate::common::{accept_case, describe_bits, describe_set, eval_case};
use crate::reproducer::{case_line, default_target, ptx_snippet, DEFAULT_VERSION};
use crate::EvalOpts;

#[derive(Args)]
pub struct CheckArgs {
    /// Case files to check (`-` for stdin).
    #[arg(required = true)]
    files: Vec<String>,
    /// Print only the summary line.
    #[arg(long, short)]
    quiet: bool,
    /// Stop after N mismatches; the summary still follows and says where it stopped.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_failures: Option<u64>,
    /// Show a ready-to-assemble PTX module for the first N mismatches (0: none).
    /// It uses --target (default sm_90, or the first newer target that has the
    /// form) and --ptx-version (default 9.5).
    #[arg(long, value_name = "N", default_value_t = 3)]
    reproducers: u64,
    #[command(flatten)]
    opts: EvalOpts,
}

/// Longest line read into memory; longer lines are reported and skipped.
const LINE_CAP: usize = 1 << 20;

/// Lines of a reader, as strings, with errors for non-UTF-8 and huge lines
/// (which are skipped without holding them in memory).
pub fn lines(r: impl BufRead) -> impl Iterator<Item = Result<String, String>> {
    let mut r = r;
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let mut buf = Vec::new();
        let mut total = 0usize;
        let mut newline = false;
        loop {
            let chunk = match r.fill_buf() {
                Ok(c) => c,
                Err(e) => {
                    failed = true;
                    return Some(Err(format!("read error: {e}")));
                }
            };
            if chunk.is_empty() {
                if total == 0 {
                    return None;
                }
                break;
            }
            let (take, found) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if buf.len() < LINE_CAP {
                buf.extend_from_slice(&chunk[..take.min(LINE_CAP - buf.len() + 1)]);
            }
            total += take;
            r.consume(take);
            if found {
                newline = true;
                break;
            }
        }
        if total > LINE_CAP {
            let len = total - newline as usize;
            return Some(Err(format!(
                "line is {len} bytes long; case lines are at most {}",
                ptx_cvt::caseline::MAX_LINE
            )));
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        Some(String::from_utf8(buf).map_err(|_| "line is not valid UTF-8".to_string()))
    })
}

/// The coverage class of a case from its comment, as the generator writes it:
/// the first whitespace-separated token with exactly two `/`
/// (`<input>/<result>/<event>`, e.g. `normal/normal/tie-even`).
pub fn coverage_class(comment: Option<&str>) -> Option<&str> {
    comment?.split_whitespace().find(|t| t.matches('/').count() == 2)
}

/// The rule to blame for a mismatch: the outcome's deciding rule, except
/// that for packed results (where that is `pack`) it is the last rule that
/// decided the first wrong lane, or failing that the last value-changing
/// rule of any lane.
pub fn mismatch_rule(c: &Case, o: &Outcome) -> Rule {
    let rule = o.deciding_rule();
    if rule != Rule::Pack {
        return rule;
    }
    let plain = |r: Rule| !matches!(r, Rule::Pack | Rule::DestExtend | Rule::Decode | Rule::SourceChop);
    let (n, lb) = (c.instr.dtype.lanes(), c.instr.dtype.lane_bits());
    let got = c.result.as_ref().and_then(|r| r.single());
    let wrong_lane = match (o.accept.single(), got) {
        (Some(e), Some(g)) if o.inputs.len() == n as usize => {
            (0..n).find(|i| ((e ^ g) >> (lb * (n - 1 - i))) & width_mask(lb) != 0).map(|i| o.inputs[i as usize].0)
        }
        _ => None,
    };
    let in_lane = |s: &&ptx_cvt::eval::Step| wrong_lane.is_none_or(|l| s.detail.starts_with(&format!("[{l}] ")));
    o.trace
        .iter()
        .rev()
        .filter(in_lane)
        .map(|s| s.rule)
        .find(|r| plain(*r))
        .or_else(|| o.trace.iter().rev().map(|s| s.rule).find(|r| plain(*r)))
        .unwrap_or(rule)
}

/// Group key for cases without a coverage class.
const NO_CLASS: &str = "(no class)";
/// Distinct keys kept per grouping; later new keys are counted together
/// under [`OTHER`], so memory stays bounded on any input.
const MAX_GROUPS: usize = 1000;
const OTHER: &str = "(other)";
/// Groups shown per grouping in the text summary (JSON has them all).
const SHOWN_GROUPS: usize = 20;

/// Where a mismatch was, with its one-line reproducer.
#[derive(Clone)]
struct First {
    file: String,
    line: usize,
    case: String,
}

struct Group {
    count: u64,
    /// Order of first appearance, to break count ties.
    seq: usize,
    first: First,
}

/// Mismatch counts by one key, bounded in size.
#[derive(Default)]
struct Groups {
    map: HashMap<String, Group>,
}

impl Groups {
    fn add(&mut self, key: &str, first: impl FnOnce() -> First) {
        let key = if self.map.contains_key(key) || self.map.len() < MAX_GROUPS { key } else { OTHER };
        let seq = self.map.len();
        self.map.entry(key.to_string()).or_insert_with(|| Group { count: 0, seq, first: first() }).count += 1;
    }
    /// Most mismatches first; ties in order of first appearance.
    fn sorted(&self) -> Vec<(&str, &Group)> {
        let mut v: Vec<(&str, &Group)> = self.map.iter().map(|(k, g)| (k.as_str(), g)).collect();
        v.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.1.seq.cmp(&b.1.seq)));
        v
    }
    fn json(&self) -> Value {
        Value::Array(
            self.sorted()
                .into_iter()
                .map(|(k, g)| {
                    json!({"key": k, "count": g.count,
                           "first": {"file": g.first.file, "line": g.first.line, "case": g.first.case}})
                })
                .collect(),
        )
    }
}

/// Where `--max-failures` stopped the run.
struct Stop {
    file: String,
    line: usize,
    max: u64,
}

#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    errors: u64,
    unreadable_files: u64,
    by_class: Groups,
    by_rule: Groups,
    by_instruction: Groups,
    /// Where the `--max-failures`-th mismatch was.
    limit_at: Option<Stop>,
    /// Whether anything was left unchecked after it.
    stopped: bool,
}

pub fn run(a: CheckArgs) -> u8 {
    let mut t = Tally::default();
    for f in &a.files {
        if t.limit_at.is_some() {
            // The limit was hit at the end of a file: the files left are the rest.
            t.stopped = true;
            break;
        }
        let reader = match crate::common::open_input(f) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                t.unreadable_files += 1;
                continue;
            }
        };
        let name = if f == "-" { "<stdin>" } else { f.as_str() };
        check_stream(name, BufReader::new(reader), &a, &mut t);
        if t.stopped {
            break;
        }
    }
    if t.errors > 0 {
        eprintln!("{} line(s) could not be checked", t.errors);
    }
    if t.unreadable_files > 0 {
        eprintln!("{} file(s) could not be read", t.unreadable_files);
    }
    let stopped = t.limit_at.as_ref().filter(|_| t.stopped);
    if let Some(s) = stopped {
        eprintln!("{}", stop_text(s));
    }
    if a.opts.json {
        let stopped = stopped.map(|s| json!({"file": s.file, "line": s.line, "max_failures": s.max}));
        say!(
            "{}",
            json!({"passed": t.passed, "failed": t.failed, "errors": t.errors, "unreadable_files": t.unreadable_files,
                   "stopped_early": stopped,
                   "summary": {"by_class": t.by_class.json(), "by_rule": t.by_rule.json(),
                               "by_instruction": t.by_instruction.json()}})
        );
    } else if !a.quiet && t.failed > 0 {
        print_summary(&t, &a);
    }
    say!("{} passed, {} failed", t.passed, t.failed);
    if t.errors > 0 || t.unreadable_files > 0 {
        2
    } else if t.failed > 0 {
        1
    } else {
        0
    }
}

fn stop_text(s: &Stop) -> String {
    format!(
        "stopped early at {}:{} after {} mismatch(es) (--max-failures); the rest was not checked",
        s.file, s.line, s.max
    )
}

fn print_summary(t: &Tally, a: &CheckArgs) {
    say!("");
    say!("summary of {} mismatch(es):", t.failed);
    for (title, groups) in [("class", &t.by_class), ("deciding rule", &t.by_rule), ("instruction", &t.by_instruction)] {
        let sorted = groups.sorted();
        say!("  by {title}:");
        let shown = &sorted[..sorted.len().min(SHOWN_GROUPS)];
        let kw = shown.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0).min(48);
        for (k, g) in shown {
            say!("    {:>8}  {k:<kw$}  first {}:{}: {}", g.count, g.first.file, g.first.line, g.first.case);
        }
        if sorted.len() > shown.len() {
            let rest: u64 = sorted[shown.len()..].iter().map(|(_, g)| g.count).sum();
            say!("    … {} more group(s) with {rest} mismatch(es) (--json lists all)", sorted.len() - shown.len());
        }
    }
    if a.reproducers > 0 && t.failed > a.reproducers {
        say!("PTX reproducers shown for the first {} mismatch(es); --reproducers N shows more", a.reproducers);
    }
    if let Some(s) = t.limit_at.as_ref().filter(|_| t.stopped) {
        say!("{}", stop_text(s));
    }
}

fn check_stream(name: &str, r: impl BufRead, a: &CheckArgs, t: &mut Tally) {
    for (n, line) in lines(r).enumerate() {
        let n = n + 1;
        let parsed = line.and_then(|l| parse_case(&l).map_err(|e| e.to_string()));
        if t.limit_at.is_some() && !matches!(parsed, Ok(None)) {
            // A line after the limit: it and the rest stay unchecked.
            t.stopped = true;
            return;
        }
        let case = match parsed {
            Ok(None) => continue,
            Ok(Some(c)) if c.result.is_none() || c.result_is_placeholder() => {
                Err("no result to check (expected `=> <hex>` after the operands)".to_string())
            }
            Ok(Some(c)) => Ok(c),
            Err(e) => Err(e),
        };
        let checked = case.and_then(|c| accept_case(&c, &a.opts).map(|o| (c, o)));
        match checked {
            Err(e) => {
                t.errors += 1;
                if a.opts.json {
                    say!("{}", json!({"file": name, "line": n, "error": e}));
                } else {
                    eprintln!("{name}:{n}: error: {e}");
                }
            }
            Ok((c, accept)) => {
                let got = c.result.as_ref().unwrap();
                if got.is_subset_of(&accept) {
                    t.passed += 1;
                } else {
                    t.failed += 1;
                    // Evaluated again with the explanation, which the report shows.
                    let o = eval_case(&c, &a.opts).expect("evaluated once already");
                    mismatch(name, n, &c, &o, a, t);
                    if a.max_failures.is_some_and(|m| t.failed >= m) {
                        t.limit_at = Some(Stop { file: name.to_string(), line: n, max: t.failed });
                    }
                }
            }
        }
    }
}

/// Record a mismatch in the summary and, unless quiet, report it.
fn mismatch(name: &str, n: usize, c: &Case, o: &Outcome, a: &CheckArgs, t: &mut Tally) {
    let class = coverage_class(c.comment.as_deref());
    let rule = mismatch_rule(c, o);
    let first = || First { file: name.to_string(), line: n, case: case_line(c, &o.accept) };
    t.by_class.add(class.unwrap_or(NO_CLASS), first);
    t.by_rule.add(rule.name(), first);
    t.by_instruction.add(&c.instr.to_string(), first);
    if a.quiet {
        return;
    }
    let ptx = (t.failed <= a.reproducers).then(|| {
        let version = a.opts.ptx_version.unwrap_or(DEFAULT_VERSION);
        let expected = Case { result: Some(o.accept.clone()), comment: None, ..c.clone() };
        let target: Target = a.opts.target.unwrap_or_else(|| default_target(&expected, version));
        ptx_snippet(&expected, target, version)
    });
    let repro = case_line(c, &o.accept);
    report(name, n, c, o, Blame { rule, class, repro: &repro, ptx: ptx.as_deref() }, a.opts.json);
}

/// What `check` adds to a mismatch beyond the case and the outcome.
struct Blame<'a> {
    rule: Rule,
    class: Option<&'a str>,
    repro: &'a str,
    ptx: Option<&'a str>,
}

fn report(name: &str, n: usize, c: &Case, o: &Outcome, b: Blame, as_json: bool) {
    let Blame { rule, class, repro, ptx } = b;
    let got = c.result.as_ref().unwrap();
    let got_text = match got.single() {
        Some(b) => describe_bits(&c.instr, b, got.width),
        None => format!("{got}"),
    };
    let operands: Vec<String> = c.operands.iter().map(|x| ptx_cvt::eval::fmt_hex(x.bits, x.width)).collect();
    if as_json {
        let mut v = json!({"file": name, "line": n, "instruction": c.instr.to_string(), "operands": operands,
                           "input": o.inputs_text(), "expected": o.accept.to_string(), "got": got.to_string(),
                           "rule": rule.name(), "evidence": rule.evidence().tag(),
                           "class": class, "case": repro});
        if let Some(p) = ptx {
            v["ptx"] = Value::String(p.to_string());
        }
        say!("{v}");
        return;
    }
    say!("{name}:{n}: MISMATCH {} {}", c.instr, operands.join(" "));
    say!("  input    {} {} = {}", c.instr.atype.name(), operands.join(" "), o.inputs_text());
    say!("  expected {}", describe_set(&c.instr, &o.accept));
    say!("  got      {got_text}");
    say!("  rule     {} [{}]: {}", rule.name(), rule.evidence().tag(), rule.text());
    if let Some(k) = class {
        say!("  class    {k}");
    }
    say!("  case     {repro}");
    if let Some(p) = ptx {
        say!("  ptx      (assemble with ptxas -arch=<the .target>)");
        for l in p.lines() {
            say!("    {l}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_from_comments() {
        assert_eq!(coverage_class(Some("normal/normal/tie-even")), Some("normal/normal/tie-even"));
        assert_eq!(coverage_class(Some("seed 3 a/b subnormal/zero/underflow x/y/z")), Some("subnormal/zero/underflow"));
        assert_eq!(coverage_class(Some("a/b/c/d")), None);
        assert_eq!(coverage_class(Some("SPEC §4")), None);
        assert_eq!(coverage_class(None), None);
    }

    #[test]
    fn groups_are_bounded_and_sorted() {
        let mut g = Groups::default();
        let f = || First { file: "f".into(), line: 1, case: "c".into() };
        for i in 0..MAX_GROUPS + 10 {
            g.add(&format!("k{i}"), f);
        }
        g.add("k5", f);
        assert_eq!(g.map.len(), MAX_GROUPS + 1);
        let s = g.sorted();
        assert_eq!((s[0].0, s[0].1.count), (OTHER, 10));
        assert_eq!((s[1].0, s[1].1.count), ("k5", 2));
        assert_eq!(s[2].0, "k0");
    }
}
