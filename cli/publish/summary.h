/* SPDX-License-Identifier: Apache-2.0 */
/*
 * summary.h — the compact summary of one verified run, keyed by its bundle's sha256, so that what reads many runs
 * (publish's site and dashboard; `bench ls` could too) reads each bundle once in its life instead of on every call.
 *
 * A summary (summaries/<sha256>.json in a results repository) holds what the site and the dashboard read: the run's
 * name, key id, the bundle's path in the repository, plan {name, channel}, lock {source_date_epoch}, the machine
 * (env: gpus[0].name, host.cpu_model), status {state, started, cases: [{suite, case, status, error}] of the cases not ok}, pricing, and per case
 * {suite, case, metric, unit, status, value, error}. Its samples and parameters (summaries/<sha256>.samples.json:
 * case key -> {samples_ms, params}) are kept apart: only compare's verdicts need them, for a few runs a night.
 *
 * Ownership: summary_of_side() and summary_samples_of_side() return new objects the caller decrefs;
 * summary_side_load() fills a caller-provided side that holds references to sum's parts (records get their samples
 * added in place) and its own strings (compare_side_release()).
 */
#ifndef BENCH_SUMMARY_H
#define BENCH_SUMMARY_H

#include <jansson.h>

#include "stats/compare.h"

#define SUMMARY_FORMAT 2

/* The summary of a loaded, verified side whose bundle has sha256 and lies at rel in the repository. */
json_t *summary_of_side(const struct compare_side *s, const char *sha256, const char *rel);
/* case key -> samples_ms of every record that has samples */
json_t *summary_samples_of_side(const struct compare_side *s);
/* A side made from a summary (and its samples, or NULL): label and run are the run's name, path the bundle's path
 * in the repository, verified 1 (it verified when published). Returns 0, or BENCH_E_VERIFY when sum is no summary
 * of a format this bench reads. */
int summary_side_load(struct compare_side *out, json_t *sum, json_t *samples);
/* The 64 hex digits of sha256(s). */
void summary_sha256_str(char out[65], const char *s);

#endif
