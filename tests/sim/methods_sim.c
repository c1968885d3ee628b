/* SPDX-License-Identifier: Apache-2.0 */
/*
 * methods_sim.c — the in-process driver of docs/results/methods-sim.py: the simulation of issue 32 runs thousands
 * of comparisons, and one `bench compare` process per comparison spends most of its time starting. This reads one
 * JSON request a line on stdin and answers one line on stdout, through the code `bench compare` and `bench
 * reproduce` run (compare_group_runs, compare_build_groups, reproduce_bands), the sides built in memory as
 * compare_load builds them from run directories:
 *   {"runs": [[[samples_ms of case 0], [of case 1], ...], ...], "starts": [0, 3], "threshold": 0.02}
 *     -> compare_build_groups()'s object with the runs' groups from starts (the --vs groups), the first the
 *        baseline; the cases are suite "gemm", case "fp32/<16 + c>x16x16", value 1 / the median time
 *   {"y": [case c's log figure in run r at c * nruns + r], "ncases": K, "nruns": R, "alpha": 0.01,
 *    "max_band": 0.10, "seed": S}
 *     -> {"tol": [reproduce_bands()'s tol per case], "sd_run": the run effect's sd}
 *
 * Ownership: everything read is released per line; nothing outlives one request.
 */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/strbuf.h"
#include "stats/compare.h"
#include "stats/reproduce.h"

static json_t *compare_request(json_t *req)
{
	json_t *runs = json_object_get(req, "runs"), *starts = json_object_get(req, "starts"), *run, *out;
	size_t n = json_array_size(runs), ns = json_array_size(starts), r, ng = 0;
	struct compare_side *sides = xcalloc(n ? n : 1, sizeof(*sides));
	size_t *st = xcalloc(ns ? ns : 1, sizeof(*st));
	struct compare_group *groups;
	struct compare_opts o = { 0.02, 0.01, 2000, 1, NULL, NULL };

	if (json_is_number(json_object_get(req, "threshold")))
		o.threshold = json_number_value(json_object_get(req, "threshold"));
	for (size_t i = 0; i < ns; i++)
		st[i] = (size_t)json_integer_value(json_array_get(starts, i));
	json_array_foreach(runs, r, run) {
		struct compare_side *s = &sides[r];
		json_t *cs;
		size_t c;

		s->path = xstrfmt("run-%zu", r);
		s->label = xstrfmt("run-%zu", r);
		s->run = xstrfmt("run-%zu", r);
		s->records = json_object();
		json_array_foreach(run, c, cs) {
			size_t m = json_array_size(cs), i;
			double *t = xcalloc(m ? m : 1, sizeof(double)), med;
			json_t *v;
			char *name = xstrfmt("fp32/%zux16x16", 16 + c), *key = xstrfmt("gemm %s", name);

			json_array_foreach(cs, i, v)
				t[i] = json_number_value(v);
			/* the recorded value as the runners record it: the metric at the median time */
			for (size_t a = 1; a < m; a++)
				for (size_t b = a; b > 0 && t[b - 1] > t[b]; b--) {
					double x = t[b];

					t[b] = t[b - 1];
					t[b - 1] = x;
				}
			med = m ? t[m / 2] : NAN;
			json_object_set_new(s->records, key,
					    json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:O}", "schema", "bench.result/v1", "suite",
						      "gemm", "case", name, "status", "ok", "unit", "TFLOP/s", "value", 1 / med,
						      "samples_ms", cs));
			free(t);
			free(name);
			free(key);
		}
	}
	groups = compare_group_runs(&ng, sides, n, st, ns);
	out = compare_build_groups(sides, groups, ng, 0, &o);
	compare_groups_free(groups, ng);
	compare_sides_free(sides, n);
	free(st);
	return out;
}

static json_t *reproduce_request(json_t *req)
{
	json_t *yv = json_object_get(req, "y"), *tol = json_array(), *v;
	size_t k = (size_t)json_integer_value(json_object_get(req, "ncases"));
	size_t r = (size_t)json_integer_value(json_object_get(req, "nruns")), i;
	double *y = xcalloc(k * r + 1, sizeof(double));
	struct reproduce_band *b = xcalloc(k + 1, sizeof(*b));

	json_array_foreach(yv, i, v)
		if (i < k * r)
			y[i] = json_is_number(v) ? json_number_value(v) : NAN;
	reproduce_bands(b, y, k, r, json_number_value(json_object_get(req, "alpha")),
			json_number_value(json_object_get(req, "max_band")),
			(uint64_t)json_integer_value(json_object_get(req, "seed")));
	for (i = 0; i < k; i++)
		json_array_append_new(tol, isnan(b[i].tol) ? json_null() : json_real(b[i].tol));
	v = json_pack("{s:o, s:f}", "tol", tol, "sd_run", k ? b[0].sd_run : 0.0);
	free(y);
	free(b);
	return v;
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	/* thousands of requests each allocate and free the resampling's arrays (megabytes): kept in the heap and not
	 * given back between requests, their pages are faulted in once, not once a request (a page fault costs about
	 * 10 us on the CI machine's virtual CPUs: t0835's simulation 25-30% less CPU, the answers byte for byte alike) */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	while ((len = getline(&line, &cap, stdin)) > 0) {
		json_error_t err;
		json_t *req = json_loadb(line, (size_t)len, 0, &err), *out;
		char *s;

		if (!req) {
			fprintf(stderr, "methods-sim: line not JSON: %s\n", err.text);
			free(line);
			return 2;
		}
		out = json_object_get(req, "y") ? reproduce_request(req) : compare_request(req);
		s = json_dumps(out, JSON_COMPACT);
		puts(s ? s : "null");
		fflush(stdout);
		free(s);
		json_decref(out);
		json_decref(req);
	}
	free(line);
	return 0;
}
