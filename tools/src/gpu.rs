//! `ptx-cvt gpu`: run cases on an NVIDIA GPU through the CUDA driver API and
//! check every result against the oracle.
//!
//! A composition of the shared run loop: the kernels of `ptx-cvt ptx` load
//! as one module into the CUDA runner (`cuda::GpuImpl`, which `check
//! --device` drives too), each variant is one batch through `runner::ask`
//! (the `Judge` decides), and each wrong answer becomes a `Mismatch`. This
//! file picks the cases and records the answers. CUDA is loaded dynamically
//! (cudarc), so this binary builds and runs its other commands on machines
//! without CUDA; without a driver this command fails with a clear message.
//! Tests run it on the stand-in driver of `cuda-standin/`.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use ptx_cvt::accept::width_mask;
use ptx_cvt::gen;
use ptx_cvt::{format_case, instr, AcceptSet, Case, Cvt, Operand, Profile, PtxVersion, Target};
use ptx_cvt_harness::judge::{Judge, Legal, Scope};
use ptx_cvt_harness::ptx_kernels::module_version;
use ptx_cvt_harness::runner::{self, Event, Flow};
use ptx_cvt_harness::{Mismatch, Origin};
use rayon::prelude::*;

use crate::cuda::{Gpu, GpuImpl};
use crate::gpu_record::{Outcome, Record};

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

impl GpuArgs {
    /// The PTX ISA version the variants must be legal with.
    fn legality_version(&self) -> PtxVersion {
        self.ptx_version.unwrap_or(PtxVersion::LATEST)
    }

    /// Where answers are judged: legality on --target with the ISA version.
    fn scope(&self) -> Scope {
        Scope { profile: self.profile, target: Some(self.target), version: Some(self.legality_version()) }
    }
}

/// Which answers `--out` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Keep {
    All,
    Open,
}

/// Cases of one variant: operands and destination width (natural widths).
type Cases = BTreeMap<Cvt, Vec<(Vec<Operand>, u32)>>;

/// Operands of natural register widths: the only ones the kernels take.
fn natural(c: &Case) -> bool {
    let shape = instr::shape(&c.instr);
    c.operands.iter().map(|o| o.width).eq(shape.srcs.iter().copied()) && c.dst_width() == c.instr.dtype.bits()
}

/// The cases to run (legality judged once per form by `judge`); errors come
/// formatted (`FILE:LINE: error: ...` or `error: ...`).
fn collect(a: &GpuArgs, judge: &mut Judge) -> Result<(Cases, usize), String> {
    let filter = crate::options::VariantFilter::new(&a.filters).map_err(|e| format!("error: {e}"))?;
    let mut cases: Cases = BTreeMap::new();
    let mut skipped = 0;
    for f in &crate::options::expand_sources(&a.files).map_err(|e| format!("error: {e}"))? {
        let text = fs::read_to_string(f).map_err(|e| format!("error: cannot read {f}: {e}"))?;
        for (n, line) in text.lines().enumerate() {
            let Some(c) = ptx_cvt::parse_case(line)
                .map_err(|e| format!("{}:{}: error: {e}", crate::options::input_name(f), n + 1))?
            else {
                continue;
            };
            let w = c.dst_width();
            if !natural(&c) || !filter.matches(&c.instr) || judge.legal(&c.instr, &c.operands, w) != Legal::Yes {
                skipped += 1;
                continue;
            }
            cases.entry(c.instr).or_default().push((c.operands, w));
        }
    }
    if a.exhaustive {
        for (c, _) in gen::legal_variants(&[(a.target, a.legality_version())]) {
            let shape = instr::shape(&c);
            let total: u32 = shape.srcs.iter().sum();
            let zeros: Vec<Operand> = shape.srcs.iter().map(|&width| Operand { bits: 0, width }).collect();
            let w = c.dtype.bits();
            if total > 16 || !filter.matches(&c) || judge.legal(&c, &zeros, w) != Legal::Yes {
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
                list.push((ops, w));
            }
        }
    }
    Ok((cases, skipped))
}

/// What a run has shown and counted so far.
struct Tally<'a> {
    a: &'a GpuArgs,
    failed: u64,
    shown: u64,
    check_time: Duration,
}

/// A variant's answers: the case lines `--keep` keeps, and the wrong ones
/// with the oracle's set.
struct Answers {
    lines: Vec<String>,
    wrong: Vec<(String, AcceptSet)>,
}

/// Run one variant through the shared loop and judge its answers, showing
/// mismatches as they come; `Err` (the driver's message) when it did not run.
fn variant(
    imp: &mut GpuImpl,
    judge: &mut Judge,
    c: &Cvt,
    list: &[(Vec<Operand>, u32)],
    t: &mut Tally,
) -> Result<Answers, String> {
    let (scope, a) = (judge.scope, t.a);
    let start = (std::time::Instant::now(), imp.device_time);
    let mut got: Vec<(u64, bool)> = Vec::with_capacity(list.len());
    let mut wrong = Vec::new();
    let mut failure = None;
    // One crash ends the batch: a failed launch answers none of it.
    runner::ask(imp, judge, c, list, 1, |k, event| {
        let (ops, w) = &list[k];
        match event {
            Event::Passed(b) => got.push((b, false)),
            Event::Wrong(b) => {
                got.push((b, true));
                wrong.push(wrong_answer(t, scope, c, ops, *w, b));
            }
            // Not expected (natural widths, a loaded kernel), but never lost.
            Event::Declined(e) | Event::Crashed(e) => {
                failure.get_or_insert(e);
            }
            Event::NotRun => {}
        }
        Flow::Go
    });
    if let Some(e) = failure {
        // A failed launch's bare message: reports add the variant themselves.
        return Err(imp.failure.as_ref().map_or(e, |f| f.message.clone()));
    }
    t.failed += wrong.len() as u64;
    // `--keep open` keeps the answers the oracle leaves open (several values
    // accepted), and the wrong ones.
    let keep: Vec<bool> = match a.keep {
        Keep::All => vec![true; list.len()],
        Keep::Open => list
            .par_iter()
            .zip(&got)
            .map(|((ops, w), (_, bad))| *bad || scope.accept(c, ops, *w).is_ok_and(|s| s.single().is_none()))
            .collect(),
    };
    let lines = list
        .iter()
        .zip(&got)
        .zip(keep)
        .filter(|(_, keep)| *keep)
        .map(|(((ops, w), (b, _)), _)| format_case(c, ops, &AcceptSet::exact(*w, *b)))
        .collect();
    t.check_time += start.0.elapsed() - (imp.device_time - start.1);
    Ok(Answers { lines, wrong })
}

/// A wrong answer's case line and the oracle's set; shown as a [`Mismatch`]
/// (its one evaluation) while --max-shown allows.
fn wrong_answer(t: &mut Tally, scope: Scope, c: &Cvt, ops: &[Operand], w: u32, got: u64) -> (String, AcceptSet) {
    let result = AcceptSet::exact(w, got);
    let line = format_case(c, ops, &result);
    if t.shown >= t.a.max_shown {
        return (line, scope.accept(c, ops, w).expect("a legal case"));
    }
    let case = Case { instr: *c, operands: ops.to_vec(), result: Some(result), comment: None };
    let m = Mismatch::of(Origin::default(), case, t.a.profile).expect("a legal case");
    t.shown += 1;
    if t.a.json {
        say!("{}", serde_json::json!({"mismatch": m.json(None)}));
    } else {
        say!("{}", m.text(None));
    }
    (line, m.outcome.accept)
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
    let mut judge = Judge::new(a.scope());
    let (cases, skipped) = match collect(&a, &mut judge) {
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
    let loaded = GpuImpl::with_kernels(gpu, &kernels, a.target, version);
    let load_time = start.elapsed();
    let mut imp = match loaded {
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
    let mut t = Tally { a: &a, failed: 0, shown: 0, check_time: Duration::ZERO };
    let mut errors = 0;
    let mut stopped = false;
    let mut broken: Option<String> = None;
    let mut write_time = Duration::ZERO;
    for c in &variants {
        let list = &cases[c];
        if a.max_failures.is_some_and(|m| t.failed >= m) {
            // The rest stay `not run` in summary.txt.
            stopped = true;
            break;
        }
        if let Some(why) = &broken {
            record.failed(c, why.clone());
            errors += 1;
            continue;
        }
        if let Some(e) = imp.refused(c) {
            fail!("{c}: {e}");
            record.failed(c, e.to_string());
            errors += 1;
            continue;
        }
        let answers = match variant(&mut imp, &mut judge, c, list, &mut t) {
            Ok(x) => x,
            Err(e) => {
                fail!("{c}: {e}");
                errors += 1;
                if imp.failure.as_ref().is_some_and(|f| f.sticky) {
                    eprintln!(
                        "error: the device cannot run anything after this error; the remaining variants are not run"
                    );
                    broken = Some(format!("not run: the device failed earlier ({c}: {e})"));
                }
                record.failed(c, e);
                continue;
            }
        };
        let w = std::time::Instant::now();
        record.ran(c, list.len(), &answers.lines, &answers.wrong);
        write_time += w.elapsed();
    }
    record.write_summary();
    eprintln!(
        "time: module load {:.1} s, device {:.1} s, check {:.1} s, writing {:.1} s, in all {:.1} s",
        load_time.as_secs_f64(),
        imp.device_time.as_secs_f64(),
        t.check_time.as_secs_f64(),
        write_time.as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    let (failed, shown) = (t.failed, t.shown);
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
