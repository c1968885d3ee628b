/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record.h — the runner side of the runner contract (docs/architecture.md): read `--config CASES.json`, write one
 * bench.result/v1 JSON object per line to stdout, diagnostics to stderr.
 *
 * Ownership: runner_config_load() fills a struct runner_config that owns the parsed JSON; case params are
 * borrowed references into it, valid until runner_config_release(). record_new() returns a new jansson
 * object that record_emit() prints and frees.
 */
#ifndef BENCH_RECORD_H
#define BENCH_RECORD_H

#include <stddef.h>

#include <jansson.h>

#include "dobench.h"

struct runner_case {
	const char *key;
	json_t *params;
};

struct runner_config {
	json_t *root;
	struct runner_case *cases;
	size_t n;
};

#define RUNNER_CONFIG_INIT { NULL, NULL, 0 }

/* Parses argv (--config PATH, -h) and loads the cases of suite. Prints a message and returns non-zero on
 * error (2: usage, 1: unreadable or malformed config). The file may be a plan (cases carry "suite": only
 * those of this suite are kept) or a list of cases for this suite alone. */
int runner_config_load(struct runner_config *out, int argc, char **argv, const char *suite, const char *usage);
void runner_config_release(struct runner_config *c);

/* Typed parameter access; a missing or mistyped parameter returns def. */
const char *param_str(json_t *params, const char *name, const char *def);
long long param_int(json_t *params, const char *name, long long def);
double param_num(json_t *params, const char *name, double def);
int param_bool(json_t *params, const char *name, int def);
/* A size that may be "auto": returns 0 for auto. */
long long param_size_auto(json_t *params, const char *name, long long def);

json_t *record_new(const char *suite, const char *key, json_t *params);
/* Fills status ok, metric, unit, value (the median of the converted samples), stats and samples_ms.
 * to_metric converts one sample in ms to the metric (e.g. TFLOP/s); arg is passed through. */
void record_set_samples(json_t *rec, const char *metric, const char *unit, const double *samples_ms, size_t n,
			double (*to_metric)(double ms, void *arg), void *arg);
void record_set_status(json_t *rec, const char *status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* extra: merged into the record's "extra" object (a new reference is taken over). */
void record_add_extra(json_t *rec, const char *key, json_t *value);
/* Prints rec as one line and frees it; first sets "loaded" (loaded_libraries()) and "stack_libs"
 * (loaded_stack_libs()) where the record has none. */
void record_emit(json_t *rec);
/* The record as record_emit() would print it (energy, loaded and stack libraries added), without the newline; the
 * caller frees the string, and still owns rec. */
char *record_dumps(json_t *rec);
/* NVML's power reading on Ampere (but GA100) and newer, Hopper included, is the average of the last second: a
 * timed window shorter than this from NVML gets extra.energy.power_window_note. */
#define RECORD_POWER_AVERAGE_MS 1000.0
/* extra.energy from the record's extra.telemetry (docs/manifest-format.md, "Energy"), per rep (one timed call):
 * joules_estimate = the timed window's board power (W) x the median of samples_ms (s), where the power is
 * telemetry.power_w_total when present (a case on several GPUs: the sum of their median powers; extra.energy.gpus
 * then repeats telemetry.gpus), else telemetry.power_w_median; where the telemetry has energy_j (the energy
 * counter over the timed window), joules_counter = energy_j / the timed calls (extra.timed_calls where a sample
 * holds several calls: collectives; else len(samples_ms)), counter_j and
 * calls beside it. joules is joules_counter where there is one (method "counter"), else joules_estimate (method
 * "power x time"). With a FLOP-rate metric (unit TFLOP/s) tflop_per_joule = value x time / joules (the work of one
 * call per joule of one call), with TB/s gb_per_joule = 1000 x that, with GB/s (collectives' busbw) gb_per_joule =
 * value x time / joules. Without a usable power reading or a measurement: {available: false, why}. Nothing
 * when the record has no extra.telemetry (not a GPU record) or already has extra.energy. record_emit() calls it. */
void record_add_energy(json_t *rec);
/* extra.timing = {mode, steady_reached, steady_after_ms, method, ...} of a finished dobench_run(); with
 * warmup_per_call_ms (steady: the warm-up's last burst per call) and timed_per_call_ms (the timed loop begin to end
 * per call), both flushes included, where known. */
void record_add_timing(json_t *rec, const struct dobench_result *r);

#endif
