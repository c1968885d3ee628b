/* SPDX-License-Identifier: Apache-2.0 */
/*
 * findings.h — rules evaluated over result records: what is wrong with a stack, each with a stable id, a one-line
 * explanation and the numbers that triggered it (docs/findings.md documents every rule). Pure: records in,
 * findings out; `bench show`, the end of `bench run`, `compare` and the report print them.
 *
 * Ownership: findings_eval() returns a new JSON array the caller decrefs; it only reads its inputs.
 * finding_rules[] is a static table.
 */
#ifndef BENCH_FINDINGS_H
#define BENCH_FINDINGS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

struct finding_rule {
	const char *id;      /* stable: "linear-slower-than-matmul" */
	const char *summary; /* one line: what it means */
};

/* Every rule, in evaluation order; NULL-terminated. */
extern const struct finding_rule finding_rules[];

/*
 * The findings of records (an array of bench.result/v1 records: one run, or the runs of one comparison) with
 * summary_cases (summary.json's "cases": suite, case, pct_of_peak; NULL: the below-expected rule has no input).
 * Each finding: {"id", "suite", "case", "message", "numbers": {...}}, in rule order, then by case key.
 */
json_t *findings_eval(json_t *records, json_t *summary_cases);

/* Every record of a run directory's results/<suite>.jsonl files (in name order; a line that is not a JSON object is
 * left out: the run stage has logged it). A new array; empty when there are none. */
json_t *findings_load_records(const char *run_dir);

/* Prints findings one per line, "  ID  CASE: MESSAGE" (nothing when there are none); returns how many. */
size_t findings_print(FILE *f, json_t *findings);

#endif
