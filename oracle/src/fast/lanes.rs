//! The batch kernels' lane rules, one generic type per shape; the format
//! layouts, the rounding mode and the modifiers (.sat, .relu, .satfinite)
//! are compile-time constants, so each form gets its own branch-free,
//! vectorisable loop (`kernels::run`). Conditions on values combine with
//! `&` and `|`, not `&&` and `||`: branch-free also where a lane runs on
//! one value (fast/single.rs), whose branches would follow random data.
//!
//! Each rule is an instance of the fast engine's one rounding rule
//! (`arith::round`): the result's quantum `q` is found from the value's top
//! bit, the significand is cut at `q`, the decision is taken on the cut bits,
//! and the code is `((q - qmin) << man_bits) + kept + away`, so a carry out
//! of the significand moves into the exponent field by itself. Magnitude
//! codes are monotone in the value, so .sat and overflow are comparisons of
//! codes.

use super::arith::Fl;
use super::single::Held;
use crate::format::{low_mask, Format};
use crate::round::Mode;

/// Rounding modes as compile-time constants.
pub(super) const RN: u8 = 0;
pub(super) const RZ: u8 = 1;
pub(super) const RM: u8 = 2;
pub(super) const RP: u8 = 3;
/// Ties away from zero (.rna, tf32 only).
pub(super) const RNA: u8 = 4;

pub(super) fn mode_const(m: Mode) -> Option<u8> {
    match m {
        Mode::NearestEven => Some(RN),
        Mode::TowardZero => Some(RZ),
        Mode::Down => Some(RM),
        Mode::Up => Some(RP),
        Mode::NearestAway => Some(RNA),
        Mode::Stochastic { .. } => None,
    }
}

/// Modifier flags as compile-time constants (`P` of the float lanes).
pub(super) const SAT: u8 = 1;
pub(super) const RELU: u8 = 2;
pub(super) const SATFINITE: u8 = 4;

/// The layout constants of a float format, at compile time.
const fn fl(f: u8) -> Fl {
    Fl::new(&Format::ALL[f as usize].float_layout_const())
}

/// IEEE formats with subnormals, stored at bit 0: what the kernels assume.
const fn plain_ieee(l: &Fl) -> bool {
    l.has_inf() && l.subnormals && l.signed && l.shift == 0
}

#[inline(always)]
fn sel(c: bool, a: u64, b: u64) -> u64 {
    if c {
        a
    } else {
        b
    }
}

/// Cut `cut` (< 64) low bits off `sig`: the kept bits and whether mode `M`
/// rounds away from zero (`round::decide`).
#[inline(always)]
fn cut_round<const M: u8>(neg: bool, sig: u64, cut: u32) -> (u64, bool) {
    let kept = sig >> cut;
    let rest = sig & ((1u64 << cut) - 1);
    let half = (1u64 << cut) >> 1;
    (kept, rounds_away::<M>(neg, kept & 1 == 1, rest > half, (rest != 0) & (rest == half), rest != 0))
}

/// [`cut_round`] in 32-bit lanes (`cut < 32`).
#[inline(always)]
fn cut_round32<const M: u8>(neg: bool, sig: u32, cut: u32) -> (u32, bool) {
    let kept = sig >> cut;
    let rest = sig & ((1u32 << cut) - 1);
    let half = (1u32 << cut) >> 1;
    (kept, rounds_away::<M>(neg, kept & 1 == 1, rest > half, rest != 0 && rest == half, rest != 0))
}

/// `cut_round`'s kept bits plus its rounding step, as one add and shift:
/// the increment carries into the kept bits exactly when `M` rounds away
/// (fewer vector instructions than deciding on the cut bits). Needs
/// `1 <= cut < 64` and `sig < 2^63`.
#[inline(always)]
fn add_round<const M: u8>(neg: bool, sig: u64, cut: u32) -> u64 {
    let below = (1u64 << cut) - 1;
    let inc = match M {
        // A tie rounds to even: half an ulp less one, plus the kept bits' parity.
        RN => (below >> 1) + ((sig >> cut) & 1),
        RNA => (below >> 1) + 1,
        RZ => 0,
        RM => sel(neg, below, 0),
        _ => sel(neg, 0, below),
    };
    (sig + inc) >> cut
}

/// [`add_round`] in 32-bit lanes (`1 <= cut < 32`, `sig < 2^31`).
#[inline(always)]
fn add_round32<const M: u8>(neg: bool, sig: u32, cut: u32) -> u32 {
    let below = (1u32 << cut) - 1;
    let inc = match M {
        RN => (below >> 1) + ((sig >> cut) & 1),
        RNA => (below >> 1) + 1,
        RZ => 0,
        RM => sel32(neg, below, 0),
        _ => sel32(neg, 0, below),
    };
    (sig + inc) >> cut
}

/// Whether mode `M` rounds away from zero (`round::decide`), given the kept
/// bits' parity and how the discarded bits compare with half a unit.
#[inline(always)]
fn rounds_away<const M: u8>(neg: bool, odd: bool, above_half: bool, tie: bool, inexact: bool) -> bool {
    match M {
        RN => above_half | (tie & odd),
        RNA => above_half | tie,
        RZ => false,
        RM => neg & inexact,
        _ => !neg & inexact,
    }
}

/// Overflow goes to infinity (IEEE 754 §7.4; `encode::fit`)?
#[inline(always)]
fn overflow_to_inf<const M: u8>(neg: bool) -> bool {
    match M {
        RN | RNA => true,
        RZ => false,
        RM => neg,
        _ => !neg,
    }
}

/// A source float code taken apart: sign, exponent and fraction fields.
struct Fields {
    neg: bool,
    e: u64,
    m: u64,
}

#[inline(always)]
fn fields(s: &Fl, x: u64) -> Fields {
    let code = x & low_mask(s.width);
    let mag = code & !s.sign_bit;
    Fields { neg: code & s.sign_bit != 0, e: mag >> s.man_bits, m: mag & low_mask(s.man_bits) }
}

/// The finite value of the fields as `sig × 2^exp`, and an upper bound of
/// its top bit's exponent (exact for normals).
#[inline(always)]
fn value(s: &Fl, f: &Fields, flush: bool) -> (u64, i64, i64) {
    let sub = f.e == 0;
    let sig = sel(sub & flush, 0, f.m | sel(sub, 0, 1u64 << s.man_bits));
    let field = f.e as i64 + sub as i64;
    (sig, field - s.bias as i64 - s.man_bits as i64, field - s.bias as i64)
}

/// The code (no sign) of `n × 2^e`, `n < 2^(man_bits + 1)`, a value on
/// `d`'s grid and in its range (`e >= d.qmin`).
#[inline(always)]
fn encode_exact(d: &Fl, n: u64, e: i64) -> u64 {
    let top = 63 - n.leading_zeros() as i64;
    // The leading bit of a normal adds one to the exponent field.
    let normal = (((top + e + d.bias as i64 - 1) as u64) << d.man_bits)
        .wrapping_add(n << (d.man_bits as i64 - top).clamp(0, 63) as u32);
    let subnormal = n << (e - d.qmin as i64).clamp(0, 63) as u32;
    sel(n == 0, 0, sel(top + e < d.emin as i64, subnormal, normal))
}

/// How NaN sources come out of a float→float lane (`NanPlan`, as data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NanBits {
    /// These bits (unshifted), unless `payload`, `copy` or `moved`.
    pub fixed: u64,
    /// The source payload under the quiet bit (`NanPlan::Payload`).
    pub payload: bool,
    /// The source's sign, quiet bit and payload bits (`NanPlan::Copy`).
    pub copy: bool,
    /// The source's sign and whole fraction moved to the destination's
    /// fraction, cut or zero-filled (`NanOut::Shifted`, `NanOut::Masked`).
    pub moved: bool,
    /// With `moved`: one destination unit less (`NanOut::Masked { step_down: true }`).
    pub step_down: bool,
}

impl NanBits {
    #[inline(always)]
    fn of(&self, s: &Fl, d: &Fl, f: &Fields) -> u64 {
        let sign = sel(f.neg, d.sign_bit, 0);
        let inf = d.exp_max << d.man_bits;
        let low = f.m & (s.quiet_bit - 1);
        let aligned =
            if d.man_bits >= s.man_bits { low << (d.man_bits - s.man_bits) } else { low >> (s.man_bits - d.man_bits) };
        let payload = sign | inf | d.quiet_bit | aligned;
        let copy = sign | inf | sel(f.m & s.quiet_bit != 0, d.quiet_bit, 0) | (low & low_mask(d.man_bits));
        let frac =
            if d.man_bits >= s.man_bits { f.m << (d.man_bits - s.man_bits) } else { f.m >> (s.man_bits - d.man_bits) };
        let moved = (sign | inf | frac) - self.step_down as u64;
        sel(self.payload, payload, sel(self.copy, copy, sel(self.moved, moved, self.fixed)))
    }
}

/// One lane of a form, applied over a slice by `kernels::run`.
pub(super) trait Lane: Copy {
    fn lane(&self, x: u64) -> u64;
    /// Whether [`Lane::lane32`] gives `lane`'s result in 32-bit arithmetic
    /// (twice the lanes per vector), for inputs and results of at most 32 bits.
    #[inline(always)]
    fn has_lane32(&self) -> bool {
        false
    }
    #[inline(always)]
    fn lane32(&self, x: u32) -> u32 {
        self.lane(x as u64) as u32
    }
    /// This lane as a plan holds it for one value at a time (kernel lanes;
    /// not the table lookups, which borrow thread-local tables).
    fn held(&self) -> Option<Held> {
        None
    }
}

/// Float → narrower float (f64→f32/f16/bf16, f32→f16/bf16/tf32) with the
/// modifiers `P`; an f32 source may be flushed (.ftz); no result flush.
#[derive(Clone, Copy)]
pub(super) struct Narrow<const S: u8, const D: u8, const M: u8, const P: u8> {
    pub flush: bool,
    pub nan: NanBits,
    /// .relu makes -0 +0 (the profile's answer).
    pub relu_neg_zero: bool,
    /// Bits of the register that count (tf32's open low bits are zero).
    pub out_mask: u64,
    /// `.pzo`: a −0 result is written as +0.
    pub pzo: bool,
}

impl<const S: u8, const D: u8, const M: u8, const P: u8> Lane for Narrow<S, D, M, P> {
    fn held(&self) -> Option<Held> {
        Some(Held::of(*self))
    }

    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let (s, d) = const {
            let (s, d) = (fl(S), fl(D));
            // A source subnormal then lands on the destination's bottom quantum,
            // so its top bit need not be found. tf32 is stored higher (shift).
            assert!(plain_ieee(&s) && d.has_inf() && d.subnormals && d.signed);
            assert!(s.prec > d.prec && s.emin <= d.emin);
            (s, d)
        };
        // .ftz and .pzo exist for f32 sources only (`try_run` checks).
        let (flush, pzo) = if S == Format::F32 as u8 { (self.flush, self.pzo) } else { (false, false) };
        let f = fields(&s, x);
        let (sig, exp, top) = value(&s, &f, flush);
        let q = (top - (d.prec as i64 - 1)).max(d.qmin as i64);
        // q - exp >= s.prec - d.prec >= 1; past prec+1 bits everything is below half an ulp.
        let cut = (q - exp).min(s.prec as i64 + 1) as u32;
        let code = (((q - d.qmin as i64) as u64) << d.man_bits) + add_round::<M>(f.neg, sig, cut);
        let inf = d.exp_max << d.man_bits;
        let special = f.e == s.exp_max;
        let nan = special & (f.m != 0);
        let bits = if P & SAT != 0 {
            // Clamp to [0, 1]: NaN and every negative (-0 too) give +0.
            let one = (d.bias as u64) << d.man_bits;
            sel(nan | f.neg, 0, sel(special, inf, code).min(one))
        } else {
            let big = sel((P & SATFINITE == 0) & overflow_to_inf::<M>(f.neg), inf, d.max_code);
            let finite = sel(code > d.max_code, big, code);
            let mag = sel(special, sel(P & SATFINITE != 0, d.max_code, inf), finite);
            let relu = (P & RELU != 0) & f.neg & ((mag != 0) | self.relu_neg_zero);
            let bits = sel(relu | (pzo & (mag == 0)), 0, mag | sel(f.neg, d.sign_bit, 0));
            sel(nan, self.nan.of(&s, &d, &f), bits)
        };
        (bits << d.shift) & self.out_mask
    }

    #[inline(always)]
    fn has_lane32(&self) -> bool {
        // f32 → f16/bf16 with a fixed NaN code: every step fits 32 bits.
        S == Format::F32 as u8
            && (D == Format::F16 as u8 || D == Format::Bf16 as u8)
            && !self.nan.payload
            && !self.nan.copy
            && !self.nan.moved
    }

    /// `lane` for f32 → f16/bf16 in `u32`/`i32` (only if `has_lane32`).
    #[inline(always)]
    fn lane32(&self, x: u32) -> u32 {
        let (s, d) = const { (fl(S), fl(D)) };
        let (man, bias) = (s.man_bits, s.bias);
        let neg = x >> 31 != 0;
        let (e, m) = ((x >> man) & s.exp_max as u32, x & ((1u32 << man) - 1));
        let sub = e == 0;
        let sig = sel32(sub & self.flush, 0, m | sel32(sub, 0, 1 << man));
        let field = e as i32 + sub as i32;
        let (exp, top) = (field - bias - man as i32, field - bias);
        let q = (top - (d.prec as i32 - 1)).max(d.qmin);
        let cut = (q - exp).min(s.prec as i32 + 1) as u32;
        let code = (((q - d.qmin) as u32) << d.man_bits) + add_round32::<M>(neg, sig, cut);
        let (inf, max) = ((d.exp_max << d.man_bits) as u32, d.max_code as u32);
        let special = e == s.exp_max as u32;
        let nan = special & (m != 0);
        if P & SAT != 0 {
            let one = (d.bias as u32) << d.man_bits;
            return sel32(nan | neg, 0, sel32(special, inf, code).min(one));
        }
        let big = sel32((P & SATFINITE == 0) & overflow_to_inf::<M>(neg), inf, max);
        let finite = sel32(code > max, big, code);
        let mag = sel32(special, sel32(P & SATFINITE != 0, max, inf), finite);
        let relu = (P & RELU != 0) & neg & ((mag != 0) | self.relu_neg_zero);
        let bits = sel32(relu | (self.pzo & (mag == 0)), 0, mag | sel32(neg, d.sign_bit as u32, 0));
        sel32(nan, self.nan.fixed as u32, bits) & self.out_mask as u32
    }
}

#[inline(always)]
fn sel32(c: bool, a: u32, b: u32) -> u32 {
    if c {
        a
    } else {
        b
    }
}

/// Float → float where every value is exact in the destination (widening,
/// same format), or rounded to an integral value first (`INT`: .rni .rzi
/// .rmi .rpi), with .sat if `P` says so; an f32 source may be flushed.
#[derive(Clone, Copy)]
pub(super) struct Exact<const S: u8, const D: u8, const M: u8, const INT: bool, const P: u8> {
    pub flush: bool,
    pub nan: NanBits,
}

impl<const S: u8, const D: u8, const M: u8, const INT: bool, const P: u8> Lane for Exact<S, D, M, INT, P> {
    fn held(&self) -> Option<Held> {
        Some(Held::of(*self))
    }

    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let (s, d) = const {
            let (s, d) = (fl(S), fl(D));
            assert!(plain_ieee(&s) && plain_ieee(&d) && d.prec >= s.prec && d.emin <= s.emin);
            (s, d)
        };
        let f = fields(&s, x);
        let (sig, exp, _) = value(&s, &f, self.flush);
        let mag = if INT {
            // Below 2^-1 everything is below half of the unit.
            let (kept, away) = cut_round::<M>(f.neg, sig, (-exp).clamp(0, s.prec as i64 + 1) as u32);
            encode_exact(&d, kept + away as u64, exp.max(0))
        } else if S == D {
            // Subnormals stay subnormal: the code itself, unless flushed.
            sel(sig == 0, 0, (f.e << s.man_bits) | f.m)
        } else {
            encode_exact(&d, sig, exp)
        };
        let inf = d.exp_max << d.man_bits;
        let special = f.e == s.exp_max;
        let nan = special & (f.m != 0);
        if P & SAT != 0 {
            let one = (d.bias as u64) << d.man_bits;
            return sel(nan | f.neg, 0, sel(special, inf, mag).min(one));
        }
        let bits = sel(special, inf, mag) | sel(f.neg, d.sign_bit, 0);
        sel(nan, self.nan.of(&s, &d, &f), bits)
    }
}

/// Float → integer (rni, rzi, rmi, rpi; saturating), any integer width.
#[derive(Clone, Copy)]
pub(super) struct ToInt<const S: u8, const M: u8> {
    pub flush: bool,
    /// Largest positive result; largest magnitude of a negative result and its bits.
    pub pos_max: u64,
    pub neg_max: u64,
    pub neg_limit: u64,
    pub nan: u64,
    pub mask: u64,
}

impl<const S: u8, const M: u8> Lane for ToInt<S, M> {
    fn held(&self) -> Option<Held> {
        Some(Held::of(*self))
    }

    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let s = const {
            let s = fl(S);
            assert!(plain_ieee(&s) && s.prec < 63);
            s
        };
        let f = fields(&s, x);
        let (sig, exp, top) = value(&s, &f, self.flush);
        let (kept, away) = cut_round::<M>(f.neg, sig, (-exp).clamp(0, s.prec as i64 + 1) as u32);
        let mag = (kept << exp.clamp(0, 63) as u32) + away as u64;
        // 2^64 and above (and ±Inf) saturate every destination.
        let big = (top >= 64) | (f.e == s.exp_max);
        let pos = sel(big | (mag > self.pos_max), self.pos_max, mag);
        let neg = sel(big | (mag > self.neg_max), self.neg_limit, mag.wrapping_neg());
        let r = sel(f.neg, neg, pos);
        sel((f.e == s.exp_max) & (f.m != 0), self.nan, r) & self.mask
    }

    #[inline(always)]
    fn has_lane32(&self) -> bool {
        // f32 into at most 32 bits: the bounds and results fit.
        S == Format::F32 as u8 && self.mask <= u32::MAX as u64
    }

    /// `lane` for f32 → ≤ 32-bit integers in `u32`/`i32` (only if `has_lane32`).
    /// Values from 2^32 up saturate every such destination.
    #[inline(always)]
    fn lane32(&self, x: u32) -> u32 {
        let s = const { fl(S) };
        let (man, bias) = (s.man_bits, s.bias);
        let neg = x >> 31 != 0;
        let (e, m) = ((x >> man) & s.exp_max as u32, x & ((1u32 << man) - 1));
        let sub = e == 0;
        let sig = sel32(sub && self.flush, 0, m | sel32(sub, 0, 1 << man));
        let field = e as i32 + sub as i32;
        let (exp, top) = (field - bias - man as i32, field - bias);
        let (kept, away) = cut_round32::<M>(neg, sig, (-exp).clamp(0, s.prec as i32 + 1) as u32);
        // Below 2^32 (top < 32) the shift is at most 8: no bit is lost.
        let mag = (kept << exp.clamp(0, 31) as u32) + away as u32;
        let big = top >= 32 || e == s.exp_max as u32;
        let (pos_max, neg_max) = (self.pos_max as u32, self.neg_max as u32);
        let pos = sel32(big || mag > pos_max, pos_max, mag);
        let neg_r = sel32(big || mag > neg_max, self.neg_limit as u32, mag.wrapping_neg());
        let r = sel32(neg, neg_r, pos);
        sel32(e == s.exp_max as u32 && m != 0, self.nan as u32, r) & self.mask as u32
    }
}

/// Integer (any width, signed or not) → float, with .sat if `P` says so.
#[derive(Clone, Copy)]
pub(super) struct FromInt<const D: u8, const M: u8, const P: u8> {
    pub bits: u32,
    pub signed: bool,
}

impl<const D: u8, const M: u8, const P: u8> Lane for FromInt<D, M, P> {
    fn held(&self) -> Option<Held> {
        Some(Held::of(*self))
    }

    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let d = const {
            let d = fl(D);
            assert!(plain_ieee(&d) && d.qmin <= 0);
            d
        };
        // Sources have 1 to 64 bits: a shift, not `low_mask`'s branch.
        let mask = u64::MAX >> (64 - self.bits);
        let v = x & mask;
        let neg = self.signed & ((v >> (self.bits - 1)) & 1 == 1);
        let mag = sel(neg, (v | !mask).wrapping_neg(), v);
        let top = 63 - mag.leading_zeros() as i64;
        let q = (top - (d.prec as i64 - 1)).max(d.qmin as i64);
        let (kept, away) = cut_round::<M>(neg, mag, q.clamp(0, 63) as u32);
        let code = (((q - d.qmin as i64) as u64) << d.man_bits) + (kept << (-q).clamp(0, 63) as u32) + away as u64;
        if P & SAT != 0 {
            // Integers are 0 or at least 1: clamped to [0, 1], never rounded to it.
            let one = (d.bias as u64) << d.man_bits;
            return sel((mag == 0) | neg, 0, code.min(one));
        }
        let inf = d.exp_max << d.man_bits;
        let finite = sel(code > d.max_code, sel(overflow_to_inf::<M>(neg), inf, d.max_code), code);
        sel(mag == 0, 0, finite | sel(neg, d.sign_bit, 0))
    }
}

/// Integer → integer of sources narrower than 64 bits: wrap (keep the low
/// bits) or, with .sat, clamp to the destination's range.
#[derive(Clone, Copy)]
pub(super) struct IntToInt<const SAT_: bool> {
    /// Source width (< 64) and signedness.
    pub bits: u32,
    pub signed: bool,
    /// The destination's range, within i64 (every source value is).
    pub lo: i64,
    pub hi: i64,
    pub mask: u64,
}

impl<const SAT_: bool> Lane for IntToInt<SAT_> {
    fn held(&self) -> Option<Held> {
        Some(Held::of(*self))
    }

    #[inline(always)]
    fn lane(&self, x: u64) -> u64 {
        let up = 64 - self.bits;
        let v = if self.signed { ((x << up) as i64) >> up } else { (x & low_mask(self.bits)) as i64 };
        let v = if SAT_ { v.clamp(self.lo, self.hi) } else { v };
        v as u64 & self.mask
    }
}
