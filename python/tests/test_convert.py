"""convert (the fast engine over arrays) against evaluate (the exact engine,
one call per element), on every variant; exhaustive on a few ≤16-bit ones."""

import threading
import time
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptx_cvt
from conftest import UNSIGNED, assert_convert_matches_evaluate, random_registers

# Every listed variant converts (docs/semantics.md §5.15, §5.16: the PTX 9.4 forms included).
ALL_VARIANTS = ptx_cvt.list_variants()


@pytest.mark.parametrize("instruction", ALL_VARIANTS)
def test_convert_equals_evaluate_on_every_variant(instruction):
    rng = np.random.default_rng(zlib.crc32(instruction.encode()))
    widths = [w for _, w in ptx_cvt.operand_registers(instruction)]
    arrays = [random_registers(rng, w, 57) for w in widths]
    # Several operands: shuffle so that edge values meet random ones.
    arrays = [arrays[0]] + [rng.permutation(a) for a in arrays[1:]]
    out = ptx_cvt.convert(instruction, *arrays)
    dst_bits = ptx_cvt.evaluate(instruction, *[int(a[0]) for a in arrays])
    width = dst_bits.width if isinstance(dst_bits, ptx_cvt.Accept) else None
    assert out.shape == arrays[0].shape
    if width is not None:
        assert out.dtype == UNSIGNED[width]
    assert_convert_matches_evaluate(instruction, arrays, out)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), instruction=st.sampled_from(ALL_VARIANTS))
def test_convert_equals_evaluate_hypothesis(data, instruction):
    widths = [w for _, w in ptx_cvt.operand_registers(instruction)]
    n = data.draw(st.integers(1, 8), label="n")
    arrays = [
        np.array(data.draw(st.lists(st.integers(0, (1 << w) - 1), min_size=n, max_size=n)), UNSIGNED[w])
        for w in widths
    ]
    assert_convert_matches_evaluate(instruction, arrays, ptx_cvt.convert(instruction, *arrays))


# Every input of these: a scalar float→float widening, a float→int with
# saturation, a packed fp8 → f16x2 and an int→float.
EXHAUSTIVE = ["cvt.f32.f16", "cvt.rni.sat.u8.f16", "cvt.rn.relu.f16x2.e4m3x2", "cvt.rn.f16.s16"]


@pytest.mark.parametrize("instruction", EXHAUSTIVE)
def test_convert_equals_evaluate_exhaustive(instruction):
    [(_, width)] = ptx_cvt.operand_registers(instruction)
    assert width == 16
    inputs = np.arange(1 << 16, dtype=np.uint16)
    assert_convert_matches_evaluate(instruction, [inputs], ptx_cvt.convert(instruction, inputs))


def test_wider_registers_and_dst_width():
    # A 32-bit source register of an s8 form, into a 32-bit destination:
    # README `eval --dst-width 32 cvt.s16.s8 139231c2` gives ffffffc2.
    out = ptx_cvt.convert("cvt.s16.s8", np.array([0x139231C2, 0x7F], np.uint32), src_width=32, dst_width=32)
    assert out.dtype == np.uint32 and out.tolist() == [0xFFFFFFC2, 0x7F]
    # Without src_width a uint32 array for the 8-bit register is refused, not cut to its low byte.
    with pytest.raises(TypeError, match="src_width=32"):
        ptx_cvt.convert("cvt.s16.s8", np.array([0x139231C2], np.uint32), dst_width=32)


def test_floats_are_read_as_bits_and_shapes_broadcast():
    x = np.array([[1.0, -2.5], [448.0, 1e9]], np.float32)
    bits = ptx_cvt.convert("cvt.rn.satfinite.e4m3x2.f32", x, np.float32(0.5))
    same = ptx_cvt.convert("cvt.rn.satfinite.e4m3x2.f32", x.view(np.uint32), np.full((2, 2), 0x3F000000, np.uint32))
    assert bits.shape == (2, 2) and bits.dtype == np.uint16
    assert np.array_equal(bits, same)
    assert_convert_matches_evaluate(
        "cvt.rn.satfinite.e4m3x2.f32",
        [x.view(np.uint32).ravel(), np.full(4, 0x3F000000, np.uint32)],
        bits.ravel(),
    )
    assert ptx_cvt.convert("cvt.f32.f16", np.float16(1.0)).shape == ()
    assert ptx_cvt.convert("cvt.rn.f16.f32", np.zeros(0, np.float32)).shape == (0,)
    assert ptx_cvt.convert("cvt.rn.f16.f32", []).shape == (0,)


def test_float16_input():
    x = np.array([np.nan, 1.0, -np.inf], np.float16)
    out = ptx_cvt.convert("cvt.f32.f16", x)
    assert out.view(np.float32)[1] == 1.0 and out.view(np.float32)[2] == -np.inf
    assert np.isnan(out.view(np.float32)[0])


def test_set_results_give_a_member():
    # README: the NaN bits of cvt.f64.bf16 7fc1 are open (`nan`); convert
    # gives one member of the set, evaluate the set.
    out = ptx_cvt.convert("cvt.f64.bf16", np.array([0x7FC1], np.uint16))
    want = ptx_cvt.evaluate("cvt.f64.bf16", 0x7FC1)
    assert isinstance(want, ptx_cvt.Accept) and int(out[0]) in want


def test_non_contiguous_input():
    x = np.arange(64, dtype=np.uint32)[::3] * 0x01010101
    assert np.array_equal(ptx_cvt.convert("cvt.rn.f16.f32", x), ptx_cvt.convert("cvt.rn.f16.f32", x.copy()))


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((np.zeros(3, bool),), {}, TypeError, "dtype bool holds no register bits; pass np.float32 values"),
        ((np.zeros(3, np.complex64),), {}, TypeError, "dtype complex64"),
        ((np.zeros(3, np.uint8),), {}, TypeError, "a uint8 array is 8-bit registers, not 32-bit ones"),
        ((np.zeros(3, np.uint64),), {}, TypeError, r"src_width=64 if these are wider registers"),
        ((np.zeros(3, np.uint64),), {"src_width": 64, "dst_width": 8}, ptx_cvt.IllegalInstruction, "8"),
        ((np.zeros(3, np.uint32),), {"src_width": 12}, ValueError, "src_width 12"),
        ((np.zeros(3, np.float32),), {"out_dtype": "double"}, ValueError, "out_dtype"),
        ((), {}, ValueError, "takes 1 source operand"),
        ((np.zeros(3, np.uint32), np.zeros(3, np.uint32)), {}, ValueError, "takes 1 source operand"),
        ((np.zeros(3, np.float32),), {"profile": "isa"}, ValueError, "sm90 profile"),
        ((np.zeros(3, np.float32),), {"profile": "sm80"}, ValueError, "unknown profile"),
        ((np.zeros(3, np.float32),), {"dst_width": 12}, ValueError, "dst_width 12"),
    ],
)
def test_convert_errors(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        ptx_cvt.convert("cvt.rn.f16.f32", *args, **kwargs)


def test_convert_shape_mismatch():
    with pytest.raises(ValueError):
        ptx_cvt.convert("cvt.rn.satfinite.e4m3x2.f32", np.zeros(3, np.float32), np.zeros(4, np.float32))


def test_convert_releases_the_gil():
    # While a long convert runs in a worker thread, this thread keeps running
    # Python code: some of its iterations fall in the middle of the call,
    # which cannot happen if the call holds the GIL throughout.
    x = np.random.default_rng(0).integers(0, 1 << 32, 1 << 24, dtype=np.uint64).astype(np.uint32)
    span = {}

    def work():
        span["start"] = time.perf_counter()
        # Two operands: the element-by-element path, slow enough (a single-operand
        # form runs the batch kernels, 2^24 values in milliseconds).
        ptx_cvt.convert("cvt.rn.satfinite.e4m3x2.f32", x, x)
        span["end"] = time.perf_counter()

    ticks = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.0005)
    t.join()
    start, end = span["start"], span["end"]
    assert end - start > 0.02
    middle = [s for s in ticks if start + 0.1 * (end - start) < s < end - 0.1 * (end - start)]
    assert len(middle) > 0


def test_python_ints_are_registers_of_the_operand_width():
    # As in evaluate: f32 1.0 and 2.0 → f16 3c00 and 4000.
    assert ptx_cvt.convert("cvt.rn.f16.f32", [0x3F800000, 0x40000000]).tolist() == [0x3C00, 0x4000]
    assert ptx_cvt.convert("cvt.rn.f16.f32", 0x3F800000) == 0x3C00
    assert ptx_cvt.convert("cvt.f64.f32", [0x3F800000], dst_width=64).dtype == np.uint64
    with pytest.raises(ValueError, match=r"operand 1 \(a of .*, a 32-bit register\): expected ints in \[0, 2\*\*32\)"):
        ptx_cvt.convert("cvt.rn.f16.f32", [1 << 32])
    with pytest.raises(ValueError, match=r"operand 1 .*: expected ints"):
        ptx_cvt.convert("cvt.rn.f16.f32", [-1])


def test_byte_order_is_respected():
    x = np.array([1.0, -2.0, 65504.0], np.float32)
    assert np.array_equal(ptx_cvt.convert("cvt.rn.f16.f32", x.astype(">f4")), ptx_cvt.convert("cvt.rn.f16.f32", x))


def test_out_receives_the_result():
    x = np.array([[1.0, 2.0], [65504.0, -0.0]], np.float32)
    out = np.full((2, 2), 0xFFFF, np.uint16)
    r = ptx_cvt.convert("cvt.rn.f16.f32", x, out=out)
    assert r is out and out.tolist() == [[0x3C00, 0x4000], [0x7BFF, 0x8000]]
    bad = [np.zeros(4, np.uint16), np.zeros((2, 2), np.uint32), np.zeros((2, 4), np.uint16)[:, ::2], [0, 0, 0, 0]]
    for o in bad:
        with pytest.raises(ValueError, match="out"):
            ptx_cvt.convert("cvt.rn.f16.f32", x, out=o)
    ro = np.zeros((2, 2), np.uint16)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        ptx_cvt.convert("cvt.rn.f16.f32", x, out=ro)
    # In place: the source array as the destination overlaps an operand.
    y = np.array([1, 2], np.uint32)
    with pytest.raises(ValueError, match="overlap"):
        ptx_cvt.convert("cvt.rn.f32.s32", y, out=y)


def test_float_arrays_must_be_the_source_format():
    # Issue 35: NumPy's default float64 for an f32 source was read as 64-bit
    # registers and cut to their low bits ([1.0, 2.0] gave [0, 0]).
    with pytest.raises(TypeError, match="float64 array would be read as 64-bit registers"):
        ptx_cvt.convert("cvt.rn.f16.f32", np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="np.float32"):
        ptx_cvt.convert("cvt.rn.f16.f32", np.array([1.0, 2.0], np.float16))
    # rbits is an integer operand: a float array there is refused too.
    with pytest.raises(TypeError, match="rbits"):
        ptx_cvt.convert("cvt.rs.f16x2.f32", np.float32(1.0), np.float32(1.0), np.float32(0.0))
    # The source format's own dtype is read as its values' bits (IEEE binary16 1.0 = 3c00, 2.0 = 4000).
    out = ptx_cvt.convert("cvt.rn.f16.f32", np.array([1.0, 2.0]).astype(np.float32))
    assert out.tolist() == [0x3C00, 0x4000]
    assert ptx_cvt.convert("cvt.f64.f32", np.float32(1.0)) == 0x3FF0000000000000
