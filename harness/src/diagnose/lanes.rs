//! The lanes of a conversion: where each lane's source sits in the
//! operands and its result in the destination register, so that a wrong
//! lane of a packed result can be diagnosed as the scalar conversion it is
//! (docs/diagnosis.md, "Lanes"). A scalar form is one lane.

use ptx_cvt::accept::{width_mask, Alt, LaneSet};
use ptx_cvt::format::Format;
use ptx_cvt::{AcceptSet, Cvt, Operand};

/// The lane structure of a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lanes {
    pub n: u32,
    /// Bits of one destination lane in the register.
    pub dst_bits: u32,
    /// Bits of one source lane (the operand's type width for scalar sources).
    pub src_bits: u32,
    pub src: Format,
    pub dst: Format,
    /// The sources are lanes of operand 0 (f16x2, e4m3x2, ...), else one operand per lane.
    packed_source: bool,
}

impl Lanes {
    pub fn of(c: &Cvt) -> Lanes {
        let packed_source = c.atype.is_packed();
        let n = c.dtype.lanes().max(c.atype.lanes());
        let (dst_bits, src_bits) =
            if n > 1 { (c.dtype.lane_bits(), c.atype.lane_bits()) } else { (c.dtype.bits(), c.atype.bits()) };
        Lanes { n, dst_bits, src_bits, src: c.atype.format(), dst: c.dtype.format(), packed_source }
    }

    /// The lane conversion: source and destination formats.
    pub fn pair(&self) -> (Format, Format) {
        (self.src, self.dst)
    }

    /// Whether each destination lane is a separate conversion (packed results).
    pub fn is_packed(&self) -> bool {
        self.n > 1
    }

    /// The operand holding lane `i`'s source and the lane's shift in it
    /// (`a` is the high lane: operand 0 holds lane n−1).
    fn source_place(&self, i: u32) -> (usize, u32) {
        if self.packed_source {
            (0, i * self.src_bits)
        } else if self.n > 1 {
            ((self.n - 1 - i) as usize, 0)
        } else {
            (0, 0)
        }
    }

    /// The source bits of lane `i` (`None` when the operands lack it).
    pub fn source(&self, ops: &[Operand], i: u32) -> Option<u64> {
        let (k, shift) = self.source_place(i);
        ops.get(k).map(|o| (o.bits >> shift) & width_mask(self.src_bits))
    }

    /// Whether lane `i`'s source is a NaN (`None` when the operands lack it).
    pub fn source_is_nan(&self, ops: &[Operand], i: u32) -> Option<bool> {
        self.source(ops, i).map(|b| ptx_cvt::exact::decode(self.src, b).is_nan())
    }

    /// Whether lane `i`'s source is ±Inf (`None` when the operands lack it).
    pub fn source_is_inf(&self, ops: &[Operand], i: u32) -> Option<bool> {
        self.source(ops, i).map(|b| matches!(ptx_cvt::exact::decode(self.src, b), ptx_cvt::exact::Value::Inf { .. }))
    }

    /// The operands with lane `i`'s source replaced by `bits`.
    pub fn with_source(&self, ops: &[Operand], i: u32, bits: u64) -> Vec<Operand> {
        let (k, shift) = self.source_place(i);
        let mut out = ops.to_vec();
        if let Some(o) = out.get_mut(k) {
            let m = width_mask(self.src_bits) << shift;
            o.bits = (o.bits & !m) | ((bits << shift) & m);
        }
        out
    }

    /// Lane `i` of result bits.
    pub fn lane(&self, bits: u64, i: u32) -> u64 {
        (bits >> (i * self.dst_bits)) & width_mask(self.dst_bits)
    }

    /// `bits` with lane `i` replaced by `code`.
    pub fn with_lane(&self, bits: u64, i: u32, code: u64) -> u64 {
        let m = width_mask(self.dst_bits) << (i * self.dst_bits);
        (bits & !m) | ((code << (i * self.dst_bits)) & m)
    }

    /// The register bits outside every lane (upper bits, `cvt.pack`'s `c` bits).
    pub fn outside(&self, bits: u64, width: u32) -> u64 {
        bits & width_mask(width) & !width_mask(self.n * self.dst_bits)
    }

    /// Whether `set` allows `code` in lane `i` (whatever it holds in the others).
    pub fn accepts(&self, set: &AcceptSet, i: u32, code: u64) -> bool {
        let lm = width_mask(self.dst_bits);
        let shift = i * self.dst_bits;
        set.alts.iter().any(|a| match a {
            Alt::Bits { value, mask } => (code ^ (value >> shift)) & (mask >> shift) & lm == 0,
            Alt::AnyNan(f) => self.n == 1 && f.float_layout().is_some_and(|l| l.is_nan_code(code >> l.shift)),
            Alt::Lanes { lanes, .. } => match lanes.get((self.n - 1 - i) as usize) {
                Some(LaneSet::Bits { value, mask }) => (code ^ value) & mask & lm == 0,
                Some(LaneSet::AnyNan(f)) => f.float_layout().is_some_and(|l| l.is_nan_code(code >> l.shift)),
                None => false,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_cvt::{evaluate_accept, Profile};

    #[test]
    fn lanes_follow_the_operand_order() {
        // cvt.rn.satfinite.e4m3x2.f32 d, a, b: a is the high lane (docs/semantics.md §5.11).
        let c: Cvt = "cvt.rn.satfinite.e4m3x2.f32".parse().unwrap();
        let l = Lanes::of(&c);
        assert_eq!((l.n, l.dst_bits, l.src_bits), (2, 8, 32));
        let ops = [Operand { bits: 0x3f80_0000, width: 32 }, Operand { bits: 0x4000_0000, width: 32 }];
        assert_eq!((l.source(&ops, 1), l.source(&ops, 0)), (Some(0x3f80_0000), Some(0x4000_0000)));
        let e = evaluate_accept(&c, &ops, 16, Profile::Sm90).unwrap();
        // 1.0 is e4m3 38, 2.0 is 40.
        assert!(l.accepts(&e, 1, 0x38) && l.accepts(&e, 0, 0x40) && !l.accepts(&e, 0, 0x38));
        let f: Cvt = "cvt.rn.f16x2.e4m3x2".parse().unwrap();
        let l = Lanes::of(&f);
        let ops = [Operand { bits: 0x3840, width: 16 }];
        assert_eq!((l.source(&ops, 1), l.source(&ops, 0)), (Some(0x38), Some(0x40)));
        assert_eq!(l.with_source(&ops, 0, 0x41)[0].bits, 0x3841);
        assert_eq!(l.with_lane(0x3c00_4000, 0, 0x4200), 0x3c00_4200);
    }
}
