//! Modules and launches: loading `ptx-cvt ptx` text (checked by
//! [`crate::module`]) and running a kernel's threads on the CPU.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Arc;

use ptx_cvt::fast::Plan;
use ptx_cvt::Operand;

use crate::faults::Faults;
use crate::module;
use crate::{
    need_context, say, state, CUresult, State, ILLEGAL_ADDRESS, INVALID_HANDLE, INVALID_VALUE, LAUNCH_FAILED,
    LAUNCH_OUT_OF_RESOURCES, NOT_FOUND, SUCCESS, UNKNOWN,
};

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
