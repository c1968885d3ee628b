/* cmd_compare.c — bench compare A B [C...]: stacks side by side with honest statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "report/compare.h"
#include "report/html.h"

static const struct opt_cmd cmd = { "compare", "[options] RUN_OR_BUNDLE RUN_OR_BUNDLE...",
				    "Match the cases of several runs (run directories or bundles; bundles are verified first) "
				    "by case key and compare every headline: medians, ratio to the baseline, its 95% bootstrap "
				    "confidence interval, the Mann-Whitney U p-value, and a verdict (faster / slower / same / "
				    "not comparable). Beside the numbers: cases on one side only, differences in method "
				    "(parameters) and in stack and environment. Exit 9 with --fail-on-regression when a case "
				    "is significantly slower." };

static const char *num(char *buf, size_t len, json_t *v, const char *fmt)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, fmt, json_number_value(v));
	return buf;
}

/* colour only on a terminal, and never with NO_COLOR set (https://no-color.org) */
static int colour;

static const char *verdict_colour(const char *v)
{
	if (!colour || !v)
		return "";
	return !strcmp(v, "slower") ? "\033[1;31m" : !strcmp(v, "faster") ? "\033[1;32m" : !strcmp(v, "same") ? "" : "\033[2m";
}

/* one CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180) */
static void csv_field(const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void render_text(json_t *r, int markdown, int csv)
{
	json_t *c, *o;
	size_t i, k;
	char b1[32], b2[32], b3[32], b4[32], b5[32];

	if (csv)
		printf("suite,case,unit,baseline,other,baseline_value,other_value,ratio,ci_lo,ci_hi,p,verdict,why\n");
	else if (markdown)
		printf("Baseline: **%s**. %s (threshold %.0f%%, alpha %g).\n\n| suite | case | baseline | other | value | ratio | 95%% CI | p | verdict |\n|---|---|---|---|---|---|---|---|---|\n",
		       json_string_value(json_object_get(r, "baseline")), json_string_value(json_object_get(r, "rule")),
		       100 * json_number_value(json_object_get(r, "threshold")), json_number_value(json_object_get(r, "alpha")));
	else
		printf("baseline %s; verdicts: %s (threshold %.0f%%, alpha %g)\n\n%-12s %-46s %12s %12s %7s %17s %9s  %s\n",
		       json_string_value(json_object_get(r, "baseline")), json_string_value(json_object_get(r, "rule")),
		       100 * json_number_value(json_object_get(r, "threshold")), json_number_value(json_object_get(r, "alpha")),
		       "suite", "case", "baseline", "other", "ratio", "95% CI", "p", "verdict");
	json_array_foreach(json_object_get(r, "cases"), i, c) {
		json_array_foreach(json_object_get(c, "others"), k, o) {
			json_t *ci = json_object_get(o, "ci95");
			const char *suite = json_string_value(json_object_get(c, "suite")), *cs = json_string_value(json_object_get(c, "case"));
			const char *why = json_string_value(json_object_get(o, "why"));
			char cib[48] = "-";

			if (json_is_array(ci))
				snprintf(cib, sizeof(cib), "[%.3f, %.3f]", json_number_value(json_array_get(ci, 0)),
					 json_number_value(json_array_get(ci, 1)));
			if (csv) {
				printf("%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,", suite, cs,
				       json_string_value(json_object_get(c, "unit")) ? json_string_value(json_object_get(c, "unit")) : "",
				       json_string_value(json_object_get(r, "baseline")), json_string_value(json_object_get(o, "label")),
				       num(b1, sizeof(b1), json_object_get(json_object_get(c, "baseline"), "value"), "%.6g"),
				       num(b2, sizeof(b2), json_object_get(o, "value"), "%.6g"), num(b3, sizeof(b3), json_object_get(o, "ratio"), "%.6f"),
				       json_is_array(ci) ? num(b4, sizeof(b4), json_array_get(ci, 0), "%.6f") : "",
				       json_is_array(ci) ? num(b5, sizeof(b5), json_array_get(ci, 1), "%.6f") : "",
				       num(cib, sizeof(cib), json_object_get(o, "p"), "%.3g"), json_string_value(json_object_get(o, "verdict")));
				csv_field(json_string_value(json_object_get(o, "why")));
				putchar('\n');
			} else if (markdown)
				printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n", suite, cs,
				       num(b1, sizeof(b1), json_object_get(json_object_get(c, "baseline"), "value"), "%.4g"),
				       json_string_value(json_object_get(o, "label")), num(b2, sizeof(b2), json_object_get(o, "value"), "%.4g"),
				       num(b3, sizeof(b3), json_object_get(o, "ratio"), "%.3f"), cib,
				       num(b4, sizeof(b4), json_object_get(o, "p"), "%.2g"), json_string_value(json_object_get(o, "verdict")),
				       why ? ": " : "", why ? why : "");
			else
				printf("%-12s %-46s %12s %12s %7s %17s %9s  %s%s%s%s%s\n", suite, cs,
				       num(b1, sizeof(b1), json_object_get(json_object_get(c, "baseline"), "value"), "%.4g"),
				       num(b2, sizeof(b2), json_object_get(o, "value"), "%.4g"), num(b3, sizeof(b3), json_object_get(o, "ratio"), "%.3f"),
				       cib, num(b4, sizeof(b4), json_object_get(o, "p"), "%.2g"), verdict_colour(json_string_value(json_object_get(o, "verdict"))),
				       json_string_value(json_object_get(o, "verdict")), *verdict_colour(json_string_value(json_object_get(o, "verdict"))) ? "\033[0m" : "",
				       why ? ": " : "", why ? why : "");
		}
	}
	if (csv)
		return;
	/* every case that did not measure, with its reason (failed in red on a terminal) */
	json_array_foreach(json_object_get(r, "not_ok"), i, c) {
		const char *st = json_string_value(json_object_get(c, "status"));
		int red = colour && st && strcmp(st, "skipped");

		printf("%s%s%s%s in %s%s: %s %s: %s\n", i == 0 ? "\n" : "", markdown ? "- " : "", red ? "\033[1;31m" : "", st,
		       json_string_value(json_object_get(c, "label")), red ? "\033[0m" : "", json_string_value(json_object_get(c, "suite")),
		       json_string_value(json_object_get(c, "case")), json_string_value(json_object_get(c, "error")));
	}
	json_array_foreach(json_object_get(r, "only_in_one"), i, c)
		printf("%sonly in %s: %s\n", i == 0 ? "\n" : "", json_string_value(json_object_get(c, "only_in")),
		       json_string_value(json_object_get(c, "case")));
	if (json_array_size(json_object_get(r, "method_differs")))
		printf("\nWARNING: the method differs for %zu case(s): their parameters are not the same; those ratios compare "
		       "different measurements (first: %s)\n", json_array_size(json_object_get(r, "method_differs")),
		       json_string_value(json_object_get(json_array_get(json_object_get(r, "method_differs"), 0), "case")));
	json_array_foreach(json_object_get(r, "stack_differs"), i, c) {
		char *a = json_dumps(json_object_get(c, "baseline"), JSON_ENCODE_ANY), *b = json_dumps(json_object_get(c, "value"), JSON_ENCODE_ANY);

		printf("%sstack/environment: %-40s %s -> %s (%s)\n", i == 0 ? "\n" : "", json_string_value(json_object_get(c, "what")),
		       a, b, json_string_value(json_object_get(c, "label")));
		free(a);
		free(b);
	}
	json_array_foreach(json_object_get(r, "sides"), i, c)
		if (!json_is_true(json_object_get(c, "verified")))
			printf("\nUNVERIFIED: %s (%s) is a run directory or a bundle that did not verify\n",
			       json_string_value(json_object_get(c, "label")), json_string_value(json_object_get(c, "path")));
}

int cmd_compare(int argc, char **argv)
{
	struct opt_strlist keys = OPT_STRLIST_INIT;
	struct compare_opts co = { 0.02, 0.01, 2000, 0, NULL };
	struct compare_side *sides = NULL;
	const char *fmt = "text", *thr = NULL, *alpha = NULL, *base = NULL;
	int fail_reg = 0, allow = 0, n, status = 0, err;
	const struct opt opts[] = {
		OPT_STRING('b', "baseline", &base, "N", "which input is the baseline (1-based; default 1)"),
		OPT_STRING('t', "threshold", &thr, "X", "relative change that counts (default 0.02)"),
		OPT_STRING('a', "alpha", &alpha, "P", "Mann-Whitney significance level (default 0.01)"),
		OPT_STRING('f', "format", &fmt, "FMT", "text, markdown, json, csv or html"),
		OPT_BOOL(0, "fail-on-regression", &fail_reg, "exit 9 when a case is significantly slower"),
		OPT_BOOL(0, "allow-unverified", &allow, "accept bundles that do not verify (marked in every output)"),
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify bundles with this key (repeatable)"),
		OPT_END(),
	};
	size_t b = 0;
	json_t *r = NULL;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	if (n < 2)
		return cli_usage_error(cmd.name, cmd.synopsis, "give at least two runs or bundles");
	if ((thr && ((co.threshold = strtod(thr, NULL)) < 0 || co.threshold >= 1)) ||
	    (alpha && ((co.alpha = strtod(alpha, NULL)) <= 0 || co.alpha >= 1)) ||
	    (base && (atoi(base) < 1 || atoi(base) > n)))
		return cli_usage_error(cmd.name, cmd.synopsis, "--threshold in [0, 1), --alpha in (0, 1), --baseline in 1..N");
	if (strcmp(fmt, "text") && strcmp(fmt, "markdown") && strcmp(fmt, "json") && strcmp(fmt, "csv") && strcmp(fmt, "html"))
		return cli_usage_error(cmd.name, cmd.synopsis, "--format is text, markdown, json, csv or html");
	if (base)
		b = (size_t)atoi(base) - 1;
	co.keys = keys.v;
	co.allow_unverified = allow;
	if ((err = compare_load_all(&sides, argv + 1, (size_t)n, &co)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	r = compare_build(sides, (size_t)n, b, &co);
	colour = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	if (!strcmp(fmt, "json")) {
		cli_print_json(json_incref(r));
	} else if (!strcmp(fmt, "html")) {
		struct strbuf h = STRBUF_INIT;

		html_render_compare(&h, r);
		fwrite(h.buf, 1, h.len, stdout);
		strbuf_release(&h);
	} else
		render_text(r, !strcmp(fmt, "markdown"), !strcmp(fmt, "csv"));
	if (fail_reg && json_integer_value(json_object_get(json_object_get(r, "counts"), "slower")) > 0) {
		fprintf(stderr, "bench: error: %lld case(s) significantly slower than the baseline\n",
			(long long)json_integer_value(json_object_get(json_object_get(r, "counts"), "slower")));
		status = 9;
	}
cleanup:
	json_decref(r);
	compare_sides_free(sides, (size_t)n);
	opt_strlist_release(&keys);
	return status;
}
