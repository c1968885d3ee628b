/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fs.h — small file-system helpers.
 *
 * Ownership: fs_read_file() allocates *out (NUL-terminated, freed by the caller with free()); on failure
 * *out is NULL and the error message names the path and the reason.
 */
#ifndef BENCH_FS_H
#define BENCH_FS_H

#include <stddef.h>

/* Opens path for reading without blocking on what is not a file: O_NONBLOCK for the open (a FIFO or a device
 * would block in open() itself), then fstat() and a refusal of anything but a regular file, then O_NONBLOCK
 * cleared. flags adds O_NOFOLLOW and the like. Returns the descriptor (O_CLOEXEC), or -1 with errno set (EINVAL
 * for what is not a regular file). Every read of a file bench did not create goes through it. */
int fs_open_regular(const char *path, int flags);
/* Reads a whole regular file of at most max bytes. Returns 0, BENCH_E_IO, or BENCH_E_MANIFEST when the
 * file is larger than max (the caller decides what "too large" means). */
int fs_read_file(char **out, size_t *out_len, const char *path, size_t max);
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
 * Returns 0 or BENCH_E_IO naming the path. */
int fs_write_file(const char *path, const void *data, size_t len, unsigned mode);
/* rm -r of path without following a symbolic link; a path that is not there is not an error. Returns 0, or -1 with
 * errno set (the caller names what it was clearing). */
int fs_remove_tree(const char *path);

#endif
