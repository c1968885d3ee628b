#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mamba2 SSD (state-space duality) layer forward/backward throughput (runner contract: docs/architecture.md), timed
with Triton's do_bench schedule like attention.py.
impl: torch (ssd_chunked below: the chunked SSD algorithm of the Mamba2 paper in plain PyTorch, ssd_minimal style,
wrapped in torch.compile on GPUs where that works, else eager, extra.compile says which), mamba_ssm (its Triton
kernel mamba_chunk_scan_combined; skipped with the reason where it does not import or there is no GPU).
Inputs as Mamba2 feeds the kernel: x (b, l, h, p) and B, C (b, l, g, n) in the case's dtype; dt (b, l, h) after the
softplus and A (h) < 0 in float32. No D skip, no z gate, no initial state.

FLOPs (the chunked algorithm's matmuls, 2 m n k each; elementwise decays and the segsum are not counted, as the
softmax is not in attention's convention). B batch, L seq_len, H heads, P head_dim, N state, G groups, Q chunk,
L/Q chunks:
  per chunk and group: C.B^T scores              (Q x N)(N x Q)   2 Q^2 N
  per chunk and head:  scores.X (diagonal block)  (Q x Q)(Q x P)   2 Q^2 P
                       B-weighted X -> state      (N x Q)(Q x P)   2 Q N P
                       C.state -> output          (Q x N)(N x P)   2 Q N P
  per chunk and head:  the inter-chunk state pass, h_c = exp(sum A dt) h_(c-1) + s_c    2 P N
  fwd = 2 B L [G Q N + H P (Q + 2 N)] + 2 B H P N L/Q;  bwd = 2 x fwd;  fwd_bwd = 3 x fwd.
Blocks count in full (the causal mask inside a chunk is not halved). ssd_chunked runs the state pass as
ssd_minimal does, one (L/Q + 1)^2 decay matmul over the chunk states, more work than the recurrence counted (at the
defaults 0.9% of the count at 2k, 1.6% at 4k, 3.2% at 8k, uncounted); the count is the same for every impl, so
their figures compare.

Correctness: each impl (the timed callable itself) runs on a small problem (b 1, l 128, chunk 32, h 4, p 16, n 16,
g 2; Triton's dots want sizes of 16 and more) in float32 and in the case's dtype against a naive sequential scan in
float32 (h_t = exp(dt_t A) h_(t-1) + dt_t B_t x_t^T, y_t = C_t h_t): the output and the gradients of x, dt, A, B, C
for one random upstream gradient, max |ours - scan| / max |scan| over them. float32 must agree within 1e-3
(mamba_ssm 5e-3: its Triton dots round float32 inputs to TF32), the case's dtype within 5e-2; a larger error fails
the case (extra.check "wrong").
  ssm.py --config CASES.json
"""
import sys

import torch
import torch.nn.functional as F

import benchlib as bl
import plugins

SUITE = "ssm"
FLOP_CONVENTION = ("chunked SSD matmuls, 2mnk each: fwd 2BL[GQN + HP(Q + 2N)] + 2BHPN L/Q (per chunk: C.B^T per "
                   "group, scores.X, B-weighted X into states and C.states per head; the inter-chunk state pass "
                   "2PN per chunk and head); bwd 2x; fwd+bwd 3x")
CHECK = {"batch": 1, "seq_len": 128, "chunk": 32, "heads": 4, "head_dim": 16, "state": 16, "groups": 2}
CHECK_TOL = {"fp32": 1e-3, "fp32_tf32": 5e-3, "low": 5e-2}
PLUGIN_SIGNATURE = "ssd(x, dt, A, B, C, chunk) -> y, x/y (b, l, h, p), dt (b, l, h), A (h), B/C (b, l, g, n)"


def segsum(x, cumsum=torch.cumsum):
    """x (..., T) -> (..., T, T): out[i, j] = x[j+1] + ... + x[i] for j <= i (0 on the diagonal), -inf above it
    (exp of it is the decay from step j to step i, 0 where j > i). The stable form: masked cumulative sums, no
    differences of large sums."""
    t = x.size(-1)
    x = x[..., None].expand(*x.shape, t)                     # [..., i, j] = x_i
    strict = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=-1)
    s = cumsum(x.masked_fill(~strict, 0), dim=-2)            # sum of x_k for j < k <= i
    lower = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=0)
    return s.masked_fill(~lower, float("-inf"))


def ssd_chunked(x, dt, A, B, C, chunk, cumsum=torch.cumsum):
    """The chunked SSD algorithm (Mamba2 paper, ssd_minimal), plain PyTorch. x (b, l, h, p), dt (b, l, h) after the
    softplus, A (h) negative, B and C (b, l, g, n); l a multiple of chunk, h of g. Returns y (b, l, h, p) in x's
    dtype. Decays in float32; matmul operands in x's dtype. cumsum: the cumulative sum used (torch.cumsum; under
    torch.compile, one that runs outside the graph where inductor cannot generate the scan)."""
    b, l, h, p = x.shape
    g, n = B.shape[-2], B.shape[-1]
    r, c, q = h // g, l // chunk, chunk
    dtype = x.dtype
    xd = (x * dt[..., None]).to(dtype).reshape(b, c, q, g, r, p)     # dt-weighted input
    a = (dt.float() * A.float()).reshape(b, c, q, h).permute(0, 3, 1, 2)  # (b, h, c, q) log-decay per step
    a_cum = cumsum(a, dim=-1)
    Bc, Cc = B.reshape(b, c, q, g, n), C.reshape(b, c, q, g, n)
    # 1. diagonal blocks: scores C.B^T per group, times the decay between positions, times x
    cb = torch.einsum("bclgn,bcsgn->bgcls", Cc, Bc)                  # (b, g, c, q, q)
    decay = torch.exp(segsum(a, cumsum)).reshape(b, g, r, c, q, q)
    scores = (cb[:, :, None] * decay.to(dtype))                       # (b, g, r, c, q, q)
    y_diag = torch.einsum("bgrcls,bcsgrp->bclgrp", scores, xd)
    # 2. each chunk's state: x weighted by B and the decay to the chunk's end
    decay_states = torch.exp(a_cum[..., -1:] - a_cum).reshape(b, g, r, c, q).permute(0, 3, 4, 1, 2)  # (b, c, q, g, r)
    states = torch.einsum("bclgn,bclgrp->bcgrpn", Bc, xd * decay_states[..., None].to(dtype))
    # 3. the inter-chunk recurrence over the chunk states (ssd_minimal: one decay matmul over the chunks)
    states = torch.cat([torch.zeros_like(states[:, :1]), states], dim=1)     # (b, c + 1, g, r, p, n)
    chunk_decay = torch.exp(segsum(F.pad(a_cum[..., -1], (1, 0)), cumsum))          # (b, h, c + 1, c + 1)
    states = torch.einsum("bhzc,bchpn->bzhpn", chunk_decay.to(dtype), states.reshape(b, c + 1, h, p, n))
    states = states[:, :-1].reshape(b, c, g, r, p, n)                       # the state entering each chunk
    # 4. state -> output: C times the entering state, decayed to each position
    out_decay = torch.exp(a_cum).reshape(b, g, r, c, q).permute(0, 3, 4, 1, 2)  # (b, c, q, g, r)
    y_off = torch.einsum("bclgn,bcgrpn->bclgrp", Cc, states) * out_decay[..., None].to(dtype)
    return (y_diag + y_off).reshape(b, l, h, p)


def ssd_scan(x, dt, A, B, C):
    """The naive sequential scan, one step per position (the reference): h_t = exp(dt_t A) h_(t-1) + dt_t x_t B_t^T,
    y_t = h_t C_t, per head, B and C shared by each group's heads. Computed in x's dtype (float32 for the check)."""
    b, l, h, p = x.shape
    r = h // B.shape[-2]
    Bh, Ch = B.repeat_interleave(r, dim=2), C.repeat_interleave(r, dim=2)  # (b, l, h, n)
    s = x.new_zeros(b, h, p, B.shape[-1])
    ys = []
    for t in range(l):
        da = torch.exp(dt[:, t] * A)                                         # (b, h)
        s = da[..., None, None] * s + (dt[:, t, :, None] * x[:, t])[..., None] * Bh[:, t, :, None, :]
        ys.append(torch.einsum("bhpn,bhn->bhp", s, Ch[:, t]))
    return torch.stack(ys, dim=1)


def mamba_kernel():
    """mamba_ssm's mamba_chunk_scan_combined, or (None, the reason it does not import)."""
    try:
        from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined
        return mamba_chunk_scan_combined, None
    except Exception as e:  # noqa: BLE001 -- not installed, or its extensions do not load here
        return None, bl.import_failed("mamba_ssm", e)


_compiled = {}


def _cumsum_outside_graph():
    """torch.cumsum behind a graph break: under torch.compile it runs as the eager op between compiled pieces (torch
    2.11's inductor fails to generate the scan of a permuted input: 'list indices must be integers or slices, not
    NoneType' in TritonSymbols.get_block_shape). None where this torch cannot disable compilation of a function."""
    disable = getattr(getattr(torch, "compiler", None), "disable", None)
    if disable is None:
        return None

    @disable
    def cumsum(x, dim):
        return torch.cumsum(x, dim=dim)
    return cumsum


def _no_grad(fn, ins, q):
    with torch.no_grad():
        return fn(*ins, q)


def make_fn(impl, dev):
    """The SSD callable under test, f(x, dt, A, B, C, chunk) -> y: (fn, extra fields) or (None, the reason)."""
    if impl == "mamba_ssm":
        kern, why = mamba_kernel()
        if kern is None:
            return None, why
        if dev.type != "cuda":
            return None, "mamba_ssm's Triton kernel needs a GPU"
        return (lambda x, dt, A, B, C, chunk: kern(x, dt, A, B, C, chunk)), \
            {"function": "mamba_ssm.ops.triton.ssd_combined.mamba_chunk_scan_combined"}
    if dev.type != "cuda":
        return ssd_chunked, {"function": "ssd_chunked", "compile": "eager",
                             "compile_why": "torch.compile is used on GPUs only (CPU runs are checks)"}
    if not hasattr(torch, "compile"):
        return ssd_chunked, {"function": "ssd_chunked", "compile": "eager",
                             "compile_why": f"this torch ({torch.__version__}) has no torch.compile"}
    if "fn" not in _compiled:
        # backward is timed on one graph many times (retain_graph=True), which a compiled backward with donated
        # buffers refuses (torch >= 2.5); donation saves memory, not time
        try:
            import torch._functorch.config as fconf
            if hasattr(fconf, "donated_buffer"):
                fconf.donated_buffer = False
        except ImportError:
            pass
        # one static graph per shape (dynamic=False: no shape-generic kernels after the second size), and room for
        # every case's and the checks' graphs: past the recompile limit dynamo would run eager without a word
        import torch._dynamo.config as dconf
        for knob in ("cache_size_limit", "recompile_limit"):
            if hasattr(dconf, knob):
                setattr(dconf, knob, max(getattr(dconf, knob), 64))
        _compiled["fn"] = torch.compile(ssd_chunked, dynamic=False)
    return _compiled["fn"], {"function": "torch.compile(ssd_chunked, dynamic=False)", "compile": "compiled"}


def inputs(b, l, h, p, n, g, dtype, dev, seed, grad):
    """Random inputs like a trained Mamba2 layer's: dt in [1e-3, 1e-1] log-uniform (the softplus already applied),
    A = -exp(U[log 1, log 16]) (Mamba2's A_init_range), x, B, C standard normal."""
    gen = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(b, l, h, p, generator=gen)
    dt = torch.exp(torch.rand(b, l, h, generator=gen) * (torch.log(torch.tensor(0.1)) - torch.log(torch.tensor(1e-3)))
                   + torch.log(torch.tensor(1e-3)))
    A = -torch.exp(torch.rand(h, generator=gen) * torch.log(torch.tensor(16.0)))
    B, C = torch.randn(b, l, g, n, generator=gen), torch.randn(b, l, g, n, generator=gen)
    out = [x.to(dev, dtype), dt.to(dev), A.to(dev), B.to(dev, dtype), C.to(dev, dtype)]
    return [t.requires_grad_(grad) for t in out]


def check(fn, dtype, dev, grads=True):
    """fn on the CHECK problem in dtype against ssd_scan in float32 on the same values: max |ours - scan| /
    max |scan| over the output and the x, dt, A, B, C gradients (grads False: the output only, a forward-only
    plug-in), and the largest absolute difference."""
    k = CHECK
    ins = inputs(k["batch"], k["seq_len"], k["heads"], k["head_dim"], k["state"], k["groups"], dtype, dev, 1, grads)
    ref_ins = [t.detach().float().requires_grad_(grads) for t in ins]
    up = torch.randn(k["batch"], k["seq_len"], k["heads"], k["head_dim"], generator=torch.Generator().manual_seed(2))
    if grads:
        y = fn(*ins, k["chunk"])
        y.backward(up.to(dev, y.dtype))
    else:
        with torch.no_grad():
            y = fn(*ins, k["chunk"])
    ref = ssd_scan(*ref_ins)
    if grads:
        ref.backward(up.to(dev))
    ours = [y.detach().float()] + ([t.grad.detach().float() for t in ins] if grads else [])
    want = [ref.detach()] + ([t.grad for t in ref_ins] if grads else [])
    rel = max((a - w).abs().max().item() / (w.abs().max().item() or 1.0) for a, w in zip(ours, want))
    ab = max((a - w).abs().max().item() for a, w in zip(ours, want))
    return rel, ab


def run_check(fn, dtype, dev, tf32=False, grads=True):
    """check() in float32 and in the case's dtype: (extra fields, None) or (extra fields, the failure). tf32: fn's
    float32 matmuls round their inputs to TF32 (Triton's dots do by default), the float32 tolerance is wider."""
    ex = {"check_shape": dict(CHECK), "check_reference": "naive sequential scan in float32 (output and the x, dt, A, "
          "B, C gradients)" if grads else "naive sequential scan in float32 (the output: a forward-only plug-in)"}
    bad = []
    fp32_tol = CHECK_TOL["fp32_tf32" if tf32 else "fp32"]
    for name, dt_, tol in (("fp32", torch.float32, fp32_tol), ("case_dtype", dtype, CHECK_TOL["low"])):
        rel, ab = check(fn, dt_, dev, grads)
        ex[f"check_{name}"] = {"max_rel_err": rel, "max_abs_err": ab, "tolerance": tol, "ok": rel <= tol}
        if not rel <= tol:
            bad.append(f"{name} {rel:.3g} (tolerance {tol})")
    ex["check"] = "ok" if not bad else "wrong"
    ex["max_abs_err_vs_scan_fp32"] = ex["check_fp32"]["max_abs_err"]
    return ex, ("differs from the naive sequential scan: " + ", ".join(bad)) if bad else None


def run_case(case, first, checked):
    p = case["params"]
    rec = bl.record(SUITE, case)
    if first:
        rec["extra"]["device"] = bl.device_info()
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[p.get("dtype", "bf16")]
    impl, b, l = p["impl"], int(p["batch"]), int(p["seq_len"])
    h, hp, n = int(p["heads"]), int(p["head_dim"]), int(p["state"])
    q, g, pas = int(p["chunk"]), int(p.get("groups", 1)), p.get("pass", "fwd")
    ex = rec["extra"]
    plug = plugins.plugin_of(p)
    try:
        if plug is not None:
            fn, info, why = plugins.load(p, bl.CONFIG)
            ex["plugin"] = info
            if why:
                rec["error"] = why
                return rec
            how = {"function": f"plug-in '{impl}': {info.get('module')}.{info.get('function')}"}
        else:
            fn, how = make_fn(impl, dev)
        if fn is None:
            rec.update(status="skipped", error=how)
            return rec
        ins = inputs(b, l, h, hp, n, g, dtype, dev, 0, pas != "fwd")
        if plug is not None:  # the contract, before anything is timed: its signature, then what one call returns
            why = plugins.signature_error(fn, impl, (*ins, q), {}, PLUGIN_SIGNATURE)
            if why is None:
                try:
                    if pas == "fwd":
                        out = _no_grad(fn, ins, q)
                    else:
                        out = fn(*ins, q)
                except Exception as e:  # noqa: BLE001 -- the plug-in's own exception: the case's reason
                    rec["error"] = plugins.raised(impl, e)
                    return rec
                why = plugins.tensor_error(impl, out, (b, l, h, hp), dtype, ins[0].device) or \
                    (plugins.no_grad_error(impl, out) if pas != "fwd" else None)
                del out
            if why:
                rec["error"] = why
                return rec
        if fn is not ssd_chunked and impl == "torch":  # torch.compile: the first call compiles; failing, run eager
            def first_call(f):
                y = f(*ins, q) if pas != "fwd" else _no_grad(f, ins, q)
                if pas != "fwd":
                    y.backward(torch.ones_like(y))
                    for t in ins:
                        t.grad = None
                del y

            try:
                if "failed" in _compiled:  # an earlier case found the whole graph does not compile here
                    raise RuntimeError(_compiled["failed"])
                first_call(fn)
            except Exception as e:  # noqa: BLE001 -- inductor or dynamo refusing: the cumsums outside, then eager
                why = _compiled.setdefault("failed", f"torch.compile failed: {type(e).__name__}: "
                                                     f"{(str(e).splitlines() or [''])[0][:200]}")
                cs = _cumsum_outside_graph()
                try:
                    if cs is None:
                        raise RuntimeError("this torch has no torch.compiler.disable")
                    if "outside" not in _compiled:
                        _compiled["outside"] = torch.compile(
                            lambda x, dt, A, B, C, chunk: ssd_chunked(x, dt, A, B, C, chunk, cs), dynamic=False)
                    first_call(_compiled["outside"])
                    fn, how = _compiled["outside"], {
                        "function": "torch.compile(ssd_chunked, dynamic=False), its cumsums outside the graph",
                        "compile": "compiled", "compile_why": why + "; compiled again with the cumulative sums as "
                                                                   "eager ops between the compiled pieces"}
                except Exception as e2:  # noqa: BLE001
                    fn, how = ssd_chunked, {"function": "ssd_chunked", "compile": "eager",
                                            "compile_why": why + f"; with the cumsums outside the graph: "
                                                                 f"{type(e2).__name__}: "
                                                                 f"{(str(e2).splitlines() or [''])[0][:200]}"}
        ex.update(how)

        def reset():  # as attention: no gradient accumulation timed
            for t in ins:
                t.grad = None
        if pas == "fwd":
            with torch.no_grad():
                samples, sched, timing = bl.bench_case(lambda: fn(*ins, q), p)
        elif pas == "bwd":
            out = fn(*ins, q)
            grad = torch.randn_like(out)

            def bwd():
                reset()
                out.backward(grad, retain_graph=True)
            samples, sched, timing = bl.bench_case(bwd, p)
        else:
            grad = torch.randn(b, l, h, hp, device=dev, dtype=dtype)

            def fwd_bwd():
                reset()
                fn(*ins, q).backward(grad)
            samples, sched, timing = bl.bench_case(fwd_bwd, p)
    except Exception as e:  # unsupported shape, out of memory, a kernel refusing the inputs: a record
        rec["error"] = plugins.raised(impl, e) if plug is not None else \
            f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:300]}"
        return rec
    fwd = bl.ssd_fwd_flop(b, l, h, hp, n, q, g)
    flop = fwd * bl.SSD_PASS_FACTOR[pas]
    bl.set_samples(rec, "tflops", "TFLOP/s", samples, lambda ms: flop / (ms * 1e-3) / 1e12)
    ex.update(timing)
    ex.update(schedule=sched, flop=flop, fwd_flop=fwd, flop_convention=FLOP_CONVENTION)
    if pas != "fwd":
        ex["grad_reset"] = "x/dt/A/B/C .grad set to None inside the timed call, before each backward"
    key = (impl, ex.get("function"), p.get("dtype"))
    if key not in checked:
        try:
            checked[key] = run_check(fn, dtype, dev, tf32=impl == "mamba_ssm" or plug is not None,
                                     grads=plugins.has_backward(p))
        except Exception as e:  # noqa: BLE001 -- the check itself crashed: the case cannot be trusted
            checked[key] = ({"check": "wrong"}, f"the check against the naive scan failed to run: {type(e).__name__}: "
                                                f"{(str(e).splitlines() or [''])[0][:200]}")
    cex, why = checked[key]
    ex.update(cex)
    if why:
        rec.update(status="failed", error=why)
    return rec


def main():
    bl.run_cases(SUITE, "ssm.py", run_case)


if __name__ == "__main__":
    main()
