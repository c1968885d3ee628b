#!/bin/sh
# bench publish: three signed bundles give three commits (libgit2) and a site whose index lists them, each with
# its report; publishing one again is a no-op; a tampered bundle is refused without touching the repository.
. "$(dirname "$0")/lib.sh"
FAKE=$(cd "$(dirname "$0")/../fake" && pwd)/fake-runner.py
mkdir -p "$T/fake"
ln -s "$FAKE" "$T/fake/bench-gemm"
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
	chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$R/site/index.html" 2>/dev/null >"$T/dom.html"
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
printf 'x' | dd of="$D.bench.tar.gz" bs=1 seek=200 conv=notrunc 2>/dev/null
expect 8 "a tampered bundle is refused" "$BENCH" publish --repo "$R" "$D.bench.tar.gz"
expect_err "nothing was published"
[ "$(git -C "$R" rev-parse HEAD)" = "$head" ] && [ -z "$(git -C "$R" status --porcelain)" ] &&
	[ ! -e "$R/runs/nightly-gemm/nightly/$(basename "$D").bench.tar.gz" ] && ok "the repository is untouched" || not_ok "the repository changed"
expect 8 "nor with good ones beside it" "$BENCH" publish --repo "$T/other" "$A.bench.tar.gz" "$D.bench.tar.gz"
[ ! -e "$T/other" ] && ok "no repository was created" || not_ok "a repository was created"
expect 2 "--repo is required" "$BENCH" publish "$A.bench.tar.gz"
finish
