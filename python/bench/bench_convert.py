"""ptx_cvt.convert against the Rust batch API on the same work, in one run.

2^24 pseudo-random f32 register values (all 2^32 codes equally likely)
through ``cvt.rn.f16.f32``, four ways, interleaved:

- ``ptx_cvt.convert`` on a float32 array (NumPy in, a new uint16 array out),
  and the same into a reused ``out=`` array;
- ``ptx_cvt::fast::evaluate_batch`` called once from Rust on the same values
  already widened to a uint64 slice (the API's element type), into an output
  buffer touched beforehand: the batch API's own time, nothing else;
- a Rust program doing convert's whole job with the slice API
  (``fast::evaluate_slice``: the u32 values in, a Vec<u16> out, the output
  allocated and touched beforehand).

Prints the best of several repetitions of each, in wall-clock time and in the
thread's CPU time (steadier on a busy machine), and the ratios.

    python python/bench/bench_convert.py [--n-log2 24] [--repeats 15]
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
    p.add_argument("--repeats", type=int, default=15)
    a = p.parse_args()
    n = 1 << a.n_log2
    bits = np.random.default_rng(1).integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    values = bits.view(np.float32)
    wide = bits.astype(np.uint64)

    reused = np.ones(n, np.uint16)

    def convert(out=None):
        t, c = time.perf_counter(), time.thread_time()
        out = ptx_cvt.convert(INSTRUCTION, values, out=out)
        return time.perf_counter() - t, time.thread_time() - c, out.copy()

    runs = {
        "convert (float32 -> new uint16)": convert,
        "convert, out= a reused uint16 array": lambda: convert(reused),
        "evaluate_batch alone (u64 -> u64)": lambda: _ptx_cvt._bench_evaluate_batch(INSTRUCTION, wide),
        "Rust: evaluate_slice (u32 -> u16)": lambda: _ptx_cvt._bench_rust_same_work(INSTRUCTION, bits),
    }
    times = {name: ([], []) for name in runs}
    results = {}
    for _ in range(a.repeats):
        for name, run in runs.items():
            wall, cpu, results[name] = run()
            times[name][0].append(wall)
            times[name][1].append(cpu)
    first, *others = results.values()
    if not all(np.array_equal(first.astype(np.uint64), r.astype(np.uint64)) for r in others):
        raise SystemExit("the four ways disagree")

    best = {name: (min(w), min(c)) for name, (w, c) in times.items()}
    print(f"{INSTRUCTION} over 2^{a.n_log2} f32 inputs, best of {a.repeats}: wall clock (M/s); thread CPU time")
    for name, (wall, cpu) in best.items():
        print(f"  {name:<38} {wall * 1e3:8.2f} ms ({n / wall / 1e6:5.0f});  {cpu * 1e3:8.2f} ms")
    names = list(best)
    for conv in names[:2]:
        for name in names[2:]:
            ratio_wall, ratio_cpu = best[conv][0] / best[name][0], best[conv][1] / best[name][1]
            print(f"  {conv.split(' (')[0]:<20} / {name:<36} {ratio_wall:5.2f} wall;  {ratio_cpu:5.2f} CPU")


if __name__ == "__main__":
    main()
