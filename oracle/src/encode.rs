//! Encoding exact values as bits, and the overflow policies that apply when a
//! rounded value does not fit.

use rug::Integer;

use crate::exact::Dyadic;
use crate::format::{FloatLayout, Format, Kind};
use crate::round::{Mode, Rounded};

/// What to do when a rounded magnitude exceeds the largest finite value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overflow {
    /// IEEE 754 §7.4: infinity when rounding to nearest or away from zero in
    /// the value's direction, otherwise the largest finite value.
    Ieee,
    /// Clamp to ±max finite (.satfinite).
    SatFinite,
}

/// The result of fitting a rounded value into a float format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    Finite,
    OverflowToInf,
    OverflowToMax,
    /// Overflow toward infinity in a format with NaN but no Inf (ue8m0).
    OverflowToNan,
}

/// Decide how a rounded magnitude fits, per the overflow policy.
pub fn fit(l: &FloatLayout, neg: bool, r: &Rounded, policy: Overflow) -> Fit {
    // By the top bit first: only the top binade needs the exact comparison.
    let fits = match r.mag.msb_exp() {
        None => true,
        Some(m) if m != l.emax() => m < l.emax(),
        Some(_) => r.mag <= l.max_finite(),
    };
    if fits {
        return Fit::Finite;
    }
    let to_inf = match policy {
        Overflow::SatFinite => false,
        Overflow::Ieee => match r.mode {
            Mode::NearestEven | Mode::NearestAway => true,
            Mode::Up => !neg,
            Mode::Down => neg,
            Mode::TowardZero => false,
            // Like a directed rounding: Inf when the random carry rounded away from zero [OPEN].
            Mode::Stochastic { .. } => r.away,
        },
    };
    match (to_inf, l.has_inf(), l.has_nan()) {
        (true, true, _) => Fit::OverflowToInf,
        (true, false, true) => Fit::OverflowToNan,
        _ => Fit::OverflowToMax,
    }
}

fn place(l: &FloatLayout, neg: bool, code: u64) -> u64 {
    ((if neg { l.sign_bit() } else { 0 }) | code) << l.shift
}

/// Bits of a finite magnitude that lies on the format's grid and within range.
pub fn encode_finite(format: Format, neg: bool, mag: &Dyadic) -> u64 {
    let l = format.float_layout().expect("float format");
    let Some(msb) = mag.msb_exp() else {
        return place(l, neg, 0);
    };
    let code = if l.subnormals && msb < l.emin() {
        multiple_of(mag, l.qmin())
    } else {
        let e = (msb + l.bias as i64) as u64;
        let frac = multiple_of(mag, msb - l.man_bits as i64) & ((1u64 << l.man_bits) - 1);
        (e << l.man_bits) | frac
    };
    place(l, neg, code)
}

/// `mag / 2^q` for a magnitude on the grid of `2^q` that fits 64 bits
/// (every code's significand does): shifted as a machine word when the
/// significand is one, as a big integer otherwise.
fn multiple_of(mag: &Dyadic, q: i64) -> u64 {
    let d = mag.exp - q;
    match mag.sig.to_u64() {
        Some(s) if (0..64).contains(&d) && s.leading_zeros() as i64 >= d => s << d,
        Some(s) if (-63..0).contains(&d) => s >> -d,
        _ => mag.scaled_to(q).to_u64().expect("the code fits 64 bits"),
    }
}

pub fn encode_inf(format: Format, neg: bool) -> u64 {
    let l = format.float_layout().expect("float format");
    place(l, neg, l.inf_code().expect("format has infinity"))
}

pub fn encode_max(format: Format, neg: bool) -> u64 {
    let l = format.float_layout().expect("float format");
    place(l, neg, l.max_finite_code())
}

/// A quiet NaN with the given sign and fraction bits (the quiet bit is set here).
pub fn encode_nan(format: Format, neg: bool, fraction: u64) -> u64 {
    let l = format.float_layout().expect("float format");
    let e = l.exp_field_max() << l.man_bits;
    place(l, neg, e | l.quiet_bit() | (fraction & ((1u64 << l.man_bits) - 1)))
}

/// Two's-complement bits of an integer that is within the format's range.
pub fn encode_int(format: Format, i: &Integer) -> u64 {
    debug_assert!(matches!(format.info().kind, Kind::Int { .. }));
    wrap(i, format.container_bits())
}

/// The low `bits` bits of an integer in two's complement.
pub fn wrap(i: &Integer, bits: u32) -> u64 {
    let m = i.clone().keep_bits(bits);
    m.to_u64().expect("kept bits fit in u64")
}
