//! `ptx-cvt gpu`: run cases on an NVIDIA GPU through the CUDA driver API and
//! check every result against the oracle.
//!
//! The kernels come from `ptx-cvt ptx` (one per variant, natural register
//! widths) and run through `cuda.rs`; this file picks the cases, checks the
//! answers with the exact engine and records them. CUDA is loaded dynamically
//! (cudarc), so this binary builds and runs its other commands on machines
//! without CUDA; without a driver this command fails with a clear message.
//! Tests run it on the stand-in driver of `cuda-standin/`.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use clap::Args;
use ptx_cvt::accept::width_mask;
use ptx_cvt::gen;
use ptx_cvt::{evaluate_accept, format_case, instr, parse_case, AcceptSet, Cvt, Operand, Profile, PtxVersion, Target};
use ptx_cvt_harness::ptx_kernels::module_version;
use ptx_cvt_harness::{Mismatch, Origin};
use rayon::prelude::*;

use crate::cuda::Gpu;
use crate::output::write_atomic_unsynced;

#[derive(Args)]
#[command(after_help = "\
Each variant runs as its own launch (large ones in chunks), is checked at once, and its
results are written at once: a run that stops early keeps every finished variant.
A variant whose kernel the driver refuses, or whose launch fails, is reported and the
run goes on; after a device fault that leaves the device unusable (e.g. an illegal
address) the remaining variants are reported as not run.

Exit status: 0 every variant ran and every result matched; 1 every variant ran and
some results did not match; 2 something did not run (no driver, a device too old for
--target, a module or launch error, unreadable input, an unwritable --out): mismatches
among what did run are still reported and written.")]
pub struct GpuArgs {
    /// Case files, or directories (every `*.cases` file in them), to run
    /// (their results, if any, are ignored: the GPU answers).
    #[arg(value_name = "FILE|DIR")]
    files: Vec<String>,
    /// Also run every input of every variant whose sources total 16 bits or less.
    #[arg(long)]
    exhaustive: bool,
    #[arg(long = "filter", value_name = "GLOB", help = crate::options::FILTER_HELP)]
    filters: Vec<String>,
    /// The `.target` of the kernels; only variants legal there run.
    #[arg(long, default_value = "sm_90", value_parser = crate::parse_target)]
    target: Target,
    /// PTX ISA version: only forms legal with it run, and it is the
    /// kernels' `.version` (the driver must support it). Default: legality
    /// as of 9.5, like every command, and the oldest `.version` the chosen
    /// forms need on --target, so that older drivers load the module.
    #[arg(long, value_parser = crate::parse_version)]
    ptx_version: Option<PtxVersion>,
    /// CUDA device ordinal.
    #[arg(long, value_name = "N", default_value_t = 0)]
    device: usize,
    /// Evidence profile to check against.
    #[arg(long, default_value = "sm90", value_parser = |s: &str| s.parse::<Profile>())]
    profile: Profile,
    /// Write results here, each file as soon as it is known (atomically):
    /// `<variant>.cases` per variant (the GPU's answers as case lines),
    /// `mismatches.cases`, and `summary.txt` (a `#` line naming the device,
    /// then `variant, cases, mismatches, status` tab-separated, status `ok`,
    /// `mismatch`, `error: ...` or `not run`).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Which cases' answers `<variant>.cases` keeps: `all`, or `open`: only
    /// those where the oracle accepts more than one value (e.g. any NaN), the
    /// answers that add evidence, and the mismatches; every other answer
    /// matched the one value the oracle expects. `open` keeps exhaustive
    /// sweeps small (16 million answers: 1.6 MB instead of 511 MB).
    /// (`--record`, the old spelling, is kept: `fuzz --record` names a file.)
    #[arg(long, value_enum, default_value_t = Keep::All, alias = "record")]
    keep: Keep,
    /// Stop after N mismatches (variants run in name order; the ones not
    /// reached are `not run` in summary.txt); the summary still follows.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_failures: Option<u64>,
    /// Print at most N mismatches (all are counted, and recorded with --out).
    #[arg(long, value_name = "N", default_value_t = 20, alias = "show")]
    max_shown: u64,
    /// Exit 0 when the files hold no case to run (default: "no cases", exit 2).
    #[arg(long)]
    allow_empty: bool,
    /// JSON Lines: `{"mismatch": …}` per shown mismatch, then `{"summary": …}`.
    #[arg(long)]
    json: bool,
}

/// Which answers `--out` keeps.
impl GpuArgs {
    /// The PTX ISA version the variants must be legal with.
    fn legality_version(&self) -> PtxVersion {
        self.ptx_version.unwrap_or(PtxVersion::LATEST)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Keep {
    All,
    Open,
}

/// Cases of one variant: operands and destination width (natural widths).
type Cases = BTreeMap<Cvt, Vec<Vec<Operand>>>;

/// The cases to run; errors come formatted (`FILE:LINE: error: ...` or `error: ...`).
fn collect(a: &GpuArgs) -> Result<(Cases, usize), String> {
    let filter = crate::options::VariantFilter::new(&a.filters).map_err(|e| format!("error: {e}"))?;
    let legal = |c: &Cvt| {
        instr::check(c, gen::natural_regs(c), Some(a.target), Some(a.legality_version())).is_ok() && filter.matches(c)
    };
    let mut cases: Cases = BTreeMap::new();
    let mut skipped = 0;
    for f in &crate::options::expand_sources(&a.files).map_err(|e| format!("error: {e}"))? {
        let text = fs::read_to_string(f).map_err(|e| format!("error: cannot read {f}: {e}"))?;
        for (n, line) in text.lines().enumerate() {
            let Some(c) =
                parse_case(line).map_err(|e| format!("{}:{}: error: {e}", crate::options::input_name(f), n + 1))?
            else {
                continue;
            };
            let shape = instr::shape(&c.instr);
            let natural = c.operands.iter().map(|o| o.width).eq(shape.srcs.iter().copied())
                && c.dst_width() == c.instr.dtype.bits();
            if !natural || !legal(&c.instr) {
                skipped += 1;
                continue;
            }
            cases.entry(c.instr).or_default().push(c.operands);
        }
    }
    if a.exhaustive {
        for (c, _) in gen::legal_variants(&[(a.target, a.legality_version())]) {
            let shape = instr::shape(&c);
            let total: u32 = shape.srcs.iter().sum();
            if total > 16 || !legal(&c) {
                continue;
            }
            let list = cases.entry(c).or_default();
            for v in 0..(1u64 << total) {
                let mut ops = Vec::new();
                let mut shift = total;
                for w in &shape.srcs {
                    shift -= w;
                    ops.push(Operand { bits: (v >> shift) & width_mask(*w), width: *w });
                }
                list.push(ops);
            }
        }
    }
    Ok((cases, skipped))
}

/// A wrong answer: its case line, the oracle's set, the device's bits.
type WrongAnswer = (String, AcceptSet, u64);

/// How one variant ended.
enum Outcome {
    Pending,
    Ran { cases: usize, mismatches: usize },
    Failed(String),
}

/// The files under `--out`, each rewritten atomically as soon as it changes:
/// a run cut short leaves every finished variant's results and a summary
/// that says which variants ran, failed or never started.
struct Record {
    dir: Option<PathBuf>,
    header: String,
    outcomes: BTreeMap<Cvt, Outcome>,
    mismatches: String,
    /// The first write error (reported once; the run goes on).
    write_error: Option<String>,
}

impl Record {
    fn new(dir: Option<PathBuf>, header: String, variants: impl Iterator<Item = Cvt>) -> Record {
        let mut r = Record {
            dir,
            header,
            outcomes: variants.map(|c| (c, Outcome::Pending)).collect(),
            mismatches: String::new(),
            write_error: None,
        };
        if let Some(d) = &r.dir {
            if let Err(e) = fs::create_dir_all(d) {
                r.fail_write(format!("cannot create {}: {e}", d.display()));
            }
        }
        r.write_summary();
        r
    }

    fn fail_write(&mut self, e: String) {
        if self.write_error.is_none() {
            fail!("{e}");
            self.write_error = Some(e);
        }
    }

    fn write(&mut self, name: &str, text: &str) {
        let Some(dir) = &self.dir else { return };
        let path = dir.join(name);
        if self.write_error.is_none() {
            if let Err(e) = write_atomic_unsynced(&path, text.as_bytes()) {
                self.fail_write(e);
            }
        }
    }

    fn write_summary(&mut self) {
        let mut s = format!("{}variant\tcases\tmismatches\tstatus\n", self.header);
        for (c, o) in &self.outcomes {
            let row = match o {
                Outcome::Pending => "0\t0\tnot run".to_string(),
                Outcome::Ran { cases, mismatches: 0 } => format!("{cases}\t0\tok"),
                Outcome::Ran { cases, mismatches } => format!("{cases}\t{mismatches}\tmismatch"),
                Outcome::Failed(e) => format!("0\t0\terror: {}", e.lines().next().unwrap_or("")),
            };
            s.push_str(&format!("{c}\t{row}\n"));
        }
        self.write("summary.txt", &s);
    }

    fn ran(&mut self, c: &Cvt, cases: usize, lines: &[String], bad: &[WrongAnswer]) {
        self.write(&gen::file_name(c), &format!("# ptx-cvt case lines v1\n{}{}\n", self.header, lines.join("\n")));
        if !bad.is_empty() {
            for (line, expected, _) in bad {
                self.mismatches.push_str(&format!("{line}  # oracle: {expected}\n"));
            }
            let m = self.mismatches.clone();
            self.write("mismatches.cases", &m);
        }
        self.outcomes.insert(*c, Outcome::Ran { cases, mismatches: bad.len() });
        self.write_summary();
    }

    fn failed(&mut self, c: &Cvt, e: String) {
        self.outcomes.insert(*c, Outcome::Failed(e));
        self.write_summary();
    }
}

/// The operand columns of a variant's cases, one per source operand.
fn columns(c: &Cvt, list: &[Vec<Operand>]) -> Vec<Vec<u64>> {
    (0..instr::shape(c).srcs.len()).map(|k| list.iter().map(|ops| ops[k].bits).collect()).collect()
}

/// Check one variant's answers on all host cores: the case lines to record
/// (the device's answers; with `Keep::Open` only those whose expected result
/// is a set of several values, and the mismatches) and the mismatches.
fn check(c: &Cvt, list: &[Vec<Operand>], got: &[u64], profile: Profile, keep: Keep) -> (Vec<String>, Vec<WrongAnswer>) {
    let w = c.dtype.bits();
    let checked: Vec<(Option<String>, Option<WrongAnswer>)> = list
        .par_iter()
        .zip(got)
        .map(|(ops, g)| {
            let want = evaluate_accept(c, ops, w, profile).expect("a legal case");
            let line = format_case(c, ops, &AcceptSet::exact(w, *g));
            let wrong = !want.contains(*g);
            let keep = keep == Keep::All || want.single().is_none() || wrong;
            let bad = wrong.then(|| (line.clone(), want, *g));
            (keep.then_some(line), bad)
        })
        .collect();
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    for (l, b) in checked {
        lines.extend(l);
        bad.extend(b);
    }
    (lines, bad)
}

pub fn run(a: GpuArgs) -> u8 {
    if a.files.is_empty() && !a.exhaustive {
        fail!("give case files and/or --exhaustive");
        return 2;
    }
    // The driver first: no plan is printed for a machine that cannot run it.
    let gpu = match Gpu::open(a.device).and_then(|g| g.check_target(a.target).map(|note| (g, note))) {
        Ok((g, note)) => {
            if let Some(n) = note {
                eprintln!("note: {n}");
            }
            g
        }
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    let (cases, skipped) = match collect(&a) {
        Ok(x) => x,
        Err(e) => {
            // `FILE:LINE: error: ...` or `error: ...`; under --json, JSON.
            match e.strip_prefix("error: ") {
                Some(m) => fail!("{m}"),
                None if crate::output::json_errors() => fail!("{e}"),
                None => eprintln!("{e}"),
            }
            return 2;
        }
    };
    if skipped > 0 {
        eprintln!(
            "note: {skipped} cases skipped (wider registers, or not legal on {} with PTX ISA {})",
            a.target,
            a.legality_version()
        );
    }
    if cases.is_empty() {
        if a.allow_empty {
            report_totals(&a, 0, 0, false, cases.len(), skipped);
            return 0;
        }
        eprintln!(
            "error: no cases: nothing to run of a variant legal on {} with PTX ISA {} (--allow-empty accepts that)",
            a.target,
            a.legality_version()
        );
        return 2;
    }
    let total: usize = cases.values().map(Vec::len).sum();
    let variants: Vec<Cvt> = cases.keys().copied().collect();
    let kernels = crate::ptx::kernels(&variants);
    let version = module_version(&kernels, a.target, a.ptx_version);
    eprintln!("{}: {} variants, {total} cases ({}, PTX ISA {version})", gpu.info, cases.len(), a.target);
    let mut header = format!("# recorded: {}, kernels {} PTX ISA {version}\n", gpu.info, a.target);
    if a.keep == Keep::Open {
        header.push_str(
            "# kept: only cases whose expected result is a set of several values, and mismatches (--keep open)\n",
        );
    }
    let mut record = Record::new(a.out.clone(), header, cases.keys().copied());
    let start = std::time::Instant::now();
    let loaded = gpu.load(&kernels, a.target, version);
    let load_time = start.elapsed();
    let loaded = match loaded {
        Ok(l) => l,
        Err(e) => {
            fail!("{e}");
            for c in &variants {
                record.failed(c, "the PTX module did not load".into());
            }
            record.write_summary();
            return 2;
        }
    };
    let (mut failed, mut errors, mut shown) = (0u64, 0, 0u64);
    let mut stopped = false;
    let mut broken: Option<String> = None;
    let (mut device_time, mut check_time) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    let mut write_time = std::time::Duration::ZERO;
    for k in &kernels {
        let c = &k.instr;
        let list = &cases[c];
        if a.max_failures.is_some_and(|m| failed >= m) {
            // The rest stay `not run` in summary.txt.
            stopped = true;
            break;
        }
        if let Some(why) = &broken {
            record.failed(c, why.clone());
            errors += 1;
            continue;
        }
        if let Some((_, e)) = loaded.failed.iter().find(|(f, _)| f == c) {
            fail!("{c}: {e}");
            record.failed(c, e.clone());
            errors += 1;
            continue;
        }
        let t = std::time::Instant::now();
        let got = match gpu.run(&loaded, k, &columns(c, list)) {
            Ok(g) => g,
            Err(e) => {
                fail!("{c}: {}", e.message);
                record.failed(c, e.message.clone());
                errors += 1;
                if e.sticky {
                    eprintln!(
                        "error: the device cannot run anything after this error; the remaining variants are not run"
                    );
                    broken = Some(format!("not run: the device failed earlier ({c}: {})", e.message));
                }
                continue;
            }
        };
        device_time += t.elapsed();
        let t = std::time::Instant::now();
        let (lines, bad) = check(c, list, &got, a.profile, a.keep);
        check_time += t.elapsed();
        for (line, _, _) in &bad {
            if shown < a.max_shown {
                shown += 1;
                show_mismatch(line, a.profile, a.json);
            }
        }
        failed += bad.len() as u64;
        let t = std::time::Instant::now();
        record.ran(c, list.len(), &lines, &bad);
        write_time += t.elapsed();
    }
    record.write_summary();
    eprintln!(
        "time: module load {:.1} s, device {:.1} s, check {:.1} s, writing {:.1} s, in all {:.1} s",
        load_time.as_secs_f64(),
        device_time.as_secs_f64(),
        check_time.as_secs_f64(),
        write_time.as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    if errors > 0 {
        fail!("{errors} of {} variants did not run (see the messages above)", kernels.len());
    }
    let ran: usize =
        variants.iter().filter(|c| matches!(record.outcomes[*c], Outcome::Ran { .. })).map(|c| cases[c].len()).sum();
    if stopped {
        eprintln!("stopped after {failed} mismatch(es) (--max-failures); the variants not reached are not run");
    }
    if shown < failed && !a.json {
        eprintln!("{shown} mismatch(es) shown of {failed} (--max-shown N shows more)");
    }
    report_totals(&a, ran as u64 - failed, failed, stopped, cases.len(), skipped);
    if errors > 0 || record.write_error.is_some() {
        2
    } else {
        u8::from(failed > 0)
    }
}

/// Print one mismatch (a case line with the device's answer) with the usual report.
fn show_mismatch(line: &str, profile: Profile, json: bool) {
    let case = parse_case(line).ok().flatten().expect("a case line we wrote");
    let Ok(m) = Mismatch::of(Origin::default(), case, profile) else { return };
    if json {
        say!("{}", serde_json::json!({"mismatch": m.json(None)}));
    } else {
        say!("{}", m.text(None));
    }
}

/// The closing line, or with --json the summary object.
fn report_totals(a: &GpuArgs, passed: u64, failed: u64, stopped: bool, variants: usize, skipped: usize) {
    if a.json {
        say!(
            "{}",
            serde_json::json!({"summary": {"variants": variants, "cases": passed + failed, "passed": passed,
                "failed": failed, "stopped": stopped, "skipped": skipped, "target": a.target.to_string(),
                "device": a.device}})
        );
    } else {
        say!("{passed} passed, {failed} failed");
    }
}
