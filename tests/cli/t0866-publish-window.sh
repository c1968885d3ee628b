#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench publish over a long history (issue #33): a night parses only the summaries of the window it shows. The
# runs' facts come from summaries/index.jsonl (one line per run, not committed), made again from the summaries
# where it is missing or does not name exactly them, with the same site as a result; the index page lists the last
# 90 days from the start of that quarter and each earlier quarter is an archive page written once; a summary
# outside the window is never opened.
. "$(dirname "$0")/lib.sh"
fake_gemm
cat >"$T/m.yaml" <<Y
bench: 1
name: win
channel: nightly
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64]]}
Y
BENCH_RUNNERS=$T/fake FAKE_MODE=noisy FAKE_N=8 FAKE_SEQ=$T/seq "$BENCH" run -q --no-pack -o "$T/seed" "$T/m.yaml" >"$T/a.out" 2>&1 || cat "$T/a.out" >&2
# nightlies on one machine: two in 2026-Q1, one in Q2, then 08-20, 11-01, 11-02 (the window: from 2026-07-01), 11-03
python3 - "$(sed -n 1p "$T/a.out")" "$T/runs" <<'PY'
import json, os, shutil, sys
for day in ("20260105", "20260310", "20260601", "20260820", "20261101", "20261102", "20261103"):
    d = "%s/win-%sT020000Z" % (sys.argv[2], day)
    shutil.copytree(sys.argv[1], d)
    e = json.load(open(d + "/env/environment.json"))
    e["gpus"] = [{"index": 0, "name": "NVIDIA H200", "driver": "1.0", "memory_mib": 143771}]
    json.dump(e, open(d + "/env/environment.json", "w"), indent=2)
    s = json.load(open(d + "/status.json"))
    s["started"] = "%s-%s-%s" % (day[:4], day[4:6], day[6:]) + s["started"][10:]
    json.dump(s, open(d + "/status.json", "w"), indent=2)
PY
for d in "$T"/runs/*/; do "$BENCH" pack "${d%/}" >/dev/null 2>&1 || not_ok "pack $d"; done
R=$T/results
# shellcheck disable=SC2046
expect 0 "publish 6 nightlies over 4 quarters" "$BENCH" publish --repo "$R" $(ls "$T"/runs/*.bench.tar.gz | grep -v 20261103)
grep -q '(3 runs)' "$R/site/index.html" && grep -q 'href="runs/win-20260820T020000Z.html"' "$R/site/index.html" &&
	! grep -q 'win-20260601T020000Z' "$R/site/index.html" &&
	grep -q 'href="archives/index-2026-Q1.html"' "$R/site/index.html" && grep -q 'href="archives/index-2026-Q2.html"' "$R/site/index.html" &&
	ok "the index: the 3 runs since 2026-07-01, links to the archives of Q1 and Q2" || { not_ok "index window"; grep -o '<a href="[^"]*"' "$R/site/index.html" >"$T/l"; show "$T/l"; }
grep -q '(2 runs)' "$R/site/archives/index-2026-Q1.html" && grep -q 'href="../runs/win-20260105T020000Z.html"' "$R/site/archives/index-2026-Q1.html" &&
	grep -q '(1 run)' "$R/site/archives/index-2026-Q2.html" && [ -f "$R/site/runs/win-20260105T020000Z.html" ] &&
	ok "the archives list their quarter's runs, linked from archives/ to ../runs/" || not_ok "index archives"
[ "$(wc -l <"$R/summaries/index.jsonl")" = 6 ] && [ -z "$(git -C "$R" ls-files summaries/index.jsonl)" ] &&
	[ -z "$(git -C "$R" status --porcelain)" ] && ok "summaries/index.jsonl: 6 lines, not committed, the work tree clean" ||
	{ not_ok "summaries index"; git -C "$R" status --porcelain >"$T/st"; show "$T/st"; }
python3 - "$R/site" <<'PY' && ok "every link of the index, the dashboard and the archives leads to a file" || not_ok "broken links"
import glob, os, re, sys
bad = []
for f in [sys.argv[1] + "/index.html", sys.argv[1] + "/dashboard.html"] + glob.glob(sys.argv[1] + "/archives/*.html"):
    for h in re.findall(r'href="([^"#][^"]*)"', open(f).read()):
        if not h.startswith("http") and not os.path.exists(os.path.join(os.path.dirname(f), h.split("#")[0])):
            bad.append((os.path.basename(f), h))
assert len(glob.glob(sys.argv[1] + "/archives/*.html")) == 4 and not bad, bad
PY
cp "$R/site/archives/index-2026-Q1.html" "$T/q1.html"

# the index missing in one copy, wrong in another (a line of a run that is not there, a line gone, a line cut
# short): the next publish makes it again, and all three sites are the same bytes
cp -a "$R" "$T/r2" && cp -a "$R" "$T/r3"
rm "$T/r2/summaries/index.jsonl"
{ sed 1d "$R/summaries/index.jsonl"; sed -n 1p "$R/summaries/index.jsonl" | sed 's/"sha256":"./"sha256":"x/'; printf '{"v":1,'; } >"$T/r3/summaries/index.jsonl"
N=$T/runs/win-20261103T020000Z.bench.tar.gz
for r in "$R" "$T/r2" "$T/r3"; do "$BENCH" publish --repo "$r" "$N" >/dev/null 2>&1 || not_ok "publish into $r"; done
differ=
for f in index.html dashboard.html archives/index-2026-Q1.html archives/dashboard-2026-Q1.html; do
	cmp -s "$R/site/$f" "$T/r2/site/$f" && cmp -s "$R/site/$f" "$T/r3/site/$f" || differ="$differ $f"
done
[ -z "$differ" ] && ok "the site is the same bytes with the index appended, made again, or mended" || not_ok "differ:$differ"
[ "$(sort "$R/summaries/index.jsonl" | sha256sum)" = "$(sort "$T/r2/summaries/index.jsonl" | sha256sum)" ] &&
	cmp -s "$T/r2/summaries/index.jsonl" "$T/r3/summaries/index.jsonl" && [ "$(wc -l <"$R/summaries/index.jsonl")" = 7 ] &&
	ok "the index made again names the same 7 runs" || not_ok "index rebuilt differs"
cmp -s "$T/q1.html" "$R/site/archives/index-2026-Q1.html" && ok "an archive page is written once" || not_ok "archive rewritten"

# a summary outside the window is never opened: one of Q1 made a FIFO (reading it would block), the next publish ends
cp -a "$T/r2" "$T/r4"
S1=$(sha256sum "$T/r4/runs/win/nightly/win-20260105T020000Z.bench.tar.gz" | cut -d' ' -f1)
rm "$T/r4/summaries/$S1.json" && mkfifo "$T/r4/summaries/$S1.json"
A8=$T/runs/win-20261104T020000Z
cp -r "$T/runs/win-20261103T020000Z" "$A8" && rm -f "$A8/status.json.lock" &&
	python3 -c "import json,sys; p=sys.argv[1]+'/status.json'; s=json.load(open(p)); s['started']='2026-11-04'+s['started'][10:]; json.dump(s,open(p,'w'))" "$A8" &&
	"$BENCH" pack "$A8" >/dev/null 2>&1
expect 0 "publish with an archived run's summary unreadable (a FIFO)" timeout 60 "$BENCH" publish --repo "$T/r4" "$A8.bench.tar.gz"
grep -q '(5 runs)' "$T/r4/site/index.html" && ok "the window's 5 runs listed" || not_ok "r4 index"
finish
