/* SPDX-License-Identifier: Apache-2.0 */
#include "stats.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

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

/* Rearranges r[0..n) so that r[k] holds the k-th smallest with nothing larger before it and nothing smaller
 * after it (Hoare's selection, median-of-three pivot). */
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

/* The p-th percentile of r[0..n), linearly interpolated between order statistics: r[i] and r[i+1] are
 * selected, the nearer end scanned for the neighbour. Reorders r. */
static double percentile(double *r, size_t n, double p)
{
	double idx = p * (double)(n - 1), x, y;
	size_t i = (size_t)idx;

	if (i + 1 >= n) {
		select_kth(r, n, i);
		return r[i];
	}
	if (i < n - i) { /* low end: select i+1, r[i] is the largest before it */
		select_kth(r, n, i + 1);
		y = r[i + 1];
		x = r[0];
		for (size_t j = 1; j <= i; j++)
			if (r[j] > x)
				x = r[j];
	} else { /* high end: select i, r[i+1] is the smallest after it */
		select_kth(r, n, i);
		x = r[i];
		y = r[i + 1];
		for (size_t j = i + 2; j < n; j++)
			if (r[j] < y)
				y = r[j];
	}
	return x + (y - x) * (idx - (double)i);
}

/*
 * The distribution of a resample's median depends only on n, not on the data: a resample draws n indices into
 * the sorted sample, and its median is the k-th smallest index (odd n, k = (n+1)/2) or the mean of the k-th and
 * (k+1)-th (even n, k = n/2). So per n, once:
 *   F[i] = P(X(k) <= i) = P(Binomial(n, (i+1)/n) >= k)
 *   Q[i] = P(X(k+1) = i | X(k) = i)       (even n)
 * and X(k+1) given X(k) = i < X(k+1) is the smallest of n-k uniform draws over i+1 .. n-1:
 *   P(X(k+1) - i - 1 <= off) = 1 - ((w - off - 1) / w)^(n-k), w = n - 1 - i.
 * Together they give the joint distribution of the middle pair, kept as one alias table (Walker/Vose): one
 * 64-bit draw per resample median instead of n draws and a sort. The table has n entries for odd n and
 * n(n+1)/2 for even n; above the limits below the counting resampler serves.
 */
#define MEDIAN_TABLE_MAX_ODD 2048
#define MEDIAN_TABLE_MAX_EVEN 512
#define MEDIAN_TABLE_SLOTS 8

struct median_table {
	size_t n, m;        /* sample size, table entries */
	double *prob;       /* entry e is kept with prob[e], else alias[e] is taken */
	uint32_t *alias;
	uint32_t *lo_i, *hi_i; /* entry e: the middle order statistics' indices (equal for odd n) */
};

static struct median_table median_tables[MEDIAN_TABLE_SLOTS];
static pthread_mutex_t median_tables_lock = PTHREAD_MUTEX_INITIALIZER;

/* Vose's alias method over p[0..m) (summing to 1) */
static void alias_build(double *prob, uint32_t *alias, const double *p, size_t m)
{
	size_t *small = xmalloc(m * sizeof(*small)), *large = xmalloc(m * sizeof(*large)), ns = 0, nl = 0;
	double *sc = xmalloc(m * sizeof(*sc)), sum = 0;

	for (size_t i = 0; i < m; i++)
		sum += p[i];
	for (size_t i = 0; i < m; i++) {
		sc[i] = p[i] / sum * (double)m;
		if (sc[i] < 1)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		size_t l = small[--ns], g = large[--nl];

		prob[l] = sc[l];
		alias[l] = (uint32_t)g;
		sc[g] = (sc[g] + sc[l]) - 1;
		if (sc[g] < 1)
			small[ns++] = g;
		else
			large[nl++] = g;
	}
	while (nl) {
		size_t g = large[--nl];

		prob[g] = 1;
		alias[g] = (uint32_t)g;
	}
	while (ns) { /* rounding leftovers */
		size_t l = small[--ns];

		prob[l] = 1;
		alias[l] = (uint32_t)l;
	}
	free(small);
	free(large);
	free(sc);
}

static double log_binom_pmf(size_t n, size_t j, double p)
{
	double lc = lgamma((double)n + 1) - lgamma((double)j + 1) - lgamma((double)(n - j) + 1);

	if (p >= 1)
		return j == n ? 0 : -INFINITY;
	if (p <= 0)
		return j == 0 ? 0 : -INFINITY;
	return lc + (double)j * log(p) + (double)(n - j) * log1p(-p);
}

static void median_table_build(struct median_table *t, size_t n)
{
	size_t k = n % 2 ? (n + 1) / 2 : n / 2, m = 0, cap = n % 2 ? n : n * (n + 1) / 2;
	double *p = xmalloc(cap * sizeof(*p)), f_prev = 0;

	t->n = n;
	t->lo_i = xmalloc(cap * sizeof(*t->lo_i));
	t->hi_i = xmalloc(cap * sizeof(*t->hi_i));
	for (size_t i = 0; i < n; i++) {
		double f = 0, c, e, q, g_prev = 0;
		size_t w = n - 1 - i;

		for (size_t j = k; j <= n; j++)
			f += exp(log_binom_pmf(n, j, (double)(i + 1) / (double)n));
		f = i + 1 == n ? 1 : fmin(f, 1);
		c = f - f_prev; /* P(X(k) = i) */
		f_prev = f;
		t->lo_i[m] = t->hi_i[m] = (uint32_t)i;
		if (n % 2) {
			p[m++] = c;
			continue;
		}
		/* e = P(X(k) = i < X(k+1)): exactly k draws <= i, not all of them below i */
		e = exp(log_binom_pmf(n, k, (double)(i + 1) / (double)n));
		if (i > 0 && i + 1 < n)
			e -= exp(lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
				 (double)k * log((double)i / (double)n) + (double)(n - k) * log((double)(n - 1 - i) / (double)n));
		else if (i + 1 == n)
			e = 0;
		q = c > 0 ? fmin(fmax(1 - e / c, 0), 1) : 1;
		p[m++] = c * q;
		for (size_t off = 0; off < w; off++) {
			double g = off + 1 == w ? 1 : 1 - pow((double)(w - off - 1) / (double)w, (double)(n - k));

			t->lo_i[m] = (uint32_t)i, t->hi_i[m] = (uint32_t)(i + 1 + off);
			p[m++] = c * (1 - q) * (g - g_prev);
			g_prev = g;
		}
	}
	t->m = m;
	t->prob = xmalloc(m * sizeof(*t->prob));
	t->alias = xmalloc(m * sizeof(*t->alias));
	alias_build(t->prob, t->alias, p, m);
	free(p);
}

/* The table for n, built on first use; NULL above the size limits or when every slot holds another n (the
 * caller counts instead). */
static const struct median_table *median_table_get(size_t n)
{
	const struct median_table *found = NULL;

	if (n > (n % 2 ? MEDIAN_TABLE_MAX_ODD : MEDIAN_TABLE_MAX_EVEN))
		return NULL;
	pthread_mutex_lock(&median_tables_lock);
	for (size_t s = 0; s < MEDIAN_TABLE_SLOTS && !found; s++)
		if (median_tables[s].n == n)
			found = &median_tables[s];
	for (size_t s = 0; s < MEDIAN_TABLE_SLOTS && !found; s++)
		if (!median_tables[s].n) {
			median_table_build(&median_tables[s], n);
			found = &median_tables[s];
		}
	pthread_mutex_unlock(&median_tables_lock);
	return found;
}

/* one draw: the high half picks an entry, the low half keeps it or takes its alias */
static double table_median(const struct median_table *t, const double *sorted, uint64_t *s)
{
	uint64_t r = next(s);
	size_t e = (size_t)(((r >> 32) * (uint64_t)t->m) >> 32);

	if ((double)(uint32_t)r * 0x1.0p-32 >= t->prob[e])
		e = t->alias[e];
	return (sorted[t->lo_i[e]] + sorted[t->hi_i[e]]) / 2;
}

void stats_bootstrap_ratio_ci(double *lo, double *hi, const double *num, size_t nn, const double *den, size_t nd,
			      unsigned resamples, uint64_t seed)
{
	double *r = xmalloc(resamples * sizeof(*r)), *sn = xmalloc(nn * sizeof(*sn)), *sd = xmalloc(nd * sizeof(*sd));
	uint32_t *cn = xmalloc(nn * sizeof(*cn)), *cd = xmalloc(nd * sizeof(*cd));
	uint64_t s = seed;
	struct draw d = { &s, 0, 0 };
	const struct median_table *tn = median_table_get(nn), *td = median_table_get(nd);

	memcpy(sn, num, nn * sizeof(*sn));
	memcpy(sd, den, nd * sizeof(*sd));
	qsort(sn, nn, sizeof(*sn), cmp_d);
	qsort(sd, nd, sizeof(*sd), cmp_d);
	for (unsigned k = 0; k < resamples; k++) {
		double a = tn ? table_median(tn, sn, &s) : resample_median(sn, nn, cn, &d);

		r[k] = a / (td ? table_median(td, sd, &s) : resample_median(sd, nd, cd, &d));
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

uint64_t stats_seed_from_key(const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then one splitmix64 step to spread it */

	for (; key && *key; key++)
		h = (h ^ (unsigned char)*key) * 0x100000001b3ull;
	return next(&h);
}

/* the median of v[0..n), in place: insertion sort for the few samples of a run, qsort for many (the medians of
 * a thousand runs per side were sorted by insertion in every bootstrap resample: quadratic in runs) */
static double small_median(double *v, size_t n)
{
	if (n > 32) {
		qsort(v, n, sizeof(*v), cmp_d);
		return median_sorted(v, n);
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return median_sorted(v, n);
}

double stats_median_of_medians(const double *const *runs, const size_t *n, size_t nruns)
{
	double *m, r;

	if (!nruns)
		return NAN;
	m = xmalloc(nruns * sizeof(*m));
	for (size_t i = 0; i < nruns; i++)
		m[i] = stats_median(runs[i], n[i]);
	r = small_median(m, nruns);
	free(m);
	return r;
}

/* One side of a hierarchical resample: its runs sorted, with each run's median table (or counting buffer). */
struct hier_side {
	size_t nruns, *n;
	double **sorted, *meds;
	uint32_t **counts;
	const struct median_table **tab;
};

static void hier_side_init(struct hier_side *h, const double *const *runs, const size_t *n, size_t nruns)
{
	h->nruns = nruns;
	h->n = xmalloc(nruns * sizeof(*h->n));
	h->sorted = xmalloc(nruns * sizeof(*h->sorted));
	h->counts = xmalloc(nruns * sizeof(*h->counts));
	h->tab = xmalloc(nruns * sizeof(*h->tab));
	h->meds = xmalloc(nruns * sizeof(*h->meds));
	for (size_t i = 0; i < nruns; i++) {
		h->n[i] = n[i];
		h->sorted[i] = xmalloc((n[i] ? n[i] : 1) * sizeof(double));
		memcpy(h->sorted[i], runs[i], n[i] * sizeof(double));
		qsort(h->sorted[i], n[i], sizeof(double), cmp_d);
		h->counts[i] = xmalloc((n[i] ? n[i] : 1) * sizeof(uint32_t));
		h->tab[i] = median_table_get(n[i]);
	}
}

static void hier_side_release(struct hier_side *h)
{
	for (size_t i = 0; i < h->nruns; i++) {
		free(h->sorted[i]);
		free(h->counts[i]);
	}
	free(h->n);
	free(h->sorted);
	free(h->counts);
	free(h->tab);
	free(h->meds);
}

/* runs drawn with replacement, then each drawn run's samples with replacement; the median of their medians */
static double hier_resample(struct hier_side *h, uint64_t *s, struct draw *d)
{
	for (size_t k = 0; k < h->nruns; k++) {
		size_t r = h->nruns == 1 ? 0 : draw_index(d, h->nruns);

		h->meds[k] = h->tab[r] ? table_median(h->tab[r], h->sorted[r], s)
				       : resample_median(h->sorted[r], h->n[r], h->counts[r], d);
	}
	return small_median(h->meds, h->nruns);
}

void stats_hier_bootstrap_ratio_ci(double *lo, double *hi, const double *const *num, const size_t *nn, size_t rn,
				   const double *const *den, const size_t *nd, size_t rd, unsigned resamples,
				   uint64_t seed)
{
	struct hier_side a, b;
	double *r = xmalloc((resamples ? resamples : 1) * sizeof(*r));
	uint64_t s = seed;
	struct draw d = { &s, 0, 0 };

	hier_side_init(&a, num, nn, rn);
	hier_side_init(&b, den, nd, rd);
	for (unsigned k = 0; k < resamples; k++) {
		double x = hier_resample(&a, &s, &d);

		r[k] = x / hier_resample(&b, &s, &d);
	}
	*lo = percentile(r, resamples, 0.025);
	*hi = percentile(r, resamples, 0.975);
	hier_side_release(&a);
	hier_side_release(&b);
	free(r);
}

/* Continued fraction of the regularized incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), del;

		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b) */
static double inc_beta(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * beta_cf(a, b, x) / a;
	return 1 - bt * beta_cf(b, a, 1 - x) / b;
}

double stats_t_two_sided_p(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	return inc_beta(df / 2, 0.5, df / (df + t * t));
}

void stats_tgrid_init(struct stats_tgrid *g, size_t n, unsigned draws)
{
	size_t cells = (n ? n : 1) * (STATS_TGRID_N + 1);

	/* with fewer draws than grid points per test the grid would compute more incomplete betas than it saves */
	if (draws < 4 * STATS_TGRID_N || n > 4096)
		return;
	g->p = xmalloc(cells * sizeof(*g->p));
	g->n = n;
	for (size_t i = 0; i < cells; i++)
		g->p[i] = NAN;
}

/* test k's p at grid point u (|t| = u / 16), computed on first use */
static double tgrid_point(struct stats_tgrid *g, size_t k, size_t u, double df)
{
	double *cell = &g->p[k * (STATS_TGRID_N + 1) + u];

	if (isnan(*cell))
		*cell = stats_t_two_sided_p((double)u / 16, df);
	return *cell;
}

/* the margin of a bound: far above the incomplete beta's rounding, far below any p's step between grid points */
#define PMIN_MARGIN 1e-9

static void pmin_bounds(struct stats_pmin *m)
{
	m->lo = m->hi = m->ex;
	for (size_t i = 0; i < m->n; i++) {
		m->lo = fmin(m->lo, m->c[i].lo);
		m->hi = fmin(m->hi, m->c[i].hi);
	}
}

void stats_pmin_reset(struct stats_pmin *m)
{
	m->ex = m->lo = m->hi = 1;
	m->n = 0;
}

void stats_pmin_add(struct stats_pmin *m, struct stats_tgrid *g, size_t k, double t, double df)
{
	/* 1/16 is a power of two: |t| * 16, its floor and its ceiling are exact, and p falls as |t| grows, so the p at
	 * the grid point at or above |t| bounds its p from below, the one at or below from above */
	double at = fabs(t), lo, hi;

	if (k < g->n && at < (double)STATS_TGRID_N / 16) {
		lo = tgrid_point(g, k, (size_t)ceil(at * 16), df) * (1 - PMIN_MARGIN);
		if (lo >= m->hi)
			return;
		hi = tgrid_point(g, k, (size_t)floor(at * 16), df) * (1 + PMIN_MARGIN);
	} else {
		/* off the grid: the normal's p at |t| bounds the t's from below (its tails are lighter at every df) */
		if (!(erfc(at * 0.70710678118654752440) < m->hi * (1 + PMIN_MARGIN)))
			return;
		m->ex = fmin(m->ex, stats_t_two_sided_p(t, df));
		m->lo = fmin(m->lo, m->ex);
		m->hi = fmin(m->hi, m->ex);
		return;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 8;
		m->c = xrealloc(m->c, m->cap * sizeof(*m->c));
	}
	m->c[m->n++] = (struct stats_pcand){ lo, hi, t, df };
	m->lo = fmin(m->lo, lo);
	m->hi = fmin(m->hi, hi);
}

/* computes the p of every candidate whose lower bound is at most x, and drops those that can no longer be least */
static void pmin_resolve(struct stats_pmin *m, double x)
{
	size_t w = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->c[i].lo <= x)
			m->ex = fmin(m->ex, stats_t_two_sided_p(m->c[i].t, m->c[i].df));
		else
			m->c[w++] = m->c[i];
	m->n = w;
	pmin_bounds(m);
	w = 0; /* (a candidate at the upper bound may be the one that sets it: kept) */
	for (size_t i = 0; i < m->n; i++)
		if (m->c[i].lo <= m->hi)
			m->c[w++] = m->c[i];
	m->n = w;
}

int stats_pmin_le(struct stats_pmin *m, double x)
{
	if (m->hi <= x)
		return 1;
	if (m->lo > x)
		return 0;
	/* what is left after this has a p above x: the least p is at most x only where an exact one is */
	pmin_resolve(m, x);
	return m->ex <= x;
}

double stats_pmin_exact(struct stats_pmin *m)
{
	pmin_resolve(m, INFINITY);
	return m->ex;
}

void stats_pmin_release(struct stats_pmin *m)
{
	free(m->c);
	m->c = NULL;
	m->n = m->cap = 0;
}

void stats_pmins_push(struct stats_pmins *s, struct stats_pmin *m)
{
	/* a draw with many candidates left (tests whose statistics coincide: every case's share of the run effect 1)
	 * is computed now, so that what is kept stays a few candidates a draw, not tests x draws */
	if (m->n > STATS_PMIN_KEEP)
		pmin_resolve(m, INFINITY);
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->d = xrealloc(s->d, s->cap * sizeof(*s->d));
	}
	if (s->nc + m->n > s->capc) {
		while (s->nc + m->n > s->capc)
			s->capc = s->capc ? 2 * s->capc : 1024;
		s->c = xrealloc(s->c, s->capc * sizeof(*s->c));
	}
	s->d[s->n] = (struct stats_pmin_kept){ m->ex, m->lo, m->hi, s->nc, 0 };
	for (size_t i = 0; i < m->n; i++) /* only those that may still be least */
		if (m->c[i].lo <= m->hi)
			s->c[s->nc + s->d[s->n].nc++] = m->c[i];
	s->nc += s->d[s->n++].nc;
}

double stats_pmins_kth(struct stats_pmins *s, size_t k)
{
	/* the k-th least of the draws' least p lies between the k-th least lower bound and the k-th least upper bound:
	 * only the draws whose bounds reach into that range are computed; those wholly below it are counted */
	double *v = xmalloc((s->n ? s->n : 1) * sizeof(*v)), lk, hk, r;
	size_t below = 0, nv = 0;

	if (!s->n) {
		free(v);
		return NAN;
	}
	for (size_t i = 0; i < s->n; i++)
		v[i] = s->d[i].lo;
	select_kth(v, s->n, k);
	lk = v[k];
	for (size_t i = 0; i < s->n; i++)
		v[i] = s->d[i].hi;
	select_kth(v, s->n, k);
	hk = v[k];
	for (size_t i = 0; i < s->n; i++) {
		struct stats_pmin_kept *d = &s->d[i];
		double ex = d->ex;

		if (d->hi < lk) {
			below++;
			continue;
		}
		if (d->lo > hk)
			continue;
		for (size_t j = 0; j < d->nc; j++)
			if (s->c[d->off + j].lo <= d->hi)
				ex = fmin(ex, stats_t_two_sided_p(s->c[d->off + j].t, s->c[d->off + j].df));
		v[nv++] = ex;
	}
	select_kth(v, nv, k - below);
	r = v[k - below];
	free(v);
	return r;
}

double stats_pmins_critical(struct stats_pmins *s, double alpha)
{
	/* p below the k-th least has count <= k, and (count + 1) / (draws + 1) < alpha asks count <= ceil(alpha (draws +
	 * 1)) - 2 */
	double kq = ceil(alpha * ((double)s->n + 1)) - 2;

	return stats_pmins_kth(s, kq < 0 ? 0 : kq > (double)s->n - 1 ? s->n - 1 : (size_t)kq);
}

void stats_pmins_release(struct stats_pmins *s)
{
	free(s->d);
	free(s->c);
	*s = (struct stats_pmins)STATS_PMINS_INIT;
}

void stats_tgrid_release(struct stats_tgrid *g)
{
	free(g->p);
	g->p = NULL;
	g->n = 0;
}

double stats_t_quantile_two_sided(double p, double df)
{
	double lo = 0, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	while (stats_t_two_sided_p(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) { /* the p-value falls as t grows */
		double mid = (lo + hi) / 2;

		if (stats_t_two_sided_p(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void stats_mean_var(double *mean, double *var, const double *x, size_t n)
{
	double m = 0, v = 0;

	for (size_t i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		v += (x[i] - m) * (x[i] - m);
	*mean = m;
	*var = n > 1 ? v / (double)(n - 1) : NAN;
}

double stats_welch_df(double va, size_t na, double vb, size_t nb)
{
	double den = (na > 1 ? va * va / (double)(na - 1) : 0) + (nb > 1 ? vb * vb / (double)(nb - 1) : 0);

	return den > 0 ? (va + vb) * (va + vb) / den : (double)(na + nb - 2);
}

void stats_welch(double *out_t, double *out_df, double *out_p, double *out_se, const double *a, size_t na,
		 const double *b, size_t nb)
{
	double ma, va, mb, vb, sa, sb, se2;

	*out_t = *out_df = *out_p = *out_se = NAN;
	if (na < 2 || nb < 2)
		return;
	stats_mean_var(&ma, &va, a, na);
	stats_mean_var(&mb, &vb, b, nb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se2 = sa + sb;
	*out_se = sqrt(se2);
	if (se2 <= 0) { /* no spread at all: any difference is certain, none is no evidence */
		*out_t = ma == mb ? 0 : ma > mb ? INFINITY : -INFINITY;
		*out_df = (double)(na + nb - 2);
		*out_p = ma == mb ? 1 : 0;
		return;
	}
	*out_t = (ma - mb) / *out_se;
	*out_df = stats_welch_df(sa, na, sb, nb);
	*out_p = stats_t_two_sided_p(*out_t, *out_df);
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;

	return a->p < b->p ? -1 : a->p > b->p ? 1 : (a->i > b->i) - (a->i < b->i);
}

size_t stats_holm(double *adj, const double *p, size_t n)
{
	struct pidx *s = xmalloc((n ? n : 1) * sizeof(*s));
	size_t m = 0;
	double run = 0;

	for (size_t i = 0; i < n; i++) {
		adj[i] = NAN;
		if (!isnan(p[i]))
			s[m++] = (struct pidx){ p[i], i };
	}
	qsort(s, m, sizeof(*s), cmp_pidx);
	for (size_t k = 0; k < m; k++) {
		double a = (double)(m - k) * s[k].p;

		run = fmax(run, fmin(a, 1));
		adj[s[k].i] = run;
	}
	free(s);
	return m;
}

/* ---- step-down min-P with a shared component ------------------------------------------------------------------- */

static double unif01(uint64_t *s) /* in (0, 1) */
{
	return ((double)(next(s) >> 11) + 0.5) * 0x1.0p-53;
}

static double normal01(uint64_t *s)
{
	return sqrt(-2.0 * log(unif01(s))) * cos(6.283185307179586 * unif01(s));
}

double stats_normal(uint64_t *state)
{
	return normal01(state);
}

/* Gamma(k, 1) by Marsaglia and Tsang (2000); k < 1 through Gamma(k + 1) U^(1/k). */
static double gamma_draw(double k, uint64_t *s)
{
	double d, c;

	if (k < 1)
		return gamma_draw(k + 1, s) * pow(unif01(s), 1.0 / k);
	d = k - 1.0 / 3;
	c = 1.0 / sqrt(9 * d);
	for (;;) {
		double z = normal01(s), v = 1 + c * z, u;

		if (v <= 0)
			continue;
		v = v * v * v;
		u = unif01(s);
		if (log(u) < 0.5 * z * z + d - d * v + d * log(v))
			return d * v;
	}
}

double stats_df_effective(double a, double df_shared, double df_own)
{
	double a2 = a * a, b2 = 1 - a2;

	/* both parts: the fewer degrees of freedom (Hsu's conservative choice for a sum of two estimated variances; the
	 * Welch-Satterthwaite figure can exceed both, and its tail is then too light for a ratio whose larger part rests
	 * on a few runs) */
	if (a2 > 0 && b2 > 0)
		return fmin(df_shared, df_own);
	return b2 > 0 ? df_own : df_shared;
}

/* digamma by the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 6, then the asymptotic series */
double stats_digamma(double x)
{
	double r = 0, f;

	if (!(x > 0))
		return NAN;
	for (; x < 6; x++)
		r -= 1 / x;
	f = 1 / (x * x);
	return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

/* trigamma by psi'(x) = psi'(x + 1) + 1/x^2 up to x >= 6, then the asymptotic series */
double stats_trigamma(double x)
{
	double r = 0, f;

	if (!(x > 0))
		return NAN;
	for (; x < 6; x++)
		r += 1 / (x * x);
	f = 1 / (x * x);
	return r + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

void stats_squeeze_var(double *d0, double *s02, const double *var, const double *df, size_t n)
{
	double emean = 0, evar = 0, tri = 0, lo, hi;
	size_t m = 0;

	*d0 = 0;
	*s02 = NAN;
	for (size_t i = 0; i < n; i++)
		if (var[i] > 0 && df[i] > 0 && isfinite(var[i]))
			emean += log(var[i]) - stats_digamma(df[i] / 2) + log(df[i] / 2), m++;
	if (m < 3)
		return;
	emean /= (double)m;
	for (size_t i = 0; i < n; i++)
		if (var[i] > 0 && df[i] > 0 && isfinite(var[i])) {
			double e = log(var[i]) - stats_digamma(df[i] / 2) + log(df[i] / 2);

			evar += (e - emean) * (e - emean) / (double)(m - 1);
			tri += stats_trigamma(df[i] / 2) / (double)m;
		}
	evar -= tri;
	if (!(evar > 0)) { /* no more spread than the estimates' own: one variance for every case */
		*d0 = STATS_D0_MAX;
		*s02 = exp(emean);
		return;
	}
	/* trigamma(d0 / 2) = evar: trigamma falls, so bisect on a log scale */
	lo = 1e-6, hi = STATS_D0_MAX / 2;
	if (stats_trigamma(hi) >= evar) {
		*d0 = STATS_D0_MAX;
		*s02 = exp(emean);
		return;
	}
	for (int it = 0; it < 200 && hi / lo > 1 + 1e-12; it++) {
		double mid = sqrt(lo * hi);

		if (stats_trigamma(mid) > evar)
			lo = mid;
		else
			hi = mid;
	}
	*d0 = 2 * sqrt(lo * hi);
	*s02 = exp(emean + stats_digamma(*d0 / 2) - log(*d0 / 2));
}

static double chisq_mean_draw(double df, uint64_t *s) /* chi-square(df) / df */
{
	return df >= STATS_D0_MAX ? 1 : 2 * gamma_draw(df / 2, s) / df;
}

double stats_chisq_mean(double df, uint64_t *state)
{
	return chisq_mean_draw(df, state);
}

size_t stats_minp_stepdown(double *adj, double *crit_t, const double *t, const double *a, const double *df, size_t n,
			   double df_shared, double alpha, unsigned draws, uint64_t seed)
{
	struct pidx *o = xmalloc((n ? n : 1) * sizeof(*o));
	double *dfe = xcalloc(n ? n : 1, sizeof(*dfe)), run = 0, pc;
	size_t m = 0, *count;
	struct stats_tgrid grid = STATS_TGRID_INIT;
	struct stats_pmin pm = STATS_PMIN_INIT;
	struct stats_pmins mn = STATS_PMINS_INIT;
	uint64_t s = seed;

	for (size_t i = 0; i < n; i++) {
		adj[i] = crit_t[i] = NAN;
		if (isnan(t[i]))
			continue;
		dfe[i] = stats_df_effective(a[i], df_shared, df[i]);
		o[m++] = (struct pidx){ stats_t_two_sided_p(t[i], dfe[i]), i };
	}
	count = xcalloc(m + 1, sizeof(*count));
	stats_tgrid_init(&grid, m, draws);
	qsort(o, m, sizeof(*o), cmp_pidx); /* p ascending, then index */
	for (unsigned r = 0; r < draws && m; r++) {
		/* the shared part's numerator and its variance estimate, drawn once for every test: the statistic divides
		 * the shared numerator by that one estimate in every case, so the cases' statistics are drawn as that */
		double zg = normal01(&s), vg = chisq_mean_draw(df_shared, &s);
		/* the shared part's share a is itself estimated on df_shared degrees of freedom: each draw takes the shared
		 * variance from that estimate's uncertainty (estimate / W, W ~ chi2(df_shared) / df_shared), so that sides
		 * whose runs happened to agree are not drawn as if their machine were known to be quiet */
		double w = chisq_mean_draw(df_shared, &s);

		/* from the largest p down: pm holds the least p over the tests from j on, the set step j adjusts over */
		stats_pmin_reset(&pm);
		for (size_t j = m; j-- > 0;) {
			size_t i = o[j].i;
			double a2 = a[i] * a[i], b2, num, var, v;

			a2 = a2 > 0 ? a2 / (a2 + w * (1 - a2)) : 0;
			b2 = fmax(0, 1 - a2);
			num = (a[i] < 0 ? -1 : 1) * sqrt(a2) * zg;
			var = a2 * vg;
			if (b2 > 0) {
				num += sqrt(b2) * normal01(&s);
				var += b2 * chisq_mean_draw(df[i], &s);
			}
			v = num / sqrt(var);
			stats_pmin_add(&pm, &grid, j, v, dfe[i]);
			count[j] += stats_pmin_le(&pm, o[j].p);
		}
		stats_pmins_push(&mn, &pm);
	}
	for (size_t j = 0; j < m; j++) {
		run = fmax(run, fmin(1, ((double)count[j] + 1) / ((double)draws + 1)));
		adj[o[j].i] = run;
	}
	if (m && draws) { /* the first step's critical p, and the |t| that reaches it for each test */
		pc = stats_pmins_critical(&mn, alpha);
		for (size_t j = 0; j < m; j++)
			crit_t[o[j].i] = pc > 0 && pc < 1 ? stats_t_quantile_two_sided(pc, dfe[o[j].i]) : NAN;
	}
	stats_tgrid_release(&grid);
	stats_pmin_release(&pm);
	stats_pmins_release(&mn);
	free(count);
	free(dfe);
	free(o);
	return m;
}
