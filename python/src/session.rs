//! Checking and fuzzing a Python function: the harness drives it (its
//! `settle` accounts every case, as for a program or a library), the
//! harness's `Triage` groups the wrong answers into bug classes, and the
//! report is the command line's. The NumPy side of a call (dtypes,
//! exceptions, tracebacks) is ptx_cvt/_check.py's `caller`.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyString;

use ptx_cvt::accept::width_mask;
use ptx_cvt::gen::SeededRng;
use ptx_cvt::{evaluate as eval_explained, evaluate_accept, parse_case as parse_line, AcceptSet, Case, Cvt, Operand};
use ptx_cvt_harness::fuzz_inputs::FuzzInputs;
use ptx_cvt_harness::judge::{Judge, Legal, Scope};
use ptx_cvt_harness::process::request_line;
use ptx_cvt_harness::runner::{self, Event, Flow};
use ptx_cvt_harness::triage::Grouping;
use ptx_cvt_harness::{Answer, Implementation, Mismatch as HarnessMismatch, Origin, Triage};

use crate::api::{lines_of, mismatch};
use crate::args::{self, eval_error, value_error, Legality};
use crate::objects::Mismatch;

/// Mismatches printed in full when a run has at most this many (the CLI's rule).
const FEW: usize = 3;
/// Variants listed in a fuzz report when at most this many were tried (the CLI's rule).
const LIST_ALL: usize = 30;

/// A Python function under test, called through ptx_cvt/_check.py's
/// `caller(instruction, operand arrays, widths, dst_width)`, which answers
/// `(answers, failure)` exactly as `Implementation::eval_batch`: ints
/// (bits) or strs (declines) up to the first crash, and its traceback.
struct PyImpl<'py> {
    caller: Bound<'py, PyAny>,
    name: String,
    /// An exception that must end the run (KeyboardInterrupt, a bug in the caller).
    fatal: Option<PyErr>,
}

impl PyImpl<'_> {
    /// One call on cases with the same registers.
    fn call(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
        if self.fatal.is_some() {
            return (Vec::new(), Some("the run was interrupted".into()));
        }
        let py = self.caller.py();
        let widths: Vec<u32> = cases[0].0.iter().map(|o| o.width).collect();
        let dst_width = cases[0].1;
        let arrays: Vec<Bound<'_, PyArray1<u64>>> = (0..widths.len())
            .map(|k| PyArray1::from_vec(py, cases.iter().map(|(ops, _)| ops[k].bits).collect()))
            .collect();
        let reply = self
            .caller
            .call1((c.to_string(), arrays, widths, dst_width))
            .and_then(|r| r.extract::<(Vec<Bound<'_, PyAny>>, Option<String>)>());
        let (items, failure) = match reply {
            Ok(r) => r,
            Err(e) => {
                self.fatal = Some(e);
                return (Vec::new(), Some("the run was interrupted".into()));
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for it in items.iter().take(cases.len()) {
            if let Ok(s) = it.cast::<PyString>() {
                out.push(Answer::Declined(s.to_string()));
                continue;
            }
            match it.extract::<u64>() {
                Ok(b) if b & !width_mask(dst_width) == 0 => out.push(Answer::Bits(b)),
                _ => {
                    let what = it.repr().map(|r| r.to_string()).unwrap_or_default();
                    return (out, Some(format!("answered {what}, not bits of the {dst_width}-bit destination")));
                }
            }
        }
        if failure.is_none() && out.len() < cases.len() {
            return (out, Some(format!("answered {} of {} cases", items.len(), cases.len())));
        }
        (out, failure)
    }
}

impl Implementation for PyImpl<'_> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<Answer, String> {
        let (mut a, e) = self.call(c, &[(operands.to_vec(), dst_width)]);
        a.pop().ok_or_else(|| e.unwrap_or_default())
    }

    fn eval_batch(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
        let regs = |(ops, w): &(Vec<Operand>, u32)| (ops.iter().map(|o| o.width).collect::<Vec<_>>(), *w);
        let mut out = Vec::with_capacity(cases.len());
        let mut i = 0;
        while i < cases.len() {
            let key = regs(&cases[i]);
            let n = cases[i..].iter().take_while(|k| regs(k) == key).count();
            let (answers, failure) = self.call(c, &cases[i..i + n]);
            out.extend(answers);
            if failure.is_some() {
                return (out, failure);
            }
            i += n;
        }
        (out, None)
    }
}

/// One bug class of a report (`ptx-cvt check`'s class list, as objects).
#[pyclass(module = "ptx_cvt", name = "BugClass", frozen, get_all)]
pub struct BugClass {
    /// 1-based, most cases first, as in the text.
    pub id: usize,
    /// The catalogue hypothesis (docs/diagnosis.md) that explains the class,
    /// or None where nothing does (then the class is its deciding rule's).
    pub name: Option<String>,
    /// The explanation in words, as the report prints it.
    pub text: String,
    /// The variants as one glob (``within …`` when it spans more).
    pub scope: String,
    pub family: String,
    /// The rule deciding the example's wrong bits.
    pub rule: String,
    pub cases: usize,
    pub variants: Vec<String>,
    /// The first mismatch of the class.
    pub example: Py<Mismatch>,
    /// Indices of its mismatches in ``Report.mismatches``.
    pub members: Vec<usize>,
}

#[pymethods]
impl BugClass {
    fn __repr__(&self) -> String {
        format!("<BugClass {}: {} case(s): {}>", self.id, self.cases, self.name.as_deref().unwrap_or(&self.rule))
    }
}

/// A case the function under test crashed on.
#[pyclass(module = "ptx_cvt", name = "Crash", frozen, get_all)]
pub struct Crash {
    pub file: String,
    pub line: usize,
    /// The case as a request line (``cvt.rn.f16.f32 3f800000 => ????``).
    pub case: String,
    /// The exception with its traceback.
    pub message: String,
}

#[pymethods]
impl Crash {
    fn __repr__(&self) -> String {
        let last = self.message.trim_end().lines().last().unwrap_or("");
        format!("<Crash {}: {last}>", self.case)
    }
}

/// What a check or a fuzz run found: the five totals, the bug classes with
/// the command line's diagnosis, every mismatch and crash; ``text()`` is
/// the command line's one-screen report, ``to_json()`` its ``--json``
/// summary. A sequence of its mismatches (``len``, index, iteration).
#[pyclass(module = "ptx_cvt", name = "Report", frozen, sequence)]
pub struct Report {
    #[pyo3(get)]
    pub passed: u64,
    #[pyo3(get)]
    pub failed: u64,
    #[pyo3(get)]
    pub unsupported: u64,
    #[pyo3(get)]
    pub crashed: u64,
    #[pyo3(get)]
    pub not_run: u64,
    #[pyo3(get)]
    pub mismatches: Vec<Py<Mismatch>>,
    #[pyo3(get)]
    pub bug_classes: Vec<Py<BugClass>>,
    #[pyo3(get)]
    pub crashes: Vec<Py<Crash>>,
    /// Fuzz runs: the seed (rerun with ``seed=``); None for checks.
    #[pyo3(get)]
    pub seed: Option<u64>,
    /// Cases left out: registers wider than their types, not sent to a
    /// function (``natural_widths``), or inputs a fuzz run did not send.
    #[pyo3(get)]
    pub skipped: u64,
    text: String,
    json: String,
}

#[pymethods]
impl Report {
    /// The command line's report: mismatches in full when there are at most
    /// three, the totals, the bug classes and the declines, one screen.
    fn text(&self) -> String {
        self.text.clone()
    }

    /// The ``summary`` object of the command line's ``--json``, as JSON text.
    fn to_json(&self) -> String {
        self.json.clone()
    }

    /// The five outcomes, which add up to the cases run.
    #[getter]
    fn totals(&self) -> (u64, u64, u64, u64, u64) {
        (self.passed, self.failed, self.unsupported, self.crashed, self.not_run)
    }

    /// Raise MismatchError (an AssertionError, for pytest) with the report
    /// when a case failed or crashed.
    fn raise_for_mismatches(&self) -> PyResult<()> {
        if self.failed > 0 || self.crashed > 0 {
            return Err(crate::MismatchError::new_err(self.text.clone()));
        }
        Ok(())
    }

    fn __len__(&self) -> usize {
        self.mismatches.len()
    }

    fn __getitem__(&self, py: Python<'_>, i: isize) -> PyResult<Py<Mismatch>> {
        let n = self.mismatches.len() as isize;
        let k = if i < 0 { i + n } else { i };
        if !(0..n).contains(&k) {
            return Err(pyo3::exceptions::PyIndexError::new_err("report index out of range"));
        }
        Ok(self.mismatches[k as usize].clone_ref(py))
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(pyo3::types::PyList::new(py, &self.mismatches)?.try_iter()?.into_any().unbind())
    }

    /// Equal to a list of the same mismatches (``check(...) == []``, as the list it was).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = other.py();
        let Ok(list) = other.cast::<pyo3::types::PyList>() else { return Ok(false) };
        pyo3::types::PyList::new(py, &self.mismatches)?.as_any().eq(list)
    }

    fn __bool__(&self) -> bool {
        true
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Report: {} passed, {} failed, {} unsupported, {} crashed, {} not run; {} bug class(es)>",
            self.passed,
            self.failed,
            self.unsupported,
            self.crashed,
            self.not_run,
            self.bug_classes.len()
        )
    }
}

/// A run in progress: the triage and the crashes.
struct Run {
    impl_name: String,
    /// Why the run stopped early (settle's reason), if it did.
    stopped: Option<String>,
    triage: Triage,
    /// The oracle's verdict on each answer.
    judge: Judge,
    crashes: Vec<(Origin, String, String)>,
    skipped: u64,
}

impl Run {
    fn new(profile: ptx_cvt::Profile) -> Run {
        let judge = Judge::new(Scope { profile, target: None, version: None });
        Run {
            impl_name: String::new(),
            stopped: None,
            triage: Triage::new(profile),
            judge,
            crashes: Vec::new(),
            skipped: 0,
        }
    }

    /// Count one answered case against the oracle's set.
    fn answered(&mut self, origin: Origin, case: Case, expected: &AcceptSet, got: AcceptSet) -> PyResult<()> {
        let c = case.instr;
        let w = got.width;
        if got.is_subset_of(expected) {
            match got.single() {
                Some(b) => self.triage.passed_case(&c, &case.operands, w, b),
                None => self.triage.passed(&c),
            }
            return Ok(());
        }
        let profile = self.triage.profile;
        let o = eval_explained(&c, &case.operands, w, profile).map_err(eval_error)?;
        let case = Case { result: Some(got), ..case };
        self.triage.mismatch(&HarnessMismatch::new(origin, case, o, profile));
        Ok(())
    }

    /// Settle a batch of one instruction with the function and count every outcome.
    /// False when the run must stop (the rest is then not run).
    fn ask(&mut self, imp: &mut PyImpl<'_>, batch: &mut Vec<(Case, u32, Origin)>) -> PyResult<bool> {
        if batch.is_empty() {
            return Ok(true);
        }
        let items = std::mem::take(batch);
        let c = items[0].0.instr;
        let cases: Vec<(Vec<Operand>, u32)> = items.iter().map(|(k, w, _)| (k.operands.clone(), *w)).collect();
        let profile = self.triage.profile;
        let mut failed: Option<PyErr> = None;
        let mut judge = std::mem::replace(&mut self.judge, Judge::new(Scope { profile, target: None, version: None }));
        // A Python function keeps no state a crash could spoil: go on after each, as `--restart`.
        let ran = runner::ask(imp, &mut judge, &c, &cases, u64::MAX, |k, event| {
            let (case, w, origin) = &items[k];
            let w = *w;
            match event {
                Event::Passed(b) => self.triage.passed_case(&c, &case.operands, w, b),
                Event::Wrong(b) => {
                    let case = Case { result: Some(AcceptSet::exact(w, b)), ..case.clone() };
                    match HarnessMismatch::of(origin.clone(), case, profile) {
                        Ok(m) => {
                            self.triage.mismatch(&m);
                        }
                        Err(e) => {
                            failed = Some(eval_error(e));
                            return Flow::Stop;
                        }
                    }
                }
                Event::Declined(why) => self.triage.unsupported(&c, &why),
                Event::Crashed(e) => {
                    self.triage.crashed();
                    self.crashes.push((origin.clone(), request_line(&c, &case.operands, w), e));
                }
                Event::NotRun => self.triage.not_run(1),
            }
            Flow::Go
        });
        self.judge = judge;
        if let Some(e) = imp.fatal.take().or(failed) {
            return Err(e);
        }
        match ran.stopped {
            None => Ok(true),
            Some(why) => {
                self.stopped = Some(format!("{why}; the cases left are counted as not run"));
                Ok(false)
            }
        }
    }

    /// The report; `fuzz` (its summary line, seed, variants tried) makes it the fuzz report.
    fn report(self, py: Python<'_>, fuzz: Option<(String, u64, usize)>) -> PyResult<Report> {
        let t = &self.triage;
        let g: Grouping = t.group();
        let counts = t.counts();
        let mismatches = t
            .mismatches
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let mut o = mismatch(py, m)?;
                o.bug_classes = g.classes_of[k].clone();
                Py::new(py, o)
            })
            .collect::<PyResult<Vec<_>>>()?;
        let bug_classes = g
            .classes
            .iter()
            .map(|b| {
                let ex = &t.mismatches[b.members[0]];
                Py::new(
                    py,
                    BugClass {
                        id: b.id,
                        name: b.name().map(str::to_string),
                        text: b.text(ex.got.width),
                        scope: b.scope(),
                        family: b.family.to_string(),
                        rule: b.rule.name().to_string(),
                        cases: b.count(),
                        variants: b.variants.iter().map(|c| c.to_string()).collect(),
                        example: mismatches[b.members[0]].clone_ref(py),
                        members: b.members.clone(),
                    },
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        let crashes = self
            .crashes
            .iter()
            .map(|(o, case, e)| {
                Py::new(
                    py,
                    Crash {
                        file: o.file.clone().unwrap_or_default(),
                        line: o.line.unwrap_or(0),
                        case: case.clone(),
                        message: e.clone(),
                    },
                )
            })
            .collect::<PyResult<Vec<_>>>()?;

        // The text: as `ptx-cvt check` (or `fuzz`) prints it, with the
        // crashes (on the CLI's stderr) first, each with its exception's last line.
        let mut s = String::new();
        for (o, case, e) in self.crashes.iter().take(FEW) {
            let place = match (&o.file, o.line) {
                (Some(f), Some(n)) => format!("{f}:{n}: "),
                _ => String::new(),
            };
            let last = e.trim_end().lines().last().unwrap_or("");
            s += &format!("{place}crashed on `{case}`: {}: {last}\n", self.impl_name);
        }
        if self.crashes.len() > FEW {
            s += &format!("… {} more crash(es) (report.crashes has every traceback)\n", self.crashes.len() - FEW);
        }
        if let Some(why) = &self.stopped {
            s += why;
            s += "\n";
        }
        let shown: Vec<usize> = if t.mismatches.len() <= FEW { (0..t.mismatches.len()).collect() } else { Vec::new() };
        for (i, &k) in shown.iter().enumerate() {
            if i > 0 {
                s += "\n";
            }
            s += &t.mismatches[k].text(None);
            s += "\n";
            s += &match g.classes_of[k].as_slice() {
                [_, _, ..] => format!(
                    "  bug      classes {} of the summary (its lanes are wrong for different reasons)\n",
                    g.classes_of[k].iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
                ),
                _ => format!("  bug      class {} of the summary\n", g.class_of[k]),
            };
        }
        if !shown.is_empty() {
            s += "\n";
        }
        if self.skipped > 0 && fuzz.is_none() {
            s += &format!(
                "{} case(s) with wider registers left out (natural_widths=False sends them as uint64 arrays)\n",
                self.skipped
            );
        }
        let mut json = t.json(&g);
        json["skipped_widths"] = self.skipped.into();
        match &fuzz {
            Some((head, seed, tried)) => {
                s += head;
                s += "\n";
                s += &t.text(&g, *tried <= LIST_ALL);
                s += "\n";
                json["seed"] = (*seed).into();
            }
            None => {
                if counts.failed + counts.unsupported + counts.crashed + counts.not_run > 0 {
                    s += &t.text(&g, false);
                    s += "\n";
                }
            }
        }
        json["adapter_errors"] = counts.crashed.into();
        if counts.crashed > 0 || counts.not_run > 0 {
            s += &format!(
                "{} passed, {} failed, {} crashed, {} not run",
                counts.passed, counts.failed, counts.crashed, counts.not_run
            );
        } else {
            s += &format!("{} passed, {} failed", counts.passed, counts.failed);
        }
        Ok(Report {
            passed: counts.passed,
            failed: counts.failed,
            unsupported: counts.unsupported,
            crashed: counts.crashed,
            not_run: counts.not_run,
            mismatches,
            bug_classes,
            crashes,
            seed: fuzz.as_ref().map(|f| f.1),
            skipped: self.skipped,
            text: s,
            json: format!("{{\"summary\": {json}}}"),
        })
    }
}

/// The native half of ``ptx_cvt.check``: the case lines of each
/// ``(name, lines)`` source checked against the oracle, with the results
/// they carry (``caller`` None) or the answers of the function ``caller``
/// wraps (a result in the line is then ignored). A malformed or illegal
/// line raises ValueError ``NAME:LINE: message`` (IllegalInstruction for
/// illegal ones) before anything is run.
#[pyfunction]
#[pyo3(signature = (sources, caller=None, impl_name="python", *, profile="sm90", target=None, ptx_version=None, batch=1024, natural_widths=true))]
#[allow(clippy::too_many_arguments)]
pub fn run_check(
    py: Python<'_>,
    sources: Vec<(String, Bound<'_, PyAny>)>,
    caller: Option<Bound<'_, PyAny>>,
    impl_name: &str,
    profile: &str,
    target: Option<&str>,
    ptx_version: Option<&str>,
    batch: usize,
    natural_widths: bool,
) -> PyResult<Report> {
    let profile = args::profile(profile)?;
    let mut skipped = 0;
    let legal = Legality::parse(target, ptx_version)?;
    // Every line read and judged first: errors before any call.
    let mut cases: Vec<(Case, AcceptSet, Origin)> = Vec::new();
    for (name, lines) in &sources {
        for (i, l) in lines_of(lines)?.iter().enumerate() {
            let n = i + 1;
            let at = |e: PyErr| {
                let msg = format!("{name}:{n}: {}", e.value(py));
                if e.is_instance_of::<crate::IllegalInstruction>(py) {
                    crate::IllegalInstruction::new_err(msg)
                } else {
                    value_error(msg)
                }
            };
            let Some(c) = parse_line(l).map_err(|e| value_error(format!("{name}:{n}: {e}")))? else { continue };
            if caller.is_none() && (c.result.is_none() || c.result_is_placeholder()) {
                return Err(value_error(format!(
                    "{name}:{n}: no result to check (expected `=> <hex>` after the operands)"
                )));
            }
            legal.check(&c.instr, &c.operands, c.dst_width()).map_err(at)?;
            let expected =
                evaluate_accept(&c.instr, &c.operands, c.dst_width(), profile).map_err(|e| at(eval_error(e)))?;
            let shape = ptx_cvt::instr::shape(&c.instr);
            let natural = c.operands.iter().map(|o| o.width).eq(shape.srcs.iter().copied())
                && c.dst_width() == c.instr.dtype.bits();
            if caller.is_some() && natural_widths && !natural {
                skipped += 1;
                continue;
            }
            cases.push((c, expected, Origin { file: Some(name.clone()), line: Some(n) }));
        }
    }
    let mut run = Run::new(profile);
    run.skipped = skipped;
    let Some(caller) = caller else {
        for (case, expected, origin) in cases {
            let got = case.result.clone().expect("checked above");
            run.answered(origin, case, &expected, got)?;
        }
        return run.report(py, None);
    };
    run.impl_name = impl_name.to_string();
    let mut imp = PyImpl { caller, name: impl_name.to_string(), fatal: None };
    let mut pending: Vec<(Case, u32, Origin)> = Vec::new();
    let mut rest = cases.into_iter().map(|(c, expected, origin)| (c, expected.width, origin));
    let mut go_on = true;
    for item in rest.by_ref() {
        if pending.first().is_some_and(|p| p.0.instr != item.0.instr) || pending.len() >= batch.max(1) {
            py.check_signals()?;
            go_on = run.ask(&mut imp, &mut pending)?;
            if !go_on {
                run.triage.not_run(1);
                break;
            }
        }
        pending.push(item);
    }
    if go_on {
        run.ask(&mut imp, &mut pending)?;
    }
    run.triage.not_run(rest.count() as u64);
    run.report(py, None)
}

/// The native half of ``ptx_cvt.fuzz``: the variants round-robin, a batch
/// each, until ``seconds`` (0: no limit) or ``cases`` are spent.
#[pyfunction]
#[pyo3(signature = (caller, impl_name, variants, *, seconds=10.0, cases=None, seed=0, profile="sm90", batch=1024))]
#[allow(clippy::too_many_arguments)]
pub fn run_fuzz(
    py: Python<'_>,
    caller: Bound<'_, PyAny>,
    impl_name: &str,
    variants: Vec<String>,
    seconds: f64,
    cases: Option<u64>,
    seed: u64,
    profile: &str,
    batch: usize,
) -> PyResult<Report> {
    let profile = args::profile(profile)?;
    if !(seconds >= 0.0 && seconds.is_finite()) {
        return Err(value_error(format!("seconds: expected a finite number ≥ 0, got {seconds}")));
    }
    if seconds == 0.0 && cases.is_none() {
        return Err(value_error("give seconds > 0 or cases=N: the run needs an end"));
    }
    let mut inputs = Vec::with_capacity(variants.len());
    let mut seen = HashSet::new();
    for v in &variants {
        let c = args::instruction(v)?;
        if seen.insert(c) {
            inputs.push(FuzzInputs::new(c));
        }
    }
    let budget = (seconds > 0.0).then(|| Duration::from_secs_f64(seconds));
    let mut run = Run::new(profile);
    run.impl_name = impl_name.to_string();
    let mut imp = PyImpl { caller, name: impl_name.to_string(), fatal: None };
    let mut rng = SeededRng::new(seed ^ 0x5eed_f022);
    let start = Instant::now();
    let mut sent = 0u64;
    let mut stop: Option<String> = None;
    'outer: loop {
        let mut any = false;
        for v in inputs.iter_mut() {
            if budget.is_some_and(|b| start.elapsed() >= b) {
                break 'outer;
            }
            let room = cases.map_or(u64::MAX, |n| n.saturating_sub(sent));
            if room == 0 {
                stop = Some(format!("stopped after {sent} cases (cases={})", cases.unwrap_or(0)));
                break 'outer;
            }
            py.check_signals()?;
            let mut pending = Vec::new();
            let natural = ptx_cvt::instr::shape(&v.c).srcs;
            for g in v.batch((batch.max(1) as u64).min(room) as usize, seed, &mut rng) {
                // Registers as wide as their types: the arrays a NumPy function expects (float32 for f32).
                if !g.operands.iter().map(|o| o.width).eq(natural.iter().copied()) || g.dst_width != v.c.dtype.bits() {
                    run.skipped += 1;
                    continue;
                }
                // The generator's cases are valid inputs; a flipped bit may make one that is not.
                if run.judge.legal(&v.c, &g.operands, g.dst_width) == Legal::Yes {
                    let width = g.dst_width;
                    let case = Case { instr: v.c, operands: g.operands, result: None, comment: None };
                    pending.push((case, width, Origin::default()));
                }
            }
            if pending.is_empty() {
                continue;
            }
            any = true;
            sent += pending.len() as u64;
            if !run.ask(&mut imp, &mut pending)? {
                break 'outer;
            }
        }
        if !any {
            break;
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let tried = run.triage.variants.len();
    let rate = if elapsed > 0.0 { format!("{:.0}", sent as f64 / elapsed) } else { "-".into() };
    let mut head = stop.map(|s| s + "\n").unwrap_or_default();
    head += &format!(
        "{sent} cases in {elapsed:.1} s ({rate} cases/s) over {tried} of {} variant(s); seed {seed} (rerun with seed={seed})",
        inputs.len()
    );
    run.report(py, Some((head, seed, tried)))
}
