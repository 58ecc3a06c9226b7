//! `ptx-cvt`: the command line over the ptx-cvt oracle.

/// `println!` through the one stdout writer (`output::say_line`): a closed
/// pipe ends output quietly, other write errors make the exit status 2.
macro_rules! say {
    ($($t:tt)*) => { $crate::output::say_line(format_args!($($t)*)) };
}

/// An error: `error: …` on stderr, or a JSON object on stdout under
/// `--json` (`output::error_line`).
macro_rules! fail {
    ($($t:tt)*) => { $crate::output::error_line(format_args!($($t)*)) };
}

mod atlas;
mod atlas_check;
mod check;
mod check_lines;
mod classes;
mod combine;
mod common;
mod coverage;
mod cuda;
mod eval;
mod explain;
mod fuzz;
mod gen;
mod gpu;
mod gpu_record;
mod implementation;
mod list;
mod lowering;
mod options;
mod output;
mod progress;
mod ptx;
mod shell;
mod sweep;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use ptx_cvt::{Profile, PtxVersion, Target};

/// Bit-exact reference oracle for the PTX `cvt` instruction.
///
/// Case lines look like `cvt.rn.f16.f32 3f800000 => 3c00`: the instruction,
/// each source register in hex (no 0x, zero-padded to the register width:
/// 2, 4, 8 or 16 digits) and, after `=>`, the result. See vectors/README.md.
#[derive(Parser)]
#[command(
    name = "ptx-cvt",
    version = version_text(),
    propagate_version = true,
    after_help = "Examples:\n  \
      ptx-cvt eval cvt.rn.f16.f32 3f800000            # prints 3c00\n  \
      ptx-cvt eval --dst-width 32 cvt.s16.s8 139231c2 # 32-bit registers: ffffffc2\n  \
      ptx-cvt explain cvt.rn.f16.f32 3f801000         # the rules that decide it\n  \
      ptx-cvt check results.cases                     # verify recorded results\n  \
      ptx-cvt list --target sm_90                     # every legal spelling, scalar and packed"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `--version`: the package version and the semantics version of the oracle.
fn version_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| format!("{} (semantics {})", env!("CARGO_PKG_VERSION"), ptx_cvt::SEMANTICS_VERSION))
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate an instruction on operands, or case lines from stdin.
    ///
    /// With operands, prints the result. Without, reads lines
    /// `<instruction> <operand>... [=> ????????]` from stdin and writes
    /// complete case lines (a `?`-only result asks for that destination
    /// register width). Example: `ptx-cvt eval cvt.rn.f16.f32 3f800000`.
    Eval(eval::EvalArgs),
    /// Check results against the oracle: recorded in case lines, or from an implementation run on them.
    ///
    /// Reads each FILE or directory (`-` for stdin). The results are those
    /// written in the lines (a GPU dump, an emulator's output) or, with
    /// --target-cmd/--target-lib/--target-ptx/--device/--target-ptxas, the implementation's answers
    /// to every case. Prints the totals and one line per bug class: what the
    /// implementation does instead (docs/diagnosis.md), its variants and an
    /// example; --class N or --all print mismatches in full (decoded input,
    /// expected and got, the deciding rule), --reproducers N adds PTX modules.
    /// Ends with `N passed, M failed`. Exit status: 0 all pass, 1 any
    /// mismatch, 2 unreadable input, adapter errors, or nothing checked.
    Check(check::CheckArgs),
    /// Show which rules decide a conversion, step by step.
    ///
    /// Example: `ptx-cvt explain cvt.rn.f16.f32 3f801000`.
    Explain(explain::ExplainArgs),
    /// Generate golden-vector files for every legal variant of the targets.
    ///
    /// Example: `ptx-cvt gen --target all --out vectors/compact` (the committed vectors).
    /// Inputs come from the format table (specials, every destination boundary,
    /// exponent sweeps, seeded random values); each case line ends with its
    /// coverage class as a comment. Output is byte-identical for the same
    /// version, level and seed, whatever --jobs.
    Gen(gen::GenArgs),
    /// Report the coverage classes case files hit, per variant, and the ones they miss.
    ///
    /// A class is `input/result/event` (e.g. `normal/subnormal/tie-even-up`).
    /// "Missing" lists classes that some deep-level input of the variant
    /// reaches but the files do not. Example: `ptx-cvt coverage vectors/compact/*.cases`.
    Coverage(coverage::CoverageArgs),
    /// Emit a self-contained PTX module with one test kernel per variant.
    Ptx(ptx::PtxArgs),
    /// Run vector files or exhaustive input ranges on an NVIDIA GPU and check the results.
    Gpu(gpu::GpuArgs),
    /// Fuzz an external implementation (a process or a shared library) against the oracle.
    Fuzz(fuzz::FuzzArgs),
    /// Evaluate every input of a variant (or a --range of them) with the fast engine, on all cores.
    ///
    /// Prints an order-independent digest of the (input, result) pairs, and
    /// compares with a results file (--against) or an implementation
    /// (--target-cmd, --target-lib) if given. Example: `ptx-cvt sweep
    /// cvt.rn.f16.f32` (all 2^32 inputs); `--shard K/N` for array jobs.
    Sweep(sweep::SweepArgs),
    /// Join the `sweep --json` outputs of the N shards of one sweep into one result.
    ///
    /// The digests add up (mod 2^64) to the digest of one run over the whole
    /// range; counts add; mismatches follow in input order. Example:
    /// `ptx-cvt combine shard-*.json`.
    Combine(combine::CombineArgs),
    /// The digest atlas: digests of every input of every variant with sources
    /// of at most 32 bits, per block of 2^24 inputs (vectors/README.md).
    ///
    /// `atlas gen` computes it, `atlas merge` joins shard parts, `atlas check`
    /// compares an implementation or your own block digests with it.
    Atlas(atlas::AtlasArgs),
    /// List every legal spelling (canonical form), one per line.
    ///
    /// Example: `ptx-cvt list --target sm_90`.
    List(list::ListArgs),
    /// Print the SASS ptxas 13.5 emits for each legal spelling of a target (the committed lowering atlas).
    ///
    /// Each spelling is one SASS conversion instruction, a sequence (whose
    /// instructions then decide the hardware's bits), or none. Example:
    /// `ptx-cvt lowering --target sm_90 --kind sequence`.
    Lowering(lowering::LoweringArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    ///
    /// Example: `ptx-cvt completions bash > ~/.local/share/bash-completion/completions/ptx-cvt`.
    Completions(shell::CompletionsArgs),
    /// Print the manual page, or write one page per command with --out DIR.
    ///
    /// Example: `ptx-cvt man --out ~/.local/share/man/man1`, then `man ptx-cvt-check`.
    Man(shell::ManArgs),
    /// The --isolate worker: ptx-cvt started by itself (not for users).
    #[command(name = "__worker", hide = true)]
    Worker(implementation::WorkerArgs),
    /// docs/cli.md from the option definitions (for maintainers).
    #[command(name = "__cli-reference", hide = true)]
    CliReference,
}

/// Options shared by commands that evaluate.
#[derive(Args, Clone)]
pub struct EvalOpts {
    /// Evidence profile: `sm90` (bit-exact best evidence of sm_90 hardware)
    /// or `isa` (accept every result the PTX ISA text permits).
    #[arg(long, default_value = "sm90", value_parser = parse_profile)]
    pub profile: Profile,
    /// Check legality for this target (e.g. sm_90, sm_100a); without it,
    /// every form the oracle models is evaluated.
    #[arg(long, value_parser = parse_target)]
    pub target: Option<Target>,
    /// PTX ISA version for the legality check (default: the newest known, 9.5).
    #[arg(long, value_parser = parse_version)]
    pub ptx_version: Option<PtxVersion>,
    /// Machine-readable JSON output.
    #[arg(long)]
    pub json: bool,
}

impl EvalOpts {
    /// Where the cases are checked: the profile, target and PTX version.
    pub fn scope(&self) -> ptx_cvt_harness::judge::Scope {
        ptx_cvt_harness::judge::Scope { profile: self.profile, target: self.target, version: self.ptx_version }
    }
}

fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse().map_err(|e: ptx_cvt::policy::UnknownProfile| e.to_string())
}
pub(crate) fn parse_target(s: &str) -> Result<Target, String> {
    s.parse().map_err(|e: ptx_cvt::instr::TargetError| e.0)
}
pub(crate) fn parse_version(s: &str) -> Result<PtxVersion, String> {
    s.parse().map_err(|e: ptx_cvt::instr::TargetError| e.0)
}

/// Whether `--json` is among the options (before any `--`).
fn wants_json(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    args.take_while(|a| a != "--").any(|a| a == "--json")
}

fn main() -> ExitCode {
    output::exit_2_when_stderr_fails();
    if wants_json(std::env::args_os().skip(1)) {
        output::errors_as_json();
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if output::json_errors() && e.use_stderr() => {
            // Under --json a bad command line is one JSON object too.
            let text = e.render().to_string();
            let message = text.lines().next().unwrap_or("").trim_start_matches("error: ").to_string();
            say!("{}", serde_json::json!({"error": {"message": message, "usage": text.trim_end()}}));
            let _ = output::finish_stdout();
            return ExitCode::from(e.exit_code() as u8);
        }
        Err(e) => {
            // --help and --version print to stdout: their write errors count too.
            let printed = e.print();
            let flushed = std::io::Write::flush(&mut std::io::stdout());
            if let Some(err) = printed.err().or(flushed.err()).filter(|x| x.kind() != std::io::ErrorKind::BrokenPipe) {
                eprintln!("error: cannot write to stdout: {err}");
                return ExitCode::from(2);
            }
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    let code = match cli.command {
        Command::Eval(a) => eval::run(a),
        Command::Check(a) => check::run(a),
        Command::Explain(a) => explain::run(a),
        Command::List(a) => list::run(a),
        Command::Lowering(a) => lowering::run(a),
        Command::Gen(a) => gen::run(a),
        Command::Coverage(a) => coverage::run(a),
        Command::Ptx(a) => ptx::run(a),
        Command::Gpu(a) => gpu::run(a),
        Command::Fuzz(a) => fuzz::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Atlas(a) => atlas::run(a),
        Command::Combine(a) => combine::run(a),
        Command::Completions(a) => shell::completions(a),
        Command::Man(a) => shell::man(a),
        Command::Worker(a) => a.run(),
        Command::CliReference => shell::print_reference(),
    };
    // Buffered output's write errors show only now (e.g. `> /dev/full`).
    if let Err(e) = output::finish_stdout() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    ExitCode::from(code)
}
