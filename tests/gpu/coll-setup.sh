# Sourced by the collectives scripts in tests/gpu/: their variables, the multicast switches the two-GPU
# machines need, and nccl-tests (from its public source in $NCCL_TESTS, never committed) and bench's runners
# built for Hopper.
set -u
OUT=${OUT:-gpu-out}
BENCH=${BENCH:-./bench}
NT=${NCCL_TESTS:?set NCCL_TESTS to an nccl-tests source tree}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$OUT"
make -j16 -C "$NT" MPI=0 CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} NCCL_HOME=${NCCL_HOME:-/usr} \
	NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 >/tmp/nt-build.log 2>&1 || { tail -20 /tmp/nt-build.log; exit 1; }
make runners NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 >/tmp/runners-build.log 2>&1 || { tail -20 /tmp/runners-build.log; exit 1; }
