/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libscan.h — the shared libraries a directory provides, as a host stack pins them (docs/stacks.md, "Host
 * stacks"): each file's ELF soname (DT_SONAME, read from the file) and the sha256 of its bytes.
 *
 * Ownership: libscan_dir() returns a new jansson array the caller decrefs; strings are copied into it.
 */
#ifndef BENCH_LIBSCAN_H
#define BENCH_LIBSCAN_H

#include <stddef.h>

#include <jansson.h>

/* The DT_SONAME of the ELF shared object at path into out; the file's name where it has none. 0, or -1 when the
 * file is not a 64-bit ELF object that can be read. */
int libscan_soname(char *out, size_t outlen, const char *path);

/* The library directories of a prefix: DIR/lib and DIR/lib64 where either exists, else DIR itself (a library
 * directory given as it is: a wheel's nvidia/cublas/lib). Appends malloc'd absolute paths to *dirs (count in *n). */
void libscan_lib_dirs(char ***dirs, size_t *n, const char *prefix);

/* Every regular shared object (name "*.so" or "*.so.*") in the library directories of prefix whose file name
 * matches one of globs (fnmatch; nglobs 0: all), one entry per soname, sorted by soname:
 * {"soname", "file" (the name the soname is found under, relative to prefix), "real" (its real path), "sha256"}.
 * Symbolic links count through their target, once. Returns 0, or BENCH_E_IO naming the file that cannot be read. */
int libscan_dir(json_t **out, const char *prefix, char *const *globs, size_t nglobs);

#endif
