/* SPDX-License-Identifier: Apache-2.0 */
/* test_sign.c — the DSSE PAE test vector, RFC 8032 Ed25519 vectors through our OpenSSL path, base64, key ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "core/strbuf.h"
#include "bundle/sign.h"

/* computed with standard tools: printf 302a300506032b6570032100<pk> | xxd -r -p | openssl dgst -sha256 -binary | base64 */
#define KEYID_VECTOR "BuP9j9opu2CrWVV95h7bCuzbIxE0vjDnW0Vfjht5L6k="

static void unhex(unsigned char *out, const char *h)
{
	for (size_t i = 0; h[2 * i]; i++)
		sscanf(h + 2 * i, "%2hhx", &out[i]);
}

static void test_pae_matches_the_dsse_spec_vector(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	dsse_pae(&sb, "http://example.com/HelloWorld", (const unsigned char *)"hello world", 11);
	assert_string_equal(sb.buf, "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
	strbuf_reset(&sb);
	dsse_pae(&sb, "", (const unsigned char *)"", 0);
	assert_string_equal(sb.buf, "DSSEv1 0  0 ");
	strbuf_release(&sb);
}

static const struct {
	const char *sk, *pk, *msg, *sig;
} rfc8032[] = {
	{ "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
	  "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
	  "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b" },
	{ "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
	  "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
	  "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00" },
	{ "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
	  "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
	  "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a" },
};

static void test_rfc8032_vectors_sign_and_verify(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rfc8032) / sizeof(rfc8032[0]); i++) {
		unsigned char sk[32], pk[32], msg[8], want[64], got[64], pub_raw[32];
		size_t mlen = strlen(rfc8032[i].msg) / 2, pl = sizeof(pub_raw);
		EVP_PKEY *priv, *pub;

		unhex(sk, rfc8032[i].sk);
		unhex(pk, rfc8032[i].pk);
		unhex(msg, rfc8032[i].msg);
		unhex(want, rfc8032[i].sig);
		priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, sk, 32);
		pub = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pk, 32);
		assert_non_null(priv);
		assert_non_null(pub);
		assert_int_equal(EVP_PKEY_get_raw_public_key(priv, pub_raw, &pl), 1);
		assert_memory_equal(pub_raw, pk, 32);
		assert_int_equal(sign_ed25519(got, priv, msg, mlen), 0);
		assert_memory_equal(got, want, 64); /* pure Ed25519 is deterministic */
		assert_int_equal(sign_verify_ed25519(pub, msg, mlen, want, 64), 0);
		want[10] ^= 1;
		assert_int_not_equal(sign_verify_ed25519(pub, msg, mlen, want, 64), 0);
		assert_int_not_equal(sign_verify_ed25519(pub, msg, mlen, want, 63), 0);
		EVP_PKEY_free(priv);
		EVP_PKEY_free(pub);
	}
}

static void test_base64_round_trip_and_rejects(void **state)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	const unsigned char data[] = { 0, 1, 2, 250, 251, 252, 253 };

	(void)state;
	for (size_t n = 0; n <= sizeof(data); n++) {
		strbuf_reset(&a);
		strbuf_reset(&b);
		base64_encode(&a, data, n);
		assert_int_equal(a.len % 4, 0);
		assert_int_equal(base64_decode(&b, a.buf, a.len), 0);
		assert_int_equal(b.len, n);
		assert_memory_equal(b.buf, data, n);
	}
	assert_int_equal(base64_decode(&b, "abc", 3), -1);
	assert_int_equal(base64_decode(&b, "ab!d", 4), -1);
	assert_int_equal(base64_decode(&b, "a=bc", 4), -1);
	strbuf_reset(&b);
	assert_int_equal(base64_decode(&b, "aGVsbG8=", 8), 0);
	assert_string_equal(b.buf, "hello");
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_keyid_is_base64_sha256_of_der(void **state)
{
	unsigned char pk[32];
	EVP_PKEY *pub;
	char *id = NULL;

	(void)state;
	unhex(pk, rfc8032[0].pk);
	pub = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pk, 32);
	assert_int_equal(sign_keyid(&id, pub), 0);
	/* DER SubjectPublicKeyInfo = 302a300506032b6570032100 || pk; its sha256, base64 */
	assert_int_equal(strlen(id), 44);
	assert_string_equal(id, KEYID_VECTOR);
	free(id);
	EVP_PKEY_free(pub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pae_matches_the_dsse_spec_vector),
		cmocka_unit_test(test_rfc8032_vectors_sign_and_verify),
		cmocka_unit_test(test_base64_round_trip_and_rejects),
		cmocka_unit_test(test_keyid_is_base64_sha256_of_der),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
