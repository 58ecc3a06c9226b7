//! Golden-vector generation: which variants exist, which inputs exercise
//! them (derived from the format table, see `inputs`), and the coverage class
//! of every case (see `coverage`). Deterministic: the same version, level and
//! seed give the same cases, whatever the caller's parallelism.

pub mod coverage;
mod inputs;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::accept::width_mask;
use crate::caseline::format_case;
use crate::eval::{evaluate, Operand};
use crate::instr::{self, Cvt, PtxVersion, Regs, Rounding, Target, Type, REG_WIDTHS};
use crate::policy::{self, Profile};
use crate::round::Grid;

/// How much to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Structured inputs plus one representative of every class the deep
    /// level reaches; small enough to commit.
    Compact,
    /// Every input for sources of 16 bits or less; all exponents and many
    /// seeded random values otherwise.
    Deep,
}

impl FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        match s {
            "compact" => Ok(Level::Compact),
            "deep" => Ok(Level::Deep),
            _ => Err(UnknownLevel(s.into())),
        }
    }
}

/// A level name that is neither `compact` nor `deep`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLevel(pub String);

impl fmt::Display for UnknownLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown level `{}` (known: compact, deep)", self.0)
    }
}

impl std::error::Error for UnknownLevel {}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Compact => "compact",
            Level::Deep => "deep",
        })
    }
}

/// Every spelling in canonical form (legal or not), in a fixed order:
/// scalar forms first, then tf32 and the packed forms, then the spellings
/// with the PTX ISA 9.4 modifiers `.pzo` and `.scaled::n1::ue8m0` (last, so
/// that the earlier ones keep their positions, which fuzz inputs index).
pub fn all_spellings() -> Vec<Cvt> {
    let scalar = Type::SCALAR.into_iter().flat_map(|d| Type::SCALAR.into_iter().map(move |a| (d, a)));
    let others =
        Type::all().flat_map(|d| Type::all().map(move |a| (d, a))).filter(|(d, a)| !(d.is_scalar() && a.is_scalar()));
    let pairs: Vec<(Type, Type)> = scalar.chain(others).collect();
    let mut v = Vec::new();
    // The scale modifier only where some form takes it (keeps the list short).
    for &(d, a) in &pairs {
        let scales: &[bool] = if instr::packed::scalable_pair(d, a) { &[false, true] } else { &[false] };
        push_variants(&mut v, d, a, scales.iter().map(|&scaled| Cvt { scaled, ..Cvt::new(d, a) }));
    }
    // (pzo, scaled_n1), again only where some form takes them.
    for &(d, a) in &pairs {
        let pzo = instr::packed::pzo_pair(d, a);
        let n1 = instr::packed::single_scalable_pair(d, a);
        let mods = [(true, false), (false, true), (true, true)];
        let bases = mods.into_iter().filter(|&(p, s)| (!p || pzo) && (!s || n1));
        push_variants(&mut v, d, a, bases.map(|(pzo, scaled_n1)| Cvt { pzo, scaled_n1, ..Cvt::new(d, a) }));
    }
    v
}

/// Every rounding (or none) and combination of .ftz .sat .relu .satfinite on each base spelling.
fn push_variants(v: &mut Vec<Cvt>, d: Type, a: Type, bases: impl Iterator<Item = Cvt> + Clone) {
    for r in std::iter::once(None).chain(Rounding::ALL.into_iter().map(Some)) {
        for bits in 0u8..16 {
            for base in bases.clone() {
                let c = Cvt {
                    rounding: r,
                    ftz: bits & 1 != 0,
                    sat: bits & 2 != 0,
                    relu: bits & 4 != 0,
                    satfinite: bits & 8 != 0,
                    dtype: d,
                    atype: a,
                    ..base
                };
                if !(c.sat && c.satfinite) {
                    v.push(c);
                }
            }
        }
    }
}

/// Registers exactly as wide as the operands' types.
pub fn natural_regs(c: &Cvt) -> Regs {
    Regs { dst: c.dtype.bits(), src: instr::shape(c).srcs[0] }
}

/// Spellings legal on at least one of the targets, each with the targets
/// that have it.
pub fn legal_variants(targets: &[(Target, PtxVersion)]) -> Vec<(Cvt, Vec<Target>)> {
    all_spellings()
        .into_iter()
        .filter_map(|c| {
            let on: Vec<Target> = targets
                .iter()
                .filter(|(t, v)| instr::check(&c, natural_regs(&c), Some(*t), Some(*v)).is_ok())
                .map(|(t, _)| *t)
                .collect();
            (!on.is_empty()).then_some((c, on))
        })
        .collect()
}

/// A per-variant seed: FNV-1a of the spelling mixed with the user's seed.
fn variant_seed(seed: u64, c: &Cvt) -> u64 {
    c.to_string().bytes().fold(0xcbf2_9ce4_8422_2325 ^ seed, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Operands and destination width of one generated case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenCase {
    pub operands: Vec<Operand>,
    pub dst_width: u32,
}

fn random_count(c: &Cvt, level: Level) -> usize {
    match (level, c.atype.bits()) {
        (_, b) if b <= 16 => 0,
        (Level::Compact, _) => 24,
        (Level::Deep, _) => 20_000,
    }
}

/// Random bits for `.rs` at the carry edge of a lane: the lane's field makes
/// (discarded top bits + random bits) land just below and exactly on 2^width.
fn rbits_edges(c: &Cvt, lane_bits: u64, lane: u32) -> [u32; 2] {
    let src = c.atype.format();
    let dst = c.dtype.format();
    let (_, width) = policy::stochastic_bits(c.dtype, 0, lane);
    let v = crate::exact::decode(src, lane_bits);
    let top = match &v {
        crate::exact::Value::Num { mag, .. } => {
            let l = dst.float_layout().unwrap();
            let Some(msb) = mag.msb_exp() else {
                return [0, 0];
            };
            let q = Grid::float(l).quantum(msb);
            let cut = q - mag.exp;
            if cut <= 0 {
                return [0, u32::MAX];
            }
            crate::round::Discarded { x: mag, bits: cut as u32 }.top_bits(width).to_u64().unwrap()
        }
        _ => return [0, u32::MAX],
    };
    let full = 1u64 << width;
    let carry = (full - top.min(full)) & (full - 1);
    let no_carry = carry.wrapping_sub(1) & (full - 1);
    [policy::rbits_for_lane(c.dtype, lane, carry), policy::rbits_for_lane(c.dtype, lane, no_carry)]
}

/// The cases of one variant at a level (operands at natural widths, plus
/// register-width variants for scalar forms).
pub fn cases(c: &Cvt, level: Level, seed: u64) -> Vec<GenCase> {
    if c.scaled {
        return scaled_cases(c, level, seed);
    }
    if c.scaled_n1 {
        return single_scaled_cases(c, level, seed);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(variant_seed(seed, c));
    let shape = instr::shape(c);
    let src_lane = c.atype.format();
    let dst_lane = c.dtype.format();
    let mut out = Vec::new();
    let natural_dst = c.dtype.bits();
    if c.atype.is_packed() {
        // One packed source: lane values paired; every code when the source is small.
        let lb = c.atype.lane_bits();
        let total = c.atype.bits();
        if total <= 16 && (total <= 8 || level == Level::Deep) {
            for v in 0..(1u64 << total) {
                out.push(GenCase { operands: vec![Operand { bits: v, width: total }], dst_width: natural_dst });
            }
        } else {
            let vals = inputs::values(src_lane, dst_lane, level, random_count(c, level), &mut rng);
            let n = vals.len();
            for i in 0..n {
                let (hi, lo) = (vals[i], vals[(i * 7 + 1) % n]);
                out.push(GenCase {
                    operands: vec![Operand { bits: (hi << lb) | lo, width: total }],
                    dst_width: natural_dst,
                });
            }
        }
        return out;
    }
    let lanes = shape.names.iter().filter(|n| !matches!(**n, "rbits" | "scale")).count();
    let vals = inputs::values(src_lane, dst_lane, level, random_count(c, level), &mut rng);
    let n = vals.len();
    let aw = c.atype.bits();
    for i in 0..n {
        let ops: Vec<Operand> =
            (0..lanes).map(|k| Operand { bits: vals[(i * (7 * k + 1) + k) % n], width: aw }).collect();
        if c.rounding == Some(Rounding::Rs) {
            // Random bits: at the carry edge of the high lane and of the low lane, and one random value.
            let top_lane = c.dtype.lanes() - 1;
            let mut rbits = Vec::new();
            rbits.extend(rbits_edges(c, ops[0].bits, top_lane));
            rbits.extend(rbits_edges(c, ops[lanes - 1].bits, 0));
            rbits.push(rng.next_u32());
            rbits.dedup();
            for r in rbits {
                let mut o = ops.clone();
                o.push(Operand { bits: r as u64, width: 32 });
                out.push(GenCase { operands: o, dst_width: natural_dst });
            }
        } else {
            out.push(GenCase { operands: ops, dst_width: natural_dst });
        }
    }
    if c.is_scalar() {
        // Register-width variants: wider source registers with stray upper bits,
        // wider destinations, where the form allows them.
        let picks: Vec<u64> = vals.iter().step_by((n / 8).max(1)).copied().collect();
        for w in REG_WIDTHS.into_iter().filter(|w| *w > aw) {
            if instr::check(c, Regs { dst: natural_dst, src: w }, None, None).is_ok() {
                for v in &picks {
                    let junk = rng.next_u64() & width_mask(w) & !width_mask(aw);
                    out.push(GenCase { operands: vec![Operand { bits: v | junk, width: w }], dst_width: natural_dst });
                }
            }
        }
        for w in REG_WIDTHS.into_iter().filter(|w| *w > natural_dst) {
            if instr::check(c, Regs { dst: w, src: aw }, None, None).is_ok() {
                for v in &picks {
                    out.push(GenCase { operands: vec![Operand { bits: *v, width: aw }], dst_width: w });
                }
            }
        }
    }
    out
}

/// Scale operands for the `.scaled::n2::ue8m0` forms (two ue8m0 codes, high
/// byte for the high lane): 2^0, the factors of the CuTe DSL round trip
/// (2^6), the extremes 2^-127 and 2^127, the NaN code ff in either lane,
/// and mixed lanes.
const SCALES: [u64; 10] = [0x7f7f, 0x8585, 0x7f85, 0x0000, 0xfefe, 0xff7f, 0x7fff, 0x8679, 0x01fd, 0xc040];

/// The cases of a scaled form: those of its unscaled spelling, each with one
/// of [`SCALES`] in turn as the last operand.
fn scaled_cases(c: &Cvt, level: Level, seed: u64) -> Vec<GenCase> {
    let base = cases(&Cvt { scaled: false, ..*c }, level, seed);
    base.into_iter()
        .enumerate()
        .map(|(i, mut g)| {
            g.operands.push(Operand { bits: SCALES[i % SCALES.len()], width: 16 });
            g
        })
        .collect()
}

/// Scale operands for the `.scaled::n1::ue8m0` forms (one ue8m0 code for both
/// lanes): 2^0, small and large factors, the extremes 2^-127 and 2^127, the
/// NaN code ff, and factors that lift f16/bf16/f32 subnormals into range.
const SCALES_N1: [u64; 10] = [0x7f, 0x80, 0x6f, 0x00, 0xfe, 0xff, 0x7e, 0x85, 0x90, 0x3f];

/// The cases of a `.scaled::n1::ue8m0` form: those of its unscaled spelling,
/// each with one of [`SCALES_N1`] in turn as the last operand.
fn single_scaled_cases(c: &Cvt, level: Level, seed: u64) -> Vec<GenCase> {
    let base = cases(&Cvt { scaled_n1: false, ..*c }, level, seed);
    base.into_iter()
        .enumerate()
        .map(|(i, mut g)| {
            g.operands.push(Operand { bits: SCALES_N1[i % SCALES_N1.len()], width: 8 });
            g
        })
        .collect()
}

/// One generated case line with its coverage class.
#[derive(Clone, Debug)]
pub struct Line {
    pub text: String,
    pub class: String,
}

/// Evaluate cases into case lines (`<case> => <result>  # <class>`).
pub fn lines(c: &Cvt, cases: &[GenCase], profile: Profile) -> Vec<Line> {
    cases
        .iter()
        .map(|g| {
            let o = evaluate(c, &g.operands, g.dst_width, profile).expect("generated cases are legal");
            let class = coverage::classify(c, &o);
            Line { text: format!("{}  # {class}", format_case(c, &g.operands, &o.accept)), class }
        })
        .collect()
}

/// The vector lines of a variant at a level. The compact level adds, after
/// its structured cases, the first deep case of every class they miss.
pub fn generate(c: &Cvt, level: Level, seed: u64, profile: Profile) -> Vec<Line> {
    let mut out = lines(c, &cases(c, level, seed), profile);
    if level == Level::Compact {
        let have: std::collections::HashSet<String> = out.iter().map(|l| l.class.clone()).collect();
        let mut extra: BTreeMap<String, Line> = BTreeMap::new();
        for l in lines(c, &cases(c, Level::Deep, seed), profile) {
            if !have.contains(&l.class) && !extra.contains_key(&l.class) {
                extra.insert(l.class.clone(), l);
            }
        }
        out.extend(extra.into_values());
    }
    out
}

/// The vector file name of a variant: its spelling with `.cases`, the `::`
/// of `.scaled::n2::ue8m0` written `-` (a colon is not portable in file names).
pub fn file_name(c: &Cvt) -> String {
    format!("{}.cases", c.to_string().replace("::", "-"))
}

/// The file header for a variant's vectors.
pub fn header(c: &Cvt, targets: &[Target], profile: Profile, level: Level, seed: u64, count: usize) -> String {
    let t: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
    format!(
        "# ptx-cvt case lines v1\n# generator: ptx-cvt {} gen\n# semantics: {}\n# instruction: {c}\n# targets: {}\n# profile: {profile}\n# level: {level}\n# seed: {seed}\n# cases: {count}\n",
        env!("CARGO_PKG_VERSION"),
        crate::SEMANTICS_VERSION,
        t.join(" ")
    )
}

/// Seeded random numbers for tests and fuzzing drivers (ChaCha8: the same
/// stream on every platform).
pub struct SeededRng(ChaCha8Rng);

impl SeededRng {
    pub fn new(seed: u64) -> SeededRng {
        SeededRng(ChaCha8Rng::seed_from_u64(seed))
    }
    #[allow(clippy::should_implement_trait)] // an infinite stream: no Option to return
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The structured source values of a scalar form (specials and the source
/// codes next to every boundary of the destination; no random values), for
/// tests of other engines.
pub fn boundary_values(c: &Cvt) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    inputs::values(c.atype.format(), c.dtype.format(), Level::Compact, 0, &mut rng)
}
