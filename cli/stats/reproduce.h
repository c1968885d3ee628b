/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reproduce.h — bench reproduce's judgement: whether this machine can reproduce a run (its GPU model, count and
 * driver), what differs in the stack, and, per case, whether the runs made here reproduce the original's figure
 * (docs/architecture.md, "Reproduce").
 *
 * Ownership: every function returns a new JSON value or a new string the caller frees (json_decref(), free());
 * inputs are only read; the compare sides are borrowed.
 */
#ifndef BENCH_REPRODUCE_H
#define BENCH_REPRODUCE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "compare.h"

/* The counts of reproduce.json, by verdict. */
enum reproduce_verdict {
	REPRODUCE_REPRODUCED,
	REPRODUCE_FASTER,
	REPRODUCE_SLOWER,
	REPRODUCE_NOT_COMPARABLE,
	REPRODUCE_NOT_HERE, /* not reproducible here */
	REPRODUCE_INCONCLUSIVE, /* the original lies in a band (or CI) wider than the limit: nothing can be told */
	REPRODUCE_NVERDICTS
};

/* The hardware facts of environment.json that decide whether a GPU run can be reproduced: {"gpu model",
 * "gpu count", "driver"}. */
json_t *reproduce_gpu_facts(json_t *env);
/* Every fact of a that b lacks or holds otherwise, and every fact only b has: [{what, original, here}]. */
json_t *reproduce_facts_differ(json_t *a, json_t *b);
/* "gpu model: A vs B; driver: C vs D", escaped for a terminal. */
char *reproduce_differ_text(json_t *differ);
/* A fact's value as text for a terminal ("none" for a missing one). */
char *reproduce_fact_text(json_t *v);

/* One case's band from reproduce_bands(). */
struct reproduce_band {
	double tol;      /* the band's half-width in log space (NAN: not judged by its spread) */
	double sd;       /* the case's run-to-run sd here in log space: the run effect's and its own (moderated) */
	double sd_run;   /* the suite's run effect's sd (shared by its cases) */
	double df_run;   /* its degrees of freedom: the rounds here less one */
	unsigned rounds; /* the rounds here that would bring tol within log(1 + max_band) (0: it is already; UINT_MAX:
			  * not within 1000) */
};

/*
 * The bands of one suite's cases, judged by this machine's run-to-run spread (docs/architecture.md, "Reproducing a
 * bundle"): y[c * nruns + r] is case c's log figure in run r here (NAN where it did not measure). A run's effect is
 * the mean over the cases of its deviation from their means: the machine state it met, shared by its cases, whose
 * spread has nruns - 1 degrees of freedom however many cases share it; each case's own spread beyond it is moderated
 * over the suite (stats_squeeze_var). The original is one more run: case c's deviation from the mean here is, under
 * the null, (run effect + own) * sqrt(1 + 1/n_c), and the band is the first step's critical |t| of the min-P
 * adjustment over the suite's cases (stats_minp_stepdown, familywise alpha, the shared run effect drawn once) times
 * that standard deviation. A case with fewer than 2 runs here gets tol NAN.
 */
void reproduce_bands(struct reproduce_band *out, const double *y, size_t ncases, size_t nruns, double alpha,
		     double max_band, uint64_t seed);

/*
 * The verdict of every case of cmp (compare_build_groups() with the original as the baseline group and the runs
 * made here, here[0..nhere), as the other group), counted into counts[]. With one run here: the ratio's 95% CI
 * (compare's bootstrap) against 1 +/- threshold. With two or more: this machine's run-to-run spread — the case's
 * figure in each run here, in log space, gives a 99% prediction interval for one more run (Student's t,
 * Bonferroni over the cases judged that way: 1% for them all, the degrees of freedom of the suite's pooled spread), from the
 * suite's pooled spread or the case's own, whichever is wider, never narrower than +/- threshold; reproduced when the original lies inside it
 * and the band lies within [1 / (1 + max_band), 1 + max_band] (max_band at least threshold; one run: the CI), inconclusive (with the reason)
 * when it lies inside a wider one, slower when the runs here lie below it, faster above. Each row: {suite, case,
 * unit, original, here, threshold, ratio, ci95 | band, runs, noise_cv, suite_noise_cv, verdict, why}.
 */
json_t *reproduce_judge(size_t counts[REPRODUCE_NVERDICTS], json_t *cmp, const struct compare_side *here, size_t nhere,
			double threshold, double max_band);

#endif
