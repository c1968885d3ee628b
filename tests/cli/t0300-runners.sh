#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The native runners on CPU: runner contract (config in, bench.result/v1 JSON Lines out), cblas GEMM against
# its host reference, membw sanity, clean failures (bad config, unsupported dtype, out of memory).
. "$(dirname "$0")/lib.sh"
R=${BENCH_RUNNERS:?set BENCH_RUNNERS to the runners directory}

# schema: every record has the contract's keys (the proof of what ran among them: loaded, one entry per real path
# with the runner's libc by soname and version, and stack_libs); ok records have value == stats.median, n samples,
# and the metric recomputed from the samples
schema() { # file suite metric
	python3 - "$@" <<'PY'
import json, math, statistics, sys
path, suite, metric = sys.argv[1:4]
recs = [json.loads(l) for l in open(path)]
assert recs, "no records"
keys = {"schema","suite","case","params","status","metric","unit","value","stats","samples_ms","extra","error",
        "loaded","stack_libs"}
for r in recs:
    assert set(r) == keys, sorted(set(r) ^ keys)
    paths = [l["path"] for l in r["loaded"]]
    assert len(paths) == len(set(paths)) and all(p.startswith("/") and set(l) == {"path", "soname", "version"}
                                                 for p, l in zip(paths, r["loaded"])), r["loaded"]
    assert any(l["soname"] == "libc.so.6" and l["version"] for l in r["loaded"]), r["loaded"]
    assert isinstance(r["stack_libs"], list)
    assert r["schema"] == "bench.result/v1" and r["suite"] == suite
    assert r["status"] in ("ok", "failed", "skipped")
    if r["status"] != "ok":
        assert isinstance(r["error"], str) and r["error"], r
        continue
    s = r["stats"]; x = r["samples_ms"]
    assert r["metric"] == metric and s["n"] == len(x) >= 1
    assert r["value"] == s["median"]
    assert s["min"] <= s["p10"] <= s["median"] <= s["p90"] <= s["max"]
    assert all(v > 0 for v in x)
print(len(recs))
PY
}

"$BENCH" plan --json --suite gemm,membw manifests/quickstart.yaml >"$T/q.json"
expect 0 "bench-gemm runs the quickstart's cases" "$R/bench-gemm" --config "$T/q.json"
cp "$T/out" "$T/gemm.jsonl"
if [ "$(schema "$T/gemm.jsonl" gemm tflops)" = 4 ]; then ok "4 gemm records, schema valid"; else not_ok "gemm schema"; show "$T/gemm.jsonl"; fi
if python3 - "$T/gemm.jsonl" <<'PY'
import json, statistics, sys
for r in map(json.loads, open(sys.argv[1])):
    p = r["params"]
    assert r["status"] == "ok", r["error"]
    assert r["extra"]["check"] == "ok" and r["extra"]["max_rel_err"] < 1e-4
    # the headline is the median of the samples converted to TFLOP/s
    conv = sorted(2 * p["m"] * p["n"] * p["k"] / (t * 1e-3) / 1e12 for t in r["samples_ms"])
    assert abs(statistics.median(conv) - r["value"]) <= 1e-6 * r["value"], (conv, r["value"])
    sch = r["extra"]["schedule"]
    assert sch["n_repeat"] == len(r["samples_ms"]) == max(10, int(p["rep_ms"] / sch["estimate_ms"]))  # at least 10
    assert sch["n_warmup"] == max(1, int(p["warmup_ms"] / sch["estimate_ms"]))
PY
then ok "gemm: checked against the host reference, median headline, do_bench counts"; else not_ok "gemm record content"; fi
grep -q '"device":{' "$T/gemm.jsonl" && ok "first record describes the device" || not_ok "no device in first record"

expect 0 "bench-membw runs the quickstart's cases" "$R/bench-membw" --config "$T/q.json"
cp "$T/out" "$T/membw.jsonl"
if [ "$(schema "$T/membw.jsonl" membw tbps)" = 3 ]; then ok "3 membw records, schema valid"; else not_ok "membw schema"; show "$T/membw.jsonl"; fi
if python3 - "$T/membw.jsonl" <<'PY'
import json, statistics, sys
for r in map(json.loads, open(sys.argv[1])):
    assert r["status"] == "ok", r["error"]
    b = r["params"]["bytes"]
    counted = 2 * b if r["params"]["op"] == "copy" else b
    assert r["extra"]["counted_bytes"] == counted and "convention" in r["extra"]
    conv = [counted / (t * 1e-3) / 1e12 for t in r["samples_ms"]]
    assert abs(statistics.median(conv) - r["value"]) <= 1e-6 * r["value"]
    assert 1e-4 < r["value"] < 10, r["value"]   # between 0.1 GB/s and 10 TB/s: a CPU
PY
then ok "membw: bytes counted by op, TB/s from the median"; else not_ok "membw record content"; fi

# issue #30: a 64 MiB copy with a 100 ms budget gave n 1 (the estimate, 111 ms against a real 9.4, held the flush
# buffer's first touch); now every case has at least 10 timed calls
cat >"$T/mb64.json" <<'JSON'
{"cases": [{"suite": "membw", "case": "copy/64MiB", "params": {"op": "copy", "bytes": 67108864, "warmup_ms": 10, "rep_ms": 100}},
           {"suite": "membw", "case": "copy/64MiB-short", "params": {"op": "copy", "bytes": 67108864, "warmup_ms": 1, "rep_ms": 1}}]}
JSON
expect 0 "bench-membw: 64 MiB copies" "$R/bench-membw" --config "$T/mb64.json"
if python3 - "$T/out" <<'PY'
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    s = r["extra"]["schedule"]
    # (the estimate without the flush buffer's first touch is tested on a virtual clock, tests/unit/test_dobench.c:
    # timings on a shared machine prove nothing)
    assert r["status"] == "ok" and s["n_repeat"] == r["stats"]["n"] == len(r["samples_ms"]) >= 10, (r["case"], s)
PY
then ok "membw 64 MiB: at least 10 timed calls, even on a 1 ms budget"
else not_ok "membw 64 MiB schedule"; show "$T/out"; fi

# cases the CPU cannot run are records, not crashes
cat >"$T/odd.json" <<'JSON'
{"cases": [
 {"suite": "gemm", "case": "cblas/fp16/tn/64x64x64/default", "params": {"backend": "cblas", "dtype": "fp16", "layout": "tn", "m": 64, "n": 64, "k": 64}},
 {"suite": "gemm", "case": "cblas/bf16/tn/64x64x64/default", "params": {"backend": "cblas", "dtype": "bf16", "layout": "tn", "m": 64, "n": 64, "k": 64, "warmup_ms": 1, "rep_ms": 5, "flush_bytes": 1048576}},
 {"suite": "gemm", "case": "cblas/fp32/tn/1048576x1048576x1048576/default", "params": {"backend": "cblas", "dtype": "fp32", "layout": "tn", "m": 1048576, "n": 1048576, "k": 1048576}},
 {"suite": "gemm", "case": "torch-linear/bf16/tn/64x64x64/default", "params": {"backend": "torch-linear", "dtype": "bf16", "m": 64, "n": 64, "k": 64}},
 {"suite": "gemm", "case": "blaslt/bf16/tn/64x64x64/heuristic", "params": {"backend": "blaslt", "dtype": "bf16", "layout": "tn", "m": 64, "n": 64, "k": 64}},
 {"suite": "gemm", "case": "cblas/fp8e5m2/tn/64x64x64/default", "params": {"backend": "cblas", "dtype": "fp8e5m2", "layout": "tn", "m": 64, "n": 64, "k": 64}},
 {"suite": "gemm", "case": "cblas/fp8e5m3/tn/64x64x64/default", "params": {"backend": "cblas", "dtype": "fp8e5m3", "layout": "tn", "m": 64, "n": 64, "k": 64}},
 {"suite": "membw", "case": "copy/1MiB", "params": {"op": "copy", "bytes": 1048576}}
]}
JSON
expect 0 "unsupported and impossible cases still exit 0" "$R/bench-gemm" --config "$T/odd.json"
cp "$T/out" "$T/odd.jsonl"
if python3 - "$T/odd.jsonl" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 7, len(r)           # the membw case is not bench-gemm's
assert r[0]["status"] == "skipped" and "fp16" in r[0]["error"]
assert r[1]["status"] == "ok" or (r[1]["status"] == "skipped" and "sbgemm" in r[1]["error"]), r[1]
assert r[2]["status"] == "failed" and "out of memory" in r[2]["error"], r[2]
assert r[3]["status"] == "skipped" and "PyTorch runner" in r[3]["error"]
assert r[4]["status"] in ("failed", "skipped") and ("GPU" in r[4]["error"] or "gpu" in r[4]["error"]), r[4]
assert r[5]["status"] == "skipped" and r[5]["error"] == "CBLAS has no fp8 GEMM", r[5]
assert r[6]["status"] == "failed" and "unknown dtype 'fp8e5m3'" in r[6]["error"], r[6]
PY
then ok "fp16 and fp8e5m2 skipped, bf16 ok or skipped with reason, OOM failed cleanly, torch and GPU cases explained, an unknown dtype failed"
else not_ok "odd cases"; show "$T/odd.jsonl"; fi

expect 2 "no --config" "$R/bench-gemm"
expect_err "missing --config"
expect 1 "unreadable config" "$R/bench-membw" --config "$T/nope.json"
printf '{"cases": [1,\n' >"$T/bad.json"
expect 1 "malformed config names line and column" "$R/bench-gemm" --config "$T/bad.json"
expect_err "$T/bad.json:2:"
expect 0 "-h" "$R/bench-gemm" -h
expect_out "usage: bench-gemm --config"
finish
