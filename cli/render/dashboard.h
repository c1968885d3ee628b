/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dashboard.h — the results site's dashboard (site/dashboard.html of `bench publish`): a static page, no script,
 * readable at phone width. At the top, what changed last night: the latest nightly date's runs per machine against
 * the previous nightly date on the same machine (compare's verdicts), and every case that did not measure, in red
 * with its reason. Per case and machine, one chart over time with a labelled value axis and one series per
 * stack (channel and manifest name: two manifests on one channel are two series, never pooled): nightly points by
 * their date, every other channel (stable, dev) as labelled points and a dashed
 * reference line at its latest value; the last nightly point carries its value and its % change against the
 * previous nightly and against the latest stable, written out; a nightly that compare finds slower than the one
 * before is flagged; failed and incomplete runs are marked in red with their reason. Then the machine view: each
 * case on every GPU model, with USD per hour per effective PFLOP/s where the run's manifest has pricing.
 *
 * A run's date: its lock's source_date_epoch (a nightly's resolved date), else status.json's "started", as
 * YYYY-MM-DD (UTC). Its machine: the first GPU's model (environment.json), else the host's CPU model. Runs of one
 * date, machine and series are pooled as repeats (the median of their values; compare groups them). Values are
 * printed re-prefixed as `bench show` prints them (units_format_scaled(): 50.9 GFLOP/s, not 0.05093 TFLOP/s); the
 * value axis keeps the recorded unit.
 *
 * Ownership: dashboard_render() appends to a strbuf the caller owns and only reads the sides; the output depends on
 * nothing but the sides (same repository, same bytes).
 */
#ifndef BENCH_DASHBOARD_H
#define BENCH_DASHBOARD_H

#include <stddef.h>

#include "core/strbuf.h"
#include "stats/compare.h"

/* The whole page (from <!DOCTYPE html> to </html>) for sides[0..n), in any order. verdicts: the stored verdicts
 * (dashboard_verdict_key() -> dashboard_verdicts()'s object), each used when made against the date before it among
 * these sides; NULL: computed here (every pair of consecutive nightly dates: costly over a long history). nav:
 * HTML put under the heading (links to the archive pages), or NULL. base: the way from the page to the site's root,
 * before its links to runs/RUN.html and index.html ("" or NULL on site/dashboard.html, "../" on an archive page). */
void dashboard_render(struct strbuf *out, const struct compare_side *sides, size_t n, const struct compare_opts *o,
		      json_t *verdicts, const char *nav, const char *base);
/* A run's date (YYYY-MM-DD), machine (points into s) and series ("CHANNEL (NAME)", a new string) as the
 * dashboard sees them. */
void dashboard_run_facts(char date[11], const char **machine, char **series, const struct compare_side *s);
/* The key of a stored verdict: a new string. */
char *dashboard_verdict_key(const char *machine, const char *series, const char *date);
/* compare's verdicts of the runs now[] (of date) against prev[] (of prev_date), indices into sides (samples
 * loaded): a new object {date, previous, cases: [{suite, case, others: [{verdict, ratio, ci95, p_adjusted}]}]}. */
json_t *dashboard_verdicts(const struct compare_side *sides, const size_t *prev, size_t nprev, const size_t *now, size_t nnow,
			   const char *prev_date, const char *date, const struct compare_opts *o);

#endif
