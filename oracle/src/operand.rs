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

/// The ue5m3x2, `.pzo` and `.scaled::n1::ue8m0` forms are spelled and checked but not
/// evaluated (docs/semantics.md §5.14, §5.15): the error names what is missing.
pub(crate) fn check_evaluated(c: &Cvt) -> Result<(), EvalError> {
    if c.is_evaluated() {
        return Ok(());
    }
    let missing = if c.pzo {
        "the meaning of .pzo is not published"
    } else if c.scaled_n1 {
        "the rule of the single ue8m0 scale (.scaled::n1::ue8m0) is not published"
    } else if c.atype == crate::instr::Type::Ue5m3x2 {
        // ue5m3 reaches 114688, above f16's largest finite value.
        "what ue5m3 values above f16's range (65504) become is not published"
    } else {
        // The ue5m3 encoding is known (PTX ISA 9.4); the conversion rules into it are not.
        "ue5m3x2 evaluation is not implemented yet (the ue5m3 encoding is known, but not the \
         rules of conversion into it: negative inputs, overflow without .satfinite, NaN with .satfinite)"
    };
    Err(EvalError::Operands(format!("{c} is not evaluated: {missing}; the oracle checks its legality only")))
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
