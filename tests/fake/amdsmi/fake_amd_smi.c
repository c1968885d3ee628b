/* SPDX-License-Identifier: Apache-2.0 */
/* fake_amd_smi.c — a stand-in for amd-smi's libamd_smi.so with the entry points runners/common/telemetry_amdsmi.c
 * uses, for machines without an AMD GPU. Two GPUs on one socket: 0000:0c:00.0 (GFX 2100 MHz, hotspot 71 C) and
 * 0000:8a:00.0 (1900 MHz, no hotspot sensor, edge 45 C); the energy counter runs at FAKE_AMDSMI_POWER_W watts
 * (default 650) with amd-smi's resolution of 15.259 uJ. FAKE_AMDSMI_INIT_FAIL=1 makes amdsmi_init fail. */
#include <stdint.h>
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
