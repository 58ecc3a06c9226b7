use clap::Args;
use ptx_cvt::instr;
use ptx_cvt::PtxVersion;
use serde_json::json;

use crate::EvalOpts;

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    opts: EvalOpts,
}

pub fn run(a: ListArgs) -> u8 {
    let v = a.opts.ptx_version.or(a.opts.target.map(|_| PtxVersion::LATEST));
    if let (Some(t), Some(v)) = (a.opts.target, v) {
        if let Some(min) = t.min_version().filter(|m| v < *m) {
            eprintln!("error: target {t} needs PTX ISA {min} or later, not {v}");
            return 2;
        }
    }
    let legal: Vec<String> = ptx_cvt::gen::all_spellings()
        .into_iter()
        .filter(|c| instr::check(c, ptx_cvt::gen::natural_regs(c), a.opts.target, v).is_ok())
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
