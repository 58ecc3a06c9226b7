#!/usr/bin/env python3
"""The lowering atlas: what SASS ptxas emits for every legal cvt spelling on every target.

For each target, every legal spelling (`ptx-cvt ptx --target T`, natural register widths)
becomes a kernel that loads its sources from memory (register operands: nothing to fold),
runs the cvt and stores the result. ptxas -O3 assembles the module, nvdisasm -c lists it.

Two parts:
  record (needs ptxas, nvdisasm and a built ptx-cvt): writes the disassembly of every
      kernel, deduplicated, to evidence/ptxas-13.5/lowering-sass.txt;
  table (pure): reads that record and writes evidence/ptxas-13.5/lowering.tsv, where each
      (target, spelling) is `one` (one SASS conversion instruction), `sequence` (listed),
      or `none` (no instruction: a register move).
tests/lowering.rs checks that `--table-only --check` reproduces the committed table.

usage: python3 scripts/ptxas-lowering.py [--target sm_90 ...|all] [--jobs N]
       python3 scripts/ptxas-lowering.py --table-only [--check]
Only the Python 3 standard library is used.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptxas_legality import harness  # noqa: E402

ROOT = harness.ROOT
EVIDENCE = os.path.join(ROOT, "evidence", "ptxas-13.5")
RECORD = os.path.join(EVIDENCE, "lowering-sass.txt")
TABLE = os.path.join(EVIDENCE, "lowering.tsv")
FLAGS = "-O3"

# SASS conversion instructions: a form lowered to one of these alone adds nothing
# to the PTX text. HADD2.F32 is how f16 -> f32 is done (a half add into an f32).
CONVERSIONS = {"F2F", "F2I", "I2F", "I2I", "F2FP", "I2FP", "F2IP", "I2IP", "FRND"}

# ---------------------------------------------------------------------------
# The pure part: recorded disassembly -> table


def scaffolding(ins):
    """The kernel's own loads, stores, parameter reads and exit: not the conversion."""
    op = ins.split()[0]
    base = op.split(".")[0]
    if base in ("LDC", "ULDC", "LDCU", "LDG", "STG", "EXIT", "BRA", "NOP"):
        return True
    # A pointer or the stack pointer read from the parameter bank.
    if base in ("MOV", "IMAD") and (op in ("MOV", "IMAD.MOV.U32")) and "c[0x0]" in ins:
        return True
    return False


def is_conversion(ins):
    op = ins.split()[0]
    base = op.split(".")[0]
    return base in CONVERSIONS or (base == "HADD2" and ".F32" in op)


def label_free(ins):
    return re.sub(r"\.L_x_\d+", ".L_x", ins)


def prologues(bodies, rows):
    """Per target, the instructions every kernel starts with (after the scaffolding),
    labels ignored: a per-kernel prologue of the target (sm_87 clears barrier
    registers), not part of any conversion. Empty where some kernel has no instruction."""
    out = {}
    for t in {r[0] for r in rows}:
        seqs = [[label_free(i) for i in bodies[b] if not scaffolding(i)] for rt, _, _, b in rows if rt == t]
        n = 0
        while all(len(x) > n for x in seqs) and len({x[n] for x in seqs}) == 1:
            n += 1
        out[t] = n
    return out


def classify(body, prologue=0):
    """(class, instructions) of one kernel's recorded SASS, without its
    target's `prologue` first instructions."""
    seq = [i for i in body if not scaffolding(i)][prologue:]
    if not seq:
        return "none", seq
    if len(seq) == 1 and is_conversion(seq[0]):
        return "one", seq
    return "sequence", seq


def read_record(path):
    """-> (header lines, {id: [instr]}, [(target, spelling, regs, id)])"""
    header, bodies, rows, cur = [], {}, [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                header.append(line)
            elif line.startswith("body "):
                cur = int(line.split()[1])
                bodies[cur] = []
            elif line.startswith("\t"):
                bodies[cur].append(line.strip())
            elif line.startswith("row "):
                _, t, s, regs, b = line.split(" ", 4)
                rows.append((t, s, regs, int(b)))
            elif line.strip():
                sys.exit("ptxas-lowering: %s: unreadable line %r" % (path, line))
    return header, bodies, rows


def table_text(header, bodies, rows):
    out = ["# ptx-cvt lowering atlas: the SASS ptxas emits for each legal cvt spelling, register operands",
           "# made by: python3 scripts/ptxas-lowering.py --table-only (from lowering-sass.txt)"]
    out += [h for h in header if h.startswith(("# tools", "# command", "# kernel", "# left out"))]
    out.append("# class: one = one SASS conversion instruction (%s, HADD2.F32); sequence = the instructions "
               "listed; none = no instruction" % ", ".join(sorted(CONVERSIONS)))
    pro = prologues(bodies, rows)
    for t in sorted((t for t in pro if pro[t]), key=lambda t: harness.tv_sort_key(t, "9.5")):
        some = next(b for rt, _, _, b in rows if rt == t)
        out.append("# prologue of every %s kernel, left out: %s" % (t, " ; ".join(
            label_free(i) for i in [i for i in bodies[some] if not scaffolding(i)][:pro[t]])))
    out.append("# target\tinstruction\tregisters (source widths -> destination width)\tclass\tsass")
    for t, s, regs, b in sorted(rows, key=lambda r: (harness.tv_sort_key(r[0], "9.5"), r[1])):
        cls, seq = classify(bodies[b], pro[t])
        out.append("%s\t%s\t%s\t%s\t%s" % (t, s, regs, cls, " ; ".join(seq)))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Recording (needs the tools)


def get_nvdisasm():
    p = subprocess.run(["bash", os.path.join(harness.SCRIPTS, "get-nvdisasm.sh")], stdout=subprocess.PIPE, text=True)
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    if p.returncode != 0 or not lines:
        sys.exit("ptxas-lowering: scripts/get-nvdisasm.sh failed (exit %d)" % p.returncode)
    return lines[-1].strip()


KERNEL_RE = re.compile(r"^// kernel (\S+) (\S+) (.*) -> (\d+)$")


def spellings(ptx_cvt, target):
    """[(kernel name, instruction, [src widths], dst width, cvt line)] from `ptx-cvt ptx`."""
    text = subprocess.run([ptx_cvt, "ptx", "--target", target], stdout=subprocess.PIPE, text=True,
                          check=True).stdout
    ks, cvt, ops = [], {}, {}
    cur = None
    for line in text.splitlines():
        m = KERNEL_RE.match(line)
        if m:
            ks.append((m.group(1), m.group(2), [int(w) for w in m.group(3).split()], int(m.group(4))))
        elif line.startswith(".visible .entry "):
            cur = line.split()[2].rstrip("(")
            ops[cur] = []
        elif cur and line.strip().startswith(".param .u64 in_"):
            ops[cur].append(line.strip()[len(".param .u64 in_"):].rstrip(","))
        elif cur and line.strip().startswith("cvt") and "%d," in line:
            cvt[cur] = line.strip()
    return [(n, i, srcs, d, (ops[n], cvt[n])) for n, i, srcs, d in ks]


def kernel(name, srcs, dst, op_line):
    """Sources loaded from their own pointers, the cvt, the store: register operands."""
    used, line = op_line
    p = ["\t.param .u64 in_%s," % n for n in used] + ["\t.param .u64 out"]
    b = [".visible .entry %s(" % name] + p + [")", "{", "\t.reg .b64 %ptr;"]
    b += ["\t.reg .b%d %%%s;" % (w, n) for n, w in zip(used, srcs)] + ["\t.reg .b%d %%d;" % dst]
    for n, w in zip(used, srcs):
        b += ["\tld.param.u64 %%ptr, [in_%s];" % n, "\tcvta.to.global.u64 %ptr, %ptr;",
              "\tld.global.b%d %%%s, [%%ptr];" % (w, n)]
    b += ["\t" + line, "\tld.param.u64 %ptr, [out];", "\tcvta.to.global.u64 %ptr, %ptr;",
          "\tst.global.b%d [%%ptr], %%d;" % dst, "\tret;", "}"]
    return "\n".join(b)


def disassemble(ptxas, nvdisasm, target, ks):
    """{kernel name: [instruction text]} for one module of kernels `ks`."""
    text = ".version 9.5\n.target %s\n.address_size 64\n\n" % target
    text += "\n\n".join(kernel(n, s, d, l) for n, _, s, d, l in ks) + "\n"
    with tempfile.TemporaryDirectory(prefix="ptx-cvt-lowering-") as tmp:
        src, out = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(text)
        p = subprocess.run([ptxas, FLAGS, "-arch=" + target, src, "-o", out], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            sys.exit("ptxas-lowering: ptxas -arch=%s failed:\n%s" % (target, p.stdout[:2000]))
        listing = subprocess.run([nvdisasm, "-c", out], stdout=subprocess.PIPE, text=True, check=True).stdout
    funcs, cur = {}, None
    for line in listing.splitlines():
        m = re.match(r"\s*\.section\s+\.text\.(\w+),", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(.*?)\s*;", line)
        if m and cur:
            ins = re.sub(r"\s+", " ", m.group(1).strip())
            if ins != "NOP" and not ins.startswith("BRA `"):
                funcs[cur].append(ins)
    return funcs


def record(args):
    ptxas = harness.get_ptxas(args.ptxas)
    nvdisasm = args.nvdisasm or get_nvdisasm()
    ptx_cvt = args.ptx_cvt
    targets = harness.ALL_TARGETS if args.target == ["all"] else args.target
    tools = "# tools: ptxas %s (%s), nvdisasm %s (%s); %s -arch=<target>; nvdisasm -c" % (
        harness.ptxas_version(ptxas).split()[-1].lstrip("V"), "nvidia-cuda-nvcc wheel",
        harness.ptxas_version(nvdisasm).split()[-1].lstrip("V"), "nvidia-cuda-nvdisasm wheel", FLAGS)
    jobs, left_out = [], []
    for t in targets:
        ks = spellings(ptx_cvt, t)
        legal = subprocess.run([ptx_cvt, "list", "--target", t], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.split()
        missing = sorted(set(legal) - {k[1] for k in ks})
        if missing:
            left_out.append("# left out on %s (ptxas 13.5 stops with an internal compiler error; `ptx-cvt ptx` "
                            "skips them): %s" % (t, " ".join(missing)))
        for k in range(0, len(ks), 200):
            jobs.append((t, ks[k:k + 200]))
    harness.log("%d kernels in %d modules for %d target(s)" % (sum(len(k) for _, k in jobs), len(jobs), len(targets)))
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(disassemble, ptxas, nvdisasm, t, ks): (t, ks) for t, ks in jobs}
        for f in concurrent.futures.as_completed(futs):
            t, ks = futs[f]
            funcs = f.result()
            for n, instr, srcs, d, _ in ks:
                if n not in funcs:
                    sys.exit("ptxas-lowering: %s: no function %s in the listing" % (t, n))
                results.append((t, instr, "%s->%d" % (",".join(map(str, srcs)), d), tuple(funcs[n])))
            harness.log("  %s: %d kernels" % (t, len(ks)))
    ids, rows = {}, []
    for t, instr, regs, body in sorted(results):
        b = ids.setdefault(body, len(ids))
        rows.append((t, instr, regs, b))
    lines = ["# ptx-cvt lowering record v1: per target and spelling, the SASS of a kernel that loads its",
             "# sources, runs the cvt and stores the result (NOPs and the closing BRA dropped), bodies shared",
             tools,
             "# command: python3 scripts/ptxas-lowering.py --target %s" % " ".join(args.target),
             "# kernel: ld.global of each source from its own pointer, the cvt of `ptx-cvt ptx`, st.global"]
    lines += left_out
    for body, b in sorted(ids.items(), key=lambda x: x[1]):
        lines.append("body %d" % b)
        lines += ["\t" + i for i in body]
    lines += ["row %s %s %s %d" % r for r in rows]
    if not args.merge or not os.path.exists(RECORD):
        write_atomic(RECORD, "\n".join(lines) + "\n")
    else:
        merge_into_record(lines, targets)


def merge_into_record(new_lines, targets):
    """Keep the recorded rows of other targets (a partial re-run)."""
    header, bodies, rows = read_record(RECORD)
    tmp = RECORD + ".new"
    write_atomic(tmp, "\n".join(new_lines) + "\n")
    h2, b2, r2 = read_record(tmp)
    os.unlink(tmp)
    keep = [(t, s, regs, tuple(bodies[b])) for t, s, regs, b in rows if t not in targets]
    keep += [(t, s, regs, tuple(b2[b])) for t, s, regs, b in r2]
    ids, out_rows = {}, []
    for t, s, regs, body in sorted(keep):
        out_rows.append((t, s, regs, ids.setdefault(body, len(ids))))
    done = sorted({r[0] for r in out_rows}, key=lambda t: harness.tv_sort_key(t, "9.5"))
    lines = [l for l in h2 if not l.startswith("# command")]
    lines += [l for l in header if l.startswith("# left out on ") and l.split()[4] not in targets]
    lines.insert(3, "# command: python3 scripts/ptxas-lowering.py --target %s"
                 % ("all" if done == harness.ALL_TARGETS else " ".join(done)))
    for body, b in sorted(ids.items(), key=lambda x: x[1]):
        lines.append("body %d" % b)
        lines += ["\t" + i for i in body]
    lines += ["row %s %s %s %d" % r for r in out_rows]
    write_atomic(RECORD, "\n".join(lines) + "\n")


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", nargs="+", default=["all"], help="targets, or `all` (every target ptxas 13.5 knows)")
    ap.add_argument("--merge", action="store_true", help="keep the recorded rows of the targets not named")
    ap.add_argument("--table-only", action="store_true", help="only the pure part: the table from the record")
    ap.add_argument("--check", action="store_true", help="with --table-only: compare with the committed table, "
                    "exit 1 on a difference")
    ap.add_argument("--record", default=RECORD)
    ap.add_argument("--table", default=TABLE)
    ap.add_argument("--ptxas", help="ptxas binary (default: scripts/get-ptxas.sh)")
    ap.add_argument("--nvdisasm", help="nvdisasm binary (default: scripts/get-nvdisasm.sh)")
    ap.add_argument("--ptx-cvt", default=os.path.join(ROOT, "target", "release", "ptx-cvt"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    if not args.table_only:
        record(args)
    text = table_text(*read_record(args.record))
    if args.check:
        with open(args.table) as f:
            if f.read() != text:
                sys.exit("ptxas-lowering: %s is not what %s gives (run without --check to rewrite it)"
                         % (args.table, args.record))
        harness.log("%s matches %s" % (args.table, args.record))
        return
    write_atomic(args.table, text)
    harness.log("wrote %s (%d rows)" % (args.table, sum(1 for l in text.splitlines() if not l.startswith("#"))))


if __name__ == "__main__":
    main()
