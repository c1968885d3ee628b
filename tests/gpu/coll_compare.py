#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Side-by-side busbw: bench-coll records against nccl-tests output (one or more runs, averaged).
  python3 tests/gpu/coll_compare.py OURS.jsonl NCCL_TESTS_RUN1.txt [RUN2.txt ...] [--label NAME]
OURS.jsonl may hold several runs (records of the same case concatenated): each side is the mean of its runs.
nccl-tests output is parsed from its data lines: size count type redop root  time algbw busbw #wrong  time algbw busbw #wrong.
"""
import json
import re
import sys

OPS = {"all_reduce": "all_reduce_perf", "all_gather": "all_gather_perf", "reduce_scatter": "reduce_scatter_perf",
       "all_to_all": "alltoall_perf", "broadcast": "broadcast_perf"}


def parse_nccl_tests(path):
    out, op = {}, None
    for line in open(path):
        m = re.search(r"# (\w+_perf)", line)
        if m:
            op = {v: k for k, v in OPS.items()}.get(m.group(1), op)
        f = line.split()
        if op and len(f) >= 13 and f[0].isdigit():
            oop = (float(f[-6]), f[-5])      # busbw, #wrong
            ip = (float(f[-2]), f[-1])
            out[(op, int(f[0]), "out-of-place")] = oop
            out[(op, int(f[0]), "in-place")] = ip
    return out


def human(b):
    for u, s in ((1 << 30, "GiB"), (1 << 20, "MiB")):
        if b % u == 0:
            return f"{b // u} {s}"
    return f"{b} B"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    ours, seen = [], {}
    for line in open(args[0]):
        if not line.strip():
            continue
        r = json.loads(line)
        if r["case"] in seen:  # another run of the same case: average the figures
            a = seen[r["case"]]
            if a["status"] == "ok" and r["status"] == "ok":
                a["runs"].append((r["value"], r["extra"]["busbw_mean_gbps"]))
                a["extra"]["wrong"] = (a["extra"].get("wrong") or 0) + (r["extra"].get("wrong") or 0)
            elif r["status"] != "ok":
                a["status"], a["error"] = r["status"], r.get("error")
            continue
        if r["status"] == "ok":
            r["runs"] = [(r["value"], r["extra"]["busbw_mean_gbps"])]
        seen[r["case"]] = r
        ours.append(r)
    for r in ours:
        if r["status"] == "ok":
            r["value"] = sum(v for v, _ in r["runs"]) / len(r["runs"])
            r["extra"]["busbw_mean_gbps"] = sum(m for _, m in r["runs"]) / len(r["runs"])
    runs = [parse_nccl_tests(p) for p in args[1:]]
    worst, bad, cells = 9.0, [], 0
    print("| op | size | placement | ours busbw (median) | ours busbw (mean, nccl-tests' way) | nccl-tests busbw | ratio (median) | ratio (mean) | wrong (ours / nccl-tests) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in ours:
        p = r["params"]
        key = (p["op"], r["extra"].get("bytes", p["bytes"]), p["placement"])
        vals = [run[key] for run in runs if key in run]
        if r["status"] != "ok" or not vals:
            print(f"| {p['op']} | {human(p['bytes'])} | {p['placement']} | {r['status']}: {r.get('error') or ''} | | | | | |")
            continue
        ref = sum(v[0] for v in vals) / len(vals)
        ratio, ratio_mean = r["value"] / ref, r["extra"]["busbw_mean_gbps"] / ref
        if 16 << 20 <= p["bytes"] <= 4 << 30:  # the bar's range, both placements
            cells += 1
            worst = min(worst, ratio)
            if ratio < 0.97:
                bad.append(f"{r['case']} {ratio:.3f}")
        print(f"| {p['op']} | {human(p['bytes'])} | {p['placement']} | {r['value']:.1f} | {r['extra']['busbw_mean_gbps']:.1f} | "
              f"{ref:.1f} | {ratio:.3f} | {ratio_mean:.3f} | {r['extra'].get('wrong')} / {'/'.join(v[1] for v in vals)} |")
    print()
    print(f"worst ratio 16 MiB..4 GiB, both placements: {worst:.3f}; {cells - len(bad)} of {cells} cells >= 0.97; "
          f"below 0.97: {', '.join(bad) if bad else 'none'} (runs: ours {max(len(r.get('runs', [])) for r in ours)}, "
          f"nccl-tests {len(runs)})")


if __name__ == "__main__":
    main()
