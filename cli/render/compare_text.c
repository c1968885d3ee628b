/* SPDX-License-Identifier: Apache-2.0 */
/* compare_text.c — bench compare's text, markdown and CSV (compare_text.h). */
#include "compare_text.h"

#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/units.h"
#include "stats/cost.h"
#include "stats/findings.h"

/* what every block reads: where to print, the result, the format and whether to colour */
struct ctext {
	FILE *fp;
	json_t *r;
	int markdown, csv, colour;
};

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

static const char *get_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static double get_num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static long long get_int(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* colour only on a terminal, and never with NO_COLOR set (https://no-color.org): the caller says */
static const char *verdict_colour(const struct ctext *t, const char *v)
{
	if (!t->colour || !v)
		return "";
	return !strcmp(v, "slower") ? "\033[1;31m" : !strcmp(v, "faster") ? "\033[1;32m" : !strcmp(v, "same") ? "" : !strcmp(v, "inconclusive") ? "\033[33m" : "\033[2m";
}

static void ct_noise(const struct ctext *t)
{
	json_t *nz = json_object_get(t->r, "noise"), *v;
	const char *suite;
	int first = 1;

	if (!json_is_object(nz))
		return;
	fprintf(t->fp, "%snoise floor from the A/A pair %s / %s, each suite's threshold (p%.0f of |ratio - 1|; with 2 runs or more a "
		"side, the run-effect model's, [its 95%% interval]):", t->markdown ? "\n" : "", get_str(nz, "a"), get_str(nz, "b"),
		100 * get_num(nz, "quantile"));
	json_object_foreach(json_object_get(nz, "suites"), suite, v) {
		json_t *mo = json_object_get(v, "model");

		if (mo) /* the run-effect model's floor and the 95% interval of its run effect's variance */
			fprintf(t->fp, "%s %s %.2f%% [%.2f%%, %.2f%%] (%lld cases; this pair's own p95 %.2f%%)", first ? "" : ",",
				suite, 100 * get_num(mo, "floor"), 100 * get_num(mo, "lo"), 100 * get_num(mo, "hi"),
				get_int(v, "cases"), 100 * get_num(v, "floor"));
		else
			fprintf(t->fp, "%s %s %.2f%% (%lld cases)", first ? "" : ",", suite, 100 * get_num(v, "floor"),
				get_int(v, "cases"));
		first = 0;
	}
	fprintf(t->fp, "%s\n", first ? " none" : "");
}

/* The method line (or the CSV header); then the noise floor, the resolution and the power of these runs; then
 * the table's header. */
static void ct_header(const struct ctext *t)
{
	json_t *r = t->r, *res = json_object_get(r, "resolution");

	if (t->csv)
		fprintf(t->fp, "suite,case,unit,baseline,other,baseline_value,other_value,ratio,ci_lo,ci_hi,p,p_adjusted,baseline_runs,"
			"other_runs,threshold,verdict,why\n");
	else
		fprintf(t->fp, t->markdown ? "Baseline: **%s**; threshold %.1f%%, alpha %g, %lld test(s) adjusted together (the method: `bench compare -h`).\n"
				       : "baseline %s; threshold %.1f%%, alpha %g, %lld test(s) adjusted together (the method: bench compare -h)\n",
			get_str(r, "baseline"), 100 * get_num(r, "threshold"), get_num(r, "alpha"), get_int(r, "tests"));
	if (!t->csv) {
		ct_noise(t);
		if (json_is_object(res))
			fprintf(t->fp, "%sresolution: a change under %.1f%% cannot be called with these runs (median over %lld cases, "
				"%.1f%% to %.1f%%)\n", t->markdown ? "\n" : "", 100 * get_num(res, "median"), get_int(res, "cases"),
				100 * get_num(res, "min"), 100 * get_num(res, "max"));
		if (json_is_object(res) && json_is_number(json_object_get(res, "power_975")))
			fprintf(t->fp, "power: a change of %.1f%% is found with 97.5%% power (median over the cases); one of the threshold, "
				"%.1f%%, needs about %.0f runs per side\n", 100 * get_num(res, "power_975"),
				100 * get_num(r, "threshold"), get_num(res, "runs_for_threshold"));
	}
	if (t->markdown)
		fprintf(t->fp, "\n| suite | case | baseline | other | value | ratio | 95%% CI | p (adj.) | verdict |\n|---|---|---|---|---|---|---|---|---|\n");
	else if (!t->csv)
		fprintf(t->fp, "\n%-12s %-46s %14s %14s %7s %17s %9s  %s\n", "suite", "case", "baseline", "other", "ratio",
			"95% CI", "p (adj.)", "verdict");
}

/* one CSV row: text fields quoted and neutralised; numbers are ours */
static void ct_row_csv(const struct ctext *t, json_t *c, json_t *o)
{
	json_t *ci = json_object_get(o, "ci95"), *base = json_object_get(c, "baseline");
	char b1[64], b2[64], b3[32], b4[32], b5[32], b6[32], b7[32], b8[32], b9[32], b10[48];

	esc_csv_field(t->fp, get_str(c, "suite"));
	fputc(',', t->fp);
	esc_csv_field(t->fp, get_str(c, "case"));
	fputc(',', t->fp);
	esc_csv_field(t->fp, get_str(c, "unit"));
	fputc(',', t->fp);
	esc_csv_field(t->fp, get_str(t->r, "baseline"));
	fputc(',', t->fp);
	esc_csv_field(t->fp, get_str(o, "label"));
	fprintf(t->fp, ",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,", num(b1, sizeof(b1), json_object_get(base, "value"), "%.6g"),
		num(b2, sizeof(b2), json_object_get(o, "value"), "%.6g"), num(b3, sizeof(b3), json_object_get(o, "ratio"), "%.6f"),
		json_is_array(ci) ? num(b4, sizeof(b4), json_array_get(ci, 0), "%.6f") : "",
		json_is_array(ci) ? num(b5, sizeof(b5), json_array_get(ci, 1), "%.6f") : "",
		num(b10, sizeof(b10), json_object_get(o, "p"), "%.3g"), num(b6, sizeof(b6), json_object_get(o, "p_adjusted"), "%.3g"),
		num(b7, sizeof(b7), json_object_get(base, "runs"), "%.0f"), num(b8, sizeof(b8), json_object_get(o, "runs"), "%.0f"),
		num(b9, sizeof(b9), json_object_get(c, "threshold"), "%.6g"), get_str(o, "verdict") ? get_str(o, "verdict") : "");
	esc_csv_field(t->fp, get_str(o, "why"));
	fputc('\n', t->fp);
}

/* one row of the markdown or the terminal table: values scaled for reading, the ratio's 95% interval, the
 * adjusted p and the verdict (in colour on a terminal) with its reason */
static void ct_row_table(const struct ctext *t, json_t *c, json_t *o)
{
	json_t *ci = json_object_get(o, "ci95"), *base = json_object_get(c, "baseline");
	const char *why = get_str(o, "why"), *unit = get_str(c, "unit"), *verdict = get_str(o, "verdict");
	char b1[64], b2[64], b3[32], b4[32], cib[48] = "-";

	if (json_is_array(ci))
		snprintf(cib, sizeof(cib), "[%.3f, %.3f]", json_number_value(json_array_get(ci, 0)),
			 json_number_value(json_array_get(ci, 1)));
	if (t->markdown)
		fprintf(t->fp, "| %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n", get_str(c, "suite"), get_str(c, "case"),
			scaled(b1, sizeof(b1), json_object_get(base, "value"), unit), get_str(o, "label"),
			scaled(b2, sizeof(b2), json_object_get(o, "value"), unit), num(b3, sizeof(b3), json_object_get(o, "ratio"), "%.3f"),
			cib, num(b4, sizeof(b4), json_object_get(o, "p_adjusted"), "%.2g"), verdict, why ? ": " : "", why ? why : "");
	else
		fprintf(t->fp, "%-12s %-46s %14s %14s %7s %17s %9s  %s%s%s%s%s\n", get_str(c, "suite"), get_str(c, "case"),
			scaled(b1, sizeof(b1), json_object_get(base, "value"), unit),
			scaled(b2, sizeof(b2), json_object_get(o, "value"), unit), num(b3, sizeof(b3), json_object_get(o, "ratio"), "%.3f"),
			cib, num(b4, sizeof(b4), json_object_get(o, "p_adjusted"), "%.2g"), verdict_colour(t, verdict), verdict,
			*verdict_colour(t, verdict) ? "\033[0m" : "", why ? ": " : "", why ? why : "");
}

static void ct_rows(const struct ctext *t)
{
	json_t *c, *o;
	size_t i, k;

	json_array_foreach(json_object_get(t->r, "cases"), i, c)
		json_array_foreach(json_object_get(c, "others"), k, o) {
			if (t->csv)
				ct_row_csv(t, c, o);
			else
				ct_row_table(t, c, o);
		}
}

/* Energy and cost (cost.h): each side's price, then per case the sides cheapest first. */
static void ct_cost_rank(const struct ctext *t)
{
	json_t *c, *o, *s;
	size_t i, k;
	int priced = 0;

	json_array_foreach(json_object_get(t->r, "sides"), i, s)
		priced |= json_is_object(json_object_get(s, "pricing"));
	if (priced) {
		fprintf(t->fp, "\n%spricing, from each run's manifest:\n", t->markdown ? "- " : "");
		json_array_foreach(json_object_get(t->r, "sides"), i, s) {
			char *p = json_is_object(json_object_get(s, "pricing")) ? cost_pricing_text(json_object_get(s, "pricing")) : NULL;

			fprintf(t->fp, "  %s: %s\n", get_str(s, "label"), p ? p : "none in its manifest: no cost figures");
			free(p);
		}
	}
	if (!json_array_size(json_object_get(t->r, "cost_rank")))
		return;
	fprintf(t->fp, "\n%scost per case, cheapest first (%s):\n", t->markdown ? "- " : "", COST_DEFINITION);
	json_array_foreach(json_object_get(t->r, "cost_rank"), i, c) {
		int training = !strcmp(get_str(c, "by"), "usd_per_million_tokens");

		fprintf(t->fp, "  %-12s %-46s", get_str(c, "suite"), get_str(c, "case"));
		json_array_foreach(json_object_get(c, "sides"), k, o)
			fprintf(t->fp, "  %zu. %s USD %.4g", k + 1, get_str(o, "label"), get_num(o, "value"));
		fprintf(t->fp, " %s\n", training ? "per M tokens" : "/h per PFLOP/s");
	}
}

/* Every side's energy per timed call, per case (cost.h). Nothing without a figure. */
static void ct_energy(const struct ctext *t)
{
	json_t *c, *o;
	size_t i, k;
	int energy = 0;

	json_array_foreach(json_object_get(t->r, "cases"), i, c) {
		json_t *all[64];
		const char *labels[64];
		size_t n = 0;

		all[n] = json_object_get(json_object_get(c, "baseline"), "cost");
		labels[n++] = get_str(t->r, "baseline");
		json_array_foreach(json_object_get(c, "others"), k, o)
			if (n < 64) {
				all[n] = json_object_get(o, "cost");
				labels[n++] = get_str(o, "label");
			}
		for (k = 0; k < n; k++) {
			if (!json_is_number(json_object_get(all[k], "joules")))
				continue;
			if (!energy++)
				fprintf(t->fp, "\n%senergy per timed call (the energy counter over the timed loop / its calls, else median board power x median time):\n",
					t->markdown ? "- " : "");
			fprintf(t->fp, "  %-12s %-46s %s: %.4g J", get_str(c, "suite"), get_str(c, "case"), labels[k],
				get_num(all[k], "joules"));
			if (json_is_number(json_object_get(all[k], "tflop_per_joule")))
				fprintf(t->fp, ", %.4g TFLOP/J", get_num(all[k], "tflop_per_joule"));
			if (json_is_number(json_object_get(all[k], "gb_per_joule")))
				fprintf(t->fp, ", %.4g GB/J", get_num(all[k], "gb_per_joule"));
			fputc('\n', t->fp);
		}
	}
}

/* every case that did not measure, with its reason (failed in red on a terminal); the cases of too few samples;
 * the cases on one side only */
static void ct_gaps(const struct ctext *t)
{
	json_t *r = t->r, *c;
	size_t i;

	json_array_foreach(json_object_get(r, "not_ok"), i, c) {
		const char *st = get_str(c, "status");
		int red = t->colour && st && strcmp(st, "skipped");

		fprintf(t->fp, "%s%s%s%s in %s%s: %s %s: %s\n", i == 0 ? "\n" : "", t->markdown ? "- " : "", red ? "\033[1;31m" : "",
			st, get_str(c, "label"), red ? "\033[0m" : "", get_str(c, "suite"), get_str(c, "case"), get_str(c, "error"));
	}
	if (json_array_size(json_object_get(r, "few_samples"))) {
		json_t *f = json_array_get(json_object_get(r, "few_samples"), 0);

		fprintf(t->fp, "\n%sWARNING: %zu case(s) of a run have fewer samples than their suite's minimum; their run medians are "
			"rough (first: %s %s in %s, n=%lld, minimum %lld)\n", t->markdown ? "- " : "",
			json_array_size(json_object_get(r, "few_samples")), get_str(f, "suite"), get_str(f, "case"),
			get_str(f, "label"), get_int(f, "n"), get_int(f, "min"));
	}
	json_array_foreach(json_object_get(r, "only_in_one"), i, c)
		fprintf(t->fp, "%sonly in %s: %s\n", i == 0 ? "\n" : "", get_str(c, "only_in"), get_str(c, "case"));
}

/* the cases whose method differs (parameters, plug-in, what NCCL/RCCL says it ran with), then every difference in
 * stack and environment */
static void ct_differences(const struct ctext *t)
{
	json_t *r = t->r, *md = json_object_get(r, "method_differs"), *c;
	size_t i;

	if (json_array_size(md))
		fprintf(t->fp, "\nWARNING: the method differs for %zu case(s): their parameters, a plug-in's source, or the algorithm, "
			"protocol, channels or transports NCCL/RCCL says it ran with, are not the same; those ratios compare different "
			"measurements (first: %s)\n", json_array_size(md), get_str(json_array_get(md, 0), "case"));
	json_array_foreach(md, i, c)
		if (get_str(c, "effective"))
			fprintf(t->fp, "  ran with: %s: %s -> %s (%s)\n", get_str(c, "case"), get_str(c, "baseline_effective"),
				get_str(c, "effective"), get_str(c, "label"));
	json_array_foreach(json_object_get(r, "stack_differs"), i, c) {
		char *a = json_dumps(json_object_get(c, "baseline"), JSON_ENCODE_ANY), *b = json_dumps(json_object_get(c, "value"), JSON_ENCODE_ANY);

		fprintf(t->fp, "%sstack/environment: %-40s %s -> %s (%s)\n", i == 0 ? "\n" : "", get_str(c, "what"), a, b,
			get_str(c, "label"));
		free(a);
		free(b);
	}
}

/* the runs of each side of several, then the sides whose runs come from more than one manifest */
static void ct_sides(const struct ctext *t)
{
	json_t *sides = json_object_get(t->r, "sides"), *c, *run, *labels, *l;
	const char *sha;
	size_t i, k;

	json_array_foreach(sides, i, c)
		if (get_int(c, "nruns") > 1) {
			fprintf(t->fp, "%sside %s:", i == 0 || get_int(json_array_get(sides, i - 1), "nruns") <= 1 ? "\n" : "",
				get_str(c, "label"));
			json_array_foreach(json_object_get(c, "runs"), k, run)
				fprintf(t->fp, " %s", get_str(run, "label"));
			fputc('\n', t->fp);
		}
	json_array_foreach(sides, i, c) {
		size_t m = 0;

		if (!json_is_object(json_object_get(c, "mixed_manifests")))
			continue;
		fprintf(t->fp, "\n%sWARNING: side %s mixes %zu manifests, so its runs are not repeats of one stack:",
			t->markdown ? "- " : "", get_str(c, "label"), json_object_size(json_object_get(c, "mixed_manifests")));
		json_object_foreach(json_object_get(c, "mixed_manifests"), sha, labels) {
			fprintf(t->fp, "%s manifest %.12s:", m++ ? ";" : "", sha);
			json_array_foreach(labels, k, l)
				fprintf(t->fp, " %s", json_string_value(l));
		}
		fputc('\n', t->fp);
	}
}

/* each run's findings (docs/findings.md), then the runs that are not verified, by path: a side may mix verified
 * bundles with run directories */
static void ct_findings_unverified(const struct ctext *t)
{
	json_t *c, *run;
	size_t i, k;

	json_array_foreach(json_object_get(t->r, "findings"), i, c) {
		fprintf(t->fp, "\n%sfindings of %s (docs/findings.md):\n", t->markdown ? "- " : "", get_str(c, "label"));
		findings_print(t->fp, json_object_get(c, "findings"));
	}
	json_array_foreach(json_object_get(t->r, "sides"), i, c) {
		size_t nu = 0;

		if (json_is_true(json_object_get(c, "verified")))
			continue;
		fprintf(t->fp, "\nUNVERIFIED: %s:", get_str(c, "label"));
		json_array_foreach(json_object_get(c, "runs"), k, run)
			if (!json_is_true(json_object_get(run, "verified")))
				fprintf(t->fp, " %s", get_str(run, "path")), nu++;
		fprintf(t->fp, " (%s)\n", nu == 1 ? "a run directory or a bundle that did not verify"
						 : "run directories or bundles that did not verify");
	}
}

void compare_text_print(FILE *fp, json_t *r, enum compare_text_format format, int colour)
{
	struct ctext t = { fp, json_deep_copy(r), format == COMPARE_TEXT_MARKDOWN, format == COMPARE_TEXT_CSV, colour };
	json_t *c;
	size_t i;

	esc_json_tree(t.r); /* every string from a bundle with its control characters shown as \xNN */
	if (t.markdown) /* no text from a bundle breaks a table cell out or renders as HTML, a link or an image */
		esc_json_tree_markdown(t.r);
	ct_header(&t);
	ct_rows(&t);
	if (!t.csv) {
		json_array_foreach(json_object_get(t.r, "summary"), i, c)
			fprintf(fp, "%s%s%s\n", i == 0 ? "\n" : "", t.markdown ? "- " : "", json_string_value(c));
		ct_cost_rank(&t);
		ct_energy(&t);
		ct_gaps(&t);
		ct_differences(&t);
		ct_sides(&t);
		ct_findings_unverified(&t);
	}
	json_decref(t.r);
}
