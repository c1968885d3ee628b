/* SPDX-License-Identifier: Apache-2.0 */
#include "plugin.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/units.h"
#include "core/error.h"
#include "core/fs.h"
#include "manifest.h"
#include "suite.h"

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > PLUGIN_NAME_MAX || !((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || strchr("_.+-", *s)))
			return 0;
	return 1;
}

static int ident_ok(const char *s, int dotted)
{
	int start = 1;

	if (!*s)
		return 0;
	for (; *s; s++) {
		if (dotted && *s == '.' && !start) {
			start = 1;
			continue;
		}
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' || (!start && *s >= '0' && *s <= '9')))
			return 0;
		start = 0;
	}
	return !start;
}

/* relative, no "..", no empty or "." component, no control character */
static int rel_path_ok(const char *s)
{
	if (!*s || *s == '/')
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
				return 0;
		s += n;
		if (*s == '/')
			s++;
	}
	return 1;
}

char *plugin_path(const char *manifest_path, const char *rel)
{
	const char *slash = manifest_path ? strrchr(manifest_path, '/') : NULL;
	char *dir = slash ? xstrndup(manifest_path, (size_t)(slash - manifest_path)) : xstrdup(".");
	char *p = xstrfmt("%s/%s", *dir ? dir : "/", rel);
	struct stat st;

	if (stat(p, &st) != 0) {
		char *q = xstrfmt("%s/inputs/%s", *dir ? dir : "/", rel);

		if (stat(q, &st) == 0) {
			free(p);
			p = q;
		} else {
			free(q);
		}
	}
	free(dir);
	return p;
}

static const char *const keys[] = { "plugin", "python", "file", "function", "native", "passes", "timeout", NULL };
static const char *const pass_names[] = { "fwd", "bwd", "fwd_bwd", NULL };

static const char *scalar(const struct ynode *n)
{
	return n && n->type == YNODE_SCALAR && !ynode_is_null(n) && strlen(n->value) == n->len ? n->value : NULL;
}

int plugin_parse(json_t **out, char **name, const struct param_def *def, const struct ynode *node,
		 struct diag_list *d, const char *file)
{
	const struct ynode *np = ynode_map_get(node, "plugin"), *py = ynode_map_get(node, "python");
	const struct ynode *fi = ynode_map_get(node, "file"), *fn = ynode_map_get(node, "function");
	const struct ynode *na = ynode_map_get(node, "native"), *pa = ynode_map_get(node, "passes");
	const struct ynode *to = ynode_map_get(node, "timeout");
	json_t *o = json_object();
	int bad = 0, nsrc = !!py + !!fi + !!na;
	uint64_t ns = (uint64_t)PLUGIN_TIMEOUT_DEFAULT_S * 1000000000ull;

	*out = NULL;
	*name = NULL;
	for (size_t i = 0; i < node->n; i++) {
		const char *k = node->pairs[i].key->value;
		int known = 0;

		for (size_t j = 0; keys[j]; j++)
			known |= !strcmp(keys[j], k);
		if (!known) {
			const char *best = suggest_closest(k, keys);

			if (best)
				ynode_diag(d, file, node->pairs[i].key, "unknown key '%s' in plug-in entry of '%s' (did you mean "
				     "'%s'?)", k, def->name, best);
			else
				ynode_diag(d, file, node->pairs[i].key, "unknown key '%s' in plug-in entry of '%s' (keys: plugin, "
				     "python, file, function, native, passes, timeout)", k, def->name);
			bad = 1;
		} else if (ynode_control_char(node->pairs[i].value, 0) >= 0) {
			ynode_diag(d, file, node->pairs[i].value, "'%s' holds a control character (\\x%02x)", k,
			     ynode_control_char(node->pairs[i].value, 0));
			bad = 1;
		}
	}
	if (bad)
		goto cleanup;
	if (!np) {
		ynode_diag(d, file, node, "a mapping in '%s' is a plug-in entry and needs 'plugin: NAME' (or write a built-in's "
		     "name)", def->name);
		bad = 1;
	} else if (!scalar(np) || !name_ok(np->value)) {
		ynode_diag(d, file, np, "plug-in name %s%s%s must be [a-z0-9][a-z0-9_.+-]*, at most %d characters",
		     scalar(np) ? "'" : "", scalar(np) ? np->value : ynode_type_name(np), scalar(np) ? "'" : "",
		     PLUGIN_NAME_MAX);
		bad = 1;
	} else if (param_enum_index(def, np->value) >= 0) {
		ynode_diag(d, file, np, "plug-in name '%s' is a built-in %s of '%s'; give the plug-in its own name", np->value,
		     def->name[strlen(def->name) - 1] == 's' ? "entry" : "name", def->name);
		bad = 1;
	} else {
		json_object_set_new(o, "name", json_string(np->value));
	}
	if (nsrc != 1) {
		ynode_diag(d, file, node, "plug-in entry%s%s%s needs exactly one of 'python', 'file'%s; it has %s",
		     scalar(np) ? " '" : "", scalar(np) ? np->value : "", scalar(np) ? "'" : "",
		     (def->flags & PARAM_PLUGIN_NATIVE) ? ", 'native'" : "", nsrc ? "more than one" : "none");
		bad = 1;
	}
	if (na && !(def->flags & PARAM_PLUGIN_NATIVE)) {
		ynode_diag(d, file, na, "'native' plug-ins are gemm backends only (C entry point, runners/gemm/plugin.h); this "
		     "suite takes 'python' or 'file'");
		bad = 1;
	}
	if (pa && !(def->flags & PARAM_PLUGIN_PASSES)) {
		ynode_diag(d, file, pa, "'passes' applies to attention and ssm plug-ins");
		bad = 1;
	}
	if (fn && !fi) {
		ynode_diag(d, file, fn, "'function' goes with 'file' (with 'python', write \"module:function\")");
		bad = 1;
	}
	if (py) {
		const char *v = scalar(py), *colon = v ? strchr(v, ':') : NULL;
		char *mod = colon ? xstrndup(v, (size_t)(colon - v)) : NULL;

		if (!colon || !ident_ok(mod, 1) || !ident_ok(colon + 1, 0)) {
			ynode_diag(d, file, py, "'python' must be \"package.module:function\", got %s%s%s", v ? "'" : "",
			     v ? v : ynode_type_name(py), v ? "'" : "");
			bad = 1;
		} else {
			json_object_set_new(o, "kind", json_string("python"));
			json_object_set_new(o, "python", json_string(v));
			json_object_set_new(o, "module", json_string(mod));
			json_object_set_new(o, "function", json_string(colon + 1));
		}
		free(mod);
	}
	for (int k = 0; k < 2; k++) {
		const struct ynode *pn = k ? na : fi;
		const char *v = scalar(pn);
		char *path;
		struct stat st;

		if (!pn || (k && !(def->flags & PARAM_PLUGIN_NATIVE)))
			continue;
		if (!v || !rel_path_ok(v)) {
			ynode_diag(d, file, pn, "'%s' must be a path relative to the manifest's directory, without '..', got %s%s%s",
			     k ? "native" : "file", v ? "'" : "", v ? v : ynode_type_name(pn), v ? "'" : "");
			bad = 1;
			continue;
		}
		path = plugin_path(file, v);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			ynode_diag(d, file, pn, "plug-in %s '%s' %s (read relative to the manifest: '%s')", k ? "library" : "file", v,
			     stat(path, &st) != 0 ? "does not exist" : "is not a regular file", path);
			bad = 1;
		} else {
			json_object_set_new(o, "kind", json_string(k ? "native" : "file"));
			json_object_set_new(o, "path", json_string(v));
		}
		free(path);
	}
	if (fi && !fn) {
		ynode_diag(d, file, fi, "'file' needs 'function': the name of the function in it");
		bad = 1;
	} else if (fi && fn) {
		if (!scalar(fn) || !ident_ok(fn->value, 0)) {
			ynode_diag(d, file, fn, "'function' must be a Python identifier");
			bad = 1;
		} else {
			json_object_set_new(o, "function", json_string(fn->value));
		}
	}
	if (pa) {
		json_t *a = json_array();

		if (pa->type != YNODE_SEQ || !pa->n) {
			ynode_diag(d, file, pa, "'passes' must be a non-empty list of fwd, bwd, fwd_bwd");
			bad = 1;
		}
		for (size_t i = 0; pa->type == YNODE_SEQ && i < pa->n; i++) {
			const char *v = scalar(pa->items[i]);
			int ok = 0;

			for (size_t j = 0; v && pass_names[j]; j++)
				ok |= !strcmp(v, pass_names[j]);
			if (!ok) {
				ynode_diag(d, file, pa->items[i], "'passes' entry must be fwd, bwd or fwd_bwd");
				bad = 1;
			} else {
				json_array_append_new(a, json_string(v));
			}
		}
		json_object_set_new(o, "passes", a);
	}
	if (to) {
		char why[160];

		if (!scalar(to) || units_parse_duration(&ns, to->value, why, sizeof(why)) < 0 || ns < 1000000000ull ||
		    ns > 86400ull * 1000000000ull) {
			ynode_diag(d, file, to, "'timeout' must be a duration from 1s to 24h, such as 5m");
			bad = 1;
		}
	}
	json_object_set_new(o, "timeout_s", json_real((double)(ns / 1000000) / 1e3));
	if (!bad) {
		*name = xstrdup(np->value);
		*out = o;
		return 0;
	}
cleanup:
	json_decref(o);
	return -1;
}

int plugin_of_params(const json_t *params, const char **kind)
{
	json_t *p = json_object_get(params, "plugin");

	if (!json_is_object(p))
		return 0;
	if (kind)
		*kind = json_string_value(json_object_get(p, "kind"));
	return 1;
}

int plugin_has_pass(const json_t *p, const char *pass)
{
	json_t *a = json_object_get(p, "passes"), *v;
	size_t i;

	if (!json_is_array(a))
		return 1;
	json_array_foreach(a, i, v)
		if (json_string_value(v) && !strcmp(json_string_value(v), pass))
			return 1;
	return 0;
}

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
