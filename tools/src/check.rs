use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

use clap::Args;
use ptx_cvt::{parse_case, Case, Outcome};
use serde_json::json;

use crate::common::{describe_bits, describe_set, eval_case};
use crate::EvalOpts;

#[derive(Args)]
pub struct CheckArgs {
    /// Case files to check (`-` for stdin).
    #[arg(required = true)]
    files: Vec<String>,
    /// Print only the summary line.
    #[arg(long, short)]
    quiet: bool,
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
            return Some(Err(format!("line is {len} bytes long; case lines are at most {}", ptx_cvt::caseline::MAX_LINE)));
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        Some(String::from_utf8(buf).map_err(|_| "line is not valid UTF-8".to_string()))
    })
}

#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    errors: u64,
    unreadable_files: u64,
}

pub fn run(a: CheckArgs) -> u8 {
    let mut t = Tally::default();
    for f in &a.files {
        let reader: Box<dyn Read> = if f == "-" {
            Box::new(io::stdin())
        } else {
            match File::open(f) {
                Ok(h) => Box::new(h),
                Err(e) => {
                    eprintln!("error: cannot read {f}: {e}");
                    t.unreadable_files += 1;
                    continue;
                }
            }
        };
        let name = if f == "-" { "<stdin>" } else { f.as_str() };
        check_stream(name, BufReader::new(reader), &a, &mut t);
    }
    if t.errors > 0 {
        eprintln!("{} line(s) could not be checked", t.errors);
    }
    if t.unreadable_files > 0 {
        eprintln!("{} file(s) could not be read", t.unreadable_files);
    }
    if a.opts.json {
        say!("{}", json!({"passed": t.passed, "failed": t.failed, "errors": t.errors, "unreadable_files": t.unreadable_files}));
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

fn check_stream(name: &str, r: impl BufRead, a: &CheckArgs, t: &mut Tally) {
    for (n, line) in lines(r).enumerate() {
        let n = n + 1;
        let parsed = line.and_then(|l| parse_case(&l).map_err(|e| e.to_string()));
        let case = match parsed {
            Ok(None) => continue,
            Ok(Some(c)) if c.result.is_none() || c.result_is_placeholder() => {
                Err("no result to check (expected `=> <hex>` after the operands)".to_string())
            }
            Ok(Some(c)) => Ok(c),
            Err(e) => Err(e),
        };
        let checked = case.and_then(|c| eval_case(&c, &a.opts).map(|o| (c, o)));
        match checked {
            Err(e) => {
                t.errors += 1;
                if a.opts.json {
                    say!("{}", json!({"file": name, "line": n, "error": e}));
                } else {
                    eprintln!("{name}:{n}: error: {e}");
                }
            }
            Ok((c, o)) => {
                let got = c.result.as_ref().unwrap();
                if got.is_subset_of(&o.accept) {
                    t.passed += 1;
                } else {
                    t.failed += 1;
                    if !a.quiet {
                        report(name, n, &c, &o, a.opts.json);
                    }
                }
            }
        }
    }
}

fn report(name: &str, n: usize, c: &Case, o: &Outcome, as_json: bool) {
    let got = c.result.as_ref().unwrap();
    let got_text = match got.single() {
        Some(b) => describe_bits(&c.instr, b, got.width),
        None => format!("{got}"),
    };
    let rule = o.deciding_rule();
    let operands: Vec<String> = c.operands.iter().map(|x| ptx_cvt::eval::fmt_hex(x.bits, x.width)).collect();
    if as_json {
        say!(
            "{}",
            json!({"file": name, "line": n, "instruction": c.instr.to_string(), "operands": operands,
                   "input": o.inputs_text(), "expected": o.accept.to_string(), "got": got.to_string(),
                   "rule": rule.name(), "evidence": rule.evidence().tag()})
        );
        return;
    }
    say!("{name}:{n}: MISMATCH {} {}", c.instr, operands.join(" "));
    say!("  input    {} {} = {}", c.instr.atype.name(), operands.join(" "), o.inputs_text());
    say!("  expected {}", describe_set(&c.instr, &o.accept));
    say!("  got      {got_text}");
    say!("  rule     {} [{}]: {}", rule.name(), rule.evidence().tag(), rule.text());
}
