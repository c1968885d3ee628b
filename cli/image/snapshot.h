/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snapshot.h — source snapshots of git components (docs/stacks.md). The host fetches the locked
 * commit with libgit2 into a bare cache repository ($BENCH_HOME/cache/git/<sha256 of the URL>.git) and
 * archives that commit's tree deterministically with libarchive (pax, entries in git's tree order, mtime =
 * source_date_epoch, uid/gid 0, modes 0644/0755, gzip without a timestamp), so the image builds from a hashed
 * archive and never needs network access to the git host.
 *
 * Ownership: snapshot_git() writes one file at out_path (replaced atomically); nothing is returned that the
 * caller must free.
 */
#ifndef BENCH_SNAPSHOT_H
#define BENCH_SNAPSHOT_H

/* Archives commit (40 hex) of the repository at url as out_path, every path under "<prefix>/". Fetches into the
 * cache when the commit is not there yet. Returns 0, BENCH_E_RESOLVE (the remote or the commit cannot be
 * reached), BENCH_E_IO, or BENCH_E_MANIFEST (a commit that is not 40 hex digits). */
int snapshot_git(const char *out_path, const char *url, const char *commit, const char *prefix,
		 long long source_date_epoch);
/* $BENCH_HOME/cache (a static string). */
const char *snapshot_cache_dir(void);

#endif
