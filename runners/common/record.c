/* SPDX-License-Identifier: Apache-2.0 */
#include "record.h"

#include "loaded.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage_error(const char *usage, const char *msg)
{
	fprintf(stderr, "error: %s\nusage: %s\n", msg, usage);
	return 2;
}

int runner_config_load(struct runner_config *out, int argc, char **argv, const char *suite, const char *usage)
{
	const char *path = NULL;
	json_error_t jerr;
	json_t *cases, *c;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			printf("usage: %s\n", usage);
			exit(0);
		} else if (!strcmp(argv[a], "--config") && a + 1 < argc) {
			path = argv[++a];
		} else if (!strncmp(argv[a], "--config=", 9)) {
			path = argv[a] + 9;
		} else {
			fprintf(stderr, "error: unknown argument '%s'\n", argv[a]);
			return usage_error(usage, "expected --config CASES.json");
		}
	}
	if (!path)
		return usage_error(usage, "missing --config CASES.json");
	out->root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!out->root) {
		fprintf(stderr, "error: %s:%d:%d: %s\n", path, jerr.line, jerr.column, jerr.text);
		return 1;
	}
	cases = json_is_array(out->root) ? out->root : json_object_get(out->root, "cases");
	if (!json_is_array(cases)) {
		fprintf(stderr, "error: %s: expected an object with a 'cases' array\n", path);
		runner_config_release(out);
		return 1;
	}
	out->cases = calloc(json_array_size(cases) + 1, sizeof(*out->cases));
	json_array_foreach(cases, i, c) {
		const char *s = json_string_value(json_object_get(c, "suite"));
		const char *key = json_string_value(json_object_get(c, "case"));
		json_t *params = json_object_get(c, "params");

		if (s && strcmp(s, suite))
			continue;
		if (!key || !json_is_object(params)) {
			fprintf(stderr, "error: %s: case %zu needs a string 'case' and an object 'params'\n", path, i + 1);
			runner_config_release(out);
			return 1;
		}
		out->cases[out->n].key = key;
		out->cases[out->n].params = params;
		out->n++;
	}
	return 0;
}

void runner_config_release(struct runner_config *c)
{
	json_decref(c->root);
	free(c->cases);
	memset(c, 0, sizeof(*c));
}

const char *param_str(json_t *p, const char *name, const char *def)
{
	const char *s = json_string_value(json_object_get(p, name));

	return s ? s : def;
}

long long param_int(json_t *p, const char *name, long long def)
{
	json_t *v = json_object_get(p, name);

	return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

double param_num(json_t *p, const char *name, double def)
{
	json_t *v = json_object_get(p, name);

	return json_is_number(v) ? json_number_value(v) : def;
}

int param_bool(json_t *p, const char *name, int def)
{
	json_t *v = json_object_get(p, name);

	return json_is_boolean(v) ? json_is_true(v) : def;
}

long long param_size_auto(json_t *p, const char *name, long long def)
{
	json_t *v = json_object_get(p, name);

	if (json_is_string(v) && !strcmp(json_string_value(v), "auto"))
		return 0;
	return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

json_t *record_new(const char *suite, const char *key, json_t *params)
{
	return json_pack("{s:s, s:s, s:s, s:O, s:s, s:n, s:n, s:n, s:n, s:n, s:{}, s:n}", "schema", "bench.result/v1",
			 "suite", suite, "case", key, "params", params, "status", "failed", "metric", "unit", "value",
			 "stats", "samples_ms", "extra", "error");
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

void record_set_samples(json_t *rec, const char *metric, const char *unit, const double *samples_ms, size_t n,
			double (*to_metric)(double ms, void *arg), void *arg)
{
	double *m = calloc(n ? n : 1, sizeof(*m));
	json_t *arr = json_array();
	struct stats st;

	for (size_t i = 0; i < n; i++) {
		m[i] = to_metric(samples_ms[i], arg);
		json_array_append_new(arr, json_real(samples_ms[i]));
	}
	stats_compute(&st, m, n);
	json_object_set_new(rec, "status", json_string("ok"));
	json_object_set_new(rec, "metric", json_string(metric));
	json_object_set_new(rec, "unit", json_string(unit));
	json_object_set_new(rec, "value", num(st.median));
	json_object_set_new(rec, "stats", json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)st.n,
						    "median", num(st.median), "mean", num(st.mean), "min", num(st.min),
						    "max", num(st.max), "p10", num(st.p10), "p90", num(st.p90), "cv",
						    num(st.cv)));
	json_object_set_new(rec, "samples_ms", arr);
	json_object_set_new(rec, "error", json_null());
	free(m);
}

void record_set_status(json_t *rec, const char *status, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_set_new(rec, "status", json_string(status));
	json_object_set_new(rec, "error", json_string(buf));
}

void record_add_extra(json_t *rec, const char *key, json_t *value)
{
	json_object_set_new(json_object_get(rec, "extra"), key, value);
}

void record_add_energy(json_t *rec)
{
	json_t *extra = json_object_get(rec, "extra"), *tel = json_object_get(extra, "telemetry"), *arr, *v, *e, *pw;
	json_t *counter;
	const char *status = json_string_value(json_object_get(rec, "status"));
	const char *unit = json_string_value(json_object_get(rec, "unit"));
	double power, value, *ms, t, joules, epower;
	size_t n = 0, i, calls;
	struct stats st;

	if (!json_is_object(tel) || json_object_get(extra, "energy"))
		return;
	/* a case on several GPUs (collectives): the sum of their median powers; else the one GPU's median */
	pw = json_object_get(tel, "power_w_total");
	if (!json_is_number(pw))
		pw = json_object_get(tel, "power_w_median");
	power = json_number_value(pw);
	if (!json_is_true(json_object_get(tel, "available")) || !json_is_number(pw) || !(power > 0)) {
		const char *why = json_string_value(json_object_get(tel, "why"));

		record_add_extra(rec, "energy", json_pack("{s:b, s:s}", "available", 0, "why",
							  why ? why : "the timed window has no power reading"));
		return;
	}
	arr = json_object_get(rec, "samples_ms");
	ms = calloc(json_array_size(arr) + 1, sizeof(*ms));
	json_array_foreach(arr, i, v)
		if (json_number_value(v) > 0)
			ms[n++] = json_number_value(v);
	if (!status || strcmp(status, "ok") || !n) {
		free(ms);
		record_add_extra(rec, "energy", json_pack("{s:b, s:s}", "available", 0, "why", "the case did not measure"));
		return;
	}
	stats_compute(&st, ms, n);
	free(ms);
	t = st.median;
	/* the energy counter over the timed window, per call, where the telemetry has one; the estimate beside it */
	calls = json_array_size(arr);
	if (json_is_integer(json_object_get(extra, "timed_calls")) && json_integer_value(json_object_get(extra, "timed_calls")) > 0)
		calls = (size_t)json_integer_value(json_object_get(extra, "timed_calls")); /* a sample of several calls */
	counter = json_object_get(tel, "energy_j");
	joules = power * t / 1e3;
	e = json_pack("{s:b, s:s, s:f, s:f, s:f, s:f}", "available", 1, "method", "power x time", "power_w", power,
		      "time_ms", t, "joules", joules, "joules_estimate", joules);
	if (json_is_number(counter) && json_number_value(counter) > 0 && calls > 0) {
		joules = json_number_value(counter) / (double)calls;
		json_object_set_new(e, "method", json_string("counter"));
		json_object_set_new(e, "joules", json_real(joules));
		json_object_set_new(e, "joules_counter", json_real(joules));
		json_object_set_new(e, "counter_j", json_real(json_number_value(counter)));
		json_object_set_new(e, "calls", json_integer((json_int_t)calls));
	}
	if (json_is_integer(json_object_get(tel, "gpus")))
		json_object_set(e, "gpus", json_object_get(tel, "gpus"));
	if (json_is_number(json_object_get(tel, "window_ms"))) {
		double w = json_number_value(json_object_get(tel, "window_ms"));
		const char *src = json_string_value(json_object_get(tel, "source"));

		json_object_set_new(e, "window_ms", json_real(w));

		if (w < RECORD_POWER_AVERAGE_MS && src && !strcmp(src, "nvml")) {
			char note[320];

			snprintf(note, sizeof(note), "the timed window lasted %.0f ms, less than the %.0f ms over which the "
				 "driver averages power: up to %.0f%% of the reading is from the time before the window (a "
				 "steady-state warm-up of the same work, or the previous case)", w, RECORD_POWER_AVERAGE_MS,
				 100.0 * (1.0 - w / RECORD_POWER_AVERAGE_MS));
			json_object_set_new(e, "power_window_note", json_string(note));
		}
	}
	/* the work of one call (value x the median time) per joule of one call */
	epower = joules / (t / 1e3);
	value = json_number_value(json_object_get(rec, "value"));
	if (json_is_number(json_object_get(rec, "value")) && value > 0 && unit) {
		if (!strcmp(unit, "TFLOP/s"))
			json_object_set_new(e, "tflop_per_joule", json_real(value / epower));
		else if (!strcmp(unit, "TB/s"))
			json_object_set_new(e, "gb_per_joule", json_real(1e3 * value / epower));
		else if (!strcmp(unit, "GB/s")) /* collectives: bus bandwidth, GB of bus traffic per joule */
			json_object_set_new(e, "gb_per_joule", json_real(value / epower));
	}
	record_add_extra(rec, "energy", e);
}

char *record_dumps(json_t *rec)
{
	record_add_energy(rec);
	if (!json_object_get(rec, "loaded"))
		json_object_set_new(rec, "loaded", loaded_libraries());
	if (!json_object_get(rec, "stack_libs"))
		json_object_set_new(rec, "stack_libs", loaded_stack_libs(NULL));
	return json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(9));
}

void record_emit(json_t *rec)
{
	char *s;

	/* joules and work per joule from the timed window's telemetry, whichever path wrote it */
	record_add_energy(rec);
	/* proof of what ran: the libraries loaded by now (after the case ran: lazily loaded ones included), and what the
	 * stack's source builds provide, for bench run to hold against the lock */
	if (!json_object_get(rec, "loaded"))
		json_object_set_new(rec, "loaded", loaded_libraries());
	if (!json_object_get(rec, "stack_libs"))
		json_object_set_new(rec, "stack_libs", loaded_stack_libs(NULL));
	s = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(9));

	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		fflush(stdout);
		free(s);
	}
	json_decref(rec);
}

void record_add_timing(json_t *rec, const struct dobench_result *r)
{
	json_t *t;

	if (r->mode == DOBENCH_STEADY)
		t = json_pack("{s:s, s:b, s:f, s:s, s:I, s:f}", "mode", "steady", "steady_reached", r->warm.steady_reached,
			      "steady_after_ms", r->warm.steady_after_ms, "method", r->warm.method, "warmup_calls",
			      (json_int_t)r->warm.n_calls, "estimate_before_warmup_ms", r->warm.estimate_first_ms);
	else
		t = json_pack("{s:s, s:b, s:n, s:s}", "mode", "burst", "steady_reached", 0, "steady_after_ms", "method",
			      "burst: Triton's do_bench schedule (warm-up budget, then the timed calls)");
	/* the warm-up's loop against the timed loop, per call and flushes included: the same loop runs in both */
	if (r->mode == DOBENCH_STEADY && r->warm.per_call_ms > 0)
		json_object_set_new(t, "warmup_per_call_ms", json_real(r->warm.per_call_ms));
	if (r->loop_ms > 0 && r->n > 0)
		json_object_set_new(t, "timed_per_call_ms", json_real(r->loop_ms / (double)r->n));
	record_add_extra(rec, "timing", t);
}
