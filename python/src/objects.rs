//! The Python classes: acceptance sets, explanations, parsed cases, mismatches.

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use ptx_cvt::AcceptSet;

/// What a destination register may hold when the answer is a set: the PTX
/// ISA leaves NaN bits open, or some nibbles are don't-care. ``str()`` gives
/// the case-line syntax (``nan``, ``3f80????``, ``7fff|7e00``).
#[pyclass(module = "ptx_cvt", name = "Accept", frozen)]
#[derive(Clone)]
pub struct Accept {
    pub set: AcceptSet,
}

#[pymethods]
impl Accept {
    /// Parse case-line result syntax for a destination type, e.g.
    /// ``Accept("nan", "f32")``; ``dtype`` names the format a bare ``nan`` means.
    #[new]
    #[pyo3(signature = (text, dtype=None))]
    fn py_new(text: &str, dtype: Option<&str>) -> PyResult<Accept> {
        let format = match dtype {
            None => None,
            Some(d) => Some(
                ptx_cvt::Type::from_name(d)
                    .ok_or_else(|| crate::args::value_error(format!("unknown type `{d}`")))?
                    .format(),
            ),
        };
        let set = AcceptSet::parse(text, format).map_err(|e| crate::args::value_error(e.to_string()))?;
        Ok(Accept { set })
    }

    /// Register width in bits.
    #[getter]
    fn width(&self) -> u32 {
        self.set.width
    }

    /// The one value, when the set has exactly one member; else None.
    #[getter]
    fn single(&self) -> Option<u64> {
        self.set.single()
    }

    /// Whether a register value is a member.
    fn contains(&self, bits: u64) -> bool {
        self.set.contains(bits)
    }

    fn __contains__(&self, bits: &Bound<'_, PyAny>) -> bool {
        bits.extract::<u64>().is_ok_and(|b| self.set.contains(b))
    }

    /// Whether every member of this set is also in ``other`` (what ``check``
    /// asks of a recorded result that is itself a set).
    fn issubset(&self, other: &Accept) -> bool {
        self.set.is_subset_of(&other.set)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let eq = if let Ok(o) = other.cast::<Accept>() {
            let o = &o.get().set;
            Some(self.set.is_subset_of(o) && o.is_subset_of(&self.set))
        } else {
            other.extract::<u64>().ok().map(|b| self.set.single() == Some(b))
        };
        match (op, eq) {
            (CompareOp::Eq, Some(e)) => e.into_py_any(py),
            (CompareOp::Ne, Some(e)) => (!e).into_py_any(py),
            _ => Ok(py.NotImplemented()),
        }
    }

    fn __str__(&self) -> String {
        self.set.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Accept('{}', width={})", self.set, self.set.width)
    }
}

/// A result as Python sees it: an int when it is one value, else an Accept.
pub fn result_object(py: Python<'_>, set: AcceptSet) -> PyResult<Py<PyAny>> {
    match set.single() {
        Some(b) => b.into_py_any(py),
        None => Accept { set }.into_py_any(py),
    }
}

/// One rule that fired during an evaluation.
#[pyclass(module = "ptx_cvt", name = "Step", frozen, get_all)]
pub struct Step {
    /// Stable rule name, e.g. ``round-to-float``.
    pub rule: String,
    /// Evidence tag: ``PTX``, ``HW``, ``EMU``, ``IEEE`` or ``OPEN``.
    pub evidence: String,
    /// What the rule did on this input.
    pub detail: String,
    /// The rule's general statement.
    pub rule_text: String,
    /// The lane of a packed form (``a``, ``b``, ...), empty for scalar forms.
    pub lane: String,
    /// The section of docs/semantics.md that states the rule, e.g. ``5.4``.
    pub section: String,
}

#[pymethods]
impl Step {
    fn __str__(&self) -> String {
        format!("{:<24} [{}] {}  (docs/semantics.md §{})", self.rule, self.evidence, self.detail, self.section)
    }
    fn __repr__(&self) -> String {
        format!("Step(rule='{}', evidence='{}', detail={:?})", self.rule, self.evidence, self.detail)
    }
}

impl Step {
    pub fn from(s: &ptx_cvt::eval::Step) -> Step {
        Step {
            rule: s.rule.name().to_string(),
            evidence: s.rule.evidence().tag().to_string(),
            detail: s.detail.clone(),
            rule_text: s.rule.text().to_string(),
            lane: s.lane.to_string(),
            section: s.rule.section().to_string(),
        }
    }
}

/// Why a conversion gives what it gives: ``str()`` is the text of
/// ``ptx-cvt explain``; ``steps`` the rules that fired, in order.
#[pyclass(module = "ptx_cvt", name = "Explanation", frozen, get_all)]
pub struct Explanation {
    /// Canonical spelling.
    pub instruction: String,
    pub family: String,
    pub profile: String,
    pub legality: String,
    /// The decoded source value(s), e.g. ``1.00048828125`` or ``a=1 b=-2``.
    pub input: String,
    pub steps: Vec<Py<Step>>,
    /// An int, or an Accept when the answer is a set.
    pub result: Py<PyAny>,
    /// The result read in the destination type, e.g. ``3c00 (1)``.
    pub result_meaning: String,
    pub text: String,
}

#[pymethods]
impl Explanation {
    fn __str__(&self) -> String {
        self.text.clone()
    }
    fn __repr__(&self) -> String {
        format!("<Explanation {} → {}>", self.instruction, self.result_meaning)
    }
}

/// One case line: instruction, operands with their register widths, the
/// expected result if any, and the comment.
#[pyclass(module = "ptx_cvt", name = "Case", frozen, get_all)]
pub struct Case {
    /// Canonical spelling.
    pub instruction: String,
    /// Operand register values, in order.
    pub operands: Vec<u64>,
    /// Register width of each operand, in bits (from its hex digit count).
    pub operand_widths: Vec<u32>,
    /// The result after ``=>`` (an Accept, also when it is one value), or None.
    pub result: Option<Py<Accept>>,
    /// Destination register width: the result's, else the type's.
    pub dst_width: u32,
    /// Text after ``#``, or None.
    pub comment: Option<String>,
    /// The coverage class in the comment (``input/result/event``), or None.
    pub coverage_class: Option<String>,
    /// 1-based line number in its file or text (0 for ``parse_case``).
    pub line: usize,
    /// The line as the oracle prints it (canonical spelling).
    pub text: String,
}

#[pymethods]
impl Case {
    fn __str__(&self) -> String {
        self.text.clone()
    }
    fn __repr__(&self) -> String {
        format!("Case({:?})", self.text)
    }
}

/// A recorded result the oracle does not accept, with the diagnostics of
/// ``ptx-cvt check`` (``str()`` is its report, without the PTX module).
#[pyclass(module = "ptx_cvt", name = "Mismatch", frozen, get_all)]
pub struct Mismatch {
    pub file: String,
    pub line: usize,
    pub instruction: String,
    /// Operands as hex, as written in the case line.
    pub operands: Vec<String>,
    /// The decoded source value(s).
    pub input: String,
    pub expected: Py<Accept>,
    pub got: Py<Accept>,
    /// The rule that decides the differing bits, its evidence tag, its
    /// statement and its section of docs/semantics.md.
    pub rule: String,
    pub evidence: String,
    pub rule_text: String,
    pub section: String,
    /// The line's coverage class (from its comment), else the oracle's.
    pub coverage_class: String,
    /// The one-line reproducer: the case with the expected result.
    pub case: String,
    /// The catalogue hypotheses that reproduce the answer, most specific
    /// first (docs/diagnosis.md): what the implementation does instead.
    pub hypotheses: Vec<String>,
    pub text: String,
    /// The ids of its bug classes in its report (two where a packed
    /// answer's lanes are wrong for different reasons).
    pub bug_classes: Vec<usize>,
}

#[pymethods]
impl Mismatch {
    fn __str__(&self) -> String {
        self.text.clone()
    }
    fn __repr__(&self) -> String {
        format!("<Mismatch {}:{}: {}>", self.file, self.line, self.case)
    }
}
