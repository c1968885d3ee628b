#!/bin/sh
# Does an event at every call boundary cost bench-coll bandwidth at small sizes? nccl-tests (16..256 MiB,
# 100 iterations), then bench-coll with 1, 10 and 100 iterations per timing sample, then nccl-tests again.
#   NCCL_TESTS=/path/to/nccl-tests BENCH=./bench sh tests/gpu/coll-sample-batch.sh
set -u
OUT=${OUT:-gpu-out}
BENCH=${BENCH:-./bench}
NT=${NCCL_TESTS:?set NCCL_TESTS to an nccl-tests source tree}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$OUT"
make -j16 -C "$NT" MPI=0 CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} NCCL_HOME=${NCCL_HOME:-/usr} \
	NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 >/tmp/nt-build.log 2>&1 || { tail -20 /tmp/nt-build.log; exit 1; }
make runners NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 >/tmp/runners-build.log 2>&1 || { tail -20 /tmp/runners-build.log; exit 1; }
nt() {
	for b in all_reduce_perf all_gather_perf reduce_scatter_perf alltoall_perf broadcast_perf; do
		echo "# $b"
		"$NT/build/$b" -b 16M -e 256M -f 2 -g 2 -w 5 -n 100 -d bfloat16 -c 1
	done
}
nt >"$OUT/nt-1.txt" 2>&1
for e in 1 10 100; do # iterations per sample: samples = 100 / e
	sed "s/iters: 100}/iters: 100, samples: $((100 / e))}/" tests/gpu/h200x2-coll-small.yaml >/tmp/coll-small-$e.yaml
	"$BENCH" run -o /tmp/runs-$e /tmp/coll-small-$e.yaml >/tmp/run-$e.txt 2>&1 || tail -5 /tmp/run-$e.txt
	cat /tmp/runs-$e/h200x2-coll-small-*/results/collectives.jsonl >"$OUT/ours-$e.jsonl"
done
nt >"$OUT/nt-2.txt" 2>&1
for e in 1 10 100; do
	echo "## iters per sample $e"
	python3 tests/gpu/coll_compare.py "$OUT/ours-$e.jsonl" "$OUT/nt-1.txt" "$OUT/nt-2.txt" | grep -v in-place
done >"$OUT/compare.md"
grep "worst" "$OUT/compare.md"
