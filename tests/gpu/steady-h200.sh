#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 16's GPU bars on one H200, with bench itself (steady-state timing, interleaved stacks). Carry .carry
# (tests/gpu/prepare-carry.sh) and run from the checkout:
#   PART=twin sh tests/gpu/steady-h200.sh   native cuBLASLt GEMM vs its PyTorch twin (F.linear bf16, torch._scaled_mm
#                                            fp8), llama70b shapes tn, steady mode, 2 interleaved rounds: round 1
#                                            native first, round 2 PyTorch first (ABBA); tune 8 beside the heuristic;
#                                            REP=1s for a 1 s timed window per case
#   PART=aab sh tests/gpu/steady-h200.sh    A/A/B of h200-host's GEMM (heuristic) and memory suites, 3 rounds: A and A2
#                                            are the same stack, B gives cuBLASLt a 1 KiB workspace
#   PART=splitk sh tests/gpu/steady-h200.sh A/B, 3 rounds: B's 1 KiB workspace on split-K shapes and two that need none
# ROUNDS=N overrides a part's rounds (the split-K A/B of 2026-12-01's third session ran ROUNDS=5).
# The run directories are packed into $OUT/runs.tar.gz; analyse with tests/gpu/steady_twin.py or bench compare.
set -eu
OUT=${OUT:-gpu-out}
PART=${PART:-twin}
ROUNDS=${ROUNDS:-}
mkdir -p "$OUT"
here=$(pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
BENCH="$here/.carry/bench/bench"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
if [ ! -x build/runners/bench-gemm ] || [ ! -x build/runners/bench-membw ]; then
	t0=$(date +%s)
	make build/runners/bench-gemm build/runners/bench-membw HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
		JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
		JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$OUT/build.log" 2>&1 ||
		{ tail -30 "$OUT/build.log"; exit 1; }
	echo "runners built in $(( $(date +%s) - t0 )) s"
fi
M="$OUT/manifests"
mkdir -p "$M"
hdr() { # name
	printf 'bench: 1\nname: %s\ntarget: {vendor: cuda, gpu: h200, nodes: 1, gpus_per_node: 1}\n' "$1"
	printf 'stack:\n  env: {NCCL_NVLS_ENABLE: "0", TORCH_SYMM_MEM_DISABLE_MULTICAST: "1", NVSHMEM_DISABLE_NVLS: "1"}\n'
	printf 'runtime: {engine: host, launcher: local, timeout: 20m}\nsuites:\n'
}
case $PART in
twin)
	# REP: the timed window per case (default the suite's 200 ms); under the power cap the clock swings by a few
	# percent from one 10 ms probe to the next, and a longer window averages more of it
	r=${REP:+, rep: $REP}
	{ hdr native; echo "  gemm: {backends: [blaslt], dtypes: [bf16, fp8e4m3], layouts: [tn], shapes: llama70b, tune: 8$r}"; } >"$M/native.yaml"
	{ hdr torch-bf16; echo "  gemm: {backends: [torch-linear], dtypes: [bf16], layouts: [tn], shapes: llama70b$r}"; } >"$M/torch-bf16.yaml"
	{ hdr torch-fp8; echo "  gemm: {backends: [torch-scaled-mm], dtypes: [fp8e4m3], layouts: [tn], shapes: llama70b$r}"; } >"$M/torch-fp8.yaml"
	set -- "$M/native.yaml" "$M/torch-bf16.yaml" "$M/torch-fp8.yaml"
	ROUNDS=${ROUNDS:-2}
	;;
aab)
	for n in a a2 b; do
		ws=
		[ "$n" = b ] && ws=', workspace: 1KiB'
		{ hdr "host-$n"
		  echo "  gemm: {backends: [blaslt], dtypes: [bf16, fp8e4m3], layouts: [tn], shapes: llama70b$ws}"
		  echo '  membw: {ops: [copy, read, write], bytes: 2GiB}'; } >"$M/$n.yaml"
	done
	set -- "$M/a.yaml" "$M/a2.yaml" "$M/b.yaml"
	ROUNDS=${ROUNDS:-3}
	;;
splitk)
	# B caps cuBLASLt's workspace at 1 KiB: shapes with few output tiles and a long K (1024x1024x65536) need split-K,
	# whose partial sums live in the workspace; the llama70b shapes' best kernels need none
	for n in a b; do
		ws=
		[ "$n" = b ] && ws=', workspace: 1KiB'
		{ hdr "splitk-$n"
		  echo "  gemm: {backends: [blaslt], dtypes: [bf16, fp8e4m3], layouts: [tn], shapes: [[1024, 1024, 65536], [2048, 2048, 32768], [8192, 8192, 8192], [16384, 8192, 7168]]$ws}"; } >"$M/$n.yaml"
	done
	set -- "$M/a.yaml" "$M/b.yaml"
	ROUNDS=${ROUNDS:-3}
	;;
*) echo "PART must be twin, aab or splitk" >&2; exit 2 ;;
esac
t0=$(date +%s)
set +e
"$BENCH" run -o "$OUT/runs" --rounds "$ROUNDS" "$@" >"$OUT/run.out" 2>"$OUT/run.err"
rc=$?
set -e
echo "bench run --rounds $ROUNDS: exit $rc in $(( $(date +%s) - t0 )) s"
grep -E "error|failed|skipped" "$OUT/run.err" | head -20 || true
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader | tee -a "$OUT/gpu.txt"
tar -C "$OUT" -czf "$OUT/runs.tar.gz" runs manifests
rm -rf "$OUT/runs" "$OUT/manifests"
