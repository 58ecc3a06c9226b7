"""The emulator API the README's module driver is written for
(`load_module(text)`, `Module.launch(name, grid, block, args)`,
`buffer(data)`), here on the CUDA driver API, so that tests/module_protocol.rs
can run that driver exactly as printed on the stand-in driver."""

import ctypes as C

cu = C.CDLL("libcuda.so")
P, U64, U32 = C.c_void_p, C.c_uint64, C.c_uint
cu.cuModuleLoadData.argtypes = [C.POINTER(P), C.c_char_p]
cu.cuModuleGetFunction.argtypes = [C.POINTER(P), P, C.c_char_p]
cu.cuMemAlloc_v2.argtypes = [C.POINTER(U64), C.c_size_t]
cu.cuMemcpyHtoD_v2.argtypes = [U64, C.c_char_p, C.c_size_t]
cu.cuMemcpyDtoH_v2.argtypes = [P, U64, C.c_size_t]
cu.cuLaunchKernel.argtypes = [P] + [U32] * 7 + [P, C.POINTER(P), C.POINTER(P)]


def _check(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: CUDA error {rc}")


_dev, _ctx = C.c_int(), P()
_check(cu.cuInit(0), "cuInit")
_check(cu.cuDeviceGet(C.byref(_dev), 0), "cuDeviceGet")
_check(cu.cuDevicePrimaryCtxRetain(C.byref(_ctx), _dev), "cuDevicePrimaryCtxRetain")
_check(cu.cuCtxSetCurrent(_ctx), "cuCtxSetCurrent")


class buffer:
    def __init__(self, data):
        self.size, self.ptr = len(data), U64()
        _check(cu.cuMemAlloc_v2(C.byref(self.ptr), max(self.size, 1)), "cuMemAlloc")
        _check(cu.cuMemcpyHtoD_v2(self.ptr, bytes(data), self.size), "cuMemcpyHtoD")

    def __bytes__(self):
        out = C.create_string_buffer(max(self.size, 1))
        _check(cu.cuMemcpyDtoH_v2(out, self.ptr, self.size), "cuMemcpyDtoH")
        return out.raw[: self.size]


class Module:
    def __init__(self, handle):
        self.handle = handle

    def launch(self, name, grid, block, args):
        fn = P()
        _check(cu.cuModuleGetFunction(C.byref(fn), self.handle, name.encode()), "cuModuleGetFunction")
        values = [U64(a.ptr.value) if isinstance(a, buffer) else U32(a) for a in args]
        params = (P * len(values))(*[C.cast(C.pointer(v), P) for v in values])
        _check(cu.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, None, params, None), "cuLaunchKernel")
        _check(cu.cuCtxSynchronize(), "cuCtxSynchronize")


def load_module(text):
    handle = P()
    rc = cu.cuModuleLoadData(C.byref(handle), text.encode() + b"\0")
    if rc != 0:
        raise RuntimeError(f"myemu cannot load the module:\n  CUDA error {rc}")
    return Module(handle)
