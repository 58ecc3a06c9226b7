//! Test kernels in portable PTX: one `.entry` per variant and register
//! widths, written in a small subset of PTX that any emulator should read
//! (docs/kernels.md lists it). `ptx-cvt ptx`, `ptx-cvt gpu` and the module
//! protocol (`--target-ptx`) all emit their modules here.
//!
//! The harness part of a kernel (everything but the one `cvt` under test)
//! declares one register per `.reg` line, uses no vector or list syntax and
//! no conversion: the element address is `mul.wide.u32` of the index by the
//! element size, added to the pointer. An emulator whose `cvt` is wrong then
//! fails on that form alone, not on every kernel's addressing.

use std::fmt::Write as _;

use ptx_cvt::instr::{self, REG_WIDTHS};
use ptx_cvt::{Cvt, PtxVersion, Regs, Target};

use crate::reproducer;

/// One kernel: the variant and its register widths.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kernel {
    /// The `.entry` name: [`kernel_name`], with the widths appended when
    /// they are not the natural ones.
    pub name: String,
    pub instr: Cvt,
    /// Source operand names in [`instr::shape`] order (`a`, `b`, `e`, `f`, `c`, `rbits`, `scale`).
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
        let srcs: Vec<u32> = shape.srcs.iter().map(|w| reg_width(*w)).collect();
        Kernel::with_widths(c, &srcs, reg_width(c.dtype.bits()))
    }

    /// The kernel of `c` with these register widths (a case's). The name
    /// is [`kernel_name`] for natural widths, else that name, `__`, and the
    /// widths joined by `_` (`cvt_s16_s8__32_32`): spelling tokens contain no
    /// `_`, so names stay one to one.
    pub fn with_widths(c: &Cvt, src_widths: &[u32], dst_width: u32) -> Kernel {
        let shape = instr::shape(c);
        let natural: Vec<u32> = shape.srcs.iter().map(|w| reg_width(*w)).collect();
        let mut name = kernel_name(c);
        if natural != src_widths || reg_width(c.dtype.bits()) != dst_width {
            let ws: Vec<String> = src_widths.iter().chain([&dst_width]).map(|w| w.to_string()).collect();
            name = format!("{name}__{}", ws.join("_"));
        }
        Kernel { name, instr: *c, operands: shape.names.to_vec(), src_widths: src_widths.to_vec(), dst_width }
    }

    /// Its register widths as legality sees them.
    pub fn regs(&self) -> Regs {
        Regs { dst: self.dst_width, src: self.src_widths.first().copied().unwrap_or(self.instr.atype.bits()) }
    }

    /// Whether PTX has this kernel on `target` at `version`.
    pub fn legal_on(&self, target: Target, version: PtxVersion) -> bool {
        target.min_version().is_none_or(|m| m <= version)
            && instr::check(&self.instr, self.regs(), Some(target), Some(version)).is_ok()
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

/// The natural-width kernels of `variants`, in order, without repeats.
pub fn kernels(variants: &[Cvt]) -> Vec<Kernel> {
    let mut seen = std::collections::HashSet::new();
    variants.iter().filter(|c| seen.insert(**c)).map(Kernel::natural).collect()
}

/// The kernels of `c` with wider registers legal on `target` at `version`
/// (single-source forms only: the others take natural registers), natural
/// widths excluded, narrowest first.
pub fn wider_kernels(c: &Cvt, target: Target, version: PtxVersion) -> Vec<Kernel> {
    let shape = instr::shape(c);
    if shape.srcs.len() != 1 {
        return Vec::new();
    }
    let (src0, dst0) = (reg_width(shape.srcs[0]), reg_width(c.dtype.bits()));
    let mut out = Vec::new();
    for s in REG_WIDTHS.into_iter().filter(|w| *w >= src0) {
        for d in REG_WIDTHS.into_iter().filter(|w| *w >= dst0) {
            if (s, d) != (src0, dst0) {
                let k = Kernel::with_widths(c, &[s], d);
                let rejected = d == 64 && PTXAS_REJECTS_B64_DST.contains(&c.to_string().as_str());
                if k.legal_on(target, version) && !rejected {
                    out.push(k);
                }
            }
        }
    }
    out
}

/// Targets in the order the default target is chosen: the first on which
/// a kernel is legal. Portable targets oldest first (a module for an older
/// target runs on newer devices), then the architecture- and family-specific
/// ones for the forms that only they have.
pub const TARGET_ORDER: [&str; 26] = [
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_103", "sm_107", "sm_110", "sm_120",
    "sm_121", "sm_90a", "sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_107a", "sm_107f", "sm_110a", "sm_110f",
    "sm_120a", "sm_120f", "sm_121a", "sm_121f",
];

/// The first target of [`TARGET_ORDER`] on which every kernel is legal at
/// PTX ISA `version`.
pub fn default_target(kernels: &[Kernel], version: PtxVersion) -> Option<Target> {
    TARGET_ORDER
        .iter()
        .filter_map(|t| t.parse::<Target>().ok())
        .find(|t| kernels.iter().all(|k| k.legal_on(*t, version)))
}

/// The oldest PTX ISA version on which every kernel is legal on `target`
/// (what emulators that know only older versions read best).
pub fn oldest_version(kernels: &[Kernel], target: Target) -> Option<PtxVersion> {
    (1..=PtxVersion::LATEST.major)
        .flat_map(|major| (0..=9).map(move |minor| PtxVersion::new(major, minor)))
        .filter(|v| *v <= PtxVersion::LATEST)
        .find(|v| kernels.iter().all(|k| k.legal_on(target, *v)))
}

/// The `.version` of a module of `kernels` for `target`: `given`, else the
/// oldest on which every kernel is legal, else the newest known.
pub fn module_version(kernels: &[Kernel], target: Target, given: Option<PtxVersion>) -> PtxVersion {
    given.or_else(|| oldest_version(kernels, target)).unwrap_or(PtxVersion::LATEST)
}

/// A complete PTX module for `kernels` (see `tools/src/ptx.rs` for the
/// header table), for `target` at PTX ISA `version`. The kernels should be
/// legal there ([`Kernel::legal_on`]), or ptxas will reject the module.
pub fn module_of(kernels: &[Kernel], target: Target, version: PtxVersion) -> String {
    let mut s = String::new();
    s.push_str("// ptx-cvt ptx module v1\n");
    let _ = writeln!(s, "// target {target}");
    let _ = writeln!(s, "// version {version}");
    let natural = kernels.iter().all(|k| *k == Kernel::natural(&k.instr));
    let _ = writeln!(s, "// registers {}", if natural { "natural" } else { "as listed" });
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

/// Registers of the harness part, one declaration each: the index pieces
/// (`%r0` ctaid, `%r1` ntid, `%r2` tid, `%r3` n, `%r4` the 32-bit index) and
/// the 64-bit index, bound, offset and pointer.
const HARNESS_REGS: &str = "\t.reg .pred %p;\n\
    \t.reg .b32 %r0;\n\t.reg .b32 %r1;\n\t.reg .b32 %r2;\n\t.reg .b32 %r3;\n\t.reg .b32 %r4;\n\
    \t.reg .b64 %i;\n\t.reg .b64 %t;\n\t.reg .b64 %n;\n\t.reg .b64 %off;\n\t.reg .b64 %ptr;\n";

/// Thread i = ctaid.x * ntid.x + tid.x, compared with n in 64 bits (any
/// 1-D launch shape works); past the check i < n < 2^32, so the 32-bit
/// `%r4` is the index.
const HARNESS_INDEX: &str = "\tmov.u32 %r0, %ctaid.x;\n\
    \tmov.u32 %r1, %ntid.x;\n\
    \tmov.u32 %r2, %tid.x;\n\
    \tld.param.u32 %r3, [n];\n\
    \tmul.wide.u32 %i, %r0, %r1;\n\
    \tmul.wide.u32 %t, %r2, 1;\n\
    \tadd.u64 %i, %i, %t;\n\
    \tmul.wide.u32 %n, %r3, 1;\n\
    \tsetp.ge.u64 %p, %i, %n;\n\
    \t@%p bra $L_done;\n\
    \tmul.lo.u32 %r4, %r0, %r1;\n\
    \tadd.u32 %r4, %r4, %r2;\n";

/// Set `%ptr` to element `%r4` of the array whose pointer is in parameter
/// `param` (elements `w` bits wide).
fn element_address(s: &mut String, param: &str, w: u32) {
    let _ = writeln!(s, "\tld.param.u64 %ptr, [{param}];");
    s.push_str("\tcvta.to.global.u64 %ptr, %ptr;\n");
    let _ = writeln!(s, "\tmul.wide.u32 %off, %r4, {};", w / 8);
    s.push_str("\tadd.u64 %ptr, %ptr, %off;\n");
}

fn kernel_text(s: &mut String, k: &Kernel) {
    let _ = writeln!(s, ".visible .entry {}(", k.name);
    for op in &k.operands {
        let _ = writeln!(s, "\t.param .u64 in_{op},");
    }
    s.push_str("\t.param .u64 out,\n\t.param .u32 n\n)\n{\n");
    s.push_str(HARNESS_REGS);
    let names: Vec<String> = k.operands.iter().map(|o| format!("%{o}")).collect();
    for (name, w) in names.iter().zip(&k.src_widths) {
        let _ = writeln!(s, "\t.reg .b{w} {name};");
    }
    let _ = writeln!(s, "\t.reg .b{} %d;", k.dst_width);
    s.push_str(HARNESS_INDEX);
    for ((op, name), w) in k.operands.iter().zip(&names).zip(&k.src_widths) {
        element_address(s, &format!("in_{op}"), *w);
        let _ = writeln!(s, "\tld.global.b{w} {name}, [%ptr];");
    }
    let _ = writeln!(s, "\t{}", reproducer::cvt_line(&k.instr, "%d", &names));
    element_address(s, "out", k.dst_width);
    let _ = writeln!(s, "\tst.global.b{} [%ptr], %d;", k.dst_width);
    s.push_str("$L_done:\n\tret;\n}\n");
}

/// Spellings legal in the model with a `.b64` destination register that
/// ptxas 13.5 rejects that way ("Arguments mismatch for instruction 'mov'",
/// sm_90, found assembling every `--registers all` kernel alone); `.rn.ftz`
/// and the forms without `.ftz` assemble.
pub const PTXAS_REJECTS_B64_DST: [&str; 6] = [
    "cvt.rm.ftz.f32.f64",
    "cvt.rm.ftz.sat.f32.f64",
    "cvt.rp.ftz.f32.f64",
    "cvt.rp.ftz.sat.f32.f64",
    "cvt.rz.ftz.f32.f64",
    "cvt.rz.ftz.sat.f32.f64",
];

/// Spellings ptxas 13.5 accepts but cannot compile when the result is used:
/// it stops with "Internal compiler error" (C7907) on sm_107a/f. The ISA text
/// lists `.pzo` on scalar f16/bf16 with `.rn`/`.rz` only (docs/semantics.md §5.15).
pub const PTXAS_CRASHES: [&str; 4] =
    ["cvt.rm.pzo.bf16.f32", "cvt.rp.pzo.bf16.f32", "cvt.rm.pzo.f16.f32", "cvt.rp.pzo.f16.f32"];

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
        let k = Kernel::with_widths(&cvt("cvt.s16.s8"), &[32], 32);
        assert_eq!(k.table_line(), "// kernel cvt_s16_s8__32_32 cvt.s16.s8 32 -> 32");
        assert_eq!(Kernel::with_widths(&cvt("cvt.s16.s8"), &[8], 16), Kernel::natural(&cvt("cvt.s16.s8")));
    }

    #[test]
    fn default_target_and_version() {
        let f16 = Kernel::natural(&cvt("cvt.rn.f16.f32"));
        assert_eq!(default_target(std::slice::from_ref(&f16), PtxVersion::LATEST), Some(Target::new(75)));
        assert_eq!(oldest_version(std::slice::from_ref(&f16), Target::new(75)), Some(PtxVersion::new(6, 3)));
        let x4 = Kernel::natural(&cvt("cvt.rs.satfinite.e4m3x4.f32"));
        let t = default_target(std::slice::from_ref(&x4), PtxVersion::LATEST).unwrap();
        assert_eq!(t.to_string(), "sm_100a");
        assert_eq!(default_target(&[f16, x4], PtxVersion::new(7, 0)), None);
        let wide = wider_kernels(&cvt("cvt.s16.s8"), Target::new(90), PtxVersion::LATEST);
        assert!(wide.iter().any(|k| k.src_widths == [32] && k.dst_width == 32), "{wide:?}");
        assert!(wide.iter().all(|k| k.src_widths != [8] || k.dst_width != 16));
        assert!(wider_kernels(&cvt("cvt.rn.bf16.f32"), Target::new(90), PtxVersion::LATEST).is_empty());
    }

    #[test]
    fn kernel_body() {
        let ks = kernels(&[cvt("cvt.rn.f16.f32"), cvt("cvt.rn.f16.f32"), cvt("cvt.rs.satfinite.e4m3x4.f32")]);
        let m = module_of(&ks, "sm_100a".parse().unwrap(), PtxVersion::LATEST);
        assert!(m.contains("// kernels 2\n"), "{m}");
        for want in [
            ".target sm_100a\n",
            ".visible .entry cvt_rn_f16_f32(\n\t.param .u64 in_a,\n\t.param .u64 out,\n\t.param .u32 n\n)",
            "ld.global.b32 %a, [%ptr];",
            "cvt.rn.f16.f32 %d, %a;",
            "st.global.b16 [%ptr], %d;",
            "mul.wide.u32 %off, %r4, 2;",
            "cvt.rs.satfinite.e4m3x4.f32 %d, {%a, %b, %e, %f}, %rbits;",
            "\t.param .u64 in_rbits,\n",
        ] {
            assert!(m.contains(want), "lacks {want:?}:\n{m}");
        }
        let m = module_of(&kernels(&[cvt("cvt.rni.u8.bf16")]), Target::new(90), PtxVersion::LATEST);
        assert!(
            m.contains(".reg .b8 %d;")
                && m.contains("st.global.b8 [%ptr], %d;")
                && m.contains("mul.wide.u32 %off, %r4, 1;"),
            "{m}"
        );
    }
}
