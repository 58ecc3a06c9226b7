//! The run loop's core, the same for every command and the Python API: a
//! batch of cases of one form goes to one implementation ([`settle`]: every
//! case accounted for), each answer is judged ([`Judge`]), and each case ends
//! as one [`Event`], handed in order to the caller, who tallies, reports or
//! records it. A handler that stops the run ([`Flow::Stop`]) ends the batch
//! there: the cases after it were asked but count as not run ([`Ran::cut`]).

use ptx_cvt::{Cvt, Operand};

use crate::implementation::{settle, Answer, Implementation, Outcome};
use crate::judge::Judge;

/// What became of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The oracle accepts the answer.
    Passed(u64),
    /// The oracle does not accept the answer.
    Wrong(u64),
    /// The implementation declined the case, for this reason.
    Declined(String),
    /// The implementation died, hung or answered garbage on this case.
    Crashed(String),
    /// Never sent, or sent after the implementation failed: the run stopped.
    NotRun,
}

/// Whether the run goes on after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Go,
    Stop,
}

/// How a batch ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ran {
    /// Cases after the one whose handler stopped the run: not run.
    pub cut: u64,
    /// Why the implementation cannot go on ([`crate::Settled::stopped`]).
    pub stopped: Option<String>,
}

/// Ask `imp` for a batch of cases of `c` (operands and destination width),
/// judge each answer and hand each case's event to `on` with its index.
/// `max_crashes` as for [`settle`].
pub fn ask(
    imp: &mut dyn Implementation,
    judge: &mut Judge,
    c: &Cvt,
    cases: &[(Vec<Operand>, u32)],
    max_crashes: u64,
    mut on: impl FnMut(usize, Event) -> Flow,
) -> Ran {
    let settled = settle(imp, c, cases, max_crashes);
    for (k, ((ops, width), outcome)) in cases.iter().zip(settled.outcomes).enumerate() {
        let event = match outcome {
            Outcome::Answered(Answer::Bits(b)) if judge.accepts(c, ops, *width, b) => Event::Passed(b),
            Outcome::Answered(Answer::Bits(b)) => Event::Wrong(b),
            Outcome::Answered(Answer::Declined(why)) => Event::Declined(why),
            Outcome::Crashed(e) => Event::Crashed(e),
            Outcome::NotRun => Event::NotRun,
        };
        if on(k, event) == Flow::Stop {
            return Ran { cut: (cases.len() - k - 1) as u64, stopped: settled.stopped };
        }
    }
    Ran { cut: 0, stopped: settled.stopped }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Scope;
    use ptx_cvt::Profile;

    /// Answers from a list: bits, a decline (`None`), or an adapter error
    /// (`Err`) for the case in flight.
    struct Scripted(Vec<Result<Option<u64>, String>>);

    impl Implementation for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }
        fn eval(&mut self, _: &Cvt, _: &[Operand], _: u32) -> Result<Answer, String> {
            match self.0.remove(0) {
                Ok(Some(b)) => Ok(Answer::Bits(b)),
                Ok(None) => Ok(Answer::Declined("no".into())),
                Err(e) => Err(e),
            }
        }
    }

    fn f16_of(bits: &[u64]) -> Vec<(Vec<Operand>, u32)> {
        bits.iter().map(|&b| (vec![Operand { bits: b, width: 32 }], 16)).collect()
    }

    fn judge() -> Judge {
        Judge::new(Scope { profile: Profile::Sm90, target: None, version: None })
    }

    // cvt.rn.f16.f32 of 1.0 (3f800000) is 3c00 and of 2.0 (40000000) 4000
    // (IEEE 754 binary16 encodings).
    #[test]
    fn each_case_ends_as_one_event_in_order() {
        let c: Cvt = "cvt.rn.f16.f32".parse().unwrap();
        let mut imp = Scripted(vec![Ok(Some(0x3c00)), Ok(Some(0x3c00)), Ok(None), Err("died".into())]);
        let mut seen = Vec::new();
        let cases = f16_of(&[0x3f80_0000, 0x4000_0000, 0, 0]);
        let ran = ask(&mut imp, &mut judge(), &c, &cases, 1, |k, e| {
            seen.push((k, e));
            Flow::Go
        });
        let want = vec![
            (0, Event::Passed(0x3c00)),
            (1, Event::Wrong(0x3c00)),
            (2, Event::Declined("no".into())),
            (3, Event::Crashed("died".into())),
        ];
        assert_eq!(seen, want);
        assert_eq!(ran.cut, 0);
    }

    #[test]
    fn a_stop_cuts_the_rest_of_the_batch() {
        let c: Cvt = "cvt.rn.f16.f32".parse().unwrap();
        let mut imp = Scripted(vec![Ok(Some(0)); 4]);
        let cases = f16_of(&[0x3f80_0000; 4]);
        let mut n = 0;
        let ran = ask(&mut imp, &mut judge(), &c, &cases, 1, |_, e| {
            assert_eq!(e, Event::Wrong(0));
            n += 1;
            if n == 2 {
                Flow::Stop
            } else {
                Flow::Go
            }
        });
        assert_eq!((n, ran.cut), (2, 2));
    }
}
