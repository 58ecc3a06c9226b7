//! What source value a wrong scalar answer could be the right conversion
//! of (its *reading*). A defect that misreads the source (a decoder with a
//! wrong mask, bias or sign position) answers, in every variant with that
//! source type, the right conversion of one wrong value per source: the
//! readings of its answers for one source agree across variants, and
//! exclude the source's true value. Two defects that both fail on a source
//! rarely agree so. Values are exact (`Dyadic`); a reading widens by one
//! unit of the answer's last place each side so that it holds under every
//! rounding, and to infinity where the answer is a clamp.

use std::cmp::Ordering;

use ptx_cvt::rug::Integer;

use ptx_cvt::exact::{decode, Dyadic, Value};
use ptx_cvt::format::Format;
use ptx_cvt::round::Grid;
use ptx_cvt::Cvt;

/// A signed exact value, or an infinity (−0 and +0 are equal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    NegInf,
    At { neg: bool, mag: Dyadic },
    PosInf,
}

impl Bound {
    fn rank(&self) -> i8 {
        match self {
            Bound::NegInf => -2,
            Bound::At { mag, .. } if mag.is_zero() => 0,
            Bound::At { neg, .. } => {
                if *neg {
                    -1
                } else {
                    1
                }
            }
            Bound::PosInf => 2,
        }
    }
}

impl Ord for Bound {
    fn cmp(&self, o: &Self) -> Ordering {
        match (self.rank(), o.rank(), self, o) {
            (-1, -1, Bound::At { mag: a, .. }, Bound::At { mag: b, .. }) => b.cmp(a),
            (1, 1, Bound::At { mag: a, .. }, Bound::At { mag: b, .. }) => a.cmp(b),
            (x, y, ..) => x.cmp(&y),
        }
    }
}

impl PartialOrd for Bound {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// The source values whose right conversion is an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// A NaN answer: a NaN source.
    Nan,
    /// Values in `lo..=hi`; `nan` where a NaN source gives this answer too
    /// (0 of an integer, a clamped 0); `narrow` where the range is a few
    /// units of the answer's last place wide, so it says which value was read.
    Range { lo: Bound, hi: Bound, nan: bool, narrow: bool },
}

/// `±k · 2^e` for a signed `k`, negated where `neg`.
fn at(neg: bool, k: Integer, e: i64) -> Bound {
    let neg = neg != (k < 0);
    Bound::At { neg, mag: Dyadic::new(k.abs(), e) }
}

/// The reading of a scalar conversion's answer `got` (`None` for forms
/// with more than one source value per result, and for an integer chopped
/// or extended into another without `.sat`: its bits keep the source's low
/// bits, not its value).
pub fn reading(c: &Cvt, got: u64) -> Option<Reading> {
    if c.dtype.lanes() > 1 || c.atype.lanes() > 1 || c.scaled || c.scaled_n1 {
        return None;
    }
    let dst = c.dtype.format();
    if dst.int_range().is_some() && c.atype.format().int_range().is_some() && !c.sat {
        return None;
    }
    let (neg, mag) = match decode(dst, got) {
        Value::Nan(_) => return Some(Reading::Nan),
        Value::Inf { neg } => {
            let edge = Bound::At { neg, mag: dst.float_layout()?.max_finite() };
            let (lo, hi) = if neg { (Bound::NegInf, edge) } else { (edge, Bound::PosInf) };
            return Some(Reading::Range { lo, hi, nan: false, narrow: false });
        }
        Value::Num { neg, mag } => (neg, mag),
    };
    // The answer as k units of its last place 2^q (the rounding core's grid).
    let grid = dst.float_layout().map_or_else(Grid::integers, Grid::float);
    let q = mag.msb_exp().map_or(grid.qmin, |m| grid.quantum(m));
    let k = mag.scaled_to(q);
    let unit = |d: i64| at(neg, k.clone() + d, q);
    let (mut lo, mut hi) = if neg { (unit(1), unit(-1)) } else { (unit(-1), unit(1)) };
    let zero = k == 0;
    let mut nan = false;
    match (dst.float_layout(), dst.int_range()) {
        (Some(l), _) => {
            if zero {
                // A flushed result: anything below the smallest normal.
                lo = Bound::At { neg: true, mag: Dyadic::word(1, l.emin()) };
                hi = Bound::At { neg: false, mag: Dyadic::word(1, l.emin()) };
                if c.sat || c.relu {
                    lo = Bound::NegInf;
                    nan = true;
                }
            }
            if mag == l.max_finite() {
                if neg {
                    lo = Bound::NegInf;
                } else {
                    hi = Bound::PosInf;
                }
            }
            if c.sat && !neg && mag == Dyadic::word(1, 0) {
                hi = Bound::PosInf;
            }
            if l.sign_bit() == 0 && got & l.code_mask() == 0 {
                // An unsigned format (ue8m0) clamps below to its smallest code.
                lo = Bound::NegInf;
            }
        }
        (None, Some((min, max))) => {
            let v = if neg { -k.clone() } else { k.clone() };
            if v == min {
                lo = Bound::NegInf;
            }
            if v == max {
                hi = Bound::PosInf;
            }
            nan = zero;
        }
        (None, None) => return None,
    }
    let narrow = !zero && k >= 3 && lo != Bound::NegInf && hi != Bound::PosInf;
    Some(Reading::Range { lo, hi, nan, narrow })
}

impl Reading {
    /// The values both readings allow (`None`: no one value gives both answers).
    pub fn meet(&self, o: &Reading) -> Option<Reading> {
        match (self, o) {
            (Reading::Nan, Reading::Nan) => Some(Reading::Nan),
            (Reading::Nan, r @ Reading::Range { nan: true, .. })
            | (r @ Reading::Range { nan: true, .. }, Reading::Nan) => Some(r.clone()),
            (
                Reading::Range { lo: a, hi: b, nan: x, narrow: n },
                Reading::Range { lo: c, hi: d, nan: y, narrow: m },
            ) => {
                let (lo, hi) = (a.max(c).clone(), b.min(d).clone());
                (lo <= hi).then_some(Reading::Range { lo, hi, nan: *x && *y, narrow: *n || *m })
            }
            _ => None,
        }
    }

    /// Whether the reading names a value that is not the source's own
    /// (`src` read as `format`): evidence of a misread source.
    pub fn informative(&self, format: Format, src: u64) -> bool {
        match self {
            Reading::Nan => !decode(format, src).is_nan(),
            Reading::Range { lo, hi, narrow, .. } => {
                *narrow
                    && match decode(format, src) {
                        Value::Num { neg, mag } => {
                            let v = Bound::At { neg, mag };
                            v < *lo || v > *hi
                        }
                        _ => true,
                    }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cvt(s: &str) -> Cvt {
        s.parse().unwrap()
    }

    /// f16 3c00 is 1.0 (IEEE 754-2019 binary16: bias 15, 10 fraction bits):
    /// it reads values within one unit of its last place (2^-10), which
    /// excludes the f32 source 2.0 (40000000) and holds 1.0 (3f800000).
    #[test]
    fn a_float_answer_reads_values_near_it() {
        let r = reading(&cvt("cvt.rn.f16.f32"), 0x3c00).unwrap();
        let Reading::Range { lo, hi, nan, narrow } = &r else { panic!("{r:?}") };
        assert_eq!((lo, hi, nan, narrow), (&at(false, 1023.into(), -10), &at(false, 1025.into(), -10), &false, &true));
        assert!(r.informative(Format::F32, 0x4000_0000));
        assert!(!r.informative(Format::F32, 0x3f80_0000));
        // −1.0 (bc00) reads the mirror image.
        let neg = reading(&cvt("cvt.rn.f16.f32"), 0xbc00).unwrap();
        assert!(neg.meet(&r).is_none());
        assert!(neg.informative(Format::F32, 0x3f80_0000) && !neg.informative(Format::F32, 0xbf80_0000));
    }

    /// A NaN answer reads a NaN; an integer 0 may be a NaN's too (PTX: NaN
    /// converts to 0), and a clamped integer (s8 127) reads everything above.
    #[test]
    fn clamps_and_nans_read_wide() {
        let nan = reading(&cvt("cvt.rn.f16.f32"), 0x7e00).unwrap();
        assert_eq!(nan, Reading::Nan);
        let zero = reading(&cvt("cvt.rzi.s32.f32"), 0).unwrap();
        assert!(nan.meet(&zero).is_some());
        let max = reading(&cvt("cvt.rni.sat.s8.f32"), 0x7f).unwrap();
        let Reading::Range { hi, narrow, .. } = &max else { panic!("{max:?}") };
        assert_eq!((hi, narrow), (&Bound::PosInf, &false));
        assert!(nan.meet(&max).is_none());
        // 1000.0 read by f16 (63d0) and by s32 (1000) agree; 2000 does not.
        let f = reading(&cvt("cvt.rn.f16.f32"), 0x63d0).unwrap();
        assert!(f.meet(&reading(&cvt("cvt.rni.s32.f32"), 1000).unwrap()).is_some());
        assert!(f.meet(&reading(&cvt("cvt.rni.s32.f32"), 2000).unwrap()).is_none());
        // Packed results have no one reading, nor a chopped integer
        // (cvt.s8.s32 of 300 gives 44, PTX ISA: low bits kept).
        assert!(reading(&cvt("cvt.rn.f16x2.f32"), 0).is_none());
        assert!(reading(&cvt("cvt.s8.s32"), 44).is_none());
        assert!(reading(&cvt("cvt.sat.s8.s32"), 0x7f).is_some());
    }
}
