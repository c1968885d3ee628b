#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 30, "every output tells the truth, briefly": what show, compare and run --rounds print on this machine.
#  - bench show RUN_DIR shows the run directory as it is, marked unsigned (no .intoto.jsonl is looked for);
#  - bench show of a CPU run with collectives: the cases without energy as one line, no definitions paragraph;
#  - bench compare over a glob of run directories and their bundles and envelopes: one run is one run, whatever
#    form it is given in; a side that mixes manifests of one name says so, in text and JSON;
#  - bench run A B --rounds N ends with one line per stack against the first, not N tables per stack.
. "$(dirname "$0")/lib.sh"
fake_gemm
FAKE=$T/fake

# a real CPU run of the collectives (2 MPI ranks): no telemetry on the CPU
cat >"$T/coll.yaml" <<Y
bench: 1
name: coll
target: {vendor: cpu, gpus_per_node: 2}
runtime: {engine: host}
suites:
  collectives: {backend: mpi, ops: [all_reduce], min_bytes: 64KiB, max_bytes: 256KiB, factor: 4, dtype: fp32,
                warmup_iters: 2, iters: 10}
Y
expect 0 "a CPU run of the collectives" "$BENCH" run -q -o "$T/c" "$T/coll.yaml"
D=$(sed -n 1p "$T/out")
BD=$(sed -n 2p "$T/out")

# 10. a run directory is shown as it is, unsigned
expect 0 "bench show RUN_DIR" "$BENCH" show "$D"
head -n 1 "$T/out" | grep -q '^unsigned run directory' && ok "its first line says: unsigned run directory" ||
	{ not_ok "no unsigned mark"; show "$T/out"; }
grep -q "^run       $(basename "$D")$" "$T/out" && ok "the run's name" || not_ok "run name"
grep -q '^collectives  all_reduce/fp32/64KiB/out-of-place/r2n1 ' "$T/out" && ok "its cases" || { not_ok "cases"; show "$T/out"; }
expect 0 "bench show --json RUN_DIR" "$BENCH" show --json "$D"
python3 - "$T/out" <<'PY' && ok "JSON: signed and verified false, the summary's cases" || not_ok "show --json of a run directory"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["signed"] is False and d["verified"] is False and d.get("keyid") is None, d.keys()
assert len(d["summary"]["cases"]) == 4, d["summary"]
PY
expect 0 "bench show RUN_DIR/ (a trailing slash)" "$BENCH" show "$D/"
grep -q "^run       $(basename "$D")$" "$T/out" && ok "the same name" || not_ok "trailing slash"
mkdir "$T/empty"
expect 1 "a directory that is not a run" "$BENCH" show "$T/empty"
expect_err "'$T/empty' is not a run directory or a bundle (no plan.json)"

# 11. brief: the cases with no energy figure as one line per reason; no 300-character definitions
expect 0 "bench show of the bundle" "$BENCH" show "$BD"
n=$(grep -c 'no energy' "$T/out")
[ "$n" = 0 ] && ok "no per-case 'no energy' lines" || { not_ok "$n per-case 'no energy' lines"; show "$T/out"; }
expect_out "energy    none for 4 cases: no telemetry on the CPU"
long=$(awk 'length > 200' "$T/out" | wc -l)
[ "$long" = 0 ] && ok "no line over 200 characters" || { not_ok "$long lines over 200 characters"; awk 'length > 200' "$T/out" | cut -c1-120 | sed 's/^/#   /'; }
expect 0 "the definitions are in show -h" "$BENCH" show -h
expect_out "J/call = the board's energy counter"

# 5. sides built from what a glob gives: each run's directory, bundle and envelope (runs/a-* --vs runs/b-*, as the
# README has it); one run is one run, whatever form it is given in
printf 'bench: 1\nname: a\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [128, 64, 64]]}\n' >"$T/a.yaml"
sed 's/name: a/name: b/' "$T/a.yaml" >"$T/b.yaml"
export FAKE_MODE=noisy FAKE_SEQ="$T/seq" FAKE_RUN_SD=0.005 FAKE_WITHIN_SD=0.01 FAKE_N=10 FAKE_SEED=3
BENCH_RUNNERS=$FAKE expect 0 "two stacks, three rounds, packed" "$BENCH" run -q -o "$T/r" --rounds 3 "$T/a.yaml" "$T/b.yaml"
[ "$(ls -d "$T"/r/a-* | wc -l)" = 9 ] && ok "the glob runs/a-* gives 9 paths: 3 directories, 3 bundles, 3 envelopes" || { not_ok "glob"; ls "$T/r" | sed 's/^/#   /'; }
expect 0 "compare runs/a-* --vs runs/b-*" "$BENCH" compare --format json "$T"/r/a-* --vs "$T"/r/b-*
python3 - "$T/out" <<'PY' && ok "two sides of 3 runs, each run once, in its verified form; no mixed manifests" || { not_ok "glob sides"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert [s["nruns"] for s in d["sides"]] == [3, 3], [(s["label"], s["nruns"]) for s in d["sides"]]
for s in d["sides"]:
    labels = [r["label"] for r in s["runs"]]
    assert len(set(labels)) == 3 and not [l for l in labels if "(" in l], labels
    assert s["verified"] is True and all(r["path"].endswith(".bench.tar.gz") for r in s["runs"]), s["runs"]
    assert "mixed_manifests" not in s, s
assert all(c["others"][0]["runs"] == 3 and c["baseline"]["runs"] == 3 for c in d["cases"]), d["cases"]
PY
A1=$(ls -d "$T"/r/a-* | sed -n 1p)
expect 0 "a run directory and its own bundle on one side" "$BENCH" compare --format json "$A1" "$A1.bench.tar.gz" \
	"$(ls -d "$T"/r/a-* | sed -n 4p)" --vs "$T"/r/b-*.bench.tar.gz
python3 - "$T/out" <<'PY' && ok "they count as one run: side of 2 runs" || { not_ok "directory and bundle"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sides"][0]["nruns"] == 2 and d["sides"][0]["label"] == "a (2 runs)", d["sides"][0]
PY
A2=$(ls -d "$T"/r/a-* | sed -n 4p)
expect 0 "the same as text" "$BENCH" compare "$A1" "$A1.bench.tar.gz" "$A2" --vs "$T"/r/b-*.bench.tar.gz
grep -qx "UNVERIFIED: a (2 runs): $A2 (a run directory or a bundle that did not verify)" "$T/out" &&
	ok "UNVERIFIED names the one run directory kept, not the verified bundle" || { not_ok "UNVERIFIED line"; show "$T/out"; }
expect 0 "an envelope alone is read as its bundle" "$BENCH" compare "$A1.bench.tar.gz.intoto.jsonl" "$(ls -d "$T"/r/b-* | sed -n 1p).bench.tar.gz"
expect_out "b-"
expect 0 "without --vs: a run's directory and bundle are one side" "$BENCH" compare --format json "$A1" "$A1.bench.tar.gz" "$A1.bench.tar.gz.intoto.jsonl" "$(ls -d "$T"/r/b-* | sed -n 1p)"
python3 - "$T/out" <<'PY' && ok "two sides, not three" || { not_ok "without --vs"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["sides"]) == 2 and d["sides"][0]["nruns"] == 1 and d["sides"][0]["verified"], d["sides"]
PY

# an older manifest of the same name, pooled by the glob: the side says so
sed 's/\[128, 64, 64\]/[192, 64, 64]/' "$T/a.yaml" >"$T/a-old.yaml"
BENCH_RUNNERS=$FAKE expect 0 "a run of another manifest named a" "$BENCH" run -q --no-pack -o "$T/r" "$T/a-old.yaml"
expect 0 "compare with it pooled into side a" "$BENCH" compare "$T"/r/a-* --vs "$T"/r/b-*
grep -q '^WARNING: side a (4 runs) mixes 2 manifests, so its runs are not repeats of one stack: manifest [0-9a-f]\{12\}: a-.* a-.* a-.*; manifest [0-9a-f]\{12\}: a-[^ ]*$' "$T/out" &&
	ok "text: a warning line names both manifests and their runs" || { not_ok "no mixed-manifest warning"; show "$T/out"; }
expect 0 "the same as JSON" "$BENCH" compare --format json "$T"/r/a-* --vs "$T"/r/b-*
python3 - "$T/out" <<'PY' && ok "json: sides[0].mixed_manifests, digest -> runs (3 and 1)" || { not_ok "json mixed_manifests"; show "$T/out"; }
import json, sys
d = json.load(open(sys.argv[1]))
m = d["sides"][0]["mixed_manifests"]
assert sorted(len(v) for v in m.values()) == [1, 3] and all(len(k) == 64 for k in m), m
assert "mixed_manifests" not in d["sides"][1]
PY

# 11. bench run A B --rounds 3: a line per run, no table per run; at the end one line per stack against the first
BENCH_RUNNERS=$FAKE FAKE_SLOW_RUN=a FAKE_SLOWDOWN=0.25 expect 0 "two stacks, three rounds (a 25% slower)" \
	"$BENCH" run --no-pack -o "$T/ab" --rounds 3 "$T/a.yaml" "$T/b.yaml"
n=$(grep -c '^suite  ' "$T/err")
[ "$n" = 0 ] && ok "no per-run summary table" || { not_ok "$n per-run tables"; show "$T/err"; }
n=$(grep -c '^[ab]: 2 ok, 0 failed, 0 skipped, 0 interrupted, 0 findings — ' "$T/err")
[ "$n" = 6 ] && ok "a line per run: its counts and directory" || { not_ok "$n run lines"; show "$T/err"; }
grep -q '^  b (3 runs) vs a (3 runs): 2 cases faster 1\.2[0-9]x \[1\.[0-9][0-9], 1\.[0-9][0-9]\], 0 same, 0 slower, 0 inconclusive$' "$T/err" &&
	ok "one line: b (3 runs) vs a (3 runs): 2 cases faster 1.2Nx [lo, hi], 0 same, 0 slower" || { not_ok "no stacks line"; show "$T/err"; }
[ "$(grep -c ' vs ' "$T/err")" = 1 ] && ok "once, at the end" || not_ok "the stacks line more than once"
BENCH_RUNNERS=$FAKE expect 0 "-v keeps each run's table" "$BENCH" run -v --no-pack -o "$T/ab" --rounds 1 "$T/a.yaml" "$T/b.yaml"
n=$(grep -c '^suite  ' "$T/err")
[ "$n" = 2 ] && ok "-v: a table per run" || { not_ok "-v: $n tables"; show "$T/err"; }
BENCH_RUNNERS=$FAKE expect 0 "-q: nothing but the paths" "$BENCH" run -q --no-pack -o "$T/ab" --rounds 1 "$T/a.yaml" "$T/b.yaml"
[ ! -s "$T/err" ] && ok "-q: stderr empty" || { not_ok "-q: stderr"; show "$T/err"; }

finish
