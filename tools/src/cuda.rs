//! The CUDA runner: open a device, load the kernels of `ptx-cvt ptx`, run
//! one variant's cases, return the destination registers. No checking and
//! no reporting here (that is the run loop's, for `gpu` and `check --device`).
//!
//! CUDA is loaded at run time through cudarc (`dynamic-loading`): a missing
//! `libcuda.so` is an error, not a crash. Tests put the stand-in driver of
//! `cuda-standin/` in its place.

use std::collections::BTreeMap;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use ptx_cvt::{Cvt, Operand, PtxVersion, Target};
use ptx_cvt_harness::{Answer, Implementation};

use crate::ptx::{module_of, Kernel};

/// The most cases one launch takes; a sweep larger than this (or one that
/// runs out of device memory) is split.
const MAX_CHUNK: usize = 1 << 24;
/// Halving a chunk after running out of memory stops here.
const MIN_CHUNK: usize = 1 << 10;

/// What the device says about itself, for the record.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    /// Compute capability (major, minor).
    pub cc: (i32, i32),
    /// `cuDriverGetVersion`, e.g. 13000 for CUDA 13.0.
    pub driver: i32,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "device {} {} (compute capability {}.{}, CUDA driver {}.{})",
            self.ordinal,
            self.name,
            self.cc.0,
            self.cc.1,
            self.driver / 1000,
            self.driver % 1000 / 10
        )
    }
}

/// A failed run of one variant.
#[derive(Debug)]
pub struct RunError {
    pub message: String,
    /// The device context is unusable afterwards (CUDA's "sticky" errors:
    /// a kernel faulted), so no further variant can run.
    pub sticky: bool,
}

/// An open device with its default stream.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    pub info: DeviceInfo,
}

/// The loaded kernels, and the variants whose kernel the driver refused.
pub struct Kernels {
    functions: BTreeMap<Cvt, CudaFunction>,
    pub failed: Vec<(Cvt, String)>,
}

impl Gpu {
    /// Open device `ordinal`; a missing driver library is an error, not a crash.
    pub fn open(ordinal: usize) -> Result<Gpu, String> {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r = std::panic::catch_unwind(|| CudaContext::new(ordinal));
        std::panic::set_hook(hook);
        let ctx = match r {
            Ok(Ok(ctx)) => ctx,
            Ok(Err(e)) => return Err(format!("CUDA device {ordinal}: {e}")),
            Err(_) => {
                return Err(
                    "no CUDA driver: libcuda could not be loaded (ptx-cvt gpu needs an NVIDIA GPU and driver)".into()
                )
            }
        };
        let e = |e: DriverError| format!("CUDA device {ordinal}: {e}");
        let cc = ctx.compute_capability().map_err(e)?;
        let name = ctx.name().map_err(e)?;
        let mut driver = 0;
        // SAFETY: cuDriverGetVersion writes one int.
        unsafe { sys::cuDriverGetVersion(&mut driver) }.result().map_err(e)?;
        let stream = ctx.default_stream();
        Ok(Gpu { ctx, stream, info: DeviceInfo { ordinal, name, cc, driver } })
    }

    /// Whether kernels for `target` can run here: an error for a device
    /// older than the target (or not exactly the target of an `a` form), a
    /// note for a newer one (the driver compiles the PTX for it).
    pub fn check_target(&self, target: Target) -> Result<Option<String>, String> {
        let t = target.to_string();
        let need: i32 = t.trim_start_matches("sm_").trim_end_matches('a').parse().unwrap_or(0);
        let have = self.info.cc.0 * 10 + self.info.cc.1;
        if have < need || (t.ends_with('a') && have != need) {
            return Err(format!("{}: kernels for {t} cannot run on it; give --target sm_{have} (or lower)", self.info));
        }
        Ok((have > need)
            .then(|| format!("{}: running {t} kernels; the driver compiles them for this device", self.info)))
    }

    /// Load the kernels as one module. If the driver refuses it, each kernel
    /// is loaded alone so that one bad kernel costs only its variant; an
    /// error only when none loads (with the driver's JIT log).
    pub fn load(&self, kernels: &[Kernel], target: Target, version: PtxVersion) -> Result<Kernels, String> {
        let text = module_of(kernels, target, version);
        let whole = self.ctx.load_module(Ptx::from_src(text.clone()));
        let mut loaded = Kernels { functions: BTreeMap::new(), failed: Vec::new() };
        let Err(first) = whole.as_ref() else {
            let m = whole.expect("checked");
            for k in kernels {
                let f = m.load_function(&k.name).map_err(|e| format!("{}: {e}", k.name))?;
                loaded.functions.insert(k.instr, f);
            }
            return Ok(loaded);
        };
        // These refuse the module as a whole: loading kernels one by one cannot help.
        let whole_module = matches!(
            first.0,
            sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION | sys::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU
        );
        if kernels.len() > 1 && !whole_module {
            for k in kernels {
                let one = module_of(std::slice::from_ref(k), target, version);
                match self.ctx.load_module(Ptx::from_src(one.clone())) {
                    Ok(m) => {
                        let f = m.load_function(&k.name).map_err(|e| format!("{}: {e}", k.name))?;
                        loaded.functions.insert(k.instr, f);
                    }
                    Err(e) => loaded.failed.push((k.instr, format!("loading its kernel: {e}{}", jit_log(&one)))),
                }
            }
        }
        if loaded.functions.is_empty() {
            return Err(format!("loading the PTX module: {first}{}", jit_log(&text)));
        }
        Ok(loaded)
    }

    /// Run variant `k` on `columns` (one column per source operand, each
    /// `n` values in the operand's register width): the `n` destination
    /// registers, in order. Large runs go in chunks; a chunk that finds too
    /// little device memory is halved and tried again.
    pub fn run(&self, kernels: &Kernels, k: &Kernel, columns: &[Vec<u64>]) -> Result<Vec<u64>, RunError> {
        let f = kernels
            .functions
            .get(&k.instr)
            .ok_or_else(|| RunError { message: "its kernel is not loaded".into(), sticky: false })?;
        let n = columns.first().map_or(0, Vec::len);
        let mut out = Vec::with_capacity(n);
        let mut chunk = MAX_CHUNK;
        while out.len() < n {
            let range = out.len()..n.min(out.len() + chunk);
            let part: Vec<&[u64]> = columns.iter().map(|c| &c[range.clone()]).collect();
            match self.launch(f, k, &part) {
                Ok(r) => out.extend(r),
                Err(e)
                    if e == DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY)
                        && range.len().div_ceil(2) >= MIN_CHUNK =>
                {
                    chunk = range.len().div_ceil(2);
                    eprintln!(
                        "note: {}: out of device memory for {} cases at once; trying {chunk}",
                        k.instr,
                        range.len()
                    );
                }
                Err(e) => {
                    return Err(RunError { message: e.to_string(), sticky: is_sticky(e) });
                }
            }
        }
        Ok(out)
    }

    /// One launch over `part` (one slice per operand, equal lengths).
    fn launch(&self, f: &CudaFunction, k: &Kernel, part: &[&[u64]]) -> Result<Vec<u64>, DriverError> {
        let n = part.first().map_or(0, |c| c.len());
        let inputs: Vec<Buf> =
            part.iter().zip(&k.src_widths).map(|(c, w)| Buf::upload(&self.stream, *w, c)).collect::<Result<_, _>>()?;
        let mut out = Buf::zeros(&self.stream, k.dst_width, n)?;
        let count = n as u32;
        {
            let mut b = self.stream.launch_builder(f);
            for buf in &inputs {
                buf.push(&mut b);
            }
            out.push_mut(&mut b);
            b.arg(&count);
            // SAFETY: the kernel's parameters are the input pointers, the output
            // pointer and n, in that order (`ptx-cvt ptx`), and every buffer
            // holds n elements of its operand's register width.
            unsafe { b.launch(LaunchConfig::for_num_elems(count)) }?;
        }
        self.stream.synchronize()?;
        out.download(&self.stream)
    }
}

/// CUDA errors after which the context cannot be used again (the driver
/// API documentation marks these "sticky").
fn is_sticky(e: DriverError) -> bool {
    use sys::CUresult::*;
    matches!(
        e.0,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_ECC_UNCORRECTABLE
            | CUDA_ERROR_CONTEXT_IS_DESTROYED
    )
}

/// The JIT's error log for a module that fails to load (`""` when the
/// driver gives none), as a continuation of an error message.
fn jit_log(text: &str) -> String {
    let Ok(src) = std::ffi::CString::new(text) else { return String::new() };
    let mut log = vec![0u8; 16 << 10];
    let mut options =
        [sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER, sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
    let mut values = [log.as_mut_ptr() as *mut std::ffi::c_void, log.len() as *mut std::ffi::c_void];
    let mut module = std::ptr::null_mut();
    // SAFETY: the options name a buffer and its size, both valid for the call;
    // a module that loads after all is unloaded at once.
    let r = unsafe {
        sys::cuModuleLoadDataEx(&mut module, src.as_ptr() as *const _, 2, options.as_mut_ptr(), values.as_mut_ptr())
    };
    if r == sys::CUresult::CUDA_SUCCESS {
        // SAFETY: the module was just loaded and nothing else holds it.
        unsafe { sys::cuModuleUnload(module) };
        return String::new();
    }
    let end = log.iter().position(|b| *b == 0).unwrap_or(log.len());
    let text = String::from_utf8_lossy(&log[..end]);
    let text = text.trim();
    if text.is_empty() {
        String::new()
    } else {
        format!("\n  JIT log: {}", text.replace('\n', "\n           "))
    }
}

/// A device buffer of one register width.
enum Buf {
    B8(CudaSlice<u8>),
    B16(CudaSlice<u16>),
    B32(CudaSlice<u32>),
    B64(CudaSlice<u64>),
}

impl Buf {
    fn upload(s: &Arc<CudaStream>, width: u32, v: &[u64]) -> Result<Buf, DriverError> {
        Ok(match width {
            8 => Buf::B8(s.clone_htod(&v.iter().map(|x| *x as u8).collect::<Vec<_>>())?),
            16 => Buf::B16(s.clone_htod(&v.iter().map(|x| *x as u16).collect::<Vec<_>>())?),
            32 => Buf::B32(s.clone_htod(&v.iter().map(|x| *x as u32).collect::<Vec<_>>())?),
            _ => Buf::B64(s.clone_htod(v)?),
        })
    }

    fn zeros(s: &Arc<CudaStream>, width: u32, n: usize) -> Result<Buf, DriverError> {
        Ok(match width {
            8 => Buf::B8(s.alloc_zeros(n)?),
            16 => Buf::B16(s.alloc_zeros(n)?),
            32 => Buf::B32(s.alloc_zeros(n)?),
            _ => Buf::B64(s.alloc_zeros(n)?),
        })
    }

    fn push<'a>(&'a self, b: &mut cudarc::driver::LaunchArgs<'a>) {
        match self {
            Buf::B8(d) => b.arg(d),
            Buf::B16(d) => b.arg(d),
            Buf::B32(d) => b.arg(d),
            Buf::B64(d) => b.arg(d),
        };
    }

    fn push_mut<'a>(&'a mut self, b: &mut cudarc::driver::LaunchArgs<'a>) {
        match self {
            Buf::B8(d) => b.arg(d),
            Buf::B16(d) => b.arg(d),
            Buf::B32(d) => b.arg(d),
            Buf::B64(d) => b.arg(d),
        };
    }

    fn download(&self, s: &Arc<CudaStream>) -> Result<Vec<u64>, DriverError> {
        Ok(match self {
            Buf::B8(d) => s.clone_dtoh(d)?.into_iter().map(u64::from).collect(),
            Buf::B16(d) => s.clone_dtoh(d)?.into_iter().map(u64::from).collect(),
            Buf::B32(d) => s.clone_dtoh(d)?.into_iter().map(u64::from).collect(),
            Buf::B64(d) => s.clone_dtoh(d)?,
        })
    }
}

/// The CUDA runner as an implementation under test (`--device`, `gpu`):
/// each batch of one instruction is one launch of its kernel (in chunks when
/// large). Only natural register widths run; other cases are declined, as are
/// variants whose kernel the driver refuses. A device fault is an adapter error.
pub struct GpuImpl {
    gpu: Gpu,
    target: Target,
    version: Option<PtxVersion>,
    /// Each variant's kernel, or why the driver refused it.
    loaded: BTreeMap<Cvt, Result<Kernel, String>>,
    functions: Kernels,
    /// The last batch's failed launch, if it failed: `gpu` reports its
    /// message bare and stops the run after a sticky one.
    pub failure: Option<RunError>,
    /// Time spent running kernels (launches, copies, waiting for the device).
    pub device_time: std::time::Duration,
}

impl GpuImpl {
    /// `version`: the kernels' `.version`; `None`: the oldest each form needs on `target`.
    pub fn open(ordinal: usize, target: Target, version: Option<PtxVersion>) -> Result<GpuImpl, String> {
        let gpu = Gpu::open(ordinal)?;
        if let Some(note) = gpu.check_target(target)? {
            eprintln!("note: {note}");
        }
        Ok(GpuImpl::new(gpu, target, version))
    }

    fn new(gpu: Gpu, target: Target, version: Option<PtxVersion>) -> GpuImpl {
        let functions = Kernels { functions: BTreeMap::new(), failed: Vec::new() };
        GpuImpl {
            gpu,
            target,
            version,
            loaded: BTreeMap::new(),
            functions,
            failure: None,
            device_time: Default::default(),
        }
    }

    /// `kernels` loaded up front as one module of `.version` `version` (one
    /// JIT for a whole run: `gpu`); an error only when none loads.
    pub fn with_kernels(gpu: Gpu, kernels: &[Kernel], target: Target, version: PtxVersion) -> Result<GpuImpl, String> {
        let functions = gpu.load(kernels, target, version)?;
        let mut imp = GpuImpl::new(gpu, target, Some(version));
        for k in kernels {
            let refused = functions.failed.iter().find(|(c, _)| *c == k.instr);
            imp.loaded.insert(k.instr, refused.map_or(Ok(k.clone()), |(_, e)| Err(e.clone())));
        }
        imp.functions = functions;
        Ok(imp)
    }

    /// Why the driver refused `c`'s kernel, if it did.
    pub fn refused(&self, c: &Cvt) -> Option<&str> {
        self.loaded.get(c)?.as_ref().err().map(String::as_str)
    }

    /// `c`'s kernel, loaded on first use.
    fn kernel(&mut self, c: &Cvt) -> Result<Kernel, String> {
        let (gpu, target, functions) = (&self.gpu, self.target, &mut self.functions);
        let version = self.version;
        self.loaded
            .entry(*c)
            .or_insert_with(|| {
                let k = crate::ptx::kernels(&[*c]).remove(0);
                let one = std::slice::from_ref(&k);
                let loaded =
                    gpu.load(one, target, ptx_cvt_harness::ptx_kernels::module_version(one, target, version))?;
                if let Some((_, e)) = loaded.failed.first() {
                    return Err(e.clone());
                }
                functions.functions.extend(loaded.functions);
                Ok(k)
            })
            .clone()
    }
}

impl Implementation for GpuImpl {
    fn name(&self) -> String {
        match self.version {
            Some(v) => format!("GPU {} ({} kernels, PTX ISA {v})", self.gpu.info, self.target),
            None => format!("GPU {} ({} kernels)", self.gpu.info, self.target),
        }
    }

    fn eval(&mut self, c: &Cvt, operands: &[Operand], dst_width: u32) -> Result<Answer, String> {
        match self.eval_batch(c, &[(operands.to_vec(), dst_width)]) {
            (mut v, None) => Ok(v.remove(0)),
            (_, Some(e)) => Err(e),
        }
    }

    fn eval_batch(&mut self, c: &Cvt, cases: &[(Vec<Operand>, u32)]) -> (Vec<Answer>, Option<String>) {
        self.failure = None;
        let k = match self.kernel(c) {
            Ok(k) => k,
            Err(e) => {
                return (cases.iter().map(|_| Answer::Declined(format!("the driver refused: {e}"))).collect(), None)
            }
        };
        let natural = |(ops, w): &(Vec<Operand>, u32)| {
            *w == k.dst_width && ops.iter().map(|o| o.width).eq(k.src_widths.iter().copied())
        };
        let run: Vec<&(Vec<Operand>, u32)> = cases.iter().filter(|x| natural(x)).collect();
        let columns: Vec<Vec<u64>> =
            (0..k.src_widths.len()).map(|i| run.iter().map(|(ops, _)| ops[i].bits).collect()).collect();
        let t = std::time::Instant::now();
        let ran = self.gpu.run(&self.functions, &k, &columns);
        self.device_time += t.elapsed();
        let mut got = match ran {
            Ok(g) => g.into_iter(),
            Err(e) => {
                let message = format!("{c}: {}", e.message);
                self.failure = Some(e);
                return (Vec::new(), Some(message));
            }
        };
        let answers = cases
            .iter()
            .map(|x| match natural(x) {
                true => Answer::Bits(got.next().expect("one answer per case")),
                false => Answer::Declined("the GPU runner uses natural register widths only".into()),
            })
            .collect();
        (answers, None)
    }
}
