/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_compare.c — bench compare A B [C...]: stacks side by side with honest statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/units.h"
#include "core/strbuf.h"
#include "stats/compare.h"
#include "stats/sequential.h"
#include "stats/cost.h"
#include "stats/findings.h"
#include "core/escape.h"
#include "render/html.h"

static const struct opt_cmd cmd = { "compare", "[options] RUN_OR_BUNDLE... [--vs RUN_OR_BUNDLE...]...",
				    "Match the cases of several sides (run directories or bundles; bundles are verified first) "
				    "by case key and compare every headline. A side is one run, the runs of one stack of an "
				    "interleaved `bench run --rounds` (grouped by themselves), or the runs between --vs "
				    "separators. Per case: the ratio of the medians of run medians to the baseline's, its 95% "
				    "hierarchical-bootstrap confidence interval, Welch's t test across runs with the p-value "
				    "adjusted over every test (step-down min-P: a run's machine state is shared by its cases), and a verdict: faster / "
				    "slower when the adjusted p < alpha and the ratio lies beyond 1 +/- threshold; same when the whole "
				    "interval lies within 1 +/- threshold; otherwise inconclusive, with the reason (always below 3 "
				    "runs per side); not comparable. Beside the numbers: cases on one side "
				    "only, too few samples, differences in method (parameters) and in stack and environment; each "
				    "side's price and, per case, the priced sides cheapest first and their energy per timed call. "
				    "Exit 9 with --fail-on-regression when a case is significantly slower." };

static const char *num(char *buf, size_t len, json_t *v, const char *fmt)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, fmt, json_number_value(v));
	return buf;
}

/* a value for reading: its unit re-prefixed (units_format_scaled); CSV and JSON keep the raw number */
static const char *scaled(char *buf, size_t len, json_t *v, const char *unit)
{
	if (!json_is_number(v))
		return "-";
	units_format_scaled(buf, len, json_number_value(v), unit ? unit : "");
	return buf;
}

/* colour only on a terminal, and never with NO_COLOR set (https://no-color.org) */
static int colour;

static const char *verdict_colour(const char *v)
{
	if (!colour || !v)
		return "";
	return !strcmp(v, "slower") ? "\033[1;31m" : !strcmp(v, "faster") ? "\033[1;32m" : !strcmp(v, "same") ? "" : !strcmp(v, "inconclusive") ? "\033[33m" : "\033[2m";
}

static void render_noise(json_t *r, int markdown)
{
	json_t *nz = json_object_get(r, "noise"), *v;
	const char *suite;
	int first = 1;

	if (!json_is_object(nz))
		return;
	printf("%snoise floor from the A/A pair %s / %s, each suite's threshold (p%.0f of |ratio - 1|; with 2 runs or more a "
	       "side, the run-effect model's, [its 95%% interval]):", markdown ? "\n" : "",
	       json_string_value(json_object_get(nz, "a")), json_string_value(json_object_get(nz, "b")),
	       100 * json_number_value(json_object_get(nz, "quantile")));
	json_object_foreach(json_object_get(nz, "suites"), suite, v) {
		json_t *mo = json_object_get(v, "model");

		if (mo) /* the run-effect model's floor and the 95% interval of its run effect's variance */
			printf("%s %s %.2f%% [%.2f%%, %.2f%%] (%lld cases; this pair's own p95 %.2f%%)", first ? "" : ",", suite,
			       100 * json_number_value(json_object_get(mo, "floor")), 100 * json_number_value(json_object_get(mo, "lo")),
			       100 * json_number_value(json_object_get(mo, "hi")), (long long)json_integer_value(json_object_get(v, "cases")),
			       100 * json_number_value(json_object_get(v, "floor")));
		else
			printf("%s %s %.2f%% (%lld cases)", first ? "" : ",", suite, 100 * json_number_value(json_object_get(v, "floor")),
			       (long long)json_integer_value(json_object_get(v, "cases")));
		first = 0;
	}
	printf("%s\n", first ? " none" : "");
}

static void render_cost(json_t *r, int markdown);

static void render_text(json_t *r, int markdown, int csv)
{
	json_t *c, *o;
	size_t i, k;
	char b1[64], b2[64], b3[32], b4[32], b5[32];

	if (csv)
		printf("suite,case,unit,baseline,other,baseline_value,other_value,ratio,ci_lo,ci_hi,p,p_adjusted,baseline_runs,"
		       "other_runs,threshold,verdict,why\n");
	else if (markdown)
		printf("Baseline: **%s**; threshold %.1f%%, alpha %g, %lld test(s) adjusted together (the method: `bench compare -h`).\n",
		       json_string_value(json_object_get(r, "baseline")), 100 * json_number_value(json_object_get(r, "threshold")),
		       json_number_value(json_object_get(r, "alpha")), (long long)json_integer_value(json_object_get(r, "tests")));
	else
		printf("baseline %s; threshold %.1f%%, alpha %g, %lld test(s) adjusted together (the method: bench compare -h)\n",
		       json_string_value(json_object_get(r, "baseline")), 100 * json_number_value(json_object_get(r, "threshold")),
		       json_number_value(json_object_get(r, "alpha")), (long long)json_integer_value(json_object_get(r, "tests")));
	if (!csv) {
		json_t *res = json_object_get(r, "resolution");

		render_noise(r, markdown);
		if (json_is_object(res))
			printf("%sresolution: a change under %.1f%% cannot be called with these runs (median over %lld cases, "
			       "%.1f%% to %.1f%%)\n", markdown ? "\n" : "", 100 * json_number_value(json_object_get(res, "median")),
			       (long long)json_integer_value(json_object_get(res, "cases")),
			       100 * json_number_value(json_object_get(res, "min")),
			       100 * json_number_value(json_object_get(res, "max")));
		if (json_is_object(res) && json_is_number(json_object_get(res, "power_975")))
			printf("power: a change of %.1f%% is found with 97.5%% power (median over the cases); one of the threshold, "
			       "%.1f%%, needs about %.0f runs per side\n", 100 * json_number_value(json_object_get(res, "power_975")),
			       100 * json_number_value(json_object_get(r, "threshold")),
			       json_number_value(json_object_get(res, "runs_for_threshold")));
	}
	if (markdown)
		printf("\n| suite | case | baseline | other | value | ratio | 95%% CI | p (adj.) | verdict |\n|---|---|---|---|---|---|---|---|---|\n");
	else if (!csv)
		printf("\n%-12s %-46s %14s %14s %7s %17s %9s  %s\n", "suite", "case", "baseline", "other", "ratio", "95% CI",
		       "p (adj.)", "verdict");
	json_array_foreach(json_object_get(r, "cases"), i, c) {
		json_array_foreach(json_object_get(c, "others"), k, o) {
			json_t *ci = json_object_get(o, "ci95");
			const char *suite = json_string_value(json_object_get(c, "suite")), *cs = json_string_value(json_object_get(c, "case"));
			const char *why = json_string_value(json_object_get(o, "why"));
			const char *unit = json_string_value(json_object_get(c, "unit"));
			char cib[48] = "-";

			if (json_is_array(ci))
				snprintf(cib, sizeof(cib), "[%.3f, %.3f]", json_number_value(json_array_get(ci, 0)),
					 json_number_value(json_array_get(ci, 1)));
			if (csv) {
				char b6[32], b7[32], b8[32], b9[32];

				/* text fields quoted and neutralised; numbers are ours */
				esc_csv_field(stdout, suite);
				putchar(',');
				esc_csv_field(stdout, cs);
				putchar(',');
				esc_csv_field(stdout, json_string_value(json_object_get(c, "unit")));
				putchar(',');
				esc_csv_field(stdout, json_string_value(json_object_get(r, "baseline")));
				putchar(',');
				esc_csv_field(stdout, json_string_value(json_object_get(o, "label")));
				printf(",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,",
				       num(b1, sizeof(b1), json_object_get(json_object_get(c, "baseline"), "value"), "%.6g"),
				       num(b2, sizeof(b2), json_object_get(o, "value"), "%.6g"), num(b3, sizeof(b3), json_object_get(o, "ratio"), "%.6f"),
				       json_is_array(ci) ? num(b4, sizeof(b4), json_array_get(ci, 0), "%.6f") : "",
				       json_is_array(ci) ? num(b5, sizeof(b5), json_array_get(ci, 1), "%.6f") : "",
				       num(cib, sizeof(cib), json_object_get(o, "p"), "%.3g"), num(b6, sizeof(b6), json_object_get(o, "p_adjusted"), "%.3g"),
				       num(b7, sizeof(b7), json_object_get(json_object_get(c, "baseline"), "runs"), "%.0f"),
				       num(b8, sizeof(b8), json_object_get(o, "runs"), "%.0f"), num(b9, sizeof(b9), json_object_get(c, "threshold"), "%.6g"),
				       json_string_value(json_object_get(o, "verdict")) ? json_string_value(json_object_get(o, "verdict")) : "");
				esc_csv_field(stdout, json_string_value(json_object_get(o, "why")));
				putchar('\n');
			} else if (markdown)
				printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n", suite, cs,
				       scaled(b1, sizeof(b1), json_object_get(json_object_get(c, "baseline"), "value"), unit),
				       json_string_value(json_object_get(o, "label")), scaled(b2, sizeof(b2), json_object_get(o, "value"), unit),
				       num(b3, sizeof(b3), json_object_get(o, "ratio"), "%.3f"), cib,
				       num(b4, sizeof(b4), json_object_get(o, "p_adjusted"), "%.2g"), json_string_value(json_object_get(o, "verdict")),
				       why ? ": " : "", why ? why : "");
			else
				printf("%-12s %-46s %14s %14s %7s %17s %9s  %s%s%s%s%s\n", suite, cs,
				       scaled(b1, sizeof(b1), json_object_get(json_object_get(c, "baseline"), "value"), unit),
				       scaled(b2, sizeof(b2), json_object_get(o, "value"), unit), num(b3, sizeof(b3), json_object_get(o, "ratio"), "%.3f"),
				       cib, num(b4, sizeof(b4), json_object_get(o, "p_adjusted"), "%.2g"), verdict_colour(json_string_value(json_object_get(o, "verdict"))),
				       json_string_value(json_object_get(o, "verdict")), *verdict_colour(json_string_value(json_object_get(o, "verdict"))) ? "\033[0m" : "",
				       why ? ": " : "", why ? why : "");
		}
	}
	if (csv)
		return;
	json_array_foreach(json_object_get(r, "summary"), i, c)
		printf("%s%s%s\n", i == 0 ? "\n" : "", markdown ? "- " : "", json_string_value(c));
	render_cost(r, markdown);
	/* every case that did not measure, with its reason (failed in red on a terminal) */
	json_array_foreach(json_object_get(r, "not_ok"), i, c) {
		const char *st = json_string_value(json_object_get(c, "status"));
		int red = colour && st && strcmp(st, "skipped");

		printf("%s%s%s%s in %s%s: %s %s: %s\n", i == 0 ? "\n" : "", markdown ? "- " : "", red ? "\033[1;31m" : "", st,
		       json_string_value(json_object_get(c, "label")), red ? "\033[0m" : "", json_string_value(json_object_get(c, "suite")),
		       json_string_value(json_object_get(c, "case")), json_string_value(json_object_get(c, "error")));
	}
	if (json_array_size(json_object_get(r, "few_samples"))) {
		json_t *f = json_array_get(json_object_get(r, "few_samples"), 0);

		printf("\n%sWARNING: %zu case(s) of a run have fewer samples than their suite's minimum; their run medians are "
		       "rough (first: %s %s in %s, n=%lld, minimum %lld)\n", markdown ? "- " : "",
		       json_array_size(json_object_get(r, "few_samples")), json_string_value(json_object_get(f, "suite")),
		       json_string_value(json_object_get(f, "case")), json_string_value(json_object_get(f, "label")),
		       (long long)json_integer_value(json_object_get(f, "n")), (long long)json_integer_value(json_object_get(f, "min")));
	}
	json_array_foreach(json_object_get(r, "only_in_one"), i, c)
		printf("%sonly in %s: %s\n", i == 0 ? "\n" : "", json_string_value(json_object_get(c, "only_in")),
		       json_string_value(json_object_get(c, "case")));
	if (json_array_size(json_object_get(r, "method_differs")))
		printf("\nWARNING: the method differs for %zu case(s): their parameters, a plug-in's source, or the algorithm, "
		       "protocol, channels or transports NCCL/RCCL says it ran with, are not the same; those ratios compare different "
		       "measurements (first: %s)\n", json_array_size(json_object_get(r, "method_differs")),
		       json_string_value(json_object_get(json_array_get(json_object_get(r, "method_differs"), 0), "case")));
	json_array_foreach(json_object_get(r, "method_differs"), i, c)
		if (json_string_value(json_object_get(c, "effective")))
			printf("  ran with: %s: %s -> %s (%s)\n", json_string_value(json_object_get(c, "case")),
			       json_string_value(json_object_get(c, "baseline_effective")),
			       json_string_value(json_object_get(c, "effective")), json_string_value(json_object_get(c, "label")));
	json_array_foreach(json_object_get(r, "stack_differs"), i, c) {
		char *a = json_dumps(json_object_get(c, "baseline"), JSON_ENCODE_ANY), *b = json_dumps(json_object_get(c, "value"), JSON_ENCODE_ANY);

		printf("%sstack/environment: %-40s %s -> %s (%s)\n", i == 0 ? "\n" : "", json_string_value(json_object_get(c, "what")),
		       a, b, json_string_value(json_object_get(c, "label")));
		free(a);
		free(b);
	}
	json_array_foreach(json_object_get(r, "sides"), i, c)
		if (json_integer_value(json_object_get(c, "nruns")) > 1) {
			json_t *run;
			size_t k2;

			printf("%sside %s:", i == 0 || json_integer_value(json_object_get(json_array_get(json_object_get(r, "sides"), i - 1), "nruns")) <= 1 ? "\n" : "",
			       json_string_value(json_object_get(c, "label")));
			json_array_foreach(json_object_get(c, "runs"), k2, run)
				printf(" %s", json_string_value(json_object_get(run, "label")));
			putchar('\n');
		}
	json_array_foreach(json_object_get(r, "sides"), i, c) {
		const char *sha;
		json_t *labels, *l;
		size_t k2, m = 0;

		if (!json_is_object(json_object_get(c, "mixed_manifests")))
			continue;
		printf("\n%sWARNING: side %s mixes %zu manifests, so its runs are not repeats of one stack:", markdown ? "- " : "",
		       json_string_value(json_object_get(c, "label")), json_object_size(json_object_get(c, "mixed_manifests")));
		json_object_foreach(json_object_get(c, "mixed_manifests"), sha, labels) {
			printf("%s manifest %.12s:", m++ ? ";" : "", sha);
			json_array_foreach(labels, k2, l)
				printf(" %s", json_string_value(l));
		}
		putchar('\n');
	}
	json_array_foreach(json_object_get(r, "findings"), i, c) {
		printf("\n%sfindings of %s (docs/findings.md):\n", markdown ? "- " : "", json_string_value(json_object_get(c, "label")));
		findings_print(stdout, json_object_get(c, "findings"));
	}
	json_array_foreach(json_object_get(r, "sides"), i, c) {
		json_t *run;
		size_t k2, nu = 0;

		if (json_is_true(json_object_get(c, "verified")))
			continue;
		/* the runs that are not verified, by path: a side may mix verified bundles with run directories */
		printf("\nUNVERIFIED: %s:", json_string_value(json_object_get(c, "label")));
		json_array_foreach(json_object_get(c, "runs"), k2, run)
			if (!json_is_true(json_object_get(run, "verified")))
				printf(" %s", json_string_value(json_object_get(run, "path"))), nu++;
		printf(" (%s)\n", nu == 1 ? "a run directory or a bundle that did not verify"
					  : "run directories or bundles that did not verify");
	}
}

/* Energy and cost (cost.h): each side's price, then per case the sides cheapest first; every side's energy per
 * timed call. Nothing without a figure. */
static void render_cost(json_t *r, int markdown)
{
	json_t *c, *o, *s;
	size_t i, k;
	int priced = 0, energy = 0;

	json_array_foreach(json_object_get(r, "sides"), i, s)
		priced |= json_is_object(json_object_get(s, "pricing"));
	if (priced) {
		printf("\n%spricing, from each run's manifest:\n", markdown ? "- " : "");
		json_array_foreach(json_object_get(r, "sides"), i, s) {
			char *t = json_is_object(json_object_get(s, "pricing")) ? cost_pricing_text(json_object_get(s, "pricing")) : NULL;

			printf("  %s: %s\n", json_string_value(json_object_get(s, "label")), t ? t : "none in its manifest: no cost figures");
			free(t);
		}
	}
	if (json_array_size(json_object_get(r, "cost_rank"))) {
		printf("\n%scost per case, cheapest first (%s):\n", markdown ? "- " : "", COST_DEFINITION);
		json_array_foreach(json_object_get(r, "cost_rank"), i, c) {
			int training = !strcmp(json_string_value(json_object_get(c, "by")), "usd_per_million_tokens");

			printf("  %-12s %-46s", json_string_value(json_object_get(c, "suite")), json_string_value(json_object_get(c, "case")));
			json_array_foreach(json_object_get(c, "sides"), k, o)
				printf("  %zu. %s USD %.4g", k + 1, json_string_value(json_object_get(o, "label")),
				       json_number_value(json_object_get(o, "value")));
			printf(" %s\n", training ? "per M tokens" : "/h per PFLOP/s");
		}
	}
	json_array_foreach(json_object_get(r, "cases"), i, c) {
		json_t *all[64];
		const char *labels[64];
		size_t n = 0;

		all[n] = json_object_get(json_object_get(c, "baseline"), "cost");
		labels[n++] = json_string_value(json_object_get(r, "baseline"));
		json_array_foreach(json_object_get(c, "others"), k, o)
			if (n < 64) {
				all[n] = json_object_get(o, "cost");
				labels[n++] = json_string_value(json_object_get(o, "label"));
			}
		for (k = 0; k < n; k++) {
			if (!json_is_number(json_object_get(all[k], "joules")))
				continue;
			if (!energy++)
				printf("\n%senergy per timed call (the energy counter over the timed loop / its calls, else median board power x median time):\n",
				       markdown ? "- " : "");
			printf("  %-12s %-46s %s: %.4g J", json_string_value(json_object_get(c, "suite")),
			       json_string_value(json_object_get(c, "case")), labels[k],
			       json_number_value(json_object_get(all[k], "joules")));
			if (json_is_number(json_object_get(all[k], "tflop_per_joule")))
				printf(", %.4g TFLOP/J", json_number_value(json_object_get(all[k], "tflop_per_joule")));
			if (json_is_number(json_object_get(all[k], "gb_per_joule")))
				printf(", %.4g GB/J", json_number_value(json_object_get(all[k], "gb_per_joule")));
			putchar('\n');
		}
	}
}

/* The findings of each run of every side (docs/findings.md): those its summary.json carries (signed with it), else
 * evaluated here on its records. [{label, findings: [...]}] for the runs that have any. */
static json_t *side_findings(const struct compare_side *sides, const struct compare_group *groups, size_t ng)
{
	json_t *out = json_array();

	for (size_t gi = 0; gi < ng; gi++)
		for (size_t ri = 0; ri < groups[gi].nruns; ri++) {
			const struct compare_side *s = &sides[groups[gi].runs[ri]];
			json_t *f = json_incref(json_object_get(s->summary, "findings"));

			if (!json_is_array(f)) {
				json_t *recs = json_array(), *rec;
				const char *key;

				json_decref(f);
				json_object_foreach(s->records, key, rec)
					json_array_append(recs, rec);
				f = findings_eval(recs, json_object_get(s->summary, "cases"));
				json_decref(recs);
			}
			if (json_array_size(f))
				json_array_append_new(out, json_pack("{s:s, s:O}", "label", s->label, "findings", f));
			json_decref(f);
		}
	return out;
}

/* A side of several runs: "A1 A2 A3 --vs B1 B2 B3". The separators are swapped for a marker before the options
 * are parsed (opt_parse keeps the positional arguments in order) and give the groups' first indices after. */
static char vs_marker[] = "\001--vs";

static int noise_load(json_t **out, char *const *paths, size_t n, const struct compare_opts *co)
{
	struct compare_side *ns = NULL;
	struct compare_group *g = NULL;
	size_t ng = 0;
	int err;

	*out = NULL;
	if ((err = compare_load_all(&ns, paths, n, co)) < 0)
		return err;
	g = compare_group_runs(&ng, ns, n, NULL, 0);
	if (ng != 2) {
		err = bench_error_set(BENCH_E_USAGE, "--noise-from needs an A/A pair: two runs of one stack, or the runs of "
				      "`bench run A.yaml A.yaml --rounds N` (two interleaved stacks); got %zu side(s)", ng);
		goto cleanup;
	}
	*out = compare_noise_floor(ns, &g[0], &g[1]);
cleanup:
	compare_groups_free(g, ng);
	compare_sides_free(ns, n);
	return err;
}

int cmd_compare(int argc, char **argv)
{
	struct opt_strlist keys = OPT_STRLIST_INIT, noise = OPT_STRLIST_INIT;
	struct compare_opts co = { 0.02, 0.01, 2000, 0, NULL, NULL };
	struct compare_side *sides = NULL;
	struct compare_group *groups = NULL;
	const char *fmt = "text", *thr = NULL, *alpha = NULL, *base = NULL;
	int fail_reg = 0, allow = 0, n, status = 0, err;
	const struct opt opts[] = {
		OPT_STRING('b', "baseline", &base, "N", "which side is the baseline (1-based; default 1)"),
		OPT_STRING('t', "threshold", &thr, "X", "relative change that counts (default 0.02)"),
		OPT_STRING('a', "alpha", &alpha, "P", "significance level of the adjusted p-values (default 0.01; the runs of one bench run --rounds auto: "
			   "its plan's level)"),
		OPT_LIST(0, "noise-from", &noise, "RUN,RUN", "an A/A pair of one stack: its run-to-run spread is each suite's threshold"),
		OPT_STRING('f', "format", &fmt, "FMT", "text, markdown, json, csv or html"),
		OPT_BOOL(0, "fail-on-regression", &fail_reg, "exit 9 when a case is significantly slower"),
		OPT_BOOL(0, "allow-unverified", &allow, "accept bundles that do not verify (marked in every output)"),
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify bundles with this key (repeatable)"),
		OPT_END(),
	};
	size_t b = 0, ng = 0, np = 0, nstarts = 0, *starts = xcalloc((size_t)argc + 1, sizeof(*starts));
	char **paths = xcalloc((size_t)argc + 1, sizeof(*paths)), **owned = xcalloc((size_t)argc + 1, sizeof(*owned));
	size_t nowned = 0;
	json_t *r = NULL;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--vs"))
			argv[i] = vs_marker;
	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		status = n < 0 ? 2 : 0;
		goto cleanup;
	}
	for (int i = 0; i < n; i++) {
		if (argv[1 + i] != vs_marker) {
			const char *p = compare_input_path(&owned[nowned], argv[1 + i], argv + 1, (size_t)n);

			if (owned[nowned])
				nowned++;
			if (p) /* NULL: an envelope given beside its bundle (a glob), not a second input */
				paths[np++] = (char *)p;
			continue;
		}
		if (np == (nstarts ? starts[nstarts - 1] : 0)) {
			status = cli_usage_error(cmd.name, cmd.synopsis, "--vs needs runs before and after it");
			goto cleanup;
		}
		if (!nstarts)
			nstarts = 1; /* starts[0] = 0 */
		starts[nstarts++] = np;
	}
	if (nstarts && starts[nstarts - 1] == np) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--vs needs runs before and after it");
		goto cleanup;
	}
	if (np < 2) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "give at least two runs or bundles");
		goto cleanup;
	}
	if ((thr && ((co.threshold = strtod(thr, NULL)) < 0 || co.threshold >= 1)) ||
	    (alpha && ((co.alpha = strtod(alpha, NULL)) <= 0 || co.alpha >= 1)) || (base && atoi(base) < 1)) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--threshold in [0, 1), --alpha in (0, 1), --baseline in 1..N");
		goto cleanup;
	}
	if (strcmp(fmt, "text") && strcmp(fmt, "markdown") && strcmp(fmt, "json") && strcmp(fmt, "csv") && strcmp(fmt, "html")) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--format is text, markdown, json, csv or html");
		goto cleanup;
	}
	co.keys = keys.v;
	co.allow_unverified = allow;
	if (noise.n && (err = noise_load(&co.noise, noise.v, noise.n, &co)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	if ((err = compare_load_all(&sides, paths, np, &co)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	if (!alpha) { /* the runs of one `bench run --rounds auto`: the level (and threshold) its looks were planned at */
		json_t **st = xcalloc(np + 1, sizeof(*st));
		double level = co.alpha, sthr = co.threshold;
		int found;

		for (size_t i = 0; i < np; i++)
			st[i] = sides[i].status;
		sequential_plan_of(&found, &level, &sthr, st, np);
		free(st);
		if (found) {
			co.alpha = level;
			if (!thr)
				co.threshold = sthr;
			fprintf(stderr, "bench: alpha %.3g%s: the plan of these runs' bench run --rounds auto (--alpha overrides)\n",
				co.alpha, thr ? "" : " and its threshold");
		}
	}
	groups = compare_group_runs(&ng, sides, np, starts, nstarts);
	if (ng < 2) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "the runs form a single side (one interleave group and stack); "
				       "give another side, or split them with --vs");
		goto cleanup;
	}
	if (base && (size_t)atoi(base) > ng) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--threshold in [0, 1), --alpha in (0, 1), --baseline in 1..N");
		goto cleanup;
	}
	if (base)
		b = (size_t)atoi(base) - 1;
	r = compare_build_groups(sides, groups, ng, b, &co);
	json_object_set_new(r, "findings", side_findings(sides, groups, ng));
	colour = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	if (!strcmp(fmt, "json")) {
		cli_print_json(json_incref(r));
	} else if (!strcmp(fmt, "html")) {
		struct strbuf h = STRBUF_INIT;

		html_render_compare(&h, r);
		fwrite(h.buf, 1, h.len, stdout);
		strbuf_release(&h);
	} else { /* every string from a bundle with its control characters shown as \xNN */
		json_t *t = json_deep_copy(r);

		esc_json_tree(t);
		render_text(t, !strcmp(fmt, "markdown"), !strcmp(fmt, "csv"));
		json_decref(t);
	}
	if (fail_reg && json_integer_value(json_object_get(json_object_get(r, "counts"), "slower")) > 0) {
		fprintf(stderr, "bench: error: %lld case(s) significantly slower than the baseline\n",
			(long long)json_integer_value(json_object_get(json_object_get(r, "counts"), "slower")));
		status = 9;
	}
cleanup:
	json_decref(r);
	json_decref(co.noise);
	compare_groups_free(groups, ng);
	compare_sides_free(sides, np);
	opt_strlist_release(&keys);
	opt_strlist_release(&noise);
	free(starts);
	free(paths);
	while (nowned)
		free(owned[--nowned]);
	free(owned);
	return status;
}
