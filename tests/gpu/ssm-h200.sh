#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The ssm suite on one H200 beside attention at the same sizes, with bench itself: Mamba2-2.7B's SSD layer (80 heads
# of 64, d_state 128, chunk 256, 1 group) as bench's chunked SSD under torch.compile and as mamba_ssm's Triton kernel
# (skipped with the reason where mamba_ssm does not import), and attention sdpa-flash, causal, over the same x / q
# shape (80 heads of 64), both at 2k, 4k and 8k tokens per sequence, 16k tokens per batch, fwd and bwd, steady mode.
# Carry .carry (tests/gpu/prepare-carry.sh) and run from the checkout:
#   sh tests/gpu/ssm-h200.sh
# mamba_ssm: the GPU machine has no network; a wheel of mamba-ssm built for its torch in .carry/wheels (with einops)
# is installed into $OUT/pylib first, else the mamba_ssm cases are skipped with their import error.
# Results under $OUT (default ./gpu-out): run.txt (bench's log), summary.md (ms and TFLOP/s per seq_len side by side,
# checks, compile state), show.txt (bench show: findings such as backward-slow), ssm.jsonl, attention.jsonl, the
# bundle (bundle.tar). The manifest carries an illustrative price, so show.txt also prints USD/h per effective
# PFLOP/s and each record's energy (joules per call, TFLOP/J). Python suites only: no runner to build. About 3-6 minutes (torch.compile per shape, steady
# warm-ups of up to 10 s per case).
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
here=$(pwd)
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
BENCH="$here/.carry/bench/bench"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,power.limit,temperature.gpu --format=csv >"$OUT/gpu.txt"
if ls .carry/wheels/mamba_ssm-*.whl >/dev/null 2>&1; then
	python3 -m pip install -q --no-index --no-deps --target "$OUT/pylib" .carry/wheels/*.whl >"$OUT/pip.txt" 2>&1 &&
		export PYTHONPATH="$OUT/pylib${PYTHONPATH:+:$PYTHONPATH}"
fi
python3 -c 'from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined' >"$OUT/mamba-import.txt" 2>&1 &&
	echo "mamba_ssm imports" || echo "mamba_ssm does not import (its cases will be skipped): $(tail -n 1 "$OUT/mamba-import.txt")"
cat >"$OUT/ssm-h200.yaml" <<'Y'
bench: 1
name: ssm-h200
channel: stable
target: {vendor: cuda, gpu: h200, nodes: 1, gpus_per_node: 1}
runtime: {engine: host, launcher: local, timeout: 30m}
pricing: {usd_per_gpu_hour: 3.50, source: "an illustrative GPU-hour price for the cost figures, not a quote"}
suites:
  attention: {impl: [sdpa-flash], seq_lens: [2048, 4096, 8192], head_dim: 64, width: 5120, tokens: 16384, causal: [true], passes: [fwd, bwd], dtype: bf16}
  ssm: {impl: [torch, mamba_ssm], seq_lens: [2048, 4096, 8192], heads: 80, head_dim: 64, state: 128, chunk: 256, groups: 1, tokens: 16384, passes: [fwd, bwd], dtype: bf16}
Y
t0=$(date +%s)
"$BENCH" run -o "$OUT/runs" "$OUT/ssm-h200.yaml" >"$OUT/run.out" 2>"$OUT/run.txt"
echo "run: exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/run.txt"
D=$(sed -n 1p "$OUT/run.out")
B=$(sed -n 2p "$OUT/run.out")
[ -n "$D" ] && [ -d "$D" ] || { tail -30 "$OUT/run.txt"; exit 1; }
cp "$D/results/ssm.jsonl" "$D/results/attention.jsonl" "$OUT/" 2>/dev/null
[ -n "$B" ] && "$BENCH" show "$B" >"$OUT/show.txt" 2>&1
python3 - "$D" <<'PY' | tee "$OUT/summary.md"
import json, sys
d = sys.argv[1]
recs = []
for s in ("attention", "ssm"):
    try:
        recs += [json.loads(l) for l in open(f"{d}/results/{s}.jsonl")]
    except OSError:
        pass
rows = {}
for r in recs:
    p = r["params"]
    rows.setdefault(p["seq_len"], {})[(r["suite"] + ":" + p["impl"], p["pass"])] = r
impls = sorted({k[0] for v in rows.values() for k in v}, key=lambda x: (not x.startswith("attention"), x))
print("| seq_len | pass | " + " | ".join(impls) + " |")
print("|---|---|" + "---|" * len(impls))
for seq in sorted(rows):
    for pas in ("fwd", "bwd"):
        cells = []
        for i in impls:
            r = rows[seq].get((i, pas))
            if r is None:
                cells.append("")
            elif r["status"] != "ok":
                cells.append(f"{r['status']}: {(r.get('error') or '')[:60]}")
            else:
                ms = r["extra"]["flop"] / r["value"] / 1e9  # the median's time: value is the median TFLOP/s
                cells.append(f"{ms:.3f} ms, {r['value']:.1f} TFLOP/s")
        print(f"| {seq} | {pas} | " + " | ".join(cells) + " |")
print()
for r in recs:
    e = r["extra"]
    if r["suite"] == "ssm" and r["status"] != "skipped":
        print(f"- {r['case']}: {r['status']} {r.get('error') or ''} check {e.get('check')} "
              f"(fp32 {e.get('check_fp32', {}).get('max_rel_err')}, bf16 {e.get('check_case_dtype', {}).get('max_rel_err')}), "
              f"{e.get('function')} {e.get('compile', '')} {e.get('compile_why', '')}, "
              f"steady {e.get('timing', {}).get('steady_reached')}, SM clock {e.get('telemetry', {}).get('sm_clock_mhz')}")
    elif r["suite"] == "ssm":
        print(f"- {r['case']}: skipped: {r.get('error')}")
    else:
        print(f"- {r['case']}: {r['status']} {r.get('error') or ''} check {e.get('check')}, "
              f"steady {e.get('timing', {}).get('steady_reached')}, SM clock {e.get('telemetry', {}).get('sm_clock_mhz')}")
PY
[ -n "$B" ] && (cd "$(dirname "$B")" && tar -cf "$OUT/bundle.tar" "$(basename "$B")" "$(basename "$B").intoto.jsonl" 2>/dev/null)
rm -rf "$OUT/runs"
