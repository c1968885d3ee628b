/* SPDX-License-Identifier: Apache-2.0 */
/*
 * recipe.h — the container recipe of a stack: a pure function of manifest + lock + images/bases/<vendor>.yaml,
 * byte-stable. A small IR (FROM, LABEL, ENV, RUN in exec form, COPY, WORKDIR) and one emitter per format
 * (Containerfile, apptainer definition). Manifest and lock values never leave their instruction: RUN takes an
 * argv (JSON exec form), ENV and LABEL values are escaped, and everything else is validated first.
 *
 * Ownership: struct recipe owns its instructions (recipe_release()); emitters append to a caller's strbuf.
 */
#ifndef BENCH_RECIPE_H
#define BENCH_RECIPE_H

#include <stddef.h>

#include <jansson.h>

#include "core/strbuf.h"
#include "manifest/manifest.h"

/* RECIPE_ENV_PREPEND: a search path variable (PATH, LD_LIBRARY_PATH, ...) with directories put in front of what the
 * base image has. Written by bench alone (never from a manifest value), so its value may refer to the variable:
 * ENV a="b${a:+:${a}}", or with a fallback for a base that leaves it unset, ENV a="b:${a:-c}". */
enum recipe_op { RECIPE_FROM, RECIPE_LABEL, RECIPE_ENV, RECIPE_ENV_PREPEND, RECIPE_RUN, RECIPE_COPY, RECIPE_WORKDIR };

struct recipe_instr {
	enum recipe_op op;
	char *a, *b;     /* FROM image [AS stage]; LABEL/ENV key value; ENV_PREPEND name dirs, fallback (c or NULL);
			  * COPY src dst (b), from stage (c); WORKDIR dir */
	char *c;
	char **argv;     /* RUN */
	size_t argc;
};

struct recipe {
	char *header;    /* a comment: what this is generated from */
	struct recipe_instr *v;
	size_t n, alloc;
};

#define RECIPE_INIT { NULL, NULL, 0, 0 }

/* Builds the recipe. lock: the parsed lock (required: the base is pinned by digest, wheels by sha256).
 * vendor_file: images/bases/<vendor>.yaml (NULL: from the data directory). Returns 0 or a negative code
 * (BENCH_E_MANIFEST for a lock that does not belong to the manifest or holds unsafe values). */
int recipe_build(struct recipe *out, const struct manifest *m, json_t *lock, const char *manifest_sha,
		 const char *lock_sha);
/* The emitters refuse (BENCH_E_MANIFEST, nothing appended) a recipe holding a control character in any value:
 * neither format can carry one inside an instruction. */
int recipe_emit_containerfile(struct strbuf *out, const struct recipe *r);
int recipe_emit_apptainer(struct strbuf *out, const struct recipe *r);
void recipe_release(struct recipe *r);
/* The GPU run flags of the target's vendor for engine (images/bases/<vendor>.yaml run_flags.<engine>): a new
 * array of *n new strings (free each, then the array). */
int recipe_run_flags(char ***out, size_t *n, const struct manifest *m, const char *engine);
/* POSIX shell single-quoting: 'it'\''s' */
void recipe_sh_quote(struct strbuf *out, const char *s);

#endif
