#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The hybrid Mamba2 + attention training model on CPU: the runner's own checks (tests/torch/test_hybrid.py, TAP: the
# FLOP formula against FLOPs counted op by op, parameter counts, the reference scan, a few steps), then bench
# validate of the hybrid models and a tiny hybrid training run through bench run, its loss falling.
. "$(dirname "$0")/lib.sh"
need_torch_python

python_tap tests/torch/test_hybrid.py

cat >"$T/big.yaml" <<'Y'
bench: 1
name: hybrid
target: {vendor: cuda, gpu: h200}
runtime: {engine: host}
suites:
  training: {models: [hybrid-mamba2-3b, llama3-8b], layers: 4, seq_len: 4096}
Y
expect 0 "bench validate: the hybrid model beside llama3-8b, 4-layer proxies" "$BENCH" validate "$T/big.yaml"
sed 's/layers: 4/layers: 65/' "$T/big.yaml" >"$T/deep.yaml"
expect 3 "bench validate: 65 layers of the 64-layer hybrid" "$BENCH" validate "$T/deep.yaml"
grep -q "exceeds the 64 layers of model 'hybrid-mamba2-3b'" "$T/err" && ok "the error names the hybrid's 64 layers" ||
	{ not_ok "no layer-count error for the hybrid"; show "$T/err"; }
expect 0 "bench plan: the hybrid's cases" "$BENCH" plan "$T/big.yaml"
grep -q "hybrid-mamba2-3b" "$T/out" && ok "the plan has a hybrid-mamba2-3b case" || { not_ok "no hybrid case planned"; show "$T/out"; }

cat >"$T/m.yaml" <<'Y'
bench: 1
name: hybridtest
target: {vendor: cpu, gpu: cpu}
runtime: {engine: host, timeout: 5m}
suites:
  training: {models: [hybrid-tiny, tiny], precision: [fp32], seq_len: 48, micro_batch: 2, steps: 6, warmup_steps: 2, compile: false}
Y
BENCH_PYTHON=$PY expect 0 "bench run: the tiny hybrid beside the tiny Llama on CPU" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
D=$(head -n 1 "$T/out")
if "$PY" - "$D" <<'PY'
import json, sys
sys.path.insert(0, "runners/torch")
from models import MODELS, Model, flop_per_token, param_count
d = sys.argv[1]
tr = {r["params"]["model"]: r for r in map(json.loads, open(f"{d}/results/training.jsonl"))}
assert set(tr) == {"hybrid-tiny", "tiny"}, list(tr)
for name, r in tr.items():
    e = r["extra"]
    assert r["status"] == "ok", r["error"]
    assert e["loss_last"] < e["loss_first"] and e["reference_check"]["check"] == "ok", e
    # the record's FLOP/token is the formula's, from the model's own N
    n = param_count(MODELS[name])[1]
    assert e["n_params_flop"] == n and abs(e["flop_per_token"] - flop_per_token(MODELS[name], n, 48, 0.5)[0]) < 1e-6
h = tr["hybrid-tiny"]["extra"]
# seq_len 48 = 3 chunks of 16; the SSD term is 3 layers x 3 x the ssm suite's count per token
p = h["flop_per_token_parts"]
fwd = (2 * 48 * (2 * 16 * 16 + 8 * 16 * (16 + 2 * 16)) + 2 * 8 * 16 * 16 * 3) / 48
assert p["mamba_layers"] == 3 and abs(p["ssd"] - 3 * 3 * fwd) < 1e-6, p
assert "3 L_mamba" in h["flop_convention"] and h["layer_kinds"] == ["mamba"] * 3 + ["attn"]
assert "flop_per_token_parts" not in tr["tiny"]["extra"]
print(f"hybrid-tiny loss {h['loss_first']:.3f} -> {h['loss_last']:.3f}, {h['flop_per_token']:.0f} FLOP/token")
PY
then ok "hybrid records: ok, loss falling, reference check ok, FLOP/token by the formula with its SSD part"; else not_ok "hybrid records"; fi
finish
