//! Stopping a run without losing it. The first SIGINT/SIGTERM only asks
//! the run to stop: loops call [`requested`] between batches, count what
//! they did not send as not run and print their report (exit 130). A
//! second signal ends the program at once, killing the adapter processes
//! registered here (they run in their own process groups, so the
//! terminal's Ctrl-C does not reach them and the batch in flight can end).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use std::sync::Mutex;

static REQUESTED: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicU32 = AtomicU32::new(0);
/// Process groups of running adapters (their leaders' pids).
static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// The exit status of a run stopped by a signal (128 + SIGINT).
pub const EXIT_CODE: u8 = 130;

/// Install the handler (once; later calls do nothing). `note` is printed on
/// stderr at the first signal, saying what happens next.
pub fn install(note: &'static str) {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        let installed = ctrlc::set_handler(move || {
            if SIGNALS.fetch_add(1, SeqCst) == 0 {
                REQUESTED.store(true, SeqCst);
                eprintln!("\n{note}");
            } else {
                kill_groups();
                std::process::exit(EXIT_CODE as i32);
            }
        });
        // Another handler owns the signals (an embedding program): runs then
        // stop as the default action says, nothing is lost that was not already.
        let _ = installed;
    });
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(SeqCst)
}

/// Ask for a stop as a signal would (for tests and embedding programs).
pub fn request() {
    REQUESTED.store(true, SeqCst);
}

/// Remember an adapter's process group, to kill at a second signal.
pub fn register_group(pid: u32) {
    GROUPS.lock().unwrap_or_else(|p| p.into_inner()).push(pid);
}

/// Forget a process group (its leader was reaped).
pub fn unregister_group(pid: u32) {
    GROUPS.lock().unwrap_or_else(|p| p.into_inner()).retain(|&g| g != pid);
}

fn kill_groups() {
    // try_lock: the signal may come while the list is being changed.
    if let Ok(groups) = GROUPS.try_lock() {
        for &g in groups.iter() {
            if let Ok(pid) = i32::try_from(g) {
                // SAFETY: kill(2) on a process group we started; no memory is touched.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
        }
    }
}
