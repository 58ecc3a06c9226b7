//! `ptx-cvt atlas`: the digest atlas (vectors/README.md, "Digest atlas";
//! library side in `ptx_cvt_harness::atlas`). `gen` computes it with the fast
//! engine (whole, or one shard's part), `merge` joins shard parts, `check`
//! compares an implementation, a file of block digests, or the fast engine
//! itself with it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Args, Subcommand};
use indicatif::ProgressBar;
use ptx_cvt::Cvt;
use ptx_cvt_harness::atlas::{self, Entry, Open, Space};
use rayon::prelude::*;
use serde_json::json;

use crate::options::VariantFilter;
use crate::output::write_atomic;

#[derive(Args)]
pub struct AtlasArgs {
    #[command(subcommand)]
    cmd: AtlasCmd,
}

#[derive(Subcommand)]
enum AtlasCmd {
    /// Compute the atlas with the fast engine: one `<variant>.digests` file
    /// per variant and a MANIFEST (or, with --shard, one shard's part file).
    ///
    /// Example: `ptx-cvt atlas gen --max-bits 16 --out vectors/atlas`.
    Gen(GenArgs),
    /// Join the part files of `atlas gen --shard K/N` (all N of them) into an atlas folder.
    ///
    /// Example: `ptx-cvt atlas merge parts/*.part --out vectors/atlas`.
    Merge(MergeArgs),
    /// Compare with the atlas: an implementation (--target-lib/--target-cmd),
    /// a file of `BLOCK DIGEST` lines (--digests), or, with neither, the fast
    /// engine (recomputes every block).
    Check(Box<crate::atlas_check::CheckArgs>),
}

#[derive(Args)]
pub struct Selection {
    /// Only variants whose sources total at most this many bits (8, 16 or 32).
    #[arg(long, default_value_t = atlas::MAX_BITS, value_parser = parse_max_bits)]
    pub max_bits: u32,
    #[arg(long = "filter", value_name = "GLOB", help = crate::options::FILTER_HELP)]
    pub filters: Vec<String>,
}

fn parse_max_bits(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(b @ (8 | 16 | 32)) => Ok(b),
        _ => Err(format!("`{s}`: expected 8, 16 or 32")),
    }
}

impl Selection {
    pub fn variants(&self) -> Result<Vec<Cvt>, String> {
        let f = VariantFilter::new(&self.filters)?;
        let v: Vec<Cvt> = atlas::variants(self.max_bits).into_iter().filter(|c| f.matches(c)).collect();
        if v.is_empty() {
            return Err(crate::options::no_match(
                &f,
                "of the atlas (legal on some target, sources of at most 32 bits)",
            ));
        }
        Ok(v)
    }
    fn describe(&self) -> String {
        let f = self.filters.iter().map(|f| format!(" --filter '{f}'")).collect::<String>();
        format!("--max-bits {}{f}", self.max_bits)
    }
}

#[derive(Args)]
pub struct GenArgs {
    #[command(flatten)]
    sel: Selection,
    /// Output: the atlas folder (files are written atomically, the MANIFEST
    /// then lists every `*.digests` file in it); with --shard, the part file.
    #[arg(long, short, value_name = "PATH")]
    out: PathBuf,
    /// Compute shard K of N (0 ≤ K < N): the K-th of N near-equal contiguous
    /// runs of the (variant, block) list; write a part file for `atlas merge`.
    #[arg(long, value_name = "K/N", value_parser = crate::sweep::parse_shard)]
    shard: Option<(u64, u64)>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = crate::options::parse_jobs)]
    jobs: Option<usize>,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct MergeArgs {
    /// Part files written by `atlas gen --shard K/N`.
    #[arg(required = true)]
    parts: Vec<PathBuf>,
    /// The atlas folder to write.
    #[arg(long, short, value_name = "DIR")]
    out: PathBuf,
    #[arg(long)]
    json: bool,
}

pub fn run(a: AtlasArgs) -> u8 {
    let r = match a.cmd {
        AtlasCmd::Gen(g) => gen(&g),
        AtlasCmd::Merge(m) => merge(&m),
        AtlasCmd::Check(c) => return crate::atlas_check::run(*c),
    };
    match r {
        Ok(()) => 0,
        Err(e) => {
            fail!("{e}");
            2
        }
    }
}

/// Every (variant, block) pair of the selection, in order.
fn units(variants: &[Cvt]) -> Vec<(usize, u64)> {
    variants.iter().enumerate().flat_map(|(i, c)| (0..Space::of(c).blocks()).map(move |b| (i, b))).collect()
}

/// A progress bar over inputs (hidden when stderr is no terminal).
pub fn bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    crate::progress::bar(Some(total), crate::progress::INPUTS)
}

/// The fast engine's digest of each unit, in parallel.
pub fn compute(variants: &[Cvt], units: &[(usize, u64)], jobs: Option<usize>, quiet: bool) -> Result<Vec<u64>, String> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs.unwrap_or(0)).build().map_err(|e| e.to_string())?;
    let total: u64 = units.iter().map(|&(i, _)| Space::of(&variants[i]).block_len()).sum();
    let bar = bar(total, quiet);
    let out = pool.install(|| {
        units
            .par_iter()
            .map(|&(i, b)| {
                let (s, e) = Space::of(&variants[i]).block(b);
                let d = atlas::fast_digest(&variants[i], s, e);
                bar.inc(e - s);
                d
            })
            .collect()
    });
    bar.finish_and_clear();
    Ok(out)
}

fn gen(a: &GenArgs) -> Result<(), String> {
    let variants = a.sel.variants()?;
    let all = units(&variants);
    let (k, n) = a.shard.unwrap_or((0, 1));
    let len = all.len() as u64;
    let mine = &all[(len * k / n) as usize..(len * (k + 1) / n) as usize];
    let started = Instant::now();
    let digests = compute(&variants, mine, a.jobs, a.json)?;
    let inputs: u64 = mine.iter().map(|&(i, _)| Space::of(&variants[i]).block_len()).sum();
    let secs = started.elapsed().as_secs_f64();
    if a.shard.is_some() {
        let mut t = format!("{}\n# part: {k}/{n}\n# selection: {}\n# units: {len}\n", part_magic(), a.sel.describe());
        for (&(i, b), d) in mine.iter().zip(&digests) {
            t.push_str(&format!("{} {b} {d:016x}\n", variants[i]));
        }
        write_atomic(&a.out, t.as_bytes())?;
    } else {
        let mut blocks: Vec<Vec<u64>> = variants.iter().map(|_| Vec::new()).collect();
        for (&(i, _), &d) in mine.iter().zip(&digests) {
            blocks[i].push(d);
        }
        write_folder(&a.out, variants.into_iter().zip(blocks).collect())?;
    }
    let rate = inputs as f64 / secs.max(1e-9) / 1e6;
    eprintln!("{} block(s), {inputs} inputs, {secs:.1} s, {rate:.0} M inputs/s", mine.len());
    if a.json {
        say!(
            "{}",
            json!({"summary": {"out": a.out.display().to_string(), "shard": [k, n], "blocks": mine.len(),
                               "inputs": inputs, "seconds": secs}})
        );
    }
    Ok(())
}

fn part_magic() -> String {
    format!("# ptx-cvt atlas part v{}", atlas::FORMAT_VERSION)
}

/// Write each variant's file (its open results found by `Open::of`), then
/// the MANIFEST over every `*.digests` file in the folder.
fn write_folder(dir: &Path, entries: Vec<(Cvt, Vec<u64>)>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let texts: Vec<(String, String)> = entries
        .par_iter()
        .map(|(c, blocks)| (atlas::file_name(c), Entry { c: *c, open: Open::of(c), blocks: blocks.clone() }.text()))
        .collect();
    for (name, text) in &texts {
        write_atomic(&dir.join(name), text.as_bytes())?;
    }
    let mut files = BTreeMap::new();
    let mut have = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))? {
        let p = e.map_err(|e| e.to_string())?.path();
        if p.extension().is_some_and(|x| x == "digests") {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            // Parsed so a stale or foreign file stops the MANIFEST.
            let entry = Entry::parse(&text, &p.display().to_string())?;
            files.insert(name, (Space::of(&entry.c).bits, text));
            have.push(entry.c);
        }
    }
    let max_bits = files.values().map(|(b, _)| *b).max().unwrap_or(0);
    let list: Vec<(String, String)> = files.into_iter().map(|(n, (_, t))| (n, t)).collect();
    write_atomic(
        &dir.join("MANIFEST"),
        atlas::manifest(&list, env!("CARGO_PKG_VERSION"), max_bits, &atlas::coverage(&have)).as_bytes(),
    )
}

fn merge(a: &MergeArgs) -> Result<(), String> {
    let mut selection: Option<(String, u64)> = None;
    let mut got: BTreeMap<(String, u64), u64> = BTreeMap::new();
    let mut shards = Vec::new();
    for p in &a.parts {
        let name = p.display().to_string();
        let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read {name}: {e}"))?;
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        if lines.next().map(|(_, l)| l) != Some(part_magic().as_str()) {
            return Err(format!("{name}:1: expected `{}`: not an atlas part file", part_magic()));
        }
        let (mut sel, mut count) = (None, None);
        for (n, line) in lines {
            let bad = |what: &str| format!("{name}:{n}: {what}: `{line}`");
            if let Some(h) = line.strip_prefix("# ") {
                match h.split_once(": ") {
                    Some(("selection", v)) => sel = Some(v.to_string()),
                    Some(("units", v)) => count = Some(v.parse::<u64>().map_err(|_| bad("bad unit count"))?),
                    Some(("part", v)) => shards.push(v.to_string()),
                    _ => {}
                }
                continue;
            }
            let mut f = line.split_whitespace();
            let (Some(v), Some(rest)) = (f.next(), line.split_once(' ').map(|x| x.1)) else {
                return Err(bad("expected `INSTRUCTION BLOCK DIGEST`"));
            };
            let (b, d) = atlas::parse_block_line(rest).map_err(|e| bad(&e))?;
            if got.insert((v.to_string(), b), d).is_some() {
                return Err(bad("this block is also in an earlier line or part"));
            }
        }
        let this = (
            sel.ok_or(format!("{name}: no `# selection:` line"))?,
            count.ok_or(format!("{name}: no `# units:` line"))?,
        );
        match &selection {
            Some(s) if *s != this => {
                return Err(format!("{name}: selection `{}` differs from the other parts' `{}`", this.0, s.0))
            }
            _ => selection = Some(this),
        }
    }
    let (sel, count) = selection.expect("at least one part");
    if got.len() as u64 != count {
        return Err(format!(
            "the parts hold {} of the {count} blocks of `{sel}` (shards given: {}): a part is missing",
            got.len(),
            shards.join(" ")
        ));
    }
    let mut entries: Vec<(Cvt, Vec<u64>)> = Vec::new();
    for ((v, b), d) in got {
        let c = ptx_cvt::instr::parse(&v).map_err(|e| format!("`{v}`: {e}"))?;
        match entries.iter_mut().find(|(x, _)| *x == c) {
            Some((_, blocks)) if blocks.len() as u64 == b => blocks.push(d),
            None if b == 0 => entries.push((c, vec![d])),
            _ => return Err(format!("{v}: block {b} out of order or missing before it")),
        }
    }
    for (c, blocks) in &entries {
        if blocks.len() as u64 != Space::of(c).blocks() {
            return Err(format!("{c}: {} of {} blocks in the parts", blocks.len(), Space::of(c).blocks()));
        }
    }
    let n = entries.len();
    write_folder(&a.out, entries)?;
    eprintln!("merged {} part(s): {n} variant(s), {count} block(s) into {}", a.parts.len(), a.out.display());
    if a.json {
        say!(
            "{}",
            json!({"summary": {"out": a.out.display().to_string(), "parts": a.parts.len(), "variants": n, "blocks": count}})
        );
    }
    Ok(())
}
