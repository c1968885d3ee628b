/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_recipe.c — bench recipe MANIFEST: the container recipe, a pure function of manifest + lock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "image/recipe.h"
#include "manifest/lock.h"

static const struct opt_cmd cmd = { "recipe", "[--format containerfile|apptainer] [--lock FILE] [-o FILE] MANIFEST",
				    "Write the stack's container recipe: base pinned by digest, the locked wheels by URL and "
				    "sha256 (--require-hashes), apt versions pinned, git sources built in their own stage from "
				    "the locked commit's snapshot, env baked (the vendor's defaults from images/bases/, then "
				    "the manifest's), the runners built inside the image, LABELs with the manifest and lock "
				    "digests. The same manifest and lock give the same bytes." };

int cmd_recipe(int argc, char **argv)
{
	struct manifest m = MANIFEST_INIT;
	struct recipe r = RECIPE_INIT;
	struct strbuf sb = STRBUF_INIT;
	const char *fmt = "containerfile", *lockp = NULL, *out = NULL;
	char *mbuf = NULL, *lbuf = NULL, *lockpath = NULL, msha[65], lsha[65];
	size_t mlen, llen;
	json_t *lock = NULL;
	int n, err, status = 0;
	const struct opt opts[] = {
		OPT_STRING('f', "format", &fmt, "FMT", "containerfile (podman, docker) or apptainer"),
		OPT_STRING('l', "lock", &lockp, "FILE", "the lock (default: MANIFEST with .lock.json)"),
		OPT_STRING('o', "output", &out, "FILE", "write here instead of stdout"),
		OPT_END(),
	};

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	if (n != 1)
		return cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one manifest" : "no manifest given");
	if (strcmp(fmt, "containerfile") && strcmp(fmt, "apptainer"))
		return cli_usage_error(cmd.name, cmd.synopsis, "--format is containerfile or apptainer");
	if ((status = cli_load_manifest(&m, argv[1])) != 0)
		goto cleanup;
	if ((status = cli_read_manifest_lock(&mbuf, &mlen, &lbuf, &llen, argv[1], lockp, "a recipe needs one")) != 0)
		goto cleanup;
	if (!(lock = json_loadb(lbuf, llen, 0, NULL))) {
		lockpath = lockp ? xstrdup(lockp) : cli_lock_path(argv[1]);
		fprintf(stderr, "bench: error: the lock '%s' is not valid JSON (run 'bench lock %s')\n", lockpath, argv[1]);
		status = 3;
		goto cleanup;
	}
	lock_sha256_hex(msha, mbuf, mlen);
	lock_sha256_hex(lsha, lbuf, llen);
	if ((err = recipe_build(&r, &m, lock, msha, lsha)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	if ((err = !strcmp(fmt, "apptainer") ? recipe_emit_apptainer(&sb, &r) : recipe_emit_containerfile(&sb, &r)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	if (out) {
		FILE *f = fopen(out, "w");

		if (!f || fwrite(sb.buf, 1, sb.len, f) != sb.len || fclose(f) != 0) {
			fprintf(stderr, "bench: error: cannot write '%s'\n", out);
			status = 1;
		}
	} else {
		fwrite(sb.buf, 1, sb.len, stdout);
	}
cleanup:
	recipe_release(&r);
	strbuf_release(&sb);
	json_decref(lock);
	free(mbuf);
	free(lbuf);
	free(lockpath);
	manifest_release(&m);
	return status;
}
