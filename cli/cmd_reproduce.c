/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_reproduce.c — bench reproduce BUNDLE: verify a bundle, run its cases again here, judge each against the original
 * (the stage: exec/reproduce.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "exec/reproduce.h"

static const struct opt_cmd cmd = {
	"reproduce", "[--key PUB.pem]... [-o DIR] [-t X] [--max-band Y] [--rounds N] [--yes | --dry-run] [--json] [-q] BUNDLE.bench.tar.gz",
	"Verify the bundle (exit 8 when it does not verify: nothing is run or written), take its manifest and lock, "
	"print who signed it (key id, the trusted-key file it matched) and everything its manifest executes here "
	"(engine, launcher and sbatch arguments, base image, components and build commands, stack.env with the "
	"variables that load code named), and run only once confirmed: --yes, or 'y' at the prompt on a terminal "
	"(otherwise exit 3, nothing run); --dry-run prints that and the exact commands and runs nothing. Then "
	"check that this machine has the original's GPU model, GPU count and driver (a GPU target; otherwise every "
	"case is 'not reproducible here', named, nothing is run, exit 6), run the same suites N times (--rounds, "
	"default 3) into new run directories under DIR (with the bundle's lock when it has one), and judge every case "
	"against the original within this machine's run-to-run spread: 'reproduced' when the original lies inside "
	"the 99% prediction interval of the runs here (never narrower than 1 +/- X) and that band is no wider than "
	"1 +/- Y (default 0.10), 'inconclusive' when it lies inside a wider band (nothing can be told), 'slower' when "
	"the runs here lie below it, 'faster' above, 'not comparable' when a side did not measure (one round: "
	"compare's 95% CI of the ratio against 1 +/- X, and Y). Writes reproduce.json into the last run; every run is packed and signed with your key, "
	"the last one's statement names the original bundle and the other rounds' bundles as materials. Exit 9 when "
	"a case is slower; else 10 when a case is inconclusive (docs/exit-codes.md)."
};

/* The exit status of a reproduction judged: 7 when a run was wrong, 9 when a case is slower, a run's failure, 10 when
 * a case is inconclusive; 6 when this machine cannot reproduce it (docs/exit-codes.md) */
static int judged_status(const struct reproduce_result *res)
{
	int run = bench_exit_code(res->run_err);

	if (!res->reproducible)
		return 6;
	return run == 7 ? 7 : res->counts[REPRODUCE_SLOWER] ? 9 : run ? run : res->counts[REPRODUCE_INCONCLUSIVE] ? 10 : 0;
}

int cmd_reproduce(int argc, char **argv)
{
	struct opt_strlist keys = OPT_STRLIST_INIT;
	struct reproduce_result res = REPRODUCE_RESULT_INIT;
	struct reproduce_opts ro = { .out = "runs", .threshold = 0.02, .max_band = 0.10, .rounds = 3, .in = stdin,
				     .msg = stderr, .pack = pack_with_own_key };
	const char *thr = NULL, *rounds_s = NULL, *band_s = NULL;
	int n, err, rc = 0;
	const struct opt opts[] = {
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify with this public key (repeatable); default: trusted keys"),
		OPT_STRING('o', "out", &ro.out, "DIR", "where the new run directory is created (default: runs)"),
		OPT_STRING('t', "threshold", &thr, "X", "relative change that counts (default 0.02)"),
		OPT_STRING(0, "max-band", &band_s, "Y", "reproduced only within a band of 1 +/- Y at most (default 0.10)"),
		OPT_STRING(0, "rounds", &rounds_s, "N", "runs made here, to measure this machine's run-to-run spread (default 3)"),
		OPT_BOOL(0, "json", &ro.json, "print reproduce.json instead of the table"),
		OPT_BOOL('q', "quiet", &ro.quiet, "no progress of the run; the verdicts only"),
		OPT_BOOL('y', "yes", &ro.yes, "run what the signer's manifest executes without asking (it is printed)"),
		OPT_BOOL('n', "dry-run", &ro.dry_run, "print the signer, what the manifest executes and the exact commands; run nothing"),
		OPT_END(),
	};

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		rc = n < 0 ? 2 : 0;
		goto cleanup;
	}
	if (n != 1) {
		rc = cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one bundle" : "no bundle given");
		goto cleanup;
	}
	if (thr) {
		char *end;

		ro.threshold = strtod(thr, &end);
		if (*end || end == thr || ro.threshold <= 0 || ro.threshold >= 1) {
			rc = cli_usage_error(cmd.name, cmd.synopsis, "--threshold takes a number in (0, 1), e.g. 0.02");
			goto cleanup;
		}
	}
	if (band_s) {
		char *end;

		ro.max_band = strtod(band_s, &end);
		if (*end || end == band_s || !(ro.max_band > 0) || ro.max_band > 10) {
			rc = cli_usage_error(cmd.name, cmd.synopsis, "--max-band takes a number in (0, 10], e.g. 0.10");
			goto cleanup;
		}
	}
	if (rounds_s) {
		char *end;

		ro.rounds = strtol(rounds_s, &end, 10);
		if (*end || end == rounds_s || ro.rounds < 1 || ro.rounds > 100) {
			rc = cli_usage_error(cmd.name, cmd.synopsis, "--rounds takes a whole number from 1 to 100");
			goto cleanup;
		}
	}
	ro.bundle = argv[1];
	ro.keys = keys.v;
	if ((err = reproduce_bundle(&res, &ro)) < 0) {
		rc = res.reported ? bench_exit_code(err) : cli_fail(err);
		if (res.manifest_failed)
			fprintf(stderr, "bench: error: the manifest of '%s' does not run with this bench; nothing was measured\n",
				strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1]);
		goto cleanup;
	}
	if (!res.doc) /* a dry run */
		goto cleanup;
	if (ro.json)
		cli_print_json(json_incref(res.doc));
	else
		reproduce_print(stdout, &res);
	rc = judged_status(&res);
cleanup:
	reproduce_result_release(&res);
	opt_strlist_release(&keys);
	return rc;
}
