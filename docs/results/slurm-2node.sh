#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The transcript of docs/results/2026-11-30-slurm-2node.md: a two-node Slurm cluster on this machine
# (tests/setup/slurm.sh), then `bench run manifests/slurm-2node-cpu.yaml`, the generated batch script, the
# job log, and the records' node fields. Run from a source checkout as root.
set -eu
cd "$(dirname "$0")/../.."
export BENCH_HOME=${BENCH_HOME:-$(mktemp -d)} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=$(mktemp -d)
x() { echo "\$ $*"; "$@"; echo; }
x sh tests/setup/slurm.sh up
x ./bench run -o "$W/runs" manifests/slurm-2node-cpu.yaml
D=$(ls -d "$W"/runs/slurm-2node-cpu-*/ | head -n 1)
x cat "$D/slurm/collectives.sbatch"
x cat "$D/logs/collectives.log"
x python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); e = r["extra"]
    print(r["case"], r["status"], "busbw %.3f GB/s" % r["value"], "nodes", e["nodes"], e["node_names"], "ranks", e["nranks"], "wrong", e["wrong"])' "$D/results/collectives.jsonl"
x ./bench verify "${D%/}.bench.tar.gz"
x sh tests/setup/slurm.sh down
