#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench run on engine host: the run directory, a real quickstart-style run, and failure handling driven by
# fake runners (crash, hang, garbage, early exit, wrong result), Ctrl-C followed by --resume.
. "$(dirname "$0")/lib.sh"
R=${BENCH_RUNNERS:?set BENCH_RUNNERS to the runners directory}
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py

cat >"$T/m.yaml" <<'Y'
bench: 1
name: runtest
target: {vendor: cpu}
runtime: {engine: host, launcher: local, timeout: 60s}
stack:
  env: {OMP_NUM_THREADS: "1", BENCH_TEST_SECRET_KEY: "hunter2"}
suites:
  gemm: {dtypes: [fp32], layouts: [tn, nn], shapes: [[64, 64, 64], [96, 64, 32], [32, 32, 32]], warmup: 1ms, rep: 5ms, flush_bytes: 1MiB}
  membw: {ops: [copy, write], bytes: 1MiB, warmup: 1ms, rep: 5ms}
Y

# --- a real run -------------------------------------------------------------------------------------------------
expect 0 "a real run on the host exits 0" "$BENCH" run -q -o "$T/runs" "$T/m.yaml"
D=$(head -n 1 "$T/out")
for f in manifest.yaml plan.json status.json summary.json results/gemm.jsonl results/membw.jsonl logs/gemm.log \
	 logs/membw.log cases/gemm.json env/environment.json env/raw/os-release; do
	[ -f "$D/$f" ] && ok "run directory has $f" || not_ok "run directory lacks $f"
done
case "$D" in "$T/runs/runtest-"20[0-9][0-9][01][0-9][0-3][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ok "run directory named <name>-<UTC>-<random>" ;; *) not_ok "run directory name $D" ;; esac
expect_same "manifest.yaml is the manifest, byte for byte" "$T/m.yaml" "$D/manifest.yaml"
if python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
st = json.load(open(f"{d}/status.json"))
assert st["state"] == "complete" and all(c["status"] == "ok" for c in st["cases"]) and len(st["cases"]) == 8
g = [json.loads(l) for l in open(f"{d}/results/gemm.jsonl")]
assert [r["case"] for r in g] == [c["case"] for c in st["cases"] if c["suite"] == "gemm"]
env = json.load(open(f"{d}/env/environment.json"))
assert env["host"]["cores"] >= 1 and env["host"]["kernel"]
assert env["env"]["BENCH_TEST_SECRET_KEY"] == "<redacted>", env["env"]
assert env["runners"]["gemm"]["vendor"] == "cpu" and "blas" in env["runners"]["gemm"], env.get("runners")
s = json.load(open(f"{d}/summary.json"))
assert s["counts"]["ok"] == 8 and s["counts"]["failed"] == 0
PY
then ok "status complete, records in plan order, environment captured with secrets redacted, summary"; else not_ok "run content"; fi
grep -q 'OMP_NUM_THREADS=1' "$D/logs/gemm.log" 2>/dev/null || true

# --- the summary table a person reads: values with a scaled unit, n and cv, recomputed from the records ----------
expect 0 "a run with its summary table" "$BENCH" run -o "$T/runs-s" "$T/m.yaml"
DS=$(head -n 1 "$T/out")
expect_err "suite        case                                             status                value     n      cv"
n=$(python3 "$(dirname "$0")/terminal_check.py" summary "$T/err" "$DS"/results/*.jsonl 2>"$T/tc") && [ "$n" = 8 ] &&
	ok "summary: each of the 8 cases with its value scaled to a readable unit, its n and cv" ||
	{ not_ok "summary table ($n)"; show "$T/tc"; }
# a CPU's figures are far below a TFLOP/s or a TB/s: never shown as 0.00x of one
if grep -E '^(gemm|membw) ' "$T/err" | grep -Eq ' 0\.0[0-9]* T(FLOP|B)/s'; then not_ok "summary: an unscaled value"; show "$T/err"
else ok "summary: no value written as a small fraction of a T unit"; fi
grep -Eq '^gemm +cblas/fp32/tn/64x64x64/default +ok +[0-9.]+ [kMGT]?FLOP/s +[0-9]+ +[0-9.]+%' "$T/err" &&
	ok "summary: a gemm line reads value, unit, n, cv" || { not_ok "summary gemm line"; show "$T/err"; }
expect 0 "--dry-run prints the plan and the exact commands, runs nothing" "$BENCH" run --dry-run -o "$T/dry" "$T/m.yaml"
expect_out "gemm         cblas/fp32/tn/64x64x64/default"
expect_out "/bench-gemm --config RUN_DIR/cases/gemm.json"
[ ! -d "$T/dry" ] && ok "--dry-run created no run directory" || not_ok "--dry-run created $T/dry"
expect 0 "--suite runs only the named suite" "$BENCH" run -q --suite membw -o "$T/runs2" "$T/m.yaml"
D2=$(head -n 1 "$T/out")
[ ! -s "$D2/results/gemm.jsonl" ] && [ -s "$D2/results/membw.jsonl" ] && ok "only membw ran" || not_ok "--suite membw"
if python3 - "$D2" <<'PY'
import json, sys
d = sys.argv[1]
st, plan = json.load(open(f"{d}/status.json")), json.load(open(f"{d}/plan.json"))
assert {c["suite"] for c in st["cases"]} == {"membw"} and len(st["cases"]) == 2, st["cases"]
assert list(plan["suites"]) == ["membw"], plan["suites"]
assert st["state"] == "complete"
PY
then ok "--suite: the unselected suites are not in the run (plan.json, status.json), not marked skipped"; else not_ok "--suite run content"; fi
expect 0 "--resume of a --suite run keeps its selection" "$BENCH" run -q --resume "$D2"
expect 2 "--suite naming a suite the manifest lacks is a usage error" "$BENCH" run -q --suite training -o "$T/runs2" "$T/m.yaml"
expect_err "--suite: that suite has no case in"

# --- run names: unique under concurrency -------------------------------------------------------------------------
# four runs of one manifest started together (a CI matrix, several nodes writing one results tree): four names
for k in 1 2 3 4; do "$BENCH" run -q --no-pack -s membw -o "$T/same" "$T/m.yaml" >"$T/same-$k.out" 2>&1 & done
wait
n=$(ls "$T/same" | sort -u | wc -l)
[ "$n" = 4 ] && ok "four runs started at once get four run directories" || { not_ok "concurrent runs share names: $(ls "$T/same")"; }
[ "$(ls "$T/same" | sort)" = "$(ls "$T/same" | sort -t- -k2,2)" ] && ok "run names sort by their start time" || not_ok "names do not sort by time"

# --- CPU defaults give a useful number of samples: the flush is 2 x LLC within 8..64 MiB, not the GPU's 256 MiB ---
cat >"$T/cpudef.yaml" <<'Y'
bench: 1
name: cpudefaults
target: {vendor: cpu}
runtime: {engine: host, launcher: local, timeout: 60s}
stack:
  env: {OMP_NUM_THREADS: "1"}
suites:
  gemm: {dtypes: [fp32], layouts: [tn], shapes: [[128, 128, 128]]}
Y
expect 0 "a small CPU GEMM with the default flush and rep" "$BENCH" run -q --no-pack -o "$T/cpudef" "$T/cpudef.yaml"
if python3 - "$(head -n 1 "$T/out")" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1] + "/results/gemm.jsonl").readline())
s = r["extra"]["schedule"]
assert (8 << 20) <= s["flush_bytes"] <= (64 << 20), s
assert r["stats"]["n"] >= 10, (r["stats"]["n"], s)
PY
then ok "default CPU flush within 8..64 MiB, at least 10 samples in the default 200 ms"; else not_ok "CPU defaults"; fi

# --- interleaved stacks: bench run A B --rounds 2 --------------------------------------------------------------------
sed 's/^name: runtest$/name: sidea/' "$T/m.yaml" >"$T/a.yaml"
sed 's/^name: runtest$/name: sideb/' "$T/m.yaml" >"$T/b.yaml"
expect 0 "two stacks, two rounds, interleaved" "$BENCH" run -o "$T/ab" --rounds 2 "$T/a.yaml" "$T/b.yaml"
expect_err "sideb: gemm [1/6]"
if python3 - "$T/ab" <<'PY'
import glob, json, os, sys
ab = sys.argv[1]
runs = sorted(d for d in glob.glob(f"{ab}/side*") if os.path.isdir(d))
assert len(runs) == 4, runs
st = {d: json.load(open(f"{d}/status.json")) for d in runs}
assert len({s["interleave"]["group"] for s in st.values()}) == 1
assert sorted((s["run"], s["interleave"]["round"]) for s in st.values()) == [("sidea", 1), ("sidea", 2), ("sideb", 1), ("sideb", 2)]
assert all(s["state"] == "complete" and s["interleave"]["rounds"] == 2 and s["interleave"]["stacks"] == 2 for s in st.values())
# the order in which each suite's results were written: round 1 a, b; round 2 b, a (ABBA), suite by suite
def written(suite):
    return [(st[d]["interleave"]["round"], st[d]["run"]) for d in sorted(runs, key=lambda d: os.stat(f"{d}/results/{suite}.jsonl").st_mtime_ns)]
for suite in ("gemm", "membw"):
    assert written(suite) == [(1, "sidea"), (1, "sideb"), (2, "sideb"), (2, "sidea")], (suite, written(suite))
# suite by suite: both stacks' gemm of a round before either's membw
for rnd in (1, 2):
    ds = [d for d in runs if st[d]["interleave"]["round"] == rnd]
    assert max(os.stat(f"{d}/results/gemm.jsonl").st_mtime_ns for d in ds) < min(os.stat(f"{d}/results/membw.jsonl").st_mtime_ns for d in ds)
assert len(glob.glob(f"{ab}/*.bench.tar.gz")) == 4
PY
then ok "four runs, one group, ABBA order suite by suite, each signed"; else not_ok "interleaved runs"; fi
expect 2 "--rounds 0 is a usage error" "$BENCH" run --rounds 0 "$T/a.yaml"
expect_err "--rounds takes a whole number from 1 to 1000, got '0'"

# --- device honesty: a GPU target measured on the host is failed, not ok ----------------------------------------
cat >"$T/gpu.yaml" <<'Y'
bench: 1
name: gputarget
target: {vendor: cuda, gpu: h200}
runtime: {engine: host, launcher: local, timeout: 30s}
suites:
  membw: {ops: [copy], bytes: 1MiB, warmup: 1ms, rep: 5ms}
Y
if [ -z "$(command -v nvidia-smi)" ]; then
	expect 6 "a cuda target on a machine without a CUDA device fails (exit 6)" "$BENCH" run -o "$T/gpu" "$T/gpu.yaml"
	expect_err "membw/copy/1MiB: target h200 (cuda) but no CUDA device is visible: the runner measured the host CPU"
	if python3 - "$(head -n 1 "$T/out")" <<'PY'
import json, sys
d = sys.argv[1]
r = [json.loads(l) for l in open(f"{d}/results/membw.jsonl")]
assert len(r) == 1 and r[0]["status"] == "failed" and "no CUDA device is visible" in r[0]["error"], r
assert r[0]["extra"]["device"]["vendor"] == "cpu"
st = json.load(open(f"{d}/status.json"))
assert st["cases"][0]["status"] == "failed" and "no CUDA device" in st["cases"][0]["error"]
s = json.load(open(f"{d}/summary.json"))
assert s["counts"]["ok"] == 0 and "no CUDA device" in s["cases"][0]["error"]
PY
	then ok "the host figure is kept in a failed record; status.json and summary.json say why"; else not_ok "device honesty records"; fi
else
	ok "# SKIP a CUDA device is visible here"
fi

# --- a run that never started writes no bundle ------------------------------------------------------------------
cat >"$T/nolock.yaml" <<'Y'
bench: 1
name: nolock
target: {vendor: cpu}
runtime: {engine: podman, launcher: local, timeout: 30s}
stack: {base: "debian:bookworm"}
suites:
  membw: {ops: [copy], bytes: 1MiB, warmup: 1ms, rep: 5ms}
Y
expect 3 "a container run without a lock stops with exit 3" "$BENCH" run -o "$T/nolock" "$T/nolock.yaml"
expect_err "no bundle: nothing was measured"
ls "$T/nolock"/*.bench.tar.gz >/dev/null 2>&1 && not_ok "a bundle was written for a run that never started" ||
	ok "no bundle for a run that never started"
grep -q '"state": "not-started"' "$T"/nolock/nolock-*/status.json && grep -q '"error": "not started: ' "$T"/nolock/nolock-*/status.json &&
	ok "status.json says not-started and why" || { not_ok "status.json of a run that never started"; show "$T"/nolock/nolock-*/status.json; }

# --- fake runners -------------------------------------------------------------------------------------------------
mkdir -p "$T/fake"
ln -s "$FAKE" "$T/fake/bench-gemm"
ln -s "$R/bench-membw" "$T/fake/bench-membw"
fake() { # mode expected-exit description (the manifest: $M, else m.yaml)
	mode=$1 code=$2
	shift 2
	BENCH_RUNNERS=$T/fake FAKE_MODE=$mode FAKE_GOOD=2 FAKE_PIDFILE=$T/pid expect "$code" "$*" "$BENCH" run -q -o "$T/f-$mode" "${M:-$T/m.yaml}"
	FD=$(ls -d "$T/f-$mode"/runtest-* | head -n 1)
}
counts() { python3 - "$FD" "$@" <<'PY'
import json, sys
d, want_ok, want_bad, reason = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
st = json.load(open(f"{d}/status.json"))
g = [c for c in st["cases"] if c["suite"] == "gemm"]
ok = [c for c in g if c["status"] == "ok"]
bad = [c for c in g if c["status"] == "failed"]
recs = [json.loads(l) for l in open(f"{d}/results/gemm.jsonl")]
assert len(ok) == want_ok and len(bad) == want_bad, (len(ok), len(bad))
assert len(recs) == want_ok + sum(1 for c in g if c["status"] == "failed" and "planted" in c.get("error", ""))
assert all(reason in c["error"] for c in bad if "planted" not in c["error"]), [c["error"] for c in bad]
m = [c for c in st["cases"] if c["suite"] == "membw"]
assert all(c["status"] == "ok" for c in m), "the other suite must still run"
PY
}

fake crash 6 "a runner that crashes: exit 6"
counts 2 4 "killed by signal 11" && ok "crash: 2 records kept, 4 cases failed with the signal, membw still ran" || not_ok "crash bookkeeping"
# the hang: the only case that needs a short suite timeout (every other run here has a minute, so that a loaded
# machine, with other tests alongside, cannot fail them). What must come within it: the fake runner's two records
# before the hang (written at once) and the membw suite (two small cases); 10 s leaves a loaded machine room for both
sed 's/timeout: 60s}/timeout: 10s}/' "$T/m.yaml" >"$T/m10.yaml"
t0=$(date +%s)
# a sleep only this test starts (another test run may be going on at the same time)
export FAKE_SLEEP="1000.$$"
M=$T/m10.yaml
fake hang 6 "a runner that hangs: exit 6 after the timeout"
M=
t1=$(date +%s)
counts 2 4 "did not finish within the suite timeout" && ok "hang: 2 records kept, the rest failed with the timeout" || not_ok "hang bookkeeping"
[ $((t1 - t0)) -lt 60 ] && ok "the hang was ended in $((t1 - t0))s (timeout 10s, the runner sleeps 1000 s)" || not_ok "hang took $((t1 - t0))s"
pid=$(cat "$T/pid" 2>/dev/null)
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then not_ok "the hung runner $pid is still alive"; else ok "the hung runner is gone"; fi
if pgrep -f "sleep $FAKE_SLEEP" >/dev/null; then not_ok "the hung runner's child survived"; pkill -f "sleep $FAKE_SLEEP"; else ok "its whole process group was killed"; fi
fake garbage 0 "a runner that prints garbage between records: its records still count"
counts 6 0 "-" && ok "garbage: all 6 records kept" || not_ok "garbage bookkeeping"
grep -q "malformed line" "$FD/logs/gemm.log" && grep -q "not in this run" "$FD/logs/gemm.log" && ok "garbage is logged" || not_ok "garbage not logged"
fake early 6 "a runner that exits early: exit 6"
counts 2 4 "exited with status 3" && ok "early exit: 2 records kept, the rest failed with the status" || not_ok "early bookkeeping"
fake wrong 7 "a wrong result: exit 7"
expect_err "correctness check failed"

# --- Ctrl-C, then --resume ------------------------------------------------------------------------------------------
BENCH_RUNNERS=$T/fake FAKE_MODE=ok FAKE_DELAY=0.4 "$BENCH" run -q -o "$T/int" "$T/m.yaml" >"$T/out" 2>"$T/err" &
bp=$!
n=0
while [ "$n" -lt 100 ]; do
	f=$(ls "$T"/int/runtest-*/results/gemm.jsonl 2>/dev/null | head -n 1)
	[ -n "$f" ] && [ "$(wc -l <"$f")" -ge 2 ] && break
	sleep 0.1
	n=$((n + 1))
done
kill -INT "$bp"
wait "$bp"
rc=$?
[ "$rc" = 6 ] && ok "SIGINT: exit 6" || not_ok "SIGINT exit $rc"
ID=$(ls -d "$T"/int/runtest-* | head -n 1)
grep -q '"state": "interrupted"' "$ID/status.json" && grep -q '"status": "interrupted"' "$ID/status.json" &&
	ok "status.json: state interrupted, unfinished cases interrupted" || not_ok "interrupted status"
grep -q "bench run --resume" "$T/err" && ok "the message says how to resume" || not_ok "no resume hint"
before=$(wc -l <"$ID/results/gemm.jsonl")
head -n "$before" "$ID/results/gemm.jsonl" >"$T/kept.jsonl"
BENCH_RUNNERS=$T/fake FAKE_MODE=ok expect 0 "--resume completes the run" "$BENCH" run -q --resume "$ID"
if python3 - "$ID" "$T/kept.jsonl" <<'PY'
import json, sys
d, kept = sys.argv[1], sys.argv[2]
st = json.load(open(f"{d}/status.json"))
assert st["state"] == "complete" and all(c["status"] == "ok" for c in st["cases"]), st
recs = [l for l in open(f"{d}/results/gemm.jsonl")]
keys = [json.loads(l)["case"] for l in recs]
assert len(keys) == len(set(keys)) == 6, keys           # nothing duplicated, nothing missing
assert recs[:len(open(kept).readlines())] == open(kept).readlines()   # measured records untouched
PY
then ok "after --resume: every case ok once, the records measured before Ctrl-C kept byte for byte"; else not_ok "resume content"; fi
expect 2 "--resume with a manifest too is a usage error" "$BENCH" run --resume "$ID" "$T/m.yaml"
expect 1 "--resume of a directory that is not a run" "$BENCH" run --resume "$T"
expect_err "is not a run directory"
# --- a run that measures nothing (issue #30) --------------------------------------------------------------------
# CBLAS has no fp16 GEMM: every case is skipped. Nothing measured is exit 10, the run directory kept (state
# complete), and no signed bundle unless --pack-empty asks for one.
cat >"$T/skip.yaml" <<'Y'
bench: 1
name: allskip
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {backends: [cblas], dtypes: [fp16], layouts: [tn, nn], shapes: [[64, 64, 64]], warmup: 1ms, rep: 5ms}
Y
expect 10 "every case skipped: exit 10 (nothing measured)" "$BENCH" run -o "$T/skip" "$T/skip.yaml"
expect_err "bench: error: nothing was measured: every case was skipped; see $T/skip/allskip-"
expect_err "bench: no bundle: nothing was measured (--pack-empty writes one)"
SD=$(head -n 1 "$T/out")
[ "$(wc -l <"$T/out")" = 1 ] && ! ls "$T"/skip/*.bench.tar.gz >/dev/null 2>&1 && ok "no bundle written, only the run directory printed" ||
	{ not_ok "a bundle of nothing was written"; show "$T/out"; }
grep -q '"state": "complete"' "$SD/status.json" && ok "its status.json says complete" || not_ok "state of an all-skipped run"
expect 10 "--pack-empty: still exit 10" "$BENCH" run -q --pack-empty -o "$T/skip2" "$T/skip.yaml"
[ -f "$(sed -n 2p "$T/out")" ] && expect 0 "--pack-empty: the bundle is written and verifies" "$BENCH" verify "$(sed -n 2p "$T/out")" ||
	not_ok "--pack-empty wrote no bundle"
cp "$T/m.yaml" "$T/m60.yaml" # (the sections below were written for a copy with a minute of suite timeout: m.yaml has it now)
# --- quality flags (issue #30): one sample or a wide spread is flagged in the record, summary.json, run and show ---
fake_gemm
BENCH_RUNNERS=$T/fake FAKE_MODE=ok FAKE_SAMPLES=1.0 expect 0 "one sample per case: flagged, not failed (exit 0)" \
	"$BENCH" run -s gemm -o "$T/q1" "$T/m60.yaml"
expect_err "! 6 of 6 ok cases flagged: fewer timed samples than the suite's minimum, or cv above 10%: the figure alone is not to be trusted"
grep -Eq "^gemm +cblas/fp32/tn/64x64x64/default +ok +[0-9.]+ [A-Z]?FLOP/s +1 +[0-9.]+% ! n < 10$" "$T/err" &&
	ok "run: the case's row ends ! n < 10" || { not_ok "run: no flag on the row"; show "$T/err"; }
Q1=$(head -n 1 "$T/out")
Q1B=$(sed -n 2p "$T/out")
BENCH_RUNNERS=$T/fake FAKE_MODE=noisy FAKE_N=12 FAKE_CV=0.3 expect 0 "a cv of 30%: flagged" "$BENCH" run -q -s gemm -o "$T/q2" "$T/m60.yaml"
Q2=$(head -n 1 "$T/out")
BENCH_RUNNERS=$T/fake FAKE_MODE=noisy FAKE_N=12 FAKE_CV=0.02 expect 0 "12 samples at 2%: not flagged" "$BENCH" run -s gemm -o "$T/q3" "$T/m60.yaml"
grep -q " ! \|^! \|flagged" "$T/err" && { not_ok "a sound run printed flags"; show "$T/err"; } || ok "a sound run prints no flags"
Q3=$(head -n 1 "$T/out")
if python3 - "$Q1" "$Q2" "$Q3" <<'PY'
import json, sys
for d, want in zip(sys.argv[1:], (["few-samples"], ["high-cv"], [])):
    recs = [json.loads(l) for l in open(d + "/results/gemm.jsonl")]
    assert len(recs) == 6
    for r in recs:
        assert r["quality"] == {"min_samples": 10, "max_cv": 0.1, "flags": want}, (d, r.get("quality"))
    for c in json.load(open(d + "/summary.json"))["cases"]:
        assert c.get("flags", []) == want, (d, c)
PY
then ok "records carry quality {min_samples, max_cv, flags}; summary.json cases carry the flags"; else not_ok "quality in record/summary"; fi
expect 0 "bench show of the one-sample bundle" "$BENCH" show "$Q1B"
grep -Eq "^gemm +cblas/fp32/nn/32x32x32/default +ok +[0-9.]+ [A-Z]?FLOP/s +1 +[0-9.]+% ! n < 10$" "$T/out" &&
	grep -q "^! 6 of 6 ok cases flagged" "$T/out" && ok "show: the flagged row with why, and the note" ||
	{ not_ok "show: no flag on the row"; show "$T/out"; }
# --- -k, --rep, --warmup (issue #30): case selection and timing without editing the YAML, recorded in the run ---
# (the fake gemm runner of the section above: it echoes each case's params, and a loaded machine cannot time it out)
BENCH_RUNNERS=$T/fake FAKE_MODE=ok expect 0 "-k tn/64,nn/32 --rep 20ms --warmup 2ms" \
	"$BENCH" run -q -k tn/64,nn/32 --rep 20ms --warmup 2ms -o "$T/k" "$T/m60.yaml"
KD=$(head -n 1 "$T/out")
KB=$(sed -n 2p "$T/out")
if python3 - "$KD" <<'PY'
import json, sys
d = sys.argv[1]
plan, st = json.load(open(d + "/plan.json")), json.load(open(d + "/status.json"))
want = {"select": ["tn/64", "nn/32"], "rep": "20ms", "warmup": "2ms"}
assert plan["overrides"] == want and st["overrides"] == want, (plan.get("overrides"), st.get("overrides"))
assert [c["case"] for c in plan["cases"]] == ["cblas/fp32/tn/64x64x64/default", "cblas/fp32/nn/32x32x32/default"], plan["cases"]
assert all(c["params"]["rep_ms"] == 20 and c["params"]["warmup_ms"] == 2 for c in plan["cases"]), plan["cases"]
recs = [json.loads(l) for l in open(d + "/results/gemm.jsonl")]
assert len(recs) == 2 and all(r["params"]["rep_ms"] == 20 and r["params"]["warmup_ms"] == 2 for r in recs), recs
assert st["state"] == "complete" and len(st["cases"]) == 2
PY
then ok "plan.json and status.json record the overrides; the plan holds the matching cases, with rep 20ms and warmup 2ms"
else not_ok "overrides in the run"; fi
expect 0 "the bundle of that run verifies" "$BENCH" verify "$KB"
BENCH_RUNNERS=$T/fake FAKE_MODE=ok expect 0 "the same cases without --rep and --warmup" \
	"$BENCH" run -q --no-pack -k tn/64,nn/32 -o "$T/k1" "$T/m60.yaml"
expect 0 "compare it with the --rep run" "$BENCH" compare "$(head -n 1 "$T/out")" "$KD"
expect_out "stack/environment: run.overrides.rep                        null -> \"20ms\""
expect_out "stack/environment: run.overrides.warmup                     null -> \"2ms\""
expect_out "WARNING: the method differs for 2 case(s)"
expect 2 "-k matching no case: a usage error" "$BENCH" run -q -k no-such-case -o "$T/k0" "$T/m60.yaml"
expect_err "bench: error: -k: no case of '$T/m60.yaml' matches that pattern"
[ -e "$T/k0" ] && not_ok "-k matching nothing made a run directory" || ok "-k matching nothing makes no run directory"
expect 2 "--rep that is not a duration" "$BENCH" run -q --rep fast "$T/m60.yaml"
expect_err "--rep takes a duration above 0 such as 50ms, got 'fast'"
expect 0 "--rep on a plan: the suites without a time budget are named" "$BENCH" run -n --rep 20ms "${BENCH_DATA:-.}/manifests/quickstart.yaml"
expect_err "bench: --rep does not apply to suite 'collectives' (it counts iterations or steps)"
# an interrupted -k run resumes with its own selection and budgets (plan.json holds them)
BENCH_RUNNERS=$T/fake FAKE_MODE=ok FAKE_DELAY=0.5 "$BENCH" run -q --no-pack -k /tn/ --rep 30ms -o "$T/kr" "$T/m60.yaml" >/dev/null 2>&1 &
bp=$!
n=0; while [ $n -lt 100 ] && ! [ "$(cat "$T"/kr/*/results/gemm.jsonl 2>/dev/null | wc -l)" -ge 1 ]; do sleep 0.1; n=$((n + 1)); done
kill -INT $bp; wait $bp
KR=$(ls -d "$T"/kr/runtest-* | head -n 1)
expect 2 "--resume with -k: a usage error (the run keeps its own)" "$BENCH" run --resume "$KR" -k nn
BENCH_RUNNERS=$T/fake FAKE_MODE=ok expect 0 "--resume of an interrupted -k --rep run" "$BENCH" run -q --no-pack --resume "$KR"
python3 -c '
import json, sys
st = json.load(open(sys.argv[1] + "/status.json"))
assert st["state"] == "complete" and st["overrides"] == {"select": ["/tn/"], "rep": "30ms"}, st
assert sorted(c["case"] for c in st["cases"]) == sorted("cblas/fp32/tn/%s/default" % s for s in ("64x64x64", "96x64x32", "32x32x32")), st["cases"]
' "$KR" && ok "resumed: the same 3 cases, the overrides kept" || { not_ok "resume of a -k run"; show "$KR/status.json"; }
finish
