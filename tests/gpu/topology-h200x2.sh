#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Topology on a two-GPU H200 host (not run by `make test`), in one call: nccl-tests' sendrecv_perf (from its public
# source in .carry/nccl-tests, never committed: `git archive` of github.com/NVIDIA/nccl-tests into it) before and
# after bench's collectives with send_recv, pairs: all and group_sizes [1, 2] (tests/gpu/h200x2-topology.yaml), then
# an env_matrix run of all_reduce with NCCL_ALGO Ring and Tree, and the report (heat maps). bench and the jansson
# sysroot come from .carry (tests/gpu/prepare-carry.sh): the GPU machines have no -dev packages.
#   sh tests/gpu/topology-h200x2.sh     (everything lands in $OUT/t.tgz)
set -u
here=$(pwd); B=$here/.carry/bench/bench; NT=$here/.carry/nccl-tests
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 BENCH_HOME=$here/.bench-home BENCH_DATA=$here BENCH_RUNNERS=$here/build/runners
mkdir -p $OUT/t; nvidia-smi topo -m > $OUT/t/topo.txt 2>&1
(make -j32 -C "$NT" MPI=0 CUDA_HOME=/usr/local/cuda NCCL_HOME=$( [ -f /usr/local/cuda/include/nccl.h ] && echo /usr/local/cuda || echo /usr ) NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 > $OUT/t/nt-build.log 2>&1; echo "nt rc=$?") &
make build/runners/bench-coll HAVE_CBLAS=0 NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 JANSSON_CFLAGS="-I$here/.carry/sysroot/usr/include" JANSSON_LIBS="$here/.carry/sysroot/usr/lib/x86_64-linux-gnu/libjansson.a" > $OUT/t/coll-build.log 2>&1; echo "coll rc=$?"
wait
A="-b 16M -e 4G -f 4 -w 5 -n 100 -d bfloat16 -c 1 -g 2"
"$NT/build/sendrecv_perf" $A > $OUT/t/nt-sendrecv-1.txt 2>&1
timeout 150 "$B" run -o /tmp/tr tests/gpu/h200x2-topology.yaml > $OUT/t/run.txt 2>&1; echo "topo rc=$?"
"$NT/build/sendrecv_perf" $A > $OUT/t/nt-sendrecv-2.txt 2>&1
cat > /tmp/em.yaml <<'Y'
bench: 1
name: h200x2-envmatrix
channel: stable
target: {vendor: cuda, gpu: h200, nodes: 1, gpus_per_node: 2}
stack:
  env: {NCCL_NVLS_ENABLE: "0", TORCH_SYMM_MEM_DISABLE_MULTICAST: "1", NVSHMEM_DISABLE_NVLS: "1"}
runtime: {engine: host, launcher: local, timeout: 10m}
suites:
  collectives: {backend: nccl, ops: [all_reduce], min_bytes: 16MiB, max_bytes: 1GiB, factor: 4, dtype: bf16,
                placements: [out-of-place], warmup_iters: 5, iters: 50, env_matrix: {NCCL_ALGO: [Ring, Tree]}}
Y
timeout 90 "$B" run -o /tmp/tr /tmp/em.yaml > $OUT/t/em.txt 2>&1; echo "em rc=$?"
for d in /tmp/tr/*/; do cp "$d/results/collectives.jsonl" "$OUT/t/$(basename "$d").jsonl"; done
"$B" report -o $OUT/t/report /tmp/tr/*/ > $OUT/t/report.txt 2>&1
# energy: every ok record's extra.energy (the GPUs that ran the case, their median power summed)
python3 - $OUT/t/*.jsonl > $OUT/t/energy.txt <<'PY'
import json, sys
n = ok = 0
for f in sys.argv[1:]:
    for r in map(json.loads, open(f)):
        if r["status"] != "ok":
            continue
        n += 1
        e, t = r["extra"].get("energy", {}), r["extra"].get("telemetry", {})
        ok += bool(e.get("available"))
        print(f"{r['case']}: {r['value']:.1f} GB/s, {t.get('gpus')} GPU(s), {e.get('power_w', 0):.0f} W "
              f"(median per GPU {t.get('power_w_median', 0):.0f} W), {e.get('joules', 0):.4g} J/iteration, "
              f"{e.get('gb_per_joule', 0):.3f} GB/J, SM {t.get('sm_clock_mhz', {}).get('median', 0):.0f} MHz, "
              f"{t.get('samples')} samples{'' if e.get('available') else ' NO ENERGY: ' + str(e.get('why'))}")
print(f"{ok} of {n} ok records carry extra.energy")
PY
tail -1 $OUT/t/energy.txt
cd $OUT && tar -czf t.tgz t && rm -rf t
