/* SPDX-License-Identifier: Apache-2.0 */
/* engine_host.c — engine host: run the runners built by `make runners` on this machine's own stack. */
#include <stdlib.h>

#include "core/strbuf.h"
#include "exec.h"

static int host_runner_argv(struct strvec *out, const struct manifest *m, const char *program, const char *cases)
{
	char *path = NULL;
	int is_py, err;

	(void)m;
	if ((err = exec_resolve_runner(&path, &is_py, program)) < 0)
		return err;
	if (is_py)
		strvec_push(out, exec_python());
	strvec_push(out, path);
	strvec_push(out, "--config");
	free(path);
	path = exec_path_shared(cases); /* a batch job's task starts in the run directory, not here */
	strvec_push(out, path);
	free(path);
	return 0;
}

const struct engine_ops engine_host = {
	.name = "host",
	.runner_argv = host_runner_argv,
};
