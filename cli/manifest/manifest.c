/* SPDX-License-Identifier: Apache-2.0 */
#include "manifest.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/units.h"
#include "core/strvec.h"
#include "envprofile.h"
#include "peaks.h"
#include "ynode.h"

const char *const vendor_names[] = { "cuda", "rocm", "cpu", NULL };
const char *const channel_names[] = { "stable", "nightly", "dev", "custom", NULL };
const char *const engine_names[] = { "host", "podman", "docker", "apptainer", NULL };
const char *const launcher_names[] = { "local", "mpirun", "slurm", NULL };
const char *const source_names[] = { "pip", "git", "apt", "path", NULL };
static const char *const container_names[] = { "pyxis", "apptainer", "none", NULL };
static const char *const slurm_mpi_names[] = { "pmix", "pmi2", "none", NULL };

static const char *const top_keys[] = { "bench", "name", "description", "channel", "target", "stack", "runtime",
					"suites", "pricing", "variants", NULL };
static const char *const target_keys[] = { "vendor", "gpu", "nodes", "gpus_per_node", NULL };
static const char *const stack_keys[] = { "base", "components", "env_profiles", "env", "wheel_target", NULL };
static const char *const variant_keys[] = { "name", "env_profiles", "env", NULL };
static const char *const wheel_target_keys[] = { "python", "abi", "platform", "accelerator", NULL };
static const char *const component_keys[] = { "name", "pip", "date", "index", "git", "ref", "build", "apt",
					      "version", "path", "libs", NULL };
static const char *const runtime_keys[] = { "engine", "launcher", "timeout", "slurm", NULL };
static const char *const slurm_keys[] = { "partition", "time", "account", "container", "mpi", "extra_args", NULL };
static const char *const pricing_keys[] = { "usd_per_gpu_hour", "source", NULL };

#define MAX_NODES 4096
#define MAX_PER_NODE 1024

struct vctx {
	struct diag_list *d;
	const char *file;
	int errors;
};

static void verr(struct vctx *c, const struct ynode *at, const char *fmt, ...) BENCH_PRINTF(3, 4);
static void verr(struct vctx *c, const struct ynode *at, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	diag_add(c->d, c->file, at ? at->line : 1, at ? at->col : 1, "%s", sb.buf);
	strbuf_release(&sb);
	c->errors++;
}

static const struct ynode *get(const struct ynode *map, const char *key)
{
	return ynode_map_get(map, key);
}

static const struct ynode *get_key(const struct ynode *map, const char *key)
{
	for (size_t i = 0; map && map->type == YNODE_MAP && i < map->n; i++)
		if (!strcmp(map->pairs[i].key->value, key))
			return map->pairs[i].key;
	return NULL;
}

/* Reports unknown and duplicate keys of map. where: NULL at top level, else "in 'target'" and the like. */
static void check_keys(struct vctx *c, const struct ynode *map, const char *const *allowed, const char *where)
{
	for (size_t i = 0; i < map->n; i++) {
		const struct ynode *k = map->pairs[i].key;
		int known = 0;

		if (k->dup_of) {
			verr(c, k, "duplicate key '%s'%s%s (first at line %d)", k->value, where ? " " : "", where ? where : "",
			     k->dup_of->line);
			continue;
		}
		for (size_t j = 0; allowed[j]; j++)
			known |= !strcmp(allowed[j], k->value);
		if (!known) {
			const char *best = suggest_closest(k->value, allowed);

			if (best)
				verr(c, k, "unknown key '%s'%s%s (did you mean '%s'?)", k->value, where ? " " : "",
				     where ? where : "", best);
			else
				verr(c, k, "unknown key '%s'%s%s", k->value, where ? " " : "", where ? where : "");
		}
	}
}

static int want_map(struct vctx *c, const struct ynode *n, const char *label)
{
	if (n->type == YNODE_MAP)
		return 1;
	verr(c, n, "'%s' must be a mapping, got %s", label, ynode_type_name(n));
	return 0;
}

static int is_scalar(const struct ynode *n)
{
	return n && n->type == YNODE_SCALAR && !ynode_is_null(n);
}

/* The one rule for every string that can reach a recipe, a script or a command line: no control character
 * (docs/manifest-format.md, "Strings"). Returns 0, or -1 with the problem reported at n. */
static int control_check(struct vctx *c, const struct ynode *n, const char *label, int allow_text)
{
	int ch = ynode_control_char(n, allow_text);

	if (ch < 0)
		return 0;
	verr(c, n, "'%s' holds a control character (\\x%02x); strings here may not contain control characters%s", label,
	     ch, ch == '\n' ? " (a newline)" : "");
	return -1;
}

/* A string value; a null is refused unless nullable (then *out stays NULL). No control characters. */
static int string_of(struct vctx *c, const struct ynode *n, const char *label, char **out, int nullable)
{
	if (nullable && ynode_is_null(n))
		return 0;
	if (!is_scalar(n) || strlen(n->value) != n->len) {
		verr(c, n, "'%s' must be a string, got %s", label, ynode_type_name(n));
		return -1;
	}
	if (control_check(c, n, label, 0) < 0)
		return -1;
	*out = xstrdup(n->value);
	return 0;
}

static int enum_of(struct vctx *c, const struct ynode *n, const char *label, const char *const *names, int *out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *best = NULL;

	if (is_scalar(n)) {
		for (int i = 0; names[i]; i++) {
			if (!strcmp(names[i], n->value)) {
				*out = i;
				return 0;
			}
		}
		best = suggest_closest(n->value, names);
	}
	for (size_t i = 0; names[i]; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
	if (best)
		verr(c, n, "'%s' must be one of %s; got '%s' (did you mean '%s'?)", label, sb.buf, n->value, best);
	else if (is_scalar(n))
		verr(c, n, "'%s' must be one of %s; got '%s'", label, sb.buf, n->value);
	else
		verr(c, n, "'%s' must be one of %s; got %s", label, sb.buf, ynode_type_name(n));
	strbuf_release(&sb);
	return -1;
}

static int int_of(struct vctx *c, const struct ynode *n, const char *label, long long min, long long max,
		  long long *out)
{
	char *end;
	long long v;

	if (!is_scalar(n) || !n->plain || !(isdigit((unsigned char)n->value[0]) || n->value[0] == '-')) {
		verr(c, n, "'%s' must be an integer, got %s%s%s", label, is_scalar(n) ? "'" : "",
		     is_scalar(n) ? n->value : ynode_type_name(n), is_scalar(n) ? "'" : "");
		return -1;
	}
	v = strtoll(n->value, &end, 10);
	if (*end) {
		verr(c, n, "'%s' must be an integer, got '%s'", label, n->value);
		return -1;
	}
	if (v < min || v > max) {
		verr(c, n, "'%s' must be between %lld and %lld, got %lld", label, min, max, v);
		return -1;
	}
	*out = v;
	return 0;
}

static int name_ok(const char *s, int allow_upper)
{
	if (!*s || strlen(s) > 64)
		return 0;
	if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || (allow_upper && isupper((unsigned char)*s))))
		return 0;
	for (const char *p = s + 1; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '.' || *p == '_' || *p == '-' ||
		      (allow_upper && (isupper((unsigned char)*p) || *p == '+'))))
			return 0;
	return 1;
}

static int url_ok(const char *s, int git)
{
	static const char *const http[] = { "https://", "http://", "file:///", NULL };
	static const char *const gitp[] = { "https://", "http://", "ssh://", "git://", "file://", NULL };
	const char *const *pre = git ? gitp : http;

	for (size_t i = 0; pre[i]; i++)
		if (!strncmp(s, pre[i], strlen(pre[i])) && s[strlen(pre[i])] != '\0')
			return !strpbrk(s, " \t\r\n");
	/* scp-like git@host:path */
	if (git && strchr(s, '@') && strchr(s, ':') && strchr(s, '@') < strchr(s, ':'))
		return !strpbrk(s, " \t\r\n");
	return 0;
}

int manifest_date_ok(const char *s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, m, d;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return 0;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
			return 0;
	y = atoi(s);
	m = atoi(s + 5);
	d = atoi(s + 8);
	if (y < 2000 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return 0;
	if (m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 0;
	return 1;
}

/* Slurm --time: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes[:seconds]], or
 * UNLIMITED / INFINITE. */
static int slurm_time_ok(const char *s)
{
	const char *p = s, *dash = strchr(s, '-');
	int fields = 0, maxf = 3;

	if (!strcmp(s, "UNLIMITED") || !strcmp(s, "INFINITE"))
		return 1;
	if (dash) {
		if (dash == s)
			return 0;
		for (p = s; p < dash; p++)
			if (!isdigit((unsigned char)*p))
				return 0;
		p = dash + 1;
	}
	while (*p) {
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
		fields++;
		if (*p == ':')
			p++;
		else if (*p)
			return 0;
	}
	return fields >= 1 && fields <= maxf && s[strlen(s) - 1] != ':';
}

static void component_free_fields(struct component *c)
{
	free(c->name);
	free(c->pip);
	free(c->date);
	free(c->index);
	free(c->git);
	free(c->ref);
	for (size_t i = 0; i < c->nbuild; i++)
		free(c->build[i]);
	free(c->build);
	free(c->apt);
	free(c->version);
	free(c->path);
	for (size_t i = 0; i < c->nlibs; i++)
		free(c->libs[i]);
	free(c->libs);
}

/* The one source key of component n (pip, git, apt or path) as an enum source, or -1 after a diagnostic. */
static int component_source(struct vctx *c, const struct ynode *n, const char *label)
{
	int nsrc = 0, src = -1;

	for (int s = 0; source_names[s]; s++) {
		const struct ynode *k = get_key(n, source_names[s]);

		if (!k)
			continue;
		if (nsrc++ == 0)
			src = s;
		else
			verr(c, k, "component '%s' has both '%s' and '%s'; give one source", label, source_names[src],
			     source_names[s]);
	}
	if (nsrc == 0)
		verr(c, n, "component '%s' needs one source key: pip, git, apt or path", label);
	return src;
}

/* the keys that belong to another source than src */
static void component_check_other_keys(struct vctx *c, const struct ynode *n, int src, const char *label)
{
	static const char *const pip_only[] = { "date", "index", NULL };
	static const char *const git_only[] = { "ref", "build", NULL };
	static const char *const apt_only[] = { "version", NULL };
	static const char *const path_only[] = { "libs", NULL };
	static const char *const *const only[] = { pip_only, git_only, apt_only, path_only };

	for (int s = 0; source_names[s]; s++) {
		if (s == src)
			continue;
		for (size_t j = 0; only[s][j]; j++) {
			const struct ynode *k = get_key(n, only[s][j]);

			if (k)
				verr(c, k, "'%s' applies only to %s components (component '%s' is %s)", only[s][j],
				     source_names[s], label, source_names[src]);
		}
	}
}

/* pip: VERSION or nightly (with date and index) */
static void component_pip(struct vctx *c, const struct ynode *n, struct component *out, const char *label)
{
	const struct ynode *v;

	string_of(c, get(n, "pip"), "pip", &out->pip, 0);
	if ((v = get(n, "index")) && string_of(c, v, "index", &out->index, 0) == 0 && !url_ok(out->index, 0))
		verr(c, v, "'index' must be an http://, https:// or file:/// URL, got '%s'", out->index);
	if ((v = get(n, "date")) && string_of(c, v, "date", &out->date, 0) == 0 && !manifest_date_ok(out->date) &&
	    strcmp(out->date, "today") && strcmp(out->date, "latest"))
		verr(c, v, "'date' must be a date YYYY-MM-DD, 'today' or 'latest', got '%s'", out->date);
	if (out->pip && !strcmp(out->pip, "nightly")) {
		if (!out->date && !get(n, "date"))
			verr(c, n, "nightly component '%s' needs 'date: YYYY-MM-DD' (the nightly to pin), 'date: today' or "
			     "'date: latest' (resolved by 'bench lock')", label);
		if (!out->index && !get(n, "index"))
			verr(c, n, "nightly component '%s' needs 'index' (the nightly package index URL)", label);
	} else if ((v = get(n, "date"))) {
		verr(c, get_key(n, "date"), "'date' applies only to 'pip: nightly' (component '%s' pins %s)", label,
		     out->pip ? out->pip : "?");
	}
}

/* Appends the strings of list (or of the one scalar v, where one may stand for the list) to *out. */
static void string_list_of(struct vctx *c, const struct ynode *v, const char *key, char ***out, size_t *n)
{
	const struct ynode *const *items = v->type == YNODE_SEQ ? (const struct ynode *const *)v->items : &v;
	size_t count = v->type == YNODE_SEQ ? v->n : 1;

	*out = xcalloc(count ? count : 1, sizeof(**out));
	for (size_t i = 0; i < count; i++) {
		char *s = NULL;

		if (string_of(c, items[i], key, &s, 0) == 0)
			(*out)[(*n)++] = s;
	}
}

/* git: URL, ref, build (one command or a list of single-line commands, run in order) */
static void component_git(struct vctx *c, const struct ynode *n, struct component *out, const char *label)
{
	const struct ynode *v;

	if (string_of(c, get(n, "git"), "git", &out->git, 0) == 0 && !url_ok(out->git, 1))
		verr(c, get(n, "git"), "'git' must be a repository URL (https://, ssh://, git://, file:// or "
		     "user@host:path), got '%s'", out->git);
	if (!(v = get(n, "ref")))
		verr(c, n, "git component '%s' needs 'ref' (a branch, tag or commit)", label);
	else
		string_of(c, v, "ref", &out->ref, 0);
	if (!(v = get(n, "build")))
		return;
	if (v->type == YNODE_SEQ && v->n == 0)
		verr(c, v, "'build' of component '%s' is an empty list; give at least one command", label);
	string_list_of(c, v, "build", &out->build, &out->nbuild);
}

/* apt: PACKAGE, version */
static void component_apt(struct vctx *c, const struct ynode *n, struct component *out)
{
	const struct ynode *v;

	if (string_of(c, get(n, "apt"), "apt", &out->apt, 0) == 0 && !name_ok(out->apt, 0))
		verr(c, get(n, "apt"), "'apt' must be a Debian package name, got '%s'", out->apt);
	if ((v = get(n, "version")))
		string_of(c, v, "version", &out->version, 0);
}

/* path: an absolute prefix or library directory on the host, libs: the library file patterns it pins */
static void component_path(struct vctx *c, const struct ynode *n, struct component *out, const char *label)
{
	const struct ynode *v;

	if (string_of(c, get(n, "path"), "path", &out->path, 0) == 0 &&
	    (out->path[0] != '/' || strstr(out->path, "/../") || strpbrk(out->path, "\t\r\n:;")))
		verr(c, get(n, "path"), "'path' of component '%s' must be an absolute directory without ':', ';' or "
		     "'..' (a prefix such as /opt/spack/view, or a library directory), got '%s'", label, out->path);
	if ((v = get(n, "libs")) && v->type == YNODE_SEQ && v->n)
		string_list_of(c, v, "libs", &out->libs, &out->nlibs);
	else if (v)
		verr(c, v, "'libs' of component '%s' must be a non-empty list of library file patterns such as "
		     "[\"libcublasLt.so*\"]", label);
}

static void parse_component(struct vctx *c, const struct ynode *n, struct component *out, size_t idx)
{
	const struct ynode *v;
	char label[80];
	int src;

	out->line = n->line;
	out->col = n->col;
	if (n->type != YNODE_MAP) {
		verr(c, n, "component %zu must be a mapping such as {name: torch, pip: \"2.11.0\"}, got %s", idx + 1,
		     ynode_type_name(n));
		return;
	}
	check_keys(c, n, component_keys, "in a component");
	if (!(v = get(n, "name")))
		verr(c, n, "component %zu needs 'name'", idx + 1);
	else if (string_of(c, v, "name", &out->name, 0) == 0 && !name_ok(out->name, 1))
		verr(c, v, "component name '%s' must match [A-Za-z0-9][A-Za-z0-9._+-]* (at most 64 characters)", out->name);
	snprintf(label, sizeof(label), "%s", out->name ? out->name : "?");
	if ((src = component_source(c, n, label)) < 0)
		return;
	out->source = (enum source)src;
	component_check_other_keys(c, n, src, label);
	switch (out->source) {
	case SOURCE_PIP:
		component_pip(c, n, out, label);
		break;
	case SOURCE_GIT:
		component_git(c, n, out, label);
		break;
	case SOURCE_APT:
		component_apt(c, n, out);
		break;
	case SOURCE_PATH:
		component_path(c, n, out, label);
		break;
	}
}

/* Sets name=value in env: replaces an earlier value of name (a profile's, overridden), else appends. */
static void env_put(struct env_var **env, size_t *n, const char *name, const char *value)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*env)[i].name, name)) {
			free((*env)[i].value);
			(*env)[i].value = xstrdup(value);
			return;
		}
	*env = xrealloc(*env, (*n + 1) * sizeof(**env));
	(*env)[*n].name = xstrdup(name);
	(*env)[*n].value = xstrdup(value);
	(*n)++;
}

/* env_profiles: a profile name or a list of them; each profile's variables go into env in order. */
static void parse_profiles(struct vctx *c, const struct ynode *v, char ***names, size_t *nnames, struct env_var **env,
			   size_t *nenv)
{
	struct strvec known = STRVEC_INIT;
	const struct ynode *one[1] = { v };
	const struct ynode *const *items = one;
	size_t n = 1;

	if (ynode_is_null(v))
		return;
	if (v->type == YNODE_SEQ) {
		items = (const struct ynode *const *)v->items;
		n = v->n;
	}
	envprofile_names(&known);
	*names = xcalloc(n ? n : 1, sizeof(**names));
	for (size_t i = 0; i < n; i++) {
		struct env_profile p = ENV_PROFILE_INIT;
		char *name = NULL;
		int seen = 0, found = 0;

		if (string_of(c, items[i], "env_profiles", &name, 0) < 0)
			continue;
		for (size_t k = 0; k < known.n; k++)
			found |= !strcmp(known.v[k], name);
		for (size_t k = 0; k < *nnames; k++)
			seen |= !strcmp((*names)[k], name);
		if (seen) {
			verr(c, items[i], "env profile '%s' is listed twice", name);
		} else if (!found) {
			const char *best = suggest_closest(name, (const char *const *)strvec_argv(&known));
			struct strbuf all = STRBUF_INIT;

			for (size_t k = 0; k < known.n; k++)
				strbuf_addf(&all, "%s%s", k ? ", " : "", known.v[k]);
			if (best)
				verr(c, items[i], "unknown env profile '%s' (did you mean '%s'?)", name, best);
			else
				verr(c, items[i], "unknown env profile '%s'; images/profiles has %s", name,
				     known.n ? all.buf : "none");
			strbuf_release(&all);
		} else if (envprofile_load(&p, c->d, name) < 0) {
			c->errors++;
		} else {
			for (size_t k = 0; k < p.n; k++)
				env_put(env, nenv, p.names[k], p.values[k]);
			(*names)[(*nnames)++] = name;
			name = NULL;
		}
		envprofile_release(&p);
		free(name);
	}
	strvec_release(&known);
}

/* env: a mapping of variable names to strings, put into env over what is there (a profile's values). */
static void parse_env_map(struct vctx *c, const struct ynode *v, struct env_var **env, size_t *nenv)
{
	if (ynode_is_null(v) || !want_map(c, v, "env"))
		return;
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *k = v->pairs[i].key, *val = v->pairs[i].value;

		if (k->dup_of) {
			verr(c, k, "duplicate key '%s' in 'env' (first at line %d)", k->value, k->dup_of->line);
			continue;
		}
		if (!envprofile_var_name_ok(k->value)) {
			verr(c, k, "environment variable name '%s' must match [A-Za-z_][A-Za-z0-9_]*", k->value);
			continue;
		}
		if (val->type != YNODE_SCALAR || ynode_is_null(val) || strlen(val->value) != val->len) {
			verr(c, val, "env '%s' must be a string (write \"\" for an empty value), got %s", k->value,
			     ynode_type_name(val));
			continue;
		}
		if (control_check(c, val, k->value, 0) < 0)
			continue;
		env_put(env, nenv, k->value, val->value);
	}
}

/* "3.12" / "cp312" / "manylinux_2_28_x86_64" / "cu130": the shapes lock.c builds pip's options from */
static int wheel_field_ok(const char *key, const char *s)
{
	size_t n = strlen(s);

	if (!strcmp(key, "python"))
		return n >= 3 && n <= 5 && s[0] == '3' && s[1] == '.' && strspn(s + 2, "0123456789") == n - 2;
	if (!strcmp(key, "abi"))
		return n >= 3 && n <= 16 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
	if (!strcmp(key, "platform")) {
		const char *p;

		if (strncmp(s, "manylinux_2_", 12) || !isdigit((unsigned char)s[12]))
			return 0;
		for (p = s + 12; isdigit((unsigned char)*p); p++)
			;
		return *p == '_' && (!strcmp(p + 1, "x86_64") || !strcmp(p + 1, "aarch64") || !strcmp(p + 1, "ppc64le") ||
				     !strcmp(p + 1, "s390x"));
	}
	return n >= 1 && n <= 32 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789.") == n;
}

static void parse_wheel_target(struct vctx *c, const struct ynode *n, struct wheel_target *t)
{
	static const char *const hint[] = { "a version such as \"3.12\"", "an ABI tag such as cp312",
					    "a platform tag manylinux_2_<glibc minor>_<arch> such as manylinux_2_28_x86_64",
					    "a local version label such as cu130, rocm7.1 or cpu" };
	char **field[] = { &t->python, &t->abi, &t->platform, &t->accelerator };

	if (!want_map(c, n, "wheel_target"))
		return;
	check_keys(c, n, wheel_target_keys, "in 'stack.wheel_target'");
	t->line = n->line;
	t->col = n->col;
	for (int i = 0; wheel_target_keys[i]; i++) {
		const struct ynode *v = get(n, wheel_target_keys[i]);

		if (v && string_of(c, v, wheel_target_keys[i], field[i], 0) == 0 &&
		    !wheel_field_ok(wheel_target_keys[i], *field[i]))
			verr(c, v, "'%s' in 'stack.wheel_target' must be %s, got '%s'", wheel_target_keys[i], hint[i],
			     *field[i]);
	}
}

static void parse_stack(struct vctx *c, const struct ynode *n, struct manifest *m)
{
	const struct ynode *v;

	if (!want_map(c, n, "stack"))
		return;
	check_keys(c, n, stack_keys, "in 'stack'");
	if ((v = get(n, "base")) && string_of(c, v, "base", &m->stack.base, 0) == 0 &&
	    (strlen(m->stack.base) > 255 || strspn(m->stack.base, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						   "0123456789./:@_-") != strlen(m->stack.base)))
		verr(c, v, "'base' must be an image reference (letters, digits and . / : @ _ -), got '%s'", m->stack.base);
	if ((v = get(n, "components")) && !ynode_is_null(v)) {
		if (v->type != YNODE_SEQ) {
			verr(c, v, "'components' must be a list of components, got %s", ynode_type_name(v));
		} else {
			m->stack.components = xcalloc(v->n, sizeof(*m->stack.components));
			for (size_t i = 0; i < v->n; i++) {
				struct component *comp = &m->stack.components[m->stack.ncomponents++];

				parse_component(c, v->items[i], comp, i);
				for (size_t j = 0; comp->name && j + 1 < m->stack.ncomponents; j++)
					if (m->stack.components[j].name && !strcmp(m->stack.components[j].name, comp->name))
						verr(c, get(v->items[i], "name"), "component '%s' is listed twice (first at line %d)",
						     comp->name, m->stack.components[j].line);
			}
		}
	}
	if ((v = get(n, "wheel_target")))
		parse_wheel_target(c, v, &m->stack.wheel_target);
	/* the profiles first, then the manifest's own variables, which win */
	if ((v = get(n, "env_profiles")))
		parse_profiles(c, v, &m->stack.profiles, &m->stack.nprofiles, &m->stack.env, &m->stack.nenv);
	if ((v = get(n, "env")))
		parse_env_map(c, v, &m->stack.env, &m->stack.nenv);
}

#define MANIFEST_MAX_VARIANTS 256

static void parse_variants(struct vctx *c, const struct ynode *n, struct manifest *m)
{
	if (n->type != YNODE_SEQ || n->n == 0) {
		verr(c, n, "'variants' must be a non-empty list such as [{name: default}, {name: tuned, env_profiles: "
		     "[rocm-seed-tuning]}], got %s", n->type == YNODE_SEQ ? "an empty list" : ynode_type_name(n));
		return;
	}
	if (n->n > MANIFEST_MAX_VARIANTS) { /* each is a stack measured in full: more is a mistake, and the name check
					     * below compares pairs */
		verr(c, n, "'variants' lists %zu variants; a manifest may have at most %d (each is a stack measured in "
		     "full): split it into several manifests", n->n, MANIFEST_MAX_VARIANTS);
		return;
	}
	m->variants = xcalloc(n->n, sizeof(*m->variants));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *it = n->items[i], *v;
		struct env_variant *var = &m->variants[m->nvariants];

		if (it->type != YNODE_MAP) {
			verr(c, it, "variant %zu must be a mapping such as {name: tuned, env_profiles: [rocm-seed-tuning]}, "
			     "got %s", i + 1, ynode_type_name(it));
			continue;
		}
		m->nvariants++;
		var->line = it->line;
		var->col = it->col;
		check_keys(c, it, variant_keys, "in a variant");
		if (!(v = get(it, "name")))
			verr(c, it, "variant %zu needs 'name' (its stack is named <name>+<variant>)", i + 1);
		else if (string_of(c, v, "name", &var->name, 0) == 0 && !name_ok(var->name, 0))
			verr(c, v, "variant name '%s' must match [a-z0-9][a-z0-9._-]* (at most 64 characters)", var->name);
		else
			for (size_t j = 0; j + 1 < m->nvariants; j++)
				if (m->variants[j].name && !strcmp(m->variants[j].name, var->name))
					verr(c, v, "variant '%s' is listed twice (first at line %d)", var->name,
					     m->variants[j].line);
		if ((v = get(it, "env_profiles")))
			parse_profiles(c, v, &var->profiles, &var->nprofiles, &var->env, &var->nenv);
		if ((v = get(it, "env")))
			parse_env_map(c, v, &var->env, &var->nenv);
	}
}

int manifest_apply_variant(struct manifest *m, const char *vname)
{
	const struct env_variant *var = NULL;
	char *name;

	for (size_t i = 0; i < m->nvariants && !var; i++)
		if (m->variants[i].name && !strcmp(m->variants[i].name, vname))
			var = &m->variants[i];
	if (!var || m->variant)
		return bench_error_set(BENCH_E_USAGE, "'%s' has no variant '%s'", m->path ? m->path : m->name, vname);
	for (size_t i = 0; i < var->nenv; i++)
		env_put(&m->stack.env, &m->stack.nenv, var->env[i].name, var->env[i].value);
	name = xstrfmt("%s+%s", m->name, vname);
	free(m->name);
	m->name = name;
	m->variant = xstrdup(vname);
	return 0;
}

static int slurm_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-,", *s))
			return 0;
	return 1;
}

static void parse_slurm(struct vctx *c, const struct ynode *n, struct slurm_cfg *s)
{
	const struct ynode *v;
	int idx;

	if (ynode_is_null(n) || !want_map(c, n, "slurm"))
		return;
	check_keys(c, n, slurm_keys, "in 'runtime.slurm'");
	if ((v = get(n, "partition")) && string_of(c, v, "partition", &s->partition, 1) == 0 && s->partition &&
	    !slurm_name_ok(s->partition))
		verr(c, v, "'partition' must be a Slurm partition name (letters, digits, '_', '.', '-', ','), got '%s'",
		     s->partition);
	if ((v = get(n, "account")) && string_of(c, v, "account", &s->account, 1) == 0 && s->account &&
	    !slurm_name_ok(s->account))
		verr(c, v, "'account' must be a Slurm account name (letters, digits, '_', '.', '-'), got '%s'", s->account);
	if ((v = get(n, "time"))) {
		free(s->time);
		s->time = NULL;
		if (string_of(c, v, "time", &s->time, 0) == 0 && !slurm_time_ok(s->time))
			verr(c, v, "'time' must be a Slurm time limit such as 01:00:00, 90 or 1-12:00:00, got '%s'", s->time);
	}
	if ((v = get(n, "container")) && enum_of(c, v, "container", container_names, &idx) == 0) {
		free(s->container);
		s->container = xstrdup(container_names[idx]);
	}
	if ((v = get(n, "mpi")) && enum_of(c, v, "mpi", slurm_mpi_names, &idx) == 0) {
		free(s->mpi);
		s->mpi = xstrdup(slurm_mpi_names[idx]);
	}
	if ((v = get(n, "extra_args")) && !ynode_is_null(v)) {
		if (v->type != YNODE_SEQ) {
			verr(c, v, "'extra_args' must be a list of strings, got %s", ynode_type_name(v));
			return;
		}
		s->extra_args = xcalloc(v->n, sizeof(*s->extra_args));
		for (size_t i = 0; i < v->n; i++) {
			char *a = NULL;

			if (string_of(c, v->items[i], "extra_args entry", &a, 0) == 0)
				s->extra_args[s->n_extra_args++] = a;
		}
	}
}

static void parse_runtime(struct vctx *c, const struct ynode *n, struct manifest *m)
{
	const struct ynode *v;
	int idx;

	if (!want_map(c, n, "runtime"))
		return;
	check_keys(c, n, runtime_keys, "in 'runtime'");
	if ((v = get(n, "engine")) && enum_of(c, v, "engine", engine_names, &idx) == 0)
		m->runtime.engine = (enum engine)idx;
	else if (v)
		m->runtime.engine = ENGINE_HOST; /* already reported; do not pile a second error on it */
	if ((v = get(n, "launcher")) && enum_of(c, v, "launcher", launcher_names, &idx) == 0)
		m->runtime.launcher = (enum launcher)idx;
	if ((v = get(n, "timeout"))) {
		char why[160];
		uint64_t ns;

		if (!is_scalar(v))
			verr(c, v, "'timeout' must be a duration such as 30m, got %s", ynode_type_name(v));
		else if (units_parse_duration(&ns, v->value, why, sizeof(why)) < 0)
			verr(c, v, "'timeout': %s, got '%s'", why, v->value);
		else if (ns < 1000000000ull)
			verr(c, v, "'timeout' must be at least 1s, got '%s'", v->value);
		else
			m->runtime.timeout_ns = (long long)ns;
	}
	if ((v = get(n, "slurm")))
		parse_slurm(c, v, &m->runtime.slurm);
}

static void parse_target(struct vctx *c, const struct ynode *n, struct manifest *m, const struct ynode **gpu_node)
{
	const struct ynode *v;
	int idx;

	if (!want_map(c, n, "target"))
		return;
	check_keys(c, n, target_keys, "in 'target'");
	if (!(v = get(n, "vendor")))
		verr(c, n, "missing required key 'vendor' in 'target' (cuda, rocm or cpu)");
	else if (enum_of(c, v, "vendor", vendor_names, &idx) == 0)
		m->target.vendor = (enum vendor)idx;
	if ((v = get(n, "gpu")) && string_of(c, v, "gpu", &m->target.gpu, 1) == 0 && m->target.gpu)
		*gpu_node = v;
	if ((v = get(n, "nodes")))
		int_of(c, v, "nodes", 1, MAX_NODES, &m->target.nodes);
	if ((v = get(n, "gpus_per_node")))
		int_of(c, v, "gpus_per_node", 1, MAX_PER_NODE, &m->target.gpus_per_node);
}

static void check_gpu(struct vctx *c, const struct ynode *at, const struct manifest *m)
{
	struct diag_list pd = DIAG_LIST_INIT;
	struct peaks peaks = PEAKS_INIT;
	const struct peak *p;

	if (peaks_load(&peaks, &pd, NULL) < 0) {
		verr(c, at, "cannot check 'gpu': %s", pd.n ? pd.items[0].msg : bench_error_last());
		goto cleanup;
	}
	if (!(p = peaks_find(&peaks, m->target.gpu))) {
		const char **names = xcalloc(peaks.n + 1, sizeof(*names));
		const char *best;
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < peaks.n; i++) {
			names[i] = peaks.items[i].key;
			strbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
		}
		best = suggest_closest(m->target.gpu, names);
		if (best)
			verr(c, at, "unknown gpu '%s' (did you mean '%s'?)", m->target.gpu, best);
		else
			verr(c, at, "unknown gpu '%s'; images/bases/peaks.yaml knows %s", m->target.gpu, sb.buf);
		strbuf_release(&sb);
		free(names);
	} else if (strcmp(p->vendor, vendor_names[m->target.vendor])) {
		verr(c, at, "gpu '%s' is a %s device but target.vendor is '%s'", m->target.gpu, p->vendor,
		     vendor_names[m->target.vendor]);
	}
cleanup:
	peaks_release(&peaks);
	diag_list_release(&pd);
}

/* env_matrix: {NAME: [value, ...], ...}, each list non-empty and without repeats, the product of their lengths at
 * most SUITE_MAX_ENV_CELLS (docs/manifest-format.md, "Env matrix"). */
static void parse_env_matrix(struct vctx *c, const struct ynode *n, const struct suite_ops *ops, struct suite_cfg *cfg)
{
	size_t cells = 1;
	int more = 0;

	if (n->type != YNODE_MAP || n->n == 0) {
		verr(c, n, "'env_matrix' in suite '%s' must be a mapping of variable names to lists of values such as "
		     "{NCCL_ALGO: [Ring, Tree]}, got %s", ops->name, n->type == YNODE_MAP ? "an empty mapping" : ynode_type_name(n));
		return;
	}
	cfg->env_matrix = xcalloc(n->n, sizeof(*cfg->env_matrix));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->pairs[i].key, *v = n->pairs[i].value;
		struct env_axis *ax;

		if (k->dup_of) {
			verr(c, k, "duplicate key '%s' in 'env_matrix' (first at line %d)", k->value, k->dup_of->line);
			continue;
		}
		if (!envprofile_var_name_ok(k->value)) {
			verr(c, k, "environment variable name '%s' must match [A-Za-z_][A-Za-z0-9_]*", k->value);
			continue;
		}
		if (k->len > SUITE_MAX_ENV_NAME) {
			verr(c, k, "env_matrix name '%.32s...' is %zu bytes; at most %d (it is part of every case key)",
			     k->value, k->len, SUITE_MAX_ENV_NAME);
			continue;
		}
		if (v->type != YNODE_SEQ || v->n == 0) {
			verr(c, v, "env_matrix '%s' must be a non-empty list of strings such as [Ring, Tree], got %s", k->value,
			     v->type == YNODE_SEQ ? "an empty list" : ynode_type_name(v));
			continue;
		}
		/* past the cap the answer is known: stop before the values (a list of 100,000 would otherwise be scanned
		 * for repeats value by value) */
		cells = cells > ((size_t)1 << 40) / v->n ? ((size_t)1 << 40) + 1 : cells * v->n; /* saturating */
		if (cells > SUITE_MAX_ENV_CELLS) {
			more = i + 1 < n->n;
			break;
		}
		ax = &cfg->env_matrix[cfg->nenv_matrix++];
		ax->name = xstrdup(k->value);
		ax->values = xcalloc(v->n, sizeof(*ax->values));
		for (size_t j = 0; j < v->n; j++) {
			const struct ynode *it = v->items[j];
			size_t dup = 0;

			if (it->type != YNODE_SCALAR || ynode_is_null(it) || strlen(it->value) != it->len) {
				verr(c, it, "env_matrix '%s' value %zu must be a string (write \"\" for an empty value), got %s",
				     k->value, j + 1, ynode_type_name(it));
				continue;
			}
			if (control_check(c, it, k->value, 0) < 0) {
				continue;
			}
			if (it->len > SUITE_MAX_ENV_VALUE) {
				verr(c, it, "env_matrix '%s' value %zu is %zu bytes; at most %d (it is part of every case key)",
				     k->value, j + 1, it->len, SUITE_MAX_ENV_VALUE);
				continue;
			}
			for (dup = 0; dup < j; dup++)
				if (v->items[dup]->type == YNODE_SCALAR && !strcmp(v->items[dup]->value, it->value))
					break;
			if (dup < j) {
				verr(c, it, "env_matrix '%s' lists '%s' twice (first at line %d)", k->value, it->value,
				     v->items[dup]->line);
				continue;
			}
			ax->values[ax->nvalues++] = xstrdup(it->value);
		}
	}
	if (cells > SUITE_MAX_ENV_CELLS)
		verr(c, n, "'env_matrix' in suite '%s' expands to %s%zu cells; the limit is %d (split the sweep over "
		     "several manifests)", ops->name, cells > ((size_t)1 << 40) ? "more than " : more ? "at least " : "",
		     cells > ((size_t)1 << 40) ? ((size_t)1 << 40) : cells, SUITE_MAX_ENV_CELLS);
}

static void parse_suite(struct vctx *c, const struct ynode *key, const struct ynode *n, const struct suite_ops *ops,
			struct suite_cfg *cfg, const char *vendor)
{
	const char **names;
	size_t np = 0, before;
	char *where;

	cfg->ops = ops;
	cfg->line = key->line;
	cfg->col = key->col;
	for (np = 0; ops->params[np].name; np++)
		;
	cfg->values = xcalloc(np, sizeof(*cfg->values));
	cfg->nvalues = np;
	if (!ynode_is_null(n) && n->type != YNODE_MAP) {
		verr(c, n, "suite '%s' must be a mapping of parameters (or empty for the defaults), got %s", ops->name,
		     ynode_type_name(n));
		n = NULL;
	}
	if (n && !ynode_is_null(n)) {
		names = xcalloc(np + 2, sizeof(*names));
		for (size_t i = 0; i < np; i++)
			names[i] = ops->params[i].name;
		names[np] = "env_matrix"; /* any suite's: not a parameter of its runner */
		where = xstrfmt("in suite '%s'", ops->name);
		check_keys(c, n, names, where);
		free(where);
		free(names);
		if (get(n, "env_matrix"))
			parse_env_matrix(c, get(n, "env_matrix"), ops, cfg);
	}
	before = c->d->n;
	for (size_t i = 0; i < np; i++) {
		const struct ynode *v = n && !ynode_is_null(n) ? get(n, ops->params[i].name) : NULL;

		if (v) {
			if (param_parse(&cfg->values[i], &ops->params[i], v, c->d, c->file) < 0)
				c->errors++;
		} else if (param_default(&cfg->values[i], &ops->params[i], vendor) < 0) {
			verr(c, key, "%s", bench_error_last());
		}
	}
	cfg->bad = c->d->n > before;
}

static void parse_suites(struct vctx *c, const struct ynode *n, struct manifest *m)
{
	const char *vendor = vendor_names[m->target.vendor];
	size_t nreg = 0;
	struct suite_cfg *tmp;

	if (!want_map(c, n, "suites"))
		return;
	for (nreg = 0; suite_registry[nreg]; nreg++)
		;
	tmp = xcalloc(nreg, sizeof(*tmp));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *k = n->pairs[i].key;
		const struct suite_ops *ops = suite_find(k->value);
		size_t idx;

		if (k->dup_of) {
			verr(c, k, "duplicate suite '%s' (first at line %d)", k->value, k->dup_of->line);
			continue;
		}
		if (!ops) {
			const char *best = suggest_closest(k->value, suite_names());

			if (best)
				verr(c, k, "unknown suite '%s' (did you mean '%s'?)", k->value, best);
			else
				verr(c, k, "unknown suite '%s' (see 'bench suites')", k->value);
			continue;
		}
		for (idx = 0; suite_registry[idx] != ops; idx++)
			;
		parse_suite(c, k, n->pairs[i].value, ops, &tmp[idx], vendor);
	}
	m->suites = xcalloc(nreg, sizeof(*m->suites));
	for (size_t i = 0; i < nreg; i++)
		if (tmp[i].ops)
			m->suites[m->nsuites++] = tmp[i];
	free(tmp);
	if (m->nsuites == 0 && n->n == 0)
		verr(c, n, "'suites' is empty; name at least one suite (see 'bench suites')");
	/* cross-field rules, on every suite whose own parameters parsed */
	for (size_t i = 0; i < m->nsuites; i++) {
		struct suite_check sc = { c->d, c->file, &m->suites[i] };
		size_t before = c->d->n;

		if (!m->suites[i].ops->check || m->suites[i].bad)
			continue;
		m->suites[i].ops->check(&sc, m);
		c->errors += (int)(c->d->n - before);
	}
}

/* pricing: usd_per_gpu_hour (> 0) and where it comes from */
static void parse_pricing(struct vctx *c, const struct ynode *v, struct manifest *m)
{
	const struct ynode *p;
	char *end;

	check_keys(c, v, pricing_keys, "in 'pricing'");
	if ((p = get(v, "usd_per_gpu_hour"))) {
		double d = is_scalar(p) && p->plain ? strtod(p->value, &end) : -1;

		if (d <= 0 || (is_scalar(p) && *end))
			verr(c, p, "'usd_per_gpu_hour' must be a number greater than 0, got %s%s%s",
			     is_scalar(p) ? "'" : "", is_scalar(p) ? p->value : ynode_type_name(p),
			     is_scalar(p) ? "'" : "");
		else {
			m->has_pricing = 1;
			m->usd_per_gpu_hour = d;
		}
	}
	if ((p = get(v, "source")))
		string_of(c, p, "pricing.source", &m->pricing_source, 0);
	if (get(v, "source") && !get(v, "usd_per_gpu_hour"))
		verr(c, v, "'pricing' has a source but no 'usd_per_gpu_hour'");
}

/* what a stack on the host can and cannot be made of, and what an image needs */
static void check_engine_stack(struct vctx *c, const struct ynode *root, const struct manifest *m)
{
	for (size_t i = 0; i < m->stack.ncomponents; i++) {
		const struct component *cp = &m->stack.components[i];
		const struct ynode *cn = get(get(root, "stack"), "components");

		cn = cn && cn->type == YNODE_SEQ && i < cn->n ? cn->items[i] : root;
		if (!cp->name)
			continue;
		if (cp->source == SOURCE_PATH && m->runtime.engine != ENGINE_HOST)
			verr(c, cn, "component '%s' is a path on this machine, which only engine 'host' runs; an image's "
			     "components are pip, git or apt", cp->name);
		else if (cp->source == SOURCE_APT && m->runtime.engine == ENGINE_HOST)
			verr(c, cn, "component '%s' is an apt package, which only an image installs; on the host give the "
			     "installed package's directory as a path component (path: /usr/lib/x86_64-linux-gnu/...)", cp->name);
	}
	if (m->runtime.engine != ENGINE_HOST && !m->stack.base && !get(get(root, "stack"), "base")) {
		const struct ynode *at = get(get(root, "runtime"), "engine");

		verr(c, at ? at : root,
		     "engine '%s' needs 'stack.base' (the image to build on); engine 'host' runs on this machine's own stack",
		     engine_names[m->runtime.engine]);
	}
}

static void parse_root(struct vctx *c, const struct ynode *root, struct manifest *m)
{
	const struct ynode *v, *gpu_node = NULL;
	long long ver = 0;
	int idx;

	check_keys(c, root, top_keys, NULL);
	if (!(v = get(root, "bench"))) {
		verr(c, root, "missing required key 'bench' (the format version: write 'bench: 1' first)");
	} else if (int_of(c, v, "bench", 0, 1000000, &ver) == 0) {
		if (ver != MANIFEST_VERSION)
			verr(c, v, "unsupported manifest format 'bench: %lld' (this bench reads format 1)", ver);
		m->version = (int)ver;
	}
	if (!(v = get(root, "name")))
		verr(c, root, "missing required key 'name'");
	else if (string_of(c, v, "name", &m->name, 0) == 0 && !name_ok(m->name, 0))
		verr(c, v, "'name' must match [a-z0-9][a-z0-9._-]* (at most 64 characters), got '%s'", m->name);
	if ((v = get(root, "description")) && !ynode_is_null(v)) {
		/* prose: tabs and newlines allowed (it reaches no recipe, script or command line), other controls not */
		if (!is_scalar(v) || strlen(v->value) != v->len)
			verr(c, v, "'description' must be a string, got %s", ynode_type_name(v));
		else if (control_check(c, v, "description", 1) == 0)
			m->description = xstrdup(v->value);
	}
	if ((v = get(root, "channel")) && enum_of(c, v, "channel", channel_names, &idx) == 0)
		m->channel = (enum channel)idx;
	if (!(v = get(root, "target")))
		verr(c, root, "missing required key 'target' (at least 'target: {vendor: cuda}')");
	else
		parse_target(c, v, m, &gpu_node);
	if ((v = get(root, "stack")) && !ynode_is_null(v))
		parse_stack(c, v, m);
	if ((v = get(root, "variants")))
		parse_variants(c, v, m);
	if ((v = get(root, "runtime")) && !ynode_is_null(v))
		parse_runtime(c, v, m);
	if ((v = get(root, "pricing")) && !ynode_is_null(v) && want_map(c, v, "pricing"))
		parse_pricing(c, v, m);
	if (gpu_node)
		check_gpu(c, gpu_node, m);

	/* rules across sections */
	if (m->target.nodes > 1 && m->runtime.launcher == LAUNCHER_LOCAL)
		verr(c, get(get(root, "target"), "nodes"),
		     "target.nodes is %lld but launcher 'local' runs on one machine; use launcher mpirun or slurm",
		     m->target.nodes);
	check_engine_stack(c, root, m);

	if (!(v = get(root, "suites")))
		verr(c, root, "missing required key 'suites' (see 'bench suites' for what can run)");
	else if (ynode_is_null(v))
		verr(c, v, "'suites' is empty; name at least one suite (see 'bench suites')");
	else
		parse_suites(c, v, m);
}

static void manifest_defaults(struct manifest *m)
{
	m->version = MANIFEST_VERSION;
	m->channel = CHANNEL_CUSTOM;
	m->target.vendor = VENDOR_CUDA;
	m->target.nodes = 1;
	m->target.gpus_per_node = 1;
	m->runtime.engine = ENGINE_PODMAN;
	m->runtime.launcher = LAUNCHER_LOCAL;
	m->runtime.timeout_ns = 30LL * 60 * 1000000000LL;
	m->runtime.slurm.time = xstrdup("01:00:00");
	m->runtime.slurm.container = xstrdup("pyxis");
	m->runtime.slurm.mpi = xstrdup("pmix");
}

int manifest_parse_buffer(struct manifest *out, struct diag_list *diags, const char *file, const char *buf,
			  size_t len)
{
	struct vctx c = { diags, file, 0 };
	struct ynode *root = NULL;
	size_t before = diags->n;
	int err = 0;

	memset(out, 0, sizeof(*out));
	manifest_defaults(out);
	out->path = xstrdup(file);
	if (len > MANIFEST_MAX_BYTES) {
		diag_add(diags, file, 1, 1, "manifest is %zu bytes; the limit is 1 MiB", len);
		err = BENCH_E_MANIFEST;
		goto cleanup;
	}
	if ((err = ynode_load(&root, diags, file, buf, len)) < 0)
		goto cleanup;
	parse_root(&c, root, out);
	if (c.errors || diags->n > before)
		err = BENCH_E_MANIFEST;
cleanup:
	ynode_free(root);
	if (err < 0) {
		diag_list_sort(diags);
		manifest_release(out);
		bench_error_set(err, "'%s' is not a valid manifest", file);
	}
	return err;
}

int manifest_parse_file(struct manifest *out, struct diag_list *diags, const char *path)
{
	char *buf = NULL;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	err = fs_read_file(&buf, &len, path, MANIFEST_MAX_BYTES);
	if (err == BENCH_E_MANIFEST) {
		diag_add(diags, path, 1, 1, "manifest is larger than the 1 MiB limit");
		return err;
	}
	if (err < 0)
		return err;
	err = manifest_parse_buffer(out, diags, path, buf, len);
	free(buf);
	return err;
}

void manifest_release(struct manifest *m)
{
	free(m->path);
	free(m->name);
	free(m->description);
	free(m->pricing_source);
	free(m->target.gpu);
	free(m->stack.base);
	for (size_t i = 0; i < m->stack.ncomponents; i++)
		component_free_fields(&m->stack.components[i]);
	free(m->stack.components);
	for (size_t i = 0; i < m->stack.nenv; i++) {
		free(m->stack.env[i].name);
		free(m->stack.env[i].value);
	}
	free(m->stack.env);
	for (size_t i = 0; i < m->stack.nprofiles; i++)
		free(m->stack.profiles[i]);
	free(m->stack.profiles);
	for (size_t i = 0; i < m->nvariants; i++) {
		struct env_variant *var = &m->variants[i];

		free(var->name);
		for (size_t k = 0; k < var->nprofiles; k++)
			free(var->profiles[k]);
		free(var->profiles);
		for (size_t k = 0; k < var->nenv; k++) {
			free(var->env[k].name);
			free(var->env[k].value);
		}
		free(var->env);
	}
	free(m->variants);
	free(m->variant);
	free(m->stack.wheel_target.python);
	free(m->stack.wheel_target.abi);
	free(m->stack.wheel_target.platform);
	free(m->stack.wheel_target.accelerator);
	free(m->runtime.slurm.partition);
	free(m->runtime.slurm.time);
	free(m->runtime.slurm.account);
	free(m->runtime.slurm.container);
	free(m->runtime.slurm.mpi);
	for (size_t i = 0; i < m->runtime.slurm.n_extra_args; i++)
		free(m->runtime.slurm.extra_args[i]);
	free(m->runtime.slurm.extra_args);
	for (size_t i = 0; i < m->nsuites; i++)
		suite_cfg_release(&m->suites[i]);
	free(m->suites);
	memset(m, 0, sizeof(*m));
}

const struct suite_cfg *manifest_suite(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->nsuites; i++)
		if (!strcmp(m->suites[i].ops->name, name))
			return &m->suites[i];
	return NULL;
}
