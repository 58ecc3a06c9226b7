#!/usr/bin/env python3
"""Plant run-time-switchable mutations into calib/c/convert.c.

    python3 calib/mutate.py [--src calib/c/convert.c] [--out DIR]

Reads the C source, finds mutation candidates between the `/* MUTATE BEGIN */`
and `/* MUTATE END */` markers and writes DIR/convert_mut.c, where every
candidate is guarded by a run-time switch:

    (MUT(17) ? mutated : MUT(18) ? other mutation : original)

MUT(i) reads a bit set parsed once from the PTX_MUT environment variable
(`PTX_MUT="17,203,88"`, see convert.c), so one compiled library serves every
mutant. DIR/sites.tsv lists the mutations: id, site (mutations of one expression
share it), line in convert.c, kind, original expression, mutation.

Candidates: arithmetic (+ <-> -), bitwise (& | ^), shifts (<< <-> >>, shift
amount +-1), comparisons (< <= > >= == !=), logical (&& <-> ||), dropped `!`,
integer constants (+-1, masks >> 1), `ones(n)` masks (>> 1, n + 1) and `if`
conditions (branch dropped: never taken; branch forced: always taken).

Standard library only; the output is a deterministic function of the input.
"""
import argparse
import os
import re
import sys
import tempfile

BEGIN = "/* MUTATE BEGIN */"
END = "/* MUTATE END */"

TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<comment>/\*.*?\*/|//[^\n]*)|(?P<pp>\#[^\n]*)
    |(?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)
    |(?P<ident>[A-Za-z_]\w*)
    |(?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
    |(?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^~!<>=?:;,.(){}\[\]]|[+\-*/%&|^]=)""",
    re.S | re.X,
)

BINARY_PREC = {
    "*": 13, "/": 13, "%": 13, "+": 12, "-": 12, "<<": 11, ">>": 11,
    "<": 10, "<=": 10, ">": 10, ">=": 10, "==": 9, "!=": 9,
    "&": 8, "^": 7, "|": 6, "&&": 5, "||": 4,
}
KEYWORDS = {"return", "if", "else", "while", "for", "do", "case", "sizeof", "switch", "goto", "break", "continue",
            "int", "static", "const", "struct", "uint64_t", "unsigned", "char", "void"}

# operator -> [(kind, replacement operator)]
OP_ALTS = {
    "+": [("arith", "-")], "-": [("arith", "+")],
    "&": [("bitwise", "|"), ("bitwise", "^")], "|": [("bitwise", "&"), ("bitwise", "^")], "^": [("bitwise", "|")],
    "<<": [("shift", ">>")], ">>": [("shift", "<<")],
    "<": [("compare", "<=")], "<=": [("compare", "<")], ">": [("compare", ">=")], ">=": [("compare", ">")],
    "==": [("compare", "!=")], "!=": [("compare", "==")],
    "&&": [("logical", "||")], "||": [("logical", "&&")],
}


class Tok:
    __slots__ = ("kind", "text", "ws", "line")

    def __init__(self, kind, text, ws, line):
        self.kind, self.text, self.ws, self.line = kind, text, ws, line


def tokenize(text, first_line):
    toks, ws, line, pos = [], "", first_line, 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"line {line}: cannot tokenize {text[pos:pos + 20]!r}")
        kind, s = m.lastgroup, m.group()
        if kind in ("ws", "comment", "pp"):
            ws += s
        else:
            toks.append(Tok(kind, s, ws, line))
            ws = ""
        line += s.count("\n")
        pos = m.end()
    return toks, ws


def operand_end(t, i):
    """Whether token t[i] can end an operand (so that the next op is binary)."""
    if i < 0:
        return False
    k = t[i]
    if k.kind == "num":
        return True
    if k.kind == "ident":
        return k.text not in KEYWORDS
    return k.text in (")", "]")


def match_close(t, i):
    depth = 0
    for j in range(i, len(t)):
        if t[j].text in "([":
            depth += 1
        elif t[j].text in ")]":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"line {t[i].line}: unbalanced {t[i].text}")


def match_open(t, i):
    depth = 0
    for j in range(i, -1, -1):
        if t[j].text in ")]":
            depth += 1
        elif t[j].text in "([":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"line {t[i].line}: unbalanced {t[i].text}")


def is_binary(t, i):
    return t[i].kind == "op" and t[i].text in BINARY_PREC and operand_end(t, i - 1)


def left_start(t, p, prec):
    """First token of the left operand of the binary operator at p."""
    j = p - 1
    start = p
    while j >= 0:
        k = t[j]
        if k.text in (")", "]"):
            j = match_open(t, j)
            start = j
            j -= 1
            # a function call or a cast's parenthesis: keep going
            continue
        if k.kind in ("num", "ident") and k.text not in KEYWORDS:
            start = j
            j -= 1
            continue
        if k.text in (".", "->"):
            j -= 1
            continue
        if k.text in ("~", "!"):
            start = j
            j -= 1
            continue
        if k.text in BINARY_PREC and is_binary(t, j) and BINARY_PREC[k.text] >= prec:
            j -= 1
            continue
        if k.text == "-" and not is_binary(t, j):
            start = j
            j -= 1
            continue
        break
    return start


def right_end(t, p, prec):
    """One past the last token of the right operand of the operator at p."""
    j = p + 1
    end = p + 1
    expect_operand = True
    while j < len(t):
        k = t[j]
        if expect_operand:
            if k.text in ("~", "!", "-", "+"):
                j += 1
                continue
            if k.text == "(":
                j = match_close(t, j) + 1
                end = j
                expect_operand = False
                # a cast: an operand follows
                if j < len(t) and (t[j].kind in ("num", "ident") or t[j].text in ("(", "~", "!")):
                    expect_operand = True
                continue
            if k.kind in ("num", "ident"):
                j += 1
                end = j
                expect_operand = False
                continue
            break
        if k.text in ("(", "["):
            j = match_close(t, j) + 1
            end = j
            continue
        if k.text in (".", "->"):
            j += 1
            expect_operand = True
            continue
        if k.text in BINARY_PREC and BINARY_PREC[k.text] > prec:
            j += 1
            expect_operand = True
            continue
        break
    return end


class Site:
    def __init__(self, start, end, line, kind, orig, alts, split=None):
        self.start, self.end, self.line, self.kind = start, end, line, kind
        self.orig = orig
        self.alts = alts  # [(kind, description, render function(render) -> str)]
        self.split = split


def find_sites(t):
    sites = []
    for i, k in enumerate(t):
        # `if (cond)`: the branch dropped or forced
        if k.text == "if" and i + 1 < len(t) and t[i + 1].text == "(":
            close = match_close(t, i + 1)
            s, e = i + 2, close
            sites.append((s, e, k.line, [("if-drop", "0", lambda r, s=s, e=e: "0"),
                                         ("if-force", "1", lambda r, s=s, e=e: "1")]))
            continue
        if k.kind == "op" and k.text in OP_ALTS and is_binary(t, i):
            prec = BINARY_PREC[k.text]
            s, e = left_start(t, i, prec), right_end(t, i, prec)
            if s == i or e == i + 1:
                continue
            alts = []
            for kind, new in OP_ALTS[k.text]:
                alts.append((kind, f"{k.text} -> {new}",
                             lambda r, s=s, e=e, i=i, new=new: f"({r(s, i)}) {new} ({r(i + 1, e)})"))
            if k.text in ("<<", ">>") and not (e == i + 2 and t[i + 1].kind == "num"):
                for d in ("+ 1", "- 1"):
                    alts.append(("shift-amount", f"{k.text} (amount {d})",
                                 lambda r, s=s, e=e, i=i, d=d, op=k.text: f"({r(s, i)}) {op} (({r(i + 1, e)}) {d})"))
            sites.append((s, e, k.line, alts))
            continue
        if k.text == "!" and not operand_end(t, i - 1):
            e = right_end(t, i, 14)
            if e > i + 1:
                sites.append((i, e, k.line, [("not-dropped", "! dropped", lambda r, i=i, e=e: f"({r(i + 1, e)})")]))
            continue
        if k.kind == "num":
            # not the amount of a shift by a constant handled above? constants are independent sites
            v = int(re.sub(r"[uUlL]+$", "", k.text), 0)
            alts = [("const", f"{k.text} + 1", lambda r, x=k.text: f"({x} + 1)")]
            if v > 0:
                alts.append(("const", f"{k.text} - 1", lambda r, x=k.text: f"({x} - 1)"))
            if k.text.lower().startswith("0x") and v >= 0xf:
                alts.append(("mask", f"{k.text} >> 1", lambda r, x=k.text: f"({x} >> 1)"))
            sites.append((i, i + 1, k.line, alts))
            continue
        if k.kind == "ident" and k.text == "ones" and i + 1 < len(t) and t[i + 1].text == "(" and \
                operand_end(t, i - 1) is False and not (i > 0 and t[i - 1].text in ("uint64_t",)):
            close = match_close(t, i + 1)
            if i > 0 and t[i - 1].text == "static":
                continue
            e = close + 1
            sites.append((i, e, k.line, [
                ("mask", "ones(n) >> 1", lambda r, i=i, e=e: f"({r(i, e)} >> 1)"),
                ("mask", "ones(n + 1)", lambda r, i=i, close=close: f"ones(({r(i + 2, close)}) + 1)"),
            ]))
    return sites


def build(src_text):
    b, e = src_text.find(BEGIN), src_text.find(END)
    if b < 0 or e < 0 or e < b:
        raise ValueError(f"markers {BEGIN!r} and {END!r} not found in order")
    head, body, tail = src_text[:b + len(BEGIN)], src_text[b + len(BEGIN):e], src_text[e:]
    first_line = head.count("\n") + 1
    t, trailing = tokenize(body, first_line)
    raw = find_sites(t)
    # id order: by position, then alternative order
    by_span = {}
    rows = []
    next_id = 0
    for s, e2, line, alts in sorted(raw, key=lambda x: (x[0], -x[1])):
        entry = by_span.setdefault((s, e2), [])
        site = list(by_span).index((s, e2))
        for kind, desc, fn in alts:
            orig = " ".join(x.text for x in t[s:e2])
            entry.append((next_id, fn))
            rows.append((next_id, site, line, kind, orig, desc))
            next_id += 1
    starts = {}
    for (s, e2) in by_span:
        starts.setdefault(s, []).append(e2)

    def render(i, j, exclude=None, plain_ws=False):
        out = []
        k = i
        while k < j:
            ends = [e2 for e2 in starts.get(k, []) if e2 <= j and (k, e2) != exclude]
            if ends:
                e2 = max(ends)
                ws = t[k].ws if plain_ws else " "
                inner = lambda a, b_, k=k, e2=e2: render(a, b_, exclude=(k, e2) if (a, b_) == (k, e2) else None)
                parts = [f"MUT({sid}) ? ({fn(inner)}) : " for sid, fn in by_span[(k, e2)]]
                out.append(f"{ws}({''.join(parts)}({render(k, e2, exclude=(k, e2))}))")
                k = e2
            else:
                out.append((t[k].ws if plain_ws else (" " if out else "")) + t[k].text)
                k += 1
        return "".join(out)

    mutated_body = render(0, len(t), plain_ws=True) + trailing
    prelude = (f"/* generated by calib/mutate.py from convert.c: {next_id} mutation sites; do not edit */\n"
               f"#define PTX_MUT_SITES {next_id}\n"
               "static __thread const unsigned char *mut_cur;\n"
               "#define MUT(i) ((mut_cur[(i) >> 3] >> ((i) & 7)) & 1)\n")
    return prelude + head + mutated_body + tail, rows


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def tsv_field(s):
    return s.replace("\t", " ").replace("\n", " ")


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=os.path.join(here, "c", "convert.c"))
    ap.add_argument("--out", default=os.path.join(here, "c"), help="folder for convert_mut.c and sites.tsv")
    a = ap.parse_args(argv)
    try:
        with open(a.src) as f:
            text = f.read()
        mutated, rows = build(text)
        os.makedirs(a.out, exist_ok=True)
        write_atomic(os.path.join(a.out, "convert_mut.c"), mutated)
        tsv = "id\tsite\tline\tkind\toriginal\tmutated\n" + "".join(
            f"{i}\t{site}\t{line}\t{kind}\t{tsv_field(orig)}\t{tsv_field(desc)}\n"
            for i, site, line, kind, orig, desc in rows)
        write_atomic(os.path.join(a.out, "sites.tsv"), tsv)
    except (OSError, ValueError, RecursionError) as e:
        print(f"mutate.py: error: {e}", file=sys.stderr)
        return 2
    print(f"mutate.py: {len(rows)} mutations written to {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
