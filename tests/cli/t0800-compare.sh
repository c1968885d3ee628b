#!/bin/sh
# bench compare: verdicts from controlled samples (fake runners), one-sided cases, method differences,
# --fail-on-regression, formats, and bundles verified before they are compared.
. "$(dirname "$0")/lib.sh"
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py
mkdir -p "$T/fake"
ln -s "$FAKE" "$T/fake/bench-gemm"
cat >"$T/m.yaml" <<'Y'
bench: 1
name: cmp
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [32, 32, 32]]}
Y
S10=1.00,1.01,1.02,0.99,0.98,1.00,1.01,0.99,1.00,1.02
FAST=0.50,0.51,0.49,0.50,0.52,0.48,0.50,0.51,0.49,0.50
run() { # out-dir samples [manifest]
	BENCH_RUNNERS=$T/fake FAKE_SAMPLES=$2 "$BENCH" run -q -o "$T/$1" "${3:-$T/m.yaml}" >"$T/run.out" 2>&1 || { cat "$T/run.out"; return 1; }
	sed -n 1p "$T/run.out"
}
A=$(run a "$S10")
B=$(run b "$S10")
F=$(run f "$FAST")
expect 0 "compare two runs with the same samples" "$BENCH" compare --format json "$A" "$B"

python3 - "$T/out" same <<'PY' && ok "same samples: ratio 1, verdict same" || not_ok "same samples"
import json, sys
d = json.load(open(sys.argv[1]))
v = [o for c in d["cases"] for o in c["others"]]
assert len(v) == 2 and all(o["verdict"] == sys.argv[2] and abs(o["ratio"] - 1) < 1e-12 for o in v), v
assert d["baseline"].startswith("cmp-") and d["counts"] == {"faster": 0, "slower": 0}
PY
expect 0 "compare against a run twice as fast" "$BENCH" compare --format json "$A" "$F"
python3 - "$T/out" <<'PY' && ok "twice as fast: ratio 2, CI above 1.02, p < 0.01, verdict faster" || not_ok "faster"
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    o = c["others"][0]
    assert o["verdict"] == "faster" and abs(o["ratio"] - 2.0) < 1e-9 and o["ci95"][0] > 1.02 and o["p"] < 0.01, o
PY
expect 0 "the other way round, without --fail-on-regression" "$BENCH" compare "$F" "$A"
expect_out "slower"
expect 9 "--fail-on-regression exits 9 when slower" "$BENCH" compare --fail-on-regression "$F" "$A"
expect_err "significantly slower"
expect 0 "--baseline 2" "$BENCH" compare --baseline 2 --format csv "$F" "$A"
expect_out "suite,case,unit,baseline,other"
grep -q ",faster$" "$T/out" && ok "csv: with A as baseline, F is faster" || not_ok "csv verdict"
expect 0 "markdown" "$BENCH" compare --format markdown "$A" "$F"
expect_out "| suite | case | baseline | other |"

sed 's/\[\[64, 64, 64\], \[32, 32, 32\]\]/[[64, 64, 64], [16, 16, 16]]/; s/shapes:/warmup: 5ms, shapes:/' "$T/m.yaml" >"$T/m2.yaml"
C=$(run c "$S10" "$T/m2.yaml")
expect 0 "a run with another case and another method" "$BENCH" compare "$A" "$C"
expect_out "only in"
expect_out "16x16x16"
expect_out "WARNING: the method differs"

# bundles are verified first
BA="$A.bench.tar.gz"
expect 0 "compare two bundles (verified)" "$BENCH" compare "$BA" "$F.bench.tar.gz"
if grep -q UNVERIFIED "$T/out"; then not_ok "verified bundles reported unverified"; else ok "verified bundles are not marked"; fi
printf 'x' | dd of="$BA" bs=1 seek=100 conv=notrunc 2>/dev/null
expect 8 "a bundle that does not verify is refused" "$BENCH" compare "$BA" "$F"
expect_err "does not verify"
expect 0 "--allow-unverified takes it, marked" "$BENCH" compare --allow-unverified "$A" "$F"
expect_out "UNVERIFIED"
expect 2 "one input is a usage error" "$BENCH" compare "$A"
expect 1 "a missing input" "$BENCH" compare "$A" "$T/nope"
finish
