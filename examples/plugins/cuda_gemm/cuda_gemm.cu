/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cuda_gemm.cu — a native GEMM plug-in in CUDA C (docs/plugins.md, "gemm (native)"; runners/gemm/plugin.h): a plain
 * shared-memory tiled kernel, 64 x 64 outputs per block of 256 threads, 4 x 4 per thread, K in tiles of 16, products
 * accumulated in fp32, C written in the case's output type. bf16, fp16 and fp32; layouts tn and nn. Written to be
 * read, not to be fast: it is an example of the ABI, measured beside cuBLASLt by examples/plugins/cuda_gemm/h200.yaml
 * (tests/gpu/native-plugin-h200.sh).
 *
 * Ownership: nothing is allocated; the kernel is enqueued on args->stream and the call returns at once (bench-gemm
 * times it with events on that stream and synchronises itself).
 *
 * Build (the Makefile beside this file does the same):
 *   nvcc -O3 -arch=sm_90 -cudart shared -shared -Xcompiler -fPIC -I../../../runners/gemm -o libcudagemm.so cuda_gemm.cu
 * -DWRONG builds a broken variant that skips the first K tile: bench-gemm's check must fail it.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>

extern "C" {
#include "plugin.h"
}

#define BM 64
#define BN 64
#define BK 16
#define THREADS 256

static char last_error[256];

__device__ __forceinline__ float load_f(const float *p) { return *p; }
__device__ __forceinline__ float load_f(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
__device__ __forceinline__ float load_f(const __half *p) { return __half2float(*p); }
__device__ __forceinline__ void store_f(float *p, float v) { *p = v; }
__device__ __forceinline__ void store_f(__nv_bfloat16 *p, float v) { *p = __float2bfloat16(v); }
__device__ __forceinline__ void store_f(__half *p, float v) { *p = __float2half(v); }

/* C[M x N] = A[M x K] op(B); tn: B is N x K (C = A B^T), nn: B is K x N. Row-major, leading dimensions given.
 * skip_k0 >= 0 leaves out the K tile that starts there (the -DWRONG variant). */
template <typename T, bool TN>
__global__ void __launch_bounds__(THREADS) gemm_tiled(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
						      long long m, long long n, long long k, long long lda, long long ldb,
						      long long ldc, long long skip_k0)
{
	__shared__ float as[BK][BM + 1]; /* as[kk][row]: A's tile, transposed */
	__shared__ float bs[BK][BN + 1]; /* bs[kk][col]: op(B)'s tile */
	const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	const long long m0 = (long long)blockIdx.y * BM, n0 = (long long)blockIdx.x * BN;
	float acc[4][4] = {};

	for (long long k0 = 0; k0 < k; k0 += BK) {
		for (int i = threadIdx.x; i < BM * BK; i += THREADS) {
			int r = i / BK, kk = i % BK; /* consecutive threads along K: coalesced reads of row-major A */
			long long gm = m0 + r, gk = k0 + kk;

			as[kk][r] = gm < m && gk < k ? load_f(a + gm * lda + gk) : 0.0f;
		}
		for (int i = threadIdx.x; i < BN * BK; i += THREADS) {
			if (TN) { /* B row-major N x K: along K is contiguous */
				int r = i / BK, kk = i % BK;
				long long gn = n0 + r, gk = k0 + kk;

				bs[kk][r] = gn < n && gk < k ? load_f(b + gn * ldb + gk) : 0.0f;
			} else { /* B row-major K x N: along N is contiguous */
				int kk = i / BN, r = i % BN;
				long long gn = n0 + r, gk = k0 + kk;

				bs[kk][r] = gn < n && gk < k ? load_f(b + gk * ldb + gn) : 0.0f;
			}
		}
		__syncthreads();
		if (k0 != skip_k0) {
#pragma unroll
			for (int kk = 0; kk < BK; kk++) {
				float av[4], bv[4];

#pragma unroll
				for (int i = 0; i < 4; i++) {
					av[i] = as[kk][ty + 16 * i];
					bv[i] = bs[kk][tx + 16 * i];
				}
#pragma unroll
				for (int i = 0; i < 4; i++)
#pragma unroll
					for (int j = 0; j < 4; j++)
						acc[i][j] += av[i] * bv[j];
			}
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 4; j++) {
			long long gm = m0 + ty + 16 * i, gn = n0 + tx + 16 * j;

			if (gm < m && gn < n)
				store_f(c + gm * ldc + gn, acc[i][j]);
		}
}

template <typename T>
static cudaError_t launch(const struct bench_gemm_args *x)
{
	dim3 grid((unsigned)((x->n + BN - 1) / BN), (unsigned)((x->m + BM - 1) / BM));
#ifdef WRONG
	const long long skip = 0;
#else
	const long long skip = -1;
#endif

	if (x->layout == BENCH_GEMM_TN)
		gemm_tiled<T, true><<<grid, THREADS, 0, (cudaStream_t)x->stream>>>(
			(const T *)x->a, (const T *)x->b, (T *)x->c, x->m, x->n, x->k, x->lda, x->ldb, x->ldc, skip);
	else
		gemm_tiled<T, false><<<grid, THREADS, 0, (cudaStream_t)x->stream>>>(
			(const T *)x->a, (const T *)x->b, (T *)x->c, x->m, x->n, x->k, x->lda, x->ldb, x->ldc, skip);
	return cudaGetLastError();
}

extern "C" int bench_gemm_plugin(const struct bench_gemm_args *x)
{
	cudaError_t e;

	if (x->device != BENCH_GEMM_CUDA) {
		snprintf(last_error, sizeof(last_error), "this plug-in runs on a CUDA device only (device %d)", x->device);
		return 1;
	}
	if (x->dtype != x->c_dtype || x->m > 65535LL * BM) {
		snprintf(last_error, sizeof(last_error), "dtype %d -> %d or M = %lld not supported (bf16, fp16, fp32)",
			 x->dtype, x->c_dtype, x->m);
		return 2;
	}
	switch (x->dtype) {
	case BENCH_GEMM_BF16: e = launch<__nv_bfloat16>(x); break;
	case BENCH_GEMM_FP16: e = launch<__half>(x); break;
	case BENCH_GEMM_FP32: e = launch<float>(x); break;
	default:
		snprintf(last_error, sizeof(last_error), "dtype %d not supported (bf16, fp16, fp32)", x->dtype);
		return 2;
	}
	if (e != cudaSuccess) {
		snprintf(last_error, sizeof(last_error), "kernel launch: %s", cudaGetErrorString(e));
		return 3;
	}
	return 0;
}

extern "C" const char *bench_gemm_plugin_error(void)
{
	return last_error[0] ? last_error : NULL;
}
