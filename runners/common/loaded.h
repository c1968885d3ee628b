/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loaded.h — proof of what ran: the shared libraries this runner process has loaded, and what the stack's source
 * builds provide (docs/architecture.md, "Records": loaded, stack_libs).
 *
 * Ownership: both functions return a new jansson array that the caller owns (record_emit() sets them into the
 * record it prints). Nothing is cached between calls: a library loaded late (dlopen at the first collective) is in
 * the records written after it was loaded.
 */
#ifndef BENCH_LOADED_H
#define BENCH_LOADED_H

#include <jansson.h>

/* [{path, soname, version}] for every shared object mapped in this process, in load order, one entry per real
 * path: path is the file's realpath, soname its ELF DT_SONAME (else the file name), version what the library
 * says of itself through a version function it exports (ncclGetVersion, cublasLtGetVersion, openblas_get_config,
 * bli_info_get_version_str, ...), or null. */
json_t *loaded_libraries(void);

/* [{component, path, real, soname}] for every shared object under root/<component>/lib* (root: /opt/stack, where
 * an image holds its source components' builds; BENCH_STACK_ROOT overrides it for tests). path is the file as
 * found, real its realpath. */
json_t *loaded_stack_libs(const char *root);

/* The soname of the ELF file at path (DT_SONAME), copied into out; 0, or -1 when the file is not a 64-bit ELF with
 * one (out then holds the file name). */
int loaded_soname(char *out, size_t outlen, const char *path);

#endif
