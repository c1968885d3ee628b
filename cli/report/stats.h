/*
 * stats.h — comparison statistics (docs/architecture.md): the ratio of medians with a percentile-bootstrap 95%
 * confidence interval (fixed seed), and the Mann–Whitney U test (exact for small samples without ties,
 * normal approximation with tie and continuity correction otherwise), two-sided.
 *
 * Ownership: functions read caller arrays and write out-parameters; nothing is retained.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

double stats_median(const double *x, size_t n);
/* U statistic of sample a against b (number of pairs with a > b, ties counting one half) and its two-sided
 * p-value. */
void stats_mann_whitney(double *out_u, double *out_p, const double *a, size_t na, const double *b, size_t nb);
/* 95% CI of median(num) / median(den) by resampling both with replacement `resamples` times from `seed`. */
void stats_bootstrap_ratio_ci(double *lo, double *hi, const double *num, size_t nn, const double *den, size_t nd,
			      unsigned resamples, uint64_t seed);

#endif
