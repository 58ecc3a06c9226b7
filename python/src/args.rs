//! Python arguments to oracle values, with the CLI's error messages as
//! `ValueError` (or `IllegalInstruction` for spellings the rules reject).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use ptx_cvt::accept::{parse_hex, width_mask};
use ptx_cvt::eval::fmt_hex;
use ptx_cvt::{instr, AcceptSet, Cvt, EvalError, Operand, Profile, PtxVersion, Regs, Target};

use crate::IllegalInstruction;

pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

pub fn eval_error(e: EvalError) -> PyErr {
    match e {
        EvalError::Illegal(i) => IllegalInstruction::new_err(i.to_string()),
        EvalError::Operands(m) => value_error(m),
    }
}

pub fn instruction(text: &str) -> PyResult<Cvt> {
    instr::parse(text).map_err(|e| value_error(e.message))
}

pub fn profile(text: &str) -> PyResult<Profile> {
    text.parse().map_err(|e: ptx_cvt::policy::UnknownProfile| value_error(e.to_string()))
}

/// Target and PTX ISA version for a legality check; the version defaults to
/// the newest when a target is given, as on the command line.
pub struct Legality {
    pub target: Option<Target>,
    pub version: Option<PtxVersion>,
}

impl Legality {
    pub fn parse(target: Option<&str>, version: Option<&str>) -> PyResult<Legality> {
        let target = target.map(|t| t.parse::<Target>().map_err(|e| value_error(e.0))).transpose()?;
        let version = version.map(|v| v.parse::<PtxVersion>().map_err(|e| value_error(e.0))).transpose()?;
        let version = version.or(target.map(|_| PtxVersion::LATEST));
        if let (Some(t), Some(v)) = (target, version) {
            if let Some(min) = t.min_version().filter(|m| v < *m) {
                return Err(value_error(format!("target {t} needs PTX ISA {min} or later, not {v}")));
            }
        }
        Ok(Legality { target, version })
    }

    /// The CLI's target check before evaluating (nothing to check without a target).
    pub fn check(&self, c: &Cvt, operands: &[Operand], dst_width: u32) -> PyResult<()> {
        let Some(t) = self.target else { return Ok(()) };
        let v = self.version.unwrap_or(PtxVersion::LATEST);
        let src = operands.first().map_or(c.atype.bits(), |o| o.width);
        instr::check(c, Regs { dst: dst_width, src }, Some(t), Some(v))
            .map_err(|e| IllegalInstruction::new_err(format!("illegal on {t} with PTX ISA {v}: {e}")))
    }
}

/// Operands given as ints (registers of the operand's natural width) or as
/// hex strings whose digit count is the register width, as in case lines.
pub fn operands(c: &Cvt, values: &[Bound<'_, PyAny>]) -> PyResult<Vec<Operand>> {
    let natural = instr::shape(c).srcs;
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let n = i + 1;
            if let Ok(s) = v.cast::<PyString>() {
                let (bits, width) = parse_hex(&s.to_cow()?).map_err(|e| value_error(format!("operand {n}: {e}")))?;
                return Ok(Operand { bits, width });
            }
            let bits: u64 = v.extract().map_err(|_| {
                value_error(format!(
                    "operand {n}: expected an int in [0, 2**64) or a hex string, got {}",
                    describe_value(v)
                ))
            })?;
            let width = natural.get(i).copied().unwrap_or(c.atype.bits());
            if bits & !width_mask(width) != 0 {
                return Err(value_error(format!(
                    "operand {n}: {bits:#x} does not fit the {width}-bit register of {c}; \
                     for a wider register give the operand as a hex string with one digit per nibble"
                )));
            }
            Ok(Operand { bits, width })
        })
        .collect()
}

/// A result register value: an int of the destination width.
pub fn register_value(c: &Cvt, v: &Bound<'_, PyAny>, width: u32) -> PyResult<u64> {
    let bits: u64 = v.extract().map_err(|_| {
        value_error(format!("result: expected an int in [0, 2**64) or a case-line result, got {}", describe_value(v)))
    })?;
    if bits & !width_mask(width) != 0 {
        return Err(value_error(format!("result: {bits:#x} does not fit the {width}-bit destination register of {c}")));
    }
    Ok(bits)
}

/// A result in case-line syntax (`3c00`, `nan`, `3f80????`, `a|b`).
pub fn result_text(c: &Cvt, text: &str) -> PyResult<AcceptSet> {
    let nan_format = c.dtype.is_float().then(|| c.dtype.format());
    AcceptSet::parse(text, nan_format).map_err(|e| value_error(format!("result: {e}")))
}

pub fn dst_width(c: &Cvt, dst_width: Option<u32>) -> PyResult<u32> {
    match dst_width {
        None => Ok(c.dtype.bits()),
        Some(w @ (8 | 16 | 32 | 64)) => Ok(w),
        Some(w) => Err(value_error(format!("dst_width {w}: registers are 8, 16, 32 or 64 bits wide"))),
    }
}

/// A short description of a bad argument for an error message.
fn describe_value(v: &Bound<'_, PyAny>) -> String {
    let kind = v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into());
    match v.extract::<i128>() {
        Ok(i) => format!("{kind} {i}"),
        Err(_) => kind,
    }
}

pub fn hex(o: &Operand) -> String {
    fmt_hex(o.bits, o.width)
}
