/* SPDX-License-Identifier: Apache-2.0 */
#include "dashboard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "core/units.h"
#include "stats/cost.h"
#include "core/escape.h"
#include "html.h"
#include "stats/stats.h"

/* one run as the dashboard sees it */
struct drun {
	size_t side;
	char date[11];  /* YYYY-MM-DD, UTC */
	long day;       /* days since 1970-01-01 */
	const char *machine, *channel;
	char *series;   /* the stack: "CHANNEL (NAME)", the channel and the manifest's name (dashboard_run_series()) */
	json_t *health; /* compare_run_health() */
};

/* the nightly dates of one machine and nightly series, and compare's verdicts of each date against the one before */
struct dmachine {
	const char *name, *series;
	char (*dates)[11];
	size_t ndates;
	json_t **cmp; /* cmp[j]: date j against date j - 1 (cmp[0] NULL) */
};

struct dash {
	const struct compare_side *sides;
	struct drun *runs; /* sorted by date, then run name */
	size_t n;
	struct dmachine *m;
	size_t nm;
	size_t nmachines; /* distinct machines */
	const struct compare_opts *o;
	json_t *verdicts; /* dashboard_render()'s, or NULL */
	const char *base; /* the way from the page to the site's root: "" or "../" */
};

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* days since 1970-01-01 of a civil date (H. Hinnant's algorithm) */
static long days_from_civil(long y, unsigned m, unsigned d)
{
	long era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

static void run_date(struct drun *r, const struct compare_side *s)
{
	json_t *epoch = json_object_get(s->lock, "source_date_epoch");
	const char *started = jstr(s->status, "started");
	int y = 1970, m = 1, d = 1;

	if (json_is_integer(epoch)) {
		time_t t = (time_t)json_integer_value(epoch);
		struct tm tm;

		gmtime_r(&t, &tm);
		y = tm.tm_year + 1900, m = tm.tm_mon + 1, d = tm.tm_mday;
	} else if (sscanf(started, "%4d-%2d-%2d", &y, &m, &d) != 3 || m < 1 || m > 12 || d < 1 || d > 31) {
		y = 1970, m = 1, d = 1;
	}
	{
		char buf[48];

		snprintf(buf, sizeof(buf), "%04d-%02d-%02d", y < 0 || y > 9999 ? 1970 : y, m, d);
		memcpy(r->date, buf, 10);
		r->date[10] = '\0';
	}
	r->day = days_from_civil(y, (unsigned)m, (unsigned)d);
}

static const char *run_machine(const struct compare_side *s)
{
	const char *g = json_string_value(json_object_get(json_array_get(json_object_get(s->env, "gpus"), 0), "name"));
	const char *c = json_string_value(json_object_get(json_object_get(s->env, "host"), "cpu_model"));

	return g && *g ? g : c && *c ? c : "unknown machine";
}

static const struct compare_side *cmp_sides; /* for the qsort comparators below (single-threaded) */

static int cmp_run(const void *a, const void *b)
{
	const struct drun *x = a, *y = b;
	int c = strcmp(x->date, y->date);

	return c ? c : strcmp(cmp_sides[x->side].label, cmp_sides[y->side].label);
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int rec_ok(json_t *rec)
{
	return rec && !strcmp(jstr(rec, "status"), "ok") && json_is_number(json_object_get(rec, "value"));
}

static int run_bad(const struct drun *r)
{
	json_t *cn = json_object_get(r->health, "counts");

	return json_is_true(json_object_get(r->health, "incomplete")) || !strcmp(jstr(r->health, "state"), "failed") ||
	       json_integer_value(json_object_get(cn, "failed")) + json_integer_value(json_object_get(cn, "interrupted")) +
		       json_integer_value(json_object_get(cn, "pending")) > 0;
}

/* distinct strings, sorted; *out a new array of borrowed pointers */
static size_t distinct(const char ***out, const char **v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), cmp_cstr);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]))
			v[k++] = v[i];
	*out = v;
	return k;
}

static struct dmachine *machine_of(const struct dash *d, const char *name, const char *series)
{
	for (size_t i = 0; i < d->nm; i++)
		if (!strcmp(d->m[i].name, name) && !strcmp(d->m[i].series, series))
			return &d->m[i];
	return NULL;
}

/* the runs of a machine, series and date (NULL: any) in side indices; a new array */
static size_t runs_of(size_t **out, const struct dash *d, const char *machine, const char *series, const char *date)
{
	size_t k = 0;

	*out = xcalloc(d->n ? d->n : 1, sizeof(**out));
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->runs[i].machine, machine) && (!series || !strcmp(d->runs[i].series, series)) &&
		    (!date || !strcmp(d->runs[i].date, date)))
			(*out)[k++] = d->runs[i].side;
	return k;
}

char *dashboard_verdict_key(const char *machine, const char *series, const char *date)
{
	return xstrfmt("%s\x1f%s\x1f%s", machine, series, date);
}

json_t *dashboard_verdicts(const struct compare_side *sides, const size_t *prev, size_t nprev, const size_t *now, size_t nnow,
			   const char *prev_date, const char *date, const struct compare_opts *o)
{
	struct compare_group g[2];
	json_t *full, *out, *cases = json_array(), *row;
	size_t i;

	g[0].label = xstrfmt("nightly %s", prev_date);
	g[1].label = xstrfmt("nightly %s", date);
	g[0].runs = (size_t *)prev, g[0].nruns = nprev;
	g[1].runs = (size_t *)now, g[1].nruns = nnow;
	full = compare_build_groups(sides, g, 2, 0, o);
	json_array_foreach(json_object_get(full, "cases"), i, row) { /* what the dashboard reads of compare's rows */
		json_t *x = json_array_get(json_object_get(row, "others"), 0);

		json_array_append_new(cases, json_pack("{s:O?, s:O?, s:[{s:O?, s:O?, s:O?, s:O?}]}", "suite", json_object_get(row, "suite"),
						       "case", json_object_get(row, "case"), "others", "verdict",
						       json_object_get(x, "verdict"), "ratio", json_object_get(x, "ratio"), "ci95",
						       json_object_get(x, "ci95"), "p_adjusted", json_object_get(x, "p_adjusted")));
	}
	out = json_pack("{s:s, s:s, s:o}", "date", date, "previous", prev_date, "cases", cases);
	json_decref(full);
	free(g[0].label);
	free(g[1].label);
	return out;
}

/* the nightly series of every machine: their dates, and compare's verdicts of each date against the date before it
 * (d->verdicts' where given, else computed) */
static void machines_build(struct dash *d)
{
	const char **names = xcalloc(d->n ? d->n : 1, sizeof(*names)), **u;
	size_t nu, alloc = 0;

	for (size_t i = 0; i < d->n; i++)
		names[i] = d->runs[i].machine;
	nu = distinct(&u, names, d->n);
	d->nmachines = nu;
	for (size_t i = 0; i < nu; i++) {
		const char **ser = xcalloc(d->n ? d->n : 1, sizeof(*ser)), **us;
		size_t ns = 0, nus;

		for (size_t r = 0; r < d->n; r++)
			if (!strcmp(d->runs[r].machine, u[i]) && !strcmp(d->runs[r].channel, "nightly"))
				ser[ns++] = d->runs[r].series;
		nus = distinct(&us, ser, ns);
		if (!nus) { /* a machine without nightlies: no dates */
			ALLOC_GROW(d->m, d->nm + 1, alloc);
			memset(&d->m[d->nm], 0, sizeof(d->m[0]));
			d->m[d->nm].name = u[i];
			d->m[d->nm].series = "";
			d->m[d->nm].dates = xcalloc(1, sizeof(*d->m[0].dates));
			d->m[d->nm++].cmp = xcalloc(1, sizeof(json_t *));
		}
		for (size_t q = 0; q < nus; q++) {
			struct dmachine *m;

			ALLOC_GROW(d->m, d->nm + 1, alloc);
			m = &d->m[d->nm++];
			memset(m, 0, sizeof(*m));
			m->name = u[i];
			m->series = us[q];
			m->dates = xcalloc(d->n ? d->n : 1, sizeof(*m->dates));
			for (size_t r = 0; r < d->n; r++) /* runs are in date order */
				if (!strcmp(d->runs[r].machine, m->name) && !strcmp(d->runs[r].series, m->series) &&
				    (!m->ndates || strcmp(m->dates[m->ndates - 1], d->runs[r].date)))
					memcpy(m->dates[m->ndates++], d->runs[r].date, 11);
			m->cmp = xcalloc(m->ndates ? m->ndates : 1, sizeof(*m->cmp));
			for (size_t j = 1; j < m->ndates; j++) {
				size_t *a, *b, na, nb;

				if (d->verdicts) {
					char *k = dashboard_verdict_key(m->name, m->series, m->dates[j]);
					json_t *v = json_object_get(d->verdicts, k);

					/* a stored verdict holds when it was made against the date before this one here */
					if (v && !strcmp(jstr(v, "previous"), m->dates[j - 1]))
						m->cmp[j] = json_incref(v);
					free(k);
					continue;
				}
				na = runs_of(&a, d, m->name, m->series, m->dates[j - 1]);
				nb = runs_of(&b, d, m->name, m->series, m->dates[j]);
				m->cmp[j] = dashboard_verdicts(d->sides, a, na, b, nb, m->dates[j - 1], m->dates[j], d->o);
				free(a);
				free(b);
			}
		}
		free(ser);
	}
	free(names); /* the machines' names point into the sides */
}

/* compare's row for the case (suite, case) against the previous nightly: others[0] of its row, or NULL */
static json_t *verdict_of(const struct dmachine *m, size_t j, json_t *rec)
{
	json_t *row;
	size_t i;

	if (!m || !j || j >= m->ndates || !m->cmp[j])
		return NULL;
	json_array_foreach(json_object_get(m->cmp[j], "cases"), i, row)
		if (!strcmp(jstr(row, "suite"), jstr(rec, "suite")) && !strcmp(jstr(row, "case"), jstr(rec, "case")))
			return json_array_get(json_object_get(row, "others"), 0);
	return NULL;
}

static size_t date_index(const struct dmachine *m, const char *date)
{
	for (size_t j = 0; m && j < m->ndates; j++)
		if (!strcmp(m->dates[j], date))
			return j;
	return (size_t)-1;
}

/* the median value of case key over the ok runs of machine, series and date; NAN when none; *rec: one record.
 * The runs are in date order: the date's runs are found by bisection, not by a scan of every run. */
static double value_at(const struct dash *d, const char *key, const char *machine, const char *series, const char *date,
		       json_t **rec)
{
	double v[256];
	size_t k = 0, lo = 0, hi = d->n;

	if (rec)
		*rec = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(d->runs[mid].date, date) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < d->n && !strcmp(d->runs[i].date, date); i++) {
		const struct drun *r = &d->runs[i];
		json_t *x;

		if (strcmp(r->machine, machine) || strcmp(r->series, series) || !rec_ok(x = json_object_get(d->sides[r->side].records, key)))
			continue;
		if (k < 256)
			v[k++] = json_number_value(json_object_get(x, "value"));
		if (rec)
			*rec = x;
	}
	return stats_median(v, k);
}

/* the latest date of series on machine where key measured; "" when none */
static const char *latest_ok(const struct dash *d, const char *key, const char *machine, const char *series)
{
	for (size_t i = d->n; i-- > 0;) {
		const struct drun *r = &d->runs[i];

		if (!strcmp(r->machine, machine) && !strcmp(r->series, series) &&
		    rec_ok(json_object_get(d->sides[r->side].records, key)))
			return r->date;
	}
	return "";
}

/* the series of channel on machine that measured key last, and that date; "" when none */
static const char *latest_of_channel(const struct dash *d, const char *key, const char *machine, const char *channel,
				     const char **series)
{
	*series = "";
	for (size_t i = d->n; i-- > 0;) {
		const struct drun *r = &d->runs[i];

		if (!strcmp(r->machine, machine) && !strcmp(r->channel, channel) &&
		    rec_ok(json_object_get(d->sides[r->side].records, key))) {
			*series = r->series;
			return r->date;
		}
	}
	return "";
}

/* the channel of a series "CHANNEL (NAME)" is the run's channel: found through any run of it */
static const char *series_channel(const struct dash *d, const char *series)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->runs[i].series, series))
			return d->runs[i].channel;
	return "";
}

static const char *channel_colour(const char *c)
{
	return !strcmp(c, "nightly") ? "#1f4e96" : !strcmp(c, "stable") ? "#2a7d2a" : !strcmp(c, "dev") ? "#8a5a00" : "#666";
}

static double nice_step(double span)
{
	double p = pow(10, floor(log10(span))), f = span / p;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* a value for a person: re-prefixed as bench show prints it (0.05093 TFLOP/s -> 50.9 GFLOP/s), escaped */
static void value_unit(struct strbuf *o, double v, const char *unit)
{
	char buf[64];

	units_format_scaled(buf, sizeof(buf), v, unit ? unit : "");
	esc_html(o, buf);
}

static void pct(struct strbuf *o, double now, double then)
{
	if (isfinite(now) && isfinite(then) && then > 0)
		strbuf_addf(o, "%+.1f%%", 100 * (now / then - 1));
	else
		strbuf_addstr(o, "n/a");
}

#define CW 640.0
#define CH 300.0
#define PL 64.0
#define PR 16.0
#define PT 34.0
#define PB 40.0

/* One chart: the case on one machine, its series, its scale, the latest nightly against the nightly before it
 * and the latest stable, and the two lists written under it (verdict flags, runs that did not measure) */
struct dchart {
	const struct dash *d;
	const char *key, *machine;
	const char **uc; /* its series, distinct, sorted (chart_scale()); owned */
	size_t nu;
	json_t *unitrec; /* a measured record: its unit */
	double ylo, yhi, step;
	long dmin, dmax;
	const char *last, *prevdate, *stable, *nser, *sser; /* dates ("" when none) and their series */
	double vlast, vprev, vstable;
	struct strbuf bad, flags;
};

static double chart_x(const struct dchart *c, long day)
{
	return PL + (CW - PL - PR) * (double)(day - c->dmin) / (double)(c->dmax - c->dmin);
}

static double chart_y(const struct dchart *c, double v)
{
	return CH - PB - (CH - PT - PB) * (v - c->ylo) / (c->yhi - c->ylo);
}

static const char *chart_unit(const struct dchart *c)
{
	return jstr(c->unitrec, "unit");
}

/* the series of the case on the machine, its days and values: the time axis and the 1-2-5 value axis */
static void chart_scale(struct dchart *c)
{
	const struct dash *d = c->d;
	const char **chans = xcalloc(d->n + 1, sizeof(*chans));
	double lo = INFINITY, hi = -INFINITY;
	size_t nc = 0, npts = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct drun *r = &d->runs[i];
		json_t *x = json_object_get(d->sides[r->side].records, c->key);

		if (!x || strcmp(r->machine, c->machine))
			continue;
		chans[nc++] = r->series;
		if (!npts++)
			c->dmin = c->dmax = r->day;
		c->dmin = r->day < c->dmin ? r->day : c->dmin;
		c->dmax = r->day > c->dmax ? r->day : c->dmax;
		if (rec_ok(x)) {
			double v = json_number_value(json_object_get(x, "value"));

			lo = fmin(lo, v);
			hi = fmax(hi, v);
			c->unitrec = x;
		}
	}
	c->nu = distinct(&c->uc, chans, nc);
	if (!isfinite(lo))
		lo = 0, hi = 1;
	if (hi - lo < 1e-9 * fabs(hi) || hi == lo)
		lo -= fabs(lo) * 0.05 + 1e-9, hi += fabs(hi) * 0.05 + 1e-9;
	c->step = nice_step((hi - lo) / 4);
	c->ylo = floor(lo / c->step) * c->step;
	c->yhi = ceil(hi / c->step) * c->step;
	if (c->dmax == c->dmin)
		c->dmin--, c->dmax++;
}

/* the latest nightly's value, the nightly measured before it, and the latest stable's value */
static void chart_latest(struct dchart *c)
{
	const struct dash *d = c->d;

	c->last = latest_of_channel(d, c->key, c->machine, "nightly", &c->nser);
	c->stable = latest_of_channel(d, c->key, c->machine, "stable", &c->sser);
	c->prevdate = "";
	c->vlast = c->vprev = c->vstable = NAN;
	if (*c->last) {
		const struct dmachine *m = machine_of(d, c->machine, c->nser); /* the nightly series measured last */
		size_t j = date_index(m, c->last);

		c->vlast = value_at(d, c->key, c->machine, c->nser, c->last, NULL);
		for (size_t q = j; q-- > 0 && j != (size_t)-1;) {
			double v = value_at(d, c->key, c->machine, c->nser, m->dates[q], NULL);

			if (isfinite(v)) {
				c->prevdate = m->dates[q];
				c->vprev = v;
				break;
			}
		}
	}
	if (*c->stable)
		c->vstable = value_at(d, c->key, c->machine, c->sser, c->stable, NULL);
}

/* " (DATE)" when there is a date */
static void paren_date(struct strbuf *o, const char *date)
{
	if (*date) {
		strbuf_addstr(o, " (");
		esc_html(o, date);
		strbuf_addstr(o, ")");
	}
}

/* the figure's caption and the last nightly point, written out */
static void chart_caption(struct strbuf *o, const struct dchart *c)
{
	strbuf_addstr(o, "<figure class=\"dchart\" data-case=\"");
	esc_html(o, c->key);
	strbuf_addstr(o, "\" data-machine=\"");
	esc_html(o, c->machine);
	strbuf_addstr(o, "\"><figcaption><strong>");
	esc_html(o, c->machine);
	strbuf_addstr(o, "</strong></figcaption>\n<p class=\"last\">"); /* and the last nightly point, written out */
	if (*c->last) {
		strbuf_addstr(o, "latest nightly ");
		esc_html(o, c->last);
		strbuf_addstr(o, ": <strong class=\"v\">");
		value_unit(o, c->vlast, chart_unit(c));
		strbuf_addstr(o, "</strong>");
		strbuf_addstr(o, " &middot; <span class=\"vs-prev\">");
		pct(o, c->vlast, c->vprev);
		strbuf_addstr(o, "</span> vs previous nightly");
		paren_date(o, c->prevdate);
		strbuf_addstr(o, " &middot; <span class=\"vs-stable\">");
		pct(o, c->vlast, c->vstable);
		strbuf_addstr(o, "</span> vs stable");
		paren_date(o, c->stable);
	} else {
		strbuf_addstr(o, "<span class=\"failed\">no nightly measured this case</span>");
	}
	strbuf_addstr(o, "</p>\n");
}

/* the svg's opening, the value axis (1-2-5 ticks, labelled, with the unit) and the time axis (up to 5 dates) */
static void chart_axes(struct strbuf *o, const struct dchart *c)
{
	strbuf_addf(o, "<svg class=\"dchart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"", CW, CH);
	esc_html(o, c->key);
	strbuf_addstr(o, " on ");
	esc_html(o, c->machine);
	strbuf_addstr(o, "\">\n");
	for (double t = c->ylo; t <= c->yhi + c->step / 2; t += c->step)
		strbuf_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text class=\"tick\" x=\"%.1f\" "
			       "y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n", PL, chart_y(c, t), CW - PR, chart_y(c, t), PL - 4,
			    chart_y(c, t) + 4, t);
	strbuf_addf(o, "<text class=\"unit\" x=\"4\" y=\"14\">");
	esc_html(o, chart_unit(c));
	strbuf_addstr(o, "</text>\n");
	for (int k = 0; k < 5; k++) {
		long day = c->dmin + (long)llround((double)(c->dmax - c->dmin) * k / 4.0);
		time_t t = (time_t)day * 86400;
		struct tm tm;
		char lab[16];

		if (k && day == c->dmin + (long)llround((double)(c->dmax - c->dmin) * (k - 1) / 4.0))
			continue;
		gmtime_r(&t, &tm);
		strftime(lab, sizeof(lab), k ? "%m-%d" : "%Y-%m-%d", &tm);
		strbuf_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/><text class=\"tick\" x=\"%.1f\" "
			       "y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", chart_x(c, day), CH - PB, chart_x(c, day), CH - PB + 4,
			    chart_x(c, day), CH - PB + 18, k == 0 ? "start" : k == 4 ? "end" : "middle", lab);
	}
	strbuf_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", PL, CH - PB, CW - PR, CH - PB);
}

/* a nightly series' line through its dates */
static void chart_line(struct strbuf *o, const struct dchart *c, const char *ch, const char *col)
{
	const struct dash *d = c->d;
	const char *prev = "";
	size_t np = 0;

	strbuf_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" points=\"", col);
	for (size_t i = 0; i < d->n; i++) {
		const struct drun *r = &d->runs[i];
		double v;

		if (strcmp(r->machine, c->machine) || strcmp(r->series, ch) || !strcmp(r->date, prev))
			continue;
		prev = r->date;
		if (isfinite(v = value_at(d, c->key, c->machine, ch, r->date, NULL)))
			strbuf_addf(o, "%s%.1f,%.1f", np++ ? " " : "", chart_x(c, r->day), chart_y(c, v));
	}
	strbuf_addstr(o, "\"/>");
}

/* a run that did not measure the case: a red cross at the foot, and its reason written out below */
static void chart_failed(struct strbuf *o, struct dchart *c, const struct drun *r, const char *ch, json_t *x)
{
	const struct dash *d = c->d;

	strbuf_addf(o, "<g class=\"failed-point\"><title>");
	esc_html(o, compare_case_reason(x));
	strbuf_addf(o, "</title><path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" stroke=\"#c0392b\" stroke-width=\"2.5\"/></g>",
		    chart_x(c, r->day) - 4, CH - PB - 12);
	strbuf_addstr(&c->bad, "<li class=\"failed\">");
	esc_html(&c->bad, r->date);
	strbuf_addstr(&c->bad, " ");
	esc_html(&c->bad, ch);
	strbuf_addstr(&c->bad, " <a href=\"");
	esc_html(&c->bad, d->base);
	strbuf_addstr(&c->bad, "runs/");
	esc_html(&c->bad, d->sides[r->side].label);
	strbuf_addstr(&c->bad, ".html\">");
	esc_html(&c->bad, d->sides[r->side].label);
	strbuf_addstr(&c->bad, "</a>: <strong>");
	esc_html(&c->bad, jstr(x, "status"));
	strbuf_addstr(&c->bad, "</strong> &mdash; <span class=\"reason\">");
	esc_html(&c->bad, compare_case_reason(x));
	strbuf_addstr(&c->bad, "</span></li>\n");
}

/* a run that measured but did not finish: listed below the chart */
static void chart_incomplete(struct dchart *c, const struct drun *r, const char *ch)
{
	strbuf_addstr(&c->bad, "<li class=\"failed\">");
	esc_html(&c->bad, r->date);
	strbuf_addstr(&c->bad, " ");
	esc_html(&c->bad, ch);
	strbuf_addstr(&c->bad, " ");
	esc_html(&c->bad, c->d->sides[r->side].label);
	strbuf_addstr(&c->bad, ": <strong>INCOMPLETE</strong> &mdash; <span class=\"reason\">run state ");
	esc_html(&c->bad, jstr(r->health, "state"));
	strbuf_addstr(&c->bad, "</span></li>\n");
}

/* a nightly point compare called slower or faster than the date before it: a flag on the chart, a line below */
static void chart_flag(struct strbuf *o, struct dchart *c, const struct drun *r, double v, json_t *vd, const char *prevdate)
{
	int slower = !strcmp(jstr(vd, "verdict"), "slower");
	double x = chart_x(c, r->day);

	strbuf_addf(o, "<text class=\"flag %s\" x=\"%.1f\" text-anchor=\"%s\" y=\"%.1f\" fill=\"%s\">%s</text>", jstr(vd, "verdict"),
		    x, x > CW - 70 ? "end" : x < PL + 50 ? "start" : "middle", slower ? chart_y(c, v) + 16 : chart_y(c, v) - 8,
		    slower ? "#c0392b" : "#2a7d2a", slower ? "&#9660; slower" : "&#9650; faster");
	strbuf_addf(&c->flags, "<li class=\"%s\">", jstr(vd, "verdict"));
	esc_html(&c->flags, r->date);
	strbuf_addstr(&c->flags, ": <strong>");
	esc_html(&c->flags, jstr(vd, "verdict"));
	strbuf_addstr(&c->flags, "</strong> than ");
	esc_html(&c->flags, prevdate);
	strbuf_addf(&c->flags, " (ratio %.3f, 95%% CI %.3f&ndash;%.3f, p %.2g adjusted)</li>\n",
		    json_number_value(json_object_get(vd, "ratio")), json_number_value(json_array_get(json_object_get(vd, "ci95"), 0)),
		    json_number_value(json_array_get(json_object_get(vd, "ci95"), 1)),
		    json_number_value(json_object_get(vd, "p_adjusted")));
}

/* a measured date of a series: a nightly's dot (flagged when compare called it; ms: its dates), another
 * channel's square */
static void chart_point(struct strbuf *o, struct dchart *c, const struct drun *r, const char *ch, int nightly,
			const struct dmachine *ms, const char *col, json_t *x)
{
	double v = value_at(c->d, c->key, c->machine, ch, r->date, NULL);

	if (nightly) {
		size_t j = date_index(ms, r->date);
		json_t *vd = verdict_of(ms, j, x);

		strbuf_addf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", chart_x(c, r->day), chart_y(c, v), col);
		if (vd && (!strcmp(jstr(vd, "verdict"), "slower") || !strcmp(jstr(vd, "verdict"), "faster")))
			chart_flag(o, c, r, v, vd, ms->dates[j - 1]);
	} else {
		strbuf_addf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>",
			    chart_x(c, r->day) - 3.5, chart_y(c, v) - 3.5, col);
	}
}

/* the reference line of a channel other than nightly: its latest value, labelled */
static void chart_ref(struct strbuf *o, const struct dchart *c, const char *ch, const char *col)
{
	const char *ld = latest_ok(c->d, c->key, c->machine, ch);
	double v, y;

	if (!*ld)
		return;
	v = value_at(c->d, c->key, c->machine, ch, ld, NULL);
	y = chart_y(c, v);
	strbuf_addf(o, "<line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		       "stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/><text class=\"reflabel\" x=\"%.1f\" y=\"%.1f\" "
		       "fill=\"%s\">", PL, y, CW - PR, y, col, PL + 6, y - 5, col);
	esc_html(o, ch);
	strbuf_addch(o, ' ');
	value_unit(o, v, chart_unit(c));
	strbuf_addstr(o, " (");
	esc_html(o, ld);
	strbuf_addstr(o, ")</text>");
}

/* One series (a channel's stack): nightly as a line with dots and flags, another channel as squares and the
 * reference line of its latest value; a run that did not measure as a cross. */
static void chart_series(struct strbuf *o, struct dchart *c, const char *ch)
{
	const struct dash *d = c->d;
	const char *chan = series_channel(d, ch), *col = channel_colour(chan), *prev = "";
	int nightly = !strcmp(chan, "nightly");
	const struct dmachine *ms = nightly ? machine_of(d, c->machine, ch) : NULL;

	strbuf_addstr(o, "<g class=\"series\" data-channel=\"");
	esc_html(o, chan);
	strbuf_addstr(o, "\" data-series=\"");
	esc_html(o, ch);
	strbuf_addstr(o, "\">");
	if (nightly)
		chart_line(o, c, ch, col);
	for (size_t i = 0; i < d->n; i++) {
		const struct drun *r = &d->runs[i];
		json_t *x = json_object_get(d->sides[r->side].records, c->key);

		if (!x || strcmp(r->machine, c->machine) || strcmp(r->series, ch))
			continue;
		if (!rec_ok(x)) {
			chart_failed(o, c, r, ch, x);
			continue;
		}
		if (json_is_true(json_object_get(r->health, "incomplete")))
			chart_incomplete(c, r, ch);
		if (!strcmp(r->date, prev))
			continue;
		prev = r->date;
		chart_point(o, c, r, ch, nightly, ms, col, x);
	}
	if (!nightly)
		chart_ref(o, c, ch, col);
	strbuf_addstr(o, "</g>\n");
}

/* the last nightly point's label, on the chart */
static void chart_last_label(struct strbuf *o, const struct dchart *c)
{
	long day = 0;

	if (!*c->last)
		return;
	for (size_t i = 0; i < c->d->n; i++)
		if (!strcmp(c->d->runs[i].date, c->last))
			day = c->d->runs[i].day;
	strbuf_addf(o, "<text class=\"lastlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", chart_x(c, day), PT - 12);
	value_unit(o, c->vlast, chart_unit(c));
	strbuf_addstr(o, " (");
	pct(o, c->vlast, c->vprev);
	strbuf_addstr(o, " vs prev, ");
	pct(o, c->vlast, c->vstable);
	strbuf_addf(o, " vs stable)</text><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
		       "stroke-width=\"0.8\"/>\n", chart_x(c, day), PT - 8, chart_x(c, day), chart_y(c, c->vlast) - 4);
}

/* the legend under the svg: a mark per series, and the cross */
static void chart_legend(struct strbuf *o, const struct dchart *c)
{
	strbuf_addstr(o, "<p class=\"legend\">");
	for (size_t k = 0; k < c->nu; k++) {
		int nightly = !strcmp(series_channel(c->d, c->uc[k]), "nightly");

		strbuf_addf(o, "%s<span style=\"color:%s\">%s", k ? "&middot; " : "", channel_colour(series_channel(c->d, c->uc[k])),
			    nightly ? "&#9679; " : "&#9633; - - ");
		esc_html(o, c->uc[k]);
		strbuf_addstr(o, nightly ? " by build date</span> " : "</span> ");
	}
	strbuf_addstr(o, "&middot; <span class=\"failed\">&#10005; did not measure</span></p>\n");
}

/* a list gathered while drawing, under the chart when not empty */
static void chart_list(struct strbuf *o, const char *cls, const struct strbuf *items)
{
	if (items->len) {
		strbuf_addf(o, "<ul class=\"%s\">", cls);
		strbuf_add(o, items->buf, items->len);
		strbuf_addstr(o, "</ul>\n");
	}
}

/* one chart: case key on one machine, one series per channel */
static void chart(struct strbuf *o, const struct dash *d, const char *key, const char *machine)
{
	struct dchart c = { .d = d, .key = key, .machine = machine, .bad = STRBUF_INIT, .flags = STRBUF_INIT };

	chart_latest(&c);
	chart_scale(&c);
	chart_caption(o, &c);
	chart_axes(o, &c);
	for (size_t k = 0; k < c.nu; k++)
		chart_series(o, &c, c.uc[k]);
	chart_last_label(o, &c);
	strbuf_addstr(o, "</svg>\n");
	chart_legend(o, &c);
	chart_list(o, "flags", &c.flags);
	chart_list(o, "bad", &c.bad);
	strbuf_addstr(o, "</figure>\n");
	strbuf_release(&c.bad);
	strbuf_release(&c.flags);
	free(c.uc);
}

/* what changed last night on one machine and nightly series: the rows of its table, and the cases unchanged */
struct lastnight {
	const struct dash *d;
	const struct dmachine *m;
	const char *latest; /* the latest nightly date */
	size_t j;           /* its index among m's dates */
	int named;          /* two stacks on one machine: rows name the series */
	json_t *seen;       /* case -> true once a row is written; "\x01ok" -> the cases unchanged */
	size_t rows;
};

/* one row: a case that did not measure (its status and reason) or compare called slower or faster */
static void last_night_row(struct strbuf *o, const struct lastnight *ln, const char *key, json_t *x, json_t *vd)
{
	const char *verdict = vd ? jstr(vd, "verdict") : "";
	int isbad = !rec_ok(x);

	strbuf_addf(o, "<tr class=\"%s\"><td>", isbad ? "failed" : verdict);
	esc_html(o, ln->m->name);
	if (ln->named) {
		strbuf_addstr(o, " &middot; ");
		esc_html(o, ln->m->series);
	}
	strbuf_addstr(o, "</td><td>");
	esc_html(o, key);
	strbuf_addstr(o, isbad ? "</td><td colspan=\"3\">" : "</td><td>");
	if (isbad) {
		strbuf_addstr(o, "<strong class=\"failed\">");
		esc_html(o, jstr(x, "status"));
		strbuf_addstr(o, "</strong> &mdash; <span class=\"reason\">");
		esc_html(o, compare_case_reason(x));
		strbuf_addstr(o, "</span></td></tr>\n");
		return;
	}
	value_unit(o, value_at(ln->d, key, ln->m->name, ln->m->series, ln->latest, NULL), jstr(x, "unit"));
	strbuf_addstr(o, "</td><td>");
	strbuf_addf(o, "%+.1f%% vs ", 100 * (json_number_value(json_object_get(vd, "ratio")) - 1));
	esc_html(o, ln->m->dates[ln->j - 1]);
	strbuf_addf(o, "</td><td class=\"%s\"><strong>", verdict);
	esc_html(o, verdict);
	strbuf_addstr(o, "</strong></td></tr>\n");
}

/* one case of one of last night's runs: a row once when it failed or changed, else counted unchanged once */
static void last_night_case(struct strbuf *o, struct lastnight *ln, const char *key, json_t *x)
{
	json_t *vd = verdict_of(ln->m, ln->j, x), *okset = json_object_get(ln->seen, "\x01ok");
	const char *verdict = vd ? jstr(vd, "verdict") : "";
	int isbad = !rec_ok(x), changed = !strcmp(verdict, "slower") || !strcmp(verdict, "faster");

	if (json_object_get(ln->seen, key) || (!isbad && json_object_get(okset, key)))
		return;
	if (!isbad && !changed) {
		if (!okset)
			json_object_set_new(ln->seen, "\x01ok", okset = json_object());
		json_object_set_new(okset, key, json_true());
		return;
	}
	json_object_set_new(ln->seen, key, json_true());
	ln->rows++;
	last_night_row(o, ln, key, x, vd);
}

/* the rows of one machine and nightly series; the number of its cases unchanged */
static size_t last_night_machine(struct strbuf *o, struct lastnight *ln)
{
	const struct dash *d = ln->d;
	size_t *rs, nr, nser = 0, unchanged;

	ln->j = date_index(ln->m, ln->latest);
	for (size_t q = 0; q < d->nm; q++)
		nser += !strcmp(d->m[q].name, ln->m->name) && *d->m[q].series;
	ln->named = nser > 1;
	nr = runs_of(&rs, d, ln->m->name, ln->m->series, ln->latest);
	ln->seen = json_object();
	for (size_t q = 0; q < nr; q++) {
		const char *key;
		json_t *x;

		json_object_foreach(d->sides[rs[q]].records, key, x)
			last_night_case(o, ln, key, x);
	}
	unchanged = json_object_size(json_object_get(ln->seen, "\x01ok"));
	json_decref(ln->seen);
	free(rs);
	return unchanged;
}

/* the runs of last night that failed or did not finish */
static void last_night_bad_runs(struct strbuf *o, const struct dash *d, const char *latest)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->runs[i].date, latest) && run_bad(&d->runs[i])) {
			strbuf_addstr(o, "<p class=\"failed\">Run <a href=\"");
			esc_html(o, d->base);
			strbuf_addstr(o, "runs/");
			esc_html(o, d->sides[d->runs[i].side].label);
			strbuf_addstr(o, ".html\">");
			esc_html(o, d->sides[d->runs[i].side].label);
			strbuf_addstr(o, "</a> (");
			esc_html(o, d->runs[i].machine);
			strbuf_addstr(o, "): ");
			strbuf_addstr(o, json_is_true(json_object_get(d->runs[i].health, "incomplete")) ? "INCOMPLETE" : "FAILED");
			strbuf_addstr(o, ", run state ");
			esc_html(o, jstr(d->runs[i].health, "state"));
			strbuf_addstr(o, "</p>\n");
		}
}

/* what changed last night: the latest nightly date against the nightly date before it, per machine */
static void last_night(struct strbuf *o, const struct dash *d)
{
	struct lastnight ln = { .d = d, .latest = "" };
	size_t unchanged = 0;

	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->runs[i].channel, "nightly"))
			ln.latest = d->runs[i].date;
	strbuf_addstr(o, "<section class=\"lastnight\"><h2>What changed last night");
	paren_date(o, ln.latest);
	strbuf_addstr(o, "</h2>\n");
	if (!*ln.latest) {
		strbuf_addstr(o, "<p>No nightly run is published yet.</p></section>\n");
		return;
	}
	strbuf_addstr(o, "<div class=\"scroll\"><table class=\"changes\"><thead><tr><th>machine</th><th>case</th><th>last night</th>"
			 "<th>change</th><th>verdict</th></tr></thead><tbody>\n");
	for (size_t mi = 0; mi < d->nm; mi++) {
		if (!*d->m[mi].series)
			continue;
		ln.m = &d->m[mi];
		unchanged += last_night_machine(o, &ln);
	}
	strbuf_addstr(o, "</tbody></table></div>\n");
	strbuf_addf(o, "<p class=\"unchanged\">%s%zu case%s on %zu machine%s unchanged (compare: same, or inconclusive with "
		       "fewer than 3 runs a side).</p>\n", ln.rows ? "" : "Nothing changed. ", unchanged, unchanged == 1 ? "" : "s",
		    d->nmachines, d->nmachines == 1 ? "" : "s");
	last_night_bad_runs(o, d, ln.latest);
	strbuf_addstr(o, "</section>\n");
}

/* the machine view: each case on every machine, latest nightly and stable, and its price per effective PFLOP/s */
static void machine_view(struct strbuf *o, const struct dash *d, const char **keys, size_t nk)
{
	strbuf_addstr(o, "<section class=\"machines\"><h2>Machines</h2>\n<p>Each case on every GPU model it ran on. "
			 COST_DEFINITION ".</p>\n<div class=\"scroll\"><table class=\"machines\"><thead><tr><th>case</th>"
			 "<th>machine</th><th>latest nightly</th><th>latest stable</th><th>USD/h per effective PFLOP/s</th></tr></thead>"
			 "<tbody>\n");
	for (size_t k = 0; k < nk; k++)
		for (size_t mi = 0; mi < d->nm; mi++) {
			const char *mach = d->m[mi].name, *nser, *sser, *ln = latest_of_channel(d, keys[k], mach, "nightly", &nser),
				   *ls = latest_of_channel(d, keys[k], mach, "stable", &sser);
			int has = 0;

			if (mi && !strcmp(d->m[mi - 1].name, mach)) /* one row per machine, whatever its series */
				continue;
			json_t *rec = NULL, *fig = NULL;
			double v = NAN;
			const struct compare_side *side = NULL;

			for (size_t i = 0; i < d->n && !has; i++)
				has = !strcmp(d->runs[i].machine, mach) && json_object_get(d->sides[d->runs[i].side].records, keys[k]);
			if (!has)
				continue;
			strbuf_addstr(o, "<tr data-case=\"");
			esc_html(o, keys[k]);
			strbuf_addstr(o, "\"><td>");
			esc_html(o, keys[k]);
			strbuf_addstr(o, "</td><td class=\"machine\">");
			esc_html(o, mach);
			strbuf_addstr(o, "</td><td>");
			if (*ln) {
				v = value_at(d, keys[k], mach, nser, ln, &rec);
				value_unit(o, v, jstr(rec, "unit"));
				strbuf_addstr(o, " (");
				esc_html(o, ln);
				strbuf_addstr(o, ")");
				for (size_t i = d->n; i-- > 0 && !side;)
					if (!strcmp(d->runs[i].machine, mach) && !strcmp(d->runs[i].date, ln) &&
					    !strcmp(d->runs[i].series, nser) && json_object_get(d->sides[d->runs[i].side].records, keys[k]) == rec)
						side = &d->sides[d->runs[i].side];
			} else {
				strbuf_addstr(o, "<span class=\"failed\">never measured</span>");
			}
			strbuf_addstr(o, "</td><td>");
			if (*ls) {
				json_t *sr;
				double sv = value_at(d, keys[k], mach, sser, ls, &sr);

				value_unit(o, sv, jstr(sr, "unit"));
				strbuf_addstr(o, " (");
				esc_html(o, ls);
				strbuf_addstr(o, ")");
			} else {
				strbuf_addstr(o, "&ndash;");
			}
			strbuf_addstr(o, "</td><td class=\"cost\">");
			if (side && side->pricing && (fig = cost_of_record(side->pricing, rec, v)) &&
			    json_is_number(json_object_get(fig, "usd_per_hour_per_pflops"))) {
				double c = json_number_value(json_object_get(fig, "usd_per_hour_per_pflops"));

				strbuf_addf(o, c >= 100 ? "%.0f" : "%.3g", c);
			}
			else
				strbuf_addstr(o, side && side->pricing ? "not a TFLOP/s metric" : "no pricing");
			json_decref(fig);
			strbuf_addstr(o, "</td></tr>\n");
		}
	strbuf_addstr(o, "</tbody></table></div></section>\n");
}

static const char dash_style[] =
	".dcharts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:1em}"
	"figure.dchart{margin:0;min-width:0}svg.dchart{width:100%;height:auto;display:block}"
	"svg.dchart text{font:12px sans-serif}svg.dchart text.lastlabel{font-weight:bold}"
	"svg.dchart text.flag{font-weight:bold}p.last{margin:.2em 0}p.legend{font-size:.85em;margin:.2em 0}"
	".failed,.failed a,tr.failed td{color:#c0392b}.slower{color:#c0392b}.faster{color:#2a7d2a}"
	"ul.bad,ul.flags{margin:.2em 0;padding-left:1.2em;font-size:.9em}"
	"section.case{border-top:1px solid #ccc;margin-top:1em}section.case h3{overflow-wrap:anywhere}"
	"table.changes td,table.machines td{white-space:normal;text-align:left;overflow-wrap:break-word;vertical-align:top}"
	"table.changes th,table.machines th{text-align:left}"
	"@media (max-width:600px){table.changes,table.changes tbody,table.changes tr,table.changes td,table.machines,"
	"table.machines tbody,table.machines tr,table.machines td{display:block;border:0;padding:0 .2rem}"
	"table.changes thead,table.machines thead{display:none}table.changes tr,table.machines tr{border-bottom:1px solid #ddd;"
	"padding:.3rem 0}table.changes td:empty{display:none}}";

void dashboard_run_facts(char date[11], const char **machine, char **series, const struct compare_side *s)
{
	struct drun r;

	run_date(&r, s);
	memcpy(date, r.date, 11);
	*machine = run_machine(s);
	*series = xstrfmt("%s (%s)", *jstr(s->plan, "channel") ? jstr(s->plan, "channel") : "none",
			  *jstr(s->plan, "name") ? jstr(s->plan, "name") : "unnamed");
}

void dashboard_render(struct strbuf *o, const struct compare_side *sides, size_t n, const struct compare_opts *opts,
		      json_t *verdicts, const char *nav, const char *base)
{
	struct dash d = { sides, NULL, 0, NULL, 0, 0, opts, verdicts, base ? base : "" };
	const char **keys = NULL, **uk;
	size_t nkeys = 0, alloc = 0, nk;

	d.runs = xcalloc(n ? n : 1, sizeof(*d.runs));
	for (size_t i = 0; i < n; i++) {
		struct drun *r = &d.runs[d.n++];
		const char *k;
		json_t *x;

		r->side = i;
		run_date(r, &sides[i]);
		r->machine = run_machine(&sides[i]);
		r->channel = *jstr(sides[i].plan, "channel") ? jstr(sides[i].plan, "channel") : "none";
		r->series = xstrfmt("%s (%s)", r->channel, *jstr(sides[i].plan, "name") ? jstr(sides[i].plan, "name") : "unnamed");
		r->health = compare_run_health(sides[i].status);
		json_object_foreach(sides[i].records, k, x) {
			ALLOC_GROW(keys, nkeys + 1, alloc);
			keys[nkeys++] = k;
		}
	}
	cmp_sides = sides;
	if (d.n)
		qsort(d.runs, d.n, sizeof(*d.runs), cmp_run);
	nk = distinct(&uk, keys, nkeys);
	machines_build(&d);

	html_page_open(o, "bench dashboard");
	strbuf_addf(o, "<style>%s</style>\n<h1>bench dashboard</h1>\n<p>%zu run%s on %zu machine%s. <a href=\"%sindex.html\">Every "
		       "run</a> &middot; <a href=\"#machines\">machines</a>. A nightly is dated by its lock's resolved date, else "
		       "its start (UTC); a series is one stack: a channel and a manifest, never pooled with another; verdicts are "
		       "<code>bench compare</code>'s between consecutive nightly dates of one series on one machine.</p>\n",
		    dash_style, d.n, d.n == 1 ? "" : "s", d.nmachines, d.nmachines == 1 ? "" : "s", d.base);
	if (nav)
		strbuf_addstr(o, nav);
	last_night(o, &d);
	strbuf_addstr(o, "<h2>Cases</h2>\n");
	for (size_t k = 0; k < nk; k++) {
		strbuf_addstr(o, "<section class=\"case\" data-case=\"");
		esc_html(o, uk[k]);
		strbuf_addstr(o, "\"><h3>");
		esc_html(o, uk[k]);
		strbuf_addstr(o, "</h3><div class=\"dcharts\">\n");
		for (size_t mi = 0; mi < d.nm; mi++) {
			int has = 0;

			if (mi && !strcmp(d.m[mi - 1].name, d.m[mi].name)) /* one chart per machine, every series on it */
				continue;
			for (size_t i = 0; i < d.n && !has; i++)
				has = !strcmp(d.runs[i].machine, d.m[mi].name) && json_object_get(sides[d.runs[i].side].records, uk[k]);
			if (has)
				chart(o, &d, uk[k], d.m[mi].name);
		}
		strbuf_addstr(o, "</div></section>\n");
	}
	strbuf_addstr(o, "<div id=\"machines\"></div>");
	machine_view(o, &d, uk, nk);
	strbuf_addstr(o, "</body></html>\n");

	for (size_t i = 0; i < d.nm; i++) {
		for (size_t j = 0; j < d.m[i].ndates; j++)
			json_decref(d.m[i].cmp[j]);
		free(d.m[i].cmp);
		free(d.m[i].dates);
	}
	for (size_t i = 0; i < d.n; i++) {
		json_decref(d.runs[i].health);
		free(d.runs[i].series);
	}
	free(d.m);
	free(d.runs);
	free(keys);
}
