/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trust.h — what a manifest makes this machine execute, for a person to read before it runs (bench reproduce runs
 * a signer's manifest: docs/bundle-format.md, "Reproducing a bundle: the trust model").
 *
 * Ownership: trust_env_hook() returns a static string; trust_exec_items() returns a new JSON array the caller
 * json_decref()s; the manifest is only read.
 */
#ifndef BENCH_TRUST_H
#define BENCH_TRUST_H

#include <jansson.h>

struct manifest;

/* Why an environment variable named name makes programs load or run code chosen by its value, or change which
 * program starts (the dynamic loader's LD_*, PYTHONPATH, BASH_ENV, NODE_OPTIONS, PATH, ...), or NULL when it
 * is not one of those. */
const char *trust_env_hook(const char *name);
/* Everything in m that executes or changes how programs start, in manifest order, with what lock (a
 * manifest.lock.json; NULL: none) pins for it: the exact wheels (URL and sha256), git commit, host path and base
 * image digest that are fetched and built, for those, not the manifest's index or ref, are what a locked build uses:
 * [{"what": "runtime.engine" | "runtime.launcher" | "runtime.slurm.extra_args" | "stack.base" | "stack.base.locked" |
 *   "stack.components.NAME" | "stack.components.NAME.locked" | "stack.components.NAME.build" | "stack.env.NAME" |
 *   "suites.SUITE.env_matrix.NAME", "value": TEXT,
 *   "hook": WHY (stack.env only, when trust_env_hook() names it)}]. */
json_t *trust_exec_items(const struct manifest *m, json_t *lock);

#endif
