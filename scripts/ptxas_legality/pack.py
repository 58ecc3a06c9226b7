#!/usr/bin/env python3
"""Regenerate tests/data/ptxas-legality-pack.tsv: ptxas's verdict on `cvt.pack` spellings on every target.

Each spelling is one kernel

    .entry kN() {
    .reg .b32 d; .reg .b32 a; .reg .b32 b; .reg .b32 c;
    INSTRUCTION d, a, b, c;                          (or d, a, b)
    ret; }

under `.version V / .target T / .address_size 64`, assembled with ptxas -arch=T,
with the shared harness (harness.py: exact per-kernel verdicts, bisection).

Sets, on every target ptxas knows (TARGETS) at the first .version that accepts the
target, at 6.4 and 6.5 where they accept it, and at the newest .version:
  (a) grid: cvt.pack{.sat}.D.A{.b32} for D in u16 s16 u8 s8 u4 s4 u2 s2 u32 s32,
      A in s32 u32 s16, with `c` exactly when `.b32` is written;
  (b) each of the 8 documented spellings with a foreign modifier (rn rz rni ftz relu
      satfinite), a repeated .sat/.pack, .pack or .sat moved, .b32 moved;
  (c) on DETAIL_TARGETS at the newest .version: each operand of the 8 spellings
      re-declared b16 and b64.
Every error is re-derived in a reversed-order batch and a seeded sample re-run alone.
Only the Python 3 standard library is used.

Usage:  python3 scripts/ptxas-legality-pack.py [--ptxas PATH] [--out FILE] [--sample N] [--jobs N]
"""

import os
import random
import sys
import time

from . import harness as H
from .packed import batch_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(ROOT, "tests", "data", "ptxas-legality-pack.tsv")

TARGETS = H.ALL_TARGETS
DETAIL_TARGETS = ["sm_75", "sm_90", "sm_100a", "sm_121f"]
PACK_D = ["u16", "s16", "u8", "s8", "u4", "s4", "u2", "s2"]
GRID_D = PACK_D + ["u32", "s32"]
GRID_A = ["s32", "u32", "s16"]
FOREIGN = ["rn", "rz", "rni", "ftz", "relu", "satfinite"]
VERSIONS = ["6.4", "6.5", "7.0", "7.1", "7.4", "7.8", "8.0", "8.6", "8.7", "8.8", "9.0", "9.4"]


def ops_for(with_c, which=None, reg="b32"):
    """d a b (c) as b32 registers, except operand `which`, declared `reg`."""
    names = ["d", "a", "b"] + (["c"] if with_c else [])
    return " ".join("%s:%s" % (n, reg if n == which else "b32") for n in names)


def documented():
    """The 8 spellings of the PTX ISA syntax, with whether they take c."""
    return [("cvt.pack.sat.%s.s32%s" % (d, "" if d in ("u16", "s16") else ".b32"), d not in ("u16", "s16"))
            for d in PACK_D]


def grid_items():
    for d in GRID_D:
        for a in GRID_A:
            for sat in (True, False):
                for b32 in (True, False):
                    instr = "cvt.pack%s.%s.%s%s" % (".sat" if sat else "", d, a, ".b32" if b32 else "")
                    yield (instr, ops_for(b32))


def modifier_items():
    items = []
    for instr, with_c in documented():
        rest = instr[len("cvt.pack.sat."):]
        variants = ["cvt.pack.sat.%s.%s" % (m, rest) for m in FOREIGN]
        variants += ["cvt.pack.sat.sat.%s" % rest, "cvt.pack.pack.sat.%s" % rest,
                     "cvt.sat.pack.%s" % rest, "cvt.pack.%s.sat" % rest]
        if with_c:
            d = rest.split(".")[0]
            variants.append("cvt.pack.sat.%s.b32.s32" % d)
        items += [(v, ops_for(with_c)) for v in variants]
    return items


def width_items():
    items = []
    for instr, with_c in documented():
        for which in ["d", "a", "b"] + (["c"] if with_c else []):
            for reg in ("b16", "b64"):
                items.append((instr, ops_for(with_c, which, reg)))
    return items


def main():
    ap = H.arg_parser(__doc__, DEFAULT_OUT, 300)
    args = ap.parse_args()
    t0 = time.time()
    ptxas = H.get_ptxas(args.ptxas)
    pver = H.ptxas_version(ptxas)
    vmax = H.max_version(ptxas)
    H.log("ptxas: %s (%s); max .version %s" % (ptxas, pver, vmax))

    # Per target: the first version that accepts it, 6.4/6.5 where accepted, the newest.
    tvs = []
    for t in TARGETS:
        accepted = [v for v in VERSIONS + [vmax] if H.baseline_ok(ptxas, t, v)[0]]
        if not accepted:
            sys.exit("ptxas-legality-pack: ptxas accepts no .version for %s" % t)
        for v in sorted({accepted[0], vmax} | {v for v in accepted if v in ("6.4", "6.5")},
                        key=lambda v: tuple(map(int, v.split(".")))):
            tvs.append((t, v))
    H.log("targets/versions: %s" % ", ".join("%s %s" % tv for tv in tvs))

    stats = {"runs": 0, "bisections": 0}
    base = list(grid_items()) + modifier_items()
    groups = {tv: base + (width_items() if tv[0] in DETAIL_TARGETS and tv[1] == vmax else []) for tv in tvs}
    render = batch_text
    res = H.assemble_groups(ptxas, groups, args.jobs, stats, render=render)
    H.log("%d rows (%.1fs, %d ptxas runs, %d bisections)" % (len(res), time.time() - t0, stats["runs"],
                                                             stats["bisections"]))
    errors = {}
    for (t, v, it), vd in res.items():
        if vd[0] == "error":
            errors.setdefault((t, v), []).append(it)
    rev = H.assemble_groups(ptxas, errors, args.jobs, {"runs": 0, "bisections": 0}, render=render, reverse=True)
    suspects = {k for k, vd in rev.items() if vd != res[k]}
    keys = sorted(res, key=lambda k: (H.tv_sort_key(k[0], k[1]), k[2]))
    check = set(random.Random(20261130).sample(keys, min(args.sample, len(keys)))) | suspects
    H.log("reverse-order check: %d disagreements" % len(suspects))
    mism = len(H.settle_by_single_runs(ptxas, check, res, args.jobs, render=render))

    rows = sorted(((H.tv_sort_key(t, v), instr, ops), "\t".join(
        [t, v, instr, ops, verdict, msg.replace("\t", " ").replace("\n", " ").strip()]))
        for (t, v, (instr, ops)), (verdict, msg) in res.items())
    n_ok = sum(1 for _, r in rows if r.split("\t")[4] == "ok")
    hdr = [
        "# ptxas legality snapshot for cvt.pack spellings (generated; do not edit by hand)",
        "# ptxas: %s (PyPI nvidia-cuda-nvcc, scripts/get-ptxas.sh)" % pver,
        "# regenerate: python3 scripts/ptxas-legality-pack.py",
        "# max .version accepted by this ptxas: %s" % vmax,
        "# each row: one kernel '.reg .R x; ... INSTRUCTION OPERANDS; ret;' in",
        "#   '.version V / .target T / .address_size 64', assembled with ptxas -arch=T",
        "# columns (tab-separated): target version instruction operands verdict message",
        "#   operands: NAME:REGTYPE in order ('.reg .REGTYPE NAME;'), d first",
        "#   verdict: ok | error; message: ptxas's first error for the line, else empty",
        "# sets: (a) grid cvt.pack{.sat}.D.A{.b32}, D in %s, A in %s, c iff .b32;"
        % (" ".join(GRID_D), " ".join(GRID_A)),
        "#   (b) the 8 documented spellings with %s, .sat/.pack repeated or moved, .b32 moved;"
        % " ".join(FOREIGN),
        "#   (c) b16/b64 per operand of the 8 on %s at %s" % (" ".join(DETAIL_TARGETS), vmax),
        "# checks: errors re-derived in reversed-order batches (%d disagreements); %d rows re-run"
        " alone (%d disagreements, settled by the single run)" % (len(suspects), len(check), mism),
        "# targets/versions: %s" % ", ".join("%s %s" % tv for tv in tvs),
        "# rows: %d (%d ok)" % (len(rows), n_ok),
    ]
    H.write_snapshot(args.out, hdr, [r for _, r in rows], n_ok, t0)
