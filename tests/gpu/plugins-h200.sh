#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Plug-ins measured like built-ins, on one H200 (docs/plugins.md): each plug-in here wraps a built-in's own call
# (attention: scaled_dot_product_attention forced to the flash backend, ssm: bench's ssd_chunked eager, gemm: torch.matmul),
# and runs beside that built-in in the same run, so the ratio plug-in / built-in should be 1 within run-to-run noise
# (the same FLOPs, timing, flush and check); plus one plug-in that hangs on the GPU (a spinning kernel through
# torch.cuda._sleep) with a 20 s timeout, to show the runner restarting for the cases after it.
# Carry .carry (tests/gpu/prepare-carry.sh) and run from the checkout:
#   sh tests/gpu/plugins-h200.sh
# Results under $OUT (default ./gpu-out): run.txt (bench's log), summary.md (built-in vs plug-in per case: TFLOP/s,
# ratio, check), show.txt (bench show, with the plugin lines), the three results files. Python suites only. About 4-6
# minutes (steady warm-ups).
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT/plugins"
OUT=$(cd "$OUT" && pwd)
here=$(pwd)
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
BENCH="$here/.carry/bench/bench"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,power.limit,temperature.gpu --format=csv >"$OUT/gpu.txt"
cat >"$OUT/plugins/wrap.py" <<'P'
import torch
import torch.nn.functional as F


def attention(q, k, v, causal, window):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def ssd(x, dt, A, B, C, chunk):
    import ssm  # runners/torch, on the runner's path
    return ssm.ssd_chunked(x, dt, A, B, C, chunk)


def matmul(a, b, layout):
    return torch.matmul(a, b.t()) if layout == "tn" else torch.matmul(a, b)


def hang(a, b, layout):
    torch.cuda._sleep(1 << 40)  # a kernel that spins for minutes
    torch.cuda.synchronize()
    return matmul(a, b, layout)
P
cat >"$OUT/plugins-h200.yaml" <<'Y'
bench: 1
name: plugins-h200
channel: stable
target: {vendor: cuda, gpu: h200, nodes: 1, gpus_per_node: 1}
runtime: {engine: host, launcher: local, timeout: 30m}
suites:
  gemm:
    backends: [torch-matmul, {plugin: mm, file: plugins/wrap.py, function: matmul}, {plugin: hang, file: plugins/wrap.py, function: hang, timeout: 20s}]
    dtypes: [bf16]
    shapes: [[8192, 8192, 8192], [16384, 8192, 1280]]
  attention:
    impl: [sdpa-flash, {plugin: flash, file: plugins/wrap.py, function: attention}]
    seq_lens: [4096]
    head_dim: 128
    passes: [fwd, bwd]
  ssm:
    impl: [torch, {plugin: ssd, file: plugins/wrap.py, function: ssd}]
    seq_lens: [4096]
    passes: [fwd]
Y
t0=$(date +%s)
"$BENCH" run -o "$OUT/runs" "$OUT/plugins-h200.yaml" >"$OUT/run.out" 2>"$OUT/run.txt"
echo "run: exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/run.txt"
D=$(sed -n 1p "$OUT/run.out")
B=$(sed -n 2p "$OUT/run.out")
[ -n "$D" ] && [ -d "$D" ] || { tail -30 "$OUT/run.txt"; exit 1; }
cp "$D"/results/*.jsonl "$OUT/" 2>/dev/null
cp "$D"/logs/*.log "$OUT/" 2>/dev/null
[ -n "$B" ] && "$BENCH" show "$B" >"$OUT/show.txt" 2>&1
python3 - "$D" <<'PY' | tee "$OUT/summary.md"
import json, sys
d = sys.argv[1]
recs = {}
for s in ("gemm", "attention", "ssm"):
    for l in open(f"{d}/results/{s}.jsonl"):
        r = json.loads(l)
        recs[(s, r["case"])] = r
pairs = {"gemm": ("torch-matmul", "mm"), "attention": ("sdpa-flash", "flash"), "ssm": ("torch", "ssd")}
print("| suite | case (built-in) | built-in TFLOP/s | plug-in TFLOP/s | ratio | checks |")
print("|---|---|---|---|---|---|")
for (s, k), r in sorted(recs.items()):
    b, p = pairs[s]
    if not k.startswith(b + "/"):
        continue
    q = recs.get((s, p + k[len(b):]))
    if not q:
        continue
    ratio = q["value"] / r["value"] if q.get("value") and r.get("value") else None
    print(f"| {s} | {k} | {r['value'] or r['status']} | {q['value'] or q['status']} | "
          f"{ratio and f'{ratio:.3f}'} | {r['extra'].get('check')} / {q['extra'].get('check')} |")
for (s, k), r in sorted(recs.items()):
    if k.startswith("hang/"):
        print(f"\n{k}: {r['status']}: {r['error']}")
PY
