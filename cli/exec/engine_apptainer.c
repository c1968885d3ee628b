/* SPDX-License-Identifier: Apache-2.0 */
/* engine_apptainer.c — engine apptainer: the runners started with `apptainer exec` in the stack's SIF (built by
 * cli/image/builder_apptainer.c), the run directory bound at its own path. */
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "exec.h"

static int ap_exec_prefix(struct strvec *out, const struct engine_ops *e, const struct manifest *m, const char *image,
			  const char *run_dir)
{
	char *prog = spawn_which_required(e->name, "engine", BENCH_E_SUITE), *abs;
	int err;

	if (!prog)
		return BENCH_E_SUITE;
	strvec_push(out, prog);
	free(prog);
	strvec_push(out, "exec");
	strvec_push(out, "--bind");
	abs = exec_path_shared(run_dir); /* the engine wants an absolute path on both sides */
	strvec_pushf(out, "%s:%s", abs, abs);
	free(abs);
	if ((err = exec_vendor_run_flags(out, m, e->name)) < 0)
		return err;
	strvec_push(out, image);
	return 0;
}

extern const struct builder_ops builder_apptainer;

const struct engine_ops engine_apptainer = {
	.name = "apptainer",
	.runner_argv = container_runner_argv,
	.builder = &builder_apptainer,
	.exec_prefix = ap_exec_prefix,
};
