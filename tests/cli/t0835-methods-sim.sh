#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The methods simulation of issue 32 (docs/results/methods-sim.py, seed 1), at CI size: A/A comparisons of 3 runs
# per side under five noise models (iid, heavy-tailed run effects, an outlier run, unequal sides, mixed noise levels),
# 300 of 10 cases each, judged by compare's code (compare_build_groups) through the in-process driver
# build/tests/methods-sim, and the first 2 of each model by `bench compare` on run directories as well (the same
# verdicts and adjusted p asked): the familywise rate pooled over the models is at most 1% (alpha 0.01); the share of
# cases of a 5% slowdown called slower at 3 runs per side (60 comparisons) is within 5 points of what one Welch test
# of each case alone calls; reproduce's bands (reproduce_bands, 3 rounds here, 20 cases, 600 reproductions per
# model) leave at most 1.5% of the cases of a reproduction on its own machine outside, at its stated 1%. The
# full-size figures are in docs/results/2026-12-02-methods-sim.md.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(dirname "$BENCH")
driver=$bin/build/tests/methods-sim
[ -x "$driver" ] || driver=$bin/tests/methods-sim
python3 "$here/docs/results/methods-sim.py" "$BENCH" --driver "$driver" --seed 1 --comparisons 300 \
	--power-comparisons 60 --cases 10 --reproductions 600 --per-process 2 >"$T/sim.txt" 2>&1
show "$T/sim.txt" >&2
if grep -q '^  pooled' "$T/sim.txt"; then ok "methods simulation ran"; else not_ok "methods simulation ran"; show "$T/sim.txt"; fi
grep -q '^per process: 12 comparisons judged by bench compare too, 0 differ' "$T/sim.txt" &&
	ok "the driver judges as bench compare does" || not_ok "the driver judges as bench compare does"
awk '/^  pooled/ { n += $2; f += $4 } END { exit !(n >= 1500 && f <= 0.01 * n) }' "$T/sim.txt" &&
	ok "A/A familywise <= 1% pooled: $(grep '^  pooled' "$T/sim.txt")" || not_ok "A/A familywise <= 1% pooled"
for m in iid heavy outlier unequal mixed; do
	awk -v m="$m" '$1 == m && /comparisons/ && !/reproductions/ { exit !($2 >= 300) } END {}' "$T/sim.txt" &&
		grep -q "^  $m .*comparisons" "$T/sim.txt" && ok "$m: 300 comparisons" || not_ok "$m: 300 comparisons"
done
awk '/^power/ { p = $10; sub(/%/, "", p); b = $NF; sub(/%/, "", b); exit !(p + 5 >= b + 0) }' "$T/sim.txt" &&
	ok "power within 5 points of one test alone: $(grep '^power' "$T/sim.txt")" || not_ok "power within 5 points"
for m in iid heavy mixed; do
	awk -v m="$m" '$1 == m && /reproductions/ { r = $4; sub(/%/, "", r); exit !(r + 0 <= 1.5) }' "$T/sim.txt" &&
		ok "reproduce $m: at most 1.5% per case" || not_ok "reproduce $m: at most 1.5% per case"
done
finish
