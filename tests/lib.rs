//! Shared helpers of the integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// Path of the `ptx-cvt` binary, built once per test process with
/// `cargo build -p ptx-cvt` (dev profile); `PTX_CVT_BIN` overrides it.
pub fn bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os("PTX_CVT_BIN") {
            return PathBuf::from(p);
        }
        let ws = workspace();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
        let out = Command::new(cargo)
            .args(["build", "-q", "-p", "ptx-cvt", "--bin", "ptx-cvt"])
            .current_dir(&ws)
            .output()
            .expect("could not run cargo to build ptx-cvt");
        assert!(out.status.success(), "cargo build -p ptx-cvt failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let target = match std::env::var_os("CARGO_TARGET_DIR") {
            Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
            Some(d) => ws.join(d),
            None => ws.join("target"),
        };
        let exe = target.join("debug").join(format!("ptx-cvt{}", std::env::consts::EXE_SUFFIX));
        assert!(exe.is_file(), "built ptx-cvt but {} does not exist", exe.display());
        exe
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
