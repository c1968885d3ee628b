#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A misbehaving runner for bench run's failure tests. Installed under a suite's runner name (bench-gemm ...);
FAKE_MODE picks the behaviour, FAKE_GOOD how many valid records come first, FAKE_DELAY seconds between records.
  ok       every case, valid records
  crash    FAKE_GOOD records, then SIGSEGV
  hang     FAKE_GOOD records, then sleeps forever (with a child that sleeps too)
  garbage  valid records with garbage lines between them
  early    FAKE_GOOD records, then exit 3
  wrong    every case, the first one failed by a correctness check
  skip     every case, the first one skipped (not supported here)
  daemon   every case, after starting `setsid sleep 1000` (a new session: outside the runner's process group),
           its pid written to FAKE_PIDFILE
  noisy    every case, FAKE_N samples (default 10) of base * (1 + run_offset) * (1 + within) ms: base 1 + i/1000 for
           case i, run_offset ~ N(0, FAKE_RUN_SD) drawn once per process (default 0.02), within ~ N(0, FAKE_WITHIN_SD)
           per sample (default 0.01); times 1 + FAKE_SLOWDOWN when the run's manifest is named FAKE_SLOW_RUN (any
           run when unset). Seeded by FAKE_SEED plus a counter kept in the file FAKE_SEQ (one more per process), so
           a sequence of runs is the same every time.
FAKE_EXTRA='{"SUBSTRING": {...}}' merges the object into the extra of each case whose key holds SUBSTRING (any mode).
FAKE_IMPORT=MODULE imports MODULE and gives each record the packages field of the Python runners
(runners/torch/loadedlibs.py, the real code) (any mode).
A record whose extra holds telemetry gets extra.energy from runners/torch/energy.py (the real code), as the
Python runners' records do (any mode).
FAKE_ECHO_ENV=NAME[,NAME] puts the values of those variables as this process sees them (null: unset) into each
record's extra.env_seen (any mode).
FAKE_LEAK=1 echoes this process's whole environment into every output it writes (any mode): each record's
extra.environ (and its error text), stderr (the run's log) as NAME=VALUE lines and as JSON, and two files of its
own in the run directory, leak/env.txt and leak/env.json.
FAKE_SCALE multiplies every sample (any mode). FAKE_CV is the records' stats.cv (default 0.05; any mode). FAKE_PAD=N adds N bytes of padding to each record's extra (any mode).
"""
import json
import os
import signal
import sys
import time

args = sys.argv[1:]
cfg = json.load(open(args[args.index("--config") + 1]))
mode = os.environ.get("FAKE_MODE", "ok")
good = int(os.environ.get("FAKE_GOOD", "1"))
delay = float(os.environ.get("FAKE_DELAY", "0"))
samples = [float(x) for x in os.environ.get("FAKE_SAMPLES", "1.0,1.1,0.9").split(",")]
suite = cfg["suite"]
samples = [x * float(os.environ.get("FAKE_SCALE", "1")) for x in samples]
rng = None
packages = None
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "runners", "torch"))
import energy  # noqa: E402  (the runners' own definition of extra.energy)
if os.environ.get("FAKE_IMPORT"):
    import importlib
    import loadedlibs
    importlib.import_module(os.environ["FAKE_IMPORT"])
    packages = loadedlibs.loaded_packages()
if mode == "noisy":
    import random
    seq = 0
    if os.environ.get("FAKE_SEQ"):
        try:
            seq = int(open(os.environ["FAKE_SEQ"]).read() or 0)
        except FileNotFoundError:
            pass
        with open(os.environ["FAKE_SEQ"], "w") as f:
            f.write(str(seq + 1))
    rng = random.Random(int(os.environ.get("FAKE_SEED", "1")) * 100003 + seq)
    run_offset = rng.gauss(0, float(os.environ.get("FAKE_RUN_SD", "0.02")))
    within = float(os.environ.get("FAKE_WITHIN_SD", "0.01"))
    nsamp = int(os.environ.get("FAKE_N", "10"))
    slow = 1.0
    run_dir = os.path.dirname(os.path.dirname(os.path.abspath(args[args.index("--config") + 1])))
    name = json.load(open(os.path.join(run_dir, "plan.json"))).get("name")
    if os.environ.get("FAKE_SLOW_RUN") in (None, name):
        slow += float(os.environ.get("FAKE_SLOWDOWN", "0"))


def record(c, status="ok", extra=None):
    med = sorted(samples)[len(samples) // 2]
    r = {"schema": "bench.result/v1", "suite": suite, "case": c["case"], "params": c["params"], "status": status,
         "metric": "tflops", "unit": "TFLOP/s", "value": 1.0 / med if status == "ok" else None,
         "stats": {"n": len(samples), "median": 1.0 / med, "mean": 1.0 / med, "min": 1.0 / max(samples), "max": 1.0 / min(samples),
                   "p10": 1.0 / med, "p90": 1.0 / med, "cv": float(os.environ.get("FAKE_CV", "0.05"))} if status == "ok" else None,
         "samples_ms": samples if status == "ok" else None,
         "extra": dict(extra or {}, **({"pad": "x" * int(os.environ["FAKE_PAD"])} if os.environ.get("FAKE_PAD") else {})),
         "error": None if status == "ok" else
                  "not supported here: skip planted by the fake runner" if status == "skipped" else
                  "wrong result: planted by the fake runner"}
    for sub, ex in json.loads(os.environ.get("FAKE_EXTRA") or "{}").items():
        if sub in c["case"]:
            r["extra"].update(ex)
    if os.environ.get("FAKE_LEAK"):
        r["extra"]["environ"] = dict(os.environ)
        r["extra"]["environ_text"] = " ".join("%s=%s" % kv for kv in sorted(os.environ.items()))
    if os.environ.get("FAKE_ECHO_ENV"):
        r["extra"]["env_seen"] = {k: os.environ.get(k) for k in os.environ["FAKE_ECHO_ENV"].split(",")}
    if packages is not None:
        r["packages"] = packages
    energy.add_energy(r)
    print(json.dumps(r), flush=True)


print(f"fake runner: mode {mode}, {len(cfg['cases'])} cases", file=sys.stderr)
if os.environ.get("FAKE_LEAK"):
    for k, v in sorted(os.environ.items()):
        print("%s=%s" % (k, v), file=sys.stderr)
    print(json.dumps(dict(os.environ)), file=sys.stderr)
    leak = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args[args.index("--config") + 1]))), "leak")
    os.makedirs(leak, exist_ok=True)
    with open(os.path.join(leak, "env.txt"), "w") as f:
        f.write("".join("%s=%s\n" % kv for kv in sorted(os.environ.items())))
    with open(os.path.join(leak, "env.json"), "w") as f:
        json.dump(dict(os.environ), f, indent=1)
if mode == "daemon":
    import subprocess  # (here and in hang only: its import is a fifth of this runner's start, run hundreds of times)
    d = subprocess.Popen(["setsid", "sleep", "1000"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)  # not a group leader: setsid(1) execs sleep in place
    with open(os.environ.get("FAKE_PIDFILE", "/dev/null"), "w") as f:
        f.write(str(d.pid))
for i, c in enumerate(cfg["cases"]):
    if mode in ("crash", "hang", "early") and i == good:
        if mode == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        if mode == "hang":
            import subprocess
            subprocess.Popen(["sleep", os.environ.get("FAKE_SLEEP", "1000")])  # a grandchild the timeout must end too
            with open(os.environ.get("FAKE_PIDFILE", "/dev/null"), "w") as f:
                f.write(str(os.getpid()))
            time.sleep(1000)
        if mode == "early":
            sys.exit(3)
    if mode == "garbage":
        print("this is not json", flush=True)
        print('{"schema": "bench.result/v1", "case": "no/such/case", "status": "ok", "suite": "x"}', flush=True)
        print("[1, 2, 3]", flush=True)
    if mode == "wrong" and i == 0:
        record(c, "failed", {"check": "wrong"})
    elif mode == "skip" and i == 0:
        record(c, "skipped")
    else:
        if rng:
            base = 1 + i / 1000
            samples = [base * slow * (1 + run_offset) * (1 + rng.gauss(0, within)) for _ in range(nsamp)]
        record(c)
    time.sleep(delay)
