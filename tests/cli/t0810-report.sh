#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
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
run() { # out-dir samples [VAR=value for the fake runner]
	env BENCH_RUNNERS=$T/fake FAKE_SAMPLES=$2 ${3:-FAKE_MODE=ok} "$BENCH" run -q -o "$T/$1" "$T/m.yaml" >"$T/run.out" 2>&1 || { cat "$T/run.out" >&2; return 1; }
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
	headless --dump-dom "file://$T/rep/index.html" >"$T/dom.html" 2>/dev/null
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
assert dom.count("<tr><td>gemm</td>") + dom.count("<tr><td>membw</td>") == len(cases)  # the comparison: a row per case
PY
	python3 - "$T/dom.html" "$A" "$B" "$C" <<'PY' && ok "chromium DOM: a table of every case and run (value scaled from the record, n, CV, check), values on bars, 1-2-5 ticks, a column group per other run" || not_ok "report tables and charts"
import html.parser, json, math, os, re, sys
dom, runs = open(sys.argv[1]).read(), sys.argv[2:]
def scaled(v, unit):  # the unit a person reads: 0.001167 TFLOP/s is 1.17 GFLOP/s
    pre = "kMGTPE"
    base = next((b for b in ("FLOP/s", "B/s", "FLOP", "B") if unit == b or (unit[1:] == b and unit[0] in pre)), None)
    if base and v:
        p = pre.index(unit[0]) + 1 if unit != base else 0
        e = min(6, max(0, math.floor(math.log10(abs(v)) / 3 + 1e-9) + p))
        v, unit = v * 1000 ** (p - e), (pre[e - 1] if e else "") + base
    a = abs(v)
    m = "%.0f" % v if a >= 100 else "%.1f" % v if a >= 10 else "%.2f" % v if a >= 1 else "%.3g" % v
    return m + " " + unit
class P(html.parser.HTMLParser):
    tables, cur, cell, svg, ticks, barvals, kind = {}, None, None, None, {}, {}, None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "table" and a.get("id", "").startswith("table-"): self.cur = a["id"][6:]; self.tables[self.cur] = []
        if self.cur and tag == "tr": self.tables[self.cur].append([])
        if self.cur and tag == "td": self.cell = ""
        if tag == "svg" and a.get("id", "").startswith("chart-"): self.svg = a["id"][6:]; self.ticks[self.svg] = []; self.barvals[self.svg] = []
        if self.svg and tag == "text" and a.get("class") in ("tick", "barval"): self.cell = ""; self.kind = a["class"]
    def handle_endtag(self, tag):
        if tag == "table": self.cur = None
        if tag == "td" and self.cell is not None and self.cur: self.tables[self.cur][-1].append(" ".join(self.cell.split())); self.cell = None
        if tag == "text" and self.cell is not None and self.svg:
            (self.ticks if self.kind == "tick" else self.barvals)[self.svg].append(self.cell.strip()); self.cell = None
        if tag == "svg": self.svg = None
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
p = P(); p.feed(dom)
for suite in ("gemm", "membw"):
    want = []
    for run in runs:
        for line in open(os.path.join(run, "results", suite + ".jsonl")):
            r = json.loads(line)
            want.append([os.path.basename(run), r["case"], scaled(r["value"], r["unit"]), str(r["stats"]["n"]),
                         "%.1f%%" % (100 * r["stats"]["cv"]), (r.get("extra") or {}).get("check", "\u2013")])
    got = [[c for i, c in enumerate(row) if i != 5] for row in p.tables[suite] if row]  # % of peak: none on a cpu
    assert got == want, (suite, got, want)
    assert sorted(p.barvals[suite]) == sorted(w[2] for w in want), (p.barvals[suite], want)  # every bar carries its value
    nums = [float(t) for t in p.ticks[suite] if re.fullmatch(r"[0-9.e+-]+", t)]
    step = nums[1] - nums[0]
    mant = step / 10 ** math.floor(math.log10(step))
    assert nums[0] == 0 and any(abs(mant - m) < 1e-6 for m in (1, 2, 5)), nums  # 1-2-5 steps
    assert all(abs(b - a - step) < 1e-6 * step for a, b in zip(nums, nums[1:])), nums
assert '<h2 id="suite-membw">Memory bandwidth</h2>' in dom  # a cpu run: not HBM
cases = dom[dom.index('<table id="cases"'):]
cases = cases[:cases.index("</table>")]
heads = [re.sub("<[^>]+>", "", x) for x in re.findall(r'<th colspan="4" class="grp run"[^>]*>(.*?)</th>', cases)]
assert heads == [os.path.basename(r) for r in runs[1:]], heads  # three inputs: a column group for each other run
assert cases.count("<tr><td>") == 4, cases  # one row per case
PY
	for ws in 1400,900 390,844; do
		headless --hide-scrollbars --window-size=$ws \
			--screenshot="$T/rep-$ws.png" "file://$T/rep/index.html" >/dev/null 2>&1
		python3 "$PNGCHECK" "$T/rep-$ws.png" >"$T/png.out" && grep -q "^${ws%,*}x${ws#*,}," "$T/png.out" &&
			ok "screenshot at $ws is not blank: $(cat "$T/png.out")" || not_ok "screenshot at $ws: $(cat "$T/png.out")"
	done
	# widths: every table's scrollWidth and its container's clientWidth, and the page's, measured in Chromium
	dom_measure "$T/rep/index.html" "document.querySelectorAll('table').forEach(function(t){r.push((t.id||t.className)+' '+t.scrollWidth+' '+t.parentElement.clientWidth+' '+t.parentElement.className)});r.push('page '+document.documentElement.scrollWidth+' '+window.innerWidth);" "$T/measure"
	python3 - "$T/measure-1400,900.txt" "$T/measure-390,844.txt" <<'PY' && ok "widths: every table fits its container at 1400 px; on a phone the page is no wider than the screen, each table scrolls in its wrapper" || not_ok "widths: $(cat "$T/measure-1400,900.txt" "$T/measure-390,844.txt")"
import sys
rows = lambda f: [r for r in (l.split() for l in open(f)) if len(r) >= 3 and r[1].isdigit()]  # not the script's text
desk, phone = rows(sys.argv[1]), rows(sys.argv[2])
assert len(desk) > 4 and desk[-1][0] == "page" and phone[-1][0] == "page", desk
assert all(int(r[1]) <= int(r[2]) for r in desk[:-1]), desk  # no table scrolls at 1400 px
assert int(desk[-1][1]) <= int(desk[-1][2]) and int(phone[-1][1]) <= int(phone[-1][2]), (desk[-1], phone[-1])
assert all(r[3:] == ["scroll"] for r in phone[:-1]), phone  # every table in an overflow wrapper
PY
else
	not_ok "chromium is not installed (apt-get install chromium): the report is untested"
fi

# failures: a run whose gemm runner crashed before its first case (every gemm case failed) and a run with a
# skipped case. The gemm section of the first lists its cases in red with the reason instead of an empty chart;
# the run is marked failed with its counts; the skipped case is listed, quieter; no failure is drawn as a bar.
mkdir -p "$T/fake2"
ln -s "$FAKE" "$T/fake2/bench-gemm"
ln -s "${BENCH_RUNNERS:?set BENCH_RUNNERS}/bench-membw" "$T/fake2/bench-membw"
BENCH_RUNNERS=$T/fake2 FAKE_MODE=crash FAKE_GOOD=0 expect 6 "a run whose gemm runner crashes at once: exit 6" "$BENCH" run -q -o "$T/crash" "$T/m.yaml"
X=$(sed -n 1p "$T/out")
S=$(run skip 1.00,1.01,1.02 FAKE_MODE=skip)
why_crash="the runner was killed by signal 11 (Segmentation fault) before reporting this case"
why_skip="not supported here: skip planted by the fake runner"
expect 0 "report of a failed run alone" "$BENCH" report -o "$T/repx" "$X.bench.tar.gz"
expect 0 "report of a failed run and a run with a skipped case" "$BENCH" report -o "$T/repf" "$S.bench.tar.gz" "$X.bench.tar.gz"
if command -v chromium >/dev/null 2>&1; then
	headless --dump-dom "file://$T/repx/index.html" >"$T/domx.html" 2>/dev/null
	headless --dump-dom "file://$T/repf/index.html" >"$T/domf.html" 2>/dev/null
	python3 - "$T/domx.html" "$T/domf.html" "$(basename "$X")" "$(basename "$S")" "$why_crash" "$why_skip" <<'PY' && ok "chromium DOM: failed cases in red with the reason, no empty chart, the run marked failed, skipped quieter, no bar for a failure" || not_ok "report failures DOM"
import html.parser, sys
domx, domf, x, sk, why, whys = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack, self.items, self.ids, self.titles, self.t = [], [], set(), [], None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a: self.ids.add(a["id"])
        if tag == "li": self.stack.append([a.get("class"), "", self.list_id])
        if tag == "ul": self.list_id = a.get("id") or a.get("class")
        if tag == "title": self.t = ""
    list_id = None
    def handle_endtag(self, tag):
        if tag == "li" and self.stack:
            c, txt, lid = self.stack.pop(); self.items.append((lid, c, " ".join(txt.split())))
        if tag == "title" and self.t is not None: self.titles.append(self.t); self.t = None
    def handle_data(self, d):
        for s in self.stack: s[1] += d
        if self.t is not None: self.t += d
g = ["cblas/fp32/tn/64x64x64/default", "cblas/fp32/tn/32x32x32/default"]
p = P(); p.feed(domx)
assert "chart-gemm" not in p.ids and "none-gemm" in p.ids and "chart-membw" in p.ids, p.ids  # the list, not an empty chart
suite = [(c, t) for lid, c, t in p.items if lid == "not-ok-gemm"]
assert suite == [("failed", "failed: %s \u2014 %s" % (k, why)) for k in g], suite
run = [(c, t) for lid, c, t in p.items if lid == "not-ok"]
assert run == [("failed", "failed: gemm %s \u2014 %s" % (k, why)) for k in g], run
import re
assert "state-0" in p.ids and "FAILED: run state failed; of 4 cases 2 failed, 0 interrupted, 0 not run, 0 skipped." in " ".join(re.sub("<[^>]+>", "", domx).split())
p = P(); p.feed(domf)
assert "chart-gemm" in p.ids  # the skipped run measured the other gemm case
suite = [(c, t) for lid, c, t in p.items if lid == "not-ok-gemm"]
assert suite == [("failed", "failed in %s: %s \u2014 %s" % (x, k, why)) for k in g] + \
    [("skipped", "skipped in %s: %s \u2014 %s" % (sk, g[0], whys))], suite
# bars: only the skipped run's one measured gemm case; the failures are words with the reason, not bars
chart = domf[domf.index('id="chart-gemm"'):]
chart = chart[:chart.index("</svg>")]
# (64x64x64 measured nowhere: not in the chart at all; 32x32x32: one bar, and the failed run's word)
assert chart.count("<rect") == 1 and chart.count('class="failtxt"') == 1 and g[0] not in chart, chart
assert ("%s: %s" % (x, why)) in p.titles
PY
	headless --hide-scrollbars --window-size=1000,1200 \
		--screenshot="$T/repx.png" "file://$T/repx/index.html" >/dev/null 2>&1
	python3 "$PNGCHECK" "$T/repx.png" >"$T/png.out" && ok "failed run's page renders: $(cat "$T/png.out")" || not_ok "blank: $(cat "$T/png.out")"
else
	not_ok "chromium is not installed (apt-get install chromium): the report is untested"
fi

# collectives: bus bandwidth against log2 message size, one line per op in a colour of its own (not a run's), and
# nccl-tests tables per op; a run directory is marked unverified
mkdir -p "$T/coll/results"
cp "$A/plan.json" "$T/coll/plan.json"
python3 - "$T/coll/results/collectives.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for op in ("all_reduce", "all_gather"):
        for e in (16, 20, 24):
            f.write(json.dumps({"schema": "bench.result/v1", "suite": "collectives", "case": "%s/fp32/%d" % (op, 1 << e),
                                "params": {"op": op, "bytes": 1 << e, "dtype": "fp32"}, "status": "ok", "metric": "busbw_gbps",
                                "unit": "GB/s", "value": e * 2.0, "samples_ms": [1.0, 1.1, 0.9],
                                "extra": {"count": (1 << e) // 4, "time_us": e * 10.0, "algbw_gbps": (1 << e) / 1e3 / (e * 10.0),
                                          "busbw_mean_gbps": 2 * (1 << e) / 1e3 / (e * 10.0), "wrong": 0, "check": "ok"}}) + "\n")
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
cols = re.findall(r'<polyline[^>]*stroke="(#[0-9a-f]+)"', svg)
run_cols = re.findall(r'<span class="sw" style="background:(#[0-9a-f]+)"', h)
assert len(set(cols)) == 2 and not set(cols) & set(run_cols), (cols, run_cols)  # a colour per op, not a run's
assert re.findall(r'<g class="legend-op">.*?>([a-z_]+)</text>', svg) == ["all_reduce", "all_gather"], svg
# nccl-tests tables: one per op (and placement), a row per size with its count, type, time, algbw, busbw, #wrong
tabs = re.findall(r'<table class="nccl"[^>]*><caption>[^:]*: ([^<]*)</caption>(.*?)</table>', h, re.S)
assert [t for t, _ in tabs] == ["all_reduce, out-of-place", "all_gather, out-of-place"], tabs
for _, body in tabs:
    rows = [re.findall(r"<td>([^<]*)</td>", r) for r in re.findall(r"<tr><td>.*?</tr>", body)]
    assert [r[0] for r in rows] == [str(1 << e) for e in (16, 20, 24)], rows
    assert all(r[1] == str((1 << e) // 4) and r[2] == "fp32" and r[6] == "0" for r, e in zip(rows, (16, 20, 24))), rows
    assert all(abs(float(r[4]) - (1 << e) / 1e3 / float(r[3])) < 0.01 * float(r[4]) for r, e in zip(rows, (16, 20, 24))), rows
    # of the median sample, as the chart above: busbw is the headline (not nccl-tests' mean, busbw_mean_gbps), and
    # algbw is it over the bus factor the runner applied (2 here)
    assert [r[5] for r in rows] == ["%.2f" % (e * 2.0) for e in (16, 20, 24)], rows
    assert [r[4] for r in rows] == ["%.2f" % e for e in (16, 20, 24)], rows
assert "<th>median time (us)</th>" in h
PY

# the report of the signed H200 bundle in docs/results/data (docs/report-h200.png is its screenshot): every case of
# every suite in its table with the value, n and CV the records hold, the peaks from summary.json, the findings
HB=$BENCH_DATA/docs/results/data/h200-host-bundle
expect 0 "report of the H200 bundle" "$BENCH" report -k "$HB/signing.pub.pem" -o "$T/reph" "$HB/h200-host-20261130T092639Z.bench.tar.gz"
if command -v chromium >/dev/null 2>&1; then
	headless --dump-dom "file://$T/reph/index.html" >"$T/domh.html" 2>/dev/null
	python3 - "$T/domh.html" "$HB/h200-host-20261130T092639Z.bench.tar.gz" <<'PY' >"$T/h.txt" 2>&1 && ok "H200 report DOM: $(cat "$T/h.txt")" || { not_ok "H200 report DOM"; show "$T/h.txt"; }
import html, json, re, sys, tarfile
dom = open(sys.argv[1]).read()
recs = []
with tarfile.open(sys.argv[2]) as t:
    for m in t.getmembers():
        if re.search(r"/results/[a-z_]+\.jsonl$", m.name):
            recs += [json.loads(l) for l in t.extractfile(m).read().decode().splitlines() if l.strip()]
suites = sorted({r["suite"] for r in recs})
n = 0
for s in suites:
    tab = re.search(r'<table class="cases" id="table-%s">(.*?)</table>' % s, dom, re.S)
    assert tab, s
    rows = {html.unescape(c): (nn, cv) for c, nn, cv in re.findall(
        r'<td class="case"><code>(.*?)</code></td><td class="val">.*?</td><td>([^<]*)</td><td>([^<]*)</td>', tab.group(1))}
    for r in (r for r in recs if r["suite"] == s):
        assert r["case"] in rows, (s, r["case"])
        if r["status"] == "ok":
            assert rows[r["case"]] == (str(r["stats"]["n"]), "%.1f%%" % (100 * r["stats"]["cv"])), (r["case"], rows[r["case"]])
        n += 1
print("%d cases of %s in the tables, n and CV as recorded" % (n, ", ".join(suites)))
PY
	headless --hide-scrollbars --window-size=1400,1800 \
		--screenshot="$T/reph-desktop.png" "file://$T/reph/index.html" >/dev/null 2>&1
	headless --hide-scrollbars --window-size=390,1600 \
		--screenshot="$T/reph-phone.png" "file://$T/reph/index.html" >/dev/null 2>&1
	python3 "$PNGCHECK" "$T/reph-desktop.png" | grep -q "^1400x1800," && python3 "$PNGCHECK" "$T/reph-phone.png" | grep -q "^390x1600," &&
		ok "H200 report screenshots at desktop and phone width" || not_ok "H200 report screenshots"
	[ -n "${REPORT_SHOTS:-}" ] && cp "$T/reph-desktop.png" "$REPORT_SHOTS/report-h200.png" && cp "$T/reph-phone.png" "$REPORT_SHOTS/report-h200-phone.png"
else
	not_ok "chromium is not installed (apt-get install chromium): the H200 report is untested"
fi

# a tampered bundle: refused, nothing written
cp "$B.bench.tar.gz" "$T/bad.bench.tar.gz"
cp "$B.bench.tar.gz.intoto.jsonl" "$T/bad.bench.tar.gz.intoto.jsonl"
flip_byte "$T/bad.bench.tar.gz" 200
expect 8 "a tampered bundle is refused" "$BENCH" report -o "$T/rep3" "$A.bench.tar.gz" "$T/bad.bench.tar.gz"
expect_err "does not verify"
[ ! -e "$T/rep3/index.html" ] && ok "nothing written" || not_ok "a page was written for a tampered bundle"
expect 2 "-o is required" "$BENCH" report "$A.bench.tar.gz"
expect_err "-o DIR is required"
finish
