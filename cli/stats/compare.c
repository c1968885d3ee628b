/* SPDX-License-Identifier: Apache-2.0 */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/escape.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "manifest/lock.h"
#include "manifest/suite.h"
#include "bundle/bundle.h"
#include "cost.h"
#include "bundle/sign.h"
#include "stats.h"

void compare_side_release(struct compare_side *s)
{
	free(s->path);
	free(s->label);
	free(s->run);
	free(s->keyid);
	json_decref(s->records);
	json_decref(s->env);
	json_decref(s->plan);
	json_decref(s->summary);
	json_decref(s->lock);
	json_decref(s->status);
	json_decref(s->pricing);
	json_decref(s->image);
	memset(s, 0, sizeof(*s));
}

const char *compare_case_reason(json_t *rec)
{
	const char *e = json_string_value(json_object_get(rec, "error"));

	return e && *e ? e : "no reason was recorded";
}

/* the index of string s in array a, appended when absent */
static size_t index_of(json_t *a, const char *s)
{
	size_t i;
	json_t *e;

	json_array_foreach(a, i, e)
		if (!strcmp(json_string_value(e), s))
			return i;
	json_array_append_new(a, json_string(s));
	return json_array_size(a) - 1;
}

json_t *compare_env_cells(json_t *cases)
{
	json_t *out = json_array(), *c;
	size_t i;

	json_array_foreach(cases, i, c) {
		const char *key = json_string_value(json_object_get(c, "case")), *suite = json_string_value(json_object_get(c, "suite"));
		const char *cut = NULL, *status = json_string_value(json_object_get(c, "status"));
		json_t *g = NULL, *e, *row, *vals, *v = json_object_get(c, "value");
		size_t k, ci, ri;
		char *base;

		for (const char *p = key; p && (p = strstr(p, "/env:")); p++) /* the last one: the cell comes last */
			cut = p;
		if (!cut || !suite)
			continue;
		json_array_foreach(out, k, e)
			if (!strcmp(json_string_value(json_object_get(e, "suite")), suite))
				g = e;
		if (!g) {
			g = json_pack("{s:s, s:[], s:[], s:[]}", "suite", suite, "cells", "rows", "cases");
			json_array_append_new(out, g);
		}
		if (!json_object_get(g, "unit") && json_is_string(json_object_get(c, "unit")))
			json_object_set(g, "unit", json_object_get(c, "unit"));
		ci = index_of(json_object_get(g, "cells"), cut + 5);
		base = xstrndup(key, (size_t)(cut - key));
		ri = index_of(json_object_get(g, "cases"), base);
		if (ri == json_array_size(json_object_get(g, "rows")))
			json_array_append_new(json_object_get(g, "rows"), json_pack("{s:s, s:[]}", "case", base, "values"));
		free(base);
		row = json_array_get(json_object_get(g, "rows"), ri);
		vals = json_object_get(row, "values");
		while (json_array_size(vals) <= ci)
			json_array_append_new(vals, json_null());
		if (status && !strcmp(status, "ok") && json_is_number(v))
			json_array_set(vals, ci, v);
	}
	json_array_foreach(out, i, c) { /* every row as wide as its suite's cells */
		size_t r;
		json_t *row;

		json_object_del(c, "cases");
		json_array_foreach(json_object_get(c, "rows"), r, row)
			while (json_array_size(json_object_get(row, "values")) < json_array_size(json_object_get(c, "cells")))
				json_array_append_new(json_object_get(row, "values"), json_null());
	}
	return out;
}

json_t *compare_run_health(json_t *status)
{
	static const char *const names[] = { "ok", "failed", "skipped", "interrupted", "pending" };
	json_int_t counts[5] = { 0 };
	const char *state = json_string_value(json_object_get(status, "state"));
	json_t *not_ok = json_array(), *c;
	size_t i;

	json_array_foreach(json_object_get(status, "cases"), i, c) {
		const char *st = json_string_value(json_object_get(c, "status"));
		size_t k;

		for (k = 0; k < 5 && (!st || strcmp(st, names[k])); k++)
			;
		if (k < 5)
			counts[k]++;
		if (k == 0)
			continue;
		json_array_append_new(not_ok, json_pack("{s:s, s:s, s:s, s:s}", "suite",
							json_string_value(json_object_get(c, "suite")) ? json_string_value(json_object_get(c, "suite")) : "?",
							"case", json_string_value(json_object_get(c, "case")) ? json_string_value(json_object_get(c, "case")) : "?",
							"status", st ? st : "unknown", "error",
							k == 4 && !json_string_value(json_object_get(c, "error"))
								? "not run: the run did not get to it" : compare_case_reason(c)));
	}
	return json_pack("{s:s, s:{s:I, s:I, s:I, s:I, s:I}, s:b, s:o}", "state", state ? state : "unknown", "counts", "ok",
			 counts[0], "failed", counts[1], "skipped", counts[2], "interrupted", counts[3], "pending", counts[4],
			 "incomplete", !state || !strcmp(state, "running") || !strcmp(state, "interrupted") || counts[4] > 0,
			 "not_ok", not_ok);
}

/* status.json's word on the cases that have no record, or a record without a reason (see compare.h) */
static void merge_status(struct compare_side *s)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(s->status, "cases"), i, c) {
		const char *suite = json_string_value(json_object_get(c, "suite")), *key = json_string_value(json_object_get(c, "case"));
		const char *st = json_string_value(json_object_get(c, "status"));
		char *k;
		json_t *rec;

		if (!suite || !key || !st || !strcmp(st, "ok") || !strcmp(st, "pending"))
			continue;
		k = xstrfmt("%s %s", suite, key);
		rec = json_object_get(s->records, k);
		if (!rec)
			json_object_set_new(s->records, k, json_pack("{s:s, s:s, s:s, s:s}", "suite", suite, "case", key, "status", st,
								     "error", compare_case_reason(c)));
		else if (strcmp(json_string_value(json_object_get(rec, "status")) ? json_string_value(json_object_get(rec, "status")) : "", "ok") &&
			 !json_string_value(json_object_get(rec, "error")) && json_string_value(json_object_get(c, "error")))
			json_object_set(rec, "error", json_object_get(c, "error"));
		free(k);
	}
}

static void add_record(json_t *records, const char *line, size_t len)
{
	json_t *r = json_loadb(line, len, 0, NULL);
	const char *key = json_string_value(json_object_get(r, "case"));
	const char *suite = json_string_value(json_object_get(r, "suite"));

	if (key && suite) {
		char *k = xstrfmt("%s %s", suite, key);

		json_object_set(records, k, r);
		free(k);
	}
	json_decref(r);
}

/* ---- one reading of a side: a sink for the bundle reader, fed by a run directory's files too -------------------- */

#define SIDE_MAX_JSON (16u << 20) /* plan.json, status.json, ...: as BUNDLE_MAX_MEMBER */
#define SIDE_MAX_LINE (4u << 20)  /* one result record */

struct side_sink {
	struct compare_side *s;
	json_t **json;       /* the member being read is this JSON document; NULL: results JSONL or the manifest */
	int yaml;            /* the member being read is manifest.yaml (its pricing is kept) */
	struct strbuf buf;   /* the JSON document, or the JSONL line so far */
};

static json_t **side_slot(struct compare_side *s, const char *rel)
{
	return !strcmp(rel, "plan.json") ? &s->plan : !strcmp(rel, "env/environment.json") ? &s->env :
	       !strcmp(rel, "summary.json") ? &s->summary : !strcmp(rel, "manifest.lock.json") ? &s->lock :
	       !strcmp(rel, "status.json") ? &s->status : !strcmp(rel, "image/image.json") ? &s->image : NULL;
}

static int side_results_member(const char *rel)
{
	for (size_t i = 0; suite_registry[i]; i++) {
		size_t l = strlen(suite_registry[i]->name);

		if (!strncmp(rel, "results/", 8) && !strncmp(rel + 8, suite_registry[i]->name, l) && !strcmp(rel + 8 + l, ".jsonl"))
			return 1;
	}
	return 0;
}

static int side_open(void *ctx, const char *rel, uint64_t size)
{
	struct side_sink *k = ctx;

	strbuf_reset(&k->buf);
	k->yaml = !strcmp(rel, "manifest.yaml");
	if ((k->json = side_slot(k->s, rel)) || k->yaml) {
		if (size > SIDE_MAX_JSON)
			return bench_error_set(BENCH_E_VERIFY, "'%s' is %llu bytes, over the %u bytes it may hold", rel,
					       (unsigned long long)size, SIDE_MAX_JSON);
		return 1;
	}
	return side_results_member(rel);
}

/* JSON documents are gathered whole (bounded above); results are parsed line by line as they stream, so memory
 * follows the records kept, never the member's size */
static int side_data(void *ctx, const char *rel, const void *buf, size_t len)
{
	struct side_sink *k = ctx;
	const char *p = buf, *end = len ? p + len : p; /* buf may be NULL at a member's end (len 0) */

	if (k->json || k->yaml) {
		if (len == 0 && k->yaml) {
			lock_sha256_hex(k->s->manifest_sha256, k->buf.buf ? k->buf.buf : "", k->buf.len);
			json_decref(k->s->pricing);
			k->s->pricing = cost_pricing_parse(k->buf.buf, k->buf.len);
			strbuf_reset(&k->buf);
		} else if (len == 0) {
			json_decref(*k->json);
			*k->json = json_loadb(k->buf.buf, k->buf.len, 0, NULL);
			strbuf_reset(&k->buf);
		} else if (k->buf.len + len > SIDE_MAX_JSON) {
			return bench_error_set(BENCH_E_VERIFY, "'%s' is over the %u bytes it may hold", rel, SIDE_MAX_JSON);
		} else {
			strbuf_add(&k->buf, buf, len);
		}
		return 0;
	}
	if (len == 0) {
		if (k->buf.len)
			add_record(k->s->records, k->buf.buf, k->buf.len);
		strbuf_reset(&k->buf);
		return 0;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (k->buf.len + l > SIDE_MAX_LINE)
			return bench_error_set(BENCH_E_VERIFY, "a line of '%s' is longer than %u bytes: not a result record", rel,
					       SIDE_MAX_LINE);
		if (nl && !k->buf.len) {
			add_record(k->s->records, p, l);
		} else {
			strbuf_add(&k->buf, p, l);
			if (nl) {
				add_record(k->s->records, k->buf.buf, k->buf.len);
				strbuf_reset(&k->buf);
			}
		}
		p += l + (nl != NULL);
	}
	return 0;
}

static void side_sink_init(struct side_sink *k, struct bundle_sink *sink, struct compare_side *s)
{
	memset(k, 0, sizeof(*k));
	k->s = s;
	k->buf = (struct strbuf)STRBUF_INIT;
	sink->open = side_open;
	sink->data = side_data;
	sink->ctx = k;
}

/* forgets what a failed reading gathered */
static void side_reset(struct compare_side *s)
{
	json_t **slots[] = { &s->plan, &s->env, &s->summary, &s->lock, &s->status, &s->image };

	for (size_t i = 0; i < sizeof(slots) / sizeof(*slots); i++) {
		json_decref(*slots[i]);
		*slots[i] = NULL;
	}
	json_decref(s->pricing);
	s->pricing = NULL;
	s->manifest_sha256[0] = '\0';
	json_object_clear(s->records);
}

/* a run directory's file through the same sink (streamed: a results file is never held whole); a file that
 * is not there is skipped, one that is there but is not a regular file (a FIFO, a device, a directory, a link to
 * one) or cannot be opened is an error naming it: BENCH_E_IO, exit 1 */
static int feed_file(struct bundle_sink *sink, const char *dir, const char *rel)
{
	uint64_t size;
	char *buf;
	ssize_t n;
	int fd, err, o;

	if ((err = bundle_dir_member_open(&fd, &size, dir, rel)) < 0 || fd < 0)
		return err; /* one that is not there is skipped; one that is there is read or named */
	if ((o = sink->open(sink->ctx, rel, size)) <= 0) {
		close(fd);
		return o;
	}
	buf = xmalloc(1u << 16);
	while (!err && (n = read(fd, buf, 1u << 16)) > 0)
		err = sink->data(sink->ctx, rel, buf, (size_t)n);
	if (!err && n < 0)
		err = bench_error_set(BENCH_E_IO, "cannot read '%s/%s': %s", dir, rel, strerror(errno));
	if (!err)
		err = sink->data(sink->ctx, rel, NULL, 0);
	free(buf);
	close(fd);
	return err;
}

static int load_dir(struct compare_side *s, const char *dir)
{
	static const char *const docs[] = { "plan.json", "env/environment.json", "summary.json", "manifest.lock.json",
					    "status.json", "manifest.yaml", "image/image.json" };
	struct side_sink k;
	struct bundle_sink sink;

	int err = 0;

	side_sink_init(&k, &sink, s);
	for (size_t i = 0; !err && i < sizeof(docs) / sizeof(*docs); i++)
		err = feed_file(&sink, dir, docs[i]);
	for (size_t i = 0; !err && suite_registry[i]; i++) {
		char *rel = xstrfmt("results/%s.jsonl", suite_registry[i]->name);

		err = feed_file(&sink, dir, rel);
		free(rel);
	}
	strbuf_release(&k.buf);
	if (err < 0)
		return err;
	if (!s->plan)
		return bench_error_set(BENCH_E_FAIL, "'%s' is not a run directory or a bundle (no plan.json)", dir);
	{
		const char *b = strrchr(dir, '/');

		s->label = xstrdup(b && b[1] ? b + 1 : dir);
	}
	return 0;
}

/* One reading of the bundle: verified and gathered in the same pass (what is shown is what verified); a bundle
 * that does not verify is read again, unverified, only with allow_unverified. */
static int load_bundle(struct compare_side *s, const char *path, const struct compare_opts *o)
{
	struct bundle_verify_result vr = BUNDLE_VERIFY_RESULT_INIT;
	struct bundle_limits lim;
	struct side_sink k;
	struct bundle_sink sink;
	int err;

	bundle_limits_default(&lim);
	side_sink_init(&k, &sink, s);
	err = bundle_verify_read(&vr, path, NULL, o->keys, sign_home(), &lim, &sink);
	if (err == 0) {
		s->verified = 1;
		s->keyid = xstrdup(vr.keyid);
		s->label = xstrdup(vr.run);
	} else if (!o->allow_unverified) {
		err = bench_error_set(BENCH_E_VERIFY, "'%s' does not verify (%s); pass --allow-unverified to compare it "
				      "anyway, marked as such", path, bench_error_last());
	} else {
		side_reset(s);
		strbuf_reset(&k.buf);
		bench_error_clear();
		err = bundle_read(&s->label, path, &sink);
	}
	bundle_verify_result_release(&vr);
	strbuf_release(&k.buf);
	return err;
}

/* a label is taken by an earlier side of that label, unless that side is the same run given by another path (its
 * directory and its bundle: one run, compare_group_runs() keeps one of them) */
static int label_taken(const struct compare_side *sides, size_t i, const char *l)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(sides[j].label, l) && (!strcmp(sides[j].path, sides[i].path) || strcmp(sides[j].label, sides[i].label)))
			return 1;
	return 0;
}

static void unique_labels(struct compare_side *sides, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		char *l = NULL;

		if (!label_taken(sides, i, sides[i].label))
			continue;
		for (unsigned k = 2; !l || label_taken(sides, i, l); k++) {
			free(l);
			l = xstrfmt("%s (%u)", sides[i].label, k);
		}
		free(sides[i].label);
		sides[i].label = l;
	}
}

int compare_load_all(struct compare_side **out, char *const *paths, size_t n, const struct compare_opts *o)
{
	struct compare_side *sides = xcalloc(n ? n : 1, sizeof(*sides));
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = compare_load(&sides[i], paths[i], o);
	if (err < 0) {
		compare_sides_free(sides, n);
		sides = NULL;
	} else {
		unique_labels(sides, n);
	}
	*out = sides;
	return err;
}

void compare_sides_free(struct compare_side *sides, size_t n)
{
	for (size_t i = 0; sides && i < n; i++)
		compare_side_release(&sides[i]);
	free(sides);
}

const char *compare_input_path(char **owned, const char *path, char *const *all, size_t n)
{
	static const char suffix[] = ".intoto.jsonl";
	size_t l = strlen(path), sl = sizeof(suffix) - 1;
	struct stat st;
	char *b;

	*owned = NULL;
	if (l <= sl || strcmp(path + l - sl, suffix))
		return path;
	b = xstrfmt("%.*s", (int)(l - sl), path);
	if (stat(b, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(b);
		return path;
	}
	for (size_t i = 0; i < n; i++)
		if (all[i] && !strcmp(all[i], b)) {
			free(b);
			return NULL;
		}
	*owned = b;
	return b;
}

int compare_load(struct compare_side *out, const char *path, const struct compare_opts *o)
{
	struct stat st;
	int err;

	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	out->records = json_object();
	if (stat(path, &st) < 0)
		err = bench_error_set(BENCH_E_IO, "cannot open '%s': no such run directory or bundle", path);
	else if (S_ISDIR(st.st_mode))
		err = load_dir(out, path);
	else
		err = load_bundle(out, path, o);
	if (err == 0) {
		char *l = esc_utf8(out->label); /* a directory named with any bytes: its label one a JSON string holds */

		free(out->label);
		out->label = l;
		merge_status(out);
		out->run = xstrdup(out->label);
	}
	if (err < 0)
		compare_side_release(out);
	return err;
}

static void flatten(json_t *out, const char *prefix, json_t *j, int depth)
{
	const char *k;
	json_t *v;

	if (!j || depth > 4)
		return;
	if (json_is_object(j)) {
		json_object_foreach(j, k, v) {
			char *p = *prefix ? xstrfmt("%s.%s", prefix, k) : xstrdup(k);

			flatten(out, p, v, depth + 1);
			free(p);
		}
	} else if (json_is_array(j)) {
		if (json_array_size(j))
			flatten(out, prefix, json_array_get(j, 0), depth + 1); /* the first GPU stands for all */
	} else {
		json_object_set(out, prefix, j);
	}
}

/* a fabric's facts under prefix: its physical network interfaces (virtual ones, bridges and veths of containers,
 * are in environment.json but no difference between machines), its RDMA devices and the GPU-GPU / GPU-NIC matrix */
static void fabric_facts(json_t *f, const char *prefix, json_t *fab)
{
	json_t *v;
	const char *k;
	char *p;

	json_object_foreach(json_object_get(fab, "net"), k, v)
		if (!strcmp(json_string_value(json_object_get(v, "kind")) ? json_string_value(json_object_get(v, "kind")) : "",
			    "physical")) {
			p = xstrfmt("%s.net.%s", prefix, k);
			flatten(f, p, v, 1);
			free(p);
		}
	p = xstrfmt("%s.infiniband", prefix);
	flatten(f, p, json_object_get(fab, "infiniband"), 0);
	free(p);
	p = xstrfmt("%s.gpu_topology", prefix);
	flatten(f, p, json_object_get(json_object_get(fab, "gpu_topology"), "matrix"), 0);
	free(p);
	p = xstrfmt("%s.gpu_topology.nics", prefix);
	flatten(f, p, json_object_get(json_object_get(fab, "gpu_topology"), "nics"), 1);
	free(p);
}

/* environment.json's "loaded" (what each runner's records said it loaded) as facts: loaded.<runner>.<soname> =
 * "version path" for a library (a host stack's: "version path sha256:<12 hex>") (two files of one soname joined by " | "), loaded.<runner>.<package> = its version */
static void loaded_facts(json_t *f, json_t *loaded)
{
	const char *prog;
	json_t *acc, *e;
	size_t i;

	json_object_foreach(loaded, prog, acc) {
		json_array_foreach(json_object_get(acc, "libraries"), i, e) {
			const char *so = json_string_value(json_object_get(e, "soname")), *path = json_string_value(json_object_get(e, "path"));
			const char *ver = json_string_value(json_object_get(e, "version")), *had;
			const char *sha = json_string_value(json_object_get(e, "sha256")); /* a host stack's library */
			char *k, *v;

			if (!so || !path)
				continue;
			k = xstrfmt("loaded.%s.%s", prog, so);
			v = xstrfmt("%s%s%s%s%.12s", ver ? ver : "", ver ? " " : "", path, sha ? " sha256:" : "", sha ? sha : "");
			if ((had = json_string_value(json_object_get(f, k)))) {
				char *both = xstrfmt("%s | %s", had, v);

				free(v);
				v = both;
			}
			json_object_set_new(f, k, json_string(v));
			free(k);
			free(v);
		}
		json_array_foreach(json_object_get(acc, "packages"), i, e) {
			const char *name = json_string_value(json_object_get(e, "name"));
			json_t *ver = json_object_get(e, "version");
			char *k;

			if (!name || !json_is_string(ver))
				continue;
			k = xstrfmt("loaded.%s.%s", prog, name);
			json_object_set(f, k, ver);
			free(k);
		}
	}
}

/* The libraries the runners loaded (loaded.*) lead the stack differences: the first thing to read when two stacks
 * differ is which library each side really ran. The order among the rest is kept. */
static void stack_loaded_first(json_t *stack)
{
	json_t *lib = json_array(), *rest = json_array(), *e;
	size_t i;

	json_array_foreach(stack, i, e)
		json_array_append(strncmp(json_string_value(json_object_get(e, "what")), "loaded.", 7) ? rest : lib, e);
	json_array_clear(stack);
	json_array_extend(stack, lib);
	json_array_extend(stack, rest);
	json_decref(lib);
	json_decref(rest);
}

json_t *compare_stack_facts(const struct compare_side *s)
{
	json_t *f = json_object(), *env = s->env;

	flatten(f, "gpu", json_object_get(env, "gpus"), 0);
	flatten(f, "toolkits", json_object_get(env, "toolkits"), 0);
	flatten(f, "runners", json_object_get(env, "runners"), 0);
	flatten(f, "host.os", json_object_get(json_object_get(env, "host"), "os"), 0);
	flatten(f, "host.kernel", json_object_get(json_object_get(env, "host"), "kernel"), 0);
	flatten(f, "host.cpu_model", json_object_get(json_object_get(env, "host"), "cpu_model"), 0);
	flatten(f, "env", json_object_get(env, "env"), 0);
	flatten(f, "channel", json_object_get(s->plan, "channel"), 0);
	/* what the command line changed in the measurement (bench run -k, --rep, --warmup): a method difference */
	flatten(f, "run.overrides", json_object_get(s->plan, "overrides"), 0);
	/* the pins of a --locked run: component versions, commits and wheel digests, the base image digest */
	flatten(f, "lock.components", json_object_get(s->lock, "components"), 0);
	flatten(f, "lock.base", json_object_get(s->lock, "base"), 0);
	/* a container run's image, by its immutable id */
	flatten(f, "image.digest", json_object_get(s->image, "digest"), 0);
	/* the fabric: physical network interfaces and RDMA devices (virtual ones, bridges and veths of containers, are
	 * in environment.json but no difference between machines), and the GPU-GPU / GPU-NIC matrix */
	{
		json_t *fab = json_object_get(env, "fabric"), *v;
		const char *k;
		size_t i = 0;

		fabric_facts(f, "fabric", fab);
		/* every node of a Slurm job, by its place in name order (two jobs rarely get the same node names) */
		json_object_foreach(json_object_get(fab, "nodes"), k, v) {
			char *p = xstrfmt("fabric.nodes.%zu", i++);

			fabric_facts(f, p, v);
			free(p);
		}
	}
	/* what the runners loaded: the libraries and packages that actually ran */
	loaded_facts(f, json_object_get(env, "loaded"));
	/* identities that differ by nature */
	json_object_del(f, "gpu.uuid");
	json_object_del(f, "gpu.pci_bus_id");
	json_object_del(f, "gpu.index");
	return f;
}

/* A plug-in case's implementation in one line (extra.plugin, docs/plugins.md): "NAME sha256 <first 12 hex>", or
 * NULL for a built-in's case or a plug-in whose digest is unknown. */
static char *plugin_brief(json_t *rec)
{
	json_t *pl = json_object_get(json_object_get(rec, "extra"), "plugin");
	const char *sha = json_string_value(json_object_get(pl, "sha256"));

	if (!sha)
		return NULL;
	return xstrfmt("%s sha256 %.12s", json_string_value(json_object_get(pl, "name")) ?
					  json_string_value(json_object_get(pl, "name")) : "?", sha);
}

/* What NCCL/RCCL's log says a case ran with (extra.ccl_effective, runners/common/ccllog.h), in one line: the
 * library and version, each collective's algorithm/protocol/channels, the coll channels, the transports, the
 * network, NVLS and CollNet. NULL when the record has none. New string. */
static char *ccl_brief(json_t *rec)
{
	json_t *eff = json_object_get(json_object_get(rec, "extra"), "ccl_effective"), *c, *ch;
	struct strbuf sb = STRBUF_INIT;
	const char *k;
	size_t i;

	if (!json_is_true(json_object_get(eff, "captured")))
		return NULL;
	strbuf_addf(&sb, "%s %s", json_string_value(json_object_get(eff, "library")) ? json_string_value(json_object_get(eff, "library")) : "?",
		    json_string_value(json_object_get(eff, "version")) ? json_string_value(json_object_get(eff, "version")) : "?");
	json_array_foreach(json_object_get(eff, "collectives"), i, c) {
		const char *proto = json_string_value(json_object_get(c, "protocol"));

		strbuf_addf(&sb, "; %s %s%s%s %lld channels", json_string_value(json_object_get(c, "op")),
			    json_string_value(json_object_get(c, "algorithm")), proto ? "/" : "", proto ? proto : "",
			    (long long)json_integer_value(json_object_get(c, "channels")));
	}
	if ((ch = json_object_get(json_object_get(eff, "channels"), "coll")))
		strbuf_addf(&sb, "; %lld coll channels", (long long)json_integer_value(ch));
	json_object_foreach(json_object_get(eff, "transports"), k, c)
		strbuf_addf(&sb, "; via %s", k);
	if (json_string_value(json_object_get(eff, "network")))
		strbuf_addf(&sb, "; network %s", json_string_value(json_object_get(eff, "network")));
	if (json_object_get(eff, "nvls"))
		strbuf_addf(&sb, "; NVLS %s", json_is_true(json_object_get(json_object_get(eff, "nvls"), "available")) &&
						 json_integer_value(json_object_get(json_object_get(eff, "channels"), "nvls")) > 0
					 ? "on" : "off");
	if (json_string_value(json_object_get(eff, "collnet")))
		strbuf_addf(&sb, "; CollNet %s", json_string_value(json_object_get(eff, "collnet")));
	return strbuf_detach(&sb);
}

/* Adds to method a row for case key when brief() of the baseline's record bref and of label's record orec differ
 * (what names the brief: "ccl_effective", "plugin"); nothing when either has none. */
static void method_add_brief(json_t *method, const char *key, const char *label, const char *what,
			     char *(*brief)(json_t *rec), json_t *bref, json_t *orec)
{
	char *bb = brief(bref), *ob = brief(orec);

	if (bb && ob && strcmp(bb, ob))
		json_array_append_new(method, json_pack("{s:s, s:s, s:s, s:s, s:s}", "case", key, "label", label, "what",
							what, "baseline_effective", bb, "effective", ob));
	free(bb);
	free(ob);
}

static int status_ok(json_t *rec)
{
	const char *s = json_string_value(json_object_get(rec, "status"));

	return s && !strcmp(s, "ok");
}

static const char *status_of(json_t *rec)
{
	const char *s = json_string_value(json_object_get(rec, "status"));

	return s ? s : "unknown";
}

/* ---- groups of runs -------------------------------------------------------------------------------------- */

static char *group_label(const struct compare_side *sides, const size_t *runs, size_t nruns)
{
	const char *name = json_string_value(json_object_get(sides[runs[0]].plan, "name"));

	if (nruns == 1)
		return xstrdup(sides[runs[0]].label);
	return xstrfmt("%s (%zu runs)", name ? name : sides[runs[0]].label, nruns);
}

static int group_label_taken(const struct compare_group *g, size_t i, const char *l)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(g[j].label, l))
			return 1;
	return 0;
}

static int same_run(const struct compare_side *a, const struct compare_side *b)
{
	return a->run && b->run && !strcmp(a->run, b->run);
}

/* a run given again within a group counts once, in the place it was first given, in its verified form if any */
static void group_dedupe(struct compare_group *g, const struct compare_side *sides)
{
	size_t kept = 0;

	for (size_t i = 0; i < g->nruns; i++) {
		size_t j;

		for (j = 0; j < kept; j++)
			if (same_run(&sides[g->runs[j]], &sides[g->runs[i]]))
				break;
		if (j == kept)
			g->runs[kept++] = g->runs[i];
		else if (sides[g->runs[i]].verified && !sides[g->runs[j]].verified)
			g->runs[j] = g->runs[i];
	}
	g->nruns = kept;
}

struct compare_group *compare_group_runs(size_t *nout, const struct compare_side *sides, size_t n,
					 const size_t *starts, size_t nstarts)
{
	struct compare_group *g = xcalloc(n ? n : 1, sizeof(*g));
	size_t ng = 0;

	if (nstarts) {
		for (size_t k = 0; k < nstarts; k++) {
			size_t end = k + 1 < nstarts ? starts[k + 1] : n;

			g[ng].runs = xcalloc(end - starts[k] + 1, sizeof(size_t));
			for (size_t i = starts[k]; i < end; i++)
				g[ng].runs[g[ng].nruns++] = i;
			ng++;
		}
	} else {
		size_t *of = xcalloc(n ? n : 1, sizeof(*of)); /* run i's group + 1, 0: none yet */

		for (size_t i = 0; i < n; i++) {
			json_t *il = json_object_get(sides[i].status, "interleave");
			const char *grp = json_string_value(json_object_get(il, "group"));
			json_int_t stack = json_integer_value(json_object_get(il, "stack"));

			if (of[i])
				continue;
			g[ng].runs = xcalloc(n, sizeof(size_t));
			g[ng].runs[g[ng].nruns++] = i;
			of[i] = ng + 1;
			for (size_t j = i + 1; grp && j < n; j++) {
				json_t *jl = json_object_get(sides[j].status, "interleave");
				const char *jg = json_string_value(json_object_get(jl, "group"));

				if (!of[j] && jg && !strcmp(jg, grp) && json_integer_value(json_object_get(jl, "stack")) == stack) {
					g[ng].runs[g[ng].nruns++] = j;
					of[j] = ng + 1;
				}
			}
			ng++;
		}
		free(of);
	}
	for (size_t k = 0; k < ng; k++)
		group_dedupe(&g[k], sides);
	if (!nstarts) /* a run given by two paths (its directory, its bundle) is one side */
		for (size_t k = 0; k < ng; k++)
			for (size_t j = 0; j < k; j++)
				if (g[k].nruns == 1 && g[j].nruns == 1 && same_run(&sides[g[j].runs[0]], &sides[g[k].runs[0]]) &&
				    strcmp(sides[g[j].runs[0]].path, sides[g[k].runs[0]].path)) {
					if (sides[g[k].runs[0]].verified && !sides[g[j].runs[0]].verified)
						g[j].runs[0] = g[k].runs[0];
					free(g[k].runs);
					memmove(&g[k], &g[k + 1], (ng - k - 1) * sizeof(*g));
					ng--;
					k--;
					break;
				}
	for (size_t k = 0; k < ng; k++) {
		char *l = group_label(sides, g[k].runs, g[k].nruns);

		for (unsigned d = 2; group_label_taken(g, k, l); d++) {
			free(l);
			l = group_label(sides, g[k].runs, g[k].nruns);
			{
				char *m = xstrfmt("%s (%u)", l, d);

				free(l);
				l = m;
			}
		}
		g[k].label = l;
	}
	*nout = ng;
	return g;
}

void compare_groups_free(struct compare_group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++) {
		free(g[i].label);
		free(g[i].runs);
	}
	free(g);
}

/* ---- one case on one side: its runs' samples ------------------------------------------------------------- */

/* The runs of a group that measured a case. Every headline metric is a throughput (a higher value is better)
 * proportional to 1 / time for a given case, so a sample's metric is taken as 1 / its time: ratios, medians and
 * the test are those of the metric (for an even number of samples the median of the metric is not 1 / the
 * median time). */
struct gcase {
	json_t *ref;    /* the first record of the case in the group, ok if any is (borrowed), NULL: none */
	size_t nok;     /* runs with an ok record and at least one sample */
	size_t total;   /* samples over those runs */
	size_t minrun;  /* the fewest samples of one of those runs */
	double **s;     /* [nok] each run's metric samples */
	size_t *n;
	size_t *run;    /* [nok] each one's index among the group's runs */
	double *lm;     /* [nok] the log of each one's median */
	double lmean;   /* their mean */
	double value;   /* the median of the ok runs' recorded values */
};

static void gcase_load(struct gcase *g, const struct compare_side *sides, const struct compare_group *grp, const char *key)
{
	double *vals = xcalloc(grp->nruns, sizeof(double)), var;
	size_t nv = 0;

	memset(g, 0, sizeof(*g));
	g->s = xcalloc(grp->nruns, sizeof(*g->s));
	g->n = xcalloc(grp->nruns, sizeof(*g->n));
	g->run = xcalloc(grp->nruns, sizeof(*g->run));
	g->lm = xcalloc(grp->nruns, sizeof(*g->lm));
	g->minrun = (size_t)-1;
	for (size_t r = 0; r < grp->nruns; r++) {
		json_t *rec = json_object_get(sides[grp->runs[r]].records, key), *arr, *v;
		size_t i, m = 0;

		if (!rec)
			continue;
		if (!g->ref || (!status_ok(g->ref) && status_ok(rec)))
			g->ref = rec;
		if (!status_ok(rec))
			continue;
		if (json_is_number(json_object_get(rec, "value")))
			vals[nv++] = json_number_value(json_object_get(rec, "value"));
		arr = json_object_get(rec, "samples_ms");
		if (!json_array_size(arr))
			continue;
		g->s[g->nok] = xcalloc(json_array_size(arr), sizeof(double));
		json_array_foreach(arr, i, v)
			if (json_number_value(v) > 0)
				g->s[g->nok][m++] = 1.0 / json_number_value(v);
		if (!m) {
			free(g->s[g->nok]);
			continue;
		}
		g->run[g->nok] = r;
		g->lm[g->nok] = log(stats_median(g->s[g->nok], m));
		g->n[g->nok++] = m;
		g->total += m;
		if (m < g->minrun)
			g->minrun = m;
	}
	g->value = nv ? stats_median(vals, nv) : NAN;
	g->lmean = NAN;
	if (g->nok)
		stats_mean_var(&g->lmean, &var, g->lm, g->nok);
	if (!g->nok)
		g->minrun = 0;
	free(vals);
}

static void gcase_release(struct gcase *g)
{
	for (size_t i = 0; i < g->nok; i++)
		free(g->s[i]);
	free(g->s);
	free(g->n);
	free(g->run);
	free(g->lm);
	memset(g, 0, sizeof(*g));
}

static double gcase_stat(const struct gcase *g)
{
	return stats_median_of_medians((const double *const *)g->s, g->n, g->nok);
}

/* ---- the noise floor of an A/A pair ---------------------------------------------------------------------- */

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* The share of a suite's cases whose |log ratio| of an A/A pair exceeds x, each case's log ratio N(0, v[c]). */
static double noise_exceed(double x, const double *v, size_t m)
{
	double e = 0;

	for (size_t c = 0; c < m; c++)
		e += v[c] > 0 ? erfc(x / sqrt(2 * v[c])) / (double)m : 0;
	return e;
}

/* The 95th percentile over a suite's cases of |ratio - 1| of an A/A pair of these run counts, under the run-effect
 * model with the run effect's variance sg2: x with a 5% share of cases beyond it, as |ratio - 1|. */
static double noise_model_floor(double sg2, const double *own, const double *k, size_t m)
{
	double *v = xcalloc(m + 1, sizeof(double)), lo = 0, hi = 1;

	for (size_t c = 0; c < m; c++)
		v[c] = (sg2 + own[c]) * k[c];
	while (noise_exceed(hi, v, m) > 0.05 && hi < 100)
		hi *= 2;
	for (int it = 0; it < 100; it++) {
		double mid = (lo + hi) / 2;

		if (noise_exceed(mid, v, m) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	free(v);
	return expm1((lo + hi) / 2);
}

/* The noise floor of one suite from the run-effect model (issue 32): the suite's cases measured on 2 runs or more on
 * both sides of the A/A pair; each run's effect the mean of its cases' deviations from their means, its variance on
 * (runs a - 1) + (runs b - 1) degrees of freedom; each case's own variance beyond it, moderated over the suite; the
 * floor is the 95th percentile of |ratio - 1| over the cases that model gives an A/A pair of these run counts, and
 * its 95% interval that of the run effect's variance (its estimate over chi2(df) / df; the own variances, on many
 * more degrees of freedom, taken as known). NULL with fewer than 3 such cases. */
/* the sum of squares of a case's runs' log medians on both sides (ga, gb) beyond their runs' effects (ea, eb) */
static double noise_case_ss(const struct gcase *ga, const struct gcase *gb, const double *ea, const double *eb)
{
	const struct gcase *g[2] = { ga, gb };
	const double *e[2] = { ea, eb };
	double r2 = 0;

	for (int side = 0; side < 2; side++) {
		double em = 0;

		for (size_t j = 0; j < g[side]->nok; j++)
			em += e[side][g[side]->run[j]] / (double)g[side]->nok;
		for (size_t j = 0; j < g[side]->nok; j++) {
			double d = g[side]->lm[j] - g[side]->lmean - (e[side][g[side]->run[j]] - em);

			r2 += d * d;
		}
	}
	return r2;
}

static json_t *noise_model(const struct compare_side *sides, const struct compare_group *a, const struct compare_group *b,
			   json_t *keys)
{
	size_t m = json_array_size(keys), nk = 0, i, nra = 0, nrb = 0;
	struct gcase *ga = xcalloc(m + 1, sizeof(*ga)), *gb = xcalloc(m + 1, sizeof(*gb));
	double *ea = xcalloc(a->nruns + 1, sizeof(double)), *eb = xcalloc(b->nruns + 1, sizeof(double));
	size_t *ca = xcalloc(a->nruns + 1, sizeof(size_t)), *cb = xcalloc(b->nruns + 1, sizeof(size_t));
	double *own = xcalloc(m + 1, sizeof(double)), *dfo = xcalloc(m + 1, sizeof(double)), *k = xcalloc(m + 1, sizeof(double));
	double ss = 0, ma = 0, mb = 0, sg2, df, d0, s02, *w;
	json_t *key, *out = NULL;
	uint64_t st = 0x32;
	enum { DRAWS = 20000 };

	json_array_foreach(keys, i, key) {
		gcase_load(&ga[nk], sides, a, json_string_value(key));
		gcase_load(&gb[nk], sides, b, json_string_value(key));
		if (ga[nk].nok >= 2 && gb[nk].nok >= 2)
			nk++;
		else {
			gcase_release(&ga[nk]);
			gcase_release(&gb[nk]);
		}
	}
	if (nk < 3)
		goto cleanup;
	for (size_t c = 0; c < nk; c++) {
		for (size_t j = 0; j < ga[c].nok; j++)
			ea[ga[c].run[j]] += ga[c].lm[j] - ga[c].lmean, ca[ga[c].run[j]]++;
		for (size_t j = 0; j < gb[c].nok; j++)
			eb[gb[c].run[j]] += gb[c].lm[j] - gb[c].lmean, cb[gb[c].run[j]]++;
	}
	for (size_t r = 0; r < a->nruns; r++)
		if (ca[r])
			ea[r] /= (double)ca[r], ma += ea[r], nra++;
	for (size_t r = 0; r < b->nruns; r++)
		if (cb[r])
			eb[r] /= (double)cb[r], mb += eb[r], nrb++;
	ma /= (double)nra;
	mb /= (double)nrb;
	for (size_t r = 0; r < a->nruns; r++)
		if (ca[r])
			ss += (ea[r] - ma) * (ea[r] - ma);
	for (size_t r = 0; r < b->nruns; r++)
		if (cb[r])
			ss += (eb[r] - mb) * (eb[r] - mb);
	df = (double)(nra + nrb) - 2;
	if (!(df > 0))
		goto cleanup;
	sg2 = ss / df;
	for (size_t c = 0; c < nk; c++) {
		dfo[c] = (double)(ga[c].nok + gb[c].nok) - 2;
		/* the run effects are means of nk cases, its own among them */
		own[c] = noise_case_ss(&ga[c], &gb[c], ea, eb) / (dfo[c] * (1 - 1 / (double)nk));
		k[c] = 1 / (double)ga[c].nok + 1 / (double)gb[c].nok;
	}
	stats_squeeze_var(&d0, &s02, own, dfo, nk);
	for (size_t c = 0; c < nk && d0 > 0; c++)
		own[c] = d0 >= STATS_D0_MAX ? s02 : (d0 * s02 + dfo[c] * own[c]) / (d0 + dfo[c]);
	/* the run effect's variance: its estimate over W, W ~ chi2(df) / df, at W's 97.5% and 2.5% points */
	w = xcalloc(DRAWS, sizeof(double));
	for (unsigned d = 0; d < DRAWS; d++)
		w[d] = stats_chisq_mean(df, &st);
	qsort(w, DRAWS, sizeof(double), cmp_dbl);
	out = json_pack("{s:f, s:f, s:f, s:f, s:f, s:I}", "floor", noise_model_floor(sg2, own, k, nk), "lo",
			noise_model_floor(sg2 / w[(size_t)(0.975 * DRAWS)], own, k, nk), "hi",
			noise_model_floor(sg2 / w[(size_t)(0.025 * DRAWS)], own, k, nk), "run_sd", sqrt(sg2), "run_df", df,
			"cases", (json_int_t)nk);
	free(w);
cleanup:
	for (size_t c = 0; c < nk; c++) {
		gcase_release(&ga[c]);
		gcase_release(&gb[c]);
	}
	free(ga);
	free(gb);
	free(ea);
	free(eb);
	free(ca);
	free(cb);
	free(own);
	free(dfo);
	free(k);
	return out;
}

json_t *compare_noise_floor(const struct compare_side *sides, const struct compare_group *a, const struct compare_group *b)
{
	json_t *keys = json_object();
	json_t *per = json_object(), *out, *suites = json_object(), *runs = json_array();
	const char *key, *suite;
	json_t *rec, *arr;
	size_t i;

	/* |ratio - 1| of every case both groups measured, per suite */
	for (size_t r = 0; r < a->nruns; r++)
		json_object_foreach(sides[a->runs[r]].records, key, rec) {
			struct gcase ga, gb;

			suite = json_string_value(json_object_get(rec, "suite"));
			if (!suite)
				continue;
			{ /* each key once */
				int seen = 0;

				for (size_t q = 0; q < r && !seen; q++)
					seen = json_object_get(sides[a->runs[q]].records, key) != NULL;
				if (seen)
					continue;
			}
			gcase_load(&ga, sides, a, key);
			gcase_load(&gb, sides, b, key);
			if (ga.nok && gb.nok) {
				double d = fabs(gcase_stat(&gb) / gcase_stat(&ga) - 1);

				if (!json_object_get(per, suite))
					json_object_set_new(per, suite, json_array());
				json_array_append_new(json_object_get(per, suite), json_real(d));
				if (!json_object_get(keys, suite))
					json_object_set_new(keys, suite, json_array());
				json_array_append_new(json_object_get(keys, suite), json_string(key));
			}
			gcase_release(&ga);
			gcase_release(&gb);
		}
	json_object_foreach(per, suite, arr) {
		size_t m = json_array_size(arr);
		double *d = xcalloc(m, sizeof(double)), idx, f;
		json_t *v;

		json_array_foreach(arr, i, v)
			d[i] = json_real_value(v);
		qsort(d, m, sizeof(double), cmp_dbl);
		idx = 0.95 * (double)(m - 1);
		i = (size_t)idx;
		f = i + 1 < m ? d[i] + (d[i + 1] - d[i]) * (idx - (double)i) : d[m - 1];
		json_object_set_new(suites, suite, json_pack("{s:f, s:I}", "floor", f, "cases", (json_int_t)m));
		{
			json_t *model = noise_model(sides, a, b, json_object_get(keys, suite));

			if (model)
				json_object_set_new(json_object_get(suites, suite), "model", model);
		}
		free(d);
	}
	json_decref(per);
	json_decref(keys);
	for (size_t r = 0; r < a->nruns; r++)
		json_array_append_new(runs, json_string(sides[a->runs[r]].label));
	for (size_t r = 0; r < b->nruns; r++)
		json_array_append_new(runs, json_string(sides[b->runs[r]].label));
	out = json_pack("{s:s, s:s, s:o, s:f, s:o}", "a", a->label, "b", b->label, "runs", runs, "quantile", 0.95,
			"suites", suites);
	return out;
}

/* ---- the statistics of every pair, on every core --------------------------------------------------------- */

/* One case of the baseline against the same case on another side. */
struct pair {
	const char *key;
	struct gcase *base; /* the case's baseline side (shared by its pairs) */
	struct gcase other;
	size_t side;        /* the other side's group index */
	int stats;          /* both sides measured: ratio and CI computed */
	int tested;         /* 3 runs or more on both sides: p computed */
	double ratio, lo, hi, t, df, p, padj;
	double se; /* the standard error of the difference of the two sides' mean log run medians (Welch's) */
	/* the run-effect model (pairs_adjust): the difference's standard error as the run effect shared by the cases of
	 * a run plus the case's own, the statistic, the shared part's share of it, and the own part's degrees of freedom */
	double sem, tm, a, dfo;
	double dfe;  /* the degrees of freedom of its statistic's two parts (stats_df_effective) */
	double beta, sh2, own, kfac; /* its loading, the shared and own variances of the difference, own / the own
				      * variance per run */
	double vbeta; /* the variance of its loading's estimate (the shared variance carries it: beta^2 + vbeta) */
	double d0;   /* the prior degrees of freedom its own variance was moderated with (0: none) */
	double sxx;  /* the sum of squares of its runs' effects (the loading's precision over the own variance) */
	double crit; /* the |t| the first step of the adjustment asks of it (NAN: untested) */
};

struct pair_pool {
	struct pair *pairs;
	size_t n, next;
	unsigned resamples;
	pthread_mutex_t lock;
};

static void pair_compute(struct pair *c, unsigned resamples)
{
	const struct gcase *b = c->base, *o = &c->other;

	c->ratio = gcase_stat(o) / gcase_stat(b);
	/* the seed from the case key: deterministic, whatever thread runs it, and different for every case */
	stats_hier_bootstrap_ratio_ci(&c->lo, &c->hi, (const double *const *)o->s, o->n, o->nok,
				      (const double *const *)b->s, b->n, b->nok, resamples, stats_seed_from_key(c->key));
	c->t = c->df = c->p = c->padj = c->se = c->crit = c->dfe = NAN;
	if (!c->tested)
		return;
	stats_welch(&c->t, &c->df, &c->p, &c->se, o->lm, o->nok, b->lm, b->nok);
}

static void *pair_worker(void *arg)
{
	struct pair_pool *pool = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&pool->lock);
		i = pool->next;
		pool->next += 16;
		pthread_mutex_unlock(&pool->lock);
		if (i >= pool->n)
			return NULL;
		for (size_t j = i; j < i + 16 && j < pool->n; j++)
			if (pool->pairs[j].stats)
				pair_compute(&pool->pairs[j], pool->resamples);
	}
}

static void pairs_compute(struct pair *pairs, size_t n, unsigned resamples)
{
	struct pair_pool pool = { pairs, n, 0, resamples, PTHREAD_MUTEX_INITIALIZER };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th[16];
	size_t nth = cores < 1 ? 1 : cores > 16 ? 16 : (size_t)cores, started = 0;

	if (nth > 1 && n > 64)
		for (; started < nth - 1; started++)
			if (pthread_create(&th[started], NULL, pair_worker, &pool))
				break;
	pair_worker(&pool);
	for (size_t t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&pool.lock);
}

/* ---- the adjustment over the tests of a comparison ------------------------------------------------------------ */

/* The effect of each run of one side over a set of tested pairs: the mean, over the cases it measured, of its log
 * median less the case's mean over the side's runs (NAN for a run without one). On a GPU it is the machine state a
 * run met (clocks, power, thermals), which moves every case of the run together. */
static void side_run_effects(double *eff, size_t nruns, struct pair *const *pp, size_t m, int other)
{
	size_t *cnt = xcalloc(nruns ? nruns : 1, sizeof(*cnt));

	for (size_t r = 0; r < nruns; r++)
		eff[r] = 0;
	for (size_t k = 0; k < m; k++) {
		const struct gcase *g = other ? &pp[k]->other : pp[k]->base;

		for (size_t j = 0; j < g->nok; j++) {
			eff[g->run[j]] += g->lm[j] - g->lmean;
			cnt[g->run[j]]++;
		}
	}
	for (size_t r = 0; r < nruns; r++)
		eff[r] = cnt[r] ? eff[r] / (double)cnt[r] : NAN;
	free(cnt);
}

/* The sum of squares of a side's run effects about their mean, and their number. */
static void side_shared_ss(double *ss, size_t *nr, const double *eff, size_t nruns)
{
	double *x = xcalloc(nruns ? nruns : 1, sizeof(*x)), mean, var;
	size_t k = 0;

	for (size_t r = 0; r < nruns; r++)
		if (!isnan(eff[r]))
			x[k++] = eff[r];
	stats_mean_var(&mean, &var, x, k);
	*ss = k > 1 ? var * (double)(k - 1) : 0;
	*nr = k;
	free(x);
}

/* One side of a case in the run-effect model: its runs' deviations from their mean, and their runs' effects centred
 * on those runs (a case measured on some runs only carries the mean effect of its own runs). */
struct case_side {
	size_t n;
	double *dev, *eff;
};

static void case_side_init(struct case_side *cs, const struct gcase *g, const double *eff)
{
	double emean = 0;

	cs->n = g->nok;
	cs->dev = xcalloc(g->nok ? g->nok : 1, sizeof(double));
	cs->eff = xcalloc(g->nok ? g->nok : 1, sizeof(double));
	for (size_t j = 0; j < g->nok; j++) {
		cs->dev[j] = g->lm[j] - g->lmean;
		emean += eff[g->run[j]] / (double)g->nok;
	}
	for (size_t j = 0; j < g->nok; j++)
		cs->eff[j] = eff[g->run[j]] - emean;
}

static void case_side_release(struct case_side *cs)
{
	free(cs->dev);
	free(cs->eff);
}

/* The sum of squares of a side's deviations beyond `beta` times their runs' effects: what the case's runs vary by
 * beyond the machine state they met. */
static double case_side_ss(const struct case_side *cs, double beta)
{
	double ss = 0;

	for (size_t j = 0; j < cs->n; j++)
		ss += (cs->dev[j] - beta * cs->eff[j]) * (cs->dev[j] - beta * cs->eff[j]);
	return ss;
}

/* The run-effect model of one tested pair: its loading on the run effect (the least-squares slope of its runs'
 * deviations on their runs' effects, over both sides: about 1 for a GEMM at the power cap, about 0 for a memory copy
 * that the clock does not move), the standard error of its difference of mean log run medians as a shared part
 * (the loading times the run effects' spread vb, vo per run on each side, over the case's own runs) and its own, and
 * its statistic. With as many runs on both sides the variances are pooled (Student's degrees of freedom, robust to
 * unequal spreads when the counts are equal); otherwise Welch's. */
static void pair_model(struct pair *c, const double *eb, const double *eo, double vb, double vo, int pooled,
		       double beta_given, double vbeta_given)
{
	struct case_side sb, so;
	double sxy = 0, sxx = 0, beta, own, kb, ko;

	case_side_init(&sb, c->base, eb);
	case_side_init(&so, &c->other, eo);
	for (size_t j = 0; j < sb.n; j++)
		sxy += sb.dev[j] * sb.eff[j], sxx += sb.eff[j] * sb.eff[j];
	for (size_t j = 0; j < so.n; j++)
		sxy += so.dev[j] * so.eff[j], sxx += so.eff[j] * so.eff[j];
	beta = c->beta = isnan(beta_given) ? (sxx > 0 ? sxy / sxx : 0) : beta_given;
	c->sxx = sxx;
	kb = (double)sb.n;
	ko = (double)so.n;
	if (pooled && sb.n == so.n) {
		/* the own part less one degree of freedom for the loading */
		c->dfo = kb + ko > 3 ? kb + ko - 3 : 1;
		own = (case_side_ss(&sb, beta) + case_side_ss(&so, beta)) / c->dfo * (1 / kb + 1 / ko);
	} else {
		double ob = case_side_ss(&sb, beta) / (kb - 1) / kb, oo = case_side_ss(&so, beta) / (ko - 1) / ko;

		own = ob + oo;
		c->dfo = own > 0 ? fmax(1, stats_welch_df(ob, sb.n, oo, so.n) - 1) : 1;
	}
	c->kfac = 1 / kb + 1 / ko;
	c->own = own;
	/* the loading is estimated: its estimate's variance (its own noise over the run effects' spread, or what is left
	 * of it after shrinking) joins its square, as E[beta^2] = beta^2 + var beta: a case whose runs happened to
	 * cancel their run effects would otherwise be judged as a case the clock does not move */
	c->vbeta = isnan(beta_given) ? (sxx > 0 ? own / c->kfac / sxx : 0) : vbeta_given;
	c->sh2 = (beta * beta + c->vbeta) * (vb / kb + vo / ko); /* vb == vo when pooled */
	case_side_release(&sb);
	case_side_release(&so);
}

/* A tested pair's statistic from its shared and own variances: the standard error of its difference of mean log run
 * medians, t, the shared part's share of the variance (signed by the loading) and the degrees of freedom of the two
 * parts together. */
static void pair_statistic(struct pair *c, double dfg)
{
	double se2 = c->sh2 + c->own, mb = c->base->lmean, mo = c->other.lmean;

	c->sem = sqrt(se2);
	if (!(se2 > 0)) { /* no spread at all: any difference is certain, none is no evidence */
		c->tm = mo == mb ? 0 : mo > mb ? INFINITY : -INFINITY;
		c->a = 1;
	} else {
		c->tm = (mo - mb) / c->sem;
		c->a = (c->beta < 0 ? -1 : 1) * sqrt(c->sh2 / se2);
	}
	c->dfe = stats_df_effective(c->a, dfg, c->dfo);
}

/* The moderated own variances per run of the tested pairs pp[0..m) of one suite (limma's empirical Bayes, Smyth
 * 2004): the suite's own variances per run give a prior (d0, s0^2), and each pair's becomes
 * (d0 s0^2 + dfo s^2) / (d0 + dfo) on d0 + dfo degrees of freedom. Into s2[0..m); returns d0 (0: no prior). */
static double pairs_squeeze(double *s2, struct pair **pp, size_t m)
{
	double *v = xcalloc(m + 1, sizeof(double)), *df = xcalloc(m + 1, sizeof(double)), d0, s02;

	for (size_t k = 0; k < m; k++) {
		v[k] = pp[k]->own / pp[k]->kfac;
		df[k] = pp[k]->dfo;
	}
	stats_squeeze_var(&d0, &s02, v, df, m);
	for (size_t k = 0; k < m; k++)
		s2[k] = d0 <= 0 ? v[k] : d0 >= STATS_D0_MAX ? s02 : (d0 * s02 + df[k] * v[k]) / (d0 + df[k]);
	free(v);
	free(df);
	return d0;
}

/* Moderates the tested pairs pp[0..m) of one suite, so that a case does not rest on its own 3 degrees of freedom:
 * its loading, shrunk towards the suite's mean by the spread of the loadings beyond their own noise (empirical
 * Bayes), its estimate's remaining variance carried into the shared variance (pair_model), and then its own variance
 * (pairs_squeeze). A loading's own noise is the case's moderated own variance over its runs' effects' sum of
 * squares: with its raw variance, a case whose runs happened to cancel their run effects would be given a small own
 * variance and a confident loading near 0 at once, and its shared variance too would be lost. */
static void pairs_moderate(struct pair **pp, size_t m, const double *eb, const double *eo, double vb, double vo,
			   int pooled)
{
	double *s2 = xcalloc(m + 1, sizeof(double)), d0, bm = 0, bv = 0, se2 = 0, tau2;
	size_t nb = 0;

	pairs_squeeze(s2, pp, m);
	for (size_t k = 0; k < m; k++)
		if (pp[k]->sxx > 0 && pp[k]->dfo > 0)
			bm += pp[k]->beta, nb++;
	if (nb >= 3) {
		bm /= (double)nb;
		for (size_t k = 0; k < m; k++)
			if (pp[k]->sxx > 0 && pp[k]->dfo > 0) {
				bv += (pp[k]->beta - bm) * (pp[k]->beta - bm) / (double)(nb - 1);
				se2 += s2[k] / pp[k]->sxx / (double)nb;
			}
		tau2 = fmax(0, bv - se2);
		for (size_t k = 0; k < m; k++)
			if (pp[k]->sxx > 0 && pp[k]->dfo > 0) {
				double sek = s2[k] / pp[k]->sxx;
				double w = tau2 + sek > 0 ? tau2 / (tau2 + sek) : 0, b = bm + w * (pp[k]->beta - bm);
				/* the shrunk loading's variance: its own estimate's, weighed, and the suite mean's */
				double vbk = w * sek + (1 - w) * (1 - w) * bv / (double)nb;

				pair_model(pp[k], eb, eo, vb, vo, pooled, b, vbk);
				/* never less shared variance than the suite's mean loading carries: at 3 runs a side a loading
				 * is known to within about its own size, and one estimated low by chance (runs that happened to
				 * cancel their run effects) would judge a case the clock moves by its own noise alone; a case
				 * the clock truly does not move pays for it in power only when its suite's others move */
				if (fabs(b) < fabs(bm))
					pp[k]->sh2 *= (bm * bm + vbk) / (b * b + vbk);
			}
	}
	d0 = pairs_squeeze(s2, pp, m);
	for (size_t k = 0; k < m && d0 > 0; k++) {
		struct pair *c = pp[k];

		c->own = s2[k] * c->kfac;
		c->dfo = fmin(STATS_D0_MAX, d0 + c->dfo);
		c->d0 = d0;
	}
	free(s2);
}

/* The own variances of the tested pairs pp[0..m) of one other side moderated within each suite (pairs_moderate),
 * the suites in the order of their first pair. */
static void pairs_moderate_by_suite(struct pair **pp, size_t m, const double *eb, const double *eo, double vb,
				    double vo, int pooled)
{
	struct pair **ps = xcalloc(m + 1, sizeof(*ps));
	char *done = xcalloc(m + 1, 1);

	for (size_t k = 0; k < m; k++) {
		const char *su = json_string_value(json_object_get(pp[k]->base->ref, "suite"));
		size_t ns = 0;

		if (done[k])
			continue;
		for (size_t e = k; e < m; e++) {
			const char *se = json_string_value(json_object_get(pp[e]->base->ref, "suite"));

			if (!done[e] && (e == k || (su && se && !strcmp(su, se))))
				ps[ns++] = pp[e], done[e] = 1;
		}
		pairs_moderate(ps, ns, eb, eo, vb, vo, pooled);
	}
	free(ps);
	free(done);
}

/* The min-P draws for m tests over nsides other sides: about 2 million p-values in all, and enough draws that the
 * least adjusted p, nsides / (draws + 1), is 20 times under alpha. */
static unsigned minp_draws(size_t m, size_t nsides, double alpha)
{
	unsigned draws = m > 1000 ? 2000 : m < 100 ? 20000 : (unsigned)(2000000 / m);
	double need = ceil(20 * (double)nsides / alpha);

	if (need > draws)
		draws = need > 200000 ? 200000 : (unsigned)need;
	return draws;
}

/* Adjusts the p-values of the tested pairs for their number, per other side, by Westfall and Young's step-down min-P
 * under the run-effect model: the difference of a case's two mean log run medians is its loading times the
 * difference of the two sides' mean run effects, shared by every case, plus the case's own noise
 * (stats_minp_stepdown; pair_model). Tests that share a machine state are not counted as independent evidence, nor as independent
 * chances of a false call; tests that share nothing are adjusted as Holm's procedure adjusts them. Over several
 * other sides, Bonferroni; an adjusted p is never below the pair's own Welch p; each pair's crit is the |t| its
 * first step asks. Returns the number of tests. */
static size_t pairs_adjust(struct pair *pairs, size_t npairs, const struct compare_group *groups, size_t ng,
			   size_t base, double alpha)
{
	size_t ntests = 0, nsides = 0;
	struct pair **pp = xcalloc(npairs + 1, sizeof(*pp));
	double *t = xcalloc(npairs + 1, sizeof(double)), *a = xcalloc(npairs + 1, sizeof(double));
	double *df = xcalloc(npairs + 1, sizeof(double)), *adj = xcalloc(npairs + 1, sizeof(double));
	double *crit = xcalloc(npairs + 1, sizeof(double));

	for (size_t i = 0; i < ng; i++) { /* the other sides with a test */
		size_t k = 0;

		while (k < npairs && !(pairs[k].tested && pairs[k].side == i))
			k++;
		nsides += i != base && k < npairs;
	}
	for (size_t i = 0; i < ng; i++) {
		double *eb, *eo, gb, go, vb, vo, dfg;
		size_t m = 0, nb, no;
		uint64_t seed = 0;
		int pooled;

		if (i == base)
			continue;
		for (size_t k = 0; k < npairs; k++)
			if (pairs[k].tested && pairs[k].side == i)
				pp[m++] = &pairs[k];
		if (!m)
			continue;
		eb = xcalloc(groups[base].nruns, sizeof(double));
		eo = xcalloc(groups[i].nruns, sizeof(double));
		side_run_effects(eb, groups[base].nruns, pp, m, 0);
		side_run_effects(eo, groups[i].nruns, pp, m, 1);
		side_shared_ss(&gb, &nb, eb, groups[base].nruns);
		side_shared_ss(&go, &no, eo, groups[i].nruns);
		/* the run effects' variance per run on each side; pooled when both sides have as many runs */
		pooled = nb == no;
		vb = nb > 1 ? gb / (double)(nb - 1) : 0;
		vo = no > 1 ? go / (double)(no - 1) : 0;
		if (pooled)
			vb = vo = nb + no > 2 ? (gb + go) / (double)(nb + no - 2) : 0;
		dfg = pooled ? (nb + no > 2 ? (double)(nb + no - 2) : 1)
			     : stats_welch_df(vb / (double)(nb ? nb : 1), nb, vo / (double)(no ? no : 1), no);
		if (!(dfg > 0))
			dfg = 1;
		for (size_t k = 0; k < m; k++)
			pair_model(pp[k], eb, eo, vb, vo, pooled, NAN, NAN);
		pairs_moderate_by_suite(pp, m, eb, eo, vb, vo, pooled);
		for (size_t k = 0; k < m; k++) {
			struct pair *c = pp[k];

			pair_statistic(c, dfg);
			/* the draws' seed from the tested cases' keys: the same comparison draws the same whatever its labels */
			seed = seed * 0x9e3779b97f4a7c15ull + stats_seed_from_key(c->key);
			t[k] = c->tm;
			a[k] = c->a;
			df[k] = c->dfo;
		}
		stats_minp_stepdown(adj, crit, t, a, df, m, dfg, alpha / (double)nsides, minp_draws(m, nsides, alpha), seed);
		for (size_t k = 0; k < m; k++) {
			pp[k]->padj = fmax(pp[k]->p, fmin(1, adj[k] * (double)nsides));
			pp[k]->crit = crit[k];
		}
		ntests += m;
		free(eb);
		free(eo);
	}
	free(pp);
	free(t);
	free(a);
	free(df);
	free(adj);
	free(crit);
	return ntests;
}

/* The change a tested pair is called at whatever the other cases show: the first step of the adjustment asks |t| at
 * least the pair's critical value, so |log ratio| at least that times the pair's standard error; its own Welch p
 * (the adjusted p's floor) under alpha; and beyond the threshold (a step-down can call a smaller change once larger
 * ones are called). As a fraction (0.05: 5%); NAN when untested. */
static double pair_resolution(const struct pair *c, double alpha, double threshold)
{
	double r, qw;

	if (!c->tested || !isfinite(c->sem) || !isfinite(c->crit))
		return NAN;
	r = 1.0 - exp(-c->crit * c->sem);
	qw = stats_t_quantile_two_sided(alpha, c->df);
	if (isfinite(qw) && isfinite(c->se))
		r = fmax(r, 1.0 - exp(-qw * c->se));
	return r > threshold ? r : threshold;
}

/* The change a tested pair finds with 97.5% power: its statistic reaches the critical |t| (and its own Welch p alpha)
 * 97.5% of the time when the true |log ratio| is (critical t + Student's 97.5% point) standard errors; and the runs
 * per side that would bring that to the threshold, the standard error falling as one over the root of the runs (the
 * critical value kept). As fractions and a count; NAN when untested. */
static void pair_power(double *res975, double *runs, const struct pair *c, double alpha, double threshold)
{
	double r, qw, z, need;

	*res975 = *runs = NAN;
	if (!c->tested || !isfinite(c->sem) || !isfinite(c->crit))
		return;
	z = stats_t_quantile_two_sided(0.05, c->dfe);
	r = (c->crit + z) * c->sem;
	qw = stats_t_quantile_two_sided(alpha, c->df);
	if (isfinite(qw) && isfinite(c->se))
		r = fmax(r, (qw + stats_t_quantile_two_sided(0.05, c->df)) * c->se);
	*res975 = fmax(1.0 - exp(-r), threshold);
	need = (double)(c->base->nok < c->other.nok ? c->base->nok : c->other.nok) * pow(r / -log1p(-threshold), 2);
	*runs = ceil(fmax(need, 3));
}

/* ---- the comparison -------------------------------------------------------------------------------------- */

static json_t *side_json(const struct compare_side *sides, const struct compare_group *g, int baseline)
{
	json_t *runs = json_array(), *manifests = json_object(), *side;
	int verified = 1;

	for (size_t r = 0; r < g->nruns; r++) {
		const struct compare_side *s = &sides[g->runs[r]];
		const char *sha = s->manifest_sha256[0] ? s->manifest_sha256 : "none";

		verified &= s->verified;
		json_array_append_new(runs, json_pack("{s:s, s:o, s:b, s:s?, s:s?}", "label", s->label, "path",
						      esc_json_string(s->path), "verified", s->verified, "keyid", s->keyid,
						      "manifest_sha256", s->manifest_sha256[0] ? s->manifest_sha256 : NULL));
		if (!json_object_get(manifests, sha))
			json_object_set_new(manifests, sha, json_array());
		json_array_append_new(json_object_get(manifests, sha), json_string(s->label));
	}
	side = json_pack("{s:s, s:o, s:b, s:s?, s:b, s:I, s:o, s:O?}", "label", g->label, "path",
			 esc_json_string(sides[g->runs[0]].path),
			 "verified", verified, "keyid", sides[g->runs[0]].keyid, "baseline", baseline, "nruns",
			 (json_int_t)g->nruns, "runs", runs, "pricing", sides[g->runs[0]].pricing);
	/* a side is repeats of one stack: runs of different manifests (an older one of the same name) are said */
	if (json_object_size(manifests) > 1)
		json_object_set(side, "mixed_manifests", manifests);
	json_decref(manifests);
	return side;
}

/* every key of a group, in sorted order (the union over its runs) */
static json_t *group_keys(const struct compare_side *sides, const struct compare_group *g)
{
	json_t *keys = json_object();
	const char *key;
	json_t *rec;

	for (size_t r = 0; r < g->nruns; r++)
		json_object_foreach(sides[g->runs[r]].records, key, rec)
			if (!json_object_get(keys, key))
				json_object_set(keys, key, rec);
	return keys;
}

static double suite_threshold(const struct compare_opts *o, const char *suite)
{
	json_t *row = json_object_get(json_object_get(o->noise, "suites"), suite ? suite : "");
	json_t *f = json_object_get(json_object_get(row, "model"), "floor");

	/* the run-effect model's floor where the pair has the runs for it, else the pair's own 95th percentile */
	if (!json_is_number(f))
		f = json_object_get(row, "floor");
	return json_is_number(f) ? json_number_value(f) : o->threshold;
}

/* a side's energy and cost figures for a case (cost.h), as its "cost" */
static void set_cost(json_t *side_row, json_t *pricing, json_t *rec, double value)
{
	json_t *c = cost_of_record(pricing, rec, value);

	if (c)
		json_object_set_new(side_row, "cost", c);
}

static int cmp_rank(const void *x, const void *y)
{
	double a = json_real_value(json_object_get(*(json_t *const *)x, "value"));
	double b = json_real_value(json_object_get(*(json_t *const *)y, "value"));

	return a < b ? -1 : a > b;
}

/* Per case that some side priced: the sides cheapest first, by USD per million tokens where a side has that
 * figure (training), else by USD per hour per effective PFLOP/s. [{suite, case, by, sides: [{label, value}]}] */
static json_t *cost_rank(json_t *cases, const char *base_label)
{
	json_t *out = json_array(), *row, *o;
	size_t i, j;

	json_array_foreach(cases, i, row) {
		json_t *all = json_array(), *ranked = json_array(), *e;
		const char *by = NULL;
		size_t n;
		json_t **v;

		json_array_append_new(all, json_pack("{s:s, s:O?}", "label", base_label, "cost",
						     json_object_get(json_object_get(row, "baseline"), "cost")));
		json_array_foreach(json_object_get(row, "others"), j, o)
			json_array_append_new(all, json_pack("{s:O, s:O?}", "label", json_object_get(o, "label"), "cost",
							     json_object_get(o, "cost")));
		json_array_foreach(all, j, e) {
			const char *k = cost_rank_key(json_object_get(e, "cost"));

			if (k && (!by || !strcmp(k, "usd_per_million_tokens")))
				by = k;
		}
		json_array_foreach(all, j, e)
			if (by && json_is_number(json_object_get(json_object_get(e, "cost"), by)))
				json_array_append_new(ranked, json_pack("{s:O, s:f}", "label", json_object_get(e, "label"), "value",
									json_number_value(json_object_get(json_object_get(e, "cost"), by))));
		n = json_array_size(ranked);
		v = xcalloc(n + 1, sizeof(*v));
		for (j = 0; j < n; j++)
			v[j] = json_incref(json_array_get(ranked, j));
		qsort(v, n, sizeof(*v), cmp_rank); /* ties keep no promised order; the values say so */
		json_array_clear(ranked);
		for (j = 0; j < n; j++)
			json_array_append_new(ranked, v[j]);
		free(v);
		if (n)
			json_array_append_new(out, json_pack("{s:O, s:O, s:s, s:o}", "suite", json_object_get(row, "suite"), "case",
							     json_object_get(row, "case"), "by", by, "sides", ranked));
		else
			json_decref(ranked);
		json_decref(all);
	}
	return out;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* compare_build_groups()'s state: what it compares, the baseline's cases and their pairs with the other sides,
 * the lists the rows add to, the verdicts counted and the tested pairs' resolutions (for the summary's) */
struct build {
	const struct compare_side *sides;
	const struct compare_group *groups;
	size_t ng, base;
	const struct compare_opts *o;
	json_t *bkeys;          /* the baseline's cases, by key (sorted: deterministic output) */
	struct gcase *bcases;   /* [ncases] in the order of bkeys */
	size_t ncases;
	struct pair *pairs;     /* [npairs] per case, one per other side */
	size_t npairs;
	json_t *only, *method;
	size_t slower, faster, same, inconclusive;
	double *resv, *res975v, *runsv; /* [nres] per tested pair with a finite resolution */
	size_t nres;
};

/* pass 1: every side of every case, and what can be computed */
static void build_pairs(struct build *b)
{
	const struct compare_group *groups = b->groups;
	const char *key;
	json_t *brec;
	size_t ci = 0;

	json_object_foreach(b->bkeys, key, brec) {
		gcase_load(&b->bcases[ci], b->sides, &groups[b->base], key);
		for (size_t i = 0; i < b->ng; i++) {
			struct pair *c;

			if (i == b->base)
				continue;
			c = &b->pairs[b->npairs++];
			c->key = key;
			c->side = i;
			c->base = &b->bcases[ci];
			gcase_load(&c->other, b->sides, &groups[i], key);
			c->stats = c->base->nok && c->other.nok &&
				   !(groups[b->base].nruns == 1 && c->base->total < 2) && !(groups[i].nruns == 1 && c->other.total < 2);
			c->tested = c->stats && c->base->nok >= 3 && c->other.nok >= 3;
		}
		ci++;
	}
}

/* a side's cell of a case's row (after its label, if any): value, n, runs, status; then the reason a case that
 * did not measure failed, or the cost of one that did */
static void cell_add_case(json_t *cell, const struct gcase *g, const struct compare_side *side)
{
	int ok = status_ok(g->ref);

	/* a case that did not measure has no value to show, whatever its record holds */
	json_object_set_new(cell, "value", ok && !isnan(g->value) ? json_real(g->value) : json_null());
	json_object_set_new(cell, "n", json_integer((json_int_t)g->total));
	json_object_set_new(cell, "runs", json_integer((json_int_t)g->nok));
	json_object_set_new(cell, "status", json_string(status_of(g->ref)));
	if (!ok)
		json_object_set_new(cell, "error", json_string(compare_case_reason(g->ref)));
	else
		set_cost(cell, side->pricing, g->ref, g->value);
}

/* the differences of method between the case's baseline record and the other side's, into method_differs */
static void method_add_differs(json_t *method, const char *key, const char *label, json_t *bref, json_t *orec)
{
	if (!json_equal(json_object_get(orec, "params"), json_object_get(bref, "params")) &&
	    json_object_get(orec, "params") && json_object_get(bref, "params"))
		json_array_append_new(method, json_pack("{s:s, s:s, s:O, s:O}", "case", key, "label", label,
							"baseline_params", json_object_get(bref, "params"),
							"params", json_object_get(orec, "params")));
	/* what the library says it ran with: another algorithm, protocol, channels or transport is another
	 * measurement, whatever the params say */
	method_add_brief(method, key, label, "ccl_effective", ccl_brief, bref, orec);
	/* the plug-in's source (docs/plugins.md): other bytes are another implementation, whatever its name */
	method_add_brief(method, key, label, "plugin", plugin_brief, bref, orec);
}

/* why a pair where a side did not measure is not comparable */
static char *why_not_ok(const struct build *b, const struct pair *c)
{
	json_t *bref = c->base->ref, *orec = c->other.ref;
	struct strbuf why = STRBUF_INIT;

	if (!status_ok(bref))
		strbuf_addf(&why, "%s in %s: %s", status_of(bref), b->groups[b->base].label, compare_case_reason(bref));
	if (!status_ok(orec))
		strbuf_addf(&why, "%s%s in %s: %s", why.len ? "; " : "", status_of(orec), b->groups[c->side].label,
			    compare_case_reason(orec));
	return strbuf_detach(&why);
}

/* a pair with too few samples for statistics: not comparable, with the ratio of the recorded values */
static void cell_add_few_samples(json_t *o_row, const struct pair *c)
{
	json_t *bref = c->base->ref, *orec = c->other.ref;
	size_t na = c->base->total, nb = c->other.total;
	char *why = na < 2 && nb < 2 ? xstrfmt("too few samples (baseline n=%zu, other n=%zu)", na, nb)
		    : na < 2 ? xstrfmt("too few samples in the baseline (n=%zu)", na)
			     : xstrfmt("too few samples (n=%zu)", nb);

	if (json_number_value(json_object_get(bref, "value")) > 0)
		json_object_set_new(o_row, "ratio", json_real(json_number_value(json_object_get(orec, "value")) /
							      json_number_value(json_object_get(bref, "value"))));
	json_object_set_new(o_row, "why", json_string(why));
	free(why);
}

/* a tested pair's statistics, and the smallest change it could be called at (kept for the resolution) */
static void cell_add_test(struct build *b, json_t *o_row, const struct pair *c, double thr)
{
	double res = pair_resolution(c, b->o->alpha, thr), r975, nrun;

	json_object_set_new(o_row, "p", json_real(c->p));
	json_object_set_new(o_row, "p_adjusted", json_real(c->padj));
	json_object_set_new(o_row, "t", json_real(c->t));
	json_object_set_new(o_row, "df", json_real(c->df));
	/* the statistic the adjustment ranks: the run-effect model's t, its degrees of freedom, and the share of its
	 * variance the run effect holds (signed by the loading) */
	json_object_set_new(o_row, "adjustment", json_pack("{s:o, s:f, s:f}", "t", isfinite(c->tm) ? json_real(c->tm) : json_null(),
							   "df", c->dfe, "shared", c->a));
	pair_power(&r975, &nrun, c, b->o->alpha, thr);
	if (isfinite(res)) {
		json_object_set_new(o_row, "resolvable", json_real(res));
		b->resv[b->nres] = res;
		b->res975v[b->nres] = r975;
		b->runsv[b->nres++] = nrun;
		json_object_set_new(o_row, "resolvable_975", json_real(r975));
		json_object_set_new(o_row, "runs_for_threshold", json_real(nrun));
	}
}

/* the verdict of a pair with statistics: inconclusive untested; faster or slower when called beyond the
 * threshold, same when the CI excludes a change that size, else inconclusive (with why) */
static const char *pair_verdict(struct build *b, json_t *o_row, const struct pair *c, double thr)
{
	const struct gcase *bg = c->base;
	char *why;

	json_object_set_new(o_row, "ratio", json_real(c->ratio));
	json_object_set_new(o_row, "ci95", json_pack("[f, f]", c->lo, c->hi));
	if (!c->tested) {
		why = bg->nok == c->other.nok
			      ? xstrfmt("%zu %s per side: run-to-run noise unknown", bg->nok, plural(bg->nok, "run", "runs"))
			      : xstrfmt("%zu %s in the baseline, %zu in %s: run-to-run noise unknown", bg->nok,
					plural(bg->nok, "run", "runs"), c->other.nok, b->groups[c->side].label);
		b->inconclusive++;
		json_object_set_new(o_row, "why", json_string(why));
		free(why);
		return "inconclusive";
	}
	cell_add_test(b, o_row, c, thr);
	if (c->padj < b->o->alpha && c->ratio > 1 + thr)
		return b->faster++, "faster";
	if (c->padj < b->o->alpha && c->ratio < 1 - thr)
		return b->slower++, "slower";
	if (c->lo >= 1 - thr && c->hi <= 1 + thr)
		return b->same++, "same"; /* a change beyond the threshold is excluded */
	/* neither called nor excluded: nothing can be told */
	why = xstrfmt("the CI reaches beyond 1 +/- %.1f%%: a change that size is neither shown nor excluded", 100 * thr);
	b->inconclusive++;
	json_object_set_new(o_row, "why", json_string(why));
	free(why);
	return "inconclusive";
}

/* the other side's cell of a case's row, with its verdict; a case it lacks is "missing" (and only in the
 * baseline) */
static json_t *pair_cell(struct build *b, const struct pair *c, double thr)
{
	const char *label = b->groups[c->side].label, *verdict;
	json_t *bref = c->base->ref, *orec = c->other.ref, *o_row;

	if (!orec) {
		json_array_append_new(b->only, json_pack("{s:s, s:s}", "case", c->key, "only_in", b->groups[b->base].label));
		return json_pack("{s:s, s:s}", "label", label, "verdict", "missing");
	}
	method_add_differs(b->method, c->key, label, bref, orec);
	o_row = json_pack("{s:s}", "label", label);
	cell_add_case(o_row, &c->other, &b->sides[b->groups[c->side].runs[0]]);
	if (!status_ok(bref) || !status_ok(orec)) {
		char *why = why_not_ok(b, c);

		verdict = "not comparable";
		json_object_set_new(o_row, "why", json_string(why));
		free(why);
	} else if (!c->stats) {
		verdict = "not comparable";
		cell_add_few_samples(o_row, c);
	} else {
		verdict = pair_verdict(b, o_row, c, thr);
	}
	json_object_set_new(o_row, "verdict", json_string(verdict));
	return o_row;
}

/* pass 2: a case's row, the baseline's cell and each other side's, from its pairs from *pi on */
static json_t *case_row(struct build *b, const struct gcase *bg, size_t *pi)
{
	json_t *bref = bg->ref, *others = json_array(), *bj = json_object();
	const char *suite = json_string_value(json_object_get(bref, "suite"));
	double thr = suite_threshold(b->o, suite);
	json_t *row = json_pack("{s:s, s:s, s:s?, s:s?, s:f}", "suite", suite, "case",
				json_string_value(json_object_get(bref, "case")), "metric",
				json_string_value(json_object_get(bref, "metric")), "unit",
				json_string_value(json_object_get(bref, "unit")), "threshold", thr);

	cell_add_case(bj, bg, &b->sides[b->groups[b->base].runs[0]]);
	json_object_set_new(row, "baseline", bj);
	for (size_t i = 0; i < b->ng; i++)
		if (i != b->base)
			json_array_append_new(others, pair_cell(b, &b->pairs[(*pi)++], thr));
	json_object_set_new(row, "others", others);
	return row;
}

/* every case that did not measure, on every run, with its reason: none is dropped silently; and every run
 * whose case has fewer samples than its suite asks for */
static void build_not_ok(const struct build *b, json_t *not_ok, json_t *few)
{
	const char *key;
	json_t *rec;

	for (size_t gi = 0; gi < b->ng; gi++)
		for (size_t r = 0; r < b->groups[gi].nruns; r++) {
			const struct compare_side *s = &b->sides[b->groups[gi].runs[r]];

			json_object_foreach(s->records, key, rec) {
				const char *suite = json_string_value(json_object_get(rec, "suite"));
				const struct suite_ops *ops = suite_find(suite ? suite : "");
				size_t ns = json_array_size(json_object_get(rec, "samples_ms"));

				if (!status_ok(rec))
					json_array_append_new(not_ok, json_pack("{s:s, s:s?, s:s?, s:s, s:s}", "label", s->label, "suite",
										suite, "case", json_string_value(json_object_get(rec, "case")),
										"status", status_of(rec), "error", compare_case_reason(rec)));
				else if (ops && ops->min_samples && ns < ops->min_samples)
					json_array_append_new(few, json_pack("{s:s, s:s, s:s?, s:I, s:I}", "label", s->label, "suite", suite,
									     "case", json_string_value(json_object_get(rec, "case")),
									     "n", (json_int_t)ns, "min", (json_int_t)ops->min_samples));
			}
		}
}

/* per other side: its cases the baseline lacks (only_in_one), and each fact of its stack that differs from the
 * baseline's (stack_differs) */
static void build_side_differs(struct build *b, json_t *stack)
{
	json_t *bfacts = compare_stack_facts(&b->sides[b->groups[b->base].runs[0]]);

	for (size_t i = 0; i < b->ng; i++) {
		const char *label = b->groups[i].label, *k;
		json_t *facts, *keys, *v;

		if (i == b->base)
			continue;
		keys = group_keys(b->sides, &b->groups[i]);
		json_object_foreach(keys, k, v)
			if (!json_object_get(b->bkeys, k))
				json_array_append_new(b->only, json_pack("{s:s, s:s}", "case", k, "only_in", label));
		json_decref(keys);
		facts = compare_stack_facts(&b->sides[b->groups[i].runs[0]]);
		json_object_foreach(bfacts, k, v) {
			json_t *w = json_object_get(facts, k);

			if (!w || !json_equal(v, w))
				json_array_append_new(stack, json_pack("{s:s, s:s, s:O, s:O}", "what", k, "label", label,
								       "baseline", v, "value", w ? w : json_null()));
		}
		json_object_foreach(facts, k, v)
			if (!json_object_get(bfacts, k))
				json_array_append_new(stack, json_pack("{s:s, s:s, s:n, s:O}", "what", k, "label", label,
								       "baseline", "value", v));
		json_decref(facts);
	}
	json_decref(bfacts);
	stack_loaded_first(stack);
}

/* what this comparison can resolve: the median over its tested pairs of the smallest change each could be called
 * at (pair_resolution); null without one */
static json_t *build_resolution(const struct build *b)
{
	double lo, hi;

	if (!b->nres)
		return json_null();
	lo = hi = b->resv[0];
	for (size_t k = 1; k < b->nres; k++)
		lo = fmin(lo, b->resv[k]), hi = fmax(hi, b->resv[k]);
	return json_pack("{s:f, s:I, s:f, s:f, s:f, s:f}", "median", stats_median(b->resv, b->nres), "cases",
			 (json_int_t)b->nres, "min", lo, "max", hi, "power_975", stats_median(b->res975v, b->nres),
			 "runs_for_threshold", stats_median(b->runsv, b->nres));
}

static void build_release(struct build *b)
{
	for (size_t k = 0; k < b->npairs; k++)
		gcase_release(&b->pairs[k].other);
	for (size_t k = 0; k < b->ncases; k++)
		gcase_release(&b->bcases[k]);
	free(b->pairs);
	free(b->bcases);
	json_decref(b->bkeys);
	free(b->resv);
	free(b->res975v);
	free(b->runsv);
}

json_t *compare_build_groups(const struct compare_side *sides, const struct compare_group *groups, size_t ng,
			     size_t base, const struct compare_opts *o)
{
	json_t *root = json_object(), *cases = json_array(), *stack = json_array(), *sj = json_array();
	json_t *not_ok = json_array(), *few = json_array();
	struct build b = { .sides = sides, .groups = groups, .ng = ng, .base = base, .o = o };
	size_t ntests, pi = 0;

	b.bkeys = group_keys(sides, &groups[base]);
	b.ncases = json_object_size(b.bkeys);
	b.bcases = xcalloc(b.ncases ? b.ncases : 1, sizeof(*b.bcases));
	b.pairs = xcalloc(b.ncases * ng + 1, sizeof(*b.pairs));
	b.resv = xcalloc(b.ncases * ng + 1, sizeof(double));
	b.res975v = xcalloc(b.ncases * ng + 1, sizeof(double));
	b.runsv = xcalloc(b.ncases * ng + 1, sizeof(double));
	b.only = json_array();
	b.method = json_array();
	for (size_t i = 0; i < ng; i++)
		json_array_append_new(sj, side_json(sides, &groups[i], i == base));
	build_pairs(&b);
	pairs_compute(b.pairs, b.npairs, o->resamples);
	ntests = pairs_adjust(b.pairs, b.npairs, groups, ng, base, o->alpha);
	for (size_t ci = 0; ci < b.ncases; ci++)
		json_array_append_new(cases, case_row(&b, &b.bcases[ci], &pi));
	build_not_ok(&b, not_ok, few);
	build_side_differs(&b, stack);
	json_object_set_new(root, "schema", json_string("bench.compare/v2"));
	json_object_set_new(root, "baseline", json_string(groups[base].label));
	json_object_set_new(root, "threshold", json_real(o->threshold));
	json_object_set_new(root, "alpha", json_real(o->alpha));
	json_object_set_new(root, "resamples", json_integer(o->resamples));
	json_object_set_new(root, "tests", json_integer((json_int_t)ntests));
	json_object_set_new(root, "resolution", build_resolution(&b));
	json_object_set_new(root, "noise", o->noise ? json_deep_copy(o->noise) : json_null());
	json_object_set_new(root, "rule", json_string("ratio of the medians of run medians (other / baseline; above 1 is "
						      "faster), its 95% CI by a hierarchical bootstrap (runs, then samples); "
						      "with 3 runs or more per side, Welch's t test on the runs' log medians, "
						      "adjusted over every test by step-down min-P under a run effect shared by "
						      "the cases of a run (Westfall-Young; Holm where cases share nothing): faster "
						      "or slower when the adjusted p < alpha and the ratio lies beyond 1 +/- "
						      "threshold; same when the CI lies within 1 +/- threshold; else, and with "
						      "fewer runs, inconclusive"));
	json_object_set_new(root, "sides", sj);
	json_object_set_new(root, "cost_rank", cost_rank(cases, groups[base].label));
	json_object_set_new(root, "cases", cases);
	json_object_set_new(root, "only_in_one", b.only);
	json_object_set_new(root, "not_ok", not_ok);
	json_object_set_new(root, "few_samples", few);
	json_object_set_new(root, "method_differs", b.method);
	json_object_set_new(root, "stack_differs", stack);
	json_object_set_new(root, "counts", json_pack("{s:I, s:I, s:I, s:I}", "faster", (json_int_t)b.faster, "slower",
						      (json_int_t)b.slower, "same", (json_int_t)b.same, "inconclusive",
						      (json_int_t)b.inconclusive));
	json_object_set_new(root, "summary", compare_summary_lines(root));
	build_release(&b);
	return root;
}

json_t *compare_build(const struct compare_side *sides, size_t n, size_t baseline, const struct compare_opts *o)
{
	size_t ng, *starts = xcalloc(n ? n : 1, sizeof(*starts));
	struct compare_group *g;
	json_t *r;

	for (size_t i = 0; i < n; i++)
		starts[i] = i;
	g = compare_group_runs(&ng, sides, n, starts, n);
	r = compare_build_groups(sides, g, ng, baseline, o);
	compare_groups_free(g, ng);
	free(starts);
	return r;
}

/* the ratios of one verdict: count, geometric mean, least, largest */
struct verdict_sum {
	size_t n;
	double logsum, lo, hi;
};

static void verdict_add(struct verdict_sum *v, double ratio)
{
	if (!(ratio > 0))
		return;
	v->lo = v->n ? fmin(v->lo, ratio) : ratio;
	v->hi = v->n ? fmax(v->hi, ratio) : ratio;
	v->logsum += log(ratio);
	v->n++;
}

static void verdict_text(struct strbuf *sb, const struct verdict_sum *v, size_t n, const char *word)
{
	strbuf_addf(sb, "%zu %s", n, word);
	if (v->n)
		strbuf_addf(sb, " %.2fx [%.2f, %.2f]", exp(v->logsum / (double)v->n), v->lo, v->hi);
}

json_t *compare_summary_lines(json_t *r)
{
	json_t *out = json_array(), *sides = json_object_get(r, "sides"), *side, *c;
	const char *base = json_string_value(json_object_get(r, "baseline"));
	size_t i, k, nside = 0;

	json_array_foreach(sides, i, side) {
		struct verdict_sum fast = { 0, 0, 0, 0 }, slow = { 0, 0, 0, 0 };
		size_t nfast = 0, nslow = 0, nsame = 0, ninc = 0, nnc = 0, nmiss = 0;
		const char *label = json_string_value(json_object_get(side, "label"));
		struct strbuf sb = STRBUF_INIT;

		if (json_is_true(json_object_get(side, "baseline")))
			continue;
		json_array_foreach(json_object_get(r, "cases"), k, c) {
			json_t *o = json_array_get(json_object_get(c, "others"), nside);
			const char *v = json_string_value(json_object_get(o, "verdict"));
			double ratio = json_number_value(json_object_get(o, "ratio"));

			if (!v)
				continue;
			if (!strcmp(v, "faster"))
				nfast++, verdict_add(&fast, ratio);
			else if (!strcmp(v, "slower"))
				nslow++, verdict_add(&slow, ratio);
			else if (!strcmp(v, "same"))
				nsame++;
			else if (!strcmp(v, "inconclusive"))
				ninc++;
			else if (!strcmp(v, "missing"))
				nmiss++;
			else
				nnc++;
		}
		nside++;
		strbuf_addf(&sb, "%s vs %s: ", label ? label : "?", base ? base : "?");
		verdict_text(&sb, &fast, nfast, nfast == 1 ? "case faster" : "cases faster");
		strbuf_addf(&sb, ", %zu same, ", nsame);
		verdict_text(&sb, &slow, nslow, "slower");
		strbuf_addf(&sb, ", %zu inconclusive", ninc);
		if (nnc)
			strbuf_addf(&sb, ", %zu not comparable", nnc);
		if (nmiss)
			strbuf_addf(&sb, ", %zu missing", nmiss);
		json_array_append_new(out, json_string(sb.buf));
		strbuf_release(&sb);
	}
	return out;
}

int compare_interleave_summary(json_t **out, char *const *dirs, size_t n)
{
	struct compare_opts co = { 0.02, 0.01, 2000, 0, NULL, NULL };
	struct compare_side *sides = NULL;
	struct compare_group *g = NULL;
	size_t ng = 0;
	json_t *r = NULL;
	int err;

	*out = NULL;
	if ((err = compare_load_all(&sides, dirs, n, &co)) < 0)
		goto cleanup;
	g = compare_group_runs(&ng, sides, n, NULL, 0);
	if (ng < 2) {
		*out = json_array();
		goto cleanup;
	}
	r = compare_build_groups(sides, g, ng, 0, &co);
	*out = json_incref(json_object_get(r, "summary"));
cleanup:
	json_decref(r);
	compare_groups_free(g, ng);
	compare_sides_free(sides, n);
	return err;
}
