#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The simulation of issue 32: how often `bench compare` calls a case by noise alone (A/A familywise error), how many
cases of a real change it calls at 3 runs per side against one t test of the case alone (power), under five noise
models of runs; and how often `bench reproduce` calls a case of a reproduction of its own machine different (its
false alarms per case at its stated 1%). Each comparison is judged by the code `bench compare` runs
(compare_build_groups, the runs' samples given as compare reads them from run directories), through the in-process
driver tests/sim/methods_sim.c (build/tests/methods-sim, `make build/tests/methods-sim`): one process per
comparison would spend most of its time starting. --per-process judges the first comparisons of each model by
`bench compare` on run directories written here as well, and fails when a verdict or an adjusted p differs.

Per comparison: CASES cases, RUNS runs per side, 10 samples per case and run; a sample's time is
base_c * exp(load_c * u_r + e_cr + w), u_r the run's effect shared by its cases (sd 2%), e_cr the case's own
run-to-run noise (sd 0.5%), w the noise within a run (sd 1%). The models:
  iid       as above
  heavy     u_r from Student's t with 3 degrees of freedom, scaled to sd 2%
  outlier   as iid, and one run of the comparison 8% slower in every case
  unequal   3 runs against 5, the second side's run effects with sd 3%
  mixed     half the cases with own noise 0.2%, half 2%; a fifth of the cases with loading 0 (a copy the clock does
            not move), the rest 0.5-1.5
Reproduce: K cases measured in 3 rounds here and once more (the original) on the same machine, run effect sd 2%,
own 0.5% (iid; heavy: the run effects t(3); mixed: own 0.2% or 2% as above); a case is a false alarm when the
original lies outside reproduce's band (reproduce_bands, at least the threshold).
Usage: methods-sim.py BENCH [--driver PATH] [--comparisons N] [--cases K] [--seed S] [--power-comparisons N]
                      [--reproductions N] [--per-process N] [--jobs J] [--check]
Prints per model the comparisons with any case called and the familywise rate; then the power at 3 runs per side
of a 5% slowdown (iid): the share of cases called slower, and the share a single Welch test of each case alone at
alpha would call (its own p < alpha and the ratio beyond the threshold: the bound no adjustment can pass).
--check exits 1 when A/A familywise pooled over the models exceeds 1%, the power is more than 5 points under
the bound, or reproduce's false alarms exceed 1.5% per case in a model.
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
    """One comparison by `bench compare` on run directories (the --per-process check)."""
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


def request(sides):
    return {"runs": sides[0] + sides[1], "starts": [0, len(sides[0])]}


def reproduction(rng, model, k, rounds, seed):
    """One reproduction on the machine that made the original: the driver's request and the original's log figures."""
    own = [0.005] * k
    if model == "mixed":
        own = [0.002 if i % 2 else 0.02 for i in range(k)]

    def run_effect():
        if model == "heavy":
            z = rng.gauss(0, 1) / math.sqrt(sum(rng.gauss(0, 1) ** 2 for _ in range(3)) / 3)
            return 0.02 * z / math.sqrt(3)
        return rng.gauss(0, 0.02)

    u = [run_effect() for _ in range(rounds + 1)]
    y = [[u[r] + rng.gauss(0, own[c]) + 0.001 * c for r in range(rounds + 1)] for c in range(k)]
    req = {"y": [y[c][r] for c in range(k) for r in range(rounds)], "ncases": k, "nruns": rounds, "alpha": 0.01,
           "max_band": 0.10, "seed": seed}
    return req, [y[c][rounds] - sum(y[c][:rounds]) / rounds for c in range(k)]


def driver_batch(driver, reqs):
    """The driver's answers to reqs, in order (one process)."""
    text = "".join(json.dumps(q) + "\n" for q in reqs)
    out = subprocess.run([driver], input=text, capture_output=True, text=True)
    if out.returncode:
        sys.exit("methods-sim driver failed: %s" % out.stderr)
    return [json.loads(line) for line in out.stdout.splitlines()]


def tally(r):
    v = [c["others"][0] for c in r["cases"]]
    called = sum(x["verdict"] in ("faster", "slower") for x in v)
    slower = sum(x["verdict"] == "slower" for x in v)
    single = sum(x.get("p", 1) < r["alpha"] and x["ratio"] < 1 - x.get("threshold", r["threshold"]) for x in v)
    return called, slower, single, len(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--driver")
    ap.add_argument("--comparisons", type=int, default=300)
    ap.add_argument("--power-comparisons", type=int, default=100)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reproductions", type=int, default=600)
    ap.add_argument("--reproduce-cases", type=int, default=20)
    ap.add_argument("--per-process", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    driver = a.driver or os.path.join(os.path.dirname(os.path.abspath(a.bench)), "build", "tests", "methods-sim")
    if not os.access(driver, os.X_OK):
        sys.exit("no driver %s: make build/tests/methods-sim" % driver)
    jobs = []
    for mi, model in enumerate(MODELS):
        for i in range(a.comparisons):
            jobs.append((model, 0.0, random.Random(a.seed * 1000003 + mi * 100019 + i)))
    for i in range(a.power_comparisons):
        jobs.append(("power", 1 / 0.95 - 1, random.Random(a.seed * 1000003 + 7 * 100019 + i)))
    sides = [comparison(rng, "iid" if model == "power" else model, a.cases, a.runs, shift)
             for model, shift, rng in jobs]
    rmodels = ("iid", "heavy", "mixed")
    rjobs = []
    for mi, model in enumerate(rmodels):
        for i in range(a.reproductions):
            rng = random.Random(a.seed * 1000003 + (11 + mi) * 100019 + i)
            rjobs.append((model,) + reproduction(rng, model, a.reproduce_cases, 3, a.seed * 100000 + i + 1))
    reqs = [request(x) for x in sides] + [q for _, q, _ in rjobs]
    chunks = [reqs[j::a.jobs] for j in range(a.jobs)]
    with ThreadPoolExecutor(a.jobs) as ex:
        parts = list(ex.map(lambda c: driver_batch(driver, c), chunks))
    answers = [None] * len(reqs)
    for j, part in enumerate(parts):
        answers[j::a.jobs] = part
    res = [(model,) + tally(r) for (model, _, _), r in zip(jobs, answers[:len(jobs)])]
    bad = []
    if a.per_process:
        tmp = tempfile.mkdtemp()
        try:
            n = 0
            for idx, ((model, _, _), sd, r) in enumerate(zip(jobs, sides, answers)):
                if idx % a.comparisons >= a.per_process and model != "power":
                    continue
                if model == "power" and idx - len(MODELS) * a.comparisons >= a.per_process:
                    continue
                b = judge(a.bench, tmp, idx, sd, a.cases)
                for x, y in zip(r["cases"], b["cases"]):
                    x, y = x["others"][0], y["others"][0]
                    if x["verdict"] != y["verdict"] or x.get("p_adjusted") != y.get("p_adjusted"):
                        bad.append("comparison %d (%s): the driver and bench compare differ" % (idx, model))
                        break
                n += 1
            print("per process: %d comparisons judged by bench compare too, %d differ" % (n, len(bad)))
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
              (model, len(rows), fw, 100.0 * fw / max(1, len(rows)), sum(x[1] for x in rows), sum(x[4] for x in rows)))
    print("  pooled   %4d comparisons, %3d with a case called (%.2f%%)" % (n_all, fw_all, 100.0 * fw_all / max(1, n_all)))
    rows = [x for x in res if x[0] == "power"]
    pw = sum(x[2] for x in rows) / max(1, sum(x[4] for x in rows))
    bound = sum(x[3] for x in rows) / max(1, sum(x[4] for x in rows))
    print("power, 5%% slower, %d runs per side, %d comparisons: %.1f%% of cases called slower; one test alone: %.1f%%" %
          (a.runs, len(rows), 100 * pw, 100 * bound))
    print("reproduce, 3 rounds here, %d cases, stated 1%%:" % a.reproduce_cases)
    for model in rmodels:
        cases = fam = n = 0
        for (m, _, orig), r in zip(rjobs, answers[len(jobs):]):
            if m != model:
                continue
            called = sum(1 for d, t in zip(orig, r["tol"]) if t is not None and abs(d) > max(t, math.log1p(0.02)))
            cases += called
            fam += called > 0
            n += 1
        rate = cases / max(1, n * a.reproduce_cases)
        print("  %-8s %4d reproductions, %.2f%% of cases outside the band, %.2f%% with any" %
              (model, n, 100 * rate, 100.0 * fam / max(1, n)))
        if a.check and rate > 0.015:
            bad.append("reproduce (%s) false alarms %.2f%% per case > 1.5%%" % (model, 100 * rate))
    if a.check:
        if fw_all > 0.01 * n_all:
            bad.append("A/A familywise %.2f%% > 1%%" % (100.0 * fw_all / n_all))
        if rows and pw < bound - 0.05:
            bad.append("power %.1f%% more than 5 points under the single test's %.1f%%" % (100 * pw, 100 * bound))
    if bad:
        print("FAIL: " + "; ".join(bad))
        return 1
    if a.check:
        print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
