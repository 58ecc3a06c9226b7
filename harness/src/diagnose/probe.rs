//! What a hypothesis computes with: the mismatched case, and the oracle's
//! evaluation of rewritten instructions, other operands and other decision
//! sets on it. Nothing here changes what is expected.

use ptx_cvt::accept::width_mask;
use ptx_cvt::decide::Decisions;
use ptx_cvt::eval::evaluate_accept_with;
use ptx_cvt::exact::{decode, Value};
use ptx_cvt::instr::{self, Family};
use ptx_cvt::{AcceptSet, Cvt, Operand, Profile, Regs, Rounding, Type};

use super::catalogue::{as_float, as_integer};

/// One mismatched case as the hypotheses see it.
pub struct Probe<'a> {
    pub c: &'a Cvt,
    pub ops: &'a [Operand],
    pub dst_width: u32,
    pub profile: Profile,
    /// The oracle's answer (what the implementation should have given).
    pub expected: &'a AcceptSet,
}

impl Probe<'_> {
    /// The oracle's answer for another instruction on the same operands
    /// (`None` when no legal spelling of it exists for these registers).
    pub fn eval(&self, c: &Cvt) -> Option<AcceptSet> {
        self.eval_ops(c, self.ops, self.dst_width)
    }

    /// The oracle's answer for `c` (made legal, see [`legalize`]) on `ops`
    /// into a `dst_width`-bit register.
    pub fn eval_ops(&self, c: &Cvt, ops: &[Operand], dst_width: u32) -> Option<AcceptSet> {
        self.eval_under(c, ops, dst_width, &ptx_cvt::decide::Ptx)
    }

    /// [`Probe::eval_ops`] under another decision set.
    pub fn eval_under(&self, c: &Cvt, ops: &[Operand], dst_width: u32, d: &dyn Decisions) -> Option<AcceptSet> {
        let src = ops.first().map_or(c.atype.bits(), |o| o.width);
        let c = legalize(c, src, dst_width)?;
        evaluate_accept_with(&c, ops, dst_width, self.profile, d).ok()
    }

    /// The policy layer's answer for `c` on the same operands, legal or not:
    /// the form with a modifier dropped that the ISA requires (`.satfinite`
    /// of the fp8 forms) is what an implementation that ignores it computes.
    pub fn eval_any(&self, c: &Cvt) -> Option<AcceptSet> {
        super::eval_any(c, self.ops, self.dst_width, self.profile)
    }

    /// The answer of the same instruction under another decision set.
    pub fn with(&self, d: &dyn Decisions) -> Option<AcceptSet> {
        evaluate_accept_with(self.c, self.ops, self.dst_width, self.profile, d).ok()
    }

    /// The answer of the same instruction under another evidence profile.
    pub fn under(&self, profile: Profile) -> Option<AcceptSet> {
        evaluate_accept_with(self.c, self.ops, self.dst_width, profile, &ptx_cvt::decide::Ptx).ok()
    }

    pub fn family(&self) -> Family {
        self.c.family()
    }

    pub fn scalar(&self) -> bool {
        self.c.is_scalar() && !self.c.dtype.is_packed() && !self.c.atype.is_packed() && self.ops.len() == 1
    }

    /// The decoded scalar source (`None` for packed forms).
    pub fn source(&self) -> Option<Value> {
        self.scalar().then(|| decode(self.c.atype.format(), self.ops[0].bits & width_mask(self.c.atype.bits())))
    }

    /// Whether the source (some source lane, for packed forms) is a NaN.
    pub fn source_is_nan(&self) -> bool {
        let lanes = super::Lanes::of(self.c);
        (0..lanes.n).any(|i| lanes.source_is_nan(self.ops, i) == Some(true))
    }

    /// Whether the rounding in force rounds (a float result narrower than
    /// the source's precision may need it, or an integral result).
    pub fn rounds(&self) -> bool {
        match self.family() {
            Family::IntToInt | Family::Widen => false,
            Family::SameFloat => self.c.rounding.is_some_and(Rounding::is_integer),
            _ => true,
        }
    }

    /// The expected single value, if the set has one.
    pub fn expected_bits(&self) -> Option<u64> {
        self.expected.single()
    }
}

/// `c` itself if it is legal for these registers, else the nearest legal
/// spelling: integer rounding for float rounding and back, the default
/// rounding, and then without `.ftz`, `.sat`, `.relu`, `.satfinite`.
pub fn legalize(c: &Cvt, src_width: u32, dst_width: u32) -> Option<Cvt> {
    let regs = Regs { dst: dst_width, src: src_width };
    let ok = |x: &Cvt| instr::check(x, regs, None, None).is_ok();
    if ok(c) {
        return Some(*c);
    }
    let roundings: Vec<Option<Rounding>> = {
        let r = c.rounding;
        let swapped = r.map(|r| if r.is_integer() { as_float(r) } else { as_integer(r).unwrap_or(r) });
        vec![r, swapped, None, Some(Rounding::Rn), Some(Rounding::Rni)]
    };
    let strips: [fn(&mut Cvt); 4] = [
        |_| {},
        |x| x.ftz = false,
        |x| x.sat = false,
        |x| {
            x.ftz = false;
            x.sat = false;
            x.relu = false;
            x.satfinite = false;
        },
    ];
    for strip in strips {
        for r in &roundings {
            let mut x = Cvt { rounding: *r, ..*c };
            strip(&mut x);
            if ok(&x) {
                return Some(x);
            }
        }
    }
    None
}

/// The scalar types of a width (8, 16, 32, 64 bits).
pub fn types_of_width(bits: u32) -> impl Iterator<Item = Type> {
    Type::all().filter(move |t| t.is_scalar() && t.bits() == bits && !t.is_packed())
}
