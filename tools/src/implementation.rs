//! The one option group for commands that drive an implementation under
//! test (`check`, `fuzz`, `sweep`), and the one place that opens it.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use ptx_cvt_harness::module_protocol::ModuleImpl;
use ptx_cvt_harness::process::{ProcessImpl, StderrLog};
use ptx_cvt_harness::ptxas::{PtxasFolder, Tools};
use ptx_cvt_harness::shared_lib::{SharedLib, DEFAULT_SYMBOL};
use ptx_cvt_harness::worker::{self, Isolated};
use ptx_cvt_harness::Implementation;

#[derive(Args, Clone, Debug)]
pub struct ImplArgs {
    /// Implementation under test: a program run once as `sh -c 'CMD'`,
    /// answering case lines over stdin/stdout (protocol: docs/checking.md, "The process
    /// protocol"; `error: MESSAGE` declines a case).
    #[arg(long, value_name = "CMD", conflicts_with = "target_lib", help_heading = "Implementation under test")]
    pub target_cmd: Option<String>,
    /// Implementation under test: a driver that runs whole PTX modules (an
    /// emulator's front door), started once as `sh -c 'CMD'`. Per batch of
    /// one variant it gets a folder name on stdin (module.ptx, manifest.txt,
    /// input buffers), writes out.bin and answers `ok` or `error: MESSAGE`
    /// (docs/checking.md, "The module protocol"; docs/kernels.md). Modules are for
    /// --target, else the first target that has the form.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["target_cmd", "target_lib", "device"],
          help_heading = "Implementation under test")]
    pub target_ptx: Option<String>,
    /// Implementation under test: a shared library exporting the function of
    /// capi/include/ptx_cvt_impl.h (non-zero return declines a case).
    #[arg(long, value_name = "PATH", conflicts_with = "device", help_heading = "Implementation under test")]
    pub target_lib: Option<PathBuf>,
    /// Implementation under test: CUDA device N (`ptx-cvt gpu`'s runner: one
    /// launch per batch of an instruction, natural register widths only,
    /// kernels for --target, default sm_90). Needs an NVIDIA driver.
    /// (`--target-gpu N` is the old spelling.)
    #[arg(
        long,
        value_name = "N",
        alias = "target-gpu",
        conflicts_with = "target_cmd",
        help_heading = "Implementation under test"
    )]
    pub device: Option<usize>,
    /// Implementation under test: ptxas's constant folder. Cases become
    /// kernels of literal conversions, assembled with `ptxas -O3` for --target
    /// (default sm_90) and read back from `nvdisasm` (a case ptxas does not
    /// fold is declined: "not folded by ptxas at -O3"). ptxas is PATH, else
    /// $PTX_CVT_PTXAS, `ptxas` on PATH, or scripts/get-ptxas.sh's cache;
    /// nvdisasm $PTX_CVT_NVDISASM, next to ptxas, on PATH, or
    /// scripts/get-nvdisasm.sh's cache. Give PATH with `=`.
    #[arg(long, value_name = "PATH", num_args = 0..=1, require_equals = true,
          conflicts_with_all = ["target_cmd", "target_lib", "device", "target_ptx"], help_heading = "Implementation under test")]
    pub target_ptxas: Option<Option<PathBuf>>,
    /// The old spelling of --target for the --device kernels (hidden; --target wins).
    #[arg(long, value_name = "SM", value_parser = crate::parse_target, hide = true)]
    pub gpu_target: Option<ptx_cvt::Target>,
    /// The `.version` of the --device kernels (the driver must support it;
    /// default: the oldest each form needs on its target, so that older
    /// drivers load it).
    #[arg(long, value_name = "X.Y", value_parser = crate::parse_version, help_heading = "Implementation under test")]
    pub gpu_ptx_version: Option<ptx_cvt::PtxVersion>,
    /// Symbol of the conversion function in --target-lib.
    #[arg(long, value_name = "NAME", default_value = DEFAULT_SYMBOL, help_heading = "Implementation under test")]
    pub symbol: String,
    /// Seconds to wait for each answer of a --target-cmd program, a
    /// --target-ptx driver (per batch) or an --isolate worker (then it
    /// counts as crashed and is killed).
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = crate::options::parse_seconds,
          help_heading = "Implementation under test")]
    pub timeout: f64,
    /// Start the --target-cmd program (or --target-ptx driver) again after it
    /// crashes, hangs or answers garbage, and send it the rest of the batch:
    /// the case in flight counts as crashed (reported; exit 2), the run goes
    /// on (a --target-ptx kernel that failed is declined from then on).
    #[arg(long, help_heading = "Implementation under test")]
    pub restart: bool,
    /// Run the --target-lib library in worker processes: a crash, abort,
    /// hang (--timeout) or exit() in it costs the case in flight (counted as
    /// crashed, reported; exit 2) and a new worker goes on with the rest.
    #[arg(long, requires = "target_lib", help_heading = "Implementation under test")]
    pub isolate: bool,
    /// End each batch sent to the --target-cmd program with an empty line,
    /// answered by nothing (for adapters that compile a whole batch at once).
    #[arg(long, requires = "target_cmd", help_heading = "Implementation under test")]
    pub batch_end: bool,
    /// Cases sent to the implementation at once (1..=100000).
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=100_000),
          help_heading = "Implementation under test")]
    pub batch: u64,
    /// Only natural register widths (each register exactly as wide as its
    /// type): for simple adapters that do not expect wider registers.
    #[arg(long, help_heading = "Implementation under test")]
    pub natural_widths: bool,
    /// Append the --target-cmd program's or --target-ptx driver's stderr to
    /// FILE (created if missing); without it only its last lines are kept,
    /// quoted when it fails.
    #[arg(long, value_name = "FILE", help_heading = "Implementation under test")]
    pub adapter_log: Option<PathBuf>,
    /// Show the --target-cmd program's or --target-ptx driver's stderr live,
    /// each line prefixed `adapter: `.
    #[arg(long, short = 'v', help_heading = "Implementation under test")]
    pub verbose: bool,
    /// Count declined (unsupported) cases as failures in the exit status.
    #[arg(long, help_heading = "Implementation under test")]
    pub fail_on_unsupported: bool,
}

impl ImplArgs {
    /// Whether an implementation was named.
    pub fn given(&self) -> bool {
        self.target_cmd.is_some()
            || self.target_ptx.is_some()
            || self.target_lib.is_some()
            || self.device.is_some()
            || self.target_ptxas.is_some()
    }

    /// Open the implementation, if one was named (ptxas for sm_90).
    pub fn open(&self) -> Result<Option<Box<dyn Implementation>>, String> {
        self.open_for(None)
    }

    /// Open the implementation, if one was named; `target` is the command's
    /// --target, the architecture ptxas assembles for (default sm_90).
    pub fn open_for(&self, target: Option<ptx_cvt::Target>) -> Result<Option<Box<dyn Implementation>>, String> {
        if let Some(path) = &self.target_ptxas {
            let tools = Tools::find(path.as_deref())?;
            let folder = PtxasFolder::new(tools, target.unwrap_or(ptx_cvt::Target::new(90)));
            return Ok(Some(Box::new(WithProgress::new(folder))));
        }
        let log = || StderrLog::new(self.adapter_log.as_deref(), self.verbose);
        if let Some(cmd) = &self.target_ptx {
            let m = ModuleImpl::spawn(cmd, Duration::from_secs_f64(self.timeout), self.restart, target, log()?)?;
            return Ok(Some(Box::new(m)));
        }
        if let Some(cmd) = &self.target_cmd {
            let mut p = ProcessImpl::spawn_logged(cmd, Duration::from_secs_f64(self.timeout), self.restart, log()?)?;
            p.set_batch_end(self.batch_end);
            return Ok(Some(Box::new(p)));
        }
        if let Some(n) = self.device {
            let kernels = target.or(self.gpu_target).unwrap_or(ptx_cvt::Target::new(90));
            return Ok(Some(Box::new(crate::cuda::GpuImpl::open(n, kernels, self.gpu_ptx_version)?)));
        }
        match &self.target_lib {
            Some(path) if self.isolate => Ok(Some(Box::new(self.isolated(path)?))),
            Some(path) => {
                let mut lib = SharedLib::open(path, &self.symbol)?;
                lib.note_crashes();
                Ok(Some(Box::new(lib)))
            }
            None => Ok(None),
        }
    }

    /// The library in workers: this program again, as `__worker`.
    fn isolated(&self, path: &std::path::Path) -> Result<Isolated, String> {
        let me = std::env::current_exe()
            .map_err(|e| format!("--isolate: cannot find this program to start workers: {e}"))?;
        let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let args = vec![
            "__worker".into(),
            "--target-lib".into(),
            abs.clone().into(),
            "--symbol".into(),
            self.symbol.clone().into(),
        ];
        let name = format!("shared library: {} ({}), isolated", abs.display(), self.symbol);
        Isolated::spawn(&me, args, name, &self.symbol, Duration::from_secs_f64(self.timeout))
    }

    /// Whether the run goes on after an adapter error: the program or
    /// worker starts again and the rest of the batch is sent again.
    pub fn goes_on_after_errors(&self) -> bool {
        ((self.target_cmd.is_some() || self.target_ptx.is_some()) && self.restart)
            || (self.target_lib.is_some() && self.isolate)
    }

    /// How to go on after a crash, for the message that stops a run.
    pub fn go_on_hint(&self) -> &'static str {
        if self.target_cmd.is_some() || self.target_ptx.is_some() {
            " (--restart starts the program again and goes on)"
        } else if self.target_lib.is_some() {
            " (--isolate runs the library in worker processes and goes on)"
        } else {
            ""
        }
    }
}

/// The hidden `__worker` command: the other end of `--isolate`.
#[derive(Args, Debug)]
pub struct WorkerArgs {
    #[arg(long, value_name = "PATH")]
    target_lib: PathBuf,
    #[arg(long, value_name = "NAME", default_value = DEFAULT_SYMBOL)]
    symbol: String,
}

impl WorkerArgs {
    pub fn run(self) -> u8 {
        worker::serve(&self.target_lib, &self.symbol)
    }
}

/// A slow implementation (ptxas: about a second per batch) with a spinner on
/// stderr that counts the cases sent and names the instruction in flight
/// (hidden when stderr is no terminal).
struct WithProgress<I: Implementation> {
    inner: I,
    bar: indicatif::ProgressBar,
}

impl<I: Implementation> WithProgress<I> {
    fn new(inner: I) -> WithProgress<I> {
        WithProgress { inner, bar: crate::progress::bar(None, "{pos} cases sent, {elapsed}: {msg}") }
    }
}

impl<I: Implementation> Drop for WithProgress<I> {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl<I: Implementation> Implementation for WithProgress<I> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn eval(
        &mut self,
        c: &ptx_cvt::Cvt,
        operands: &[ptx_cvt::Operand],
        dst_width: u32,
    ) -> Result<ptx_cvt_harness::Answer, String> {
        let (mut answers, error) = self.eval_batch(c, &[(operands.to_vec(), dst_width)]);
        answers.pop().ok_or_else(|| error.unwrap_or_else(|| "no answer".into()))
    }

    fn eval_batch(
        &mut self,
        c: &ptx_cvt::Cvt,
        cases: &[(Vec<ptx_cvt::Operand>, u32)],
    ) -> (Vec<ptx_cvt_harness::Answer>, Option<String>) {
        self.bar.set_message(format!("{c} ({} cases)", cases.len()));
        let r = self.inner.eval_batch(c, cases);
        self.bar.inc(cases.len() as u64);
        r
    }
}
