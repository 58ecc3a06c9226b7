//! Option values every command reads the same way: durations, thread
//! counts, variant filters, the name of an input in messages.

use ptx_cvt::{Cvt, PtxVersion, Target};

/// Every target ptxas 13.5 knows, oldest first: what `--target all` means
/// (it has no sm_101 and nothing older than sm_75).
pub const PTXAS_TARGETS: [&str; 26] = [
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103",
    "sm_103a", "sm_103f", "sm_107", "sm_107a", "sm_107f", "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a",
    "sm_120f", "sm_121", "sm_121a", "sm_121f",
];

/// One `--target` value of a command that takes several.
#[derive(Clone, Debug)]
pub enum TargetSet {
    One(Target),
    /// `all`: [`PTXAS_TARGETS`], those the PTX ISA version knows.
    All,
}

/// `--target sm_90` or `--target all` (clap value parser).
pub fn parse_target_set(s: &str) -> Result<TargetSet, String> {
    if s == "all" {
        return Ok(TargetSet::All);
    }
    crate::parse_target(s).map(TargetSet::One).map_err(|e| format!("{e}; or `all`: every target ptxas 13.5 knows"))
}

/// The targets of repeated `--target` values at PTX ISA `version`, in
/// order, each once. `all` leaves out targets newer than `version`; a
/// target named alone is kept (and refused later, with a message).
pub fn flatten_targets(sets: &[TargetSet], version: PtxVersion) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for set in sets {
        let ts: Vec<Target> = match set {
            TargetSet::One(t) => vec![*t],
            TargetSet::All => PTXAS_TARGETS
                .iter()
                .map(|t| t.parse::<Target>().expect("a known target"))
                .filter(|t| t.min_version().is_none_or(|m| m <= version))
                .collect(),
        };
        for t in ts {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// Longest duration an option accepts, in seconds (about 11.6 days).
pub const MAX_SECONDS: f64 = 1e6;

fn seconds(s: &str, zero_ok: bool) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    let low_ok = if zero_ok { v >= 0.0 } else { v > 0.0 };
    if !v.is_finite() || !low_ok || v > MAX_SECONDS {
        let low = if zero_ok { ">= 0" } else { "> 0" };
        return Err(format!("`{s}`: seconds must be a finite number {low} and <= {MAX_SECONDS:e}"));
    }
    Ok(v)
}

/// A duration in seconds: finite, > 0, at most [`MAX_SECONDS`] (clap value parser).
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    seconds(s, false)
}

/// Like [`parse_seconds`], but 0 (meaning "no limit") is allowed too.
pub fn parse_seconds_or_zero(s: &str) -> Result<f64, String> {
    seconds(s, true)
}

/// Most worker threads `--jobs` accepts: 256, or 4 per core where that is more.
pub fn max_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).max(256)
}

/// `--jobs N`: 1 ..= [`max_jobs`] (clap value parser).
pub fn parse_jobs(s: &str) -> Result<usize, String> {
    let max = max_jobs();
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("`{s}`: worker threads must be a whole number from 1 to {max}")),
    }
}

/// The name of an input file in messages (`-` is stdin).
pub fn input_name(f: &str) -> &str {
    if f == "-" {
        "<stdin>"
    } else {
        f
    }
}

/// Expand `{a,b}` alternatives (nested allowed) into plain glob patterns.
pub fn expand_braces(p: &str) -> Result<Vec<String>, String> {
    let chars: Vec<char> = p.chars().collect();
    let Some(open) = chars.iter().position(|&c| c == '{') else {
        if p.contains('}') {
            return Err(format!("`{p}`: `}}` without `{{`"));
        }
        return Ok(vec![p.to_string()]);
    };
    // The matching close brace and the top-level commas between.
    let mut depth = 0;
    let mut commas = Vec::new();
    let mut close = None;
    for (i, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(i),
            _ => {}
        }
    }
    let close = close.ok_or_else(|| format!("`{p}`: `{{` without `}}`"))?;
    let head: String = chars[..open].iter().collect();
    let tail: String = chars[close + 1..].iter().collect();
    let mut bounds = vec![open];
    bounds.extend(commas);
    bounds.push(close);
    let mut out = Vec::new();
    for w in bounds.windows(2) {
        let alt: String = chars[w[0] + 1..w[1]].iter().collect();
        out.extend(expand_braces(&format!("{head}{alt}{tail}"))?);
    }
    Ok(out)
}

/// `--filter GLOB` (repeatable, `{a,b}` alternatives): a variant is chosen
/// when its canonical spelling matches any glob; no glob chooses every variant.
#[derive(Clone, Debug, Default)]
pub struct VariantFilter {
    globs: Vec<String>,
    patterns: Vec<glob::Pattern>,
}

impl VariantFilter {
    /// The filter of the `--filter` values; the error names a bad glob.
    pub fn new(globs: &[String]) -> Result<VariantFilter, String> {
        let mut patterns = Vec::new();
        for g in globs {
            for p in expand_braces(g).map_err(|e| format!("--filter {e}"))? {
                patterns.push(glob::Pattern::new(&p).map_err(|e| format!("--filter `{p}`: {e}"))?);
            }
        }
        Ok(VariantFilter { globs: globs.to_vec(), patterns })
    }

    /// Whether the filter chooses everything.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn matches(&self, c: &Cvt) -> bool {
        self.is_empty() || self.matches_name(&c.to_string())
    }

    pub fn matches_name(&self, spelling: &str) -> bool {
        self.is_empty() || self.patterns.iter().any(|p| p.matches(spelling))
    }

    /// The globs as given, for messages: `` `a`, `b` ``.
    pub fn describe(&self) -> String {
        self.globs.iter().map(|g| format!("`{g}`")).collect::<Vec<_>>().join(", ")
    }
}

/// The error of every command whose `--filter` chooses nothing (exit 2):
/// `no variant legal on sm_90 matches --filter `x` (…)`.
pub fn no_match(filter: &VariantFilter, scope: &str) -> String {
    if filter.is_empty() {
        return format!("no variant {scope}");
    }
    format!(
        "no variant {scope} matches --filter {} (`ptx-cvt list` prints every spelling; `*` matches any text)",
        filter.describe()
    )
}

/// Help text of `--filter`, the same on every command.
pub const FILTER_HELP: &str = "Only variants whose canonical spelling matches this glob (`*`, `?`, `[...]`, and `{a,b}` alternatives), e.g. 'cvt.{rn,rz}.f16.f32'; repeatable (a variant matching any is chosen)";

/// Files as given, directories as their `*.cases` files (sorted).
pub fn expand_sources(args: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for f in args {
        let p = std::path::Path::new(f);
        if f != "-" && p.is_dir() {
            let mut files: Vec<String> = std::fs::read_dir(p)
                .map_err(|e| format!("cannot read directory {f}: {e}"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "cases") && p.is_file())
                .map(|p| p.display().to_string())
                .collect();
            if files.is_empty() {
                return Err(format!("directory {f} holds no *.cases files"));
            }
            files.sort();
            out.extend(files);
        } else {
            out.push(f.clone());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces() {
        assert_eq!(expand_braces("cvt.*.f16").unwrap(), vec!["cvt.*.f16"]);
        assert_eq!(expand_braces("cvt.{a,b}.x").unwrap(), vec!["cvt.a.x", "cvt.b.x"]);
        assert_eq!(expand_braces("{a,b{c,d}}{1,2}").unwrap(), vec!["a1", "a2", "bc1", "bc2", "bd1", "bd2"]);
        assert_eq!(expand_braces("x{}y").unwrap(), vec!["xy"]);
        assert!(expand_braces("x{a,b").is_err());
        assert!(expand_braces("x}").is_err());
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_seconds("2.5"), Ok(2.5));
        for bad in ["0", "-1", "nan", "inf", "1e20", "x", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_seconds_or_zero("0"), Ok(0.0));
        assert!(parse_seconds_or_zero("1e7").is_err());
        assert_eq!(parse_jobs("1"), Ok(1));
        for bad in ["0", "100000", "-1", "x"] {
            assert!(parse_jobs(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn filters() {
        let f = VariantFilter::new(&["cvt.{rn.bf16.f32,rz.bf16.f32}".into(), "cvt.f32.f16".into()]).unwrap();
        assert!(f.matches_name("cvt.rn.bf16.f32") && f.matches_name("cvt.rz.bf16.f32"));
        assert!(f.matches_name("cvt.f32.f16") && !f.matches_name("cvt.rn.f16.f32"));
        assert!(VariantFilter::new(&[]).unwrap().matches_name("anything"));
        assert!(VariantFilter::new(&["cvt.[".into()]).is_err());
    }
}
