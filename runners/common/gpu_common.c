/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_common.c — the event clock and device description shared by the GPU runners. */
#include "gpu.h"

#ifdef BENCH_GPU
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "telemetry.h"

static int clk_reserve(void *ctx, size_t n)
{
	struct gpu_clock *c = ctx;

	if (n <= c->n)
		return 0;
	c->start = realloc(c->start, n * sizeof(*c->start));
	c->end = realloc(c->end, n * sizeof(*c->end));
	if (!c->start || !c->end)
		return -1;
	for (size_t i = c->n; i < n; i++) {
		if (gpuEventCreate(&c->start[i]) != gpuSuccess || gpuEventCreate(&c->end[i]) != gpuSuccess)
			return -1;
		c->n = i + 1;
	}
	return 0;
}

static int clk_start(void *ctx, size_t i)
{
	struct gpu_clock *c = ctx;

	return gpuEventRecord(c->start[i], c->stream) == gpuSuccess ? 0 : -1;
}

static int clk_end(void *ctx, size_t i)
{
	struct gpu_clock *c = ctx;

	return gpuEventRecord(c->end[i], c->stream) == gpuSuccess ? 0 : -1;
}

static int clk_sync(void *ctx)
{
	struct gpu_clock *c = ctx;

	return gpuStreamSynchronize(c->stream) == gpuSuccess ? 0 : -1;
}

static int clk_elapsed(void *ctx, size_t i, double *ms)
{
	struct gpu_clock *c = ctx;
	float f = 0;

	if (gpuEventElapsedTime(&f, c->start[i], c->end[i]) != gpuSuccess)
		return -1;
	*ms = f;
	return 0;
}

void gpu_clock_ops(struct dobench_clock *out, struct gpu_clock *c)
{
	out->ctx = c;
	out->reserve = clk_reserve;
	out->mark_start = clk_start;
	out->mark_end = clk_end;
	out->sync = clk_sync;
	out->elapsed_ms = clk_elapsed;
}

void gpu_clock_release(struct gpu_clock *c)
{
	for (size_t i = 0; i < c->n; i++) {
		gpuEventDestroy(c->start[i]);
		gpuEventDestroy(c->end[i]);
	}
	free(c->start);
	free(c->end);
	c->start = c->end = NULL;
	c->n = 0;
}

size_t gpu_l2_bytes(void)
{
	gpuDeviceProp p;

	if (gpuGetDeviceProperties(&p, 0) != gpuSuccess)
		return 0;
	return (size_t)p.l2CacheSize;
}

void gpu_arch(char *buf, size_t len)
{
	gpuDeviceProp p;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (gpuGetDeviceProperties(&p, 0) != gpuSuccess) {
		gpuGetLastError();
		return;
	}
#ifdef BENCH_HIP
	snprintf(buf, len, "%.*s", (int)strcspn(p.gcnArchName, ":"), p.gcnArchName); /* "gfx942:sramecc+:xnack-" */
#else
	snprintf(buf, len, "sm_%d%d", p.major, p.minor);
#endif
}

/* Caches between L2 and memory that the runtime does not report (hipDeviceProp.l2CacheSize is one XCD's L2:
 * 4 MiB on MI300X), by gfx target. AMD's CDNA 3 and CDNA 4 white papers: 256 MB of Infinity Cache (MALL). */
static const struct {
	const char *arch;
	size_t bytes;
	const char *what;
} llc_table[] = {
	{ "gfx942", (size_t)256 << 20, "MI300X, MI325X, MI300A: 256 MB Infinity Cache" },
	{ "gfx950", (size_t)256 << 20, "MI355X, MI350X: 256 MB Infinity Cache" },
};

size_t gpu_flush_bytes(void)
{
	size_t cache = gpu_l2_bytes(), fb;
	char arch[64];

	gpu_arch(arch, sizeof(arch));
	for (size_t i = 0; i < sizeof(llc_table) / sizeof(llc_table[0]); i++)
		if (!strcmp(arch, llc_table[i].arch))
			cache += llc_table[i].bytes;
	fb = 2 * cache;
	return fb > ((size_t)256 << 20) ? fb : (size_t)256 << 20;
}

int gpu_fp8_fnuz(void)
{
#ifdef BENCH_HIP
	char arch[64];

	gpu_arch(arch, sizeof(arch));
	return !strcmp(arch, "gfx940") || !strcmp(arch, "gfx941") || !strcmp(arch, "gfx942");
#else
	return 0;
#endif
}

json_t *gpu_device_info(char *why, size_t whylen)
{
	int count = 0, drv = 0, rt = 0, clk = 0, mclk = 0;
	gpuDeviceProp p;
	gpuError_t e;
	char arch[256];

	e = gpuGetDeviceCount(&count);
	if (e != gpuSuccess || count == 0) {
		snprintf(why, whylen, GPU_NO_DEVICE " (%s)", e != gpuSuccess ? gpuGetErrorString(e) : "device count 0");
		return NULL;
	}
	if ((e = gpuGetDeviceProperties(&p, 0)) != gpuSuccess) {
		snprintf(why, whylen, "cannot query device 0: %s", gpuGetErrorString(e));
		return NULL;
	}
	gpuDriverGetVersion(&drv);
	gpuRuntimeGetVersion(&rt);
	gpuDeviceGetAttribute(&clk, gpuDevAttrClockRate, 0);
	gpuDeviceGetAttribute(&mclk, gpuDevAttrMemoryClockRate, 0);
#ifdef BENCH_HIP
	snprintf(arch, sizeof(arch), "%s", p.gcnArchName);
#else
	snprintf(arch, sizeof(arch), "sm_%d%d", p.major, p.minor);
#endif
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:i, s:i, s:i, s:i, s:i}", "vendor", GPU_VENDOR, "name",
			 p.name, "arch", arch, "devices", count, "sm_count", p.multiProcessorCount, "l2_bytes",
			 (json_int_t)p.l2CacheSize, "memory_bytes", (json_int_t)p.totalGlobalMem, "max_sm_clock_khz", clk,
			 "max_mem_clock_khz", mclk, "driver_version", drv, "runtime_version", rt, "pci_bus_id",
			 p.pciBusID);
}

void gpu_pci_bus_id(char *buf, size_t len)
{
	if (len == 0)
		return;
	buf[0] = '\0';
	if (gpuDeviceGetPCIBusId(buf, (int)len, 0) != gpuSuccess) {
		gpuGetLastError();
		buf[0] = '\0';
	}
}

void gpu_timing_opts(struct dobench_opts *o, const char *mode, struct telemetry *t, struct dobench_probe *probe)
{
	o->mode = dobench_mode_parse(mode, DOBENCH_STEADY);
	telemetry_probe_ops(probe, t);
	o->probe = probe;
	o->probe_why = t->why[0] ? t->why : "telemetry unavailable";
	memset(&t->last, 0, sizeof(t->last)); /* a case that never reaches its timed window reports no stale one */
	snprintf(t->last.why, sizeof(t->last.why), "%s", t->ok ? "no timed window" : o->probe_why);
}

void gpu_timing_record(json_t *rec, const struct dobench_result *r, const struct telemetry *t)
{
	json_t *tel = telemetry_summary_json(&t->last);

	record_add_timing(rec, r);
	if (t->ok && t->match[0])
		json_object_set_new(tel, "device_match", json_string(t->match));
	record_add_extra(rec, "telemetry", tel);
}
#endif
