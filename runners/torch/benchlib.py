"""Shared by the PyTorch runners: the runner contract (docs/architecture.md), Triton's do_bench schedule, statistics,
and the FLOP formulas of docs/architecture.md. No dependency beyond torch (and the standard library)."""
import json
import math
import os
import sys
import time

import torch

SCHEMA = "bench.result/v1"


# ---- the contract -------------------------------------------------------------------------------------------------

def load_config(suite, argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "-h" in argv or "--help" in argv:
        print(f"usage: {os.path.basename(sys.argv[0])} --config CASES.json")
        sys.exit(0)
    if "--config" not in argv or argv.index("--config") + 1 >= len(argv):
        print("error: missing --config CASES.json", file=sys.stderr)
        sys.exit(2)
    path = argv[argv.index("--config") + 1]
    try:
        with open(path) as f:
            cfg = json.load(f)
    except (OSError, ValueError) as e:
        print(f"error: {path}: {e}", file=sys.stderr)
        sys.exit(1)
    cases = cfg if isinstance(cfg, list) else cfg.get("cases", [])
    return cfg, [c for c in cases if c.get("suite", suite) == suite]


def record(suite, case):
    return {"schema": SCHEMA, "suite": suite, "case": case["case"], "params": case["params"], "status": "failed",
            "metric": None, "unit": None, "value": None, "stats": None, "samples_ms": None, "extra": {}, "error": None}


def set_samples(rec, metric, unit, samples_ms, to_metric):
    vals = [to_metric(t) for t in samples_ms]
    st = stats(vals)
    rec.update(status="ok", metric=metric, unit=unit, value=st["median"], stats=st,
               samples_ms=[float(t) for t in samples_ms], error=None)


def emit(rec):
    sys.stdout.write(json.dumps(rec, sort_keys=True, separators=(",", ":"), allow_nan=False, default=float) + "\n")
    sys.stdout.flush()


def percentile(sorted_x, p):
    if not sorted_x:
        return float("nan")
    idx = p * (len(sorted_x) - 1)
    lo = int(idx)
    if lo + 1 >= len(sorted_x):
        return sorted_x[-1]
    return sorted_x[lo] + (sorted_x[lo + 1] - sorted_x[lo]) * (idx - lo)


def stats(x):
    s = sorted(x)
    n = len(s)
    mean = sum(s) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in s) / (n - 1)) if n > 1 else 0.0
    return {"n": n, "median": percentile(s, 0.5), "mean": mean, "min": s[0], "max": s[-1],
            "p10": percentile(s, 0.1), "p90": percentile(s, 0.9), "cv": sd / mean if mean else 0.0}


def device_info():
    d = {"torch": torch.__version__, "python": sys.version.split()[0]}
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        d.update(vendor="rocm" if torch.version.hip else "cuda", name=p.name, devices=torch.cuda.device_count(),
                 memory_bytes=p.total_memory, sm_count=p.multi_processor_count,
                 cuda=torch.version.cuda, hip=torch.version.hip,
                 cudnn=torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None)
    else:
        d.update(vendor="cpu", name="cpu", threads=torch.get_num_threads())
    try:
        import triton
        d["triton"] = triton.__version__
    except Exception:
        pass
    return d


# ---- do_bench -------------------------------------------------------------------------------------------------------

def do_bench(fn, warmup_ms=30.0, rep_ms=200.0, flush=True, flush_bytes=256 << 20, max_repeat=100000):
    """Triton's do_bench schedule: one untimed call; the estimate is 5 flushed calls timed together; then
    max(1, int(warmup/estimate)) unflushed warm-up calls and max(1, int(rep/estimate)) timed calls, each after a
    flush outside its own timed region. Returns (samples_ms, schedule)."""
    cuda = torch.cuda.is_available()
    dev = "cuda" if cuda else "cpu"
    cache = torch.empty(flush_bytes // 4, dtype=torch.int32, device=dev) if flush else None

    def sync():
        if cuda:
            torch.cuda.synchronize()

    def clear():
        if cache is not None:
            cache.zero_()

    fn()
    sync()
    if cuda:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(5):
            clear()
            fn()
        e.record()
        sync()
        est = s.elapsed_time(e) / 5
    else:
        t0 = time.perf_counter()
        for _ in range(5):
            clear()
            fn()
        est = (time.perf_counter() - t0) * 1e3 / 5
    n_warm = max(1, int(warmup_ms / est)) if est > 0 else 1
    n_rep = min(max(1, int(rep_ms / est)) if est > 0 else 1, max_repeat)
    for _ in range(n_warm):
        fn()
    samples = []
    if cuda:
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
        for i in range(n_rep):
            clear()
            starts[i].record()
            fn()
            ends[i].record()
        sync()
        samples = [a.elapsed_time(b) for a, b in zip(starts, ends)]
    else:
        for _ in range(n_rep):
            clear()
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e3)
    return samples, {"estimate_ms": est, "n_warmup": n_warm, "n_repeat": n_rep,
                     "flush_bytes": flush_bytes if flush else 0}


# ---- FLOP formulas (docs/architecture.md) -------------------------------------------------------------------------

def attention_density(seq, causal, window=0):
    """Attended fraction of the T x T score matrix: 1 full, 0.5 causal (the FlashAttention / Megatron
    convention), sliding window W: [W(W+1)/2 + (T - W) W] / T^2 (equals causal when T <= W)."""
    if not causal:
        return 1.0
    if window and window < seq:
        return (window * (window + 1) / 2 + (seq - window) * window) / seq ** 2
    return 0.5


def attention_fwd_flop(batch, seq, heads, head_dim, causal, window=0):
    """FlashAttention-2: 4 B S^2 H D, scaled by the attended fraction (halved when causal)."""
    return 4.0 * batch * seq * seq * heads * head_dim * attention_density(seq, causal, window)


PASS_FACTOR = {"fwd": 1.0, "bwd": 2.5, "fwd_bwd": 3.5}


def training_flop_per_token(n_params_no_embed, layers, heads, head_dim, seq, density):
    """6 N + 12 L H d T density, N = every parameter except the input embedding (the output head kept)."""
    return 6.0 * n_params_no_embed + 12.0 * layers * heads * head_dim * seq * density
