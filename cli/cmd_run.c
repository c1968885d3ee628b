/* cmd_run.c — bench run MANIFEST | --resume DIR: run a manifest's suites into a run directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "exec/run.h"
#include "manifest/suite.h"
#include "report/bundle.h"

static const struct opt_cmd cmd = { "run", "[options] MANIFEST | --resume DIR",
				    "Validate the manifest, plan its cases, run every suite's runner (engine host: the "
				    "runners built by 'make runners') and collect records, logs, the environment and a "
				    "summary into runs/<name>-<UTC>-<random>/. Exit 6 when a case failed or was interrupted, 7 "
				    "when a result was wrong." };

int cmd_run(int argc, char **argv)
{
	struct opt_strlist only = OPT_STRLIST_INIT;
	struct run_opts ro;
	const char *out = NULL, *resume = NULL;
	int dry = 0, quiet = 0, verbose = 0, no_pack = 0, locked = 0, started = 0, n, err, perr, status = 0;
	char *lockpath = NULL;
	char *tar = NULL, *env = NULL;
	char *dir = NULL;
	const struct opt opts[] = {
		OPT_LIST('s', "suite", &only, "NAME", "run only these suites (comma-separated, repeatable)"),
		OPT_STRING('o', "out", &out, "DIR", "where run directories are created (default: runs)"),
		OPT_STRING(0, "resume", &resume, "DIR", "complete an interrupted run: run only its cases not ok"),
		OPT_BOOL('n', "dry-run", &dry, "print the plan and the exact commands, run nothing"),
		OPT_BOOL('q', "quiet", &quiet, "no progress or summary table; errors only"),
		OPT_COUNT('v', "verbose", &verbose, "also print each runner's command line"),
		OPT_BOOL(0, "no-pack", &no_pack, "do not write the signed bundle at the end"),
		OPT_BOOL(0, "locked", &locked, "refuse unless MANIFEST's .lock.json is of this exact manifest; record it"),
		OPT_END(),
	};

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		status = n < 0 ? 2 : 0;
		goto cleanup;
	}
	if ((resume && n != 0) || (!resume && n != 1)) {
		status = cli_usage_error(cmd.name, cmd.synopsis,
					 resume ? "--resume takes the run directory instead of a manifest"
						: n ? "give exactly one manifest" : "no manifest given");
		goto cleanup;
	}
	for (size_t i = 0; i < only.n; i++) {
		if (!suite_find(only.v[i])) {
			char *msg = xstrfmt("unknown suite '%s' in --suite (see 'bench suites')", only.v[i]);

			status = cli_usage_error(cmd.name, cmd.synopsis, msg);
			free(msg);
			goto cleanup;
		}
	}
	memset(&ro, 0, sizeof(ro));
	ro.manifest = resume ? NULL : argv[1];
	ro.resume = resume;
	if (!resume) { /* the lock --locked checks, and the one a container engine builds from */
		ro.image_lock = lockpath = cli_lock_path(argv[1]);
		if (locked)
			ro.lock = lockpath;
	}
	ro.out_parent = out;
	ro.only = only.v;
	ro.nonly = only.n;
	ro.dry_run = dry;
	ro.quiet = quiet;
	ro.verbose = verbose;
	err = run_execute(&dir, &started, &ro);
	if (err == BENCH_E_MANIFEST && !dir && ro.lock)
		status = cli_fail(err);
	else if (err == BENCH_E_MANIFEST && !dir)
		status = 3; /* the diagnostics are printed already */
	else if (err < 0)
		status = cli_fail(err);
	if (dir && !dry && !started) {
		fprintf(stderr, "bench: no bundle: nothing was measured (see %s/status.json)\n", dir);
		printf("%s\n", dir);
	} else if (dir && !dry) {
		printf("%s\n", dir);
		/* every run ends signed: what was measured is packed whatever the outcome */
		if (!no_pack && (perr = pack_with_own_key(&tar, &env, dir, quiet, BUNDLE_LEVEL_DEFAULT)) < 0) {
			fprintf(stderr, "bench: error: packing '%s' failed: %s\n", dir, bench_error_last());
			if (!status)
				status = bench_exit_code(perr);
		} else if (!no_pack) {
			printf("%s\n%s\n", tar, env);
		}
	}
cleanup:
	free(lockpath);
	free(tar);
	free(env);
	free(dir);
	opt_strlist_release(&only);
	return status;
}
