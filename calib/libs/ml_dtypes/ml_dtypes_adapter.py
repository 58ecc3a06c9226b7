#!/usr/bin/env python3
"""ptx-cvt calibration adapter for ml_dtypes 0.7.0 (numpy 2.4.6), speaking the
--target-cmd process protocol (README, "The process protocol").

Each PTX form ml_dtypes can express is mapped onto ONE numpy `astype` between
the source and destination dtypes, as a naive porter would (see
calib/libs/README.md, "ml_dtypes"). `.relu` is emulated simply (a negative,
non-NaN result becomes +0); `.satfinite` is ignored (astype has no saturating
mode); `.rz` forms use the same round-to-nearest astype.

Ground truth: with MLDTYPES_CALIB_LOG set, each case whose answer differs from
PTX's is appended there as `KEY<TAB>DEFECT`. Whether it differs, and why, is
decided with the small independent reference below (`ptx_convert`), written
from the PTX rules, not taken from ptx-cvt; calib/libs/verify.py checks it.
"""

import os
import sys
import warnings

import ml_dtypes
import numpy as np

warnings.simplefilter("ignore")
np.seterr(all="ignore")

LOG_ENV = "MLDTYPES_CALIB_LOG"

# The documented differences (README.md, "ml_dtypes").
NAN_SIGN = "nan-sign-kept"  # NaN -> the type's quiet NaN with the source's sign
NAN_FP6 = "nan-to-signed-zero"  # fp6/fp4 have no NaN: quiet_NaN() is -0 (sign flipped by a negative source)
NO_SATFINITE = "satfinite-ignored"  # overflow/Inf -> Inf (e5m2, bf16) or NaN (e4m3fn)
RND = "rounding-modifier-ignored"
UNEXPLAINED = "unexplained"
INTERACTION = "interaction"  # only correcting several differences together fixes it


class Fmt:
    def __init__(self, name, ebits, mbits, ieee, e4m3_nan, max_enc, dtype):
        self.name, self.ebits, self.mbits, self.ieee, self.e4m3_nan = name, ebits, mbits, ieee, e4m3_nan
        self.max_enc, self.dtype = max_enc, dtype
        self.width = 1 + ebits + mbits
        self.bias = (1 << (ebits - 1)) - 1
        self.sign_bit = 1 << (ebits + mbits)
        self.inf = ((1 << ebits) - 1) << mbits
        # PTX's NaN result: canonical NaN, or +MAX for formats without NaN
        if name in ("e4m3", "e5m2"):
            self.nan = 0x7F
        elif not ieee and not e4m3_nan:
            self.nan = max_enc
        else:
            self.nan = self.sign_bit - 1


def ieee(name, e, m, dt):
    return Fmt(name, e, m, True, False, (((1 << e) - 2) << m) | ((1 << m) - 1), dt)


F64 = ieee("f64", 11, 52, np.float64)
F32 = ieee("f32", 8, 23, np.float32)
F16 = ieee("f16", 5, 10, np.float16)
BF16 = ieee("bf16", 8, 7, ml_dtypes.bfloat16)
E5M2 = ieee("e5m2", 5, 2, ml_dtypes.float8_e5m2)
E4M3 = Fmt("e4m3", 4, 3, False, True, 0x7E, ml_dtypes.float8_e4m3fn)
E2M3 = Fmt("e2m3", 2, 3, False, False, 0x1F, ml_dtypes.float6_e2m3fn)
E3M2 = Fmt("e3m2", 3, 2, False, False, 0x1F, ml_dtypes.float6_e3m2fn)
E2M1 = Fmt("e2m1", 2, 1, False, False, 0x7, ml_dtypes.float4_e2m1fn)
FMTS = {f.name: f for f in (F64, F32, F16, BF16, E5M2, E4M3, E2M3, E3M2, E2M1)}
STORAGE = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def storage(f):
    return STORAGE[max(8, f.width)]


# --- the independent PTX reference (as calib/libs/common/ptxref.rs) ---

def decode(f, bits):
    """('nan',) | ('inf', s) | ('fin', s, m, e) with value m * 2**e."""
    s = (bits >> (f.ebits + f.mbits)) & 1
    emask = (1 << f.ebits) - 1
    e = (bits >> f.mbits) & emask
    m = bits & ((1 << f.mbits) - 1)
    if f.ieee and e == emask:
        return ("inf", s) if m == 0 else ("nan",)
    if f.e4m3_nan and e == emask and m == (1 << f.mbits) - 1:
        return ("nan",)
    q = 1 - f.bias - f.mbits
    if e == 0:
        return ("fin", s, m, q)
    return ("fin", s, m | (1 << f.mbits), q + e - 1)


def round_mag(f, s, m, e, r):
    if m == 0:
        return 0
    mb, emin = f.mbits, 1 - f.bias
    q = max(m.bit_length() - 1 + e, emin) - mb
    sh = q - e
    if sh <= 0:
        k = m << -sh
    else:
        k, rem, half = m >> sh, m & ((1 << sh) - 1), 1 << (sh - 1)
        up = {"rn": rem > half or (rem == half and k & 1),
              "rz": False, "rp": not s and rem != 0, "rm": s and rem != 0}[r]
        k += 1 if up else 0
    if k >= 1 << (mb + 1):
        k >>= 1
        q += 1
    if k >= 1 << mb:
        biased = q + mb + f.bias
        enc = (biased << mb) | (k - (1 << mb))
    else:
        enc = k
    return None if enc > f.max_enc else enc


def overflow_to_max(r, s):
    """IEEE 754: whether rounding mode `r` takes an overflow of sign `s` to MAX (else Inf)."""
    return {"rn": False, "rz": True, "rp": s, "rm": not s}[r]


def ptx_convert(dst, v, r, satfinite, relu):
    if v[0] == "nan":
        return dst.nan
    if v[0] == "inf":
        s, enc = v[1], dst.max_enc if satfinite or not dst.ieee else dst.inf
    else:
        s = v[1]
        enc = round_mag(dst, s, v[2], v[3], r)
        if enc is None:
            to_max = satfinite or not dst.ieee or overflow_to_max(r, s)
            enc = dst.max_enc if to_max else dst.inf
    if relu and s:
        return 0
    return enc | dst.sign_bit if s else enc


# --- the library ---

def lib_cast(src, dst, bits):
    """ml_dtypes: one numpy astype of one value from src to dst (bits in, bits out)."""
    a = np.array([bits], dtype=storage(src)).view(src.dtype)
    return int(a.astype(dst.dtype).view(storage(dst))[0])


def lib_rounding(dst, v, r, relu):
    """The library with the rounding mode `r` honoured and nothing else
    changed: an overflow is Inf or MAX as IEEE 754 rounds it in `r` (NaN in
    e4m3fn, which has no Inf), an Inf source stays Inf, `.relu` still zeroes
    only negative non-NaN results."""
    if v[0] == "inf":
        s, enc = v[1], dst.inf if dst.ieee else None
    else:
        s, enc = v[1], round_mag(dst, v[1], v[2], v[3], r)
    if enc is None:
        if dst.ieee:
            enc = dst.max_enc if overflow_to_max(r, s) else dst.inf
        elif dst.e4m3_nan:
            return dst.sign_bit - 1 | (dst.sign_bit if s else 0)
        else:
            enc = dst.max_enc
    if relu and s:
        return 0
    return enc | dst.sign_bit if s else enc


def is_nan(f, bits):
    return decode(f, bits)[0] == "nan"


def lane(mods, rnd, src, dst, bits):
    """One lane: the library's answer and the causes of a difference from PTX."""
    got = lib_cast(src, dst, bits) & ((1 << dst.width) - 1)
    if "relu" in mods and got & dst.sign_bit and not is_nan(dst, got):
        got = 0
    v = decode(src, bits)
    sat, relu = "satfinite" in mods, "relu" in mods
    want = ptx_convert(dst, v, rnd or "rn", sat, relu)
    if got == want:
        return got, []
    # The ground truth, as for the mutants: each documented difference whose
    # correction alone gives PTX's answer; `interaction` where none does.
    if v[0] == "nan":
        causes = [NAN_FP6 if not dst.ieee and not dst.e4m3_nan else NAN_SIGN]
    else:
        causes = []
        if rnd not in (None, "rn") and lib_rounding(dst, v, rnd, relu) == want:
            causes.append(RND)
        if sat and ptx_convert(dst, v, "rn", True, relu) == want:
            causes.append(NO_SATFINITE)
        if not causes:
            causes = [INTERACTION if rnd not in (None, "rn") or sat else UNEXPLAINED]
    return got, causes


def parse(instr):
    parts = instr.split(".")
    d, a = parts[-2], parts[-1]
    rnd, mods = None, []
    for m in parts[1:-2]:
        if m in ("rn", "rna", "rz", "rm", "rp", "rs", "rni", "rzi", "rmi", "rpi"):
            rnd = m
        else:
            mods.append(m)
    return rnd, mods, d, a


FP8ISH = ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")


def answer(instr, ops, widths):
    """(bits, [defects]) or raises ValueError to decline."""
    rnd, mods, d, a = parse(instr)
    if any(m not in ("relu", "satfinite") for m in mods):
        raise ValueError("ml_dtypes adapter: modifiers " + ".".join(mods) + " not mapped")
    defects = []
    # Scalar bf16 narrowing: from f32, f64, f16; f16 from bf16.
    if d in ("bf16", "f16") and a in ("f32", "f64", "f16", "bf16") and d != a and len(ops) == 1:
        if d == "f16" and a != "bf16":
            raise ValueError("ml_dtypes adapter: f16 from f32/f64 is numpy's, not ml_dtypes'")
        if rnd not in ("rn", "rz", "rm", "rp"):
            raise ValueError("ml_dtypes adapter: rounding not mapped")
        src, dst = FMTS[a], FMTS[d]
        return lane(mods, rnd, src, dst, ops[0] & ((1 << src.width) - 1))
    # Widening bf16 -> f32 (exact).
    if d == "f32" and a == "bf16" and not mods and len(ops) == 1:
        got, c = lane(mods, rnd, BF16, F32, ops[0] & 0xFFFF)
        if is_nan(BF16, ops[0] & 0xFFFF):
            c = []  # PTX accepts any NaN here
        return got, c
    # Packed narrowing to bf16x2 / fp8x2 / fp6x2 / fp4x2.
    dn = d[:-2] if d.endswith("x2") else None
    if dn in ("bf16",) + FP8ISH and rnd in ("rn", "rz"):
        dst = FMTS[dn]
        if a == "f32" and len(ops) == 2:
            src, lanes = F32, [ops[0] & 0xFFFFFFFF, ops[1] & 0xFFFFFFFF]
        elif a in ("f16x2", "bf16x2") and len(ops) == 1 and dn != "bf16":
            src, lanes = FMTS[a[:-2]], [(ops[0] >> 16) & 0xFFFF, ops[0] & 0xFFFF]
        else:
            raise ValueError("ml_dtypes adapter: form not mapped")
        res = []
        for x in lanes:
            g, c = lane(mods, rnd, src, dst, x)
            res.append(g)
            defects.extend(c)
        step = 16 if dn == "bf16" else (4 if dn == "e2m1" else 8)
        return res[0] << step | res[1], defects
    # Packed widening fp8x2/fp6x2/fp4x2 -> f16x2/bf16x2.
    an = a[:-2] if a.endswith("x2") else None
    if d in ("f16x2", "bf16x2") and an in FP8ISH and rnd == "rn" and "satfinite" not in mods and len(ops) == 1:
        src, dst = FMTS[an], FMTS[d[:-2]]
        step = 4 if an == "e2m1" else 8
        lmask = (1 << src.width) - 1
        res = []
        for x in ((ops[0] >> step) & lmask, ops[0] & lmask):
            g, c = lane(mods, rnd, src, dst, x)
            res.append(g)
            defects.extend(c)
        return res[0] << 16 | res[1], defects
    raise ValueError("ml_dtypes adapter: form not mapped")


def main():
    logpath = os.environ.get(LOG_ENV)
    log = open(logpath, "a") if logpath else None
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        lhs, _, rhs = line.partition("=>")
        toks = lhs.split()
        instr, hexops = toks[0], toks[1:]
        digits = len(rhs.strip())
        try:
            bits, defects = answer(instr, [int(t, 16) for t in hexops], [len(t) * 4 for t in hexops])
        except ValueError as e:
            print(f"error: {e}", flush=True)
            continue
        if defects and log:
            key = " ".join([instr] + hexops).lower()
            log.write(f"{key} /{digits * 4}\t{','.join(sorted(set(defects)))}\n")
            log.flush()
        print(f"{lhs.strip()} => {bits & ((1 << (digits * 4)) - 1):0{digits}x}", flush=True)
    if log:
        log.close()


if __name__ == "__main__":
    main()
