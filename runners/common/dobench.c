/* SPDX-License-Identifier: Apache-2.0 */
#include "dobench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

size_t dobench_count(double budget_ms, double estimate_ms, size_t max)
{
	double q;
	size_t n;

	if (!(estimate_ms > 0))
		return max ? max : 1;
	q = budget_ms / estimate_ms;
	n = q >= 1.0 ? (size_t)q : 1; /* int() truncates, as Python does for positives */
	if (max && n > max)
		n = max;
	return n;
}

size_t dobench_repeat(const struct dobench_opts *o, double estimate_ms)
{
	size_t n = dobench_count(o->rep_ms, estimate_ms, o->max_repeat);
	size_t floor = o->min_repeat ? o->min_repeat : DOBENCH_MIN_REPEAT;

	if (o->max_repeat && floor > o->max_repeat)
		floor = o->max_repeat;
	return n < floor ? floor : n;
}

#define TRY(x)                        \
	do {                          \
		if ((err = (x)) != 0) \
			goto cleanup; \
	} while (0)

int dobench_estimate(double *estimate_ms, const struct dobench_opts *o, const struct dobench_fn *fn,
		     const struct dobench_clock *clk)
{
	double est = 0;
	int err = 0;

	/* first touches outside the estimate: the flush buffer's pages (a first memset of 64 MiB faults them in and
	 * took 100 ms where the operation took 9) and the operation's own */
	if (o->flush)
		TRY(fn->flush(fn->ctx));
	TRY(fn->call(fn->ctx));
	TRY(clk->sync(clk->ctx));
	TRY(clk->reserve(clk->ctx, 1));
	TRY(clk->mark_start(clk->ctx, 0));
	for (int i = 0; i < 5; i++) {
		if (o->flush)
			TRY(fn->flush(fn->ctx));
		TRY(fn->call(fn->ctx));
	}
	TRY(clk->mark_end(clk->ctx, 0));
	TRY(clk->sync(clk->ctx));
	TRY(clk->elapsed_ms(clk->ctx, 0, &est));
	*estimate_ms = est / 5;
cleanup:
	return err;
}

static int cmp_double(const void *a, const void *b);

static double median_of(const double *x, size_t n, double *lo, double *hi)
{
	double *s = malloc(n * sizeof(*s)), m;

	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = stats_percentile_sorted(s, n, 0.5);
	*lo = s[0];
	*hi = s[n - 1];
	free(s);
	return m;
}

int dobench_steady_check(const double *t, const double *sm_mhz, const double *power_w, size_t n,
			 const struct dobench_steady *st)
{
	size_t first, prev;
	double lo, hi, c1, c0, p1, p0;

	/* two consecutive windows: [now - 2w, now - w) and [now - w, now]. Under a power cap the SM clock swings a few
	 * percent from one probe to the next, so a range within one window never settles; the medians of two windows
	 * in a row do, once the board has left its boost. */
	if (n < 6 || t[n - 1] < st->min_ms || t[n - 1] - t[0] < 2 * st->window_ms)
		return 0;
	for (first = n - 1; first > 0 && t[first - 1] >= t[n - 1] - st->window_ms; first--)
		;
	for (prev = first; prev > 0 && t[prev - 1] >= t[n - 1] - 2 * st->window_ms; prev--)
		;
	if (n - first < 3 || first - prev < 3) /* too few probes inside a window to call it steady */
		return 0;
	c1 = median_of(sm_mhz + first, n - first, &lo, &hi);
	c0 = median_of(sm_mhz + prev, first - prev, &lo, &hi);
	p1 = median_of(power_w + first, n - first, &lo, &hi);
	p0 = median_of(power_w + prev, first - prev, &lo, &hi);
	return c1 > 0 && p1 > 0 && fabs(c1 - c0) <= st->clock_tol * c1 && fabs(p1 - p0) <= st->power_tol * p1;
}

int dobench_steady_warmup(struct dobench_warm *out, double estimate_ms, const struct dobench_opts *o,
			  const struct dobench_fn *fn, const struct dobench_clock *clk)
{
	static const struct dobench_steady defaults = DOBENCH_STEADY_DEFAULTS;
	const struct dobench_steady *st = o->steady.burst_ms > 0 ? &o->steady : &defaults;
	const struct dobench_probe *pr = o->probe;
	size_t per_burst = dobench_count(st->burst_ms, estimate_ms, o->max_repeat), cap = 0;
	double *t = NULL, *clock = NULL, *power = NULL, now = 0;
	const char *why = o->probe_why ? o->probe_why : "no telemetry";
	int probing = pr && pr->read, err = 0;
	char read_why[64] = "";
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->estimate_first_ms = estimate_ms;
	TRY(clk->reserve(clk->ctx, 1));
	for (;;) {
		double ms = 0;

		/* the loop that is timed: each call after a flush when o->flush, so the state detected is the state timed */
		TRY(clk->mark_start(clk->ctx, 0));
		for (size_t i = 0; i < per_burst; i++) {
			if (o->flush)
				TRY(fn->flush(fn->ctx));
			TRY(fn->call(fn->ctx));
		}
		TRY(clk->mark_end(clk->ctx, 0));
		TRY(clk->sync(clk->ctx));
		TRY(clk->elapsed_ms(clk->ctx, 0, &ms));
		now += ms;
		out->n_calls += per_burst;
		out->n_bursts++;
		out->per_call_ms = ms / (double)per_burst;
		/* the estimate may come from an idle board (a few times slower than under load): the next burst is sized
		 * from this one's own rate, so bursts last ~burst_ms whatever the clock was at the start */
		if (ms > 0)
			per_burst = dobench_count(st->burst_ms, ms / (double)per_burst, o->max_repeat);
		if (probing) {
			double c = 0, p = 0;
			int rc = pr->read(pr->ctx, &c, &p);

			if (rc != 0) {
				probing = 0;
				snprintf(read_why, sizeof(read_why), "the probe failed (%d) after %.0f ms", rc, now);
				why = read_why;
			} else {
				if (n == cap) {
					size_t nc = cap ? 2 * cap : 256;
					double *a = realloc(t, nc * sizeof(*a)), *b, *d;

					if (a)
						t = a;
					b = a ? realloc(clock, nc * sizeof(*b)) : NULL;
					if (b)
						clock = b;
					d = b ? realloc(power, nc * sizeof(*d)) : NULL;
					if (!d) {
						err = -1;
						goto cleanup;
					}
					power = d;
					cap = nc;
				}
				t[n] = now;
				clock[n] = c;
				power[n] = p;
				n++;
				if (dobench_steady_check(t, clock, power, n, st)) {
					out->steady_reached = 1;
					snprintf(out->method, sizeof(out->method),
						 "steady: the median SM clock within %g%% and the median power within %g%% over two "
						 "windows of %g ms in a row (probed after each ~%g ms burst; at least %g ms)",
						 st->clock_tol * 100, st->power_tol * 100, st->window_ms, st->burst_ms,
						 st->min_ms);
					break;
				}
				if (now >= st->budget_ms) {
					snprintf(out->method, sizeof(out->method),
						 "budget: %g ms of sustained load ended the warm-up before the median SM clock (%g%%) "
						 "and power (%g%%) held over two windows of %g ms",
						 st->budget_ms, st->clock_tol * 100, st->power_tol * 100, st->window_ms);
					break;
				}
				continue;
			}
		}
		if (now >= st->fallback_ms) {
			snprintf(out->method, sizeof(out->method), "fixed: %g ms of sustained load (%s)", st->fallback_ms,
				 why);
			break;
		}
	}
	out->steady_after_ms = now;
	/* the estimate again, in the state the timed window runs in: it sizes that window (the first one may have run
	 * at idle clocks, several times slower, and would shrink the window to a fraction of rep_ms) */
	TRY(dobench_estimate(&out->estimate_ms, o, fn, clk));
cleanup:
	free(t);
	free(clock);
	free(power);
	return err;
}

int dobench_timed_loop(double *samples, double *loop_ms, size_t n, const struct dobench_opts *o,
		       const struct dobench_fn *fn, const struct dobench_clock *clk)
{
	const struct dobench_probe *pr = o->probe;
	int err = 0, open = 0;

	/* slot n spans the whole loop, flushes included: the figure the warm-up's bursts are compared with */
	TRY(clk->reserve(clk->ctx, n + 1));
	if (pr && pr->timed) {
		TRY(pr->timed(pr->ctx, 1));
		open = 1;
	}
	TRY(clk->mark_start(clk->ctx, n));
	for (size_t i = 0; i < n; i++) {
		if (o->flush)
			TRY(fn->flush(fn->ctx));
		TRY(clk->mark_start(clk->ctx, i));
		TRY(fn->call(fn->ctx));
		TRY(clk->mark_end(clk->ctx, i));
	}
	TRY(clk->mark_end(clk->ctx, n));
	TRY(clk->sync(clk->ctx));
	for (size_t i = 0; i < n; i++)
		TRY(clk->elapsed_ms(clk->ctx, i, &samples[i]));
	if (loop_ms)
		TRY(clk->elapsed_ms(clk->ctx, n, loop_ms));
cleanup:
	if (open)
		pr->timed(pr->ctx, 0);
	return err;
}

int dobench_timed(double *samples, size_t n, const struct dobench_opts *o, const struct dobench_fn *fn,
		  const struct dobench_clock *clk)
{
	return dobench_timed_loop(samples, NULL, n, o, fn, clk);
}

int dobench_run(struct dobench_result *out, const struct dobench_opts *o, const struct dobench_fn *fn,
		const struct dobench_clock *clk)
{
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->mode = o->mode;
	TRY(dobench_estimate(&out->estimate_ms, o, fn, clk));
	if (o->mode == DOBENCH_STEADY) {
		TRY(dobench_steady_warmup(&out->warm, out->estimate_ms, o, fn, clk));
		out->n_warmup = out->warm.n_calls;
		out->estimate_ms = out->warm.estimate_ms; /* the window is sized in the steady state */
		out->n_repeat = dobench_repeat(o, out->estimate_ms);
	} else {
		out->n_repeat = dobench_repeat(o, out->estimate_ms);
		out->n_warmup = dobench_count(o->warmup_ms, out->estimate_ms, o->max_repeat);
		TRY(clk->reserve(clk->ctx, out->n_repeat));
		for (size_t i = 0; i < out->n_warmup; i++)
			TRY(fn->call(fn->ctx));
	}
	out->samples_ms = calloc(out->n_repeat, sizeof(double));
	if (!out->samples_ms) {
		err = -1;
		goto cleanup;
	}
	TRY(dobench_timed_loop(out->samples_ms, &out->loop_ms, out->n_repeat, o, fn, clk));
	out->n = out->n_repeat;
cleanup:
	if (err)
		dobench_result_release(out);
	return err;
}

enum dobench_mode dobench_mode_parse(const char *s, enum dobench_mode def)
{
	if (s && !strcmp(s, "steady"))
		return DOBENCH_STEADY;
	if (s && !strcmp(s, "burst"))
		return DOBENCH_BURST;
	return def;
}

const char *dobench_mode_name(enum dobench_mode m)
{
	return m == DOBENCH_STEADY ? "steady" : "burst";
}

void dobench_result_release(struct dobench_result *r)
{
	free(r->samples_ms);
	r->samples_ms = NULL;
	r->n = 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double stats_percentile_sorted(const double *s, size_t n, double p)
{
	double idx, frac;
	size_t lo;

	if (n == 0)
		return NAN;
	idx = p * (double)(n - 1);
	lo = (size_t)idx;
	if (lo + 1 >= n)
		return s[n - 1];
	frac = idx - (double)lo;
	return s[lo] + (s[lo + 1] - s[lo]) * frac;
}

void stats_compute(struct stats *out, const double *x, size_t n)
{
	double *s, sum = 0, sq = 0;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n == 0) {
		out->median = out->mean = out->min = out->max = out->p10 = out->p90 = out->cv = NAN;
		return;
	}
	s = malloc(n * sizeof(*s));
	if (!s)
		return;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (s[i] - out->mean) * (s[i] - out->mean);
	out->cv = n > 1 && out->mean != 0 ? sqrt(sq / (double)(n - 1)) / out->mean : 0;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = stats_percentile_sorted(s, n, 0.5);
	out->p10 = stats_percentile_sorted(s, n, 0.1);
	out->p90 = stats_percentile_sorted(s, n, 0.9);
	free(s);
}

/* --- the CPU clock ------------------------------------------------------------------------------------------ */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cpu_reserve(void *ctx, size_t n)
{
	struct cpu_clock *c = ctx;
	double *s, *e;

	if (n <= c->n)
		return 0;
	s = realloc(c->start, n * sizeof(*s));
	if (!s)
		return -1;
	c->start = s;
	e = realloc(c->end, n * sizeof(*e));
	if (!e)
		return -1;
	c->end = e;
	c->n = n;
	return 0;
}

static int cpu_mark_start(void *ctx, size_t i)
{
	((struct cpu_clock *)ctx)->start[i] = now_ms();
	return 0;
}

static int cpu_mark_end(void *ctx, size_t i)
{
	((struct cpu_clock *)ctx)->end[i] = now_ms();
	return 0;
}

static int cpu_sync(void *ctx)
{
	(void)ctx;
	return 0;
}

static int cpu_elapsed(void *ctx, size_t i, double *ms)
{
	struct cpu_clock *c = ctx;

	*ms = c->end[i] - c->start[i];
	return 0;
}

void cpu_clock_ops(struct dobench_clock *out, struct cpu_clock *c)
{
	out->ctx = c;
	out->reserve = cpu_reserve;
	out->mark_start = cpu_mark_start;
	out->mark_end = cpu_mark_end;
	out->sync = cpu_sync;
	out->elapsed_ms = cpu_elapsed;
}

void cpu_clock_release(struct cpu_clock *c)
{
	free(c->start);
	free(c->end);
	memset(c, 0, sizeof(*c));
}
