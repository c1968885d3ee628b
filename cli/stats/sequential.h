/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sequential.h — bench run --rounds auto: measure stacks round after round until every case's change of the
 * target size would be found with 97.5% power, or a cap is reached, with comparisons that stay valid whenever the
 * set stops (docs/architecture.md, "Run until you can tell").
 *
 * The plan is fixed before the first run: looks after every even round from 4 and after the last allowed round; at
 * each look every case is compared (compare_build_groups()) at the level alpha / looks, a Bonferroni split over the
 * looks, so that the chance of any false call at any look is at most alpha however the stop is chosen.
 *
 * Ownership: struct sequential owns its JSON (looks, last, design); release it with sequential_release(). The
 * run directories it is given are read, never kept; sequential_write() writes rounds.json into each.
 */
#ifndef BENCH_SEQUENTIAL_H
#define BENCH_SEQUENTIAL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define SEQUENTIAL_MIN_ROUNDS 4
#define SEQUENTIAL_MAX_ROUNDS 1000

/* Why a set stopped (sequential_reason_name() spells it for rounds.json). */
enum sequential_reason {
	SEQUENTIAL_GO_ON = 0,
	SEQUENTIAL_DETECT,        /* every comparable case resolves the target change with 97.5% power */
	SEQUENTIAL_MAX_ROUNDS_HIT,/* the cap of rounds */
	SEQUENTIAL_MAX_TIME_HIT,  /* another pair of rounds would end past the cap of time */
	SEQUENTIAL_NOTHING,       /* no case is comparable at a look (every run failed there) */
	SEQUENTIAL_INTERRUPTED,   /* a signal ended the set */
	SEQUENTIAL_FAILED,        /* the set ended on an error */
};

struct sequential {
	double detect;        /* the change to resolve, a fraction (0.03) */
	double alpha;         /* the chance of any false call over every look (0.01) */
	double threshold;     /* compare's threshold at the looks: 0.02, or detect when smaller */
	long max_rounds;      /* SEQUENTIAL_MIN_ROUNDS.. */
	double max_time_s;    /* 0: none */
	int quiet;
	/* as it runs */
	double start_s;       /* monotonic clock at sequential_start() */
	long rounds;          /* rounds collected so far */
	enum sequential_reason reason;
	json_t *looks;        /* one object per look (rounds.json "looks") */
	json_t *last;         /* the last look's comparison (compare_build_groups()), or NULL */
};

#define SEQUENTIAL_INIT { 0.03, 0.01, 0.02, 10, 0, 0, 0, 0, SEQUENTIAL_GO_ON, NULL, NULL }

/* The number of looks of a plan of at most max_rounds rounds: the even rounds from 4 up to max_rounds, and
 * max_rounds itself when odd (0 below SEQUENTIAL_MIN_ROUNDS). */
long sequential_looks(long max_rounds);
/* Whether round (1-based) is a look of that plan. */
int sequential_is_look(long round, long max_rounds);
/* The level every look is tested at: alpha / sequential_looks(max_rounds) (NAN without a look). */
double sequential_level(double alpha, long max_rounds);
/* The decision after a round: at a look, given worst (the largest 97.5%-power change over the comparable cases, NAN
 * when one is untested) and ncomparable (cases with a comparison; 0: SEQUENTIAL_NOTHING), SEQUENTIAL_DETECT when
 * worst <= detect; otherwise SEQUENTIAL_MAX_ROUNDS_HIT at max_rounds, SEQUENTIAL_MAX_TIME_HIT when the next look,
 * at the rounds' mean pace so far (elapsed_s / round), would end past max_time_s; else SEQUENTIAL_GO_ON. Between
 * looks: SEQUENTIAL_GO_ON. */
enum sequential_reason sequential_decide(const struct sequential *s, long round, double worst, size_t ncomparable,
					 double elapsed_s);
const char *sequential_reason_name(enum sequential_reason r);

/* The plan recorded in every run's status.json ("interleave"."sequential") and in rounds.json: a new object
 * {method, alpha, looks, level, detect, threshold, max_rounds, max_time_s}. */
json_t *sequential_design(const struct sequential *s);
/* Starts the clock. */
void sequential_start(struct sequential *s);
/* After round `round` with the run directories made so far (those whose suites started): at a look, compares the
 * stacks (compare's grouping of an interleaved set, the first stack the baseline) at the look's level and notes the
 * look; prints a line unless quiet. *out_stop: 1 when the set should end (s->reason says why). Returns 0 or a
 * negative code with the error set. */
int sequential_after_round(struct sequential *s, int *out_stop, char *const *dirs, size_t ndirs, long round);
/* The record of the whole set, rounds.json: {schema, design, rounds, stop: {reason, why}, looks, runs: [names],
 * verdicts: {counts, summary} of the last look, or null}. A new object. */
json_t *sequential_record(const struct sequential *s, char *const *dirs, size_t ndirs);
/* Writes sequential_record() as rounds.json into each of dirs[0..ndirs) (the same bytes in each), and prints why the
 * set stopped and the last look's verdicts unless quiet. Returns 0 or the first write's negative code. */
int sequential_write(const struct sequential *s, char *const *dirs, size_t ndirs);
void sequential_release(struct sequential *s);

/* The level a comparison of runs should use by default: when every side's status.json carries the same
 * "interleave"."sequential" plan of one group, its level and threshold (*found 1); else *found 0. statuses[i] is a
 * run's status.json (NULL: none). */
void sequential_plan_of(int *found, double *level, double *threshold, json_t *const *statuses, size_t n);

#endif
