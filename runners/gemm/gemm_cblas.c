/* SPDX-License-Identifier: Apache-2.0 */
/* gemm_cblas.c — the CPU backend: OpenBLAS (or any CBLAS) sgemm, and sbgemm for bf16 where the library has it. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>

#include "../common/record.h"
#include "../common/rng.h"
#include "gemm.h"
#include "plugin.h"

#if defined(OPENBLAS_VERSION) || defined(OPENBLAS_CONST)
#define HAVE_OPENBLAS 1
char *openblas_get_config(void);
int openblas_get_num_threads(void);
/* OpenBLAS declares cblas_sbgemm but builds it only with BUILD_BFLOAT16 (Debian's does not): look at run time */
#pragma weak cblas_sbgemm
#endif

struct cpu_state {
	struct gemm_problem key; /* the problem the buffers hold */
	int valid;
	void *a, *b;
	float *c;
	unsigned char *flush;
	size_t flush_bytes;
};

static struct cpu_state st;

static size_t llc_bytes(void)
{
	long v = 0;

#ifdef _SC_LEVEL3_CACHE_SIZE
	v = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (v <= 0)
		v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
	if (v <= 0) {
		FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
		char unit = 0;

		if (f) {
			if (fscanf(f, "%ld%c", &v, &unit) >= 1 && (unit == 'K' || unit == 'k'))
				v *= 1024;
			else if (unit == 'M')
				v *= 1024 * 1024;
			fclose(f);
		}
	}
	return v > 0 ? (size_t)v : 0;
}

/* The BLAS shared objects this process has loaded, by real path (libblas.so.3 is an alternatives link: the
 * file behind it says which implementation a stack ships). */
static int add_blas(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *base = strrchr(info->dlpi_name, '/');
	char real[PATH_MAX];

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (!strncmp(base, "libblas", 7) || !strncmp(base, "libcblas", 8) || !strncmp(base, "libopenblas", 11) ||
	    !strncmp(base, "libblis", 7) || !strncmp(base, "libmkl", 6))
		json_array_append_new(data, json_string(realpath(info->dlpi_name, real) ? real : info->dlpi_name));
	return 0;
}

json_t *gemm_cblas_info(void)
{
	char model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	json_t *o;

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	o = json_pack("{s:s, s:s, s:I, s:I}", "vendor", "cpu", "name", model, "cores", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
		      "llc_bytes", (json_int_t)llc_bytes());
#ifdef HAVE_OPENBLAS
	json_object_set_new(o, "blas", json_string(openblas_get_config()));
	json_object_set_new(o, "blas_threads", json_integer(openblas_get_num_threads()));
#else
	json_object_set_new(o, "blas", json_string("cblas"));
#endif
	json_object_set_new(o, "blas_loaded", json_array());
	dl_iterate_phdr(add_blas, json_object_get(o, "blas_loaded"));
	return o;
}

void gemm_cblas_shutdown(void)
{
	free(st.a);
	free(st.b);
	free(st.c);
	free(st.flush);
	memset(&st, 0, sizeof(st));
}

static int same_data(const struct gemm_problem *a, const struct gemm_problem *b)
{
	return a->dt == b->dt && a->tn == b->tn && a->m == b->m && a->n == b->n && a->k == b->k && a->init == b->init &&
	       a->seed == b->seed;
}

/* A is tensor 0 (m x k); B is tensor 1: W (n x k) for tn, B (k x n) for nn. Element i is rng_value(seed, t, i). */
static int prepare(const struct gemm_problem *p, char *why, size_t whylen)
{
	size_t na = (size_t)p->m * (size_t)p->k, nb = (size_t)p->n * (size_t)p->k, nc = (size_t)p->m * (size_t)p->n;
	size_t es = p->dt == DT_BF16 ? 2 : 4, fb;

	if (!(st.valid && same_data(&st.key, p))) {
		free(st.a);
		free(st.b);
		free(st.c);
		st.valid = 0;
		st.a = malloc(na * es);
		st.b = malloc(nb * es);
		st.c = calloc(nc, sizeof(float));
		if (!st.a || !st.b || !st.c) {
			snprintf(why, whylen, "out of memory: %.2f GiB of host memory needed",
				 (double)((na + nb) * es + nc * 4) / (1 << 30));
			return -1;
		}
		for (size_t i = 0; i < na; i++) {
			float v = rng_value(p->seed, 0, i, p->init);

			if (es == 2)
				((uint16_t *)st.a)[i] = float_to_bf16(v);
			else
				((float *)st.a)[i] = v;
		}
		for (size_t i = 0; i < nb; i++) {
			float v = rng_value(p->seed, 1, i, p->init);

			if (es == 2)
				((uint16_t *)st.b)[i] = float_to_bf16(v);
			else
				((float *)st.b)[i] = v;
		}
		st.key = *p;
		st.valid = 1;
	}
	/* twice the last-level cache, from 8 to 64 MiB. The GPU's 256 MiB floor (Triton's) would cost a 1 ms CPU GEMM
	 * tens of ms of memset before every rep and leave a handful of samples in the rep budget; and a VM may report
	 * its host's whole L3 (256 MiB here), of which a few cores see a share */
	fb = 2 * llc_bytes();
	fb = fb < (8u << 20) ? (8u << 20) : fb > (64u << 20) ? (64u << 20) : fb;
	if (p->flush_bytes)
		fb = p->flush_bytes;
	if (p->flush && fb != st.flush_bytes) {
		free(st.flush);
		st.flush = malloc(fb);
		st.flush_bytes = st.flush ? fb : 0;
		if (!st.flush) {
			snprintf(why, whylen, "out of memory for the %zu-byte flush buffer", fb);
			return -1;
		}
		memset(st.flush, 1, fb); /* its pages faulted in now, not inside the estimate */
	}
	return 0;
}

static int call_gemm(void *ctx)
{
	const struct gemm_problem *p = ctx;
	int ldb = p->tn ? (int)p->k : (int)p->n;

	if (p->dt == DT_FP32)
		cblas_sgemm(CblasRowMajor, CblasNoTrans, p->tn ? CblasTrans : CblasNoTrans, (int)p->m, (int)p->n, (int)p->k,
			    1.0f, st.a, (int)p->k, st.b, ldb, 0.0f, st.c, (int)p->n);
#ifdef HAVE_OPENBLAS
	else
		cblas_sbgemm(CblasRowMajor, CblasNoTrans, p->tn ? CblasTrans : CblasNoTrans, (int)p->m, (int)p->n,
			     (int)p->k, 1.0f, st.a, (int)p->k, st.b, ldb, 0.0f, st.c, (int)p->n);
#endif
	return 0;
}

static int call_flush(void *ctx)
{
	volatile unsigned char *v;

	(void)ctx;
	memset(st.flush, 0, st.flush_bytes);
	v = st.flush;
	(void)v[st.flush_bytes - 1];
	return 0;
}

static float elem(const void *base, size_t i, enum dtype dt)
{
	return dt == DT_BF16 ? bf16_to_float(((const uint16_t *)base)[i]) : ((const float *)base)[i];
}

static double check(const struct gemm_problem *p)
{
	float *arow = malloc((size_t)p->k * sizeof(float)), *bcol = malloc((size_t)p->k * sizeof(float));
	double worst = 0;

	for (int s = 0; s < GEMM_CHECK_SAMPLES && arow && bcol; s++) {
		long long i, j;
		double e;

		gemm_sample_pos(&i, &j, s, p);
		for (long long t = 0; t < p->k; t++) {
			arow[t] = elem(st.a, (size_t)(i * p->k + t), p->dt);
			bcol[t] = elem(st.b, (size_t)(p->tn ? j * p->k + t : t * p->n + j), p->dt);
		}
		e = gemm_rel_err(arow, bcol, p->k, st.c[i * p->n + j]);
		if (e > worst || e != e)
			worst = e;
	}
	free(arow);
	free(bcol);
	return worst;
}

/*
 * Times call on p's prepared buffers with the host clock and records it in rec: the samples, the schedule, the timing,
 * function (a reference taken over, released on failure) and the check when p->check. Returns -1 and records
 * nothing when the timing fails or *call_rc (when not NULL) holds a failure of the call itself.
 */
static int time_and_record(json_t *rec, const struct gemm_problem *p, int (*call)(void *), const int *call_rc,
			   json_t *function)
{
	struct dobench_result r = DOBENCH_RESULT_INIT;
	struct cpu_clock cc = CPU_CLOCK_INIT;
	struct dobench_clock clk;
	struct dobench_fn fn = { (void *)p, call, call_flush };
	struct dobench_opts o = { p->warmup_ms, p->rep_ms, p->flush, 1000000 };
	int err = 0;

	o.mode = dobench_mode_parse(p->mode, DOBENCH_BURST);
	o.probe_why = "no telemetry on the CPU";
	cpu_clock_ops(&clk, &cc);
	if (dobench_run(&r, &o, &fn, &clk) != 0 || (call_rc && *call_rc)) {
		err = -1;
		goto cleanup;
	}
	record_set_samples(rec, "tflops", "TFLOP/s", r.samples_ms, r.n, gemm_tflops, (void *)p);
	record_add_extra(rec, "schedule", json_pack("{s:f, s:I, s:I, s:I}", "estimate_ms", r.estimate_ms, "n_warmup",
						    (json_int_t)r.n_warmup, "n_repeat", (json_int_t)r.n_repeat,
						    "flush_bytes", (json_int_t)(p->flush ? st.flush_bytes : 0)));
	record_add_timing(rec, &r);
	record_add_extra(rec, "function", function);
	function = NULL;
	if (p->check)
		gemm_record_check(rec, p, check(p));
cleanup:
	json_decref(function);
	dobench_result_release(&r);
	cpu_clock_release(&cc);
	return err;
}

void gemm_cblas_run_plugin(json_t *rec, const struct gemm_problem *p, const char *name,
			   int (*entry)(const struct bench_gemm_args *), const char *(*why)(void))
{
	char msg[256];

	if (p->dt != DT_FP32 && p->dt != DT_BF16) {
		record_set_status(rec, "skipped", "native GEMM plug-ins on the host path take fp32 and bf16 (plugin.h)");
		return;
	}
	if (prepare(p, msg, sizeof(msg)) < 0) {
		record_set_status(rec, "failed", "%s", msg);
		return;
	}
	memset(&gemm_plug, 0, sizeof(gemm_plug));
	gemm_plug.entry = entry;
	gemm_plugin_args_init(&gemm_plug.args, p, BENCH_GEMM_HOST, p->dt == DT_BF16 ? BENCH_GEMM_BF16 : BENCH_GEMM_FP32,
			      BENCH_GEMM_FP32, st.a, st.b, st.c);
	memset(st.c, 0, (size_t)p->m * (size_t)p->n * sizeof(float)); /* nothing left from another backend's call */
	if (time_and_record(rec, p, gemm_plugin_call, &gemm_plug.rc,
			    json_sprintf("plug-in '%s': bench_gemm_plugin (%s in, fp32 out)", name,
					 p->dt == DT_BF16 ? "bf16" : "fp32")) < 0) {
		const char *w = why ? why() : NULL;

		if (gemm_plug.rc)
			record_set_status(rec, "failed", "plug-in '%s' returned %d%s%s", name, gemm_plug.rc, w ? ": " : "", w ? w : "");
		else
			record_set_status(rec, "failed", "timing failed");
	}
}

void gemm_cblas_run(json_t *rec, const struct gemm_problem *p)
{
	char why[256];

	if (p->dt == DT_FP16 || dtype_is_fp8(p->dt)) {
		record_set_status(rec, "skipped", "CBLAS has no %s GEMM", p->dt == DT_FP16 ? "fp16" : "fp8");
		return;
	}
#ifdef HAVE_OPENBLAS
	if (p->dt == DT_BF16 && !cblas_sbgemm) {
		record_set_status(rec, "skipped", "this OpenBLAS has no bf16 GEMM (built without BUILD_BFLOAT16: no "
				  "cblas_sbgemm)");
		return;
	}
#else
	if (p->dt == DT_BF16) {
		record_set_status(rec, "skipped", "this CBLAS has no bf16 GEMM (OpenBLAS cblas_sbgemm)");
		return;
	}
#endif
	if (prepare(p, why, sizeof(why)) < 0) {
		record_set_status(rec, "failed", "%s", why);
		return;
	}
	if (time_and_record(rec, p, call_gemm, NULL,
			    json_string(p->dt == DT_BF16 ? "cblas_sbgemm (bf16 in, fp32 out)" : "cblas_sgemm")) < 0)
		record_set_status(rec, "failed", "timing failed");
}
