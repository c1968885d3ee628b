/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin.h — the C entry point of a native GEMM plug-in (docs/plugins.md, "gemm (native)"): a shared object named
 * by a gemm suite's `backends` entry {plugin: NAME, native: path/libx.so}, loaded by bench-gemm with dlopen in a
 * process of its own (one per case) and measured like the built-in of the target's device: on a CPU target like
 * the cblas backend (host buffers), on a GPU target like the blaslt backend (device buffers, its stream and
 * workspace, CUDA-event timing, L2 flush, steady warm-up, telemetry and energy) -- same inputs, do_bench schedule,
 * FLOPs (2MNK) and check.
 *
 * Ownership: bench-gemm owns every buffer in struct bench_gemm_args (host or device memory, see `device`), the
 * stream and the struct itself; all are valid for the duration of one call only (and, on a GPU, for the work that
 * call enqueues). Never free, synchronise-and-destroy or replace the stream. The plug-in allocates nothing it does not free again, or keeps it in its own static
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

/* Where the pointers a, b, c and workspace point. BENCH_GEMM_HOST: host memory (a CPU target). BENCH_GEMM_CUDA /
 * BENCH_GEMM_HIP: device memory of GPU 0 (the current device) in bench-gemm's CUDA / HIP runtime (a GPU target, a
 * bench-gemm built with a GPU toolkit). A plug-in that supports only one should return non-zero for the others. */
enum bench_gemm_device { BENCH_GEMM_HOST = 0, BENCH_GEMM_CUDA = 1, BENCH_GEMM_HIP = 2 };

struct bench_gemm_args {
	int abi;             /* BENCH_GEMM_PLUGIN_ABI of the bench-gemm that filled this in */
	int device;          /* enum bench_gemm_device */
	int dtype;           /* enum bench_gemm_dtype of A and B (host: FP32 or BF16; GPU: FP32, FP16, BF16, FP8E4M3,
	                      * or FP8E5M2 = A in e5m2 x B in e4m3, fp8 scales 1, layout TN only; on an MI300
	                      * (gfx942) the fp8 bytes are the fnuz variants, as hipBLASLt's) */
	int c_dtype;         /* enum bench_gemm_dtype of C (host: FP32 always, as cblas_sbgemm writes; GPU: the dtype,
	                      * BF16 for the fp8 dtypes) */
	int layout;          /* enum bench_gemm_layout */
	long long m, n, k;
	const void *a;       /* M x K, row-major, leading dimension lda (= K) */
	const void *b;       /* tn: N x K row-major, ldb = K; nn: K x N row-major, ldb = N */
	void *c;             /* M x N row-major, ldc = N; overwritten (beta = 0) */
	long long lda, ldb, ldc;
	void *stream;        /* GPU: the cudaStream_t / hipStream_t bench-gemm times on (events recorded on it around
	                      * each call; the L2 flush is enqueued on it before); NULL on the host */
	void *workspace;     /* GPU: device scratch the plug-in may use, the blaslt backend's (the suite's `workspace`,
	                      * default 32 MiB on CUDA, 76 MiB on ROCm), not zeroed between calls; NULL, 0 on the host */
	size_t workspace_bytes;
};

/* Computes C = A op(B) (beta 0: C's old contents are not an input) for args. On the host: synchronously, before
 * returning. On a GPU: enqueued on args->stream, asynchronously -- return once the kernels are launched; do not
 * synchronise the device or the stream (bench-gemm does that with its events; work on another stream is not timed
 * and the check may read C before it finishes), do not launch on the default stream. Library handles may be created
 * on the first call and kept (each case runs in a fresh process). Returns 0 on success; any other value fails the
 * case with it; a launch error or a fault on the GPU fails the case with the runtime's error. */
int bench_gemm_plugin(const struct bench_gemm_args *args);

/* Optional: a one-line reason for the last non-zero return (NULL or absent: none). */
const char *bench_gemm_plugin_error(void);

#endif
