#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The PyTorch runners on CPU: formulas, parameter counts, attention numerics and a tiny training step
# (tests/torch/test_torch.py, TAP), then the training and attention suites through bench run.
. "$(dirname "$0")/lib.sh"
need_torch_python

# the python checks speak TAP themselves: pass their lines through, counting them as ours
# the fake amd-smi library (make builds it beside the unit tests) for the ROCm telemetry reading
export BENCH_FAKE_AMDSMI="${BENCH_FAKE_AMDSMI:-$(pwd)/build/tests/libamd_smi_fake.so}"
python_tap tests/torch/test_torch.py

cat >"$T/m.yaml" <<'Y'
bench: 1
name: torchtest
target: {vendor: cpu, gpu: cpu}
runtime: {engine: host, timeout: 5m}
suites:
  attention: {impl: [sdpa, sdpa-math, sdpa-flash], seq_lens: [64], head_dim: 16, width: 32, tokens: 128, passes: [fwd, fwd_bwd], dtype: bf16, warmup: 1ms, rep: 5ms}
  training: {models: [tiny], precision: [fp32, bf16], seq_len: 32, micro_batch: 2, steps: 5, warmup_steps: 2, compile: false}
Y
BENCH_PYTHON=$PY expect 0 "bench run: tiny training and attention on CPU" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
D=$(head -n 1 "$T/out")
if "$PY" - "$D" <<'PY'
import json, sys
d = sys.argv[1]
tr = [json.loads(l) for l in open(f"{d}/results/training.jsonl")]
assert [r["status"] for r in tr] == ["ok", "ok"], [r["error"] for r in tr]
for r in tr:
    e = r["extra"]
    assert e["loss_last"] < e["loss_first"] and e["density"] == 0.5 and e["flop_per_token"] > 0
    assert r["value"] == r["stats"]["median"] and r["metric"] == "tflops_per_gpu"
at = [json.loads(l) for l in open(f"{d}/results/attention.jsonl")]
assert len(at) == 6
import torch
if hasattr(torch.nn.functional, "scaled_dot_product_attention"):
    for r in at:
        if r["params"]["impl"] == "sdpa-flash":
            assert r["status"] == "skipped" and "GPU" in r["error"]
        else:
            assert r["status"] == "ok" and r["extra"]["check"] == "ok", r
else:
    assert all(r["status"] == "skipped" and "torch >= 2.0" in r["error"] for r in at), at
PY
then ok "training records: loss falling, FLOP/token and density stated; attention ok or skipped with the reason"; else not_ok "torch records"; fi
[ -s "$D/env/raw/pip-list.txt" ] && ok "pip list captured for the Python suites" || not_ok "no pip list"

# two ranks: train.py starts one process per rank (env:// rendezvous), DDP over gloo on CPU
cat >"$T/ddp.yaml" <<'Y'
bench: 1
name: ddp
target: {vendor: cpu, gpus_per_node: 2}
runtime: {engine: host, timeout: 5m}
suites:
  training: {models: [tiny], precision: [fp32], seq_len: 32, micro_batch: 2, steps: 5, warmup_steps: 2, compile: false, parallel: [ddp, fsdp]}
  gemm: {backends: [torch-matmul, torch-linear], dtypes: [fp32], layouts: [tn, nn], shapes: [[64, 48, 32]], warmup: 1ms, rep: 3ms, flush_bytes: 1MiB, tunableop: true}
Y
BENCH_PYTHON=$PY expect 0 "DDP over two CPU ranks, and torch GEMM backends routed to the PyTorch runner" "$BENCH" run -q -o "$T/runs-ddp" "$T/ddp.yaml"
D=$(head -n 1 "$T/out")
if "$PY" - "$D" <<'PY'
import json, sys
d = sys.argv[1]
import torch
recs = [json.loads(l) for l in open(f"{d}/results/training.jsonl")]
r, f = recs
e = r["extra"]
assert r["status"] == "ok" and e["world_size"] == 2 and e["parallel"] == "ddp", r
try:  # FSDP2 trains where it imports; where it does not (Debian's torch 1.13), the case is skipped with the reason
    from torch.distributed.fsdp import fully_shard  # noqa: F401
    assert f["status"] == "ok" and f["extra"]["parallel"] == "fsdp" and f["extra"]["loss_last"] < f["extra"]["loss_first"], f
except Exception as ex:  # one clean line: the exception itself goes to the suite's log
    assert f["status"] == "skipped" and f["error"].startswith("parallel fsdp needs FSDP2") and type(ex).__name__ not in f["error"], f
assert e["loss_last"] < e["loss_first"] and abs(e["global_tokens_per_s"] - 2 * e["tokens_per_s"]) < 1e-6 * e["global_tokens_per_s"]
g = [json.loads(l) for l in open(f"{d}/results/gemm.jsonl")]
# TunableOp tunes GPU GEMMs: on this CPU machine its cases are skipped with the reason (no TunableOp in this torch,
# or no GPU), and the cases file names the artifacts directory the runner would leave its results file in
tun = [x for x in g if x["case"].endswith("/tunableop")]
why = ("has no TunableOp (torch.cuda.tunable, torch >= 2.3)" if not hasattr(getattr(torch.cuda, "tunable", None), "tuning_enable")
       else "TunableOp tunes GEMMs on CUDA and ROCm GPUs; this run has none")
assert len(tun) == 4 and all(x["status"] == "skipped" and why in x["error"] for x in tun), tun
assert json.load(open(f"{d}/cases/gemm.json"))["artifacts"] == f"{d}/artifacts/gemm"
g = [x for x in g if x["case"].endswith("/default")]
assert len(g) == 4 and all(x["status"] == "ok" and x["extra"]["check"] == "ok" for x in g), g
assert {x["extra"]["function"] for x in g} == {"torch.matmul", "torch.nn.functional.linear"}
assert any("linear_vs_matmul_pct" in x["extra"] for x in g)
PY
then ok "world size 2, loss falling, global = 2 x per-GPU tokens/s; FSDP2 trains or is skipped with a clean reason; torch GEMM checked, linear vs matmul compared; TunableOp cases skipped with the reason"; else not_ok "ddp/torch gemm records"; fi
grep -q "gemm.py --config" "$D/logs/gemm.log" && ok "the torch backends ran in runners/torch/gemm.py" || not_ok "gemm.py not run"
finish
