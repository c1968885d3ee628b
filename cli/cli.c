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
#include "exec/trust.h"
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

int cli_confirm_signed_manifest(const char *mpath, const char *lock, const char *variant, const char *image, const char *keyid,
				const char *origin, int yes)
{
	struct manifest m = MANIFEST_INIT;
	json_t *items = NULL, *it, *lockj = lock ? json_loads(lock, 0, NULL) : NULL;
	char *k = esc_text(keyid), *o = esc_text(origin), line[64];
	size_t i, hooks = 0, plugins = 0;
	int rc;

	if ((rc = cli_load_manifest(&m, mpath)) != 0)
		goto cleanup;
	if (variant && manifest_apply_variant(&m, variant) < 0) {
		rc = cli_fail(BENCH_E_MANIFEST);
		goto cleanup;
	}
	items = trust_exec_items(&m, lockj, mpath);
	fprintf(stderr, "bench: the bundle is signed by key id %s, trusted as %s\n", k, o);
	fprintf(stderr, "bench: reproducing it executes what its manifest says; here that is:\n");
	if (image) {
		char *e = esc_text(image);

		fprintf(stderr, "  %-40s %s\n", "image (recorded id)", e);
		free(e);
	}
	json_array_foreach(items, i, it) {
		char *w = esc_text(json_string_value(json_object_get(it, "what")));
		char *v = esc_text(json_string_value(json_object_get(it, "value")));
		const char *hook = json_string_value(json_object_get(it, "hook"));
		const char *label = json_string_value(json_object_get(it, "hook_label"));

		fprintf(stderr, "  %-40s %s\n", w, v);
		if (hook) {
			fprintf(stderr, "  %-40s ^ %s: %s\n", "", label ? label : "loads code or changes how programs start", hook);
			if (!strncmp(json_string_value(json_object_get(it, "what")), "suites.", 7) &&
			    strstr(json_string_value(json_object_get(it, "what")), ".plugin."))
				plugins++;
			else
				hooks++;
		}
		free(w);
		free(v);
	}
	if (hooks)
		fprintf(stderr, "bench: %zu variable%s above load%s code into the programs it starts, or change%s what the "
			"container engine runs or where compiled code is kept\n", hooks, hooks == 1 ? "" : "s",
			hooks == 1 ? "s" : "", hooks == 1 ? "s" : "");
	if (plugins)
		fprintf(stderr, "bench: %zu plug-in%s above run%s the signer's code on this machine\n", plugins,
			plugins == 1 ? "" : "s", plugins == 1 ? "s" : "");
	if (yes) {
		rc = 0;
		goto cleanup;
	}
	if (isatty(0)) {
		fprintf(stderr, "bench: run it? [y/N] ");
		if (fgets(line, sizeof(line), stdin) && (!strcmp(line, "y\n") || !strcmp(line, "yes\n") ||
							  !strcmp(line, "Y\n") || !strcmp(line, "YES\n"))) {
			rc = 0;
			goto cleanup;
		}
		fprintf(stderr, "bench: error: not confirmed; nothing was run\n");
		rc = 3;
		goto cleanup;
	}
	fprintf(stderr, "bench: error: the signer's manifest above runs on this machine; pass --yes to run it "
		"(--dry-run prints the exact commands); nothing was run\n");
	rc = 3;
cleanup:
	json_decref(items);
	json_decref(lockj);
	manifest_release(&m);
	free(k);
	free(o);
	return rc;
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
