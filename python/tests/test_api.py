"""The scalar API: arguments, results, errors. Expected bits here are worked
from the PTX ISA rules cited next to them, or from the README's examples."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ptx_cvt
from conftest import KNOWN_ANSWERS


def test_operands_as_ints_hex_and_numpy_scalars():
    # f32 1.0 → f16 1.0 (exact).
    assert ptx_cvt.evaluate("cvt.rn.f16.f32", 0x3F800000) == 0x3C00
    assert ptx_cvt.evaluate("cvt.rn.f16.f32", "3f800000") == 0x3C00
    assert ptx_cvt.evaluate("cvt.rn.f16.f32", np.uint32(0x3F800000)) == 0x3C00
    # Modifiers in any order (README "Instruction spellings").
    assert ptx_cvt.evaluate("cvt.s8.f32.rni.sat", 0x42FE0000) == 0x7F
    assert ptx_cvt.canonical("cvt.s8.f32.rni.sat") == "cvt.rni.sat.s8.f32"


def test_packed_operands_in_order():
    # cvt.rn.f16x2.f32 d, a, b: a goes to the upper half (PTX ISA, cvt packed forms).
    assert ptx_cvt.evaluate("cvt.rn.f16x2.f32", 0x3F800000, 0x40000000) == 0x3C004000
    assert ptx_cvt.operand_registers("cvt.rn.f16x2.f32") == [("a", 32), ("b", 32)]
    assert ptx_cvt.operand_registers("cvt.rs.f16x2.f32") == [("a", 32), ("b", 32), ("rbits", 32)]


def test_isa_profile_accepts_more():
    # README "Evidence and profiles": under isa any NaN is accepted where the text leaves the bits open.
    sm90 = ptx_cvt.evaluate("cvt.rn.f16.f32", 0x7FC00000)
    isa = ptx_cvt.evaluate("cvt.rn.f16.f32", 0x7FC00000, profile="isa")
    assert isinstance(isa, ptx_cvt.Accept)
    if isinstance(sm90, int):
        assert sm90 in isa
    assert 0x7E01 in isa


def test_accept_objects():
    a = ptx_cvt.Accept("3f80????")
    assert a.width == 32 and 0x3F801234 in a and 0x3F811234 not in a and a.single is None
    assert ptx_cvt.Accept("3c00") == 0x3C00 and ptx_cvt.Accept("3c00").single == 0x3C00
    assert ptx_cvt.Accept("nan", "f16") == ptx_cvt.Accept("nan", "f16")
    assert ptx_cvt.Accept("7e00", "f16").issubset(ptx_cvt.Accept("nan", "f16"))
    assert repr(ptx_cvt.Accept("nan", "f32")) == "Accept('nan', width=32)"
    assert "x" not in a and -1 not in a
    with pytest.raises(ValueError, match="hex digits"):
        ptx_cvt.Accept("3c0")


def test_accepts():
    # Same answers as the README's check example: 3f803000 → 3c02 under rn.
    assert ptx_cvt.accepts("cvt.rn.f16.f32", [0x3F803000], 0x3C02)
    assert not ptx_cvt.accepts("cvt.rn.f16.f32", [0x3F803000], 0x3C01)
    assert ptx_cvt.accepts("cvt.rn.f16.f32", ["3f803000"], "3c02")
    assert ptx_cvt.accepts("cvt.rn.f16.f32", [0x3F803000], "3c0?") is False  # the set must be inside
    # A NaN result under the isa profile: any f16 NaN is accepted.
    assert ptx_cvt.accepts("cvt.rn.f16.f32", [0x7FC00000], 0x7E01, profile="isa")
    assert ptx_cvt.accepts("cvt.rn.f16.f32", [0x7FC00000], "nan", profile="isa")
    # Wider destination register, sign-extended (README eval --dst-width example).
    assert ptx_cvt.accepts("cvt.s16.s8", ["139231c2"], 0xFFFFFFC2, dst_width=32)
    assert ptx_cvt.accepts("cvt.s16.s8", ["139231c2"], "ffffffc2")


def test_target_and_version_legality():
    # PTX ISA: the e4m3x2 conversions need sm_89 or later.
    assert ptx_cvt.legal("cvt.rn.satfinite.e4m3x2.f32", "sm_90")
    assert not ptx_cvt.legal("cvt.rn.satfinite.e4m3x2.f32", "sm_80")
    assert ptx_cvt.legal("cvt.rn.f16.f32")
    with pytest.raises(ptx_cvt.IllegalInstruction, match="illegal on sm_80"):
        ptx_cvt.evaluate("cvt.rn.satfinite.e4m3x2.f32", 0, 0, target="sm_80")
    with pytest.raises(ValueError, match="needs PTX ISA"):
        ptx_cvt.list_variants("sm_90", "7.0")
    assert set(ptx_cvt.list_variants("sm_80")) < set(ptx_cvt.list_variants("sm_90"))
    # Register widths (README "Targets and legality": with bf16 on either side
    # both registers must be exactly as wide as their types).
    assert ptx_cvt.legal("cvt.s16.s8", src_width=32, dst_width=32)
    assert "register-bf16-exact" in ptx_cvt.illegal_reason("cvt.f32.bf16", src_width=32)


def test_explain_packed_and_target():
    e = ptx_cvt.explain("cvt.rn.f16x2.f32", 0x3F800000, 0x40000000, target="sm_90")
    assert e.legality == "legal on sm_90 with PTX ISA 9.5"
    assert e.result == 0x3C004000 and e.result_meaning == "3c004000 (1, 2)"
    assert {s.lane for s in e.steps} >= {"a", "b"}
    assert all(s.rule_text for s in e.steps)


def test_case_lines():
    c = ptx_cvt.parse_case("cvt.s16.s8 139231c2 => ffffffc2  # docs/semantics.md §4")
    assert (c.instruction, c.operands, c.operand_widths, c.dst_width) == ("cvt.s16.s8", [0x139231C2], [32], 32)
    assert c.result == 0xFFFFFFC2 and c.comment == "docs/semantics.md §4" and c.coverage_class is None
    assert str(c) == "cvt.s16.s8 139231c2 => ffffffc2"
    assert ptx_cvt.parse_case("   # only a comment") is None
    cases = ptx_cvt.parse_cases("# head\n\ncvt.rn.f16.f32 3f801000 => 3c00  # normal/normal/tie-even-down\n")
    assert [(k.line, k.coverage_class) for k in cases] == [(3, "normal/normal/tie-even-down")]
    with pytest.raises(ValueError, match=r"^<string>:2: operand 1: `3f80000` has 7 hex digits"):
        ptx_cvt.parse_cases(["cvt.rn.f16.f32 3f800000\n", "cvt.rn.f16.f32 3f80000\n"])
    # Counted from the file's text, independently of the reader.
    text = (KNOWN_ANSWERS / "isa.cases").read_text()
    case_lines = [ln for ln in text.splitlines() if ln.split("#", 1)[0].strip()]
    assert len(case_lines) >= 9
    assert len(ptx_cvt.read_cases(KNOWN_ANSWERS / "isa.cases")) == len(case_lines)


def test_directories_are_their_case_files(tmp_path):
    # As `ptx-cvt check DIR`: the directory's *.cases files, sorted; other files ignored.
    (tmp_path / "b.cases").write_text("cvt.rn.f16.f32 3f800000 => 3c01\n")
    (tmp_path / "a.cases").write_text("cvt.rn.f16.f32 3f800000 => 3c00\ncvt.rn.f16.f32 40000000 => 4000\n")
    (tmp_path / "notes.txt").write_text("not a case file\n")
    cases = ptx_cvt.read_cases(tmp_path)
    assert [(c.operands[0], c.line) for c in cases] == [(0x3F800000, 1), (0x40000000, 2), (0x3F800000, 1)]
    # f16 1.0 is 3c00 (IEEE 754 binary16): only b.cases's line is wrong.
    [m] = ptx_cvt.check_file(tmp_path)
    assert (m.file, m.line, m.expected.single) == (str(tmp_path / "b.cases"), 1, 0x3C00)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="holds no \\*.cases files"):
        ptx_cvt.check_file(empty)


def test_check_errors_name_the_line():
    with pytest.raises(ValueError, match=r"^f:2: no result to check"):
        ptx_cvt.check(["cvt.rn.f16.f32 3f800000 => 3c00", "cvt.rn.f16.f32 3f800000"], name="f")
    with pytest.raises(ptx_cvt.IllegalInstruction, match=r"^<string>:1: .*sat-superset"):
        ptx_cvt.check("cvt.sat.s16.s8 c2 => ffc2")
    with pytest.raises(ValueError, match=r"^<string>:1: .*not a cvt instruction"):
        ptx_cvt.check("add.f32 3f800000 => 3c00")


def test_check_packed_blames_the_wrong_lane():
    # Lane b (low half) wrong: f32 2.0 → f16 4000, recorded as 4001.
    [m] = ptx_cvt.check("cvt.rn.f16x2.f32 3f800000 40000000 => 3c004001  # normal/normal/exact")
    assert m.expected == 0x3C004000 and m.coverage_class == "normal/normal/exact"
    assert m.case == "cvt.rn.f16x2.f32 3f800000 40000000 => 3c004000"
    assert "class    normal/normal/exact" in str(m)


def test_check_diagnoses_what_the_implementation_did():
    # cvt.rn.sat.f32.s32 of 5: .sat clamps to 1.0 (3f800000); 5.0 (40a00000) is the answer without .sat.
    [m] = ptx_cvt.check("cvt.rn.sat.f32.s32 00000005 => 40a00000")
    assert m.hypotheses[:2] == ["modifiers-ignored", "no-sat"]
    assert "why      modifiers-ignored" in str(m)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32"), "takes 1 source operand"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", 1, 2), "takes 1 source operand"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f33", 1), "f33"),
        (lambda: ptx_cvt.evaluate("", 1), "empty instruction"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", -1), "expected an int"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", 1 << 64), "expected an int"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", 1 << 32), "does not fit the 32-bit register"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", 1.5), "got float"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", None), "got NoneType"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", "0x3f800000"), "without the 0x prefix"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", 1, profile="sm80"), "unknown profile"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", 1, dst_width=24), "dst_width 24"),
        (lambda: ptx_cvt.evaluate("cvt.rn.f16.f32", 1, target="sm_91x"), "sm_91x"),
        (lambda: ptx_cvt.accepts("cvt.rn.f16.f32", [1], "????"), "the result is only"),
        (lambda: ptx_cvt.accepts("cvt.rn.f16.f32", [1], 1 << 16), "does not fit the 16-bit"),
        (lambda: ptx_cvt.accepts("cvt.rn.f16.f32", [1], "3c00", dst_width=32), "dst_width is 32"),
        (lambda: ptx_cvt.accepts("cvt.rn.f16.f32", [1], b"3c00"), "expected an int"),
        (lambda: ptx_cvt.parse_cases(42), "iterable of lines"),
        (lambda: ptx_cvt.parse_cases([b"x"]), "lines as str"),
    ],
)
def test_errors_are_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("cvt.rnsfu0123468x?|=>#/ \tabe_:")), max_size=60))
def test_parse_case_never_crashes(line):
    try:
        ptx_cvt.parse_case(line)
    except ValueError:
        pass


@settings(max_examples=300, deadline=None)
@given(
    instruction=st.sampled_from(ptx_cvt.list_variants("sm_90")),
    seed=st.integers(0, (1 << 64) - 1),
)
def test_evaluated_results_are_accepted(instruction, seed):
    ops = [seed & ((1 << w) - 1) for _, w in ptx_cvt.operand_registers(instruction)]
    r = ptx_cvt.evaluate(instruction, *ops)
    text = str(r) if isinstance(r, ptx_cvt.Accept) else None
    if text is None:
        assert ptx_cvt.accepts(instruction, ops, r)
    else:
        assert ptx_cvt.accepts(instruction, ops, text)
    explained = ptx_cvt.explain(instruction, *ops).result
    assert explained == r


PIECES = ["cvt", "rn", "rz", "rni", "rs", "sat", "satfinite", "relu", "ftz", "f16", "f32", "f64", "bf16", "tf32"]
PIECES += ["s8", "u16", "s32", "u64", "e4m3x2", "e2m1x2", "f16x2", "bf16x2", "ue8m0x2", "e2m3x2", "x", ""]
VARIANTS = ptx_cvt.list_variants()


@settings(max_examples=800, deadline=None)
@given(
    data=st.data(),
    instruction=st.one_of(st.sampled_from(VARIANTS), st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map(".".join)),
    dst_width=st.sampled_from([None, None, None, 8, 16, 32, 64, 7]),
    profile=st.sampled_from(["sm90", "isa"]),
)
def test_any_call_gives_a_result_or_a_value_error(data, instruction, dst_width, profile):
    # Operands mostly of the right count and widths, sometimes anything.
    try:
        widths = [w for _, w in ptx_cvt.operand_registers(instruction)]
    except ValueError:
        widths = [32]
    wild = st.one_of(st.integers(-1, 1 << 65), st.text("0123456789abcdefx?", max_size=17))
    fitting = st.tuples(*[st.integers(0, (1 << w) - 1) for w in widths]).map(list)
    operands = data.draw(st.one_of(fitting, fitting, st.lists(wild, max_size=5)), label="operands")
    try:
        r = ptx_cvt.evaluate(instruction, *operands, dst_width=dst_width, profile=profile)
    except ValueError:
        return
    assert isinstance(r, (int, ptx_cvt.Accept))
    assert ptx_cvt.explain(instruction, *operands, dst_width=dst_width, profile=profile).result == r
    if profile == "sm90" and all(isinstance(o, int) for o in operands):
        out = ptx_cvt.convert(instruction, *operands, dst_width=dst_width)
        assert int(out) in r if isinstance(r, ptx_cvt.Accept) else int(out) == r
