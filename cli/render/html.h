/* SPDX-License-Identifier: Apache-2.0 */
/*
 * html.h — the comparison as one self-contained HTML page: no JavaScript, no external files; readable on a
 * phone (a table scrolls sideways inside its frame, nothing is wider than the screen; at 1400 px none scrolls)
 * and in print. One row per case, one column group per other input against the baseline; each carries an inline
 * SVG whisker: the 95% confidence interval of the ratio against the band 1 +/- threshold.
 *
 * Ownership: html_render_compare() appends to a strbuf the caller owns; it only reads the comparison JSON
 * (compare_build()'s document). Every string from the inputs is escaped.
 */
#ifndef BENCH_HTML_H
#define BENCH_HTML_H

#include <jansson.h>

#include "core/strbuf.h"
#include "stats/compare.h"

void html_render_compare(struct strbuf *out, json_t *cmp);

/* The report of one or more runs: per run its verification, stack, environment and how to reproduce it; per
 * suite a table of every case (value in a scaled unit, n, CV, % of peak, check), then a chart at full width
 * (bars with their values, 5th-95th percentile whiskers, 1-2-5 ticks and datasheet peaks; collectives as bus
 * bandwidth against log2 message size, a colour per op and a dash per run, and nccl-tests tables); with cmp
 * (compare_build() of the same sides, or NULL) the comparison. */
void html_render_report(struct strbuf *out, const struct compare_side *sides, size_t n, json_t *cmp);

/* The document head with the stylesheet, up to <body>; the caller closes the page. */
void html_page_open(struct strbuf *out, const char *title);

/* One group of the results site's index: the runs of a manifest name and channel (sides in chronological
 * order), newest first with their verification, and the latest headline per case with its trend. base: the way from
 * the page to the site's root, before each "runs/RUN.html" link ("" on the index, "../" on an archive page). */
void html_render_index_group(struct strbuf *out, const char *name, const char *channel, const struct compare_side *sides,
			     size_t n, const char *base);

#endif
