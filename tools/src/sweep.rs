//! `ptx-cvt sweep`: every input of one variant (or a range), at natural
//! register widths, through the fast engine on all cores; optionally
//! compared with a results file or an external implementation, optionally
//! written out as case lines; always summarised by an order-independent
//! digest.
//!
//! # Input space
//!
//! The source registers at natural widths decide the space: all 2^8, 2^16
//! or 2^32 values of an 8-, 16- or 32-bit source (packed sources included:
//! `e4m3x2` is 16 bits, `f16x2` 32). Several source operands (`x2` from two
//! f32) are one input number, the operands concatenated with the first in
//! the high bits (`ptx_cvt_harness::atlas::Space`). More than 32 bits need
//! `--range`; more than 64 (`.rs` forms) are not supported.
//!
//! # Shards
//!
//! `--shard K/N` (0 ≤ K < N) splits the space (the whole one, or `--range`)
//! into N contiguous shards of nearly equal size and sweeps shard K: inputs
//! `[start + len·K/N, start + len·(K+1)/N)` (integer division), so the N
//! shards cover the space exactly once. Use the array index as K, e.g.
//! `--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT` or
//! `--shard $JOB_COMPLETION_INDEX/N` in a Kubernetes indexed Job.
//!
//! # Digest
//!
//! `digest = Σ splitmix64(x · K ⊕ r) mod 2^64` over the swept inputs, where
//! `x` is the source register's value, `r` the destination register's bits
//! (natural width, zero-extended), `K = 0xd6e8feb86659fd93` and `splitmix64`
//! the SplitMix64 output function
//! (`z += 0x9e3779b97f4a7c15; z = (z ^ z>>30)·0xbf58476d1ce4e5b9;
//! z = (z ^ z>>27)·0x94d049bb133111eb; z ^ z>>31`). Where the sm90 result is
//! a set (a NaN whose bits the profile leaves open, tf32's open low bits),
//! `r` is its representative: the canonical NaN (sign clear, all fraction
//! bits set), open bits zero. The sum does not depend on the order of the
//! inputs, so the digests of the N shards add up (mod 2^64) to the digest of
//! the whole space, and two implementations can be compared by digest alone.

use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use indicatif::ProgressBar;
use ptx_cvt::fast::{self, FastResult};
use ptx_cvt::instr;
use ptx_cvt::{parse_case, AcceptSet, Case, Cvt, Operand, Profile};
use ptx_cvt_harness::atlas::Space;
use ptx_cvt_harness::judge::{Judge, Scope};
use ptx_cvt_harness::runner::{self, Event, Flow};
use ptx_cvt_harness::{interrupt, Implementation, Mismatch, Origin};
use rayon::prelude::*;
use serde_json::json;

use crate::implementation::ImplArgs;
use crate::output::{write_stdout, AtomicFile};

const HELP: &str = "\
Input space: all values of the source register at its natural width (2^8,
2^16 or 2^32; packed sources included). Several source operands (x2 from
two f32) form one input number: the operands concatenated, the first in the
high bits (0x3f80000040000000 is a=3f800000 b=40000000). Sources of more
than 32 bits in total need --range; .rs forms (over 64 bits) are not supported.

--range START..END sweeps [START, END); START..=END includes END. Numbers
are decimal or 0x-prefixed hex, e.g. --range 0x3f800000..0x40000000.

--shard K/N splits the space (or the range) into N contiguous shards
[start + len*K/N, start + len*(K+1)/N) and sweeps shard K (0-based), e.g.
--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT. The shards' digests add
up (wrapping, mod 2^64) to the digest of the whole space.

Digest: sum mod 2^64 over the inputs x of splitmix64(x * 0xd6e8feb86659fd93
XOR r), r the result register's bits (for a set result, e.g. a NaN the
profile leaves open: the canonical NaN, sign clear, all fraction bits set;
tf32's open low bits: zero). splitmix64(z): z += 0x9e3779b97f4a7c15;
z = (z ^ z>>30) * 0xbf58476d1ce4e5b9; z = (z ^ z>>27) * 0x94d049bb133111eb;
z ^ z>>31. It does not depend on input order.

--against FILE: every case line in FILE (hardware dumps, an interpreter's
output) must be the swept instruction and match the fast engine (sm90
profile); cases outside the swept range or shard are skipped.
--target-cmd / --target-lib: an implementation answers every swept input
(protocol: see `ptx-cvt fuzz --help`).

Exit status: 0 no mismatch, 1 mismatches, 2 errors (bad options, unreadable
or malformed lines, implementation failures).

Examples:
  ptx-cvt sweep cvt.rn.f16.f32                       # all 2^32 inputs, digest
  ptx-cvt sweep cvt.rn.f16.f32 --shard 3/16          # one of 16 array jobs
  ptx-cvt sweep cvt.f32.f16 --against gpu-dump.cases
  ptx-cvt sweep cvt.rn.f32.f64 --range 0x3ff0000000000000..0x3ff0000001000000
  ptx-cvt sweep cvt.rn.bf16.f32 --range 0..0x1000000 --out bf16.cases";

#[derive(Args)]
#[command(after_long_help = HELP)]
pub struct SweepArgs {
    /// The instruction, e.g. `cvt.rn.f16.f32`.
    instr: String,
    /// Sweep only source values in START..END (END excluded) or START..=END;
    /// decimal or 0x-prefixed hex. Required for 64-bit sources.
    #[arg(long, value_name = "START..END", value_parser = parse_range)]
    range: Option<(u128, u128)>,
    /// Sweep shard K of N contiguous shards (0-based: 0 ≤ K < N).
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<(u64, u64)>,
    /// Case lines whose results must all match the fast engine (`-`: stdin);
    /// a directory of vectors stands for its file of the swept variant.
    #[arg(long, value_name = "FILE|DIR")]
    against: Option<String>,
    #[command(flatten)]
    imp: ImplArgs,
    /// Write every swept input with its result as case lines to FILE (a
    /// regular file, written atomically: nothing is left on an error), or
    /// to stdout with `-` (the report then goes to stderr).
    /// Needs --range or at most 2^24 inputs, unless --force (2^32 lines are ~100 GB).
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Allow --out on more than 2^24 inputs without --range.
    #[arg(long)]
    force: bool,
    /// Stop after N mismatches (the digest is then incomplete); the summary still follows.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_failures: Option<u64>,
    /// Print at most N mismatches (all are counted).
    #[arg(long, value_name = "N", default_value_t = 20, alias = "show")]
    max_shown: u64,
    /// Worker threads (default: all cores; at most 256, or 4 per core where that is more).
    #[arg(long, value_parser = crate::options::parse_jobs)]
    jobs: Option<usize>,
    /// Accept an --against file that holds no case line (default: "no cases", exit 2).
    #[arg(long)]
    allow_empty: bool,
    /// JSON Lines: one object per shown mismatch, then `{"summary": ...}`.
    #[arg(long)]
    json: bool,
}

fn parse_num(s: &str) -> Result<u128, String> {
    let t = s.trim();
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u128::from_str_radix(&h.replace('_', ""), 16),
        None => t.replace('_', "").parse::<u128>(),
    };
    r.map_err(|_| format!("`{t}` is not a number (decimal, or hex with 0x)"))
}

/// `START..END` or `START..=END` as a half-open `[start, end)`.
pub fn parse_range(s: &str) -> Result<(u128, u128), String> {
    let (a, b, inclusive) = if let Some((a, b)) = s.split_once("..=") {
        (a, b, true)
    } else if let Some((a, b)) = s.split_once("..") {
        (a, b, false)
    } else {
        return Err(format!("`{s}`: expected START..END or START..=END"));
    };
    let (start, end) = (parse_num(a)?, parse_num(b)? + inclusive as u128);
    if start >= end {
        return Err(format!("`{s}` is empty"));
    }
    if end > 1u128 << 64 {
        return Err(format!("`{s}` goes beyond 64-bit registers"));
    }
    Ok((start, end))
}

/// `K/N` with 0 ≤ K < N.
pub fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("`{s}`: expected K/N with 0 <= K < N, e.g. 0/4");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n) = (k.trim().parse::<u64>().map_err(|_| bad())?, n.trim().parse::<u64>().map_err(|_| bad())?);
    if n == 0 || k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The digest's mixing constant (odd, so `x · K` is a bijection).
use ptx_cvt_harness::digest::digest_term;

/// Inputs per parallel task of the plain sweep.
const CHUNK: u64 = 1 << 20;
/// Inputs per task when results are kept (for --out or an implementation).
const KEPT_CHUNK: u64 = 1 << 16;
/// Inputs written with --out without --range or --force.
const OUT_LIMIT: u128 = 1 << 24;

/// Where --out case lines go.
enum Sink {
    File(AtomicFile),
    Stdout,
}

/// What went wrong or differed.
#[derive(Default)]
struct Tally {
    mismatches: u64,
    errors: u64,
    shown: u64,
    /// --against: cases checked, skipped as outside the swept inputs.
    file_checked: u64,
    file_outside: u64,
    file_mismatches: u64,
    /// Implementation: cases compared, declined.
    target_compared: u64,
    target_unsupported: u64,
    target_mismatches: u64,
    /// --max-failures was reached.
    stopped: bool,
    /// A signal stopped the run between batches of the implementation.
    interrupted: bool,
    /// --against: case lines read (inside or outside the swept inputs).
    file_cases: u64,
}

impl Tally {
    /// Whether --max-failures says stop now.
    fn stop(&mut self, a: &SweepArgs) -> bool {
        self.stopped |= a.max_failures.is_some_and(|m| self.mismatches >= m);
        self.stopped
    }
}

fn hex(bits: u128, width: u32) -> String {
    format!("{bits:0w$x}", w = width.div_ceil(4) as usize)
}

pub fn run(a: SweepArgs) -> u8 {
    let c = match instr::parse(&a.instr) {
        Ok(c) => c,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    let shape = instr::shape(&c);
    let space = Space::of(&c);
    if space.bits > 64 {
        eprintln!(
            "error: {c} takes {} source operands ({}): {} bits in all, more than the 64 a sweep's input number holds",
            shape.srcs.len(),
            shape.describe(),
            space.bits
        );
        return 2;
    }
    let src_width = space.bits;
    let dst_width = c.dtype.bits();
    // Legality (and the plan) at natural widths, once, before anything runs.
    if let Err(e) = fast::evaluate(&c, &space.operands(0), dst_width) {
        fail!("{e}");
        return 2;
    }
    let space = 1u128 << src_width;
    let (lo, hi) = match a.range {
        Some((s, e)) if e > space => {
            eprintln!(
                "error: --range {}..{} goes beyond the {src_width}-bit source of {c} (at most 0x{:x})",
                hex(s, 1),
                hex(e, 1),
                space
            );
            return 2;
        }
        Some(r) => r,
        None if src_width > 32 => {
            eprintln!(
                "error: {c} has {src_width} source bits: its 2^{src_width} inputs cannot all be swept; give a --range, e.g. --range 0x3ff0000000000000..0x3ff0000001000000"
            );
            return 2;
        }
        None => (0, space),
    };
    let (k, n) = a.shard.unwrap_or((0, 1));
    let len = hi - lo;
    let (start, end) = (lo + len * k as u128 / n as u128, lo + len * (k as u128 + 1) / n as u128);
    let count = end - start;
    if let Some(out) = &a.out {
        let line = c.to_string().len() + 1 + src_width as usize / 4 + 4 + dst_width as usize / 4 + 1;
        let gb = count as f64 * line as f64 / 1e9;
        if count > OUT_LIMIT && a.range.is_none() && !a.force {
            eprintln!(
                "error: --out would write {count} lines (~{gb:.0} GB) to {}: give a --range, or --force, or drop --out and compare digests",
                out.display()
            );
            return 2;
        }
        if count > OUT_LIMIT {
            eprintln!("warning: writing {count} lines (~{gb:.1} GB) to {}", out.display());
        }
    }
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(a.jobs.unwrap_or(0)).build() {
        Ok(p) => p,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    let mut t = Tally::default();
    let started = Instant::now();

    // The results file first: it is streamed, so it may be as large as the space.
    let against = match a.against.as_deref().map(|f| against_file(f, &c)).transpose() {
        Ok(f) => f,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    if let Some(f) = &against {
        check_file(f, &c, (start, end), &a, &mut t);
        if t.file_cases == 0 && t.errors == 0 && !a.allow_empty {
            fail!("no cases in {} (--allow-empty accepts that)", crate::options::input_name(f));
            return 2;
        }
    }

    let mut target: Option<Box<dyn Implementation>> = match a.imp.open() {
        Ok(t) => t,
        Err(e) => {
            fail!("{e}");
            return 2;
        }
    };
    let mut out = match &a.out {
        None => None,
        Some(p) if p.as_os_str() == "-" => {
            if a.json {
                fail!("--json prints the report on stdout: give --out a file, not `-`");
                return 2;
            }
            crate::output::report_to_stderr();
            Some(Sink::Stdout)
        }
        Some(p) => match AtomicFile::create(p) {
            Ok(f) => Some(Sink::File(f)),
            Err(e) => {
                fail!("{e}");
                return 2;
            }
        },
    };

    let bar = crate::atlas::bar(count.min(u64::MAX as u128) as u64, a.json);
    if target.is_some() {
        interrupt::install(crate::progress::INTERRUPT_NOTE);
    }
    let sweep_started = Instant::now();
    let (digest, done, swept) = if t.stopped {
        (0, 0, false)
    } else if out.is_none() && target.is_none() {
        (pool.install(|| plain_sweep(&c, start, end, &bar)), count, true)
    } else {
        kept_sweep(&pool, &c, (start, end), dst_width, &mut out, &mut target, &a, &mut t, &bar)
    };
    bar.finish_and_clear();
    let sweep_secs = sweep_started.elapsed().as_secs_f64();
    let secs = started.elapsed().as_secs_f64();
    // Written in whole or not at all: an error or an early stop leaves no file.
    if let Some(Sink::File(w)) = out {
        if t.errors > 0 || !swept {
            drop(w);
            eprintln!("note: {} not written (the sweep did not complete)", a.out.as_ref().unwrap().display());
        } else if let Err(e) = w.commit() {
            fail!("{e}");
            t.errors += 1;
        }
    }
    let rate = done as f64 / sweep_secs.max(1e-9) / 1e6;
    let range_text = format!("{}..{}", hex(start, src_width), hex(end, src_width));
    if a.json {
        let mut v = json!({
            "instruction": c.to_string(),
            "start": format!("0x{}", hex(start, src_width)),
            "end": format!("0x{}", hex(end, src_width)),
            "shard": [k, n],
            "inputs": done as u64,
            "complete": swept,
            "digest": swept.then(|| format!("{digest:016x}")),
            "mismatches": t.mismatches,
            "errors": t.errors,
            "stopped": t.stopped,
            "interrupted": t.interrupted,
            "seconds": secs,
            "sweep_seconds": sweep_secs,
            "m_inputs_per_second": rate,
        });
        if let Some(f) = &against {
            v["against"] = json!({"file": f, "checked": t.file_checked, "outside": t.file_outside, "mismatches": t.file_mismatches});
        }
        if let Some(tg) = &target {
            v["target"] = json!({"name": tg.name(), "compared": t.target_compared, "mismatches": t.target_mismatches,
                                 "unsupported": t.target_unsupported});
        }
        say!("{}", json!({"summary": v}));
    } else {
        say!("sweep {c}: inputs {range_text} (end excluded), shard {k}/{n}");
        if let Some(f) = &against {
            say!(
                "against {f}: {} case(s) checked, {} mismatch(es), {} outside the swept inputs",
                t.file_checked,
                t.file_mismatches,
                t.file_outside
            );
        }
        if let Some(tg) = &target {
            say!(
                "target {}: {} input(s) compared, {} mismatch(es), {} declined (unsupported)",
                tg.name(),
                t.target_compared,
                t.target_mismatches,
                t.target_unsupported
            );
        }
        if swept {
            say!("digest {digest:016x}");
        } else {
            say!("digest (none: the sweep stopped early)");
        }
        say!("{done} inputs evaluated, {} mismatches, {secs:.2} s, {rate:.1} M inputs/s", t.mismatches);
    }
    if t.stopped {
        eprintln!("stopped after {} mismatch(es) (--max-failures)", t.mismatches);
    }
    if t.interrupted {
        eprintln!("interrupted: the counts cover the inputs compared before the signal");
        return interrupt::EXIT_CODE;
    }
    if t.shown < t.mismatches && !a.json {
        eprintln!("{} mismatch(es) shown of {} (--max-shown N shows more)", t.shown, t.mismatches);
    }
    if t.errors > 0 {
        eprintln!("{} error(s)", t.errors);
        2
    } else if t.mismatches > 0 || (t.target_unsupported > 0 && a.imp.fail_on_unsupported) {
        1
    } else {
        0
    }
}

/// The digest over `[start, end)`, evaluated in parallel; nothing kept.
fn plain_sweep(c: &Cvt, start: u128, end: u128, bar: &ProgressBar) -> u64 {
    let chunks = (end - start).div_ceil(CHUNK as u128) as u64;
    if Space::of(c).widths.len() > 1 && !fast::has_kernel(c) {
        // Several operands, no batch path: the lane path over input numbers (harness::atlas).
        return (0..chunks)
            .into_par_iter()
            .map(|i| {
                let a = start + i as u128 * CHUNK as u128;
                let b = (a + CHUNK as u128).min(end);
                let top = b.min(u64::MAX as u128) as u64;
                let mut d = ptx_cvt_harness::atlas::fast_digest(c, a as u64, top);
                if b > top as u128 {
                    // The input 2^64 - 1 (a --range ending at the top).
                    let s = Space::of(c);
                    let r = fast::evaluate(c, &s.operands(u64::MAX), c.dtype.bits()).expect("legality was checked");
                    d = d.wrapping_add(digest_term(u64::MAX, r.representative()));
                }
                bar.inc((b - a) as u64);
                d
            })
            .reduce(|| 0, u64::wrapping_add);
    }
    (0..chunks)
        .into_par_iter()
        .map(|i| {
            let a = start + i as u128 * CHUNK as u128;
            let b = (a + CHUNK as u128).min(end);
            // The digest folded into the conversion (vectorised with it).
            let d = fast::fold_range(c, a as u64, (b - a) as u64, 0, |d, x, r| d.wrapping_add(digest_term(x, r)))
                .expect("legality was checked");
            bar.inc((b - a) as u64);
            d
        })
        .reduce(|| 0, u64::wrapping_add)
}

/// Whether `bits` is a member of the fast engine's result.
fn accepts(r: &FastResult, width: u32, bits: u64) -> bool {
    match *r {
        FastResult::Bits(v) => v == bits,
        _ => r.to_accept(width).contains(bits),
    }
}

/// The result's text in a case line.
fn result_text(r: &FastResult, width: u32) -> String {
    match *r {
        FastResult::Bits(v) => ptx_cvt::eval::fmt_hex(v, width),
        _ => r.to_accept(width).to_string(),
    }
}

/// The sweep that keeps results in input order, for --out and an
/// implementation under test. Returns the digest, the inputs done and
/// whether every input was swept (an error stops the sweep).
#[allow(clippy::too_many_arguments)]
fn kept_sweep(
    pool: &rayon::ThreadPool,
    c: &Cvt,
    (start, end): (u128, u128),
    dst_width: u32,
    out: &mut Option<Sink>,
    target: &mut Option<Box<dyn Implementation>>,
    a: &SweepArgs,
    t: &mut Tally,
    bar: &ProgressBar,
) -> (u64, u128, bool) {
    let space = Space::of(c);
    let plan = fast::Plan::new(c, space.widths[0], dst_width).expect("legality was checked");
    let group = KEPT_CHUNK as u128 * (pool.current_num_threads() as u128 * 4);
    let mut digest = 0u64;
    let mut at = start;
    let name = c.to_string();
    // The implementation's answers are judged as check judges them.
    let mut judge = Judge::new(Scope { profile: Profile::Sm90, target: None, version: None });
    while at < end {
        let g_end = (at + group).min(end);
        let chunks = (g_end - at).div_ceil(KEPT_CHUNK as u128) as u64;
        let parts: Vec<(u64, Vec<u64>, Vec<FastResult>)> = pool.install(|| {
            (0..chunks)
                .into_par_iter()
                .map(|i| {
                    let a0 = at + i as u128 * KEPT_CHUNK as u128;
                    let b0 = (a0 + KEPT_CHUNK as u128).min(g_end);
                    let inputs: Vec<u64> = (0..(b0 - a0) as u64).map(|j| (a0 as u64).wrapping_add(j)).collect();
                    let mut results = vec![FastResult::Bits(0); inputs.len()];
                    if space.widths.len() == 1 {
                        fast::evaluate_batch_results(c, &inputs, &mut results).expect("legality was checked");
                    } else {
                        for (r, &x) in results.iter_mut().zip(&inputs) {
                            *r = plan.eval(&space.operands(x));
                        }
                    }
                    let d = inputs
                        .iter()
                        .zip(&results)
                        .fold(0u64, |d, (&i, r)| d.wrapping_add(digest_term(i, r.representative())));
                    (d, inputs, results)
                })
                .collect()
        });
        for (d, inputs, results) in parts {
            digest = digest.wrapping_add(d);
            if let Some(w) = out.as_mut() {
                {
                    let mut s = String::with_capacity(inputs.len() * (name.len() + 24));
                    for (&i, r) in inputs.iter().zip(&results) {
                        s.push_str(&name);
                        s.push(' ');
                        for (k, o) in space.operands(i).iter().enumerate() {
                            if k > 0 {
                                s.push(' ');
                            }
                            s.push_str(&ptx_cvt::eval::fmt_hex(o.bits, o.width));
                        }
                        s.push_str(" => ");
                        s.push_str(&result_text(r, dst_width));
                        s.push('\n');
                    }
                    let written = match w {
                        Sink::File(f) => f.write_all(s.as_bytes()),
                        // A closed or failing stdout stops the sweep; main reports a failure.
                        Sink::Stdout if !write_stdout(s.as_bytes()) => return (digest, at - start, false),
                        Sink::Stdout => Ok(()),
                    };
                    if let Err(e) = written {
                        fail!("cannot write {}: {e}", a.out.as_ref().unwrap().display());
                        t.errors += 1;
                        return (digest, at - start, false);
                    }
                }
            }
            if let Some(tg) = target.as_mut() {
                let tg_name = tg.name();
                for ins in inputs.chunks(a.imp.batch as usize) {
                    if interrupt::requested() {
                        t.interrupted = true;
                        return (digest, at - start, false);
                    }
                    let cases: Vec<(Vec<Operand>, u32)> = ins.iter().map(|&x| (space.operands(x), dst_width)).collect();
                    let max_crashes = if a.imp.goes_on_after_errors() { u64::MAX } else { 1 };
                    let ran = runner::ask(tg.as_mut(), &mut judge, c, &cases, max_crashes, |k, event| {
                        match event {
                            Event::Passed(_) => t.target_compared += 1,
                            Event::Wrong(got) => {
                                t.target_compared += 1;
                                t.target_mismatches += 1;
                                let result = Some(AcceptSet::exact(dst_width, got));
                                let case = Case { instr: *c, operands: cases[k].0.clone(), result, comment: None };
                                mismatch(&tg_name, None, &case, a, t);
                                if t.stop(a) {
                                    return Flow::Stop;
                                }
                            }
                            Event::Declined(_) => t.target_unsupported += 1,
                            Event::Crashed(e) => {
                                fail!("{tg_name}: {e}");
                                t.errors += 1;
                            }
                            Event::NotRun => {}
                        }
                        Flow::Go
                    });
                    if t.stopped {
                        return (digest, at - start, false);
                    }
                    if let Some(why) = ran.stopped {
                        eprintln!("{why}{}", a.imp.go_on_hint());
                        return (digest, at - start, false);
                    }
                }
            }
            bar.inc(inputs.len() as u64);
            at += inputs.len() as u128;
        }
        debug_assert_eq!(at, g_end);
    }
    (digest, end - start, true)
}

/// The --against file: as given, or a directory's file of the variant.
fn against_file(f: &str, c: &Cvt) -> Result<String, String> {
    let p = std::path::Path::new(f);
    if f == "-" || !p.is_dir() {
        return Ok(f.to_string());
    }
    let file = p.join(ptx_cvt::gen::file_name(c));
    if !file.is_file() {
        return Err(format!("--against {f}: the directory holds no file of {c} (expected {})", file.display()));
    }
    Ok(file.display().to_string())
}

/// Check every case line of the file against the fast engine.
fn check_file(f: &str, c: &Cvt, (start, end): (u128, u128), a: &SweepArgs, t: &mut Tally) {
    let reader = match crate::common::open_input(f) {
        Ok(r) => r,
        Err(e) => {
            fail!("{e}");
            t.errors += 1;
            return;
        }
    };
    let name = crate::options::input_name(f);
    for (i, line) in ptx_cvt_harness::lines::lines(BufReader::with_capacity(1 << 20, reader)).enumerate() {
        let n = i + 1;
        let case = match line.map_err(|e| e.to_string()).and_then(|l| parse_case(&l).map_err(|e| e.to_string())) {
            Ok(None) => continue,
            Ok(Some(k)) if k.result.is_none() || k.result_is_placeholder() => {
                Err("no result to check (expected `=> <hex>` after the operands)".to_string())
            }
            Ok(Some(k)) if k.instr != *c => Err(format!("a case of `{}`, not of the swept `{c}`", k.instr)),
            Ok(Some(k)) => Ok(k),
            Err(e) => Err(e),
        };
        let checked = case.and_then(|k| {
            fast::evaluate(&k.instr, &k.operands, k.dst_width()).map(|r| (k, r)).map_err(|e| e.to_string())
        });
        let (k, r) = match checked {
            Ok(x) => x,
            Err(e) => {
                t.errors += 1;
                eprintln!("{name}:{n}: error: {e}");
                continue;
            }
        };
        t.file_cases += 1;
        let x = match Space::of(c) {
            s if s.widths.len() > 1 => s.input(&k.operands) as u128,
            _ => k.operands[0].bits as u128,
        };
        if x < start || x >= end {
            t.file_outside += 1;
            continue;
        }
        t.file_checked += 1;
        let got = k.result.as_ref().expect("checked above");
        let ok = match got.single() {
            Some(bits) => accepts(&r, k.dst_width(), bits),
            None => got.is_subset_of(&r.to_accept(k.dst_width())),
        };
        if !ok {
            t.file_mismatches += 1;
            mismatch(name, Some(n), &k, a, t);
            if t.stop(a) {
                return;
            }
        }
    }
}

/// Count a mismatch and, up to --max-shown, report it as `check` does,
/// with the exact engine's reading of the case.
fn mismatch(name: &str, line: Option<usize>, k: &Case, a: &SweepArgs, t: &mut Tally) {
    t.mismatches += 1;
    if t.shown >= a.max_shown {
        return;
    }
    t.shown += 1;
    let m = match Mismatch::of(Origin { file: Some(name.to_string()), line }, k.clone(), Profile::Sm90) {
        Ok(m) => m,
        Err(e) => {
            let at = line.map_or(name.to_string(), |n| format!("{name}:{n}"));
            eprintln!("{at}: MISMATCH {} (the exact engine fails on it: {e})", k.instr);
            return;
        }
    };
    if a.json {
        say!("{}", json!({"mismatch": m.json(None)}));
    } else {
        say!("{}", m.text(None));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_shards() {
        assert_eq!(parse_range("0..16"), Ok((0, 16)));
        assert_eq!(parse_range("0x10..=0x1f"), Ok((16, 32)));
        assert_eq!(parse_range("0..=0xffffffffffffffff"), Ok((0, 1 << 64)));
        assert!(parse_range("5..5").is_err());
        assert!(parse_range("0..0x10000000000000001").is_err());
        assert!(parse_range("a..b").is_err());
        assert_eq!(parse_shard("1/2"), Ok((1, 2)));
        for bad in ["2/2", "1", "x/2", "0/0", "-1/2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }
}
