#!/usr/bin/env python3
"""Attention forward/backward throughput (runner contract: docs/architecture.md), timed with Triton's do_bench schedule.
impl: sdpa (PyTorch's choice), sdpa-flash, sdpa-efficient, sdpa-cudnn, sdpa-math (one backend forced), flex
(FlexAttention). FLOPs by the FlashAttention-2 convention: fwd 4 B S^2 H D x attended fraction (0.5 causal),
bwd 2.5 x fwd, fwd+bwd 3.5 x fwd. A numerical check against the math backend on a small case, per impl.
  attention.py --config CASES.json
"""
import contextlib
import sys

import torch
import torch.nn.functional as F

import benchlib as bl

SUITE = "attention"
BACKENDS = {"sdpa-flash": "FLASH_ATTENTION", "sdpa-efficient": "EFFICIENT_ATTENTION", "sdpa-cudnn": "CUDNN_ATTENTION",
            "sdpa-math": "MATH"}


def backend_ctx(impl):
    """A factory of contexts forcing one SDPA backend (a fresh context per call: they are single-use), or None
    with the reason when this torch cannot."""
    if impl == "sdpa":
        return contextlib.nullcontext, None
    name = BACKENDS[impl]
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        if not hasattr(SDPBackend, name):
            return None, f"this torch ({torch.__version__}) has no SDPA backend {name}"
        return (lambda: sdpa_kernel([getattr(SDPBackend, name)])), None
    except ImportError:
        pass
    if impl == "sdpa-cudnn":
        return None, f"this torch ({torch.__version__}) has no cuDNN SDPA backend"
    flags = {"sdpa-flash": dict(enable_flash=True, enable_math=False, enable_mem_efficient=False),
             "sdpa-efficient": dict(enable_flash=False, enable_math=False, enable_mem_efficient=True),
             "sdpa-math": dict(enable_flash=False, enable_math=True, enable_mem_efficient=False)}[impl]
    return (lambda: torch.backends.cuda.sdp_kernel(**flags)), None


def make_fn(impl, q, k, v, causal, window):
    """The attention call under test, or (None, reason)."""
    if impl == "flex":
        try:
            from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        except ImportError:
            return None, f"FlexAttention needs torch >= 2.5 (this is {torch.__version__})"
        s = q.shape[-2]
        if causal and window:
            mod = lambda b, h, qi, ki: (qi >= ki) & (qi - ki < window)  # noqa: E731
        elif causal:
            mod = lambda b, h, qi, ki: qi >= ki  # noqa: E731
        else:
            mod = None
        bm = create_block_mask(mod, None, None, s, s, device=q.device) if mod else None
        fx = torch.compile(flex_attention) if q.is_cuda else flex_attention
        return (lambda: fx(q, k, v, block_mask=bm)), None
    ctx, why = backend_ctx(impl)
    if ctx is None:
        return None, why
    mask = None
    if causal and window:
        i = torch.arange(q.shape[-2], device=q.device)
        mask = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < window)

    def fn():
        with ctx():
            if mask is None:
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return fn, None


def check(impl, dtype, causal, window, dev):
    """Max |ours - math| on a small case, in the case's dtype, forward and q gradient."""
    g = torch.Generator(device="cpu").manual_seed(0)
    shape = (1, 2, 128, 64)
    q, k, v = (torch.randn(shape, generator=g).to(dev, dtype).requires_grad_() for _ in range(3))
    fn, why = make_fn(impl, q, k, v, causal, window)
    if fn is None:
        return None, why
    out = fn()
    out.float().sum().backward()
    gq = q.grad.detach().clone()
    q.grad = None
    ref_fn, _ = make_fn("sdpa-math", q, k, v, causal, window)
    ref = ref_fn()
    ref.float().sum().backward()
    err = max((out.float() - ref.float()).abs().max().item(), (gq.float() - q.grad.float()).abs().max().item())
    return err, None


def run_case(case, first, checked):
    p = case["params"]
    rec = bl.record(SUITE, case)
    if first:
        rec["extra"]["device"] = bl.device_info()
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[p.get("dtype", "bf16")]
    impl, b, s, h, d = p["impl"], int(p["batch"]), int(p["seq_len"]), int(p["heads"]), int(p["head_dim"])
    causal, window, pas = bool(p.get("causal", True)), int(p.get("window", 0)), p.get("pass", "fwd")
    if not hasattr(F, "scaled_dot_product_attention"):
        rec.update(status="skipped", error=f"scaled_dot_product_attention needs torch >= 2.0 (this is {torch.__version__})")
        return rec
    if impl in BACKENDS and impl != "sdpa-math" and dev.type == "cpu":
        rec.update(status="skipped", error=f"{impl} needs a GPU")
        return rec
    try:
        q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=dtype, requires_grad=pas != "fwd") for _ in range(3))
        fn, why = make_fn(impl, q, k, v, causal, window)
        if fn is None:
            rec.update(status="skipped", error=why)
            return rec
        if pas == "fwd":
            with torch.no_grad():
                timed = fn
                samples, sched, timing = bl.bench_case(timed, p)
        elif pas == "bwd":
            out = fn()
            grad = torch.randn_like(out)
            samples, sched, timing = bl.bench_case(lambda: out.backward(grad, retain_graph=True), p)
        else:
            def fwd_bwd():
                fn().backward(grad)
            grad = torch.randn(b, h, s, d, device=dev, dtype=dtype)
            samples, sched, timing = bl.bench_case(fwd_bwd, p)
    except Exception as e:  # unsupported shape, backend refusing the inputs, out of memory: a record
        rec["error"] = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:300]}"
        return rec
    fwd = bl.attention_fwd_flop(b, s, h, d, causal, window)
    flop = fwd * bl.PASS_FACTOR[pas]
    bl.set_samples(rec, "tflops", "TFLOP/s", samples, lambda ms: flop / (ms * 1e-3) / 1e12)
    ex = rec["extra"]
    ex.update(timing)
    ex.update(schedule=sched, flop=flop, fwd_flop=fwd, density=bl.attention_density(s, causal, window),
              convention="FlashAttention-2: fwd 4BS^2HD x attended fraction; bwd 2.5x; fwd+bwd 3.5x")
    key = (impl, p.get("dtype"), causal, window)
    if key not in checked:
        try:
            err, why = check(impl, dtype, causal, window, dev)
        except Exception as e:
            err, why = None, f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:200]}"
        tol = 2e-2 if dtype == torch.bfloat16 else 5e-3
        checked[key] = (err, why, tol)
    err, why, tol = checked[key]
    if why:
        ex["check"] = f"not run: {why}"
    else:
        ex.update(check="ok" if err <= tol else "wrong", max_abs_err_vs_math=err, check_tolerance=tol)
        if err > tol:
            rec.update(status="failed", error=f"differs from the math backend by {err:.3g} (tolerance {tol})")
    return rec


def main():
    _, cases = bl.load_config(SUITE)
    print(f"attention.py: {len(cases)} case(s), torch {torch.__version__}", file=sys.stderr)
    checked = {}
    for i, c in enumerate(cases):
        rec = run_case(c, i == 0, checked)
        print(f"attention.py: [{i + 1}/{len(cases)}] {c['case']}: {rec['status']} {rec['value'] or ''}", file=sys.stderr)
        bl.emit(rec)


if __name__ == "__main__":
    main()
