//! The instruction model: what a `cvt` spelling says, independent of how it
//! is evaluated. Parsing, canonical printing and legality live here.

mod legality;
mod parse;
mod target;

use std::fmt;

pub use legality::{check, Illegal};
pub use parse::{parse, ParseError};
pub use target::{PtxVersion, Target, TargetError};

use crate::format::Format;
use crate::round::Mode;

/// An instruction type (`.dtype` / `.atype`).
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
}

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

    pub fn format(self) -> Format {
        match self {
            Type::U8 => Format::U8,
            Type::U16 => Format::U16,
            Type::U32 => Format::U32,
            Type::U64 => Format::U64,
            Type::S8 => Format::S8,
            Type::S16 => Format::S16,
            Type::S32 => Format::S32,
            Type::S64 => Format::S64,
            Type::Bf16 => Format::Bf16,
            Type::F16 => Format::F16,
            Type::F32 => Format::F32,
            Type::F64 => Format::F64,
        }
    }
    pub fn name(self) -> &'static str {
        self.format().name()
    }
    pub fn from_name(s: &str) -> Option<Type> {
        Type::SCALAR.into_iter().find(|t| t.name() == s)
    }
    pub fn bits(self) -> u32 {
        self.format().container_bits()
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

/// One `cvt` instruction as spelled, without operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cvt {
    pub rounding: Option<Rounding>,
    pub relu: bool,
    pub ftz: bool,
    pub sat: bool,
    pub satfinite: bool,
    pub dtype: Type,
    pub atype: Type,
}

impl Cvt {
    pub fn new(dtype: Type, atype: Type) -> Cvt {
        Cvt { rounding: None, relu: false, ftz: false, sat: false, satfinite: false, dtype, atype }
    }
    /// How the conversion relates its types (Table 15's families).
    pub fn family(&self) -> Family {
        match (self.atype.is_float(), self.dtype.is_float()) {
            (false, false) => Family::IntToInt,
            (false, true) => Family::IntToFloat,
            (true, false) => Family::FloatToInt,
            (true, true) => {
                let (a, d) = (self.atype.format().float_layout().unwrap(), self.dtype.format().float_layout().unwrap());
                if self.atype == self.dtype {
                    Family::SameFloat
                } else if d.precision() >= a.precision() && d.emin() <= a.emin() && d.max_finite() >= a.max_finite() {
                    Family::Widen
                } else {
                    Family::Narrow
                }
            }
        }
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
    /// Canonical spelling: `cvt{.rnd}{.relu}{.ftz}{.sat}{.satfinite}.dtype.atype`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cvt")?;
        if let Some(r) = self.rounding {
            write!(f, ".{}", r.name())?;
        }
        for (on, name) in [(self.relu, "relu"), (self.ftz, "ftz"), (self.sat, "sat"), (self.satfinite, "satfinite")] {
            if on {
                write!(f, ".{name}")?;
            }
        }
        write!(f, ".{}.{}", self.dtype.name(), self.atype.name())
    }
}

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

/// Register widths PTX has.
pub const REG_WIDTHS: [u32; 4] = [8, 16, 32, 64];
