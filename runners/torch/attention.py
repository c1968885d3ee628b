#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Attention forward/backward throughput (runner contract: docs/architecture.md), timed with Triton's do_bench schedule.
impl: sdpa (PyTorch's choice), sdpa-flash, sdpa-efficient, sdpa-cudnn, sdpa-math (one backend forced), flex
(FlexAttention). FLOPs by the FlashAttention-2 convention: fwd 4 B S^2 H D x attended fraction (0.5 causal),
bwd 2.5 x fwd, fwd+bwd 3.5 x fwd. The backward calls set q/k/v .grad to None first (no accumulation timed). A sliding
window runs through FlexAttention's block mask (flex) or the flash kernel's own window (sdpa-flash, where the build
has one); other backends take a boolean mask. Checked per impl at the case's head_dim and window on a reduced
sequence against the math backend in float32 (output and q/k/v gradients, relative to the reference's largest).
  attention.py --config CASES.json
"""
import contextlib
import math
import sys

import torch
import torch.nn.functional as F

import benchlib as bl
import plugins

SUITE = "attention"
BACKENDS = {"sdpa-flash": "FLASH_ATTENTION", "sdpa-efficient": "EFFICIENT_ATTENTION", "sdpa-cudnn": "CUDNN_ATTENTION",
            "sdpa-math": "MATH"}
PLUGINS = {}  # impl name -> the plug-in's function (docs/plugins.md), registered by run_case
PLUGIN_SIGNATURE = "attention(q, k, v, causal, window) -> out, q/k/v/out (B, H, S, D)"


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


def window_mask(s, window, device):
    i = torch.arange(s, device=device)
    return (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < window)


def flash_window(q, k, v, window):
    """Causal sliding-window attention through a flash kernel's own window (masked blocks skipped): the
    flash-attn package's flash_attn_func where it imports, else ATen's _flash_attention_forward where its schema
    has window_size_left (torch >= 2.5 builds with flash attention). (fn, how) or (None, reason)."""
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))  # (B, S, H, D) views
    try:
        from flash_attn import flash_attn_func
        return (lambda: flash_attn_func(qt, kt, vt, causal=True, window_size=(window - 1, 0)).transpose(1, 2)), \
            "flash_attn.flash_attn_func(window_size=(W-1, 0))"
    except Exception:  # noqa: BLE001 -- not installed: ATen's copy of the kernel
        pass
    op = getattr(torch.ops.aten, "_flash_attention_forward", None)
    if op is None or "window_size_left" not in str(getattr(op.default, "_schema", "")):
        return None, f"this torch ({torch.__version__}) has no flash attention with a native window"

    def fn():
        return op(qt, kt, vt, None, None, q.shape[-2], k.shape[-2], 0.0, True, False,
                  window_size_left=window - 1, window_size_right=0)[0].transpose(1, 2)
    return fn, "torch.ops.aten._flash_attention_forward(window_size_left=W-1, window_size_right=0)"


def make_fn(impl, q, k, v, causal, window):
    """The attention call under test: (fn, how the mask is applied) or (None, reason). Windowed cases: flex
    through a block mask, sdpa-flash through the kernel's own window where the build has one (both skip the
    blocks outside the window), every other SDPA backend through a boolean mask (all T^2 scores computed). A plug-in
    (PLUGINS) is called as fn(q, k, v, causal=causal, window=window) and masks as it likes."""
    if impl in PLUGINS:
        pfn = PLUGINS[impl]
        return (lambda: pfn(q, k, v, causal=causal, window=window)), f"plug-in '{impl}' (its own masking)"
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
        if q.is_cuda:
            # backward is timed on one graph many times (retain_graph=True), which a compiled backward with donated
            # buffers refuses (torch >= 2.5); donation saves memory, not time
            try:
                import torch._functorch.config as fconf
                if hasattr(fconf, "donated_buffer"):
                    fconf.donated_buffer = False
            except ImportError:
                pass
        fx = torch.compile(flex_attention) if q.is_cuda else flex_attention
        return (lambda: fx(q, k, v, block_mask=bm)), "FlexAttention block mask" if mod else "FlexAttention, no mask"
    if impl == "sdpa-flash" and causal and window and q.is_cuda and window < q.shape[-2]:
        fn, how = flash_window(q, k, v, window)
        if fn is not None:
            return fn, how
    ctx, why = backend_ctx(impl)
    if ctx is None:
        return None, why
    mask = window_mask(q.shape[-2], window, q.device) if causal and window else None

    def fn():
        with ctx():
            if mask is None:
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return fn, "causal flag" if causal and mask is None else "boolean mask (all T^2 scores computed)" if mask is not None \
        else "no mask"


def math_attention(q, k, v, causal, window):
    """softmax(q k^T / sqrt(D) + mask) v written out: the reference where this torch has no SDPA math backend."""
    sc = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        sc = sc.masked_fill(~window_mask(q.shape[-2], window or q.shape[-2], q.device), float("-inf"))
    return torch.softmax(sc, -1) @ v


def check_seq(seq, window):
    """The check's reduced sequence: long enough that the window slides (window + 512), at least 512, at most the
    case's own."""
    return min(seq, max(512, window + 512))


def check(impl, dtype, causal, window, head_dim, seq, dev, grads=True):
    """The case's kernel at its own head_dim and window on a reduced sequence (check_seq), against the math
    backend in float32 on the same inputs: max |ours - reference| / max |reference| over the output and the q, k,
    v gradients (one upstream gradient, random; grads False: the output only, a forward-only plug-in)."""
    g = torch.Generator(device="cpu").manual_seed(0)
    shape = (1, 2, check_seq(seq, window), head_dim)
    q, k, v = (torch.randn(shape, generator=g).to(dev, dtype).requires_grad_(grads) for _ in range(3))
    up = torch.randn(shape, generator=g).to(dev)
    fn, why = make_fn(impl, q, k, v, causal, window)
    if fn is None:
        return None, why
    if grads:
        out = fn()
        out.backward(up.to(out.dtype))
        ours = [out.detach().float()] + [x.grad.detach().float() for x in (q, k, v)]
    else:
        with torch.no_grad():
            ours = [fn().detach().float()]
    q32, k32, v32 = (x.detach().float().requires_grad_(grads) for x in (q, k, v))
    if hasattr(F, "scaled_dot_product_attention"):
        ref_fn, why = make_fn("sdpa-math", q32, k32, v32, causal, window)
        if ref_fn is None:
            return None, why
    else:  # torch < 2.0 (a plug-in's check): the same math written out, explicit softmax in float32
        ref_fn = lambda: math_attention(q32, k32, v32, causal, window)  # noqa: E731
    ref = ref_fn()
    want = [ref.detach()]
    if grads:
        ref.backward(up)
        want += [x.grad for x in (q32, k32, v32)]
    err = max((a - b).abs().max().item() / (b.abs().max().item() or 1.0) for a, b in zip(ours, want))
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
    plug = plugins.plugin_of(p)
    if plug is not None:
        pfn, info, why = plugins.load(p, bl.CONFIG)
        rec["extra"]["plugin"] = info
        if why:
            rec["error"] = why
            return rec
        PLUGINS[impl] = pfn
    if not hasattr(F, "scaled_dot_product_attention") and plug is None:
        rec.update(status="skipped", error=f"scaled_dot_product_attention needs torch >= 2.0 (this is {torch.__version__})")
        return rec
    if impl in BACKENDS and impl != "sdpa-math" and dev.type == "cpu":
        rec.update(status="skipped", error=f"{impl} needs a GPU")
        return rec
    try:
        q, k, v = (torch.randn(b, h, s, d, device=dev, dtype=dtype, requires_grad=pas != "fwd") for _ in range(3))
        fn, how = make_fn(impl, q, k, v, causal, window)
        if fn is None:
            rec.update(status="skipped", error=how)
            return rec
        if plug is not None:  # the contract, before anything is timed: its signature, then what one call returns
            why = plugins.signature_error(PLUGINS[impl], impl, (q, k, v), {"causal": causal, "window": window},
                                          PLUGIN_SIGNATURE)
            if why is None:
                try:
                    if pas == "fwd":
                        with torch.no_grad():
                            out = fn()
                    else:
                        out = fn()
                except Exception as e:  # noqa: BLE001 -- the plug-in's own exception: the case's reason
                    rec["error"] = plugins.raised(impl, e)
                    return rec
                why = plugins.tensor_error(impl, out, (b, h, s, d), dtype, q.device) or \
                    (plugins.no_grad_error(impl, out) if pas != "fwd" else None)
                del out
            if why:
                rec["error"] = why
                return rec

        def reset():  # as Triton's do_bench (grad_to_none) and FlashAttention's benchmark: no accumulation
            q.grad = k.grad = v.grad = None
        if pas == "fwd":
            with torch.no_grad():
                timed = fn
                samples, sched, timing = bl.bench_case(timed, p)
        elif pas == "bwd":
            out = fn()
            grad = torch.randn_like(out)

            def bwd():
                reset()
                out.backward(grad, retain_graph=True)
            samples, sched, timing = bl.bench_case(bwd, p)
        else:
            def fwd_bwd():
                reset()
                fn().backward(grad)
            grad = torch.randn(b, h, s, d, device=dev, dtype=dtype)
            samples, sched, timing = bl.bench_case(fwd_bwd, p)
    except Exception as e:  # unsupported shape, backend refusing the inputs, out of memory: a record
        rec["error"] = plugins.raised(impl, e) if plug is not None else \
            f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:300]}"
        return rec
    fwd = bl.attention_fwd_flop(b, s, h, d, causal, window)
    flop = fwd * bl.PASS_FACTOR[pas]
    bl.set_samples(rec, "tflops", "TFLOP/s", samples, lambda ms: flop / (ms * 1e-3) / 1e12)
    ex = rec["extra"]
    ex.update(timing)
    ex.update(schedule=sched, flop=flop, fwd_flop=fwd, density=bl.attention_density(s, causal, window),
              convention="FlashAttention-2: fwd 4BS^2HD x attended fraction; bwd 2.5x; fwd+bwd 3.5x", mask_impl=how)
    if pas != "fwd":
        ex["grad_reset"] = "q/k/v .grad set to None inside the timed call, before each backward"
    key = (impl, p.get("dtype"), causal, window, d, check_seq(s, window))
    if key not in checked:
        try:
            err, why = check(impl, dtype, causal, window, d, s, dev, grads=plugins.has_backward(p))
        except Exception as e:
            err, why = None, f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:200]}"
            if plug is not None:  # a plug-in that cannot be checked is not trusted: the case fails
                why = "PLUGIN:" + plugins.raised(impl, e) + " in the check against the math backend"
        tol = 3e-2 if dtype == torch.bfloat16 else 1e-2  # relative to the reference's largest value
        checked[key] = (err, why, tol)
    err, why, tol = checked[key]
    if why and why.startswith("PLUGIN:"):
        ex["check"] = "wrong"
        rec.update(status="failed", error=why[len("PLUGIN:"):])
    elif why:
        ex["check"] = f"not run: {why}"
    else:
        ex.update(check="ok" if err <= tol else "wrong", max_rel_err_vs_math_fp32=err, check_tolerance=tol,
                  check_shape=[1, 2, check_seq(s, window), d])
        if err > tol:
            rec.update(status="failed", error=f"differs from the math backend by {err:.3g} (tolerance {tol})")
    return rec


def main():
    bl.run_cases(SUITE, "attention.py", run_case)


if __name__ == "__main__":
    main()
