/* SPDX-License-Identifier: Apache-2.0 */
/* test_ccllog.c — NCCL/RCCL debug logs (tests/fixtures/ccl) to effective facts, and the variables that did not take
 * effect: fires where a flag was ignored, and nowhere else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/ccllog.h"

/* the parse of tests/fixtures/ccl/<name> (the tests run from the repository's root) */
static json_t *parse(const char *name)
{
	char path[256];
	size_t len;
	long end = 0;
	char *text;
	json_t *eff = json_object();

	snprintf(path, sizeof(path), "tests/fixtures/ccl/%s", name);
	text = ccllog_read(path, 0, &len, &end);
	assert_non_null(text);
	assert_int_equal(end, (long)len);
	ccllog_parse_into(eff, text, len);
	free(text);
	return eff;
}

static const char *s(const json_t *o, const char *path)
{
	return json_string_value(json_object_get(o, path));
}

static json_int_t i(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static void test_default_h200(void **state)
{
	json_t *eff = parse("nccl-2.28-h200x2-default.log"), *c, *ne;
	const char *env[] = { "NCCL_NVLS_ENABLE=1", "CUDA_VISIBLE_DEVICES=0,1" };

	(void)state;
	assert_string_equal(s(eff, "library"), "nccl");
	assert_string_equal(s(eff, "version"), "2.28.3+cuda12.9");
	assert_int_equal(i(eff, "nranks"), 2);
	assert_int_equal(i(eff, "nnodes"), 1);
	assert_string_equal(s(eff, "network"), "Socket");
	assert_int_equal(i(json_object_get(eff, "channels"), "coll"), 24);
	assert_int_equal(i(json_object_get(eff, "channels"), "nvls"), 16);
	assert_true(json_is_true(json_object_get(json_object_get(eff, "nvls"), "available")));
	/* four connections, each rank's own; two directions as peers */
	assert_int_equal(i(json_object_get(eff, "transports"), "P2P/CUMEM/read"), 4);
	assert_int_equal(json_array_size(json_object_get(eff, "peers")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(eff, "peers"), 0)), "0 -> 1 via P2P/CUMEM/read");
	/* two identical calls folded into one entry with calls 2, then the 8-byte one */
	assert_int_equal(json_array_size(json_object_get(eff, "collectives")), 2);
	c = json_array_get(json_object_get(eff, "collectives"), 0);
	assert_string_equal(s(c, "op"), "AllReduce");
	assert_int_equal(i(c, "bytes"), 1048576);
	assert_string_equal(s(c, "algorithm"), "NVLS");
	assert_string_equal(s(c, "protocol"), "SIMPLE");
	assert_int_equal(i(c, "channels"), 16);
	assert_int_equal(i(c, "calls"), 2);
	assert_null(json_object_get(eff, "env"));
	ne = ccllog_not_effective(eff, env, 2);
	assert_int_equal(json_array_size(ne), 0);
	json_decref(ne);
	json_decref(eff);
}

static void test_algo_ignored_fires(void **state)
{
	json_t *eff = parse("nccl-2.28-h200x2-algo-ignored.log"), *ne, *m;
	const char *env[] = { "NCCL_ALGO=Tree", "NCCL_PROTO=LL" };

	(void)state;
	assert_string_equal(s(json_object_get(eff, "env"), "NCCL_ALGO"), "Tree");
	assert_string_equal(s(json_object_get(eff, "env"), "NCCL_PROTO"), "LL");
	ne = ccllog_not_effective(eff, env, 2);
	assert_int_equal(json_array_size(ne), 1); /* the protocol was LL: taken */
	m = json_array_get(ne, 0);
	assert_string_equal(s(m, "variable"), "NCCL_ALGO");
	assert_string_equal(s(m, "asked"), "Tree");
	assert_non_null(strstr(s(m, "effective"), "AllReduce 1048576 B ran RING"));
	json_decref(ne);
	json_decref(eff);
}

static void test_algo_taken_quiet(void **state)
{
	json_t *eff = parse("nccl-2.28-h200x2-algo-taken.log"), *ne;
	const char *env[] = { "NCCL_ALGO=Ring", "NCCL_PROTO=LL" };
	const char *other[] = { "NCCL_ALGO=^Ring" };                      /* excluded, and ran: fires */
	const char *per_fn[] = { "NCCL_ALGO=allgather:tree;allreduce:ring" }; /* allreduce asked ring: quiet */
	const char *per_fn_bad[] = { "NCCL_PROTO=allreduce:simple" };

	(void)state;
	ne = ccllog_not_effective(eff, env, 2);
	assert_int_equal(json_array_size(ne), 0);
	json_decref(ne);
	ne = ccllog_not_effective(eff, other, 1);
	assert_int_equal(json_array_size(ne), 1);
	json_decref(ne);
	ne = ccllog_not_effective(eff, per_fn, 1);
	assert_int_equal(json_array_size(ne), 0);
	json_decref(ne);
	ne = ccllog_not_effective(eff, per_fn_bad, 1);
	assert_int_equal(json_array_size(ne), 1);
	json_decref(ne);
	json_decref(eff);
}

static void test_channels_ignored(void **state)
{
	json_t *eff = parse("nccl-2.28-h200x2-channels-ignored.log"), *ne;
	const char *env[] = { "NCCL_MIN_NCHANNELS=112" }, *ok[] = { "NCCL_MIN_NCHANNELS=16", "NCCL_MAX_NCHANNELS=32" };
	const char *max[] = { "NCCL_MAX_CTAS=8" };

	(void)state;
	assert_string_equal(s(json_object_get(eff, "env"), "NCCL_MIN_NCHANNELS"), "112");
	ne = ccllog_not_effective(eff, env, 1);
	assert_int_equal(json_array_size(ne), 1);
	assert_string_equal(s(json_array_get(ne, 0), "effective"), "24 coll channels");
	json_decref(ne);
	ne = ccllog_not_effective(eff, ok, 2);
	assert_int_equal(json_array_size(ne), 0);
	json_decref(ne);
	ne = ccllog_not_effective(eff, max, 1);
	assert_int_equal(json_array_size(ne), 1);
	json_decref(ne);
	json_decref(eff);
}

static void test_ib_two_nodes(void **state)
{
	json_t *eff = parse("nccl-2.28-ib-2node.log"), *ne, *tr;
	const char *env[] = { "NCCL_COLLNET_ENABLE=1", "NCCL_IB_DISABLE=1", "NCCL_NET=IB", "NCCL_NVLS_ENABLE=0" };

	(void)state;
	assert_string_equal(s(eff, "network"), "IB");
	assert_non_null(strstr(s(eff, "net_devices"), "mlx5_0:1/IB"));
	assert_non_null(strstr(s(eff, "collnet"), "disabled"));
	assert_int_equal(i(eff, "nnodes"), 2);
	tr = json_object_get(eff, "transports");
	assert_int_equal(i(tr, "NET/IB/0/GDRDMA"), 2);
	assert_int_equal(i(tr, "SHM/direct/direct"), 1);
	assert_int_equal(i(tr, "P2P/CUMEM/read"), 1);
	assert_string_equal(s(json_array_get(json_object_get(eff, "collectives"), 1), "algorithm"), "PAT");
	ne = ccllog_not_effective(eff, env, 4);
	/* CollNet asked, disabled; IB disabled yet used; NCCL_NET=IB taken; no NVLS line here: nothing to judge */
	assert_int_equal(json_array_size(ne), 2);
	assert_string_equal(s(json_array_get(ne, 0), "variable"), "NCCL_COLLNET_ENABLE");
	assert_string_equal(s(json_array_get(ne, 1), "variable"), "NCCL_IB_DISABLE");
	json_decref(ne);
	json_decref(eff);
}

static void test_rccl(void **state)
{
	json_t *eff = parse("rccl-mi300x8.log"), *ne, *c;
	const char *env[] = { "NCCL_ALGO=Tree", "NCCL_SHM_DISABLE=1", "NCCL_P2P_DISABLE=1" };

	(void)state;
	assert_string_equal(s(eff, "library"), "rccl");
	assert_string_equal(s(eff, "version"), "2.22.3-HEAD:e9a9c2b");
	assert_int_equal(i(json_object_get(eff, "channels"), "coll"), 56);
	c = json_array_get(json_object_get(eff, "collectives"), 0);
	assert_string_equal(s(c, "algorithm"), "TREE");
	assert_int_equal(i(c, "channels"), 56);
	assert_int_equal(i(json_object_get(eff, "transports"), "P2P/IPC/read"), 1);
	ne = ccllog_not_effective(eff, env, 3); /* Tree ran, no SHM; P2P used although disabled */
	assert_int_equal(json_array_size(ne), 1);
	assert_string_equal(s(json_array_get(ne, 0), "variable"), "NCCL_P2P_DISABLE");
	json_decref(ne);
	json_decref(eff);
}

static void test_incremental_and_partial_line(void **state)
{
	const char *a = "h:1:1 [0] NCCL INFO NCCL version 2.27.7+cuda12.9\nh:1:1 [0] NCCL INFO AllReduce: 8 Bytes -> Al";
	char path[] = "/tmp/bench-test-ccllog-XXXXXX"; /* not under build/: make asan builds elsewhere */
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	size_t len;
	long end = 0;
	char *t;
	json_t *eff;

	(void)state;
	assert_non_null(f);
	eff = json_object();
	fputs(a, f);
	fclose(f);
	t = ccllog_read(path, 0, &len, &end);
	assert_non_null(t);
	assert_int_equal(end, (long)strlen("h:1:1 [0] NCCL INFO NCCL version 2.27.7+cuda12.9\n"));
	ccllog_parse_into(eff, t, len);
	free(t);
	f = fopen(path, "a");
	fputs("go RING proto LL channel{Lo..Hi}={0..1}\n", f);
	fclose(f);
	t = ccllog_read(path, end, &len, &end);
	ccllog_parse_into(eff, t, len);
	free(t);
	assert_string_equal(s(eff, "version"), "2.27.7+cuda12.9");
	assert_int_equal(i(json_array_get(json_object_get(eff, "collectives"), 0), "channels"), 2);
	assert_int_equal(i(eff, "lines"), 2);
	assert_null(ccllog_read(path, end, &len, &end)); /* nothing new */
	remove(path);
	json_decref(eff);
}

/* captured on one H200 (tests/gpu/nccl-log-capture-h200.sh): a one-rank communicator prints the real init lines */
static void test_captured_h200x1(void **state)
{
	json_t *eff = parse("nccl-2.28.3-h200x1-channels-limited.log"), *ne;
	const char *env[] = { "NCCL_MIN_NCHANNELS=112", "NCCL_NVLS_ENABLE=0" }, *ok[] = { "NCCL_NVLS_ENABLE=0" };

	(void)state;
	assert_string_equal(s(eff, "library"), "nccl");
	assert_string_equal(s(eff, "version"), "2.28.3+cuda13.0");
	assert_int_equal(i(eff, "nranks"), 1);
	assert_string_equal(s(eff, "network"), "Socket");
	assert_int_equal(i(json_object_get(eff, "channels"), "coll"), 64);
	assert_string_equal(s(json_object_get(eff, "env"), "NCCL_MIN_NCHANNELS"), "112");
	ne = ccllog_not_effective(eff, env, 2); /* "User asked for a minimum of 112 channels, limiting to 64" */
	assert_int_equal(json_array_size(ne), 1);
	assert_string_equal(s(json_array_get(ne, 0), "variable"), "NCCL_MIN_NCHANNELS");
	assert_string_equal(s(json_array_get(ne, 0), "effective"), "64 coll channels");
	json_decref(ne);
	json_decref(eff);
	eff = parse("nccl-2.28.9-h200x1-default.log");
	assert_string_equal(s(eff, "version"), "2.28.9+cuda13.0");
	ne = ccllog_not_effective(eff, ok, 1);
	assert_int_equal(json_array_size(ne), 0);
	json_decref(ne);
	json_decref(eff);
}

/* captured one-rank log under NCCL_ALGO=Tree NCCL_PROTO=LL (tests/fixtures/ccl): no TUNING line, so the two are
 * not judged (said so, with the one-rank reason) and never reported as not effective; nor are NCCL_NVLS_ENABLE (the
 * log has no NVLS line) and NCCL_P2P_DISABLE (one rank: no connection) */
static void test_one_rank_not_judged(void **state)
{
	json_t *eff = parse("nccl-2.28.3-h200x1-algo-tree-ll.log"), *ne, *nj;
	const char *env[] = { "NCCL_ALGO=Tree", "NCCL_PROTO=LL", "NCCL_NVLS_ENABLE=0", "NCCL_P2P_DISABLE=1" };

	(void)state;
	assert_int_equal(i(eff, "nranks"), 1);
	assert_int_equal(json_array_size(json_object_get(eff, "collectives")), 0);
	ne = ccllog_not_effective(eff, env, 4);
	assert_int_equal(json_array_size(ne), 0);
	nj = ccllog_not_judged(eff, env, 4);
	assert_int_equal(json_array_size(nj), 4);
	assert_string_equal(s(json_array_get(nj, 0), "variable"), "NCCL_ALGO");
	assert_string_equal(s(json_array_get(nj, 0), "asked"), "Tree");
	assert_non_null(strstr(s(json_array_get(nj, 0), "why"), "not reported (one rank)"));
	assert_string_equal(s(json_array_get(nj, 1), "variable"), "NCCL_PROTO");
	assert_string_equal(s(json_array_get(nj, 2), "variable"), "NCCL_NVLS_ENABLE");
	assert_string_equal(s(json_array_get(nj, 3), "variable"), "NCCL_P2P_DISABLE");
	assert_non_null(strstr(s(json_array_get(nj, 3), "why"), "not reported (one rank)"));
	json_decref(ne);
	json_decref(nj);
	json_decref(eff);
	/* two ranks with TUNING lines: judged, nothing left unjudged */
	eff = parse("nccl-2.28-h200x2-algo-taken.log");
	nj = ccllog_not_judged(eff, (const char *[]){ "NCCL_ALGO=Ring", "NCCL_PROTO=LL" }, 2);
	assert_int_equal(json_array_size(nj), 0);
	json_decref(nj);
	json_decref(eff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_h200),	 cmocka_unit_test(test_algo_ignored_fires),
		cmocka_unit_test(test_algo_taken_quiet), cmocka_unit_test(test_channels_ignored),
		cmocka_unit_test(test_ib_two_nodes),	 cmocka_unit_test(test_rccl),
		cmocka_unit_test(test_incremental_and_partial_line), cmocka_unit_test(test_captured_h200x1),
		cmocka_unit_test(test_one_rank_not_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
