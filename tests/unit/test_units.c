/* SPDX-License-Identifier: Apache-2.0 */
/* test_units.c — sizes and durations as manifests write them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/units.h"

static uint64_t size_ok(const char *s)
{
	char why[128];
	uint64_t v = 0;

	assert_int_equal(units_parse_size(&v, s, why, sizeof(why)), 0);
	return v;
}

static void size_bad(const char *s, const char *why_part)
{
	char why[128];
	uint64_t v = 0;

	assert_int_equal(units_parse_size(&v, s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, why_part));
}

static void test_size_binary_and_decimal_units(void **state)
{
	(void)state;
	assert_true(size_ok("4096") == 4096);
	assert_true(size_ok("0B") == 0);
	assert_true(size_ok("1KiB") == 1024);
	assert_true(size_ok("2GiB") == 2147483648ull);
	assert_true(size_ok("16GiB") == 17179869184ull);
	assert_true(size_ok("1TiB") == 1099511627776ull);
	assert_true(size_ok("1KB") == 1000);
	assert_true(size_ok("25MB") == 25000000);
	assert_true(size_ok("1GB") == 1000000000);
	assert_true(size_ok("1.5GiB") == 1610612736ull);
	assert_true(size_ok("0.5KiB") == 512);
}

static void test_size_rejects_bad_input(void **state)
{
	(void)state;
	size_bad("", "expected a size");
	size_bad("GiB", "expected a size");
	size_bad("-1MiB", "expected a size");
	size_bad("2Gb", "unknown size unit 'Gb'");
	size_bad("2gib", "unknown size unit 'gib'");
	size_bad("2 GiB", "unknown size unit ' GiB'");
	size_bad("1.5B", "not a whole number of bytes");
	size_bad("1.5", "whole number of bytes");
	size_bad("2PiB", "unknown size unit");
	size_bad("2048TiB", "larger than 1 PiB");
	size_bad("99999999999999999999999", "larger than 1 PiB");
	size_bad("1.", "expected a size");
}

static void test_duration_units(void **state)
{
	char why[128];
	uint64_t ns;

	(void)state;
	assert_int_equal(units_parse_duration(&ns, "30ms", why, sizeof(why)), 0);
	assert_true(ns == 30000000ull);
	assert_int_equal(units_parse_duration(&ns, "500ms", why, sizeof(why)), 0);
	assert_true(ns == 500000000ull);
	assert_int_equal(units_parse_duration(&ns, "1.5s", why, sizeof(why)), 0);
	assert_true(ns == 1500000000ull);
	assert_int_equal(units_parse_duration(&ns, "10m", why, sizeof(why)), 0);
	assert_true(ns == 600000000000ull);
	assert_int_equal(units_parse_duration(&ns, "2h", why, sizeof(why)), 0);
	assert_true(ns == 7200000000000ull);
	assert_int_equal(units_parse_duration(&ns, "250us", why, sizeof(why)), 0);
	assert_true(ns == 250000ull);
}

static void test_duration_needs_a_unit(void **state)
{
	char why[128];
	uint64_t ns;

	(void)state;
	assert_int_equal(units_parse_duration(&ns, "30", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "needs a unit"));
	assert_int_equal(units_parse_duration(&ns, "30min", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "unknown duration unit 'min'"));
	assert_int_equal(units_parse_duration(&ns, "31d", why, sizeof(why)), -1);
	assert_int_equal(units_parse_duration(&ns, "800h", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "longer than 30 days"));
	assert_int_equal(units_parse_duration(&ns, "0.5ns", why, sizeof(why)), -1);
}

static void test_format_is_exact(void **state)
{
	char b[32];

	(void)state;
	units_format_size(b, sizeof(b), 2147483648ull);
	assert_string_equal(b, "2GiB");
	units_format_size(b, sizeof(b), 1610612736ull);
	assert_string_equal(b, "1536MiB");
	units_format_size(b, sizeof(b), 1000000);
	assert_string_equal(b, "1000000B");
	units_format_size(b, sizeof(b), 65536);
	assert_string_equal(b, "64KiB");
	units_format_size(b, sizeof(b), 0);
	assert_string_equal(b, "0B");
	units_format_duration(b, sizeof(b), 30000000ull);
	assert_string_equal(b, "30ms");
	units_format_duration(b, sizeof(b), 1500000000ull);
	assert_string_equal(b, "1500ms");
	units_format_duration(b, sizeof(b), 7200000000000ull);
	assert_string_equal(b, "2h");
}

#define SCALED(v, u) (units_format_scaled(b, sizeof(b), (v), (u)), b)

static void test_scaled_moves_the_prefix_down(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(SCALED(0.001167, "TFLOP/s"), "1.17 GFLOP/s");
	assert_string_equal(SCALED(0.0186, "TB/s"), "18.6 GB/s");
	assert_string_equal(SCALED(0.5541, "GB/s"), "554 MB/s");
	assert_string_equal(SCALED(0.000042, "GB/s"), "42.0 kB/s");
	assert_string_equal(SCALED(0.25, "ms"), "250 us");
	assert_string_equal(SCALED(0.0005, "s"), "500 us");
	assert_string_equal(SCALED(0.00000123, "s"), "1.23 us");
}

static void test_scaled_moves_the_prefix_up(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(SCALED(1234.5, "GB/s"), "1.23 TB/s");
	assert_string_equal(SCALED(1500, "ms"), "1.50 s");
	assert_string_equal(SCALED(2.5e6, "B/s"), "2.50 MB/s");
	/* 999.7 rounds to 1000 at 3 digits: the next prefix instead */
	assert_string_equal(SCALED(999.7, "GB/s"), "1.00 TB/s");
}

static void test_scaled_keeps_what_it_cannot_scale(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(SCALED(4.45, "GB/s"), "4.45 GB/s");
	assert_string_equal(SCALED(712.4, "TFLOP/s"), "712 TFLOP/s");
	/* no prefix beyond P, none above the bare second, none below the bare byte */
	assert_string_equal(SCALED(5000, "PFLOP/s"), "5000 PFLOP/s");
	assert_string_equal(SCALED(7200, "s"), "7200 s");
	assert_string_equal(SCALED(0.5, "B/s"), "0.500 B/s");
	assert_string_equal(SCALED(0, "TB/s"), "0 TB/s");
	assert_string_equal(SCALED(-0.0186, "TB/s"), "-18.6 GB/s");
	assert_string_equal(SCALED(12345.6, "tokens/s"), "1.235e+04 tokens/s");
	assert_string_equal(SCALED(0.25, "%"), "0.25 %");
	assert_string_equal(SCALED(NAN, "GB/s"), "-");
	assert_string_equal(SCALED(INFINITY, "GB/s"), "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_binary_and_decimal_units),
		cmocka_unit_test(test_size_rejects_bad_input),
		cmocka_unit_test(test_duration_units),
		cmocka_unit_test(test_duration_needs_a_unit),
		cmocka_unit_test(test_format_is_exact),
		cmocka_unit_test(test_scaled_moves_the_prefix_down),
		cmocka_unit_test(test_scaled_moves_the_prefix_up),
		cmocka_unit_test(test_scaled_keeps_what_it_cannot_scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
