/* SPDX-License-Identifier: Apache-2.0 */
/* runlist.c — the runs and bundles under a directory (runlist.h). */
#include "runlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "stats/compare.h"
#include "core/escape.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "manifest/lock.h"
#include "bundle/sign.h"

#define BUNDLE_SUFFIX ".bench.tar.gz"

/* The facts of plan.json and status.json (either may be NULL) into e; a member that is not JSON says so. */
static void take_docs(json_t *e, const char *plan_text, const char *status_text)
{
	json_t *plan = plan_text ? json_loads(plan_text, 0, NULL) : NULL;
	json_t *status = status_text ? json_loads(status_text, 0, NULL) : NULL;

	if (plan_text && !json_is_object(plan))
		json_object_set_new(e, "error", json_string("plan.json is not a JSON object"));
	if (status_text && !json_is_object(status))
		json_object_set_new(e, "error", json_string("status.json is not a JSON object"));
	if (!status_text && !json_object_get(e, "error"))
		json_object_set_new(e, "error", json_string("no status.json"));
	if (json_is_string(json_object_get(plan, "name")))
		json_object_set(e, "manifest", json_object_get(plan, "name"));
	else if (json_is_string(json_object_get(status, "run")))
		json_object_set(e, "manifest", json_object_get(status, "run"));
	if (json_is_string(json_object_get(plan, "channel")))
		json_object_set(e, "channel", json_object_get(plan, "channel"));
	if (json_is_string(json_object_get(status, "started")))
		json_object_set(e, "started", json_object_get(status, "started"));
	if (json_is_string(json_object_get(status, "state")))
		json_object_set(e, "state", json_object_get(status, "state"));
	if (json_is_array(json_object_get(status, "cases"))) { /* the counts compare reads a run's health by */
		json_t *h = compare_run_health(status);

		json_object_set(e, "counts", json_object_get(h, "counts"));
		json_decref(h);
	}
	json_decref(plan);
	json_decref(status);
}

static void list_run(json_t *e, const char *path)
{
	char *plan = NULL, *status = NULL, *p;
	size_t len;

	p = xstrfmt("%s/plan.json", path);
	if (!access(p, F_OK) && fs_read_file(&plan, &len, p, BUNDLE_MAX_MEMBER) < 0)
		json_object_set_new(e, "error", esc_json_string(bench_error_last()));
	free(p);
	p = xstrfmt("%s/status.json", path);
	if (!access(p, F_OK) && fs_read_file(&status, &len, p, BUNDLE_MAX_MEMBER) < 0)
		json_object_set_new(e, "error", esc_json_string(bench_error_last()));
	free(p);
	if (!json_object_get(e, "error"))
		take_docs(e, plan, status);
	/* "running" with no bench holding the directory's lock (run.c takes it for the whole run): the bench that ran it
	 * was killed (SIGKILL, a crash, the machine) and the state will never change */
	if (!strcmp(json_string_value(json_object_get(e, "state")) ? json_string_value(json_object_get(e, "state")) : "",
		    "running")) {
		int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) == 0)
			json_object_set_new(e, "stale", json_true());
		if (fd >= 0)
			close(fd);
	}
	free(plan);
	free(status);
}

/* ---- the verification cache ------------------------------------------------------------------------------------
 * $BENCH_HOME/cache/ls/<digest of the directory's real path>.json: per bundle name, what a full verification found,
 * under the identity of the bundle and its envelope (device, inode, size, mtime and ctime, to the nanosecond) and of
 * the keys it was verified against. Any write to either file, a rename over it or a chmod moves its ctime, which no
 * user can set back: such a bundle is verified afresh. Only successful verifications are kept; a bundle that does
 * not verify is verified again on every listing. */

struct ls_cache {
	char *path;       /* the cache file, NULL: no cache */
	char *keyring;    /* digest of the keys verifications are made with */
	json_t *old;      /* the entries read (name -> {id, entry}) */
	json_t *now;      /* the entries of this listing */
	int reuse;        /* 0: --verify, every bundle verified afresh */
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void file_id(struct strbuf *sb, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		strbuf_addf(sb, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld;", (unsigned long long)st.st_dev,
			    (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			    st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	else
		strbuf_addstr(sb, "-;");
}

static void keyring_add(struct strbuf *sb, const char *path)
{
	char *buf = NULL, sha[65];
	size_t len;

	strbuf_addf(sb, "%s\n", path);
	if (fs_read_file(&buf, &len, path, 1u << 20) == 0) {
		lock_sha256_hex(sha, buf, len);
		strbuf_addf(sb, "%s\n", sha);
	}
	free(buf);
}

static void ls_cache_open(struct ls_cache *c, const char *dir, char *const *keys, int reuse)
{
	struct strbuf sb = STRBUF_INIT;
	char real[4096], sha[65];

	memset(c, 0, sizeof(*c));
	c->now = json_object();
	c->reuse = reuse;
	if (!realpath(dir, real))
		return;
	if (keys) {
		for (size_t i = 0; keys[i]; i++)
			keyring_add(&sb, keys[i]);
	} else { /* the trusted keys: $BENCH_HOME's own and those in trusted/ */
		char *t = xstrfmt("%s/trusted", sign_home()), *own = xstrfmt("%s/signing.pub.pem", sign_home());
		struct strvec names = STRVEC_INIT;
		DIR *d = opendir(t);
		struct dirent *de;

		keyring_add(&sb, own);
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				strvec_push(&names, de->d_name);
		if (d)
			closedir(d);
		if (names.n) /* (qsort of NULL, 0: undefined, UBSan says) */
			qsort(names.v, names.n, sizeof(*names.v), str_cmp);
		for (size_t i = 0; i < names.n; i++) {
			char *k = xstrfmt("%s/%s", t, names.v[i]);

			keyring_add(&sb, k);
			free(k);
		}
		strvec_release(&names);
		free(t);
		free(own);
	}
	lock_sha256_hex(sha, sb.buf ? sb.buf : "", sb.len);
	c->keyring = xstrdup(sha);
	lock_sha256_hex(sha, real, strlen(real));
	c->path = xstrfmt("%s/cache/ls/%.32s.json", fs_bench_home(), sha);
	if (reuse) {
		json_t *j = NULL;

		fs_load_json(&j, c->path, 64u << 20, O_NOFOLLOW); /* $BENCH_HOME/cache/ls: a FIFO there is no cache */

		if (j && !strcmp(json_string_value(json_object_get(j, "keyring")) ? json_string_value(json_object_get(j, "keyring")) : "", c->keyring))
			c->old = json_incref(json_object_get(j, "bundles"));
		json_decref(j);
	}
	strbuf_release(&sb);
}

static char *bundle_id(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *env = xstrfmt("%s.intoto.jsonl", path);

	file_id(&sb, path);
	file_id(&sb, env);
	free(env);
	return strbuf_detach(&sb);
}

/* The cached entry of bundle name at path, or NULL when there is none for the files as they are now. */
static json_t *ls_cache_get(struct ls_cache *c, const char *name, const char *id)
{
	json_t *o = json_object_get(c->old, name);
	const char *was = json_string_value(json_object_get(o, "id"));

	if (!c->reuse || !was || strcmp(was, id) || !json_is_object(json_object_get(o, "entry")))
		return NULL;
	json_object_set(c->now, name, o);
	return json_deep_copy(json_object_get(o, "entry"));
}

static void ls_cache_put(struct ls_cache *c, const char *name, const char *id, json_t *e)
{
	if (c->path && !strcmp(json_string_value(json_object_get(e, "verify")) ? json_string_value(json_object_get(e, "verify")) : "",
			       "verified"))
		json_object_set_new(c->now, name, json_pack("{s:s, s:O}", "id", id, "entry", e));
}

/* Writes the cache when it changed (bundles gone drop out of it); a cache that cannot be written is no error. */
static void ls_cache_close(struct ls_cache *c)
{
	/* no cache before: it changed unless nothing is in it now */
	int changed = c->old ? !json_equal(c->old, c->now) : json_object_size(c->now) > 0;

	if (c->path && changed) {
		json_t *j = json_pack("{s:s, s:s, s:O}", "schema", "bench.ls-cache/v1", "keyring", c->keyring, "bundles", c->now);
		char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS), *dir = xstrfmt("%s/cache/ls", fs_bench_home());
		char *tmp = xstrfmt("%s.%d.tmp", c->path, (int)getpid());

		if (text && fs_mkdir_p(dir) == 0 && fs_write_file(tmp, text, strlen(text), 0644) == 0 && rename(tmp, c->path) != 0)
			unlink(tmp);
		free(text);
		free(dir);
		free(tmp);
		json_decref(j);
	}
	free(c->path);
	free(c->keyring);
	json_decref(c->old);
	json_decref(c->now);
}

static void list_bundle(json_t *e, const char *path, char *const *keys)
{
	static const char *const names[] = { "plan.json", "status.json", NULL };
	char *env = xstrfmt("%s.intoto.jsonl", path), *run = NULL;
	json_t *m = NULL;
	struct stat st;
	int err;

	if (stat(env, &st) < 0) { /* no envelope beside it: not signed; its contents are still read */
		json_object_set_new(e, "verify", json_string("not signed"));
	} else {
		struct bundle_verify_result vr = BUNDLE_VERIFY_RESULT_INIT;
		struct bundle_members bm;
		struct bundle_sink sink;
		struct bundle_limits lim;

		bundle_limits_default(&lim);
		bundle_members_init(&bm, &sink, names, BUNDLE_MAX_MEMBER);
		if ((err = bundle_verify_read(&vr, path, NULL, keys, sign_home(), &lim, &sink)) == 0) {
			m = json_incref(bm.out);
			json_object_set_new(e, "verify", json_string("verified"));
			json_object_set_new(e, "keyid", json_string(vr.keyid));
		} else {
			json_object_set_new(e, "verify", json_string("UNVERIFIED"));
			json_object_set_new(e, "error", esc_json_string(bench_error_last()));
		}
		bundle_members_release(&bm);
		bundle_verify_result_release(&vr);
	}
	/* not verified: what it says of itself, read without trusting it, when it can be read at all */
	if (!m && (err = bundle_read_members(&m, &run, path, names, BUNDLE_MAX_MEMBER)) < 0 && !json_object_get(e, "error"))
		json_object_set_new(e, "error", esc_json_string(bench_error_last()));
	if (m) {
		const char *err_before = json_string_value(json_object_get(e, "error"));
		char *keep = err_before ? xstrdup(err_before) : NULL;

		take_docs(e, json_string_value(json_object_get(m, "plan.json")), json_string_value(json_object_get(m, "status.json")));
		if (keep) /* the verification failure is the reason that matters */
			json_object_set_new(e, "error", json_string(keep));
		free(keep);
	}
	json_decref(m);
	free(run);
	free(env);
}

/*
 * A new listing entry. A name or path that is not well-formed UTF-8 (a directory may be named with any bytes) cannot
 * be a JSON string: it is kept with those bytes as \xNN, as esc_text() shows them; the entry then names the file the
 * same way the terminal listing does. Opening the file uses the bytes from the disk, never these strings.
 */
static json_t *entry_new(const char *name, const char *kind, const char *path)
{
	json_t *e = json_object(), *n = esc_json_string(name), *p = esc_json_string(path);

	json_object_set_new(e, "name", n);
	json_object_set_new(e, "kind", json_string(kind));
	json_object_set_new(e, "path", p);
	return e;
}

static int cmp_entry(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	const char *sx = json_string_value(json_object_get(x, "started")), *sy = json_string_value(json_object_get(y, "started"));
	int c;

	if (!sx != !sy)
		return sx ? -1 : 1;
	if (sx && (c = strcmp(sx, sy)))
		return c;
	sx = json_string_value(json_object_get(x, "name"));
	sy = json_string_value(json_object_get(y, "name"));
	return strcmp(sx ? sx : "", sy ? sy : "");
}

int runlist_collect(json_t **out, const char *dir, char *const *keys, int verify)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	json_t **v = NULL, *arr;
	size_t n = 0;
	struct ls_cache cache;

	*out = NULL;
	if (!d)
		return bench_error_set(BENCH_E_IO, "cannot open '%s': %s", dir, strerror(errno));
	ls_cache_open(&cache, dir, keys, !verify);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char *path;
		struct stat st;
		json_t *e;

		if (de->d_name[0] == '.')
			continue;
		path = xstrfmt("%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0) {
			int why = errno;

			if (!(l > strlen(BUNDLE_SUFFIX) && !strcmp(de->d_name + l - strlen(BUNDLE_SUFFIX), BUNDLE_SUFFIX)) ||
			    lstat(path, &st) < 0) { /* gone since readdir(): nothing to list */
				free(path);
				continue;
			}
			/* named like a bundle but not to be opened (a dangling link, a link loop): listed with the reason */
			e = entry_new(de->d_name, "bundle", path);
			json_object_set_new(e, "verify", json_string("UNVERIFIED"));
			json_object_set_new(e, "error", json_string(strerror(why)));
			free(path);
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = e;
			continue;
		}
		if (S_ISDIR(st.st_mode) && !(l > strlen(BUNDLE_SUFFIX) && !strcmp(de->d_name + l - strlen(BUNDLE_SUFFIX), BUNDLE_SUFFIX))) {
			char *a = xstrfmt("%s/status.json", path), *b = xstrfmt("%s/plan.json", path), *c = xstrfmt("%s/summary.json", path);
			int is_run = !access(a, F_OK) || !access(b, F_OK) || !access(c, F_OK);

			free(a);
			free(b);
			free(c);
			if (!is_run) {
				free(path);
				continue;
			}
			e = entry_new(de->d_name, "run", path);
			list_run(e, path);
		} else if (l > strlen(BUNDLE_SUFFIX) && !strcmp(de->d_name + l - strlen(BUNDLE_SUFFIX), BUNDLE_SUFFIX)) {
			char *id;

			if (!S_ISREG(st.st_mode)) { /* a FIFO, device or directory named like a bundle: listed as an error, never cached */
				e = entry_new(de->d_name, "bundle", path);
				if (!json_object_set_new(e, "verify", json_string("UNVERIFIED")))
					json_object_set_new(e, "error", json_string("not a regular file"));
			} else if ((e = ls_cache_get(&cache, de->d_name, (id = bundle_id(path))))) { /* as listed now: this path */
				json_object_set_new(e, "path", esc_json_string(path));
				json_object_set_new(e, "cached", json_true());
				free(id);
			} else {
				e = entry_new(de->d_name, "bundle", path);
				list_bundle(e, path, keys);
				ls_cache_put(&cache, de->d_name, id, e);
				free(id);
			}
		} else {
			free(path);
			continue;
		}
		free(path);
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = e;
	}
	closedir(d);
	ls_cache_close(&cache);
	if (n)
		qsort(v, n, sizeof(*v), cmp_entry);
	arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
	*out = arr;
	return 0;
}
