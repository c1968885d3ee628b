#include "dobench.h"

#include <math.h>
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

#define TRY(x)                        \
	do {                          \
		if ((err = (x)) != 0) \
			goto cleanup; \
	} while (0)

int dobench_run(struct dobench_result *out, const struct dobench_opts *o, const struct dobench_fn *fn,
		const struct dobench_clock *clk)
{
	double est = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
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
	out->estimate_ms = est / 5;
	out->n_warmup = dobench_count(o->warmup_ms, out->estimate_ms, o->max_repeat);
	out->n_repeat = dobench_count(o->rep_ms, out->estimate_ms, o->max_repeat);
	TRY(clk->reserve(clk->ctx, out->n_repeat));
	for (size_t i = 0; i < out->n_warmup; i++)
		TRY(fn->call(fn->ctx));
	for (size_t i = 0; i < out->n_repeat; i++) {
		if (o->flush)
			TRY(fn->flush(fn->ctx));
		TRY(clk->mark_start(clk->ctx, i));
		TRY(fn->call(fn->ctx));
		TRY(clk->mark_end(clk->ctx, i));
	}
	TRY(clk->sync(clk->ctx));
	out->samples_ms = calloc(out->n_repeat, sizeof(double));
	if (!out->samples_ms) {
		err = -1;
		goto cleanup;
	}
	for (size_t i = 0; i < out->n_repeat; i++)
		TRY(clk->elapsed_ms(clk->ctx, i, &out->samples_ms[i]));
	out->n = out->n_repeat;
cleanup:
	if (err)
		dobench_result_release(out);
	return err;
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
