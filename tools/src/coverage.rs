//! `ptx-cvt coverage`: which coverage classes a set of case files hits, per
//! variant, and which classes the deep generator reaches that it misses.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufReader;

use clap::Args;
use ptx_cvt::gen::{self, coverage, Level};
use ptx_cvt::{evaluate, parse_case, Cvt, Profile};
use rayon::prelude::*;
use serde_json::json;

#[derive(Args)]
pub struct CoverageArgs {
    /// Case files (`-` for stdin); a directory is its `*.cases` files.
    #[arg(required = true)]
    files: Vec<String>,
    /// Evidence profile used to classify the cases.
    #[arg(long, default_value = "sm90", value_parser = |s: &str| s.parse::<Profile>())]
    profile: Profile,
    /// Skip computing the classes the deep generator reaches (faster; no "missing" report).
    #[arg(long)]
    no_reachable: bool,
    /// Exit with status 1 when a variant misses a reachable class.
    #[arg(long)]
    fail_on_missing: bool,
    /// Count only the cases of these variants.
    #[arg(long = "filter", value_name = "GLOB", help = crate::options::FILTER_HELP)]
    filters: Vec<String>,
    /// Exit 0 when the files hold no case (default: "no cases", exit 2).
    #[arg(long)]
    allow_empty: bool,
    /// Machine-readable JSON output (one object per variant, then `{"summary": ...}`).
    #[arg(long)]
    json: bool,
}

pub fn run(a: CoverageArgs) -> u8 {
    // variant → class → count
    let mut hits: BTreeMap<Cvt, BTreeMap<String, usize>> = BTreeMap::new();
    let mut errors = 0;
    let filter = match crate::options::VariantFilter::new(&a.filters) {
        Ok(f) => f,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    let files = match crate::options::expand_sources(&a.files) {
        Ok(f) => f,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    for f in &files {
        let reader = match crate::common::open_input(f) {
            Ok(r) => r,
            Err(e) => {
                fail!("{e}");
                errors += 1;
                continue;
            }
        };
        for (n, line) in ptx_cvt_harness::lines::lines(BufReader::new(reader)).enumerate() {
            let res =
                line.map_err(|e| e.to_string()).and_then(|l| parse_case(&l).map_err(|e| e.to_string())).and_then(|c| {
                    match c {
                        None => Ok(None),
                        Some(c) if !filter.matches(&c.instr) => Ok(None),
                        Some(c) => evaluate(&c.instr, &c.operands, c.dst_width(), a.profile)
                            .map(|o| Some((c, o)))
                            .map_err(|e| e.to_string()),
                    }
                });
            match res {
                Ok(None) => {}
                Ok(Some((c, o))) => {
                    *hits.entry(c.instr).or_default().entry(coverage::classify(&c.instr, &o)).or_default() += 1
                }
                Err(e) => {
                    eprintln!("{}:{}: error: {e}", crate::options::input_name(f), n + 1);
                    errors += 1;
                }
            }
        }
    }
    let reach: BTreeMap<Cvt, BTreeSet<String>> = if a.no_reachable {
        BTreeMap::new()
    } else {
        hits.keys()
            .collect::<Vec<_>>()
            .par_iter()
            .map(|c| {
                let lines = gen::lines(c, &gen::cases(c, Level::Deep, 1), a.profile);
                (**c, lines.into_iter().map(|l| l.class).collect())
            })
            .collect()
    };
    let mut missing_total = 0;
    for (c, classes) in &hits {
        let missing: Vec<&String> =
            reach.get(c).map_or(Vec::new(), |r| r.iter().filter(|k| !classes.contains_key(*k)).collect());
        missing_total += missing.len();
        let cases: usize = classes.values().sum();
        if a.json {
            say!(
                "{}",
                json!({"variant": c.to_string(), "cases": cases, "classes": classes, "missing": missing, "reachable": reach.get(c).map(|r| r.len())})
            );
            continue;
        }
        let of = reach.get(c).map_or(String::new(), |r| format!(" of {} reachable", r.len()));
        say!("{c}: {cases} cases, {} classes{of}", classes.len());
        for (k, n) in classes {
            say!("  {n:>7}  {k}");
        }
        if !missing.is_empty() {
            say!("  missing: {}", missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "));
        }
    }
    let total: usize = hits.values().flat_map(|k| k.values()).sum();
    if a.json {
        say!(
            "{}",
            json!({"summary": {"variants": hits.len(), "cases": total, "missing": missing_total, "errors": errors}})
        );
    }
    let note = if a.no_reachable { String::new() } else { format!(", {missing_total} reachable classes missing") };
    eprintln!("{} variants{note} (reachable = classes some deep-level input reaches)", hits.len());
    if errors > 0 {
        2
    } else if total == 0 && !a.allow_empty {
        eprintln!(
            "error: no cases (the files hold no case line{}; --allow-empty accepts that)",
            if filter.is_empty() { "" } else { " of a variant --filter chooses" }
        );
        2
    } else if a.fail_on_missing && missing_total > 0 {
        1
    } else {
        0
    }
}
