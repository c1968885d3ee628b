#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 35's one-H200 call: the plug-in examples against the built-ins, and the hybrid Mamba2 + attention model's
# training beside Llama3-8B-L4.
#  (a) examples/plugins/triton_gemm.py (a Triton GEMM plug-in) vs cuBLASLt (blaslt) on the llama70b GEMM shapes, bf16,
#      tn; (b) examples/plugins/triton_attention.py (Triton FlashAttention forward, PyTorch blockwise backward) vs
#      SDPA's flash backend at 4k and 16k tokens, causal, fwd and bwd. Both through bench run --rounds 2 of
#      examples/plugins/h200-builtin.yaml and h200-plugins.yaml: ABBA (built-ins, plug-ins, plug-ins, built-ins), every
#      case checked against the suite's reference. Needs a bench with plug-ins (docs/plugins.md): skipped, with a
#      line saying so, where this tree has none.
#  (c) training through runners/torch/train.py directly (no bench binary, no plug-ins needed): Llama3-8B with 4
#      layers, hybrid-mamba2-3b with 4 layers (3 Mamba2 + 1 attention), hybrid-mamba2-3b in full (64 layers), then
#      the hybrid proxy and Llama again (A B C B A), bf16 autocast, fp32 parameters, batch 1 x 4096, eager, 15 steps
#      (5 warm-up), and last the hybrid proxy under torch.compile (the suite's GPU default), if time is left: tokens/s, TFLOP/s, MFU against the H200's dense bf16 peak, loss first -> last, peak memory, the
#      reference check. Before it, tests/torch/test_hybrid.py under this torch: the hybrid's FLOP formula against
#      torch.utils.flop_counter.FlopCounterMode (the CI machine's torch 1.13 has no FlopCounterMode; a dispatch-level
#      count there). PART=train runs (c) only, PART=plugins (a) and (b) only.
# Carry .carry (tests/gpu/prepare-carry.sh) and run from the checkout (h35a and h35b merged):
#   sh tests/gpu/plugin-examples-h200.sh
# Writes $OUT/plugins.tar.gz (everything: runs and bundles, logs, records, summary) and $OUT/examples-summary.md (the table
# printed at the end). SMOKE=1 PART=train: the toy models on a CPU (the script's own check). About 5-7 minutes: Triton autotuning on the first round, the full hybrid's 15 steps;
# bounded under 10 minutes by timeouts (bench run 260 s, train.py 220 s).
set -u
FINAL=${OUT:-gpu-out}
mkdir -p "$FINAL"
FINAL=$(cd "$FINAL" && pwd)
W=$(mktemp -d)
here=$(pwd)
PART=${PART:-all}
PY=python3
[ -x /opt/torch/.venv/bin/python3 ] && PY=/opt/torch/.venv/bin/python3
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners" BENCH_PYTHON="$PY"
BENCH="$here/.carry/bench/bench"
[ -x "$BENCH" ] || BENCH="$here/bench"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,power.limit,temperature.gpu --format=csv >"$W/gpu.txt" 2>&1
"$PY" -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' >"$W/versions.txt" 2>&1
cat "$W/gpu.txt" "$W/versions.txt"
t_start=$(date +%s)

# ---- (a) and (b): the plug-in examples against the built-ins, ABBA ------------------------------------------------
plugins_ok=0
if [ "$PART" != train ]; then
	if [ -x "$BENCH" ] && "$BENCH" suites gemm 2>/dev/null | grep -q "plug-in {plugin: NAME"; then
		plugins_ok=1
	else
		echo "plug-ins: this bench ($BENCH) has no plug-in entries (h35a not merged?): (a) and (b) skipped" | tee "$W/plugins-skipped.txt"
	fi
fi
if [ "$plugins_ok" = 1 ]; then
	rm -f build/runners/bench-gemm # never a runner left from an older tree
	make build/runners/bench-gemm HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
		JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
		JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$W/build-gemm.log" 2>&1 ||
		{ echo "bench-gemm did not build (the blaslt cases will fail):"; tail -5 "$W/build-gemm.log"; }
	mkdir -p "$W/m"
	cp examples/plugins/h200-builtin.yaml examples/plugins/h200-plugins.yaml examples/plugins/triton_gemm.py \
		examples/plugins/triton_attention.py "$W/m/"
	for m in h200-builtin h200-plugins; do "$BENCH" lock "$W/m/$m.yaml" >>"$W/lock.txt" 2>&1 || true; done
	t0=$(date +%s)
	timeout 260 "$BENCH" run -v -o "$W/runs" --rounds 2 "$W/m/h200-builtin.yaml" "$W/m/h200-plugins.yaml" \
		>"$W/run.out" 2>"$W/run.err"
	rc=$?
	echo "bench run --rounds 2 (ABBA): exit $rc in $(( $(date +%s) - t0 )) s" | tee "$W/run-exit.txt"
	grep -E "error|failed|wrong|skipped" "$W/run.err" | head -20
fi

# ---- the hybrid's FLOP count against FlopCounterMode (torch >= 2.1 here; the CI machine's torch has none) ----------
if [ "$PART" != plugins ]; then
	"$PY" tests/torch/test_hybrid.py >"$W/test_hybrid.tap" 2>"$W/test_hybrid.err"
	rc=$?
	echo "tests/torch/test_hybrid.py with $(cat "$W/versions.txt"): exit $rc; $(grep -c '^ok' "$W/test_hybrid.tap") ok," \
		"$(grep -c '^not ok' "$W/test_hybrid.tap") not ok" | tee "$W/test_hybrid.txt"
	grep -E "^not ok|flopcountermode|counted" "$W/test_hybrid.tap" | tee -a "$W/test_hybrid.txt"
fi

# ---- (c) training: Llama3-8B-L4, the hybrid proxy, the full hybrid, the proxy, Llama (A B C B A) ---------------------
if [ "$PART" != plugins ]; then
	"$PY" - "$W/cases.json" <<'PY'
import json, os, sys
base = {"precision": "bf16", "param_dtype": "fp32", "seq_len": 4096, "micro_batch": 1, "steps": 15, "warmup_steps": 5,
        "compile": False, "data": "fixed", "lr": 3e-4}
order = [("llama3-8b", 4, "llama3-8b-L4-1"), ("hybrid-mamba2-3b", 4, "hybrid-L4-1"), ("hybrid-mamba2-3b", None, "hybrid-full"),
         ("hybrid-mamba2-3b", 4, "hybrid-L4-2"), ("llama3-8b", 4, "llama3-8b-L4-2")]
if os.environ.get("SMOKE"):  # the script's own check on a CPU: the toy models, a few short steps
    base.update(precision="fp32", seq_len=64, steps=4, warmup_steps=1)
    order = [("tiny", None, "tiny-1"), ("hybrid-tiny", 2, "hybrid-L2-1"), ("hybrid-tiny", None, "hybrid-full"),
             ("hybrid-tiny", 2, "hybrid-L2-2"), ("tiny", None, "tiny-2")]
cases = []
order.append(("hybrid-tiny" if os.environ.get("SMOKE") else "hybrid-mamba2-3b", 2 if os.environ.get("SMOKE") else 4,
              "hybrid-L4-compiled"))  # last: torch.compile (the suite's GPU default), if time is left
for model, layers, label in order:
    p = dict(base, model=model, models=[model], compile=label.endswith("compiled"))
    if layers:
        p["layers"] = layers
    how = "compile" if p["compile"] else "eager"
    cases.append({"suite": "training", "case": f"{label}/{p['precision']}/s{p['seq_len']}/mb1/{how}", "params": p})
peak = {"gpu": "h200", "bf16_tflops": 989.4, "fp8_tflops": 1978.9, "tf32_tflops": 494.7, "fp32_tflops": 66.9, "hbm_tbps": 4.8}
json.dump({"schema": "bench.cases/v1", "suite": "training", "ranks": 1, "cases": cases, "gpu_peak": peak}, open(sys.argv[1], "w"))
PY
	t0=$(date +%s)
	timeout 220 "$PY" runners/torch/train.py --config "$W/cases.json" >"$W/training.jsonl" 2>"$W/train.log"
	rc=$?
	echo "train.py: exit $rc in $(( $(date +%s) - t0 )) s" | tee "$W/train-exit.txt"
fi

# ---- the summary table ------------------------------------------------------------------------------------------
"$PY" tests/gpu/plugin_examples_summary.py "$W" | tee "$W/examples-summary.md"
for f in plugins-skipped run-exit train-exit test_hybrid; do cat "$W/$f.txt" >>"$W/examples-summary.md" 2>/dev/null; done
echo "total: $(( $(date +%s) - t_start )) s" | tee -a "$W/examples-summary.md"
cp "$W/examples-summary.md" "$FINAL/examples-summary.md"
cp "$BENCH_HOME/signing.pub.pem" "$W/" 2>/dev/null || true # the bundles verify with it: bench verify -k signing.pub.pem
tar czf "$FINAL/plugins.tar.gz" -C "$W" .
echo "wrote $FINAL/plugins.tar.gz and $FINAL/examples-summary.md"
