//! Reading case lines: line by line in constant memory, with clear errors
//! for non-UTF-8 text and for lines too long to be case lines.

use std::io::BufRead;

/// Longest line read into memory; longer lines are reported and skipped.
const LINE_CAP: usize = 1 << 20;

/// Lines of a reader, as strings, with errors for non-UTF-8 and huge lines
/// (which are skipped without holding them in memory). A UTF-8 byte-order
/// mark at the start is skipped.
pub fn lines(r: impl BufRead) -> impl Iterator<Item = Result<String, String>> {
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
                    return Some(Err(format!("read error: {e}")));
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
            let len = total - newline as usize;
            return Some(Err(format!(
                "line is {len} bytes long; case lines are at most {}",
                ptx_cvt::caseline::MAX_LINE
            )));
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        Some(String::from_utf8(buf).map_err(|_| "line is not valid UTF-8".to_string()))
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
}
