/* SPDX-License-Identifier: Apache-2.0 */
/*
 * publish.h — bench publish: signed bundles into a results repository (a git repository managed through
 * libgit2, created on first use) with a static site: an index of every run grouped by manifest name and channel,
 * the latest headline per case with its trend over runs, each run's report, the dashboard (dashboard.h).
 *
 * A publish costs what the new bundles cost, not the history: only they are verified and read; each is summarised
 * once (summary.h), keyed by its bundle's sha256; compare's verdicts of its nightly date against the date before it
 * are computed once and stored; its page is written once; the index and the dashboard are made from the summaries
 * of their window only (the last 90 days, from the start of that quarter; each earlier quarter an archive page
 * written once), the other runs known from the summaries' index (a line of facts per run). A repository without summaries (published by an older bench) is summarised once, every bundle verified.
 *
 * Ownership: publish_bundles() reads the bundles and writes only under repo; nothing is written unless every
 * bundle verifies. Layout of the repository:
 *   runs/<name>/<channel>/<run>.bench.tar.gz (+ .intoto.jsonl)   the published bundles, as signed       (committed)
 *   summaries/<sha256>.json, summaries/<sha256>.samples.json       each run's summary and its samples  (committed)
 *   summaries/index.jsonl   a line per summary: run, bundle path, name, channel, date, machine, series (generated,
 *                           not committed: made again where it does not name exactly the summaries there)
 *   verdicts/<sha256 of machine, series, date>.json               a nightly date against the one before (committed)
 *   site/index.html, site/dashboard.html, site/archives/, site/runs/<run>.html   the static site, generated: kept
 *                                                                  out of the history (.git/info/exclude)
 */
#ifndef BENCH_PUBLISH_H
#define BENCH_PUBLISH_H

#include <stddef.h>

/* Verifies every bundle (against keys, NULL-terminated; NULL: the trusted keys) and, unless allow_incomplete,
 * refuses with BENCH_E_SUITE one whose run is incomplete (status.json state "running" or "interrupted", a case
 * still "pending", or no status.json); then adds each new one with one commit "publish <run> (channel <c>)
 * signed by <keyid>" holding the bundle, its envelope, its summary and the verdicts it made; the site is written
 * once after the call's commits. A bundle already published (same bytes) is skipped. *out_new counts the commits made.
 * On the site, a run with failed, interrupted or unrun cases is marked in red with the count, its page lists
 * every such case with its reason, and no failed case is plotted as a value. */
int publish_bundles(size_t *out_new, const char *repo, const char *const *bundles, size_t n, char *const *keys,
		    int allow_incomplete);

#endif
