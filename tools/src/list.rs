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

/// Every scalar spelling in canonical form (legal or not), deterministic order.
pub fn all_scalar() -> Vec<Cvt> {
    let mut v = Vec::new();
    for d in Type::SCALAR {
        for a in Type::SCALAR {
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

pub fn run(a: ListArgs) -> u8 {
    let v = a.opts.ptx_version.or(a.opts.target.map(|_| PtxVersion::LATEST));
    if let (Some(t), Some(v)) = (a.opts.target, v) {
        if let Some(min) = t.min_version().filter(|m| v < *m) {
            eprintln!("error: target {t} needs PTX ISA {min} or later, not {v}");
            return 2;
        }
    }
    let legal: Vec<String> = all_scalar()
        .into_iter()
        .filter(|c| instr::check(c, Regs::natural(c), a.opts.target, v).is_ok())
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
