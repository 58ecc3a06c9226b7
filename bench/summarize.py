#!/usr/bin/env python3
"""Print the last `cargo bench` run of bench/ as a Markdown table.

Reads target/criterion/*/*/new/{benchmark,estimates}.json (criterion's own
output) and prints, per group, each contender's mean time per iteration and
its throughput in millions of elements (values converted) per second, and the
ratios the issue asks about. Usage: `python3 summarize.py` in bench/.
"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
rows = {}
for bench in root.glob("*/*/new/benchmark.json"):
    b = json.loads(bench.read_text())
    e = json.loads((bench.parent / "estimates.json").read_text())
    elements = b["throughput"]["Elements"]
    mean_ns = e["mean"]["point_estimate"]
    rows.setdefault(b["group_id"], {})[b["function_id"]] = elements / mean_ns * 1e3  # M elements/s

order = ["f32->s32 rzi", "f64->f32 rn", "f32->f16 rn", "f32->bf16 rn", "u64->f32 rn", "f32->e4m3x2 rn satfinite"]
for g in order + sorted(set(rows) - set(order)):
    if g not in rows:
        continue
    r = rows[g]
    print(f"\n### {g}\n")
    print("| contender | M conversions/s |")
    print("|---|---:|")
    for name, v in sorted(r.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {v:,.1f} |")
    fast, batch, plan = r.get("ptx-cvt fast/call"), r.get("ptx-cvt fast/batch") or r.get("ptx-cvt fast/plan"), r.get("ptx-cvt fast/plan")
    base, exact, prepared = r.get("ptx-cvt fast/batch baseline"), r.get("ptx-cvt exact"), r.get("ptx-cvt exact/prepared")
    ratios = []
    for peer in ["native as/loop", "native as/scalar", "softfloat", "half from_f32", "half slice"]:
        if peer in r:
            ratios.append(f"fast/batch ÷ {peer} = {batch / r[peer]:.3g}")
            if "ptx-cvt fast/slice" in r:
                ratios.append(f"fast/slice ÷ {peer} = {r['ptx-cvt fast/slice'] / r[peer]:.3g}")
            if base:
                ratios.append(f"fast/batch baseline ÷ {peer} = {base / r[peer]:.3g}")
            ratios.append(f"fast/plan ÷ {peer} = {plan / r[peer]:.3g}")
            ratios.append(f"fast/call ÷ {peer} = {fast / r[peer]:.3g}")
    if "naive rug" in r:
        ratios.append(f"exact/prepared ÷ naive rug = {prepared / r['naive rug']:.3g}")
        ratios.append(f"exact ÷ naive rug = {exact / r['naive rug']:.3g}")
    if prepared:
        ratios.append(f"exact/prepared ÷ exact = {prepared / exact:.3g}")
    if exact:
        ratios.append(f"fast/batch ÷ exact/prepared = {batch / (prepared or exact):.3g}")
    print("\nRatios: " + "; ".join(ratios))
