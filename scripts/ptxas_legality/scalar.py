#!/usr/bin/env python3
"""Regenerate tests/data/ptxas-legality.tsv: ptxas's verdict on scalar `cvt` spellings.

For every (target, .version, instruction text, d register type, a register type)
in the enumerated sets, assemble

    .version V / .target T / .address_size 64
    .entry kN() {
    .reg .DREG d; .reg .AREG a;
    INSTRUCTION d, a;
    ret; }

with ptxas and record `ok` (possibly with a warning) or `error` plus ptxas's
first message for that line.

Many kernels go into one .ptx file; ptxas reports errors per line and keeps
going after the first, so line numbers map back to spellings.  Exactness:
  * a spelling whose line got an error in a batch is an error (first message);
  * spellings that looked clean are re-assembled without the erroring ones until
    a batch assembles with no error at all (a fatal error aborts the file, so
    everything after it is simply re-run);
  * a failure not attributable to a line is bisected down to single spellings;
  * every error verdict is re-derived in a second batch of reversed order, and a
    seeded sample (--sample) of all verdicts is re-run one spelling per file;
    disagreements are settled by the single-spelling run (and reported).
Only the Python 3 standard library is used.

Usage:  python3 scripts/ptxas-legality.py [--ptxas PATH] [--out FILE]
                                          [--sample N] [--verify-all] [--jobs N]
"""


import concurrent.futures
import itertools
import os
import random
import re
import subprocess
import sys
import time

from .harness import (arg_parser, write_snapshot, ALL_TARGETS, ABORT_RE, CHUNK, HEADER_LINES, KLINES, LINE_RE, assemble_exact, assemble_groups,
                      baseline_ok, batch_text, get_ptxas, log, max_version, ptxas_version, run_once,
                      run_ptxas, settle_by_single_runs, tv_sort_key, verdict_of)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(ROOT, "tests", "data", "ptxas-legality.tsv")

TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
         "bf16", "f16", "f32", "f64"]
WIDTH = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
         "u32": 32, "s32": 32, "f32": 32, "u64": 64, "s64": 64, "f64": 64}
FLOATS = {"bf16", "f16", "f32", "f64"}
RNDS = [None, "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"]
BITREG = {8: "b8", 16: "b16", 32: "b32", 64: "b64"}
# Typed registers of each width (.bf16 is not a register type: syntax error).
TYPEDREG = {8: ["u8", "s8"], 16: ["u16", "s16", "f16"],
            32: ["u32", "s32", "f32"], 64: ["u64", "s64", "f64"]}

MAX = "MAX"
# The test reads the file named by this variable instead of the committed snapshot.
SNAPSHOT_ENV = "PTX_CVT_SCALAR_SNAPSHOT"
# (target, version) for sets (a) and (b); MAX = newest .version ptxas accepts.
# Other targets ptxas 13.5 knows: a representative set (sm_75 first and last
# .version, sm_88, the newest family target); the cvt.pack snapshot has them all.
TARGET_VERSIONS = [("sm_75", "6.3"), ("sm_75", MAX), ("sm_88", MAX), ("sm_121f", MAX),
                   ("sm_80", "7.0"), ("sm_80", "7.1"), ("sm_80", "7.8"), ("sm_80", MAX),
                   ("sm_89", "7.8"), ("sm_89", "8.1"), ("sm_89", MAX),
                   ("sm_90", "7.8"), ("sm_90", MAX),
                   ("sm_100a", "8.6"), ("sm_100a", MAX)]
# Typed-register variants of set (b) only here (bit-size registers everywhere).
TYPED_TVS = [("sm_80", MAX), ("sm_90", MAX)]


def spell(rnd, ftz, sat, d, a):
    s = "cvt"
    if rnd:
        s += "." + rnd
    if ftz:
        s += ".ftz"
    if sat:
        s += ".sat"
    return s + "." + d + "." + a


# ---------------------------------------------------------------------------
# Enumeration


def canonical_items():
    """Set (a): (instr, dreg, areg, (rnd, ftz, sat, d, a))."""
    for d in TYPES:
        for a in TYPES:
            for rnd in RNDS:
                for ftz in (False, True):
                    for sat in (False, True):
                        yield (spell(rnd, ftz, sat, d, a), BITREG[WIDTH[d]], BITREG[WIDTH[a]],
                               (rnd, ftz, sat, d, a))


def first_accepted(res_tv, d, a):
    """First accepted canonical spelling of the pair (enumeration order) or None."""
    for rnd in RNDS:
        for ftz in (False, True):
            for sat in (False, True):
                it = (spell(rnd, ftz, sat, d, a), BITREG[WIDTH[d]], BITREG[WIDTH[a]])
                if res_tv.get(it, ("error",))[0] == "ok":
                    return it[0], (rnd, ftz, sat)
    return None


def register_items(res_tv, typed):
    """Set (b) for one (target, version)."""
    items = []
    for d in TYPES:
        for a in TYPES:
            fa = first_accepted(res_tv, d, a)
            if fa is None:
                continue
            instr = fa[0]
            wd, wa = WIDTH[d], WIDTH[a]
            dregs = [BITREG[w] for w in (8, 16, 32, 64) if w >= wd]
            aregs = [BITREG[w] for w in (8, 16, 32, 64) if w >= wa]
            for dr in dregs:
                for ar in aregs:
                    items.append((instr, dr, ar))
            # narrower than the type, once per operand (expected error)
            if wd > 8:
                items.append((instr, BITREG[wd // 2], BITREG[wa]))
            if wa > 8:
                items.append((instr, BITREG[wd], BITREG[wa // 2]))
            if typed:
                for r in TYPEDREG[wd]:
                    items.append((instr, r, BITREG[wa]))
                for r in TYPEDREG[wa]:
                    items.append((instr, BITREG[wd], r))
                # typed registers named like the instruction types (bf16: no such reg type)
                if d != "bf16" and a != "bf16":
                    items.append((instr, d, a))
                # typed but wider (e.g. .u32 / .f32 register for a u8 operand)
                for w in (16, 32, 64):
                    for r in TYPEDREG[w]:
                        if w > wd:
                            items.append((instr, r, BITREG[wa]))
                        if w > wa:
                            items.append((instr, BITREG[wd], r))
    return items


def arrangements(mods, d, a):
    """All distinct orders of modifier tokens and the two types (d before a)."""
    toks = list(mods) + ["\0D", "\0A"]
    seen = set()
    out = []
    for perm in itertools.permutations(toks):
        if perm.index("\0D") > perm.index("\0A"):
            continue
        s = "cvt." + ".".join(d if t == "\0D" else a if t == "\0A" else t for t in perm)
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


ORDER_FULL_PAIRS = {("f16", "f32"), ("bf16", "f32"), ("f32", "f64"), ("s8", "f32"),
                    ("u8", "f32"), ("s32", "f32"), ("f32", "f32"), ("f32", "s32"),
                    ("f64", "bf16"), ("s8", "bf16"), ("f16", "f16"), ("u16", "s16"),
                    ("f64", "f32"), ("f32", "f16"), ("s64", "f64")}

OTHER_TYPES = {  # type -> register used
    "b8": "b8", "b16": "b16", "b32": "b32", "b64": "b64", "tf32": "b32",
    "e4m3": "b8", "e5m2": "b8", "e2m1": "b8", "ue8m0": "b8", "f16x2": "b32",
    "bf16x2": "b32", "e4m3x2": "b16", "f8": "b8", "f128": "b128", "u128": "b128",
    "b128": "b128", "i32": "b32", "pred": "pred",
}


def order_items(res_tv):
    """Set (c) on one (target, version): order, duplicates, foreign modifiers/types."""
    items = []
    rr = lambda d, a: (BITREG[WIDTH[d]], BITREG[WIDTH[a]])
    for d in TYPES:
        for a in TYPES:
            dr, ar = rr(d, a)
            # c1: all modifiers after the types, for every canonical spelling
            for rnd in RNDS:
                for ftz in (False, True):
                    for sat in (False, True):
                        mods = [m for m, on in ((rnd, bool(rnd)), ("ftz", ftz), ("sat", sat)) if on]
                        if mods:
                            items.append(("cvt.%s.%s.%s" % (d, a, ".".join(mods)), dr, ar))
            # accepted canonical combinations
            acc = []
            for rnd in RNDS:
                for ftz in (False, True):
                    for sat in (False, True):
                        if res_tv.get((spell(rnd, ftz, sat, d, a), dr, ar), ("error",))[0] == "ok":
                            acc.append((rnd, ftz, sat))
            # c2: every arrangement of the richest accepted spelling (full for a few
            # pairs, a seeded sample of 6 elsewhere)
            if acc:
                rnd, ftz, sat = max(acc, key=lambda x: (bool(x[0]) + x[1] + x[2]))
                mods = [m for m, on in ((rnd, bool(rnd)), ("ftz", ftz), ("sat", sat)) if on]
                arr = arrangements(mods, d, a)
                if (d, a) not in ORDER_FULL_PAIRS and len(arr) > 6:
                    arr = random.Random("%s.%s" % (d, a)).sample(arr, 6)
                items += [(s, dr, ar) for s in arr]
            # c3: duplicates and foreign modifiers, built on the pair's base rounding
            racc = [x[0] for x in acc if x[0]]
            base = racc[0] if racc else (acc[0][0] if acc else None)
            pre = ("cvt." + base) if base else "cvt"
            tail = ".%s.%s" % (d, a)
            var = []
            if base:
                var.append("cvt.%s.%s" % (base, base))
                for r2 in RNDS:
                    if r2 and r2 != base:
                        var.append("cvt.%s.%s" % (base, r2))
                        var.append("cvt.%s.%s" % (r2, base))
            var += [pre + ".ftz.ftz", pre + ".sat.sat", pre + ".ftz.sat.ftz",
                    pre + ".sat.satfinite", pre + ".satfinite.sat", pre + ".satfinite",
                    pre + ".satfinite.satfinite", pre + ".ftz.satfinite",
                    pre + ".relu", pre + ".relu.satfinite", pre + ".satfinite.relu",
                    pre + ".relu.sat", pre + ".relu.ftz", pre + ".relu.relu", pre + ".foo",
                    pre + ".approx", pre + ".full", pre + ".noftz",
                    "cvt.rn.relu", "cvt.rz.relu", "cvt.rn.satfinite", "cvt.rz.satfinite",
                    "cvt.rn.relu.satfinite", "cvt.rz.relu.satfinite", "cvt.rm.relu",
                    "cvt.rp.relu", "cvt.rm.satfinite", "cvt.rp.satfinite",
                    "cvt.relu", "cvt.satfinite", "cvt.rna",
                    "cvt.rna.satfinite", "cvt.rs", "cvt.rs.satfinite", "cvt.rnd", "cvt.RN",
                    "cvt.rni.satfinite", "cvt.rzi.relu"]
            items += [(v + tail, dr, ar) for v in var]
    # foreign / unknown types against f32 and u32
    for x, reg in sorted(OTHER_TYPES.items()):
        for y in ("f32", "u32", "f16"):
            yr = BITREG[WIDTH[y]]
            for mod in ("", ".rn", ".rz", ".rni", ".rn.satfinite"):
                items.append(("cvt%s.%s.%s" % (mod, x, y), reg, yr))
                items.append(("cvt%s.%s.%s" % (mod, y, x), yr, reg))
    # other spellings: missing/extra type, case, empty modifier
    for s, dr, ar in [("cvt.f32", "b32", "b32"), ("cvt.rn.f16", "b16", "b16"),
                      ("cvt.rn.f16.f32.f32", "b16", "b32"), ("cvt.rn.F16.F32", "b16", "b32"),
                      ("cvt.rn.f16.f32.", "b16", "b32"), ("cvt..rn.f16.f32", "b16", "b32"),
                      ("cvt.rn..f16.f32", "b16", "b32"), ("cvt.rn.ftz.sat.f16.f32", "b16", "b32"),
                      ("cvt.f32.f32", "b32", "b32"), ("cvt.ftz.f32.f32", "b32", "b32"),
                      ("cvt.sat.f32.f32", "b32", "b32"), ("cvt.ftz.sat.f32.f32", "b32", "b32")]:
        items.append((s, dr, ar))
    return items


def gate_items():
    """Set (d), every target/version: .relu/.satfinite on the float pairs that
    might take them (their sm/PTX gates)."""
    items = []
    for d, a in (("f16", "f32"), ("bf16", "f32"), ("f16", "f64"), ("bf16", "f64"),
                 ("f32", "f64"), ("f16", "f16"), ("bf16", "f16"), ("f16", "bf16")):
        for rnd in ("rn", "rz", "rm", "rp"):
            for mods in ("relu", "satfinite", "relu.satfinite"):
                items.append(("cvt.%s.%s.%s.%s" % (rnd, mods, d, a),
                              BITREG[WIDTH[d]], BITREG[WIDTH[a]]))
    return items


# ---------------------------------------------------------------------------


def main():
    ap = arg_parser(__doc__, DEFAULT_OUT, 400)
    ap.add_argument("--verify-all", action="store_true",
                    help="re-run every spelling on its own (slow: ~10 ms each)")
    ap.add_argument("--all-targets", action="store_true",
                    help="also every other target ptxas 13.5 knows, at the newest .version (a large "
                         "file: write it elsewhere with --out and test it with %s)" % SNAPSHOT_ENV)
    args = ap.parse_args()
    t0 = time.time()

    ptxas = get_ptxas(args.ptxas)
    pver = ptxas_version(ptxas)
    vmax = max_version(ptxas)
    log("ptxas: %s (%s); max .version %s" % (ptxas, pver, vmax))

    tvs, skipped = [], []
    extra = [(t, MAX) for t in ALL_TARGETS if args.all_targets and (t, MAX) not in TARGET_VERSIONS]
    for t, v in TARGET_VERSIONS + extra:
        v = vmax if v == MAX else v
        ok, out = baseline_ok(ptxas, t, v)
        if ok:
            if (t, v) not in tvs:
                tvs.append((t, v))
        else:
            skipped.append((t, v, " | ".join(l.strip() for l in out if l.strip())))
            log("skip %s %s: %s" % (t, v, skipped[-1][2]))
    typed_tvs = [(t, vmax if v == MAX else v) for t, v in TYPED_TVS]
    order_tv = ("sm_90", vmax)

    stats = {"runs": 0, "bisections": 0}
    # (a)
    canon = list(canonical_items())
    groups = {tv: [c[:3] for c in canon] for tv in tvs}
    res = assemble_groups(ptxas, groups, args.jobs, stats)
    log("set a: %d verdicts (%.1fs)" % (len(res), time.time() - t0))
    per_tv = {tv: {} for tv in tvs}
    for (t, v, it), verdict in res.items():
        per_tv[(t, v)][it] = verdict
    # (b) and (c)
    groups = {}
    for tv in tvs:
        groups.setdefault(tv, []).extend(register_items(per_tv[tv], tv in typed_tvs))
        groups[tv].extend(gate_items())
    if order_tv in per_tv:
        groups.setdefault(order_tv, []).extend(order_items(per_tv[order_tv]))
    res2 = assemble_groups(ptxas, groups, args.jobs, stats)
    res.update(res2)
    log("sets b, c, d: %d more verdicts; total %d distinct rows (%.1fs, %d ptxas runs, %d bisections)"
        % (len(res2), len(res), time.time() - t0, stats["runs"], stats["bisections"]))

    # Verification 1: every error again, in reversed order.
    groups = {}
    for (t, v, it), verdict in res.items():
        if verdict[0] == "error":
            groups.setdefault((t, v), []).append(it)
    vstats = {"runs": 0, "bisections": 0}
    tasks = []
    for tv, items in groups.items():
        items = sorted(items, reverse=True)
        for k in range(0, len(items), CHUNK):
            tasks.append((tv, items[k:k + CHUNK]))
    suspects = set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(assemble_exact, ptxas, tv[0], tv[1], items, vstats): tv for tv, items in tasks}
        for f in concurrent.futures.as_completed(futs):
            tv = futs[f]
            for it, verdict in f.result().items():
                if verdict != res[(tv[0], tv[1], it)]:
                    suspects.add((tv[0], tv[1], it))
    log("reverse-order check of %d errors: %d disagreements"
        % (sum(len(x) for x in groups.values()), len(suspects)))

    # Verification 2: single-spelling runs (sample or all) + the suspects.
    keys = sorted(res, key=lambda k: (tv_sort_key(k[0], k[1]), k[2]))
    if args.verify_all:
        check = list(keys)
    else:
        check = random.Random(20240).sample(keys, min(args.sample, len(keys)))
    check = sorted(set(check) | suspects, key=lambda k: (tv_sort_key(k[0], k[1]), k[2]))
    mism = settle_by_single_runs(ptxas, check, res, args.jobs,
                                 describe=lambda k: "%s %s %s %s/%s" % (k[0], k[1], k[2][0], k[2][1], k[2][2]))

    # Write.
    rows = []
    for (t, v, (instr, dr, ar)), (verdict, msg) in res.items():
        msg = msg.replace("\t", " ").replace("\n", " ").strip()
        rows.append(((tv_sort_key(t, v), instr, dr, ar), "\t".join([t, v, instr, dr, ar, verdict, msg])))
    rows.sort()
    n_ok = sum(1 for _, r in rows if r.split("\t")[5] == "ok")
    hdr = [
        "# ptxas legality snapshot for scalar cvt spellings (generated; do not edit by hand)",
        "# ptxas: %s (PyPI nvidia-cuda-nvcc, scripts/get-ptxas.sh)" % pver,
        "# regenerate: python3 scripts/ptxas-legality.py",
        "# max .version accepted by this ptxas: %s" % vmax,
        "# each row: one kernel '.reg .DREG d; .reg .AREG a; INSTRUCTION d, a; ret;' in",
        "#   '.version V / .target T / .address_size 64', assembled with ptxas -arch=T",
        "# columns (tab-separated): target version instruction dreg areg verdict message",
        "#   instruction: exact text before the operands; dreg/areg: register declaration types",
        "#   verdict: ok | error; message: ptxas's first error for the line (prefix 'fatal: ' when",
        "#   it aborted the file), 'warning: ...' on ok rows with a warning, else empty",
        "# sets: (a) cvt{.rnd}{.ftz}{.sat}.D.A, all 12x12 pairs, rnd in none rn rz rm rp rni rzi rmi rpi,",
        "#   natural bit-size registers, every target/version; (b) register widths for the first",
        "#   accepted canonical spelling of each pair (typed registers on %s);" %
        ", ".join("%s %s" % tv for tv in typed_tvs),
        "#   (c) modifier order, duplicates, .relu/.satfinite/unknown modifiers and types on %s %s;" % order_tv,
        "#   (d) .relu/.satfinite with rn rz rm rp on f16/bf16/f32 from f32/f64/f16/bf16, every target/version",
        "# targets/versions: %s" % ", ".join("%s %s" % tv for tv in tvs),
    ]
    for t, v, why in skipped:
        hdr.append("# skipped (invalid combination): %s %s: %s" % (t, v, why))
    hdr.append("# rows: %d (ok %d, error %d)" % (len(rows), n_ok, len(rows) - n_ok))
    write_snapshot(args.out, hdr, [r for _, r in rows], n_ok, t0)
    return 1 if mism else 0


if __name__ == "__main__":
    sys.exit(main())
