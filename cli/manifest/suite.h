/* SPDX-License-Identifier: Apache-2.0 */
/*
 * suite.h — the suite registry. A suite is one struct suite_ops in its own file (suite_<name>.c) plus one
 * line in suite.c's registry, as nccl-tests keeps struct testColl. Nothing else switches on suite names.
 *
 * Ownership: ops and their schemas are static constants. A struct suite_cfg (the manifest's settings for
 * one suite) owns its values and its env_matrix; suite_cfg_release() frees them.
 */
#ifndef BENCH_SUITE_H
#define BENCH_SUITE_H

#include <stddef.h>

#include "param.h"

struct manifest;
struct plan;
struct strbuf;

/* One variable of a suite's env_matrix and the values it takes, in manifest order. */
struct env_axis {
	char *name;
	char **values;
	size_t nvalues;
};

/* The most cells (points of the product of an env_matrix's value lists) one suite may expand into. */
#define SUITE_MAX_ENV_CELLS 64
/* an env_matrix name and value are part of every case key of their cell (the value percent-encoded): bounded, so
 * that the plan's memory is linear in its cases, not cases x file size */
#define SUITE_MAX_ENV_NAME 64
#define SUITE_MAX_ENV_VALUE 128

struct suite_cfg {
	const struct suite_ops *ops;
	int line, col;                /* the suite's key in the manifest */
	struct param_value *values;   /* one per ops->params entry, same order */
	size_t nvalues;
	int bad;                      /* a parameter failed to parse: cross-field checks are skipped */
	struct env_axis *env_matrix;  /* env_matrix: every case once per cell, the cell's variables set (NULL: none) */
	size_t nenv_matrix;
};

/* Context for a suite's cross-field checks: errors land at a parameter's position. */
struct suite_check {
	struct diag_list *diags;
	const char *file;
	const struct suite_cfg *cfg;
};

struct suite_ops {
	const char *name;
	const char *summary;
	const char *program;          /* runner executable inside the image */
	/* The runner of one case when it is not `program` (NULL, or returning NULL: `program`). */
	const char *(*program_for)(const json_t *params);
	const char *metric;           /* headline metric of its records */
	const char *unit;
	/* The fewest samples per case and run that make a run's median worth comparing; bench compare warns below it. */
	unsigned min_samples;
	/* How many processes the launcher must start (one per rank), or NULL / 1 for one process. */
	long long (*processes)(const struct suite_cfg *cfg, const struct manifest *m);
	/* 1: the runner starts its own ranks on its node (training: one process per GPU, rendezvous across nodes from
	 * the Slurm environment), so a batch launcher starts it once per node with every GPU of the node. */
	int ranks_per_node_itself;
	/* 1: this case measures the host CPU by design whatever the target (gemm backend cblas, collectives backend
	 * mpi); NULL or 0: it measures the target's device, and a record from another device fails. */
	int (*on_host)(const json_t *params);
	enum { SUITE_PEAK_NONE, SUITE_PEAK_TFLOPS, SUITE_PEAK_HBM } peak; /* the datasheet figure its headline is a share of */
	const struct param_def *params; /* terminated by an entry with name NULL */
	/* Cross-field rules the per-parameter schema cannot express. */
	void (*check)(struct suite_check *c, const struct manifest *m);
	/* Expands the settings into cases with stable keys. Returns 0 or a negative code. */
	int (*plan)(struct plan *out, const struct suite_cfg *cfg, const struct manifest *m);
};

extern const struct suite_ops *const suite_registry[];

const struct suite_ops *suite_find(const char *name);
/* NULL-terminated array of the registered names (static). */
const char *const *suite_names(void);
const struct param_value *suite_cfg_get(const struct suite_cfg *cfg, const char *name);
void suite_cfg_release(struct suite_cfg *cfg);
/* How many cells cfg's env_matrix expands into (1 without one). */
size_t suite_env_cells(const struct suite_cfg *cfg);
/* Cell `cell` (0-based; the first variable varies slowest) as a JSON object NAME -> value (new reference), and its
 * label "NAME=value,NAME=value" appended to label when not NULL: a value's characters outside [A-Za-z0-9._+^:@-]
 * are written %XX, so that the label is one path-safe word and two cells never share one. */
json_t *suite_env_cell(const struct suite_cfg *cfg, size_t cell, struct strbuf *label);
/* Every parameter of cfg as a JSON object, except those named in skip (NULL-terminated). New reference. */
json_t *suite_params_json(const struct suite_cfg *cfg, const char *const *skip);
void suite_check_error(struct suite_check *c, const struct param_value *at, const char *fmt, ...)
	BENCH_PRINTF(3, 4);

#endif
