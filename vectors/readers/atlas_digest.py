#!/usr/bin/env python3
"""Reference implementation of the ptx-cvt sweep/atlas digest (vectors/README.md,
"Digest atlas"), Python 3 standard library only; needs read_cases.py next to it.

    digest_term(x, r)           one input's term: splitmix64(x * K ^ r) mod 2^64
    input_number(operands)      x: the source registers concatenated, first operand high
    representative(case, open_nan, mask)
                                r: the result register, a set's representative
                                (canonical NaN per lane, open bits zero)

Command line:
    python3 atlas_digest.py [--open-nan] [--mask HEX] FILE...
reads case lines of one instruction (your implementation's results, or
`ptx-cvt sweep --out`) and prints `# instruction: V`, one `BLOCK DIGEST` line
per block of 2^24 inputs that has inputs, and `# digest: D` (their sum).
Compare with the atlas: ptx-cvt atlas check vectors/atlas --digests OUT.
--open-nan (the variant's atlas file says `open-nan: yes`): every NaN result
counts as the canonical NaN. --mask (the file's `mask:` line): only those
result bits count. Exit 1 with "FILE:LINE: message" on a bad line.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_cases import FLOATS, is_nan, parse_line  # noqa: E402

K = 0xD6E8FEB86659FD93
M64 = (1 << 64) - 1
BLOCK_BITS = 24


def splitmix64(z):
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def digest_term(x, r):
    return splitmix64(((x * K) & M64) ^ r)


def input_number(operands):
    x = 0
    for value, width in operands:
        x = (x << width) | value
    return x


def canonical_nan(fmt):
    """Sign clear, every exponent and fraction bit set, at the format's place in its container."""
    _, e, m, _, shift = FLOATS[fmt]
    return ((1 << (e + m)) - 1) << shift


def _nan_lanes(value, fmt, lane_bits, lanes):
    """Every NaN lane of `value` replaced by the canonical NaN."""
    for i in range(lanes):
        lane = (value >> (i * lane_bits)) & ((1 << lane_bits) - 1)
        shift = FLOATS[fmt][4]
        if is_nan(fmt, lane >> shift):
            value &= ~(((1 << lane_bits) - 1) << (i * lane_bits))
            value |= (canonical_nan(fmt) & ((1 << lane_bits) - 1)) << (i * lane_bits)
    return value


def representative(case, open_nan=False, mask=None):
    """The result bits the digest takes (ValueError if the result is missing or several alternatives)."""
    res = case["result"]
    if not res or len(res) != 1:
        raise ValueError("the digest needs one result per line (`=> HEX`, `nan` or lanes), not "
                         + ("none" if not res else "alternatives"))
    a, fmt = res[0], case["format"]
    if a["kind"] == "bits":
        r = a["value"] & a["mask"]
    elif a["kind"] == "nan":
        r = canonical_nan(fmt)
    else:
        lb, lanes, r = a["lane_bits"], a["lanes"], 0
        for lane in lanes:
            r = (r << lb) | (canonical_nan(fmt) & ((1 << lb) - 1) if lane == "nan" else lane[0] & lane[1])
    if mask is not None:
        r &= mask
    if open_nan and fmt in FLOATS:
        width = a["width"]
        packed = a["kind"] == "lanes"
        lb = a["lane_bits"] if packed else width
        r = _nan_lanes(r, fmt, lb, width // lb)
    return r


def main(argv):
    open_nan, mask, files = False, None, []
    it = iter(argv)
    for a in it:
        if a == "--open-nan":
            open_nan = True
        elif a == "--mask":
            mask = int(next(it, "x"), 16)
        else:
            files.append(a)
    if not files:
        print("usage: atlas_digest.py [--open-nan] [--mask HEX] FILE...", file=sys.stderr)
        return 2
    blocks, instruction = {}, None
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                try:
                    case = parse_line(line)
                    if case is None:
                        continue
                    if instruction is None:
                        instruction = case["instruction"]
                    elif case["instruction"] != instruction:
                        raise ValueError(f"`{case['instruction']}`: every line must be `{instruction}`")
                    x = input_number(case["operands"])
                    r = representative(case, open_nan, mask)
                except ValueError as e:
                    print(f"{path}:{lineno}: {e}", file=sys.stderr)
                    return 1
                b = x >> BLOCK_BITS
                blocks[b] = (blocks.get(b, 0) + digest_term(x, r)) & M64
    print(f"# instruction: {instruction}")
    for b in sorted(blocks):
        print(f"{b} {blocks[b]:016x}")
    print(f"# digest: {sum(blocks.values()) & M64:016x}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
