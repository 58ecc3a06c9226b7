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

/// Every visible command, nested ones too, with its full name (`atlas gen`).
fn commands() -> Vec<(String, clap::Command)> {
    let mut root = crate::Cli::command();
    root.build();
    let mut out = Vec::new();
    let mut pending: Vec<(String, clap::Command)> = root
        .get_subcommands()
        .filter(|s| s.get_name() != "help" && !s.is_hide_set())
        .map(|s| (s.get_name().to_string(), s.clone()))
        .collect();
    pending.reverse();
    while let Some((name, c)) = pending.pop() {
        let subs: Vec<_> = c
            .get_subcommands()
            .filter(|s| s.get_name() != "help" && !s.is_hide_set())
            .map(|s| (format!("{name} {}", s.get_name()), s.clone()))
            .collect();
        if subs.is_empty() {
            out.push((name, c));
        } else {
            pending.extend(subs.into_iter().rev());
        }
    }
    out
}

/// The visible options of a command (no positionals, help or version).
fn options(c: &clap::Command) -> impl Iterator<Item = &clap::Arg> {
    c.get_arguments().filter(|a| {
        !a.is_positional() && !a.is_hide_set() && a.get_long().is_some_and(|l| l != "help" && l != "version")
    })
}

/// First sentence of an option's help, for a table cell.
fn summary(a: &clap::Arg) -> String {
    let h = a.get_help().map(|h| h.to_string()).unwrap_or_default();
    let h = h.split("\n\n").next().unwrap_or("").trim_end_matches('.').replace('\n', " ");
    h.replace('|', "\\|")
}

/// `-o, --out <FILE>`
fn spelling(a: &clap::Arg) -> String {
    let mut s = String::new();
    if let Some(c) = a.get_short() {
        s.push_str(&format!("-{c}, "));
    }
    s.push_str(&format!("--{}", a.get_long().unwrap_or("")));
    if a.get_action().takes_values() {
        let v = a.get_value_names().map(|v| v.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" "));
        s.push_str(&format!(" <{}>", v.unwrap_or_else(|| a.get_id().as_str().to_uppercase())));
    }
    s
}

/// docs/cli.md: every command's options and the options shared between
/// commands, from the clap definitions (`ptx-cvt __cli-reference`).
pub fn reference() -> String {
    use std::collections::BTreeMap;
    let cmds = commands();
    let mut s = String::from(
        "# Command-line options\n\n\
         Generated from the option definitions by `ptx-cvt __cli-reference > docs/cli.md`;\n\
         a test fails when this page and `--help` disagree. `ptx-cvt COMMAND --help` says more.\n\n\
         ## One vocabulary\n\n\
         An option means the same on every command that has it: `--target` is the PTX\n\
         target (legality, kernels), `--device` the CUDA device, `-o/--out` the output,\n\
         `--jobs` worker threads, `--seed` the seed of generated inputs (default 1),\n\
         `--max-shown` how many mismatches are printed, `--json` JSON on stdout (every\n\
         failure too: `{\"error\": {\"message\": …}}`), `--filter` the variant globs (a\n\
         filter that chooses nothing exits 2 with the same message everywhere).\n\n\
         | option | commands |\n|---|---|\n",
    );
    let mut by_option: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, c) in &cmds {
        for a in options(c) {
            let key = match a.get_short() {
                Some(ch) => format!("-{ch}, --{}", a.get_long().unwrap_or("")),
                None => format!("--{}", a.get_long().unwrap_or("")),
            };
            by_option.entry(key).or_default().push(name);
        }
    }
    for (opt, names) in by_option.iter().filter(|(_, n)| n.len() > 1) {
        s.push_str(&format!("| `{opt}` | {} |\n", names.join(", ")));
    }
    for (name, c) in &cmds {
        s.push_str(&format!("\n## ptx-cvt {name}\n\n"));
        if let Some(about) = c.get_about() {
            s.push_str(&format!("{}\n\n", about.to_string().replace('\n', " ")));
        }
        s.push_str("| option | default | meaning |\n|---|---|---|\n");
        for a in options(c) {
            let default: Vec<String> =
                a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
            let default = if default.is_empty() { String::new() } else { format!("`{}`", default.join(" ")) };
            s.push_str(&format!("| `{}` | {default} | {} |\n", spelling(a), summary(a)));
        }
    }
    s
}

/// The hidden `__cli-reference` command: docs/cli.md on stdout.
pub fn print_reference() -> u8 {
    write_stdout(reference().as_bytes());
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Issue 34: one vocabulary. An option spelled the same means the same
    /// everywhere: the same short form and value name on every command.
    #[test]
    fn options_agree_across_commands() {
        let mut seen: BTreeMap<String, (String, Option<char>, String)> = BTreeMap::new();
        for (name, c) in commands() {
            for a in options(&c) {
                let long = a.get_long().unwrap().to_string();
                let value = spelling(a).split_once(' ').map(|x| x.1.to_string()).unwrap_or_default();
                let value = value.rsplit(' ').next().unwrap_or("").to_string();
                if long == "out" {
                    assert_eq!(a.get_short(), Some('o'), "{name}: --out without -o");
                }
                if let Some((first, short, v)) = seen.get(&long) {
                    assert_eq!(*short, a.get_short(), "--{long}: short form differs on {first} and {name}");
                    if !matches!(long.as_str(), "out" | "target" | "filter") {
                        assert_eq!(*v, value, "--{long}: value differs on {first} and {name}");
                    }
                } else {
                    seen.insert(long, (name.clone(), a.get_short(), value));
                }
            }
        }
        // The words issue 34 fixed: the device is --device, mismatches shown --max-shown.
        for gone in ["target-gpu", "gpu-target", "show"] {
            assert!(!seen.contains_key(gone), "--{gone} is visible");
        }
        for needed in ["device", "max-shown", "jobs", "seed", "json"] {
            assert!(seen.contains_key(needed), "--{needed} missing");
        }
    }
}
