#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A plain triton.testing.do_bench script: the reference for the torch GEMM backends. For each shape (in the
order tests/gpu/torch_gemm_interleaved.py gives): F.linear (bf16, tn), torch.matmul (bf16, nn),
torch._scaled_mm (fp8 e4m3, tn), each do_bench(fn, warmup=30, rep=200, return_mode="median").
  python3 tests/gpu/plain_do_bench.py M,N,K [M,N,K ...]
Prints one line per case: backend M N K TFLOP/s.
"""
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench

torch.manual_seed(0)
one = torch.tensor(1.0, device="cuda")
for shape in sys.argv[1:]:
    m, n, k = (int(v) for v in shape.split(","))
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    x8, w8 = x.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
    for be, fn in (("torch-linear", lambda: F.linear(x, w)), ("torch-matmul", lambda: torch.matmul(x, b)),
                   ("torch-scaled-mm", lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one,
                                                               out_dtype=torch.bfloat16))):
        ms = do_bench(fn, warmup=30, rep=200, return_mode="median")
        print(be, m, n, k, 2.0 * m * n * k / (ms * 1e-3) / 1e12, flush=True)
    del x, w, b, x8, w8
    torch.cuda.empty_cache()
