/* SPDX-License-Identifier: Apache-2.0 */
/* snapshot.c — a locked git commit fetched with libgit2 and archived deterministically with libarchive. */
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <git2.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "core/utf8locale.h"
#include "manifest/lock.h"

const char *snapshot_cache_dir(void)
{
	static char dir[4096];

	snprintf(dir, sizeof(dir), "%s/cache", fs_bench_home());
	return dir;
}

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

/* The commit in the cache repository, fetching every branch and tag of url when it is not there yet. */
static int fetch_commit(git_commit **out, git_repository *repo, const char *url, const git_oid *oid)
{
	git_remote *remote = NULL;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	char *specs[] = { "+refs/heads/*:refs/bench/heads/*", "+refs/tags/*:refs/bench/tags/*" };
	git_strarray refspecs = { specs, 2 };
	int err = 0;

	if (git_commit_lookup(out, repo, oid) == 0)
		return 0;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_create_anonymous(&remote, repo, url) < 0 || git_remote_fetch(remote, &refspecs, &fo, NULL) < 0) {
		err = bench_error_set(BENCH_E_RESOLVE, "cannot fetch '%s': %s", url, git_msg());
		goto cleanup;
	}
	if (git_commit_lookup(out, repo, oid) < 0) {
		char h[GIT_OID_HEXSZ + 1];

		git_oid_tostr(h, sizeof(h), oid);
		err = bench_error_set(BENCH_E_RESOLVE, "commit %s is not on any branch or tag of '%s' (was it force-pushed "
				      "away? run 'bench lock --update')", h, url);
	}
cleanup:
	git_remote_free(remote);
	return err;
}

struct walk {
	git_repository *repo;
	struct archive *a;
	struct archive_entry *e;
	const char *prefix;
	long long sde;
	int err;
};

static int add_entry(struct walk *w, const char *path, mode_t type, int perm, const void *data, size_t len,
		     const char *link)
{
	locale_t old;
	int bad;

	archive_entry_clear(w->e);
	archive_entry_set_pathname(w->e, path);
	archive_entry_set_filetype(w->e, type);
	archive_entry_set_perm(w->e, perm);
	archive_entry_set_uid(w->e, 0);
	archive_entry_set_gid(w->e, 0);
	archive_entry_set_mtime(w->e, (time_t)w->sde, 0);
	archive_entry_set_size(w->e, type == AE_IFREG ? (la_int64_t)len : 0);
	if (link)
		archive_entry_set_symlink(w->e, link);
	old = utf8locale_push(); /* the path is a git tree's, UTF-8 (in the C locale a non-ASCII one failed) */
	bad = archive_write_header(w->a, w->e) != ARCHIVE_OK;
	utf8locale_pop(old);
	if (bad || (type == AE_IFREG && len && archive_write_data(w->a, data, len) != (la_ssize_t)len))
		return bench_error_set(BENCH_E_IO, "cannot write '%s' into the source archive: %s", path,
				       archive_error_string(w->a));
	return 0;
}

static int walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
	struct walk *w = payload;
	git_filemode_t mode = git_tree_entry_filemode(te);
	git_blob *blob = NULL;
	char *path = xstrfmt("%s/%s%s", w->prefix, root, git_tree_entry_name(te));
	int rc = 0;

	switch (mode) {
	case GIT_FILEMODE_TREE:
		w->err = add_entry(w, path, AE_IFDIR, 0755, NULL, 0, NULL);
		break;
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
	case GIT_FILEMODE_LINK:
		if (git_blob_lookup(&blob, w->repo, git_tree_entry_id(te)) < 0) {
			w->err = bench_error_set(BENCH_E_IO, "cannot read '%s' from the cache repository: %s", path, git_msg());
			break;
		}
		if (mode == GIT_FILEMODE_LINK) {
			char *target = xstrndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));

			w->err = add_entry(w, path, AE_IFLNK, 0777, NULL, 0, target);
			free(target);
		} else {
			w->err = add_entry(w, path, AE_IFREG, mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644,
					   git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), NULL);
		}
		break;
	default: /* a submodule (GIT_FILEMODE_COMMIT): its commit is not part of this repository */
		break;
	}
	git_blob_free(blob);
	free(path);
	if (w->err < 0)
		rc = -1;
	return rc;
}

static la_ssize_t write_cb(struct archive *a, void *ctx, const void *buf, size_t len)
{
	int fd = *(int *)ctx;
	const char *p = buf;
	size_t left = len;

	(void)a;
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	return (la_ssize_t)len;
}

int snapshot_git(const char *out_path, const char *url, const char *commit, const char *prefix,
		 long long source_date_epoch)
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_oid oid;
	struct archive *a = NULL;
	struct walk w;
	char urlhex[65], *cache = NULL, *tmp = NULL;
	int err = 0, fd = -1;

	memset(&w, 0, sizeof(w));
	git_libgit2_init();
	if (strlen(commit) != 40 || git_oid_fromstr(&oid, commit) < 0) {
		err = bench_error_set(BENCH_E_MANIFEST, "'%s' is not a 40-digit commit id (lock the manifest first)", commit);
		goto cleanup;
	}
	lock_sha256_hex(urlhex, url, strlen(url));
	cache = xstrfmt("%s/git/%.32s.git", snapshot_cache_dir(), urlhex);
	if ((err = fs_mkdir_p(cache)) < 0)
		goto cleanup;
	if (git_repository_open_bare(&repo, cache) < 0 && git_repository_init(&repo, cache, 1) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot create the cache repository '%s': %s", cache, git_msg());
		goto cleanup;
	}
	if ((err = fetch_commit(&c, repo, url, &oid)) < 0)
		goto cleanup;
	if (git_commit_tree(&tree, c) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot read the tree of %s: %s", commit, git_msg());
		goto cleanup;
	}
	tmp = xstrfmt("%s.tmp.%d", out_path, (int)getpid());
	if ((fd = fs_open_new(tmp, 0644)) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot create '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	a = archive_write_new();
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK || archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_options(a, "gzip:!timestamp") != ARCHIVE_OK || archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open(a, &fd, NULL, write_cb, NULL) != ARCHIVE_OK) {
		err = bench_error_set(BENCH_E_IO, "cannot start the source archive '%s': %s", out_path, archive_error_string(a));
		goto cleanup;
	}
	w.repo = repo;
	w.a = a;
	w.e = archive_entry_new();
	w.prefix = prefix;
	w.sde = source_date_epoch;
	if ((err = add_entry(&w, prefix, AE_IFDIR, 0755, NULL, 0, NULL)) == 0 && git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &w) < 0)
		err = w.err < 0 ? w.err : bench_error_set(BENCH_E_IO, "cannot walk the tree of %s: %s", commit, git_msg());
	archive_entry_free(w.e);
	if (err < 0)
		goto cleanup;
	if (archive_write_close(a) != ARCHIVE_OK) {
		err = bench_error_set(BENCH_E_IO, "cannot finish '%s': %s", out_path, archive_error_string(a));
		goto cleanup;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fd = -1;
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	fd = -1;
	if (rename(tmp, out_path) < 0)
		err = bench_error_set(BENCH_E_IO, "cannot rename '%s' to '%s': %s", tmp, out_path, strerror(errno));
cleanup:
	if (a)
		archive_write_free(a);
	if (fd >= 0)
		close(fd);
	if (err < 0 && tmp)
		unlink(tmp);
	git_tree_free(tree);
	git_commit_free(c);
	git_repository_free(repo);
	git_libgit2_shutdown();
	free(cache);
	free(tmp);
	return err;
}
