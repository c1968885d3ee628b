/* SPDX-License-Identifier: Apache-2.0 */
/* suite_training.c — training throughput and MFU (runner runners/torch/train.py). */
#include <string.h>

#include "core/strbuf.h"
#include "manifest.h"
#include "plan.h"
#include "plugin.h"

extern const struct suite_ops suite_training;

static const char *const models[] = { "tiny", "gpt-1.5b", "llama3-8b", "llama3-70b", "mistral-7b", "hybrid-tiny",
				       "hybrid-mamba2-3b", NULL };

/* What each model allows, as runners/torch/models.py defines it (tests/torch/test_torch.py compares the two):
 * learned positions cap seq_len (0: rotary, no cap); heads must divide the width, kv_heads the heads; an fp8 output
 * head needs a vocabulary that is a multiple of 16 (torch._scaled_mm's rule). */
static const struct train_model {
	const char *name;
	int layers, hidden, heads, kv_heads, positions, vocab;
} train_models[] = {
	{ "tiny", 2, 64, 4, 2, 0, 256 },
	{ "gpt-1.5b", 48, 1600, 25, 25, 1024, 50257 },
	{ "llama3-8b", 32, 4096, 32, 8, 0, 128256 },
	{ "llama3-70b", 80, 8192, 64, 8, 0, 128256 },
	{ "mistral-7b", 32, 4096, 32, 8, 0, 32000 },
	{ "hybrid-tiny", 4, 64, 4, 2, 0, 256 },
	{ "hybrid-mamba2-3b", 64, 2560, 20, 4, 0, 50288 },
};
static const char *const precisions[] = { "bf16", "fp8", "fp32", NULL };
static const char *const parallels[] = { "ddp", "fsdp", NULL };
static const char *const param_dtypes[] = { "fp32", "bf16", NULL };
static const char *const data_kinds[] = { "fixed", "zipf", NULL };

static const struct param_def train_params[] = {
	{ "models", PARAM_ENUM_LIST, "[llama3-8b]", "[tiny]", NULL, models, 0, 0, PARAM_PLUGIN_OK,
	  "tiny (a 2-layer Llama for CPU checks), gpt-1.5b, llama3-8b, llama3-70b, mistral-7b (sliding window 4096), "
	  "hybrid-mamba2-3b (Mamba2 blocks, every 4th layer attention + MLP), hybrid-tiny (its 4-layer CPU check)" },
	{ "layers", PARAM_INT, "auto", NULL, NULL, NULL, 1, 1024, PARAM_AUTO,
	  "fewer layers than the model's own make a proxy (llama3-70b with 4 layers; records say so and the head's share "
	  "of N); auto = the model's own" },
	{ "precision", PARAM_ENUM_LIST, "[bf16]", NULL, NULL, precisions, 0, 0, 0,
	  "bf16 (autocast), fp8 (block linears in fp8 with tensorwise scaling: torchao's recipe when importable, else "
	  "bench's native float8 linear; output head in bf16 unless fp8_head), fp32 (MFU against the fp32 peak)" },
	{ "param_dtype", PARAM_ENUM, "fp32", NULL, NULL, param_dtypes, 0, 0, 0,
	  "parameter and optimizer-state type: fp32 (master weights, bf16 through autocast) or bf16 (everything in bf16)" },
	{ "seq_len", PARAM_INT, "4096", "256", NULL, NULL, 8, 1 << 20, 0,
	  "tokens per sequence (at most the model's learned positions: gpt-1.5b has 1024)" },
	{ "micro_batch", PARAM_INT, "1", NULL, NULL, NULL, 1, 4096, 0, "sequences per GPU per step" },
	{ "steps", PARAM_INT, "30", NULL, NULL, NULL, 2, 1000000, 0, "optimizer steps in all, warm-up included" },
	{ "warmup_steps", PARAM_INT, "10", NULL, NULL, NULL, 1, 1000000, 0,
	  "steps excluded from the timing, over which the learning rate rises linearly to lr" },
	{ "parallel", PARAM_ENUM_LIST, "[fsdp]", NULL, NULL, parallels, 0, 0, PARAM_SCALAR_OK,
	  "data parallelism with more than one GPU: ddp, fsdp (FSDP2), or both as a list (one case each)" },
	{ "compile", PARAM_BOOL, "true", "false", NULL, NULL, 0, 0, 0,
	  "torch.compile the step's forward: the model and its cross-entropy loss" },
	{ "lr", PARAM_NUMBER, "3e-4", NULL, NULL, NULL, 0, 1, 0,
	  "AdamW's learning rate, reached by a linear warm-up over warmup_steps (throughput does not depend on it; the "
	  "loss curve does: 3e-5 keeps a 4-layer llama3-8b proxy stable on 8k-token batches)" },
	{ "data", PARAM_ENUM, "fixed", NULL, NULL, data_kinds, 0, 0, 0,
	  "fixed: one batch of random tokens every step (memorised: the loss falls to ~0 in a few steps); zipf: a "
	  "fresh batch every step from a Zipf(1.1) unigram distribution (the loss falls smoothly to its entropy; the key "
	  "ends /zipf)" },
	{ "fp8_head", PARAM_BOOL, "false", NULL, NULL, NULL, 0, 0, 0,
	  "precision fp8 runs the output head in fp8 too (the key says fp8+head); by default it stays in bf16" },
	{ "scaling", PARAM_BOOL, "false", NULL, NULL, NULL, 0, 0, 0,
	  "with more than one GPU, measure each case on one GPU first: records carry extra.scaling, the tokens/s per "
	  "GPU against it" },
	{ NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL },
};

static const struct train_model *train_model_find(const char *name)
{
	for (size_t i = 0; i < sizeof(train_models) / sizeof(train_models[0]); i++)
		if (!strcmp(train_models[i].name, name))
			return &train_models[i];
	return NULL;
}

static void train_check(struct suite_check *c, const struct manifest *m)
{
	const struct param_value *st = suite_cfg_get(c->cfg, "steps"), *w = suite_cfg_get(c->cfg, "warmup_steps");
	const struct param_value *mo = suite_cfg_get(c->cfg, "models"), *seq = suite_cfg_get(c->cfg, "seq_len");
	const struct param_value *layers = suite_cfg_get(c->cfg, "layers"), *pr = suite_cfg_get(c->cfg, "precision");
	const struct param_value *mb = suite_cfg_get(c->cfg, "micro_batch"), *lr = suite_cfg_get(c->cfg, "lr");
	const struct param_value *head = suite_cfg_get(c->cfg, "fp8_head");
	int has_fp8 = 0;

	(void)m;
	if (!(lr->num > 0))
		suite_check_error(c, lr, "'lr' must be greater than 0 (got %g)", lr->num);
	if (w->i >= st->i)
		suite_check_error(c, w, "'warmup_steps' (%lld) must be smaller than 'steps' (%lld)", w->i, st->i);
	for (size_t i = 0; i < mo->n; i++) {
		const struct train_model *tm = train_model_find(mo->sv[i]);

		if (!tm)
			continue;
		if (tm->positions && seq->i > tm->positions)
			suite_check_error(c, seq, "'seq_len' (%lld) exceeds the %d learned positions of model '%s'", seq->i,
					  tm->positions, tm->name);
		if (tm->hidden % tm->heads || tm->heads % tm->kv_heads)
			suite_check_error(c, mo, "model '%s': %d heads do not divide its width %d, or %d kv heads its heads",
					  tm->name, tm->heads, tm->hidden, tm->kv_heads);
		if (!layers->is_auto && layers->i > tm->layers)
			suite_check_error(c, layers, "'layers' (%lld) exceeds the %d layers of model '%s' (a proxy has fewer)",
					  layers->i, tm->layers, tm->name);
	}
	for (size_t i = 0; i < pr->n; i++) {
		if (strcmp(pr->sv[i], "fp8"))
			continue;
		has_fp8 = 1;
		if ((seq->i * mb->i) % 16)
			suite_check_error(c, seq, "fp8 GEMMs need micro_batch x seq_len (%lld x %lld) to be a multiple of 16",
					  mb->i, seq->i);
	}
	if (head->i && !has_fp8)
		suite_check_error(c, head, "'fp8_head' puts the output head in fp8, but 'precision' has no fp8");
	for (size_t i = 0; head->i && has_fp8 && i < mo->n; i++) {
		const struct train_model *tm = train_model_find(mo->sv[i]);

		if (tm && tm->vocab % 16)
			suite_check_error(c, head, "'fp8_head': model '%s' has a vocabulary of %d, not a multiple of 16, so its "
					  "head cannot run in fp8", tm->name, tm->vocab);
	}
}

static int train_plan(struct plan *out, const struct suite_cfg *cfg, const struct manifest *m)
{
	static const char *const lists[] = { "models", "precision", "parallel", NULL };
	const struct param_value *mo = suite_cfg_get(cfg, "models"), *pr = suite_cfg_get(cfg, "precision");
	const struct param_value *par = suite_cfg_get(cfg, "parallel");
	const struct param_value *layers = suite_cfg_get(cfg, "layers");
	long long seq = suite_cfg_get(cfg, "seq_len")->i, mb = suite_cfg_get(cfg, "micro_batch")->i;
	int compile = (int)suite_cfg_get(cfg, "compile")->i, fp8_head = (int)suite_cfg_get(cfg, "fp8_head")->i;
	int zipf = !strcmp(suite_cfg_get(cfg, "data")->str, "zipf");

	(void)m;
	for (size_t mi = 0; mi < mo->n; mi++)
		for (size_t pi = 0; pi < pr->n; pi++)
			for (size_t di = 0; di < par->n; di++) {
				json_t *p = suite_params_json(cfg, lists);
				char l[32];

				if (layers->is_auto)
					snprintf(l, sizeof(l), "full");
				else
					snprintf(l, sizeof(l), "L%lld", layers->i);
				json_object_set_new(p, "model", json_string(mo->sv[mi]));
				if (mo->plugins && mo->plugins[mi])
					json_object_set_new(p, "plugin", json_deep_copy(mo->plugins[mi]));
				json_object_set_new(p, "precision", json_string(pr->sv[pi]));
				json_object_set_new(p, "parallel", json_string(par->sv[di]));
				plan_add(out, &suite_training,
					 xstrfmt("%s/%s/%s%s/s%lld/mb%lld/%s/%s%s", mo->sv[mi], l, pr->sv[pi],
						 fp8_head && !strcmp(pr->sv[pi], "fp8") ? "+head" : "", seq, mb, par->sv[di],
						 compile ? "compile" : "eager", zipf ? "/zipf" : ""),
					 p);
			}
	return 0;
}

const struct suite_ops suite_training = {
	.ranks_per_node_itself = 1,
	.name = "training",
	.summary = "training throughput: tokens/s, TFLOP/s per GPU and MFU (6N + 12LHdT x density FLOP per token)",
	.program = "runners/torch/train.py",
	.metric = "tflops_per_gpu",
	.unit = "TFLOP/s",
	.min_samples = 5,
	.params = train_params,
	.check = train_check,
	.plan = train_plan,
};
