//! Rounding: one grid model and one decision function for every mode.
//!
//! A value is rounded onto a grid of multiples of 2^q, where q follows the
//! value's binade (float precision p) but never goes below `qmin` (subnormals,
//! or 0 for integers). The exponent is unbounded above: overflow is the
//! encoder's business, after rounding, as IEEE 754 §7.4 defines it.

use std::fmt;

use rug::Integer;

use crate::exact::Dyadic;
use crate::format::{low_mask, FloatLayout};

/// A rounding rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// To nearest, ties to even (.rn, .rni).
    NearestEven,
    /// To nearest, ties away from zero (.rna).
    NearestAway,
    /// Toward zero (.rz, .rzi).
    TowardZero,
    /// Toward −∞ (.rm, .rmi).
    Down,
    /// Toward +∞ (.rp, .rpi).
    Up,
    /// Stochastic (.rs): round away iff adding `rbits` (`width` bits) to the
    /// top `width` discarded bits carries out. Lower discarded bits are
    /// ignored; which bits feed subnormal results is `[OPEN]` (docs/semantics.md §5.10).
    Stochastic { rbits: u64, width: u32 },
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::NearestEven => "to nearest, ties to even",
            Mode::NearestAway => "to nearest, ties away from zero",
            Mode::TowardZero => "toward zero",
            Mode::Down => "toward -inf",
            Mode::Up => "toward +inf",
            Mode::Stochastic { .. } => "stochastic",
        }
    }
}

/// The set of values a result may take: multiples of 2^q with at most
/// `precision` significant bits, q ≥ `qmin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub precision: Option<u32>,
    pub qmin: i64,
}

impl Grid {
    #[inline]
    pub fn float(l: &FloatLayout) -> Grid {
        Grid { precision: Some(l.precision()), qmin: l.qmin() }
    }
    #[inline]
    pub fn integers() -> Grid {
        Grid { precision: None, qmin: 0 }
    }
    /// Multiples of 2^-frac_bits (fixed-point destinations such as s2f6).
    pub fn fixed(frac_bits: u32) -> Grid {
        Grid { precision: None, qmin: -(frac_bits as i64) }
    }
    /// Quantum exponent for a value whose top bit is at 2^msb.
    #[inline]
    pub fn quantum(&self, msb: i64) -> i64 {
        match self.precision {
            Some(p) => (msb - (p as i64 - 1)).max(self.qmin),
            None => self.qmin,
        }
    }
}

/// Where the exact value sat between its two grid neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remainder {
    Exact,
    BelowHalf,
    Half,
    AboveHalf,
}

/// The bits cut off by rounding: the low `bits` bits of `x`'s significand,
/// read in place; `value / 2^bits` is the fraction of an ulp.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Discarded<'a> {
    pub x: &'a Dyadic,
    pub bits: u32,
}

impl Discarded<'_> {
    /// Where the cut bits sit against half an ulp, from the lowest set bit
    /// and the top cut bit (no arithmetic on the value).
    #[inline(always)]
    pub fn remainder(&self) -> Remainder {
        let b = self.bits;
        match self.x.sig_lowest_one() {
            Some(low) if b > 0 && low < b => match (self.x.sig_bit(b - 1), low == b - 1) {
                (false, _) => Remainder::BelowHalf,
                (true, true) => Remainder::Half,
                (true, false) => Remainder::AboveHalf,
            },
            _ => Remainder::Exact,
        }
    }
    /// The top `width` bits of the fraction (zero-padded when fewer were cut).
    pub fn top_bits(&self, width: u32) -> Integer {
        let value = self.x.sig().into_owned().keep_bits(self.bits);
        if self.bits >= width {
            value >> (self.bits - width)
        } else {
            value << (width - self.bits)
        }
    }
}

/// The single rounding decision: move away from zero (to the upper
/// neighbour in magnitude)?
#[inline(always)]
pub(crate) fn decide(mode: Mode, neg: bool, lower_is_odd: bool, cut: &Discarded) -> bool {
    decide_by(mode, neg, lower_is_odd, cut.remainder(), || match mode {
        Mode::Stochastic { rbits, width } => {
            let mask = low_mask(width);
            cut.top_bits(width) + Integer::from(rbits & mask) > mask
        }
        _ => unreachable!("only stochastic rounding reads the cut bits"),
    })
}

/// [`decide`] from where the cut bits sat (`rem`); `carries` answers for
/// stochastic rounding (whether the random bits carry out of the cut bits).
#[inline(always)]
fn decide_by(mode: Mode, neg: bool, lower_is_odd: bool, rem: Remainder, carries: impl FnOnce() -> bool) -> bool {
    if rem == Remainder::Exact {
        return false;
    }
    match mode {
        Mode::TowardZero => false,
        Mode::Down => neg,
        Mode::Up => !neg,
        Mode::NearestAway => rem != Remainder::BelowHalf,
        Mode::NearestEven => rem == Remainder::AboveHalf || (rem == Remainder::Half && lower_is_odd),
        Mode::Stochastic { .. } => carries(),
    }
}

/// The outcome of rounding a magnitude, with what explain needs to show.
#[derive(Clone, Debug)]
pub(crate) struct Rounded {
    /// The rounded magnitude; when inexact, a multiple of the grid's quantum
    /// `2^mag.exp`.
    pub mag: Dyadic,
    pub remainder: Remainder,
    pub away: bool,
}

impl Rounded {
    pub fn inexact(&self) -> bool {
        self.remainder != Remainder::Exact
    }
    /// The grid neighbour toward zero of the exact value (itself when exact).
    pub fn lower(&self) -> Dyadic {
        Dyadic::new(self.mag.sig().into_owned() - u32::from(self.away), self.mag.exp)
    }
    /// The grid neighbour away from zero (itself when exact).
    pub fn upper(&self) -> Dyadic {
        Dyadic::new(self.mag.sig().into_owned() + u32::from(self.inexact() && !self.away), self.mag.exp)
    }
}

/// Round the magnitude `x` of a value with sign `neg` onto `grid`.
#[inline(always)]
pub(crate) fn round(neg: bool, x: &Dyadic, grid: Grid, mode: Mode) -> Rounded {
    match x.sig_u64() {
        // Stochastic rounding reads the cut bits as an integer: the general path.
        Some(w) if !matches!(mode, Mode::Stochastic { .. }) => round_word(neg, w, x.exp, grid, mode),
        _ => round_dyadic(neg, x, grid, mode),
    }
}

/// [`round`] of a magnitude `w × 2^exp` whose significand is a machine
/// word: the same steps on the word's bits, without a big integer.
#[inline(always)]
fn round_word(neg: bool, w: u64, exp: i64, grid: Grid, mode: Mode) -> Rounded {
    let exact = |mag: Dyadic| Rounded { mag, remainder: Remainder::Exact, away: false };
    if w == 0 {
        return exact(Dyadic::zero());
    }
    let msb = exp + 63 - w.leading_zeros() as i64;
    let q = grid.quantum(msb);
    let cut = q - exp;
    if cut <= 0 {
        // On the grid already.
        return exact(Dyadic::word(w, exp));
    }
    // The top cut bit (half an ulp) and the cut bits below it.
    let half_at = cut - 1;
    let (half, below) =
        if half_at < 64 { ((w >> half_at) & 1 == 1, w & low_mask(half_at as u32) != 0) } else { (false, true) };
    let remainder = match (half, below) {
        (false, false) => Remainder::Exact,
        (false, true) => Remainder::BelowHalf,
        (true, false) => Remainder::Half,
        (true, true) => Remainder::AboveHalf,
    };
    let kept = if cut < 64 { w >> cut } else { 0 };
    let away =
        decide_by(mode, neg, kept & 1 == 1, remainder, || unreachable!("stochastic rounding takes the general path"));
    let mag = if away { Dyadic::word(kept, q).incremented() } else { Dyadic::word(kept, q) };
    Rounded { mag, remainder, away }
}

/// [`round`] of any magnitude.
#[inline(always)]
fn round_dyadic(neg: bool, x: &Dyadic, grid: Grid, mode: Mode) -> Rounded {
    let exact = |mag: Dyadic| Rounded { mag, remainder: Remainder::Exact, away: false };
    let Some(msb) = x.msb_exp() else {
        return exact(Dyadic::zero());
    };
    let q = grid.quantum(msb);
    let cut_bits = q - x.exp;
    if cut_bits <= 0 {
        // On the grid already.
        return exact(x.clone());
    }
    let cut = Discarded { x, bits: u32::try_from(cut_bits).unwrap_or(u32::MAX) };
    let remainder = cut.remainder();
    let kept = x.truncated_to(q);
    let away = decide(mode, neg, kept.sig_is_odd(), &cut);
    let mag = if away { kept.incremented() } else { kept };
    Rounded { mag, remainder, away }
}

impl fmt::Display for Remainder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Remainder::Exact => "exact",
            Remainder::BelowHalf => "below half an ulp",
            Remainder::Half => "exactly half an ulp (tie)",
            Remainder::AboveHalf => "above half an ulp",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(sig: i64, exp: i64) -> Dyadic {
        Dyadic::new(Integer::from(sig), exp)
    }

    // IEEE 754-2008 §4.3 rounding-direction definitions, on 2.5, 3.5 and -2.5.
    #[test]
    fn integer_ties() {
        let g = Grid::integers();
        let r = |neg, x: &Dyadic, m| round(neg, x, g, m).mag;
        assert_eq!(r(false, &d(5, -1), Mode::NearestEven), d(2, 0));
        assert_eq!(r(false, &d(7, -1), Mode::NearestEven), d(4, 0));
        assert_eq!(r(false, &d(5, -1), Mode::NearestAway), d(3, 0));
        assert_eq!(r(true, &d(5, -1), Mode::Down), d(3, 0));
        assert_eq!(r(true, &d(5, -1), Mode::Up), d(2, 0));
        assert_eq!(r(true, &d(5, -1), Mode::TowardZero), d(2, 0));
    }

    #[test]
    fn stochastic_carry() {
        // 1 + 3/8 on a 1-bit grid (values 1, 1.5 ... no: integers): cut = 0.375 = 011 in 3 bits.
        let x = d(11, -3);
        let g = Grid::integers();
        let st = |rbits| round(false, &x, g, Mode::Stochastic { rbits, width: 3 }).away;
        assert!(!st(0));
        assert!(!st(4)); // 3 + 4 = 7 < 8
        assert!(st(5)); // 3 + 5 = 8 carries
    }
}
