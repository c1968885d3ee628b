/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench-membw — memory bandwidth under Triton's do_bench schedule (runner contract: docs/architecture.md).
 *   bench-membw --config CASES.json
 * ops: copy (reads and writes `bytes`: counts 2 x bytes, as Tensor.copy_ measured with do_bench), read and
 * write (count `bytes`). TB/s = counted bytes / median time / 1e12. GPU when built with a toolkit and a device
 * is visible, else CPU (threads over the cores, memcpy / xor-reduce / memset).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/gpu.h"
#include "../common/record.h"
#include "../common/telemetry.h"

static const char *const usage = "bench-membw --config CASES.json  (one bench.result/v1 record per case on stdout)";

struct mb_case {
	int op; /* 0 copy, 1 read, 2 write */
	size_t bytes;
	double counted;
};

static double to_tbps(double ms, void *arg)
{
	const struct mb_case *c = arg;

	return c->counted / (ms * 1e-3) / 1e12;
}

/* --- CPU ------------------------------------------------------------------------------------------------------ */

struct cpu_job {
	int op;
	unsigned char *dst;
	const unsigned char *src;
	size_t len;
	uint64_t acc;
};

static struct {
	unsigned char *src, *dst, *flush;
	size_t bytes, flush_bytes;
	int threads;
	volatile uint64_t sink;
} cpu;

static void *cpu_worker(void *arg)
{
	struct cpu_job *j = arg;

	if (j->op == 0) {
		memcpy(j->dst, j->src, j->len);
	} else if (j->op == 1) {
		const uint64_t *s = (const uint64_t *)j->src;
		uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;

		for (size_t i = 0; i + 4 <= j->len / 8; i += 4) {
			a0 ^= s[i];
			a1 ^= s[i + 1];
			a2 ^= s[i + 2];
			a3 ^= s[i + 3];
		}
		j->acc = a0 ^ a1 ^ a2 ^ a3;
	} else {
		memset(j->dst, 0, j->len);
	}
	return NULL;
}

static int cpu_call(void *ctx)
{
	const struct mb_case *c = ctx;
	pthread_t th[256];
	struct cpu_job jobs[256];
	int n = cpu.threads;
	size_t chunk = (cpu.bytes / (size_t)n) & ~(size_t)63;

	for (int t = 0; t < n; t++) {
		size_t off = (size_t)t * chunk, len = t == n - 1 ? cpu.bytes - off : chunk;

		jobs[t] = (struct cpu_job){ c->op, cpu.dst + off, cpu.src + off, len, 0 };
		if (t > 0 && pthread_create(&th[t], NULL, cpu_worker, &jobs[t]) != 0)
			return -1;
	}
	cpu_worker(&jobs[0]);
	for (int t = 1; t < n; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < n; t++)
		cpu.sink ^= jobs[t].acc;
	return 0;
}

static int cpu_flush(void *ctx)
{
	(void)ctx;
	memset(cpu.flush, 1, cpu.flush_bytes);
	cpu.sink ^= cpu.flush[cpu.flush_bytes - 1];
	return 0;
}

static int cpu_run(json_t *rec, struct mb_case *c, double warmup, double rep, json_t *params)
{
	struct dobench_result r = DOBENCH_RESULT_INIT;
	struct cpu_clock cc = CPU_CLOCK_INIT;
	struct dobench_clock clk;
	struct dobench_fn fn = { c, cpu_call, cpu_flush };
	struct dobench_opts o = { warmup, rep, 1, 100000 };

	o.mode = dobench_mode_parse(param_str(params, "mode", "burst"), DOBENCH_BURST);
	o.probe_why = "no telemetry on the CPU";

	if (cpu.bytes != c->bytes) {
		free(cpu.src);
		free(cpu.dst);
		cpu.src = aligned_alloc(64, (c->bytes + 63) & ~(size_t)63);
		cpu.dst = aligned_alloc(64, (c->bytes + 63) & ~(size_t)63);
		cpu.bytes = cpu.src && cpu.dst ? c->bytes : 0;
		if (!cpu.bytes) {
			record_set_status(rec, "failed", "out of memory: 2 x %zu bytes of host memory", c->bytes);
			return -1;
		}
		memset(cpu.src, 0x5a, c->bytes); /* touch every page before timing */
		memset(cpu.dst, 0, c->bytes);
	}
	if (!cpu.flush) {
		cpu.flush_bytes = 64u << 20;
		cpu.flush = malloc(cpu.flush_bytes);
		if (!cpu.flush) {
			record_set_status(rec, "failed", "out of memory for the %zu-byte flush buffer", cpu.flush_bytes);
			return -1;
		}
		memset(cpu.flush, 1, cpu.flush_bytes); /* its pages faulted in now, not inside the estimate */
	}
	cpu.threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (cpu.threads < 1)
		cpu.threads = 1;
	if (cpu.threads > 256)
		cpu.threads = 256;
	cpu_clock_ops(&clk, &cc);
	if (dobench_run(&r, &o, &fn, &clk) != 0) {
		record_set_status(rec, "failed", "timing failed");
	} else {
		record_set_samples(rec, "tbps", "TB/s", r.samples_ms, r.n, to_tbps, c);
		record_add_extra(rec, "threads", json_integer(cpu.threads));
		record_add_timing(rec, &r);
		record_add_extra(rec, "schedule", json_pack("{s:f, s:I, s:I}", "estimate_ms", r.estimate_ms, "n_warmup",
							    (json_int_t)r.n_warmup, "n_repeat", (json_int_t)r.n_repeat));
	}
	dobench_result_release(&r);
	cpu_clock_release(&cc);
	return 0;
}

/* --- GPU ------------------------------------------------------------------------------------------------------ */
#ifdef BENCH_GPU
static struct {
	int ready;
	gpuStream_t s;
	void *src, *dst, *flush;
	size_t bytes, flush_bytes;
	struct telemetry tel;
} gpu;

static int gpu_call(void *ctx)
{
	const struct mb_case *c = ctx;

	return gpu_membw(c->op, gpu.dst, gpu.src, c->bytes, gpu.s);
}

static int gpu_flush(void *ctx)
{
	(void)ctx;
	return gpuMemsetAsync(gpu.flush, 0, gpu.flush_bytes, gpu.s) == gpuSuccess ? 0 : -1;
}

static void gpu_run(json_t *rec, struct mb_case *c, double warmup, double rep, json_t *params)
{
	struct dobench_result r = DOBENCH_RESULT_INIT;
	struct gpu_clock gc;
	struct dobench_clock clk;
	struct dobench_fn fn = { c, gpu_call, gpu_flush };
	struct dobench_opts o = { warmup, rep, 1, 100000 };
	struct dobench_probe probe;
	size_t free_b = 0, total_b = 0;

	gpu_timing_opts(&o, param_str(params, "mode", NULL), &gpu.tel, &probe);

	if (gpu.bytes != c->bytes) {
		gpuFree(gpu.src);
		gpuFree(gpu.dst);
		gpu.src = gpu.dst = NULL;
		gpu.bytes = 0;
		gpuMemGetInfo(&free_b, &total_b);
		if (2 * c->bytes + (256u << 20) > free_b) {
			record_set_status(rec, "failed", "out of memory: needs %.2f GiB, %.2f GiB free",
					  2.0 * c->bytes / (1 << 30), (double)free_b / (1 << 30));
			return;
		}
		if (gpuMalloc(&gpu.src, c->bytes) != gpuSuccess || gpuMalloc(&gpu.dst, c->bytes) != gpuSuccess) {
			gpuGetLastError();
			record_set_status(rec, "failed", "out of memory allocating 2 x %zu bytes", c->bytes);
			return;
		}
		gpuMemsetAsync(gpu.src, 0x5a, c->bytes, gpu.s);
		gpuMemsetAsync(gpu.dst, 0, c->bytes, gpu.s);
		gpu.bytes = c->bytes;
	}
	if (!gpu.flush) {
		gpu.flush_bytes = gpu_flush_bytes();
		if (gpuMalloc(&gpu.flush, gpu.flush_bytes) != gpuSuccess) {
			record_set_status(rec, "failed", "out of memory for the flush buffer");
			return;
		}
	}
	gc = (struct gpu_clock){ gpu.s, NULL, NULL, 0 };
	gpu_clock_ops(&clk, &gc);
	if (dobench_run(&r, &o, &fn, &clk) != 0) {
		record_set_status(rec, "failed", "kernel failed: %s", gpuGetErrorString(gpuGetLastError()));
	} else {
		record_set_samples(rec, "tbps", "TB/s", r.samples_ms, r.n, to_tbps, c);
		record_add_extra(rec, "schedule", json_pack("{s:f, s:I, s:I, s:I}", "estimate_ms", r.estimate_ms,
							    "n_warmup", (json_int_t)r.n_warmup, "n_repeat",
							    (json_int_t)r.n_repeat, "flush_bytes", (json_int_t)gpu.flush_bytes));
		gpu_timing_record(rec, &r, &gpu.tel);
	}
	dobench_result_release(&r);
	gpu_clock_release(&gc);
}
#endif

int main(int argc, char **argv)
{
	struct runner_config cfg = RUNNER_CONFIG_INIT;
	json_t *device = NULL;
	int rc, use_gpu = 0;
	char why[256] = "built without a GPU toolkit";

	if ((rc = runner_config_load(&cfg, argc, argv, "membw", usage)) != 0)
		return rc;
#ifdef BENCH_GPU
	if ((device = gpu_device_info(why, sizeof(why))) != NULL && gpuSetDevice(0) == gpuSuccess &&
	    gpuStreamCreate(&gpu.s) == gpuSuccess) {
		char bus[64];

		use_gpu = 1;
		gpu_pci_bus_id(bus, sizeof(bus));
		if (telemetry_open(&gpu.tel, bus) != 0)
			fprintf(stderr, "bench-membw: %s\n", gpu.tel.why);
	}
#endif
	if (!use_gpu) {
		json_decref(device);
		device = json_pack("{s:s, s:I, s:s}", "vendor", "cpu", "cores", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
				   "why_cpu", why);
	}
	fprintf(stderr, "bench-membw: %zu case%s on %s\n", cfg.n, cfg.n == 1 ? "" : "s", use_gpu ? "the GPU" : "the CPU");
	for (size_t i = 0; i < cfg.n; i++) {
		json_t *p = cfg.cases[i].params, *rec = record_new("membw", cfg.cases[i].key, p);
		const char *op = param_str(p, "op", "copy");
		struct mb_case c = { 0, (size_t)param_int(p, "bytes", 0), 0 };
		double warmup = param_num(p, "warmup_ms", 30), rep = param_num(p, "rep_ms", 200);

		c.op = !strcmp(op, "copy") ? 0 : !strcmp(op, "read") ? 1 : !strcmp(op, "write") ? 2 : -1;
		c.bytes &= ~(size_t)15; /* whole 16-byte vectors */
		c.counted = (double)c.bytes * (c.op == 0 ? 2.0 : 1.0);
		if (i == 0)
			record_add_extra(rec, "device", json_incref(device));
		if (c.op < 0 || c.bytes == 0) {
			record_set_status(rec, "failed", "bad case: op '%s', bytes %zu", op, c.bytes);
		} else {
			record_add_extra(rec, "convention", json_string(c.op == 0 ? "bytes read + bytes written (2 x size), "
									 "as Tensor.copy_; nvbandwidth counts half"
									 : c.op == 1 ? "bytes read (size)" : "bytes written (size)"));
			record_add_extra(rec, "counted_bytes", json_real(c.counted));
			record_add_extra(rec, "method", json_string(c.op == 0 ? "device: cudaMemcpyAsync/hipMemcpyAsync device to "
									   "device (what Tensor.copy_ calls); cpu: memcpy per thread"
									   : c.op == 1 ? "16-byte vector loads, xor-reduced (cpu: 8-byte)"
									   : "16-byte vector stores (cpu: memset per thread)"));
#ifdef BENCH_GPU
			if (use_gpu)
				gpu_run(rec, &c, warmup, rep, p);
			else
#endif
				cpu_run(rec, &c, warmup, rep, p);
		}
		fprintf(stderr, "bench-membw: [%zu/%zu] %s: %s\n", i + 1, cfg.n, cfg.cases[i].key,
			json_string_value(json_object_get(rec, "status")));
		record_emit(rec);
	}
	json_decref(device);
#ifdef BENCH_GPU
	telemetry_close(&gpu.tel);
#endif
	runner_config_release(&cfg);
	return 0;
}
