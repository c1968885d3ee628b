/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_show.c — bench show BUNDLE: what ran, on what, and the headline results, straight from the archive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/units.h"
#include "manifest/suite.h"
#include "bundle/bundle.h"
#include "stats/compare.h"
#include "stats/cost.h"
#include "stats/findings.h"
#include "core/escape.h"
#include "bundle/sign.h"
#include "stats/quality.h"
#include "render/terminal.h"

static const struct opt_cmd cmd = { "show", "[--json] [--key PUB.pem]... [--no-verify] BUNDLE.bench.tar.gz | RUN_DIR",
				    "Print a bundle's (or a run directory's) manifest name and channel, its stack (lock summary), the "
				    "environment and every case's headline (scaled to a readable unit, with the record's sample count n "
				    "and coefficient of variation), the collectives as nccl-tests tables, then every case that failed, was skipped, interrupted or "
				    "not run with its reason, then the run's price (its manifest's pricing, with its source) and each case's "
				    "energy and cost (" COST_DEFINITION "; the cases without one: one line per reason), read "
				    "from the archive without unpacking it. "
				    "The bundle is verified first, in the same reading (exit 8 when it does not verify); "
				    "--no-verify shows it anyway, marked UNVERIFIED. A run directory is shown as it is, "
				    "marked as an unsigned run directory (nothing to verify). Control characters from the bundle are "
				    "shown as \\xNN." };

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

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* What each runner loaded (environment.json's "loaded"), compactly: the libraries that report a version or come
 * from a stack prefix (/opt/stack), the Python packages it imported that the lock could pin (torch and the like:
 * every one with its build), the count of the rest; then every loaded-not-pinned reason. */
static void show_loaded(json_t *loaded)
{
	const char *prog;
	json_t *acc, *e;
	size_t i;

	if (!json_object_size(loaded))
		return;
	printf("loaded    per runner: the libraries that report a version or come from the stack's prefixes\n");
	json_object_foreach(loaded, prog, acc) {
		size_t rest = 0;

		json_array_foreach(json_object_get(acc, "libraries"), i, e) {
			if (json_is_string(json_object_get(e, "version")) || !strncmp(str(e, "path"), "/opt/stack/", 11))
				printf("  %-14s %-26s %-22s %s\n", prog, str(e, "soname"),
				       json_is_string(json_object_get(e, "version")) ? str(e, "version") : "-", str(e, "path"));
			else
				rest++;
		}
		json_array_foreach(json_object_get(acc, "packages"), i, e) {
			const char *k;
			json_t *v;
			int first = 1;

			printf("  %-14s %-26s %-22s", prog, str(e, "name"), str(e, "version"));
			json_object_foreach(e, k, v)
				if (strcmp(k, "name") && strcmp(k, "version") && json_is_string(v)) {
					printf("%s%s %s", first ? " (" : ", ", k, json_string_value(v));
					first = 0;
				}
			printf("%s (Python package)\n", first ? "" : ")");
		}
		if (rest)
			printf("  %-14s %zu more librar%s without a version (bench show --json lists them)\n", prog, rest,
			       rest == 1 ? "y" : "ies");
	}
	json_object_foreach(loaded, prog, acc)
		json_array_foreach(json_object_get(acc, "not_pinned"), i, e)
			printf("NOT PINNED %s: %s\n", prog, json_string_value(e));
}

int cmd_show(int argc, char **argv)
{
	static const char *const docs[] = { "summary.json", "status.json", "env/environment.json", "manifest.lock.json",
					    "plan.json", "image/image.json", "manifest.yaml", NULL };
	const char **names = NULL;
	size_t nnames = 0;
	json_t *pricing = NULL, *costs = NULL, *records = NULL, *index = NULL;
	json_t *m = NULL, *summary = NULL, *status = NULL, *env = NULL, *lock = NULL, *plan = NULL, *image = NULL, *out;
	int json = 0, no_verify = 0, is_dir = 0, n, err, rc = 0;
	struct opt_strlist keys = OPT_STRLIST_INIT;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "print JSON"),
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify with this public key (repeatable); default: trusted keys"),
		OPT_BOOL(0, "no-verify", &no_verify, "show a bundle that is not verified, marked UNVERIFIED"),
		OPT_END(),
	};
	struct bundle_verify_result vr = BUNDLE_VERIFY_RESULT_INIT;
	char *run = NULL;
	size_t i, nok = 0, flagged = 0;
	json_t *c;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		opt_strlist_release(&keys);
		return n < 0 ? 2 : 0;
	}
	if (n != 1) {
		opt_strlist_release(&keys);
		return cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one bundle" : "no bundle given");
	}
	/* the documents, and the results files: the energy and cost of each case come from its record */
	for (nnames = 0; suite_registry[nnames]; nnames++)
		;
	names = xcalloc(nnames + sizeof(docs) / sizeof(*docs), sizeof(*names));
	nnames = 0;
	for (i = 0; docs[i]; i++)
		names[nnames++] = docs[i];
	for (i = 0; suite_registry[i]; i++)
		names[nnames++] = xstrfmt("results/%s.jsonl", suite_registry[i]->name);
	{
		struct stat st;

		is_dir = stat(argv[1], &st) == 0 && S_ISDIR(st.st_mode);
	}
	if (is_dir) {
		err = bundle_read_dir_members(&m, &run, argv[1], names, 64u << 20);
	} else if (no_verify) {
		err = bundle_read_members(&m, &run, argv[1], names, 64u << 20);
	} else { /* what is shown is what verified: one reading of one open file */
		struct bundle_members bm;
		struct bundle_sink sink;
		struct bundle_limits lim;

		bundle_limits_default(&lim);
		bundle_members_init(&bm, &sink, names, 64u << 20);
		if ((err = bundle_verify_read(&vr, argv[1], NULL, keys.v, sign_home(), &lim, &sink)) == 0) {
			m = json_incref(bm.out);
			run = xstrdup(vr.run);
		} else {
			char *why = esc_text(bench_error_last());

			bench_error_set(err, "verification failed: %s (pass --no-verify to show it anyway, marked UNVERIFIED)", why);
			free(why);
		}
		bundle_members_release(&bm);
	}
	if (err < 0) {
		rc = cli_fail(err) == 1 && !is_dir ? 8 : bench_exit_code(err);
		goto cleanup;
	}
	summary = parse(m, "summary.json");
	status = parse(m, "status.json");
	env = parse(m, "env/environment.json");
	lock = parse(m, "manifest.lock.json");
	plan = parse(m, "plan.json");
	image = parse(m, "image/image.json");
	{
		const char *y = json_string_value(json_object_get(m, "manifest.yaml"));

		pricing = y ? cost_pricing_parse(y, strlen(y)) : NULL;
	}
	records = terminal_records_of_members(m);
	costs = case_costs(records, pricing);
	if (json) {
		out = json_pack("{s:s, s:b, s:b, s:s?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O*, s:O}", "run", run, "verified",
				!no_verify && !is_dir, "signed", !is_dir, "keyid", no_verify || is_dir ? NULL : vr.keyid, "plan", plan, "status", status,
				"summary", summary, "environment", env, "lock", lock, "image", image, "pricing", pricing,
				"cost", costs);
		rc = cli_print_json(out);
		goto cleanup;
	}
	/* a terminal is shown text, never the control sequences a bundle may carry */
	{
		json_t *shown[] = { summary, status, env, lock, plan, image, pricing, costs, records };
		char *e = esc_text(run);

		for (size_t k = 0; k < sizeof(shown) / sizeof(*shown); k++)
			esc_json_tree(shown[k]);
		free(run);
		run = e;
	}
	if (is_dir)
		printf("unsigned run directory: shown as it is on disk (its bundle, when packed, is what verifies)\n");
	else if (no_verify)
		printf("UNVERIFIED: shown with --no-verify; its signature and contents were not checked\n");
	else {
		char *origin = esc_text(vr.key_origin); /* a trusted key's file name is printed as reproduce prints it */

		printf("verified  signed by key id %s (%s)\n", vr.keyid, origin);
		free(origin);
	}
	printf("run       %s\nmanifest  %s (channel %s, %s)\nstate     %s, started %s\n", run,
	       json_string_value(json_object_get(plan, "name")) ? json_string_value(json_object_get(plan, "name")) : "?",
	       json_string_value(json_object_get(plan, "channel")) ? json_string_value(json_object_get(plan, "channel")) : "?",
	       json_string_value(json_object_get(plan, "vendor")) ? json_string_value(json_object_get(plan, "vendor")) : "?",
	       json_string_value(json_object_get(status, "state")) ? json_string_value(json_object_get(status, "state")) : "?",
	       json_string_value(json_object_get(status, "started")) ? json_string_value(json_object_get(status, "started")) : "?");
	printf("stack     %s\n", lock ? "locked (manifest.lock.json)" : "the host's own (engine host, no lock)");
	if (image)
		printf("image     %s %s (%s)\n", json_string_value(json_object_get(image, "engine")),
		       json_string_value(json_object_get(image, "image")), json_string_value(json_object_get(image, "digest")));
	{
		json_t *lib = json_object_get(json_object_get(json_object_get(env, "runners"), "gemm"), "blas_loaded");

		if (json_array_size(lib))
			printf("blas      %s\n", json_string_value(json_array_get(lib, 0)));
	}
	show_loaded(json_object_get(env, "loaded"));
	if (env) {
		json_t *h = json_object_get(env, "host"), *g = json_array_get(json_object_get(env, "gpus"), 0);

		printf("host      %s, %s, %lld cores\n",
		       json_string_value(json_object_get(h, "os")) ? json_string_value(json_object_get(h, "os")) : "?",
		       json_string_value(json_object_get(h, "cpu_model")) ? json_string_value(json_object_get(h, "cpu_model")) : "?",
		       (long long)json_integer_value(json_object_get(h, "cores")));
		if (g)
			printf("gpu       %zu x %s, driver %s\n", json_array_size(json_object_get(env, "gpus")),
			       json_string_value(json_object_get(g, "name")), json_string_value(json_object_get(g, "driver")));
	}
	{ /* the plug-ins that ran (docs/plugins.md): each once, by its first record, with what identifies its source */
		json_t *seen = json_object(), *rr;
		size_t ri;

		{
			json_array_foreach(records, ri, rr) {
				json_t *pl = json_object_get(json_object_get(rr, "extra"), "plugin");
				const char *pn = json_string_value(json_object_get(pl, "name"));
				const char *sha = json_string_value(json_object_get(pl, "sha256"));
				const char *ver = json_string_value(json_object_get(pl, "version"));

				if (!pn || json_object_get(seen, pn))
					continue;
				json_object_set_new(seen, pn, json_true());
				printf("plugin    %s: %s %s%s%s%s%s, sha256 %s\n", pn, str(pl, "kind"),
				       json_string_value(json_object_get(pl, "path")) ? str(pl, "path") : str(pl, "module"),
				       json_string_value(json_object_get(pl, "function")) ? ":" : "",
				       json_string_value(json_object_get(pl, "function")) ? str(pl, "function") : "",
				       ver ? ", " : "", ver ? ver : "", sha ? sha : "unknown (it did not load)");
			}
		}
		json_decref(seen);
	}
	/* the value scaled for reading (--json keeps the raw number and the unit as recorded); n and CV from the
	 * case's record */
	index = terminal_record_index(records);
	printf("\n%-12s %-48s %-8s %14s %5s %7s\n", "suite", "case", "status", "value", "n", "cv");
	json_array_foreach(json_object_get(summary, "cases"), i, c) {
		char val[400] = "-", sn[16] = "-", cv[16] = "-", why[128] = "";

		/* a case that did not measure shows no value, whatever its record holds */
		if (json_is_number(json_object_get(c, "value")) && !strcmp(str(c, "status"), "ok")) {
			units_format_scaled(val, sizeof(val), json_number_value(json_object_get(c, "value")), str(c, "unit"));
			terminal_spread(sn, sizeof(sn), cv, sizeof(cv), terminal_record_of(index, str(c, "suite"), str(c, "case")));
			quality_describe(why, sizeof(why), terminal_record_of(index, str(c, "suite"), str(c, "case")));
			nok++;
			flagged += *why != 0;
		}
		printf("%-12s %-48s %-8s %14s %5s %7s%s%s\n", str(c, "suite"), str(c, "case"), str(c, "status"), val, sn, cv,
		       *why ? " ! " : "", why);
	}
	quality_print_note(stdout, flagged, nok);
	terminal_print_coll(stdout, records);
	/* energy and cost per case (cost.h): the price from the run's own manifest, with its source */
	if (pricing) {
		char *t = cost_pricing_text(pricing);

		printf("\npricing   %s, from the run's manifest\n", t);
		free(t);
	} else {
		printf("\npricing   none in the run's manifest: no cost figures\n");
	}
	/* the cases with a figure (defined in bench show -h and bench(1), not here); the cases without one as one line
	 * per reason */
	{
		json_t *why = json_object(), *cnt;
		const char *reason;
		size_t nfig = 0;

		json_array_foreach(costs, i, c) {
			char *t = cost_figure_text(c);
			const char *w = json_string_value(json_object_get(c, "energy_why"));

			if (*t) {
				if (!nfig++)
					printf("energy and cost per case:\n");
				printf("%-12s %-48s %s%s%s\n", json_string_value(json_object_get(c, "suite")),
				       json_string_value(json_object_get(c, "case")), t, w ? "; no energy: " : "", w ? w : "");
			} else if (w) {
				json_object_set_new(why, w, json_integer(json_integer_value(json_object_get(why, w)) + 1));
			}
			free(t);
		}
		json_object_foreach(why, reason, cnt)
			printf("energy    none for %lld %s: %s\n", (long long)json_integer_value(cnt),
			       json_integer_value(cnt) == 1 ? "case" : "cases", reason);
		json_decref(why);
	}
	/* an env_matrix: each case's cells side by side */
	{
		json_t *groups = compare_env_cells(json_object_get(summary, "cases")), *g, *row, *cell, *v;
		size_t k, r, j;

		json_array_foreach(groups, k, g) {
			printf("\n%s by env cell (value in %s; a dash: not measured):\n", json_string_value(json_object_get(g, "suite")),
			       json_is_string(json_object_get(g, "unit")) ? json_string_value(json_object_get(g, "unit")) : "?");
			json_array_foreach(json_object_get(g, "cells"), j, cell)
				printf("  [%zu] %s\n", j + 1, json_string_value(cell));
			printf("%-48s", "case");
			json_array_foreach(json_object_get(g, "cells"), j, cell) {
				char h[32];

				snprintf(h, sizeof(h), "[%zu]", j + 1);
				printf(" %12s", h);
			}
			printf("\n");
			json_array_foreach(json_object_get(g, "rows"), r, row) {
				printf("%-48s", json_string_value(json_object_get(row, "case")));
				json_array_foreach(json_object_get(row, "values"), j, v) {
					if (json_is_number(v))
						printf(" %12.4g", json_number_value(v));
					else
						printf(" %12s", "-");
				}
				printf("\n");
			}
		}
		json_decref(groups);
	}
	/* every case that did not measure, with the reason status.json recorded */
	{
		json_t *h = compare_run_health(status), *cn = json_object_get(h, "counts");

		if (!status)
			printf("\nno status.json in the bundle: whether every case ran is not known\n");
		else if (json_array_size(json_object_get(h, "not_ok")))
			printf("\n%scases that did not measure (%lld failed, %lld interrupted, %lld not run, %lld skipped), "
			       "with the reason:\n",
			       json_is_true(json_object_get(h, "incomplete")) ? "INCOMPLETE run: " : "",
			       (long long)json_integer_value(json_object_get(cn, "failed")),
			       (long long)json_integer_value(json_object_get(cn, "interrupted")),
			       (long long)json_integer_value(json_object_get(cn, "pending")),
			       (long long)json_integer_value(json_object_get(cn, "skipped")));
		json_array_foreach(json_object_get(h, "not_ok"), i, c)
			printf("%-12s %-48s %-8s %s\n", json_string_value(json_object_get(c, "suite")),
			       json_string_value(json_object_get(c, "case")), json_string_value(json_object_get(c, "status")),
			       json_string_value(json_object_get(c, "error")));
		json_decref(h);
	}
	/* what the run stage found wrong with the stack (docs/findings.md), as signed in summary.json */
	if (json_array_size(json_object_get(summary, "findings"))) {
		printf("\nfindings (docs/findings.md):\n");
		findings_print(stdout, json_object_get(summary, "findings"));
	}
cleanup:
	json_decref(m);
	json_decref(summary);
	json_decref(status);
	json_decref(env);
	json_decref(lock);
	json_decref(plan);
	json_decref(image);
	json_decref(pricing);
	json_decref(costs);
	json_decref(records);
	json_decref(index);
	for (i = 0; names && suite_registry[i]; i++)
		free((char *)names[sizeof(docs) / sizeof(*docs) - 1 + i]);
	free(names);
	free(run);
	bundle_verify_result_release(&vr);
	opt_strlist_release(&keys);
	return rc;
}
