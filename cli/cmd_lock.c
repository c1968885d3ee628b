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

static const struct opt_cmd cmd = { "lock", "[--check] [-q] [-o FILE] MANIFEST",
				    "Resolve every moving reference of the manifest to an immutable pin and write "
				    "MANIFEST's .lock.json: git branches and tags to commits (listing the remote's refs), pip "
				    "releases and dated nightlies to the exact wheel URL and sha256 (PEP 503 index), apt "
				    "versions, the base image digest; each resolution is printed as it is made. --check "
				    "resolves again and exits 4 naming every reference that moved." };

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
		json_error_t je;
		const char *k;
		json_t *v;
		int moved = 0;

		if (!(old = json_load_file(path, 0, &je))) {
			fprintf(stderr, "bench: error: cannot read the lock '%s': %s\n", path, je.text);
			status = 3;
			goto cleanup;
		}
		if (!json_equal(json_object_get(old, "manifest_sha256"), json_object_get(lock, "manifest_sha256"))) {
			fprintf(stderr, "bench: error: '%s' changed since '%s' was written; lock it again\n", argv[1], path);
			status = 3;
			goto cleanup;
		}
		json_object_foreach(json_object_get(lock, "components"), k, v) {
			json_t *o = json_object_get(json_object_get(old, "components"), k);

			if (!json_equal(o, v)) {
				char *a = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
				char *b = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);

				fprintf(stderr, "bench: moved: %s: %s -> %s\n", k, a ? a : "null", b);
				free(a);
				free(b);
				moved++;
			}
		}
		if (moved) {
			fprintf(stderr, "bench: error: %d locked reference%s moved\n", moved, moved == 1 ? "" : "s");
			status = 4;
		} else {
			printf("%s: every locked reference is where it was\n", path);
		}
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
