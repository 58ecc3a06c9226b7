import pathlib

import numpy as np
import pytest

import ptx_cvt

REPO = pathlib.Path(__file__).resolve().parents[2]
KNOWN_ANSWERS = REPO / "vectors" / "known-answers"

UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def random_registers(rng: np.random.Generator, width: int, n: int) -> np.ndarray:
    """n register values of `width` bits: the edges of every format (0, 1, all
    ones, sign bit alone and with ones below it), then uniform random bits."""
    top = (1 << width) - 1
    sign = 1 << (width - 1)
    edges = np.array([0, 1, top, sign, sign - 1, sign + 1, top - 1], dtype=np.uint64)
    rand = rng.integers(0, top, n, dtype=np.uint64, endpoint=True)
    return np.concatenate([edges, rand]).astype(UNSIGNED[width])


def assert_convert_matches_evaluate(instruction, arrays, out):
    """Every element of convert's output is what the exact engine accepts."""
    for i in range(out.shape[0]):
        ops = [int(a[i]) for a in arrays]
        want = ptx_cvt.evaluate(instruction, *ops)
        got = int(out[i])
        if isinstance(want, int):
            assert got == want, f"{instruction} {[hex(o) for o in ops]}: convert {got:#x}, evaluate {want:#x}"
        else:
            assert got in want, f"{instruction} {[hex(o) for o in ops]}: convert {got:#x} not in {want}"


@pytest.fixture(scope="session")
def variants():
    return ptx_cvt.list_variants()
