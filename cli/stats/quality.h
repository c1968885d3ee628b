/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quality.h — whether a measured figure can be trusted on its own samples: at least the suite's min_samples timed
 * samples (one sample has no spread; a median of a few is not worth comparing) and a coefficient of variation at
 * most QUALITY_MAX_CV. bench run writes the verdict into each ok record ("quality") and summary.json ("flags");
 * run and show end a flagged case's row with "! <why>".
 *
 * Ownership: quality_eval() and quality_of() return new references the caller decrefs (or NULL); the printing
 * functions only read what they are given.
 */
#ifndef BENCH_QUALITY_H
#define BENCH_QUALITY_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* pyperf's threshold: a standard deviation above 10% of the mean makes a result unstable */
#define QUALITY_MAX_CV 0.10

/* {"min_samples": M, "max_cv": C, "flags": [...]} for an ok record with stats.n: "few-samples" when stats.n < M (the
 * suite's min_samples), "high-cv" when stats.cv > C. NULL for a record that is not ok, has no stats, or whose suite
 * is unknown. */
json_t *quality_eval(json_t *rec);
/* The record's verdict as bench run recorded it, else evaluated now (records from before it was recorded). */
json_t *quality_of(json_t *rec);
/* The flags of rec in words, beside its n and cv ("n < 10, cv > 10%"); "" when it has none. */
void quality_describe(char *buf, size_t len, json_t *rec);
/* Under a case table whose flagged rows end "! <why>": one line saying what the mark means and how many of the ok
 * cases carry it; nothing when none does. */
void quality_print_note(FILE *fp, size_t flagged, size_t ok);

#endif
