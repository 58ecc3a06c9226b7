//! Operands and evaluation errors, shared by the exact and the fast engine:
//! how many source registers a form takes and how wide they must be.

use std::fmt;

use crate::instr::{self, Cvt, Illegal};

/// A source operand: its bits and the width of the register holding them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    pub bits: u64,
    pub width: u32,
}

/// Why a case cannot be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    Illegal(Illegal),
    Operands(String),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Illegal(i) => write!(f, "{i}"),
            EvalError::Operands(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for EvalError {}

/// The error for a wrong number of source operands.
pub(crate) fn operand_count_error(c: &Cvt, got: usize) -> EvalError {
    let shape = instr::shape(c);
    let n = shape.srcs.len();
    EvalError::Operands(format!(
        "{c} takes {n} source operand{} ({}), got {got}",
        if n == 1 { "" } else { "s" },
        shape.describe()
    ))
}

/// Packed forms take registers of exactly their operands' widths (shared with the fast engine).
pub(crate) fn check_packed_widths(c: &Cvt, srcs: &[Operand]) -> Result<(), EvalError> {
    if c.is_scalar() {
        return Ok(());
    }
    for (i, (o, want)) in srcs.iter().zip(&instr::shape(c).srcs).enumerate() {
        if !instr::packed::width_ok(c, Some(i), o.width) {
            return Err(EvalError::Operands(format!(
                "operand {} of {c} needs a {want}-bit register ({} hex digits), got {} bits",
                i + 1,
                want / 4,
                o.width
            )));
        }
    }
    Ok(())
}

/// Zero-padded hex for a register width.
pub fn fmt_hex(bits: u64, width: u32) -> String {
    format!("{bits:0w$x}", w = width.div_ceil(4) as usize)
}
