/* SPDX-License-Identifier: Apache-2.0 */
/* test_amdsmi.c — the amd-smi telemetry backend (runners/common/telemetry_amdsmi.c) against the fake libamd_smi.so
 * of tests/fake/amdsmi (built beside this test): the device found by PCI bus id, GFX clock, power from the energy
 * counter, the temperature sensor that answers, a window's summary, throttle status (indep_throttle_status every
 * sample, the violation accumulators over a window, NVML's reason names for both, and neither where amd-smi answers
 * neither), and the failures that leave telemetry unavailable with the reason. */
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
	/* the first library that loads (a runtime package has only the versioned soname), else the first one's reason */
	{
		const char *libs[] = { "/nonexistent/libamd_smi.so", "/nonexistent/libamd_smi.so.27", fake };

		assert_int_equal(telemetry_open_amdsmi_first(&t, libs, 3, NULL), 0);
		assert_string_equal(t.src.name, "amdsmi");
		telemetry_close(&t);
		assert_int_equal(telemetry_open_amdsmi_first(&t, libs, 2, NULL), -1);
		assert_non_null(strstr(t.why, "cannot load /nonexistent/libamd_smi.so ("));
		telemetry_close(&t);
	}
	setenv("FAKE_AMDSMI_INIT_FAIL", "1", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, NULL), -1);
	assert_string_equal(t.why, "telemetry unavailable: amdsmi_init failed");
	telemetry_close(&t);
	unsetenv("FAKE_AMDSMI_INIT_FAIL");
}

static int count_lines(const char *path, const char *name)
{
	char line[128];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, name, strlen(name)) && line[strlen(name)] == '\n';
	fclose(f);
	return n;
}

static const char *reason_at(const json_t *j, size_t i)
{
	return json_string_value(json_array_get(json_object_get(j, "throttle_reasons"), i));
}

/* the kernel's SMU_THROTTLER_* groups onto NVML's bits */
static void test_indep_mapping(void **state)
{
	char buf[256];

	(void)state;
	assert_true(telemetry_amdsmi_indep_reasons(0) == 0);
	assert_string_equal(telemetry_reason_names(telemetry_amdsmi_indep_reasons(1ull << 0), buf, sizeof(buf)),
			    "sw_power_cap"); /* PPT0 */
	assert_string_equal(telemetry_reason_names(telemetry_amdsmi_indep_reasons(1ull << 4), buf, sizeof(buf)),
			    "sw_power_cap"); /* SPL */
	assert_string_equal(telemetry_reason_names(telemetry_amdsmi_indep_reasons(1ull << 22), buf, sizeof(buf)),
			    "hw_slowdown"); /* EDC_GFX */
	assert_string_equal(telemetry_reason_names(telemetry_amdsmi_indep_reasons(1ull << 36), buf, sizeof(buf)),
			    "sw_thermal"); /* TEMP_HOTSPOT */
	assert_string_equal(telemetry_reason_names(telemetry_amdsmi_indep_reasons(1ull << 47), buf, sizeof(buf)),
			    "hw_thermal"); /* PROCHOT_GFX */
	assert_string_equal(telemetry_reason_names(telemetry_amdsmi_indep_reasons(1ull << 57), buf, sizeof(buf)),
			    "hw_slowdown"); /* FIT */
	assert_true(telemetry_amdsmi_indep_reasons((0xffull << 8) | (0xffull << 24) | (0xffull << 48)) == 0); /* unused */
}

/* gpu_metrics' indep_throttle_status, read with every sample (PPT0 and TEMP_HOTSPOT set) */
static void test_indep_throttle(void **state)
{
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_sample s;
	struct telemetry_summary sum;
	json_t *j;

	(void)state;
	setenv("FAKE_AMDSMI_INDEP_THROTTLE", "1000000001", 1); /* bits 0 and 36 */
	assert_int_equal(telemetry_open_amdsmi(&t, fake, "0000:0c:00.0"), 0);
	assert_string_equal(t.throttle, "indep_throttle_status");
	assert_int_equal(telemetry_read(&t, &s), 0);
	assert_true(s.reasons == (0x4 | 0x20));
	telemetry_window_begin(&t);
	sleep_ms(40);
	telemetry_window_end(&t, &sum);
	j = telemetry_summary_json(&sum);
	assert_int_equal(json_array_size(json_object_get(j, "throttle_reasons")), 2);
	assert_string_equal(reason_at(j, 0), "sw_power_cap");
	assert_string_equal(reason_at(j, 1), "sw_thermal");
	assert_string_equal(json_string_value(json_object_get(j, "throttle_reasons_from")), "indep_throttle_status");
	json_decref(j);
	telemetry_close(&t);
	/* not throttled: the field answers 0 */
	setenv("FAKE_AMDSMI_INDEP_THROTTLE", "0", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, NULL), 0);
	assert_int_equal(telemetry_read(&t, &s), 0);
	assert_true(s.reasons == 0);
	telemetry_close(&t);
	unsetenv("FAKE_AMDSMI_INDEP_THROTTLE");
}

/* the field's offset follows the library's major version (112 up to 26, 120 from 27); a library whose layout is not
 * the one its version says is caught by the bits the kernel does not define (voltages, socket power there) */
static void test_indep_offset_by_version(void **state)
{
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_sample s;

	(void)state;
	setenv("FAKE_AMDSMI_INDEP_THROTTLE", "800000000000", 1); /* bit 47, PROCHOT_GFX */
	setenv("FAKE_AMDSMI_LIB_MAJOR", "27", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, NULL), 0);
	assert_string_equal(t.throttle, "indep_throttle_status");
	assert_int_equal(telemetry_read(&t, &s), 0);
	assert_true(s.reasons == 0x40); /* hw_thermal */
	telemetry_close(&t);
	/* version 26, layout 27: offset 112 holds the voltages */
	setenv("FAKE_AMDSMI_LIB_MAJOR", "26", 1);
	setenv("FAKE_AMDSMI_LAYOUT", "27", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, NULL), 0);
	assert_string_equal(t.throttle, "none: amd-smi reports no throttle status here");
	assert_int_equal(telemetry_read(&t, &s), 0);
	assert_true(s.reasons == 0);
	telemetry_close(&t);
	/* version 27, layout 24: offset 120 holds the socket power */
	setenv("FAKE_AMDSMI_LIB_MAJOR", "27", 1);
	setenv("FAKE_AMDSMI_LAYOUT", "24", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, NULL), 0);
	assert_string_equal(t.throttle, "none: amd-smi reports no throttle status here");
	telemetry_close(&t);
	unsetenv("FAKE_AMDSMI_LAYOUT");
	unsetenv("FAKE_AMDSMI_LIB_MAJOR");
	unsetenv("FAKE_AMDSMI_INDEP_THROTTLE");
}

/* MI300-like: no indep_throttle_status (UINT64_MAX), the violation status instead, read only at a window's ends:
 * the PPT and HBM accumulators grow, PROCHOT and socket stay, VR is unsupported */
static void test_violation_window(void **state)
{
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_summary sum;
	char calls[] = "/tmp/bench-amdsmi-calls-XXXXXX";
	int fd = mkstemp(calls);
	json_t *j;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	setenv("FAKE_AMDSMI_CALLS", calls, 1);
	setenv("FAKE_AMDSMI_VIOLATION", "ppt,hbm", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, "0000:0c:00.0"), 0);
	assert_string_equal(t.throttle, "violation status");
	telemetry_window_begin(&t);
	sleep_ms(60);
	telemetry_window_end(&t, &sum);
	assert_true(sum.n >= 3);
	j = telemetry_summary_json(&sum);
	assert_int_equal(json_array_size(json_object_get(j, "throttle_reasons")), 2);
	assert_string_equal(reason_at(j, 0), "sw_power_cap");
	assert_string_equal(reason_at(j, 1), "sw_thermal");
	assert_string_equal(json_string_value(json_object_get(j, "throttle_reasons_from")), "violation status");
	json_decref(j);
	/* gpu_metrics once (the probe at open: unsupported, so never per sample); the violation status at the probe
	 * and the window's two ends only */
	assert_int_equal(count_lines(calls, "amdsmi_get_gpu_metrics_info"), 1);
	assert_int_equal(count_lines(calls, "amdsmi_get_violation_status"), 3);
	telemetry_close(&t);
	/* supported, nothing grew: no reason */
	setenv("FAKE_AMDSMI_VIOLATION", "none", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, NULL), 0);
	telemetry_window_begin(&t);
	sleep_ms(20);
	telemetry_window_end(&t, &sum);
	assert_true(sum.n >= 1 && sum.reasons == 0);
	telemetry_close(&t);
	unsetenv("FAKE_AMDSMI_VIOLATION");
	unsetenv("FAKE_AMDSMI_CALLS");
	unlink(calls);
}

/* neither answers: the summary says so instead of an empty list that would read as "not throttled" */
static void test_no_throttle_status(void **state)
{
	struct telemetry t = TELEMETRY_INIT;
	struct telemetry_summary sum;
	json_t *j;

	(void)state;
	setenv("FAKE_AMDSMI_INDEP_THROTTLE", "fail", 1);
	assert_int_equal(telemetry_open_amdsmi(&t, fake, NULL), 0);
	telemetry_window_begin(&t);
	sleep_ms(20);
	telemetry_window_end(&t, &sum);
	j = telemetry_summary_json(&sum);
	assert_int_equal(json_array_size(json_object_get(j, "throttle_reasons")), 0);
	assert_string_equal(json_string_value(json_object_get(j, "throttle_reasons_from")),
			    "none: amd-smi reports no throttle status here");
	json_decref(j);
	telemetry_close(&t);
	unsetenv("FAKE_AMDSMI_INDEP_THROTTLE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_bus_id),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_no_bus_id_first_gpu),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_indep_mapping),
		cmocka_unit_test(test_indep_throttle),
		cmocka_unit_test(test_indep_offset_by_version),
		cmocka_unit_test(test_violation_window),
		cmocka_unit_test(test_no_throttle_status),
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
