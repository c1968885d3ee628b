/* SPDX-License-Identifier: Apache-2.0 */
/* gc.c — the runs beyond a retention policy (gc.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "gc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "core/diag.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "image/hoststack.h"
#include "image/snapshot.h"
#include "manifest/lock.h"
#include "manifest/manifest.h"

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
	json_t *st = NULL;
	int yes;

	fs_load_json(&st, p, 64u << 20, 0); /* without blocking: a FIFO there is no status, not a wait */
	yes = st && !strcmp(json_string_value(json_object_get(st, "state")) ? json_string_value(json_object_get(st, "state")) : "", "running");
	json_decref(st);
	free(p);
	return yes;
}

static struct gc_item *gc_plan_add(struct gc_plan *p, enum gc_kind kind, char *path)
{
	struct gc_item *it;

	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 16;
		p->items = xrealloc(p->items, p->alloc * sizeof(*p->items));
	}
	it = &p->items[p->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->path = path;
	return it;
}

static void gc_plan_push(struct gc_plan *p, char *path, char *bundle)
{
	struct gc_item *it = gc_plan_add(p, GC_RUN, path);

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
			strvec_pushf(&out->kept_runs, "%s/%s", runs_dir, ents[i].dir);
			free(bundle);
			continue;
		}
		if (!has_bundle) {
			free(bundle);
			bundle = NULL;
		}
		gc_plan_push(out, xstrfmt("%s/%s", runs_dir, ents[i].dir), bundle);
	}
	out->nruns = out->n;
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

/* ---- caches ---------------------------------------------------------------------------------------------------- */

static int sv_has(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* What one lock names (lpath, with its manifest mpath when that can be read) into live: its build contexts and
 * their images, its git caches, its host stack directories. */
static int live_add(struct strvec *live, const char *mpath, const char *lpath)
{
	const char *cache = snapshot_cache_dir();
	char *lbuf = NULL, lsha[65], *p, *suffix;
	struct manifest m = MANIFEST_INIT;
	struct diag_list diags = DIAG_LIST_INIT;
	json_t *lock = NULL, *e;
	const char *k;
	size_t llen;
	DIR *d;
	int err;

	if ((err = fs_read_file(&lbuf, &llen, lpath, 64u << 20)) < 0)
		return err;
	if (!(lock = json_loadb(lbuf, llen, 0, NULL))) {
		free(lbuf);
		return bench_error_set(BENCH_E_MANIFEST, "the lock '%s' is not valid JSON", lpath);
	}
	lock_sha256_hex(lsha, lbuf, llen);
	/* the build contexts of this lock (cache/build/<name>-<lock sha256>), and the image each was built into */
	p = xstrfmt("%s/build", cache);
	suffix = xstrfmt("-%.16s", lsha);
	if ((d = opendir(p))) {
		struct dirent *de;

		while ((de = readdir(d))) {
			char *ctx, *cp, *csha = NULL;
			size_t clen;

			if (de->d_name[0] == '.' || !ends_with(de->d_name, suffix))
				continue;
			ctx = xstrfmt("%s/%s", p, de->d_name);
			strvec_push(live, ctx);
			cp = xstrfmt("%s/context.sha256", ctx);
			if (fs_read_file(&csha, &clen, cp, 4096) == 0 && clen >= 16) {
				int nl = (int)(strlen(de->d_name) - strlen(suffix));

				strvec_pushf(live, "localhost/bench-%.*s:%.16s", nl, de->d_name, csha);
				strvec_pushf(live, "%s/sif/bench-%.*s-%.16s.sif", cache, nl, de->d_name, csha);
			}
			free(csha);
			free(cp);
			free(ctx);
		}
		closedir(d);
	}
	free(p);
	free(suffix);
	/* the git caches its git components are fetched into */
	json_object_foreach(json_object_get(lock, "components"), k, e) {
		const char *url = json_string_value(json_object_get(e, "git"));
		char uh[65];

		if (!url)
			continue;
		lock_sha256_hex(uh, url, strlen(url));
		strvec_pushf(live, "%s/git/%.32s.git", cache, uh);
	}
	/* its host stacks: the directories its components' pins and builds name */
	if (mpath && access(mpath, F_OK) == 0 && manifest_parse_file(&m, &diags, mpath) == 0)
		host_stack_dirs(live, &m, lock);
	manifest_release(&m);
	diag_list_release(&diags);
	json_decref(lock);
	free(lbuf);
	return 0;
}

/* Another bench builds into dir now (it holds dir/.lock). */
static int dir_busy(const char *dir)
{
	char *p = xstrfmt("%s/.lock", dir);
	int fd = fs_open_regular(p, O_NOFOLLOW), busy = 0; /* a FIFO named .lock: not waited on */

	if (fd >= 0) {
		busy = flock(fd, LOCK_EX | LOCK_NB) != 0;
		close(fd);
	}
	free(p);
	return busy;
}

/* The entries of dir (those ending with suffix, "": all) that live does not name. */
static void plan_dir(struct gc_plan *p, const struct strvec *live, const char *dir, const char *suffix, int want_dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *path;
		struct stat st;

		if (de->d_name[0] == '.' || !ends_with(de->d_name, suffix))
			continue;
		path = xstrfmt("%s/%s", dir, de->d_name);
		if (lstat(path, &st) != 0 || (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) ||
		    sv_has(live, path) || (want_dir && dir_busy(path))) {
			p->caches_kept += lstat(path, &st) == 0;
			free(path);
			continue;
		}
		gc_plan_add(p, GC_CACHE, path)->bytes = path_bytes(path);
	}
	closedir(d);
}

/* The build contexts under dir that live does not name, and the image each was built into (context.sha256 names
 * its tag, localhost/bench-<name>:<digest>) wherever podman or docker holds it. Only images this $BENCH_HOME built
 * are looked at: an image tagged localhost/bench-* whose context is not here (another user's, another BENCH_HOME's)
 * is never touched. A context whose image a kept run names is kept. */
static void plan_contexts(struct gc_plan *p, const struct strvec *live, const char *dir)
{
	static const char *const engines[] = { "podman", "docker" };
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *path, *cp, *csha = NULL, *tag = NULL, *dash = strrchr(de->d_name, '-');
		size_t clen;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		path = xstrfmt("%s/%s", dir, de->d_name);
		cp = xstrfmt("%s/context.sha256", path);
		if (dash && dash != de->d_name && fs_read_file(&csha, &clen, cp, 4096) == 0 && clen >= 16)
			tag = xstrfmt("localhost/bench-%.*s:%.16s", (int)(dash - de->d_name), de->d_name, csha);
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || sv_has(live, path) || (tag && sv_has(live, tag)) ||
		    dir_busy(path)) {
			p->caches_kept++;
		} else {
			gc_plan_add(p, GC_CACHE, xstrdup(path))->bytes = path_bytes(path);
			for (size_t i = 0; tag && i < sizeof(engines) / sizeof(*engines); i++) {
				char *prog = spawn_which(engines[i]), *size = NULL;
				size_t slen;

				if (prog) {
					char *const argv[] = { prog, "image", "inspect", "--format", "{{.Size}}", tag, NULL };

					if (spawn_capture(&size, &slen, argv, 64, 60) == 0 && size && slen && size[0] >= '0' &&
					    size[0] <= '9') {
						struct gc_item *it = gc_plan_add(p, GC_IMAGE, xstrdup(tag));

						it->engine = xstrdup(engines[i]);
						it->bytes = strtoull(size, NULL, 10);
					}
				}
				free(size);
				free(prog);
			}
		}
		free(tag);
		free(csha);
		free(cp);
		free(path);
	}
	closedir(d);
}

int gc_plan_caches(struct gc_plan *p, char *const *locks)
{
	struct strvec live = STRVEC_INIT;
	const char *cache = snapshot_cache_dir();
	char *dir;
	int err = 0;

	for (size_t i = 0; i < p->kept_runs.n; i++) {
		char *mp = xstrfmt("%s/manifest.yaml", p->kept_runs.v[i]), *lp = xstrfmt("%s/manifest.lock.json", p->kept_runs.v[i]);
		char *ip = xstrfmt("%s/image/image.json", p->kept_runs.v[i]);
		json_t *img = NULL;

		fs_load_json(&img, ip, 64u << 20, 0);

		if (json_string_value(json_object_get(img, "image"))) /* the image it ran in, as it recorded it */
			strvec_push(&live, json_string_value(json_object_get(img, "image")));
		if (access(lp, F_OK) == 0)
			live_add(&live, mp, lp); /* a run's lock that cannot be read names nothing */
		json_decref(img);
		free(ip);
		free(mp);
		free(lp);
	}
	for (size_t i = 0; locks && locks[i]; i++) {
		size_t n = strlen(locks[i]);
		char *mp = ends_with(locks[i], ".lock.json") ? xstrfmt("%.*s.yaml", (int)(n - 10), locks[i]) : NULL;

		if (mp && access(mp, F_OK) != 0) {
			free(mp);
			mp = xstrfmt("%.*s.yml", (int)(n - 10), locks[i]);
		}
		err = live_add(&live, mp, locks[i]);
		free(mp);
		if (err < 0)
			goto cleanup;
	}
	dir = xstrfmt("%s/build", cache);
	plan_contexts(p, &live, dir);
	free(dir);
	dir = xstrfmt("%s/sif", cache);
	plan_dir(p, &live, dir, ".sif", 0);
	free(dir);
	dir = xstrfmt("%s/git", cache);
	plan_dir(p, &live, dir, ".git", 1);
	free(dir);
	plan_dir(p, &live, host_stack_root(), "", 1);
cleanup:
	strvec_release(&live);
	return err;
}

int gc_apply(const struct gc_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct gc_item *it = &p->items[i];

		if (it->kind == GC_IMAGE) {
			char *prog = spawn_which(it->engine);
			char *const argv[] = { prog, "rmi", it->path, NULL };
			int rc = prog ? spawn_run_logged(argv, -1, 300, NULL) : -1;

			free(prog);
			if (rc != 0)
				return bench_error_set(BENCH_E_IO, "cannot remove the %s image '%s'", it->engine, it->path);
			continue;
		}

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
		free(p->items[i].engine);
	}
	free(p->items);
	strvec_release(&p->kept_runs);
	*p = (struct gc_plan)GC_PLAN_INIT;
}
