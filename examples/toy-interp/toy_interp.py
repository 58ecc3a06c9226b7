#!/usr/bin/env python3
"""A deliberately buggy toy PTX `cvt` interpreter, for `ptx-cvt fuzz`.

It speaks the `ptx-cvt fuzz --target-cmd` protocol: it reads case lines
without results from stdin, e.g.

    cvt.rn.f16.f32 3f801000 => ????

(operands in hex, zero-padded to their register width; one `?` per hex digit
of the destination register) and answers each with the complete case line,
flushing after every answer:

    cvt.rn.f16.f32 3f801000 => 3c00

Instructions it does not implement get `error: ...` lines.

Planted bugs (the kind a hand-written interpreter really has):

1. cvt.rn.f16.f32 rounds ties AWAY from zero instead of to even.
2. cvt.rzi.s32.f32 and cvt.rzi.s32.f64 turn NaN into 0. Right for an f32
   source on sm_90, wrong for f64, where PTX gives 0x80000000.
3. cvt.s32.s8 and cvt.s16.s8 zero-extend the source byte instead of
   sign-extending it (it is read like a u8).
4. A register-width bug: cvt.u32.u8 into a 64-bit destination register fills
   bits 63..32 with the source byte's sign bit instead of zeros.

Everything else it implements is right: cvt.u16.u8, cvt.u32.u16,
cvt.s32.s16, cvt.u64.u32, cvt.s64.s32, including wide registers (a source
register wider than its type is chopped; the result is sign-extended to a
wider destination register for signed types, zero-extended otherwise).

Every other instruction is declined with an `error: ...` line: ptx-cvt counts
those cases as unsupported and goes on.

`--fixed` fixes the four bugs (then `ptx-cvt fuzz` finds nothing).

Standard library only; Python 3.8+.
"""

import sys

FIXED = "--fixed" in sys.argv[1:]


def mask(bits):
    return (1 << bits) - 1


def sign_extend(v, bits):
    v &= mask(bits)
    return v - (1 << bits) if v >> (bits - 1) else v


# ---------------------------------------------------------------------------
# Floating point
# ---------------------------------------------------------------------------

def decode_float(bits, exp_bits, man_bits):
    """('nan'|'inf', sign) or ('num', sign, sig, exp) with value sig * 2**exp."""
    sign = bits >> (exp_bits + man_bits) & 1
    e = bits >> man_bits & mask(exp_bits)
    m = bits & mask(man_bits)
    bias = (1 << (exp_bits - 1)) - 1
    if e == mask(exp_bits):
        return ("nan", sign) if m else ("inf", sign)
    if e == 0:
        return ("num", sign, m, 1 - bias - man_bits)
    return ("num", sign, m | (1 << man_bits), e - bias - man_bits)


def f32_to_f16_rn(bits):
    v = decode_float(bits, 8, 23)
    if v[0] == "nan":
        return 0x7FFF  # the canonical NaN sm_90 writes
    sign = v[1] << 15
    if v[0] == "inf":
        return sign | 0x7C00
    _, _, sig, exp = v
    if sig == 0:
        return sign
    msb = sig.bit_length() - 1 + exp         # value in [2**msb, 2**(msb+1))
    q = max(msb, -14) - 10                   # f16 quantum at that magnitude
    shift = q - exp
    if shift <= 0:
        n = sig << -shift
    else:
        n = sig >> shift
        rem = sig & mask(shift)
        half = 1 << (shift - 1)
        if FIXED:
            up = rem > half or (rem == half and n & 1)
        else:
            up = rem >= half                 # BUG 1: ties go away from zero
        n += up
    if n >= 2048:                            # rounding carried into the next binade
        n >>= 1
        q += 1
    if n < 1024:                             # subnormal (q == -24)
        return sign | n
    biased = q + 10 + 15
    if biased >= 31:
        return sign | 0x7C00                 # overflow: infinity
    return sign | biased << 10 | (n & 0x3FF)


def float_to_s32_rzi(bits, exp_bits, man_bits):
    v = decode_float(bits, exp_bits, man_bits)
    if v[0] == "nan":
        if FIXED and exp_bits == 11:
            return 0x80000000
        return 0                             # BUG 2: right for f32 only
    lo, hi = -(1 << 31), (1 << 31) - 1
    if v[0] == "inf":
        return (lo if v[1] else hi) & mask(32)
    _, sign, sig, exp = v
    n = sig << exp if exp >= 0 else sig >> -exp
    n = -n if sign else n
    return min(max(n, lo), hi) & mask(32)


# ---------------------------------------------------------------------------
# Integers
# ---------------------------------------------------------------------------

def int_convert(src_bits, src_signed, dst_bits):
    """A widening integer cvt: extend the source value, keep dst_bits."""
    def f(bits):
        v = sign_extend(bits, src_bits) if src_signed else bits & mask(src_bits)
        return v & mask(dst_bits)
    return f


def s8_to_wider(dst_bits):
    def f(bits):
        if FIXED:
            v = sign_extend(bits, 8)
        else:
            v = bits & 0xFF                  # BUG 3: read like a u8
        return v & mask(dst_bits)
    return f


# instruction -> (source type bits, destination type bits, destination signed, function)
FORMS = {
    "cvt.rn.f16.f32": (32, 16, False, f32_to_f16_rn),
    "cvt.rzi.s32.f32": (32, 32, True, lambda b: float_to_s32_rzi(b, 8, 23)),
    "cvt.rzi.s32.f64": (64, 32, True, lambda b: float_to_s32_rzi(b, 11, 52)),
    "cvt.s32.s8": (8, 32, True, s8_to_wider(32)),
    "cvt.s16.s8": (8, 16, True, s8_to_wider(16)),
    "cvt.u16.u8": (8, 16, False, int_convert(8, False, 16)),
    "cvt.u32.u8": (8, 32, False, int_convert(8, False, 32)),
    "cvt.u32.u16": (16, 32, False, int_convert(16, False, 32)),
    "cvt.s32.s16": (16, 32, True, int_convert(16, True, 32)),
    "cvt.u64.u32": (32, 64, False, int_convert(32, False, 64)),
    "cvt.s64.s32": (32, 64, True, int_convert(32, True, 64)),
}


def answer(line):
    body = line.split("#", 1)[0].strip()
    if "=>" not in body:
        return "error: expected `<instruction> <operand> => ????`"
    left, right = (s.strip() for s in body.split("=>", 1))
    parts = left.split()
    if len(parts) != 2:
        return "error: the toy only implements one-operand forms"
    instr, operand = parts
    form = FORMS.get(instr)
    if form is None:
        return "error: toy_interp does not implement %s (it has: %s)" % (instr, ", ".join(FORMS))
    src_type_bits, dst_type_bits, dst_signed, fn = form
    try:
        src = int(operand, 16) & mask(src_type_bits)  # wider source registers: chop
    except ValueError:
        return "error: operand %r is not hex" % operand
    reg = 4 * len(right)
    result = fn(src)
    if dst_signed:
        result = sign_extend(result, dst_type_bits)
    if instr == "cvt.u32.u8" and reg > 32 and src & 0x80 and not FIXED:
        result |= mask(reg) & ~mask(32)         # BUG 4: register extended with the byte's sign
    result &= mask(reg)
    return "%s %s => %0*x" % (instr, operand, len(right), result)


def main():
    for line in sys.stdin:
        print(answer(line), flush=True)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
