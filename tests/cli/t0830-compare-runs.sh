#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench compare over runs, as issue 16 states it: a fake runner whose samples carry a run-level offset drawn once
# per run (2%, shared by the run's cases) and a within-run noise (1%), 200 cases. An A/A of 5 runs per side calls
# at most 2 cases faster or slower; a 5% slowdown at 5 runs per side is reported with compare's resolution, and at
# 12 runs per side (the A/A too) called slower in at least 195 cases; a 20% slowdown at 5 runs everywhere; 1 run
# per side is inconclusive everywhere; --noise-from reports the A/A floor. Runs made by `bench run A B --rounds 5`
# group by themselves.
. "$(dirname "$0")/lib.sh"
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py
mkdir -p "$T/fake"
ln -s "$FAKE" "$T/fake/bench-gemm"
shapes=$(python3 -c 'print(", ".join("[%d, 16, 16]" % (16 + i) for i in range(200)))')
for name in base same slow big; do
	printf 'bench: 1\nname: %s\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [%s]}\n' \
		"$name" "$shapes" >"$T/$name.yaml"
done
export BENCH_RUNNERS="$T/fake" FAKE_MODE=noisy FAKE_SEQ="$T/seq" FAKE_RUN_SD=0.02 FAKE_WITHIN_SD=0.01 FAKE_N=10
# A/A: base and same take turns, 5 rounds (10 runs); then 5 runs of a stack 5% slower and 5 of one 20% slower
FAKE_SEED=1 expect 0 "A/A: two stacks, five rounds, interleaved" "$BENCH" run -q --no-pack -o "$T/aa" --rounds 5 "$T/base.yaml" "$T/same.yaml"
FAKE_SEED=2 FAKE_SLOWDOWN=0.05 expect 0 "a stack 5% slower, five runs" "$BENCH" run -q --no-pack -o "$T/slow" --rounds 5 "$T/slow.yaml"
FAKE_SEED=3 FAKE_SLOWDOWN=0.20 expect 0 "a stack 20% slower, five runs" "$BENCH" run -q --no-pack -o "$T/big" --rounds 5 "$T/big.yaml"
BASE=$(ls -d "$T"/aa/base-* | sort)
SAME=$(ls -d "$T"/aa/same-* | sort)

# shellcheck disable=SC2086 # the run lists split on purpose
expect 0 "A/A, interleaved runs grouped by themselves" "$BENCH" compare --format json $BASE $SAME
cp "$T/out" "$T/aa.json"
python3 - "$T/aa.json" <<'PY' >"$T/aa.txt" && ok "A/A 5 runs per side: two sides of 5 runs, 200 tests, $(cat "$T/aa.txt")" || { not_ok "A/A"; show "$T/aa.txt"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert [s["nruns"] for s in d["sides"]] == [5, 5] and d["sides"][0]["label"] == "base (5 runs)", d["sides"]
assert d["tests"] == 200 and len(d["cases"]) == 200, d["tests"]
v = [c["others"][0] for c in d["cases"]]
assert all(o["runs"] == 5 and "p_adjusted" in o and o["p_adjusted"] >= o["p"] for o in v)
called = sum(o["verdict"] in ("faster", "slower") for o in v)
print("%d of 200 called faster or slower (at most 2)" % called)
assert called <= 2
PY
# shellcheck disable=SC2086
expect 0 "5% slower, 5 runs per side (--vs)" "$BENCH" compare --format json $BASE --vs $(ls -d "$T"/slow/slow-* | sort)
python3 - "$T/out" >"$T/slow.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = [c["others"][0] for c in d["cases"]]
assert not [o for o in v if o["verdict"] == "faster"] and all(o["ratio"] < 1 for o in v)
# the resolution: every case has one, and a verdict only where its adjusted p is under alpha
res = d["resolution"]
assert res["cases"] == 200 and res["min"] <= res["median"] <= res["max"], res
assert all(o["resolvable"] >= 0.02 for o in v)
assert all(o["p_adjusted"] < 0.01 for o in v if o["verdict"] == "slower")
print(sum(o["verdict"] == "slower" for o in v), "%.4f" % sorted(o["ratio"] for o in v)[100], "%.1f%%" % (100 * res["median"]))
PY
rc=$?
set -- $(cat "$T/slow.txt")
if [ $rc != 0 ]; then not_ok "5% slower: a case faster or a ratio above 1"
else
	ok "5% slower: no case faster, every ratio below 1; $1 of 200 called slower (median ratio $2; compare's resolution: $3)"
	# The issue asks for 195 of 200 here. The run offsets are shared by a run's 200 cases, so the 200 verdicts are
	# about one test: 5 runs of 2% put a 5% slowdown about 4 standard errors out, with 8 degrees of freedom, and no
	# valid test at alpha 0.01 calls that every time (docs/architecture.md, "Comparison statistics"; over 40 seeds,
	# docs/results/compare-runs-seeds.sh). The count of this seed is reported, not asserted; at 12 runs (below)
	# it is.
	echo "# 5% slower at 5 runs per side: $1 of 200 called slower (the issue's bar: 195)"
fi
# 12 runs per side: an A/A still calls at most 2, and a 5% slowdown is called slower in at least 195 of 200
FAKE_SEED=4 expect 0 "A/A: two stacks, twelve rounds" "$BENCH" run -q --no-pack -o "$T/aa12" --rounds 12 "$T/base.yaml" "$T/same.yaml"
FAKE_SEED=5 FAKE_SLOWDOWN=0.05 expect 0 "a stack 5% slower, twelve runs" "$BENCH" run -q --no-pack -o "$T/slow12" --rounds 12 "$T/slow.yaml"
# shellcheck disable=SC2046
expect 0 "A/A, 12 runs per side" "$BENCH" compare --format json $(ls -d "$T"/aa12/base-* | sort) --vs $(ls -d "$T"/aa12/same-* | sort)
cp "$T/out" "$T/aa12.json"
# shellcheck disable=SC2046
expect 0 "5% slower, 12 runs per side" "$BENCH" compare --format json $(ls -d "$T"/aa12/base-* | sort) --vs $(ls -d "$T"/slow12/slow-* | sort)
python3 - "$T/aa12.json" "$T/out" >"$T/s12.txt" <<'PY' && ok "12 runs per side: $(cat "$T/s12.txt")" || { not_ok "12 runs per side"; show "$T/s12.txt"; }
import json, sys
aa, sl = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a = sum(c["others"][0]["verdict"] in ("faster", "slower") for c in aa["cases"])
v = [c["others"][0] for c in sl["cases"]]
b = sum(o["verdict"] == "slower" for o in v)
print("A/A %d of 200 called (at most 2); 5%% slower: %d of 200 called slower (at least 195), resolution %.1f%%"
      % (a, b, 100 * sl["resolution"]["median"]))
assert all(o["runs"] == 12 for o in v) and a <= 2 and b >= 195 and not any(o["verdict"] == "faster" for o in v)
PY
# shellcheck disable=SC2086
expect 0 "20% slower, 5 runs per side" "$BENCH" compare --format json $BASE --vs $(ls -d "$T"/big/big-* | sort)
python3 - "$T/out" >"$T/big.txt" <<'PY' && ok "20% slower: $(cat "$T/big.txt")" || { not_ok "20% slower"; show "$T/big.txt"; }
import json, sys
d = json.load(open(sys.argv[1]))
v = [c["others"][0] for c in d["cases"]]
n = sum(o["verdict"] == "slower" for o in v)
print("%d of 200 called slower (at least 195); resolution %.1f%%" % (n, 100 * d["resolution"]["median"]))
assert n >= 195 and all(o["ci95"][1] < 1 for o in v if o["verdict"] == "slower")
# a change beyond a case's resolution (the first step's critical t) is called whatever the others show
assert all(o["verdict"] == "slower" for o in v if 1 - o["ratio"] > 1.5 * o["resolvable"])
PY
# a case measured on some runs only: drop the first case from 6 of the 12 A/A base runs; it is tested over its own
# 6 runs (its run effects centred on them), called nothing, and the other 199 keep their verdicts
i=0
for d in $(ls -d "$T"/aa12/base-* | sort); do
	i=$((i + 1))
	if [ $((i % 2)) = 0 ]; then
		grep -v '"cblas/fp32/tn/16x16x16/default"' "$d/results/gemm.jsonl" >"$T/g"
		cp "$T/g" "$d/results/gemm.jsonl"
	fi
done
# shellcheck disable=SC2046
expect 0 "A/A, 12 runs per side, a case on 6 of the baseline's runs" "$BENCH" compare --format json $(ls -d "$T"/aa12/base-* | sort) --vs $(ls -d "$T"/aa12/same-* | sort)
python3 - "$T/out" <<'PY' && ok "a case measured on 6 of 12 runs: tested on its own runs, nothing called" || not_ok "partial runs"
import json, sys
d = json.load(open(sys.argv[1]))
v = {c["case"]: c["others"][0] for c in d["cases"]}
o = v["cblas/fp32/tn/16x16x16/default"]
b = [c["baseline"] for c in d["cases"] if c["case"] == "cblas/fp32/tn/16x16x16/default"][0]
assert b["runs"] == 6 and o["runs"] == 12 and "p_adjusted" in o and o["adjustment"]["df"] > 0, (b, o)
assert sum(x["verdict"] in ("faster", "slower") for x in v.values()) <= 2
assert d["tests"] == 200
PY
B1=$(echo "$BASE" | sed -n 1p)
S1=$(ls -d "$T"/slow/slow-* | sort | sed -n 1p)
expect 0 "1 run per side" "$BENCH" compare "$B1" "$S1"
n=$(grep -c "inconclusive: 1 run per side: run-to-run noise unknown$" "$T/out")
[ "$n" = 200 ] && ok "1 run per side: all 200 cases inconclusive" || { not_ok "1 run per side: $n inconclusive"; show "$T/out"; }
expect_out "0 test(s) adjusted together"
grep -q "^resolution:" "$T/out" && not_ok "1 run per side: a resolution line without a test" || ok "1 run per side: no resolution line (nothing tested)"
# shellcheck disable=SC2086
expect 0 "3 runs against 1" "$BENCH" compare --format csv $(echo "$BASE" | sed -n 1,3p) --vs "$S1"
n=$(grep -c ",3,1,0.02,inconclusive,\"3 runs in the baseline, 1 in $(basename "$S1"): run-to-run noise unknown\"$" "$T/out")
[ "$n" = 200 ] && ok "csv: 3 runs against 1: inconclusive, with the counts" || { not_ok "3 against 1: $n"; show "$T/out"; }
# the noise floor of the A/A pair replaces the threshold, and every format says so
# shellcheck disable=SC2086
expect 0 "--noise-from the A/A pair" "$BENCH" compare --noise-from "$(echo $BASE $SAME | tr ' ' ,)" --format json $BASE --vs $(ls -d "$T"/big/big-* | sort)
python3 - "$T/out" "$T/aa.json" <<'PY' && ok "json: the pair's floor is the 95th percentile of |ratio - 1| of the A/A; the model's floor, in its interval, each case's threshold" || not_ok "noise floor json"
import json, sys
d, aa = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
f = d["noise"]["suites"]["gemm"]
r = sorted(abs(c["others"][0]["ratio"] - 1) for c in aa["cases"])
assert f["cases"] == 200 and r[188] <= f["floor"] <= r[190], (f, r[185:192])
# 5 runs a side: the run-effect model's floor (run effects of 2%: the difference of two means of 5 runs has sd 1.26%,
# its p95 about 2.5%) inside its interval, and each case's threshold
m = f["model"]
assert m["run_df"] == 8 and m["lo"] < m["floor"] < m["hi"] and 0.012 < m["floor"] < 0.05, m
assert all(c["threshold"] == m["floor"] for c in d["cases"])
PY
# shellcheck disable=SC2086
expect 0 "--noise-from, text" "$BENCH" compare --noise-from "$(echo $BASE $SAME | tr ' ' ,)" $BASE --vs $(ls -d "$T"/big/big-* | sort)
expect_out "noise floor from the A/A pair base (5 runs) / same (5 runs)"
expect_out "resolution: a change under "
expect_out "% cannot be called with these runs (median over 200 cases, "
# shellcheck disable=SC2086
expect 0 "--noise-from, html" "$BENCH" compare --noise-from "$(echo $BASE $SAME | tr ' ' ,)" --format html $BASE --vs $(ls -d "$T"/big/big-* | sort)
expect_out 'id="noise"'
expect_out '<p id="resolution">Resolution: with these runs a case can be called faster or slower only for a change of at least'
expect 2 "--noise-from with one run" "$BENCH" compare --noise-from "$B1" "$B1" "$S1"
expect_err "--noise-from needs an A/A pair"
expect 2 "--vs with nothing after it" "$BENCH" compare "$B1" --vs
expect_err "--vs needs runs before and after it"
finish
