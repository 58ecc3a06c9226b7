//! Shared helpers of the integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// Path of the `ptx-cvt` binary, built once per test process with
/// `cargo build -p ptx-cvt-tools` (dev profile); `PTX_CVT_BIN` overrides it.
pub fn bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os("PTX_CVT_BIN") {
            return PathBuf::from(p);
        }
        let ws = workspace();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
        let out = Command::new(cargo)
            .args(["build", "-q", "-p", "ptx-cvt-tools", "--bin", "ptx-cvt"])
            .current_dir(&ws)
            .output()
            .expect("could not run cargo to build ptx-cvt");
        assert!(out.status.success(), "cargo build -p ptx-cvt-tools failed:\n{}", String::from_utf8_lossy(&out.stderr));
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
