/* SPDX-License-Identifier: Apache-2.0 */
/* telemetry_amdsmi.c — the AMD backend of telemetry.h: amd-smi's library (libamd_smi.so) through dlopen, no ROCm
 * header. Entry points whose arguments are plain integers or pointers to them only, so that the ABI holds across
 * ROCm 6 and 7: amdsmi_init, amdsmi_shut_down, amdsmi_get_socket_handles, amdsmi_get_processor_handles,
 * amdsmi_get_gpu_device_bdf (a uint64 bit field), amdsmi_get_clock_info (its first field: the current clock, MHz),
 * amdsmi_get_energy_count (accumulator x resolution = microjoules), amdsmi_get_temp_metric (degrees C). Power is the
 * energy counter's rate between two reads (the counter is what the hardware integrates; amdsmi_power_info_t
 * changed layout between ROCm releases). Throttle status is not read: its fields sit in version-dependent
 * structs (amdsmi_gpu_metrics_t, the violation status); reasons stay 0. */
#include "telemetry.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define AMDSMI_INIT_AMD_GPUS (1u << 1)
#define AMDSMI_CLK_TYPE_GFX 0
#define AMDSMI_TEMPERATURE_TYPE_EDGE 0
#define AMDSMI_TEMPERATURE_TYPE_HOTSPOT 1
#define AMDSMI_TEMP_CURRENT 0
#define AMDSMI_MAX_HANDLES 64

typedef int (*init_t)(uint64_t flags);
typedef int (*shut_t)(void);
typedef int (*sockets_t)(uint32_t *count, void **handles);
typedef int (*procs_t)(void *socket, uint32_t *count, void **handles);
typedef int (*bdf_t)(void *proc, uint64_t *bdf);
typedef int (*clock_t_)(void *proc, int type, void *info);
typedef int (*energy_t)(void *proc, uint64_t *acc, float *resolution, uint64_t *timestamp);
typedef int (*temp_t)(void *proc, int sensor, int metric, int64_t *celsius);

struct amdsmi {
	void *lib, *dev;
	init_t init;
	shut_t shut;
	sockets_t sockets;
	procs_t procs;
	bdf_t bdf;
	clock_t_ clock;
	energy_t energy;
	temp_t temp;
	int sensor;                 /* the temperature sensor that answers (MI300: hotspot; others: edge) */
	double last_uj, last_s, last_w; /* the energy counter at the last read, when, and the power it gave */
};

static void *fn(void *lib, const char *name)
{
	return dlsym(lib, name);
}

#define LOAD(field, name)                                                                                              \
	do {                                                                                                           \
		void *p_ = fn(a->lib, name);                                                                           \
		if (!p_) {                                                                                             \
			snprintf(t->why, sizeof(t->why), "telemetry unavailable: %s has no %s", lib, name);           \
			goto fail;                                                                                     \
		}                                                                                                      \
		memcpy(&a->field, &p_, sizeof(p_));                                                                    \
	} while (0)

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int amdsmi_read(void *ctx, struct telemetry_sample *out)
{
	struct amdsmi *a = ctx;
	uint32_t clk[64]; /* amdsmi_clk_info_t: clk (MHz) first, then fields that vary by release */
	uint64_t acc = 0, ts = 0;
	float res = 0;
	int64_t c = 0;
	double uj, now;

	memset(clk, 0, sizeof(clk));
	if (a->clock(a->dev, AMDSMI_CLK_TYPE_GFX, clk) != 0 || a->energy(a->dev, &acc, &res, &ts) != 0)
		return -1;
	uj = (double)acc * (double)res;
	now = mono_s();
	if (a->last_s > 0 && now - a->last_s >= 1e-3 && uj >= a->last_uj)
		a->last_w = (uj - a->last_uj) / 1e6 / (now - a->last_s);
	a->last_uj = uj;
	a->last_s = now;
	if (a->temp(a->dev, a->sensor, AMDSMI_TEMP_CURRENT, &c) != 0)
		c = 0;
	out->sm_mhz = clk[0];
	out->power_w = a->last_w;
	out->temp_c = (double)c;
	out->reasons = 0;
	return 0;
}

/* the energy counter in joules (accumulator x resolution is microjoules) */
static int amdsmi_energy(void *ctx, double *joules)
{
	struct amdsmi *a = ctx;
	uint64_t acc = 0, ts = 0;
	float res = 0;

	if (a->energy(a->dev, &acc, &res, &ts) != 0)
		return -1;
	*joules = (double)acc * (double)res / 1e6;
	return 0;
}

static void amdsmi_close(void *ctx)
{
	struct amdsmi *a = ctx;

	if (!a)
		return;
	if (a->shut)
		a->shut();
	if (a->lib)
		dlclose(a->lib);
	free(a);
}

int telemetry_open_amdsmi(struct telemetry *t, const char *lib, const char *pci_bus_id)
{
	struct amdsmi *a = calloc(1, sizeof(*a));
	void *sock[AMDSMI_MAX_HANDLES], *proc[AMDSMI_MAX_HANDLES], *first = NULL;
	uint32_t ns = AMDSMI_MAX_HANDLES;
	int inited = 0;
	int64_t c;

	memset(t, 0, sizeof(*t));
	if (!a) {
		snprintf(t->why, sizeof(t->why), "telemetry unavailable: out of memory");
		return -1;
	}
	if (!(a->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL))) {
		const char *e = dlerror();

		snprintf(t->why, sizeof(t->why), "telemetry unavailable: cannot load %s (%s)", lib, e ? e : "not found");
		goto fail;
	}
	LOAD(init, "amdsmi_init");
	LOAD(shut, "amdsmi_shut_down");
	LOAD(sockets, "amdsmi_get_socket_handles");
	LOAD(procs, "amdsmi_get_processor_handles");
	LOAD(bdf, "amdsmi_get_gpu_device_bdf");
	LOAD(clock, "amdsmi_get_clock_info");
	LOAD(energy, "amdsmi_get_energy_count");
	LOAD(temp, "amdsmi_get_temp_metric");
	if (a->init(AMDSMI_INIT_AMD_GPUS) != 0) {
		snprintf(t->why, sizeof(t->why), "telemetry unavailable: amdsmi_init failed");
		a->shut = NULL;
		goto fail;
	}
	inited = 1;
	if (a->sockets(&ns, sock) != 0 || ns > AMDSMI_MAX_HANDLES)
		ns = 0;
	for (uint32_t s = 0; s < ns && !a->dev; s++) {
		uint32_t np = AMDSMI_MAX_HANDLES;

		if (a->procs(sock[s], &np, proc) != 0 || np > AMDSMI_MAX_HANDLES)
			continue;
		for (uint32_t k = 0; k < np && !a->dev; k++) {
			uint64_t b = 0;
			char id[32];

			if (!first)
				first = proc[k];
			if (!pci_bus_id || !*pci_bus_id || a->bdf(proc[k], &b) != 0)
				continue;
			/* amdsmi_bdf_t: function 3 bits, device 5, bus 8, domain 48, from the least significant */
			snprintf(id, sizeof(id), "%04llx:%02llx:%02llx.%llx", (unsigned long long)(b >> 16),
				 (unsigned long long)((b >> 8) & 0xff), (unsigned long long)((b >> 3) & 0x1f),
				 (unsigned long long)(b & 0x7));
			if (!strcasecmp(id, pci_bus_id)) {
				a->dev = proc[k];
				snprintf(t->match, sizeof(t->match), "pci bus id %s", id);
			}
		}
	}
	if (!a->dev) {
		if (!first) {
			snprintf(t->why, sizeof(t->why), "telemetry unavailable: amd-smi lists no GPU");
			goto fail;
		}
		a->dev = first;
		snprintf(t->match, sizeof(t->match), "index 0%s", pci_bus_id && *pci_bus_id ? " (bus id not found)" : "");
	}
	a->sensor = a->temp(a->dev, AMDSMI_TEMPERATURE_TYPE_HOTSPOT, AMDSMI_TEMP_CURRENT, &c) == 0
			    ? AMDSMI_TEMPERATURE_TYPE_HOTSPOT
			    : AMDSMI_TEMPERATURE_TYPE_EDGE;
	{
		struct telemetry_sample s;

		if (amdsmi_read(a, &s) != 0) {
			snprintf(t->why, sizeof(t->why), "telemetry unavailable: amd-smi cannot read the GFX clock or energy");
			goto fail;
		}
	}
	t->src = (struct telemetry_source){ a, "amdsmi", amdsmi_read, amdsmi_energy };
	t->backend = a;
	t->backend_close = amdsmi_close;
	t->ok = 1;
	return 0;
fail:
	if (!inited)
		a->shut = NULL;
	amdsmi_close(a);
	return -1;
}
