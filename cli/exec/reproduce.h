/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reproduce.h — bench reproduce: a signed bundle's manifest run again on this machine. Verify the bundle (what is
 * used is what verified), show who signed it and what its manifest executes here and run it only once confirmed
 * (docs/bundle-format.md, "Reproducing a bundle: the trust model"), check that this machine has the original's GPUs,
 * run the same suites, variant, lock and case selection a number of rounds, judge every case against the original
 * (stats/reproduce.h), write reproduce.json into the last run and pack every run.
 *
 * Ownership: reproduce_bundle() fills a caller-provided struct reproduce_result (REPRODUCE_RESULT_INIT), also on
 * failure; release it with reproduce_result_release(). The options and the files they name are only read; the work
 * directory made under out is removed before it returns, and so are the directories of out it made that stayed
 * empty.
 */
#ifndef BENCH_EXEC_REPRODUCE_H
#define BENCH_EXEC_REPRODUCE_H

#include <stdio.h>

#include <jansson.h>

#include "core/strvec.h"
#include "stats/reproduce.h"

struct reproduce_opts {
	const char *bundle;   /* BUNDLE.bench.tar.gz */
	char *const *keys;    /* public keys to verify with; NULL: the trusted keys */
	const char *out;      /* where the run directories are made */
	double threshold;     /* relative change that counts */
	double max_band;      /* reproduced only within 1 +/- max_band (never below threshold) */
	long rounds;          /* runs made here */
	int yes;              /* run without asking (the listing is still printed) */
	int dry_run;          /* the listing and the exact commands; nothing run */
	int quiet;            /* no progress of the run */
	int json;             /* the verdicts printed as JSON: packing says nothing */
	FILE *in;             /* the answer to "run it?" when it is a terminal */
	FILE *msg;            /* the signer, what runs, progress, a failed case's line */
	/* packs and signs a run directory with the user's own key (cli.h's pack_with_own_key): *tar and *env are
	 * the bundle's and the envelope's paths; 0 or a negative code with the error set */
	int (*pack)(char **tar, char **env, const char *dir, int quiet, int level);
};

struct reproduce_result {
	json_t *doc;                              /* reproduce.json; NULL after a dry run */
	size_t counts[REPRODUCE_NVERDICTS];       /* the verdicts, by enum reproduce_verdict */
	int reproducible;                         /* 0: this machine's GPUs differ, nothing was run */
	int run_err;                              /* the runs' worst outcome: BENCH_E_CHECK, else the last failure, 0 */
	struct strvec paths;                      /* printed after the verdicts: every run's dir, bundle and envelope */
	int reported;                             /* the error's problems are printed already (a manifest's diagnostics) */
	int manifest_failed;                      /* the manifest does not run with this bench */
};
#define REPRODUCE_RESULT_INIT { .paths = STRVEC_INIT }

/* Reproduces o->bundle. Returns 0 with res filled (the verdicts judged, or every case "not reproducible here" when
 * res->reproducible is 0; after a dry run res->doc is NULL), or a negative code with the error set: BENCH_E_VERIFY
 * when the bundle does not verify, BENCH_E_MANIFEST when the run was not confirmed or its manifest does not parse
 * (res->reported: its problems printed on o->msg); with res->manifest_failed the bundle's manifest did not run. */
int reproduce_bundle(struct reproduce_result *res, const struct reproduce_opts *o);
/* The verdicts as a table (doc's cases, the stack's differences, the counts), then res->paths, one a line. */
void reproduce_print(FILE *fp, const struct reproduce_result *res);
void reproduce_result_release(struct reproduce_result *res);

#endif
