#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Does an event at every call boundary cost bench-coll bandwidth at small sizes? nccl-tests (16..256 MiB,
# 100 iterations), then bench-coll with 1, 10 and 100 iterations per timing sample, then nccl-tests again.
#   NCCL_TESTS=/path/to/nccl-tests BENCH=./bench sh tests/gpu/coll-sample-batch.sh
. tests/gpu/coll-setup.sh
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
