/* SPDX-License-Identifier: Apache-2.0 */
/* telemetry_amdsmi.c — the AMD backend of telemetry.h: amd-smi's library (libamd_smi.so) through dlopen, no ROCm
 * header. Entry points whose arguments are plain integers or pointers to them only, so that the ABI holds across
 * ROCm 6 and 7: amdsmi_init, amdsmi_shut_down, amdsmi_get_socket_handles, amdsmi_get_processor_handles,
 * amdsmi_get_gpu_device_bdf (a uint64 bit field), amdsmi_get_clock_info (its first field: the current clock, MHz),
 * amdsmi_get_energy_count (accumulator x resolution = microjoules), amdsmi_get_temp_metric (degrees C). Power is the
 * energy counter's rate between two reads (the counter is what the hardware integrates; amdsmi_power_info_t
 * changed layout between ROCm releases).
 *
 * Throttle status, from two optional entry points (dlsym; either missing or answering "not supported" leaves its
 * part out), read only at offsets that every release from ROCm 6.0 to 7.2 keeps (checked against their amdsmi.h),
 * into a buffer larger than any release's struct:
 * - amdsmi_get_gpu_metrics_info, every sample: amdsmi_gpu_metrics_t's indep_throttle_status (the kernel's
 *   ASIC-independent SMU_THROTTLER_* bits, gpu_metrics v1.3 and later; UINT64_MAX where the ASIC has none, as
 *   MI300's v1.4/1.5 tables). Its offset is 112 up to library major version 26 (amdsmi.h of ROCm 6.0, 6.2, 6.3,
 *   checked) and 120 from 27 (gfx_activity_acc and mem_activity_acc became uint64; Debian's libamd-smi-dev 10.1,
 *   library 27.1, checked), chosen by amdsmi_get_lib_version (its first uint32: the year, 24, up to ROCm 6.3, the
 *   major version since). A value with a bit the kernel does not define (8..15, 24..31, 48..55, 58..63) means the
 *   offset is wrong for this library (there: voltages in mV, or the socket power): the field is then not used.
 *   The ASIC-dependent throttle_status (offset 68) is not read: its bits mean something else on every ASIC.
 * - amdsmi_get_violation_status (ROCm 6.3 and later, MI300 and later), at a window's begin and end only (the call
 *   itself sleeps 100 ms between its two reads of the metrics): the residency accumulators acc_prochot_thrm,
 *   acc_ppt_pwr, acc_socket_thrm, acc_vr_thrm, acc_hbm_thrm (offsets 24..56, ahead of the fields later releases
 *   inserted); one that grew over the window was active in it.
 * Both map onto NVML's reason bits (telemetry_reason_names), so records and the throttled finding read the same on
 * both vendors: power limits (PPT, SPL, FPPT, SPPT; PVIOL) sw_power_cap; temperature limits (TEMP_*; socket and
 * HBM thermal, TVIOL) sw_thermal; PROCHOT, VRHOT and VR thermal hw_thermal; current limits (TDC, EDC, APCC) and
 * PPM, FIT hw_slowdown. */
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
typedef int (*struct_t)(void *proc, void *out); /* amdsmi_get_gpu_metrics_info, amdsmi_get_violation_status */

/* larger than amdsmi_gpu_metrics_t (1832 bytes in ROCm 6.3, ~3 KiB in 7.x) and amdsmi_violation_status_t (~6 KiB) */
#define AMDSMI_STRUCT_BUF 65536
#define GM_INDEP_THROTTLE_STATUS 112    /* amdsmi_gpu_metrics_t.indep_throttle_status, uint64, library <= 26 */
#define GM_INDEP_THROTTLE_STATUS_27 120 /* library >= 27 */
#define INDEP_DEFINED ((0xffull) | (0xffull << 16) | (0xffffull << 32) | (0x3ull << 56))
#define VS_ACC_FIRST 24              /* amdsmi_violation_status_t.acc_prochot_thrm .. acc_hbm_thrm, 5 x uint64 */
#define VS_ACC_N 5

/* NVML's reason bits (telemetry.c) */
#define R_SW_POWER_CAP 0x4ull
#define R_HW_SLOWDOWN 0x8ull
#define R_SW_THERMAL 0x20ull
#define R_HW_THERMAL 0x40ull

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
	struct_t metrics, violation; /* optional: NULL when missing or unsupported */
	unsigned char *mbuf, *vbuf;  /* AMDSMI_STRUCT_BUF each: the sampler thread's, the window's */
	size_t indep_off;            /* GM_INDEP_THROTTLE_STATUS or _27 */
	uint64_t acc0[VS_ACC_N];     /* the violation accumulators at the window's begin */
	int acc0_ok;
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

/* the kernel's SMU_THROTTLER_* bits (drivers/gpu/drm/amd/include/kgd_pp_interface.h) as NVML's reason bits */
unsigned long long telemetry_amdsmi_indep_reasons(unsigned long long b)
{
	unsigned long long r = 0;

	if (b & 0xffull) /* 0..7: PPT0..3, SPL, FPPT, SPPT, SPPT_APU */
		r |= R_SW_POWER_CAP;
	if (b & (0xffull << 16)) /* 16..23: TDC_GFX/SOC/MEM/VDD/CVIP, EDC_CPU/GFX, APCC */
		r |= R_HW_SLOWDOWN;
	if (b & (0xfffull << 32)) /* 32..43: TEMP_GPU, CORE, MEM, EDGE, HOTSPOT, SOC, VR_*, LIQUID* */
		r |= R_SW_THERMAL;
	if (b & (0xfull << 44)) /* 44..47: VRHOT0/1, PROCHOT_CPU/GFX */
		r |= R_HW_THERMAL;
	if (b & (0x3ull << 56)) /* 56..57: PPM, FIT */
		r |= R_HW_SLOWDOWN;
	return r;
}

static uint64_t u64_at(const unsigned char *buf, size_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* indep_throttle_status now: 0, or -1 (no answer, or UINT64_MAX: the ASIC has none) */
static int indep_status(struct amdsmi *a, uint64_t *bits)
{
	memset(a->mbuf, 0, AMDSMI_STRUCT_BUF);
	if (a->metrics(a->dev, a->mbuf) != 0)
		return -1;
	*bits = u64_at(a->mbuf, a->indep_off);
	return *bits == UINT64_MAX || (*bits & ~INDEP_DEFINED) ? -1 : 0;
}

/* the violation accumulators now: 0, or -1 */
static int violation_acc(struct amdsmi *a, uint64_t acc[VS_ACC_N])
{
	memset(a->vbuf, 0, AMDSMI_STRUCT_BUF);
	if (a->violation(a->dev, a->vbuf) != 0)
		return -1;
	for (int i = 0; i < VS_ACC_N; i++)
		acc[i] = u64_at(a->vbuf, VS_ACC_FIRST + 8 * (size_t)i);
	return 0;
}

static int amdsmi_window(void *ctx, int begin, unsigned long long *reasons)
{
	/* acc_prochot_thrm, acc_ppt_pwr, acc_socket_thrm, acc_vr_thrm, acc_hbm_thrm */
	static const unsigned long long bit[VS_ACC_N] = { R_HW_THERMAL, R_SW_POWER_CAP, R_SW_THERMAL, R_HW_THERMAL,
							  R_SW_THERMAL };
	struct amdsmi *a = ctx;
	uint64_t acc[VS_ACC_N];

	if (begin) {
		a->acc0_ok = violation_acc(a, a->acc0) == 0;
		return a->acc0_ok ? 0 : -1;
	}
	if (!a->acc0_ok || violation_acc(a, acc) != 0)
		return -1;
	a->acc0_ok = 0;
	for (int i = 0; i < VS_ACC_N; i++)
		if (acc[i] != UINT64_MAX && a->acc0[i] != UINT64_MAX && acc[i] > a->acc0[i])
			*reasons |= bit[i];
	return 0;
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
	if (a->metrics) {
		uint64_t b;

		if (indep_status(a, &b) == 0)
			out->reasons = telemetry_amdsmi_indep_reasons(b);
	}
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
	free(a->mbuf);
	free(a->vbuf);
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
	/* throttle status where the library and the ASIC answer (the file's header) */
	{
		void *pm = fn(a->lib, "amdsmi_get_gpu_metrics_info"), *pv = fn(a->lib, "amdsmi_get_violation_status");
		void *pl = fn(a->lib, "amdsmi_get_lib_version");
		uint64_t b, acc[VS_ACC_N];
		uint32_t ver[16] = { 0 }; /* amdsmi_version_t: {year,} major, minor, release, build */
		int (*lib_version)(void *);

		memcpy(&lib_version, &pl, sizeof(pl));
		if (lib_version && lib_version(ver) != 0)
			ver[0] = 0;
		a->indep_off = ver[0] >= 27 ? GM_INDEP_THROTTLE_STATUS_27 : GM_INDEP_THROTTLE_STATUS;
		memcpy(&a->metrics, &pm, sizeof(pm));
		memcpy(&a->violation, &pv, sizeof(pv));
		if ((a->metrics || a->violation) &&
		    (!(a->mbuf = malloc(AMDSMI_STRUCT_BUF)) || !(a->vbuf = malloc(AMDSMI_STRUCT_BUF))))
			a->metrics = a->violation = NULL;
		if (a->metrics && indep_status(a, &b) != 0)
			a->metrics = NULL;
		if (a->violation && violation_acc(a, acc) != 0)
			a->violation = NULL;
		if (!a->metrics && !a->violation)
			snprintf(t->throttle, sizeof(t->throttle), "none: amd-smi reports no throttle status here");
		else
			snprintf(t->throttle, sizeof(t->throttle), "%s%s%s", a->metrics ? "indep_throttle_status" : "",
				 a->metrics && a->violation ? " + " : "", a->violation ? "violation status" : "");
	}
	{
		struct telemetry_sample s;

		if (amdsmi_read(a, &s) != 0) {
			snprintf(t->why, sizeof(t->why), "telemetry unavailable: amd-smi cannot read the GFX clock or energy");
			goto fail;
		}
	}
	t->src = (struct telemetry_source){ a, "amdsmi", amdsmi_read, amdsmi_energy, a->violation ? amdsmi_window : NULL };
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

int telemetry_open_amdsmi_first(struct telemetry *t, const char *const *libs, size_t n, const char *pci_bus_id)
{
	char why[sizeof(t->why)] = "telemetry unavailable: no amd-smi library to try";

	for (size_t i = 0; i < n; i++) {
		void *probe = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);

		if (!probe) {
			if (i == 0) {
				const char *e = dlerror();

				snprintf(why, sizeof(why), "telemetry unavailable: cannot load %s (%s)", libs[i],
					 e ? e : "not found");
			}
			continue;
		}
		dlclose(probe);
		return telemetry_open_amdsmi(t, libs[i], pci_bus_id);
	}
	memset(t, 0, sizeof(*t));
	memcpy(t->why, why, sizeof(why));
	return -1;
}
