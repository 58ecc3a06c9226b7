//! `ptx-cvt fuzz`: drive an implementation under test (a program speaking
//! case lines, or a shared library) with generated and random inputs and
//! compare every answer with the oracle's acceptance set.
//!
//! Inputs, per variant, round-robin over the variants: first every case of
//! the oracle's compact generator (`gen::cases`), then batches that mix the
//! generator's seed-dependent cases under fresh seeds, structured cases with
//! a few bits flipped, and uniformly random operands in the same registers.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use ptx_cvt::accept::width_mask;
use ptx_cvt::gen::{self, GenCase, Level, SeededRng as Rng};
use ptx_cvt::{
    evaluate, evaluate_accept, format_case, instr, AcceptSet, Case, Cvt, Implementation, Outcome, Profile, PtxVersion,
    Regs, Rule, Target,
};

use crate::common::{describe_bits, describe_set};
use crate::process::ProcessImpl;
use crate::reproducer::{case_line, default_target, ptx_snippet};

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
  declines a case (e.g. an unsupported instruction). Diagnostics go to stderr.
  Stdin is closed at the end. Case lines are specified in vectors/README.md.

Failures of the implementation (it exits or dies, hangs past --timeout,
answers garbage or `error:`) are adapter errors: reported with the case, the
exit status and the program's last stderr lines; the run stops unless
--restart.

Exit status: 0 no mismatch, 1 mismatches, 2 adapter errors or bad options.

Examples:
  ptx-cvt fuzz --target-cmd 'python3 examples/toy-interp/toy_interp.py' \\
      --filter 'cvt.{rn.f16.f32,rzi.s32.f64,s32.s8}' --seconds 5
  ptx-cvt fuzz --target-lib ./libmycvt.so --symbol cvt_impl --filter 'cvt.*.f16.f32'
  ptx-cvt fuzz --target-cmd ./my-interp --record run.cases && ptx-cvt check run.cases";

#[derive(Args)]
#[command(after_long_help = PROTOCOL_HELP)]
pub struct FuzzArgs {
    /// Program under test, run as `sh -c 'CMD'` and spoken to in case lines
    /// over stdin/stdout (protocol: see --help).
    #[arg(long, value_name = "CMD", required_unless_present = "target_lib", conflicts_with = "target_lib")]
    target_cmd: Option<String>,
    /// Shared library under test (C ABI, see capi/include/ptx_cvt_impl.h).
    #[arg(long, value_name = "PATH")]
    target_lib: Option<PathBuf>,
    /// Symbol of the conversion function in --target-lib.
    #[arg(long, value_name = "NAME", default_value = "cvt_impl")]
    symbol: String,
    /// Only variants whose canonical spelling matches this glob (`*`, `?`,
    /// `[…]`, and `{a,b}` alternatives), e.g. 'cvt.*.f16.f32'. Repeatable; the
    /// patterns are OR-ed. Default: every variant legal on --target.
    #[arg(long = "filter", value_name = "GLOB")]
    filters: Vec<String>,
    /// Target whose legal variants are fuzzed.
    #[arg(long, default_value = "sm_90", value_parser = crate::parse_target)]
    target: Target,
    /// PTX ISA version for legality (default: the newest known, 9.5).
    #[arg(long, value_parser = crate::parse_version)]
    ptx_version: Option<PtxVersion>,
    /// Time budget in seconds (0: none; then --cases or --max-failures ends the run).
    #[arg(long, value_name = "N", default_value_t = 10.0, value_parser = crate::options::parse_seconds_or_zero)]
    seconds: f64,
    /// Stop after N cases.
    #[arg(long, value_name = "N")]
    cases: Option<u64>,
    /// Seed for the inputs (default: from the clock; the summary prints it).
    #[arg(long)]
    seed: Option<u64>,
    /// Stop after N distinct failures (a failure is an instruction and the
    /// rule that decides the expected result; repeats are counted, not
    /// printed). With --all: after N mismatches.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    max_failures: u64,
    /// Print every mismatch, not only the first of each failure.
    #[arg(long)]
    all: bool,
    /// Show a ready-to-assemble PTX module for the first N failures (0: none).
    #[arg(long, value_name = "N", default_value_t = 5)]
    reproducers: u64,
    /// Evidence profile of the expected results: `sm90` or `isa`.
    #[arg(long, default_value = "sm90", value_parser = |s: &str| s.parse::<Profile>())]
    profile: Profile,
    /// Seconds to wait for each answer of a --target-cmd program.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = crate::options::parse_seconds)]
    timeout: f64,
    /// Start the --target-cmd program again after it fails, and go on
    /// (each failure is still reported; the exit status is then 2).
    #[arg(long)]
    restart: bool,
    /// Cases sent to the implementation at once.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    batch: u64,
    /// Write every case with the implementation's answer as case lines to FILE
    /// (re-check them with `ptx-cvt check FILE`).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
}

/// Where the inputs of one variant come from, and what it has seen.
struct Variant {
    c: Cvt,
    /// The compact generator's cases at the user's seed (made on first use).
    structured: Option<Vec<GenCase>>,
    /// Next structured case to send.
    next: usize,
    /// Seed-dependent generator cases under a fresh seed, not yet sent.
    fresh: Vec<GenCase>,
    /// Fresh seeds used so far.
    reseeds: u64,
    /// Whether fresh seeds still give new cases.
    seeds_help: bool,
    cases: u64,
    mismatches: u64,
    skipped: u64,
    /// First mismatch: its reproducer case line.
    first: Option<String>,
}

impl Variant {
    fn new(c: Cvt) -> Variant {
        Variant {
            c,
            structured: None,
            next: 0,
            fresh: Vec::new(),
            reseeds: 0,
            seeds_help: true,
            cases: 0,
            mismatches: 0,
            skipped: 0,
            first: None,
        }
    }

    /// The next batch of at most `n` cases.
    fn batch(&mut self, n: usize, seed: u64, rng: &mut Rng) -> Vec<GenCase> {
        let structured = self.structured.get_or_insert_with(|| gen::cases(&self.c, Level::Compact, seed));
        if structured.is_empty() {
            return Vec::new();
        }
        if self.next < structured.len() {
            let end = (self.next + n).min(structured.len());
            let b = structured[self.next..end].to_vec();
            self.next = end;
            return b;
        }
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            match rng.below(3) {
                0 if self.seeds_help => {
                    if self.fresh.is_empty() {
                        self.refill_fresh(seed);
                        continue;
                    }
                    out.push(self.fresh.pop().expect("not empty"));
                }
                1 => {
                    // A structured case with one to three bits flipped in one operand.
                    let s = self.structured.as_ref().expect("made above");
                    let mut g = s[rng.below(s.len() as u64) as usize].clone();
                    let k = rng.below(g.operands.len() as u64) as usize;
                    let w = g.operands[k].width;
                    for _ in 0..=rng.below(3) {
                        g.operands[k].bits ^= 1u64 << rng.below(w as u64);
                    }
                    out.push(g);
                }
                _ => {
                    // Uniformly random bits in the registers of a structured case.
                    let s = self.structured.as_ref().expect("made above");
                    let mut g = s[rng.below(s.len() as u64) as usize].clone();
                    for o in &mut g.operands {
                        o.bits = rng.next() & width_mask(o.width);
                    }
                    out.push(g);
                }
            }
        }
        out
    }

    /// Generator cases under the next fresh seed that the user's seed did not give.
    fn refill_fresh(&mut self, seed: u64) {
        let structured = self.structured.as_ref().expect("made before");
        let known: HashSet<(Vec<(u64, u32)>, u32)> = structured.iter().map(key).collect();
        for _ in 0..4 {
            self.reseeds += 1;
            let s = seed.wrapping_add(self.reseeds.wrapping_mul(0x9e37_79b9));
            self.fresh =
                gen::cases(&self.c, Level::Compact, s).into_iter().filter(|g| !known.contains(&key(g))).collect();
            if !self.fresh.is_empty() {
                return;
            }
        }
        // Its generator cases do not depend on the seed (small sources).
        self.seeds_help = false;
    }
}

fn key(g: &GenCase) -> (Vec<(u64, u32)>, u32) {
    (g.operands.iter().map(|o| (o.bits, o.width)).collect(), g.dst_width)
}

/// One distinct failure: an instruction and the rule deciding the expected result.
struct Failure {
    variant: String,
    rule: Rule,
    count: u64,
    first: String,
}

struct Run<'a> {
    a: &'a FuzzArgs,
    version: PtxVersion,
    failures: Vec<Failure>,
    index: HashMap<(String, Rule), usize>,
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
            eprintln!("error: {e}");
            2
        }
    }
}

/// The variants to fuzz: legal on the target and matching a filter.
fn variants(a: &FuzzArgs, version: PtxVersion) -> Result<Vec<Cvt>, String> {
    if let Some(min) = a.target.min_version().filter(|m| version < *m) {
        return Err(format!("target {} needs PTX ISA {min} or later, not {version}", a.target));
    }
    let filter = crate::options::VariantFilter::new(&a.filters)?;
    let legal = gen::legal_variants(&[(a.target, version)]);
    let chosen: Vec<Cvt> = legal.iter().map(|(c, _)| *c).filter(|c| filter.matches(c)).collect();
    if chosen.is_empty() {
        return Err(format!(
            "no variant legal on {} (PTX ISA {version}) matches --filter {} (`ptx-cvt list --target {}` lists them)",
            a.target,
            filter.describe(),
            a.target
        ));
    }
    Ok(chosen)
}

/// The implementation under test.
enum Under {
    /// A program: answers come one by one, so those before a failure count.
    Process(ProcessImpl),
    Other(Box<dyn Implementation>),
}

impl Under {
    fn name(&self) -> String {
        match self {
            Under::Process(p) => p.name(),
            Under::Other(i) => i.name(),
        }
    }
    /// The answers up to the first failure, and the failure.
    fn eval_partial(&mut self, c: &Cvt, cases: &[(Vec<ptx_cvt::Operand>, u32)]) -> (Vec<u64>, Option<String>) {
        match self {
            Under::Process(p) => p.eval_partial(c, cases),
            Under::Other(i) => match i.eval_batch(c, cases) {
                Ok(g) if g.len() == cases.len() => (g, None),
                Ok(g) => {
                    (Vec::new(), Some(format!("answered {} results to a batch of {} cases", g.len(), cases.len())))
                }
                Err(e) => (Vec::new(), Some(e)),
            },
        }
    }
    /// Whether the run goes on after a failure.
    fn restarts(&self, a: &FuzzArgs) -> bool {
        matches!(self, Under::Process(_)) && a.restart
    }
}

fn open(a: &FuzzArgs) -> Result<Under, String> {
    if let Some(cmd) = &a.target_cmd {
        if !(a.timeout > 0.0 && a.timeout.is_finite()) {
            return Err(format!("--timeout must be a positive number of seconds, not {}", a.timeout));
        }
        return Ok(Under::Process(ProcessImpl::spawn(cmd, Duration::from_secs_f64(a.timeout), a.restart)?));
    }
    let path = a.target_lib.as_ref().expect("clap requires --target-cmd or --target-lib");
    Ok(Under::Other(open_library(path, &a.symbol)?))
}

/// --target-lib: the one place the shared-library adapter is constructed.
fn open_library(path: &std::path::Path, symbol: &str) -> Result<Box<dyn Implementation>, String> {
    crate::shared_lib::SharedLib::open(path, symbol).map(|l| Box::new(l) as Box<dyn Implementation>)
}

fn fuzz(a: &FuzzArgs) -> Result<u8, String> {
    if !(a.seconds >= 0.0 && a.seconds.is_finite()) {
        return Err(format!("--seconds must be a number of seconds ≥ 0, not {}", a.seconds));
    }
    let version = a.ptx_version.unwrap_or(PtxVersion::LATEST);
    let chosen = variants(a, version)?;
    let seed = a.seed.unwrap_or_else(|| {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        t.as_nanos() as u64 % 1_000_000_000
    });
    let record = match &a.record {
        None => None,
        Some(p) => {
            crate::output::check_output_file(p)?;
            Some(BufWriter::new(File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))?))
        }
    };
    let mut imp = open(a)?;
    let budget = (a.seconds > 0.0).then(|| Duration::from_secs_f64(a.seconds));
    say!(
        "fuzzing {} on {} variant(s) legal on {}; seed {seed}, profile {}, {}",
        imp.name(),
        chosen.len(),
        a.target,
        a.profile,
        match (budget, a.cases) {
            (Some(_), Some(n)) => format!("for {} s or {n} cases", a.seconds),
            (Some(_), None) => format!("for {} s", a.seconds),
            (None, Some(n)) => format!("for {n} cases"),
            (None, None) => "until --max-failures".to_string(),
        }
    );
    let mut r = Run {
        a,
        version,
        failures: Vec::new(),
        index: HashMap::new(),
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
            a.target
        );
        if let Err(e) = w.write_all(line.as_bytes()) {
            r.record_error = Some(e.to_string());
        }
    }
    let mut vs: Vec<Variant> = chosen.into_iter().map(Variant::new).collect();
    let mut rng = Rng::new(seed ^ 0x5eed_f022);
    let start = Instant::now();
    let mut stop: Option<String> = None;
    let mut exhausted = 0usize;
    'outer: loop {
        let mut any = false;
        for v in vs.iter_mut() {
            if budget.is_some_and(|b| start.elapsed() >= b) {
                break 'outer;
            }
            let room = a.cases.map_or(u64::MAX, |n| n.saturating_sub(r.cases));
            if room == 0 {
                stop = Some(format!("stopped after {} cases (--cases)", r.cases));
                break 'outer;
            }
            let batch = v.batch((a.batch.min(room)) as usize, seed, &mut rng);
            if batch.is_empty() {
                continue;
            }
            any = true;
            if let Some(s) = run_batch(&mut r, &mut imp, v, batch) {
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
    let elapsed = start.elapsed();
    if let Some(w) = r.record.as_mut() {
        if let Err(e) = w.flush() {
            r.record_error.get_or_insert(e.to_string());
        }
    }
    summary(&r, &vs, elapsed, seed, stop.as_deref());
    drop(imp);
    if let Some(e) = &r.record_error {
        eprintln!("error: writing {}: {e}", a.record.as_ref().unwrap().display());
        return Ok(2);
    }
    Ok(if r.errors > 0 {
        2
    } else if r.mismatches > 0 {
        1
    } else {
        0
    })
}

/// Evaluate one batch on the oracle and the implementation and compare.
/// Returns why the run must stop, if it must.
fn run_batch(r: &mut Run, imp: &mut Under, v: &mut Variant, batch: Vec<GenCase>) -> Option<String> {
    let mut asked = Vec::with_capacity(batch.len());
    let mut outcomes = Vec::with_capacity(batch.len());
    for g in batch {
        match evaluate_accept(&v.c, &g.operands, g.dst_width, r.a.profile) {
            Ok(o) => {
                asked.push((g.operands, g.dst_width));
                outcomes.push(o);
            }
            // Not a valid input for this form (the generator's cases all are).
            Err(_) => v.skipped += 1,
        }
    }
    if asked.is_empty() {
        return None;
    }
    let (got, failure) = imp.eval_partial(&v.c, &asked);
    for (((ops, w), o), bits) in asked.iter().zip(&outcomes).zip(&got) {
        r.cases += 1;
        v.cases += 1;
        if let Some(f) = r.record.as_mut().filter(|_| r.record_error.is_none()) {
            let line = format_case(&v.c, ops, &AcceptSet::exact(*w, *bits));
            if let Err(e) = writeln!(f, "{line}") {
                r.record_error = Some(e.to_string());
            }
        }
        if !o.contains(*bits) {
            let case =
                Case { instr: v.c, operands: ops.clone(), result: Some(AcceptSet::exact(*w, *bits)), comment: None };
            // Evaluated again with the explanation, which the report shows.
            let o = evaluate(&v.c, ops, *w, r.a.profile).expect("evaluated once already");
            mismatch(r, v, &case, &o);
            if let Some(stop) = failure_limit(r) {
                // The rest of the batch stays unchecked (and unrecorded).
                if let Some(e) = failure {
                    r.errors += 1;
                    eprintln!("error: {}: {e}", imp.name());
                }
                return Some(stop);
            }
        }
    }
    if let Some(e) = failure {
        r.errors += 1;
        eprintln!("error: {}: {e}", imp.name());
        if !imp.restarts(r.a) {
            let hint =
                if matches!(imp, Under::Process(_)) { " (--restart starts the program again and goes on)" } else { "" };
            return Some(format!("stopped at the adapter error above{hint}"));
        }
        if r.errors >= r.a.max_failures {
            return Some(format!("stopped after {} adapter errors (--max-failures)", r.errors));
        }
    }
    None
}

/// Why the run stops after the latest mismatch, if the --max-failures limit is reached.
fn failure_limit(r: &Run) -> Option<String> {
    if r.a.all {
        (r.mismatches >= r.a.max_failures)
            .then(|| format!("stopped after {} mismatches (--max-failures)", r.mismatches))
    } else {
        (r.failures.len() as u64 >= r.a.max_failures)
            .then(|| format!("stopped after {} distinct failures (--max-failures)", r.failures.len()))
    }
}

fn mismatch(r: &mut Run, v: &mut Variant, case: &Case, o: &Outcome) {
    let rule = crate::check::mismatch_rule(case, o);
    let repro = case_line(case, &o.accept);
    r.mismatches += 1;
    v.mismatches += 1;
    v.first.get_or_insert_with(|| repro.clone());
    let k = (v.c.to_string(), rule);
    let new = !r.index.contains_key(&k);
    if new {
        r.index.insert(k.clone(), r.failures.len());
        r.failures.push(Failure { variant: k.0.clone(), rule, count: 0, first: repro.clone() });
    }
    r.failures[r.index[&k]].count += 1;
    if !(new || r.a.all) {
        return;
    }
    let c = &case.instr;
    let got = case.result.as_ref().expect("has the answer");
    let operands: Vec<String> = case.operands.iter().map(|x| ptx_cvt::eval::fmt_hex(x.bits, x.width)).collect();
    say!("");
    say!("MISMATCH {c} {}", operands.join(" "));
    say!("  input    {} {} = {}", c.atype.name(), operands.join(" "), o.inputs_text());
    say!("  expected {}", describe_set(c, &o.accept));
    say!("  got      {}", describe_bits(c, got.single().expect("exact"), got.width));
    say!("  rule     {} [{}]: {}", rule.name(), rule.evidence().tag(), rule.text());
    say!("  class    {}", gen::coverage::classify(c, o));
    say!("  case     {repro}");
    if (r.failures.len() as u64) <= r.a.reproducers && new {
        let expected = Case { result: Some(o.accept.clone()), comment: None, ..case.clone() };
        let regs = Regs { dst: expected.dst_width(), src: case.operands.first().map_or(c.atype.bits(), |x| x.width) };
        let target = if instr::check(c, regs, Some(r.a.target), Some(r.version)).is_ok() {
            r.a.target
        } else {
            default_target(&expected, r.version)
        };
        say!("  ptx      (assemble with ptxas -arch=<the .target>)");
        for l in ptx_snippet(&expected, target, r.version).lines() {
            say!("    {l}");
        }
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

/// Variants listed one by one in the summary when there are at most this many.
const LIST_ALL: usize = 30;

fn summary(r: &Run, vs: &[Variant], elapsed: Duration, seed: u64, stop: Option<&str>) {
    say!("");
    if let Some(s) = stop {
        say!("{s}");
    }
    let tried: Vec<&Variant> = vs.iter().filter(|v| v.cases > 0).collect();
    say!(
        "{} cases in {:.1} s ({} cases/s) over {} of {} variant(s); seed {seed} (rerun with --seed {seed})",
        r.cases,
        elapsed.as_secs_f64(),
        rate(r.cases, elapsed),
        tried.len(),
        vs.len()
    );
    let failing: Vec<&&Variant> = tried.iter().filter(|v| v.mismatches > 0).collect();
    let listed: Vec<&Variant> =
        if tried.len() <= LIST_ALL { tried.clone() } else { failing.iter().map(|v| **v).collect() };
    if !listed.is_empty() {
        say!("per variant:");
        let w = listed.iter().map(|v| v.c.to_string().len()).max().unwrap_or(0);
        say!("  {:<w$}  {:>9}  {:>10}", "variant", "cases", "mismatches");
        for v in &listed {
            let first = v.first.as_deref().map(|f| format!("  first: {f}")).unwrap_or_default();
            say!("  {:<w$}  {:>9}  {:>10}{first}", v.c.to_string(), v.cases, v.mismatches);
        }
        if listed.len() < tried.len() {
            let rest: u64 = tried.iter().filter(|v| v.mismatches == 0).map(|v| v.cases).sum();
            say!("  … {} other variant(s) passed all {rest} of their cases", tried.len() - listed.len());
        }
    }
    let skipped: u64 = vs.iter().map(|v| v.skipped).sum();
    if skipped > 0 {
        say!("{skipped} random input(s) skipped (not valid operands of their form)");
    }
    if !r.failures.is_empty() {
        say!("failures (instruction, deciding rule):");
        for f in &r.failures {
            say!("  {:>8}  {} / {}  first: {}", f.count, f.variant, f.rule.name(), f.first);
        }
    }
    say!(
        "{} passed, {} failed{}",
        r.cases - r.mismatches,
        r.mismatches,
        if r.errors > 0 { format!(", {} adapter error(s)", r.errors) } else { String::new() }
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_start_structured_then_vary() {
        let c = instr::parse("cvt.rn.f16.f32").unwrap();
        let mut v = Variant::new(c);
        let mut rng = Rng::new(1);
        let all = gen::cases(&c, Level::Compact, 7);
        let mut seen = Vec::new();
        while seen.len() < all.len() {
            seen.extend(v.batch(100, 7, &mut rng));
        }
        assert_eq!(seen, all);
        let more = v.batch(300, 7, &mut rng);
        assert_eq!(more.len(), 300);
        let known: HashSet<_> = all.iter().map(key).collect();
        assert!(more.iter().filter(|g| !known.contains(&key(g))).count() > 100);
        assert!(v.reseeds > 0);
    }
}
