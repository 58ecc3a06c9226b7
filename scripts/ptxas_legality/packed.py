#!/usr/bin/env python3
"""Regenerate tests/data/ptxas-legality-packed.tsv: ptxas's verdict on packed/narrow `cvt` spellings.

Companion of the scalar driver (scalar.py); both use the shared harness
(harness.py) for ptxas and the exact per-kernel batching.  Each spelling is one kernel

    .entry kN() {
    .reg .b16 d; .reg .b32 a; .reg .b32 b; ...      (one register per operand)
    INSTRUCTION d, a, b;                            (or d, {a, b, e, f}, rbits; ...)
    ret; }

under `.version V / .target T / .address_size 64`, assembled with ptxas -arch=T.
Verdict `ok` or `error` with ptxas's first message for the line.

Exactness as in the scalar script: errors are attributed by line number; clean
lines are re-assembled without the erroring ones until a file assembles with no
error at all (fatal errors abort a file: the rest is re-run); unattributed
failures are bisected; every error is re-derived in a reversed-order batch and a
seeded sample (--sample) is re-run one spelling per file.

Sets (see the TSV header):
  (a) grid: cvt{.rnd}{.relu}{.satfinite}.D.A for D in PACKED_D, A in SOURCES,
      rnd in none rn rna rz rm rp rs, with the operand shape docs/semantics.md §2 implies and
      natural register widths; every pair on the screen targets, live pairs
      (some spelling not rejected with "Unexpected instruction types") on
      every (target, version);
  (b) operand shapes: every other shape of the catalogue for the live pairs;
  (c) register widths: each operand of every accepted spelling's richest form
      re-declared b8/b16/b32/b64 and typed (u16 f16 u32 f32 s32 ...);
  (d) modifier order, duplicates, foreign modifiers, .scaled::n2::ue8m0.
Only the Python 3 standard library is used.

Usage:  python3 scripts/ptxas-legality-packed.py [--ptxas PATH] [--out FILE]
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

from . import harness as S

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_OUT = os.path.join(ROOT, "tests", "data", "ptxas-legality-packed.tsv")
log = S.log
ALL_TARGETS = S.ALL_TARGETS

# destination types (packed / narrow) and sources
PACKED_D = ["tf32", "f16x2", "bf16x2", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2",
            "ue8m0x2", "e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4", "s2f6x2", "ue5m3x2"]
SOURCES = ["f32", "f16x2", "bf16x2", "tf32", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2",
           "e2m1x2", "ue8m0x2", "e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4",
           "s2f6x2", "ue5m3x2"]
# extra destinations checked only from the packed sources (reverse direction to scalars)
EXTRA_D = ["f16", "bf16", "f32"]
X4 = {"e4m3x4", "e5m2x4", "e2m3x4", "e3m2x4", "e2m1x4"}
# natural register width of a value of each type
WIDTH = {"f32": "b32", "f16": "b16", "bf16": "b16", "tf32": "b32", "f16x2": "b32",
         "bf16x2": "b32", "e4m3x2": "b16", "e5m2x2": "b16", "e2m3x2": "b16",
         "e3m2x2": "b16", "e2m1x2": "b8", "ue8m0x2": "b16", "e4m3x4": "b32",
         "e5m2x4": "b32", "e2m3x4": "b32", "e3m2x4": "b32", "e2m1x4": "b16",
         "s2f6x2": "b16", "ue5m3x2": "b16"}
RNDS = [None, "rn", "rna", "rz", "rm", "rp", "rs"]
SCALED = "scaled::n2::ue8m0"

MAX = "MAX"
# The test reads the file named by this variable instead of the committed snapshot.
SNAPSHOT_ENV = "PTX_CVT_PACKED_SNAPSHOT"
TARGET_VERSIONS = [("sm_89", "8.1"), ("sm_89", MAX), ("sm_90", "7.8"), ("sm_90", "8.1"),
                   ("sm_90", MAX), ("sm_100a", "8.6"), ("sm_100a", "8.7"), ("sm_100a", "8.8"),
                   ("sm_100a", MAX), ("sm_100f", "8.8"), ("sm_100f", MAX),
                   ("sm_103a", "8.8"), ("sm_103a", MAX), ("sm_103f", MAX),
                   ("sm_107a", "9.4"), ("sm_107a", MAX), ("sm_107f", MAX),
                   ("sm_110a", "9.0"), ("sm_110a", MAX), ("sm_110f", "9.0"), ("sm_110f", MAX),
                   ("sm_120a", "8.7"), ("sm_120a", MAX), ("sm_120f", "8.8"), ("sm_120f", MAX),
                   ("sm_121a", MAX), ("sm_121f", MAX),
                   ("sm_101a", "8.6"), ("sm_101a", MAX), ("sm_101f", MAX),
                   # portable and older targets ptxas 13.5 knows (representative set)
                   ("sm_75", MAX), ("sm_80", MAX), ("sm_88", MAX), ("sm_100", MAX),
                   ("sm_107", MAX), ("sm_121", MAX)]
# full pair grid (all 16x17 + reverse pairs) on these; live pairs only elsewhere
SCREEN_TARGETS = ["sm_90", "sm_100a", "sm_103a", "sm_107a", "sm_110a", "sm_120a", "sm_121a"]
# operand-shape, register-width and order sets on these
DETAIL_TARGETS = ["sm_90", "sm_100a", "sm_107a"]
ORDER_TARGETS = ["sm_100a", "sm_107a"]

CHUNK = 1500
UNEXPECTED = "Unexpected instruction types specified for 'cvt'"
MISMATCH = "Arguments mismatch for instruction 'cvt'"



# ---------------------------------------------------------------------------
# Spellings and operand patterns


def spell(rnd, relu, sat, d, a, scaled=False):
    s = "cvt"
    if rnd:
        s += "." + rnd
    if relu:
        s += ".relu"
    if sat:
        s += ".satfinite"
    if scaled:
        s += "." + SCALED
    return s + "." + d + "." + a


def implied_shape(d, a, rnd, scaled=False):
    """Operand pattern docs/semantics.md §2 implies, natural widths."""
    ops = ["d:" + WIDTH[d]]
    if a == "f32" and d in X4:
        ops.append("{a,b,e,f}:b32")
        ops.append("rbits:b32")
    elif a == "f32" and d not in ("tf32", "f16", "bf16", "f32"):
        ops += ["a:b32", "b:b32"]
        if rnd == "rs":
            ops.append("rbits:b32")
    else:
        ops.append("a:" + WIDTH[a])
        if rnd == "rs":
            ops.append("rbits:b32")
    if scaled:
        ops.append("scale:b16")
    return " ".join(ops)


def shape_key(ops):
    """Structure of an operand pattern, names ignored."""
    return tuple(("v%d" % (tok.split(":")[0].count(",") + 1) if tok.startswith("{") else "s",
                  tok.rsplit(":", 1)[1]) for tok in ops.split())


def shape_catalogue(d, a):
    """Other operand shapes to try (natural widths), structurally distinct."""
    aw, dw = WIDTH[a], WIDTH[d]
    cands = ["d:%s a:%s" % (dw, aw),
             "d:%s a:%s b:%s" % (dw, aw, aw),
             "d:%s a:%s rbits:b32" % (dw, aw),
             "d:%s a:%s b:%s rbits:b32" % (dw, aw, aw),
             "d:%s {a,b}:%s" % (dw, aw),
             "d:%s {a,b}:%s rbits:b32" % (dw, aw),
             "d:%s {a,b,e,f}:%s" % (dw, aw),
             "d:%s {a,b,e,f}:%s rbits:b32" % (dw, aw),
             "d:%s a:%s scale:b16" % (dw, aw),
             "d:%s a:%s b:%s scale:b16" % (dw, aw, aw),
             "d:%s a:%s b:%s rbits:b32 scale:b16" % (dw, aw, aw)]
    out, seen = [], set()
    for c in cands:
        k = shape_key(c)
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out


def parse_ops(ops):
    """'d:b16 {a,b,e,f}:b32 rbits:b32' -> (decl text, operand text)."""
    decls, args = [], []
    for tok in ops.split():
        name, reg = tok.rsplit(":", 1)
        if name.startswith("{"):
            names = name[1:-1].split(",")
            for n in names:
                decls.append(".reg .%s %s;" % (reg, n))
            args.append("{" + ", ".join(names) + "}")
        else:
            decls.append(".reg .%s %s;" % (reg, name))
            args.append(name)
    return " ".join(decls), ", ".join(args)


# ---------------------------------------------------------------------------
# Batch assembly: scripts/ptxas-legality.py's algorithm, with this script's module layout
# (one kernel of the same 4 lines per item, so its line-to-kernel mapping holds)


def batch_text(target, version, items):
    out = [".version %s" % version, ".target %s" % target, ".address_size 64"]
    for i, (instr, ops) in enumerate(items):
        decl, args = parse_ops(ops)
        out.append(".entry k%d() {" % i)
        out.append(decl)
        out.append("%s %s;" % (instr, args))
        out.append("ret; }")
    return "\n".join(out) + "\n"


def assemble_exact(ptxas, target, version, items, stats):
    return S.assemble_exact(ptxas, target, version, items, stats, render=batch_text)



def assemble_groups(ptxas, groups, jobs, stats, reverse=False):
    return S.assemble_groups(ptxas, groups, jobs, stats, render=batch_text, reverse=reverse)


# ---------------------------------------------------------------------------
# Enumeration


def all_pairs():
    pairs = [(d, a) for d in PACKED_D for a in SOURCES]
    pairs += [(d, a) for d in EXTRA_D for a in SOURCES if a not in ("f32",)]
    return pairs


def scaled_opts(d, a, scaled_pairs=None):
    """.scaled::n2::ue8m0 is tried on every pair on the screen targets; elsewhere only on
    the pairs where some scaled spelling was accepted on a screen target (scaled_pairs)."""
    if scaled_pairs is None or (d, a) in scaled_pairs:
        return (False, True)
    return (False,)


def grid_items(pairs, scaled_pairs=None):
    for d, a in pairs:
        for rnd in RNDS:
            for relu in (False, True):
                for sat in (False, True):
                    for sc in scaled_opts(d, a, scaled_pairs):
                        yield (spell(rnd, relu, sat, d, a, sc), implied_shape(d, a, rnd, sc))


def grid_meta():
    """instr -> (rnd, relu, sat, scaled, d, a) for grid spellings."""
    meta = {}
    for d, a in all_pairs():
        for rnd in RNDS:
            for relu in (False, True):
                for sat in (False, True):
                    for sc in scaled_opts(d, a):
                        meta[spell(rnd, relu, sat, d, a, sc)] = (rnd, relu, sat, sc, d, a)
    return meta


def shape_items(pairs, res_tv, scaled_pairs):
    """Other shapes for the spellings (relu off) whose implied shape was accepted or
    rejected with 'Arguments mismatch' (other errors do not depend on the shape)."""
    items = []
    for d, a in pairs:
        for rnd in RNDS:
            for sat in (False, True):
                for sc in scaled_opts(d, a, scaled_pairs):
                    instr = spell(rnd, False, sat, d, a, sc)
                    vd = res_tv.get((instr, implied_shape(d, a, rnd, sc)))
                    if vd is None or not (vd[0] == "ok" or vd[1] == MISMATCH):
                        continue
                    imp = shape_key(implied_shape(d, a, rnd, sc))
                    for sh in shape_catalogue(d, a):
                        if shape_key(sh) != imp:
                            items.append((instr, sh))
    return items


TYPED = {"b8": ["u8", "s8"], "b16": ["u16", "s16", "f16"], "b32": ["u32", "s32", "f32"],
         "b64": ["u64", "f64"]}


def width_items(instr, ops):
    toks = ops.split()
    items = []
    for i, tok in enumerate(toks):
        name, reg = tok.rsplit(":", 1)
        alts = ["b8", "b16", "b32", "b64", "pred"] + TYPED.get(reg, []) + ["f32", "u32", "f16"]
        for r in alts:
            if r != reg:
                t2 = list(toks)
                t2[i] = "%s:%s" % (name, r)
                items.append((instr, " ".join(t2)))
    # all sources one size wider at once / destination and sources wider together
    wider = {"b8": "b16", "b16": "b32", "b32": "b64"}
    t2 = [("%s:%s" % (tok.rsplit(":", 1)[0], wider.get(tok.rsplit(":", 1)[1], "b64")))
          for tok in toks]
    items.append((instr, " ".join(t2)))
    return items


def mods_of(rnd, relu, sat, sc):
    return [m for m, on in ((rnd, bool(rnd)), ("relu", relu), ("satfinite", sat),
                            (SCALED, sc)) if on]


def order_items(accepted, meta):
    """accepted: set of (instr, ops) ok on one tv.  Reorders, duplicates, foreign."""
    items = []
    for instr, ops in sorted(accepted):
        if instr not in meta:
            continue
        rnd, relu, sat, sc, d, a = meta[instr]
        mods = mods_of(rnd, relu, sat, sc)
        tail = "%s.%s" % (d, a)
        # all after the types, between the types, and every permutation (sampled)
        if mods:
            items.append(("cvt.%s.%s" % (tail, ".".join(mods)), ops))
            items.append(("cvt.%s.%s.%s" % (d, ".".join(mods), a), ops))
            perms = set()
            toks = mods + ["@D", "@A"]
            for p in itertools.permutations(toks):
                if p.index("@D") < p.index("@A"):
                    perms.add("cvt." + ".".join(d if x == "@D" else a if x == "@A" else x
                                                for x in p))
            perms.discard(instr)
            perms = sorted(perms)
            if len(perms) > 6:
                perms = random.Random(instr).sample(perms, 6)
            items += [(p, ops) for p in perms]
            # reversed types
            items.append(("cvt.%s.%s.%s" % (".".join(mods), a, d), ops))
        pre = "cvt" + "".join("." + m for m in mods)
        for dup in mods:
            items.append((pre + "." + dup + "." + tail, ops))
        for extra in ("ftz", "sat", "relu", "satfinite", "rn", "rz", "rs", "approx",
                      SCALED, "scaled::n2::ue4m3", "scaled::n4::ue8m0", "foo"):
            if extra not in mods:
                items.append((pre + "." + extra + "." + tail, ops))
    return items


# ---------------------------------------------------------------------------


def main():
    ap = S.arg_parser(__doc__, DEFAULT_OUT, 400)
    ap.add_argument("--verify-all", action="store_true")
    ap.add_argument("--all-targets", action="store_true",
                    help="also every other target ptxas 13.5 knows, at the newest .version (a large "
                         "file: write it elsewhere with --out and test it with %s)" % SNAPSHOT_ENV)
    args = ap.parse_args()
    t0 = time.time()

    ptxas = S.get_ptxas(args.ptxas)
    pver = S.ptxas_version(ptxas)
    vmax = S.max_version(ptxas)
    log("ptxas: %s (%s); max .version %s" % (ptxas, pver, vmax))

    tvs, skipped = [], []
    extra = [(t, MAX) for t in ALL_TARGETS if args.all_targets and (t, MAX) not in TARGET_VERSIONS]
    for t, v in TARGET_VERSIONS + extra:
        v = vmax if v == MAX else v
        ok, out = S.baseline_ok(ptxas, t, v)
        if ok:
            if (t, v) not in tvs:
                tvs.append((t, v))
        else:
            skipped.append((t, v, " | ".join(l.strip() for l in out if l.strip())))
            log("skip %s %s: %s" % (t, v, skipped[-1][2]))
    screen_tvs = [(t, vmax) for t in SCREEN_TARGETS if (t, vmax) in tvs]
    detail_tvs = [(t, vmax) for t in DETAIL_TARGETS if (t, vmax) in tvs]
    stats = {"runs": 0, "bisections": 0}
    meta = grid_meta()
    pairs = all_pairs()

    # (a) screen: full grid on the screen targets at MAX
    grid_all = list(grid_items(pairs))
    res = assemble_groups(ptxas, {tv: grid_all for tv in screen_tvs}, args.jobs, stats)
    live = set()
    for (t, v, (instr, ops)), (verdict, msg) in res.items():
        if msg != UNEXPECTED:
            live.add(meta[instr][4:])
    live = sorted(live)
    # Dead pairs: every spelling on every screen target gave UNEXPECTED.  Keep one
    # representative row per (screen target, pair) in the snapshot.
    dead_rep = {}
    for d, a in pairs:
        if (d, a) not in live:
            dead_rep[(d, a)] = {(spell("rn", False, True, d, a), implied_shape(d, a, "rn")),
                                (spell("rn", False, True, d, a, True),
                                 implied_shape(d, a, "rn", True))}
    n_dead_rows = 0
    dead_msgs = set()
    for k in list(res):
        t, v, (instr, ops) = k
        m = meta[instr]
        if (m[4], m[5]) in dead_rep:
            dead_msgs.add((m[3], res[k][1]))
            if (instr, ops) not in dead_rep[(m[4], m[5])]:
                del res[k]
                n_dead_rows += 1
    log("dead pairs: (scaled, message) seen: %s" % sorted(dead_msgs))
    log("screen: %d verdicts, %d live pairs of %d (%.1fs)" % (len(res), len(live), len(pairs),
                                                              time.time() - t0))
    scaled_pairs = set()
    for (t, v, (instr, ops)), (verdict, msg) in res.items():
        if meta[instr][3] and verdict == "ok":
            scaled_pairs.add(meta[instr][4:])
    log("pairs taking .%s: %s" % (SCALED, " ".join("%s.%s" % p for p in sorted(scaled_pairs))))
    grid_live = list(grid_items(live, scaled_pairs))
    groups = {tv: grid_live for tv in tvs if tv not in screen_tvs}
    res.update(assemble_groups(ptxas, groups, args.jobs, stats))
    log("grid: %d verdicts (%.1fs)" % (len(res), time.time() - t0))

    # (b) shapes, (c) widths, (d) order on the detail targets
    groups = {}
    for tv in detail_tvs:
        res_tv = {it: vd for (t, v, it), vd in res.items() if (t, v) == tv}
        items = shape_items(live, res_tv, scaled_pairs)
        acc = sorted(it for it, vd in res_tv.items() if vd[0] == "ok")
        # widths: richest accepted spelling per (pair, rounding, scaled)
        best = {}
        for instr, ops in acc:
            rnd, relu, sat, sc, d, a = meta[instr]
            k = (d, a, rnd, sc)
            if k not in best or (relu + sat) > best[k][0]:
                best[k] = (relu + sat, instr, ops)
        for k in sorted(best):
            items += width_items(best[k][1], best[k][2])
        if tv[0] in ORDER_TARGETS:
            items += order_items(set(acc), meta)
        groups[tv] = items
    res2 = assemble_groups(ptxas, groups, args.jobs, stats)
    for k, vd in res2.items():
        res.setdefault(k, vd)
    # second round of shapes: an accepted non-implied shape -> its width variants too
    groups = {}
    for (t, v, (instr, ops)), vd in res2.items():
        if vd[0] == "ok" and instr in meta and \
                shape_key(ops) != shape_key(implied_shape(*[meta[instr][i] for i in (4, 5, 0, 3)])):
            groups.setdefault((t, v), []).extend(width_items(instr, ops))
    for tv in groups:
        groups[tv] = [it for it in groups[tv] if (tv[0], tv[1], it) not in res]
    res.update(assemble_groups(ptxas, groups, args.jobs, stats))
    log("all sets: %d rows (%.1fs, %d ptxas runs, %d bisections)"
        % (len(res), time.time() - t0, stats["runs"], stats["bisections"]))

    # Verification 1: every error again, reversed order.
    groups = {}
    for (t, v, it), vd in res.items():
        if vd[0] == "error":
            groups.setdefault((t, v), []).append(it)
    vstats = {"runs": 0, "bisections": 0}
    rev = assemble_groups(ptxas, groups, args.jobs, vstats, reverse=True)
    suspects = {k for k, vd in rev.items() if vd != res[k]}
    log("reverse-order check of %d errors: %d disagreements (%.1fs)"
        % (len(rev), len(suspects), time.time() - t0))

    # Verification 2: single-spelling runs.
    keys = sorted(res, key=lambda k: (S.tv_sort_key(k[0], k[1]), k[2]))
    check = list(keys) if args.verify_all else \
        random.Random(20240).sample(keys, min(args.sample, len(keys)))
    # ... plus every accepted spelling outside the canonical grid
    grid_keys = set(grid_all)
    extra_ok = {k for k, vd in res.items() if vd[0] == "ok" and k[2] not in grid_keys}
    check = sorted(set(check) | suspects | extra_ok,
                   key=lambda k: (S.tv_sort_key(k[0], k[1]), k[2]))
    mism = S.settle_by_single_runs(ptxas, check, res, args.jobs, render=batch_text,
                                   describe=lambda k: "%s %s %s [%s]" % (k[0], k[1], k[2][0], k[2][1]))

    rows = []
    for (t, v, (instr, ops)), (verdict, msg) in res.items():
        msg = msg.replace("\t", " ").replace("\n", " ").strip()
        rows.append(((S.tv_sort_key(t, v), instr, ops), "\t".join([t, v, instr, ops, verdict, msg])))
    rows.sort()
    n_ok = sum(1 for _, r in rows if r.split("\t")[4] == "ok")
    hdr = [
        "# ptxas legality snapshot for packed/narrow cvt spellings (generated; do not edit by hand)",
        "# ptxas: %s (PyPI nvidia-cuda-nvcc, scripts/get-ptxas.sh)" % pver,
        "# regenerate: python3 scripts/ptxas-legality-packed.py",
        "# max .version accepted by this ptxas: %s" % vmax,
        "# each row: one kernel '.reg .R x; ... INSTRUCTION OPERANDS; ret;' in",
        "#   '.version V / .target T / .address_size 64', assembled with ptxas -arch=T",
        "# columns (tab-separated): target version instruction operands verdict message",
        "#   instruction: exact text before the operands",
        "#   operands: operand pattern in order, NAME:REGTYPE ('.reg .REGTYPE NAME;'), '{a,b,e,f}:R'",
        "#   is a vector operand of four registers of type R",
        "#   verdict: ok | error; message: ptxas's first error for the line ('fatal: ' prefix when",
        "#   it aborted the file), 'warning: ...' on ok rows with a warning, else empty",
        "# sets: (a) grid cvt{.rnd}{.relu}{.satfinite}{.%s}.D.A, rnd in none rn rna rz rm rp rs," % SCALED,
        "#   D in %s; A in %s;" % (" ".join(PACKED_D), " ".join(SOURCES)),
        "#   also D in %s from every A but f32; with .%s (operand scale:b16 appended)" % (
            " ".join(EXTRA_D), SCALED),
        "#   on the screen targets for every pair, elsewhere only for the pairs where a scaled",
        "#   spelling was accepted on a screen target:",
        "#   %s;" % " ".join("%s.%s" % p for p in sorted(scaled_pairs)),
        "#   operands as docs/semantics.md §2 implies, natural widths; all pairs on %s;" % ", ".join(
            "%s %s" % tv for tv in screen_tvs),
        "#   on the other targets/versions only the %d live pairs (some spelling on a screen" % len(live),
        "#   target not rejected with \"%s\");" % UNEXPECTED,
        "#   for the %d dead pairs the %d grid spellings on the screen targets gave only: %s;" % (
            len(dead_rep), n_dead_rows + 2 * len(dead_rep) * len(screen_tvs),
            "; ".join("%s -> \"%s\"" % ("scaled" if sc else "unscaled", m)
                      for sc, m in sorted(dead_msgs))),
        "#   only cvt.rn.satfinite.D.A and its scaled form are kept as rows per (screen target, pair)",
        "#   (b) other operand shapes (for spellings, relu off, whose implied shape was ok or got",
        "#   \"%s\") and (c) other register types per operand of the richest" % MISMATCH,
        "#   accepted spelling per (pair, rounding, scaled), on %s;" % ", ".join("%s %s" % tv for tv in detail_tvs),
        "#   (d) modifier order/duplicates/foreign modifiers on every accepted grid spelling, on %s" % (
            ", ".join("%s %s" % (t, vmax) for t in ORDER_TARGETS)),
        "# checks: errors re-derived in reversed-order batches; a seeded sample of %d rows and" % args.sample,
        "#   every ok row outside set (a) re-assembled alone (%d disagreements)" % len(mism),
        "# targets/versions: %s" % ", ".join("%s %s" % tv for tv in tvs),
    ]
    for t, v, why in skipped:
        hdr.append("# skipped (invalid combination): %s %s: %s" % (t, v, why))
    hdr.append("# rows: %d (ok %d, error %d)" % (len(rows), n_ok, len(rows) - n_ok))
    S.write_snapshot(args.out, hdr, [r for _, r in rows], n_ok, t0)
    return 1 if mism else 0


if __name__ == "__main__":
    sys.exit(main())
