/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lock.c — bench lock MANIFEST: pin every moving reference; --check: has any moved? */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "manifest/lock.h"
#include "manifest/lock_drift.h"

static const struct opt_cmd cmd = { "lock", "[--check] [-q] [-o FILE] MANIFEST",
				    "Resolve every moving reference of the manifest to an immutable pin and write "
				    "MANIFEST's .lock.json: git branches and tags to commits (listing the remote's refs), pip "
				    "releases, nightlies (dated, 'date: today' or 'date: latest', recorded as 'date_resolved') and "
				    "'latest' to the exact version for the wheel target (PEP 503 "
				    "index) and its whole dependency closure, each package's wheel URL and sha256 (pip's "
				    "resolver: python3 with pip 22.2+), apt versions, the base image digest (a base given "
				    "by digest is its own pin); each resolution is printed as it is made. --check resolves "
				    "again and exits 4 naming every reference and package that moved." };

/* --check: the lock at path against the one just resolved: 0 when no reference moved, 4 after naming every one
 * that did, 3 when the lock cannot be read or its manifest changed since. */
static int lock_check(const char *path, const char *manifest, json_t *lock)
{
	json_t *old = NULL;
	int moved, status = 0;

	if (fs_load_json(&old, path, 64u << 20, 0) < 0) { /* without blocking: a FIFO is refused, not waited on */
		fprintf(stderr, "bench: error: cannot read the lock '%s': %s\n", path, bench_error_last());
		return 3;
	}
	if (!json_equal(json_object_get(old, "manifest_sha256"), json_object_get(lock, "manifest_sha256"))) {
		fprintf(stderr, "bench: error: '%s' changed since '%s' was written; lock it again\n", manifest, path);
		status = 3;
	} else if ((moved = lock_drift_print(stderr, old, lock))) {
		fprintf(stderr, "bench: error: %d locked reference%s moved\n", moved, moved == 1 ? "" : "s");
		status = 4;
	} else {
		printf("%s: every locked reference is where it was\n", path);
	}
	json_decref(old);
	return status;
}

int cmd_lock(int argc, char **argv)
{
	struct manifest m = MANIFEST_INIT;
	const char *out = NULL;
	int check = 0, quiet = 0, n, err, status = 0;
	const struct opt opts[] = {
		OPT_BOOL(0, "check", &check, "compare with the existing lock; exit 4 when a reference moved"),
		OPT_STRING('o', "output", &out, "FILE", "where the lock goes (default: MANIFEST with .lock.json)"),
		OPT_BOOL('q', "quiet", &quiet, "do not print each resolution; errors only"),
		OPT_END(),
	};
	char *path = NULL, *buf = NULL;
	size_t len;
	json_t *lock = NULL, *old = NULL;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	if (n != 1)
		return cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one manifest" : "no manifest given");
	if ((status = cli_load_manifest(&m, argv[1])) != 0)
		goto cleanup;
	if ((err = fs_read_file(&buf, &len, argv[1], MANIFEST_MAX_BYTES)) < 0 || (err = lock_resolve(&lock, &m, buf, len, quiet ? NULL : stderr)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	path = out ? xstrdup(out) : cli_lock_path(argv[1]);
	if (check) {
		status = lock_check(path, argv[1], lock);
		goto cleanup;
	}
	/* a lock whose bytes change only when a pin changes: where no pin moved since the lock already there, it
	 * stays as it is, source_date_epoch included, and so does the image built from it */
	if (fs_load_json(&old, path, 64u << 20, 0) == 0 && lock_keep_unmoved(lock, old)) {
		if (!quiet)
			fprintf(stderr, "bench: lock: no pin moved since '%s': kept as it is\n", path);
		printf("%s\n", path);
		goto cleanup;
	}
	if ((err = lock_write(path, lock)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	printf("%s\n", path);
cleanup:
	json_decref(lock);
	json_decref(old);
	free(path);
	free(buf);
	manifest_release(&m);
	return status;
}
