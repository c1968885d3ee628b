# SPDX-License-Identifier: Apache-2.0
"""An independent reference of the training suite's models: the same architecture written again as plain functions
over a state dict (no nn.Module, no scaled_dot_product_attention: the attention is an explicit softmax over a
mask built here, the rotary embedding rotates complex pairs), in float32 or float64. train.py checks its first
step against it: the loss and the gradient norm of the same weights on the same tokens must agree.

  loss, grad_norm = reference.loss_and_grad_norm(cfg, state_dict, tokens)
"""
import math

import torch


def _rms_norm(x, w, eps=1e-5):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * w


def _layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def _rotate(x, theta):
    """Rotary embedding: consecutive pairs (x0, x1) of each head as complex numbers times e^(i t f)."""
    b, h, t, d = x.shape
    f = theta ** (-torch.arange(0, d, 2, dtype=torch.float64, device=x.device) / d)
    ang = torch.arange(t, dtype=torch.float64, device=x.device)[:, None] * f[None, :]
    cos, sin = torch.cos(ang).to(x.dtype), torch.sin(ang).to(x.dtype)
    re, im = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = re * cos - im * sin
    out[..., 1::2] = re * sin + im * cos
    return out


def _linear(x, sd, name, bias):
    y = x @ sd[name + ".weight"].t()
    return y + sd[name + ".bias"] if bias else y


def _mamba2(cfg, sd, p, u):
    """The Mamba2 mixer written again: projections, the causal depthwise conv as a sum over its taps, and the
    selective scan one position at a time (h_t = exp(dt_t A) h_(t-1) + dt_t x_t B_t^T, y_t = h_t C_t + D x_t), then
    the gated per-group RMSNorm and the output projection. No chunking: independent of ssm.ssd_chunked."""
    b, t, _ = u.shape
    di, g, n, h, hp = cfg.d_inner, cfg.ssm_groups, cfg.ssm_state, cfg.ssm_heads, cfg.ssm_head_dim
    proj = u @ sd[p + "in_proj.weight"].t()
    z, xbc, dt = proj[..., :di], proj[..., di:2 * di + 2 * g * n], proj[..., 2 * di + 2 * g * n:]
    w, k = sd[p + "conv.weight"][:, 0, :], sd[p + "conv.weight"].shape[-1]   # (channels, taps)
    conv = sd[p + "conv.bias"].expand(b, t, -1).clone()
    for j in range(k):  # tap j reads the input j positions back (zero before the start)
        shifted = torch.zeros_like(xbc)
        shifted[:, j:] = xbc[:, :t - j]
        conv = conv + shifted * w[:, k - 1 - j]
    xbc = conv * torch.sigmoid(conv)
    x = xbc[..., :di].reshape(b, t, h, hp)
    B, C = xbc[..., di:di + g * n].reshape(b, t, g, n), xbc[..., di + g * n:].reshape(b, t, g, n)
    dt = torch.nn.functional.softplus(dt + sd[p + "dt_bias"])
    A = -torch.exp(sd[p + "A_log"])
    grp = [j // (h // g) for j in range(h)]  # head j reads the B and C of group j // (heads per group)
    state = x.new_zeros(b, h, hp, n)
    ys = []
    for i in range(t):
        state = torch.exp(dt[:, i] * A)[..., None, None] * state + \
            (dt[:, i, :, None] * x[:, i])[..., None] * B[:, i, grp][:, :, None, :]
        ys.append((state * C[:, i, grp][:, :, None, :]).sum(-1) + sd[p + "D"][:, None] * x[:, i])
    y = torch.stack(ys, dim=1).reshape(b, t, di) * (z * torch.sigmoid(z))
    y = y.reshape(b, t, g, di // g)
    y = (y / torch.sqrt((y * y).mean(-1, keepdim=True) + 1e-5)).reshape(b, t, di) * sd[p + "norm"]
    return y @ sd[p + "out_proj.weight"].t()


def forward(cfg, sd, tokens):
    """Logits of cfg's model with the weights in sd (a dict of tensors keyed as Model.state_dict())."""
    b, t = tokens.shape
    hd = cfg.hidden // cfg.heads
    x = sd["embed.weight"][tokens]
    if cfg.gpt:
        x = x + sd["pos.weight"][:t][None]
    i = torch.arange(t, device=tokens.device)
    allowed = i[None, :] <= i[:, None]
    if cfg.window:
        allowed = allowed & (i[:, None] - i[None, :] < cfg.window)
    for layer in range(cfg.layers):
        p = f"blocks.{layer}."
        if cfg.ssm_state and (not cfg.attn_every or (layer + 1) % cfg.attn_every):  # a hybrid's Mamba2 layer
            x = x + _mamba2(cfg, sd, p + "mixer.", _rms_norm(x, sd[p + "n1.weight"]))
            continue
        n1 = _layer_norm(x, sd[p + "n1.weight"], sd[p + "n1.bias"]) if cfg.gpt else _rms_norm(x, sd[p + "n1.weight"])
        q = _linear(n1, sd, p + "attn.q", cfg.gpt).view(b, t, cfg.heads, hd).transpose(1, 2)
        k = _linear(n1, sd, p + "attn.k", cfg.gpt).view(b, t, cfg.kv_heads, hd).transpose(1, 2)
        v = _linear(n1, sd, p + "attn.v", cfg.gpt).view(b, t, cfg.kv_heads, hd).transpose(1, 2)
        if not cfg.gpt:
            q, k = _rotate(q, cfg.rope_theta), _rotate(k, cfg.rope_theta)
        group = cfg.heads // cfg.kv_heads  # query head j reads key/value head j // group
        k = k[:, [j // group for j in range(cfg.heads)]]
        v = v[:, [j // group for j in range(cfg.heads)]]
        s = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(hd)
        s = torch.where(allowed, s, torch.full_like(s, -math.inf))
        a = torch.exp(s - s.max(-1, keepdim=True).values)
        a = a / a.sum(-1, keepdim=True)
        y = torch.einsum("bhqk,bhkd->bhqd", a, v).transpose(1, 2).reshape(b, t, cfg.heads * hd)
        x = x + _linear(y, sd, p + "attn.o", cfg.gpt)
        n2 = _layer_norm(x, sd[p + "n2.weight"], sd[p + "n2.bias"]) if cfg.gpt else _rms_norm(x, sd[p + "n2.weight"])
        if cfg.gpt:
            u = _linear(n2, sd, p + "mlp.up", True)
            gelu = 0.5 * u * (1 + torch.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))
            x = x + _linear(gelu, sd, p + "mlp.down", True)
        else:
            gate = _linear(n2, sd, p + "mlp.gate", False)
            x = x + _linear(gate * torch.sigmoid(gate) * _linear(n2, sd, p + "mlp.up", False), sd, p + "mlp.down", False)
    x = _layer_norm(x, sd["norm.weight"], sd["norm.bias"]) if cfg.gpt else _rms_norm(x, sd["norm.weight"])
    head = sd["embed.weight"] if cfg.gpt else sd["head.weight"]
    return x @ head.t()


def loss_and_grad_norm(cfg, state, tokens, dtype=torch.float64, device="cpu"):
    """(mean next-token cross-entropy, L2 norm of the gradient over every distinct weight) for tokens (B, T+1),
    computed on device in dtype from detached aliases (or copies, where dtype or device differ) of state. A weight the model lacks raises KeyError."""
    sd = {k: v.detach().to(device, dtype).requires_grad_() for k, v in state.items()}  # a copy only where the type differs
    tokens = tokens.to(device)
    logits = forward(cfg, sd, tokens[:, :-1])
    logp = logits - torch.logsumexp(logits, -1, keepdim=True)
    tgt = tokens[:, 1:]
    loss = -logp.gather(-1, tgt[..., None]).mean()
    used = [v for v in sd.values()]
    grads = torch.autograd.grad(loss, used, allow_unused=True)
    sq = sum(float((g * g).sum()) for g in grads if g is not None)
    return float(loss), math.sqrt(sq)


def init_loss(cfg, std=0.02):
    """The expected loss of the randomly initialised model: logits z = h . w with h of unit RMS after the final
    norm and head weights N(0, std^2) are ~N(0, hidden std^2); E[logsumexp] over V such logits is
    ln V + hidden std^2 / 2, so the loss starts there (uniform prediction, ln V, plus the logits' spread)."""
    return math.log(cfg.vocab) + cfg.hidden * std * std / 2
