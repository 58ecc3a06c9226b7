//! `convert`: NumPy arrays of source registers through the fast engine, with
//! the GIL released. Single-operand forms at natural register widths run the
//! batch kernels on NumPy's buffers (`fast::evaluate_slice`, which takes
//! every register width); every other form runs the fast engine one element
//! at a time.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use ptx_cvt::{fast, instr, Cvt, Operand, Profile};

use crate::args::{self, eval_error, value_error};

/// Register values of one width, as NumPy holds them.
trait Reg: numpy::Element + fast::Word {}
impl<T: numpy::Element + fast::Word> Reg for T {}

/// One input array as a slice of its register width.
enum Input<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
}

impl Input<'_> {
    fn len(&self) -> usize {
        match self {
            Input::U8(s) => s.len(),
            Input::U16(s) => s.len(),
            Input::U32(s) => s.len(),
            Input::U64(s) => s.len(),
        }
    }
    fn width(&self) -> u32 {
        match self {
            Input::U8(_) => 8,
            Input::U16(_) => 16,
            Input::U32(_) => 32,
            Input::U64(_) => 64,
        }
    }
    #[inline(always)]
    fn get(&self, i: usize) -> u64 {
        match self {
            Input::U8(s) => s[i] as u64,
            Input::U16(s) => s[i] as u64,
            Input::U32(s) => s[i] as u64,
            Input::U64(s) => s[i],
        }
    }
}

/// A borrowed NumPy array of unsigned register values.
enum Borrowed<'py> {
    U8(PyReadonlyArray1<'py, u8>),
    U16(PyReadonlyArray1<'py, u16>),
    U32(PyReadonlyArray1<'py, u32>),
    U64(PyReadonlyArray1<'py, u64>),
}

impl<'py> Borrowed<'py> {
    fn of(i: usize, a: &Bound<'py, PyAny>) -> PyResult<Borrowed<'py>> {
        if let Ok(x) = a.extract() {
            return Ok(Borrowed::U8(x));
        }
        if let Ok(x) = a.extract() {
            return Ok(Borrowed::U16(x));
        }
        if let Ok(x) = a.extract() {
            return Ok(Borrowed::U32(x));
        }
        if let Ok(x) = a.extract() {
            return Ok(Borrowed::U64(x));
        }
        Err(value_error(format!(
            "operand {}: expected a 1-D array of uint8, uint16, uint32 or uint64 (register values), got {}",
            i + 1,
            a.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        )))
    }
    fn slice(&self) -> PyResult<Input<'_>> {
        let e = |_| value_error("operand arrays must be C-contiguous");
        Ok(match self {
            Borrowed::U8(a) => Input::U8(a.as_slice().map_err(e)?),
            Borrowed::U16(a) => Input::U16(a.as_slice().map_err(e)?),
            Borrowed::U32(a) => Input::U32(a.as_slice().map_err(e)?),
            Borrowed::U64(a) => Input::U64(a.as_slice().map_err(e)?),
        })
    }
}

/// The native half of ``ptx_cvt.convert`` (which handles dtypes and shapes):
/// 1-D contiguous unsigned arrays in, a 1-D array of destination registers
/// out, new or ``out`` (1-D, contiguous, of the destination width).
#[pyfunction]
#[pyo3(signature = (instruction, arrays, dst_width=None, profile="sm90", out=None))]
pub fn convert_bits<'py>(
    py: Python<'py>,
    instruction: &str,
    arrays: Vec<Bound<'py, PyAny>>,
    dst_width: Option<u32>,
    profile: &str,
    out: Option<Bound<'py, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let c = args::instruction(instruction)?;
    if args::profile(profile)? != Profile::Sm90 {
        return Err(value_error(
            "convert runs the fast engine, which implements the sm90 profile; \
             use evaluate or accepts for the isa profile",
        ));
    }
    let width = args::dst_width(&c, dst_width)?;
    let borrowed = arrays.iter().enumerate().map(|(i, a)| Borrowed::of(i, a)).collect::<PyResult<Vec<_>>>()?;
    let inputs = borrowed.iter().map(Borrowed::slice).collect::<PyResult<Vec<_>>>()?;
    let n = inputs.first().map_or(0, Input::len);
    if let Some((i, a)) = inputs.iter().enumerate().find(|(_, a)| a.len() != n) {
        return Err(value_error(format!("operand {} has {} elements, operand 1 has {n}", i + 1, a.len())));
    }
    // Legality, operand count and widths, checked once on zeros: every element
    // then has the same registers.
    let probe: Vec<Operand> = inputs.iter().map(|a| Operand { bits: 0, width: a.width() }).collect();
    fast::evaluate(&c, &probe, width).map_err(eval_error)?;
    match width {
        8 => run::<u8>(py, &c, &inputs, width, n, out),
        16 => run::<u16>(py, &c, &inputs, width, n, out),
        32 => run::<u32>(py, &c, &inputs, width, n, out),
        _ => run::<u64>(py, &c, &inputs, width, n, out),
    }
}

/// The caller's output array, checked, or a new one.
fn output<'py, O: Reg>(py: Python<'py>, n: usize, out: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyArray1<O>>> {
    let Some(out) = out else { return Ok(PyArray1::<O>::zeros(py, n, false)) };
    let bits = 8 * std::mem::size_of::<O>();
    let a = out
        .cast_into::<PyArray1<O>>()
        .map_err(|_| value_error(format!("out: expected a 1-D uint{bits} array (the destination register width)")))?;
    if a.len() != n {
        return Err(value_error(format!("out has {} elements, the operands {n}", a.len())));
    }
    Ok(a)
}

fn run<O: Reg>(
    py: Python<'_>,
    c: &Cvt,
    inputs: &[Input<'_>],
    width: u32,
    n: usize,
    out: Option<Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let out = output::<O>(py, n, out)?;
    {
        let mut rw =
            out.try_readwrite().map_err(|_| value_error("out must be writeable and not overlap an operand"))?;
        let dst = rw.as_slice_mut().map_err(|_| value_error("out must be C-contiguous"))?;
        let batch = inputs.len() == 1 && inputs[0].width() == c.atype.bits() && width == c.dtype.bits();
        py.detach(|| match (batch, inputs) {
            (true, [Input::U8(s)]) => fast::evaluate_slice(c, s, dst),
            (true, [Input::U16(s)]) => fast::evaluate_slice(c, s, dst),
            (true, [Input::U32(s)]) => fast::evaluate_slice(c, s, dst),
            (true, [Input::U64(s)]) => fast::evaluate_slice(c, s, dst),
            _ => one_by_one(c, inputs, width, dst),
        })
        .map_err(eval_error)?;
    }
    out.into_py_any(py)
}

fn one_by_one<O: Reg>(c: &Cvt, inputs: &[Input<'_>], width: u32, dst: &mut [O]) -> Result<(), ptx_cvt::EvalError> {
    let mut ops: Vec<Operand> = inputs.iter().map(|a| Operand { bits: 0, width: a.width() }).collect();
    for (i, o) in dst.iter_mut().enumerate() {
        for (op, a) in ops.iter_mut().zip(inputs) {
            op.bits = a.get(i);
        }
        *o = O::narrow(fast::evaluate(c, &ops, width)?.representative());
    }
    Ok(())
}

/// The source operands of a form, in order, as ``(name, register bits)``:
/// ``[("a", 32), ("b", 32)]`` for ``cvt.rn.satfinite.e4m3x2.f32``.
#[pyfunction]
pub fn operand_registers(instruction: &str) -> PyResult<Vec<(&'static str, u32)>> {
    let s = instr::shape(&args::instruction(instruction)?);
    Ok(s.names.iter().copied().zip(s.srcs.iter().copied()).collect())
}

/// For the benchmark (python/bench/): ``fast::evaluate_batch`` over a whole
/// uint64 array in one call, as a Rust program would call it; returns the
/// wall-clock and the thread CPU seconds it took, and the results.
#[pyfunction]
pub fn _bench_evaluate_batch<'py>(
    py: Python<'py>,
    instruction: &str,
    inputs: PyReadonlyArray1<'py, u64>,
) -> PyResult<(f64, f64, Bound<'py, PyArray1<u64>>)> {
    let c = args::instruction(instruction)?;
    let src = inputs.as_slice().map_err(|_| value_error("inputs must be C-contiguous"))?;
    let mut out = vec![0u64; inputs.len()];
    // Touched before timing, so the Rust side pays no page faults (the
    // Python side does, on its fresh output array).
    out.fill(u64::MAX);
    let times = py.detach(|| {
        let (t, cpu) = (std::time::Instant::now(), thread_cpu_seconds());
        fast::evaluate_batch(&c, src, &mut out).map(|()| (t.elapsed().as_secs_f64(), thread_cpu_seconds() - cpu))
    });
    let (wall, cpu) = times.map_err(eval_error)?;
    Ok((wall, cpu, PyArray1::from_vec(py, out)))
}

/// For the benchmark: the same work as ``convert`` on a uint32 array of a
/// form with a 16-bit destination, done by a Rust program with the slice
/// API: ``evaluate_slice`` from the ``&[u32]`` into a ``Vec<u16>`` allocated
/// and touched before timing (a program that reuses its buffer). Returns
/// wall-clock and thread CPU seconds, and the results.
#[pyfunction]
pub fn _bench_rust_same_work<'py>(
    py: Python<'py>,
    instruction: &str,
    inputs: PyReadonlyArray1<'py, u32>,
) -> PyResult<(f64, f64, Bound<'py, PyArray1<u16>>)> {
    let c = args::instruction(instruction)?;
    if c.dtype.bits() != 16 || c.atype.bits() != 32 {
        return Err(value_error("the benchmark helper takes 32-bit sources and 16-bit destinations"));
    }
    let src = inputs.as_slice().map_err(|_| value_error("inputs must be C-contiguous"))?;
    let mut out = vec![u16::MAX; src.len()];
    let run = py.detach(|| {
        let (t, cpu) = (std::time::Instant::now(), thread_cpu_seconds());
        fast::evaluate_slice(&c, src, &mut out)?;
        Ok::<_, ptx_cvt::EvalError>((t.elapsed().as_secs_f64(), thread_cpu_seconds() - cpu))
    });
    let (wall, cpu) = run.map_err(eval_error)?;
    Ok((wall, cpu, PyArray1::from_vec(py, out)))
}

/// CPU time of the calling thread (user and system), as Python's time.thread_time.
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
