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
/// something that is no answer. The caller reports it and, unless told to go
/// on, stops; a declined case is an `Ok(Answer::Declined)` and the run goes on.
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
