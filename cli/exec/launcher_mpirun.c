/* SPDX-License-Identifier: Apache-2.0 */
/* launcher_mpirun.c — launcher mpirun: one rank per GPU (per core slot on cpu) through Open MPI's mpirun. */
#include <stdlib.h>
#include <unistd.h>

#include "core/spawn.h"
#include "core/strbuf.h"
#include "exec.h"

static int mpirun_prefix(struct strvec *out, const struct manifest *m, long long ranks)
{
	/* inside a container the image's own mpirun (the recipe installs openmpi-bin); on the host, PATH's */
	char *mpirun = m->runtime.engine != ENGINE_HOST ? xstrdup("mpirun")
							: spawn_which(getenv("BENCH_MPIRUN") ? getenv("BENCH_MPIRUN") : "mpirun");

	if (!mpirun)
		return bench_error_set(BENCH_E_SUITE, "launcher 'mpirun' needs mpirun on PATH (or BENCH_MPIRUN)");
	strvec_push(out, mpirun);
	free(mpirun);
	strvec_push(out, "-np");
	strvec_pushf(out, "%lld", ranks);
	if (geteuid() == 0)
		strvec_push(out, "--allow-run-as-root");
	if (m->target.vendor == VENDOR_CPU)
		strvec_push(out, "--oversubscribe");
	/* NCCL/torch variables set in the manifest reach every rank */
	for (size_t i = 0; i < m->stack.nenv; i++) {
		strvec_push(out, "-x");
		strvec_push(out, m->stack.env[i].name);
	}
	return 0;
}

const struct launcher_ops launcher_mpirun = {
	.name = "mpirun",
	.prefix_argv = mpirun_prefix,
};
