#!/usr/bin/env python3
"""A `--target-ptx` driver for the CUDA driver API (docs/checking.md, "The module
protocol"): each batch's module runs on device 0 through libcuda, that is a
GPU, or the CPU stand-in of cuda-standin/ put first on LD_LIBRARY_PATH.

    ptx-cvt check --target-ptx 'python3 examples/cuda-module-driver.py' FILES

A module the driver's JIT refuses declines its batch (`error: ...`, with the
JIT log); any other CUDA error ends the driver (reported as a crash).
$LIBCUDA names the library (default: libcuda.so, else libcuda.so.1)."""

import ctypes as C
import os
import sys


def load_libcuda():
    names = [os.environ["LIBCUDA"]] if os.environ.get("LIBCUDA") else ["libcuda.so", "libcuda.so.1"]
    for i, name in enumerate(names):
        try:
            return C.CDLL(name)
        except OSError:
            if i == len(names) - 1:
                raise


cu = load_libcuda()
P, U64, U32 = C.c_void_p, C.c_uint64, C.c_uint
cu.cuModuleLoadDataEx.argtypes = [C.POINTER(P), C.c_char_p, U32, C.POINTER(C.c_int), C.POINTER(P)]
cu.cuModuleGetFunction.argtypes = [C.POINTER(P), P, C.c_char_p]
cu.cuModuleUnload.argtypes = [P]
cu.cuMemAlloc_v2.argtypes = [C.POINTER(U64), C.c_size_t]
cu.cuMemFree_v2.argtypes = [U64]
cu.cuMemsetD8_v2.argtypes = [U64, C.c_ubyte, C.c_size_t]
cu.cuMemcpyHtoD_v2.argtypes = [U64, C.c_char_p, C.c_size_t]
cu.cuMemcpyDtoH_v2.argtypes = [P, U64, C.c_size_t]
cu.cuLaunchKernel.argtypes = [P] + [U32] * 7 + [P, C.POINTER(P), C.POINTER(P)]
cu.cuGetErrorName.argtypes = [C.c_int, C.POINTER(C.c_char_p)]


def check(rc, what):
    if rc != 0:
        name = C.c_char_p()
        cu.cuGetErrorName(rc, C.byref(name))
        raise RuntimeError(f"{what}: {(name.value or b'CUDA error').decode()} ({rc})")


def load_module(text):
    """The module, or None and the JIT's error log."""
    log = C.create_string_buffer(8192)
    opts = (C.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, ..._SIZE_BYTES
    vals = (P * 2)(C.cast(log, P), P(len(log)))
    module = P()
    rc = cu.cuModuleLoadDataEx(C.byref(module), text + b"\0", 2, opts, vals)
    if rc != 0:
        name = C.c_char_p()
        cu.cuGetErrorName(rc, C.byref(name))
        why = " ".join(log.value.decode(errors="replace").split())
        return None, f"{(name.value or b'').decode()} {why}".strip()
    return module, None


def run(folder):
    """Run one batch folder: `ok`, or `error: MESSAGE`."""
    lines = [l.split() for l in open(os.path.join(folder, "manifest.txt")) if l.strip()]
    info = {l[0]: l[1:] for l in lines}
    n = int(info["count"][0])
    module, why = load_module(open(os.path.join(folder, info["module"][0]), "rb").read())
    if module is None:
        return f"error: the JIT refused the module: {why}"
    fn = P()
    check(cu.cuModuleGetFunction(C.byref(fn), module, info["kernel"][0].encode()), "cuModuleGetFunction")
    values, buffers, out = [], [], None
    for kind, *rest in (l for l in lines if l[0] in ("input", "output", "scalar")):
        if kind == "scalar":
            values.append(U32(int(rest[2])))
            continue
        width, file = int(rest[1]), rest[2]
        size = max(n * width // 8, 1)
        ptr = U64()
        check(cu.cuMemAlloc_v2(C.byref(ptr), size), "cuMemAlloc")
        buffers.append(ptr)
        if kind == "input":
            data = open(os.path.join(folder, file), "rb").read()
            check(cu.cuMemcpyHtoD_v2(ptr, data, len(data)), "cuMemcpyHtoD")
        else:
            check(cu.cuMemsetD8_v2(ptr, 0, size), "cuMemsetD8")
            out = (ptr, n * width // 8, file)
        values.append(U64(ptr.value))
    params = (P * len(values))(*[C.cast(C.pointer(v), P) for v in values])
    check(cu.cuLaunchKernel(fn, (n + 255) // 256, 1, 1, 256, 1, 1, 0, None, params, None), "cuLaunchKernel")
    check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
    result = C.create_string_buffer(max(out[1], 1))
    check(cu.cuMemcpyDtoH_v2(result, out[0], out[1]), "cuMemcpyDtoH")
    with open(os.path.join(folder, out[2]), "wb") as f:
        f.write(result.raw[: out[1]])
    for ptr in buffers:
        cu.cuMemFree_v2(ptr)
    cu.cuModuleUnload(module)
    return "ok"


def main():
    check(cu.cuInit(0), "cuInit")
    dev, ctx = C.c_int(), P()
    check(cu.cuDeviceGet(C.byref(dev), 0), "cuDeviceGet")
    check(cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    for line in sys.stdin:
        print(run(line.strip()), flush=True)


if __name__ == "__main__":
    main()
