/* test_dobench.c — the do_bench schedule (against a virtual clock), statistics, and the GEMM check. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/dobench.h"
#include "common/record.h"
#include "gemm/gemm.h"

/* A virtual clock: a call takes call_ms, a flush flush_ms; marks read the virtual time. */
struct virt {
	double now, call_ms, flush_ms;
	int calls, flushes;
	double start[4096], end[4096];
	int fail_at_call;
};

static int v_call(void *ctx)
{
	struct virt *v = ctx;

	v->calls++;
	v->now += v->call_ms;
	return v->fail_at_call && v->calls == v->fail_at_call ? -5 : 0;
}

static int v_flush(void *ctx)
{
	struct virt *v = ctx;

	v->flushes++;
	v->now += v->flush_ms;
	return 0;
}

static int v_reserve(void *ctx, size_t n)
{
	(void)ctx;
	return n <= 4096 ? 0 : -1;
}

static int v_start(void *ctx, size_t i)
{
	struct virt *v = ctx;

	v->start[i] = v->now;
	return 0;
}

static int v_end(void *ctx, size_t i)
{
	struct virt *v = ctx;

	v->end[i] = v->now;
	return 0;
}

static int v_sync(void *ctx)
{
	(void)ctx;
	return 0;
}

static int v_elapsed(void *ctx, size_t i, double *ms)
{
	struct virt *v = ctx;

	*ms = v->end[i] - v->start[i];
	return 0;
}

static void run_virtual(struct virt *v, struct dobench_result *r, double warmup, double rep, int flush)
{
	struct dobench_clock clk = { v, v_reserve, v_start, v_end, v_sync, v_elapsed };
	struct dobench_fn fn = { v, v_call, v_flush };
	struct dobench_opts o = { warmup, rep, flush, 0 };

	assert_int_equal(dobench_run(r, &o, &fn, &clk), 0);
}

static void test_count_is_max_one_int_quotient(void **state)
{
	(void)state;
	assert_int_equal(dobench_count(30, 0.5, 0), 60);
	assert_int_equal(dobench_count(200, 3, 0), 66); /* int() truncates */
	assert_int_equal(dobench_count(30, 1000, 0), 1);
	assert_int_equal(dobench_count(200, 0.001, 1000), 1000);
}

static void test_schedule_with_flush_matches_triton(void **state)
{
	struct virt v = { 0, 2.0, 1.0, 0, 0, { 0 }, { 0 }, 0 };
	struct dobench_result r = DOBENCH_RESULT_INIT;

	(void)state;
	run_virtual(&v, &r, 30, 200, 1);
	/* estimate: 5 x (flush 1 + call 2) / 5 = 3 ms; flush is inside the estimate, as in Triton */
	assert_true(fabs(r.estimate_ms - 3.0) < 1e-12);
	assert_int_equal(r.n_warmup, 10);
	assert_int_equal(r.n_repeat, 66);
	assert_int_equal(v.calls, 1 + 5 + 10 + 66); /* untimed first call, estimate, warm-up, timed */
	assert_int_equal(v.flushes, 5 + 66);        /* warm-up calls are not flushed */
	assert_int_equal(r.n, 66);
	for (size_t i = 0; i < r.n; i++)
		assert_true(fabs(r.samples_ms[i] - 2.0) < 1e-12); /* the flush is outside each timed region */
	dobench_result_release(&r);
}

static void test_schedule_without_flush(void **state)
{
	struct virt v = { 0, 0.5, 1.0, 0, 0, { 0 }, { 0 }, 0 };
	struct dobench_result r = DOBENCH_RESULT_INIT;

	(void)state;
	run_virtual(&v, &r, 30, 200, 0);
	assert_true(fabs(r.estimate_ms - 0.5) < 1e-12);
	assert_int_equal(r.n_warmup, 60);
	assert_int_equal(r.n_repeat, 400);
	assert_int_equal(v.flushes, 0);
	dobench_result_release(&r);
}

static void test_schedule_stops_on_a_failed_call(void **state)
{
	struct virt v = { 0, 1.0, 0.0, 0, 0, { 0 }, { 0 }, 9 };
	struct dobench_clock clk = { &v, v_reserve, v_start, v_end, v_sync, v_elapsed };
	struct dobench_fn fn = { &v, v_call, v_flush };
	struct dobench_opts o = { 30, 200, 1, 0 };
	struct dobench_result r = DOBENCH_RESULT_INIT;

	(void)state;
	assert_int_equal(dobench_run(&r, &o, &fn, &clk), -5);
	assert_null(r.samples_ms);
	assert_int_equal(v.calls, 9);
}

static void test_stats_match_numpy(void **state)
{
	const double x[] = { 7, 1, 10, 3, 5, 2, 9, 4, 8, 6 };
	struct stats s;

	(void)state;
	stats_compute(&s, x, 10);
	assert_int_equal(s.n, 10);
	assert_true(fabs(s.median - 5.5) < 1e-12);
	assert_true(fabs(s.mean - 5.5) < 1e-12);
	assert_true(fabs(s.p10 - 1.9) < 1e-12); /* numpy.percentile(x, 10) */
	assert_true(fabs(s.p90 - 9.1) < 1e-12);
	assert_true(s.min == 1 && s.max == 10);
	assert_true(fabs(s.cv - 3.0276503540974917 / 5.5) < 1e-12); /* ddof=1 */
	stats_compute(&s, x, 1);
	assert_true(s.median == 7 && s.p10 == 7 && s.p90 == 7 && s.cv == 0);
}

static void test_gemm_check_detects_wrong_outputs(void **state)
{
	float a[4] = { 1, 2, 3, 4 }, b[4] = { 0.5f, -1, 2, 0.25f }; /* sum = 0.5 - 2 + 6 + 1 = 5.5, norm 9.5 */

	(void)state;
	assert_true(gemm_rel_err(a, b, 4, 5.5f) < 1e-12);
	assert_true(fabs(gemm_rel_err(a, b, 4, 5.6f) - 0.1 / 9.5) < 1e-6);
	assert_true(gemm_rel_err(a, b, 4, NAN) > 1);
	assert_true(gemm_rel_err(a, b, 4, -5.5f) > gemm_tolerance(DT_BF16));
	assert_true(gemm_tolerance(DT_FP32) < gemm_tolerance(DT_BF16));
}

static void test_gemm_check_marks_record_failed(void **state)
{
	struct gemm_problem p;
	json_t *params = json_object();
	json_t *rec = record_new("gemm", "x", params);

	(void)state;
	memset(&p, 0, sizeof(p));
	p.dt = DT_BF16;
	json_object_set_new(rec, "status", json_string("ok"));
	gemm_record_check(rec, &p, 0.5);
	assert_string_equal(json_string_value(json_object_get(rec, "status")), "failed");
	assert_non_null(strstr(json_string_value(json_object_get(rec, "error")), "wrong result"));
	json_object_set_new(rec, "status", json_string("ok"));
	gemm_record_check(rec, &p, 1e-3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(rec, "extra"), "check")), "ok");
	json_decref(rec);
	json_decref(params);
}

static void test_tflops_formula(void **state)
{
	struct gemm_problem p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.m = 8192;
	p.n = 8192;
	p.k = 8192;
	/* 2 * 8192^3 = 1.0995e12 FLOP in 1.5575 ms = 705.946 TFLOP/s */
	assert_true(fabs(gemm_tflops(1.5575, &p) - 2.0 * 8192.0 * 8192.0 * 8192.0 / 1.5575e-3 / 1e12) < 1e-9);
	assert_true(fabs(gemm_tflops(1.5575, &p) - 705.946) < 0.001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_is_max_one_int_quotient),
		cmocka_unit_test(test_schedule_with_flush_matches_triton),
		cmocka_unit_test(test_schedule_without_flush),
		cmocka_unit_test(test_schedule_stops_on_a_failed_call),
		cmocka_unit_test(test_stats_match_numpy),
		cmocka_unit_test(test_gemm_check_detects_wrong_outputs),
		cmocka_unit_test(test_gemm_check_marks_record_failed),
		cmocka_unit_test(test_tflops_formula),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
