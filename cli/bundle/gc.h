/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gc.h — bench gc: what a runs directory holds beyond the retention policy. A run is a run directory
 * <name>-<YYYYMMDDTHHMMSSZ>-<id>/ with its bundle <dir>.bench.tar.gz (and .intoto.jsonl) beside it; the last keep
 * runs of each manifest name are kept, and so is every run whose bundle a results repository holds (by sha256,
 * under its runs/) and every run whose status.json says running. With caches (gc_plan_caches), what $BENCH_HOME
 * holds for stacks goes too unless a kept run or a given lock names it: build contexts ($BENCH_HOME/cache/build),
 * apptainer images (cache/sif), git caches (cache/git), host stacks ($BENCH_HOME/stacks), and the podman or docker
 * image each build context that goes was built into (its context.sha256 names the tag); what another bench holds
 * locked (a build under way) is never touched, nor an image whose build context is not in this $BENCH_HOME.
 *
 * Ownership: gc_plan_runs() fills a caller-provided struct gc_plan that owns its items' strings; release them with
 * gc_plan_release().
 */
#ifndef BENCH_GC_H
#define BENCH_GC_H

#include <stddef.h>

#include "core/strvec.h"

enum gc_kind { GC_RUN, GC_CACHE, GC_IMAGE };

struct gc_item {
	enum gc_kind kind;
	char *path;          /* the run directory, the cache's path, or the image's tag (GC_IMAGE) */
	char *bundle;        /* a run's bundle beside it, or NULL */
	char *engine;        /* GC_IMAGE: podman or docker */
	unsigned long long bytes; /* directory, bundle and envelope */
};

struct gc_plan {
	struct gc_item *items;
	size_t n, alloc;
	size_t kept;         /* runs kept */
	size_t nruns;        /* items that are runs (the first nruns) */
	size_t caches_kept;  /* caches and images kept */
	struct strvec kept_runs; /* the kept run directories' paths */
};

#define GC_PLAN_INIT { NULL, 0, 0, 0, 0, 0, STRVEC_INIT }

/* The runs under runs_dir beyond the policy: keep the newest keep of each manifest name, and every run whose
 * bundle repo (NULL: none) holds. Returns 0, or BENCH_E_IO naming the directory that cannot be read. */
int gc_plan_runs(struct gc_plan *out, const char *runs_dir, size_t keep, const char *repo);
/* After gc_plan_runs(): adds the caches and images no kept run of p and no lock of locks (NULL-terminated lock
 * files, each read with the manifest beside it: X.lock.json and X.yaml) names. Returns 0, or BENCH_E_IO naming a lock
 * that cannot be read (then nothing is planned). */
int gc_plan_caches(struct gc_plan *p, char *const *locks);
/* Removes every item of p (the run directory, its bundle and envelope). Returns 0, or BENCH_E_IO naming the first
 * path that could not be removed. */
int gc_apply(const struct gc_plan *p);
void gc_plan_release(struct gc_plan *p);

#endif
