/* engine_podman.c — engine podman, and the OCI implementation docker shares: build the recipe into a tagged
 * image, read its id, run the runners inside it with the run directory mounted at its own path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "../core/spawn.h"
#include "../core/strbuf.h"
#include "exec.h"

static char *which_engine(const struct engine_ops *e)
{
	char *p = spawn_which(e->name);

	if (!p)
		bench_error_set(BENCH_E_BUILD, "engine '%s' is not installed here ('%s' is not on PATH)", e->name, e->name);
	return p;
}

char *oci_image_ref(const struct engine_ops *e, const char *name, const char *lock_sha, const char *cache_dir)
{
	(void)e;
	(void)cache_dir;
	return xstrfmt("localhost/bench-%s:%.16s", name, lock_sha);
}

int oci_image_exists(const struct engine_ops *e, const char *image)
{
	char *prog = which_engine(e), *out = NULL;
	size_t len;
	int yes = 0;

	if (prog) {
		char *const argv[] = { prog, "image", "inspect", "--format", "{{.Id}}", (char *)image, NULL };

		yes = spawn_capture(&out, &len, argv, 4096, 60) == 0 && len > 0;
	}
	free(out);
	free(prog);
	return yes;
}

int oci_build(const struct engine_ops *e, const char *context, const char *recipe, const char *image, int log_fd,
	      volatile sig_atomic_t *stop)
{
	struct strvec av = STRVEC_INIT;
	char *prog = which_engine(e);
	int err;

	if (!prog)
		return BENCH_E_BUILD;
	strvec_push(&av, prog);
	strvec_push(&av, "build");
	/* the build's RUN steps fetch packages with the host's own network and resolver (proxies, cluster DNS) */
	strvec_push(&av, "--network=host");
	strvec_push(&av, "-f");
	strvec_push(&av, recipe);
	strvec_push(&av, "-t");
	strvec_push(&av, image);
	strvec_push(&av, context);
	err = exec_run_logged(strvec_argv(&av), log_fd, 0, stop);
	strvec_release(&av);
	free(prog);
	return err;
}

int oci_image_digest(char **out, const struct engine_ops *e, const char *image)
{
	char *prog = which_engine(e), *text = NULL;
	size_t len = 0;
	int err = 0;

	*out = NULL;
	if (!prog)
		return BENCH_E_BUILD;
	{
		char *const argv[] = { prog, "image", "inspect", "--format", "{{.Id}}", (char *)image, NULL };

		if (spawn_capture(&text, &len, argv, 4096, 60) < 0 || len < 64) {
			err = bench_error_set(BENCH_E_BUILD, "%s has no image '%s'", e->name, image);
			goto cleanup;
		}
	}
	text[strcspn(text, "\r\n")] = '\0';
	*out = strncmp(text, "sha256:", 7) ? xstrfmt("sha256:%s", text) : xstrdup(text);
cleanup:
	free(text);
	free(prog);
	return err;
}

int oci_exec_prefix(struct strvec *out, const struct engine_ops *e, const struct manifest *m, const char *image,
		    const char *run_dir)
{
	char *prog = which_engine(e);
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
	strvec_pushf(out, "%s:%s", run_dir, run_dir);
	for (size_t i = 0; i < m->stack.nenv; i++) {
		strvec_push(out, "-e");
		strvec_push(out, m->stack.env[i].name);
	}
	if ((err = exec_vendor_run_flags(out, m, e->name)) < 0)
		return err;
	strvec_push(out, image);
	return 0;
}

const struct engine_ops engine_podman = {
	.name = "podman",
	.runner_argv = container_runner_argv,
	.recipe_format = "containerfile",
	.image_ref = oci_image_ref,
	.image_exists = oci_image_exists,
	.build = oci_build,
	.image_digest = oci_image_digest,
	.exec_prefix = oci_exec_prefix,
};
