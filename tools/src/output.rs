//! Where output goes: stdout through one writer that remembers its first
//! error, and output files written only as regular files, atomically.
//!
//! The contract (docs/contract.md): a write error on stdout
//! or on a file is reported and the command exits 2; a closed pipe
//! (`| head`) ends the output quietly; an output path that exists as
//! anything but a regular file (device, FIFO, symlink, directory) is refused.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;

/// Set once stdout is closed or broken: later output is dropped.
static STDOUT_DONE: AtomicBool = AtomicBool::new(false);
/// The first stdout error that is not a closed pipe.
static STDOUT_ERROR: Mutex<Option<String>> = Mutex::new(None);

fn stdout_failed(e: io::Error) {
    if e.kind() != ErrorKind::BrokenPipe {
        STDOUT_ERROR.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e.to_string());
    }
    STDOUT_DONE.store(true, Relaxed);
}

/// Set when stdout carries data (e.g. `sweep --out -`): reports go to stderr.
static REPORT_TO_STDERR: AtomicBool = AtomicBool::new(false);

/// Send what `say!` prints to stderr from now on, keeping stdout for data.
pub fn report_to_stderr() {
    REPORT_TO_STDERR.store(true, Relaxed);
}

/// Whether stdout still takes output (false after a closed pipe or an error).
pub fn stdout_open() -> bool {
    !STDOUT_DONE.load(Relaxed)
}

/// Print a line to stdout (the `say!` macro). After an error, output is
/// dropped; [`finish_stdout`] reports the error at exit.
pub fn say_line(args: std::fmt::Arguments) {
    if REPORT_TO_STDERR.load(Relaxed) {
        eprintln!("{args}");
        return;
    }
    if !stdout_open() {
        return;
    }
    if let Err(e) = writeln!(io::stdout().lock(), "{args}") {
        stdout_failed(e);
    }
}

/// Set under `--json`: errors become `{"error": {...}}` objects on stdout.
static JSON_ERRORS: AtomicBool = AtomicBool::new(false);

/// Report errors as JSON on stdout from now on (the command has `--json`).
pub fn errors_as_json() {
    JSON_ERRORS.store(true, Relaxed);
}

/// Whether errors go to stdout as JSON.
pub fn json_errors() -> bool {
    JSON_ERRORS.load(Relaxed)
}

/// Report an error (the `fail!` macro): `error: MESSAGE` on stderr, or
/// under `--json` one `{"error": {"message": …}}` line on stdout, so that
/// stdout holds only JSON and a caller reads every failure the same way.
pub fn error_line(args: std::fmt::Arguments) {
    if json_errors() && !REPORT_TO_STDERR.load(Relaxed) {
        say_line(format_args!("{}", serde_json::json!({"error": {"message": args.to_string()}})));
    } else {
        eprintln!("error: {args}");
    }
}

/// Write bytes to stdout; false once stdout no longer takes output.
pub fn write_stdout(bytes: &[u8]) -> bool {
    if !stdout_open() {
        return false;
    }
    if let Err(e) = io::stdout().lock().write_all(bytes) {
        stdout_failed(e);
    }
    stdout_open()
}

/// Flush stdout at exit: the first write error that was not a closed pipe.
pub fn finish_stdout() -> Result<(), String> {
    if stdout_open() {
        if let Err(e) = io::stdout().lock().flush() {
            stdout_failed(e);
        }
    }
    match STDOUT_ERROR.lock().unwrap_or_else(|p| p.into_inner()).take() {
        Some(e) => Err(format!("cannot write to stdout: {e}")),
        None => Ok(()),
    }
}

/// Make a failed write to stderr (`eprintln!` panics on one, e.g.
/// `2>/dev/full`) end the program with status 2 instead of a panic's 101:
/// the error cannot be reported, but the status still says it failed.
pub fn exit_2_when_stderr_fails() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied());
        if text.is_some_and(|t| t.starts_with("failed printing to stderr")) {
            std::process::exit(2);
        }
        default(info)
    }));
}

/// What a non-regular file is, for the refusal message.
fn kind_of(t: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Refuse an output file path that is empty or exists as anything but a
/// regular file: renaming over it would replace a device, FIFO or symlink.
pub fn check_output_file(path: &Path) -> Result<(), String> {
    if path.as_os_str().is_empty() {
        return Err("the output path is empty".into());
    }
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => Ok(()),
        Ok(m) => Err(format!(
            "{} is {}: output files are only written as regular files (choose another path, or `-` for stdout where a command takes it)",
            path.display(),
            kind_of(m.file_type())
        )),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// A regular file written through a temporary file in the same folder and
/// renamed into place by [`AtomicFile::commit`]: readers see the old file or
/// the whole new one. Dropped without a commit, it leaves nothing behind.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    w: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Start writing `path`; refuses paths [`check_output_file`] refuses.
    pub fn create(path: &Path) -> Result<AtomicFile, String> {
        check_output_file(path)?;
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = path.file_name().ok_or_else(|| format!("{} is not a file name", path.display()))?;
        let tmp = dir.join(format!(".{}.{}.tmp~", name.to_string_lossy(), std::process::id()));
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(AtomicFile { path: path.to_path_buf(), tmp, w: Some(BufWriter::with_capacity(1 << 20, f)) })
    }

    /// Flush, sync and rename into place.
    pub fn commit(self) -> Result<(), String> {
        self.finish(true)
    }

    /// [`AtomicFile::commit`] without waiting for the disk (no fsync): still
    /// all or nothing for readers and for a process killed mid-write, not for
    /// a power cut. For files rewritten many times a second (`gpu --out`).
    pub fn commit_unsynced(self) -> Result<(), String> {
        self.finish(false)
    }

    fn finish(mut self, sync: bool) -> Result<(), String> {
        let w = self.w.take().expect("not yet committed");
        let done = (|| -> io::Result<()> {
            let f = w.into_inner().map_err(|e| e.into_error())?;
            if sync {
                f.sync_all()?;
            }
            // The path may have become a device or link since create: check again.
            check_output_file(&self.path).map_err(io::Error::other)?;
            fs::rename(&self.tmp, &self.path)
        })();
        done.map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.w.as_mut().expect("not yet committed").write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.as_mut().expect("not yet committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Committed: the temporary file is renamed away; otherwise remove it.
        let _ = fs::remove_file(&self.tmp);
    }
}

/// Write a whole file atomically (see [`AtomicFile`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    f.commit()
}

/// [`write_atomic`] without the fsync (see [`AtomicFile::commit_unsynced`]).
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    f.commit_unsynced()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_special_files_and_leaves_nothing_on_drop() {
        let dir = std::env::temp_dir().join(format!("ptx-cvt-output-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        assert!(check_output_file(Path::new("")).is_err());
        assert!(check_output_file(&dir).unwrap_err().contains("a directory"));
        #[cfg(unix)]
        {
            assert!(check_output_file(Path::new("/dev/null")).unwrap_err().contains("a character device"));
            let link = dir.join("link");
            std::os::unix::fs::symlink(dir.join("target"), &link).unwrap();
            assert!(check_output_file(&link).unwrap_err().contains("a symbolic link"));
        }
        let p = dir.join("x.txt");
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"partial").unwrap();
        drop(f);
        let names: Vec<String> =
            fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(!names.iter().any(|n| n.starts_with('.') || n == "x.txt"), "left behind: {names:?}");
        write_atomic(&p, b"whole\n").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "whole\n");
        fs::remove_dir_all(&dir).unwrap();
    }
}
