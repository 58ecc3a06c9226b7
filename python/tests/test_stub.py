"""The .pyi stub agrees with the module (mypy's stubtest; skipped without mypy)."""

import subprocess
import sys

import pytest


def test_stub_matches_runtime(tmp_path):
    pytest.importorskip("mypy")
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "ptx_cvt"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stdout + r.stderr
