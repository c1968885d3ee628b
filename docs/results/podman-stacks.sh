#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The podman transcript of docs/results/2026-11-30-podman-stacks.md: two CPU stacks from one local Debian
# base, locked, built, the GEMM suite run inside each, the bundles shown. Run from a source checkout as root.
#   sh docs/results/podman-stacks.sh > transcript.txt 2>&1
set -eu
cd "$(dirname "$0")/../.."
export BENCH_HOME=${BENCH_HOME:-$(mktemp -d)}
W=$(mktemp -d)
x() { echo "\$ $*"; "$@"; echo; }
x sh tests/setup/podman.sh
for s in openblas blis; do
	cp "manifests/cpu-$s.yaml" "$W/cpu-$s.yaml"
	x ./bench lock "$W/cpu-$s.yaml"
	x ./bench build --force "$W/cpu-$s.yaml"
	x ./bench run -o "$W/runs" "$W/cpu-$s.yaml"
done
for b in "$W"/runs/*.bench.tar.gz; do
	x ./bench verify "$b"
	x ./bench show "$b"
done
x python3 -c 'import json,sys,glob
for d in sorted(glob.glob(sys.argv[1] + "/runs/*/")):
    e = json.load(open(d + "env/environment.json"))["runners"]["gemm"]
    print(d.split("/")[-2], e.get("blas"), e["blas_loaded"])' "$W"
