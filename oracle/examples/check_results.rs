//! Check recorded `cvt` results against the oracle: reads case lines (the
//! format of vectors/README.md) from a file or stdin and prints each
//! mismatch with the oracle's answer and its deciding rule.
//!
//!     cargo run -p ptx-cvt --example check_results -- results.cases
//!     echo 'cvt.rn.f16.f32 3f801000 => 3c01' | cargo run -p ptx-cvt --example check_results

use std::io::{BufRead, BufReader};
use std::process::ExitCode;

use ptx_cvt::{evaluate, evaluate_accept, parse_case, Profile};

fn main() -> ExitCode {
    let input: Box<dyn BufRead> = match std::env::args().nth(1) {
        Some(path) => match std::fs::File::open(&path) {
            Ok(f) => Box::new(BufReader::new(f)),
            Err(e) => {
                eprintln!("cannot read {path}: {e}");
                return ExitCode::from(2);
            }
        },
        None => Box::new(BufReader::new(std::io::stdin())),
    };
    let (mut passed, mut failed) = (0u64, 0u64);
    for (n, line) in input.lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("line {}: {e}", n + 1);
                return ExitCode::from(2);
            }
        };
        let case = match parse_case(&line) {
            Ok(Some(c)) => c,
            Ok(None) => continue, // blank or comment
            Err(e) => {
                eprintln!("line {}: {e}", n + 1);
                return ExitCode::from(2);
            }
        };
        let Some(got) = case.result.as_ref() else {
            eprintln!("line {}: no result to check", n + 1);
            return ExitCode::from(2);
        };
        let (c, ops, w) = (&case.instr, &case.operands, case.dst_width());
        let expected = match evaluate_accept(c, ops, w, Profile::Sm90) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("line {}: {e}", n + 1);
                return ExitCode::from(2);
            }
        };
        if got.is_subset_of(&expected) {
            passed += 1;
            continue;
        }
        failed += 1;
        let why = evaluate(c, ops, w, Profile::Sm90).expect("evaluated above");
        let rule = why.deciding_rule();
        println!("line {}: {c}: expected {expected}, got {got} ({} [{}])", n + 1, rule.name(), rule.evidence().tag());
    }
    println!("{passed} passed, {failed} failed");
    ExitCode::from(u8::from(failed > 0))
}
