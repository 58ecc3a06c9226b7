//! Triage of many results: per-variant tallies (passed, failed, unsupported)
//! and the distinct bug classes among the failures, so that a badly broken
//! implementation still gives a report of a screen or two.
//!
//! A bug class is the instruction family × the rule that decides the wrong
//! bits × the coverage event (the last part of the coverage class, e.g.
//! `tie-even-down`, `sext`, `nan-to-int`): one planted bug shows up once,
//! whatever the variants, values and register widths it hits.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ptx_cvt::instr::Family;
use ptx_cvt::{Cvt, Rule};
use serde_json::{json, Value};

use crate::report::Mismatch;

/// Distinct bug classes kept; later new ones are counted together.
const MAX_CLASSES: usize = 1000;
/// Bug classes shown in the text report (JSON has them all).
const SHOWN_CLASSES: usize = 30;

/// Short family names for reports.
pub fn family_name(c: &Cvt) -> &'static str {
    let base = match c.family() {
        Family::IntToInt => "int→int",
        Family::IntToFloat => "int→float",
        Family::FloatToInt => "float→int",
        Family::SameFloat => "float→same-float",
        Family::Widen => "float→float-widen",
        Family::Narrow => "float→float-narrow",
    };
    if c.dtype.is_packed() || c.atype.is_packed() {
        match base {
            "float→float-widen" => "packed-widen",
            _ => "packed-narrow",
        }
    } else {
        base
    }
}

#[derive(Clone, Debug, Default)]
pub struct VariantTally {
    pub passed: u64,
    pub failed: u64,
    pub unsupported: u64,
    /// The first mismatch's reproducer.
    pub first_failure: Option<String>,
    /// Why the first declined case was declined.
    pub decline: Option<String>,
}

impl VariantTally {
    /// `failed` (any mismatch), `unsupported` (every case declined) or
    /// `passed` (every answer right; some cases may have been declined).
    pub fn status(&self) -> &'static str {
        if self.failed > 0 {
            "failed"
        } else if self.passed == 0 && self.unsupported > 0 {
            "unsupported"
        } else {
            "passed"
        }
    }
}

#[derive(Clone, Debug)]
pub struct BugClass {
    pub family: &'static str,
    pub rule: Rule,
    pub event: String,
    pub count: u64,
    pub variants: BTreeSet<String>,
    /// The first mismatch of the class.
    pub example: Mismatch,
}

impl BugClass {
    pub fn key(&self) -> String {
        format!("{} / {} / {}", self.family, self.rule.name(), self.event)
    }
}

#[derive(Default)]
pub struct Triage {
    pub variants: BTreeMap<String, VariantTally>,
    pub classes: Vec<BugClass>,
    index: HashMap<(&'static str, Rule, String), usize>,
    /// Mismatches past the most distinct classes kept (1000).
    pub other: u64,
    /// Cases in flight when the implementation died, hung or answered garbage.
    pub crashed: u64,
    /// Cases never sent (or never checked) because the run stopped.
    pub not_run: u64,
}

impl Triage {
    pub fn passed(&mut self, c: &Cvt) {
        self.passed_n(c, 1);
    }

    /// Count `n` passed cases of one variant at once.
    pub fn passed_n(&mut self, c: &Cvt, n: u64) {
        self.tally(c).passed += n;
    }

    pub fn unsupported(&mut self, c: &Cvt, why: &str) {
        let t = self.tally(c);
        t.unsupported += 1;
        t.decline.get_or_insert_with(|| why.to_string());
    }

    /// Count a case the implementation crashed on.
    pub fn crashed(&mut self) {
        self.crashed += 1;
    }

    /// Count `n` cases left unrun because the run stopped.
    pub fn not_run(&mut self, n: u64) {
        self.not_run += n;
    }

    /// Count a mismatch; true when it opens a new bug class.
    pub fn mismatch(&mut self, m: &Mismatch) -> bool {
        let c = &m.case.instr;
        let t = self.tally(c);
        t.failed += 1;
        t.first_failure.get_or_insert_with(|| m.repro.clone());
        let event = m.class.rsplit('/').next().unwrap_or("").to_string();
        let key = (family_name(c), m.rule, event);
        if let Some(&i) = self.index.get(&key) {
            let b = &mut self.classes[i];
            b.count += 1;
            b.variants.insert(c.to_string());
            return false;
        }
        if self.classes.len() >= MAX_CLASSES {
            self.other += 1;
            return false;
        }
        self.index.insert(key.clone(), self.classes.len());
        self.classes.push(BugClass {
            family: key.0,
            rule: key.1,
            event: key.2,
            count: 1,
            variants: BTreeSet::from([c.to_string()]),
            example: m.clone(),
        });
        true
    }

    fn tally(&mut self, c: &Cvt) -> &mut VariantTally {
        self.variants.entry(c.to_string()).or_default()
    }

    /// Cases passed, failed, unsupported.
    pub fn cases(&self) -> (u64, u64, u64) {
        self.variants.values().fold((0, 0, 0), |(p, f, u), t| (p + t.passed, f + t.failed, u + t.unsupported))
    }

    /// Variants passed, failed, unsupported.
    pub fn variant_counts(&self) -> (usize, usize, usize) {
        let n = |s: &str| self.variants.values().filter(|t| t.status() == s).count();
        (n("passed"), n("failed"), n("unsupported"))
    }

    /// Classes with the most mismatches first (ties: first seen first).
    pub fn sorted_classes(&self) -> Vec<&BugClass> {
        let mut v: Vec<&BugClass> = self.classes.iter().collect();
        v.sort_by_key(|b| std::cmp::Reverse(b.count));
        v
    }

    /// The totals line: `variants: 5 passed, 2 failed, 1 unsupported; cases: …`
    /// (all five case outcomes, which add up to the cases read).
    pub fn totals_line(&self) -> String {
        let (vp, vf, vu) = self.variant_counts();
        let (cp, cf, cu) = self.cases();
        let (cc, cn) = (self.crashed, self.not_run);
        format!(
            "variants: {vp} passed, {vf} failed, {vu} unsupported; cases: {cp} passed, {cf} failed, {cu} unsupported, {cc} crashed, {cn} not run"
        )
    }

    /// The text report: bug classes, unsupported variants, and (if
    /// `table`) every variant's tally.
    pub fn text(&self, table: bool) -> String {
        let mut s = String::new();
        let classes = self.sorted_classes();
        if !classes.is_empty() {
            s += &format!(
                "{} bug class(es) (family / deciding rule / event), most cases first:\n",
                classes.len() + usize::from(self.other > 0)
            );
            for (i, b) in classes.iter().take(SHOWN_CLASSES).enumerate() {
                let ex = &b.example;
                let got = ex.got.to_string();
                let place = match (&ex.origin.file, ex.origin.line) {
                    (Some(f), Some(n)) => format!("  ({f}:{n})"),
                    _ => String::new(),
                };
                s += &format!(
                    "  {:>3}. {:>9} case(s) in {:>3} variant(s)  {} [{}]\n",
                    i + 1,
                    b.count,
                    b.variants.len(),
                    b.key(),
                    b.rule.evidence().tag()
                );
                s += &format!("       e.g. {}  got {got}{place}\n", ex.repro);
            }
            if classes.len() > SHOWN_CLASSES {
                let rest: u64 = classes[SHOWN_CLASSES..].iter().map(|b| b.count).sum();
                s += &format!(
                    "  … {} more class(es) with {rest} case(s) (--json lists all)\n",
                    classes.len() - SHOWN_CLASSES
                );
            }
            if self.other > 0 {
                s += &format!("  … {} case(s) in further classes past {MAX_CLASSES}\n", self.other);
            }
        }
        let declined: Vec<(&String, &VariantTally)> = self.variants.iter().filter(|(_, t)| t.unsupported > 0).collect();
        if !declined.is_empty() {
            let cases: u64 = declined.iter().map(|(_, t)| t.unsupported).sum();
            let (v, t) = declined[0];
            s += &format!(
                "unsupported: {} case(s) declined in {} variant(s), e.g. {v}: {}\n",
                cases,
                declined.len(),
                t.decline.as_deref().unwrap_or("")
            );
        }
        if table && !self.variants.is_empty() {
            let w = self.variants.keys().map(|k| k.len()).max().unwrap_or(0).max(7);
            s += &format!("  {:<w$}  {:>9}  {:>9}  {:>11}\n", "variant", "passed", "failed", "unsupported");
            for (k, t) in &self.variants {
                let first = t.first_failure.as_deref().map(|f| format!("  first: {f}")).unwrap_or_default();
                s += &format!("  {k:<w$}  {:>9}  {:>9}  {:>11}{first}\n", t.passed, t.failed, t.unsupported);
            }
        }
        s += &self.totals_line();
        s
    }

    /// The summary as JSON: totals, every bug class, every variant.
    pub fn json(&self) -> Value {
        let (vp, vf, vu) = self.variant_counts();
        let (cp, cf, cu) = self.cases();
        let classes: Vec<Value> = self
            .sorted_classes()
            .iter()
            .map(|b| {
                json!({"family": b.family, "rule": b.rule.name(), "evidence": b.rule.evidence().tag(),
                       "event": b.event, "cases": b.count, "variants": b.variants.iter().collect::<Vec<_>>(),
                       "example": b.example.json(None)})
            })
            .collect();
        let variants: Vec<Value> = self
            .variants
            .iter()
            .map(|(k, t)| {
                json!({"variant": k, "status": t.status(), "passed": t.passed, "failed": t.failed,
                       "unsupported": t.unsupported, "first_failure": t.first_failure, "decline": t.decline})
            })
            .collect();
        json!({"cases": {"passed": cp, "failed": cf, "unsupported": cu, "crashed": self.crashed, "not_run": self.not_run},
               "variants": {"passed": vp, "failed": vf, "unsupported": vu},
               "bug_classes": classes, "other_class_cases": self.other, "per_variant": variants})
    }
}
