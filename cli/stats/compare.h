/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compare.h — bench compare: match cases of several runs by their case key and compare headline metrics with
 * the statistics of docs/architecture.md; beside the numbers, what differs in the stack, the environment and the
 * method.
 *
 * Ownership: struct compare_side owns its JSON and strings (compare_side_release()); compare_build() returns a
 * new JSON document the caller decrefs.
 */
#ifndef BENCH_COMPARE_H
#define BENCH_COMPARE_H

#include <stddef.h>

#include <jansson.h>

struct compare_side {
	char *path;
	char *label;     /* the run name */
	int verified;    /* 1 verified bundle, 0 run directory or unverified bundle */
	char *keyid;
	json_t *records; /* case key -> result record (ok or not); a case that status.json marks failed, skipped or
			  * interrupted without a record of its own (its runner crashed, hung or was stopped) has one
			  * made from status.json: {suite, case, status, error} */
	json_t *env;     /* env/environment.json */
	json_t *plan;    /* plan.json */
	json_t *summary; /* summary.json (percent of peak per case), or NULL */
	json_t *lock;    /* manifest.lock.json of a --locked run, or NULL */
	json_t *status;  /* status.json (the run's state, every case's status and reason), or NULL */
	json_t *pricing; /* the run's manifest.yaml pricing (cost_pricing_parse()), or NULL: none */
	json_t *image;   /* image/image.json of a container run (the image's id), or NULL */
	char *run;       /* the run's name as read (labels are made distinct; this is not): one run's identity,
			  * whether given as its directory or its bundle */
	char manifest_sha256[65]; /* of its manifest.yaml, "" without one */
};

#define COMPARE_SIDE_INIT { NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL }

/* What a person needs to know about a run that did not end well, from its status.json (NULL: nothing known):
 * the run's state ("complete", "failed", "interrupted", "running"), the number of cases per status, whether
 * the run is incomplete (state running or interrupted, or a case still pending), and every case that is not
 * ok, in plan order, as {suite, case, status, error} (error: the recorded reason, or a sentence saying that
 * none was recorded). A new object {state, counts: {ok, failed, skipped, interrupted, pending}, incomplete,
 * not_ok: [...]}. */
json_t *compare_run_health(json_t *status);
/* The reason recorded for a case that is not ok (a record or a status.json entry), or a sentence saying that
 * none was recorded. The string belongs to the record. */
const char *compare_case_reason(json_t *rec);
/* The cases of an env_matrix (keys <case>/env:<cell>) side by side: cases is an array of {suite, case, status,
 * value, unit} (summary.json's cases, or records). A new array, one entry per suite that has such cases, in the
 * order first seen: {suite, unit, cells: [cell labels in order first seen], rows: [{case: the key without its
 * /env: suffix, values: [per cell: the value when ok, else null]}]}; empty when no key names a cell. */
json_t *compare_env_cells(json_t *cases);

struct compare_opts {
	double threshold;   /* 0.02 */
	double alpha;       /* 0.01 */
	unsigned resamples; /* 2000 */
	int allow_unverified;
	char *const *keys;  /* for verifying bundles; NULL: trusted keys */
	json_t *noise;      /* compare_noise_floor()'s object, or NULL: the threshold of each suite it names */
};

/* One side of a comparison: the runs (indices into the loaded sides) pooled as repeats of one stack. */
struct compare_group {
	char *label;
	size_t *runs;
	size_t nruns;
};

/* Groups sides[0..n): with starts (nstarts > 0), group g is the runs from starts[g] to the next start (the
 * --vs groups); without, the runs of one `bench run --rounds` interleave group and stack (status.json
 * "interleave") form one group, in the order of their first run, and every other run is a group of its own.
 * One run is one run whatever form it is given in: within a group, a run given again (its directory and its
 * bundle, or the same path twice) counts once, the verified form kept; without starts, a run given by two
 * different paths is one group (the same path repeated stays a deliberate repeat: `compare A A`).
 * A group of several runs is labelled "NAME (K runs)" after its first run's manifest name. A new array of *nout
 * groups (compare_groups_free()). */
struct compare_group *compare_group_runs(size_t *nout, const struct compare_side *sides, size_t n,
					 const size_t *starts, size_t nstarts);
void compare_groups_free(struct compare_group *g, size_t n);
/* The noise floor of an A/A pair (two groups of the same stack): per suite, the 95th percentile over its cases
 * of |ratio - 1|, the ratio being that of the two groups' medians of run medians. A new object
 * {label, runs, quantile, suites: {suite: {floor, cases}}}. */
json_t *compare_noise_floor(const struct compare_side *sides, const struct compare_group *a, const struct compare_group *b);

/* How compare reads one input path among all those given (all[0..n)): an envelope X.intoto.jsonl, X a file, stands
 * for its bundle X, and is no input of its own (NULL) when X is given too, as a glob runs/a-* gives both. Otherwise
 * path. *owned is set to a new string the caller frees when the result is not path, else NULL. */
const char *compare_input_path(char **owned, const char *path, char *const *all, size_t n);
/* Loads a run directory or a bundle (verified first, unless opts->allow_unverified; then marked). */
int compare_load(struct compare_side *out, const char *path, const struct compare_opts *o);
void compare_side_release(struct compare_side *s);
/* Loads every path into a new array of n sides (compare_sides_free()) with distinct labels ("run", "run (2)",
 * ...: the same path given twice is two columns; a run's directory and its bundle keep the run's name, being one
 * run); on failure *out is NULL and nothing stays loaded. */
int compare_load_all(struct compare_side **out, char *const *paths, size_t n, const struct compare_opts *o);
void compare_sides_free(struct compare_side *sides, size_t n);
/* The stack and environment facts of a side, flattened to "gpu.name" -> value (a new object). */
json_t *compare_stack_facts(const struct compare_side *s);
/* Compares every side with the baseline, each side one run. */
json_t *compare_build(const struct compare_side *sides, size_t n, size_t baseline, const struct compare_opts *o);
/* Compares every group with the baseline group (docs/architecture.md, "Statistics"): the ratio of the medians of
 * run medians with its hierarchical-bootstrap 95% CI; with 3 runs or more on both sides Welch's t test on the
 * runs' log medians, adjusted over every test of the comparison by step-down min-P under a run effect shared by
 * the cases of a run; fewer runs: inconclusive. */
json_t *compare_build_groups(const struct compare_side *sides, const struct compare_group *groups, size_t ng,
			     size_t baseline, const struct compare_opts *o);

/* One line per other side of a comparison (compare_build_groups()'s object), in the manner of hyperfine:
 * "b (3 runs) vs a (3 runs): 6 cases faster 1.23x [1.20, 1.26], 3 same, 0 slower, 2 inconclusive": for the cases
 * called faster (slower), the geometric mean of their ratios and in brackets the least and the largest; the cases
 * not comparable or missing on that side are counted when there are any. A new array of strings. */
json_t *compare_summary_lines(json_t *r);
/* The summary lines (compare_summary_lines()) of the runs an interleaved `bench run A B --rounds N` made: the run
 * directories dirs[0..n) grouped by stack (compare_group_runs() without starts), the first group the baseline,
 * compare's defaults. *out is a new array of strings (empty with fewer than two sides). Returns 0 or a negative
 * code with the error set. */
int compare_interleave_summary(json_t **out, char *const *dirs, size_t n);

#endif
