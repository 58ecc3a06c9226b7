//! `ptx-cvt fuzz`: drive an implementation under test (a program speaking
//! case lines, or a shared library) with generated and random inputs and
//! compare every answer with the oracle's acceptance set.
//!
//! Inputs, per variant, round-robin over the variants: first every case of
//! the oracle's compact generator (`gen::cases`), then batches that mix the
//! generator's seed-dependent cases under fresh seeds, structured cases with
//! a few bits flipped, and uniformly random operands in the same registers.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use ptx_cvt::gen::{self, GenCase, SeededRng as Rng};
use ptx_cvt::{format_case, instr, AcceptSet, Case, Cvt, Profile, PtxVersion, Target};
use ptx_cvt_harness::fuzz_inputs::FuzzInputs;
use ptx_cvt_harness::judge::{Judge, Legal, Scope};
use ptx_cvt_harness::runner::{self, Event, Flow};
use ptx_cvt_harness::{interrupt, Implementation, Mismatch, Origin, Triage};

use crate::classes::{print_reports, ReportArgs};
use serde_json::json;

use crate::implementation::ImplArgs;
use crate::options::TargetSet;

const PROTOCOL_HELP: &str = "\
Process protocol (--target-cmd):
  The command runs once as `sh -c 'CMD'`. For each case, ptx-cvt writes one
  line to its stdin: the instruction, the source operands in hex (zero-padded
  to their register width: 2, 4, 8 or 16 digits) and `=>` followed by one `?`
  per hex digit of the destination register, which tells its width:
      cvt.rn.f16.f32 3f801000 => ????
      cvt.s16.s8 139231c2 => ????????
  For each line, in order, the program writes one line to stdout: the same
  case with the result as exact hex of that many digits (a `# comment` may
  follow):
      cvt.rn.f16.f32 3f801000 => 3c00
      cvt.s16.s8 139231c2 => ffffffc2
  Lines are sent in batches before answers are read, so flush stdout after
  every answer (Python: print(..., flush=True)). A line `error: MESSAGE`
  declines a case (e.g. an unsupported instruction): it counts as
  unsupported for its variant and the run goes on. Diagnostics go to stderr.
  Stdin is closed at the end. Case lines are specified in vectors/README.md.
  A shared library (--target-lib) declines a case by returning non-zero.

Failures of the implementation (it exits or dies, hangs past --timeout,
answers garbage) are adapter errors: the case in flight counts as crashed,
reported with the exit status and the program's last stderr lines; the run
stops unless --restart (a program) or --isolate (a library in worker
processes), which start it again and send it the rest of the batch.

Output (as `check`'s): the totals, the bug classes (one per cause: what the
implementation does instead, docs/diagnosis.md) with an example each, the
unsupported cases by reason (--table: every variant's tally). --class N:
every mismatch of class N in full; --all: every mismatch.

Exit status: 0 no mismatch, 1 mismatches (or declined cases with
--fail-on-unsupported), 2 adapter errors or bad options.

Examples:
  ptx-cvt fuzz --target-cmd 'python3 examples/toy-interp/toy_interp.py' \\
      --filter 'cvt.{rn.f16.f32,rzi.s32.f64,s32.s8}' --seconds 5
  ptx-cvt fuzz --target-lib ./libmycvt.so --symbol cvt_impl --filter 'cvt.*.f16.f32'
  ptx-cvt fuzz --target-cmd ./my-interp --record run.cases && ptx-cvt check run.cases
  ptx-cvt fuzz --target-ptxas --target sm_90 --filter 'cvt.rni.*.f64' --seconds 30";

#[derive(Args)]
#[command(after_long_help = PROTOCOL_HELP)]
pub struct FuzzArgs {
    #[command(flatten)]
    imp: ImplArgs,
    /// Only variants whose canonical spelling matches this glob (`*`, `?`,
    /// `[…]`, and `{a,b}` alternatives), e.g. 'cvt.*.f16.f32'. Repeatable; the
    /// patterns are OR-ed. Default: every variant legal on --target.
    #[arg(long = "filter", value_name = "GLOB")]
    filters: Vec<String>,
    /// Target whose legal variants are fuzzed, or `all`: every form legal on
    /// some target ptxas 13.5 knows. The variants the filter names that are
    /// not legal there are listed as left out.
    #[arg(long, default_value = "sm_90", value_parser = crate::options::parse_target_set)]
    target: TargetSet,
    /// PTX ISA version for legality (default: the newest known, 9.5).
    #[arg(long, value_parser = crate::parse_version)]
    ptx_version: Option<PtxVersion>,
    /// Time budget in seconds (0: none; then --cases or --max-failures ends the run).
    #[arg(long, value_name = "N", default_value_t = 10.0, allow_negative_numbers = true,
          value_parser = crate::options::parse_seconds_or_zero)]
    seconds: f64,
    /// Stop after N cases.
    #[arg(long, value_name = "N")]
    cases: Option<u64>,
    /// Seed for the inputs: the same seed sends the same cases (as on `gen`,
    /// default 1); give another for other inputs (the summary prints it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop after N mismatches, or (with --restart/--isolate) N adapter errors
    /// (default: run until --seconds or --cases).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_failures: Option<u64>,
    #[command(flatten)]
    report: ReportArgs,
    /// Evidence profile of the expected results: `sm90` or `isa`.
    #[arg(long, default_value = "sm90", value_parser = |s: &str| s.parse::<Profile>())]
    profile: Profile,
    /// Write every case with the implementation's answer as case lines to FILE
    /// (re-check them with `ptx-cvt check FILE`).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// JSON Lines on stdout: `{"mismatch": …}` per mismatch reported in full
    /// (with its `bug_class`),
    /// `{"adapter_error": …}`, then one `{"summary": …}`.
    #[arg(long)]
    json: bool,
}

/// One fuzzed variant: its inputs (harness::fuzz_inputs) and what was skipped.
struct Variant {
    inputs: FuzzInputs,
    /// Inputs not sent: invalid operands, or not natural widths.
    skipped: u64,
}

impl Variant {
    fn new(c: Cvt) -> Variant {
        Variant { inputs: FuzzInputs::new(c), skipped: 0 }
    }
}

struct Run<'a> {
    a: &'a FuzzArgs,
    version: PtxVersion,
    triage: Triage,
    /// The oracle's verdict on each answer.
    judge: Judge,
    mismatches: u64,
    cases: u64,
    errors: u64,
    record: Option<BufWriter<File>>,
    record_error: Option<String>,
}

pub fn run(a: FuzzArgs) -> u8 {
    match fuzz(&a) {
        Ok(code) => code,
        Err(e) => {
            fail!("{e}");
            2
        }
    }
}

/// The single --target, if one was given (not `all`).
fn one_target(a: &FuzzArgs) -> Option<Target> {
    match a.target {
        TargetSet::One(t) => Some(t),
        TargetSet::All => None,
    }
}

/// `sm_90` or `every target`: where the fuzzed variants are legal.
fn target_text(a: &FuzzArgs) -> String {
    one_target(a).map_or_else(|| "some target".to_string(), |t| t.to_string())
}

/// The variants to fuzz (legal on the target and matching a filter), and
/// those the filter names that are legal only elsewhere.
fn variants(a: &FuzzArgs, version: PtxVersion) -> Result<(Vec<Cvt>, Vec<Cvt>), String> {
    if let Some(t) = one_target(a) {
        if let Some(min) = t.min_version().filter(|m| version < *m) {
            return Err(format!("target {t} needs PTX ISA {min} or later, not {version}"));
        }
    }
    let filter = crate::options::VariantFilter::new(&a.filters)?;
    // The filter first: legality on 26 targets is only checked for what it names.
    let named: Vec<Cvt> = gen::all_spellings().into_iter().filter(|c| filter.matches(c)).collect();
    let targets = crate::options::flatten_targets(&[TargetSet::All], version);
    let legal_on = |c: &Cvt, t: Target| instr::check(c, gen::natural_regs(c), Some(t), Some(version)).is_ok();
    let chosen: Vec<Cvt> = match one_target(a) {
        Some(t) => named.iter().copied().filter(|c| legal_on(c, t)).collect(),
        None => named.iter().copied().filter(|c| targets.iter().any(|&t| legal_on(c, t))).collect(),
    };
    // Named but left out: legal elsewhere (only worth saying when a filter named them).
    let elsewhere: Vec<Cvt> = if a.filters.is_empty() {
        Vec::new()
    } else {
        named.iter().copied().filter(|c| !chosen.contains(c) && targets.iter().any(|&t| legal_on(c, t))).collect()
    };
    if chosen.is_empty() {
        let mut e = crate::options::no_match(&filter, &format!("legal on {} (PTX ISA {version})", target_text(a)));
        if !elsewhere.is_empty() {
            e.push_str(&format!(
                "; {} variant(s) it names are legal elsewhere: --target all fuzzes them",
                elsewhere.len()
            ));
        }
        return Err(e);
    }
    Ok((chosen, elsewhere))
}

fn fuzz(a: &FuzzArgs) -> Result<u8, String> {
    if !a.imp.given() {
        return Err(
            "name the implementation under test: --target-cmd CMD, --target-lib PATH, --device N or --target-ptxas"
                .into(),
        );
    }
    let version = a.ptx_version.unwrap_or(PtxVersion::LATEST);
    let (chosen, left_out) = variants(a, version)?;
    if !left_out.is_empty() && !a.filters.is_empty() {
        let names: Vec<String> = left_out.iter().take(3).map(|c| c.to_string()).collect();
        let more = if left_out.len() > 3 { ", …" } else { "" };
        eprintln!(
            "note: left out {} variant(s) the filter names that are not legal on {} ({}{more}); --target all fuzzes every form",
            left_out.len(),
            target_text(a),
            names.join(", ")
        );
    }
    let seed = a.seed;
    let record = match &a.record {
        None => None,
        Some(p) => {
            crate::output::check_output_file(p)?;
            Some(BufWriter::new(File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))?))
        }
    };
    let mut imp = a.imp.open_for(one_target(a))?.expect("given");
    let budget = (a.seconds > 0.0).then(|| Duration::from_secs_f64(a.seconds));
    let plan = format!(
        "fuzzing {} on {} variant(s) legal on {}; seed {seed}, profile {}, {}",
        imp.name(),
        chosen.len(),
        target_text(a),
        a.profile,
        match (budget, a.cases) {
            (Some(_), Some(n)) => format!("for {} s or {n} cases", a.seconds),
            (Some(_), None) => format!("for {} s", a.seconds),
            (None, Some(n)) => format!("for {n} cases"),
            (None, None) => "until --max-failures".to_string(),
        }
    );
    if a.json {
        eprintln!("{plan}");
    } else {
        say!("{plan}");
    }
    let mut r = Run {
        a,
        version,
        triage: Triage::new(a.profile),
        judge: Judge::new(Scope { profile: a.profile, target: None, version: None }),
        mismatches: 0,
        cases: 0,
        errors: 0,
        record,
        record_error: None,
    };
    if let Some(w) = r.record.as_mut() {
        let line = format!(
            "# ptx-cvt fuzz record: {}\n# seed {seed}, profile {}, target {}; results are the implementation's answers\n",
            imp.name(),
            a.profile,
            target_text(a)
        );
        if let Err(e) = w.write_all(line.as_bytes()) {
            r.record_error = Some(e.to_string());
        }
    }
    let mut vs: Vec<Variant> = chosen.into_iter().map(Variant::new).collect();
    let mut rng = Rng::new(seed ^ 0x5eed_f022);
    let start = Instant::now();
    let mut stop: Option<String> = None;
    let mut interrupted = false;
    let mut exhausted = 0usize;
    interrupt::install(crate::progress::INTERRUPT_NOTE);
    // Progress in milliseconds of the budget, else in cases.
    let bar = match (budget, a.cases) {
        (Some(b), _) => crate::progress::bar(Some(b.as_millis() as u64), "{bar:20} {elapsed}: {msg}"),
        (None, Some(n)) => crate::progress::bar(Some(n), "{bar:20} {pos}/{len} cases: {msg}"),
        (None, None) => crate::progress::bar(None, "{elapsed}: {msg}"),
    };
    'outer: loop {
        let mut any = false;
        for v in vs.iter_mut() {
            if budget.is_some_and(|b| start.elapsed() >= b) {
                break 'outer;
            }
            if interrupt::requested() {
                interrupted = true;
                stop = Some(format!("interrupted after {} cases: the report covers them", r.cases));
                break 'outer;
            }
            let room = a.cases.map_or(u64::MAX, |n| n.saturating_sub(r.cases));
            if room == 0 {
                stop = Some(format!("stopped after {} cases (--cases)", r.cases));
                break 'outer;
            }
            let mut batch = v.inputs.batch((a.imp.batch.min(room)) as usize, seed, &mut rng);
            if batch.is_empty() {
                continue;
            }
            any = true;
            if a.imp.natural_widths {
                let shape = instr::shape(&v.inputs.c);
                let before = batch.len();
                batch.retain(|g| {
                    g.operands.iter().map(|o| o.width).eq(shape.srcs.iter().copied())
                        && g.dst_width == v.inputs.c.dtype.bits()
                });
                v.skipped += (before - batch.len()) as u64;
            }
            let stopped = run_batch(&mut r, imp.as_mut(), v, batch);
            bar.set_position(if budget.is_some() { start.elapsed().as_millis() as u64 } else { r.cases });
            bar.set_message(format!("{} cases, {}", r.cases, crate::progress::tally(&r.triage)));
            if let Some(s) = stopped {
                stop = Some(s);
                break 'outer;
            }
        }
        if !any {
            exhausted += 1;
            if exhausted > 1 {
                break;
            }
        }
    }
    bar.finish_and_clear();
    let elapsed = start.elapsed();
    if let Some(w) = r.record.as_mut() {
        if let Err(e) = w.flush() {
            r.record_error.get_or_insert(e.to_string());
        }
    }
    summary(&r, &vs, elapsed, seed, stop.as_deref(), interrupted);
    drop(imp);
    if let Some(e) = &r.record_error {
        fail!("writing {}: {e}", a.record.as_ref().unwrap().display());
        return Ok(2);
    }
    let unsupported = r.triage.cases().2;
    Ok(if interrupted {
        interrupt::EXIT_CODE
    } else if r.errors > 0 {
        2
    } else if r.mismatches > 0 || (unsupported > 0 && a.imp.fail_on_unsupported) {
        1
    } else {
        0
    })
}

/// Evaluate one batch on the oracle and the implementation and compare.
/// Returns why the run must stop, if it must.
fn run_batch(r: &mut Run, imp: &mut dyn Implementation, v: &mut Variant, batch: Vec<GenCase>) -> Option<String> {
    let c = v.inputs.c;
    let mut asked = Vec::with_capacity(batch.len());
    for g in batch {
        match r.judge.legal(&c, &g.operands, g.dst_width) {
            Legal::Yes => asked.push((g.operands, g.dst_width)),
            // Not a valid input for this form (the generator's cases all are).
            _ => v.skipped += 1,
        }
    }
    if asked.is_empty() {
        return None;
    }
    let max_crashes = match (r.a.imp.goes_on_after_errors(), r.a.max_failures) {
        (false, _) => 1,
        (true, Some(m)) => m.saturating_sub(r.errors).max(1),
        (true, None) => u64::MAX,
    };
    let imp_name = imp.name();
    let mut judge =
        std::mem::replace(&mut r.judge, Judge::new(Scope { profile: r.a.profile, target: None, version: None }));
    let ran = runner::ask(imp, &mut judge, &c, &asked, max_crashes, |k, event| {
        let (ops, w) = &asked[k];
        r.cases += 1;
        match &event {
            Event::Passed(bits) | Event::Wrong(bits) => record(r, &c, ops, *w, *bits),
            Event::Declined(why) => r.triage.unsupported(&c, why),
            Event::Crashed(e) => {
                r.triage.crashed();
                adapter_error(r, &imp_name, e);
            }
            Event::NotRun => r.triage.not_run(1),
        }
        match event {
            Event::Passed(bits) => r.triage.passed_case(&c, ops, *w, bits),
            Event::Wrong(bits) => {
                let case =
                    Case { instr: c, operands: ops.clone(), result: Some(AcceptSet::exact(*w, bits)), comment: None };
                // Evaluated again with the explanation, which the report shows.
                let m = Mismatch::of(Origin::default(), case, r.a.profile).expect("evaluated once already");
                r.mismatches += 1;
                r.triage.mismatch(&m);
                // The rest of the batch stays unchecked (and unrecorded).
                if r.a.max_failures.is_some_and(|m| r.mismatches >= m) {
                    return Flow::Stop;
                }
            }
            _ => {}
        }
        Flow::Go
    });
    r.judge = judge;
    if ran.cut > 0 {
        r.cases += ran.cut;
        r.triage.not_run(ran.cut);
        return Some(format!("stopped after {} mismatches (--max-failures)", r.mismatches));
    }
    if r.a.imp.goes_on_after_errors() && r.a.max_failures.is_some_and(|m| r.errors >= m) {
        return Some(format!("stopped after {} adapter errors (--max-failures)", r.errors));
    }
    if let Some(why) = ran.stopped {
        if !r.a.imp.goes_on_after_errors() {
            return Some(format!("stopped at the adapter error above{}", r.a.imp.go_on_hint()));
        }
        return Some(why);
    }
    None
}

/// Write an answer to the --record file (a write error is kept for the end).
fn record(r: &mut Run, c: &Cvt, ops: &[ptx_cvt::Operand], w: u32, bits: u64) {
    if let Some(f) = r.record.as_mut().filter(|_| r.record_error.is_none()) {
        let line = format_case(c, ops, &AcceptSet::exact(w, bits));
        if let Err(e) = writeln!(f, "{line}") {
            r.record_error = Some(e.to_string());
        }
    }
}

fn adapter_error(r: &mut Run, imp_name: &str, e: &str) {
    r.errors += 1;
    if r.a.json {
        say!("{}", json!({"adapter_error": {"implementation": imp_name, "message": e}}));
    } else {
        fail!("{imp_name}: {e}");
    }
}

/// Most cases per second, as text.
fn rate(n: u64, d: Duration) -> String {
    let s = d.as_secs_f64();
    if s <= 0.0 {
        return "-".into();
    }
    format!("{:.0}", n as f64 / s)
}

/// Variants listed one by one in the summary (without --table) when there are at most this many.
const LIST_ALL: usize = 30;

fn summary(r: &Run, vs: &[Variant], elapsed: Duration, seed: u64, stop: Option<&str>, interrupted: bool) {
    let tried = r.triage.variants.len();
    let skipped: u64 = vs.iter().map(|v| v.skipped).sum();
    let counts = r.triage.counts();
    let (passed, failed, unsupported) = (counts.passed, counts.failed, counts.unsupported);
    let g = r.triage.group();
    let printed = print_reports(&r.triage, &g, r.a.report.showing(), r.a.json, one_target(r.a), r.version);
    if r.a.json {
        let mut s = r.triage.json(&g);
        s["seed"] = json!(seed);
        s["seconds"] = json!(elapsed.as_secs_f64());
        s["variants_chosen"] = json!(vs.len());
        s["variants_tried"] = json!(tried);
        s["skipped_inputs"] = json!(skipped);
        s["adapter_errors"] = json!(r.errors);
        s["stopped"] = json!(stop);
        s["interrupted"] = json!(interrupted);
        say!("{}", json!({"summary": s}));
        return;
    }
    if printed > 0 {
        say!("");
    }
    if let Some(s) = stop {
        say!("{s}");
    }
    say!(
        "{} cases in {:.1} s ({} cases/s) over {tried} of {} variant(s); seed {seed} (rerun with --seed {seed})",
        r.cases,
        elapsed.as_secs_f64(),
        rate(r.cases, elapsed),
        vs.len()
    );
    if skipped > 0 {
        say!("{skipped} input(s) skipped (not valid operands of their form, or not natural widths)");
    }
    say!("{}", r.triage.text(&g, r.a.report.table || tried <= LIST_ALL));
    let extra = [
        (unsupported, "unsupported"),
        (counts.crashed, "crashed"),
        (counts.not_run, "not run"),
        (r.errors, "adapter error(s)"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, w)| format!(", {n} {w}"))
    .collect::<String>();
    say!("{passed} passed, {failed} failed{extra}");
}
