#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds the runners on a CUDA machine and measures the native suites against their PyTorch references in one
# run (reference, ours, reference again). Results under $OUT (default ./gpu-out).
#   sh tests/gpu/native-h200.sh
# Needs: nvcc, cuBLASLt, python3 with torch and triton, jansson (set JANSSON_CFLAGS/JANSSON_LIBS if it has no
# pkg-config file), and a bench binary (BENCH, default ./bench) for the plan and `bench run`.
set -eu
OUT=${OUT:-gpu-out}
BENCH=${BENCH:-./bench}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$OUT/gpu.txt"
TMP=${TMPDIR:-/tmp}
make runners NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 >"$TMP/build.log" 2>&1 || { tail -30 "$TMP/build.log"; exit 1; }
"$BENCH" plan --json tests/gpu/h200-gemm.yaml >"$TMP/cases.json"
python3 tests/gpu/gemm_reference.py >"$OUT/ref1.json"
t0=$(date +%s%N)
build/runners/bench-gemm --config "$TMP/cases.json" >"$OUT/records.jsonl" 2>"$OUT/gemm.log"
t1=$(date +%s%N)
build/runners/bench-membw --config "$TMP/cases.json" >>"$OUT/records.jsonl" 2>>"$OUT/gemm.log"
python3 tests/gpu/gemm_reference.py >"$OUT/ref2.json"
echo "bench-gemm wall time for $(grep -c '"suite":"gemm"' "$OUT/records.jsonl") cases: $(( (t1 - t0) / 1000000 )) ms" | tee "$OUT/summary.md"
python3 tests/gpu/native-vs-torch.py "$OUT/records.jsonl" "$OUT/ref1.json" "$OUT/ref2.json" | tee -a "$OUT/summary.md"
