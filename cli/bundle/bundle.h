/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bundle.h — the signed, reproducible result bundle (docs/bundle-format.md): a deterministic <run>.bench.tar.gz and its
 * DSSE envelope <run>.bench.tar.gz.intoto.jsonl over an in-toto Statement v1 with a SLSA provenance v1
 * predicate, signed with Ed25519. Packing and verifying stream: memory stays bounded whatever the data size.
 *
 * Ownership: out-parameters of type char * are malloc'd for the caller; struct bundle_verify_result owns its
 * strings (bundle_verify_result_release()); json_t * results are new references.
 */
#ifndef BENCH_BUNDLE_H
#define BENCH_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "core/strbuf.h"

#define BUNDLE_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define BUNDLE_MAX_ENVELOPE (64u << 20)

/* Packs run_dir into <parent>/<run>.bench.tar.gz and its envelope, signed by key. level: gzip's compression
 * level, 0 (stored: a valid gzip stream at copy speed) to 9; BUNDLE_LEVEL_DEFAULT is 1. */
#define BUNDLE_LEVEL_DEFAULT 1
int bundle_pack(char **out_tar, char **out_envelope, const char *run_dir, EVP_PKEY *key, int level);

/* Member size limits by kind, checked on each entry's header before a byte of it is read (docs/bundle-format.md);
 * pack refuses a run directory that exceeds them. */
#define BUNDLE_MAX_RESULTS (64ull << 20)  /* results/<suite>.jsonl */
#define BUNDLE_MAX_LOG (256ull << 20)     /* logs/... */
#define BUNDLE_MAX_MEMBER (16ull << 20)   /* any other member (JSON, the manifest, image and env facts) */

struct bundle_limits {
	size_t max_entries;      /* archive entries */
	uint64_t max_entry_size; /* bytes in one member not under results/ or logs/ */
	uint64_t max_results;    /* bytes in one results/ member */
	uint64_t max_log;        /* bytes in one logs/ member */
	uint64_t max_total;      /* bytes in all members */
};

/* What a reading pass hands over. open() is called at each regular member's header with its name relative to
 * the run directory ("results/gemm.jsonl") and its size: 1 to receive its bytes, 0 to skip it, a negative code
 * to stop. data() gets its bytes in order, then len 0 at its end. The pass ends with the checks of the whole
 * archive (the archive's digest, nothing after its end, nothing missing): a caller keeps what a sink gathered
 * only when the pass returns 0. */
struct bundle_sink {
	int (*open)(void *ctx, const char *rel, uint64_t size);
	int (*data)(void *ctx, const char *rel, const void *buf, size_t len);
	void *ctx;
};

struct bundle_verify_result {
	char *keyid;     /* the key whose signature verified */
	char *key_origin;/* "--key FILE", "trusted/FILE", "own key" */
	size_t members;  /* regular members checked */
	uint64_t bytes;  /* their total size */
	char *run;       /* the run name inside the archive */
	json_t *statement;
	char sha256[65]; /* the archive's digest, as verified */
	char *envelope;  /* the envelope's bytes, as verified */
	size_t envelope_len;
	int fd;          /* the archive, still open: the very file whose bytes verified (closed by release) */
};

#define BUNDLE_VERIFY_RESULT_INIT { .fd = -1 }

/* Verifies tar (and envelope, NULL: tar + ".intoto.jsonl") against keys (NULL-terminated paths; NULL: the
 * trusted directory and the own public key of home). The archive is opened once and read once: its bytes are
 * hashed, inflated (zlib: the gzip CRC-32 and length are checked), checked entry by entry and handed to sink
 * (NULL: none) in the same pass, so what a caller uses is what verified. Returns 0 or BENCH_E_VERIFY with the
 * exact reason set (other codes for I/O failures). Nothing from the archive is written to disk.
 * Test hook: when BENCH_TEST_HOOK_AFTER_VERIFY names a program, it runs (argv: "verified", tar) after a bundle
 * verified and before the caller uses it; the tests swap the file there (docs/bundle-format.md). bench run --resume
 * runs it too (argv: "resume-checked", the run directory) once the directory is locked and checked. */
int bundle_verify_read(struct bundle_verify_result *out, const char *tar, const char *envelope, char *const *keys,
		       const char *home, const struct bundle_limits *lim, const struct bundle_sink *sink);
int bundle_verify(struct bundle_verify_result *out, const char *tar, const char *envelope, char *const *keys,
		  const char *home, const struct bundle_limits *lim);
void bundle_verify_result_release(struct bundle_verify_result *r);
void bundle_limits_default(struct bundle_limits *l);
/* The size limit for the member rel (relative to the run directory). */
uint64_t bundle_member_limit(const struct bundle_limits *l, const char *rel);
/* the same with the limits bench pack applies (bundle_limits_default()): for scrub_dir() */
uint64_t bundle_pack_member_limit(const char *rel);
/* Copies the verified archive (r->fd) into a new file name under dirfd (created with O_EXCL, never through a
 * symbolic link), hashing it again: BENCH_E_VERIFY, and no file, if the bytes no longer match r->sha256. */
int bundle_copy_verified(const struct bundle_verify_result *r, int dirfd, const char *name);
/* Runs the test hook (see bundle_verify_read()) for stage and path; nothing when it is not set. */
void bundle_test_hook(const char *stage, const char *path);

/* Reads a bundle without verifying it (same archive checks as verify, no signature): every member through
 * sink. *out_run: the run name (malloc'd). */
int bundle_read(char **out_run, const char *tar, const struct bundle_sink *sink);

/* A sink that keeps the named members (relative to the run directory, NULL-terminated) as strings in out
 * (name -> string; members absent are absent), each at most max_member bytes. */
struct bundle_members {
	const char *const *names;
	size_t max_member;
	json_t *out;
	struct strbuf cur;
};
void bundle_members_init(struct bundle_members *m, struct bundle_sink *sink, const char *const *names, size_t max_member);
void bundle_members_release(struct bundle_members *m);

/* Reads the named members of an unverified bundle into a JSON object name -> string. */
int bundle_read_members(json_t **out, char **out_run, const char *tar, const char *const *names, size_t max_member);
/* The same members of a run directory as it is on disk (nothing to verify: bench show RUN_DIR): name -> text for
 * each of names that the directory holds as a regular file; *out_run is the directory's last component. A
 * directory without plan.json is not a run directory (BENCH_E_FAIL). */
int bundle_read_dir_members(json_t **out, char **out_run, const char *dir, const char *const *names, size_t max_member);
/* Opens member rel of run directory dir for reading as a bundle's member is read: *fd -1 and 0 when it is not
 * there; an error naming it (BENCH_E_IO) when it is there but is not a regular file (a FIFO, a socket, a device
 * or a link to one, a directory) or cannot be opened, or when it is larger than a bundle's member of its kind may
 * be (bundle_member_limit: results 64 MiB, logs 256 MiB, any other 16 MiB). *size is its size. show, compare
 * and report read a run directory through it, so that one file gets one answer from all of them. */
int bundle_dir_member_open(int *fd, uint64_t *size, const char *dir, const char *rel);

#endif
