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

void stats_bootstrap_ratio_ci(double *lo, double *hi, const double *num, size_t nn, const double *den, size_t nd,
			      unsigned resamples, uint64_t seed)
{
	double *r = xmalloc(resamples * sizeof(*r)), *bn = xmalloc(nn * sizeof(*bn)), *bd = xmalloc(nd * sizeof(*bd));
	uint64_t s = seed;

	for (unsigned k = 0; k < resamples; k++) {
		for (size_t i = 0; i < nn; i++)
			bn[i] = num[next(&s) % nn];
		for (size_t i = 0; i < nd; i++)
			bd[i] = den[next(&s) % nd];
		qsort(bn, nn, sizeof(*bn), cmp_d);
		qsort(bd, nd, sizeof(*bd), cmp_d);
		r[k] = median_sorted(bn, nn) / median_sorted(bd, nd);
	}
	qsort(r, resamples, sizeof(*r), cmp_d);
	/* percentile interval: the 2.5th and 97.5th percentiles, linearly interpolated */
	{
		double p[2] = { 0.025, 0.975 }, *out[2] = { lo, hi };

		for (int t = 0; t < 2; t++) {
			double idx = p[t] * (resamples - 1);
			size_t i = (size_t)idx;

			*out[t] = i + 1 < resamples ? r[i] + (r[i + 1] - r[i]) * (idx - (double)i) : r[i];
		}
	}
	free(r);
	free(bn);
	free(bd);
}
