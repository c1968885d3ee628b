#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench ls of 1,000 signed bundles (docs/results/2026-12-02-ls-1000.md): one real run of a tiny CPU manifest (a
# fake GEMM runner) copied under 1,000 run names, each packed and signed by bench pack, then timed: the first listing (every bundle verified, the cache written), a second
# (from the cache), --verify (every bundle afresh), and a listing after 10 bundles were rewritten (10 verified).
#   make && docs/results/ls-1000.sh            (BENCH: the bench to time, default ./bench)
set -eu
BENCH=${BENCH:-$PWD/bench}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export BENCH_HOME="$T/home"
mkdir -p "$T/fake" "$T/runs"
export BENCH_DATA=${BENCH_DATA:-$PWD}
ln -s "$PWD/tests/fake/fake-runner.py" "$T/fake/bench-gemm"
cat >"$T/m.yaml" <<'Y'
bench: 1
name: ls1000
channel: nightly
target: {vendor: cpu}
runtime: {engine: host, launcher: local, timeout: 20s}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], layouts: [nn], shapes: [[64, 64, 64]], warmup: 1ms, rep: 3ms}
Y
RUN=$(BENCH_RUNNERS=$T/fake "$BENCH" run -q -o "$T/one" "$T/m.yaml" | sed -n 1p)
i=0
while [ $i -lt 1000 ]; do # the run under 1,000 names, each packed and signed (an envelope names its bundle's file)
	n=$T/runs/$(printf 'ls1000-20261201T%06dZ-%06x' $((i % 240000)) $i)
	cp -r "$RUN" "$n"
	"$BENCH" pack "$n" >/dev/null
	rm -rf "$n"
	i=$((i + 1))
done
t() { # LABEL ARGS...: wall seconds of bench ls ARGS, and how its bundles were verified
	label=$1
	shift
	s=$(date +%s.%N)
	"$BENCH" ls "$@" "$T/runs" >"$T/out"
	e=$(date +%s.%N)
	printf '%-34s %6.3f s   verified: %s, verified (cached): %s, other: %s\n' "$label" "$(echo "$e - $s" | bc)" \
		"$(grep -c ' verified$' "$T/out")" "$(grep -c ' verified (cached)$' "$T/out")" \
		"$(grep -vc ' verified$\| verified (cached)$\|^started' "$T/out")"
}
t "first ls (verifies, writes cache)"
t "second ls (from the cache)"
t "third ls (from the cache)"
t "ls --verify (every bundle afresh)" --verify
for f in $(ls "$T/runs" | grep 'tar.gz$' | head -10); do touch "$T/runs/$f"; done
t "ls after 10 bundles touched"
