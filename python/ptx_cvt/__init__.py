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

import math
import os
from fractions import Fraction
from importlib.metadata import PackageNotFoundError, version as _version

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

try:
    __version__ = _version("ptx-cvt")
except PackageNotFoundError:  # run from a source tree without installing
    __version__ = "0+unknown"
#: The version of the semantics (docs/semantics.md) the oracle implements.
SEMANTICS_VERSION: int = _ptx_cvt.SEMANTICS_VERSION

__all__ = [
    "SEMANTICS_VERSION",
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
    "decode",
    "evaluate",
    "explain",
    "finfo",
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


def decode(fmt: str, bits: int, exact: bool = False) -> float | Fraction:
    """The value of ``bits`` in format ``fmt`` (a type name: ``"f16"``,
    ``"e4m3"``, ``"ue8m0"``, ``"s32"``, ...; a register's bits, ``tf32`` in
    the high bits of 32): a float (``float("nan")``, ``±inf``), or with
    ``exact=True`` the exact ``Fraction`` (ValueError for NaN and Inf, which
    have none). From the oracle's format table, never host conversion.

    >>> decode("e4m3", 0x7e)
    448.0
    >>> decode("bf16", 0x0001, exact=True)
    Fraction(1, 10889035741470030830827987437816582766592)
    """
    kind, neg, sig, exp = _ptx_cvt.decode_bits(fmt, bits)
    if kind != "num":
        if exact:
            raise ValueError(f"{fmt} {bits:#x} is {'NaN' if kind == 'nan' else 'Inf'}: no exact value")
        return float("nan") if kind == "nan" else (-math.inf if neg else math.inf)
    v = Fraction(sig) * (Fraction(2) ** exp)
    v = -v if neg else v
    if exact:
        return v
    # Signed zero kept; every format's finite values are exact doubles or round once.
    return math.copysign(float(v), -1.0 if neg else 1.0)


class finfo:
    """The facts of a floating-point format from the oracle's format table
    (as ``numpy.finfo`` and ml_dtypes' ``finfo``; exact values as
    ``Fraction`` in the ``*_exact`` attributes).

    >>> fi = finfo("e4m3")
    >>> (fi.bits, fi.exp_bits, fi.man_bits, fi.bias, fi.max, fi.has_inf, fi.has_nan)
    (8, 4, 3, 7, 448.0, False, True)
    >>> finfo("f16").smallest_subnormal
    5.960464477539063e-08
    """

    def __init__(self, fmt: str) -> None:
        f = _ptx_cvt.format_facts(fmt)
        if f["kind"] != "float":
            raise ValueError(f"{fmt} is not a floating-point format (finfo describes f16, bf16, e4m3, ...)")
        self.name: str = f["name"]
        self.bits: int = f["bits"]
        self.exp_bits: int = f["exp_bits"]
        self.man_bits: int = f["man_bits"]
        self.bias: int = f["bias"]
        self.signed: bool = f["signed"]
        self.has_inf: bool = f["has_inf"]
        self.has_nan: bool = f["has_nan"]
        self.has_subnormals: bool = f["subnormals"]
        self.max_code: int = f["max_code"]
        self.max_exact: Fraction = decode(fmt, f["max_code"], exact=True)
        self.smallest_normal_exact: Fraction = decode(fmt, f["min_normal_code"], exact=True)
        sub = f["min_subnormal_code"]
        self.smallest_subnormal_exact: Fraction | None = None if sub is None else decode(fmt, sub, exact=True)
        # The gap between 1 and the next value (ue8m0, powers of 2 only: 1).
        self.eps_exact: Fraction = Fraction(1, 1 << f["man_bits"])

    def __repr__(self) -> str:
        return (
            f"finfo({self.name!r}: bits={self.bits}, exp_bits={self.exp_bits}, man_bits={self.man_bits}, "
            f"bias={self.bias}, max={self.max}, smallest_normal={self.smallest_normal}, "
            f"smallest_subnormal={self.smallest_subnormal}, eps={self.eps}, "
            f"has_inf={self.has_inf}, has_nan={self.has_nan})"
        )

    @property
    def max(self) -> float:
        return float(self.max_exact)

    @property
    def smallest_normal(self) -> float:
        return float(self.smallest_normal_exact)

    @property
    def smallest_subnormal(self) -> float | None:
        return None if self.smallest_subnormal_exact is None else float(self.smallest_subnormal_exact)

    @property
    def eps(self) -> float:
        return float(self.eps_exact)
