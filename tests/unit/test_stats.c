/* test_stats.c — the comparison statistics against hand-computed values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/stats.h"

static void test_median(void **state)
{
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(stats_median(odd, 3) == 2);
	assert_true(stats_median(even, 4) == 2.5);
}

static void test_mann_whitney_exact_small_samples(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, c[] = { 1, 3, 5 }, d[] = { 2, 4, 6 };
	double u, p;

	(void)state;
	/* complete separation, 3 vs 3: U = 0; P(U <= 0) = 1 / C(6,3) = 1/20; two-sided 0.1 */
	stats_mann_whitney(&u, &p, a, 3, b, 3);
	assert_true(u == 0);
	assert_true(fabs(p - 0.1) < 1e-12);
	stats_mann_whitney(&u, &p, b, 3, a, 3);
	assert_true(u == 9 && fabs(p - 0.1) < 1e-12);
	/* interleaved 1,3,5 vs 2,4,6: pairs a > b are (3>2), (5>2), (5>4): U = 3; P(U <= 3) = 7/20; two-sided 0.7 */
	stats_mann_whitney(&u, &p, c, 3, d, 3);
	assert_true(u == 3);
	assert_true(fabs(p - 0.7) < 1e-12);
}

static void test_mann_whitney_normal_approximation(void **state)
{
	double a[10], b[10], u, p;

	(void)state;
	for (int i = 0; i < 10; i++) {
		a[i] = i;      /* all below */
		b[i] = 100 + i;
	}
	/* U = 0, mu = 50, sigma = sqrt(10*10/12 * 21) = 13.2288; z = (50 - 0.5) / 13.2288 = 3.7418;
	 * p = erfc(z / sqrt 2) = 1.8272e-4 */
	stats_mann_whitney(&u, &p, a, 10, b, 10);
	assert_true(u == 0);
	assert_true(fabs(p - 1.8272e-4) < 1e-7);
	/* identical samples: all ties, no evidence */
	for (int i = 0; i < 10; i++)
		b[i] = a[i];
	stats_mann_whitney(&u, &p, a, 10, b, 10);
	assert_true(u == 50 && p > 0.9);
}

static void test_bootstrap_ci_is_deterministic_and_brackets_the_ratio(void **state)
{
	double a[40], b[40], lo, hi, lo2, hi2;

	(void)state;
	for (int i = 0; i < 40; i++) {
		a[i] = 2.0 + 0.01 * ((i * 7) % 13);
		b[i] = 1.0 + 0.005 * ((i * 5) % 11);
	}
	stats_bootstrap_ratio_ci(&lo, &hi, a, 40, b, 40, 2000, 42);
	stats_bootstrap_ratio_ci(&lo2, &hi2, a, 40, b, 40, 2000, 42);
	assert_true(lo == lo2 && hi == hi2); /* fixed seed: the same interval */
	assert_true(lo < stats_median(a, 40) / stats_median(b, 40) + 1e-12);
	assert_true(hi > stats_median(a, 40) / stats_median(b, 40) - 1e-12);
	assert_true(lo > 1.9 && hi < 2.2);
}

/* The textbook bootstrap, written out independently: resample with replacement, sort, take the medians. */
static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static double sorted_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* reps textbook bootstrap ratios, sorted */
static double *naive_ratios(const double *a, size_t na, const double *b, size_t nb, size_t reps)
{
	double *r = malloc(reps * sizeof(*r)), ra[64], rb[64];
	uint64_t x = 88172645463325252ull;

	for (size_t k = 0; k < reps; k++) {
		for (size_t i = 0; i < na; i++)
			x ^= x << 13, x ^= x >> 7, x ^= x << 17, ra[i] = a[x % na];
		for (size_t i = 0; i < nb; i++)
			x ^= x << 13, x ^= x >> 7, x ^= x << 17, rb[i] = b[x % nb];
		r[k] = sorted_median(ra, na) / sorted_median(rb, nb);
	}
	qsort(r, reps, sizeof(*r), cmp_double);
	return r;
}

/* the fractions of r[0..n) below and at-or-below v */
static void cdf_at(double *below, double *upto, const double *r, size_t n, double v)
{
	size_t lt = 0, le = 0;

	for (size_t i = 0; i < n; i++)
		lt += r[i] < v - 1e-12, le += r[i] <= v + 1e-12;
	*below = (double)lt / (double)n;
	*upto = (double)le / (double)n;
}

/* The fast resampler (counting, selection) must draw from the textbook bootstrap distribution: each end of its
 * interval must be a 2.5% / 97.5% quantile of 200,000 textbook resamples, within 0.005 in probability (the
 * Monte Carlo error of 20,000 resamples is 0.0011). Odd and even sizes, with ties. Picking the neighbouring
 * order statistic for a median fails it (at 9 against 12 samples the low end moves to P = 0.06..0.14). */
static void test_bootstrap_ci_matches_the_textbook_bootstrap(void **state)
{
	const size_t sizes[][2] = { { 41, 40 }, { 40, 41 }, { 25, 50 }, { 9, 12 } }, reps = 200000;

	(void)state;
	for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
		double a[64], b[64], lo, hi, below, upto, *r;
		size_t na = sizes[t][0], nb = sizes[t][1];

		for (size_t i = 0; i < na; i++)
			a[i] = 2.0 + 0.01 * (double)((i * 7) % na);
		for (size_t i = 0; i < nb; i++)
			b[i] = 1.0 + 0.01 * (double)((i * 3) % (nb / 2)); /* pairs of ties */
		stats_bootstrap_ratio_ci(&lo, &hi, a, na, b, nb, 20000, 7);
		r = naive_ratios(a, na, b, nb, reps);
		cdf_at(&below, &upto, r, reps, lo);
		print_message("n=%zu/%zu lo %.5f: P(<) %.4f P(<=) %.4f\n", na, nb, lo, below, upto);
		assert_true(below <= 0.025 + 0.005 && upto >= 0.025 - 0.005);
		cdf_at(&below, &upto, r, reps, hi);
		print_message("n=%zu/%zu hi %.5f: P(<) %.4f P(<=) %.4f\n", na, nb, hi, below, upto);
		assert_true(below <= 0.975 + 0.005 && upto >= 0.975 - 0.005);
		free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_mann_whitney_exact_small_samples),
		cmocka_unit_test(test_mann_whitney_normal_approximation),
		cmocka_unit_test(test_bootstrap_ci_is_deterministic_and_brackets_the_ratio),
		cmocka_unit_test(test_bootstrap_ci_matches_the_textbook_bootstrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
