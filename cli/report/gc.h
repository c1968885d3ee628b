/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gc.h — bench gc: what a runs directory holds beyond the retention policy. A run is a run directory
 * <name>-<YYYYMMDDTHHMMSSZ>-<id>/ with its bundle <dir>.bench.tar.gz (and .intoto.jsonl) beside it; the last keep
 * runs of each manifest name are kept, and so is every run whose bundle a results repository holds (by sha256,
 * under its runs/) and every run whose status.json says running.
 *
 * Ownership: gc_plan_runs() fills a caller-provided struct gc_plan that owns its items' strings; release them with
 * gc_plan_release().
 */
#ifndef BENCH_GC_H
#define BENCH_GC_H

#include <stddef.h>

struct gc_item {
	char *path;          /* the run directory */
	char *bundle;        /* its bundle beside it, or NULL */
	unsigned long long bytes; /* directory, bundle and envelope */
};

struct gc_plan {
	struct gc_item *items;
	size_t n, alloc;
	size_t kept;         /* runs kept */
};

#define GC_PLAN_INIT { NULL, 0, 0, 0 }

/* The runs under runs_dir beyond the policy: keep the newest keep of each manifest name, and every run whose
 * bundle repo (NULL: none) holds. Returns 0, or BENCH_E_IO naming the directory that cannot be read. */
int gc_plan_runs(struct gc_plan *out, const char *runs_dir, size_t keep, const char *repo);
/* Removes every item of p (the run directory, its bundle and envelope). Returns 0, or BENCH_E_IO naming the first
 * path that could not be removed. */
int gc_apply(const struct gc_plan *p);
void gc_plan_release(struct gc_plan *p);

#endif
