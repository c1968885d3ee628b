#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench compare: verdicts from controlled samples (fake runners), one-sided cases, method differences,
# --fail-on-regression, formats, and bundles verified before they are compared.
. "$(dirname "$0")/lib.sh"
fake_gemm
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
# two more runs of A and of F, 1% apart: sides of 3 runs
export FAKE_SCALE=1.01
A2=$(run a "$S10")
F2=$(run f "$FAST")
export FAKE_SCALE=0.99
A3=$(run a "$S10")
F3=$(run f "$FAST")
unset FAKE_SCALE
expect 0 "compare two runs with the same samples" "$BENCH" compare --format json "$A" "$B"

python3 - "$T/out" <<'PY' && ok "same samples, 1 run per side: ratio 1, inconclusive (run-to-run noise unknown)" || not_ok "same samples"
import json, sys
d = json.load(open(sys.argv[1]))
v = [o for c in d["cases"] for o in c["others"]]
assert len(v) == 2 and all(o["verdict"] == "inconclusive" and abs(o["ratio"] - 1) < 1e-12 for o in v), v
assert all(o["why"] == "1 run per side: run-to-run noise unknown" and "p" not in o for o in v), v
assert d["baseline"].startswith("cmp-") and d["counts"] == {"faster": 0, "slower": 0, "same": 0, "inconclusive": 2} and d["tests"] == 0
PY
expect 0 "compare 3 runs against 3 runs twice as fast" "$BENCH" compare --format json "$A" "$A2" "$A3" --vs "$F" "$F2" "$F3"
python3 - "$T/out" <<'PY' && ok "twice as fast: ratio 2, CI above 1.02, adjusted p < 0.01 over 2 tests, verdict faster" || not_ok "faster"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tests"] == 2 and [s["nruns"] for s in d["sides"]] == [3, 3] and d["sides"][0]["label"] == "cmp (3 runs)", d["sides"]
for c in d["cases"]:
    o = c["others"][0]
    assert o["verdict"] == "faster" and abs(o["ratio"] - 2.0) < 1e-9 and o["ci95"][0] > 1.02 and o["p_adjusted"] < 0.01, o
    assert o["runs"] == 3 and c["baseline"]["runs"] == 3 and o["n"] == 30, o
PY
expect 0 "the other way round, without --fail-on-regression" "$BENCH" compare "$F" "$F2" "$F3" --vs "$A" "$A2" "$A3"
expect_out "slower"
expect_out "2 test(s) adjusted together"
expect 9 "--fail-on-regression exits 9 when slower" "$BENCH" compare --fail-on-regression "$F" "$F2" "$F3" --vs "$A" "$A2" "$A3"
expect_err "significantly slower"
expect 0 "--baseline 2" "$BENCH" compare --baseline 2 --format csv "$F" "$F2" "$F3" --vs "$A" "$A2" "$A3"
expect_out "suite,case,unit,baseline,other"
grep -q ",3,3,0.02,faster,$" "$T/out" && ok "csv: with A as baseline, F is faster" || { not_ok "csv verdict"; show "$T/out"; }
# colour only on a terminal (script(1) gives the command one), never with NO_COLOR, never in a pipe
ESC=$(printf '\033')
script -qc "'$BENCH' compare '$A' '$A2' '$A3' --vs '$F' '$F2' '$F3'" /dev/null >"$T/tty.out" 2>&1
grep -q "${ESC}\[1;32mfaster" "$T/tty.out" && ok "on a terminal, faster is green" || { not_ok "no colour on a terminal"; show "$T/tty.out"; }
NO_COLOR=1 script -qc "'$BENCH' compare '$A' '$F'" /dev/null >"$T/tty.out" 2>&1
grep -q "$ESC" "$T/tty.out" && not_ok "colour despite NO_COLOR" || ok "NO_COLOR: no escape sequences"
"$BENCH" compare "$A" "$F" >"$T/pipe.out" 2>&1
grep -q "$ESC" "$T/pipe.out" && not_ok "colour into a pipe" || ok "into a pipe: no escape sequences"
expect 0 "markdown" "$BENCH" compare --format markdown "$A" "$F"
expect_out "| suite | case | baseline | other |"

# a run whose runner crashed after one case, and one with a single sample per case: no verdict for either,
# the reason instead, in every format; a failure has no value
X=$(BENCH_RUNNERS=$T/fake FAKE_MODE=crash FAKE_GOOD=1 FAKE_SAMPLES=$S10 "$BENCH" run -q -o "$T/x" "$T/m.yaml" 2>/dev/null | sed -n 1p)
ONE=$(run one 1.00)
why_crash="the runner was killed by signal 11 (Segmentation fault) before reporting this case"
expect 0 "compare against a run with a failed case" "$BENCH" compare "$A" "$X"
why_re=$(printf '%s' "$why_crash" | sed 's/[()]/\\&/g')
grep -E "^gemm +cblas/fp32/tn/32x32x32/default +[0-9.]+ [kMGT]?FLOP/s +- +- +- +-  not comparable: failed in $(basename "$X"): $why_re\$" "$T/out" >/dev/null &&
	ok "text: the failed case is not comparable, with its reason and no value" || { not_ok "text: failed case"; show "$T/out"; }
expect_out "failed in $(basename "$X"): gemm cblas/fp32/tn/32x32x32/default: $why_crash"
expect 0 "the failed run as the baseline" "$BENCH" compare "$X" "$A"
expect_out "not comparable: failed in $(basename "$X"): $why_crash"
expect 0 "compare against a run with one sample per case" "$BENCH" compare "$A" "$ONE"
n=$(grep -c "not comparable: too few samples (n=1)$" "$T/out")
[ "$n" = 2 ] && ok "text: both cases say not comparable: too few samples (n=1)" || { not_ok "too few samples: $n rows"; show "$T/out"; }
expect 0 "one sample in the baseline" "$BENCH" compare "$ONE" "$A"
expect_out "not comparable: too few samples in the baseline (n=1)"
expect 0 "markdown with a failed case" "$BENCH" compare --format markdown "$A" "$X" "$ONE"
expect_out "| not comparable: failed in $(basename "$X"): $why_crash |"
expect_out "| not comparable: too few samples (n=1) |"
expect_out "- failed in $(basename "$X"): gemm cblas/fp32/tn/32x32x32/default: $why_crash"
expect 0 "csv with a failed case" "$BENCH" compare --format csv "$A" "$X" "$ONE"
expect_out "gemm,cblas/fp32/tn/32x32x32/default,TFLOP/s,$(basename "$A"),$(basename "$X"),1,-,-,,,-,-,1,0,0.02,not comparable,failed in $(basename "$X"): $why_crash"
expect_out ",not comparable,too few samples (n=1)"
# the text shows the values CSV gives raw, each with its unit scaled for reading
cp "$T/out" "$T/cmp.csv"
expect 0 "text of the same comparison" "$BENCH" compare "$A" "$X" "$ONE"
python3 - "$T/cmp.csv" "$T/out" "$(dirname "$0")/terminal_check.py" <<'PY' && ok "text: baseline and other values scaled from CSV's raw values and unit" || { not_ok "text values"; show "$T/out"; }
import csv, importlib.util, re, sys
spec = importlib.util.spec_from_file_location("tc", sys.argv[3]); tc = importlib.util.module_from_spec(spec); spec.loader.exec_module(tc)
text, n = open(sys.argv[2]).read(), 0
for r in csv.DictReader(open(sys.argv[1])):
    b = tc.scaled(float(r["baseline_value"]), r["unit"])
    o = tc.scaled(float(r["other_value"]), r["unit"]) if r["other_value"] not in ("", "-") else "-"
    assert re.search(r"^%s +%s +%s +%s " % (re.escape(r["suite"]), re.escape(r["case"]), re.escape(b), re.escape(o)), text, re.M), (b, o)
    n += 1
assert n >= 3, n
PY
expect 0 "json with a failed case" "$BENCH" compare --format json "$A" "$X" "$ONE"
python3 - "$T/out" "$(basename "$X")" "$why_crash" <<'PY' && ok "json: the failed side has status, error, why and no value; too few samples says n; not_ok lists it" || not_ok "json failed case"
import json, sys
d, x, why = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
o = {(c["case"], o["label"]): o for c in d["cases"] for o in c["others"]}
f = o[("cblas/fp32/tn/32x32x32/default", x)]
assert f["status"] == "failed" and f["error"] == why and f["value"] is None and f["verdict"] == "not comparable", f
assert f["why"] == "failed in %s: %s" % (x, why) and "ratio" not in f, f
short = [v for (c, l), v in o.items() if l != x]
assert len(short) == 2 and all(v["why"] == "too few samples (n=1)" and v["verdict"] == "not comparable" and v["n"] == 1 for v in short), short
assert d["not_ok"] == [{"label": x, "suite": "gemm", "case": "cblas/fp32/tn/32x32x32/default", "status": "failed", "error": why}], d["not_ok"]
PY
expect 0 "html with a failed case" "$BENCH" compare --format html "$A" "$X" "$ONE"
cp "$T/out" "$T/fail.html"
if command -v chromium >/dev/null 2>&1; then
	headless --dump-dom "file://$T/fail.html" >"$T/dom.html" 2>/dev/null
	python3 - "$T/dom.html" "$(basename "$X")" "$why_crash" <<'PY' && ok "html (chromium DOM): the failed case in red with its reason, no value; too few samples (n=1)" || not_ok "html failed case"
import html.parser, sys
x, why = sys.argv[2], sys.argv[3]
class P(html.parser.HTMLParser):  # the case table: a row per case, a column group per other run (data-run, data-k)
    rows, row, cell, runs, th, li, lis = [], None, None, [], None, None, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "th" and "run" in (a.get("class") or "").split(): self.th = ""
        if tag == "tr": self.row = {"cells": []}
        if self.row is not None and tag == "td": self.cell = ["", a.get("class"), a.get("data-run"), a.get("data-k")]
        if tag == "li" and a.get("class") == "failed": self.li = ""
    def handle_endtag(self, tag):
        if tag == "th" and self.th is not None: self.runs.append(self.th.strip()); self.th = None
        if tag == "td" and self.cell is not None: self.cell[0] = " ".join(self.cell[0].split()); self.row["cells"].append(self.cell); self.cell = None
        if tag == "tr" and self.row and self.row["cells"]: self.rows.append(self.row); self.row = None
        if tag == "li" and self.li is not None: self.lis.append(" ".join(self.li.split())); self.li = None
    def handle_data(self, d):
        if self.th is not None: self.th += d
        if self.cell is not None: self.cell[0] += d
        if self.li is not None: self.li += d
p = P(); p.feed(open(sys.argv[1]).read())
assert len(p.runs) == 2 and x in p.runs, p.runs  # three inputs: two column groups, each headed by its run
r = [r for r in p.rows if r["cells"][1][0] == "cblas/fp32/tn/32x32x32/default"]
assert len(r) == 1, p.rows  # one row per case
g = {k: (t, c) for t, c, run, k in r[0]["cells"] if run == str(p.runs.index(x))}
assert g["verdict"] == ("not comparable (failed in %s: %s)" % (x, why), "verdict failed"), g
assert g["value"][0] == "\u2013" and g["ratio"][0] == "\u2013", g  # no value, no ratio
assert any(c[0] == "not comparable (too few samples (n=1))" for row in p.rows for c in row["cells"]), p.rows
assert p.lis == ["failed in %s: gemm cblas/fp32/tn/32x32x32/default \u2014 %s" % (x, why)], p.lis
PY
else
	not_ok "chromium is not installed (apt-get install chromium)"
fi

sed 's/\[\[64, 64, 64\], \[32, 32, 32\]\]/[[64, 64, 64], [16, 16, 16]]/; s/shapes:/warmup: 5ms, shapes:/' "$T/m.yaml" >"$T/m2.yaml"
C=$(run c "$S10" "$T/m2.yaml")
expect 0 "a run with another case and another method" "$BENCH" compare "$A" "$C"
expect_out "only in"
expect_out "16x16x16"
expect_out "WARNING: the method differs"

# --format html: one self-contained page; opened in headless Chromium, every case is in the DOM and the
# screenshot is not blank
PNGCHECK=$(cd "$(dirname "$0")" && pwd)/pngcheck.py
expect 0 "html" "$BENCH" compare --format html "$A" "$F" "$C"
cp "$T/out" "$T/cmp.html"
"$BENCH" compare --format json "$A" "$F" "$C" >"$T/cmp.json"
if grep -qiE '<script|src="http|href="http|<link' "$T/cmp.html"; then not_ok "html loads nothing external, no script"; else ok "html is self-contained (no script, no external files)"; fi
if command -v chromium >/dev/null 2>&1; then
	headless --dump-dom "file://$T/cmp.html" >"$T/dom.html" 2>/dev/null
	python3 - "$T/cmp.json" "$T/dom.html" <<'PY' && ok "chromium DOM: a row for every case and side, with its verdict" || not_ok "chromium DOM"
import html.parser, json, sys
cmp = json.load(open(sys.argv[1]))
others = [x["label"] for x in cmp["sides"] if not x.get("baseline")]
want = [(c["case"], o["label"], o["verdict"]) for c in cmp["cases"] for o in c["others"]]
class P(html.parser.HTMLParser):
    rows, row, cell, intable, runs, th = [], None, None, False, [], None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "cases": self.intable = True
        if self.intable and tag == "th" and "run" in (a.get("class") or "").split(): self.th = ""
        if self.intable and tag == "tr": self.row = []
        if self.row is not None and tag == "td": self.cell = ["", a.get("data-run"), a.get("data-k")]
    def handle_endtag(self, tag):
        if tag == "table": self.intable = False
        if tag == "th" and self.th is not None: self.runs.append(self.th.strip()); self.th = None
        if tag == "td" and self.cell is not None: self.cell[0] = self.cell[0].strip(); self.row.append(self.cell); self.cell = None
        if tag == "tr" and self.row: self.rows.append(self.row); self.row = None
    def handle_data(self, d):
        if self.th is not None: self.th += d
        if self.cell is not None: self.cell[0] += d
p = P(); p.feed(open(sys.argv[2]).read())
assert p.runs == others, (p.runs, others)  # a column group per other run, in input order
assert [r[1][0] for r in p.rows] == [c["case"] for c in cmp["cases"]]  # one row per case
got = [(r[1][0], p.runs[int(run)], t.split(" (")[0]) for r in p.rows for t, run, k in r if k == "verdict"]
assert len(want) >= 2 and got == want, (got, want)
assert "16x16x16" in open(sys.argv[2]).read()  # a case on one side only is listed
PY
	headless --hide-scrollbars --window-size=1100,800 \
		--screenshot="$T/cmp.png" "file://$T/cmp.html" >/dev/null 2>&1
	python3 "$PNGCHECK" "$T/cmp.png" >"$T/png.out" && ok "screenshot is not blank: $(cat "$T/png.out")" || not_ok "blank screenshot: $(cat "$T/png.out")"
	headless --hide-scrollbars --window-size=390,800 \
		--screenshot="$T/phone.png" "file://$T/cmp.html" >/dev/null 2>&1
	python3 "$PNGCHECK" "$T/phone.png" >/dev/null && ok "renders at phone width" || not_ok "phone width"
else
	not_ok "chromium is not installed (apt-get install chromium): the html report is untested"
fi

# synthetic sides of 3 run directories each: one case 8% slower with low noise must be flagged; one 1% slower
# with high noise must not be, nor called the same (its interval reaches beyond +/- 2%: inconclusive, issue 30);
# one unchanged with low noise is the same (its interval within +/- 2%)
python3 - "$T/syn" <<'PY'
import json, os, random, sys
rng = random.Random(11)
for side, scale in [(s + str(k), sc) for s, sc in (("base", {"low": 1.0, "high": 1.0, "flat": 1.0}), ("new", {"low": 1.08, "high": 1.01, "flat": 1.0})) for k in (1, 2, 3)]:
    d = os.path.join(sys.argv[1], side)
    os.makedirs(os.path.join(d, "results"))
    json.dump({"schema": "bench.plan/v1", "name": side[:-1], "channel": "stable", "cases": []}, open(os.path.join(d, "plan.json"), "w"))
    # the two stacks differ in one pin (torch's commit) and share another (numpy)
    json.dump({"schema": "bench.lock/v1", "components": {
        "torch": {"source": "git", "ref": "main", "commit": ("a" if side.startswith("base") else "b") * 40},
        "numpy": {"source": "pip", "version": "2.1.0", "sha256": "c" * 64}},
        "base": {"ref": "debian:12", "digest": "sha256:" + "d" * 64}}, open(os.path.join(d, "manifest.lock.json"), "w"))
    with open(os.path.join(d, "results", "gemm.jsonl"), "w") as f:
        for case, noise in (("low", 0.002), ("high", 0.05), ("flat", 0.002)):
            t = [scale[case] * rng.gauss(1.0, noise) for _ in range(40)]
            med = sorted(t)[20]
            f.write(json.dumps({"schema": "bench.result/v1", "suite": "gemm", "case": case, "params": {}, "status": "ok",
                                "metric": "tflops", "unit": "TFLOP/s", "value": 1 / med, "samples_ms": t}) + "\n")
PY
SB="$T/syn/base1 $T/syn/base2 $T/syn/base3"
SN="$T/syn/new1 $T/syn/new2 $T/syn/new3"
# shellcheck disable=SC2086 # the run lists split on purpose
expect 0 "synthetic sides" "$BENCH" compare --format json $SB --vs $SN
python3 - "$T/out" <<'PY' && ok "8% slower with low noise: slower; 1% slower with high noise: inconclusive, its CI beyond 2%; unchanged: same; the differing lock pin is listed" || not_ok "synthetic verdicts"
import json, sys
d = json.load(open(sys.argv[1]))
v = {c["case"]: c["others"][0] for c in d["cases"]}
assert v["low"]["verdict"] == "slower" and v["low"]["ci95"][1] < 0.98 and abs(v["low"]["ratio"] - 1 / 1.08) < 0.01, v["low"]
st = {x["what"]: x for x in d["stack_differs"]}
assert st["lock.components.torch.commit"]["baseline"] == "a" * 40 and st["lock.components.torch.commit"]["value"] == "b" * 40, st
assert not [k for k in st if "numpy" in k or k.startswith("lock.base")], st  # equal pins are not listed
h = v["high"]
assert h["verdict"] == "inconclusive" and (h["ci95"][0] < 0.98 or h["ci95"][1] > 1.02), h
assert h["why"] == "the CI reaches beyond 1 +/- 2.0%: a change that size is neither shown nor excluded", h
f = v["flat"]
assert f["verdict"] == "same" and 0.98 <= f["ci95"][0] and f["ci95"][1] <= 1.02, f
assert d["counts"] == {"faster": 0, "slower": 1, "same": 1, "inconclusive": 1}, d["counts"]
assert d["summary"] == ["new (3 runs) vs base (3 runs): 0 cases faster, 1 same, 1 slower %.2fx [%.2f, %.2f], 1 inconclusive"
                        % ((v["low"]["ratio"],) * 3)], d["summary"]
PY
# shellcheck disable=SC2086
expect 0 "the same as text" "$BENCH" compare $SB --vs $SN
expect_out "inconclusive: the CI reaches beyond 1 +/- 2.0%"
expect_out "new (3 runs) vs base (3 runs): 0 cases faster, 1 same, 1 slower"
head -n 1 "$T/out" | grep -q '^baseline base (3 runs); threshold 2.0%, alpha 0.01, 3 test(s) adjusted together (the method: bench compare -h)$' &&
	ok "the first line: the baseline and the figures, the method left to -h" || { not_ok "first line"; show "$T/out"; }
long=$(head -n 3 "$T/out" | awk 'length > 160' | wc -l)
[ "$long" = 0 ] && ok "no opening line over 160 characters" || { not_ok "long opening lines"; show "$T/out"; }
# shellcheck disable=SC2086
expect 9 "--fail-on-regression on the synthetic sides" "$BENCH" compare --fail-on-regression $SB --vs $SN

# two real quickstart runs (CBLAS GEMM, memory bandwidth, MPI collectives, training on this machine)
Q1=$("$BENCH" run -q -o "$T/q" "$BENCH_DATA/manifests/quickstart.yaml" 2>"$T/q1.err" | sed -n 1p)
sleep 1
Q2=$("$BENCH" run -q -o "$T/q" "$BENCH_DATA/manifests/quickstart.yaml" 2>"$T/q2.err" | sed -n 1p)
expect 0 "compare two real quickstart runs" "$BENCH" compare --format json "$Q1" "$Q2"
python3 - "$T/out" "$Q1" <<'PY' && ok "quickstart: every measured case matched, with a ratio, an interval and a verdict" || not_ok "quickstart compare"
import glob, json, sys
d = json.load(open(sys.argv[1]))
ok = set()
for f in glob.glob(sys.argv[2] + "/results/*.jsonl"):
    for line in open(f):
        r = json.loads(line)
        if r["status"] == "ok":
            ok.add((r["suite"], r["case"]))
rows = {(c["suite"], c["case"]): c["others"][0] for c in d["cases"]}
assert len(ok) >= 10 and ok <= set(rows), (len(ok), ok - set(rows))
for k in ok:
    o = rows[k]
    assert o["verdict"] in ("inconclusive", "not comparable") and o["ratio"] > 0, (k, o)  # 1 run per side
    if o["verdict"] != "not comparable":
        assert o["ci95"][0] <= o["ci95"][1], (k, o)
assert {s for s, _ in ok} >= {"gemm", "membw", "collectives"}, ok
PY

# bundles are verified first
BA="$A.bench.tar.gz"
expect 0 "compare two bundles (verified)" "$BENCH" compare "$BA" "$F.bench.tar.gz"
if grep -q UNVERIFIED "$T/out"; then not_ok "verified bundles reported unverified"; else ok "verified bundles are not marked"; fi
flip_byte "$BA" 100
expect 8 "a bundle that does not verify is refused" "$BENCH" compare "$BA" "$F"
expect_err "does not verify"
expect 0 "--allow-unverified takes it, marked" "$BENCH" compare --allow-unverified "$A" "$F"
expect_out "UNVERIFIED"
expect 0 "html marks it too" "$BENCH" compare --allow-unverified --format html "$A" "$F"
expect_out 'id="unverified"'
expect 0 "the same run three times" "$BENCH" compare --format json "$A" "$A" "$A"
python3 - "$T/out" <<'PY' && ok "three distinct labels: run, run (2), run (3)" || not_ok "labels of a repeated run"
import json, sys
d = json.load(open(sys.argv[1]))
l = [x["label"] for x in d["sides"]]
assert l[1] == l[0] + " (2)" and l[2] == l[0] + " (3)", l
assert all(len(c["others"]) == 2 for c in d["cases"])
PY
# what NCCL/RCCL says a case ran with (extra.ccl_effective, written by bench-coll from its debug log) is part of
# the method: the same params but another algorithm is another measurement
cp -r "$A" "$T/ea" && cp -r "$B" "$T/eb"
python3 - "$T/ea" "$T/eb" <<'PY'
import glob, json, sys
def eff(algo):
    return {"captured": True, "library": "nccl", "version": "2.28.3+cuda12.9", "channels": {"coll": 24, "nvls": 0},
            "transports": {"P2P/CUMEM/read": 4}, "network": "Socket",
            "collectives": [{"op": "AllReduce", "bytes": 1048576, "algorithm": algo, "protocol": "SIMPLE", "channels": 24, "calls": 30}]}
for d, algo in zip(sys.argv[1:], ["RING", "TREE"]):
    for f in glob.glob(d + "/results/*.jsonl"):
        recs = [json.loads(l) for l in open(f)]
        for i, r in enumerate(recs):
            r.setdefault("extra", {})["ccl_effective"] = eff(algo if i == 0 else "RING")
        open(f, "w").write("".join(json.dumps(r) + "\n" for r in recs))
PY
expect 0 "compare: another algorithm by the library's log" "$BENCH" compare --allow-unverified --format json "$T/ea" "$T/eb"
python3 - "$T/out" <<'PY' && ok "the case that ran Tree instead of Ring is a method difference; the others are not" || not_ok "ccl_effective method difference"
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["method_differs"] if x.get("what") == "ccl_effective"]
assert len(m) == 1, d["method_differs"]
assert "AllReduce RING/SIMPLE 24 channels" in m[0]["baseline_effective"] and "AllReduce TREE/SIMPLE" in m[0]["effective"], m
PY
expect 0 "compare prints what each side ran with" "$BENCH" compare --allow-unverified "$T/ea" "$T/eb"
expect_out "ran with: "
expect 2 "one input is a usage error" "$BENCH" compare "$A"
expect 1 "a missing input" "$BENCH" compare "$A" "$T/nope"
finish
