//! A word on stderr when a library loaded into this process crashes it:
//! which case was in flight. Without `--isolate` nothing can save the run,
//! but the user learns where it died:
//! `error: crashed (SIGABRT) in cvt_impl on: cvt.rn.f16.f32 3f800000 => ????; run with --isolate to go on`.
//!
//! The case is copied into a static buffer before each call ([`enter`]); a
//! handler for SIGSEGV, SIGBUS, SIGABRT, SIGFPE and SIGILL (on the alternate
//! signal stack, so a stack overflow is caught too) writes it with `write(2)`
//! only, then lets the default action end the process, so the exit status
//! still tells the signal. A call of `exit()` in the library is noted from an
//! `atexit` handler. One thread's call is noted at a time; the callers here
//! call from one thread.

/// Install the handlers (once per process).
pub fn install() {
    #[cfg(unix)]
    imp::install();
}

/// Note `what` (`cvt_impl on: <case line>`) as in flight until the guard is dropped.
pub fn enter(what: &str) -> Guard {
    #[cfg(unix)]
    return Guard(imp::enter(what));
    #[cfg(not(unix))]
    {
        let _ = what;
        Guard(false)
    }
}

/// Clears the note when the call is over.
pub struct Guard(bool);

impl Drop for Guard {
    fn drop(&mut self) {
        #[cfg(unix)]
        if self.0 {
            imp::leave();
        }
    }
}

#[cfg(unix)]
mod imp {
    use std::cell::UnsafeCell;
    use std::mem::MaybeUninit;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Once;

    use libc::c_int;

    const CAP: usize = 480;
    const SIGNALS: [c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGABRT, libc::SIGFPE, libc::SIGILL];

    /// The note's text; written only by the thread holding `BUSY`.
    struct Buf(UnsafeCell<[u8; CAP]>);
    // SAFETY: written under BUSY, read by the signal handler of that same thread only.
    unsafe impl Sync for Buf {}
    static BUF: Buf = Buf(UnsafeCell::new([0; CAP]));
    /// Bytes of the note; 0 while nothing is in flight.
    static LEN: AtomicUsize = AtomicUsize::new(0);
    /// The thread (pthread_self) whose call is noted.
    static OWNER: AtomicUsize = AtomicUsize::new(0);
    static BUSY: AtomicBool = AtomicBool::new(false);
    static INSTALLED: Once = Once::new();

    /// The actions replaced, restored for signals outside a noted call.
    struct Old(UnsafeCell<[MaybeUninit<libc::sigaction>; SIGNALS.len()]>);
    // SAFETY: written once in `install` before the handlers can run, then only read.
    unsafe impl Sync for Old {}
    static OLD: Old = Old(UnsafeCell::new([MaybeUninit::uninit(); SIGNALS.len()]));

    pub fn install() {
        INSTALLED.call_once(|| {
            // SAFETY: plain libc calls on valid, zero-initialised structures;
            // OLD is written here only, before the handler is installed for it.
            unsafe {
                for (i, &sig) in SIGNALS.iter().enumerate() {
                    let mut sa: libc::sigaction = std::mem::zeroed();
                    sa.sa_sigaction =
                        on_signal as extern "C" fn(c_int, *mut libc::siginfo_t, *mut libc::c_void) as usize;
                    sa.sa_flags = libc::SA_ONSTACK | libc::SA_SIGINFO;
                    libc::sigemptyset(&mut sa.sa_mask);
                    let old = (&mut *OLD.0.get())[i].as_mut_ptr();
                    libc::sigaction(sig, &sa, old);
                }
                libc::atexit(on_exit);
            }
        });
    }

    pub fn enter(what: &str) -> bool {
        if BUSY.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return false;
        }
        let n = what.len().min(CAP);
        // SAFETY: this thread holds BUSY, so it alone writes the buffer.
        unsafe { (&mut *BUF.0.get())[..n].copy_from_slice(&what.as_bytes()[..n]) };
        // SAFETY: pthread_self has no preconditions.
        OWNER.store(unsafe { libc::pthread_self() } as usize, Ordering::Relaxed);
        LEN.store(n, Ordering::Release);
        true
    }

    pub fn leave() {
        LEN.store(0, Ordering::Release);
        BUSY.store(false, Ordering::Release);
    }

    /// The note, if this thread's call is in flight.
    fn mine() -> Option<&'static [u8]> {
        let n = LEN.load(Ordering::Acquire);
        // SAFETY: pthread_self is async-signal-safe in practice (it reads the thread pointer).
        let me = unsafe { libc::pthread_self() } as usize;
        // SAFETY: the owner thread wrote the first n bytes before publishing n.
        (n > 0 && OWNER.load(Ordering::Relaxed) == me).then(|| unsafe { &(&*BUF.0.get())[..n] })
    }

    fn say(parts: &[&[u8]]) {
        for p in parts {
            // SAFETY: write(2) of a valid buffer; async-signal-safe. A failed write cannot be reported.
            unsafe { libc::write(2, p.as_ptr().cast(), p.len()) };
        }
    }

    fn name(sig: c_int) -> &'static [u8] {
        match sig {
            libc::SIGSEGV => b"SIGSEGV",
            libc::SIGBUS => b"SIGBUS",
            libc::SIGABRT => b"SIGABRT",
            libc::SIGFPE => b"SIGFPE",
            libc::SIGILL => b"SIGILL",
            _ => b"a signal",
        }
    }

    extern "C" fn on_signal(sig: c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        let i = SIGNALS.iter().position(|&s| s == sig).unwrap_or(0);
        // SAFETY: sigaction and raise are async-signal-safe; OLD[i] was filled
        // by install; info is the kernel's (or NULL, checked).
        unsafe {
            if let Some(note) = mine() {
                say(&[b"\nerror: crashed (", name(sig), b") in ", note, b"; run with --isolate to go on\n"]);
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &sa, std::ptr::null_mut());
            } else {
                libc::sigaction(sig, (&*OLD.0.get())[i].as_ptr(), std::ptr::null_mut());
            }
            // A fault (si_code > 0) recurs when the instruction is retried on
            // return, now under the restored action (std's stack-overflow
            // message included); a sent signal (abort, raise, kill) is raised
            // again, blocked until this handler returns.
            if info.is_null() || (*info).si_code <= 0 {
                libc::raise(sig);
            }
        }
    }

    extern "C" fn on_exit() {
        if let Some(note) = mine() {
            say(&[b"\nerror: the library called exit() in ", note, b"; run with --isolate to go on\n"]);
        }
    }
}
