#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# How often `bench compare` meets issue 16's CI bars, over many seeds of the fake runner (the simulation of
# tests/cli/t0830-compare-runs.sh: 200 cases, a run offset of 2% drawn per run and shared by its cases, 1% noise
# within a run, 10 samples). Per seed: an interleaved A/A of RUNS rounds, and RUNS runs of a stack SLOW slower than
# the A side's; prints the cases called in each and compare's resolution, then the pass rates (A/A: at most 2
# called; slowdown: at least 195 called slower).
#   make && RUNS=5 SEEDS=40 SLOW=0.05 sh docs/results/compare-runs-seeds.sh
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${RUNS:-5} SEEDS=${SEEDS:-40} SLOW=${SLOW:-0.05}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$here/bench" "$T/bench"
mkdir -p "$T/fake"
ln -s "$here/tests/fake/fake-runner.py" "$T/fake/bench-gemm"
shapes=$(python3 -c 'print(", ".join("[%d, 16, 16]" % (16 + i) for i in range(200)))')
for name in base same slow; do
	printf 'bench: 1\nname: %s\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [%s]}\n' \
		"$name" "$shapes" >"$T/$name.yaml"
done
export BENCH_DATA="$here" BENCH_RUNNERS="$T/fake" BENCH_HOME="$T/home" FAKE_MODE=noisy FAKE_RUN_SD=0.02 FAKE_WITHIN_SD=0.01 FAKE_N=10
aa_ok=0 sl_ok=0
s=1
while [ "$s" -le "$SEEDS" ]; do
	rm -rf "$T/r"
	FAKE_SEQ="$T/seq$s" FAKE_SEED=$s "$T/bench" run -q --no-pack -o "$T/r" --rounds "$RUNS" "$T/base.yaml" "$T/same.yaml" >/dev/null
	FAKE_SEQ="$T/seq$s" FAKE_SEED=$((s + 100000)) FAKE_SLOWDOWN=$SLOW "$T/bench" run -q --no-pack -o "$T/r" --rounds "$RUNS" "$T/slow.yaml" >/dev/null
	# shellcheck disable=SC2046 # the run lists split on purpose
	"$T/bench" compare --format json $(ls -d "$T"/r/base-* | sort) --vs $(ls -d "$T"/r/same-* | sort) >"$T/aa.json" || true
	# shellcheck disable=SC2046
	"$T/bench" compare --format json $(ls -d "$T"/r/base-* | sort) --vs $(ls -d "$T"/r/slow-* | sort) >"$T/sl.json" || true
	line=$(python3 - "$T/aa.json" "$T/sl.json" <<'PY'
import json, sys
aa, sl = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a = sum(c["others"][0]["verdict"] in ("faster", "slower") for c in aa["cases"])
b = sum(c["others"][0]["verdict"] == "slower" for c in sl["cases"])
r = sorted(c["others"][0]["ratio"] for c in sl["cases"])[100]
print(a, b, "%.4f" % r, "%.2f%%" % (100 * sl["resolution"]["median"]))
PY
)
	set -- $line
	echo "seed $s: A/A $1 called; slow $2 of 200 called slower (median ratio $3, resolution $4)"
	[ "$1" -le 2 ] && aa_ok=$((aa_ok + 1))
	[ "$2" -ge 195 ] && sl_ok=$((sl_ok + 1))
	s=$((s + 1))
done
echo "runs per side $RUNS, slowdown $SLOW: A/A bar met in $aa_ok of $SEEDS seeds, slowdown bar in $sl_ok of $SEEDS"
