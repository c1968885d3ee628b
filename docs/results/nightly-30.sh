#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# 30 nights in a row of the nightly recipe (tools/nightly.sh, as the systemd timer and the scrontab run it) on a CPU
# host stack, with what stays on the machine measured after each night (docs/results/2026-12-02-nightly-30.md).
# The stack: minblas (tests/fixtures/minblas), a git component built by bench on engine host from the branch main
# of a local repository that gains a commit every third night, so that the pin moves (a new lock, a new host stack
# built) on nights 1, 4, 7, ... and stays on the others (the lock kept byte for byte, nothing built); bench-gemm's
# CBLAS path measures one small sgemm against it. After each night: the run directories and bundles in RUNS_DIR,
# the host stacks, $BENCH_HOME/cache, the localhost/bench-* images (engine podman, none for a host stack), and the
# results repository (bundles, size). The script fails unless the run directories, host stacks and caches stop
# growing once the retention policy is reached (the newest 10 runs and what they and tonight's lock name).
#   make && make runners && docs/results/nightly-30.sh [NIGHTS]      (BENCH: default ./bench)
set -u
NIGHTS=${1:-30}
SRC=$PWD
BENCH=${BENCH:-$SRC/bench}
export BENCH BENCH_RUNNERS=${BENCH_RUNNERS:-$SRC/build/runners} BENCH_DATA=${BENCH_DATA:-$SRC}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export BENCH_HOME="$T/home"
G=$T/minblas
git init -q -b main "$G"
cp "$SRC/tests/fixtures/minblas/blas.c" "$SRC/tests/fixtures/minblas/Makefile" "$G/"
git -C "$G" add . && git -C "$G" -c user.email=n@n -c user.name=n commit -qm night0
M=$T/nightly-minblas.yaml
cat >"$M" <<Y
bench: 1
name: nightly-minblas
channel: nightly
target: {vendor: cpu, gpu: cpu, nodes: 1, gpus_per_node: 1}
stack:
  env: {OPENBLAS_NUM_THREADS: "1"}
  components:
    - {name: minblas, git: "file://$G", ref: main, build: "make install PREFIX=\"\$BENCH_PREFIX\""}
runtime: {engine: host, launcher: local, timeout: 5m}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], layouts: [nn], shapes: [[64, 64, 64]], warmup: 1ms, rep: 5ms, flush_bytes: 1MiB}
Y
kib() { [ -e "$1" ] && du -sk "$1" | cut -f1 || echo 0; }
count() { [ -d "$1" ] && find "$1" -mindepth 1 -maxdepth 1 "$@" | wc -l || echo 0; }
printf '%5s %5s %4s %7s %6s %9s %4s %9s %6s %8s %9s %7s\n' night moved rc rundirs bundles runs_KiB stk stacks_KiB gitc cache_KiB published repo_KiB
fail=0
n=1
while [ "$n" -le "$NIGHTS" ]; do
	moved=no
	if [ $((n % 3)) = 1 ] && [ "$n" -gt 1 ]; then
		echo "/* night $n */" >>"$G/blas.c"
		git -C "$G" -c user.email=n@n -c user.name=n commit -qam "night $n"
		moved=yes
	fi
	[ "$n" = 1 ] && moved=yes
	"$SRC/tools/nightly.sh" "$M" "$T/results" "$T/runs" >"$T/night.out" 2>"$T/night.err"
	rc=$?
	[ "$rc" = 0 ] || { echo "night $n failed (exit $rc):"; tail -5 "$T/night.err"; fail=1; }
	rundirs=$(find "$T/runs" -mindepth 1 -maxdepth 1 -type d | wc -l)
	bundles=$(find "$T/runs" -mindepth 1 -maxdepth 1 -name '*.bench.tar.gz' | wc -l)
	stacks=$(find "$BENCH_HOME/stacks" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)
	gitc=$(find "$BENCH_HOME/cache/git" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)
	pub=$(find "$T/results/runs" -name '*.bench.tar.gz' 2>/dev/null | wc -l)
	printf '%5s %5s %4s %7s %6s %9s %4s %9s %6s %8s %9s %7s\n' "$n" "$moved" "$rc" "$rundirs" "$bundles" \
		"$(kib "$T/runs")" "$stacks" "$(kib "$BENCH_HOME/stacks")" "$gitc" "$(kib "$BENCH_HOME/cache")" "$pub" \
		"$(kib "$T/results")"
	echo "$n $rundirs $bundles $stacks $gitc $(kib "$BENCH_HOME/stacks") $pub" >>"$T/series"
	n=$((n + 1))
done
command -v podman >/dev/null && echo "localhost/bench-* images: $(podman images --format '{{.Repository}}' --filter reference='localhost/bench-*' | wc -l) (engine host builds none)"
grep 'bench: gc:' "$T/night.err" | sed 's/^/last night: /'
# the plateau: from night 12 on (10 kept runs and the pins they name), the same counts every night
python3 - "$T/series" "$NIGHTS" <<'PY' || fail=1
import sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1])]
late = [r for r in rows if r[0] >= 12]
if not late:
    sys.exit("fewer than 12 nights: no plateau to check")
bad = []
for r in late:
    n, rundirs, bundles, stacks, gitc, stacks_kib, pub = r
    if rundirs != 10 or bundles != 10:
        bad.append(f"night {n}: {rundirs} run directories, {bundles} bundles (want 10)")
    if stacks > 5:  # 10 runs span at most 4 pins (one every 3 nights), and tonight's lock names one of them
        bad.append(f"night {n}: {stacks} host stacks (want at most 5)")
    if gitc != 1:
        bad.append(f"night {n}: {gitc} git caches (want 1)")
    if pub != n:
        bad.append(f"night {n}: {pub} bundles published (want {n})")
print("plateau from night 12:", "FAILED" if bad else "held", f"(run dirs {late[-1][1]}, host stacks max {max(r[3] for r in late)}, git caches {late[-1][4]})")
for b in bad:
    print(" ", b)
sys.exit(1 if bad else 0)
PY
exit $fail
