//! `ptx-cvt ptx`: one self-contained PTX module with a test kernel per variant.
//!
//! # The module
//!
//! ```text
//! // ptx-cvt ptx module v1
//! // target sm_90
//! // version 9.5
//! // registers natural
//! // kernels 856
//! // <prose lines explaining the format>
//! // kernel cvt_rn_f16_f32 cvt.rn.f16.f32 32 -> 16
//! // kernel cvt_rn_f16x2_f32 cvt.rn.f16x2.f32 32 32 -> 32
//! // …
//! // end kernels
//! .version 9.5
//! .target sm_90
//! .address_size 64
//! .visible .entry cvt_rn_f16_f32( … ) { … }
//! …
//! ```
//!
//! ## Header table (machine-readable)
//!
//! Every line of the header starts with `// `. The lines that start with
//! exactly `// kernel ` (note the space) form the table, one per kernel,
//! in the order of the kernels in the module:
//!
//! ```text
//! // kernel <name> <instruction> <w_1> [<w_2> ...] -> <w_d>
//! ```
//!
//! Fields are separated by single spaces. `<name>` is the `.entry` name,
//! `<instruction>` the canonical spelling (parse it with `ptx_cvt::instr::parse`),
//! `<w_i>` the register width in bits (8, 16, 32 or 64) of the i-th source
//! operand, in the order of [`ptx_cvt::instr::shape`] (`a`, then `b`, or
//! `a b e f` for x4 forms, then `rbits` for `.rs` forms), and `<w_d>` the
//! destination register width. The order of operands is the order of case-line
//! operands (vectors/README.md), so a case line's operands map one to one
//! onto the kernel's input arrays. Other header lines are `// <key> <value>`
//! (`target`, `version`, `registers`, `kernels` = number of table lines),
//! free prose, and `// end kernels` after the last table line.
//!
//! ## Kernel naming
//!
//! [`kernel_name`]: the canonical spelling with every `.` replaced by `_`
//! (`cvt.rn.satfinite.e4m3x2.f32` → `cvt_rn_satfinite_e4m3x2_f32`). Spelling
//! tokens never contain `_`, so the mapping is one to one. Any other character
//! that is not `[A-Za-z0-9_]` (none today) would also become `_`.
//!
//! ## Kernel signature and body
//!
//! ```text
//! .visible .entry <name>(.param .u64 in_<op1>, [.param .u64 in_<op2>, …]
//!                        .param .u64 out, .param .u32 n)
//! ```
//!
//! `in_<op>` (op = `a`, `b`, `e`, `f`, `rbits`, in table order) are global
//! pointers to arrays of n elements of the operand's register width;
//! `out` points to n elements of the destination width. Elements are
//! little-endian words of exactly that width (1, 2, 4 or 8 bytes), packed
//! without padding: the layout of the case-line hex values.
//! Thread i = %ctaid.x * %ntid.x + %tid.x (computed in 64 bits) does
//! nothing when i >= n; otherwise it loads each operand with
//! `ld.global.b<W>` into a `.b<W>` register (8-bit operands straight into a
//! `.b8` register, which ptxas 13.5 accepts for ld/st and which
//! `cvt.*.bf16.{s8,u8}` requires), runs the `cvt` in canonical spelling
//! into a `.b<W>` destination and stores it with `st.global.b<W>` at `out[i]`.
//! Any 1-D launch shape works.
//!
//! ## Registers
//!
//! `--registers natural` (the only choice for now): every register is exactly
//! as wide as its operand's type (`ptx_cvt::gen::natural_regs`, per-operand
//! widths from `instr::shape`). Wider-register variants (e.g. a `.b32` source
//! for `cvt.s16.s8`) are a later extension; they would use the same header
//! format with other widths.

use std::fmt::Write as _;
use std::path::Path;

use clap::{Args, ValueEnum};
use ptx_cvt::instr::{self, REG_WIDTHS};
use ptx_cvt::{Cvt, PtxVersion, Target};

use serde_json::json;

use crate::common::{legal_variants_matching, write_atomic, VariantFilter};
use crate::output::write_stdout;
use crate::reproducer;

#[derive(Args)]
pub struct PtxArgs {
    /// Target whose legal variants get a kernel (e.g. sm_90, sm_100a).
    #[arg(long, value_parser = crate::parse_target)]
    target: Target,
    /// PTX ISA version of the module and for legality (default: 9.5).
    #[arg(long, value_parser = crate::parse_version)]
    ptx_version: Option<PtxVersion>,
    #[arg(long = "filter", value_name = "GLOB", help = crate::options::FILTER_HELP)]
    filters: Vec<String>,
    /// Register widths: `natural` (exactly the operand types' widths; the only
    /// choice for now, wider registers are a later extension).
    #[arg(long, value_enum, default_value_t = Registers::Natural)]
    registers: Registers,
    /// Output file (a regular file, written atomically), or `-` for stdout.
    #[arg(long, short, default_value = "-")]
    out: String,
    /// Print one JSON object: the kernel table, and the module text under
    /// "module" when it goes to stdout (README "JSON output").
    #[arg(long)]
    json: bool,
}

/// How the kernels' registers are sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Registers {
    /// Every register exactly as wide as its operand's type.
    Natural,
}

/// One kernel of a module: the variant and its register widths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The `.entry` name, [`kernel_name`] of `instr`.
    pub name: String,
    pub instr: Cvt,
    /// Source operand names in [`instr::shape`] order (`a`, `b`, `e`, `f`, `rbits`, `scale`).
    pub operands: Vec<&'static str>,
    /// Register width in bits of each source operand, same order.
    pub src_widths: Vec<u32>,
    /// Register width in bits of the destination.
    pub dst_width: u32,
}

impl Kernel {
    /// The kernel of `c` with natural-width registers.
    pub fn natural(c: &Cvt) -> Kernel {
        let shape = instr::shape(c);
        Kernel {
            name: kernel_name(c),
            instr: *c,
            operands: shape.names.to_vec(),
            src_widths: shape.srcs.iter().map(|w| reg_width(*w)).collect(),
            dst_width: reg_width(c.dtype.bits()),
        }
    }

    /// Its header-table line, without the newline:
    /// `// kernel <name> <instruction> <w_1> [<w_2> ...] -> <w_d>`.
    pub fn table_line(&self) -> String {
        let ws: Vec<String> = self.src_widths.iter().map(|w| w.to_string()).collect();
        format!("// kernel {} {} {} -> {}", self.name, self.instr, ws.join(" "), self.dst_width)
    }
}

/// The kernel name of a variant: its canonical spelling with `.` (and any
/// other character outside `[A-Za-z0-9_]`) replaced by `_`, e.g.
/// `cvt.rn.f16.f32` → `cvt_rn_f16_f32`. One to one on canonical spellings.
pub fn kernel_name(c: &Cvt) -> String {
    c.to_string().chars().map(|ch| if ch.is_ascii_alphanumeric() || ch == '_' { ch } else { '_' }).collect()
}

/// Smallest PTX register width that holds `bits`.
fn reg_width(bits: u32) -> u32 {
    REG_WIDTHS.into_iter().find(|w| *w >= bits).unwrap_or(64)
}

/// The kernels of a module for `variants` (natural registers), in order,
/// without repeats. Callers that run the module can use this instead of
/// parsing the header.
pub fn kernels(variants: &[Cvt]) -> Vec<Kernel> {
    let mut seen = std::collections::HashSet::new();
    variants.iter().filter(|c| seen.insert(**c)).map(Kernel::natural).collect()
}

/// A complete PTX module with one kernel per variant (natural registers;
/// repeats dropped), for `target` at PTX ISA `version`. See the module
/// documentation for the layout and the header table. The variants should be
/// legal on the target at natural widths (`ptx_cvt::gen::legal_variants`), or
/// ptxas will reject the module.
#[cfg(test)]
pub fn module(variants: &[Cvt], target: Target, version: PtxVersion) -> String {
    module_of(&kernels(variants), target, version)
}

/// [`module`] for kernels already built.
pub fn module_of(kernels: &[Kernel], target: Target, version: PtxVersion) -> String {
    let mut s = String::new();
    s.push_str("// ptx-cvt ptx module v1\n");
    let _ = writeln!(s, "// target {target}");
    let _ = writeln!(s, "// version {version}");
    s.push_str("// registers natural\n");
    let _ = writeln!(s, "// kernels {}", kernels.len());
    s.push_str(
        "//\n\
         // One table line per kernel: `// kernel <name> <instruction> <w_1> [<w_2> ...] -> <w_d>`,\n\
         // source register widths in case-line operand order, then the destination width.\n\
         // Each kernel takes (.param .u64 in_<op> per source, .param .u64 out, .param .u32 n):\n\
         // thread i < n loads in_<op>[i] (little-endian, <w> bits each), runs the cvt and stores out[i].\n\
         //\n",
    );
    for k in kernels {
        s.push_str(&k.table_line());
        s.push('\n');
    }
    s.push_str("// end kernels\n\n");
    let _ = writeln!(s, ".version {version}");
    let _ = writeln!(s, ".target {target}");
    s.push_str(".address_size 64\n");
    for k in kernels {
        s.push('\n');
        kernel_text(&mut s, k);
    }
    s
}

/// log2 of a width's size in bytes.
fn shift(w: u32) -> u32 {
    (w / 8).trailing_zeros()
}

/// Append the address of element %i of the array whose pointer is in
/// parameter `param` (elements `w` bits wide) to `%ptr`.
fn element_address(s: &mut String, param: &str, w: u32) {
    let _ = writeln!(s, "\tld.param.u64 %ptr, [{param}];");
    s.push_str("\tcvta.to.global.u64 %ptr, %ptr;\n");
    match shift(w) {
        0 => s.push_str("\tadd.s64 %ptr, %ptr, %i;\n"),
        k => {
            let _ = writeln!(s, "\tshl.b64 %off, %i, {k};");
            s.push_str("\tadd.s64 %ptr, %ptr, %off;\n");
        }
    }
}

fn kernel_text(s: &mut String, k: &Kernel) {
    let _ = writeln!(s, ".visible .entry {}(", k.name);
    for op in &k.operands {
        let _ = writeln!(s, "\t.param .u64 in_{op},");
    }
    s.push_str("\t.param .u64 out,\n\t.param .u32 n\n)\n{\n");
    s.push_str("\t.reg .pred %p;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %i, %n, %off, %ptr;\n");
    let names: Vec<String> = k.operands.iter().map(|o| format!("%{o}")).collect();
    for (name, w) in names.iter().zip(&k.src_widths) {
        let _ = writeln!(s, "\t.reg .b{w} {name};");
    }
    let _ = writeln!(s, "\t.reg .b{} %d;", k.dst_width);
    s.push_str(
        "\tmov.u32 %r0, %ctaid.x;\n\
         \tmov.u32 %r1, %ntid.x;\n\
         \tmov.u32 %r2, %tid.x;\n\
         \tmul.wide.u32 %i, %r0, %r1;\n\
         \tcvt.u64.u32 %off, %r2;\n\
         \tadd.s64 %i, %i, %off;\n\
         \tld.param.u32 %r0, [n];\n\
         \tcvt.u64.u32 %n, %r0;\n\
         \tsetp.ge.u64 %p, %i, %n;\n\
         \t@%p bra $L_done;\n",
    );
    for ((op, name), w) in k.operands.iter().zip(&names).zip(&k.src_widths) {
        element_address(s, &format!("in_{op}"), *w);
        let _ = writeln!(s, "\tld.global.b{w} {name}, [%ptr];");
    }
    let _ = writeln!(s, "\t{}", reproducer::cvt_line(&k.instr, "%d", &names));
    element_address(s, "out", k.dst_width);
    let _ = writeln!(s, "\tst.global.b{} [%ptr], %d;", k.dst_width);
    s.push_str("$L_done:\n\tret;\n}\n");
}

/// Spellings ptxas 13.5 accepts but cannot compile when the result is used:
/// it stops with "Internal compiler error" (C7907) on sm_107a/f. The ISA text
/// lists `.pzo` on scalar f16/bf16 with `.rn`/`.rz` only (docs/semantics.md §5.15).
pub const PTXAS_CRASHES: [&str; 4] =
    ["cvt.rm.pzo.bf16.f32", "cvt.rp.pzo.bf16.f32", "cvt.rm.pzo.f16.f32", "cvt.rp.pzo.f16.f32"];

pub fn run(a: PtxArgs) -> u8 {
    let Registers::Natural = a.registers;
    let version = a.ptx_version.unwrap_or(PtxVersion::LATEST);
    let variants = VariantFilter::new(&a.filters).and_then(|f| legal_variants_matching(&[a.target], version, &f));
    let variants: Vec<Cvt> = match variants {
        Ok(v) => v.into_iter().map(|(c, _)| c).collect(),
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let (crashing, variants): (Vec<Cvt>, Vec<Cvt>) =
        variants.into_iter().partition(|c| PTXAS_CRASHES.contains(&c.to_string().as_str()));
    if !crashing.is_empty() {
        let names: Vec<String> = crashing.iter().map(|c| c.to_string()).collect();
        eprintln!("note: left out (ptxas 13.5 stops with an internal compiler error on them): {}", names.join(" "));
    }
    if variants.is_empty() {
        eprintln!("error: no variant legal on {} at PTX ISA {version} matches", a.target);
        return 2;
    }
    let ks = kernels(&variants);
    let text = module_of(&ks, a.target, version);
    if a.out != "-" {
        if let Err(e) = write_atomic(Path::new(&a.out), text.as_bytes()) {
            eprintln!("error: {e}");
            return 2;
        }
        eprintln!("{} kernels for {} (PTX ISA {version}) written to {}", variants.len(), a.target, a.out);
    }
    if a.json {
        let table: Vec<_> = ks
            .iter()
            .map(|k| json!({"name": k.name, "instruction": k.instr.to_string(), "src_widths": k.src_widths, "dst_width": k.dst_width}))
            .collect();
        let mut v = json!({"target": a.target.to_string(), "ptx_version": version.to_string(), "kernels": table});
        if a.out == "-" {
            v["module"] = json!(text);
        } else {
            v["out"] = json!(a.out);
        }
        say!("{v}");
    } else if a.out == "-" {
        write_stdout(text.as_bytes());
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_cvt::instr::parse;

    fn cvt(s: &str) -> Cvt {
        parse(s).unwrap()
    }

    #[test]
    fn names_and_table() {
        assert_eq!(kernel_name(&cvt("cvt.rn.f16.f32")), "cvt_rn_f16_f32");
        let k = Kernel::natural(&cvt("cvt.rs.satfinite.e2m1x4.f32"));
        assert_eq!(
            k.table_line(),
            "// kernel cvt_rs_satfinite_e2m1x4_f32 cvt.rs.satfinite.e2m1x4.f32 32 32 32 32 32 -> 16"
        );
        let k = Kernel::natural(&cvt("cvt.rn.bf16.s8"));
        assert_eq!(k.table_line(), "// kernel cvt_rn_bf16_s8 cvt.rn.bf16.s8 8 -> 16");
    }

    #[test]
    fn kernel_body() {
        let m = module(
            &[cvt("cvt.rn.f16.f32"), cvt("cvt.rn.f16.f32"), cvt("cvt.rs.satfinite.e4m3x4.f32")],
            "sm_100a".parse().unwrap(),
            PtxVersion::LATEST,
        );
        assert!(m.contains("// kernels 2\n"), "{m}");
        for want in [
            ".target sm_100a\n",
            ".visible .entry cvt_rn_f16_f32(\n\t.param .u64 in_a,\n\t.param .u64 out,\n\t.param .u32 n\n)",
            "ld.global.b32 %a, [%ptr];",
            "cvt.rn.f16.f32 %d, %a;",
            "st.global.b16 [%ptr], %d;",
            "cvt.rs.satfinite.e4m3x4.f32 %d, {%a, %b, %e, %f}, %rbits;",
            "\t.param .u64 in_rbits,\n",
        ] {
            assert!(m.contains(want), "lacks {want:?}:\n{m}");
        }
        let m = module(&[cvt("cvt.rni.u8.bf16")], Target::new(90), PtxVersion::LATEST);
        assert!(
            m.contains(".reg .b8 %d;")
                && m.contains("st.global.b8 [%ptr], %d;")
                && m.contains("add.s64 %ptr, %ptr, %i;"),
            "{m}"
        );
    }
}
