#!/bin/sh
# Collectives on a two-GPU host: nccl-tests (built from its public source in $NCCL_TESTS, never committed),
# then bench (thread per GPU) and bench under mpirun -np 2, then both again after nccl-tests' second run: each
# side is the mean of its two runs. Results in $OUT.
# Both sides run 5 warm-up and ITERS (default 100, as in tests/gpu/h200x2-coll*.yaml) timed iterations per size:
# at 16 MiB one iteration is ~50 us, and 20 of them left a 5% spread between two nccl-tests runs.
#   NCCL_TESTS=/path/to/nccl-tests BENCH=./bench sh tests/gpu/coll-h200x2.sh
. tests/gpu/coll-setup.sh
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
nt() {
	for b in all_reduce_perf all_gather_perf reduce_scatter_perf alltoall_perf broadcast_perf; do
		echo "# $b"
		"$NT/build/$b" -b 16M -e 4G -f 2 -g 2 -w 5 -n "${ITERS:-100}" -d bfloat16 -c 1
	done
}
ours() { # $1: 1 or 2 — ours twice, interleaved with nccl-tests: nt, ours, ours-mpirun, nt, ours, ours-mpirun
	"$BENCH" run -o /tmp/runs$1 tests/gpu/h200x2-coll.yaml >>"$OUT/bench-run.txt" 2>&1
	cat /tmp/runs$1/h200x2-coll-*/results/collectives.jsonl >>"$OUT/ours.jsonl"
	if command -v mpirun >/dev/null; then
		"$BENCH" run -o /tmp/runs$1 tests/gpu/h200x2-coll-mpirun.yaml >>"$OUT/bench-run-mpirun.txt" 2>&1
		cat /tmp/runs$1/h200x2-coll-mpirun-*/results/collectives.jsonl >>"$OUT/ours-mpirun.jsonl" 2>/dev/null
		grep -h "error" /tmp/runs$1/h200x2-coll-mpirun-*/logs/collectives.log | head -5 >>"$OUT/bench-run-mpirun.txt"
	fi
}
rm -f "$OUT/ours.jsonl" "$OUT/ours-mpirun.jsonl" "$OUT/bench-run.txt" "$OUT/bench-run-mpirun.txt"
nt >"$OUT/nccl-tests-1.txt" 2>&1
ours 1
nt >"$OUT/nccl-tests-2.txt" 2>&1
ours 2
python3 tests/gpu/coll_compare.py "$OUT/ours.jsonl" "$OUT/nccl-tests-1.txt" "$OUT/nccl-tests-2.txt" >"$OUT/compare.md"
[ -s "$OUT/ours-mpirun.jsonl" ] && python3 tests/gpu/coll_compare.py "$OUT/ours-mpirun.jsonl" "$OUT/nccl-tests-1.txt" "$OUT/nccl-tests-2.txt" >>"$OUT/compare.md"
tail -3 "$OUT/compare.md"
