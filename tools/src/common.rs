//! Pieces the commands share: legality against the chosen target, operand
//! parsing, decoded display of result bits.

use ptx_cvt::accept::parse_hex;

use ptx_cvt::{
    evaluate, evaluate_accept, gen, instr, AcceptSet, Case, Cvt, Operand, Outcome, PtxVersion, Regs, Target,
};

pub use crate::options::VariantFilter;
pub use crate::output::write_atomic;
use crate::EvalOpts;

/// Evaluate a parsed case under the options: legality for the target (if
/// any), then the oracle, with the explanation.
pub fn eval_case(case: &Case, opts: &EvalOpts) -> Result<Outcome, String> {
    check_target(case, opts)?;
    evaluate(&case.instr, &case.operands, case.dst_width(), opts.profile).map_err(|e| e.to_string())
}

/// [`eval_case`]'s acceptance set alone (no explanation built: faster).
pub fn accept_case(case: &Case, opts: &EvalOpts) -> Result<AcceptSet, String> {
    check_target(case, opts)?;
    evaluate_accept(&case.instr, &case.operands, case.dst_width(), opts.profile).map_err(|e| e.to_string())
}

fn check_target(case: &Case, opts: &EvalOpts) -> Result<(), String> {
    let Some(t) = opts.target else { return Ok(()) };
    let dst = case.dst_width();
    let src = case.operands.first().map_or(case.instr.atype.bits(), |o| o.width);
    let v = opts.ptx_version.unwrap_or(PtxVersion::LATEST);
    instr::check(&case.instr, Regs { dst, src }, Some(t), Some(v))
        .map_err(|e| format!("illegal on {t} with PTX ISA {v}: {e}"))
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
