/* SPDX-License-Identifier: Apache-2.0 */
#include "plugin_pins.h"

#include <stdlib.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "manifest.h"
#include "plugin.h"
#include "suite.h"

int plugin_pins(json_t **out, const struct manifest *m, const char *manifest_path)
{
	json_t *pins = json_object();
	int err = 0;

	for (size_t i = 0; i < m->nsuites && !err; i++) {
		const struct suite_cfg *sc = &m->suites[i];

		for (size_t k = 0; k < sc->nvalues && !err; k++) {
			const struct param_value *v = &sc->values[k];

			for (size_t j = 0; v->plugins && j < v->n && !err; j++) {
				const char *rel = json_string_value(json_object_get(v->plugins[j], "path"));
				char sha[65], *path;

				if (!rel)
					continue;
				path = plugin_path(manifest_path, rel);
				if (fs_sha256_file(sha, path) < 0)
					err = bench_error_set(BENCH_E_IO, "plug-in '%s': cannot read '%s'", v->sv[j], path);
				else
					json_object_set_new(pins, v->sv[j], json_pack("{s:s, s:s, s:s, s:s}", "suite",
										     sc->ops->name, "kind",
										     json_string_value(json_object_get(v->plugins[j], "kind")),
										     "path", rel, "sha256", sha));
				free(path);
			}
		}
	}
	if (err) {
		json_decref(pins);
		pins = NULL;
	}
	*out = pins;
	return err;
}

int plugin_pins_moved(const json_t *locked, const json_t *now, FILE *report)
{
	const char *k;
	json_t *v;
	int moved = 0;

	json_object_foreach((json_t *)now, k, v) {
		json_t *o = json_object_get(locked, k);
		const char *a = json_string_value(json_object_get(o, "sha256"));
		const char *b = json_string_value(json_object_get(v, "sha256"));

		if (o && json_equal(o, v))
			continue;
		moved++;
		if (!report)
			continue;
		if (!o)
			fprintf(report, "bench: moved: plugin '%s': %s is not in the lock\n", k,
				json_string_value(json_object_get(v, "path")));
		else
			fprintf(report, "bench: moved: plugin '%s': %s changed (sha256 %s -> %s)\n", k,
				json_string_value(json_object_get(v, "path")), a ? a : "none", b ? b : "none");
	}
	return moved;
}
