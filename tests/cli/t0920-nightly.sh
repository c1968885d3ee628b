#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A rolling nightly, as a scheduler runs it (tools/nightly.sh, docs/nightly.md): a fake nightly index that has
# day 1's build, then gains day 2's. Each night the scheduled command locks afresh ('date: today' pinned to
# BENCH_TODAY's build, recorded as date_resolved), runs against that lock (a fake runner importing the package:
# what it loaded must be what the lock pins) and publishes the bundle into a git results repository: two nights,
# two locks, two published runs with their nightlies. 'date: latest' takes the newest night; lock --check names
# a nightly that moved on; a night whose nightly is not on the index, or whose machine still has yesterday's build,
# fails with the step and exit code named and publishes nothing. The systemd units (systemd-analyze verify) and
# the scrontab line (its cron fields and #SCRON options) of contrib/ are checked.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NIGHTLY=$ROOT/tools/nightly.sh
I=$T/idx
# index DAY...: the nightly index holds demo-nightly 2.0.0.devDAY for each DAY (pure-Python wheels)
index() {
	python3 - "$I/simple" "$HERE" "$@" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from wheelindex import page, wheel
for day in sys.argv[3:]:
    wheel(sys.argv[1], "demo-nightly", f"2.0.0.dev{day}", ("py3", "none", "any"))
page(sys.argv[1])
PY
}
index 20261201
serve_dir "$I" simple/demo-nightly/
IDX="http://127.0.0.1:$port/simple"
# install LOCK: this machine's stack becomes the lock's demo-nightly wheel (what a container image built from the
# lock would hold; engine host runs what is installed)
install() {
	rm -rf "$T/site" && mkdir -p "$T/site"
	python3 - "$1" "$I" "$T/site" <<'PY'
import json, sys, urllib.parse, zipfile
c = json.load(open(sys.argv[1]))["components"]["demo.nightly"]
zipfile.ZipFile(sys.argv[2] + urllib.parse.unquote(urllib.parse.urlsplit(c["url"]).path)).extractall(sys.argv[3])
PY
}
manifest() { # NAME DATE
	cat >"$T/$1.yaml" <<Y
bench: 1
name: $1
channel: nightly
target: {vendor: cpu, gpus_per_node: 1}
stack:
  components:
    - {name: demo.nightly, pip: nightly, date: $2, index: "$IDX"}
runtime: {engine: host}
suites:
  gemm: {backends: [cblas], dtypes: [fp32], layouts: [nn], shapes: [[64, 64, 64]], warmup: 1ms, rep: 5ms}
Y
}
manifest roll today
manifest newest latest
fake_gemm
R=$T/results
# night DAY: the scheduled command, as the timer or scrontab runs it
night() {
	BENCH_TODAY=$1 BENCH=$BENCH PYTHONPATH=$T/site FAKE_IMPORT=demo_nightly BENCH_RUNNERS=$T/fake \
		expect "$2" "night of $1: bench-nightly exits $2" "$NIGHTLY" "$T/roll.yaml" "$R" "$T/runs"
}

# ---- night 1 ---------------------------------------------------------------------------------------------------
BENCH_TODAY=2026-12-01 expect 0 "lock 'date: today' on 2026-12-01" "$BENCH" lock "$T/roll.yaml"
expect_err "bench: lock: demo.nightly: pip nightly of today (2026-12-01) -> 2.0.0.dev20261201 (demo_nightly-2.0.0.dev20261201-py3-none-any.whl"
install "$T/roll.lock.json"
night 2026-12-01 0
RUN1=$(cat "$T/out")
cp "$T/roll.lock.json" "$T/night1.lock.json"
[ -d "$RUN1" ] && [ -f "$RUN1.bench.tar.gz" ] && ok "night 1: run directory and bundle ($RUN1)" || { not_ok "night 1 run"; show "$T/err"; }
expect_out "$T/runs/"
expect_err "bench: lock: no pin moved since '$T/roll.lock.json': kept as it is"
expect_err "bench: gc: removed 0 runs"
expect_err "bench: gc: removed 0 caches and images"
BENCH_TODAY=2026-12-01 expect 0 "lock --check the same day: nothing moved" "$BENCH" lock --check "$T/roll.yaml"

# ---- night 2: the index gains 2026-12-02 -----------------------------------------------------------------------
index 20261201 20261202
BENCH_TODAY=2026-12-01 expect 0 "lock --check with day 1 still today: nothing moved" "$BENCH" lock --check "$T/roll.yaml"
BENCH_TODAY=2026-12-02 expect 4 "lock --check on 2026-12-02: the nightly moved on" "$BENCH" lock --check "$T/roll.yaml"
expect_err "bench: moved: demo.nightly: nightly of today: 2026-12-01 -> 2026-12-02"
expect_err "bench: moved: demo.nightly: demo-nightly 2.0.0.dev20261201 -> 2.0.0.dev20261202"
# the machine still has day 1's build: the locked run fails (loaded-not-pinned), nothing is published
n0=$(git -C "$R" rev-list --count HEAD)
night 2026-12-02 7
expect_err "bench-nightly: run failed (exit 7): $T/runs/"
[ "$(git -C "$R" rev-list --count HEAD)" = "$n0" ] && ok "a failed night publishes nothing" || not_ok "a failed night was published"
install "$T/roll.lock.json"
night 2026-12-02 0
RUN2=$(cat "$T/out")
cp "$T/roll.lock.json" "$T/night2.lock.json"
[ -f "$RUN2.bench.tar.gz" ] && [ "$RUN2" != "$RUN1" ] && ok "night 2: a second run and bundle" || { not_ok "night 2 run"; show "$T/err"; }

# ---- both nights: their locks, their runs, both published --------------------------------------------------------
if python3 - "$T/night1.lock.json" "$T/night2.lock.json" "$RUN1" "$RUN2" <<'PY'
import json, sys
for lk, run, day in ((sys.argv[1], sys.argv[3], "20261201"), (sys.argv[2], sys.argv[4], "20261202")):
    c = json.load(open(lk))["components"]["demo.nightly"]
    iso = f"{day[:4]}-{day[4:6]}-{day[6:]}"
    assert c["date"] == "today" and c["date_resolved"] == iso, c
    assert c["version"] == f"2.0.0.dev{day}" and c["url"].endswith(f"demo_nightly-2.0.0.dev{day}-py3-none-any.whl"), c
    # the run recorded this night's lock, and the runner loaded this night's build
    assert json.load(open(run + "/manifest.lock.json"))["components"]["demo.nightly"] == c
    env = json.load(open(run + "/env/environment.json"))
    assert {"name": "demo-nightly", "version": f"2.0.0.dev{day}"} in [
        {k: p.get(k) for k in ("name", "version")} for p in env["loaded"]["bench-gemm"]["packages"]], env["loaded"]
PY
then ok "two locks, 2026-12-01 and 2026-12-02, each recorded in its run with the build it loaded"; else not_ok "locks and runs"; fi
for r in "$RUN1" "$RUN2"; do
	n=$(basename "$r")
	[ -f "$R/runs/roll/nightly/$n.bench.tar.gz" ] && [ -f "$R/site/runs/$n.html" ] && ok "published: $n" || not_ok "not published: $n"
done
[ "$(git -C "$R" rev-list --count HEAD)" = 2 ] && ok "the results repository has two commits, one a night" || not_ok "commits: $(git -C "$R" rev-list --count HEAD)"
mkdir -p "$T/x" && tar -xzf "$R/runs/roll/nightly/$(basename "$RUN2").bench.tar.gz" -C "$T/x" &&
	grep -rqs '"date_resolved": "2026-12-02"' "$T/x" && ok "the published bundle of night 2 holds its lock (date_resolved 2026-12-02)" ||
	not_ok "night 2's bundle lacks its lock"

# ---- date: latest; a night without its nightly; bad BENCH_TODAY ----------------------------------------------------
BENCH_TODAY=2026-12-01 expect 0 "lock 'date: latest' (whatever today is)" "$BENCH" lock "$T/newest.yaml"
expect_err "bench: lock: demo.nightly: pip nightly of latest (2026-12-02) -> 2.0.0.dev20261202 ("
grep -q '"date_resolved": "2026-12-02"' "$T/newest.lock.json" && ok "latest: date_resolved 2026-12-02" || not_ok "latest's date_resolved"
index 20261201 20261202 20261203
expect 4 "lock --check 'date: latest' once the index has 2026-12-03" "$BENCH" lock --check "$T/newest.yaml"
expect_err "bench: moved: demo.nightly: nightly of latest: 2026-12-02 -> 2026-12-03"
n0=$(git -C "$R" rev-list --count HEAD)
night 2026-12-04 4
expect_err "no wheel of demo.nightly nightly of 2026-12-04"
expect_err "bench-nightly: lock failed (exit 4)"
[ "$(git -C "$R" rev-list --count HEAD)" = "$n0" ] && ok "a night without its nightly publishes nothing" || not_ok "published"
BENCH_TODAY=2026-02-30 expect 1 "BENCH_TODAY that is not a date" "$BENCH" lock "$T/roll.yaml"
expect_err "bench: error: BENCH_TODAY must be a date YYYY-MM-DD, got '2026-02-30'"
SOURCE_DATE_EPOCH=1764892800 expect 4 "without BENCH_TODAY, today is SOURCE_DATE_EPOCH's UTC day (2025-12-05)" "$BENCH" lock "$T/roll.yaml"
expect_err "nightly of 2025-12-05"
expect 2 "bench-nightly without a results repository" "$NIGHTLY" "$T/roll.yaml"
kill "$srv" 2>/dev/null

# ---- the scheduler files ----------------------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$T/units"
	sed "s|/usr/local/bin/bench-nightly|$NIGHTLY|" "$ROOT/contrib/systemd/bench-nightly.service" >"$T/units/bench-nightly.service"
	cp "$ROOT/contrib/systemd/bench-nightly.timer" "$T/units/"
	if (cd "$T/units" && systemd-analyze verify ./bench-nightly.timer ./bench-nightly.service) >"$T/out" 2>"$T/err" && ! [ -s "$T/err" ]; then
		ok "systemd-analyze verify: the timer and the service"
	else not_ok "systemd-analyze verify"; show "$T/err"; fi
	systemd-analyze calendar "$(sed -n 's/^OnCalendar=//p' "$ROOT/contrib/systemd/bench-nightly.timer")" >"$T/out" 2>&1 &&
		grep -q '02:30:00 UTC' "$T/out" && ok "OnCalendar: every day at 02:30 UTC" || { not_ok "OnCalendar"; show "$T/out"; }
else
	ok "# SKIP systemd-analyze is not installed: the units are not verified"
fi
grep -q '^ExecStart=/usr/local/bin/bench-nightly ' "$ROOT/contrib/systemd/bench-nightly.service" && ok "the service runs bench-nightly" || not_ok "ExecStart"
if python3 - "$ROOT/contrib/slurm/bench-nightly.scrontab" <<'PY'
import re, shlex, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip() and not (l.startswith("#") and not l.startswith("#SCRON"))]
assert len(lines) == 2 and lines[0].startswith("#SCRON "), lines
known = {"--job-name", "--partition", "--nodes", "--gres", "--exclusive", "--time", "--output", "--account"}
for opt in shlex.split(lines[0])[1:]:
    assert opt.split("=")[0] in known, opt
assert re.fullmatch(r"\d+:\d\d:\d\d", [o for o in shlex.split(lines[0]) if o.startswith("--time=")][0][7:])
f = lines[1].split(None, 5)
for v, (lo, hi) in zip(f[:5], ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))):
    assert v == "*" or lo <= int(v) <= hi, (v, lo, hi)
cmd = shlex.split(f[5])
assert cmd[0].startswith("BENCH=") and cmd[1].endswith("/bench-nightly") and len(cmd) == 5, cmd
PY
then ok "scrontab: one #SCRON line of known sbatch options, five cron fields, bench-nightly MANIFEST REPO RUNS"; else not_ok "scrontab"; fi
finish
