//! A process adapter that fails now and then, for tests/crash.rs: it answers
//! case lines (the protocol of harness/src/process.rs) with the oracle's fast
//! engine, a planted wrong bit on about one case in 97 so that runs have
//! failures too, and `error:` where the engine declines. With `--state FILE`
//! it fails at a pseudo-random line of each life (the life count is kept in
//! FILE, so a run is reproducible), in one of `--modes`:
//!   exit     exits with status 3          segv   raises SIGSEGV
//!   kill     raises SIGKILL               abort  aborts (SIGABRT)
//!   hang     stops answering              garbage  answers a line that is no case
//!   wrong    answers for other operands   short  answers half the request line
//! `--every N`: failures are on average N lines apart (default 3000).
//! `--batch-end`: expects an empty line after each batch and checks it.
//! Without --state it never fails.

use std::io::{BufRead, Write};

use ptx_cvt::eval::fmt_hex;
use ptx_cvt::parse_case;
use ptx_cvt_harness::{Answer, FastEngine, Implementation};

const MODES: [&str; 8] = ["exit", "segv", "kill", "abort", "hang", "garbage", "wrong", "short"];

fn mix(mut x: u64) -> u64 {
    // splitmix64's finaliser: a fixed, well-spread hash.
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let every: u64 = get("--every").map_or(3000, |v| v.parse().expect("--every N"));
    let seed: u64 = get("--seed").map_or(1, |v| v.parse().expect("--seed N"));
    let modes: Vec<String> = get("--modes")
        .map_or_else(|| MODES.iter().map(|m| m.to_string()).collect(), |m| m.split(',').map(String::from).collect());
    let batch_end = args.iter().any(|a| a == "--batch-end");
    // Which line of this life fails, and how.
    let plan = get("--state").map(|path| {
        let life: u64 = std::fs::read_to_string(&path).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0);
        std::fs::write(&path, format!("{}\n", life + 1)).expect("write the state file");
        let h = mix(seed ^ mix(life + 1));
        let at = 1 + h % (2 * every);
        let mode = modes[(mix(h) % modes.len() as u64) as usize].clone();
        (at, mode)
    });
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut n = 0u64;
    let mut engine = FastEngine;
    let mut in_batch = false;
    for line in stdin.lock().lines() {
        let line = line.expect("read stdin");
        if line.is_empty() {
            assert!(batch_end && in_batch, "flaky: an empty line where none was due");
            in_batch = false;
            continue;
        }
        in_batch = true;
        n += 1;
        let case = parse_case(&line).expect("a request line").expect("not a comment");
        let w = case.dst_width();
        let answer = match engine.eval(&case.instr, &case.operands, w).expect("the engine answers") {
            Answer::Bits(b) => {
                let key = case.operands.iter().fold(mix(case.instr.to_string().len() as u64), |h, o| mix(h ^ o.bits));
                let b = if key % 97 == 0 { b ^ 1 } else { b };
                format!("{} => {}", &line[..line.find(" =>").expect("=>")], fmt_hex(b, w))
            }
            Answer::Declined(why) => format!("error: {why}"),
        };
        let fail = plan.as_ref().filter(|(at, _)| *at == n).map(|(_, m)| m.as_str());
        let text = match fail {
            None => answer,
            Some("exit") => std::process::exit(3),
            Some("segv") => {
                // SAFETY: signal disposition and raise on this process only. The
                // default action first: std's own handler would ignore a raised SIGSEGV.
                unsafe {
                    libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                    libc::raise(libc::SIGSEGV);
                }
                unreachable!("SIGSEGV ends the process")
            }
            Some("kill") => {
                // SAFETY: as above.
                unsafe { libc::raise(libc::SIGKILL) };
                unreachable!("SIGKILL ends the process")
            }
            Some("abort") => std::process::abort(),
            Some("hang") => loop {
                std::thread::sleep(std::time::Duration::from_secs(60));
            },
            Some("garbage") => "%%% flaky garbage %%%".to_string(),
            Some("wrong") => {
                let ops: Vec<String> = case.operands.iter().map(|o| fmt_hex(o.bits ^ 1, o.width)).collect();
                format!("{} {} => {}", case.instr, ops.join(" "), "0".repeat(w as usize / 4))
            }
            Some("short") => line[..line.len() / 2].to_string(),
            Some(m) => panic!("flaky: unknown mode {m}"),
        };
        writeln!(out, "{text}").and_then(|_| out.flush()).expect("write stdout");
    }
}
