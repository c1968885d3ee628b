# SPDX-License-Identifier: Apache-2.0
"""The training suite's models, written plainly in PyTorch: token embedding, RMSNorm (LayerNorm for GPT),
rotary position embedding (learned positions for GPT), grouped-query attention through
scaled_dot_product_attention (a sliding-window mask for Mistral), SwiGLU (GELU for GPT), output head."""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    max_seq: int = 8192
    gpt: bool = False          # LayerNorm + GELU MLP + learned positions + tied head (GPT-2 style)
    window: int = 0            # sliding-window attention (Mistral: 4096)
    rope_theta: float = 500000.0

    @property
    def head_dim(self):
        return self.hidden // self.heads


MODELS = {
    # published shapes: GPT-2 XL (1.5B), Llama 3 8B / 70B (Meta), Mistral 7B v0.1 (Mistral AI)
    "tiny": Config("tiny", 2, 64, 4, 2, 128, 256, max_seq=1024),
    "gpt-1.5b": Config("gpt-1.5b", 48, 1600, 25, 25, 6400, 50257, max_seq=1024, gpt=True),
    "llama3-8b": Config("llama3-8b", 32, 4096, 32, 8, 14336, 128256),
    "llama3-70b": Config("llama3-70b", 80, 8192, 64, 8, 28672, 128256),
    "mistral-7b": Config("mistral-7b", 32, 4096, 32, 8, 14336, 32000, max_seq=32768, window=4096, rope_theta=10000.0),
}


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x) * self.weight


def rope_tables(seq, head_dim, theta, device):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    f = torch.outer(torch.arange(seq, device=device).float(), inv)
    return torch.cos(f), torch.sin(f)


def apply_rope(x, cos, sin):
    x1, x2 = x[..., 0::2], x[..., 1::2]
    c, s = cos[None, None, :, :], sin[None, None, :, :]
    out = torch.stack((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1)
    return out.flatten(-2).type_as(x)


HAVE_SDPA = hasattr(F, "scaled_dot_product_attention")


def manual_attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d) + causal or given mask) v, in float32: the reference, and the path on torch
    versions without scaled_dot_product_attention (< 2.0)."""
    t = q.shape[-2]
    s = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if mask is None:
        mask = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    s = s.masked_fill(~mask, float("-inf"))
    return (torch.softmax(s, dim=-1) @ v.float()).type_as(q)


def flex_ok():
    """FlexAttention imports and a GPU runs it (on the CPU this torch falls back to a slow path)."""
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention  # noqa: F401
    except Exception:  # noqa: BLE001
        return False
    return torch.cuda.is_available()


_compiled_flex = None


def flex(q, k, v, block_mask):
    """flex_attention with a block mask: compiled on its own in eager mode (uncompiled it materialises the scores),
    traced as is inside a compiled model."""
    global _compiled_flex
    from torch.nn.attention.flex_attention import flex_attention
    if torch.compiler.is_compiling():
        return flex_attention(q, k, v, block_mask=block_mask)
    if _compiled_flex is None:
        _compiled_flex = torch.compile(flex_attention)
    return _compiled_flex(q, k, v, block_mask=block_mask)


def window_block_mask(seq, window, device):
    """FlexAttention's block mask of causal sliding-window attention: blocks wholly outside the window are
    skipped, not computed and masked."""
    from torch.nn.attention.flex_attention import create_block_mask

    def allowed(b, h, qi, ki):
        return (qi >= ki) & (qi - ki < window)
    return create_block_mask(allowed, None, None, seq, seq, device=device)


def sdpa(q, k, v, mask=None):
    """Causal attention (or the given boolean mask, or a FlexAttention block mask) through SDPA where torch has it."""
    if mask is not None and not isinstance(mask, torch.Tensor):
        return flex(q, k, v, mask)
    if not HAVE_SDPA:
        return manual_attention(q, k, v, mask)
    if mask is None:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        hd = cfg.head_dim
        self.q = nn.Linear(cfg.hidden, cfg.heads * hd, bias=cfg.gpt)
        self.k = nn.Linear(cfg.hidden, cfg.kv_heads * hd, bias=cfg.gpt)
        self.v = nn.Linear(cfg.hidden, cfg.kv_heads * hd, bias=cfg.gpt)
        self.o = nn.Linear(cfg.heads * hd, cfg.hidden, bias=cfg.gpt)

    def forward(self, x, rope, mask):
        b, t, _ = x.shape
        hd = self.cfg.head_dim
        q = self.q(x).view(b, t, self.cfg.heads, hd).transpose(1, 2)
        k = self.k(x).view(b, t, self.cfg.kv_heads, hd).transpose(1, 2)
        v = self.v(x).view(b, t, self.cfg.kv_heads, hd).transpose(1, 2)
        if rope is not None:
            q, k = apply_rope(q, *rope), apply_rope(k, *rope)
        if self.cfg.kv_heads != self.cfg.heads:
            rep = self.cfg.heads // self.cfg.kv_heads
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
        y = sdpa(q, k, v, mask)
        return self.o(y.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.gpt = cfg.gpt
        if cfg.gpt:
            self.up = nn.Linear(cfg.hidden, cfg.ffn)
            self.down = nn.Linear(cfg.ffn, cfg.hidden)
        else:
            self.gate = nn.Linear(cfg.hidden, cfg.ffn, bias=False)
            self.up = nn.Linear(cfg.hidden, cfg.ffn, bias=False)
            self.down = nn.Linear(cfg.ffn, cfg.hidden, bias=False)

    def forward(self, x):
        if self.gpt:
            return self.down(F.gelu(self.up(x), approximate="tanh"))
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        norm = (lambda: nn.LayerNorm(cfg.hidden)) if cfg.gpt else (lambda: RMSNorm(cfg.hidden))
        self.n1, self.attn, self.n2, self.mlp = norm(), Attention(cfg), norm(), MLP(cfg)

    def forward(self, x, rope, mask):
        x = x + self.attn(self.n1(x), rope, mask)
        return x + self.mlp(self.n2(x))


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.hidden)
        self.pos = nn.Embedding(cfg.max_seq, cfg.hidden) if cfg.gpt else None
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.norm = nn.LayerNorm(cfg.hidden) if cfg.gpt else RMSNorm(cfg.hidden)
        self.head = nn.Linear(cfg.hidden, cfg.vocab, bias=False)
        if cfg.gpt:
            self.head.weight = self.embed.weight  # GPT-2 ties the head to the embedding
        self.apply(self._init)
        self.block_mask, self.block_mask_seq = None, 0

    def prepare_window(self, seq, device):
        """Before compiling: the sliding window of a seq-token run through a FlexAttention block mask, where FlexAttention
        runs (a GPU, torch >= 2.5). Returns whether it does; otherwise forward() builds a boolean mask (SDPA then
        computes all T^2 scores)."""
        if not (self.cfg.window and self.cfg.window < seq and flex_ok() and torch.device(device).type == "cuda"):
            return False
        self.block_mask, self.block_mask_seq = window_block_mask(seq, self.cfg.window, device), seq
        return True

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
            if getattr(m, "bias", None) is not None:
                nn.init.zeros_(m.bias)

    def forward(self, tokens):
        b, t = tokens.shape
        x = self.embed(tokens)
        rope = None
        if self.pos is not None:
            x = x + self.pos(torch.arange(t, device=tokens.device))[None]
        else:
            rope = rope_tables(t, self.cfg.head_dim, self.cfg.rope_theta, tokens.device)
        mask = None
        if self.block_mask is not None and t == self.block_mask_seq:
            mask = self.block_mask
        elif self.cfg.window and self.cfg.window < t:
            i = torch.arange(t, device=tokens.device)
            mask = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < self.cfg.window)
        for blk in self.blocks:
            x = blk(x, rope, mask)
        return self.head(self.norm(x))

    def flop_params(self):
        """N of the FLOP formula: every parameter except the input embedding; the output head is counted (for a
        tied head, the shared matrix counts once, as the head)."""
        n = sum(p.numel() for p in self.parameters())  # parameters() yields a tied weight once
        n -= self.embed.weight.numel()
        if self.cfg.gpt:
            n += self.head.weight.numel()  # tied: the matrix is the head here
        return n


def param_count(cfg):
    """Parameters of Model(cfg), computed from the shapes (no allocation): (total, N of the FLOP formula)."""
    hd, h = cfg.head_dim, cfg.hidden
    attn = h * cfg.heads * hd + 2 * h * cfg.kv_heads * hd + cfg.heads * hd * h
    if cfg.gpt:
        attn += cfg.heads * hd + 2 * cfg.kv_heads * hd + h  # biases
        mlp = 2 * h * cfg.ffn + cfg.ffn + h
        norms = 2 * 2 * h
    else:
        mlp = 3 * h * cfg.ffn
        norms = 2 * h
    block = attn + mlp + norms
    embed = cfg.vocab * h
    final_norm = 2 * h if cfg.gpt else h
    pos = cfg.max_seq * h if cfg.gpt else 0
    head = 0 if cfg.gpt else cfg.vocab * h  # tied for GPT
    total = embed + pos + cfg.layers * block + final_norm + head
    n_flop = total - embed + (embed if cfg.gpt else 0)
    return total, n_flop
