#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""GEMM through PyTorch (the gemm suite's torch backends; runner contract: docs/architecture.md): torch.matmul,
F.linear and torch._scaled_mm (fp8: e4m3 x e4m3, or the backward pass's e5m2 gradient x e4m3 weight) on the same
shapes and layouts as bench-gemm, timed with the same do_bench schedule (median headline, samples kept). Layout tn
is nn.Linear's (A MxK, W NxK, C = A W^T), nn is torch.matmul's (A MxK, B KxN). When F.linear is more than 5% slower
than torch.matmul on the same shape, dtype and layout, the later record says so in extra (a known stack bug class:
one of them routed to a slower BLAS). Every case's numerical check runs first, in a pass of its own, so no check
sits between two timing windows.
  gemm.py --config CASES.json
"""
import hashlib
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

import benchlib as bl
import plugins

SUITE = "gemm"
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def inputs(p, dev):
    """Seeded inputs made on the device itself: generating them on the CPU left the GPU idle for a second or more
    before every case, and an H200 at its power cap runs the first 200 ms after an idle up to 10% faster than
    sustained (docs/results/2026-11-30-torch-suites-h200.md)."""
    g = torch.Generator(device=dev).manual_seed(int(p.get("seed", 0)))
    m, n, k = int(p["m"]), int(p["n"]), int(p["k"])
    init = p.get("init", "normal")

    def make(*shape):
        if init == "zeros":
            return torch.zeros(*shape, device=dev)
        if init == "uniform":
            return torch.rand(*shape, generator=g, device=dev) * 2 - 1
        return torch.randn(*shape, generator=g, device=dev)
    a = make(m, k)
    b = make(n, k) if p.get("layout", "tn") == "tn" else make(k, n)  # W (N x K) or B (K x N)
    return a, b


def fp8_types(device, dt):
    """The device's float8 types of a GEMM dtype's operands for torch._scaled_mm, (A's, W's): fp8e4m3 is e4m3 x
    e4m3, fp8e5m2 the backward pass's gradient in e5m2 x weight in e4m3 (cuBLASLt has no e5m2 x e5m2); the fnuz
    types on gfx942 (MI300X, MI325X; its hipBLASLt takes only those), the OCP ones elsewhere (NVIDIA, gfx950); None
    for a type this torch lacks."""
    arch = ""
    if torch.version.hip and device.type == "cuda":
        arch = (getattr(torch.cuda.get_device_properties(device), "gcnArchName", "") or "").split(":")[0]
    fnuz = "fnuz" if arch == "gfx942" else ""
    e4m3 = getattr(torch, "float8_e4m3" + (fnuz or "fn"), None)
    e5m2 = getattr(torch, "float8_e5m2" + fnuz, None)
    return (e5m2 if dt == "fp8e5m2" else e4m3), e4m3


PLUGIN_SIGNATURE = "matmul(a, b, layout) -> c: a (M, K), b (N, K) for tn or (K, N) for nn, c (M, N)"


def make_plugin_fn(p, a, b):
    """A Python plug-in's call (docs/plugins.md): (fn, reference, None), or (None, None, the reason it is skipped);
    raises ValueError with the reason where the plug-in breaks its contract (signature, what one call returns)."""
    be, dt, layout = p["backend"], p["dtype"], p.get("layout", "tn")
    pfn, info, why = plugins.load(p, bl.CONFIG)
    if why:
        raise ValueError(why)
    if dt not in DTYPES:
        return None, None, f"Python GEMM plug-ins take bf16, fp16 and fp32 (not {dt})"
    t = DTYPES[dt]
    a_, b_ = a.to(t), b.to(t)
    why = plugins.signature_error(pfn, be, (a_, b_, layout), {}, PLUGIN_SIGNATURE)
    if why:
        raise ValueError(why)
    try:
        out = pfn(a_, b_, layout)
    except Exception as e:  # noqa: BLE001 -- the plug-in's own exception: the case's reason
        raise ValueError(plugins.raised(be, e))
    why = plugins.tensor_error(be, out, (a_.shape[0], b_.shape[0] if layout == "tn" else b_.shape[1]), t, a_.device)
    if why:
        raise ValueError(why)
    del out
    return (lambda: pfn(a_, b_, layout)), reference(a_, b_, layout == "tn", dt), None


def make_fn(p, a, b):
    be, dt, tn = p["backend"], p["dtype"], p.get("layout", "tn") == "tn"
    if plugins.plugin_of(p) is not None:
        return make_plugin_fn(p, a, b)
    if be == "torch-scaled-mm":
        if dt not in ("fp8e4m3", "fp8e5m2"):
            return None, None, "torch-scaled-mm measures fp8 only (fp8e4m3, fp8e5m2)"
        if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
            return None, None, f"this torch ({torch.__version__}) has no torch._scaled_mm / float8"
        if not a.is_cuda:
            return None, None, "torch._scaled_mm needs a GPU"
        if not tn:
            return None, None, "fp8 needs layout tn (_scaled_mm takes B column-major)"
        fa, fw = fp8_types(a.device, dt)
        if fa is None or fw is None:
            return None, None, f"this torch ({torch.__version__}) has no float8 type for {dt} on this device"
        a8, w8 = a.to(fa), b.to(fw)
        one = torch.tensor(1.0, device=a.device)
        return (lambda: torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)), \
            reference(a8, w8, True, "bf16"), None
    if dt not in DTYPES:
        return None, None, f"backend {be} does not run dtype {dt} (fp8 is torch-scaled-mm)"
    if not a.is_cuda and dt != "fp32" and not hasattr(torch, "compile"):
        return None, None, f"{dt} GEMM on CPU needs a newer torch (this is {torch.__version__})"
    t = DTYPES[dt]
    a_, b_ = a.to(t), b.to(t)
    if be == "torch-matmul":
        fn = (lambda: torch.matmul(a_, b_.t())) if tn else (lambda: torch.matmul(a_, b_))
    elif be == "torch-linear":
        fn = (lambda: F.linear(a_, b_)) if tn else (lambda: F.linear(a_, b_.t()))
    else:
        return None, None, f"unknown backend {be}"
    return fn, reference(a_, b_, tn, dt), None


CHECK_ROWS = 256
UNIT_ROUNDOFF = {"fp32": 2.0 ** -24, "bf16": 2.0 ** -8, "fp16": 2.0 ** -11}  # 2^-p, p significant bits of the output


def tolerance(out_dtype, k):
    """The expected rounding error of one output, in the check's units (|c - ref| / (|ref| + sum|a b| / sqrt(K))):
    rounding the output costs at most its unit roundoff u times |ref|; fp32 accumulation of K products adds about
    2^-24 sqrt(K) sum|a b| / sqrt(K) for random signs. Four times both leaves room for split-K (a reduced-precision
    reduction rounds partial sums to the output type) and still fails an output off by 1.1x or one 128-wide K tile
    missing (docs/architecture.md)."""
    return 4.0 * UNIT_ROUNDOFF[out_dtype] + 4.0 * 2.0 ** -24 * math.sqrt(k)


def reference(a, b, tn, out_dtype):
    """A float64 reference of up to CHECK_ROWS output rows (the first, the last and rows evenly between): (rows,
    reference rows, the per-output scale |ref| + sum|a b| / sqrt(K), the tolerance)."""
    m, k = a.shape
    rows = sorted({round(i * (m - 1) / max(1, min(m, CHECK_ROWS) - 1)) for i in range(min(m, CHECK_ROWS))})

    def ref():
        idx = torch.tensor(rows, device=a.device)
        # index_select has no float8 kernel: pick the rows as bytes
        ar = (a.view(torch.uint8).index_select(0, idx).view(a.dtype) if a.element_size() == 1 else a.index_select(0, idx)).double()
        bt = b.double().t() if tn else b.double()
        want = ar @ bt
        scale = want.abs() + (ar.abs() @ bt.abs()) / math.sqrt(k)
        return idx, want, scale, tolerance(out_dtype, k)
    return ref


def check(fn, ref):
    """max over the checked outputs of |out - float64 reference| / (|ref| + sum|a b| / sqrt(K)), and the tolerance
    of that case (its output type's rounding, tolerance())."""
    idx, want, scale, tol = ref()
    out = fn().index_select(0, idx).double()
    err = ((out - want).abs() / scale.clamp(min=1e-300)).max().item()
    return (err if math.isfinite(err) else math.inf), tol


def tunable_why(dev):
    """Why TunableOp cannot run here, or None."""
    tun = getattr(torch.cuda, "tunable", None)
    if tun is None or not hasattr(tun, "tuning_enable"):
        return f"this torch ({torch.__version__}) has no TunableOp (torch.cuda.tunable, torch >= 2.3)"
    if dev.type != "cuda":
        return "TunableOp tunes GEMMs on CUDA and ROCm GPUs; this run has none"
    return None


class TunableOp:
    """PyTorch's TunableOp for the runner's lifetime: one results file under the run's artifacts directory (so it is
    in the bundle, and a resumed run reuses what it holds), tuning switched on only for the tuning call of a case."""

    def __init__(self, artifacts):
        self.tun = torch.cuda.tunable
        rank = int(os.environ.get("RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0")) or 0)
        os.makedirs(artifacts, exist_ok=True)
        self.path = os.path.join(artifacts, f"tunableop-results{rank}.csv")
        self.tun.set_filename(self.path, False)  # one file per rank, named here (no device ordinal appended)
        if os.path.exists(self.path):
            self.tun.read_file(self.path)
        self.tun.enable(False)

    def untuned(self):
        self.tun.enable(False)

    def tuned(self):
        self.tun.enable(True)
        self.tun.tuning_enable(False)

    def tune(self, fn):
        """One call of fn with tuning on: (seconds, peak bytes the caching allocator held above what it held before,
        the same for reserved memory)."""
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base_a, base_r = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
        self.tun.enable(True)
        self.tun.tuning_enable(True)
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        secs = time.perf_counter() - t0
        self.tun.tuning_enable(False)  # tuned: later calls use the chosen solution, none is tuned again
        return secs, torch.cuda.max_memory_allocated() - base_a, torch.cuda.max_memory_reserved() - base_r

    def save(self):
        """The results file as it stands (newer PyTorch appends each result as it is tuned and has no write_file;
        older versions write on request), and its sha256, or None when there is none yet."""
        if hasattr(self.tun, "write_file"):
            self.tun.write_file(self.path)
        try:
            with open(self.path, "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()
        except OSError:
            return None


def measure_tunableop(rec, fn, ref, p, flush, fb, tflops_of, top):
    """Untuned, tuning, tuned, untuned again, in one call: the tuned figure is the case's value, the untuned ones
    (before and after, so the order cannot favour either) give the speed-up. The tuned solution's output is checked
    last, after every timing window."""
    top.untuned()
    before, _, _ = bl.bench_case(fn, p, flush, fb)
    known = set(map(tuple, top.tun.get_results()))
    secs, peak_a, peak_r = top.tune(fn)
    chosen = [{"op": r[0], "params": r[1], "solution": r[2], "ms": float(r[3])}
              for r in map(tuple, top.tun.get_results()) if r not in known]
    samples, sched, timing = bl.bench_case(fn, p, flush, fb)
    top.untuned()
    after, _, _ = bl.bench_case(fn, p, flush, fb)
    digest = top.save()
    bl.set_samples(rec, "tflops", "TFLOP/s", samples, tflops_of)
    if p.get("check", True):
        top.tuned()
        err, tol = check(fn, ref)
        top.untuned()
        rec["extra"].update(max_rel_err=err, check_tolerance=tol, check="ok" if err <= tol else "wrong",
                            check_reference="float64, up to 256 output rows, the tuned solution")
        if err > tol:
            rec.update(status="failed", error=f"wrong result with the tuned solution: error {err:.3g} over tolerance {tol}")
    med = lambda xs: bl.stats([tflops_of(t) for t in xs])["median"]  # noqa: E731
    untuned = (med(before) + med(after)) / 2
    rec["extra"]["tunableop"] = {
        "tuning_s": secs, "tuning_peak_allocated_bytes": peak_a, "tuning_peak_reserved_bytes": peak_r,
        "untuned_tflops_before": med(before), "untuned_tflops_after": med(after),
        "speedup": rec["value"] / untuned if untuned else None,
        "chosen": chosen, "results_file": os.path.basename(top.path), "results_sha256": digest,
        "order": "untuned, tuning, tuned, untuned"}
    if not chosen:
        rec["extra"]["tunableop"]["note"] = ("TunableOp recorded no result for this GEMM: this build does not tune it, "
                                             "or the results file already held it")
    return sched, timing


def check_all(cases, dev):
    """The check pass, before any timing: {case index: (max error, tolerance), or the exception}. Each check's fp32
    reference GEMM runs on CUDA cores far below the power cap; run between cases it let the next timing window
    start at boost clocks and read up to 4% fast (docs/results/2026-11-30-torch-suites-h200.md). The timing pass
    remakes the same inputs from the same seed."""
    errs = {}
    # a plug-in is checked in its own case, under its timeout (docs/plugins.md), after its timing
    todo = [i for i, c in enumerate(cases) if c["params"].get("check", True) and plugins.plugin_of(c["params"]) is None]
    if todo:
        print(f"gemm.py: checking {len(todo)} case(s) against a float64 reference", file=sys.stderr)
    for i in todo:
        p = cases[i]["params"]
        try:
            a, b = inputs(p, dev)
            fn, ref, _ = make_fn(p, a, b)
            if fn is not None:
                errs[i] = check(fn, ref)
            del a, b, fn, ref
        except Exception as e:  # out of memory, an unsupported combination: the timing pass says so
            errs[i] = e
    return errs


def run_cases(cases, dev, emit=bl.emit, artifacts=None):
    """The check pass, then every case timed in order; emit(record) as each finishes."""
    skip = plugins.skip_of(sys.argv)  # a runner started again after a plug-in's timeout: the cases after it
    errs = check_all(cases[skip:], dev)
    errs = {i + skip: e for i, e in errs.items()}
    seen = {}
    top = None
    for i, c in enumerate(cases):
        if i < skip:
            continue
        wd = plugins.watchdog(lambda cs: bl.record(SUITE, cs), c, i, emit).__enter__()
        p = c["params"]
        plug = plugins.plugin_of(p)
        rec = bl.record(SUITE, c)
        if i == skip:
            rec["extra"]["device"] = bl.device_info()
        try:
            if plug is not None:
                rec["extra"]["plugin"] = plugins.load(p, bl.CONFIG)[1]
            err = errs.get(i)
            if isinstance(err, Exception):
                raise err
            a, b = inputs(p, dev)
            fn, ref, why = make_fn(p, a, b)
            tuned = p.get("algo") == "tunableop"
            if fn is not None and tuned and top is None:
                why = tunable_why(dev) or (None if artifacts else "no artifacts directory in the cases file")
                top = None if why else TunableOp(artifacts)
            if fn is None or (tuned and top is None):
                rec.update(status="skipped", error=why)
            else:
                flush = bool(p.get("flush_l2", True))
                fb = p.get("flush_bytes")
                fb = fb if isinstance(fb, int) else None  # None: the device's default (benchlib.default_flush_bytes)
                m, n, k = int(p["m"]), int(p["n"]), int(p["k"])
                tflops_of = lambda ms: 2.0 * m * n * k / (ms * 1e-3) / 1e12  # noqa: E731
                if tuned:
                    sched, timing = measure_tunableop(rec, fn, ref, p, flush, fb, tflops_of, top)
                    err = None  # checked with the tuned solution
                else:
                    if top is not None:
                        top.untuned()
                    samples, sched, timing = bl.bench_case(fn, p, flush, fb)
                    bl.set_samples(rec, "tflops", "TFLOP/s", samples, tflops_of)
                rec["extra"]["schedule"] = sched
                rec["extra"].update(timing)
                if plug is not None:
                    info = rec["extra"]["plugin"]
                    rec["extra"]["function"] = f"plug-in '{p['backend']}': {info.get('module')}.{info.get('function')}"
                    if p.get("check", True):
                        try:
                            err = check(fn, ref)
                        except Exception as e:  # noqa: BLE001 -- raised in the check: not trusted
                            raise ValueError(plugins.raised(p["backend"], e) + " in the check")
                else:
                    rec["extra"]["function"] = {"torch-matmul": "torch.matmul",
                                                "torch-linear": "torch.nn.functional.linear",
                                                "torch-scaled-mm": "torch._scaled_mm"}[p["backend"]]
                if err is not None and not math.isfinite(err[0]):  # NaN or inf in the output: wrong, said so
                    rec["extra"].update(check="wrong", check_tolerance=err[1], max_rel_err=None)
                    rec.update(status="failed", error="wrong result: NaN or inf among the checked outputs")
                    err = None
                if err is not None:
                    err, tol = err
                    rec["extra"].update(max_rel_err=err, check_tolerance=tol, check="ok" if err <= tol else "wrong",
                                        check_reference="float64, up to 256 output rows; error / (|ref| + sum|ab|/sqrt(K))")
                    if err > tol:
                        rec.update(status="failed", error=f"wrong result: error {err:.3g} over tolerance {tol}")
                key = (p["dtype"], p.get("layout"), p["m"], p["n"], p["k"], p.get("algo"))
                seen.setdefault(key, {})[p["backend"]] = rec["value"]
                got = seen[key]
                if "torch-linear" in got and "torch-matmul" in got and got["torch-matmul"]:
                    gap = (got["torch-matmul"] / got["torch-linear"] - 1) * 100
                    rec["extra"]["linear_vs_matmul_pct"] = -gap
                    if gap > 5:
                        rec["extra"]["linear_slower_than_matmul"] = True
                        rec["extra"]["finding"] = f"F.linear is {gap:.1f}% slower than torch.matmul here"
            del a, b, fn, ref
        except ValueError as e:  # a plug-in breaking its contract: its own reason
            if plug is None:
                rec.update(status="failed", error=f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:300]}")
            else:
                rec.update(status="failed", error=str(e)[:500], metric=None, value=None, stats=None, samples_ms=None)
        except Exception as e:  # out of memory, an unsupported combination: a record
            rec.update(status="failed", error=plugins.raised(p["backend"], e) if plug is not None else
                       f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:300]}")
        wd.finish()
        print(f"gemm.py: [{i + 1}/{len(cases)}] {c['case']}: {rec['status']} {rec['value'] or ''}", file=sys.stderr)
        emit(rec)


def main():
    cfg, cases = bl.load_config(SUITE)
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(f"gemm.py: {len(cases)} case(s), torch {torch.__version__} on {dev}", file=sys.stderr)
    run_cases(cases, dev, artifacts=cfg.get("artifacts") if isinstance(cfg, dict) else None)


if __name__ == "__main__":
    main()
