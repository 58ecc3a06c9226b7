use clap::Args;
use ptx_cvt::{instr, Case, PtxVersion, Regs};
use serde_json::json;

use crate::common::{describe_set, eval_case, parse_operands};
use crate::EvalOpts;

#[derive(Args)]
pub struct ExplainArgs {
    /// Instruction, e.g. `cvt.rn.f16.f32`.
    instruction: String,
    /// Source operands in hex (digits = register width).
    #[arg(required = true)]
    operands: Vec<String>,
    /// Destination register width in bits (default: the type's width).
    #[arg(long, value_parser = ["8", "16", "32", "64"])]
    dst_width: Option<String>,
    #[command(flatten)]
    opts: EvalOpts,
}

pub fn run(a: ExplainArgs) -> u8 {
    let res = (|| -> Result<(), String> {
        let c = instr::parse(&a.instruction).map_err(|e| e.to_string())?;
        let operands = parse_operands(&a.operands)?;
        let width = a.dst_width.as_deref().map(|w| w.parse::<u32>().unwrap()).unwrap_or(c.dtype.bits());
        let case =
            Case { instr: c, operands: operands.clone(), result: Some(crate::eval::placeholder(width)), comment: None };
        let o = eval_case(&case, &a.opts)?;
        let src = operands.first().map_or(c.atype.bits(), |x| x.width);
        let legality = match a.opts.target {
            Some(t) => format!("legal on {t} with PTX ISA {}", a.opts.ptx_version.unwrap_or(PtxVersion::LATEST)),
            None => match instr::check(&c, Regs { dst: width, src }, None, None) {
                Ok(()) => "legal (form and registers; give --target to check a target)".to_string(),
                Err(e) => e.to_string(),
            },
        };
        if a.opts.json {
            let steps: Vec<_> = o
                .trace
                .iter()
                .map(|s| {
                    json!({"rule": s.rule.name(), "evidence": s.rule.evidence().tag(), "detail": s.detail,
                           "section": s.rule.section()})
                })
                .collect();
            say!(
                "{}",
                json!({"instruction": c.to_string(), "family": c.describe_family(), "profile": a.opts.profile.name(),
                       "legality": legality, "input": o.inputs_text(), "steps": steps,
                       "result": o.accept.to_string(), "result_meaning": describe_set(&c, &o.accept)})
            );
            return Ok(());
        }
        say!("instruction {c}  ({})", c.describe_family());
        say!("profile     {}", a.opts.profile);
        say!("legality    {legality}");
        say!("steps");
        for s in &o.trace {
            say!("  {s}  ({})", section_ref(s.rule));
        }
        say!("result      {}", describe_set(&c, &o.accept));
        Ok(())
    })();
    match res {
        Ok(()) => 0,
        Err(e) => {
            fail!("{e}");
            2
        }
    }
}

/// Where `docs/semantics.md` states a rule, as explain prints it.
fn section_ref(rule: ptx_cvt::Rule) -> String {
    format!("docs/semantics.md §{}", rule.section())
}
