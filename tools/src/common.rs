//! Pieces the commands share: legality against the chosen target, operand
//! parsing, decoded display of result bits.

use ptx_cvt::accept::{parse_hex, width_mask};
use ptx_cvt::exact::decode;
use std::io::Write as _;
use std::path::Path;

use ptx_cvt::{
    evaluate, evaluate_accept, gen, instr, AcceptSet, Case, Cvt, Operand, Outcome, PtxVersion, Regs, Target,
};

use crate::EvalOpts;

/// Evaluate a parsed case under the options: legality for the target (if
/// any), then the oracle, with the explanation.
pub fn eval_case(case: &Case, opts: &EvalOpts) -> Result<Outcome, String> {
    check_target(case, opts)?;
    evaluate(&case.instr, &case.operands, case.dst_width(), opts.profile).map_err(|e| e.to_string())
}

/// [`eval_case`]'s acceptance set alone (no explanation built: faster).
pub fn accept_case(case: &Case, opts: &EvalOpts) -> Result<AcceptSet, String> {
    check_target(case, opts)?;
    evaluate_accept(&case.instr, &case.operands, case.dst_width(), opts.profile).map_err(|e| e.to_string())
}

fn check_target(case: &Case, opts: &EvalOpts) -> Result<(), String> {
    let Some(t) = opts.target else { return Ok(()) };
    let dst = case.dst_width();
    let src = case.operands.first().map_or(case.instr.atype.bits(), |o| o.width);
    let v = opts.ptx_version.unwrap_or(PtxVersion::LATEST);
    instr::check(&case.instr, Regs { dst, src }, Some(t), Some(v))
        .map_err(|e| format!("illegal on {t} with PTX ISA {v}: {e}"))
}

/// The variants legal on `targets` at PTX ISA `version` (with the targets
/// each is legal on) whose spelling matches the `--filter` glob; the error
/// names a target too new for `version` or a bad glob.
pub fn legal_variants_matching(
    targets: &[Target],
    version: PtxVersion,
    filter: Option<&str>,
) -> Result<Vec<(Cvt, Vec<Target>)>, String> {
    if let Some((t, min)) = targets.iter().find_map(|t| t.min_version().filter(|m| version < *m).map(|m| (t, m))) {
        return Err(format!("target {t} needs PTX ISA {min} or later, not {version}"));
    }
    let pattern = filter.map(glob::Pattern::new).transpose().map_err(|e| format!("--filter: {e}"))?;
    let pairs: Vec<(Target, PtxVersion)> = targets.iter().map(|t| (*t, version)).collect();
    Ok(gen::legal_variants(&pairs)
        .into_iter()
        .filter(|(c, _)| pattern.as_ref().is_none_or(|p| p.matches(&c.to_string())))
        .collect())
}

/// Write `bytes` to `path` through a temporary file in the same folder and a
/// rename: readers see the old file or the whole new one, never a part.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_file(path, bytes, true)
}

/// [`write_atomic`] without waiting for the disk (no fsync): still all or
/// nothing for readers and for a process killed mid-write, not for a power
/// cut. For files rewritten many times a second (`ptx-cvt gpu --out`).
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace_file(path, bytes, false)
}

fn replace_file(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name =
        path.file_name().ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"))?;
    let tmp = dir.join(format!(".{}.{}.tmp~", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if sync {
            f.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

pub fn parse_operands(texts: &[String]) -> Result<Vec<Operand>, String> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            parse_hex(t).map(|(bits, width)| Operand { bits, width }).map_err(|e| format!("operand {}: {e}", i + 1))
        })
        .collect()
}

/// Human reading of result bits in the destination type, e.g. `3c00 (1)`,
/// lane by lane for packed types: `3c004000 (1, 2)`.
pub fn describe_bits(c: &Cvt, bits: u64, width: u32) -> String {
    let n = c.dtype.bits();
    let hex = ptx_cvt::eval::fmt_hex(bits, width);
    if c.dtype.is_packed() {
        let lb = c.dtype.lane_bits();
        let lanes: Vec<String> = (0..c.dtype.lanes())
            .rev()
            .map(|i| decode(c.dtype.format(), (bits >> (i * lb)) & width_mask(lb)).to_string())
            .collect();
        return format!("{hex} ({})", lanes.join(", "));
    }
    let v = decode(c.dtype.format(), bits & width_mask(n));
    let ext = if width > n && bits & !width_mask(n) != 0 && !c.dtype.format().is_signed_int() {
        " (upper bits not zero)"
    } else {
        ""
    };
    format!("{hex} ({v}){ext}")
}

/// Human reading of an acceptance set.
pub fn describe_set(c: &Cvt, set: &AcceptSet) -> String {
    match set.single() {
        Some(b) => describe_bits(c, b, set.width),
        None => format!("{set} (any of these)"),
    }
}

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Print a line to stdout. Once stdout is closed (e.g. `| head`), output is
/// dropped quietly and the command still ends with its true exit status.
pub fn say_line(args: std::fmt::Arguments) {
    use std::io::Write;
    use std::sync::atomic::Ordering::Relaxed;
    if STDOUT_CLOSED.load(Relaxed) {
        return;
    }
    if writeln!(std::io::stdout().lock(), "{args}").is_err() {
        STDOUT_CLOSED.store(true, Relaxed);
    }
}

/// A case file to read (`-` is stdin).
pub fn open_input(f: &str) -> Result<Box<dyn std::io::Read>, String> {
    if f == "-" {
        return Ok(Box::new(std::io::stdin()));
    }
    std::fs::File::open(f).map(|h| Box::new(h) as Box<dyn std::io::Read>).map_err(|e| format!("cannot read {f}: {e}"))
}
