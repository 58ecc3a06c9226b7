//! Shell completions and manual pages, both generated from the clap
//! definitions so they never drift from `--help`.

use std::path::PathBuf;

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;

use crate::output::{write_atomic, write_stdout};

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    ///
    /// Install, e.g.: `ptx-cvt completions bash > ~/.local/share/bash-completion/completions/ptx-cvt`;
    /// zsh: a file `_ptx-cvt` in a directory of `$fpath`; fish: `~/.config/fish/completions/ptx-cvt.fish`;
    /// PowerShell: `ptx-cvt completions powershell | Out-String | Invoke-Expression` in your profile.
    #[arg(value_enum)]
    pub shell: ShellName,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ShellName {
    Bash,
    Zsh,
    Fish,
    Powershell,
    Elvish,
}

impl From<ShellName> for Shell {
    fn from(s: ShellName) -> Shell {
        match s {
            ShellName::Bash => Shell::Bash,
            ShellName::Zsh => Shell::Zsh,
            ShellName::Fish => Shell::Fish,
            ShellName::Powershell => Shell::PowerShell,
            ShellName::Elvish => Shell::Elvish,
        }
    }
}

#[derive(Args)]
pub struct ManArgs {
    /// Write one page per command into DIR (`ptx-cvt.1`, `ptx-cvt-check.1`,
    /// …) instead of printing the main page (`ptx-cvt.1`) to stdout.
    ///
    /// Install, e.g.: `ptx-cvt man --out ~/.local/share/man/man1`, then `man ptx-cvt-check`.
    #[arg(long, short, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub fn completions(a: CompletionsArgs) -> u8 {
    let mut cmd = crate::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(Shell::from(a.shell), &mut cmd, "ptx-cvt", &mut buf);
    write_stdout(&buf);
    0
}

pub fn man(a: ManArgs) -> u8 {
    let cmd = crate::Cli::command();
    match a.out {
        None => match render(&cmd) {
            Ok(page) => {
                write_stdout(&page);
                0
            }
            Err(e) => fail(&e),
        },
        Some(dir) => match write_pages(&cmd, &dir) {
            Ok(n) => {
                eprintln!("man: wrote {n} pages to {}", dir.display());
                0
            }
            Err(e) => fail(&e),
        },
    }
}

fn fail(e: &str) -> u8 {
    fail!("{e}");
    2
}

fn render(cmd: &clap::Command) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut buf).map_err(|e| format!("cannot render the manual page: {e}"))?;
    Ok(buf)
}

/// The main page and one page per subcommand (nested ones too), each
/// named after its full command path, e.g. `ptx-cvt-atlas-gen.1`.
fn write_pages(cmd: &clap::Command, dir: &std::path::Path) -> Result<usize, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut cmd = cmd.clone();
    cmd.build();
    let mut n = 0;
    let mut pending = vec![(String::from("ptx-cvt"), cmd)];
    while let Some((name, c)) = pending.pop() {
        for sub in c.get_subcommands().filter(|s| s.get_name() != "help" && !s.is_hide_set()) {
            pending.push((format!("{name}-{}", sub.get_name()), sub.clone()));
        }
        let page = render(&c)?;
        write_atomic(&dir.join(format!("{name}.1")), &page)?;
        n += 1;
    }
    Ok(n)
}
