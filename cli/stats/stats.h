/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stats.h — comparison statistics (docs/architecture.md): the ratio of medians with a percentile-bootstrap 95%
 * confidence interval (fixed seed), and the Mann–Whitney U test (exact for small samples without ties,
 * normal approximation with tie and continuity correction otherwise), two-sided; for sides made of several
 * runs, the hierarchical bootstrap, Welch's t test, Holm's adjustment and Westfall and Young's step-down min-P.
 *
 * Ownership: functions read caller arrays and write out-parameters; nothing is retained, but a struct stats_tgrid
 * owns its table until stats_tgrid_release(), a struct stats_pmin its candidates until stats_pmin_release(), and a
 * struct stats_pmins its draws until stats_pmins_release().
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

/* The hierarchical bootstrap of a comparison of runs: each side is nruns runs of samples. A resample draws the
 * runs with replacement, then each drawn run's samples with replacement, and takes the median of the drawn
 * runs' medians; the ratio is num's over den's. The 95% percentile interval from `resamples` resamples from
 * `seed`. One run per side is the ordinary bootstrap of the samples. */
void stats_hier_bootstrap_ratio_ci(double *lo, double *hi, const double *const *num, const size_t *nn, size_t rn,
				   const double *const *den, const size_t *nd, size_t rd, unsigned resamples,
				   uint64_t seed);
/* The median of the runs' medians (NAN for no runs). */
double stats_median_of_medians(const double *const *runs, const size_t *n, size_t nruns);
/* A bootstrap seed from a case key (FNV-1a and a splitmix64 step): deterministic, different per case. */
uint64_t stats_seed_from_key(const char *key);
/* Welch's unequal-variance t test of mean(a) - mean(b): t, its Welch–Satterthwaite degrees of freedom, the
 * two-sided p-value and the standard error of the difference (all NAN with fewer than 2 values on a side). */
void stats_welch(double *out_t, double *out_df, double *out_p, double *out_se, const double *a, size_t na,
		 const double *b, size_t nb);
/* The Welch–Satterthwaite degrees of freedom of va + vb, the variances of two means of na and nb values (va, vb:
 * each sample variance / its count); na + nb - 2 when both are 0. */
double stats_welch_df(double va, size_t na, double vb, size_t nb);
/* The mean of x[0..n) and its sample variance (n - 1 in the denominator; NAN for n < 2). */
void stats_mean_var(double *mean, double *var, const double *x, size_t n);
/* P(|T| >= |t|) for Student's t with df degrees of freedom. */
double stats_t_two_sided_p(double t, double df);
/* The least p of a min-P resampling's draw, over tests of fixed degrees of freedom, without computing most of
 * their incomplete betas. Test k's p at a grid of |t| (steps of 1/16 to 20; struct stats_tgrid, each point computed
 * on first use) bounds its p at any |t| between two points; a draw keeps its least p as bounds (struct stats_pmin)
 * and computes a test's p only where a comparison needs it (stats_pmin_le), or the caller asks for the value
 * (stats_pmin_exact); a resampling keeps its draws so (struct stats_pmins) and computes only those near the order
 * statistic it asks for (stats_pmins_kth). Every answer is the one the exact p of every test would give: the same
 * doubles (the bounds hold a margin of 1e-9 of the p, far above the incomplete beta's rounding). Off the grid
 * (|t| >= 20, or no row for test k), the normal's p at |t| bounds the t's from below: exact for df up to
 * STATS_D0_MAX (1e6, the most the callers pass); above about 3e7 the computed t p can fall below erfc's. */
struct stats_tgrid {
	double *p; /* n rows of STATS_TGRID_N + 1 points, NAN until computed */
	size_t n;
};
#define STATS_TGRID_INIT { NULL, 0 }
#define STATS_TGRID_N 320
/* a grid for n tests over draws draws; none (every p computed) where it would not pay: fewer draws than four per
 * grid point, or more than 4096 tests */
void stats_tgrid_init(struct stats_tgrid *g, size_t n, unsigned draws);
void stats_tgrid_release(struct stats_tgrid *g);
struct stats_pcand {
	double lo, hi, t, df; /* a test's p lies in [lo, hi]; its statistic and degrees of freedom */
};
struct stats_pmin {
	double ex, lo, hi; /* the least exact p so far (1 before any); the least p lies in [lo, hi] */
	struct stats_pcand *c;
	size_t n, cap; /* the tests whose p may be least and is not computed */
};
#define STATS_PMIN_INIT { 1, 1, 1, NULL, 0, 0 }
void stats_pmin_reset(struct stats_pmin *m);
void stats_pmin_add(struct stats_pmin *m, struct stats_tgrid *g, size_t k, double t, double df);
int stats_pmin_le(struct stats_pmin *m, double x); /* whether the least p is at most x */
double stats_pmin_exact(struct stats_pmin *m);
void stats_pmin_release(struct stats_pmin *m);
struct stats_pmin_kept {
	double ex, lo, hi;
	size_t off, nc; /* its candidates in the resampling's array */
};
struct stats_pmins {
	struct stats_pmin_kept *d;
	struct stats_pcand *c;
	size_t n, cap, nc, capc;
};
#define STATS_PMINS_INIT { NULL, NULL, 0, 0, 0, 0 }
#define STATS_PMIN_KEEP 8 /* the candidates a kept draw may hold; a draw with more is computed when pushed */
void stats_pmins_push(struct stats_pmins *s, struct stats_pmin *m);
/* the k-th least (from 0; k < the number pushed) of the draws' least p */
double stats_pmins_kth(struct stats_pmins *s, size_t k);
/* the critical p of a min-P resampling at familywise alpha: the order statistic under which a p's count of draws
 * below it, (count + 1) / (draws + 1), is under alpha */
double stats_pmins_critical(struct stats_pmins *s, double alpha);
void stats_pmins_release(struct stats_pmins *s);
/* The t > 0 with P(|T| >= t) = p for Student's t with df degrees of freedom (p in (0, 1); NAN otherwise). */
double stats_t_quantile_two_sided(double p, double df);
/* Holm's step-down adjustment of p[0..n) into adj[0..n) (monotone, at most 1); a NAN p is not a test and stays
 * NAN. Returns the number of tests (the p-values that are not NAN). */
size_t stats_holm(double *adj, const double *p, size_t n);
/* Westfall and Young's step-down min-P adjustment (1993, algorithm 2.8 on p-values) for statistics that share one
 * random component, drawn as the statistic is made: under the null, test i's statistic is
 * T_i = (a[i] Z + b_i Z_i) / sqrt(a[i]^2 V + b_i^2 V_i), b_i = sqrt(1 - a[i]^2), with Z ~ N(0, 1) and
 * V ~ chi2(df_shared) / df_shared common to every test (the shared part's numerator and the one variance estimate
 * that divides it in every case: in a comparison of runs, the run effect and its estimated spread), Z_i ~ N(0, 1)
 * and V_i ~ chi2(df[i]) / df[i] its own (the case's own run-to-run noise and its variance estimate; with a
 * moderated variance, df[i] its moderated degrees of freedom, stats_squeeze_var()). Each statistic is put on the
 * scale of its own p-value (Student's t at the fewer degrees of freedom of its two parts,
 * stats_df_effective), so that a test with few degrees of freedom, and heavy tails, weighs on its own p only. With
 * the tests ordered by p, adj of the j-th is the chance that the least p over the j-th and every later test is at
 * most its p, (count + 1) / (draws + 1), made monotone; `draws` draws from `seed`. When the tests share nothing
 * (a = 0) this is Holm's procedure with the exact joint law in place of Bonferroni's bound; when they share
 * everything (a = 1) every test is adjusted as the one t test they are. crit_t[i]: the |t| at which test i reaches
 * the first step's critical p (the alpha quantile of the least p over every test): a larger |t| is significant
 * whatever the other tests show. A NAN t is not a test (adj and crit_t NAN). A degrees of freedom of
 * STATS_D0_MAX or more is a known variance. Returns the number of tests. */
size_t stats_minp_stepdown(double *adj, double *crit_t, const double *t, const double *a, const double *df, size_t n,
			   double df_shared, double alpha, unsigned draws, uint64_t seed);
#define STATS_D0_MAX 1e6
/* The empirical-Bayes prior of a set of variance estimates var[i] on df[i] degrees of freedom (Smyth 2004, limma's
 * fitFDist): each true variance drawn as s02 * d0 / chi2(d0), fitted by the moments of log var. A case's moderated
 * variance is then (d0 s02 + df var) / (d0 + df), on d0 + df degrees of freedom. Fewer than 3 usable estimates:
 * d0 = 0 (no prior), s02 NAN; no more spread than the estimates' own sampling: d0 = STATS_D0_MAX. */
void stats_squeeze_var(double *d0, double *s02, const double *var, const double *df, size_t n);
double stats_digamma(double x);
double stats_trigamma(double x);
/* One draw of chi2(df) / df (1 for df >= STATS_D0_MAX) from the state *state. */
double stats_chisq_mean(double df, uint64_t *state);
/* One standard normal draw from the splitmix64 state *state (Box–Muller). */
double stats_normal(uint64_t *state);
/* The degrees of freedom a statistic a G + sqrt(1 - a^2) D, G ~ t(df_shared), D ~ t(df_own), is read at: the fewer of
 * the two when both parts are present (Hsu's conservative choice: the Welch–Satterthwaite figure can exceed both),
 * else the one present. */
double stats_df_effective(double a, double df_shared, double df_own);
#endif
