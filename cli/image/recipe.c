/* SPDX-License-Identifier: Apache-2.0 */
#include "recipe.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strvec.h"
#include "manifest/ynode.h"
#include "version.h"

/* ---- IR --------------------------------------------------------------------------------------------------------- */

static struct recipe_instr *add(struct recipe *r, enum recipe_op op, const char *a, const char *b, const char *c)
{
	struct recipe_instr *i;

	ALLOC_GROW(r->v, r->n + 1, r->alloc);
	i = &r->v[r->n++];
	memset(i, 0, sizeof(*i));
	i->op = op;
	i->a = a ? xstrdup(a) : NULL;
	i->b = b ? xstrdup(b) : NULL;
	i->c = c ? xstrdup(c) : NULL;
	return i;
}

static void run(struct recipe *r, ...)
{
	struct recipe_instr *i = add(r, RECIPE_RUN, NULL, NULL, NULL);
	va_list ap;
	const char *s;

	va_start(ap, r);
	while ((s = va_arg(ap, const char *))) {
		i->argv = xrealloc(i->argv, (i->argc + 1) * sizeof(*i->argv));
		i->argv[i->argc++] = xstrdup(s);
	}
	va_end(ap);
}

static void run_argv(struct recipe *r, char *const *argv, size_t argc)
{
	struct recipe_instr *i = add(r, RECIPE_RUN, NULL, NULL, NULL);

	i->argv = xcalloc(argc, sizeof(*i->argv));
	for (size_t k = 0; k < argc; k++)
		i->argv[i->argc++] = xstrdup(argv[k]);
}

void recipe_release(struct recipe *r)
{
	for (size_t k = 0; k < r->n; k++) {
		free(r->v[k].a);
		free(r->v[k].b);
		free(r->v[k].c);
		for (size_t j = 0; j < r->v[k].argc; j++)
			free(r->v[k].argv[j]);
		free(r->v[k].argv);
	}
	free(r->v);
	free(r->header);
	memset(r, 0, sizeof(*r));
}

/* ---- validation of what reaches the recipe ------------------------------------------------------------------------ */

static int only(const char *s, const char *extra)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

static int hexn(const char *s, size_t n)
{
	return s && strlen(s) == n && only(s, "") && strspn(s, "0123456789abcdef") == n;
}

static int no_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return s != NULL;
}

/* ---- vendor data ------------------------------------------------------------------------------------------------- */

static int load_vendor(struct ynode **out, const char *vendor)
{
	struct diag_list d = DIAG_LIST_INIT;
	const char *dir = fs_data_dir();
	char *path, *buf = NULL;
	size_t len;
	int err;

	*out = NULL;
	if (!dir)
		return BENCH_E_IO;
	path = xstrfmt("%s/images/bases/%s.yaml", dir, vendor);
	if ((err = fs_read_file(&buf, &len, path, 1u << 20)) == 0 && (err = ynode_load(out, &d, path, buf, len)) < 0)
		err = bench_error_set(BENCH_E_MANIFEST, "%s: %s", path, d.n ? d.items[0].msg : "invalid");
	free(path);
	free(buf);
	diag_list_release(&d);
	return err;
}

/* One RUN that installs the vendor's build packages and the stack's pinned apt packages. */
static int apt_run(struct recipe *out, const struct ynode *vd, const struct manifest *m, json_t *comps)
{
	const struct ynode *bp = ynode_map_get(vd, "build_packages");
	char **argv = xcalloc(4, sizeof(*argv));
	size_t argc = 0;
	int err = 0;

	argv[argc++] = xstrdup("sh");
	argv[argc++] = xstrdup("-c");
	argv[argc++] = xstrdup("apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "
			       "--no-install-recommends \"$@\" && rm -rf /var/lib/apt/lists/*");
	argv[argc++] = xstrdup("sh");
	for (size_t i = 0; bp && bp->type == YNODE_SEQ && i < bp->n; i++) {
		argv = xrealloc(argv, (argc + 1) * sizeof(*argv));
		argv[argc++] = xstrdup(bp->items[i]->value);
	}
	for (size_t i = 0; i < m->stack.ncomponents; i++) {
		const struct component *c = &m->stack.components[i];
		const char *v = json_string_value(json_object_get(json_object_get(comps, c->name), "version"));

		if (c->source != SOURCE_APT)
			continue;
		if (!v || !only(v, ".+:~-_") || !only(c->apt, ".+-")) {
			err = bench_error_set(BENCH_E_MANIFEST, "the lock has no safe version for apt component '%s'", c->name);
			goto cleanup;
		}
		argv = xrealloc(argv, (argc + 1) * sizeof(*argv));
		argv[argc++] = xstrfmt("%s=%s", c->apt, v);
	}
	run_argv(out, argv, argc);
cleanup:
	for (size_t k = 0; k < argc; k++)
		free(argv[k]);
	free(argv);
	return err;
}

int recipe_run_flags(char ***out, size_t *n, const struct manifest *m, const char *engine)
{
	static const char *const vendors[] = { "cuda", "rocm", "cpu" };
	struct ynode *vd = NULL;
	const struct ynode *fl;
	int err;

	*out = NULL;
	*n = 0;
	if ((err = load_vendor(&vd, vendors[m->target.vendor])) < 0)
		return err;
	fl = ynode_map_get(ynode_map_get(vd, "run_flags"), engine);
	for (size_t i = 0; fl && fl->type == YNODE_SEQ && i < fl->n; i++) {
		if (fl->items[i]->type != YNODE_SCALAR)
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = xstrdup(fl->items[i]->value);
	}
	ynode_free(vd);
	return 0;
}

/* ---- the recipe ---------------------------------------------------------------------------------------------------- */

/* "/opt/stack/<name>/<sub>" for each git component in manifest order and each sub given (NULL ends them),
 * joined by ':'; NULL when the stack builds nothing from source (caller frees) */
static char *stack_dirs(const struct manifest *m, ...)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < m->stack.ncomponents; i++) {
		va_list ap;
		const char *sub;

		if (m->stack.components[i].source != SOURCE_GIT)
			continue;
		va_start(ap, m);
		while ((sub = va_arg(ap, const char *)))
			strbuf_addf(&sb, "%s/opt/stack/%s/%s", sb.len ? ":" : "", m->stack.components[i].name, sub);
		va_end(ap);
	}
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

static void stack_paths(struct recipe *out, const struct manifest *m)
{
	static const char default_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	char *d;

	if ((d = stack_dirs(m, "bin", NULL))) /* a base without PATH gets the usual one behind the stack's */
		add(out, RECIPE_ENV_PREPEND, "PATH", d, default_path);
	free(d);
	if ((d = stack_dirs(m, "lib", "lib64", NULL)))
		add(out, RECIPE_ENV_PREPEND, "LD_LIBRARY_PATH", d, NULL);
	free(d);
	if ((d = stack_dirs(m, "lib/pkgconfig", "lib64/pkgconfig", NULL)))
		add(out, RECIPE_ENV_PREPEND, "PKG_CONFIG_PATH", d, NULL);
	free(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp(((const struct env_var *)a)->name, ((const struct env_var *)b)->name);
}

/* What the stages of recipe_build() share. */
struct build_ctx {
	struct recipe *out;
	const struct manifest *m;
	const struct ynode *vd; /* images/bases/<vendor>.yaml */
	json_t *comps;          /* the lock's components */
	const char *from;       /* the base image, pinned by digest */
};

/* The base image as the lock pins it, NAME@sha256:...: the tag dropped, the name kept; the lock checked to be of
 * this manifest first. */
static int pinned_base(char **from, const struct manifest *m, const struct ynode *vd, json_t *lock,
		       const char *manifest_sha)
{
	const char *digest = json_string_value(json_object_get(json_object_get(lock, "base"), "digest"));
	const char *base = m->stack.base;
	char *s;

	if (!base)
		base = ynode_map_get(vd, "base") ? ynode_map_get(vd, "base")->value : NULL;
	if (!json_is_string(json_object_get(lock, "manifest_sha256")) ||
	    strcmp(json_string_value(json_object_get(lock, "manifest_sha256")), manifest_sha))
		return bench_error_set(BENCH_E_MANIFEST, "the lock is not of this manifest (its manifest_sha256 differs): run "
				       "'bench lock' again");
	if (!base || !only(base, "./:@_-") || !digest || strncmp(digest, "sha256:", 7) || !hexn(digest + 7, 64))
		return bench_error_set(BENCH_E_MANIFEST, "the lock pins no valid base image digest for '%s' (run 'bench lock' "
				       "where podman or skopeo can see the image)", base ? base : "(no base)");
	s = strchr(base, '@') ? xstrndup(base, (size_t)(strchr(base, '@') - base)) : xstrdup(base);
	if (strrchr(s, ':') && strrchr(s, ':') > strrchr(s, '/'))
		*strrchr(s, ':') = '\0';
	*from = xstrfmt("%s@%s", s, digest);
	free(s);
	return 0;
}

/* The build stage build-<i+1> of git component c: its snapshot unpacked in /src/<name>, its build commands run,
 * their install into /opt/stack/<name> checked. */
static int source_stage(struct build_ctx *x, const struct component *c, size_t i)
{
	struct recipe *out = x->out;
	const char *commit = json_string_value(json_object_get(json_object_get(x->comps, c->name), "commit"));
	char *s, *t;
	int err;

	if (!hexn(commit, 40))
		return bench_error_set(BENCH_E_MANIFEST, "the lock has no commit for git component '%s'", c->name);
	s = xstrfmt("build-%zu", i + 1);
	add(out, RECIPE_FROM, x->from, s, NULL);
	free(s);
	if ((err = apt_run(out, x->vd, x->m, x->comps)) < 0) /* the build stage has the same tools and pins */
		return err;
	s = xstrfmt("sources/%s-%s.tar.gz", c->name, commit);
	t = xstrfmt("/src/%s.tar.gz", c->name);
	add(out, RECIPE_COPY, s, t, NULL);
	free(s);
	free(t);
	s = xstrfmt("/opt/stack/%s", c->name);
	add(out, RECIPE_ENV, "BENCH_PREFIX", s, NULL);
	free(s);
	run(out, "sh", "-c", "mkdir -p \"/src/$1\" \"$BENCH_PREFIX\" && tar -xzf \"/src/$1.tar.gz\" -C \"/src/$1\" "
		"--strip-components=1", "sh", c->name, NULL);
	s = xstrfmt("/src/%s", c->name);
	add(out, RECIPE_WORKDIR, s, NULL, NULL);
	free(s);
	for (size_t b = 0; b < c->nbuild; b++) {
		if (!no_control(c->build[b]))
			return bench_error_set(BENCH_E_MANIFEST, "the build command of component '%s' holds a control "
					       "character; it cannot go into a recipe", c->name);
		run(out, "sh", "-c", c->build[b], NULL); /* the manifest's own build command, as one argument */
	}
	/* the contract: a build installs into its prefix. One that left it empty fails here, its reason on a line
	 * "bench: error: ..." that image_build() makes the error's message (the marker is put together by printf,
	 * so the command's own text, which engines echo, never holds it) */
	run(out, "sh", "-c", "find \"$BENCH_PREFIX\" ! -type d | grep -q . || { printf '%s: error: component "
	    "'\\''%s'\\'' installed nothing into %s: its build must install there (make install "
	    "PREFIX=\"$BENCH_PREFIX\", cmake --install . --prefix \"$BENCH_PREFIX\")\\n' bench \"$1\" "
	    "\"$BENCH_PREFIX\" >&2; exit 1; }", "sh", c->name, NULL);
	return 0;
}

/* env: the vendor's defaults, then the manifest's (which win); sorted */
static int image_env(struct build_ctx *x)
{
	const struct manifest *m = x->m;
	const struct ynode *venv = ynode_map_get(x->vd, "env");
	struct env_var *env = NULL;
	size_t nenv = 0;
	int err = 0;

	for (size_t i = 0; venv && venv->type == YNODE_MAP && i < venv->n; i++) {
		int overridden = 0;

		for (size_t k = 0; k < m->stack.nenv; k++)
			overridden |= !strcmp(m->stack.env[k].name, venv->pairs[i].key->value);
		if (overridden || !venv->pairs[i].value || venv->pairs[i].value->type != YNODE_SCALAR)
			continue;
		env = xrealloc(env, (nenv + 1) * sizeof(*env));
		env[nenv++] = (struct env_var){ venv->pairs[i].key->value, venv->pairs[i].value->value };
	}
	for (size_t k = 0; k < m->stack.nenv; k++) {
		env = xrealloc(env, (nenv + 1) * sizeof(*env));
		env[nenv++] = m->stack.env[k];
	}
	if (nenv)
		qsort(env, nenv, sizeof(*env), cmp_env);
	for (size_t k = 0; k < nenv; k++) {
		if (!no_control(env[k].value)) {
			err = bench_error_set(BENCH_E_MANIFEST, "env '%s' holds a control character; it cannot go into a recipe",
					      env[k].name);
			break;
		}
		add(x->out, RECIPE_ENV, env[k].name, env[k].value, NULL);
	}
	free(env);
	return err;
}

/* Adds pip component c's closure to all (normalised name -> {name, url, sha256, by}): one build of each package. */
static int pip_closure_add(json_t *all, const struct component *c, json_t *pkgs)
{
	json_t *pkg;
	size_t k;

	if (!json_array_size(pkgs))
		return bench_error_set(BENCH_E_MANIFEST, "the lock has no package closure for pip component '%s' (a lock "
				       "written before closures were locked): run 'bench lock' again", c->name);
	json_array_foreach(pkgs, k, pkg) {
		const char *name = json_string_value(json_object_get(pkg, "name"));
		const char *url = json_string_value(json_object_get(pkg, "url"));
		const char *sha = json_string_value(json_object_get(pkg, "sha256"));
		struct strbuf norm = STRBUF_INIT;
		json_t *prev;

		if (!name || !only(name, "._-") || !url || !no_control(url) || strpbrk(url, " \"'#") || !hexn(sha, 64))
			return bench_error_set(BENCH_E_MANIFEST, "the lock has no safe name, wheel URL and sha256 for package %zu "
					       "of pip component '%s'", k + 1, c->name);
		for (const char *q = name; *q; q++) /* PEP 503: one project however it is spelled */
			strbuf_addch(&norm, strchr("._-", *q) ? '-' : tolower((unsigned char)*q));
		prev = json_object_get(all, norm.buf);
		if (prev && strcmp(json_string_value(json_object_get(prev, "sha256")), sha)) {
			strbuf_release(&norm);
			return bench_error_set(BENCH_E_MANIFEST, "the lock pins %s twice, differently: for pip component '%s' "
					       "and for '%s'; run 'bench lock' again", name,
					       json_string_value(json_object_get(prev, "by")), c->name);
		}
		if (!prev)
			json_object_set_new(all, norm.buf, json_pack("{s:s, s:s, s:s, s:s}", "name", name, "url", url,
								     "sha256", sha, "by", c->name));
		strbuf_release(&norm);
	}
	return 0;
}

/* pip: exactly the locked wheels, by URL and sha256: the union of every pip component's closure (one build of each
 * package, in name order), installed without resolving anything more */
static int pip_install(struct build_ctx *x)
{
	const struct manifest *m = x->m;
	struct strvec av = STRVEC_INIT;
	json_t *all = json_object(), *pkg;
	const char **keys = NULL;
	size_t nk = 0;
	const char *key;
	int err = 0;

	for (size_t i = 0; i < m->stack.ncomponents && !err; i++)
		if (m->stack.components[i].source == SOURCE_PIP)
			err = pip_closure_add(all, &m->stack.components[i], json_object_get(json_object_get(x->comps,
					      m->stack.components[i].name), "packages"));
	if (err || !json_object_size(all))
		goto cleanup;
	strvec_push(&av, "sh");
	strvec_push(&av, "-c");
	strvec_push(&av, "printf '%s\\n' \"$@\" > /opt/bench-requirements.txt && python3 -m pip install --no-deps "
		    "--require-hashes --break-system-packages -r /opt/bench-requirements.txt");
	strvec_push(&av, "sh");
	keys = xcalloc(json_object_size(all), sizeof(*keys));
	json_object_foreach(all, key, pkg)
		keys[nk++] = key;
	qsort(keys, nk, sizeof(*keys), cmp_str);
	for (size_t k = 0; k < nk; k++) {
		pkg = json_object_get(all, keys[k]);
		strvec_pushf(&av, "%s @ %s --hash=sha256:%s", json_string_value(json_object_get(pkg, "name")),
			     json_string_value(json_object_get(pkg, "url")),
			     json_string_value(json_object_get(pkg, "sha256")));
	}
	run_argv(x->out, strvec_argv(&av), av.n);
cleanup:
	free(keys);
	json_decref(all);
	strvec_release(&av);
	return err;
}

/* what the source stages installed, and the dynamic loader's cache knows their libraries too (a process started
 * without the image's LD_LIBRARY_PATH still loads them before the base's copies): the conf file sorts before the
 * base's own */
static void stack_install(struct build_ctx *x)
{
	const struct manifest *m = x->m;
	struct strvec av = STRVEC_INIT;
	char *s;

	for (size_t i = 0; i < m->stack.ncomponents; i++) {
		char *stage, *p;

		if (m->stack.components[i].source != SOURCE_GIT)
			continue;
		stage = xstrfmt("build-%zu", i + 1);
		p = xstrfmt("/opt/stack/%s", m->stack.components[i].name);
		add(x->out, RECIPE_COPY, p, p, stage);
		free(stage);
		free(p);
	}
	if (!(s = stack_dirs(m, "lib", "lib64", NULL)))
		return;
	strvec_push(&av, "sh");
	strvec_push(&av, "-c");
	strvec_push(&av, "for d in \"$@\"; do if [ -d \"$d\" ]; then echo \"$d\"; fi; done "
		    "> /etc/ld.so.conf.d/000-bench-stack.conf && ldconfig");
	strvec_push(&av, "sh");
	for (char *tok = strtok(s, ":"); tok; tok = strtok(NULL, ":"))
		strvec_push(&av, tok);
	run_argv(x->out, strvec_argv(&av), av.n);
	strvec_release(&av);
	free(s);
}

/* the runners, built inside the image against the stack's own libraries */
static void runners(struct build_ctx *x)
{
	struct recipe *out = x->out;

	add(out, RECIPE_COPY, "bench", "/opt/bench", NULL);
	/* the HIP runners, whether or not hipcc is on PATH (docs/architecture.md) */
	if (x->m->target.vendor == VENDOR_ROCM)
		run(out, "make", "-C", "/opt/bench", "runners", "BENCH_HIP=1", NULL);
	else
		run(out, "make", "-C", "/opt/bench", "runners", NULL);
	add(out, RECIPE_ENV, "BENCH_DATA", "/opt/bench", NULL);
	add(out, RECIPE_ENV, "BENCH_RUNNERS", "/opt/bench/build/runners", NULL);
	add(out, RECIPE_WORKDIR, "/opt/bench", NULL, NULL);
}

int recipe_build(struct recipe *out, const struct manifest *m, json_t *lock, const char *manifest_sha, const char *lock_sha)
{
	static const char *const vendors[] = { "cuda", "rocm", "cpu" };
	struct build_ctx x = { .out = out, .m = m, .comps = json_object_get(lock, "components") };
	struct ynode *vd = NULL;
	char *from = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = load_vendor(&vd, vendors[m->target.vendor])) < 0)
		return err;
	x.vd = vd;
	if ((err = pinned_base(&from, m, vd, lock, manifest_sha)) < 0)
		goto cleanup;
	x.from = from;
	out->header = xstrfmt("generated by bench %s from manifest '%s' (sha256 %s), lock sha256 %s; do not edit",
			      BENCH_RELEASE, m->name, manifest_sha, lock_sha);
	/* source builds, one stage each, from the snapshot the build context carries */
	for (size_t i = 0; i < m->stack.ncomponents; i++)
		if (m->stack.components[i].source == SOURCE_GIT &&
		    (err = source_stage(&x, &m->stack.components[i], i)) < 0)
			goto cleanup;
	/* the image. Its steps go from what most stacks share to what only this manifest has, so that an engine
	 * that caches layers (podman, docker) builds a shared step once: apt right after FROM, the same step as in
	 * each source stage above; the labels, which name this manifest, last */
	add(out, RECIPE_FROM, from, NULL, NULL);
	/* apt: what the runners need to build, and the stack's pinned packages */
	if ((err = apt_run(out, vd, m, x.comps)) < 0)
		goto cleanup;
	/* the source components' prefixes: bin on PATH, lib and lib64 on LD_LIBRARY_PATH, their pkgconfig on
	 * PKG_CONFIG_PATH, in manifest order, in front of the base's own; before the env below, which can override */
	stack_paths(out, m);
	if ((err = image_env(&x)) < 0 || (err = pip_install(&x)) < 0)
		goto cleanup;
	stack_install(&x);
	runners(&x);
	add(out, RECIPE_LABEL, "org.bench.manifest.name", m->name, NULL);
	add(out, RECIPE_LABEL, "org.bench.manifest.sha256", manifest_sha, NULL);
	add(out, RECIPE_LABEL, "org.bench.lock.sha256", lock_sha, NULL);
	add(out, RECIPE_LABEL, "org.bench.channel", channel_names[m->channel], NULL);
cleanup:
	free(from);
	ynode_free(vd);
	if (err)
		recipe_release(out);
	return err;
}

/* ---- emitters ------------------------------------------------------------------------------------------------------- */

/* "value" for ENV and LABEL: \ " and $ escaped (Containerfiles expand $VAR in ENV and LABEL) */
static void cf_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '\\' || *s == '"' || *s == '$')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

/* The value of ENV_PREPEND, the same text in a Containerfile ENV and a shell export: "dirs${NAME:+:${NAME}}", or
 * "dirs:${NAME:-fallback}". Only bench writes it, from directory names recipe_check() holds to a plain set. */
static void prepend_value(struct strbuf *sb, const struct recipe_instr *i)
{
	if (i->c)
		strbuf_addf(sb, "\"%s:${%s:-%s}\"", i->b, i->a, i->c);
	else
		strbuf_addf(sb, "\"%s${%s:+:${%s}}\"", i->b, i->a, i->a);
}

/* What neither format can carry: a control character in any value of an instruction (a newline would end the
 * instruction and start another, or in an apptainer definition a new %section run on the build host). RUN
 * arguments are checked too: the apptainer emitter writes them shell-quoted on one line. */
static int recipe_check(const struct recipe *r)
{
	if (r->header && !no_control(r->header))
		return bench_error_set(BENCH_E_MANIFEST, "the recipe's header holds a control character; refusing to emit it");
	for (size_t k = 0; k < r->n; k++) {
		const struct recipe_instr *i = &r->v[k];
		const char *bad = NULL;

		if (i->a && !no_control(i->a))
			bad = i->a;
		else if (i->b && !no_control(i->b))
			bad = i->b;
		else if (i->c && !no_control(i->c))
			bad = i->c;
		for (size_t a = 0; !bad && a < i->argc; a++)
			if (!no_control(i->argv[a]))
				bad = i->argv[a];
		if (i->op == RECIPE_ENV_PREPEND && (!only(i->a, "_") || !only(i->b, "/._+:-") || (i->c && !only(i->c, "/._+:-"))))
			return bench_error_set(BENCH_E_MANIFEST, "instruction %zu of the recipe prepends to '%s' a value that "
					       "needs quoting; refusing to emit the recipe", k + 1, i->a);
		if (bad)
			return bench_error_set(BENCH_E_MANIFEST, "instruction %zu of the recipe holds a control character "
					       "('%.40s...'); a recipe line cannot carry it, refusing to emit the recipe",
					       k + 1, strpbrk(bad, "\n\r") ? "(multi-line value)" : bad);
	}
	return 0;
}

int recipe_emit_containerfile(struct strbuf *out, const struct recipe *r)
{
	int err;

	if ((err = recipe_check(r)) < 0)
		return err;
	strbuf_addf(out, "# %s\n", r->header);
	for (size_t k = 0; k < r->n; k++) {
		const struct recipe_instr *i = &r->v[k];

		switch (i->op) {
		case RECIPE_FROM:
			strbuf_addf(out, "\nFROM %s%s%s\n", i->a, i->b ? " AS " : "", i->b ? i->b : "");
			break;
		case RECIPE_LABEL:
		case RECIPE_ENV:
			strbuf_addf(out, "%s %s=", i->op == RECIPE_ENV ? "ENV" : "LABEL", i->a);
			cf_quote(out, i->b);
			strbuf_addch(out, '\n');
			break;
		case RECIPE_ENV_PREPEND:
			strbuf_addf(out, "ENV %s=", i->a);
			prepend_value(out, i);
			strbuf_addch(out, '\n');
			break;
		case RECIPE_RUN: {
			json_t *arr = json_array();
			char *j;

			for (size_t a = 0; a < i->argc; a++)
				json_array_append_new(arr, json_string(i->argv[a]));
			j = json_dumps(arr, JSON_COMPACT);
			strbuf_addf(out, "RUN %s\n", j);
			free(j);
			json_decref(arr);
			break;
		}
		case RECIPE_COPY:
			strbuf_addf(out, "COPY %s%s%s%s %s\n", i->c ? "--from=" : "", i->c ? i->c : "", i->c ? " " : "", i->a, i->b);
			break;
		case RECIPE_WORKDIR:
			strbuf_addf(out, "WORKDIR %s\n", i->a);
			break;
		}
	}
	return 0;
}

void recipe_sh_quote(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(out, "'\\''");
		else
			strbuf_addch(out, *s);
	}
	strbuf_addch(out, '\'');
}

/* Apptainer: one image; the source stages' steps run in %post, in order, in subshells. */
int recipe_emit_apptainer(struct strbuf *out, const struct recipe *r)
{
	struct strbuf env = STRBUF_INIT, labels = STRBUF_INIT, post = STRBUF_INIT, files = STRBUF_INIT;
	const char *from = NULL;
	int final = 0; /* past the last FROM: ENV there is the image's environment */
	int err;

	/* apptainer starts a new section at any line whose first word begins with '%': no value may hold a line break */
	if ((err = recipe_check(r)) < 0)
		return err;

	for (size_t k = 0; k < r->n; k++) {
		const struct recipe_instr *i = &r->v[k];

		switch (i->op) {
		case RECIPE_FROM:
			if (!i->b) {
				from = i->a;
				final = 1;
			}
			break;
		case RECIPE_LABEL:
			strbuf_addf(&labels, "    %s ", i->a);
			recipe_sh_quote(&labels, i->b);
			strbuf_addch(&labels, '\n');
			break;
		case RECIPE_ENV:
			if (final) {
				strbuf_addf(&env, "    export %s=", i->a);
				recipe_sh_quote(&env, i->b);
				strbuf_addch(&env, '\n');
			}
			strbuf_addf(&post, "    export %s=", i->a);
			recipe_sh_quote(&post, i->b);
			strbuf_addch(&post, '\n');
			break;
		case RECIPE_ENV_PREPEND:
			if (final) {
				strbuf_addf(&env, "    export %s=", i->a);
				prepend_value(&env, i);
				strbuf_addch(&env, '\n');
			}
			strbuf_addf(&post, "    export %s=", i->a);
			prepend_value(&post, i);
			strbuf_addch(&post, '\n');
			break;
		case RECIPE_RUN:
			strbuf_addstr(&post, "   ");
			for (size_t a = 0; a < i->argc; a++) {
				strbuf_addch(&post, ' ');
				recipe_sh_quote(&post, i->argv[a]);
			}
			strbuf_addch(&post, '\n');
			break;
		case RECIPE_COPY:
			if (!i->c)
				strbuf_addf(&files, "    %s %s\n", i->a, i->b);
			break;
		case RECIPE_WORKDIR:
			strbuf_addstr(&post, "    cd ");
			recipe_sh_quote(&post, i->a);
			strbuf_addch(&post, '\n');
			break;
		}
	}
	strbuf_addf(out, "# %s\nBootstrap: docker\nFrom: %s\n\n%%labels\n%s\n%%files\n%s\n%%environment\n%s\n%%post\n    set -e\n%s",
		    r->header, from ? from : "", labels.buf, files.buf, env.buf, post.buf);
	strbuf_release(&env);
	strbuf_release(&labels);
	strbuf_release(&post);
	strbuf_release(&files);
	return 0;
}
