//! Which rule to blame for a wrong answer: the rule that decides the bits
//! that differ, not merely the last rule of the evaluation.

use ptx_cvt::accept::width_mask;
use ptx_cvt::decide::{Decisions, SourceFlush};
use ptx_cvt::eval::{evaluate_accept_with, Step};
use ptx_cvt::policy::Answers;
use ptx_cvt::{Cvt, Operand, Outcome, Profile, Rule};

/// Steps that move bits without deciding a value (packing included).
fn plumbing(r: Rule) -> bool {
    r.only_moves_bits() || r == Rule::Pack
}

/// tf32 keeps the 19 high bits of its 32-bit container; the low 13 are open.
const TF32_OPEN_BITS: u32 = 13;

/// The rule that decides the bits where `got` differs from the expected
/// result `o.accept` (register of `dst_width` bits):
/// - only bits above the destination type differ: `dest-extend`;
/// - a packed result: the last deciding rule of the highest wrong lane;
/// - tf32-low-bits only when no kept bit differs;
/// - otherwise the last value-deciding rule of the evaluation.
pub fn deciding_rule(c: &Cvt, o: &Outcome, got: u64, dst_width: u32) -> Rule {
    let type_bits = c.dtype.bits();
    let diff = o.accept.single().map(|e| (e ^ got) & width_mask(dst_width));
    if let Some(d) = diff {
        if d != 0 && d & width_mask(type_bits) == 0 {
            return Rule::DestExtend;
        }
    }
    let lane = wrong_lane(c, o, diff);
    let in_lane = |s: &&Step| lane.is_none_or(|l| s.lane.is_empty() || s.lane == l);
    let lane_diff = match (diff, lane) {
        (Some(d), Some(l)) => Some(lane_bits_of(c, o, d, l)),
        (d, _) => d,
    };
    let kept_bits_differ = lane_diff.is_none_or(|d| d >> TF32_OPEN_BITS != 0);
    // cvt.pack's bits above the lanes come from `c`: blame that only when they differ.
    let lanes_end = c.dtype.lanes() * c.dtype.lane_bits();
    let above_lanes_differ = diff.is_none_or(|d| lanes_end < 64 && d >> lanes_end != 0);
    let candidate = |r: Rule| {
        !plumbing(r) && (r != Rule::Tf32LowBits || !kept_bits_differ) && (r != Rule::PackC || above_lanes_differ)
    };
    o.trace
        .iter()
        .rev()
        .filter(in_lane)
        .map(|s| s.rule)
        .find(|r| candidate(*r))
        .or_else(|| o.trace.iter().rev().map(|s| s.rule).find(|r| !plumbing(*r)))
        .unwrap_or_else(|| o.deciding_rule())
}

/// [`deciding_rule`], except that the treatment of a subnormal f32 source
/// under `.ftz` decides when it changed the result (docs/semantics.md §5.6):
/// the flush (`ftz-input`) when without `.ftz` the expected bits would
/// differ, the `cvt.ftz.f16.f32` erratum (the source kept) when a flush
/// would change them. Later steps only carried the value on.
pub fn deciding_rule_for(c: &Cvt, ops: &[Operand], profile: Profile, o: &Outcome, got: u64, dst_width: u32) -> Rule {
    let rule = deciding_rule(c, o, got, dst_width);
    let step = o.trace.iter().map(|s| s.rule).find(|r| matches!(r, Rule::FtzInput | Rule::FtzErratumF16));
    let Some(step) = step.filter(|_| rule != Rule::DestExtend) else { return rule };
    let other = Flush(step == Rule::FtzErratumF16);
    match evaluate_accept_with(c, ops, dst_width, profile, &other) {
        Ok(set) if set != o.accept => step,
        _ => rule,
    }
}

/// The oracle's decisions with the source flush turned around: `Flush(true)`
/// flushes the f32 source, `Flush(false)` flushes nothing (a flushed result
/// would hide what the flushed source changed).
struct Flush(bool);

impl Decisions for Flush {
    fn flushes_source(&self, _: &Cvt, _: Answers) -> SourceFlush {
        if self.0 {
            SourceFlush::Flush
        } else {
            SourceFlush::Keep
        }
    }
    fn flushes_result(&self, c: &Cvt) -> bool {
        self.0 && ptx_cvt::decide::ptx::flushes_result(self, c)
    }
}

/// The name of the highest lane whose bits differ, for packed results.
fn wrong_lane(c: &Cvt, o: &Outcome, diff: Option<u64>) -> Option<&'static str> {
    let n = c.dtype.lanes();
    if n < 2 || o.inputs.len() != n as usize {
        return None;
    }
    let lb = c.dtype.lane_bits();
    let d = diff?;
    (0..n).find(|i| (d >> (lb * (n - 1 - i))) & width_mask(lb) != 0).map(|i| o.inputs[i as usize].0)
}

/// The differing bits of lane `name`, shifted down to bit 0.
fn lane_bits_of(c: &Cvt, o: &Outcome, d: u64, name: &str) -> u64 {
    let (n, lb) = (c.dtype.lanes(), c.dtype.lane_bits());
    let i = o.inputs.iter().position(|(l, _)| *l == name).unwrap_or(0) as u32;
    (d >> (lb * (n - 1 - i))) & width_mask(lb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_cvt::{evaluate, instr};

    fn blame(instr_text: &str, ops: &[(u64, u32)], dst: u32, got: u64) -> Rule {
        let c = instr::parse(instr_text).unwrap();
        let ops: Vec<Operand> = ops.iter().map(|&(bits, width)| Operand { bits, width }).collect();
        let o = evaluate(&c, &ops, dst, Profile::Sm90).unwrap();
        deciding_rule(&c, &o, got, dst)
    }

    #[test]
    fn tf32_kept_bits_blame_rounding() {
        // Issue 11's report: 00001000 → 00000000 expected (sm90: open bits zero), got 00002000,
        // bit 13 is a kept bit, so rounding decides it, not the open low bits.
        let r = blame("cvt.rn.satfinite.tf32.f32", &[(0x0000_1000, 32)], 32, 0x0000_2000);
        assert_ne!(r, Rule::Tf32LowBits);
        // Only an open bit differs: that is the tf32-low-bits question.
        let r = blame("cvt.rn.satfinite.tf32.f32", &[(0x3f80_0000, 32)], 32, 0x3f80_0001);
        assert_eq!(r, Rule::Tf32LowBits);
    }

    #[test]
    fn wider_destination_bits_blame_extension() {
        // cvt.u16.u8 into a 32-bit register: 000000ff; a stray upper byte is an extension bug.
        let r = blame("cvt.u16.u8", &[(0xff, 8)], 32, 0x00ff_00ff);
        assert_eq!(r, Rule::DestExtend);
        // A wrong low half is not.
        let r = blame("cvt.s16.s8", &[(0x80, 8)], 16, 0x0080);
        assert_eq!(r, Rule::IntWrap);
    }

    fn blame_flush(instr_text: &str, src: u64, dst: u32, got: u64) -> Rule {
        let c = instr::parse(instr_text).unwrap();
        let ops = [Operand { bits: src, width: 32 }];
        let o = evaluate(&c, &ops, dst, Profile::Sm90).unwrap();
        deciding_rule_for(&c, &ops, Profile::Sm90, &o, got, dst)
    }

    #[test]
    fn a_source_flush_that_changed_the_bits_decides() {
        // Issue 23's cases: `explain` shows ftz-input turning the subnormal into 0.
        // cvt.ftz.f64.f32 00000001 → +0; an implementation keeping 2^-149 answers 36a0000000000000.
        assert_eq!(blame_flush("cvt.ftz.f64.f32", 0x0000_0001, 64, 0x36a0_0000_0000_0000), Rule::FtzInput);
        // cvt.rmi.ftz.f32.f32 80000001 → -0; rounding −2^-149 down gives −1 (bf800000).
        assert_eq!(blame_flush("cvt.rmi.ftz.f32.f32", 0x8000_0001, 32, 0xbf80_0000), Rule::FtzInput);
        // Every flush path: f32 sources into an integer, f32, bf16; into f16 sm_90
        // keeps the source (the erratum decides an answer that flushed it).
        assert_eq!(blame_flush("cvt.rpi.ftz.s32.f32", 0x0000_0001, 32, 1), Rule::FtzInput);
        assert_eq!(blame_flush("cvt.ftz.f32.f32", 0x0000_0001, 32, 1), Rule::FtzInput);
        assert_eq!(blame_flush("cvt.rp.ftz.f16.f32", 0x0000_0001, 16, 0), Rule::FtzErratumF16);
        assert_eq!(blame_flush("cvt.rp.ftz.bf16.f32", 0x0000_0001, 16, 1), Rule::FtzInput);
        // A flush that changes nothing does not decide: .rzi of 2^-149 is +0 either way.
        assert_ne!(blame_flush("cvt.rzi.ftz.f32.f32", 0x0000_0001, 32, 0x3f80_0000), Rule::FtzInput);
    }

    #[test]
    fn packed_blames_the_wrong_lane() {
        // a = NaN, b = 1.0: lane b wrong → rounding of b, not the NaN rule of a.
        let r = blame("cvt.rn.f16x2.f32", &[(0x7fc0_0000, 32), (0x3f80_0000, 32)], 32, 0x7fff_3c01);
        assert_ne!(r, Rule::Pack);
        assert!(!r.name().contains("nan"), "{}", r.name());
    }
}
