#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How much each side moves from run to run: for every (op, size, placement) of 16 MiB..4 GiB, min/max of the
busbw over the rounds in DIR (tests/gpu/coll-h200x2.sh's outputs) for ours (thread per GPU and mpirun) and for
nccl-tests (-g 2 and under mpirun); and how many ordered pairs of two single nccl-tests runs of one cell read
below 0.97 of each other, i.e. how often the bar would fail comparing nccl-tests with itself. Writes CSV of every
round's figure to DIR/rounds.csv.
  python3 tests/gpu/coll_spread.py DIR
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coll_compare import human, parse_nccl_tests  # noqa: E402


def ours(pattern):
    out = {}
    for f in sorted(glob.glob(pattern)):
        for line in open(f):
            r = json.loads(line)
            if r["status"] == "ok":
                p = r["params"]
                out.setdefault((p["op"], r["extra"].get("bytes", p["bytes"]), p["placement"]), []).append(r["value"])
    return out


def main():
    d = sys.argv[1]
    sides = {"ours threads": ours(f"{d}/ours-[0-9]*.jsonl"), "ours mpirun": ours(f"{d}/ours-mpirun-[0-9]*.jsonl")}
    for name, pat in (("nccl-tests -g 2", "nccl-tests-[0-9]*.txt"), ("nccl-tests mpirun", "nccl-tests-mpi-[0-9]*.txt")):
        runs = [parse_nccl_tests(f) for f in sorted(glob.glob(f"{d}/{pat}"))]
        if runs:
            sides[name] = {k: [r[k][0] for r in runs if k in r] for k in runs[0]}
    keys = [k for k in sides["ours threads"] if 16 << 20 <= k[1] <= 4 << 30]
    with open(f"{d}/rounds.csv", "w") as f:
        f.write("side,op,bytes,placement,round,busbw_gbps\n")
        for name, s in sides.items():
            for k in sorted(s):
                for i, v in enumerate(s[k]):
                    f.write(f"{name},{k[0]},{k[1]},{k[2]},{i + 1},{v}\n")
    names = list(sides)
    print("| op | size | placement | " + " | ".join(f"{n} min/max" for n in names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for k in keys:
        spreads = [min(sides[n][k]) / max(sides[n][k]) if sides[n].get(k) else 1.0 for n in names]
        if min(spreads) < 0.97:
            print(f"| {k[0]} | {human(k[1])} | {k[2]} | " + " | ".join(f"{v:.3f}" for v in spreads) + " |")
    print()
    for n in names:
        if not n.startswith("nccl-tests"):
            continue
        bad = tot = 0
        for k in keys:
            v = sides[n].get(k, [])
            for i in range(len(v)):
                for j in range(len(v)):
                    if i != j:
                        tot += 1
                        bad += v[i] / v[j] < 0.97
        print(f"{n} against itself, one run against another of the same cell: {bad} of {tot} pairs below 0.97")


if __name__ == "__main__":
    main()
