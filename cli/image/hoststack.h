/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hoststack.h — stacks on the host (engine host, docs/stacks.md "Host stacks"): a manifest's components made into
 * directories on this machine instead of an image. A git component is built by bench with the image's build
 * contract ($BENCH_PREFIX) into a content-addressed prefix, $BENCH_HOME/stacks/<digest of commit and build>/<name>,
 * once: two manifests pinning the same commit and build share it. A pip component's locked closure is installed
 * into a virtual environment, $BENCH_HOME/stacks/<digest of the closure>/venv. A path component is an existing
 * prefix, pinned by the lock's digests of its libraries. host_stack_load() turns them into what the runners see:
 * directories prepended to PATH, LD_LIBRARY_PATH and PYTHONPATH, the interpreter of a pip stack, and the
 * libraries each component provides (what the loaded-library proof holds the runners' records against).
 *
 * Ownership: a struct host_stack owns everything in it; host_stack_release() frees it and leaves it empty.
 * host_stack_json() returns a new reference.
 */
#ifndef BENCH_HOSTSTACK_H
#define BENCH_HOSTSTACK_H

#include <signal.h>
#include <stdio.h>

#include <jansson.h>

#include "core/strvec.h"
#include "manifest/manifest.h"

struct host_component {
	char *name;
	enum source source;
	char *prefix;   /* git: the built prefix; path: the manifest's path; pip: the virtual environment */
	json_t *libs;   /* the libraries it pins: [{soname, file, real, sha256}] (path: the lock's, git: its build's) */
	json_t *build;  /* git and pip: the build record (build.json: seconds, started, log) */
};

struct host_stack {
	struct host_component *c;
	size_t n;
	struct strvec path, ld, pythonpath; /* what is prepended, in order (the first component's first) */
	char *python;                       /* a pip stack's interpreter, else NULL */
};

#define HOST_STACK_INIT { 0 }

/* Builds what m's locked components need on this host: every git component not built yet (or all with force) and
 * every pip component's environment, with progress lines on progress (NULL: quiet): "bench: build: NAME: ...".
 * A component already built is reported up to date, with how long the check took. Returns 0, BENCH_E_BUILD with
 * the build log's path (a build that fails, or installs nothing into its prefix), BENCH_E_MANIFEST (the lock lacks
 * a component), BENCH_E_SUITE when stop was raised. host_stack_load() after it checks one provider per library. */
int host_stack_build(const struct manifest *m, json_t *lock, int force, FILE *progress, volatile sig_atomic_t *stop);

/* The stack of m's locked components as the runners see it. Every git and pip component must have been built
 * (host_stack_build); a path component's directory must exist. Returns 0 or a negative code with the error set. */
int host_stack_load(struct host_stack *out, const struct manifest *m, json_t *lock);

/* env ("NAME=value" entries, the runner's environment) with the stack's directories put in front of PATH,
 * LD_LIBRARY_PATH and PYTHONPATH (the variable's own value kept behind, no empty element added). */
void host_stack_apply_env(struct strvec *env, const struct host_stack *hs);

/* environment.json's "host_stack": per component its source, prefix, pinned libraries and build; "prepended": the
 * directories put in front of each variable; "python". */
json_t *host_stack_json(const struct host_stack *hs);

/* The component that provides soname (the first in manifest order), or NULL. */
const struct host_component *host_stack_provider(const struct host_stack *hs, const char *soname, json_t **out_lib);

/* Pushes onto out the directories under $BENCH_HOME/stacks that m's locked components name (a git or pip
 * component's built prefix's directory, a path component's view of its libraries), whether built or not: what
 * bench gc keeps while a lock or a kept run names them. */
void host_stack_dirs(struct strvec *out, const struct manifest *m, json_t *lock);

/* $BENCH_HOME/stacks (a static string). */
const char *host_stack_root(void);

void host_stack_release(struct host_stack *hs);

#endif
