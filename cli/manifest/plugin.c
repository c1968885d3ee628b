/* SPDX-License-Identifier: Apache-2.0 */
#include "plugin.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/units.h"

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

/* One plug-in entry being parsed: its named keys, where problems are reported, the JSON built so far. */
struct entry {
	const struct plugin_slot *slot;
	const struct ynode *node;
	/* its keys plugin, python, file, function, native, passes, timeout (NULL where absent) */
	const struct ynode *np, *py, *fi, *fn, *na, *pa, *to;
	struct diag_list *d;
	const char *file;
	json_t *o;
	int bad;
};

/* every key known, no value with a control character */
static void check_keys(struct entry *e)
{
	const struct ynode *node = e->node;

	for (size_t i = 0; i < node->n; i++) {
		const char *k = node->pairs[i].key->value;
		int known = 0;

		for (size_t j = 0; keys[j]; j++)
			known |= !strcmp(keys[j], k);
		if (!known) {
			const char *best = suggest_closest(k, keys);
			const struct ynode *at = node->pairs[i].key;

			if (best)
				ynode_diag(e->d, e->file, at, "unknown key '%s' in plug-in entry of '%s' (did you mean '%s'?)",
				     k, e->slot->list, best);
			else
				ynode_diag(e->d, e->file, at, "unknown key '%s' in plug-in entry of '%s' (keys: plugin, python, "
				     "file, function, native, passes, timeout)", k, e->slot->list);
			e->bad = 1;
		} else if (ynode_control_char(node->pairs[i].value, 0) >= 0) {
			ynode_diag(e->d, e->file, node->pairs[i].value, "'%s' holds a control character (\\x%02x)", k,
			     ynode_control_char(node->pairs[i].value, 0));
			e->bad = 1;
		}
	}
}

static int is_builtin(const struct plugin_slot *slot, const char *s)
{
	for (size_t i = 0; slot->builtins && slot->builtins[i]; i++)
		if (!strcmp(slot->builtins[i], s))
			return 1;
	return 0;
}

/* plugin: NAME, a name of its own */
static void parse_name(struct entry *e)
{
	const struct ynode *np = e->np;
	const char *list = e->slot->list;

	if (!np) {
		ynode_diag(e->d, e->file, e->node, "a mapping in '%s' is a plug-in entry and needs 'plugin: NAME' (or "
		     "write a built-in's name)", list);
		e->bad = 1;
	} else if (!scalar(np) || !name_ok(np->value)) {
		ynode_diag(e->d, e->file, np, "plug-in name %s%s%s must be [a-z0-9][a-z0-9_.+-]*, at most %d "
		     "characters",
		     scalar(np) ? "'" : "", scalar(np) ? np->value : ynode_type_name(np), scalar(np) ? "'" : "",
		     PLUGIN_NAME_MAX);
		e->bad = 1;
	} else if (is_builtin(e->slot, np->value)) {
		ynode_diag(e->d, e->file, np, "plug-in name '%s' is a built-in %s of '%s'; give the plug-in its own "
		     "name",
		     np->value, list[strlen(list) - 1] == 's' ? "entry" : "name", list);
		e->bad = 1;
	} else {
		json_object_set_new(e->o, "name", json_string(np->value));
	}
}

/* exactly one of python, file, native; the keys this suite takes */
static void check_sources(struct entry *e)
{
	const struct ynode *np = e->np;
	int nsrc = !!e->py + !!e->fi + !!e->na;

	if (nsrc != 1) {
		ynode_diag(e->d, e->file, e->node, "plug-in entry%s%s%s needs exactly one of 'python', 'file'%s; it "
		     "has %s",
		     scalar(np) ? " '" : "", scalar(np) ? np->value : "", scalar(np) ? "'" : "",
		     e->slot->native_ok ? ", 'native'" : "", nsrc ? "more than one" : "none");
		e->bad = 1;
	}
	if (e->na && !e->slot->native_ok) {
		ynode_diag(e->d, e->file, e->na, "'native' plug-ins are gemm backends only (C entry point, "
		     "runners/gemm/plugin.h); this suite takes 'python' or 'file'");
		e->bad = 1;
	}
	if (e->pa && !e->slot->passes_ok) {
		ynode_diag(e->d, e->file, e->pa, "'passes' applies to attention and ssm plug-ins");
		e->bad = 1;
	}
	if (e->fn && !e->fi) {
		ynode_diag(e->d, e->file, e->fn,
		     "'function' goes with 'file' (with 'python', write \"module:function\")");
		e->bad = 1;
	}
}

/* python: package.module:function */
static void parse_python(struct entry *e)
{
	const char *v = scalar(e->py), *colon = v ? strchr(v, ':') : NULL;
	char *mod = colon ? xstrndup(v, (size_t)(colon - v)) : NULL;

	if (!colon || !ident_ok(mod, 1) || !ident_ok(colon + 1, 0)) {
		ynode_diag(e->d, e->file, e->py, "'python' must be \"package.module:function\", got %s%s%s",
		     v ? "'" : "", v ? v : ynode_type_name(e->py), v ? "'" : "");
		e->bad = 1;
	} else {
		json_object_set_new(e->o, "kind", json_string("python"));
		json_object_set_new(e->o, "python", json_string(v));
		json_object_set_new(e->o, "module", json_string(mod));
		json_object_set_new(e->o, "function", json_string(colon + 1));
	}
	free(mod);
}

/* file: or native: PATH, relative to the manifest and there */
static void parse_path(struct entry *e, const struct ynode *pn, const char *key)
{
	int native = !strcmp(key, "native");
	const char *v = scalar(pn);
	char *path;
	struct stat st;

	if (!v || !rel_path_ok(v)) {
		ynode_diag(e->d, e->file, pn, "'%s' must be a path relative to the manifest's directory, without '..', "
		     "got %s%s%s", key, v ? "'" : "", v ? v : ynode_type_name(pn), v ? "'" : "");
		e->bad = 1;
		return;
	}
	path = plugin_path(e->file, v);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		ynode_diag(e->d, e->file, pn, "plug-in %s '%s' %s (read relative to the manifest: '%s')",
		     native ? "library" : "file", v, stat(path, &st) != 0 ? "does not exist" : "is not a regular file",
		     path);
		e->bad = 1;
	} else {
		json_object_set_new(e->o, "kind", json_string(key));
		json_object_set_new(e->o, "path", json_string(v));
	}
	free(path);
}

/* function: the Python function of a file plug-in */
static void parse_function(struct entry *e)
{
	if (!e->fn) {
		ynode_diag(e->d, e->file, e->fi, "'file' needs 'function': the name of the function in it");
		e->bad = 1;
	} else if (!scalar(e->fn) || !ident_ok(e->fn->value, 0)) {
		ynode_diag(e->d, e->file, e->fn, "'function' must be a Python identifier");
		e->bad = 1;
	} else {
		json_object_set_new(e->o, "function", json_string(e->fn->value));
	}
}

/* passes: a non-empty list of fwd, bwd, fwd_bwd */
static void parse_passes(struct entry *e)
{
	const struct ynode *pa = e->pa;
	json_t *a = json_array();

	if (pa->type != YNODE_SEQ || !pa->n) {
		ynode_diag(e->d, e->file, pa, "'passes' must be a non-empty list of fwd, bwd, fwd_bwd");
		e->bad = 1;
	}
	for (size_t i = 0; pa->type == YNODE_SEQ && i < pa->n; i++) {
		const char *v = scalar(pa->items[i]);
		int ok = 0;

		for (size_t j = 0; v && pass_names[j]; j++)
			ok |= !strcmp(v, pass_names[j]);
		if (!ok) {
			ynode_diag(e->d, e->file, pa->items[i], "'passes' entry must be fwd, bwd or fwd_bwd");
			e->bad = 1;
		} else {
			json_array_append_new(a, json_string(v));
		}
	}
	json_object_set_new(e->o, "passes", a);
}

/* timeout: 1s to 24h (default PLUGIN_TIMEOUT_DEFAULT_S), stored as timeout_s */
static void parse_timeout(struct entry *e)
{
	uint64_t ns = (uint64_t)PLUGIN_TIMEOUT_DEFAULT_S * 1000000000ull;
	char why[160];

	if (e->to && (!scalar(e->to) || units_parse_duration(&ns, e->to->value, why, sizeof(why)) < 0 ||
		      ns < 1000000000ull || ns > 86400ull * 1000000000ull)) {
		ynode_diag(e->d, e->file, e->to, "'timeout' must be a duration from 1s to 24h, such as 5m");
		e->bad = 1;
	}
	json_object_set_new(e->o, "timeout_s", json_real((double)(ns / 1000000) / 1e3));
}

int plugin_parse(json_t **out, char **name, const struct plugin_slot *slot, const struct ynode *node,
		 struct diag_list *d, const char *file)
{
	struct entry e = {
		.slot = slot, .node = node, .d = d, .file = file, .o = json_object(),
		.np = ynode_map_get(node, "plugin"), .py = ynode_map_get(node, "python"),
		.fi = ynode_map_get(node, "file"), .fn = ynode_map_get(node, "function"),
		.na = ynode_map_get(node, "native"), .pa = ynode_map_get(node, "passes"),
		.to = ynode_map_get(node, "timeout"),
	};

	*out = NULL;
	*name = NULL;
	check_keys(&e);
	if (e.bad)
		goto cleanup;
	parse_name(&e);
	check_sources(&e);
	if (e.py)
		parse_python(&e);
	if (e.fi)
		parse_path(&e, e.fi, "file");
	if (e.na && slot->native_ok)
		parse_path(&e, e.na, "native");
	if (e.fi)
		parse_function(&e);
	if (e.pa)
		parse_passes(&e);
	parse_timeout(&e);
	if (!e.bad) {
		*name = xstrdup(e.np->value);
		*out = e.o;
		return 0;
	}
cleanup:
	json_decref(e.o);
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
