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
//! Faults to inject: `PTX_CVT_STANDIN_FAULTS`, see the `faults` module (docs/gpu.md, "Testing the GPU path without a GPU").

#![allow(non_snake_case, clippy::missing_safety_doc)]

mod faults;
mod module;

use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use faults::Faults;
use module::Kernel;

type CUresult = c_uint;
const SUCCESS: CUresult = 0;
const INVALID_VALUE: CUresult = 1;
const OUT_OF_MEMORY: CUresult = 2;
const NOT_INITIALIZED: CUresult = 3;
const INVALID_DEVICE: CUresult = 101;
const INVALID_CONTEXT: CUresult = 201;
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
        return Err(INVALID_CONTEXT);
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

// After the macros above, which they use.
mod errors;
mod kernels;
