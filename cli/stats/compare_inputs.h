/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compare_inputs.h — what bench compare gathers around compare_build_groups() (compare.h): the sides of the
 * command line (inputs split by --vs separators), the noise floor of an A/A pair (--noise-from), the level and
 * threshold a `bench run --rounds auto` plan tested at, and the findings of every run.
 *
 * Ownership: compare_inputs_split() fills a caller-provided struct compare_inputs whose arrays (and the paths it
 * made) compare_inputs_release() frees; its other paths point into the caller's arguments, which must outlive it.
 * compare_noise_load() and compare_side_findings() return new JSON values the caller decrefs.
 */
#ifndef BENCH_COMPARE_INPUTS_H
#define BENCH_COMPARE_INPUTS_H

#include <stddef.h>

#include <jansson.h>

#include "stats/compare.h"

struct compare_inputs {
	char **paths;   /* the inputs, in order (compare_input_path()) */
	size_t n;
	size_t *starts; /* the first input of each --vs group; none without --vs */
	size_t nstarts;
	char **owned;   /* the paths made here */
	size_t nowned;
};

#define COMPARE_INPUTS_INIT { 0 }

/* Splits the positional arguments args[0..n), where the pointer vs stands for each --vs separator, into inputs
 * and the groups' first indices. Returns 0, or BENCH_E_USAGE with the error set when a --vs has no input before
 * or after it. */
int compare_inputs_split(struct compare_inputs *out, char **args, size_t n, const char *vs);
void compare_inputs_release(struct compare_inputs *in);
/* The noise floor (compare_noise_floor()) of the A/A pair paths[0..n): two runs of one stack, or the runs of
 * `bench run A.yaml A.yaml --rounds N`. Returns 0, or a negative code with the error set (BENCH_E_USAGE when they
 * do not form two sides). */
int compare_noise_load(json_t **out, char *const *paths, size_t n, const struct compare_opts *co);
/* When sides[0..n) are the runs of one `bench run --rounds auto` (sequential_plan_of()), sets co->alpha to the
 * level its looks were planned at and, unless keep_threshold, co->threshold to its threshold, and returns 1;
 * else 0, co unchanged. */
int compare_plan_level(struct compare_opts *co, const struct compare_side *sides, size_t n, int keep_threshold);
/* The findings of each run of every group (docs/findings.md): those its summary.json carries (signed with it),
 * else evaluated here on its records. [{label, findings: [...]}] for the runs that have any. */
json_t *compare_side_findings(const struct compare_side *sides, const struct compare_group *groups, size_t ng);

#endif
