/* SPDX-License-Identifier: Apache-2.0 */
/* quality.c — the quality verdict of a measured case (quality.h). */
#include "quality.h"

#include <math.h>
#include <string.h>

#include "manifest/suite.h"

json_t *quality_eval(json_t *rec)
{
	const char *status = json_string_value(json_object_get(rec, "status"));
	const struct suite_ops *ops = suite_find(json_string_value(json_object_get(rec, "suite")) ?
						 json_string_value(json_object_get(rec, "suite")) : "");
	json_t *st = json_object_get(rec, "stats"), *jn = json_object_get(st, "n"), *jcv = json_object_get(st, "cv");
	json_t *q, *flags;

	if (!status || strcmp(status, "ok") || !ops || !json_is_number(jn))
		return NULL;
	flags = json_array();
	if (ops->min_samples && json_number_value(jn) < ops->min_samples)
		json_array_append_new(flags, json_string("few-samples"));
	if (json_is_number(jcv) && isfinite(json_number_value(jcv)) && json_number_value(jcv) > QUALITY_MAX_CV)
		json_array_append_new(flags, json_string("high-cv"));
	q = json_pack("{s:I, s:f, s:o}", "min_samples", (json_int_t)ops->min_samples, "max_cv", QUALITY_MAX_CV, "flags",
		      flags);
	return q;
}

json_t *quality_of(json_t *rec)
{
	json_t *q = json_object_get(rec, "quality");

	if (json_is_array(json_object_get(q, "flags")))
		return json_incref(q);
	return quality_eval(rec);
}

void quality_describe(char *buf, size_t len, json_t *rec)
{
	json_t *q = quality_of(rec), *f;
	size_t i, off = 0;

	buf[0] = 0;
	json_array_foreach(json_object_get(q, "flags"), i, f) {
		const char *s = json_string_value(f);
		int w = 0;

		if (!s || off >= len)
			continue;
		if (!strcmp(s, "few-samples")) /* the row shows n and cv: the bound is what it adds */
			w = snprintf(buf + off, len - off, "%sn < %lld", off ? ", " : "",
				     (long long)json_integer_value(json_object_get(q, "min_samples")));
		else if (!strcmp(s, "high-cv"))
			w = snprintf(buf + off, len - off, "%scv > %.0f%%", off ? ", " : "",
				     100.0 * json_number_value(json_object_get(q, "max_cv")));
		/* another flag (a later bench's, or a bundle's own text) is not printed: only these two are known */
		off += w > 0 ? (size_t)w : 0;
	}
	json_decref(q);
}

void quality_print_note(FILE *fp, size_t flagged, size_t ok)
{
	if (flagged)
		fprintf(fp, "! %zu of %zu ok case%s flagged: fewer timed samples than the suite's minimum, or cv above %.0f%%: "
			    "the figure alone is not to be trusted\n", flagged, ok, ok == 1 ? "" : "s", 100.0 * QUALITY_MAX_CV);
}
