//! Why result or register text was refused. The messages are the ones the
//! CLI prints; the text quoted in them is clipped to 40 characters.

use std::fmt;

use super::clip_to;

fn clip(s: &str) -> String {
    clip_to(s, 40)
}

/// Why [`parse_hex`](super::parse_hex) refused a register's hex.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HexError {
    /// Written with a `0x` prefix.
    Prefixed { text: String },
    /// `=>` glued to the result that follows it.
    GluedArrow { text: String },
    /// A digit count that is no register's (2, 4, 8 or 16).
    DigitCount { text: String, digits: usize },
    /// A character that is not a hex digit.
    NotHex { text: String, found: char },
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexError::Prefixed { text } => write!(f, "`{}`: write hex without the 0x prefix", clip(text)),
            HexError::GluedArrow { text } => write!(f, "`{}`: put a space after `=>`", clip(text)),
            HexError::DigitCount { text, digits } => {
                write!(f, "`{}` has {digits} hex digits; registers take 2, 4, 8 or 16 (zero-padded, no 0x)", clip(text))
            }
            HexError::NotHex { text, found } => {
                write!(f, "`{}` is not hex: unexpected `{}`", clip(text), found.escape_default())
            }
        }
    }
}

impl std::error::Error for HexError {}

/// Why [`AcceptSet::parse`](super::AcceptSet::parse) refused a result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultParseError {
    /// No text at all.
    Empty,
    /// Alternatives (`a|b`) of different register widths.
    MixedWidths { text: String, first: u32, other: u32 },
    /// An exact value, or the value of a value/mask pair.
    Hex(HexError),
    /// The mask of a value/mask pair.
    Mask(HexError),
    /// A value/mask pair whose two halves differ in width.
    MaskWidth { text: String },
    /// `nan` for a destination that is not floating point.
    NanWithoutFloat,
    /// `nan:WIDTH` without a register width at least the format's.
    NanWidth { text: String },
    /// A `?` pattern whose digit count is no register's.
    PatternDigits { text: String, digits: usize },
    /// A `nan` lane for a destination that is not floating point.
    NanLaneWithoutFloat { text: String },
    /// Only `nan` lanes (so no lane width) and no floating-point destination.
    NanLanesWithoutFloat { text: String },
    /// Lanes of different digit counts; `digits` is the first hex lane's.
    LaneDigits { text: String, digits: u32 },
    /// Lanes that together are no register's width.
    LaneFill { text: String, lanes: usize, lane_bits: u32 },
}

impl fmt::Display for ResultParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ResultParseError as E;
        match self {
            E::Empty => f.write_str("empty result"),
            E::MixedWidths { text, first, other } => {
                write!(f, "alternatives of different widths in `{}` ({first} and {other} bits)", clip(text))
            }
            E::Hex(e) => e.fmt(f),
            E::Mask(e) => write!(f, "mask: {e}"),
            E::MaskWidth { text } => write!(f, "value and mask of different widths in `{}`", clip(text)),
            E::NanWithoutFloat => f.write_str("`nan` needs a floating-point destination"),
            E::NanWidth { text } => write!(f, "`{}`: expected `nan` or `nan:WIDTH` with a register width", clip(text)),
            E::PatternDigits { text, digits } => {
                write!(f, "`{}` has {digits} digits; registers take 2, 4, 8 or 16", clip(text))
            }
            E::NanLaneWithoutFloat { text } => write!(f, "`{}`: `nan` needs a floating-point destination", clip(text)),
            E::NanLanesWithoutFloat { text } => {
                write!(f, "`{}`: `nan` lanes need a floating-point destination", clip(text))
            }
            E::LaneDigits { text, digits } => write!(f, "`{}`: lanes must all have {digits} hex digits", clip(text)),
            E::LaneFill { text, lanes, lane_bits } => {
                write!(f, "`{}`: {lanes} lanes of {lane_bits} bits do not fill a register", clip(text))
            }
        }
    }
}

// No `source`: the messages already include the hex error's.
impl std::error::Error for ResultParseError {}

impl From<HexError> for ResultParseError {
    fn from(e: HexError) -> Self {
        ResultParseError::Hex(e)
    }
}
