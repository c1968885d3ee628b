#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The plug-in examples' parts that run without a GPU (TAP output): the attention example's blockwise PyTorch
backward against autograd through the explicit softmax, causal, full and windowed, with blocks that do not divide
the sequence; a wrong backward (the rowsum term dropped) caught; both examples import without triton and say why a
call cannot run. The Triton kernels themselves run on the GPU only (tests/gpu/plugins-h200.sh).
  python3 tests/torch/test_plugin_examples.py
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "plugins"))
import torch  # noqa: E402

import triton_attention  # noqa: E402
import triton_gemm  # noqa: E402
import tap  # noqa: E402
from tap import Skip  # noqa: E402


def reference(q, k, v, causal, window):
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    t = q.shape[-2]
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    ok = torch.ones(t, t, dtype=torch.bool)
    if causal:
        ok = j <= i
        if window:
            ok = ok & (i - j < window)
    s = s.masked_fill(~ok, float("-inf"))
    return torch.softmax(s, -1) @ v, torch.logsumexp(s, -1)


def grads(causal, window, block, s=50, fault=False):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, s, 16, generator=g, dtype=torch.float64).requires_grad_() for _ in range(3))
    do = torch.randn(2, 3, s, 16, generator=g, dtype=torch.float64)
    o, lse = reference(q, k, v, causal, window)
    want = torch.autograd.grad(o, (q, k, v), do)
    o, lse = o.detach(), lse.detach()
    if fault:  # dS = P dP, without the rowsum(dO * O) term
        o = torch.zeros_like(o)
    got = triton_attention.backward_blockwise(q.detach(), k.detach(), v.detach(), o, lse, do, causal, window, block)
    return max(float((a - b).abs().max() / b.abs().max()) for a, b in zip(got, want))


def test_blockwise_backward_matches_autograd():
    for causal, window in ((True, 0), (False, 0), (True, 7), (True, 64)):
        for block in (16, 50, 64):
            err = grads(causal, window, block)
            assert err < 1e-5, (causal, window, block, err)  # float32 accumulation (measured ~3e-7)


def test_a_wrong_backward_is_caught():
    assert grads(True, 0, 16, fault=True) > 1e-2


def test_examples_import_without_triton_and_say_why():
    if triton_gemm.HAVE_TRITON:
        raise Skip("triton imports here")
    x = torch.zeros(4, 4, dtype=torch.bfloat16)
    for call in (lambda: triton_gemm.matmul(x, x, "tn"), lambda: triton_attention.attention(x[None, None], x[None, None],
                                                                                             x[None, None], True, 0)):
        try:
            call()
        except RuntimeError as e:
            assert str(e).startswith("triton does not import"), e
        else:
            raise AssertionError("a call without triton did not raise")


if __name__ == "__main__":
    tap.main(globals())
