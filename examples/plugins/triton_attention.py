# SPDX-License-Identifier: Apache-2.0
"""An attention plug-in for the attention suite (docs/plugins.md, "attention"): a FlashAttention-2 style forward
written here in Triton, and a backward in PyTorch, blockwise from the forward's saved log-sum-exp.

  attention: {impl: [sdpa, {plugin: triton-fa, file: triton_attention.py, function: attention}]}

Forward (Triton): one program per BLOCK_M queries of one (batch, head); the keys and values stream through in
BLOCK_N blocks with the online softmax (running maximum and sum in float32, exp2 with the scale folded in), the
output accumulated in float32 and divided once at the end; the row's log-sum-exp is stored beside it. Causal runs
skip the key blocks above the diagonal and mask only the diagonal ones; a sliding window (causal, keys
i - window < j <= i) starts at the window's first block and masks every block.

Backward (PyTorch, a torch.autograd.Function): the FlashAttention-2 backward written with torch matmuls, over blocks
of BWD_BLOCK queries, each against only the keys it can see (causal: those up to the block's end; window: from the
window's start): P recomputed from Q K^T (in float32 out of the GEMM where torch.bmm takes out_dtype) and the saved
log-sum-exp, dV += P^T dO, dP = dO V^T,
dS = P (dP - rowsum(dO * O)), dQ = dS K scale, dK += dS^T Q scale. The matmuls run in the inputs' dtype (bf16
tensor cores), P and dS in float32 between them and cast for the matmul, dQ/dK/dV accumulated in float32: memory is
one block's (B, H, BWD_BLOCK, keys) scores at a time, never the S x S matrix.

Needs triton and a CUDA GPU for the forward; backward_blockwise() is plain PyTorch and runs anywhere (the CPU tests
check it against autograd: tests/torch/test_plugin_examples.py).
"""
import math

import torch

try:
    import triton
    import triton.language as tl
    HAVE_TRITON = True
except ImportError as e:  # a CPU machine: the module imports, the forward says why it cannot run
    HAVE_TRITON, WHY = False, f"triton does not import: {e}"

BWD_BLOCK = 1024  # queries per backward block


if HAVE_TRITON:
    @triton.jit
    def _attn_inner(acc, l_i, m_i, q, k_base, v_base, lo, hi, offs_m, S, WINDOW, qk_scale,
                    MASKED: tl.constexpr, CAUSAL: tl.constexpr, HAS_WINDOW: tl.constexpr,
                    BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
        offs_d = tl.arange(0, HEAD_DIM)
        for start_n in range(lo, hi, BLOCK_N):
            start_n = tl.multiple_of(start_n, BLOCK_N)
            offs_n = start_n + tl.arange(0, BLOCK_N)
            kv_mask = offs_n[:, None] < S
            k = tl.load(k_base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=kv_mask, other=0.0)
            qk = tl.dot(q, tl.trans(k)) * qk_scale
            if MASKED:
                ok = offs_n[None, :] < S
                if CAUSAL:
                    ok = ok & (offs_n[None, :] <= offs_m[:, None])
                if HAS_WINDOW:
                    ok = ok & (offs_m[:, None] - offs_n[None, :] < WINDOW)
                qk = qk + tl.where(ok, 0.0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.math.exp2(qk - m_ij[:, None])
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            v = tl.load(v_base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=kv_mask, other=0.0)
            acc = tl.dot(p.to(v.dtype), v, acc)
            m_i = m_ij
        return acc, l_i, m_i

    @triton.autotune(configs=[triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
                              for bm, bn, s, w in ((128, 64, 3, 8), (128, 128, 3, 8), (128, 64, 4, 4),
                                                   (64, 64, 4, 4))],
                     key=["S", "HEAD_DIM", "CAUSAL", "HAS_WINDOW"])
    @triton.jit
    def _attn_fwd(Q, K, V, O, LSE, S, WINDOW, sm_scale,
                  CAUSAL: tl.constexpr, HAS_WINDOW: tl.constexpr, HEAD_DIM: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        start_m = tl.program_id(0)
        bh = tl.program_id(1).to(tl.int64)
        base = bh * S * HEAD_DIM
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_d = tl.arange(0, HEAD_DIM)
        q_mask = offs_m[:, None] < S
        q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=q_mask, other=0.0)
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        qk_scale = sm_scale * 1.44269504088896  # exp(x) = exp2(x log2 e)
        q_start = start_m * BLOCK_M
        q_end = tl.minimum(q_start + BLOCK_M, S)
        if HAS_WINDOW:  # causal with a window: from the window's first block, every block masked
            lo = tl.maximum(q_start - WINDOW + 1, 0) // BLOCK_N * BLOCK_N
            acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K + base, V + base, lo, q_end, offs_m, S, WINDOW,
                                        qk_scale, True, True, True, BLOCK_N, HEAD_DIM)
        elif CAUSAL:  # the blocks below the diagonal unmasked, the diagonal ones masked
            acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K + base, V + base, 0, q_start, offs_m, S, WINDOW,
                                        qk_scale, False, True, False, BLOCK_N, HEAD_DIM)
            acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K + base, V + base, q_start, q_end, offs_m, S, WINDOW,
                                        qk_scale, True, True, False, BLOCK_N, HEAD_DIM)
        else:  # full: whole blocks unmasked, the last partial one masked
            full = S // BLOCK_N * BLOCK_N
            acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K + base, V + base, 0, full, offs_m, S, WINDOW,
                                        qk_scale, False, False, False, BLOCK_N, HEAD_DIM)
            acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K + base, V + base, full, S, offs_m, S, WINDOW,
                                        qk_scale, True, False, False, BLOCK_N, HEAD_DIM)
        out = acc / l_i[:, None]
        tl.store(LSE + bh * S + offs_m, (m_i + tl.math.log2(l_i)) * 0.6931471805599453, mask=offs_m < S)
        tl.store(O + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], out.to(O.dtype.element_ty), mask=q_mask)


def forward_triton(q, k, v, causal, window):
    """(out (B, H, S, D) in q's dtype, lse (B, H, S) float32, natural log) by the Triton kernel."""
    if not HAVE_TRITON:
        raise RuntimeError(WHY)
    if q.device.type != "cuda":
        raise RuntimeError("the Triton attention forward needs a CUDA GPU")
    b, h, s, d = q.shape
    if d not in (16, 32, 64, 128, 256):
        raise ValueError(f"head_dim {d}: this kernel takes a power of two from 16 to 256")
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty_like(q)
    lse = torch.empty((b, h, s), device=q.device, dtype=torch.float32)

    def grid(meta):
        return (triton.cdiv(s, meta["BLOCK_M"]), b * h)
    _attn_fwd[grid](q, k, v, o, lse, s, max(int(window), 1), 1.0 / math.sqrt(d),
                    CAUSAL=bool(causal), HAS_WINDOW=bool(causal and window), HEAD_DIM=d)
    return o, lse


_OUT_DTYPE = []  # whether torch.bmm takes out_dtype here (bf16 in, float32 out: torch >= 2.8 on CUDA)


def _mm32(a, b):
    """a @ b for (B, H, m, k) x (B, H, k, n), the result in float32: straight from the GEMM's float32 accumulator
    where torch.bmm takes out_dtype (no rounding of the scores to bf16 before the exp), else rounded and cast."""
    if a.dtype != torch.float32 and a.is_cuda and _OUT_DTYPE != [False]:
        try:
            out = torch.bmm(a.reshape(-1, *a.shape[-2:]), b.reshape(-1, *b.shape[-2:]), out_dtype=torch.float32)
            if not _OUT_DTYPE:
                _OUT_DTYPE.append(True)
            return out.reshape(*a.shape[:-1], b.shape[-1])
        except (TypeError, RuntimeError):
            _OUT_DTYPE[:] = [False]
    return torch.matmul(a, b).float()


def backward_blockwise(q, k, v, o, lse, do, causal, window, block=BWD_BLOCK):
    """dq, dk, dv of softmax(q k^T / sqrt(d) + mask) v, from the forward's output o and its log-sum-exp lse (natural
    log, float32), over blocks of `block` queries each against the keys it can see. Plain PyTorch."""
    b, h, s, d = q.shape
    scale = 1.0 / math.sqrt(d)
    dt = q.dtype
    delta = (do.float() * o.float()).sum(-1)  # rowsum(dO * O) = rowsum(P * dP)
    dq = torch.zeros(q.shape, device=q.device, dtype=torch.float32)
    dk = torch.zeros(k.shape, device=q.device, dtype=torch.float32)
    dv = torch.zeros(v.shape, device=q.device, dtype=torch.float32)
    for s0 in range(0, s, block):
        s1 = min(s, s0 + block)
        k_lo = max(0, s0 - window + 1) if (causal and window) else 0
        k_hi = s1 if causal else s
        qb, dob = q[:, :, s0:s1], do[:, :, s0:s1]
        kb, vb = k[:, :, k_lo:k_hi], v[:, :, k_lo:k_hi]
        sc = _mm32(qb, kb.transpose(-1, -2)) * scale
        if causal:
            i = torch.arange(s0, s1, device=q.device)[:, None]
            j = torch.arange(k_lo, k_hi, device=q.device)[None, :]
            ok = j <= i
            if window:
                ok = ok & (i - j < window)
            sc = sc.masked_fill(~ok, float("-inf"))
        p = torch.exp(sc - lse[:, :, s0:s1, None])
        del sc
        dv[:, :, k_lo:k_hi] += torch.matmul(p.to(dt).transpose(-1, -2), dob).float()
        dp = _mm32(dob, vb.transpose(-1, -2))
        ds = (p * (dp - delta[:, :, s0:s1, None])).to(dt)
        del p, dp
        dq[:, :, s0:s1] = torch.matmul(ds, kb).float() * scale
        dk[:, :, k_lo:k_hi] += torch.matmul(ds.transpose(-1, -2), qb).float() * scale
    return dq.to(dt), dk.to(dt), dv.to(dt)


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal, window):
        o, lse = forward_triton(q, k, v, causal, window)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.causal, ctx.window = causal, window
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = backward_blockwise(q, k, v, o, lse, do.contiguous(), ctx.causal, ctx.window)
        return dq, dk, dv, None, None


def attention(q, k, v, causal, window):
    """The plug-in's entry (docs/plugins.md): q, k, v (B, H, S, D) -> out (B, H, S, D), differentiable."""
    return _Attention.apply(q, k, v, bool(causal), int(window or 0))
