/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_run.c — bench run MANIFEST... | --resume DIR: run manifests' suites into run directories (several: interleaved;
 * the stage: exec/runset.c). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/strvec.h"
#include "exec/runset.h"
#include "stats/sequential.h"

static const struct opt_cmd cmd = { "run", "[options] MANIFEST... | --resume DIR",
				    "Validate the manifest, plan its cases, run every suite's runner (engine host: the "
				    "runners built by 'make runners') and collect records, logs, the environment and a "
				    "summary into runs/<name>-<UTC>-<random>/. With several manifests (or --rounds), the "
				    "stacks are measured alternately on this machine, suite by suite, in ABBA order, one run "
				    "per stack per round: how stacks are compared on one machine. Exit 6 when a case failed "
				    "or was interrupted, 7 when a result was wrong, 10 when nothing was measured (every case skipped: no "
				    "bundle unless --pack-empty)." };

int cmd_run(int argc, char **argv)
{
	struct opt_strlist only = OPT_STRLIST_INIT, sel = OPT_STRLIST_INIT;
	struct runset_opts so = { .rounds = 1, .out = stdout, .msg = stderr, .fail = cli_fail,
				  .pack = pack_with_own_key };
	struct run_opts *ro = &so.run;
	struct runset_rounds ra = { NULL, NULL, NULL, NULL };
	struct sequential seq = SEQUENTIAL_INIT;
	struct strvec paths = STRVEC_INIT, variants = STRVEC_INIT, locks = STRVEC_INIT;
	int n, status = 0;
	const struct opt opts[] = {
		OPT_LIST('s', "suite", &only, "NAME", "run only these suites (comma-separated, repeatable)"),
		OPT_LIST('k', "select", &sel, "PATTERN", "run only the cases whose SUITE/CASE key matches PATTERN, a glob "
			 "matched anywhere (a word: a substring; comma-separated, repeatable); recorded in the run"),
		OPT_STRING(0, "rep", &ro->rep, "DURATION", "the timed budget of every case (each suite's rep, e.g. 50ms), at "
			   "least 10 timed calls; recorded in the run, and compare shows it as a method difference"),
		OPT_STRING(0, "warmup", &ro->warmup, "DURATION", "the warm-up budget of every case (each suite's warmup); "
			   "recorded likewise"),
		OPT_STRING('o', "out", &ro->out_parent, "DIR", "where run directories are created (default: runs)"),
		OPT_STRING(0, "resume", &ro->resume, "DIR",
			   "complete an interrupted run: run only its cases not ok (a complete run: nothing)"),
		OPT_STRING(0, "rounds", &ra.rounds, "N", "measure the manifests alternately N times (ABBA order), one run each per "
			   "round; auto: until every case would show a change of --detect with 97.5% power, or a cap"),
		OPT_STRING(0, "detect", &ra.detect, "X", "--rounds auto: the change to resolve, 3% or 0.03 (default 3%)"),
		OPT_STRING(0, "max-rounds", &ra.max_rounds, "N", "--rounds auto: at most N rounds (4 to 1000, default 10); its "
			   "looks, every even round from 4 and the last, share alpha 0.01"),
		OPT_STRING(0, "max-time", &ra.max_time, "DURATION", "--rounds auto: start no more rounds whose next look would "
			   "end past DURATION (e.g. 30m), at the rounds' pace so far"),
		OPT_BOOL('n', "dry-run", &ro->dry_run, "print the plan and the exact commands, run nothing"),
		OPT_BOOL('q', "quiet", &ro->quiet, "no progress or summary table; errors only"),
		OPT_COUNT('v', "verbose", &ro->verbose, "also print each runner's command line; with several stacks or --rounds, each run's table"),
		OPT_BOOL(0, "no-pack", &so.no_pack, "do not write the signed bundle at the end"),
		OPT_BOOL(0, "pack-empty", &so.pack_empty, "write the bundle even when nothing was measured (every case skipped)"),
		OPT_BOOL(0, "locked", &so.locked, "refuse unless MANIFEST's .lock.json is of this exact manifest; record it"),
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
	if ((ro->resume && n != 0) || (!ro->resume && n < 1)) {
		status = cli_usage_error(cmd.name, cmd.synopsis,
					 ro->resume ? "--resume takes the run directory instead of a manifest" : "no manifest given");
		goto cleanup;
	}
	ro->only = only.v;
	ro->nonly = only.n;
	ro->select = sel.v;
	ro->nselect = sel.n;
	if (runset_parse_rounds(&so, &seq, &ra, n) < 0 || runset_check_opts(ro) < 0) {
		status = cli_usage_error(cmd.name, cmd.synopsis, bench_error_last());
		goto cleanup;
	}
	if (!ro->resume)
		runset_expand(&paths, &variants, argv + 1, (size_t)n);
	if (so.seq && paths.n < 2) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--rounds auto compares stacks: give two manifests or more "
				       "(the same one twice for an A/A), or one with variants");
		goto cleanup;
	}
	for (size_t k = 0; k < paths.n; k++) {
		char *lp = cli_lock_path(paths.v[k]);

		strvec_push(&locks, lp);
		free(lp);
	}
	seq.quiet = ro->quiet;
	so.manifests = paths.v;
	so.variants = variants.v;
	so.locks = locks.v;
	so.n = paths.n;
	status = bench_exit_code(runset_run(&so));
cleanup:
	sequential_release(&seq);
	strvec_release(&paths);
	strvec_release(&variants);
	strvec_release(&locks);
	opt_strlist_release(&only);
	opt_strlist_release(&sel);
	return status;
}
