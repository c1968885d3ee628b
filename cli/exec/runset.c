/* SPDX-License-Identifier: Apache-2.0 */
/* runset.c — bench run's set of runs: stacks (manifests, variants) run alone or alternately, each run finished. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/runset.h"
#include "core/diag.h"
#include "core/error.h"
#include "core/escape.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "manifest/manifest.h"
#include "manifest/suite.h"
#include "bundle/bundle.h"
#include "stats/compare.h"
#include "stats/sequential.h"

/* One failure of the set said through o->fail (the command prints it), the error set before kept */
static void say_failure(const struct runset_opts *o, int err, const char *fmt, ...) BENCH_PRINTF(3, 4);
static void say_failure(const struct runset_opts *o, int err, const char *fmt, ...)
{
	char *before = xstrdup(bench_error_last()), msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->fail(bench_error_set(err, "%s", msg));
	bench_error_set(err, "%s", before);
	free(before);
}

/* the error set, said through o->fail; returns err */
static int fail(const struct runset_opts *o, int err)
{
	o->fail(err);
	return err;
}

/* The worse of two outcomes, by their exit statuses: a wrong result (7) before a failed case (6) before anything
 * else; nothing measured (10) only before success. */
static int worse(int a, int b)
{
	/* by exit code 0..10: 7, then 6, then the highest, and 10 just above 0 */
	static const int rank[] = { 0, 2, 3, 4, 5, 6, 9, 10, 7, 8, 1 };
	int sa = bench_exit_code(a), sb = bench_exit_code(b);

	if (sa < 0 || sa > 10 || sb < 0 || sb > 10)
		return a ? a : b;
	return rank[sb] > rank[sa] ? b : a;
}

/* Prints the run directory and packs it when its suites started and measured something (or --pack-empty), never
 * when it is unpackable (the run's error said why: a name pack refuses, a full disk); returns the outcome of
 * packing. */
static int finish_run(const struct runset_opts *o, const char *dir, int started, int empty)
{
	char *tar = NULL, *env = NULL;
	int perr = 0;

	fprintf(o->out, "%s\n", dir);
	if (started == RUN_UNPACKABLE)
		return 0;
	if (!started) {
		fprintf(o->msg, "bench: no bundle: nothing was measured (see %s/status.json)\n", dir);
		return 0;
	}
	if (empty && !o->no_pack && !o->pack_empty) {
		fprintf(o->msg, "bench: no bundle: nothing was measured (--pack-empty writes one)\n");
		return 0;
	}
	/* every run ends signed: what was measured is packed whatever the outcome */
	if (!o->no_pack && (perr = o->pack(&tar, &env, dir, o->run.quiet, BUNDLE_LEVEL_DEFAULT)) < 0)
		say_failure(o, perr, "packing '%s' failed: %s", dir, bench_error_last());
	else if (!o->no_pack) {
		fprintf(o->out, "%s\n%s\n", tar, env);
	}
	free(tar);
	free(env);
	return perr < 0 ? perr : 0;
}

void runset_expand(struct strvec *paths, struct strvec *variants, char *const *manifests, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct diag_list d = DIAG_LIST_INIT;
		struct manifest m = MANIFEST_INIT;

		if (manifest_parse_file(&m, &d, manifests[i]) == 0 && m.nvariants) {
			for (size_t k = 0; k < m.nvariants; k++) {
				strvec_push(paths, manifests[i]);
				strvec_push(variants, m.variants[k].name);
			}
		} else {
			strvec_push(paths, manifests[i]);
			strvec_push(variants, "");
		}
		manifest_release(&m);
		diag_list_release(&d);
	}
}

/* the stacks against the first, once: a line each, as hyperfine ends */
static void print_stacks_summary(FILE *fp, const struct run_outcome *out, size_t n)
{
	char **dirs = xcalloc(n + 1, sizeof(*dirs));
	size_t nd = 0, i;
	json_t *lines = NULL, *l;

	for (i = 0; i < n; i++)
		if (out[i].dir && out[i].started)
			dirs[nd++] = out[i].dir;
	if (compare_interleave_summary(&lines, dirs, nd) < 0) {
		char *why = esc_text(bench_error_last());

		fprintf(fp, "bench: no comparison of the stacks: %s\n", why);
		free(why);
	} else if (json_array_size(lines)) {
		fprintf(fp, "\nstacks against the first (bench compare RUN... for every case):\n");
		json_array_foreach(lines, i, l)
			fprintf(fp, "  %s\n", json_string_value(l));
	}
	json_decref(lines);
	free(dirs);
}

/* --rounds auto: after each round, the run directories made so far to the stopping rule (stats/sequential.h); a
 * stack that could not start ends the set */
static int auto_after_round(void *ctx, const struct run_outcome *out, size_t n, long round)
{
	struct sequential *seq = ctx;
	char **dirs = xcalloc(n * (size_t)round + 1, sizeof(*dirs));
	size_t nd = 0;
	int stop = 0, err;

	for (size_t i = 0; i < n * (size_t)round; i++)
		if (out[i].dir && out[i].started)
			dirs[nd++] = out[i].dir;
	for (size_t k = 0; k < n; k++)
		if (!out[(size_t)(round - 1) * n + k].started)
			stop = 1;
	if (stop) {
		seq->rounds = round;
		seq->reason = SEQUENTIAL_FAILED;
		err = 1;
	} else if ((err = sequential_after_round(seq, &stop, dirs, nd, round)) == 0) {
		err = stop;
	}
	free(dirs);
	return err;
}

/* --rounds auto: the set's rounds.json into each of its runs (before they are packed), why it stopped and its
 * verdicts on stderr */
static int auto_finish(struct sequential *seq, const struct run_outcome *out, size_t nout, int err)
{
	char **dirs = xcalloc(nout + 1, sizeof(*dirs));
	size_t nd = 0;
	int werr;

	if (seq->reason == SEQUENTIAL_GO_ON)
		seq->reason = err == BENCH_E_SUITE ? SEQUENTIAL_INTERRUPTED : SEQUENTIAL_FAILED;
	for (size_t i = 0; i < nout; i++)
		if (out[i].dir)
			dirs[nd++] = out[i].dir;
	werr = sequential_write(seq, dirs, nd);
	free(dirs);
	return werr;
}

/* Each run of the set said (what went wrong) and finished; the worst outcome */
static int finish_outcomes(const struct runset_opts *o, struct run_outcome *out, size_t nout)
{
	int worst = 0;

	for (size_t i = 0; i < nout; i++) {
		const char *mp = o->manifests[i % o->n], *var = o->variants[i % o->n];

		if (out[i].err) {
			if (out[i].err != BENCH_E_MANIFEST || out[i].dir || o->run.lock || o->locked)
				say_failure(o, out[i].err, "%s%s%s%s: %s", mp, *var ? " (variant " : "", var, *var ? ")" : "",
					    out[i].error ? out[i].error : "failed");
			worst = worse(worst, out[i].err);
		}
		if (out[i].dir)
			worst = worse(worst, finish_run(o, out[i].dir, out[i].started, out[i].err == BENCH_E_EMPTY));
		run_outcome_release(&out[i]);
	}
	return worst;
}

/* several stacks, or rounds: measured alternately (run_interleave()) */
static int run_many(const struct runset_opts *o)
{
	size_t nout = o->n * (size_t)o->rounds;
	struct run_opts *opts = xcalloc(o->n, sizeof(*opts));
	struct run_outcome *out = xcalloc(nout, sizeof(*out));
	struct run_rounds_hook hook = { auto_after_round, o->seq, o->seq ? sequential_design(o->seq) : NULL };
	int err, werr = 0, worst;

	for (size_t k = 0; k < o->n; k++) {
		opts[k] = o->run;
		opts[k].manifest = o->manifests[k];
		opts[k].variant = *o->variants[k] ? o->variants[k] : NULL;
		opts[k].image_lock = o->locks[k];
		opts[k].lock = o->locked ? o->locks[k] : NULL;
	}
	if (o->seq) {
		sequential_start(o->seq);
		err = run_interleave_until(out, opts, o->n, o->rounds, &hook);
		werr = auto_finish(o->seq, out, nout, err);
	} else {
		err = run_interleave(out, opts, o->n, o->rounds);
	}
	if (o->n > 1 && !o->run.quiet && !o->seq)
		print_stacks_summary(o->msg, out, nout);
	worst = finish_outcomes(o, out, nout);
	if (err < 0)
		worst = worse(worst, fail(o, err));
	if (werr < 0)
		worst = worse(worst, fail(o, werr));
	json_decref(hook.design);
	free(opts);
	free(out);
	return worst;
}

/* --dry-run of one manifest's variants: each one's plan and commands */
static int dry_run_variants(const struct runset_opts *o)
{
	struct run_opts ro = o->run;
	char *dir = NULL;
	int started = 0, err = 0;

	for (size_t k = 0; k < o->n && !err; k++) {
		ro.manifest = o->manifests[k];
		ro.variant = o->variants[k];
		if ((err = run_execute(&dir, &started, &ro)) < 0 && err != BENCH_E_MANIFEST)
			fail(o, err); /* a manifest's problems are printed already */
		free(dir);
		dir = NULL;
	}
	return err < 0 ? err : 0;
}

/* one run (or --resume), finished unless a dry run */
static int run_one(const struct runset_opts *o)
{
	struct run_opts ro = o->run;
	char *dir = NULL;
	int started = 0, err, worst;

	if (!ro.resume) { /* the lock --locked checks, and the one a container engine builds from */
		ro.manifest = o->manifests[0];
		ro.variant = *o->variants[0] ? o->variants[0] : NULL;
		ro.image_lock = o->locks[0];
		ro.lock = o->locked ? o->locks[0] : NULL;
	}
	err = run_execute(&dir, &started, &ro);
	if (err < 0 && (err != BENCH_E_MANIFEST || dir || ro.lock))
		fail(o, err); /* else the manifest's problems are printed already */
	worst = err < 0 ? err : 0;
	if (dir && !ro.dry_run)
		worst = worse(worst, finish_run(o, dir, started, err == BENCH_E_EMPTY));
	free(dir);
	return worst;
}

int runset_run(const struct runset_opts *o)
{
	if (o->run.dry_run && o->n > 1)
		return dry_run_variants(o);
	if (o->n > 1 || o->rounds > 1)
		return run_many(o);
	return run_one(o);
}

int runset_parse_rounds(struct runset_opts *o, struct sequential *seq, const struct runset_rounds *ra, int nmanifests)
{
	const struct run_opts *ro = &o->run;
	char *end;

	if (ra->rounds && !strcmp(ra->rounds, "auto")) {
		o->seq = seq;
		if (runset_parse_auto(seq, ra->detect, ra->max_rounds, ra->max_time) < 0)
			return BENCH_E_USAGE;
		o->rounds = seq->max_rounds;
		if (ro->resume || ro->dry_run)
			return bench_error_set(BENCH_E_USAGE, "%s", ro->resume ? "--rounds cannot resume a run (resume each run "
					       "alone)" : "--rounds auto runs the stacks; --dry-run shows one's plan");
	} else if (ra->detect || ra->max_rounds || ra->max_time) {
		return bench_error_set(BENCH_E_USAGE, "--detect, --max-rounds and --max-time go with --rounds auto");
	} else if (ra->rounds) {
		o->rounds = strtol(ra->rounds, &end, 10);
		if (*end || end == ra->rounds || o->rounds < 1 || o->rounds > 1000)
			return bench_error_set(BENCH_E_USAGE, "--rounds takes a whole number from 1 to 1000, got '%s' (or auto)",
					       ra->rounds);
		if (ro->resume)
			return bench_error_set(BENCH_E_USAGE, "--rounds cannot resume a run (resume each run alone)");
	}
	if (nmanifests > 1 && ro->dry_run)
		return bench_error_set(BENCH_E_USAGE, "--dry-run takes one manifest");
	if (ro->resume && (ro->nselect || ro->rep || ro->warmup))
		return bench_error_set(BENCH_E_USAGE, "--resume keeps the run's own -k, --rep and --warmup");
	return 0;
}

int runset_parse_auto(struct sequential *seq, const char *detect, const char *max_rounds, const char *max_time)
{
	char *end;

	if (detect) {
		seq->detect = strtod(detect, &end);
		if (end != detect && !strcmp(end, "%"))
			seq->detect /= 100;
		else if (end == detect || *end)
			seq->detect = NAN;
		if (!(seq->detect > 0 && seq->detect < 1))
			return bench_error_set(BENCH_E_USAGE, "--detect takes a change above 0 and below 100%% such as 3%% "
					       "or 0.03, got '%s'", detect);
	}
	if (max_rounds) {
		seq->max_rounds = strtol(max_rounds, &end, 10);
		if (*end || end == max_rounds || seq->max_rounds < SEQUENTIAL_MIN_ROUNDS ||
		    seq->max_rounds > SEQUENTIAL_MAX_ROUNDS)
			return bench_error_set(BENCH_E_USAGE, "--max-rounds takes a whole number from %d to %d (the first "
					       "look is after round %d), got '%s'", SEQUENTIAL_MIN_ROUNDS,
					       SEQUENTIAL_MAX_ROUNDS, SEQUENTIAL_MIN_ROUNDS, max_rounds);
	}
	if (max_time) {
		uint64_t ns = 0;
		char why[128];

		if (units_parse_duration(&ns, max_time, why, sizeof(why)) < 0 || ns == 0)
			return bench_error_set(BENCH_E_USAGE, "--max-time takes a duration above 0 such as 30m, got '%s'",
					       max_time);
		seq->max_time_s = (double)ns / 1e9;
	}
	if (seq->detect < seq->threshold)
		seq->threshold = seq->detect;
	return 0;
}

/* a --rep or --warmup value: 0, or BENCH_E_USAGE with the message set */
static int check_duration(const char *name, const char *value)
{
	uint64_t ns = 0;
	char why[128];

	if (!value || (units_parse_duration(&ns, value, why, sizeof(why)) == 0 && ns > 0))
		return 0;
	return bench_error_set(BENCH_E_USAGE, "%s takes a duration above 0 such as 50ms, got '%s'", name, value);
}

int runset_check_opts(const struct run_opts *ro)
{
	int err;

	if ((err = check_duration("--rep", ro->rep)) < 0 || (err = check_duration("--warmup", ro->warmup)) < 0)
		return err;
	for (size_t i = 0; i < ro->nonly; i++)
		if (!suite_find(ro->only[i]))
			return bench_error_set(BENCH_E_USAGE, "unknown suite '%s' in --suite (see 'bench suites')", ro->only[i]);
	return 0;
}
