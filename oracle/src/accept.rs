//! Acceptance sets: what a result register may hold. Most results are one
//! exact value; where the ISA leaves bits open the set says so instead of
//! guessing.
//!
//! Text syntax (vectors/README.md): alternatives joined by `|`, each one of
//! - `ffffffc2`: exact bits, zero-padded to the register width;
//! - `3f80????`: `?` digits are don't-care nibbles;
//! - `3f800000/ffffe000`: value/mask, only bits set in the mask are compared;
//! - `nan` (`nan:64` for a wider register): any NaN of the destination type.

use std::fmt;

use crate::format::Format;

pub(crate) mod alts;
mod error;

pub use alts::Alts;
pub use error::{HexError, ResultParseError};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alt {
    /// Bits equal to `value` wherever `mask` is set.
    Bits { value: u64, mask: u64 },
    /// Any NaN of the format, zero-extended to the register.
    AnyNan(Format),
    /// A packed register, lane by lane, high lane first; each lane `bits` wide.
    Lanes { bits: u32, lanes: Vec<LaneSet> },
}

/// What one lane of a packed result may hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneSet {
    Bits { value: u64, mask: u64 },
    AnyNan(Format),
}

impl LaneSet {
    fn contains(&self, bits: u64) -> bool {
        match self {
            LaneSet::Bits { value, mask } => bits & mask == value & mask,
            LaneSet::AnyNan(f) => f.float_layout().is_some_and(|l| l.is_nan_code(bits)),
        }
    }
}

/// The values a result register may hold: the oracle's answer, or a result
/// under test read from a case line.
///
/// ```
/// use ptx_cvt::accept::{AcceptSet, HexError, ResultParseError};
/// use ptx_cvt::format::Format;
///
/// // Any f32 NaN, or exactly 1.0.
/// let allowed = AcceptSet::parse("nan|3f800000", Some(Format::F32)).unwrap();
/// let got = AcceptSet::parse("7fc00000", Some(Format::F32)).unwrap();
/// assert!(got.is_subset_of(&allowed));
/// assert!(!AcceptSet::exact(32, 0x3f80_0001).is_subset_of(&allowed));
///
/// let e = AcceptSet::parse("0x3f800000", None).unwrap_err();
/// assert!(matches!(e, ResultParseError::Hex(HexError::Prefixed { .. })));
/// assert_eq!(e.to_string(), "`0x3f800000`: write hex without the 0x prefix");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AcceptSet {
    /// Register width in bits.
    pub width: u32,
    pub alts: Alts,
}

pub use crate::format::low_mask as width_mask;

impl Alt {
    fn contains(&self, bits: u64) -> bool {
        match self {
            Alt::Bits { value, mask } => bits & mask == value & mask,
            Alt::AnyNan(f) => {
                let n = f.container_bits();
                bits & !width_mask(n) == 0 && f.float_layout().is_some_and(|l| l.is_nan_code(bits >> l.shift))
            }
            Alt::Lanes { bits: lb, lanes } => {
                let n = lanes.len() as u32;
                bits & !width_mask(lb * n) == 0
                    && lanes
                        .iter()
                        .enumerate()
                        .all(|(i, l)| l.contains((bits >> (lb * (n - 1 - i as u32))) & width_mask(*lb)))
            }
        }
    }
}

impl AcceptSet {
    #[inline]
    pub fn exact(width: u32, value: u64) -> AcceptSet {
        AcceptSet { width, alts: alts::one(Alt::Bits { value, mask: width_mask(width) }) }
    }
    /// A packed result from its lanes (high lane first): one exact value when
    /// every lane is exact, a lane-wise alternative otherwise.
    pub fn from_lanes(width: u32, lane_bits: u32, lanes: Vec<LaneSet>) -> AcceptSet {
        AcceptSet::from_lane_slice(width, lane_bits, &lanes)
    }
    /// [`AcceptSet::from_lanes`] from borrowed lanes (copied only when some lane is not exact).
    pub fn from_lane_slice(width: u32, lane_bits: u32, lanes: &[LaneSet]) -> AcceptSet {
        let mut value = 0u64;
        let mut mask = 0u64;
        for l in lanes {
            let LaneSet::Bits { value: v, mask: m } = l else {
                return AcceptSet { width, alts: alts::one(Alt::Lanes { bits: lane_bits, lanes: lanes.to_vec() }) };
            };
            value = (value << lane_bits) | v;
            mask = (mask << lane_bits) | m;
        }
        // A wider register holds the lanes zero-extended.
        mask |= width_mask(width) & !width_mask(lane_bits * lanes.len() as u32);
        AcceptSet { width, alts: alts::one(Alt::Bits { value, mask }) }
    }
    pub fn any_nan(width: u32, f: Format) -> AcceptSet {
        AcceptSet { width, alts: alts::one(Alt::AnyNan(f)) }
    }
    /// The single value, when the set has exactly one member.
    pub fn single(&self) -> Option<u64> {
        match self.alts.as_slice() {
            [Alt::Bits { value, mask }] if *mask == width_mask(self.width) => Some(*value),
            _ => None,
        }
    }
    pub fn contains(&self, bits: u64) -> bool {
        bits & !width_mask(self.width) == 0 && self.alts.iter().any(|a| a.contains(bits))
    }
    /// Add the members of another set of the same width (deduplicated).
    pub fn union(&mut self, other: AcceptSet) {
        for a in other.alts {
            if !self.alts.contains(&a) && !self.covers(&a) {
                self.alts.push(a);
            }
        }
    }
    fn covers(&self, a: &Alt) -> bool {
        match a {
            Alt::Bits { value, mask } if *mask == width_mask(self.width) => self.contains(*value),
            _ => self.alts.contains(a),
        }
    }
    /// Whether every member of `self` is in `other` (sufficient test: exact
    /// members are looked up; patterns must appear in `other` too, or be
    /// implied by a looser pattern).
    pub fn is_subset_of(&self, other: &AcceptSet) -> bool {
        self.width == other.width
            && self.alts.iter().all(|a| match a {
                Alt::Bits { value, mask } if *mask == width_mask(self.width) => other.contains(*value),
                Alt::Bits { value, mask } => other.alts.iter().any(|b| match b {
                    Alt::Bits { value: v2, mask: m2 } => m2 & !mask == 0 && value & m2 == v2 & m2,
                    Alt::AnyNan(_) | Alt::Lanes { .. } => false,
                }),
                Alt::AnyNan(f) => other.alts.contains(&Alt::AnyNan(*f)),
                Alt::Lanes { .. } => other.alts.contains(a),
            })
    }

    /// Parse the text syntax (module docs). `nan_format` is the destination's
    /// format, the one a bare `nan` means; a [`ResultParseError`] says what is wrong.
    pub fn parse(text: &str, nan_format: Option<Format>) -> Result<AcceptSet, ResultParseError> {
        if text.is_empty() {
            return Err(ResultParseError::Empty);
        }
        let mut width = None;
        let mut alts = Alts::new();
        for part in text.split('|') {
            let (alt, w) = parse_alt(part, nan_format)?;
            // Lanes that are all exact bits are one exact value: `3c00_3c00` is `3c003c00`.
            let alt = match alt {
                Alt::Lanes { bits, lanes } => AcceptSet::from_lanes(w, bits, lanes).alts.remove(0),
                other => other,
            };
            match width {
                None => width = Some(w),
                Some(w0) if w0 != w => {
                    return Err(ResultParseError::MixedWidths { text: text.into(), first: w0, other: w })
                }
                _ => {}
            }
            alts.push(alt);
        }
        Ok(AcceptSet { width: width.unwrap(), alts })
    }
}

/// At most `n` characters of user text for an error message, with control
/// characters escaped so that they stay visible.
pub fn clip_to(s: &str, n: usize) -> String {
    let mut out: String = s
        .chars()
        .take(n)
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect();
    if s.chars().nth(n).is_some() {
        out.push('…');
    }
    out
}

/// Register width in bits from a count of hex digits.
pub fn width_of_digits(n: usize) -> Option<u32> {
    match n {
        2 => Some(8),
        4 => Some(16),
        8 => Some(32),
        16 => Some(64),
        _ => None,
    }
}

/// Parse plain hex (no `0x`), checking the digit count is a register width:
/// (value, width in bits).
pub fn parse_hex(s: &str) -> Result<(u64, u32), HexError> {
    if s.starts_with("0x") || s.starts_with("0X") {
        return Err(HexError::Prefixed { text: s.into() });
    }
    if s.starts_with("=>") {
        return Err(HexError::GluedArrow { text: s.into() });
    }
    let w =
        width_of_digits(s.len()).ok_or_else(|| HexError::DigitCount { text: s.into(), digits: s.chars().count() })?;
    if let Some(found) = s.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(HexError::NotHex { text: s.into(), found });
    }
    Ok((u64::from_str_radix(s, 16).expect("checked hex"), w))
}

fn parse_alt(s: &str, nan_format: Option<Format>) -> Result<(Alt, u32), ResultParseError> {
    if s.contains('_') {
        return parse_lanes(s, nan_format);
    }
    if let Some(rest) = s.strip_prefix("nan") {
        let f = nan_format.ok_or(ResultParseError::NanWithoutFloat)?;
        let w = match rest {
            "" => f.container_bits(),
            _ => rest
                .strip_prefix(':')
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|w| [8, 16, 32, 64].contains(w) && *w >= f.container_bits())
                .ok_or_else(|| ResultParseError::NanWidth { text: s.into() })?,
        };
        return Ok((Alt::AnyNan(f), w));
    }
    if let Some((v, m)) = s.split_once('/') {
        let (value, w) = parse_hex(v)?;
        let (mask, wm) = parse_hex(m).map_err(ResultParseError::Mask)?;
        if w != wm {
            return Err(ResultParseError::MaskWidth { text: s.into() });
        }
        return Ok((Alt::Bits { value: value & mask, mask }, w));
    }
    if s.contains('?') {
        let w = width_of_digits(s.len())
            .ok_or_else(|| ResultParseError::PatternDigits { text: s.into(), digits: s.chars().count() })?;
        let (value, mask) = parse_nibbles(s, s)?;
        return Ok((Alt::Bits { value, mask }, w));
    }
    let (value, w) = parse_hex(s)?;
    Ok((Alt::Bits { value, mask: width_mask(w) }, w))
}

/// Hex digits and `?` don't-care nibbles as (value, mask); `whole` is the
/// result text quoted in errors.
fn parse_nibbles(digits: &str, whole: &str) -> Result<(u64, u64), HexError> {
    let (mut value, mut mask) = (0u64, 0u64);
    for c in digits.chars() {
        value <<= 4;
        mask <<= 4;
        if c != '?' {
            value |= c.to_digit(16).ok_or_else(|| HexError::NotHex { text: whole.into(), found: c })? as u64;
            mask |= 0xf;
        }
    }
    Ok((value, mask))
}

/// Hex digits of `value`, with `?` where `mask` has a clear nibble.
fn show_nibbles(value: u64, mask: u64, digits: usize) -> String {
    (0..digits)
        .rev()
        .map(|k| if (mask >> (4 * k)) & 0xf == 0 { "?".to_string() } else { format!("{:x}", (value >> (4 * k)) & 0xf) })
        .collect()
}

/// `hi_lo` lane syntax: each lane hex (with `?`) or `nan`, all of one width.
fn parse_lanes(s: &str, nan_format: Option<Format>) -> Result<(Alt, u32), ResultParseError> {
    let parts: Vec<&str> = s.split('_').collect();
    let hex_digits = parts.iter().find(|p| **p != "nan").map(|p| p.len());
    let f = nan_format;
    let lane_bits = match (hex_digits, f) {
        (Some(d), _) => 4 * d as u32,
        (None, Some(f)) => f.container_bits().min(if f == Format::E2m1 { 4 } else { 64 }),
        (None, None) => return Err(ResultParseError::NanLanesWithoutFloat { text: s.into() }),
    };
    let mut lanes = Vec::new();
    for p in &parts {
        if *p == "nan" {
            lanes.push(LaneSet::AnyNan(f.ok_or_else(|| ResultParseError::NanLaneWithoutFloat { text: s.into() })?));
            continue;
        }
        if 4 * p.len() as u32 != lane_bits || p.is_empty() {
            return Err(ResultParseError::LaneDigits { text: s.into(), digits: lane_bits / 4 });
        }
        let (value, mask) = parse_nibbles(p, s)?;
        lanes.push(LaneSet::Bits { value, mask });
    }
    let width = lane_bits * parts.len() as u32;
    if ![8, 16, 32, 64].contains(&width) {
        return Err(ResultParseError::LaneFill { text: s.into(), lanes: parts.len(), lane_bits });
    }
    Ok((Alt::Lanes { bits: lane_bits, lanes }, width))
}

impl fmt::Display for AcceptSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = (self.width / 4) as usize;
        for (i, a) in self.alts.iter().enumerate() {
            if i > 0 {
                f.write_str("|")?;
            }
            match a {
                Alt::AnyNan(fm) if fm.container_bits() == self.width => f.write_str("nan")?,
                Alt::AnyNan(_) => write!(f, "nan:{}", self.width)?,
                Alt::Bits { value, mask } if *mask == width_mask(self.width) => write!(f, "{value:0digits$x}")?,
                Alt::Bits { value, mask } if (0..digits).all(|k| matches!((mask >> (4 * k)) & 0xf, 0 | 0xf)) => {
                    f.write_str(&show_nibbles(*value, *mask, digits))?
                }
                Alt::Bits { value, mask } => write!(f, "{value:0digits$x}/{mask:0digits$x}")?,
                Alt::Lanes { bits, lanes } => {
                    let d = (*bits as usize).div_ceil(4);
                    let text: Vec<String> = lanes
                        .iter()
                        .map(|l| match l {
                            LaneSet::AnyNan(_) => "nan".to_string(),
                            LaneSet::Bits { value, mask } => show_nibbles(*value, *mask, d),
                        })
                        .collect();
                    f.write_str(&text.join("_"))?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_round_trips() {
        for s in ["ffffffc2", "3f80????", "3f800000/ffffe000", "nan", "7fff|7e00", "nan:32", "nan_3c00", "3c00_nan"] {
            let set = AcceptSet::parse(s, Some(Format::F16)).unwrap();
            assert_eq!(set.to_string(), s);
        }
        let nan = AcceptSet::parse("nan", Some(Format::F32)).unwrap();
        assert!(nan.contains(0xffc0_0001) && !nan.contains(0x7f80_0000));
        let m = AcceptSet::parse("3f800000/ffffe000", None).unwrap();
        assert!(m.contains(0x3f80_1fff) && !m.contains(0x3f80_2000));
        assert!(AcceptSet::exact(32, 0x3f80_0001).is_subset_of(&m));
        let lanes = AcceptSet::parse("nan_3c00", Some(Format::F16)).unwrap();
        assert!(lanes.contains(0xfc01_3c00) && !lanes.contains(0x7c00_3c00) && !lanes.contains(0x7e00_3c01));
        // Issue 11: exact lanes are the exact value, so `check` compares them as such.
        let exact = AcceptSet::parse("3c00_3c00", Some(Format::F16)).unwrap();
        assert_eq!(exact, AcceptSet::exact(32, 0x3c00_3c00));
        assert!(exact.is_subset_of(&AcceptSet::exact(32, 0x3c00_3c00)));
        assert_eq!(AcceptSet::parse("3c0?_3c00", Some(Format::F16)).unwrap().to_string(), "3c0?3c00");
        for bad in ["", "123", "xyz0", "0x12", "12|1234", "nan:12", "12/1234", "1g", "3c00_3c0", "3c_3c_3c", "nan_"] {
            assert!(AcceptSet::parse(bad, Some(Format::F16)).is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_are_typed_and_keep_their_messages() {
        let err = |s| AcceptSet::parse(s, Some(Format::F16)).unwrap_err();
        assert_eq!(err(""), ResultParseError::Empty);
        assert_eq!(err("3c00/0x12"), ResultParseError::Mask(HexError::Prefixed { text: "0x12".into() }));
        assert_eq!(err("3c?g"), ResultParseError::Hex(HexError::NotHex { text: "3c?g".into(), found: 'g' }));
        assert_eq!(err("3c_3c_3c"), ResultParseError::LaneFill { text: "3c_3c_3c".into(), lanes: 3, lane_bits: 8 });
        assert_eq!(parse_hex("3f8"), Err(HexError::DigitCount { text: "3f8".into(), digits: 3 }));
        // The messages the CLI printed when these errors were plain strings.
        for (text, message) in [
            ("12|1234", "alternatives of different widths in `12|1234` (8 and 16 bits)"),
            ("3c00/12g4", "mask: `12g4` is not hex: unexpected `g`"),
            ("3c00/ff", "value and mask of different widths in `3c00/ff`"),
            ("nan:8", "`nan:8`: expected `nan` or `nan:WIDTH` with a register width"),
            ("3c0?1", "`3c0?1` has 5 digits; registers take 2, 4, 8 or 16"),
            ("3c00_3c0", "`3c00_3c0`: lanes must all have 4 hex digits"),
        ] {
            assert_eq!(err(text).to_string(), message);
        }
        let no_float = |s| AcceptSet::parse(s, None).unwrap_err().to_string();
        assert_eq!(no_float("nan"), "`nan` needs a floating-point destination");
        assert_eq!(no_float("nan_3c00"), "`nan_3c00`: `nan` needs a floating-point destination");
        assert_eq!(no_float("nan_nan"), "`nan_nan`: `nan` lanes need a floating-point destination");
        let long = "a".repeat(57);
        assert_eq!(
            parse_hex(&long).unwrap_err().to_string(),
            format!("`{}…` has 57 hex digits; registers take 2, 4, 8 or 16 (zero-padded, no 0x)", &long[..40])
        );
        assert_eq!(parse_hex("=>3c00").unwrap_err().to_string(), "`=>3c00`: put a space after `=>`");
    }
}
