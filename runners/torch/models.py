# SPDX-License-Identifier: Apache-2.0
"""The training suite's models, written plainly in PyTorch: token embedding, RMSNorm (LayerNorm for GPT),
rotary position embedding (learned positions for GPT), grouped-query attention through
scaled_dot_product_attention (a sliding-window mask for Mistral), SwiGLU (GELU for GPT), output head.
Hybrids (Config.ssm_state > 0): Mamba2 blocks (the ssm suite's chunked SSD, ssm.ssd_chunked) with a Llama block
(attention + SwiGLU) as every attn_every-th layer, as Jamba and NVIDIA's Mamba2-Hybrid interleave them."""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

import benchlib as bl
from ssm import _cumsum_outside_graph, ssd_chunked


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
    # hybrid Mamba2 + attention (ssm_state > 0): Mamba2 mixer shapes, and every attn_every-th layer a Llama block
    ssm_state: int = 0         # N, the state size (Mamba2 d_state)
    ssm_head_dim: int = 64     # P (Mamba2 headdim)
    ssm_expand: int = 2        # d_inner = expand * hidden; ssm heads = d_inner / P
    ssm_groups: int = 1        # G, groups of heads sharing B and C (Mamba2 ngroups)
    ssm_conv: int = 4          # the causal depthwise conv1d's width (Mamba2 d_conv)
    ssm_chunk: int = 256       # Q, the SSD chunk (Mamba2 chunk_size)
    attn_every: int = 0        # layer i is attention + MLP where (i + 1) % attn_every == 0, else Mamba2

    @property
    def d_inner(self):
        return self.ssm_expand * self.hidden

    @property
    def ssm_heads(self):
        return self.d_inner // self.ssm_head_dim

    def layer_kinds(self):
        """'attn' or 'mamba' per layer: every layer is attention unless this is a hybrid."""
        if not self.ssm_state:
            return ["attn"] * self.layers
        return ["attn" if self.attn_every and (i + 1) % self.attn_every == 0 else "mamba" for i in range(self.layers)]

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
    # hybrids (docs/architecture.md, "Hybrid models"): the Mamba2 layers of Mamba2-2.7B (state-spaces/mamba2-2.7b:
    # d_model 2560, 64 layers, d_state 128, headdim 64, expand 2, ngroups 1, d_conv 4, chunk 256, vocabulary 50277
    # padded to 50288), every 4th layer a Llama block instead (GQA 20 heads of 128, 4 kv heads, SwiGLU 6912: bench's
    # choice, Llama's head size, ~2.7x width); hybrid-tiny: 3 Mamba2 + 1 attention at toy width, for CPU checks
    "hybrid-tiny": Config("hybrid-tiny", 4, 64, 4, 2, 128, 256, max_seq=1024, ssm_state=16, ssm_head_dim=16,
                          ssm_groups=2, ssm_chunk=16, attn_every=4),
    "hybrid-mamba2-3b": Config("hybrid-mamba2-3b", 64, 2560, 20, 4, 6912, 50288, ssm_state=128, ssm_head_dim=64,
                               ssm_groups=1, ssm_chunk=256, attn_every=4),
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


class Mamba2(nn.Module):
    """The Mamba2 mixer (Dao and Gu 2024, mamba_ssm's Mamba2 layer without its fused kernels): one input projection to
    z (the gate), x, B, C and dt; a causal depthwise conv1d and SiLU over x, B, C; the SSD scan (ssm.ssd_chunked, the
    ssm suite's chunked algorithm) with dt = softplus(dt + dt_bias), A = -exp(A_log) per head, plus the D skip; a
    gated RMSNorm per group (norm(y * silu(z))); the output projection. Parameters are initialised as Mamba2 does:
    dt in [1e-3, 1e-1] log-uniform through dt_bias, A in [1, 16], D = 1."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        di, g, n, h = cfg.d_inner, cfg.ssm_groups, cfg.ssm_state, cfg.ssm_heads
        self.conv_dim = di + 2 * g * n
        self.in_proj = nn.Linear(cfg.hidden, 2 * di + 2 * g * n + h, bias=False)
        self.conv = nn.Conv1d(self.conv_dim, self.conv_dim, cfg.ssm_conv, groups=self.conv_dim, bias=True)
        dt = torch.exp(torch.rand(h) * (math.log(0.1) - math.log(1e-3)) + math.log(1e-3)).clamp(min=1e-4)
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))  # softplus(dt_bias) = dt
        self.A_log = nn.Parameter(torch.log(torch.empty(h).uniform_(1, 16)))
        self.D = nn.Parameter(torch.ones(h))
        self.norm = nn.Parameter(torch.ones(di))  # the gated RMSNorm's weight
        self.out_proj = nn.Linear(di, cfg.hidden, bias=False)

    def forward(self, u):
        cfg = self.cfg
        b, t, _ = u.shape
        di, g, n, h, p = cfg.d_inner, cfg.ssm_groups, cfg.ssm_state, cfg.ssm_heads, cfg.ssm_head_dim
        z, xbc, dt = torch.split(self.in_proj(u), [di, self.conv_dim, h], dim=-1)
        # causal: K - 1 zeros before the first position (not both sides and a slice: no outputs computed to drop)
        xbc = F.silu(self.conv(F.pad(xbc.transpose(1, 2), (cfg.ssm_conv - 1, 0))).transpose(1, 2))
        x, B, C = torch.split(xbc, [di, g * n, g * n], dim=-1)
        x, B, C = x.reshape(b, t, h, p), B.reshape(b, t, g, n), C.reshape(b, t, g, n)
        dt = F.softplus(dt.float() + self.dt_bias.float())
        A = -torch.exp(self.A_log.float())
        q = ssd_chunk(cfg, t)
        pad = (-t) % q  # causal: zeros after the last token change no output before it
        xs, dts, Bs, Cs = x, dt, B, C
        if pad:
            xs, Bs, Cs = (F.pad(v, (0, 0, 0, 0, 0, pad)) for v in (x, B, C))
            dts = F.pad(dt, (0, 0, 0, pad))
        y = ssd_chunked(xs, dts, A, Bs, Cs, q, _cumsum())[:, :t]
        y = (y + x * self.D[:, None].to(x.dtype)).reshape(b, t, di)
        yg = (y * F.silu(z)).float().reshape(b, t, g, di // g)
        yg = yg * torch.rsqrt(yg.pow(2).mean(-1, keepdim=True) + 1e-5)
        return self.out_proj(yg.reshape(b, t, di).type_as(y) * self.norm)


_cumsum_fn = []


def _cumsum():
    """The SSD's cumulative sum: outside the graph under torch.compile (ssm.py says why), torch.cumsum otherwise."""
    if not _cumsum_fn:
        _cumsum_fn.append(_cumsum_outside_graph() or torch.cumsum)
    return _cumsum_fn[0]


def ssd_chunk(cfg, seq):
    """The SSD chunk Q of a seq-token run: the model's chunk, or seq where it is shorter."""
    return min(cfg.ssm_chunk, seq)


class MambaBlock(nn.Module):
    """RMSNorm, the Mamba2 mixer, the residual (Mamba2's block: no MLP)."""

    def __init__(self, cfg):
        super().__init__()
        self.n1, self.mixer = RMSNorm(cfg.hidden), Mamba2(cfg)

    def forward(self, x, rope=None, mask=None):
        return x + self.mixer(self.n1(x))


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.hidden)
        self.pos = nn.Embedding(cfg.max_seq, cfg.hidden) if cfg.gpt else None
        self.blocks = nn.ModuleList(Block(cfg) if k == "attn" else MambaBlock(cfg) for k in cfg.layer_kinds())
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
    kinds = cfg.layer_kinds()
    blocks = kinds.count("attn") * block + kinds.count("mamba") * mamba_block_params(cfg)
    embed = cfg.vocab * h
    final_norm = 2 * h if cfg.gpt else h
    pos = cfg.max_seq * h if cfg.gpt else 0
    head = 0 if cfg.gpt else cfg.vocab * h  # tied for GPT
    total = embed + pos + blocks + final_norm + head
    n_flop = total - embed + (embed if cfg.gpt else 0)
    return total, n_flop


def mamba_block_params(cfg):
    """Parameters of one MambaBlock: its norm, in_proj, the conv1d's weight and bias, dt_bias, A_log, D, the gated
    norm's weight, out_proj."""
    di, g, n, h = cfg.d_inner, cfg.ssm_groups, cfg.ssm_state, cfg.ssm_heads
    conv_dim = di + 2 * g * n
    return cfg.hidden + cfg.hidden * (2 * di + 2 * g * n + h) + conv_dim * (cfg.ssm_conv + 1) + 3 * h + di + di * cfg.hidden


FLOP_CONVENTION_HYBRID = ("6N + 12 L_attn H d T density + 3 L_mamba (2[G Q Ns + Hs P (Q + 2 Ns)] + 2 Hs P Ns / Q): "
                          "the ssm suite's chunked-SSD count per token, fwd+bwd 3x (docs/architecture.md)")


def flop_per_token(cfg, n, seq, density):
    """Model FLOP per token of a training step (forward + backward): 6 N (every matmul against a weight, the conv1d
    and the head included) + the attention scores 12 L_attn H d T density + for a hybrid the SSD's sequence mixing,
    3 x the ssm suite's forward count per token (benchlib.ssd_fwd_flop). Returns (flop, the parts)."""
    kinds = cfg.layer_kinds()
    la, lm = kinds.count("attn"), kinds.count("mamba")
    attn = bl.training_flop_per_token(n, la, cfg.heads, cfg.head_dim, seq, density) - 6.0 * n
    parts = {"dense_6n": 6.0 * n, "attention": attn}
    if lm:
        q = ssd_chunk(cfg, seq)
        fwd = bl.ssd_fwd_flop(1, seq, cfg.ssm_heads, cfg.ssm_head_dim, cfg.ssm_state, q, cfg.ssm_groups) / seq
        parts.update(ssd=lm * fwd * bl.SSD_PASS_FACTOR["fwd_bwd"], attention_layers=la, mamba_layers=lm, ssd_chunk=q)
    return parts["dense_6n"] + parts["attention"] + parts.get("ssd", 0.0), parts
