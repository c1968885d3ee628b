/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lock.h — manifest.lock.json (docs/architecture.md): every moving reference of a manifest resolved to an immutable
 * pin. git refs → commits (libgit2, listing the remote's refs: no clone); pip releases and nightlies → the exact
 * version for the wheel target (PEP 503 simple index, libcurl), then its whole dependency closure by pip's own
 * resolver (python3 -m pip install --dry-run --report), each package with its wheel URL and sha256; apt → the
 * pinned version; the base image → its digest.
 *
 * Ownership: lock_resolve() and lock_pip_closure() return new jansson values the caller decrefs; string
 * out-parameters are malloc'd; a struct lock_target owns its platform list (lock_target_release()).
 */
#ifndef BENCH_LOCK_H
#define BENCH_LOCK_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "manifest.h"

/* The interpreter and platform wheels are chosen for: images/bases/<vendor>.yaml's wheel_target, each field
 * overridden by the manifest's stack.wheel_target. */
struct lock_target {
	char python[8];       /* "3.12" */
	char pytag[8];        /* "cp312" */
	char abi[17];         /* "cp312" */
	char platform[64];    /* "manylinux_2_39_x86_64", as given */
	char arch[16];        /* "x86_64" */
	char accelerator[33]; /* "cu130" */
	char **platforms;     /* every platform tag the target runs, pip's preference order: manylinux_2_39 ... linux */
	size_t nplatforms;
};

int lock_target_load(struct lock_target *out, const struct manifest *m);
void lock_target_release(struct lock_target *t);

/* Resolves every component of m. manifest_bytes: the file, for its sha256. Each resolution is printed to
 * progress as it is made ("bench: lock: NAME: REFERENCE -> PIN"; NULL: quiet). Returns 0, or BENCH_E_RESOLVE
 * with the reference and the remote or index named. */
int lock_resolve(json_t **out, const struct manifest *m, const char *manifest_bytes, size_t len, FILE *progress);
/* ref → 40-hex commit on the remote url (branch, tag, or a full commit given as is). */
int lock_git_ref(char out[41], const char *url, const char *ref);
/* The exact version (local label included) of name on a PEP 503 index that has a wheel for t: version "X.Y.Z"
 * (PEP 440: "2.11.0" matches 2.11.0+cu130, '%2B' reads as '+'; of several accelerator builds the target's),
 * "nightly" with date YYYY-MM-DD (that day's .devYYYYMMDD build), "nightly" with date "latest" (the build of the
 * newest date the index has), "latest" or "nightly" without date (the newest; releases before pre-releases where
 * there are any). out_date (NULL: not wanted): the YYYY-MM-DD of the chosen .devYYYYMMDD build, else "". */
int lock_pip(char **out_version, char out_date[11], const char *index, const char *name, const char *version,
	     const char *date, const struct lock_target *t);
/* The UTC date a 'date: today' nightly resolves to: $BENCH_TODAY (YYYY-MM-DD, for tests and reproducing a lock),
 * else the day of $SOURCE_DATE_EPOCH, else of the clock. BENCH_E_FAIL where BENCH_TODAY is not a date. */
int lock_today(char out[11]);
/* The closure of name==version for t by pip's resolver: an array of {name, version, url, sha256} sorted by
 * normalised name, name itself included. BENCH_E_FAIL where python3 has no pip (22.2+), BENCH_E_RESOLVE with pip's
 * reason where it cannot resolve. */
int lock_pip_closure(json_t **out, const char *index, const char *name, const char *version,
		     const struct lock_target *t);
/* The package named name (PEP 503 normalised) in a closure, or NULL; borrowed. */
json_t *lock_closure_find(json_t *pkgs, const char *name);
/* A lock whose bytes change only when a pin changes: where old (the lock already at the destination; NULL: none)
 * holds everything lock holds (manifest_sha256, bench_version, components, base, wheel_target) and differs at
 * most in source_date_epoch, lock takes old's source_date_epoch and 1 is returned (the file need not be written
 * again); else lock is left as it is and 0 is returned. */
int lock_keep_unmoved(json_t *lock, json_t *old);
/* Writes the lock as docs/architecture.md says: sorted keys, two-space indent, trailing newline. */
int lock_write(const char *path, json_t *lock);
/* The sha256 of bytes as 64 hex characters. */
void lock_sha256_hex(char out[65], const void *data, size_t len);

#endif
