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
/* What a flagged variable does, for the line naming it (docs/bundle-format.md, the trust model, item 3). */
enum trust_hook {
	TRUST_HOOK_NONE,
	TRUST_HOOK_CODE,   /* loads code into the programs it reaches, or changes which program starts */
	TRUST_HOOK_ENGINE, /* changes what the container engine or launcher itself runs (or on which machine) */
	TRUST_HOOK_CACHE,  /* where compiled code (kernels, extensions) is written and later loaded from */
	TRUST_HOOK_WRITE,  /* makes a program write (a log, a dump, a trace; truncating it) to the path it names */
	TRUST_HOOK_PLUGIN, /* a plug-in: the signer's code, imported, run or loaded by the runner */
};
/* trust_env_hook() with its kind in *kind (TRUST_HOOK_NONE and NULL when not flagged); APPTAINERENV_X and
 * SINGULARITYENV_X are judged as X. */
const char *trust_env_hook_kind(const char *name, enum trust_hook *kind);
/* the words the reproduce listing puts before WHY for kind (a static string) */
const char *trust_hook_label(enum trust_hook kind);
/* Everything in m that executes or changes how programs start, in manifest order (each runtime.slurm.extra_args
 * item judged as sbatch parses it: --export's names, the files it writes, the directory and the script it runs),
 * with what lock (a manifest.lock.json; NULL: none) pins for it: the exact wheels (URL and sha256), git commit, host
 * path and base image digest that are fetched and built, for those, not the manifest's index or ref, are what a
 * locked build uses:
 * [{"what": "runtime.engine" | "runtime.launcher" | "runtime.slurm.extra_args" | "stack.base" | "stack.base.locked" |
 *   "stack.components.NAME" | "stack.components.NAME.locked" | "stack.components.NAME.build" | "stack.env.NAME" |
 *   "suites.SUITE.env_matrix.NAME" | "suites.SUITE.plugin.NAME", "value": TEXT,
 *   "hook": WHY, "hook_label": trust_hook_label() of its kind (stack.env and env_matrix, when
 *   trust_env_hook() names it; every plug-in, TRUST_HOOK_PLUGIN)}]. A plug-in's value: "python MODULE:FUNCTION
 * (imported and called by the runner)", or "file|native PATH sha256 HEX (...)" with the sha256 of the file
 * plugin_path(manifest_path, PATH) reads (a bundle's inputs/ copy), and the lock's pin when it differs. */
json_t *trust_exec_items(const struct manifest *m, json_t *lock, const char *manifest_path);

#endif
