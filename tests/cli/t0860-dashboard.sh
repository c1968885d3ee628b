#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench publish's dashboard (site/dashboard.html) from 30+ synthetic nightlies on two GPU models and a stable channel:
# one chart per case and machine with a series per channel, last-point % changes computed here from the records, a
# planted regression between two consecutive nightlies flagged slower by compare, a failed case in red with its
# reason, the machine view with both GPU models and the price per PFLOP/s; Chromium DOM and screenshots at desktop
# and phone width. DASHBOARD_SHOTS=DIR keeps the screenshots (docs/dashboard-*.png are made so).
. "$(dirname "$0")/lib.sh"
PNGCHECK=$(cd "$(dirname "$0")" && pwd)/pngcheck.py
fake_gemm
for ch in nightly stable; do
	for price in yes no; do
		{
			echo "bench: 1"
			echo "name: dash-gemm"
			echo "channel: $ch"
			echo "target: {vendor: cpu}"
			echo "runtime: {engine: host}"
			[ "$price" = yes ] && echo "pricing: {usd_per_gpu_hour: 3.5, source: test list price}"
			echo "suites:"
			echo "  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [32, 32, 32]]}"
		} >"$T/$ch-$price.yaml"
	done
done
H200="NVIDIA H200"
MI="AMD Instinct MI300X"
export FAKE_SEQ="$T/seq" FAKE_RUN_SD=0.004 FAKE_WITHIN_SD=0.004 FAKE_N=8
: >"$T/runs.tsv" # run-dir date machine channel
n=0
# mk CHANNEL MACHINE DATE [env...]: one fake-runner run, dated and placed on MACHINE, packed with this test's key
mk() {
	ch=$1 mach=$2 day=$3
	shift 3
	n=$((n + 1))
	price=yes
	[ "$mach" = "$MI" ] && price=no
	env BENCH_RUNNERS="$T/fake" FAKE_MODE=noisy "$@" "$BENCH" run -q --no-pack -o "$T/r/$n" "$T/$ch-$price.yaml" >"$T/run.out" 2>"$T/run.err"
	d=$(sed -n 1p "$T/run.out")
	[ -d "$d" ] || { cat "$T/run.err" >&2; return 1; }
	python3 - "$d" "$mach" "$day" <<'PY'
import json, sys
d, mach, day = sys.argv[1:]
e = json.load(open(d + "/env/environment.json"))
e["gpus"] = [{"index": 0, "name": mach, "driver": "1.0", "memory_mib": 143771}]
json.dump(e, open(d + "/env/environment.json", "w"), indent=2)
s = json.load(open(d + "/status.json"))
s["started"] = day + s["started"][10:]
json.dump(s, open(d + "/status.json", "w"), indent=2)
PY
	"$BENCH" pack "$d" >/dev/null 2>&1 || { echo "pack $d failed" >&2; return 1; }
	printf '%s\t%s\t%s\t%s\n' "$d" "$day" "$mach" "$ch" >>"$T/runs.tsv"
}
start=$(date +%s)
day() { printf '2026-11-%02d' "$1"; }
why_crash="the runner was killed by signal 11 (Segmentation fault) before reporting this case"
for i in $(seq 1 16); do
	slow=0
	[ "$i" = 16 ] && slow=0.15 # the planted regression on H200: the last nightly 15% slower
	mk nightly "$H200" "$(day "$i")" FAKE_SLOWDOWN=$slow || not_ok "nightly $i on $H200"
	if [ "$i" = 16 ]; then # last night on MI300X: the runner crashes after the first case
		mk nightly "$MI" "$(day "$i")" FAKE_MODE=crash FAKE_GOOD=1 FAKE_SCALE=1.25 || not_ok "nightly $i on $MI"
	else
		mk nightly "$MI" "$(day "$i")" FAKE_SLOWDOWN=0.25 || not_ok "nightly $i on $MI"
	fi
done
# compare tests with 3 runs a side: H200's last two nightly dates get two more runs each
for k in 1 2; do
	mk nightly "$H200" "$(day 15)" FAKE_SLOWDOWN=0 || not_ok "rerun 15"
	mk nightly "$H200" "$(day 16)" FAKE_SLOWDOWN=0.15 || not_ok "rerun 16"
done
for i in 3 10; do
	mk stable "$H200" "$(day "$i")" FAKE_SLOWDOWN=-0.02 || not_ok "stable $i"
	mk stable "$MI" "$(day "$i")" FAKE_SLOWDOWN=0.2 || not_ok "stable $i"
done
[ "$(grep -c "	nightly$" "$T/runs.tsv")" -ge 30 ] && ok "$(wc -l <"$T/runs.tsv") runs made and packed, $(grep -c "	nightly$" "$T/runs.tsv") of them nightlies ($(($(date +%s) - start)) s)" || not_ok "runs: $(wc -l <"$T/runs.tsv")"
R="$T/results"
start=$(date +%s)
# shellcheck disable=SC2046
expect 0 "publish them all in one call" "$BENCH" publish --repo "$R" $(cut -f1 "$T/runs.tsv" | sed 's/$/.bench.tar.gz/')
expect_out "published $(wc -l <"$T/runs.tsv") new run(s)"
[ -n "${DASHBOARD_KEEP:-}" ] && cp -r "$R" "$DASHBOARD_KEEP" && cp "$T/runs.tsv" "$DASHBOARD_KEEP/"
ok "publish took $(($(date +%s) - start)) s"
# the site is generated, kept out of the history (issue #33: a dashboard committed every night grew .git by GBs)
[ -f "$R/site/dashboard.html" ] && [ -z "$(git -C "$R" ls-files site)" ] && [ -z "$(git -C "$R" status --porcelain)" ] &&
	grep -q 'href="dashboard.html"' "$R/site/index.html" && ok "site/dashboard.html is written, linked from the index, not committed" || not_ok "no dashboard"
grep -qi "<script" "$R/site/dashboard.html" && not_ok "the dashboard has a script" || ok "no script in the dashboard"

if ! command -v chromium >/dev/null 2>&1; then
	not_ok "chromium is not installed (apt-get install chromium): the dashboard is untested"
	finish
	exit
fi
headless --dump-dom "file://$R/site/dashboard.html" 2>/dev/null >"$T/dom.html"
python3 - "$T/dom.html" "$T/runs.tsv" "$H200" "$MI" "$why_crash" "$(day 16)" "$(day 15)" <<'PY' && ok "chromium DOM: a section per case, a chart per machine with a series per channel, last-point % changes as computed from the records, the regression flagged slower, the failed case in red with its reason, the machine view" || not_ok "dashboard DOM"
import glob, html, json, re, sys
dom, runs, H200, MI, why, d16, d15 = sys.argv[1:]
dom = html.unescape(dom and open(dom).read())
text = lambda h: " ".join(re.sub("<[^>]+>", " ", h).split())
# the records, per run
vals = {}  # (machine, channel, date, key) -> [values]; bad: failed records
bad = []
for line in open(runs):
    d, date, mach, ch = line.rstrip("\n").split("\t")
    for f in glob.glob(d + "/results/*.jsonl"):
        for l in open(f):
            r = json.loads(l)
            k = r["suite"] + " " + r["case"]
            if r["status"] == "ok":
                vals.setdefault((mach, ch, date, k), []).append(r["value"])
    st = json.load(open(d + "/status.json"))
    for c in st["cases"]:
        if c["status"] != "ok":
            bad.append((mach, date, c["suite"] + " " + c["case"]))
def scaled(v, unit="TFLOP/s"):  # units_format_scaled: 0.05093 TFLOP/s -> 50.9 GFLOP/s, as bench show prints
    import math
    pre = ["n", "u", "m", "", "k", "M", "G", "T", "P"]
    p = pre.index(unit[:-len("FLOP/s")])
    e = min(max(p + math.floor(math.log10(abs(v)) / 3), 3), 8)
    while True:
        x = v * 1000.0 ** (p - e)
        d = max(0, 2 - math.floor(math.log10(abs(x))))
        if abs(round(x * 10 ** d) / 10 ** d) >= 1000 and e < 8:
            e += 1
            continue
        break
    if d > 0 and abs(round(x * 10 ** d) / 10 ** d) >= 10 ** (3 - d):
        d -= 1
    return "%.*f %s%s" % (d, x, pre[e], "FLOP/s")
med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else (sorted(v)[len(v) // 2 - 1] + sorted(v)[len(v) // 2]) / 2
keys = sorted({k[3] for k in vals})
assert len(keys) == 2, keys
assert bad == [(MI, d16, "gemm cblas/fp32/tn/32x32x32/default")], bad
sections = re.findall(r'<section class="case" data-case="([^"]+)">(.*?)</section>', dom, re.S)
assert [s[0] for s in sections] == keys, [s[0] for s in sections]
for key, sec in sections:
    figs = re.findall(r'<figure class="dchart" data-case="([^"]+)" data-machine="([^"]+)">(.*?)</figure>', sec, re.S)
    assert sorted(f[1] for f in figs) == sorted([H200, MI]), figs  # one chart per machine
    for _, mach, fig in figs:
        assert fig.count("<svg") == 1
        series = re.findall(r'<g class="series" data-channel="([^"]+)"', fig)
        assert series == ["nightly", "stable"], series  # one series per channel
        ticks = re.findall(r'<text class="tick"[^>]*>([^<]+)</text>', fig)
        assert len(ticks) >= 5 and "TFLOP/s" in fig, ticks  # a value scale and dates
        # the last-point label, computed here
        ndates = sorted({k[2] for k in vals if k[0] == mach and k[1] == "nightly" and k[3] == key})
        last, prev = ndates[-1], ndates[-2]
        stab = max(k[2] for k in vals if k[0] == mach and k[1] == "stable" and k[3] == key)
        v = med(vals[(mach, "nightly", last, key)])
        vp = med(vals[(mach, "nightly", prev, key)])
        vs = med(vals[(mach, "stable", stab, key)])
        want_p, want_s = "%+.1f%%" % (100 * (v / vp - 1)), "%+.1f%%" % (100 * (v / vs - 1))
        got_p = re.search(r'<span class="vs-prev">([^<]+)</span>', fig).group(1)
        got_s = re.search(r'<span class="vs-stable">([^<]+)</span>', fig).group(1)
        assert (got_p, got_s) == (want_p, want_s), (key, mach, got_p, got_s, want_p, want_s)
        # values in scaled units (50.9 GFLOP/s, not 0.05093 TFLOP/s)
        assert "latest nightly %s: %s" % (last, scaled(v)) in text(fig), (scaled(v), text(fig)[:300])
        lab = re.search(r'<text class="lastlabel"[^>]*>([^<]+)</text>', fig).group(1)
        assert lab.startswith("%s (%s vs prev, %s vs stable)" % (scaled(v), want_p, want_s)), lab  # on the chart, hover-free
        assert not re.search(r"\b0\.0\d+ TFLOP/s", text(fig)), text(fig)[:300]
        flags = re.findall(r'<li class="(slower|faster)">(.*?)</li>', fig)
        if mach == H200:
            assert [f[0] for f in flags] == ["slower"] and text(flags[0][1]).startswith("%s: slower than %s" % (d16, d15)), flags
            assert "flag slower" in fig
        else:
            assert not flags, flags  # single-run nightlies: inconclusive, never flagged
        failed = re.findall(r'<li class="failed">(.*?)</li>', fig)
        if mach == MI and "32x32x32" in key:
            assert len(failed) == 1 and text(failed[0]).startswith(d16 + " nightly") and why in failed[0], failed
            assert 'class="failed-point"' in fig
        else:
            assert not failed, failed
# what changed last night
ln = dom[dom.index('<section class="lastnight">'):]
ln = ln[:ln.index("</section>")]
assert "What changed last night (%s)" % d16 in text(ln)
rows = re.findall(r'<tr class="([^"]+)">(.*?)</tr>', ln, re.S)
assert sorted((c, text(r).split(" gemm ")[0]) for c, r in rows) == sorted([("slower", H200), ("slower", H200), ("failed", MI)]), rows
assert why in [r for c, r in rows if c == "failed"][0]
assert "FAILED" in text(ln) and MI in text(ln)
# the machine view: both GPU models per case, USD/h per PFLOP/s where the manifest has pricing
mv = dom[dom.index('<table class="machines">'):]
for key in keys:
    trs = re.findall(r'<tr data-case="%s">(.*?)</tr>' % re.escape(key), mv, re.S)
    ms = [re.search(r'<td class="machine">([^<]+)</td>', t).group(1) for t in trs]
    assert sorted(ms) == sorted([H200, MI]), ms
    for t, m in zip(trs, ms):
        cost = re.search(r'<td class="cost">([^<]+)</td>', t).group(1)
        last = max(k[2] for k in vals if k[0] == m and k[1] == "nightly" and k[3] == key)
        v = med(vals[(m, "nightly", last, key)])
        c = 3.5 / (v / 1000)
        assert cost == (("%.0f" if c >= 100 else "%.3g") % c if m == H200 else "no pricing"), (key, m, cost, v)
PY
# red: the computed colour of the failed entries, and the page's width on a phone, measured in Chromium
dom_measure "$R/site/dashboard.html" "document.querySelectorAll('li.failed,tr.failed td').forEach(function(e){r.push('colour '+getComputedStyle(e).color.replace(/ /g,''))});r.push('page '+document.documentElement.scrollWidth+' '+window.innerWidth);" "$T/measure"
for ws in 1400,900 390,844; do
	python3 - "$T/measure-$ws.txt" <<'PY' && ok "at $ws: failed entries are red, the page is no wider than the window" || not_ok "at $ws: $(cat "$T/measure-$ws.txt")"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith(("colour ", "page "))]
cols = [r[1] for r in rows if r[0] == "colour"]
assert len(cols) >= 2 and set(cols) == {"rgb(192,57,43)"}, cols
page = [r for r in rows if r[0] == "page"][0]
assert int(page[1]) <= int(page[2]), page
PY
done
for ws in 1400,900 390,844; do
	headless --hide-scrollbars --window-size=$ws \
		--screenshot="$T/dash-$ws.png" "file://$R/site/dashboard.html" >/dev/null 2>&1
	python3 "$PNGCHECK" "$T/dash-$ws.png" >"$T/png.out" && grep -q "^${ws%,*}x${ws#*,}," "$T/png.out" &&
		ok "screenshot at $ws is not blank: $(cat "$T/png.out")" || not_ok "screenshot at $ws: $(cat "$T/png.out")"
	[ -n "${DASHBOARD_SHOTS:-}" ] && cp "$T/dash-$ws.png" "$DASHBOARD_SHOTS/dashboard-$([ "$ws" = 1400,900 ] && echo desktop || echo phone).png"
done
# same runs, same bytes: the bundles published in the opposite order into another repository
# shellcheck disable=SC2046
expect 0 "publish the same bundles in reverse order elsewhere" "$BENCH" publish --repo "$T/results2" $(cut -f1 "$T/runs.tsv" | sed '1!G;h;$!d' | sed 's/$/.bench.tar.gz/')
expect_same "the dashboard is byte-identical" "$R/site/dashboard.html" "$T/results2/site/dashboard.html"
finish
