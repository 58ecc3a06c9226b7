//! `ptx-cvt atlas check`: compare block digests with the atlas. An
//! implementation is digested block by block without the oracle; only a
//! block whose digest differs is run again input by input against the fast
//! engine, to report its first wrong inputs as `check` does.

use std::path::PathBuf;

use clap::Args;
use ptx_cvt::{AcceptSet, Case, Cvt, Profile};
use ptx_cvt_harness::atlas::{self, Entry, Space};
use ptx_cvt_harness::digest::digest_term;
use ptx_cvt_harness::judge::{Judge, Scope};
use ptx_cvt_harness::runner::{self, Event, Flow};
use ptx_cvt_harness::{Answer, Implementation, Mismatch, Origin};
use serde_json::json;

use crate::atlas::Selection;
use crate::implementation::ImplArgs;

const HELP: &str = "\
Three ways to compare:
  ptx-cvt atlas check vectors/atlas                      # the fast engine, every block
  ptx-cvt atlas check vectors/atlas --target-lib ./libimpl.so --filter 'cvt.rn.f16.*'
  ptx-cvt atlas check vectors/atlas --digests mine.txt --filter cvt.rn.f16.f32

--digests FILE: lines `BLOCK DIGEST` (decimal block number, 16 hex digits),
computed on your side with vectors/readers/atlas_digest.py or atlas_digest.c;
the variant comes from --filter (one variant) or a `# instruction: V` line.
Differing blocks are listed with their input ranges and the command that
finds their wrong inputs.

Exit status: 0 every compared block equal, 1 a block differs (or, with
--fail-on-unsupported, a declined variant), 2 errors (an unreadable or
altered atlas, malformed lines, implementation failures).";

#[derive(Args)]
#[command(after_long_help = HELP)]
pub struct CheckArgs {
    /// The atlas folder (with its MANIFEST), e.g. vectors/atlas.
    dir: PathBuf,
    #[command(flatten)]
    sel: Selection,
    /// Only this block (needs exactly one variant, e.g. with --filter).
    #[arg(long, value_name = "B")]
    block: Option<u64>,
    /// Block digests computed elsewhere: `BLOCK DIGEST` lines (`-`: stdin).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["target_cmd", "target_lib"])]
    digests: Option<String>,
    #[command(flatten)]
    imp: ImplArgs,
    /// Print at most N wrong inputs per differing block (all are counted).
    #[arg(long, value_name = "N", default_value_t = 5, alias = "show")]
    max_shown: u64,
    /// Worker threads for the fast engine (default: all cores).
    #[arg(long, value_parser = crate::options::parse_jobs)]
    jobs: Option<usize>,
    /// JSON Lines: one object per differing block and per shown mismatch, then `{"summary": ...}`.
    #[arg(long)]
    json: bool,
}

#[derive(Default)]
struct Tally {
    variants: u64,
    blocks: u64,
    bad_blocks: u64,
    mismatches: u64,
    unsupported: Vec<String>,
    errors: u64,
}

pub fn run(a: CheckArgs) -> u8 {
    let mut t = Tally::default();
    if let Err(e) = check(&a, &mut t) {
        fail!("{e}");
        return 2;
    }
    if a.json {
        say!(
            "{}",
            json!({"summary": {"atlas": a.dir.display().to_string(), "variants": t.variants, "blocks": t.blocks,
                               "bad_blocks": t.bad_blocks, "mismatches": t.mismatches,
                               "unsupported": t.unsupported, "errors": t.errors}})
        );
    } else {
        let unsupported = if t.unsupported.is_empty() {
            String::new()
        } else {
            format!(", {} variant(s) declined", t.unsupported.len())
        };
        say!(
            "{} variant(s), {} block(s) compared, {} differ{unsupported}; {} wrong input(s) found",
            t.variants,
            t.blocks,
            t.bad_blocks,
            t.mismatches
        );
    }
    if t.errors > 0 {
        2
    } else if t.bad_blocks > 0 || (!t.unsupported.is_empty() && a.imp.fail_on_unsupported) {
        1
    } else {
        0
    }
}

fn check(a: &CheckArgs, t: &mut Tally) -> Result<(), String> {
    let wanted = a.sel.variants()?;
    let entries: Vec<Entry> = atlas::read_dir(&a.dir)?.into_iter().filter(|e| wanted.contains(&e.c)).collect();
    if entries.is_empty() {
        return Err(format!("no variant of {} matches (see its MANIFEST)", a.dir.display()));
    }
    if let Some(b) = a.block {
        if entries.len() != 1 {
            return Err(format!("--block needs exactly one variant; {} match (narrow with --filter)", entries.len()));
        }
        if b >= entries[0].blocks.len() as u64 {
            return Err(format!("{} has blocks 0..{}, not {b}", entries[0].c, entries[0].blocks.len()));
        }
    }
    let blocks_of =
        |e: &Entry| -> Vec<u64> { a.block.map_or_else(|| (0..e.blocks.len() as u64).collect(), |b| vec![b]) };
    if let Some(f) = &a.digests {
        return check_digests(a, f, &entries, t);
    }
    match a.imp.open()? {
        Some(mut imp) => {
            let total = entries.iter().map(|e| blocks_of(e).len() as u64 * Space::of(&e.c).block_len()).sum();
            let bar = crate::atlas::bar(total, a.json);
            for e in &entries {
                t.variants += 1;
                for b in blocks_of(e) {
                    let ok = check_impl_block(a, e, b, imp.as_mut(), t);
                    bar.inc(Space::of(&e.c).block_len());
                    if !bar.is_hidden() && ok.as_ref().is_ok_and(|ok| !ok) {
                        // Declined: the variant's other blocks are skipped.
                        bar.inc(
                            (e.blocks.len() as u64 - 1 - b.min(e.blocks.len() as u64 - 1))
                                * Space::of(&e.c).block_len(),
                        );
                    }
                    if !ok? {
                        break;
                    }
                }
            }
            bar.finish_and_clear();
        }
        None => {
            let variants: Vec<Cvt> = entries.iter().map(|e| e.c).collect();
            let units: Vec<(usize, u64)> =
                entries.iter().enumerate().flat_map(|(i, e)| blocks_of(e).into_iter().map(move |b| (i, b))).collect();
            let got = crate::atlas::compute(&variants, &units, a.jobs, a.json)?;
            t.variants = entries.len() as u64;
            for (&(i, b), d) in units.iter().zip(got) {
                t.blocks += 1;
                if d != entries[i].blocks[b as usize] {
                    bad_block(a, &entries[i], b, d, t);
                }
            }
        }
    }
    Ok(())
}

/// Report a block whose digest differs, with the command that narrows it down.
fn bad_block(a: &CheckArgs, e: &Entry, b: u64, got: u64, t: &mut Tally) {
    t.bad_blocks += 1;
    let s = Space::of(&e.c);
    let (lo, hi) = s.block(b);
    let w = s.bits.div_ceil(4) as usize;
    let narrow =
        format!("ptx-cvt atlas check {} --filter '{}' --block {b} --target-lib YOUR-ADAPTER.so", a.dir.display(), e.c);
    if a.json {
        say!(
            "{}",
            json!({"bad_block": {"instruction": e.c.to_string(), "block": b, "start": format!("0x{lo:0w$x}"),
                                 "end": format!("0x{hi:0w$x}"), "digest": format!("{got:016x}"),
                                 "atlas": format!("{:016x}", e.blocks[b as usize]), "narrow": narrow}})
        );
    } else {
        say!(
            "DIFFERS {} block {b}: inputs {lo:0w$x}..{hi:0w$x} (end excluded), digest {got:016x}, atlas {:016x}",
            e.c,
            e.blocks[b as usize]
        );
        say!("  find its wrong inputs: {narrow}");
        if s.widths.len() == 1 {
            say!(
                "  or, with your results as case lines: ptx-cvt sweep {} --range 0x{lo:x}..0x{hi:x} --against RESULTS.cases",
                e.c
            );
        }
    }
}

/// `BLOCK DIGEST` lines from elsewhere.
fn check_digests(a: &CheckArgs, f: &str, entries: &[Entry], t: &mut Tally) -> Result<(), String> {
    let name = crate::options::input_name(f).to_string();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut crate::common::open_input(f)?, &mut text)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    let mut named: Option<Cvt> = None;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let body = line.split('#').next().unwrap_or("").trim();
        if let Some(v) = line.trim().strip_prefix("# instruction:") {
            named = Some(ptx_cvt::instr::parse(v.trim()).map_err(|e| format!("{name}:{n}: {e}"))?);
        }
        if body.is_empty() {
            continue;
        }
        let (b, d) = atlas::parse_block_line(body).map_err(|e| format!("{name}:{n}: {e}: `{line}`"))?;
        lines.push((n, b, d));
    }
    let e = match named {
        Some(c) => {
            entries.iter().find(|e| e.c == c).ok_or_else(|| format!("{name}: {c} is not in the selected atlas"))?
        }
        None if entries.len() == 1 => &entries[0],
        None => {
            return Err(format!(
                "{name}: which variant? {} match; give one with --filter or a `# instruction:` line",
                entries.len()
            ))
        }
    };
    if lines.is_empty() {
        return Err(format!("{name}: no `BLOCK DIGEST` line"));
    }
    t.variants = 1;
    for (n, b, d) in lines {
        let Some(&want) = e.blocks.get(b as usize) else {
            return Err(format!("{name}:{n}: {} has blocks 0..{}, not {b}", e.c, e.blocks.len()));
        };
        t.blocks += 1;
        if d != want {
            bad_block(a, e, b, d, t);
        }
    }
    Ok(())
}

/// Digest one block of an implementation; narrow it down if it differs.
/// Returns false when the variant is declined (the rest is skipped).
fn check_impl_block(
    a: &CheckArgs,
    e: &Entry,
    b: u64,
    imp: &mut dyn Implementation,
    t: &mut Tally,
) -> Result<bool, String> {
    let s = Space::of(&e.c);
    let (lo, hi) = s.block(b);
    let mut digest = 0u64;
    let mut declined = None;
    run_impl(a, e, (lo, hi), imp, |x, ans| match ans {
        Answer::Bits(r) => {
            digest = digest.wrapping_add(digest_term(x, e.open.canonical(&e.c, r)));
            true
        }
        Answer::Declined(why) => {
            declined = Some(why);
            false
        }
    })?;
    if let Some(why) = declined {
        t.unsupported.push(e.c.to_string());
        if !a.json {
            eprintln!("declined {}: {why}", e.c);
        }
        return Ok(false);
    }
    t.blocks += 1;
    if digest == e.blocks[b as usize] {
        return Ok(true);
    }
    bad_block(a, e, b, digest, t);
    // Narrow down: the same block input by input, judged as `check` judges.
    let dst = e.c.dtype.bits();
    let mut judge = Judge::new(Scope { profile: Profile::Sm90, target: None, version: None });
    let (mut found, mut shown) = (0u64, 0u64);
    let mut x = lo;
    while x < hi {
        let end = (x + a.imp.batch).min(hi);
        let cases: Vec<_> = (x..end).map(|i| (s.operands(i), dst)).collect();
        let mut crashed = None;
        runner::ask(imp, &mut judge, &e.c, &cases, 1, |k, event| {
            match event {
                Event::Wrong(got) => {
                    found += 1;
                    if shown < a.max_shown {
                        shown += 1;
                        report(a, &e.c, cases[k].0.clone(), got);
                    }
                }
                Event::Crashed(why) => crashed = Some(why),
                _ => {}
            }
            Flow::Go
        });
        if let Some(why) = crashed {
            return Err(format!("{}: {why}", imp.name()));
        }
        x = end;
    }
    t.mismatches += found;
    if !a.json {
        say!("  {found} wrong input(s) in block {b} of {} ({shown} shown)", e.c);
    }
    if found == 0 {
        // A differing digest with no wrong input: only open bits differed in a way the digest does not canonicalize.
        eprintln!("note: block {b} of {}: digest differs but every answer is accepted (open result bits)", e.c);
        t.bad_blocks -= 1;
    }
    Ok(true)
}

/// Feed the implementation every input of `[lo, hi)` in batches; `each`
/// returns false to stop.
fn run_impl(
    a: &CheckArgs,
    e: &Entry,
    (lo, hi): (u64, u64),
    imp: &mut dyn Implementation,
    mut each: impl FnMut(u64, Answer) -> bool,
) -> Result<(), String> {
    let s = Space::of(&e.c);
    let dst = e.c.dtype.bits();
    let mut x = lo;
    while x < hi {
        let end = (x + a.imp.batch).min(hi);
        let cases: Vec<_> = (x..end).map(|i| (s.operands(i), dst)).collect();
        let (answers, err) = imp.eval_batch(&e.c, &cases);
        for (i, ans) in (x..).zip(answers) {
            if !each(i, ans) {
                return Ok(());
            }
        }
        if let Some(err) = err {
            return Err(format!("{}: {err}", imp.name()));
        }
        x = end;
    }
    Ok(())
}

fn report(a: &CheckArgs, c: &Cvt, ops: Vec<ptx_cvt::Operand>, got: u64) {
    let dst = c.dtype.bits();
    let case = Case { instr: *c, operands: ops, result: Some(AcceptSet::exact(dst, got)), comment: None };
    match Mismatch::of(Origin::default(), case, Profile::Sm90) {
        Ok(m) => {
            if a.json {
                say!("{}", json!({"mismatch": m.json(None)}));
            } else {
                say!("{}", m.text(None));
            }
        }
        Err(e) => eprintln!("MISMATCH {c} (the exact engine fails on it: {e})"),
    }
}
