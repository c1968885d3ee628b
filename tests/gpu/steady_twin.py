#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 16's twin bar from the runs of `PART=twin sh tests/gpu/steady-h200.sh` (unpacked runs.tar.gz): per round,
the native cuBLASLt heuristic case against its PyTorch twin (F.linear for bf16, torch._scaled_mm for fp8) of the same
shape, with who ran first in that round (status.json interleave.order), the CV of each, and the heuristic-vs-tune gap.
  python3 tests/gpu/steady_twin.py RUNS_DIR"""
import glob
import json
import os
import sys


def main():
    runs = {}
    for st in glob.glob(os.path.join(sys.argv[1], "*", "status.json")):
        d = os.path.dirname(st)
        il = json.load(open(st)).get("interleave") or {}
        recs = [json.loads(x) for x in open(os.path.join(d, "results", "gemm.jsonl"))] if \
            os.path.exists(os.path.join(d, "results", "gemm.jsonl")) else []
        runs[(il.get("round"), il.get("stack"))] = (il.get("order"), recs)
    rounds = sorted({r for r, _ in runs})
    rows, bad = [], 0
    for rnd in rounds:
        native_order, native = runs.get((rnd, 1), (None, []))
        for rec in native:
            p = rec["params"]
            if rec["status"] != "ok" or not rec["case"].endswith("/heuristic"):
                continue
            twin_stack = 2 if p["dtype"] == "bf16" else 3
            t_order, twins = runs.get((rnd, twin_stack), (None, []))
            shape = (p["m"], p["n"], p["k"])
            twin = [t for t in twins if t["status"] == "ok" and (t["params"]["m"], t["params"]["n"], t["params"]["k"]) == shape]
            if not twin:
                continue
            gap = [x["extra"]["heuristic_gap_pct"] for x in native if x["status"] == "ok" and "heuristic_gap_pct" in x["extra"]
                   and x["params"]["dtype"] == p["dtype"] and (x["params"]["m"], x["params"]["n"], x["params"]["k"]) == shape]
            ratio = rec["value"] / twin[0]["value"]
            bad += not 0.97 <= ratio <= 1.03
            rows.append((p["dtype"], "x".join(map(str, shape)), rnd, "native first" if native_order < t_order else "torch first",
                         rec["value"], twin[0]["value"], ratio, rec["stats"]["cv"], twin[0]["stats"]["cv"],
                         gap[0] if gap else None))
    print("| dtype | shape | round | order | native | twin | ratio | cv native / twin | heuristic gap vs tune |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in sorted(rows):
        gap = "" if r[9] is None else f"{r[9]:+.1f}%"
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.1f} | {r[5]:.1f} | {r[6]:.3f} | {r[7] * 100:.1f}% / {r[8] * 100:.1f}% | {gap} |")
    print(f"{len(rows) - bad} of {len(rows)} ratios within 0.97-1.03")


if __name__ == "__main__":
    main()
