/* SPDX-License-Identifier: Apache-2.0 */
/* suite_membw.c — memory bandwidth: device-to-device copy, read-only and write-only kernels (bench-membw). */
#include "core/strbuf.h"
#include "core/units.h"
#include "manifest.h"
#include "plan.h"

extern const struct suite_ops suite_membw;

static const char *const modes[] = { "steady", "burst", NULL };
static const char *const ops[] = { "copy", "read", "write", NULL };

static const struct param_def membw_params[] = {
	{ "ops", PARAM_ENUM_LIST, "[copy]", NULL, NULL, ops, 0, 0, 0,
	  "copy (reads and writes size bytes: counts 2 x size), read (counts size), write (counts size)" },
	{ "bytes", PARAM_SIZE, "2GiB", "256MiB", NULL, NULL, 4096, 1LL << 40, 0,
	  "buffer size; keep it far above the last-level cache" },
	{ "mode", PARAM_ENUM, "steady", "burst", NULL, modes, 0, 0, 0,
	  "steady: sustained load until SM clock and power hold steady (telemetry; <= 10 s), then the timed calls; "
	  "burst: Triton's do_bench schedule as is (a GPU after an idle spell runs at boost clocks)" },
	{ "warmup", PARAM_DURATION, "30ms", NULL, NULL, NULL, 1, 0, 0, "burst mode's warm-up budget per case (do_bench schedule); steady mode warms up until steady instead" },
	{ "rep", PARAM_DURATION, "200ms", NULL, NULL, NULL, 1, 0, 0, "timed budget per case (do_bench schedule)" },
	{ NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL },
};

static int membw_plan(struct plan *out, const struct suite_cfg *cfg, const struct manifest *m)
{
	static const char *const lists[] = { "ops", NULL };
	const struct param_value *o = suite_cfg_get(cfg, "ops");
	long long bytes = suite_cfg_get(cfg, "bytes")->i;
	char size[32];

	(void)m;
	units_format_size(size, sizeof(size), (uint64_t)bytes);
	for (size_t i = 0; i < o->n; i++) {
		json_t *p = suite_params_json(cfg, lists);

		json_object_set_new(p, "op", json_string(o->sv[i]));
		plan_add(out, &suite_membw, xstrfmt("%s/%s", o->sv[i], size), p);
	}
	return 0;
}

const struct suite_ops suite_membw = {
	.name = "membw",
	.summary = "memory bandwidth in TB/s (bytes read + written / t), as Tensor.copy_ under do_bench",
	.program = "bench-membw",
	.metric = "tbps",
	.unit = "TB/s",
	.min_samples = 10,
	.peak = SUITE_PEAK_HBM,
	.params = membw_params,
	.check = NULL,
	.plan = membw_plan,
};
