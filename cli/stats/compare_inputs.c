/* SPDX-License-Identifier: Apache-2.0 */
/* compare_inputs.c — compare's sides, noise pair, planned level and findings (compare_inputs.h). */
#include "compare_inputs.h"

#include <stdlib.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "stats/findings.h"
#include "stats/sequential.h"

int compare_inputs_split(struct compare_inputs *out, char **args, size_t n, const char *vs)
{
	out->paths = xcalloc(n + 1, sizeof(*out->paths));
	out->starts = xcalloc(n + 1, sizeof(*out->starts));
	out->owned = xcalloc(n + 1, sizeof(*out->owned));
	for (size_t i = 0; i < n; i++) {
		if (args[i] != vs) {
			const char *p = compare_input_path(&out->owned[out->nowned], args[i], args, n);

			if (out->owned[out->nowned])
				out->nowned++;
			if (p) /* NULL: an envelope given beside its bundle (a glob), not a second input */
				out->paths[out->n++] = (char *)p;
			continue;
		}
		if (out->n == (out->nstarts ? out->starts[out->nstarts - 1] : 0))
			return bench_error_set(BENCH_E_USAGE, "--vs needs runs before and after it");
		if (!out->nstarts)
			out->nstarts = 1; /* starts[0] = 0 */
		out->starts[out->nstarts++] = out->n;
	}
	if (out->nstarts && out->starts[out->nstarts - 1] == out->n)
		return bench_error_set(BENCH_E_USAGE, "--vs needs runs before and after it");
	return 0;
}

void compare_inputs_release(struct compare_inputs *in)
{
	while (in->nowned)
		free(in->owned[--in->nowned]);
	free(in->owned);
	free(in->paths);
	free(in->starts);
	*in = (struct compare_inputs)COMPARE_INPUTS_INIT;
}

int compare_noise_load(json_t **out, char *const *paths, size_t n, const struct compare_opts *co)
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

int compare_plan_level(struct compare_opts *co, const struct compare_side *sides, size_t n, int keep_threshold)
{
	json_t **st = xcalloc(n + 1, sizeof(*st));
	double level = co->alpha, thr = co->threshold;
	int found;

	for (size_t i = 0; i < n; i++)
		st[i] = sides[i].status;
	sequential_plan_of(&found, &level, &thr, st, n);
	free(st);
	if (found) {
		co->alpha = level;
		if (!keep_threshold)
			co->threshold = thr;
	}
	return found;
}

json_t *compare_side_findings(const struct compare_side *sides, const struct compare_group *groups, size_t ng)
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
