//! `ptx-cvt gen`: write golden-vector files for every legal variant of the
//! chosen targets, in parallel, deterministically, atomically.

use std::fs;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use ptx_cvt::gen::{self, Level};
use ptx_cvt::{Cvt, Profile, PtxVersion, Target};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::common::{legal_variants_matching, write_atomic};

#[derive(Args)]
pub struct GenArgs {
    /// Targets whose legal variants to generate (repeatable).
    #[arg(long = "target", default_values = ["sm_90"], value_parser = crate::parse_target)]
    targets: Vec<Target>,
    /// PTX ISA version for legality (default: 9.5).
    #[arg(long, value_parser = crate::parse_version)]
    ptx_version: Option<PtxVersion>,
    /// Only variants whose canonical spelling matches this glob, e.g. 'cvt.*.f16.f32'.
    #[arg(long)]
    filter: Option<String>,
    /// `compact` (structured + one case per coverage class) or `deep` (exhaustive for ≤16-bit sources).
    #[arg(long, default_value = "compact", value_parser = |s: &str| s.parse::<Level>())]
    level: Level,
    /// Seed for the random part of the inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Evidence profile of the expected results.
    #[arg(long, default_value = "sm90", value_parser = |s: &str| s.parse::<Profile>())]
    profile: Profile,
    /// Output folder: one `<spelling>.cases` file per variant and a MANIFEST. `-` writes all cases to stdout.
    #[arg(long, short)]
    out: String,
    /// Worker threads (default: all cores). The output does not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
}

/// One generated file.
struct Output {
    name: String,
    variant: Cvt,
    count: usize,
    text: String,
}

pub fn run(a: GenArgs) -> u8 {
    let version = a.ptx_version.unwrap_or(PtxVersion::LATEST);
    let variants = match legal_variants_matching(&a.targets, version, a.filter.as_deref()) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if variants.is_empty() {
        eprintln!("error: no legal variant matches");
        return 2;
    }
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(a.jobs.unwrap_or(0)).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let bar = ProgressBar::new(variants.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} variants, {elapsed} elapsed, eta {eta} {msg}").unwrap(),
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
                Output { name: format!("{c}.cases"), variant: *c, count: lines.len(), text }
            })
            .collect()
    });
    bar.finish_and_clear();
    let total: usize = outputs.iter().map(|o| o.count).sum();
    if a.out == "-" {
        let mut stdout = std::io::stdout().lock();
        for o in &outputs {
            if stdout.write_all(o.text.as_bytes()).is_err() {
                return 0;
            }
        }
    } else {
        let dir = PathBuf::from(&a.out);
        if let Err(e) = fs::create_dir_all(&dir) {
            eprintln!("error: cannot create {}: {e}", dir.display());
            return 2;
        }
        let mut manifest = String::from("# ptx-cvt vector manifest v1\n# file\tvariant\tcases\tsha256\n");
        for o in &outputs {
            if let Err(e) = write_atomic(&dir.join(&o.name), o.text.as_bytes()) {
                eprintln!("error: cannot write {}: {e}", dir.join(&o.name).display());
                return 2;
            }
            let hash = Sha256::digest(o.text.as_bytes());
            let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
            manifest.push_str(&format!("{}\t{}\t{}\t{hex}\n", o.name, o.variant, o.count));
        }
        if let Err(e) = write_atomic(&dir.join("MANIFEST"), manifest.as_bytes()) {
            eprintln!("error: cannot write MANIFEST: {e}");
            return 2;
        }
    }
    eprintln!(
        "{} variants, {total} cases, {:.1} s ({} level, seed {}, profile {})",
        outputs.len(),
        start.elapsed().as_secs_f64(),
        a.level,
        a.seed,
        a.profile
    );
    0
}
