"""Bit-exact reference semantics of the PTX ``cvt`` instruction.

Scalar questions go to the exact engine (GMP arithmetic, every rule traced);
``convert`` runs NumPy arrays through the fast engine's batch kernels.
Register values are unsigned ints (``0x3c00`` is f16 1.0); operands may also
be hex strings whose digit count is the register width, as in case lines
(format: vectors/README.md of the ptx-cvt repository).

>>> import ptx_cvt
>>> hex(ptx_cvt.evaluate("cvt.rn.f16.f32", 0x3f800000))
'0x3c00'
"""

from __future__ import annotations

import os

import numpy as np

from ._ptx_cvt import (
    Accept,
    Case,
    Explanation,
    IllegalInstruction,
    Mismatch,
    Step,
    accepts,
    canonical,
    check,
    evaluate,
    explain,
    illegal_reason,
    legal,
    list_variants,
    operand_registers,
    parse_case,
    parse_cases,
)
from . import _ptx_cvt

__all__ = [
    "Accept",
    "Case",
    "Explanation",
    "IllegalInstruction",
    "Mismatch",
    "Step",
    "accepts",
    "canonical",
    "check",
    "check_file",
    "convert",
    "evaluate",
    "explain",
    "illegal_reason",
    "legal",
    "list_variants",
    "operand_registers",
    "parse_case",
    "parse_cases",
    "read_cases",
]

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _register_bits(index: int, a: np.ndarray) -> np.ndarray:
    """The array's elements read as raw register bits of their own width."""
    dt = a.dtype
    # u/i: integers; f: float16/32/64; V: ml_dtypes' bfloat16 and float8 types.
    if dt.kind not in "uifV" or dt.itemsize not in _UNSIGNED or dt.fields is not None:
        raise ValueError(
            f"operand {index + 1}: expected an array of register values "
            f"(unsigned ints of the register width, or floats viewed as bits), got dtype {dt}"
        )
    if not dt.isnative:
        a = a.astype(dt.newbyteorder("="))
    return a.view(_UNSIGNED[dt.itemsize])


# The float dtypes that hold a scalar source type's own values.
_FLOAT_DTYPES = {"float16": "f16", "float32": "f32", "float64": "f64", "bfloat16": "bf16"}


def _check_float_dtype(instruction: str, index: int, dt: np.dtype) -> None:
    """A float array is read as its bits, so it must be of the source type's
    own format: a float64 array for an f32 source would be read as 64-bit
    registers and cut to their low 32 bits (a silent wrong answer)."""
    if dt.kind not in "fV" or dt.fields is not None:
        return
    registers = operand_registers(instruction)
    if index >= len(registers):
        return
    name, width = registers[index]
    atype = instruction.rsplit(".", 1)[-1]
    value_operand = name in ("a", "b", "e", "f")
    if value_operand and _FLOAT_DTYPES.get(dt.name) == atype:
        return
    own = [d for d, t in _FLOAT_DTYPES.items() if t == atype] if value_operand else []
    accepted = f"np.{own[0]} values or " if own else ""
    raise TypeError(
        f"operand {index + 1} ({name} of {instruction}): a {dt.name} array would be read as "
        f"{dt.itemsize * 8}-bit registers of its bits, not converted; pass {accepted}"
        f"unsigned or signed integers of the {width}-bit register's bits "
        f"(np.asarray(x, dtype=np.{own[0] if own else f'uint{width}'}) if these are values)"
    )


def _operand_array(instruction: str, index: int, a) -> np.ndarray:
    """An operand as an array. Python ints (alone or in lists) are registers
    as wide as the operand's type, as in ``evaluate``; NumPy arrays and
    scalars keep their dtype, whose item size is the register width."""
    if isinstance(a, (np.ndarray, np.generic)):
        return a
    arr = np.asarray(a)
    if arr.dtype.kind not in "iuO" or arr.size == 0:
        return arr
    registers = operand_registers(instruction)
    if index >= len(registers):
        return arr
    width = registers[index][1]
    try:
        ints = arr.astype(object)
        if not all(isinstance(v, int) and 0 <= v < 1 << width for v in ints.flat):
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(
            f"operand {index + 1}: expected ints in [0, 2**{width}) (the {width}-bit register of {instruction})"
        ) from None
    return ints.astype(_UNSIGNED[width // 8])


def convert(
    instruction: str, *arrays, dst_width: int | None = None, profile: str = "sm90", out: np.ndarray | None = None
) -> np.ndarray:
    """The destination registers of ``instruction`` on arrays of source registers.

    Each array holds one source operand per element (``cvt.rn.f16.f32``
    takes one, ``cvt.rn.satfinite.e4m3x2.f32`` two, ``.rs`` forms add
    ``rbits``); the arrays broadcast together. The item size of an array is
    its register width: pass unsigned ints of that width, or an array of the
    source type's own float dtype (float16, float32, float64, ml_dtypes'
    bfloat16), which is read as its bits; a float array of another dtype
    (NumPy's default float64 for an f32 source, say) raises TypeError
    rather than being read as wider registers; Python ints and
    lists of them are registers as wide as the operand's type. The result is an
    unsigned array of the destination register width (``uint16`` for f16;
    ``.view(np.float16)`` reads it as numbers).

    ``out``, a C-contiguous unsigned array of the destination width and of
    the operands' broadcast shape, receives the result instead of a new
    array (reusing one saves the memory's first-touch cost on large arrays).

    Runs the fast engine (sm90 profile) with the GIL released. Where the
    answer is a set (a NaN whose bits the profile leaves open), the element is
    the format's canonical NaN, as in the Rust batch API; ``evaluate`` gives
    the set itself.

    >>> convert("cvt.rn.f16.f32", np.array([1.0, 65520.0], np.float32))
    array([15360, 31744], dtype=uint16)
    """
    arrays = [_operand_array(instruction, i, a) for i, a in enumerate(arrays)]
    for i, a in enumerate(arrays):
        _check_float_dtype(instruction, i, a.dtype)
    shape = np.broadcast_shapes(*(a.shape for a in arrays)) if arrays else (0,)
    flat = [
        np.ascontiguousarray(np.broadcast_to(_register_bits(i, a), shape)).reshape(-1) for i, a in enumerate(arrays)
    ]
    if out is None:
        return _ptx_cvt.convert_bits(instruction, flat, dst_width, profile).reshape(shape)
    if not isinstance(out, np.ndarray) or out.shape != shape or not out.flags.c_contiguous:
        raise ValueError(f"out: expected a C-contiguous array of shape {shape}")
    _ptx_cvt.convert_bits(instruction, flat, dst_width, profile, out.reshape(-1))
    return out


def _case_files(path: str | os.PathLike) -> list[str]:
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


def read_cases(path: str | os.PathLike) -> list[Case]:
    """The cases of a case file, or of every ``*.cases`` file of a directory
    (sorted by name), comments and blank lines skipped; ValueError
    ``PATH:LINE: message`` at the first malformed line."""
    cases: list[Case] = []
    for name in _case_files(path):
        with open(name, encoding="utf-8") as f:
            cases.extend(parse_cases(f, name=name))
    return cases


def check_file(path: str | os.PathLike, **options) -> list[Mismatch]:
    """``check`` on the lines of a case file, or of every ``*.cases`` file of
    a directory (``ptx-cvt check PATH``); options as for ``check``."""
    mismatches: list[Mismatch] = []
    for name in _case_files(path):
        with open(name, encoding="utf-8") as f:
            mismatches.extend(check(f, name=name, **options))
    return mismatches
