#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 17 smoke run on one GPU (about a minute): attention sdpa / sdpa-flash / flex, fwd and bwd, causal and
sliding window 1024 at seq 4096 (window mask path, check at head_dim 128), and training llama3-8b / mistral-7b with
one layer, bf16 and fp8, compile on for llama (the fp8 linear under torch.compile), mistral at seq 8192 (window
4096 through FlexAttention). One line per record.
  python3 tests/gpu/issue17-smoke.py"""
import json, subprocess, sys, os
att = []
for impl in ("sdpa", "sdpa-flash", "flex"):
    for pas in ("fwd", "bwd"):
        for win in (0, 1024):
            att.append({"suite": "attention", "case": f"{impl}/{pas}/w{win}", "params": {"impl": impl, "batch": 4, "seq_len": 4096, "heads": 16, "head_dim": 128, "pass": pas, "causal": True, "window": win, "dtype": "bf16", "warmup_ms": 30, "rep_ms": 100, "mode": "burst"}})
json.dump({"cases": att}, open("/tmp/att.json", "w"))
tr = [{"suite": "training", "case": f"tr/{p}", "params": {"model": m, "layers": 1, "precision": p, "seq_len": 1024, "micro_batch": 1, "steps": 6, "warmup_steps": 2, "compile": c}} for p in ("bf16", "fp8") for (m, c) in (("llama3-8b", True), ("mistral-7b", False))]
tr[-1]["params"]["seq_len"] = 8192

json.dump({"cases": tr, "gpu_peak": {"gpu": "h200", "bf16_tflops": 989.4, "fp8_tflops": 1978.9, "fp32_tflops": 66.9}}, open("/tmp/tr.json", "w"))
for script, cfg in (("attention.py", "/tmp/att.json"), ("train.py", "/tmp/tr.json")):
    p = subprocess.run([sys.executable, f"runners/torch/{script}", "--config", cfg], capture_output=True, text=True)
    print(p.stderr[-3000:] if p.returncode else "", file=sys.stderr)
    for l in p.stdout.splitlines():
        r = json.loads(l); e = r["extra"]
        keep = {k: e.get(k) for k in ("check", "max_rel_err_vs_math_fp32", "mask_impl", "mfu", "peak_precision", "fp8_impl", "fp8_share_of_n", "reference_check", "attention", "tokens_per_s", "loss_first", "loss_last", "init_loss_expected") if k in e}
        if "reference_check" in keep: keep["reference_check"] = {k: keep["reference_check"].get(k) for k in ("check", "loss_rel_diff", "grad_norm_rel_diff", "why")}
        print(r["case"], r["status"], r["error"], round(r["value"] or 0, 1), json.dumps(keep))
