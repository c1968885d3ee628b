#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A reference for the attention suite, timed the way FlashAttention's own benchmark times (its
benchmarks/benchmark_flash_attention.py with flash_attn.utils.benchmark; written here from that description, no code
of it): torch.utils.benchmark.Timer over `repeats` calls, the mean time; the backward is y.backward(grad,
retain_graph=True) on one forward's output with every input's .grad set to None inside the timed call (no gradient
accumulation); FLOPs 4·B·S²·H·D, halved when causal, backward 2.5x the forward. The kernel: PyTorch's SDPA forced to
its flash backend, bf16, causal, width 2048 (H = 2048 / D), 16k tokens per batch, as the suite's defaults.
  python3 tests/gpu/attention_fa_convention.py [--seq 2048,4096,8192] [--repeats 30] > ref.jsonl"""
import argparse
import json

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils import benchmark


def mean_ms(fn, repeats):
    t = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=torch.get_num_threads())
    return t.timeit(repeats).mean * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seq", default="2048,4096,8192")
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--tokens", type=int, default=16384)
    a = ap.parse_args()
    d = a.head_dim
    h = 2048 // d
    for s in map(int, a.seq.split(",")):
        b = a.tokens // s
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
            for _ in range(3):
                fwd()
            f_ms = mean_ms(fwd, a.repeats)
            y = fwd()
            g = torch.randn_like(y)

            def bwd():
                for x in (q, k, v):
                    x.grad = None
                y.backward(g, retain_graph=True)
            for _ in range(3):
                bwd()
            b_ms = mean_ms(bwd, a.repeats)
        flop = 4 * b * s * s * h * d / 2
        for p, ms, fl in (("fwd", f_ms, flop), ("bwd", b_ms, 2.5 * flop)):
            print(json.dumps({"seq": s, "batch": b, "heads": h, "head_dim": d, "pass": p, "ms": ms,
                              "tflops": fl / (ms * 1e-3) / 1e12}), flush=True)


if __name__ == "__main__":
    main()
