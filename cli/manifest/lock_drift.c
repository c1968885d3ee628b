/* SPDX-License-Identifier: Apache-2.0 */
/* lock_drift.c — what moved between two locks of one manifest (lock_drift.h). */
#include "lock_drift.h"

#include <stdlib.h>

#include "manifest/lock.h"
#include "manifest/plugin_pins.h"

static const char *pkg_version(json_t *pkgs, const char *name)
{
	json_t *found = lock_closure_find(pkgs, name);

	return found ? json_string_value(json_object_get(found, "version")) : NULL;
}

/* What moved in a pip component's closure, package by package: "bench: moved: torch: chain-c 3.0 -> 3.1".
 * Returns how many lines it printed. */
static int print_closure_drift(FILE *fp, const char *comp, json_t *old, json_t *now)
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
			fprintf(fp, "bench: moved: %s: %s %s added\n", comp, name, json_string_value(json_object_get(p, "version")));
		else if (!json_equal(o, p))
			fprintf(fp, "bench: moved: %s: %s %s -> %s%s\n", comp, name,
				json_string_value(json_object_get(o, "version")), json_string_value(json_object_get(p, "version")),
				json_equal(json_object_get(o, "version"), json_object_get(p, "version")) ? " (another wheel)" : "");
	}
	json_array_foreach(old, i, p)
		if (!pkg_version(now, json_string_value(json_object_get(p, "name"))) && ++n)
			fprintf(fp, "bench: moved: %s: %s %s removed\n", comp, json_string_value(json_object_get(p, "name")),
				json_string_value(json_object_get(p, "version")));
	return n;
}

/* What changed in a path component's prefix, library by library: "bench: moved: blas: /opt/x: libfoo.so.1 sha256
 * 1234abcd... -> 5678ef01..." (a library added or gone likewise). */
static void print_libs_drift(FILE *fp, const char *comp, json_t *path, json_t *old, json_t *now)
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
			fprintf(fp, "bench: moved: %s: %s: %s added\n", comp, p, so);
		else if (!json_equal(was, b))
			fprintf(fp, "bench: moved: %s: %s: %s sha256 %.16s... -> %.16s...%s\n", comp, p, so,
				json_string_value(json_object_get(was, "sha256")), json_string_value(json_object_get(b, "sha256")),
				json_equal(json_object_get(was, "file"), json_object_get(b, "file")) ? "" : " (another file)");
	}
	json_array_foreach(old, j, a) {
		int gone = 1;

		json_array_foreach(now, i, b)
			gone &= !json_equal(json_object_get(a, "soname"), json_object_get(b, "soname"));
		if (gone)
			fprintf(fp, "bench: moved: %s: %s: %s removed\n", comp, p, json_string_value(json_object_get(a, "soname")));
	}
}

/* One component k whose pin moved from o (NULL: not in the old lock) to v: the nightly's date, then the
 * libraries of a host prefix, the packages of a pip closure, or else the whole pin. */
static void print_component_drift(FILE *fp, const char *k, json_t *o, json_t *v)
{
	if (json_is_string(json_object_get(o, "date_resolved")) && json_is_string(json_object_get(v, "date_resolved")) &&
	    !json_equal(json_object_get(o, "date_resolved"), json_object_get(v, "date_resolved")))
		fprintf(fp, "bench: moved: %s: nightly of %s: %s -> %s\n", k, json_string_value(json_object_get(v, "date")),
			json_string_value(json_object_get(o, "date_resolved")), json_string_value(json_object_get(v, "date_resolved")));
	if (json_is_array(json_object_get(o, "libs")) && json_equal(json_object_get(o, "path"), json_object_get(v, "path")))
		print_libs_drift(fp, k, json_object_get(o, "path"), json_object_get(o, "libs"), json_object_get(v, "libs"));
	else if (!json_is_array(json_object_get(o, "packages")) ||
		 !print_closure_drift(fp, k, json_object_get(o, "packages"), json_object_get(v, "packages"))) {
		char *a = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		char *b = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);

		fprintf(fp, "bench: moved: %s: %s -> %s\n", k, a ? a : "null", b);
		free(a);
		free(b);
	}
}

int lock_drift_print(FILE *report, json_t *old, json_t *now)
{
	const char *k;
	json_t *v;
	int moved = 0;

	json_object_foreach(json_object_get(now, "components"), k, v) {
		json_t *o = json_object_get(json_object_get(old, "components"), k);

		if (json_equal(o, v))
			continue;
		moved++;
		print_component_drift(report, k, o, v);
	}
	if ((json_object_get(old, "wheel_target") || json_object_get(now, "wheel_target")) &&
	    !json_equal(json_object_get(old, "wheel_target"), json_object_get(now, "wheel_target"))) {
		char *a = json_dumps(json_object_get(old, "wheel_target"), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		char *b = json_dumps(json_object_get(now, "wheel_target"), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

		fprintf(report, "bench: moved: wheel_target: %s -> %s\n", a ? a : "null", b ? b : "null");
		free(a);
		free(b);
		moved++;
	}
	if ((json_object_get(old, "base") || json_object_get(now, "base")) &&
	    !json_equal(json_object_get(old, "base"), json_object_get(now, "base"))) {
		const char *was = json_string_value(json_object_get(json_object_get(old, "base"), "digest"));
		const char *is = json_string_value(json_object_get(json_object_get(now, "base"), "digest"));

		fprintf(report, "bench: moved: base: %s -> %s\n", was ? was : "none", is ? is : "none");
		moved++;
	}
	if (json_object_get(now, "plugins"))
		moved += plugin_pins_moved(json_object_get(old, "plugins"), json_object_get(now, "plugins"), report);
	return moved;
}
