#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 29's NCCL part, as far as one H200 goes: NCCL built by bench on the machine from a git ref (a local clone of
# NVIDIA/nccl, carried as .gpucarry/nccl.git, referenced by file://, tag $REF) into its content-addressed prefix
# (the build timed, a second build a no-op), beside the system's NCCL and the one PyTorch's wheel carries, as three
# host stacks (manifests/host-nccl-dev.yaml, host-nccl-system.yaml, with one GPU). With one rank a collective moves
# no data between GPUs: the run shows which NCCL each stack loaded (version, path, sha256 in every record) and the
# build, not bus bandwidth; two GPUs compare the stacks (gpus_per_node: 2, the manifests as shipped). bench now
# refuses a one-rank collective at validate: on one GPU this script ran at 86afd6a (docs/results/2026-12-01-host-stacks.md).
# Carry .gpucarry (the bench build of tests/gpu/prepare-carry.sh as carry.tar.xz, and nccl.git).
set -eu
FINAL=${OUT:-gpu-out}
OUT=$(mktemp -d)
REF=${REF:-v2.29.7-1}
mkdir -p "$FINAL"
here=$(pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export BENCH_HOME="$here/.bench-home" BENCH_DATA="$here" BENCH_RUNNERS="$here/build/runners"
BENCH="$here/.carry/bench/bench"
rm -f build/runners/bench-coll
make build/runners/bench-coll HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 \
	JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" \
	JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" >"$OUT/runner-build.log" 2>&1 ||
	{ tail -30 "$OUT/runner-build.log"; exit 1; }
readelf -d build/runners/bench-coll | grep -E 'NEEDED.*nccl|RPATH|RUNPATH'
SP=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
M="$OUT/manifests"
mkdir -p "$M"
one() { sed -e 's/gpus_per_node: 2/gpus_per_node: 1/' -e 's/ops: \[all_reduce, all_gather, reduce_scatter\]/ops: [all_reduce]/' \
	-e 's/max_bytes: 1GiB/max_bytes: 64MiB/' "$@"; }
one manifests/host-nccl-dev.yaml | sed -e "s|git: \"https://github.com/NVIDIA/nccl.git\"|git: \"file://$here/.gpucarry/nccl.git\"|" \
	-e "s|ref: v2.27.7-1|ref: $REF|" >"$M/dev.yaml"
one manifests/host-nccl-system.yaml >"$M/system.yaml"
one manifests/host-nccl-system.yaml | sed -e 's/host-nccl-system/host-nccl-wheel/' \
	-e "s|path: /usr/lib/x86_64-linux-gnu,|path: $SP/nvidia/nccl,|" >"$M/wheel.yaml"
for m in dev system wheel; do "$BENCH" lock "$M/$m.yaml" >/dev/null; done
t0=$(date +%s.%N)
"$BENCH" build "$M/dev.yaml"
t1=$(date +%s.%N)
"$BENCH" build "$M/dev.yaml"
t2=$(date +%s.%N)
echo "first build $(python3 -c "print(round($t1 - $t0, 1))") s, second $(python3 -c "print(round($t2 - $t1, 3))") s"
set +e
"$BENCH" run -q -o "$OUT/runs" --rounds 1 "$M/system.yaml" "$M/wheel.yaml" "$M/dev.yaml" >"$OUT/run.out" 2>"$OUT/run.err"
echo "bench run: exit $?"
set -e
tail -5 "$OUT/run.err"
cd "$OUT"
python3 - <<'PY' | tee loaded.txt
import glob, json
for d in sorted(glob.glob("runs/*/")):
    env = json.load(open(d + "env/environment.json"))
    hs = env.get("host_stack", {}).get("components", {}).get("nccl", {})
    b = hs.get("build") or {}
    recs = [json.loads(l) for l in open(d + "results/collectives.jsonl")]
    nccl = {(l["path"], l.get("version"), (l.get("sha256") or "")[:16], l.get("component")) for r in recs for l in r["loaded"] if l["soname"].startswith("libnccl")}
    print(d.split("/")[1][:36], "| records:", len(recs), sum(r["status"] == "ok" for r in recs), "ok | nccl:", sorted(nccl),
          "| build:", b.get("commit", "")[:12], b.get("seconds"))
PY
cp "$BENCH_HOME"/stacks/*/build.log "$OUT/nccl-build.log" 2>/dev/null || true
tar czf "$FINAL/nccl.tar.gz" .
