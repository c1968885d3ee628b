/* test_units.c — sizes and durations as manifests write them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_binary_and_decimal_units),
		cmocka_unit_test(test_size_rejects_bad_input),
		cmocka_unit_test(test_duration_units),
		cmocka_unit_test(test_duration_needs_a_unit),
		cmocka_unit_test(test_format_is_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
