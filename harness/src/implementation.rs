//! The interface every implementation under test presents: an external
//! interpreter process, a user's shared library, our own fast engine, a GPU.
//! Commands and fuzz targets drive an `Implementation` and compare its
//! answers with the oracle.

use ptx_cvt::{Cvt, Operand};

/// What an implementation says about one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The destination register's bits.
    Bits(u64),
    /// It does not handle this case (an unsupported form or operand); the
    /// message says why. Counted as *unsupported*, not as a wrong answer.
    Declined(String),
}

impl Answer {
    /// The bits, if it answered.
    pub fn bits(&self) -> Option<u64> {
        match self {
            Answer::Bits(b) => Some(*b),
            Answer::Declined(_) => None,
        }
    }
}

/// An implementation of `cvt` to be checked against the oracle.
///
/// `Err` is an adapter error: the implementation crashed, hung, or answered
/// something that is no answer, while the case asked (in a batch: the first
/// unanswered one) was in flight. [`settle`] turns a batch into one
/// [`Outcome`] per case; a declined case is an `Ok(Answer::Declined)` and the
/// run goes on.
pub trait Implementation {
    /// A short name for reports, e.g. `process: ./toy-interp`.
    fn name(&self) -> String;

    /// The answer for one case: `operands` in PTX order, in registers of
    /// their widths; `dst_width` the destination register's width.
    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<Answer, String>;

    /// Many cases of one instruction: the answers up to the first adapter
    /// error, and that error. Adapters that pipeline (processes, GPUs)
    /// override this.
    fn eval_batch(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
        let mut out = Vec::with_capacity(cases.len());
        for (ops, w) in cases {
            match self.eval(c, ops, *w) {
                Ok(a) => out.push(a),
                Err(e) => return (out, Some(e)),
            }
        }
        (out, None)
    }
}

/// What became of one case sent to an implementation: exactly one of these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It answered (bits or a decline).
    Answered(Answer),
    /// It died, hung or answered garbage while this case was in flight; the
    /// message says how (the adapter's error).
    Crashed(String),
    /// Never sent, or sent to a program that had already failed: the run stopped.
    NotRun,
}

/// A batch with every case accounted: see [`settle`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    /// One outcome per case, in order.
    pub outcomes: Vec<Outcome>,
    /// Why the run must stop (the cases from the first [`Outcome::NotRun`] on
    /// were not run); `None` when it may go on.
    pub stopped: Option<String>,
}

/// Failures in a row, with no answer between, after which [`settle`] gives up
/// even when it may go on: a program that dies at once every time it starts
/// would otherwise cost one start per case.
pub const FAILURES_IN_A_ROW: usize = 3;

/// Ask `imp` for every case of a batch and account for each one. After an
/// adapter error the case in flight (the first unanswered one) is crashed,
/// once, never sent again, and the rest of the batch is sent again (the
/// adapter starts its program or worker again on the next call), until
/// `max_crashes` cases have crashed (1: stop at the first; for an adapter
/// that does not start again) or [`FAILURES_IN_A_ROW`] failures came in a
/// row: then the rest is not run and the run must stop.
pub fn settle(imp: &mut dyn Implementation, c: &Cvt, cases: &[(Vec<Operand>, u32)], max_crashes: u64) -> Settled {
    let mut outcomes = Vec::with_capacity(cases.len());
    let (mut in_a_row, mut crashes) = (0, 0u64);
    while outcomes.len() < cases.len() {
        let (answers, failure) = imp.eval_batch(c, &cases[outcomes.len()..]);
        if !answers.is_empty() {
            in_a_row = 0;
        }
        outcomes.extend(answers.into_iter().map(Outcome::Answered));
        let Some(e) = failure else { break };
        if outcomes.len() == cases.len() {
            // An error after the last answer (an adapter bug): the cases are all answered.
            break;
        }
        outcomes.push(Outcome::Crashed(e));
        in_a_row += 1;
        crashes += 1;
        let stop = if crashes >= max_crashes {
            Some("stopped at the crash above".to_string())
        } else if in_a_row >= FAILURES_IN_A_ROW {
            Some(format!("stopped: the implementation failed {in_a_row} times in a row without answering a case"))
        } else {
            None
        };
        if stop.is_some() {
            outcomes.resize(cases.len(), Outcome::NotRun);
            return Settled { outcomes, stopped: stop };
        }
    }
    Settled { outcomes, stopped: None }
}

/// The oracle's fast engine as an implementation (sm90 profile): one value
/// per case; it declines where the result is a set (e.g. any NaN) and where
/// the engine rejects the case.
#[derive(Clone, Copy, Debug, Default)]
pub struct FastEngine;

impl Implementation for FastEngine {
    fn name(&self) -> String {
        "fast engine (sm90)".into()
    }
    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<Answer, String> {
        let r = match ptx_cvt::fast::evaluate(c, operands, dst_width) {
            Ok(r) => r,
            Err(e) => return Ok(Answer::Declined(e.to_string())),
        };
        Ok(match r.single(dst_width) {
            Some(b) => Answer::Bits(b),
            None => Answer::Declined(format!("the result is a set ({}), not one value", r.to_accept(dst_width))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails (as an adapter error) on the cases whose bits are in `crash`,
    /// and on every case while `dead_starts` calls are left.
    struct Flaky {
        crash: Vec<u64>,
        dead_starts: usize,
        calls: usize,
    }

    impl Implementation for Flaky {
        fn name(&self) -> String {
            "flaky".into()
        }
        fn eval(&mut self, _: &Cvt, ops: &[Operand], _: u32) -> Result<Answer, String> {
            if self.crash.contains(&ops[0].bits) {
                return Err(format!("died on {}", ops[0].bits));
            }
            Ok(Answer::Bits(ops[0].bits * 2))
        }
        fn eval_batch(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
            self.calls += 1;
            if self.dead_starts > 0 {
                self.dead_starts -= 1;
                return (Vec::new(), Some("cannot start".into()));
            }
            let mut out = Vec::new();
            for (ops, w) in cases {
                match self.eval(c, ops, *w) {
                    Ok(a) => out.push(a),
                    Err(e) => return (out, Some(e)),
                }
            }
            (out, None)
        }
    }

    fn cases(n: u64) -> Vec<(Vec<Operand>, u32)> {
        (0..n).map(|b| (vec![Operand { bits: b, width: 32 }], 32)).collect()
    }

    #[test]
    fn a_crash_costs_its_case_only_when_it_may_go_on() {
        let c = ptx_cvt::instr::parse("cvt.u32.u32").unwrap();
        let mut f = Flaky { crash: vec![3, 4, 7], dead_starts: 0, calls: 0 };
        let s = settle(&mut f, &c, &cases(10), u64::MAX);
        assert_eq!(s.stopped, None);
        for (i, o) in s.outcomes.iter().enumerate() {
            let want = if [3, 4, 7].contains(&i) {
                Outcome::Crashed(format!("died on {i}"))
            } else {
                Outcome::Answered(Answer::Bits(2 * i as u64))
            };
            assert_eq!(o, &want, "case {i}");
        }
        // Each crashed case was sent once: the first call, then one per crash.
        assert_eq!(f.calls, 4);

        let mut f = Flaky { crash: vec![3, 7], dead_starts: 0, calls: 0 };
        let s = settle(&mut f, &c, &cases(10), 1);
        assert!(s.stopped.is_some());
        assert_eq!(s.outcomes[3], Outcome::Crashed("died on 3".into()));
        assert!(s.outcomes[4..].iter().all(|o| *o == Outcome::NotRun));
        assert_eq!(s.outcomes.len(), 10);

        // --max-failures 2 with --restart: stops at the second crash.
        let mut f = Flaky { crash: vec![3, 7], dead_starts: 0, calls: 0 };
        let s = settle(&mut f, &c, &cases(10), 2);
        assert_eq!(s.outcomes[7], Outcome::Crashed("died on 7".into()));
        assert_eq!(s.outcomes[8..], [Outcome::NotRun, Outcome::NotRun]);
    }

    #[test]
    fn failures_in_a_row_stop_the_run() {
        let c = ptx_cvt::instr::parse("cvt.u32.u32").unwrap();
        let mut f = Flaky { crash: vec![], dead_starts: 100, calls: 0 };
        let s = settle(&mut f, &c, &cases(10), u64::MAX);
        assert_eq!(f.calls, FAILURES_IN_A_ROW);
        assert!(s.stopped.as_deref().is_some_and(|m| m.contains("3 times in a row")), "{:?}", s.stopped);
        assert_eq!(s.outcomes.iter().filter(|o| matches!(o, Outcome::Crashed(_))).count(), FAILURES_IN_A_ROW);
        assert_eq!(s.outcomes.len(), 10);
        // Two dead starts, then it answers: the run goes on.
        let mut f = Flaky { crash: vec![], dead_starts: 2, calls: 0 };
        let s = settle(&mut f, &c, &cases(10), u64::MAX);
        assert_eq!(s.stopped, None);
        assert_eq!(s.outcomes[2], Outcome::Answered(Answer::Bits(4)));
    }
}
