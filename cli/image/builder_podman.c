/* SPDX-License-Identifier: Apache-2.0 */
/* builder_podman.c — builder podman, and the OCI implementation docker shares: build the recipe into an image
 * tagged by the build context's digest, read the image's id (which also says whether that tag exists). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "builder.h"

char *oci_image_ref(const struct builder_ops *b, const char *name, const char *context_sha, const char *cache_dir)
{
	(void)b;
	(void)cache_dir;
	return xstrfmt("localhost/bench-%s:%.16s", name, context_sha);
}

int oci_build(const struct builder_ops *b, const char *context, const char *recipe, const char *image, int log_fd,
	      FILE *progress, volatile sig_atomic_t *stop)
{
	struct strvec av = STRVEC_INIT;
	char *prog = spawn_which_required(b->name, "engine", BENCH_E_BUILD);
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
	err = builder_run(b, strvec_argv(&av), log_fd, progress, stop);
	strvec_release(&av);
	free(prog);
	return err;
}

int oci_image_digest(char **out, const struct builder_ops *b, const char *image)
{
	char *prog = spawn_which_required(b->name, "engine", BENCH_E_BUILD), *text = NULL;
	size_t len = 0;
	int err = 0;

	*out = NULL;
	if (!prog)
		return BENCH_E_BUILD;
	{
		char *const argv[] = { prog, "image", "inspect", "--format", "{{.Id}}", (char *)image, NULL };

		if (spawn_capture(&text, &len, argv, 4096, 60) < 0 || len < 64) {
			err = bench_error_set(BENCH_E_BUILD, "%s has no image '%s'", b->name, image);
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

/* buildah's steps: "STEP 3/13: RUN ...", in a multi-stage build "[2/3] STEP 1/6: FROM ..." */
static int podman_step_line(const char *line, size_t len)
{
	if (len > 1 && line[0] == '[') {
		const char *close = memchr(line, ']', len);

		if (!close || (size_t)(close - line) + 2 > len)
			return 0;
		len -= (size_t)(close - line) + 2;
		line = close + 2;
	}
	return len > 5 && !strncmp(line, "STEP ", 5);
}

const struct builder_ops builder_podman = {
	.name = "podman",
	.recipe_format = "containerfile",
	.image_ref = oci_image_ref,
	.build = oci_build,
	.image_digest = oci_image_digest,
	.step_line = podman_step_line,
};
