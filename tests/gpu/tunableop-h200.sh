#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 20's TunableOp figures on one H200, with bench itself: the gemm suite's torch backends with `tunableop: true`
# (each shape: the default case, and the tunableop case that measures untuned, tunes, measures tuned and untuned
# again in one call). Carry .carry (tests/gpu/prepare-carry.sh) and run from the checkout:
#   sh tests/gpu/tunableop-h200.sh
# The run directory (records, artifacts/gemm/tunableop-results0.csv) is packed into $OUT/run.tar.gz; the table of
# tuning time, peak memory and speed-up per case is printed and left in $OUT/tunableop.txt.
set -eu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
here=$(pwd)
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
BENCH="$here/.carry/bench/bench"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee -a "$OUT/gpu.txt"
cat >"$OUT/tunableop.yaml" <<'Y'
bench: 1
name: h200-tunableop
target: {vendor: cuda, gpu: h200, nodes: 1, gpus_per_node: 1}
runtime: {engine: host, launcher: local, timeout: 30m}
suites:
  gemm: {backends: [torch-linear, torch-scaled-mm], dtypes: [bf16, fp8e4m3], layouts: [tn], shapes: llama70b,
         tunableop: true}
Y
rc=0
"$BENCH" run -o "$OUT/runs" "$OUT/tunableop.yaml" || rc=$?
D=$(ls -d "$OUT"/runs/h200-tunableop-* | head -n 1)
python3 - "$D/results/gemm.jsonl" <<'PY' | tee "$OUT/tunableop.txt"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
default = {r["case"].rsplit("/", 1)[0]: r for r in recs if r["case"].endswith("/default")}
print("%-40s %9s %9s %9s %8s %9s %10s %10s  %s" % ("case", "untuned<", "tuned", "untuned>", "speedup", "default",
      "tuning_s", "peak_MiB", "solution"))
for r in recs:
    if not r["case"].endswith("/tunableop"):
        continue
    t = r["extra"].get("tunableop")
    base = r["case"].rsplit("/", 1)[0]
    if r["status"] != "ok" or not t:
        print("%-40s %s: %s" % (base, r["status"], r.get("error")))
        continue
    sol = ";".join(c["solution"] for c in t["chosen"]) or "(no TunableOp result)"
    print("%-40s %9.1f %9.1f %9.1f %8.3f %9.1f %10.2f %10.1f  %s" % (base, t["untuned_tflops_before"], r["value"],
          t["untuned_tflops_after"], t["speedup"], default.get(base, {}).get("value") or 0, t["tuning_s"],
          max(t["tuning_peak_allocated_bytes"], t["tuning_peak_reserved_bytes"]) / 2**20, sol[:60]))
PY
ls -l "$D/artifacts/gemm/" | tee -a "$OUT/tunableop.txt"
tar -czf "$OUT/run.tar.gz" -C "$OUT/runs" .
rm -rf "$OUT/runs"
exit $rc
