//! Triage of many results: per-variant tallies (passed, failed, declined)
//! and the mismatches and right answers the bug classes are computed from
//! ([`crate::group`]); [`crate::summary`] renders them, so that a badly
//! broken implementation still gives a report of one screen.
//!
//! A bug class is one cause over one scope (docs/diagnosis.md): the
//! catalogue hypothesis that reproduces its answers, within one instruction
//! family, or, where none does, the rule that decides the wrong bits within
//! one family and source type. Within each pair of types the hypothesis that
//! reproduces the most cases is chosen first ([`crate::diagnose::choose`]), so one
//! defect is one class whatever rounding modes, coverage events, register
//! widths and values it hits.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ptx_cvt::{Cvt, Operand, Profile, Rule, Type};
use serde_json::{json, Value};

use crate::diagnose::Hyps;
use crate::group::Evidence;
pub use crate::group::{family_name, BugClass, Explanation, Grouping};
use crate::mismatch::Mismatch;

/// Mismatches kept for grouping; later ones are only counted.
const MAX_KEPT: usize = 1_000_000;

/// What happened to the cases of a run. `unsupported`: cases the
/// implementation declined (it answered that it does not handle them).
/// `crashed` and `not_run` are for adapters that isolate crashes (a case
/// whose worker died; cases left when a run ended early).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    pub unsupported: u64,
    pub crashed: u64,
    pub not_run: u64,
}

impl Counts {
    /// Cases the implementation answered with bits.
    pub fn answered(&self) -> u64 {
        self.passed + self.failed
    }
    pub fn total(&self) -> u64 {
        self.passed + self.failed + self.unsupported + self.crashed + self.not_run
    }
    fn add(&mut self, o: &Counts) {
        self.passed += o.passed;
        self.failed += o.failed;
        self.unsupported += o.unsupported;
        self.crashed += o.crashed;
        self.not_run += o.not_run;
    }
    /// `5 passed, 2 failed, 1 unsupported, 0 crashed, 0 not run`: all five
    /// outcomes, which add up to the cases read.
    pub fn text(&self) -> String {
        format!(
            "{} passed, {} failed, {} unsupported, {} crashed, {} not run",
            self.passed, self.failed, self.unsupported, self.crashed, self.not_run
        )
    }
    pub fn json(&self) -> Value {
        json!({"passed": self.passed, "failed": self.failed, "unsupported": self.unsupported,
               "crashed": self.crashed, "not_run": self.not_run})
    }
}

#[derive(Clone, Debug, Default)]
pub struct VariantTally {
    pub counts: Counts,
    /// The first mismatch's reproducer.
    pub first_failure: Option<String>,
    /// Why the first declined case was declined.
    pub decline: Option<String>,
}

impl VariantTally {
    /// `failed` (any mismatch), `unsupported` (every case declined) or
    /// `passed` (every answer right; some cases may have been declined).
    pub fn status(&self) -> &'static str {
        let c = &self.counts;
        if c.failed > 0 {
            "failed"
        } else if c.passed == 0 && c.unsupported > 0 {
            "unsupported"
        } else {
            "passed"
        }
    }
}

#[derive(Default)]
pub struct Triage {
    pub variants: BTreeMap<String, VariantTally>,
    /// Every mismatch (the first million), for grouping and full reports;
    /// their traces are dropped.
    pub mismatches: Vec<Mismatch>,
    /// Mismatches past those kept.
    pub other: u64,
    /// Decline reasons (the variant's spelling replaced by `{instr}`):
    /// cases and variants.
    pub declines: BTreeMap<String, (u64, BTreeSet<String>)>,
    /// The first reason as given behind each key of `declines` (its numbers
    /// are in the key as `#`).
    pub decline_examples: BTreeMap<String, String>,
    /// Provisional keys seen (scope and first hypothesis), for commands that
    /// report the first mismatch of each as it comes.
    seen: HashMap<(&'static str, Type, Type, Hyps, Rule), ()>,
    /// Crashed and not-run cases of no variant in particular.
    pub extra: Counts,
    /// The last decline: its variant, reason as given, and key in `declines`.
    last_decline: Option<(Cvt, String, String)>,
    /// Right answers kept as evidence for and against the hypotheses.
    evidence: Evidence,
    /// The profile the answers are checked under (the hypotheses are computed under it).
    pub profile: Profile,
}

/// The key decline reasons are grouped by: numbers that stand alone (byte
/// offsets, line and column numbers, counts; decimal or `0x` hex) become
/// `#`, so that one cause reported at many places is one reason. Digits
/// inside a word (`f32`, `sm_90`, `e4m3`) stay.
pub fn decline_key(why: &str) -> String {
    let b = why.as_bytes();
    let mut out = String::with_capacity(why.len());
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !word(b[i - 1]));
        if starts {
            let mut j = i;
            if b[i] == b'0' && b.get(i + 1).is_some_and(|c| *c == b'x' || *c == b'X') {
                j += 2;
                while j < b.len() && b[j].is_ascii_hexdigit() {
                    j += 1;
                }
            } else {
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
            if j == b.len() || !word(b[j]) {
                out.push('#');
                i = j;
                continue;
            }
        }
        // Copy one whole character (reasons may hold any UTF-8).
        let len = why[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&why[i..i + len]);
        i += len;
    }
    out
}

impl Triage {
    /// An empty triage of answers checked under `profile`.
    pub fn new(profile: Profile) -> Triage {
        Triage { profile, ..Triage::default() }
    }

    pub fn passed(&mut self, c: &Cvt) {
        self.passed_n(c, 1);
    }

    /// Count a passed case and keep it (a sample per variant) as evidence
    /// for the diagnosis: `got` is what the implementation answered.
    pub fn passed_case(&mut self, c: &Cvt, ops: &[Operand], dst_width: u32, got: u64) {
        self.passed_n(c, 1);
        self.evidence.passed(c, ops, dst_width, got);
    }

    /// Count `n` passed cases of one variant at once.
    pub fn passed_n(&mut self, c: &Cvt, n: u64) {
        self.tally(c).counts.passed += n;
    }

    pub fn unsupported(&mut self, c: &Cvt, why: &str) {
        // Declines come in runs of one variant and reason: their key once per run.
        let same = self.last_decline.as_ref().is_some_and(|(lc, lw, _)| lc == c && lw == why);
        if !same {
            let v = c.to_string();
            let reason = decline_key(&why.replace(&v, "{instr}"));
            self.decline_examples.entry(reason.clone()).or_insert_with(|| why.to_string());
            let e = self.declines.entry(reason.clone()).or_default();
            if e.1.len() < 10_000 {
                e.1.insert(v);
            }
            self.last_decline = Some((*c, why.to_string(), reason));
        }
        if let Some((_, _, key)) = &self.last_decline {
            if let Some(e) = self.declines.get_mut(key) {
                e.0 += 1;
            }
        }
        let t = self.tally(c);
        t.counts.unsupported += 1;
        t.decline.get_or_insert_with(|| why.to_string());
    }

    /// Count a case the implementation crashed on.
    pub fn crashed(&mut self) {
        self.extra.crashed += 1;
    }

    /// Count `n` cases left unrun because the run stopped.
    pub fn not_run(&mut self, n: u64) {
        self.extra.not_run += n;
    }

    /// Count a mismatch; true when it is the first of its kind (its scope,
    /// the hypotheses that reproduce it and its deciding rule).
    pub fn mismatch(&mut self, m: &Mismatch) -> bool {
        let c = &m.case.instr;
        let t = self.tally(c);
        t.counts.failed += 1;
        t.first_failure.get_or_insert_with(|| m.repro.clone());
        let key = (family_name(c), c.atype, c.dtype, m.hyps, m.rule);
        let new = self.seen.insert(key, ()).is_none();
        if self.mismatches.len() < MAX_KEPT {
            // Without the trace (the report rebuilds nothing from it).
            let outcome = ptx_cvt::Outcome {
                accept: m.outcome.accept.clone(),
                inputs: m.outcome.inputs.clone(),
                trace: Vec::new(),
            };
            self.mismatches.push(Mismatch {
                origin: m.origin.clone(),
                case: m.case.clone(),
                outcome,
                got: m.got.clone(),
                rule: m.rule,
                class: m.class.clone(),
                repro: m.repro.clone(),
                hyps: m.hyps,
                units: m.units.clone(),
                refuted: m.refuted,
            });
        } else {
            self.other += 1;
        }
        new
    }

    fn tally(&mut self, c: &Cvt) -> &mut VariantTally {
        self.variants.entry(c.to_string()).or_default()
    }

    /// Cases passed, failed, unsupported (and crashed, not run).
    pub fn counts(&self) -> Counts {
        let mut all = self.extra;
        for t in self.variants.values() {
            all.add(&t.counts);
        }
        all
    }

    /// Cases passed, failed, unsupported.
    pub fn cases(&self) -> (u64, u64, u64) {
        let c = self.counts();
        (c.passed, c.failed, c.unsupported)
    }

    /// Variants passed, failed, unsupported.
    pub fn variant_counts(&self) -> (usize, usize, usize) {
        let n = |s: &str| self.variants.values().filter(|t| t.status() == s).count();
        (n("passed"), n("failed"), n("unsupported"))
    }

    /// The bug classes of the mismatches kept (docs/diagnosis.md).
    pub fn group(&self) -> Grouping {
        crate::group::group(&self.mismatches, &self.evidence, self.profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mismatch::Origin;
    use ptx_cvt::gen::{self, Level};
    use ptx_cvt::{evaluate, AcceptSet, Case, Profile};

    /// A triage of wrong answers (the low bits flipped) over many variants.
    fn broken(variants: usize, per: usize) -> Triage {
        let mut t = Triage::default();
        let legal = |c: &Cvt| ptx_cvt::instr::check(c, gen::natural_regs(c), None, None).is_ok();
        let spellings = gen::all_spellings().into_iter().filter(|c| c.is_scalar() && legal(c));
        for c in spellings.step_by(7).take(variants) {
            for g in gen::cases(&c, Level::Compact, 1).into_iter().take(per) {
                let Ok(o) = evaluate(&c, &g.operands, g.dst_width, Profile::Sm90) else { continue };
                let Some(e) = o.accept.single() else { continue };
                let got = AcceptSet::exact(g.dst_width, e ^ 3);
                let case = Case { instr: c, operands: g.operands.clone(), result: Some(got), comment: None };
                t.mismatch(&Mismatch::new(Origin::default(), case, o, Profile::Sm90));
            }
            t.unsupported(&c, &format!("no {c} here"));
        }
        t
    }

    /// One class per variant, whatever the diagnosis would make of them:
    /// a report with many classes.
    fn one_class_per_variant(t: &Triage) -> Grouping {
        let mut by_variant: BTreeMap<Cvt, Vec<usize>> = BTreeMap::new();
        for (k, m) in t.mismatches.iter().enumerate() {
            by_variant.entry(m.case.instr).or_default().push(k);
        }
        let mut classes: Vec<BugClass> = by_variant
            .into_iter()
            .map(|(c, members)| BugClass {
                id: 0,
                family: family_name(&c),
                explanation: Explanation::None,
                parts: Vec::new(),
                alternatives: Vec::new(),
                hypotheses: Vec::new(),
                rule: t.mismatches[members[0]].rule,
                source: None,
                variants: [c].into(),
                members,
                lane_units: 0,
                unexplained_units: 0,
                narrowed_units: 0,
                seen: Hyps(0),
                absorbed: Vec::new(),
                same_readings: Vec::new(),
            })
            .collect();
        let mut class_of = vec![0; t.mismatches.len()];
        for (i, b) in classes.iter_mut().enumerate() {
            b.id = i + 1;
            for &k in &b.members {
                class_of[k] = b.id;
            }
        }
        let classes_of = class_of.iter().map(|&c| vec![c]).collect();
        Grouping { classes, class_of, classes_of }
    }

    #[test]
    fn decline_reasons_group_without_their_numbers() {
        assert_eq!(
            decline_key("parse error at byte 1234 (line 12:7), offset 0x1f0 in cvt_rn_f16_f32 for sm_90, f32 e4m3x2"),
            "parse error at byte # (line #:#), offset # in cvt_rn_f16_f32 for sm_90, f32 e4m3x2"
        );
        assert_eq!(decline_key("9 times ä 10"), "# times ä #");
        let c = ptx_cvt::instr::parse("cvt.rn.f16.f32").unwrap();
        let d = ptx_cvt::instr::parse("cvt.rz.f16.f32").unwrap();
        let mut t = Triage::default();
        t.unsupported(&c, "unexpected token at offset 1811");
        t.unsupported(&c, "unexpected token at offset 1811");
        t.unsupported(&d, "unexpected token at offset 1790");
        assert_eq!(t.declines.len(), 1, "{:?}", t.declines);
        assert_eq!(t.declines["unexpected token at offset #"].0, 3);
        assert_eq!(t.decline_examples["unexpected token at offset #"], "unexpected token at offset 1811");
    }

    #[test]
    fn the_report_of_many_classes_fits_a_screen() {
        let t = broken(150, 6);
        let g = one_class_per_variant(&t);
        assert!(g.classes.len() >= 30, "{} classes", g.classes.len());
        let text = t.text(&g, false);
        eprintln!("{} classes, {} lines:\n{text}", g.classes.len(), text.lines().count());
        assert!(text.lines().count() <= 100, "{} lines:\n{text}", text.lines().count());
        // The totals come first; one reason for every decline, with the instruction abstracted.
        assert!(text.starts_with("cases: "));
        assert!(text.contains("declined, for 1 reason(s)") && text.contains("no {instr} here"), "{text}");
    }

    /// One defect over many families (every low bit flipped) is one class,
    /// and its scope is a count, not a glob longer than a line.
    #[test]
    fn a_class_over_many_families_has_a_short_scope() {
        let t = broken(150, 6);
        let g = t.group();
        let widest = g.classes.iter().max_by_key(|b| b.variants.len()).expect("a class");
        let scope = widest.scope();
        assert!(scope.len() <= 160, "{scope}");
        let families: BTreeSet<&str> = widest.variants.iter().map(family_name).collect();
        assert!(families.len() > 2, "{scope}");
        assert!(
            scope.contains(&format!("{} variants of {} families", widest.variants.len(), families.len())),
            "{scope}"
        );
    }

    #[test]
    fn every_mismatch_is_in_exactly_one_class() {
        let t = broken(40, 4);
        let g = t.group();
        let total: usize = g.classes.iter().map(BugClass::count).sum();
        assert_eq!(total, t.mismatches.len());
        for (k, &id) in g.class_of.iter().enumerate() {
            assert!(g.classes[id - 1].members.contains(&k));
        }
        // Most cases first.
        assert!(g.classes.windows(2).all(|w| w[0].count() >= w[1].count()));
    }
}
