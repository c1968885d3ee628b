#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench publish: three signed bundles give three commits (libgit2) and a site whose index lists them, each with
# its report; publishing one again is a no-op; a tampered bundle is refused without touching the repository; a
# variant's run (NAME+VARIANT) is published under that name.
. "$(dirname "$0")/lib.sh"
fake_gemm
cat >"$T/m.yaml" <<'Y'
bench: 1
name: nightly-gemm
channel: nightly
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [32, 32, 32]]}
Y
run() { # out-dir samples
	BENCH_RUNNERS=$T/fake FAKE_SAMPLES=$2 "$BENCH" run -q -o "$T/$1" "$T/m.yaml" >"$T/run.out" 2>&1 || { cat "$T/run.out" >&2; return 1; }
	sed -n 1p "$T/run.out"
}
A=$(run a 1.00,1.01,0.99); sleep 1
B=$(run b 0.90,0.91,0.89); sleep 1
C=$(run c 0.80,0.81,0.79)
for r in "$A" "$B" "$C"; do "$BENCH" pack "$r" >/dev/null 2>&1 || not_ok "pack $r"; done
R="$T/results"

expect 0 "publish three bundles into a new repository" "$BENCH" publish --repo "$R" "$A.bench.tar.gz" "$B.bench.tar.gz" "$C.bench.tar.gz"
expect_out "published 3 new run(s)"
[ "$(git -C "$R" rev-list --count HEAD)" = 3 ] && ok "three commits" || not_ok "commits: $(git -C "$R" rev-list --count HEAD)"
git -C "$R" log --format=%s >"$T/log"
grep -q "^publish $(basename "$C") (channel nightly) signed by " "$T/log" && ok "the message names run, channel and key id" || { not_ok "commit message"; show "$T/log"; }
[ -z "$(git -C "$R" status --porcelain)" ] && ok "the work tree is clean after publishing" || not_ok "uncommitted files"
for r in "$A" "$B" "$C"; do
	n=$(basename "$r")
	[ -f "$R/runs/nightly-gemm/nightly/$n.bench.tar.gz" ] && [ -f "$R/runs/nightly-gemm/nightly/$n.bench.tar.gz.intoto.jsonl" ] &&
		[ -f "$R/site/runs/$n.html" ] && grep -q "href=\"runs/$n.html\"" "$R/site/index.html" &&
		ok "$n: bundle, envelope, report, listed in the index" || not_ok "$n published"
done
expect 0 "the published copy still verifies" "$BENCH" verify "$R/runs/nightly-gemm/nightly/$(basename "$A").bench.tar.gz"
python3 - "$R/site/index.html" <<'PY' && ok "index: one group, 3 runs newest first, a trend of 3 points per case" || not_ok "index content"
import re, sys
h = open(sys.argv[1]).read()
assert h.count('class="group"') == 1 and "nightly-gemm &middot; nightly" in h
runs = re.findall(r'href="runs/([^"]+)\.html"', h)
assert len(runs) == 3 and runs == sorted(runs, reverse=True), runs
trends = re.findall(r'aria-label="(\d+) runs"', h)
assert trends == ["3", "3"], trends
PY
if command -v chromium >/dev/null 2>&1; then
	headless --dump-dom "file://$R/site/index.html" 2>/dev/null >"$T/dom.html"
	[ "$(grep -o 'href="runs/' "$T/dom.html" | wc -l)" = 3 ] && ok "chromium: the index links the three runs" || not_ok "chromium index"
else
	not_ok "chromium is not installed (apt-get install chromium)"
fi

expect 0 "publishing a bundle again" "$BENCH" publish --repo "$R" "$B.bench.tar.gz"
expect_out "published 0 new run(s)"
[ "$(git -C "$R" rev-list --count HEAD)" = 3 ] && ok "is a no-op: still three commits" || not_ok "a commit for a republished bundle"

head=$(git -C "$R" rev-parse HEAD)
D=$(run d 0.70,0.71,0.69)
"$BENCH" pack "$D" >/dev/null 2>&1
flip_byte "$D.bench.tar.gz" 200
expect 8 "a tampered bundle is refused" "$BENCH" publish --repo "$R" "$D.bench.tar.gz"
expect_err "nothing was published"
[ "$(git -C "$R" rev-parse HEAD)" = "$head" ] && [ -z "$(git -C "$R" status --porcelain)" ] &&
	[ ! -e "$R/runs/nightly-gemm/nightly/$(basename "$D").bench.tar.gz" ] && ok "the repository is untouched" || not_ok "the repository changed"
expect 8 "nor with good ones beside it" "$BENCH" publish --repo "$T/other" "$A.bench.tar.gz" "$D.bench.tar.gz"
[ ! -e "$T/other" ] && ok "no repository was created" || not_ok "a repository was created"
expect 2 "--repo is required" "$BENCH" publish "$A.bench.tar.gz"

# a run whose runner crashed after one case: published (it is complete), marked failed in red with the count;
# its page gives the reason; the failed case is not plotted: the latest column says failed, the trend keeps
# only the runs that measured it
why_crash="the runner was killed by signal 11 (Segmentation fault) before reporting this case"
BENCH_RUNNERS=$T/fake FAKE_MODE=crash FAKE_GOOD=1 FAKE_SAMPLES=0.95,0.96,0.94 expect 6 "a run with a failed case" "$BENCH" run -q -o "$T/e" "$T/m.yaml"
E=$(sed -n 1p "$T/out")
expect 0 "a complete run with a failed case is published" "$BENCH" publish --repo "$R" "$E.bench.tar.gz"
expect_out "published 1 new run(s)"
python3 - "$R/site/index.html" "$R/site/runs/$(basename "$E").html" "$(basename "$E")" "$why_crash" <<'PY' && ok "site: the run is marked FAILED with its count, its page lists the reason, the failed case is not plotted" || not_ok "site failed run"
import re, sys
idx, page, e, why = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3], sys.argv[4]
text = lambda h: " ".join(re.sub("<[^>]+>", "", h).split())
li = [l for l in re.findall(r"<li>(.*?)</li>", idx) if 'href="runs/%s.html"' % e in l]
assert len(li) == 1 and '<strong class="failed run-failed">FAILED: 1 case did not measure</strong>' in li[0], li
assert sum('run-failed' in l for l in re.findall(r"<li>(.*?)</li>", idx)) == 1  # the others are not marked
rows = {re.findall(r"<td>(.*?)</td>", r)[1]: r for r in re.findall(r"<tr><td>gemm</td>.*?</tr>", idx)}
bad = rows["cblas/fp32/tn/32x32x32/default"]
assert '<span class="failed" title="%s">failed</span>' % why in bad, bad
assert re.findall(r'aria-label="(\d+) runs"', bad) == ["3"], bad  # A, B, C: not the failed one
assert re.findall(r'aria-label="(\d+) runs"', rows["cblas/fp32/tn/64x64x64/default"]) == ["4"]
assert "FAILED: run state failed; of 2 cases 1 failed, 0 interrupted, 0 not run, 0 skipped." in text(page), text(page)[:800]
assert "failed: gemm cblas/fp32/tn/32x32x32/default \u2014 %s" % why in text(page).replace("&mdash;", "\u2014")
chart = page[page.index('id="chart-gemm"'):]
chart = chart[:chart.index("</svg>")]
assert chart.count("<rect") == 1 and "32x32x32" not in chart, chart  # one bar: the case that measured
PY

# an interrupted run (Ctrl-C) ends packed, but publish refuses it (exit 6) unless --allow-incomplete
BENCH_RUNNERS=$T/fake FAKE_MODE=ok FAKE_DELAY=1 "$BENCH" run -q -o "$T/int" "$T/m.yaml" >"$T/int.out" 2>"$T/int.err" &
bp=$!
n=0
until [ -s "$(ls "$T"/int/*/results/gemm.jsonl 2>/dev/null | head -n 1)" ] || [ "$n" -gt 100 ]; do sleep 0.1; n=$((n + 1)); done
kill -INT "$bp"
wait "$bp"
I=$(sed -n 1p "$T/int.out")
grep -q '"state": "interrupted"' "$I/status.json" && [ -f "$I.bench.tar.gz" ] && ok "an interrupted run, packed" || not_ok "interrupted run"
head=$(git -C "$R" rev-parse HEAD)
expect 6 "publish refuses an interrupted run" "$BENCH" publish --repo "$R" "$I.bench.tar.gz"
expect_err "bench: error: '$I.bench.tar.gz': the run is incomplete (state interrupted, 0 case(s) pending, 1 interrupted); complete it with 'bench run --resume' and pack it again, or pass --allow-incomplete to publish it marked as such; nothing was published"
[ "$(git -C "$R" rev-parse HEAD)" = "$head" ] && [ ! -e "$R/site/runs/$(basename "$I").html" ] && ok "the repository is untouched" || not_ok "the repository changed"
expect 0 "--allow-incomplete publishes it" "$BENCH" publish --allow-incomplete --repo "$R" "$I.bench.tar.gz"
grep -q "href=\"runs/$(basename "$I").html\">$(basename "$I")</a>.*INCOMPLETE: 1 case did not measure" "$R/site/index.html" &&
	grep -q 'INCOMPLETE</strong>: run state <code>interrupted</code>' "$R/site/runs/$(basename "$I").html" &&
	ok "marked INCOMPLETE in the index and on its page" || not_ok "incomplete marks"

# a run killed outright (state running, cases still pending), packed by hand: refused too
BENCH_RUNNERS=$T/fake FAKE_MODE=ok FAKE_DELAY=1 "$BENCH" run -q --no-pack -o "$T/kill" "$T/m.yaml" >/dev/null 2>&1 &
bp=$!
n=0
# wait for status.json to count the first case ok (its record is written before status.json is): then one is pending
until grep -qs '"status": "ok"' "$(ls "$T"/kill/*/status.json 2>/dev/null | head -n 1)" || [ "$n" -gt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -KILL "$bp"
wait "$bp" 2>/dev/null
K=$(ls -d "$T"/kill/*/ | head -n 1)
K=${K%/}
"$BENCH" pack "$K" >/dev/null 2>&1
grep -q '"state": "running"' "$K/status.json" && grep -q '"status": "pending"' "$K/status.json" && ok "a killed run: state running, a case pending" || not_ok "killed run"
expect 6 "publish refuses a run with pending cases" "$BENCH" publish --repo "$R" "$K.bench.tar.gz"
expect_err "the run is incomplete (state running, 1 case(s) pending, 0 interrupted)"
# a variant's run: its stack and run are named NAME+VARIANT (docs/manifest-format.md), published under that name
{ sed '/^suites:/,$d' "$T/m.yaml"; printf 'variants:\n  - name: tuned\n    env: {OMP_NUM_THREADS: "1"}\n'; sed -n '/^suites:/,$p' "$T/m.yaml"; } >"$T/v.yaml"
BENCH_RUNNERS=$T/fake FAKE_SAMPLES=1.0,1.01,0.99 "$BENCH" run -q -o "$T/var" "$T/v.yaml" >"$T/var.out" 2>&1
V=$(sed -n 1p "$T/var.out")
case $(basename "$V") in nightly-gemm+tuned-*) ok "a variant's run: $(basename "$V")" ;; *) not_ok "a variant's run"; show "$T/var.out" ;; esac
expect 0 "a variant's run is published" "$BENCH" publish --repo "$R" "$V.bench.tar.gz"
[ -f "$R/runs/nightly-gemm+tuned/nightly/$(basename "$V").bench.tar.gz" ] && grep -q "$(basename "$V")" "$R/site/index.html" &&
	ok "under runs/nightly-gemm+tuned/nightly/, listed in the index" || { not_ok "the variant's run published"; ls -R "$R/runs" | head -n 20 | sed 's/^/#   /'; }
finish
