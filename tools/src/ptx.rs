//! `ptx-cvt ptx`: one self-contained PTX module with a test kernel per variant
//! (and per register widths with `--registers all`). The kernels are written
//! by `ptx_cvt_harness::ptx_kernels` in the portable subset of docs/kernels.md.
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
//! that is not `[A-Za-z0-9_]` (none today) would also become `_`. A kernel
//! with other than natural register widths appends `__` and its widths, sources
//! then destination, joined by `_`: `cvt_s16_s8__32_32`.
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
//! Thread i = %ctaid.x * %ntid.x + %tid.x (compared with n in 64 bits) does
//! nothing when i >= n; otherwise it loads each operand with
//! `ld.global.b<W>` into a `.b<W>` register (8-bit operands straight into a
//! `.b8` register, which ptxas 13.5 accepts for ld/st and which
//! `cvt.*.bf16.{s8,u8}` requires), runs the `cvt` in canonical spelling
//! into a `.b<W>` destination and stores it with `st.global.b<W>` at `out[i]`.
//! Any 1-D launch shape works.
//!
//! ## Registers
//!
//! `--registers natural` (the default): every register exactly as wide as its
//! operand's type (`ptx_cvt::gen::natural_regs`, per-operand widths from
//! `instr::shape`). `--registers all` adds, after each variant's natural
//! kernel, one kernel per wider register combination legal on the target
//! (single-source forms: e.g. a `.b32` source and destination for
//! `cvt.s16.s8`); the header format is the same. The header line
//! `// registers` says `natural` or `as listed`.

use std::path::Path;

use clap::{Args, ValueEnum};
use ptx_cvt::{Cvt, PtxVersion, Target};
use ptx_cvt_harness::ptx_kernels::{default_target, wider_kernels};
pub use ptx_cvt_harness::ptx_kernels::{kernels, module_of, Kernel, PTXAS_CRASHES};

use serde_json::json;

use crate::common::{legal_variants_matching, write_atomic, VariantFilter};
use crate::output::write_stdout;

#[derive(Args)]
#[command(after_help = "\
The kernels use a small PTX subset any emulator should read (docs/kernels.md): one
declaration per line, no vector or list syntax outside the cvt under test, no other
conversion. Without --target the module is for the first target (sm_75, sm_80, …, then
the `a` and `f` targets) on which every selected variant is legal.")]
pub struct PtxArgs {
    /// Target whose legal variants get a kernel (e.g. sm_90, sm_100a).
    /// Default: every variant the filter selects, for the first target that
    /// has them all.
    #[arg(long, value_parser = crate::parse_target)]
    target: Option<Target>,
    /// PTX ISA version of the module and for legality (default: 9.5).
    #[arg(long, value_parser = crate::parse_version)]
    ptx_version: Option<PtxVersion>,
    #[arg(long = "filter", value_name = "GLOB", help = crate::options::FILTER_HELP)]
    filters: Vec<String>,
    /// Register widths: `natural` (each register exactly as wide as its
    /// type), or `all`: also a kernel per wider register combination legal on
    /// the target (single-source forms, e.g. `.b32` registers for cvt.s16.s8).
    #[arg(long, value_enum, default_value_t = Registers::Natural)]
    registers: Registers,
    /// Output file (a regular file, written atomically), or `-` for stdout.
    #[arg(long, short, default_value = "-")]
    out: String,
    /// Print one JSON object: the kernel table, and the module text under
    /// "module" when it goes to stdout (docs/contract.md, "JSON output").
    #[arg(long)]
    json: bool,
}

/// How the kernels' registers are sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Registers {
    /// Every register exactly as wide as its operand's type.
    Natural,
    /// Natural widths, and every wider combination legal on the target.
    All,
}

/// Every target `legal_variants_matching` may pick the variants from when
/// no --target is given.
fn all_targets(version: PtxVersion) -> Vec<Target> {
    ptx_cvt_harness::ptx_kernels::TARGET_ORDER
        .iter()
        .filter_map(|t| t.parse::<Target>().ok())
        .filter(|t| t.min_version().is_none_or(|m| m <= version))
        .collect()
}

/// The target of the module, and its variants.
fn choose(a: &PtxArgs, version: PtxVersion) -> Result<(Target, Vec<Cvt>), String> {
    let filter = VariantFilter::new(&a.filters)?;
    if let Some(t) = a.target {
        let v = legal_variants_matching(&[t], version, &filter)?;
        return Ok((t, v.into_iter().map(|(c, _)| c).collect()));
    }
    let v: Vec<Cvt> =
        legal_variants_matching(&all_targets(version), version, &filter)?.into_iter().map(|(c, _)| c).collect();
    if v.is_empty() {
        return Err(format!("no variant legal at PTX ISA {version} matches"));
    }
    match default_target(&kernels(&v), version) {
        Some(t) => Ok((t, v)),
        None => {
            let firsts: Vec<String> = v
                .iter()
                .filter_map(|c| default_target(&kernels(&[*c]), version).map(|t| (c, t)))
                .fold(Vec::<(Target, &Cvt)>::new(), |mut acc, (c, t)| {
                    if !acc.iter().any(|(u, _)| *u == t) {
                        acc.push((t, c));
                    }
                    acc
                })
                .into_iter()
                .map(|(t, c)| format!("{c} ({t})"))
                .collect();
            Err(format!(
                "the {} variants selected have no target in common (e.g. {}): give --target, or narrow --filter",
                v.len(),
                firsts.join(", ")
            ))
        }
    }
}

pub fn run(a: PtxArgs) -> u8 {
    let version = a.ptx_version.unwrap_or(PtxVersion::LATEST);
    let (target, variants) = match choose(&a, version) {
        Ok(x) => x,
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
        eprintln!("error: no variant legal on {target} at PTX ISA {version} matches");
        return 2;
    }
    let mut ks = Vec::new();
    for k in kernels(&variants) {
        let wider = match a.registers {
            Registers::Natural => Vec::new(),
            Registers::All => wider_kernels(&k.instr, target, version),
        };
        ks.push(k);
        ks.extend(wider);
    }
    let text = module_of(&ks, target, version);
    if a.out != "-" {
        if let Err(e) = write_atomic(Path::new(&a.out), text.as_bytes()) {
            eprintln!("error: {e}");
            return 2;
        }
        eprintln!("{} kernels for {target} (PTX ISA {version}) written to {}", ks.len(), a.out);
    }
    if a.json {
        let table: Vec<_> = ks
            .iter()
            .map(|k| json!({"name": k.name, "instruction": k.instr.to_string(), "src_widths": k.src_widths, "dst_width": k.dst_width}))
            .collect();
        let mut v = json!({"target": target.to_string(), "ptx_version": version.to_string(), "kernels": table});
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
