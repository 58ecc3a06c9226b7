"""Shared harness of the ptxas legality snapshots: find ptxas (scripts/get-ptxas.sh),
run it, and assemble many one-instruction kernels per file with an exact verdict per
kernel (errors attributed by line number, clean lines re-run without the erroring
ones, unattributed failures bisected). Only the Python 3 standard library is used.
"""

import argparse
import concurrent.futures
import itertools
import os
import random
import re
import subprocess
import sys
import tempfile
import time

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(SCRIPTS)
HERE = SCRIPTS  # get_ptxas looks for get-ptxas.sh here

# Every target ptxas 13.5 knows (`ptxas -arch=sm_101` is an error; nothing below sm_75).
ALL_TARGETS = ["sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a",
               "sm_100", "sm_100a", "sm_100f", "sm_103", "sm_103a", "sm_103f",
               "sm_107", "sm_107a", "sm_107f", "sm_110", "sm_110a", "sm_110f",
               "sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f"]

CHUNK = 1500

LINE_RE = re.compile(r"^ptxas (?P<file>.*?), line (?P<line>\d+); "
                     r"(?P<kind>error|warning|fatal|info)\s*: (?P<msg>.*)$")
ABORT_RE = re.compile(r"^ptxas fatal\s*: Ptx assembly aborted due to errors\s*$")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# ptxas


def get_ptxas(explicit):
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            sys.exit("ptxas-legality: --ptxas %s is not an executable file" % explicit)
        return os.path.abspath(explicit)
    script = os.path.join(HERE, "get-ptxas.sh")
    p = subprocess.run(["bash", script], stdout=subprocess.PIPE, text=True)
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    if p.returncode != 0 or not lines:
        sys.exit("ptxas-legality: scripts/get-ptxas.sh failed (exit %d)" % p.returncode)
    return lines[-1].strip()


def ptxas_version(ptxas):
    out = subprocess.run([ptxas, "--version"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True).stdout
    rel = [l.strip() for l in out.splitlines() if "release" in l]
    return rel[0] if rel else out.strip().splitlines()[-1]


def run_ptxas(ptxas, target, text):
    """Assemble text; return (returncode, stderr+stdout lines)."""
    fd, path = tempfile.mkstemp(suffix=".ptx", prefix="cvt-legality-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        p = subprocess.run([ptxas, "-arch=" + target, path, "-o", os.devnull],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout.splitlines()
    finally:
        os.unlink(path)


def max_version(ptxas):
    rc, out = run_ptxas(ptxas, "sm_90",
                        ".version 99.9\n.target sm_90\n.address_size 64\n.entry k() { ret; }\n")
    for l in out:
        m = re.search(r"current version is '(\d+\.\d+)'", l)
        if m:
            return m.group(1)
    # Fallback: probe downwards.
    for major in range(12, 6, -1):
        for minor in range(9, -1, -1):
            v = "%d.%d" % (major, minor)
            rc, _ = run_ptxas(ptxas, "sm_90", ".version %s\n.target sm_90\n.address_size 64\n"
                              ".entry k() { ret; }\n" % v)
            if rc == 0:
                return v
    sys.exit("ptxas-legality: cannot determine the highest .version")


def baseline_ok(ptxas, target, version):
    rc, out = run_ptxas(ptxas, target, ".version %s\n.target %s\n.address_size 64\n"
                        ".entry k() {\n.reg .b32 d; .reg .b32 a;\nmov.b32 d, a;\nret; }\n"
                        % (version, target))
    return rc == 0 and not any(l.strip() for l in out), out


# ---------------------------------------------------------------------------
# Batch assembly with exact per-spelling verdicts

HEADER_LINES = 3
KLINES = 4  # lines per kernel


def batch_text(target, version, items):
    out = [".version %s" % version, ".target %s" % target, ".address_size 64"]
    for i, (instr, dreg, areg) in enumerate(items):
        out.append(".entry k%d() {" % i)
        out.append(".reg .%s d; .reg .%s a;" % (dreg, areg))
        out.append("%s d, a;" % instr)
        out.append("ret; }")
    return "\n".join(out) + "\n"


def run_once(ptxas, target, version, items, render=None):
    """One ptxas run.  Returns (clean, per, unattributed, fatal_idx):
    per[i] = list of (kind, msg) for kernel i."""
    rc, out = run_ptxas(ptxas, target, (render or batch_text)(target, version, items))
    per = {}
    unattributed = []
    fatal_idx = None
    for l in out:
        if not l.strip() or ABORT_RE.match(l):
            continue
        m = LINE_RE.match(l)
        if not m:
            unattributed.append(l.strip())
            continue
        ln = int(m.group("line"))
        idx = (ln - HEADER_LINES - 1) // KLINES
        if ln <= HEADER_LINES or idx >= len(items):
            unattributed.append(l.strip())
            continue
        kind, msg = m.group("kind"), m.group("msg").strip()
        per.setdefault(idx, []).append((kind, msg))
        if kind == "fatal":
            fatal_idx = idx if fatal_idx is None else fatal_idx
    has_err = any(k in ("error", "fatal") for v in per.values() for k, _ in v)
    clean = rc == 0 and not has_err and not unattributed
    return clean, per, unattributed, fatal_idx, rc


def verdict_of(msgs):
    errs = [(k, m) for k, m in msgs if k in ("error", "fatal")]
    if errs:
        k, m = errs[0]
        return ("error", ("fatal: " + m) if k == "fatal" else m)
    warns = [m for k, m in msgs if k == "warning"]
    return ("ok", ("warning: " + warns[0]) if warns else "")


def assemble_exact(ptxas, target, version, items, stats, render=None):
    """Exact verdict for each item (list of (instr, dreg, areg)) -> dict.
    `render` turns items into a module (default: this script's batch_text);
    scripts/ptxas-legality-packed.py passes its own."""
    results = {}
    pending = list(items)
    while pending:
        stats["runs"] += 1
        clean, per, unattributed, fatal_idx, rc = run_once(ptxas, target, version, pending, render)
        if clean:
            for i, it in enumerate(pending):
                results[it] = verdict_of(per.get(i, []))
            break
        nxt = []
        progress = False
        for i, it in enumerate(pending):
            v = verdict_of(per.get(i, []))
            if v[0] == "error":
                results[it] = v
                progress = True
            else:
                nxt.append(it)
        if not progress:
            # Failure not tied to a line: bisect.
            stats["bisections"] += 1
            if len(pending) == 1:
                msg = unattributed[0] if unattributed else "ptxas exit status %d" % rc
                results[pending[0]] = ("error", "unattributed: " + msg)
                break
            h = len(pending) // 2
            results.update(assemble_exact(ptxas, target, version, pending[:h], stats, render))
            results.update(assemble_exact(ptxas, target, version, pending[h:], stats, render))
            break
        pending = nxt
    return results


def single(ptxas, target, version, item, render=None):
    clean, per, unattributed, fatal_idx, rc = run_once(ptxas, target, version, [item], render)
    if clean:
        return verdict_of(per.get(0, []))
    v = verdict_of(per.get(0, []))
    if v[0] == "error":
        return v
    return ("error", "unattributed: " + (unattributed[0] if unattributed
                                         else "ptxas exit status %d" % rc))


def settle_by_single_runs(ptxas, check, res, jobs, render=None, describe=str):
    """Assemble each key of `check` (target, version, item) alone; where that
    disagrees with the batch verdict in `res`, the single run wins (`res` is
    updated). Logs the count and the first 20 disagreements; returns them."""
    mism = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(single, ptxas, k[0], k[1], k[2], render): k for k in check}
        for f in concurrent.futures.as_completed(futs):
            k = futs[f]
            v = f.result()
            if v != res[k]:
                mism.append((k, res[k], v))
                res[k] = v
    log("single-spelling check of %d: %d disagreements (settled by the single run)" % (len(check), len(mism)))
    for k, b, s in sorted(mism)[:20]:
        log("  %s: batch %s, single %s" % (describe(k), b, s))
    return mism


def assemble_groups(ptxas, groups, jobs, stats, render=None, reverse=False):
    """groups: {(target, version): [items]} -> {(target, version, item): verdict}.

    `render` as for assemble_exact; `reverse` batches the items in reverse order."""
    tasks = []
    for (t, v), items in sorted(groups.items()):
        items = sorted(set(items), reverse=reverse)
        for k in range(0, len(items), CHUNK):
            tasks.append((t, v, items[k:k + CHUNK]))
    out = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(assemble_exact, ptxas, t, v, chunk, stats, render): (t, v) for t, v, chunk in tasks}
        for f in concurrent.futures.as_completed(futs):
            t, v = futs[f]
            for it, verdict in f.result().items():
                out[(t, v, it)] = verdict
    return out


def tv_sort_key(t, v):
    m = re.match(r"sm_(\d+)(.*)$", t)
    return (int(m.group(1)), m.group(2), tuple(int(x) for x in v.split(".")))


def write_snapshot(out, hdr, rows, n_ok, t0):
    """Write the header lines and row lines to `out` atomically (a temporary
    file in the same folder, then a rename) and log the totals."""
    outdir = os.path.dirname(os.path.abspath(out))
    os.makedirs(outdir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=outdir, prefix="." + os.path.basename(out) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(hdr) + "\n" + "".join(r + "\n" for r in rows))
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise
    log("wrote %s: %d rows (%d ok) in %.1fs" % (out, len(rows), n_ok, time.time() - t0))


def arg_parser(doc, default_out, sample):
    """The options every snapshot driver takes: --ptxas, --out, --sample, --jobs."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--ptxas", help="ptxas binary (default: scripts/get-ptxas.sh)")
    ap.add_argument("--out", default=default_out)
    ap.add_argument("--sample", type=int, default=sample,
                    help="spellings re-run one per file as a spot check (default %d)" % sample)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    return ap
