//! The tf32 and packed forms (PTX Table 16, SPEC §2): which spellings exist,
//! their operands, and the targets that have them. One row per form family.

use super::target::Suffix;
use super::{Cvt, PtxVersion, Rounding, Target, Type};

use Rounding::*;
use Type::*;

/// Whether a modifier is required, allowed or absent for a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Req {
    Required,
    Optional,
    Absent,
}

/// Which targets have a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// sm_N or later, any suffix.
    AtLeast(u32),
    /// Architecture-specific targets only (`sm_100a`), these chips.
    Arch(&'static [u32]),
    /// Family or architecture-specific targets of these chips (`sm_100f`, `sm_103a`).
    Family(&'static [u32]),
}

impl Gate {
    pub fn admits(self, t: Target) -> bool {
        match self {
            Gate::AtLeast(n) => t.sm >= n,
            Gate::Arch(sms) => t.suffix == Suffix::Arch && sms.contains(&t.sm),
            Gate::Family(sms) => t.suffix != Suffix::None && sms.contains(&t.sm),
        }
    }
    pub fn describe(self) -> String {
        let list = |sms: &[u32], s: &str| sms.iter().map(|n| format!("sm_{n}{s}")).collect::<Vec<_>>().join("/");
        match self {
            Gate::AtLeast(n) => format!("sm_{n} or later"),
            Gate::Arch(sms) => list(sms, "a"),
            Gate::Family(sms) => format!("{} (or their `a` targets)", list(sms, "f")),
        }
    }
}

/// One family of tf32/packed spellings.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    pub dtypes: &'static [Type],
    pub atypes: &'static [Type],
    pub roundings: &'static [Rounding],
    pub satfinite: Req,
    pub relu: bool,
    /// Alternative (target gate, PTX version) pairs; any one suffices.
    pub gates: &'static [(Gate, (u32, u32))],
    /// Stricter gate for `.satfinite`, when it came later than the form.
    pub satfinite_gate: Option<(Gate, (u32, u32))>,
}

const FP8X2: &[Type] = &[E4m3x2, E5m2x2];
const FP6FP4X2: &[Type] = &[E2m3x2, E3m2x2, E2m1x2];
const X4: &[Type] = &[E4m3x4, E5m2x4, E2m3x4, E3m2x4, E2m1x4];
const SM100_FAMILY: Gate = Gate::Family(&[100, 101, 103, 110, 120, 121]);
const SM100_ARCH: Gate = Gate::Arch(&[100, 101, 103, 110, 120, 121]);

/// Every tf32/packed form (SPEC §2 and §3).
pub const FORMS: &[Form] = &[
    // f16x2/bf16x2 from two f32.
    Form {
        dtypes: &[F16x2, Bf16x2],
        atypes: &[F32],
        roundings: &[Rn, Rz],
        satfinite: Req::Optional,
        relu: true,
        gates: &[(Gate::AtLeast(80), (7, 0))],
        satfinite_gate: Some((Gate::AtLeast(80), (8, 1))),
    },
    Form {
        dtypes: &[F16x2, Bf16x2],
        atypes: &[F32],
        roundings: &[Rs],
        satfinite: Req::Optional,
        relu: true,
        gates: &[(Gate::Arch(&[100, 103]), (8, 7))],
        satfinite_gate: None,
    },
    // tf32 from f32.
    Form {
        dtypes: &[Tf32],
        atypes: &[F32],
        roundings: &[Rna],
        satfinite: Req::Optional,
        relu: false,
        gates: &[(Gate::AtLeast(80), (7, 0))],
        satfinite_gate: Some((Gate::AtLeast(80), (8, 1))),
    },
    Form {
        dtypes: &[Tf32],
        atypes: &[F32],
        roundings: &[Rn, Rz],
        satfinite: Req::Optional,
        relu: true,
        gates: &[(Gate::AtLeast(90), (7, 8))],
        satfinite_gate: Some((Gate::AtLeast(100), (8, 6))),
    },
    // fp8 pairs.
    Form {
        dtypes: FP8X2,
        atypes: &[F32, F16x2],
        roundings: &[Rn],
        satfinite: Req::Required,
        relu: true,
        gates: &[(Gate::AtLeast(89), (8, 1)), (Gate::AtLeast(90), (7, 8))],
        satfinite_gate: None,
    },
    Form {
        dtypes: FP8X2,
        atypes: &[Bf16x2],
        roundings: &[Rn],
        satfinite: Req::Required,
        relu: true,
        gates: &[(SM100_FAMILY, (9, 1))],
        satfinite_gate: None,
    },
    Form {
        dtypes: &[F16x2],
        atypes: FP8X2,
        roundings: &[Rn],
        satfinite: Req::Absent,
        relu: true,
        gates: &[(Gate::AtLeast(89), (8, 1)), (Gate::AtLeast(90), (7, 8))],
        satfinite_gate: None,
    },
    // fp6/fp4 pairs.
    Form {
        dtypes: FP6FP4X2,
        atypes: &[F32],
        roundings: &[Rn],
        satfinite: Req::Required,
        relu: true,
        gates: &[(SM100_ARCH, (8, 6)), (SM100_FAMILY, (8, 8))],
        satfinite_gate: None,
    },
    Form {
        dtypes: FP6FP4X2,
        atypes: &[F16x2, Bf16x2],
        roundings: &[Rn],
        satfinite: Req::Required,
        relu: true,
        gates: &[(SM100_FAMILY, (9, 1))],
        satfinite_gate: None,
    },
    Form {
        dtypes: &[F16x2],
        atypes: FP6FP4X2,
        roundings: &[Rn],
        satfinite: Req::Absent,
        relu: true,
        gates: &[(SM100_ARCH, (8, 6)), (SM100_FAMILY, (8, 8))],
        satfinite_gate: None,
    },
    // ue8m0 scale factors.
    Form {
        dtypes: &[Ue8m0x2],
        atypes: &[F32, Bf16x2],
        roundings: &[Rz, Rp],
        satfinite: Req::Optional,
        relu: false,
        gates: &[(SM100_ARCH, (8, 6)), (SM100_FAMILY, (8, 8))],
        satfinite_gate: None,
    },
    Form {
        dtypes: &[Bf16x2],
        atypes: &[Ue8m0x2],
        roundings: &[Rn],
        satfinite: Req::Absent,
        relu: false,
        gates: &[(SM100_ARCH, (8, 6)), (SM100_FAMILY, (8, 8))],
        satfinite_gate: None,
    },
    // Stochastic rounding to four lanes.
    Form {
        dtypes: X4,
        atypes: &[F32],
        roundings: &[Rs],
        satfinite: Req::Required,
        relu: true,
        gates: &[(Gate::Arch(&[100, 103]), (8, 7))],
        satfinite_gate: None,
    },
];

/// The form rows a spelling's types and rounding match.
pub fn forms_for(c: &Cvt) -> impl Iterator<Item = &'static Form> + '_ {
    FORMS.iter().filter(|f| f.dtypes.contains(&c.dtype) && f.atypes.contains(&c.atype))
}

/// Whether any gate pair admits the target and version.
pub fn gate_ok(gates: &[(Gate, (u32, u32))], t: Option<Target>, v: Option<PtxVersion>) -> bool {
    gates.iter().any(|(g, (ma, mi))| t.is_none_or(|t| g.admits(t)) && v.is_none_or(|v| v >= PtxVersion::new(*ma, *mi)))
}

pub fn describe_gates(gates: &[(Gate, (u32, u32))]) -> String {
    gates.iter().map(|(g, (a, b))| format!("{} with PTX ISA {a}.{b}", g.describe())).collect::<Vec<_>>().join(", or ")
}
