/*
 * run.h — bench run: plan, run every suite's runner through the engine and launcher, stream its records into
 * the run directory (docs/architecture.md), keep status.json current, and resume an interrupted run.
 *
 * Ownership: run_execute() owns everything it opens; on return the run directory on disk is the result.
 * out_dir receives a malloc'd copy of the run directory's path (caller frees), also on failure once created.
 * out_started is 1 once the suites started (a run worth packing), 0 when it stopped before (no lock, no engine,
 * no image: status.json says "not-started" and why).
 */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include <stddef.h>

struct run_opts {
	const char *manifest;  /* NULL with resume */
	const char *out_parent;/* default "runs" */
	const char *resume;    /* run directory to complete */
	char *const *only;     /* suite names, or NULL */
	size_t nonly;
	const char *lock;      /* --locked: the lock the manifest must match (copied into the run) */
	const char *image_lock;/* container engines: the lock the image is built from (MANIFEST.lock.json) */
	int dry_run;
	int quiet;
	int verbose;
};

/* Returns 0 when every case ran ok or was skipped; BENCH_E_CHECK when a correctness check failed;
 * BENCH_E_SUITE when a case failed or was interrupted; BENCH_E_MANIFEST with diagnostics printed for a bad
 * manifest; other negative codes with the error set. */
int run_execute(char **out_dir, int *out_started, const struct run_opts *o);

#endif
