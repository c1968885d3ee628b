/* SPDX-License-Identifier: Apache-2.0 */
/* telemetry.c — NVML through dlopen, a sampler thread, window summaries. No CUDA or NVML header is needed. */
#include "telemetry.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- NVML, declared here: the few entry points used, with the types of nvml.h (enums passed as int) ---------- */

#define NVML_LIB "libnvidia-ml.so.1"
#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1
#define NVML_TEMPERATURE_GPU 0

typedef int (*nvml_init_t)(void);
typedef int (*nvml_shutdown_t)(void);
typedef int (*nvml_by_index_t)(unsigned int index, void **device);
typedef int (*nvml_by_bus_t)(const char *pci_bus_id, void **device);
typedef int (*nvml_clock_t)(void *device, int type, unsigned int *mhz);
typedef int (*nvml_power_t)(void *device, unsigned int *milliwatts);
typedef int (*nvml_temp_t)(void *device, int sensor, unsigned int *celsius);
typedef int (*nvml_reasons_t)(void *device, unsigned long long *reasons);
typedef int (*nvml_energy_t)(void *device, unsigned long long *millijoules);
typedef const char *(*nvml_error_t)(int rc);

enum { F_INIT, F_SHUTDOWN, F_BY_INDEX, F_BY_BUS, F_CLOCK, F_POWER, F_TEMP, F_REASONS, F_ENERGY };

static const struct {
	unsigned long long bit;
	const char *name;
} reason_names[] = {
	{ 0x1, "gpu_idle" },	     { 0x2, "applications_clocks" }, { 0x4, "sw_power_cap" },
	{ 0x8, "hw_slowdown" },	     { 0x10, "sync_boost" },	      { 0x20, "sw_thermal" },
	{ 0x40, "hw_thermal" },	     { 0x80, "hw_power_brake" },      { 0x100, "display_clocks" },
};

/* dlsym returns void *; converting it to a function pointer goes through memcpy to stay within ISO C. */
static void *sym(void *lib, const char *name)
{
	return dlsym(lib, name);
}

static const char *nvml_strerror(void *lib, int rc)
{
	void *p = lib ? sym(lib, "nvmlErrorString") : NULL;
	nvml_error_t f;

	if (!p)
		return "unknown error";
	memcpy(&f, &p, sizeof(f));
	return f(rc);
}

static int nvml_read(void *ctx, struct telemetry_sample *out)
{
	struct telemetry *t = ctx;
	nvml_clock_t clock;
	nvml_power_t power;
	nvml_temp_t temp;
	nvml_reasons_t reasons;
	unsigned int mhz = 0, mw = 0, c = 0;
	unsigned long long r = 0;

	memcpy(&clock, &t->fn[F_CLOCK], sizeof(clock));
	memcpy(&power, &t->fn[F_POWER], sizeof(power));
	memcpy(&temp, &t->fn[F_TEMP], sizeof(temp));
	memcpy(&reasons, &t->fn[F_REASONS], sizeof(reasons));
	if (clock(t->dev, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS || power(t->dev, &mw) != NVML_SUCCESS)
		return -1;
	if (temp(t->dev, NVML_TEMPERATURE_GPU, &c) != NVML_SUCCESS)
		c = 0;
	if (!reasons || reasons(t->dev, &r) != NVML_SUCCESS)
		r = 0;
	out->sm_mhz = mhz;
	out->power_w = mw / 1000.0;
	out->temp_c = c;
	out->reasons = r;
	return 0;
}

/* The board's total energy since the driver loaded (mJ; Volta and newer). */
static int nvml_energy(void *ctx, double *joules)
{
	struct telemetry *t = ctx;
	nvml_energy_t energy;
	unsigned long long mj = 0;

	memcpy(&energy, &t->fn[F_ENERGY], sizeof(energy));
	if (energy(t->dev, &mj) != NVML_SUCCESS)
		return -1;
	*joules = (double)mj / 1e3;
	return 0;
}

/* Opening requires a struct that is not open (TELEMETRY_INIT or closed). */
static void reset(struct telemetry *t)
{
	memset(t, 0, sizeof(*t));
}

int telemetry_open_library(struct telemetry *t, const char *lib, const char *pci_bus_id)
{
	static const char *const names[] = { "nvmlInit_v2", "nvmlShutdown", "nvmlDeviceGetHandleByIndex_v2",
					     "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetClockInfo",
					     "nvmlDeviceGetPowerUsage", "nvmlDeviceGetTemperature" };
	nvml_init_t init;
	nvml_by_index_t by_index;
	nvml_by_bus_t by_bus;
	int rc, inited = 0;

	reset(t);
	t->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!t->lib) {
		const char *e = dlerror();

		snprintf(t->why, sizeof(t->why), "telemetry unavailable: cannot load %s (%s)", lib, e ? e : "not found");
		goto fail;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(t->fn[i] = sym(t->lib, names[i]))) {
			snprintf(t->why, sizeof(t->why), "telemetry unavailable: %s has no %s", lib, names[i]);
			goto fail;
		}
	/* the newer name first (NVML 12.2 renamed throttle reasons to clock event reasons; same bits) */
	if (!(t->fn[F_REASONS] = sym(t->lib, "nvmlDeviceGetCurrentClocksEventReasons")))
		t->fn[F_REASONS] = sym(t->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	memcpy(&init, &t->fn[F_INIT], sizeof(init));
	if ((rc = init()) != NVML_SUCCESS) {
		snprintf(t->why, sizeof(t->why), "telemetry unavailable: nvmlInit failed: %s", nvml_strerror(t->lib, rc));
		goto fail;
	}
	inited = 1;
	memcpy(&by_bus, &t->fn[F_BY_BUS], sizeof(by_bus));
	if (pci_bus_id && *pci_bus_id && by_bus(pci_bus_id, &t->dev) == NVML_SUCCESS) {
		snprintf(t->match, sizeof(t->match), "pci bus id %s", pci_bus_id);
	} else {
		memcpy(&by_index, &t->fn[F_BY_INDEX], sizeof(by_index));
		if ((rc = by_index(0, &t->dev)) != NVML_SUCCESS) {
			snprintf(t->why, sizeof(t->why), "telemetry unavailable: NVML has no device 0: %s",
				 nvml_strerror(t->lib, rc));
			goto fail;
		}
		snprintf(t->match, sizeof(t->match), "index 0%s", pci_bus_id && *pci_bus_id ? " (bus id not found)" : "");
	}
	t->src = (struct telemetry_source){ t, "nvml", nvml_read, NULL };
	{
		struct telemetry_sample s;
		double j;

		if (nvml_read(t, &s) != 0) {
			snprintf(t->why, sizeof(t->why), "telemetry unavailable: NVML cannot read the SM clock or power");
			goto fail;
		}
		/* the energy counter where the board has one (an older board: power only) */
		t->fn[F_ENERGY] = sym(t->lib, "nvmlDeviceGetTotalEnergyConsumption");
		if (t->fn[F_ENERGY] && nvml_energy(t, &j) == 0)
			t->src.energy = nvml_energy;
	}
	t->ok = 1;
	return 0;
fail:
	if (inited) {
		nvml_shutdown_t shut;

		memcpy(&shut, &t->fn[F_SHUTDOWN], sizeof(shut));
		shut();
	}
	if (t->lib)
		dlclose(t->lib);
	t->lib = NULL;
	t->dev = NULL;
	memset(t->fn, 0, sizeof(t->fn));
	return -1;
}

int telemetry_open(struct telemetry *t, const char *pci_bus_id)
{
#ifdef BENCH_HIP
	return telemetry_open_amdsmi(t, "libamd_smi.so", pci_bus_id); /* telemetry_amdsmi.c */
#else
	return telemetry_open_library(t, NVML_LIB, pci_bus_id);
#endif
}

int telemetry_open_source(struct telemetry *t, const struct telemetry_source *src)
{
	reset(t);
	t->src = *src;
	t->ok = 1;
	return 0;
}

int telemetry_read(struct telemetry *t, struct telemetry_sample *out)
{
	if (!t->ok)
		return -1;
	return t->src.read(t->src.ctx, out);
}

static void append(struct telemetry *t, const struct telemetry_sample *s)
{
	pthread_mutex_lock(&t->mu);
	if (t->n == t->cap && t->cap < TELEMETRY_MAX_SAMPLES) {
		size_t nc = t->cap ? 2 * t->cap : 256;
		struct telemetry_sample *p = realloc(t->samples, nc * sizeof(*p));

		if (p) {
			t->samples = p;
			t->cap = nc;
		}
	}
	if (t->n < t->cap)
		t->samples[t->n++] = *s;
	pthread_mutex_unlock(&t->mu);
}

static void *sampler(void *arg)
{
	struct telemetry *t = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		struct telemetry_sample s;
		int stop;

		next.tv_nsec += TELEMETRY_INTERVAL_MS * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		pthread_mutex_lock(&t->mu);
		stop = t->stop;
		pthread_mutex_unlock(&t->mu);
		if (stop)
			break;
		if (t->src.read(t->src.ctx, &s) == 0)
			append(t, &s);
	}
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int telemetry_window_begin(struct telemetry *t)
{
	struct telemetry_sample s;

	if (!t->ok || t->running)
		return t->ok ? 0 : -1;
	if (pthread_mutex_init(&t->mu, NULL) != 0)
		return -1;
	t->n = 0;
	t->stop = 0;
	t->running = 1;
	t->e0_ok = t->src.energy && t->src.energy(t->src.ctx, &t->e0_j) == 0;
	t->t0_ms = now_ms();
	if (t->src.read(t->src.ctx, &s) == 0)
		append(t, &s);
	t->threaded = pthread_create(&t->thread, NULL, sampler, t) == 0; /* else the one sample stands for it */
	return 0;
}

void telemetry_window_end(struct telemetry *t, struct telemetry_summary *out)
{
	struct telemetry_summary s;
	double e1 = 0;
	int e1_ok = 0;

	if (!t->ok) {
		memset(&s, 0, sizeof(s));
		snprintf(s.why, sizeof(s.why), "%s", t->why[0] ? t->why : "telemetry unavailable");
	} else {
		if (t->running)
			e1_ok = t->e0_ok && t->src.energy(t->src.ctx, &e1) == 0;
		if (t->running) {
			if (t->threaded) {
				pthread_mutex_lock(&t->mu);
				t->stop = 1;
				pthread_mutex_unlock(&t->mu);
				pthread_join(t->thread, NULL);
				t->threaded = 0;
			}
			pthread_mutex_destroy(&t->mu);
			t->running = 0;
		}
		telemetry_summarise(&s, t->samples, t->n);
		s.source = t->src.name;
		s.window_ms = t->t0_ms > 0 ? now_ms() - t->t0_ms : 0;
		if (e1_ok && e1 >= t->e0_j) {
			s.energy_ok = 1;
			s.energy_j = e1 - t->e0_j;
		}
		t->e0_ok = 0;
	}
	t->last = s;
	if (out)
		*out = s;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return stats_percentile_sorted(x, n, 0.5);
}

void telemetry_summarise(struct telemetry_summary *out, const struct telemetry_sample *s, size_t n)
{
	double *c = n ? malloc(n * sizeof(*c)) : NULL, *p = n ? malloc(n * sizeof(*p)) : NULL;

	memset(out, 0, sizeof(*out));
	out->available = 1;
	out->n = n;
	if (!c || !p) {
		snprintf(out->why, sizeof(out->why), n ? "out of memory summarising the window" : "the window saw no sample");
		out->sm_mhz_min = out->sm_mhz_median = out->sm_mhz_max = out->power_w_median = out->temp_c_max = NAN;
		out->n = 0;
		goto cleanup;
	}
	out->sm_mhz_min = out->sm_mhz_max = s[0].sm_mhz;
	out->temp_c_max = s[0].temp_c;
	for (size_t i = 0; i < n; i++) {
		c[i] = s[i].sm_mhz;
		p[i] = s[i].power_w;
		if (s[i].sm_mhz < out->sm_mhz_min)
			out->sm_mhz_min = s[i].sm_mhz;
		if (s[i].sm_mhz > out->sm_mhz_max)
			out->sm_mhz_max = s[i].sm_mhz;
		if (s[i].temp_c > out->temp_c_max)
			out->temp_c_max = s[i].temp_c;
		out->reasons |= s[i].reasons;
	}
	out->sm_mhz_median = median(c, n);
	out->power_w_median = median(p, n);
cleanup:
	free(c);
	free(p);
}

const char *telemetry_reason_names(unsigned long long bits, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]); i++)
		if ((bits & reason_names[i].bit) && at < len) {
			int w = snprintf(buf + at, len - at, "%s%s", at ? "," : "", reason_names[i].name);

			at = w < 0 ? len : at + (size_t)w;
		}
	return buf;
}

json_t *telemetry_summary_json(const struct telemetry_summary *s)
{
	json_t *o, *names;
	unsigned long long other;

	if (!s->available)
		return json_pack("{s:b, s:s}", "available", 0, "why", s->why[0] ? s->why : "telemetry unavailable");
	if (s->n == 0)
		return json_pack("{s:b, s:s, s:i, s:s}", "available", 1, "source", s->source ? s->source : "?", "samples",
				 0, "why", s->why[0] ? s->why : "the window saw no sample");
	names = json_array();
	other = s->reasons;
	for (size_t i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]); i++)
		if (s->reasons & reason_names[i].bit) {
			json_array_append_new(names, json_string(reason_names[i].name));
			other &= ~reason_names[i].bit;
		}
	if (other) {
		char hex[32];

		snprintf(hex, sizeof(hex), "0x%llx", other);
		json_array_append_new(names, json_string(hex));
	}
	o = json_pack("{s:b, s:s, s:I, s:i, s:{s:f, s:f, s:f}, s:f, s:f, s:o}", "available", 1, "source",
		      s->source ? s->source : "?", "samples", (json_int_t)s->n, "interval_ms", TELEMETRY_INTERVAL_MS,
		      "sm_clock_mhz", "min", s->sm_mhz_min, "median", s->sm_mhz_median, "max", s->sm_mhz_max,
		      "power_w_median", s->power_w_median, "temp_c_max", s->temp_c_max, "throttle_reasons", names);
	if (s->window_ms > 0)
		json_object_set_new(o, "window_ms", json_real(s->window_ms));
	if (s->energy_ok)
		json_object_set_new(o, "energy_j", json_real(s->energy_j));
	return o;
}

json_t *telemetry_combined_json(const struct telemetry_summary *in, size_t n)
{
	struct telemetry_summary c;
	double sm = 0, power = 0, energy = 0;
	int energy_all = n > 0;
	json_t *o;

	memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < n && !c.why[0]; i++) {
		const struct telemetry_summary *s = &in[i];

		if (!s->available || !s->n) {
			snprintf(c.why, sizeof(c.why), "%s", s->why[0] ? s->why : !s->available ? "telemetry unavailable" :
				 "the window saw no sample");
			break;
		}
		if (!i || s->sm_mhz_min < c.sm_mhz_min)
			c.sm_mhz_min = s->sm_mhz_min;
		if (!i || s->sm_mhz_max > c.sm_mhz_max)
			c.sm_mhz_max = s->sm_mhz_max;
		if (!i || s->temp_c_max > c.temp_c_max)
			c.temp_c_max = s->temp_c_max;
		if (!c.source)
			c.source = s->source;
		c.n += s->n;
		c.reasons |= s->reasons;
		if (s->window_ms > c.window_ms)
			c.window_ms = s->window_ms; /* the longest: the ranks' windows overlap */
		sm += s->sm_mhz_median;
		power += s->power_w_median;
		energy += s->energy_j;
		energy_all = energy_all && s->energy_ok;
	}
	if (!n)
		snprintf(c.why, sizeof(c.why), "no GPU ran the work");
	if (c.why[0])
		return json_pack("{s:b, s:s, s:I}", "available", 0, "why", c.why, "gpus", (json_int_t)n);
	c.available = 1;
	c.sm_mhz_median = sm / (double)n;
	c.power_w_median = power / (double)n;
	c.energy_ok = energy_all;
	c.energy_j = energy;
	o = telemetry_summary_json(&c);
	json_object_set_new(o, "gpus", json_integer((json_int_t)n));
	json_object_set_new(o, "power_w_total", json_real(power));
	json_object_set_new(o, "combined", json_string("over the GPUs, each sampled on its own: samples summed; "
						       "sm_clock_mhz the lowest min, the mean of the medians, the highest "
						       "max; power_w_median the mean of the GPUs' median powers, "
						       "power_w_total their sum; temp_c_max the hottest; throttle_reasons "
						       "the union; energy_j the sum of the GPUs' energy counters"));
	return o;
}

void telemetry_close(struct telemetry *t)
{
	if (t->running)
		telemetry_window_end(t, NULL);
	if (t->backend_close)
		t->backend_close(t->backend);
	if (t->lib) {
		nvml_shutdown_t shut;

		memcpy(&shut, &t->fn[F_SHUTDOWN], sizeof(shut));
		shut();
		dlclose(t->lib);
	}
	free(t->samples);
	memset(t, 0, sizeof(*t));
}

/* --- the dobench probe ------------------------------------------------------------------------------------------ */

static int probe_read(void *ctx, double *sm_mhz, double *power_w)
{
	struct telemetry_sample s;

	if (telemetry_read(ctx, &s) != 0)
		return -1;
	*sm_mhz = s.sm_mhz;
	*power_w = s.power_w;
	return 0;
}

static int probe_timed(void *ctx, int begin)
{
	if (begin)
		telemetry_window_begin(ctx);
	else
		telemetry_window_end(ctx, NULL);
	return 0;
}

void telemetry_probe_ops(struct dobench_probe *out, struct telemetry *t)
{
	out->ctx = t;
	out->read = t->ok ? probe_read : NULL;
	out->timed = probe_timed;
}
