//! Diagnosis of wrong answers: which alternative semantics (the
//! [`catalogue::CATALOGUE`]'s hypotheses, each computed by the oracle on the
//! same operands) reproduce what the implementation answered, and the
//! grouping of mismatches by the hypothesis that explains them
//! (docs/diagnosis.md). A hypothesis never changes what is expected: it
//! only explains the difference.

mod alt;
pub mod catalogue;
mod glob;
pub mod lanes;
pub mod mechanism;
pub mod misread;
mod probe;

use std::collections::{BTreeMap, BTreeSet};

use ptx_cvt::{AcceptSet, Cvt, Operand, Profile};

pub use catalogue::{Hypothesis, CATALOGUE, CONSTANT};
pub use glob::variants_glob;
pub use lanes::Lanes;
pub use probe::{legalize, Probe};

/// The hypotheses that reproduce one answer: bit `i` for `CATALOGUE[i]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hyps(pub u128);

impl Hyps {
    pub fn has(self, i: usize) -> bool {
        self.0 >> i & 1 == 1
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The hypotheses, in catalogue (preference) order.
    pub fn iter(self) -> impl Iterator<Item = &'static Hypothesis> {
        CATALOGUE.iter().enumerate().filter(move |(i, _)| self.has(*i)).map(|(_, h)| h)
    }
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(|h| h.name).collect()
    }
}

/// The policy layer's answer for `c`, a legal spelling or not (see [`Probe::eval_any`]).
pub fn eval_any(c: &Cvt, ops: &[Operand], dst_width: u32, profile: Profile) -> Option<AcceptSet> {
    ptx_cvt::eval::evaluate_accept_unchecked_with(c, ops, dst_width, profile, &ptx_cvt::decide::Ptx).ok()
}

/// One wrong part of a mismatch, diagnosed on its own: the whole result,
/// or one wrong lane of a packed result (a scalar conversion of that lane's
/// source into that lane's format).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The lane (0 the lowest), or `None` for the whole result.
    pub lane: Option<u8>,
    /// The hypotheses that reproduce this part of the answer.
    pub hyps: Hyps,
}

/// What the hypotheses say of one answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnosis {
    /// The wrong parts (none for a right answer).
    pub units: Vec<Unit>,
    /// The hypotheses that the answer's right parts contradict: they
    /// predict something else where the implementation was right.
    pub refuted: Hyps,
}

impl Diagnosis {
    /// Every hypothesis that reproduces some wrong part.
    pub fn hyps(&self) -> Hyps {
        Hyps(self.units.iter().fold(0, |acc, u| acc | u.hyps.0))
    }
}

/// Every hypothesis that reproduces `got` for the case (`expected` is the
/// oracle's answer), lane by lane for packed results.
pub fn diagnose(
    c: &Cvt,
    ops: &[Operand],
    dst_width: u32,
    profile: Profile,
    expected: &AcceptSet,
    got: &AcceptSet,
) -> Diagnosis {
    diagnose_only(c, ops, dst_width, profile, expected, got, Hyps(u128::MAX))
}

/// [`diagnose`] with only the hypotheses of `only`: on a right answer, which
/// of them it refutes (the evidence of the passed cases).
pub fn diagnose_only(
    c: &Cvt,
    ops: &[Operand],
    dst_width: u32,
    profile: Profile,
    expected: &AcceptSet,
    got: &AcceptSet,
    only: Hyps,
) -> Diagnosis {
    let p = Probe { c, ops, dst_width, profile, expected };
    let lanes = Lanes::of(c);
    let bits = got.single();
    // A packed answer is judged lane by lane; the whole register otherwise
    // (and where only bits outside the lanes are wrong).
    let (mut wrong, mut right) = (Vec::new(), Vec::new());
    if let (true, Some(b)) = (lanes.is_packed(), bits) {
        for i in 0..lanes.n {
            let g = lanes.lane(b, i);
            if lanes.accepts(expected, i, g) {
                right.push((i, g));
            } else {
                wrong.push((i, g));
            }
        }
    }
    let passed = got.is_subset_of(expected);
    let whole = wrong.is_empty() && !passed;
    let mut units: Vec<Unit> = wrong.iter().map(|&(i, _)| Unit { lane: Some(i as u8), hyps: Hyps(0) }).collect();
    if whole {
        units.push(Unit { lane: None, hyps: Hyps(0) });
    }
    let mut refuted = 0u128;
    for (i, hyp) in CATALOGUE.iter().enumerate().filter(|(i, _)| only.has(*i)) {
        let Some(alt) = (hyp.compute)(&p) else { continue };
        if alt.width != got.width {
            continue;
        }
        if whole {
            if got.is_subset_of(&alt) {
                units[0].hyps.0 |= 1 << i;
            }
            continue;
        }
        for (u, &(lane, g)) in units.iter_mut().zip(&wrong) {
            if lanes.accepts(&alt, lane, g) {
                u.hyps.0 |= 1 << i;
            }
        }
        let contradicted = if lanes.is_packed() && bits.is_some() {
            right.iter().any(|&(lane, g)| !lanes.accepts(&alt, lane, g))
        } else {
            // A right answer refutes only a claimed deviation: not where the
            // oracle accepts every answer the hypothesis gives (an open NaN).
            passed && !got.is_subset_of(&alt) && !alt.is_subset_of(expected)
        };
        if contradicted {
            refuted |= 1 << i;
        }
    }
    Diagnosis { units, refuted: Hyps(refuted) }
}

/// The explanation chosen for each of `cases` (their hypothesis sets), all
/// of one scope: greedily, the hypothesis that reproduces the most cases not
/// yet explained (ties: the one the fewest right answers refute,
/// `refuted[i]`, then the earlier in the catalogue), until none is left;
/// `None` for cases no hypothesis reproduces.
pub fn choose(cases: &[Hyps], refuted: &[u64]) -> Vec<Option<usize>> {
    let mut out: Vec<Option<usize>> = vec![None; cases.len()];
    let mut left: Vec<usize> = (0..cases.len()).filter(|&k| !cases[k].is_empty()).collect();
    while !left.is_empty() {
        let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
        for &k in &left {
            for i in (0..CATALOGUE.len()).filter(|&i| cases[k].has(i)) {
                *counts.entry(i).or_default() += 1;
            }
        }
        let rank =
            |i: usize, n: usize| (n, std::cmp::Reverse(refuted.get(i).copied().unwrap_or(0)), std::cmp::Reverse(i));
        let Some((&best, _)) = counts.iter().max_by_key(|(i, n)| rank(**i, **n)) else { break };
        left.retain(|&k| {
            if cases[k].has(best) {
                out[k] = Some(best);
                false
            } else {
                true
            }
        });
    }
    out
}

/// The other hypotheses that reproduce every case of a class besides its
/// explanation `chosen`.
pub fn alternatives(cases: impl Iterator<Item = Hyps>, chosen: usize) -> Vec<&'static str> {
    let all = cases.fold(u128::MAX, |acc, h| acc & h.0);
    Hyps(all & !(1 << chosen)).names()
}

/// The meaning of a hypothesis with its placeholders filled from the
/// class's variants and `seen`, the union of its cases' hypotheses:
/// `{rounding}` (`.rz/.rm/.rp`), `{modifiers}` (`.sat/.ftz`).
pub fn explain_text(h: &Hypothesis, variants: &BTreeSet<Cvt>, seen: Hyps) -> String {
    let mut roundings: Vec<&str> = Vec::new();
    let mut mods: Vec<&str> = Vec::new();
    for c in variants {
        if let Some(r) = c.rounding {
            if !roundings.contains(&r.name()) {
                roundings.push(r.name());
            }
        }
        for (on, m) in [(c.sat, "sat"), (c.ftz, "ftz"), (c.relu, "relu"), (c.satfinite, "satfinite")] {
            if on && !mods.contains(&m) {
                mods.push(m);
            }
        }
    }
    let single: Vec<&str> = ["sat", "ftz", "relu", "satfinite"]
        .into_iter()
        .filter(|m| seen.names().contains(&format!("no-{m}").as_str()))
        .collect();
    if !single.is_empty() {
        mods = single;
    }
    let list = |v: &[&str], none: &str| {
        if v.is_empty() {
            none.to_string()
        } else {
            format!("`{}`", v.iter().map(|s| format!(".{s}")).collect::<Vec<_>>().join("/"))
        }
    };
    h.meaning.replace("{rounding}", &list(&roundings, "the rounding")).replace("{modifiers}", &list(&mods, "modifiers"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_cvt::{evaluate_accept, instr};

    fn why(instr_text: &str, src: (u64, u32), dst: u32, got: u64) -> Vec<&'static str> {
        why_ops(instr_text, &[Operand { bits: src.0, width: src.1 }], dst, got)
    }

    /// `why` for two 32-bit source registers.
    fn why2(instr_text: &str, ops: [u64; 2], dst: u32, got: u64) -> Vec<&'static str> {
        why_ops(instr_text, &ops.map(|bits| Operand { bits, width: 32 }), dst, got)
    }

    fn why_ops(instr_text: &str, ops: &[Operand], dst: u32, got: u64) -> Vec<&'static str> {
        let c = instr::parse(instr_text).unwrap();
        let e = evaluate_accept(&c, ops, dst, Profile::Sm90).unwrap();
        diagnose(&c, ops, dst, Profile::Sm90, &e, &AcceptSet::exact(dst, got)).hyps().names()
    }

    #[test]
    fn the_catalogue_fits_the_bit_set_and_names_are_unique() {
        assert!(CATALOGUE.len() <= 128);
        let names: BTreeSet<&str> = CATALOGUE.iter().map(|h| h.name).collect();
        assert_eq!(names.len(), CATALOGUE.len());
        assert!(CATALOGUE.iter().all(|h| h.name != CONSTANT));
    }

    #[test]
    fn docs_list_every_hypothesis() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/diagnosis.md")).unwrap();
        for h in CATALOGUE {
            assert!(
                doc.contains(&format!("| `{}` | {} |", h.name, h.meaning))
                    || doc.contains(&format!("| `{}` | {} (generic) |", h.name, h.meaning)),
                "docs/diagnosis.md lacks the row of {}",
                h.name
            );
        }
    }

    #[test]
    fn known_defects_are_explained() {
        // cvt.rm.f32.s32 of 2^24+1: down gives 4b800000 (2^24); to nearest even too,
        // so take 2^24+3: down 4b800001, nearest even 4b800002.
        assert!(why("cvt.rm.f32.s32", (0x0100_0003, 32), 32, 0x4b80_0002).contains(&"rounding-rn"));
        // .sat ignored: cvt.rn.sat.f32.s32 of 5 gives 5.0 (40a00000) instead of 1.0.
        let w = why("cvt.rn.sat.f32.s32", (5, 32), 32, 0x40a0_0000);
        assert_eq!(w[..2], ["modifiers-ignored", "no-sat"], "{w:?}");
        // f64 NaN → s32 gives 0 (PTX: 80000000 from an f64 source).
        assert!(why("cvt.rzi.s32.f64", (0x7ff8_0000_0000_0000, 64), 32, 0).contains(&"nan-int-zero"));
        // cvt.s16.s8 into 32 bits: ffffff80 expected, 0000ff80 upper bits zero.
        assert!(why("cvt.s16.s8", (0x80, 8), 32, 0x0000_ff80).contains(&"upper-bits-zero"));
        // f32 → s64 through s32: 2^40 gives 7fffffff.
        assert!(why("cvt.rzi.s64.f32", (0x5380_0000, 32), 64, 0x7fff_ffff).contains(&"via-s32"));
        // s64 → f32 through f64: 2^53+2^29+1 rounds to 2^53+2^29, then (a tie) to 2^53.
        assert!(why("cvt.rn.f32.s64", (0x0020_0000_2000_0001, 64), 32, 0x5a00_0000).contains(&"via-f64"));
        // Wraps: f32 300.0 → u8 gives 300 mod 256 = 44.
        assert!(why("cvt.rzi.u8.f32", (0x4396_0000, 32), 8, 44).contains(&"wraps"));
    }

    /// NaN into fp4, which has no NaN: PTX gives +MAX (`7`, docs/semantics.md
    /// §5.9); a zero of either sign in that lane is "a NaN source gives ±0",
    /// also the `-0` code (`8`) from a positive NaN, as a port that takes a
    /// NaN-less format's "NaN" for its -0 code answers. A +0 in the other,
    /// non-NaN lane is not.
    #[test]
    fn nan_to_zero_takes_either_sign() {
        let c = instr::parse("cvt.rn.satfinite.e2m1x2.f16x2").unwrap();
        // high lane 2.0 (e2m1 `4`), low lane a positive NaN.
        let ops = [Operand { bits: 0x4000_7e00, width: 32 }];
        let e = evaluate_accept(&c, &ops, 8, Profile::Sm90).unwrap();
        assert_eq!(e.single(), Some(0x47));
        for got in [0x40, 0x48] {
            let names = diagnose(&c, &ops, 8, Profile::Sm90, &e, &AcceptSet::exact(8, got)).hyps().names();
            assert!(names.contains(&"nan-to-zero"), "{got:02x}: {names:?}");
        }
        let names = diagnose(&c, &ops, 8, Profile::Sm90, &e, &AcceptSet::exact(8, 0x07)).hyps().names();
        assert!(!names.contains(&"nan-to-zero"), "{names:?}");
    }

    /// `.satfinite` ignored in an fp8 form: the overflow gives a NaN, of
    /// either sign (e4m3's NaN codes are `7f` and `ff`, docs/semantics.md
    /// §1.2; `.satfinite` gives −MAX_NORM `fe` for −1.7e38, §5.8 [PTX]).
    /// The high lane bf16 `fe01` answered `ff` (−NaN) or `7f` is the
    /// hypothesis; `7e` (+MAX_NORM, a sign error, not a NaN) is not.
    #[test]
    fn satfinite_ignored_overflows_to_either_nan() {
        let c = instr::parse("cvt.rn.satfinite.e4m3x2.bf16x2").unwrap();
        let ops = [Operand { bits: 0xfe01_3f80, width: 32 }];
        let e = evaluate_accept(&c, &ops, 16, Profile::Sm90).unwrap();
        assert_eq!(e.single(), Some(0xfe38));
        for (got, want) in [(0xff38, true), (0x7f38, true), (0x7e38, false)] {
            let names = diagnose(&c, &ops, 16, Profile::Sm90, &e, &AcceptSet::exact(16, got)).hyps().names();
            assert_eq!(names.contains(&"no-satfinite"), want, "{got:04x}: {names:?}");
        }
    }

    /// e4m3 taken for an IEEE format (glslang #3981 clamped e4m3 at 256;
    /// LLVM's f8E4M3 reserves exponent 1111). OCP FP8 e4m3: `78` is 256,
    /// `40` is 2.0, f16 `5c00` and `4000` (docs/semantics.md §1.2); read the
    /// IEEE way `78` is Inf, f16 `7c00`. Into e4m3, f32 300.0 rounds to 288
    /// (`79`); the IEEE reading's largest value is 240 (`77`).
    #[test]
    fn e4m3_handled_as_ieee_is_explained() {
        let widen = "cvt.rn.f16x2.e4m3x2";
        assert!(why(widen, (0x7840, 16), 32, 0x7c00_4000).contains(&"ieee-specials"));
        assert!(!why(widen, (0x7840, 16), 32, 0x7e00_4000).contains(&"ieee-specials"));
        // e2m1 (OCP MX: no specials) `7` is 6.0, f16 `4600`; read the IEEE way it is a NaN,
        // which a format with no NaN of its own leaves to the converter: any quiet NaN.
        for got in [0x0000_7fff, 0x0000_7e00, 0x0000_fe00] {
            assert!(why("cvt.rn.f16x2.e2m1x2", (0x07, 8), 32, got).contains(&"ieee-specials"), "{got:08x}");
        }
        assert!(!why("cvt.rn.f16x2.e2m1x2", (0x07, 8), 32, 0x0000_7c00).contains(&"ieee-specials"));
        let c = instr::parse("cvt.rn.satfinite.e4m3x2.f32").unwrap();
        let ops = [Operand { bits: 0x4396_0000, width: 32 }, Operand { bits: 0x3f80_0000, width: 32 }];
        let e = evaluate_accept(&c, &ops, 16, Profile::Sm90).unwrap();
        assert_eq!(e.single(), Some(0x7938));
        let names = diagnose(&c, &ops, 16, Profile::Sm90, &e, &AcceptSet::exact(16, 0x7738)).hyps().names();
        assert!(names.contains(&"ieee-specials"), "{names:?}");
    }

    /// f32 → e4m3 through f16 first, as Triton's removed two-step path did
    /// (triton-lang/triton pull request 10846). 1.0625 + 2^-13 (`3f880400`)
    /// is above the midpoint of e4m3 1.0 (`38`) and 1.125 (`39`), so it
    /// rounds to `39`; f16 rounds it onto the midpoint 1.0625, and the tie
    /// then goes to the even `38`.
    #[test]
    fn fp8_through_f16_is_explained() {
        let c = instr::parse("cvt.rn.satfinite.e4m3x2.f32").unwrap();
        let ops = [Operand { bits: 0x3f88_0400, width: 32 }, Operand { bits: 0x3f80_0000, width: 32 }];
        let e = evaluate_accept(&c, &ops, 16, Profile::Sm90).unwrap();
        assert_eq!(e.single(), Some(0x3938));
        let names = diagnose(&c, &ops, 16, Profile::Sm90, &e, &AcceptSet::exact(16, 0x3838)).hyps().names();
        assert!(names.contains(&"via-f16"), "{names:?}");
        // bf16 (7 fraction bits) rounds it to 1.0625 as well.
        assert!(names.contains(&"via-bf16"), "{names:?}");
    }

    /// `(half)(float)x` under `.rp`, as PyTorch's ATen `convert<Half,
    /// double>` did (pytorch/pytorch, aten/src/aten/Scalar.cpp): a library
    /// knows no rounding modes. 1 + 2^-11 + 2^-40 (`3ff0020000001000`) is
    /// above the midpoint of f16 1.0 (`3c00`) and 1 + 2^-10 (`3c01`), so
    /// `.rp` and `.rn` both give `3c01`; f32 drops 2^-40, and the tie then
    /// goes to the even `3c00`. Through f32 with `.rp` in both steps gives
    /// `3c01` (directed roundings compose), so only the row that rounds
    /// both steps to nearest reproduces it.
    #[test]
    fn through_f32_to_nearest_under_rp_is_explained() {
        let got = why("cvt.rp.f16.f64", (0x3ff0_0200_0000_1000, 64), 16, 0x3c00);
        assert!(got.contains(&"via-f32-rn"), "{got:?}");
        assert!(!got.contains(&"via-f32") && !got.contains(&"rounding-rn"), "{got:?}");
        // Another wrong answer is not its answer.
        assert!(!why("cvt.rp.f16.f64", (0x3ff0_0200_0000_1000, 64), 16, 0x3c02).contains(&"via-f32-rn"));
    }

    /// A decoder with no subnormal branch: exponent field 0 read as a normal
    /// exponent, as factor/factor issue 2167's half → float did (the half's
    /// bits shifted, 112 added to the exponent). f16 `0001` is 2^-24 (f32
    /// `33800000`); read so it is 2^-15 · (1 + 2^-10), f32 `38002000`.
    /// ue8m0 code c is 2^(c−127) (PTX ISA, "Floating Point Data Types");
    /// f32 `00000001` (2^-149) rounds up to code `00`, read so (2^-127 ·
    /// (1 + 2^-23)) to `01`: a converter that takes the f32 exponent field
    /// as the code and adds 1 under `.rp` when the fraction is not 0.
    #[test]
    fn a_subnormal_source_read_with_exponent_field_zero_is_explained() {
        let got = why("cvt.f32.f16", (0x0001, 16), 32, 0x3800_2000);
        assert!(got.contains(&"subnormal-source-field-zero"), "{got:?}");
        assert!(!got.contains(&"subnormal-source-as-normal"), "{got:?}");
        let got = why2("cvt.rp.satfinite.ue8m0x2.f32", [0x0000_0001, 0x3f80_0000], 16, 0x017f);
        assert!(got.contains(&"subnormal-source-field-zero"), "{got:?}");
        // Exponent field 1 reads 2^-126 · (1 + 2^-23): code 02.
        assert!(!got.contains(&"subnormal-source-as-normal"), "{got:?}");
    }

    /// `.satfinite` clamps ±Inf too (ue8m0 `fe`, PTX ISA `cvt`); a converter
    /// whose Inf branch returns before the clamp gives `ff` (NaN) for it but
    /// clamps a finite overflow (f32 `7f7fffff` under `.rp` is 2^128, past
    /// `fe`). Whether the clamp covers Inf is a known confusion (onnx/onnx
    /// issue 5651).
    #[test]
    fn satfinite_skipped_for_inf_only_is_explained() {
        let c = "cvt.rp.satfinite.ue8m0x2.f32";
        // Lane by lane: the Inf lane wrong, the finite one right (which
        // refutes `no-satfinite` when the cases are grouped).
        let got = why2(c, [0x7f80_0000, 0x7f7f_ffff], 16, 0xfffe);
        assert!(got.contains(&"satfinite-skips-inf"), "{got:?}");
        // The finite overflow unclamped is another defect.
        let got = why2(c, [0x7f80_0000, 0x7f7f_ffff], 16, 0xfeff);
        assert!(got.contains(&"no-satfinite") && !got.contains(&"satfinite-skips-inf"), "{got:?}");
    }

    /// A float-only helper on a double (`__saturatef(x)` for f64): 1/3 in
    /// f64 is 3fd5555555555555; to nearest in f32 it is 3eaaaaab (IEEE 754
    /// round to nearest even), which widens exactly to 3fd5555560000000.
    #[test]
    fn an_f64_result_through_an_f32_temporary_is_explained() {
        let got = why("cvt.sat.f64.f64", (0x3fd5_5555_5555_5555, 64), 64, 0x3fd5_5555_6000_0000);
        assert!(got.contains(&"via-f32"), "{got:?}");
        assert!(!got.contains(&"integer-rounding-applied"), "{got:?}");
    }

    /// `int t = f;` then widened: 2^32 (4f800000) overflows the 32-bit
    /// temporary, where x86's cvttss2si gives 80000000, sign-extended into
    /// the s64; −2^31 (cf000000) into a 32-bit unsigned temporary wraps to
    /// 80000000, zero-extended into the u64 (Intel SDM, CVTTSS2SI).
    #[test]
    fn a_32_bit_integer_temporary_that_overflows_is_explained() {
        let got = why("cvt.rzi.s64.f32", (0x4f80_0000, 32), 64, 0xffff_ffff_8000_0000);
        assert!(got.contains(&"via-s32") && !got.contains(&"x86-indefinite"), "{got:?}");
        let got = why("cvt.rzi.u64.f32", (0xcf00_0000, 32), 64, 0x8000_0000);
        assert!(got.contains(&"via-u32") && !got.contains(&"wraps-negative"), "{got:?}");
        // The temporary's own overflow, clamped, is the row it always was.
        assert!(why("cvt.rzi.s64.f32", (0x4f80_0000, 32), 64, 0x7fff_ffff).contains(&"via-s32"));
    }

    /// `if (f > INT_MAX)` with an f32 `f`: INT_MAX becomes 2^31 (4f000000,
    /// IEEE 754 round to nearest), so 2^31 passes and x86's cvttss2si gives
    /// 80000000; UINT_MAX becomes 2^32 (4f800000), which wraps to 0. In f64
    /// INT_MAX is exact: no such bug, and no such name.
    #[test]
    fn a_clamp_bound_rounded_up_in_float_is_explained() {
        let row = "clamp-bound-rounds-up";
        assert!(why("cvt.rzi.s32.f32", (0x4f00_0000, 32), 32, 0x8000_0000).contains(&row));
        assert!(why("cvt.rni.u32.f32", (0x4f80_0000, 32), 32, 0).contains(&row));
        assert!(!why("cvt.rzi.s32.f32", (0x4f00_0001, 32), 32, 0x8000_0100).contains(&row));
        assert!(!why("cvt.rzi.s32.f64", (0x41e0_0000_0000_0000, 64), 32, 0x8000_0000).contains(&row));
    }

    /// `.sat` turns a NaN into +0 (docs/semantics.md §5.7, rule `sat-nan`,
    /// a hardware result); a NaN branch that returns before the clamp gives
    /// a NaN.
    #[test]
    fn sat_skipped_for_nan_is_explained() {
        let got = why("cvt.sat.f32.f32", (0x7fc0_0000, 32), 32, 0x7fff_ffff);
        assert!(got.contains(&"sat-skips-nan"), "{got:?}");
        let got = why("cvt.rni.sat.f64.f64", (0x7ff8_0000_0000_0000, 64), 64, 0xfff8_0000_0000_0000);
        assert!(got.contains(&"sat-skips-nan"), "{got:?}");
        assert!(!why("cvt.sat.f32.f32", (0x3f00_0000, 32), 32, 0x7fff_ffff).contains(&"sat-skips-nan"));
    }

    /// A −0 lane written as +0 (the sign taken from `x < 0`): e4m3 `80` is
    /// −0 and `40` is 2.0, f16 `8000` and `4000` (IEEE binary16, OCP FP8).
    #[test]
    fn a_negative_zero_lane_written_as_positive_is_explained() {
        assert!(why("cvt.rn.f16x2.e4m3x2", (0x8040, 16), 32, 0x0000_4000).contains(&"zero-sign-lost"));
        assert!(!why("cvt.rn.f16x2.e4m3x2", (0x8040, 16), 32, 0x0001_4000).contains(&"zero-sign-lost"));
        assert!(why("cvt.rn.f16.f32", (0x8000_0000, 32), 16, 0x0000).contains(&"zero-sign-lost"));
    }

    /// The PTX 9.4 modifiers ignored (values from docs/semantics.md §5.15:
    /// `.pzo` writes −0 as +0; the n1 scale divides both lanes, so 1.0 with
    /// a scale of 2^1 (`80`) is 0.5, e4m3 `30`, and 1.0 itself is `38`).
    #[test]
    fn ptx94_modifiers_ignored_are_explained() {
        assert!(why("cvt.rn.pzo.f16.f32", (0x8000_0000, 32), 16, 0x8000).contains(&"no-pzo"));
        let c = instr::parse("cvt.rn.satfinite.scaled::n1::ue8m0.e4m3x2.f32").unwrap();
        let one = Operand { bits: 0x3f80_0000, width: 32 };
        let ops = [one, one, Operand { bits: 0x80, width: 8 }];
        let e = evaluate_accept(&c, &ops, 16, Profile::Sm90).unwrap();
        assert_eq!(e.single(), Some(0x3030));
        let names = diagnose(&c, &ops, 16, Profile::Sm90, &e, &AcceptSet::exact(16, 0x3838)).hyps().names();
        assert!(names.contains(&"no-scale"), "{names:?}");
    }

    /// No hypothesis may panic, whatever the form: a wrong answer (the low
    /// bit flipped) for every case of every spelling's compact vectors
    /// is diagnosed without a panic (a hypothesis that does not apply gives
    /// `None`).
    #[test]
    fn every_form_can_be_diagnosed() {
        use ptx_cvt::gen::{self, Level};
        let legal = |c: &Cvt| instr::check(c, gen::natural_regs(c), None, None).is_ok();
        for c in gen::all_spellings().into_iter().filter(legal) {
            for g in gen::cases(&c, Level::Compact, 1) {
                let Ok(e) = evaluate_accept(&c, &g.operands, g.dst_width, Profile::Sm90) else { continue };
                let Some(bits) = e.single() else { continue };
                let got = AcceptSet::exact(g.dst_width, bits ^ 1);
                diagnose(&c, &g.operands, g.dst_width, Profile::Sm90, &e, &got);
            }
        }
    }

    /// The instructions the composite step evaluates without the legality
    /// check (each rewrite of each legal spelling) never panic.
    #[test]
    fn every_rewrite_evaluates_without_a_panic() {
        use ptx_cvt::gen::{self, Level};
        let legal = |c: &Cvt| instr::check(c, gen::natural_regs(c), None, None).is_ok();
        let rewrites = ["rounding-rn", "rounding-rna", "rounding-rz", "rounding-rm", "rounding-rp"];
        let rewrites = rewrites.into_iter().chain(["no-sat", "no-ftz", "no-relu", "no-satfinite", "modifiers-ignored"]);
        let rewrites: Vec<&str> = rewrites.collect();
        for c in gen::all_spellings().into_iter().filter(legal) {
            for g in gen::cases(&c, Level::Compact, 1).into_iter().step_by(7) {
                for r in &rewrites {
                    if let Some(c1) = catalogue::rewrite(r, &c) {
                        eval_any(&c1, &g.operands, g.dst_width, Profile::Sm90);
                    }
                }
            }
        }
    }

    #[test]
    fn a_wrong_answer_no_hypothesis_gives_is_unexplained() {
        assert!(why("cvt.rn.f16.f32", (0x3f80_1000, 32), 16, 0x1234).is_empty());
    }

    #[test]
    fn greedy_choice_prefers_the_wider_cover() {
        let a = Hyps(0b011);
        let b = Hyps(0b010);
        let c = Hyps(0b100);
        assert_eq!(choose(&[a, b, c, Hyps(0)], &[]), vec![Some(1), Some(1), Some(2), None]);
        // Of two that reproduce as many, the one fewer right answers refute.
        assert_eq!(choose(&[a], &[3, 1]), vec![Some(1)]);
    }
}
