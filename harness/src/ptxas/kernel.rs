//! The PTX kernel that asks ptxas to fold a batch of cases: one literal
//! conversion per case (`mov` of each operand's immediate, the `cvt`, a
//! `st.global` of the whole destination register into slot i).

use std::fmt::Write as _;

use ptx_cvt::instr::{self, REG_WIDTHS};
use ptx_cvt::{Cvt, Operand, PtxVersion, Target};

/// Bytes between slots: wider than any destination register and not a
/// multiple that lets ptxas merge two neighbouring 64-bit stores into one.
pub const SLOT: i64 = 16;

/// The kernel's name in the module and in the disassembly.
pub const NAME: &str = "cvt_fold";

/// Smallest PTX register width that holds `bits`.
pub fn reg_width(bits: u32) -> u32 {
    REG_WIDTHS.into_iter().find(|w| *w >= bits).unwrap_or(64)
}

/// The module for `cases` of `c`, all with the same register widths: case i
/// stores its destination register with `st.global.b<W>` at `out + SLOT*i`.
pub fn module(c: &Cvt, cases: &[(Vec<Operand>, u32)], target: Target, version: PtxVersion) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "// ptx-cvt: {} literal cases of {c}; case i stores at out + {SLOT}*i", cases.len());
    let _ = writeln!(s, ".version {version}\n.target {target}\n.address_size 64\n");
    let _ = writeln!(s, ".visible .entry {NAME}(.param .u64 out)\n{{");
    s.push_str("\t.reg .b64 %out;\n\t.reg .b16 %t8;\n");
    s.push_str("\tld.param.u64 %out, [out];\n\tcvta.to.global.u64 %out, %out;\n");
    let shape = instr::shape(c);
    for (i, (ops, dst)) in cases.iter().enumerate() {
        let names: Vec<String> = if shape.names.len() == ops.len() {
            shape.names.iter().map(|n| format!("%{n}")).collect()
        } else {
            (0..ops.len()).map(|k| format!("%s{k}")).collect()
        };
        let dw = reg_width(*dst);
        s.push_str("\t{\n");
        for (name, o) in names.iter().zip(ops) {
            let _ = writeln!(s, "\t.reg .b{} {name};", reg_width(o.width));
        }
        let _ = writeln!(s, "\t.reg .b{dw} %d;");
        for (name, o) in names.iter().zip(ops) {
            let w = reg_width(o.width);
            let hex = |bits: u64, w: u32| ptx_cvt::eval::fmt_hex(bits, w);
            if w == 8 {
                // No 8-bit immediate move: through a 16-bit temporary, as the reproducers do.
                let _ = writeln!(s, "\tmov.b16 %t8, 0x{};\n\tcvt.u8.u16 {name}, %t8;", hex(o.bits & 0xff, 16));
            } else {
                let _ = writeln!(s, "\tmov.b{w} {name}, 0x{};", hex(o.bits, w));
            }
        }
        let _ = writeln!(s, "\t{}", crate::reproducer::cvt_line(c, "%d", &names));
        let _ = writeln!(s, "\tst.global.b{dw} [%out+{}], %d;\n\t}}", SLOT * i as i64);
    }
    s.push_str("\tret;\n}\n");
    s
}
