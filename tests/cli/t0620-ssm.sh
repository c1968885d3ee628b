#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The ssm suite on CPU: the runner's own checks (tests/torch/test_ssm.py, TAP: FLOP formula, chunked SSD against the
# naive scan, a wrong implementation failing its case), then a small ssm suite beside attention through bench run
# and bench report.
. "$(dirname "$0")/lib.sh"
need_torch_python

python_tap tests/torch/test_ssm.py

cat >"$T/m.yaml" <<'Y'
bench: 1
name: ssmtest
target: {vendor: cpu, gpu: cpu}
runtime: {engine: host, timeout: 5m}
suites:
  ssm: {seq_lens: [64, 128], heads: 4, head_dim: 16, state: 16, chunk: 32, groups: 2, tokens: 256, passes: [fwd, bwd, fwd_bwd], warmup: 1ms, rep: 5ms}
  attention: {impl: [sdpa-math], seq_lens: [64, 128], head_dim: 16, width: 64, tokens: 256, passes: [fwd, bwd], warmup: 1ms, rep: 5ms}
Y
BENCH_PYTHON=$PY expect 0 "bench run: a small ssm suite beside attention on CPU" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
D=$(head -n 1 "$T/out")
if "$PY" - "$D" <<'PY'
import json, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(f"{d}/results/ssm.jsonl")]
assert len(recs) == 12, [r["case"] for r in recs]
own = [r for r in recs if r["params"]["impl"] == "torch"]
assert [r["case"] for r in own] == [f"torch/bf16/chunk32-g2/{s}/{p}" for s in ("4x64x4x16x16", "2x128x4x16x16")
                                    for p in ("fwd", "bwd", "fwd_bwd")], [r["case"] for r in own]
for r in own:
    e, p = r["extra"], r["params"]
    assert r["status"] == "ok" and r["metric"] == "tflops" and r["unit"] == "TFLOP/s" and r["value"] > 0, r
    assert r["value"] == r["stats"]["median"] and len(r["samples_ms"]) == r["stats"]["n"]
    # the FLOPs follow the documented formula: 2BL[GQN + HP(Q + 2N)] + 2BHPN L/Q, bwd 2x, fwd_bwd 3x
    b, l, h, hp, n, q, g = (p[k] for k in ("batch", "seq_len", "heads", "head_dim", "state", "chunk", "groups"))
    fwd = 2 * b * l * (g * q * n + h * hp * (q + 2 * n)) + 2 * b * h * hp * n * (l // q)
    assert e["fwd_flop"] == fwd and e["flop"] == fwd * {"fwd": 1, "bwd": 2, "fwd_bwd": 3}[p["pass"]], e
    assert "2BL[GQN + HP(Q + 2N)]" in e["flop_convention"]
    assert e["check"] == "ok" and e["check_fp32"]["ok"] and e["check_fp32"]["max_rel_err"] < 1e-4, e
    assert 0 < e["max_abs_err_vs_scan_fp32"] < 1e-2 and e["check_case_dtype"]["max_rel_err"] < 5e-2, e
    assert e["compile"] == "eager" and e["compile_why"], e          # torch.compile is for GPUs
    assert e["timing"]["mode"] == "burst" and e["schedule"]["n_repeat"] >= 1
mam = [r for r in recs if r["params"]["impl"] == "mamba_ssm"]
try:
    import mamba_ssm  # noqa: F401
    why = "needs a GPU"
except ModuleNotFoundError:
    why = "mamba_ssm is not installed"
except Exception:
    why = "mamba_ssm does not import"
assert len(mam) == 6 and all(r["status"] == "skipped" and why in r["error"] for r in mam), mam
assert all("Error" not in r["error"] and "\n" not in r["error"] for r in mam), mam  # one clean line, no exception text
at = [json.loads(l) for l in open(f"{d}/results/attention.jsonl")]
import torch
want = "ok" if hasattr(torch.nn.functional, "scaled_dot_product_attention") else "skipped"  # Debian's torch 1.13: none
assert [r["status"] for r in at] == [want] * 4, [(r["status"], r["error"]) for r in at]
# attention and ssm at equal seq_len: the same record fields, the same B x L in the keys
shape = lambda r: tuple(r["case"].split("/")[-2].split("x")[:2])  # noqa: E731
assert {shape(r) for r in at} == {shape(r) for r in own} == {("4", "64"), ("2", "128")}
assert set(at[0]) - {"quality"} == set(own[0]) - {"quality"}  # quality: bench adds it to ok records
PY
then ok "ssm records: ok with positive TFLOP/s, FLOPs by the formula, checked against the scan, mamba_ssm skipped with the reason"; else not_ok "ssm records"; fi
grep -q "ssm.py --config" "$D/logs/ssm.log" && ok "the ssm suite ran runners/torch/ssm.py" || not_ok "ssm.py not run"

expect 0 "bench report of the run" "$BENCH" report -o "$T/rep" "$D"
grep -q 'id="suite-ssm"' "$T/rep/index.html" && grep -q 'id="suite-attention"' "$T/rep/index.html" &&
	ok "the report has an SSM section beside attention" || not_ok "the report lacks the ssm or attention section"
grep -q 'mamba_ssm/bf16/chunk32-g2/4x64x4x16x16/fwd' "$T/rep/index.html" &&
	ok "the report lists the skipped mamba_ssm cases" || not_ok "the report does not list the skipped mamba_ssm cases"
finish
