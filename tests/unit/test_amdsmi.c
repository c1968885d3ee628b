/* SPDX-License-Identifier: Apache-2.0 */
/* test_amdsmi.c — the amd-smi telemetry backend (runners/common/telemetry_amdsmi.c) against the fake libamd_smi.so
 * of tests/fake/amdsmi (built beside this test): the device found by PCI bus id, GFX clock, power from the energy
 * counter, the temperature sensor that answers, a window's summary, and the failures that leave telemetry
 * unavailable with the reason. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/telemetry.h"

static char fake[PATH_MAX];

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void test_by_bus_id(void **state)
{
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_sample s;

	(void)state;
	setenv("FAKE_AMDSMI_POWER_W", "650", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, "0000:8A:00.0"), 0);
	assert_string_equal(t.match, "pci bus id 0000:8a:00.0");
	sleep_ms(30);
	assert_int_equal(telemetry_read(&t, &s), 0);
	assert_true(s.sm_mhz == 1900);
	assert_true(s.temp_c == 45);          /* no hotspot sensor on this one: the edge */
	assert_true(s.power_w > 600 && s.power_w < 700); /* the counter's rate over 30 ms */
	assert_true(s.reasons == 0);
	telemetry_close(&t);
	assert_null(t.backend);
}

static void test_window(void **state)
{
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_summary sum;
	json_t *j;

	(void)state;
	setenv("FAKE_AMDSMI_POWER_W", "400", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, "0000:0c:00.0"), 0);
	sleep_ms(20);
	telemetry_window_begin(&t);
	sleep_ms(120);
	telemetry_window_end(&t, &sum);
	assert_true(sum.available && sum.n >= 5);
	assert_string_equal(sum.source, "amdsmi");
	assert_true(sum.sm_mhz_median == 2100 && sum.temp_c_max == 71);
	assert_true(sum.power_w_median > 360 && sum.power_w_median < 440);
	j = telemetry_summary_json(&sum);
	assert_string_equal(json_string_value(json_object_get(j, "source")), "amdsmi");
	json_decref(j);
	telemetry_close(&t);
}

static void test_no_bus_id_first_gpu(void **state)
{
	struct telemetry t = TELEMETRY_INIT;

	(void)state;
	assert_int_equal(telemetry_open_amdsmi(&t, fake, "0000:ff:00.0"), 0);
	assert_string_equal(t.match, "index 0 (bus id not found)");
	telemetry_close(&t);
}

static void test_unavailable(void **state)
{
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_summary sum;

	(void)state;
	assert_int_equal(telemetry_open_amdsmi(&t, "/nonexistent/libamd_smi.so", NULL), -1);
	assert_non_null(strstr(t.why, "cannot load /nonexistent/libamd_smi.so"));
	telemetry_window_end(&t, &sum);
	assert_false(sum.available);
	telemetry_close(&t);
	setenv("FAKE_AMDSMI_INIT_FAIL", "1", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, NULL), -1);
	assert_string_equal(t.why, "telemetry unavailable: amdsmi_init failed");
	telemetry_close(&t);
	unsetenv("FAKE_AMDSMI_INIT_FAIL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_bus_id),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_no_bus_id_first_gpu),
		cmocka_unit_test(test_unavailable),
	};
	char self[PATH_MAX - 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 1;
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(fake, sizeof(fake), "%s/libamd_smi_fake.so", self);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
