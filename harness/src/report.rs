//! One mismatch report, the same in every command: as text for people and
//! as JSON with stable keys for programs.

//! Nothing here evaluates: a [`Mismatch`] is built, its diagnosis included,
//! in [`crate::mismatch`].

use ptx_cvt::accept::width_mask;
use ptx_cvt::exact::decode;
use ptx_cvt::{AcceptSet, Case, Cvt, PtxVersion, Target};
use serde_json::{json, Value};

pub use crate::mismatch::{comment_class, Mismatch, Origin};
use crate::reproducer::{default_target, ptx_snippet};

/// Human reading of result bits in the destination type, e.g. `3c00 (1)`,
/// lane by lane for packed types: `3c004000 (1, 2)`.
pub fn describe_bits(c: &Cvt, bits: u64, width: u32) -> String {
    let n = c.dtype.bits();
    let hex = ptx_cvt::eval::fmt_hex(bits, width);
    if c.dtype.is_packed() {
        let lb = c.dtype.lane_bits();
        let lanes: Vec<String> = (0..c.dtype.lanes())
            .rev()
            .map(|i| decode(c.dtype.format(), (bits >> (i * lb)) & width_mask(lb)).to_string())
            .collect();
        return format!("{hex} ({})", lanes.join(", "));
    }
    let v = decode(c.dtype.format(), bits & width_mask(n));
    let ext = if width > n && bits & !width_mask(n) != 0 && !c.dtype.format().is_signed_int() {
        " (upper bits not zero)"
    } else {
        ""
    };
    format!("{hex} ({v}){ext}")
}

/// Human reading of an acceptance set.
pub fn describe_set(c: &Cvt, set: &AcceptSet) -> String {
    match set.single() {
        Some(b) => describe_bits(c, b, set.width),
        None => format!("{set} (any of these)"),
    }
}

impl Mismatch {
    /// A PTX module that runs just this case, on `target` if that has the
    /// form, else on the first of a few targets that do.
    pub fn ptx(&self, target: Option<Target>, version: PtxVersion) -> String {
        let expected = Case { result: Some(self.outcome.accept.clone()), comment: None, ..self.case.clone() };
        let fallback = default_target(&expected, version);
        let target = target
            .filter(|t| {
                let regs = ptx_cvt::Regs {
                    dst: expected.dst_width(),
                    src: expected.operands.first().map_or(expected.instr.atype.bits(), |o| o.width),
                };
                ptx_cvt::instr::check(&expected.instr, regs, Some(*t), Some(version)).is_ok()
            })
            .unwrap_or(fallback);
        ptx_snippet(&expected, target, version)
    }

    fn operands(&self) -> Vec<String> {
        self.case.operands.iter().map(|x| ptx_cvt::eval::fmt_hex(x.bits, x.width)).collect()
    }

    fn got_text(&self) -> String {
        match self.got.single() {
            Some(b) => describe_bits(&self.case.instr, b, self.got.width),
            None => self.got.to_string(),
        }
    }

    /// The report as lines of text (no trailing newline), with a PTX module if given.
    pub fn text(&self, ptx: Option<&str>) -> String {
        let c = &self.case.instr;
        let ops = self.operands().join(" ");
        let place = match (&self.origin.file, self.origin.line) {
            (Some(f), Some(n)) => format!("{f}:{n}: "),
            _ => String::new(),
        };
        let mut s = format!("{place}MISMATCH {c} {ops}\n");
        s += &format!("  input    {} {ops} = {}\n", c.atype.name(), self.outcome.inputs_text());
        s += &format!("  expected {}\n", describe_set(c, &self.outcome.accept));
        s += &format!("  got      {}\n", self.got_text());
        s += &format!("  rule     {} [{}]: {}\n", self.rule.name(), self.rule.evidence().tag(), self.rule.text());
        s += &format!("  class    {}\n", self.class);
        match self.hyps.iter().next() {
            Some(h) => {
                let text = crate::diagnose::explain_text(h, &[*c].into(), self.hyps);
                let also = self.hyps.names()[1..].join(", ");
                let also = if also.is_empty() { also } else { format!(" (also: {also})") };
                s += &format!("  why      {}: {text}{also}\n", h.name);
            }
            None => s += "  why      no catalogue hypothesis reproduces this answer\n",
        }
        s += &format!("  case     {}", self.repro);
        if let Some(p) = ptx {
            s += "\n  ptx      (assemble with ptxas -arch=<the .target>)";
            for l in p.lines() {
                s += "\n    ";
                s += l;
            }
        }
        s
    }

    /// The report as one JSON object (keys documented in docs/contract.md, "JSON output").
    pub fn json(&self, ptx: Option<&str>) -> Value {
        let c = &self.case.instr;
        let mut v = json!({
            "file": self.origin.file, "line": self.origin.line,
            "instruction": c.to_string(), "operands": self.operands(),
            "input": self.outcome.inputs_text(),
            "expected": self.outcome.accept.to_string(), "expected_meaning": describe_set(c, &self.outcome.accept),
            "got": self.got.to_string(), "got_meaning": self.got_text(),
            "rule": self.rule.name(), "evidence": self.rule.evidence().tag(), "rule_text": self.rule.text(),
            "class": self.class, "case": self.repro, "hypotheses": self.hyps.names(),
        });
        if let Some(p) = ptx {
            v["ptx"] = Value::String(p.to_string());
        }
        v
    }
}
