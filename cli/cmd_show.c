/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_show.c — bench show BUNDLE: what ran, on what, and the headline results, straight from the archive. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/escape.h"
#include "core/opt.h"
#include "core/strvec.h"
#include "bundle/bundle.h"
#include "bundle/sign.h"
#include "stats/cost.h"
#include "render/show.h"

static const struct opt_cmd cmd = { "show", "[--json] [--key PUB.pem]... [--no-verify] BUNDLE.bench.tar.gz | RUN_DIR",
				    "Print a bundle's (or a run directory's) manifest name and channel, its stack (lock summary), the "
				    "environment and every case's headline (scaled to a readable unit, with the record's sample count n "
				    "and coefficient of variation), the collectives as nccl-tests tables, then every case that failed, was skipped, interrupted or "
				    "not run with its reason, then the run's price (its manifest's pricing, with its source) and each case's "
				    "energy and cost (" COST_DEFINITION "; the cases without one: one line per reason), read "
				    "from the archive without unpacking it. "
				    "The bundle is verified first, in the same reading (exit 8 when it does not verify); "
				    "--no-verify shows it anyway, marked UNVERIFIED. A run directory is shown as it is, "
				    "marked as an unsigned run directory (nothing to verify). Control characters from the bundle are "
				    "shown as \\xNN." };

/* Reads the members named of path: a run directory as it is, a bundle with --no-verify as it is, else what
 * verified (one reading of one open file: what is shown is what verified, vr says with which key). Returns 0 or
 * a negative code with the error set. */
static int show_read(json_t **m, char **run, struct bundle_verify_result *vr, const char *path, const char *const *names,
		     char *const *keys, int is_dir, int no_verify)
{
	struct bundle_members bm;
	struct bundle_sink sink;
	struct bundle_limits lim;
	int err;

	if (is_dir)
		return bundle_read_dir_members(m, run, path, names, 64u << 20);
	if (no_verify)
		return bundle_read_members(m, run, path, names, 64u << 20);
	bundle_limits_default(&lim);
	bundle_members_init(&bm, &sink, names, 64u << 20);
	if ((err = bundle_verify_read(vr, path, NULL, keys, sign_home(), &lim, &sink)) == 0) {
		*m = json_incref(bm.out);
		*run = xstrdup(vr->run);
	} else {
		char *why = esc_text(bench_error_last());

		bench_error_set(err, "verification failed: %s (pass --no-verify to show it anyway, marked UNVERIFIED)", why);
		free(why);
	}
	bundle_members_release(&bm);
	return err;
}

int cmd_show(int argc, char **argv)
{
	struct strvec names = STRVEC_INIT;
	struct show_doc doc = SHOW_DOC_INIT;
	json_t *m = NULL;
	int json = 0, no_verify = 0, is_dir, n, err, rc = 0;
	struct opt_strlist keys = OPT_STRLIST_INIT;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "print JSON"),
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify with this public key (repeatable); default: trusted keys"),
		OPT_BOOL(0, "no-verify", &no_verify, "show a bundle that is not verified, marked UNVERIFIED"),
		OPT_END(),
	};
	struct bundle_verify_result vr = BUNDLE_VERIFY_RESULT_INIT;
	struct stat st;
	char *run = NULL;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		rc = n < 0 ? 2 : 0;
		goto cleanup;
	}
	if (n != 1) {
		rc = cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one bundle" : "no bundle given");
		goto cleanup;
	}
	/* the documents, and the results files: the energy and cost of each case come from its record */
	show_member_names(&names);
	is_dir = stat(argv[1], &st) == 0 && S_ISDIR(st.st_mode);
	err = show_read(&m, &run, &vr, argv[1], (const char *const *)strvec_argv(&names), keys.v, is_dir, no_verify);
	if (err < 0) {
		rc = cli_fail(err) == 1 && !is_dir ? 8 : bench_exit_code(err);
		goto cleanup;
	}
	show_doc_load(&doc, m, run);
	doc.origin = is_dir ? SHOW_RUN_DIR : no_verify ? SHOW_UNVERIFIED : SHOW_VERIFIED;
	doc.keyid = vr.keyid;
	doc.key_origin = vr.key_origin;
	if (json)
		rc = cli_print_json(show_json(&doc));
	else
		show_print_text(stdout, &doc);
cleanup:
	show_doc_release(&doc);
	json_decref(m);
	strvec_release(&names);
	free(run);
	bundle_verify_result_release(&vr);
	opt_strlist_release(&keys);
	return rc;
}
