/* SPDX-License-Identifier: Apache-2.0 */
/*
 * context.h — the build context of a stack's image: the recipe (Containerfile or bench.def), sources/ with one
 * deterministic snapshot per git component (snapshot.h), and bench/ with what the image needs to build the
 * runners (the Makefile and runners/ from bench's data directory).
 *
 * Ownership: image_context_write() fills *out_recipe with a new path (caller frees); the directory belongs to
 * the caller (a cache under $BENCH_HOME, reused while the lock is the same).
 */
#ifndef BENCH_CONTEXT_H
#define BENCH_CONTEXT_H

#include <jansson.h>

#include "manifest/manifest.h"

/* Writes the context into dir (created). format: "containerfile" or "apptainer". progress: where to say what
 * is being fetched (NULL: quiet). out_digest gets the context's sha256 (hex): of the recipe, which names the
 * manifest and lock digests, and of every runner source file (path, mode, bytes, in name order) — what decides
 * the image, so an image is reused only when the bench that built it had the same runners. Returns 0 or a
 * negative code (BENCH_E_MANIFEST for a lock that does not fit the manifest, BENCH_E_RESOLVE for a commit that
 * cannot be fetched, BENCH_E_IO). */
int image_context_write(char **out_recipe, char out_digest[65], const char *dir, const struct manifest *m,
			json_t *lock, const char *manifest_sha, const char *lock_sha, const char *format, FILE *progress);

#endif
