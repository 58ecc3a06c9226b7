#!/usr/bin/env python3
"""Reference reader for ptx-cvt case lines, version 1 (see vectors/README.md).

Python 3 standard library only; copy this file into your own project.

    parse_line(line)      -> None for blank/comment lines, else a dict:
        instruction  the cvt spelling, e.g. "cvt.rn.f16.f32"
        format       the destination (lane) format, e.g. "f16" for f16x2, or None
        operands     [(value, width_bits), ...]
        result       list of alternatives, or None when the line has no "=> ..."
        comment      text after "#" (stripped), or None
      Each alternative is one of
        {"kind": "bits",  "value", "mask", "width"}           exact, "?" pattern, value/mask
        {"kind": "nan",   "width", "format"}                  any NaN of the format
        {"kind": "lanes", "lanes": [(value, mask) | "nan"], "lane_bits", "width", "format"}
      Malformed lines raise ValueError.
    accepts(result, bits) -> whether a destination register holding `bits` is accepted
    is_nan(format, code)  -> whether `code` is a NaN encoding of `format`
    header(path)          -> {key: value} from the leading "# key: value" lines

Command line:
    python3 read_cases.py [--check-self] FILE...
prints "FILE: N cases read" per file; exits 1 with "FILE:LINE: message" on a
malformed line. --check-self also checks that every single-value result is
accepted by accepts() (a sanity check of the reader itself).
"""

import sys

MAX_LINE = 4096

# Instruction type -> lane format. Packed types name their lane format.
TYPES = {
    "u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
    "s8": "s8", "s16": "s16", "s32": "s32", "s64": "s64",
    "f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64", "tf32": "tf32",
    "f16x2": "f16", "bf16x2": "bf16",
    "e4m3x2": "e4m3", "e5m2x2": "e5m2", "e2m3x2": "e2m3", "e3m2x2": "e3m2",
    "e2m1x2": "e2m1", "ue8m0x2": "ue8m0",
    "e4m3x4": "e4m3", "e5m2x4": "e5m2", "e2m3x4": "e2m3", "e3m2x4": "e3m2",
    "e2m1x4": "e2m1",
}

# Float formats: (container bits, exponent bits, fraction bits, signed, shift).
# shift: position of the format's lowest bit in its container (tf32 uses bits 31..13).
FLOATS = {
    "f16": (16, 5, 10, True, 0),
    "bf16": (16, 8, 7, True, 0),
    "f32": (32, 8, 23, True, 0),
    "f64": (64, 11, 52, True, 0),
    "tf32": (32, 8, 10, True, 13),
    "e4m3": (8, 4, 3, True, 0),
    "e5m2": (8, 5, 2, True, 0),
    "e2m3": (8, 2, 3, True, 0),
    "e3m2": (8, 3, 2, True, 0),
    "e2m1": (4, 2, 1, True, 0),
    "ue8m0": (8, 8, 0, False, 0),
}
INT_BITS = {"u8": 8, "u16": 16, "u32": 32, "u64": 64, "s8": 8, "s16": 16, "s32": 32, "s64": 64}
WIDTHS = {2: 8, 4: 16, 8: 32, 16: 64}
HEX = "0123456789abcdefABCDEF"


def container_bits(fmt):
    return FLOATS[fmt][0] if fmt in FLOATS else INT_BITS[fmt]


def is_nan(fmt, code):
    """Whether `code` (the format's own bits, already shifted down) is a NaN of `fmt`."""
    if fmt in ("e2m3", "e3m2", "e2m1") or fmt not in FLOATS:
        return False                        # no NaN encodings (integers, FP6, FP4)
    _, e, m, signed, _ = FLOATS[fmt]
    mag = code & ((1 << (e + m)) - 1)       # drop the sign bit
    if fmt == "e4m3":
        return mag == 0x7f                  # only S.1111.111
    if fmt == "ue8m0":
        return mag == 0xff
    return mag >> m == (1 << e) - 1 and mag & ((1 << m) - 1) != 0   # IEEE-like


def dest_format(instruction):
    """The destination lane format: the first type among the instruction's dot tokens."""
    for tok in instruction.split(".")[1:]:
        if tok in TYPES:
            return TYPES[tok]
    return None


def _hex(s, what):
    if s.lower().startswith("0x"):
        raise ValueError(f"{what} `{s}`: write hex without the 0x prefix")
    if len(s) not in WIDTHS:
        raise ValueError(f"{what} `{s}` has {len(s)} hex digits; registers take 2, 4, 8 or 16")
    bad = [c for c in s if c not in HEX]
    if bad:
        raise ValueError(f"{what} `{s}` is not hex: unexpected `{bad[0]}`")
    return int(s, 16), WIDTHS[len(s)]


def _pattern(s, what):
    """Hex digits and '?' -> (value, mask)."""
    value = mask = 0
    for c in s:
        value, mask = value << 4, mask << 4
        if c != "?":
            if c not in HEX:
                raise ValueError(f"{what} `{s}` is not hex: unexpected `{c}`")
            value, mask = value | int(c, 16), mask | 0xF
    return value, mask


def _alt(s, fmt):
    if "_" in s:                            # lanes, high lane first
        parts = s.split("_")
        if not all(parts):
            raise ValueError(f"`{s}`: empty lane")
        digits = [len(p) for p in parts if p != "nan"]
        if digits:
            lane_bits = 4 * digits[0]
        elif fmt in FLOATS:
            lane_bits = container_bits(fmt)
        else:
            raise ValueError(f"`{s}`: `nan` lanes need a floating-point destination")
        lanes = []
        for p in parts:
            if p == "nan":
                if fmt not in FLOATS:
                    raise ValueError(f"`{s}`: `nan` needs a floating-point destination")
                lanes.append("nan")
            elif not p or 4 * len(p) != lane_bits:
                raise ValueError(f"`{s}`: lanes must all have {lane_bits // 4} hex digits")
            else:
                lanes.append(_pattern(p, "lane"))
        width = lane_bits * len(parts)
        if width not in (8, 16, 32, 64):
            raise ValueError(f"`{s}`: {len(parts)} lanes of {lane_bits} bits do not fill a register")
        return {"kind": "lanes", "lanes": lanes, "lane_bits": lane_bits, "width": width, "format": fmt}
    if s.startswith("nan"):
        if fmt not in FLOATS:
            raise ValueError("`nan` needs a floating-point destination")
        natural = container_bits(fmt)
        if s == "nan":
            return {"kind": "nan", "width": natural, "format": fmt}
        w = s[4:]
        if s[3] != ":" or not w or w.strip("0123456789") or int(w) not in (8, 16, 32, 64) or int(w) < natural:
            raise ValueError(f"`{s}`: expected `nan` or `nan:WIDTH` with a register width")
        return {"kind": "nan", "width": int(w), "format": fmt}
    if "/" in s:
        v, m = s.split("/", 1)
        value, w = _hex(v, "value")
        mask, wm = _hex(m, "mask")
        if w != wm:
            raise ValueError(f"value and mask of different widths in `{s}`")
        return {"kind": "bits", "value": value & mask, "mask": mask, "width": w}
    if "?" in s:
        if len(s) not in WIDTHS:
            raise ValueError(f"`{s}` has {len(s)} digits; registers take 2, 4, 8 or 16")
        value, mask = _pattern(s, "result")
        return {"kind": "bits", "value": value, "mask": mask, "width": WIDTHS[len(s)]}
    value, w = _hex(s, "result")
    return {"kind": "bits", "value": value, "mask": (1 << w) - 1, "width": w}


def parse_line(line):
    # A leading byte-order mark (U+FEFF, as some editors write) is not part of the line.
    if line.startswith("\ufeff"):
        line = line[1:]
    if len(line) > MAX_LINE:
        raise ValueError(f"line is {len(line)} bytes long; case lines are at most {MAX_LINE}")
    line = line.rstrip("\r\n")
    body, sep, comment = line.partition("#")
    toks = body.split()
    if not toks:
        return None
    instruction, rest = toks[0], toks[1:]
    if not instruction.startswith("cvt."):
        raise ValueError(f"`{instruction}` is not a cvt instruction")
    fmt = dest_format(instruction)
    if fmt is None:
        raise ValueError(f"`{instruction}`: no known destination type")
    operands, result = [], None
    for i, t in enumerate(rest):
        if t == "=>":
            if i + 2 < len(rest):
                raise ValueError(f"unexpected `{rest[i + 2]}` after the result (comments start with #)")
            if i + 1 < len(rest):
                text = rest[i + 1]
                result = [_alt(a, fmt) for a in text.split("|")]
                if len({a["width"] for a in result}) != 1:
                    raise ValueError(f"alternatives of different widths in `{text}`")
            break
        operands.append(_hex(t, f"operand {len(operands) + 1}"))
    if not operands:
        raise ValueError(f"`{instruction}` has no operands: expected hex after the instruction")
    return {"instruction": instruction, "format": fmt, "operands": operands,
            "result": result, "comment": comment.strip() if sep else None}


def accepts(result, bits):
    """Whether a destination register holding `bits` is in the result's set."""
    if result is None:
        return True                         # no expected result given
    for a in result:
        if bits >> a["width"]:
            continue                        # wider than the register
        if a["kind"] == "bits":
            if bits & a["mask"] == a["value"]:
                return True
        elif a["kind"] == "nan":
            n, shift = container_bits(a["format"]), FLOATS[a["format"]][4]
            if bits >> n == 0 and is_nan(a["format"], bits >> shift):
                return True
        else:
            lb, lanes = a["lane_bits"], a["lanes"]
            ok = True
            for i, lane in enumerate(lanes):
                code = (bits >> (lb * (len(lanes) - 1 - i))) & ((1 << lb) - 1)
                if lane == "nan":
                    ok = ok and is_nan(a["format"], code)
                else:
                    ok = ok and code & lane[1] == lane[0]
            if ok:
                return True
    return False


def header(path):
    """The leading `# key: value` comment lines of a file, as a dict."""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            text = line.lstrip("\ufeff").strip()
            if not text.startswith("#"):
                break
            text = text[1:].strip()
            key, sep, value = text.partition(": ")
            if sep or text.endswith(":"):
                out[key.rstrip(":")] = value.strip()
            elif text.startswith("ptx-cvt case lines"):
                out[text] = ""
    return out


def main(argv):
    check = "--check-self" in argv
    files = [a for a in argv if a != "--check-self"]
    if not files:
        print("usage: read_cases.py [--check-self] FILE...", file=sys.stderr)
        return 2
    for path in files:
        try:
            count, checked = _read(path, check)
        except OSError as e:
            print(f"{path}: {e.strerror}", file=sys.stderr)
            return 2
        except ValueError as e:
            print(e, file=sys.stderr)
            return 1
        extra = f" ({checked} exact results self-checked)" if check else ""
        print(f"{path}: {count} cases read{extra}")
    return 0


def _read(path, check):
    """(cases, self-checked results) of one file; ValueError "FILE:LINE: message"."""
    count = checked = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            try:
                case = parse_line(line)
            except ValueError as e:
                raise ValueError(f"{path}:{lineno}: {e}") from None
            if case is None:
                continue
            count += 1
            r = case["result"]
            if check and r and len(r) == 1 and r[0]["kind"] == "bits" \
                    and r[0]["mask"] == (1 << r[0]["width"]) - 1:
                if not accepts(r, r[0]["value"]):
                    raise ValueError(f"{path}:{lineno}: self-check failed")
                checked += 1
    return count, checked


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
