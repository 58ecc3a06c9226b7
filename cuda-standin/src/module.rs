//! Reading a `ptx-cvt ptx` module the way the stand-in "JIT" does: the
//! kernels' bodies decide what runs (which `cvt`, which parameter feeds
//! which operand, at which width); the header table must agree with them.
//! Like a minimal emulator, it reads only the subset of docs/kernels.md: one
//! register per `.reg` line and one conversion per kernel.

use ptx_cvt::instr::{self, Cvt, PtxVersion, Regs, Target};

/// A declared `.param` of a kernel.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    /// Size of the declared type (`.u64` = 8, `.u32` = 4).
    pub bytes: usize,
    /// Loaded into `%ptr` and used as a global address by the body.
    pub pointer: bool,
}

/// A kernel as its body reads: the operand arrays, the result array, the count.
#[derive(Debug, Clone)]
pub struct Kernel {
    pub name: String,
    pub cvt: Cvt,
    pub params: Vec<Param>,
    /// In the `cvt`'s operand order: (index of the pointer parameter, register width).
    pub inputs: Vec<(usize, u32)>,
    /// (index of the pointer parameter, register width) of the stored result.
    pub output: (usize, u32),
    /// Index of the value parameter that bounds the thread index.
    pub count: usize,
}

/// Why a module does not load: the CUDA error code and a message.
pub type LoadError = (u32, String);

pub const CUDA_ERROR_INVALID_PTX: u32 = 218;
pub const CUDA_ERROR_NO_BINARY_FOR_GPU: u32 = 209;
pub const CUDA_ERROR_UNSUPPORTED_PTX_VERSION: u32 = 222;

fn invalid(msg: String) -> LoadError {
    (CUDA_ERROR_INVALID_PTX, msg)
}

/// Parse and check a module for a device of compute capability `cc`
/// (e.g. 90) whose JIT accepts PTX ISA up to `ptx_max`.
pub fn load(text: &str, cc: u32, ptx_max: PtxVersion) -> Result<Vec<Kernel>, LoadError> {
    let mut version = None;
    let mut target = None;
    let mut table = Vec::new();
    let mut declared_count = None;
    let mut kernels = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((no, line)) = lines.next() {
        if let Some(rest) = line.strip_prefix("// kernel ") {
            table.push((no + 1, rest.to_string()));
        } else if let Some(k) = line.strip_prefix("// kernels ") {
            declared_count = Some(k.trim().parse::<usize>().map_err(|e| invalid(format!("line {}: {e}", no + 1)))?);
        } else if let Some(v) = line.strip_prefix(".version ") {
            version = Some(v.trim().parse::<PtxVersion>().map_err(|e| invalid(format!("line {}: {}", no + 1, e.0)))?);
        } else if let Some(t) = line.strip_prefix(".target ") {
            target = Some(t.trim().parse::<Target>().map_err(|e| invalid(format!("line {}: {}", no + 1, e.0)))?);
        } else if let Some(rest) = line.strip_prefix(".visible .entry ") {
            let name = rest.trim_end_matches('(').to_string();
            let mut block = Vec::new();
            for (_, l) in lines.by_ref() {
                if l == "}" {
                    break;
                }
                block.push(l);
            }
            kernels.push(entry(&name, &block).map_err(|e| invalid(format!("kernel {name}: {e}")))?);
        }
    }
    let version = version.ok_or_else(|| invalid("no .version directive".into()))?;
    let target = target.ok_or_else(|| invalid("no .target directive".into()))?;
    if version > ptx_max {
        return Err((
            CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
            format!("PTX ISA {version}: this driver's JIT accepts up to {ptx_max}"),
        ));
    }
    let sm = target.to_string();
    let digits: u32 = sm.trim_start_matches("sm_").trim_end_matches('a').parse().unwrap_or(u32::MAX);
    let arch_specific = sm.ends_with('a');
    if digits > cc || (arch_specific && digits != cc) {
        return Err((
            CUDA_ERROR_NO_BINARY_FOR_GPU,
            format!(".target {sm} cannot run on a compute capability {cc} device"),
        ));
    }
    for k in &kernels {
        let regs = Regs { dst: k.output.1, src: k.inputs.first().map_or(k.cvt.atype.bits(), |i| i.1) };
        instr::check(&k.cvt, regs, Some(target), Some(version))
            .map_err(|e| invalid(format!("kernel {}: {}: {e}", k.name, k.cvt)))?;
    }
    check_table(&table, declared_count, &kernels)?;
    Ok(kernels)
}

/// The header table must list exactly the module's kernels, in order, with
/// the instruction and register widths their bodies use.
fn check_table(table: &[(usize, String)], declared: Option<usize>, kernels: &[Kernel]) -> Result<(), LoadError> {
    if declared != Some(table.len()) || table.len() != kernels.len() {
        return Err(invalid(format!(
            "header says {declared:?} kernels, its table lists {}, the module defines {}",
            table.len(),
            kernels.len()
        )));
    }
    for ((no, row), k) in table.iter().zip(kernels) {
        let fields: Vec<&str> = row.split(' ').collect();
        let want: Vec<String> = k.inputs.iter().map(|i| i.1.to_string()).collect();
        let ok = fields.len() == 4 + want.len()
            && fields[0] == k.name
            && instr::parse(fields[1]).ok() == Some(k.cvt)
            && fields[2..2 + want.len()] == want
            && fields[2 + want.len()] == "->"
            && fields[3 + want.len()] == k.output.1.to_string();
        if !ok {
            return Err(invalid(format!(
                "header line {no} `// kernel {row}` does not match the body of {} ({} {} -> {})",
                k.name,
                k.cvt,
                want.join(" "),
                k.output.1
            )));
        }
    }
    Ok(())
}

/// Read one `.entry`: its parameter list, then its body.
fn entry(name: &str, block: &[&str]) -> Result<Kernel, String> {
    let mut params = Vec::new();
    let mut it = block.iter();
    for l in it.by_ref() {
        let l = l.trim();
        if l == ")" {
            break;
        }
        let decl = l.trim_end_matches(',');
        let mut f = decl.split_whitespace();
        let (Some(".param"), Some(ty), Some(pname), None) = (f.next(), f.next(), f.next(), f.next()) else {
            return Err(format!("cannot read parameter declaration `{l}`"));
        };
        let bytes = match ty {
            ".u64" | ".b64" | ".s64" => 8,
            ".u32" | ".b32" | ".s32" => 4,
            _ => return Err(format!("parameter {pname}: type {ty} not expected")),
        };
        params.push(Param { name: pname.to_string(), bytes, pointer: false });
    }
    let find = |p: &str, params: &[Param]| params.iter().position(|q| q.name == p);
    let mut reg_width = std::collections::HashMap::new();
    let mut current_ptr: Option<usize> = None;
    let mut loads = Vec::new(); // (register, param, width)
    let mut store = None;
    let mut count = Vec::new();
    let mut cvts = Vec::new(); // (instruction, destination, operands)
    for l in it {
        let l = l.trim().trim_end_matches(';');
        if l.starts_with(".reg ") && (l.contains(',') || l.contains('<')) {
            return Err(format!("`{l}`: one register per .reg line (docs/kernels.md)"));
        } else if let Some(rest) = l.strip_prefix(".reg .b") {
            if let Some((w, r)) = rest.split_once(' ') {
                reg_width.insert(r.trim().to_string(), w.parse::<u32>().map_err(|e| format!("`{l}`: {e}"))?);
            }
        } else if let Some(rest) = l.strip_prefix("ld.param.") {
            let (ty, args) = rest.split_once(' ').ok_or(format!("cannot read `{l}`"))?;
            let (reg, addr) = args.split_once(',').ok_or(format!("cannot read `{l}`"))?;
            let p = addr.trim().trim_start_matches('[').trim_end_matches(']');
            let idx = find(p, &params).ok_or(format!("`{l}` loads an undeclared parameter"))?;
            if reg.trim() == "%ptr" && ty == "u64" {
                params[idx].pointer = true;
                current_ptr = Some(idx);
            } else {
                count.push(idx);
            }
        } else if let Some(rest) = l.strip_prefix("ld.global.b") {
            let (w, args) = rest.split_once(' ').ok_or(format!("cannot read `{l}`"))?;
            let reg = args.split(',').next().unwrap_or("").trim().to_string();
            loads.push((reg, current_ptr.ok_or("ld.global before any pointer")?, w.parse::<u32>().unwrap_or(0)));
        } else if let Some(rest) = l.strip_prefix("st.global.b") {
            let (w, args) = rest.split_once(' ').ok_or(format!("cannot read `{l}`"))?;
            let reg = args.split(',').nth(1).unwrap_or("").trim().to_string();
            store = Some((reg, current_ptr.ok_or("st.global before any pointer")?, w.parse::<u32>().unwrap_or(0)));
        } else if l.starts_with("cvt.") {
            let (ins, args) = l.split_once(' ').ok_or(format!("cannot read `{l}`"))?;
            let (dst, srcs) = args.split_once(',').ok_or(format!("cannot read `{l}`"))?;
            let srcs: Vec<String> =
                srcs.split(',').map(|s| s.trim().trim_matches(|c| c == '{' || c == '}').trim().to_string()).collect();
            cvts.push((ins.to_string(), dst.trim().to_string(), srcs));
        }
    }
    if cvts.len() != 1 {
        return Err(format!(
            "{} conversions: the kernel must hold only the one under test (docs/kernels.md)",
            cvts.len()
        ));
    }
    let (out_reg, out_param, out_w) = store.ok_or("no st.global of a result")?;
    let (ins, _, srcs) =
        cvts.iter().find(|(_, d, _)| *d == out_reg).ok_or(format!("no cvt writes the stored register {out_reg}"))?;
    let cvt = instr::parse(ins).map_err(|e| format!("{ins}: {e}"))?;
    let mut inputs = Vec::new();
    for s in srcs {
        let (_, p, w) =
            loads.iter().find(|(r, _, _)| r == s).ok_or(format!("operand {s} is not loaded from memory"))?;
        if reg_width.get(s) != Some(w) {
            return Err(format!("operand {s} is declared {:?} bits but loaded as {w}", reg_width.get(s)));
        }
        inputs.push((*p, *w));
    }
    if reg_width.get(&out_reg) != Some(&out_w) {
        return Err(format!("result {out_reg} is declared {:?} bits but stored as {out_w}", reg_width.get(&out_reg)));
    }
    let [count] = count[..] else { return Err(format!("expected one count parameter, found {}", count.len())) };
    if params.iter().filter(|p| p.pointer).count() + 1 != params.len() {
        return Err("every parameter but the count must be an array pointer".into());
    }
    Ok(Kernel { name: name.to_string(), cvt, params, inputs, output: (out_param, out_w), count })
}
