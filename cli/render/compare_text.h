/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compare_text.h — bench compare's result (compare_build_groups()' object, stats/compare.h) as a person reads it
 * on a terminal or in a pull request (text, markdown) or as a spreadsheet reads it (CSV): the method line, the
 * noise floor and resolution, a row per case and other side, then what the numbers alone do not say (summary,
 * price, energy, cases that did not measure, one-sided cases, differences in method and in stack, sides,
 * findings, unverified inputs). Values for reading are re-prefixed (units_format_scaled); CSV keeps the raw
 * numbers. Every string from a bundle is shown with its control characters as \xNN (CSV fields quoted and
 * neutralised).
 *
 * Ownership: compare_text_print() only reads r (it escapes a copy of it).
 */
#ifndef BENCH_COMPARE_TEXT_H
#define BENCH_COMPARE_TEXT_H

#include <stdio.h>

#include <jansson.h>

enum compare_text_format { COMPARE_TEXT_PLAIN, COMPARE_TEXT_MARKDOWN, COMPARE_TEXT_CSV };

/* Prints r to fp in format; colour: the verdicts (and the failed cases) in ANSI colours (plain text only). */
void compare_text_print(FILE *fp, json_t *r, enum compare_text_format format, int colour);

#endif
