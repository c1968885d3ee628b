/* test_stats.c — the comparison statistics against hand-computed values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_mann_whitney_exact_small_samples),
		cmocka_unit_test(test_mann_whitney_normal_approximation),
		cmocka_unit_test(test_bootstrap_ci_is_deterministic_and_brackets_the_ratio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
