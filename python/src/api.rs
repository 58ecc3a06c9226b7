//! The scalar API: evaluate, explain, accepts, check, case lines, legality.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use ptx_cvt::exact::Value;
use ptx_cvt::format::Format;
use ptx_cvt::{evaluate as eval_explained, evaluate_accept, gen, instr, parse_case as parse_line, AcceptSet, Regs};

use crate::args::{self, eval_error, value_error, Legality};
use crate::objects::{result_object, Accept, Case, Explanation, Mismatch, Step};
use ptx_cvt_harness::mismatch::{comment_class, Mismatch as Report};
use ptx_cvt_harness::report::describe_set;

/// What the destination register holds after ``instruction`` on the operands:
/// an int, or an Accept when the answer is a set (NaN bits the profile leaves
/// open, ``?`` nibbles).
///
/// Operands are ints (registers as wide as the operand's type) or hex
/// strings whose digit count gives the register width (``"139231c2"`` is a
/// 32-bit register). ``dst_width`` asks for a wider destination register;
/// ``target`` (e.g. ``"sm_90"``) and ``ptx_version`` (e.g. ``"9.5"``) add
/// the legality check for that target.
///
/// >>> evaluate("cvt.rn.f16.f32", 0x3f800000)
/// 15360
#[pyfunction]
#[pyo3(signature = (instruction, *operands, dst_width=None, profile="sm90", target=None, ptx_version=None))]
pub fn evaluate(
    py: Python<'_>,
    instruction: &str,
    operands: &Bound<'_, PyTuple>,
    dst_width: Option<u32>,
    profile: &str,
    target: Option<&str>,
    ptx_version: Option<&str>,
) -> PyResult<Py<PyAny>> {
    let (c, ops, width, _) = legal_call(instruction, operands, dst_width, target, ptx_version)?;
    let profile = args::profile(profile)?;
    let set = evaluate_accept(&c, &ops, width, profile).map_err(eval_error)?;
    result_object(py, set)
}

/// The instruction, operands and destination width of an `evaluate`/`explain`
/// call, checked for legality (on the target, if one is given).
fn legal_call(
    instruction: &str,
    operands: &Bound<'_, PyTuple>,
    dst_width: Option<u32>,
    target: Option<&str>,
    ptx_version: Option<&str>,
) -> PyResult<(ptx_cvt::Cvt, Vec<ptx_cvt::Operand>, u32, Legality)> {
    let c = args::instruction(instruction)?;
    let ops = args::operands(&c, &operands.iter().collect::<Vec<_>>())?;
    let width = args::dst_width(&c, dst_width)?;
    let legal = Legality::parse(target, ptx_version)?;
    legal.check(&c, &ops, width)?;
    Ok((c, ops, width, legal))
}

/// The rules that decide a conversion, as ``ptx-cvt explain`` shows them.
/// Arguments as for ``evaluate``.
#[pyfunction]
#[pyo3(signature = (instruction, *operands, dst_width=None, profile="sm90", target=None, ptx_version=None))]
pub fn explain(
    py: Python<'_>,
    instruction: &str,
    operands: &Bound<'_, PyTuple>,
    dst_width: Option<u32>,
    profile: &str,
    target: Option<&str>,
    ptx_version: Option<&str>,
) -> PyResult<Explanation> {
    let (c, ops, width, legal) = legal_call(instruction, operands, dst_width, target, ptx_version)?;
    let profile = args::profile(profile)?;
    let o = eval_explained(&c, &ops, width, profile).map_err(eval_error)?;
    let legality = match (legal.target, legal.version) {
        (Some(t), Some(v)) => format!("legal on {t} with PTX ISA {v}"),
        _ => {
            let src = ops.first().map_or(c.atype.bits(), |x| x.width);
            match instr::check(&c, Regs { dst: width, src }, None, None) {
                Ok(()) => "legal (form and registers; give --target to check a target)".to_string(),
                Err(e) => e.to_string(),
            }
        }
    };
    let meaning = describe_set(&c, &o.accept);
    let mut text =
        format!("instruction {c}  ({})\nprofile     {profile}\nlegality    {legality}\nsteps\n", c.family().describe());
    for s in &o.trace {
        text.push_str(&format!("  {s}  (docs/semantics.md §{})\n", s.rule.section()));
    }
    text.push_str(&format!("result      {meaning}"));
    Ok(Explanation {
        instruction: c.to_string(),
        family: c.family().describe().to_string(),
        profile: profile.name().to_string(),
        legality,
        input: o.inputs_text(),
        steps: o.trace.iter().map(|s| Py::new(py, Step::from(s))).collect::<PyResult<_>>()?,
        result: result_object(py, o.accept.clone())?,
        result_meaning: meaning,
        text,
    })
}

/// Whether a recorded result is what ``instruction`` may produce on the
/// operands. ``result`` is a register value (int), or case-line result text
/// (``"3c00"``, ``"nan"``, ``"3f80????"``): then every member of that set
/// must be accepted, as ``ptx-cvt check`` requires.
#[pyfunction]
#[pyo3(signature = (instruction, operands, result, *, dst_width=None, profile="sm90", target=None, ptx_version=None))]
pub fn accepts(
    instruction: &str,
    operands: Vec<Bound<'_, PyAny>>,
    result: &Bound<'_, PyAny>,
    dst_width: Option<u32>,
    profile: &str,
    target: Option<&str>,
    ptx_version: Option<&str>,
) -> PyResult<bool> {
    let c = args::instruction(instruction)?;
    let ops = args::operands(&c, &operands)?;
    let got = if let Ok(s) = result.cast::<PyString>() {
        let set = args::result_text(&c, &s.to_cow()?)?;
        if let Some(w) = dst_width.filter(|w| *w != set.width) {
            return Err(value_error(format!("result `{set}` is {} bits wide, dst_width is {w}", set.width)));
        }
        if set.alts.iter().all(|a| matches!(a, ptx_cvt::accept::Alt::Bits { mask: 0, .. })) {
            return Err(value_error("no result to check (the result is only `?` digits)"));
        }
        set
    } else {
        let width = args::dst_width(&c, dst_width)?;
        AcceptSet::exact(width, args::register_value(&c, result, width)?)
    };
    let profile = args::profile(profile)?;
    Legality::parse(target, ptx_version)?.check(&c, &ops, got.width)?;
    let expected = evaluate_accept(&c, &ops, got.width, profile).map_err(eval_error)?;
    Ok(got.is_subset_of(&expected))
}

/// Lines from a str (split at newlines) or an iterable of str (a trailing
/// newline on each is ignored, so an open file works).
pub fn lines_of(source: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(s) = source.cast::<PyString>() {
        return Ok(s.to_cow()?.lines().map(str::to_string).collect());
    }
    let iter = source.try_iter().map_err(|_| value_error("expected a str or an iterable of lines"))?;
    iter.map(|l| {
        let l: String = l?.extract().map_err(|_| value_error("expected lines as str"))?;
        Ok(l.strip_suffix('\n').map(str::to_string).unwrap_or(l))
    })
    .collect()
}

fn case_object(py: Python<'_>, c: ptx_cvt::Case, line: usize) -> PyResult<Case> {
    let text = match &c.result {
        Some(r) => ptx_cvt::format_case(&c.instr, &c.operands, r),
        None => {
            std::iter::once(c.instr.to_string()).chain(c.operands.iter().map(args::hex)).collect::<Vec<_>>().join(" ")
        }
    };
    Ok(Case {
        instruction: c.instr.to_string(),
        operands: c.operands.iter().map(|o| o.bits).collect(),
        operand_widths: c.operands.iter().map(|o| o.width).collect(),
        dst_width: c.dst_width(),
        result: c.result.clone().map(|set| Py::new(py, Accept { set })).transpose()?,
        coverage_class: comment_class(c.comment.as_deref()).map(str::to_string),
        comment: c.comment,
        line,
        text,
    })
}

/// Parse one case line (format: vectors/README.md). None for blank and
/// comment lines; ValueError with the CLI's message for a malformed one.
#[pyfunction]
pub fn parse_case(py: Python<'_>, line: &str) -> PyResult<Option<Case>> {
    match parse_line(line).map_err(|e| value_error(e.0))? {
        None => Ok(None),
        Some(c) => case_object(py, c, 0).map(Some),
    }
}

/// Parse case lines (a str or an iterable of lines) into Cases, skipping
/// blank and comment lines; ValueError ``NAME:LINE: message`` at the first
/// malformed one.
#[pyfunction]
#[pyo3(signature = (lines, name="<string>"))]
pub fn parse_cases(py: Python<'_>, lines: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<Case>> {
    let mut out = Vec::new();
    for (i, l) in lines_of(lines)?.iter().enumerate() {
        match parse_line(l).map_err(|e| value_error(format!("{name}:{}: {e}", i + 1)))? {
            None => {}
            Some(c) => out.push(case_object(py, c, i + 1)?),
        }
    }
    Ok(out)
}

/// The Python view of a mismatch report (its text is the command line's).
pub fn mismatch(py: Python<'_>, m: &Report) -> PyResult<Mismatch> {
    Ok(Mismatch {
        file: m.origin.file.clone().unwrap_or_default(),
        line: m.origin.line.unwrap_or(0),
        instruction: m.case.instr.to_string(),
        operands: m.case.operands.iter().map(args::hex).collect(),
        input: m.outcome.inputs_text(),
        expected: Py::new(py, Accept { set: m.outcome.accept.clone() })?,
        got: Py::new(py, Accept { set: m.got.clone() })?,
        rule: m.rule.name().to_string(),
        evidence: m.rule.evidence().tag().to_string(),
        rule_text: m.rule.text().to_string(),
        section: m.rule.section().to_string(),
        coverage_class: m.class.clone(),
        case: m.repro.clone(),
        hypotheses: m.hyps.names().into_iter().map(String::from).collect(),
        text: m.text(None),
        bug_classes: Vec::new(),
    })
}

/// Every legal spelling in canonical form, as ``ptx-cvt list`` prints them;
/// with ``target`` (and ``ptx_version``, default the newest) those legal there.
#[pyfunction]
#[pyo3(signature = (target=None, ptx_version=None))]
pub fn list_variants(target: Option<&str>, ptx_version: Option<&str>) -> PyResult<Vec<String>> {
    let l = Legality::parse(target, ptx_version)?;
    Ok(gen::all_spellings()
        .into_iter()
        .filter(|c| instr::check(c, gen::natural_regs(c), l.target, l.version).is_ok())
        .map(|c| c.to_string())
        .collect())
}

/// Why a spelling is illegal (the rule it breaks), or None when it is legal:
/// on every target without ``target``, else on that target and PTX ISA
/// version. Registers default to the operands' type widths.
#[pyfunction]
#[pyo3(signature = (instruction, target=None, ptx_version=None, *, src_width=None, dst_width=None))]
pub fn illegal_reason(
    instruction: &str,
    target: Option<&str>,
    ptx_version: Option<&str>,
    src_width: Option<u32>,
    dst_width: Option<u32>,
) -> PyResult<Option<String>> {
    let c = args::instruction(instruction)?;
    let l = Legality::parse(target, ptx_version)?;
    let natural = gen::natural_regs(&c);
    let regs = Regs { dst: dst_width.unwrap_or(natural.dst), src: src_width.unwrap_or(natural.src) };
    Ok(instr::check(&c, regs, l.target, l.version).err().map(|e| e.to_string()))
}

/// Whether a spelling is legal: ``illegal_reason(...) is None``.
#[pyfunction]
#[pyo3(signature = (instruction, target=None, ptx_version=None, *, src_width=None, dst_width=None))]
pub fn legal(
    instruction: &str,
    target: Option<&str>,
    ptx_version: Option<&str>,
    src_width: Option<u32>,
    dst_width: Option<u32>,
) -> PyResult<bool> {
    Ok(illegal_reason(instruction, target, ptx_version, src_width, dst_width)?.is_none())
}

/// The canonical spelling of an instruction (``cvt.s8.f32.rni.sat`` →
/// ``cvt.rni.sat.s8.f32``); ValueError if it does not parse.
#[pyfunction]
pub fn canonical(py: Python<'_>, instruction: &str) -> PyResult<Py<PyAny>> {
    args::instruction(instruction)?.to_string().into_py_any(py)
}

fn format_named(name: &str) -> PyResult<Format> {
    Format::from_name(name).ok_or_else(|| {
        let all: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        value_error(format!("unknown format `{name}` (one of: {})", all.join(", ")))
    })
}

/// The facts of a register type (``f16``, ``e4m3x2``, ``s8``): its width
/// in bits, its lanes, the bits of each and the lanes' format.
#[pyfunction]
pub fn type_facts(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    let t = ptx_cvt::Type::from_name(name).ok_or_else(|| value_error(format!("unknown type `{name}`")))?;
    let d = PyDict::new(py);
    d.set_item("name", t.name())?;
    d.set_item("bits", t.bits())?;
    d.set_item("packed", t.is_packed())?;
    d.set_item("lanes", t.lanes())?;
    d.set_item("lane_bits", t.lane_bits())?;
    d.set_item("format", t.format().name())?;
    Ok(d.into_any().unbind())
}

/// The facts of a format from the oracle's format table, as a dict (the
/// codes in the container's bits); ``ptx_cvt.finfo`` builds on it.
#[pyfunction]
pub fn format_facts(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    let f = format_named(name)?;
    let d = PyDict::new(py);
    d.set_item("name", f.name())?;
    d.set_item("bits", f.container_bits())?;
    if let Some(l) = f.float_layout() {
        d.set_item("kind", "float")?;
        d.set_item("exp_bits", l.exp_bits)?;
        d.set_item("man_bits", l.man_bits)?;
        d.set_item("bias", l.bias)?;
        d.set_item("signed", l.signed)?;
        d.set_item("has_inf", l.has_inf())?;
        d.set_item("has_nan", l.has_nan())?;
        d.set_item("subnormals", l.subnormals)?;
        d.set_item("max_code", l.max_finite_code() << l.shift)?;
        // The smallest normal: exponent field 1 (field 0 where it is not subnormal, ue8m0).
        d.set_item("min_normal_code", (u64::from(l.subnormals) << l.man_bits) << l.shift)?;
        d.set_item("min_subnormal_code", (l.subnormals && l.man_bits > 0).then_some(1u64 << l.shift))?;
        d.set_item("one_code", ((l.bias as u64) << l.man_bits) << l.shift)?;
        d.set_item("inf_code", l.inf_code().map(|c| c << l.shift))?;
    } else {
        d.set_item("kind", if f.fixed_frac_bits().is_some() { "fixed" } else { "int" })?;
        d.set_item("signed", f.is_signed_int())?;
    }
    Ok(d.into_any().unbind())
}

/// The exact value of ``bits`` in format ``name``: ``("num", neg, sig, exp)``
/// for ``(-1)^neg · sig · 2^exp``, ``("inf", neg, 0, 0)`` or ``("nan", neg, 0, 0)``.
#[pyfunction]
pub fn decode_bits(py: Python<'_>, name: &str, bits: u64) -> PyResult<(&'static str, bool, Py<PyAny>, i64)> {
    let f = format_named(name)?;
    Ok(match ptx_cvt::exact::decode(f, bits) {
        Value::Num { neg, mag } => {
            let sig = mag.sig().to_string();
            let int = py.import("builtins")?.getattr("int")?.call1((sig,))?.unbind();
            ("num", neg, int, mag.exp)
        }
        Value::Inf { neg } => ("inf", neg, 0i64.into_py_any(py)?, 0),
        Value::Nan(_) => {
            let l = f.float_layout();
            let neg = l.is_some_and(|l| (bits >> l.shift) & l.sign_bit() != 0);
            ("nan", neg, 0i64.into_py_any(py)?, 0)
        }
    })
}
