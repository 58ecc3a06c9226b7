//! The tf32 and packed forms (PTX Table 16, docs/semantics.md §2): which spellings exist,
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
    /// `.scaled::n2::ue8m0` (never required: the unscaled spelling always exists).
    pub scale: Req,
    /// `.pzo` (PTX ISA 9.4): allowed, under [`PTX94_GATES`] rather than the row's gates.
    pub pzo: bool,
    /// `.scaled::n1::ue8m0` (PTX ISA 9.4, never required), under [`PTX94_GATES`].
    pub scale_n1: Req,
}

const FP8X2: &[Type] = &[E4m3x2, E5m2x2];
const FP6FP4X2: &[Type] = &[E2m3x2, E3m2x2, E2m1x2];
const NARROW_X2: &[Type] = &[E4m3x2, E5m2x2, E2m3x2, E3m2x2, E2m1x2];
const X4: &[Type] = &[E4m3x4, E5m2x4, E2m3x4, E3m2x4, E2m1x4];
/// Every Blackwell-generation target with an `a` or `f` suffix (ptxas 13.5 has no sm_101).
const SM100_PLUS: Gate = Gate::Family(&[100, 103, 107, 110, 120, 121]);
/// `.rs` and the x4 forms: these architecture-specific targets only.
const RS_TARGETS: Gate = Gate::Arch(&[100, 103, 107]);
/// rz into fp8/fp6/fp4, and ue5m3x2: sm_107a/sm_107f only.
const SM107: Gate = Gate::Family(&[107]);
/// s2f6x2: the Blackwell-generation `a` targets only, no `f` or portable target (ptxas 13.5).
const S2F6_TARGETS: Gate = Gate::Arch(&[100, 103, 107, 110, 120, 121]);

const fn form(
    dtypes: &'static [Type],
    atypes: &'static [Type],
    roundings: &'static [Rounding],
    satfinite: Req,
    relu: bool,
    gates: &'static [(Gate, (u32, u32))],
) -> Form {
    Form {
        dtypes,
        atypes,
        roundings,
        satfinite,
        relu,
        gates,
        satfinite_gate: None,
        scale: Req::Absent,
        pzo: false,
        scale_n1: Req::Absent,
    }
}

/// A row that also takes `.scaled::n2::ue8m0` (ptxas 13.5, same gates as the row).
const fn scalable(f: Form) -> Form {
    Form { scale: Req::Optional, ..f }
}

/// A row that also takes `.pzo` (ptxas 13.5; on sm_107a/f with PTX ISA 9.4 only).
const fn pzo(f: Form) -> Form {
    Form { pzo: true, ..f }
}

/// A row that also takes `.scaled::n1::ue8m0` (ptxas 13.5; sm_107a/f, PTX ISA 9.4).
const fn single_scaled(f: Form) -> Form {
    Form { scale_n1: Req::Optional, ..f }
}

/// Where `.pzo` and `.scaled::n1::ue8m0` exist, on every form that takes them (ptxas 13.5:
/// "Feature '.pzo' not supported" elsewhere; tests/data/ptxas-legality-ptx94.md).
pub const PTX94_GATES: &[(Gate, (u32, u32))] = &[(SM107, (9, 4))];

/// The scalar types that take `.pzo`: f16 and bf16 from f32 (ptxas 13.5; the modifiers
/// it excludes are in `legality::check_scalar_pzo`).
pub fn scalar_pzo(d: Type, a: Type) -> bool {
    a == F32 && matches!(d, F16 | Bf16)
}

/// Every tf32/packed form: docs/semantics.md §2, corrected by what ptxas 13.5 accepts
/// (tests/data/ptxas-legality-packed.md).
pub const FORMS: &[Form] = &[
    // f16x2/bf16x2 from two f32.
    pzo(Form {
        satfinite_gate: Some((Gate::AtLeast(80), (8, 1))),
        ..form(&[F16x2, Bf16x2], &[F32], &[Rn, Rz], Req::Optional, true, &[(Gate::AtLeast(80), (7, 0))])
    }),
    form(&[F16x2, Bf16x2], &[F32], &[Rs], Req::Optional, true, &[(RS_TARGETS, (8, 7))]),
    // tf32 from f32 (.relu never with .rna).
    Form {
        satfinite_gate: Some((Gate::AtLeast(80), (8, 1))),
        ..form(&[Tf32], &[F32], &[Rna], Req::Optional, false, &[(Gate::AtLeast(80), (7, 0))])
    },
    pzo(Form {
        satfinite_gate: Some((Gate::AtLeast(100), (8, 6))),
        ..form(&[Tf32], &[F32], &[Rn, Rz], Req::Optional, true, &[(Gate::AtLeast(90), (7, 8))])
    }),
    // fp8 pairs (into fp8/fp6/fp4 from f32/f16x2/bf16x2: also .pzo and .scaled::n1::ue8m0).
    pzo(single_scaled(form(FP8X2, &[F32, F16x2], &[Rn], Req::Required, true, &[(Gate::AtLeast(89), (7, 8))]))),
    pzo(single_scaled(form(FP8X2, &[Bf16x2], &[Rn], Req::Required, true, &[(SM100_PLUS, (9, 1))]))),
    form(&[F16x2], FP8X2, &[Rn], Req::Absent, true, &[(Gate::AtLeast(89), (7, 8))]),
    // fp6/fp4 pairs.
    pzo(single_scaled(form(FP6FP4X2, &[F32], &[Rn], Req::Required, true, &[(SM100_PLUS, (8, 6))]))),
    pzo(single_scaled(form(FP6FP4X2, &[F16x2, Bf16x2], &[Rn], Req::Required, true, &[(SM100_PLUS, (9, 1))]))),
    pzo(single_scaled(form(NARROW_X2, &[F32, F16x2, Bf16x2], &[Rz], Req::Required, true, &[(SM107, (9, 4))]))),
    form(&[F16x2], FP6FP4X2, &[Rn], Req::Absent, true, &[(SM100_PLUS, (8, 6))]),
    // bf16x2 from the narrow pairs (not in docs/semantics.md §2; ptxas 13.5, PTX 9.2), also scaled.
    scalable(form(&[Bf16x2], NARROW_X2, &[Rn], Req::Optional, true, &[(SM100_PLUS, (9, 2))])),
    // s2f6x2 (PTX ISA 9.1; checked against ptxas 13.5, docs/semantics.md §5.14): .satfinite
    // required into s2f6x2, .rz only on sm_107a (PTX 9.4), scaled or not.
    scalable(form(&[S2f6x2], &[F32, Bf16x2], &[Rn], Req::Required, true, &[(S2F6_TARGETS, (9, 1))])),
    scalable(form(&[S2f6x2], &[F32, Bf16x2], &[Rz], Req::Required, true, &[(Gate::Arch(&[107]), (9, 4))])),
    scalable(form(&[Bf16x2], &[S2f6x2], &[Rn], Req::Optional, true, &[(S2F6_TARGETS, (9, 1))])),
    // ue5m3x2 (sm_107a/f, PTX 9.4; ptxas 13.5): spelled and checked, not evaluated.
    // .scaled::n1::ue8m0 with .rn/.rz only; never .pzo.
    single_scaled(form(&[Ue5m3x2], &[F32, F16x2, Bf16x2], &[Rn, Rz], Req::Optional, false, &[(SM107, (9, 4))])),
    form(&[Ue5m3x2], &[F32, F16x2, Bf16x2], &[Rp], Req::Optional, false, &[(SM107, (9, 4))]),
    scalable(form(&[Bf16x2], &[Ue5m3x2], &[Rn], Req::Optional, false, &[(SM107, (9, 4))])),
    form(&[F16x2], &[Ue5m3x2], &[Rn], Req::Absent, false, &[(SM107, (9, 4))]),
    // ue8m0 scale factors: no .relu.
    form(&[Ue8m0x2], &[F32, Bf16x2], &[Rz, Rp], Req::Optional, false, &[(SM100_PLUS, (8, 6))]),
    form(&[Bf16x2], &[Ue8m0x2], &[Rn], Req::Absent, false, &[(SM100_PLUS, (8, 6))]),
    // Stochastic rounding to four lanes.
    form(X4, &[F32], &[Rs], Req::Required, true, &[(RS_TARGETS, (8, 7))]),
];

/// Whether a register of `width` bits can hold operand `index` of `c`
/// (the destination when `index` is None). Packed registers are exactly as
/// wide as their type; only f16x2.f32 also takes 64-bit d, a and b.
pub fn width_ok(c: &Cvt, index: Option<usize>, width: u32) -> bool {
    let shape = super::shape(c);
    let natural = match index {
        None => c.dtype.bits(),
        Some(i) => shape.srcs[i],
    };
    let is_rbits = index.is_some_and(|i| shape.names[i] == "rbits");
    width == natural || (c.dtype == F16x2 && c.atype == F32 && !is_rbits && width == 64)
}

/// The form rows a spelling's types and rounding match.
pub(crate) fn forms_for(c: &Cvt) -> impl Iterator<Item = &'static Form> + '_ {
    FORMS.iter().filter(|f| f.dtypes.contains(&c.dtype) && f.atypes.contains(&c.atype))
}

/// Whether some row converting `a` to `d` takes `.scaled::n2::ue8m0`.
pub(crate) fn scalable_pair(d: Type, a: Type) -> bool {
    FORMS.iter().any(|f| f.scale != Req::Absent && f.dtypes.contains(&d) && f.atypes.contains(&a))
}

/// Whether some row converting `a` to `d` takes `.scaled::n1::ue8m0`.
pub fn single_scalable_pair(d: Type, a: Type) -> bool {
    FORMS.iter().any(|f| f.scale_n1 != Req::Absent && f.dtypes.contains(&d) && f.atypes.contains(&a))
}

/// Whether some spelling converting `a` to `d` takes `.pzo`.
pub fn pzo_pair(d: Type, a: Type) -> bool {
    scalar_pzo(d, a) || FORMS.iter().any(|f| f.pzo && f.dtypes.contains(&d) && f.atypes.contains(&a))
}

/// Whether any gate pair admits the target and version.
pub(crate) fn gate_ok(gates: &[(Gate, (u32, u32))], t: Option<Target>, v: Option<PtxVersion>) -> bool {
    gates.iter().any(|(g, (ma, mi))| t.is_none_or(|t| g.admits(t)) && v.is_none_or(|v| v >= PtxVersion::new(*ma, *mi)))
}

pub(crate) fn describe_gates(gates: &[(Gate, (u32, u32))]) -> String {
    gates.iter().map(|(g, (a, b))| format!("{} with PTX ISA {a}.{b}", g.describe())).collect::<Vec<_>>().join(", or ")
}
