/* SPDX-License-Identifier: Apache-2.0 */
/* reproduce.c — bench reproduce's judgement of each case (reproduce.h; the rule in docs/architecture.md). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/escape.h"
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

/* The case's figure (record "value", > 0) in every run here where it is ok, in log space; returns how many. With idx,
 * idx[r] is run r's log figure or NAN (every run here). */
static size_t here_logs(double *out, double *idx, const struct compare_side *here, size_t nhere, const char *suite,
			const char *cs)
{
	char *key = xstrfmt("%s %s", suite, cs);
	size_t n = 0;

	for (size_t r = 0; r < nhere; r++) {
		json_t *rec = json_object_get(here[r].records, key);
		const char *st = json_string_value(json_object_get(rec, "status"));
		double v = json_number_value(json_object_get(rec, "value"));

		if (idx)
			idx[r] = NAN;
		if (st && !strcmp(st, "ok") && v > 0 && isfinite(v)) {
			out[n++] = log(v);
			if (idx)
				idx[r] = log(v);
		}
	}
	free(key);
	return n;
}

static int cmp_double(const void *x, const void *y)
{
	double p = *(const double *)x, q = *(const double *)y;

	return p < q ? -1 : p > q;
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
static void set_within(json_t *row, size_t counts[REPRODUCE_NVERDICTS], double lo, double hi, double max_band,
		       unsigned rounds)
{
	char *why;

	if (lo >= 1 / (1 + max_band) - 1e-12 && hi <= 1 + max_band + 1e-12) { /* a band of exactly 1 +/- Y is within */
		set_verdict(row, counts, REPRODUCE_REPRODUCED, NULL);
		return;
	}
	if (rounds && rounds != UINT_MAX)
		why = xstrfmt("band wider than 1 +/- %.0f%%: the runs here spread too much to tell; about %u rounds would "
			      "narrow it to that", 100 * max_band, rounds);
	else
		why = xstrfmt("band wider than 1 +/- %.0f%%: the runs here spread too much to tell", 100 * max_band);
	set_verdict(row, counts, REPRODUCE_INCONCLUSIVE, why);
	free(why);
}

void reproduce_bands(struct reproduce_band *out, const double *y, size_t ncases, size_t nruns, double alpha,
		     double max_band, uint64_t seed)
{
	double *eff = xcalloc(nruns + 1, sizeof(double)), *mean = xcalloc(ncases + 1, sizeof(double));
	double *own = xcalloc(ncases + 1, sizeof(double)), *dfo = xcalloc(ncases + 1, sizeof(double));
	double *t = xcalloc(ncases + 1, sizeof(double)), *a = xcalloc(ncases + 1, sizeof(double));
	size_t *cnt = xcalloc(nruns + 1, sizeof(size_t)), *n = xcalloc(ncases + 1, sizeof(size_t)), nr = 0, km = 0;
	double emean = 0, vrun = 0, d0, s02;
	unsigned draws;

	for (size_t c = 0; c < ncases; c++) {
		for (size_t r = 0; r < nruns; r++)
			if (!isnan(y[c * nruns + r]))
				mean[c] += y[c * nruns + r], n[c]++;
		mean[c] = n[c] ? mean[c] / (double)n[c] : NAN;
	}
	/* each run's effect: its cases' mean deviation (cases with one run here carry nothing) */
	for (size_t c = 0; c < ncases; c++)
		for (size_t r = 0; r < nruns && n[c] > 1; r++)
			if (!isnan(y[c * nruns + r]))
				eff[r] += y[c * nruns + r] - mean[c], cnt[r]++;
	for (size_t r = 0; r < nruns; r++)
		if (cnt[r])
			eff[r] /= (double)cnt[r], emean += eff[r], nr++;
	emean = nr ? emean / (double)nr : 0;
	for (size_t r = 0; r < nruns; r++)
		if (cnt[r])
			vrun += (eff[r] - emean) * (eff[r] - emean);
	vrun = nr > 1 ? vrun / (double)(nr - 1) : 0;
	/* each case's own spread: its deviations beyond its runs' effects, which are the means of km cases' deviations,
	 * its own among them: the sum of squares is (n - 1)(1 - 1/km) times its variance on average */
	for (size_t c = 0; c < ncases; c++)
		km += n[c] > 1;
	for (size_t c = 0; c < ncases; c++) {
		double ss = 0, em = 0;

		own[c] = NAN;
		if (n[c] < 2)
			continue;
		for (size_t r = 0; r < nruns; r++)
			if (!isnan(y[c * nruns + r]))
				em += eff[r] / (double)n[c];
		for (size_t r = 0; r < nruns; r++)
			if (!isnan(y[c * nruns + r])) {
				double e = y[c * nruns + r] - mean[c] - (eff[r] - em);

				ss += e * e;
			}
		dfo[c] = (double)(n[c] - 1);
		own[c] = km > 1 ? ss / (dfo[c] * (1 - 1 / (double)km)) : ss / dfo[c];
	}
	stats_squeeze_var(&d0, &s02, own, dfo, ncases);
	for (size_t c = 0; c < ncases; c++) {
		double v;

		out[c] = (struct reproduce_band){ NAN, NAN, sqrt(vrun), nr > 1 ? (double)(nr - 1) : NAN, 0 };
		t[c] = NAN;
		if (n[c] < 2 || nr < 2)
			continue;
		if (d0 > 0)
			own[c] = d0 >= STATS_D0_MAX ? s02 : (d0 * s02 + dfo[c] * own[c]) / (d0 + dfo[c]);
		v = vrun + own[c];
		out[c].sd = sqrt(v);
		a[c] = v > 0 ? sqrt(vrun / v) : 1;
		dfo[c] = d0 > 0 ? fmin(STATS_D0_MAX, d0 + dfo[c]) : fmax(1, dfo[c]);
		t[c] = 0; /* judged */
	}
	/* The least p over the cases, drawn as the statistics are made: the original's deviation from the mean here over
	 * sqrt(run effect's variance + the case's own) * sqrt(1 + 1/n), the run effect's numerator and its variance
	 * estimate (nr - 1 degrees of freedom) shared by the cases, the own parts each case's. The run effect's true
	 * variance is not known, only estimated on nr - 1 degrees of freedom: each draw takes it from that estimate's
	 * uncertainty (var_run / chi2(nr - 1) * (nr - 1)), so that a suite whose 3 rounds happened to agree is not judged
	 * as if its machine were known to be quiet. Each case's p on the Student's t scale of its two parts. */
	draws = (unsigned)ceil(20 / alpha);
	if (draws < 2000)
		draws = 2000;
	if (nr > 1) {
		double *mn = xcalloc(draws, sizeof(double)), dfg = (double)(nr - 1), kq, pc;
		uint64_t st = seed;

		for (unsigned d = 0; d < draws; d++) {
			double q = 1, su2 = vrun / stats_chisq_mean(dfg, &st), z = stats_normal(&st), vg = stats_chisq_mean(dfg, &st);

			for (size_t c = 0; c < ncases; c++) {
				double a2, num, var;

				if (isnan(t[c]))
					continue;
				a2 = su2 + own[c] > 0 ? su2 / (su2 + own[c]) : 1;
				num = sqrt(a2) * z + sqrt(1 - a2) * stats_normal(&st);
				var = a2 * vg + (1 - a2) * stats_chisq_mean(dfo[c], &st);
				q = fmin(q, stats_t_two_sided_p(num / sqrt(var), stats_df_effective(a[c], dfg, dfo[c])));
			}
			mn[d] = q;
		}
		qsort(mn, draws, sizeof(double), cmp_double);
		kq = ceil(alpha * ((double)draws + 1)) - 2;
		pc = mn[kq < 0 ? 0 : kq > (double)draws - 1 ? draws - 1 : (size_t)kq];
		for (size_t c = 0; c < ncases; c++) {
			double cq;

			if (isnan(t[c]))
				continue;
			cq = pc > 0 && pc < 1 ? stats_t_quantile_two_sided(pc, stats_df_effective(a[c], dfg, dfo[c])) : INFINITY;
			out[c].tol = cq * out[c].sd * sqrt(1 + 1 / (double)n[c]);
			if (!(out[c].tol > log1p(max_band)) || !isfinite(cq))
				continue;
			/* the rounds that would do: the same critical p at more rounds' degrees of freedom */
			out[c].rounds = UINT_MAX;
			for (unsigned k = (unsigned)n[c] + 1; k <= 1000; k++)
				if (stats_t_quantile_two_sided(pc, stats_df_effective(a[c], (double)(k - 1), dfo[c] + k - n[c])) *
					    out[c].sd * sqrt(1 + 1 / (double)k) <= log1p(max_band)) {
					out[c].rounds = k;
					break;
				}
		}
		free(mn);
	}
	free(eff);
	free(mean);
	free(own);
	free(dfo);
	free(t);
	free(a);
	free(cnt);
	free(n);
}

json_t *reproduce_judge(size_t counts[REPRODUCE_NVERDICTS], json_t *cmp, const struct compare_side *here, size_t nhere,
			double threshold, double max_band)
{
	json_t *out = json_array(), *row, *cases = json_object_get(cmp, "cases");
	json_t *suites = json_object(); /* suite -> [row indices judged by their spread here] */
	size_t ncases = json_array_size(cases), i;
	double *logs = xcalloc(nhere + 1, sizeof(double));
	struct reproduce_band *band = xcalloc(ncases + 1, sizeof(*band));
	const char *sname;
	json_t *idx;

	if (max_band < threshold) /* the band is never narrower than the threshold: a lower limit would tell nothing */
		max_band = threshold;

	/* the cases judged by their spread here, per suite: a suite's cases share the machine state of each run */
	json_array_foreach(cases, i, row) {
		json_t *o = json_array_get(json_object_get(row, "others"), 0);
		const char *v = json_string_value(json_object_get(o, "verdict"));
		const char *suite = json_string_value(json_object_get(row, "suite"));

		band[i].tol = NAN;
		if ((v && !strcmp(v, "missing")) || !(json_number_value(json_object_get(json_object_get(row, "baseline"), "value")) > 0) ||
		    here_logs(logs, NULL, here, nhere, suite, json_string_value(json_object_get(row, "case"))) < 2)
			continue;
		if (!json_object_get(suites, suite ? suite : ""))
			json_object_set_new(suites, suite ? suite : "", json_array());
		json_array_append_new(json_object_get(suites, suite ? suite : ""), json_integer((json_int_t)i));
	}
	/* each suite's bands, the family's error rate shared among the suites (Bonferroni) */
	json_object_foreach(suites, sname, idx) {
		size_t m = json_array_size(idx), k;
		double *y = xcalloc(m * nhere + 1, sizeof(double));
		struct reproduce_band *bs = xcalloc(m + 1, sizeof(*bs));
		json_t *e;

		json_array_foreach(idx, k, e) {
			json_t *r = json_array_get(cases, (size_t)json_integer_value(e));

			here_logs(logs, y + k * nhere, here, nhere, sname, json_string_value(json_object_get(r, "case")));
		}
		reproduce_bands(bs, y, m, nhere, REPRODUCE_ALPHA / (double)json_object_size(suites), max_band,
				stats_seed_from_key(sname));
		json_array_foreach(idx, k, e)
			band[json_integer_value(e)] = bs[k];
		free(y);
		free(bs);
	}
	json_array_foreach(json_object_get(cmp, "cases"), i, row) {
		json_t *b = json_object_get(row, "baseline"), *o = json_array_get(json_object_get(row, "others"), 0);
		json_t *ci = json_object_get(o, "ci95"), *res;
		const char *suite = json_string_value(json_object_get(row, "suite")), *cs = json_string_value(json_object_get(row, "case"));
		const char *v = json_string_value(json_object_get(o, "verdict"));
		double orig = json_number_value(json_object_get(b, "value"));
		size_t n = here_logs(logs, NULL, here, nhere, suite, cs);

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
		} else if (n >= 2 && orig > 0 && !isnan(band[i].tol)) {
			/* this machine's run-to-run spread: where one more run falls, around the runs here */
			double m, sd, tol = band[i].tol, d, lo, hi;
			enum reproduce_verdict vd;

			mean_sd(&m, &sd, logs, n);
			json_object_set_new(res, "suite_noise_cv", json_real(sqrt(expm1(band[i].sd_run * band[i].sd_run))));
			json_object_set_new(res, "run_df", json_real(band[i].df_run));
			if (tol < log1p(threshold))
				tol = log1p(threshold);
			d = m - log(orig); /* > 0: faster here */
			lo = exp(-tol);
			hi = exp(fmin(tol, 700));
			json_object_set_new(res, "here", json_real(exp(m))); /* the runs' geometric mean */
			json_object_set_new(res, "ratio", json_real(exp(d)));
			json_object_set_new(res, "band", json_pack("[f, f]", lo, hi));
			json_object_set_new(res, "noise_cv", json_real(sqrt(expm1(sd * sd))));
			if (band[i].rounds)
				json_object_set_new(res, "rounds_needed", band[i].rounds == UINT_MAX ? json_null()
										: json_integer(band[i].rounds));
			vd = d < -tol ? REPRODUCE_SLOWER : d > tol ? REPRODUCE_FASTER : REPRODUCE_REPRODUCED;
			if (vd == REPRODUCE_REPRODUCED)
				set_within(res, counts, lo, hi, max_band, band[i].rounds);
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
				set_within(res, counts, clo, chi, max_band, 0);
		} else {
			const char *why = json_string_value(json_object_get(o, "why"));

			set_verdict(res, counts, REPRODUCE_NOT_COMPARABLE, why ? why : "no confidence interval");
		}
		json_array_append_new(out, res);
	}
	free(logs);
	free(band);
	json_decref(suites);
	return out;
}
