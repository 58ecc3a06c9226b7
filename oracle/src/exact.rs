//! Exact values: every number a `cvt` operand can hold is a dyadic rational
//! `sig × 2^exp`, kept in `rug` integers so that no host rounding ever enters.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use rug::Integer;

use crate::format::{low_mask, FloatLayout, Format, Kind};

impl FloatLayout {
    /// Magnitude of the largest finite value, exactly (here, not in the
    /// format table: the table does not depend on exact values).
    #[inline]
    pub fn max_finite(&self) -> Dyadic {
        let code = self.max_finite_code();
        let e = (code >> self.man_bits) as i64;
        let m = code & ((1u64 << self.man_bits) - 1);
        Dyadic::word(m | (1u64 << self.man_bits), e - self.bias as i64 - self.man_bits as i64)
    }
}

/// A non-negative dyadic rational `sig × 2^exp`.
///
/// The significand lives in a machine word when it fits 64 bits (every
/// decoded operand and rounded code does: no allocation, machine
/// arithmetic), in a GMP integer otherwise; both are exact.
#[derive(Clone)]
pub struct Dyadic {
    sig: Sig,
    pub exp: i64,
}

/// A significand: `Word` whenever the value fits 64 bits, so each value has
/// one representation.
#[derive(Clone)]
enum Sig {
    Word(u64),
    Big(Integer),
}

impl Sig {
    fn from_integer(i: Integer) -> Sig {
        match i.to_u64() {
            Some(w) => Sig::Word(w),
            None => Sig::Big(i),
        }
    }
}

impl Dyadic {
    pub fn new(sig: Integer, exp: i64) -> Dyadic {
        Dyadic { sig: Sig::from_integer(sig), exp }
    }
    /// `sig × 2^exp` from a machine word (no allocation).
    #[inline]
    pub fn word(sig: u64, exp: i64) -> Dyadic {
        Dyadic { sig: Sig::Word(sig), exp }
    }
    #[inline]
    pub fn zero() -> Dyadic {
        Dyadic::word(0, 0)
    }
    pub fn from_int(n: Integer) -> Dyadic {
        Dyadic::new(n, 0)
    }
    /// The significand as a big integer (borrowed when it is one).
    pub fn sig(&self) -> Cow<'_, Integer> {
        match &self.sig {
            Sig::Word(w) => Cow::Owned(Integer::from(*w)),
            Sig::Big(i) => Cow::Borrowed(i),
        }
    }
    /// The significand, when it fits a machine word.
    #[inline(always)]
    pub fn sig_u64(&self) -> Option<u64> {
        match self.sig {
            Sig::Word(w) => Some(w),
            Sig::Big(_) => None,
        }
    }
    #[inline(always)]
    pub fn is_zero(&self) -> bool {
        matches!(self.sig, Sig::Word(0))
    }
    /// Bits of the significand (0 for zero).
    #[inline(always)]
    pub fn sig_bits(&self) -> u32 {
        match &self.sig {
            Sig::Word(w) => 64 - w.leading_zeros(),
            Sig::Big(i) => i.significant_bits(),
        }
    }
    /// Exponent of the most significant set bit (floor(log2(x))); None for zero.
    #[inline(always)]
    pub fn msb_exp(&self) -> Option<i64> {
        (!self.is_zero()).then(|| self.exp + self.sig_bits() as i64 - 1)
    }
    /// The same significand times 2^k: the value scaled by 2^k exactly.
    #[inline]
    pub fn times_pow2(&self, k: i64) -> Dyadic {
        Dyadic { sig: self.sig.clone(), exp: self.exp + k }
    }
    /// The significand scaled to quantum 2^q (exact only if q <= exp or bits vanish).
    pub fn scaled_to(&self, q: i64) -> Integer {
        let d = self.exp - q;
        let sig = self.sig().into_owned();
        if d >= 0 {
            sig << d as u32
        } else {
            sig >> (-d) as u32
        }
    }
    /// The value's multiples of 2^q, `x / 2^q` rounded down, as a dyadic of
    /// exponent q (`q >= exp`: bits are only dropped).
    #[inline(always)]
    pub(crate) fn truncated_to(&self, q: i64) -> Dyadic {
        debug_assert!(q >= self.exp);
        let cut = q - self.exp;
        match &self.sig {
            Sig::Word(w) => Dyadic::word(if cut < 64 { w >> cut } else { 0 }, q),
            Sig::Big(i) => Dyadic::new(Integer::from(i >> u32::try_from(cut).unwrap_or(u32::MAX)), q),
        }
    }
    /// The next multiple of 2^exp: the significand plus one.
    #[inline(always)]
    pub(crate) fn incremented(self) -> Dyadic {
        match self.sig {
            Sig::Word(w) if w < u64::MAX => Dyadic::word(w + 1, self.exp),
            _ => Dyadic::new(self.sig().into_owned() + 1u32, self.exp),
        }
    }
    #[inline(always)]
    pub(crate) fn sig_is_odd(&self) -> bool {
        match &self.sig {
            Sig::Word(w) => w & 1 == 1,
            Sig::Big(i) => i.is_odd(),
        }
    }
    /// Position of the significand's lowest set bit; None for zero.
    #[inline(always)]
    pub(crate) fn sig_lowest_one(&self) -> Option<u32> {
        match &self.sig {
            Sig::Word(0) => None,
            Sig::Word(w) => Some(w.trailing_zeros()),
            Sig::Big(i) => i.find_one(0),
        }
    }
    /// Bit `b` of the significand.
    #[inline(always)]
    pub(crate) fn sig_bit(&self, b: u32) -> bool {
        match &self.sig {
            Sig::Word(w) => b < 64 && (w >> b) & 1 == 1,
            Sig::Big(i) => i.get_bit(b),
        }
    }
    /// Integer part (floor) of the magnitude.
    pub fn floor_int(&self) -> Integer {
        self.scaled_to(0)
    }
    /// The integer part, when it fits 128 bits.
    #[inline]
    pub(crate) fn floor_u128(&self) -> Option<u128> {
        match self.sig {
            Sig::Word(w) if self.exp <= 0 => Some(if self.exp > -64 { (w >> -self.exp) as u128 } else { 0 }),
            Sig::Word(w) if self.sig_bits() as i64 + self.exp <= 128 => Some((w as u128) << self.exp),
            Sig::Word(_) => None,
            Sig::Big(_) => self.floor_int().to_u128(),
        }
    }
    /// The low 64 bits of the integer part.
    #[inline]
    pub(crate) fn floor_low64(&self) -> u64 {
        match self.sig {
            Sig::Word(w) if self.exp <= 0 => w.checked_shr((-self.exp).try_into().unwrap_or(u32::MAX)).unwrap_or(0),
            Sig::Word(w) => w.checked_shl(self.exp.try_into().unwrap_or(u32::MAX)).unwrap_or(0),
            Sig::Big(_) => self.floor_int().keep_bits(64).to_u64().expect("64 bits kept"),
        }
    }
}

impl fmt::Debug for Dyadic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dyadic").field("sig", &*self.sig()).field("exp", &self.exp).finish()
    }
}

impl PartialEq for Dyadic {
    #[inline]
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Dyadic {}
impl PartialOrd for Dyadic {
    #[inline]
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Dyadic {
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        if let (Some(a), Some(b)) = (self.sig_u64(), o.sig_u64()) {
            // Words: by the top bits, then aligned in 128 bits (equal top bits
            // put the exponents less than 64 apart).
            return match (self.msb_exp(), o.msb_exp()) {
                (Some(ma), Some(mb)) if ma == mb => {
                    let d = self.exp - o.exp;
                    if d >= 0 {
                        ((a as u128) << d).cmp(&(b as u128))
                    } else {
                        (a as u128).cmp(&((b as u128) << -d))
                    }
                }
                (ma, mb) => ma.cmp(&mb),
            };
        }
        let q = self.exp.min(o.exp);
        self.scaled_to(q).cmp(&o.scaled_to(q))
    }
}

/// A NaN as decoded: sign, quiet bit and the payload below the quiet bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nan {
    pub neg: bool,
    pub quiet: bool,
    /// Fraction bits below the quiet bit.
    pub payload: u64,
    /// How many bits `payload` has.
    pub payload_bits: u32,
}

/// What an operand means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A finite number (zero included, with its sign).
    Num {
        neg: bool,
        mag: Dyadic,
    },
    Inf {
        neg: bool,
    },
    Nan(Nan),
}

impl Value {
    #[inline]
    pub fn num(neg: bool, mag: Dyadic) -> Value {
        Value::Num { neg, mag }
    }
    #[inline]
    pub fn is_nan(&self) -> bool {
        matches!(self, Value::Nan(_))
    }
    #[inline]
    pub fn is_negative(&self) -> bool {
        match self {
            Value::Num { neg, .. } | Value::Inf { neg } => *neg,
            Value::Nan(n) => n.neg,
        }
    }
    /// Signed integer value when finite and integral.
    pub fn as_integer(&self) -> Option<Integer> {
        match self {
            Value::Num { neg, mag } if mag.exp >= 0 || mag.scaled_to(0) << (-mag.exp) as u32 == *mag.sig() => {
                let i = mag.floor_int();
                Some(if *neg { -i } else { i })
            }
            _ => None,
        }
    }
    /// Exact value of a signed integer.
    pub fn from_integer(i: Integer) -> Value {
        let neg = i < 0;
        Value::Num { neg, mag: Dyadic::from_int(i.abs()) }
    }
}

/// Decode the low bits of a container as a value of `format`.
#[inline(always)]
pub fn decode(format: Format, bits: u64) -> Value {
    let n = format.container_bits();
    let bits = bits & low_mask(n);
    match format.info().kind {
        Kind::Int { signed } => {
            // A set sign bit means bits − 2^n, of magnitude 2^n − bits.
            let neg = signed && bits >> (n - 1) & 1 == 1;
            let mag = if neg { ((1u128 << n) - bits as u128) as u64 } else { bits };
            Value::num(neg, Dyadic::word(mag, 0))
        }
        Kind::Fixed { frac_bits } => {
            let i = if bits >> (n - 1) & 1 == 1 { bits as i64 - (1i64 << n) } else { bits as i64 };
            Value::num(i < 0, Dyadic::word(i.unsigned_abs(), -(frac_bits as i64)))
        }
        Kind::Float(l) => decode_float(&l, bits),
    }
}

/// Decode the bits of a float format's container (the layout read once by the caller).
#[inline(always)]
pub(crate) fn decode_float(l: &FloatLayout, bits: u64) -> Value {
    let code = (bits >> l.shift) & l.code_mask();
    let neg = code & l.sign_bit() != 0;
    let e = (code >> l.man_bits) & l.exp_field_max();
    let m = code & l.man_mask();
    if l.is_nan_code(code) {
        let pb = l.man_bits.saturating_sub(1);
        return Value::Nan(Nan {
            neg,
            quiet: m & l.quiet_bit() != 0,
            payload: m & ((1u64 << pb) - 1),
            payload_bits: pb,
        });
    }
    if l.has_inf() && e == l.exp_field_max() {
        return Value::Inf { neg };
    }
    let (sig, exp) = if e == 0 && l.subnormals {
        (m, l.qmin())
    } else {
        (m | (1u64 << l.man_bits), e as i64 - l.bias as i64 - l.man_bits as i64)
    };
    Value::Num { neg, mag: Dyadic::word(sig, exp) }
}

/// Whether a finite float value is subnormal in `format` (nonzero, below the smallest normal).
#[inline]
pub(crate) fn is_subnormal(format: Format, v: &Value) -> bool {
    match (format.float_layout(), v) {
        (Some(l), Value::Num { mag, .. }) => l.subnormals && mag.msb_exp().is_some_and(|e| e < l.emin()),
        _ => false,
    }
}

impl fmt::Display for Dyadic {
    /// Decimal: exact when it has at most 21 significant digits, otherwise
    /// 21 digits and `…`; scientific notation outside 1e-6 .. 1e21.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        // value = full × 10^-k exactly (full = sig × 5^k when exp < 0).
        let (full, k) = if self.exp >= 0 {
            ((self.sig().into_owned() << self.exp as u32).to_string(), 0i64)
        } else {
            let k = (-self.exp) as u32;
            ((self.sig().into_owned() * Integer::from(Integer::u_pow_u(5, k))).to_string(), k as i64)
        };
        let e10 = full.len() as i64 - 1 - k;
        let digits = full.trim_end_matches('0');
        const MAX: usize = 21;
        let (shown, cut) = if digits.len() > MAX { (&digits[..MAX], "…") } else { (digits, "") };
        if (-6..21).contains(&e10) {
            if e10 >= 0 {
                let int_len = (e10 + 1) as usize;
                if shown.len() <= int_len && cut.is_empty() {
                    write!(f, "{}{}", shown, "0".repeat(int_len - shown.len()))
                } else if shown.len() <= int_len {
                    write!(f, "{}{}{cut}", shown, "0".repeat(int_len - shown.len()))
                } else {
                    write!(f, "{}.{}{cut}", &shown[..int_len], &shown[int_len..])
                }
            } else {
                write!(f, "0.{}{}{cut}", "0".repeat((-e10 - 1) as usize), shown)
            }
        } else {
            let rest = &shown[1..];
            if rest.is_empty() && cut.is_empty() {
                write!(f, "{}e{}", &shown[..1], e10)
            } else {
                write!(f, "{}.{}{cut}e{}", &shown[..1], rest, e10)
            }
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num { neg, mag } => write!(f, "{}{}", if *neg { "-" } else { "" }, mag),
            Value::Inf { neg } => write!(f, "{}inf", if *neg { "-" } else { "+" }),
            Value::Nan(n) => write!(
                f,
                "{}{}nan(payload 0x{:x})",
                if n.neg { "-" } else { "+" },
                if n.quiet { "q" } else { "s" },
                n.payload
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_finite_values() {
        // docs/semantics.md §1: e4m3 448, e5m2 57344, e2m3 7.5, e3m2 28, e2m1 6, f16 65504.
        use Format::*;
        let cases: [(Format, i64, i64); 6] =
            [(E4m3, 448, 0), (E5m2, 57344, 0), (E2m3, 15, -1), (E3m2, 28, 0), (E2m1, 6, 0), (F16, 65504, 0)];
        for (f, sig, exp) in cases {
            assert_eq!(f.float_layout().unwrap().max_finite(), Dyadic::new(Integer::from(sig), exp), "{}", f.name());
        }
    }

    // Encodings from IEEE 754-2008 binary16/binary32 examples.
    #[test]
    fn displays_decimal() {
        let d = |s: i64, e: i64| Dyadic::new(Integer::from(s), e).to_string();
        assert_eq!(d(3, -1), "1.5");
        assert_eq!(d(1, 10), "1024");
        assert_eq!(d(1, -24), "5.9604644775390625e-8");
        assert_eq!(d(1, -149), "1.40129846432481707092…e-45");
        assert_eq!(d(1, 80), "1.20892581961462917470…e24");
        assert_eq!(d(65504, 0), "65504");
        assert_eq!(d(1, -3), "0.125");
    }

    #[test]
    fn decodes_ieee() {
        assert_eq!(decode(Format::F32, 0x3f80_0000).to_string(), "1");
        assert_eq!(decode(Format::F16, 0x3555).to_string(), "0.333251953125");
        assert_eq!(decode(Format::F16, 0x0001), Value::num(false, Dyadic::new(Integer::from(1), -24)));
        assert_eq!(decode(Format::F16, 0xfc00), Value::Inf { neg: true });
        assert!(decode(Format::Bf16, 0x7fc1).is_nan());
        assert_eq!(decode(Format::S8, 0xc2).to_string(), "-62");
        assert_eq!(decode(Format::U8, 0x1c2).to_string(), "194");
        // tf32 lives in bits 31..13 of its container.
        assert_eq!(decode(Format::Tf32, 0x3f80_1fff).to_string(), "1");
        // e4m3 0x7e = 448, 0x7f NaN; ue8m0 00 = 2^-127 (docs/semantics.md §1).
        assert_eq!(decode(Format::E4m3, 0x7e).to_string(), "448");
        assert!(decode(Format::E4m3, 0x7f).is_nan());
        assert_eq!(decode(Format::Ue8m0, 0x00), Value::num(false, Dyadic::new(Integer::from(1), -127)));
        assert_eq!(decode(Format::E2m1, 0x7).to_string(), "6");
    }
}
