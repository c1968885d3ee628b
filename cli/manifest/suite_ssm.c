/* SPDX-License-Identifier: Apache-2.0 */
/* suite_ssm.c — Mamba2 SSD (state-space duality) layer forward/backward throughput (runner runners/torch/ssm.py). */
#include <string.h>

#include "core/strbuf.h"
#include "manifest.h"
#include "plan.h"
#include "plugin.h"

extern const struct suite_ops suite_ssm;

static const char *const modes[] = { "steady", "burst", NULL };
static const char *const impls[] = { "torch", "mamba_ssm", NULL };
static const char *const passes[] = { "fwd", "bwd", "fwd_bwd", NULL };
static const char *const dtypes[] = { "bf16", "fp16", NULL };

/* Defaults: one SSD layer of Mamba2-2.7B (d_model 2560, expand 2: 80 heads of 64, d_state 128, chunk 256, 1 group). */
static const struct param_def ssm_params[] = {
	{ "impl", PARAM_ENUM_LIST, "[torch, mamba_ssm]", NULL, NULL, impls, 0, 0, PARAM_PLUGIN_OK | PARAM_PLUGIN_PASSES,
	  "torch (bench's chunked SSD in PyTorch, torch.compile on GPUs where it works), mamba_ssm (the Triton kernel "
	  "mamba_chunk_scan_combined; skipped where mamba_ssm does not import), or a plug-in {plugin: NAME, ...} "
	  "(docs/plugins.md)" },
	{ "seq_lens", PARAM_INT_LIST, "[2048, 4096, 8192]", NULL, NULL, NULL, 1, 1 << 20, 0, "sequence lengths" },
	{ "heads", PARAM_INT, "80", NULL, NULL, NULL, 1, 4096, 0, "SSM heads H (Mamba2-2.7B: 2 x 2560 / 64 = 80)" },
	{ "head_dim", PARAM_INT, "64", NULL, NULL, NULL, 1, 1024, 0, "head dimension P" },
	{ "state", PARAM_INT, "128", NULL, NULL, NULL, 1, 1024, 0, "state dimension N (d_state)" },
	{ "chunk", PARAM_INT, "256", NULL, NULL, NULL, 1, 4096, 0,
	  "chunk size Q of the chunked algorithm; every seq_len is a multiple of it" },
	{ "groups", PARAM_INT, "1", NULL, NULL, NULL, 1, 4096, 0,
	  "groups G of B and C (ngroups), shared by heads / groups heads each" },
	{ "tokens", PARAM_INT, "16384", NULL, NULL, NULL, 1, 1 << 24, 0,
	  "tokens per batch; batch = tokens / seq_len (as attention)" },
	{ "passes", PARAM_ENUM_LIST, "[fwd, bwd]", NULL, NULL, passes, 0, 0, 0,
	  "fwd (the chunked algorithm's matmuls: 2BL[GQN + HP(Q + 2N)] + 2BHPN L/Q FLOP), bwd (2 x fwd), "
	  "fwd_bwd (3 x fwd)" },
	{ "dtype", PARAM_ENUM, "bf16", NULL, NULL, dtypes, 0, 0, 0, "element type of x, B, C (dt and A stay fp32)" },
	{ "mode", PARAM_ENUM, "steady", "burst", NULL, modes, 0, 0, 0,
	  "steady: sustained load until SM clock and power hold steady (telemetry; <= 10 s), then the timed calls; "
	  "burst: Triton's do_bench schedule as is (a GPU after an idle spell runs at boost clocks)" },
	{ "warmup", PARAM_DURATION, "30ms", NULL, NULL, NULL, 1, 0, 0, "burst mode's warm-up budget per case (do_bench schedule); steady mode warms up until steady instead" },
	{ "rep", PARAM_DURATION, "200ms", NULL, NULL, NULL, 1, 0, 0, "timed budget per case (do_bench schedule)" },
	{ NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL },
};

static void ssm_check(struct suite_check *c, const struct manifest *m)
{
	const struct param_value *h = suite_cfg_get(c->cfg, "heads"), *g = suite_cfg_get(c->cfg, "groups");
	const struct param_value *t = suite_cfg_get(c->cfg, "tokens"), *s = suite_cfg_get(c->cfg, "seq_lens");
	const struct param_value *q = suite_cfg_get(c->cfg, "chunk");

	(void)m;
	if (h->i % g->i)
		suite_check_error(c, g, "'heads' (%lld) must be a multiple of 'groups' (%lld)", h->i, g->i);
	for (size_t i = 0; i < s->n; i++)
		if (s->iv[i] % q->i) {
			suite_check_error(c, s, "every seq_len must be a multiple of 'chunk' (%lld); %lld is not", q->i,
					  s->iv[i]);
			break;
		}
	for (size_t i = 0; i < s->n; i++)
		if (t->i % s->iv[i] || t->i < s->iv[i]) {
			suite_check_error(c, t, "'tokens' (%lld) must be a multiple of every seq_len; %lld is not a divisor",
					  t->i, s->iv[i]);
			break;
		}
}

static int ssm_plan(struct plan *out, const struct suite_cfg *cfg, const struct manifest *m)
{
	static const char *const lists[] = { "impl", "seq_lens", "passes", NULL };
	const struct param_value *im = suite_cfg_get(cfg, "impl"), *s = suite_cfg_get(cfg, "seq_lens");
	const struct param_value *pa = suite_cfg_get(cfg, "passes");
	long long h = suite_cfg_get(cfg, "heads")->i, p = suite_cfg_get(cfg, "head_dim")->i;
	long long n = suite_cfg_get(cfg, "state")->i, q = suite_cfg_get(cfg, "chunk")->i;
	long long g = suite_cfg_get(cfg, "groups")->i, tok = suite_cfg_get(cfg, "tokens")->i;
	const char *dt = suite_cfg_get(cfg, "dtype")->str;

	(void)m;
	for (size_t ii = 0; ii < im->n; ii++)
		for (size_t si = 0; si < s->n; si++)
			for (size_t pi = 0; pi < pa->n; pi++) {
				long long seq = s->iv[si], batch = tok / seq;
				char blocks[48];
				json_t *pj;

				if (im->plugins && im->plugins[ii] && !plugin_has_pass(im->plugins[ii], pa->sv[pi]))
					continue; /* a pass the plug-in does not declare */
				pj = suite_params_json(cfg, lists);
				if (im->plugins && im->plugins[ii])
					json_object_set_new(pj, "plugin", json_deep_copy(im->plugins[ii]));
				/* the chunk (and groups, when not 1) change the work done: they are part of the key */
				if (g == 1)
					snprintf(blocks, sizeof(blocks), "chunk%lld", q);
				else
					snprintf(blocks, sizeof(blocks), "chunk%lld-g%lld", q, g);
				json_object_update_new(pj, json_pack("{s:s, s:I, s:I, s:s}", "impl", im->sv[ii], "batch",
								     batch, "seq_len", seq, "pass", pa->sv[pi]));
				plan_add(out, &suite_ssm,
					 xstrfmt("%s/%s/%s/%lldx%lldx%lldx%lldx%lld/%s", im->sv[ii], dt, blocks, batch, seq, h,
						 p, n, pa->sv[pi]),
					 pj);
			}
	return 0;
}

const struct suite_ops suite_ssm = {
	.name = "ssm",
	.summary = "Mamba2 SSD layer forward/backward TFLOP/s (the chunked algorithm's matmul FLOPs)",
	.program = "runners/torch/ssm.py",
	.metric = "tflops",
	.unit = "TFLOP/s",
	.min_samples = 10,
	.peak = SUITE_PEAK_TFLOPS,
	.params = ssm_params,
	.check = ssm_check,
	.plan = ssm_plan,
};
