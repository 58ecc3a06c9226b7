"""The dtype contract of convert (issue 35): every source type × dtype pair
is read as the register bits it holds, or refused with a TypeError naming
what the operand takes; out_dtype="float" for every destination. The codes
of ml_dtypes' arrays are checked against the formats' definitions through
ptx_cvt.decode, with ml_dtypes at the version requirements-test.txt pins."""

import numpy as np
import pytest

import ptx_cvt

try:
    import ml_dtypes
except ImportError:  # the contract without ml_dtypes: NumPy's dtypes only
    ml_dtypes = None

VARIANTS = ptx_cvt.list_variants()
# One variant per source type (the last part of the canonical spelling).
BY_SOURCE = {}
for v in VARIANTS:
    BY_SOURCE.setdefault(v.rsplit(".", 1)[-1], v)

NUMPY_DTYPES = [np.float16, np.float32, np.float64, np.bool_, np.complex64]
NUMPY_DTYPES += [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
ML_NAMES = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float8_e8m0fnu"]
ML_NAMES += ["float6_e2m3fn", "float6_e3m2fn"]
ML_DTYPES = [getattr(ml_dtypes, n) for n in ML_NAMES if ml_dtypes is not None and hasattr(ml_dtypes, n)]
# A format's own dtype: the IEEE 754 and bfloat16 names, OCP MX/FP8 v1.0's for the rest.
OWN = {"f16": "float16", "f32": "float32", "f64": "float64", "bf16": "bfloat16"}


def accepted(source: str, dt: np.dtype) -> bool:
    [(_, width)] = ptx_cvt.operand_registers(BY_SOURCE[source])[:1]
    if dt.kind in "iu":
        return dt.itemsize * 8 == width
    return OWN.get(source) == dt.name


@pytest.mark.parametrize("source", sorted(BY_SOURCE))
@pytest.mark.parametrize("dtype", NUMPY_DTYPES + ML_DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_source_type_and_dtype(source, dtype):
    instruction = BY_SOURCE[source]
    registers = ptx_cvt.operand_registers(instruction)
    dt = np.dtype(dtype)
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 256, (5, dt.itemsize), dtype=np.uint8)
    if dt.name == "float4_e2m1fn":
        raw &= 0x0F  # its codes are the low nibble of each byte
    elif dt.name.startswith("float6"):
        raw &= 0x3F
    x = raw.view(dt).reshape(5) if dt != np.bool_ else raw[:, 0].astype(bool)
    # The other operands (a second value, rbits) as bits of their own registers.
    rest = [np.zeros(5, f"u{w // 8}") for _, w in registers[1:]]
    if not accepted(source, dt):
        with pytest.raises(TypeError, match=r"operand 1 \(a of .*\): .*; pass .*register bits"):
            ptx_cvt.convert(instruction, x, *rest)
        return
    got = ptx_cvt.convert(instruction, x, *rest)
    bits = x.view(f"u{dt.itemsize}")
    assert np.array_equal(got, ptx_cvt.convert(instruction, bits.astype(f"u{dt.itemsize}"), *rest))
    ops0 = [int(b) for b in bits.astype(np.uint64)]
    for i in range(5):
        want = ptx_cvt.evaluate(instruction, ops0[i], *[0 for _ in rest])
        assert int(got[i]) == want if isinstance(want, int) else int(got[i]) in want


def test_refusals_name_what_is_accepted():
    # Issue 35: these were read as wider registers and cut ([1.0, 2.0] → [0, 0]).
    cases = [
        (np.array([1.0, 2.0]), "a float64 array would be read as 64-bit registers", "np.float32 values"),
        (np.array([1, 2], np.int64), "an int64 array is 64-bit registers, not 32-bit ones", "np.uint32 or np.int32"),
        ([1.0, 2.0], "got Python floats", "np.asarray(x, dtype=np.float32)"),
        (1.5, "got Python floats", "np.asarray(x, dtype=np.float32)"),
    ]
    for x, why, hint in cases:
        with pytest.raises(TypeError) as e:
            ptx_cvt.convert("cvt.rn.f16.f32", x)
        assert why in str(e.value) and hint in str(e.value), str(e.value)
    # Signed integers of the register's width are its bits: f32 1.0 is 3f800000 (IEEE 754), f16 1.0 3c00.
    assert ptx_cvt.convert("cvt.rn.f16.f32", np.array([0x3F800000], np.int32)).tolist() == [0x3C00]
    assert ptx_cvt.convert("cvt.f32.f16", np.array([0xBC00 - 0x10000], np.int16)).tolist() == [0xBF800000]


@pytest.mark.skipif(ml_dtypes is None, reason="ml_dtypes not installed")
def test_ml_dtypes_arrays_are_their_formats_codes():
    # ml_dtypes 0.7.0 (requirements-test.txt) against the oracle's format
    # table, code by code: the same values, so an array of these dtypes is
    # read as the format's codes.
    pairs = [
        ("bfloat16", "bf16", 16),
        ("float8_e4m3fn", "e4m3", 8),
        ("float8_e5m2", "e5m2", 8),
        ("float8_e8m0fnu", "ue8m0", 8),
        ("float4_e2m1fn", "e2m1", 4),
        ("float6_e2m3fn", "e2m3", 6),
        ("float6_e3m2fn", "e3m2", 6),
    ]
    for name, fmt, bits in pairs:
        dt = np.dtype(getattr(ml_dtypes, name))
        codes = np.arange(1 << bits, dtype=np.uint16 if bits == 16 else np.uint8)
        values = codes.view(dt).astype(np.float64)
        mine = np.array([ptx_cvt.decode(fmt, int(c)) for c in codes])
        same = (values == mine) | (np.isnan(values) & np.isnan(mine))
        assert same.all(), f"{name} vs {fmt}: {codes[~same][:4]}"
    # OCP FP8: e4m3 448 is 7e; bfloat16 1.0 is 3f80.
    assert ptx_cvt.convert("cvt.f32.bf16", np.array([1.0], ml_dtypes.bfloat16), out_dtype="float").tolist() == [1.0]
    assert ptx_cvt.encode("e4m3", 448.0) == int(np.array(448.0, ml_dtypes.float8_e4m3fn).view(np.uint8))


DESTINATIONS = {}
for v in VARIANTS:
    if v.rsplit(".", 1)[-1] in ("f32", "f16", "f64", "s32", "bf16"):
        DESTINATIONS.setdefault(v.rsplit(".", 2)[-2], v)


@pytest.mark.parametrize("dst", sorted(DESTINATIONS))
def test_out_dtype_float(dst):
    instruction = DESTINATIONS[dst]
    registers = ptx_cvt.operand_registers(instruction)
    ops = [np.full(3, 0x40, f"u{w // 8}") for _, w in registers]
    bits = ptx_cvt.convert(instruction, *ops)
    own = {"f16": np.float16, "f32": np.float32, "f64": np.float64}.get(dst)
    if own is None and dst == "bf16" and ml_dtypes is not None:
        own = ml_dtypes.bfloat16
    if own is None:
        with pytest.raises(TypeError, match='out_dtype="float"'):
            ptx_cvt.convert(instruction, *ops, out_dtype="float")
        return
    values = ptx_cvt.convert(instruction, *ops, out_dtype="float")
    assert values.dtype == own and np.array_equal(values.view(bits.dtype), bits)


def test_out_dtype_float_refusals():
    with pytest.raises(TypeError, match=r"packed type; lanes\("):
        ptx_cvt.convert("cvt.rn.satfinite.e4m3x2.f32", np.float32(1), np.float32(1), out_dtype="float")
    with pytest.raises(TypeError, match="neither NumPy nor ml_dtypes has a dtype for s32"):
        ptx_cvt.convert("cvt.rzi.s32.f32", np.float32(1), out_dtype="float")
    with pytest.raises(TypeError, match="32-bit destination register is not np.float16"):
        ptx_cvt.convert("cvt.rn.f16.f32", np.float32(1), dst_width=32, out_dtype="float")
