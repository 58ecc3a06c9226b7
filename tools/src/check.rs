//! `ptx-cvt check`: verify case lines against the oracle. The results come
//! from the lines themselves (a GPU dump, an emulator's output) or, with
//! `--target-cmd`/`--target-lib`, from an implementation run on every case
//! of the files. Mismatches are triaged into bug classes.

use std::collections::{HashMap, HashSet};
use std::io::{BufReader, Read};
use std::sync::{mpsc, Mutex};

use clap::Args;
use ptx_cvt::instr;
use ptx_cvt::{parse_case, AcceptSet, Case, Cvt, PtxVersion};
use ptx_cvt_harness::judge::{Judge, Legal};
use ptx_cvt_harness::lines::{blocks, count_newlines, lines, Piece};
use ptx_cvt_harness::runner::{self, Event, Flow};
use ptx_cvt_harness::{interrupt, Implementation, Mismatch, Triage};
use rayon::prelude::*;
use serde_json::{json, Value};

use crate::check_lines::{build_mismatch, Cache, Checker, Event as LineEvent, Path};
use crate::classes::{print_reports, ReportArgs};
use crate::implementation::ImplArgs;
use crate::EvalOpts;

const HELP: &str = "\
Without an implementation (--target-lib, --target-cmd, --target-ptx,
--device, --target-ptxas), every case line must carry its result
(`cvt.rn.f16.f32 3f801000 => 3c00`; lane syntax `3c00_3c00` too). With one,
the implementation answers every case of the files (operands and register
widths as written; a result in the file is ignored) and its answers are
checked: `ptx-cvt check --target-lib ./libmine.so vectors/compact`;
`--target-ptx CMD` runs an emulator's driver on whole test modules
(docs/checking.md, \"The module protocol\").
`--target-ptxas` checks ptxas's constant folder for --target (default
sm_90): `ptx-cvt check --target-ptxas --target sm_90 vectors/compact`
(cases it does not fold are declined as not folded by ptxas at -O3).

Output (one screen): the totals, then the bug classes, most cases first,
one per cause: what the implementation does instead (the catalogue
hypothesis that reproduces its answers, docs/diagnosis.md), or, where
nothing does, the rule that decides the wrong bits; each with its
variants as one glob and an example case. Then the declined
(unsupported) cases by reason. --class N prints every mismatch of class
N in full, --all every mismatch (without them, a run with at most three
mismatches prints those), --reproducers N adds PTX modules;
--table adds every variant's tally. Ends with `N passed, M failed`.

With --target (and --ptx-version), case lines whose instruction, at the
line's register widths, is legal but not on that target are skipped and
counted (`check --target sm_90 vectors/compact` checks the sm_90 forms of
every target's vectors); without --target every modelled form is checked.

Every case read ends as one of passed, failed, unsupported (declined),
crashed (the implementation died, hung past --timeout or answered garbage
while it was the case in flight; each is reported with its line) or not run
(the run stopped first); the totals show all five. A crash stops the run
unless --restart (a --target-cmd program) or --isolate (a --target-lib
library in worker processes) lets it go on with the rest.

Exit status: 0 all pass, 1 any mismatch (or, with --fail-on-unsupported, a
declined case), 2 errors: unreadable or malformed lines, illegal
instructions, crashed cases, adapter errors, no cases at all, or no case
answered (every one declined; --allow-empty accepts both).";

#[derive(Args)]
#[command(after_long_help = HELP)]
pub struct CheckArgs {
    /// Case files, or directories (every `*.cases` file in them); `-` for stdin.
    #[arg(required = true, value_name = "FILE|DIR")]
    files: Vec<String>,
    /// Print only the totals.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    report: ReportArgs,
    /// Stop after N mismatches; the summary still follows and says where it stopped.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_failures: Option<u64>,
    /// Only cases whose instruction matches this glob (`*`, `?`, `[…]`,
    /// `{a,b}`); repeatable, OR-ed.
    #[arg(long = "filter", value_name = "GLOB")]
    filters: Vec<String>,
    /// Exit 0 even when no case was checked or none was answered (default: exit 2).
    #[arg(long)]
    allow_empty: bool,
    /// Worker threads for checking recorded results and for the diagnosis
    /// (default: all cores; at most 256, or 4 per core where that is more).
    #[arg(long, value_parser = crate::options::parse_jobs)]
    jobs: Option<usize>,
    #[command(flatten)]
    imp: ImplArgs,
    #[command(flatten)]
    opts: EvalOpts,
}

/// Where `--max-failures` stopped the run.
struct Stop {
    file: String,
    line: usize,
    max: u64,
}

/// How far a run has gone: one state, which only moves forward.
enum State {
    /// Reading and checking.
    Going,
    /// The implementation failed and is not started again: the cases read
    /// from here on are counted as not run.
    Halted,
    /// `--max-failures` was reached at `at`; `after` is what became of the
    /// input after it.
    Limit { at: Stop, after: After },
    /// A signal stopped the run (interrupt.rs): nothing more was sent.
    Interrupted,
}

/// The input after the `--max-failures`-th mismatch.
#[derive(PartialEq)]
enum After {
    /// None met yet (the limit may fall on the last case).
    Unseen,
    /// Some was left unchecked: the summary says so.
    Unchecked,
    /// The limit fell inside a batch: the rest of the batch, and the case
    /// read to start the next, count as not run; the run ends.
    NotRun,
}

impl State {
    /// Whether more input is read.
    fn reading(&self) -> bool {
        matches!(self, State::Going | State::Halted)
    }

    /// Input was met after the limit: it and the rest stay unchecked.
    /// Whether the limit was reached.
    fn past_limit(&mut self) -> bool {
        match self {
            State::Limit { after, .. } => {
                if *after == After::Unseen {
                    *after = After::Unchecked;
                }
                true
            }
            _ => false,
        }
    }

    /// Where the run stopped early, if input was left unchecked after the limit.
    fn stopped_at(&self) -> Option<&Stop> {
        match self {
            State::Limit { at, after } if *after != After::Unseen => Some(at),
            _ => None,
        }
    }
}

/// A case waiting for the implementation's answer.
struct Pending {
    case: Case,
    line: usize,
}

struct Run<'a> {
    a: &'a CheckArgs,
    triage: Triage,
    filter: crate::options::VariantFilter,
    imp: Option<Box<dyn Implementation>>,
    /// Legality per form, and the verdict on the implementation's answers.
    judge: Judge,
    errors: u64,
    adapter_errors: u64,
    unreadable_files: u64,
    /// Cases left out by --natural-widths.
    skipped_widths: u64,
    /// Cases left out as not legal on --target.
    skipped_target: Skipped,
    /// How far the run has gone.
    state: State,
    /// Progress over the input's bytes (stderr, terminals only).
    bar: indicatif::ProgressBar,
}

pub fn run(a: CheckArgs) -> u8 {
    let filter = match crate::options::VariantFilter::new(&a.filters) {
        Ok(p) => p,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    let sources = match crate::options::expand_sources(&a.files) {
        Ok(s) => s,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    if let Some(n) = a.jobs {
        // The only pool of this process; an error means it exists already.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
    }
    let imp = match a.imp.open_for(a.opts.target) {
        Ok(i) => i,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    interrupt::install(crate::progress::INTERRUPT_NOTE);
    let total: Option<u64> =
        sources.iter().map(|f| std::fs::metadata(f).ok().filter(|m| f != "-" && m.is_file()).map(|m| m.len())).sum();
    let bar = crate::progress::bar(total, "{bar:20} {percent:>3}% of the input, eta {eta}: {msg}");
    let mut r = Run {
        a: &a,
        triage: Triage::new(a.opts.profile),
        filter,
        imp,
        judge: Judge::new(a.opts.scope()),
        errors: 0,
        adapter_errors: 0,
        unreadable_files: 0,
        skipped_widths: 0,
        skipped_target: Skipped::default(),
        state: State::Going,
        bar,
    };
    for f in &sources {
        // The limit was hit at the end of a file: the files left are the rest.
        r.state.past_limit();
        if !r.state.reading() {
            break;
        }
        let name = if f == "-" { "<stdin>" } else { f.as_str() };
        if r.imp.is_some() {
            let reader = match crate::common::open_input(f) {
                Ok(h) => h,
                Err(e) => {
                    fail!("{e}");
                    r.unreadable_files += 1;
                    continue;
                }
            };
            let reader = r.bar.wrap_read(reader);
            check_stream(&mut r, name, BufReader::new(reader));
        } else {
            let reader: Box<dyn Read + Send> = if f == "-" {
                Box::new(std::io::stdin())
            } else {
                match std::fs::File::open(f) {
                    Ok(h) => Box::new(h),
                    Err(e) => {
                        fail!("cannot read {f}: {e}");
                        r.unreadable_files += 1;
                        continue;
                    }
                }
            };
            let reader = Box::new(r.bar.wrap_read(reader));
            check_recorded_stream(&mut r, name, reader);
        }
    }
    r.bar.finish_and_clear();
    drop(r.imp.take());
    finish(&r)
}

/// Check the cases of a stream with the implementation's answers.
fn check_stream(r: &mut Run, name: &str, input: impl std::io::BufRead) {
    let mut pending: Vec<Pending> = Vec::new();
    for (n, line) in lines(input).enumerate() {
        let n = n + 1;
        if interrupt::requested() {
            // Read but never sent: the signal stopped the run.
            r.state = State::Interrupted;
            r.triage.not_run(pending.len() as u64);
            return;
        }
        let parsed = line.map_err(|e| e.to_string()).and_then(|l| parse_case(&l).map_err(|e| e.to_string()));
        let case = match parsed {
            Ok(None) => continue,
            Ok(Some(c)) => c,
            // A line after the limit: it and the rest stay unchecked.
            Err(_) if r.state.past_limit() => return,
            Err(e) => {
                line_error(r, name, n, &e);
                continue;
            }
        };
        if r.state.past_limit() {
            return;
        }
        if !r.filter.matches(&case.instr) {
            continue;
        }
        if r.a.imp.natural_widths && !natural(&case) {
            r.skipped_widths += 1;
            continue;
        }
        let halted = matches!(r.state, State::Halted);
        if halted && r.a.opts.target.is_none() {
            // Only counted: without --target no case is skipped, so the oracle need not see it.
            r.triage.not_run(1);
            continue;
        }
        match r.judge.legal(&case.instr, &case.operands, case.dst_width()) {
            Legal::Yes => {}
            Legal::Elsewhere => {
                r.skipped_target.add(case.instr, 1);
                continue;
            }
            Legal::No(e) => {
                line_error(r, name, n, &e);
                continue;
            }
        }
        if halted {
            r.triage.not_run(1);
            continue;
        }
        if pending.first().is_some_and(|p| p.case.instr != case.instr) || pending.len() as u64 >= r.a.imp.batch {
            ask(r, name, &mut pending);
            if matches!(r.state, State::Halted) {
                r.triage.not_run(1);
                continue;
            }
        }
        pending.push(Pending { case, line: n });
        if matches!(r.state, State::Limit { after: After::NotRun, .. }) {
            // Read, but never sent: --max-failures stopped the run.
            r.triage.not_run(pending.len() as u64);
            return;
        }
    }
    ask(r, name, &mut pending);
}

/// Whether every register is exactly as wide as its type.
fn natural(c: &Case) -> bool {
    let shape = instr::shape(&c.instr);
    c.operands.iter().map(|o| o.width).eq(shape.srcs.iter().copied()) && c.dst_width() == c.instr.dtype.bits()
}

fn line_error(r: &mut Run, name: &str, n: usize, e: &str) {
    r.errors += 1;
    if r.a.opts.json {
        say!("{}", json!({"error": {"file": name, "line": n, "message": e}}));
    } else {
        r.bar.suspend(|| eprintln!("{name}:{n}: error: {e}"));
    }
}

/// Bytes per block of a results file (`PTX_CVT_CHECK_BLOCK` sets it, and
/// `PTX_CVT_CHECK_PATH` the [`Path`] lines pass by: for tests).
fn block_size() -> usize {
    std::env::var("PTX_CVT_CHECK_BLOCK").ok().and_then(|v| v.parse().ok()).unwrap_or(1 << 18)
}

/// Blocks read ahead of the one being checked: memory stays a few blocks.
const BLOCKS_AHEAD: usize = 2;

/// Check lines that carry their results: a thread reads blocks of whole
/// lines, the pool checks each block's parts in parallel, and the verdicts
/// are applied here in file order, exactly as line by line.
fn check_recorded_stream(r: &mut Run, name: &str, input: Box<dyn Read + Send>) {
    let threads = rayon::current_num_threads();
    let parts = threads * 4;
    let (tx, rx) = mpsc::sync_channel::<(Piece, Vec<(usize, usize, usize)>)>(BLOCKS_AHEAD);
    // Checked blocks go back to the reader to be filled again.
    let (give_back, returned) = mpsc::channel::<Vec<u8>>();
    let block = block_size();
    // Detached: when --max-failures stops the check, the reader ends at its next send.
    std::thread::spawn(move || {
        let mut reader = blocks(input, block);
        while let Some(piece) = reader.next() {
            let split = match &piece {
                Piece::Lines { first, text } => split_lines(text, *first, parts),
                Piece::Bad { .. } => Vec::new(),
            };
            if tx.send((piece, split)).is_err() {
                return;
            }
            for buf in returned.try_iter() {
                reader.recycle(buf);
            }
        }
    });
    let a = r.a;
    let filter = crate::options::VariantFilter::new(&a.filters).expect("checked at the start");
    let checker = Checker {
        opts: &a.opts,
        filter: &filter,
        name,
        path: match std::env::var("PTX_CVT_CHECK_PATH").as_deref() {
            Ok("exact") => Path::Exact,
            Ok("line") => Path::Line,
            _ => Path::Fast,
        },
    };
    let caches: Vec<Mutex<Cache>> = (0..=threads).map(|_| Mutex::default()).collect();
    let mut passes: HashMap<Cvt, u64> = HashMap::new();
    for (piece, split) in rx {
        let events: Vec<Vec<LineEvent>> = match piece {
            Piece::Lines { text, .. } => {
                let events = split
                    .par_iter()
                    .map(|&(start, end, first)| {
                        let i = rayon::current_thread_index().unwrap_or(threads).min(threads);
                        let mut cache = caches[i].lock().unwrap_or_else(|p| p.into_inner());
                        checker.check(&text[start..end], first, &mut cache)
                    })
                    .collect();
                let _ = give_back.send(text);
                events
            }
            Piece::Bad { line, error } => vec![vec![LineEvent::Error(line, error.to_string())]],
        };
        if !apply(r, name, events.into_iter().flatten(), &mut passes) {
            break;
        }
    }
    for (c, n) in passes {
        r.triage.passed_n(&c, n);
    }
}

/// Up to `parts` ranges of whole lines of `text` (start, end, first line number).
fn split_lines(text: &[u8], first: usize, parts: usize) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::with_capacity(parts);
    let (mut start, mut line) = (0, first);
    let step = text.len().div_ceil(parts.max(1)).max(1);
    while start < text.len() {
        let end = match text[(start + step).min(text.len())..].iter().position(|&b| b == b'\n') {
            Some(i) => start + step + i + 1,
            None => text.len(),
        };
        out.push((start, end, line));
        line += count_newlines(&text[start..end]);
        start = end;
    }
    out
}

/// Apply a block's events in order; false once --max-failures stops the file.
fn apply(r: &mut Run, name: &str, events: impl Iterator<Item = LineEvent>, passes: &mut HashMap<Cvt, u64>) -> bool {
    if interrupt::requested() {
        r.state = State::Interrupted;
        return false;
    }
    for e in events {
        if r.state.past_limit() {
            // A line after the limit: it and the rest stay unchecked.
            return false;
        }
        match e {
            LineEvent::Passes(c, n) => *passes.entry(c).or_default() += n,
            LineEvent::Filtered => {}
            LineEvent::Skipped(c, n) => r.skipped_target.add(c, n),
            LineEvent::Error(n, e) => line_error(r, name, n, &e),
            LineEvent::Mismatch(n, m) => report_mismatch(r, name, n, *m),
        }
    }
    true
}

/// Ask the implementation for the pending cases (one instruction) and
/// check its answers; every case ends as one outcome (see [`settle`]).
fn ask(r: &mut Run, name: &str, pending: &mut Vec<Pending>) {
    match &mut r.state {
        _ if pending.is_empty() => return,
        // Counted as not run when the limit cut their batch.
        State::Limit { after: After::NotRun, .. } => {
            pending.clear();
            return;
        }
        // Read after the limit: not sent.
        State::Limit { after, .. } => {
            r.triage.not_run(pending.len() as u64);
            *after = After::NotRun;
            pending.clear();
            return;
        }
        _ => {}
    }
    if interrupt::requested() {
        r.state = State::Interrupted;
        r.triage.not_run(pending.len() as u64);
        pending.clear();
        return;
    }
    let batch = std::mem::take(pending);
    let c: Cvt = batch[0].case.instr;
    let cases: Vec<(Vec<ptx_cvt::Operand>, u32)> =
        batch.iter().map(|p| (p.case.operands.clone(), p.case.dst_width())).collect();
    let max_crashes = if r.a.imp.goes_on_after_errors() { u64::MAX } else { 1 };
    let mut imp = r.imp.take().expect("an implementation");
    let imp_name = imp.name();
    let mut judge = std::mem::replace(&mut r.judge, Judge::new(r.a.opts.scope()));
    let ran = runner::ask(imp.as_mut(), &mut judge, &c, &cases, max_crashes, |k, event| {
        let p = &batch[k];
        match event {
            Event::Passed(bits) => r.triage.passed_case(&c, &p.case.operands, p.case.dst_width(), bits),
            Event::Wrong(bits) => {
                let w = p.case.dst_width();
                let case = Case { result: Some(AcceptSet::exact(w, bits)), ..p.case.clone() };
                mismatch(r, name, p.line, case);
            }
            Event::Declined(why) => r.triage.unsupported(&c, &why),
            Event::Crashed(e) => crashed(r, name, p, &imp_name, &e),
            Event::NotRun => r.triage.not_run(1),
        }
        match &mut r.state {
            State::Limit { after, .. } => {
                *after = After::NotRun;
                Flow::Stop
            }
            _ => Flow::Go,
        }
    });
    r.judge = judge;
    r.imp = Some(imp);
    r.triage.not_run(ran.cut);
    if ran.cut > 0 {
        return;
    }
    r.bar.set_message(crate::progress::tally(&r.triage));
    if let Some(why) = ran.stopped {
        r.bar.suspend(|| eprintln!("{why}{}; the cases left are counted as not run", r.a.imp.go_on_hint()));
        if r.state.reading() {
            r.state = State::Halted;
        }
    }
}

/// Count and report a case the implementation crashed on.
fn crashed(r: &mut Run, name: &str, p: &Pending, imp_name: &str, e: &str) {
    r.adapter_errors += 1;
    r.triage.crashed();
    let case = ptx_cvt_harness::process::request_line(&p.case.instr, &p.case.operands, p.case.dst_width());
    if r.a.opts.json {
        say!(
            "{}",
            json!({"crashed": {"file": name, "line": p.line, "case": case, "implementation": imp_name, "message": e}})
        );
    } else {
        r.bar.suspend(|| eprintln!("{name}:{}: crashed on `{case}`: {imp_name}: {e}", p.line));
    }
}

fn mismatch(r: &mut Run, name: &str, n: usize, case: Case) {
    match build_mismatch(&r.a.opts, name, n, case) {
        Ok(m) => report_mismatch(r, name, n, m),
        Err(e) => line_error(r, name, n, &e),
    }
}

fn report_mismatch(r: &mut Run, name: &str, n: usize, m: Mismatch) {
    r.triage.mismatch(&m);
    let failed = r.triage.cases().1;
    if r.a.max_failures.is_some_and(|m| failed >= m) {
        r.state = State::Limit { at: Stop { file: name.to_string(), line: n, max: failed }, after: After::Unseen };
    }
}

fn stop_text(s: &Stop) -> String {
    format!(
        "stopped early at {}:{} after {} mismatch(es) (--max-failures); the rest was not checked",
        s.file, s.line, s.max
    )
}

fn finish(r: &Run) -> u8 {
    let counts = r.triage.counts();
    let (passed, failed, unsupported) = (counts.passed, counts.failed, counts.unsupported);
    let (crashed, not_run) = (counts.crashed, counts.not_run);
    let empty = counts.total() == 0;
    // Every case declined: nothing was checked.
    let unanswered = !empty && passed + failed == 0 && crashed == 0;
    let g = r.triage.group();
    if let Some(n) = r.a.report.class.filter(|n| *n as usize > g.classes.len()) {
        fail!("--class {n}: the run has {} bug class(es)", g.classes.len());
        return 2;
    }
    if r.errors > 0 {
        eprintln!("{} line(s) could not be checked", r.errors);
    }
    if r.unreadable_files > 0 {
        eprintln!("{} file(s) could not be read", r.unreadable_files);
    }
    if r.skipped_widths > 0 {
        eprintln!("{} case(s) with wider registers left out (--natural-widths)", r.skipped_widths);
    }
    let skipped = &r.skipped_target;
    if skipped.cases > 0 {
        let first = skipped.instrs.first().map(|c| c.to_string()).unwrap_or_default();
        let n = skipped.instrs.len();
        eprintln!("{} case(s) skipped: not legal on {} ({n} instruction(s), e.g. {first})", skipped.cases, r.on());
    }
    let stop = r.state.stopped_at();
    let interrupted = matches!(r.state, State::Interrupted);
    if let Some(s) = stop {
        eprintln!("{}", stop_text(s));
    }
    if interrupted {
        eprintln!(
            "interrupted: the report covers the cases checked before the signal; the rest of the input was not read"
        );
    }
    if empty && !r.allow_empty() {
        if skipped.cases > 0 {
            eprintln!(
                "error: no cases: all cases were skipped as not legal on {} (--allow-empty accepts that)",
                r.on()
            );
        } else {
            fail!("no cases: nothing was checked (--allow-empty accepts that)");
        }
    }
    if unanswered && !r.allow_empty() {
        fail!("no case was answered: {unsupported} declined (--allow-empty accepts that)");
    }
    let mut printed = 0;
    if !r.a.quiet {
        let version = r.a.opts.ptx_version.unwrap_or(PtxVersion::LATEST);
        printed = print_reports(&r.triage, &g, r.a.report.showing(), r.a.opts.json, r.a.opts.target, version);
    }
    if r.a.opts.json {
        let mut s: Value = r.triage.json(&g);
        s["errors"] = json!(r.errors);
        s["adapter_errors"] = json!(r.adapter_errors);
        s["unreadable_files"] = json!(r.unreadable_files);
        s["skipped_widths"] = json!(r.skipped_widths);
        s["skipped_target"] = json!(skipped.cases);
        s["stopped_early"] = json!(stop.map(|s| json!({"file": s.file, "line": s.line, "max_failures": s.max})));
        s["interrupted"] = json!(interrupted);
        say!("{}", json!({"summary": s}));
    } else {
        if !r.a.quiet && (failed > 0 || unsupported > 0 || crashed > 0 || not_run > 0 || r.a.report.table) {
            if printed > 0 {
                say!("");
            }
            say!("{}", r.triage.text(&g, r.a.report.table));
        }
        if crashed > 0 || not_run > 0 {
            say!("{passed} passed, {failed} failed, {crashed} crashed, {not_run} not run");
        } else {
            say!("{passed} passed, {failed} failed");
        }
    }
    if interrupted {
        interrupt::EXIT_CODE
    } else if r.errors > 0
        || r.unreadable_files > 0
        || r.adapter_errors > 0
        || ((empty || unanswered) && !r.allow_empty())
    {
        2
    } else if failed > 0 || (unsupported > 0 && r.a.imp.fail_on_unsupported) {
        1
    } else {
        0
    }
}

impl Run<'_> {
    fn allow_empty(&self) -> bool {
        self.a.allow_empty
    }

    /// `sm_90 with PTX ISA 9.5`: what the skipped cases are not legal on.
    fn on(&self) -> String {
        let t = self.a.opts.target.map_or_else(|| "the target".to_string(), |t| t.to_string());
        format!("{t} with PTX ISA {}", self.a.opts.ptx_version.unwrap_or(PtxVersion::LATEST))
    }
}

/// Cases not legal on --target: how many, and their instructions in the
/// order first met.
#[derive(Default)]
struct Skipped {
    cases: u64,
    instrs: Vec<Cvt>,
    seen: HashSet<Cvt>,
}

impl Skipped {
    fn add(&mut self, c: Cvt, n: u64) {
        self.cases += n;
        if self.seen.insert(c) {
            self.instrs.push(c);
        }
    }
}
