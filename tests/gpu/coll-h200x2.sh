#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Collectives on a two-GPU host: nccl-tests (built from its public source in $NCCL_TESTS, never committed) with
# -g 2 and, when the machine has MPI, under mpirun -np 2 (one rank per GPU); bench with a thread per GPU and
# under mpirun -np 2. ROUNDS rounds (default 2) of the four, interleaved; each side is the mean of its rounds.
# A round's output is numbered from FIRST (default 1), so two calls (FIRST=1, then FIRST=3) can be compared
# together. Results in $OUT.
# Both sides run 5 warm-up and ITERS (default 100, as in tests/gpu/h200x2-coll*.yaml) timed iterations per size:
# at 16 MiB one iteration is ~50 us, and 20 of them left a 5% spread between two nccl-tests runs.
# ONLY=OP (all_to_all, ...) runs that one operation on both sides (the manifests copied with that op alone).
#   NCCL_TESTS=/path/to/nccl-tests BENCH=./bench [ROUNDS=2] [FIRST=1] [ONLY=op] sh tests/gpu/coll-h200x2.sh
. tests/gpu/coll-setup.sh
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
OPS="all_reduce_perf all_gather_perf reduce_scatter_perf alltoall_perf broadcast_perf"
MT=tests/gpu/h200x2-coll.yaml MM=tests/gpu/h200x2-coll-mpirun.yaml
if [ -n "${ONLY:-}" ]; then
	OPS=$(echo "$ONLY" | sed 's/^all_to_all$/alltoall/')_perf
	sed "s/ops: \[[^]]*\]/ops: [$ONLY]/" "$MT" >/tmp/h200x2-coll.yaml
	sed "s/ops: \[[^]]*\]/ops: [$ONLY]/" "$MM" >/tmp/h200x2-coll-mpirun.yaml
	MT=/tmp/h200x2-coll.yaml MM=/tmp/h200x2-coll-mpirun.yaml
fi
ARGS="-b 16M -e 4G -f 2 -w 5 -n ${ITERS:-100} -d bfloat16 -c 1"
nt() {
	for b in $OPS; do echo "# $b"; "$NT/build/$b" $ARGS -g 2; done
}
nt_mpi() {
	for b in $OPS; do
		echo "# $b"
		mpirun -np 2 $MPIRUN_ROOT -x NCCL_NVLS_ENABLE -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NVSHMEM_DISABLE_NVLS \
			"$NT_MPI/$b" $ARGS -g 1
	done
}
ours() { # $1: the round
	"$BENCH" run -o /tmp/runs$1 "$MT" >>"$OUT/bench-run.txt" 2>&1
	cat /tmp/runs$1/h200x2-coll-*/results/collectives.jsonl >"$OUT/ours-$1.jsonl"
	if command -v mpirun >/dev/null; then
		"$BENCH" run -o /tmp/runs$1 "$MM" >>"$OUT/bench-run-mpirun.txt" 2>&1
		cat /tmp/runs$1/h200x2-coll-mpirun-*/results/collectives.jsonl >"$OUT/ours-mpirun-$1.jsonl" 2>/dev/null
		grep -h "error" /tmp/runs$1/h200x2-coll-mpirun-*/logs/collectives.log | head -5 >>"$OUT/bench-run-mpirun.txt"
	fi
}
i=${FIRST:-1}
last=$((i + ${ROUNDS:-2} - 1))
while [ "$i" -le "$last" ]; do
	rm -rf /tmp/runs$i
	nt >"$OUT/nccl-tests-$i.txt" 2>&1
	[ -n "$NT_MPI" ] && nt_mpi >"$OUT/nccl-tests-mpi-$i.txt" 2>&1
	ours "$i"
	echo "round $i done $(date -u +%H:%M:%S)"
	i=$((i + 1))
done
sh tests/gpu/coll-tables.sh "$OUT"
