/*
 * html.h — the comparison as one self-contained HTML page: no JavaScript, no external files; readable on a
 * phone (the table scrolls sideways, nothing is wider than the screen) and in print. Each case row carries an
 * inline SVG whisker: the 95% confidence interval of the ratio against the band 1 +/- threshold.
 *
 * Ownership: html_render_compare() appends to a strbuf the caller owns; it only reads the comparison JSON
 * (compare_build()'s document). Every string from the inputs is escaped.
 */
#ifndef BENCH_HTML_H
#define BENCH_HTML_H

#include <jansson.h>

#include "../core/strbuf.h"
#include "compare.h"

void html_render_compare(struct strbuf *out, json_t *cmp);

/* The report of one or more runs: per run its verification, stack, environment and how to reproduce it; per
 * suite a chart (bars with 5th-95th percentile whiskers and datasheet peaks; collectives as bus bandwidth
 * against log2 message size); with cmp (compare_build() of the same sides, or NULL) the comparison. */
void html_render_report(struct strbuf *out, const struct compare_side *sides, size_t n, json_t *cmp);

#endif
