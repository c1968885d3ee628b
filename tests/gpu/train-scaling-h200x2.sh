#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 17's two-GPU training bar on a two-H200 host (not run by `make test`), in one call: `bench run` of
# tests/gpu/h200x2-train-scaling.yaml (llama3-8b 4 layers, DDP and FSDP2, compile, scaling: true: each case on GPU 0
# alone first, then on both), then a summary of tokens/s per GPU, the scaling efficiency and the loss curves.
# bench comes from .carry (tests/gpu/prepare-carry.sh); the runner is python3 with torch on the GPU machine.
#   sh tests/gpu/train-scaling-h200x2.sh     (everything lands in $OUT/s.tgz)
set -u
here=$(pwd); B=$here/.carry/bench/bench
export BENCH_HOME=$here/.bench-home BENCH_DATA=$here BENCH_RUNNERS=$here/build/runners
mkdir -p "$OUT/s"; nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.limit --format=csv > "$OUT/s/gpu.txt" 2>&1
t0=$(date +%s)
timeout 560 "$B" run -o /tmp/ts tests/gpu/h200x2-train-scaling.yaml > "$OUT/s/run.txt" 2>&1; echo "run rc=$? in $(( $(date +%s) - t0 )) s" | tee "$OUT/s/summary.md"
d=$(ls -d /tmp/ts/*/ | head -1)
cp "$d/results/training.jsonl" "$OUT/s/" 2>/dev/null; cp "$d"/logs/* "$OUT/s/" 2>/dev/null
python3 - "$OUT/s/training.jsonl" <<'PY' | tee -a "$OUT/s/summary.md"
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    e = r["extra"]; sc = e.get("scaling", {})
    print(f"{r['case']}: {r['status']} {r.get('error') or ''} {r['value'] or 0:.1f} TFLOP/s/GPU, MFU {e.get('mfu', 0) * 100:.1f}%, "
          f"{e.get('tokens_per_s', 0):.0f} tok/s per GPU ({e.get('global_tokens_per_s', 0):.0f} global), "
          f"loss {e.get('loss_first', 0):.4f} -> {e.get('loss_last', 0):.4f}, {e.get('fsdp_mixed_precision', '')}")
    print(f"  scaling: {sc.get('efficiency', 0) * 100:.1f}% of one GPU ({sc.get('single_tokens_per_s', 0):.0f} tok/s, "
          f"{sc.get('single_tflops', 0) or 0:.1f} TFLOP/s, MFU {(sc.get('single_mfu') or 0) * 100:.1f}%) {sc.get('why', '')}")
    print("  losses " + " ".join(f"{x:.3f}" for x in e.get("losses", [])[::5]))
PY
cd "$OUT" && tar -czf s.tgz s && rm -rf s
