/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_run.c — bench run MANIFEST... | --resume DIR: run manifests' suites into run directories (several: interleaved). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "core/units.h"
#include "core/escape.h"
#include "exec/run.h"
#include "manifest/manifest.h"
#include "manifest/suite.h"
#include "bundle/bundle.h"
#include "stats/compare.h"
#include "stats/sequential.h"

static const struct opt_cmd cmd = { "run", "[options] MANIFEST... | --resume DIR",
				    "Validate the manifest, plan its cases, run every suite's runner (engine host: the "
				    "runners built by 'make runners') and collect records, logs, the environment and a "
				    "summary into runs/<name>-<UTC>-<random>/. With several manifests (or --rounds), the "
				    "stacks are measured alternately on this machine, suite by suite, in ABBA order, one run "
				    "per stack per round: how stacks are compared on one machine. Exit 6 when a case failed "
				    "or was interrupted, 7 when a result was wrong, 10 when nothing was measured (every case skipped: no "
				    "bundle unless --pack-empty)." };

/* Prints the run directory and packs it when its suites started and measured something (or --pack-empty); returns
 * the exit status of packing. */
static int finish_run(const char *dir, int started, int empty, int no_pack, int pack_empty, int quiet)
{
	char *tar = NULL, *env = NULL;
	int perr, status = 0;

	printf("%s\n", dir);
	if (!started) {
		fprintf(stderr, "bench: no bundle: nothing was measured (see %s/status.json)\n", dir);
		return 0;
	}
	if (empty && !no_pack && !pack_empty) {
		fprintf(stderr, "bench: no bundle: nothing was measured (--pack-empty writes one)\n");
		return 0;
	}
	/* every run ends signed: what was measured is packed whatever the outcome */
	if (!no_pack && (perr = pack_with_own_key(&tar, &env, dir, quiet, BUNDLE_LEVEL_DEFAULT)) < 0) {
		char *why = esc_text(bench_error_last());

		fprintf(stderr, "bench: error: packing '%s' failed: %s\n", dir, why);
		free(why);
		status = bench_exit_code(perr);
	} else if (!no_pack) {
		printf("%s\n%s\n", tar, env);
	}
	free(tar);
	free(env);
	return status;
}

/* The worse of two exit statuses: a wrong result (7) before a failed case (6) before anything else; nothing measured
 * (10) only before success. */
static int worse(int a, int b)
{
	/* by exit code 0..10: 7, then 6, then the highest, and 10 just above 0 */
	static const int rank[] = { 0, 2, 3, 4, 5, 6, 9, 10, 7, 8, 1 };

	if (a < 0 || a > 10 || b < 0 || b > 10)
		return a ? a : b;
	return rank[b] > rank[a] ? b : a;
}

/* Each manifest once, or once per variant (its stacks <name>+<variant>): paths and variants ("" for none) in
 * step. A manifest that does not parse is passed on as it is, for the run to report. */
static void expand_variants(struct strvec *paths, struct strvec *variants, char **manifests, size_t n)
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

static void print_stacks_summary(const struct run_outcome *out, size_t n)
{
	char **dirs = xcalloc(n + 1, sizeof(*dirs));
	size_t nd = 0, i;
	json_t *lines = NULL, *l;

	for (i = 0; i < n; i++)
		if (out[i].dir && out[i].started)
			dirs[nd++] = out[i].dir;
	if (compare_interleave_summary(&lines, dirs, nd) < 0) {
		char *why = esc_text(bench_error_last());

		fprintf(stderr, "bench: no comparison of the stacks: %s\n", why);
		free(why);
	} else if (json_array_size(lines)) {
		fprintf(stderr, "\nstacks against the first (bench compare RUN... for every case):\n");
		json_array_foreach(lines, i, l)
			fprintf(stderr, "  %s\n", json_string_value(l));
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

static int run_many(char **manifests, char **variants, size_t n, long rounds, const struct run_opts *base, int locked,
		    int no_pack, int pack_empty, struct sequential *seq)
{
	struct run_opts *opts = xcalloc(n, sizeof(*opts));
	struct run_outcome *out = xcalloc(n * (size_t)rounds, sizeof(*out));
	char **locks = xcalloc(n, sizeof(*locks));
	struct run_rounds_hook hook = { auto_after_round, seq, seq ? sequential_design(seq) : NULL };
	int err, werr = 0, status = 0;

	for (size_t k = 0; k < n; k++) {
		opts[k] = *base;
		opts[k].manifest = manifests[k];
		opts[k].variant = *variants[k] ? variants[k] : NULL;
		opts[k].image_lock = locks[k] = cli_lock_path(manifests[k]);
		opts[k].lock = locked ? locks[k] : NULL;
	}
	if (seq) {
		sequential_start(seq);
		err = run_interleave_until(out, opts, n, rounds, &hook);
		werr = auto_finish(seq, out, n * (size_t)rounds, err);
	} else {
		err = run_interleave(out, opts, n, rounds);
	}
	if (n > 1 && !base->quiet && !seq) /* the stacks against the first, once: a line each, as hyperfine ends */
		print_stacks_summary(out, n * (size_t)rounds);
	for (size_t i = 0; i < n * (size_t)rounds; i++) {
		if (out[i].err) {
			if (out[i].err != BENCH_E_MANIFEST || out[i].dir || base->lock || locked) {
				char *why = esc_text(out[i].error ? out[i].error : "failed");

				fprintf(stderr, "bench: error: %s%s%s%s: %s\n", manifests[i % n], *variants[i % n] ? " (variant " : "",
					variants[i % n], *variants[i % n] ? ")" : "", why);
				free(why);
			}
			status = worse(status, bench_exit_code(out[i].err));
		}
		if (out[i].dir)
			status = worse(status, finish_run(out[i].dir, out[i].started, out[i].err == BENCH_E_EMPTY, no_pack,
							  pack_empty, base->quiet));
		run_outcome_release(&out[i]);
	}
	if (err < 0)
		status = worse(status, cli_fail(err));
	if (werr < 0)
		status = worse(status, cli_fail(werr));
	json_decref(hook.design);
	for (size_t k = 0; k < n; k++)
		free(locks[k]);
	free(locks);
	free(opts);
	free(out);
	return status;
}

/* --rep, --warmup: 0, or the usage error's exit status */
static int check_duration(const char *name, const char *value)
{
	uint64_t ns = 0;
	char why[128], *msg;
	int status;

	if (!value || (units_parse_duration(&ns, value, why, sizeof(why)) == 0 && ns > 0))
		return 0;
	msg = xstrfmt("%s takes a duration above 0 such as 50ms, got '%s'", name, value);
	status = cli_usage_error(cmd.name, cmd.synopsis, msg);
	free(msg);
	return status;
}

/* --rounds auto's options into seq: 0, or the usage error's exit status */
static int parse_auto(struct sequential *seq, const char *detect, const char *max_rounds, const char *max_time)
{
	char *end, *msg = NULL;
	int status;

	if (detect) {
		seq->detect = strtod(detect, &end);
		if (end != detect && !strcmp(end, "%"))
			seq->detect /= 100;
		else if (end == detect || *end)
			seq->detect = NAN;
		if (!(seq->detect > 0 && seq->detect < 1))
			msg = xstrfmt("--detect takes a change above 0 and below 100%% such as 3%% or 0.03, got '%s'", detect);
	}
	if (!msg && max_rounds) {
		seq->max_rounds = strtol(max_rounds, &end, 10);
		if (*end || end == max_rounds || seq->max_rounds < SEQUENTIAL_MIN_ROUNDS ||
		    seq->max_rounds > SEQUENTIAL_MAX_ROUNDS)
			msg = xstrfmt("--max-rounds takes a whole number from %d to %d (the first look is after round %d), "
				      "got '%s'", SEQUENTIAL_MIN_ROUNDS, SEQUENTIAL_MAX_ROUNDS, SEQUENTIAL_MIN_ROUNDS, max_rounds);
	}
	if (!msg && max_time) {
		uint64_t ns = 0;
		char why[128];

		if (units_parse_duration(&ns, max_time, why, sizeof(why)) < 0 || ns == 0)
			msg = xstrfmt("--max-time takes a duration above 0 such as 30m, got '%s'", max_time);
		seq->max_time_s = (double)ns / 1e9;
	}
	if (!msg) {
		if (seq->detect < seq->threshold)
			seq->threshold = seq->detect;
		return 0;
	}
	status = cli_usage_error(cmd.name, cmd.synopsis, msg);
	free(msg);
	return status;
}

int cmd_run(int argc, char **argv)
{
	struct opt_strlist only = OPT_STRLIST_INIT, sel = OPT_STRLIST_INIT;
	struct run_opts ro;
	const char *out = NULL, *resume = NULL, *rounds_s = NULL, *rep = NULL, *warmup = NULL;
	const char *detect_s = NULL, *max_rounds_s = NULL, *max_time_s = NULL;
	struct sequential seq = SEQUENTIAL_INIT;
	int autorounds = 0;
	struct strvec paths = STRVEC_INIT, variants = STRVEC_INIT;
	int dry = 0, quiet = 0, verbose = 0, no_pack = 0, pack_empty = 0, locked = 0, started = 0, n, err, status = 0;
	long rounds = 1;
	char *lockpath = NULL;
	char *dir = NULL;
	const struct opt opts[] = {
		OPT_LIST('s', "suite", &only, "NAME", "run only these suites (comma-separated, repeatable)"),
		OPT_LIST('k', "select", &sel, "PATTERN", "run only the cases whose SUITE/CASE key matches PATTERN, a glob "
			 "matched anywhere (a word: a substring; comma-separated, repeatable); recorded in the run"),
		OPT_STRING(0, "rep", &rep, "DURATION", "the timed budget of every case (each suite's rep, e.g. 50ms), at least "
			   "10 timed calls; recorded in the run, and compare shows it as a method difference"),
		OPT_STRING(0, "warmup", &warmup, "DURATION", "the warm-up budget of every case (each suite's warmup); recorded "
			   "likewise"),
		OPT_STRING('o', "out", &out, "DIR", "where run directories are created (default: runs)"),
		OPT_STRING(0, "resume", &resume, "DIR",
			   "complete an interrupted run: run only its cases not ok (a complete run: nothing)"),
		OPT_STRING(0, "rounds", &rounds_s, "N", "measure the manifests alternately N times (ABBA order), one run each per "
			   "round; auto: until every case would show a change of --detect with 97.5% power, or a cap"),
		OPT_STRING(0, "detect", &detect_s, "X", "--rounds auto: the change to resolve, 3% or 0.03 (default 3%)"),
		OPT_STRING(0, "max-rounds", &max_rounds_s, "N", "--rounds auto: at most N rounds (4 to 1000, default 10); its "
			   "looks, every even round from 4 and the last, share alpha 0.01"),
		OPT_STRING(0, "max-time", &max_time_s, "DURATION", "--rounds auto: start no more rounds whose next look would "
			   "end past DURATION (e.g. 30m), at the rounds' pace so far"),
		OPT_BOOL('n', "dry-run", &dry, "print the plan and the exact commands, run nothing"),
		OPT_BOOL('q', "quiet", &quiet, "no progress or summary table; errors only"),
		OPT_COUNT('v', "verbose", &verbose, "also print each runner's command line; with several stacks or --rounds, each run's table"),
		OPT_BOOL(0, "no-pack", &no_pack, "do not write the signed bundle at the end"),
		OPT_BOOL(0, "pack-empty", &pack_empty, "write the bundle even when nothing was measured (every case skipped)"),
		OPT_BOOL(0, "locked", &locked, "refuse unless MANIFEST's .lock.json is of this exact manifest; record it"),
		OPT_END(),
	};

	/* a reader that went away (bench run ... | head -1) ends the run as interrupted (run.c), and after it the bundle is
	 * still packed and the exit status still says how the run ended: the writes to the closed pipe merely fail */
	signal(SIGPIPE, SIG_IGN);
	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		status = n < 0 ? 2 : 0;
		goto cleanup;
	}
	if ((resume && n != 0) || (!resume && n < 1)) {
		status = cli_usage_error(cmd.name, cmd.synopsis,
					 resume ? "--resume takes the run directory instead of a manifest" : "no manifest given");
		goto cleanup;
	}
	if (rounds_s && !strcmp(rounds_s, "auto")) {
		autorounds = 1;
		if ((status = parse_auto(&seq, detect_s, max_rounds_s, max_time_s)))
			goto cleanup;
		rounds = seq.max_rounds;
		if (resume || dry) {
			status = cli_usage_error(cmd.name, cmd.synopsis, resume ? "--rounds cannot resume a run (resume each run alone)"
									       : "--rounds auto runs the stacks; --dry-run shows one's plan");
			goto cleanup;
		}
	} else if (detect_s || max_rounds_s || max_time_s) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--detect, --max-rounds and --max-time go with --rounds auto");
		goto cleanup;
	}
	if (rounds_s && !autorounds) {
		char *end;

		rounds = strtol(rounds_s, &end, 10);
		if (*end || end == rounds_s || rounds < 1 || rounds > 1000) {
			char *msg = xstrfmt("--rounds takes a whole number from 1 to 1000, got '%s' (or auto)", rounds_s);

			status = cli_usage_error(cmd.name, cmd.synopsis, msg);
			free(msg);
			goto cleanup;
		}
		if (resume) {
			status = cli_usage_error(cmd.name, cmd.synopsis, "--rounds cannot resume a run (resume each run alone)");
			goto cleanup;
		}
	}
	if (n > 1 && dry) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--dry-run takes one manifest");
		goto cleanup;
	}
	if (resume && (sel.n || rep || warmup)) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--resume keeps the run's own -k, --rep and --warmup");
		goto cleanup;
	}
	if ((status = check_duration("--rep", rep)) || (status = check_duration("--warmup", warmup)))
		goto cleanup;
	for (size_t i = 0; i < only.n; i++) {
		if (!suite_find(only.v[i])) {
			char *msg = xstrfmt("unknown suite '%s' in --suite (see 'bench suites')", only.v[i]);

			status = cli_usage_error(cmd.name, cmd.synopsis, msg);
			free(msg);
			goto cleanup;
		}
	}
	memset(&ro, 0, sizeof(ro));
	ro.resume = resume;
	ro.out_parent = out;
	ro.only = only.v;
	ro.nonly = only.n;
	ro.select = sel.v;
	ro.nselect = sel.n;
	ro.rep = rep;
	ro.warmup = warmup;
	ro.dry_run = dry;
	ro.quiet = quiet;
	ro.verbose = verbose;
	if (!resume)
		expand_variants(&paths, &variants, argv + 1, (size_t)n);
	if (dry && paths.n > 1) { /* one manifest's variants: each one's plan and commands */
		for (size_t k = 0; k < paths.n && !status; k++) {
			ro.manifest = paths.v[k];
			ro.variant = variants.v[k];
			if ((err = run_execute(&dir, &started, &ro)) < 0)
				status = err == BENCH_E_MANIFEST ? 3 : cli_fail(err);
			free(dir);
			dir = NULL;
		}
		goto cleanup;
	}
	if (autorounds && paths.n < 2) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--rounds auto compares stacks: give two manifests or more "
				       "(the same one twice for an A/A), or one with variants");
		goto cleanup;
	}
	seq.quiet = quiet;
	if (paths.n > 1 || rounds > 1) {
		status = run_many(paths.v, variants.v, paths.n, rounds, &ro, locked, no_pack, pack_empty,
				  autorounds ? &seq : NULL);
		goto cleanup;
	}
	ro.manifest = resume ? NULL : argv[1];
	ro.variant = !resume && *variants.v[0] ? variants.v[0] : NULL;
	if (!resume) { /* the lock --locked checks, and the one a container engine builds from */
		ro.image_lock = lockpath = cli_lock_path(argv[1]);
		if (locked)
			ro.lock = lockpath;
	}
	err = run_execute(&dir, &started, &ro);
	if (err == BENCH_E_MANIFEST && !dir && ro.lock)
		status = cli_fail(err);
	else if (err == BENCH_E_MANIFEST && !dir)
		status = 3; /* the diagnostics are printed already */
	else if (err < 0)
		status = cli_fail(err);
	if (dir && !dry)
		status = worse(status, finish_run(dir, started, err == BENCH_E_EMPTY, no_pack, pack_empty, quiet));
cleanup:
	sequential_release(&seq);
	free(lockpath);
	free(dir);
	strvec_release(&paths);
	strvec_release(&variants);
	opt_strlist_release(&only);
	opt_strlist_release(&sel);
	return status;
}
