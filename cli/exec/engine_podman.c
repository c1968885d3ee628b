/* SPDX-License-Identifier: Apache-2.0 */
/* engine_podman.c — engine podman, and the OCI run side docker shares: the runners inside the stack's image
 * (built by cli/image/builder_podman.c) with the run directory mounted at its own path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "exec.h"

int oci_exec_prefix(struct strvec *out, const struct engine_ops *e, const struct manifest *m, const char *image,
		    const char *run_dir)
{
	char *prog = spawn_which_required(e->name, "engine", BENCH_E_SUITE), *abs;
	int err;

	if (!prog)
		return BENCH_E_SUITE;
	strvec_push(out, prog);
	free(prog);
	strvec_push(out, "run");
	strvec_push(out, "--rm");
	strvec_push(out, "--network=host"); /* multi-rank suites talk over the host's interfaces */
	strvec_push(out, "--ipc=host");     /* and share memory: NCCL, MPI shared-memory transports */
	strvec_push(out, "-v");
	abs = exec_path_shared(run_dir); /* the engine wants an absolute path on both sides */
	strvec_pushf(out, "%s:%s", abs, abs);
	free(abs);
	for (size_t i = 0; i < m->stack.nenv; i++) {
		strvec_push(out, "-e");
		strvec_push(out, m->stack.env[i].name);
	}
	if ((err = exec_vendor_run_flags(out, m, e->name)) < 0)
		return err;
	strvec_push(out, image);
	return 0;
}

extern const struct builder_ops builder_podman;

const struct engine_ops engine_podman = {
	.name = "podman",
	.runner_argv = container_runner_argv,
	.builder = &builder_podman,
	.exec_prefix = oci_exec_prefix,
	.own_statuses = { 125, 126, 127 },
};
