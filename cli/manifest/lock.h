/*
 * lock.h — manifest.lock.json (docs/architecture.md): every moving reference of a manifest resolved to an immutable
 * pin. git refs → commits (libgit2, listing the remote's refs: no clone), pip releases and nightlies → wheel URL
 * and sha256 (PEP 503 simple index, libcurl), apt → the pinned version.
 *
 * Ownership: lock_resolve() returns a new jansson object the caller decrefs; strings out-parameters are malloc'd.
 */
#ifndef BENCH_LOCK_H
#define BENCH_LOCK_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "manifest.h"

/* Resolves every component of m. manifest_bytes: the file, for its sha256. Each resolution is printed to
 * progress as it is made ("bench: lock: NAME: REFERENCE -> PIN"; NULL: quiet). Returns 0, or BENCH_E_RESOLVE
 * with the reference and the remote or index named. */
int lock_resolve(json_t **out, const struct manifest *m, const char *manifest_bytes, size_t len, FILE *progress);
/* ref → 40-hex commit on the remote url (branch, tag, or a full commit given as is). */
int lock_git_ref(char out[41], const char *url, const char *ref);
/* The wheel of name==version (or the newest nightly of date, version "nightly") on a PEP 503 index. */
int lock_pip(char **out_url, char **out_sha256, char **out_version, const char *index, const char *name,
	     const char *version, const char *date);
/* Writes the lock as docs/architecture.md says: sorted keys, two-space indent, trailing newline. */
int lock_write(const char *path, json_t *lock);
/* The sha256 of bytes as 64 hex characters. */
void lock_sha256_hex(char out[65], const void *data, size_t len);

#endif
