/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sign.h — Ed25519 keys and signatures (OpenSSL 3 EVP, pure Ed25519: no digest) and DSSE's pre-authentication
 * encoding. Keys live in $BENCH_HOME (default ~/.config/bench): signing.key.pem (0600) and signing.pub.pem;
 * keys trusted for verification in $BENCH_HOME/trusted/ (*.pem files).
 *
 * Ownership: functions returning EVP_PKEY * give the caller a reference to free with EVP_PKEY_free();
 * strings returned through char ** are malloc'd for the caller.
 */
#ifndef BENCH_SIGN_H
#define BENCH_SIGN_H

#include <stddef.h>

#include <openssl/evp.h>

#include "core/strbuf.h"

/* $BENCH_HOME or ~/.config/bench (static string). */
const char *sign_home(void);
/* Creates a key pair in home (refuses to overwrite unless force). Returns 0 or a negative code. */
int sign_keygen(char **out_keyid, const char *home, int force);
/* The most bytes a key file may hold: a PEM Ed25519 key is a few hundred bytes, any PEM key a few KiB. A larger file
 * is refused by its size before it is read. */
#define SIGN_KEY_MAX (1u << 20)
/* Loads home's private key, refusing one readable by group or others, one that is not a regular file (opened without
 * blocking: a FIFO is refused, not waited on) and one over SIGN_KEY_MAX. */
int sign_load_private(EVP_PKEY **out, const char *home);
/* Loads a PEM Ed25519 public key from path (links followed), refusing what is not a regular file (without blocking)
 * and a file over SIGN_KEY_MAX with a message naming path. */
int sign_load_public_file(EVP_PKEY **out, const char *path);
/* keyid = base64(sha256(DER SubjectPublicKeyInfo)). */
int sign_keyid(char **out, EVP_PKEY *key);
int sign_ed25519(unsigned char sig[64], EVP_PKEY *key, const unsigned char *msg, size_t len);
/* 0 when sig is a valid signature of msg by key, BENCH_E_VERIFY otherwise. */
int sign_verify_ed25519(EVP_PKEY *key, const unsigned char *msg, size_t len, const unsigned char *sig, size_t siglen);
/* PAE(type, body) = "DSSEv1" SP len(type) SP type SP len(body) SP body (lengths in ASCII decimal). */
void dsse_pae(struct strbuf *out, const char *type, const unsigned char *body, size_t len);
void base64_encode(struct strbuf *out, const unsigned char *data, size_t len);
/* Standard base64 (padding required). Returns 0, or -1 for malformed input. */
int base64_decode(struct strbuf *out, const char *in, size_t len);

#endif
