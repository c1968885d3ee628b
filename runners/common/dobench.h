/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dobench.h — Triton's do_bench schedule (triton-lang/triton, python/triton/testing.py) for any clock, and the
 * summary statistics of its samples.
 *
 * Schedule: one flush and one untimed call (first touches: page faults of the flush buffer and of the operation's
 * memory, compilation, lazy initialisation); estimate = 5 calls, each after a cache flush, timed together / 5;
 * n_warmup = max(1, int(warmup_ms / estimate)), n_repeat = max(min_repeat, int(rep_ms / estimate)) (min_repeat
 * DOBENCH_MIN_REPEAT unless set: one sample has no spread, and a median of 1 to 9 is not worth comparing);
 * warm-up calls without flush; then each timed call after a flush (outside its timed region) with its own
 * start/end mark.
 *
 * Modes: burst is the schedule above, unchanged. steady replaces the warm-up: after the estimate, the operation
 * runs in bursts of ~burst_ms of the loop that is timed (each call after a flush when o->flush; each burst timed on
 * the clock as a whole), the probe is read after each, and the
 * warm-up ends when the medians of the SM clock and of the power over the last window_ms of sustained load are
 * within clock_tol and power_tol of their medians over the window before (after at least min_ms; at most
 * budget_ms): under a power cap the clock swings from probe to probe, but its median holds. Each burst is sized from
 * the previous one's rate (the first estimate may come from an idle board). The estimate is then taken again (the
 * same 5 flushed calls), in the sustained state, and it sizes the timed window, which follows it at once: rep_ms means
 * rep_ms of the steady state. Without a probe (or when it cannot read), a fixed fallback_ms of sustained load
 * replaces the detector.
 *
 * Ownership: dobench_run() allocates out->samples_ms; dobench_result_release() frees it. The clock, the
 * function and the probe are borrowed for the call.
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

enum dobench_mode { DOBENCH_BURST = 0, DOBENCH_STEADY = 1 };

/* What the steady detector reads after each burst (telemetry.h provides one for the GPU). */
struct dobench_probe {
	void *ctx;
	int (*read)(void *ctx, double *sm_mhz, double *power_w); /* 0, or negative: no reading */
	int (*timed)(void *ctx, int begin); /* optional: 1 before the timed window, 0 after its final sync */
};

struct dobench_steady {
	double burst_ms;    /* length of one burst of calls */
	double window_ms;   /* two windows in a row are compared */
	double min_ms;      /* sustained load before steady can be declared */
	double budget_ms;   /* sustained load after which the warm-up ends unsteady */
	double clock_tol;   /* |median SM clock of the last window - of the one before| / the last's */
	double power_tol;   /* the same for power */
	double fallback_ms; /* sustained warm-up without a probe */
};

#define DOBENCH_STEADY_DEFAULTS { 50, 500, 1000, 10000, 0.01, 0.03, 2000 }

struct dobench_opts {
	double warmup_ms;
	double rep_ms;
	int flush;
	size_t max_repeat; /* 0: no cap */
	enum dobench_mode mode;             /* zero: burst */
	const struct dobench_probe *probe;  /* steady: NULL falls back to the fixed warm-up */
	const char *probe_why;              /* why there is no probe (for the method string) */
	struct dobench_steady steady;       /* steady: all zero means DOBENCH_STEADY_DEFAULTS */
	size_t min_repeat;                  /* the fewest timed calls; 0: DOBENCH_MIN_REPEAT (capped at max_repeat) */
};

/* The fewest timed calls of a case, whatever its rep budget: the suites' min_samples in bench (suite_ops). */
#define DOBENCH_MIN_REPEAT 10

/* One steady-state warm-up's outcome. */
struct dobench_warm {
	int steady_reached;
	double steady_after_ms; /* sustained load (clock time of the bursts) until it ended */
	size_t n_calls, n_bursts;
	double estimate_ms;       /* the estimate taken again after the warm-up (flush included when o->flush) */
	double estimate_first_ms; /* the one it was given, from before the warm-up, which sized only the first burst */
	double per_call_ms;       /* the last burst's time per call, flush included when o->flush */
	char method[256];
};

struct dobench_result {
	double estimate_ms;
	size_t n_warmup, n_repeat;
	double *samples_ms;
	size_t n;
	double loop_ms; /* the timed loop begin to end, flushes and gaps included (loop_ms / n: per call) */
	enum dobench_mode mode;
	struct dobench_warm warm; /* steady mode only */
};

#define DOBENCH_RESULT_INIT { 0 }

struct stats {
	size_t n;
	double median, mean, min, max, p10, p90, cv;
};

/* max(1, int(budget_ms / estimate_ms)), capped at max (0: no cap). */
size_t dobench_count(double budget_ms, double estimate_ms, size_t max);
/* The timed calls for o->rep_ms at estimate_ms: dobench_count, at least o->min_repeat (DOBENCH_MIN_REPEAT). */
size_t dobench_repeat(const struct dobench_opts *o, double estimate_ms);
/* Returns 0, or the first non-zero code of a clock or function call. */
int dobench_run(struct dobench_result *out, const struct dobench_opts *o, const struct dobench_fn *fn,
		const struct dobench_clock *clk);
void dobench_result_release(struct dobench_result *r);

/* The phases of dobench_run(), for callers that compose their own schedule (the GEMM tune screen):
 * the untimed call and the estimate (ms per call, flush included when o->flush); the steady warm-up; and n timed
 * calls, each after a flush when o->flush, into samples[0..n) (o->probe->timed brackets them). */
int dobench_estimate(double *estimate_ms, const struct dobench_opts *o, const struct dobench_fn *fn,
		     const struct dobench_clock *clk);
int dobench_steady_warmup(struct dobench_warm *out, double estimate_ms, const struct dobench_opts *o,
			  const struct dobench_fn *fn, const struct dobench_clock *clk);
int dobench_timed(double *samples, size_t n, const struct dobench_opts *o, const struct dobench_fn *fn,
		  const struct dobench_clock *clk);
/* The same, and *loop_ms (when not NULL) = the whole loop on the clock, begin to end, flushes included (one clock
 * slot more: n + 1 are reserved). */
int dobench_timed_loop(double *samples, double *loop_ms, size_t n, const struct dobench_opts *o,
		       const struct dobench_fn *fn, const struct dobench_clock *clk);
/* The detector: given probes at sustained-load times t[0..n) (increasing), is the last window steady? */
int dobench_steady_check(const double *t, const double *sm_mhz, const double *power_w, size_t n,
			 const struct dobench_steady *s);
/* "steady" / "burst"; def when s is NULL or neither. */
enum dobench_mode dobench_mode_parse(const char *s, enum dobench_mode def);
const char *dobench_mode_name(enum dobench_mode m);

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
