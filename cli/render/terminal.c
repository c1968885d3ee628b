/* SPDX-License-Identifier: Apache-2.0 */
/* terminal.c — spread cells and nccl-tests tables for the terminal (terminal.h). */
#include "terminal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "manifest/suite.h"

json_t *terminal_records_of_members(json_t *members)
{
	json_t *out = json_array();

	for (size_t i = 0; suite_registry[i]; i++) {
		char *rel = xstrfmt("results/%s.jsonl", suite_registry[i]->name);
		const char *p = json_string_value(json_object_get(members, rel)), *nl;

		free(rel);
		for (; p && *p; p = nl ? nl + 1 : NULL) {
			json_t *rec;

			nl = strchr(p, '\n');
			rec = json_loadb(p, nl ? (size_t)(nl - p) : strlen(p), 0, NULL);
			if (json_is_object(rec))
				json_array_append(out, rec);
			json_decref(rec);
		}
	}
	return out;
}

json_t *terminal_record_index(json_t *records)
{
	json_t *idx = json_object(), *rec;
	size_t i;

	json_array_foreach(records, i, rec) {
		const char *s = json_string_value(json_object_get(rec, "suite")), *c = json_string_value(json_object_get(rec, "case"));
		char *k;

		if (!s || !c)
			continue;
		k = xstrfmt("%s/%s", s, c);
		json_object_set(idx, k, rec);
		free(k);
	}
	return idx;
}

json_t *terminal_record_of(json_t *index, const char *suite, const char *cs)
{
	char *k = xstrfmt("%s/%s", suite ? suite : "", cs ? cs : "");
	json_t *rec = json_object_get(index, k);

	free(k);
	return rec;
}

void terminal_spread(char *n, size_t nlen, char *cv, size_t cvlen, json_t *rec)
{
	json_t *st = json_object_get(rec, "stats");
	json_t *jn = json_object_get(st, "n"), *jcv = json_object_get(st, "cv");

	if (json_is_number(jn))
		snprintf(n, nlen, "%.0f", json_number_value(jn));
	else
		snprintf(n, nlen, "-");
	if (json_is_number(jcv) && isfinite(json_number_value(jcv)))
		snprintf(cv, cvlen, "%.1f%%", 100.0 * json_number_value(jcv));
	else
		snprintf(cv, cvlen, "-");
}

/* ---- collectives, nccl-tests' layout ----------------------------------------------------------------------------- */

struct coll_row {
	double bytes;
	const char *dtype;
	json_t *rec[2]; /* out-of-place, in-place */
};

static int cmp_row(const void *a, const void *b)
{
	const struct coll_row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return strcmp(x->dtype, y->dtype);
}

static json_t *extra_num(json_t *rec, const char *key)
{
	json_t *v = json_object_get(json_object_get(rec, "extra"), key);

	return json_is_number(v) ? v : NULL;
}

int terminal_coll_median(double *time_us, double *algbw, double *busbw, json_t *rec)
{
	json_t *v = json_object_get(rec, "value"), *bytes = extra_num(rec, "bytes"), *f = extra_num(rec, "bus_factor");
	json_t *alg = extra_num(rec, "algbw_gbps"), *busm = extra_num(rec, "busbw_mean_gbps");
	const char *st = json_string_value(json_object_get(rec, "status"));
	double factor = 1;

	*time_us = *algbw = *busbw = NAN;
	if (!bytes) /* older records: the size only among the parameters */
		bytes = json_object_get(json_object_get(rec, "params"), "bytes");
	if (!st || strcmp(st, "ok") || !json_is_number(v) || !(json_number_value(v) > 0) || !json_is_number(bytes))
		return -1;
	if (f && json_number_value(f) > 0)
		factor = json_number_value(f);
	else if (alg && busm && json_number_value(alg) > 0) /* older records: the factor the runner applied */
		factor = json_number_value(busm) / json_number_value(alg);
	*busbw = json_number_value(v);
	*algbw = *busbw / factor;
	*time_us = json_number_value(bytes) / (*algbw * 1e3); /* B / (GB/s) = ns; /1e3: us */
	return 0;
}

/* The four figures of one placement: time (us), algbw, busbw (GB/s), #wrong, all of the median sample (the
 * headline's statistic, terminal_coll_median()); dashes where it was not measured. */
static void coll_cells(FILE *fp, json_t *rec)
{
	json_t *w = json_object_get(json_object_get(rec, "extra"), "wrong");
	double t, alg, bus;

	if (!rec || terminal_coll_median(&t, &alg, &bus, rec) < 0) {
		/* a case that did not measure shows no figure, whatever its record holds; its wrong count it does */
		fprintf(fp, "  %8s %7s %7s ", "-", "-", "-");
		if (json_is_integer(w))
			fprintf(fp, "%6lld", (long long)json_integer_value(w));
		else
			fprintf(fp, "%6s", "-");
		return;
	}
	fprintf(fp, "  %8.2f %7.2f %7.2f", t, alg, bus);
	if (json_is_integer(w))
		fprintf(fp, " %6lld", (long long)json_integer_value(w));
	else
		fprintf(fp, " %6s", "N/A"); /* no check: nccl-tests' N/A */
}

void terminal_print_coll(FILE *fp, json_t *records)
{
	json_t *groups = json_object(), *rec, *g;
	json_t *order = json_array();
	const char *label;
	size_t i;

	/* groups by op and rank layout, in the order the records came */
	json_array_foreach(records, i, rec) {
		json_t *p = json_object_get(rec, "params");
		char *k;

		if (strcmp(json_string_value(json_object_get(rec, "suite")) ? json_string_value(json_object_get(rec, "suite")) : "",
			   "collectives") || !json_is_string(json_object_get(p, "op")) || !extra_num(rec, "bytes") ||
		    !strcmp(json_string_value(json_object_get(p, "op")), "p2p")) /* pairs: all is a matrix, not a sweep */
			continue;
		if (json_is_integer(json_object_get(p, "group_size"))) /* group_sizes: one table per group */
			k = xstrfmt("%s, group %lld of %lld ranks", json_string_value(json_object_get(p, "op")),
				    (long long)json_integer_value(json_object_get(p, "group")),
				    (long long)json_integer_value(json_object_get(p, "group_size")));
		else
			k = xstrfmt("%s, %lld rank%s on %lld node%s", json_string_value(json_object_get(p, "op")),
			    (long long)json_integer_value(json_object_get(p, "ranks")),
			    json_integer_value(json_object_get(p, "ranks")) == 1 ? "" : "s",
			    (long long)json_integer_value(json_object_get(p, "nodes")),
			    json_integer_value(json_object_get(p, "nodes")) == 1 ? "" : "s");
		if (!json_object_get(groups, k)) {
			json_object_set_new(groups, k, json_array());
			json_array_append_new(order, json_string(k));
		}
		json_array_append(json_object_get(groups, k), rec);
		free(k);
	}
	if (json_array_size(order))
		fprintf(fp, "\ncollectives in nccl-tests' layout, of the median sample like every figure above (time: median "
			    "per iteration; algbw = size / time; busbw = algbw x the op's bus factor)\n");
	json_array_foreach(order, i, g) {
		json_t *recs = json_object_get(groups, json_string_value(g));
		struct coll_row *rows = xcalloc(json_array_size(recs), sizeof(*rows));
		size_t nrows = 0, j, r;

		label = json_string_value(g);
		json_array_foreach(recs, j, rec) {
			json_t *p = json_object_get(rec, "params");
			double bytes = json_number_value(extra_num(rec, "bytes"));
			const char *dt = json_string_value(json_object_get(p, "dtype")) ? json_string_value(json_object_get(p, "dtype")) : "?";
			const char *pl = json_string_value(json_object_get(p, "placement"));
			int in = pl ? !strcmp(pl, "in-place") : json_is_true(json_object_get(json_object_get(rec, "extra"), "in_place"));

			for (r = 0; r < nrows; r++)
				if (rows[r].bytes == bytes && !strcmp(rows[r].dtype, dt))
					break;
			if (r == nrows) {
				rows[nrows].bytes = bytes;
				rows[nrows].dtype = dt;
				nrows++;
			}
			rows[r].rec[in] = rec; /* the last record of a case wins, as with --resume */
		}
		qsort(rows, nrows, sizeof(*rows), cmp_row);
		fprintf(fp, "\n# %s\n", label);
		/* each placement's four columns are 33 characters wide: its name over their middle */
		fprintf(fp, "# %10s  %12s  %8s%-33s%-33s\n", "", "", "", "           out-of-place", "             in-place");
		fprintf(fp, "# %10s  %12s  %8s  %8s %7s %7s %6s  %8s %7s %7s %6s\n", "size", "count", "type", "time", "algbw",
			"busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
		fprintf(fp, "# %10s  %12s  %8s  %8s %7s %7s %6s  %8s %7s %7s %6s\n", "(B)", "(elements)", "", "(us)", "(GB/s)",
			"(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
		for (r = 0; r < nrows; r++) {
			json_t *any = rows[r].rec[0] ? rows[r].rec[0] : rows[r].rec[1], *cnt = extra_num(any, "count");

			fprintf(fp, "  %10.0f  ", rows[r].bytes);
			if (cnt)
				fprintf(fp, "%12.0f", json_number_value(cnt));
			else
				fprintf(fp, "%12s", "-");
			fprintf(fp, "  %8s", rows[r].dtype);
			coll_cells(fp, rows[r].rec[0]);
			coll_cells(fp, rows[r].rec[1]);
			fprintf(fp, "\n");
		}
		free(rows);
	}
	json_decref(order);
	json_decref(groups);
}
