/* SPDX-License-Identifier: Apache-2.0 */
/*
 * publish.h — bench publish: signed bundles into a results repository (a git repository managed through
 * libgit2, created on first use) with a static site regenerated on every publish: an index of every run grouped
 * by manifest name and channel, the latest headline per case with its trend over runs, each run's report.
 *
 * Ownership: publish_bundles() reads the bundles and writes only under repo; nothing is written unless every
 * bundle verifies. Layout of the repository:
 *   runs/<name>/<channel>/<run>.bench.tar.gz (+ .intoto.jsonl)   the published bundles, as signed
 *   site/index.html, site/dashboard.html, site/runs/<run>.html     the static site (dashboard.h)
 */
#ifndef BENCH_PUBLISH_H
#define BENCH_PUBLISH_H

#include <stddef.h>

/* Verifies every bundle (against keys, NULL-terminated; NULL: the trusted keys) and, unless allow_incomplete,
 * refuses with BENCH_E_SUITE one whose run is incomplete (status.json state "running" or "interrupted", a case
 * still "pending", or no status.json); then adds each new one with one commit "publish <run> (channel <c>)
 * signed by <keyid>". A bundle already published (same bytes) is skipped. *out_new counts the commits made.
 * On the site, a run with failed, interrupted or unrun cases is marked in red with the count, its page lists
 * every such case with its reason, and no failed case is plotted as a value. */
int publish_bundles(size_t *out_new, const char *repo, const char *const *bundles, size_t n, char *const *keys,
		    int allow_incomplete);

#endif
