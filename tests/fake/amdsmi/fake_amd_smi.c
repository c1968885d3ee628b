/* SPDX-License-Identifier: Apache-2.0 */
/* fake_amd_smi.c — a stand-in for amd-smi's libamd_smi.so with the entry points runners/common/telemetry_amdsmi.c
 * uses, for machines without an AMD GPU. Two GPUs on one socket: 0000:0c:00.0 (GFX 2100 MHz, hotspot 71 C) and
 * 0000:8a:00.0 (1900 MHz, no hotspot sensor, edge 45 C); the energy counter runs at FAKE_AMDSMI_POWER_W watts
 * (default 650) with amd-smi's resolution of 15.259 uJ. FAKE_AMDSMI_INIT_FAIL=1 makes amdsmi_init fail.
 * Throttle status, at the offsets of amdsmi.h (ROCm 6.3's layouts: 1832-byte amdsmi_gpu_metrics_t, 352-byte
 * amdsmi_violation_status_t, UINT64_MAX for "not supported" as the library writes it):
 * - amdsmi_get_lib_version: major FAKE_AMDSMI_LIB_MAJOR (default 24, ROCm 6.3's year field);
 * - amdsmi_get_gpu_metrics_info: indep_throttle_status = FAKE_AMDSMI_INDEP_THROTTLE (hex; unset: UINT64_MAX, as on
 *   MI300; "fail": the call returns not supported), at offset 112 with the voltages (mV) before it, or, from major
 *   27 or with FAKE_AMDSMI_LAYOUT=27 (a library that lies about its version), at 120 with the voltages at 112;
 * - amdsmi_get_violation_status: not supported unless FAKE_AMDSMI_VIOLATION names the accumulators that grow by one
 *   at each call ("ppt,socket", of prochot, ppt, socket, vr, hbm; "none": supported, none grows); the others stay
 *   at 7, vr is UINT64_MAX (unsupported) unless named.
 * FAKE_AMDSMI_CALLS, when set, is a file each of these two calls appends its name to (how often they ran). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RES 15.259f

static int gpus[2] = { 0, 1 };
static int inited;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int amdsmi_init(uint64_t flags);
int amdsmi_shut_down(void);
int amdsmi_get_socket_handles(uint32_t *count, void **handles);
int amdsmi_get_processor_handles(void *socket, uint32_t *count, void **handles);
int amdsmi_get_gpu_device_bdf(void *proc, uint64_t *bdf);
int amdsmi_get_clock_info(void *proc, int type, void *info);
int amdsmi_get_energy_count(void *proc, uint64_t *acc, float *resolution, uint64_t *timestamp);
int amdsmi_get_temp_metric(void *proc, int sensor, int metric, int64_t *celsius);
int amdsmi_get_gpu_metrics_info(void *proc, void *metrics);
int amdsmi_get_lib_version(void *version);
int amdsmi_get_violation_status(void *proc, void *status);

int amdsmi_init(uint64_t flags)
{
	const char *f = getenv("FAKE_AMDSMI_INIT_FAIL");

	if ((f && *f == '1') || !(flags & 2))
		return 8;
	inited = 1;
	return 0;
}

int amdsmi_shut_down(void)
{
	inited = 0;
	return 0;
}

int amdsmi_get_socket_handles(uint32_t *count, void **handles)
{
	if (!inited)
		return 32;
	if (handles && *count >= 1)
		handles[0] = &gpus;
	*count = 1;
	return 0;
}

int amdsmi_get_processor_handles(void *socket, uint32_t *count, void **handles)
{
	if (socket != &gpus || *count < 2)
		return 2;
	handles[0] = &gpus[0];
	handles[1] = &gpus[1];
	*count = 2;
	return 0;
}

int amdsmi_get_gpu_device_bdf(void *proc, uint64_t *bdf)
{
	uint64_t bus = proc == &gpus[0] ? 0x0c : 0x8a;

	*bdf = (0ull << 16) | (bus << 8) | (0 << 3) | 0;
	return 0;
}

int amdsmi_get_clock_info(void *proc, int type, void *info)
{
	uint32_t v[4] = { proc == &gpus[0] ? 2100u : 1900u, 500u, 2100u, 0u };

	if (type != 0)
		return 2;
	memcpy(info, v, sizeof(v));
	return 0;
}

int amdsmi_get_energy_count(void *proc, uint64_t *acc, float *resolution, uint64_t *timestamp)
{
	const char *p = getenv("FAKE_AMDSMI_POWER_W");
	double w = p ? atof(p) : 650.0;

	(void)proc;
	*acc = (uint64_t)(now_s() * w * 1e6 / RES);
	*resolution = RES;
	*timestamp = (uint64_t)(now_s() * 1e9);
	return 0;
}

int amdsmi_get_temp_metric(void *proc, int sensor, int metric, int64_t *celsius)
{
	if (metric != 0)
		return 2;
	if (proc == &gpus[0] && sensor == 1)
		*celsius = 71;
	else if (proc == &gpus[1] && sensor == 0)
		*celsius = 45;
	else
		return 2; /* AMDSMI_STATUS_NOT_SUPPORTED */
	return 0;
}

static void called(const char *name)
{
	const char *p = getenv("FAKE_AMDSMI_CALLS");
	FILE *f = p ? fopen(p, "a") : NULL;

	if (f) {
		fprintf(f, "%s\n", name);
		fclose(f);
	}
}

static void put64(void *buf, size_t off, uint64_t v)
{
	memcpy((unsigned char *)buf + off, &v, sizeof(v));
}

int amdsmi_get_gpu_metrics_info(void *proc, void *metrics)
{
	const char *v = getenv("FAKE_AMDSMI_INDEP_THROTTLE");
	if (v && !strcmp(v, "fail"))
		return 2;
	const char *l = getenv("FAKE_AMDSMI_LAYOUT"), *m = getenv("FAKE_AMDSMI_LIB_MAJOR");
	int v27 = (l && atoi(l) >= 27) || (!l && m && atoi(m) >= 27);
	uint16_t volts[4] = { 800, 750, 1100, 0 }; /* voltage_soc, _gfx, _mem, padding */
	uint16_t socket_w = 550;                   /* current_socket_power, after indep_throttle_status */

	(void)proc;
	called("amdsmi_get_gpu_metrics_info");
	if (v && !strcmp(v, "fail"))
		return 2;
	memset(metrics, 0, 4736);
	memset((unsigned char *)metrics + 68, 0xa5, 4); /* throttle_status: ASIC-dependent, unread */
	memcpy((unsigned char *)metrics + (v27 ? 112 : 104), volts, sizeof(volts));
	put64(metrics, v27 ? 120 : 112, v ? strtoull(v, NULL, 16) : UINT64_MAX); /* indep_throttle_status */
	memcpy((unsigned char *)metrics + (v27 ? 128 : 120), &socket_w, sizeof(socket_w));
	return 0;
}

int amdsmi_get_lib_version(void *version)
{
	const char *m = getenv("FAKE_AMDSMI_LIB_MAJOR");
	uint32_t v[4] = { m ? (uint32_t)atoi(m) : 24u, 7, 0, 0 };

	memcpy(version, v, sizeof(v));
	return 0;
}

int amdsmi_get_violation_status(void *proc, void *status)
{
	static const char *const names[] = { "prochot", "ppt", "socket", "vr", "hbm" };
	static uint64_t calls;
	const char *v = getenv("FAKE_AMDSMI_VIOLATION");

	(void)proc;
	called("amdsmi_get_violation_status");
	if (!v)
		return 2;
	calls++;
	memset(status, 0xff, 352);
	put64(status, 16, calls * 100); /* acc_counter */
	for (int i = 0; i < 5; i++) {
		int grows = strstr(v, names[i]) != NULL;

		put64(status, 24 + 8 * (size_t)i, grows ? 7 + calls : i == 3 ? UINT64_MAX : 7);
	}
	return 0;
}
