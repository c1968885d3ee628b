/* SPDX-License-Identifier: Apache-2.0 */
#include "publish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>

#include "../core/error.h"
#include "../core/fs.h"
#include "../core/strbuf.h"
#include "bundle.h"
#include "compare.h"
#include "dashboard.h"
#include "html.h"
#include "sign.h"

struct pub {
	const char *path;
	char *run, *keyid, *name, *channel, *rel;
	struct bundle_verify_result vr; /* open on the verified file: what is committed is what verified */
};

/* the paths written, relative to the repository: staged one by one (never whatever else lies there) */
struct written {
	char **v;
	size_t n, alloc;
};

static void written_add(struct written *w, const char *rel)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], rel))
			return;
	ALLOC_GROW(w->v, w->n + 1, w->alloc);
	w->v[w->n++] = xstrdup(rel);
}

static void written_release(struct written *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

/* a path component from inside a bundle: letters, digits, '.', '_', '-'; not "." or ".." */
static int safe_component(const char *s)
{
	if (!s || !*s || !strcmp(s, ".") || !strcmp(s, "..") || strlen(s) > 128)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' ||
		      *s == '-'))
			return 0;
	return 1;
}

static int mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int err = 0;

	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST)
				err = bench_error_set(BENCH_E_IO, "cannot create '%s': %s", p, strerror(errno));
			*s = '/';
			if (err)
				break;
		}
	if (!err && mkdir(p, 0777) < 0 && errno != EEXIST)
		err = bench_error_set(BENCH_E_IO, "cannot create '%s': %s", p, strerror(errno));
	free(p);
	return err;
}

/* Opens the directory rel ("runs/<name>/<channel>") under the repository one component at a time, creating
 * what is missing, never through a symbolic link: a link anywhere on the way is refused. *out: a descriptor. */
static int open_dir_nofollow(int *out, int repofd, const char *repo, const char *rel)
{
	char *p = xstrdup(rel), *save = NULL, *c;
	int fd = dup(repofd), err = 0;

	*out = -1;
	for (c = strtok_r(p, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		struct stat st;
		int next;

		if (fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT && mkdirat(fd, c, 0777) < 0 && errno != EEXIST) {
			err = bench_error_set(BENCH_E_IO, "cannot create '%s/%s': %s", repo, rel, strerror(errno));
			break;
		}
		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			err = bench_error_set(BENCH_E_FAIL, "'%s' in '%s/%s' is %s; publish writes only inside the results "
					      "repository and refuses links there", c, repo, rel,
					      errno == ELOOP || errno == ENOTDIR ? "a symbolic link or not a directory" : strerror(errno));
			break;
		}
		close(fd);
		fd = next;
	}
	if (err && fd >= 0) {
		close(fd);
		fd = -1;
	}
	*out = fd;
	free(p);
	return err;
}

/* Writes bytes to dir/name through a temporary file beside it (never staged) and a rename; a link at name is
 * refused. */
static int write_at(int dirfd, const char *shown, const char *name, const void *buf, size_t len)
{
	char *tmp = xstrfmt(".%s.%ld.tmp", name, (long)getpid());
	struct stat st;
	int fd = -1, err = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
		err = bench_error_set(BENCH_E_FAIL, "'%s' is a symbolic link or not a file; publish refuses to write through it",
				      shown);
		goto cleanup;
	}
	unlinkat(dirfd, tmp, 0);
	if ((fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", shown, strerror(errno));
		goto cleanup;
	}
	for (size_t w = 0; w < len;) {
		ssize_t k = write(fd, (const char *)buf + w, len - w);

		if (k < 0) {
			err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", shown, strerror(errno));
			goto cleanup;
		}
		w += (size_t)k;
	}
	if (close(fd) < 0) {
		fd = -1;
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", shown, strerror(errno));
		goto cleanup;
	}
	fd = -1;
	if (renameat(dirfd, tmp, dirfd, name) < 0)
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", shown, strerror(errno));
cleanup:
	if (fd >= 0)
		close(fd);
	if (err)
		unlinkat(dirfd, tmp, 0);
	free(tmp);
	return err;
}

/* 1 when dir/name holds the bytes whose sha256 is sha */
static int same_digest(int dirfd, const char *name, const char *sha)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char got[65] = "";
	char *path;
	int same;

	if (fd < 0)
		return 0;
	path = xstrfmt("/proc/self/fd/%d", fd);
	same = fs_sha256_file(got, path) == 0 && !strcmp(got, sha);
	bench_error_clear();
	free(path);
	close(fd);
	return same;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the sorted entries of a directory (no dot files) */
static size_t list(char ***out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0, alloc = 0;

	*out = NULL;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			ALLOC_GROW(*out, n + 1, alloc);
			(*out)[n++] = xstrdup(e->d_name);
		}
	if (d)
		closedir(d);
	if (n)
		qsort(*out, n, sizeof(**out), cmp_str);
	return n;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Regenerates site/: every run's report, and the index grouped by name and channel with trends. Every path
 * written is added to *w. */
static int site_build(const char *repo, int repofd, char *const *keys, struct written *w)
{
	struct compare_opts co = { 0.02, 0.01, 2000, 1, keys };
	struct strbuf idx = STRBUF_INIT, dash = STRBUF_INIT;
	struct compare_side *all = NULL; /* every run loaded, for the dashboard */
	size_t nall = 0, all_alloc = 0;
	char **names = NULL, *runs_dir = xstrfmt("%s/runs", repo);
	size_t nn = list(&names, runs_dir);
	int err = 0, site = -1, pages = -1;

	if ((err = open_dir_nofollow(&site, repofd, repo, "site")) < 0 ||
	    (err = open_dir_nofollow(&pages, repofd, repo, "site/runs")) < 0)
		goto cleanup;
	html_page_open(&idx, "bench results");
	strbuf_addstr(&idx, "<h1>bench results</h1>\n<p>Every run published here, grouped by manifest and channel. Each "
			    "bundle is kept as signed under <code>runs/</code>; verify one with <code>bench verify</code>.</p>\n"
			    "<p><a href=\"dashboard.html\">Dashboard</a>: what changed last night, every case over time per "
			    "channel and machine.</p>\n");
	for (size_t a = 0; a < nn && !err; a++) {
		char **chans = NULL, *nd = xstrfmt("%s/%s", runs_dir, names[a]);
		size_t nc = list(&chans, nd);

		for (size_t c = 0; c < nc && !err; c++) {
			char **files = NULL, *cd = xstrfmt("%s/%s", nd, chans[c]);
			size_t nf = list(&files, cd), ns = 0;
			struct compare_side *sides = xcalloc(nf ? nf : 1, sizeof(*sides));

			for (size_t f = 0; f < nf; f++) {
				char *p;
				size_t l = strlen(files[f]);

				if (l <= strlen(".bench.tar.gz") || strcmp(files[f] + l - strlen(".bench.tar.gz"), ".bench.tar.gz"))
					continue;
				p = xstrfmt("%s/%s", cd, files[f]);
				if (compare_load(&sides[ns], p, &co) == 0 && safe_component(sides[ns].label))
					ns++;
				else if (sides[ns].path)
					compare_side_release(&sides[ns]);
				bench_error_clear();
				free(p);
			}
			html_render_index_group(&idx, names[a], chans[c], sides, ns);
			for (size_t s = 0; s < ns && !err; s++) {
				struct strbuf page = STRBUF_INIT;
				char *name = xstrfmt("%s.html", sides[s].label), *rel = xstrfmt("site/runs/%s", name);

				html_render_report(&page, &sides[s], 1, NULL);
				if (!(err = write_at(pages, rel, name, page.buf, page.len)))
					written_add(w, rel);
				strbuf_release(&page);
				free(name);
				free(rel);
			}
			ALLOC_GROW(all, nall + ns, all_alloc);
			memcpy(all + nall, sides, ns * sizeof(*sides)); /* kept for the dashboard, released below */
			nall += ns;
			free(sides);
			free_list(files, nf);
			free(cd);
		}
		free_list(chans, nc);
		free(nd);
	}
	strbuf_addstr(&idx, "</body></html>\n");
	if (!err && !(err = write_at(site, "site/index.html", "index.html", idx.buf, idx.len)))
		written_add(w, "site/index.html");
	if (!err) {
		dashboard_render(&dash, all, nall, &co);
		if (!(err = write_at(site, "site/dashboard.html", "dashboard.html", dash.buf, dash.len)))
			written_add(w, "site/dashboard.html");
	}
cleanup:
	for (size_t s = 0; s < nall; s++)
		compare_side_release(&all[s]);
	free(all);
	strbuf_release(&dash);
	if (site >= 0)
		close(site);
	if (pages >= 0)
		close(pages);
	strbuf_release(&idx);
	free_list(names, nn);
	free(runs_dir);
	return err;
}

static int git_fail(const char *what, const char *repo)
{
	const git_error *e = git_error_last();

	return bench_error_set(BENCH_E_IO, "%s in '%s': %s", what, repo, e ? e->message : "unknown libgit2 error");
}

/* Stages exactly the paths written (not whatever else lies in the work tree) and commits them. */
static int commit_written(git_repository *r, const char *repo, const struct written *w, const char *msg)
{
	git_index *ix = NULL;
	git_oid tree_id, commit_id, parent_id;
	git_tree *tree = NULL;
	git_commit *parent = NULL;
	git_signature *sig = NULL;
	int err = 0, has_parent = git_reference_name_to_id(&parent_id, r, "HEAD") == 0;

	if (git_repository_index(&ix, r) < 0 || git_index_read(ix, 1) < 0) {
		err = git_fail("cannot read the index", repo);
		goto cleanup;
	}
	for (size_t i = 0; i < w->n; i++)
		if (git_index_add_bypath(ix, w->v[i]) < 0) {
			err = git_fail("cannot stage the published files", repo);
			goto cleanup;
		}
	if (git_index_write(ix) < 0 || git_index_write_tree(&tree_id, ix) < 0 || git_tree_lookup(&tree, r, &tree_id) < 0) {
		err = git_fail("cannot stage the published files", repo);
		goto cleanup;
	}
	if ((has_parent && git_commit_lookup(&parent, r, &parent_id) < 0) ||
	    git_signature_now(&sig, "bench publish", "bench@localhost") < 0 ||
	    git_commit_create_v(&commit_id, r, "HEAD", sig, sig, NULL, msg, tree, has_parent ? 1 : 0, parent) < 0)
		err = git_fail("cannot commit", repo);
cleanup:
	git_signature_free(sig);
	git_commit_free(parent);
	git_tree_free(tree);
	git_index_free(ix);
	return err;
}


int publish_bundles(size_t *out_new, const char *repo, const char *const *bundles, size_t n, char *const *keys,
		    int allow_incomplete)
{
	struct pub *p = xcalloc(n ? n : 1, sizeof(*p));
	struct bundle_limits lim;
	git_repository *r = NULL;
	int err = 0, git_up = 0, repofd = -1;

	*out_new = 0;
	bundle_limits_default(&lim);
	for (size_t i = 0; i < n; i++)
		p[i].vr.fd = -1;
	/* 1. every bundle verifies, its run is complete (or allow_incomplete), and its name and channel are safe path
	 * components; else nothing is touched. plan.json and status.json come from the verifying pass itself. */
	for (size_t i = 0; i < n; i++) {
		static const char *const names[] = { "plan.json", "status.json", NULL };
		struct bundle_members bm;
		struct bundle_sink sink;
		json_t *plan;

		p[i].path = bundles[i];
		bundle_members_init(&bm, &sink, names, (size_t)1 << 24);
		if ((err = bundle_verify_read(&p[i].vr, bundles[i], NULL, keys, sign_home(), &lim, &sink)) < 0) {
			err = bench_error_set(BENCH_E_VERIFY, "'%s' does not verify (%s); nothing was published", bundles[i],
					      bench_error_last());
			bundle_members_release(&bm);
			goto cleanup;
		}
		p[i].keyid = xstrdup(p[i].vr.keyid);
		p[i].run = xstrdup(p[i].vr.run);
		plan = json_loads(json_string_value(json_object_get(bm.out, "plan.json")) ?
				  json_string_value(json_object_get(bm.out, "plan.json")) : "", 0, NULL);
		p[i].name = xstrdup(json_string_value(json_object_get(plan, "name")) ? json_string_value(json_object_get(plan, "name")) : "");
		p[i].channel = xstrdup(json_string_value(json_object_get(plan, "channel")) ? json_string_value(json_object_get(plan, "channel")) : "");
		json_decref(plan);
		if (!allow_incomplete) {
			json_t *st = json_loads(json_string_value(json_object_get(bm.out, "status.json")) ?
						json_string_value(json_object_get(bm.out, "status.json")) : "", 0, NULL);
			json_t *h = compare_run_health(st);

			if (json_is_true(json_object_get(h, "incomplete")))
				err = bench_error_set(BENCH_E_SUITE, "'%s': the run is incomplete (%s%s, %lld case(s) pending, %lld "
						      "interrupted); complete it with 'bench run --resume' and pack it again, or pass "
						      "--allow-incomplete to publish it marked as such; nothing was published", bundles[i],
						      st ? "state " : "no status.json", st ? json_string_value(json_object_get(h, "state")) : "",
						      (long long)json_integer_value(json_object_get(json_object_get(h, "counts"), "pending")),
						      (long long)json_integer_value(json_object_get(json_object_get(h, "counts"), "interrupted")));
			json_decref(h);
			json_decref(st);
		}
		bundle_members_release(&bm);
		if (err)
			goto cleanup;
		if (!safe_component(p[i].run) || !safe_component(p[i].name) || !safe_component(p[i].channel)) {
			err = bench_error_set(BENCH_E_VERIFY, "'%s': run, manifest name or channel is not a plain name (%s, %s, %s); "
					      "nothing was published", bundles[i], p[i].run ? p[i].run : "?", p[i].name, p[i].channel);
			goto cleanup;
		}
		p[i].rel = xstrfmt("runs/%s/%s/%s.bench.tar.gz", p[i].name, p[i].channel, p[i].run);
	}
	/* 2. the repository, created on first use, locked: concurrent publishers queue here */
	if ((err = mkdirs(repo)) < 0)
		goto cleanup;
	if ((repofd = open(repo, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot open '%s': %s", repo, strerror(errno));
		goto cleanup;
	}
	while (flock(repofd, LOCK_EX) < 0)
		if (errno != EINTR) {
			err = bench_error_set(BENCH_E_IO, "cannot lock '%s': %s", repo, strerror(errno));
			goto cleanup;
		}
	git_libgit2_init();
	git_up = 1;
	if (git_repository_open(&r, repo) < 0 && git_repository_init(&r, repo, 0) < 0) {
		err = git_fail("cannot create a git repository", repo);
		goto cleanup;
	}
	/* 3. one commit per new bundle, holding that bundle, its envelope and the site */
	for (size_t i = 0; i < n; i++) {
		char *dir = xstrfmt("runs/%s/%s", p[i].name, p[i].channel), *base = xstrfmt("%s.bench.tar.gz", p[i].run);
		char *env_base = xstrfmt("%s.intoto.jsonl", base), *env_rel = xstrfmt("%s.intoto.jsonl", p[i].rel);
		char *tmp = xstrfmt(".%s.%ld.tmp", base, (long)getpid()), *msg = NULL;
		struct written w = { NULL, 0, 0 };
		struct stat st;
		int dfd = -1;

		if ((err = open_dir_nofollow(&dfd, repofd, repo, dir)) < 0)
			goto next;
		if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (!S_ISREG(st.st_mode))
				err = bench_error_set(BENCH_E_FAIL, "'%s' in '%s' is a symbolic link or not a file; publish refuses "
						      "to write through it", p[i].rel, repo);
			else if (!same_digest(dfd, base, p[i].vr.sha256))
				err = bench_error_set(BENCH_E_FAIL, "'%s' is already published with other contents (%s)", p[i].run, p[i].rel);
			/* else: the same bundle again, a no-op */
			goto next;
		}
		bundle_test_hook("publish", p[i].path);
		unlinkat(dfd, tmp, 0);
		if ((err = bundle_copy_verified(&p[i].vr, dfd, tmp)) < 0)
			goto next;
		if ((err = write_at(dfd, env_rel, env_base, p[i].vr.envelope, p[i].vr.envelope_len)) < 0) {
			unlinkat(dfd, tmp, 0);
			goto next;
		}
		if (renameat(dfd, tmp, dfd, base) < 0) {
			err = bench_error_set(BENCH_E_IO, "cannot write '%s/%s': %s", repo, p[i].rel, strerror(errno));
			unlinkat(dfd, tmp, 0);
			goto next;
		}
		written_add(&w, p[i].rel);
		written_add(&w, env_rel);
		msg = xstrfmt("publish %s (channel %s) signed by %s\n\nmanifest: %s\nbundle: %s\n", p[i].run, p[i].channel,
			      p[i].keyid, p[i].name, p[i].rel);
		if ((err = site_build(repo, repofd, keys, &w)) < 0 || (err = commit_written(r, repo, &w, msg)) < 0) {
			/* not published: the bundle does not stay in the work tree to pass for published next time */
			unlinkat(dfd, base, 0);
			unlinkat(dfd, env_base, 0);
			goto next;
		}
		(*out_new)++;
next:
		if (dfd >= 0)
			close(dfd);
		written_release(&w);
		free(dir);
		free(base);
		free(env_base);
		free(env_rel);
		free(tmp);
		free(msg);
		if (err)
			goto cleanup;
	}
cleanup:
	git_repository_free(r);
	if (git_up)
		git_libgit2_shutdown();
	if (repofd >= 0)
		close(repofd); /* and the lock with it */
	for (size_t i = 0; i < n; i++) {
		free(p[i].run);
		free(p[i].keyid);
		free(p[i].name);
		free(p[i].channel);
		free(p[i].rel);
		bundle_verify_result_release(&p[i].vr);
	}
	free(p);
	return err;
}
