/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_compare.c — bench compare A B [C...]: stacks side by side with honest statistics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "stats/compare.h"
#include "stats/compare_inputs.h"
#include "render/compare_text.h"
#include "render/html.h"

static const struct opt_cmd cmd = { "compare", "[options] RUN_OR_BUNDLE... [--vs RUN_OR_BUNDLE...]...",
				    "Match the cases of several sides (run directories or bundles; bundles are verified first) "
				    "by case key and compare every headline. A side is one run, the runs of one stack of an "
				    "interleaved `bench run --rounds` (grouped by themselves), or the runs between --vs "
				    "separators. Per case: the ratio of the medians of run medians to the baseline's, its 95% "
				    "hierarchical-bootstrap confidence interval, Welch's t test across runs with the p-value "
				    "adjusted over every test (step-down min-P: a run's machine state is shared by its cases), and a verdict: faster / "
				    "slower when the adjusted p < alpha and the ratio lies beyond 1 +/- threshold; same when the whole "
				    "interval lies within 1 +/- threshold; otherwise inconclusive, with the reason (always below 3 "
				    "runs per side); not comparable. Beside the numbers: cases on one side "
				    "only, too few samples, differences in method (parameters) and in stack and environment; each "
				    "side's price and, per case, the priced sides cheapest first and their energy per timed call. "
				    "Exit 9 with --fail-on-regression when a case is significantly slower." };

/* A side of several runs: "A1 A2 A3 --vs B1 B2 B3". The separators are swapped for a marker before the options
 * are parsed (opt_parse keeps the positional arguments in order) and give the groups' first indices after. */
static char vs_marker[] = "\001--vs";

static const char range_error[] = "--threshold in [0, 1), --alpha in (0, 1), --baseline in 1..N";

/* r in format: JSON, a self-contained HTML page, or text, markdown or CSV (in colour on a terminal, never with
 * NO_COLOR set: https://no-color.org) */
static void compare_print(json_t *r, const char *fmt)
{
	if (!strcmp(fmt, "json")) {
		cli_print_json(json_incref(r));
	} else if (!strcmp(fmt, "html")) {
		struct strbuf h = STRBUF_INIT;

		html_render_compare(&h, r);
		fwrite(h.buf, 1, h.len, stdout);
		strbuf_release(&h);
	} else {
		compare_text_print(stdout, r, !strcmp(fmt, "markdown") ? COMPARE_TEXT_MARKDOWN
					      : !strcmp(fmt, "csv")    ? COMPARE_TEXT_CSV
								       : COMPARE_TEXT_PLAIN,
				   isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
	}
}

int cmd_compare(int argc, char **argv)
{
	struct opt_strlist keys = OPT_STRLIST_INIT, noise = OPT_STRLIST_INIT;
	struct compare_opts co = { 0.02, 0.01, 2000, 0, NULL, NULL };
	struct compare_inputs in = COMPARE_INPUTS_INIT;
	struct compare_side *sides = NULL;
	struct compare_group *groups = NULL;
	const char *fmt = "text", *thr = NULL, *alpha = NULL, *base = NULL;
	int fail_reg = 0, allow = 0, n, status = 0, err = 0;
	const struct opt opts[] = {
		OPT_STRING('b', "baseline", &base, "N", "which side is the baseline (1-based; default 1)"),
		OPT_STRING('t', "threshold", &thr, "X", "relative change that counts (default 0.02)"),
		OPT_STRING('a', "alpha", &alpha, "P", "significance level of the adjusted p-values (default 0.01; the runs of one bench run --rounds auto: "
			   "its plan's level)"),
		OPT_LIST(0, "noise-from", &noise, "RUN,RUN", "an A/A pair of one stack: its run-to-run spread is each suite's threshold"),
		OPT_STRING('f', "format", &fmt, "FMT", "text, markdown, json, csv or html"),
		OPT_BOOL(0, "fail-on-regression", &fail_reg, "exit 9 when a case is significantly slower"),
		OPT_BOOL(0, "allow-unverified", &allow, "accept bundles that do not verify (marked in every output)"),
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify bundles with this key (repeatable)"),
		OPT_END(),
	};
	size_t ng = 0;
	json_t *r = NULL;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--vs"))
			argv[i] = vs_marker;
	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		status = n < 0 ? 2 : 0;
		goto cleanup;
	}
	if ((err = compare_inputs_split(&in, argv + 1, (size_t)n, vs_marker)) < 0 || in.n < 2) {
		status = cli_usage_error(cmd.name, cmd.synopsis, err < 0 ? bench_error_last() : "give at least two runs or bundles");
		goto cleanup;
	}
	if ((thr && ((co.threshold = strtod(thr, NULL)) < 0 || co.threshold >= 1)) ||
	    (alpha && ((co.alpha = strtod(alpha, NULL)) <= 0 || co.alpha >= 1)) || (base && atoi(base) < 1)) {
		status = cli_usage_error(cmd.name, cmd.synopsis, range_error);
		goto cleanup;
	}
	if (strcmp(fmt, "text") && strcmp(fmt, "markdown") && strcmp(fmt, "json") && strcmp(fmt, "csv") && strcmp(fmt, "html")) {
		status = cli_usage_error(cmd.name, cmd.synopsis, "--format is text, markdown, json, csv or html");
		goto cleanup;
	}
	co.keys = keys.v;
	co.allow_unverified = allow;
	if ((noise.n && (err = compare_noise_load(&co.noise, noise.v, noise.n, &co)) < 0) ||
	    (err = compare_load_all(&sides, in.paths, in.n, &co)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	/* the runs of one `bench run --rounds auto`: the level (and threshold) its looks were planned at */
	if (!alpha && compare_plan_level(&co, sides, in.n, thr != NULL))
		fprintf(stderr, "bench: alpha %.3g%s: the plan of these runs' bench run --rounds auto (--alpha overrides)\n",
			co.alpha, thr ? "" : " and its threshold");
	groups = compare_group_runs(&ng, sides, in.n, in.starts, in.nstarts);
	if (ng < 2 || (base && (size_t)atoi(base) > ng)) {
		status = cli_usage_error(cmd.name, cmd.synopsis, ng >= 2 ? range_error : "the runs form a single side (one "
				       "interleave group and stack); give another side, or split them with --vs");
		goto cleanup;
	}
	r = compare_build_groups(sides, groups, ng, base ? (size_t)atoi(base) - 1 : 0, &co);
	json_object_set_new(r, "findings", compare_side_findings(sides, groups, ng));
	compare_print(r, fmt);
	if (fail_reg && json_integer_value(json_object_get(json_object_get(r, "counts"), "slower")) > 0) {
		fprintf(stderr, "bench: error: %lld case(s) significantly slower than the baseline\n",
			(long long)json_integer_value(json_object_get(json_object_get(r, "counts"), "slower")));
		status = 9;
	}
cleanup:
	json_decref(r);
	json_decref(co.noise);
	compare_groups_free(groups, ng);
	compare_sides_free(sides, in.n);
	compare_inputs_release(&in);
	opt_strlist_release(&keys);
	opt_strlist_release(&noise);
	return status;
}
