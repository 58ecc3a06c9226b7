"""The package's texts against the ptx-cvt binary's, when the binary is built
(`cargo build -p ptx-cvt-cli`, which scripts/test.sh does, or
PTX_CVT_BIN=/path/to/ptx-cvt):
explain, check's mismatch report, eval of set results, list."""

import os
import subprocess

import pytest

import ptx_cvt
from conftest import REPO


def find_binary():
    """PTX_CVT_BIN (as the Rust tests read it), else the newer of the release
    and debug builds."""
    if os.environ.get("PTX_CVT_BIN"):
        return os.environ["PTX_CVT_BIN"]
    built = [p for p in (REPO / "target/release/ptx-cvt", REPO / "target/debug/ptx-cvt") if os.access(p, os.X_OK)]
    return str(max(built, key=lambda p: p.stat().st_mtime)) if built else None


BINARY = find_binary()
pytestmark = pytest.mark.skipif(BINARY is None, reason="ptx-cvt binary not built")


def cli(*args, stdin=None):
    r = subprocess.run([BINARY, *args], input=stdin, capture_output=True, text=True, check=False)
    return r.stdout.rstrip("\n")


EXPLAINED = [
    ("cvt.rn.f16.f32", "3f801000"),
    ("cvt.rn.f16x2.f32", "3f800000", "c0400000"),
    ("cvt.rn.satfinite.e4m3x2.f32", "7fc00000", "44000000"),
    ("cvt.rzi.s32.f64", "7ff8000000000000"),
    ("cvt.f32.bf16", "7fc1"),
    ("cvt.rs.f16x2.f32", "3f800001", "bf800001", "00001fff"),
]


@pytest.mark.parametrize("case", EXPLAINED)
@pytest.mark.parametrize("profile", ["sm90", "isa"])
def test_explain_matches(case, profile):
    instruction, *ops = case
    assert str(ptx_cvt.explain(instruction, *ops, profile=profile)) == cli(
        "explain", "--profile", profile, instruction, *ops
    )
    want = cli("eval", "--profile", profile, instruction, *ops)
    got = ptx_cvt.evaluate(instruction, *ops, profile=profile)
    assert (str(got) if isinstance(got, ptx_cvt.Accept) else f"{got:0{len(want)}x}") == want


def test_check_reports_match():
    lines = [
        "cvt.rn.f16.f32 3f803000 => 3c01",
        "cvt.rn.f16x2.f32 3f800000 40000000 => 3c004001  # normal/normal/exact",
        "cvt.s16.s8 139231c2 => 0000ffc2",
        "cvt.f32.bf16 7fc1 => 3f800000",
        "cvt.rn.f16.f32 3f800000 => 3c00",
    ]
    text = cli("check", "--all", "--reproducers", "0", "-", stdin="\n".join(lines) + "\n")
    # The CLI's reports are blocks of their own, each with the line naming its class.
    blocks = [b for b in text.split("\n\n") if b.startswith("<stdin>")]
    reports = ["\n".join(ln for ln in b.splitlines() if not ln.startswith("  bug      ")) for b in blocks]
    mine = [str(m) for m in ptx_cvt.check(lines, name="<stdin>")]
    assert len(mine) == 4
    assert mine == reports


def test_list_matches():
    assert ptx_cvt.list_variants("sm_100a") == cli("list", "--target", "sm_100a").splitlines()
    assert ptx_cvt.list_variants() == cli("list").splitlines()


@pytest.mark.parametrize("n", [2, 5])
def test_report_text_matches(n):
    # The one-screen report: the mismatches in full (at most three), the
    # totals and the bug classes, as `ptx-cvt check` prints them.
    lines = [
        "cvt.rn.f16.f32 3f803000 => 3c01",
        "cvt.rzi.s32.f32 3fc00000 => 00000002",
        "cvt.rzi.s32.f32 40200000 => 00000003",
        "cvt.rzi.s32.f32 c0200000 => fffffffd",
        "cvt.rn.f16.f32 3f800000 => 3c00",
    ][:n]
    want = cli("check", "--reproducers", "0", "-", stdin="\n".join(lines) + "\n")
    assert ptx_cvt.check(lines, name="<stdin>").text() == want


def test_report_json_matches():
    # The --json summary's schema and values: the totals, the bug classes
    # (with their examples), the declines and the per-variant tallies.
    import json

    lines = [
        "cvt.rn.f16.f32 3f803000 => 3c01",
        "cvt.rzi.s32.f32 3fc00000 => 00000002",
        "cvt.rzi.s32.f32 40200000 => 00000003",
        "cvt.rzi.s32.f32 c0200000 => fffffffd",
    ]
    out = cli("check", "--json", "-", stdin="\n".join(lines) + "\n")
    want = [json.loads(x) for x in out.splitlines() if x.startswith('{"summary"')][0]["summary"]
    mine = json.loads(ptx_cvt.check(lines, name="<stdin>").to_json())["summary"]
    for key in ["cases", "variants", "bug_classes", "other_class_cases", "declines", "per_variant"]:
        assert mine[key] == want[key], key
