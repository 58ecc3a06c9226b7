//! An implementation under test that executes whole PTX modules: a PTX
//! emulator, or any other front door that can "load this module, launch
//! this kernel with these buffers" (`--target-ptx 'CMD'` of `ptx-cvt check`,
//! `fuzz`, `sweep`).
//!
//! # Protocol
//!
//! The driver is started once as `sh -c 'CMD'` and kept running. For each
//! batch of cases of one variant at one set of register widths, ptx-cvt
//! writes a fresh folder and sends its absolute path as one line on the
//! driver's stdin. The folder holds:
//!
//! - `module.ptx`: one kernel (docs/kernels.md: the portable subset);
//! - `manifest.txt`: `key value` lines (below);
//! - `in_<op>.bin` per source operand: `count` little-endian words of the
//!   operand's register width, packed.
//!
//! ```text
//! ptx-cvt module batch v1
//! module module.ptx
//! kernel cvt_rn_f16_f32
//! instruction cvt.rn.f16.f32
//! target sm_75
//! version 6.3
//! count 1024
//! input in_a 32 in_a.bin
//! output out 16 out.bin
//! scalar n u32 1024
//! ```
//!
//! The `input`, `output` and `scalar` lines are the kernel's parameters in
//! launch order: a pointer to a buffer holding the file, a pointer to a
//! zeroed buffer of `count` words of that width, then the 32-bit count. Any
//! 1-D launch of at least `count` threads runs every element (e.g. blocks of
//! 256). The driver writes the output buffer to `out.bin` in the folder
//! (`count` words, little-endian) and answers one line: `ok`, or
//! `error: MESSAGE` to decline the batch (the module does not parse, the
//! instruction is not supported, …): its cases count as unsupported with
//! that reason. It must flush stdout after each answer. Stdin is closed at the
//! end; the driver should then exit. Its stderr is quoted when it fails, kept
//! with `--adapter-log FILE`, shown live with `-v`.
//!
//! # Failures
//!
//! As for a `--target-cmd` program: the driver exits, hangs past the timeout
//! (per batch), answers something else than `ok`/`error:`, or leaves an
//! `out.bin` of the wrong size. The first case of the batch counts as
//! crashed; the driver is killed, and with `restart` started again. Every
//! later batch of that kernel is then declined without running ("the driver
//! failed on an earlier batch"), so that one form a driver dies on costs one
//! crash, not the run. The folders live under one scratch folder in the
//! temporary directory, removed at the end.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use ptx_cvt::accept::clip_to as clip;
use ptx_cvt::{Cvt, Operand, PtxVersion, Target};

use crate::implementation::{Answer, Implementation};
use crate::process::{describe_status, secs, Running, StderrLog};
use crate::ptx_kernels::{default_target, module_of, oldest_version, Kernel};

/// The first line of every manifest.
pub const MANIFEST_MAGIC: &str = "ptx-cvt module batch v1";

/// A module-executing driver under test (see the module docs).
pub struct ModuleImpl {
    cmd: String,
    timeout: Duration,
    restart: bool,
    /// The `.target` of every module; `None`: the first where the kernel is legal.
    target: Option<Target>,
    log: StderrLog,
    run: Option<Running>,
    dead: bool,
    scratch: PathBuf,
    batches: u64,
    /// Kernels the driver failed on (crash, hang, garbage), with the failure.
    failed: HashMap<String, String>,
}

/// Source register widths and the destination's: what makes a kernel of a variant.
type Widths = (Vec<u32>, u32);

/// How one batch went.
enum Batch {
    Ran(Vec<u64>),
    Declined(String),
}

impl ModuleImpl {
    /// Start `sh -c CMD`; modules are for `target` (default: per kernel, the
    /// first target that has it), at the oldest PTX ISA version that has it.
    pub fn spawn(
        cmd: &str,
        timeout: Duration,
        restart: bool,
        target: Option<Target>,
        log: StderrLog,
    ) -> Result<ModuleImpl, String> {
        let scratch = std::env::temp_dir().join(format!(
            "ptx-cvt-modules-{}-{}",
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&scratch)
            .map_err(|e| format!("cannot create the scratch folder {}: {e}", scratch.display()))?;
        let mut m = ModuleImpl {
            cmd: cmd.to_string(),
            timeout,
            restart,
            target,
            log,
            run: None,
            dead: false,
            scratch,
            batches: 0,
            failed: HashMap::new(),
        };
        m.ensure_running()?;
        Ok(m)
    }

    fn ensure_running(&mut self) -> Result<&mut Running, String> {
        if self.run.is_none() {
            if self.dead && !self.restart {
                return Err("the driver is no longer running (use --restart to start it again after a failure)".into());
            }
            self.run = Some(Running::start(&self.cmd, &self.log)?);
            self.dead = false;
        }
        Ok(self.run.as_mut().expect("just started"))
    }

    /// Stop the driver after a failure; `msg` plus its last stderr lines.
    fn fail(&mut self, msg: String) -> String {
        let mut m = msg;
        if let Some(mut run) = self.run.take() {
            let exited = run.child.try_wait().ok().flatten();
            run.kill();
            match exited {
                Some(s) => {
                    let _ = write!(m, "\n  the driver had exited ({})", describe_status(s));
                }
                None => m.push_str("\n  the driver was killed"),
            }
            m.push_str(&run.stderr_text());
        }
        self.dead = true;
        m
    }

    /// Write the batch folder for `k` and its operand columns.
    fn write_folder(
        &self,
        dir: &Path,
        k: &Kernel,
        target: Target,
        version: PtxVersion,
        cases: &[(Vec<Operand>, u32)],
    ) -> Result<(), String> {
        let e = |what: &str, err: std::io::Error| format!("cannot write {what} in {}: {err}", dir.display());
        std::fs::create_dir(dir).map_err(|err| e("the batch folder", err))?;
        std::fs::write(dir.join("module.ptx"), module_of(std::slice::from_ref(k), target, version))
            .map_err(|err| e("module.ptx", err))?;
        let n = cases.len();
        let mut manifest = format!(
            "{MANIFEST_MAGIC}\nmodule module.ptx\nkernel {}\ninstruction {}\ntarget {target}\nversion {version}\ncount {n}\n",
            k.name, k.instr
        );
        for (i, (op, w)) in k.operands.iter().zip(&k.src_widths).enumerate() {
            let bytes = (*w / 8) as usize;
            let mut data = Vec::with_capacity(n * bytes);
            for (ops, _) in cases {
                data.extend_from_slice(&ops[i].bits.to_le_bytes()[..bytes]);
            }
            let file = format!("in_{op}.bin");
            std::fs::write(dir.join(&file), data).map_err(|err| e(&file, err))?;
            let _ = writeln!(manifest, "input in_{op} {w} {file}");
        }
        let _ = writeln!(manifest, "output out {} out.bin", k.dst_width);
        let _ = writeln!(manifest, "scalar n u32 {n}");
        std::fs::write(dir.join("manifest.txt"), manifest).map_err(|err| e("manifest.txt", err))
    }

    /// Run one batch of kernel `k`: the destination registers, a decline,
    /// or an adapter error.
    fn run_batch(&mut self, k: &Kernel, cases: &[(Vec<Operand>, u32)]) -> Result<Batch, String> {
        let Some(target) = self.target.or_else(|| default_target(std::slice::from_ref(k), PtxVersion::LATEST)) else {
            return Ok(Batch::Declined("no target has this form at these register widths".into()));
        };
        let Some(version) = oldest_version(std::slice::from_ref(k), target) else {
            return Ok(Batch::Declined(format!("not legal on {target} at these register widths")));
        };
        self.batches += 1;
        let dir = self.scratch.join(format!("batch-{:06}", self.batches));
        let r = self.write_folder(&dir, k, target, version, cases).and_then(|()| self.ask(&dir, k, cases.len()));
        let _ = std::fs::remove_dir_all(&dir);
        r
    }

    /// Send the folder name and read the answer.
    fn ask(&mut self, dir: &Path, k: &Kernel, n: usize) -> Result<Batch, String> {
        let timeout = self.timeout;
        let what = format!("the batch of {n} case(s) of {} (kernel {})", k.instr, k.name);
        let run = self.ensure_running()?;
        let line = format!("{}\n", dir.display());
        if run.to_writer.as_ref().is_none_or(|t| t.send(line.into_bytes()).is_err()) {
            return Err(self.fail("cannot write to the driver's stdin".into()));
        }
        let answer = match run.answers.recv_timeout(timeout) {
            Ok(Ok(l)) => l,
            Ok(Err(e)) => return Err(self.fail(format!("the driver's answer to {what} is unreadable: {e}"))),
            Err(RecvTimeoutError::Timeout) => {
                return Err(self.fail(format!(
                    "no answer within {} to {what}; the driver was killed. Is it stuck, or does it not flush stdout after each answer? (--timeout sets the limit)",
                    secs(timeout)
                )))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let how = match run.status_after_eof() {
                    (Some(s), true) => format!("exited ({})", describe_status(s)),
                    (Some(s), false) => format!("closed its stdout and was killed ({})", describe_status(s)),
                    (None, _) => "closed its stdout".to_string(),
                };
                let msg = format!("the driver {how} before answering {what}");
                let mut m = msg;
                if let Some(run) = self.run.take() {
                    m.push_str(&run.stderr_text());
                }
                self.dead = true;
                return Err(m);
            }
        };
        let trimmed = answer.trim();
        if let Some(why) = trimmed.strip_prefix("error:") {
            return Ok(Batch::Declined(clip(why.trim(), 300)));
        }
        if trimmed != "ok" {
            return Err(self.fail(format!(
                "the driver answered `{}` to {what} (expected `ok` or `error: MESSAGE`)",
                clip(trimmed, 120)
            )));
        }
        let bytes = (k.dst_width / 8) as usize;
        let out = match std::fs::read(dir.join("out.bin")) {
            Ok(b) => b,
            Err(e) => {
                return Err(self.fail(format!("the driver answered `ok` to {what} but out.bin cannot be read: {e}")))
            }
        };
        if out.len() != n * bytes {
            return Err(self.fail(format!(
                "the driver answered `ok` to {what} but out.bin holds {} bytes, not {n} × {bytes}",
                out.len()
            )));
        }
        Ok(Batch::Ran(
            out.chunks(bytes)
                .map(|w| {
                    let mut b = [0u8; 8];
                    b[..bytes].copy_from_slice(w);
                    u64::from_le_bytes(b)
                })
                .collect(),
        ))
    }
}

impl Drop for ModuleImpl {
    fn drop(&mut self) {
        self.run = None;
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

impl Implementation for ModuleImpl {
    fn name(&self) -> String {
        format!("module driver: {}", self.cmd)
    }

    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<Answer, String> {
        match self.eval_batch(c, &[(operands.to_vec(), dst_width)]) {
            (mut v, None) => Ok(v.remove(0)),
            (_, Some(e)) => Err(e),
        }
    }

    /// The cases of equal register widths go as one kernel's batch, in the
    /// order of their first case; after a failure, the answers before the
    /// failing kernel's first case (all from kernels already run).
    fn eval_batch(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
        let mut groups: Vec<(Widths, Vec<usize>)> = Vec::new();
        for (i, (ops, w)) in cases.iter().enumerate() {
            let key = (ops.iter().map(|o| o.width).collect::<Vec<u32>>(), *w);
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => g.1.push(i),
                None => groups.push((key, vec![i])),
            }
        }
        let mut answers: Vec<Option<Answer>> = vec![None; cases.len()];
        for (key, members) in groups {
            let k = Kernel::with_widths(c, &key.0, key.1);
            let declined = if k.operands.len() != key.0.len() {
                Some(format!("{} takes {} source operand(s), the case has {}", c, k.operands.len(), key.0.len()))
            } else {
                self.failed.get(&k.name).map(|e| {
                    let first = e.lines().next().unwrap_or("");
                    format!("the driver failed on an earlier batch of kernel {}: {first}", k.name)
                })
            };
            let result = match declined {
                Some(why) => Ok(Batch::Declined(why)),
                None => {
                    let batch: Vec<(Vec<Operand>, u32)> = members.iter().map(|i| cases[*i].clone()).collect();
                    self.run_batch(&k, &batch)
                }
            };
            match result {
                Ok(Batch::Ran(bits)) => {
                    for (i, b) in members.iter().zip(bits) {
                        answers[*i] = Some(Answer::Bits(b));
                    }
                }
                Ok(Batch::Declined(why)) => {
                    for i in &members {
                        answers[*i] = Some(Answer::Declined(why.clone()));
                    }
                }
                Err(e) => {
                    self.failed.insert(k.name.clone(), e.clone());
                    let before: Vec<Answer> = answers[..members[0]].iter().map_while(Clone::clone).collect();
                    return (before, Some(e));
                }
            }
        }
        (answers.into_iter().map(|a| a.expect("every group answered")).collect(), None)
    }
}
