/* SPDX-License-Identifier: Apache-2.0 */
/* test_dobench.c — the do_bench schedule and the steady-state warm-up (against a virtual clock and a fake
 * telemetry probe), telemetry summaries, statistics, and the GEMM check. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gnu/libc-version.h>

#include <cmocka.h>

#include "common/dobench.h"
#include "common/loaded.h"
#include "common/record.h"
#include "common/rng.h"
#include "common/telemetry.h"
#include "gemm/gemm.h"

/* A virtual clock: a call takes call_ms, a flush flush_ms; marks read the virtual time. */
struct virt {
	double now, call_ms, flush_ms;
	int calls, flushes;
	double start[4096], end[4096];
	int fail_at_call;
	double first_touch_ms; /* added to the first flush: its buffer's pages faulted in */
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
	v->now += v->flush_ms + (v->flushes == 1 ? v->first_touch_ms : 0);
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
	assert_int_equal(v.flushes, 1 + 5 + 66);    /* one before the untimed call; warm-up calls are not flushed */
	assert_int_equal(r.n, 66);
	for (size_t i = 0; i < r.n; i++)
		assert_true(fabs(r.samples_ms[i] - 2.0) < 1e-12); /* the flush is outside each timed region */
	dobench_result_release(&r);
}

/* membw copy/64MiB: the flush buffer's first touch (100 ms of page faults) inside the estimate made it 111 ms
 * against a real 9.4 ms, and n_repeat 1 */
static void test_estimate_leaves_out_the_first_touch(void **state)
{
	struct virt v = { 0, 9.0, 0.4, 0, 0, { 0 }, { 0 }, 0, 500.0 };
	struct dobench_result r = DOBENCH_RESULT_INIT;

	(void)state;
	run_virtual(&v, &r, 10, 100, 1);
	assert_true(fabs(r.estimate_ms - 9.4) < 1e-9);
	assert_int_equal(r.n_repeat, 10);
	dobench_result_release(&r);
}

/* a budget shorter than one call still gives DOBENCH_MIN_REPEAT timed calls (a spread, a median worth comparing) */
static void test_repeat_has_a_floor(void **state)
{
	struct virt v = { 0, 50.0, 1.0, 0, 0, { 0 }, { 0 }, 0, 0 };
	struct dobench_result r = DOBENCH_RESULT_INIT;
	struct dobench_opts o = { 10, 20, 1, 0 };

	(void)state;
	run_virtual(&v, &r, 10, 20, 1);
	assert_int_equal(r.n_repeat, DOBENCH_MIN_REPEAT);
	assert_int_equal(r.n, DOBENCH_MIN_REPEAT);
	assert_int_equal(r.n_warmup, 1); /* the warm-up keeps Triton's max(1, ...) */
	dobench_result_release(&r);
	o.min_repeat = 3;
	assert_int_equal(dobench_repeat(&o, 50.0), 3);
	o.max_repeat = 2; /* a cap below the floor wins */
	assert_int_equal(dobench_repeat(&o, 50.0), 2);
	o.min_repeat = 0;
	o.max_repeat = 0;
	assert_int_equal(dobench_repeat(&o, 0.5), 40);
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

/* --- steady state: a virtual GPU whose SM clock follows a curve; a call takes base_ms x plateau / clock ------ */

struct vgpu {
	double now, base_ms, flush_ms, plateau_mhz;
	double (*mhz)(double t), (*watts)(double t);
	int reads, timed_open, timed_begins, timed_ends, calls_in_window, fail_reads_after;
	double start[4096], end[4096];
};

static double decay_mhz(double t) /* boost 1980 decays linearly to the 1755 plateau at 3 s */
{
	return t >= 3000 ? 1755 : 1980 - (1980 - 1755) * t / 3000;
}

static double rising_w(double t)
{
	return t >= 3000 ? 700 : 560 + 140 * t / 3000;
}

static double wobble_mhz(double t) /* a power cap's swing: +-2% around 1800 MHz, its median steady */
{
	return 1800 + 36 * sin(2 * 3.14159265358979 * t / 300);
}

static double drift_mhz(double t) /* never settles: falls 60 MHz every second */
{
	return 1980 - 60 * t / 1000;
}

static double cold_mhz(double t) /* an idle board: 400 MHz for its first 20 ms of load, then 1755 */
{
	return t < 20 ? 400 : 1755;
}

static double flat_w(double t)
{
	(void)t;
	return 700;
}

static int g_call(void *ctx)
{
	struct vgpu *v = ctx;

	v->now += v->base_ms * v->plateau_mhz / v->mhz(v->now);
	v->calls_in_window += v->timed_open;
	return 0;
}

static int g_flush(void *ctx)
{
	((struct vgpu *)ctx)->now += ((struct vgpu *)ctx)->flush_ms;
	return 0;
}

static int g_start(void *ctx, size_t i)
{
	((struct vgpu *)ctx)->start[i] = ((struct vgpu *)ctx)->now;
	return 0;
}

static int g_end(void *ctx, size_t i)
{
	((struct vgpu *)ctx)->end[i] = ((struct vgpu *)ctx)->now;
	return 0;
}

static int g_elapsed(void *ctx, size_t i, double *ms)
{
	*ms = ((struct vgpu *)ctx)->end[i] - ((struct vgpu *)ctx)->start[i];
	return 0;
}

static int g_read(void *ctx, double *mhz, double *w)
{
	struct vgpu *v = ctx;

	if (v->fail_reads_after && v->reads >= v->fail_reads_after)
		return -3;
	v->reads++;
	*mhz = v->mhz(v->now);
	*w = v->watts(v->now);
	return 0;
}

static int g_timed(void *ctx, int begin)
{
	struct vgpu *v = ctx;

	v->timed_open = begin;
	if (begin)
		v->timed_begins++;
	else
		v->timed_ends++;
	return 0;
}

static int run_vgpu(struct vgpu *v, struct dobench_result *r, enum dobench_mode mode, int with_probe)
{
	struct dobench_clock clk = { v, v_reserve, g_start, g_end, v_sync, g_elapsed };
	struct dobench_fn fn = { v, g_call, g_flush };
	struct dobench_probe probe = { v, g_read, g_timed };
	struct dobench_opts o = { 30, 20, 1, 0, mode, with_probe ? &probe : NULL, "no library here",
				  DOBENCH_STEADY_DEFAULTS };

	return dobench_run(r, &o, &fn, &clk);
}

static double tflops_of_ms(double ms, void *arg)
{
	return *(double *)arg / (ms * 1e-3) / 1e12;
}

static double gbps_of_ms(double ms, void *arg)
{
	return *(double *)arg / (ms * 1e-3) / 1e9;
}

/* extra.energy: per rep (one timed call), joules = median board power x median time; TFLOP/J = TFLOP/s / W */
static void test_energy_from_telemetry(void **state)
{
	json_t *params = json_object(), *rec = record_new("gemm", "x", params), *e;
	double ms[] = { 2.0, 1.0, 4.0 }, flop = 2e12; /* median 2 ms: 1000 TFLOP/s */

	(void)state;
	record_set_samples(rec, "tflops", "TFLOP/s", ms, 3, tflops_of_ms, &flop);
	record_add_extra(rec, "telemetry", json_pack("{s:b, s:f}", "available", 1, "power_w_median", 500.0));
	record_add_energy(rec);
	e = json_object_get(json_object_get(rec, "extra"), "energy");
	assert_true(json_is_true(json_object_get(e, "available")));
	assert_true(fabs(json_real_value(json_object_get(e, "joules")) - 500.0 * 2e-3) < 1e-12);   /* 1 J per call */
	assert_true(fabs(json_real_value(json_object_get(e, "tflop_per_joule")) - 1000.0 / 500.0) < 1e-12);
	/* the work of one call over its joules: 2 TFLOP / 1 J */
	assert_true(fabs(flop / 1e12 / json_real_value(json_object_get(e, "joules")) -
			 json_real_value(json_object_get(e, "tflop_per_joule"))) < 1e-9);
	assert_null(json_object_get(e, "gb_per_joule"));
	assert_string_equal(json_string_value(json_object_get(e, "method")), "power x time");
	assert_true(json_real_value(json_object_get(e, "joules_estimate")) == json_real_value(json_object_get(e, "joules")));
	assert_null(json_object_get(e, "joules_counter"));
	record_add_energy(rec); /* once only */
	json_decref(rec);

	/* the energy counter over the timed window: its joules over the timed calls (flushes and gaps included), the
	 * estimate beside it; the work per joule follows the counter */
	rec = record_new("gemm", "x", params);
	record_set_samples(rec, "tflops", "TFLOP/s", ms, 3, tflops_of_ms, &flop);
	record_add_extra(rec, "telemetry", json_pack("{s:b, s:f, s:f}", "available", 1, "power_w_median", 500.0,
						     "energy_j", 3.6));
	record_add_energy(rec);
	e = json_object_get(json_object_get(rec, "extra"), "energy");
	assert_string_equal(json_string_value(json_object_get(e, "method")), "counter");
	assert_true(fabs(json_real_value(json_object_get(e, "joules")) - 1.2) < 1e-12); /* 3.6 J / 3 calls */
	assert_true(fabs(json_real_value(json_object_get(e, "joules_counter")) - 1.2) < 1e-12);
	assert_true(fabs(json_real_value(json_object_get(e, "joules_estimate")) - 1.0) < 1e-12);
	assert_true(json_real_value(json_object_get(e, "counter_j")) == 3.6);
	assert_int_equal(json_integer_value(json_object_get(e, "calls")), 3);
	assert_true(fabs(json_real_value(json_object_get(e, "tflop_per_joule")) - 2.0 / 1.2) < 1e-9); /* 2 TFLOP / 1.2 J */
	json_decref(rec);
	/* a sample of several calls (a collective's iterations): the counter per call over extra.timed_calls */
	rec = record_new("gemm", "x", params);
	record_set_samples(rec, "tflops", "TFLOP/s", ms, 3, tflops_of_ms, &flop);
	record_add_extra(rec, "timed_calls", json_integer(12));
	record_add_extra(rec, "telemetry", json_pack("{s:b, s:f, s:f}", "available", 1, "power_w_median", 500.0,
						     "energy_j", 3.6));
	record_add_energy(rec);
	e = json_object_get(json_object_get(rec, "extra"), "energy");
	assert_true(fabs(json_real_value(json_object_get(e, "joules")) - 0.3) < 1e-12);
	assert_int_equal(json_integer_value(json_object_get(e, "calls")), 12);
	json_decref(rec);

	/* TB/s: GB per joule */
	rec = record_new("membw", "x", params);
	record_set_samples(rec, "tbps", "TB/s", ms, 3, tflops_of_ms, &flop);
	record_add_extra(rec, "telemetry", json_pack("{s:b, s:f}", "available", 1, "power_w_median", 400.0));
	record_add_energy(rec);
	e = json_object_get(json_object_get(rec, "extra"), "energy");
	assert_true(fabs(json_real_value(json_object_get(e, "gb_per_joule")) - 1e3 * 1000.0 / 400.0) < 1e-9);
	assert_null(json_object_get(e, "tflop_per_joule"));
	json_decref(rec);

	/* GB/s (collectives' busbw) on two GPUs: the power is the sum of the GPUs' medians (power_w_total), not the
	 * per-GPU median; GB of bus traffic per joule = busbw / W */
	{
		double bytes = 1e9; /* median 2 ms: 500 GB/s */

		rec = record_new("collectives", "x", params);
		record_set_samples(rec, "busbw_gbps", "GB/s", ms, 3, gbps_of_ms, &bytes);
		record_add_extra(rec, "telemetry", json_pack("{s:b, s:f, s:f, s:i}", "available", 1, "power_w_median", 350.0,
							     "power_w_total", 700.0, "gpus", 2));
		record_add_energy(rec);
		e = json_object_get(json_object_get(rec, "extra"), "energy");
		assert_true(json_is_true(json_object_get(e, "available")));
		assert_true(json_real_value(json_object_get(e, "power_w")) == 700.0);
		assert_int_equal(json_integer_value(json_object_get(e, "gpus")), 2);
		assert_true(fabs(json_real_value(json_object_get(e, "joules")) - 700.0 * 2e-3) < 1e-12);
		assert_true(fabs(json_real_value(json_object_get(e, "gb_per_joule")) - 500.0 / 700.0) < 1e-12);
		/* one call moves 500 GB/s x 2 ms = 1 GB of bus traffic over its joules */
		assert_true(fabs(500.0 * 2e-3 / json_real_value(json_object_get(e, "joules")) -
				 json_real_value(json_object_get(e, "gb_per_joule"))) < 1e-9);
		assert_null(json_object_get(e, "tflop_per_joule"));
		assert_null(json_object_get(e, "power_window_note")); /* no window length given: nothing to say */
		json_decref(rec);

		/* a window shorter than the driver's 1 s power average says how much of the reading came from before it */
		rec = record_new("collectives", "x", params);
		record_set_samples(rec, "busbw_gbps", "GB/s", ms, 3, gbps_of_ms, &bytes);
		record_add_extra(rec, "telemetry", json_pack("{s:b, s:s, s:f, s:f}", "available", 1, "source", "nvml",
							     "power_w_median", 350.0, "window_ms", 250.0));
		record_add_energy(rec);
		e = json_object_get(json_object_get(rec, "extra"), "energy");
		assert_true(json_real_value(json_object_get(e, "window_ms")) == 250.0);
		assert_non_null(strstr(json_string_value(json_object_get(e, "power_window_note")), "lasted 250 ms, less than "
											      "the 1000 ms"));
		assert_non_null(strstr(json_string_value(json_object_get(e, "power_window_note")), "up to 75% of the reading"));
		json_decref(rec);
		rec = record_new("collectives", "x", params);
		record_set_samples(rec, "busbw_gbps", "GB/s", ms, 3, gbps_of_ms, &bytes);
		record_add_extra(rec, "telemetry", json_pack("{s:b, s:s, s:f, s:f}", "available", 1, "source", "nvml",
							     "power_w_median", 350.0, "window_ms", 1500.0));
		record_add_energy(rec);
		e = json_object_get(json_object_get(rec, "extra"), "energy");
		assert_null(json_object_get(e, "power_window_note"));
		json_decref(rec);
	}

	/* no power reading: available false with the telemetry's reason */
	rec = record_new("gemm", "x", params);
	record_set_samples(rec, "tflops", "TFLOP/s", ms, 3, tflops_of_ms, &flop);
	record_add_extra(rec, "telemetry", json_pack("{s:b, s:s}", "available", 0, "why", "telemetry unavailable: no NVML"));
	record_add_energy(rec);
	e = json_object_get(json_object_get(rec, "extra"), "energy");
	assert_true(json_is_false(json_object_get(e, "available")));
	assert_string_equal(json_string_value(json_object_get(e, "why")), "telemetry unavailable: no NVML");
	assert_null(json_object_get(e, "joules"));
	json_decref(rec);

	/* a case that did not measure; a record without telemetry (a CPU record) gets none */
	rec = record_new("gemm", "x", params);
	record_set_status(rec, "failed", "boom");
	record_add_extra(rec, "telemetry", json_pack("{s:b, s:f}", "available", 1, "power_w_median", 500.0));
	record_add_energy(rec);
	e = json_object_get(json_object_get(rec, "extra"), "energy");
	assert_true(json_is_false(json_object_get(e, "available")));
	json_decref(rec);
	rec = record_new("gemm", "x", params);
	record_set_samples(rec, "tflops", "TFLOP/s", ms, 3, tflops_of_ms, &flop);
	record_add_energy(rec);
	assert_null(json_object_get(json_object_get(rec, "extra"), "energy"));
	json_decref(rec);
	json_decref(params);
}

static void test_steady_is_declared_after_the_plateau_not_before(void **state)
{
	struct vgpu v = { 0, 1.0, 0.5, 1755, decay_mhz, rising_w };
	struct dobench_result r = DOBENCH_RESULT_INIT;
	json_t *params = json_object(), *rec = record_new("gemm", "x", params), *t;

	(void)state;
	assert_int_equal(run_vgpu(&v, &r, DOBENCH_STEADY, 1), 0);
	assert_true(r.warm.steady_reached);
	/* the estimate ran at boost; the warm-up's sustained load reaches the plateau at 3000 ms, and the window before
	 * the last must be mostly plateau too before the two medians agree within 1% */
	assert_true(r.warm.steady_after_ms >= 3000);
	assert_true(r.warm.steady_after_ms <= 3000 + 1000 + 2 * 50);
	assert_non_null(strstr(r.warm.method, "steady:"));
	/* the first estimate ran at boost (flush 0.5 + a 0.886 ms call); the one that sizes the window was taken again
	 * on the plateau (flush 0.5 + 1 ms), so the window is rep_ms of the steady state */
	assert_true(r.warm.estimate_first_ms < 0.5 + 0.9);
	assert_true(fabs(r.estimate_ms - 1.5) < 1e-9);
	assert_int_equal(r.n, dobench_count(20, 1.5, 0));
	for (size_t i = 0; i < r.n; i++)
		assert_true(fabs(r.samples_ms[i] - 1.0) < 1e-9); /* every timed call at the plateau's speed */
	assert_int_equal(v.timed_begins, 1);
	assert_int_equal(v.timed_ends, 1);
	assert_int_equal(v.calls_in_window, r.n); /* the sampler window holds exactly the timed calls */
	record_add_timing(rec, &r);
	t = json_object_get(json_object_get(rec, "extra"), "timing");
	assert_string_equal(json_string_value(json_object_get(t, "mode")), "steady");
	assert_true(json_is_true(json_object_get(t, "steady_reached")));
	assert_true(json_real_value(json_object_get(t, "steady_after_ms")) == r.warm.steady_after_ms);
	/* the warm-up ran the loop that is timed: flush 0.5 + a 1 ms call per call on the plateau, in both (a warm-up
	 * without the flush would show 1.0) */
	assert_true(fabs(r.warm.per_call_ms - 1.5) < 1e-9);
	assert_true(fabs(r.loop_ms / (double)r.n - 1.5) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(t, "warmup_per_call_ms")) - 1.5) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(t, "timed_per_call_ms")) - 1.5) < 1e-9);
	json_decref(rec);
	json_decref(params);
	dobench_result_release(&r);
}

/* An estimate taken on an idle board (4.4x slower) sizes neither the bursts nor the timed window: the window holds
 * rep_ms of the loaded board, not a quarter of it (the H200's torch twin measured 180 ms of a 1 s window so). */
static void test_steady_window_is_sized_in_the_steady_state(void **state)
{
	struct vgpu v = { 0, 1.0, 0.5, 1755, cold_mhz, flat_w };
	struct dobench_result r = DOBENCH_RESULT_INIT;
	json_t *params = json_object(), *rec = record_new("gemm", "x", params), *t;

	(void)state;
	assert_int_equal(run_vgpu(&v, &r, DOBENCH_STEADY, 1), 0);
	assert_true(r.warm.estimate_first_ms > 2.0); /* 5 flushed calls, mostly at 400 MHz */
	assert_true(fabs(r.estimate_ms - 1.5) < 1e-9);
	assert_int_equal(r.n_repeat, dobench_count(20, 1.5, 0));
	assert_int_equal(r.n, r.n_repeat);
	/* bursts after the first last ~50 ms: 1000 ms of load in about 20 of them, not 70 of ~14 ms */
	assert_true(r.warm.n_bursts < 30);
	record_add_timing(rec, &r);
	t = json_object_get(json_object_get(rec, "extra"), "timing");
	assert_true(json_real_value(json_object_get(t, "estimate_before_warmup_ms")) == r.warm.estimate_first_ms);
	json_decref(rec);
	json_decref(params);
	dobench_result_release(&r);
}

static void test_steady_holds_a_power_cap_swing(void **state)
{
	struct vgpu v = { 0, 1.0, 0.5, 1800, wobble_mhz, flat_w };
	struct dobench_result r = DOBENCH_RESULT_INIT;

	(void)state;
	assert_int_equal(run_vgpu(&v, &r, DOBENCH_STEADY, 1), 0);
	assert_true(r.warm.steady_reached); /* the swing is the steady state: its median holds */
	assert_true(r.warm.steady_after_ms >= 1000 && r.warm.steady_after_ms < 1200);
	dobench_result_release(&r);
}

static void test_steady_budget_ends_a_probe_that_never_settles(void **state)
{
	struct vgpu v = { 0, 1.0, 0.5, 1800, drift_mhz, flat_w };
	struct dobench_result r = DOBENCH_RESULT_INIT;

	(void)state;
	assert_int_equal(run_vgpu(&v, &r, DOBENCH_STEADY, 1), 0);
	assert_false(r.warm.steady_reached);
	assert_true(r.warm.steady_after_ms >= 10000);
	assert_true(r.warm.steady_after_ms < 10000 + 60); /* ended by the first burst past the budget */
	assert_non_null(strstr(r.warm.method, "budget:"));
	assert_int_equal(v.reads, (int)r.warm.n_bursts);
	assert_true(r.n > 0);
	dobench_result_release(&r);
}

static void test_steady_without_probe_sustains_the_fixed_warmup(void **state)
{
	struct vgpu v = { 0, 1.0, 0.5, 1755, decay_mhz, rising_w };
	struct dobench_result r = DOBENCH_RESULT_INIT;

	(void)state;
	assert_int_equal(run_vgpu(&v, &r, DOBENCH_STEADY, 0), 0);
	assert_false(r.warm.steady_reached);
	assert_true(r.warm.steady_after_ms >= 2000 && r.warm.steady_after_ms < 2000 + 60);
	assert_non_null(strstr(r.warm.method, "fixed: 2000 ms"));
	assert_non_null(strstr(r.warm.method, "no library here"));
	assert_int_equal(v.reads, 0);
	dobench_result_release(&r);
}

static void test_steady_falls_back_when_the_probe_stops_reading(void **state)
{
	struct vgpu v = { 0, 1.0, 0.5, 1800, wobble_mhz, flat_w };
	struct dobench_result r = DOBENCH_RESULT_INIT;

	(void)state;
	v.fail_reads_after = 4;
	assert_int_equal(run_vgpu(&v, &r, DOBENCH_STEADY, 1), 0);
	assert_false(r.warm.steady_reached);
	assert_true(r.warm.steady_after_ms >= 2000 && r.warm.steady_after_ms < 2000 + 60);
	assert_non_null(strstr(r.warm.method, "the probe failed (-3)"));
	dobench_result_release(&r);
}

static void test_burst_mode_is_unchanged_by_a_probe(void **state)
{
	struct vgpu v = { 0, 2.0, 1.0, 1755, decay_mhz, rising_w };
	struct dobench_result r = DOBENCH_RESULT_INIT;
	struct dobench_clock clk = { &v, v_reserve, g_start, g_end, v_sync, g_elapsed };
	struct dobench_fn fn = { &v, g_call, g_flush };
	struct dobench_probe probe = { &v, g_read, g_timed };
	struct dobench_opts o = { 30, 200, 1, 0, DOBENCH_BURST, &probe, NULL, DOBENCH_STEADY_DEFAULTS };
	struct virt w = { 0, 2.0, 1.0, 0, 0, { 0 }, { 0 }, 0 };
	struct dobench_result b = DOBENCH_RESULT_INIT;

	(void)state;
	v.mhz = flat_w; /* any constant: 700 */
	v.plateau_mhz = 700;
	assert_int_equal(dobench_run(&r, &o, &fn, &clk), 0);
	run_virtual(&w, &b, 30, 200, 1); /* the same operation without a probe, opts as before the mode existed */
	assert_int_equal(v.reads, 0);       /* burst never probes */
	assert_true(r.estimate_ms == b.estimate_ms && r.n_warmup == b.n_warmup && r.n_repeat == b.n_repeat);
	assert_int_equal(r.n_warmup, 10);
	assert_int_equal(r.n_repeat, 66);
	assert_true(v.now == w.now); /* the same calls and flushes, in the same amount */
	assert_int_equal(v.calls_in_window, 66);
	assert_int_equal(r.mode, DOBENCH_BURST);
	dobench_result_release(&r);
	dobench_result_release(&b);
}

static void test_steady_check_needs_a_full_steady_window(void **state)
{
	const struct dobench_steady st = DOBENCH_STEADY_DEFAULTS;
	double t[60], c[60], w[60];

	(void)state;
	for (int i = 0; i < 60; i++) {
		t[i] = 50.0 * (i + 1);
		c[i] = i < 24 ? 1790 : 1755; /* the clock steps down 2% at 1250 ms */
		w[i] = 700;
	}
	assert_false(dobench_steady_check(t, c, w, 19, &st)); /* 950 ms: under the 1 s minimum */
	assert_false(dobench_steady_check(t, c, w, 20, &st)); /* 1000 ms: not yet two full windows of probes */
	assert_true(dobench_steady_check(t, c, w, 21, &st));  /* 1050 ms: two windows at 1790 */
	assert_false(dobench_steady_check(t, c, w, 30, &st)); /* 1500 ms: the last window's median 2% under the one before */
	assert_true(dobench_steady_check(t, c, w, 45, &st));  /* 2250 ms: both windows after the step */
	for (int i = 36; i < 60; i++) /* power 5% up in the last window: out of the 3% */
		w[i] = 735;
	assert_false(dobench_steady_check(t, c, w, 45, &st));
	for (int i = 36; i < 60; i++) /* 2%: within */
		w[i] = 714;
	assert_true(dobench_steady_check(t, c, w, 45, &st));
	assert_int_equal(dobench_mode_parse("steady", DOBENCH_BURST), DOBENCH_STEADY);
	assert_int_equal(dobench_mode_parse("burst", DOBENCH_STEADY), DOBENCH_BURST);
	assert_int_equal(dobench_mode_parse(NULL, DOBENCH_STEADY), DOBENCH_STEADY);
}

/* --- telemetry ----------------------------------------------------------------------------------------------- */

struct fake_src {
	int n;
	double joules; /* the energy counter: each read of it adds 0.5 J */
};

static int fake_energy(void *ctx, double *joules)
{
	struct fake_src *f = ctx;

	f->joules += 0.5;
	*joules = f->joules;
	return 0;
}

static int fake_read(void *ctx, struct telemetry_sample *s)
{
	struct fake_src *f = ctx;

	f->n++;
	s->sm_mhz = 1700 + f->n % 3 * 10; /* 1710, 1720, 1700, ... */
	s->power_w = 690 + f->n % 2 * 20;
	s->temp_c = 60 + f->n % 5;
	s->reasons = f->n == 2 ? 0x4 | 0x40 : 0x4;
	return 0;
}

static void test_telemetry_summary_of_samples(void **state)
{
	const struct telemetry_sample s[] = { { 1755, 700, 61, 0x4 }, { 1980, 650, 58, 0x1 }, { 1700, 705, 66, 0x4 | 0x1000 },
					      { 1760, 698, 60, 0 } };
	struct telemetry_summary sum;
	json_t *j, *names;
	char buf[128];

	(void)state;
	telemetry_summarise(&sum, s, 4);
	assert_int_equal(sum.n, 4);
	assert_true(sum.sm_mhz_min == 1700 && sum.sm_mhz_max == 1980 && sum.sm_mhz_median == 1757.5);
	assert_true(sum.power_w_median == 699 && sum.temp_c_max == 66);
	assert_string_equal(telemetry_reason_names(sum.reasons, buf, sizeof(buf)), "gpu_idle,sw_power_cap");
	assert_string_equal(telemetry_reason_names(0x8 | 0x20 | 0x40 | 0x80 | 0x100 | 0x2 | 0x10, buf, sizeof(buf)),
			    "applications_clocks,hw_slowdown,sync_boost,sw_thermal,hw_thermal,hw_power_brake,display_clocks");
	sum.source = "nvml";
	j = telemetry_summary_json(&sum);
	names = json_object_get(j, "throttle_reasons");
	assert_int_equal(json_array_size(names), 3);
	assert_string_equal(json_string_value(json_array_get(names, 1)), "sw_power_cap");
	assert_string_equal(json_string_value(json_array_get(names, 2)), "0x1000"); /* an unnamed bit is kept */
	assert_true(json_number_value(json_object_get(json_object_get(j, "sm_clock_mhz"), "median")) == 1757.5);
	assert_int_equal(json_integer_value(json_object_get(j, "samples")), 4);
	json_decref(j);
}

/* Two GPUs' windows over one collective: one summary, the energy from the sum of their median powers. */
static void test_telemetry_combined_over_gpus(void **state)
{
	const struct telemetry_sample a[] = { { 1500, 300, 60, 0x4 }, { 1600, 310, 58, 0 }, { 1700, 290, 59, 0 } };
	const struct telemetry_sample b[] = { { 1550, 400, 66, 0x1 }, { 1800, 420, 61, 0 }, { 1700, 380, 62, 0 },
					      { 1710, 400, 63, 0 } };
	struct telemetry_summary per[2];
	json_t *j, *params = json_object(), *rec, *e;
	double ms[] = { 2.0, 1.0, 4.0 }, bytes = 1e9; /* median 2 ms: 500 GB/s */

	(void)state;
	telemetry_summarise(&per[0], a, 3); /* medians: 1600 MHz, 300 W */
	telemetry_summarise(&per[1], b, 4); /* 1705 MHz, 400 W */
	per[0].source = per[1].source = "nvml";
	j = telemetry_combined_json(per, 2);
	assert_true(json_is_true(json_object_get(j, "available")));
	assert_int_equal(json_integer_value(json_object_get(j, "gpus")), 2);
	assert_int_equal(json_integer_value(json_object_get(j, "samples")), 7);
	assert_string_equal(json_string_value(json_object_get(j, "source")), "nvml");
	assert_true(json_number_value(json_object_get(json_object_get(j, "sm_clock_mhz"), "min")) == 1500);
	assert_true(json_number_value(json_object_get(json_object_get(j, "sm_clock_mhz"), "median")) == (1600 + 1705) / 2.0);
	assert_true(json_number_value(json_object_get(json_object_get(j, "sm_clock_mhz"), "max")) == 1800);
	assert_true(json_number_value(json_object_get(j, "power_w_median")) == 350);
	assert_true(json_number_value(json_object_get(j, "power_w_total")) == 700);
	assert_true(json_number_value(json_object_get(j, "temp_c_max")) == 66);
	assert_int_equal(json_array_size(json_object_get(j, "throttle_reasons")), 2); /* gpu_idle, sw_power_cap */
	/* the record's energy: both GPUs' power over the median iteration */
	rec = record_new("collectives", "x", params);
	record_set_samples(rec, "busbw_gbps", "GB/s", ms, 3, gbps_of_ms, &bytes);
	record_add_extra(rec, "telemetry", j);
	record_add_energy(rec);
	e = json_object_get(json_object_get(rec, "extra"), "energy");
	assert_true(fabs(json_real_value(json_object_get(e, "joules")) - 700.0 * 2e-3) < 1e-12);
	assert_true(fabs(json_real_value(json_object_get(e, "gb_per_joule")) - 500.0 / 700.0) < 1e-12);
	json_decref(rec);

	/* one GPU without a sample: unavailable, with that GPU's reason; so is the energy */
	telemetry_summarise(&per[1], b, 0);
	snprintf(per[1].why, sizeof(per[1].why), "rank 1: the timed window saw no sample");
	j = telemetry_combined_json(per, 2);
	assert_true(json_is_false(json_object_get(j, "available")));
	assert_string_equal(json_string_value(json_object_get(j, "why")), "rank 1: the timed window saw no sample");
	assert_null(json_object_get(j, "power_w_total"));
	rec = record_new("collectives", "x", params);
	record_set_samples(rec, "busbw_gbps", "GB/s", ms, 3, gbps_of_ms, &bytes);
	record_add_extra(rec, "telemetry", j);
	record_add_energy(rec);
	e = json_object_get(json_object_get(rec, "extra"), "energy");
	assert_true(json_is_false(json_object_get(e, "available")));
	assert_string_equal(json_string_value(json_object_get(e, "why")), "rank 1: the timed window saw no sample");
	json_decref(rec);
	json_decref(params);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static void test_telemetry_window_samples_in_the_background(void **state)
{
	struct fake_src f = { 0 };
	const struct telemetry_source src = { &f, "fake", fake_read };
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_summary sum;
	struct dobench_probe probe;
	struct timespec ts = { 0, 80 * 1000000L }, t0;
	double mhz = 0, w = 0, elapsed_ms;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0); /* (before the window's schedule starts: the bound below only loosens) */
	assert_int_equal(telemetry_open_source(&t, &src), 0);
	telemetry_probe_ops(&probe, &t);
	assert_int_equal(probe.read(probe.ctx, &mhz, &w), 0);
	assert_true(mhz == 1710 && w == 710);
	assert_int_equal(probe.timed(probe.ctx, 1), 0);
	nanosleep(&ts, NULL);
	assert_int_equal(probe.timed(probe.ctx, 0), 0);
	elapsed_ms = ms_since(&t0);
	sum = t.last;
	assert_true(sum.available);
	assert_true(sum.n >= 3); /* one at once, then one per 10 ms for 80 ms */
	/* and no more than the interval allows in the time that really passed since the sampler started (a loaded
	 * machine oversleeps the 80 ms, and the sampler catches up on its fixed schedule): one per 10 ms, two more */
	assert_true((double)sum.n <= elapsed_ms / 10 + 2);
	assert_int_equal((int)sum.n, f.n - 1); /* every read after the probe's went into the window */
	assert_true(sum.sm_mhz_min == 1700 && sum.sm_mhz_max == 1720);
	assert_true(sum.reasons == (0x4 | 0x40));
	assert_string_equal(sum.source, "fake");
	/* a second window starts empty */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(telemetry_window_begin(&t), 0);
	telemetry_window_end(&t, &sum);
	assert_true(sum.n >= 1 && (double)sum.n <= ms_since(&t0) / 10 + 3);
	assert_false(sum.energy_ok); /* this source has no energy counter */
	telemetry_close(&t);
}

/* A source with an energy counter: the window's energy_j is the counter at its end less the counter at its begin,
 * in the summary and its JSON; two GPUs' windows sum */
static void test_telemetry_window_energy_counter(void **state)
{
	struct fake_src f = { 0, 100.0 };
	const struct telemetry_source src = { &f, "fake", fake_read, fake_energy };
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_summary sum, per[2];
	json_t *j;

	(void)state;
	assert_int_equal(telemetry_open_source(&t, &src), 0);
	assert_int_equal(telemetry_window_begin(&t), 0);
	telemetry_window_end(&t, &sum);
	assert_true(sum.energy_ok);
	assert_true(fabs(sum.energy_j - 0.5) < 1e-12); /* 101.0 at the end less 100.5 at the begin */
	j = telemetry_summary_json(&sum);
	assert_true(fabs(json_real_value(json_object_get(j, "energy_j")) - 0.5) < 1e-12);
	json_decref(j);
	per[0] = sum;
	per[1] = sum;
	per[1].energy_j = 2.0;
	j = telemetry_combined_json(per, 2);
	assert_true(fabs(json_real_value(json_object_get(j, "energy_j")) - 2.5) < 1e-12);
	json_decref(j);
	per[1].energy_ok = 0; /* one GPU without a counter: no sum */
	j = telemetry_combined_json(per, 2);
	assert_null(json_object_get(j, "energy_j"));
	json_decref(j);
	telemetry_close(&t);
}

static void test_telemetry_without_the_library_degrades(void **state)
{
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_summary sum;
	struct telemetry_sample s;
	struct dobench_probe probe;
	json_t *j;

	(void)state;
	assert_int_equal(telemetry_open_library(&t, "libbench-no-such-nvml.so.1", "0000:3B:00.0"), -1);
	assert_non_null(strstr(t.why, "telemetry unavailable: cannot load libbench-no-such-nvml.so.1"));
	assert_int_equal(telemetry_read(&t, &s), -1);
	telemetry_probe_ops(&probe, &t);
	assert_null(probe.read); /* so dobench's steady mode takes the fixed warm-up */
	assert_int_equal(telemetry_window_begin(&t), -1);
	telemetry_window_end(&t, &sum);
	assert_false(sum.available);
	j = telemetry_summary_json(&sum);
	assert_true(json_is_false(json_object_get(j, "available")));
	assert_non_null(strstr(json_string_value(json_object_get(j, "why")), "libbench-no-such-nvml.so.1"));
	json_decref(j);
	telemetry_close(&t);
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
	assert_true(fabs(gemm_rel_err(a, b, 4, 5.6f) - 0.1 / (5.5 + 9.5 / 2)) < 1e-6); /* |ref| + sum|ab|/sqrt(k) */
	assert_true(gemm_rel_err(a, b, 4, NAN) > 1);
	assert_true(gemm_rel_err(a, b, 4, -5.5f) > gemm_tolerance(DT_BF16, 4));
	assert_true(gemm_tolerance(DT_FP32, 4) < gemm_tolerance(DT_FP16, 4));
	assert_true(gemm_tolerance(DT_FP16, 4) < gemm_tolerance(DT_BF16, 4));
}

static float round_bf16(float x) /* round to nearest even on the top 16 bits */
{
	uint32_t u;

	memcpy(&u, &x, sizeof(u));
	u += 0x7fff + ((u >> 16) & 1);
	u &= 0xffff0000u;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/* The faults of issue 17 at K = 8192, over GEMM_CHECK_SAMPLES outputs of random normal A and B: a correct fp32
 * result (float accumulation) and a correct bf16 one (the exact sum rounded to bf16) pass; the bf16 output scaled
 * by 1.1 (a wrong fp8 scale) or missing one 128-wide K tile fails, as does an fp32 output off by one K tile. */
static void test_gemm_check_fails_the_faults(void **state)
{
	enum { K = 8192 };
	static float a[K], b[K];
	double worst[5] = { 0 }; /* fp32 ok, bf16 ok, bf16 x1.1, bf16 no tile, fp32 no tile */

	(void)state;
	for (int s = 0; s < GEMM_CHECK_SAMPLES; s++) {
		float acc = 0, tile = 0;
		double exact = 0, e[5];

		for (int t = 0; t < K; t++) {
			a[t] = rng_value(7, 0, (uint64_t)s * K + t, RNG_NORMAL);
			b[t] = rng_value(7, 1, (uint64_t)s * K + t, RNG_NORMAL);
			acc += a[t] * b[t];
			exact += (double)a[t] * b[t];
			if (t >= 1024 && t < 1024 + 128)
				tile += a[t] * b[t];
		}
		e[0] = gemm_rel_err(a, b, K, acc);
		e[1] = gemm_rel_err(a, b, K, round_bf16((float)exact));
		e[2] = gemm_rel_err(a, b, K, round_bf16((float)(exact * 1.1)));
		e[3] = gemm_rel_err(a, b, K, round_bf16((float)exact - tile));
		e[4] = gemm_rel_err(a, b, K, acc - tile);
		for (int i = 0; i < 5; i++)
			worst[i] = e[i] > worst[i] ? e[i] : worst[i];
	}
	assert_true(worst[0] <= gemm_tolerance(DT_FP32, K));
	assert_true(worst[1] <= gemm_tolerance(DT_BF16, K));
	assert_true(worst[2] > gemm_tolerance(DT_BF16, K));
	assert_true(worst[3] > gemm_tolerance(DT_BF16, K));
	assert_true(worst[4] > gemm_tolerance(DT_FP32, K));
	/* the old tolerance, 1e-2 of sum|ab|, let both bf16 faults through: the new one is ~100x tighter in those units */
	assert_true(gemm_tolerance(DT_BF16, K) * (1 + 1 / sqrt((double)K)) < 0.02);
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

/* proof of what ran: libc is among the loaded libraries, by real path, with its soname read from the file and
 * the version glibc reports; a file that is not ELF has no soname */
static void test_loaded_names_libc_with_its_version(void **state)
{
	json_t *libs = loaded_libraries(), *e, *libc = NULL;
	char so[256];
	size_t i;
	FILE *f;

	(void)state;
	json_array_foreach(libs, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "soname")), "libc.so.6"))
			libc = e;
	assert_non_null(libc);
	assert_string_equal(json_string_value(json_object_get(libc, "version")), gnu_get_libc_version());
	assert_int_equal(json_string_value(json_object_get(libc, "path"))[0], '/');
	assert_int_equal(loaded_soname(so, sizeof(so), json_string_value(json_object_get(libc, "path"))), 0);
	assert_string_equal(so, "libc.so.6");
	f = fopen("/tmp/bench-loaded-test-libnot.so.1", "w");
	assert_non_null(f);
	fputs("not an ELF file\n", f);
	fclose(f);
	assert_int_equal(loaded_soname(so, sizeof(so), "/tmp/bench-loaded-test-libnot.so.1"), -1);
	assert_string_equal(so, "bench-loaded-test-libnot.so.1"); /* the file name */
	unlink("/tmp/bench-loaded-test-libnot.so.1");
	json_decref(libs);
}

/* 2^e by repeated halving or doubling: the expected values below do not use ldexp, as dtype.h does. */
static double pow2(int e)
{
	double x = 1;

	for (; e > 0; e--)
		x *= 2;
	for (; e < 0; e++)
		x /= 2;
	return x;
}

/* An fp8 code's value from the format's definition: sign, ebits exponent bits (bias), mbits mantissa bits;
 * exponent 0 is subnormal (0.M x 2^(1-bias)). Specials are the caller's. */
static double fp8_expected(unsigned v, int ebits, int mbits, int bias)
{
	unsigned e = (v >> mbits) & ((1u << ebits) - 1), m = v & ((1u << mbits) - 1);
	double frac = (double)m / (double)(1u << mbits);
	double x = e ? (1 + frac) * pow2((int)e - bias) : frac * pow2(1 - bias);

	return v & 0x80 ? -x : x;
}

/* Every one of the 256 codes of OCP e5m2 (bias 15, S.11111.00 infinity, S.11111.xx NaN), e5m2fnuz (bias 16, 0x80
 * the only NaN, no infinity), OCP e4m3 (bias 7, S.1111.111 NaN) and e4m3fnuz (bias 8, 0x80 NaN). */
static void test_fp8_decoders_every_code(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 256; v++) {
		float ocp = fp8e5m2_to_float((uint8_t)v, 0), fnuz = fp8e5m2_to_float((uint8_t)v, 1);
		float e4 = fp8e4m3_to_float((uint8_t)v, 0), e4f = fp8e4m3_to_float((uint8_t)v, 1);

		if ((v & 0x7c) == 0x7c && (v & 3))
			assert_true(isnan(ocp));
		else if ((v & 0x7f) == 0x7c)
			assert_true(isinf(ocp) && (ocp < 0) == (v >> 7));
		else
			assert_true((double)ocp == fp8_expected(v, 5, 2, 15));
		if (v == 0x80)
			assert_true(isnan(fnuz));
		else
			assert_true((double)fnuz == fp8_expected(v, 5, 2, 16));
		if ((v & 0x7f) == 0x7f)
			assert_true(isnan(e4));
		else
			assert_true((double)e4 == fp8_expected(v, 4, 3, 7));
		if (v == 0x80)
			assert_true(isnan(e4f));
		else
			assert_true((double)e4f == fp8_expected(v, 4, 3, 8));
	}
	/* anchors of the definitions: 1.0, the largest finite, the smallest subnormal */
	assert_true(fp8e5m2_to_float(0x3c, 0) == 1.0f && fp8e5m2_to_float(0x40, 1) == 1.0f);
	assert_true(fp8e5m2_to_float(0x7b, 0) == 57344.0f && fp8e5m2_to_float(0x7f, 1) == 57344.0f);
	assert_true(fp8e5m2_to_float(0x01, 0) == 0x1p-16f && fp8e5m2_to_float(0x01, 1) == 0x1p-17f);
	assert_true(fp8e4m3_to_float(0x7e, 0) == 448.0f && fp8e4m3_to_float(0x7f, 1) == 240.0f);
}

/* The encoder the HIP fill runs is the decoders' inverse on every finite code, rounds half to even and saturates. */
static void test_fp8_encoders_invert_the_decoders(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 256; v++)
		for (int fnuz = 0; fnuz < 2; fnuz++) {
			float x5 = fp8e5m2_to_float((uint8_t)v, fnuz), x4 = fp8e4m3_to_float((uint8_t)v, fnuz);

			if (isfinite(x5) && !(fnuz && v == 0x80))
				assert_int_equal(fp8e5m2_bits(x5, fnuz), v);
			if (isfinite(x4) && !(fnuz && v == 0x80))
				assert_int_equal(fp8e4m3_bits(x4, fnuz), v);
		}
	/* e5m2 steps by 0.25 in [1, 2): 1.125 ties to 1.0 (even), 1.375 to 1.5; above the largest finite saturates */
	assert_true(fp8e5m2_to_float(fp8e5m2_bits(1.125f, 0), 0) == 1.0f);
	assert_true(fp8e5m2_to_float(fp8e5m2_bits(1.375f, 0), 0) == 1.5f);
	assert_true(fp8e5m2_to_float(fp8e5m2_bits(1e9f, 0), 0) == 57344.0f);
	assert_true(fp8e5m2_to_float(fp8e5m2_bits(-1e9f, 1), 1) == -57344.0f);
	assert_int_equal(fp8e5m2_bits(NAN, 0), 0x7f);
	assert_int_equal(fp8e5m2_bits(NAN, 1), 0x80);
	assert_int_equal(fp8e5m2_bits(-0.0f, 1), 0); /* fnuz has no negative zero */
	assert_true(fp8e4m3_to_float(fp8e4m3_bits(1000.0f, 1), 1) == 240.0f);
}

/* fp8e5m2 is the backward pass's mixed GEMM: A (gradient) e5m2, B (weight) e4m3; the others are one type. */
static void test_gemm_operand_dtypes(void **state)
{
	(void)state;
	assert_int_equal(dtype_parse("fp8e5m2"), DT_FP8E5M2);
	assert_int_equal(gemm_a_dtype(DT_FP8E5M2), DT_FP8E5M2);
	assert_int_equal(gemm_b_dtype(DT_FP8E5M2), DT_FP8E4M3);
	assert_int_equal(gemm_b_dtype(DT_FP8E4M3), DT_FP8E4M3);
	assert_int_equal(gemm_b_dtype(DT_BF16), DT_BF16);
	assert_int_equal(dtype_size(DT_FP8E5M2), 1);
	assert_true(gemm_tolerance(DT_FP8E5M2, 4096) == gemm_tolerance(DT_BF16, 4096)); /* bf16 output */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_is_max_one_int_quotient),
		cmocka_unit_test(test_schedule_with_flush_matches_triton),
		cmocka_unit_test(test_estimate_leaves_out_the_first_touch),
		cmocka_unit_test(test_repeat_has_a_floor),
		cmocka_unit_test(test_schedule_without_flush),
		cmocka_unit_test(test_schedule_stops_on_a_failed_call),
		cmocka_unit_test(test_steady_is_declared_after_the_plateau_not_before),
		cmocka_unit_test(test_steady_window_is_sized_in_the_steady_state),
		cmocka_unit_test(test_steady_holds_a_power_cap_swing),
		cmocka_unit_test(test_steady_budget_ends_a_probe_that_never_settles),
		cmocka_unit_test(test_steady_without_probe_sustains_the_fixed_warmup),
		cmocka_unit_test(test_steady_falls_back_when_the_probe_stops_reading),
		cmocka_unit_test(test_burst_mode_is_unchanged_by_a_probe),
		cmocka_unit_test(test_steady_check_needs_a_full_steady_window),
		cmocka_unit_test(test_telemetry_summary_of_samples),
		cmocka_unit_test(test_telemetry_window_samples_in_the_background),
		cmocka_unit_test(test_telemetry_without_the_library_degrades),
		cmocka_unit_test(test_stats_match_numpy),
		cmocka_unit_test(test_gemm_check_detects_wrong_outputs),
		cmocka_unit_test(test_gemm_check_fails_the_faults),
		cmocka_unit_test(test_gemm_check_marks_record_failed),
		cmocka_unit_test(test_tflops_formula),
		cmocka_unit_test(test_fp8_decoders_every_code),
		cmocka_unit_test(test_fp8_encoders_invert_the_decoders),
		cmocka_unit_test(test_gemm_operand_dtypes),
		cmocka_unit_test(test_energy_from_telemetry),
		cmocka_unit_test(test_telemetry_combined_over_gpus),
		cmocka_unit_test(test_telemetry_window_energy_counter),
		cmocka_unit_test(test_loaded_names_libc_with_its_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
