/* SPDX-License-Identifier: Apache-2.0 */
/* findings.c — the rules of docs/findings.md over result records. Each rule reads only what the records (and the
 * summary's percent of peak) carry, so a finding says exactly which numbers triggered it. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/strbuf.h"
#include "findings.h"

const struct finding_rule finding_rules[] = {
	{ "linear-slower-than-matmul", "F.linear more than 5% slower than torch.matmul on the same shape" },
	{ "heuristic-leaves-gain", "the tuned GEMM beats the library's heuristic choice by more than 3%, its interval above 0" },
	{ "fp8-not-faster", "an fp8 case not at least 1.3x its bf16 twin" },
	{ "backward-slow", "attention or SSM backward below 0.5x its forward's TFLOP/s" },
	{ "throttled", "power or thermal throttling during the timed window" },
	{ "busbw-dip", "bus bandwidth more than 10% lower than at the next smaller size" },
	{ "loaded-not-pinned", "a library loaded at run time that is not the pinned one" },
	{ "below-expected", "a headline below the documented fraction of the datasheet peak" },
	{ "scaling-poor", "multi-GPU training below 85% scaling efficiency" },
	{ "env-not-effective", "a variable the stack set that NCCL/RCCL's own log shows did not take effect" },
	{ NULL, NULL },
};

/* Thresholds, documented in docs/findings.md. */
#define LINEAR_GAP 0.05
#define HEURISTIC_GAP_PCT 3.0
#define FP8_MIN_SPEEDUP 1.3
#define BWD_MIN_RATIO 0.5
#define BUSBW_DIP 0.10
#define SCALING_MIN 0.85

static const struct {
	const char *suite;
	double pct; /* percent of the datasheet peak below which a headline is unexpected */
} expected[] = {
	{ "gemm", 50.0 }, { "membw", 70.0 }, { "attention", 30.0 }, { "training", 30.0 }, { NULL, 0 },
};

static const char *const throttles[] = { "sw_power_cap", "hw_slowdown", "sw_thermal", "hw_thermal", "hw_power_brake",
					 NULL };

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static const char *pstr(const json_t *rec, const char *k)
{
	return str(json_object_get(rec, "params"), k);
}

static json_int_t pint(const json_t *rec, const char *k)
{
	return json_integer_value(json_object_get(json_object_get(rec, "params"), k));
}

static int is_ok(const json_t *rec, const char *suite)
{
	return !strcmp(str(rec, "status"), "ok") && !strcmp(str(rec, "suite"), suite) &&
	       json_is_number(json_object_get(rec, "value"));
}

static double value(const json_t *rec)
{
	return json_number_value(json_object_get(rec, "value"));
}

static double xnum(const json_t *rec, const char *k)
{
	const json_t *v = json_object_get(json_object_get(rec, "extra"), k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The case key without its last segment ("sdpa/bf16/causal/4x4096x16x128" of ".../fwd"). */
static int same_prefix(const json_t *a, const json_t *b)
{
	const char *ka = str(a, "case"), *kb = str(b, "case"), *ea = strrchr(ka, '/'), *eb = strrchr(kb, '/');

	return ea && eb && ea - ka == eb - kb && !strncmp(ka, kb, (size_t)(ea - ka));
}

static const char *last_segment(const json_t *rec)
{
	const char *k = str(rec, "case"), *e = strrchr(k, '/');

	return e ? e + 1 : k;
}

static void add(json_t *out, const char *id, const json_t *rec, json_t *numbers, const char *fmt, ...)
	BENCH_PRINTF(5, 6);

static void add(json_t *out, const char *id, const json_t *rec, json_t *numbers, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:o}", "id", id, "suite", str(rec, "suite"), "case",
					     str(rec, "case"), "message", sb.buf, "numbers", numbers));
	strbuf_release(&sb);
}

static int same_gemm_shape(const json_t *a, const json_t *b)
{
	return !strcmp(pstr(a, "layout"), pstr(b, "layout")) && pint(a, "m") == pint(b, "m") &&
	       pint(a, "n") == pint(b, "n") && pint(a, "k") == pint(b, "k");
}

static void rule_linear(json_t *out, json_t *recs)
{
	size_t i, j;
	json_t *l, *mm;

	json_array_foreach(recs, i, l) {
		if (!is_ok(l, "gemm") || strcmp(pstr(l, "backend"), "torch-linear"))
			continue;
		json_array_foreach(recs, j, mm) {
			double gap;

			if (!is_ok(mm, "gemm") || strcmp(pstr(mm, "backend"), "torch-matmul") ||
			    strcmp(pstr(mm, "dtype"), pstr(l, "dtype")) || strcmp(pstr(mm, "algo"), pstr(l, "algo")) ||
			    !same_gemm_shape(l, mm) || value(l) <= 0)
				continue;
			gap = value(mm) / value(l) - 1.0;
			if (gap > LINEAR_GAP)
				add(out, "linear-slower-than-matmul", l,
				    json_pack("{s:f, s:f, s:f}", "linear_tflops", value(l), "matmul_tflops", value(mm), "gap_pct",
					      100.0 * gap),
				    "F.linear is %.1f%% slower than torch.matmul on the same shape (%.1f vs %.1f TFLOP/s): one of them "
				    "reaches a slower BLAS path", 100.0 * gap, value(l), value(mm));
			break;
		}
	}
}

/* A record with extra.tune.confirm (the winner confirmed against the heuristic's first in paired blocks): the paired
 * gain above the threshold and its 95% interval above 0; nothing when the confirmation kept the heuristic's first
 * or the interval holds 0. An older record (no confirm): heuristic_gap_pct above the threshold. */
static void rule_heuristic(json_t *out, json_t *recs)
{
	size_t i;
	json_t *r;

	json_array_foreach(recs, i, r) {
		json_t *conf = json_object_get(json_object_get(json_object_get(r, "extra"), "tune"), "confirm");
		json_t *ci = json_object_get(conf, "gain_ci95_pct");
		double gap = xnum(r, "heuristic_gap_pct"), gain, lo, hi;

		if (!is_ok(r, "gemm") || strncmp(pstr(r, "algo"), "tune", 4))
			continue;
		if (!json_is_object(conf)) {
			if (gap > HEURISTIC_GAP_PCT)
				add(out, "heuristic-leaves-gain", r,
				    json_pack("{s:f, s:f}", "heuristic_gap_pct", gap, "tuned_tflops", value(r)),
				    "the best of the library's candidates is %.1f%% faster than its heuristic's first choice", gap);
			continue;
		}
		if (!json_is_true(json_object_get(conf, "done")) || json_array_size(ci) != 2 ||
		    !json_is_number(json_object_get(conf, "gain_pct")))
			continue;
		gain = json_number_value(json_object_get(conf, "gain_pct"));
		lo = json_number_value(json_array_get(ci, 0));
		hi = json_number_value(json_array_get(ci, 1));
		if (gain > HEURISTIC_GAP_PCT && lo > 0)
			add(out, "heuristic-leaves-gain", r,
			    json_pack("{s:f, s:f, s:f, s:f, s:f}", "gain_pct", gain, "gain_ci95_lo_pct", lo, "gain_ci95_hi_pct",
				      hi, "heuristic_gap_pct", gap, "tuned_tflops", value(r)),
			    "the best of the library's candidates is %.1f%% faster than its heuristic's first choice (95%% "
			    "interval %.1f%% to %.1f%%, paired blocks)", gain, lo, hi);
	}
}

/* The bf16 twin of an fp8 GEMM: the same backend (torch-scaled-mm: F.linear, else torch.matmul), shape and algo. */
static const json_t *gemm_bf16_twin(json_t *recs, const json_t *f8)
{
	const char *be = pstr(f8, "backend");
	const char *want[] = { be, NULL, NULL };
	size_t i;
	json_t *r;

	if (!strcmp(be, "torch-scaled-mm")) {
		want[0] = "torch-linear";
		want[1] = "torch-matmul";
	}
	for (size_t w = 0; want[w]; w++)
		json_array_foreach(recs, i, r)
			if (is_ok(r, "gemm") && !strcmp(pstr(r, "dtype"), "bf16") && !strcmp(pstr(r, "backend"), want[w]) &&
			    same_gemm_shape(r, f8) &&
			    (strcmp(be, want[w]) || !strcmp(pstr(r, "algo"), pstr(f8, "algo"))))
				return r;
	return NULL;
}

static int same_training_but(const json_t *a, const json_t *b, const char *except)
{
	static const char *const keys[] = { "model", "precision", "parallel", NULL };
	static const char *const ints[] = { "seq_len", "micro_batch", NULL };
	const json_t *pa = json_object_get(a, "params"), *pb = json_object_get(b, "params");

	for (size_t i = 0; keys[i]; i++)
		if (strcmp(keys[i], except) && strcmp(str(pa, keys[i]), str(pb, keys[i])))
			return 0;
	for (size_t i = 0; ints[i]; i++)
		if (!json_equal(json_object_get(pa, ints[i]), json_object_get(pb, ints[i])))
			return 0;
	return json_equal(json_object_get(pa, "layers"), json_object_get(pb, "layers")) &&
	       json_equal(json_object_get(pa, "compile"), json_object_get(pb, "compile"));
}

static void rule_fp8(json_t *out, json_t *recs)
{
	size_t i, j;
	json_t *r, *t;

	json_array_foreach(recs, i, r) {
		const json_t *twin = NULL;
		double ratio;

		if (is_ok(r, "gemm") && !strncmp(pstr(r, "dtype"), "fp8", 3))
			twin = gemm_bf16_twin(recs, r);
		else if (is_ok(r, "training") && !strcmp(pstr(r, "precision"), "fp8"))
			json_array_foreach(recs, j, t)
				if (is_ok(t, "training") && !strcmp(pstr(t, "precision"), "bf16") &&
				    same_training_but(r, t, "precision")) {
					twin = t;
					break;
				}
		if (!twin || value(twin) <= 0)
			continue;
		ratio = value(r) / value(twin);
		if (ratio < FP8_MIN_SPEEDUP)
			add(out, "fp8-not-faster", r,
			    json_pack("{s:f, s:f, s:f, s:s}", "fp8", value(r), "bf16", value(twin), "ratio", ratio, "bf16_case",
				      str(twin, "case")),
			    "fp8 is %.2fx its bf16 twin %s (%.1f vs %.1f %s; at least %.1fx expected)", ratio, str(twin, "case"),
			    value(r), value(twin), str(r, "unit"), FP8_MIN_SPEEDUP);
	}
}

static void rule_backward(json_t *out, json_t *recs)
{
	size_t i, j;
	json_t *b, *f;

	json_array_foreach(recs, i, b) {
		const char *suite = str(b, "suite");

		if ((strcmp(suite, "attention") && strcmp(suite, "ssm")) || !is_ok(b, suite) || strcmp(last_segment(b), "bwd"))
			continue;
		json_array_foreach(recs, j, f) {
			double ratio;

			if (!is_ok(f, suite) || strcmp(last_segment(f), "fwd") || !same_prefix(b, f) || value(f) <= 0)
				continue;
			ratio = value(b) / value(f);
			if (ratio < BWD_MIN_RATIO)
				add(out, "backward-slow", b,
				    json_pack("{s:f, s:f, s:f}", "bwd_tflops", value(b), "fwd_tflops", value(f), "ratio", ratio),
				    "backward runs at %.2fx its forward's TFLOP/s (%.1f vs %.1f; at least %.1fx expected)", ratio,
				    value(b), value(f), BWD_MIN_RATIO);
			break;
		}
	}
}

static void rule_throttled(json_t *out, json_t *recs)
{
	size_t i, j;
	json_t *r, *reason;

	json_array_foreach(recs, i, r) {
		const json_t *tel = json_object_get(json_object_get(r, "extra"), "telemetry");
		json_t *seen = json_array();
		struct strbuf sb = STRBUF_INIT;

		if (strcmp(str(r, "status"), "ok"))
			goto next;
		json_array_foreach(json_object_get(tel, "throttle_reasons"), j, reason)
			for (size_t t = 0; throttles[t]; t++)
				if (!strcmp(json_string_value(reason) ? json_string_value(reason) : "", throttles[t])) {
					json_array_append(seen, reason);
					strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", throttles[t]);
				}
		if (json_array_size(seen)) {
			const json_t *clk = json_object_get(tel, "sm_clock_mhz");

			add(out, "throttled", r,
			    json_pack("{s:O, s:O, s:O}", "throttle_reasons", seen, "sm_clock_mhz", clk ? clk : json_null(),
				      "power_w_median", json_object_get(tel, "power_w_median") ? json_object_get(tel, "power_w_median")
											       : json_null()),
			    "throttled during the timed window: %s (SM clock median %.0f MHz)", sb.buf,
			    json_number_value(json_object_get(clk, "median")));
		}
next:
		json_decref(seen);
		strbuf_release(&sb);
	}
}

/* Two collectives records of one size sweep: their case keys equal but for the size, the third segment
 * (op/dtype/SIZE/placement/rRnN, with a group /gG.K, a pair's I-J or an env_matrix variant after it): a group of one
 * GPU or another NCCL_ALGO is another sweep. */
static int same_sweep(const json_t *a, const json_t *b)
{
	const char *ka = str(a, "case"), *kb = str(b, "case");
	const char *sa = ka, *sb = kb;

	for (int seg = 0; seg < 2; seg++) { /* past "op/" and "dtype/" */
		const char *na = strchr(sa, '/'), *nb = strchr(sb, '/');

		if (!na || !nb || na - sa != nb - sb || strncmp(sa, sb, (size_t)(na - sa)))
			return 0;
		sa = na + 1;
		sb = nb + 1;
	}
	sa = strchr(sa, '/');
	sb = strchr(sb, '/');
	return sa && sb && !strcmp(sa, sb);
}

static void rule_busbw(json_t *out, json_t *recs)
{
	size_t i, j;
	json_t *r, *s;

	/* for each size, the next larger size of the same sweep */
	json_array_foreach(recs, i, r) {
		const json_t *next = NULL;

		if (!is_ok(r, "collectives"))
			continue;
		json_array_foreach(recs, j, s)
			if (is_ok(s, "collectives") && same_sweep(r, s) && pint(s, "bytes") > pint(r, "bytes") &&
			    (!next || pint(s, "bytes") < pint(next, "bytes")))
				next = s;
		if (next && value(r) > 0 && value(next) < (1.0 - BUSBW_DIP) * value(r))
			add(out, "busbw-dip", next,
			    json_pack("{s:f, s:f, s:I, s:I}", "busbw_gbps", value(next), "smaller_busbw_gbps", value(r), "bytes",
				      pint(next, "bytes"), "smaller_bytes", pint(r, "bytes")),
			    "bus bandwidth falls %.0f%% from %s (%.1f GB/s) to this size (%.1f GB/s)",
			    100.0 * (1.0 - value(next) / value(r)), str(r, "case"), value(r), value(next));
	}
}

static void rule_loaded(json_t *out, json_t *recs)
{
	size_t i, j;
	json_t *r, *m;

	/* the run stage compares what a runner loaded with the lock and writes the record's loaded_not_pinned: one
	 * "loaded-not-pinned: NAME: loaded PATH, the pinned build is PATH" per component */
	json_array_foreach(recs, i, r)
		json_array_foreach(json_object_get(r, "loaded_not_pinned"), j, m) {
			const char *text = json_string_value(m), *msg;

			if (!text)
				continue;
			msg = !strncmp(text, "loaded-not-pinned: ", 19) ? text + 19 : text;
			add(out, "loaded-not-pinned", r, json_pack("{s:s}", "reason", text), "%s", msg);
		}
}

static void rule_env_effective(json_t *out, json_t *recs)
{
	size_t i, j;
	json_t *r, *m;

	/* the collectives runner compares the variables it ran under with what the library's debug log says it did
	 * (extra.ccl_effective.not_effective: {variable, asked, effective}, runners/common/ccllog.h) */
	json_array_foreach(recs, i, r) {
		json_t *eff = json_object_get(json_object_get(r, "extra"), "ccl_effective");
		const char *lib = str(eff, "library");

		json_array_foreach(json_object_get(eff, "not_effective"), j, m)
			add(out, "env-not-effective", r,
			    json_pack("{s:s, s:s, s:s}", "variable", str(m, "variable"), "asked", str(m, "asked"), "effective",
				      str(m, "effective")),
			    "%s=%s did not take effect: %s%s%s says %s", str(m, "variable"), str(m, "asked"), *lib ? lib : "the library",
			    *str(eff, "version") ? " " : "", str(eff, "version"), str(m, "effective"));
	}
}

static void rule_expected(json_t *out, json_t *recs, json_t *summary)
{
	size_t i;
	json_t *c;

	(void)recs;
	json_array_foreach(summary, i, c) {
		const json_t *pct = json_object_get(c, "pct_of_peak");

		if (!json_is_number(pct) || strcmp(str(c, "status"), "ok"))
			continue;
		for (size_t e = 0; expected[e].suite; e++)
			if (!strcmp(str(c, "suite"), expected[e].suite) && json_number_value(pct) < expected[e].pct)
				add(out, "below-expected", c,
				    json_pack("{s:f, s:f, s:O}", "pct_of_peak", json_number_value(pct), "expected_pct", expected[e].pct,
					      "value", json_object_get(c, "value") ? json_object_get(c, "value") : json_null()),
				    "%.1f%% of the datasheet peak; a %s headline is expected at %.0f%% or more", json_number_value(pct),
				    expected[e].suite, expected[e].pct);
	}
}

static void rule_scaling(json_t *out, json_t *recs)
{
	size_t i, j;
	json_t *r, *one;

	json_array_foreach(recs, i, r) {
		double wn = xnum(r, "world_size"), tn = xnum(r, "tokens_per_s");
		const json_t *sc = json_object_get(json_object_get(r, "extra"), "scaling");

		if (!is_ok(r, "training") || !(wn > 1) || !(tn > 0))
			continue;
		if (json_is_true(json_object_get(sc, "available"))) { /* scaling: true measured it in the same run */
			double eff = json_number_value(json_object_get(sc, "efficiency"));
			double t1 = json_number_value(json_object_get(sc, "single_tokens_per_s"));

			if (eff < SCALING_MIN)
				add(out, "scaling-poor", r,
				    json_pack("{s:f, s:f, s:f, s:I, s:s}", "efficiency", eff, "tokens_per_s_per_gpu", tn,
					      "tokens_per_s_one_gpu", t1, "world_size", (json_int_t)wn, "one_gpu_case",
					      "this case on one GPU (scaling: true)"),
				    "%.0f GPUs reach %.0f%% of one GPU's tokens/s each (%.0f vs %.0f; at least %.0f%% expected)",
				    wn, 100.0 * eff, tn, t1, 100.0 * SCALING_MIN);
			continue;
		}
		json_array_foreach(recs, j, one) {
			double t1 = xnum(one, "tokens_per_s"), eff;

			if (!is_ok(one, "training") || xnum(one, "world_size") != 1 || !(t1 > 0) ||
			    !same_training_but(r, one, "parallel"))
				continue;
			eff = tn / t1; /* tokens/s per GPU at N over tokens/s on one */
			if (eff < SCALING_MIN)
				add(out, "scaling-poor", r,
				    json_pack("{s:f, s:f, s:f, s:I, s:s}", "efficiency", eff, "tokens_per_s_per_gpu", tn,
					      "tokens_per_s_one_gpu", t1, "world_size", (json_int_t)wn, "one_gpu_case", str(one, "case")),
				    "%.0f GPUs reach %.0f%% of one GPU's tokens/s each (%.0f vs %.0f; at least %.0f%% expected)", wn,
				    100.0 * eff, tn, t1, 100.0 * SCALING_MIN);
			break;
		}
	}
}

static int cmp_finding(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	size_t rx = 0, ry = 0;
	int c;

	for (size_t i = 0; finding_rules[i].id; i++) {
		if (!strcmp(finding_rules[i].id, str(x, "id")))
			rx = i;
		if (!strcmp(finding_rules[i].id, str(y, "id")))
			ry = i;
	}
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if ((c = strcmp(str(x, "suite"), str(y, "suite"))))
		return c;
	if ((c = strcmp(str(x, "case"), str(y, "case"))))
		return c;
	return strcmp(str(x, "message"), str(y, "message"));
}

json_t *findings_eval(json_t *records, json_t *summary_cases)
{
	json_t *out = json_array(), *sorted = json_array(), **v;
	size_t n;

	rule_linear(out, records);
	rule_heuristic(out, records);
	rule_fp8(out, records);
	rule_backward(out, records);
	rule_throttled(out, records);
	rule_busbw(out, records);
	rule_loaded(out, records);
	rule_expected(out, records, summary_cases);
	rule_scaling(out, records);
	rule_env_effective(out, records);
	/* deterministic: rule order, then suite and case (records of several runs arrive in any order) */
	n = json_array_size(out);
	v = xcalloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(out, i);
	if (n)
		qsort(v, n, sizeof(*v), cmp_finding);
	for (size_t i = 0; i < n; i++)
		if (!i || !json_equal(v[i], v[i - 1])) /* the same finding from the same record listed twice */
			json_array_append(sorted, v[i]);
	free(v);
	json_decref(out);
	return sorted;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

json_t *findings_load_records(const char *run_dir)
{
	char *dir = xstrfmt("%s/results", run_dir), **names = NULL;
	json_t *out = json_array();
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 6 && !strcmp(de->d_name + l - 6, ".jsonl")) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrfmt("%s/%s", dir, de->d_name);
		}
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		int fd = fs_open_regular(names[i], 0); /* a FIFO named *.jsonl: skipped, not waited on */
		FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
		char *line = NULL;
		size_t cap = 0;

		while (f && getline(&line, &cap, f) > 0) {
			json_t *rec = json_loads(line, 0, NULL);

			if (json_is_object(rec))
				json_array_append(out, rec);
			json_decref(rec);
		}
		if (f)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		free(line);
		free(names[i]);
	}
	free(names);
	free(dir);
	return out;
}

size_t findings_print(FILE *f, json_t *findings)
{
	size_t i;
	json_t *x;

	json_array_foreach(findings, i, x)
		fprintf(f, "  %-26s %s: %s\n", str(x, "id"), str(x, "case"), str(x, "message"));
	return json_array_size(findings);
}
