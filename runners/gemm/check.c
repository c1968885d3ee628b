/* SPDX-License-Identifier: Apache-2.0 */
/* check.c — the GEMM correctness check and FLOP accounting shared by the backends (and the unit tests). */
#include <math.h>
#include <stdio.h>

#include "../common/record.h"
#include "../common/rng.h"
#include "gemm.h"

void gemm_sample_pos(long long *i, long long *j, int s, const struct gemm_problem *p)
{
	uint64_t h;

	switch (s) {
	case 0: *i = 0; *j = 0; return;
	case 1: *i = p->m - 1; *j = p->n - 1; return;
	case 2: *i = 0; *j = p->n - 1; return;
	case 3: *i = p->m - 1; *j = 0; return;
	}
	h = rng_mix(p->seed ^ 0xc0ffee ^ (uint64_t)s);
	*i = (long long)(h % (uint64_t)p->m);
	*j = (long long)(rng_mix(h) % (uint64_t)p->n);
}

double gemm_rel_err(const float *arow, const float *bcol, long long k, float c)
{
	double ref = 0, norm = 0;

	for (long long t = 0; t < k; t++) {
		double x = (double)arow[t] * (double)bcol[t];

		ref += x;
		norm += fabs(x);
	}
	if (!isfinite(c))
		return INFINITY;
	if (norm == 0)
		return c == 0 ? 0 : INFINITY;
	return fabs((double)c - ref) / (fabs(ref) + norm / sqrt((double)k));
}

double gemm_tolerance(enum dtype dt, long long k)
{
	/* unit roundoff 2^-p of the output (p significant bits; fp8 GEMMs write bf16), and fp32 accumulation of k
	 * products of random signs; x4 leaves room for a split-K reduction in the output type */
	double u = dt == DT_FP32 ? ldexp(1, -24) : dt == DT_FP16 ? ldexp(1, -11) : ldexp(1, -8);

	return 4 * (u + ldexp(1, -24) * sqrt((double)(k > 0 ? k : 1)));
}

double gemm_tflops(double ms, void *problem)
{
	const struct gemm_problem *p = problem;

	return 2.0 * (double)p->m * (double)p->n * (double)p->k / (ms * 1e-3) / 1e12;
}

void gemm_record_check(json_t *rec, const struct gemm_problem *p, double max_err)
{
	double tol = gemm_tolerance(p->dt, p->k);

	record_add_extra(rec, "max_rel_err", json_real(max_err));
	record_add_extra(rec, "check_tolerance", json_real(tol));
	record_add_extra(rec, "check_samples", json_integer(GEMM_CHECK_SAMPLES));
	if (!(max_err <= tol)) {
		json_object_set_new(rec, "status", json_string("failed"));
		json_object_set_new(rec, "error", json_sprintf("wrong result: max normalised error %.3g over %d sampled "
							      "outputs exceeds %.2g",
							      max_err, GEMM_CHECK_SAMPLES, tol));
		record_add_extra(rec, "check", json_string("wrong"));
	} else {
		record_add_extra(rec, "check", json_string("ok"));
	}
}

