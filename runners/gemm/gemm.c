/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench-gemm — GEMM throughput under Triton's do_bench schedule (runner contract: docs/architecture.md).
 *   bench-gemm --config CASES.json   > records.jsonl
 * Backends: cblas (CPU, always built) and blaslt (cuBLASLt / hipBLASLt, when built with a GPU toolkit).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/record.h"
#include "../common/rng.h"
#include "gemm.h"

static const char *const usage = "bench-gemm --config CASES.json  (one bench.result/v1 record per case on stdout)";

static int problem_from(struct gemm_problem *p, json_t *params, char *why, size_t whylen)
{
	const char *init = param_str(params, "init", "normal");
	const char *layout = param_str(params, "layout", "tn");

	memset(p, 0, sizeof(*p));
	p->backend = param_str(params, "backend", "");
	p->dt = dtype_parse(param_str(params, "dtype", ""));
	p->tn = !strcmp(layout, "tn");
	p->m = param_int(params, "m", 0);
	p->n = param_int(params, "n", 0);
	p->k = param_int(params, "k", 0);
	p->algo = param_str(params, "algo", "heuristic");
	p->tune = (int)param_int(params, "tune", 0);
	p->init = !strcmp(init, "zeros") ? RNG_ZEROS : !strcmp(init, "uniform") ? RNG_UNIFORM : RNG_NORMAL;
	p->seed = (uint64_t)param_int(params, "seed", 0);
	p->warmup_ms = param_num(params, "warmup_ms", 30);
	p->rep_ms = param_num(params, "rep_ms", 200);
	p->flush = param_bool(params, "flush_l2", 1);
	p->flush_bytes = (size_t)param_size_auto(params, "flush_bytes", 0);
	p->workspace = (size_t)param_size_auto(params, "workspace", 0);
	p->check = param_bool(params, "check", 1);
	p->mode = param_str(params, "mode", NULL);
	if (p->dt == DT_INVALID) {
		snprintf(why, whylen, "unknown dtype '%s'", param_str(params, "dtype", "?"));
		return -1;
	}
	if (p->m < 1 || p->n < 1 || p->k < 1 || (strcmp(layout, "tn") && strcmp(layout, "nn"))) {
		snprintf(why, whylen, "bad shape or layout (m=%lld n=%lld k=%lld layout=%s)", p->m, p->n, p->k, layout);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct runner_config cfg = RUNNER_CONFIG_INIT;
	int rc, info_done_cpu = 0, info_done_gpu = 0, child;

	if ((rc = runner_config_load(&cfg, argc, argv, "gemm", usage)) != 0)
		return rc;
	child = json_is_true(json_object_get(cfg.root, "native_child")); /* gemm_native_run()'s, on the GPU path */
	if (!child)
		fprintf(stderr, "bench-gemm: %zu case%s\n", cfg.n, cfg.n == 1 ? "" : "s");
	for (size_t c = 0; c < cfg.n; c++) {
		json_t *rec = record_new("gemm", cfg.cases[c].key, cfg.cases[c].params);
		struct gemm_problem p;
		char why[512];

		if (!child)
			fprintf(stderr, "bench-gemm: [%zu/%zu] %s\n", c + 1, cfg.n, cfg.cases[c].key);
		if (problem_from(&p, cfg.cases[c].params, why, sizeof(why)) < 0) {
			record_set_status(rec, "failed", "%s", why);
		} else if (json_is_object(json_object_get(cfg.cases[c].params, "plugin"))) {
			json_t *pl = json_object_get(cfg.cases[c].params, "plugin");
			const char *kind = json_string_value(json_object_get(pl, "kind"));

			if (kind && !strcmp(kind, "native") && child) {
				/* gemm_native_run()'s child on the GPU path: the record goes to the parent from there */
				gemm_native_run_here(rec, &p, cfg.root, cfg.cases[c].params);
				json_decref(rec);
				continue;
			} else if (kind && !strcmp(kind, "native"))
				gemm_native_run(&rec, &p, cfg.root, cfg.cases[c].key, cfg.cases[c].params);
			else
				record_set_status(rec, "skipped", "plug-in '%s' is a Python one: the PyTorch runner measures it",
						  p.backend);
		} else if (!strcmp(p.backend, "cblas")) {
#ifdef BENCH_CBLAS
			if (!info_done_cpu++)
				record_add_extra(rec, "device", gemm_cblas_info());
			gemm_cblas_run(rec, &p);
#else
			(void)info_done_cpu;
			record_set_status(rec, "skipped", "this bench-gemm was built without a CBLAS (no openblas at 'make "
					  "runners' time)");
#endif
		} else if (!strcmp(p.backend, "blaslt")) {
#ifdef BENCH_GPU_GEMM
			json_t *info = gemm_blaslt_info(why, sizeof(why));

			if (!info) {
				record_set_status(rec, "failed", "%s", why);
			} else {
				if (!info_done_gpu++)
					record_add_extra(rec, "device", info);
				else
					json_decref(info);
				gemm_blaslt_run(rec, &p);
			}
#else
			(void)info_done_gpu;
			record_set_status(rec, "skipped", "this bench-gemm was built without a GPU toolkit (no nvcc or hipcc "
					  "at 'make runners' time)");
#endif
		} else if (!strncmp(p.backend, "torch-", 6)) {
			record_set_status(rec, "skipped", "backend '%s' is measured by the PyTorch runner, not bench-gemm",
					  p.backend);
		} else {
			record_set_status(rec, "failed", "unknown backend '%s'", p.backend);
		}
		{
			json_t *v = json_object_get(rec, "value");

			fprintf(stderr, "bench-gemm: [%zu/%zu] %s: %s", c + 1, cfg.n, cfg.cases[c].key,
				json_string_value(json_object_get(rec, "status")));
			if (json_is_number(v))
				fprintf(stderr, " %.1f TFLOP/s", json_number_value(v));
			fprintf(stderr, "\n");
		}
		record_emit(rec);
	}
#ifdef BENCH_CBLAS
	gemm_cblas_shutdown();
#endif
#ifdef BENCH_GPU_GEMM
	gemm_blaslt_shutdown();
#endif
	runner_config_release(&cfg);
	return 0;
}
