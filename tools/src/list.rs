use clap::Args;
use ptx_cvt::instr;
use ptx_cvt::{PtxVersion, Target};
use serde_json::json;

use crate::options::VariantFilter;

#[derive(Args)]
pub struct ListArgs {
    /// Only spellings legal on this target (e.g. sm_90, sm_100a); without
    /// it, every form legal on some target.
    #[arg(long, value_parser = crate::parse_target)]
    target: Option<Target>,
    /// PTX ISA version for the legality check (default with --target: the newest known, 9.5).
    #[arg(long, value_parser = crate::parse_version)]
    ptx_version: Option<PtxVersion>,
    #[arg(long = "filter", value_name = "GLOB", help = crate::options::FILTER_HELP)]
    filters: Vec<String>,
    /// Print one JSON array of the spellings.
    #[arg(long)]
    json: bool,
}

pub fn run(a: ListArgs) -> u8 {
    let filter = match VariantFilter::new(&a.filters) {
        Ok(f) => f,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    let v = a.ptx_version.or(a.target.map(|_| PtxVersion::LATEST));
    if let (Some(t), Some(v)) = (a.target, v) {
        if let Some(min) = t.min_version().filter(|m| v < *m) {
            fail!("target {t} needs PTX ISA {min} or later, not {v}");
            return 2;
        }
    }
    let legal: Vec<String> = ptx_cvt::gen::all_spellings()
        .into_iter()
        .filter(|c| filter.matches(c) && instr::check(c, ptx_cvt::gen::natural_regs(c), a.target, v).is_ok())
        .map(|c| c.to_string())
        .collect();
    if legal.is_empty() && !filter.is_empty() {
        let scope = match a.target {
            Some(t) => format!("legal on {t}"),
            None => "legal on some target".to_string(),
        };
        fail!("{}", crate::options::no_match(&filter, &scope));
        return 2;
    }
    if a.json {
        say!("{}", json!(legal));
    } else {
        for l in legal {
            say!("{l}");
        }
    }
    0
}
