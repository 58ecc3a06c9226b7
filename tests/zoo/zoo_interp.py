#!/usr/bin/env python3
"""A defect zoo for the diagnosis test (tests/zoo.rs): a `cvt` implementation
speaking the --target-cmd protocol that carries many planted defects at once,
each the kind a real emulator has, over overlapping scopes.

    zoo_interp.py VECTORS_DIR [LOG]

Its right answers come from the committed vectors (VECTORS_DIR, the results
the oracle wrote there); cases it finds no plain result for are declined.
Each planted defect below is computed independently of the oracle, with
Python's own float and integer arithmetic. The first defect whose scope holds
a case and that changes its answer decides it; with LOG, each such case is
written there as `instruction operands /WIDTH<TAB>defect` (WIDTH: the destination
register's bits; the test's ground truth).

Standard library only; Python 3.8+.
"""

import math
import os
import struct
import sys

ROUNDINGS = {"rn", "rna", "rz", "rm", "rp", "rs", "rni", "rzi", "rmi", "rpi"}
INTS = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"}


def mask(n):
    return (1 << n) - 1


def parse(instr):
    """(rounding, modifiers, dtype, atype) of a canonical spelling."""
    parts = instr.split(".")[1:]
    n = 3 if parts[-1] == "b32" else 2  # cvt.pack forms name c's type last
    mods = parts[:-n]
    rnd = next((m for m in mods if m in ROUNDINGS), None)
    return rnd, [m for m in mods if m not in ROUNDINGS], parts[-n], parts[-n + 1]


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits & mask(32)))[0]


def to_f32_bits(x):
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return 0xFF800000 if x < 0 else 0x7F800000


def to_f16_bits(x):
    try:
        return struct.unpack("<H", struct.pack("<e", x))[0]
    except OverflowError:
        return 0xFC00 if x < 0 else 0x7C00


def to_f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def int_value(bits, t):
    n = int(t[1:])
    v = bits & mask(n)
    return v - (1 << n) if t[0] == "s" and v >> (n - 1) else v


def round_int(x, rnd):
    return {"rni": round, "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}[rnd](x)


def int_bits(v, t, width):
    """An integer result in a `width`-bit register (signed types sign-extend)."""
    n = int(t[1:])
    v &= mask(n)
    if t[0] == "s" and v >> (n - 1):
        v |= mask(width) & ~mask(n)
    return v


# Each defect: (name, scope(rnd, mods, dtype, atype), answer(case) -> bits or None).
# `case` has: instr, rnd, mods, d, a, ops (ints), widths, width (dst), right (bits).

def int64_source_zero(k):
    return 0  # the conversion of 0: +0 in every float format


def rn_for_s32(k):
    x = float(int_value(k.ops[0], "s32"))
    return to_f32_bits(x) if k.d == "f32" else to_f16_bits(x)


def sat_ignored_int_float(k):
    x = float(int_value(k.ops[0], k.a))
    return {"f32": to_f32_bits, "f16": to_f16_bits, "f64": to_f64_bits}[k.d](x)


def same_size_copy(k):
    return k.ops[0] & mask(k.width)


def f16_through_f32(k):
    x = f32(k.ops[0] & mask(16))  # the 16 bits read as an f32: 0 or a tiny positive value
    return int_bits(round_int(x, k.rnd), k.d, k.width)


def s64_clamped_in_32_bits(k):
    x = f32(k.ops[0]) if k.a == "f32" else struct.unpack("<d", struct.pack("<Q", k.ops[0]))[0]
    if math.isnan(x):
        v = 0 if k.a == "f32" else -(1 << 31)  # what the s32 conversion gives a NaN
    elif math.isinf(x):
        v = -(1 << 31) if x < 0 else (1 << 31) - 1
    elif -(2 ** 31) <= round_int(x, k.rnd) < 2 ** 31:
        return None  # in range: right
    else:
        v = max(-(1 << 31), min((1 << 31) - 1, round_int(x, k.rnd)))
    return int_bits(v, "s64", k.width)


def x86_indefinite(k):
    x = f32(k.ops[0])
    if math.isnan(x) or math.isinf(x) or not -(2 ** 31) <= round_int(x, k.rnd) < 2 ** 31:
        return int_bits(0x80000000, "s32", k.width)
    return None


def narrow_wraps(k):
    x = f32(k.ops[0])
    if math.isnan(x) or math.isinf(x) or ("ftz" in k.mods and abs(x) < 2.0 ** -126):
        return None
    v = round_int(x, k.rnd)
    n = int(k.d[1:])
    lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if k.d[0] == "s" else (0, (1 << n) - 1)
    return None if lo <= v <= hi else int_bits(v, k.d, k.width)


def f64_integer_rounding_ignored(k):
    e = k.ops[0] >> 52 & 0x7FF
    return None if e == 0x7FF else k.ops[0]


def f32_f64_modifiers_ignored(k):
    b = k.ops[0] & mask(32)
    if (b >> 23 & 0xFF) == 0xFF and b & mask(23):
        # A NaN widened as plain cvt.f64.f32 does (quieted, payload kept), not as .ftz/.sat say.
        return (b >> 31) << 63 | 0x7FF << 52 | ((b | 1 << 22) & mask(23)) << 29
    return to_f64_bits(f32(b))


def bf16_truncates(k):
    if (k.ops[0] >> 23 & 0xFF) == 0xFF:
        return None
    return k.ops[0] >> 16


def f16x2_lanes_swapped(k):
    return (k.right >> 16) | (k.right & 0xFFFF) << 16


def f16_subnormals_flushed(k):
    b = k.ops[0] & 0xFFFF
    if b & 0x7C00 or not b & 0x3FF:
        return None
    neg = b >> 15
    return {"f32": neg << 31, "f64": neg << 63}[k.d]


def f64_nan_all_ones(k):
    if (k.ops[0] >> 52 & 0x7FF) == 0x7FF and k.ops[0] & mask(52):
        return mask(32) & mask(k.width)
    return None


def relu_ignored(k):
    x = f32(k.ops[0])
    return None if math.isnan(x) or x >= 0 else to_f16_bits(x)


DEFECTS = [
    ("int64-source-zero", lambda r, m, d, a: a in ("s64", "u64") and d in ("f32", "f64", "f16"),
     int64_source_zero),
    ("rn-for-s32", lambda r, m, d, a: a == "s32" and d in ("f32", "f16") and r in ("rz", "rm", "rp") and not m,
     rn_for_s32),
    ("sat-ignored-int-float", lambda r, m, d, a: a in INTS and a[1:] != "64" and d in ("f32", "f16", "f64")
     and r == "rn" and "sat" in m, sat_ignored_int_float),
    ("same-size-copy", lambda r, m, d, a: a in INTS and d in INTS and a[1:] == d[1:] and not m, same_size_copy),
    ("f16-through-f32", lambda r, m, d, a: a == "f16" and d in INTS, f16_through_f32),
    ("s64-clamped-in-32-bits", lambda r, m, d, a: d == "s64" and a in ("f32", "f64"), s64_clamped_in_32_bits),
    ("x86-indefinite", lambda r, m, d, a: d == "s32" and a == "f32", x86_indefinite),
    ("narrow-wraps", lambda r, m, d, a: d in ("u8", "u16", "s8", "s16") and a == "f32", narrow_wraps),
    ("f64-integer-rounding-ignored", lambda r, m, d, a: d == a == "f64" and r in ("rni", "rzi", "rmi", "rpi")
     and not m, f64_integer_rounding_ignored),
    ("f32-f64-modifiers-ignored", lambda r, m, d, a: d == "f64" and a == "f32" and m, f32_f64_modifiers_ignored),
    ("bf16-truncates", lambda r, m, d, a: d == "bf16" and a == "f32" and r == "rn" and not m, bf16_truncates),
    ("f16x2-lanes-swapped", lambda r, m, d, a: d == "f16x2" and a == "f32", f16x2_lanes_swapped),
    ("f16-subnormals-flushed", lambda r, m, d, a: a == "f16" and d in ("f32", "f64") and not m,
     f16_subnormals_flushed),
    ("f64-nan-all-ones", lambda r, m, d, a: a == "f64" and d in ("s32", "u32"), f64_nan_all_ones),
    ("relu-ignored", lambda r, m, d, a: d == "f16" and a == "f32" and r == "rn" and m == ["relu"], relu_ignored),
]


class Case:
    pass


def load(vectors):
    right = {}
    for name in sorted(os.listdir(vectors)):
        if not name.endswith(".cases"):
            continue
        with open(os.path.join(vectors, name)) as f:
            for line in f:
                line = line.split("#", 1)[0]
                if "=>" not in line:
                    continue
                lhs, res = line.split("=>")
                res = res.strip().replace("_", "").replace("?", "0")
                try:
                    bits = int(res, 16)
                except ValueError:
                    continue  # an acceptance set such as `nan`: no single right answer
                right[(" ".join(lhs.split()).lower(), len(res))] = bits
    return right


def main():
    right = load(sys.argv[1])
    log = open(sys.argv[2], "w") if len(sys.argv) > 2 else None
    for line in sys.stdin:
        lhs, res = line.split("=>")
        key = " ".join(lhs.split()).lower()
        digits = len(res.strip())
        bits = right.get((key, digits))
        if bits is None:
            print("error: zoo: no reference answer", flush=True)
            continue
        toks = key.split()
        k = Case()
        k.instr = toks[0]
        k.rnd, k.mods, k.d, k.a = parse(k.instr)
        k.ops = [int(t, 16) for t in toks[1:]]
        k.width = digits * 4
        k.right = bits
        for name, scope, answer in DEFECTS:
            if not scope(k.rnd, k.mods, k.d, k.a):
                continue
            got = answer(k)
            if got is not None and got != bits:
                bits = got
                if log:
                    log.write(f"{key} /{digits * 4}\t{name}\n")
                break
        print(f"{lhs.strip()} => {bits:0{digits}x}", flush=True)
    if log:
        log.close()


if __name__ == "__main__":
    main()
