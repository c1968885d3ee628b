#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench publish over a long nightly history (issue #33): the cost of publishing the next nightly into a results
# repository that already holds N of them, for N in $SIZES (default 10 100 300 1000 1460: up to a year of nightlies
# on 4 machines), 100 cases per run, 20 samples per record. Prints one row per size: the publish's wall time and
# peak RSS (/usr/bin/time -v), the dashboard's size, the repository's size (.git and work tree), then a fit of
# the publish time and RSS as a + b*N + c*N^2 and the repository's growth per nightly.
#
# The history is made the way tests/cli/t0860-dashboard.sh makes its runs, but cheaply: ONE real fake-runner run
# (tests/fake/fake-runner.py, FAKE_MODE=noisy, 100 GEMM cases, FAKE_N=20 samples), cloned into dated nightlies
# (its name, status.json's start, the machine in env/environment.json, every sample scaled by a small drift), each
# clone signed with `bench pack` under a key of its own. Clones and bundles are cached under $CACHE (default
# /tmp/bench-nightly-scale) and reused; the repository grows incrementally (history N is history N-1 plus one
# publish), so a second call with larger SIZES only adds what is missing. Run it niced on a shared machine:
#   make -j2 && nice -n 10 docs/results/nightly-scale.sh
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=${BENCH:-$ROOT/bench}
CACHE=${CACHE:-/tmp/bench-nightly-scale}
SIZES=${SIZES:-10 100 300 1000 1460}
MACHINES=4
max=0
for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
export BENCH_HOME="$CACHE/home"
mkdir -p "$CACHE/runs" "$BENCH_HOME"

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

# 2. the clones: nightly k (0-based) is machine k % 4 on day k / 4 from 2025-01-01, packed (cached)
python3 - "$SEED" "$CACHE/runs" "$max" "$MACHINES" <<'PY'
import datetime, json, os, random, shutil, sys
seed, out, n, machines = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
names = ["NVIDIA H200", "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X", "NVIDIA B200"]
base = os.path.basename(seed)
prefix = base.split("-2")[0]  # scale-gemm
for k in range(n):
    day = datetime.date(2025, 1, 1) + datetime.timedelta(days=k // machines)
    m = k % machines
    name = "%s-%sT02%02d00Z-m%d%04d" % (prefix, day.strftime("%Y%m%d"), m, m, k)
    d = os.path.join(out, name)
    if os.path.exists(d + ".done"):
        continue
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
PY
# sort by name's date, then machine: the order nightlies arrive in
ls -d "$CACHE"/runs/*/ | sed 's,/$,,' | awk -F/ '{print $NF"\t"$0}' | sort | cut -f2 | head -n "$max" >"$CACHE/order.txt"
# pack_upto N: the first N clones packed (lazily: a size is measured as soon as its history exists)
pack_upto() {
	head -n "$1" "$CACHE/order.txt" | while read -r d; do
		[ -f "$d.bench.tar.gz" ] || "$BENCH" pack "$d" >/dev/null
	done
}

# 3. the repository, grown one publish at a time; measured at each size
R="$CACHE/repo"
[ -f "$CACHE/repo.count" ] || { rm -rf "$R"; echo 0 >"$CACHE/repo.count"; }
have=$(cat "$CACHE/repo.count")
printf '| nightlies N | publish of the N-th: wall s | CPU s (user+sys) | peak RSS MB | dashboard KB | .git MB | work tree MB (site, runs, summaries) |\n'
printf '|---|---|---|---|---|---|---|\n'
: >>"$CACHE/table.tsv" # the sizes measured so far, kept with the cache: a later call adds its rows and fits them all
for n in $SIZES; do
	if [ "$have" -ge "$n" ]; then
		echo "# size $n: the repository already holds $have nightlies; rm $CACHE/repo.count to measure again" >&2
		continue
	fi
	pack_upto "$n"
	# the history before: nightlies have+1 .. n-1, published in batches of 25
	sed -n "$((have + 1)),$((n - 1))p" "$CACHE/order.txt" | sed 's/$/.bench.tar.gz/' | xargs -r -n 25 "$BENCH" publish --repo "$R" >/dev/null
	# the measured one: the n-th
	b=$(sed -n "${n}p" "$CACHE/order.txt").bench.tar.gz
	/usr/bin/time -v -o "$CACHE/time.txt" "$BENCH" publish --repo "$R" "$b" >/dev/null
	have=$n
	echo "$have" >"$CACHE/repo.count"
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$CACHE/time.txt")
	cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$CACHE/time.txt")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$CACHE/time.txt")
	dash=$(($(wc -c <"$R/site/dashboard.html") / 1024))
	git=$(du -sm "$R/.git" | cut -f1)
	wt=$(du -sm --exclude=.git "$R" | cut -f1)
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$wall" "$cpu" "$rss" "$dash" "$git" "$wt"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$wall" "$rss" "$(du -sk "$R/.git" | cut -f1)" "$(du -sk --exclude=site "$R" | cut -f1)" "$cpu" >>"$CACHE/table.tsv"
done
# 4. the fit: publish time and RSS as a + b*N + c*N^2 (least squares), the repository's growth per nightly
python3 - "$CACHE/table.tsv" <<'PY'
import sys
rows = [list(map(float, l.split("\t"))) for l in open(sys.argv[1]) if len(l.split("\t")) == 6]
if len(rows) < 3:
    print("\n(fewer than 3 sizes measured in this call: no fit)")
    sys.exit(0)
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
for name, col, unit in (("publish wall", 1, "s"), ("publish CPU", 5, "s"), ("peak RSS", 2, "MB")):
    a, b, c = fit(ns, [r[col] for r in rows], 2)
    print("\n%s = %.3g + %.3g*N + %.3g*N^2 %s (at N=1460: b*N = %.3g, c*N^2 = %.3g)" % (name, a, b, c, unit, b * 1460, c * 1460 ** 2))
for name, col in ((".git", 3), ("work tree without site/", 4)):
    a, b = fit(ns, [r[col] for r in rows], 1)
    print("%s grows %.1f KB per nightly (linear fit over the sizes)" % (name, b))
PY
