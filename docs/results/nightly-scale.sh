#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench publish over a long nightly history (issue #33): the cost of publishing the next nightly into a results
# repository that already holds N of them, for N in $SIZES (default 10 100 300 1000 1460: up to a year of nightlies
# on 4 machines), 100 cases per run, 20 samples per record; then `bench ls` of $LS_N (default 1000) signed bundles.
# Prints one row per size: the publish's wall time, CPU time (user + sys) and peak RSS, the dashboard's size, the
# repository's size (.git and work tree); then a fit of the publish time and RSS as a + b*N + c*N^2, the growth per
# nightly (time and RSS between the two largest sizes, the repository's as a linear fit) and the ls timings.
#
#   docs/results/nightly-scale.sh                   every nightly of the history really published (slow: one
#                                                   publish, with its verdicts' bootstrap, per nightly)
#   docs/results/nightly-scale.sh --fast-history    the first $REAL (default 100) nightlies really published; for a
#                                                   larger N the history is extended to N-2 by summaries made from
#                                                   the real ones (docs/results/nightly-scale-extend.py says what is
#                                                   real and what is fabricated), then nightly N-1 is published
#                                                   (a real signed bundle: it writes the quarters' archive pages,
#                                                   once) and nightly N is the one measured (a real signed bundle).
#                                                   The .git and work tree columns then hold the real nightlies and
#                                                   the fabricated summaries only: the repository's growth is fitted
#                                                   over the fully real rows.
#
# The history is made the way tests/cli/t0860-dashboard.sh makes its runs, but cheaply: ONE real fake-runner run
# (tests/fake/fake-runner.py, FAKE_MODE=noisy, 100 GEMM cases, FAKE_N=20 samples), cloned into dated nightlies
# (its name, status.json's start, the machine in env/environment.json, every sample scaled by a small drift), each
# clone signed with `bench pack` ($JOBS at a time, default nproc). Clones, bundles and the repositories are cached
# under $CACHE (default /tmp/bench-nightly-scale) and reused; the real repository grows incrementally (history N is
# history N-1 plus publishes), so a second call with larger SIZES only adds what is missing. Needs the bench build
# ($BENCH, default ./bench), python3 and POSIX sh tools (no GNU time, no git command). On a shared machine:
#   make -j2 && nice -n 10 docs/results/nightly-scale.sh
# the bar's machine (2 cores): taskset -c 0,1 docs/results/nightly-scale.sh --fast-history
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=${BENCH:-$ROOT/bench}
CACHE=${CACHE:-/tmp/bench-nightly-scale}
SIZES=${SIZES:-10 100 300 1000 1460}
REAL=${REAL:-100}
LS_N=${LS_N:-1000}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
FAST=0
[ "${1:-}" = --fast-history ] && FAST=1
export BENCH_DATA="${BENCH_DATA:-$ROOT}"
MACHINES=4
max=$LS_N
for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
export BENCH_HOME="$CACHE/home"
mkdir -p "$CACHE/runs" "$BENCH_HOME"

# measure OUT CMD...: runs CMD (its stdout to OUT), writes "wall_s cpu_s peak_rss_mb" of it to $CACHE/measure.txt
# (wait4's rusage: no GNU time needed)
measure() {
	python3 - "$@" >"$CACHE/measure.txt" <<'PY'
import os, subprocess, sys, time
t = time.monotonic()
p = subprocess.Popen(sys.argv[2:], stdout=open(sys.argv[1], "w"))
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t
if status != 0:
    sys.exit("measure: %s failed (wait status %d)" % (sys.argv[2:], status))
print("%.2f %.2f %.1f" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024))
PY
}

# 1. one real run: 100 cases, 20 samples each
if [ ! -f "$CACHE/seed.done" ]; then
	rm -rf "$CACHE/seed" "$CACHE/fake"
	mkdir -p "$CACHE/fake"
	ln -sf "$ROOT/tests/fake/fake-runner.py" "$CACHE/fake/bench-gemm"
	{
		echo "bench: 1"
		echo "name: scale-gemm"
		echo "channel: nightly"
		echo "target: {vendor: cpu}"
		echo "runtime: {engine: host}"
		echo "pricing: {usd_per_gpu_hour: 3.5, source: test list price}"
		echo "suites:"
		printf '  gemm: {dtypes: [fp32], shapes: ['
		i=1
		while [ $i -le 100 ]; do printf '%s[%d, 64, 64]' "$([ $i = 1 ] || echo ', ')" $((i * 8)); i=$((i + 1)); done
		echo ']}'
	} >"$CACHE/m.yaml"
	BENCH_RUNNERS="$CACHE/fake" FAKE_MODE=noisy FAKE_N=20 FAKE_SEQ="$CACHE/seq" "$BENCH" run -q --no-pack -o "$CACHE/seed" "$CACHE/m.yaml" >"$CACHE/seed.out"
	sed -n 1p "$CACHE/seed.out" >"$CACHE/seed.done"
fi
SEED=$(cat "$CACHE/seed.done")

# 2. the clones: nightly k (0-based) is machine k % 4 on day k / 4 from 2025-01-01 ($JOBS processes)
python3 - "$SEED" "$CACHE/runs" "$max" "$MACHINES" "$JOBS" <<'PY'
import datetime, json, multiprocessing, os, random, shutil, sys
seed, out, n, machines, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
names = ["NVIDIA H200", "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X", "NVIDIA B200"]
prefix = os.path.basename(seed).split("-2")[0]  # scale-gemm
def clone(k):
    day = datetime.date(2025, 1, 1) + datetime.timedelta(days=k // machines)
    m = k % machines
    name = "%s-%sT02%02d00Z-m%d%04d" % (prefix, day.strftime("%Y%m%d"), m, m, k)
    d = os.path.join(out, name)
    if os.path.exists(d + ".done"):
        return
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(seed, d, symlinks=True)
    e = json.load(open(d + "/env/environment.json"))
    e["gpus"] = [{"index": 0, "name": names[m % len(names)], "driver": "1.0", "memory_mib": 143771}]
    json.dump(e, open(d + "/env/environment.json", "w"), indent=2)
    s = json.load(open(d + "/status.json"))
    s["started"] = day.isoformat() + s["started"][10:]
    json.dump(s, open(d + "/status.json", "w"), indent=2)
    rng = random.Random(k)
    drift = 1 + rng.gauss(0, 0.01) + (0.03 if k // machines % 97 == 96 else 0)
    for f in os.listdir(d + "/results"):
        if not f.endswith(".jsonl"):
            continue
        p = d + "/results/" + f
        lines = []
        for line in open(p):
            r = json.loads(line)
            if isinstance(r.get("samples_ms"), list):
                r["samples_ms"] = [x * drift * (1 + rng.gauss(0, 0.002)) for x in r["samples_ms"]]
                if isinstance(r.get("value"), (int, float)):
                    r["value"] = r["value"] / drift
            lines.append(json.dumps(r))
        open(p, "w").write("\n".join(lines) + "\n")
    open(d + ".done", "w").close()
with multiprocessing.Pool(max(1, jobs)) as p:
    p.map(clone, range(n), chunksize=16)
PY
# sort by name's date, then machine: the order nightlies arrive in
ls -d "$CACHE"/runs/*/ | sed 's,/$,,' | awk -F/ '{print $NF"\t"$0}' | sort | cut -f2 | head -n "$max" >"$CACHE/order.txt"
# pack LINES: the clones on those lines of order.txt (sed addresses) packed, $JOBS at a time (the first alone: it
# makes the signing key)
pack() {
	sed -n "$1" "$CACHE/order.txt" | while read -r d; do [ -f "$d.bench.tar.gz" ] || echo "$d"; done >"$CACHE/topack"
	[ -s "$CACHE/topack" ] || return 0
	"$BENCH" pack "$(sed -n 1p "$CACHE/topack")" >/dev/null
	sed 1d "$CACHE/topack" | xargs -r -P "$JOBS" -n 8 sh -c 'for d; do "$0" pack "$d" >/dev/null || exit 255; done' "$BENCH"
}
# publish_range REPO FROM TO: nightlies FROM..TO of order.txt published into REPO, in batches of 25
publish_range() {
	[ "$2" -le "$3" ] || return 0
	pack "$2,$3p"
	sed -n "$2,$3p" "$CACHE/order.txt" | sed 's/$/.bench.tar.gz/' | xargs -r -n 25 "$BENCH" publish --repo "$1" >/dev/null
}
# row N REPO MODE: the publish of nightly N into REPO measured, its row printed and kept in table.tsv
row() {
	b=$(sed -n "${1}p" "$CACHE/order.txt").bench.tar.gz
	pack "${1}p"
	measure /dev/null "$BENCH" publish --repo "$2" "$b"
	read -r wall cpu rss <"$CACHE/measure.txt"
	dash=$(($(wc -c <"$2/site/dashboard.html") / 1024))
	gitk=$(du -sk "$2/.git" | cut -f1)
	allk=$(du -sk "$2" | cut -f1)
	sitek=$(du -sk "$2/site" | cut -f1)
	wtk=$((allk - gitk - sitek))
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$wall" "$cpu" "$rss" "$dash" $((gitk / 1024)) \
		$(((allk - gitk) / 1024)) $((wtk / 1024)) "$3"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$wall" "$rss" "$gitk" "$wtk" "$cpu" "$3" >>"$CACHE/table.tsv"
}

# 3. the repository: real nightlies published in order, grown one size at a time; measured at each size
R="$CACHE/repo"
[ -f "$CACHE/repo.count" ] || { rm -rf "$R"; echo 0 >"$CACHE/repo.count"; }
have=$(cat "$CACHE/repo.count")
printf '| nightlies N | publish of the N-th: wall s | CPU s (user+sys) | peak RSS MB | dashboard KB | .git MB | work tree MB (with site) | work tree MB (without site) | history |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
: >>"$CACHE/table.tsv" # the sizes measured so far, kept with the cache: a later call adds its rows and fits them all
for n in $SIZES; do
	if [ "$FAST" = 1 ] && [ "$n" -gt "$REAL" ] && [ "$n" -gt $((have + 1)) ]; then
		# the real history (at least REAL nightlies), copied; extended to n-2 by made-up summaries; n-1 then n
		# really published
		if [ "$have" -lt "$REAL" ]; then
			publish_range "$R" $((have + 1)) "$REAL"
			have=$REAL
			echo "$have" >"$CACHE/repo.count"
		fi
		F="$CACHE/fast-$n"
		rm -rf "$F"
		cp -a "$R" "$F"
		python3 "$ROOT/docs/results/nightly-scale-extend.py" "$F" "$CACHE/order.txt" "$have" $((n - 2))
		publish_range "$F" $((n - 1)) $((n - 1))
		row "$n" "$F" "real $have + made up to $((n - 2)) + real"
		rm -rf "$F"
		continue
	fi
	if [ "$have" -ge "$n" ]; then
		echo "# size $n: the repository already holds $have nightlies; rm $CACHE/repo.count to measure again" >&2
		continue
	fi
	publish_range "$R" $((have + 1)) $((n - 1))
	row "$n" "$R" real
	have=$n
	echo "$have" >"$CACHE/repo.count"
done

# 4. the fit: publish time and RSS as a + b*N + c*N^2 (least squares), the growth per nightly
python3 - "$CACHE/table.tsv" <<'PY'
import sys
rows = {}
for l in open(sys.argv[1]):
    f = l.rstrip("\n").split("\t")
    if len(f) == 7:
        rows[(int(f[0]), f[6] == "real")] = [float(x) for x in f[:6]] + [f[6] == "real"]
rows = sorted(rows.values())
def solve(a, b):
    n = len(b)
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(a[r][i]))
        a[i], a[p], b[i], b[p] = a[p], a[i], b[p], b[i]
        for r in range(n):
            if r != i:
                f = a[r][i] / a[i][i]
                a[r] = [x - f * y for x, y in zip(a[r], a[i])]
                b[r] -= f * b[i]
    return [b[i] / a[i][i] for i in range(n)]
def fit(xs, ys, deg):
    m = [[sum(x ** (i + j) for x in xs) for j in range(deg + 1)] for i in range(deg + 1)]
    v = [sum(y * x ** i for x, y in zip(xs, ys)) for i in range(deg + 1)]
    return solve(m, v)
ns = [r[0] for r in rows]
if len(set(ns)) < 3:
    print("\n(fewer than 3 sizes measured: no fit)")
else:
    for name, col, unit in (("publish wall", 1, "s"), ("publish CPU", 5, "s"), ("peak RSS", 2, "MB")):
        a, b, c = fit(ns, [r[col] for r in rows], 2)
        print("\n%s = %.3g + %.3g*N + %.3g*N^2 %s (at N=%d: b*N = %.3g, c*N^2 = %.3g; growth per nightly b + 2cN = %.3g %s)"
              % (name, a, b, c, unit, ns[-1], b * ns[-1], c * ns[-1] ** 2, b + 2 * c * ns[-1], unit), end="")
    print()
    x, y = rows[-2], rows[-1]
    if y[0] > x[0]:
        print("between N=%d and N=%d: CPU %+.2g s, RSS %+.2g MB per nightly (the window is 90 to 181 days: the cost "
              "rises to about 4 x 181 nightlies and then stays)" % (x[0], y[0], (y[5] - x[5]) / (y[0] - x[0]),
                                                                  (y[2] - x[2]) / (y[0] - x[0])))
real = [r for r in rows if r[6]]
if len(real) >= 2:
    for name, col in ((".git", 3), ("work tree without site/", 4)):
        a, b = fit([r[0] for r in real], [r[col] for r in real], 1)
        print("%s grows %.1f KB per nightly (linear fit over the %d fully real sizes)" % (name, b, len(real)))
else:
    print("(repository growth: fewer than 2 fully real sizes)")
PY

# 5. bench ls of LS_N signed bundles (the first LS_N nightlies, packed): the first listing verifies every bundle and
# writes the cache ($BENCH_HOME/cache/ls), the next two read it
if [ "$LS_N" -gt 0 ]; then
	pack "1,${LS_N}p"
	L="$CACHE/ls-$LS_N"
	rm -rf "$L" "$BENCH_HOME/cache/ls"
	mkdir -p "$L"
	head -n "$LS_N" "$CACHE/order.txt" | while read -r d; do ln "$d.bench.tar.gz" "$d.bench.tar.gz.intoto.jsonl" "$L/"; done
	echo
	for what in "first (verifies every bundle, writes the cache)" "second (from the cache)" "third (from the cache)"; do
		measure "$CACHE/ls.out" "$BENCH" ls "$L"
		read -r wall cpu rss <"$CACHE/measure.txt"
		printf 'bench ls of %s bundles, %s: %s s wall, %s s CPU, %s MB; %s listed\n' "$LS_N" "$what" "$wall" "$cpu" "$rss" \
			"$(grep -c 'verified' "$CACHE/ls.out")"
	done
fi
