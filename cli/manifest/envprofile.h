/* SPDX-License-Identifier: Apache-2.0 */
/*
 * envprofile.h — named env profiles: sets of environment variables kept as data in images/profiles/<name>.yaml
 * (docs/manifest-format.md, "Env profiles"), which a manifest includes by name (stack.env_profiles, or a
 * variant's env_profiles) instead of a base image presetting them.
 *
 * Ownership: envprofile_load() fills a caller-provided struct env_profile that owns its strings; release it with
 * envprofile_release(). envprofile_names() pushes copies into the caller's strvec.
 */
#ifndef BENCH_ENVPROFILE_H
#define BENCH_ENVPROFILE_H

#include <stddef.h>

#include "core/diag.h"

struct strvec;

struct env_profile {
	char *name;        /* the file's base name */
	char *path;
	char *description; /* NULL when the file has none */
	char *vendor;      /* cuda, rocm, cpu or NULL (any): what the variables are for; informative */
	char **names;      /* the variables, in file order */
	char **values;
	size_t n;
};

#define ENV_PROFILE_INIT { 0 }

/* Loads images/profiles/<name>.yaml of the data directory (name: one of envprofile_names()). 0, or
 * BENCH_E_MANIFEST with diags (file:line:col) when the file is missing or malformed. */
int envprofile_load(struct env_profile *out, struct diag_list *diags, const char *name);
/* The names of the profiles shipped, sorted (nothing when the folder cannot be read). */
void envprofile_names(struct strvec *out);
void envprofile_release(struct env_profile *p);
/* An environment variable name as a profile or a manifest may set it: [A-Za-z_][A-Za-z0-9_]*. */
int envprofile_var_name_ok(const char *s);

#endif
