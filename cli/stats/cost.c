/* SPDX-License-Identifier: Apache-2.0 */
#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "manifest/ynode.h"

json_t *cost_pricing_parse(const char *yaml, size_t len)
{
	struct diag_list diags = DIAG_LIST_INIT;
	struct ynode *root = NULL;
	const struct ynode *p, *u, *s;
	json_t *out = NULL;
	double usd;
	char *end;

	if (!yaml || ynode_load(&root, &diags, "manifest.yaml", yaml, len) < 0)
		goto cleanup;
	p = ynode_map_get(root, "pricing");
	u = ynode_map_get(p, "usd_per_gpu_hour");
	if (!u || u->type != YNODE_SCALAR || !u->plain)
		goto cleanup;
	usd = strtod(u->value, &end);
	if (*end || !(usd > 0) || !isfinite(usd))
		goto cleanup;
	s = ynode_map_get(p, "source");
	out = json_pack("{s:f, s:s?}", "usd_per_gpu_hour", usd, "source",
			s && s->type == YNODE_SCALAR && !ynode_is_null(s) && strlen(s->value) == s->len ? s->value : NULL);
	if (!json_object_get(out, "source"))
		json_object_set_new(out, "source", json_null());
cleanup:
	ynode_free(root);
	diag_list_release(&diags);
	bench_error_clear();
	return out;
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

json_t *cost_of_record(json_t *pricing, json_t *rec, double value)
{
	json_t *extra = json_object_get(rec, "extra"), *en = json_object_get(extra, "energy"), *out;
	const char *st = json_string_value(json_object_get(rec, "status")), *unit = json_string_value(json_object_get(rec, "unit"));
	double usd = num(pricing, "usd_per_gpu_hour");

	if (!st || strcmp(st, "ok"))
		return NULL;
	if (isnan(value))
		value = num(rec, "value");
	out = json_object();
	if (json_is_true(json_object_get(en, "available"))) {
		static const char *const keys[] = { "joules", "tflop_per_joule", "gb_per_joule" };

		for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
			if (json_is_number(json_object_get(en, keys[i])))
				json_object_set(out, keys[i], json_object_get(en, keys[i]));
	} else if (json_is_string(json_object_get(en, "why"))) {
		json_object_set(out, "energy_why", json_object_get(en, "why"));
	}
	if (usd > 0) {
		double tps = num(extra, "tokens_per_s"), world = num(extra, "world_size"), total = num(extra, "global_tokens_per_s");

		if (unit && !strcmp(unit, "TFLOP/s") && value > 0)
			json_object_set_new(out, "usd_per_hour_per_pflops", json_real(usd / (value / 1000.0)));
		if (tps > 0) {
			double gpus = world >= 1 ? floor(world) : 1;

			if (!(total > 0))
				total = tps * gpus;
			json_object_set_new(out, "usd_per_million_tokens", json_real(usd * gpus / (total * 3600.0) * 1e6));
			json_object_set_new(out, "gpus", json_integer((json_int_t)gpus));
		}
	}
	if (!json_object_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

char *cost_pricing_text(json_t *pricing)
{
	const char *src = json_string_value(json_object_get(pricing, "source"));

	return xstrfmt("USD %.4g per GPU-hour (%s%s)", num(pricing, "usd_per_gpu_hour"), src ? "source: " : "",
		       src ? src : "no source given");
}

const char *cost_rank_key(json_t *figure)
{
	if (json_is_number(json_object_get(figure, "usd_per_million_tokens")))
		return "usd_per_million_tokens";
	if (json_is_number(json_object_get(figure, "usd_per_hour_per_pflops")))
		return "usd_per_hour_per_pflops";
	return NULL;
}

char *cost_figure_text(json_t *f)
{
	static const struct { const char *key, *fmt; } parts[] = {
		{ "usd_per_hour_per_pflops", "USD %.4g/h per PFLOP/s" }, { "usd_per_million_tokens", "USD %.4g per M tokens" },
		{ "joules", "%.4g J/call" }, { "tflop_per_joule", "%.4g TFLOP/J" }, { "gb_per_joule", "%.4g GB/J" },
	};
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "");
	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++) {
		json_t *v = json_object_get(f, parts[i].key);

		if (!json_is_number(v))
			continue;
		if (sb.len)
			strbuf_addstr(&sb, ", ");
		strbuf_addf(&sb, parts[i].fmt, json_number_value(v));
	}
	return strbuf_detach(&sb);
}
