//! An implementation under test that is an external program speaking case
//! lines over pipes (`--target-cmd 'CMD'` of `ptx-cvt check`, `fuzz`, `sweep`).
//!
//! # Protocol
//!
//! The program is started once as `sh -c 'CMD'` and kept running. Each
//! request is one line on its stdin: a case line whose result is only `?`
//! digits, one `?` per hex digit of the destination register, so the program
//! knows the register width it must answer in:
//!
//! ```text
//! cvt.rn.f16.f32 3f801000 => ????
//! cvt.s16.s8 139231c2 => ????????      # 32-bit source and destination registers
//! ```
//!
//! Operands are hex, zero-padded to their register width (2, 4, 8 or 16
//! digits), exactly as in vectors/README.md. For every request line the program
//! writes exactly one line to stdout, in order: the same instruction and
//! operands followed by `=> <result>`, the result being exact hex with as many
//! digits as there were `?` (`cvt.rn.f16.f32 3f801000 => 3c00`). A `# comment`
//! may follow. A line starting with `error:` instead *declines* that case
//! (`error: unsupported instruction`): the program does not handle it. A
//! declined case counts as unsupported for its variant and the run goes on
//! with the next case; the program keeps running.
//!
//! Requests are pipelined: a batch of lines is written before the answers are
//! read, so the program must flush stdout after each answer (or at least
//! before it blocks reading stdin); Python: `print(..., flush=True)`. Diagnostics
//! belong on stderr, whose last lines are quoted when something goes wrong.
//! Stdin is closed when the run ends; the program should then exit.
//!
//! With `--batch-end` (opt-in, for adapters that fold a whole batch into one
//! module, as a compiler does) an empty line follows the last request of each
//! batch; it is answered by nothing. A batch is at most `--batch` cases of
//! one instruction; after a failure the rest of a batch is sent again to the
//! restarted program as a batch of its own, so also ended by an empty line.
//!
//! # Failures
//!
//! Every failure is an `Err` with a message, never a panic: the program cannot
//! be started, exits or dies (its exit status and last stderr lines are
//! quoted), answers no line within the per-case timeout (it is killed), or
//! answers something that is not the asked case (not a case line, another
//! instruction or operands, no result, not exact bits, the wrong width). After
//! any failure the program is killed; with `restart` the next call starts a
//! fresh one. A declined case is no failure. The failure belongs to the case
//! whose answer was awaited: [`crate::settle`] counts it as crashed and, with
//! `restart`, sends the unanswered rest of the batch to the fresh program.

use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

// clip: the program's text in messages, at most n characters, control characters escaped.
use ptx_cvt::accept::clip_to as clip;
use ptx_cvt::eval::fmt_hex;
use ptx_cvt::{parse_case, Cvt, Operand};

use crate::implementation::{Answer, Implementation};

/// Lines of the program's stderr kept for error messages.
const STDERR_LINES: usize = 10;
/// Characters kept of each of them.
const STDERR_LINE_CHARS: usize = 300;

/// The request line for one case: `<instr> <operands> => ????`.
pub fn request_line(c: &Cvt, operands: &[Operand], dst_width: u32) -> String {
    let mut s = c.to_string();
    for o in operands {
        s.push(' ');
        s.push_str(&fmt_hex(o.bits, o.width));
    }
    s.push_str(" => ");
    s.push_str(&"?".repeat((dst_width / 4) as usize));
    s
}

/// Check one answer line against its request: the result bits when it is
/// the complete case line asked for, a decline for `error: MESSAGE`.
pub fn check_answer(c: &Cvt, operands: &[Operand], dst_width: u32, line: &str) -> Result<Answer, String> {
    let asked = || request_line(c, operands, dst_width);
    let trimmed = line.trim();
    if let Some(msg) = trimmed.strip_prefix("error:") {
        return Ok(Answer::Declined(clip(msg.trim(), 300)));
    }
    if trimmed.is_empty() {
        return Err(format!(
            "the program answered an empty line to `{}` (expected the case line with its result)",
            asked()
        ));
    }
    let case = match parse_case(line) {
        Ok(Some(c)) => c,
        Ok(None) => {
            return Err(format!(
                "the program answered the comment line `{}` to `{}` (expected the case line with its result)",
                clip(trimmed, 120),
                asked()
            ))
        }
        Err(e) => {
            return Err(format!(
                "the program answered `{}` to `{}`: not a case line ({e})",
                clip(trimmed, 120),
                asked()
            ))
        }
    };
    if case.instr != *c {
        return Err(format!(
            "the program answered for `{}` but was asked `{}` (answers must come in request order)",
            case.instr,
            asked()
        ));
    }
    if case.operands != operands {
        let got: Vec<String> = case.operands.iter().map(|o| fmt_hex(o.bits, o.width)).collect();
        return Err(format!(
            "the program answered with operands `{}` but was asked `{}` (answers must repeat the operands, in request order)",
            got.join(" "),
            asked()
        ));
    }
    let Some(result) = case.result.as_ref().filter(|_| !case.result_is_placeholder()) else {
        return Err(format!("the program answered `{}` without a result to `{}`", clip(trimmed, 120), asked()));
    };
    if result.width != dst_width {
        return Err(format!(
            "the program answered {} {}-bit result `{result}` to `{}`: the destination register is {dst_width} bits ({} hex digits)",
            if result.width == 8 { "an" } else { "a" },
            result.width,
            asked(),
            dst_width / 4
        ));
    }
    result.single().map(Answer::Bits).ok_or_else(|| {
        format!(
            "the program answered `{result}` to `{}`: results must be exact hex bits, not a pattern or `nan`",
            asked()
        )
    })
}

/// The last lines the program wrote to stderr.
#[derive(Default)]
pub(crate) struct Tail {
    lines: VecDeque<String>,
    done: bool,
}

/// Where the program's stderr goes besides the tail kept for error
/// messages: a log file (`--adapter-log`) and/or our own stderr, live (`-v`).
#[derive(Clone, Default)]
pub struct StderrLog {
    file: Option<Arc<Mutex<std::fs::File>>>,
    live: bool,
}

impl StderrLog {
    /// Append to `path` (created if missing) and/or echo live, each line
    /// prefixed `adapter: ` on our stderr.
    pub fn new(path: Option<&std::path::Path>, live: bool) -> Result<StderrLog, String> {
        let file = match path {
            Some(p) => Some(Arc::new(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .map_err(|e| format!("--adapter-log {}: {e}", p.display()))?,
            ))),
            None => None,
        };
        Ok(StderrLog { file, live })
    }

    fn line(&self, line: &[u8]) {
        if let Some(f) = &self.file {
            if let Ok(mut f) = f.lock() {
                let _ = f.write_all(line).and_then(|_| f.write_all(b"\n"));
            }
        }
        if self.live {
            eprintln!("adapter: {}", String::from_utf8_lossy(line).trim_end_matches('\r'));
        }
    }
}

/// One running instance of the program and its pipe threads.
pub(crate) struct Running {
    pub(crate) child: Child,
    /// Batches of request text for the writer thread (which owns stdin).
    pub(crate) to_writer: Option<Sender<Vec<u8>>>,
    /// Answer lines from the reader thread; disconnected at end of stdout.
    pub(crate) answers: Receiver<Result<String, crate::lines::LineError>>,
    stderr: Arc<Mutex<Tail>>,
    /// Whether the process group was killed after the program was reaped
    /// (done once: its id could in principle be reused afterwards).
    group_killed: bool,
    /// Whether stderr also goes to a log, whose last lines must not be lost at the end.
    logged: bool,
}

impl Running {
    pub(crate) fn start(cmd: &str, log: &StderrLog) -> Result<Running, String> {
        let mut command = Command::new("sh");
        command.arg("-c").arg(cmd).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        #[cfg(unix)]
        {
            // Its own process group, so that killing it also kills what `sh` started.
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|e| format!("cannot start `sh -c {cmd:?}`: {e}"))?;
        crate::interrupt::register_group(child.id());
        let stdin: ChildStdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");

        let (to_writer, batches) = mpsc::channel::<Vec<u8>>();
        thread::spawn(move || writer(stdin, batches));
        let (tx, answers) = mpsc::channel();
        thread::spawn(move || {
            for l in crate::lines::lines(BufReader::new(stdout)) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(Tail::default()));
        let t2 = Arc::clone(&tail);
        let logged = log.file.is_some() || log.live;
        let log = log.clone();
        thread::spawn(move || stderr_tail_logged(stderr, t2, &log));
        Ok(Running { child, to_writer: Some(to_writer), answers, stderr: tail, group_killed: false, logged })
    }

    /// Kill what is left of the process group once the program has exited
    /// by itself (what it started may still run).
    fn kill_leftovers(&mut self) {
        if !self.group_killed {
            self.group_killed = true;
            kill_group(&self.child);
        }
    }

    /// Kill the program (its whole process group) and reap it.
    pub(crate) fn kill(&mut self) -> Option<ExitStatus> {
        self.to_writer = None;
        if let Ok(Some(s)) = self.child.try_wait() {
            self.kill_leftovers();
            return Some(s);
        }
        kill_group(&self.child);
        self.group_killed = true;
        let _ = self.child.kill();
        self.child.wait().ok()
    }

    /// The exit status once the program has closed stdout: waits a moment
    /// for it to exit, then kills it.
    pub(crate) fn status_after_eof(&mut self) -> (Option<ExitStatus>, bool) {
        let until = Instant::now() + Duration::from_millis(1000);
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => {
                    self.kill_leftovers();
                    return (Some(s), true);
                }
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
                _ => return (self.kill(), false),
            }
        }
    }

    /// `\n  last stderr lines:\n    …` (waits briefly for stderr to end), or
    /// a note that stderr was empty.
    pub(crate) fn stderr_text(&self) -> String {
        tail_text(&self.stderr)
    }
}

/// `\n  last stderr lines:\n    …` of a tail (waits briefly for stderr to
/// end), or a note that stderr was empty.
pub(crate) fn tail_text(tail: &Mutex<Tail>) -> String {
    let until = Instant::now() + Duration::from_millis(500);
    while !tail.lock().map(|t| t.done).unwrap_or(true) && Instant::now() < until {
        thread::sleep(Duration::from_millis(5));
    }
    let t = match tail.lock() {
        Ok(t) => t,
        Err(p) => p.into_inner(),
    };
    if t.lines.is_empty() {
        return "\n  (nothing on its stderr)".to_string();
    }
    let mut s = String::from("\n  last stderr lines:");
    for l in &t.lines {
        s.push_str("\n    ");
        s.push_str(l);
    }
    s
}

impl Drop for Running {
    fn drop(&mut self) {
        // Close stdin and give a well-behaved program a moment to exit.
        self.to_writer = None;
        if exits_soon(&mut self.child) {
            self.kill_leftovers();
        } else {
            self.kill();
        }
        if self.logged {
            // The reader thread may not have logged the last lines yet (bounded wait).
            let until = Instant::now() + Duration::from_millis(500);
            while !self.stderr.lock().map(|t| t.done).unwrap_or(true) && Instant::now() < until {
                thread::sleep(Duration::from_millis(2));
            }
        }
        crate::interrupt::unregister_group(self.child.id());
    }
}

/// Whether `child` exits within 200 ms (after its stdin was closed).
pub(crate) fn exits_soon(child: &mut Child) -> bool {
    let until = Instant::now() + Duration::from_millis(200);
    while Instant::now() < until {
        match child.try_wait() {
            Ok(Some(_)) => return true,
            Ok(None) => thread::sleep(Duration::from_millis(1)),
            Err(_) => return false,
        }
    }
    false
}

fn writer(mut stdin: ChildStdin, batches: Receiver<Vec<u8>>) {
    for b in batches {
        // A write error means the program is gone; the reader sees that too.
        if stdin.write_all(&b).and_then(|_| stdin.flush()).is_err() {
            return;
        }
    }
}

pub(crate) fn stderr_tail(r: impl Read, tail: Arc<Mutex<Tail>>) {
    stderr_tail_logged(r, tail, &StderrLog::default())
}

fn stderr_tail_logged(mut r: impl Read, tail: Arc<Mutex<Tail>>, log: &StderrLog) {
    let mut buf = [0u8; 8192];
    let mut partial: Vec<u8> = Vec::new();
    let push = |line: &[u8], tail: &Arc<Mutex<Tail>>| {
        let text = String::from_utf8_lossy(line);
        let text = clip(text.trim_end_matches('\r'), STDERR_LINE_CHARS);
        if let Ok(mut t) = tail.lock() {
            if t.lines.len() == STDERR_LINES {
                t.lines.pop_front();
            }
            t.lines.push_back(text);
        }
    };
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                for &b in &buf[..n] {
                    if b == b'\n' {
                        push(&partial, &tail);
                        log.line(&partial);
                        partial.clear();
                    } else if partial.len() < 4 * STDERR_LINE_CHARS {
                        partial.push(b);
                    }
                }
            }
        }
    }
    if !partial.is_empty() {
        push(&partial, &tail);
        log.line(&partial);
    }
    if let Ok(mut t) = tail.lock() {
        t.done = true;
    }
}

#[cfg(unix)]
fn kill_group(child: &Child) {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    const SIGKILL: i32 = 9;
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the
        // child leads (it was spawned with process_group(0)); no memory is touched.
        unsafe {
            kill(-pid, SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_child: &Child) {}

/// An external program under test, spoken to over pipes (see the module docs).
pub struct ProcessImpl {
    cmd: String,
    timeout: Duration,
    restart: bool,
    run: Option<Running>,
    /// Whether the program failed and was not restarted.
    dead: bool,
    /// Whether an empty line ends each batch (`--batch-end`).
    batch_end: bool,
    log: StderrLog,
}

impl ProcessImpl {
    /// Start `sh -c CMD`. `timeout` bounds the wait for each answer line;
    /// `restart` starts the program again on the next call after a failure.
    pub fn spawn(cmd: &str, timeout: Duration, restart: bool) -> Result<ProcessImpl, String> {
        ProcessImpl::spawn_logged(cmd, timeout, restart, StderrLog::default())
    }

    /// [`ProcessImpl::spawn`] with the program's stderr also going to `log`.
    pub fn spawn_logged(cmd: &str, timeout: Duration, restart: bool, log: StderrLog) -> Result<ProcessImpl, String> {
        let mut p =
            ProcessImpl { cmd: cmd.to_string(), timeout, restart, run: None, dead: false, batch_end: false, log };
        p.ensure_running()?;
        Ok(p)
    }

    /// End each batch with an empty line (`--batch-end`; see the module docs).
    pub fn set_batch_end(&mut self, on: bool) {
        self.batch_end = on;
    }

    fn ensure_running(&mut self) -> Result<&mut Running, String> {
        if self.run.is_none() {
            if self.dead && !self.restart {
                return Err("the program is no longer running (use --restart to start it again after a failure)".into());
            }
            self.run = Some(Running::start(&self.cmd, &self.log)?);
            self.dead = false;
        }
        Ok(self.run.as_mut().expect("just started"))
    }

    /// Evaluate a batch: the answers in order up to the first failure, and
    /// that failure if any (the program is then stopped).
    fn eval_partial(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
        let mut out = Vec::with_capacity(cases.len());
        if cases.is_empty() {
            return (out, None);
        }
        let (timeout, batch_end) = (self.timeout, self.batch_end);
        let run = match self.ensure_running() {
            Ok(r) => r,
            Err(e) => return (out, Some(e)),
        };
        let mut text = String::new();
        for (ops, w) in cases {
            text.push_str(&request_line(c, ops, *w));
            text.push('\n');
        }
        if batch_end {
            text.push('\n');
        }
        let sent = run.to_writer.as_ref().is_some_and(|t| t.send(text.into_bytes()).is_ok());
        if !sent {
            return (out, Some(self.fail("cannot write to the program's stdin".into(), false)));
        }
        for (i, (ops, w)) in cases.iter().enumerate() {
            let at = || {
                let n = cases.len();
                if n == 1 {
                    String::new()
                } else {
                    format!(" (case {} of a batch of {n}; {i} answered)", i + 1)
                }
            };
            let run = self.run.as_mut().expect("running");
            match run.answers.recv_timeout(timeout) {
                Ok(Ok(line)) => match check_answer(c, ops, *w, &line) {
                    Ok(answer) => out.push(answer),
                    Err(e) => return (out, Some(self.fail(format!("{e}{}", at()), false))),
                },
                Ok(Err(e)) => {
                    let msg =
                        format!("the program's answer to `{}`{} is unreadable: {e}", request_line(c, ops, *w), at());
                    return (out, Some(self.fail(msg, false)));
                }
                Err(RecvTimeoutError::Timeout) => {
                    let msg = format!(
                        "no answer within {} to `{}`{}; the program was killed. Is it stuck, or does it not flush stdout after each answer? (--timeout sets the limit)",
                        secs(timeout),
                        request_line(c, ops, *w),
                        at()
                    );
                    return (out, Some(self.fail(msg, true)));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let (status, exited) = run.status_after_eof();
                    let status: Option<ExitStatus> = status;
                    let how = match (status, exited) {
                        (Some(s), true) => format!("exited ({})", describe_status(s)),
                        (Some(s), false) => format!("closed its stdout and was killed ({})", describe_status(s)),
                        (None, _) => "closed its stdout".to_string(),
                    };
                    let msg = format!("the program {how} before answering `{}`{}", request_line(c, ops, *w), at());
                    return (out, Some(self.fail(msg, true)));
                }
            }
        }
        (out, None)
    }

    /// Stop the program after a failure and add what it left behind to
    /// `msg`: whether it had exited or was killed (unless `said`, when `msg`
    /// already tells), and its last stderr lines.
    fn fail(&mut self, msg: String, said: bool) -> String {
        let mut run = self.run.take().expect("running");
        let mut m = msg;
        let exited = run.child.try_wait().ok().flatten();
        run.kill();
        if !said {
            match exited {
                Some(s) => m.push_str(&format!("\n  the program had exited ({})", describe_status(s))),
                None => m.push_str("\n  the program was killed"),
            }
        }
        m.push_str(&run.stderr_text());
        self.dead = true;
        drop(run);
        m
    }
}

pub(crate) fn describe_status(s: ExitStatus) -> String {
    match s.code() {
        Some(c) => format!("exit status {c}"),
        None => format!("{s}"),
    }
}

impl Implementation for ProcessImpl {
    fn name(&self) -> String {
        format!("process: {}", self.cmd)
    }

    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<Answer, String> {
        match self.eval_partial(c, &[(operands.to_vec(), dst_width)]) {
            (mut out, None) => Ok(out.remove(0)),
            (_, Some(e)) => Err(e),
        }
    }

    fn eval_batch(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
        self.eval_partial(c, cases)
    }
}

pub(crate) fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_cvt::instr::parse;

    #[test]
    fn requests_and_answers() {
        let c = parse("cvt.s16.s8").unwrap();
        let ops = [Operand { bits: 0x1392_31c2, width: 32 }];
        assert_eq!(request_line(&c, &ops, 32), "cvt.s16.s8 139231c2 => ????????");
        assert_eq!(check_answer(&c, &ops, 32, "cvt.s16.s8 139231c2 => ffffffc2  # ok"), Ok(Answer::Bits(0xffff_ffc2)));
        assert_eq!(check_answer(&c, &ops, 32, "error: not mine"), Ok(Answer::Declined("not mine".into())));
        for (bad, want) in [
            ("", "empty line"),
            ("# hi", "comment line"),
            ("hello", "not a case line"),
            ("cvt.s32.s8 139231c2 => ffffffc2", "answered for `cvt.s32.s8`"),
            ("cvt.s16.s8 000000c2 => ffffffc2", "answered with operands `000000c2`"),
            ("cvt.s16.s8 139231c2", "without a result"),
            ("cvt.s16.s8 139231c2 => ????????", "without a result"),
            ("cvt.s16.s8 139231c2 => ffc2", "16-bit result"),
            ("cvt.s16.s8 139231c2 => ffffff??", "exact hex"),
        ] {
            let e = check_answer(&c, &ops, 32, bad).unwrap_err();
            assert!(e.contains(want), "{bad:?}: {e}");
        }
    }
}
