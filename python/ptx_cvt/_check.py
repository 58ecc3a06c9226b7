"""Checking and fuzzing a Python function: the calls and their answers
under the dtype contract here, the driving, checking and diagnosis in the
native half (the harness's, as the command line's)."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import time
import traceback
from typing import Any, Callable, Iterable

import numpy as np

from ._dtypes import _float_dtype

# The native half, untyped here (its types are in __init__.pyi).
_ptx_cvt: Any = importlib.import_module("ptx_cvt._ptx_cvt")

_UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _is_vectorized(impl: Callable[..., Any]) -> bool:
    """A function with ``*operands`` (or more than two positional
    parameters) is scalar; ``impl(instruction, operands)`` is vectorised."""
    try:
        params = list(inspect.signature(impl).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) <= 2


def _decline(e: BaseException | None) -> str:
    if e is None:
        return "returned None (declined)"
    return f"NotImplementedError: {e}" if str(e) else "NotImplementedError"


def _array_bits(instruction: str, r: Any, n: int, dst_width: int) -> list[int]:
    """A vectorised answer as register bits, under the dtype contract; ValueError says why not."""
    a = np.asarray(r)
    if a.size != n:
        raise ValueError(f"returned {a.size} answer(s) for {n} case(s) (shape {a.shape})")
    a = a.reshape(-1)
    dtype = _ptx_cvt.canonical(instruction).rsplit(".", 2)[-2]
    own = _float_dtype(dtype)
    if a.dtype.kind in "iu" and a.dtype.itemsize * 8 == dst_width:
        pass
    elif own is not None and a.dtype.newbyteorder("=") == own and own.itemsize * 8 == dst_width:
        pass
    else:
        takes = f"np.uint{dst_width} or np.int{dst_width} register bits"
        if own is not None and own.itemsize * 8 == dst_width:
            takes = f"{own.name} values or " + takes
        raise ValueError(
            f"returned a {a.dtype} array for the {dst_width}-bit {dtype} destination register; return {takes}"
        )
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return [int(v) for v in a.view(_UNSIGNED[a.dtype.itemsize * 8])]


def _scalar_bits(instruction: str, r: Any, dst_width: int) -> int:
    if isinstance(r, np.generic) and r.dtype.kind in "fV":
        own = _float_dtype(_ptx_cvt.canonical(instruction).rsplit(".", 2)[-2])
        if own is not None and r.dtype == own and own.itemsize * 8 == dst_width:
            return int(np.asarray(r).view(_UNSIGNED[dst_width]))
    if isinstance(r, (int, np.integer)) and not isinstance(r, bool):
        v = int(r)
        if -(1 << (dst_width - 1)) <= v < 0:
            return v + (1 << dst_width)  # a negative int: its two's complement bits
        if 0 <= v < 1 << dst_width:
            return v
        raise ValueError(f"returned {v:#x}, which does not fit the {dst_width}-bit destination register")
    raise ValueError(f"returned {type(r).__name__} {r!r}, not the destination register's bits (an int)")


def _caller(impl: Callable[..., Any], vectorized: bool) -> Callable[..., tuple[list, str | None]]:
    """The function the native side calls per batch: ``(answers, failure)``,
    answers being bits (int) or decline reasons (str) up to the first case
    that crashed, failure that case's traceback."""

    def call(instruction: str, arrays: list, widths: list, dst_width: int) -> tuple[list, str | None]:
        ops = [a.astype(_UNSIGNED[w]) for a, w in zip(arrays, widths)]
        n = len(ops[0]) if ops else 0
        if not vectorized:
            answers: list = []
            for i in range(n):
                try:
                    r = impl(instruction, *(int(o[i]) for o in ops))
                except NotImplementedError as e:
                    answers.append(_decline(e))
                    continue
                except Exception:
                    return answers, traceback.format_exc()
                try:
                    answers.append(_decline(None) if r is None else _scalar_bits(instruction, r, dst_width))
                except ValueError as e:
                    return answers, str(e)
            return answers, None
        try:
            r = impl(instruction, ops)
        except NotImplementedError as e:
            return [_decline(e)] * n, None
        except Exception:
            if n == 1:
                return [], traceback.format_exc()
            # Which case: each alone (a function that raised on the batch raises on one of them).
            answers = []
            for i in range(n):
                got, failure = call(instruction, [o[i : i + 1] for o in ops], widths, dst_width)
                answers += got
                if failure is not None:
                    return answers, failure
            return answers, None
        if r is None:
            return [_decline(None)] * n, None
        try:
            return _array_bits(instruction, r, n, dst_width), None
        except ValueError as e:
            return [], str(e)

    return call


def _impl_name(impl: Callable[..., Any]) -> str:
    return getattr(impl, "__name__", None) or repr(impl)


def case_files(path: str | os.PathLike) -> list[str]:
    """A file as given; a directory as its ``*.cases`` files, sorted (as
    ``ptx-cvt check DIR``); ValueError for a directory without any."""
    p = os.fspath(path)
    if not os.path.isdir(p):
        return [p]
    files = sorted(
        os.path.join(p, n) for n in os.listdir(p) if n.endswith(".cases") and os.path.isfile(os.path.join(p, n))
    )
    if not files:
        raise ValueError(f"directory {p} holds no *.cases files")
    return files


def _read(name: str) -> tuple[str, str]:
    with open(name, encoding="utf-8") as f:
        return name, f.read()


def sources(cases: Any) -> list[tuple[str, Any]]:
    """``(name, lines)`` pairs of a path (file or directory), a list of
    paths, or Case objects (their lines, as ``<cases>``)."""
    Case = _ptx_cvt.Case
    if isinstance(cases, (str, os.PathLike)):
        return [_read(f) for f in case_files(cases)]
    if isinstance(cases, Case):
        cases = [cases]
    if not isinstance(cases, Iterable):
        raise TypeError(
            f"cases: expected a case file or directory, a list of them, or Case objects, got {type(cases).__name__}"
        )
    out: list[tuple[str, Any]] = []
    loose: list[str] = []
    for c in cases:
        if isinstance(c, Case):
            loose.append(c.text)
        elif isinstance(c, (str, os.PathLike)):
            out += [_read(f) for f in case_files(c)]
        else:
            raise TypeError(f"cases: expected paths or Case objects, got {type(c).__name__}")
    if loose:
        out.append(("<cases>", loose))
    return out


def _expand_braces(glob: str) -> list[str]:
    """``cvt.{rn,rz}.f16.f32`` → both spellings (nested braces too)."""
    m = re.search(r"\{([^{}]*)\}", glob)
    if m is None:
        return [glob]
    return [x for alt in m.group(1).split(",") for x in _expand_braces(glob[: m.start()] + alt + glob[m.end() :])]


def chosen_variants(filter: str | Iterable[str] | None, target: str, ptx_version: str | None) -> list[str]:
    import fnmatch

    legal = _ptx_cvt.list_variants(target, ptx_version)
    globs = [filter] if isinstance(filter, str) else list(filter or [])
    if not globs:
        return legal
    patterns = [p for g in globs for p in _expand_braces(g)]
    chosen = [v for v in legal if any(fnmatch.fnmatchcase(v, p) for p in patterns)]
    if not chosen:
        raise ValueError(
            f"no variant legal on {target} matches the filter {', '.join(repr(g) for g in globs)} "
            f"(ptx_cvt.list_variants({target!r}) lists them)"
        )
    return chosen


def clock_seed() -> int:
    return time.time_ns() % 1_000_000_000
