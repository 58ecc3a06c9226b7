//! The instruction model: what a `cvt` spelling says, independent of how it
//! is evaluated. Parsing, canonical printing and legality live here.

mod legality;
pub mod packed;
mod parse;
mod target;

use std::fmt;
use std::sync::OnceLock;

pub use legality::{check, Illegal, LegalityRule};
pub use parse::{parse, ParseError};
pub use target::{PtxVersion, Target, TargetError};

use crate::format::Format;
use crate::round::Mode;

/// An instruction type (`.dtype` / `.atype`): a scalar type, or a packed
/// type whose lanes share one number format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    Bf16,
    F16,
    F32,
    F64,
    Tf32,
    F16x2,
    Bf16x2,
    E4m3x2,
    E5m2x2,
    E2m3x2,
    E3m2x2,
    E2m1x2,
    Ue8m0x2,
    E4m3x4,
    E5m2x4,
    E2m3x4,
    E3m2x4,
    E2m1x4,
    /// Two s2f6 lanes (8-bit fixed point, docs/semantics.md §5.14), a in the high byte.
    S2f6x2,
    /// Two ue5m3 lanes (unsigned E5M3, docs/semantics.md §5.16), a in the high byte.
    Ue5m3x2,
    /// The `.convertType` of `cvt.pack.sat`: two saturated lanes in a 32-bit `d`.
    PackU16,
    PackS16,
    PackU8,
    PackS8,
    PackU4,
    PackS4,
    PackU2,
    PackS2,
}

/// Per type: name, lane format, lanes, bits per lane in the register.
const TYPES: [(Type, &str, Format, u32, u32); 36] = [
    (Type::U8, "u8", Format::U8, 1, 8),
    (Type::U16, "u16", Format::U16, 1, 16),
    (Type::U32, "u32", Format::U32, 1, 32),
    (Type::U64, "u64", Format::U64, 1, 64),
    (Type::S8, "s8", Format::S8, 1, 8),
    (Type::S16, "s16", Format::S16, 1, 16),
    (Type::S32, "s32", Format::S32, 1, 32),
    (Type::S64, "s64", Format::S64, 1, 64),
    (Type::Bf16, "bf16", Format::Bf16, 1, 16),
    (Type::F16, "f16", Format::F16, 1, 16),
    (Type::F32, "f32", Format::F32, 1, 32),
    (Type::F64, "f64", Format::F64, 1, 64),
    (Type::Tf32, "tf32", Format::Tf32, 1, 32),
    (Type::F16x2, "f16x2", Format::F16, 2, 16),
    (Type::Bf16x2, "bf16x2", Format::Bf16, 2, 16),
    (Type::E4m3x2, "e4m3x2", Format::E4m3, 2, 8),
    (Type::E5m2x2, "e5m2x2", Format::E5m2, 2, 8),
    // 6-bit lanes sit in bits 5:0 of a byte (docs/semantics.md §5.11).
    (Type::E2m3x2, "e2m3x2", Format::E2m3, 2, 8),
    (Type::E3m2x2, "e3m2x2", Format::E3m2, 2, 8),
    (Type::E2m1x2, "e2m1x2", Format::E2m1, 2, 4),
    (Type::Ue8m0x2, "ue8m0x2", Format::Ue8m0, 2, 8),
    (Type::E4m3x4, "e4m3x4", Format::E4m3, 4, 8),
    (Type::E5m2x4, "e5m2x4", Format::E5m2, 4, 8),
    (Type::E2m3x4, "e2m3x4", Format::E2m3, 4, 8),
    (Type::E3m2x4, "e3m2x4", Format::E3m2, 4, 8),
    (Type::E2m1x4, "e2m1x4", Format::E2m1, 4, 4),
    (Type::S2f6x2, "s2f6x2", Format::S2f6, 2, 8),
    (Type::Ue5m3x2, "ue5m3x2", Format::Ue5m3, 2, 8),
    // cvt.pack: listed after the scalar types so `u16`, `u8` parse as those
    // unless `.pack` is given (see `Type::pack_of`).
    (Type::PackU16, "u16", Format::U16, 2, 16),
    (Type::PackS16, "s16", Format::S16, 2, 16),
    (Type::PackU8, "u8", Format::U8, 2, 8),
    (Type::PackS8, "s8", Format::S8, 2, 8),
    (Type::PackU4, "u4", Format::U4, 2, 4),
    (Type::PackS4, "s4", Format::S4, 2, 4),
    (Type::PackU2, "u2", Format::U2, 2, 2),
    (Type::PackS2, "s2", Format::S2, 2, 2),
];

impl Type {
    /// Every scalar type, in the order `list` enumerates them.
    pub const SCALAR: [Type; 12] = [
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S8,
        Type::S16,
        Type::S32,
        Type::S64,
        Type::Bf16,
        Type::F16,
        Type::F32,
        Type::F64,
    ];

    pub fn all() -> impl Iterator<Item = Type> {
        TYPES.iter().map(|t| t.0)
    }
    fn row(self) -> &'static (Type, &'static str, Format, u32, u32) {
        &TYPES[self as usize]
    }
    /// The number format of the value (of each lane, for packed types).
    pub fn format(self) -> Format {
        self.row().2
    }
    pub fn name(self) -> &'static str {
        self.row().1
    }
    pub fn from_name(s: &str) -> Option<Type> {
        TYPES.iter().find(|t| t.1 == s).map(|t| t.0)
    }
    pub fn lanes(self) -> u32 {
        self.row().3
    }
    /// Bits each lane occupies in the register.
    pub fn lane_bits(self) -> u32 {
        self.row().4
    }
    /// Bits of the whole value (`cvt.pack`: the 32-bit `d`, lanes and `c` bits).
    pub fn bits(self) -> u32 {
        if self.is_pack() {
            32
        } else {
            self.lanes() * self.lane_bits()
        }
    }
    /// A `cvt.pack` destination type.
    pub fn is_pack(self) -> bool {
        self >= Type::PackU16
    }
    /// The `cvt.pack` type spelled like `self` (`u8` → the pack `u8`), if there is one.
    pub fn pack_of(self) -> Option<Type> {
        let name = self.name();
        TYPES.iter().map(|t| t.0).find(|t| t.is_pack() && t.name() == name)
    }
    /// `cvt.pack` types narrower than 16 bits take a third source, `c` (`.b32`),
    /// whose low bits fill `d` above the two lanes (PTX ISA "cvt.pack").
    pub fn takes_c(self) -> bool {
        self.is_pack() && self.lane_bits() < 16
    }
    pub fn is_packed(self) -> bool {
        self.lanes() > 1
    }
    pub fn is_scalar(self) -> bool {
        (self as usize) < Type::SCALAR.len()
    }
    pub fn is_float(self) -> bool {
        self.format().is_float()
    }
    pub fn is_int(self) -> bool {
        !self.is_float()
    }
}

/// A rounding modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rounding {
    Rn,
    Rna,
    Rz,
    Rm,
    Rp,
    Rs,
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl Rounding {
    pub const ALL: [Rounding; 10] = [
        Rounding::Rn,
        Rounding::Rna,
        Rounding::Rz,
        Rounding::Rm,
        Rounding::Rp,
        Rounding::Rs,
        Rounding::Rni,
        Rounding::Rzi,
        Rounding::Rmi,
        Rounding::Rpi,
    ];
    pub const FLOAT4: [Rounding; 4] = [Rounding::Rn, Rounding::Rz, Rounding::Rm, Rounding::Rp];
    pub const INT4: [Rounding; 4] = [Rounding::Rni, Rounding::Rzi, Rounding::Rmi, Rounding::Rpi];

    pub fn name(self) -> &'static str {
        match self {
            Rounding::Rn => "rn",
            Rounding::Rna => "rna",
            Rounding::Rz => "rz",
            Rounding::Rm => "rm",
            Rounding::Rp => "rp",
            Rounding::Rs => "rs",
            Rounding::Rni => "rni",
            Rounding::Rzi => "rzi",
            Rounding::Rmi => "rmi",
            Rounding::Rpi => "rpi",
        }
    }
    pub fn from_name(s: &str) -> Option<Rounding> {
        Rounding::ALL.into_iter().find(|r| r.name() == s)
    }
    /// Integer rounding (.rni .rzi .rmi .rpi): rounds to an integral value.
    pub fn is_integer(self) -> bool {
        matches!(self, Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi)
    }
    /// The rounding rule, for the deterministic modes (.rs needs its random bits).
    pub fn mode(self) -> Option<Mode> {
        Some(match self {
            Rounding::Rn | Rounding::Rni => Mode::NearestEven,
            Rounding::Rna => Mode::NearestAway,
            Rounding::Rz | Rounding::Rzi => Mode::TowardZero,
            Rounding::Rm | Rounding::Rmi => Mode::Down,
            Rounding::Rp | Rounding::Rpi => Mode::Up,
            Rounding::Rs => return None,
        })
    }
}

/// One `cvt` instruction as spelled, without operands. Parse one with
/// [`parse`] or `str::parse`; `Display` prints the canonical spelling.
///
/// ```
/// use ptx_cvt::{Cvt, Rounding, Type};
///
/// let c: Cvt = "cvt.f16.f32.rn".parse().unwrap(); // modifiers in any order
/// assert_eq!((c.dtype, c.atype, c.rounding), (Type::F16, Type::F32, Some(Rounding::Rn)));
/// assert_eq!(c.to_string(), "cvt.rn.f16.f32");
/// assert!("cvt.f16".parse::<Cvt>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cvt {
    pub rounding: Option<Rounding>,
    pub relu: bool,
    pub ftz: bool,
    pub sat: bool,
    pub satfinite: bool,
    /// `.scaled::n2::ue8m0`: a 16-bit `scale` operand holds one ue8m0 factor per lane.
    pub scaled: bool,
    /// `.pzo` (PTX ISA 9.4, sm_107a/f): a −0 result is written as +0 (docs/semantics.md §5.15).
    pub pzo: bool,
    /// `.scaled::n1::ue8m0` (PTX ISA 9.4, sm_107a/f): one ue8m0 factor in an 8-bit `scale`
    /// operand divides both lanes (docs/semantics.md §5.15).
    pub scaled_n1: bool,
    pub dtype: Type,
    pub atype: Type,
}

impl Cvt {
    pub fn new(dtype: Type, atype: Type) -> Cvt {
        Cvt {
            rounding: None,
            relu: false,
            ftz: false,
            sat: false,
            satfinite: false,
            scaled: false,
            pzo: false,
            scaled_n1: false,
            dtype,
            atype,
        }
    }
    /// Whether both types are scalar (Table 15) rather than tf32 or packed (Table 16).
    pub fn is_scalar(&self) -> bool {
        self.dtype.is_scalar() && self.atype.is_scalar()
    }
    /// How the conversion relates its (lane) formats (Table 15's families).
    #[inline]
    pub fn family(&self) -> Family {
        family(self.atype.format(), self.dtype.format())
    }
    /// How `explain` names the conversion: its [`Family`], except the s2f6
    /// forms (fixed-point, not integer) and the scaled forms (docs/semantics.md §5.14).
    pub fn describe_family(&self) -> &'static str {
        let fixed = |t: Type| t.format().fixed_frac_bits().is_some();
        if self.scaled_n1 {
            return "float→float narrowing, both lanes divided by one ue8m0 scale";
        }
        match (fixed(self.atype), fixed(self.dtype), self.scaled) {
            (_, true, false) => "float→fixed-point",
            (_, true, true) => "float→fixed-point, each lane divided by its ue8m0 scale",
            (true, _, false) => "fixed-point→float",
            (true, _, true) => "fixed-point→float, each lane multiplied by its ue8m0 scale",
            (false, false, true) => "float→float, each lane multiplied by its ue8m0 scale",
            (false, false, false) => self.family().describe(),
        }
    }
    /// Whether each lane is scaled by a ue8m0 factor: the `.scaled::n2::ue8m0`
    /// and `.scaled::n1::ue8m0` forms, and the s2f6x2 forms without a scale
    /// (factor 1, docs/semantics.md §5.14, §5.15).
    pub fn lane_scale(&self) -> bool {
        self.scaled || self.scaled_n1 || self.dtype == Type::S2f6x2 || self.atype == Type::S2f6x2
    }
}

/// The family of a conversion from format `a` to format `d`.
#[inline]
pub fn family(a: Format, d: Format) -> Family {
    // Derived once per pair: the exact engine asks on every conversion.
    static TABLE: OnceLock<Vec<Family>> = OnceLock::new();
    let n = Format::ALL.len();
    let t = TABLE.get_or_init(|| Format::ALL.iter().flat_map(|&a| Format::ALL.map(|d| derive_family(a, d))).collect());
    t[a as usize * n + d as usize]
}

fn derive_family(a: Format, d: Format) -> Family {
    match (a.float_layout(), d.float_layout()) {
        (None, None) => Family::IntToInt,
        (None, Some(_)) => Family::IntToFloat,
        (Some(_), None) => Family::FloatToInt,
        (Some(_), Some(_)) if a == d => Family::SameFloat,
        (Some(al), Some(dl))
            if dl.precision() >= al.precision() && dl.qmin() <= al.qmin() && dl.max_finite() >= al.max_finite() =>
        {
            Family::Widen
        }
        (Some(_), Some(_)) => Family::Narrow,
    }
}

/// Conversion families, derived from the types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    IntToInt,
    IntToFloat,
    FloatToInt,
    /// Same float type: copy or round to integral.
    SameFloat,
    /// Every source value is exactly representable in the destination.
    Widen,
    /// The destination may lose precision or range (f16↔bf16 both lose).
    Narrow,
}

impl Family {
    pub fn describe(self) -> &'static str {
        match self {
            Family::IntToInt => "int→int",
            Family::IntToFloat => "int→float",
            Family::FloatToInt => "float→int",
            Family::SameFloat => "float→same float (copy or round to integral)",
            Family::Widen => "float→float widening (exact)",
            Family::Narrow => "float→float narrowing",
        }
    }
}

impl fmt::Display for Cvt {
    /// Canonical spelling:
    /// `cvt{.pack}{.rnd}{.relu}{.ftz}{.sat}{.satfinite}{.pzo}{.scaled::n2::ue8m0|.scaled::n1::ue8m0}.dtype.atype{.b32}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.dtype.is_pack() { "cvt.pack" } else { "cvt" })?;
        if let Some(r) = self.rounding {
            write!(f, ".{}", r.name())?;
        }
        for (on, name) in [
            (self.relu, "relu"),
            (self.ftz, "ftz"),
            (self.sat, "sat"),
            (self.satfinite, "satfinite"),
            (self.pzo, "pzo"),
            (self.scaled, SCALED),
            (self.scaled_n1, SCALED_N1),
        ] {
            if on {
                write!(f, ".{name}")?;
            }
        }
        write!(f, ".{}.{}", self.dtype.name(), self.atype.name())?;
        if self.dtype.takes_c() {
            f.write_str(".b32")?;
        }
        Ok(())
    }
}

/// The scale modifier's spelling (without the leading dot).
pub(crate) const SCALED: &str = "scaled::n2::ue8m0";
/// The single-scale modifier of PTX ISA 9.4 (without the leading dot).
pub(crate) const SCALED_N1: &str = "scaled::n1::ue8m0";

/// Register widths of a concrete use of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Regs {
    pub dst: u32,
    pub src: u32,
}

impl Regs {
    /// Registers exactly as wide as the types.
    pub fn natural(c: &Cvt) -> Regs {
        Regs { dst: c.dtype.bits(), src: c.atype.bits() }
    }
}

/// The source operands a form takes, in case-line order, and their register
/// widths. Built without allocating: both engines ask for it on every call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub srcs: Widths,
    pub names: &'static [&'static str],
}

/// Register widths of a form's operands (at most six: a, b, e, f, c, rbits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Widths {
    len: u8,
    w: [u32; 6],
}

impl std::ops::Deref for Widths {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        &self.w[..self.len as usize]
    }
}

impl<'a> IntoIterator for &'a Widths {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Shape {
    /// e.g. `a:32 b:32 rbits:32`.
    pub fn describe(&self) -> String {
        self.names.iter().zip(self.srcs.iter()).map(|(n, w)| format!("{n}:{w}")).collect::<Vec<_>>().join(" ")
    }
}

/// Operands of a form: one source, or one f32 (s32 for `cvt.pack`) per lane
/// of a packed result (`a` is the high lane), then `c` for the narrow
/// `cvt.pack` forms, `rbits` for `.rs` and the 16-bit `scale` for
/// `.scaled::n2::ue8m0` (docs/semantics.md §2, §5.14).
pub fn shape(c: &Cvt) -> Shape {
    // Every combination of the lanes' values, `c` and `rbits`, spelled out once.
    const NAMES: [[&[&str]; 4]; 3] = [
        [&["a"], &["a", "c"], &["a", "rbits"], &["a", "c", "rbits"]],
        [&["a", "b"], &["a", "b", "c"], &["a", "b", "rbits"], &["a", "b", "c", "rbits"]],
        [
            &["a", "b", "e", "f"],
            &["a", "b", "e", "f", "c"],
            &["a", "b", "e", "f", "rbits"],
            &["a", "b", "e", "f", "c", "rbits"],
        ],
    ];
    let values = match (c.atype.is_packed() || !c.dtype.is_packed(), c.dtype.lanes()) {
        (true, _) => 0,
        (false, 4) => 2,
        (false, _) => 1,
    };
    const SCALED_NAMES: [&[&str]; 3] = [&["a", "scale"], &["a", "b", "scale"], &["a", "b", "e", "f", "scale"]];
    let extras = usize::from(c.dtype.takes_c()) | usize::from(c.rounding == Some(Rounding::Rs)) << 1;
    let names = if c.scaled || c.scaled_n1 { SCALED_NAMES[values] } else { NAMES[values][extras] };
    let mut w = [c.atype.bits(); 6];
    for (i, n) in names.iter().enumerate() {
        match *n {
            "c" | "rbits" => w[i] = 32,
            "scale" => w[i] = if c.scaled_n1 { 8 } else { 16 },
            _ => {}
        }
    }
    Shape { srcs: Widths { len: names.len() as u8, w }, names }
}

/// Register widths PTX has.
pub const REG_WIDTHS: [u32; 4] = [8, 16, 32, 64];
