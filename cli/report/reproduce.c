/* SPDX-License-Identifier: Apache-2.0 */
/* reproduce.c — bench reproduce's judgement of each case (reproduce.h; the rule in docs/architecture.md). */
#include <math.h>
#include <string.h>

#include "../core/strbuf.h"
#include "escape.h"
#include "reproduce.h"
#include "stats.h"

#define REPRODUCE_ALPHA 0.01 /* the family's error rate over the cases judged by their spread */

static const char *const verdict_names[REPRODUCE_NVERDICTS] = { "reproduced", "faster", "slower", "not comparable",
								 "not reproducible here", "inconclusive" };

json_t *reproduce_gpu_facts(json_t *env)
{
	json_t *g = json_object_get(env, "gpus"), *g0 = json_array_get(g, 0);
	json_t *name = json_object_get(g0, "name"), *drv = json_object_get(g0, "driver");

	return json_pack("{s:O, s:I, s:O}", "gpu model", json_is_string(name) ? name : json_null(), "gpu count",
			 (json_int_t)json_array_size(g), "driver", json_is_string(drv) ? drv : json_null());
}

char *reproduce_fact_text(json_t *v)
{
	char *s, *e;

	if (!v || json_is_null(v))
		return xstrdup("none");
	if (json_is_string(v))
		return esc_text(json_string_value(v));
	s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	e = esc_text(s ? s : "?");
	free(s);
	return e;
}

json_t *reproduce_facts_differ(json_t *a, json_t *b)
{
	json_t *out = json_array(), *v;
	const char *k;

	json_object_foreach(a, k, v) {
		json_t *w = json_object_get(b, k);

		if (!w || !json_equal(v, w))
			json_array_append_new(out, json_pack("{s:s, s:O, s:O}", "what", k, "original", v, "here", w ? w : json_null()));
	}
	json_object_foreach(b, k, v)
		if (!json_object_get(a, k))
			json_array_append_new(out, json_pack("{s:s, s:n, s:O}", "what", k, "original", "here", v));
	return out;
}

char *reproduce_differ_text(json_t *differ)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *d;

	json_array_foreach(differ, i, d) {
		char *a = reproduce_fact_text(json_object_get(d, "original")), *b = reproduce_fact_text(json_object_get(d, "here"));

		strbuf_addf(&sb, "%s%s: %s vs %s", i ? "; " : "", json_string_value(json_object_get(d, "what")), a, b);
		free(a);
		free(b);
	}
	return strbuf_detach(&sb);
}

/* The case's figure (record "value", > 0) in every run here where it is ok, in log space; returns how many. */
static size_t here_logs(double *out, const struct compare_side *here, size_t nhere, const char *suite, const char *cs)
{
	char *key = xstrfmt("%s %s", suite, cs);
	size_t n = 0;

	for (size_t r = 0; r < nhere; r++) {
		json_t *rec = json_object_get(here[r].records, key);
		const char *st = json_string_value(json_object_get(rec, "status"));
		double v = json_number_value(json_object_get(rec, "value"));

		if (st && !strcmp(st, "ok") && v > 0 && isfinite(v))
			out[n++] = log(v);
	}
	free(key);
	return n;
}

static void mean_sd(double *mean, double *sd, const double *x, size_t n)
{
	double var;

	stats_mean_var(mean, &var, x, n);
	*sd = n > 1 ? sqrt(var) : 0;
}

static void set_verdict(json_t *row, size_t counts[REPRODUCE_NVERDICTS], enum reproduce_verdict v, const char *why)
{
	json_object_set_new(row, "verdict", json_string(verdict_names[v]));
	if (why)
		json_object_set_new(row, "why", json_string(why));
	counts[v]++;
}

/* reproduced only where the band (or CI) [lo, hi] lies within [1 / (1 + max_band), 1 + max_band]; else nothing can
 * be told */
static void set_within(json_t *row, size_t counts[REPRODUCE_NVERDICTS], double lo, double hi, double max_band)
{
	char *why;

	if (lo >= 1 / (1 + max_band) - 1e-12 && hi <= 1 + max_band + 1e-12) { /* a band of exactly 1 +/- Y is within */
		set_verdict(row, counts, REPRODUCE_REPRODUCED, NULL);
		return;
	}
	why = xstrfmt("band wider than 1 +/- %.0f%%: the runs here spread too much to tell", 100 * max_band);
	set_verdict(row, counts, REPRODUCE_INCONCLUSIVE, why);
	free(why);
}

json_t *reproduce_judge(size_t counts[REPRODUCE_NVERDICTS], json_t *cmp, const struct compare_side *here, size_t nhere,
			double threshold, double max_band)
{
	json_t *out = json_array(), *row;
	json_t *pooled = json_object(); /* suite -> [sum of (n - 1) s^2, sum of (n - 1)] */
	double *logs = xcalloc(nhere + 1, sizeof(double));
	size_t i, nspread = 0;

	if (max_band < threshold) /* the band is never narrower than the threshold: a lower limit would tell nothing */
		max_band = threshold;

	/* the cases judged by their spread here, for Bonferroni's share of the error rate, and each suite's pooled
	 * run-to-run variance (the machine's noise is shared by a suite's cases: one case's runs that happen to agree
	 * do not make its band narrower than its suite's) */
	json_array_foreach(json_object_get(cmp, "cases"), i, row) {
		json_t *o = json_array_get(json_object_get(row, "others"), 0);
		const char *v = json_string_value(json_object_get(o, "verdict"));
		const char *suite = json_string_value(json_object_get(row, "suite"));
		size_t n;

		if ((v && !strcmp(v, "missing")) || !(json_number_value(json_object_get(json_object_get(row, "baseline"), "value")) > 0) ||
		    (n = here_logs(logs, here, nhere, suite, json_string_value(json_object_get(row, "case")))) < 2)
			continue;
		nspread++;
		{
			json_t *pv = json_object_get(pooled, suite ? suite : "");
			double m, sd;

			mean_sd(&m, &sd, logs, n);
			if (!pv)
				json_object_set_new(pooled, suite ? suite : "", pv = json_pack("[f, f]", 0.0, 0.0));
			json_array_set_new(pv, 0, json_real(json_number_value(json_array_get(pv, 0)) + (double)(n - 1) * sd * sd));
			json_array_set_new(pv, 1, json_real(json_number_value(json_array_get(pv, 1)) + (double)(n - 1)));
		}
	}
	json_array_foreach(json_object_get(cmp, "cases"), i, row) {
		json_t *b = json_object_get(row, "baseline"), *o = json_array_get(json_object_get(row, "others"), 0);
		json_t *ci = json_object_get(o, "ci95"), *res;
		const char *suite = json_string_value(json_object_get(row, "suite")), *cs = json_string_value(json_object_get(row, "case"));
		const char *v = json_string_value(json_object_get(o, "verdict"));
		double orig = json_number_value(json_object_get(b, "value"));
		size_t n = here_logs(logs, here, nhere, suite, cs);

		res = json_pack("{s:O, s:O, s:O?, s:O, s:O, s:f, s:I}", "suite", json_object_get(row, "suite"), "case",
				json_object_get(row, "case"), "unit", json_object_get(row, "unit"), "original",
				json_object_get(b, "value") ? json_object_get(b, "value") : json_null(), "here",
				json_object_get(o, "value") ? json_object_get(o, "value") : json_null(), "threshold", threshold,
				"runs", (json_int_t)n);
		if (json_is_number(json_object_get(o, "ratio")))
			json_object_set(res, "ratio", json_object_get(o, "ratio"));
		if (v && !strcmp(v, "missing")) {
			set_verdict(res, counts, REPRODUCE_NOT_COMPARABLE, "not measured here");
		} else if (v && !strcmp(v, "not comparable") && !(orig > 0) && !n) {
			const char *st = json_string_value(json_object_get(b, "status"));
			const char *err = json_string_value(json_object_get(b, "error"));
			char *why = xstrfmt("%s in the original and not measured here: %s", st ? st : "not measured",
					    err ? err : "no reason recorded");

			set_verdict(res, counts, REPRODUCE_NOT_COMPARABLE, why);
			free(why);
		} else if (v && !strcmp(v, "not comparable") && (!(orig > 0) || n < 2)) {
			const char *why = json_string_value(json_object_get(o, "why"));

			set_verdict(res, counts, REPRODUCE_NOT_COMPARABLE, why ? why : "no figure");
		} else if (n >= 2 && orig > 0) {
			/* this machine's run-to-run spread: a prediction interval for one more run, around the runs here */
			double m, sd, tol, d, lo, hi;
			enum reproduce_verdict vd;

			json_t *pv = json_object_get(pooled, suite ? suite : "");
			double ss = json_number_value(json_array_get(pv, 0)), df = json_number_value(json_array_get(pv, 1));
			double a = REPRODUCE_ALPHA / (double)nspread, s_suite = df > 0 ? sqrt(ss / df) : 0;

			mean_sd(&m, &sd, logs, n);
			/* the suite's pooled spread and its degrees of freedom; a case that spreads more than its suite, its own */
			tol = stats_t_quantile_two_sided(a, df) * (sd > s_suite ? sd : s_suite) * sqrt(1 + 1.0 / (double)n);
			json_object_set_new(res, "suite_noise_cv", json_real(df > 0 ? sqrt(expm1(ss / df)) : 0));
			if (tol < log1p(threshold))
				tol = log1p(threshold);
			d = m - log(orig); /* > 0: faster here */
			lo = exp(-tol);
			hi = exp(tol);
			json_object_set_new(res, "here", json_real(exp(m))); /* the runs' geometric mean */
			json_object_set_new(res, "ratio", json_real(exp(d)));
			json_object_set_new(res, "band", json_pack("[f, f]", lo, hi));
			json_object_set_new(res, "noise_cv", json_real(sqrt(expm1(sd * sd))));
			vd = d < -tol ? REPRODUCE_SLOWER : d > tol ? REPRODUCE_FASTER : REPRODUCE_REPRODUCED;
			if (vd == REPRODUCE_REPRODUCED)
				set_within(res, counts, lo, hi, max_band);
			else
				set_verdict(res, counts, vd, NULL);
		} else if (json_array_size(ci) == 2) {
			double clo = json_number_value(json_array_get(ci, 0)), chi = json_number_value(json_array_get(ci, 1));

			json_object_set(res, "ci95", ci);
			if (chi < 1 - threshold)
				set_verdict(res, counts, REPRODUCE_SLOWER, NULL);
			else if (clo > 1 + threshold)
				set_verdict(res, counts, REPRODUCE_FASTER, NULL);
			else
				set_within(res, counts, clo, chi, max_band);
		} else {
			const char *why = json_string_value(json_object_get(o, "why"));

			set_verdict(res, counts, REPRODUCE_NOT_COMPARABLE, why ? why : "no confidence interval");
		}
		json_array_append_new(out, res);
	}
	free(logs);
	json_decref(pooled);
	return out;
}
