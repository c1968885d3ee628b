/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan.h — the cases a manifest would run: suite × parameters, each with its stable case key (docs/architecture.md).
 *
 * Ownership: plan_build() fills a caller-provided struct plan that owns its cases (keys and JSON params);
 * plan_release() frees them. Case params are jansson objects owned by the plan (borrow, do not decref). A struct
 * plan_index owns only its array; it borrows the plan's suite names and keys, and is valid while the plan is not
 * changed (built after plan_keep_suites() and -k's selection).
 */
#ifndef BENCH_PLAN_H
#define BENCH_PLAN_H

#include <stddef.h>

#include <jansson.h>

#include "manifest.h"

struct plan_case {
	const struct suite_ops *suite;
	char *key;
	json_t *params;
};

struct plan {
	struct plan_case *cases;
	size_t n, alloc;
	size_t dropped; /* cases plan_add() refused past cap */
	size_t cap;     /* the most cases plan_add() keeps: PLAN_MAX_CASES over the manifest's variants (0: PLAN_MAX_CASES) */
};

#define PLAN_INIT { NULL, 0, 0, 0, 0 }

/* The most cases one manifest may plan (every suite, every env cell and variant's cases together): more is an
 * error at the suite that goes past it. */
#define PLAN_MAX_CASES 100000

/* Every stage n log n in the cases (duplicate keys found by sorting). The cases of one variant; a manifest with
 * variants runs them once per variant, so the cap counts cases x variants. Returns 0, or a negative code with the
 * error set; with diags, a manifest that plans more than PLAN_MAX_CASES (cases x variants) gets a positioned diagnostic there
 * (BENCH_E_MANIFEST), else the message starts with file:line:col. */
int plan_build_diag(struct plan *out, const struct manifest *m, struct diag_list *diags);
int plan_build(struct plan *out, const struct manifest *m);
/* Takes ownership of key and params (freed at once past PLAN_MAX_CASES, counted in dropped). */
void plan_add(struct plan *p, const struct suite_ops *suite, char *key, json_t *params);
/* Keeps only the cases of the suites named in names[0..n) (bench run -s), in plan order. */
void plan_keep_suites(struct plan *p, char *const *names, size_t n);
/* The plan as the JSON document of `bench plan --json` and plan.json (new reference). */
json_t *plan_json(const struct plan *p, const struct manifest *m);
/* The runner's input document of suite s (bench.cases/v1: schema, suite, ranks, cases) with n of the plan's cases:
 * idx[0..n) where idx is given, else first .. first + n. The run adds where its files go (cli/exec/run_suite.c);
 * the plan's size check counts it as it is. New reference (caller decrefs). */
json_t *plan_cases_json(const struct plan *p, const struct manifest *m, const struct suite_ops *s, const size_t *idx,
			size_t first, size_t n);
void plan_release(struct plan *p);

/* The cases sorted by suite name and key: a case found by the two in log n (a runner's record, a resumed run's
 * results), where a walk over the plan would make taking n records n^2. */
struct plan_index_entry {
	const char *suite, *key;
	size_t i; /* the case's index in the plan */
};
struct plan_index {
	struct plan_index_entry *e;
	size_t n;
};

#define PLAN_INDEX_INIT { NULL, 0 }

void plan_index_build(struct plan_index *out, const struct plan *p);
/* The plan index of suite's case key, or -1. */
long plan_index_find(const struct plan_index *ix, const char *suite, const char *key);
void plan_index_release(struct plan_index *ix);

#endif
