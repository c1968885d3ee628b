/* SPDX-License-Identifier: Apache-2.0 */
/* test_core.c — suggestions, options, strbuf, diagnostics, exit codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/diag.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "core/suggest.h"

static void test_distance_counts_edits(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("suites", "suites"), 0);
	assert_int_equal(suggest_distance("sutes", "suites"), 1);
	assert_int_equal(suggest_distance("dtpyes", "dtypes"), 1); /* transposition */
	assert_int_equal(suggest_distance("", "abc"), 3);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
}

static void test_closest_suggests_only_likely_typos(void **state)
{
	static const char *const keys[] = { "bench", "name", "target", "suites", "runtime", NULL };

	(void)state;
	assert_string_equal(suggest_closest("sutes", keys), "suites");
	assert_string_equal(suggest_closest("targte", keys), "target");
	assert_string_equal(suggest_closest("nmae", keys), "name");
	assert_null(suggest_closest("zzzzzz", keys));
	assert_null(suggest_closest("x", keys));
}

static void test_opt_parses_and_permutes(void **state)
{
	struct opt_strlist l = OPT_STRLIST_INIT;
	const char *out = NULL;
	int json = 0, v = 0;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "json"),
		OPT_COUNT('v', "verbose", &v, "v"),
		OPT_STRING('o', "out", &out, "DIR", "out"),
		OPT_LIST('s', "suite", &l, "S", "suites"),
		OPT_END(),
	};
	const struct opt_cmd cmd = { "t", "[x]", "test" };
	char *argv[] = { "a.yaml", "--json", "-v", "-v", "--out=dir", "-s", "gemm,membw", "b", "--suite", "training",
			 "--", "-notopt", NULL };
	int n = opt_parse(12, argv, opts, &cmd);

	(void)state;
	assert_int_equal(n, 3);
	assert_string_equal(argv[0], "a.yaml");
	assert_string_equal(argv[1], "b");
	assert_string_equal(argv[2], "-notopt");
	assert_int_equal(json, 1);
	assert_int_equal(v, 2);
	assert_string_equal(out, "dir");
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0], "gemm");
	assert_string_equal(l.v[1], "membw");
	assert_string_equal(l.v[2], "training");
	opt_strlist_release(&l);
}

static void test_opt_rejects_unknown_and_missing_values(void **state)
{
	const char *out = NULL;
	const struct opt opts[] = { OPT_STRING('o', "out", &out, "DIR", "out"), OPT_END() };
	const struct opt_cmd cmd = { "t", "[x]", "test" };
	char *a1[] = { "--outt", "x", NULL };
	char *a2[] = { "--out", NULL };
	char *a3[] = { "-z", NULL };

	(void)state;
	assert_int_equal(opt_parse(2, a1, opts, &cmd), BENCH_E_USAGE);
	assert_int_equal(opt_parse(1, a2, opts, &cmd), BENCH_E_USAGE);
	assert_int_equal(opt_parse(1, a3, opts, &cmd), BENCH_E_USAGE);
}

static void test_strbuf_grows_and_detaches(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i % 10);
	assert_int_equal(sb.len, 2000);
	assert_int_equal(sb.buf[1998], '9');
	s = strbuf_detach(&sb);
	assert_int_equal(strlen(s), 2000);
	assert_int_equal(sb.len, 0);
	free(s);
	strbuf_release(&sb);
}

static void test_diag_sorts_by_position(void **state)
{
	struct diag_list d = DIAG_LIST_INIT;

	(void)state;
	diag_add(&d, "f", 9, 1, "c");
	diag_add(&d, "f", 2, 5, "b");
	diag_add(&d, "f", 2, 1, "a");
	diag_add(&d, "f", 9, 1, "d");
	diag_list_sort(&d);
	assert_string_equal(d.items[0].msg, "a");
	assert_string_equal(d.items[1].msg, "b");
	assert_string_equal(d.items[2].msg, "c"); /* stable */
	assert_string_equal(d.items[3].msg, "d");
	diag_list_release(&d);
}

static void test_exit_codes_follow_design(void **state)
{
	(void)state;
	assert_int_equal(bench_exit_code(0), 0);
	assert_int_equal(bench_exit_code(BENCH_E_FAIL), 1);
	assert_int_equal(bench_exit_code(BENCH_E_USAGE), 2);
	assert_int_equal(bench_exit_code(BENCH_E_MANIFEST), 3);
	assert_int_equal(bench_exit_code(BENCH_E_RESOLVE), 4);
	assert_int_equal(bench_exit_code(BENCH_E_BUILD), 5);
	assert_int_equal(bench_exit_code(BENCH_E_SUITE), 6);
	assert_int_equal(bench_exit_code(BENCH_E_CHECK), 7);
	assert_int_equal(bench_exit_code(BENCH_E_VERIFY), 8);
	assert_int_equal(bench_exit_code(BENCH_E_REGRESSION), 9);
	assert_int_equal(bench_exit_code(BENCH_E_NOMEM), 1);
	assert_int_equal(bench_exit_code(BENCH_E_IO), 1);
	assert_int_equal(bench_exit_code(BENCH_E_EMPTY), 10);
	assert_int_equal(bench_error_set(BENCH_E_IO, "x %d", 5), BENCH_E_IO);
	assert_string_equal(bench_error_last(), "x 5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance_counts_edits),
		cmocka_unit_test(test_closest_suggests_only_likely_typos),
		cmocka_unit_test(test_opt_parses_and_permutes),
		cmocka_unit_test(test_opt_rejects_unknown_and_missing_values),
		cmocka_unit_test(test_strbuf_grows_and_detaches),
		cmocka_unit_test(test_diag_sorts_by_position),
		cmocka_unit_test(test_exit_codes_follow_design),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
