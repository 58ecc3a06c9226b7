#!/usr/bin/env python3
"""Regenerate tests/data/ptxas-legality-ptx94.tsv: ptxas's verdict on `cvt` spellings with
the PTX ISA 9.4 modifiers `.pzo` and `.scaled::n1::ue8m0`.

Same kernels, columns and exact batching as the packed snapshot (packed.py, harness.py):
one kernel per spelling under `.version V / .target T / .address_size 64`, `ptxas -arch=T`.

Sets (see the TSV header):
  (a) grid: cvt{.rnd}{.relu}{.ftz}{.sat}{.satfinite}{.pzo}{.scaled::n1::ue8m0}.D.A, with .pzo,
      .scaled::n1::ue8m0 or both; packed D and A as in packed.py (.ftz/.sat left out), and the
      12x12 scalar pairs with every rounding (integer ones too) and modifier subset; on
      sm_107a 9.5 for every pair, elsewhere only for the live pairs (some spelling not
      rejected with "Unexpected instruction types"); dead pairs keep two rows;
  (b) operand shapes of the n1 spellings (scale left out, 16-bit, vector sources) and
      register types of every operand of the richest accepted spelling per (pair, rounding,
      modifiers), on sm_107a 9.5;
  (c) modifier order (every permutation, sampled), duplicates and foreign modifiers on
      every accepted grid spelling, on sm_107a 9.5.
Only the Python 3 standard library is used.

Usage:  python3 scripts/ptxas-legality-ptx94.py [--ptxas PATH] [--out FILE] [--sample N] [--jobs N]
"""

import itertools
import os
import random
import sys
import time

from . import harness as S
from . import packed as P

ROOT = P.ROOT
DEFAULT_OUT = os.path.join(ROOT, "tests", "data", "ptxas-legality-ptx94.tsv")
log = S.log

PZO = "pzo"
N1 = "scaled::n1::ue8m0"
VARIANTS = [(True, False), (False, True), (True, True)]  # (pzo, n1)
SCALARS = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bf16", "f16", "f32", "f64"]
SWIDTH = {"u8": "b16", "s8": "b16", "u16": "b16", "s16": "b16", "f16": "b16", "bf16": "b16",
          "u32": "b32", "s32": "b32", "f32": "b32", "u64": "b64", "s64": "b64", "f64": "b64"}
SCALAR_RNDS = [None, "rn", "rna", "rz", "rm", "rp", "rs", "rni", "rzi", "rmi", "rpi"]
SCALAR_MODS = ["relu", "ftz", "sat", "satfinite"]

FULL = ("sm_107a", "9.5")
# the live pairs' grid on these (the other sm_107a/f versions)
SM107_TVS = [("sm_107a", "9.4"), ("sm_107f", "9.4"), ("sm_107f", "9.5")]
# the spellings accepted on FULL, on these (targets and versions without the modifiers)
OTHER_TVS = [("sm_107", "9.5"), ("sm_100a", "9.3"), ("sm_100a", "9.5"), ("sm_100f", "9.5"),
             ("sm_103a", "9.5"), ("sm_110a", "9.3"), ("sm_110a", "9.5"), ("sm_120a", "9.5"),
             ("sm_121a", "9.5"), ("sm_90", "9.5"), ("sm_80", "9.5")]


def spell(rnd, mods, d, a):
    return "cvt" + ("." + rnd if rnd else "") + "".join("." + m for m in mods) + "." + d + "." + a


def packed_ops(d, a, rnd, n1):
    return P.implied_shape(d, a, rnd) + (" scale:b8" if n1 else "")


def scalar_ops(d, a, n1):
    return "d:%s a:%s" % (SWIDTH[d], SWIDTH[a]) + (" scale:b8" if n1 else "")


def grid():
    """(pair, item, mods) for every grid spelling."""
    out = []
    for d, a in P.all_pairs():
        for rnd in P.RNDS:
            for relu, sat in itertools.product((False, True), repeat=2):
                for pzo, n1 in VARIANTS:
                    mods = [m for m, on in (("relu", relu), ("satfinite", sat), (PZO, pzo), (N1, n1)) if on]
                    out.append(((d, a), (spell(rnd, mods, d, a), packed_ops(d, a, rnd, n1)), (rnd, mods)))
    for d in SCALARS:
        for a in SCALARS:
            for rnd in SCALAR_RNDS:
                for bits in range(16):
                    base = [m for i, m in enumerate(SCALAR_MODS) if bits >> i & 1]
                    for pzo, n1 in VARIANTS:
                        mods = base + [m for m, on in ((PZO, pzo), (N1, n1)) if on]
                        out.append(((d, a), (spell(rnd, mods, d, a), scalar_ops(d, a, n1)), (rnd, mods)))
    return out


def detail_items(accepted):
    """accepted: [(item, (rnd, mods), (d, a))] ok on FULL. Shapes, widths, order."""
    items = []
    best = {}
    for (instr, ops), (rnd, mods), (d, a) in accepted:
        n1 = N1 in mods
        key = (d, a, rnd, PZO in mods, n1)
        if key not in best or len(mods) > len(best[key][1][1]):
            best[key] = ((instr, ops), (rnd, mods))
        if n1:
            plain = ops.replace(" scale:b8", "")
            items += [(instr, plain), (instr, plain + " scale:b16"), (instr, plain + " scale:b32")]
            if d in P.WIDTH and a == "f32" and d not in P.X4:
                items.append((instr, "d:%s {a,b}:b32 scale:b8" % P.WIDTH[d]))
                items.append((instr, "d:%s a:b32 scale:b8" % P.WIDTH[d]))
            if a != "f32":
                items.append((instr, "d:%s a:b32 b:b32 scale:b8" % ops.split()[0].split(":")[1]))
        # order: every permutation (sampled), duplicates, foreign modifiers
        toks = ([rnd] if rnd else []) + mods
        perms = set()
        for p in itertools.permutations(toks + ["@D", "@A"]):
            if p.index("@D") < p.index("@A"):
                perms.add("cvt." + ".".join(d if x == "@D" else a if x == "@A" else x for x in p))
        perms.discard(instr)
        perms = sorted(perms)
        if len(perms) > 6:
            perms = random.Random(instr).sample(perms, 6)
        items += [(p, ops) for p in perms]
        pre = "cvt" + "".join("." + m for m in toks)
        for dup in mods:
            items.append((pre + "." + dup + ".%s.%s" % (d, a), ops))
        for extra in ("ftz", "sat", "relu", "satfinite", "rs", "rna", P.SCALED, "scaled::n1::ue4m3",
                      PZO, N1, "pzo2", "nzo"):
            if extra not in toks:
                items.append((pre + "." + extra + ".%s.%s" % (d, a), ops))
    for (instr, ops), _ in best.values():
        items += P.width_items(instr, ops)
    return items


def main():
    ap = S.arg_parser(__doc__, DEFAULT_OUT, 400)
    args = ap.parse_args()
    t0 = time.time()
    ptxas = S.get_ptxas(args.ptxas)
    pver = S.ptxas_version(ptxas)
    log("ptxas: %s (%s)" % (ptxas, pver))
    stats = {"runs": 0, "bisections": 0}

    g = grid()
    meta = {it: (pair, rm) for pair, it, rm in g}
    res = P.assemble_groups(ptxas, {FULL: [it for _, it, _ in g]}, args.jobs, stats)
    live = {pair for pair, it, _ in g if res[FULL + (it,)][0] == "ok"}
    dead = sorted({pair for pair, _, _ in g} - live)
    dead_msgs = sorted({res[FULL + (it,)][1] for pair, it, _ in g if pair in dead})
    keep = set()
    for d, a in dead:
        ops = scalar_ops if d in SWIDTH and a in SWIDTH else None
        for mods in (["satfinite", PZO], ["satfinite", N1]):
            n1 = N1 in mods
            o = scalar_ops(d, a, n1) if ops else packed_ops(d, a, "rn", n1)
            keep.add((spell("rn", mods, d, a), o))
    n_dead = 0
    for pair, it, _ in g:
        if pair in dead and it not in keep:
            del res[FULL + (it,)]
            n_dead += 1
    log("grid on %s %s: %d live pairs, %d dead (%.1fs)" % (FULL + (len(live), len(dead), time.time() - t0)))
    live_items = [it for pair, it, _ in g if pair in live]
    ok_items = [it for pair, it, _ in g if res.get(FULL + (it,), ("",))[0] == "ok"]
    groups = {tv: live_items for tv in SM107_TVS}
    groups.update({tv: ok_items for tv in OTHER_TVS})
    res.update(P.assemble_groups(ptxas, groups, args.jobs, stats))
    accepted = [(it, meta[it][1], meta[it][0]) for (t, v, it), vd in res.items()
                if (t, v) == FULL and vd[0] == "ok"]
    extra = [it for it in detail_items(accepted) if FULL + (it,) not in res]
    res.update(P.assemble_groups(ptxas, {FULL: extra}, args.jobs, stats))
    log("all sets: %d rows (%.1fs, %d ptxas runs)" % (len(res), time.time() - t0, stats["runs"]))

    # checks: errors again in reversed order; a seeded sample and every ok row outside the grid alone
    errs = {}
    for (t, v, it), vd in res.items():
        if vd[0] == "error":
            errs.setdefault((t, v), []).append(it)
    rev = P.assemble_groups(ptxas, errs, args.jobs, {"runs": 0, "bisections": 0}, reverse=True)
    suspects = {k for k, vd in rev.items() if vd != res[k]}
    log("reverse-order check of %d errors: %d disagreements" % (len(rev), len(suspects)))
    keys = sorted(res, key=lambda k: (S.tv_sort_key(k[0], k[1]), k[2]))
    check = set(random.Random(20240).sample(keys, min(args.sample, len(keys)))) | suspects
    check |= {k for k, vd in res.items() if vd[0] == "ok" and k[2] not in meta}
    check = sorted(check, key=lambda k: (S.tv_sort_key(k[0], k[1]), k[2]))
    mism = S.settle_by_single_runs(ptxas, check, res, args.jobs, render=P.batch_text,
                                   describe=lambda k: "%s %s %s [%s]" % (k[0], k[1], k[2][0], k[2][1]))

    rows = sorted(((S.tv_sort_key(t, v), instr, ops),
                   "\t".join([t, v, instr, ops, vd, msg.replace("\t", " ").replace("\n", " ").strip()]))
                  for (t, v, (instr, ops)), (vd, msg) in res.items())
    n_ok = sum(1 for _, r in rows if r.split("\t")[4] == "ok")
    tvs = [FULL] + SM107_TVS + OTHER_TVS
    hdr = [
        "# ptxas legality snapshot for cvt spellings with .pzo / .scaled::n1::ue8m0 (generated; do not edit by hand)",
        "# ptxas: %s (PyPI nvidia-cuda-nvcc, scripts/get-ptxas.sh)" % pver,
        "# regenerate: python3 scripts/ptxas-legality-ptx94.py",
        "# columns, kernels and operand patterns as in tests/data/ptxas-legality-packed.tsv",
        "# sets: (a) grid with .pzo, .scaled::n1::ue8m0 (operand scale:b8 appended) or both:",
        "#   packed pairs of the packed snapshot, cvt{.rnd}{.relu}{.satfinite}, rnd in none rn rna rz rm rp rs;",
        "#   the 12x12 scalar pairs, every rounding (none, rn rna rz rm rp rs rni rzi rmi rpi) and",
        "#   every subset of .relu .ftz .sat .satfinite; on %s %s for every pair; on %s" % (
            FULL + (", ".join("%s %s" % tv for tv in SM107_TVS),)),
        "#   for the %d live pairs (some spelling ok on %s %s): %s;" % (
            (len(live),) + FULL + (" ".join("%s.%s" % p for p in sorted(live)),)),
        "#   on the other targets/versions the %d grid spellings ok on %s %s;" % ((len(ok_items),) + FULL),
        "#   the %d dead pairs (no spelling ok) gave only: %s;" % (len(dead), "; ".join(
            "\"%s\"" % m for m in dead_msgs)),
        "#   of them only cvt.rn.satfinite.pzo.D.A and cvt.rn.satfinite.scaled::n1::ue8m0.D.A are kept",
        "#   (%d rows dropped);" % n_dead,
        "#   (b) operand shapes of the n1 spellings and register types of every operand of the richest",
        "#   accepted spelling per (pair, rounding, modifiers), (c) modifier order (6 sampled",
        "#   permutations), duplicates and foreign modifiers on every accepted grid spelling; on %s %s" % FULL,
        "# checks: errors re-derived in reversed-order batches; a seeded sample of %d rows and" % args.sample,
        "#   every ok row outside set (a) re-assembled alone (%d disagreements)" % len(mism),
        "# targets/versions: %s" % ", ".join("%s %s" % tv for tv in tvs),
        "# rows: %d (ok %d, error %d)" % (len(rows), n_ok, len(rows) - n_ok),
    ]
    S.write_snapshot(args.out, hdr, [r for _, r in rows], n_ok, t0)
    return 1 if mism else 0


if __name__ == "__main__":
    sys.exit(main())
