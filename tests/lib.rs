//! Shared helpers of the integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Whether the full suite runs (`scripts/test.sh --full`, which CI runs:
/// `PTX_CVT_FULL=1`): the large equivalence checks at full size. The default
/// keeps every check, at a size that lets the README's test command finish
/// in minutes.
pub fn full_suite() -> bool {
    std::env::var_os("PTX_CVT_FULL").is_some_and(|v| v == "1")
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// `cargo build -q ARGS` (dev profile) in the workspace; the target folder
/// it built into (`CARGO_TARGET_DIR` or `target/`).
fn cargo_build(args: &[&str]) -> PathBuf {
    let ws = workspace();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let out = Command::new(cargo)
        .args(["build", "-q"])
        .args(args)
        .current_dir(&ws)
        .output()
        .expect("could not run cargo build");
    assert!(out.status.success(), "cargo build {}:\n{}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        Some(d) => ws.join(d),
        None => ws.join("target"),
    }
}

/// Path of the `ptx-cvt` binary, built once per test process with
/// `cargo build -p ptx-cvt-cli` (dev profile); `PTX_CVT_BIN` overrides it.
pub fn bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os("PTX_CVT_BIN") {
            return PathBuf::from(p);
        }
        let target = cargo_build(&["-p", "ptx-cvt-cli", "--bin", "ptx-cvt"]);
        let exe = target.join("debug").join(format!("ptx-cvt{}", std::env::consts::EXE_SUFFIX));
        assert!(exe.is_file(), "built ptx-cvt but {} does not exist", exe.display());
        exe
    })
}

/// A folder holding the stand-in CUDA driver (`cuda-standin/`) as
/// `libcuda.so`, for LD_LIBRARY_PATH; built once per test process.
pub fn standin_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let target = cargo_build(&["-p", "ptx-cvt-cuda-standin"]);
        let so = target.join("debug/libptx_cvt_cuda_standin.so");
        assert!(so.is_file(), "built the stand-in but {} does not exist", so.display());
        let dir = target.join("debug/cuda-standin");
        std::fs::create_dir_all(&dir).unwrap();
        // Replaced atomically: other test processes may be using the link.
        let tmp = dir.join(format!(".libcuda.so.{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&so, &tmp).unwrap();
        std::fs::rename(&tmp, dir.join("libcuda.so")).unwrap();
        dir
    })
}

/// The committed compact vector files, sorted by name, with their text.
pub fn compact_vectors() -> Vec<(String, String)> {
    let dir = workspace().join("vectors/compact");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("vectors/compact exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cases"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// Whether `python3` (3.8 or later) runs here; says so on stderr when not,
/// for the tests that then skip.
pub fn python3() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        let ok = Command::new("python3")
            .args(["-c", "import sys; sys.exit(0 if sys.version_info >= (3, 8) else 1)"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: these tests need python3 (3.8 or later) on PATH");
        }
        ok
    })
}

/// capi/examples/toy_impl.c built as `dir/libtoy_impl.so`, or None (said on
/// stderr) without a C compiler.
pub fn build_toy_impl(dir: &Path) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).expect("create the scratch folder");
    let so = dir.join("libtoy_impl.so");
    let ws = workspace();
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-std=c99", "-I"])
        .arg(ws.join("capi/include"))
        .arg(ws.join("capi/examples/toy_impl.c"))
        .arg("-o")
        .arg(&so)
        .status()
        .is_ok_and(|s| s.success());
    if !built {
        eprintln!("skipped: no C compiler (`cc`) to build capi/examples/toy_impl.c");
        return None;
    }
    Some(so)
}

/// The ptxas legality snapshots (`tests/data/ptxas-legality-*.tsv`): one row
/// per spelling, register set, target and PTX version, with ptxas's verdict.
pub mod snapshot {
    use std::collections::BTreeMap;

    use ptx_cvt::instr::{self, packed, PtxVersion, Regs, Target};

    /// One row: `target version instruction operands verdict message`.
    pub struct Row<'a> {
        pub line: usize,
        pub target: Target,
        pub version: PtxVersion,
        pub instruction: &'a str,
        /// (name, register type) per operand, destination first; a vector
        /// operand `{a,b}:b32` gives `{a}` and `{b}`.
        pub ops: Vec<(String, String)>,
        pub accepted: bool,
        pub message: &'a str,
    }

    /// The rows of snapshot `name` (comments and blank lines skipped); a
    /// malformed row panics with its line number.
    pub fn rows<'a>(text: &'a str, name: &'a str) -> impl Iterator<Item = Row<'a>> + 'a {
        text.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.is_empty()).map(move |(n, l)| {
            let f: Vec<&str> = l.split('\t').collect();
            let [target, version, instruction, ops, verdict, message] = f[..] else {
                panic!("{name} snapshot line {} has {} columns", n + 1, f.len());
            };
            Row {
                line: n + 1,
                target: target.parse().unwrap_or_else(|e| panic!("{name} snapshot line {}: {e}", n + 1)),
                version: version.parse().unwrap_or_else(|e| panic!("{name} snapshot line {}: {e:?}", n + 1)),
                instruction,
                ops: operands(ops),
                accepted: verdict == "ok",
                message,
            }
        })
    }

    fn operands(col: &str) -> Vec<(String, String)> {
        col.split(' ')
            .flat_map(|o| {
                let (names, reg) = o.split_once(':').expect("name:reg");
                let vector = names.starts_with('{');
                names
                    .trim_matches(|c| c == '{' || c == '}')
                    .split(',')
                    .map(move |n| (if vector { format!("{{{n}}}") } else { n.to_string() }, reg.to_string()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Register bits of a `bN` register type.
    pub fn bits(reg: &str) -> u32 {
        reg.strip_prefix('b').and_then(|b| b.parse().ok()).unwrap_or_else(|| panic!("not a bN register: {reg}"))
    }

    /// The oracle's verdict on a row of the packed or PTX 9.4 snapshot: the
    /// spelling, its operand names (x4 sources as a vector) and every
    /// operand's register width.
    pub fn oracle(instruction: &str, ops: &[(String, String)], t: Target, v: PtxVersion) -> Result<(), String> {
        let c = instr::parse(instruction).map_err(|e| e.message)?;
        let shape = instr::shape(&c);
        let (dst, srcs) = ops.split_first().expect("a destination");
        let want: Vec<String> = shape
            .names
            .iter()
            .map(|n| if c.dtype.lanes() == 4 && *n != "rbits" { format!("{{{n}}}") } else { n.to_string() })
            .collect();
        let got: Vec<String> = srcs.iter().map(|(n, _)| n.clone()).collect();
        if want != got {
            return Err(format!("operands {got:?}, the form takes {want:?}"));
        }
        instr::check(&c, Regs { dst: bits(&dst.1), src: bits(&srcs[0].1) }, Some(t), Some(v))
            .map_err(|e| e.to_string())?;
        match srcs.iter().enumerate().find(|(i, (_, r))| !c.is_scalar() && !packed::width_ok(&c, Some(*i), bits(r))) {
            Some((i, (_, r))) => Err(format!("operand {} register {r}", i + 1)),
            None => Ok(()),
        }
    }

    /// What comparing a snapshot with the oracle found.
    #[derive(Default)]
    pub struct Comparison {
        pub rows: usize,
        pub accepted: usize,
        /// Rows left out, by the reason `skip` gave.
        pub skipped: BTreeMap<&'static str, usize>,
        pub mismatches: Vec<String>,
        pub targets: std::collections::BTreeSet<Target>,
    }

    impl Comparison {
        /// Panics listing the first rows that differ from ptxas.
        pub fn assert_no_mismatch(&self) {
            let shown: Vec<&str> = self.mismatches.iter().take(40).map(|s| s.as_str()).collect();
            assert!(
                self.mismatches.is_empty(),
                "{} rows differ from ptxas:\n{}",
                self.mismatches.len(),
                shown.join("\n")
            );
        }
    }

    /// Every row of `rows` not skipped (`skip` gives the reason) judged by
    /// `oracle` and compared with ptxas's verdict.
    pub fn compare<'a>(
        rows: impl Iterator<Item = Row<'a>>,
        skip: impl Fn(&Row) -> Option<&'static str>,
        oracle: impl Fn(&Row) -> Result<(), String>,
    ) -> Comparison {
        let mut out = Comparison::default();
        for row in rows {
            if let Some(why) = skip(&row) {
                *out.skipped.entry(why).or_default() += 1;
                continue;
            }
            out.rows += 1;
            out.targets.insert(row.target);
            let ours = oracle(&row);
            out.accepted += ours.is_ok() as usize;
            if ours.is_ok() != row.accepted {
                let ops: Vec<String> = row.ops.iter().map(|(n, r)| format!("{n}:{r}")).collect();
                out.mismatches.push(format!(
                    "line {}: {} {} {} {ops:?}: ptxas {} {:?}, oracle {:?}",
                    row.line,
                    row.target,
                    row.version,
                    row.instruction,
                    if row.accepted { "ok" } else { "error" },
                    row.message,
                    ours.err().unwrap_or_else(|| "ok".into())
                ));
            }
        }
        out
    }
}
