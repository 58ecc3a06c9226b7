//! A wrong answer becomes a [`Mismatch`] here, and only here: the oracle's
//! evaluation with its explanation (once), the rule that decides the
//! differing bits, the coverage class and the catalogue's diagnosis. The
//! report layer ([`crate::report`]) only renders what this computed.

use ptx_cvt::{evaluate, gen, AcceptSet, Case, EvalError, Outcome, Profile, Rule};

use crate::attribution::deciding_rule_for;
use crate::diagnose::{diagnose, Hyps, Unit};
use crate::reproducer::case_line;

/// The coverage class of a case from its comment, as the generator writes
/// it: the first whitespace-separated token with exactly two `/`
/// (`<input>/<result>/<event>`, e.g. `normal/normal/tie-even`).
pub fn comment_class(comment: Option<&str>) -> Option<&str> {
    comment?.split_whitespace().find(|t| t.matches('/').count() == 2)
}

/// Where a case came from: a file and line, or nowhere (generated).
#[derive(Clone, Debug, Default)]
pub struct Origin {
    pub file: Option<String>,
    pub line: Option<usize>,
}

/// A wrong answer with everything a report shows.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub origin: Origin,
    /// The case with the implementation's answer as its result.
    pub case: Case,
    /// The oracle's evaluation, with its explanation.
    pub outcome: Outcome,
    pub got: AcceptSet,
    /// The rule that decides the differing bits.
    pub rule: Rule,
    /// The coverage class: the line's own, else the oracle's.
    pub class: String,
    /// The one-line reproducer: the case with the expected result.
    pub repro: String,
    /// The catalogue hypotheses that reproduce the answer (docs/diagnosis.md):
    /// of some wrong lane, for packed results.
    pub hyps: Hyps,
    /// The wrong parts (the result, or each wrong lane) and their hypotheses.
    pub units: Vec<Unit>,
    /// Hypotheses the answer's right lanes contradict.
    pub refuted: Hyps,
}

impl Mismatch {
    /// `case.result` is what the implementation answered; `outcome` the
    /// oracle's evaluation of the case (with its trace) under `profile`.
    pub fn new(origin: Origin, case: Case, outcome: Outcome, profile: Profile) -> Mismatch {
        let got = case.result.clone().expect("a mismatch has an answer");
        let rule = match got.single() {
            Some(bits) => deciding_rule_for(&case.instr, &case.operands, profile, &outcome, bits, got.width),
            None => outcome.deciding_rule(),
        };
        let d = diagnose(&case.instr, &case.operands, got.width, profile, &outcome.accept, &got);
        let hyps = d.hyps();
        let class = comment_class(case.comment.as_deref())
            .map(str::to_string)
            .unwrap_or_else(|| gen::coverage::classify(&case.instr, &outcome));
        let repro = case_line(&case, &outcome.accept);
        Mismatch { origin, case, outcome, got, rule, class, repro, hyps, units: d.units, refuted: d.refuted }
    }

    /// Evaluate the case (whose `result` is the implementation's answer)
    /// with the explanation, then build the mismatch: the one evaluation a
    /// reported mismatch costs the exact engine.
    pub fn of(origin: Origin, case: Case, profile: Profile) -> Result<Mismatch, EvalError> {
        let outcome = evaluate(&case.instr, &case.operands, case.dst_width(), profile)?;
        Ok(Mismatch::new(origin, case, outcome, profile))
    }
}
