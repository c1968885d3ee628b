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

#define BUNDLE_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define BUNDLE_MAX_ENVELOPE (64u << 20)

/* Packs run_dir into <parent>/<run>.bench.tar.gz and its envelope, signed by key. level: gzip's compression
 * level, 0 (stored: a valid gzip stream at copy speed) to 9; BUNDLE_LEVEL_DEFAULT is 1. */
#define BUNDLE_LEVEL_DEFAULT 1
int bundle_pack(char **out_tar, char **out_envelope, const char *run_dir, EVP_PKEY *key, int level);

struct bundle_limits {
	size_t max_entries;      /* archive entries */
	uint64_t max_entry_size; /* bytes in one member */
	uint64_t max_total;      /* bytes in all members */
};

struct bundle_verify_result {
	char *keyid;     /* the key whose signature verified */
	char *key_origin;/* "--key FILE", "trusted/FILE", "own key" */
	size_t members;  /* regular members checked */
	uint64_t bytes;  /* their total size */
	char *run;       /* the run name inside the archive */
	json_t *statement;
};

#define BUNDLE_VERIFY_RESULT_INIT { NULL, NULL, 0, 0, NULL, NULL }

/* Verifies tar (and envelope, NULL: tar + ".intoto.jsonl") against keys (NULL-terminated paths; NULL: the
 * trusted directory and the own public key of home). Returns 0 or BENCH_E_VERIFY with the exact reason set
 * (other codes for I/O failures). Nothing from the archive is written to disk. */
int bundle_verify(struct bundle_verify_result *out, const char *tar, const char *envelope, char *const *keys,
		  const char *home, const struct bundle_limits *lim);
void bundle_verify_result_release(struct bundle_verify_result *r);
void bundle_limits_default(struct bundle_limits *l);

/* Reads the named members (relative to the run directory, e.g. "summary.json") of a bundle into a JSON
 * object name -> string (members absent are absent). Same safety checks as verify, each member at most
 * max_member bytes. */
int bundle_read_members(json_t **out, char **out_run, const char *tar, const char *const *names, size_t max_member);

#endif
