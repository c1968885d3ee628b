#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The reference a user would otherwise pick for the training suite: Hugging Face transformers'
LlamaForCausalLM at the Llama3-8B shape with 4 layers, the same recipe as bench's training suite (fp32 master
weights or, with --param-dtype bf16, everything in bf16; bf16 autocast; fused AdamW lr 3e-4, SDPA, one fixed batch of 1 x 4096 random tokens), eager and under
torch.compile. FLOP/token by the same formula (6N + 12 L H d T x 0.5). Prints JSON.
  python3 tests/gpu/hf_reference.py [--steps 15 --warmup 5]
"""
import argparse
import json
import sys
import time

import torch
import torch.nn.functional as F
import transformers
from transformers import LlamaConfig, LlamaForCausalLM


def run(compile_, steps, warmup, param_dtype, seq=4096):
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=4,
                      num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=8192, rope_theta=500000.0,
                      tie_word_embeddings=False, attn_implementation="sdpa")
    model = LlamaForCausalLM(cfg).cuda()
    if param_dtype == "bf16":
        model = model.to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), weight_decay=0.1, fused=True)
    fwd = torch.compile(model) if compile_ else model
    g = torch.Generator().manual_seed(1234)
    data = torch.randint(0, cfg.vocab_size, (1, seq + 1), generator=g).cuda()
    torch.cuda.reset_peak_memory_stats()
    times, losses = [], []
    for s in range(steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = fwd(input_ids=data[:, :-1]).logits
            loss = F.cross_entropy(logits.float().view(-1, cfg.vocab_size), data[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
        losses.append(float(loss))
    n_all = sum(p.numel() for p in model.parameters())
    n = n_all - model.model.embed_tokens.weight.numel()
    fpt = 6 * n + 12 * 4 * 32 * 128 * seq * 0.5
    t = sorted(times[warmup:])
    med = t[len(t) // 2] if len(t) % 2 else (t[len(t) // 2 - 1] + t[len(t) // 2]) / 2
    tok_s = seq / (med * 1e-3)
    tf = fpt * tok_s / 1e12
    res = {"mode": "torch.compile" if compile_ else "eager", "param_dtype": param_dtype, "tokens_per_s": tok_s, "tflops_per_gpu": tf, "mfu": tf / 989.4,
           "median_step_ms": med, "flop_per_token": fpt, "n_params": n_all, "loss_first": losses[0], "loss_last": losses[-1],
           "peak_mem_gib": torch.cuda.max_memory_allocated() / 2**30}
    print(f"hf {res['mode']}: {tok_s:.0f} tok/s, {tf:.1f} TFLOP/s, MFU {100 * res['mfu']:.1f}%", file=sys.stderr)
    del model, opt, fwd
    torch.cuda.empty_cache()
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--param-dtype", default="fp32", choices=["fp32", "bf16"])
    a = ap.parse_args()
    out = {"transformers": transformers.__version__, "torch": torch.__version__,
           "runs": [run(False, a.steps, a.warmup, a.param_dtype), run(True, a.steps, a.warmup, a.param_dtype)]}
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
