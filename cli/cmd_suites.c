/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_suites.c — bench suites [NAME...]: every suite, every parameter with type, default and meaning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/units.h"
#include "manifest/suite.h"

static const struct opt_cmd cmd = { "suites", "[--json] [SUITE...]",
				    "List the suites bench can run and each parameter's type, allowed values, default "
				    "(per vendor where it differs) and meaning." };

static char *choices_text(const struct param_def *d)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; d->choices && d->choices[i]; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", d->choices[i]);
	return strbuf_detach(&sb);
}

static json_t *suite_json(const struct suite_ops *s)
{
	json_t *params = json_array();

	for (const struct param_def *d = s->params; d->name; d++) {
		json_t *p = json_pack("{s:s, s:s, s:s, s:s}", "name", d->name, "type", param_type_name(d->type), "default",
				      d->def, "help", d->help);

		if (d->def_cpu)
			json_object_set_new(p, "default_cpu", json_string(d->def_cpu));
		if (d->def_rocm)
			json_object_set_new(p, "default_rocm", json_string(d->def_rocm));
		if (d->choices) {
			json_t *c = json_array();

			for (size_t i = 0; d->choices[i]; i++)
				json_array_append_new(c, json_string(d->choices[i]));
			json_object_set_new(p, "choices", c);
		}
		if (d->type == PARAM_INT || d->type == PARAM_INT_LIST || d->type == PARAM_SIZE || d->type == PARAM_SIZE_LIST) {
			json_object_set_new(p, "min", json_integer(d->min));
			if (d->max)
				json_object_set_new(p, "max", json_integer(d->max));
		}
		if (d->flags & PARAM_AUTO)
			json_object_set_new(p, "auto", json_true());
		json_array_append_new(params, p);
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "name", s->name, "summary", s->summary, "runner", s->program,
			 "metric", s->metric, "unit", s->unit, "params", params);
}

static const char *xfmt_ll(char *buf, size_t len, long long v)
{
	snprintf(buf, len, "%lld", v);
	return buf;
}

static void suite_text(const struct suite_ops *s)
{
	char buf[32];

	printf("%s — %s\n  runner %s; headline %s (%s)\n", s->name, s->summary, s->program, s->metric, s->unit);
	for (const struct param_def *d = s->params; d->name; d++) {
		char *ch = choices_text(d);

		if (d->type == PARAM_ENUM)
			printf("  %-14s one of %s\n", d->name, ch);
		else if (d->type == PARAM_ENUM_LIST)
			printf("  %-14s list of %s\n", d->name, ch);
		else if (d->type == PARAM_INT || d->type == PARAM_INT_LIST)
			printf("  %-14s %s, %lld..%s%s\n", d->name, param_type_name(d->type), d->min,
			       d->max ? xfmt_ll(buf, sizeof(buf), d->max) : "", (d->flags & PARAM_AUTO) ? " or auto" : "");
		else if (d->type == PARAM_SIZE || d->type == PARAM_SIZE_LIST) {
			char lo[32], hi[32];

			units_format_size(lo, sizeof(lo), (uint64_t)d->min);
			units_format_size(hi, sizeof(hi), (uint64_t)d->max);
			printf("  %-14s %s, %s..%s%s\n", d->name, param_type_name(d->type), lo, d->max ? hi : "",
			       (d->flags & PARAM_AUTO) ? " or auto" : "");
		} else
			printf("  %-14s %s\n", d->name, param_type_name(d->type));
		printf("  %-14s default %s", "", d->def);
		if (d->def_cpu)
			printf("; cpu: %s", d->def_cpu);
		if (d->def_rocm)
			printf("; rocm: %s", d->def_rocm);
		printf("\n  %-14s %s\n", "", d->help);
		free(ch);
	}
}

int cmd_suites(int argc, char **argv)
{
	int json = 0, n;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "print JSON"),
		OPT_END(),
	};
	json_t *arr;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	for (int i = 0; i < n; i++) {
		if (!suite_find(argv[1 + i])) {
			const char *best = suggest_closest(argv[1 + i], suite_names());
			char *msg = best ? xstrfmt("unknown suite '%s' (did you mean '%s'?)", argv[1 + i], best)
					 : xstrfmt("unknown suite '%s' (see 'bench suites')", argv[1 + i]);
			int rc = cli_usage_error(cmd.name, cmd.synopsis, msg);

			free(msg);
			return rc;
		}
	}
	arr = json_array();
	for (size_t i = 0; suite_registry[i]; i++) {
		int want = n == 0;

		for (int j = 0; j < n; j++)
			want |= !strcmp(argv[1 + j], suite_registry[i]->name);
		if (!want)
			continue;
		if (json)
			json_array_append_new(arr, suite_json(suite_registry[i]));
		else {
			if (i && n == 0)
				printf("\n");
			suite_text(suite_registry[i]);
		}
	}
	if (json)
		return cli_print_json(json_pack("{s:s, s:o}", "schema", "bench.suites/v1", "suites", arr));
	json_decref(arr);
	return 0;
}
