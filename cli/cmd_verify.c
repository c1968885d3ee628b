/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_verify.c — bench verify BUNDLE: signature, archive digest, every member, nothing extra or missing. */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "bundle/bundle.h"
#include "core/escape.h"
#include "bundle/sign.h"

static const struct opt_cmd cmd = { "verify", "[--key PUB.pem]... [--envelope FILE] [--json] BUNDLE.bench.tar.gz",
				    "Check the DSSE envelope's Ed25519 signature against --key (or the keys in "
				    "$BENCH_HOME/trusted/ and your own), the archive's sha256, every member's sha256, and "
				    "that the archive holds exactly the signed members. Hostile archives (absolute paths, "
				    "'..', links, devices, duplicates, huge or truncated input) are refused; nothing is "
				    "written to disk. Exit 8 with the reason on any failure." };

int cmd_verify(int argc, char **argv)
{
	struct opt_strlist keys = OPT_STRLIST_INIT;
	struct bundle_verify_result res = BUNDLE_VERIFY_RESULT_INIT;
	struct bundle_limits lim;
	const char *envelope = NULL;
	int json = 0, n, err, status = 0;
	const struct opt opts[] = {
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify with this public key (repeatable); default: trusted keys"),
		OPT_STRING(0, "envelope", &envelope, "FILE", "the envelope (default: BUNDLE.intoto.jsonl)"),
		OPT_BOOL(0, "json", &json, "print the result as JSON"),
		OPT_END(),
	};

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		status = n < 0 ? 2 : 0;
		goto cleanup;
	}
	if (n != 1) {
		status = cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one bundle" : "no bundle given");
		goto cleanup;
	}
	bundle_limits_default(&lim);
	err = bundle_verify(&res, argv[1], envelope, keys.v, sign_home(), &lim);
	if (err < 0) {
		if (json)
			cli_print_json(json_pack("{s:o, s:b, s:o}", "bundle", esc_json_string(argv[1]), "verified", 0, "reason",
					  esc_json_string(bench_error_last())));
		char *why = esc_text(bench_error_last());

		fprintf(stderr, "bench: error: verification failed: %s\n", why);
		free(why);
		status = bench_exit_code(err) == 1 ? 8 : bench_exit_code(err);
		goto cleanup;
	}
	if (json) {
		status = cli_print_json(json_pack("{s:o, s:b, s:s, s:s, s:s, s:I, s:I}", "bundle", esc_json_string(argv[1]), "verified", 1,
						  "run", res.run, "keyid", res.keyid, "key", res.key_origin, "members",
						  (json_int_t)res.members, "bytes", (json_int_t)res.bytes));
	} else {
		char *run = esc_text(res.run), *path = esc_text(argv[1]), *origin = esc_text(res.key_origin);

		printf("%s: verified\n  run      %s\n  signed   key id %s (%s)\n  checked  Ed25519 signature over the "
		       "DSSE envelope, the archive's sha256, %zu members (%llu bytes) against the statement; nothing "
		       "missing, extra or duplicated\n",
		       path, run, res.keyid, origin, res.members, (unsigned long long)res.bytes);
		free(origin);
		free(run);
		free(path);
	}
cleanup:
	bundle_verify_result_release(&res);
	opt_strlist_release(&keys);
	return status;
}
