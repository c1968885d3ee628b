/* SPDX-License-Identifier: Apache-2.0 */
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "stats/cost.h"
#include "core/escape.h"
#include "terminal.h"

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static void num(struct strbuf *o, json_t *v, const char *fmt)
{
	if (json_is_number(v))
		strbuf_addf(o, fmt, json_number_value(v));
	else
		strbuf_addstr(o, "&ndash;");
}

/* ---- numbers for people: scaled units and nice axis steps ----------------------------------------------- */

static const char si_prefixes[] = "kMGTPE"; /* 1000^1 .. 1000^6 */

/* The factor that brings v (in unit) to a mantissa in [1, 1000) and, into buf, the unit with its SI prefix
 * changed to match (0.001167 TFLOP/s: 1000 and "GFLOP/s"). A unit whose base is not FLOP/s, B/s, FLOP or B is
 * kept as it is (factor 1); so is a zero or non-finite v. */
static double unit_scale(double v, const char *unit, char *buf, size_t len)
{
	static const char *bases[] = { "FLOP/s", "B/s", "FLOP", "B" };
	const char *base = NULL, *q;
	int p = 0, e;

	for (size_t i = 0; i < sizeof(bases) / sizeof(*bases) && !base; i++)
		if (!strcmp(unit, bases[i]))
			base = unit;
		else if (*unit && (q = strchr(si_prefixes, *unit)) && !strcmp(unit + 1, bases[i]))
			base = unit + 1, p = (int)(q - si_prefixes) + 1;
	if (!base || !isfinite(v) || v == 0) {
		snprintf(buf, len, "%s", unit);
		return 1;
	}
	e = (int)floor(log10(fabs(v)) / 3 + 1e-9) + p;
	e = e < 0 ? 0 : e > 6 ? 6 : e;
	snprintf(buf, len, "%.*s%s", e ? 1 : 0, e ? si_prefixes + e - 1 : "", base);
	return pow(1000, p - e);
}

/* three significant figures, never in exponent form above 1 */
static void fmt_mantissa(struct strbuf *o, double m)
{
	double a = fabs(m);

	strbuf_addf(o, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3g", m);
}

/* v in unit, scaled for a person: "1.17 GFLOP/s" */
static void fmt_value(struct strbuf *o, double v, const char *unit)
{
	char u[32];
	double k = unit_scale(v, unit, u, sizeof(u));

	fmt_mantissa(o, v * k);
	if (*u) {
		strbuf_addch(o, ' ');
		esc_html(o, u);
	}
}

/* the 1-2-5 step that cuts span into about nticks intervals */
static double nice_step(double span, int nticks)
{
	double raw = span > 0 ? span / nticks : 1, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f <= 1 + 1e-9 ? 1 : f <= 2 + 1e-9 ? 2 : f <= 5 + 1e-9 ? 5 : 10) * mag;
}

/* 1 for a status that is a failure a person must see (failed, interrupted, pending, unknown); 0 for skipped */
static int is_failure(const char *status)
{
	return strcmp(status, "ok") && strcmp(status, "skipped");
}

/* One case that did not measure: failed (and interrupted, pending) in red, skipped less prominent; always with
 * its reason. label: the run it belongs to, or NULL. */
static void not_ok_item(struct strbuf *o, const char *label, const char *suite, const char *cs, const char *status,
			const char *reason)
{
	strbuf_addf(o, "<li class=\"%s\">", is_failure(status) ? "failed" : "skipped");
	if (is_failure(status))
		strbuf_addstr(o, "<strong>");
	esc_html(o, status);
	if (is_failure(status))
		strbuf_addstr(o, "</strong>");
	if (label) {
		strbuf_addstr(o, " in ");
		esc_html(o, label);
	}
	strbuf_addstr(o, ": ");
	if (suite) {
		esc_html(o, suite);
		strbuf_addch(o, ' ');
	}
	strbuf_addstr(o, "<code>");
	esc_html(o, cs);
	strbuf_addstr(o, "</code> &mdash; <span class=\"why\">");
	esc_html(o, reason);
	strbuf_addstr(o, "</span></li>");
}

/* x position (0..w) of a ratio on the whisker's axis, lo..hi */
static double at(double r, double lo, double hi, double w)
{
	double x = (r - lo) / (hi - lo) * w;

	return x < 0 ? 0 : x > w ? w : x;
}

/* The ratio and its CI on a common axis, with the band 1 +/- threshold shaded: a verdict one can see. */
static void whisker(struct strbuf *o, json_t *row, double thr, double lo_ax, double hi_ax)
{
	const double w = 110, h = 18;
	json_t *ci = json_object_get(row, "ci95");
	double r = json_number_value(json_object_get(row, "ratio"));

	strbuf_addf(o, "<svg class=\"wh\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"ratio %.3f\">",
		    w, h, w, h, r);
	strbuf_addf(o, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.0f\" class=\"band\"/>", at(1 - thr, lo_ax, hi_ax, w),
		    at(1 + thr, lo_ax, hi_ax, w) - at(1 - thr, lo_ax, hi_ax, w), h);
	strbuf_addf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.0f\" class=\"one\"/>", at(1, lo_ax, hi_ax, w),
		    at(1, lo_ax, hi_ax, w), h);
	if (json_is_array(ci)) {
		double a = at(json_number_value(json_array_get(ci, 0)), lo_ax, hi_ax, w);
		double b = at(json_number_value(json_array_get(ci, 1)), lo_ax, hi_ax, w);

		strbuf_addf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"9\" y2=\"9\" class=\"ci\"/>", a, b);
		strbuf_addf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"4\" y2=\"14\" class=\"ci\"/>", a, a);
		strbuf_addf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"4\" y2=\"14\" class=\"ci\"/>", b, b);
	}
	if (json_is_number(json_object_get(row, "ratio")))
		strbuf_addf(o, "<circle cx=\"%.1f\" cy=\"9\" r=\"3.5\" class=\"pt\"/>", at(r, lo_ax, hi_ax, w));
	strbuf_addstr(o, "</svg>");
}

static const char *style =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:86rem;padding:1rem;color:#111}"
	"h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}"
	".scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
	"th,td{padding:.25rem .5rem;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
	"th:nth-child(-n+2),td:nth-child(-n+2),td.verdict{text-align:left}.grp{border-left:2px solid #bbb}th.run{text-align:center}td.case{white-space:normal;word-break:break-all;min-width:8rem}table.cmp thead th{white-space:normal;word-break:break-all}td.verdict{white-space:normal;min-width:7rem}td.ci{text-align:center}table.stack td{white-space:normal;text-align:left;vertical-align:top}table.cases td:nth-child(5){text-align:right}table.nccl th,table.nccl td{text-align:right}caption{text-align:left;font-weight:600;padding:.6rem 0 .2rem}"
	".faster{color:#05620f;font-weight:600}.slower{color:#a50e0e;font-weight:600}.nc{color:#666}"
	".warn{background:#fff4d6;border-left:4px solid #d99a00;padding:.5rem .75rem}"
	".bad{background:#fde8e8;border-left:4px solid #a50e0e;padding:.5rem .75rem}"
	".ok{color:#05620f}.band{fill:#e3e8f0}.one{stroke:#888;stroke-width:1}.ci{stroke:#1f4e96;stroke-width:2}"
	".pt{fill:#1f4e96}code{font-size:.9em;word-break:break-all}"
	".grid{stroke:#e4e4e4}.tick{font-size:10px;fill:#444}.lbl{font-size:11px;fill:#111}.wk{stroke:#111;stroke-width:1.2}"
	".peak{stroke:#a50e0e;stroke-dasharray:4 3}.sw{display:inline-block;width:.8em;height:.8em;margin-right:.4em}"
	".failed{color:#a50e0e}.skipped{color:#666;font-size:.9em}ul.not-ok{padding-left:1.2rem}ul.not-ok li{margin:.15rem 0}"
	".failtxt{font-size:10px;fill:#a50e0e;font-weight:600}"
	"svg.chart{display:block;width:100%;height:auto}.barval{font-size:10px;fill:#111}details{margin:.3rem 0}.facts td{text-align:left;white-space:normal}"
	".chartbox{overflow-x:auto;max-width:100%}th.vh{text-align:left}"
	"@media (max-width:40rem){svg.chart{min-width:38rem}}"
	"@media print{body{max-width:none;font-size:10pt}.scroll{overflow:visible}a{color:inherit}}";

void html_page_open(struct strbuf *o, const char *title)
{
	strbuf_addstr(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			 "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
	esc_html(o, title);
	strbuf_addf(o, "</title><style>%s</style></head><body>\n", style);
}

/* The verdict's class: faster, slower, same; failed when a side did not measure; nc (not comparable) else */
static const char *verdict_class(json_t *c, json_t *x)
{
	const char *v = str(x, "verdict"), *bs = str(json_object_get(c, "baseline"), "status");

	if (!strcmp(v, "faster") || !strcmp(v, "slower") || !strcmp(v, "same"))
		return v;
	return (*str(x, "status") && is_failure(str(x, "status"))) || (*bs && is_failure(bs)) ? "failed" : "nc";
}

/* The labels of a comparison's sides other than the baseline, in order (a new array). */
static json_t *other_labels(json_t *r)
{
	json_t *others = json_array(), *x;
	size_t i;

	json_array_foreach(json_object_get(r, "sides"), i, x)
		if (!json_is_true(json_object_get(x, "baseline")))
			json_array_append_new(others, json_string(str(x, "label")));
	return others;
}

/* A table's side headers: the baseline's label (in the open cell, closed here), then one cell opened by th per
 * other side, holding its label. */
static void head_sides(struct strbuf *o, json_t *r, json_t *others, const char *th)
{
	json_t *x;
	size_t j;

	esc_html(o, str(r, "baseline"));
	strbuf_addstr(o, "</small></th>");
	json_array_foreach(others, j, x) {
		strbuf_addstr(o, th);
		esc_html(o, json_string_value(x));
		strbuf_addstr(o, "</th>");
	}
}

/* The case table of a comparison of N runs: one row per case, the baseline's value, then one column group per
 * other run (value, ratio, 95% CI with its whisker, verdict with the adjusted p) headed by the run. */
static void compare_cases_table(struct strbuf *o, json_t *r, int h, double thr, double lo_ax, double hi_ax)
{
	json_t *others = other_labels(r), *x, *c;
	size_t i, j;

	strbuf_addf(o, "<h%d>Cases</h%d>\n", h, h);
	strbuf_addstr(o, "<div class=\"scroll\"><table id=\"cases\" class=\"cmp\"><thead><tr><th rowspan=\"2\">suite</th>"
			 "<th rowspan=\"2\">case</th><th rowspan=\"2\" class=\"grp\">baseline<br><small>");
	head_sides(o, r, others, "<th colspan=\"4\" class=\"grp run\" scope=\"colgroup\">");
	strbuf_addstr(o, "</tr><tr>");
	for (j = 0; j < json_array_size(others); j++)
		strbuf_addstr(o, "<th class=\"grp\">value</th><th>ratio</th><th>95% CI</th><th class=\"vh\">verdict</th>");
	strbuf_addstr(o, "</tr></thead><tbody>\n");
	json_array_foreach(json_object_get(r, "cases"), i, c) {
		double cthr = json_is_number(json_object_get(c, "threshold")) ? json_number_value(json_object_get(c, "threshold")) : thr;
		json_t *bv = json_object_get(json_object_get(c, "baseline"), "value");

		strbuf_addstr(o, "<tr><td>");
		esc_html(o, str(c, "suite"));
		strbuf_addstr(o, "</td><td class=\"case\">");
		esc_html(o, str(c, "case"));
		strbuf_addstr(o, "</td><td class=\"grp\" data-k=\"baseline\">");
		if (json_is_number(bv))
			fmt_value(o, json_number_value(bv), str(c, "unit"));
		else
			strbuf_addstr(o, "&ndash;");
		strbuf_addstr(o, "</td>");
		json_array_foreach(others, j, x) {
			json_t *y = NULL, *z, *ci;
			size_t k;

			json_array_foreach(json_object_get(c, "others"), k, z)
				if (!strcmp(str(z, "label"), json_string_value(x)))
					y = z;
			if (!y) {
				strbuf_addf(o, "<td class=\"grp\" data-run=\"%zu\" data-k=\"value\">&ndash;</td><td data-run=\"%zu\" "
					       "data-k=\"ratio\">&ndash;</td><td data-run=\"%zu\" data-k=\"ci\">&ndash;</td><td class=\"nc\" "
					       "data-run=\"%zu\" data-k=\"verdict\">not in this run</td>", j, j, j, j);
				continue;
			}
			ci = json_object_get(y, "ci95");
			strbuf_addf(o, "<td class=\"grp\" data-run=\"%zu\" data-k=\"value\">", j);
			if (json_is_number(json_object_get(y, "value")))
				fmt_value(o, json_number_value(json_object_get(y, "value")), str(c, "unit"));
			else
				strbuf_addstr(o, "&ndash;");
			strbuf_addf(o, "</td><td data-run=\"%zu\" data-k=\"ratio\">", j);
			num(o, json_object_get(y, "ratio"), "%.3f");
			strbuf_addf(o, "</td><td class=\"ci\" data-run=\"%zu\" data-k=\"ci\">", j);
			if (json_is_array(ci))
				strbuf_addf(o, "[%.3f, %.3f]<br>", json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)));
			else
				strbuf_addstr(o, "&ndash;<br>");
			whisker(o, y, cthr, lo_ax, hi_ax);
			strbuf_addf(o, "</td><td class=\"verdict %s\" data-run=\"%zu\" data-k=\"verdict\">", verdict_class(c, y), j);
			esc_html(o, str(y, "verdict"));
			if (*str(y, "why")) {
				strbuf_addstr(o, " <small>(");
				esc_html(o, str(y, "why"));
				strbuf_addstr(o, ")</small>");
			}
			if (json_is_number(json_object_get(y, "p_adjusted")))
				strbuf_addf(o, " <small class=\"p\">p %.2g</small>", json_number_value(json_object_get(y, "p_adjusted")));
			strbuf_addstr(o, "</td>");
		}
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</tbody></table></div>\n");
	json_decref(others);
}

/* Stack and environment differences of N runs: one row per fact, the baseline's value, then one column per other
 * run (its value where it differs, "same" where it does not). */
static void compare_stack_table(struct strbuf *o, json_t *r, int h)
{
	json_t *others, *whats, *x, *w;
	const char *what;
	size_t i, j;

	if (!json_array_size(json_object_get(r, "stack_differs")))
		return;
	others = other_labels(r);
	whats = json_object();
	json_array_foreach(json_object_get(r, "stack_differs"), i, x) {
		if (!(w = json_object_get(whats, str(x, "what")))) {
			w = json_pack("{s:O, s:{}}", "baseline", json_object_get(x, "baseline"), "by");
			json_object_set_new(whats, str(x, "what"), w);
		}
		json_object_set(json_object_get(w, "by"), str(x, "label"), json_object_get(x, "value"));
	}
	strbuf_addf(o, "<h%d>Stack and environment differences</h%d>\n", h, h);
	strbuf_addstr(o, "<div class=\"scroll\"><table id=\"stack\" class=\"stack\"><thead><tr><th>what</th><th>baseline<br><small>");
	head_sides(o, r, others, "<th class=\"run\">");
	strbuf_addstr(o, "</tr></thead><tbody>\n");
	json_object_foreach(whats, what, w) {
		char *a = json_dumps(json_object_get(w, "baseline"), JSON_ENCODE_ANY);

		strbuf_addstr(o, "<tr><td>");
		esc_html(o, what);
		strbuf_addstr(o, "</td><td><code>");
		esc_html(o, a);
		strbuf_addstr(o, "</code></td>");
		free(a);
		json_array_foreach(others, j, x) {
			json_t *v = json_object_get(json_object_get(w, "by"), json_string_value(x));

			strbuf_addf(o, "<td data-run=\"%zu\">", j);
			if (v) {
				char *b = json_dumps(v, JSON_ENCODE_ANY);

				strbuf_addstr(o, "<code>");
				esc_html(o, b);
				strbuf_addstr(o, "</code>");
				free(b);
			} else {
				strbuf_addstr(o, "<span class=\"nc\">same</span>");
			}
			strbuf_addstr(o, "</td>");
		}
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</tbody></table></div>\n");
	json_decref(others);
	json_decref(whats);
}

/* One axis for every whisker, so lengths compare across rows: the widest CI, with the band */
static void whisker_axis(double *lo_ax, double *hi_ax, json_t *r, double thr)
{
	json_t *c, *x;
	size_t i, k;

	*lo_ax = *hi_ax = 1;
	json_array_foreach(json_object_get(r, "cases"), i, c)
		json_array_foreach(json_object_get(c, "others"), k, x) {
			json_t *ci = json_object_get(x, "ci95");

			if (json_is_array(ci)) {
				*lo_ax = fmin(*lo_ax, json_number_value(json_array_get(ci, 0)));
				*hi_ax = fmax(*hi_ax, json_number_value(json_array_get(ci, 1)));
			}
		}
	*lo_ax = fmin(*lo_ax, 1 - 2 * thr) - 0.01;
	*hi_ax = fmax(*hi_ax, 1 + 2 * thr) + 0.01;
}

/* the noise floor measured from an A/A pair, per suite */
static void compare_noise(struct strbuf *o, json_t *nz)
{
	json_t *v;
	const char *suite;
	int first = 1;

	strbuf_addstr(o, "<p id=\"noise\">Noise floor from the A/A pair ");
	esc_html(o, str(nz, "a"));
	strbuf_addstr(o, " / ");
	esc_html(o, str(nz, "b"));
	strbuf_addf(o, " (the %.0fth percentile of |ratio &minus; 1| over a suite's cases, with 2 runs or more a side the run-effect model's [its 95%% interval]; the threshold of that suite):",
		    100 * json_number_value(json_object_get(nz, "quantile")));
	json_object_foreach(json_object_get(nz, "suites"), suite, v) {
		json_t *model = json_object_get(v, "model");

		strbuf_addstr(o, first ? " " : ", ");
		esc_html(o, suite);
		if (model)
			strbuf_addf(o, " %.2f%% [%.2f%%, %.2f%%] (%lld cases; this pair's own %.2f%%)",
				    100 * json_number_value(json_object_get(model, "floor")),
				    100 * json_number_value(json_object_get(model, "lo")),
				    100 * json_number_value(json_object_get(model, "hi")),
				    (long long)json_integer_value(json_object_get(v, "cases")),
				    100 * json_number_value(json_object_get(v, "floor")));
		else
			strbuf_addf(o, " %.2f%% (%lld cases)", 100 * json_number_value(json_object_get(v, "floor")),
				    (long long)json_integer_value(json_object_get(v, "cases")));
		first = 0;
	}
	strbuf_addstr(o, first ? " none.</p>\n" : ".</p>\n");
}

/* how the verdicts were reached: the rule, the smallest change it can call, the noise floor, thin samples */
static void compare_method(struct strbuf *o, json_t *r, double thr)
{
	strbuf_addstr(o, "<p>Verdicts: ");
	esc_html(o, str(r, "rule"));
	strbuf_addf(o, " (threshold %.3g%%, alpha %g, %lld test(s) adjusted together, %lld bootstrap resamples, seeded by each "
		       "case key).</p>\n", 100 * thr, json_number_value(json_object_get(r, "alpha")),
		    (long long)json_integer_value(json_object_get(r, "tests")), (long long)json_integer_value(json_object_get(r, "resamples")));
	if (json_is_object(json_object_get(r, "resolution"))) {
		json_t *res = json_object_get(r, "resolution");

		strbuf_addf(o, "<p id=\"resolution\">Resolution: with these runs a case can be called faster or slower only for "
			       "a change of at least %.1f%% (median over %lld tested cases, %.1f%% to %.1f%%); smaller changes read "
			       "same.</p>\n", 100 * json_number_value(json_object_get(res, "median")),
			    (long long)json_integer_value(json_object_get(res, "cases")),
			    100 * json_number_value(json_object_get(res, "min")), 100 * json_number_value(json_object_get(res, "max")));
	}
	if (json_is_object(json_object_get(r, "noise")))
		compare_noise(o, json_object_get(r, "noise"));
	if (json_array_size(json_object_get(r, "few_samples")))
		strbuf_addf(o, "<p class=\"warn\" id=\"few-samples\">%zu case(s) of a run have fewer samples than their suite's "
			       "minimum: their run medians are rough.</p>\n", json_array_size(json_object_get(r, "few_samples")));
}

/* one input of a comparison: its label, its runs, its signature and path */
static void compare_input(struct strbuf *o, json_t *x)
{
	strbuf_addstr(o, "<li>");
	esc_html(o, str(x, "label"));
	strbuf_addstr(o, json_is_true(json_object_get(x, "baseline")) ? " (baseline)" : "");
	if (json_integer_value(json_object_get(x, "nruns")) > 1) {
		json_t *run;
		size_t k;

		strbuf_addstr(o, ": runs");
		json_array_foreach(json_object_get(x, "runs"), k, run) {
			strbuf_addstr(o, k ? ", " : " ");
			esc_html(o, str(run, "label"));
		}
	}
	if (json_is_true(json_object_get(x, "verified"))) {
		strbuf_addstr(o, " &mdash; <span class=\"ok\">signature verified</span>, key <code>");
		esc_html(o, str(x, "keyid"));
		strbuf_addstr(o, "</code>");
	} else {
		strbuf_addstr(o, " &mdash; <span class=\"slower\">UNVERIFIED</span> (a run directory or a bundle that did not verify)");
	}
	strbuf_addstr(o, "<br><code>");
	esc_html(o, str(x, "path"));
	strbuf_addstr(o, "</code></li>");
}

/* the inputs and their verification, then whether their methods differ */
static void compare_inputs(struct strbuf *o, json_t *r, int h)
{
	json_t *x, *sides = json_object_get(r, "sides");
	size_t i;

	strbuf_addf(o, "<h%d>Inputs</h%d>\n<ul id=\"sides\">", h, h);
	json_array_foreach(sides, i, x)
		compare_input(o, x);
	strbuf_addstr(o, "</ul>\n");
	json_array_foreach(sides, i, x)
		if (!json_is_true(json_object_get(x, "verified"))) {
			strbuf_addstr(o, "<p class=\"bad\" id=\"unverified\">Not every input is a verified bundle: nothing proves "
					 "these numbers were not edited.</p>\n");
			break;
		}
	if (json_array_size(json_object_get(r, "method_differs")))
		strbuf_addf(o, "<p class=\"warn\" id=\"method\">The method differs for %zu case(s): their parameters are not "
			       "the same, so those ratios compare different measurements.</p>\n",
			    json_array_size(json_object_get(r, "method_differs")));
}

/* the cases without a ratio: those that did not measure, and those on one side only */
static void compare_unpaired(struct strbuf *o, json_t *r, int h)
{
	json_t *x;
	size_t i;

	if (json_array_size(json_object_get(r, "not_ok"))) {
		strbuf_addf(o, "<h%d>Cases that did not measure</h%d>\n<ul class=\"not-ok\" id=\"not-ok\">", h, h);
		json_array_foreach(json_object_get(r, "not_ok"), i, x)
			not_ok_item(o, str(x, "label"), str(x, "suite"), str(x, "case"), str(x, "status"), str(x, "error"));
		strbuf_addstr(o, "</ul>\n");
	}
	if (json_array_size(json_object_get(r, "only_in_one"))) {
		strbuf_addf(o, "<h%d>Cases on one side only</h%d>\n<ul id=\"only\">", h, h);
		json_array_foreach(json_object_get(r, "only_in_one"), i, x) {
			strbuf_addstr(o, "<li><code>");
			esc_html(o, str(x, "case"));
			strbuf_addstr(o, "</code> only in ");
			esc_html(o, str(x, "only_in"));
			strbuf_addstr(o, "</li>");
		}
		strbuf_addstr(o, "</ul>\n");
	}
}

/* The comparison: inputs and their verification, the case table with whiskers, one-sided cases, stack
 * differences. `h` is the heading level of its sections. */
static void compare_section(struct strbuf *o, json_t *r, int h)
{
	double thr = json_number_value(json_object_get(r, "threshold")), lo_ax, hi_ax;

	whisker_axis(&lo_ax, &hi_ax, r, thr);
	compare_method(o, r, thr);
	compare_inputs(o, r, h);
	compare_cases_table(o, r, h, thr, lo_ax, hi_ax);
	compare_unpaired(o, r, h);
	compare_stack_table(o, r, h);
}

void html_render_compare(struct strbuf *o, json_t *r)
{
	json_t *x;
	size_t i;
	int vs = 0;
	char *title = xstrfmt("bench compare: %s", str(r, "baseline"));

	html_page_open(o, title);
	free(title);
	strbuf_addstr(o, "<h1>bench compare &mdash; baseline ");
	esc_html(o, str(r, "baseline"));
	strbuf_addstr(o, "</h1>\n");
	compare_section(o, r, 2);
	strbuf_addstr(o, "<h2>Reproduce</h2>\n<p><code>bench compare --format html");
	json_array_foreach(json_object_get(r, "sides"), i, x)
		if (json_is_true(json_object_get(x, "baseline")) && i > 0)
			strbuf_addf(o, " --baseline %zu", i + 1);
	json_array_foreach(json_object_get(r, "sides"), i, x)
		vs |= json_integer_value(json_object_get(x, "nruns")) > 1; /* sides of several runs: --vs between sides */
	json_array_foreach(json_object_get(r, "sides"), i, x) {
		json_t *run;
		size_t k;

		if (i > 0 && vs)
			strbuf_addstr(o, " --vs");
		json_array_foreach(json_object_get(x, "runs"), k, run) {
			strbuf_addch(o, ' ');
			esc_html(o, str(run, "path"));
		}
	}
	strbuf_addstr(o, "</code></p>\n</body></html>\n");
}

/* ---- bench report ---------------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the metric at a sample: the headline is proportional to 1/time, so value * median(t) / t */
static void metric_range(double *lo, double *hi, json_t *rec)
{
	json_t *s = json_object_get(rec, "samples_ms"), *v;
	size_t i, n = json_array_size(s), a, b;
	double *t, med, val = json_number_value(json_object_get(rec, "value"));

	*lo = *hi = val;
	if (n < 2)
		return;
	t = xmalloc(n * sizeof(*t));
	json_array_foreach(s, i, v)
		t[i] = json_number_value(v);
	qsort(t, n, sizeof(*t), cmp_double);
	med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	a = (size_t)(0.05 * (double)(n - 1));
	b = (size_t)(0.95 * (double)(n - 1) + 0.5);
	if (t[b] > 0 && t[a] > 0) {
		*lo = val * med / t[b]; /* the slowest 5% */
		*hi = val * med / t[a];
	}
	free(t);
}

/* case -> percent of peak for one suite of a run, from its summary.json (a new object) */
static json_t *peak_map(const struct compare_side *s, const char *suite)
{
	json_t *m = json_object(), *c;
	size_t i;

	json_array_foreach(json_object_get(s->summary, "cases"), i, c)
		if (!strcmp(str(c, "suite"), suite) && json_is_number(json_object_get(c, "pct_of_peak")))
			json_object_set(m, str(c, "case"), json_object_get(c, "pct_of_peak"));
	return m;
}

static const char *palette[] = { "#1f4e96", "#c75b12", "#2a8a3e", "#8a2a7a", "#6b6b6b", "#b8a200" };

/* Every case of a suite above its chart, one row per run and case: the headline scaled for a person (1.17 GFLOP/s,
 * not 0.00117 TFLOP/s), the number of samples, their coefficient of variation, the percent of the datasheet peak
 * from the run's summary.json and the runner's own correctness check; a case that did not measure shows its
 * status instead of a value. */
static void case_table(struct strbuf *o, const struct compare_side *sides, size_t n, const char *suite)
{
	const char *k;
	json_t *rec;

	strbuf_addf(o, "<div class=\"scroll\"><table class=\"cases\" id=\"table-%s\"><thead><tr><th>run</th><th>case</th>"
		       "<th>value</th><th>n</th><th>CV</th><th>%% of peak</th><th>check</th></tr></thead><tbody>\n", suite);
	for (size_t s = 0; s < n; s++) {
		json_t *pm = peak_map(&sides[s], suite);

		json_object_foreach(sides[s].records, k, rec) {
			json_t *st = json_object_get(rec, "stats"), *chk = json_object_get(json_object_get(rec, "extra"), "check");
			int ok = !strcmp(str(rec, "status"), "ok");

			if (strcmp(str(rec, "suite"), suite))
				continue;
			strbuf_addstr(o, "<tr><td>");
			esc_html(o, sides[s].label);
			strbuf_addstr(o, "</td><td class=\"case\"><code>");
			esc_html(o, str(rec, "case"));
			strbuf_addstr(o, "</code></td><td class=\"val\">");
			if (ok && json_is_number(json_object_get(rec, "value"))) {
				fmt_value(o, json_number_value(json_object_get(rec, "value")), str(rec, "unit"));
			} else {
				strbuf_addf(o, "<span class=\"%s\" title=\"", is_failure(str(rec, "status")) ? "failed" : "skipped");
				esc_html(o, compare_case_reason(rec));
				strbuf_addstr(o, "\">");
				esc_html(o, str(rec, "status"));
				strbuf_addstr(o, "</span>");
			}
			strbuf_addstr(o, "</td><td>");
			if (json_is_integer(json_object_get(st, "n")))
				strbuf_addf(o, "%lld", (long long)json_integer_value(json_object_get(st, "n")));
			else if (json_array_size(json_object_get(rec, "samples_ms")))
				strbuf_addf(o, "%zu", json_array_size(json_object_get(rec, "samples_ms")));
			else
				strbuf_addstr(o, "&ndash;");
			strbuf_addstr(o, "</td><td>");
			if (json_is_number(json_object_get(st, "cv")))
				strbuf_addf(o, "%.1f%%", 100 * json_number_value(json_object_get(st, "cv")));
			else
				strbuf_addstr(o, "&ndash;");
			strbuf_addstr(o, "</td><td>");
			if (json_is_number(json_object_get(pm, str(rec, "case"))))
				strbuf_addf(o, "%.1f%%", json_number_value(json_object_get(pm, str(rec, "case"))));
			else
				strbuf_addstr(o, "&ndash;");
			strbuf_addstr(o, "</td><td>");
			if (json_is_string(chk))
				esc_html(o, json_string_value(chk));
			else
				strbuf_addstr(o, "&ndash;");
			strbuf_addstr(o, "</td></tr>\n");
		}
		json_decref(pm);
	}
	strbuf_addstr(o, "</tbody></table></div>\n");
}

/* The 1-2-5 step for about nticks intervals up to vmax, and the top of the axis: the first step at or above it */
static void axis_top(double *step, double *top, double vmax, int nticks)
{
	*step = nice_step(vmax, nticks);
	*top = ceil(vmax / *step - 1e-9) * *step;
}

/* One suite's bar chart: its cases, the datasheet peaks, the scale, and the geometry of a group of bars */
struct bars {
	const struct compare_side *sides;
	size_t n;
	const char *suite;
	json_t *keys;  /* the cases that measured on some side, in order */
	json_t *peaks; /* "DTYPE peak VALUE" -> the peak, in the records' unit */
	const char *unit;
	double vmax; /* the axis' end, in the records' unit */
	double step, top; /* the ticks, in the unit of su */
	char su[32];
};

static const double bars_label_w = 300, bars_plot_w = 560, bars_val_w = 100, bars_bar_h = 12, bars_gap = 8;

/* only the cases that measured a value on some side: a failure is listed under the chart, never drawn */
static void bars_keys(struct bars *c)
{
	json_t *seen = json_object(), *rec;
	const char *k;

	for (size_t i = 0; i < c->n; i++)
		json_object_foreach(c->sides[i].records, k, rec)
			if (!strcmp(str(rec, "suite"), c->suite) && !strcmp(str(rec, "status"), "ok") && !json_object_get(seen, k)) {
				json_object_set_new(seen, k, json_true());
				json_array_append_new(c->keys, json_string(k));
			}
	json_decref(seen);
}

/* the datasheet peak a measured record implies (its value over its percent of peak), named by dtype and value */
static void bars_peak(struct bars *c, json_t *rec, double pct)
{
	struct strbuf pk = STRBUF_INIT;
	double peak = json_number_value(json_object_get(rec, "value")) * 100 / pct;

	strbuf_addf(&pk, "%s peak ", str(json_object_get(rec, "params"), "dtype"));
	fmt_value(&pk, peak, str(rec, "unit"));
	json_object_set_new(c->peaks, pk.buf, json_real(peak));
	strbuf_release(&pk);
}

/* the cases, the peaks and the largest value drawn (a whisker's end or a peak), then the axis in the unit a
 * person reads (GFLOP/s rather than 0.001 TFLOP/s), ticks on 1-2-5 steps */
static void bars_scale(struct bars *c)
{
	json_t *pmaps = json_array(), *rec, *v;
	const char *k;
	size_t i;
	double lo, hi, vmax = 0, k_unit;

	bars_keys(c);
	for (size_t s = 0; s < c->n; s++)
		json_array_append_new(pmaps, peak_map(&c->sides[s], c->suite));
	json_array_foreach(c->keys, i, v)
		for (size_t s = 0; s < c->n; s++) {
			double pct;

			if (!(rec = json_object_get(c->sides[s].records, json_string_value(v))) || strcmp(str(rec, "status"), "ok"))
				continue;
			c->unit = *str(rec, "unit") ? str(rec, "unit") : c->unit;
			metric_range(&lo, &hi, rec);
			vmax = fmax(vmax, hi);
			if ((pct = json_number_value(json_object_get(json_array_get(pmaps, s), str(rec, "case")))) > 0)
				bars_peak(c, rec, pct);
		}
	json_object_foreach(c->peaks, k, v)
		vmax = fmax(vmax, json_real_value(v));
	if (vmax <= 0)
		vmax = 1;
	k_unit = unit_scale(vmax, c->unit, c->su, sizeof(c->su));
	axis_top(&c->step, &c->top, vmax * k_unit, 5);
	c->vmax = c->top / k_unit;
	json_decref(pmaps);
}

/* the value axis: grid lines and ticks, the unit under them, and the dashed peaks */
static void bars_axis(struct strbuf *o, const struct bars *c, double h)
{
	const char *k;
	json_t *v;

	for (int t = 0; t * c->step <= c->top * (1 + 1e-9); t++) {
		double x = bars_label_w + bars_plot_w * t * c->step / c->top;

		strbuf_addf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.0f\" class=\"grid\"/>"
			       "<text x=\"%.1f\" y=\"%.0f\" class=\"tick\" text-anchor=\"middle\">%g</text>", x, x, h - 28, x, h - 16,
			    t * c->step);
	}
	strbuf_addf(o, "<text x=\"%.1f\" y=\"%.0f\" class=\"tick\" text-anchor=\"middle\">", bars_label_w + bars_plot_w / 2, h - 3);
	esc_html(o, c->su);
	strbuf_addstr(o, "</text>");
	json_object_foreach(c->peaks, k, v) {
		double x = bars_label_w + bars_plot_w * json_real_value(v) / c->vmax;

		strbuf_addf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.0f\" class=\"peak\"/><text x=\"%.1f\" y=\"10\" "
			       "class=\"tick\" text-anchor=\"end\">", x, x, h - 28, x - 3);
		esc_html(o, k);
		strbuf_addstr(o, "</text>");
	}
}

/* a side's bar at y: the value with its 5th-95th percentile whisker and the value past it; no bar for a case that
 * did not measure: the word, and the reason on hover */
static void bars_bar(struct strbuf *o, const struct bars *c, size_t s, json_t *rec, double y)
{
	double val, lo, hi;

	if (strcmp(str(rec, "status"), "ok")) {
		strbuf_addf(o, "<text x=\"%.0f\" y=\"%.1f\" class=\"failtxt\">", bars_label_w + 4, y + bars_bar_h - 3);
		esc_html(o, str(rec, "status"));
		strbuf_addstr(o, "<title>");
		esc_html(o, c->sides[s].label);
		strbuf_addstr(o, ": ");
		esc_html(o, compare_case_reason(rec));
		strbuf_addstr(o, "</title></text>");
		return;
	}
	val = json_number_value(json_object_get(rec, "value"));
	metric_range(&lo, &hi, rec);
	strbuf_addf(o, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", bars_label_w, y + 1,
		    bars_plot_w * val / c->vmax, bars_bar_h - 2, palette[s % 6]);
	esc_html(o, c->sides[s].label);
	strbuf_addf(o, ": %.4g (5th-95th percentile %.4g-%.4g)</title></rect>", val, lo, hi);
	strbuf_addf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"wk\"/>", bars_label_w + bars_plot_w * lo / c->vmax,
		    bars_label_w + bars_plot_w * hi / c->vmax, y + bars_bar_h / 2, y + bars_bar_h / 2);
	/* the value at the bar's end, past its whisker */
	strbuf_addf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"barval\">",
		    bars_label_w + bars_plot_w * fmin(fmax(val, hi), c->vmax) / c->vmax + 4, y + bars_bar_h - 2);
	fmt_value(o, val, str(rec, "unit"));
	strbuf_addstr(o, "</text>");
}

/* one case's group, row `row`: its label (the case key less its suite), then a bar per side */
static void bars_case(struct strbuf *o, const struct bars *c, const char *key, size_t row)
{
	double y0 = (double)row * ((double)c->n * bars_bar_h + bars_gap) + 14;
	json_t *rec;

	strbuf_addf(o, "<text x=\"%.0f\" y=\"%.1f\" class=\"lbl\" text-anchor=\"end\">", bars_label_w - 6,
		    y0 + (double)c->n * bars_bar_h / 2 + 4);
	esc_html(o, strchr(key, ' ') ? strchr(key, ' ') + 1 : key);
	strbuf_addstr(o, "</text>");
	for (size_t s = 0; s < c->n; s++)
		if ((rec = json_object_get(c->sides[s].records, key)))
			bars_bar(o, c, s, rec, y0 + (double)s * bars_bar_h);
}

/* Horizontal bars: one group per case (in the first side's order, then the others'), one bar per side, a
 * whisker from the 5th to the 95th percentile of the samples, and dashed lines at the datasheet peaks. */
static void chart_bars(struct strbuf *o, const struct compare_side *sides, size_t n, const char *suite)
{
	struct bars c = { .sides = sides, .n = n, .suite = suite, .keys = json_array(), .peaks = json_object(), .unit = "" };
	size_t i;
	json_t *v;
	double h;

	bars_scale(&c);
	h = (double)json_array_size(c.keys) * ((double)n * bars_bar_h + bars_gap) + 40;
	strbuf_addf(o, "<div class=\"chartbox\"><svg class=\"chart\" id=\"chart-");
	esc_html(o, suite);
	strbuf_addf(o, "\" viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\" "
		       "aria-label=\"", bars_label_w + bars_plot_w + bars_val_w, h);
	esc_html(o, suite);
	strbuf_addstr(o, " headline per case\">");
	bars_axis(o, &c, h);
	json_array_foreach(c.keys, i, v)
		bars_case(o, &c, json_string_value(v), i);
	strbuf_addstr(o, "</svg></div>\n");
	json_decref(c.keys);
	json_decref(c.peaks);
}

static const char *op_palette[] = { "#0b7a75", "#d1495b", "#edae49", "#5c4d7d", "#00798c", "#8c564b", "#30638e" };
static const char *run_dashes[] = { "", "7 4", "2 3", "9 3 2 3", "1 5", "12 6" };

/* A collectives record's op as its line and table are named: "all_reduce", or "all_reduce g2.1" for group 1 of the
 * groups of 2 ranks (group_sizes). NULL for the point-to-point pairs (the heat maps draw them). Caller frees. */
static char *coll_op_label(json_t *p)
{
	if (!strcmp(str(p, "op"), "p2p"))
		return NULL;
	if (json_is_integer(json_object_get(p, "group_size")))
		return xstrfmt("%s g%lld.%lld", str(p, "op"), (long long)json_integer_value(json_object_get(p, "group_size")),
			       (long long)json_integer_value(json_object_get(p, "group")));
	return xstrdup(str(p, "op"));
}

/* The collectives chart: its series ("RUN OP [PLACEMENT]" -> run, op, in_place and points [log2 bytes, GB/s]),
 * its ops (op -> its colour's index, in order of appearance) and its scale */
struct coll_chart {
	json_t *series, *ops;
	double xmin, xmax, ymax, step, top;
};

static const double coll_w = 760, coll_h = 300, coll_l = 56, coll_b = 36;

static double coll_x(const struct coll_chart *c, double log2_bytes)
{
	return coll_l + (coll_w - coll_l) * (log2_bytes - c->xmin) / (c->xmax - c->xmin);
}

static double coll_y(const struct coll_chart *c, double v)
{
	return (coll_h - coll_b) - (coll_h - coll_b - 10) * v / c->top;
}

/* one measured record of a run into its series, widening the scale */
static void coll_add(struct coll_chart *c, const char *label, size_t s, json_t *rec, const char *op)
{
	json_t *p = json_object_get(rec, "params"), *se;
	double bytes = json_number_value(json_object_get(p, "bytes"));
	char *name = xstrfmt("%s %s%s%s", label, op, *str(p, "placement") ? " " : "", str(p, "placement"));

	if (!json_object_get(c->ops, str(p, "op")))
		json_object_set_new(c->ops, str(p, "op"), json_integer((json_int_t)json_object_size(c->ops)));
	if (!(se = json_object_get(c->series, name))) {
		se = json_pack("{s:i, s:s, s:b, s:[]}", "run", (int)s, "op", str(p, "op"), "in_place",
			       !strcmp(str(p, "placement"), "in-place"), "pts");
		json_object_set_new(c->series, name, se);
	}
	json_array_append_new(json_object_get(se, "pts"), json_pack("[f, f]", log2(bytes), json_number_value(json_object_get(rec, "value"))));
	c->xmin = fmin(c->xmin, log2(bytes));
	c->xmax = fmax(c->xmax, log2(bytes));
	c->ymax = fmax(c->ymax, json_number_value(json_object_get(rec, "value")));
	free(name);
}

/* every measured collective (not the point-to-point pairs) of every run */
static void coll_collect(struct coll_chart *c, const struct compare_side *sides, size_t n)
{
	const char *k;
	json_t *rec;

	for (size_t s = 0; s < n; s++)
		json_object_foreach(sides[s].records, k, rec) {
			json_t *p = json_object_get(rec, "params");
			char *op;

			if (strcmp(str(rec, "suite"), "collectives") || strcmp(str(rec, "status"), "ok") ||
			    json_number_value(json_object_get(p, "bytes")) <= 0 || !(op = coll_op_label(p)))
				continue;
			coll_add(c, sides[s].label, s, rec, op);
			free(op);
		}
}

/* a power of two for a person: 4K, 16M, 1G */
static void bytes_pow2(struct strbuf *o, double by)
{
	if (by >= 1 << 30)
		strbuf_addf(o, "%.0fG", by / (1 << 30));
	else if (by >= 1 << 20)
		strbuf_addf(o, "%.0fM", by / (1 << 20));
	else if (by >= 1 << 10)
		strbuf_addf(o, "%.0fK", by / (1 << 10));
	else
		strbuf_addf(o, "%.0f", by);
}

/* bandwidth ticks up the side, message sizes along the foot (at most about 8), and what the axes are */
static void coll_axes(struct strbuf *o, const struct coll_chart *c)
{
	for (int t = 0; t * c->step <= c->top * (1 + 1e-9); t++) {
		double y = (coll_h - coll_b) - (coll_h - coll_b - 10) * t * c->step / c->top;

		strbuf_addf(o, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/><text x=\"%.0f\" y=\"%.1f\" "
			       "class=\"tick\" text-anchor=\"end\">%g</text>", coll_l, coll_w, y, y, coll_l - 4, y + 4, t * c->step);
	}
	for (double e = ceil(c->xmin); e <= c->xmax; e += fmax(1, floor((c->xmax - c->xmin) / 8))) {
		double x = coll_x(c, e);

		strbuf_addf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"10\" y2=\"%.0f\" class=\"grid\"/><text x=\"%.1f\" y=\"%.0f\" "
			       "class=\"tick\" text-anchor=\"middle\">", x, x, coll_h - coll_b, x, coll_h - coll_b + 14);
		bytes_pow2(o, pow(2, e));
		strbuf_addstr(o, "</text>");
	}
	strbuf_addf(o, "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"middle\">message size (bytes, log2) &mdash; "
		       "bus bandwidth GB/s</text>", (coll_l + coll_w) / 2, coll_h - 4);
}

/* one series' line, its points by size: the op its colour, the run its dash, in-place thinner */
static void coll_line(struct strbuf *o, const struct coll_chart *c, const char *name, json_t *v)
{
	json_t *pts = json_object_get(v, "pts"), *q;
	size_t i, m = json_array_size(pts), run = (size_t)json_integer_value(json_object_get(v, "run"));
	size_t op = (size_t)json_integer_value(json_object_get(c->ops, str(v, "op")));
	double (*pt)[2] = xmalloc((m ? m : 1) * sizeof(*pt));

	json_array_foreach(pts, i, q) {
		pt[i][0] = json_number_value(json_array_get(q, 0));
		pt[i][1] = json_number_value(json_array_get(q, 1));
	}
	for (i = 1; i < m; i++) /* by size */
		for (size_t j = i; j > 0 && pt[j - 1][0] > pt[j][0]; j--) {
			double t0 = pt[j][0], t1 = pt[j][1];

			pt[j][0] = pt[j - 1][0], pt[j][1] = pt[j - 1][1];
			pt[j - 1][0] = t0, pt[j - 1][1] = t1;
		}
	strbuf_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" stroke-dasharray=\"%s\" data-op=\"",
		    op_palette[op % 7], json_is_true(json_object_get(v, "in_place")) ? "1.2" : "2.2", run_dashes[run % 6]);
	esc_html(o, str(v, "op"));
	strbuf_addf(o, "\" data-run=\"%zu\" points=\"", run);
	for (i = 0; i < m; i++)
		strbuf_addf(o, "%s%.1f,%.1f", i ? " " : "", coll_x(c, pt[i][0]), coll_y(c, pt[i][1]));
	strbuf_addstr(o, "\"><title>");
	esc_html(o, name);
	strbuf_addstr(o, "</title></polyline>");
	free(pt);
}

/* the legend: ops by colour, then runs by dash */
static void coll_legend(struct strbuf *o, const struct coll_chart *c, const struct compare_side *sides, size_t n)
{
	size_t row = 0;
	const char *k;
	json_t *v;

	json_object_foreach(c->ops, k, v) {
		strbuf_addf(o, "<g class=\"legend-op\"><rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"10\" fill=\"%s\"/>"
			       "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\">", coll_w + 10, 12 + 16.0 * (double)row,
			    op_palette[json_integer_value(v) % 7], coll_w + 30, 21 + 16.0 * (double)row);
		esc_html(o, k);
		strbuf_addstr(o, "</text></g>");
		row++;
	}
	for (size_t s = 0; s < n && n > 1; s++) {
		strbuf_addf(o, "<g class=\"legend-run\"><line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#333\" "
			       "stroke-width=\"2\" stroke-dasharray=\"%s\"/><text x=\"%.0f\" y=\"%.0f\" class=\"tick\">", coll_w + 10,
			    coll_w + 26, 17 + 16.0 * (double)row, 17 + 16.0 * (double)row, run_dashes[s % 6], coll_w + 30,
			    21 + 16.0 * (double)row);
		esc_html(o, sides[s].label);
		strbuf_addstr(o, "</text></g>");
		row++;
	}
}

/* Collectives: bus bandwidth against message size on a log2 axis, one line per run, op and placement: the op
 * its colour (a palette of its own, not the runs'), the run its dash; in-place thinner than out-of-place. */
static void chart_coll(struct strbuf *o, const struct compare_side *sides, size_t n)
{
	struct coll_chart c = { .series = json_object(), .ops = json_object(), .xmin = 1e300 };
	const char *k;
	json_t *v;

	coll_collect(&c, sides, n);
	if (!json_object_size(c.series))
		goto cleanup;
	if (c.xmax <= c.xmin)
		c.xmax = c.xmin + 1;
	axis_top(&c.step, &c.top, c.ymax > 0 ? c.ymax : 1, 4);
	strbuf_addf(o, "<div class=\"chartbox\"><svg class=\"chart\" id=\"chart-collectives\" viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" "
		       "preserveAspectRatio=\"xMinYMin meet\" role=\"img\" aria-label=\"bus bandwidth against message size\">",
		    coll_w + 200, coll_h);
	coll_axes(o, &c);
	json_object_foreach(c.series, k, v)
		coll_line(o, &c, k, v);
	coll_legend(o, &c, sides, n);
	strbuf_addstr(o, "</svg></div>\n");
cleanup:
	json_decref(c.series);
	json_decref(c.ops);
}

static int cmp_rec_bytes(const void *a, const void *b)
{
	double x = json_number_value(json_object_get(json_object_get(*(json_t *const *)a, "params"), "bytes"));
	double y = json_number_value(json_object_get(json_object_get(*(json_t *const *)b, "params"), "bytes"));

	return x < y ? -1 : x > y;
}

/* Collectives as nccl-tests prints them: per run, op and placement a table of size (bytes), count (elements),
 * type, time (us, the mean over iterations), algbw and busbw (GB/s, from that mean time) and #wrong (N/A
 * without a data check). A case that did not measure shows its status in the time column. */
static void coll_tables(struct strbuf *o, const struct compare_side *sides, size_t n)
{
	for (size_t s = 0; s < n; s++) {
		json_t *groups = json_object(), *rec, *g;
		const char *k;

		json_object_foreach(sides[s].records, k, rec) {
			json_t *p = json_object_get(rec, "params");
			char *name, *op;

			if (strcmp(str(rec, "suite"), "collectives") || !(op = coll_op_label(p)))
				continue;
			name = xstrfmt("%s, %s", op, *str(p, "placement") ? str(p, "placement") : "out-of-place");
			free(op);
			if (!json_object_get(groups, name))
				json_object_set_new(groups, name, json_array());
			json_array_append(json_object_get(groups, name), rec);
			free(name);
		}
		json_object_foreach(groups, k, g) {
			size_t m = json_array_size(g);
			json_t **rs = xmalloc((m ? m : 1) * sizeof(*rs));

			for (size_t i = 0; i < m; i++)
				rs[i] = json_array_get(g, i);
			qsort(rs, m, sizeof(*rs), cmp_rec_bytes);
			strbuf_addf(o, "<div class=\"scroll\"><table class=\"nccl\" data-run=\"%zu\"><caption>", s);
			esc_html(o, sides[s].label);
			strbuf_addstr(o, ": ");
			esc_html(o, k);
			strbuf_addstr(o, "</caption><thead><tr><th>size (B)</th><th>count</th><th>type</th><th>median time (us)</th>"
					 "<th>algbw (GB/s)</th><th>busbw (GB/s)</th><th>#wrong</th></tr></thead><tbody>\n");
			for (size_t i = 0; i < m; i++) {
				json_t *x = json_object_get(rs[i], "extra"), *p = json_object_get(rs[i], "params");
				double tm, alg, bus; /* of the median sample, as the chart above and the terminal's table */
				int measured = terminal_coll_median(&tm, &alg, &bus, rs[i]) == 0;

				strbuf_addf(o, "<tr><td>%.0f</td><td>", json_number_value(json_object_get(p, "bytes")));
				num(o, json_object_get(x, "count"), "%.0f");
				strbuf_addstr(o, "</td><td>");
				if (*str(p, "dtype"))
					esc_html(o, str(p, "dtype"));
				else
					strbuf_addstr(o, "&ndash;");
				strbuf_addstr(o, "</td><td>");
				if (!measured) {
					strbuf_addf(o, "<span class=\"%s\" title=\"", is_failure(str(rs[i], "status")) ? "failed" : "skipped");
					esc_html(o, compare_case_reason(rs[i]));
					strbuf_addstr(o, "\">");
					esc_html(o, str(rs[i], "status"));
					strbuf_addstr(o, "</span>");
				} else {
					strbuf_addf(o, "%.2f", tm);
				}
				strbuf_addstr(o, "</td><td>");
				if (measured)
					strbuf_addf(o, "%.2f</td><td>%.2f", alg, bus);
				else
					strbuf_addstr(o, "&ndash;</td><td>&ndash;");
				strbuf_addstr(o, "</td><td>");
				if (json_is_integer(json_object_get(x, "wrong")))
					strbuf_addf(o, "%lld", (long long)json_integer_value(json_object_get(x, "wrong")));
				else
					strbuf_addstr(o, "N/A");
				strbuf_addstr(o, "</td></tr>\n");
			}
			strbuf_addstr(o, "</tbody></table></div>\n");
			free(rs);
		}
		json_decref(groups);
	}
}

/* The point-to-point matrix of collectives' pairs: all (op p2p): per run and measure, an SVG table of cells, row the
 * sending rank, column the receiving one, the value written in each cell and its shade by value (darker: more
 * bandwidth, or more latency). Bandwidth is the record's value (GB/s), latency its extra.latency_us. */
static void heatmap_pairs(struct strbuf *o, const struct compare_side *sides, size_t n)
{
	static const char *const measures[] = { "bandwidth", "latency" };
	static const char *const units[] = { "GB/s", "us" };
	const double cell = 56, pad = 34;

	for (size_t s = 0; s < n; s++)
		for (int w = 0; w < 2; w++) {
			double val[16][16], lo = 1e300, hi = 0;
			int have[16][16], size = 0, any = 0;
			json_t *rec;
			const char *k;

			memset(have, 0, sizeof(have));
			json_object_foreach(sides[s].records, k, rec) {
				json_t *p = json_object_get(rec, "params");
				json_int_t i = json_integer_value(json_object_get(p, "src")), j = json_integer_value(json_object_get(p, "dst"));
				double v = w ? json_number_value(json_object_get(json_object_get(rec, "extra"), "latency_us"))
					     : json_number_value(json_object_get(rec, "value"));

				if (strcmp(str(rec, "suite"), "collectives") || strcmp(str(p, "op"), "p2p") ||
				    strcmp(str(p, "measure"), measures[w]) || strcmp(str(rec, "status"), "ok") || i < 0 || j < 0 ||
				    i >= 16 || j >= 16 || i == j)
					continue;
				val[i][j] = v;
				have[i][j] = any = 1;
				size = (int)(i >= size ? i + 1 : size);
				size = (int)(j >= size ? j + 1 : size);
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
			if (!any)
				continue;
			strbuf_addf(o, "<div class=\"scroll\"><svg class=\"chart heatmap\" id=\"p2p-%s-%zu\" viewBox=\"0 0 %.0f %.0f\" "
				       "width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"", measures[w], s, pad + cell * size + 4,
				    pad + cell * size + 18, pad + cell * size + 4, pad + cell * size + 18);
			esc_html(o, sides[s].label);
			strbuf_addf(o, ": point-to-point %s, row sends to column (%s)\">", measures[w], units[w]);
			for (int i = 0; i < size; i++)
				strbuf_addf(o, "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"middle\">%d</text><text x=\"%.0f\" "
					       "y=\"%.0f\" class=\"tick\" text-anchor=\"end\">%d</text>", pad + cell * (i + 0.5), pad - 6, i,
					    pad - 6, pad + cell * (i + 0.5) + 4, i);
			for (int i = 0; i < size; i++)
				for (int j = 0; j < size; j++) {
					double x = pad + cell * j, y = pad + cell * i, f = hi > lo ? (val[i][j] - lo) / (hi - lo) : 1;
					double light = 92 - 55 * f;

					if (!have[i][j]) {
						strbuf_addf(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\" "
							       "stroke=\"#fff\"/>", x, y, cell, cell);
						continue;
					}
					strbuf_addf(o, "<rect class=\"p2p-cell\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
						       "fill=\"hsl(%d,65%%,%.0f%%)\" stroke=\"#fff\"><title>%d &#8594; %d: %.4g %s</title></rect>"
						       "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"middle\"%s>%.3g</text>", x, y, cell,
						    cell, w ? 25 : 215, light, i, j, val[i][j], units[w], x + cell / 2, y + cell / 2 + 4,
						    light < 60 ? " style=\"fill:#fff\"" : "", val[i][j]);
				}
			strbuf_addf(o, "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"middle\">", pad + cell * size / 2,
				    pad + cell * size + 14);
			esc_html(o, sides[s].label);
			strbuf_addf(o, " &mdash; p2p %s (%s), row = sender</text></svg></div>\n", measures[w], units[w]);
		}
}

/* A run that did not end well says so at the top of its section: in red with the counts when a case failed,
 * was interrupted or never ran (and every such case with its reason); skipped cases in a quieter note. */
static void run_health(struct strbuf *o, const struct compare_side *side, size_t idx)
{
	json_t *h = compare_run_health(side->status), *cn = json_object_get(h, "counts"), *c;
	json_int_t failed = json_integer_value(json_object_get(cn, "failed")), intr = json_integer_value(json_object_get(cn, "interrupted"));
	json_int_t pend = json_integer_value(json_object_get(cn, "pending")), skip = json_integer_value(json_object_get(cn, "skipped"));
	json_int_t total = failed + intr + pend + skip + json_integer_value(json_object_get(cn, "ok"));
	const char *state = str(h, "state");
	size_t i;

	if (!side->status) {
		strbuf_addf(o, "<p class=\"warn run-state\" id=\"state-%zu\">This run has no status.json: whether every case "
			       "ran is not known.</p>\n", idx);
	} else if (failed || intr || pend || json_is_true(json_object_get(h, "incomplete")) || !strcmp(state, "failed")) {
		strbuf_addf(o, "<div class=\"bad run-state\" id=\"state-%zu\"><p><strong class=\"failed\">", idx);
		strbuf_addstr(o, json_is_true(json_object_get(h, "incomplete")) ? "INCOMPLETE" : "FAILED");
		strbuf_addstr(o, "</strong>: run state <code>");
		esc_html(o, state);
		strbuf_addf(o, "</code>; of %lld cases %lld failed, %lld interrupted, %lld not run, %lld skipped.</p>"
			       "<ul class=\"not-ok\">", (long long)total, (long long)failed, (long long)intr, (long long)pend,
			    (long long)skip);
		json_array_foreach(json_object_get(h, "not_ok"), i, c)
			not_ok_item(o, NULL, str(c, "suite"), str(c, "case"), str(c, "status"), str(c, "error"));
		strbuf_addstr(o, "</ul></div>\n");
	} else if (skip) {
		strbuf_addf(o, "<details class=\"skipped run-state\" id=\"state-%zu\"><summary>%lld of %lld cases skipped"
			       "</summary><ul class=\"not-ok\">", idx, (long long)skip, (long long)total);
		json_array_foreach(json_object_get(h, "not_ok"), i, c)
			not_ok_item(o, NULL, str(c, "suite"), str(c, "case"), str(c, "status"), str(c, "error"));
		strbuf_addstr(o, "</ul></details>\n");
	}
	json_decref(h);
}

/* What the run stage found wrong with the stack (docs/findings.md), as summary.json signs it: one item per finding,
 * its rule id, its case and its one-line message with the numbers. */
static void run_findings(struct strbuf *o, const struct compare_side *side, size_t idx)
{
	json_t *f = json_object_get(side->summary, "findings"), *x;
	size_t i;

	if (!json_array_size(f))
		return;
	strbuf_addf(o, "<details open class=\"findings\" id=\"findings-%zu\"><summary>%zu %s (docs/findings.md)</summary>"
		       "<ul>", idx, json_array_size(f), json_array_size(f) == 1 ? "finding" : "findings");
	json_array_foreach(f, i, x) {
		strbuf_addstr(o, "<li><code class=\"finding-id\">");
		esc_html(o, str(x, "id"));
		strbuf_addstr(o, "</code> ");
		if (*str(x, "suite")) {
			esc_html(o, str(x, "suite"));
			strbuf_addstr(o, " <code>");
			esc_html(o, str(x, "case"));
			strbuf_addstr(o, "</code>: ");
		}
		esc_html(o, str(x, "message"));
		strbuf_addstr(o, "</li>");
	}
	strbuf_addstr(o, "</ul></details>\n");
}

/* Energy and cost per case and run (cost.h): the price and its source per run, then one row per measured case
 * with a figure. Nothing when no run has one. */
static void cost_table(struct strbuf *o, const struct compare_side *sides, size_t n)
{
	static const struct { const char *key, *head; } cols[] = {
		{ "usd_per_hour_per_pflops", "USD/h per effective PFLOP/s" }, { "usd_per_million_tokens", "USD per M tokens" },
		{ "joules", "J per timed call" }, { "tflop_per_joule", "TFLOP/J" }, { "gb_per_joule", "GB/J" },
	};
	struct strbuf rows = STRBUF_INIT;
	int priced = 0;
	const char *k;
	json_t *rec;

	for (size_t s = 0; s < n; s++) {
		priced |= sides[s].pricing != NULL;
		json_object_foreach(sides[s].records, k, rec) {
			json_t *f = cost_of_record(sides[s].pricing, rec, NAN);

			if (f && (json_object_size(f) > 1 || !json_object_get(f, "energy_why"))) {
				strbuf_addstr(&rows, "<tr><td>");
				esc_html(&rows, sides[s].label);
				strbuf_addstr(&rows, "</td><td>");
				esc_html(&rows, str(rec, "suite"));
				strbuf_addstr(&rows, "</td><td>");
				esc_html(&rows, str(rec, "case"));
				strbuf_addstr(&rows, "</td>");
				for (size_t c = 0; c < sizeof(cols) / sizeof(*cols); c++) {
					strbuf_addf(&rows, "<td class=\"num\" data-k=\"%s\">", cols[c].key);
					num(&rows, json_object_get(f, cols[c].key), "%.4g");
					strbuf_addstr(&rows, "</td>");
				}
				strbuf_addstr(&rows, "</tr>\n");
			}
			json_decref(f);
		}
	}
	if (!priced && !rows.len) {
		strbuf_release(&rows);
		return;
	}
	strbuf_addstr(o, "<h2 id=\"cost\">Energy and cost</h2>\n<p>");
	esc_html(o, COST_DEFINITION);
	strbuf_addstr(o, ".</p>\n<ul class=\"pricing\">");
	for (size_t s = 0; s < n; s++) {
		char *t = sides[s].pricing ? cost_pricing_text(sides[s].pricing) : NULL;

		strbuf_addstr(o, "<li>");
		esc_html(o, sides[s].label);
		strbuf_addstr(o, ": ");
		esc_html(o, t ? t : "no pricing in its manifest: no cost figures");
		strbuf_addstr(o, "</li>");
		free(t);
	}
	strbuf_addstr(o, "</ul>\n");
	if (rows.len) {
		strbuf_addstr(o, "<div class=\"scroll\"><table class=\"cost\"><tr><th>run</th><th>suite</th><th>case</th>");
		for (size_t c = 0; c < sizeof(cols) / sizeof(*cols); c++)
			strbuf_addf(o, "<th>%s</th>", cols[c].head);
		strbuf_addstr(o, "</tr>\n");
		strbuf_add(o, rows.buf, rows.len);
		strbuf_addstr(o, "</table></div>\n");
	}
	strbuf_release(&rows);
}

/* 1 when a run's target is a GPU (its plan's vendor is not cpu): only then is its memory HBM */
static int report_on_gpu(const struct compare_side *sides, size_t n)
{
	for (size_t s = 0; s < n; s++)
		if (*str(sides[s].plan, "vendor") && strcmp(str(sides[s].plan, "vendor"), "cpu"))
			return 1;
	return 0;
}

/* a run's stack and environment facts, folded away */
static void run_facts(struct strbuf *o, const struct compare_side *side)
{
	json_t *facts = compare_stack_facts(side), *v;
	const char *k;

	strbuf_addstr(o, "<details><summary>stack and environment</summary><div class=\"scroll\"><table class=\"facts\">");
	json_object_foreach(facts, k, v) {
		char *t = json_is_string(v) ? xstrdup(json_string_value(v)) : json_dumps(v, JSON_ENCODE_ANY);

		strbuf_addstr(o, "<tr><td>");
		esc_html(o, k);
		strbuf_addstr(o, "</td><td><code>");
		esc_html(o, t);
		strbuf_addstr(o, "</code></td></tr>");
		free(t);
	}
	strbuf_addstr(o, "</table></div></details>\n");
	json_decref(facts);
}

/* One run of the report: its signature, channel and source, health, findings, facts and how to reproduce it */
static void report_run(struct strbuf *o, const struct compare_side *side, size_t s)
{
	strbuf_addf(o, "<section class=\"run\" id=\"run-%zu\"><h3><span class=\"sw\" style=\"background:%s\"></span>", s, palette[s % 6]);
	esc_html(o, side->label);
	strbuf_addstr(o, "</h3>\n<p>");
	if (side->verified) {
		strbuf_addstr(o, "<span class=\"ok\">signature verified</span>, key <code>");
		esc_html(o, side->keyid);
		strbuf_addstr(o, "</code>");
	} else {
		strbuf_addstr(o, "<span class=\"slower\">UNVERIFIED</span>: a run directory or a bundle that did not verify; "
				 "nothing proves these numbers were not edited");
	}
	strbuf_addstr(o, "<br>channel ");
	esc_html(o, str(side->plan, "channel"));
	strbuf_addstr(o, ", source <code>");
	esc_html(o, side->path);
	strbuf_addstr(o, "</code></p>\n");
	run_health(o, side, s);
	run_findings(o, side, s);
	run_facts(o, side);
	strbuf_addstr(o, "<p>Reproduce: <code>");
	if (strstr(side->path, ".bench.tar.gz")) {
		strbuf_addstr(o, "bench verify ");
		esc_html(o, side->path);
		strbuf_addstr(o, " &amp;&amp; tar xzf ");
		esc_html(o, side->path);
		strbuf_addstr(o, " &amp;&amp; ");
	}
	strbuf_addstr(o, "bench run ");
	esc_html(o, side->label);
	strbuf_addstr(o, "/manifest.yaml</code></p></section>\n");
}

/* 1 when some run has a case of suite (that measured, with ok_only) */
static int suite_has(const struct compare_side *sides, size_t n, const char *suite, int ok_only)
{
	const char *k;
	json_t *v;

	for (size_t s = 0; s < n; s++)
		json_object_foreach(sides[s].records, k, v)
			if (!strcmp(str(v, "suite"), suite) && (!ok_only || !strcmp(str(v, "status"), "ok")))
				return 1;
	return 0;
}

/* the cases of a suite that did not measure, each with its reason: failures first, in red; skipped less prominent */
static void suite_not_ok(struct strbuf *o, const struct compare_side *sides, size_t n, const char *suite)
{
	struct strbuf items = STRBUF_INIT;
	const char *k;
	json_t *v;

	for (int pass = 0; pass < 2; pass++)
		for (size_t s = 0; s < n; s++)
			json_object_foreach(sides[s].records, k, v)
				if (!strcmp(str(v, "suite"), suite) && strcmp(str(v, "status"), "ok") && is_failure(str(v, "status")) == !pass)
					not_ok_item(&items, n > 1 ? sides[s].label : NULL, NULL, str(v, "case"), str(v, "status"),
						    compare_case_reason(v));
	if (items.len) {
		strbuf_addf(o, "<ul class=\"not-ok\" id=\"not-ok-%s\">", suite);
		strbuf_add(o, items.buf, items.len);
		strbuf_addstr(o, "</ul>\n");
	}
	strbuf_release(&items);
}

/* one group of an env_matrix (compare_env_cells()): a row per case, a column per cell */
static void env_cell_table(struct strbuf *o, json_t *g, const char *suite, size_t s, const char *label)
{
	json_t *row, *cell, *val;
	size_t r, j;

	strbuf_addf(o, "<div class=\"scroll\"><table class=\"cells\" id=\"cells-%s-%zu\"><caption>", suite, s);
	if (label) {
		esc_html(o, label);
		strbuf_addstr(o, ": ");
	}
	strbuf_addstr(o, "by env cell (");
	esc_html(o, str(g, "unit"));
	strbuf_addstr(o, ")</caption>\n<tr><th>case</th>");
	json_array_foreach(json_object_get(g, "cells"), j, cell) {
		strbuf_addstr(o, "<th><code>");
		esc_html(o, json_string_value(cell));
		strbuf_addstr(o, "</code></th>");
	}
	strbuf_addstr(o, "</tr>\n");
	json_array_foreach(json_object_get(g, "rows"), r, row) {
		strbuf_addstr(o, "<tr><td><code>");
		esc_html(o, str(row, "case"));
		strbuf_addstr(o, "</code></td>");
		json_array_foreach(json_object_get(row, "values"), j, val) {
			strbuf_addstr(o, "<td class=\"num\">");
			if (json_is_number(val))
				num(o, val, "%.4g");
			else
				strbuf_addstr(o, "&ndash;");
			strbuf_addstr(o, "</td>");
		}
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</table></div>\n");
}

/* an env_matrix: each run's cases of suite with their cells side by side */
static void suite_env_cells(struct strbuf *o, const struct compare_side *sides, size_t n, const char *suite)
{
	for (size_t s = 0; s < n; s++) {
		json_t *arr = json_array(), *groups, *g, *v;
		const char *k;
		size_t gi;

		json_object_foreach(sides[s].records, k, v)
			if (!strcmp(str(v, "suite"), suite))
				json_array_append(arr, v);
		groups = compare_env_cells(arr);
		json_array_foreach(groups, gi, g)
			env_cell_table(o, g, suite, s, n > 1 ? sides[s].label : NULL);
		json_decref(groups);
		json_decref(arr);
	}
}

/* the model FLOPs utilisation of each training case that reports one */
static void training_mfu(struct strbuf *o, const struct compare_side *sides, size_t n)
{
	const char *k;
	json_t *v;

	for (size_t s = 0; s < n; s++)
		json_object_foreach(sides[s].records, k, v)
			if (!strcmp(str(v, "suite"), "training") && json_is_number(json_object_get(json_object_get(v, "extra"), "mfu"))) {
				strbuf_addstr(o, "<p class=\"mfu\">");
				esc_html(o, sides[s].label);
				strbuf_addstr(o, " &middot; ");
				esc_html(o, str(v, "case"));
				strbuf_addf(o, ": MFU %.1f%%</p>\n", 100 * json_number_value(json_object_get(json_object_get(v, "extra"), "mfu")));
			}
}

/* One suite of the report: its case table, its chart (or why there is none), the collectives' tables and heat
 * maps, the cases that did not measure, env_matrix cells and training's MFU. */
static void report_suite(struct strbuf *o, const struct compare_side *sides, size_t n, const char *suite, const char *title)
{
	int coll = !strcmp(suite, "collectives"), measured = suite_has(sides, n, suite, 1);

	strbuf_addf(o, "<h2 id=\"suite-%s\">%s%s</h2>\n", suite, title,
		    !strcmp(suite, "membw") && report_on_gpu(sides, n) ? " (HBM)" : "");
	case_table(o, sides, n, suite);
	if (!measured)
		strbuf_addf(o, "<p class=\"bad\" id=\"none-%s\">No case of this suite measured a value: nothing to "
			       "chart. Why each one did not:</p>\n", suite);
	else if (coll)
		chart_coll(o, sides, n);
	else
		chart_bars(o, sides, n, suite);
	if (coll)
		coll_tables(o, sides, n);
	if (measured && coll)
		heatmap_pairs(o, sides, n);
	suite_not_ok(o, sides, n, suite);
	suite_env_cells(o, sides, n, suite);
	if (!strcmp(suite, "training"))
		training_mfu(o, sides, n);
}

void html_render_report(struct strbuf *o, const struct compare_side *sides, size_t n, json_t *cmp)
{
	static const char *suites[] = { "gemm", "membw", "collectives", "attention", "ssm", "training" };
	static const char *titles[] = { "GEMM", "Memory bandwidth", "Collectives", "Attention", "SSM (Mamba2 SSD)", "Training" };
	char *title = xstrfmt("bench report: %s%s", sides[0].label, n > 1 ? " and others" : "");

	html_page_open(o, title);
	free(title);
	strbuf_addstr(o, "<h1>bench report</h1>\n<h2>Runs</h2>\n");
	for (size_t s = 0; s < n; s++)
		report_run(o, &sides[s], s);
	for (size_t t = 0; t < sizeof(suites) / sizeof(*suites); t++)
		if (suite_has(sides, n, suites[t], 0))
			report_suite(o, sides, n, suites[t], titles[t]);
	cost_table(o, sides, n);
	if (cmp) {
		strbuf_addstr(o, "<h2>Comparison with the first run</h2>\n");
		compare_section(o, cmp, 3);
	}
	strbuf_addstr(o, "<h2>Reproduce this page</h2>\n<p><code>bench report -o DIR");
	for (size_t s = 0; s < n; s++) {
		strbuf_addch(o, ' ');
		esc_html(o, sides[s].path);
	}
	strbuf_addstr(o, "</code></p>\n</body></html>\n");
}

/* ---- the results site's index ------------------------------------------------------------------------- */

void html_render_index_group(struct strbuf *o, const char *name, const char *channel, const struct compare_side *sides,
			     size_t n, const char *base)
{
	const char *k;
	json_t *rec;

	strbuf_addstr(o, "<h2 class=\"group\">");
	esc_html(o, name);
	strbuf_addstr(o, " &middot; ");
	esc_html(o, channel);
	strbuf_addf(o, " <small>(%zu run%s)</small></h2>\n<ul class=\"runs\">", n, n == 1 ? "" : "s");
	for (size_t s = n; s-- > 0;) { /* newest first: run names end in their UTC start time */
		strbuf_addstr(o, "<li><a href=\"");
		esc_html(o, base);
		strbuf_addstr(o, "runs/");
		esc_html(o, sides[s].label);
		strbuf_addstr(o, ".html\">");
		esc_html(o, sides[s].label);
		strbuf_addstr(o, "</a> &mdash; ");
		if (sides[s].verified) {
			strbuf_addstr(o, "<span class=\"ok\">verified</span>, key <code>");
			esc_html(o, sides[s].keyid);
			strbuf_addstr(o, "</code>");
		} else {
			strbuf_addstr(o, "<span class=\"slower\">UNVERIFIED</span>");
		}
		{
			json_t *h = compare_run_health(sides[s].status), *cn = json_object_get(h, "counts");
			long long bad = (long long)(json_integer_value(json_object_get(cn, "failed")) +
						    json_integer_value(json_object_get(cn, "interrupted")) +
						    json_integer_value(json_object_get(cn, "pending")));

			if (bad || json_is_true(json_object_get(h, "incomplete")) || !strcmp(str(h, "state"), "failed"))
				strbuf_addf(o, " &mdash; <strong class=\"failed run-failed\">%s: %lld case%s did not measure</strong> "
					       "(see its page)", json_is_true(json_object_get(h, "incomplete")) ? "INCOMPLETE" : "FAILED",
					    bad, bad == 1 ? "" : "s");
			json_decref(h);
		}
		strbuf_addstr(o, "</li>");
	}
	strbuf_addstr(o, "</ul>\n");
	if (!n)
		return;
	strbuf_addstr(o, "<div class=\"scroll\"><table class=\"latest\"><thead><tr><th>suite</th><th>case</th><th>latest</th>"
			 "<th>recorded unit</th><th>trend (oldest to latest)</th></tr></thead><tbody>\n");
	json_object_foreach(sides[n - 1].records, k, rec) {
		double v[64], lo = 1e300, hi = -1e300;
		size_t m = 0, first = n > 64 ? n - 64 : 0;

		for (size_t s = first; s < n; s++) {
			json_t *r = json_object_get(sides[s].records, k);

			if (r && !strcmp(str(r, "status"), "ok")) {
				v[m] = json_number_value(json_object_get(r, "value"));
				lo = fmin(lo, v[m]);
				hi = fmax(hi, v[m]);
				m++;
			}
		}
		strbuf_addstr(o, "<tr><td>");
		esc_html(o, str(rec, "suite"));
		strbuf_addstr(o, "</td><td>");
		esc_html(o, str(rec, "case"));
		strbuf_addstr(o, "</td><td>");
		if (strcmp(str(rec, "status"), "ok")) { /* the latest run did not measure it: the status, not a value */
			strbuf_addf(o, "<span class=\"%s\" title=\"", is_failure(str(rec, "status")) ? "failed" : "skipped");
			esc_html(o, compare_case_reason(rec));
			strbuf_addstr(o, "\">");
			esc_html(o, str(rec, "status"));
			strbuf_addstr(o, "</span>");
		} else if (json_is_number(json_object_get(rec, "value"))) { /* re-prefixed as bench show prints it */
			char buf[64];

			units_format_scaled(buf, sizeof(buf), json_number_value(json_object_get(rec, "value")), str(rec, "unit"));
			esc_html(o, buf);
		}
		strbuf_addstr(o, "</td><td>");
		esc_html(o, str(rec, "unit"));
		strbuf_addf(o, "</td><td><svg class=\"trend\" viewBox=\"0 0 120 20\" width=\"120\" height=\"20\" role=\"img\" "
			       "aria-label=\"%zu runs\"><polyline fill=\"none\" stroke=\"#1f4e96\" stroke-width=\"1.5\" points=\"", m);
		for (size_t i = 0; i < m; i++)
			strbuf_addf(o, "%s%.1f,%.1f", i ? " " : "", m > 1 ? 4 + 112.0 * (double)i / (double)(m - 1) : 60,
				    hi > lo ? 17 - 14 * (v[i] - lo) / (hi - lo) : 10);
		strbuf_addstr(o, "\"/>");
		if (m)
			strbuf_addf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#1f4e96\"/>", m > 1 ? 116.0 : 60.0,
				    hi > lo ? 17 - 14 * (v[m - 1] - lo) / (hi - lo) : 10);
		strbuf_addstr(o, "</svg></td></tr>\n");
	}
	strbuf_addstr(o, "</tbody></table></div>\n");
}
