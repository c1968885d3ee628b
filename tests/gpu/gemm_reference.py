#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The PyTorch references of the native suites, timed with Triton's own do_bench (median).

For each shape: F.linear(a, w) (layout tn), torch.matmul(a, b) (layout nn), torch._scaled_mm (fp8 e4m3, tn);
and Tensor.copy_ of a 2 GiB buffer. Inputs N(0,1). Prints one JSON object.
  python3 tests/gpu/gemm_reference.py [--shapes llama70b] [--warmup 30] [--rep 200]
"""
import argparse
import json
import sys

import torch
import torch.nn.functional as F
import triton
from triton.testing import do_bench

LLAMA70B = [(16384, 8192, 1280), (16384, 1024, 8192), (16384, 8192, 7168), (16384, 3584, 8192), (8192, 8192, 8192)]


def tflops(m, n, k, ms):
    return 2.0 * m * n * k / (ms * 1e-3) / 1e12


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warmup", type=float, default=30)
    ap.add_argument("--rep", type=float, default=200)
    ap.add_argument("--copy-bytes", type=int, default=2 << 30)
    a = ap.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    out = {"torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(0), "warmup_ms": a.warmup, "rep_ms": a.rep, "gemm": [], "copy": {}}
    one = torch.tensor(1.0, device=dev)
    for (m, n, k) in LLAMA70B:
        x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        w = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        row = {"m": m, "n": n, "k": k}
        row["linear_bf16"] = tflops(m, n, k, do_bench(lambda: F.linear(x, w), warmup=a.warmup, rep=a.rep, return_mode="median"))
        row["matmul_bf16"] = tflops(m, n, k, do_bench(lambda: torch.matmul(x, b), warmup=a.warmup, rep=a.rep, return_mode="median"))
        x8 = x.to(torch.float8_e4m3fn)
        w8 = w.to(torch.float8_e4m3fn)
        row["scaled_mm_fp8"] = tflops(m, n, k, do_bench(lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
                                                        warmup=a.warmup, rep=a.rep, return_mode="median"))
        out["gemm"].append(row)
        print(f"reference {m}x{n}x{k}: linear {row['linear_bf16']:.1f} matmul {row['matmul_bf16']:.1f} "
              f"scaled_mm {row['scaled_mm_fp8']:.1f} TFLOP/s", file=sys.stderr)
        del x, w, b, x8, w8
    src = torch.empty(a.copy_bytes, dtype=torch.uint8, device=dev).random_()
    dst = torch.empty_like(src)
    ms = do_bench(lambda: dst.copy_(src), warmup=a.warmup, rep=a.rep, return_mode="median")
    out["copy"] = {"bytes": a.copy_bytes, "median_ms": ms, "tbps": 2.0 * a.copy_bytes / (ms * 1e-3) / 1e12}
    print(f"reference copy_ {a.copy_bytes} B: {out['copy']['tbps']:.3f} TB/s", file=sys.stderr)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
