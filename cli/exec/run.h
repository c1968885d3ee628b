/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.h — bench run: plan, run every suite's runner through the engine and launcher, stream its records into
 * the run directory (docs/architecture.md), keep status.json current, and resume an interrupted run.
 *
 * Ownership: run_execute() owns everything it opens; on return the run directory on disk is the result.
 * out_dir receives a malloc'd copy of the run directory's path (caller frees), also on failure once created.
 * out_started is one of enum run_started.
 */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include <stddef.h>

#include <jansson.h>

/* How far a run went, for its caller: whether to pack it */
enum run_started {
	RUN_NOT_STARTED = 0, /* it stopped before its suites (no lock, no engine, no image): status.json says
			      * "not-started" and why */
	RUN_STARTED = 1,     /* its suites started: a run worth packing */
	RUN_UNPACKABLE = 2,  /* its suites started, but its directory was not scrubbed whole: a file or directory
			      * name holding a secret (refused as bench pack refuses it: the error says which), or a
			      * full disk while scrubbing. Never packed; status.json keeps its state */
};

struct run_opts {
	const char *manifest;  /* NULL with resume */
	const char *out_parent;/* default "runs" */
	const char *resume;    /* run directory to complete */
	char *const *only;     /* suite names, or NULL */
	size_t nonly;
	const char *lock;      /* --locked: the lock the manifest must match (copied into the run) */
	const char *image_lock;/* container engines: the lock the image is built from (MANIFEST.lock.json) */
	const char *variant;   /* the manifest's variant this run measures (manifest_apply_variant); resume: from plan.json */
	const char *image_id;  /* container engines: an image id ("sha256:...") to run when the engine has it (bench
				* reproduce: the original's), else the lock's image as usual */
	char *const *select;   /* -k: case patterns (a glob matched anywhere in SUITE/CASE), or NULL */
	size_t nselect;
	const char *rep;       /* --rep, --warmup: durations that replace every suite's rep and warmup, or NULL */
	const char *warmup;
	int dry_run;
	int quiet;
	int verbose;
};

/* Returns 0 when every case ran ok or was skipped and one at least was ok; BENCH_E_EMPTY when none was (every case
 * skipped: nothing measured); BENCH_E_CHECK when a correctness check failed;
 * BENCH_E_SUITE when a case failed or was interrupted; BENCH_E_MANIFEST with diagnostics printed for a bad
 * manifest; BENCH_E_IO on a full disk; BENCH_E_FAIL with bench pack's message when a name in the run directory
 * holds a secret (*out_started RUN_UNPACKABLE: nothing packed); other negative codes with the error set. */
int run_execute(char **out_dir, int *out_started, const struct run_opts *o);

/* One run of an interleaved set: its directory (NULL when it stopped before one was made), whether its suites
 * started (enum run_started), and its outcome as run_execute returns it, with that error's message. */
struct run_outcome {
	char *dir;
	int started;
	int err;
	char *error;
};

void run_outcome_release(struct run_outcome *out);

/* bench run A.yaml B.yaml --rounds N: n stacks (opts[k] each, resume unset) measured alternately on this machine,
 * rounds times. A round plans and prepares every stack (images built or found) before measuring, then runs suite by
 * suite, each suite on every stack before the next suite, the stacks forward in odd rounds and backward in even ones
 * (ABBA). Each stack makes one run per round, its place in the set in status.json's "interleave". out holds
 * rounds * n outcomes, round-major (out[(round - 1) * n + k]); the caller releases each. Returns 0, or
 * BENCH_E_SUITE when interrupted (the runs made so far are kept). */
int run_interleave(struct run_outcome *out, const struct run_opts *opts, size_t n, long rounds);

/* A set that stops when it can tell (bench run --rounds auto, stats/sequential.h): after_round is called once each
 * round's runs are collected, with out[0 .. round * n) made so far; it returns 1 to end the set after this round, 0
 * to go on, or a negative code with the error set (the set ends; the runs made are kept). design, when not NULL, is
 * recorded in each run's status.json "interleave" as "sequential" (the plan fixed before the first run). */
struct run_rounds_hook {
	int (*after_round)(void *ctx, const struct run_outcome *out, size_t n, long round);
	void *ctx;
	json_t *design;
};

/* run_interleave() with at most max_rounds rounds ("rounds" in status.json) and hook (NULL: every round). Returns
 * as run_interleave() does, or the hook's negative code. */
int run_interleave_until(struct run_outcome *out, const struct run_opts *opts, size_t n, long max_rounds,
			 const struct run_rounds_hook *hook);

#endif
