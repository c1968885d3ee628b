#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench run is n log n in its cases (fourteenth review, r31P area 4): status.json was rewritten whole after every
# record, each rewrite O(cases) (500, 1000, 2000, 5000 cases took 1.5, 3.9, 14.6, 117 s of bench's own time), and a
# record's case was found by a walk over the runner's cases. Work is counted here, never timed (CI's timings are
# noise): strace counts status.json's rewrites while a fast runner reports 2,000 records (one a record before, a
# few now), callgrind the instructions bench spends taking a runner's 100 and 400 records (on_record and all it
# calls: 14x for 4x the records before, 4x now). And status.json still catches up with the records of a runner
# that has gone quiet, without a record to prompt it.
. "$(dirname "$0")/lib.sh"
fake_gemm
gen() { # out cases
	python3 - "$@" <<'PY'
import sys
out, n = sys.argv[1], int(sys.argv[2])
open(out, "w").write("bench: 1\nname: scale\ntarget: {vendor: cpu}\nruntime: {engine: host, launcher: local, timeout: 10m}\n"
                     "suites:\n  gemm:\n    dtypes: [fp32]\n    layouts: [tn]\n    shapes: [%s]\n"
                     % ", ".join("[%d, 8, 8]" % (i + 1) for i in range(n)))
PY
}
for n in 4 100 400 2000; do gen "$T/m$n.yaml" $n; done
export BENCH_RUNNERS="$T/fake" FAKE_MODE=ok
# every case ok, each once in results/gemm.jsonl and in status.json: the run did its work
all_ok() { # run-dir cases
	python3 - "$1" "$2" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
st = json.load(open(d + "/status.json"))
recs = [json.loads(l) for l in open(d + "/results/gemm.jsonl")]
assert st["state"] == "complete" and len(st["cases"]) == n and all(c["status"] == "ok" for c in st["cases"]), st["state"]
assert sorted(r["case"] for r in recs) == sorted(c["case"] for c in st["cases"]), len(recs)
PY
}

# status.json's rewrites while 2,000 records come: each one is a rename onto it
if ! command -v strace >/dev/null 2>&1; then
	ok "2,000 records: status.json rewritten at most 200 times # SKIP no strace"
else
	# (LeakSanitizer cannot run under ptrace: an ASan build's leak check is off for this one run)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq --seccomp-bpf -e trace=rename,renameat,renameat2 -o "$T/strace" \
		"$BENCH" run -q --no-pack -o "$T/s" "$T/m2000.yaml" >"$T/out" 2>"$T/err"
	rc=$?
	D=$(head -n 1 "$T/out")
	w=$(grep -c 'status\.json") = 0' "$T/strace")
	if [ "$rc" = 0 ] && all_ok "$D" 2000 && [ "$w" -ge 2 ] && [ "$w" -le 200 ]; then
		ok "2,000 records: status.json rewritten $w times (one a record made a run n^2), every case ok in it"
	else
		not_ok "2,000 records: status.json rewritten $w times (exit $rc; at most 200 wanted)"
		show "$T/err"
	fi
fi

# the instructions bench spends taking the records (on_record, inclusive): 4x the records, about 4x the work
if ! command -v valgrind >/dev/null 2>&1; then
	ok "instructions per record: 400 records within 5.5x of 100 # SKIP no valgrind"
elif grep -qa __asan_init "$BENCH"; then
	ok "instructions per record: 400 records within 5.5x of 100 # SKIP an ASan build (valgrind cannot run it)"
else
	for n in 100 400; do
		valgrind --tool=callgrind --collect-atstart=no --toggle-collect=on_record --callgrind-out-file=/dev/null \
			--log-file="$T/vg$n.log" "$BENCH" run -q --no-pack -o "$T/v$n" "$T/m$n.yaml" >"$T/out" 2>"$T/err" ||
			{ not_ok "the $n-case run under callgrind"; show "$T/err"; }
		all_ok "$(head -n 1 "$T/out")" $n || not_ok "the $n-case run under callgrind: not every case ok"
	done
	a=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/vg100.log")
	b=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/vg400.log")
	if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt 0 ] && python3 -c "import sys; sys.exit(0 if $b <= 5.5 * $a else 1)"; then
		ok "instructions per record: 400 records $b, 100 records $a ($(python3 -c "print('%.1f' % ($b / $a))")x; n^2 was 14x)"
	else
		not_ok "instructions per record: 400 records ${b:-?}, 100 records ${a:-?} (at most 5.5x wanted)"
		grep -h 'Collected\|Command:' "$T/vg100.log" "$T/vg400.log" | sed 's/^/#   /'
	fi
fi

# a runner quiet after 3 records: status.json shows them before the runner says anything more
FAKE_MODE=hang FAKE_GOOD=3 "$BENCH" run -q --no-pack -o "$T/q" "$T/m4.yaml" >/dev/null 2>&1 &
bp=$!
n=0
until [ "$(grep -os '"status": "ok"' "$T"/q/*/status.json 2>/dev/null | wc -l)" = 3 ] || [ $n -gt 200 ]; do
	sleep 0.1
	n=$((n + 1))
done
[ $n -le 200 ] && ok "a quiet runner: status.json shows its 3 records while it still runs" ||
	{ not_ok "a quiet runner: status.json does not show its 3 records"; show "$(ls "$T"/q/*/status.json | head -n 1)"; }
kill -INT $bp
wait $bp
[ $? = 6 ] && grep -q '"state": "interrupted"' "$T"/q/*/status.json && ok "then Ctrl-C: exit 6, state interrupted" ||
	not_ok "Ctrl-C of the quiet runner's run"
finish
