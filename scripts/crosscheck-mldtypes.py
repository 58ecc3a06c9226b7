#!/usr/bin/env python3
"""Regenerate tests/data/mldtypes-crosscheck.tsv: f32 -> narrow-float conversions
done by an implementation that is not ours (PyPI `ml_dtypes` + numpy `astype`,
round to nearest even), for the Rust tests to compare the oracle against.

    pip install ml_dtypes==0.7.0 numpy==2.4.6   (the pins of python/requirements-test.txt)
    python3 scripts/crosscheck-mldtypes.py [--out PATH]

Output rows (tab separated):  format  f32_bits  result_code  class
  format       e4m3 e5m2 e2m3 e3m2 e2m1 ue8m0 f16 bf16
  f32_bits     input, 8 lower-case hex digits
  result_code  ml_dtypes' destination encoding, lower-case hex: 2 digits for the
               8/6/4-bit formats (6-bit codes in bits 5:0 with the sign in bit 5,
               4-bit codes in bits 3:0 with the sign in bit 3, upper bits 0;
               checked below), 4 digits for f16/bf16
  class        property of the INPUT relative to the destination format, from an
               exact rational computation in this script (first that applies):
                 nan       input is NaN
                 inf       input is +-Inf
                 zero      input is +-0
                 overflow  round-to-nearest-even with unbounded exponent gives a
                           magnitude above the format's max finite (IEEE overflow;
                           so |x| between max and the overflow threshold is NOT
                           overflow, it rounds to max)
                 subnormal 0 < |x| < smallest normal of the format (for ue8m0,
                           which has no subnormals: |x| < 2^-127, the smallest code)
                 exact     |x| is representable
                 tie       |x| is exactly halfway between two neighbours
                 inexact   anything else
               For ue8m0 the class ignores the sign (ml_dtypes turns every
               negative into NaN; see the .md).

Besides writing the data, the script checks ml_dtypes against an independent
exact (fractions.Fraction) round-to-nearest-even reference on every finite,
non-overflowing row, and asserts the observed special-value policies, so a
new ml_dtypes release that changes behaviour fails loudly instead of silently
changing the data.  The output is deterministic (seeded, sorted, no
timestamps) and written atomically (temp file + rename).
"""

import argparse
import math
import os
import random
import struct
import sys
import tempfile
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np

ML_DTYPES_VERSION = tuple(int(p) for p in ml_dtypes.__version__.split(".")[:2])

SEED = 20240611
N_RANDOM_IN = 2700     # random inputs inside/around the format's exponent range
N_RANDOM_OUT = 300     # random inputs anywhere in f32 (mostly out of range)
N_WIDE_CODES = 1500    # f16/bf16: sampled codes (all codes would be too big)

# name, numpy dtype, storage width in bits, exponent bits, mantissa bits, bias,
# max finite value, has_sign
FORMATS = [
    ("e4m3", ml_dtypes.float8_e4m3fn, 8, 4, 3, 7, Fraction(448), True),
    ("e5m2", ml_dtypes.float8_e5m2, 8, 5, 2, 15, Fraction(57344), True),
    ("e2m3", ml_dtypes.float6_e2m3fn, 6, 2, 3, 1, Fraction(15, 2), True),
    ("e3m2", ml_dtypes.float6_e3m2fn, 6, 3, 2, 3, Fraction(28), True),
    ("e2m1", ml_dtypes.float4_e2m1fn, 4, 2, 1, 1, Fraction(6), True),
    ("ue8m0", ml_dtypes.float8_e8m0fnu, 8, 8, 0, 127, Fraction(2) ** 127, False),
    ("f16", np.float16, 16, 5, 10, 15, Fraction(65504), True),
    ("bf16", ml_dtypes.bfloat16, 16, 8, 7, 127, (2 - Fraction(1, 128)) * Fraction(2) ** 127, True),
]


# ---------------------------------------------------------------- f32 helpers
def f32_from_bits(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def bits_from_f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_frac(b):
    """Exact value of a finite f32 bit pattern as a Fraction."""
    e = (b >> 23) & 0xFF
    m = b & 0x7FFFFF
    s = -1 if b >> 31 else 1
    if e == 0:
        return s * Fraction(m) * Fraction(2) ** -149
    return s * Fraction(m | 0x800000) * Fraction(2) ** (e - 150)


def frac_to_f32_bits(v):
    """Bits of the f32 that equals v exactly (asserts exactness)."""
    b = bits_from_f32(float(v))  # float() of a Fraction rounds correctly to f64
    assert f32_frac(b) == v, ("not exact in f32", v)
    return b


def floor_log2(v):
    """floor(log2(v)) for a positive Fraction."""
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** e > v:
        e -= 1
    assert Fraction(2) ** e <= v < Fraction(2) ** (e + 1)
    return e


# ----------------------------------------------------------- format helpers
class Fmt:
    def __init__(self, name, dtype, width, ebits, mbits, bias, maxf, signed):
        self.name, self.dtype, self.width = name, dtype, width
        self.ebits, self.mbits, self.bias = ebits, mbits, bias
        self.maxf, self.signed = maxf, signed
        if name == "ue8m0":
            self.emin = -127          # code 00 = 2^-127, no subnormals
            self.min_pos = Fraction(2) ** -127
        else:
            self.emin = 1 - bias      # exponent of the smallest normal
            self.min_pos = Fraction(2) ** (self.emin - mbits)
        self.min_normal = Fraction(2) ** self.emin
        self.emax = floor_log2(maxf)
        self.sign_bit = (1 << (width - 1)) if signed else 0
        self.view = np.uint16 if width == 16 else np.uint8
        self.code_digits = 4 if width == 16 else 2

    def ulp_at(self, mag):
        """Spacing of the format at positive magnitude mag (unbounded exponent)."""
        e = max(floor_log2(mag), self.emin)
        return Fraction(2) ** (e - self.mbits)

    def round_ref(self, mag):
        """Exact round-to-nearest-even of positive mag, unbounded exponent,
        gradual underflow.  Returns (rounded magnitude, class)."""
        assert mag > 0
        e = max(floor_log2(mag), self.emin)
        quantum = Fraction(2) ** (e - self.mbits)
        q = mag / quantum
        n = q.numerator // q.denominator
        r = q - n
        if r == 0:
            cls = "exact"
        elif r == Fraction(1, 2):
            cls = "tie"
        else:
            cls = "inexact"
        if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1):
            n += 1
        return n * quantum, cls

    def encode(self, mag, neg):
        """Code of a representable magnitude (0 allowed for signed formats)."""
        s = self.sign_bit if neg else 0
        if mag == 0:
            return s
        if self.name == "ue8m0":
            e = floor_log2(mag)
            assert mag == Fraction(2) ** e and -127 <= e <= 127
            return e + 127
        if mag < self.min_normal:
            m = mag / (Fraction(2) ** (self.emin - self.mbits))
            assert m.denominator == 1
            return s | int(m)
        e = floor_log2(mag)
        m = mag / Fraction(2) ** (e - self.mbits) - (1 << self.mbits)
        assert m.denominator == 1 and 0 <= m < (1 << self.mbits)
        return s | ((e + self.bias) << self.mbits) | int(m)


def convert(fmt, bits_list):
    """ml_dtypes/numpy conversion of f32 bit patterns -> list of int codes."""
    a = np.array(bits_list, dtype=np.uint32).view(np.float32)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = a.astype(fmt.dtype).view(fmt.view)
    codes = [int(c) for c in out]
    for c in codes:  # storage layout: upper bits of the byte must be zero
        assert c >> fmt.width == 0, (fmt.name, hex(c))
    return codes


def decode_all(fmt):
    """All codes of the format, decoded by ml_dtypes to f32; cross-checked
    against our own decode.  Returns sorted list of distinct finite positive
    magnitudes (Fractions) and the list of f32 bit patterns of every finite code."""
    n = 1 << fmt.width
    codes = np.arange(n, dtype=np.uint32).astype(fmt.view)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        vals = codes.view(fmt.dtype).astype(np.float32)
    mags, code_bits = set(), []
    for c, v in zip(range(n), vals):
        b = bits_from_f32(float(v))
        if math.isnan(v) or math.isinf(v):
            continue
        val = f32_frac(b)
        # our own decode of code c
        if fmt.name == "ue8m0":
            mine = Fraction(2) ** (c - 127)
        else:
            neg = bool(c & fmt.sign_bit)
            e = (c >> fmt.mbits) & ((1 << fmt.ebits) - 1)
            m = c & ((1 << fmt.mbits) - 1)
            if e == 0:
                mine = Fraction(m) * Fraction(2) ** (fmt.emin - fmt.mbits)
            else:
                mine = Fraction(m + (1 << fmt.mbits)) * Fraction(2) ** (e - fmt.bias - fmt.mbits)
            mine = -mine if neg else mine
        assert mine == val, (fmt.name, hex(c), mine, val)
        code_bits.append(b)
        if val > 0:
            mags.add(val)
    mags = sorted(mags)
    assert mags[0] == fmt.min_pos and mags[-1] == fmt.maxf, (fmt.name, mags[0], mags[-1])
    return mags, code_bits


# ------------------------------------------------------------ input sets
def structured_inputs(fmt, rng):
    out = set()
    mags, code_bits = decode_all(fmt)

    def add_mag(v, neighbours=True):
        """add +-v, and +-(v +- 1 f32 ulp); values beyond f32 are skipped"""
        if v >= Fraction(2) ** 128:
            return
        b = frac_to_f32_bits(v)
        for bb in ((b - 1, b, b + 1) if neighbours else (b,)):
            if 0 < bb < 0x7F800000:
                out.add(bb)
                out.add(bb | 0x80000000)  # negatives too (for ue8m0: documents NaN)

    if fmt.width <= 8:
        chosen = list(range(len(mags)))
        for b in code_bits:
            out.add(b)
    else:
        # f16/bf16: every code would be too many rows; take whole binades at
        # the ends (subnormals, first normal binade, top binade, around 1.0)
        # plus a seeded sample of the rest.
        per_binade = 1 << fmt.mbits
        idx = set(range(0, 3 * per_binade))                       # subnormals + 2 binades
        idx |= set(range(len(mags) - 2 * per_binade, len(mags)))  # top 2 binades
        one = mags.index(Fraction(1))
        idx |= set(range(one - per_binade // 2, one + per_binade // 2))
        if fmt.name == "f16":  # f16 has 1024 subnormals: thin the ranges above
            idx = {i for i in idx if i < 64 or i >= len(mags) - 64 or abs(i - one) < 64
                   or i % 16 == 0}
        while len(idx) < N_WIDE_CODES + 400:
            idx.add(rng.getrandbits(20) % len(mags))
        chosen = sorted(idx)
        for i in chosen:
            b = frac_to_f32_bits(mags[i])
            out.add(b if rng.getrandbits(1) else b | 0x80000000)

    # midpoints between consecutive representable magnitudes, +-1 f32 ulp
    for i in chosen:
        lo = mags[i]
        hi = mags[i + 1] if i + 1 < len(mags) else lo + fmt.ulp_at(lo)  # unbounded next
        add_mag((lo + hi) / 2)
    # around zero / smallest subnormal: half of it, +- ulp; and the value itself +- ulp
    add_mag(fmt.min_pos / 2)
    add_mag(fmt.min_pos)
    add_mag(fmt.min_pos / 4)
    add_mag(fmt.min_normal)
    # around max finite
    nxt = fmt.maxf + fmt.ulp_at(fmt.maxf)
    add_mag(fmt.maxf)
    add_mag((fmt.maxf + nxt) / 2)
    add_mag(nxt)
    add_mag(2 * fmt.maxf)
    add_mag(4 * fmt.maxf)
    # f32 landmarks
    for b in (0x00000001, 0x00000002, 0x007FFFFF, 0x00800000, 0x3F800000,
              0x7F7FFFFF, 0x7F000000):
        out.add(b)
        out.add(b | 0x80000000)
    # zeros, infinities, NaNs (several payloads, both signs)
    out.update([0x00000000, 0x80000000, 0x7F800000, 0xFF800000,
                0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001,
                0x7FFFFFFF, 0xFFFFFFFF, 0x7FA00000, 0x7FC00001])
    return out


def random_inputs(fmt, rng):
    out = set()
    lo_e = floor_log2(fmt.min_pos) - 3
    hi_e = fmt.emax + 3
    span = hi_e - lo_e + 1
    while len(out) < N_RANDOM_IN:
        e = lo_e + rng.getrandbits(16) % span
        m = rng.getrandbits(23)
        s = rng.getrandbits(1) if fmt.signed else (1 if rng.getrandbits(4) == 0 else 0)
        v = Fraction(m | 0x800000, 1 << 23) * Fraction(2) ** e
        if v >= Fraction(2) ** 128 or v < Fraction(2) ** -149:
            continue
        b = bits_from_f32(float(v))  # rounds to f32 (may round in f32 subnormals)
        if b == 0 or b >= 0x7F800000:
            continue
        out.add(b | (s << 31))
    n_out = 0
    while n_out < N_RANDOM_OUT:
        b = rng.getrandbits(32)
        if (b & 0x7FFFFFFF) >= 0x7F800000:
            continue
        if not fmt.signed and rng.getrandbits(4) != 0:
            b &= 0x7FFFFFFF
        if b not in out:
            out.add(b)
            n_out += 1
    return out


# ------------------------------------------------------------- classify/check
def UE8M0_LOW(b):
    """What ml_dtypes does with a positive f32-subnormal input (x < 2^-126)
    going to float8_e8m0fnu, which has no zero: 00 (2^-127) or 01 (2^-126).
    Up to 0.6.x it rounds UP from just above 2^-127 (0x00400001 =
    2^-127 + 2^-149 gives 01); from 0.7.0 it rounds to the nearer code with
    ties up, as it does for normal inputs (01 from 1.5 * 2^-127 = 0x00600000)."""
    if ML_DTYPES_VERSION < (0, 7):
        return 0x00 if b <= 0x00400000 else 0x01
    return 0x00 if b < 0x00600000 else 0x01


def classify(fmt, b):
    """(class, reference code or None).  Reference = exact RNE; None where the
    row is a special case (nan/inf/zero/overflow, ue8m0 negative/underflow)."""
    if (b & 0x7F800000) == 0x7F800000:
        return ("nan" if b & 0x7FFFFF else "inf"), None
    if (b & 0x7FFFFFFF) == 0:
        return "zero", None
    v = f32_frac(b)
    neg, mag = v < 0, abs(v)
    r, cls = fmt.round_ref(mag)
    if r > fmt.maxf:
        return "overflow", None
    if mag < fmt.min_normal:
        cls = "subnormal"
    if fmt.name == "ue8m0" and (neg or mag < 2 * fmt.min_pos):
        # negatives: NaN in ml_dtypes.  f32-subnormal inputs (|x| < 2^-126):
        # ml_dtypes does not round to nearest there (see UE8M0_LOW below).
        return cls, None
    return cls, fmt.encode(r, neg)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
        "mldtypes-crosscheck.tsv"))
    args = ap.parse_args()

    rows, stats, policy = [], {}, {}
    for spec in FORMATS:
        fmt = Fmt(*spec)
        rng = random.Random(f"{SEED}:{fmt.name}")
        inputs = structured_inputs(fmt, rng) | random_inputs(fmt, rng)
        inputs = sorted(inputs)
        codes = convert(fmt, inputs)
        st = stats.setdefault(fmt.name, {})
        checked = 0
        for b, c in zip(inputs, codes):
            cls, ref = classify(fmt, b)
            st[cls] = st.get(cls, 0) + 1
            if fmt.name == "ue8m0" and not b >> 31 and 0 < b < 0x00800000:
                want = UE8M0_LOW(b)
                assert c == want, f"ue8m0 {b:08x}: ml_dtypes {c:x}, expected {want:x}"
            if ref is not None:
                assert ref == c, f"{fmt.name} {b:08x}: ml_dtypes {c:x} vs reference {ref:x} ({cls})"
                checked += 1
            else:
                key = (fmt.name, cls, "-" if b >> 31 else "+")
                policy.setdefault(key, set()).add(c)
            rows.append(f"{fmt.name}\t{b:08x}\t{c:0{fmt.code_digits}x}\t{cls}\n")
        st["checked"] = checked

    # Layout and hand facts (docs/semantics.md §1, §5.8); see the .md
    def one(name, x):
        fmt = Fmt(*[f for f in FORMATS if f[0] == name][0])
        return convert(fmt, [bits_from_f32(x)])[0]
    facts = [("e2m1", 1.0, 0x2), ("e2m1", -1.0, 0xA), ("e2m1", 6.0, 0x7), ("e2m1", -6.0, 0xF),
             ("e2m1", 0.25, 0x0), ("e2m1", 0.75, 0x2), ("e2m1", 2.5, 0x4), ("e2m1", 5.0, 0x6),
             ("e2m3", 1.0, 0x08), ("e2m3", -1.0, 0x28), ("e2m3", 7.5, 0x1F), ("e2m3", -7.5, 0x3F),
             ("e3m2", 1.0, 0x0C), ("e3m2", -28.0, 0x3F),
             ("e4m3", 448.0, 0x7E), ("e4m3", 464.0, 0x7E), ("e4m3", -448.0, 0xFE),
             ("e5m2", 57344.0, 0x7B), ("ue8m0", 1.0, 0x7F), ("ue8m0", 2.0 ** -127, 0x00),
             ("ue8m0", 2.0 ** 127, 0xFE)]
    for name, x, want in facts:
        got = one(name, x)
        assert got == want, (name, x, hex(got), hex(want))

    header = [
        "# f32 -> narrow float conversions by ml_dtypes (an implementation independent of ptx-cvt).",
        f"# ml_dtypes {ml_dtypes.__version__}, numpy {np.__version__}",
        "# regenerate: pip install ml_dtypes==%s numpy==%s; python3 scripts/crosscheck-mldtypes.py"
        % (ml_dtypes.__version__, np.__version__),
        "# conversion: numpy.ndarray(float32).astype(DTYPE), round to nearest even; "
        "dtypes: e4m3=float8_e4m3fn e5m2=float8_e5m2 e2m3=float6_e2m3fn e3m2=float6_e3m2fn "
        "e2m1=float4_e2m1fn ue8m0=float8_e8m0fnu f16=numpy.float16 bf16=bfloat16",
        "# columns: format, f32_bits (input, 8 hex), result_code (ml_dtypes raw encoding, hex; "
        "2 digits for 8/6/4-bit, 4 for f16/bf16; 6-bit codes use bits 5:0 with sign in bit 5, "
        "4-bit codes bits 3:0 with sign in bit 3), class",
        "# class (of the input w.r.t. the format): nan | inf | zero | overflow (RNE with unbounded "
        "exponent exceeds max finite) | subnormal (0<|x|<min normal; ue8m0: <2^-127) | exact | "
        "tie | inexact",
        "# NOT all rows equal PTX cvt.rn.satfinite: overflow/inf/nan rows and ue8m0 differ by policy; "
        "see tests/data/mldtypes-crosscheck.md",
        f"# seed {SEED}; rows {len(rows)}",
        "# format\tf32_bits\tresult_code\tclass",
    ]
    data = "\n".join(header) + "\n" + "".join(rows)
    out = os.path.abspath(args.out)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(out), prefix=".mldtypes-", suffix=".tmp")
    with os.fdopen(fd, "w", newline="\n") as f:
        f.write(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, out)

    print(f"wrote {out}: {len(rows)} rows, {len(data)} bytes", file=sys.stderr)
    for name, st in stats.items():
        total = sum(v for k, v in st.items() if k != "checked")
        print(f"  {name:6s} {total:5d} rows  " +
              " ".join(f"{k}={v}" for k, v in sorted(st.items())), file=sys.stderr)
    print("special-case codes observed (format, class, input sign: codes):", file=sys.stderr)
    for key in sorted(policy):
        cs = sorted(policy[key])
        shown = " ".join(f"{c:x}" for c in cs[:8]) + (" ..." if len(cs) > 8 else "")
        print(f"  {key[0]:6s} {key[1]:9s} {key[2]}: {shown}", file=sys.stderr)


if __name__ == "__main__":
    main()
