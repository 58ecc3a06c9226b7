//! `ptx_cvt._ptx_cvt`: the native half of the Python package `ptx_cvt` (the
//! pure-Python half, ptx_cvt/__init__.py, adds NumPy dtype and shape handling).

mod api;
mod args;
mod arrays;
mod objects;
mod session;

use pyo3::prelude::*;

pyo3::create_exception!(
    ptx_cvt,
    IllegalInstruction,
    pyo3::exceptions::PyValueError,
    "A well-formed cvt spelling that the legality rules reject (for its registers, target or PTX ISA version)."
);

pyo3::create_exception!(
    ptx_cvt,
    MismatchError,
    pyo3::exceptions::PyAssertionError,
    "Report.raise_for_mismatches: a case failed or crashed; the message is the report."
);

#[pymodule]
fn _ptx_cvt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("IllegalInstruction", m.py().get_type::<IllegalInstruction>())?;
    m.add_class::<objects::Accept>()?;
    m.add_class::<objects::Step>()?;
    m.add_class::<objects::Explanation>()?;
    m.add_class::<objects::Case>()?;
    m.add_class::<objects::Mismatch>()?;
    m.add_function(wrap_pyfunction!(api::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(api::explain, m)?)?;
    m.add_function(wrap_pyfunction!(api::accepts, m)?)?;
    m.add("MismatchError", m.py().get_type::<MismatchError>())?;
    m.add_class::<session::Report>()?;
    m.add_class::<session::BugClass>()?;
    m.add_class::<session::Crash>()?;
    m.add_function(wrap_pyfunction!(session::run_check, m)?)?;
    m.add_function(wrap_pyfunction!(session::run_fuzz, m)?)?;
    m.add_function(wrap_pyfunction!(api::type_facts, m)?)?;
    m.add_function(wrap_pyfunction!(api::parse_case, m)?)?;
    m.add_function(wrap_pyfunction!(api::parse_cases, m)?)?;
    m.add_function(wrap_pyfunction!(api::list_variants, m)?)?;
    m.add_function(wrap_pyfunction!(api::legal, m)?)?;
    m.add_function(wrap_pyfunction!(api::illegal_reason, m)?)?;
    m.add_function(wrap_pyfunction!(api::canonical, m)?)?;
    m.add_function(wrap_pyfunction!(api::format_facts, m)?)?;
    m.add_function(wrap_pyfunction!(api::decode_bits, m)?)?;
    m.add("SEMANTICS_VERSION", ptx_cvt::SEMANTICS_VERSION)?;
    m.add_function(wrap_pyfunction!(arrays::convert_bits, m)?)?;
    m.add_function(wrap_pyfunction!(arrays::operand_registers, m)?)?;
    m.add_function(wrap_pyfunction!(arrays::_bench_evaluate_batch, m)?)?;
    m.add_function(wrap_pyfunction!(arrays::_bench_rust_same_work, m)?)?;
    Ok(())
}
