/* SPDX-License-Identifier: Apache-2.0 */
/* suite_gemm.c — matrix multiply throughput (runner bench-gemm; torch backends run in runners/torch). */
#include <string.h>

#include "core/strbuf.h"
#include "manifest.h"
#include "plan.h"
#include "plugin.h"

static const char *const modes[] = { "steady", "burst", NULL };
static const char *const backends[] = { "blaslt", "cblas", "torch-matmul", "torch-linear", "torch-scaled-mm", NULL };
static const char *const dtypes[] = { "bf16", "fp16", "fp32", "fp8e4m3", "fp8e5m2", NULL };
static const char *const layouts[] = { "tn", "nn", NULL };
static const char *const inits[] = { "normal", "uniform", "zeros", NULL };

#define MS 1000000LL

extern const struct suite_ops suite_gemm;

static const struct param_def gemm_params[] = {
	{ "backends", PARAM_ENUM_LIST, "[blaslt]", "[cblas]", NULL, backends, 0, 0, PARAM_PLUGIN_OK | PARAM_PLUGIN_NATIVE,
	  "GEMM implementations: blaslt (cuBLASLt/hipBLASLt), cblas (CPU BLAS), torch-matmul, torch-linear (F.linear), "
	  "torch-scaled-mm (torch._scaled_mm, fp8), or a plug-in {plugin: NAME, python: \"module:function\" | file: F, "
	  "function: FN | native: LIB.so} (docs/plugins.md)" },
	{ "dtypes", PARAM_ENUM_LIST, "[bf16]", "[fp32]", NULL, dtypes, 0, 0, 0,
	  "input/output element types; fp8e4m3 is e4m3 on NVIDIA and e4m3fnuz on MI300 (bf16 output); fp8e5m2 is the "
	  "fp8 backward pass's A (gradient) e5m2 x B (weight) e4m3, fnuz on MI300 (bf16 output)" },
	{ "layouts", PARAM_ENUM_LIST, "[tn]", NULL, NULL, layouts, 0, 0, 0,
	  "tn: nn.Linear (A MxK, W NxK row-major, C = A W^T; Hopper fp8 needs it); nn: torch.matmul (A MxK, B KxN)" },
	{ "shapes", PARAM_SHAPES, "llama70b", NULL, NULL, NULL, 0, 0, 0,
	  "[[M, N, K], ...] or a preset; llama70b = the five Llama-70B training shapes" },
	{ "mode", PARAM_ENUM, "steady", "burst", NULL, modes, 0, 0, 0,
	  "steady: sustained load until SM clock and power hold steady (telemetry; <= 10 s), then the timed calls; "
	  "burst: Triton's do_bench schedule as is (a GPU after an idle spell runs at boost clocks)" },
	{ "warmup", PARAM_DURATION, "30ms", NULL, NULL, NULL, 1, 0, 0,
	  "burst mode's warm-up budget per case (do_bench: n_warmup = max(1, warmup / estimate)); steady mode warms "
	  "up until steady instead" },
	{ "rep", PARAM_DURATION, "200ms", NULL, NULL, NULL, 1, 0, 0,
	  "timed budget per case (do_bench: n_repeat = max(1, rep / estimate)), one event pair per call" },
	{ "flush_l2", PARAM_BOOL, "true", NULL, NULL, NULL, 0, 0, 0,
	  "zero a flush buffer before every timed call, outside the timed region" },
	{ "flush_bytes", PARAM_SIZE, "auto", NULL, NULL, NULL, 1 << 20, 0, PARAM_AUTO,
	  "flush buffer size; auto = max(256MiB, 2 x (L2 + AMD Infinity Cache)) on GPUs, 2 x last-level cache within 8MiB..64MiB on the CPU" },
	{ "init", PARAM_ENUM, "normal", NULL, NULL, inits, 0, 0, 0,
	  "input values from a fixed seed: normal N(0,1), uniform [-1,1), zeros (runs faster; not representative)" },
	{ "seed", PARAM_INT, "0", NULL, NULL, NULL, 0, 2147483647LL, 0, "seed of the input generator" },
	{ "tune", PARAM_INT, "0", NULL, NULL, NULL, 0, 64, 0,
	  "0: the heuristic's first algorithm only; N: also the best of the top N candidates (case algo tuneN)" },
	{ "workspace", PARAM_SIZE, "auto", NULL, NULL, NULL, 0, 4LL << 30, PARAM_AUTO,
	  "BLAS workspace; auto = 32MiB on CUDA (Hopper), 76MiB on ROCm (as PyTorch gives hipBLASLt)" },
	{ "tunableop", PARAM_BOOL, "false", NULL, NULL, NULL, 0, 0, 0,
	  "torch backends: also a case with PyTorch's TunableOp (algo tunableop): untuned, tuning (time, peak memory), "
	  "tuned, untuned again in one call; the tuning file goes into the run (artifacts/gemm/)" },
	{ "check", PARAM_BOOL, "true", NULL, NULL, NULL, 0, 0, 0,
	  "compare sampled outputs with a host reference (dtype-aware tolerance); a mismatch fails the case (exit 7)" },
	{ NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL },
};

static int has(const struct param_value *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->sv[i], s))
			return 1;
	return 0;
}

static void gemm_check(struct suite_check *c, const struct manifest *m)
{
	const struct param_value *b = suite_cfg_get(c->cfg, "backends");
	const struct param_value *d = suite_cfg_get(c->cfg, "dtypes");

	if (m->target.vendor == VENDOR_CPU && has(b, "blaslt"))
		suite_check_error(c, b, "backend 'blaslt' needs target.vendor cuda or rocm (use 'cblas' on cpu)");
	for (size_t i = 0; i < 2; i++) {
		static const char *const fp8[] = { "fp8e4m3", "fp8e5m2" };

		if (m->target.vendor != VENDOR_CPU && has(b, "cblas") && b->n == 1 && has(d, fp8[i]))
			suite_check_error(c, d, "dtype '%s' has no CBLAS implementation; use backend 'blaslt'", fp8[i]);
	}
	if (suite_cfg_get(c->cfg, "tunableop")->i && !has(b, "torch-matmul") && !has(b, "torch-linear") &&
	    !has(b, "torch-scaled-mm"))
		suite_check_error(c, suite_cfg_get(c->cfg, "tunableop"), "'tunableop' is PyTorch's: it needs a torch backend "
				  "(torch-matmul, torch-linear or torch-scaled-mm)");
	if (has(b, "torch-scaled-mm") && !has(d, "fp8e4m3") && !has(d, "fp8e5m2"))
		suite_check_error(c, b, "backend 'torch-scaled-mm' measures fp8 only; add 'fp8e4m3' or 'fp8e5m2' to 'dtypes'");
}

static int gemm_plan(struct plan *out, const struct suite_cfg *cfg, const struct manifest *m)
{
	const struct param_value *b = suite_cfg_get(cfg, "backends"), *d = suite_cfg_get(cfg, "dtypes");
	const struct param_value *l = suite_cfg_get(cfg, "layouts"), *s = suite_cfg_get(cfg, "shapes");
	long long tune = suite_cfg_get(cfg, "tune")->i;
	int tunableop = (int)suite_cfg_get(cfg, "tunableop")->i;
	static const char *const lists[] = { "backends", "dtypes", "layouts", "shapes", NULL };

	for (size_t bi = 0; bi < b->n; bi++)
		for (size_t di = 0; di < d->n; di++)
			for (size_t li = 0; li < l->n; li++)
				for (size_t si = 0; si < s->n; si++)
					for (int t = 0; t < ((tune > 0 && !strcmp(b->sv[bi], "blaslt")) ||
								 (tunableop && !strncmp(b->sv[bi], "torch-", 6) &&
								  !(b->plugins && b->plugins[bi])) ? 2 : 1); t++) {
						const char *be = b->sv[bi], *dt = d->sv[di];
						const struct gemm_shape *sh = &s->shapes[si];
						char algo[32];
						json_t *p;

						/* torch-scaled-mm is fp8 only; other dtypes are not cases of it */
						if (!strcmp(be, "torch-scaled-mm") && strncmp(dt, "fp8", 3))
							continue;
						if (!strcmp(be, "blaslt"))
							snprintf(algo, sizeof(algo), t ? "tune%lld" : "heuristic", tune);
						else
							snprintf(algo, sizeof(algo), t ? "tunableop" : "default");
						p = suite_params_json(cfg, lists);
						if (b->plugins && b->plugins[bi]) {
							const char *kind = NULL;

							json_object_set_new(p, "plugin", json_deep_copy(b->plugins[bi]));
							/* a native plug-in runs on the target's device: a GPU target's on
							 * bench-gemm's GPU path (plugin.h) */
							if (plugin_of_params(p, &kind) && kind && !strcmp(kind, "native") &&
							    m->target.vendor != VENDOR_CPU)
								json_object_set_new(p, "plugin_device", json_string("gpu"));
						}
						json_object_update_new(p, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:s}",
										    "backend", be, "dtype", dt, "layout",
										    l->sv[li], "m", sh->m, "n", sh->n, "k",
										    sh->k, "algo", algo));
						plan_add(out, &suite_gemm, xstrfmt("%s/%s/%s/%lldx%lldx%lld/%s", be, dt, l->sv[li],
										   sh->m, sh->n, sh->k, algo), p);
					}
	return 0;
}

/* torch.matmul, F.linear, torch._scaled_mm and Python plug-ins are measured by the PyTorch runner */
static const char *gemm_program_for(const json_t *params)
{
	const char *b = json_string_value(json_object_get(params, "backend")), *kind = NULL;

	if (plugin_of_params(params, &kind))
		return kind && strcmp(kind, "native") ? "runners/torch/gemm.py" : NULL;
	return b && !strncmp(b, "torch-", 6) ? "runners/torch/gemm.py" : NULL;
}

/* CBLAS measures the host CPU whatever the target; a native plug-in runs on bench-gemm's GPU path on a GPU target
 * (params "plugin_device": "gpu"), on its host path otherwise. */
static int gemm_on_host(const json_t *params)
{
	const char *b = json_string_value(json_object_get(params, "backend")), *kind = NULL;

	if (plugin_of_params(params, &kind))
		return kind && !strcmp(kind, "native") &&
		       !json_is_string(json_object_get(params, "plugin_device"));
	return b && !strcmp(b, "cblas");
}

const struct suite_ops suite_gemm = {
	.name = "gemm",
	.summary = "matrix multiply throughput, timed like Triton's do_bench (median TFLOP/s = 2MNK / t)",
	.program = "bench-gemm",
	.program_for = gemm_program_for,
	.on_host = gemm_on_host,
	.metric = "tflops",
	.unit = "TFLOP/s",
	.min_samples = 10,
	.peak = SUITE_PEAK_TFLOPS,
	.params = gemm_params,
	.check = gemm_check,
	.plan = gemm_plan,
};
