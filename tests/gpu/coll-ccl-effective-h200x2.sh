#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 36's bar on TWO H200 (nvidia-h200-x2; not lent in the session that wrote it): bench run of
# tests/gpu/h200x2-ccl-effective.yaml (all_reduce 8 B..256 MiB under NCCL_ALGO [Ring, Tree] x NCCL_PROTO
# [LL, Simple]), then the same manifest with the capture off (the stack sets NCCL_DEBUG_FILE=/dev/null and
# NCCL_DEBUG=WARN: bench-coll leaves a stack's own log alone) to measure what the per-call TUNING line costs,
# and bench compare of the two. Writes under $OUT: runs/ (both runs), ccl-logs/ (the captured logs: real
# fixtures for tests/fixtures/ccl), effective.txt (per record: the cell, what NCCL says it ran, not_effective),
# findings.txt, compare.txt (capture on vs off: the cost), and topo.txt. About 5 minutes.
# Carry .carry (tests/gpu/prepare-carry.sh).  Run: sh tests/gpu/coll-ccl-effective-h200x2.sh
set -eu
OUT=${OUT:-gpu-out}
mkdir -p "$OUT/ccl-logs"
OUT=$(cd "$OUT" && pwd)
here=$(pwd)
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
BENCH="$here/.carry/bench/bench"
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1 || true
rm -f build/runners/bench-coll
make build/runners/bench-coll HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
	JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
	JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$OUT/runner-build.log" 2>&1 ||
	{ tail -30 "$OUT/runner-build.log"; exit 1; }
M=tests/gpu/h200x2-ccl-effective.yaml
sed -e 's/name: h200x2-ccl-effective/name: h200x2-ccl-effective-off/' \
	-e 's/env: {NCCL_NVLS_ENABLE: "0",/env: {NCCL_DEBUG: WARN, NCCL_DEBUG_FILE: \/dev\/null, NCCL_NVLS_ENABLE: "0",/' "$M" >"$OUT/off.yaml"
set +e
"$BENCH" run -q -o "$OUT/runs" "$M" >"$OUT/run-on.out" 2>&1
echo "capture on: exit $?"
"$BENCH" run -q -o "$OUT/runs" "$OUT/off.yaml" >"$OUT/run-off.out" 2>&1
echo "capture off: exit $?"
ON=$(ls -d "$OUT"/runs/h200x2-ccl-effective-2* | head -1)
OFF=$(ls -d "$OUT"/runs/h200x2-ccl-effective-off-* | head -1)
"$BENCH" show "$ON" >"$OUT/findings.txt" 2>&1
"$BENCH" compare "$OFF" "$ON" >"$OUT/compare.txt" 2>&1
set -e
cp "$ON"/logs/*.ccl*.log "$OUT/ccl-logs/" 2>/dev/null || true
python3 - "$ON" <<'PY' | tee "$OUT/effective.txt"
import json, sys
for l in open(sys.argv[1] + "/results/collectives.jsonl"):
    r = json.loads(l)
    e = r.get("extra", {}).get("ccl_effective", {})
    print(r["case"], r["status"], r.get("value"), "| asked", r["params"].get("env"), "| ran",
          [(c["op"], c["bytes"], c["algorithm"], c["protocol"], c["channels"], c["calls"]) for c in e.get("collectives", [])],
          "| channels", e.get("channels"), "| transports", e.get("transports"), "| not_effective", e.get("not_effective"))
PY
tail -30 "$OUT/compare.txt"
