/* SPDX-License-Identifier: Apache-2.0 */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "core/strbuf.h"

void plan_add(struct plan *p, const struct suite_ops *suite, char *key, json_t *params)
{
	if (p->n >= (p->cap ? p->cap : PLAN_MAX_CASES)) {
		free(key);
		json_decref(params);
		p->dropped++;
		return;
	}
	ALLOC_GROW(p->cases, p->n + 1, p->alloc);
	p->cases[p->n].suite = suite;
	p->cases[p->n].key = key;
	p->cases[p->n].params = params;
	p->n++;
}

/* The cases [first, n) once per cell of cfg's env_matrix, cell-major (the order the run measures them in): key
 * <key>/env:<label>, params with "env": {NAME: value}. */
static void plan_expand_env(struct plan *p, size_t first, const struct suite_cfg *cfg)
{
	size_t nbase = p->n - first, ncells = suite_env_cells(cfg), cap = p->cap ? p->cap : PLAN_MAX_CASES;
	struct plan_case *base;

	if (ncells && nbase > (cap - first) / ncells) { /* past the cap: counted, not generated (the message's figure) */
		for (size_t b = first; b < p->n; b++) {
			free(p->cases[b].key);
			json_decref(p->cases[b].params);
		}
		p->n = first;
		p->dropped += nbase * ncells; /* n + dropped: every case the manifest would plan so far */
		return;
	}
	base = xcalloc(nbase ? nbase : 1, sizeof(*base));
	memcpy(base, p->cases + first, nbase * sizeof(*base));
	p->n = first;
	for (size_t c = 0; c < ncells; c++) {
		struct strbuf label = STRBUF_INIT;
		json_t *env = suite_env_cell(cfg, c, &label);

		for (size_t b = 0; b < nbase; b++) {
			json_t *params = json_deep_copy(base[b].params);

			json_object_set(params, "env", env);
			plan_add(p, base[b].suite, xstrfmt("%s/env:%s", base[b].key, label.buf), params);
		}
		json_decref(env);
		strbuf_release(&label);
	}
	for (size_t b = 0; b < nbase; b++) {
		free(base[b].key);
		json_decref(base[b].params);
	}
	free(base);
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

json_t *plan_cases_json(const struct plan *p, const struct manifest *m, const struct suite_ops *s, const size_t *idx,
			size_t first, size_t n)
{
	json_t *cases = json_array();

	for (size_t k = 0; k < n; k++) {
		const struct plan_case *c = &p->cases[idx ? idx[k] : first + k];

		json_array_append_new(cases, json_pack("{s:s, s:s, s:O}", "suite", s->name, "case", c->key, "params",
						       c->params));
	}
	return json_pack("{s:s, s:s, s:I, s:o}", "schema", "bench.cases/v1", "suite", s->name, "ranks",
			 (json_int_t)(m->target.nodes * m->target.gpus_per_node), "cases", cases);
}

static int plan_count_bytes(const char *buf, size_t size, void *data)
{
	(void)buf;
	*(size_t *)data += size;
	return 0;
}

/* The bytes of j as run_write_json() writes it (cli/exec/run_dir.c): the same flags, and its final newline. */
static size_t plan_size_json(const json_t *j)
{
	size_t n = 1;

	json_dump_callback(j, plan_count_bytes, &n, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	return n;
}

/* msg (taken) as a diagnostic at path:line:col where diags collects them, and as the error */
static int plan_refuse_size(struct diag_list *diags, const char *path, int line, int col, char *msg)
{
	int err;

	if (diags)
		diag_add(diags, path, line, col, "%s", msg);
	err = bench_error_set(BENCH_E_MANIFEST, "%s:%d:%d: %s", path, line, col, msg);
	free(msg);
	return err;
}

/* Refuses a plan no bundle could hold (docs/manifest-format.md): plan.json, then each suite's cases/<suite>.json, over
 * the limit bench pack puts on a member of its kind. The cases file is plan_cases_json(), which the run writes with
 * the run directory's paths, plug-in digests and peaks (not known yet: a few hundred bytes); a suite split over
 * several runners or env cells writes several, each smaller. One serialisation of each, counted, never held. */
static int plan_check_size(const struct plan *p, const struct manifest *m, struct diag_list *diags)
{
	const char *path = m->path ? m->path : "manifest";
	json_t *doc = plan_json(p, m);
	uint64_t lim = bundle_pack_member_limit("plan.json");
	size_t size = plan_size_json(doc);
	int err = 0;

	json_decref(doc);
	if (size > lim)
		return plan_refuse_size(diags, path, 1, 1, xstrfmt("the plan of %zu cases takes %.1f MiB as plan.json, more "
								      "than the %llu MiB a bundle's plan.json may hold: split it "
								      "into several manifests", p->n, size / 1048576.0,
								      (unsigned long long)(lim >> 20)));
	for (size_t i = 0, j; i < p->n && !err; i = j) {
		const struct suite_ops *s = p->cases[i].suite;
		char *rel = xstrfmt("cases/%s.json", s->name);
		int line = 1, col = 1;

		for (j = i; j < p->n && p->cases[j].suite == s; j++)
			;
		doc = plan_cases_json(p, m, s, NULL, i, j - i);
		size = plan_size_json(doc);
		lim = bundle_pack_member_limit(rel);
		json_decref(doc);
		for (size_t k = 0; k < m->nsuites; k++)
			if (m->suites[k].ops == s)
				line = m->suites[k].line, col = m->suites[k].col;
		if (size > lim)
			err = plan_refuse_size(diags, path, line, col,
					       xstrfmt("suite '%s' takes %.1f MiB as %s (%zu cases), more than the %llu MiB a "
						       "bundle's %s may hold: split it into several manifests", s->name,
						       size / 1048576.0, rel, j - i, (unsigned long long)(lim >> 20), rel));
		free(rel);
	}
	return err;
}

int plan_build_diag(struct plan *out, const struct manifest *m, struct diag_list *diags)
{
	char **keys = NULL;
	int err = 0;

	size_t nv = m->nvariants ? m->nvariants : 1; /* each variant runs every case: the cap is on the product */

	memset(out, 0, sizeof(*out));
	out->cap = PLAN_MAX_CASES / nv;
	if (!out->cap) { /* more variants than the cap: not one case fits */
		if (diags)
			diag_add(diags, m->path, 1, 1, "the manifest's %zu variants take the plan past %d cases; a manifest "
				 "may plan at most %d (cases x variants): split it into several manifests", nv, PLAN_MAX_CASES,
				 PLAN_MAX_CASES);
		err = bench_error_set(BENCH_E_MANIFEST, "%s: the manifest's %zu variants take the plan past %d cases; a "
				      "manifest may plan at most %d (cases x variants): split it into several manifests",
				      m->path ? m->path : "manifest", nv, PLAN_MAX_CASES, PLAN_MAX_CASES);
		goto cleanup;
	}
	for (size_t i = 0; i < m->nsuites; i++) {
		size_t first = out->n, n;

		if ((err = m->suites[i].ops->plan(out, &m->suites[i], m)) < 0)
			goto cleanup;
		if (m->suites[i].nenv_matrix && !out->dropped)
			plan_expand_env(out, first, &m->suites[i]);
		if (out->dropped) {
			const char *fmt = "suite '%s' takes the plan past %d cases (%zu and more%s); a manifest may plan at "
					  "most %d: split it into several manifests";
			char *xv = nv > 1 ? xstrfmt(": %zu cases x %zu variants", out->n + out->dropped, nv) : xstrdup("");

			if (diags)
				diag_add(diags, m->path, m->suites[i].line, m->suites[i].col, fmt, m->suites[i].ops->name,
					 PLAN_MAX_CASES, (out->n + out->dropped) * nv, xv, PLAN_MAX_CASES);
			err = bench_error_set(BENCH_E_MANIFEST, "%s:%d:%d: suite '%s' takes the plan past %d cases (%zu and "
					      "more%s); a manifest may plan at most %d: split it into several manifests",
					      m->path ? m->path : "manifest", m->suites[i].line, m->suites[i].col,
					      m->suites[i].ops->name, PLAN_MAX_CASES, (out->n + out->dropped) * nv, xv,
					      PLAN_MAX_CASES);
			free(xv);
			goto cleanup;
		}
		/* keys are how compare matches cases: they must be unique within a suite (sorted: n log n) */
		n = out->n - first;
		keys = xrealloc(keys, (n ? n : 1) * sizeof(*keys));
		for (size_t a = 0; a < n; a++)
			keys[a] = out->cases[first + a].key;
		qsort(keys, n, sizeof(*keys), cmp_key);
		for (size_t a = 1; a < n; a++)
			if (!strcmp(keys[a - 1], keys[a])) {
				err = bench_error_set(BENCH_E_FAIL, "suite '%s' planned case '%s' twice", m->suites[i].ops->name,
						      keys[a]);
				goto cleanup;
			}
	}
	err = plan_check_size(out, m, diags);
cleanup:
	free(keys);
	if (err < 0)
		plan_release(out);
	return err;
}

int plan_build(struct plan *out, const struct manifest *m)
{
	return plan_build_diag(out, m, NULL);
}

json_t *plan_json(const struct plan *p, const struct manifest *m)
{
	json_t *root = json_object(), *cases = json_array(), *suites = json_object();

	json_object_set_new(root, "schema", json_string("bench.plan/v1"));
	json_object_set_new(root, "name", json_string(m->name));
	json_object_set_new(root, "channel", json_string(channel_names[m->channel]));
	json_object_set_new(root, "vendor", json_string(vendor_names[m->target.vendor]));
	json_object_set_new(root, "ranks", json_integer(m->target.nodes * m->target.gpus_per_node));
	if (m->variant) /* one variant's stack: what a resumed run applies again */
		json_object_set_new(root, "variant", json_string(m->variant));
	if (m->nvariants && !m->variant) { /* the stacks this plan runs as: one per variant, the same cases each */
		json_t *vs = json_array();

		for (size_t i = 0; i < m->nvariants; i++) {
			json_t *env = json_object(), *pr = json_array();
			char *stack = xstrfmt("%s+%s", m->name, m->variants[i].name);

			for (size_t k = 0; k < m->stack.nenv; k++)
				json_object_set_new(env, m->stack.env[k].name, json_string(m->stack.env[k].value));
			for (size_t k = 0; k < m->variants[i].nenv; k++)
				json_object_set_new(env, m->variants[i].env[k].name, json_string(m->variants[i].env[k].value));
			for (size_t k = 0; k < m->variants[i].nprofiles; k++)
				json_array_append_new(pr, json_string(m->variants[i].profiles[k]));
			json_array_append_new(vs, json_pack("{s:s, s:s, s:o, s:o}", "stack", stack, "variant", m->variants[i].name,
							    "env_profiles", pr, "env", env));
			free(stack);
		}
		json_object_set_new(root, "variants", vs);
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_case *c = &p->cases[i];
		json_t *count = json_object_get(suites, c->suite->name);

		json_array_append_new(cases, json_pack("{s:s, s:s, s:O}", "suite", c->suite->name, "case", c->key,
						       "params", c->params));
		json_object_set_new(suites, c->suite->name, json_integer(count ? json_integer_value(count) + 1 : 1));
	}
	json_object_set_new(root, "suites", suites);
	json_object_set_new(root, "cases", cases);
	return root;
}

void plan_keep_suites(struct plan *p, char *const *names, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < p->n; i++) {
		int keep = 0;

		for (size_t k = 0; k < n && !keep; k++)
			keep = !strcmp(p->cases[i].suite->name, names[k]);
		if (keep) {
			p->cases[w++] = p->cases[i];
		} else {
			free(p->cases[i].key);
			json_decref(p->cases[i].params);
		}
	}
	p->n = w;
}

void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->cases[i].key);
		json_decref(p->cases[i].params);
	}
	free(p->cases);
	memset(p, 0, sizeof(*p));
}

static int cmp_index_entry(const void *a, const void *b)
{
	const struct plan_index_entry *x = a, *y = b;
	int c = strcmp(x->suite, y->suite);

	return c ? c : strcmp(x->key, y->key);
}

void plan_index_build(struct plan_index *out, const struct plan *p)
{
	out->n = p->n;
	out->e = xcalloc(p->n ? p->n : 1, sizeof(*out->e));
	for (size_t i = 0; i < p->n; i++) {
		out->e[i].suite = p->cases[i].suite->name;
		out->e[i].key = p->cases[i].key;
		out->e[i].i = i;
	}
	qsort(out->e, out->n, sizeof(*out->e), cmp_index_entry);
}

long plan_index_find(const struct plan_index *ix, const char *suite, const char *key)
{
	struct plan_index_entry want = { suite, key, 0 };
	const struct plan_index_entry *hit;

	if (!ix->n || !suite || !key)
		return -1;
	hit = bsearch(&want, ix->e, ix->n, sizeof(*ix->e), cmp_index_entry);
	return hit ? (long)hit->i : -1;
}

void plan_index_release(struct plan_index *ix)
{
	free(ix->e);
	ix->e = NULL;
	ix->n = 0;
}
