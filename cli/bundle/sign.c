/* SPDX-License-Identifier: Apache-2.0 */
#include "sign.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include "core/error.h"
#include "core/fs.h"

static const char *ossl_err(void)
{
	static char buf[256];
	unsigned long e = ERR_get_error();

	if (!e)
		return "unknown OpenSSL error";
	ERR_error_string_n(e, buf, sizeof(buf));
	return buf;
}

const char *sign_home(void)
{
	return fs_bench_home();
}

static int mkdir_private(const char *path)
{
	char *p = xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0700);
			*s = '/';
		}
	}
	if (mkdir(p, 0700) < 0 && errno != EEXIST) {
		int err = bench_error_set(BENCH_E_IO, "cannot create '%s': %s", p, strerror(errno));

		free(p);
		return err;
	}
	free(p);
	return 0;
}

static int write_pem(const char *path, mode_t mode, int force, EVP_PKEY *key, int private)
{
	int fd, err = 0;
	FILE *f;

	if (force)
		unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return bench_error_set(BENCH_E_IO, errno == EEXIST ? "'%s' exists (use --force to replace it)"
							       : "cannot create '%s': %s", path, strerror(errno));
	fchmod(fd, mode); /* whatever the umask */
	f = fdopen(fd, "w");
	if (!f || !(private ? PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL) : PEM_write_PUBKEY(f, key)))
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path, ossl_err());
	if (f)
		fclose(f);
	else
		close(fd);
	return err;
}

int sign_keyid(char **out, EVP_PKEY *key)
{
	unsigned char *der = NULL, md[SHA256_DIGEST_LENGTH];
	struct strbuf sb = STRBUF_INIT;
	int n = i2d_PUBKEY(key, &der);

	if (n <= 0)
		return bench_error_set(BENCH_E_FAIL, "cannot encode the public key: %s", ossl_err());
	SHA256(der, (size_t)n, md);
	OPENSSL_free(der);
	base64_encode(&sb, md, sizeof(md));
	*out = strbuf_detach(&sb);
	return 0;
}

int sign_keygen(char **out_keyid, const char *home, int force)
{
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *key = NULL;
	char *priv = NULL, *pub = NULL;
	int err = 0;

	*out_keyid = NULL;
	if ((err = mkdir_private(home)) < 0)
		return err;
	priv = xstrfmt("%s/signing.key.pem", home);
	pub = xstrfmt("%s/signing.pub.pem", home);
	if (!force && access(priv, F_OK) == 0) {
		err = bench_error_set(BENCH_E_FAIL, "a signing key exists already at '%s' (use --force to replace it)", priv);
		goto cleanup;
	}
	if (!(ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL)) || EVP_PKEY_keygen_init(ctx) <= 0 ||
	    EVP_PKEY_keygen(ctx, &key) <= 0) {
		err = bench_error_set(BENCH_E_FAIL, "cannot generate an Ed25519 key: %s", ossl_err());
		goto cleanup;
	}
	if ((err = write_pem(priv, 0600, force, key, 1)) < 0 || (err = write_pem(pub, 0644, force, key, 0)) < 0)
		goto cleanup;
	err = sign_keyid(out_keyid, key);
cleanup:
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(key);
	free(priv);
	free(pub);
	return err;
}

/* path opened for reading a key: without blocking, a regular file (fs_open_regular), at most SIGN_KEY_MAX bytes by its
 * size, before a byte of it is read; *st its fstat. what names it in the messages ("key", "the signing key"). */
static FILE *key_open(struct stat *st, const char *path, const char *what)
{
	int fd = fs_open_regular(path, 0); /* a FIFO: refused, not waited on */
	FILE *f = NULL;

	if (fd < 0) {
		bench_error_set(BENCH_E_IO, "cannot open %s '%s': %s", what, path, fs_open_error(errno, 0));
	} else if (fstat(fd, st) < 0) {
		bench_error_set(BENCH_E_IO, "cannot open %s '%s': %s", what, path, strerror(errno));
	} else if ((unsigned long long)st->st_size > SIGN_KEY_MAX) {
		bench_error_set(BENCH_E_IO, "cannot open %s '%s': %llu bytes, larger than the %u KiB a PEM key may hold", what,
				path, (unsigned long long)st->st_size, SIGN_KEY_MAX >> 10);
	} else if (!(f = fdopen(fd, "r"))) {
		bench_error_set(BENCH_E_IO, "cannot open %s '%s': %s", what, path, strerror(errno));
	}
	if (!f && fd >= 0)
		close(fd);
	return f;
}

int sign_load_private(EVP_PKEY **out, const char *home)
{
	char *path = xstrfmt("%s/signing.key.pem", home);
	struct stat st;
	FILE *f = NULL;
	int err = 0;

	*out = NULL;
	if (stat(path, &st) < 0) {
		err = bench_error_set(BENCH_E_IO, "no signing key at '%s' (create one with 'bench keygen')", path);
		goto cleanup;
	}
	if (!(f = key_open(&st, path, "the signing key"))) { /* a FIFO, a device, 8 GiB: refused, not read */
		err = BENCH_E_IO;
		goto cleanup;
	}
	if (st.st_mode & 077) {
		err = bench_error_set(BENCH_E_FAIL, "signing key '%s' is readable by group or others (mode %04o); "
				      "run 'chmod 600 %s'", path, (unsigned)(st.st_mode & 07777), path);
		goto cleanup;
	}
	if (!(*out = PEM_read_PrivateKey(f, NULL, NULL, NULL))) {
		err = bench_error_set(BENCH_E_FAIL, "cannot read the signing key '%s': %s", path, ossl_err());
		goto cleanup;
	}
	if (EVP_PKEY_get_id(*out) != EVP_PKEY_ED25519) {
		err = bench_error_set(BENCH_E_FAIL, "signing key '%s' is not an Ed25519 key", path);
		EVP_PKEY_free(*out);
		*out = NULL;
	}
cleanup:
	if (f)
		fclose(f);
	free(path);
	return err;
}

int sign_load_public_file(EVP_PKEY **out, const char *path)
{
	struct stat st;
	FILE *f = key_open(&st, path, "key"); /* a trusted key that is a FIFO or 2 GiB: refused, not waited on */

	*out = NULL;
	if (!f)
		return BENCH_E_IO;
	*out = PEM_read_PUBKEY(f, NULL, NULL, NULL);
	fclose(f);
	if (!*out)
		return bench_error_set(BENCH_E_VERIFY, "'%s' is not a PEM public key: %s", path, ossl_err());
	if (EVP_PKEY_get_id(*out) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(*out);
		*out = NULL;
		return bench_error_set(BENCH_E_VERIFY, "'%s' is not an Ed25519 public key", path);
	}
	return 0;
}

int sign_ed25519(unsigned char sig[64], EVP_PKEY *key, const unsigned char *msg, size_t len)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	size_t siglen = 64;
	int ok = md && EVP_DigestSignInit(md, NULL, NULL, NULL, key) > 0 &&
		 EVP_DigestSign(md, sig, &siglen, msg, len) > 0 && siglen == 64;

	EVP_MD_CTX_free(md);
	return ok ? 0 : bench_error_set(BENCH_E_FAIL, "Ed25519 signing failed: %s", ossl_err());
}

int sign_verify_ed25519(EVP_PKEY *key, const unsigned char *msg, size_t len, const unsigned char *sig, size_t siglen)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int ok = md && siglen == 64 && EVP_DigestVerifyInit(md, NULL, NULL, NULL, key) > 0 &&
		 EVP_DigestVerify(md, sig, siglen, msg, len) == 1;

	EVP_MD_CTX_free(md);
	ERR_clear_error();
	return ok ? 0 : BENCH_E_VERIFY;
}

void dsse_pae(struct strbuf *out, const char *type, const unsigned char *body, size_t len)
{
	strbuf_addf(out, "DSSEv1 %zu %s %zu ", strlen(type), type, len);
	strbuf_add(out, body, len);
}

void base64_encode(struct strbuf *out, const unsigned char *data, size_t len)
{
	size_t n = 4 * ((len + 2) / 3);

	strbuf_grow(out, n + 1);
	EVP_EncodeBlock((unsigned char *)out->buf + out->len, data, (int)len);
	out->len += n;
	out->buf[out->len] = '\0';
}

int base64_decode(struct strbuf *out, const char *in, size_t len)
{
	size_t pad = 0, n;
	int got;

	if (len % 4)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = in[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
		      (c == '=' && i >= len - 2)))
			return -1;
	}
	if (len && in[len - 1] == '=')
		pad++;
	if (len > 1 && in[len - 2] == '=')
		pad++;
	n = 3 * (len / 4);
	strbuf_grow(out, n + 1);
	got = EVP_DecodeBlock((unsigned char *)out->buf + out->len, (const unsigned char *)in, (int)len);
	if (got < 0)
		return -1;
	out->len += (size_t)got - pad;
	out->buf[out->len] = '\0';
	return 0;
}
