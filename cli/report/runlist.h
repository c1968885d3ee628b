/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runlist.h — what `bench ls` lists: the run directories and bundles under a directory, each with its manifest,
 * channel, start, case counts and (bundles) whether it verifies. An entry that cannot be read is listed with the
 * reason, never an error of the whole listing.
 *
 * Ownership: runlist_collect() returns a new JSON array in *out that the caller decrefs; it reads the directory
 * and the files under it, and writes nothing.
 */
#ifndef BENCH_RUNLIST_H
#define BENCH_RUNLIST_H

#include <jansson.h>

/* Lists dir's run directories (a directory holding status.json, plan.json or summary.json) and bundles
 * (<name>.bench.tar.gz), sorted by start time (those without one last), then by name. Each entry:
 * {name, kind: "run"|"bundle", path, manifest, channel, started, state, counts: {ok, failed, skipped, interrupted,
 * pending}, verify: "verified"|"UNVERIFIED"|"not signed" (bundles only), keyid (verified bundles), error: why
 * something could not be read or did not verify}; a field not known is absent. keys: public keys
 * (NULL-terminated; NULL: the trusted ones). Returns 0, or a negative code when dir itself cannot be read. */
int runlist_collect(json_t **out, const char *dir, char *const *keys);

#endif
