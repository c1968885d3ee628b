#!/usr/bin/env python3
"""PyTorch runner checks that need no GPU (TAP output): FLOP formulas against docs/architecture.md's worked values and
hand computations, parameter counts against the published model sizes, the manual attention against a direct
computation, the do_bench schedule, the steady-state warm-up (a virtual GPU and a fake telemetry probe), and one tiny
training run.
  python3 tests/torch/test_torch.py
"""
import dataclasses
import math
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "runners", "torch"))
import torch  # noqa: E402

import benchlib as bl  # noqa: E402
from models import MODELS, Model, manual_attention, param_count  # noqa: E402


def test_llama3_8b_flop_per_token_matches_anchors():
    cfg = MODELS["llama3-8b"]
    total, n = param_count(cfg)
    assert abs(total - 8.030e9) / 8.030e9 < 0.001, total          # Meta: 8.03B
    assert abs(n - 7.505e9) / 7.505e9 < 0.001, n                  # docs/architecture.md: N = 7.505e9
    attn = 12 * 32 * 32 * 128 * 4096 * 0.5
    assert abs(attn - 3.221e9) / 3.221e9 < 0.001                  # docs/architecture.md: 3.221e9
    fpt = bl.training_flop_per_token(n, 32, 32, 128, 4096, bl.attention_density(4096, True))
    assert abs(fpt - 48.25e9) / 48.25e9 < 0.001, fpt             # docs/architecture.md: 48.25 GFLOP/token


def test_published_parameter_counts():
    for name, published, tol in (("llama3-70b", 70.55e9, 0.002), ("mistral-7b", 7.24e9, 0.002), ("gpt-1.5b", 1.558e9, 0.002)):
        total, _ = param_count(MODELS[name])
        assert abs(total - published) / published < tol, (name, total)


def test_param_count_matches_the_modules():
    for name in ("tiny",):
        for layers in (1, 2, 3):
            cfg = dataclasses.replace(MODELS[name], layers=layers)
            m = Model(cfg)
            assert param_count(cfg) == (sum(p.numel() for p in m.parameters()), m.flop_params()), name
    gpt = dataclasses.replace(MODELS["gpt-1.5b"], layers=1, hidden=64, heads=4, kv_heads=4, ffn=256, vocab=300, max_seq=32)
    m = Model(gpt)
    assert param_count(gpt) == (sum(p.numel() for p in m.parameters()), m.flop_params())


def test_70b_proxy_head_share():
    """docs/architecture.md: for the 4-layer 70B proxy the output head is ~23% of N."""
    cfg = dataclasses.replace(MODELS["llama3-70b"], layers=4)
    _, n = param_count(cfg)
    share = cfg.vocab * cfg.hidden / n
    assert 0.2 < share < 0.26, share


def test_density_and_attention_flop():
    assert bl.attention_density(4096, False) == 1.0
    assert bl.attention_density(4096, True) == 0.5
    assert bl.attention_density(4096, True, 4096) == 0.5            # T <= W: causal
    w, t = 4096, 8192
    assert abs(bl.attention_density(t, True, w) - (w * (w + 1) / 2 + (t - w) * w) / t ** 2) < 1e-15
    # FlashAttention-2 benchmark: batch 2 x 8192 tokens, 16 heads of 128, causal: 4 B S^2 H D / 2
    assert bl.attention_fwd_flop(2, 8192, 16, 128, True) == 4 * 2 * 8192 ** 2 * 16 * 128 / 2
    assert bl.PASS_FACTOR == {"fwd": 1.0, "bwd": 2.5, "fwd_bwd": 3.5}


def test_manual_attention_matches_a_direct_computation():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 5, 4, generator=g) for _ in range(3))
    out = manual_attention(q, k, v)
    for h in range(2):
        for i in range(5):
            s = torch.tensor([float(q[0, h, i] @ k[0, h, j]) / 2.0 for j in range(i + 1)])
            ref = (torch.softmax(s, 0)[:, None] * v[0, h, : i + 1]).sum(0)
            assert torch.allclose(out[0, h, i], ref, atol=1e-5), (h, i)
    if hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        assert torch.allclose(out, ref, atol=1e-5)


def test_do_bench_schedule_counts():
    calls = []
    samples, sched = bl.do_bench(lambda: calls.append(1), warmup_ms=1.0, rep_ms=2.0, flush=True, flush_bytes=1 << 20)
    assert sched["n_warmup"] == max(1, int(1.0 / sched["estimate_ms"]))
    assert sched["n_repeat"] == len(samples) == max(1, int(2.0 / sched["estimate_ms"]))
    assert len(calls) == 1 + 5 + sched["n_warmup"] + sched["n_repeat"]
    st = bl.stats([7, 1, 10, 3, 5, 2, 9, 4, 8, 6])
    assert st["median"] == 5.5 and abs(st["p10"] - 1.9) < 1e-12 and abs(st["p90"] - 9.1) < 1e-12


class _VirtualGpu:
    """A virtual clock and SM clock curve: a burst takes ~50 ms at the plateau, less at boost."""

    def __init__(self, mhz, watts, plateau):
        self.now, self.mhz, self.watts, self.plateau, self.reads = 0.0, mhz, watts, plateau, 0

    def burst(self):
        ms = 50.0 * self.plateau / self.mhz(self.now)
        self.now += ms
        return ms

    def probe(self):
        self.reads += 1
        return self.mhz(self.now), self.watts(self.now)


def test_steady_is_declared_after_the_plateau_not_before():
    g = _VirtualGpu(lambda t: 1755.0 if t >= 3000 else 1980 - 225 * t / 3000,
                    lambda t: 700.0 if t >= 3000 else 560 + 140 * t / 3000, 1755.0)
    tm = bl.steady_warmup(g.burst, g.probe)
    assert tm["steady_reached"] and tm["method"].startswith("steady:"), tm
    assert 3000 <= tm["steady_after_ms"] <= 3000 + 1000 + 2 * 50, tm


def test_steady_holds_a_power_cap_swing():
    g = _VirtualGpu(lambda t: 1800 + 36 * math.sin(2 * math.pi * t / 300), lambda t: 700.0, 1800.0)
    tm = bl.steady_warmup(g.burst, g.probe)
    assert tm["steady_reached"] and 1000 <= tm["steady_after_ms"] < 1200, tm


def test_steady_budget_ends_a_probe_that_never_settles():
    g = _VirtualGpu(lambda t: 1980 - 60 * t / 1000, lambda t: 700.0, 1800.0)
    tm = bl.steady_warmup(g.burst, g.probe)
    assert not tm["steady_reached"] and tm["method"].startswith("budget:"), tm
    assert 10000 <= tm["steady_after_ms"] < 10000 + 60 and g.reads == tm["bursts"], tm


def test_steady_without_telemetry_sustains_the_fixed_warmup():
    g = _VirtualGpu(lambda t: 1755.0, lambda t: 700.0, 1755.0)
    tm = bl.steady_warmup(g.burst, None, why="telemetry unavailable: cannot load x")
    assert not tm["steady_reached"] and 2000 <= tm["steady_after_ms"] < 2050, tm
    assert "fixed: 2000 ms" in tm["method"] and "cannot load x" in tm["method"] and g.reads == 0


def test_steady_check_needs_a_full_steady_window():
    t = [50.0 * (i + 1) for i in range(60)]
    c, w = [1790.0 if i < 24 else 1755.0 for i in range(60)], [700.0] * 60  # the clock steps down 2% at 1250 ms
    assert not bl.steady_check(t[:19], c[:19], w[:19]) and not bl.steady_check(t[:20], c[:20], w[:20])
    assert bl.steady_check(t[:21], c[:21], w[:21])  # two windows at 1790
    assert not bl.steady_check(t[:30], c[:30], w[:30])  # the last window's median 2% under the one before
    assert bl.steady_check(t[:45], c[:45], w[:45])
    w[36:] = [735.0] * 24  # power 5% up: out of the 3%
    assert not bl.steady_check(t[:45], c[:45], w[:45])
    w[36:] = [714.0] * 24
    assert bl.steady_check(t[:45], c[:45], w[:45])


def test_do_bench_steady_on_cpu_and_the_telemetry_window():
    reads = []

    def source():
        reads.append(1)
        return (1700.0 + len(reads) % 3 * 10, 690.0, 61.0, 0x4 | (0x40 if len(reads) == 2 else 0))
    tel = bl.Telemetry(source=source)
    short = dict(bl.STEADY, min_ms=20.0, window_ms=10.0, budget_ms=200.0, burst_ms=2.0, fallback_ms=20.0)
    calls = []
    samples, sched = bl.do_bench(lambda: calls.append(time.sleep(0.0002)), warmup_ms=1.0, rep_ms=30.0, flush=False,
                                 mode="steady", telemetry=tel, steady=short)
    tm, w = sched["timing"], sched["telemetry"]
    assert tm["mode"] == "steady" and tm["steady_after_ms"] >= 20.0 and tm["warmup_calls"] == sched["n_warmup"]
    assert len(calls) == 1 + 5 + sched["n_warmup"] + sched["n_repeat"] and len(samples) == sched["n_repeat"]
    assert w["available"] and w["samples"] >= 1 and w["sm_clock_mhz"]["min"] >= 1700 and w["source"] == "fake"
    assert "sw_power_cap" in w["throttle_reasons"]
    _, sched = bl.do_bench(lambda: None, warmup_ms=1.0, rep_ms=2.0, flush=False)
    assert sched["timing"] == bl.BURST_TIMING  # burst stays the default of do_bench


def test_telemetry_without_the_library_degrades():
    tel = bl.Telemetry(lib="libbench-no-such-nvml.so.1")
    assert not tel.ok and "cannot load libbench-no-such-nvml.so.1" in tel.why and tel.probe() is None
    tel.window_begin()
    w = tel.window_end()
    assert w["available"] is False and "libbench-no-such-nvml.so.1" in w["why"]
    assert bl.reason_names(0x4 | 0x40 | 0x1000) == ["sw_power_cap", "hw_thermal", "0x1000"]
    s = bl.summarise([(1755.0, 700.0, 61.0, 0x4), (1980.0, 650.0, 58.0, 0x1), (1700.0, 705.0, 66.0, 0), (1760.0, 698.0, 60.0, 0)], "x")
    assert s["sm_clock_mhz"] == {"min": 1700.0, "median": 1757.5, "max": 1980.0} and s["power_w_median"] == 699.0
    assert s["temp_c_max"] == 66.0 and s["throttle_reasons"] == ["gpu_idle", "sw_power_cap"]


def test_gemm_checks_every_case_before_timing_any():
    import gemm
    events, recs = [], []
    real_check, real_bench = gemm.check, bl.do_bench

    def check(fn, ref):
        events.append("check")
        return real_check(fn, ref)

    def bench(*a, **k):
        events.append("time")
        return real_bench(*a, **k)

    def case(name, backend, check=True, k=32):
        return {"case": name, "params": {"backend": backend, "dtype": "fp32", "layout": "tn", "m": 64, "n": 48,
                                          "k": k, "warmup_ms": 0.5, "rep_ms": 1.0, "flush_bytes": 1 << 20,
                                          "seed": 3, "check": check}}
    cases = [case("a", "torch-matmul"), case("b", "torch-linear"), case("c", "torch-matmul", check=False),
             case("d", "torch-linear", k=-1)]  # d: no tensor of that shape, its check pass fails
    gemm.check, bl.do_bench = check, bench
    try:
        gemm.run_cases(cases, torch.device("cpu"), recs.append)
    finally:
        gemm.check, bl.do_bench = real_check, real_bench
    assert events == ["check", "check", "time", "time", "time"], events
    assert [r["status"] for r in recs] == ["ok", "ok", "ok", "failed"], [(r["status"], r["error"]) for r in recs]
    assert recs[0]["extra"]["check"] == "ok" and recs[0]["extra"]["max_rel_err"] < 1e-4
    assert "check" not in recs[2]["extra"] and recs[2]["value"] > 0
    assert recs[3]["error"].startswith("RuntimeError: Trying to create tensor with negative dimension"), recs[3]["error"]


def test_tiny_training_step_trains():
    import train
    case = {"case": "tiny", "params": {"model": "tiny", "layers": "auto", "precision": "fp32", "seq_len": 32,
                                       "micro_batch": 2, "steps": 6, "warmup_steps": 2, "compile": False}}
    rec = train.run_case(case, {}, True)
    assert rec["status"] == "ok", rec["error"]
    ex = rec["extra"]
    assert ex["loss_last"] < ex["loss_first"] and math.isfinite(ex["loss_last"])
    assert len(rec["samples_ms"]) == 4 and rec["metric"] == "tflops_per_gpu"
    assert abs(ex["tokens_per_s"] - 64 / (bl.percentile(sorted(rec["samples_ms"]), 0.5) * 1e-3)) < 1e-6 * ex["tokens_per_s"]


def main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    failed = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print(f"ok {i} - {name}")
        except Exception:
            failed += 1
            print(f"not ok {i} - {name}")
            print("# " + traceback.format_exc().replace("\n", "\n# "))
    print(f"1..{len(tests)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
