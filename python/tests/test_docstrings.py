"""The examples in the docstrings run and print what they show."""

import doctest

import numpy as np

import ptx_cvt


def test_docstring_examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    globs = {"np": np, **{name: getattr(ptx_cvt, name) for name in ptx_cvt.__all__}}
    tests = finder.find(ptx_cvt, "ptx_cvt", globs=globs)
    for name in ptx_cvt.__all__:
        tests += finder.find(getattr(ptx_cvt, name), name, globs=globs)
    runner = doctest.DocTestRunner()
    for t in tests:
        runner.run(t)
    assert runner.failures == 0
    # The module's, evaluate's and convert's examples.
    assert runner.tries >= 3
