/* SPDX-License-Identifier: Apache-2.0 */
/* test_sequential.c — bench run --rounds auto's plan: looks, the level of each, the stop, and that the level keeps
 * the chance of a false call under alpha when a set stops at whichever look is worst for it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/sequential.h"
#include "stats/stats.h"

static void test_looks(void **state)
{
	static const long want[] = { 0, 0, 0, 0, 1, 2, 2, 3, 3, 4, 4, 5 }; /* max_rounds 0..11 */

	(void)state;
	for (long m = 0; m < (long)(sizeof(want) / sizeof(want[0])); m++) {
		long k = 0;

		assert_int_equal(sequential_looks(m), want[m]);
		for (long r = 1; r <= m + 2; r++)
			k += sequential_is_look(r, m);
		assert_int_equal(k, want[m]); /* the looks counted are the looks planned */
	}
	assert_true(sequential_is_look(4, 10) && sequential_is_look(10, 10) && !sequential_is_look(5, 10));
	assert_true(sequential_is_look(11, 11) && !sequential_is_look(12, 11) && !sequential_is_look(2, 11));
	assert_true(isnan(sequential_level(0.01, 3)));
	assert_true(fabs(sequential_level(0.01, 10) - 0.0025) < 1e-15);
	assert_true(fabs(sequential_level(0.01, 4) - 0.01) < 1e-15); /* one look: a fixed design, no price */
	/* the levels of every look add up to alpha (the union bound spends it all) */
	for (long m = 4; m < 40; m++) {
		double sum = 0;

		for (long r = 1; r <= m; r++)
			if (sequential_is_look(r, m))
				sum += sequential_level(0.01, m);
		assert_true(fabs(sum - 0.01) < 1e-12);
	}
}

static void test_decide(void **state)
{
	struct sequential s = SEQUENTIAL_INIT;

	(void)state;
	s.detect = 0.03;
	s.max_rounds = 10;
	assert_int_equal(sequential_decide(&s, 3, 0.01, 5, 1), SEQUENTIAL_GO_ON);       /* not a look */
	assert_int_equal(sequential_decide(&s, 4, 0.03, 5, 1), SEQUENTIAL_DETECT);      /* at the target */
	assert_int_equal(sequential_decide(&s, 4, 0.031, 5, 1), SEQUENTIAL_GO_ON);
	assert_int_equal(sequential_decide(&s, 4, NAN, 5, 1), SEQUENTIAL_GO_ON);        /* a case untested */
	assert_int_equal(sequential_decide(&s, 4, 0.01, 0, 1), SEQUENTIAL_NOTHING);
	assert_int_equal(sequential_decide(&s, 10, 0.05, 5, 1), SEQUENTIAL_MAX_ROUNDS_HIT);
	assert_int_equal(sequential_decide(&s, 10, 0.02, 5, 1), SEQUENTIAL_DETECT);     /* the target beats the cap */
	/* time: 4 rounds in 40 s, the next look at 6 ends at 60 s */
	s.max_time_s = 59;
	assert_int_equal(sequential_decide(&s, 4, 0.05, 5, 40), SEQUENTIAL_MAX_TIME_HIT);
	s.max_time_s = 61;
	assert_int_equal(sequential_decide(&s, 4, 0.05, 5, 40), SEQUENTIAL_GO_ON);
	/* the next look of an odd cap is the cap itself: 8 rounds in 80 s, max 9 -> 90 s */
	s.max_rounds = 9;
	s.max_time_s = 89;
	assert_int_equal(sequential_decide(&s, 8, 0.05, 5, 80), SEQUENTIAL_MAX_TIME_HIT);
	s.max_time_s = 91;
	assert_int_equal(sequential_decide(&s, 8, 0.05, 5, 80), SEQUENTIAL_GO_ON);
	assert_string_equal(sequential_reason_name(SEQUENTIAL_MAX_ROUNDS_HIT), "max-rounds");
	assert_string_equal(sequential_reason_name(SEQUENTIAL_INTERRUPTED), "interrupted");
}

/* A/A sets of one case: each round one run per side, its value N(0, 1); at every look of the plan Welch's test of the
 * runs so far. The worst stop for the level is the first look that calls the case: the chance of any call over the
 * looks. At alpha at every look it exceeds alpha (the reason for the plan); at sequential_level() it does not. */
static void test_level_under_optional_stopping(void **state)
{
	const long max_rounds = 10;
	const int sets = 6000;
	const double alpha = 0.05;
	double level = sequential_level(alpha, max_rounds), x[10], y[10];
	int naive = 0, planned = 0;
	uint64_t rng = 0x5eed;

	(void)state;
	for (int s = 0; s < sets; s++) {
		int called_naive = 0, called_planned = 0;

		for (long r = 1; r <= max_rounds; r++) {
			double t, df, p, se;

			x[r - 1] = stats_normal(&rng);
			y[r - 1] = stats_normal(&rng);
			if (!sequential_is_look(r, max_rounds))
				continue;
			stats_welch(&t, &df, &p, &se, x, (size_t)r, y, (size_t)r);
			called_naive |= p < alpha;
			called_planned |= p < level;
		}
		naive += called_naive;
		planned += called_planned;
	}
	/* binomial standard error at 0.05 over 6000 sets: 0.0028 */
	print_message("any call over 4 looks: at alpha %.3f each %.4f, at the plan's %.4f each %.4f\n", alpha,
		      (double)naive / sets, level, (double)planned / sets);
	assert_true((double)naive / sets > alpha + 0.02);
	assert_true((double)planned / sets <= alpha + 0.003);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_looks),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_level_under_optional_stopping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
