//! Minimal reproducers for one case: its case line, and a complete PTX module
//! that runs exactly that `cvt` and stores the result, ready for `ptxas`.
//!
//! The module: `.version` / `.target` / `.address_size 64`, one
//! `.visible .entry cvt_case(.param .u64 cvt_case_out)` kernel that moves each
//! operand's hex value into a `.b<W>` register of the case's width, runs the
//! instruction in canonical spelling into a destination of the case's width
//! and writes it with `st.global.b<W>` to `out[0]`. 8-bit operands are loaded
//! through a `.b16` temporary (`mov.b16` then `cvt.u8.u16` into the `.b8`
//! register). The snapshot in tests/data/ptxas-legality.md shows `.b8`
//! registers are accepted by cvt.

use std::fmt::Write as _;

use ptx_cvt::instr::{self, REG_WIDTHS};
use ptx_cvt::{format_case, AcceptSet, Case, Cvt, PtxVersion, Regs, Target};

/// The PTX ISA version snippets use when none is asked for.
pub const DEFAULT_VERSION: PtxVersion = PtxVersion::LATEST;

/// Targets tried, in order, for a snippet when no target is asked for: the
/// first that admits the form wins, so that e.g. an x4 `.rs` form gets
/// `sm_100a`. Falls back to the first (`sm_90`).
const FALLBACK_TARGETS: [&str; 4] = ["sm_90", "sm_100a", "sm_100f", "sm_120a"];

/// The one-line reproducer: the case with the oracle's expected result,
/// e.g. `cvt.rn.f16.f32 3f801000 => 3c00`.
pub fn case_line(case: &Case, expected: &AcceptSet) -> String {
    format_case(&case.instr, &case.operands, expected)
}

/// The target for a snippet: `sm_90` when that admits the form (or nothing
/// does), else the first of a few newer targets that does.
pub fn default_target(case: &Case, version: PtxVersion) -> Target {
    let regs = Regs { dst: case.dst_width(), src: case.operands.first().map_or(case.instr.atype.bits(), |o| o.width) };
    let targets: Vec<Target> = FALLBACK_TARGETS.iter().filter_map(|t| t.parse().ok()).collect();
    targets
        .iter()
        .copied()
        .find(|t| instr::check(&case.instr, regs, Some(*t), Some(version)).is_ok())
        .unwrap_or(Target::new(90))
}

/// Smallest PTX register width that holds `bits`.
fn reg_width(bits: u32) -> u32 {
    REG_WIDTHS.into_iter().find(|w| *w >= bits).unwrap_or(64)
}

/// Register names for the case's operands: the form's own names (`%a`,
/// `%b`, `%e`, `%f`, `%rbits`) when the operand count matches, else `%s0`….
fn operand_names(c: &Cvt, n: usize) -> Vec<String> {
    let shape = instr::shape(c);
    if shape.names.len() == n {
        shape.names.iter().map(|s| format!("%{s}")).collect()
    } else {
        (0..n).map(|i| format!("%s{i}")).collect()
    }
}

/// The operand list as the instruction takes it: `%a`, `%a, %b` or, for
/// four-lane results from four sources, the vector `{%a, %b, %e, %f}`;
/// `.rs` forms then take `%rbits`.
fn operand_list(c: &Cvt, names: &[String]) -> String {
    let vector = !c.atype.is_packed() && c.dtype.is_packed() && c.dtype.lanes() == 4 && names.len() >= 4;
    if vector {
        let mut parts = vec![format!("{{{}}}", names[..4].join(", "))];
        parts.extend(names[4..].iter().cloned());
        parts.join(", ")
    } else {
        names.join(", ")
    }
}

/// The `cvt` line for `c` with destination register `dst` and source
/// registers `names` (in [`instr::shape`] order), without indentation or
/// trailing newline, e.g. `cvt.rs.satfinite.e4m3x4.f32 %d, {%a, %b, %e, %f}, %rbits;`.
/// Shares the operand layout with [`ptx_snippet`] (used by `ptx-cvt ptx`).
pub fn cvt_line(c: &Cvt, dst: &str, names: &[String]) -> String {
    format!("{c} {dst}, {};", operand_list(c, names))
}

/// A complete PTX module that runs `case`'s instruction on its operands and
/// stores the result (the destination register's full width) at `out[0]`.
/// When the case has a result it is quoted in the header comment as the
/// expected value, so pass a case whose result is the oracle's answer.
pub fn ptx_snippet(case: &Case, target: Target, version: PtxVersion) -> String {
    let c = &case.instr;
    let dw = reg_width(case.dst_width());
    let names = operand_names(c, case.operands.len());
    let mut s = String::new();
    match &case.result {
        Some(r) => {
            let _ = writeln!(s, "// ptx-cvt case: {}", format_case(c, &case.operands, r));
        }
        None => {
            let ops: Vec<String> = case.operands.iter().map(|o| ptx_cvt::eval::fmt_hex(o.bits, o.width)).collect();
            let _ = writeln!(s, "// ptx-cvt case: {c} {}", ops.join(" "));
        }
    }
    let _ = writeln!(s, "// Stores the {dw}-bit destination register of the cvt at out[0].");
    let _ = writeln!(s, ".version {version}");
    let _ = writeln!(s, ".target {target}");
    let _ = writeln!(s, ".address_size 64");
    s.push('\n');
    s.push_str(".visible .entry cvt_case(\n\t.param .u64 cvt_case_out\n)\n{\n");
    s.push_str("\t.reg .b64 %out;\n");
    let needs_tmp8 = case.operands.iter().any(|o| reg_width(o.width) == 8);
    if needs_tmp8 {
        s.push_str("\t.reg .b16 %t8;\n");
    }
    for (name, o) in names.iter().zip(&case.operands) {
        let _ = writeln!(s, "\t.reg .b{} {name};", reg_width(o.width));
    }
    let _ = writeln!(s, "\t.reg .b{dw} %d;");
    s.push_str("\tld.param.u64 %out, [cvt_case_out];\n");
    s.push_str("\tcvta.to.global.u64 %out, %out;\n");
    for (name, o) in names.iter().zip(&case.operands) {
        let w = reg_width(o.width);
        let hex = |bits: u64, w: u32| ptx_cvt::eval::fmt_hex(bits, w);
        if w == 8 {
            let _ = writeln!(s, "\tmov.b16 %t8, 0x{};", hex(o.bits & 0xff, 16));
            let _ = writeln!(s, "\tcvt.u8.u16 {name}, %t8;");
        } else {
            let _ = writeln!(s, "\tmov.b{w} {name}, 0x{};", hex(o.bits, w));
        }
    }
    let _ = writeln!(s, "\t{c} %d, {};", operand_list(c, &names));
    let _ = writeln!(s, "\tst.global.b{dw} [%out], %d;");
    s.push_str("\tret;\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_cvt::parse_case;

    fn case(line: &str) -> Case {
        parse_case(line).unwrap().unwrap()
    }

    #[test]
    fn scalar_snippet() {
        let c = case("cvt.rn.f16.f32 3f801000 => 3c00");
        let s = ptx_snippet(&c, Target::new(90), DEFAULT_VERSION);
        assert!(s.starts_with("// ptx-cvt case: cvt.rn.f16.f32 3f801000 => 3c00\n"), "{s}");
        for want in [
            ".version 9.5\n",
            ".target sm_90\n",
            ".address_size 64\n",
            ".visible .entry cvt_case(",
            ".param .u64 cvt_case_out",
            ".reg .b32 %a;",
            ".reg .b16 %d;",
            "mov.b32 %a, 0x3f801000;",
            "cvt.rn.f16.f32 %d, %a;",
            "st.global.b16 [%out], %d;",
        ] {
            assert!(s.contains(want), "lacks {want:?}:\n{s}");
        }
        assert!(!s.contains("%t8"), "{s}");
    }

    #[test]
    fn eight_bit_and_wide_registers() {
        let s = ptx_snippet(&case("cvt.s16.s8 c2 => ffc2"), Target::new(90), DEFAULT_VERSION);
        assert!(
            s.contains(".reg .b8 %a;") && s.contains("mov.b16 %t8, 0x00c2;") && s.contains("cvt.u8.u16 %a, %t8;"),
            "{s}"
        );
        let s = ptx_snippet(&case("cvt.s16.s8 139231c2 => ffffffc2"), Target::new(90), DEFAULT_VERSION);
        assert!(s.contains(".reg .b32 %a;") && s.contains(".reg .b32 %d;") && s.contains("st.global.b32"), "{s}");
    }

    #[test]
    fn packed_operands() {
        let s = ptx_snippet(&case("cvt.rn.f16x2.f32 3f800000 40000000 => 40003c00"), Target::new(90), DEFAULT_VERSION);
        assert!(s.contains("cvt.rn.f16x2.f32 %d, %a, %b;"), "{s}");
        let c = case("cvt.rs.satfinite.e4m3x4.f32 3f800000 3f800000 3f800000 3f800000 00000000");
        let t = default_target(&c, DEFAULT_VERSION);
        assert_eq!(t.to_string(), "sm_100a");
        let s = ptx_snippet(&c, t, DEFAULT_VERSION);
        assert!(s.contains("cvt.rs.satfinite.e4m3x4.f32 %d, {%a, %b, %e, %f}, %rbits;"), "{s}");
        assert!(s.contains(".target sm_100a") && s.contains(".reg .b32 %d;"), "{s}");
        assert_eq!(default_target(&case("cvt.rn.f16.f32 3f800000"), DEFAULT_VERSION), Target::new(90));
    }
}
