//! Progress on stderr for the commands that run an implementation: shown
//! only when stderr is a terminal, so logs and pipes get nothing.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};
use ptx_cvt_harness::Triage;

/// The note printed at the first Ctrl-C of a run that keeps its report.
pub const INTERRUPT_NOTE: &str =
    "interrupted: finishing the batch in flight, then the report of what ran (Ctrl-C again quits at once)";

/// The bar of the commands that count inputs (sweep, atlas).
pub const INPUTS: &str = "{bar:40} {percent}% of {human_len} inputs, {elapsed} elapsed, eta {eta}";

/// A bar over `total` units (a spinner without one); hidden off a terminal.
pub fn bar(total: Option<u64>, template: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = match total {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    let template = if total.is_some() { template.to_string() } else { format!("{{spinner}} {template}") };
    if let Ok(style) = ProgressStyle::with_template(&template) {
        b.set_style(style);
    }
    b.enable_steady_tick(std::time::Duration::from_millis(250));
    b
}

/// `12 passed, 3 failed, 1 declined`: the tally so far, for a bar's message.
pub fn tally(t: &Triage) -> String {
    let c = t.counts();
    let mut s = format!("{} passed, {} failed", c.passed, c.failed);
    for (n, w) in [(c.unsupported, "declined"), (c.crashed, "crashed")] {
        if n > 0 {
            s.push_str(&format!(", {n} {w}"));
        }
    }
    s
}
