//! Error names and strings, as the driver gives them.

use std::ffi::{c_char, CStr};

use crate::module;
use crate::{
    CUresult, ILLEGAL_ADDRESS, INVALID_CONTEXT, INVALID_DEVICE, INVALID_HANDLE, INVALID_VALUE, LAUNCH_FAILED,
    LAUNCH_OUT_OF_RESOURCES, NOT_FOUND, NOT_INITIALIZED, OUT_OF_MEMORY, SUCCESS, UNKNOWN,
};

fn error_text(e: CUresult) -> Option<(&'static CStr, &'static CStr)> {
    Some(match e {
        SUCCESS => (c"CUDA_SUCCESS", c"no error"),
        INVALID_VALUE => (c"CUDA_ERROR_INVALID_VALUE", c"invalid argument"),
        OUT_OF_MEMORY => (c"CUDA_ERROR_OUT_OF_MEMORY", c"out of memory"),
        NOT_INITIALIZED => (c"CUDA_ERROR_NOT_INITIALIZED", c"initialization error"),
        INVALID_DEVICE => (c"CUDA_ERROR_INVALID_DEVICE", c"invalid device ordinal"),
        INVALID_CONTEXT => (c"CUDA_ERROR_INVALID_CONTEXT", c"invalid device context"),
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
