/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runset.h — bench run's set of runs: each manifest once, or once per variant (its stacks), measured alone or
 * alternately for a number of rounds (--rounds N, or --rounds auto until the stopping rule of stats/sequential.h
 * can tell), and every run finished: its directory printed and, when it measured something, packed and signed.
 *
 * Ownership: runset_run() owns what it allocates and releases it before it returns; the run directories and bundles
 * on disk are the result. The options, the strings they point to and o->seq stay the caller's; runset_expand()
 * pushes copies into the caller's vectors.
 */
#ifndef BENCH_RUNSET_H
#define BENCH_RUNSET_H

#include <stdio.h>

#include "core/strvec.h"
#include "exec/run.h"

struct sequential;

struct runset_opts {
	struct run_opts run;        /* what every run shares (-s, -k, --rep, --warmup, -o, --resume, -n, -q, -v) */
	char *const *manifests;     /* the stacks, in step: manifest paths, variants ("" none: runset_expand()) */
	char *const *variants;
	char *const *locks;         /* each manifest's lock (MANIFEST.lock.json): --locked checks it, a container engine
				     * builds from it */
	size_t n;                   /* 0 with run.resume */
	long rounds;                /* 1, N, or --rounds auto's cap */
	int locked;                 /* --locked: refuse unless the lock is of that exact manifest */
	int no_pack;                /* no bundle */
	int pack_empty;             /* a bundle even when nothing was measured */
	struct sequential *seq;     /* --rounds auto, or NULL */
	FILE *out;                  /* each run's directory, bundle and envelope */
	FILE *msg;                  /* why there is no bundle, the stacks against the first */
	/* prints the error set, "bench: error: ..." (cli.h's cli_fail): each failure of the set as it is met */
	int (*fail)(int err);
	/* packs and signs a run directory with the user's own key (cli.h's pack_with_own_key): *tar and *env are
	 * the bundle's and the envelope's paths; 0 or a negative code with the error set */
	int (*pack)(char **tar, char **env, const char *dir, int quiet, int level);
};

/* Each manifest once, or once per variant (its stacks <name>+<variant>): paths and variants ("" for none) in
 * step. A manifest that does not parse is passed on as it is, for the run to report. */
void runset_expand(struct strvec *paths, struct strvec *variants, char *const *manifests, size_t n);
/* --rounds auto's options (--detect, --max-rounds, --max-time; NULL: not given) into seq. Returns 0, or
 * BENCH_E_USAGE with the message set. */
int runset_parse_auto(struct sequential *seq, const char *detect, const char *max_rounds, const char *max_time);
/* bench run's --rounds options, as given */
struct runset_rounds {
	const char *rounds, *detect, *max_rounds, *max_time;
};
/* --rounds N, or auto with --detect, --max-rounds and --max-time (into seq, and o->seq then), checked against
 * --resume, --dry-run, -k, --rep and --warmup and the number of manifests given (nmanifests). Returns 0, or
 * BENCH_E_USAGE with the message set. */
int runset_parse_rounds(struct runset_opts *o, struct sequential *seq, const struct runset_rounds *ra, int nmanifests);
/* --rep and --warmup (durations above 0) and the names of --suite. Returns 0, or BENCH_E_USAGE with the message set. */
int runset_check_opts(const struct run_opts *ro);
/* Runs the set: a dry run of each stack when o->run.dry_run (one manifest's variants), the stacks alternately when
 * there are several or o->rounds > 1, else the one run (or o->run.resume). Every failure is handed to o->fail as it
 * is met (a set has several; a manifest's problems are printed by the run). Returns the worst outcome: BENCH_E_CHECK (a wrong result) before BENCH_E_SUITE (a case
 * failed or was interrupted) before any other code, BENCH_E_EMPTY (nothing measured) only before 0. */
int runset_run(const struct runset_opts *o);

#endif
