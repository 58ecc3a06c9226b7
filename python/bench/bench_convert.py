"""ptx_cvt.convert against the Rust batch API on the same work, in one run.

2^24 pseudo-random f32 register values through ``cvt.rn.f16.f32``:
``ptx_cvt.convert`` on a float32 array (NumPy in, uint16 out) against
``ptx_cvt::fast::evaluate_batch`` called once from Rust on the same values
as a uint64 slice (the API's own element type), its output buffer touched
beforehand. Prints the best of several repetitions of each and the ratio.

    python python/bench/bench_convert.py [--n-log2 24] [--repeats 7]
"""

import argparse
import time

import numpy as np

import ptx_cvt
from ptx_cvt import _ptx_cvt

INSTRUCTION = "cvt.rn.f16.f32"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-log2", type=int, default=24)
    p.add_argument("--repeats", type=int, default=7)
    a = p.parse_args()
    n = 1 << a.n_log2
    # Uniform over all 2^32 codes (NaNs included), seeded.
    bits = np.random.default_rng(1).integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    values = bits.view(np.float32)
    wide = bits.astype(np.uint64)

    py_times, rust_times = [], []
    for _ in range(a.repeats):
        t = time.perf_counter()
        out = ptx_cvt.convert(INSTRUCTION, values)
        py_times.append(time.perf_counter() - t)
        secs, rust_out = _ptx_cvt._bench_evaluate_batch(INSTRUCTION, wide)
        rust_times.append(secs)
    if not np.array_equal(out.astype(np.uint64), rust_out):
        raise SystemExit("convert and evaluate_batch disagree")
    py, rust = min(py_times), min(rust_times)
    print(f"{INSTRUCTION} over 2^{a.n_log2} f32 inputs, best of {a.repeats}:")
    print(f"  ptx_cvt.convert (float32 -> uint16)    {py * 1e3:8.2f} ms  {n / py / 1e6:8.0f} M/s")
    print(f"  fast::evaluate_batch (u64 -> u64)      {rust * 1e3:8.2f} ms  {n / rust / 1e6:8.0f} M/s")
    print(f"  ratio convert / evaluate_batch         {py / rust:8.2f}")


if __name__ == "__main__":
    main()
