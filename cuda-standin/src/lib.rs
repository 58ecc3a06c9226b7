//! A stand-in for the CUDA driver library (`libcuda.so`) that runs the
//! kernels of `ptx-cvt ptx` on the CPU, so that `ptx-cvt gpu` and
//! `scripts/gpu-check.sh` can be tested end to end on machines without a GPU.
//!
//! It exports the part of the driver API that `ptx-cvt gpu` reaches through
//! cudarc (which resolves each symbol by name at its first call). Found by
//! running against it (`LD_DEBUG=bindings`), cudarc 0.19 calls: cuInit,
//! cuDriverGetVersion, cuDeviceGet, cuDeviceGetName, cuDeviceGetAttribute,
//! cuDevicePrimaryCtxRetain/Release_v2, cuCtxGetCurrent/SetCurrent,
//! cuModuleLoadData, cuModuleLoadDataEx (our JIT log), cuModuleGetFunction,
//! cuModuleUnload, cuMemAllocAsync, cuMemFreeAsync, cuMemsetD8Async,
//! cuMemcpyHtoDAsync_v2, cuMemcpyDtoHAsync_v2, cuLaunchKernel,
//! cuStreamSynchronize, cuEventCreate, cuEventDestroy_v2, cuGetErrorString;
//! the synchronous and other entry points here cover cudarc's other paths
//! (a device without memory pools, events). Install it
//! under the name cudarc looks for first and put its folder on the loader's
//! path:
//!
//! ```sh
//! cargo build -p ptx-cvt-cuda-standin
//! mkdir -p /tmp/standin && cp target/debug/libptx_cvt_cuda_standin.so /tmp/standin/libcuda.so
//! LD_LIBRARY_PATH=/tmp/standin ptx-cvt gpu --exhaustive --filter 'cvt.f32.f16'
//! ```
//!
//! What it checks: a module must be one `ptx-cvt ptx` emits for this device
//! (`.target` not above the device, `.version` not above the JIT's, every
//! instruction legal there, the header table equal to the bodies); a launch
//! must pass, in the kernel's declared `.param` order, a pointer into a live
//! allocation holding `n` elements of the register width for every array and
//! `n` by value, with a legal launch shape. Each violation fails the call and
//! is explained on stderr (`cuda-standin: ...`). What it computes: each
//! thread `i < n` (of `grid.x * block.x`) evaluates the `cvt` its kernel body
//! names with the fast engine (`ptx_cvt::fast`, independent of the exact
//! engine that `ptx-cvt gpu` checks against), writing the set's
//! representative (canonical NaN where any NaN is allowed).
//!
//! Faults to inject: `PTX_CVT_STANDIN_FAULTS`, see [`faults`].

#![allow(non_snake_case, clippy::missing_safety_doc)]

mod faults;
mod module;

use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use ptx_cvt::fast::Plan;
use ptx_cvt::Operand;

use faults::Faults;
use module::Kernel;

type CUresult = c_uint;
const SUCCESS: CUresult = 0;
const INVALID_VALUE: CUresult = 1;
const OUT_OF_MEMORY: CUresult = 2;
const NOT_INITIALIZED: CUresult = 3;
const INVALID_DEVICE: CUresult = 101;
const INVALID_HANDLE: CUresult = 400;
const NOT_FOUND: CUresult = 500;
const ILLEGAL_ADDRESS: CUresult = 700;
const LAUNCH_OUT_OF_RESOURCES: CUresult = 701;
const LAUNCH_FAILED: CUresult = 719;
const UNKNOWN: CUresult = 999;

/// The device memory the stand-in reports when no `oom=` fault limits it.
const MEMORY: usize = 141 << 30;

struct State {
    faults: Faults,
    initialised: bool,
    /// Device allocations by base address (addresses are not host pointers).
    memory: BTreeMap<u64, Vec<u8>>,
    used: usize,
    next_address: u64,
    modules: HashMap<usize, Vec<Arc<Kernel>>>,
    functions: Vec<Arc<Kernel>>,
    next_handle: usize,
    /// A device fault that every later call reports, as on hardware.
    sticky: Option<CUresult>,
}

fn state() -> MutexGuard<'static, State> {
    static STATE: OnceLock<Mutex<State>> = OnceLock::new();
    let m = STATE.get_or_init(|| {
        let faults = Faults::from_env().unwrap_or_else(|e| {
            say(&e);
            std::process::exit(2)
        });
        Mutex::new(State {
            faults,
            initialised: false,
            memory: BTreeMap::new(),
            used: 0,
            next_address: 0x7f00_0000_0000,
            modules: HashMap::new(),
            functions: Vec::new(),
            next_handle: 1,
            sticky: None,
        })
    });
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A diagnostic on stderr (never a panic: these run inside `extern "C"` calls).
fn say(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "cuda-standin: {msg}");
}

/// The context handle (one device, one primary context).
const CONTEXT: usize = 0xc0;

impl State {
    /// The error a call must return before doing anything, if any.
    fn gate(&self) -> Option<CUresult> {
        if !self.initialised {
            return Some(NOT_INITIALIZED);
        }
        self.sticky
    }

    /// The allocation holding `[address, address + len)`, as (base, offset).
    fn locate(&self, address: u64, len: usize) -> Option<(u64, usize)> {
        let (base, buf) = self.memory.range(..=address).next_back()?;
        let off = (address - base) as usize;
        (off + len <= buf.len()).then_some((*base, off))
    }

    fn alloc(&mut self, bytes: usize) -> Result<u64, CUresult> {
        let limit = self.faults.memory.unwrap_or(MEMORY);
        if bytes == 0 {
            return Err(INVALID_VALUE);
        }
        if self.used + bytes > limit {
            say(&format!("out of memory: {bytes} bytes asked, {} of {limit} in use", self.used));
            return Err(OUT_OF_MEMORY);
        }
        let address = self.next_address;
        self.next_address += (bytes as u64).div_ceil(256) * 256 + 256;
        self.memory.insert(address, vec![0xa5; bytes]);
        self.used += bytes;
        Ok(address)
    }

    fn free(&mut self, address: u64) -> CUresult {
        match self.memory.remove(&address) {
            Some(b) => {
                self.used -= b.len();
                SUCCESS
            }
            None => INVALID_VALUE,
        }
    }
}

macro_rules! gate {
    ($s:expr) => {
        if let Some(e) = $s.gate() {
            return e;
        }
    };
}

#[no_mangle]
pub extern "C" fn cuInit(_flags: c_uint) -> CUresult {
    state().initialised = true;
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(v: *mut c_int) -> CUresult {
    *v = 13000;
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(n: *mut c_int) -> CUresult {
    gate!(state());
    *n = 1;
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(d: *mut c_int, ordinal: c_int) -> CUresult {
    gate!(state());
    if ordinal != 0 {
        return INVALID_DEVICE;
    }
    *d = 0;
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, _d: c_int) -> CUresult {
    gate!(state());
    let text = b"ptx-cvt CUDA stand-in (CPU)\0";
    if len < text.len() as c_int {
        return INVALID_VALUE;
    }
    std::ptr::copy_nonoverlapping(text.as_ptr() as *const c_char, name, text.len());
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(v: *mut c_int, attribute: c_int, _d: c_int) -> CUresult {
    let s = state();
    gate!(s);
    *v = match attribute {
        1 => 1024,           // max threads per block
        2 => 1024,           // max block dim x
        3 => 1024,           // max block dim y
        4 => 64,             // max block dim z
        5 => i32::MAX,       // max grid dim x
        6 | 7 => 65535,      // max grid dim y, z
        16 => 132,           // multiprocessors
        75 => s.faults.cc.0, // compute capability major
        76 => s.faults.cc.1, // compute capability minor
        115 => 1,            // memory pools, as on an H200: cudarc allocates with cuMemAllocAsync
        _ => 0,
    };
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, _d: c_int) -> CUresult {
    let s = state();
    gate!(s);
    *bytes = s.faults.memory.unwrap_or(MEMORY);
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    let s = state();
    gate!(s);
    let t = s.faults.memory.unwrap_or(MEMORY);
    *free = t - s.used;
    *total = t;
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(ctx: *mut *mut c_void, d: c_int) -> CUresult {
    gate!(state());
    if d != 0 {
        return INVALID_DEVICE;
    }
    *ctx = CONTEXT as *mut c_void;
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(_d: c_int) -> CUresult {
    SUCCESS
}

thread_local! {
    static CURRENT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(ctx: *mut *mut c_void) -> CUresult {
    gate!(state());
    *ctx = CURRENT.with(|c| c.get()) as *mut c_void;
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cuCtxSetCurrent(ctx: *mut c_void) -> CUresult {
    gate!(state());
    if !ctx.is_null() && ctx as usize != CONTEXT {
        return INVALID_HANDLE;
    }
    CURRENT.with(|c| c.set(ctx as usize));
    SUCCESS
}

/// Calls that need a current context: fail like the driver without one.
fn need_context(s: &State) -> Result<(), CUresult> {
    if let Some(e) = s.gate() {
        return Err(e);
    }
    if CURRENT.with(|c| c.get()) != CONTEXT {
        say("a call that needs a context came with none current");
        return Err(201); // CUDA_ERROR_INVALID_CONTEXT
    }
    Ok(())
}

macro_rules! ctx {
    ($s:expr) => {
        if let Err(e) = need_context(&$s) {
            return e;
        }
    };
}

#[no_mangle]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    ctx!(state());
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cuStreamSynchronize(_s: *mut c_void) -> CUresult {
    ctx!(state());
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(st: *mut *mut c_void, _flags: c_uint) -> CUresult {
    let mut s = state();
    ctx!(s);
    s.next_handle += 1;
    *st = (s.next_handle << 4) as *mut c_void;
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cuStreamDestroy_v2(_s: *mut c_void) -> CUresult {
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cuStreamWaitEvent(_s: *mut c_void, _e: *mut c_void, _flags: c_uint) -> CUresult {
    ctx!(state());
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(e: *mut *mut c_void, _flags: c_uint) -> CUresult {
    let mut s = state();
    ctx!(s);
    s.next_handle += 1;
    *e = (s.next_handle << 4) as *mut c_void;
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cuEventRecord(_e: *mut c_void, _s: *mut c_void) -> CUresult {
    ctx!(state());
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cuEventSynchronize(_e: *mut c_void) -> CUresult {
    ctx!(state());
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cuEventQuery(_e: *mut c_void) -> CUresult {
    ctx!(state());
    SUCCESS
}

#[no_mangle]
pub extern "C" fn cuEventDestroy_v2(_e: *mut c_void) -> CUresult {
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(p: *mut u64, bytes: usize) -> CUresult {
    let mut s = state();
    ctx!(s);
    match s.alloc(bytes) {
        Ok(a) => {
            *p = a;
            SUCCESS
        }
        Err(e) => e,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocAsync(p: *mut u64, bytes: usize, _s: *mut c_void) -> CUresult {
    cuMemAlloc_v2(p, bytes)
}

#[no_mangle]
pub extern "C" fn cuMemFree_v2(p: u64) -> CUresult {
    // Freeing works after a device fault, as cudarc's destructors expect.
    state().free(p)
}

#[no_mangle]
pub extern "C" fn cuMemFreeAsync(p: u64, _s: *mut c_void) -> CUresult {
    cuMemFree_v2(p)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8_v2(p: u64, value: u8, n: usize) -> CUresult {
    let mut s = state();
    ctx!(s);
    let Some((base, off)) = s.locate(p, n) else {
        say(&format!("memset of {n} bytes at {p:#x}: not inside one allocation"));
        return INVALID_VALUE;
    };
    s.memory.get_mut(&base).expect("located")[off..off + n].fill(value);
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8Async(p: u64, value: u8, n: usize, _s: *mut c_void) -> CUresult {
    cuMemsetD8_v2(p, value, n)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, n: usize) -> CUresult {
    let mut s = state();
    ctx!(s);
    let Some((base, off)) = s.locate(dst, n) else {
        say(&format!("copy of {n} bytes to {dst:#x}: not inside one allocation"));
        return INVALID_VALUE;
    };
    let from = std::slice::from_raw_parts(src as *const u8, n);
    s.memory.get_mut(&base).expect("located")[off..off + n].copy_from_slice(from);
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(dst: u64, src: *const c_void, n: usize, _s: *mut c_void) -> CUresult {
    cuMemcpyHtoD_v2(dst, src, n)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: u64, n: usize) -> CUresult {
    let s = state();
    ctx!(s);
    let Some((base, off)) = s.locate(src, n) else {
        say(&format!("copy of {n} bytes from {src:#x}: not inside one allocation"));
        return INVALID_VALUE;
    };
    std::ptr::copy_nonoverlapping(s.memory[&base][off..].as_ptr(), dst as *mut u8, n);
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: u64, n: usize, _s: *mut c_void) -> CUresult {
    cuMemcpyDtoH_v2(dst, src, n)
}

/// Load a module; with `log`, the reason for a failure is also written there
/// (as the driver's JIT error log would be).
unsafe fn load(m: *mut *mut c_void, image: *const c_void, log: Option<(*mut c_char, usize)>) -> CUresult {
    let mut s = state();
    ctx!(s);
    let text = CStr::from_ptr(image as *const c_char).to_string_lossy();
    let (cc, max) = ((s.faults.cc.0 * 10 + s.faults.cc.1) as u32, s.faults.ptx_max);
    let result = module::load(&text, cc, max).and_then(|kernels| {
        let hit = kernels.iter().find(|k| Faults::names(&s.faults.load, &k.name, &k.cvt.to_string()));
        if s.faults.load_all {
            return Err((module::CUDA_ERROR_INVALID_PTX, "injected fault `load`".into()));
        }
        if let Some(k) = hit {
            return Err((module::CUDA_ERROR_INVALID_PTX, format!("injected fault `load={}`", k.name)));
        }
        Ok(kernels)
    });
    match result {
        Ok(kernels) => {
            s.next_handle += 1;
            let h = s.next_handle << 4;
            s.modules.insert(h, kernels.into_iter().map(Arc::new).collect());
            *m = h as *mut c_void;
            SUCCESS
        }
        Err((code, msg)) => {
            say(&format!("module load: {msg}"));
            if let Some((buf, size)) = log.filter(|(b, n)| !b.is_null() && *n > 0) {
                let bytes = format!("ptx-cvt CUDA stand-in JIT: {msg}");
                let k = bytes.len().min(size - 1);
                std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, buf, k);
                *buf.add(k) = 0;
            }
            code
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(m: *mut *mut c_void, image: *const c_void) -> CUresult {
    load(m, image, None)
}

/// Only the JIT options `ptx-cvt gpu` uses are read: the error log buffer (5)
/// and its size (6); the others are accepted and ignored.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    m: *mut *mut c_void,
    image: *const c_void,
    n: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
) -> CUresult {
    let mut buf = std::ptr::null_mut();
    let mut size = 0usize;
    for i in 0..n as usize {
        match *options.add(i) {
            5 => buf = *values.add(i) as *mut c_char,
            6 => size = *values.add(i) as usize,
            _ => {}
        }
    }
    load(m, image, Some((buf, size)))
}

#[no_mangle]
pub extern "C" fn cuModuleUnload(m: *mut c_void) -> CUresult {
    match state().modules.remove(&(m as usize)) {
        Some(_) => SUCCESS,
        None => INVALID_HANDLE,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(f: *mut *mut c_void, m: *mut c_void, name: *const c_char) -> CUresult {
    let mut s = state();
    ctx!(s);
    let name = CStr::from_ptr(name).to_string_lossy();
    let Some(k) = s.modules.get(&(m as usize)).and_then(|ks| ks.iter().find(|k| k.name == name)).cloned() else {
        return NOT_FOUND;
    };
    s.functions.push(k);
    *f = s.functions.len() as *mut c_void;
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernel(
    f: *mut c_void,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    _stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let mut s = state();
    ctx!(s);
    let Some(k) = (f as usize).checked_sub(1).and_then(|i| s.functions.get(i)).cloned() else {
        return INVALID_HANDLE;
    };
    let fail = |code: CUresult, msg: String| {
        say(&format!("launch {}: {msg}", k.name));
        code
    };
    if !extra.is_null() || params.is_null() {
        return fail(INVALID_VALUE, "parameters must come as kernelParams (extra unused)".into());
    }
    let threads = bx as u64 * by as u64 * bz as u64;
    if gx == 0 || gy == 0 || gz == 0 || threads == 0 || threads > 1024 || bz > 64 || gy > 65535 || gz > 65535 {
        return fail(INVALID_VALUE, format!("launch shape grid ({gx},{gy},{gz}) block ({bx},{by},{bz}) is not legal"));
    }
    if shared > 48 << 10 {
        return fail(INVALID_VALUE, format!("{shared} bytes of dynamic shared memory"));
    }
    let instruction = k.cvt.to_string();
    if Faults::names(&s.faults.abort, &k.name, &instruction) {
        // Exit at once, status 137 as after SIGKILL (no destructors run; no core file).
        say(&format!("launch {}: injected fault `abort`: the process ends now", k.name));
        std::process::exit(137);
    }
    if Faults::names(&s.faults.launch, &k.name, &instruction) {
        return fail(LAUNCH_OUT_OF_RESOURCES, "injected fault `launch`".into());
    }
    // Each declared parameter, read at its declared size, in declared order.
    let values: Vec<u64> = k
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let at = *params.add(i) as *const u8;
            let mut b = [0u8; 8];
            std::ptr::copy_nonoverlapping(at, b.as_mut_ptr(), p.bytes);
            u64::from_le_bytes(b)
        })
        .collect();
    let n = values[k.count] as usize;
    let mut arrays = Vec::new();
    for (i, (p, v)) in k.params.iter().zip(&values).enumerate().filter(|(_, (p, _))| p.pointer) {
        let width = if i == k.output.0 { k.output.1 } else { k.inputs.iter().find(|x| x.0 == i).map_or(0, |x| x.1) };
        let bytes = n * width as usize / 8;
        match s.locate(*v, bytes.max(1)) {
            Some(loc) => arrays.push((i, loc, bytes)),
            None => {
                s.sticky = Some(ILLEGAL_ADDRESS);
                return fail(
                    ILLEGAL_ADDRESS,
                    format!(
                        "parameter {} ({:#x}) does not point to {n} elements of {width} bits in one allocation",
                        p.name, v
                    ),
                );
            }
        }
    }
    let out = arrays.iter().find(|a| a.0 == k.output.0).expect("output is a pointer").1;
    if arrays.iter().any(|a| a.0 != k.output.0 && a.1 .0 == out.0) {
        return fail(INVALID_VALUE, "an input array shares its allocation with the output".into());
    }
    if Faults::names(&s.faults.trap, &k.name, &instruction) {
        s.sticky = Some(LAUNCH_FAILED);
        return fail(LAUNCH_FAILED, "injected fault `trap` (sticky)".into());
    }
    let plan = match Plan::new(&k.cvt, k.inputs.first().map_or(0, |x| x.1), k.output.1) {
        Ok(p) => p,
        Err(e) => return fail(UNKNOWN, format!("fast engine: {e}")),
    };
    let read = |s: &State, param: usize, width: u32, lane: usize| -> u64 {
        let (base, off) = arrays.iter().find(|a| a.0 == param).expect("a pointer").1;
        let b = width as usize / 8;
        let mut w = [0u8; 8];
        w[..b].copy_from_slice(&s.memory[&base][off + lane * b..off + (lane + 1) * b]);
        u64::from_le_bytes(w)
    };
    let lanes = n.min(gx as usize * bx as usize);
    let mut results = Vec::with_capacity(lanes);
    for lane in 0..lanes {
        let ops: Vec<Operand> =
            k.inputs.iter().map(|&(p, w)| Operand { bits: read(&s, p, w, lane), width: w }).collect();
        let mut r = plan.eval(&ops).representative();
        if s.faults.wrong_lane == Some(lane as u64) {
            r ^= 1;
        }
        if lane == 0 && s.faults.wrong_width == Some(k.output.1) {
            r ^= 1 << (k.output.1 - 1);
        }
        results.push(r);
    }
    let b = k.output.1 as usize / 8;
    let buf = s.memory.get_mut(&out.0).expect("located");
    for (lane, r) in results.iter().enumerate() {
        buf[out.1 + lane * b..out.1 + (lane + 1) * b].copy_from_slice(&r.to_le_bytes()[..b]);
    }
    SUCCESS
}

fn error_text(e: CUresult) -> Option<(&'static CStr, &'static CStr)> {
    Some(match e {
        SUCCESS => (c"CUDA_SUCCESS", c"no error"),
        INVALID_VALUE => (c"CUDA_ERROR_INVALID_VALUE", c"invalid argument"),
        OUT_OF_MEMORY => (c"CUDA_ERROR_OUT_OF_MEMORY", c"out of memory"),
        NOT_INITIALIZED => (c"CUDA_ERROR_NOT_INITIALIZED", c"initialization error"),
        INVALID_DEVICE => (c"CUDA_ERROR_INVALID_DEVICE", c"invalid device ordinal"),
        201 => (c"CUDA_ERROR_INVALID_CONTEXT", c"invalid device context"),
        module::CUDA_ERROR_NO_BINARY_FOR_GPU => {
            (c"CUDA_ERROR_NO_BINARY_FOR_GPU", c"no kernel image is available for execution on the device")
        }
        module::CUDA_ERROR_INVALID_PTX => (c"CUDA_ERROR_INVALID_PTX", c"a PTX JIT compilation failed"),
        module::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => {
            (c"CUDA_ERROR_UNSUPPORTED_PTX_VERSION", c"the provided PTX was compiled with an unsupported toolchain.")
        }
        INVALID_HANDLE => (c"CUDA_ERROR_INVALID_HANDLE", c"invalid resource handle"),
        NOT_FOUND => (c"CUDA_ERROR_NOT_FOUND", c"named symbol not found"),
        ILLEGAL_ADDRESS => (c"CUDA_ERROR_ILLEGAL_ADDRESS", c"an illegal memory access was encountered"),
        LAUNCH_OUT_OF_RESOURCES => (c"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", c"too many resources requested for launch"),
        LAUNCH_FAILED => (c"CUDA_ERROR_LAUNCH_FAILED", c"unspecified launch failure"),
        UNKNOWN => (c"CUDA_ERROR_UNKNOWN", c"unknown error"),
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(e: CUresult, out: *mut *const c_char) -> CUresult {
    match error_text(e) {
        Some((name, _)) => {
            *out = name.as_ptr();
            SUCCESS
        }
        None => INVALID_VALUE,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(e: CUresult, out: *mut *const c_char) -> CUresult {
    match error_text(e) {
        Some((_, text)) => {
            *out = text.as_ptr();
            SUCCESS
        }
        None => INVALID_VALUE,
    }
}
