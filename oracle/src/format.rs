//! The format table: one row per number format `cvt` knows (docs/semantics.md §1).
//!
//! Every limit the oracle uses (max finite, smallest normal, precision, NaN
//! encodings, integer ranges) is derived from these rows; nothing else in the
//! crate hard-codes a format constant.

use rug::Integer;

/// A number format. Packed instruction types (`f16x2`, `e4m3x2`, ...) are
/// lanes of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    E4m3,
    E5m2,
    E2m3,
    E3m2,
    E2m1,
    Ue8m0,
    /// Sub-byte integers: only the lanes of `cvt.pack` (PTX ISA "cvt.pack").
    U4,
    S4,
    U2,
    S2,
    /// Signed fixed point: an 8-bit two's-complement integer in units of 2^-6
    /// (the lanes of `s2f6x2`, docs/semantics.md §5.14).
    S2f6,
    /// The lanes of `ue5m3x2`: the oracle knows the name and width only, because
    /// no public definition of the encoding was found (docs/semantics.md §5.14).
    Ue5m3,
}

/// How the all-ones exponent field is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Specials {
    /// IEEE 754: exponent all ones is Inf (mantissa 0) or NaN.
    Ieee,
    /// Only S.1111.111 is NaN; the rest of the top binade is finite (e4m3).
    NanAllOnes,
    /// Every code is a finite number (e2m3, e3m2, e2m1).
    None,
    /// The all-ones code is NaN, everything else finite; no zero (ue8m0).
    NanMaxCode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatLayout {
    pub exp_bits: u32,
    /// Stored fraction bits (precision is `man_bits + 1`).
    pub man_bits: u32,
    pub bias: i32,
    pub signed: bool,
    pub specials: Specials,
    /// Whether exponent field 0 means subnormal (false for ue8m0, where 00 is 2^-127).
    pub subnormals: bool,
    /// Position of the format's lowest bit inside its container (tf32: 13).
    pub shift: u32,
    /// Limits derived from the fields above when the table is built: the
    /// exact engine reads them on every conversion.
    derived: Derived,
}

/// A float format's derived limits (see the methods of [`FloatLayout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Derived {
    emin: i64,
    emax: i64,
    max_finite_code: u64,
    exp_field_max: u64,
    sign_bit: u64,
    /// The encoding's bits (sign, exponent, fraction) and the fraction's.
    code_mask: u64,
    man_mask: u64,
}

impl Derived {
    const fn of(
        exp_bits: u32,
        man_bits: u32,
        bias: i32,
        signed: bool,
        specials: Specials,
        subnormals: bool,
    ) -> Derived {
        let exp_field_max = (1u64 << exp_bits) - 1;
        let all_man = (1u64 << man_bits) - 1;
        let (e, m) = match specials {
            Specials::Ieee | Specials::NanMaxCode => (exp_field_max - 1, all_man),
            Specials::NanAllOnes => (exp_field_max, all_man - 1),
            Specials::None => (exp_field_max, all_man),
        };
        let max_finite_code = (e << man_bits) | m;
        Derived {
            emin: if subnormals { 1 - bias as i64 } else { -(bias as i64) },
            emax: (max_finite_code >> man_bits) as i64 - bias as i64,
            max_finite_code,
            exp_field_max,
            sign_bit: (signed as u64) << (exp_bits + man_bits),
            code_mask: const_low_mask(signed as u32 + exp_bits + man_bits),
            man_mask: all_man,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Int {
        signed: bool,
    },
    Float(FloatLayout),
    /// A two's-complement integer of `container_bits` read in units of 2^-`frac_bits`.
    Fixed {
        frac_bits: u32,
    },
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct FormatInfo {
    pub format: Format,
    pub name: &'static str,
    /// Bits of the container the format is stored in (tf32: 32, e2m3: 8).
    pub container_bits: u32,
    pub kind: Kind,
}

const fn fixed(format: Format, name: &'static str, bits: u32, frac_bits: u32) -> FormatInfo {
    FormatInfo { format, name, container_bits: bits, kind: Kind::Fixed { frac_bits } }
}

const fn int(format: Format, name: &'static str, bits: u32, signed: bool) -> FormatInfo {
    FormatInfo { format, name, container_bits: bits, kind: Kind::Int { signed } }
}

#[allow(clippy::too_many_arguments)]
const fn float(
    format: Format,
    name: &'static str,
    container_bits: u32,
    signed: bool,
    exp_bits: u32,
    man_bits: u32,
    bias: i32,
    specials: Specials,
    shift: u32,
) -> FormatInfo {
    let subnormals = !matches!(specials, Specials::NanMaxCode);
    let derived = Derived::of(exp_bits, man_bits, bias, signed, specials, subnormals);
    FormatInfo {
        format,
        name,
        container_bits,
        kind: Kind::Float(FloatLayout { exp_bits, man_bits, bias, signed, specials, subnormals, shift, derived }),
    }
}

use Format::*;
use Specials as Sp;

/// The table. Order matches the `Format` enum.
pub(crate) static TABLE: [FormatInfo; 25] = ROWS;

/// The rows, also readable at compile time (the fast engine's batch kernels
/// take their layout constants from here).
const ROWS: [FormatInfo; 25] = [
    int(U8, "u8", 8, false),
    int(U16, "u16", 16, false),
    int(U32, "u32", 32, false),
    int(U64, "u64", 64, false),
    int(S8, "s8", 8, true),
    int(S16, "s16", 16, true),
    int(S32, "s32", 32, true),
    int(S64, "s64", 64, true),
    float(F16, "f16", 16, true, 5, 10, 15, Sp::Ieee, 0),
    float(Bf16, "bf16", 16, true, 8, 7, 127, Sp::Ieee, 0),
    float(Tf32, "tf32", 32, true, 8, 10, 127, Sp::Ieee, 13),
    float(F32, "f32", 32, true, 8, 23, 127, Sp::Ieee, 0),
    float(F64, "f64", 64, true, 11, 52, 1023, Sp::Ieee, 0),
    float(E4m3, "e4m3", 8, true, 4, 3, 7, Sp::NanAllOnes, 0),
    float(E5m2, "e5m2", 8, true, 5, 2, 15, Sp::Ieee, 0),
    float(E2m3, "e2m3", 8, true, 2, 3, 1, Sp::None, 0),
    float(E3m2, "e3m2", 8, true, 3, 2, 3, Sp::None, 0),
    float(E2m1, "e2m1", 4, true, 2, 1, 1, Sp::None, 0),
    float(Ue8m0, "ue8m0", 8, false, 8, 0, 127, Sp::NanMaxCode, 0),
    int(U4, "u4", 4, false),
    int(S4, "s4", 4, true),
    int(U2, "u2", 2, false),
    int(S2, "s2", 2, true),
    fixed(S2f6, "s2f6", 8, 6),
    // Unsigned E5M3, no infinity, NaN only ff (PTX ISA 9.4; docs/semantics.md §5.14).
    float(Ue5m3, "ue5m3", 8, false, 5, 3, 15, Sp::NanAllOnes, 0),
];

impl Format {
    pub const ALL: [Format; 25] = [
        U8, U16, U32, U64, S8, S16, S32, S64, F16, Bf16, Tf32, F32, F64, E4m3, E5m2, E2m3, E3m2, E2m1, Ue8m0, U4, S4,
        U2, S2, S2f6, Ue5m3,
    ];

    /// The float layout, at compile time (panics for an integer format).
    pub const fn float_layout_const(self) -> FloatLayout {
        match ROWS[self as usize].kind {
            Kind::Float(l) => l,
            _ => panic!("not a float format"),
        }
    }
    #[inline]
    pub(crate) fn info(self) -> &'static FormatInfo {
        &TABLE[self as usize]
    }
    pub fn name(self) -> &'static str {
        self.info().name
    }
    pub fn from_name(name: &str) -> Option<Format> {
        TABLE.iter().find(|f| f.name == name).map(|f| f.format)
    }
    #[inline]
    pub fn container_bits(self) -> u32 {
        self.info().container_bits
    }
    #[inline]
    pub fn is_float(self) -> bool {
        matches!(self.info().kind, Kind::Float(_))
    }
    #[inline]
    pub fn is_signed_int(self) -> bool {
        matches!(self.info().kind, Kind::Int { signed: true })
    }
    #[inline(always)]
    pub fn float_layout(self) -> Option<&'static FloatLayout> {
        match &self.info().kind {
            Kind::Float(l) => Some(l),
            _ => None,
        }
    }
    /// [`Format::int_range`], computed once per format.
    pub fn int_bounds(self) -> Option<&'static (Integer, Integer)> {
        static BOUNDS: std::sync::OnceLock<Vec<Option<(Integer, Integer)>>> = std::sync::OnceLock::new();
        BOUNDS.get_or_init(|| Format::ALL.iter().map(|f| f.int_range()).collect())[self as usize].as_ref()
    }
    /// Smallest and largest integer value (integer formats only).
    pub fn int_range(self) -> Option<(Integer, Integer)> {
        self.int_range_i128().map(|(lo, hi)| (Integer::from(lo), Integer::from(hi)))
    }
    /// [`Format::int_range`] as machine integers (every integer format
    /// fits: at most 64 bits).
    pub fn int_range_i128(self) -> Option<(i128, i128)> {
        let n = self.container_bits();
        match self.info().kind {
            Kind::Int { signed: true } => Some((-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1)),
            Kind::Int { signed: false } => Some((0, (1i128 << n) - 1)),
            _ => None,
        }
    }
    /// Fractional bits of a fixed-point format.
    #[inline]
    pub fn fixed_frac_bits(self) -> Option<u32> {
        match self.info().kind {
            Kind::Fixed { frac_bits } => Some(frac_bits),
            _ => None,
        }
    }
    /// Smallest and largest code of a fixed-point format as integers (units of 2^-frac_bits).
    pub fn fixed_units(self) -> Option<(i64, i64)> {
        self.fixed_frac_bits().map(|_| {
            let n = self.container_bits();
            (-(1i64 << (n - 1)), (1i64 << (n - 1)) - 1)
        })
    }
}

/// [`low_mask`] for the table's constants.
const fn const_low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// A mask of the low `bits` bits (all ones for 64).
#[inline(always)]
pub fn low_mask(bits: u32) -> u64 {
    // Without a branch: 2^bits − 1, wrapping to all ones from 64 bits on.
    1u64.checked_shl(bits).unwrap_or(0).wrapping_sub(1)
}

impl FloatLayout {
    #[inline]
    pub fn precision(&self) -> u32 {
        self.man_bits + 1
    }
    /// Width of the encoding itself (sign + exponent + fraction).
    #[inline]
    pub fn width(&self) -> u32 {
        self.signed as u32 + self.exp_bits + self.man_bits
    }
    #[inline(always)]
    pub fn exp_field_max(&self) -> u64 {
        self.derived.exp_field_max
    }
    /// Unbiased exponent of the smallest normal number.
    #[inline(always)]
    pub fn emin(&self) -> i64 {
        self.derived.emin
    }
    /// Unbiased exponent of the largest finite value's top bit.
    #[inline(always)]
    pub fn emax(&self) -> i64 {
        self.derived.emax
    }
    /// Exponent of the least significant bit at the bottom of the range: the
    /// quantum of subnormals (or of the smallest normal binade).
    #[inline(always)]
    pub fn qmin(&self) -> i64 {
        self.emin() - self.man_bits as i64
    }
    /// The code (without sign) of the largest finite value.
    #[inline(always)]
    pub fn max_finite_code(&self) -> u64 {
        self.derived.max_finite_code
    }
    #[inline]
    pub fn has_inf(&self) -> bool {
        self.specials == Specials::Ieee
    }
    #[inline]
    pub fn has_nan(&self) -> bool {
        self.specials != Specials::None
    }
    #[inline(always)]
    pub fn sign_bit(&self) -> u64 {
        self.derived.sign_bit
    }
    /// Quiet bit of a NaN (IEEE formats: top fraction bit).
    #[inline]
    pub fn quiet_bit(&self) -> u64 {
        if self.man_bits == 0 {
            0
        } else {
            1u64 << (self.man_bits - 1)
        }
    }
    /// Positive infinity code (IEEE formats only).
    pub fn inf_code(&self) -> Option<u64> {
        self.has_inf().then(|| self.exp_field_max() << self.man_bits)
    }
    /// The bits of the encoding itself: [`FloatLayout::width`] ones.
    #[inline(always)]
    pub fn code_mask(&self) -> u64 {
        self.derived.code_mask
    }
    /// The fraction's bits: `man_bits` ones.
    #[inline(always)]
    pub fn man_mask(&self) -> u64 {
        self.derived.man_mask
    }
    /// Whether a code (without container shift) is a NaN.
    #[inline]
    pub fn is_nan_code(&self, code: u64) -> bool {
        let mag = code & !self.sign_bit() & self.code_mask();
        let e = mag >> self.man_bits;
        let m = mag & self.man_mask();
        match self.specials {
            Specials::Ieee => e == self.exp_field_max() && m != 0,
            Specials::NanAllOnes => mag == low_mask(self.exp_bits + self.man_bits),
            Specials::None => false,
            Specials::NanMaxCode => mag == self.exp_field_max(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Max-finite values from docs/semantics.md §1 table (IEEE 754 / OCP MX spec values).
    #[test]
    fn max_finite_codes_match_spec_table() {
        let want: [(Format, u64); 11] = [
            (F16, 0x7bff),
            (Bf16, 0x7f7f),
            (F32, 0x7f7f_ffff),
            (F64, 0x7fef_ffff_ffff_ffff),
            (E4m3, 0x7e),
            (E5m2, 0x7b),
            (E2m3, 0x1f),
            (E3m2, 0x1f),
            (E2m1, 0x7),
            (Ue8m0, 0xfe),
            // 1.75 · 2^16 = 114688 (PTX ISA 9.4 as quoted in docs/semantics.md §5.14).
            (Ue5m3, 0xfe),
        ];
        for (f, code) in want {
            assert_eq!(f.float_layout().unwrap().max_finite_code(), code, "{}", f.name());
        }
    }

    #[test]
    fn derived_masks() {
        for f in Format::ALL {
            if let Some(l) = f.float_layout() {
                assert_eq!(l.code_mask(), low_mask(l.width()), "{}", f.name());
                assert_eq!(l.man_mask(), low_mask(l.man_bits), "{}", f.name());
            }
        }
    }

    #[test]
    fn table_rows_are_in_enum_order() {
        for f in Format::ALL {
            assert_eq!(f.info().format, f);
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
    }
}
