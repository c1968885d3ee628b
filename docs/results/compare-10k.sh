#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# compare-10k.sh — the compare bar of issue #7: two signed bundles of 10,000 records each (50 samples per
# record, the second 2% slower with noise), packed and compared. Prints the wall time of `bench compare`.
# Usage: docs/results/compare-10k.sh [BENCH]     (BENCH defaults to ./bench; needs python3)
set -eu
BENCH=${1:-./bench}
WORK=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
export BENCH_HOME="$WORK/home"
python3 - "$WORK" <<'PY'
import json, os, random, sys
root = sys.argv[1]
for name, scale, seed in (("A", 1.0, 1), ("B", 1.02, 2)):
    rng = random.Random(seed)
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "results"))
    with open(os.path.join(d, "status.json"), "w") as f:
        json.dump({"cases": [{"suite": "gemm", "case": "c%d" % c, "status": "ok"} for c in range(10000)]}, f)
    with open(os.path.join(d, "manifest.yaml"), "w") as f:
        f.write("# synthetic: 10,000 generated records (docs/results/compare-10k.sh)\n")
    with open(os.path.join(d, "plan.json"), "w") as f:
        json.dump({"schema": "bench.plan/v1", "name": name, "channel": "stable", "vendor": "cpu", "ranks": 1,
                   "suites": {}, "cases": []}, f)
    with open(os.path.join(d, "results", "gemm.jsonl"), "w") as f:
        for c in range(10000):
            s = [round(scale * rng.gauss(1.0, 0.01), 6) for _ in range(50)]
            med = sorted(s)[25]
            f.write(json.dumps({"schema": "bench.result/v1", "suite": "gemm", "case": "c%d" % c, "params": {},
                                "status": "ok", "metric": "tflops", "unit": "TFLOP/s", "value": 1.0 / med,
                                "stats": {}, "samples_ms": s, "extra": {}, "error": None}) + "\n")
PY
"$BENCH" keygen >/dev/null
"$BENCH" pack "$WORK/A" >/dev/null
"$BENCH" pack "$WORK/B" >/dev/null
start=$(date +%s.%N)
"$BENCH" compare -k "$BENCH_HOME/signing.pub.pem" "$WORK/A.bench.tar.gz" "$WORK/B.bench.tar.gz" >"$WORK/out.txt"
end=$(date +%s.%N)
grep -c ' same\| slower\| faster' "$WORK/out.txt" | sed 's/^/cases with a verdict: /'
echo "bench compare of 2 x 10,000 records: $(echo "$end - $start" | bc) s on $(nproc) cores"
