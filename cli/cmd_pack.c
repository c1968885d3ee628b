/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_pack.c — bench pack RUN_DIR: the deterministic bundle and its signed envelope. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

#include "cmd.h"
#include "core/opt.h"
#include "core/strvec.h"
#include "core/scrub.h"
#include "bundle/bundle.h"
#include "bundle/sign.h"

static const struct opt_cmd cmd = { "pack", "[--level N] RUN_DIR",
				    "Write RUN.bench.tar.gz (deterministic: sorted entries, fixed owner, modes and mtime, "
				    "gzip without timestamp) beside RUN_DIR, and RUN.bench.tar.gz.intoto.jsonl, a DSSE "
				    "envelope over an in-toto Statement v1 naming every member's sha256, signed with the "
				    "Ed25519 key of $BENCH_HOME (created on first use). --level: gzip's level, 1 by default; 0 "
				    "stores (still a valid .tar.gz, at copy speed: for results too large to compress on the "
				    "machine's cores)." };

int cmd_pack(int argc, char **argv)
{
	const char *lv = NULL;
	int level = BUNDLE_LEVEL_DEFAULT;
	const struct opt opts[] = { OPT_STRING('l', "level", &lv, "N", "gzip compression level, 0 (stored) to 9; default 1"),
				    OPT_END() };
	char *tar = NULL, *env = NULL;
	int n, err;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	if (n != 1)
		return cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one run directory" : "no run directory given");
	if (lv) {
		if (strlen(lv) != 1 || lv[0] < '0' || lv[0] > '9')
			return cli_usage_error(cmd.name, cmd.synopsis, "--level is a digit, 0 (stored) to 9");
		level = lv[0] - '0';
	}
	/* A run directory packed by hand (left by a bench run that was killed, or with files added since) is
	 * scrubbed as bench run scrubs it before packing: the rules (URL userinfo, token shapes, NAME=VALUE of a
	 * secret NAME) and the values of the secret variables of this environment; the run's own secret values
	 * (its environment, the manifest's stack.env) are not known here. */
	if (access(argv[1], F_OK) == 0) {
		struct strvec secrets = STRVEC_INIT;

		scrub_secret_values(&secrets, environ);
		err = scrub_dir(argv[1], &secrets, bundle_pack_member_limit);
		strvec_release(&secrets);
		if (err < 0)
			return cli_fail(err);
	}
	if ((err = pack_with_own_key(&tar, &env, argv[1], 0, level)) < 0)
		return cli_fail(err);
	printf("%s\n%s\n", tar, env);
	free(tar);
	free(env);
	return 0;
}
