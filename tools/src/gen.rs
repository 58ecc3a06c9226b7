//! `ptx-cvt gen`: write golden-vector files for every legal variant of the
//! chosen targets, in parallel, deterministically, atomically.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use clap::Args;
use ptx_cvt::gen::{self, Level};
use ptx_cvt::{Cvt, Profile, PtxVersion};
use rayon::prelude::*;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::common::{legal_variants_matching, write_atomic, VariantFilter};
use crate::options::{flatten_targets, TargetSet};
use crate::output::write_stdout;

#[derive(Args)]
pub struct GenArgs {
    /// Targets whose legal variants to generate (repeatable); `all`: every
    /// target ptxas 13.5 knows (sm_75 … sm_121f) that --ptx-version has.
    /// Each file's `# targets:` line names the ones that accept its variant.
    #[arg(long = "target", default_values = ["sm_90"], value_parser = crate::options::parse_target_set)]
    targets: Vec<TargetSet>,
    /// PTX ISA version for legality (default: 9.5).
    #[arg(long, value_parser = crate::parse_version)]
    ptx_version: Option<PtxVersion>,
    #[arg(long = "filter", value_name = "GLOB", help = crate::options::FILTER_HELP)]
    filters: Vec<String>,
    /// `compact` (structured + one case per coverage class) or `deep` (exhaustive for ≤16-bit sources).
    #[arg(long, default_value = "compact", value_parser = |s: &str| s.parse::<Level>())]
    level: Level,
    /// Seed for the random part of the inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Evidence profile of the expected results.
    #[arg(long, default_value = "sm90", value_parser = |s: &str| s.parse::<Profile>())]
    profile: Profile,
    /// Output folder: one `<spelling>.cases` file per variant and a MANIFEST
    /// listing them. `-` writes all cases to stdout. The folder must hold no
    /// other `*.cases` files (stale ones from a wider run): gen refuses and
    /// lists them, unless --clean.
    #[arg(long, short)]
    out: String,
    /// Remove the `*.cases` files in the --out folder that this run does not
    /// write (e.g. after narrowing --filter), so the folder matches its
    /// MANIFEST. Only `*.cases` files are removed, nothing else.
    #[arg(long)]
    clean: bool,
    /// Worker threads (default: all cores; at most 256, or 4 per core where that is more). The output does not depend on it.
    #[arg(long, value_parser = crate::options::parse_jobs)]
    jobs: Option<usize>,
    /// Print one JSON object summarising what was written (needs --out DIR).
    #[arg(long)]
    json: bool,
}

/// The `*.cases` regular files in `dir` that are not among `keep`, sorted.
fn stale_files(dir: &Path, keep: &BTreeSet<String>) -> Result<Vec<String>, String> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut stale = Vec::new();
    for e in entries {
        let e = e.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let regular = e.file_type().is_ok_and(|t| t.is_file());
        if regular && name.ends_with(".cases") && !keep.contains(&name) {
            stale.push(name);
        }
    }
    stale.sort();
    Ok(stale)
}

/// Check the --out folder before any work: a folder (or nothing yet), and
/// no stale `*.cases` unless --clean. Returns the stale files to remove.
fn prepare_dir(a: &GenArgs, dir: &Path, names: &BTreeSet<String>) -> Result<Vec<String>, String> {
    if let Ok(m) = fs::metadata(dir) {
        if !m.is_dir() {
            return Err(format!("--out {} exists and is not a folder", dir.display()));
        }
    }
    let stale = stale_files(dir, names)?;
    if !stale.is_empty() && !a.clean {
        let shown: Vec<&str> = stale.iter().take(10).map(String::as_str).collect();
        let more =
            if stale.len() > shown.len() { format!(" and {} more", stale.len() - shown.len()) } else { String::new() };
        return Err(format!(
            "{} holds {} `*.cases` file(s) this run would not write (stale, or not generated): {}{more}; \
             give --clean to remove them, or choose another folder",
            dir.display(),
            stale.len(),
            shown.join(", ")
        ));
    }
    Ok(stale)
}

/// One generated file.
struct Output {
    name: String,
    variant: Cvt,
    /// The targets of the run that accept the variant.
    targets: String,
    count: usize,
    text: String,
}

pub fn run(a: GenArgs) -> u8 {
    match generate(&a) {
        Ok(()) => 0,
        Err(e) => {
            fail!("{e}");
            2
        }
    }
}

fn generate(a: &GenArgs) -> Result<(), String> {
    if a.out.is_empty() {
        return Err("--out is empty: give a folder, or `-` for stdout".into());
    }
    if a.json && a.out == "-" {
        return Err("--json prints a summary on stdout: give --out a folder, not `-`".into());
    }
    let version = a.ptx_version.unwrap_or(PtxVersion::LATEST);
    let filter = VariantFilter::new(&a.filters)?;
    let variants = legal_variants_matching(&flatten_targets(&a.targets, version), version, &filter)?;
    if variants.is_empty() {
        return Err(crate::options::no_match(&filter, "legal on the targets"));
    }
    let names: BTreeSet<String> = variants.iter().map(|(c, _)| gen::file_name(c)).collect();
    let dir = PathBuf::from(&a.out);
    let stale = if a.out == "-" { Vec::new() } else { prepare_dir(a, &dir, &names)? };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(a.jobs.unwrap_or(0)).build().map_err(|e| e.to_string())?;
    let bar = crate::progress::bar(
        Some(variants.len() as u64),
        "{bar:40} {pos}/{len} variants, {elapsed} elapsed, eta {eta} {msg}",
    );
    let start = std::time::Instant::now();
    let outputs: Vec<Output> = pool.install(|| {
        variants
            .par_iter()
            .map(|(c, targets)| {
                let lines = gen::generate(c, a.level, a.seed, a.profile);
                let mut text = gen::header(c, targets, a.profile, a.level, a.seed, lines.len());
                for l in &lines {
                    text.push_str(&l.text);
                    text.push('\n');
                }
                bar.inc(1);
                let targets = targets.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" ");
                Output { name: gen::file_name(c), variant: *c, targets, count: lines.len(), text }
            })
            .collect()
    });
    bar.finish_and_clear();
    let total: usize = outputs.iter().map(|o| o.count).sum();
    let mut files = Vec::new();
    if a.out == "-" {
        for o in &outputs {
            if !write_stdout(o.text.as_bytes()) {
                break;
            }
        }
    } else {
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let mut manifest = format!(
            "# ptx-cvt vector manifest v1\n# semantics: {}\n# file\tvariant\tcases\tsha256\ttargets\n",
            ptx_cvt::SEMANTICS_VERSION
        );
        for o in &outputs {
            write_atomic(&dir.join(&o.name), o.text.as_bytes())?;
            let hash = Sha256::digest(o.text.as_bytes());
            let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
            manifest.push_str(&format!("{}\t{}\t{}\t{hex}\t{}\n", o.name, o.variant, o.count, o.targets));
            files.push(json!({"file": o.name, "variant": o.variant.to_string(), "cases": o.count, "sha256": hex,
                              "targets": o.targets.split(' ').collect::<Vec<_>>()}));
        }
        write_atomic(&dir.join("MANIFEST"), manifest.as_bytes())?;
        for name in &stale {
            fs::remove_file(dir.join(name)).map_err(|e| format!("cannot remove {}: {e}", dir.join(name).display()))?;
        }
        if !stale.is_empty() {
            eprintln!("removed {} stale `*.cases` file(s) (--clean)", stale.len());
        }
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{} variants, {total} cases, {secs:.1} s ({} level, seed {}, profile {})",
        outputs.len(),
        a.level,
        a.seed,
        a.profile
    );
    if a.json {
        say!(
            "{}",
            json!({"out": a.out, "variants": outputs.len(), "cases": total, "level": a.level.to_string(),
                   "seed": a.seed, "profile": a.profile.name(), "removed": stale, "files": files, "seconds": secs})
        );
    }
    Ok(())
}
