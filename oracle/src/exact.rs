//! Exact values: every number a `cvt` operand can hold is a dyadic rational
//! `sig × 2^exp`, kept in `rug` integers so that no host rounding ever enters.

use std::cmp::Ordering;
use std::fmt;

use rug::Integer;

use crate::format::{Format, Kind};

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
    Num { neg: bool, mag: Dyadic },
    Inf { neg: bool },
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
    let bits = if n == 64 { bits } else { bits & ((1u64 << n) - 1) };
    match format.info().kind {
        Kind::Int { signed } => {
            let mut i = Integer::from(bits);
            if signed && n < 65 && bits >> (n - 1) & 1 == 1 {
                i -= Integer::from(1) << n;
            }
            Value::from_integer(i)
        }
        Kind::Float(l) => {
            let code = (bits >> l.shift) & ((1u64 << l.width()) - 1);
            let neg = code & l.sign_bit() != 0;
            let e = (code >> l.man_bits) & l.exp_field_max();
            let m = code & ((1u64 << l.man_bits) - 1);
            if l.is_nan_code(code) {
                let pb = l.man_bits.saturating_sub(1);
                return Value::Nan(Nan { neg, quiet: m & l.quiet_bit() != 0, payload: m & ((1u64 << pb) - 1), payload_bits: pb });
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
pub fn is_subnormal(format: Format, v: &Value) -> bool {
    match (format.float_layout(), v) {
        (Some(l), Value::Num { mag, .. }) => l.subnormals && mag.msb_exp().is_some_and(|e| e < l.emin()),
        _ => false,
    }
}

impl fmt::Display for Dyadic {
    /// Exact decimal when short, otherwise 20 significant digits and `…`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.exp >= 0 {
            return write!(f, "{}", self.sig.clone() << self.exp as u32);
        }
        // sig / 2^k = sig * 5^k / 10^k
        let k = (-self.exp) as u32;
        let digits = (self.sig.clone() * Integer::from(Integer::u_pow_u(5, k))).to_string();
        let (int_part, frac) = if digits.len() > k as usize {
            let (a, b) = digits.split_at(digits.len() - k as usize);
            (a.to_string(), b.to_string())
        } else {
            ("0".to_string(), format!("{}{}", "0".repeat(k as usize - digits.len()), digits))
        };
        let frac = frac.trim_end_matches('0');
        if frac.is_empty() {
            return write!(f, "{int_part}");
        }
        // Keep at most 20 significant digits.
        let lead = if int_part == "0" { frac.len() - frac.trim_start_matches('0').len() } else { 0 };
        let sig_in_int = if int_part == "0" { 0 } else { int_part.len() };
        let keep = (20usize.saturating_sub(sig_in_int) + lead).max(1);
        if frac.len() > keep {
            write!(f, "{int_part}.{}…", &frac[..keep])
        } else {
            write!(f, "{int_part}.{frac}")
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

    // Encodings from IEEE 754-2008 binary16/binary32 examples.
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
        // e4m3 0x7e = 448, 0x7f NaN; ue8m0 00 = 2^-127 (SPEC §1).
        assert_eq!(decode(Format::E4m3, 0x7e).to_string(), "448");
        assert!(decode(Format::E4m3, 0x7f).is_nan());
        assert_eq!(decode(Format::Ue8m0, 0x00), Value::num(false, Dyadic::new(Integer::from(1), -127)));
        assert_eq!(decode(Format::E2m1, 0x7).to_string(), "6");
    }
}
