#!/bin/sh
# Issue 17's FP8 training bar on one H200, in one call: llama3-8b 4 layers, bf16 then fp8 (tests/gpu/h200-fp8.yaml's
# cases), compile on, 50 steps each; prints the tokens/s ratio fp8/bf16, each MFU and the largest relative difference
# of the two loss curves (tolerance 2%, docs/architecture.md). About 3-5 minutes of GPU time (two compiles, 100 steps).
# Needs python3 with torch >= 2.1 on the GPU machine; no bench binary (the cases are written here, as bench plan
# writes them). Records and the summary under $OUT (default ./gpu-out).
#   sh tests/gpu/fp8-train-h200.sh
set -eu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv | tee "$OUT/gpu.txt" || true
python3 - "$OUT/cases.json" <<'PY'
import json, sys
base = {"models": ["llama3-8b"], "layers": 4, "param_dtype": "fp32", "seq_len": 4096, "micro_batch": 1, "steps": 50,
        "warmup_steps": 10, "parallel": "fsdp", "compile": True, "model": "llama3-8b"}
cases = [{"suite": "training", "case": f"llama3-8b/L4/{p}/s4096/mb1/fsdp/compile", "params": dict(base, precision=p)}
         for p in ("bf16", "fp8")]
peak = {"gpu": "h200", "bf16_tflops": 989.4, "fp8_tflops": 1978.9, "tf32_tflops": 494.7, "fp32_tflops": 66.9, "hbm_tbps": 4.8}
json.dump({"schema": "bench.cases/v1", "suite": "training", "ranks": 1, "cases": cases, "gpu_peak": peak}, open(sys.argv[1], "w"))
PY
t0=$(date +%s)
python3 runners/torch/train.py --config "$OUT/cases.json" >"$OUT/training.jsonl" 2>"$OUT/train.log" || { tail -30 "$OUT/train.log"; exit 1; }
echo "train.py: $(( $(date +%s) - t0 )) s for both cases" | tee "$OUT/summary.md"
python3 - "$OUT/training.jsonl" <<'PY' | tee -a "$OUT/summary.md"
import json, sys
TOL = 0.02
r = {x["params"]["precision"]: x for x in map(json.loads, open(sys.argv[1]))}
for p, x in r.items():
    e = x["extra"]
    print(f"{p}: {x['status']} {x.get('error') or ''} tokens/s {e.get('tokens_per_s', 0):.0f}, {x['value'] or 0:.1f} TFLOP/s, "
          f"MFU {e.get('mfu', float('nan')) * 100:.1f}% against {e.get('peak_tflops')} ({e.get('peak_precision')}), "
          f"check {e.get('check')}, reference {e.get('reference_check', {}).get('check')}, loss {e.get('loss_first')} -> {e.get('loss_last')}")
    if p == "fp8":
        print(f"  fp8: {e.get('fp8_impl')}; {e.get('fp8_layers')}; {e.get('fp8_share_of_n', 0) * 100:.1f}% of N in fp8; "
              f"MFU vs the bf16 peak {e.get('mfu_vs_bf16_peak', float('nan')) * 100:.1f}%")
b, f = r.get("bf16"), r.get("fp8")
if b and f and b["status"] == f["status"] == "ok":
    lb, lf = b["extra"]["losses"], f["extra"]["losses"]
    d = max(abs(x - y) / x for x, y in zip(lb, lf))
    i = max(range(len(lb)), key=lambda j: abs(lb[j] - lf[j]) / lb[j])
    print(f"fp8/bf16 tokens/s: {f['extra']['tokens_per_s'] / b['extra']['tokens_per_s']:.3f}x (bar 1.2x); "
          f"bf16 MFU {b['extra']['mfu'] * 100:.1f}% (bar 45%)")
    print(f"loss curves: max |fp8 - bf16| / bf16 = {d:.4f} at step {i + 1} ({lb[i]:.4f} vs {lf[i]:.4f}); tolerance {TOL}: "
          f"{'within' if d <= TOL else 'OUTSIDE'}")
    print("bf16 " + " ".join(f"{x:.3f}" for x in lb[::5]))
    print("fp8  " + " ".join(f"{x:.3f}" for x in lf[::5]))
PY
