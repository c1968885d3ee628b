#!/bin/sh
# bench report: three signed bundles into one self-contained page, opened in headless Chromium (every case in
# the DOM, a screenshot that is not blank); collectives drawn against log2 message size; a tampered bundle is
# refused and nothing is written.
. "$(dirname "$0")/lib.sh"
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py
PNGCHECK=$(cd "$(dirname "$0")" && pwd)/pngcheck.py
mkdir -p "$T/fake"
ln -s "$FAKE" "$T/fake/bench-gemm"
ln -s "$FAKE" "$T/fake/bench-membw"
cat >"$T/m.yaml" <<'Y'
bench: 1
name: rep
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [32, 32, 32]]}
  membw: {ops: [copy, read], bytes: 1MiB}
Y
run() { # out-dir samples
	BENCH_RUNNERS=$T/fake FAKE_SAMPLES=$2 "$BENCH" run -q -o "$T/$1" "$T/m.yaml" >"$T/run.out" 2>&1 || { cat "$T/run.out" >&2; return 1; }
	sed -n 1p "$T/run.out"
}
A=$(run a 1.00,1.01,1.02,0.99,0.98,1.00)
B=$(run b 0.90,0.91,0.92,0.89,0.90,0.91)
C=$(run c 1.10,1.12,1.09,1.11,1.10,1.13)
for r in "$A" "$B" "$C"; do "$BENCH" pack "$r" >/dev/null 2>&1 && ok "pack $r" || not_ok "pack $r"; done

expect 0 "report of three bundles" "$BENCH" report -o "$T/rep" "$A.bench.tar.gz" "$B.bench.tar.gz" "$C.bench.tar.gz"
expect_out "$T/rep/index.html"
if [ ! -s "$T/rep/index.html" ] || grep -qiE '<script|src="http|href="http|<link|<img' "$T/rep/index.html"; then
	not_ok "self-contained page"
else ok "self-contained: no script, no external file"; fi
n=$(grep -o 'signature verified' "$T/rep/index.html" | wc -l)
[ "$n" -ge 3 ] && ok "every bundle shown as verified ($n)" || not_ok "verified marks: $n"
grep -q 'id="chart-gemm"' "$T/rep/index.html" && grep -q 'id="chart-membw"' "$T/rep/index.html" &&
	ok "a chart per suite" || not_ok "charts per suite"
if command -v chromium >/dev/null 2>&1; then
	chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$T/rep/index.html" >"$T/dom.html" 2>/dev/null
	python3 - "$T/dom.html" "$A" "$B" "$C" <<'PY' && ok "chromium DOM: every case of every run, and the comparison rows" || not_ok "report DOM"
import glob, json, sys
dom = open(sys.argv[1]).read()
cases = set()
for run in sys.argv[2:]:
    for f in glob.glob(run + "/results/*.jsonl"):
        for line in open(f):
            cases.add(json.loads(line)["case"])
assert len(cases) == 4, cases
missing = [c for c in cases if c not in dom]
assert not missing, missing
assert dom.count("<tr><td>gemm</td>") + dom.count("<tr><td>membw</td>") == 2 * len(cases)  # 2 others x cases
PY
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1200 \
		--screenshot="$T/rep.png" "file://$T/rep/index.html" >/dev/null 2>&1
	python3 "$PNGCHECK" "$T/rep.png" >"$T/png.out" && ok "screenshot is not blank: $(cat "$T/png.out")" || not_ok "blank: $(cat "$T/png.out")"
else
	not_ok "chromium is not installed (apt-get install chromium): the report is untested"
fi

# collectives: bus bandwidth against log2 message size, one line per op; a run directory is marked unverified
mkdir -p "$T/coll/results"
cp "$A/plan.json" "$T/coll/plan.json"
python3 - "$T/coll/results/collectives.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for op in ("all_reduce", "all_gather"):
        for e in (16, 20, 24):
            f.write(json.dumps({"schema": "bench.result/v1", "suite": "collectives", "case": "%s/fp32/%d" % (op, 1 << e),
                                "params": {"op": op, "bytes": 1 << e}, "status": "ok", "metric": "busbw_gbps",
                                "unit": "GB/s", "value": e * 2.0, "samples_ms": [1.0, 1.1, 0.9]}) + "\n")
PY
expect 0 "report of a run directory with collectives" "$BENCH" report -o "$T/rep2" "$T/coll"
python3 - "$T/rep2/index.html" <<'PY' && ok "collectives: one polyline per op, 3 points each, log2 ticks" || not_ok "collectives chart"
import re, sys
h = open(sys.argv[1]).read()
svg = h[h.index('id="chart-collectives"'):]
svg = svg[:svg.index("</svg>")]
lines = re.findall(r'<polyline[^>]*points="([^"]+)"', svg)
assert len(lines) == 2 and all(len(p.split()) == 3 for p in lines), lines
xs = [float(p.split(",")[0]) for p in lines[0].split()]
assert abs((xs[1] - xs[0]) - (xs[2] - xs[1])) < 0.2, xs  # 2^16, 2^20, 2^24: equal steps on a log2 axis
assert ">64K<" in svg and ">16M<" in svg
assert "UNVERIFIED" in h
PY

# a tampered bundle: refused, nothing written
cp "$B.bench.tar.gz" "$T/bad.bench.tar.gz"
cp "$B.bench.tar.gz.intoto.jsonl" "$T/bad.bench.tar.gz.intoto.jsonl"
printf 'x' | dd of="$T/bad.bench.tar.gz" bs=1 seek=200 conv=notrunc 2>/dev/null
expect 8 "a tampered bundle is refused" "$BENCH" report -o "$T/rep3" "$A.bench.tar.gz" "$T/bad.bench.tar.gz"
expect_err "does not verify"
[ ! -e "$T/rep3/index.html" ] && ok "nothing written" || not_ok "a page was written for a tampered bundle"
expect 2 "-o is required" "$BENCH" report "$A.bench.tar.gz"
expect_err "-o DIR is required"
finish
