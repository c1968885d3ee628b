/* SPDX-License-Identifier: Apache-2.0 */
/*
 * manifest.h — the parsed and validated manifest (docs/manifest-format.md).
 *
 * Ownership: manifest_parse_file()/manifest_parse_buffer() fill a caller-provided struct manifest that owns
 * every string and array in it; release them with manifest_release(). On failure the struct is released
 * already and diags holds every problem found, positioned as file:line:col.
 */
#ifndef BENCH_MANIFEST_H
#define BENCH_MANIFEST_H

#include <stddef.h>

#include "core/diag.h"
#include "suite.h"

#define MANIFEST_MAX_BYTES (1024 * 1024)
#define MANIFEST_VERSION 1

enum vendor { VENDOR_CUDA, VENDOR_ROCM, VENDOR_CPU };
enum channel { CHANNEL_STABLE, CHANNEL_NIGHTLY, CHANNEL_DEV, CHANNEL_CUSTOM };
enum engine { ENGINE_HOST, ENGINE_PODMAN, ENGINE_DOCKER, ENGINE_APPTAINER };
enum launcher { LAUNCHER_LOCAL, LAUNCHER_MPIRUN, LAUNCHER_SLURM };
enum source { SOURCE_PIP, SOURCE_GIT, SOURCE_APT, SOURCE_PATH };

extern const char *const vendor_names[];   /* indexed by enum vendor, NULL-terminated */
extern const char *const channel_names[];
extern const char *const engine_names[];
extern const char *const launcher_names[];
extern const char *const source_names[];

struct component {
	char *name;
	enum source source;
	char *pip;     /* version, or "nightly" */
	char *date;    /* nightly date YYYY-MM-DD, "today" or "latest" (resolved by bench lock) */
	char *index;   /* package index URL */
	char *git;     /* repository URL */
	char *ref;     /* branch, tag or commit */
	char **build;  /* build commands run in the checkout, in order (one line each, no control characters) */
	size_t nbuild;
	char *apt;     /* Debian/Ubuntu package */
	char *version; /* apt version */
	char *path;    /* engine host: an existing prefix or library directory (docs/stacks.md, "Host stacks") */
	char **libs;   /* path: the library file names it pins (fnmatch patterns); none: every shared object */
	size_t nlibs;
	int line, col;
};

/* The interpreter and platform pip wheels are chosen for (docs/manifest-format.md, "stack.wheel_target"): each
 * field NULL where the manifest leaves it to images/bases/<vendor>.yaml. */
struct wheel_target {
	char *python;      /* "3.12" */
	char *abi;         /* "cp312" */
	char *platform;    /* "manylinux_2_39_x86_64": the newest glibc the target has, and its architecture */
	char *accelerator; /* the local version label of the target's builds: "cu130", "rocm7.1", "cpu" */
	int line, col;
};

struct env_var {
	char *name;
	char *value;
};

/* variants: one manifest measured under several environments, each a stack of its own named <name>+<variant>
 * (docs/manifest-format.md, "Env profiles and variants") */
struct env_variant {
	char *name;
	char **profiles;     /* its env_profiles, by name */
	size_t nprofiles;
	struct env_var *env; /* its profiles' variables then its own env, merged (later wins) */
	size_t nenv;
	int line, col;
};

struct slurm_cfg {
	char *partition; /* NULL: the site default */
	char *time;      /* Slurm time limit, "HH:MM:SS" */
	char *account;   /* NULL: none */
	char *container; /* pyxis | apptainer | none */
	char *mpi;       /* srun --mpi: pmix | pmi2 | none */
	char **extra_args;
	size_t n_extra_args;
};

struct manifest {
	char *path;
	int version;
	char *name;
	char *description;
	enum channel channel;
	struct {
		enum vendor vendor;
		char *gpu; /* key into images/bases/peaks.yaml, or NULL */
		long long nodes;
		long long gpus_per_node;
	} target;
	struct {
		char *base;
		struct component *components;
		size_t ncomponents;
		char **profiles;     /* stack.env_profiles, by name */
		size_t nprofiles;
		struct env_var *env; /* the profiles' variables, then stack.env's own (which win) */
		size_t nenv;
		struct wheel_target wheel_target;
	} stack;
	struct env_variant *variants;
	size_t nvariants;
	char *variant;       /* the variant applied (manifest_apply_variant), else NULL */
	struct {
		enum engine engine;
		enum launcher launcher;
		long long timeout_ns;
		struct slurm_cfg slurm;
	} runtime;
	struct suite_cfg *suites; /* in registry order */
	size_t nsuites;
	int has_pricing;
	double usd_per_gpu_hour;
	char *pricing_source; /* pricing.source: where the price comes from (free text), or NULL */
};

#define MANIFEST_INIT { 0 }

int manifest_parse_file(struct manifest *out, struct diag_list *diags, const char *path);
int manifest_parse_buffer(struct manifest *out, struct diag_list *diags, const char *file, const char *buf,
			  size_t len);
void manifest_release(struct manifest *m);
/* Makes m the stack of its variant vname: the variant's variables over stack.env, the name <name>+<vname>.
 * 0, or BENCH_E_USAGE (error set) when m has no such variant. */
int manifest_apply_variant(struct manifest *m, const char *vname);
const struct suite_cfg *manifest_suite(const struct manifest *m, const char *name);
/* 1 when s is a calendar date YYYY-MM-DD of the year 2000 or later (month lengths and leap years), else 0. */
int manifest_date_ok(const char *s);

#endif
