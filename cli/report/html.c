#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void esc(struct strbuf *o, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&':
			strbuf_addstr(o, "&amp;");
			break;
		case '<':
			strbuf_addstr(o, "&lt;");
			break;
		case '>':
			strbuf_addstr(o, "&gt;");
			break;
		case '"':
			strbuf_addstr(o, "&quot;");
			break;
		case '\'':
			strbuf_addstr(o, "&#39;");
			break;
		default:
			strbuf_addch(o, *s);
		}
}

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

/* x position (0..w) of a ratio on the whisker's axis, lo..hi */
static double at(double r, double lo, double hi, double w)
{
	double x = (r - lo) / (hi - lo) * w;

	return x < 0 ? 0 : x > w ? w : x;
}

/* The ratio and its CI on a common axis, with the band 1 +/- threshold shaded: a verdict one can see. */
static void whisker(struct strbuf *o, json_t *row, double thr, double lo_ax, double hi_ax)
{
	const double w = 160, h = 18;
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
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:72rem;padding:1rem;color:#111}"
	"h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}"
	".scroll{overflow-x:auto}table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
	"th,td{padding:.25rem .5rem;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
	"th:nth-child(-n+2),td:nth-child(-n+2),td:nth-child(5){text-align:left}"
	".faster{color:#05620f;font-weight:600}.slower{color:#a50e0e;font-weight:600}.nc{color:#666}"
	".warn{background:#fff4d6;border-left:4px solid #d99a00;padding:.5rem .75rem}"
	".bad{background:#fde8e8;border-left:4px solid #a50e0e;padding:.5rem .75rem}"
	".ok{color:#05620f}.band{fill:#e3e8f0}.one{stroke:#888;stroke-width:1}.ci{stroke:#1f4e96;stroke-width:2}"
	".pt{fill:#1f4e96}code{font-size:.9em;word-break:break-all}"
	"@media print{body{max-width:none;font-size:10pt}.scroll{overflow:visible}a{color:inherit}}";

void html_render_compare(struct strbuf *o, json_t *r)
{
	json_t *c, *x, *sides = json_object_get(r, "sides");
	size_t i, k;
	double thr = json_number_value(json_object_get(r, "threshold")), lo_ax = 1, hi_ax = 1;

	/* one axis for every whisker, so lengths compare across rows: the widest CI, with the band */
	json_array_foreach(json_object_get(r, "cases"), i, c)
		json_array_foreach(json_object_get(c, "others"), k, x) {
			json_t *ci = json_object_get(x, "ci95");

			if (json_is_array(ci)) {
				lo_ax = fmin(lo_ax, json_number_value(json_array_get(ci, 0)));
				hi_ax = fmax(hi_ax, json_number_value(json_array_get(ci, 1)));
			}
		}
	lo_ax = fmin(lo_ax, 1 - 2 * thr) - 0.01;
	hi_ax = fmax(hi_ax, 1 + 2 * thr) + 0.01;

	strbuf_addstr(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			 "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>bench compare: ");
	esc(o, str(r, "baseline"));
	strbuf_addf(o, "</title><style>%s</style></head><body>\n<h1>bench compare &mdash; baseline ", style);
	esc(o, str(r, "baseline"));
	strbuf_addstr(o, "</h1>\n<p>Verdicts: ");
	esc(o, str(r, "rule"));
	strbuf_addf(o, " (threshold %.3g%%, alpha %g, %lld bootstrap resamples, fixed seed).</p>\n", 100 * thr,
		    json_number_value(json_object_get(r, "alpha")), (long long)json_integer_value(json_object_get(r, "resamples")));

	strbuf_addstr(o, "<h2>Inputs</h2>\n<ul id=\"sides\">");
	json_array_foreach(sides, i, x) {
		strbuf_addstr(o, "<li>");
		esc(o, str(x, "label"));
		strbuf_addstr(o, json_is_true(json_object_get(x, "baseline")) ? " (baseline)" : "");
		if (json_is_true(json_object_get(x, "verified"))) {
			strbuf_addstr(o, " &mdash; <span class=\"ok\">signature verified</span>, key <code>");
			esc(o, str(x, "keyid"));
			strbuf_addstr(o, "</code>");
		} else {
			strbuf_addstr(o, " &mdash; <span class=\"slower\">UNVERIFIED</span> (a run directory or a bundle that did not verify)");
		}
		strbuf_addstr(o, "<br><code>");
		esc(o, str(x, "path"));
		strbuf_addstr(o, "</code></li>");
	}
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

	strbuf_addstr(o, "<h2>Cases</h2>\n<div class=\"scroll\"><table id=\"cases\"><thead><tr><th>suite</th><th>case</th>"
			 "<th>ratio</th><th>interval</th><th>verdict</th><th>95% CI</th><th>p</th><th>baseline</th>"
			 "<th>other</th><th>value</th><th>unit</th></tr></thead><tbody>\n");
	json_array_foreach(json_object_get(r, "cases"), i, c)
		json_array_foreach(json_object_get(c, "others"), k, x) {
			const char *v = str(x, "verdict");
			json_t *ci = json_object_get(x, "ci95");

			strbuf_addstr(o, "<tr><td>");
			esc(o, str(c, "suite"));
			strbuf_addstr(o, "</td><td class=\"case\">");
			esc(o, str(c, "case"));
			strbuf_addstr(o, "</td><td>");
			num(o, json_object_get(x, "ratio"), "%.3f");
			strbuf_addstr(o, "</td><td>");
			whisker(o, x, thr, lo_ax, hi_ax);
			strbuf_addf(o, "</td><td class=\"%s\">", !strcmp(v, "faster") ? "faster" : !strcmp(v, "slower") ? "slower" : !strcmp(v, "same") ? "same" : "nc");
			esc(o, v);
			if (*str(x, "why")) {
				strbuf_addstr(o, " <small>(");
				esc(o, str(x, "why"));
				strbuf_addstr(o, ")</small>");
			}
			strbuf_addstr(o, "</td><td>");
			if (json_is_array(ci))
				strbuf_addf(o, "[%.3f, %.3f]", json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)));
			else
				strbuf_addstr(o, "&ndash;");
			strbuf_addstr(o, "</td><td>");
			num(o, json_object_get(x, "p"), "%.2g");
			strbuf_addstr(o, "</td><td>");
			num(o, json_object_get(json_object_get(c, "baseline"), "value"), "%.4g");
			strbuf_addstr(o, "</td><td>");
			esc(o, str(x, "label"));
			strbuf_addstr(o, "</td><td>");
			num(o, json_object_get(x, "value"), "%.4g");
			strbuf_addstr(o, "</td><td>");
			esc(o, str(c, "unit"));
			strbuf_addstr(o, "</td></tr>\n");
		}
	strbuf_addstr(o, "</tbody></table></div>\n");

	if (json_array_size(json_object_get(r, "only_in_one"))) {
		strbuf_addstr(o, "<h2>Cases on one side only</h2>\n<ul id=\"only\">");
		json_array_foreach(json_object_get(r, "only_in_one"), i, x) {
			strbuf_addstr(o, "<li><code>");
			esc(o, str(x, "case"));
			strbuf_addstr(o, "</code> only in ");
			esc(o, str(x, "only_in"));
			strbuf_addstr(o, "</li>");
		}
		strbuf_addstr(o, "</ul>\n");
	}
	if (json_array_size(json_object_get(r, "stack_differs"))) {
		strbuf_addstr(o, "<h2>Stack and environment differences</h2>\n<div class=\"scroll\"><table id=\"stack\"><thead><tr>"
				 "<th>what</th><th>side</th><th>baseline</th><th>value</th></tr></thead><tbody>\n");
		json_array_foreach(json_object_get(r, "stack_differs"), i, x) {
			char *a = json_dumps(json_object_get(x, "baseline"), JSON_ENCODE_ANY);
			char *b = json_dumps(json_object_get(x, "value"), JSON_ENCODE_ANY);

			strbuf_addstr(o, "<tr><td>");
			esc(o, str(x, "what"));
			strbuf_addstr(o, "</td><td>");
			esc(o, str(x, "label"));
			strbuf_addstr(o, "</td><td><code>");
			esc(o, a);
			strbuf_addstr(o, "</code></td><td><code>");
			esc(o, b);
			strbuf_addstr(o, "</code></td></tr>\n");
			free(a);
			free(b);
		}
		strbuf_addstr(o, "</tbody></table></div>\n");
	}
	strbuf_addstr(o, "<h2>Reproduce</h2>\n<p><code>bench compare --format html");
	json_array_foreach(sides, i, x) {
		strbuf_addch(o, ' ');
		esc(o, str(x, "path"));
	}
	strbuf_addstr(o, "</code></p>\n</body></html>\n");
}
