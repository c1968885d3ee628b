/* SPDX-License-Identifier: Apache-2.0 */
/* launcher_local.c — launcher local: everything on this machine. A suite that needs one process per rank
 * (collectives with backend mpi) is started with mpirun -np N here; everything else runs once. */
#include "exec.h"

extern const struct launcher_ops launcher_mpirun;

static int local_prefix(struct strvec *out, const struct manifest *m, long long ranks)
{
	if (ranks <= 1)
		return 0;
	return launcher_mpirun.prefix_argv(out, m, ranks);
}

const struct launcher_ops launcher_local = {
	.name = "local",
	.prefix_argv = local_prefix,
};
