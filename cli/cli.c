/* SPDX-License-Identifier: Apache-2.0 */
/* cli.c — the helpers every command uses (cli.h); no command table, no main(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "core/escape.h"
#include "core/diag.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "manifest/manifest.h"
#include "bundle/bundle.h"
#include "bundle/sign.h"

int cli_fail(int err)
{
	char *msg = esc_text(bench_error_last()); /* a message may quote a bundle's bytes: no control characters */

	fprintf(stderr, "bench: error: %s\n", msg);
	free(msg);
	return bench_exit_code(err);
}

int cli_usage_error(const char *cmd, const char *synopsis, const char *msg)
{
	char *e = esc_text(msg);

	fprintf(stderr, "bench: error: %s\nusage: bench %s %s\n(see 'bench %s -h')\n", e, cmd, synopsis, cmd);
	free(e);
	return 2;
}

int cli_load_manifest(struct manifest *m, const char *path)
{
	struct diag_list diags = DIAG_LIST_INIT;
	int err = manifest_parse_file(m, &diags, path);

	if (err < 0) {
		if (diags.n)
			diag_list_print(&diags, stderr);
		else
			cli_fail(err);
	}
	diag_list_release(&diags);
	return bench_exit_code(err);
}

char *cli_lock_path(const char *manifest)
{
	size_t l = strlen(manifest);

	if (l > 5 && !strcmp(manifest + l - 5, ".yaml"))
		return xstrfmt("%.*s.lock.json", (int)(l - 5), manifest);
	if (l > 4 && !strcmp(manifest + l - 4, ".yml"))
		return xstrfmt("%.*s.lock.json", (int)(l - 4), manifest);
	return xstrfmt("%s.lock.json", manifest);
}

int cli_read_manifest_lock(char **mbuf, size_t *mlen, char **lbuf, size_t *llen, const char *manifest,
			   const char *lock, const char *needs)
{
	char *path = lock ? xstrdup(lock) : cli_lock_path(manifest);
	int err, status = 0;

	*mbuf = *lbuf = NULL;
	if ((err = fs_read_file(mbuf, mlen, manifest, MANIFEST_MAX_BYTES)) < 0)
		status = cli_fail(err);
	else if (fs_read_file(lbuf, llen, path, 16u << 20) < 0) {
		fprintf(stderr, "bench: error: no readable lock at '%s': %s (run 'bench lock %s')\n", path, needs, manifest);
		status = 3;
	}
	free(path);
	return status;
}

int cli_print_json(void *json)
{
	/* jansson writes DEL, C1, bidirectional and invisible characters as they are: as \uXXXX here, so that a
	 * JSON output shows on a terminal what its text twin shows (the same document for a parser) */
	char *text = json_dumps(json, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	char *e = esc_json_text(text);
	int rc = e ? 0 : -1;

	if (e)
		fputs(e, stdout);
	json_decref(json);
	fputc('\n', stdout);
	free(e);
	free(text);
	return rc == 0 ? 0 : 1;
}

int pack_with_own_key(char **tar, char **env, const char *dir, int quiet, int level)
{
	EVP_PKEY *key = NULL;
	char *keypath = xstrfmt("%s/signing.key.pem", sign_home()), *keyid = NULL;
	int err;

	if (access(keypath, F_OK) != 0) {
		if ((err = sign_keygen(&keyid, sign_home(), 0)) < 0)
			goto cleanup;
		if (!quiet)
			fprintf(stderr, "bench: created a signing key in %s (key id %s); share signing.pub.pem so others can "
				"verify your bundles\n", sign_home(), keyid);
	}
	if ((err = sign_load_private(&key, sign_home())) < 0)
		goto cleanup;
	err = bundle_pack(tar, env, dir, key, level);
cleanup:
	EVP_PKEY_free(key);
	free(keypath);
	free(keyid);
	return err;
}
