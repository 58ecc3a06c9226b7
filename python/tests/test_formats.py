"""Format facts and values from the oracle's format table, checked against
the formats' definitions (IEEE 754 binary16/32/64, bfloat16, OCP MX/FP8
v1.0: e4m3 bias 7 and max 448, e5m2 max 57344, e2m1 max 6, ue8m0 2^-127..2^127)
and, where installed, NumPy's finfo."""

import math
from fractions import Fraction

import numpy as np
import pytest

import ptx_cvt


@pytest.mark.parametrize(
    "fmt, bits, exp_bits, man_bits, bias, max_, smallest_normal, smallest_subnormal, has_inf",
    [
        ("f16", 16, 5, 10, 15, 65504, Fraction(1, 2**14), Fraction(1, 2**24), True),
        ("bf16", 16, 8, 7, 127, Fraction(2**8 - 1, 2**7) * 2**127, Fraction(1, 2**126), Fraction(1, 2**133), True),
        ("f32", 32, 8, 23, 127, Fraction(2**24 - 1) * 2**104, Fraction(1, 2**126), Fraction(1, 2**149), True),
        ("e4m3", 8, 4, 3, 7, 448, Fraction(1, 64), Fraction(1, 512), False),
        ("e5m2", 8, 5, 2, 15, 57344, Fraction(1, 2**14), Fraction(1, 2**16), True),
        ("e2m1", 4, 2, 1, 1, 6, 1, Fraction(1, 2), False),
        ("ue8m0", 8, 8, 0, 127, 2**127, Fraction(1, 2**127), None, False),
    ],
)
def test_finfo_follows_the_format_definitions(
    fmt, bits, exp_bits, man_bits, bias, max_, smallest_normal, smallest_subnormal, has_inf
):
    fi = ptx_cvt.finfo(fmt)
    assert (fi.bits, fi.exp_bits, fi.man_bits, fi.bias, fi.has_inf) == (bits, exp_bits, man_bits, bias, has_inf)
    assert fi.max_exact == max_
    assert fi.smallest_normal_exact == smallest_normal
    assert fi.smallest_subnormal_exact == smallest_subnormal
    assert fi.eps_exact == Fraction(1, 2**man_bits)
    assert fi.has_nan == (fmt != "e2m1")  # OCP MX: e2m1 has no NaN encoding
    assert fmt in repr(fi)


@pytest.mark.parametrize("fmt, dtype", [("f16", np.float16), ("f32", np.float32), ("f64", np.float64)])
def test_finfo_agrees_with_numpy(fmt, dtype):
    fi, ref = ptx_cvt.finfo(fmt), np.finfo(dtype)
    assert (fi.max, fi.smallest_normal, fi.eps) == (float(ref.max), float(ref.smallest_normal), float(ref.eps))
    assert fi.smallest_subnormal == float(ref.smallest_subnormal)


def test_decode_values_and_specials():
    assert ptx_cvt.decode("f16", 0x3C00) == 1.0
    assert ptx_cvt.decode("e4m3", 0x7E) == 448.0
    assert math.copysign(1.0, ptx_cvt.decode("f16", 0x8000)) == -1.0
    assert ptx_cvt.decode("f32", 0xFF800000) == -math.inf
    assert math.isnan(ptx_cvt.decode("e4m3", 0x7F))
    assert ptx_cvt.decode("s8", 0xFF) == -1.0
    assert ptx_cvt.decode("f64", 0x3FF0000000000001, exact=True) == 1 + Fraction(1, 2**52)
    with pytest.raises(ValueError, match="no exact value"):
        ptx_cvt.decode("f32", 0x7FC00000, exact=True)
    with pytest.raises(ValueError, match="unknown format `f12`"):
        ptx_cvt.finfo("f12")
    with pytest.raises(ValueError, match="not a floating-point format"):
        ptx_cvt.finfo("s32")


def test_versions():
    assert isinstance(ptx_cvt.SEMANTICS_VERSION, int) and ptx_cvt.SEMANTICS_VERSION >= 4
    assert ptx_cvt.__version__.count(".") >= 2


def test_decode_arrays():
    # The same values as code by code: through cvt.f64.f16/bf16/f32 (exact widenings) and the table.
    rng = np.random.default_rng(4)
    for fmt, dt in [("f16", np.uint16), ("bf16", np.uint16), ("f32", np.uint32), ("e4m3", np.uint8), ("s8", np.uint8)]:
        codes = rng.integers(0, np.iinfo(dt).max, 300, dtype=dt, endpoint=True).reshape(3, 100)
        got = ptx_cvt.decode(fmt, codes)
        want = np.array([ptx_cvt.decode(fmt, int(c)) for c in codes.ravel()]).reshape(3, 100)
        assert got.dtype == np.float64 and got.shape == (3, 100)
        assert np.array_equal(got, want, equal_nan=True), fmt
        number = ~np.isnan(want)  # signed zeros kept (a NaN's sign is the profile's)
        assert np.array_equal(np.signbit(got[number]), np.signbit(want[number]))
    # IEEE 754 binary16: 3c00 is 1.0; as signed int16 bits too.
    assert ptx_cvt.decode("f16", np.array([0x3C00, 0xBC00 - 0x10000], np.int16)).tolist() == [1.0, -1.0]
    x = np.array([1.5, -0.0], np.float64)
    assert np.array_equal(ptx_cvt.decode("f64", x.view(np.uint64)), x)
    with pytest.raises(ValueError, match="exact=True decodes one code"):
        ptx_cvt.decode("f16", np.zeros(2, np.uint16), exact=True)
    with pytest.raises(TypeError, match="integer array of codes"):
        ptx_cvt.decode("f16", np.zeros(2, np.float16))
