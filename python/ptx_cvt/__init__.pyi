"""Type stubs of ptx_cvt: bit-exact semantics of the PTX cvt instruction."""

import os
from fractions import Fraction
from typing import Iterable, Optional, Sequence, Union, final

import numpy as np
import numpy.typing as npt

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
    profile: str = "sm90",
    out: Optional[npt.NDArray[np.unsignedinteger]] = None,
) -> npt.NDArray[np.unsignedinteger]:
    """Arrays of source registers (unsigned ints of the register width, or
    floats read as bits) to an unsigned array of destination registers,
    through the fast engine with the GIL released; into ``out`` if given."""

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

def check(
    lines: _Lines,
    *,
    profile: str = "sm90",
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
    name: str = "<string>",
) -> list[Mismatch]:
    """Check case lines with results, as ``ptx-cvt check``; returns the mismatches."""

def check_file(
    path: Union[str, os.PathLike[str]],
    *,
    profile: str = "sm90",
    target: Optional[str] = None,
    ptx_version: Optional[str] = None,
) -> list[Mismatch]:
    """``check`` on a case file, or on every ``*.cases`` file of a directory (sorted)."""

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

def decode(fmt: str, bits: int, exact: bool = False) -> Union[float, Fraction]:
    """The value of ``bits`` in format ``fmt``: a float, or the exact Fraction."""

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
