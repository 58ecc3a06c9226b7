//! ptxas's constant folder as an implementation under test.
//!
//! Each batch of cases becomes one kernel of literal conversions
//! ([`kernel::module`]), assembled with `ptxas -O3 -arch=<target>`,
//! disassembled with `nvdisasm -c -hex` ([`sass`]) and replayed
//! ([`replay`]): a case whose slot holds a value ptxas computed at compile
//! time is answered with it; every other case is declined with
//! [`NOT_FOLDED`] (the run-time code is never guessed at).

pub mod kernel;
pub mod replay;
pub mod sass;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use ptx_cvt::{Cvt, Operand, PtxVersion, Target};

use crate::{Answer, Implementation};

/// The decline of a case ptxas computes at run time.
pub const NOT_FOLDED: &str = "not folded by ptxas at -O3";

/// Cases per kernel: ptxas takes about a second for this many.
pub const CHUNK: usize = 512;

/// Environment variables naming the tools (before `PATH` and the cache).
pub const PTXAS_ENV: &str = "PTX_CVT_PTXAS";
pub const NVDISASM_ENV: &str = "PTX_CVT_NVDISASM";

/// ptxas and nvdisasm, found and checked to run.
#[derive(Clone, Debug)]
pub struct Tools {
    pub ptxas: PathBuf,
    pub nvdisasm: PathBuf,
    /// `13.5.37`-style versions from `--version`.
    pub ptxas_version: String,
    pub nvdisasm_version: String,
}

/// Where scripts/get-ptxas.sh and scripts/get-nvdisasm.sh install the tools.
fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("ptx-cvt"))
}

/// `name` on `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

fn first_file(candidates: impl IntoIterator<Item = Option<PathBuf>>) -> Option<PathBuf> {
    candidates.into_iter().flatten().find(|p| p.is_file())
}

/// The version a tool reports (`V13.5.37` -> `13.5.37`), or why it does not run.
fn version_of(tool: &Path) -> Result<String, String> {
    let out =
        Command::new(tool).arg("--version").output().map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("{} --version failed ({})", tool.display(), out.status));
    }
    let v = text.split_whitespace().filter_map(|w| w.strip_prefix('V')).next_back();
    Ok(v.unwrap_or("unknown version").to_string())
}

impl Tools {
    /// Find ptxas (`explicit`, else `$PTX_CVT_PTXAS`, `PATH`, the cache of
    /// scripts/get-ptxas.sh) and nvdisasm (`$PTX_CVT_NVDISASM`, next to
    /// ptxas, `PATH`, the cache of scripts/get-nvdisasm.sh); both must run.
    pub fn find(explicit: Option<&Path>) -> Result<Tools, String> {
        let cache = cache_dir();
        let ptxas = match explicit {
            Some(p) if p.is_file() => p.to_path_buf(),
            Some(p) => return Err(format!("--target-ptxas {}: no such file", p.display())),
            None => first_file([
                std::env::var_os(PTXAS_ENV).map(PathBuf::from),
                on_path("ptxas"),
                cache.as_ref().map(|c| c.join("nvcc/nvidia/cu13/bin/ptxas")),
            ])
            .ok_or_else(|| {
                format!(
                    "ptxas not found: give --target-ptxas PATH, set {PTXAS_ENV}, put it on PATH, or run \
                     scripts/get-ptxas.sh (installs ptxas 13.5.37 from PyPI into ~/.cache/ptx-cvt)"
                )
            })?,
        };
        let nvdisasm = first_file([
            std::env::var_os(NVDISASM_ENV).map(PathBuf::from),
            ptxas.parent().map(|d| d.join("nvdisasm")),
            on_path("nvdisasm"),
            cache.as_ref().map(|c| c.join("nvdisasm/nvidia/cu13/bin/nvdisasm")),
        ])
        .ok_or_else(|| {
            format!(
                "nvdisasm not found (needed to read what ptxas emits): set {NVDISASM_ENV}, put it on PATH, or run \
                 scripts/get-nvdisasm.sh (installs nvdisasm 13.5.37 from PyPI into ~/.cache/ptx-cvt)"
            )
        })?;
        let ptxas_version = version_of(&ptxas)?;
        let nvdisasm_version = version_of(&nvdisasm)?;
        Ok(Tools { ptxas, nvdisasm, ptxas_version, nvdisasm_version })
    }

    /// Assemble `ptx` for `target` with `-O3` and disassemble it: the
    /// `nvdisasm -c -hex` listing, or ptxas's complaint.
    pub fn listing(&self, ptx: &str, target: Target) -> Result<String, String> {
        let dir = TempDir::new()?;
        let src = dir.0.join("k.ptx");
        let bin = dir.0.join("k.cubin");
        std::fs::write(&src, ptx).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
        let out = Command::new(&self.ptxas)
            .arg("-O3")
            .arg(format!("-arch={target}"))
            .arg(&src)
            .arg("-o")
            .arg(&bin)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.ptxas.display()))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let first = err.lines().find(|l| l.contains("error")).or(err.lines().next()).unwrap_or("").trim();
            // Without ptxas's `FILE, line N;` prefix: one reason for one cause.
            let first = first.split_once("; ").map_or(first, |(_, m)| m);
            return Err(format!(
                "ptxas -O3 -arch={target} rejects the kernel: {}",
                first.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
        let out = Command::new(&self.nvdisasm)
            .args(["-c", "-hex"])
            .arg(&bin)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.nvdisasm.display()))?;
        if !out.status.success() {
            return Err(format!("nvdisasm failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr).trim()));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// A fresh directory under the system's temporary one, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("ptx-cvt-ptxas-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).map_err(|e| format!("cannot create {}: {e}", p.display()))?;
        Ok(TempDir(p))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the listing of one batch's kernel says about each case, in order:
/// the folded value, or the reason it is declined.
pub fn read_back(listing: &str, cases: &[(Vec<Operand>, u32)]) -> Vec<Answer> {
    let all = |why: String| cases.iter().map(|_| Answer::Declined(why.clone())).collect();
    let functions = match sass::parse(listing) {
        Ok(f) => f,
        Err(e) => return all(e),
    };
    let Some(f) = functions.iter().find(|f| f.name == kernel::NAME) else {
        return all(format!("no function {} in the disassembly", kernel::NAME));
    };
    let stores = match replay::stores(&f.instrs) {
        Ok(s) => s,
        Err(e) => return all(format!("{NOT_FOLDED}: {e}")),
    };
    // One pointer parameter: every store must go through it.
    let mut bases: Vec<u32> = stores.iter().map(|s| s.base).collect();
    bases.dedup();
    if bases.len() > 1 {
        return all(format!("{NOT_FOLDED}: stores through {} different pointers", bases.len()));
    }
    cases
        .iter()
        .enumerate()
        .map(|(i, (_, w))| {
            let w = kernel::reg_width(*w);
            let at = kernel::SLOT * i as i64;
            match bases.first().and_then(|b| replay::folded(&stores, *b, at, w)) {
                Some(v) => Answer::Bits(v as u64),
                None => Answer::Declined(NOT_FOLDED.into()),
            }
        })
        .collect()
}

/// With `$PTX_CVT_PTXAS_KEEP` naming a directory, every kernel and its
/// listing are kept there (`N.ptx`, `N.sass`): how the test snippets were made.
fn keep(ptx: &str, listing: &str) {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let Some(dir) = std::env::var_os("PTX_CVT_PTXAS_KEEP").map(PathBuf::from) else { return };
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{n}.ptx")), ptx);
    let _ = std::fs::write(dir.join(format!("{n}.sass")), listing);
}

/// ptxas's folder for one target (`--target-ptxas`).
pub struct PtxasFolder {
    tools: Tools,
    target: Target,
    version: PtxVersion,
}

impl PtxasFolder {
    pub fn new(tools: Tools, target: Target) -> PtxasFolder {
        PtxasFolder { tools, target, version: PtxVersion::LATEST }
    }

    /// One kernel's answers (cases of one register-width signature).
    fn chunk(&self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> Vec<Answer> {
        let ptx = kernel::module(c, cases, self.target, self.version);
        let got = self.tools.listing(&ptx, self.target);
        keep(&ptx, got.as_deref().unwrap_or_else(|e| e));
        match got {
            Ok(listing) => read_back(&listing, cases),
            Err(e) => {
                // ptxas refuses some register widths: one kernel per width
                // signature, so that only the cases it refuses are declined.
                let groups = width_groups(cases);
                if groups.len() < 2 {
                    return cases.iter().map(|_| Answer::Declined(e.clone())).collect();
                }
                let mut out: Vec<Option<Answer>> = vec![None; cases.len()];
                for idx in groups {
                    let part: Vec<(Vec<Operand>, u32)> = idx.iter().map(|i| cases[*i].clone()).collect();
                    for (i, a) in idx.iter().zip(self.chunk(c, &part)) {
                        out[*i] = Some(a);
                    }
                }
                out.into_iter().map(|a| a.unwrap_or_else(|| Answer::Declined(e.clone()))).collect()
            }
        }
    }
}

/// The indices of `cases` grouped by register widths (sources, destination), in first-seen order.
fn width_groups(cases: &[(Vec<Operand>, u32)]) -> Vec<Vec<usize>> {
    let widths = |(ops, w): &(Vec<Operand>, u32)| {
        (ops.iter().map(|o| kernel::reg_width(o.width)).collect::<Vec<_>>(), kernel::reg_width(*w))
    };
    let mut groups: Vec<(_, Vec<usize>)> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let key = widths(case);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    groups.into_iter().map(|(_, v)| v).collect()
}

impl Implementation for PtxasFolder {
    fn name(&self) -> String {
        format!(
            "ptxas {} constant folder (-O3 -arch={}, read with nvdisasm {})",
            self.tools.ptxas_version, self.target, self.tools.nvdisasm_version
        )
    }

    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<Answer, String> {
        Ok(self.eval_batch(c, &[(operands.to_vec(), dst_width)]).0.remove(0))
    }

    /// One kernel per [`CHUNK`] cases, assembled on all cores; a kernel
    /// ptxas refuses is split by register widths.
    fn eval_batch(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
        let all: Vec<usize> = (0..cases.len()).collect();
        let jobs: Vec<Vec<usize>> = all.chunks(CHUNK).map(<[usize]>::to_vec).collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len().max(1));
        let mut answers: Vec<Option<Answer>> = vec![None; cases.len()];
        let next = AtomicU64::new(0);
        let results = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| loop {
                    let j = next.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some(idx) = jobs.get(j) else { break };
                    let part: Vec<(Vec<Operand>, u32)> = idx.iter().map(|i| cases[*i].clone()).collect();
                    let got = self.chunk(c, &part);
                    results.lock().unwrap_or_else(|e| e.into_inner()).push((j, got));
                });
            }
        });
        for (j, got) in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
            for (i, a) in jobs[j].iter().zip(got) {
                answers[*i] = Some(a);
            }
        }
        let answers =
            answers.into_iter().map(|a| a.unwrap_or_else(|| Answer::Declined("no answer read back".into()))).collect();
        (answers, None)
    }
}
