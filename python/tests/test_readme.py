"""The README's Python examples run and print what the README shows."""

import contextlib
import io
import re

import pytest

from conftest import REPO


def examples():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```\n\n```console\n(.*?)```", section, re.S)


def test_readme_python_examples(monkeypatch):
    found = examples()
    assert len(found) == 4
    # The examples name case files from the repository root.
    monkeypatch.chdir(REPO)
    namespace = {}
    for code, shown in found:
        if "import ml_dtypes" in code:
            pytest.importorskip("ml_dtypes")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), namespace)
        assert out.getvalue() == shown
