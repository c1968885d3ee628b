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
#include "manifest/plugin_pins.h"

static const struct opt_cmd cmd = { "lock", "[--check] [-q] [-o FILE] MANIFEST",
				    "Resolve every moving reference of the manifest to an immutable pin and write "
				    "MANIFEST's .lock.json: git branches and tags to commits (listing the remote's refs), pip "
				    "releases, nightlies (dated, 'date: today' or 'date: latest', recorded as 'date_resolved') and "
				    "'latest' to the exact version for the wheel target (PEP 503 "
				    "index) and its whole dependency closure, each package's wheel URL and sha256 (pip's "
				    "resolver: python3 with pip 22.2+), apt versions, the base image digest (a base given "
				    "by digest is its own pin); each resolution is printed as it is made. --check resolves "
				    "again and exits 4 naming every reference and package that moved." };

static const char *pkg_version(json_t *pkgs, const char *name)
{
	json_t *found = lock_closure_find(pkgs, name);

	return found ? json_string_value(json_object_get(found, "version")) : NULL;
}

/* What moved in a pip component's closure, package by package: "bench: moved: torch: chain-c 3.0 -> 3.1".
 * Returns how many lines it printed. */
static int print_closure_drift(const char *comp, json_t *old, json_t *now)
{
	json_t *p;
	size_t i;
	int n = 0;

	json_array_foreach(now, i, p) {
		const char *name = json_string_value(json_object_get(p, "name"));
		json_t *o = lock_closure_find(old, name);

		if (!o || !json_equal(o, p))
			n++;
		if (!o)
			fprintf(stderr, "bench: moved: %s: %s %s added\n", comp, name, json_string_value(json_object_get(p, "version")));
		else if (!json_equal(o, p))
			fprintf(stderr, "bench: moved: %s: %s %s -> %s%s\n", comp, name,
				json_string_value(json_object_get(o, "version")), json_string_value(json_object_get(p, "version")),
				json_equal(json_object_get(o, "version"), json_object_get(p, "version")) ? " (another wheel)" : "");
	}
	json_array_foreach(old, i, p)
		if (!pkg_version(now, json_string_value(json_object_get(p, "name"))) && ++n)
			fprintf(stderr, "bench: moved: %s: %s %s removed\n", comp, json_string_value(json_object_get(p, "name")),
				json_string_value(json_object_get(p, "version")));
	return n;
}

/* What changed in a path component's prefix, library by library: "bench: moved: blas: /opt/x: libfoo.so.1 sha256
 * 1234abcd... -> 5678ef01..." (a library added or gone likewise). */
static void print_libs_drift(const char *comp, json_t *path, json_t *old, json_t *now)
{
	const char *p = json_string_value(path);
	size_t i, j;
	json_t *a, *b;

	json_array_foreach(now, i, b) {
		const char *so = json_string_value(json_object_get(b, "soname"));
		json_t *was = NULL;

		json_array_foreach(old, j, a)
			if (json_equal(json_object_get(a, "soname"), json_object_get(b, "soname")))
				was = a;
		if (!was)
			fprintf(stderr, "bench: moved: %s: %s: %s added\n", comp, p, so);
		else if (!json_equal(was, b))
			fprintf(stderr, "bench: moved: %s: %s: %s sha256 %.16s... -> %.16s...%s\n", comp, p, so,
				json_string_value(json_object_get(was, "sha256")), json_string_value(json_object_get(b, "sha256")),
				json_equal(json_object_get(was, "file"), json_object_get(b, "file")) ? "" : " (another file)");
	}
	json_array_foreach(old, j, a) {
		int gone = 1;

		json_array_foreach(now, i, b)
			gone &= !json_equal(json_object_get(a, "soname"), json_object_get(b, "soname"));
		if (gone)
			fprintf(stderr, "bench: moved: %s: %s: %s removed\n", comp, p, json_string_value(json_object_get(a, "soname")));
	}
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

			if (json_equal(o, v))
				continue;
			moved++;
			if (json_is_string(json_object_get(o, "date_resolved")) && json_is_string(json_object_get(v, "date_resolved")) &&
			    !json_equal(json_object_get(o, "date_resolved"), json_object_get(v, "date_resolved")))
				fprintf(stderr, "bench: moved: %s: nightly of %s: %s -> %s\n", k,
					json_string_value(json_object_get(v, "date")),
					json_string_value(json_object_get(o, "date_resolved")),
					json_string_value(json_object_get(v, "date_resolved")));
			if (json_is_array(json_object_get(o, "libs")) && json_equal(json_object_get(o, "path"), json_object_get(v, "path")))
				print_libs_drift(k, json_object_get(o, "path"), json_object_get(o, "libs"), json_object_get(v, "libs"));
			else if (!json_is_array(json_object_get(o, "packages")) ||
			    !print_closure_drift(k, json_object_get(o, "packages"), json_object_get(v, "packages"))) {
				char *a = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
				char *b = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);

				fprintf(stderr, "bench: moved: %s: %s -> %s\n", k, a ? a : "null", b);
				free(a);
				free(b);
			}
		}
		if ((json_object_get(old, "wheel_target") || json_object_get(lock, "wheel_target")) &&
		    !json_equal(json_object_get(old, "wheel_target"), json_object_get(lock, "wheel_target"))) {
			char *a = json_dumps(json_object_get(old, "wheel_target"), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
			char *b = json_dumps(json_object_get(lock, "wheel_target"), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

			fprintf(stderr, "bench: moved: wheel_target: %s -> %s\n", a ? a : "null", b ? b : "null");
			free(a);
			free(b);
			moved++;
		}
		if ((json_object_get(old, "base") || json_object_get(lock, "base")) &&
		    !json_equal(json_object_get(old, "base"), json_object_get(lock, "base"))) {
			const char *was = json_string_value(json_object_get(json_object_get(old, "base"), "digest"));
			const char *now = json_string_value(json_object_get(json_object_get(lock, "base"), "digest"));

			fprintf(stderr, "bench: moved: base: %s -> %s\n", was ? was : "none", now ? now : "none");
			moved++;
		}
		if (json_object_get(lock, "plugins"))
			moved += plugin_pins_moved(json_object_get(old, "plugins"), json_object_get(lock, "plugins"), stderr);
		if (moved) {
			fprintf(stderr, "bench: error: %d locked reference%s moved\n", moved, moved == 1 ? "" : "s");
			status = 4;
		} else {
			printf("%s: every locked reference is where it was\n", path);
		}
		goto cleanup;
	}
	/* a lock whose bytes change only when a pin changes: where no pin moved since the lock already there, it
	 * stays as it is, source_date_epoch included, and so does the image built from it */
	if ((old = json_load_file(path, 0, NULL)) && lock_keep_unmoved(lock, old)) {
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
