//! Pieces the commands share: legality against the chosen target, operand
//! parsing, decoded display of result bits.

use ptx_cvt::accept::parse_hex;

use ptx_cvt::{evaluate, gen, AcceptSet, Case, Cvt, Operand, Outcome, PtxVersion, Target};

pub use crate::options::VariantFilter;
pub use crate::output::write_atomic;
use crate::EvalOpts;

/// Evaluate a parsed case under the options: legality for the target (if
/// any), then the oracle, with the explanation.
pub fn eval_case(case: &Case, opts: &EvalOpts) -> Result<Outcome, String> {
    accept_case(case, opts)?;
    evaluate(&case.instr, &case.operands, case.dst_width(), opts.profile).map_err(|e| e.to_string())
}

/// [`eval_case`]'s acceptance set alone (no explanation built: faster).
pub fn accept_case(case: &Case, opts: &EvalOpts) -> Result<AcceptSet, String> {
    opts.scope().accept(&case.instr, &case.operands, case.dst_width())
}

/// The variants legal on `targets` at PTX ISA `version` (with the targets
/// each is legal on) that the `--filter` chooses; the error names a target
/// too new for `version`.
pub fn legal_variants_matching(
    targets: &[Target],
    version: PtxVersion,
    filter: &VariantFilter,
) -> Result<Vec<(Cvt, Vec<Target>)>, String> {
    if let Some((t, min)) = targets.iter().find_map(|t| t.min_version().filter(|m| version < *m).map(|m| (t, m))) {
        return Err(format!("target {t} needs PTX ISA {min} or later, not {version}"));
    }
    let pairs: Vec<(Target, PtxVersion)> = targets.iter().map(|t| (*t, version)).collect();
    Ok(gen::legal_variants(&pairs).into_iter().filter(|(c, _)| filter.matches(c)).collect())
}

pub fn parse_operands(texts: &[String]) -> Result<Vec<Operand>, String> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            parse_hex(t).map(|(bits, width)| Operand { bits, width }).map_err(|e| format!("operand {}: {e}", i + 1))
        })
        .collect()
}

pub use ptx_cvt_harness::report::describe_set;

/// A case file to read (`-` is stdin).
pub fn open_input(f: &str) -> Result<Box<dyn std::io::Read>, String> {
    if f == "-" {
        return Ok(Box::new(std::io::stdin()));
    }
    std::fs::File::open(f).map(|h| Box::new(h) as Box<dyn std::io::Read>).map_err(|e| format!("cannot read {f}: {e}"))
}
