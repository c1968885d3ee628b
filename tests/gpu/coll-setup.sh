# SPDX-License-Identifier: Apache-2.0
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
# nccl-tests built with MPI too (in $NT/build-mpi), the reference for our one-rank-per-GPU runs under mpirun:
# its Makefile wants MPI_HOME/include and MPI_HOME/lib, which Debian's and HPC-X's Open MPI lay out differently,
# so a directory of two links made from mpicc's own answer stands in.
NT_MPI=
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
	mkdir -p /tmp/mpihome
	ln -sfn "$(mpicc --showme:incdirs | cut -d' ' -f1)" /tmp/mpihome/include
	ln -sfn "$(mpicc --showme:libdirs | cut -d' ' -f1)" /tmp/mpihome/lib
	if make -j16 -C "$NT" MPI=1 MPI_HOME=/tmp/mpihome BUILDDIR="$NT/build-mpi" CUDA_HOME=${CUDA_HOME:-/usr/local/cuda} \
		NCCL_HOME=${NCCL_HOME:-/usr} NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 >/tmp/nt-mpi-build.log 2>&1; then
		NT_MPI=$NT/build-mpi
	else
		echo "nccl-tests with MPI did not build (no mpirun reference):"; tail -5 /tmp/nt-mpi-build.log
	fi
fi
MPIRUN_ROOT=; [ "$(id -u)" = 0 ] && MPIRUN_ROOT=--allow-run-as-root
