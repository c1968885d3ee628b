#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 22's GPU evidence on one H200: bench run manifests/h200-host.yaml (SUITES: which suites, default all but
# training), then bench reproduce of the bundle it made, in the same call, then bench show of both bundles (their
# findings). Carry .carry (tests/gpu/prepare-carry.sh) and run from the checkout:
#   sh tests/gpu/reproduce-h200.sh
# Everything lands in $OUT: run.txt, reproduce.txt, show-*.txt, and the bundles (bundles.tar).
set -u
OUT=${OUT:-gpu-out}
SUITES=${SUITES:-gemm membw attention}
mkdir -p "$OUT"
here=$(pwd)
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
BENCH="$here/.carry/bench/bench"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,power.limit,temperature.gpu --format=csv >"$OUT/gpu.txt"
make build/runners/bench-gemm build/runners/bench-membw HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
	JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
	JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$OUT/build.log" 2>&1 ||
	{ tail -30 "$OUT/build.log"; exit 1; }
only=
for s in $SUITES; do only="$only -s $s"; done
# shellcheck disable=SC2086
"$BENCH" run $only -o "$OUT/runs" manifests/h200-host.yaml >"$OUT/run.out" 2>"$OUT/run.txt"
echo "run: exit $?" >>"$OUT/run.txt"
B=$(sed -n 2p "$OUT/run.out")
"$BENCH" reproduce -o "$OUT/runs" "$B" >"$OUT/reproduce.txt" 2>&1
echo "reproduce: exit $?" >>"$OUT/reproduce.txt"
for b in "$OUT"/runs/*.bench.tar.gz; do "$BENCH" show "$b" >"$OUT/show-$(basename "$b" .bench.tar.gz).txt" 2>&1; done
(cd "$OUT/runs" && tar -cf ../bundles.tar ./*.bench.tar.gz ./*.intoto.jsonl)
rm -rf "$OUT/runs"
