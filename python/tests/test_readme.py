"""The Python examples of docs/python.md (the README's Python section, moved
there) run and print what the page shows; the README's own snippet runs too."""

import contextlib
import io
import re

import pytest

from conftest import REPO


def examples():
    text = (REPO / "docs" / "python.md").read_text(encoding="utf-8")
    section = text.split("\n## Python\n", 1)[1]
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
            exec(compile(code, "docs/python.md", "exec"), namespace)
        assert out.getvalue() == shown


def test_readme_snippet():
    """The README's short Python example: each call gives what its comment says."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    code = text.split("\n## Python\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    namespace = {}
    for line in code.splitlines():
        stmt, _, shown = line.partition("#")
        if shown.strip():
            assert repr(eval(stmt, namespace)) == shown.strip(), line
        else:
            exec(stmt, namespace)
