/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin.h — the C entry point of a native GEMM plug-in (docs/plugins.md, "gemm (native)"): a shared object named
 * by a gemm suite's `backends` entry {plugin: NAME, native: path/libx.so}, loaded by bench-gemm with dlopen and
 * measured like the cblas backend (same buffers, do_bench schedule, flush, FLOPs and check).
 *
 * Ownership: bench-gemm owns every buffer in struct bench_gemm_args and the struct itself; both are valid for the
 * duration of one call only. The plug-in allocates nothing it does not free again, or keeps it in its own static
 * state (a plug-in may cache between calls: the same problem is called thousands of times in a row). The string
 * bench_gemm_plugin_error() returns belongs to the plug-in and must stay valid until its next call.
 *
 * This header is the ABI: a plug-in includes it (it needs nothing else of bench) and is built, e.g.,
 *   cc -O2 -shared -fPIC -o libmygemm.so mygemm.c
 * The struct only ever grows at its end; `abi` says which version bench-gemm filled in.
 */
#ifndef BENCH_GEMM_PLUGIN_H
#define BENCH_GEMM_PLUGIN_H

#include <stddef.h>

#define BENCH_GEMM_PLUGIN_ABI 1

/* Element types, as the gemm suite's `dtypes` names them. */
enum bench_gemm_dtype {
	BENCH_GEMM_FP32 = 0,
	BENCH_GEMM_FP16 = 1,
	BENCH_GEMM_BF16 = 2,    /* stored as the upper 16 bits of an IEEE float (uint16_t) */
	BENCH_GEMM_FP8E4M3 = 3,
	BENCH_GEMM_FP8E5M2 = 4,
};

/* tn: nn.Linear's, C = A B^T with B stored N x K; nn: torch.matmul's, C = A B with B stored K x N. */
enum bench_gemm_layout { BENCH_GEMM_TN = 0, BENCH_GEMM_NN = 1 };

/* Where the pointers point. ABI 1: bench-gemm calls native plug-ins on its host path only. */
enum bench_gemm_device { BENCH_GEMM_HOST = 0, BENCH_GEMM_CUDA = 1, BENCH_GEMM_HIP = 2 };

struct bench_gemm_args {
	int abi;             /* BENCH_GEMM_PLUGIN_ABI of the bench-gemm that filled this in */
	int device;          /* enum bench_gemm_device */
	int dtype;           /* enum bench_gemm_dtype of A and B (host path: FP32 or BF16) */
	int c_dtype;         /* enum bench_gemm_dtype of C (host path: FP32 always, as cblas_sbgemm writes) */
	int layout;          /* enum bench_gemm_layout */
	long long m, n, k;
	const void *a;       /* M x K, row-major, leading dimension lda (= K) */
	const void *b;       /* tn: N x K row-major, ldb = K; nn: K x N row-major, ldb = N */
	void *c;             /* M x N row-major, ldc = N; overwritten (beta = 0) */
	long long lda, ldb, ldc;
	void *stream;        /* cudaStream_t / hipStream_t on a GPU; NULL on the host */
	void *workspace;     /* scratch the plug-in may use (NULL, 0 on the host path) */
	size_t workspace_bytes;
};

/* Computes C = A op(B) for args. On the host: synchronously, before returning. On a GPU: enqueued on args->stream
 * (bench-gemm times it with events on that stream). Returns 0 on success; any other value fails the case with it. */
int bench_gemm_plugin(const struct bench_gemm_args *args);

/* Optional: a one-line reason for the last non-zero return (NULL or absent: none). */
const char *bench_gemm_plugin_error(void);

#endif
