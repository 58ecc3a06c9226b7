"""The Python examples of the README's Python section and of docs/python.md
run and print what they show."""

import contextlib
import io
import re

import pytest

from conftest import REPO


def examples():
    """The README's Python section's examples, then docs/python.md's."""
    readme = (REPO / "README.md").read_text(encoding="utf-8").split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    page = (REPO / "docs" / "python.md").read_text(encoding="utf-8").split("\n## Python\n", 1)[1]
    pattern = r"```python\n(.*?)```\n\n```console\n(.*?)```"
    return re.findall(pattern, readme, re.S) + re.findall(pattern, page, re.S)


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
            exec(compile(code, "README.md or docs/python.md", "exec"), namespace)
        assert out.getvalue() == shown
