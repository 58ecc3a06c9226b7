//! End-to-end tests of the `ptx-cvt` command line (tools/), run as a child
//! process: exit codes, messages that name the offending line, streaming, and
//! hostile input. No test may see a panic.
//!
//! The tests crate does not depend on the tools crate, so the binary is built
//! once per test process with `cargo build -p ptx-cvt-cli` (dev profile) and
//! run from `<target dir>/debug/ptx-cvt`. `PTX_CVT_BIN=/path/to/ptx-cvt`
//! overrides that (no build).
//!
//! Sources of the known answers: vectors/README.md (case-line format and its
//! examples) and docs/semantics.md §4/§5.3 as cited in vectors/known-answers/sm90.cases.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

use ptx_cvt_tests::{bin, workspace};

/// Upper bound for any single command.
const DEADLINE: Duration = Duration::from_secs(60);

struct Run {
    what: String,
    code: Option<i32>,
    out: String,
    err: String,
    raw_err: Vec<u8>,
    secs: f64,
}

impl Run {
    fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "{}: exit status\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            clip(&self.out),
            clip(&self.err)
        );
        self
    }
    fn out_has(&self, needle: &str) -> &Self {
        assert!(
            self.out.contains(needle),
            "{}: stdout lacks {needle:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            clip(&self.out),
            clip(&self.err)
        );
        self
    }
    fn err_has(&self, needle: &str) -> &Self {
        assert!(self.err.contains(needle), "{}: stderr lacks {needle:?}\n--- stderr\n{}", self.what, clip(&self.err));
        self
    }
    fn err_empty(&self) -> &Self {
        assert!(self.err.is_empty(), "{}: unexpected stderr\n{}", self.what, clip(&self.err));
        self
    }
    fn out_lines(&self) -> Vec<&str> {
        self.out.lines().collect()
    }
    fn last_out_line(&self) -> &str {
        self.out.lines().last().unwrap_or("")
    }
}

fn clip(s: &str) -> String {
    if s.len() <= 4000 {
        s.to_string()
    } else {
        let mut end = 4000;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes)", &s[..end], s.len())
    }
}

fn describe(args: &[&str]) -> String {
    let shown: Vec<String> =
        args.iter().map(|a| if a.len() > 60 { format!("<{} bytes>", a.len()) } else { format!("{a:?}") }).collect();
    format!("ptx-cvt {}", shown.join(" "))
}

fn spawn(args: &[&str], stdin: bool) -> Child {
    Command::new(bin())
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ptx-cvt")
}

/// Collect a child's output, keeping at most `cap` bytes (the rest is drained
/// so a runaway child cannot block on a full pipe or exhaust our memory).
fn reader<R: Read + Send + 'static>(r: Option<R>, cap: usize) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(mut r) = r {
            let mut buf = [0u8; 64 * 1024];
            loop {
                match r.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let keep = n.min(cap.saturating_sub(v.len()));
                        v.extend_from_slice(&buf[..keep]);
                    }
                }
            }
        }
        v
    })
}

/// Wait for a child with a deadline (killing it after), collecting output.
fn finish(child: Child, what: String, writer: Option<thread::JoinHandle<()>>, start: Instant) -> Run {
    finish_within(child, what, writer, start, DEADLINE)
}

fn finish_within(
    mut child: Child,
    what: String,
    writer: Option<thread::JoinHandle<()>>,
    start: Instant,
    deadline: Duration,
) -> Run {
    let out = reader(child.stdout.take(), 64 << 20);
    let err = reader(child.stderr.take(), 1 << 20);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for ptx-cvt") {
            break s;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {deadline:?}; killed");
        }
        thread::sleep(Duration::from_millis(2));
    };
    let secs = start.elapsed().as_secs_f64();
    if let Some(w) = writer {
        let _ = w.join();
    }
    let out = out.join().unwrap();
    let raw_err = err.join().unwrap();
    let r = Run {
        what,
        code: status.code(),
        out: String::from_utf8_lossy(&out).into_owned(),
        err: String::from_utf8_lossy(&raw_err).into_owned(),
        raw_err,
        secs,
    };
    assert_no_panic(&r);
    r
}

fn assert_no_panic(r: &Run) {
    assert!(
        !r.err.contains("panicked") && r.code != Some(101) && r.code.is_some(),
        "{}: ptx-cvt panicked or was killed (status {:?})\n--- stderr\n{}",
        r.what,
        r.code,
        clip(&r.err)
    );
}

/// Run with arguments and optional stdin bytes (written from a thread, so
/// large inputs and outputs cannot deadlock).
fn run_in(args: &[&str], input: Option<Vec<u8>>) -> Run {
    let start = Instant::now();
    let mut child = spawn(args, input.is_some());
    let writer = input.map(|bytes| {
        let mut w = child.stdin.take().unwrap();
        thread::spawn(move || {
            let _ = w.write_all(&bytes); // the child may stop reading early
        })
    });
    finish(child, describe(args), writer, start)
}

fn run(args: &[&str]) -> Run {
    run_in(args, None)
}

fn run_stdin(args: &[&str], input: impl Into<Vec<u8>>) -> Run {
    run_in(args, Some(input.into()))
}

/// A scratch file, deleted when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str, contents: impl AsRef<[u8]>) -> TempFile {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("ptx-cvt-cli-{}-{n}-{tag}.cases", std::process::id()));
        std::fs::write(&p, contents).expect("write temp file");
        TempFile(p)
    }
    fn path(&self) -> &str {
        self.0.to_str().expect("temp path is UTF-8")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Zero operands at the natural widths of the form's sources (space-separated).
fn zero_operand(instr: &str) -> String {
    let c = ptx_cvt::instr::parse(instr).expect("listed spelling parses");
    let shape = ptx_cvt::instr::shape(&c);
    shape.srcs.iter().map(|w| "0".repeat(*w as usize / 4)).collect::<Vec<_>>().join(" ")
}

// --- a minimal JSON reader (std only, so the lock file is untouched) ---------

#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

impl Json {
    fn parse(text: &str) -> Result<Json, String> {
        let mut p = JsonParser { s: text.as_bytes(), i: 0 };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing text at byte {}", p.i));
        }
        Ok(v)
    }
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(m) => m.get(key).unwrap_or_else(|| panic!("no key {key:?} in {self:?}")),
            _ => panic!("not an object: {self:?}"),
        }
    }
    fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => panic!("not a string: {self:?}"),
        }
    }
    fn num(&self) -> f64 {
        match self {
            Json::Num(n) => *n,
            _ => panic!("not a number: {self:?}"),
        }
    }
    fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(a) => a,
            _ => panic!("not an array: {self:?}"),
        }
    }
}

struct JsonParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn eat(&mut self, b: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", b as char, self.i))
        }
    }
    fn lit(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(format!("bad literal at byte {}", self.i))
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i).copied() {
            Some(b'{') => {
                self.i += 1;
                let mut m = BTreeMap::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(m));
                }
                loop {
                    self.ws();
                    let Json::Str(k) = self.string()? else { unreachable!() };
                    self.eat(b':')?;
                    let v = self.value()?;
                    m.insert(k, v);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(m));
                        }
                        _ => return Err(format!("expected , or }} at byte {}", self.i)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(a));
                }
                loop {
                    a.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(a));
                        }
                        _ => return Err(format!("expected , or ] at byte {}", self.i)),
                    }
                }
            }
            Some(b'"') => self.string(),
            Some(b't') => self.lit("true", Json::Bool(true)),
            Some(b'f') => self.lit("false", Json::Bool(false)),
            Some(b'n') => self.lit("null", Json::Null),
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                let st = self.i;
                while self.i < self.s.len() && matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[st..self.i]).unwrap();
                t.parse().map(Json::Num).map_err(|_| format!("bad number {t:?}"))
            }
            _ => Err(format!("unexpected input at byte {}", self.i)),
        }
    }
    fn string(&mut self) -> Result<Json, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return Err(format!("expected string at byte {}", self.i));
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let c = *self.s.get(self.i).ok_or("unterminated string")?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).map(Json::Str).map_err(|_| "bad UTF-8".to_string()),
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or("bad escape")?;
                    self.i += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let h = std::str::from_utf8(self.s.get(self.i..self.i + 4).ok_or("bad \\u")?).unwrap();
                            let cp = u32::from_str_radix(h, 16).map_err(|_| "bad \\u")?;
                            self.i += 4;
                            let ch = char::from_u32(cp).unwrap_or('\u{fffd}');
                            out.extend_from_slice(ch.to_string().as_bytes());
                        }
                        _ => return Err("bad escape".into()),
                    }
                }
                c if c < 0x20 => return Err("control character in string".into()),
                c => out.push(c),
            }
        }
    }
}

fn json(line: &str) -> Json {
    Json::parse(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

// ---------------------------------------------------------------------------
// eval: single conversions
// ---------------------------------------------------------------------------

#[test]
fn eval_known_answers() {
    // vectors/README.md and docs/semantics.md §5.3 (as cited in vectors/known-answers/sm90.cases).
    for (args, want) in [
        (&["eval", "cvt.rn.f16.f32", "3f800000"][..], "3c00"), // 1.0f → 1.0h
        (&["eval", "cvt.rzi.s32.f64", "7ff8000000000000"][..], "80000000"), // [HW] NaN from f64 → 1<<31
        (&["eval", "cvt.s16.s8", "139231c2", "--dst-width", "32"][..], "ffffffc2"), // [HW] docs/semantics.md §4: chop, sign-extend
        (&["eval", "cvt.s16.s8", "139231c2"][..], "ffc2"),                          // natural 16-bit destination
        (&["eval", "cvt.rzi.s32.f32", "7fc00000"][..], "00000000"),                 // NaN from f32 → 0 (PTX ISA)
        (&["eval", "cvt.s8.f32.rni.sat", "3f800000"][..], "01"), // modifiers after the types (README)
        (&["eval", "cvt.rn.f16.f32", "3F800000"][..], "3c00"),   // upper-case hex accepted (README grammar)
        (&["eval", "cvt.rn.f16.f32", "000000003f800000"][..], "3c00"), // wider source register: low bits
    ] {
        let r = run(args);
        r.expect_code(0).err_empty();
        assert_eq!(r.out, format!("{want}\n"), "{}", r.what);
    }
}

#[test]
fn eval_json_single() {
    let r = run(&["eval", "--json", "cvt.rn.f16.f32", "3f800000"]);
    r.expect_code(0).err_empty();
    let lines = r.out_lines();
    assert_eq!(lines.len(), 1, "{}", r.out);
    let j = json(lines[0]);
    assert_eq!(j.get("result").str(), "3c00");
    assert_eq!(j.get("instruction").str(), "cvt.rn.f16.f32");
    assert_eq!(j.get("profile").str(), "sm90");
}

#[test]
fn eval_profiles_differ_on_nan_payload() {
    // sm90 gives NVIDIA's canonical NaN; the ISA profile accepts any NaN.
    run(&["eval", "cvt.rn.f16.f32", "7fc00001"]).expect_code(0).out_has("7fff");
    let r = run(&["eval", "--profile", "isa", "cvt.rn.f16.f32", "7fc00001"]);
    r.expect_code(0);
    assert_eq!(r.out, "nan\n");
    run(&["eval", "--profile", "bogus", "cvt.rn.f16.f32", "7fc00001"]).expect_code(2).err_has("bogus");
}

#[test]
fn eval_bad_options_are_usage_errors() {
    run(&["eval", "--dst-width", "12", "cvt.s16.s8", "c2"]).expect_code(2).err_has("12");
    run(&["eval", "--target", "sm_999", "cvt.s16.s8", "c2"]).expect_code(2).err_has("sm_999");
    run(&["eval", "--ptx-version", "banana", "cvt.s16.s8", "c2"]).expect_code(2).err_has("banana");
    run(&["eval", "--target", "sm_90", "--ptx-version", "7.0", "cvt.rn.f16.f32", "3f800000"])
        .expect_code(2)
        .err_has("7.8");
    run(&["eval", "--dst-width", "8", "cvt.rn.f16.f32", "3f800000"])
        .expect_code(2)
        .err_has("destination register of 8 bits");
}

// ---------------------------------------------------------------------------
// eval: streaming stdin → case lines
// ---------------------------------------------------------------------------

#[test]
fn eval_stream_writes_complete_case_lines() {
    let input = concat!(
        "cvt.rn.f16.f32 3f800000\n",
        "\n",
        "# a comment line\n",
        "   # indented comment\n",
        "cvt.s16.s8 c2 => ????????\n",               // vectors/README.md: width request
        "cvt.s16.s8 139231c2 => ????????\r\n",       // CRLF, 32-bit source register
        "\r\n",                                      // blank CRLF line
        "cvt.s8.f32.rni.sat 3f800000 # comment\r\n", // canonical spelling on output
        "cvt.rn.f16.f32\t3f800000\t=>\t????????\n",  // tabs; wider destination
        "cvt.rzi.s32.f64 7ff8000000000000",          // no final newline
    );
    let r = run_stdin(&["eval"], input);
    r.expect_code(0).err_empty();
    assert_eq!(
        r.out_lines(),
        [
            "cvt.rn.f16.f32 3f800000 => 3c00",
            "cvt.s16.s8 c2 => ffffffc2",
            "cvt.s16.s8 139231c2 => ffffffc2",
            "cvt.rni.sat.s8.f32 3f800000 => 01",
            "cvt.rn.f16.f32 3f800000 => 00003c00",
            "cvt.rzi.s32.f64 7ff8000000000000 => 80000000",
        ]
    );
    // What eval writes, check accepts.
    let c = run_stdin(&["check", "-"], r.out.clone());
    c.expect_code(0);
    assert_eq!(c.last_out_line(), "6 passed, 0 failed");
}

#[test]
fn eval_stream_json() {
    let r = run_stdin(&["eval", "--json"], "# c\ncvt.rn.f16.f32 3f800000\n\ncvt.s16.s8 c2 => ????????\n");
    r.expect_code(0).err_empty();
    let lines = r.out_lines();
    assert_eq!(lines.len(), 3, "{}", r.out);
    assert_eq!(json(lines[2]).get("summary").get("evaluated").num(), 2.0);
    let a = json(lines[0]);
    assert_eq!(a.get("line").num(), 2.0);
    assert_eq!(a.get("result").str(), "3c00");
    assert_eq!(a.get("operands").arr(), [Json::Str("3f800000".into())]);
    let b = json(lines[1]);
    assert_eq!(b.get("line").num(), 4.0);
    assert_eq!(b.get("instruction").str(), "cvt.s16.s8");
    assert_eq!(b.get("result").str(), "ffffffc2");
}

#[test]
fn eval_stream_reports_bad_lines_and_goes_on() {
    let r = run_stdin(&["eval"], "cvt.rn.f16.f32 3f800000\nbogus 00\ncvt.rn.f16.f32 3f80\ncvt.s16.s8 c2\n");
    r.expect_code(2)
        .err_has("<stdin>:2: error:")
        .err_has("not a cvt instruction")
        .err_has("<stdin>:3: error:")
        .err_has("source register of 16 bits cannot hold a f32")
        .err_has("2 line(s) could not be evaluated");
    assert_eq!(r.out_lines(), ["cvt.rn.f16.f32 3f800000 => 3c00", "cvt.s16.s8 c2 => ffc2"]);
}

#[test]
fn eval_stream_200k_lines() {
    let mut input = String::with_capacity(200_000 * 25);
    let mut x: u32 = 0x1234_5678;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        input.push_str(&format!("cvt.rn.f16.f32 {x:08x}\n"));
    }
    input.push_str("cvt.rn.f16.f32 3f801000\n"); // a tie: ties to even → 3c00
    let r = run_stdin(&["eval"], input);
    r.expect_code(0).err_empty();
    let lines = r.out_lines();
    assert_eq!(lines.len(), 200_001);
    assert!(lines
        .iter()
        .all(|l| l.starts_with("cvt.rn.f16.f32 ") && l.len() == "cvt.rn.f16.f32 00000000 => 0000".len()));
    assert_eq!(*lines.last().unwrap(), "cvt.rn.f16.f32 3f801000 => 3c00");
    assert!(r.secs < 20.0, "200k lines took {:.1} s", r.secs);
}

#[test]
fn eval_stream_stops_quietly_when_stdout_closes() {
    // The reader goes away before any output: eval must stop without a panic.
    let start = Instant::now();
    let mut child = spawn(&["eval"], true);
    drop(child.stdout.take());
    let mut w = child.stdin.take().unwrap();
    let writer = thread::spawn(move || {
        let line = b"cvt.rn.f16.f32 3f800000\n".repeat(50_000);
        let _ = w.write_all(&line);
    });
    let r = finish(child, "ptx-cvt eval (stdout closed)".into(), Some(writer), start);
    r.expect_code(0);
}

#[test]

fn eval_stream_honours_or_rejects_dst_width() {
    // `--dst-width 32` is accepted in stdin mode but has no effect (tools/src/eval.rs
    // `stream` never looks at it). Either apply it to lines without a `=> ????` width
    // request or reject the flag without an instruction.
    let r = run_stdin(&["eval", "--dst-width", "32"], "cvt.s16.s8 c2\n");
    let applied = r.code == Some(0) && r.out == "cvt.s16.s8 c2 => ffffffc2\n";
    let rejected = r.code == Some(2) && r.err.contains("dst-width");
    assert!(applied || rejected, "{}: status {:?}, stdout {:?}, stderr {:?}", r.what, r.code, r.out, r.err);
}

// ---------------------------------------------------------------------------
// check
// ---------------------------------------------------------------------------

const GOOD: &str = concat!(
    "# vectors/README.md examples\n",
    "cvt.rn.f16.f32 3f800000 => 3c00\n",
    "cvt.rzi.s32.f64 7ff8000000000000 => 80000000   # NaN from f64: 1<<31\n",
    "cvt.s16.s8 139231c2 => ffffffc2                  # 32-bit registers\n",
    "cvt.f64.bf16 7fc1 => nan                         # any NaN is correct\n",
    "\n",
    "cvt.rn.f16.f32 3f801000 => 3c00\r\n", // tie to even, CRLF
    "cvt.rn.f16.f32 3f800000 => 3C00\n",   // upper-case result
);

#[test]
fn check_correct_file_passes() {
    let good = GOOD.to_string();
    let f = TempFile::new("good", &good);
    let r = run(&["check", f.path()]);
    r.expect_code(0).err_empty();
    assert_eq!(r.out_lines(), ["6 passed, 0 failed"]);
    // Same through stdin, and the ISA profile accepts the sm90 answers too.
    let r = run_stdin(&["check", "-"], good.clone());
    r.expect_code(0);
    assert_eq!(r.last_out_line(), "6 passed, 0 failed");
    run_stdin(&["check", "--profile", "isa", "-"], good).expect_code(0);
}

#[test]
fn check_looser_pattern_is_a_mismatch() {
    // README: a set in the file passes only when it is no looser than the oracle's.
    let f = TempFile::new("loose", "cvt.rn.f16.f32 3f800000 => 3c??\n");
    let r = run(&["check", f.path()]);
    r.expect_code(1).out_has(":1: MISMATCH").out_has("3c??");
    assert_eq!(r.last_out_line(), "0 passed, 1 failed");
}

#[test]
fn check_known_answer_files() {
    let ws = workspace();
    for (file, profile) in [("vectors/known-answers/sm90.cases", "sm90"), ("vectors/known-answers/isa.cases", "isa")] {
        let path = ws.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let n = text
            .lines()
            .filter(|l| {
                let body = l.split('#').next().unwrap().trim();
                !body.is_empty()
            })
            .count();
        let r = run(&["check", "--profile", profile, path.to_str().unwrap()]);
        r.expect_code(0);
        assert_eq!(r.last_out_line(), format!("{n} passed, 0 failed"), "{file}");
    }
}

/// 20 correct lines from `eval`, for planting errors in.
fn correct_lines() -> Vec<String> {
    let mut input = String::new();
    for i in 0..20u32 {
        match i % 4 {
            0 => input.push_str(&format!("cvt.rn.f16.f32 {:08x}\n", 0x3f80_0000 + i * 0x1000)),
            1 => input.push_str(&format!(
                "cvt.rzi.s32.f64 {:016x}\n",
                0x4000_0000_0000_0000u64 + (i as u64) * 0x1_0000_0000_0000
            )),
            2 => input.push_str(&format!("cvt.s16.s8 {:08x} => ????????\n", 0x1392_3100 + i)),
            _ => input.push_str(&format!("cvt.rn.bf16.f32 {:08x}\n", 0xc000_0000u32 + i * 0x777)),
        }
    }
    let r = run_stdin(&["eval"], input);
    r.expect_code(0);
    r.out.lines().map(str::to_string).collect()
}

/// Flip the lowest result bit of a case line.
fn plant(line: &str) -> String {
    let (head, res) = line.rsplit_once(' ').unwrap();
    let v = u64::from_str_radix(res, 16).unwrap() ^ 1;
    format!("{head} {v:0w$x}", w = res.len())
}

#[test]
fn check_pinpoints_planted_errors() {
    let mut lines = correct_lines();
    let planted = [3usize, 8, 14, 20]; // 1-based line numbers
    for &n in &planted {
        lines[n - 1] = plant(&lines[n - 1]);
    }
    let text = lines.join("\n") + "\n";
    let f = TempFile::new("planted", &text);
    // --all: every mismatch (by default only the first of each bug class).
    let r = run(&["check", "--all", f.path()]);
    r.expect_code(1).err_empty().out_has("expected").out_has("got");
    let reported: Vec<usize> = r
        .out
        .lines()
        .filter(|l| l.contains(": MISMATCH "))
        .map(|l| {
            let rest = l.strip_prefix(f.path()).and_then(|s| s.strip_prefix(':')).expect("mismatch names the file");
            rest.split(':').next().unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(reported, planted, "{}", r.out);
    assert_eq!(r.last_out_line(), "16 passed, 4 failed");
    // Each mismatch block shows expected and got; `got` is the planted value.
    for &n in &planted {
        let got = lines[n - 1].rsplit(' ').next().unwrap();
        assert!(r.out.contains(&format!("  got      {got}")), "line {n}: {}", r.out);
    }

    // --quiet: the summary only.
    let q = run(&["check", "-q", f.path()]);
    q.expect_code(1);
    assert_eq!(q.out_lines(), ["16 passed, 4 failed"]);

    // --json: one {"mismatch": …} per mismatch, then one {"summary": …}.
    let j = run(&["check", "--json", "--all", f.path()]);
    j.expect_code(1);
    let out = j.out_lines();
    assert_eq!(out.len(), planted.len() + 1, "{}", j.out);
    for (k, &n) in planted.iter().enumerate() {
        let o = json(out[k]);
        let o = o.get("mismatch");
        assert_eq!(o.get("line").num(), n as f64);
        assert_eq!(o.get("got").str(), lines[n - 1].rsplit(' ').next().unwrap());
        assert_eq!(o.get("file").str(), f.path());
        let _ = o.get("expected").str();
        let _ = o.get("rule").str();
    }
    let summary = json(out[planted.len()]);
    let (cases, summary) = (summary.get("summary").get("cases"), summary.get("summary"));
    assert_eq!((cases.get("passed").num(), cases.get("failed").num(), summary.get("errors").num()), (16.0, 4.0, 0.0));

    // The same file on stdin is named <stdin>.
    let s = run_stdin(&["check", "--all", "-"], text);
    s.expect_code(1).out_has("<stdin>:3: MISMATCH").out_has("<stdin>:20: MISMATCH");
}

#[test]
fn check_malformed_lines_exit_2_with_file_and_line() {
    let text = concat!(
        "cvt.rn.f16.f32 3f800000 => 3c00\n",
        "cvt.rn.f16.f32 3f80000 => 3c00\n",        // 2: 7 digits
        "cvt.rn.f16.f32 3f800000\n",               // 3: no result
        "cvt.rn.f16.f32 3f800000 => ????\n",       // 4: width request only
        "cvt.rn.f16.f32 3f800000 => 3c00 extra\n", // 5: extra token
        "cvt.rn.f16.f32 3f800000 => 3c01\n",       // 6: a mismatch as well
    );
    let f = TempFile::new("malformed", text);
    let r = run(&["check", f.path()]);
    let p = f.path();
    r.expect_code(2)
        .err_has(&format!("{p}:2: error: operand 1: `3f80000` has 7 hex digits"))
        .err_has(&format!("{p}:3: error: no result to check"))
        .err_has(&format!("{p}:4: error: no result to check"))
        .err_has(&format!("{p}:5: error: unexpected `extra` after the result"))
        .err_has("4 line(s) could not be checked")
        .out_has(&format!("{p}:6: MISMATCH"));
    assert!(!r.err.contains(&format!("{p}:1:")) && !r.err.contains(&format!("{p}:6:")), "{}", r.err);
    assert_eq!(r.last_out_line(), "1 passed, 1 failed");
}

#[test]
fn check_missing_file() {
    let good = TempFile::new("good2", "cvt.rn.f16.f32 3f800000 => 3c00\n");
    let missing = std::env::temp_dir().join("ptx-cvt-cli-no-such-dir/none.cases");
    let r = run(&["check", missing.to_str().unwrap(), good.path()]);
    r.expect_code(2).err_has("cannot read").err_has(missing.to_str().unwrap());
    assert_eq!(r.last_out_line(), "1 passed, 0 failed", "the other file is still checked");
    // No file at all is a usage error.
    run(&["check"]).expect_code(2);
}

#[test]
fn check_missing_file_is_not_called_a_line() {
    // tools/src/check.rs counts an unopenable file in `errors`, so the closing
    // message says "1 line(s) could not be checked" although no line was read.
    let r = run(&["check", "/nonexistent-ptx-cvt/none.cases"]);
    r.expect_code(2).err_has("cannot read");
    assert!(!r.err.contains("line(s)"), "{}", r.err);
}

#[test]
#[cfg(target_os = "linux")]
fn check_and_eval_stop_on_read_errors() {
    // tools/src/check.rs `lines`: when `fill_buf` fails it yields Err and the next
    // call fails again, so `ptx-cvt check /tmp` prints
    // "/tmp:1: error: read error: Is a directory (os error 21)", ":2:", ":3:", ...
    // without end (and panics once stderr is closed); `ptx-cvt eval < /tmp` too.
    // Expected: one message naming the file, exit 2, promptly. (A directory
    // argument of `check` now means its *.cases files; one without any is an error.)
    let d = std::env::temp_dir();
    let empty = d.join(format!("ptx-cvt-cli-empty-dir-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let start = Instant::now();
    let r = finish_within(
        spawn(&["check", empty.to_str().unwrap()], false),
        "ptx-cvt check <dir>".into(),
        None,
        start,
        Duration::from_secs(30),
    );
    let _ = std::fs::remove_dir(&empty);
    r.expect_code(2).err_has("holds no *.cases files");
    assert!(r.err.lines().count() <= 3, "{}", clip(&r.err));

    let start = Instant::now();
    let child = Command::new(bin())
        .arg("eval")
        .stdin(std::fs::File::open(&d).expect("open a directory for reading"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let r = finish_within(child, "ptx-cvt eval < <dir>".into(), None, start, Duration::from_secs(30));
    r.expect_code(2);
    assert!(r.err.lines().count() <= 3, "{}", clip(&r.err));
}

#[test]
fn check_target_legality() {
    // bf16 with a source other than f32 needs sm_90 (ptxas-legality).
    let line = "cvt.rn.bf16.f16 3c00 => 3f80\n";
    // On sm_80 it is skipped and counted (issue 13): here that leaves no case.
    let r = run_stdin(&["check", "--target", "sm_80", "-"], line);
    r.expect_code(2)
        .err_has("1 case(s) skipped: not legal on sm_80 with PTX ISA 9.5 (1 instruction(s), e.g. cvt.rn.bf16.f16)")
        .err_has("error: no cases: all cases were skipped as not legal on sm_80");
    assert!(!r.err.contains("<stdin>:1:"), "{}", r.err);
    assert_eq!(r.last_out_line(), "0 passed, 0 failed");
    let r = run_stdin(&["check", "--target", "sm_90", "-"], line);
    r.expect_code(0);
    assert_eq!(r.last_out_line(), "1 passed, 0 failed");
    // Without --target every modelled form is evaluated.
    run_stdin(&["check", "-"], line).expect_code(0);
    // A target the PTX version cannot reach.
    run_stdin(&["check", "--target", "sm_90", "--ptx-version", "7.0", "-"], line)
        .expect_code(2)
        .err_has("<stdin>:1:")
        .err_has("7.8");
}

#[test]
fn check_empty_and_comment_only_input() {
    // Issue 11: a CI job that lost its results must not go green.
    let r = run_stdin(&["check", "-"], "");
    r.expect_code(2).err_has("no cases");
    assert_eq!(r.out_lines(), ["0 passed, 0 failed"]);
    let r = run_stdin(&["check", "-"], "# nothing\n\n   \r\n\t# more\n");
    r.expect_code(2).err_has("no cases");
    let r = run_stdin(&["check", "--allow-empty", "-"], "# nothing\n");
    r.expect_code(0);
    assert_eq!(r.out_lines(), ["0 passed, 0 failed"]);
}

#[test]
fn check_isa_accepts_sm90_answers() {
    // The ISA contract permits everything sm90 produces (a sample of 2000 cases
    // over several families).
    let mut input = String::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..2000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let line = match i % 8 {
            0 => format!("cvt.rn.f16.f32 {:08x}", x as u32),
            1 => format!("cvt.rz.ftz.bf16.f32 {:08x}", x as u32),
            2 => format!("cvt.rni.s32.f64 {x:016x}"),
            3 => format!("cvt.rmi.sat.u8.f16 {:04x}", x as u16),
            4 => format!("cvt.rp.f32.f64 {x:016x}"),
            5 => format!("cvt.rn.f16.s64 {x:016x}"),
            6 => format!("cvt.f64.f16 {:04x}", x as u16),
            _ => format!("cvt.rzi.u64.f32 {:08x}", x as u32),
        };
        input.push_str(&line);
        input.push('\n');
    }
    let e = run_stdin(&["eval"], input);
    e.expect_code(0).err_empty();
    let c = run_stdin(&["check", "--profile", "isa", "-"], e.out.clone());
    c.expect_code(0);
    assert_eq!(c.last_out_line(), "2000 passed, 0 failed");
}

/// Run `check -` on stdin `input` with stdout closed before any input is read.
fn check_with_closed_stdout(input: Vec<u8>) -> Run {
    let start = Instant::now();
    let mut child = spawn(&["check", "-"], true);
    drop(child.stdout.take());
    let mut w = child.stdin.take().unwrap();
    let writer = thread::spawn(move || {
        let _ = w.write_all(&input);
    });
    finish(child, "ptx-cvt check - (stdout closed)".into(), Some(writer), start)
}

#[test]
fn commands_survive_closed_stdout() {
    // `ptx-cvt check bad.cases | head -1`, `ptx-cvt list | head -1`: no panic
    // ("failed printing to stdout: Broken pipe"). For check this is
    // deterministic: stdout is closed before check has read any input.
    check_with_closed_stdout(b"cvt.rn.f16.f32 3f800000 => 3c01\n".repeat(2000));
    check_with_closed_stdout(b"cvt.rn.f16.f32 3f800000 => 3c00\n".repeat(10)).expect_code(0);
    for args in [
        &["list"][..],
        &["list", "--json"],
        &["explain", "cvt.rn.f16.f32", "3f801000"],
        &["eval", "cvt.rn.f16.f32", "3f801000"],
    ] {
        let start = Instant::now();
        let mut child = spawn(args, false);
        drop(child.stdout.take());
        finish(child, format!("{} (stdout closed)", describe(args)), None, start);
    }
}

#[test]

fn check_with_closed_stdout_still_fails() {
    // tools/src/common.rs `say_line` calls `process::exit(0)` on a write error, so
    // `set -o pipefail; ptx-cvt check bad.cases | head -1` succeeds although
    // bad.cases has mismatches. The status should stay 1 (mismatch) — or at least
    // not be 0, which the docs define as "all pass".
    let r = check_with_closed_stdout(b"cvt.rn.f16.f32 3f800000 => 3c01\n".repeat(2000));
    assert_ne!(r.code, Some(0), "{}: a file with mismatches reported success", r.what);
}

/// cvt.pack.sat on the command line: the public GPU results of
/// vectors/known-answers/sm90.cases, the rules `explain` names, and `list`.
#[test]
fn cvt_pack_eval_explain_list() {
    run(&["eval", "cvt.pack.sat.u8.s32.b32", "fffffeff", "00000101", "f839b0ed"]).expect_code(0).out_has("b0ed00ff");
    run(&["eval", "cvt.pack.sat.s8.s32.b32", "fffffeff", "00000101", "f839b0ed"]).expect_code(0).out_has("b0ed807f");
    run(&["explain", "cvt.pack.sat.s16.s32", "ffff63c0", "00009c40"])
        .expect_code(0)
        .out_has("pack-sat")
        .out_has("clamped to -32768")
        .out_has("80007fff");
    run(&["explain", "cvt.pack.sat.u4.s32.b32", "0000000f", "00000010", "abcdef12"])
        .expect_code(0)
        .out_has("pack-c-bits")
        .out_has("cdef12ff");
    run(&["eval", "cvt.pack.u8.s32.b32", "00000001", "00000002", "00000003"]).expect_code(2).err_has("needs `.sat`");
    // A wrong lane is blamed on its saturation rule, wrong upper bits on c.
    run_stdin(&["check", "-"], "cvt.pack.sat.u8.s32.b32 fffffeff 00000101 f839b0ed => b0ed00fe\n")
        .expect_code(1)
        .out_has("rule     pack-sat");
    run_stdin(&["check", "-"], "cvt.pack.sat.u8.s32.b32 fffffeff 00000101 f839b0ed => b0ec00ff\n")
        .expect_code(1)
        .out_has("rule     pack-c-bits");
    let r = run(&["list", "--target", "sm_75"]);
    r.expect_code(0);
    let packs: Vec<&str> = r.out.lines().filter(|l| l.starts_with("cvt.pack")).collect();
    assert_eq!(packs.len(), 8, "{packs:?}");
    run(&["list", "--target", "sm_75", "--ptx-version", "6.4"]).expect_code(0);
    assert!(!run(&["list", "--target", "sm_75", "--ptx-version", "6.4"]).out.contains("cvt.pack"));
}

// ---------------------------------------------------------------------------
// Hostile input
// ---------------------------------------------------------------------------

/// (instruction, operand, what the message must say) — for eval and explain argv.
const HOSTILE_ARGV: &[(&str, &str, &str)] = &[
    ("", "3f800000", "empty instruction"),
    ("cvt.rn.f17.f32", "3f800000", "unknown modifier or type `.f17`"),
    ("cvt.rn.rz.f16.f32", "3f800000", "second rounding modifier"),
    ("cvt.rn.f16.f32", "3f8", "3 hex digits"),
    ("cvt.rn.f16.f32", "3f800", "5 hex digits"),
    ("cvt.rn.f16.f32", "3f80", "source register of 16 bits cannot hold a f32"),
    ("cvt.rn.f16.f32", "3f80000g", "is not hex"),
    ("cvt.rn.f16.f32", "0x3f800000", "without the 0x prefix"),
    ("cvt.rn.f16.f32", "0x3f8000", "without the 0x prefix"),
    ("cvt.rn.f16.f32", "", "0 hex digits"),
    ("cvt.sat.s16.s8", "c2", "s16 can hold every s8 value"),
    ("cvt.sat.satfinite.f16.f32", "3f800000", "cannot be combined"),
    ("cvt.rn.satfinite.sat.f16.f32", "3f800000", "cannot be combined"),
    ("cvt.ftz.ftz.rn.f16.f32", "3f800000", "twice"),
    ("cvt.rn.f16x2.f32", "3f800000", "takes 2 source operands (a:32 b:32), got 1"),
    ("cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.bf16x2", "3f803f80", "takes 2 source operands (a:32 scale:16), got 1"),
    ("cvt.rn.scaled::n2::ue8m0.f16.f32", "3f800000", "(a:32 scale:16), got 1"),
    ("cvt.sat.pack.u8.s32.b32", "00000001", "right after `cvt`"),
    ("cvt.pack.sat.u8.s32", "00000001", "needs the c operand's type `.b32`"),
    ("cvt.pack.sat.u16.s32", "00000001", "takes 2 source operands (a:32 b:32), got 1"),
    ("cvt.f16.f32", "3f800000", "needs .rn, .rz, .rm or .rp"),
    ("cvt.rn.f32.f16", "3c00", "not allowed"),
    ("cvt.s32.f32", "3f800000", "integer rounding modifier"),
    ("cvt.rn.f16", "3c00", "two types"),
    ("cvt.f16.f32.f64", "3f800000", "3 types"),
    ("cvt..rn.f16.f32", "3f800000", "empty modifier"),
    ("CVT.RN.F16.F32", "3f800000", "not a cvt instruction"),
    ("mov.b32", "3f800000", "not a cvt instruction"),
];

/// The s2f6x2 and scaled forms through the commands; ue5m3x2 is listed but not evaluated.
#[test]
fn s2f6_scaled_and_ue5m3_forms() {
    // docs/semantics.md §5.14: the CuTe DSL round trip (s2f6 7f, 80 with scale 2^6 are 127, -128).
    run(&["eval", "cvt.rn.scaled::n2::ue8m0.bf16x2.s2f6x2", "7f80", "8585"]).expect_code(0).out_has("42fec300");
    run(&["explain", "cvt.rn.satfinite.s2f6x2.f32", "3f800000", "7fc00000"])
        .expect_code(0)
        .out_has("(float→fixed-point)")
        .out_has("s2f6-nan")
        .out_has("round-to-fixed")
        .out_has("scale-ue8m0");
    // A NaN scale byte is named as such, not as a NaN source (7fff: §7.12).
    let nan_scale = run(&["explain", "cvt.rn.scaled::n2::ue8m0.bf16x2.s2f6x2", "7f80", "ff85"]);
    nan_scale.expect_code(0).out_has("(fixed-point→float, each lane multiplied by its ue8m0 scale)");
    nan_scale.out_has("scale byte ff (NaN) → 7fff");
    assert!(!nan_scale.out.contains("NaN source"), "{}", nan_scale.out);
    let on107 = run(&["list", "--target", "sm_107f"]);
    on107.expect_code(0).out_has("cvt.rn.satfinite.ue5m3x2.f32\n").out_has("cvt.rn.scaled::n2::ue8m0.bf16x2.ue5m3x2\n");
    assert!(!on107.out.contains("s2f6x2"), "s2f6x2 is not on sm_107f");
    run(&["list", "--target", "sm_107a"])
        .expect_code(0)
        .out_has("cvt.rz.relu.satfinite.scaled::n2::ue8m0.s2f6x2.f32\n");
    // docs/semantics.md §5.16: 1.0 is ue5m3 78; -2 gives 80 (the sign is dropped).
    run(&["eval", "cvt.rn.satfinite.ue5m3x2.f32", "3f800000", "c0000000"]).expect_code(0).out_has("7880");
    run(&["eval", "cvt.rn.scaled::n2::ue8m0.f16.f32", "3f800000", "7f7f"])
        .expect_code(2)
        .err_has("[rule scale-absent]");
}

/// The PTX 9.4 modifiers `.pzo` and `.scaled::n1::ue8m0`: listed on sm_107a/f only (ptxas 13.5,
/// tests/data/ptxas-legality-ptx94.tsv), evaluated by eval/explain/check (docs/semantics.md §5.15).
#[test]
fn ptx94_modifiers_are_listed_and_evaluated() {
    let pzo = "cvt.rn.satfinite.pzo.e4m3x2.f32\n";
    let n1 = "cvt.rz.satfinite.scaled::n1::ue8m0.e4m3x2.f32\n";
    let both = "cvt.rn.relu.satfinite.pzo.scaled::n1::ue8m0.e2m1x2.bf16x2\n";
    for args in
        [&["list"][..], &["list", "--target", "sm_107a"], &["list", "--target", "sm_107f", "--ptx-version", "9.4"]]
    {
        run(args).expect_code(0).out_has(pzo).out_has(n1).out_has(both).out_has("cvt.rm.pzo.f16.f32\n");
    }
    for t in ["sm_100a", "sm_103f", "sm_110a", "sm_120a", "sm_121a", "sm_107"] {
        let r = run(&["list", "--target", t]);
        r.expect_code(0);
        assert!(!r.out.contains(".pzo.") && !r.out.contains("n1::"), "{t} lists a PTX 9.4 modifier");
    }
    // -0 in e4m3 is 80; .pzo writes 00 (PTX ISA 9.4 §9.7.10.24, .pzo).
    run(&["eval", "cvt.rn.satfinite.e4m3x2.f32", "80000000", "3f800000"]).expect_code(0).out_has("8038");
    run(&["eval", "cvt.rn.satfinite.pzo.e4m3x2.f32", "80000000", "3f800000"]).expect_code(0).out_has("0038");
    run(&["explain", "cvt.rz.pzo.f16.f32", "b3000000"]).expect_code(0).out_has("pzo").out_has("0000");
    // One scale byte 80 (2^1) divides both lanes: 4 and 1 become 2 and 0.5.
    run(&["eval", "cvt.rz.satfinite.scaled::n1::ue8m0.e4m3x2.f32", "40800000", "3f800000", "80"])
        .expect_code(0)
        .out_has("4030");
    run(&["explain", "cvt.rn.scaled::n1::ue8m0.ue5m3x2.bf16x2", "3f803f80", "7f"])
        .expect_code(0)
        .out_has("scale-n1-ue8m0")
        .out_has("7878");
    run_stdin(&["check", "-"], "cvt.rn.satfinite.scaled::n1::ue8m0.e2m1x2.f16x2 3c003c00 7f => 22\n").expect_code(0);
    run(&["eval", "cvt.rn.satfinite.pzo.ue5m3x2.f32", "3f800000", "3f800000"])
        .expect_code(2)
        .err_has("[rule pzo-absent]");
}

#[test]
fn hostile_arguments_eval_and_explain() {
    for &(instr, operand, needle) in HOSTILE_ARGV {
        for cmd in ["eval", "explain"] {
            let r = run(&[cmd, instr, operand]);
            r.expect_code(2).err_has("error:").err_has(needle);
            assert!(r.out.is_empty(), "{}: stdout {:?}", r.what, r.out);
        }
    }
    // Extra and missing operands.
    run(&["eval", "cvt.rn.f16.f32", "3f800000", "3f800000"])
        .expect_code(2)
        .err_has("takes 1 source operand (a:32), got 2");
    run(&["explain", "cvt.rn.f16.f32", "3f800000", "3f800000"])
        .expect_code(2)
        .err_has("takes 1 source operand (a:32), got 2");
    run(&["eval", "cvt.rn.f16.f32"]).expect_code(2).err_has("needs source operands in hex").err_has("00000000");
    run(&["explain", "cvt.rn.f16.f32"]).expect_code(2).err_has("required");
    run(&["explain"]).expect_code(2);
    // A leading `-` is an option to clap unless after `--`; either way no panic.
    run(&["eval", "cvt.rn.f16.f32", "-3f80000"]).expect_code(2);
    run(&["eval", "cvt.rn.f16.f32", "--", "-3f80000"]).expect_code(2).err_has("unexpected `-`");
    run(&["explain", "cvt.rn.f16.f32", "--", "+3f80000"]).expect_code(2).err_has("unexpected `+`");
}

#[test]
fn hostile_long_and_non_ascii_arguments() {
    let long_instr = format!("cvt.{}.f16.f32", "x".repeat(100_000));
    let many_rn = format!("cvt.{}f16.f32", "rn.".repeat(10_000));
    let accents = format!("cvt.{}.f16.f32", "é".repeat(100)); // multi-byte chars across the 40/80-byte clip
    let long_hex = "f".repeat(100_000);
    let long_accents = "é".repeat(100);
    for (instr, operand, needle) in [
        (long_instr.as_str(), "3f800000", "unknown modifier or type"),
        (many_rn.as_str(), "3f800000", "second rounding modifier"),
        (accents.as_str(), "3f800000", "unknown modifier or type"),
        ("cvt.rn.f16.f32", long_hex.as_str(), "100000 hex digits"),
        ("cvt.rn.f16.f32", long_accents.as_str(), "hex digits"),
        ("cvt.rn.f16.f\u{fffd}", "3f800000", "unknown modifier or type"),
    ] {
        for cmd in ["eval", "explain"] {
            let r = run(&[cmd, instr, operand]);
            r.expect_code(2).err_has(needle);
            assert!(r.err.len() < 1000, "{}: message not clipped ({} bytes)", r.what, r.err.len());
        }
    }
}

/// Hostile case lines: (line, what the message must say). Used for check
/// (file and stdin) and eval's stream mode.
const HOSTILE_LINES: &[(&str, &str)] = &[
    ("cvt.rn.f17.f32 3f800000 => 3c00", "unknown modifier or type `.f17`"),
    ("cvt.rn.rz.f16.f32 3f800000 => 3c00", "second rounding modifier"),
    ("cvt.rn.f16.f32 3f8 => 3c00", "3 hex digits"),
    ("cvt.rn.f16.f32 3f800 => 3c00", "5 hex digits"),
    ("cvt.rn.f16.f32 3f80 => 3c00", "source register of 16 bits cannot hold a f32"),
    ("cvt.rn.f16.f32 3f80000g => 3c00", "is not hex"),
    ("cvt.rn.f16.f32 0x3f800000 => 3c00", "without the 0x prefix"),
    ("cvt.rn.f16.f32 => 3c00", "has no operands"),
    ("cvt.rn.f16.f32", "has no operands"),
    ("cvt.rn.f16.f32 3f800000 => 3c00 extra", "unexpected `extra` after the result"),
    ("cvt.rn.f16.f32 3f800000 => 3c00 => 3c00", "unexpected `=>` after the result"),
    ("cvt.sat.s16.s8 c2 => ffc2", "s16 can hold every s8 value"),
    ("cvt.sat.satfinite.f16.f32 3f800000 => 3c00", "cannot be combined"),
    ("cvt.rn.f16.f32 3f800000 3f800000 => 3c00", "takes 1 source operand (a:32)"),
    ("cvt.rn.f16.f32 3f800000 => 3c0", "result: `3c0` has 3 hex digits"),
    ("cvt.rn.f16.f32 3f800000 => 3c", "destination register of 8 bits"),
    ("cvt.rn.f16.f32 3f800000 => 3c00/ff", "value and mask of different widths"),
    ("cvt.rn.f16.f32 3f800000 => 3c00|", "result:"),
    ("cvt.rn.f16.f32 3f800000 => nan:12", "nan:WIDTH"),
    ("cvt.rni.s32.f32 7fc00000 => nan", "needs a floating-point destination"),
    ("mov.b32 3f800000 => 3f800000", "not a cvt instruction"),
    ("cvt.rn.f16x2.f32 3f800000 => 3c00", "takes 2 source operands"),
    ("cvt.rn.f16.f32 3f800000 => 3c0g", "is not hex"),
];

fn hostile_file() -> (String, Vec<(usize, &'static str)>) {
    // Interleave good lines, blank lines, comments and CRLF so line numbers matter.
    let mut text = String::from("# hostile lines\ncvt.rn.f16.f32 3f800000 => 3c00\n\n");
    let mut at = Vec::new();
    let mut n = 3;
    for (k, &(line, needle)) in HOSTILE_LINES.iter().enumerate() {
        n += 1;
        text.push_str(line);
        text.push_str(if k % 3 == 0 { "\r\n" } else { "\n" });
        at.push((n, needle));
        if k % 4 == 0 {
            n += 1;
            text.push_str("cvt.s16.s8 139231c2 => ffffffc2 # fine\n");
        }
    }
    (text, at)
}

#[test]
fn hostile_case_lines_check_file() {
    let (text, at) = hostile_file();
    let f = TempFile::new("hostile", &text);
    let r = run(&["check", f.path()]);
    r.expect_code(2);
    for &(n, needle) in &at {
        let prefix = format!("{}:{n}: error: ", f.path());
        let line = r
            .err
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no message for line {n}:\n{}", r.err));
        assert!(line.contains(needle), "line {n}: {line:?} lacks {needle:?}");
    }
    r.err_has(&format!("{} line(s) could not be checked", at.len()));
    let good = 1 + HOSTILE_LINES.len().div_ceil(4);
    assert_eq!(r.last_out_line(), format!("{good} passed, 0 failed"));

    // The same on stdin.
    let s = run_stdin(&["check", "-"], text);
    s.expect_code(2);
    for &(n, needle) in &at {
        let prefix = format!("<stdin>:{n}: error: ");
        assert!(s.err.lines().any(|l| l.starts_with(&prefix) && l.contains(needle)), "stdin line {n}: {}", s.err);
    }
}

#[test]
fn hostile_case_lines_eval_stream() {
    let (text, at) = hostile_file();
    let r = run_stdin(&["eval"], text);
    r.expect_code(2);
    for &(n, needle) in &at {
        let prefix = format!("<stdin>:{n}: error: ");
        let line = r
            .err
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no message for line {n}:\n{}", r.err));
        assert!(line.contains(needle), "line {n}: {line:?} lacks {needle:?}");
    }
    let good = 1 + HOSTILE_LINES.len().div_ceil(4);
    assert_eq!(r.out_lines().len(), good, "{}", r.out);
}

#[test]
fn hostile_bytes_non_utf8_nul_crlf() {
    let mut text: Vec<u8> = Vec::new();
    text.extend_from_slice(b"cvt.rn.f16.f32 3f800000 => 3c00\r\n"); // 1 ok
    text.extend_from_slice(b"\xff\xfe\x80 garbage\n"); // 2 not UTF-8
    text.extend_from_slice(b"cvt.rn.f16.f32 3f80\x000000 => 3c00\n"); // 3 NUL in operand
    text.extend_from_slice(b"cvt.rn.f16.f32\x00 3f800000 => 3c00\n"); // 4 NUL after instruction
    text.extend_from_slice(b"\x00\n"); // 5 a lone NUL
    text.extend_from_slice(b"cvt.rn.f16.f32 3f800000 => 3c00\r\r\n"); // 6 two CRs: the second is whitespace, ok
    text.extend_from_slice(b"cvt.rn.f16.f32 3f800000 => 3c00 # caf\xc3\xa9 ok\n"); // 7 UTF-8 comment, ok
    text.extend_from_slice(b"cvt.rn.f16.f32 3f800000 => 3c00 # \xff bad byte in a comment\n"); // 8 not UTF-8
    text.extend_from_slice(b"cvt.s16.s8 139231c2 => ffffffc2"); // 9 ok, no final newline
    let f = TempFile::new("bytes", &text);
    let r = run(&["check", f.path()]);
    let p = f.path();
    r.expect_code(2)
        .err_has(&format!("{p}:2: error: line is not valid UTF-8"))
        .err_has(&format!("{p}:3: error:"))
        .err_has(&format!("{p}:4: error:"))
        .err_has(&format!("{p}:5: error:"))
        .err_has(&format!("{p}:8: error: line is not valid UTF-8"))
        .err_has("5 line(s) could not be checked");
    for ok in [1, 6, 7, 9] {
        assert!(!r.err.contains(&format!("{p}:{ok}:")), "line {ok} is fine:\n{}", r.err);
    }
    assert_eq!(r.last_out_line(), "4 passed, 0 failed");

    let e = run_stdin(&["eval"], text);
    e.expect_code(2)
        .err_has("<stdin>:2: error: line is not valid UTF-8")
        .err_has("<stdin>:8: error: line is not valid UTF-8");
    for bad in [3, 4, 5] {
        e.err_has(&format!("<stdin>:{bad}: error:"));
    }
    assert_eq!(e.out_lines().len(), 4, "{}", e.out);
}

#[test]

fn hostile_control_bytes_are_escaped_in_messages() {
    // `cvt.rn.f16.f32\0 3f800000` is reported as "unknown modifier or type `.f32<NUL>`",
    // a lone NUL line as "`<NUL>` is not a cvt instruction", and an argv operand
    // "3f80000\r" as "unexpected `<CR>`" — on a terminal the offending byte is
    // invisible and the messages read "`.f32 `", "` `" and "unexpected ``".
    // Expected: such bytes shown escaped (e.g. `\0`, `\r`, U+0000) in every message.
    let text = b"cvt.rn.f16.f32\x00 3f800000 => 3c00\n\x00\ncvt.rn.f16.f32 3f80\x000000 => 3c00\n".to_vec();
    let f = TempFile::new("ctl", &text);
    let mut runs = vec![run(&["check", f.path()]), run_stdin(&["eval"], text)];
    runs.push(run(&["eval", "cvt.rn.f16.f32", "3f80000\r"]));
    runs.push(run(&["eval", "cvt.rn.f16.f32\x01", "3f800000"]));
    for r in &runs {
        r.expect_code(2);
        let bad: Vec<u8> = r.raw_err.iter().copied().filter(|&b| b < 0x20 && b != b'\n').collect();
        assert!(bad.is_empty(), "{}: raw control bytes {bad:?} in stderr:\n{:?}", r.what, r.err);
    }
}

/// 10 MiB of a single line (no newline inside).
fn huge_line() -> Vec<u8> {
    let mut v = b"cvt.rn.f16.f32 ".to_vec();
    while v.len() < 10 * 1024 * 1024 {
        v.extend_from_slice(b"3f800000 ");
    }
    v.extend_from_slice(b"=> 3c00");
    v
}

#[test]
fn hostile_10mb_line() {
    let big = huge_line();
    let mut text = b"cvt.rn.f16.f32 3f800000 => 3c00\n".to_vec();
    text.extend_from_slice(&big);
    text.extend_from_slice(b"\ncvt.s16.s8 139231c2 => ffffffc2\n");
    // The reported length may count the newline (see `long_line_length_excludes_newline`).
    let len = big.len();
    let says_len = |r: &Run, prefix: &str| {
        let ok = [len, len + 1].iter().any(|n| r.err.contains(&format!("{prefix}line is {n} bytes long")));
        assert!(ok, "{}: no `{prefix}line is {len} bytes long` in\n{}", r.what, clip(&r.err));
    };

    let f = TempFile::new("huge", &text);
    let r = run(&["check", f.path()]);
    r.expect_code(2).err_has("4096");
    says_len(&r, &format!("{}:2: error: ", f.path()));
    assert_eq!(r.last_out_line(), "2 passed, 0 failed");
    assert!(r.err.len() < 1000 && r.out.len() < 1000, "the line is not echoed back");
    assert!(r.secs < 10.0, "took {:.1} s", r.secs);

    let r = run_stdin(&["check", "-"], text.clone());
    r.expect_code(2);
    says_len(&r, "<stdin>:2: error: ");
    assert_eq!(r.last_out_line(), "2 passed, 0 failed");

    let e = run_stdin(&["eval"], text);
    e.expect_code(2);
    says_len(&e, "<stdin>:2: error: ");
    assert_eq!(e.out_lines(), ["cvt.rn.f16.f32 3f800000 => 3c00", "cvt.s16.s8 139231c2 => ffffffc2"]);

    // Last line, without a final newline; and a 10 MiB run of one byte.
    let mut tail = b"cvt.rn.f16.f32 3f800000 => 3c00\n".to_vec();
    tail.extend_from_slice(&big);
    run_stdin(&["check", "-"], tail.clone())
        .expect_code(2)
        .err_has(&format!("<stdin>:2: error: line is {len} bytes long"));
    // (no newline here, so the length is exact)
    run_stdin(&["eval"], tail).expect_code(2).err_has("<stdin>:2: error:");
    let mut junk = vec![b'c'; 10 * 1024 * 1024];
    junk.push(b'\n');
    run_stdin(&["check", "-"], junk).expect_code(2).err_has("<stdin>:1: error: line is 1048576").err_has(" bytes long");

    // Just over the 4096-byte limit (the in-memory path).
    let mut over = b"cvt.rn.f16.f32 3f800000 => 3c00 #".to_vec();
    over.resize(5000, b'x');
    run_stdin(&["check", "-"], over)
        .expect_code(2)
        .err_has("<stdin>:1: error: line is 5000 bytes long; case lines are at most 4096");
}

#[test]

fn long_line_length_excludes_newline() {
    // tools/src/check.rs `lines` adds the `\n` to `total` for lines over LINE_CAP
    // (1 MiB), while oracle/src/caseline.rs reports `line.len()` without it:
    // a 5000-byte line says "5000 bytes", a 2 MiB line says "2097153 bytes".
    for n in [5000usize, 2 << 20] {
        let mut line = b"cvt.rn.f16.f32 3f800000 => 3c00 #".to_vec();
        line.resize(n, b'x');
        line.push(b'\n');
        run_stdin(&["check", "-"], line).expect_code(2).err_has(&format!("<stdin>:1: error: line is {n} bytes long"));
    }
}

/// Peak resident memory of a running process, in KiB (Linux).
#[cfg(target_os = "linux")]
fn peak_rss_kib(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc/PID/status");
    let l = s.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/PID/status");
    l.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
#[cfg(target_os = "linux")]
fn hostile_10mb_line_bounded_memory() {
    // Feed a 10 MiB line, wait for the error, then read the peak RSS while
    // the process still waits for more input: the line was never held whole.
    for args in [&["eval"][..], &["check", "-"][..]] {
        let start = Instant::now();
        let mut child = spawn(args, true);
        let mut w = child.stdin.take().unwrap();
        let big = huge_line();
        let writer = thread::spawn(move || {
            w.write_all(&big).unwrap();
            w.write_all(b"\n").unwrap();
            w // keep stdin open
        });
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        err.read_line(&mut first).unwrap();
        assert!(first.contains("line is") && first.contains("bytes long"), "{args:?}: {first:?}");
        assert!(child.try_wait().unwrap().is_none(), "{args:?}: exited early");
        let peak = peak_rss_kib(child.id());
        let w = writer.join().unwrap();
        drop(w);
        let mut rest = String::new();
        err.read_to_string(&mut rest).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {first}{rest}");
        assert!(!rest.contains("panicked"), "{rest}");
        // The binary itself peaks near 10 MiB before it reads anything; the line
        // held whole would add its 10 MiB on top of that.
        assert!(peak < 14 * 1024, "{args:?}: peak RSS {peak} KiB for a 10 MiB line");
        assert!(start.elapsed() < DEADLINE);
    }
}

// ---------------------------------------------------------------------------
// list
// ---------------------------------------------------------------------------

#[test]
fn list_sm90() {
    let r = run(&["list", "--target", "sm_90"]);
    r.expect_code(0).err_empty();
    let lines = r.out_lines();
    assert!(lines.len() > 100, "{} lines", lines.len());
    for must in [
        "cvt.rn.f16.f32",
        "cvt.rni.s32.f32",
        "cvt.f32.f16",
        "cvt.rn.bf16.f16",
        "cvt.rn.satfinite.bf16.f32",
        "cvt.rn.relu.f16.f32",
    ] {
        assert!(lines.contains(&must), "{must} missing");
    }
    for mustnt in ["cvt.rn.f32.f16", "cvt.f16.f32", "cvt.s32.f32", "cvt.sat.s16.s8", "cvt.sat.satfinite.f16.f32"] {
        assert!(!lines.contains(&mustnt), "{mustnt} listed");
    }
    let unique: HashSet<&str> = lines.iter().copied().collect();
    assert_eq!(unique.len(), lines.len(), "duplicates in list");
    assert!(lines.iter().all(|l| l.starts_with("cvt.") && !l.contains(char::is_whitespace)));

    // Every listed spelling re-parses to itself and evaluates on sm_90: all of
    // them through one streaming eval...
    let input: String = lines.iter().map(|l| format!("{l} {}\n", zero_operand(l))).collect();
    let e = run_stdin(&["eval", "--target", "sm_90"], input);
    e.expect_code(0).err_empty();
    let back: Vec<&str> = e.out.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(back, lines, "canonical spellings must round-trip");
    // ...and a sample as command-line arguments.
    let step = (lines.len() / 40).max(1);
    for l in lines.iter().step_by(step) {
        let ops = zero_operand(l);
        let mut args = vec!["eval", "--target", "sm_90", l];
        args.extend(ops.split(' '));
        run(&args).expect_code(0);
    }

    // --json is the same list.
    let j = run(&["list", "--json", "--target", "sm_90"]);
    j.expect_code(0);
    let arr: Vec<String> = json(j.out.trim_end()).arr().iter().map(|v| v.str().to_string()).collect();
    assert_eq!(arr, lines);
}

#[test]
fn list_depends_on_target() {
    let all = run(&["list"]);
    all.expect_code(0);
    let sm80 = run(&["list", "--target", "sm_80"]);
    sm80.expect_code(0);
    let sm90 = run(&["list", "--target", "sm_90"]);
    let a: HashSet<&str> = all.out.lines().collect();
    let s80: HashSet<&str> = sm80.out.lines().collect();
    let s90: HashSet<&str> = sm90.out.lines().collect();
    assert!(!s80.contains("cvt.rn.bf16.f16") && s90.contains("cvt.rn.bf16.f16"));
    assert!(s80.is_subset(&s90), "sm_80 forms are also legal on sm_90");
    assert!(s90.is_subset(&a), "--target only removes forms");
    run(&["list", "--target", "sm_12"]).expect_code(2).err_has("sm_12");
}

#[test]

fn list_reports_unreachable_target() {
    // sm_90 needs PTX ISA 7.8 (eval/check say so: "target sm_90 needs PTX ISA 7.8 or
    // later"), but list filters every form out silently and succeeds with empty output.
    let r = run(&["list", "--target", "sm_90", "--ptx-version", "7.0"]);
    r.expect_code(2).err_has("7.8");
}

// ---------------------------------------------------------------------------
// explain
// ---------------------------------------------------------------------------

#[test]
fn explain_tie_to_even() {
    let r = run(&["explain", "cvt.rn.f16.f32", "3f801000"]);
    r.expect_code(0)
        .err_empty()
        .out_has("instruction cvt.rn.f16.f32")
        .out_has("f32 3f801000 = 1.00048828125") // decoded input
        .out_has("decode")
        .out_has("round-to-float")
        .out_has("tie")
        .out_has("ties to even");
    assert_eq!(r.last_out_line().split_whitespace().collect::<Vec<_>>(), ["result", "3c00", "(1)"]);
}

#[test]
fn explain_int_and_nan() {
    // docs/semantics.md §4: chop the 32-bit source to s8, sign-extend into the 32-bit destination.
    let r = run(&["explain", "cvt.s16.s8", "139231c2", "--dst-width", "32"]);
    r.expect_code(0).out_has("source-chop").out_has("-62").out_has("int-wrap").out_has("ffffffc2 (-62)");
    // docs/semantics.md §5.3: NaN from f64 to s32 gives 1<<31.
    let r = run(&["explain", "cvt.rzi.s32.f64", "7ff8000000000000"]);
    r.expect_code(0).out_has("qnan").out_has("nan-to-int").out_has("80000000");
    // Legality line with and without a target.
    run(&["explain", "cvt.rn.f16.f32", "3f800000"]).expect_code(0).out_has("legal");
    run(&["explain", "--target", "sm_90", "cvt.rn.bf16.f16", "3c00"]).expect_code(0).out_has("legal on sm_90");
    run(&["explain", "--target", "sm_80", "cvt.rn.bf16.f16", "3c00"]).expect_code(2).err_has("illegal on sm_80");
}

#[test]
fn explain_json() {
    let r = run(&["explain", "--json", "cvt.rn.f16.f32", "3f801000"]);
    r.expect_code(0).err_empty();
    let lines = r.out_lines();
    assert_eq!(lines.len(), 1, "{}", r.out);
    let j = json(lines[0]);
    assert_eq!(j.get("instruction").str(), "cvt.rn.f16.f32");
    assert_eq!(j.get("input").str(), "1.00048828125");
    assert_eq!(j.get("result").str(), "3c00");
    assert_eq!(j.get("profile").str(), "sm90");
    let steps = j.get("steps").arr();
    let rules: Vec<&str> = steps.iter().map(|s| s.get("rule").str()).collect();
    assert!(rules.contains(&"decode") && rules.contains(&"round-to-float"), "{rules:?}");
    let rounding = steps.iter().find(|s| s.get("rule").str() == "round-to-float").unwrap();
    assert!(rounding.get("detail").str().contains("tie"));
    let _ = rounding.get("evidence").str();
}

#[test]
fn version_and_help() {
    run(&["--version"]).expect_code(0).out_has("ptx-cvt");
    let h = run(&["--help"]);
    h.expect_code(0);
    for cmd in ["eval", "check", "explain", "list"] {
        h.out_has(cmd);
    }
    run(&[]).expect_code(2);
    run(&["frobnicate"]).expect_code(2);
}

/// Completions and manual pages come from the clap definitions: every
/// subcommand and a shared option appear, the bash script parses, and
/// `man --out` writes one page per command.
#[test]
fn completions_and_man_pages() {
    let commands =
        ["eval", "check", "explain", "gen", "coverage", "ptx", "gpu", "fuzz", "sweep", "combine", "atlas", "list"];
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let r = run(&["completions", shell]);
        r.expect_code(0).err_empty();
        for needle in commands.iter().copied().chain(["target-lib", "profile"]) {
            r.out_has(needle);
        }
    }
    run(&["completions", "tcsh"]).expect_code(2).err_has("tcsh");
    let bash = run(&["completions", "bash"]).out.clone();
    let dir = std::env::temp_dir().join(format!("ptx-cvt-man-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("ptx-cvt.bash");
    std::fs::write(&script, bash).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&script).output().unwrap();
    assert!(syntax.status.success(), "bash -n: {}", String::from_utf8_lossy(&syntax.stderr));

    run(&["man"]).expect_code(0).out_has(".TH ptx-cvt").out_has("check");
    let pages = dir.join("man1");
    let r = run(&["man", "--out", pages.to_str().unwrap()]);
    r.expect_code(0).err_has("pages");
    for c in commands.iter().map(|c| format!("ptx-cvt-{c}.1")).chain(["ptx-cvt.1".into(), "ptx-cvt-atlas-gen.1".into()])
    {
        let text = std::fs::read_to_string(pages.join(&c)).unwrap_or_else(|e| panic!("{c}: {e}"));
        assert!(text.starts_with(".ie") || text.contains(".TH"), "{c} is not a manual page");
    }
    // A file where the directory should be: an error, exit 2.
    run(&["man", "--out", script.to_str().unwrap()]).expect_code(2).err_has("cannot create");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// check: large result files (--max-failures, summary, reproducers)
// ---------------------------------------------------------------------------

/// Six mismatches (with generator-style class comments on most) and two
/// passes. Expected answers: docs/semantics.md §4/§5.3 and vectors/known-answers/sm90.cases.
const MIXED: &str = concat!(
    "cvt.rn.f16.f32 3f800000 => 3c00                 # normal/normal/exact\n", // 1 pass
    "cvt.rn.f16.f32 3f801000 => 3c01                 # normal/normal/tie-even seed=7\n", // 2 fail: 3c00
    "cvt.rn.f16.f32 3f803000 => 3c00                 # normal/normal/round-up\n", // 3 fail: 3c02
    "cvt.s16.s8 c2 => 00c2                           # docs/semantics.md §4\n", // 4 fail: ffc2, no class
    "cvt.rn.f16.f32 3f805000 => 3c03                 # gen normal/normal/tie-even\n", // 5 fail: 3c02
    "cvt.rzi.s32.f64 7ff8000000000000 => 80000000    # nan/int/nan\n",         // 6 pass
    "cvt.rn.f16x2.f32 3f800000 40000000 => 40003c00  # normal/normal/exact\n", // 7 fail: 3c004000
    "cvt.rzi.s64.f64 c3e0000000000001 => 8000000000000001\n",                  // 8 fail: clamps to 8000000000000000
);

fn mismatch_lines(r: &Run) -> Vec<usize> {
    r.out
        .lines()
        .filter_map(|l| l.split_once(": MISMATCH ").map(|(head, _)| head.rsplit(':').next().unwrap().parse().unwrap()))
        .collect()
}

#[test]
fn check_max_failures_stops_early() {
    let f = TempFile::new("mixed", MIXED);
    let g = TempFile::new("mixed2", MIXED);
    let r = run(&["check", "--max-failures", "3", "--reproducers", "0", f.path(), g.path()]);
    r.expect_code(1);
    assert_eq!(mismatch_lines(&r), [2, 3, 4], "{}", r.out);
    let stop = format!("stopped early at {}:4 after 3 mismatch(es)", f.path());
    r.err_has(&stop);
    assert!(!r.out.contains(g.path()), "the second file must not be read: {}", r.out);
    assert_eq!(r.last_out_line(), "1 passed, 3 failed");
    // --quiet: still only the final line on stdout; the note goes to stderr.
    let q = run(&["check", "-q", "--max-failures", "2", f.path()]);
    q.expect_code(1).err_has(&format!("stopped early at {}:3", f.path()));
    assert_eq!(q.out_lines(), ["1 passed, 2 failed"]);
    // A limit not reached, or reached on the last case line (blank and comment
    // lines after it do not count), changes nothing; 0 is a usage error.
    let tail = TempFile::new("mixed-tail", format!("{MIXED}\n# the end\n"));
    for (max, file) in [("7", &f), ("6", &f), ("6", &tail)] {
        let all = run(&["check", "--all", "--max-failures", max, file.path()]);
        all.expect_code(1);
        assert_eq!(mismatch_lines(&all).len(), 6);
        assert!(!all.out.contains("stopped early") && !all.err.contains("stopped early"), "{}", all.out);
    }
    // ... but a file after it is left unread, and that is stopping early.
    run(&["check", "--max-failures", "6", f.path(), g.path()])
        .expect_code(1)
        .err_has(&format!("stopped early at {}:8", f.path()));
    run(&["check", "--max-failures", "0", f.path()]).expect_code(2);
    // Streams: stops on a long stdin without reading it all.
    let mut big = String::new();
    for _ in 0..50_000 {
        big.push_str("cvt.rn.f16.f32 3f801000 => 3c01\n");
    }
    let s = run_stdin(&["check", "-q", "--max-failures", "5", "-"], big);
    s.expect_code(1);
    assert_eq!(s.out_lines(), ["0 passed, 5 failed"]);
}

#[test]
fn check_triage_names_each_bug_class_once() {
    // MIXED plants six wrong answers of five kinds (see its comments).
    let f = TempFile::new("mixed", MIXED);
    let r = run(&["check", f.path()]);
    r.expect_code(1).out_has("5 bug class(es)");
    assert_eq!(r.last_out_line(), "2 passed, 6 failed");
    // The totals first; no full report by default (more than three mismatches).
    assert!(r.out.starts_with(
        "cases: 2 passed, 6 failed, 0 unsupported, 0 crashed, 0 not run; variants: 1 passed, 4 failed, 0 unsupported\n"
    ));
    assert_eq!(mismatch_lines(&r), [0usize; 0], "{}", r.out);
    let p = f.path();
    let rows: Vec<&str> = r.out.lines().filter(|l| l.contains(" case(s) in ")).collect();
    assert_eq!(rows.len(), 5, "{}", r.out);
    // Lines 2 and 5 round ties away from zero: one class of two cases, named
    // by what the implementation does, with its first example.
    assert!(
        rows[0].contains("2 case(s) in   1 variant(s): `.rn` replaced: ties round away from zero (`.rna`)"),
        "{}",
        r.out
    );
    r.out_has(&format!("cvt.rn.f16.f32; e.g. cvt.rn.f16.f32 3f801000 => 3c00  got 3c01  ({p}:2)"));
    // The swapped f16x2 lanes, the zero-extended s8, the clamp one above MIN.
    r.out_has("packed lanes swapped")
        .out_has("a signed source is zero-extended")
        .out_has("the clamp bound is off by one");
    // --all: every mismatch in full, each with its class, then the summary.
    let all = run(&["check", "--all", f.path()]);
    assert_eq!(mismatch_lines(&all), [2, 3, 4, 5, 7, 8], "{}", all.out);
    // A line without a class comment gets the oracle's class.
    all.out_has("  class    neg/neg/sext").out_has("  bug      class 1 of the summary");
    let pos = all.out.find("bug class(es)").unwrap();
    assert!(all.out[pos..].find(": MISMATCH ").is_none());
    // --class N: the mismatches of class N only; a class that is not there is an error.
    let one = run(&["check", "--class", "1", f.path()]);
    assert_eq!(mismatch_lines(one.expect_code(1)), [2, 5], "{}", one.out);
    run(&["check", "--class", "6", f.path()]).expect_code(2).err_has("--class 6: the run has 5 bug class(es)");
    let t = run(&["check", "--table", f.path()]);
    t.expect_code(1).out_has("cvt.rzi.s32.f64").out_has("unsupported");
    let ok = run(&["check", TempFile::new("ok", "cvt.rn.f16.f32 3f800000 => 3c00 # a/b/c\n").path()]);
    assert_eq!(ok.expect_code(0).out_lines(), ["1 passed, 0 failed"]);
}

#[test]
fn check_reproducers() {
    let f = TempFile::new("mixed", MIXED);
    let r = run(&["check", "--all", "--reproducers", "3", f.path()]);
    r.expect_code(1)
        .out_has("  case     cvt.rn.f16.f32 3f801000 => 3c00\n")
        .out_has("  case     cvt.rzi.s64.f64 c3e0000000000001 => 8000000000000000\n")
        .out_has("// ptx-cvt case: cvt.rn.f16.f32 3f801000 => 3c00")
        .out_has(".version 9.5")
        .out_has(".target sm_90")
        .out_has(".address_size 64")
        .out_has(".visible .entry cvt_case(")
        .out_has(".param .u64 cvt_case_out")
        .out_has("mov.b32 %a, 0x3f801000;")
        .out_has("cvt.rn.f16.f32 %d, %a;")
        .out_has("st.global.b16 [%out], %d;")
        // 8-bit operand through a .b16 temporary
        .out_has(".reg .b8 %a;")
        .out_has("cvt.u8.u16 %a, %t8;")
        .out_has("cvt.s16.s8 %d, %a;");
    // Every mismatch gets its case line; modules only for the first three.
    assert_eq!(r.out.matches("  case     ").count(), 6);
    assert_eq!(r.out.matches(".entry").count(), 3);
    // Issue 11: modules only on request (the default is none).
    let none = run(&["check", "--all", f.path()]);
    none.expect_code(1);
    assert!(!none.out.contains(".entry") && none.out.contains("  case     "), "{}", none.out);
    // Without --all or --class, --reproducers N reports the first N classes' examples with modules.
    let firsts = run(&["check", "--reproducers", "2", f.path()]);
    assert_eq!(mismatch_lines(&firsts), [2, 3], "{}", firsts.out);
    assert_eq!(firsts.out.matches(".entry").count(), 2);
    let all = run(&["check", "--all", "--reproducers", "10", f.path()]);
    assert_eq!(all.out.matches(".entry").count(), 6);
    all.out_has("cvt.rn.f16x2.f32 %d, %a, %b;").out_has("mov.b64 %a, 0xc3e0000000000001;").out_has("st.global.b64");
    // --target and --ptx-version go into the module.
    let t = run(&["check", "--target", "sm_100a", "--ptx-version", "8.6", "--reproducers", "1", f.path()]);
    t.expect_code(1).out_has(".version 8.6\n").out_has(".target sm_100a\n");
    // An x4 .rs form needs sm_100a: without --target the module picks it.
    let x4 = "cvt.rs.satfinite.e4m3x4.f32 3f880000 3f880000 3f880000 3f880000 00000000 => 38383839\n";
    run(&["check", "--reproducers", "1", TempFile::new("x4", x4).path()])
        .expect_code(1)
        .out_has(".target sm_100a")
        .out_has("cvt.rs.satfinite.e4m3x4.f32 %d, {%a, %b, %e, %f}, %rbits;");
}

#[test]
fn check_json_summary() {
    let f = TempFile::new("mixed", MIXED);
    let r = run(&["check", "--json", "--all", "--reproducers", "3", f.path()]);
    r.expect_code(1);
    let lines = r.out_lines();
    assert_eq!(lines.len(), 6 + 1, "{}", r.out);
    for (k, l) in lines[..6].iter().enumerate() {
        let o = json(l);
        let o = o.get("mismatch");
        let _ = o.get("rule").str();
        assert!(o.get("case").str().starts_with(o.get("instruction").str()));
        // The module comes with the first three only.
        assert_eq!(matches!(o, Json::Obj(ref m) if m.contains_key("ptx")), k < 3, "{l}");
    }
    let first = json(lines[0]);
    let first = first.get("mismatch");
    assert_eq!(first.get("class").str(), "normal/normal/tie-even");
    assert!(first.get("ptx").str().contains("cvt.rn.f16.f32 %d, %a;"));
    // No class comment: the oracle's class.
    assert_eq!(json(lines[2]).get("mismatch").get("class").str(), "neg/neg/sext");
    let summary = json(lines[6]);
    let summary = summary.get("summary");
    let cases = summary.get("cases");
    assert_eq!((cases.get("passed").num(), cases.get("failed").num(), cases.get("unsupported").num()), (2.0, 6.0, 0.0));
    assert_eq!(summary.get("stopped_early"), &Json::Null);
    let classes = summary.get("bug_classes").arr();
    assert_eq!(classes.len(), 5);
    let tie = &classes[0];
    assert_eq!(
        (tie.get("rule").str(), tie.get("explanation").get("name").str(), tie.get("cases").num()),
        ("round-to-float", "rounding-rna", 2.0)
    );
    assert_eq!((tie.get("id").num(), tie.get("scope").str()), (1.0, "cvt.rn.f16.f32"));
    // Every mismatch names its class in the summary: lines 2 and 5 are class 1.
    let ids: Vec<f64> = lines[..6].iter().map(|l| json(l).get("mismatch").get("bug_class").num()).collect();
    assert_eq!((ids[0], ids[3]), (1.0, 1.0), "{ids:?}");
    let ex = tie.get("example");
    assert_eq!((ex.get("file").str(), ex.get("line").num()), (f.path(), 2.0));
    assert_eq!(ex.get("case").str(), "cvt.rn.f16.f32 3f801000 => 3c00");
    let per_variant = summary.get("per_variant").arr();
    assert_eq!(per_variant.len(), 5);
    let n: f64 = per_variant.iter().map(|v| v.get("failed").num()).sum();
    assert_eq!(n, 6.0);
    // With --max-failures the summary says where it stopped.
    let s = run(&["check", "--json", "--max-failures", "2", f.path()]);
    s.expect_code(1);
    let l = s.out_lines();
    assert_eq!(l.len(), 2 + 1, "{}", s.out);
    let stop = json(l[2]).get("summary").get("stopped_early").clone();
    assert_eq!((stop.get("file").str(), stop.get("line").num(), stop.get("max_failures").num()), (f.path(), 3.0, 2.0));
}

/// ptxas as installed by scripts/get-ptxas.sh, if it is there.
fn installed_ptxas() -> Option<PathBuf> {
    let cache = match std::env::var_os("XDG_CACHE_HOME") {
        Some(d) if !d.is_empty() => vec![PathBuf::from(d)],
        _ => vec![],
    };
    let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache"));
    cache.into_iter().chain(home).map(|c| c.join("ptx-cvt/nvcc/nvidia/cu13/bin/ptxas")).find(|p| p.is_file())
}

#[test]
fn check_reproducers_assemble_with_ptxas() {
    let Some(ptxas) = installed_ptxas() else {
        eprintln!("skipped: no ptxas at ~/.cache/ptx-cvt/nvcc/nvidia/cu13/bin/ptxas (run scripts/get-ptxas.sh)");
        return;
    };
    // One mismatch each: scalar f32→f16, s8 with 8-bit registers, x2 f16x2.f32,
    // a 64-bit case, an 8-bit x2 destination, an x4 .rs form (sm_100a).
    let cases = concat!(
        "cvt.rn.f16.f32 3f801000 => 3c01\n",
        "cvt.s16.s8 c2 => 00c2\n",
        "cvt.rni.s8.f32 3f800000 => 02\n",
        "cvt.rn.f16x2.f32 3f800000 40000000 => 40003c01\n",
        "cvt.rzi.s64.f64 c3e0000000000001 => 8000000000000001\n",
        "cvt.rn.satfinite.e4m3x2.f32 7f800000 3f800000 => 7f38\n",
        "cvt.rs.satfinite.e4m3x4.f32 3f880000 3f880000 3f880000 3f880000 00000000 => 38383839\n",
    );
    let f = TempFile::new("ptxas", cases);
    let r = run(&["check", "--json", "--all", "--reproducers", "100", f.path()]);
    r.expect_code(1);
    let lines = r.out_lines();
    assert_eq!(lines.len(), 7 + 1, "{}", r.out);
    let dir = std::env::temp_dir();
    for l in &lines[..7] {
        let o = json(l);
        let o = o.get("mismatch");
        let ptx = o.get("ptx").str();
        let target = ptx.lines().find_map(|l| l.strip_prefix(".target ")).expect(".target line").to_string();
        let n = o.get("line").num() as usize;
        let src = dir.join(format!("ptx-cvt-cli-{}-repro-{n}.ptx", std::process::id()));
        let obj = src.with_extension("cubin");
        std::fs::write(&src, ptx).unwrap();
        let out = Command::new(&ptxas)
            .arg(format!("-arch={target}"))
            .arg(&src)
            .arg("-o")
            .arg(&obj)
            .output()
            .expect("run ptxas");
        let _ = std::fs::remove_file(&src);
        let _ = std::fs::remove_file(&obj);
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "ptxas -arch={target} rejected the reproducer of {}:\n{}\n--- module\n{ptx}",
            o.get("case").str(),
            String::from_utf8_lossy(&out.stderr)
        );
        if o.get("instruction").str().contains("x4") {
            assert_eq!(target, "sm_100a");
        }
    }
}
