#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The simulation of issue 32: how often `bench compare` calls a case by noise alone (A/A familywise error), how many
cases of a real change it calls at 3 runs per side against one t test of the case alone (power), under five noise
models of runs; each comparison is a set of run directories written here and judged by the real `bench compare`.

Per comparison: CASES cases, RUNS runs per side, 10 samples per case and run; a sample's time is
base_c * exp(load_c * u_r + e_cr + w), u_r the run's effect shared by its cases (sd 2%), e_cr the case's own
run-to-run noise (sd 0.5%), w the noise within a run (sd 1%). The models:
  iid       as above
  heavy     u_r from Student's t with 3 degrees of freedom, scaled to sd 2%
  outlier   as iid, and one run of the comparison 8% slower in every case
  unequal   3 runs against 5, the second side's run effects with sd 3%
  mixed     half the cases with own noise 0.2%, half 2%; a fifth of the cases with loading 0 (a copy the clock does
            not move), the rest 0.5-1.5
Usage: methods-sim.py BENCH [--comparisons N] [--cases K] [--seed S] [--power-comparisons N] [--check]
Prints per model the comparisons with any case called and the familywise rate; then the power at 3 runs per side
of a 5% slowdown (iid): the share of cases called slower, and the share a single Welch test of each case alone at
alpha would call (its own p < alpha and the ratio beyond the threshold: the bound no adjustment can pass).
--check exits 1 when A/A familywise pooled over the models exceeds 1% or the power is more than 5 points under
the bound.
"""
import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

MODELS = ("iid", "heavy", "outlier", "unequal", "mixed")


def write_run(path, name, cases, times):
    os.makedirs(os.path.join(path, "results"), exist_ok=True)
    with open(os.path.join(path, "plan.json"), "w") as f:
        json.dump({"schema": "bench.plan/v1", "name": name}, f)
    with open(os.path.join(path, "results", "gemm.jsonl"), "w") as f:
        for c, ts in zip(cases, times):
            med = sorted(ts)[len(ts) // 2]
            f.write(json.dumps({"schema": "bench.result/v1", "suite": "gemm", "case": c, "status": "ok",
                                "metric": "tflops", "unit": "TFLOP/s", "value": 1.0 / med,
                                "samples_ms": ts}) + "\n")


def comparison(rng, model, k, runs, shift):
    """The run directories' samples of one comparison: (side a runs, side b runs), each a list of per-case lists."""
    na, nb = (3, 5) if model == "unequal" else (runs, runs)
    sd_b = 0.03 if model == "unequal" else 0.02
    own = [0.005] * k
    load = [1.0] * k
    if model == "mixed":
        own = [0.002 if i % 2 else 0.02 for i in range(k)]
        load = [0.0 if i % 5 == 0 else 0.5 + (i % 3) * 0.5 for i in range(k)]
    base = [1 + i / 1000 for i in range(k)]
    outlier = rng.randrange(na + nb) if model == "outlier" else -1

    def run_effect(sd):
        if model == "heavy":
            z = rng.gauss(0, 1) / math.sqrt(sum(rng.gauss(0, 1) ** 2 for _ in range(3)) / 3)
            return sd * z / math.sqrt(3)  # t(3) has variance 3
        return rng.gauss(0, sd)

    sides = []
    for side, (n, sd) in enumerate(((na, 0.02), (nb, sd_b))):
        rs = []
        for r in range(n):
            u = run_effect(sd) + (0.08 if side * na + r == outlier else 0)
            per = []
            for c in range(k):
                e = rng.gauss(0, own[c])
                m = base[c] * math.exp(load[c] * u + e) * (1 + shift if side else 1)
                per.append([round(m * math.exp(rng.gauss(0, 0.01)), 9) for _ in range(10)])
            rs.append(per)
        sides.append(rs)
    return sides


def judge(bench, tmp, idx, sides, k):
    d = os.path.join(tmp, "c%d" % idx)
    cases = ["fp32/%dx16x16" % (16 + i) for i in range(k)]
    paths = [[], []]
    for s, rs in enumerate(sides):
        for r, per in enumerate(rs):
            p = os.path.join(d, "%s-%d" % ("ab"[s], r))
            write_run(p, "ab"[s], cases, per)
            paths[s].append(p)
    out = subprocess.run([bench, "compare", "--format", "json"] + paths[0] + ["--vs"] + paths[1],
                         capture_output=True, text=True)
    shutil.rmtree(d)
    try:
        return json.loads(out.stdout)
    except ValueError:
        sys.exit("bench compare failed: %s" % out.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--comparisons", type=int, default=300)
    ap.add_argument("--power-comparisons", type=int, default=100)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    jobs = []
    for mi, model in enumerate(MODELS):
        for i in range(a.comparisons):
            jobs.append((model, 0.0, random.Random(a.seed * 1000003 + mi * 100019 + i)))
    for i in range(a.power_comparisons):
        jobs.append(("power", 1 / 0.95 - 1, random.Random(a.seed * 1000003 + 7 * 100019 + i)))

    def one(j):
        idx, (model, shift, rng) = j
        sides = comparison(rng, "iid" if model == "power" else model, a.cases, a.runs, shift)
        r = judge(a.bench, tmp, idx, sides, a.cases)
        v = [c["others"][0] for c in r["cases"]]
        called = sum(x["verdict"] in ("faster", "slower") for x in v)
        slower = sum(x["verdict"] == "slower" for x in v)
        single = sum(x.get("p", 1) < r["alpha"] and x["ratio"] < 1 - x.get("threshold", r["threshold"]) for x in v)
        return model, called, slower, single, len(v)

    try:
        with ThreadPoolExecutor(a.jobs) as ex:
            res = list(ex.map(one, enumerate(jobs)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    fw_all = n_all = 0
    print("A/A, %d runs per side (unequal: 3 against 5), %d cases, seed %d" % (a.runs, a.cases, a.seed))
    for model in MODELS:
        rows = [x for x in res if x[0] == model]
        fw = sum(1 for x in rows if x[1] > 0)
        fw_all += fw
        n_all += len(rows)
        print("  %-8s %4d comparisons, %3d with a case called (%.2f%%), %d cases called of %d" %
              (model, len(rows), fw, 100.0 * fw / len(rows), sum(x[1] for x in rows), sum(x[4] for x in rows)))
    print("  pooled   %4d comparisons, %3d with a case called (%.2f%%)" % (n_all, fw_all, 100.0 * fw_all / n_all))
    rows = [x for x in res if x[0] == "power"]
    pw = sum(x[2] for x in rows) / max(1, sum(x[4] for x in rows))
    bound = sum(x[3] for x in rows) / max(1, sum(x[4] for x in rows))
    print("power, 5%% slower, %d runs per side, %d comparisons: %.1f%% of cases called slower; one test alone: %.1f%%" %
          (a.runs, len(rows), 100 * pw, 100 * bound))
    if a.check:
        bad = []
        if fw_all > 0.01 * n_all:
            bad.append("A/A familywise %.2f%% > 1%%" % (100.0 * fw_all / n_all))
        if rows and pw < bound - 0.05:
            bad.append("power %.1f%% more than 5 points under the single test's %.1f%%" % (100 * pw, 100 * bound))
        if bad:
            print("FAIL: " + "; ".join(bad))
            return 1
        print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
