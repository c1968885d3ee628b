#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 36 on ONE H200 (under a minute): bench-coll built on the machine runs one-rank all_reduce cases (the CLI
# refuses a one-rank collective; the runner does not) with its NCCL debug-log capture, under the system NCCL
# (2.28.3) and under the torch wheel's (2.28.9, by LD_LIBRARY_PATH ahead of the runner's RUNPATH), each with no
# variable, with NCCL_ALGO=Tree NCCL_PROTO=LL, and with NCCL_MIN_NCHANNELS=112. A one-rank communicator prints
# the real init lines (version, "set by environment", channels, NVLS, network) but neither transports nor TUNING
# lines (NCCL copies locally): those fixtures stay synthetic until a two-GPU run (coll-ccl-effective-h200x2.sh).
# Writes under $OUT: ccl-logs/<nccl>-<env>.ccl.log (the captured logs: they replace the init parts of
# tests/fixtures/ccl), records/<nccl>-<env>.jsonl (extra.ccl_effective as parsed on the machine), summary.txt.
# Carry .carry (tests/gpu/prepare-carry.sh).  Run: sh tests/gpu/nccl-log-capture-h200.sh
set -eu
OUT=${OUT:-gpu-out}
here=$(pwd)
mkdir -p "$OUT/ccl-logs" "$OUT/records"
OUT=$(cd "$OUT" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
rm -f build/runners/bench-coll
make build/runners/bench-coll HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
	JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
	JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$OUT/runner-build.log" 2>&1 ||
	{ tail -30 "$OUT/runner-build.log"; exit 1; }
WHEEL=$(/opt/torch/.venv/bin/python -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)
cases() { # ccl_log prefix
	cat <<J
{"schema": "bench.cases/v1", "suite": "collectives", "ranks": 1, "ccl_log": "$1", "cases": [
 {"suite": "collectives", "case": "all_reduce/bf16/1MiB/out-of-place/r1n1",
  "params": {"backend": "nccl", "op": "all_reduce", "dtype": "bf16", "bytes": 1048576, "placement": "out-of-place", "warmup_iters": 2, "iters": 20, "samples": 4}},
 {"suite": "collectives", "case": "all_reduce/bf16/64MiB/out-of-place/r1n1",
  "params": {"backend": "nccl", "op": "all_reduce", "dtype": "bf16", "bytes": 67108864, "placement": "out-of-place", "warmup_iters": 2, "iters": 20, "samples": 4}}]}
J
}
one() { # nccl-name env-name [VAR=VALUE...]
	n=$1 e=$2
	shift 2
	cases "$OUT/ccl-logs/$n-$e.ccl" >"$OUT/cases-$n-$e.json"
	if [ "$n" = wheel ]; then
		[ -n "$WHEEL" ] || { echo "no torch wheel NCCL"; return 0; }
		env LD_LIBRARY_PATH="$WHEEL${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@" build/runners/bench-coll --config "$OUT/cases-$n-$e.json" \
			>"$OUT/records/$n-$e.jsonl" 2>"$OUT/records/$n-$e.err" || true
	else
		env "$@" build/runners/bench-coll --config "$OUT/cases-$n-$e.json" >"$OUT/records/$n-$e.jsonl" 2>"$OUT/records/$n-$e.err" || true
	fi
}
for n in system wheel; do
	one $n default
	one $n algo-tree-ll NCCL_ALGO=Tree NCCL_PROTO=LL
	one $n minch-112 NCCL_MIN_NCHANNELS=112
done
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import glob, json, os, sys
for f in sorted(glob.glob(sys.argv[1] + "/records/*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        e = r.get("extra", {}).get("ccl_effective", {})
        print(os.path.basename(f), r["case"], r["status"], "|", e.get("library"), e.get("version"), "| env", e.get("env"),
              "| channels", e.get("channels"), "| network", e.get("network"), "| colls", e.get("collectives"),
              "| not_effective", e.get("not_effective"), "| captured", e.get("captured"), e.get("why", ""))
PY
ls -la "$OUT/ccl-logs"
