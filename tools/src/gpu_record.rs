//! The files `ptx-cvt gpu --out` writes, each rewritten atomically as soon
//! as it changes: a run cut short leaves every finished variant's results
//! and a summary that says which variants ran, failed or never started.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use ptx_cvt::{gen, AcceptSet, Cvt};

use crate::output::write_atomic_unsynced;

/// How one variant ended.
pub enum Outcome {
    Pending,
    Ran { cases: usize, mismatches: usize },
    Failed(String),
}

pub struct Record {
    dir: Option<PathBuf>,
    header: String,
    pub outcomes: BTreeMap<Cvt, Outcome>,
    mismatches: String,
    /// The first write error (reported once; the run goes on).
    pub write_error: Option<String>,
}

impl Record {
    pub fn new(dir: Option<PathBuf>, header: String, variants: impl Iterator<Item = Cvt>) -> Record {
        let mut r = Record {
            dir,
            header,
            outcomes: variants.map(|c| (c, Outcome::Pending)).collect(),
            mismatches: String::new(),
            write_error: None,
        };
        if let Some(d) = &r.dir {
            if let Err(e) = fs::create_dir_all(d) {
                r.fail_write(format!("cannot create {}: {e}", d.display()));
            }
        }
        r.write_summary();
        r
    }

    fn fail_write(&mut self, e: String) {
        if self.write_error.is_none() {
            fail!("{e}");
            self.write_error = Some(e);
        }
    }

    fn write(&mut self, name: &str, text: &str) {
        let Some(dir) = &self.dir else { return };
        let path = dir.join(name);
        if self.write_error.is_none() {
            if let Err(e) = write_atomic_unsynced(&path, text.as_bytes()) {
                self.fail_write(e);
            }
        }
    }

    pub fn write_summary(&mut self) {
        let mut s = format!("{}variant\tcases\tmismatches\tstatus\n", self.header);
        for (c, o) in &self.outcomes {
            let row = match o {
                Outcome::Pending => "0\t0\tnot run".to_string(),
                Outcome::Ran { cases, mismatches: 0 } => format!("{cases}\t0\tok"),
                Outcome::Ran { cases, mismatches } => format!("{cases}\t{mismatches}\tmismatch"),
                Outcome::Failed(e) => format!("0\t0\terror: {}", e.lines().next().unwrap_or("")),
            };
            s.push_str(&format!("{c}\t{row}\n"));
        }
        self.write("summary.txt", &s);
    }

    /// A variant that ran: the case lines kept, and each wrong answer's
    /// case line with the oracle's set.
    pub fn ran(&mut self, c: &Cvt, cases: usize, lines: &[String], wrong: &[(String, AcceptSet)]) {
        self.write(&gen::file_name(c), &format!("# ptx-cvt case lines v1\n{}{}\n", self.header, lines.join("\n")));
        if !wrong.is_empty() {
            for (line, expected) in wrong {
                self.mismatches.push_str(&format!("{line}  # oracle: {expected}\n"));
            }
            let m = self.mismatches.clone();
            self.write("mismatches.cases", &m);
        }
        self.outcomes.insert(*c, Outcome::Ran { cases, mismatches: wrong.len() });
        self.write_summary();
    }

    pub fn failed(&mut self, c: &Cvt, e: String) {
        self.outcomes.insert(*c, Outcome::Failed(e));
        self.write_summary();
    }
}
