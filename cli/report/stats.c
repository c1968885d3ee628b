#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double stats_median(const double *x, size_t n)
{
	double *s, m;

	if (!n)
		return NAN;
	s = xmalloc(n * sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_d);
	m = median_sorted(s, n);
	free(s);
	return m;
}

/* Number of ways to choose the a-sample's ranks so that U = u, for sizes m, n (no ties): a classic DP. */
static double exact_p(double u, size_t m, size_t n)
{
	size_t maxu = m * n;
	double *f = xcalloc((m + 1) * (n + 1) * (maxu + 1), sizeof(double)), total = 0, tail = 0, umin;
#define F(i, j, k) f[((i) * (n + 1) + (j)) * (maxu + 1) + (k)]

	for (size_t i = 0; i <= m; i++)
		for (size_t j = 0; j <= n; j++)
			for (size_t k = 0; k <= maxu; k++) {
				double v;

				if (i == 0 || j == 0) {
					v = k == 0;
				} else {
					/* the largest value is from a (adds j to U) or from b */
					v = (k >= j ? F(i - 1, j, k - j) : 0) + F(i, j - 1, k);
				}
				F(i, j, k) = v;
			}
	umin = u < maxu - u ? u : maxu - u;
	for (size_t k = 0; k <= maxu; k++) {
		total += F(m, n, k);
		if ((double)k <= umin + 1e-9)
			tail += F(m, n, k);
	}
#undef F
	free(f);
	tail = 2 * tail / total;
	return tail > 1 ? 1 : tail;
}

void stats_mann_whitney(double *out_u, double *out_p, const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	struct rv { double v; int from_a; } *all = xmalloc(n * sizeof(*all));
	double ra = 0, ties = 0, u, mu, sigma, z;
	int tied = 0;

	for (size_t i = 0; i < na; i++)
		all[i] = (struct rv){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct rv){ b[i], 0 };
	qsort(all, n, sizeof(*all), cmp_d); /* sorts by v, the first member */
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && all[j].v == all[i].v)
			j++;
		for (size_t k = i; k < j; k++)
			if (all[k].from_a)
				ra += (double)(i + j + 1) / 2; /* mid-rank of ranks i+1..j */
		if (j - i > 1) {
			double t = (double)(j - i);

			ties += t * t * t - t;
			tied = 1;
		}
		i = j;
	}
	free(all);
	u = ra - (double)na * (na + 1) / 2;
	*out_u = u;
	if (na == 0 || nb == 0) {
		*out_p = NAN;
		return;
	}
	if (!tied && na <= 8 && nb <= 8) {
		*out_p = exact_p(u, na, nb);
		return;
	}
	mu = (double)na * nb / 2;
	sigma = sqrt((double)na * nb / 12.0 * ((double)(n + 1) - ties / ((double)n * (n - 1))));
	if (sigma == 0) {
		*out_p = 1;
		return;
	}
	z = (fabs(u - mu) - 0.5) / sigma;
	if (z < 0)
		z = 0;
	*out_p = erfc(z / sqrt(2.0));
}

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform indices in [0, n) two at a time: each 64-bit draw gives two 32-bit halves, scaled by n (Lemire's
 * multiply-shift; the bias, n / 2^32, is far below what 2000 resamples can resolve). */
struct draw {
	uint64_t *state;
	uint64_t word;
	int have;
};

static size_t draw_index(struct draw *d, size_t n)
{
	uint32_t half;

	if (!d->have) {
		d->word = next(d->state);
		half = (uint32_t)d->word;
		d->have = 1;
	} else {
		half = (uint32_t)(d->word >> 32);
		d->have = 0;
	}
	return (size_t)(((uint64_t)half * n) >> 32);
}

/* The median of one resample of sorted[0..n): draw n indices, count them, and walk the counts to the middle
 * order statistic(s) — no sort, O(n) per resample. */
static double resample_median(const double *sorted, size_t n, uint32_t *counts, struct draw *d)
{
	size_t want1 = (n - 1) / 2, want2 = n / 2, seen = 0, i;
	double m1 = 0;

	memset(counts, 0, n * sizeof(*counts));
	for (size_t k = 0; k < n; k++)
		counts[draw_index(d, n)]++;
	for (i = 0; i < n; i++) {
		if (seen + counts[i] > want1)
			break;
		seen += counts[i];
	}
	m1 = sorted[i];
	if (want2 == want1)
		return m1;
	/* the next order statistic: still index i while its count covers it, else the next drawn index */
	if (seen + counts[i] > want2)
		return m1;
	for (seen += counts[i], i++; i < n && counts[i] == 0; i++)
		;
	return (m1 + sorted[i < n ? i : n - 1]) / 2;
}

/* Rearranges r[0..n) so that r[k] holds the k-th smallest (Hoare's selection, median-of-three pivot). */
static void select_kth(double *r, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double a = r[lo], b = r[mid], c = r[hi], pivot, t;

		pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		while (i <= j) {
			while (r[i] < pivot)
				i++;
			while (r[j] > pivot)
				j--;
			if (i <= j) {
				t = r[i], r[i] = r[j], r[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/* The p-th percentile of r[0..n), linearly interpolated between order statistics; reorders r. */
static double percentile(double *r, size_t n, double p)
{
	double idx = p * (double)(n - 1), x, y;
	size_t i = (size_t)idx;

	select_kth(r, n, i);
	x = r[i];
	if (i + 1 >= n)
		return x;
	/* the next order statistic is the smallest of what selection left above i */
	y = r[i + 1];
	for (size_t j = i + 2; j < n; j++)
		if (r[j] < y)
			y = r[j];
	return x + (y - x) * (idx - (double)i);
}

void stats_bootstrap_ratio_ci(double *lo, double *hi, const double *num, size_t nn, const double *den, size_t nd,
			      unsigned resamples, uint64_t seed)
{
	double *r = xmalloc(resamples * sizeof(*r)), *sn = xmalloc(nn * sizeof(*sn)), *sd = xmalloc(nd * sizeof(*sd));
	uint32_t *cn = xmalloc(nn * sizeof(*cn)), *cd = xmalloc(nd * sizeof(*cd));
	uint64_t s = seed;
	struct draw d = { &s, 0, 0 };

	memcpy(sn, num, nn * sizeof(*sn));
	memcpy(sd, den, nd * sizeof(*sd));
	qsort(sn, nn, sizeof(*sn), cmp_d);
	qsort(sd, nd, sizeof(*sd), cmp_d);
	for (unsigned k = 0; k < resamples; k++) {
		double a = resample_median(sn, nn, cn, &d);

		r[k] = a / resample_median(sd, nd, cd, &d);
	}
	/* percentile interval: the 2.5th and 97.5th percentiles, linearly interpolated */
	*lo = percentile(r, resamples, 0.025);
	*hi = percentile(r, resamples, 0.975);
	free(r);
	free(sn);
	free(sd);
	free(cn);
	free(cd);
}
