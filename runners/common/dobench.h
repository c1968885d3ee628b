/*
 * dobench.h — Triton's do_bench schedule (triton-lang/triton, python/triton/testing.py) for any clock, and the
 * summary statistics of its samples.
 *
 * Schedule: one untimed call; estimate = 5 calls, each after a cache flush, timed together / 5;
 * n_warmup = max(1, int(warmup_ms / estimate)), n_repeat = max(1, int(rep_ms / estimate)); warm-up calls
 * without flush; then each timed call after a flush (outside its timed region) with its own start/end mark.
 *
 * Ownership: dobench_run() allocates out->samples_ms; dobench_result_release() frees it. The clock and the
 * function are borrowed for the call.
 */
#ifndef BENCH_DOBENCH_H
#define BENCH_DOBENCH_H

#include <stddef.h>

struct dobench_clock {
	void *ctx;
	int (*reserve)(void *ctx, size_t n);        /* make n start/end slots ready */
	int (*mark_start)(void *ctx, size_t i);
	int (*mark_end)(void *ctx, size_t i);
	int (*sync)(void *ctx);                      /* wait until every mark is complete */
	int (*elapsed_ms)(void *ctx, size_t i, double *ms);
};

struct dobench_fn {
	void *ctx;
	int (*call)(void *ctx);  /* one call of the measured operation */
	int (*flush)(void *ctx); /* zero the flush buffer (called only when opts.flush) */
};

struct dobench_opts {
	double warmup_ms;
	double rep_ms;
	int flush;
	size_t max_repeat; /* 0: no cap */
};

struct dobench_result {
	double estimate_ms;
	size_t n_warmup, n_repeat;
	double *samples_ms;
	size_t n;
};

#define DOBENCH_RESULT_INIT { 0, 0, 0, NULL, 0 }

struct stats {
	size_t n;
	double median, mean, min, max, p10, p90, cv;
};

/* max(1, int(budget_ms / estimate_ms)), capped at max (0: no cap). */
size_t dobench_count(double budget_ms, double estimate_ms, size_t max);
/* Returns 0, or the first non-zero code of a clock or function call. */
int dobench_run(struct dobench_result *out, const struct dobench_opts *o, const struct dobench_fn *fn,
		const struct dobench_clock *clk);
void dobench_result_release(struct dobench_result *r);

/* numpy-style linear-interpolated percentiles; cv = sample standard deviation / mean. */
void stats_compute(struct stats *out, const double *x, size_t n);
double stats_percentile_sorted(const double *sorted, size_t n, double p);

/* A monotonic CPU clock for synchronous calls (CLOCK_MONOTONIC). */
struct cpu_clock {
	double *start, *end;
	size_t n;
};
#define CPU_CLOCK_INIT { NULL, NULL, 0 }
void cpu_clock_ops(struct dobench_clock *out, struct cpu_clock *c);
void cpu_clock_release(struct cpu_clock *c);

#endif
