"""Type stubs of ptx_cvt: bit-exact semantics of the PTX cvt instruction."""

import os
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union, final, overload

import numpy as np
import numpy.typing as npt

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

_Operand = Union[int, str]
"""A source register: an int (as wide as the operand's type) or hex digits
whose count is the register width (``"139231c2"`` is 32 bits)."""

_Lines = Union[str, Iterable[str]]
_Result = Union[int, "Accept"]

class IllegalInstruction(ValueError):
    """A well-formed spelling that the legality rules reject."""

@final
class Accept:
    """A set of register values: what a result may be when the ISA leaves bits open."""

    def __new__(cls, text: str, dtype: Optional[str] = None) -> Accept: ...
    @property
    def width(self) -> int: ...
    @property
    def single(self) -> Optional[int]: ...
    def contains(self, bits: int) -> bool: ...
    def __contains__(self, bits: object, /) -> bool: ...
    def issubset(self, other: Accept) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class Step:
    """One rule that fired."""

    rule: str
    evidence: str
    detail: str
    rule_text: str
    lane: str
    section: str

@final
class Explanation:
    """``ptx-cvt explain`` as an object; ``str()`` is its text."""

    instruction: str
    family: str
    profile: str
    legality: str
    input: str
    steps: list[Step]
    result: _Result
    result_meaning: str
    text: str

@final
class Case:
    """One parsed case line."""

    instruction: str
    operands: list[int]
    operand_widths: list[int]
    result: Optional[Accept]
    dst_width: int
    comment: Optional[str]
    coverage_class: Optional[str]
    line: int
    text: str

@final
class Mismatch:
    """A recorded result the oracle rejects; ``str()`` is ``ptx-cvt check``'s report."""

    file: str
    line: int
    instruction: str
    operands: list[str]
    input: str
    expected: Accept
    got: Accept
    rule: str
    evidence: str
    rule_text: str
    section: str
    coverage_class: str
    case: str
    hypotheses: list[str]
    text: str
    bug_classes: list[int]

class MismatchError(AssertionError):
    """``Report.raise_for_mismatches``: a case failed or crashed; the message is the report."""

@final
class BugClass:
    """One bug class of a Report: one cause (docs/diagnosis.md)."""

    id: int
    name: Optional[str]
    text: str
    scope: str
    family: str
    rule: str
    cases: int
    variants: list[str]
    example: Mismatch
    members: list[int]

@final
class Crash:
    """A case the function under test crashed on, with its traceback."""

    file: str
    line: int
    case: str
    message: str

@final
class Report:
    """A check or fuzz run: totals, bug classes, mismatches, crashes; a sequence of its mismatches."""

    passed: int
    failed: int
    unsupported: int
    crashed: int
    not_run: int
    mismatches: list[Mismatch]
    bug_classes: list[BugClass]
    crashes: list[Crash]
    seed: Optional[int]
    skipped: int
    @property
    def totals(self) -> tuple[int, int, int, int, int]: ...
    def text(self) -> str: ...
    def to_json(self) -> str: ...
    def raise_for_mismatches(self) -> None: ...
    def __len__(self) -> int: ...
    def __getitem__(self, index: int, /) -> Mismatch: ...
    def __iter__(self) -> Iterator[Mismatch]: ...
    def __bool__(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...

_Impl = Callable[..., Any]
"""A function under test: ``impl(instruction, operands: list[np.ndarray]) -> np.ndarray``
(vectorised) or ``impl(instruction, *operands: int) -> int`` (scalar)."""

_Cases = Union[str, os.PathLike[str], Case, Iterable[Union[str, os.PathLike[str], Case]]]

def evaluate(
    instruction: str,
    *operands: _Operand,
    dst_width: Optional[int] = None,
    profile: str = "sm90",
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
) -> _Result:
    """The destination register: an int, or an Accept when the answer is a set."""

def explain(
    instruction: str,
    *operands: _Operand,
    dst_width: Optional[int] = None,
    profile: str = "sm90",
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
) -> Explanation:
    """The rules that decide the result, as ``ptx-cvt explain`` shows them."""

def convert(
    instruction: str,
    *arrays: npt.ArrayLike,
    dst_width: Optional[int] = None,
    src_width: Optional[int] = None,
    profile: str = "sm90",
    out: Optional[npt.NDArray[np.unsignedinteger]] = None,
    out_dtype: Optional[str] = None,
) -> npt.NDArray[Any]:
    """Arrays of source registers (the source format's own float dtype, or
    integers of exactly the register's width) to an array of destination
    registers (unsigned bits, or the destination's float dtype with
    ``out_dtype="float"``), through the fast engine with the GIL released;
    into ``out`` if given. Any other dtype is a TypeError."""

def accepts(
    instruction: str,
    operands: Sequence[_Operand],
    result: Union[int, str],
    *,
    dst_width: Optional[int] = None,
    profile: str = "sm90",
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
) -> bool:
    """Whether a register value (int) or every member of a case-line result (str) is allowed."""

@overload
def check(
    impl: _Lines,
    cases: None = None,
    *,
    vectorized: Optional[bool] = None,
    profile: str = "sm90",
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
    name: str = "<string>",
    batch: int = 1024,
    natural_widths: bool = True,
) -> Report: ...
@overload
def check(
    impl: _Impl,
    cases: _Cases,
    *,
    vectorized: Optional[bool] = None,
    profile: str = "sm90",
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
    name: str = "<string>",
    batch: int = 1024,
    natural_widths: bool = True,
) -> Report: ...
def check_file(path: Union[str, os.PathLike[str]], **options: Any) -> Report:
    """``check`` on a case file's recorded results, or on every ``*.cases`` file of a directory (sorted)."""

def fuzz(
    impl: _Impl,
    filter: Union[str, Iterable[str], None] = None,
    *,
    seconds: float = 10.0,
    cases: Optional[int] = None,
    seed: Optional[int] = 1,
    target: str = "sm_90",
    ptx_version: Optional[str] = None,
    profile: str = "sm90",
    vectorized: Optional[bool] = None,
    batch: int = 1024,
) -> Report:
    """Fuzz a Python function on the variants matching ``filter``, as ``ptx-cvt fuzz``."""

def parse_case(line: str) -> Optional[Case]:
    """One case line; None for blank and comment lines."""

def parse_cases(lines: _Lines, name: str = "<string>") -> list[Case]:
    """Case lines, blank and comment lines skipped."""

def read_cases(path: Union[str, os.PathLike[str]]) -> list[Case]:
    """The cases of a case file, or of every ``*.cases`` file of a directory (sorted)."""

def list_variants(target: Optional[str] = None, ptx_version: Optional[str] = None) -> list[str]:
    """Every legal spelling, canonical, as ``ptx-cvt list`` prints them."""

def legal(
    instruction: str,
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
    *,
    src_width: Optional[int] = None,
    dst_width: Optional[int] = None,
) -> bool:
    """Whether a spelling is legal (on every target without ``target``)."""

def illegal_reason(
    instruction: str,
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
    *,
    src_width: Optional[int] = None,
    dst_width: Optional[int] = None,
) -> Optional[str]:
    """The rule a spelling breaks, or None when it is legal."""

def canonical(instruction: str) -> str:
    """The canonical spelling of an instruction."""

def operand_registers(instruction: str) -> list[tuple[str, int]]:
    """The source operands of a form as (name, register bits)."""

__version__: str
SEMANTICS_VERSION: int

@overload
def decode(fmt: str, bits: int, exact: bool = False) -> Union[float, Fraction]:
    """The value of ``bits`` in format ``fmt``: a float, or the exact Fraction."""

@overload
def decode(fmt: str, bits: npt.NDArray[np.integer], exact: bool = False) -> npt.NDArray[np.float64]:
    """The float64 values of an array of codes."""

class finfo:
    """The facts of a floating-point format from the oracle's format table."""

    name: str
    bits: int
    exp_bits: int
    man_bits: int
    bias: int
    signed: bool
    has_inf: bool
    has_nan: bool
    has_subnormals: bool
    max_code: int
    max_exact: Fraction
    smallest_normal_exact: Fraction
    smallest_subnormal_exact: Optional[Fraction]
    eps_exact: Fraction
    def __init__(self, fmt: str) -> None: ...
    @property
    def max(self) -> float: ...
    @property
    def smallest_normal(self) -> float: ...
    @property
    def smallest_subnormal(self) -> Optional[float]: ...
    @property
    def eps(self) -> float: ...

def encode(fmt: str, values: Any, rounding: str = "rn", *, saturate: Optional[bool] = None) -> Any:
    """The codes of values in ``fmt``, rounded by the oracle's cvt (an int, or an array)."""

def lanes(form: str, bits: Any, out_dtype: Optional[str] = None) -> Any:
    """The lanes of packed registers, the lane of ``a`` (high bits) first."""

def pack(form: str, lanes: Any) -> Any:
    """Packed registers from their lanes (``lanes``' inverse)."""
