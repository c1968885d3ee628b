/* SPDX-License-Identifier: Apache-2.0 */
/* show.c — bench show's documents, as JSON and as the text a person reads (show.h). */
#include "show.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/escape.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "manifest/suite.h"
#include "stats/compare.h"
#include "stats/cost.h"
#include "stats/findings.h"
#include "stats/quality.h"
#include "render/terminal.h"

static const char *const show_docs[] = { "summary.json", "status.json", "env/environment.json", "manifest.lock.json",
					 "plan.json", "image/image.json", "manifest.yaml", NULL };

void show_member_names(struct strvec *out)
{
	for (size_t i = 0; show_docs[i]; i++)
		strvec_push(out, show_docs[i]);
	for (size_t i = 0; suite_registry[i]; i++)
		strvec_pushf(out, "results/%s.jsonl", suite_registry[i]->name);
}

/* Every result record's energy and cost figures (cost.h), in the order of the results files:
 * [{suite, case, ...figures}] (a new array). */
static json_t *case_costs(json_t *records, json_t *pricing)
{
	json_t *out = json_array(), *rec;
	size_t i;

	json_array_foreach(records, i, rec) {
		json_t *f = cost_of_record(pricing, rec, NAN);

		if (f && json_is_string(json_object_get(rec, "suite")) && json_is_string(json_object_get(rec, "case"))) {
			json_object_set(f, "suite", json_object_get(rec, "suite"));
			json_object_set(f, "case", json_object_get(rec, "case"));
			json_array_append(out, f);
		}
		json_decref(f);
	}
	return out;
}

static json_t *parse(json_t *members, const char *name)
{
	const char *s = json_string_value(json_object_get(members, name));

	return s ? json_loads(s, 0, NULL) : NULL;
}

void show_doc_load(struct show_doc *out, json_t *members, const char *run)
{
	const char *y = json_string_value(json_object_get(members, "manifest.yaml"));

	out->run = xstrdup(run);
	out->summary = parse(members, "summary.json");
	out->status = parse(members, "status.json");
	out->env = parse(members, "env/environment.json");
	out->lock = parse(members, "manifest.lock.json");
	out->plan = parse(members, "plan.json");
	out->image = parse(members, "image/image.json");
	out->pricing = y ? cost_pricing_parse(y, strlen(y)) : NULL;
	out->records = terminal_records_of_members(members);
	out->costs = case_costs(out->records, out->pricing);
}

void show_doc_release(struct show_doc *d)
{
	json_t *all[] = { d->summary, d->status, d->env, d->lock, d->plan, d->image, d->pricing, d->costs, d->records };

	for (size_t k = 0; k < sizeof(all) / sizeof(*all); k++)
		json_decref(all[k]);
	free(d->run);
	*d = (struct show_doc)SHOW_DOC_INIT;
}

json_t *show_json(const struct show_doc *d)
{
	return json_pack("{s:s, s:b, s:b, s:s?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O*, s:O}", "run", d->run, "verified",
			 d->origin == SHOW_VERIFIED, "signed", d->origin != SHOW_RUN_DIR, "keyid",
			 d->origin == SHOW_VERIFIED ? d->keyid : NULL, "plan", d->plan, "status", d->status, "summary", d->summary,
			 "environment", d->env, "lock", d->lock, "image", d->image, "pricing", d->pricing, "cost", d->costs);
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* a string member for a header line, "?" where there is none */
static const char *known(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "?";
}

/* every string from the bundle with its control characters shown as \xNN */
static void show_doc_escape(struct show_doc *d)
{
	json_t *shown[] = { d->summary, d->status, d->env, d->lock, d->plan, d->image, d->pricing, d->costs, d->records };
	char *e = esc_text(d->run);

	for (size_t k = 0; k < sizeof(shown) / sizeof(*shown); k++)
		esc_json_tree(shown[k]);
	free(d->run);
	d->run = e;
}

/* whether what follows verified, and with which key */
static void show_provenance(FILE *fp, const struct show_doc *d)
{
	if (d->origin == SHOW_RUN_DIR) {
		fprintf(fp, "unsigned run directory: shown as it is on disk (its bundle, when packed, is what verifies)\n");
	} else if (d->origin == SHOW_UNVERIFIED) {
		fprintf(fp, "UNVERIFIED: shown with --no-verify; its signature and contents were not checked\n");
	} else {
		char *origin = esc_text(d->key_origin); /* a trusted key's file name is printed as reproduce prints it */

		fprintf(fp, "verified  signed by key id %s (%s)\n", d->keyid, origin);
		free(origin);
	}
}

/* the run, its manifest and state, its stack, image and BLAS */
static void show_identity(FILE *fp, const struct show_doc *d)
{
	json_t *lib = json_object_get(json_object_get(json_object_get(d->env, "runners"), "gemm"), "blas_loaded");

	fprintf(fp, "run       %s\nmanifest  %s (channel %s, %s)\nstate     %s, started %s\n", d->run, known(d->plan, "name"),
		known(d->plan, "channel"), known(d->plan, "vendor"), known(d->status, "state"), known(d->status, "started"));
	fprintf(fp, "stack     %s\n", d->lock ? "locked (manifest.lock.json)" : "the host's own (engine host, no lock)");
	if (d->image)
		fprintf(fp, "image     %s %s (%s)\n", json_string_value(json_object_get(d->image, "engine")),
			json_string_value(json_object_get(d->image, "image")),
			json_string_value(json_object_get(d->image, "digest")));
	if (json_array_size(lib))
		fprintf(fp, "blas      %s\n", json_string_value(json_array_get(lib, 0)));
}

/* a runner's Python package with its build: "torch 2.5 (cuda 12.4, git abc) (Python package)" */
static void show_loaded_package(FILE *fp, const char *prog, json_t *e)
{
	const char *k;
	json_t *v;
	int first = 1;

	fprintf(fp, "  %-14s %-26s %-22s", prog, str(e, "name"), str(e, "version"));
	json_object_foreach(e, k, v)
		if (strcmp(k, "name") && strcmp(k, "version") && json_is_string(v)) {
			fprintf(fp, "%s%s %s", first ? " (" : ", ", k, json_string_value(v));
			first = 0;
		}
	fprintf(fp, "%s (Python package)\n", first ? "" : ")");
}

/* What each runner loaded (environment.json's "loaded"), compactly: the libraries that report a version or come
 * from a stack prefix (/opt/stack), the Python packages it imported that the lock could pin (torch and the like:
 * every one with its build), the count of the rest; then every loaded-not-pinned reason. */
static void show_loaded(FILE *fp, json_t *loaded)
{
	const char *prog;
	json_t *acc, *e;
	size_t i;

	if (!json_object_size(loaded))
		return;
	fprintf(fp, "loaded    per runner: the libraries that report a version or come from the stack's prefixes\n");
	json_object_foreach(loaded, prog, acc) {
		size_t rest = 0;

		json_array_foreach(json_object_get(acc, "libraries"), i, e) {
			if (json_is_string(json_object_get(e, "version")) || !strncmp(str(e, "path"), "/opt/stack/", 11))
				fprintf(fp, "  %-14s %-26s %-22s %s\n", prog, str(e, "soname"),
					json_is_string(json_object_get(e, "version")) ? str(e, "version") : "-", str(e, "path"));
			else
				rest++;
		}
		json_array_foreach(json_object_get(acc, "packages"), i, e)
			show_loaded_package(fp, prog, e);
		if (rest)
			fprintf(fp, "  %-14s %zu more librar%s without a version (bench show --json lists them)\n", prog, rest,
				rest == 1 ? "y" : "ies");
	}
	json_object_foreach(loaded, prog, acc)
		json_array_foreach(json_object_get(acc, "not_pinned"), i, e)
			fprintf(fp, "NOT PINNED %s: %s\n", prog, json_string_value(e));
}

static void show_host(FILE *fp, json_t *env)
{
	json_t *h = json_object_get(env, "host"), *g = json_array_get(json_object_get(env, "gpus"), 0);

	if (!env)
		return;
	fprintf(fp, "host      %s, %s, %lld cores\n", known(h, "os"), known(h, "cpu_model"),
		(long long)json_integer_value(json_object_get(h, "cores")));
	if (g)
		fprintf(fp, "gpu       %zu x %s, driver %s\n", json_array_size(json_object_get(env, "gpus")),
			json_string_value(json_object_get(g, "name")), json_string_value(json_object_get(g, "driver")));
}

/* the plug-ins that ran (docs/plugins.md): each once, by its first record, with what identifies its source */
static void show_plugins(FILE *fp, json_t *records)
{
	json_t *seen = json_object(), *rr;
	size_t ri;

	json_array_foreach(records, ri, rr) {
		json_t *pl = json_object_get(json_object_get(rr, "extra"), "plugin");
		const char *pn = json_string_value(json_object_get(pl, "name"));
		const char *sha = json_string_value(json_object_get(pl, "sha256"));
		const char *ver = json_string_value(json_object_get(pl, "version"));
		const char *fn = json_string_value(json_object_get(pl, "function"));

		if (!pn || json_object_get(seen, pn))
			continue;
		json_object_set_new(seen, pn, json_true());
		fprintf(fp, "plugin    %s: %s %s%s%s%s%s, sha256 %s\n", pn, str(pl, "kind"),
			json_string_value(json_object_get(pl, "path")) ? str(pl, "path") : str(pl, "module"), fn ? ":" : "",
			fn ? fn : "", ver ? ", " : "", ver ? ver : "", sha ? sha : "unknown (it did not load)");
	}
	json_decref(seen);
}

/* Each case's headline: the value scaled for reading (--json keeps the raw number and the unit as recorded), n
 * and CV from the case's record, and what its quality check says of it; then the note on the flagged ones. */
static void show_cases(FILE *fp, const struct show_doc *d)
{
	json_t *index = terminal_record_index(d->records), *c;
	size_t i, nok = 0, flagged = 0;

	fprintf(fp, "\n%-12s %-48s %-8s %14s %5s %7s\n", "suite", "case", "status", "value", "n", "cv");
	json_array_foreach(json_object_get(d->summary, "cases"), i, c) {
		char val[400] = "-", sn[16] = "-", cv[16] = "-", why[128] = "";

		/* a case that did not measure shows no value, whatever its record holds */
		if (json_is_number(json_object_get(c, "value")) && !strcmp(str(c, "status"), "ok")) {
			json_t *rec = terminal_record_of(index, str(c, "suite"), str(c, "case"));

			units_format_scaled(val, sizeof(val), json_number_value(json_object_get(c, "value")), str(c, "unit"));
			terminal_spread(sn, sizeof(sn), cv, sizeof(cv), rec);
			quality_describe(why, sizeof(why), rec);
			nok++;
			flagged += *why != 0;
		}
		fprintf(fp, "%-12s %-48s %-8s %14s %5s %7s%s%s\n", str(c, "suite"), str(c, "case"), str(c, "status"), val, sn,
			cv, *why ? " ! " : "", why);
	}
	quality_print_note(fp, flagged, nok);
	json_decref(index);
}

/* Energy and cost per case (cost.h): the price from the run's own manifest, with its source; the cases with a
 * figure (defined in bench show -h and bench(1), not here); the cases without one as one line per reason. */
static void show_costs(FILE *fp, const struct show_doc *d)
{
	json_t *why = json_object(), *cnt, *c;
	const char *reason;
	size_t i, nfig = 0;

	if (d->pricing) {
		char *t = cost_pricing_text(d->pricing);

		fprintf(fp, "\npricing   %s, from the run's manifest\n", t);
		free(t);
	} else {
		fprintf(fp, "\npricing   none in the run's manifest: no cost figures\n");
	}
	json_array_foreach(d->costs, i, c) {
		char *t = cost_figure_text(c);
		const char *w = json_string_value(json_object_get(c, "energy_why"));

		if (*t) {
			if (!nfig++)
				fprintf(fp, "energy and cost per case:\n");
			fprintf(fp, "%-12s %-48s %s%s%s\n", json_string_value(json_object_get(c, "suite")),
				json_string_value(json_object_get(c, "case")), t, w ? "; no energy: " : "", w ? w : "");
		} else if (w) {
			json_object_set_new(why, w, json_integer(json_integer_value(json_object_get(why, w)) + 1));
		}
		free(t);
	}
	json_object_foreach(why, reason, cnt)
		fprintf(fp, "energy    none for %lld %s: %s\n", (long long)json_integer_value(cnt),
			json_integer_value(cnt) == 1 ? "case" : "cases", reason);
	json_decref(why);
}

/* one env_matrix group: its cells numbered, then a row per case, a column per cell */
static void show_env_group(FILE *fp, json_t *g)
{
	json_t *row, *cell, *v;
	size_t r, j;

	fprintf(fp, "\n%s by env cell (value in %s; a dash: not measured):\n", json_string_value(json_object_get(g, "suite")),
		json_is_string(json_object_get(g, "unit")) ? json_string_value(json_object_get(g, "unit")) : "?");
	json_array_foreach(json_object_get(g, "cells"), j, cell)
		fprintf(fp, "  [%zu] %s\n", j + 1, json_string_value(cell));
	fprintf(fp, "%-48s", "case");
	json_array_foreach(json_object_get(g, "cells"), j, cell) {
		char h[32];

		snprintf(h, sizeof(h), "[%zu]", j + 1);
		fprintf(fp, " %12s", h);
	}
	fprintf(fp, "\n");
	json_array_foreach(json_object_get(g, "rows"), r, row) {
		fprintf(fp, "%-48s", json_string_value(json_object_get(row, "case")));
		json_array_foreach(json_object_get(row, "values"), j, v) {
			if (json_is_number(v))
				fprintf(fp, " %12.4g", json_number_value(v));
			else
				fprintf(fp, " %12s", "-");
		}
		fprintf(fp, "\n");
	}
}

/* every case that did not measure, with the reason status.json recorded */
static void show_not_measured(FILE *fp, json_t *status)
{
	json_t *h = compare_run_health(status), *cn = json_object_get(h, "counts"), *c;
	size_t i;

	if (!status)
		fprintf(fp, "\nno status.json in the bundle: whether every case ran is not known\n");
	else if (json_array_size(json_object_get(h, "not_ok")))
		fprintf(fp, "\n%scases that did not measure (%lld failed, %lld interrupted, %lld not run, %lld skipped), "
			"with the reason:\n",
			json_is_true(json_object_get(h, "incomplete")) ? "INCOMPLETE run: " : "",
			(long long)json_integer_value(json_object_get(cn, "failed")),
			(long long)json_integer_value(json_object_get(cn, "interrupted")),
			(long long)json_integer_value(json_object_get(cn, "pending")),
			(long long)json_integer_value(json_object_get(cn, "skipped")));
	json_array_foreach(json_object_get(h, "not_ok"), i, c)
		fprintf(fp, "%-12s %-48s %-8s %s\n", json_string_value(json_object_get(c, "suite")),
			json_string_value(json_object_get(c, "case")), json_string_value(json_object_get(c, "status")),
			json_string_value(json_object_get(c, "error")));
	json_decref(h);
}

void show_print_text(FILE *fp, struct show_doc *d)
{
	json_t *groups, *g;
	size_t k;

	show_doc_escape(d);
	show_provenance(fp, d);
	show_identity(fp, d);
	show_loaded(fp, json_object_get(d->env, "loaded"));
	show_host(fp, d->env);
	show_plugins(fp, d->records);
	show_cases(fp, d);
	terminal_print_coll(fp, d->records);
	show_costs(fp, d);
	/* an env_matrix: each case's cells side by side */
	groups = compare_env_cells(json_object_get(d->summary, "cases"));
	json_array_foreach(groups, k, g)
		show_env_group(fp, g);
	json_decref(groups);
	show_not_measured(fp, d->status);
	/* what the run stage found wrong with the stack (docs/findings.md), as signed in summary.json */
	if (json_array_size(json_object_get(d->summary, "findings"))) {
		fprintf(fp, "\nfindings (docs/findings.md):\n");
		findings_print(fp, json_object_get(d->summary, "findings"));
	}
}
