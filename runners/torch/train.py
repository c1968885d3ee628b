#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Training throughput and MFU (runner contract: docs/architecture.md): synthetic tokens (one fixed batch, or a fresh
Zipf-distributed batch every step), AdamW with a linear warm-up, bf16 autocast
(or fp32), optional torch.compile. Per case: tokens/s, TFLOP/s per GPU by 6N + 12 L H d T density (density
0.5 causal, the sliding-window fraction for Mistral; stated in the record), MFU against the dense bf16 peak the
CLI passes in, peak memory, first and last loss (must be finite and falling).
  train.py --config CASES.json
"""
import contextlib
import dataclasses
import importlib
import json
import math
import os
import sys
import time

import launch
from launch import dist_info

if __name__ == "__main__":  # the process that starts the ranks exits here; on GPU before importing torch (seconds)
    launch.start_ranks(os.path.abspath(__file__), "training")

import torch  # noqa: E402
import torch.nn.functional as F

import benchlib as bl
import fp8
import plugins
import reference
from models import FLOP_CONVENTION_HYBRID, HAVE_SDPA, MODELS, Model, flop_per_token, param_count

SUITE = "training"


def torch_version():
    return tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])


def fsdp2():
    """(fully_shard, None) where FSDP2 imports, else (None, the reason, one line). Importing torch.distributed.fsdp
    can fail with other exceptions than ImportError: Debian's torch 1.13 under Python 3.11 raises ValueError (a
    dataclass with a mutable default); the exception goes to the suite's log, not into the reason."""
    try:
        from torch.distributed.fsdp import fully_shard
        return fully_shard, None
    except Exception as e:  # noqa: BLE001 -- any failure to import is a reason
        if torch_version() < (2, 6):
            bl.import_failed("torch.distributed.fsdp.fully_shard", e)
            return None, f"parallel fsdp needs FSDP2 (torch >= 2.6); this is torch {torch.__version__}"
        return None, f"parallel fsdp needs FSDP2: {bl.import_failed('torch.distributed.fsdp.fully_shard', e)}"


def wrap_parallel(model, parallel, dev, mixed=False):
    """DDP, or FSDP2 (fully_shard per block, then the root), across the torchrun world. mixed (fp32 parameters
    under bf16 autocast): FSDP2 gathers the parameters in bf16 and reduces gradients in fp32 (torchtitan's policy),
    so the all-gathers move half the bytes; the shards and the optimizer stay fp32."""
    if parallel == "fsdp":
        fully_shard, why = fsdp2()
        if why:
            raise RuntimeError(why)
        kw = {}
        if mixed:
            from torch.distributed.fsdp import MixedPrecisionPolicy
            kw["mp_policy"] = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        for blk in model.blocks:
            fully_shard(blk, **kw)
        fully_shard(model, **kw)
        return model
    from torch.nn.parallel import DistributedDataParallel as DDP
    return DDP(model, device_ids=[dev.index] if dev.type == "cuda" else None)


ZIPF_S = 1.1
LR = 3e-4  # AdamW's default learning rate (param lr) after the linear warm-up over warmup_steps


def make_batches(kind, vocab, mb, seq, g):
    """The tokens of each step: (batch_of(step) -> an [mb, seq + 1] tensor, made before the step's clock starts; what
    the record says of them). fixed: one batch of uniform random tokens for every step. zipf: a fresh batch per
    step, tokens drawn from p(k) ~ 1 / k^ZIPF_S over the vocabulary (k = 1..V, a random permutation of the ids) with a
    generator seeded per step (deterministic, and no step's tokens kept longer than its step), whose entropy is the
    lowest loss a model can reach on them."""
    if kind == "zipf":
        w = 1.0 / torch.arange(1, vocab + 1, dtype=torch.float64) ** ZIPF_S
        prob = w / w.sum()
        floor = float(-(prob * prob.log()).sum())
        ids = torch.randperm(vocab, generator=g)
        base = int(torch.randint(0, 2 ** 31 - 1, (1,), generator=g))
        prob32 = prob.float()

        def batch_of(step):
            gs = torch.Generator().manual_seed(base + step)
            return ids[torch.multinomial(prob32, mb * (seq + 1), replacement=True, generator=gs)].view(mb, seq + 1)
        return batch_of, {"kind": "zipf", "exponent": ZIPF_S, "loss_floor": floor,
                          "what": f"a fresh batch every step, tokens from a Zipf({ZIPF_S}) unigram distribution "
                                  f"(entropy {floor:.4f} nats: the loss floor)"}
    one = torch.randint(0, vocab, (mb, seq + 1), generator=g)
    return (lambda step: one), {"kind": "fixed", "what": "one batch of uniform random tokens, every step (memorised)"}


def make_optimizer(net, cuda, lr=None):
    """AdamW over the parameters the (wrapped) model trains: fused on a GPU where torch has it."""
    opt_kw = {"lr": lr or LR, "betas": (0.9, 0.95), "weight_decay": 0.1}
    if cuda and torch_version() >= (2, 0):
        opt_kw["fused"] = True
    return torch.optim.AdamW(net.parameters(), **opt_kw)


def loss_fn(net, vocab):
    """The step's forward: the model, then the cross-entropy of its logits in float32 against the next tokens."""
    def step_loss(x, y):
        logits = net(x)
        return F.cross_entropy(logits.float().reshape(-1, vocab), y.reshape(-1))
    return step_loss


def case_settings(p, local):
    """A training case's settings from its params p, defaults filled in: precision, seq_len, micro_batch, steps,
    warmup_steps, compile, whether CUDA is there, and the device of local rank local."""
    cuda = torch.cuda.is_available()
    return (p.get("precision", "bf16"), int(p.get("seq_len", 4096)), int(p.get("micro_batch", 1)),
            int(p.get("steps", 30)), int(p.get("warmup_steps", 10)), bool(p.get("compile", False)), cuda,
            torch.device("cuda", local) if cuda else torch.device("cpu"))


def train_steps(case, net, vocab, batch_of, bf16, ex):
    """The timed step loop of a case, built-in or plug-in: AdamW at the case's lr (recorded in ex["lr"]) with a linear
    warm-up over warmup_steps, the loss compiled when the case asks, autocast to bf16 when bf16. Returns the losses
    and the step times in ms of this rank; prints each step on rank 0. Raises what the model raises."""
    p = case["params"]
    rank, _, local = dist_info()
    _, _, _, steps, warm, compile_, cuda, dev = case_settings(p, local)
    lr = float(p.get("lr", LR))
    ex["lr"] = lr
    opt = make_optimizer(net, cuda, lr)
    step_loss = loss_fn(net, vocab)
    if compile_:
        # the loss with the model: the float32 logits and the cross-entropy fuse, not 3 passes over V x T. Each
        # case compiles the same step function over a new model: without a reset, dynamo's recompile limit would
        # run later cases eager while their records say compile
        importlib.import_module("torch._dynamo").reset()
        step_loss = torch.compile(step_loss)
    amp = torch.autocast(device_type=dev.type, dtype=torch.bfloat16, enabled=bf16)
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    losses, times = [], []
    for s in range(steps):
        for grp in opt.param_groups:  # linear warm-up of the learning rate over the warm-up steps, then flat
            grp["lr"] = lr * min(1.0, (s + 1) / max(warm, 1))
        batch = batch_of(s).to(dev, non_blocking=True)
        if cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        with amp:
            loss = step_loss(batch[:, :-1], batch[:, 1:])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if cuda:
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
        losses.append(float(loss.detach()))
        if not rank:
            print(f"train.py: {case['case']} step {s + 1}/{steps} loss {losses[-1]:.4f} {times[-1]:.1f} ms",
                  file=sys.stderr)
    return losses, times


def slowest_rank(times, world, dev):
    """The step times of the slowest rank, step by step (a step takes as long as its slowest rank); times itself on
    one rank."""
    if world <= 1:
        return times
    t = torch.tensor(times, dtype=torch.float64, device=dev)
    torch.distributed.all_reduce(t, op=torch.distributed.ReduceOp.MAX)
    return t.tolist()


def run_case(case, cfg_all, first):
    p = case["params"]
    rank, world, local = dist_info()
    rec = bl.record(SUITE, case)
    if first:
        rec["extra"]["device"] = bl.device_info()
    name = p["model"]
    if plugins.plugin_of(p) is not None:  # a plug-in model (docs/plugins.md): its own function below
        return run_plugin_case(case, cfg_all, first)
    if name not in MODELS:
        rec["error"] = f"unknown model '{name}'"
        return rec
    cfg = MODELS[name]
    if isinstance(p.get("layers"), int):
        cfg = dataclasses.replace(cfg, layers=p["layers"])
    prec, seq, mb, steps, warm, compile_, cuda, dev = case_settings(p, local)
    if prec == "fp8":
        why = fp8.support(dev)
        if why:
            rec.update(status="skipped", error=why)
            return rec
    if world > 1 and p.get("parallel", "fsdp") == "fsdp":
        why = fsdp2()[1]
        if why:
            rec.update(status="skipped", error=why)
            return rec
    if compile_ and not hasattr(torch, "compile"):
        rec.update(status="skipped", error=f"torch.compile needs torch >= 2.0 (this is {torch.__version__})")
        return rec
    if seq > cfg.max_seq and cfg.gpt:
        rec["error"] = f"seq_len {seq} exceeds {name}'s {cfg.max_seq} positions"
        return rec
    torch.manual_seed(int(p.get("seed", 0)))  # the same initial weights on every rank
    ex = rec["extra"]
    try:
        model = Model(cfg).to(dev)
        g = torch.Generator(device="cpu").manual_seed(1234 + rank)  # each rank its own data
        # data fixed: one batch of random tokens, every step: the loss must fall (the model memorises it, within
        # two or three steps), which checks that the step really trains. data zipf: a fresh batch every step from a
        # Zipf unigram distribution: the loss falls smoothly towards the distribution's entropy and cannot reach
        # zero, the curve fp8 and bf16 are compared on. Throughput depends on neither (all batches are made first).
        batch_of, ex["data"] = make_batches(p.get("data", "fixed"), cfg.vocab, mb, seq, g)
        if "loss_floor" in ex["data"]:
            ex["loss_floor"] = ex["data"]["loss_floor"]
        ref = reference_check(model, cfg, batch_of(0)[:1, :REF_TOKENS + 1], dev)
        ex["reference_check"] = ref
        n = model.flop_params()
        flex_window = model.prepare_window(seq, dev)
        if prec == "fp8":
            ex.update(fp8.convert(model, n, fnuz=fp8.is_gfx942(dev), head=bool(p.get("fp8_head", False))))
        if p.get("param_dtype") == "bf16":  # parameters, gradients and AdamW state in bf16 (else fp32 masters)
            model = model.to(torch.bfloat16)
        mixed = prec in ("bf16", "fp8") and p.get("param_dtype", "fp32") == "fp32"
        net = wrap_parallel(model, p.get("parallel", "fsdp"), dev, mixed) if world > 1 else model
        if world > 1 and p.get("parallel", "fsdp") == "fsdp":
            ex["fsdp_mixed_precision"] = ("parameters gathered in bf16, gradients reduced in fp32, fp32 shards"
                                          if mixed else "none (parameters in their own dtype)")
        # the optimizer after the wrap: FSDP2's fully_shard replaces every parameter by a sharded DTensor, and an
        # optimizer made before it would step the old, unsharded tensors that no forward reads (issue 17: the loss
        # stayed at 12.5906 from the first step to the last)
        losses, times = train_steps(case, net, cfg.vocab, batch_of, prec in ("bf16", "fp8"), ex)
    except Exception as e:  # a case that cannot run is a record, not a crash
        msg = (str(e).splitlines() or [""])[0]
        oom = "out of memory" in msg.lower()
        rec["error"] = ("out of memory: " if oom else f"{type(e).__name__}: ") + msg[:300]
        if cuda:
            torch.cuda.empty_cache()
        return rec
    timed = slowest_rank(times, world, dev)[warm:]
    tokens = mb * seq  # per GPU
    density = bl.attention_density(seq, True, cfg.window)
    fpt, fpt_parts = flop_per_token(cfg, n, seq, density)
    bl.set_samples(rec, "tflops_per_gpu", "TFLOP/s", timed, lambda ms: fpt * tokens / (ms * 1e-3) / 1e12)
    med_ms = bl.percentile(sorted(timed), 0.5)
    full_layers = MODELS[name].layers
    head_share = cfg.vocab * cfg.hidden / n
    ex.update(tokens_per_s=tokens / (med_ms * 1e-3), flop_per_token=fpt, n_params=sum(q.numel() for q in model.parameters()),
              n_params_flop=n, layers=cfg.layers, density=density,
              density_convention="0.5 causal (SemiAnalysis, Megatron); torchtitan/PaLM count 1",
              loss_first=losses[0], loss_last=losses[-1], losses=losses, steps=steps, warmup_steps=warm, compile=compile_,
              world_size=world, parallel=p.get("parallel") if world > 1 else "none",
              nodes=int(os.environ.get("SLURM_JOB_NUM_NODES", "1")) if world > 1 else 1,
              global_tokens_per_s=world * tokens / (med_ms * 1e-3), head_share_of_n=head_share,
              precision=prec, param_dtype=p.get("param_dtype", "fp32"), attention=attention_path(cfg, seq, flex_window),
              peak_mem_gib=torch.cuda.max_memory_allocated() / 2**30 if cuda else None)
    if cfg.ssm_state:  # a hybrid: the FLOP count's parts and its layers
        ex.update(flop_per_token_parts=fpt_parts, flop_convention=FLOP_CONVENTION_HYBRID, layer_kinds=cfg.layer_kinds())
    if cfg.layers < full_layers:
        ex["proxy"] = (f"proxy: {name} with {cfg.layers} of its {full_layers} layers; the output head is "
                       f"{head_share * 100:.1f}% of N (vs {param_share_full(name) * 100:.1f}% in the full model)")
    ex.update(mfu_fields(rec["value"], cfg_all.get("gpu_peak") or {}, prec, ex.get("fp8_share_of_n", 0.0), n, fpt))
    problems = []
    if not all(math.isfinite(x) for x in losses) or not losses[-1] < losses[0]:
        problems.append(f"loss is not finite and falling: first {losses[0]:.4f}, last {losses[-1]:.4f}")
    want = reference.init_loss(cfg)
    ex.update(init_loss_expected=want, init_loss_tolerance=INIT_LOSS_TOL)
    if not abs(losses[0] - want) <= INIT_LOSS_TOL:
        problems.append(f"first loss {losses[0]:.4f} is not the random-init loss ln(vocab) + hidden*0.02^2/2 = "
                        f"{want:.4f} (+-{INIT_LOSS_TOL})")
    if ref.get("check") != "ok":
        problems.append(ref.get("why") or "the reference check failed")
    ex["check"] = "wrong" if problems else "ok"
    if problems:
        rec.update(status="failed", error="; ".join(problems))
    return rec


PLUGIN_SIGNATURE = ("build(spec) -> {'model': nn.Module mapping tokens (B, T) to logits (B, T, vocab), 'vocab': int, "
                    "'flop_per_token': float}")


def run_plugin_case(case, cfg_all, first):
    """A plug-in model (docs/plugins.md, "training"): build(spec) returns the module, its vocabulary and its training
    FLOPs per token; the steps, the optimizer, autocast, the parallel wrap, compile and the timing are the built-ins'.
    Checked as the built-ins where that applies (the loss finite and falling); the reference-implementation and
    initial-loss checks are the built-in architectures' own."""
    p = case["params"]
    rank, world, local = dist_info()
    rec = bl.record(SUITE, case)
    ex = rec["extra"]
    if first:
        ex["device"] = bl.device_info()
    name = p["model"]
    build, info, why = plugins.load(p, bl.CONFIG)
    ex["plugin"] = info
    if why:
        rec["error"] = why
        return rec
    prec, seq, mb, steps, warm, compile_, cuda, dev = case_settings(p, local)
    if prec == "fp8":
        rec.update(status="skipped", error="precision fp8 is not offered to plug-in models (docs/plugins.md)")
        return rec
    if compile_ and not hasattr(torch, "compile"):
        rec.update(status="skipped", error=f"torch.compile needs torch >= 2.0 (this is {torch.__version__})")
        return rec
    seed = int(p.get("seed", 0))
    spec = {"seq_len": seq, "micro_batch": mb, "layers": p.get("layers") if isinstance(p.get("layers"), int) else None,
            "precision": prec, "device": dev, "seed": seed}
    why = plugins.signature_error(build, name, (spec,), {}, PLUGIN_SIGNATURE)
    if why:
        rec["error"] = why
        return rec
    torch.manual_seed(seed)  # the same initial weights on every rank
    try:
        built = build(spec)
    except Exception as e:  # noqa: BLE001 -- the plug-in's own exception: the case's reason
        rec["error"] = plugins.raised(name, e)
        return rec
    model = built.get("model") if isinstance(built, dict) else None
    vocab, fpt = (built.get("vocab"), built.get("flop_per_token")) if isinstance(built, dict) else (None, None)
    if not isinstance(model, torch.nn.Module) or not isinstance(vocab, int) or vocab < 2 or \
            not isinstance(fpt, (int, float)) or not math.isfinite(fpt) or fpt <= 0:
        got = type(built).__name__ if not isinstance(built, dict) else \
            "{" + ", ".join(f"{k}: {type(v).__name__}" for k, v in built.items()) + "}"
        rec["error"] = (f"plug-in '{name}' returned {got}, expected a dict with model (nn.Module), vocab (int >= 2) "
                        f"and flop_per_token (a number > 0)")
        return rec
    try:
        model = model.to(dev)
        g = torch.Generator(device="cpu").manual_seed(1234 + rank)
        batch_of, ex["data"] = make_batches(p.get("data", "fixed"), vocab, mb, seq, g)
        if "loss_floor" in ex["data"]:
            ex["loss_floor"] = ex["data"]["loss_floor"]
        with torch.no_grad():  # the contract, before anything is timed: what the module returns
            tok = batch_of(0)[:1, :-1].to(dev)
            out = model(tok)
            why = plugins.tensor_error(name, out, (1, seq, vocab), out.dtype if isinstance(out, torch.Tensor)
                                       else torch.float32, dev, "logits")
            if why is None and not out.dtype.is_floating_point:
                why = f"plug-in '{name}' returned logits of dtype {out.dtype}, expected a floating-point type"
            del out, tok
        if why:
            rec["error"] = why
            return rec
        if p.get("param_dtype") == "bf16":
            model = model.to(torch.bfloat16)
        mixed = prec == "bf16" and p.get("param_dtype", "fp32") == "fp32"
        net = model
        if world > 1:
            if p.get("parallel", "fsdp") == "fsdp":
                fully_shard, why = fsdp2()
                if why:
                    rec.update(status="skipped", error=why)
                    return rec
                kw = {}
                if mixed:
                    from torch.distributed.fsdp import MixedPrecisionPolicy
                    kw["mp_policy"] = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
                for blk in getattr(model, "blocks", []):  # per block where the model has blocks, then the root
                    fully_shard(blk, **kw)
                fully_shard(model, **kw)
            else:
                net = wrap_parallel(model, "ddp", dev, mixed)
        losses, times = train_steps(case, net, vocab, batch_of, prec == "bf16", ex)  # the built-ins' step loop
    except Exception as e:  # noqa: BLE001 -- raised in the plug-in's forward or backward: the case's reason
        msg = (str(e).splitlines() or [""])[0]
        rec["error"] = ("out of memory: " + msg[:300]) if "out of memory" in msg.lower() else plugins.raised(name, e)
        if cuda:
            torch.cuda.empty_cache()
        return rec
    timed = slowest_rank(times, world, dev)[warm:]
    tokens = mb * seq
    bl.set_samples(rec, "tflops_per_gpu", "TFLOP/s", timed, lambda ms: fpt * tokens / (ms * 1e-3) / 1e12)
    med_ms = bl.percentile(sorted(timed), 0.5)
    n_params = sum(q.numel() for q in model.parameters())
    n_flop = built.get("n_params_flop") if isinstance(built.get("n_params_flop"), int) else n_params
    ex.update(tokens_per_s=tokens / (med_ms * 1e-3), flop_per_token=fpt, flop_per_token_source="the plug-in's own count",
              n_params=n_params, loss_first=losses[0], loss_last=losses[-1], losses=losses, steps=steps,
              warmup_steps=warm, compile=compile_, world_size=world, parallel=p.get("parallel") if world > 1 else "none",
              global_tokens_per_s=world * tokens / (med_ms * 1e-3), precision=prec,
              param_dtype=p.get("param_dtype", "fp32"), attention=str(built.get("attention", "the plug-in's own")),
              reference_check={"check": "not applicable", "why": "a plug-in model: the reference implementation is "
                               "the built-in architectures' (runners/torch/reference.py)"},
              peak_mem_gib=torch.cuda.max_memory_allocated() / 2**30 if cuda else None)
    ex.update(mfu_fields(rec["value"], cfg_all.get("gpu_peak") or {}, prec, 0.0, n_flop, fpt))
    if not all(math.isfinite(x) for x in losses) or not losses[-1] < losses[0]:
        ex["check"] = "wrong"
        rec.update(status="failed", error=f"loss is not finite and falling: first {losses[0]:.4f}, last {losses[-1]:.4f}")
    else:
        ex["check"] = "ok"
    return rec


REF_TOKENS = 64           # the reference check's sequence: the first 64 tokens of the batch
REF_LOSS_TOL = 1e-4       # relative, float32 against float32/float64 (measured: ~1e-7)
REF_GRAD_TOL = 1e-3       # relative (measured: ~1e-7; attention replaced by zeros moves it 4-19%)
INIT_LOSS_TOL = 0.25      # nats


def reference_check(model, cfg, tokens, dev):
    """The model's first-step loss and gradient norm in float32 (autocast off) on tokens, against reference.py's
    independent implementation of the same weights (float64 on the CPU, float32 on a GPU). Leaves no gradient."""
    try:
        was = [q.requires_grad for q in model.parameters()]
        tok = tokens.to(dev)
        with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):  # a hybrid's conv1d in float32, not TF32
            logits = model(tok[:, :-1])
            loss = F.cross_entropy(logits.float().reshape(-1, cfg.vocab), tok[:, 1:].reshape(-1))
            params = list(model.parameters())
            grads = torch.autograd.grad(loss, params, allow_unused=True)
        gn = math.sqrt(sum(float((x.double() ** 2).sum()) for x in grads if x is not None))
        ours = (float(loss.detach()), gn)
        del logits, loss, grads
        dtype = torch.float32 if dev.type == "cuda" else torch.float64
        want = reference.loss_and_grad_norm(cfg, model.state_dict(), tokens, dtype=dtype, device=dev)
        assert was == [q.requires_grad for q in model.parameters()]
    except Exception as e:  # noqa: BLE001 -- a model the reference cannot read is a failed check
        return {"check": "wrong", "why": f"reference check: {type(e).__name__}: {(str(e).splitlines() or [''])[0][:200]}"}
    dl, dg = abs(ours[0] - want[0]) / abs(want[0]), abs(ours[1] - want[1]) / max(abs(want[1]), 1e-30)
    out = {"tokens": int(tokens.shape[1] - 1), "dtype": "float32" if dtype == torch.float32 else "float64",
           "loss": ours[0], "loss_reference": want[0], "grad_norm": ours[1], "grad_norm_reference": want[1],
           "loss_rel_diff": dl, "grad_norm_rel_diff": dg, "tolerance": {"loss": REF_LOSS_TOL, "grad_norm": REF_GRAD_TOL},
           "reference": "runners/torch/reference.py (the same architecture as plain functions over the state dict)"}
    ok = dl <= REF_LOSS_TOL and dg <= REF_GRAD_TOL
    out["check"] = "ok" if ok else "wrong"
    if not ok:
        out["why"] = (f"first step differs from the reference implementation: loss {ours[0]:.6g} vs {want[0]:.6g}, "
                      f"gradient norm {ours[1]:.6g} vs {want[1]:.6g}")
    return out


def param_share_full(name):
    cfg = MODELS[name]
    return cfg.vocab * cfg.hidden / param_count(cfg)[1]


def attention_path(cfg, seq, flex_window):
    if not HAVE_SDPA:
        return "manual softmax attention (this torch has no scaled_dot_product_attention)"
    if cfg.window and cfg.window < seq:
        how = "FlexAttention block mask (masked blocks skipped)" if flex_window else \
            "scaled_dot_product_attention with a boolean mask (full T^2 computed: FlexAttention is not available)"
        return f"sliding window {cfg.window}: {how}"
    if cfg.window:
        return f"scaled_dot_product_attention, causal (window {cfg.window} >= seq_len {seq}: no sliding)"
    return "scaled_dot_product_attention"


def mfu_fields(value, peaks, prec, fp8_share, n, fpt):
    """MFU against the peak of the precision computed: fp32 runs against the fp32 (or TF32, when torch allows it)
    figure, bf16 against bf16, fp8 against the FLOP-weighted blend of the fp8 peak (the block linears' 6 N share)
    and the bf16 peak (head, attention)."""
    out = {}
    if prec == "fp32":
        tf32 = torch.backends.cuda.matmul.allow_tf32 if torch.cuda.is_available() else False
        key = "tf32_tflops" if tf32 else "fp32_tflops"
        peak, label = peaks.get(key), "tf32" if tf32 else "fp32"
    elif prec == "fp8" and peaks.get("fp8_tflops") and peaks.get("bf16_tflops"):
        f8 = 6.0 * n * fp8_share
        peak = fp8.blended_peak(f8, fpt - f8, peaks["fp8_tflops"], peaks["bf16_tflops"])
        label = f"fp8 for {f8 / fpt * 100:.1f}% of the FLOPs, bf16 for the rest (FLOP-weighted)"
        out["mfu_vs_bf16_peak"] = value / peaks["bf16_tflops"]
    else:
        peak, label = peaks.get("bf16_tflops"), "bf16"
    out["peak_precision"] = label
    if peak:
        out.update(mfu=value / peak, peak_tflops=peak)
    elif peaks:
        out["mfu_why"] = f"no {label} peak for {peaks.get('gpu', 'this GPU')} in images/bases/peaks.yaml"
    return out


def scaling_fields(rec, single, world, single_why=""):
    """extra.scaling of a record of `world` ranks against the same case on one rank (single: its record or None;
    single_why: why the one-rank process gave none): efficiency = tokens/s per rank here / tokens/s on one rank."""
    ex = rec["extra"]
    out = {"ranks": world, "reference": "the same case on one rank (GPU 0), measured just before, in the same run"}
    if rec["status"] != "ok":
        return dict(out, available=False, why=f"this case is {rec['status']}: {rec.get('error') or 'no reason'}")
    if not single or single.get("status") != "ok":
        why = (single or {}).get("error") or single_why or "no one-rank record"
        return dict(out, available=False, why=f"the one-rank measurement failed: {why}")
    one = single["extra"]["tokens_per_s"]
    return dict(out, available=True, efficiency=ex["tokens_per_s"] / one, tokens_per_s_per_rank=ex["tokens_per_s"],
                single_tokens_per_s=one, single_tflops=single["value"], single_mfu=single["extra"].get("mfu"))


def main():
    cfg, cases = bl.load_config(SUITE)
    ranks = int(cfg.get("ranks", 1)) if isinstance(cfg, dict) else 1
    rank, world, _ = dist_info()
    single = os.environ.get("BENCH_TRAIN_SINGLE") == "1"
    if single:  # measure_single's process: one rank, the scaling cases only
        ranks, cases = 1, [c for c in cases if c["params"].get("scaling")]
    if ranks > 1 and world == 1:  # the ranks' launcher (launch.start_ranks) did not exit
        sys.exit(f"train.py: {ranks} ranks asked for and none started")
    if world > 1:
        import torch.distributed as dist
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
        if torch.cuda.is_available():
            torch.cuda.set_device(dist_info()[2])
    if rank == 0:
        print(f"train.py: {len(cases)} case(s), torch {torch.__version__}, {world} rank(s)", file=sys.stderr)
    singles, single_why = {}, "the one-rank measurement did not run"
    if world > 1 and rank == 0 and os.environ.get("BENCH_TRAIN_SINGLE_RECORDS"):
        try:
            with open(os.environ["BENCH_TRAIN_SINGLE_RECORDS"]) as f:
                got = json.load(f)
            singles, single_why = got["records"], got["why"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            single_why = f"the one-rank records cannot be read: {e}"
    done = {}  # one rank: cases that differ only in `parallel` are the same work, measured once
    skip = plugins.skip_of(sys.argv) if world == 1 else 0  # started again after a plug-in's timeout
    for i, c in enumerate(cases):
        if i < skip:
            continue
        same = json.dumps({k: v for k, v in c["params"].items() if k != "parallel"}, sort_keys=True)
        if single and same in done:
            rec = dict(done[same], case=c["case"], params=c["params"])
            rec["extra"] = dict(rec["extra"], measured_as=done[same]["case"])
            bl.emit(rec)
            continue
        with plugins.watchdog(lambda cs: bl.record(SUITE, cs), c, i, bl.emit) if world == 1 else \
                contextlib.nullcontext() as wd:  # a plug-in's timeout (one rank; several: the suite's timeout)
            rec = run_case(c, cfg if isinstance(cfg, dict) else {}, i == skip)
            if wd is not None:
                wd.finish()
        if single:
            done[same] = json.loads(json.dumps(rec, default=float))
        if rank == 0 and c["params"].get("scaling"):
            rec["extra"]["scaling"] = (scaling_fields(rec, singles.get(c["case"]), world, single_why) if world > 1
                                       else {"ranks": 1, "available": False, "why": "one rank: nothing to scale"})
        if rank == 0:
            bl.emit(rec)
    if world > 1:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
