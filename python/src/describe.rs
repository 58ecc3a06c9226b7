//! The CLI's readings of results and mismatches, so that Python users see the
//! same diagnostics as `ptx-cvt explain` and `ptx-cvt check`. These mirror
//! `describe_bits`/`describe_set` (tools/src/common.rs) and
//! `mismatch_rule`/`coverage_class` (tools/src/check.rs), which live in the
//! binary crate and so cannot be imported; tests/test_cli_parity.py compares
//! the texts with the binary's when it is built.

use ptx_cvt::accept::width_mask;
use ptx_cvt::eval::{fmt_hex, Step};
use ptx_cvt::exact::decode;
use ptx_cvt::{AcceptSet, Case, Cvt, Outcome, Rule};

/// Result bits read in the destination type: `3c00 (1)`, lane by lane for packed types.
pub fn describe_bits(c: &Cvt, bits: u64, width: u32) -> String {
    let n = c.dtype.bits();
    let hex = fmt_hex(bits, width);
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

pub fn describe_set(c: &Cvt, set: &AcceptSet) -> String {
    match set.single() {
        Some(b) => describe_bits(c, b, set.width),
        None => format!("{set} (any of these)"),
    }
}

/// The coverage class in a generated case's comment (`input/result/event`).
pub fn coverage_class(comment: Option<&str>) -> Option<&str> {
    comment?.split_whitespace().find(|t| t.matches('/').count() == 2)
}

/// The rule to blame: the deciding rule, or for packed results the last rule
/// that decided the first wrong lane.
pub fn mismatch_rule(c: &Case, o: &Outcome) -> Rule {
    let rule = o.deciding_rule();
    if rule != Rule::Pack {
        return rule;
    }
    let plain = |r: Rule| !matches!(r, Rule::Pack | Rule::DestExtend | Rule::Decode | Rule::SourceChop);
    let (n, lb) = (c.instr.dtype.lanes(), c.instr.dtype.lane_bits());
    let got = c.result.as_ref().and_then(|r| r.single());
    let wrong_lane = match (o.accept.single(), got) {
        (Some(e), Some(g)) if o.inputs.len() == n as usize => {
            (0..n).find(|i| ((e ^ g) >> (lb * (n - 1 - i))) & width_mask(lb) != 0).map(|i| o.inputs[i as usize].0)
        }
        _ => None,
    };
    let in_lane = |s: &&Step| wrong_lane.is_none_or(|l| s.detail.starts_with(&format!("[{l}] ")));
    o.trace
        .iter()
        .rev()
        .filter(in_lane)
        .map(|s| s.rule)
        .find(|r| plain(*r))
        .or_else(|| o.trace.iter().rev().map(|s| s.rule).find(|r| plain(*r)))
        .unwrap_or(rule)
}
