//! Shared code of the fuzz targets (`fuzz_targets/*.rs`): how the `cvt`
//! target turns fuzzer bytes into a case, the implementation under test, and
//! the comparison with the exact engine. See README.md in this directory.

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use ptx_cvt::accept::width_mask;
use ptx_cvt::eval::fmt_hex;
use ptx_cvt::fast;
use ptx_cvt::gen::{all_spellings, natural_regs};
use ptx_cvt::instr::{self, REG_WIDTHS};
use ptx_cvt::{evaluate_accept, format_case, AcceptSet, Cvt, Operand, Profile, PtxVersion, Regs, Target};
use ptx_cvt_harness::shared_lib;
use ptx_cvt_harness::{Answer, FastEngine, Implementation};

pub mod parse;

/// The raw fuzzer input of the `cvt` target; [`Raw::decode`] makes it a case.
#[derive(Arbitrary, Clone)]
pub struct Raw {
    /// Which instruction: an index into the legal spellings (or, in the
    /// "anything" register mode, into every spelling), taken modulo the length.
    pub instr: u16,
    /// Register mode, low 4 bits: 0–7 natural registers, 8–13 wider
    /// registers where the form allows them, 14–15 anything (illegal
    /// spellings, register widths and operand counts included; both engines
    /// must then give the same answer or the same error). High 4 bits, in
    /// the anything mode: 12–13 one operand too few, 14–15 one too many.
    pub regs: u8,
    /// Destination / source register choice (index into 8, 16, 32, 64; in
    /// the anything mode, values 200 and up are used as the width itself).
    pub dst: u8,
    pub src: u8,
    /// Source register bits, masked to each register's width.
    pub operands: [u64; 6],
    /// A target and PTX ISA version (indices into [`targets`] and
    /// [`versions`]) whose legality rules are checked for consistency.
    /// (Last: `arbitrary` reads a trailing array differently.)
    pub target: Option<(u8, u8)>,
}

/// The raw fields and the case they decode to, with the exact engine's
/// answer (what `cargo fuzz fmt cvt` shows).
impl std::fmt::Debug for Raw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let case = self.decode();
        let ops: Vec<String> = self.operands.iter().map(|o| format!("{o:#x}")).collect();
        f.debug_struct("Raw")
            .field("instr", &self.instr)
            .field("regs", &self.regs)
            .field("dst", &self.dst)
            .field("src", &self.src)
            .field("operands", &format_args!("[{}]", ops.join(", ")))
            .field("target", &self.target)
            .finish()?;
        let expected = evaluate_accept(&case.c, &case.operands, case.dst_width, Profile::Sm90).ok();
        write!(f, "\ndecodes to: {}", case.line(expected.as_ref()))?;
        if expected.is_none() {
            f.write_str("  (rejected by the exact engine)")?;
        }
        if let Some((t, v)) = case.target {
            write!(f, "  (target {t}, PTX ISA {v})")?;
        }
        Ok(())
    }
}

/// A decoded case: the instruction, its operands, the destination width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzCase {
    pub c: Cvt,
    pub operands: Vec<Operand>,
    pub dst_width: u32,
    pub target: Option<(Target, PtxVersion)>,
}

/// Every spelling (legal or not), and those legal with natural registers
/// on some target (`instr::check` without target or version).
fn spellings() -> &'static (Vec<Cvt>, Vec<Cvt>) {
    static S: OnceLock<(Vec<Cvt>, Vec<Cvt>)> = OnceLock::new();
    S.get_or_init(|| {
        let all = all_spellings();
        let legal = all.iter().copied().filter(|c| instr::check(c, natural_regs(c), None, None).is_ok()).collect();
        (all, legal)
    })
}

/// The targets the oracle knows (every one, with `a`/`f` variants).
pub fn targets() -> &'static [Target] {
    static T: OnceLock<Vec<Target>> = OnceLock::new();
    T.get_or_init(|| {
        let sms = [50, 52, 53, 60, 61, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 103, 107, 110, 120, 121];
        let mut v = Vec::new();
        for sm in sms {
            for suffix in ["", "a", "f"] {
                if let Ok(t) = format!("sm_{sm}{suffix}").parse::<Target>() {
                    v.push(t);
                }
            }
        }
        v
    })
}

/// PTX ISA versions the legality rules distinguish (and a few around them).
pub fn versions() -> &'static [PtxVersion] {
    const V: [(u32, u32); 24] = [
        (4, 0),
        (6, 0),
        (6, 3),
        (7, 0),
        (7, 1),
        (7, 4),
        (7, 7),
        (7, 8),
        (8, 0),
        (8, 1),
        (8, 3),
        (8, 5),
        (8, 6),
        (8, 7),
        (8, 8),
        (9, 0),
        (9, 1),
        (9, 2),
        (9, 3),
        (9, 4),
        (9, 5),
        (9, 5),
        (9, 5),
        (9, 5),
    ];
    static P: OnceLock<Vec<PtxVersion>> = OnceLock::new();
    P.get_or_init(|| V.iter().map(|&(a, b)| PtxVersion::new(a, b)).collect())
}

fn pick<T: Copy>(v: &[T], i: usize) -> T {
    v[i % v.len()]
}

impl Raw {
    /// The case these bytes stand for.
    pub fn decode(&self) -> FuzzCase {
        let (all, legal) = spellings();
        let mode = self.regs & 0xf;
        let anything = mode >= 14;
        let c = if anything { pick(all, self.instr as usize) } else { pick(legal, self.instr as usize) };
        let shape = instr::shape(&c);
        let natural = natural_regs(&c);
        let reg = |b: u8| if anything && b >= 200 { b as u32 } else { REG_WIDTHS[(b & 3) as usize] };
        let regs = match mode {
            0..=7 => natural,
            8..=13 => {
                let (d, s) = (reg(self.dst), reg(self.src));
                // The widest legal combination of the choice with natural registers.
                [Regs { dst: d, src: s }, Regs { dst: d, src: natural.src }, Regs { dst: natural.dst, src: s }]
                    .into_iter()
                    .find(|r| instr::check(&c, *r, None, None).is_ok())
                    .unwrap_or(natural)
            }
            _ => Regs { dst: reg(self.dst), src: reg(self.src) },
        };
        // Value operands take the source register; `.rs` random bits stay 32-bit, `scale` 16-bit.
        let mut widths: Vec<u32> = shape
            .names
            .iter()
            .zip(&shape.srcs)
            .map(|(n, w)| if matches!(*n, "rbits" | "scale") { *w } else { regs.src })
            .collect();
        if anything {
            match self.regs >> 4 {
                12 | 13 => {
                    widths.pop();
                }
                14 | 15 => widths.push(regs.src),
                _ => {}
            }
        }
        let operands = widths
            .iter()
            .zip(self.operands)
            .map(|(&w, bits)| Operand { bits: bits & width_mask(w.min(64)), width: w })
            .collect();
        let target = self.target.map(|(t, v)| (pick(targets(), t as usize), pick(versions(), v as usize)));
        FuzzCase { c, operands, dst_width: regs.dst, target }
    }
}

impl Raw {
    /// The bytes libFuzzer would hand the `cvt` target for this input (the
    /// layout `arbitrary` reads: fields in order, integers little-endian,
    /// `Option` as a flag byte). Used to write seed files.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = self.instr.to_le_bytes().to_vec();
        b.extend([self.regs, self.dst, self.src]);
        for o in self.operands {
            b.extend(o.to_le_bytes());
        }
        match self.target {
            None => b.push(0),
            Some((t, v)) => b.extend([1, t, v]),
        }
        b
    }

    /// A raw input that decodes to `c` on these operands and destination
    /// width at natural or wider registers, if there is one.
    pub fn encode(c: &Cvt, operands: &[Operand], dst_width: u32, target: Option<(Target, PtxVersion)>) -> Option<Raw> {
        let (_, legal) = spellings();
        let instr = legal.iter().position(|x| x == c)? as u16;
        let idx = |w: u32| REG_WIDTHS.iter().position(|&r| r == w).map(|i| i as u8);
        let target = match target {
            None => None,
            Some((t, v)) => {
                Some((targets().iter().position(|&x| x == t)? as u8, versions().iter().position(|&x| x == v)? as u8))
            }
        };
        let mut ops = [0u64; 6];
        for (o, x) in ops.iter_mut().zip(operands) {
            *o = x.bits;
        }
        let src = operands.first().map_or(c.atype.bits(), |o| o.width);
        let want = FuzzCase { c: *c, operands: operands.to_vec(), dst_width, target: None };
        [0u8, 8].into_iter().find_map(|regs| {
            let raw = Raw { instr, regs, dst: idx(dst_width)?, src: idx(src)?, target, operands: ops };
            let got = raw.decode();
            (FuzzCase { target: None, ..got } == want).then_some(raw)
        })
    }
}

impl FuzzCase {
    /// The case line with `result`, or with `?` digits asking for the
    /// destination width when there is none (an error case).
    pub fn line(&self, result: Option<&AcceptSet>) -> String {
        match result {
            Some(r) => format_case(&self.c, &self.operands, r),
            None => {
                let mut s = self.c.to_string();
                for o in &self.operands {
                    s.push(' ');
                    s.push_str(&fmt_hex(o.bits, o.width));
                }
                s.push_str(" => ");
                s.push_str(&"?".repeat(self.dst_width.div_ceil(4).max(1) as usize));
                s
            }
        }
    }

    /// Registers as `instr::check` sees them.
    fn regs(&self) -> Regs {
        Regs { dst: self.dst_width, src: self.operands.first().map_or(self.c.atype.bits(), |o| o.width) }
    }
}

/// The implementation under test.
pub enum Subject {
    /// The fast engine (the default): its acceptance set must equal the
    /// exact engine's, its errors too; its `Implementation` adapter must
    /// answer a member of the set, or decline only set results.
    Fast(FastEngine),
    /// Any other implementation (e.g. a shared library loaded from
    /// `PTX_CVT_FUZZ_LIB`): asked only legal cases; its answer must be in
    /// the exact engine's acceptance set. It may decline a case: not a
    /// failure, unless `strict`.
    Other { imp: Box<dyn Implementation + Send>, strict: bool },
}

impl Subject {
    /// From the environment: `PTX_CVT_FUZZ_LIB=/path/libimpl.so` (symbol
    /// `PTX_CVT_FUZZ_SYMBOL`, default `cvt_impl`; `PTX_CVT_FUZZ_STRICT=1`
    /// makes declined cases failures), else the fast engine.
    pub fn from_env() -> Subject {
        match std::env::var_os("PTX_CVT_FUZZ_LIB") {
            Some(path) if !path.is_empty() => {
                let symbol = std::env::var("PTX_CVT_FUZZ_SYMBOL").unwrap_or_else(|_| shared_lib::DEFAULT_SYMBOL.into());
                let lib = shared_lib::SharedLib::open(std::path::Path::new(&path), &symbol)
                    .unwrap_or_else(|e| panic!("PTX_CVT_FUZZ_LIB: {e}"));
                let strict = std::env::var("PTX_CVT_FUZZ_STRICT").is_ok_and(|v| v == "1");
                eprintln!("ptx-cvt fuzz: implementation under test: {}", lib.name());
                Subject::Other { imp: Box::new(lib), strict }
            }
            _ => Subject::Fast(FastEngine),
        }
    }

    pub fn name(&self) -> String {
        match self {
            Subject::Fast(f) => f.name(),
            Subject::Other { imp, .. } => imp.name(),
        }
    }

    /// Compare the subject with the exact engine on one case; `Err` describes a mismatch.
    pub fn check(&mut self, case: &FuzzCase) -> Result<(), String> {
        check_legality(case)?;
        let FuzzCase { c, operands: ops, dst_width: w, .. } = case;
        // The set without the explanation: the report below rebuilds it.
        let exact = evaluate_accept(c, ops, *w, Profile::Sm90);
        let name = self.name();
        let fail = |what: String| Err(format!("{name}: {what}"));
        match self {
            Subject::Fast(engine) => {
                let got = fast::evaluate(c, ops, *w);
                match (&exact, &got) {
                    (Ok(e), Ok(f)) => {
                        let fa = f.to_accept(*w);
                        if fa != *e {
                            return fail(format!("fast::evaluate gives {fa} ({f:?}), the exact engine {}", e));
                        }
                    }
                    (Err(a), Err(b)) if a == b => {}
                    (Err(a), Err(b)) => {
                        return fail(format!("the engines reject differently:\n  exact: {a}\n  fast:  {b}"))
                    }
                    (Ok(e), Err(b)) => {
                        return fail(format!("fast::evaluate rejects a case the exact engine answers {}: {b}", e))
                    }
                    (Err(a), Ok(f)) => {
                        return fail(format!("fast::evaluate answers {f} where the exact engine rejects: {a}"))
                    }
                }
                // The batch path (a specialised kernel for the common forms) at natural widths.
                if let (Ok(e), [op]) = (&exact, ops.as_slice()) {
                    if op.width == c.atype.bits() && *w == c.dtype.bits() {
                        let mut out = [0u64];
                        if fast::evaluate_batch(c, &[op.bits], &mut out).is_ok() && !e.contains(out[0]) {
                            return fail(format!("fast::evaluate_batch gives {}, not in {}", fmt_hex(out[0], *w), e));
                        }
                    }
                }
                // The same through the Implementation trait.
                let answer = match engine.eval(c, ops, *w) {
                    Ok(a) => a,
                    Err(m) => return fail(format!("FastEngine::eval fails: {m}")),
                };
                match (&exact, answer) {
                    (Ok(e), Answer::Bits(v)) if e.contains(v) && e.single().is_none_or(|s| s == v) => {}
                    (Ok(e), Answer::Bits(v)) => {
                        return fail(format!("FastEngine::eval gives {}, not {}", fmt_hex(v, *w), e))
                    }
                    (Ok(e), Answer::Declined(_)) if e.single().is_none() => {}
                    (Ok(e), Answer::Declined(m)) => {
                        return fail(format!("FastEngine::eval declines the single-valued result {}: {m}", e))
                    }
                    (Err(_), Answer::Declined(_)) => {}
                    (Err(a), Answer::Bits(v)) => {
                        return fail(format!(
                            "FastEngine::eval answers {} where the exact engine rejects: {a}",
                            fmt_hex(v, *w)
                        ))
                    }
                }
                Ok(())
            }
            Subject::Other { imp, strict } => {
                let Ok(e) = &exact else { return Ok(()) };
                match imp.eval(c, ops, *w) {
                    Ok(Answer::Bits(v)) if e.contains(v) => Ok(()),
                    Ok(Answer::Bits(v)) => fail(format!("answers {}, not in {}", fmt_hex(v, *w), e)),
                    Ok(Answer::Declined(m)) if *strict => fail(format!("declines the case: {m}")),
                    Ok(Answer::Declined(_)) => Ok(()),
                    Err(m) => fail(format!("adapter error: {m}")),
                }
            }
        }
    }
}

/// Legality with a target and version must imply legality with either
/// alone and with neither (the rules without a target are those that hold
/// on every target).
fn check_legality(case: &FuzzCase) -> Result<(), String> {
    let Some((t, v)) = case.target else { return Ok(()) };
    let regs = case.regs();
    let c = &case.c;
    if instr::check(c, regs, Some(t), Some(v)).is_err() {
        return Ok(());
    }
    for (tt, vv) in [(Some(t), None), (None, Some(v)), (None, None)] {
        if let Err(e) = instr::check(c, regs, tt, vv) {
            return Err(format!(
                "legality: {c} (registers {}/{}) is legal on {t} at PTX {v} but not with target {tt:?} and version {vv:?}: {e}",
                regs.dst, regs.src
            ));
        }
    }
    Ok(())
}

/// Panic with a report (the case line first) when `check` found a mismatch.
pub fn report(case: &FuzzCase, msg: &str) -> ! {
    let expected = evaluate_accept(&case.c, &case.operands, case.dst_width, Profile::Sm90).ok();
    let target = case.target.map_or(String::new(), |(t, v)| format!("\n  target: {t}, PTX ISA {v}"));
    let answer = if expected.is_some() { "the exact engine's answer (sm90)" } else { "the exact engine rejects it" };
    panic!("ptx-cvt fuzz mismatch: {msg}{target}\n{}   # {answer}", case.line(expected.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbitrary::{Arbitrary, Unstructured};

    #[test]
    fn to_bytes_is_what_arbitrary_reads() {
        let raws = [
            Raw { instr: 0x1234, regs: 9, dst: 2, src: 3, target: Some((5, 7)), operands: [1, 2, 3, 4, 5, u64::MAX] },
            Raw { instr: 7, regs: 0, dst: 0, src: 0, target: None, operands: [0x3f80_0000, 0, 0, 0, 0, 9] },
        ];
        for raw in raws {
            let bytes = raw.to_bytes();
            let back = Raw::arbitrary_take_rest(Unstructured::new(&bytes)).unwrap();
            assert_eq!(back.to_bytes(), bytes);
            assert_eq!(format!("{back:?}"), format!("{raw:?}"));
        }
    }

    #[test]
    fn encode_decodes_back() {
        let c = instr::parse("cvt.rn.f16.f32").unwrap();
        let ops = [Operand { bits: 0x3f80_0000, width: 32 }];
        let raw = Raw::encode(&c, &ops, 16, None).unwrap();
        assert_eq!(raw.decode(), FuzzCase { c, operands: ops.to_vec(), dst_width: 16, target: None });
        let wide = [Operand { bits: 0x3f80_0000, width: 64 }];
        assert_eq!(Raw::encode(&c, &wide, 32, None).unwrap().decode().operands, wide);
        let mut fast = Subject::Fast(FastEngine);
        fast.check(&raw.decode()).unwrap();
    }
}
