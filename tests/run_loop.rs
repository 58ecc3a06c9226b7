//! Issue 34: stopping a run keeps its work, and long runs show progress on
//! a terminal only. A signal is sent the way a terminal sends Ctrl-C: to
//! the whole foreground process group (here, the group ptx-cvt leads).
//! The adapters are small shell programs that answer `0000` to each case
//! slowly, so that the run is still going when the signal comes.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ptx_cvt_tests::{bin, workspace};
use serde_json::Value;

/// Answers every case `0000`, 20 ms apart (about 50 cases a second).
const SLOW: &str = r#"while read -r l; do [ -n "$l" ] || continue; sleep 0.02; echo "${l%%=>*}=> 0000"; done"#;

/// 480 cases of one variant (vectors/compact).
const FILE: &str = "vectors/compact/cvt.rn.f16.f32.cases";

fn start(args: &[&str]) -> Child {
    Command::new(bin())
        .args(args)
        .current_dir(workspace())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, as a shell gives a foreground job.
        .process_group(0)
        .spawn()
        .expect("start ptx-cvt")
}

/// SIGINT to the group `child` leads: what Ctrl-C on its terminal does.
fn ctrl_c(child: &Child) {
    // SAFETY: kill(2) on the test's own child's group; no memory is touched.
    unsafe {
        libc::kill(-(child.id() as i32), libc::SIGINT);
    }
}

/// Wait for the child at most `limit`; its exit code, stdout and stderr.
fn finish(mut child: Child, limit: Duration) -> (Option<i32>, String, String) {
    let until = Instant::now() + limit;
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            let (mut out, mut err) = (String::new(), String::new());
            child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            return (s.code(), out, err);
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("ptx-cvt still running after {limit:?} (a signal did not stop it)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn summary(out: &str) -> Value {
    let last = out.lines().last().unwrap_or_else(|| panic!("no output:\n{out}"));
    let v: Value = serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {last}"));
    v["summary"].clone()
}

/// Ctrl-C 3 s into the run: it must end with status 130 and a JSON
/// summary that says it was interrupted; the summary and stderr.
fn interrupted_after_3_s(child: Child) -> (Value, String) {
    std::thread::sleep(Duration::from_millis(3000));
    ctrl_c(&child);
    let (code, out, err) = finish(child, Duration::from_secs(20));
    assert_eq!(code, Some(130), "{out}\n{err}");
    let s = summary(&out);
    assert_eq!(s["interrupted"], true, "{s}");
    (s, err)
}

#[test]
fn ctrl_c_during_check_keeps_the_report() {
    let child = start(&["check", "--json", "--batch", "20", "--target-cmd", SLOW, FILE]);
    let (s, err) = interrupted_after_3_s(child);
    let c = &s["cases"];
    let answered = c["passed"].as_u64().unwrap() + c["failed"].as_u64().unwrap();
    // Some cases were answered before the signal, and the batch in flight
    // finished: the adapter did not see the Ctrl-C, so nothing crashed.
    assert!((20..480).contains(&answered), "{s}");
    assert_eq!(c["crashed"], 0, "{s}\n{err}");
    // An adapter answering 0000 fails cases: they are diagnosed as usual.
    assert!(s["bug_classes"].as_array().is_some_and(|b| !b.is_empty()), "{s}");
    assert!(err.contains("interrupted"), "{err}");
}

#[test]
fn ctrl_c_during_fuzz_keeps_the_report() {
    let child = start(&[
        "fuzz",
        "--json",
        "--seconds",
        "60",
        "--batch",
        "20",
        "--filter",
        "cvt.rn.f16.f32",
        "--target-cmd",
        SLOW,
    ]);
    let (s, err) = interrupted_after_3_s(child);
    assert!(s["seconds"].as_f64().unwrap() < 30.0, "{s}");
    assert!(s["cases"]["failed"].as_u64().unwrap() > 0, "{s}");
    assert_eq!(s["cases"]["crashed"], 0, "{s}\n{err}");
}

#[test]
fn second_ctrl_c_quits_at_once_and_kills_a_hung_adapter() {
    let dir = std::env::temp_dir().join(format!("ptx-cvt-run-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("adapter.pid");
    // Hangs on the first case (sleeps in its own process, which it becomes).
    let hung = format!("echo $$ > {}; read -r l; exec sleep 1000", pid_file.display());
    let child = start(&["check", "--timeout", "600", "--target-cmd", &hung, FILE]);
    let until = Instant::now() + Duration::from_secs(10);
    while !pid_file.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    ctrl_c(&child);
    std::thread::sleep(Duration::from_millis(300));
    ctrl_c(&child);
    let (code, out, err) = finish(child, Duration::from_secs(5));
    assert_eq!(code, Some(130), "{out}\n{err}");
    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    // SAFETY: signal 0 only asks whether the process exists.
    while unsafe { libc::kill(pid, 0) } == 0 {
        assert!(Instant::now() < until, "the hung adapter {pid} outlived ptx-cvt");
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Progress shows on a terminal (a pseudo-terminal made by util-linux
/// `script`) and nowhere else.
#[test]
fn progress_on_a_terminal_only() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` (util-linux) to make a pseudo-terminal");
        return;
    }
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let fast = SLOW.replace("0.02", "0.005");
    let cmd = format!(
        "{} check --natural-widths --batch 20 --target-cmd {} {FILE}",
        quote(&bin().display().to_string()),
        quote(&fast)
    );
    let o = Command::new("script").args(["-qefc", &cmd, "/dev/null"]).current_dir(workspace()).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("% of the input"), "no progress on a terminal:\n{text}");
    assert!(text.contains(" 0 crashed, 0 not run"), "{text}");
    let o = Command::new(bin())
        .args(["check", "--natural-widths", "--batch", "20", "--target-cmd", &fast, FILE])
        .current_dir(workspace())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("% of the input") && !err.contains('\r'), "progress in a pipe:\n{err}");
}
