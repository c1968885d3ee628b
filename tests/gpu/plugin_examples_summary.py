#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The summary table of tests/gpu/plugin-examples-h200.sh: the gemm and attention records of every run under DIR/runs (each
case's TFLOP/s per round, its check, and the ratio of the two implementations' means), and the training records of
DIR/training.jsonl (tokens/s, TFLOP/s, MFU, the FLOP/token parts, the loss, peak memory, the checks).
  plugin_examples_summary.py DIR
"""
import glob, json, os, sys
w = sys.argv[1]
nan = float("nan")


def recs(path):
    out = []
    for line in open(path):
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


runs = []
for d in sorted(glob.glob(f"{w}/runs/*/")):
    try:
        st = json.load(open(d + "status.json"))
    except (OSError, ValueError):
        st = {}
    il = st.get("interleave", {})
    runs.append((il.get("round"), il.get("order"), d))
runs.sort(key=lambda r: (r[0] or 0, r[1] or 0))
print(f"runs (round, order in the round, dir): {[(r[0], r[1], os.path.basename(r[2].rstrip('/'))) for r in runs]}")
for suite, label in (("gemm", "shape M x N x K"), ("attention", "case")):
    rows = {}
    for rnd, pos, d in runs:
        path = f"{d}results/{suite}.jsonl"
        if not os.path.exists(path):
            continue
        for r in recs(path):
            impl, key = r["case"].split("/", 1)  # the implementation (a plug-in's NAME), the rest of the key
            rows.setdefault(key, {}).setdefault(impl, []).append(
                (rnd, r["status"], r.get("value"), r.get("extra", {}).get("check"), r.get("error")))
    if not rows:
        continue
    print(f"\n## {suite}: TFLOP/s per round (the suite's FLOP convention), check")
    impls = sorted({i for v in rows.values() for i in v})
    print(f"| {label} | " + " | ".join(impls) + " | " + " / ".join(impls[::-1]) + " |")
    print("|---" * (len(impls) + 2) + "|")
    for key, by in rows.items():
        cells, med = [], {}
        for i in impls:
            xs = by.get(i, [])
            vals = [x[2] for x in xs if x[1] == "ok" and x[2]]
            med[i] = sum(vals) / len(vals) if vals else None
            cells.append(", ".join(f"r{x[0]} {x[2] or 0:.2f} {x[3] or x[1]}" + (f" ({(x[4] or '')[:80]})" if x[1] != "ok" else "")
                                   for x in xs) or "-")
        ratio = (f"{med[impls[-1]] / med[impls[0]]:.3f}" if len(impls) == 2 and all(med.get(i) for i in impls) else "-")
        print(f"| {key} | " + " | ".join(cells) + f" | {ratio} |")

path = f"{w}/training.jsonl"
if os.path.exists(path):
    print("\n## training (train.py, H200 dense bf16 peak 989.4 TFLOP/s)")
    print("| case | status | tokens/s | TFLOP/s | MFU | FLOP/token (6N / attn / SSD, G) | loss first -> last | peak GiB | reference | check |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in recs(path):
        e = r.get("extra", {})
        parts = e.get("flop_per_token_parts") or {}
        fpt = e.get("flop_per_token") or 0
        split = (f"{parts['dense_6n'] / 1e9:.2f} / {parts['attention'] / 1e9:.2f} / {parts.get('ssd', 0) / 1e9:.2f}"
                 if parts else "")
        print(f"| {r['case']} | {r['status']} {(r.get('error') or '')[:100]} | {e.get('tokens_per_s', 0):.0f} | "
              f"{r.get('value') or 0:.1f} | {(e.get('mfu') or nan) * 100:.1f}% | {fpt / 1e9:.2f} ({split}) | "
              f"{e.get('loss_first', nan):.3f} -> {e.get('loss_last', nan):.3f} | {e.get('peak_mem_gib') or 0:.1f} | "
              f"{(e.get('reference_check') or {}).get('check')} | {e.get('check')} |")
    for r in recs(path):
        ls = r.get("extra", {}).get("losses") or []
        print(f"  {r['case']}: losses " + " ".join(f"{x:.3f}" for x in ls[::3]))
