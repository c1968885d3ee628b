/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fs.h — small file-system helpers.
 *
 * Ownership: fs_read_file() allocates *out (NUL-terminated, freed by the caller with free()); on failure
 * *out is NULL and the error message names the path and the reason. fs_confine_dir() keeps a copy of the directory's
 * path and borrows its descriptor (the caller's, open until fs_confine_end()).
 */
#ifndef BENCH_FS_H
#define BENCH_FS_H

#include <stddef.h>

#include <jansson.h>

/* Confines the files of one directory (a run directory, open on fd, which stays the caller's and open until
 * fs_confine_end(fd)): from then on a path given to fs_open_regular(), fs_open_write(), fs_open_new(), fs_write_file(),
 * fs_rename(), fs_unlink(), fs_mkdir_p() or fs_read_file() that lies below dir (dir as spelt here, then '/') is
 * resolved from fd, each directory below it opened without following a symbolic link (openat2() with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it, else openat() with O_NOFOLLOW | O_DIRECTORY one
 * component at a time): a directory inside swapped for a link is refused (ELOOP; fs_open_error(): "a directory in its
 * path is a symbolic link"), never followed, and ".." never leads out (EXDEV). dir itself and its parents may be links:
 * they were followed once, when fd was opened. One directory at a time; other paths are used as they are. */
void fs_confine_dir(const char *dir, int fd);
/* Ends fs_confine_dir() of fd (nothing when another directory is confined since). */
void fs_confine_end(int fd);
/* Opens path for reading without blocking on what is not a file: O_NONBLOCK for the open (a FIFO or a device
 * would block in open() itself), then fstat() and a refusal of anything but a regular file, then O_NONBLOCK
 * cleared. flags adds O_NOFOLLOW and the like. Returns the descriptor (O_CLOEXEC), or -1 with errno set (EINVAL
 * for what is not a regular file). Every read of a file bench did not create goes through it. */
int fs_open_regular(const char *path, int flags);
/* Opens path for writing where bench did not just create the directory (a run directory on --resume): never through a
 * symbolic link (O_NOFOLLOW), O_NONBLOCK for the open (a FIFO), then fstat() and a refusal of anything but a regular
 * file with one name (a hard link's other name may be outside the run directory), then O_NONBLOCK cleared; created
 * with mode when absent. flags adds O_APPEND or O_TRUNC (the truncation only once the file is known to be a regular
 * file). Returns the descriptor (O_CLOEXEC), or -1 with errno set: ELOOP for a symbolic link, EINVAL for what is not
 * a regular file, EMLINK for a hard link. */
int fs_open_write(const char *path, int flags, unsigned mode);
/* Creates path as a new regular file for writing (O_CREAT | O_EXCL | O_NOFOLLOW, O_CLOEXEC): whatever is there already
 * under that name (bench's own temporary file left over, a link to a file of the user's, a FIFO) is removed first, so
 * that nothing is ever written through a link. For the temporary files renamed into place. Returns the descriptor,
 * or -1 with errno set (EEXIST: a directory of that name). */
int fs_open_new(const char *path, unsigned mode);
/* rename() and unlink() of paths, below a confining directory resolved as fs_open_new() resolves them. Return 0, or -1
 * with errno set. */
int fs_rename(const char *from, const char *to);
int fs_unlink(const char *path);
/* Why an fs_open_regular() or fs_open_write() failed, for a message: "not a regular file", "a directory in its path
 * is a symbolic link (not followed)" (below a confining directory), "a symbolic link (not followed)" (ELOOP with
 * O_NOFOLLOW), "a hard link (N names; never written through)" (EMLINK, the last such refusal
 * of this thread), else strerror(errnum). */
const char *fs_open_error(int errnum, int flags);
/* Reads a whole regular file of at most max bytes (at most max + 64 KiB are read: the size st_size says is not
 * trusted, a sysfs file says 4096 or its page size). Returns 0, BENCH_E_IO, or BENCH_E_MANIFEST when the file is
 * larger than max (the caller decides what "too large" means). */
int fs_read_file(char **out, size_t *out_len, const char *path, size_t max);
/* fs_read_file() with open flags (O_NOFOLLOW: a file inside a run directory, never read through a link). */
int fs_read_file_flags(char **out, size_t *out_len, const char *path, size_t max, int flags);
/* fs_read_file_flags() of name in the directory open on dirfd (AT_FDCWD: name is a path); shown: the file as messages
 * name it. A file whose size is already over max is refused before a byte of it is read. */
int fs_read_file_at(char **out, size_t *out_len, int dirfd, const char *name, const char *shown, size_t max, int flags);
/* A JSON document (an object or an array) read as fs_read_file_flags() reads a file. Returns 0 with *out set (the
 * caller decrefs), BENCH_E_IO when it cannot be read (errno: ENOENT absent, EINVAL not a regular file, ELOOP a link
 * under O_NOFOLLOW, EFBIG larger than max; the message names the path) or BENCH_E_MANIFEST (not JSON). */
int fs_load_json(json_t **out, const char *path, size_t max, int flags);
/* The directory of the running executable (/proc/self/exe, symbolic links resolved): a static string, or NULL. */
const char *fs_exe_dir(void);
/* The directory holding bench's data (images/, manifests/, runners/): $BENCH_DATA, else next to the executable
 * (a source tree), else <exe>/../share/bench (make install; relocatable: nothing of PREFIX is compiled in); always
 * absolute (a relative $BENCH_DATA is taken against the working directory: the runners found there are started in
 * containers and batch jobs with other working directories). Returns a pointer to a static string, or NULL with the
 * error set. */
const char *fs_data_dir(void);
/* mkdir -p with mode 0755. Returns 0 or BENCH_E_IO with the error naming the directory. */
int fs_mkdir_p(const char *path);
/* The sha256 of a file's bytes as 64 lowercase hex digits (streamed). Returns 0 or BENCH_E_IO. */
int fs_sha256_file(char out[65], const char *path);
/* $BENCH_HOME, else ~/.config/bench: keys, trusted keys, caches (a static string, absolute as for
 * fs_data_dir()). */
const char *fs_bench_home(void);
/* path made absolute against the working directory, lexically (getcwd() and path joined, leading "./" dropped;
 * symbolic links are not resolved); an absolute path is copied as it is. Caller frees. */
char *fs_path_absolute(const char *path);
/* Writes len bytes of data to path with mode, through path.tmp and a rename (a reader never sees half a file).
 * A path.tmp already there (a link, a FIFO, a file left over) is removed first and the new one created with
 * O_EXCL | O_NOFOLLOW: nothing is written through a link. Returns 0 or BENCH_E_IO naming the path. */
int fs_write_file(const char *path, const void *data, size_t len, unsigned mode);
/* rm -r of path without following a symbolic link; a path that is not there is not an error. Returns 0, or -1 with
 * errno set (the caller names what it was clearing). */
int fs_remove_tree(const char *path);

#endif
