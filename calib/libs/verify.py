#!/usr/bin/env python3
"""Check a calibration adapter's ground-truth log against ptx-cvt's mismatches.

    verify.py IMPL_JSON [--ptx-cvt PATH] [--build] [--json-out FILE] [--keep-log FILE]
    verify.py --check-json CHECK_JSONL --log LOG       (compare files already made)

With IMPL_JSON (calib/libs/<name>/impl.json), runs its `build` (with
--build), then `ptx-cvt check --json --all TARGET CASES` with the log env var
pointing at a fresh file, from the repository root. Then: every mismatch's
key (`instruction operands /WIDTH`, lowercased, WIDTH = len(got) * 4) must
be in the log, and every log key must be a mismatch. Prints the run time,
the cases per defect, and how the report's bug classes split the defects.
Exit status 0 when both directions hold. Standard library only.
"""

import argparse
import collections
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def key_of(m):
    return (m["instruction"] + " " + " ".join(m["operands"]) + " /" + str(len(m["got"]) * 4)).lower()


def read_check(lines):
    mism, classes = {}, {}
    for line in lines:
        line = line.strip()
        if not line:
            continue
        o = json.loads(line)
        if "mismatch" in o:
            m = o["mismatch"]
            mism[key_of(m)] = m
        elif "summary" in o:
            for c in o["summary"].get("bug_classes", []):
                ex = c.get("explanation") or {}
                classes[c["id"]] = {
                    "name": ex.get("name") or c.get("rule"),
                    "text": ex.get("text") or c.get("rule_text", ""),
                    "cases": c["cases"],
                    "scope": c.get("scope", ""),
                }
    return mism, classes


def read_log(path):
    log = {}
    dup = 0
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                k, _, d = line.partition("\t")
                if k in log:
                    dup += 1
                log[k] = d
    return log, dup


def report(mism, classes, log, dup):
    ok = True
    missing = [k for k in mism if k not in log]
    extra = [k for k in log if k not in mism]
    print(f"mismatches: {len(mism)}; log lines: {len(log)} (+{dup} repeated keys)")
    print(f"mismatches without a log line: {len(missing)}")
    for k in missing[:10]:
        m = mism[k]
        print(f"  {k}  expected {m['expected']} got {m['got']}")
    print(f"log lines without a mismatch: {len(extra)}")
    for k in extra[:10]:
        print(f"  {k}\t{log[k]}")
    if missing or extra:
        ok = False
    per = collections.Counter(log[k] for k in mism if k in log)
    print("cases per defect (mismatches):")
    for d, n in per.most_common():
        print(f"  {n:7d}  {d}")
    # classes x defects
    grid = collections.defaultdict(collections.Counter)
    for k, m in mism.items():
        grid[m.get("bug_class")][log.get(k, "(no log line)")] += 1
    print("bug classes of the report and the defects in each:")
    for cid in sorted(grid, key=lambda c: (c is None, c if c is not None else 0)):
        c = classes.get(cid, {})
        print(f"  class {cid}: {c.get('cases', '?')} case(s): {c.get('name')}: {c.get('text', '')}")
        print(f"      scope {c.get('scope', '')}")
        for d, n in grid[cid].most_common():
            print(f"      {n:7d}  {d}")
    where = collections.defaultdict(set)
    for cid, cnt in grid.items():
        for d in cnt:
            where[d].add(cid)
    print("defects and the classes they fall in:")
    for d in sorted(where):
        print(f"  {d}: classes {sorted(where[d], key=lambda c: c if c is not None else -1)}")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("impl", nargs="?")
    ap.add_argument("--ptx-cvt", default=os.path.join(ROOT, "target", "release", "ptx-cvt"),
                    help="the ptx-cvt binary (default: the release build of this checkout)")
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--json-out")
    ap.add_argument("--keep-log")
    ap.add_argument("--check-json")
    ap.add_argument("--log")
    a = ap.parse_args()
    if a.check_json:
        with open(a.check_json) as f:
            mism, classes = read_check(f)
        log, dup = read_log(a.log)
        return 0 if report(mism, classes, log, dup) else 1
    with open(a.impl) as f:
        impl = json.load(f)
    if a.build and impl.get("build"):
        t = time.time()
        subprocess.run(impl["build"], shell=True, cwd=ROOT, check=True)
        print(f"build: {time.time() - t:.1f} s")
    logpath = a.keep_log or tempfile.mktemp(prefix="calib-log-")
    if os.path.exists(logpath):
        os.unlink(logpath)
    env = dict(os.environ)
    env[impl["log_env"]] = logpath
    cmd = [a.ptx_cvt, "check", "--json", "--all"] + impl["target"] + [impl.get("cases", "vectors/compact")]
    print("run:", " ".join(shlex.quote(c) for c in cmd))
    t = time.time()
    p = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.time() - t
    print(f"check: exit {p.returncode}, {dt:.1f} s")
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr[-4000:])
    if a.json_out:
        with open(a.json_out, "w") as f:
            f.write(p.stdout)
    mism, classes = read_check(p.stdout.splitlines())
    log, dup = read_log(logpath)
    if not a.keep_log:
        os.unlink(logpath) if os.path.exists(logpath) else None
    return 0 if report(mism, classes, log, dup) and p.returncode in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
