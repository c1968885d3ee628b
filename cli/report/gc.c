/* SPDX-License-Identifier: Apache-2.0 */
/* gc.c — the runs beyond a retention policy (gc.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "gc.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "core/strvec.h"

struct run_ent {
	char *dir;   /* the directory's name */
	char *name;  /* the manifest name: dir without -<time>-<id> */
	char *when;  /* YYYYMMDDTHHMMSSZ */
};

/* "<name>-YYYYMMDDTHHMMSSZ-<id>": splits the name off; 0 when dir is not a run directory's name. */
static int run_name_split(struct run_ent *e, const char *dir)
{
	const char *id = strrchr(dir, '-'), *t;

	if (!id || id == dir || !id[1])
		return 0;
	for (t = id - 1; t > dir && *t != '-'; t--)
		;
	if (*t != '-' || id - t - 1 != 16 || t[9] != 'T' || t[16] != 'Z' || t == dir)
		return 0;
	e->dir = xstrdup(dir);
	e->name = xstrndup(dir, (size_t)(t - dir));
	e->when = xstrndup(t + 1, 16);
	return 1;
}

static int run_ent_newest_first(const void *a, const void *b)
{
	const struct run_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	c = strcmp(y->when, x->when);
	return c ? c : strcmp(y->dir, x->dir);
}

static unsigned long long tree_bytes;

static int tree_add(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path;
	(void)flag;
	(void)f;
	if (S_ISREG(st->st_mode))
		tree_bytes += (unsigned long long)st->st_size;
	return 0;
}

static unsigned long long path_bytes(const char *path)
{
	tree_bytes = 0;
	nftw(path, tree_add, 16, FTW_PHYS);
	return tree_bytes;
}

static struct strvec *published_set;

static int published_add(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	size_t n = strlen(path), s = strlen(".bench.tar.gz");
	char sha[65];

	(void)f;
	if (flag == FTW_F && S_ISREG(st->st_mode) && n > s && !strcmp(path + n - s, ".bench.tar.gz") &&
	    fs_sha256_file(sha, path) == 0)
		strvec_push(published_set, sha);
	return 0;
}

static int published_has(const struct strvec *sv, const char *sha)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], sha))
			return 1;
	return 0;
}

static int run_is_running(const char *runs_dir, const char *dir)
{
	char *p = xstrfmt("%s/%s/status.json", runs_dir, dir);
	json_t *st = json_load_file(p, 0, NULL);
	int yes = st && !strcmp(json_string_value(json_object_get(st, "state")) ? json_string_value(json_object_get(st, "state")) : "", "running");

	json_decref(st);
	free(p);
	return yes;
}

static void gc_plan_push(struct gc_plan *p, char *path, char *bundle)
{
	struct gc_item *it;

	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 16;
		p->items = xrealloc(p->items, p->alloc * sizeof(*p->items));
	}
	it = &p->items[p->n++];
	it->path = path;
	it->bundle = bundle;
	it->bytes = path_bytes(path);
	if (bundle) {
		char *env = xstrfmt("%s.intoto.jsonl", bundle);

		it->bytes += path_bytes(bundle) + (access(env, F_OK) == 0 ? path_bytes(env) : 0);
		free(env);
	}
}

int gc_plan_runs(struct gc_plan *out, const char *runs_dir, size_t keep, const char *repo)
{
	struct strvec published = STRVEC_INIT;
	struct run_ent *ents = NULL;
	size_t n = 0, alloc = 0, in_name = 0;
	DIR *d = opendir(runs_dir);
	struct dirent *de;
	int err = 0;

	if (!d)
		return bench_error_set(BENCH_E_IO, "cannot read the runs directory '%s': %s", runs_dir, strerror(errno));
	while ((de = readdir(d))) {
		char *p = xstrfmt("%s/%s", runs_dir, de->d_name);
		struct stat st;
		struct run_ent e;

		if (de->d_name[0] != '.' && lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && run_name_split(&e, de->d_name)) {
			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 32;
				ents = xrealloc(ents, alloc * sizeof(*ents));
			}
			ents[n++] = e;
		}
		free(p);
	}
	closedir(d);
	if (repo) {
		char *r = xstrfmt("%s/runs", repo);
		struct stat st;

		if (stat(r, &st) != 0 || !S_ISDIR(st.st_mode)) {
			err = bench_error_set(BENCH_E_IO, "'%s' is not a results repository (no runs/)", repo);
			free(r);
			goto cleanup;
		}
		published_set = &published;
		nftw(r, published_add, 16, FTW_PHYS);
		published_set = NULL;
		free(r);
	}
	if (n)
		qsort(ents, n, sizeof(*ents), run_ent_newest_first);
	for (size_t i = 0; i < n; i++) {
		char *bundle = xstrfmt("%s/%s.bench.tar.gz", runs_dir, ents[i].dir);
		char sha[65];
		int has_bundle = access(bundle, F_OK) == 0;

		in_name = i && !strcmp(ents[i].name, ents[i - 1].name) ? in_name + 1 : 0;
		if (in_name < keep || run_is_running(runs_dir, ents[i].dir) ||
		    (has_bundle && published.n && fs_sha256_file(sha, bundle) == 0 && published_has(&published, sha))) {
			out->kept++;
			free(bundle);
			continue;
		}
		if (!has_bundle) {
			free(bundle);
			bundle = NULL;
		}
		gc_plan_push(out, xstrfmt("%s/%s", runs_dir, ents[i].dir), bundle);
	}
cleanup:
	for (size_t i = 0; i < n; i++) {
		free(ents[i].dir);
		free(ents[i].name);
		free(ents[i].when);
	}
	free(ents);
	strvec_release(&published);
	return err;
}

int gc_apply(const struct gc_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct gc_item *it = &p->items[i];

		if (it->bundle) {
			char *env = xstrfmt("%s.intoto.jsonl", it->bundle);
			int bad = (unlink(it->bundle) != 0 && errno != ENOENT) || (unlink(env) != 0 && errno != ENOENT);

			free(env);
			if (bad)
				return bench_error_set(BENCH_E_IO, "cannot remove '%s': %s", it->bundle, strerror(errno));
		}
		if (fs_remove_tree(it->path) != 0)
			return bench_error_set(BENCH_E_IO, "cannot remove '%s': %s", it->path, strerror(errno));
	}
	return 0;
}

void gc_plan_release(struct gc_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->items[i].path);
		free(p->items[i].bundle);
	}
	free(p->items);
	*p = (struct gc_plan)GC_PLAN_INIT;
}
