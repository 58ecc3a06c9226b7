//! What the fast engine answers: [`FastResult`], the destination register's
//! possible bits, small and `Copy`, with its conversion to an [`AcceptSet`].

use std::fmt;

use super::arith::{encode_nan, Lf};
use crate::accept::{width_mask, AcceptSet, Alt, LaneSet};
use crate::format::Format;

/// What the destination register may hold: the fast engine's counterpart of
/// an [`AcceptSet`], small and `Copy`.
// A fixed layout, the tag a word and the payloads in the words after it:
// with Rust's own (small fields beside the tag) a move copies a result in odd
// pieces whose loads stall on the stores just made (a third of `evaluate`).
#[repr(C, u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastResult {
    /// Exactly these bits.
    Bits(u64),
    /// These bits wherever `mask` is set (tf32 low bits left open by a profile).
    Pattern { value: u64, mask: u64 },
    /// Any NaN of the format, zero-extended to the register.
    AnyNan(Format),
    /// A packed result with any-NaN lanes: `count` lanes of `lane_bits`;
    /// lane `i` (0 = lowest) is any NaN of `format` when bit `i` of
    /// `nan_lanes` is set, else its bits in `value`.
    Lanes { lane_bits: u8, count: u8, nan_lanes: u8, format: Format, value: u64 },
}

impl FastResult {
    /// The acceptance set, in the exact engine's canonical representation.
    pub fn to_accept(&self, width: u32) -> AcceptSet {
        match *self {
            FastResult::Bits(v) => AcceptSet::exact(width, v),
            FastResult::Pattern { value, mask } => AcceptSet { width, alts: vec![Alt::Bits { value, mask }].into() },
            FastResult::AnyNan(f) => AcceptSet::any_nan(width, f),
            FastResult::Lanes { lane_bits, count, nan_lanes, format, value } => {
                let lb = lane_bits as u32;
                let lanes = (0..count as u32)
                    .rev()
                    .map(|i| {
                        if nan_lanes >> i & 1 == 1 {
                            LaneSet::AnyNan(format)
                        } else {
                            LaneSet::Bits { value: (value >> (i * lb)) & width_mask(lb), mask: width_mask(lb) }
                        }
                    })
                    .collect();
                AcceptSet { width, alts: vec![Alt::Lanes { bits: lb, lanes }].into() }
            }
        }
    }
    /// The single value, when the result is one value.
    pub fn single(&self, width: u32) -> Option<u64> {
        match *self {
            FastResult::Bits(v) => Some(v),
            FastResult::Pattern { value, mask } if mask == width_mask(width) => Some(value),
            _ => None,
        }
    }
    /// One member of the set: the value itself, the pattern with open bits
    /// zero, the format's canonical NaN (all fraction bits set) for any NaN.
    #[inline(always)]
    pub fn representative(&self) -> u64 {
        match *self {
            FastResult::Bits(v) => v,
            FastResult::Pattern { value, mask } => value & mask,
            FastResult::AnyNan(f) => canonical_nan(f),
            FastResult::Lanes { lane_bits, count, nan_lanes, format, value } => {
                let lb = lane_bits as u32;
                (0..count as u32).fold(value, |v, i| {
                    if nan_lanes >> i & 1 == 1 {
                        (v & !(width_mask(lb) << (i * lb))) | (canonical_nan(format) & width_mask(lb)) << (i * lb)
                    } else {
                        v
                    }
                })
            }
        }
    }
}

/// The format's canonical NaN (all fraction bits set); 0 for an integer format.
pub(super) fn canonical_nan(f: Format) -> u64 {
    match Lf::of(f) {
        Lf::Float(l) => encode_nan(&l, false, u64::MAX),
        Lf::Int { .. } => 0,
    }
}

impl fmt::Display for FastResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FastResult::Bits(v) => write!(f, "{v:x}"),
            FastResult::Pattern { value, mask } => write!(f, "{value:x}/{mask:x}"),
            FastResult::AnyNan(fm) => write!(f, "any {} NaN", fm.name()),
            FastResult::Lanes { lane_bits, count, .. } => {
                write!(f, "{}", self.to_accept((lane_bits as u32 * count as u32).max(8)))
            }
        }
    }
}
