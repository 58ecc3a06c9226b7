//! Legality of a spelling: for every target (form rules), for a register
//! use, and for a chosen target and PTX ISA version (gates). Each rule has a
//! stable name so tests, the snapshot comparison and users can refer to it.

use std::fmt;

use super::{packed, Cvt, Family, PtxVersion, Regs, Rounding, Target, Type, REG_WIDTHS};

/// The legality rules, each with its stable name (`[rule NAME]` in messages;
/// `docs/semantics.md` §8.2 states each one).
macro_rules! legality_rules {
    ($($v:ident $name:literal,)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum LegalityRule { $($v,)* }

        impl LegalityRule {
            /// Every legality rule, in declaration order.
            pub const ALL: &'static [LegalityRule] = &[$(LegalityRule::$v,)*];
            /// The stable name, e.g. `sat-superset`.
            pub fn name(self) -> &'static str {
                match self { $(LegalityRule::$v => $name,)* }
            }
        }
    };
}

legality_rules! {
    TargetVersion "target-version",
    PackedModifier "packed-modifier",
    PackedTypes "packed-types",
    PackedRounding "packed-rounding",
    SatfiniteRequired "satfinite-required",
    SatfiniteAbsent "satfinite-absent",
    ReluAbsent "relu-absent",
    ScaleAbsent "scale-absent",
    PzoAbsent "pzo-absent",
    Ptx94Gate "ptx94-gate",
    RegisterPackedExact "register-packed-exact",
    PackedGate "packed-gate",
    PackTypes "pack-types",
    PackSatRequired "pack-sat-required",
    PackModifier "pack-modifier",
    RegisterPackExact "register-pack-exact",
    RoundingPackedOnly "rounding-packed-only",
    RoundingIntToInt "rounding-int-to-int",
    RoundingRequiredFrnd "rounding-required-frnd",
    RoundingRequiredIrnd "rounding-required-irnd",
    RoundingSameSize "rounding-same-size",
    RoundingWidening "rounding-widening",
    SatBf16 "sat-bf16",
    SatSuperset "sat-superset",
    FtzNeedsF32 "ftz-needs-f32",
    ReluSatfiniteTypes "relu-satfinite-types",
    ReluSatfiniteRounding "relu-satfinite-rounding",
    ReluSatfiniteCombination "relu-satfinite-combination",
    RegisterWidth "register-width",
    RegisterNarrow "register-narrow",
    RegisterBf16Exact "register-bf16-exact",
    TargetGate "target-gate",
    VersionGate "version-gate",
}

impl fmt::Display for LegalityRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    /// The rule broken, e.g. [`LegalityRule::SatSuperset`] (`sat-superset`).
    pub rule: LegalityRule,
    pub message: String,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [rule {}]", self.message, self.rule)
    }
}

impl std::error::Error for Illegal {}

fn no(rule: LegalityRule, message: impl Into<String>) -> Result<(), Illegal> {
    Err(Illegal { rule, message: message.into() })
}

/// Check a spelling with its registers, optionally against a target and PTX
/// version. Without a target only the rules that hold on every target apply.
pub fn check(c: &Cvt, regs: Regs, target: Option<Target>, version: Option<PtxVersion>) -> Result<(), Illegal> {
    check_target_version(target, version)?;
    if c.scaled && c.scaled_n1 {
        return no(
            LegalityRule::ScaleAbsent,
            format!("`.{}` and `.{}` cannot be combined", super::SCALED, super::SCALED_N1),
        );
    }
    if (c.scaled || c.scaled_n1) && (c.is_scalar() || c.dtype.is_pack()) {
        return no(
            LegalityRule::ScaleAbsent,
            format!("`.{}` exists only for some packed forms, not {}", scale_name(c), arrow(c)),
        );
    }
    if c.dtype.is_pack() || c.atype.is_pack() {
        return check_pack(c, regs, target, version);
    }
    if !c.is_scalar() {
        return check_packed(c, regs, target, version);
    }
    check_form(c)?;
    check_scalar_pzo(c)?;
    check_regs(c, regs)?;
    check_gates(c, target, version)?;
    check_ptx94_gate(c, target, version)
}

fn scale_name(c: &Cvt) -> &'static str {
    if c.scaled_n1 {
        super::SCALED_N1
    } else {
        super::SCALED
    }
}

/// `.pzo` on a scalar cvt: f16/bf16 from f32 only, never with `.sat`, and not `.ftz`
/// with f16 (ptxas 13.5 takes `cvt.rn.ftz.pzo.bf16.f32`).
fn check_scalar_pzo(c: &Cvt) -> Result<(), Illegal> {
    if !c.pzo {
        return Ok(());
    }
    if !packed::scalar_pzo(c.dtype, c.atype) {
        return no(
            LegalityRule::PzoAbsent,
            format!("`.pzo` on a scalar cvt exists only for f16/bf16 from f32, not {}", arrow(c)),
        );
    }
    if c.sat || (c.ftz && c.dtype == Type::F16) {
        let m = if c.sat { "sat" } else { "ftz" };
        return no(LegalityRule::PzoAbsent, format!("`.pzo` cannot be combined with `.{m}` on {}", arrow(c)));
    }
    Ok(())
}

/// `.pzo` and `.scaled::n1::ue8m0` exist only on sm_107a/sm_107f with PTX ISA 9.4 (ptxas 13.5).
fn check_ptx94_gate(c: &Cvt, t: Option<Target>, v: Option<PtxVersion>) -> Result<(), Illegal> {
    if (c.pzo || c.scaled_n1) && !packed::gate_ok(packed::PTX94_GATES, t, v) {
        let m = if c.pzo { "pzo" } else { super::SCALED_N1 };
        return no(
            LegalityRule::Ptx94Gate,
            format!("`.{m}` on {c} needs {}", packed::describe_gates(packed::PTX94_GATES)),
        );
    }
    Ok(())
}

fn check_target_version(target: Option<Target>, version: Option<PtxVersion>) -> Result<(), Illegal> {
    if let (Some(t), Some(v)) = (target, version) {
        if let Some(min) = t.min_version() {
            if v < min {
                return no(LegalityRule::TargetVersion, format!("target {t} needs PTX ISA {min} or later, not {v}"));
            }
        }
    }
    Ok(())
}

/// tf32 and packed forms: the row of `packed::FORMS` they match decides.
fn check_packed(c: &Cvt, regs: Regs, t: Option<Target>, v: Option<PtxVersion>) -> Result<(), Illegal> {
    if c.ftz || c.sat {
        let m = if c.ftz { "ftz" } else { "sat" };
        return no(
            LegalityRule::PackedModifier,
            format!("`.{m}` does not exist for {} (use .satfinite/.relu)", arrow(c)),
        );
    }
    let forms: Vec<&packed::Form> = packed::forms_for(c).collect();
    if forms.is_empty() {
        return no(LegalityRule::PackedTypes, format!("no cvt form converts {} to {}", c.atype.name(), c.dtype.name()));
    }
    let Some(form) = forms.iter().find(|f| c.rounding.is_some_and(|r| f.roundings.contains(&r))) else {
        let allowed: Vec<String> =
            forms.iter().flat_map(|f| f.roundings.iter().map(|r| format!(".{}", r.name()))).collect();
        return no(LegalityRule::PackedRounding, format!("{} takes {}", arrow(c), allowed.join(" or ")));
    };
    match (form.satfinite, c.satfinite) {
        (packed::Req::Required, false) => {
            return no(LegalityRule::SatfiniteRequired, format!("{c} needs `.satfinite`"))
        }
        (packed::Req::Absent, true) => {
            return no(LegalityRule::SatfiniteAbsent, format!("`.satfinite` does not exist for {}", arrow(c)))
        }
        _ => {}
    }
    if c.relu && !form.relu {
        return no(LegalityRule::ReluAbsent, format!("`.relu` does not exist for {c}"));
    }
    if c.scaled && form.scale == packed::Req::Absent {
        return no(LegalityRule::ScaleAbsent, format!("`.{}` does not exist for {}", super::SCALED, arrow(c)));
    }
    if c.scaled_n1 && form.scale_n1 == packed::Req::Absent {
        return no(LegalityRule::ScaleAbsent, format!("`.{}` does not exist for {c}", super::SCALED_N1));
    }
    if c.pzo && !form.pzo {
        return no(LegalityRule::PzoAbsent, format!("`.pzo` does not exist for {c}"));
    }
    if !packed::width_ok(c, None, regs.dst) || !packed::width_ok(c, Some(0), regs.src) {
        let shape = super::shape(c);
        return no(
            LegalityRule::RegisterPackedExact,
            format!("{c} needs a {}-bit destination and {} source registers", c.dtype.bits(), shape.describe()),
        );
    }
    if !packed::gate_ok(form.gates, t, v) {
        return no(LegalityRule::PackedGate, format!("{c} needs {}", packed::describe_gates(form.gates)));
    }
    if let Some(g) = form.satfinite_gate.filter(|_| c.satfinite) {
        if !packed::gate_ok(&[g], t, v) {
            return no(LegalityRule::PackedGate, format!("`.satfinite` on {c} needs {}", packed::describe_gates(&[g])));
        }
    }
    check_ptx94_gate(c, t, v)
}

/// `cvt.pack.sat` (PTX ISA "cvt.pack", checked against ptxas 13.5): s32
/// sources, `.sat` required, no other modifier, 32-bit registers. ptxas also
/// takes 64-bit registers for every operand; what it does with their upper
/// bits is unknown, so the oracle keeps to 32 (tests/data/ptxas-legality-pack.md).
fn check_pack(c: &Cvt, regs: Regs, t: Option<Target>, v: Option<PtxVersion>) -> Result<(), Illegal> {
    if c.atype != Type::S32 || !c.dtype.is_pack() {
        return no(LegalityRule::PackTypes, format!("cvt.pack converts s32 sources to a pack type, not {}", arrow(c)));
    }
    if !c.sat {
        return no(LegalityRule::PackSatRequired, format!("{c} needs `.sat` (cvt.pack always saturates)"));
    }
    if c.rounding.is_some() || c.ftz || c.relu || c.satfinite || c.pzo {
        return no(LegalityRule::PackModifier, format!("cvt.pack takes only `.sat`, not the modifiers of {c}"));
    }
    if regs.dst != 32 || regs.src != 32 {
        return no(
            LegalityRule::RegisterPackExact,
            format!("{c} needs 32-bit registers for d and {}", super::shape(c).describe()),
        );
    }
    if !packed::gate_ok(PACK_GATES, t, v) {
        return no(LegalityRule::PackedGate, format!("{c} needs {}", packed::describe_gates(PACK_GATES)));
    }
    Ok(())
}

/// cvt.pack: PTX ISA 6.5, sm_72 (ptxas 13.5, which knows nothing older than
/// sm_75, agrees on 6.5 for every pack type).
const PACK_GATES: &[(packed::Gate, (u32, u32))] = &[(packed::Gate::AtLeast(72), (6, 5))];

fn arrow(c: &Cvt) -> String {
    format!("{}→{}", c.atype.name(), c.dtype.name())
}

fn rounding_rule(c: &Cvt) -> Result<(), Illegal> {
    let r = c.rounding;
    let is = |f: fn(Rounding) -> bool| r.is_some_and(f);
    let frnd = |x: Rounding| Rounding::FLOAT4.contains(&x);
    let bf16 = |t: Type| t == Type::Bf16;
    if let Some(x @ (Rounding::Rna | Rounding::Rs)) = r {
        return no(
            LegalityRule::RoundingPackedOnly,
            format!("`.{}` exists only for the tf32 and packed forms, not {}", x.name(), arrow(c)),
        );
    }
    match c.family() {
        Family::IntToInt if r.is_some() => no(
            LegalityRule::RoundingIntToInt,
            format!("{} is exact or a chop: a rounding modifier is not allowed", arrow(c)),
        ),
        Family::IntToFloat if !is(frnd) => no(
            LegalityRule::RoundingRequiredFrnd,
            format!("{} needs a float rounding modifier (.rn .rz .rm .rp), even when exact", arrow(c)),
        ),
        Family::FloatToInt if !is(Rounding::is_integer) => no(
            LegalityRule::RoundingRequiredIrnd,
            format!("{} needs an integer rounding modifier (.rni .rzi .rmi .rpi)", arrow(c)),
        ),
        Family::SameFloat if is(frnd) => no(
            LegalityRule::RoundingSameSize,
            format!("{}: only integer rounding (.rni …) rounds to an integral value in the same format", arrow(c)),
        ),
        // ptxas tolerates .rn/.rz/.rm/.rp on widening from bf16 (docs/semantics.md §3); the result is exact.
        Family::Widen if r.is_some() && !(bf16(c.atype) && is(frnd)) => {
            no(LegalityRule::RoundingWidening, format!("{} is exact: a rounding modifier is not allowed", arrow(c)))
        }
        // f16↔bf16 also assemble without a rounding modifier (docs/semantics.md §3).
        Family::Narrow if !is(frnd) && (r.is_some() || c.atype.bits() != 16 || c.dtype.bits() != 16) => no(
            LegalityRule::RoundingRequiredFrnd,
            format!("{} can lose precision: it needs .rn, .rz, .rm or .rp", arrow(c)),
        ),
        _ => Ok(()),
    }
}

fn sat_rule(c: &Cvt) -> Result<(), Illegal> {
    if !c.sat {
        return Ok(());
    }
    if c.atype == Type::Bf16 || c.dtype == Type::Bf16 {
        return no(LegalityRule::SatBf16, format!("`.sat` is not allowed with bf16 ({})", arrow(c)));
    }
    if c.family() == Family::IntToInt {
        let (smin, smax) = c.atype.format().int_range().unwrap();
        let (dmin, dmax) = c.dtype.format().int_range().unwrap();
        if dmin <= smin && smax <= dmax {
            return no(
                LegalityRule::SatSuperset,
                format!("`.sat` is not allowed: {} can hold every {} value", c.dtype.name(), c.atype.name()),
            );
        }
    }
    Ok(())
}

fn check_form(c: &Cvt) -> Result<(), Illegal> {
    rounding_rule(c)?;
    if c.ftz && c.dtype != Type::F32 && c.atype != Type::F32 {
        return no(
            LegalityRule::FtzNeedsF32,
            format!("`.ftz` needs f32 as source or destination type, not {}", arrow(c)),
        );
    }
    sat_rule(c)?;
    let f16_from_f32 = c.atype == Type::F32 && matches!(c.dtype, Type::F16 | Type::Bf16);
    if (c.relu || c.satfinite) && !f16_from_f32 {
        let m = if c.relu { "relu" } else { "satfinite" };
        return no(
            LegalityRule::ReluSatfiniteTypes,
            format!("`.{m}` on a scalar cvt exists only for f16/bf16 from f32, not {}", arrow(c)),
        );
    }
    if (c.relu || c.satfinite) && !matches!(c.rounding, Some(Rounding::Rn | Rounding::Rz)) {
        return no(LegalityRule::ReluSatfiniteRounding, "`.relu`/`.satfinite` forms take .rn or .rz");
    }
    if (c.relu || c.satfinite) && (c.ftz || c.sat) {
        let m = if c.ftz { "ftz" } else { "sat" };
        return no(
            LegalityRule::ReluSatfiniteCombination,
            format!("`.{m}` cannot be combined with `.relu`/`.satfinite`"),
        );
    }
    Ok(())
}

/// Register widths (docs/semantics.md §4): wider registers are allowed, except when bf16
/// is involved: then ptxas wants both registers exactly as wide as their types.
pub fn check_regs(c: &Cvt, regs: Regs) -> Result<(), Illegal> {
    let bf16 = c.dtype == Type::Bf16 || c.atype == Type::Bf16;
    for (role, t, w) in [("destination", c.dtype, regs.dst), ("source", c.atype, regs.src)] {
        if !REG_WIDTHS.contains(&w) {
            return no(
                LegalityRule::RegisterWidth,
                format!("{role} register of {w} bits: PTX registers have 8, 16, 32 or 64 bits"),
            );
        }
        if w < t.bits() {
            return no(LegalityRule::RegisterNarrow, format!("{role} register of {w} bits cannot hold a {}", t.name()));
        }
        if bf16 && w != t.bits() {
            return no(
                LegalityRule::RegisterBf16Exact,
                format!("with bf16 ({}), the {role} register must be exactly {} bits, not {w}", arrow(c), t.bits()),
            );
        }
    }
    Ok(())
}

fn check_gates(c: &Cvt, target: Option<Target>, version: Option<PtxVersion>) -> Result<(), Illegal> {
    let (need_sm, need_ptx, what) = gate(c);
    if let Some(t) = target {
        if !t.at_least(need_sm) {
            return no(LegalityRule::TargetGate, format!("{c} needs sm_{need_sm} or later ({what}), not {t}"));
        }
    }
    if let Some(v) = version {
        if v < need_ptx {
            return no(LegalityRule::VersionGate, format!("{c} needs PTX ISA {need_ptx} or later ({what}), not {v}"));
        }
    }
    Ok(())
}

/// The (target, PTX version) a legal form first appeared with, and why (docs/semantics.md §3).
fn gate(c: &Cvt) -> (u32, PtxVersion, &'static str) {
    let v = PtxVersion::new;
    let bf16 = c.atype == Type::Bf16 || c.dtype == Type::Bf16;
    let mut g = (20, v(1, 0), "baseline");
    let mut raise = |sm: u32, ptx: PtxVersion, why: &'static str| {
        if sm > g.0 || ptx > g.1 {
            g = (sm.max(g.0), ptx.max(g.1), why);
        }
    };
    if c.relu {
        raise(80, v(7, 0), ".relu on f16/bf16 from f32");
    }
    if c.satfinite {
        // ptxas 13.5 takes cvt.satfinite.f16.f32 on sm_75 too (tests/data/ptxas-legality.md).
        let sm = if c.dtype == Type::F16 { 75 } else { 80 };
        raise(sm, v(8, 1), ".satfinite on f16/bf16 from f32");
    }
    if bf16 {
        match (c.dtype, c.atype) {
            (Type::Bf16, Type::F32) => raise(80, v(7, 0), "bf16 from f32"),
            (Type::F32, Type::Bf16) if !c.ftz => raise(80, v(7, 1), "f32 from bf16"),
            _ => raise(90, v(7, 8), "bf16 with types other than f32"),
        }
    }
    g
}
