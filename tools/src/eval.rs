use std::fmt::Write as _;
use std::io;

use clap::Args;
use ptx_cvt::{format_case, parse_case, Case};
use serde_json::json;

use crate::common::{eval_case, parse_operands};
use crate::output::write_stdout;
use crate::EvalOpts;

#[derive(Args)]
pub struct EvalArgs {
    /// Instruction, e.g. `cvt.rn.f16.f32`; omit to read case lines from stdin.
    instruction: Option<String>,
    /// Source operands in hex (digits = register width: 2, 4, 8 or 16).
    operands: Vec<String>,
    /// Destination register width in bits (default: the type's width).
    #[arg(long, value_parser = ["8", "16", "32", "64"])]
    dst_width: Option<String>,
    #[command(flatten)]
    opts: EvalOpts,
}

pub fn run(a: EvalArgs) -> u8 {
    match a.instruction.clone() {
        Some(i) => one(&a, &i),
        None => stream(&a.opts, a.dst_width.as_deref().map(|w| w.parse().unwrap())),
    }
}

fn one(a: &EvalArgs, instr_text: &str) -> u8 {
    let case = (|| -> Result<Case, String> {
        let instr = ptx_cvt::instr::parse(instr_text).map_err(|e| e.to_string())?;
        let operands = parse_operands(&a.operands)?;
        if operands.is_empty() {
            let shape = ptx_cvt::instr::shape(&instr);
            let example: Vec<String> = shape.srcs.iter().map(|w| "0".repeat((w / 4) as usize)).collect();
            return Err(format!(
                "{instr} needs source operands in hex ({}), e.g. `ptx-cvt eval {instr} {}`",
                shape.describe(),
                example.join(" ")
            ));
        }
        let width = a.dst_width.as_deref().map(|w| w.parse::<u32>().unwrap()).unwrap_or(instr.dtype.bits());
        let result = Some(placeholder(width));
        Ok(Case { instr, operands, result, comment: None })
    })();
    let out = case.and_then(|c| eval_case(&c, &a.opts).map(|o| (c, o)));
    match out {
        Ok((c, o)) => {
            if a.opts.json {
                say!(
                    "{}",
                    json!({"instruction": c.instr.to_string(), "result": o.accept.to_string(), "profile": a.opts.profile.name()})
                );
            } else {
                say!("{}", o.accept);
            }
            0
        }
        Err(e) => {
            fail!("{e}");
            2
        }
    }
}

/// A result that only asks for a destination register width.
pub fn placeholder(width: u32) -> ptx_cvt::AcceptSet {
    ptx_cvt::AcceptSet { width, alts: vec![ptx_cvt::accept::Alt::Bits { value: 0, mask: 0 }].into() }
}

/// Stream stdin to stdout: one complete case line per input line (with
/// --json, one object per line, then `{"summary": ...}`).
fn stream(opts: &EvalOpts, dst_width: Option<u32>) -> u8 {
    let stdin = io::stdin().lock();
    // Output goes out in blocks through the one stdout writer (output.rs).
    let mut out = String::new();
    let (mut lines, mut errors) = (0u64, 0u64);
    for (n, line) in ptx_cvt_harness::lines::lines(stdin).enumerate() {
        let n = n + 1;
        let res = line.map_err(|e| e.to_string()).and_then(|l| parse_case(&l).map_err(|e| e.to_string())).and_then(
            |c| match c {
                None => Ok(None),
                Some(mut c) => {
                    // --dst-width applies to lines that do not ask for a width themselves.
                    if let (None, Some(w)) = (&c.result, dst_width) {
                        c.result = Some(placeholder(w));
                    }
                    eval_case(&c, opts).map(|o| Some((c, o)))
                }
            },
        );
        match res {
            Ok(None) => {}
            Ok(Some((c, o))) => {
                lines += 1;
                if opts.json {
                    let operands: Vec<String> =
                        c.operands.iter().map(|o| ptx_cvt::eval::fmt_hex(o.bits, o.width)).collect();
                    let v = json!({"line": n, "instruction": c.instr.to_string(), "operands": operands, "result": o.accept.to_string()});
                    let _ = writeln!(out, "{v}");
                } else {
                    let _ = writeln!(out, "{}", format_case(&c.instr, &c.operands, &o.accept));
                }
            }
            Err(e) => {
                errors += 1;
                eprintln!("<stdin>:{n}: error: {e}");
            }
        }
        if out.len() >= 1 << 16 {
            if !write_stdout(out.as_bytes()) {
                break; // stdout closed or failing: main reports a failure
            }
            out.clear();
        }
    }
    if opts.json {
        let _ = writeln!(out, "{}", json!({"summary": {"evaluated": lines, "errors": errors}}));
    }
    write_stdout(out.as_bytes());
    if errors > 0 {
        eprintln!("{errors} line(s) could not be evaluated");
        2
    } else {
        0
    }
}
