/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemm_blaslt.c — the GPU backend: cuBLASLt on CUDA, hipBLASLt on ROCm, one source. Only enum *names* are
 * used (their integer values differ between the two libraries).
 *
 * On ROCm this file is compiled as C++ (hipblaslt.h includes <memory> and <vector>): the C headers go inside
 * extern "C" and allocations are cast; the CUDA build compiles it as C.
 *
 * Layout mapping (row-major in torch terms, column-major in BLAS terms): C[MxN] = A[MxK] W[NxK]^T is computed
 * as C^T = op(W) A^T with op = T on W ("TN", required for fp8 on Hopper); C = A B as C^T = B^T A^T ("NN").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(BENCH_HIP)
#include <hipblaslt/hipblaslt.h>
#endif
#ifdef __cplusplus
extern "C" {
#endif
#include "../common/gpu.h"
#include "../common/record.h"
#include "../common/telemetry.h"
#include "gemm.h"
#include "plugin.h"
#ifdef __cplusplus
}
#endif

#if defined(BENCH_HIP)
#define LT_NAME "hipBLASLt"
#define LT_DEFAULT_WS (76u << 20)
typedef hipblasLtHandle_t lt_handle_t;
typedef hipblasLtMatmulDesc_t lt_desc_t;
typedef hipblasLtMatrixLayout_t lt_layout_t;
typedef hipblasLtMatmulPreference_t lt_pref_t;
typedef hipblasLtMatmulHeuristicResult_t lt_heur_t;
typedef hipblasOperation_t lt_op_t;
typedef hipDataType lt_type_t;
#define LT_OK HIPBLAS_STATUS_SUCCESS
#define lt_create hipblasLtCreate
#define lt_destroy hipblasLtDestroy
#define lt_desc_create(d) hipblasLtMatmulDescCreate((d), HIPBLAS_COMPUTE_32F, HIP_R_32F)
#define lt_desc_destroy hipblasLtMatmulDescDestroy
#define lt_desc_set hipblasLtMatmulDescSetAttribute
#define lt_layout_create hipblasLtMatrixLayoutCreate
#define lt_layout_destroy hipblasLtMatrixLayoutDestroy
#define lt_pref_create hipblasLtMatmulPreferenceCreate
#define lt_pref_destroy hipblasLtMatmulPreferenceDestroy
#define lt_pref_set hipblasLtMatmulPreferenceSetAttribute
#define lt_heuristic hipblasLtMatmulAlgoGetHeuristic
#define lt_matmul hipblasLtMatmul
#define LT_R_32F HIP_R_32F
#define LT_R_16F HIP_R_16F
#define LT_R_16BF HIP_R_16BF
#define LT_R_8F HIP_R_8F_E4M3 /* OCP: gfx950 */
#define LT_R_8F_FNUZ HIP_R_8F_E4M3_FNUZ /* gfx942 */
#define LT_R_8F_E5M2 HIP_R_8F_E5M2 /* OCP: gfx950 */
#define LT_R_8F_E5M2_FNUZ HIP_R_8F_E5M2_FNUZ /* gfx942 */
#define LT_OP_N HIPBLAS_OP_N
#define LT_OP_T HIPBLAS_OP_T
#define LT_TRANSA HIPBLASLT_MATMUL_DESC_TRANSA
#define LT_TRANSB HIPBLASLT_MATMUL_DESC_TRANSB
#define LT_A_SCALE HIPBLASLT_MATMUL_DESC_A_SCALE_POINTER
#define LT_B_SCALE HIPBLASLT_MATMUL_DESC_B_SCALE_POINTER
#define LT_MAX_WS HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
static long lt_version(lt_handle_t h)
{
	int v = 0;

	return hipblasLtGetVersion(h, &v) == LT_OK ? v : -1;
}
static int lt_load(char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	return 0;
}
#else
#include <dlfcn.h>

#include <cublasLt.h>
#define LT_NAME "cuBLASLt"
/* cuBLASLt is loaded when the first GPU case asks for it (lt_load: dlopen of its soname, which the loader looks for
 * as for a linked library: LD_LIBRARY_PATH, then this program's RUNPATH, then the system's), not linked: its load is
 * some 25,000 page faults and a third of a second of CPU at every start, which a run of CPU cases alone need not pay.
 * The Makefile names the soname of the toolkit it builds against. */
#ifndef BENCH_CUBLASLT_SONAME
#define BENCH_CUBLASLT_SONAME "libcublasLt.so"
#endif
#define LT_FNS(X)                                                                                                      \
	X(cublasLtCreate)                                                                                              \
	X(cublasLtDestroy)                                                                                             \
	X(cublasLtGetVersion)                                                                                          \
	X(cublasLtMatmulDescCreate)                                                                                    \
	X(cublasLtMatmulDescDestroy)                                                                                   \
	X(cublasLtMatmulDescSetAttribute)                                                                              \
	X(cublasLtMatrixLayoutCreate)                                                                                  \
	X(cublasLtMatrixLayoutDestroy)                                                                                 \
	X(cublasLtMatmulPreferenceCreate)                                                                              \
	X(cublasLtMatmulPreferenceDestroy)                                                                             \
	X(cublasLtMatmulPreferenceSetAttribute)                                                                        \
	X(cublasLtMatmulAlgoGetHeuristic)                                                                              \
	X(cublasLtMatmulAlgoConfigGetAttribute)                                                                        \
	X(cublasLtMatmul)
static struct {
#define LT_PTR(f) __typeof__(f) *f;
	LT_FNS(LT_PTR)
#undef LT_PTR
} lt;

static int lt_load(char *why, size_t whylen)
{
	static void *lib;
	void *h;

	if (lib)
		return 0;
	if (!(h = dlopen(BENCH_CUBLASLT_SONAME, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(why, whylen, "cannot load %s: %s", BENCH_CUBLASLT_SONAME, dlerror());
		return -1;
	}
#define LT_SYM(f)                                                                                                      \
	if (!(*(void **)&lt.f = dlsym(h, #f))) {                                                                       \
		snprintf(why, whylen, "%s has no %s", BENCH_CUBLASLT_SONAME, #f);                                      \
		memset(&lt, 0, sizeof(lt));                                                                           \
		dlclose(h);                                                                                            \
		return -1;                                                                                             \
	}
	LT_FNS(LT_SYM)
#undef LT_SYM
	lib = h;
	return 0;
}
#define LT_DEFAULT_WS (32u << 20)
typedef cublasLtHandle_t lt_handle_t;
typedef cublasLtMatmulDesc_t lt_desc_t;
typedef cublasLtMatrixLayout_t lt_layout_t;
typedef cublasLtMatmulPreference_t lt_pref_t;
typedef cublasLtMatmulHeuristicResult_t lt_heur_t;
typedef cublasOperation_t lt_op_t;
typedef cudaDataType_t lt_type_t;
#define LT_OK CUBLAS_STATUS_SUCCESS
#define lt_create lt.cublasLtCreate
#define lt_destroy lt.cublasLtDestroy
#define lt_desc_create(d) lt.cublasLtMatmulDescCreate((d), CUBLAS_COMPUTE_32F, CUDA_R_32F)
#define lt_desc_destroy lt.cublasLtMatmulDescDestroy
#define lt_desc_set lt.cublasLtMatmulDescSetAttribute
#define lt_layout_create lt.cublasLtMatrixLayoutCreate
#define lt_layout_destroy lt.cublasLtMatrixLayoutDestroy
#define lt_pref_create lt.cublasLtMatmulPreferenceCreate
#define lt_pref_destroy lt.cublasLtMatmulPreferenceDestroy
#define lt_pref_set lt.cublasLtMatmulPreferenceSetAttribute
#define lt_heuristic lt.cublasLtMatmulAlgoGetHeuristic
#define lt_matmul lt.cublasLtMatmul
#define LT_R_32F CUDA_R_32F
#define LT_R_16F CUDA_R_16F
#define LT_R_16BF CUDA_R_16BF
#define LT_R_8F CUDA_R_8F_E4M3
#define LT_R_8F_FNUZ CUDA_R_8F_E4M3 /* never chosen: fnuz is 0 on CUDA */
#define LT_R_8F_E5M2 CUDA_R_8F_E5M2
#define LT_R_8F_E5M2_FNUZ CUDA_R_8F_E5M2 /* never chosen */
#define LT_OP_N CUBLAS_OP_N
#define LT_OP_T CUBLAS_OP_T
#define LT_TRANSA CUBLASLT_MATMUL_DESC_TRANSA
#define LT_TRANSB CUBLASLT_MATMUL_DESC_TRANSB
#define LT_A_SCALE CUBLASLT_MATMUL_DESC_A_SCALE_POINTER
#define LT_B_SCALE CUBLASLT_MATMUL_DESC_B_SCALE_POINTER
#define LT_MAX_WS CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
static long lt_version(lt_handle_t h)
{
	(void)h;
	return (long)lt.cublasLtGetVersion();
}
#endif

#define MAX_CANDIDATES 64
#define TUNE_ROUNDS 5
#define TUNE_PAIRS 5         /* the confirmation: pairs of blocks, heuristic and winner */
#define TUNE_BLOCK_MS 200.0  /* one block of the confirmation: flushed calls, the loop that is timed */

/* The screen only chooses; the confirmation measures. It alternates the heuristic's first (H) and the screen's
 * winner (W) in blocks of ~TUNE_BLOCK_MS of the timed loop, TUNE_PAIRS pairs in ABBA order (H W, W H, H W, ...), in
 * the state the screen left; each pair gives the ratio of the two blocks' medians, and the gain is the mean of their
 * logs with a Student t interval (95%) over the pairs. The tuned figure is the better of the two (pooled samples). */
struct tune_confirm {
	int done;                 /* 0: the screen chose the heuristic's first (nothing to confirm) */
	int pairs;
	size_t block_calls;
	double heur_ms, win_ms;   /* pooled medians */
	double gain_pct, lo_pct, hi_pct;
	double pair_gain_pct[TUNE_PAIRS];
	int chose_winner;
};

struct tuned {
	int valid;
	struct gemm_problem key;
	int tune;
	double heur_median_ms, best_median_ms;
	int best_index, screen_best, returned;
	double *best_samples;
	size_t best_n;
	json_t *screen; /* per-candidate screened medians */
	int steady;     /* screened in the steady state (interleaved rounds) */
	struct dobench_result timing; /* mode and warm-up of the best's figure (no samples) */
	struct telemetry_summary tel, screen_tel;
	struct tune_confirm confirm;
};

struct gpu_state {
	int ready;
	gpuStream_t stream;
	lt_handle_t h;
	struct gemm_problem key;
	int valid;
	void *a, *b, *d, *ws, *flush;
	float *one;
	size_t ws_bytes, flush_bytes;
	lt_desc_t desc;
	lt_layout_t la, lb, lc;
	lt_heur_t heur[MAX_CANDIDATES];
	int returned, requested;
	int cur; /* candidate in use by call() */
	struct tuned tuned;
	struct telemetry tel;
	int fnuz; /* device 0's fp8 (e4m3, e5m2) is fnuz (gpu_fp8_fnuz) */
};

static struct gpu_state g;

json_t *gemm_blaslt_info(char *why, size_t whylen)
{
	json_t *info = gpu_device_info(why, whylen);

	if (!info)
		return NULL;
	if (!g.ready) {
		/* the library first: a case that cannot have it leaves no stream behind (each GPU case asks again) */
		if (lt_load(why, whylen) < 0) {
			json_decref(info);
			return NULL;
		}
		if (gpuSetDevice(0) != gpuSuccess || gpuStreamCreate(&g.stream) != gpuSuccess) {
			snprintf(why, whylen, "cannot create a stream on device 0");
			json_decref(info);
			return NULL;
		}
		if (lt_create(&g.h) != LT_OK) {
			snprintf(why, whylen, "cannot create a %s handle", LT_NAME);
			(void)gpuStreamDestroy(g.stream);
			json_decref(info);
			return NULL;
		}
		g.ready = 1;
		g.fnuz = gpu_fp8_fnuz();
		{
			char bus[64];

			gpu_pci_bus_id(bus, sizeof(bus));
			if (telemetry_open(&g.tel, bus) != 0)
				fprintf(stderr, "bench-gemm: %s\n", g.tel.why);
		}
	}
	json_object_set_new(info, "blas", json_string(LT_NAME));
	json_object_set_new(info, "blas_version", json_integer(lt_version(g.h)));
	return info;
}

static void free_problem(void)
{
	(void)gpuFree(g.a);
	(void)gpuFree(g.b);
	(void)gpuFree(g.d);
	(void)gpuFree(g.ws);
	(void)gpuFree(g.one);
	if (g.desc)
		lt_desc_destroy(g.desc);
	if (g.la)
		lt_layout_destroy(g.la);
	if (g.lb)
		lt_layout_destroy(g.lb);
	if (g.lc)
		lt_layout_destroy(g.lc);
	g.a = g.b = g.d = g.ws = NULL;
	g.one = NULL;
	g.desc = NULL;
	g.la = g.lb = g.lc = NULL;
	g.valid = 0;
	g.returned = 0;
	free(g.tuned.best_samples);
	json_decref(g.tuned.screen);
	memset(&g.tuned, 0, sizeof(g.tuned));
}

void gemm_blaslt_shutdown(void)
{
	if (!g.ready)
		return;
	free_problem();
	(void)gpuFree(g.flush);
	telemetry_close(&g.tel);
	lt_destroy(g.h);
	(void)gpuStreamDestroy(g.stream);
	memset(&g, 0, sizeof(g));
}

static int same_problem(const struct gemm_problem *a, const struct gemm_problem *b)
{
	return a->dt == b->dt && a->tn == b->tn && a->m == b->m && a->n == b->n && a->k == b->k && a->init == b->init &&
	       a->seed == b->seed && a->workspace == b->workspace;
}

/* The library type of an element type (an operand's: gemm_a_dtype / gemm_b_dtype), fp8 in the device's variant. */
static lt_type_t in_type(enum dtype dt)
{
	if (dt == DT_FP8E4M3)
		return g.fnuz ? LT_R_8F_FNUZ : LT_R_8F;
	if (dt == DT_FP8E5M2)
		return g.fnuz ? LT_R_8F_E5M2_FNUZ : LT_R_8F_E5M2;
	return dt == DT_FP32 ? LT_R_32F : dt == DT_FP16 ? LT_R_16F : LT_R_16BF;
}

static enum dtype out_dtype(enum dtype dt)
{
	return dtype_is_fp8(dt) ? DT_BF16 : dt;
}

/* An fp8 element type's name on this device: "e4m3", "e5m2fnuz", ... */
static const char *fp8_name(enum dtype dt)
{
	if (dt == DT_FP8E5M2)
		return g.fnuz ? "e5m2fnuz" : "e5m2";
	return g.fnuz ? "e4m3fnuz" : "e4m3";
}

static int gpu_alloc(void **p, size_t bytes, char *why, size_t whylen, const char *what)
{
	gpuError_t e = gpuMalloc(p, bytes);

	if (e != gpuSuccess) {
		*p = NULL;
		(void)gpuGetLastError();
		snprintf(why, whylen, "out of memory allocating %s (%.2f GiB): %s", what, (double)bytes / (1 << 30),
			 gpuGetErrorString(e));
		return -1;
	}
	return 0;
}

static int prepare(const struct gemm_problem *p, int want, char *why, size_t whylen)
{
	size_t es = dtype_size(p->dt), oes = dtype_size(out_dtype(p->dt));
	size_t na = (size_t)p->m * p->k, nb = (size_t)p->n * p->k, nd = (size_t)p->m * p->n, fb;
	size_t free_b = 0, total_b = 0;
	lt_op_t ta = p->tn ? LT_OP_T : LT_OP_N, tb = LT_OP_N;
	lt_pref_t pref = NULL;
	float one = 1.0f;
	int err = -1;

	fb = p->flush_bytes ? p->flush_bytes : gpu_flush_bytes();
	if (p->flush && fb != g.flush_bytes) {
		(void)gpuFree(g.flush);
		g.flush_bytes = 0;
		if (gpu_alloc(&g.flush, fb, why, whylen, "the flush buffer") < 0)
			return -1;
		g.flush_bytes = fb;
	}
	if (g.valid && same_problem(&g.key, p) && g.requested >= want)
		return 0;
	free_problem();
	g.ws_bytes = p->workspace ? p->workspace : LT_DEFAULT_WS;
	(void)gpuMemGetInfo(&free_b, &total_b);
	if ((na + nb) * es + nd * oes + g.ws_bytes > free_b) {
		snprintf(why, whylen, "out of memory: needs %.2f GiB, %.2f GiB free of %.2f GiB",
			 (double)((na + nb) * es + nd * oes + g.ws_bytes) / (1 << 30), (double)free_b / (1 << 30),
			 (double)total_b / (1 << 30));
		return -1;
	}
	if (gpu_alloc(&g.a, na * es, why, whylen, "A") < 0 || gpu_alloc(&g.b, nb * es, why, whylen, "B") < 0 ||
	    gpu_alloc(&g.d, nd * oes, why, whylen, "C") < 0 || gpu_alloc(&g.ws, g.ws_bytes, why, whylen, "workspace") < 0 ||
	    gpu_alloc((void **)&g.one, sizeof(float), why, whylen, "scales") < 0)
		goto cleanup;
	(void)gpuMemcpy(g.one, &one, sizeof(one), gpuMemcpyHostToDevice);
	if (gpu_fill(g.a, gemm_a_dtype(p->dt), na, p->seed, 0, p->init, g.stream) < 0 ||
	    gpu_fill(g.b, gemm_b_dtype(p->dt), nb, p->seed, 1, p->init, g.stream) < 0 ||
	    gpuMemsetAsync(g.d, 0, nd * oes, g.stream) != gpuSuccess) {
		snprintf(why, whylen, "cannot initialise the inputs: %s", gpuGetErrorString(gpuGetLastError()));
		goto cleanup;
	}
	/* BLAS A := W (tn, stored k x n col-major) or B (nn, stored n x k); BLAS B := A (stored k x m). fp8e5m2: BLAS A
	 * is W in e4m3, BLAS B the gradient in e5m2 -- the (E4M3, E5M2) pair of cuBLASLt's and hipBLASLt's fp8 tables. */
	if (lt_desc_create(&g.desc) != LT_OK || lt_desc_set(g.desc, LT_TRANSA, &ta, sizeof(ta)) != LT_OK ||
	    lt_desc_set(g.desc, LT_TRANSB, &tb, sizeof(tb)) != LT_OK) {
		snprintf(why, whylen, "%s: cannot create the matmul descriptor", LT_NAME);
		goto cleanup;
	}
	if (dtype_is_fp8(p->dt) && (lt_desc_set(g.desc, LT_A_SCALE, &g.one, sizeof(g.one)) != LT_OK ||
				    lt_desc_set(g.desc, LT_B_SCALE, &g.one, sizeof(g.one)) != LT_OK)) {
		snprintf(why, whylen, "%s: cannot set the fp8 scale pointers", LT_NAME);
		goto cleanup;
	}
	if (lt_layout_create(&g.la, in_type(gemm_b_dtype(p->dt)), p->tn ? p->k : p->n, p->tn ? p->n : p->k,
			     p->tn ? p->k : p->n) != LT_OK ||
	    lt_layout_create(&g.lb, in_type(gemm_a_dtype(p->dt)), p->k, p->m, p->k) != LT_OK ||
	    lt_layout_create(&g.lc, in_type(out_dtype(p->dt)), p->n, p->m, p->n) != LT_OK) {
		snprintf(why, whylen, "%s: cannot create the matrix layouts", LT_NAME);
		goto cleanup;
	}
	if (lt_pref_create(&pref) != LT_OK || lt_pref_set(pref, LT_MAX_WS, &g.ws_bytes, sizeof(g.ws_bytes)) != LT_OK) {
		snprintf(why, whylen, "%s: cannot create the preference", LT_NAME);
		goto cleanup;
	}
	g.requested = want < 1 ? 1 : want > MAX_CANDIDATES ? MAX_CANDIDATES : want;
	if (lt_heuristic(g.h, g.desc, g.la, g.lb, g.lc, g.lc, pref, g.requested, g.heur, &g.returned) != LT_OK ||
	    g.returned < 1) {
		snprintf(why, whylen, "%s has no algorithm for this problem (%s, %s)", LT_NAME,
			 p->dt == DT_FP8E5M2 ? "fp8 e5m2 x e4m3" : p->dt == DT_FP8E4M3 ? "fp8" : "dtype", p->tn ? "tn" : "nn");
		goto cleanup;
	}
	g.key = *p;
	g.valid = 1;
	err = 0;
cleanup:
	if (pref)
		lt_pref_destroy(pref);
	if (err)
		free_problem();
	return err;
}

static int call_gemm(void *ctx)
{
	const struct gemm_problem *p = (const struct gemm_problem *)ctx;
	const float alpha = 1.0f, beta = 0.0f;

	(void)p; /* BLAS A is W (tn) or B (nn), both in g.b; BLAS B is A, in g.a */
	return lt_matmul(g.h, g.desc, &alpha, g.b, g.la, g.a, g.lb, &beta, g.d, g.lc, g.d, g.lc, &g.heur[g.cur].algo, g.ws,
			 g.ws_bytes, g.stream) == LT_OK ? 0 : -1;
}

static int call_flush(void *ctx)
{
	(void)ctx;
	return gpuMemsetAsync(g.flush, 0, g.flush_bytes, g.stream) == gpuSuccess ? 0 : -1;
}

static int measure_fn(struct dobench_result *r, const struct gemm_problem *p, int (*call)(void *), int cand,
		      double warmup, double rep)
{
	struct gpu_clock gc = { g.stream, NULL, NULL, 0 };
	struct dobench_clock clk;
	struct dobench_fn fn = { (void *)p, call, call_flush };
	struct dobench_opts o = { warmup, rep, p->flush, 1000000 };
	struct dobench_probe probe;
	int err;

	gpu_timing_opts(&o, p->mode, &g.tel, &probe);
	g.cur = cand;
	gpu_clock_ops(&clk, &gc);
	err = dobench_run(r, &o, &fn, &clk);
	gpu_clock_release(&gc);
	return err;
}

static int measure(struct dobench_result *r, const struct gemm_problem *p, int cand, double warmup, double rep)
{
	return measure_fn(r, p, call_gemm, cand, warmup, rep);
}

static double median_ms(const struct dobench_result *r)
{
	struct stats s;

	stats_compute(&s, r->samples_ms, r->n);
	return s.median;
}

static float out_elem(const void *host, enum dtype dt)
{
	switch (dt) {
	case DT_FP32: return *(const float *)host;
	case DT_FP16: return fp16_to_float(*(const uint16_t *)host);
	case DT_BF16: return bf16_to_float(*(const uint16_t *)host);
	case DT_FP8E4M3: return fp8e4m3_to_float(*(const uint8_t *)host, g.fnuz);
	case DT_FP8E5M2: return fp8e5m2_to_float(*(const uint8_t *)host, g.fnuz);
	default: return NAN;
	}
}

/* Re-runs the chosen algorithm (call: call_gemm, or gemm_plugin_call) once and checks sampled outputs against a
 * double-precision host reference computed from the device's own inputs. */
static double check(const struct gemm_problem *p, int (*call)(void *))
{
	size_t es = dtype_size(p->dt), oes = dtype_size(out_dtype(p->dt));
	unsigned char *rowa = (unsigned char *)malloc((size_t)p->k * es), *colb = (unsigned char *)malloc((size_t)p->k * es);
	float *fa = (float *)malloc((size_t)p->k * sizeof(float)), *fb = (float *)malloc((size_t)p->k * sizeof(float));
	double worst = 0;

	(void)gpuMemsetAsync(g.d, 0xff, (size_t)p->m * p->n * oes, g.stream); /* stale output cannot pass */
	if (call((void *)p) != 0 || gpuStreamSynchronize(g.stream) != gpuSuccess)
		worst = INFINITY;
	for (int s = 0; s < GEMM_CHECK_SAMPLES && rowa && colb && fa && fb && worst == worst && !isinf(worst); s++) {
		long long i, j;
		unsigned char c[4];
		double e;

		gemm_sample_pos(&i, &j, s, p);
		(void)gpuMemcpy(rowa, (unsigned char *)g.a + (size_t)i * p->k * es, (size_t)p->k * es, gpuMemcpyDeviceToHost);
		if (p->tn)
			(void)gpuMemcpy(colb, (unsigned char *)g.b + (size_t)j * p->k * es, (size_t)p->k * es, gpuMemcpyDeviceToHost);
		else
			(void)gpuMemcpy2D(colb, es, (unsigned char *)g.b + (size_t)j * es, (size_t)p->n * es, es, (size_t)p->k,
				    gpuMemcpyDeviceToHost);
		(void)gpuMemcpy(c, (unsigned char *)g.d + ((size_t)i * p->n + j) * oes, oes, gpuMemcpyDeviceToHost);
		for (long long t = 0; t < p->k; t++) {
			fa[t] = out_elem(rowa + t * es, gemm_a_dtype(p->dt));
			fb[t] = out_elem(colb + t * es, gemm_b_dtype(p->dt));
		}
		e = gemm_rel_err(fa, fb, p->k, out_elem(c, out_dtype(p->dt)));
		if (!(e <= worst))
			worst = e;
	}
	free(rowa);
	free(colb);
	free(fa);
	free(fb);
	return worst;
}

static json_t *algo_json(int idx)
{
	json_t *o = json_pack("{s:i, s:I, s:f}", "candidate", idx, "workspace_bytes", (json_int_t)g.heur[idx].workspaceSize,
			      "waves_count", (double)g.heur[idx].wavesCount);
#ifndef BENCH_HIP
	/* which kernel configuration this is, so two stacks' choices can be told apart */
	static const struct { const char *name; cublasLtMatmulAlgoConfigAttributes_t attr; } attrs[] = {
		{ "id", CUBLASLT_ALGO_CONFIG_ID },		{ "tile", CUBLASLT_ALGO_CONFIG_TILE_ID },
		{ "stages", CUBLASLT_ALGO_CONFIG_STAGES_ID },	{ "splitk", CUBLASLT_ALGO_CONFIG_SPLITK_NUM },
		{ "swizzle", CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING }, { "cluster", CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID },
	};

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		uint32_t v = 0;
		size_t written = 0;

		if (lt.cublasLtMatmulAlgoConfigGetAttribute(&g.heur[idx].algo, attrs[i].attr, &v, sizeof(v), &written) ==
		    LT_OK)
			json_object_set_new(o, attrs[i].name, json_integer(v));
	}
#endif
	return o;
}

static int run_tune_steady(const struct gemm_problem *p, char *why, size_t whylen);
static int run_confirm(const struct gemm_problem *p, int win, double est, char *why, size_t whylen);

/* Steady mode (the GPU default): run_tune_steady(). Burst mode: screens the top `tune` candidates with a short
 * budget, only to choose; a winner other than the heuristic's first is then confirmed against it (run_confirm());
 * when the screen chooses the heuristic's first, the tuned figure is the heuristic's own full window (heur, already
 * measured by the heuristic case when given, else measured here first). */
static int run_tune(const struct gemm_problem *p, const struct dobench_result *heur_given, char *why, size_t whylen)
{
	struct dobench_result heur = DOBENCH_RESULT_INIT;
	struct telemetry_summary heur_tel = g.tel.last; /* heur_given: the caller's window just closed */
	double best_screen = INFINITY, heur_ms;
	int best_i = 0;

	if (g.tuned.valid && same_problem(&g.tuned.key, p) && g.tuned.tune == p->tune)
		return 0;
	free(g.tuned.best_samples);
	json_decref(g.tuned.screen);
	memset(&g.tuned, 0, sizeof(g.tuned));
	if (dobench_mode_parse(p->mode, DOBENCH_STEADY) == DOBENCH_STEADY) {
		if (run_tune_steady(p, why, whylen) != 0) {
			free(g.tuned.best_samples);
			json_decref(g.tuned.screen);
			memset(&g.tuned, 0, sizeof(g.tuned));
			return -1;
		}
		g.tuned.returned = g.returned;
		g.tuned.tune = p->tune;
		g.tuned.key = *p;
		g.tuned.valid = 1;
		return 0;
	}
	if (!heur_given && measure(&heur, p, 0, p->warmup_ms, p->rep_ms) != 0) {
		snprintf(why, whylen, "%s matmul failed: %s", LT_NAME, gpuGetErrorString(gpuGetLastError()));
		return -1;
	}
	if (!heur_given)
		heur_tel = g.tel.last;
	heur_ms = median_ms(heur_given ? heur_given : &heur);
	g.tuned.screen = json_array();
	for (int c = 0; c < g.returned && c < p->tune; c++) {
		struct dobench_result r = DOBENCH_RESULT_INIT;
		double ms;

		if (measure(&r, p, c, p->warmup_ms < 10 ? p->warmup_ms : 10, p->rep_ms < 25 ? p->rep_ms : 25) != 0) {
			json_array_append_new(g.tuned.screen, json_null());
			(void)gpuGetLastError();
			continue;
		}
		ms = median_ms(&r);
		json_array_append_new(g.tuned.screen, json_real(gemm_tflops(ms, (void *)p)));
		if (ms < best_screen) {
			best_screen = ms;
			best_i = c;
		}
		dobench_result_release(&r);
	}
	g.tuned.screen_best = best_i;
	if (best_i != 0) {
		/* the winner of the screen against the heuristic's first, paired, in the same blocks */
		double est = 0;
		struct dobench_opts o = { 0, p->rep_ms, p->flush, 1000000 };
		struct gpu_clock gc = { g.stream, NULL, NULL, 0 };
		struct dobench_clock clk;
		struct dobench_fn fn = { (void *)p, call_gemm, call_flush };
		int rc;

		g.tuned.timing = heur_given ? *heur_given : heur; /* its mode; run_confirm() sets the counts */
		g.tuned.timing.samples_ms = NULL;
		gpu_clock_ops(&clk, &gc);
		g.cur = 0;
		rc = dobench_estimate(&est, &o, &fn, &clk);
		gpu_clock_release(&gc);
		if (rc != 0 || run_confirm(p, best_i, est, why, whylen) != 0) {
			if (rc != 0)
				snprintf(why, whylen, "%s matmul failed while tuning", LT_NAME);
			dobench_result_release(&heur);
			return -1;
		}
	} else {
		const struct dobench_result *h = heur_given ? heur_given : &heur;

		g.tuned.heur_median_ms = heur_ms;
		g.tuned.best_index = 0;
		g.tuned.best_median_ms = heur_ms;
		g.tuned.best_samples = (double *)malloc(h->n * sizeof(double));
		memcpy(g.tuned.best_samples, h->samples_ms, h->n * sizeof(double));
		g.tuned.best_n = h->n;
		g.tuned.timing = *h;
		g.tuned.tel = heur_tel;
	}
	g.tuned.timing.samples_ms = NULL;
	g.tuned.returned = g.returned;
	g.tuned.tune = p->tune;
	g.tuned.key = *p;
	g.tuned.valid = 1;
	dobench_result_release(&heur);
	return 0;
}

static double median_of(const double *x, size_t n)
{
	struct stats s;

	stats_compute(&s, x, n);
	return s.median;
}

/* The steady-state screen: one steady warm-up (on the heuristic's first), then TUNE_ROUNDS rounds over every
 * candidate (the heuristic's first among them), each round starting one candidate later so none holds a fixed
 * place in the order; each round gives a candidate the median of min(rep, 25 ms) of flushed calls, and its figure
 * is the median over rounds. The screen only chooses: a winner other than the heuristic's first is confirmed
 * against it (run_confirm()), at once, in the same state; else the record is one full timed window of the
 * heuristic's first. */
static int run_tune_steady(const struct gemm_problem *p, char *why, size_t whylen)
{
	struct gpu_clock gc = { g.stream, NULL, NULL, 0 };
	struct dobench_clock clk;
	struct dobench_fn fn = { (void *)p, call_gemm, call_flush };
	struct dobench_opts o = { p->warmup_ms, p->rep_ms, p->flush, 1000000 }, screen_o;
	struct dobench_probe probe;
	double est = 0, rounds[MAX_CANDIDATES][TUNE_ROUNDS], fig[MAX_CANDIDATES], *samples = NULL;
	int nc = g.returned < p->tune ? g.returned : p->tune, ok[MAX_CANDIDATES], best = 0, err = -1;
	size_t per, nrep;

	if (nc < 1)
		nc = 1;
	gpu_timing_opts(&o, "steady", &g.tel, &probe);
	screen_o = o;
	screen_o.probe = NULL; /* the screen's own sampler window spans every round */
	gpu_clock_ops(&clk, &gc);
	g.cur = 0;
	g.tuned.timing.mode = DOBENCH_STEADY;
	if (dobench_estimate(&est, &o, &fn, &clk) != 0 || dobench_steady_warmup(&g.tuned.timing.warm, est, &o, &fn, &clk) != 0) {
		snprintf(why, whylen, "%s matmul failed: %s", LT_NAME, gpuGetErrorString(gpuGetLastError()));
		goto cleanup;
	}
	/* the screen's bursts are sized in the state they run in (the first estimate may come from an idle board) */
	est = g.tuned.timing.warm.estimate_ms;
	g.tuned.timing.estimate_ms = est;
	per = dobench_count(p->rep_ms < 25 ? p->rep_ms : 25, est, 1000);
	samples = (double *)calloc(per > 1000000 ? per : 1000000, sizeof(double));
	if (!samples) {
		snprintf(why, whylen, "out of memory");
		goto cleanup;
	}
	for (int c = 0; c < nc; c++)
		ok[c] = 1;
	telemetry_window_begin(&g.tel);
	for (int r = 0; r < TUNE_ROUNDS; r++)
		for (int j = 0; j < nc; j++) {
			int c = (j + r) % nc;

			if (!ok[c])
				continue;
			g.cur = c;
			if (dobench_timed(samples, per, &screen_o, &fn, &clk) != 0) {
				ok[c] = 0;
				(void)gpuGetLastError();
				continue;
			}
			rounds[c][r] = median_of(samples, per);
		}
	telemetry_window_end(&g.tel, &g.tuned.screen_tel);
	if (!ok[0]) {
		snprintf(why, whylen, "%s matmul failed while tuning (the heuristic's first)", LT_NAME);
		goto cleanup;
	}
	g.tuned.screen = json_array();
	for (int c = 0; c < nc; c++) {
		fig[c] = ok[c] ? median_of(rounds[c], TUNE_ROUNDS) : INFINITY;
		json_array_append_new(g.tuned.screen, ok[c] ? json_real(gemm_tflops(fig[c], (void *)p)) : json_null());
		if (fig[c] < fig[best])
			best = c;
	}
	g.tuned.screen_best = best;
	if (best != 0) {
		/* the screen only chooses: the winner against the heuristic's first, paired, in blocks of the timed loop */
		if (run_confirm(p, best, est, why, whylen) != 0)
			goto cleanup;
	} else {
		g.cur = 0;
		nrep = dobench_repeat(&o, est);
		g.tuned.timing.n_repeat = nrep;
		if (dobench_timed_loop(samples, &g.tuned.timing.loop_ms, nrep, &o, &fn, &clk) != 0) {
			snprintf(why, whylen, "%s matmul failed while tuning", LT_NAME);
			goto cleanup;
		}
		g.tuned.timing.n = nrep;
		g.tuned.tel = g.tel.last;
		g.tuned.best_samples = (double *)malloc(nrep * sizeof(double));
		if (!g.tuned.best_samples) {
			snprintf(why, whylen, "out of memory");
			goto cleanup;
		}
		memcpy(g.tuned.best_samples, samples, nrep * sizeof(double));
		g.tuned.best_n = nrep;
		g.tuned.best_index = 0;
		g.tuned.heur_median_ms = g.tuned.best_median_ms = median_of(samples, nrep);
	}
	g.tuned.steady = 1;
	err = 0;
cleanup:
	free(samples);
	gpu_clock_release(&gc);
	return err;
}

/* Student's t, two-sided 95%, by degrees of freedom (1..10); 1.96 beyond */
static double t95(int df)
{
	static const double t[] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228 };

	return df >= 1 && df <= 10 ? t[df - 1] : 1.96;
}

/* One candidate's telemetry over its blocks: the samples of every block's window, the energy counters summed. */
struct tel_pool {
	struct telemetry_sample *s;
	size_t n, cap;
	double energy_j, window_ms;
	int energy_ok;
};

static void tel_pool_add(struct tel_pool *tp, const struct telemetry *t)
{
	if (!t->ok)
		return;
	if (tp->n + t->n > tp->cap) {
		size_t nc = (tp->n + t->n) * 2;
		struct telemetry_sample *q = (struct telemetry_sample *)realloc(tp->s, nc * sizeof(*q));

		if (!q)
			return;
		tp->s = q;
		tp->cap = nc;
	}
	memcpy(tp->s + tp->n, t->samples, t->n * sizeof(*t->samples));
	tp->n += t->n;
	tp->energy_j += t->last.energy_j;
	tp->energy_ok = tp->energy_ok && t->last.energy_ok;
	tp->window_ms += t->last.window_ms;
}

/* The confirmation (struct tune_confirm): sets g.tuned's figure, samples, telemetry and confirm. est: ms per flushed
 * call of the heuristic's first in the state it runs in (sizes the blocks, the same number of calls for both). */
static int run_confirm(const struct gemm_problem *p, int win, double est, char *why, size_t whylen)
{
	struct gpu_clock gc = { g.stream, NULL, NULL, 0 };
	struct dobench_clock clk;
	struct dobench_fn fn = { (void *)p, call_gemm, call_flush };
	struct dobench_opts o = { 0, p->rep_ms, p->flush, 1000000 };
	struct dobench_probe probe;
	struct tune_confirm *c = &g.tuned.confirm;
	struct tel_pool tp[2] = { { NULL, 0, 0, 0, 0, 1 }, { NULL, 0, 0, 0, 0, 1 } };
	size_t nb = dobench_count(TUNE_BLOCK_MS, est, 1000000), total;
	double *pool[2] = { NULL, NULL }, loop[2] = { 0, 0 }, sum = 0, sq = 0, mean, sd, half;
	int err = -1, k;

	if (nb < DOBENCH_MIN_REPEAT)
		nb = DOBENCH_MIN_REPEAT;
	total = nb * TUNE_PAIRS;
	gpu_timing_opts(&o, "steady", &g.tel, &probe);
	gpu_clock_ops(&clk, &gc);
	memset(c, 0, sizeof(*c));
	pool[0] = (double *)calloc(total, sizeof(double));
	pool[1] = (double *)calloc(total, sizeof(double));
	if (!pool[0] || !pool[1]) {
		snprintf(why, whylen, "out of memory");
		goto cleanup;
	}
	for (int i = 0; i < TUNE_PAIRS; i++) {
		double med[2];

		for (int j = 0; j < 2; j++) {
			double ms = 0;

			k = i % 2 ? 1 - j : j; /* 0: the heuristic's first, 1: the winner; ABBA */
			g.cur = k ? win : 0;
			if (dobench_timed_loop(pool[k] + (size_t)i * nb, &ms, nb, &o, &fn, &clk) != 0) {
				snprintf(why, whylen, "%s matmul failed while confirming candidate %d", LT_NAME, g.cur);
				goto cleanup;
			}
			loop[k] += ms;
			tel_pool_add(&tp[k], &g.tel);
			med[k] = median_of(pool[k] + (size_t)i * nb, nb);
		}
		c->pair_gain_pct[i] = (med[0] / med[1] - 1.0) * 100.0;
		sum += log(med[0] / med[1]);
		sq += log(med[0] / med[1]) * log(med[0] / med[1]);
	}
	mean = sum / TUNE_PAIRS;
	sd = sqrt(fmax(0.0, (sq - TUNE_PAIRS * mean * mean) / (TUNE_PAIRS - 1)));
	half = t95(TUNE_PAIRS - 1) * sd / sqrt((double)TUNE_PAIRS);
	c->done = 1;
	c->pairs = TUNE_PAIRS;
	c->block_calls = nb;
	c->gain_pct = (exp(mean) - 1.0) * 100.0;
	c->lo_pct = (exp(mean - half) - 1.0) * 100.0;
	c->hi_pct = (exp(mean + half) - 1.0) * 100.0;
	c->heur_ms = median_of(pool[0], total);
	c->win_ms = median_of(pool[1], total);
	c->chose_winner = c->win_ms < c->heur_ms;
	k = c->chose_winner;
	g.tuned.best_index = k ? win : 0;
	g.tuned.heur_median_ms = c->heur_ms;
	g.tuned.best_median_ms = k ? c->win_ms : c->heur_ms;
	g.tuned.best_samples = pool[k];
	pool[k] = NULL;
	g.tuned.best_n = total;
	g.tuned.timing.n_repeat = total;
	g.tuned.timing.n = total;
	g.tuned.timing.loop_ms = loop[k];
	if (g.tel.ok) {
		telemetry_summarise(&g.tuned.tel, tp[k].s, tp[k].n);
		g.tuned.tel.source = g.tel.src.name;
		g.tuned.tel.window_ms = tp[k].window_ms;
		g.tuned.tel.energy_ok = tp[k].energy_ok && tp[k].n > 0;
		g.tuned.tel.energy_j = tp[k].energy_j;
	} else {
		g.tuned.tel = g.tel.last;
	}
	err = 0;
cleanup:
	free(pool[0]);
	free(pool[1]);
	free(tp[0].s);
	free(tp[1].s);
	gpu_clock_release(&gc);
	return err;
}

static json_t *confirm_json(const struct gemm_problem *p)
{
	const struct tune_confirm *c = &g.tuned.confirm;
	json_t *o, *pairs;

	if (!c->done)
		return json_pack("{s:b, s:s}", "done", 0, "why", "the screen chose the heuristic's first: nothing to confirm");
	pairs = json_array();
	for (int i = 0; i < c->pairs; i++)
		json_array_append_new(pairs, json_real(c->pair_gain_pct[i]));
	o = json_pack("{s:b, s:i, s:I, s:f, s:s, s:f, s:f, s:f, s:[f, f], s:o, s:s, s:s}", "done", 1, "pairs", c->pairs,
		      "block_calls", (json_int_t)c->block_calls, "block_ms", TUNE_BLOCK_MS, "order",
		      "ABBA: heuristic first in even pairs, winner first in odd", "heuristic_tflops",
		      gemm_tflops(c->heur_ms, (void *)p), "winner_tflops", gemm_tflops(c->win_ms, (void *)p), "gain_pct",
		      c->gain_pct, "gain_ci95_pct", c->lo_pct, c->hi_pct, "pair_gain_pct", pairs, "chosen",
		      c->chose_winner ? "winner" : "heuristic", "method",
		      "gain = exp(mean over pairs of ln(heuristic block median / winner block median)) - 1, Student t 95% "
		      "interval over the pairs; the tuned figure is the better pooled median of the two");
	return o;
}

static void add_tune_extra(json_t *rec, const struct gemm_problem *p)
{
	/* the tuned figure against the heuristic's measured in the same confirmation (0 when nothing was confirmed) */
	record_add_extra(rec, "heuristic_gap_pct", json_real((g.tuned.heur_median_ms / g.tuned.best_median_ms - 1.0) * 100.0));
	if (g.tuned.steady) {
		char budget[200];

		snprintf(budget, sizeof(budget), "steady state: one warm-up, then %d interleaved rounds (rotated order) of "
			 "min(rep,25ms) per candidate; figure = median over rounds; only chooses", TUNE_ROUNDS);
		record_add_extra(rec, "tune", json_pack("{s:i, s:i, s:i, s:i, s:O, s:s, s:o, s:o}", "requested", p->tune,
							"returned", g.tuned.returned, "best_candidate", g.tuned.best_index,
							"screen_best", g.tuned.screen_best, "screened_tflops", g.tuned.screen,
							"screen_budget", budget, "screen_telemetry",
							telemetry_summary_json(&g.tuned.screen_tel), "confirm", confirm_json(p)));
		return;
	}
	record_add_extra(rec, "tune", json_pack("{s:i, s:i, s:i, s:i, s:O, s:s, s:o}", "requested", p->tune, "returned",
						g.tuned.returned, "best_candidate", g.tuned.best_index, "screen_best",
						g.tuned.screen_best, "screened_tflops", g.tuned.screen, "screen_budget",
						"warmup min(warmup,10ms), rep min(rep,25ms); only chooses", "confirm",
						confirm_json(p)));
}

/* The buffers' facts every record of this backend carries: workspace, flush, and fp8's operand formats
 * (A (activations or gradient) x B (weight) when they differ). */
static void record_buffers(json_t *rec, const struct gemm_problem *p)
{
	record_add_extra(rec, "workspace_bytes", json_integer((json_int_t)g.ws_bytes));
	record_add_extra(rec, "flush_bytes", json_integer((json_int_t)(p->flush ? g.flush_bytes : 0)));
	if (dtype_is_fp8(p->dt)) {
		const char *fa = fp8_name(gemm_a_dtype(p->dt)), *fb = fp8_name(gemm_b_dtype(p->dt));
		char format[40];

		snprintf(format, sizeof(format), strcmp(fa, fb) ? "%s x %s" : "%s", fa, fb);
		record_add_extra(rec, "fp8", json_pack("{s:s, s:s, s:s, s:s, s:f, s:f}", "format", format, "a", fa, "b", fb,
						       "output", "bf16", "scale_a", 1.0, "scale_b", 1.0));
	}
}

void gemm_blaslt_run(json_t *rec, const struct gemm_problem *p)
{
	struct dobench_result r = DOBENCH_RESULT_INIT;
	int tuning = strncmp(p->algo, "tune", 4) == 0;
	char why[512];

	if (dtype_is_fp8(p->dt) && !p->tn) {
		record_set_status(rec, "skipped", "fp8 needs layout tn (%s fp8 GEMM requires A transposed, as nn.Linear)",
				  LT_NAME);
		return;
	}
	if (prepare(p, p->tune > 0 ? p->tune : 1, why, sizeof(why)) < 0) {
		record_set_status(rec, "failed", "%s", why);
		return;
	}
	record_buffers(rec, p);
	if (tuning) {
		if (run_tune(p, NULL, why, sizeof(why)) < 0) {
			record_set_status(rec, "failed", "%s", why);
			return;
		}
		record_set_samples(rec, "tflops", "TFLOP/s", g.tuned.best_samples, g.tuned.best_n, gemm_tflops, (void *)p);
		record_add_extra(rec, "algo", algo_json(g.tuned.best_index));
		add_tune_extra(rec, p);
		record_add_timing(rec, &g.tuned.timing);
		{
			json_t *tel = telemetry_summary_json(&g.tuned.tel);

			if (g.tel.ok && g.tel.match[0])
				json_object_set_new(tel, "device_match", json_string(g.tel.match));
			record_add_extra(rec, "telemetry", tel);
		}
		g.cur = g.tuned.best_index;
	} else {
		/* the heuristic's first is measured before any tuning, so tuning's load cannot colour it */
		if (measure(&r, p, 0, p->warmup_ms, p->rep_ms) != 0) {
			record_set_status(rec, "failed", "%s matmul failed: %s", LT_NAME, gpuGetErrorString(gpuGetLastError()));
			return;
		}
		record_set_samples(rec, "tflops", "TFLOP/s", r.samples_ms, r.n, gemm_tflops, (void *)p);
		record_add_extra(rec, "algo", algo_json(0));
		record_add_extra(rec, "schedule", json_pack("{s:f, s:I, s:I}", "estimate_ms", r.estimate_ms, "n_warmup",
							    (json_int_t)r.n_warmup, "n_repeat", (json_int_t)r.n_repeat));
		gpu_timing_record(rec, &r, &g.tel);
		if (p->tune > 0) {
			if (run_tune(p, &r, why, sizeof(why)) == 0)
				add_tune_extra(rec, p);
			else
				record_add_extra(rec, "tune_error", json_string(why));
		}
		dobench_result_release(&r);
		g.cur = 0;
	}
	if (p->check)
		gemm_record_check(rec, p, check(p, call_gemm));
}

static const char *dt_name(enum dtype dt)
{
	static const char *const names[] = { "fp32", "fp16", "bf16", "fp8e4m3", "fp8e5m2" };

	return dt < DT_INVALID ? names[dt] : "?";
}

/* The plug-in ABI's name of an element type (plugin.h). */
static int plugin_dtype(enum dtype dt)
{
	switch (dt) {
	case DT_FP16: return BENCH_GEMM_FP16;
	case DT_BF16: return BENCH_GEMM_BF16;
	case DT_FP8E4M3: return BENCH_GEMM_FP8E4M3;
	case DT_FP8E5M2: return BENCH_GEMM_FP8E5M2;
	default: return BENCH_GEMM_FP32;
	}
}

void gemm_blaslt_run_plugin(json_t *rec, const struct gemm_problem *p, const char *name,
			    int (*entry)(const struct bench_gemm_args *), const char *(*why_fn)(void))
{
	struct dobench_result r = DOBENCH_RESULT_INIT;
	char why[512];
	int err;

	if (dtype_is_fp8(p->dt) && !p->tn) {
		record_set_status(rec, "skipped", "fp8 needs layout tn (as the blaslt backend: A transposed, as nn.Linear)");
		return;
	}
	/* the blaslt backend's buffers, filled as for its cases (the library's handles come along unused) */
	if (prepare(p, 1, why, sizeof(why)) < 0) {
		record_set_status(rec, "failed", "%s", why);
		return;
	}
	memset(&gemm_plug, 0, sizeof(gemm_plug));
	gemm_plug.entry = entry;
	gemm_plugin_args_init(&gemm_plug.args, p,
#if defined(BENCH_HIP)
			      BENCH_GEMM_HIP,
#else
			      BENCH_GEMM_CUDA,
#endif
			      plugin_dtype(p->dt), plugin_dtype(out_dtype(p->dt)), g.a, g.b, g.d);
	gemm_plug.args.stream = (void *)g.stream;
	gemm_plug.args.workspace = g.ws;
	gemm_plug.args.workspace_bytes = g.ws_bytes;
	record_buffers(rec, p);
	(void)gpuMemsetAsync(g.d, 0, (size_t)p->m * p->n * dtype_size(out_dtype(p->dt)), g.stream); /* no other call's C */
	err = measure_fn(&r, p, gemm_plugin_call, 0, p->warmup_ms, p->rep_ms);
	if (err != 0 || gemm_plug.rc) {
		const char *w = gemm_plug.rc && why_fn ? why_fn() : NULL;

		if (gemm_plug.rc)
			record_set_status(rec, "failed", "plug-in '%s' returned %d%s%s", name, gemm_plug.rc, w ? ": " : "", w ? w : "");
		else
			record_set_status(rec, "failed", "plug-in '%s' failed on the GPU: %s", name,
					  gpuGetErrorString(gpuGetLastError()));
		dobench_result_release(&r);
		return;
	}
	record_set_samples(rec, "tflops", "TFLOP/s", r.samples_ms, r.n, gemm_tflops, (void *)p);
	record_add_extra(rec, "schedule", json_pack("{s:f, s:I, s:I}", "estimate_ms", r.estimate_ms, "n_warmup",
						    (json_int_t)r.n_warmup, "n_repeat", (json_int_t)r.n_repeat));
	gpu_timing_record(rec, &r, &g.tel);
	record_add_extra(rec, "function", json_sprintf("plug-in '%s': bench_gemm_plugin on the %s stream (%s in, %s out)",
						       name, LT_NAME, dt_name(p->dt), dt_name(out_dtype(p->dt))));
	dobench_result_release(&r);
	if (p->check) {
		double e = check(p, gemm_plugin_call);

		if (gemm_plug.rc) {
			const char *w = why_fn ? why_fn() : NULL;

			record_set_status(rec, "failed", "plug-in '%s' returned %d%s%s", name, gemm_plug.rc, w ? ": " : "",
					  w ? w : "");
			return;
		}
		gemm_record_check(rec, p, e);
	}
}
