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

import functools
import math
import os
from fractions import Fraction
from importlib.metadata import PackageNotFoundError, version as _version

import numpy as np

from ._ptx_cvt import (
    Accept,
    BugClass,
    Case,
    Crash,
    Explanation,
    IllegalInstruction,
    Mismatch,
    MismatchError,
    Report,
    Step,
    accepts,
    canonical,
    evaluate,
    explain,
    illegal_reason,
    legal,
    list_variants,
    operand_registers,
    parse_case,
    parse_cases,
)
from . import _check, _ptx_cvt
from ._dtypes import _FORMAT_DTYPE, _float_dtype

try:
    __version__ = _version("ptx-cvt")
except PackageNotFoundError:  # run from a source tree without installing
    __version__ = "0+unknown"
#: The version of the semantics (docs/semantics.md) the oracle implements.
SEMANTICS_VERSION: int = _ptx_cvt.SEMANTICS_VERSION

__all__ = [
    "SEMANTICS_VERSION",
    "Accept",
    "BugClass",
    "Case",
    "Crash",
    "Explanation",
    "IllegalInstruction",
    "Mismatch",
    "MismatchError",
    "Report",
    "Step",
    "accepts",
    "canonical",
    "check",
    "check_file",
    "convert",
    "decode",
    "encode",
    "evaluate",
    "explain",
    "finfo",
    "fuzz",
    "illegal_reason",
    "lanes",
    "legal",
    "list_variants",
    "operand_registers",
    "pack",
    "parse_case",
    "parse_cases",
    "read_cases",
]

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

# The value operands of a form (the others, rbits, are integer registers).
_VALUE_OPERANDS = ("a", "b", "e", "f")


# Per-call facts of a spelling, asked once per operand: cached (errors are not).
_registers = functools.lru_cache(maxsize=4096)(operand_registers)
_canonical = functools.lru_cache(maxsize=4096)(canonical)


def _dtype_name(dt: np.dtype) -> str:
    return f"np.{dt.name}" if hasattr(np, dt.name) else f"ml_dtypes.{dt.name}"


@functools.lru_cache(maxsize=4096)
def _accepted(instruction: str, index: int, width: int) -> tuple[np.dtype | None, str]:
    """The float dtype operand ``index`` accepts (None if none) and the
    dtypes it accepts, in words (cached: NumPy's dtype names are slow)."""
    name = _registers(instruction)[index][0]
    atype = _canonical(instruction).rsplit(".", 1)[-1]
    own = _float_dtype(atype) if name in _VALUE_OPERANDS else None
    if own is not None and own.itemsize * 8 != width:
        own = None
    ints = f"np.uint{width} or np.int{width} register bits"
    if own is None and name in _VALUE_OPERANDS and atype in _FORMAT_DTYPE and not hasattr(np, _FORMAT_DTYPE[atype]):
        ints += f" (or ml_dtypes.{_FORMAT_DTYPE[atype]} values, with ml_dtypes installed)"
    return own, (f"{_dtype_name(own)} values or {ints}" if own is not None else ints)


def _operand_array(instruction: str, index: int, a, src_width: int | None) -> np.ndarray:
    """Operand ``index`` as an array of its registers' bits (unsigned, of the
    register width), under the dtype contract: an array of the source
    format's own float dtype is read as its codes, an integer array of
    exactly the register's width as register bits, Python ints (alone or in
    lists) as registers; anything else is a TypeError naming what it takes."""
    registers = _registers(instruction)
    if index >= len(registers):
        # Too many operands: the native side says how many the form takes.
        return np.zeros(np.shape(a) if isinstance(a, (np.ndarray, np.generic)) else (), np.uint64)
    name, natural = registers[index]
    width = src_width if src_width is not None and name in _VALUE_OPERANDS else natural
    own, accepted = _accepted(instruction, index, width)
    what = f"operand {index + 1} ({name} of {_canonical(instruction)}, a {width}-bit register)"
    if not isinstance(a, (np.ndarray, np.generic)):
        arr = np.asarray(a)
        if arr.size == 0 and arr.dtype.kind in "fO":
            return np.zeros(arr.shape, _UNSIGNED[width // 8])  # [] has NumPy's default float64
        if arr.dtype.kind == "f" or (arr.dtype.kind == "O" and any(isinstance(v, float) for v in arr.flat)):
            hint = f"np.asarray(x, dtype={_dtype_name(own)})" if own is not None else f"np.uint{width} register bits"
            raise TypeError(
                f"{what}: got Python floats, which have no register width; pass {accepted} "
                f"({hint} if these are values)"
            )
        if arr.dtype.kind in "iuO" and arr.size > 0:
            try:
                ints = arr.astype(object)
                if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << width for v in ints.flat):
                    raise ValueError
            except (TypeError, ValueError):
                raise ValueError(f"{what}: expected ints in [0, 2**{width}) (the register's bits)") from None
            return ints.astype(_UNSIGNED[width // 8])
        a = arr
    dt = a.dtype
    if dt.kind in "iu" and dt.itemsize * 8 == width:
        bits = a
    elif own is not None and (dt if dt.isnative else dt.newbyteorder("=")) == own:
        bits = a
    else:
        if dt.kind in "iu":
            article = "an" if dt.name.startswith("i") else "a"
            why = f"{article} {dt.name} array is {dt.itemsize * 8}-bit registers, not {width}-bit ones"
        elif dt.kind in "fV" and dt.fields is None:
            why = f"a {dt.name} array would be read as {dt.itemsize * 8}-bit registers of its bits, not converted"
        else:
            why = f"dtype {dt} holds no register bits"
        hint = ""
        if dt.kind == "f" and own is not None:
            hint = f" (np.asarray(x, dtype={_dtype_name(own)}) if these are values)"
        elif dt.kind in "iu" and src_width is None and name in _VALUE_OPERANDS and dt.itemsize * 8 > width:
            hint = f" (src_width={dt.itemsize * 8} if these are wider registers)"
        raise TypeError(f"{what}: {why}; pass {accepted}{hint}")
    if not dt.isnative:
        bits = bits.astype(dt.newbyteorder("="))
    return bits.view(_UNSIGNED[dt.itemsize])


def _result_dtype(instruction: str, width: int) -> np.dtype:
    """The float dtype of ``out_dtype="float"`` results: the destination
    format's, if NumPy or ml_dtypes has it and the register is its size."""
    dtype = _canonical(instruction).rsplit(".", 2)[-2]
    dt = _float_dtype(dtype)
    if dt is not None and dt.itemsize * 8 == width:
        return dt
    if dtype.endswith(("x2", "x4")):
        why = f"{dtype} is a packed type; lanes(\"{dtype}\", bits) splits the bits into lanes"
    elif dt is not None:
        why = f"a {width}-bit destination register is not {_dtype_name(dt)}"
    elif dtype in _FORMAT_DTYPE:
        why = f"{dtype} values need ml_dtypes.{_FORMAT_DTYPE[dtype]} (pip install ml_dtypes)"
    else:
        why = f"neither NumPy nor ml_dtypes has a dtype for {dtype}"
    raise TypeError(f'out_dtype="float": {why}; results as bits: out_dtype=None')


def convert(
    instruction: str,
    *arrays,
    dst_width: int | None = None,
    src_width: int | None = None,
    profile: str = "sm90",
    out: np.ndarray | None = None,
    out_dtype: str | None = None,
) -> np.ndarray:
    """The destination registers of ``instruction`` on arrays of source registers.

    Each array holds one source operand per element (``cvt.rn.f16.f32``
    takes one, ``cvt.rn.satfinite.e4m3x2.f32`` two, ``.rs`` forms add
    ``rbits``); the arrays broadcast together. The dtype contract:

    - an array of the source format's own float dtype (float16, float32,
      float64; ml_dtypes' bfloat16, float8_e4m3fn, float8_e5m2,
      float4_e2m1fn, float8_e8m0fnu, ...) is read as that format's codes;
    - an integer array (signed or unsigned) of exactly the register's width
      is read as register bits (``src_width`` asks for wider source
      registers, as ``dst_width`` for the destination);
    - Python ints, alone or in lists, are registers as wide as the
      operand's type;
    - anything else is a ``TypeError`` naming the dtypes it takes: a
      float64 array for an f32 source, an int64 array for a 32-bit
      register, a list of Python floats (``np.asarray(x, dtype=np.float32)``
      says which format they are).

    The result is unsigned register bits of the destination width
    (``uint16`` for f16), or with ``out_dtype="float"`` the destination
    format's float dtype where NumPy or ml_dtypes has one.

    ``out``, a C-contiguous unsigned array of the destination width and of
    the operands' broadcast shape, receives the bits instead of a new
    array (reusing one saves the memory's first-touch cost on large arrays).

    Runs the fast engine (sm90 profile) with the GIL released. Where the
    answer is a set (a NaN whose bits the profile leaves open), the element is
    the format's canonical NaN, as in the Rust batch API; ``evaluate`` gives
    the set itself.

    >>> convert("cvt.rn.f16.f32", np.array([1.0, 65520.0], np.float32))
    array([15360, 31744], dtype=uint16)
    >>> convert("cvt.rn.f16.f32", np.array([1.0, 65520.0], np.float32), out_dtype="float")
    array([ 1., inf], dtype=float16)
    >>> convert("cvt.rn.f16.f32", np.array([1.0, 2.0]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: operand 1 (a of cvt.rn.f16.f32, a 32-bit register): a float64 array ...; pass np.float32 values ...
    """
    if out_dtype not in (None, "bits", "float"):
        raise ValueError(f'out_dtype: expected None (register bits) or "float", got {out_dtype!r}')
    if src_width is not None and src_width not in (8, 16, 32, 64):
        raise ValueError(f"src_width {src_width}: registers are 8, 16, 32 or 64 bits wide")
    arrays = [_operand_array(instruction, i, a, src_width) for i, a in enumerate(arrays)]
    shape = np.broadcast_shapes(*(a.shape for a in arrays)) if arrays else (0,)
    flat = [np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1) for a in arrays]
    if out_dtype == "float":
        # Checked before the work, and the refusal names the destination.
        float_dt = _result_dtype(instruction, dst_width if dst_width is not None else _dst_bits(instruction))
    if out is None:
        result = _ptx_cvt.convert_bits(instruction, flat, dst_width, profile).reshape(shape)
    else:
        if not isinstance(out, np.ndarray) or out.shape != shape or not out.flags.c_contiguous:
            raise ValueError(f"out: expected a C-contiguous array of shape {shape}")
        _ptx_cvt.convert_bits(instruction, flat, dst_width, profile, out.reshape(-1))
        result = out
    return result.view(float_dt) if out_dtype == "float" else result


def _dst_bits(instruction: str) -> int:
    return _ptx_cvt.type_facts(_canonical(instruction).rsplit(".", 2)[-2])["bits"]


def read_cases(path: str | os.PathLike) -> list[Case]:
    """The cases of a case file, or of every ``*.cases`` file of a directory
    (sorted by name), comments and blank lines skipped; ValueError
    ``PATH:LINE: message`` at the first malformed line."""
    cases: list[Case] = []
    for name in _check.case_files(path):
        with open(name, encoding="utf-8") as f:
            cases.extend(parse_cases(f, name=name))
    return cases


def check(
    impl,
    cases=None,
    *,
    vectorized: bool | None = None,
    profile: str = "sm90",
    target: str | None = None,
    ptx_version: str | None = None,
    name: str = "<string>",
    batch: int = 1024,
    natural_widths: bool = True,
) -> Report:
    """Check a Python function's answers, or recorded results, against the
    oracle, as ``ptx-cvt check`` does; returns a ``Report``.

    ``check(impl, cases)``: ``impl`` answers every case of ``cases`` (a case
    file, a directory of ``*.cases`` files, a list of them, or ``Case``
    objects; results written in the lines are ignored). Vectorised,
    ``impl(instruction, operands) -> array`` is called once per batch of
    one variant with a list of unsigned register arrays (``uint32`` for an
    f32 operand) and returns the destination registers (unsigned or signed
    ints of the register's width, or the destination's float dtype); scalar
    (a signature with ``*operands``, or ``vectorized=False``),
    ``impl(instruction, *operands) -> int``. Raising ``NotImplementedError``
    or returning None declines (the case counts as unsupported); any other
    exception is that case's crash, its traceback in ``Report.crashes``.
    Cases whose registers are wider than their types (a 64-bit register
    for an f32 operand) are left out and counted in ``Report.skipped``;
    ``natural_widths=False`` sends them too (as ``uint64`` arrays).

    ``check(lines)``: case lines that carry their results (a str, or an
    iterable of lines such as an open file; ``name`` names them in
    messages). The Report is also the sequence of its mismatches, as this
    call's list was before.

    A malformed line raises ValueError ``NAME:LINE: message``, an illegal
    one (on ``target``, if given) IllegalInstruction, before anything runs.

    >>> def f16_of_f32(instruction, operands):
    ...     return operands[0].view(np.float32).astype(np.float16)   # NumPy rounds to nearest even
    >>> r = check(f16_of_f32, parse_cases(["cvt.rn.f16.f32 3f801000", "cvt.rn.f16.f32 477ff000"]))
    >>> r.totals
    (2, 0, 0, 0, 0)
    """
    if callable(impl):
        if cases is None:
            raise TypeError(
                "check(impl, cases): name the cases: a case file or directory, a list of them, or Case objects"
            )
        v = _check._is_vectorized(impl) if vectorized is None else vectorized
        return _ptx_cvt.run_check(
            _check.sources(cases),
            _check._caller(impl, v),
            _check._impl_name(impl),
            profile=profile,
            target=target,
            ptx_version=ptx_version,
            batch=batch,
            natural_widths=natural_widths,
        )
    if cases is not None:
        raise TypeError("check(lines) checks the results the lines carry; check(impl, cases) checks a function")
    return _ptx_cvt.run_check([(name, impl)], None, profile=profile, target=target, ptx_version=ptx_version)


def check_file(path: str | os.PathLike, **options) -> Report:
    """``check`` on the recorded results of a case file, or of every
    ``*.cases`` file of a directory (``ptx-cvt check PATH``); options as
    for ``check``."""
    unknown = set(options) - {"profile", "target", "ptx_version"}
    if unknown:
        raise TypeError(f"check_file: unexpected option(s) {', '.join(sorted(unknown))}")
    return _ptx_cvt.run_check(_check.sources(path), None, **options)


def fuzz(
    impl,
    filter=None,
    *,
    seconds: float = 10.0,
    cases: int | None = None,
    seed: int | None = 1,
    target: str = "sm_90",
    ptx_version: str | None = None,
    profile: str = "sm90",
    vectorized: bool | None = None,
    batch: int = 1024,
) -> Report:
    """Fuzz a Python function, as ``ptx-cvt fuzz``: the variants legal on
    ``target`` that match ``filter`` (a glob or a list of globs: ``*``,
    ``?``, ``[...]``, ``{a,b}``; default every one), round-robin, a batch
    each: first the oracle's compact generator cases, then random registers
    and cases with a few bits flipped; until ``seconds`` (0: no limit) or
    ``cases`` are spent. ``impl`` as for ``check``. The inputs depend only
    on ``seed`` (default 1, as ``ptx-cvt fuzz``; None picks one from the
    clock), which the Report keeps.

    >>> f16 = lambda instruction, ops: ops[0].view(np.float32).astype(np.float16)
    >>> r = fuzz(f16, "cvt.rn.f16.f32", cases=2000)
    >>> [b.text for b in r.bug_classes]     # NumPy's NaN is 7e00, sm90's 7fff
    ['only bits the ISA leaves open differ (passes under --profile isa)']
    >>> r.mismatches[0].case
    'cvt.rn.f16.f32 7fc00000 => 7fff'
    >>> fuzz(f16, "cvt.rn.f16.f32", cases=2000, profile="isa").failed
    0
    """
    if seed is None:
        seed = _check.clock_seed()
    variants = _check.chosen_variants(filter, target, ptx_version)
    v = _check._is_vectorized(impl) if vectorized is None else vectorized
    return _ptx_cvt.run_fuzz(
        _check._caller(impl, v),
        _check._impl_name(impl),
        variants,
        seconds=seconds,
        cases=cases,
        seed=seed,
        profile=profile,
        batch=batch,
    )


def _decode_array(fmt: str, bits: np.ndarray) -> np.ndarray:
    """float64 values of an array of codes: through the oracle's exact
    widening to f64 where cvt has one, else code by code (each distinct code once)."""
    if bits.dtype.kind not in "iu":
        raise TypeError(f"decode: expected an integer array of codes, got {bits.dtype}")
    width = bits.dtype.itemsize * 8
    u = bits.astype(bits.dtype.newbyteorder("=")).view(_UNSIGNED[bits.dtype.itemsize])
    if fmt == "f64" and width == 64:
        return u.view(np.float64).copy()
    widen = f"cvt.f64.{fmt}"
    if fmt in ("f16", "bf16", "f32") and width == _ptx_cvt.format_facts(fmt)["bits"]:
        return convert(widen, u).view(np.float64)
    codes, inverse = np.unique(u, return_inverse=True)
    table = np.array([decode(fmt, int(c)) for c in codes], np.float64)
    return table[inverse].reshape(u.shape)


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

    An array of codes (unsigned or signed ints) gives a float64 array:

    >>> decode("e4m3", np.array([0x38, 0x7e, 0xb8], np.uint8))
    array([  1., 448.,  -1.])
    """
    if isinstance(bits, np.ndarray):
        if exact:
            raise ValueError("exact=True decodes one code (an int); an array gives float64 values")
        return _decode_array(fmt, bits)
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


def _lane_type(form: str) -> dict:
    """The facts of a packed type, named or as an instruction's destination."""
    t = canonical(form).rsplit(".", 2)[-2] if form.startswith("cvt") else form
    facts = _ptx_cvt.type_facts(t)
    if not facts["packed"]:
        raise ValueError(f"{t} is not a packed type (lanes and pack take f16x2, e4m3x2, ue8m0x2, ...)")
    return facts


def lanes(form: str, bits, out_dtype: str | None = None):
    """The lanes of packed registers (``form``: a packed type such as
    ``"e4m3x2"``, or an instruction with a packed destination), in PTX
    operand order: the lane of ``a`` (the high bits) first. An int gives a
    tuple of ints, an array an array with a last axis of lanes (unsigned
    codes, or with ``out_dtype="float"`` the lane format's float dtype).

    >>> [hex(x) for x in lanes("cvt.rn.f16x2.f32", 0x3C004000)]     # a = 1.0, b = 2.0
    ['0x3c00', '0x4000']
    >>> lanes("e4m3x2", np.array([0x3840], np.uint16))
    array([[56, 64]], dtype=uint8)
    """
    f = _lane_type(form)
    n, w = f["lanes"], f["lane_bits"]
    shifts = [(n - 1 - i) * w for i in range(n)]
    mask = (1 << w) - 1
    if isinstance(bits, int):
        if not 0 <= bits < 1 << f["bits"]:
            raise ValueError(f"{bits:#x} does not fit the {f['bits']}-bit {f['name']} register")
        if out_dtype is not None:
            raise ValueError("out_dtype applies to arrays (lanes of an int are ints)")
        return tuple((bits >> s) & mask for s in shifts)
    a = np.asarray(bits)
    if a.dtype.kind not in "iu" or a.dtype.itemsize * 8 != f["bits"]:
        raise TypeError(f"lanes: expected np.uint{f['bits']} or np.int{f['bits']} bits of {f['name']}, got {a.dtype}")
    a = a.astype(_UNSIGNED[f["bits"] // 8])
    lane_dt = _UNSIGNED[max(w, 8) // 8]
    out = np.stack([((a >> a.dtype.type(s)) & a.dtype.type(mask)).astype(lane_dt) for s in shifts], axis=-1)
    if out_dtype == "float":
        dt = _float_dtype(f["format"])
        if dt is None:
            raise TypeError(f'out_dtype="float": no NumPy or ml_dtypes dtype for {f["format"]} (pip install ml_dtypes)')
        return out.view(dt)
    if out_dtype is not None:
        raise ValueError(f'out_dtype: expected None (codes) or "float", got {out_dtype!r}')
    return out


def pack(form: str, lanes):
    """Packed registers from their lanes (``lanes``' inverse): a sequence of
    ints in PTX operand order gives an int; an array whose last axis holds
    the lanes (codes, or the lane format's float dtype) gives unsigned
    registers.

    >>> hex(pack("f16x2", [0x3C00, 0x4000]))
    '0x3c004000'
    """
    f = _lane_type(form)
    n, w = f["lanes"], f["lane_bits"]
    mask = (1 << w) - 1
    if isinstance(lanes, (list, tuple)) and all(isinstance(x, int) for x in lanes):
        if len(lanes) != n:
            raise ValueError(f"{f['name']} has {n} lanes, got {len(lanes)}")
        bad = [x for x in lanes if not 0 <= x <= mask]
        if bad:
            raise ValueError(f"lane {bad[0]:#x} does not fit {w} bits")
        return sum(x << ((n - 1 - i) * w) for i, x in enumerate(lanes))
    a = np.asarray(lanes)
    if a.ndim == 0 or a.shape[-1] != n:
        raise ValueError(f"{f['name']} has {n} lanes: expected a last axis of {n}, got shape {a.shape}")
    own = _float_dtype(f["format"])
    if own is not None and a.dtype == own:
        a = a.view(_UNSIGNED[a.dtype.itemsize])
    elif a.dtype.kind not in "iu":
        raise TypeError(f"pack: expected lane codes (ints) or {own or 'codes'}, got {a.dtype}")
    a = a.astype(np.uint64)
    if np.any(a > mask):
        raise ValueError(f"a lane does not fit {w} bits")
    out = np.zeros(a.shape[:-1], np.uint64)
    for i in range(n):
        out |= a[..., i] << np.uint64((n - 1 - i) * w)
    return out.astype(_UNSIGNED[f["bits"] // 8])


_ROUND_TO_INT = {"rn": "rni", "rz": "rzi", "rm": "rmi", "rp": "rpi"}


def _encoder(fmt: str, rounding: str, saturate: bool | None) -> tuple[str, str]:
    """The cvt spelling that takes ``fmt``'s values from f64 (or f32, where
    no form takes f64), and that source type."""
    legal = set(list_variants())
    r = rounding if _ptx_cvt.format_facts(fmt)["kind"] == "float" else _ROUND_TO_INT.get(rounding, rounding)
    sats = {None: ["", ".satfinite", ".sat"], True: [".satfinite", ".sat"], False: [""]}[saturate]
    for src in ("f64", "f32"):
        for dst in (fmt, fmt + "x2"):
            for sat in sats:
                spelling = f"cvt.{r}{sat}.{dst}.{src}"
                if spelling in legal:
                    return spelling, src
    raise ValueError(
        f"no cvt rounds to {fmt} with .{r}"
        + ("" if saturate is None else f" {'with' if saturate else 'without'} saturation")
        + " from f64 or f32 (ptx_cvt.list_variants() lists the forms)"
    )


def encode(fmt: str, values, rounding: str = "rn", *, saturate: bool | None = None):
    """The codes of ``values`` in format ``fmt``, rounded by the oracle as
    ``cvt`` rounds (never by the host): through ``cvt.<rounding>.<fmt>.f64``,
    or where ``fmt`` is only reached from f32 (``e4m3``, ``e2m1``,
    ``ue8m0``, ``tf32``, ...) through the f32 form, for values f32 holds
    exactly (others raise ValueError: rounding them to f32 first would round
    twice). ``rounding`` is the PTX modifier (``rn``, ``rz``, ``rm``,
    ``rp``, ``rna``, ``rs`` is not taken; ``rn`` means ``rni`` for integer
    formats); ``saturate`` picks the ``.sat``/``.satfinite`` form (default:
    the plain form where there is one). A float or int gives an int, an
    array an array of unsigned codes.

    >>> hex(encode("f16", 1.0)), hex(encode("e4m3", 448.0)), hex(encode("e4m3", 1000.0))
    ('0x3c00', '0x7e', '0x7e')
    >>> encode("bf16", [1.0, 1.00390625], rounding="rz")
    array([16256, 16256], dtype=uint16)
    """
    spelling, src = _encoder(fmt, rounding, saturate)
    scalar = np.ndim(values) == 0
    raw = np.asarray(values)
    if raw.dtype.kind in "fV" and raw.dtype.fields is None:
        x = raw.astype(np.float64)
    elif raw.dtype.kind in "iuO":
        flat = raw.reshape(-1).tolist()
        try:
            as_f64 = [float(v) for v in flat]
        except (TypeError, ValueError, OverflowError):
            raise TypeError(f"encode: expected numbers, got {flat!r}") from None
        for v, y in zip(flat, as_f64):
            if math.isfinite(y) and Fraction(v) != Fraction(y):
                raise ValueError(f"{v!r} is not exactly an f64; encode takes values f64 holds")
        x = np.array(as_f64, np.float64).reshape(raw.shape)
    else:
        raise TypeError(f"encode: expected numbers, got dtype {raw.dtype}")
    if src == "f32":
        with np.errstate(over="ignore"):
            y = x.astype(np.float32)
        bad = ~((y.astype(np.float64) == x) | np.isnan(x))
        if np.any(bad):
            v = x[bad].reshape(-1)[0]
            raise ValueError(
                f"{v!r} is not exactly an f32: {fmt} is reached from f32 only ({spelling}), "
                "and rounding to f32 first would round twice"
            )
        x = y
    ops = [x]
    if fmt + "x2" == spelling.rsplit(".", 2)[-2]:
        ops.append(np.zeros_like(x))
    bits = convert(spelling, *ops)
    if len(ops) == 2:
        bits = lanes(spelling, bits)[..., 0]
    return int(bits) if scalar else bits
