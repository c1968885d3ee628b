#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The methods simulation of issue 32 (docs/results/methods-sim.py, seed 1), at CI size: A/A comparisons of 3 runs
# per side under five noise models (iid, heavy-tailed run effects, an outlier run, unequal sides, mixed noise levels),
# 300 each, judged by the real `bench compare` on run directories the script writes; the familywise rate pooled over
# the models is at most 1% (alpha 0.01), and the share of cases of a 5% slowdown called slower at 3 runs per side is
# within 5 points of what one Welch test of each case alone calls. The full-size figures (100 cases a comparison) are
# in docs/results/2026-12-02-methods-sim.md; reproduce's false alarms are simulated in tests/unit/test_stats.c.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
python3 "$here/docs/results/methods-sim.py" "$BENCH" --seed 1 --comparisons 300 --power-comparisons 60 --cases 10 \
	--check >"$T/sim.txt" 2>&1 && ok "methods simulation: $(tr '\n' ' ' <"$T/sim.txt")" || { not_ok "methods simulation"; show "$T/sim.txt"; }
finish
