//! Reading case lines in constant memory, with clear errors for non-UTF-8
//! text and for lines too long to be case lines: line by line ([`lines`]),
//! or in blocks of whole lines ([`blocks`], for checking lines in parallel)
//! that give every line the same text or error as [`lines`].

use std::fmt;
use std::io::{BufRead, ErrorKind, Read};

/// Longest line read into memory; longer lines are reported and skipped.
const LINE_CAP: usize = 1 << 20;

/// Why a line is not text to parse.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineError {
    /// The reader failed (its message); the input ends there.
    Read(String),
    /// Longer than any case line: `len` bytes without the newline.
    TooLong { len: usize },
    /// Not UTF-8.
    NotUtf8,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Read(e) => write!(f, "read error: {e}"),
            LineError::TooLong { len } => {
                write!(f, "line is {len} bytes long; case lines are at most {}", ptx_cvt::caseline::MAX_LINE)
            }
            LineError::NotUtf8 => f.write_str("line is not valid UTF-8"),
        }
    }
}

impl std::error::Error for LineError {}

/// Lines of a reader, as strings, with errors for non-UTF-8 and huge lines
/// (which are skipped without holding them in memory). A UTF-8 byte-order
/// mark at the start is skipped.
pub fn lines(r: impl BufRead) -> impl Iterator<Item = Result<String, LineError>> {
    let mut r = r;
    let mut failed = false;
    let mut first = true;
    std::iter::from_fn(move || {
        if std::mem::take(&mut first) {
            skip_bom(&mut r);
        }
        if failed {
            return None;
        }
        let mut buf = Vec::new();
        let mut total = 0usize;
        let mut newline = false;
        loop {
            let chunk = match r.fill_buf() {
                Ok(c) => c,
                Err(e) => {
                    failed = true;
                    return Some(Err(LineError::Read(e.to_string())));
                }
            };
            if chunk.is_empty() {
                if total == 0 {
                    return None;
                }
                break;
            }
            let (take, found) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if buf.len() < LINE_CAP {
                buf.extend_from_slice(&chunk[..take.min(LINE_CAP - buf.len() + 1)]);
            }
            total += take;
            r.consume(take);
            if found {
                newline = true;
                break;
            }
        }
        if total > LINE_CAP {
            return Some(Err(LineError::TooLong { len: total - newline as usize }));
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        Some(String::from_utf8(buf).map_err(|_| LineError::NotUtf8))
    })
}

/// Skip a UTF-8 byte-order mark (EF BB BF) at the reader's position.
fn skip_bom(r: &mut impl BufRead) {
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let mut seen = 0;
    while seen < BOM.len() {
        let Ok(chunk) = r.fill_buf() else { return };
        if chunk.is_empty() {
            return;
        }
        let n = chunk.len().min(BOM.len() - seen);
        if chunk[..n] != BOM[seen..seen + n] {
            return;
        }
        r.consume(n);
        seen += n;
    }
}

/// What [`blocks`] yields.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece {
    /// Whole lines, the first numbered `first` (from 1). Each ends in `\n`
    /// except, perhaps, the input's last; read them with [`block_lines`].
    Lines { first: usize, text: Vec<u8> },
    /// Line `line` could not be held: too long, or a read error (the input ends there).
    Bad { line: usize, error: LineError },
}

/// The input in blocks of whole lines of about `block` bytes (at least 16),
/// holding at most `block` + 1 MiB: a line longer than [`lines`] holds is
/// skipped as [`Piece::Bad`] with [`lines`]'s error. A leading byte-order
/// mark is skipped as [`lines`] skips it.
pub fn blocks<R: Read>(r: R, block: usize) -> Blocks<R> {
    Blocks {
        r,
        block: block.max(16),
        buf: Vec::new(),
        spare: Vec::new(),
        line: 1,
        started: false,
        done: false,
        queued: None,
    }
}

/// The iterator of [`blocks`].
pub struct Blocks<R> {
    r: R,
    block: usize,
    /// The start of a line not yet complete.
    buf: Vec<u8>,
    /// Buffers handed back, for the next blocks.
    spare: Vec<Vec<u8>>,
    /// Number of the line `buf` starts.
    line: usize,
    started: bool,
    done: bool,
    /// A piece to yield after the current one.
    queued: Option<Piece>,
}

/// Append what one read gives, at most `most` bytes (0 at the end of the
/// input). One read, not a full block: a pipe's lines are checked as they come.
fn read_some(r: &mut impl Read, buf: &mut Vec<u8>, most: usize) -> std::io::Result<usize> {
    let have = buf.len();
    buf.resize(have + most, 0);
    let n = loop {
        match r.read(&mut buf[have..]) {
            Ok(n) => break n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                buf.truncate(have);
                return Err(e);
            }
        }
    };
    buf.truncate(have + n);
    Ok(n)
}

impl<R: Read> Blocks<R> {
    /// Hand back a block's text once read, to hold a later block (a
    /// reader of many blocks then allocates a few buffers only).
    pub fn recycle(&mut self, text: Vec<u8>) {
        if self.spare.len() < 4 {
            self.spare.push(text);
        }
    }

    /// Yield the whole lines of `buf`, keeping the incomplete rest.
    fn take_lines(&mut self, upto: usize) -> Piece {
        let mut rest = self.spare.pop().unwrap_or_default();
        rest.clear();
        rest.extend_from_slice(&self.buf[upto..]);
        self.buf.truncate(upto);
        let text = std::mem::replace(&mut self.buf, rest);
        let first = self.line;
        self.line += count_newlines(&text);
        Piece::Lines { first, text }
    }

    /// Skip the rest of a line too long to hold; its length without the newline.
    fn skip_long_line(&mut self) -> Result<usize, std::io::Error> {
        let mut len = self.buf.len();
        self.buf.clear();
        loop {
            if read_some(&mut self.r, &mut self.buf, self.block)? == 0 {
                return Ok(len);
            }
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                len += i;
                self.buf.drain(..=i);
                return Ok(len);
            }
            len += self.buf.len();
            self.buf.clear();
        }
    }
}

impl<R: Read> Iterator for Blocks<R> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        if let Some(p) = self.queued.take() {
            return Some(p);
        }
        loop {
            if self.done {
                return None;
            }
            // The carried part holds no newline: search only what is read now.
            let mut carried = self.buf.len();
            let end = match read_some(&mut self.r, &mut self.buf, self.block) {
                Ok(n) => n == 0,
                Err(e) => {
                    self.done = true;
                    let error = LineError::Read(e.to_string());
                    let whole = self.buf.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                    if whole == 0 {
                        return Some(Piece::Bad { line: self.line, error });
                    }
                    let p = self.take_lines(whole);
                    self.queued = Some(Piece::Bad { line: self.line, error });
                    return Some(p);
                }
            };
            if !self.started {
                // lines() drops a BOM, or an input that is only the start of one.
                const BOM: &[u8] = b"\xef\xbb\xbf";
                if !end && self.buf.len() < BOM.len() && BOM.starts_with(&self.buf) {
                    continue;
                }
                self.started = true;
                if self.buf.starts_with(BOM) || (end && BOM.starts_with(&self.buf)) {
                    self.buf.drain(..self.buf.len().min(3));
                }
                // What was carried is that BOM's start: search it all.
                carried = 0;
            }
            if end {
                self.done = true;
                if self.buf.is_empty() {
                    return None;
                }
                return Some(self.take_lines(self.buf.len()));
            }
            if let Some(i) = self.buf[carried..].iter().rposition(|&b| b == b'\n') {
                return Some(self.take_lines(carried + i + 1));
            }
            if self.buf.len() > LINE_CAP {
                let line = self.line;
                self.line += 1;
                match self.skip_long_line() {
                    Ok(len) => return Some(Piece::Bad { line, error: LineError::TooLong { len } }),
                    Err(e) => {
                        self.done = true;
                        return Some(Piece::Bad { line, error: LineError::Read(e.to_string()) });
                    }
                }
            }
        }
    }
}

/// The number of newlines in `text` (in 255-byte runs the compiler vectorises).
pub fn count_newlines(text: &[u8]) -> usize {
    text.chunks(255).map(|c| c.iter().fold(0u8, |n, &b| n + (b == b'\n') as u8) as usize).sum()
}

/// The lines of a [`Piece::Lines`] block, each as [`lines`] gives it: the
/// text without its newline, or an error.
pub fn block_lines(text: &[u8]) -> impl Iterator<Item = Result<&str, LineError>> {
    let (body, last_ends) = match text.strip_suffix(b"\n") {
        Some(b) => (b, true),
        None => (text, false),
    };
    let mut split = body.split(|&b| b == b'\n').peekable();
    let empty = text.is_empty();
    std::iter::from_fn(move || {
        let raw = split.next().filter(|_| !empty)?;
        Some(line_text(raw, last_ends || split.peek().is_some()))
    })
}

/// One line's text as [`lines`] judges it: `raw` without its newline, and
/// whether it had one (lines() counts the newline against its cap).
pub fn line_text(raw: &[u8], newline: bool) -> Result<&str, LineError> {
    if raw.len() + newline as usize > LINE_CAP {
        return Err(LineError::TooLong { len: raw.len() });
    }
    std::str::from_utf8(raw).map_err(|_| LineError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_is_skipped_once() {
        let text = b"\xef\xbb\xbfcvt.u8.u8 01 => 01\n\xef\xbb\xbfx\n";
        let got: Vec<_> = lines(&text[..]).collect();
        assert_eq!(got, vec![Ok("cvt.u8.u8 01 => 01".to_string()), Ok("\u{feff}x".to_string())]);
        let got: Vec<_> = lines(&b"\xef\xbb"[..]).collect();
        assert!(got.is_empty(), "{got:?}");
    }

    /// Every line as `(number, text or error)`, from `lines`.
    fn by_lines(input: &[u8], chunk: usize) -> Vec<(usize, Result<String, LineError>)> {
        let r = std::io::BufReader::with_capacity(chunk, input);
        lines(r).enumerate().map(|(i, l)| (i + 1, l)).collect()
    }

    /// The same from `blocks`, numbered by the pieces.
    fn by_blocks(input: impl Read, block: usize) -> Vec<(usize, Result<String, LineError>)> {
        let mut out = Vec::new();
        let mut next = 1;
        for p in blocks(input, block) {
            match p {
                Piece::Lines { first, text } => {
                    assert_eq!(first, next, "block numbering");
                    for l in block_lines(&text) {
                        out.push((next, l.map(str::to_string)));
                        next += 1;
                    }
                }
                Piece::Bad { line, error } => {
                    assert_eq!(line, next, "bad-line numbering");
                    out.push((line, Err(error)));
                    next += 1;
                }
            }
        }
        out
    }

    /// Seeded inputs full of edge cases: CRLF, BOMs, non-UTF-8, empty lines,
    /// lines at and around the cap, no final newline.
    fn samples() -> Vec<Vec<u8>> {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let pieces: [&[u8]; 9] = [
            b"cvt.rn.f16.f32 3f800000 => 3c00",
            b"\r",
            b"\n",
            b"\n",
            b"# c",
            b"\xef\xbb\xbf",
            b"\xff",
            b" ",
            b"\xc3\xa9",
        ];
        let mut out: Vec<Vec<u8>> = vec![
            vec![],
            b"\xef\xbb".to_vec(),
            b"\xef\xbb\xbf".to_vec(),
            b"\xef\xbbx\n".to_vec(),
            b"\n".to_vec(),
            b"a".to_vec(),
        ];
        for len in [LINE_CAP - 1, LINE_CAP, LINE_CAP + 1, LINE_CAP + 5000] {
            for end in [&b""[..], b"\n", b"\r\n"] {
                let mut v = b"x\n".to_vec();
                v.extend(std::iter::repeat_n(b'a', len));
                v.extend_from_slice(end);
                out.push(v.clone());
                v.extend_from_slice(b"y\n");
                out.push(v);
            }
        }
        for _ in 0..200 {
            let mut v = Vec::new();
            for _ in 0..rnd(60) {
                v.extend_from_slice(pieces[rnd(pieces.len() as u64) as usize]);
            }
            out.push(v);
        }
        out
    }

    #[test]
    fn blocks_give_what_lines_gives() {
        for input in samples() {
            let want = by_lines(&input, 8192);
            for block in [16, 17, 100, 4096, 1 << 20] {
                assert_eq!(by_blocks(&input[..], block), want, "block {block}, input {:?}", clip(&input));
            }
        }
    }

    /// A reader that gives 1 to 5 bytes a read, like a slow pipe.
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.1 = self.1 % 5 + 1;
            let n = buf.len().min(self.0.len()).min(self.1);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn blocks_of_a_trickling_reader() {
        for input in samples().iter().filter(|i| i.len() < 10_000) {
            let want = by_lines(input, 8192);
            for block in [16, 4096] {
                assert_eq!(by_blocks(Trickle(input, 0), block), want, "block {block}, input {:?}", clip(input));
            }
        }
    }

    fn clip(v: &[u8]) -> String {
        String::from_utf8_lossy(&v[..v.len().min(80)]).into_owned()
    }

    /// A reader that fails after some bytes.
    struct Failing<'a>(&'a [u8]);
    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.0.len()).min(7);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn read_errors_end_the_input_at_the_right_line() {
        for text in [&b"a\nb\nc"[..], b"a\nb\n", b"", b"abc"] {
            let want: Vec<_> =
                lines(std::io::BufReader::new(Failing(text))).enumerate().map(|(i, l)| (i + 1, l)).collect();
            assert!(want
                .last()
                .is_some_and(|(_, l)| l.as_ref().is_err_and(|e| e.to_string().contains("disk on fire"))));
            for block in [16, 4096] {
                assert_eq!(by_blocks(Failing(text), block), want, "{text:?}");
            }
        }
    }
}
