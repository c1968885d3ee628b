/* SPDX-License-Identifier: Apache-2.0 */
/*
 * telemetry.h — a GPU's SM clock, power, temperature and throttle reasons, read from the driver's management
 * library loaded at run time (dlopen: no link-time dependency, no vendor headers): NVML (libnvidia-ml.so.1) on
 * NVIDIA, amd-smi's libamd_smi.so on ROCm (telemetry_amdsmi.c: GFX clock, power from the energy counter,
 * temperature; no throttle status).
 * A window runs a background sampler thread (every TELEMETRY_INTERVAL_MS) and summarises what it saw.
 *
 * Ownership: telemetry_open() fills a caller-provided struct telemetry (library and device handles, the sample
 * buffer); telemetry_close() releases everything, stopping a window left open. A struct telemetry that failed to
 * open stays usable: every call degrades to "unavailable" with why[] set. Summaries hold no heap memory.
 * One thread drives a struct telemetry; the sampler thread is internal.
 */
#ifndef BENCH_TELEMETRY_H
#define BENCH_TELEMETRY_H

#include <pthread.h>
#include <stddef.h>

#include <jansson.h>

#include "dobench.h"

#define TELEMETRY_INTERVAL_MS 10
#define TELEMETRY_MAX_SAMPLES 65536

struct telemetry_sample {
	double sm_mhz, power_w, temp_c;
	unsigned long long reasons; /* throttle-reason bits (NVML's values) */
};

/* Where samples come from: the NVML backend, or a fake in tests. energy, optional (NULL: the source has none):
 * the board's cumulative energy counter in joules (NVML: nvmlDeviceGetTotalEnergyConsumption; amd-smi:
 * amdsmi_get_energy_count), read at a window's
 * begin and end; 0, or negative. */
struct telemetry_source {
	void *ctx;
	const char *name; /* "nvml" */
	int (*read)(void *ctx, struct telemetry_sample *out); /* 0, or negative */
	int (*energy)(void *ctx, double *joules);
};

struct telemetry_summary {
	int available;
	char why[200];     /* when not available, or when the window saw no sample */
	const char *source;
	size_t n;          /* samples */
	double sm_mhz_min, sm_mhz_median, sm_mhz_max;
	double power_w_median;
	double temp_c_max;
	unsigned long long reasons; /* OR of every sample's reasons */
	double window_ms;  /* the window's wall time, begin to end (0: not a timed window) */
	int energy_ok;     /* energy_j holds the energy counter's difference over the window */
	double energy_j;
};

struct telemetry {
	int ok;
	char why[200];
	char match[96]; /* how the device was matched: "pci bus id 0000:3B:00.0" or "index 0" */
	struct telemetry_source src;
	/* NVML, when loaded */
	void *lib, *dev;
	void *fn[9];
	/* another backend (amd-smi): its state, released by backend_close() at telemetry_close() */
	void *backend;
	void (*backend_close)(void *backend);
	/* the sampler */
	pthread_t thread;
	pthread_mutex_t mu;
	int running, threaded, stop; /* mu exists while running */
	struct telemetry_sample *samples;
	size_t n, cap;
	struct telemetry_summary last; /* the last closed window */
	double t0_ms;                  /* when the open window began (CLOCK_MONOTONIC) */
	int e0_ok;                     /* e0_j: the energy counter when the open window began */
	double e0_j;
};

#define TELEMETRY_INIT { 0 }

/* Loads NVML and finds the device by PCI bus id (as cudaDeviceGetPCIBusId writes it; NULL or no match: index 0).
 * Returns 0, or -1 with t->why set (library missing, no device, ...); t is usable either way. */
int telemetry_open(struct telemetry *t, const char *pci_bus_id);
/* The same with a given library path (tests point it at a missing file). */
int telemetry_open_library(struct telemetry *t, const char *lib, const char *pci_bus_id);
/* amd-smi's library at lib (libamd_smi.so; tests give a fake), the device by PCI bus id (as hipDeviceGetPCIBusId
 * writes it; NULL or no match: the first GPU). Source "amdsmi". Returns 0, or -1 with t->why set. */
int telemetry_open_amdsmi(struct telemetry *t, const char *lib, const char *pci_bus_id);
/* The same over a given source (tests). */
int telemetry_open_source(struct telemetry *t, const struct telemetry_source *src);
void telemetry_close(struct telemetry *t);

int telemetry_read(struct telemetry *t, struct telemetry_sample *out);
/* Starts the sampler (one sample at once, then one every TELEMETRY_INTERVAL_MS). */
int telemetry_window_begin(struct telemetry *t);
/* Stops it and summarises the window into out (and t->last). */
void telemetry_window_end(struct telemetry *t, struct telemetry_summary *out);
void telemetry_summarise(struct telemetry_summary *out, const struct telemetry_sample *s, size_t n);

/* Names of the set throttle-reason bits, comma-separated ("" when none); returns buf. */
const char *telemetry_reason_names(unsigned long long bits, char *buf, size_t len);
/* {available, source, samples, interval_ms, window_ms, sm_clock_mhz {min, median, max}, power_w_median, temp_c_max,
 *  throttle_reasons [names], energy_j (the energy counter over the window, where the source has one)} or
 *  {available: false, why} (new reference). */
json_t *telemetry_summary_json(const struct telemetry_summary *s);

/* Several GPUs' windows over the same work (a collective: one summary per GPU, each sampled on its own GPU) as one:
 * {available, source, samples, interval_ms, sm_clock_mhz, power_w_median, temp_c_max, throttle_reasons} with the
 * keys of telemetry_summary_json(), plus gpus (n), power_w_total and combined (how, in words): samples summed;
 * sm_clock_mhz the lowest minimum, the mean of the medians, the highest maximum; power_w_median the mean of the
 * GPUs' median powers (per GPU), power_w_total their sum; temp_c_max the hottest; throttle_reasons the union; energy_j
 * the sum of the GPUs' energy counters over their windows (only when every GPU has one). When a
 * GPU has no telemetry or its window saw no sample: {available: false, why (that GPU's, the first such), gpus}.
 * New reference. */
json_t *telemetry_combined_json(const struct telemetry_summary *per_gpu, size_t n);

/* A dobench probe over t: read = SM clock and power now; timed = the sampler window around the timed calls
 * (its summary lands in t->last). */
void telemetry_probe_ops(struct dobench_probe *out, struct telemetry *t);

#endif
