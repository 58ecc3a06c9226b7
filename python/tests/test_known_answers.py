"""Known answers from sources other than this package: the README's examples
(worked by hand in the ptx-cvt README), the hand-derived case files under
vectors/known-answers/, NumPy's and ml_dtypes' IEEE round-to-nearest-even
casts where PTX says the same thing, and the ml_dtypes double-rounding case
(fixed in ml_dtypes 0.7.0)."""

import numpy as np
import pytest

import ptx_cvt
from conftest import KNOWN_ANSWERS, UNSIGNED


# README.md, section "Examples" (`ptx-cvt eval ...`).
@pytest.mark.parametrize(
    "instruction, operands, dst_width, expected",
    [
        ("cvt.rn.f16.f32", ["3f800000"], None, 0x3C00),
        ("cvt.rzi.s32.f64", ["7ff8000000000000"], None, 0x80000000),
        ("cvt.s16.s8", ["139231c2"], 32, 0xFFFFFFC2),
        ("cvt.rn.bf16.f32", ["3f808000"], None, 0x3F80),
        ("cvt.rni.s8.f32", ["42fe0000"], None, 0x7F),
    ],
)
def test_readme_examples(instruction, operands, dst_width, expected):
    assert ptx_cvt.evaluate(instruction, *operands, dst_width=dst_width) == expected


def test_readme_open_nan_is_a_set():
    # README: `ptx-cvt eval cvt.f64.bf16 7fc1` prints `nan`: the ISA leaves the bits open.
    r = ptx_cvt.evaluate("cvt.f64.bf16", 0x7FC1)
    assert isinstance(r, ptx_cvt.Accept)
    assert str(r) == "nan" and r.width == 64
    assert 0x7FF8000000000000 in r and 0xFFFFFFFFFFFFFFFF in r
    assert 0x7FF0000000000000 not in r and 0x3FF0000000000000 not in r


def test_readme_explain():
    # README: `ptx-cvt explain cvt.rn.f16.f32 3f801000`.
    e = ptx_cvt.explain("cvt.rn.f16.f32", 0x3F801000)
    assert str(e).splitlines() == [
        "instruction cvt.rn.f16.f32  (float→float narrowing)",
        "profile     sm90",
        "legality    legal (form and registers; give --target to check a target)",
        "steps",
        "  decode                   [PTX] f32 3f801000 = 1.00048828125  (docs/semantics.md §1)",
        "  round-to-float           [IEEE] 1.00048828125 lies between 1 and 1.0009765625, exactly half an ulp"
        " (tie); to nearest, ties to even → 1  (docs/semantics.md §5.4)",
        "result      3c00 (1)",
    ]
    assert [s.rule for s in e.steps] == ["decode", "round-to-float"]
    assert [s.evidence for s in e.steps] == ["PTX", "IEEE"]
    assert [s.section for s in e.steps] == ["1", "5.4"]
    assert e.result == 0x3C00 and e.input == "1.00048828125"


def test_readme_check_mismatch():
    # docs/checking.md: `echo 'cvt.rn.f16.f32 3f803000 => 3c01' | ptx-cvt check -`.
    [m] = ptx_cvt.check("cvt.rn.f16.f32 3f803000 => 3c01", name="<stdin>")
    assert str(m).splitlines() == [
        "<stdin>:1: MISMATCH cvt.rn.f16.f32 3f803000",
        "  input    f32 3f803000 = 1.00146484375",
        "  expected 3c02 (1.001953125)",
        "  got      3c01 (1.0009765625)",
        "  rule     round-to-float [IEEE]: round the exact value once to the destination precision and exponent range",
        "  class    normal/normal/tie-even-up",
        "  why      rounding-rz: `.rn` replaced: answers equal round toward zero (`.rz`/`.rzi`)"
        " (also: rounding-rm, round-to-odd, increment-too-low)",
        "  case     cvt.rn.f16.f32 3f803000 => 3c02",
    ]
    assert (m.rule, m.evidence, m.section, m.expected, m.got) == ("round-to-float", "IEEE", "5.4", 0x3C02, 0x3C01)


def test_readme_list_head():
    # docs/checking.md: `ptx-cvt list --target sm_90 | head -3`.
    assert ptx_cvt.list_variants("sm_90")[:3] == ["cvt.u8.u8", "cvt.u8.u16", "cvt.sat.u8.u16"]


def test_readme_illegal_rule():
    # docs/evidence.md, "Targets and legality".
    assert ptx_cvt.illegal_reason("cvt.sat.s16.s8") == (
        "`.sat` is not allowed: s16 can hold every s8 value [rule sat-superset]"
    )
    with pytest.raises(ptx_cvt.IllegalInstruction, match=r"sat-superset"):
        ptx_cvt.evaluate("cvt.sat.s16.s8", 0xC2)


@pytest.mark.parametrize("name, profile", [("sm90.cases", "sm90"), ("isa.cases", "isa")])
def test_known_answer_files_pass(name, profile):
    path = KNOWN_ANSWERS / name
    report = ptx_cvt.check_file(path, profile=profile)
    assert report.failed == 0 and len(report) == 0, report.text()
    assert len(ptx_cvt.read_cases(path)) > 0


def test_known_answers_through_convert():
    # The hand-derived sm90 answers, through the fast engine's array path
    # (one-element arrays of each case's register widths).
    cases = [c for c in ptx_cvt.read_cases(KNOWN_ANSWERS / "sm90.cases") if c.result is not None]
    assert len(cases) > 200
    for c in cases:
        arrays = [np.array([v], UNSIGNED[w]) for v, w in zip(c.operands, c.operand_widths)]
        got = int(ptx_cvt.convert(c.instruction, *arrays, dst_width=c.dst_width, src_width=c.operand_widths[0])[0])
        assert got in c.result, f"line {c.line}: {c} gave {got:x}"


def test_numpy_float16_agrees_on_rn_f16_f32():
    # NumPy's float32→float16 cast rounds to nearest even (IEEE 754), which is
    # what PTX cvt.rn.f16.f32 does for every non-NaN input; NaN bits differ.
    rng = np.random.default_rng(16)
    bits = rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    values = bits.view(np.float32)
    values = values[~np.isnan(values)]
    with np.errstate(over="ignore"):
        numpy_bits = values.astype(np.float16).view(np.uint16)
    assert np.array_equal(ptx_cvt.convert("cvt.rn.f16.f32", values), numpy_bits)


def test_numpy_float32_agrees_on_rn_f32_f64():
    # NumPy's float64→float32 cast is IEEE round-to-nearest-even too.
    rng = np.random.default_rng(32)
    bits = rng.integers(0, 1 << 64, 1 << 18, dtype=np.uint64, endpoint=False)
    values = bits.view(np.float64)
    values = values[~np.isnan(values)]
    with np.errstate(over="ignore"):
        numpy_bits = values.astype(np.float32).view(np.uint32)
    assert np.array_equal(ptx_cvt.convert("cvt.rn.f32.f64", values), numpy_bits)


def ml_dtypes_version(ml_dtypes):
    return tuple(int(p) for p in ml_dtypes.__version__.split(".")[:2])


def test_double_rounding_case_of_ml_dtypes():
    # 0x47efefffffffffff = (2 - 2^-8 - 2^-52) * 2^127: just below the bf16
    # overflow threshold (2 - 2^-8) * 2^127, so one rounding gives the largest
    # bf16, 0x7f7f. Rounding through f32 first gives exactly the threshold, a
    # tie that goes to even: Inf (0x7f80). ml_dtypes up to 0.6.x rounds
    # f64 -> bf16 through f32 and gives 0x7f80; 0.7.0 (the pinned version,
    # python/requirements-test.txt) rounds once and gives 0x7f7f.
    x = 0x47EFEFFFFFFFFFFF
    assert ptx_cvt.evaluate("cvt.rn.bf16.f64", x) == 0x7F7F
    ml_dtypes = pytest.importorskip("ml_dtypes")
    via_ml = np.array([x], np.uint64).view(np.float64).astype(ml_dtypes.bfloat16).view(np.uint16)
    rounds_twice = ml_dtypes_version(ml_dtypes) < (0, 7)
    assert int(via_ml[0]) == (0x7F80 if rounds_twice else 0x7F7F)


def test_ml_dtypes_agrees_on_rn_bf16_f64():
    # From ml_dtypes 0.7.0, f64 -> bf16 is one round-to-nearest-even, as in
    # cvt.rn.bf16.f64: every non-NaN f64 converts alike (NaN bits differ).
    ml_dtypes = pytest.importorskip("ml_dtypes")
    if ml_dtypes_version(ml_dtypes) < (0, 7):
        pytest.skip(f"ml_dtypes {ml_dtypes.__version__} rounds f64 -> bf16 through f32")
    rng = np.random.default_rng(64)
    bits = rng.integers(0, 1 << 64, 1 << 20, dtype=np.uint64, endpoint=False)
    # Near the 2^-133..2^128 range of bf16 too, where the rounding is decided.
    near = rng.integers(0x3770000000000000, 0x4800000000000000, 1 << 20, dtype=np.uint64)
    near |= rng.integers(0, 2, 1 << 20, dtype=np.uint64) << np.uint64(63)
    values = np.concatenate([bits, near]).view(np.float64)
    values = values[~np.isnan(values)]
    with np.errstate(over="ignore"):
        want = values.astype(ml_dtypes.bfloat16).view(np.uint16)
    assert np.array_equal(ptx_cvt.convert("cvt.rn.bf16.f64", values), want)


def test_ml_dtypes_agrees_on_rn_bf16_f32():
    # f32 → bf16 is a single rounding in ml_dtypes (round to nearest even).
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(17)
    values = rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32).view(np.float32)
    values = values[~np.isnan(values)]
    want = values.astype(ml_dtypes.bfloat16).view(np.uint16)
    assert np.array_equal(ptx_cvt.convert("cvt.rn.bf16.f32", values), want)
