//! Encoding exact values as bits, and whether a rounded value fits.

use rug::Integer;

use crate::exact::Dyadic;
use crate::format::{FloatLayout, Format, Kind};

/// Whether a magnitude on the format's grid is at most its largest finite
/// value (what happens otherwise is a decision: `decide::Decisions::overflow`).
#[inline(always)]
pub(crate) fn fits(l: &FloatLayout, mag: &Dyadic) -> bool {
    // By the top bit first: only the top binade needs the exact comparison.
    match mag.msb_exp() {
        None => true,
        Some(m) if m != l.emax() => m < l.emax(),
        Some(_) => *mag <= l.max_finite(),
    }
}

#[inline(always)]
fn place(l: &FloatLayout, neg: bool, code: u64) -> u64 {
    ((if neg { l.sign_bit() } else { 0 }) | code) << l.shift
}

/// Bits of a finite magnitude that lies on the format's grid and within range.
#[inline(always)]
pub fn encode_finite(format: Format, neg: bool, mag: &Dyadic) -> u64 {
    finite_bits(layout(format), neg, mag)
}

/// The float layout of `format` (a float format).
#[inline(always)]
fn layout(format: Format) -> &'static FloatLayout {
    format.float_layout().expect("float format")
}

/// [`encode_finite`] in a layout the caller holds.
#[inline(always)]
pub(crate) fn finite_bits(l: &FloatLayout, neg: bool, mag: &Dyadic) -> u64 {
    let Some(msb) = mag.msb_exp() else {
        return place(l, neg, 0);
    };
    let code = if l.subnormals && msb < l.emin() {
        multiple_of(mag, l.qmin())
    } else {
        let e = (msb + l.bias as i64) as u64;
        let frac = multiple_of(mag, msb - l.man_bits as i64) & l.man_mask();
        (e << l.man_bits) | frac
    };
    place(l, neg, code)
}

/// `mag / 2^q` for a magnitude on the grid of `2^q` that fits 64 bits
/// (every code's significand does): shifted as a machine word when the
/// significand is one, as a big integer otherwise.
#[inline(always)]
fn multiple_of(mag: &Dyadic, q: i64) -> u64 {
    let d = mag.exp - q;
    match mag.sig_u64() {
        Some(s) if (0..64).contains(&d) && s.leading_zeros() as i64 >= d => s << d,
        Some(s) if (-63..0).contains(&d) => s >> -d,
        _ => mag.scaled_to(q).to_u64().expect("the code fits 64 bits"),
    }
}

#[inline(always)]
pub fn encode_inf(format: Format, neg: bool) -> u64 {
    inf_bits(layout(format), neg)
}

#[inline(always)]
pub(crate) fn inf_bits(l: &FloatLayout, neg: bool) -> u64 {
    place(l, neg, l.inf_code().expect("format has infinity"))
}

#[inline(always)]
pub fn encode_max(format: Format, neg: bool) -> u64 {
    max_bits(layout(format), neg)
}

#[inline(always)]
pub(crate) fn max_bits(l: &FloatLayout, neg: bool) -> u64 {
    place(l, neg, l.max_finite_code())
}

/// A quiet NaN with the given sign and fraction bits (the quiet bit is set here).
#[inline(always)]
pub fn encode_nan(format: Format, neg: bool, fraction: u64) -> u64 {
    nan_bits(layout(format), neg, fraction)
}

#[inline(always)]
pub(crate) fn nan_bits(l: &FloatLayout, neg: bool, fraction: u64) -> u64 {
    let e = l.exp_field_max() << l.man_bits;
    place(l, neg, e | l.quiet_bit() | (fraction & ((1u64 << l.man_bits) - 1)))
}

/// Two's-complement bits of an integer that is within the format's range.
pub(crate) fn encode_int(format: Format, i: &Integer) -> u64 {
    debug_assert!(matches!(format.info().kind, Kind::Int { .. }));
    wrap(i, format.container_bits())
}

/// The low `bits` bits of an integer in two's complement.
pub(crate) fn wrap(i: &Integer, bits: u32) -> u64 {
    let m = i.clone().keep_bits(bits);
    m.to_u64().expect("kept bits fit in u64")
}
