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
#include <unistd.h>

#include <openssl/evp.h>

#include "error.h"
#include "strbuf.h"

/* the names of the hard link fs_open_write() last refused in this thread, for fs_open_error()'s message */
static _Thread_local unsigned long long refused_nlink;

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

int fs_open_regular(const char *path, int flags)
{
	return fd_keep_regular(open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags), 0, 0);
}

int fs_open_write(const char *path, int flags, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (flags & ~O_TRUNC), (mode_t)mode);

	if (fd < 0) {
		if (errno == ENXIO || errno == EISDIR || errno == EWOULDBLOCK) /* a FIFO no one reads, a socket, a directory */
			errno = EINVAL;
		return -1;
	}
	return fd_keep_regular(fd, (flags & O_TRUNC) != 0, 1);
}

int fs_open_new(const char *path, unsigned mode)
{
	unlink(path);
	return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
}

const char *fs_open_error(int errnum, int flags)
{
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
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	int fd = -1, err = 0, e = 0;

	*out = NULL;
	*out_len = 0;
	fd = fs_open_regular(path, flags);
	if (fd < 0 && (e = errno) == EINVAL) {
		err = bench_error_set(BENCH_E_IO, "'%s' is not a regular file", path);
		goto cleanup;
	}
	if (fd < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot open '%s': %s", path, fs_open_error(e, flags));
		goto cleanup;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = bench_error_set(BENCH_E_IO, "cannot read '%s': %s", path, strerror(errno));
			goto cleanup;
		}
		if (n == 0)
			break;
		if (sb.len + (size_t)n > max) {
			err = bench_error_set(BENCH_E_MANIFEST, "'%s' is larger than %zu bytes", path, max);
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
	char *p = xstrdup(path);
	int err = 0;

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
	char *tmp = xstrfmt("%s.tmp", path);
	int fd = fs_open_new(tmp, mode), err = 0, e;
	ssize_t w = fd < 0 ? -1 : write(fd, data, len);

	if (w >= 0 && (size_t)w < len)
		errno = ENOSPC; /* a short write to a regular file: no more space */
	if (fd < 0 || w != (ssize_t)len || close(fd) < 0 || rename(tmp, path) < 0) {
		e = errno;
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path, strerror(e));
		if (fd >= 0)
			unlink(tmp);
		errno = e; /* why, for the caller (ENOSPC) */
	}
	free(tmp);
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
