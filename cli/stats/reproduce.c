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

/* reproduce_bands()'s working state: the logs y[c * nruns + r]; per case its mean log over its runs here (n of
 * them), its own variance and that variance's degrees of freedom, the share of its variance the run effect holds,
 * and t (NAN: not judged); per run its effect (over cnt cases); nr runs with an effect, their effects' variance */
struct bands {
	const double *y;
	size_t ncases, nruns;
	double *eff, *mean, *own, *dfo, *t, *a;
	size_t *cnt, *n, nr;
	double vrun;
};

/* each case's mean, and each run's effect: its cases' mean deviation (cases with one run here carry nothing) */
static void bands_run_effects(struct bands *b)
{
	const double *y = b->y;
	size_t nruns = b->nruns;
	double emean = 0;

	for (size_t c = 0; c < b->ncases; c++) {
		for (size_t r = 0; r < nruns; r++)
			if (!isnan(y[c * nruns + r]))
				b->mean[c] += y[c * nruns + r], b->n[c]++;
		b->mean[c] = b->n[c] ? b->mean[c] / (double)b->n[c] : NAN;
	}
	for (size_t c = 0; c < b->ncases; c++)
		for (size_t r = 0; r < nruns && b->n[c] > 1; r++)
			if (!isnan(y[c * nruns + r]))
				b->eff[r] += y[c * nruns + r] - b->mean[c], b->cnt[r]++;
	for (size_t r = 0; r < nruns; r++)
		if (b->cnt[r])
			b->eff[r] /= (double)b->cnt[r], emean += b->eff[r], b->nr++;
	emean = b->nr ? emean / (double)b->nr : 0;
	for (size_t r = 0; r < nruns; r++)
		if (b->cnt[r])
			b->vrun += (b->eff[r] - emean) * (b->eff[r] - emean);
	b->vrun = b->nr > 1 ? b->vrun / (double)(b->nr - 1) : 0;
}

/* each case's own spread: its deviations beyond its runs' effects, which are the means of km cases' deviations,
 * its own among them: the sum of squares is (n - 1)(1 - 1/km) times its variance on average */
static void bands_own(struct bands *b)
{
	const double *y = b->y;
	size_t nruns = b->nruns, km = 0;

	for (size_t c = 0; c < b->ncases; c++)
		km += b->n[c] > 1;
	for (size_t c = 0; c < b->ncases; c++) {
		double ss = 0, em = 0;

		b->own[c] = NAN;
		if (b->n[c] < 2)
			continue;
		for (size_t r = 0; r < nruns; r++)
			if (!isnan(y[c * nruns + r]))
				em += b->eff[r] / (double)b->n[c];
		for (size_t r = 0; r < nruns; r++)
			if (!isnan(y[c * nruns + r])) {
				double e = y[c * nruns + r] - b->mean[c] - (b->eff[r] - em);

				ss += e * e;
			}
		b->dfo[c] = (double)(b->n[c] - 1);
		b->own[c] = km > 1 ? ss / (b->dfo[c] * (1 - 1 / (double)km)) : ss / b->dfo[c];
	}
}

/* the own variances moderated over the cases (stats_squeeze_var); each judged case's sd, run-effect share and
 * degrees of freedom */
static void bands_moderate(struct bands *b, struct reproduce_band *out)
{
	double d0, s02;

	stats_squeeze_var(&d0, &s02, b->own, b->dfo, b->ncases);
	for (size_t c = 0; c < b->ncases; c++) {
		double v;

		out[c] = (struct reproduce_band){ NAN, NAN, sqrt(b->vrun), b->nr > 1 ? (double)(b->nr - 1) : NAN, 0 };
		b->t[c] = NAN;
		if (b->n[c] < 2 || b->nr < 2)
			continue;
		if (d0 > 0)
			b->own[c] = d0 >= STATS_D0_MAX ? s02 : (d0 * s02 + b->dfo[c] * b->own[c]) / (d0 + b->dfo[c]);
		v = b->vrun + b->own[c];
		out[c].sd = sqrt(v);
		b->a[c] = v > 0 ? sqrt(b->vrun / v) : 1;
		b->dfo[c] = d0 > 0 ? fmin(STATS_D0_MAX, d0 + b->dfo[c]) : fmax(1, b->dfo[c]);
		b->t[c] = 0; /* judged */
	}
}

/* The least p over the cases, drawn as the statistics are made: the original's deviation from the mean here over
 * sqrt(run effect's variance + the case's own) * sqrt(1 + 1/n), the run effect's numerator and its variance
 * estimate (nr - 1 degrees of freedom) shared by the cases, the own parts each case's. The run effect's true
 * variance is not known, only estimated on nr - 1 degrees of freedom: each draw takes it from that estimate's
 * uncertainty (var_run / chi2(nr - 1) * (nr - 1)), so that a suite whose 3 rounds happened to agree is not judged
 * as if its machine were known to be quiet. Each case's p on the Student's t scale of its two parts. Returns its
 * alpha quantile: the critical p. */
static double bands_critical_p(const struct bands *b, double alpha, uint64_t seed)
{
	unsigned draws = (unsigned)ceil(20 / alpha);
	double dfg = (double)(b->nr - 1), pc;
	uint64_t st = seed;
	struct stats_tgrid grid = STATS_TGRID_INIT;
	struct stats_pmin pm = STATS_PMIN_INIT;
	struct stats_pmins mn = STATS_PMINS_INIT;

	if (draws < 2000)
		draws = 2000;
	stats_tgrid_init(&grid, b->ncases, draws); /* each case's df is the same in every draw */
	for (unsigned d = 0; d < draws; d++) {
		double su2 = b->vrun / stats_chisq_mean(dfg, &st), z = stats_normal(&st), vg = stats_chisq_mean(dfg, &st);

		stats_pmin_reset(&pm);
		for (size_t c = 0; c < b->ncases; c++) {
			double a2, num, var;

			if (isnan(b->t[c]))
				continue;
			a2 = su2 + b->own[c] > 0 ? su2 / (su2 + b->own[c]) : 1;
			num = sqrt(a2) * z + sqrt(1 - a2) * stats_normal(&st);
			var = a2 * vg + (1 - a2) * stats_chisq_mean(b->dfo[c], &st);
			stats_pmin_add(&pm, &grid, c, num / sqrt(var), stats_df_effective(b->a[c], dfg, b->dfo[c]));
		}
		stats_pmins_push(&mn, &pm);
	}
	pc = stats_pmins_critical(&mn, alpha);
	stats_tgrid_release(&grid);
	stats_pmin_release(&pm);
	stats_pmins_release(&mn);
	return pc;
}

/* case c's tolerance at k rounds (the critical p pc at k rounds' degrees of freedom) is within max_band */
static int band_fits(const struct bands *b, size_t c, double sd, double pc, double max_band, unsigned k)
{
	return stats_t_quantile_two_sided(pc, stats_df_effective(b->a[c], (double)(k - 1), b->dfo[c] + k - b->n[c])) * sd *
		       sqrt(1 + 1 / (double)k) <= log1p(max_band);
}

/* the fewest rounds, past the n the case has and at most 1000, at which its tolerance fits (UINT_MAX: none). The
 * tolerance falls as the rounds grow (more degrees of freedom, a smaller quantile and sqrt(1 + 1/k)): bisected */
static unsigned band_rounds(const struct bands *b, size_t c, double sd, double pc, double max_band)
{
	unsigned lo = (unsigned)b->n[c] + 1, hi = 1000;

	if (lo > hi || !band_fits(b, c, sd, pc, max_band, hi))
		return UINT_MAX;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (band_fits(b, c, sd, pc, max_band, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* each judged case's tolerance at the critical p pc; where it is wider than max_band, the rounds that would do:
 * the same critical p at more rounds' degrees of freedom (UINT_MAX: more than 1000) */
static void bands_tolerances(const struct bands *b, struct reproduce_band *out, double pc, double max_band)
{
	double dfg = (double)(b->nr - 1);

	for (size_t c = 0; c < b->ncases; c++) {
		double cq;

		if (isnan(b->t[c]))
			continue;
		cq = pc > 0 && pc < 1 ? stats_t_quantile_two_sided(pc, stats_df_effective(b->a[c], dfg, b->dfo[c])) : INFINITY;
		out[c].tol = cq * out[c].sd * sqrt(1 + 1 / (double)b->n[c]);
		if (!(out[c].tol > log1p(max_band)) || !isfinite(cq))
			continue;
		out[c].rounds = band_rounds(b, c, out[c].sd, pc, max_band);
	}
}

void reproduce_bands(struct reproduce_band *out, const double *y, size_t ncases, size_t nruns, double alpha,
		     double max_band, uint64_t seed)
{
	struct bands b = { .y = y, .ncases = ncases, .nruns = nruns };

	b.eff = xcalloc(nruns + 1, sizeof(double));
	b.mean = xcalloc(ncases + 1, sizeof(double));
	b.own = xcalloc(ncases + 1, sizeof(double));
	b.dfo = xcalloc(ncases + 1, sizeof(double));
	b.t = xcalloc(ncases + 1, sizeof(double));
	b.a = xcalloc(ncases + 1, sizeof(double));
	b.cnt = xcalloc(nruns + 1, sizeof(size_t));
	b.n = xcalloc(ncases + 1, sizeof(size_t));
	bands_run_effects(&b);
	bands_own(&b);
	bands_moderate(&b, out);
	if (b.nr > 1)
		bands_tolerances(&b, out, bands_critical_p(&b, alpha, seed), max_band);
	free(b.eff);
	free(b.mean);
	free(b.own);
	free(b.dfo);
	free(b.t);
	free(b.a);
	free(b.cnt);
	free(b.n);
}

/* Each case's band from its spread here (band[i]; tol NAN where it has none): the cases that have a figure in the
 * original and at least 2 runs here, per suite, a suite's cases sharing the machine state of each run; the
 * family's error rate shared among the suites (Bonferroni). logs: room for nhere logs. */
static void judge_bands(struct reproduce_band *band, double *logs, json_t *cases, const struct compare_side *here,
			size_t nhere, double max_band)
{
	json_t *suites = json_object(); /* suite -> [row indices judged by their spread here] */
	const char *sname;
	json_t *row, *idx;
	size_t i;

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
	json_decref(suites);
}

/* a case judged by this machine's run-to-run spread: where one more run falls, around the n runs here (logs),
 * against the original's figure orig */
static void judge_by_band(json_t *res, size_t counts[REPRODUCE_NVERDICTS], const double *logs, size_t n, double orig,
			  const struct reproduce_band *band, double threshold, double max_band)
{
	double m, sd, tol = band->tol, d, lo, hi;
	enum reproduce_verdict vd;

	mean_sd(&m, &sd, logs, n);
	json_object_set_new(res, "suite_noise_cv", json_real(sqrt(expm1(band->sd_run * band->sd_run))));
	json_object_set_new(res, "run_df", json_real(band->df_run));
	if (tol < log1p(threshold))
		tol = log1p(threshold);
	d = m - log(orig); /* > 0: faster here */
	lo = exp(-tol);
	hi = exp(fmin(tol, 700));
	json_object_set_new(res, "here", json_real(exp(m))); /* the runs' geometric mean */
	json_object_set_new(res, "ratio", json_real(exp(d)));
	json_object_set_new(res, "band", json_pack("[f, f]", lo, hi));
	json_object_set_new(res, "noise_cv", json_real(sqrt(expm1(sd * sd))));
	if (band->rounds)
		json_object_set_new(res, "rounds_needed", band->rounds == UINT_MAX ? json_null() : json_integer(band->rounds));
	vd = d < -tol ? REPRODUCE_SLOWER : d > tol ? REPRODUCE_FASTER : REPRODUCE_REPRODUCED;
	if (vd == REPRODUCE_REPRODUCED)
		set_within(res, counts, lo, hi, max_band, band->rounds);
	else
		set_verdict(res, counts, vd, NULL);
}

/* a case judged by the comparison's 95% CI of the ratio (ci: [lo, hi]) */
static void judge_by_ci(json_t *res, size_t counts[REPRODUCE_NVERDICTS], json_t *ci, double threshold, double max_band)
{
	double clo = json_number_value(json_array_get(ci, 0)), chi = json_number_value(json_array_get(ci, 1));

	json_object_set(res, "ci95", ci);
	if (chi < 1 - threshold)
		set_verdict(res, counts, REPRODUCE_SLOWER, NULL);
	else if (clo > 1 + threshold)
		set_verdict(res, counts, REPRODUCE_FASTER, NULL);
	else
		set_within(res, counts, clo, chi, max_band, 0);
}

/* a case that cannot be judged (v: the comparison's verdict, n runs here): why, from the original's record or the
 * comparison's; 0 when it can be */
static int judge_not_comparable(json_t *res, size_t counts[REPRODUCE_NVERDICTS], json_t *b, json_t *o, const char *v,
				double orig, size_t n)
{
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
	} else {
		return 0;
	}
	return 1;
}

json_t *reproduce_judge(size_t counts[REPRODUCE_NVERDICTS], json_t *cmp, const struct compare_side *here, size_t nhere,
			double threshold, double max_band)
{
	json_t *out = json_array(), *row, *cases = json_object_get(cmp, "cases");
	size_t ncases = json_array_size(cases), i;
	double *logs = xcalloc(nhere + 1, sizeof(double));
	struct reproduce_band *band = xcalloc(ncases + 1, sizeof(*band));

	if (max_band < threshold) /* the band is never narrower than the threshold: a lower limit would tell nothing */
		max_band = threshold;
	judge_bands(band, logs, cases, here, nhere, max_band);
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
		if (judge_not_comparable(res, counts, b, o, v, orig, n)) {
			/* judged: why not */
		} else if (n >= 2 && orig > 0 && !isnan(band[i].tol)) {
			judge_by_band(res, counts, logs, n, orig, &band[i], threshold, max_band);
		} else if (json_array_size(ci) == 2) {
			judge_by_ci(res, counts, ci, threshold, max_band);
		} else {
			const char *why = json_string_value(json_object_get(o, "why"));

			set_verdict(res, counts, REPRODUCE_NOT_COMPARABLE, why ? why : "no confidence interval");
		}
		json_array_append_new(out, res);
	}
	free(logs);
	free(band);
	return out;
}
