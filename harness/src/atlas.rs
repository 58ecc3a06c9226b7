//! The digest atlas (`vectors/atlas/`, format in vectors/README.md, "Digest
//! atlas"): for every variant legal on some target whose sources total at
//! most 32 bits, the [`digest`](crate::digest) of every input, per block of
//! 2^24 inputs.
//!
//! Input space: the source registers at natural widths, concatenated in PTX
//! operand order with the first operand in the high bits (`x = a·2^w + b`
//! for two `w`-bit operands), so one number `x` names one case and a block
//! is a range of `x`.

use std::fmt::Write as _;

use ptx_cvt::fast::{self, FastResult, Plan};
use ptx_cvt::gen::{self, Level};
use ptx_cvt::{instr, Cvt, Operand};

use crate::digest::digest_term;

/// Version of the atlas file format (first line of every file).
pub const FORMAT_VERSION: u32 = 1;
/// Inputs per block: 2^24 (fewer when the whole space is smaller).
pub const BLOCK_BITS: u32 = 24;
/// Sources totalling at most this many bits are in the atlas.
pub const MAX_BITS: u32 = 32;

/// The inputs of one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Space {
    /// Natural width of each source operand, PTX order.
    pub widths: Vec<u32>,
    /// Their sum: the space has 2^bits inputs.
    pub bits: u32,
}

impl Space {
    pub fn of(c: &Cvt) -> Space {
        let widths = instr::shape(c).srcs;
        Space { bits: widths.iter().sum(), widths: widths.to_vec() }
    }
    pub fn size(&self) -> u64 {
        1u64 << self.bits
    }
    pub fn block_len(&self) -> u64 {
        1u64 << self.bits.min(BLOCK_BITS)
    }
    pub fn blocks(&self) -> u64 {
        self.size() / self.block_len()
    }
    /// Inputs `[start, end)` of block `b`.
    pub fn block(&self, b: u64) -> (u64, u64) {
        (b * self.block_len(), (b + 1) * self.block_len())
    }
    /// The operands that input `x` names (first operand in the high bits).
    pub fn operands(&self, x: u64) -> Vec<Operand> {
        let mut shift = self.bits;
        self.widths
            .iter()
            .map(|&w| {
                shift -= w;
                Operand { bits: (x >> shift) & ptx_cvt::accept::width_mask(w), width: w }
            })
            .collect()
    }
    /// The input number of these operands (inverse of [`Space::operands`]).
    pub fn input(&self, ops: &[Operand]) -> u64 {
        ops.iter().zip(&self.widths).fold(0u64, |x, (o, &w)| (x << w) | (o.bits & ptx_cvt::accept::width_mask(w)))
    }
}

/// The atlas's variants: legal on some target at natural register widths
/// (what `ptx-cvt list` prints), sources totalling at most `max_bits`.
pub fn variants(max_bits: u32) -> Vec<Cvt> {
    gen::all_spellings()
        .into_iter()
        .filter(|c| Space::of(c).bits <= max_bits && instr::check(c, gen::natural_regs(c), None, None).is_ok())
        .collect()
}

/// The digest of inputs `[start, end)` by the fast engine (sm90 profile;
/// a set result counts as its representative).
pub fn fast_digest(c: &Cvt, start: u64, end: u64) -> u64 {
    let space = Space::of(c);
    let dst = c.dtype.bits();
    if space.widths.len() > 1 && !fast::has_kernel(c) {
        // Several operands, no batch path: the generic lane path, one plan for the range.
        let plan = Plan::new(c, space.widths[0], dst).expect("atlas variants are legal at natural widths");
        return (start..end)
            .fold(0u64, |d, x| d.wrapping_add(digest_term(x, plan.eval(&space.operands(x)).representative())));
    }
    // The digest folded into the conversion (vectorised with it where the form
    // has a kernel); the scaled pair forms number inputs as the space does.
    fast::fold_range(c, start, end - start, 0, |d, x, r| d.wrapping_add(digest_term(x, r)))
        .expect("atlas variants are legal at natural widths")
}

/// Which results of a variant are sets, i.e. which bits an implementation's
/// answer may choose freely: they are digested as the oracle's representative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Open {
    /// Some results are "any NaN" (per lane for packed results): every NaN
    /// is digested as the canonical NaN (sign clear, all other bits set).
    pub nan: bool,
    /// Bits of the destination that count (tf32 low bits a profile leaves
    /// open are not); all ones when every bit counts.
    pub mask: u64,
}

impl Open {
    /// Found by evaluating every input of spaces up to 2^16, else the
    /// compact-level inputs (every coverage class, the NaN events included:
    /// a plan decides NaN results once for all NaN inputs).
    pub fn of(c: &Cvt) -> Open {
        let space = Space::of(c);
        let dst = c.dtype.bits();
        let plan = Plan::new(c, space.widths[0], dst).expect("atlas variants are legal at natural widths");
        let mut open = Open { nan: false, mask: ptx_cvt::accept::width_mask(dst) };
        let mut see = |r: FastResult| match r {
            FastResult::Bits(_) => {}
            FastResult::AnyNan(_) | FastResult::Lanes { .. } => open.nan = true,
            FastResult::Pattern { mask, .. } => open.mask &= mask,
        };
        if space.bits <= 16 {
            (0..space.size()).for_each(|x| see(plan.eval(&space.operands(x))));
        } else {
            for k in gen::cases(c, Level::Compact, 1) {
                if k.dst_width == dst && k.operands.iter().zip(&space.widths).all(|(o, &w)| o.width == w) {
                    see(plan.eval(&k.operands));
                }
            }
        }
        open
    }

    /// An implementation's answer as the digest takes it: the counted bits,
    /// every NaN lane as the canonical NaN where NaN bits are open.
    pub fn canonical(&self, c: &Cvt, r: u64) -> u64 {
        let r = r & self.mask;
        if !self.nan {
            return r;
        }
        let f = c.dtype.format();
        let Some(l) = f.float_layout() else { return r };
        let (lanes, lb) = (c.dtype.lanes(), c.dtype.lane_bits());
        let nan = FastResult::AnyNan(f).representative();
        let m = ptx_cvt::accept::width_mask(lb);
        (0..lanes).fold(r, |v, i| {
            let lane = (v >> (i * lb)) & m;
            if l.is_nan_code(lane >> l.shift) {
                (v & !(m << (i * lb))) | (nan & m) << (i * lb)
            } else {
                v
            }
        })
    }
}

/// One variant's atlas file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub c: Cvt,
    pub open: Open,
    /// The digest of each block, in order.
    pub blocks: Vec<u64>,
}

/// The file holding a variant's digests.
pub fn file_name(c: &Cvt) -> String {
    format!("{}.digests", c.to_string().replace("::", "-"))
}

/// The header's first line.
pub fn magic() -> String {
    format!("# ptx-cvt atlas v{FORMAT_VERSION}")
}

impl Entry {
    /// The digest of the whole space: the blocks' sum.
    pub fn digest(&self) -> u64 {
        self.blocks.iter().fold(0, |d, &b| d.wrapping_add(b))
    }

    pub fn text(&self) -> String {
        let s = Space::of(&self.c);
        let names = instr::shape(&self.c).names;
        let sources: Vec<String> = names.iter().zip(&s.widths).map(|(n, w)| format!("{n}:{w}")).collect();
        let mut t = format!("{}\n# instruction: {}\n# sources: {}\n", magic(), self.c, sources.join(" "));
        let _ = writeln!(t, "# inputs: {}\n# block: {}\n# blocks: {}", s.size(), s.block_len(), s.blocks());
        let _ = writeln!(t, "# open-nan: {}", if self.open.nan { "yes" } else { "no" });
        let _ = writeln!(t, "# mask: {}", ptx_cvt::eval::fmt_hex(self.open.mask, self.c.dtype.bits()));
        let _ = writeln!(t, "# digest: {:016x}", self.digest());
        for (b, d) in self.blocks.iter().enumerate() {
            let _ = writeln!(t, "{b} {d:016x}");
        }
        t
    }

    /// Parse a file written by [`Entry::text`]; errors name the line.
    pub fn parse(text: &str, name: &str) -> Result<Entry, String> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let first = lines.next().map(|(_, l)| l).unwrap_or("");
        if first.trim_end() != magic() {
            return Err(format!("{name}:1: expected `{}` (another format version?), found `{first}`", magic()));
        }
        let (mut c, mut open_nan, mut mask, mut digest, mut count) = (None, None, None, None, None);
        let mut blocks = Vec::new();
        for (n, line) in lines {
            let bad = |what: &str| format!("{name}:{n}: {what}: `{line}`");
            if let Some(h) = line.strip_prefix("# ") {
                let Some((k, v)) = h.split_once(": ") else { continue };
                match k {
                    "instruction" => c = Some(instr::parse(v).map_err(|e| bad(&e.to_string()))?),
                    "open-nan" => open_nan = Some(v == "yes"),
                    "mask" => mask = Some(u64::from_str_radix(v, 16).map_err(|_| bad("bad mask"))?),
                    "digest" => digest = Some(u64::from_str_radix(v, 16).map_err(|_| bad("bad digest"))?),
                    "blocks" => count = Some(v.parse::<u64>().map_err(|_| bad("bad block count"))?),
                    _ => {}
                }
                continue;
            }
            let (b, d) = parse_block_line(line).map_err(|e| bad(&e))?;
            if b != blocks.len() as u64 {
                return Err(bad(&format!("expected block {}", blocks.len())));
            }
            blocks.push(d);
        }
        let c = c.ok_or_else(|| format!("{name}: no `# instruction:` line"))?;
        let blocks_expected = Space::of(&c).blocks();
        if count != Some(blocks_expected) || blocks.len() as u64 != blocks_expected {
            return Err(format!("{name}: {} block lines, {c} has {blocks_expected} blocks", blocks.len()));
        }
        let e = Entry {
            c,
            open: Open {
                nan: open_nan.ok_or_else(|| format!("{name}: no `# open-nan:` line"))?,
                mask: mask.ok_or_else(|| format!("{name}: no `# mask:` line"))?,
            },
            blocks,
        };
        if digest != Some(e.digest()) {
            return Err(format!("{name}: the `# digest:` line is not the sum of the blocks"));
        }
        Ok(e)
    }
}

/// A `BLOCK DIGEST` line: decimal block number, 16 hex digits.
pub fn parse_block_line(line: &str) -> Result<(u64, u64), String> {
    let mut f = line.split_whitespace();
    match (f.next(), f.next(), f.next()) {
        (Some(b), Some(d), None) => {
            let b = b.parse::<u64>().map_err(|_| format!("`{b}` is not a block number"))?;
            let d = u64::from_str_radix(d, 16).map_err(|_| format!("`{d}` is not a hex digest"))?;
            Ok((b, d))
        }
        _ => Err("expected `BLOCK DIGEST`".into()),
    }
}

/// What an atlas folder holds, per total source width: `8: all 99, 16: all 263, 32: 10 of 341`
/// (every width some variant has: 24 for the scaled e2m1x2 forms).
pub fn coverage(have: &[Cvt]) -> String {
    let all = variants(MAX_BITS);
    let mut widths: Vec<u32> = all.iter().map(|c| Space::of(c).bits).collect();
    widths.sort_unstable();
    widths.dedup();
    widths
        .iter()
        .map(|&b| {
            let n = all.iter().filter(|c| Space::of(c).bits == b).count();
            let h = have.iter().filter(|c| Space::of(c).bits == b && all.contains(c)).count();
            if h == n {
                format!("{b}: all {n}")
            } else {
                format!("{b}: {h} of {n}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The MANIFEST of an atlas folder: its header, then `file sha256` lines.
pub fn manifest(files: &[(String, String)], oracle_version: &str, max_bits: u32, coverage: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut m = format!(
        "{}\n# format: {FORMAT_VERSION}\n# oracle: ptx-cvt {oracle_version}\n# semantics: {}\n# profile: sm90\n\
         # block: 2^{BLOCK_BITS} inputs\n# max-source-bits: {max_bits}\n\
         # digest: sum mod 2^64 over inputs x of splitmix64(x * 0xd6e8feb86659fd93 XOR r) (vectors/README.md)\n\
         # variants: {}\n# coverage: {coverage}\n# file\tsha256\n",
        magic(),
        ptx_cvt::SEMANTICS_VERSION,
        files.len()
    );
    for (name, text) in files {
        let h: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(m, "{name}\t{h}");
    }
    m
}

/// Read an atlas folder: the MANIFEST's header and checksums, then every
/// file it lists, in its order.
pub fn read_dir(dir: &std::path::Path) -> Result<Vec<Entry>, String> {
    use sha2::{Digest, Sha256};
    let mpath = dir.join("MANIFEST");
    if !dir.is_dir() {
        return Err(format!("{}: no such directory (an atlas is a folder, e.g. vectors/atlas)", dir.display()));
    }
    if !mpath.exists() {
        return Err(format!(
            "{} is not an atlas folder: it has no MANIFEST (`ptx-cvt atlas gen --out DIR` makes one; vectors/atlas is the committed atlas)",
            dir.display()
        ));
    }
    let m = std::fs::read_to_string(&mpath).map_err(|e| format!("cannot read {}: {e}", mpath.display()))?;
    let name = mpath.display().to_string();
    if m.lines().next() != Some(magic().as_str()) {
        return Err(format!("{name}:1: expected `{}` (another format version?)", magic()));
    }
    let mut out = Vec::new();
    for (i, line) in m.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty()) {
        let bad = |what: String| format!("{name}:{}: {what}", i + 1);
        let (file, sum) = line.split_once('\t').ok_or_else(|| bad(format!("expected `FILE<tab>SHA256`: `{line}`")))?;
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).map_err(|e| bad(format!("cannot read {}: {e}", path.display())))?;
        let h: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        if h != sum {
            return Err(bad(format!("{file} has sha256 {h}, the MANIFEST says {sum}")));
        }
        out.push(Entry::parse(&text, &path.display().to_string())?);
    }
    Ok(out)
}
