#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A suite's env_matrix (issue: sweeps in one manifest): {NAME: [values]} expands every case once per cell of the
# product, keyed <case>/env:NAME=value,...; one run measures every cell (the suite's runner started once per cell
# with the cell's variables over stack.env), each record carries its cell in params.env, and compare matches cells.
. "$(dirname "$0")/lib.sh"
R=${BENCH_RUNNERS:?set BENCH_RUNNERS to the runners directory}

# --- manifest errors, placed -----------------------------------------------------------------------------------
cat >"$T/bad.yaml" <<'Y'
bench: 1
name: bad
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm:
    env_matrix: [NCCL_ALGO]
  membw:
    env_matrix: {A: [], 1B: [x], C: [x, y, x], D: "3", A: [z]}
  collectives:
    env_matrix: {A: [a, b, c, d], B: [a, b, c, d], C: [a, b, c, d, e]}
  attention:
    env_matrix: {E: [ok, [nested]]}
Y
expect 3 "validate refuses bad env_matrix entries" "$BENCH" validate "$T/bad.yaml"
expect_err "$T/bad.yaml:7:17: error: 'env_matrix' in suite 'gemm' must be a mapping of variable names to lists of values"
expect_err "$T/bad.yaml:9:21: error: env_matrix 'A' must be a non-empty list of strings such as [Ring, Tree], got an empty list"
expect_err "$T/bad.yaml:9:25: error: environment variable name '1B' must match [A-Za-z_][A-Za-z0-9_]*"
expect_err "$T/bad.yaml:9:44: error: env_matrix 'C' lists 'x' twice (first at line 9)"
expect_err "$T/bad.yaml:9:51: error: env_matrix 'D' must be a non-empty list of strings"
expect_err "$T/bad.yaml:9:56: error: duplicate key 'A' in 'env_matrix' (first at line 9)"
expect_err "$T/bad.yaml:11:17: error: 'env_matrix' in suite 'collectives' expands to 80 cells; the limit is 64"
expect_err "$T/bad.yaml:13:26: error: env_matrix 'E' value 2 must be a string"
printf 'bench: 1\nname: e\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites:\n  membw: {env_matrix: {}}\n' >"$T/empty.yaml"
expect 3 "an empty env_matrix is refused" "$BENCH" validate "$T/empty.yaml"
expect_err "$T/empty.yaml:6:23: error: 'env_matrix' in suite 'membw' must be a mapping of variable names to lists of values such as {NCCL_ALGO: [Ring, Tree]}, got an empty mapping"

# --- plan: every case once per cell, cell-major, keys and params ------------------------------------------------
mkdir -p "$T/fake"
ln -s "$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py" "$T/fake/bench-gemm"
cat >"$T/f.yaml" <<'Y'
bench: 1
name: mx
target: {vendor: cpu}
runtime: {engine: host}
stack:
  env: {NCCL_ALGO: Ring, KEEP_ME: "stack"}
suites:
  gemm:
    dtypes: [fp32]
    shapes: [[16, 16, 16], [32, 16, 16]]
    env_matrix: {NCCL_ALGO: [Ring, Tree], NCCL_PROTO: ["LL,LL128", Simple]}
Y
expect 0 "plan of a 2x2 env_matrix" "$BENCH" plan "$T/f.yaml"
expect_out "# mx: 8 cases; gemm 8"
expect_out "# gemm env_matrix: 4 cells of NCCL_ALGO (2) x NCCL_PROTO (2)"
if [ "$(grep -v '^#' "$T/out" | awk '{print $2}' | sed 's|.*/env:||' | tr '\n' ' ')" = \
	"NCCL_ALGO=Ring,NCCL_PROTO=LL%2CLL128 NCCL_ALGO=Ring,NCCL_PROTO=LL%2CLL128 NCCL_ALGO=Ring,NCCL_PROTO=Simple NCCL_ALGO=Ring,NCCL_PROTO=Simple NCCL_ALGO=Tree,NCCL_PROTO=LL%2CLL128 NCCL_ALGO=Tree,NCCL_PROTO=LL%2CLL128 NCCL_ALGO=Tree,NCCL_PROTO=Simple NCCL_ALGO=Tree,NCCL_PROTO=Simple " ]
then ok "keys end /env:<cell>, cells in manifest order (the first variable slowest), a ',' in a value escaped"
else not_ok "plan keys"; show "$T/out"; fi
expect 0 "plan --json" "$BENCH" plan --json "$T/f.yaml"
python3 - "$T/out" <<'PY' && ok "plan --json: params.env is the cell, the rest of params as without the matrix" || not_ok "plan --json cells"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert len(cases) == 8
for c in cases:
    env = c["params"]["env"]
    assert c["case"].endswith("/env:NCCL_ALGO=%s,NCCL_PROTO=%s" % (env["NCCL_ALGO"], env["NCCL_PROTO"].replace(",", "%2C"))), c
    base = {k: v for k, v in c["params"].items() if k != "env"}
    assert base == {k: v for k, v in cases[0]["params"].items() if k != "env"} or base["m"] != cases[0]["params"]["m"]
assert [c["params"]["env"]["NCCL_PROTO"] for c in cases[:4]] == ["LL,LL128", "LL,LL128", "Simple", "Simple"]
PY
expect 0 "--dry-run: one runner per cell, its variables shown" "$BENCH" run --dry-run "$T/f.yaml"
[ "$(grep -c '^# gemm: 2 cases: NCCL_ALGO=Tree NCCL_PROTO=Simple .*/bench-gemm --config RUN_DIR/cases/gemm-env4.json' "$T/out")" = 1 ] &&
	[ "$(grep -c '/bench-gemm --config' "$T/out")" = 4 ] && ok "--dry-run: 4 runner commands, cell 4 is Tree/Simple" || { not_ok "--dry-run cells"; show "$T/out"; }

# --- a run: each cell's runner sees its variables; the records carry the cell ------------------------------------
run_fake() { # out-dir: prints the run directory
	BENCH_RUNNERS="$T/fake" FAKE_ECHO_ENV=NCCL_ALGO,NCCL_PROTO,KEEP_ME "$BENCH" run -q -o "$1" "$T/f.yaml"
}
expect 0 "a run of the 2x2 matrix" run_fake "$T/runs"
D=$(head -n 1 "$T/out")
python3 - "$D" <<'PY' && ok "one results file, 8 records; each runner saw its cell's variables over stack.env" || { not_ok "cell records"; show "$D/logs/gemm.log"; }
import json, os, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(os.path.join(d, "results", "gemm.jsonl"))]
assert len(recs) == 8, len(recs)
for r in recs:
    env, seen = r["params"]["env"], r["extra"]["env_seen"]
    assert r["status"] == "ok"
    assert seen == {"NCCL_ALGO": env["NCCL_ALGO"], "NCCL_PROTO": env["NCCL_PROTO"], "KEEP_ME": "stack"}, (r["case"], seen)
assert len({(r["params"]["env"]["NCCL_ALGO"], r["params"]["env"]["NCCL_PROTO"]) for r in recs}) == 4
assert sorted(os.listdir(os.path.join(d, "cases"))) == ["gemm-env%d.json" % i for i in range(1, 5)]
env = json.load(open(os.path.join(d, "env", "environment.json")))
assert env["bench"]["env_matrix"] == {"gemm": {"NCCL_ALGO": ["Ring", "Tree"], "NCCL_PROTO": ["LL,LL128", "Simple"]}}, env["bench"]
PY
[ "$(grep -c '^bench: running 2 cases of env cell ' "$D/logs/gemm.log")" = 4 ] && ok "the log names each cell's runner" || { not_ok "log"; show "$D/logs/gemm.log"; }

# --- bench show and the report set the cells side by side ------------------------------------------------------
expect 0 "bench show of the bundle" "$BENCH" show "$D.bench.tar.gz"
expect_out "gemm by env cell (value in TFLOP/s; a dash: not measured):"
expect_out "  [4] NCCL_ALGO=Tree,NCCL_PROTO=Simple"
if [ "$(grep -cE '^cblas/fp32/tn/(16|32)x16x16/default +([0-9.]+ +){3}[0-9.]+$' "$T/out")" = 2 ]; then
	ok "show: one row per case, a value under each of its 4 cells"; else not_ok "show cells table"; show "$T/out"; fi
expect 0 "bench report of the run" "$BENCH" report -o "$T/rep" "$D"
python3 - "$T/rep/index.html" <<'PY' && ok "report: a table of the cases by env cell" || not_ok "report cells table"
import re, sys
h = open(sys.argv[1]).read()
t = re.search(r'<table class="cells" id="cells-gemm-0">(.*?)</table>', h, re.S).group(1)
heads = re.findall(r"<th><code>(.*?)</code></th>", t)
assert heads == ["NCCL_ALGO=Ring,NCCL_PROTO=LL%2CLL128", "NCCL_ALGO=Ring,NCCL_PROTO=Simple",
                 "NCCL_ALGO=Tree,NCCL_PROTO=LL%2CLL128", "NCCL_ALGO=Tree,NCCL_PROTO=Simple"], heads
rows = re.findall(r"<tr><td><code>(.*?)</code></td>(.*?)</tr>", t)
assert [r[0] for r in rows] == ["cblas/fp32/tn/16x16x16/default", "cblas/fp32/tn/32x16x16/default"], rows
assert all(len(re.findall(r'<td class="num">[0-9.]+</td>', r[1])) == 4 for r in rows), rows
PY

# --- resume: a run cut after its first cell completes the others, keyed by cell ---------------------------------
expect 6 "a run whose runner stops after one case of each cell" env BENCH_RUNNERS="$T/fake" FAKE_MODE=early FAKE_GOOD=1 \
	FAKE_ECHO_ENV=NCCL_ALGO "$BENCH" run -q -o "$T/cut" "$T/f.yaml"
C=$(head -n 1 "$T/out")
[ "$(grep -c "suite 'gemm': 1 of 2 cases not measured" "$T/err")" = 4 ] && ok "each of the 4 cells lost one case" || { not_ok "cut run"; show "$T/err"; }
expect 0 "bench show of the cut run" "$BENCH" show "$C.bench.tar.gz"
grep -qE '^cblas/fp32/tn/32x16x16/default +- +- +- +-$' "$T/out" && grep -qE '^cblas/fp32/tn/16x16x16/default +([0-9.]+ +){3}[0-9.]+$' "$T/out" &&
	ok "show: a case no cell measured shows a dash under each" || { not_ok "show dashes"; show "$T/out"; }
expect 0 "--resume measures the cells' missing cases" env BENCH_RUNNERS="$T/fake" FAKE_ECHO_ENV=NCCL_ALGO "$BENCH" run -q --resume "$C"
python3 - "$C" <<'PY' && ok "after --resume every cell's cases are ok once, each with its own variables" || not_ok "resume by cell"
import json, os, sys
d = sys.argv[1]
st = json.load(open(os.path.join(d, "status.json")))
assert len(st["cases"]) == 8 and all(c["status"] == "ok" for c in st["cases"]), st["cases"]
ok = {}
for l in open(os.path.join(d, "results", "gemm.jsonl")):
    r = json.loads(l)
    if r["status"] == "ok":
        assert r["extra"]["env_seen"]["NCCL_ALGO"] == r["params"]["env"]["NCCL_ALGO"]
        ok[r["case"]] = ok.get(r["case"], 0) + 1
assert len(ok) == 8 and set(ok.values()) == {1}, ok
PY

# --- compare: two runs matched cell to cell ---------------------------------------------------------------------
expect 0 "a second run" run_fake "$T/runs2"
D2=$(head -n 1 "$T/out")
expect 0 "compare two env_matrix runs" "$BENCH" compare --format json "$D" "$D2"
python3 - "$T/out" <<'PY' && ok "compare pairs each case of each cell with the same cell (8 rows, none missing)" || { not_ok "compare cells"; show "$T/out"; }
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"] if "rows" in doc else doc["cases"]
keys = [r["case"] for r in rows]
assert len(keys) == 8 and all("/env:NCCL_ALGO=" in k for k in keys), keys
assert not doc.get("only_in") and not [r for r in rows if r.get("verdict") == "missing"], doc.get("only_in")
PY

# --- a real runner: gemm (cblas) honours OMP_NUM_THREADS per cell -------------------------------------------------
cat >"$T/g.yaml" <<'Y'
bench: 1
name: omp
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm:
    backends: [cblas]
    dtypes: [fp32]
    layouts: [tn]
    shapes: [[64, 64, 64]]
    warmup: 5ms
    rep: 20ms
    env_matrix: {OMP_NUM_THREADS: ["1", "2"]}
Y
expect 0 "bench-gemm under OMP_NUM_THREADS 1 and 2, one run" env BENCH_RUNNERS="$R" "$BENCH" run -q -o "$T/real" "$T/g.yaml"
G=$(head -n 1 "$T/out")
python3 - "$G" <<'PY' && ok "each cell's record: params.env and the BLAS thread count the runner reports agree" || { not_ok "gemm cells"; show "$G/results/gemm.jsonl"; }
import json, os, sys
recs = [json.loads(l) for l in open(os.path.join(sys.argv[1], "results", "gemm.jsonl"))]
assert [r["case"] for r in recs] == ["cblas/fp32/tn/64x64x64/default/env:OMP_NUM_THREADS=1",
                                     "cblas/fp32/tn/64x64x64/default/env:OMP_NUM_THREADS=2"], [r["case"] for r in recs]
for r in recs:
    assert r["status"] == "ok", r["error"]
    assert r["extra"]["device"]["blas_threads"] == int(r["params"]["env"]["OMP_NUM_THREADS"]), r["extra"]["device"]
PY

# --- collectives all_reduce under mpirun: a cell's variables reach every rank ------------------------------------
if command -v mpirun >/dev/null; then
	mpi_env
	cat >"$T/c.yaml" <<'Y'
bench: 1
name: collmx
target: {vendor: cpu, gpus_per_node: 2}
runtime: {engine: host}
suites:
  collectives:
    backend: mpi
    ops: [all_reduce]
    min_bytes: 4KiB
    max_bytes: 4KiB
    sizes: [4096]
    dtype: fp32
    warmup_iters: 1
    iters: 3
    env_matrix: {NCCL_ALGO: [Ring, Tree], BENCH_FAULT: ["none", coll-wrong]}
Y
	# BENCH_FAULT=coll-wrong is bench-coll's test hook (a wrong element planted on rank 0): the cells that set it
	# must fail the data check, the others pass; proof the runner under mpirun saw each cell's variables
	expect 7 "all_reduce under NCCL_ALGO Ring/Tree x BENCH_FAULT: exit 7 for the planted cells" env BENCH_RUNNERS="$R" "$BENCH" run -q -o "$T/coll" "$T/c.yaml"
	CD=$(head -n 1 "$T/out")
	python3 - "$CD" <<'PY' && ok "collectives: 4 cells in one results file; only the coll-wrong cells caught a wrong element" || { not_ok "collectives cells"; show "$CD/logs/collectives.log"; }
import json, os, sys
recs = [json.loads(l) for l in open(os.path.join(sys.argv[1], "results", "collectives.jsonl"))]
cells = {}
for r in recs:
    e = r["params"]["env"]
    cells.setdefault((e["NCCL_ALGO"], e["BENCH_FAULT"]), []).append(r)
    assert r["case"].endswith("/env:NCCL_ALGO=%s,BENCH_FAULT=%s" % (e["NCCL_ALGO"], e["BENCH_FAULT"])), r["case"]
    if e["BENCH_FAULT"] == "coll-wrong":
        assert r["status"] == "failed" and r["extra"]["wrong"] == 1, r
    else:
        assert r["status"] == "ok" and r["extra"]["wrong"] == 0, r
assert sorted(cells) == [("Ring", "coll-wrong"), ("Ring", "none"), ("Tree", "coll-wrong"), ("Tree", "none")], sorted(cells)
PY
	grep -q -- "-x NCCL_ALGO -x BENCH_FAULT" "$CD/logs/collectives.log" && ok "mpirun passes the cell's variables on (-x)" ||
		{ not_ok "mpirun -x"; show "$CD/logs/collectives.log"; }
else
	not_ok "mpirun is not installed"
fi
finish
