/* SPDX-License-Identifier: Apache-2.0 */
/*
 * builder.h — image builders as plug-ins (docs/architecture.md): podman, docker and apptainer turn a stack's build
 * context (context.h) into an image, say whether it exists already, and read its immutable id. One ops struct
 * per file (builder_<name>.c), one line in the registry (builder.c). image_build() is the image stage's entry
 * point: the context, then reuse or build, then the id.
 *
 * Ownership: ops are static constants. struct built_image owns its strings; built_image_release() frees them.
 */
#ifndef BENCH_BUILDER_H
#define BENCH_BUILDER_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "manifest/manifest.h"

struct builder_ops {
	const char *name;
	const char *recipe_format; /* "containerfile" or "apptainer" */
	/* The image reference: a tag (podman, docker) or a file under cache_dir (apptainer), from the stack's name
	 * and its build context's digest (caller frees). */
	char *(*image_ref)(const struct builder_ops *b, const char *name, const char *context_sha, const char *cache_dir);
	/* Builds image from the context directory holding the recipe file; the builder's output goes to log_fd, and
	 * its steps (step_line) to progress as they happen (NULL: quiet). */
	int (*build)(const struct builder_ops *b, const char *context, const char *recipe, const char *image, int log_fd,
		     FILE *progress, volatile sig_atomic_t *stop);
	/* Whether a line of the engine's build output starts a step ("STEP 3/13: RUN ..."): shown to the user. */
	int (*step_line)(const char *line, size_t len);
	/* The image's immutable id, "sha256:<64 hex>" (caller frees). Fails where the engine has no such image: that is
	 * also how bench tells whether an image is here, so that a reused image costs one engine command, not two. */
	int (*image_digest)(char **out, const struct builder_ops *b, const char *image);
};

extern const struct builder_ops *const builder_registry[];
const struct builder_ops *builder_find(const char *name);

/* The shared implementation of the OCI builders (podman, docker): builder_podman.c. */
char *oci_image_ref(const struct builder_ops *b, const char *name, const char *context_sha, const char *cache_dir);
int oci_build(const struct builder_ops *b, const char *context, const char *recipe, const char *image, int log_fd,
	      FILE *progress, volatile sig_atomic_t *stop);

/* Runs a builder's argv: every line of its output (stdout and stderr) to log_fd, and each line b->step_line
 * picks to progress (NULL: none) as it comes, trimmed to one terminal line, with the time since the start. */
int builder_run(const struct builder_ops *b, char *const *argv, int log_fd, FILE *progress, volatile sig_atomic_t *stop);
int oci_image_digest(char **out, const struct builder_ops *b, const char *image);

/* A stack's image, built (or found). */
struct built_image {
	const struct builder_ops *builder;
	char *image;   /* tag or SIF path */
	char *digest;  /* sha256:... (the image's id) */
	char *recipe;  /* the recipe file in the context */
	char *context; /* $BENCH_HOME/cache/build/<name>-<lock digest>/ (snapshots made once per lock) */
	char *context_sha; /* the context's digest (context.h): what the image reference is made of */
	char *log;     /* the builder's output */
	int reused;    /* the image existed already */
	int recorded;  /* it is the image asked for by its id (image_build()'s prefer), not the context's tag */
};

#define BUILT_IMAGE_INIT { NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0 }

/* Builds the image of manifest m (its text mbuf) locked by lock (its text lbuf) with builder b, or reuses the
 * image of the same build context (recipe, and so manifest and lock, and runner sources) unless force. prefer
 * ("sha256:<64 hex>", or NULL): an image id recorded by an earlier run (bench reproduce): when the engine has it,
 * it is the image used (out->recorded), whatever the context's tag; otherwise the context's image as above. The
 * context is written either way (its recipe goes into the run). On a failed build: BENCH_E_BUILD, the message
 * names the log, and the log's last lines go to stderr. */
int image_build(struct built_image *out, const struct builder_ops *b, const char *prefer, const struct manifest *m,
		const char *mbuf, size_t mlen, const char *lbuf, size_t llen, int force, FILE *progress,
		volatile sig_atomic_t *stop);
void built_image_release(struct built_image *img);

#endif
