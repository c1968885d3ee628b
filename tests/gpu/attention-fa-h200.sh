#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 17's attention bar on one H200 (not run by `make test`), in one call: the attention suite's sdpa-flash,
# causal, bf16, fwd and bwd at 2k/4k/8k (16k tokens, width 2048, head dim 128), against FlashAttention's own timing
# convention (tests/gpu/attention_fa_convention.py: torch.utils.benchmark mean, gradients reset in the timed call),
# the reference before and after bench (both orders). bench from .carry (tests/gpu/prepare-carry.sh).
#   sh tests/gpu/attention-fa-h200.sh     (everything lands in $OUT/a.tgz)
set -u
here=$(pwd); B=$here/.carry/bench/bench
export BENCH_HOME=$here/.bench-home BENCH_DATA=$here BENCH_RUNNERS=$here/build/runners
mkdir -p "$OUT/a"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv > "$OUT/a/gpu.txt" 2>&1
cat > /tmp/att.yaml <<'Y'
bench: 1
name: h200-attention-fa
channel: stable
target: {vendor: cuda, gpu: h200}
runtime: {engine: host}
suites:
  attention: {impl: [sdpa-flash], seq_lens: [2048, 4096, 8192], causal: [true], passes: [fwd, bwd], dtype: bf16}
Y
python3 tests/gpu/attention_fa_convention.py > "$OUT/a/ref-before.jsonl" 2> "$OUT/a/ref.log"
timeout 300 "$B" run -o /tmp/ta /tmp/att.yaml > "$OUT/a/run.txt" 2>&1; echo "run rc=$?"
python3 tests/gpu/attention_fa_convention.py > "$OUT/a/ref-after.jsonl" 2>> "$OUT/a/ref.log"
cp /tmp/ta/*/results/attention.jsonl "$OUT/a/" 2>/dev/null
python3 - "$OUT/a" <<'PY' | tee "$OUT/a/summary.md"
import json, sys
d = sys.argv[1]
ref = [{(r["seq"], r["pass"]): r for r in map(json.loads, open(f"{d}/ref-{w}.jsonl"))} for w in ("before", "after")]
print("| seq | pass | bench sdpa-flash | FA convention before | after | ratio before / after | check |")
print("|---|---|---|---|---|---|---|")
for r in map(json.loads, open(f"{d}/attention.jsonl")):
    p = r["params"]
    k = (p["seq_len"], p["pass"])
    a, b = ref[0][k]["tflops"], ref[1][k]["tflops"]
    print(f"| {k[0]} | {k[1]} | {r['value']:.1f} TFLOP/s ({r['extra'].get('timing', {}).get('mode', '?')}) | {a:.1f} | {b:.1f} | "
          f"{r['value'] / a:.3f} / {r['value'] / b:.3f} | {r['extra'].get('check', r['status'])} |")
PY
cd "$OUT" && tar -czf a.tgz a && rm -rf a
