#!/usr/bin/env python3
"""Score ptx-cvt's diagnosis (its bug classes) against known defects.

    python3 calib/calibrate.py [--bin PATH] [--sample N] [--seed S] [--jobs J] [--json] [--only NAME]

The calibration corpus (calib/README.md) is a set of implementations whose
defects are known case by case: mutants of calib/c/convert.c (3-8 planted
mutations each, drawn with a fixed seed) and the library converters that
calib/libs/*/impl.json register. Each runs under
`ptx-cvt check --json --all` over vectors/compact; its mismatches, joined
with the truth log the implementation wrote, give for each bug class the
defects it holds and for each defect the classes it is spread over.

Metrics (per implementation, and over the corpus as the mean over
implementations and pooled over every implementation's classes and defects):
  defects     distinct defects with at least one mismatch
  classes     distinct bug classes with at least one mismatch
  ratio       classes / defects (1 is ideal)
  purity      sum over classes of the weight of its biggest defect / total weight
  home        mean over defects of the share of its weight in its biggest class
  unattr      mismatches the truth log names no defect for
A mismatch in |C| classes with |D| defects adds 1/(|C|*|D|) to each (class,
defect) pair. Standard library only; progress goes to stderr.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import mutate  # noqa: E402


class Fail(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def write_atomic(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    mutate.write_atomic(path, text)


# ---------------------------------------------------------------- metrics


def metrics(rows):
    """rows: [(classes, defects)] per attributed mismatch (lists of hashable
    labels). Returns the metrics of section "Metrics" of the module doc."""
    w = {}  # class -> defect -> weight
    for classes, defects in rows:
        if not classes or not defects:
            continue
        share = 1.0 / (len(classes) * len(defects))
        for c in classes:
            for d in defects:
                w.setdefault(c, {})
                w[c][d] = w[c].get(d, 0.0) + share
    by_defect = {}
    for c, ds in w.items():
        for d, x in ds.items():
            by_defect.setdefault(d, {})[c] = x
    total = sum(sum(ds.values()) for ds in w.values())
    n_c, n_d = len(w), len(by_defect)
    purity = sum(max(ds.values()) for ds in w.values()) / total if total else None
    home = (sum(max(cs.values()) / sum(cs.values()) for cs in by_defect.values()) / n_d) if n_d else None
    return {
        "defects": n_d,
        "classes": n_c,
        "ratio": (n_c / n_d) if n_d else None,
        "purity": purity,
        "home": home,
    }


def score(mismatches, truth):
    """mismatches: [(key, [class ids])]; truth: key -> [defects]. Returns
    (rows for metrics, unattributed count)."""
    rows, unattributed = [], 0
    for key, classes in mismatches:
        defects = truth.get(key)
        if not defects:
            unattributed += 1
            continue
        # Cases only the combination of mutations changes belong to no one
        # defect: left out of the metrics (and not counted as unattributed).
        defects = [d for d in defects if d != "interaction"]
        if defects:
            rows.append((classes, defects))
    return rows, unattributed


# ------------------------------------------------------------ check runs


def mismatch_key(m):
    ops = " ".join(m["operands"])
    return f"{m['instruction']} {ops} /{len(m['got']) * 4}".lower()


def read_truth(path):
    truth = {}
    if not os.path.exists(path):
        return truth
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if "\t" not in line:
                continue
            key, defect = line.split("\t", 1)
            ds = truth.setdefault(key.lower(), [])
            for d in defect.split(","):
                d = d.strip()
                if d and d not in ds:
                    ds.append(d)
    return truth


def run_check(bin_path, target, cases, env_extra, timeout=3600):
    env = dict(os.environ)
    env.update(env_extra)
    # A process adapter's first answer may wait for its interpreter and
    # libraries to load on a busy machine: a minute, not the default 5 s.
    extra = ["--timeout", "60"] if "--target-cmd" in target else []
    cmd = [bin_path, "check", "--json", "--all"] + extra + list(target) + [cases]
    try:
        p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Fail(f"running {' '.join(cmd)}: {e}")
    if p.returncode not in (0, 1):
        tail = "\n".join(p.stderr.strip().splitlines()[-5:])
        raise Fail(f"`ptx-cvt check` exited {p.returncode}: {tail}")
    mismatches, summary = [], None
    for line in p.stdout.splitlines():
        if not line.strip():
            continue
        try:
            v = json.loads(line)
        except ValueError:
            raise Fail(f"`ptx-cvt check --json` printed a line that is not JSON: {line[:120]!r}")
        if "mismatch" in v:
            m = v["mismatch"]
            classes = m.get("bug_classes")
            if not classes:
                classes = [m["bug_class"]] if m.get("bug_class") is not None else []
            mismatches.append((mismatch_key(m), list(dict.fromkeys(classes))))
        elif "summary" in v:
            summary = v["summary"]
    if summary is None:
        raise Fail("`ptx-cvt check --json` printed no summary")
    return mismatches, summary


def report_lines(bin_path, target, cases, env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    p = subprocess.run([bin_path, "check"] + list(target) + [cases], cwd=ROOT, env=env, capture_output=True,
                       text=True)
    return len(p.stdout.splitlines())


# ------------------------------------------------------------ the corpus


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def build_mutant_library(work, cc):
    src = os.path.join(HERE, "c", "convert.c")
    with open(src) as f:
        text = f.read()
    mutated, rows = mutate.build(text)
    write_atomic(os.path.join(work, "convert_mut.c"), mutated)
    lib = os.path.join(work, "libconvert_mut.so")
    cmd = [cc, "-shared", "-fPIC", "-O2", "-std=gnu99", "-I", os.path.join(ROOT, "capi", "include"),
           os.path.join(work, "convert_mut.c"), "-o", lib + ".tmp", "-lpthread"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise Fail(f"building the mutant library failed:\n{p.stderr[-2000:]}")
    os.replace(lib + ".tmp", lib)
    return lib, rows, sha256(mutated)


def screen(bin_path, lib, cases, src_hash, n_sites):
    """Per mutation id, how many answered cases it changes alone. Cached in
    calib/c/screen.tsv (keyed by the mutated source's hash and the cases)."""
    cache = os.path.join(HERE, "c", "screen.tsv")
    tag = f"# source-sha256 {src_hash} cases {cases}"
    if os.path.exists(cache):
        with open(cache) as f:
            lines = f.read().splitlines()
        if lines and lines[0] == tag:
            counts = {}
            for line in lines[2:]:
                i, n = line.split("\t")
                counts[int(i)] = int(n)
            if len(counts) == n_sites:
                return counts
    log(f"screening {n_sites} single mutations over {cases} (about a minute) ...")
    out = tempfile.NamedTemporaryFile(prefix="ptx-mut-screen-", suffix=".tsv", delete=False)
    out.close()
    try:
        env = dict(os.environ, PTX_MUT_SCREEN=out.name)
        env.pop("PTX_MUT", None)
        p = subprocess.run([bin_path, "check", "-q", "--target-lib", lib, cases], cwd=ROOT, env=env,
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise Fail(f"the unmutated library does not pass (exit {p.returncode}): {p.stdout[-500:]}{p.stderr[-500:]}")
        counts = {}
        with open(out.name) as f:
            for line in f:
                a, b = line.rstrip("\n").split("\t")
                if a != "answered":
                    counts[int(a)] = int(b)
    finally:
        os.unlink(out.name)
    if len(counts) != n_sites:
        raise Fail("screening wrote an incomplete table")
    body = "id\tchanged\n" + "".join(f"{i}\t{counts[i]}\n" for i in sorted(counts))
    try:
        write_atomic(cache, tag + "\n" + body)
    except OSError as e:
        log(f"note: could not cache the screening in {cache}: {e}")
    return counts


def site_groups(rows):
    """Mutation id -> site (alternatives of one expression share a site)."""
    return {i: site for i, site, line, kind, orig, desc in rows}


def draw_mutants(rows, counts, n, seed, max_changed=0):
    """n mutants of 3-8 mutations at distinct sites, drawn from the mutations
    that change at least one case and (max_changed > 0) at most max_changed."""
    site = site_groups(rows)
    eligible = sorted(i for i, c in counts.items() if c > 0 and (max_changed <= 0 or c <= max_changed))
    by_site = {}
    for i in eligible:
        by_site.setdefault(site[i], []).append(i)
    sites = sorted(by_site)
    rng = random.Random(seed)
    mutants = []
    for k in range(n):
        size = rng.randint(3, 8)
        chosen = rng.sample(sites, min(size, len(sites)))
        ids = sorted(rng.choice(by_site[s]) for s in chosen)
        mutants.append((f"mutant-{seed}-{k:03d}", ids))
    return mutants


def library_impls():
    impls = []
    for path in sorted(glob.glob(os.path.join(HERE, "libs", "*", "impl.json"))):
        rel = os.path.relpath(path, ROOT)
        try:
            with open(path) as f:
                spec = json.load(f)
            name = spec["name"]
            target = spec["target"]
            if not (isinstance(target, list) and len(target) == 2 and target[0] in ("--target-lib", "--target-cmd")):
                raise ValueError("target must be [\"--target-lib\", PATH] or [\"--target-cmd\", CMD]")
            impls.append({"name": str(name), "build": spec.get("build") or "", "target": [str(x) for x in target],
                          "log_env": str(spec["log_env"]), "cases": spec.get("cases") or "vectors/compact",
                          "source": rel})
        except (OSError, ValueError, KeyError, TypeError) as e:
            log(f"skipped {rel}: unreadable impl.json ({e})")
    return impls


def evaluate(bin_path, impl, work, with_report_lines):
    """Run one implementation; returns its result record."""
    name = impl["name"]
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
    truth_path = os.path.join(work, f"{safe}.truth")
    if os.path.exists(truth_path):
        os.unlink(truth_path)
    env = dict(impl.get("env", {}))
    env[impl["log_env"]] = truth_path
    t0 = time.time()
    mismatches, summary = run_check(bin_path, impl["target"], impl["cases"], env)
    truth = read_truth(truth_path)
    rows, unattributed = score(mismatches, truth)
    rec = {"name": name, "kind": impl["kind"], "mutations": impl.get("mutations"), "mismatches": len(mismatches),
           "unattributed": unattributed, "seconds": round(time.time() - t0, 1)}
    rec.update(metrics(rows))
    names = {}
    for b in summary.get("bug_classes") or []:
        e = b.get("explanation") or {}
        names[b.get("id")] = e.get("name") if isinstance(e, dict) else None
    rec["class_names"] = {str(k): v for k, v in names.items()}
    # for the pooled metrics
    rec["_rows"] = [([(name, c) for c in cs], [(name, d) for d in ds]) for cs, ds in rows]
    rec["spread"] = spread(rows, names)
    if with_report_lines:
        rec["report_lines"] = report_lines(bin_path, impl["target"], impl["cases"], env)
    return rec


def spread(rows, names):
    """defect -> {class: weight} (rounded), for the record."""
    out = {}
    for classes, defects in rows:
        share = 1.0 / (len(classes) * len(defects))
        for d in defects:
            for c in classes:
                label = f"{c}:{names.get(c) or '-'}"
                out.setdefault(d, {})
                out[d][label] = round(out[d].get(label, 0.0) + share, 3)
    return out


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


COLUMNS = ["name", "defects", "classes", "ratio", "purity", "home", "mismatches", "unattributed"]


def corpus_summary(recs):
    ok = [r for r in recs if "error" not in r]
    pooled_rows = [row for r in ok for row in r["_rows"]]
    pooled = metrics(pooled_rows)
    mean = {}
    for k in ("defects", "classes", "ratio", "purity", "home"):
        vals = [r[k] for r in ok if r.get(k) is not None]
        mean[k] = (sum(vals) / len(vals)) if vals else None
    if any("report_lines" in r for r in ok):
        vals = [r["report_lines"] for r in ok if "report_lines" in r]
        mean["report_lines"] = sum(vals) / len(vals)
    return {
        "implementations": len(ok),
        "failed": len(recs) - len(ok),
        "mismatches": sum(r["mismatches"] for r in ok),
        "unattributed": sum(r["unattributed"] for r in ok),
        "mean": mean,
        "pooled": pooled,
    }


def table(recs, summary):
    cols = COLUMNS + (["report_lines"] if any("report_lines" in r for r in recs) else [])
    lines = ["\t".join(cols)]
    for r in recs:
        if "error" in r:
            lines.append(f"{r['name']}\terror: {r['error']}")
            continue
        lines.append("\t".join(fmt(r.get(c)) for c in cols))
    for label in ("mean", "pooled"):
        s = summary[label]
        vals = {"name": f"[corpus {label}]", "mismatches": summary["mismatches"],
                "unattributed": summary["unattributed"]}
        vals.update(s)
        lines.append("\t".join(fmt(vals.get(c)) for c in cols))
    return "\n".join(lines) + "\n"


def tsv(recs):
    cols = COLUMNS + ["mutations", "seconds", "error"]
    out = ["\t".join(cols)]
    for r in recs:
        row = []
        for c in cols:
            v = r.get(c)
            if c == "mutations":
                v = ",".join(f"m{i}" for i in v) if v else ""
            row.append(fmt(v) if v is not None else "")
        out.append("\t".join(row))
    return "\n".join(out) + "\n"


# -------------------------------------------------------------- self test


def self_test():
    rows = [
        ([1], ["d1"]), ([1], ["d1"]), ([1], ["d2"]),
        ([2], ["d2"]), ([2, 3], ["d2"]), ([3], ["d1", "d2"]),
    ]
    m = metrics(rows)
    expect = {"defects": 2, "classes": 3, "ratio": 1.5, "purity": 4.5 / 6, "home": (2 / 2.5 + 1.5 / 3.5) / 2}
    for k, v in expect.items():
        assert abs(m[k] - v) < 1e-12, (k, m[k], v)
    truth = {"a": ["d1"], "b": ["d2"]}
    r, un = score([("a", [1]), ("b", [1, 2]), ("c", [2])], truth)
    assert un == 1 and r == [([1], ["d1"]), ([1, 2], ["d2"])], (r, un)
    m = metrics(r)
    assert m["defects"] == 2 and m["classes"] == 2 and abs(m["purity"] - (1 + 0.5) / 2) < 1e-12, m
    assert abs(m["home"] - (1 + 0.5) / 2) < 1e-12, m
    assert metrics([])["purity"] is None
    # pooled over two implementations: labels are qualified by the implementation
    a = {"name": "A", "_rows": [([("A", 1)], [("A", "m1")])], "mismatches": 1, "unattributed": 0,
         "defects": 1, "classes": 1, "ratio": 1.0, "purity": 1.0, "home": 1.0}
    b = {"name": "B", "_rows": [([("B", 1)], [("B", "m1")]), ([("B", 1)], [("B", "m2")])], "mismatches": 2,
         "unattributed": 0, "defects": 2, "classes": 1, "ratio": 0.5, "purity": 0.5, "home": 1.0}
    s = corpus_summary([a, b])
    assert s["pooled"]["defects"] == 3 and s["pooled"]["classes"] == 2, s
    assert abs(s["pooled"]["purity"] - 2 / 3) < 1e-12 and abs(s["mean"]["purity"] - 0.75) < 1e-12, s
    assert abs(s["mean"]["ratio"] - 0.75) < 1e-12 and abs(s["pooled"]["ratio"] - 2 / 3) < 1e-12, s
    # truth lines: several defects, case-insensitive keys
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t")
        with open(p, "w") as f:
            f.write("CVT.RN.F16.F32 3F800000 /16\tm3,m7\nbroken line\ncvt.x 00 /8\tinteraction\n")
        t = read_truth(p)
        assert t == {"cvt.rn.f16.f32 3f800000 /16": ["m3", "m7"], "cvt.x 00 /8": ["interaction"]}, t
    assert mismatch_key({"instruction": "cvt.rn.F16.f32", "operands": ["3F800000"], "got": "0000"}) == \
        "cvt.rn.f16.f32 3f800000 /16"
    print("calibrate.py self-test: ok")
    return 0


# ------------------------------------------------------------------- main


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--bin", default="target/release/ptx-cvt", help="the ptx-cvt binary (relative to the repo root)")
    ap.add_argument("--mutants", type=int, default=200, help="how many mutants to draw (default 200)")
    ap.add_argument("--sample", type=int, help="score only the first N mutants of the draw")
    ap.add_argument("--max-changed", type=int, default=10000,
                    help="draw only mutations that change at most N cases of the corpus on their own "
                         "(default 10000, about 5%% of the answered cases: real defects are narrow; 0: no limit)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the draw (default 1)")
    ap.add_argument("--jobs", type=int, default=1, help="implementations checked at once (default 1)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    ap.add_argument("--only", action="append", help="only the implementation NAME (repeatable)")
    ap.add_argument("--no-libs", action="store_true", help="skip calib/libs/*/impl.json")
    ap.add_argument("--cases", default="vectors/compact", help="case files of the mutants (default vectors/compact)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"), help="C compiler (default $CC or cc)")
    ap.add_argument("--work", help="folder for the build and truth logs (default: a temporary one)")
    ap.add_argument("--tsv", help="also write the per-implementation table here (atomically)")
    ap.add_argument("--report-lines", action="store_true",
                    help="also count the lines of each implementation's default `check` report (runs check twice)")
    ap.add_argument("--self-test", action="store_true", help="test the metric arithmetic and exit")
    a = ap.parse_args(argv)
    if a.self_test:
        return self_test()
    if a.jobs < 1 or a.mutants < 0 or (a.sample is not None and a.sample < 0):
        ap.error("--jobs must be >= 1, --mutants and --sample >= 0")
    bin_path = a.bin if os.path.isabs(a.bin) else os.path.join(ROOT, a.bin)
    if not os.path.isfile(bin_path):
        log(f"calibrate.py: error: no ptx-cvt binary at {bin_path} (build it or pass --bin)")
        return 2
    if shutil.which(a.cc) is None:
        log(f"calibrate.py: error: no C compiler `{a.cc}`")
        return 2
    work = a.work or tempfile.mkdtemp(prefix="ptx-cvt-calib-")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    try:
        lib, rows, src_hash = build_mutant_library(work, a.cc)
        counts = screen(bin_path, lib, a.cases, src_hash, len(rows))
        live = sum(1 for c in counts.values() if c > 0)
        log(f"{len(rows)} mutation sites, {live} change at least one case")
        mutants = draw_mutants(rows, counts, a.mutants, a.seed, a.max_changed)
        if a.sample is not None:
            mutants = mutants[:a.sample]
        impls = [{"name": n, "kind": "mutant", "mutations": ids, "target": ["--target-lib", lib],
                  "log_env": "PTX_MUT_LOG", "cases": a.cases, "env": {"PTX_MUT": ",".join(map(str, ids))}}
                 for n, ids in mutants]
        skipped = []
        if not a.no_libs:
            for impl in library_impls():
                if a.only and impl["name"] not in a.only:
                    continue
                if impl["build"]:
                    log(f"building {impl['name']} ...")
                    p = subprocess.run(impl["build"], shell=True, cwd=ROOT, capture_output=True, text=True)
                    if p.returncode != 0:
                        msg = (p.stderr or p.stdout).strip().splitlines()[-1:] or [""]
                        skipped.append(f"{impl['name']}: build failed (exit {p.returncode}): {msg[0][:200]}")
                        log(f"skipped {skipped[-1]}")
                        continue
                impl["kind"] = "library"
                impls.append(impl)
        if a.only:
            impls = [i for i in impls if i["name"] in a.only]
            if not impls:
                raise Fail(f"no implementation named {', '.join(a.only)}")
        log(f"checking {len(impls)} implementation(s) with {a.jobs} job(s) ...")
        recs = [None] * len(impls)

        def one(k):
            try:
                return evaluate(bin_path, impls[k], work, a.report_lines)
            except Fail as e:
                return {"name": impls[k]["name"], "kind": impls[k]["kind"], "error": str(e).splitlines()[0][:300]}

        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            futs = {ex.submit(one, k): k for k in range(len(impls))}
            done = 0
            for fut in concurrent.futures.as_completed(futs):
                k = futs[fut]
                recs[k] = fut.result()
                done += 1
                r = recs[k]
                status = r.get("error") or (f"{r['mismatches']} mismatches, {r['defects']} defects, "
                                            f"{r['classes']} classes, purity {fmt(r['purity'])}, "
                                            f"home {fmt(r['home'])}, {r['seconds']} s")
                log(f"[{done}/{len(impls)}] {r['name']}: {status}")
                if a.tsv and done < len(impls):
                    # the implementations done so far, in case the run is cut short
                    write_atomic(a.tsv + ".partial", tsv([x for x in recs if x is not None]))
        summary = corpus_summary(recs)
        summary["seconds"] = round(time.time() - t0, 1)
        summary["skipped"] = skipped
        summary["seed"] = a.seed
        summary["bin"] = a.bin
        if a.tsv:
            write_atomic(a.tsv, tsv(recs))
            if os.path.exists(a.tsv + ".partial"):
                os.unlink(a.tsv + ".partial")
        if a.json:
            out = {"implementations": [{k: v for k, v in r.items() if not k.startswith("_")} for r in recs],
                   "corpus": summary}
            print(json.dumps(out, sort_keys=True))
        else:
            sys.stdout.write(table(recs, summary))
            for s in skipped:
                print(f"skipped {s}")
        log(f"done in {summary['seconds']} s")
        return 0
    except Fail as e:
        log(f"calibrate.py: error: {e}")
        return 2
    except KeyboardInterrupt:
        log("calibrate.py: interrupted")
        return 130
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
