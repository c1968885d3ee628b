/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runlist.h — what `bench ls` lists: the run directories and bundles under a directory, each with its manifest,
 * channel, start, case counts and (bundles) whether it verifies. An entry that cannot be read is listed with the
 * reason, never an error of the whole listing.
 *
 * A bundle's verification is cached ($BENCH_HOME/cache/ls/, one file per listed directory) under the identity of
 * the bundle and its envelope (device, inode, size, mtime, ctime) and of the keys: a bundle not written, replaced
 * or renamed since it verified is listed from the cache ("cached": true) unless verify asks for a full check.
 *
 * Ownership: runlist_collect() returns a new JSON array in *out that the caller decrefs; it reads the directory
 * and the files under it, and writes nothing but its cache.
 */
#ifndef BENCH_RUNLIST_H
#define BENCH_RUNLIST_H

#include <jansson.h>

/* Lists dir's run directories (a directory holding status.json, plan.json or summary.json) and bundles
 * (<name>.bench.tar.gz), sorted by start time (those without one last), then by name. Each entry:
 * {name, kind: "run"|"bundle", path, manifest, channel, started, state, counts: {ok, failed, skipped, interrupted,
 * pending}, verify: "verified"|"UNVERIFIED"|"not signed" (bundles only), keyid (verified bundles), error: why
 * something could not be read or did not verify, cached: true when the verification is the cache's}; a field not
 * known is absent. keys: public keys (NULL-terminated; NULL: the trusted ones). verify: every bundle verified
 * afresh, the cache read from not at all. Returns 0, or a negative code when dir itself cannot be read. */
int runlist_collect(json_t **out, const char *dir, char *const *keys, int verify);

#endif
