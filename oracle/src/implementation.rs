//! The interface every implementation under test presents: our fast engine
//! (later), an external interpreter process, a user's shared library, a GPU.
//! Fuzzers and sweeps drive an `Implementation` and compare with the oracle.

use crate::eval::Operand;
use crate::instr::Cvt;

/// An implementation of `cvt` to be checked against the oracle.
pub trait Implementation {
    /// A short name for reports, e.g. `process: ./toy-interp`.
    fn name(&self) -> String;

    /// The bits written to a destination register of `dst_width` bits, or an
    /// error (the implementation crashed, timed out, answered garbage).
    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<u64, String>;

    /// Many cases of one instruction at once (GPU runners override this).
    fn eval_batch(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> Result<Vec<u64>, String> {
        cases.iter().map(|(ops, w)| self.eval(c, ops, *w)).collect()
    }
}
