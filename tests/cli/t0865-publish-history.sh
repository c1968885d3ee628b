#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench publish over a history (issue #33): two manifests on one channel and machine are two series on the
# dashboard, never pooled; publishing a new bundle reads no published bundle again (an old bundle changed in the
# repository afterwards stays listed with the values it was published with, its page as written); the site is kept
# out of the history; a run page's links are relative to it, whatever --repo was typed; a repository without
# summaries (published by an older bench), or without its site, is made whole by the next publish.
. "$(dirname "$0")/lib.sh"
fake_gemm
for s in a b; do
	cat >"$T/$s.yaml" <<Y
bench: 1
name: hist-$s
channel: nightly
target: {vendor: cpu}
runtime: {engine: host}
suites:
  gemm: {dtypes: [fp32], shapes: [[64, 64, 64], [32, 32, 32]]}
Y
done
# one real run per manifest (b twice as slow), cloned into four dated nightlies on one machine, each packed
BENCH_RUNNERS=$T/fake FAKE_MODE=noisy FAKE_N=8 FAKE_SEQ=$T/seq "$BENCH" run -q --no-pack -o "$T/seed" "$T/a.yaml" >"$T/a.out" 2>&1 || cat "$T/a.out" >&2
BENCH_RUNNERS=$T/fake FAKE_MODE=noisy FAKE_N=8 FAKE_SEQ=$T/seq FAKE_SCALE=2 "$BENCH" run -q --no-pack -o "$T/seed" "$T/b.yaml" >"$T/b.out" 2>&1 || cat "$T/b.out" >&2
python3 - "$(sed -n 1p "$T/a.out")" "$(sed -n 1p "$T/b.out")" "$T/runs" <<'PY'
import json, os, shutil, sys
out = sys.argv[3]
for seed in sys.argv[1:3]:
    name = os.path.basename(seed).split("-2")[0]
    for day in range(1, 5):
        d = "%s/%s-202611%02dT020000Z-d%d" % (out, name, day, day)
        shutil.copytree(seed, d)
        e = json.load(open(d + "/env/environment.json"))
        e["gpus"] = [{"index": 0, "name": "NVIDIA H200", "driver": "1.0", "memory_mib": 143771}]
        json.dump(e, open(d + "/env/environment.json", "w"), indent=2)
        s = json.load(open(d + "/status.json"))
        s["started"] = "2026-11-%02d" % day + s["started"][10:]
        json.dump(s, open(d + "/status.json", "w"), indent=2)
PY
for d in "$T"/runs/*/; do "$BENCH" pack "${d%/}" >/dev/null 2>&1 || not_ok "pack $d"; done
A1=$T/runs/hist-a-20261101T020000Z-d1
R=$T/results
[ "$(ls "$T"/runs/*.bench.tar.gz | wc -l)" = 8 ] && ok "8 nightlies packed: hist-a and hist-b, 4 dates each" || not_ok "packed: $(ls "$T"/runs)"
# shellcheck disable=SC2046
expect 0 "publish 3 dates of each" "$BENCH" publish --repo "$R" $(ls "$T"/runs/*-d[123].bench.tar.gz)
expect_out "published 6 new run(s)"

# two stacks on one channel: two series per chart, each with its own 3 dates; the latest nightly value is that of
# the series measured last (hist-b), not a median pooled over both manifests
python3 - "$R/site/dashboard.html" "$T/runs/hist-b-20261103T020000Z-d3" <<'PY' && ok "two manifests, one channel: two series, not pooled" || not_ok "series pooled"
import json, re, sys
h = open(sys.argv[1]).read()
figs = re.findall(r'<figure class="dchart".*?</figure>', h, re.S)
assert len(figs) == 2, len(figs)  # 2 cases x 1 machine
si = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
recs = {}
for l in open(sys.argv[2] + "/results/gemm.jsonl"):
    r = json.loads(l)
    recs[r["case"]] = r
for f in figs:
    series = re.findall(r'<g class="series" data-channel="nightly" data-series="([^"]+)">(.*?)</g>', f, re.S)
    assert sorted(s for s, _ in series) == ["nightly (hist-a)", "nightly (hist-b)"], [s for s, _ in series]
    for s, body in series:
        assert body.count("<circle") == 3, (s, body.count("<circle"))
    case = re.search(r'data-case="gemm/([^"]+)"', f) or re.search(r'data-case="([^"]+)"', f)
    key = case.group(1)
    rec = next(r for c, r in recs.items() if key.endswith(c))
    m = re.search(r'<strong class="v">([0-9.]+) ([kMGTP]?)([^<]*)</strong>', f)
    shown = float(m.group(1)) * si[m.group(2)]
    unit = rec["unit"]
    p = unit[0] if unit[:1] in si and len(unit) > 1 and unit[1:] == m.group(3) else ""
    want = rec["value"] * si[p]
    assert abs(shown / want - 1) < 0.01, (key, shown, want, unit, m.group(0))
PY

# the index prints each latest value re-prefixed as bench show does (1 <= mantissa < 1000), not %.4g of the
# recorded unit
python3 - "$R/site/index.html" <<'PY' && ok "index: latest values in scaled units" || not_ok "index units"
import re, sys
h = open(sys.argv[1]).read()
cells = re.findall(r'<tr><td>gemm</td><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>', h)
assert len(cells) == 4, cells  # 2 groups x 2 cases
for v, unit in cells:
    m = re.fullmatch(r'([0-9.]+) ([kMGTP]?)(\S+)', v)
    assert m and 1 <= float(m.group(1)) < 1000 and unit.endswith(m.group(3)), (v, unit)
PY

# an old bundle changed in the repository after it was published: the next publish does not read it again
P1=$R/runs/hist-a/nightly/$(basename "$A1").bench.tar.gz
page1=$(sha256sum "$R/site/runs/$(basename "$A1").html" | cut -d' ' -f1)
cp "$P1" "$T/p1.orig"
flip_byte "$P1" 300
expect 8 "the changed old bundle no longer verifies" "$BENCH" verify "$P1"
expect 0 "publish the 4th date of hist-a" "$BENCH" publish --repo "$R" "$T/runs/hist-a-20261104T020000Z-d4.bench.tar.gz"
grep -q "href=\"runs/$(basename "$A1").html\"" "$R/site/index.html" && grep -q '(4 runs)' "$R/site/index.html" &&
	ok "the index still lists it, from its summary (publish verified it once, when it was published)" || not_ok "the old bundle was read again"
[ "$(sha256sum "$R/site/runs/$(basename "$A1").html" | cut -d' ' -f1)" = "$page1" ] && ok "its page is not written again" || not_ok "its page changed"
git -C "$R" show --name-only --format= HEAD >"$T/files"
grep -q '^verdicts/[0-9a-f]\{64\}\.json$' "$T/files" && grep -q '^summaries/[0-9a-f]\{64\}\.json$' "$T/files" &&
	grep -q '^summaries/[0-9a-f]\{64\}\.samples\.json$' "$T/files" && [ "$(wc -l <"$T/files")" = 5 ] &&
	ok "the commit: the bundle, its envelope, its summary and samples, the night's verdicts" || { not_ok "commit contents"; show "$T/files"; }
[ -z "$(git -C "$R" ls-files site)" ] && grep -qx '/site/' "$R/.git/info/exclude" && ok "the site is not in the history" || not_ok "site committed"
# (put back by copy: git checkout decides from the file's stat whether to write it, and a byte changed in place
# within the second of the last commit can look unchanged to it)
cp "$T/p1.orig" "$P1"

# --repo typed relative: the new run's page links its bundle relative to the page
(cd "$T" && "$BENCH" publish --repo results "$T/runs/hist-b-20261104T020000Z-d4.bench.tar.gz" >/dev/null 2>&1) || not_ok "publish with a relative --repo"
B4=hist-b-20261104T020000Z-d4
grep -q "\.\./\.\./runs/hist-b/nightly/$B4\.bench\.tar\.gz" "$R/site/runs/$B4.html" && ! grep -q "results/runs" "$R/site/runs/$B4.html" &&
	ok "a run page links its bundle relative to itself" || { not_ok "run page links"; grep -o '[^ >]*runs/hist-b[^ <]*' "$R/site/runs/$B4.html" | head -3; }

# a repository from before summaries, its site removed: the next publish summarises every bundle once, writes
# every page again and the night's verdicts
rm -rf "$R/summaries" "$R/site"
A5=$T/runs/hist-a-20261105T020000Z-d5
cp -r "$T/runs/hist-a-20261104T020000Z-d4" "$A5" && rm -f "$A5/status.json.lock" &&
	python3 -c "import json,sys; p=sys.argv[1]+'/status.json'; s=json.load(open(p)); s['started']='2026-11-05'+s['started'][10:]; json.dump(s,open(p,'w'))" "$A5" &&
	"$BENCH" pack "$A5" >/dev/null 2>&1
expect 0 "publish into a repository without summaries nor site" "$BENCH" publish --repo "$R" "$A5.bench.tar.gz"
[ "$(ls "$R"/summaries/*.samples.json | wc -l)" = 9 ] && [ "$(ls "$R"/site/runs/*.html | wc -l)" = 9 ] &&
	grep -q '(5 runs)' "$R/site/index.html" && grep -q '(4 runs)' "$R/site/index.html" &&
	ok "9 summaries, 9 pages, the index whole again" || { not_ok "migration"; ls "$R/summaries" "$R/site/runs" | head -30; }
[ -z "$(git -C "$R" status --porcelain)" ] && ok "the work tree is clean" || { git -C "$R" status --porcelain >"$T/st"; not_ok "uncommitted"; show "$T/st"; }
finish
