/* SPDX-License-Identifier: Apache-2.0 */
#include "summary.h"

#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "core/error.h"
#include "core/strbuf.h"

void summary_sha256_str(char out[65], const char *s)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	EVP_Digest(s, strlen(s), md, &n, EVP_sha256(), NULL);
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[64] = '\0';
}

/* o[k] = src[k] when src has it */
static void copy_key(json_t *o, json_t *src, const char *k)
{
	json_t *v = json_object_get(src, k);

	if (v)
		json_object_set(o, k, v);
}

static json_t *pick(json_t *src, const char *const *keys)
{
	json_t *o = json_object();

	for (; *keys; keys++)
		copy_key(o, src, *keys);
	return o;
}

json_t *summary_of_side(const struct compare_side *s, const char *sha256, const char *rel)
{
	static const char *const rec_keys[] = { "suite", "case", "metric", "unit", "status", "value", "error", NULL };
	static const char *const case_keys[] = { "suite", "case", "status", "error", NULL };
	json_t *o = json_object(), *recs = json_object(), *env = json_object(), *st = json_object(), *cases = json_array();
	json_t *gpu = json_object_get(json_array_get(json_object_get(s->env, "gpus"), 0), "name"), *x, *c;
	const char *k;
	size_t i;

	json_object_set_new(o, "format", json_integer(SUMMARY_FORMAT));
	json_object_set_new(o, "sha256", json_string(sha256));
	json_object_set_new(o, "path", json_string(rel));
	json_object_set_new(o, "run", json_string(s->run ? s->run : s->label));
	json_object_set_new(o, "keyid", json_string(s->keyid ? s->keyid : ""));
	json_object_set_new(o, "manifest_sha256", json_string(s->manifest_sha256));
	json_object_set_new(o, "plan", pick(s->plan, (const char *const[]){ "name", "channel", NULL }));
	json_object_set_new(o, "lock", pick(s->lock, (const char *const[]){ "source_date_epoch", NULL }));
	if (gpu)
		json_object_set_new(env, "gpus", json_pack("[{s:O}]", "name", gpu));
	json_object_set_new(env, "host", pick(json_object_get(s->env, "host"), (const char *const[]){ "cpu_model", NULL }));
	json_object_set_new(o, "env", env);
	copy_key(st, s->status, "state");
	copy_key(st, s->status, "started");
	json_array_foreach(json_object_get(s->status, "cases"), i, c) /* what compare_run_health() counts but "ok" */
		if (strcmp(json_string_value(json_object_get(c, "status")) ? json_string_value(json_object_get(c, "status")) : "", "ok"))
			json_array_append_new(cases, pick(c, case_keys));
	json_object_set_new(st, "cases", cases);
	json_object_set_new(o, "status", s->status ? st : json_null());
	if (!s->status)
		json_decref(st);
	json_object_set_new(o, "pricing", s->pricing ? json_incref(s->pricing) : json_null());
	json_object_foreach(s->records, k, x)
		json_object_set_new(recs, k, pick(x, rec_keys));
	json_object_set_new(o, "records", recs);
	return o;
}

json_t *summary_samples_of_side(const struct compare_side *s)
{
	json_t *o = json_object(), *x;
	const char *k;

	json_object_foreach(s->records, k, x)
		if (json_is_array(json_object_get(x, "samples_ms")))
			json_object_set_new(o, k, json_pack("{s:O, s:O?}", "samples_ms", json_object_get(x, "samples_ms"), "params",
							    json_object_get(x, "params")));
	return o;
}

static json_t *copy_or_null(json_t *v)
{
	return v && !json_is_null(v) ? json_incref(v) : NULL;
}

int summary_side_load(struct compare_side *out, json_t *sum, json_t *samples)
{
	const char *run = json_string_value(json_object_get(sum, "run")), *k;
	const char *ms = json_string_value(json_object_get(sum, "manifest_sha256"));
	json_t *x;

	memset(out, 0, sizeof(*out));
	/* format 1 held params and every case's status inline: read as well */
	if (json_integer_value(json_object_get(sum, "format")) < 1 || json_integer_value(json_object_get(sum, "format")) > SUMMARY_FORMAT || !run || !json_is_object(json_object_get(sum, "records")))
		return bench_error_set(BENCH_E_VERIFY, "not a run summary of format 1 to %d", SUMMARY_FORMAT);
	out->path = xstrdup(json_string_value(json_object_get(sum, "path")) ? json_string_value(json_object_get(sum, "path")) : "");
	out->label = xstrdup(run);
	out->run = xstrdup(run);
	out->keyid = xstrdup(json_string_value(json_object_get(sum, "keyid")) ? json_string_value(json_object_get(sum, "keyid")) : "");
	out->verified = 1;
	out->records = json_incref(json_object_get(sum, "records"));
	out->env = copy_or_null(json_object_get(sum, "env"));
	out->plan = copy_or_null(json_object_get(sum, "plan"));
	out->lock = copy_or_null(json_object_get(sum, "lock"));
	out->status = copy_or_null(json_object_get(sum, "status"));
	out->pricing = copy_or_null(json_object_get(sum, "pricing"));
	if (ms && strlen(ms) < sizeof(out->manifest_sha256))
		strcpy(out->manifest_sha256, ms);
	json_object_foreach(out->records, k, x) {
		json_t *sm = json_object_get(samples, k);

		if (sm) {
			json_object_set(x, "samples_ms", json_object_get(sm, "samples_ms"));
			if (json_object_get(sm, "params"))
				json_object_set(x, "params", json_object_get(sm, "params"));
		}
	}
	return 0;
}
