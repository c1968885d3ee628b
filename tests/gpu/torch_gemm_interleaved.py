#!/usr/bin/env python3
"""The torch GEMM backends (runners/torch/gemm.py, run as bench runs it) against a plain
triton.testing.do_bench(fn, warmup=30, rep=200, return_mode="median") script, interleaved with equal idle
before every measurement (see tests/gpu/interleaved.py for why). Prints JSON; the bar is +/-3%.
  python3 tests/gpu/torch_gemm_interleaved.py [--cooldown 1.0]
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

SHAPES = [(16384, 8192, 1280), (16384, 1024, 8192), (16384, 8192, 7168), (16384, 3584, 8192), (8192, 8192, 8192)]
HERE = os.path.dirname(os.path.abspath(__file__))
GEMM_PY = os.path.join(HERE, "..", "..", "runners", "torch", "gemm.py")


def ours(backend, dtype, layout, m, n, k):
    p = {"backend": backend, "dtype": dtype, "layout": layout, "m": m, "n": n, "k": k, "algo": "default", "tune": 0,
         "warmup_ms": 30.0, "rep_ms": 200.0, "flush_l2": True, "flush_bytes": "auto", "init": "normal", "seed": 0,
         "workspace": "auto", "check": True}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"cases": [{"suite": "gemm", "case": "x", "params": p}]}, f)
    out = subprocess.run([sys.executable, GEMM_PY, "--config", f.name], capture_output=True, text=True, check=True).stdout
    os.unlink(f.name)
    return json.loads(out.splitlines()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cooldown", type=float, default=1.0)
    a = ap.parse_args()
    res = {"torch": torch.__version__, "rows": []}
    one = torch.tensor(1.0, device="cuda")
    for si, (m, n, k) in enumerate(SHAPES):
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        x8, w8 = x.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
        pairs = [("torch-linear", "bf16", "tn", lambda: F.linear(x, w)),
                 ("torch-matmul", "bf16", "nn", lambda: torch.matmul(x, b)),
                 ("torch-scaled-mm", "fp8e4m3", "tn",
                  lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))]
        for pj, (be, dt, lay, fn) in enumerate(pairs):
            row = {"m": m, "n": n, "k": k, "backend": be, "dtype": dt, "layout": lay}
            order = ["ref", "ours"] if (si + pj) % 2 == 0 else ["ours", "ref"]
            for step in order:
                time.sleep(a.cooldown)
                if step == "ref":
                    row["ref_tflops"] = 2 * m * n * k / (do_bench(fn, warmup=30, rep=200, return_mode="median") * 1e-3) / 1e12
                else:
                    r = ours(be, dt, lay, m, n, k)
                    assert r["status"] == "ok", r["error"]
                    row["ours_tflops"], row["check"] = r["value"], r["extra"].get("check")
            row["ratio"] = row["ours_tflops"] / row["ref_tflops"]
            row["order"] = order[0] + " first"
            print(f"{m}x{n}x{k} {be} {dt} {lay}: ours {row['ours_tflops']:.1f} ref {row['ref_tflops']:.1f} ratio {row['ratio']:.3f}",
                  file=sys.stderr)
            res["rows"].append(row)
        del x, w, b, x8, w8
        torch.cuda.empty_cache()
    json.dump(res, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
