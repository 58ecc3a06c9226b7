//! The floor for `ptx-cvt check` (scripts/bench-check.sh): read a case-line
//! file in 256 KiB blocks, split at newlines, and hex-parse every operand and
//! result token of every line, on one thread, folding the values into a sum
//! so that nothing is optimised away. No instruction parsing, no evaluation.
//! A standalone program with no dependencies: `rustc -O check-floor.rs`.
//!
//!   check-floor FILE   prints `CASES SUM` (case lines: not blank, not only a comment)

use std::io::Read;

fn hex(t: &[u8]) -> Option<u64> {
    if !matches!(t.len(), 2 | 4 | 8 | 16) {
        return None;
    }
    let mut v = 0u64;
    for &b in t {
        v = v << 4 | (b as char).to_digit(16)? as u64;
    }
    Some(v)
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: check-floor FILE");
    let mut f = std::fs::File::open(&path).expect("open the file");
    let mut buf = vec![0u8; 1 << 18];
    let mut carry: Vec<u8> = Vec::new();
    let (mut cases, mut sum) = (0u64, 0u64);
    loop {
        let n = f.read(&mut buf).expect("read");
        carry.extend_from_slice(&buf[..n]);
        let whole = if n == 0 { carry.len() } else { carry.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) };
        for line in carry[..whole].split(|&b| b == b'\n') {
            let body = line.split(|&b| b == b'#').next().unwrap_or(line);
            let mut toks = body.split(|b| b.is_ascii_whitespace()).filter(|t| !t.is_empty());
            if toks.next().is_some() {
                cases += 1;
                sum = toks.filter_map(hex).fold(sum, |s, v| s.wrapping_mul(31).wrapping_add(v));
            }
        }
        carry.drain(..whole);
        if n == 0 {
            break;
        }
    }
    println!("{cases} {sum}");
}
