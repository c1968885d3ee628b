# SPDX-License-Identifier: Apache-2.0
"""A GEMM plug-in for the gemm suite (docs/plugins.md, "gemm (Python)"): a tiled Triton matmul, written here.

  gemm: {backends: [blaslt, {plugin: triton-gemm, file: triton_gemm.py, function: matmul}], dtypes: [bf16]}

The kernel is the standard one (Triton's matmul tutorial): one program per BLOCK_M x BLOCK_N tile of C, the tiles
walked in groups of GROUP_M rows so that consecutive programs share A's rows in L2, the K loop accumulating
tl.dot in float32, the result cast to C's type (bf16 in, fp32 accumulate, bf16 out). Both layouts of the suite are
strides of the same kernel: tn (B is N x K, C = A B^T, nn.Linear's weight) reads B transposed, nn (B is K x N) as is.
fp32 inputs use IEEE fp32 dots (Triton would round them to TF32 by default, which the suite's fp32 check refuses).

Autotuning over configurations that suit Hopper (H100/H200: 228 KiB shared memory per SM, 4-5 stages of
128 x 64 bf16 tiles): 128 x 256 and 256 x 128 tiles with 8 warps for the large llama70b shapes, 128 x 128 and
smaller tiles for the narrow ones (N = 1024), keyed on (M, N, K): each shape tunes once per process, on the first
call (the suite's check runs before any timing, so the tuning is not timed).
Needs triton and a CUDA GPU; without them every call raises (the case fails with the reason).
"""
import torch

try:
    import triton
    import triton.language as tl
    HAVE_TRITON = True
except ImportError as e:  # a CPU machine: the module imports, calls say why they cannot run
    HAVE_TRITON, WHY = False, f"triton does not import: {e}"


def _configs():
    shapes = [  # BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, stages, warps
        (128, 256, 64, 8, 3, 8),
        (256, 128, 64, 8, 3, 8),
        (128, 128, 64, 8, 4, 8),
        (128, 128, 64, 8, 4, 4),
        (128, 64, 64, 8, 4, 4),
        (64, 128, 64, 8, 4, 4),
        (128, 256, 32, 8, 4, 8),
        (64, 64, 64, 8, 5, 4),
    ]
    return [triton.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "GROUP_M": g}, num_stages=s, num_warps=w)
            for m, n, k, g, s, w in shapes]


if HAVE_TRITON:
    @triton.autotune(configs=_configs(), key=["M", "N", "K"])
    @triton.jit
    def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       IEEE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m

        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            if IEEE:
                acc = tl.dot(a, b, acc, input_precision="ieee")
            else:
                acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c = acc.to(c_ptr.dtype.element_ty)

        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def matmul(a, b, layout):
    """C = A B^T (layout tn, b is N x K) or A B (nn, b is K x N), in a's dtype, float32 accumulation."""
    if not HAVE_TRITON:
        raise RuntimeError(WHY)
    if a.device.type != "cuda":
        raise RuntimeError("the Triton GEMM needs a CUDA GPU")
    if layout not in ("tn", "nn"):
        raise ValueError(f"layout {layout!r}: tn or nn")
    m, k = a.shape
    if layout == "tn":
        n = b.shape[0]
        stride_bk, stride_bn = b.stride(1), b.stride(0)
    else:
        n = b.shape[1]
        stride_bk, stride_bn = b.stride(0), b.stride(1)
    if b.shape[1 if layout == "tn" else 0] != k:
        raise ValueError(f"shapes {tuple(a.shape)} x {tuple(b.shape)} ({layout}) do not agree on K")
    c = torch.empty((m, n), device=a.device, dtype=a.dtype)

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)
    _matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), stride_bk, stride_bn, c.stride(0), c.stride(1),
                         IEEE=a.dtype == torch.float32)
    return c
