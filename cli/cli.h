/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h — what every command shares: the error and usage lines, loading a manifest and its lock, printing JSON,
 * packing with the user's own key. Only cli/ code (main.c and the cmd_*.c files) includes it; library code
 * never prints, it returns a code and sets one message (core/error.h), which these helpers turn into
 * "bench: error: ..." and the exit status of docs/exit-codes.md.
 *
 * Ownership: every char * returned or filled here is malloc'd for the caller (free()); cli_print_json() takes
 * the reference it is given; cli_load_manifest() fills a caller-provided struct manifest that the caller
 * releases with manifest_release(), also on failure.
 */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <stddef.h>

struct manifest;

/* Prints "bench: error: <last error>" and returns the exit status for err. */
int cli_fail(int err);
/* Prints "bench: error: <msg>", the usage line of cmd, and returns 2. */
int cli_usage_error(const char *cmd, const char *synopsis, const char *msg);
/* Parses path into m; on failure prints every problem (or the I/O error) and returns the exit status. */
int cli_load_manifest(struct manifest *m, const char *path);
/* The lock beside a manifest: x.yaml -> x.lock.json (caller frees). */
char *cli_lock_path(const char *manifest);
/* Reads the manifest and its lock (lock, else MANIFEST.lock.json) into new buffers. Returns 0, or the exit
 * status after printing the error; needs says why the command wants a lock. */
int cli_read_manifest_lock(char **mbuf, size_t *mlen, char **lbuf, size_t *llen, const char *manifest,
			   const char *lock, const char *needs);
/* Writes json (decref'd here) to stdout, sorted keys, two-space indent, trailing newline. */
int cli_print_json(void *json);
/* Packs dir with $BENCH_HOME's key, creating the key on first use (and saying so unless quiet). Returns 0 or a
 * negative code with the error set; *tar and *env are the bundle's and the envelope's paths. */
int pack_with_own_key(char **tar, char **env, const char *dir, int quiet, int level);

#endif
