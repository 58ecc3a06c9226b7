//! Exact values: every number a `cvt` operand can hold is a dyadic rational
//! `sig × 2^exp`, kept in `rug` integers so that no host rounding ever enters.

use std::cmp::Ordering;
use std::fmt;

use rug::Integer;

use crate::format::{low_mask, FloatLayout, Format, Kind};

impl FloatLayout {
    /// Magnitude of the largest finite value, exactly (here, not in the
    /// format table: the table does not depend on exact values).
    pub fn max_finite(&self) -> Dyadic {
        let code = self.max_finite_code();
        let e = (code >> self.man_bits) as i64;
        let m = code & ((1u64 << self.man_bits) - 1);
        Dyadic::new(Integer::from(m | (1u64 << self.man_bits)), e - self.bias as i64 - self.man_bits as i64)
    }
}

/// A non-negative dyadic rational `sig × 2^exp`.
#[derive(Clone, Debug)]
pub struct Dyadic {
    pub sig: Integer,
    pub exp: i64,
}

impl Dyadic {
    pub fn new(sig: Integer, exp: i64) -> Dyadic {
        Dyadic { sig, exp }
    }
    pub fn zero() -> Dyadic {
        Dyadic { sig: Integer::new(), exp: 0 }
    }
    pub fn from_int(n: Integer) -> Dyadic {
        Dyadic { sig: n, exp: 0 }
    }
    pub fn is_zero(&self) -> bool {
        self.sig == 0
    }
    /// Exponent of the most significant set bit (floor(log2(x))); None for zero.
    pub fn msb_exp(&self) -> Option<i64> {
        (!self.is_zero()).then(|| self.exp + self.sig.significant_bits() as i64 - 1)
    }
    /// The significand scaled to quantum 2^q (exact only if q <= exp or bits vanish).
    pub fn scaled_to(&self, q: i64) -> Integer {
        let d = self.exp - q;
        if d >= 0 {
            self.sig.clone() << d as u32
        } else {
            self.sig.clone() >> (-d) as u32
        }
    }
    /// Integer part (floor) of the magnitude.
    pub fn floor_int(&self) -> Integer {
        self.scaled_to(0)
    }
}

impl PartialEq for Dyadic {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Dyadic {}
impl PartialOrd for Dyadic {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Dyadic {
    fn cmp(&self, o: &Self) -> Ordering {
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
    pub fn num(neg: bool, mag: Dyadic) -> Value {
        Value::Num { neg, mag }
    }
    pub fn is_nan(&self) -> bool {
        matches!(self, Value::Nan(_))
    }
    pub fn is_negative(&self) -> bool {
        match self {
            Value::Num { neg, .. } | Value::Inf { neg } => *neg,
            Value::Nan(n) => n.neg,
        }
    }
    /// Signed integer value when finite and integral.
    pub fn as_integer(&self) -> Option<Integer> {
        match self {
            Value::Num { neg, mag } if mag.exp >= 0 || mag.scaled_to(0) << (-mag.exp) as u32 == mag.sig => {
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
pub fn decode(format: Format, bits: u64) -> Value {
    let n = format.container_bits();
    let bits = bits & low_mask(n);
    match format.info().kind {
        Kind::Int { signed } => {
            let mut i = Integer::from(bits);
            if signed && n < 65 && bits >> (n - 1) & 1 == 1 {
                i -= Integer::from(1) << n;
            }
            Value::from_integer(i)
        }
        Kind::Fixed { frac_bits } => {
            let i = if bits >> (n - 1) & 1 == 1 { bits as i64 - (1i64 << n) } else { bits as i64 };
            Value::num(i < 0, Dyadic::new(Integer::from(i.unsigned_abs()), -(frac_bits as i64)))
        }
        Kind::Float(l) => {
            let code = (bits >> l.shift) & low_mask(l.width());
            let neg = code & l.sign_bit() != 0;
            let e = (code >> l.man_bits) & l.exp_field_max();
            let m = code & ((1u64 << l.man_bits) - 1);
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
            Value::Num { neg, mag: Dyadic::new(Integer::from(sig), exp) }
        }
    }
}

/// Whether a finite float value is subnormal in `format` (nonzero, below the smallest normal).
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
            ((self.sig.clone() << self.exp as u32).to_string(), 0i64)
        } else {
            let k = (-self.exp) as u32;
            ((self.sig.clone() * Integer::from(Integer::u_pow_u(5, k))).to_string(), k as i64)
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
