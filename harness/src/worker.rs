//! Isolation (`--isolate`): a shared library run in worker processes, so that
//! an abort, failed `assert`, SIGSEGV, stack overflow, `exit()` or endless
//! loop in it costs only the case in flight. The worker is this program
//! started again in a worker mode (for `ptx-cvt`: the hidden
//! `ptx-cvt __worker --target-lib LIB --symbol NAME`), which calls [`serve`];
//! [`Isolated`] is the [`Implementation`] that drives it. After a failure the
//! next call starts a new worker, and [`crate::settle`] sends it the
//! unanswered rest of the batch.
//!
//! # Protocol
//!
//! Binary over the worker's stdin and stdout, integers little-endian:
//!
//! - worker, once started: `R` (the library is loaded), or `E`, u32 length,
//!   message (it could not be; the worker exits);
//! - parent, a batch: `B`, u16 length, the instruction's canonical spelling,
//!   u32 number of cases, then per case: u8 destination width, u8 number of
//!   operands, and per operand u8 width and u64 bits;
//! - worker, per case, written as soon as it is known (one `write(2)`, so an
//!   answer never waits in a buffer a crash would lose): `A` u64 bits, or
//!   `D` u16 length, the decline's reason.
//!
//! The worker moves its stdout away from file descriptor 1 (which then goes
//! to stderr), so a library that prints cannot corrupt the protocol; its
//! stderr lines are quoted when it fails. A worker that does not answer a
//! case within the timeout is killed. On Linux a worker dies with its parent.

use std::ffi::OsString;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use ptx_cvt::{Cvt, Operand};

use crate::implementation::{Answer, Implementation};
use crate::process::{describe_status, exits_soon, request_line, secs, stderr_tail, tail_text, Tail};
use crate::shared_lib::SharedLib;

/// What the worker says, decoded by the reader thread.
enum Msg {
    Ready,
    LoadError(String),
    Answers(Vec<Answer>),
    /// Bytes that are no frame: a broken worker.
    Garbage(String),
}

/// One running worker and its pipe threads.
struct Worker {
    child: Child,
    to_writer: Option<Sender<Vec<u8>>>,
    msgs: Receiver<Msg>,
    stderr: Arc<Mutex<Tail>>,
}

impl Worker {
    fn start(program: &Path, args: &[OsString], timeout: Duration) -> Result<Worker, String> {
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        #[cfg(unix)]
        {
            // Its own process group: the terminal's Ctrl-C stops the run
            // between batches (interrupt.rs) instead of killing the worker.
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|e| format!("cannot start the worker `{}`: {e}", program.display()))?;
        crate::interrupt::register_group(child.id());
        let stdin: ChildStdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (to_writer, batches) = mpsc::channel::<Vec<u8>>();
        thread::spawn(move || {
            let mut stdin = stdin;
            for b in batches {
                // A write error means the worker is gone; the reader sees that too.
                if stdin.write_all(&b).and_then(|_| stdin.flush()).is_err() {
                    return;
                }
            }
        });
        let (tx, msgs) = mpsc::channel();
        thread::spawn(move || read_frames(stdout, tx));
        let tail = Arc::new(Mutex::new(Tail::default()));
        let t2 = Arc::clone(&tail);
        thread::spawn(move || stderr_tail(stderr, t2));
        let mut w = Worker { child, to_writer: Some(to_writer), msgs, stderr: tail };
        match w.msgs.recv_timeout(timeout) {
            Ok(Msg::Ready) => Ok(w),
            Ok(Msg::LoadError(e)) => {
                w.kill();
                Err(e)
            }
            Ok(_) => Err(w.failed("the worker did not start properly (it wrote something that is not the protocol)")),
            Err(RecvTimeoutError::Timeout) => {
                Err(w.failed(&format!("the worker did not load the library within {}", secs(timeout))))
            }
            Err(RecvTimeoutError::Disconnected) => Err(w.died("while loading the library")),
        }
    }

    fn kill(&mut self) {
        self.to_writer = None;
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }

    /// Kill the worker; `msg` and its last stderr lines.
    fn failed(&mut self, msg: &str) -> String {
        self.kill();
        format!("{msg}{}", tail_text(&self.stderr))
    }

    /// The message for a worker that closed its stdout: how it ended.
    fn died(&mut self, doing: &str) -> String {
        let until = Instant::now() + Duration::from_millis(1000);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(2)),
                _ => break None,
            }
        };
        self.kill();
        let how = match status {
            Some(s) => format!("the worker died ({})", describe_status(s)),
            None => "the worker closed its stdout and was killed".into(),
        };
        format!("{how} {doing}{}", tail_text(&self.stderr))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing stdin ends a well-behaved worker; give it a moment.
        self.to_writer = None;
        if !exits_soon(&mut self.child) {
            self.kill();
        }
        crate::interrupt::unregister_group(self.child.id());
    }
}

/// Decode the worker's frames; a disconnect means end of its stdout.
fn read_frames(mut r: impl Read, tx: Sender<Msg>) {
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        buf.extend_from_slice(&chunk[..n]);
        let mut at = 0;
        let mut answers = Vec::new();
        let mut other = None;
        while let Some((msg, len)) = frame(&buf[at..]) {
            at += len;
            match msg {
                Msg::Answers(mut a) => answers.append(&mut a),
                m => {
                    other = Some(m);
                    break;
                }
            }
        }
        buf.drain(..at);
        if !answers.is_empty() && tx.send(Msg::Answers(answers)).is_err() {
            return;
        }
        if let Some(m) = other {
            let end = matches!(m, Msg::Garbage(_));
            if tx.send(m).is_err() || end {
                return;
            }
        }
    }
}

/// The first frame of `b` and its length, or None when it is incomplete.
fn frame(b: &[u8]) -> Option<(Msg, usize)> {
    let tag = *b.first()?;
    let le16 = |i: usize| b.get(i..i + 2).map(|x| u16::from_le_bytes([x[0], x[1]]) as usize);
    match tag {
        b'R' => Some((Msg::Ready, 1)),
        b'A' => {
            let x = b.get(1..9)?;
            Some((Msg::Answers(vec![Answer::Bits(u64::from_le_bytes(x.try_into().expect("8 bytes")))]), 9))
        }
        b'D' => {
            let n = le16(1)?;
            let text = b.get(3..3 + n)?;
            Some((Msg::Answers(vec![Answer::Declined(String::from_utf8_lossy(text).into_owned())]), 3 + n))
        }
        b'E' => {
            let n = u32::from_le_bytes(b.get(1..5)?.try_into().expect("4 bytes")) as usize;
            let text = b.get(5..5 + n)?;
            Some((Msg::LoadError(String::from_utf8_lossy(text).into_owned()), 5 + n))
        }
        t => Some((Msg::Garbage(format!("byte {t:#04x} where a frame should start")), b.len())),
    }
}

/// A shared library run in worker processes (see the module docs).
pub struct Isolated {
    program: PathBuf,
    args: Vec<OsString>,
    name: String,
    symbol: String,
    timeout: Duration,
    run: Option<Worker>,
}

impl Isolated {
    /// Start the first worker, `program args…` (which must call [`serve`]);
    /// its load error, if any, is the `Err`. `name` is for reports, `symbol`
    /// the function's name in messages, `timeout` the longest wait for one
    /// answer (or for the library to load).
    pub fn spawn(
        program: &Path,
        args: Vec<OsString>,
        name: String,
        symbol: &str,
        timeout: Duration,
    ) -> Result<Isolated, String> {
        let run = Some(Worker::start(program, &args, timeout)?);
        Ok(Isolated { program: program.to_path_buf(), args, name, symbol: symbol.to_string(), timeout, run })
    }
}

/// The request frame of a batch.
fn encode(c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> Vec<u8> {
    let instr = c.to_string();
    let mut b = Vec::with_capacity(8 + instr.len() + cases.len() * 11);
    b.push(b'B');
    b.extend_from_slice(&(instr.len() as u16).to_le_bytes());
    b.extend_from_slice(instr.as_bytes());
    b.extend_from_slice(&(cases.len() as u32).to_le_bytes());
    for (ops, w) in cases {
        b.push(*w as u8);
        b.push(ops.len() as u8);
        for o in ops {
            b.push(o.width as u8);
            b.extend_from_slice(&o.bits.to_le_bytes());
        }
    }
    b
}

impl Implementation for Isolated {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<Answer, String> {
        match self.eval_batch(c, &[(operands.to_vec(), dst_width)]) {
            (mut out, None) if !out.is_empty() => Ok(out.remove(0)),
            (_, e) => Err(e.unwrap_or_else(|| "no answer".into())),
        }
    }

    fn eval_batch(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
        let mut out = Vec::with_capacity(cases.len());
        if cases.is_empty() {
            return (out, None);
        }
        if self.run.is_none() {
            match Worker::start(&self.program, &self.args, self.timeout) {
                Ok(w) => self.run = Some(w),
                Err(e) => return (out, Some(format!("no new worker: {e}"))),
            }
        }
        let w = self.run.as_mut().expect("running");
        let sent = w.to_writer.as_ref().is_some_and(|t| t.send(encode(c, cases)).is_ok());
        let asked = |i: usize| request_line(c, &cases[i].0, cases[i].1);
        let failure = if sent {
            loop {
                if out.len() >= cases.len() {
                    break None;
                }
                match w.msgs.recv_timeout(self.timeout) {
                    Ok(Msg::Answers(a)) if out.len() + a.len() <= cases.len() => out.extend(a),
                    Ok(m) => {
                        let what = match m {
                            Msg::Garbage(g) => g,
                            _ => "more answers than cases, or a stray frame".into(),
                        };
                        let e = format!("the worker broke the protocol ({what}) on `{}`", asked(out.len()));
                        break Some(w.failed(&e));
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        let e = format!(
                            "no answer in {} from {} on `{}`; the worker was killed (--timeout sets the limit)",
                            secs(self.timeout),
                            self.symbol,
                            asked(out.len())
                        );
                        break Some(w.failed(&e));
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        break Some(w.died(&format!("in {} on `{}`", self.symbol, asked(out.len()))));
                    }
                }
            }
        } else {
            Some(w.died(&format!("before it was sent `{}`", asked(0))))
        };
        if failure.is_some() {
            self.run = None;
        }
        (out, failure)
    }
}

/// Worker mode: load the library and answer batches on stdin/stdout until
/// stdin ends (see the module docs). The exit status: 0 at the end of
/// stdin, 2 when the library cannot be loaded or the parent broke the
/// protocol.
pub fn serve(path: &Path, symbol: &str) -> u8 {
    let mut out = match protocol_out() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: worker: {e}");
            return 2;
        }
    };
    let mut lib = match SharedLib::open(path, symbol) {
        Ok(l) => l,
        Err(e) => {
            let mut f = vec![b'E'];
            f.extend_from_slice(&(e.len() as u32).to_le_bytes());
            f.extend_from_slice(e.as_bytes());
            let _ = out.write_all(&f);
            return 2;
        }
    };
    if out.write_all(b"R").is_err() {
        return 2;
    }
    let mut input = BufReader::new(std::io::stdin().lock());
    match answer_batches(&mut lib, &mut input, &mut out) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: worker: {e}");
            2
        }
    }
}

/// The protocol's stdout, with descriptor 1 pointed at stderr from now on.
#[cfg(unix)]
fn protocol_out() -> Result<std::fs::File, String> {
    use std::os::fd::FromRawFd;
    // SAFETY: dup/dup2/prctl on the process's own descriptors; the new
    // descriptor is owned by the returned File alone.
    unsafe {
        #[cfg(target_os = "linux")]
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let fd = libc::dup(1);
        if fd < 0 || libc::dup2(2, 1) < 0 {
            return Err(format!("cannot move stdout aside: {}", std::io::Error::last_os_error()));
        }
        Ok(std::fs::File::from_raw_fd(fd))
    }
}

#[cfg(not(unix))]
fn protocol_out() -> Result<std::fs::File, String> {
    Err("worker mode needs a Unix system".into())
}

fn answer_batches(lib: &mut SharedLib, input: &mut impl Read, out: &mut impl Write) -> Result<(), String> {
    let mut tag = [0u8; 1];
    loop {
        match input.read(&mut tag) {
            Ok(0) => return Ok(()),
            Ok(_) if tag[0] == b'B' => {}
            Ok(_) => return Err(format!("byte {:#04x} where a batch should start", tag[0])),
            Err(e) => return Err(format!("cannot read stdin: {e}")),
        }
        let n = u16::from_le_bytes(read_n(input)?) as usize;
        let mut text = vec![0u8; n];
        input.read_exact(&mut text).map_err(|e| format!("cut short: {e}"))?;
        let text = String::from_utf8(text).map_err(|_| "the instruction is not UTF-8".to_string())?;
        let c = ptx_cvt::instr::parse(&text).map_err(|e| format!("instruction `{text}`: {e}"))?;
        let cases = u32::from_le_bytes(read_n(input)?);
        let mut ops = Vec::new();
        for _ in 0..cases {
            let [w, k] = read_n(input)?;
            ops.clear();
            for _ in 0..k {
                let [width] = read_n(input)?;
                let bits = u64::from_le_bytes(read_n(input)?);
                ops.push(Operand { bits, width: width as u32 });
            }
            let frame = match lib.eval(&c, &ops, w as u32) {
                Ok(Answer::Bits(b)) => {
                    let mut f = vec![b'A'];
                    f.extend_from_slice(&b.to_le_bytes());
                    f
                }
                Ok(Answer::Declined(why)) | Err(why) => {
                    let why = &why.as_bytes()[..why.len().min(u16::MAX as usize)];
                    let mut f = vec![b'D'];
                    f.extend_from_slice(&(why.len() as u16).to_le_bytes());
                    f.extend_from_slice(why);
                    f
                }
            };
            out.write_all(&frame).map_err(|e| format!("cannot write the answer: {e}"))?;
        }
    }
}

fn read_n<const N: usize>(r: &mut impl Read) -> Result<[u8; N], String> {
    let mut b = [0u8; N];
    r.read_exact(&mut b).map_err(|e| format!("batch cut short: {e}"))?;
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_decode_whole_or_not_at_all() {
        let mut b = vec![b'A'];
        b.extend_from_slice(&0x3c00u64.to_le_bytes());
        b.extend_from_slice(&[b'D', 3, 0]);
        b.extend_from_slice(b"why");
        let (m, n) = frame(&b).unwrap();
        assert!(matches!(m, Msg::Answers(ref a) if a == &[Answer::Bits(0x3c00)]) && n == 9);
        let (m, n) = frame(&b[9..]).unwrap();
        assert!(matches!(m, Msg::Answers(ref a) if a == &[Answer::Declined("why".into())]) && n == 6);
        for cut in [1, 8] {
            assert!(frame(&b[..cut]).is_none(), "a frame cut at {cut} waits for more");
        }
        assert!(frame(&b[9..13]).is_none());
        assert!(matches!(frame(b"R"), Some((Msg::Ready, 1))));
        assert!(matches!(frame(b"x"), Some((Msg::Garbage(_), 1))));
    }

    #[test]
    fn requests_encode_every_operand() {
        let c = ptx_cvt::instr::parse("cvt.rn.f16x2.f32").unwrap();
        let ops = vec![Operand { bits: 1, width: 32 }, Operand { bits: 2, width: 32 }];
        let b = encode(&c, &[(ops, 32)]);
        let name = c.to_string();
        assert_eq!(b[0], b'B');
        assert_eq!(&b[3..3 + name.len()], name.as_bytes());
        let rest = &b[3 + name.len()..];
        assert_eq!(&rest[..4], &1u32.to_le_bytes());
        assert_eq!(&rest[4..6], &[32, 2]);
        assert_eq!(rest.len(), 4 + 2 + 2 * 9);
    }
}
