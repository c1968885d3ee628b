#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Bundle pack + verify throughput on 1 GiB of results, against sha256sum of the same data in the same run.
#   sh docs/results/bundle-throughput.sh [WORKDIR]      (needs /usr/bin/time; about 1 GiB free in WORKDIR)
# A quickstart run directory gets results/big.jsonl: 1 GiB of GEMM-like records, 200 random 6-digit sample
# times per line (close to the least compressible JSON a run writes), seeded, so every rerun packs the same bytes.
set -eu
cd "$(dirname "$0")/../.."
W=${1:-$(mktemp -d)}
export BENCH_HOME="$W/home"
if [ ! -s "$W/bigrun/results/big.jsonl" ]; then
	./bench run -q -o "$W/q" manifests/quickstart.yaml >/dev/null
	rm -rf "$W/bigrun"
	cp -r "$(ls -d "$W"/q/quickstart-*/ | head -n 1)" "$W/bigrun"
	python3 - "$W/bigrun/results/big.jsonl" <<'PY'
import json, random, sys
rnd = random.Random(20261130)
with open(sys.argv[1], "w") as f:
    n = 0
    while n < 1 << 30:
        rec = {"schema": "bench.result/v1", "suite": "gemm", "case": "blaslt/bf16/tn/%dx8192x1280/heuristic" % rnd.randrange(1, 16384),
               "samples_ms": [round(rnd.uniform(0.45, 0.6), 6) for _ in range(200)]}
        line = json.dumps(rec) + "\n"
        f.write(line[: (1 << 30) - n] if n + len(line) > 1 << 30 else line)
        n += len(line)
PY
fi
B="$W/bigrun.bench.tar.gz"
t() { label=$1; shift; /usr/bin/time -f "$label: %e s, peak RSS %M KiB" "$@" >/dev/null; }
cat "$W/bigrun/results/big.jsonl" >/dev/null   # warm the page cache for everyone
t "sha256sum (reference)" sha256sum "$W/bigrun/results/big.jsonl"
for level in 1 0; do
	t "pack --level $level" ./bench pack --level "$level" "$W/bigrun"
	echo "bundle at level $level: $(wc -c <"$B") bytes"
	t "verify (level $level bundle)" ./bench verify "$B"
done
