/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cost.h — energy and cost of the cases a run measured (docs/manifest-format.md, "Energy and cost"): the energy the
 * runner recorded per timed call (extra.energy), and the price of a GPU-hour from the run's own manifest
 * (manifest.yaml in the run directory or bundle, `pricing`) against the throughput the case measured.
 *
 * Definitions (per GPU; "effective" = measured, not the datasheet's):
 *   usd_per_hour_per_pflops = usd_per_gpu_hour / (TFLOP/s one GPU measured / 1000): what one PFLOP/s of this
 *     case's measured throughput costs per hour (for a run on G GPUs, G x price over G x the per-GPU rate: the same);
 *   usd_per_million_tokens  = usd_per_gpu_hour x G / (the G GPUs' tokens per second x 3600) x 1e6 (training).
 *
 * Ownership: every json_t * returned is a new reference the caller decrefs; arguments are only read.
 */
#ifndef BENCH_COST_H
#define BENCH_COST_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* The pricing of a manifest's text (manifest.yaml as the run kept it): {usd_per_gpu_hour, source} (source null
 * when the manifest names none), or NULL when it has no usable pricing or is not a manifest. */
json_t *cost_pricing_parse(const char *yaml, size_t len);

/* A case's energy and cost figures from its record: joules, tflop_per_joule or gb_per_joule (extra.energy, when
 * available), else energy_why (why there is none); with pricing (NULL: none) usd_per_hour_per_pflops (a TFLOP/s
 * metric) and usd_per_million_tokens with gpus (a record carrying extra.tokens_per_s). value: the throughput to
 * price (a group's median of run values), NAN: the record's value. NULL when the record did not measure or has
 * none of these. */
json_t *cost_of_record(json_t *pricing, json_t *rec, double value);

/* "USD 3.5 per GPU-hour (source: ...)" or "USD 3.5 per GPU-hour (no source given)"; malloc'd. */
char *cost_pricing_text(json_t *pricing);

/* One case's figures as text: "USD 4.2/h per PFLOP/s, USD 1.1 per M tokens, 0.31 J/call, 2.5 TFLOP/J" (the figures
 * it has; "" when none); malloc'd. */
char *cost_figure_text(json_t *figure);

/* The words that define the figures, for a heading. */
#define COST_DEFINITION "USD per hour per effective PFLOP/s = the price of a GPU-hour / the PFLOP/s one GPU measured; " \
	"USD per million tokens = the price of the run's GPU-hours / the tokens they trained; J/call = the board's " \
	"energy counter over the timed loop / its calls (flushes and idle power included), else median board power x " \
	"median time"

/* The key a case's sides are ranked by: usd_per_million_tokens when the figure has it, else
 * usd_per_hour_per_pflops; NULL when it has neither. */
const char *cost_rank_key(json_t *figure);

#endif
