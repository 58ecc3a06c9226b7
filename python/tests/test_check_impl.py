"""check and fuzz of a Python function (issue 35, item 3): every case ends
as one of the five outcomes, wrong answers are diagnosed as the command line
diagnoses them (docs/diagnosis.md), crashes keep their tracebacks."""

import json

import numpy as np
import pytest

import ptx_cvt
from conftest import KNOWN_ANSWERS, REPO

F16_F32 = REPO / "vectors" / "compact" / "cvt.rn.f16.f32.cases"
S32_F32 = REPO / "vectors" / "compact" / "cvt.rzi.s32.f32.cases"


def right(instruction, operands):
    """A correct f16 ← f32 (NumPy's cast rounds to nearest even, IEEE 754;
    only NaN payloads differ from sm90, which gives 7fff) and s32 ← f32 rzi."""
    x = operands[0].view(np.float32)
    if instruction == "cvt.rn.f16.f32":
        with np.errstate(over="ignore"):
            y = x.astype(np.float16).view(np.uint16)
        return np.where(np.isnan(x), np.uint16(0x7FFF), y)
    if instruction == "cvt.rzi.s32.f32":
        # PTX ISA cvt: NaN → 0, out-of-range saturates for float → int.
        with np.errstate(invalid="ignore"):
            t = np.clip(np.trunc(x.astype(np.float64)), -(2**31), 2**31 - 1)
            return np.where(np.isnan(x), 0, t).astype(np.int32)
    raise NotImplementedError(f"{instruction} is not implemented")


def planted(instruction, operands):
    x = operands[0].view(np.float32)
    if instruction == "cvt.rn.f16.f32":
        # Bug 1: overflow saturates to the largest finite f16 (65504) instead of giving Inf.
        x = np.where(np.isinf(x), x, np.clip(x, -65504, 65504)).astype(np.float32)
        return right(instruction, [x.view(np.uint32)])
    if instruction == "cvt.rzi.s32.f32":
        # Bug 2: rounds to nearest instead of toward zero.
        with np.errstate(invalid="ignore"):
            t = np.clip(np.rint(x.astype(np.float64)), -(2**31), 2**31 - 1)
            return np.where(np.isnan(x), 0, t).astype(np.int32)
    raise NotImplementedError(f"{instruction} is not implemented")


def test_a_right_function_passes():
    r = ptx_cvt.check(right, [F16_F32, S32_F32])
    assert r.failed == 0 and r.crashed == 0 and r.not_run == 0 and r.unsupported == 0
    # Counted from the files: every case line with registers as wide as their
    # types (8 hex digits in, 4 out for f16 and 8 for s32) is run.
    lines = [ln.split() for p in (F16_F32, S32_F32) for ln in p.read_text().splitlines() if ln.split("#")[0].strip()]
    natural = [t for t in lines if len(t[1]) == 8 and len(t[3]) == (4 if ".f16." in t[0] else 8)]
    assert r.passed == len(natural) and r.skipped == len(lines) - len(natural)
    r.raise_for_mismatches()


def test_two_planted_bugs_are_two_classes():
    r = ptx_cvt.check(planted, [F16_F32, S32_F32])
    assert r.failed > 0 and r.crashed == 0
    names = {b.name for b in r.bug_classes}
    assert len(r.bug_classes) == 2, r.text()
    # docs/diagnosis.md: the catalogue's names for "overflow saturates" and "rounds to nearest".
    assert {b.variants[0] for b in r.bug_classes} == {"cvt.rn.f16.f32", "cvt.rzi.s32.f32"}
    assert all(n is not None for n in names), r.text()
    assert sum(b.cases for b in r.bug_classes) == r.failed == len(r.mismatches)
    text = r.text()
    assert text.startswith("41 case(s) with wider registers left out") and "\ncases: " in text
    assert "2 bug class(es)" in text and text.endswith(f"{r.passed} passed, {r.failed} failed")
    summary = json.loads(r.to_json())["summary"]
    assert summary["cases"] == {"passed": r.passed, "failed": r.failed, "unsupported": 0, "crashed": 0, "not_run": 0}
    assert [c["explanation"]["name"] for c in summary["bug_classes"]] == [b.name for b in r.bug_classes]
    with pytest.raises(ptx_cvt.MismatchError, match="2 bug class"):
        r.raise_for_mismatches()
    with pytest.raises(AssertionError):
        r.raise_for_mismatches()
    # As the list check returned before: equal to the list of its mismatches.
    assert r == list(r) and r != [] and ptx_cvt.check(["cvt.rn.f16.f32 3f800000 => 3c00"]) == []


def test_the_report_is_the_clis(tmp_path):
    # The same answers recorded as case lines and checked: the same classes and text.
    r = ptx_cvt.check(planted, F16_F32)
    recorded = [m.case.split(" => ")[0] + " => " + str(m.got) for m in r.mismatches]
    again = ptx_cvt.check(recorded, name=str(F16_F32))
    assert [b.text for b in again.bug_classes] == [b.text for b in r.bug_classes]


def test_scalar_functions_declines_and_crashes():
    calls = []

    def scalar(instruction, *operands):
        calls.append(operands)
        a = operands[0]
        if a == 0x3F800000:
            raise KeyError("planted crash")
        if a == 0x40000000:
            return None  # declines
        if a == 0x40400000:
            raise NotImplementedError("not 3.0")
        return int(np.float32(np.uint32(a).view(np.float32)).astype(np.float16).view(np.uint16))

    cases = ptx_cvt.parse_cases(
        "cvt.rn.f16.f32 3f800000\ncvt.rn.f16.f32 40000000\ncvt.rn.f16.f32 40400000\ncvt.rn.f16.f32 40800000\n"
    )
    r = ptx_cvt.check(scalar, cases)
    # IEEE 754: f32 4.0 → f16 4400 (exact).
    assert r.totals == (1, 0, 2, 1, 0)
    [crash] = r.crashes
    assert crash.case == "cvt.rn.f16.f32 3f800000 => ????" and "KeyError: 'planted crash'" in crash.message
    assert "Traceback" in crash.message and "crashed on `cvt.rn.f16.f32 3f800000 => ????`: scalar: KeyError" in r.text()
    assert "returned None (declined)" in r.text() and "NotImplementedError: not 3.0" in r.text()
    assert len(calls) == 4


def test_a_vectorised_crash_is_the_cases():
    def f(instruction, operands):
        x = operands[0].view(np.float32)
        if (x == 2.0).any():
            raise ZeroDivisionError("two")
        return x.astype(np.float16)

    cases = ptx_cvt.parse_cases("\n".join(f"cvt.rn.f16.f32 {b:08x}" for b in [0x3F800000, 0x40000000, 0x40400000]))
    r = ptx_cvt.check(f, cases)
    assert r.totals == (2, 0, 0, 1, 0)
    assert r.crashes[0].case.startswith("cvt.rn.f16.f32 40000000") and "ZeroDivisionError: two" in r.crashes[0].message


def test_garbage_answers_are_crashes_and_stop_after_three_in_a_row():
    def wrong_shape(instruction, operands):
        return np.zeros(len(operands[0]) + 1, np.uint16)

    r = ptx_cvt.check(wrong_shape, F16_F32)
    assert r.crashed == 3 and r.not_run > 0 and r.passed == 0
    assert "failed 3 times in a row without answering a case; the cases left are counted as not run" in r.text()
    assert r.crashed + r.not_run == len(ptx_cvt.read_cases(F16_F32)) - r.skipped
    assert "returned" in r.crashes[0].message and "answer(s) for" in r.crashes[0].message

    def float64_answers(instruction, operands):
        return operands[0].view(np.float32).astype(np.float64)

    r = ptx_cvt.check(float64_answers, F16_F32)
    want = "returned a float64 array for the 16-bit f16 destination register; return float16 values"
    assert want in r.crashes[0].message


def test_recorded_lines_and_errors(tmp_path):
    r = ptx_cvt.check_file(KNOWN_ANSWERS / "sm90.cases")
    lines = [ln for ln in (KNOWN_ANSWERS / "sm90.cases").read_text().splitlines() if ln.split("#")[0].strip()]
    assert r.failed == 0 and r.passed == len(lines) and len(r) == 0
    with pytest.raises(TypeError, match="name the cases"):
        ptx_cvt.check(lambda i, ops: None)
    with pytest.raises(TypeError, match="checks a function"):
        ptx_cvt.check("cvt.rn.f16.f32 3f800000 => 3c00", F16_F32)
    bad = tmp_path / "bad.cases"
    bad.write_text("cvt.rn.f16.f32 3f800000\nadd.f32 3f800000\n")
    calls = []
    with pytest.raises(ValueError, match=r"bad.cases:2: .*not a cvt instruction"):
        ptx_cvt.check(lambda i, ops: calls.append(i), tmp_path)
    assert calls == []  # nothing runs before every line is read
    with pytest.raises(ptx_cvt.IllegalInstruction, match=r"bad.cases:1: illegal on sm_80"):
        bad.write_text("cvt.rn.satfinite.e4m3x2.f32 3f800000 3f800000\n")
        ptx_cvt.check(right, bad, target="sm_80")


def test_fuzz_finds_the_planted_bugs_and_reruns():
    r = ptx_cvt.fuzz(planted, "cvt.{rn.f16,rzi.s32}.f32", cases=4000, seed=5)
    assert r.seed == 5 and r.failed > 0 and len(r.bug_classes) == 2, r.text()
    again = ptx_cvt.fuzz(planted, ["cvt.rn.f16.f32", "cvt.rzi.s32.f32"], cases=4000, seed=5)
    assert [m.case for m in again.mismatches] == [m.case for m in r.mismatches]
    assert "rerun with seed=5" in r.text()
    good = ptx_cvt.fuzz(right, "cvt.{rn.f16,rzi.s32}.f32", cases=3000, seed=1)
    assert good.failed == 0 and good.passed > 0
    with pytest.raises(ValueError, match="no variant legal on sm_90 matches"):
        ptx_cvt.fuzz(right, "cvt.nothing.*")
    with pytest.raises(ValueError, match="needs an end"):
        ptx_cvt.fuzz(right, "cvt.rn.f16.f32", seconds=0)
