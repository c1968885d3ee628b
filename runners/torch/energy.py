# SPDX-License-Identifier: Apache-2.0
"""extra.energy of a record from its extra.telemetry (docs/manifest-format.md, "Energy"); the same definition as
runners/common/record.c record_add_energy(). Standard library only: the fake runner of the CLI tests uses it too."""


def _median(xs):
    s = sorted(xs)
    n = len(s)
    if not n:
        return float("nan")
    idx = 0.5 * (n - 1)
    lo = int(idx)
    return s[lo] if lo + 1 >= n else s[lo] + (s[lo + 1] - s[lo]) * (idx - lo)


POWER_AVERAGE_MS = 1000.0  # NVML's power reading on Ampere (but GA100) and newer is the average of the last second


def energy(rec):
    """Per rep (one timed call): joules_estimate = the timed window's median board power (W) x the median of
    samples_ms (s); where the telemetry has energy_j (the energy counter over the timed window), joules_counter =
    energy_j / the timed calls. joules is the counter's where there is one (method "counter"), else the estimate
    (method "power x time"). With unit TFLOP/s, tflop_per_joule = value x time / joules (the work of one call per
    joule of one call); with TB/s, gb_per_joule = 1000 x that. Without a power reading or a measurement:
    {available: False, why}. None when the record has no extra.telemetry."""
    tel = (rec.get("extra") or {}).get("telemetry")
    if not isinstance(tel, dict):
        return None
    power = tel.get("power_w_median")
    if tel.get("available") is not True or not isinstance(power, (int, float)) or isinstance(power, bool) or not power > 0:
        return {"available": False, "why": tel.get("why") or "the timed window has no power reading"}
    all_ms = rec.get("samples_ms") or []
    ms = [t for t in all_ms if isinstance(t, (int, float)) and t > 0]
    if rec.get("status") != "ok" or not ms:
        return {"available": False, "why": "the case did not measure"}
    t = _median(ms)
    joules = power * t / 1e3
    e = {"available": True, "method": "power x time", "power_w": float(power), "time_ms": t, "joules": joules,
         "joules_estimate": joules}
    counter = tel.get("energy_j")
    if isinstance(counter, (int, float)) and not isinstance(counter, bool) and counter > 0:
        calls = (rec.get("extra") or {}).get("timed_calls")  # a sample of several calls (collectives)
        calls = calls if isinstance(calls, int) and not isinstance(calls, bool) and calls > 0 else len(all_ms)
        joules = counter / calls
        e.update({"method": "counter", "joules": joules, "joules_counter": joules, "counter_j": float(counter),
                  "calls": calls})
    w = tel.get("window_ms")
    if isinstance(w, (int, float)) and not isinstance(w, bool):
        e["window_ms"] = float(w)
        if w < POWER_AVERAGE_MS and tel.get("source") == "nvml":
            e["power_window_note"] = (f"the timed window lasted {w:.0f} ms, less than the {POWER_AVERAGE_MS:.0f} ms over "
                                      f"which the driver averages power: up to {100 * (1 - w / POWER_AVERAGE_MS):.0f}% "
                                      f"of the reading is from the time before the window (a steady-state warm-up of the "
                                      f"same work, or the previous case)")
    value = rec.get("value")
    epower = joules / (t / 1e3)
    if isinstance(value, (int, float)) and value > 0:
        if rec.get("unit") == "TFLOP/s":
            e["tflop_per_joule"] = value / epower
        elif rec.get("unit") == "TB/s":
            e["gb_per_joule"] = 1e3 * value / epower
    return e


def add_energy(rec):
    """Sets extra.energy (once) where the record has extra.telemetry."""
    extra = rec.get("extra")
    if isinstance(extra, dict) and "energy" not in extra:
        e = energy(rec)
        if e is not None:
            extra["energy"] = e
    return rec
