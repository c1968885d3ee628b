/* launcher_local.c — launcher local: the runner is started once on this machine (it drives every local GPU). */
#include "exec.h"

static int local_prefix(struct strvec *out, const struct manifest *m, long long ranks)
{
	(void)out;
	(void)m;
	(void)ranks;
	return 0;
}

const struct launcher_ops launcher_local = {
	.name = "local",
	.prefix_argv = local_prefix,
};
