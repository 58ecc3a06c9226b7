//! The summary of a run as text (one screen: totals, one line pair per bug
//! class, the declines, the per-variant table) and as JSON: rendering only,
//! from the tallies ([`Triage`]) and the classes ([`Grouping`]).

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::diagnose::{self, CATALOGUE};
use crate::group::{Explanation, Grouping};
use crate::triage::Triage;

/// Bug classes shown in the text report (JSON has them all).
const SHOWN_CLASSES: usize = 40;
/// Decline reasons shown in the text report (JSON has them all).
const SHOWN_REASONS: usize = 6;

impl Triage {
    /// The totals: `cases: …; variants: …` with what "unsupported" means.
    pub fn totals_line(&self) -> String {
        let (vp, vf, vu) = self.variant_counts();
        format!("cases: {}; variants: {vp} passed, {vf} failed, {vu} unsupported", self.counts().text())
    }

    /// The text report: the totals, one line pair per bug class, the
    /// declines, and (if `table`) every variant's tally.
    pub fn text(&self, g: &Grouping, table: bool) -> String {
        let mut s = self.totals_line();
        s += "\n";
        let counts = self.counts();
        if counts.unsupported > 0 {
            s += "  (unsupported: a case the implementation declined to answer; a variant is unsupported when all its cases were)\n";
        }
        if !g.classes.is_empty() {
            let past = if self.other > 0 {
                format!(" (and {} mismatch(es) past the first million)", self.other)
            } else {
                String::new()
            };
            s += &format!(
                "{} bug class(es), most cases first (--class N: every case of one; --all: every mismatch){past}:\n",
                g.classes.len()
            );
            for b in g.classes.iter().take(SHOWN_CLASSES) {
                let ex = &self.mismatches[b.members[0]];
                s += &format!(
                    "  {:>2}. {:>7} case(s) in {:>3} variant(s): {}\n",
                    b.id,
                    b.count(),
                    b.variants.len(),
                    b.text(ex.got.width)
                );
                let place = match (&ex.origin.file, ex.origin.line) {
                    (Some(f), Some(n)) => format!("  ({f}:{n})"),
                    _ => String::new(),
                };
                s += &format!("      {}; e.g. {}  got {}{place}\n", b.scope(), ex.repro, ex.got);
            }
            if g.classes.len() > SHOWN_CLASSES {
                let rest: usize = g.classes[SHOWN_CLASSES..].iter().map(|b| b.count()).sum();
                s += &format!(
                    "  … {} more class(es) with {rest} case(s) (--json lists all)\n",
                    g.classes.len() - SHOWN_CLASSES
                );
            }
        }
        if !self.declines.is_empty() {
            let variants: usize = self.variants.values().filter(|t| t.counts.unsupported > 0).count();
            s += &format!(
                "unsupported: {} case(s) of {variants} variant(s) declined, for {} reason(s):\n",
                counts.unsupported,
                self.declines.len()
            );
            let mut reasons: Vec<(&String, &(u64, BTreeSet<String>))> = self.declines.iter().collect();
            reasons.sort_by_key(|(r, (n, _))| (std::cmp::Reverse(*n), *r));
            for (r, (n, vs)) in reasons.iter().take(SHOWN_REASONS) {
                let e = vs.iter().next().map(String::as_str).unwrap_or("");
                s += &format!("  {n:>9} case(s) of {:>3} variant(s): {} (e.g. {e})\n", vs.len(), r.trim());
                if let Some(x) = self.decline_examples.get(*r).filter(|x| r.contains('#') && *x != *r) {
                    s += &format!("            first as given: {}\n", x.trim());
                }
            }
            if reasons.len() > SHOWN_REASONS {
                let rest: u64 = reasons[SHOWN_REASONS..].iter().map(|(_, (n, _))| n).sum();
                s += &format!(
                    "  … {} more reason(s) with {rest} case(s) (--json lists all)\n",
                    reasons.len() - SHOWN_REASONS
                );
            }
        }
        if table && !self.variants.is_empty() {
            let w = self.variants.keys().map(|k| k.len()).max().unwrap_or(0).max(7);
            s += &format!("  {:<w$}  {:>9}  {:>9}  {:>11}\n", "variant", "passed", "failed", "unsupported");
            for (k, t) in &self.variants {
                let first = t.first_failure.as_deref().map(|f| format!("  first: {f}")).unwrap_or_default();
                let c = &t.counts;
                s += &format!("  {k:<w$}  {:>9}  {:>9}  {:>11}{first}\n", c.passed, c.failed, c.unsupported);
            }
        }
        s.truncate(s.trim_end().len());
        s
    }

    /// The summary as JSON: totals, every bug class, declines, every variant.
    pub fn json(&self, g: &Grouping) -> Value {
        let (vp, vf, vu) = self.variant_counts();
        let classes: Vec<Value> = g
            .classes
            .iter()
            .map(|b| {
                let ex = &self.mismatches[b.members[0]];
                let explanation = match b.explanation {
                    Explanation::None => Value::Null,
                    Explanation::Hypothesis(i) => {
                        let parts: Vec<Value> =
                            b.parts.iter().map(|&(h, n)| json!({"name": CATALOGUE[h].name, "units": n})).collect();
                        json!({"name": b.name(), "text": b.text(ex.got.width), "generic": CATALOGUE[i].generic,
                               "parts": parts})
                    }
                    Explanation::Constant(_) => {
                        json!({"name": b.name(), "text": b.text(ex.got.width), "generic": true})
                    }
                };
                let (glob, exact) = diagnose::variants_glob(&b.variants);
                let hypotheses: Vec<Value> = b
                    .hypotheses
                    .iter()
                    .map(|h| json!({"name": CATALOGUE[h.index].name, "support": h.support, "refuted": h.refuted}))
                    .collect();
                json!({"id": b.id, "explanation": explanation, "alternatives": b.alternatives,
                       "hypotheses": hypotheses, "lane_units": b.lane_units,
                       "unexplained_units": b.unexplained_units, "narrowed_units": b.narrowed_units,
                       "absorbed": b.absorbed.iter().map(|&(name, cases)| json!({"name": name, "cases": cases})).collect::<Vec<_>>(),
                       "same_readings": b.same_readings.iter().map(|&(name, cases)| json!({"name": name, "cases": cases})).collect::<Vec<_>>(),
                       "family": b.family, "rule": b.rule.name(), "evidence": b.rule.evidence().tag(),
                       "unexplained_from": b.source.as_ref().map(crate::group::Unexplained::text),
                       "scope": glob, "scope_exact": exact,
                       "cases": b.count(), "variants": b.variants.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                       "example": ex.json(None)})
            })
            .collect();
        let declines: Vec<Value> = self
            .declines
            .iter()
            .map(|(r, (n, vs))| {
                json!({"reason": r, "cases": n, "variants": vs.iter().collect::<Vec<_>>(),
                       "example": self.decline_examples.get(r)})
            })
            .collect();
        let variants: Vec<Value> = self
            .variants
            .iter()
            .map(|(k, t)| {
                let c = &t.counts;
                json!({"variant": k, "status": t.status(), "passed": c.passed, "failed": c.failed,
                       "unsupported": c.unsupported, "first_failure": t.first_failure, "decline": t.decline})
            })
            .collect();
        json!({"cases": self.counts().json(),
               "variants": {"passed": vp, "failed": vf, "unsupported": vu},
               "bug_classes": classes, "other_class_cases": self.other, "declines": declines,
               "per_variant": variants})
    }
}
