#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Why is F.linear faster than cuBLASLt's heuristic on 16384x8192x1280 bf16 (tn)? Repeats the interleaved
comparison in both orders, measures F.linear with torch's cuBLASLt backend too, names the kernels each path
launches (torch.profiler), and screens cuBLASLt's top 32 candidates with bench-gemm.
  python3 tests/gpu/probe_linear.py --runners build/runners
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F
from triton.testing import do_bench

M, N, K = 16384, 8192, 1280


def tfl(ms):
    return 2.0 * M * N * K / (ms * 1e-3) / 1e12


def ours(runner, tune):
    p = {"backend": "blaslt", "dtype": "bf16", "layout": "tn", "m": M, "n": N, "k": K, "tune": tune, "warmup_ms": 30.0,
         "rep_ms": 200.0, "flush_l2": True, "flush_bytes": "auto", "init": "normal", "seed": 0, "workspace": "auto", "check": True}
    cases = [{"case": "h", "params": dict(p, algo="heuristic")}, {"case": "t", "params": dict(p, algo=f"tune{tune}")}]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"cases": cases}, f)
    out = subprocess.run([runner, "--config", f.name], check=True, capture_output=True, text=True).stdout
    os.unlink(f.name)
    return [json.loads(l) for l in out.splitlines()]


def kernels(fn):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
    return sorted({e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runners", default="build/runners")
    a = ap.parse_args()
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
    res = {"rounds": []}
    for rnd in range(2):
        for order in (("torch", "ours"), ("ours", "torch")):
            row = {"order": order}
            for step in order:
                time.sleep(1.0)
                if step == "torch":
                    row["linear"] = tfl(do_bench(lambda: F.linear(x, w), warmup=30, rep=200, return_mode="median"))
                else:
                    h, t = ours(os.path.join(a.runners, "bench-gemm"), 32)
                    row["ours_heuristic"] = h["value"]
                    row["ours_tune32"] = t["value"]
                    row["ours_algo"] = h["extra"]["algo"]
                    row["tune32_algo"] = t["extra"]["algo"]
                    row["screened"] = t["extra"]["tune"]["screened_tflops"]
            res["rounds"].append(row)
            print(row, file=sys.stderr)
    res["kernels_linear_cublas"] = kernels(lambda: F.linear(x, w))
    try:
        torch.backends.cuda.preferred_blas_library("cublaslt")
        time.sleep(1.0)
        res["linear_via_cublaslt"] = tfl(do_bench(lambda: F.linear(x, w), warmup=30, rep=200, return_mode="median"))
        res["kernels_linear_cublaslt"] = kernels(lambda: F.linear(x, w))
        torch.backends.cuda.preferred_blas_library("cublas")
    except Exception as e:  # older torch
        res["linear_via_cublaslt"] = str(e)
    print(json.dumps({k: v for k, v in res.items() if k != "rounds"}, indent=1), file=sys.stderr)
    json.dump(res, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
