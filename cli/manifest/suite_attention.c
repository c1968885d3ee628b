/* SPDX-License-Identifier: Apache-2.0 */
/* suite_attention.c — attention forward/backward throughput (runner runners/torch/attention.py). */
#include <string.h>

#include "core/strbuf.h"
#include "manifest.h"
#include "plan.h"
#include "plugin.h"

extern const struct suite_ops suite_attention;

static const char *const modes[] = { "steady", "burst", NULL };
static const char *const impls[] = { "sdpa", "sdpa-flash", "sdpa-efficient", "sdpa-cudnn", "sdpa-math", "flex", NULL };
static const char *const passes[] = { "fwd", "bwd", "fwd_bwd", NULL };
static const char *const dtypes[] = { "bf16", "fp16", NULL };

static const struct param_def attn_params[] = {
	{ "impl", PARAM_ENUM_LIST, "[sdpa]", NULL, NULL, impls, 0, 0, PARAM_PLUGIN_OK | PARAM_PLUGIN_PASSES,
	  "sdpa (PyTorch's choice), sdpa-flash, sdpa-efficient, sdpa-cudnn, sdpa-math (one SDPA backend), flex "
	  "(FlexAttention), or a plug-in {plugin: NAME, python: \"module:function\" | file: F, function: FN} "
	  "(docs/plugins.md)" },
	{ "seq_lens", PARAM_INT_LIST, "[2048, 4096, 8192]", NULL, NULL, NULL, 1, 1 << 20, 0, "sequence lengths" },
	{ "head_dim", PARAM_INT, "128", NULL, NULL, NULL, 1, 512, 0, "head dimension D" },
	{ "width", PARAM_INT, "2048", NULL, NULL, NULL, 1, 1 << 16, 0,
	  "total width H x D (FlashAttention-2 benchmarks use 2048); heads = width / head_dim" },
	{ "tokens", PARAM_INT, "16384", NULL, NULL, NULL, 1, 1 << 24, 0,
	  "tokens per batch; batch = tokens / seq_len (FlashAttention-2 benchmarks use 16k)" },
	{ "causal", PARAM_BOOL_LIST, "[true]", NULL, NULL, NULL, 0, 0, 0,
	  "causal masks (true) and/or full attention (false); causal FLOPs are half" },
	{ "window", PARAM_INT, "0", NULL, NULL, NULL, 0, 1 << 20, 0,
	  "sliding-window size for causal cases (0: none); FLOPs count the attended fraction" },
	{ "passes", PARAM_ENUM_LIST, "[fwd, bwd]", NULL, NULL, passes, 0, 0, 0,
	  "fwd (4BS^2HD FLOP), bwd (2.5 x fwd), fwd_bwd (3.5 x fwd)" },
	{ "dtype", PARAM_ENUM, "bf16", NULL, NULL, dtypes, 0, 0, 0, "element type" },
	{ "mode", PARAM_ENUM, "steady", "burst", NULL, modes, 0, 0, 0,
	  "steady: sustained load until SM clock and power hold steady (telemetry; <= 10 s), then the timed calls; "
	  "burst: Triton's do_bench schedule as is (a GPU after an idle spell runs at boost clocks)" },
	{ "warmup", PARAM_DURATION, "30ms", NULL, NULL, NULL, 1, 0, 0, "burst mode's warm-up budget per case (do_bench schedule); steady mode warms up until steady instead" },
	{ "rep", PARAM_DURATION, "200ms", NULL, NULL, NULL, 1, 0, 0, "timed budget per case (do_bench schedule)" },
	{ NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL },
};

static void attn_check(struct suite_check *c, const struct manifest *m)
{
	const struct param_value *hd = suite_cfg_get(c->cfg, "head_dim"), *w = suite_cfg_get(c->cfg, "width");
	const struct param_value *t = suite_cfg_get(c->cfg, "tokens"), *s = suite_cfg_get(c->cfg, "seq_lens");
	const struct param_value *win = suite_cfg_get(c->cfg, "window"), *causal = suite_cfg_get(c->cfg, "causal");
	int any_causal = 0;

	(void)m;
	if (w->i % hd->i)
		suite_check_error(c, w, "'width' (%lld) must be a multiple of 'head_dim' (%lld)", w->i, hd->i);
	for (size_t i = 0; i < s->n; i++)
		if (t->i % s->iv[i] || t->i < s->iv[i]) {
			suite_check_error(c, t, "'tokens' (%lld) must be a multiple of every seq_len; %lld is not a divisor",
					  t->i, s->iv[i]);
			break;
		}
	for (size_t i = 0; i < causal->n; i++)
		any_causal |= (int)causal->iv[i];
	if (win->i && !any_causal)
		suite_check_error(c, win, "'window' applies to causal attention; add true to 'causal'");
}

static int attn_plan(struct plan *out, const struct suite_cfg *cfg, const struct manifest *m)
{
	static const char *const lists[] = { "impl", "seq_lens", "causal", "passes", NULL };
	const struct param_value *im = suite_cfg_get(cfg, "impl"), *s = suite_cfg_get(cfg, "seq_lens");
	const struct param_value *ca = suite_cfg_get(cfg, "causal"), *pa = suite_cfg_get(cfg, "passes");
	long long hd = suite_cfg_get(cfg, "head_dim")->i, w = suite_cfg_get(cfg, "width")->i;
	long long tok = suite_cfg_get(cfg, "tokens")->i, win = suite_cfg_get(cfg, "window")->i;
	const char *dt = suite_cfg_get(cfg, "dtype")->str;

	(void)m;
	for (size_t ii = 0; ii < im->n; ii++)
		for (size_t ci = 0; ci < ca->n; ci++)
			for (size_t si = 0; si < s->n; si++)
				for (size_t pi = 0; pi < pa->n; pi++) {
					long long seq = s->iv[si], batch = tok / seq, heads = w / hd;
					char mask[32];
					json_t *p;

					if (im->plugins && im->plugins[ii] && !plugin_has_pass(im->plugins[ii], pa->sv[pi]))
						continue; /* a pass the plug-in does not declare */
					p = suite_params_json(cfg, lists);
					if (im->plugins && im->plugins[ii])
						json_object_set_new(p, "plugin", json_deep_copy(im->plugins[ii]));
					if (!ca->iv[ci])
						snprintf(mask, sizeof(mask), "full");
					else if (win)
						snprintf(mask, sizeof(mask), "sliding%lld", win);
					else
						snprintf(mask, sizeof(mask), "causal");
					json_object_update_new(p, json_pack("{s:s, s:I, s:I, s:I, s:b, s:s, s:s}", "impl",
									    im->sv[ii], "batch", batch, "seq_len", seq, "heads",
									    heads, "causal", (int)ca->iv[ci], "mask", mask,
									    "pass", pa->sv[pi]));
					plan_add(out, &suite_attention,
						 xstrfmt("%s/%s/%s/%lldx%lldx%lldx%lld/%s", im->sv[ii], dt, mask, batch, seq,
							 heads, hd, pa->sv[pi]),
						 p);
				}
	return 0;
}

const struct suite_ops suite_attention = {
	.name = "attention",
	.summary = "attention forward/backward TFLOP/s by the FlashAttention-2 FLOP convention",
	.program = "runners/torch/attention.py",
	.metric = "tflops",
	.unit = "TFLOP/s",
	.min_samples = 10,
	.peak = SUITE_PEAK_TFLOPS,
	.params = attn_params,
	.check = attn_check,
	.plan = attn_plan,
};
