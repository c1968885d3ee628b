/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemm.h — the GEMM problem as bench-gemm reads it from a case, the host reference check shared by the
 * backends, and the backends' entry points.
 *
 * Ownership: a backend keeps its buffers between cases (consecutive cases of one shape reuse them) and frees
 * them in its *_shutdown(). Records are filled in place; the caller emits them.
 */
#ifndef BENCH_GEMM_H
#define BENCH_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../common/dobench.h"
#include "../common/dtype.h"
#include "plugin.h"

struct gemm_problem {
	const char *backend;
	enum dtype dt;
	int tn;            /* 1: nn.Linear (C = A W^T), 0: torch.matmul (C = A B) */
	long long m, n, k;
	const char *algo;  /* heuristic | tuneN | default */
	int tune;
	int init;          /* enum rng_init */
	uint64_t seed;
	double warmup_ms, rep_ms;
	int flush;
	size_t flush_bytes; /* 0: auto */
	size_t workspace;   /* 0: auto */
	int check;
	const char *mode;   /* "steady" | "burst" | NULL: the backend's default (GPU steady, CPU burst) */
};

#define GEMM_CHECK_SAMPLES 64

/* The element types of a GEMM dtype's operands in torch terms: A (M x K: the activations, or the gradient) and
 * B (the weight W, N x K in tn, or B, K x N in nn). fp8e5m2 is fp8 training's backward-pass GEMM: A, the gradient,
 * in e5m2 and B, the weight, in e4m3 (cuBLASLt and hipBLASLt take e5m2 x e4m3 but not e5m2 x e5m2); every other
 * dtype is the same on both. fp8 GEMMs write bf16. */
static inline enum dtype gemm_a_dtype(enum dtype dt)
{
	return dt;
}

static inline enum dtype gemm_b_dtype(enum dtype dt)
{
	return dt == DT_FP8E5M2 ? DT_FP8E4M3 : dt;
}

/* Position s of the sampled outputs (corners first, then pseudo-random). */
void gemm_sample_pos(long long *i, long long *j, int s, const struct gemm_problem *p);
/* |c - ref| / (|ref| + sum |a_t b_t| / sqrt(k)), ref = sum a_t b_t over one row of A and one column of op(B), in
 * double: the error in units of the output's magnitude (|ref|, or the typical |ref| of random signs where ref
 * cancels to near zero). */
double gemm_rel_err(const float *arow, const float *bcol, long long k, float c);
/* Tolerance of that error for dtype dt and depth k: 4 x (the output type's unit roundoff + fp32 accumulation,
 * 2^-24 sqrt(k)); an output off by 1.1x or one missing 128-wide K tile exceeds it. */
double gemm_tolerance(enum dtype dt, long long k);
double gemm_tflops(double ms, void *problem);
/* Adds status/extra for a finished check: failed when max_err exceeds the tolerance. */
void gemm_record_check(json_t *rec, const struct gemm_problem *p, double max_err);

void gemm_cblas_run(json_t *rec, const struct gemm_problem *p);
/* The native plug-in being timed (one at a time per process): its entry point, its arguments, and the first
 * non-zero value it returned, which also ends the timing (gemm_plugin_call() then returns -1). */
struct gemm_plugin_call {
	int (*entry)(const struct bench_gemm_args *);
	struct bench_gemm_args args;
	int rc;
};
extern struct gemm_plugin_call gemm_plug;
/* one call of gemm_plug (a do_bench call function; ctx unused) */
int gemm_plugin_call(void *ctx);
/* args (plugin.h) zeroed, then filled for problem p: ABI, where the pointers point (enum bench_gemm_device), A's and
 * B's dtype and C's (enum bench_gemm_dtype), layout, M N K, the buffers and their row-major leading dimensions. */
void gemm_plugin_args_init(struct bench_gemm_args *args, const struct gemm_problem *p, int device, int dtype,
			   int c_dtype, const void *a, const void *b, void *c);
/* A native plug-in's entry point (plugin.h) on the host path: the cblas backend's buffers, schedule, flush and check
 * with the plug-in's call in place of cblas_sgemm. name: the plug-in's, for messages. */
void gemm_cblas_run_plugin(json_t *rec, const struct gemm_problem *p, const char *name,
			   int (*entry)(const struct bench_gemm_args *), const char *(*why)(void));
/* A case of a native plug-in (params "plugin", kind native; gemm_native.c): loaded and run in a child process, so
 * that a crash or a hang past the plug-in's timeout fails that case alone. On the host path (params "plugin_device"
 * absent or "host") the child is a fork of this process; on the GPU path ("gpu") it is this program executed afresh
 * on a cases file of this one case (root: the cases file's root, its "inputs" and "plugin_sha256"), since CUDA does
 * not survive a fork. */
void gemm_native_run(json_t **rec, const struct gemm_problem *p, json_t *root, const char *key, json_t *params);
/* The child's side of the GPU path: loads the plug-in and measures it in this process (cases file "native_child"). */
void gemm_native_run_here(json_t *rec, const struct gemm_problem *p, json_t *root, json_t *params);
json_t *gemm_cblas_info(void);
void gemm_cblas_shutdown(void);

#ifdef BENCH_GPU_GEMM
void gemm_blaslt_run(json_t *rec, const struct gemm_problem *p);
json_t *gemm_blaslt_info(char *why, size_t whylen);
/* A native plug-in's entry point (plugin.h) on the GPU path: the blaslt backend's device buffers (filled as for its
 * cases), its stream, workspace, do_bench schedule, flush, telemetry and check, with the plug-in's call in place of
 * the library's matmul. Call gemm_blaslt_info() first. */
void gemm_blaslt_run_plugin(json_t *rec, const struct gemm_problem *p, const char *name,
			    int (*entry)(const struct bench_gemm_args *), const char *(*why)(void));
void gemm_blaslt_shutdown(void);
#endif

#endif
