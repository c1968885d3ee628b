#include "compare.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/error.h"
#include "../core/fs.h"
#include "../core/strbuf.h"
#include "../manifest/suite.h"
#include "bundle.h"
#include "sign.h"
#include "stats.h"

void compare_side_release(struct compare_side *s)
{
	free(s->path);
	free(s->label);
	free(s->keyid);
	json_decref(s->records);
	json_decref(s->env);
	json_decref(s->plan);
	json_decref(s->summary);
	json_decref(s->lock);
	json_decref(s->status);
	memset(s, 0, sizeof(*s));
}

const char *compare_case_reason(json_t *rec)
{
	const char *e = json_string_value(json_object_get(rec, "error"));

	return e && *e ? e : "no reason was recorded";
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

static void add_records(json_t *records, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_t *r = json_loadb(p, l, 0, NULL);
		const char *key = json_string_value(json_object_get(r, "case"));
		const char *suite = json_string_value(json_object_get(r, "suite"));

		if (key && suite) {
			char *k = xstrfmt("%s %s", suite, key);

			json_object_set(records, k, r);
			free(k);
		}
		json_decref(r);
		p += l + 1;
	}
}

static int load_dir(struct compare_side *s, const char *dir)
{
	char *p;

	p = xstrfmt("%s/plan.json", dir);
	s->plan = json_load_file(p, 0, NULL);
	free(p);
	if (!s->plan)
		return bench_error_set(BENCH_E_FAIL, "'%s' is not a run directory or a bundle (no plan.json)", dir);
	p = xstrfmt("%s/env/environment.json", dir);
	s->env = json_load_file(p, 0, NULL);
	free(p);
	p = xstrfmt("%s/summary.json", dir);
	s->summary = json_load_file(p, 0, NULL);
	free(p);
	p = xstrfmt("%s/manifest.lock.json", dir);
	s->lock = json_load_file(p, 0, NULL);
	free(p);
	p = xstrfmt("%s/status.json", dir);
	s->status = json_load_file(p, 0, NULL);
	free(p);
	for (size_t i = 0; suite_registry[i]; i++) {
		char *buf = NULL;
		size_t len;

		p = xstrfmt("%s/results/%s.jsonl", dir, suite_registry[i]->name);
		if (fs_read_file(&buf, &len, p, (size_t)1 << 34) == 0)
			add_records(s->records, buf, len);
		free(buf);
		free(p);
	}
	bench_error_clear();
	{
		const char *b = strrchr(dir, '/');
		char *d = xstrdup(b && b[1] ? b + 1 : dir);

		s->label = d;
	}
	return 0;
}

static int load_bundle(struct compare_side *s, const char *path, const struct compare_opts *o)
{
	struct bundle_verify_result vr = BUNDLE_VERIFY_RESULT_INIT;
	struct bundle_limits lim;
	const char *names[16];
	size_t n = 0;
	json_t *m = NULL;
	char *run = NULL;
	int err;

	bundle_limits_default(&lim);
	err = bundle_verify(&vr, path, NULL, o->keys, sign_home(), &lim);
	if (err < 0 && !o->allow_unverified)
		return bench_error_set(BENCH_E_VERIFY, "'%s' does not verify (%s); pass --allow-unverified to compare it "
				       "anyway, marked as such", path, bench_error_last());
	s->verified = err == 0;
	if (err == 0)
		s->keyid = xstrdup(vr.keyid);
	bundle_verify_result_release(&vr);
	names[n++] = "plan.json";
	names[n++] = "env/environment.json";
	names[n++] = "summary.json";
	names[n++] = "manifest.lock.json";
	names[n++] = "status.json";
	for (size_t i = 0; suite_registry[i] && n < 15; i++)
		names[n++] = xstrfmt("results/%s.jsonl", suite_registry[i]->name);
	names[n] = NULL;
	err = bundle_read_members(&m, &run, path, names, (size_t)1 << 32);
	for (size_t i = 5; i < n; i++)
		free((char *)names[i]);
	if (err < 0)
		return err;
	s->label = run;
	if (json_is_string(json_object_get(m, "plan.json")))
		s->plan = json_loads(json_string_value(json_object_get(m, "plan.json")), 0, NULL);
	if (json_is_string(json_object_get(m, "env/environment.json")))
		s->env = json_loads(json_string_value(json_object_get(m, "env/environment.json")), 0, NULL);
	if (json_is_string(json_object_get(m, "summary.json")))
		s->summary = json_loads(json_string_value(json_object_get(m, "summary.json")), 0, NULL);
	if (json_is_string(json_object_get(m, "manifest.lock.json")))
		s->lock = json_loads(json_string_value(json_object_get(m, "manifest.lock.json")), 0, NULL);
	if (json_is_string(json_object_get(m, "status.json")))
		s->status = json_loads(json_string_value(json_object_get(m, "status.json")), 0, NULL);
	{
		const char *k;
		json_t *v;

		json_object_foreach(m, k, v)
			if (!strncmp(k, "results/", 8))
				add_records(s->records, json_string_value(v), json_string_length(v));
	}
	json_decref(m);
	return 0;
}

static int label_taken(const struct compare_side *sides, size_t i, const char *l)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(sides[j].label, l))
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
	if (err == 0)
		merge_status(out);
	if (err < 0)
		compare_side_release(out);
	return err;
}

/* metric value of each sample: the headline metric is proportional to 1/time for a given case */
static size_t samples(double **out, json_t *rec)
{
	json_t *s = json_object_get(rec, "samples_ms"), *v;
	size_t i, n = json_array_size(s);

	*out = xcalloc(n ? n : 1, sizeof(double));
	json_array_foreach(s, i, v)
		(*out)[i] = json_number_value(v);
	return n;
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
	/* the pins of a --locked run: component versions, commits and wheel digests, the base image digest */
	flatten(f, "lock.components", json_object_get(s->lock, "components"), 0);
	flatten(f, "lock.base", json_object_get(s->lock, "base"), 0);
	/* identities that differ by nature */
	json_object_del(f, "gpu.uuid");
	json_object_del(f, "gpu.pci_bus_id");
	json_object_del(f, "gpu.index");
	return f;
}

/* One bootstrap interval to compute: the samples of a baseline case and of the same case on another side. */
struct ci_job {
	double *a, *b;
	size_t na, nb;
	double ratio, lo, hi, u, p;
};

struct ci_pool {
	struct ci_job *jobs;
	size_t n, next;
	unsigned resamples;
	pthread_mutex_t lock;
};

static void *ci_worker(void *arg)
{
	struct ci_pool *pool = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&pool->lock);
		i = pool->next;
		pool->next += 16;
		pthread_mutex_unlock(&pool->lock);
		if (i >= pool->n)
			return NULL;
		for (size_t j = i; j < i + 16 && j < pool->n; j++) {
			struct ci_job *c = &pool->jobs[j];

			/* metric ~ 1/time: ratio of metric medians = median(time A) / median(time B) */
			c->ratio = stats_median(c->a, c->na) / stats_median(c->b, c->nb);
			/* the same fixed seed for every case: the output does not depend on the thread that ran it */
			stats_bootstrap_ratio_ci(&c->lo, &c->hi, c->a, c->na, c->b, c->nb, pool->resamples, 0x5eed);
			stats_mann_whitney(&c->u, &c->p, c->a, c->na, c->b, c->nb);
		}
	}
}

static int status_ok(json_t *rec)
{
	const char *s = json_string_value(json_object_get(rec, "status"));

	return s && !strcmp(s, "ok");
}

/* The statistics of every comparable pair (the bootstrap is the whole cost of a comparison: 2000 resamples of
 * every case) are computed up front, on every core, in the order compare_build() consumes them. */
static struct ci_job *compare_compute_cis(size_t *out_n, const struct compare_side *sides, size_t n, size_t base,
					  unsigned resamples)
{
	struct ci_pool pool = { NULL, 0, 0, resamples, PTHREAD_MUTEX_INITIALIZER };
	size_t cap = 0;
	const char *key;
	json_t *brec;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th[16];
	size_t nth = cores < 1 ? 1 : cores > 16 ? 16 : (size_t)cores, started = 0;

	json_object_foreach(sides[base].records, key, brec) {
		for (size_t i = 0; i < n; i++) {
			json_t *orec = i == base ? NULL : json_object_get(sides[i].records, key);
			struct ci_job c = { NULL, NULL, 0, 0, 0, 0, 0, 0, 0 };

			if (!orec || !status_ok(brec) || !status_ok(orec))
				continue;
			c.na = samples(&c.a, brec);
			c.nb = samples(&c.b, orec);
			if (c.na < 2 || c.nb < 2) {
				free(c.a);
				free(c.b);
				continue;
			}
			if (pool.n == cap)
				pool.jobs = xrealloc(pool.jobs, (cap = cap ? 2 * cap : 256) * sizeof(*pool.jobs));
			pool.jobs[pool.n++] = c;
		}
	}
	if (nth > 1 && pool.n > 64)
		for (; started < nth - 1; started++)
			if (pthread_create(&th[started], NULL, ci_worker, &pool))
				break;
	ci_worker(&pool);
	for (size_t t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&pool.lock);
	for (size_t j = 0; j < pool.n; j++) {
		free(pool.jobs[j].a);
		free(pool.jobs[j].b);
	}
	*out_n = pool.n;
	return pool.jobs;
}

json_t *compare_build(const struct compare_side *sides, size_t n, size_t base, const struct compare_opts *o)
{
	json_t *root = json_object(), *cases = json_array(), *only = json_array(), *method = json_array();
	json_t *stack = json_array(), *sj = json_array(), *bfacts = compare_stack_facts(&sides[base]), *not_ok = json_array();
	const char *key;
	json_t *brec;
	size_t slower = 0, faster = 0, njobs = 0, job = 0;
	struct ci_job *jobs = compare_compute_cis(&njobs, sides, n, base, o->resamples);

	for (size_t i = 0; i < n; i++)
		json_array_append_new(sj, json_pack("{s:s, s:s, s:b, s:s?, s:b}", "label", sides[i].label, "path", sides[i].path,
						    "verified", sides[i].verified, "keyid", sides[i].keyid, "baseline", i == base));
	/* cases, in the baseline's order of keys (sorted: deterministic output) */
	json_object_foreach(sides[base].records, key, brec) {
		json_t *row = json_pack("{s:s, s:s, s:s?, s:s?}", "suite", json_string_value(json_object_get(brec, "suite")),
					"case", json_string_value(json_object_get(brec, "case")), "metric",
					json_string_value(json_object_get(brec, "metric")), "unit",
					json_string_value(json_object_get(brec, "unit"))), *others = json_array(), *bj;
		size_t na = json_array_size(json_object_get(brec, "samples_ms"));
		int bok = status_ok(brec);
		const char *bst = json_string_value(json_object_get(brec, "status")) ? json_string_value(json_object_get(brec, "status")) : "unknown";

		/* a case that did not measure has no value to show, whatever its record holds */
		bj = json_pack("{s:O, s:I, s:s}", "value", bok ? json_object_get(brec, "value") : json_null(), "n", (json_int_t)na,
			       "status", bst);
		if (!bok)
			json_object_set_new(bj, "error", json_string(compare_case_reason(brec)));
		json_object_set_new(row, "baseline", bj);
		for (size_t i = 0; i < n; i++) {
			json_t *orec, *o_row;
			double ratio, lo, hi, u, p;
			size_t nb;
			const char *verdict;
			int ook;

			if (i == base)
				continue;
			orec = json_object_get(sides[i].records, key);
			if (!orec) {
				json_array_append_new(others, json_pack("{s:s, s:s}", "label", sides[i].label, "verdict", "missing"));
				json_array_append_new(only, json_pack("{s:s, s:s}", "case", key, "only_in", sides[base].label));
				continue;
			}
			if (!json_equal(json_object_get(orec, "params"), json_object_get(brec, "params")) &&
			    json_object_get(orec, "params") && json_object_get(brec, "params"))
				json_array_append_new(method, json_pack("{s:s, s:s, s:O, s:O}", "case", key, "label", sides[i].label,
									"baseline_params", json_object_get(brec, "params"),
									"params", json_object_get(orec, "params")));
			nb = json_array_size(json_object_get(orec, "samples_ms"));
			ook = status_ok(orec);
			o_row = json_pack("{s:s, s:O, s:I, s:s}", "label", sides[i].label, "value",
					  ook ? json_object_get(orec, "value") : json_null(), "n", (json_int_t)nb, "status",
					  json_string_value(json_object_get(orec, "status")) ? json_string_value(json_object_get(orec, "status")) : "unknown");
			if (!ook)
				json_object_set_new(o_row, "error", json_string(compare_case_reason(orec)));
			if (!bok || !ook) {
				struct strbuf why = STRBUF_INIT;

				verdict = "not comparable";
				if (!bok)
					strbuf_addf(&why, "%s in %s: %s", bst, sides[base].label, compare_case_reason(brec));
				if (!ook)
					strbuf_addf(&why, "%s%s in %s: %s", why.len ? "; " : "", json_string_value(json_object_get(o_row, "status")),
						    sides[i].label, compare_case_reason(orec));
				json_object_set_new(o_row, "why", json_string(why.buf));
				strbuf_release(&why);
			} else if (na < 2 || nb < 2) {
				char *why = na < 2 && nb < 2 ? xstrfmt("too few samples (baseline n=%zu, other n=%zu)", na, nb)
					    : na < 2 ? xstrfmt("too few samples in the baseline (n=%zu)", na)
						     : xstrfmt("too few samples (n=%zu)", nb);

				verdict = "not comparable";
				ratio = json_number_value(json_object_get(orec, "value")) / json_number_value(json_object_get(brec, "value"));
				json_object_set_new(o_row, "ratio", json_real(ratio));
				json_object_set_new(o_row, "why", json_string(why));
				free(why);
			} else {
				/* computed up front, in this same order of cases and sides */
				ratio = jobs[job].ratio, lo = jobs[job].lo, hi = jobs[job].hi, u = jobs[job].u, p = jobs[job].p;
				job++;
				if (lo > 1 + o->threshold && p < o->alpha)
					verdict = "faster", faster++;
				else if (hi < 1 - o->threshold && p < o->alpha)
					verdict = "slower", slower++;
				else
					verdict = "same";
				json_object_set_new(o_row, "ratio", json_real(ratio));
				json_object_set_new(o_row, "ci95", json_pack("[f, f]", lo, hi));
				json_object_set_new(o_row, "p", json_real(p));
				json_object_set_new(o_row, "u", json_real(u));
			}
			json_object_set_new(o_row, "verdict", json_string(verdict));
			json_array_append_new(others, o_row);
		}
		json_object_set_new(row, "others", others);
		json_array_append_new(cases, row);
	}
	/* every case that did not measure, on every side, with its reason: none is dropped silently */
	for (size_t i = 0; i < n; i++)
		json_object_foreach(sides[i].records, key, brec)
			if (!status_ok(brec))
				json_array_append_new(not_ok, json_pack("{s:s, s:s?, s:s?, s:s, s:s}", "label", sides[i].label, "suite",
									json_string_value(json_object_get(brec, "suite")), "case",
									json_string_value(json_object_get(brec, "case")), "status",
									json_string_value(json_object_get(brec, "status")) ? json_string_value(json_object_get(brec, "status")) : "unknown",
									"error", compare_case_reason(brec)));
	for (size_t i = 0; i < n; i++) {
		json_t *facts;
		const char *k;
		json_t *v;

		if (i == base)
			continue;
		json_object_foreach(sides[i].records, key, brec)
			if (!json_object_get(sides[base].records, key))
				json_array_append_new(only, json_pack("{s:s, s:s}", "case", key, "only_in", sides[i].label));
		facts = compare_stack_facts(&sides[i]);
		json_object_foreach(bfacts, k, v) {
			json_t *w = json_object_get(facts, k);

			if (!w || !json_equal(v, w))
				json_array_append_new(stack, json_pack("{s:s, s:s, s:O, s:O}", "what", k, "label", sides[i].label,
								       "baseline", v, "value", w ? w : json_null()));
		}
		json_object_foreach(facts, k, v)
			if (!json_object_get(bfacts, k))
				json_array_append_new(stack, json_pack("{s:s, s:s, s:n, s:O}", "what", k, "label", sides[i].label,
								       "baseline", "value", v));
		json_decref(facts);
	}
	json_decref(bfacts);
	free(jobs);
	json_object_set_new(root, "schema", json_string("bench.compare/v1"));
	json_object_set_new(root, "baseline", json_string(sides[base].label));
	json_object_set_new(root, "threshold", json_real(o->threshold));
	json_object_set_new(root, "alpha", json_real(o->alpha));
	json_object_set_new(root, "resamples", json_integer(o->resamples));
	json_object_set_new(root, "rule", json_string("significant only when the whole 95% bootstrap CI of the ratio of "
						      "medians lies outside 1 +/- threshold and the Mann-Whitney U p < alpha"));
	json_object_set_new(root, "sides", sj);
	json_object_set_new(root, "cases", cases);
	json_object_set_new(root, "only_in_one", only);
	json_object_set_new(root, "not_ok", not_ok);
	json_object_set_new(root, "method_differs", method);
	json_object_set_new(root, "stack_differs", stack);
	json_object_set_new(root, "counts", json_pack("{s:I, s:I}", "faster", (json_int_t)faster, "slower", (json_int_t)slower));
	return root;
}
