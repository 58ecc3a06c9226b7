//! Parsing `cvt` spellings the way ptxas reads them: modifiers in any order,
//! before or after the types (docs/semantics.md §3); the first type is the destination.

use std::fmt;

use super::{Cvt, Rounding, Type};
use crate::accept::clip_to;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

fn err<T>(message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { message: message.into() })
}

impl std::str::FromStr for Cvt {
    type Err = ParseError;
    /// The same as [`parse`].
    fn from_str(text: &str) -> Result<Cvt, ParseError> {
        parse(text)
    }
}

/// Parse an instruction such as `cvt.rn.f16.f32` or `cvt.s8.f32.rni.sat`.
pub fn parse(text: &str) -> Result<Cvt, ParseError> {
    let shown = clip_to(text, 80);
    if text.is_empty() {
        return err("empty instruction: expected `cvt.<dtype>.<atype>`");
    }
    let mut parts = text.split('.').peekable();
    let head = parts.next().unwrap_or("");
    if head != "cvt" {
        return err(format!("`{shown}` is not a cvt instruction (expected it to start with `cvt.`)"));
    }
    // ptxas reads `.pack` only right after `cvt` (a later `.pack` is an unknown modifier).
    let pack = parts.next_if_eq(&"pack").is_some();
    let mut types = Vec::new();
    let mut b32 = false;
    let mut c = Cvt::new(Type::U8, Type::U8);
    for tok in parts {
        let tok_shown = clip_to(tok, 40);
        if tok.is_empty() {
            return err(format!("empty modifier (`..` or trailing `.`) in `{shown}`"));
        }
        if let Some(t) = Type::from_name(tok) {
            types.push(t);
        } else if let Some(r) = Rounding::from_name(tok) {
            if let Some(prev) = c.rounding {
                return err(format!(
                    "second rounding modifier `.{}`: `.{}` is already given (ptxas accepts one)",
                    r.name(),
                    prev.name()
                ));
            }
            c.rounding = Some(r);
        } else {
            match tok {
                "ftz" if c.ftz => return err("`.ftz` given twice (ptxas rejects a repeated .ftz)"),
                "ftz" => c.ftz = true,
                // ptxas tolerates repeated .sat / .satfinite / .relu (docs/semantics.md §3).
                "sat" => c.sat = true,
                "satfinite" => c.satfinite = true,
                "relu" => c.relu = true,
                super::SCALED if c.scaled => return err(format!("`.{}` given twice", super::SCALED)),
                super::SCALED_N1 if c.scaled_n1 => return err(format!("`.{}` given twice", super::SCALED_N1)),
                super::SCALED | super::SCALED_N1 if c.scaled || c.scaled_n1 => {
                    return err(format!(
                        "`.{}` and `.{}` cannot be combined (in `{shown}`)",
                        super::SCALED,
                        super::SCALED_N1
                    ))
                }
                super::SCALED => c.scaled = true,
                super::SCALED_N1 => c.scaled_n1 = true,
                // ptxas 13.5: "Multiple .pzo modifiers specified".
                "pzo" if c.pzo => return err("`.pzo` given twice (ptxas rejects a repeated .pzo)"),
                "pzo" => c.pzo = true,
                "pack" => return err(format!("`.pack` must come right after `cvt` (in `{shown}`)")),
                // The type of cvt.pack's `c` operand: written after the two types.
                "b32" if b32 => return err("`.b32` given twice"),
                "b32" if types.len() != 2 => {
                    return err(format!("`.b32` (the type of c) must follow the two types (in `{shown}`)"))
                }
                "b32" => b32 = true,
                _ => {
                    return err(format!(
                        "unknown modifier or type `.{tok_shown}` in `{shown}` (types: u8 u16 u32 u64 s8 s16 s32 s64 bf16 f16 f32 f64 tf32 f16x2 bf16x2 e4m3x2 e5m2x2 e2m3x2 e3m2x2 e2m1x2 ue8m0x2 e4m3x4 e5m2x4 e2m3x4 e3m2x4 e2m1x4 s2f6x2 ue5m3x2, and u4 s4 u2 s2 b32 with .pack; modifiers: pack rn rna rz rm rp rs rni rzi rmi rpi ftz sat relu satfinite pzo scaled::n2::ue8m0 scaled::n1::ue8m0)"
                    ))
                }
            }
        }
    }
    match types.as_slice() {
        [d, a] => {
            c.dtype = *d;
            c.atype = *a;
        }
        [] | [_] => return err(format!("`{shown}` needs two types, destination then source (e.g. `cvt.rn.f16.f32`)")),
        _ => return err(format!("`{shown}` has {} types; cvt takes exactly two (destination, source)", types.len())),
    }
    pack_types(&mut c, pack, b32, &shown)?;
    if c.sat && c.satfinite {
        return err("`.sat` and `.satfinite` cannot be combined (ptxas rejects it)");
    }
    Ok(c)
}

/// `.pack` turns the destination into its `cvt.pack` type; the sub-byte
/// types and `.b32` exist only there (PTX ISA "cvt.pack": `.b32` is the type
/// of `c`, which the u8/s8/u4/s4/u2/s2 forms take and u16/s16 do not).
fn pack_types(c: &mut Cvt, pack: bool, b32: bool, shown: &str) -> Result<(), ParseError> {
    let (d, a) = (c.dtype, c.atype);
    if let Some(t) = [(!pack).then_some(d), Some(a)].into_iter().flatten().find(|t| t.is_pack()) {
        return err(format!("type `.{}` exists only as the destination type of cvt.pack (in `{shown}`)", t.name()));
    }
    if !pack {
        if b32 {
            return err(format!("`.b32` is only the third type of cvt.pack (in `{shown}`)"));
        }
        return Ok(());
    }
    let Some(d) = d.pack_of() else {
        return err(format!(
            "cvt.pack converts to u16 s16 u8 s8 u4 s4 u2 or s2, not `.{}` (in `{shown}`)",
            c.dtype.name()
        ));
    };
    c.dtype = d;
    match (d.takes_c(), b32) {
        (true, false) => err(format!("`{shown}`: cvt.pack to .{} needs the c operand's type `.b32` last", d.name())),
        (false, true) => err(format!("`{shown}`: cvt.pack to .{} takes no c operand, so no `.b32`", d.name())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_and_canonical_print() {
        // docs/semantics.md §3: ptxas 13.5 accepts modifiers after the types.
        let c = parse("cvt.s8.f32.rni.ftz.sat").unwrap();
        assert_eq!(c.to_string(), "cvt.rni.ftz.sat.s8.f32");
        assert_eq!(parse("cvt.sat.sat.rni.s8.f32").unwrap().to_string(), "cvt.rni.sat.s8.f32");
        assert_eq!(parse("cvt.f64.bf16.rp").unwrap().to_string(), "cvt.rp.f64.bf16");
        // PTX ISA "cvt.pack" syntax: `.pack.sat`, then convertType, abType (s32), cType (b32).
        assert_eq!(parse("cvt.pack.s4.s32.b32.sat").unwrap().to_string(), "cvt.pack.sat.s4.s32.b32");
        assert_eq!(parse("cvt.pack.sat.u16.s32").unwrap().dtype, Type::PackU16);
        // ptxas 13.5 takes the scale modifier anywhere among the modifiers.
        let s = parse("cvt.s2f6x2.f32.scaled::n2::ue8m0.relu.satfinite.rn").unwrap();
        assert_eq!(s.to_string(), "cvt.rn.relu.satfinite.scaled::n2::ue8m0.s2f6x2.f32");
        // ptxas 13.5 takes `.pzo` and `.scaled::n1::ue8m0` in any position too (every permutation
        // of cvt.rn.relu.satfinite.pzo.scaled::n1::ue8m0.e4m3x2.f32 assembles on sm_107a).
        let p = parse("cvt.e4m3x2.scaled::n1::ue8m0.f32.pzo.satfinite.relu.rn").unwrap();
        assert_eq!(p.to_string(), "cvt.rn.relu.satfinite.pzo.scaled::n1::ue8m0.e4m3x2.f32");
        assert!(p.pzo && p.scaled_n1 && !p.scaled);
    }

    #[test]
    fn rejects_with_reasons() {
        for (bad, needle) in [
            ("", "empty"),
            ("mov.f32.f32", "not a cvt"),
            ("cvt.rn.rz.f16.f32", "second rounding"),
            ("cvt.ftz.ftz.f32.f16", "twice"),
            ("cvt.f32", "two types"),
            ("cvt.f32.f16.f16", "3 types"),
            ("cvt.rn.f17.f32", "unknown"),
            ("cvt..f32.f16", "empty modifier"),
            ("cvt.sat.satfinite.f16.f32", "combined"),
            ("cvt.rn.satfinite.scaled::n2::ue8m0.scaled::n2::ue8m0.s2f6x2.f32", "twice"),
            ("cvt.rn.scaled::n2::ue4m3.bf16x2.s2f6x2", "unknown"),
            ("cvt.rn.pzo.pzo.f16.f32", "twice"),
            ("cvt.rn.satfinite.scaled::n1::ue8m0.scaled::n1::ue8m0.e4m3x2.f32", "twice"),
            ("cvt.rn.satfinite.scaled::n1::ue8m0.scaled::n2::ue8m0.e4m3x2.f32", "cannot be combined"),
            ("cvt.rn.satfinite.scaled::n1::ue4m3.e4m3x2.f32", "unknown"),
            ("cvt.u4.s32", "only as the destination type of cvt.pack"),
            ("cvt.pack.sat.u8.s32", "needs the c operand"),
            ("cvt.pack.sat.u16.s32.b32", "takes no c operand"),
            ("cvt.pack.sat.f16.s32", "converts to u16"),
            ("cvt.u8.s32.b32", "only the third type"),
            ("cvt.sat.pack.u8.s32.b32", "right after `cvt`"),
            ("cvt.pack.sat.u8.b32.s32", "must follow the two types"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
