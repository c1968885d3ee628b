#!/bin/sh
# Issue 30, "every output tells the truth, briefly": what show, compare and run --rounds print on this machine.
#  - bench show RUN_DIR shows the run directory as it is, marked unsigned (no .intoto.jsonl is looked for);
#  - bench show of a CPU run with collectives: the cases without energy as one line, no definitions paragraph;
#  - bench compare over a glob of run directories and their bundles and statements: one run is one run, whatever
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

# 11. brief: the cases with no energy figure as one line per reason; no 300-character definitions
expect 0 "bench show of the bundle" "$BENCH" show "$BD"
n=$(grep -c 'no energy' "$T/out")
[ "$n" = 0 ] && ok "no per-case 'no energy' lines" || { not_ok "$n per-case 'no energy' lines"; show "$T/out"; }
expect_out "energy    none for 4 cases: no telemetry on the CPU"
long=$(awk 'length > 200' "$T/out" | wc -l)
[ "$long" = 0 ] && ok "no line over 200 characters" || { not_ok "$long lines over 200 characters"; awk 'length > 200' "$T/out" | cut -c1-120 | sed 's/^/#   /'; }
expect 0 "the definitions are in show -h" "$BENCH" show -h
expect_out "J/call = median board"

finish
