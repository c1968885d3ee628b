# SPDX-License-Identifier: Apache-2.0
"""FP8 training without torchao: a PyTorch-native float8 linear, and the swap into a model's linear layers.

Recipe (torchao's "tensorwise", Micikevicius et al. 2022): dynamic scaling per tensor, the amax taken from the
current step (no history); activations and weights in e4m3, gradients in e5m2; each linear's three GEMMs --
forward y = x W^T, grad input dx = dy W, grad weight dW = dy^T x -- through torch._scaled_mm with fp32
accumulation and the inverse scales as its dequantisation factors. On gfx942 (MI300) the fnuz types (no negative
zero, bias + 1) replace the OCP ones. Where torch has no float8 dtypes (Debian's torch 1.13) every step can run in
float32 emulation (values rounded onto the fp8 grid, products in float32): the scaling math and the autograd
wiring are tested that way on the CPU.

convert(model) swaps the linears of model.blocks (every block linear; the output head stays in bf16, as torchao
and torchtitan leave it, unless head=True: training's fp8_head) and returns what the record states: the implementation, the layers, the share of N.
When torchao imports, its own convert_to_float8_training does the swap instead, with the same filter."""
import math

import torch
import torch.nn as nn


class Format:
    """One fp8 encoding: its torch dtype (None without float8 support), largest finite value, mantissa bits and
    smallest normal exponent (what the float32 emulation needs)."""

    def __init__(self, name, dtype, fmax, mbits, emin):
        self.name, self.dtype, self.max, self.mbits, self.emin = name, dtype, fmax, mbits, emin

    def __repr__(self):
        return self.name


def formats(fnuz=False):
    """(e4m3, e5m2): the OCP types (H100/H200, MI350), or the fnuz ones of gfx942."""
    if fnuz:
        return (Format("e4m3fnuz", getattr(torch, "float8_e4m3fnuz", None), 240.0, 3, -7),
                Format("e5m2fnuz", getattr(torch, "float8_e5m2fnuz", None), 57344.0, 2, -15))
    return (Format("e4m3fn", getattr(torch, "float8_e4m3fn", None), 448.0, 3, -6),
            Format("e5m2", getattr(torch, "float8_e5m2", None), 57344.0, 2, -14))


def is_gfx942(device=None):
    """An MI300 (gfx942) under ROCm: its fp8 GEMMs take the fnuz types."""
    if not (torch.version.hip and torch.cuda.is_available()):
        return False
    arch = getattr(torch.cuda.get_device_properties(device or 0), "gcnArchName", "") or ""
    return arch.split(":")[0] == "gfx942"


def support(device):
    """None when this torch and device run native fp8 GEMMs, else the reason."""
    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        return f"fp8 training needs float8 dtypes and torch._scaled_mm (torch >= 2.1); this torch {torch.__version__} has none"
    if device.type != "cuda":
        return "fp8 training needs a GPU with fp8 tensor cores (this run is on the CPU)"
    if not torch.version.hip:
        cap = torch.cuda.get_device_capability(device)
        if cap < (8, 9):
            return f"fp8 GEMMs need compute capability 8.9 or newer (this GPU is {cap[0]}.{cap[1]})"
    return None


EPS = 1e-12


def amax_to_scale(amax, fmax):
    """Tensorwise scale: amax maps onto the format's largest value (amax 0: scale 1/EPS stays finite)."""
    return (fmax / torch.clamp(amax.float(), min=EPS)).float()


def round_to_grid(x, fmt):
    """x (float32, already scaled and clamped to +-max) rounded to the nearest fp8 value of fmt, in float32: the
    emulation of x.to(fmt.dtype). Round half to even; subnormals below 2^emin keep the step 2^(emin - mbits)."""
    ax = x.abs()
    e = torch.floor(torch.log2(torch.clamp(ax, min=2.0 ** fmt.emin)))
    step = torch.pow(2.0, e - fmt.mbits)
    return torch.round(x / step) * step


def cast(x, fmt, emulate):
    """(x in fp8, inverse scale): scale from this tensor's own amax, saturate at +-max, convert. emulate: the
    fp8 values as float32 (no float8 dtype needed)."""
    scale = amax_to_scale(x.detach().abs().max(), fmt.max)
    y = torch.clamp(x.float() * scale, -fmt.max, fmt.max)
    q = round_to_grid(y, fmt) if emulate else y.to(fmt.dtype)
    return q, scale.reciprocal()


def scaled_mm(a, b, sa, sb, out_dtype):
    """a (M x K, row-major) @ b (K x N, column-major) in fp8, times the inverse scales, fp32 accumulation."""
    out = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=out_dtype)
    return out[0] if isinstance(out, tuple) else out  # torch 2.1-2.3 returned (out, amax)


def emulated_mm(a, b, sa, sb, out_dtype):
    """The same product from fp8 values held in float32."""
    return ((a.float() @ b.float()) * (sa * sb)).to(out_dtype)


FORMATS = {False: formats(False), True: formats(True)}


class _Fp8Linear(torch.autograd.Function):
    """y = x W^T with its three GEMMs in fp8. x: (M, K); w: (N, K). The fp8 copies of x and W (and their
    inverse scales) are saved for the backward; the gradient is cast to e5m2 with its own amax. fnuz and emulate
    are plain booleans (what torch.compile traces best)."""

    @staticmethod
    def forward(ctx, x, w, fnuz, emulate):
        e4m3 = FORMATS[fnuz][0]
        mm = emulated_mm if emulate else scaled_mm
        x8, sx = cast(x, e4m3, emulate)
        w8, sw = cast(w, e4m3, emulate)
        ctx.save_for_backward(x8, w8, sx, sw)
        ctx.fnuz, ctx.emulate, ctx.x_dtype, ctx.w_dtype = fnuz, emulate, x.dtype, w.dtype
        return mm(x8, w8.t(), sx, sw, x.dtype)

    @staticmethod
    def backward(ctx, gy):
        x8, w8, sx, sw = ctx.saved_tensors
        mm = emulated_mm if ctx.emulate else scaled_mm
        g8, sg = cast(gy.contiguous(), FORMATS[ctx.fnuz][1], ctx.emulate)
        gx = gw = None
        if ctx.needs_input_grad[0]:  # dy (M x N) @ W (N x K): W column-major is W^T stored row-major
            gx = mm(g8, w8.t().contiguous().t(), sg, sw, ctx.x_dtype)
        if ctx.needs_input_grad[1]:  # dy^T (N x M) @ x (M x K)
            gw = mm(g8.t().contiguous(), x8.t().contiguous().t(), sg, sx, ctx.w_dtype)
        return gx, gw, None, None


class Float8Linear(nn.Linear):
    """nn.Linear whose matmuls run in fp8 (the bias is added in the output type). Shares the original layer's
    parameters, so an optimizer built afterwards, or before, sees the same tensors."""

    emulate = False

    @classmethod
    def from_linear(cls, lin, fnuz=False, emulate=False):
        new = cls.__new__(cls)
        nn.Module.__init__(new)
        new.in_features, new.out_features = lin.in_features, lin.out_features
        new.weight, new.bias = lin.weight, lin.bias
        new.fnuz, new.emulate = bool(fnuz), bool(emulate)
        return new

    def forward(self, x):
        shape = x.shape
        dt = autocast_dtype(x)
        x2 = x.reshape(-1, shape[-1]).to(dt)
        with torch.autocast(device_type=x.device.type, enabled=False):
            y = _Fp8Linear.apply(x2, self.weight, self.fnuz, self.emulate)
            if y.dtype != dt:
                y = y.to(dt)
            if self.bias is not None:
                y = y + self.bias.to(dt)
        return y.reshape(*shape[:-1], self.out_features)

    def extra_repr(self):
        e4m3, e5m2 = FORMATS[self.fnuz]
        return f"{super().extra_repr()}, fp8={e4m3}/{e5m2}{' emulated' if self.emulate else ''}"


def autocast_dtype(x):
    """The type autocast computes x's matmuls in, or x's own type outside autocast."""
    if x.is_cuda and torch.is_autocast_enabled():
        get = getattr(torch, "get_autocast_dtype", None)
        return get("cuda") if get else torch.get_autocast_gpu_dtype()
    if not x.is_cuda and torch.is_autocast_cpu_enabled():
        return torch.get_autocast_cpu_dtype()
    return x.dtype


def fits(lin):
    """torch._scaled_mm wants both dimensions of the weight multiples of 16."""
    return lin.in_features % 16 == 0 and lin.out_features % 16 == 0


def torchao_convert():
    """torchao's convert_to_float8_training and its tensorwise config, or None when torchao does not import."""
    try:
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training
    except Exception:  # noqa: BLE001 -- not installed, or an incompatible build: the native linear instead
        return None
    try:
        config = Float8LinearConfig.from_recipe_name("tensorwise")
    except Exception:  # noqa: BLE001 -- older torchao: its default is the tensorwise recipe
        config = Float8LinearConfig()
    return lambda model, keep: convert_to_float8_training(model, config=config, module_filter_fn=keep)


def convert(model, n_flop, fnuz=False, emulate=False, prefer_torchao=True, head=False):
    """Swap every linear of model.blocks to fp8 (in place); the output head too with head=True, else it stays in
    bf16. Returns the record's description: implementation, formats, layers in fp8 and kept, the share of N in fp8."""
    e4m3, e5m2 = formats(fnuz)
    names = {id(m): n for n, m in model.named_modules()}
    fp8, kept = [], []
    for n, m in model.named_modules():
        if isinstance(m, nn.Linear) and (n.startswith("blocks.") or (head and n == "head")):
            (fp8 if fits(m) else kept).append(n)
    if "head" in names.values() and not head:
        kept.append("head")
    n_fp8 = sum(model.get_submodule(n).weight.numel() for n in fp8)
    ao = torchao_convert() if prefer_torchao and not emulate else None
    if ao is not None:
        chosen = set(fp8)
        ao(model, lambda mod, fqn: fqn in chosen)
        impl = "torchao convert_to_float8_training (tensorwise recipe)"
    else:
        for n in fp8:
            parent, _, leaf = n.rpartition(".")
            owner = model.get_submodule(parent)
            setattr(owner, leaf, Float8Linear.from_linear(getattr(owner, leaf), fnuz, emulate))
        impl = ("bench native Float8Linear (float32 emulation of the fp8 grid)" if emulate else
                "bench native Float8Linear (torch._scaled_mm)")
    blocks = sorted({".".join(n.split(".")[2:]) for n in fp8 if n.startswith("blocks.")})
    head_fp8 = "head" in fp8
    return {"fp8_impl": impl, "fp8_recipe": "tensorwise dynamic scaling, amax of the current step",
            "fp8_formats": {"forward": e4m3.name, "gradients": e5m2.name},
            "fp8_layers": f"every block linear ({', '.join(blocks)}){' and the output head' if head_fp8 else ''} in "
                          f"fp8; {', '.join(kept) or 'nothing'} kept in bf16" if fp8 else "none",
            "fp8_head": head_fp8,
            "fp8_linear_count": len(fp8), "fp8_kept": kept, "fp8_share_of_n": n_fp8 / n_flop if n_flop else 0.0}


def blended_peak(flop_fp8, flop_other, fp8_peak, bf16_peak):
    """The peak of a step whose FLOPs run partly in fp8, partly in bf16: the time each part takes at its own peak,
    summed (a harmonic mean weighted by FLOPs)."""
    t = (flop_fp8 / fp8_peak if flop_fp8 else 0.0) + (flop_other / bf16_peak if flop_other else 0.0)
    return (flop_fp8 + flop_other) / t if t > 0 else math.nan
