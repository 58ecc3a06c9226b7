use clap::Args;
use ptx_cvt::instr::{self, Cvt, Regs, Rounding, Type};
use ptx_cvt::PtxVersion;
use serde_json::json;

use crate::EvalOpts;

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    opts: EvalOpts,
}

/// Every spelling in canonical form (legal or not), deterministic order:
/// the scalar forms first, then tf32 and the packed forms.
pub fn all_spellings() -> Vec<Cvt> {
    let mut v = Vec::new();
    let scalar: Vec<(Type, Type)> = Type::SCALAR.into_iter().flat_map(|d| Type::SCALAR.into_iter().map(move |a| (d, a))).collect();
    let others: Vec<(Type, Type)> =
        Type::all().flat_map(|d| Type::all().map(move |a| (d, a))).filter(|(d, a)| !(d.is_scalar() && a.is_scalar())).collect();
    for (d, a) in scalar.into_iter().chain(others) {
        {
            for r in std::iter::once(None).chain(Rounding::ALL.into_iter().map(Some)) {
                for bits in 0u8..16 {
                    let mut c = Cvt::new(d, a);
                    c.rounding = r;
                    c.ftz = bits & 1 != 0;
                    c.sat = bits & 2 != 0;
                    c.relu = bits & 4 != 0;
                    c.satfinite = bits & 8 != 0;
                    if !(c.sat && c.satfinite) {
                        v.push(c);
                    }
                }
            }
        }
    }
    v
}

/// Registers exactly as wide as the operands' types.
fn natural_regs(c: &Cvt) -> Regs {
    Regs { dst: c.dtype.bits(), src: instr::shape(c).srcs[0] }
}

pub fn run(a: ListArgs) -> u8 {
    let v = a.opts.ptx_version.or(a.opts.target.map(|_| PtxVersion::LATEST));
    if let (Some(t), Some(v)) = (a.opts.target, v) {
        if let Some(min) = t.min_version().filter(|m| v < *m) {
            eprintln!("error: target {t} needs PTX ISA {min} or later, not {v}");
            return 2;
        }
    }
    let legal: Vec<String> = all_spellings()
        .into_iter()
        .filter(|c| instr::check(c, natural_regs(c), a.opts.target, v).is_ok())
        .map(|c| c.to_string())
        .collect();
    if a.opts.json {
        say!("{}", json!(legal));
    } else {
        for l in legal {
            say!("{l}");
        }
    }
    0
}
