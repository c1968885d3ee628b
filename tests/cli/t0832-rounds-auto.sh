#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench run --rounds auto (issue 32, item 8) with the host engine and the fake noisy runner, two stacks taking turns:
# an A/A whose runs move 0.3% stops at the first look (round 4) because every case resolves 3% with 97.5% power, and
# calls nothing; a stack 5% slower is called slower in every case; runs that move 5% stop at the cap of rounds and
# say so, as does a cap of time; bad arguments exit 2; an interrupted set keeps its runs, records why it stopped,
# and its runs compare and resume. rounds.json is the same in every run of a set and in its bundle; bench compare uses the recorded level.
. "$(dirname "$0")/lib.sh"
fake_gemm
shapes=$(python3 -c 'print(", ".join("[%d, 16, 16]" % (16 + i) for i in range(10)))')
for name in base same slow; do
	printf 'bench: 1\nname: %s\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [%s]}\n' \
		"$name" "$shapes" >"$T/$name.yaml"
done
export BENCH_RUNNERS="$T/fake" FAKE_MODE=noisy FAKE_SEQ="$T/seq" FAKE_N=10

# rounds.json of a set: the same bytes in every run directory, and facts about it on stdout (checked by the caller)
rounds_facts() { # DIR...
	python3 - "$@" <<'PY'
import json, sys
texts = [open(d + "/rounds.json").read() for d in sys.argv[1:]]
assert len(set(texts)) == 1, "rounds.json differs between the runs"
r = json.loads(texts[0])
st = [json.load(open(d + "/status.json"))["interleave"] for d in sys.argv[1:]]
assert all(s["sequential"] == r["design"] for s in st), "status.json's plan differs from rounds.json's"
assert len(r["runs"]) == len(sys.argv[1:])
d = r["design"]
assert abs(d["level"] - d["alpha"] / d["looks"]) < 1e-12
for lk in r["looks"]:
    assert lk["level"] == d["level"] and (lk["round"] % 2 == 0 or lk["round"] == d["max_rounds"]), lk
    assert lk["cases_above_target"] == sum(c["resolvable_975"] is None or c["resolvable_975"] > d["detect"]
                                           for c in lk["cases"]), lk
v = r["verdicts"] or {"counts": {}}
print(r["rounds"], r["stop"]["reason"], len(r["looks"]), d["looks"], "%g" % d["level"],
      v["counts"].get("faster", "-"), v["counts"].get("slower", "-"), v["counts"].get("same", "-"))
PY
}

# (a) A/A, runs that move 0.3%: stops at the first look, round 4, calls nothing
FAKE_SEED=11 FAKE_RUN_SD=0.003 FAKE_WITHIN_SD=0.003 expect 0 "A/A, --rounds auto --detect 3%" \
	"$BENCH" run -o "$T/aa" --rounds auto --detect 3% "$T/base.yaml" "$T/same.yaml"
expect_err "bench: look 1 of 4 after round 4 (level 0.0025): every one of 10 cases resolves 3.0% with 97.5% power"
expect_err "bench: rounds auto: stopped after 4 round(s): every case resolves a change of 3.0% with 97.5% power"
expect_err "same (4 runs) vs base (4 runs): 0 cases faster, 10 same, 0 slower"
AA=$(ls -d "$T"/aa/*/ | sed 's:/$::')
# shellcheck disable=SC2086 # the run list splits on purpose
set -- $(rounds_facts $AA)
[ "$*" = "4 detect 1 4 0.0025 0 0 10" ] && ok "A/A rounds.json: 4 rounds, stop detect, 1 look of 4, level 0.0025, 0 called" ||
	not_ok "A/A rounds.json: $*"
[ "$(ls -d "$T"/aa/*/ | wc -l)" = 8 ] && [ "$(ls "$T"/aa/*.bench.tar.gz | wc -l)" = 8 ] && ok "8 runs, 8 bundles" ||
	not_ok "runs or bundles missing"
b=$(ls "$T"/aa/base-*.bench.tar.gz | head -n 1)
tar -tzf "$b" | grep -q '/rounds.json$' && ok "the bundle holds rounds.json" || not_ok "rounds.json not in the bundle"
expect 0 "verify a bundle of the set" "$BENCH" verify "$b"
# shellcheck disable=SC2086
expect 0 "bench compare of the set's runs" "$BENCH" compare $AA
expect_err "bench: alpha 0.0025 and its threshold: the plan of these runs' bench run --rounds auto"
expect_out "alpha 0.0025, 10 test(s) adjusted together"
# shellcheck disable=SC2086
expect 0 "--alpha overrides the plan" "$BENCH" compare -a 0.01 $AA
expect_out "alpha 0.01, 10 test(s)"

# a stack 5% slower, same noise: called slower in every case
FAKE_SEED=12 FAKE_RUN_SD=0.003 FAKE_WITHIN_SD=0.003 FAKE_SLOW_RUN=slow FAKE_SLOWDOWN=0.05 expect 0 "A/B 5% slower, --rounds auto" \
	"$BENCH" run -q --no-pack -o "$T/ab" --rounds auto --detect 0.03 "$T/base.yaml" "$T/slow.yaml"
# shellcheck disable=SC2046
set -- $(rounds_facts $(ls -d "$T"/ab/*/ | sed 's:/$::'))
[ "$1 $2 $6 $7" = "4 detect 0 10" ] && ok "A/B: stops at round 4, 10 of 10 cases called slower" || not_ok "A/B rounds.json: $*"

# (b) runs that move 5%: no look resolves 3%, the cap of 5 rounds stops the set (looks at 4 and 5)
FAKE_SEED=13 FAKE_RUN_SD=0.05 FAKE_WITHIN_SD=0.01 expect 0 "A/A, 5% noise, --max-rounds 5" \
	"$BENCH" run --no-pack -o "$T/cap" --rounds auto --detect 3% --max-rounds 5 "$T/base.yaml" "$T/same.yaml"
expect_err "bench: look 1 of 2 after round 4 (level 0.005): "
expect_err "bench: rounds auto: stopped after 5 round(s): the cap of 5 rounds (--max-rounds);"
# shellcheck disable=SC2046
set -- $(rounds_facts $(ls -d "$T"/cap/*/ | sed 's:/$::'))
[ "$1 $2 $3 $4 $5 $6 $7" = "5 max-rounds 2 2 0.005 0 0" ] && ok "cap: 5 rounds, stop max-rounds, 2 looks, level 0.005, 0 called" ||
	not_ok "cap rounds.json: $*"
[ "$(ls -d "$T"/cap/*/ | wc -l)" = 10 ] && ok "cap: 10 runs" || not_ok "cap: $(ls -d "$T"/cap/*/ | wc -l) runs"

# the cap of time: at round 4 the next look (round 6) would end past 2 s, so the set stops there. The runner waits
# 20 ms before each of its 10 records, so 4 rounds (8 runs) take at least 1.6 s on any machine, past the 1.33 s from
# which a look at round 4 projects round 6 beyond 2 s (without it, a machine that starts the fake runner fast
# enough fits round 6 in)
FAKE_DELAY=0.02 FAKE_SEED=16 FAKE_RUN_SD=0.05 FAKE_WITHIN_SD=0.01 expect 0 "A/A, 5% noise, --max-time 2s" \
	"$BENCH" run --no-pack -o "$T/time" --rounds auto --max-time 2s "$T/base.yaml" "$T/same.yaml"
expect_err "bench: rounds auto: stopped after 4 round(s): another look would end past --max-time (2 s);"
# shellcheck disable=SC2046
set -- $(rounds_facts $(ls -d "$T"/time/*/ | sed 's:/$::'))
[ "$1 $2 $3" = "4 max-time 1" ] && ok "time cap: 4 rounds, stop max-time, 1 look" || not_ok "time cap rounds.json: $*"

# (c) bad arguments: exit 2 and a sentence
bad() { # description expected-text args...
	d=$1 m=$2
	shift 2
	expect 2 "$d: exit 2" "$BENCH" run -o "$T/bad" "$@"
	expect_err "$m"
}
bad "--detect 0" "--detect takes a change above 0 and below 100% such as 3% or 0.03, got '0'" \
	--rounds auto --detect 0 "$T/base.yaml" "$T/same.yaml"
bad "--detect abc" "got 'abc'" --rounds auto --detect abc "$T/base.yaml" "$T/same.yaml"
bad "--detect 100%" "got '100%'" --rounds auto --detect 100% "$T/base.yaml" "$T/same.yaml"
bad "--rounds auto, one manifest" "--rounds auto compares stacks: give two manifests or more" --rounds auto "$T/base.yaml"
bad "--max-rounds 1" "--max-rounds takes a whole number from 4 to 1000 (the first look is after round 4), got '1'" \
	--rounds auto --max-rounds 1 "$T/base.yaml" "$T/same.yaml"
bad "--max-rounds 3" "got '3'" --rounds auto --max-rounds 3 "$T/base.yaml" "$T/same.yaml"
bad "--max-time 0" "--max-time takes a duration above 0 such as 30m, got '0'" \
	--rounds auto --max-time 0 "$T/base.yaml" "$T/same.yaml"
bad "--detect without --rounds auto" "--detect, --max-rounds and --max-time go with --rounds auto" \
	--rounds 3 --detect 3% "$T/base.yaml" "$T/same.yaml"
bad "--rounds abc" "--rounds takes a whole number from 1 to 1000, got 'abc' (or auto)" --rounds abc "$T/base.yaml"
[ ! -d "$T/bad" ] && ok "no run directory for a bad argument" || not_ok "a bad argument made runs"

# (d) Ctrl-C in the fifth round of a set that cannot stop early: exit 6, every run kept with rounds.json
FAKE_SEED=14 FAKE_RUN_SD=0.05 FAKE_WITHIN_SD=0.01 FAKE_DELAY=0.1 "$BENCH" run -o "$T/int" --rounds auto \
	--max-rounds 8 "$T/base.yaml" "$T/same.yaml" >"$T/out" 2>"$T/err" &
bp=$!
n=0
while [ "$n" -lt 600 ]; do
	[ "$(ls -d "$T"/int/*/ 2>/dev/null | wc -l)" -ge 9 ] && grep -q "look 1 of 3" "$T/err" && break
	sleep 0.1
	n=$((n + 1))
done
sleep 0.5
kill -INT "$bp"
wait "$bp"
rc=$?
[ "$rc" = 6 ] && ok "SIGINT: exit 6" || not_ok "SIGINT: exit $rc"
expect_err "bench: rounds auto: stopped after 4 round(s): interrupted in round 5; the runs made so far are kept"
INT=$(ls -d "$T"/int/*/ | sed 's:/$::')
# shellcheck disable=SC2086
set -- $(rounds_facts $INT)
[ "$1 $2 $3" = "4 interrupted 1" ] && ok "rounds.json: 4 rounds complete, stop interrupted, 1 look" || not_ok "interrupted rounds.json: $*"
nb=$(ls "$T"/int/*.bench.tar.gz | wc -l)
[ "$(echo "$INT" | wc -l)" -ge 9 ] && [ "$nb" = "$(echo "$INT" | wc -l)" ] && ok "every run kept and packed ($nb)" ||
	not_ok "runs $(echo "$INT" | wc -l), bundles $nb"
# shellcheck disable=SC2086
expect 0 "the interrupted set's runs compare" "$BENCH" compare $INT
expect_err "alpha 0.00333"
ID=$(grep -l '"state": "interrupted"' "$T"/int/*/status.json | head -n 1)
ID=${ID%/status.json}
if [ -n "$ID" ]; then
	FAKE_SEED=15 FAKE_RUN_SD=0.05 FAKE_WITHIN_SD=0.01 expect 0 "bench run --resume of the interrupted run" \
		"$BENCH" run -q --no-pack --resume "$ID"
	grep -q '"state": "complete"' "$ID/status.json" && [ -f "$ID/rounds.json" ] &&
		ok "the resumed run is complete and keeps rounds.json" || not_ok "resume"
else
	not_ok "no run of the set was interrupted"
fi
expect 2 "--rounds auto cannot resume" "$BENCH" run --rounds auto --resume "$T/int"
finish
