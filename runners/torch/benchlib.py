# SPDX-License-Identifier: Apache-2.0
"""Shared by the PyTorch runners: the runner contract (docs/architecture.md), Triton's do_bench schedule, statistics,
and the FLOP formulas of docs/architecture.md. No dependency beyond torch (and the standard library)."""
import ctypes
import json
import math
import os
import sys
import threading
import time

import torch

import energy
import loadedlibs
import plugins

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
    global CONFIG
    CONFIG = cfg if isinstance(cfg, dict) else {}
    return cfg, [c for c in cases if c.get("suite", suite) == suite]


CONFIG = {}  # the cases file of this runner (load_config): "inputs", "artifacts", "gpu_peak"


def record(suite, case):
    return {"schema": SCHEMA, "suite": suite, "case": case["case"], "params": case["params"], "status": "failed",
            "metric": None, "unit": None, "value": None, "stats": None, "samples_ms": None, "extra": {}, "error": None}


def set_samples(rec, metric, unit, samples_ms, to_metric):
    vals = [to_metric(t) for t in samples_ms]
    st = stats(vals)
    rec.update(status="ok", metric=metric, unit=unit, value=st["median"], stats=st,
               samples_ms=[float(t) for t in samples_ms], error=None)


def torch_build():
    """torch's own build, for its entry in a record's packages: the CUDA or HIP it was built for, the NCCL (RCCL)
    it runs with (ncclGetVersion through torch), the cuDNN it loaded."""
    d = {"cuda": torch.version.cuda, "hip": torch.version.hip}
    try:
        v = torch.cuda.nccl.version()
        d["nccl"] = ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)
    except Exception:
        pass
    try:
        if torch.backends.cudnn.is_available():
            d["cudnn"] = str(torch.backends.cudnn.version())
    except Exception:
        pass
    return {"torch": d}


def run_cases(suite, prog, run_case):
    """The main loop of a case-by-case runner: every case of the config in order through run_case(case, first,
    checked) -> record (checked: a dict the runner keeps its correctness checks in, shared by the cases), a progress
    line on stderr per case, each record emitted as it is made."""
    _, cases = load_config(suite)
    skip = plugins.skip_of(sys.argv)  # a runner started again after a plug-in's timeout: the cases after it
    print(f"{prog}: {len(cases)} case(s), torch {torch.__version__}" + (f", from case {skip + 1}" if skip else ""),
          file=sys.stderr)
    checked = {}
    for i, c in enumerate(cases):
        if i < skip:
            continue
        with plugins.watchdog(lambda cs: record(suite, cs), c, i, emit) as wd:
            rec = run_case(c, i == skip, checked)
            wd.finish()
        print(f"{prog}: [{i + 1}/{len(cases)}] {c['case']}: {rec['status']} {rec['value'] or ''}", file=sys.stderr)
        emit(rec)


_import_errors = set()


def import_failed(what, e):
    """A module that does not import: its exception goes to stderr (the suite's log) once per process, and the
    reason a record gives is one clean line ("mamba_ssm is not installed", "... does not import here ..."), never
    the exception's own text."""
    if what not in _import_errors:
        _import_errors.add(what)
        first = (str(e).splitlines() or [""])[0][:300]
        print(f"{what} does not import: {type(e).__name__}: {first}", file=sys.stderr)
    if isinstance(e, ModuleNotFoundError) and e.name and what.split(".")[0] == e.name.split(".")[0]:
        return f"{what.split('.')[0]} is not installed"
    return f"{what} does not import with torch {torch.__version__} (the import error is in the suite's log)"


def emit(rec):
    # joules and work per joule from the timed window's telemetry (runners/torch/energy.py)
    energy.add_energy(rec)
    # proof of what ran (docs/architecture.md, "Records"): read after the case ran, so lazily loaded libraries count
    rec.setdefault("loaded", loadedlibs.loaded_libraries())
    rec.setdefault("packages", loadedlibs.loaded_packages(torch_build()))
    rec.setdefault("stack_libs", loadedlibs.stack_libs())
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


# ---- telemetry: NVML through ctypes (no pynvml) --------------------------------------------------------------------

THROTTLE_REASONS = ((0x1, "gpu_idle"), (0x2, "applications_clocks"), (0x4, "sw_power_cap"), (0x8, "hw_slowdown"),
                    (0x10, "sync_boost"), (0x20, "sw_thermal"), (0x40, "hw_thermal"), (0x80, "hw_power_brake"),
                    (0x100, "display_clocks"))
TELEMETRY_INTERVAL_MS = 10


def reason_names(bits):
    names = [n for b, n in THROTTLE_REASONS if bits & b]
    other = bits & ~sum(b for b, _ in THROTTLE_REASONS)
    return names + ([hex(other)] if other else [])


# amd-smi's throttle status onto NVML's bits, as runners/common/telemetry_amdsmi.c maps it (its header says why)
AMD_INDEP_DEFINED = 0xff | 0xff << 16 | 0xffff << 32 | 0x3 << 56


def amd_indep_reasons(b):
    """indep_throttle_status (the kernel's SMU_THROTTLER_* bits) -> NVML's reason bits."""
    return ((0x4 if b & 0xff else 0) | (0x8 if b & (0xff << 16) else 0) | (0x20 if b & (0xfff << 32) else 0) |
            (0x40 if b & (0xf << 44) else 0) | (0x8 if b & (0x3 << 56) else 0))


def summarise(samples, source):
    """samples: (sm_mhz, power_w, temp_c, reasons) tuples -> the window summary of extra.telemetry."""
    if not samples:
        return {"available": True, "source": source, "samples": 0, "why": "the window saw no sample"}
    clk = sorted(s[0] for s in samples)
    pw = sorted(s[1] for s in samples)
    bits = 0
    for s in samples:
        bits |= s[3]
    return {"available": True, "source": source, "samples": len(samples), "interval_ms": TELEMETRY_INTERVAL_MS,
            "sm_clock_mhz": {"min": clk[0], "median": percentile(clk, 0.5), "max": clk[-1]},
            "power_w_median": percentile(pw, 0.5), "temp_c_max": max(s[2] for s in samples),
            "throttle_reasons": reason_names(bits)}


class Telemetry:
    """SM clock, power, temperature and throttle reasons of one GPU from NVML (libnvidia-ml.so.1, loaded at run
    time), and a background sampler over a window. ok False and why set when NVML is not there; read() is a
    source of (sm_mhz, power_w, temp_c, reasons) tuples or None. source= replaces NVML (tests)."""

    def __init__(self, lib="libnvidia-ml.so.1", pci_bus_id=None, source=None, energy=None, amdsmi_lib=None):
        self.ok, self.why, self.match, self.name = False, "", None, "nvml"
        self._read, self._thread, self._samples, self._stop = None, None, [], threading.Event()
        self.last = {"available": False, "why": "no timed window"}
        if source is not None:
            self.ok, self._read, self.name, self._energy = True, source, "fake", energy
            return
        if amdsmi_lib or torch.version.hip:
            self._open_amdsmi(amdsmi_lib or "libamd_smi.so", pci_bus_id)
            return
        try:
            nv = ctypes.CDLL(lib)
        except OSError as e:
            self.why = f"telemetry unavailable: cannot load {lib} ({e})"
            return
        dev = ctypes.c_void_p()
        try:
            if nv.nvmlInit_v2() != 0:
                self.why = "telemetry unavailable: nvmlInit failed"
                return
            if pci_bus_id and nv.nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id.encode(), ctypes.byref(dev)) == 0:
                self.match = f"pci bus id {pci_bus_id}"
            elif nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) == 0:
                self.match = "index 0"
            else:
                self.why = "telemetry unavailable: NVML has no device 0"
                return
            reasons = getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
                nv.nvmlDeviceGetCurrentClocksThrottleReasons
            total_energy = getattr(nv, "nvmlDeviceGetTotalEnergyConsumption", None)
        except AttributeError as e:
            self.why = f"telemetry unavailable: {lib} lacks {e}"
            return

        def read():
            mhz, mw, c, r = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_ulonglong()
            if nv.nvmlDeviceGetClockInfo(dev, 1, ctypes.byref(mhz)) != 0 or \
                    nv.nvmlDeviceGetPowerUsage(dev, ctypes.byref(mw)) != 0:  # NVML_CLOCK_SM = 1, mW
                return None
            if nv.nvmlDeviceGetTemperature(dev, 0, ctypes.byref(c)) != 0:  # NVML_TEMPERATURE_GPU = 0
                c.value = 0
            if reasons(dev, ctypes.byref(r)) != 0:
                r.value = 0
            return (float(mhz.value), mw.value / 1000.0, float(c.value), int(r.value))
        def energy():
            mj = ctypes.c_ulonglong()
            if total_energy(dev, ctypes.byref(mj)) != 0:  # mJ since the driver loaded (Volta and newer)
                return None
            return mj.value / 1e3
        if read() is None:
            self.why = "telemetry unavailable: NVML cannot read the SM clock or power"
            return
        self.ok, self._read = True, read
        if total_energy is not None and energy() is not None:
            self._energy = energy

    _energy = None  # the board's energy counter in joules, or None: read at a window's begin and end

    def _open_amdsmi(self, lib, pci_bus_id):
        """amd-smi's library, as runners/common/telemetry_amdsmi.c reads it: GFX clock, power from the energy
        counter's rate between two reads, hotspot (else edge) temperature, throttle status (indep_throttle_status
        every sample, the violation accumulators at a window's ends) onto NVML's reason bits."""
        self.name = "amdsmi"
        try:
            try:
                a = ctypes.CDLL(lib)
            except OSError:
                if lib != "libamd_smi.so":
                    raise
                for v in (27, 26, 25, 24):  # the runtime package's soname (Debian's libamd-smi27 has no .so)
                    try:
                        a = ctypes.CDLL(f"libamd_smi.so.{v}")
                        break
                    except OSError:
                        pass
                else:
                    raise
            for f in ("amdsmi_init", "amdsmi_get_socket_handles", "amdsmi_get_processor_handles",
                      "amdsmi_get_gpu_device_bdf", "amdsmi_get_clock_info", "amdsmi_get_energy_count",
                      "amdsmi_get_temp_metric"):
                getattr(a, f)
        except OSError as e:
            self.why = f"telemetry unavailable: cannot load {lib} ({e})"
            return
        except AttributeError as e:
            self.why = f"telemetry unavailable: {lib} lacks {e}"
            return
        a.amdsmi_init.argtypes = [ctypes.c_uint64]
        if a.amdsmi_init(1 << 1) != 0:  # AMDSMI_INIT_AMD_GPUS
            self.why = "telemetry unavailable: amdsmi_init failed"
            return
        want = None
        if pci_bus_id:
            try:
                d, b, rest = pci_bus_id.split(":")
                want = (int(d, 16), int(b, 16), int(rest.split(".")[0], 16), int(rest.split(".")[1], 16))
            except ValueError:
                want = None
        H = ctypes.c_void_p * 64
        socks, ns, dev, first = H(), ctypes.c_uint32(64), None, None
        if a.amdsmi_get_socket_handles(ctypes.byref(ns), socks) != 0:
            ns.value = 0
        for s in range(min(ns.value, 64)):
            procs, npr = H(), ctypes.c_uint32(64)
            if a.amdsmi_get_processor_handles(ctypes.c_void_p(socks[s]), ctypes.byref(npr), procs) != 0:
                continue
            for k in range(min(npr.value, 64)):
                h = ctypes.c_void_p(procs[k])
                first = first or h
                bdf = ctypes.c_uint64()
                if want and dev is None and a.amdsmi_get_gpu_device_bdf(h, ctypes.byref(bdf)) == 0:
                    v = bdf.value  # function 3 bits, device 5, bus 8, domain 48
                    if (v >> 16, (v >> 8) & 0xff, (v >> 3) & 0x1f, v & 7) == want:
                        dev, self.match = h, "pci bus id %04x:%02x:%02x.%x" % want
        if dev is None:
            if first is None:
                self.why = "telemetry unavailable: amd-smi lists no GPU"
                return
            dev, self.match = first, "index 0" + (" (bus id not found)" if pci_bus_id else "")
        c = ctypes.c_int64()
        sensor = 1 if a.amdsmi_get_temp_metric(dev, 1, 0, ctypes.byref(c)) == 0 else 0  # hotspot, else edge
        last = {"uj": None, "t": None, "w": 0.0}
        # throttle status: the offsets telemetry_amdsmi.c reads (indep_throttle_status 112, from library 27 120;
        # the violation accumulators acc_prochot_thrm .. acc_hbm_thrm at 24..56), into buffers larger than any struct
        metrics, viol = getattr(a, "amdsmi_get_gpu_metrics_info", None), getattr(a, "amdsmi_get_violation_status", None)
        ver = (ctypes.c_uint32 * 16)()
        libv = getattr(a, "amdsmi_get_lib_version", None)
        off = 120 if libv is not None and libv(ver) == 0 and ver[0] >= 27 else 112
        mbuf, vbuf = ctypes.create_string_buffer(65536), ctypes.create_string_buffer(65536)

        def indep():
            ctypes.memset(mbuf, 0, len(mbuf))
            if metrics(dev, mbuf) != 0:
                return None
            b = int.from_bytes(ctypes.string_at(ctypes.addressof(mbuf) + off, 8), "little")
            return None if b == (1 << 64) - 1 or b & ~AMD_INDEP_DEFINED else b

        def accs():
            ctypes.memset(vbuf, 0, len(vbuf))
            if viol(dev, vbuf) != 0:
                return None
            raw = ctypes.string_at(ctypes.addressof(vbuf) + 24, 40)
            return [int.from_bytes(raw[8 * i:8 * i + 8], "little") for i in range(5)]
        if metrics is not None and indep() is None:
            metrics = None
        if viol is not None and accs() is None:
            viol = None
        self.throttle_from = " + ".join(n for n, f in (("indep_throttle_status", metrics), ("violation status", viol))
                                        if f is not None) or "none: amd-smi reports no throttle status here"

        def read():
            clk = (ctypes.c_uint32 * 64)()  # amdsmi_clk_info_t: the current clock (MHz) first
            acc, res, ts, t = ctypes.c_uint64(), ctypes.c_float(), ctypes.c_uint64(), ctypes.c_int64()
            if a.amdsmi_get_clock_info(dev, 0, clk) != 0 or \
                    a.amdsmi_get_energy_count(dev, ctypes.byref(acc), ctypes.byref(res), ctypes.byref(ts)) != 0:
                return None
            uj, now = acc.value * res.value, time.monotonic()
            if last["t"] is not None and now - last["t"] >= 1e-3 and uj >= last["uj"]:
                last["w"] = (uj - last["uj"]) / 1e6 / (now - last["t"])
            last["uj"], last["t"] = uj, now
            if a.amdsmi_get_temp_metric(dev, sensor, 0, ctypes.byref(t)) != 0:
                t.value = 0
            b = indep() if metrics is not None else None
            return (float(clk[0]), last["w"], float(t.value), amd_indep_reasons(b) if b is not None else 0)
        if read() is None:
            self.why = "telemetry unavailable: amd-smi cannot read the GFX clock or energy"
            return
        self.ok, self._read = True, read

        def energy():
            acc, res, ts = ctypes.c_uint64(), ctypes.c_float(), ctypes.c_uint64()
            if a.amdsmi_get_energy_count(dev, ctypes.byref(acc), ctypes.byref(res), ctypes.byref(ts)) != 0:
                return None
            return acc.value * res.value / 1e6  # microjoules to joules
        self._energy = energy

        def window(begin):
            """begin: remember the accumulators; end: NVML's bits of those that grew since (0 without)."""
            v = accs() if viol is not None else None
            if begin:
                self._acc0 = v
                return 0
            a0, self._acc0 = getattr(self, "_acc0", None), None
            if v is None or a0 is None:
                return 0
            bits = 0
            for x0, x1, bit in zip(a0, v, (0x40, 0x4, 0x20, 0x40, 0x20)):  # prochot, ppt, socket, vr, hbm
                if x0 != (1 << 64) - 1 and x1 != (1 << 64) - 1 and x1 > x0:
                    bits |= bit
            return bits
        self._window = window if viol is not None else None

    def read(self):
        return self._read() if self.ok else None

    def probe(self):
        """(sm_mhz, power_w) now, or None: the steady detector's probe."""
        s = self.read()
        return None if s is None else (s[0], s[1])

    def window_begin(self):
        if not self.ok:
            return
        self._samples, self._stop = [], threading.Event()
        if getattr(self, "_window", None) is not None:
            self._window(True)
        self._e0 = self._energy() if self._energy is not None else None
        self._t0 = time.perf_counter()
        s = self._read()
        if s is not None:
            self._samples.append(s)

        def loop():
            while not self._stop.wait(TELEMETRY_INTERVAL_MS / 1e3):
                v = self._read()
                if v is not None:
                    self._samples.append(v)
        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def window_end(self):
        if not self.ok:
            self.last = {"available": False, "why": self.why or "telemetry unavailable"}
            return self.last
        e1 = self._energy() if self._energy is not None and getattr(self, "_e0", None) is not None else None
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        self.last = summarise(self._samples, self.name)
        if self._samples:
            self.last["window_ms"] = (time.perf_counter() - self._t0) * 1e3
            if e1 is not None and e1 >= self._e0:
                self.last["energy_j"] = e1 - self._e0  # the energy counter over the window
        if getattr(self, "_window", None) is not None:  # after window_ms: the call sleeps 100 ms
            extra = self._window(False)
            if extra and self._samples:
                bits = extra
                for x in self._samples:
                    bits |= x[3]
                self.last["throttle_reasons"] = reason_names(bits)
        if getattr(self, "throttle_from", None) and self._samples:
            self.last["throttle_reasons_from"] = self.throttle_from
        self._e0 = None
        if self.match:
            self.last["device_match"] = self.match
        return self.last


_telemetry = None


def gpu_telemetry():
    """One Telemetry for device 0 of this process (None without CUDA)."""
    global _telemetry
    if _telemetry is None and torch.cuda.is_available():
        bus = None
        try:
            p = torch.cuda.get_device_properties(0)
            bus = f"{p.pci_domain_id:08X}:{p.pci_bus_id:02X}:{p.pci_device_id:02X}.0"
        except Exception:
            pass
        _telemetry = Telemetry(pci_bus_id=bus)
    return _telemetry


# ---- the steady-state warm-up ---------------------------------------------------------------------------------------

STEADY = {"burst_ms": 50.0, "window_ms": 500.0, "min_ms": 1000.0, "budget_ms": 10000.0, "clock_tol": 0.01,
          "power_tol": 0.03, "fallback_ms": 2000.0}


def steady_check(t, clk, pw, s=STEADY):
    """Has the board settled? t: sustained-load times of the probes (increasing), clk/pw: their readings. The medians
    of SM clock and power over the last window and the one before agree within the tolerances (under a power cap the
    clock swings from probe to probe; its median holds)."""
    n, w = len(t), s["window_ms"]
    if n < 6 or t[-1] < s["min_ms"] or t[-1] - t[0] < 2 * w:
        return False
    first = n - 1
    while first > 0 and t[first - 1] >= t[-1] - w:
        first -= 1
    prev = first
    while prev > 0 and t[prev - 1] >= t[-1] - 2 * w:
        prev -= 1
    if n - first < 3 or first - prev < 3:
        return False
    for xs, tol in ((clk, s["clock_tol"]), (pw, s["power_tol"])):
        last, before = percentile(sorted(xs[first:]), 0.5), percentile(sorted(xs[prev:first]), 0.5)
        if not last > 0 or abs(last - before) > tol * last:
            return False
    return True


def steady_warmup(burst, probe, s=STEADY, why="no telemetry"):
    """burst() runs ~burst_ms of calls and returns their time in ms; probe() returns (sm_mhz, power_w) or None
    (None as the probe: no telemetry). Returns extra.timing's fields (and bursts)."""
    t, clk, pw, now, n = [], [], [], 0.0, 0
    while True:
        now += burst()
        n += 1
        if probe is not None:
            r = probe()
            if r is None:
                probe, why = None, f"the probe failed after {now:.0f} ms"
            else:
                t.append(now)
                clk.append(r[0])
                pw.append(r[1])
                if steady_check(t, clk, pw, s):
                    return {"mode": "steady", "steady_reached": True, "steady_after_ms": now, "bursts": n,
                            "method": f"steady: the median SM clock within {s['clock_tol'] * 100:g}% and the median "
                                      f"power within {s['power_tol'] * 100:g}% over two windows of {s['window_ms']:g} ms "
                                      f"in a row (probed after each ~{s['burst_ms']:g} ms burst; at least "
                                      f"{s['min_ms']:g} ms)"}
                if now >= s["budget_ms"]:
                    return {"mode": "steady", "steady_reached": False, "steady_after_ms": now, "bursts": n,
                            "method": f"budget: {s['budget_ms']:g} ms of sustained load ended the warm-up before the "
                                      f"median SM clock ({s['clock_tol'] * 100:g}%) and power ({s['power_tol'] * 100:g}%) "
                                      f"held over two windows of {s['window_ms']:g} ms"}
                continue
        if now >= s["fallback_ms"]:
            return {"mode": "steady", "steady_reached": False, "steady_after_ms": now, "bursts": n,
                    "method": f"fixed: {s['fallback_ms']:g} ms of sustained load ({why})"}


BURST_TIMING = {"mode": "burst", "steady_reached": False, "steady_after_ms": None,
                "method": "burst: Triton's do_bench schedule (warm-up budget, then the timed calls)"}


def default_mode():
    return "steady" if torch.cuda.is_available() else "burst"


# ---- do_bench -------------------------------------------------------------------------------------------------------

# The fewest timed calls of a case, whatever its rep budget (runners/common/dobench.h, DOBENCH_MIN_REPEAT).
MIN_REPEAT = 10


def do_bench(fn, warmup_ms=30.0, rep_ms=200.0, flush=True, flush_bytes=256 << 20, max_repeat=100000, mode="burst",
             telemetry=None, steady=STEADY, min_repeat=MIN_REPEAT):
    """Triton's do_bench schedule: one flush and one untimed call (first touches); the estimate is 5 flushed calls
    timed together; then max(1, int(warmup/estimate)) unflushed warm-up calls and max(min_repeat,
    int(rep/estimate)) timed calls, each after a flush outside its own timed region. mode steady replaces the warm-up with steady_warmup() (bursts of the timed loop: flushed calls
    until the telemetry's SM clock and power hold steady; a fixed warm-up without telemetry), then takes the
    estimate again (one untimed call, 5 flushed calls) so that the timed window lasts rep_ms of the steady state,
    as runners/common/dobench.c does. Returns
    (samples_ms, schedule); schedule["timing"] is extra.timing, schedule["telemetry"] the timed window's summary
    (when a telemetry is given)."""
    cuda = torch.cuda.is_available()
    dev = "cuda" if cuda else "cpu"
    cache = torch.empty(flush_bytes // 4, dtype=torch.int32, device=dev) if flush else None

    def sync():
        if cuda:
            torch.cuda.synchronize()

    def clear():
        if cache is not None:
            cache.zero_()

    def estimate():
        clear()  # first touches outside the estimate: the flush buffer's pages, then the operation's own
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
            return s.elapsed_time(e) / 5
        t0 = time.perf_counter()
        for _ in range(5):
            clear()
            fn()
        return (time.perf_counter() - t0) * 1e3 / 5

    def count(budget, est):
        return min(max(1, int(budget / est)) if est > 0 else 1, max_repeat)

    def repeat(est):
        return max(count(rep_ms, est), min(min_repeat, max_repeat))

    est = estimate()
    n_rep = repeat(est)
    if mode == "steady":
        # the first estimate may come from an idle board (several times slower): each burst is sized from the one
        # before, and the estimate is taken again after the warm-up, in the state the timed window runs in
        per, calls, last_per_call = count(steady["burst_ms"], est), 0, [0.0]

        def burst():
            nonlocal per, calls
            k = per
            # the loop that is timed (a flush before each call), so the state detected is the state timed
            if cuda:
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(k):
                    clear()
                    fn()
                b.record()
                sync()
                ms = a.elapsed_time(b)
            else:
                t1 = time.perf_counter()
                for _ in range(k):
                    clear()
                    fn()
                ms = (time.perf_counter() - t1) * 1e3
            calls += k
            if ms > 0:
                per = count(steady["burst_ms"], ms / k)
                last_per_call[0] = ms / k
            return ms
        tel_ok = telemetry is not None and telemetry.ok
        why = (telemetry.why if telemetry is not None else "") or ("no telemetry on the CPU" if not cuda else "no telemetry")
        timing = steady_warmup(burst, telemetry.probe if tel_ok else None, steady, why)
        n_warm = calls
        timing["warmup_calls"] = n_warm
        timing["estimate_before_warmup_ms"] = est
        if last_per_call[0] > 0:
            timing["warmup_per_call_ms"] = last_per_call[0]  # the last burst per call, flushes included
        del timing["bursts"]
        est = estimate()
        n_rep = repeat(est)
    else:
        timing = dict(BURST_TIMING)
        n_warm = max(1, int(warmup_ms / est)) if est > 0 else 1
        for _ in range(n_warm):
            fn()
    samples = []
    if telemetry is not None:
        telemetry.window_begin()
    if cuda:
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
        lo, hi = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        lo.record()
        for i in range(n_rep):
            clear()
            starts[i].record()
            fn()
            ends[i].record()
        hi.record()
        sync()
        samples = [a.elapsed_time(b) for a, b in zip(starts, ends)]
        loop_ms = lo.elapsed_time(hi)
    else:
        t_lo = time.perf_counter()
        for _ in range(n_rep):
            clear()
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e3)
        loop_ms = (time.perf_counter() - t_lo) * 1e3
    if n_rep > 0:
        timing["timed_per_call_ms"] = loop_ms / n_rep  # the timed loop begin to end per call, flushes included
    sched = {"estimate_ms": est, "n_warmup": n_warm, "n_repeat": n_rep, "flush_bytes": flush_bytes if flush else 0,
             "timing": timing}
    if telemetry is not None:
        sched["telemetry"] = telemetry.window_end()
    return samples, sched


# Caches between L2 and memory that the runtime does not report, by gfx target (the native runners' table,
# runners/common/gpu_common.c): AMD's MALL (Infinity Cache), 256 MB on gfx942 (MI300X, MI325X) and gfx950 (MI355X).
LLC_BYTES = {"gfx942": 256 << 20, "gfx950": 256 << 20}


def default_flush_bytes(device=None):
    """The cache flush for device (default: the current GPU): 2 x (L2 + the unreported last-level cache), at least
    256 MiB, as bench-gemm and bench-membw; 256 MiB without a GPU or its properties."""
    if not torch.cuda.is_available():
        return 256 << 20
    props = torch.cuda.get_device_properties(device if device is not None else torch.cuda.current_device())
    arch = (getattr(props, "gcnArchName", "") or "").split(":")[0] if torch.version.hip else ""
    cache = int(getattr(props, "L2_cache_size", 0) or 0) + LLC_BYTES.get(arch, 0)
    return max(2 * cache, 256 << 20)


def bench_case(fn, p, flush=True, flush_bytes=None):
    """do_bench with a case's warmup_ms, rep_ms and mode, and the GPU's telemetry; returns (samples, schedule,
    extras): extras holds extra.timing and (on a GPU) extra.telemetry. flush_bytes None: default_flush_bytes()."""
    tel = gpu_telemetry()
    if flush_bytes is None:
        flush_bytes = default_flush_bytes()
    samples, sched = do_bench(fn, p.get("warmup_ms", 30.0), p.get("rep_ms", 200.0), flush, flush_bytes,
                              mode=p.get("mode") or default_mode(), telemetry=tel)
    extras = {"timing": sched.pop("timing")}
    if "telemetry" in sched:
        extras["telemetry"] = sched.pop("telemetry")
    return samples, sched, extras


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


def ssd_fwd_flop(batch, seq, heads, head_dim, state, chunk, groups):
    """Mamba2's chunked SSD forward, its matmuls at 2mnk each (runners/torch/ssm.py lists them):
    2 B L [G Q N + H P (Q + 2 N)] + 2 B H P N L/Q. Per chunk: C.B^T per group (2Q^2N); per head scores.X (2Q^2P),
    B-weighted X into the chunk state (2QNP), C.state into the output (2QNP); the inter-chunk state pass 2PN per
    chunk and head."""
    b, l, h, p, n, q, g = batch, seq, heads, head_dim, state, chunk, groups
    return 2.0 * b * l * (g * q * n + h * p * (q + 2 * n)) + 2.0 * b * h * p * n * (l // q)


SSD_PASS_FACTOR = {"fwd": 1.0, "bwd": 2.0, "fwd_bwd": 3.0}


def training_flop_per_token(n_params_no_embed, layers, heads, head_dim, seq, density):
    """6 N + 12 L H d T density, N = every parameter except the input embedding (the output head kept)."""
    return 6.0 * n_params_no_embed + 12.0 * layers * heads * head_dim * seq * density
