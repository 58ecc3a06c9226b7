//! The mismatch reports of a finished run, by bug class: `check` and
//! `fuzz` print them after grouping, so that each carries its class.

use ptx_cvt::{PtxVersion, Target};
use ptx_cvt_harness::triage::Grouping;
use ptx_cvt_harness::Triage;
use serde_json::json;

/// Mismatches a summary prints in full all the same (they fit the screen).
const FEW: usize = 3;

/// The report options of the commands that print one (`check`, `fuzz`).
#[derive(clap::Args, Clone, Debug)]
pub struct ReportArgs {
    /// Print every mismatch in full (each with its bug class), not only the class list.
    #[arg(long, conflicts_with = "class")]
    pub all: bool,
    /// Print every mismatch of bug class N (its number in the class list) in full.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub class: Option<u64>,
    /// Print at most N mismatches in full (with --all or --class; all are counted).
    #[arg(long, value_name = "N")]
    pub max_shown: Option<u64>,
    /// Add the per-variant table (passed, failed, unsupported) to the summary.
    #[arg(long)]
    pub table: bool,
    /// Show a ready-to-assemble PTX module for the first N mismatches reported
    /// in full (with --class or --all), else for the examples of the first N
    /// classes. It uses --target (default sm_90, or the first newer target that
    /// has the form) and --ptx-version (default 9.5).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub reproducers: u64,
}

impl ReportArgs {
    pub fn showing(&self) -> Showing {
        let shown = match (self.all, self.class) {
            (true, _) => Shown::All,
            (_, Some(n)) => Shown::Class(n as usize),
            _ => Shown::Summary,
        };
        Showing { shown, reproducers: self.reproducers, max_shown: self.max_shown }
    }
}

/// Which mismatches are reported in full.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// None (the class list shows one example each), unless there are at
    /// most three mismatches in all.
    Summary,
    /// Every mismatch of class N.
    Class(usize),
    /// Every mismatch.
    All,
}

/// Print the full reports chosen (with a PTX module for the first
/// `reproducers`; in the summary, for the first classes' examples), as text
/// or `{"mismatch": …}` JSON lines, each with its `bug_class`. Returns how
/// many it printed.
/// What of the mismatches a report prints in full (`--class`/`--all`,
/// `--reproducers`, `--max-shown`), the same on check and fuzz.
pub struct Showing {
    pub shown: Shown,
    pub reproducers: u64,
    pub max_shown: Option<u64>,
}

pub fn print_reports(
    t: &Triage,
    g: &Grouping,
    showing: Showing,
    json: bool,
    target: Option<Target>,
    version: PtxVersion,
) -> usize {
    let Showing { shown, reproducers, max_shown } = showing;
    let mut chosen: Vec<usize> = match shown {
        Shown::All => (0..t.mismatches.len()).collect(),
        Shown::Summary if t.mismatches.len() <= FEW => (0..t.mismatches.len()).collect(),
        Shown::Class(n) => g.classes.get(n - 1).map(|b| b.members.clone()).unwrap_or_default(),
        // Reproducers of the first classes' examples.
        Shown::Summary => g.classes.iter().take(reproducers as usize).map(|b| b.members[0]).collect(),
    };
    if let Some(max) = max_shown.filter(|&m| (m as usize) < chosen.len()) {
        eprintln!("{max} mismatch(es) shown of {} (--max-shown N shows more)", chosen.len());
        chosen.truncate(max as usize);
    }
    for (i, &k) in chosen.iter().enumerate() {
        let m = &t.mismatches[k];
        let ptx = ((i as u64) < reproducers).then(|| m.ptx(target, version));
        let class = g.class_of[k];
        if json {
            let mut v = m.json(ptx.as_deref());
            v["bug_class"] = json!(class);
            v["bug_classes"] = json!(g.classes_of[k]);
            say!("{}", json!({"mismatch": v}));
        } else {
            if i > 0 {
                say!("");
            }
            say!("{}", m.text(ptx.as_deref()));
            match g.classes_of[k].as_slice() {
                [_, _, ..] => say!(
                    "  bug      classes {} of the summary (its lanes are wrong for different reasons)",
                    g.classes_of[k].iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
                ),
                _ => say!("  bug      class {class} of the summary"),
            }
        }
    }
    chosen.len()
}
