"""encode (values to codes through the oracle's cvt), lanes and pack. Known
answers from the format definitions (IEEE 754 binary16, bfloat16, OCP
MX/FP8 v1.0) and the PTX ISA's cvt (satfinite, lane order), and agreement
with ml_dtypes at its pinned version."""

import numpy as np
import pytest

import ptx_cvt

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None


@pytest.mark.parametrize(
    "fmt, value, rounding, code",
    [
        ("f16", 1.0, "rn", 0x3C00),
        ("f16", 65520.0, "rn", 0x7C00),  # the tie above 65504 rounds to even: Inf
        ("f16", 65520.0, "rz", 0x7BFF),
        ("bf16", 1.00390625, "rn", 0x3F80),  # 1 + 2^-8: a tie, to even
        ("bf16", 1.00390625, "rp", 0x3F81),
        ("f32", 0.1, "rn", 0x3DCCCCCD),
        ("f32", 0.1, "rz", 0x3DCCCCCC),
        ("e4m3", 448.0, "rn", 0x7E),
        ("e4m3", 1000.0, "rn", 0x7E),  # .satfinite: the largest finite
        ("e4m3", -1.0, "rn", 0xB8),
        ("e5m2", 57344.0, "rn", 0x7B),
        ("e2m1", 6.0, "rn", 0x7),
        ("e2m1", 0.5, "rn", 0x1),
        ("ue8m0", 1.0, "rz", 0x7F),
        ("ue8m0", 3.0, "rp", 0x81),
        ("s8", 2.5, "rn", 0x02),  # rn means rni for integers: ties to even
        ("s8", -3.5, "rn", 0xFC),
        ("u16", 7.9, "rz", 0x0007),
    ],
)
def test_encode_known_answers(fmt, value, rounding, code):
    assert ptx_cvt.encode(fmt, value, rounding=rounding) == code


def test_encode_arrays_and_refusals():
    out = ptx_cvt.encode("f16", np.array([[1.0, 2.0]], np.float32))
    assert out.dtype == np.uint16 and out.tolist() == [[0x3C00, 0x4000]]
    assert ptx_cvt.encode("f16", [1, 2]).tolist() == [0x3C00, 0x4000]
    with pytest.raises(ValueError, match="not exactly an f32: e4m3 is reached from f32 only"):
        ptx_cvt.encode("e4m3", 1 / 3)
    with pytest.raises(ValueError, match="not exactly an f64"):
        ptx_cvt.encode("f16", 2**60 + 1)
    with pytest.raises(ValueError, match="no cvt rounds to e4m3 with .rm"):
        ptx_cvt.encode("e4m3", 1.0, rounding="rm")
    with pytest.raises(TypeError, match="expected numbers"):
        ptx_cvt.encode("f16", ["x"])


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e2m1", "f16", "bf16"])
def test_encode_inverts_decode(fmt):
    bits = ptx_cvt.finfo(fmt).bits
    for code in range(1 << min(bits, 10)):
        v = ptx_cvt.decode(fmt, code)
        if v == v and abs(v) != float("inf"):
            assert ptx_cvt.encode(fmt, v) == code, f"{fmt} {code:#x} = {v}"


@pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes not installed")
@pytest.mark.parametrize("fmt, name, limit", [("e4m3", "float8_e4m3fn", 448), ("e5m2", "float8_e5m2", 57344)])
def test_encode_agrees_with_ml_dtypes(fmt, name, limit):
    # ml_dtypes 0.7.0 rounds to nearest even, as cvt.rn does, inside the finite range.
    x = np.random.default_rng(3).uniform(-limit, limit, 20000).astype(np.float32)
    x[:100] /= 1e6  # subnormals
    want = x.astype(getattr(ml_dtypes, name)).view(np.uint8)
    assert np.array_equal(ptx_cvt.encode(fmt, x), want)


def test_lanes_and_pack():
    # PTX ISA cvt packed forms: a goes to the upper half (f16x2: 1.0 3c00, 2.0 4000).
    bits = ptx_cvt.evaluate("cvt.rn.f16x2.f32", 0x3F800000, 0x40000000)
    assert ptx_cvt.lanes("cvt.rn.f16x2.f32", bits) == (0x3C00, 0x4000)
    assert ptx_cvt.pack("f16x2", [0x3C00, 0x4000]) == bits
    e = ptx_cvt.convert("cvt.rn.satfinite.e4m3x2.f32", np.float32([1.0, 448.0]), np.float32([-1.0, 0.5]))
    assert ptx_cvt.lanes("e4m3x2", e).tolist() == [[0x38, 0xB8], [0x7E, 0x30]]
    rng = np.random.default_rng(0)
    for t, dt in [("f16x2", np.uint32), ("e4m3x2", np.uint16), ("e2m1x2", np.uint8), ("bf16x2", np.uint32)]:
        r = rng.integers(0, np.iinfo(dt).max, 100, dtype=dt, endpoint=True).reshape(4, 25)
        ln = ptx_cvt.lanes(t, r)
        assert ln.shape == (4, 25, 2) and np.array_equal(ptx_cvt.pack(t, ln), r)
    assert ptx_cvt.lanes("e2m1x2", 0x7F) == (0x7, 0xF)
    with pytest.raises(ValueError, match="not a packed type"):
        ptx_cvt.lanes("f16", 0)
    with pytest.raises(TypeError, match="expected np.uint16 or np.int16 bits of e4m3x2"):
        ptx_cvt.lanes("e4m3x2", np.zeros(2, np.uint32))
    with pytest.raises(ValueError, match="has 2 lanes"):
        ptx_cvt.pack("f16x2", [1, 2, 3])
    with pytest.raises(ValueError, match="does not fit 4 bits"):
        ptx_cvt.pack("e2m1x2", [0x10, 0])


@pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes not installed")
def test_lanes_as_floats():
    e = ptx_cvt.convert("cvt.rn.satfinite.e4m3x2.f32", np.float32([1.0, 448.0]), np.float32([-1.0, 0.5]))
    v = ptx_cvt.lanes("e4m3x2", e, out_dtype="float")
    assert v.dtype == ml_dtypes.float8_e4m3fn and v.astype(np.float32).tolist() == [[1.0, -1.0], [448.0, 0.5]]
    assert np.array_equal(ptx_cvt.pack("e4m3x2", v), e)
    f = ptx_cvt.lanes("cvt.rn.f16x2.f32", np.array([0x3C004000], np.uint32), out_dtype="float")
    assert f.dtype == np.float16 and f.tolist() == [[1.0, 2.0]]
