/* SPDX-License-Identifier: Apache-2.0 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include <openssl/evp.h>

#include "error.h"
#include "strbuf.h"

/* the names of the hard link fs_open_write() last refused in this thread, for fs_open_error()'s message */
static _Thread_local unsigned long long refused_nlink;

/* the directory writes are confined to (fs_confine_dir()): its path as given, without trailing '/', and a descriptor
 * open on it (the caller's); -1 when none */
static char *confine_path;
static size_t confine_len;
static int confine_fd = -1;
/* the last path_at() of this thread failed on a directory of the path that is a symbolic link, for fs_open_error() */
static _Thread_local int refused_dir_link;

void fs_confine_dir(const char *dir, int fd)
{
	free(confine_path);
	confine_path = xstrdup(dir);
	confine_len = strlen(confine_path);
	while (confine_len > 1 && confine_path[confine_len - 1] == '/')
		confine_path[--confine_len] = '\0';
	confine_fd = fd;
}

void fs_confine_end(int fd)
{
	if (fd != confine_fd)
		return; /* another directory's since */
	free(confine_path);
	confine_path = NULL;
	confine_len = 0;
	confine_fd = -1;
}

/* a descriptor from path_at(): closed unless it is AT_FDCWD or the confining directory's own */
static void at_close(int fd)
{
	if (fd >= 0 && fd != confine_fd)
		close(fd);
}

/* The directory rel[0..len) below the confining directory, opened one component at a time from its descriptor, never
 * through a symbolic link (ELOOP, refused_dir_link set) and never above it (EXDEV for ".."); mk: each created when
 * missing. openat2() with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS does it in one call where the kernel has it. */
static int open_beneath(const char *rel, size_t len, int mk)
{
	char *p = xstrndup(rel, len), *save = NULL, *c;
	int fd = confine_fd, e = 0;

#ifdef SYS_openat2
	if (!mk) {
		struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
					.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
		long r = syscall(SYS_openat2, confine_fd, p, &how, sizeof(how));

		if (r >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG && errno != EAGAIN && errno != EINVAL)) {
			e = errno;
			free(p);
			if (r < 0 && e == ELOOP)
				refused_dir_link = 1;
			errno = e;
			return (int)r;
		}
	}
#endif
	for (c = strtok_r(p, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		int next;

		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			e = EXDEV;
			break;
		}
		if (mk && mkdirat(fd, c, 0755) < 0 && errno != EEXIST) {
			e = errno;
			break;
		}
		if ((next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			struct stat st;

			e = errno;
			if (e == ELOOP || (e == ENOTDIR && fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)))
				e = ELOOP, refused_dir_link = 1;
			break;
		}
		at_close(fd);
		fd = next;
	}
	free(p);
	if (e) {
		at_close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* path split for an *at() call: *dirfd and *name (inside path). A path below the confining directory: *dirfd its
 * directory opened by open_beneath() (mk: created), *name the last component; any other path: AT_FDCWD and path
 * itself. The caller releases *dirfd with at_close(). Returns 0, or -1 with errno set. */
static int path_at(int *dirfd, const char **name, const char *path, int mk)
{
	const char *rel, *slash;

	refused_dir_link = 0;
	*dirfd = AT_FDCWD;
	*name = path;
	if (!confine_path || strncmp(path, confine_path, confine_len) || path[confine_len] != '/')
		return 0;
	for (rel = path + confine_len; *rel == '/'; rel++)
		;
	if (!(slash = strrchr(rel, '/'))) {
		*dirfd = confine_fd;
		*name = rel;
	} else {
		if ((*dirfd = open_beneath(rel, (size_t)(slash - rel), mk)) < 0)
			return -1;
		*name = slash + 1;
	}
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, "..")) {
		at_close(*dirfd);
		*dirfd = AT_FDCWD;
		errno = EXDEV;
		return -1;
	}
	return 0;
}

/* whether the file has more names than this one (a hard link), noted for fs_open_error() */
static int other_names(const struct stat *st)
{
	if (st->st_nlink <= 1)
		return 0;
	refused_nlink = (unsigned long long)st->st_nlink;
	return 1;
}

/* fd, opened with O_NONBLOCK, kept when it is a regular file (for a write, one with no other name): emptied when
 * trunc, made blocking again; else closed, -1 with errno (EINVAL: not a regular file; EMLINK: a hard link) */
static int fd_keep_regular(int fd, int trunc, int write)
{
	struct stat st;
	int fl, e = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else if (write && other_names(&st)) /* a name elsewhere, perhaps outside the run directory: not written through */
		e = EMLINK;
	else if (trunc && ftruncate(fd, 0) < 0)
		e = errno;
	else if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		e = errno;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* openat() of path as path_at() splits it (below the confining directory: never through a link), errno kept */
static int open_path(const char *path, int flags, mode_t mode)
{
	const char *name;
	int dfd, fd, e;

	if (path_at(&dfd, &name, path, 0) < 0)
		return -1;
	fd = openat(dfd, name, flags, mode);
	e = errno;
	at_close(dfd);
	errno = e;
	return fd;
}

int fs_open_regular(const char *path, int flags)
{
	return fd_keep_regular(open_path(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags, 0), 0, 0);
}

int fs_open_write(const char *path, int flags, unsigned mode)
{
	int fd = open_path(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (flags & ~O_TRUNC), (mode_t)mode);

	if (fd < 0) {
		if (errno == ENXIO || errno == EISDIR || errno == EWOULDBLOCK) /* a FIFO no one reads, a socket, a directory */
			errno = EINVAL;
		return -1;
	}
	return fd_keep_regular(fd, (flags & O_TRUNC) != 0, 1);
}

int fs_open_new(const char *path, unsigned mode)
{
	const char *name;
	int dfd, fd, e;

	if (path_at(&dfd, &name, path, 0) < 0)
		return -1;
	unlinkat(dfd, name, 0);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
	e = errno;
	at_close(dfd);
	errno = e;
	return fd;
}

int fs_rename(const char *from, const char *to)
{
	const char *fname, *tname;
	int fdir, tdir = AT_FDCWD, r = -1, e;

	if (path_at(&fdir, &fname, from, 0) < 0)
		return -1;
	if (path_at(&tdir, &tname, to, 0) == 0)
		r = renameat(fdir, fname, tdir, tname);
	e = errno;
	at_close(fdir);
	at_close(tdir);
	errno = e;
	return r;
}

int fs_unlink(const char *path)
{
	const char *name;
	int dfd, r, e;

	if (path_at(&dfd, &name, path, 0) < 0)
		return -1;
	r = unlinkat(dfd, name, 0);
	e = errno;
	at_close(dfd);
	errno = e;
	return r;
}

const char *fs_open_error(int errnum, int flags)
{
	if (errnum == ELOOP && refused_dir_link)
		return "a directory in its path is a symbolic link (not followed)";
	if (errnum == EXDEV && confine_path)
		return "outside the run directory";
	if (errnum == EINVAL)
		return "not a regular file";
	if (errnum == ELOOP && (flags & O_NOFOLLOW))
		return "a symbolic link (not followed)";
	if (errnum == EMLINK && refused_nlink) { /* fs_open_write()'s refusal */
		static _Thread_local char msg[96];

		snprintf(msg, sizeof(msg), "a hard link (%llu names; never written through)", refused_nlink);
		return msg;
	}
	return strerror(errnum);
}

int fs_read_file(char **out, size_t *out_len, const char *path, size_t max)
{
	return fs_read_file_flags(out, out_len, path, max, 0);
}

int fs_read_file_flags(char **out, size_t *out_len, const char *path, size_t max, int flags)
{
	return fs_read_file_at(out, out_len, AT_FDCWD, path, path, max, flags);
}

int fs_read_file_at(char **out, size_t *out_len, int dirfd, const char *name, const char *shown, size_t max, int flags)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	struct stat st;
	int fd = -1, err = 0, e = 0;

	*out = NULL;
	*out_len = 0;
	if (dirfd == AT_FDCWD) {
		fd = fs_open_regular(name, flags);
	} else { /* name in dirfd: opened as fs_open_regular() opens a path */
		fd = fd_keep_regular(openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags), 0, 0);
		refused_dir_link = 0;
	}
	if (fd < 0 && (e = errno) == EINVAL) {
		err = bench_error_set(BENCH_E_IO, "'%s' is not a regular file", shown);
		goto cleanup;
	}
	if (fd < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot open '%s': %s", shown, fs_open_error(e, flags));
		goto cleanup;
	}
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (unsigned long long)st.st_size > max) {
		/* larger than that already: refused before a byte is read (a smaller size is not trusted, see fs.h) */
		err = bench_error_set(BENCH_E_MANIFEST, "'%s' is larger than %zu bytes", shown, max);
		goto cleanup;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = bench_error_set(BENCH_E_IO, "cannot read '%s': %s", shown, strerror(errno));
			goto cleanup;
		}
		if (n == 0)
			break;
		if (sb.len + (size_t)n > max) {
			err = bench_error_set(BENCH_E_MANIFEST, "'%s' is larger than %zu bytes", shown, max);
			goto cleanup;
		}
		strbuf_add(&sb, buf, (size_t)n);
	}
	*out_len = sb.len;
	*out = strbuf_detach(&sb);
cleanup:
	if (fd >= 0)
		close(fd);
	strbuf_release(&sb);
	if (e)
		errno = e; /* why it could not be opened, for the caller (ENOENT: absent) */
	return err;
}

int fs_load_json(json_t **out, const char *path, size_t max, int flags)
{
	char *buf = NULL;
	size_t len = 0;
	json_error_t je;
	int err, e = 0;

	*out = NULL;
	if ((err = fs_read_file_flags(&buf, &len, path, max, flags)) < 0) {
		e = err == BENCH_E_MANIFEST ? EFBIG : errno;
		err = BENCH_E_IO; /* could not be read, whatever the reason */
		goto cleanup;
	}
	if (!(*out = json_loadb(buf, len, 0, &je)))
		err = bench_error_set(BENCH_E_MANIFEST, "%s:%d:%d: not JSON: %s", path, je.line, je.column, je.text);
cleanup:
	free(buf);
	errno = e;
	return err;
}

static int has_peaks(const char *dir)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/images/bases/peaks.yaml", dir) >= sizeof(path))
		return 0;
	return access(path, R_OK) == 0;
}

const char *fs_exe_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return NULL;
	*slash = '\0';
	snprintf(dir, sizeof(dir), "%s", exe[0] ? exe : "/");
	return dir;
}

const char *fs_data_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("BENCH_DATA"), *exe;
	char share[PATH_MAX];

	if (dir[0])
		return dir;
	if (env && *env) {
		char *abs = fs_path_absolute(env);

		snprintf(dir, sizeof(dir), "%s", abs);
		free(abs);
		return dir;
	}
	if ((exe = fs_exe_dir())) {
		if (has_peaks(exe)) { /* a source tree: ./bench beside images/ */
			snprintf(dir, sizeof(dir), "%s", exe);
			return dir;
		}
		/* make install: PREFIX/bin/bench and PREFIX/share/bench, wherever PREFIX is now */
		if ((size_t)snprintf(share, sizeof(share), "%s/../share/bench", exe) < sizeof(share) && has_peaks(share) &&
		    realpath(share, dir))
			return dir;
		dir[0] = '\0';
	}
	bench_error_set(BENCH_E_IO, "cannot find bench's data directory (images/bases/peaks.yaml); set BENCH_DATA");
	return NULL;
}

int fs_mkdir_p(const char *path)
{
	char *p;
	int err = 0;

	if (confine_path && !strncmp(path, confine_path, confine_len) && path[confine_len] == '/') {
		int fd;

		refused_dir_link = 0;
		if ((fd = open_beneath(path + confine_len, strlen(path + confine_len), 1)) < 0)
			return bench_error_set(BENCH_E_IO, "cannot create directory '%s': %s", path, fs_open_error(errno, O_NOFOLLOW));
		at_close(fd);
		return 0;
	}
	p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				goto fail;
			*s = '/';
		}
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		goto fail;
	goto cleanup;
fail:
	err = bench_error_set(BENCH_E_IO, "cannot create directory '%s': %s", p, strerror(errno));
cleanup:
	free(p);
	return err;
}

const char *fs_bench_home(void)
{
	static char home[PATH_MAX];
	const char *env = getenv("BENCH_HOME"), *h = getenv("HOME");
	char *rel = env && *env ? xstrdup(env) : xstrfmt("%s/.config/bench", h && *h ? h : ".");
	char *abs = fs_path_absolute(rel);

	snprintf(home, sizeof(home), "%s", abs);
	free(abs);
	free(rel);
	return home;
}

char *fs_path_absolute(const char *path)
{
	char *cwd, *out;

	if (path[0] == '/' || !(cwd = getcwd(NULL, 0)))
		return xstrdup(path);
	while (path[0] == '.' && path[1] == '/')
		for (path += 2; *path == '/'; path++)
			;
	out = !strcmp(path, ".") || !*path ? xstrdup(cwd) : xstrfmt("%s%s%s", cwd, !strcmp(cwd, "/") ? "" : "/", path);
	free(cwd);
	return out;
}

int fs_sha256_file(char out[65], const char *path)
{
	unsigned char md[32], *buf;
	EVP_MD_CTX *c;
	int fd = fs_open_regular(path, 0);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	size_t n;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return bench_error_set(BENCH_E_IO, "cannot open '%s': %s", path,
				       errno == EINVAL ? "not a regular file" : strerror(errno));
	}
	buf = xmalloc(256u << 10);
	c = EVP_MD_CTX_new();
	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	while ((n = fread(buf, 1, 256u << 10, f)) > 0)
		EVP_DigestUpdate(c, buf, n);
	EVP_DigestFinal_ex(c, md, NULL);
	EVP_MD_CTX_free(c);
	fclose(f);
	free(buf);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int fs_write_file(const char *path, const void *data, size_t len, unsigned mode)
{
	const char *name;
	char *tmp = NULL;
	int dfd = AT_FDCWD, fd = -1, err = 0, e = 0;
	ssize_t w;

	/* below a confining directory, the temporary file and the rename both in the directory opened once */
	if (path_at(&dfd, &name, path, 0) < 0) {
		e = errno;
		goto cleanup;
	}
	tmp = xstrfmt("%s.tmp", name);
	unlinkat(dfd, tmp, 0);
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode)) < 0) {
		e = errno;
		goto cleanup;
	}
	if ((w = write(fd, data, len)) != (ssize_t)len)
		e = w < 0 ? errno : ENOSPC; /* a short write to a regular file: no more space */
	if (close(fd) < 0 && !e)
		e = errno;
	if (!e && renameat(dfd, tmp, dfd, name) < 0)
		e = errno;
	if (e)
		unlinkat(dfd, tmp, 0);
cleanup:
	if (e)
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path,
				      e == ELOOP || e == EXDEV ? fs_open_error(e, O_NOFOLLOW) : strerror(e));
	at_close(dfd);
	free(tmp);
	if (e)
		errno = e; /* why, for the caller (ENOSPC) */
	return err;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

int fs_remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT ? -1 : 0;
}
