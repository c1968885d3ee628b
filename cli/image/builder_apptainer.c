/* SPDX-License-Identifier: Apache-2.0 */
/* builder_apptainer.c — builder apptainer: the recipe as a definition file built into a SIF under the cache
 * ($BENCH_HOME/cache/sif/, named by the build context's digest), its sha256 the image id. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "builder.h"

static char *ap_ref(const struct builder_ops *b, const char *name, const char *context_sha, const char *cache_dir)
{
	(void)b;
	return xstrfmt("%s/sif/bench-%s-%.16s.sif", cache_dir, name, context_sha);
}

static int ap_build(const struct builder_ops *b, const char *context, const char *recipe, const char *image, int log_fd,
		    FILE *progress, volatile sig_atomic_t *stop)
{
	struct strvec av = STRVEC_INIT;
	char *prog = spawn_which_required(b->name, "engine", BENCH_E_BUILD), *dir = xstrdup(image), *cwd = getcwd(NULL, 0);
	int err;

	if (!prog) {
		err = BENCH_E_BUILD;
		goto cleanup;
	}
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	if ((err = fs_mkdir_p(dir)) < 0)
		goto cleanup;
	strvec_push(&av, prog);
	strvec_push(&av, "build");
	strvec_push(&av, "--force");
	strvec_push(&av, image);
	strvec_push(&av, recipe);
	/* %files sources are relative to the context: build from there */
	if (chdir(context) < 0) {
		err = bench_error_set(BENCH_E_BUILD, "cannot enter the build context '%s': %s", context, strerror(errno));
		goto cleanup;
	}
	err = builder_run(b, strvec_argv(&av), log_fd, progress, stop);
	if (cwd && chdir(cwd) < 0 && err == 0)
		err = bench_error_set(BENCH_E_IO, "cannot return to '%s': %s", cwd, strerror(errno));
cleanup:
	strvec_release(&av);
	free(prog);
	free(dir);
	free(cwd);
	return err;
}

static int ap_digest(char **out, const struct builder_ops *b, const char *image)
{
	char hex[65];
	int err;

	(void)b;
	*out = NULL;
	if ((err = fs_sha256_file(hex, image)) < 0)
		return bench_error_set(BENCH_E_BUILD, "no image at '%s': %s", image, bench_error_last());
	*out = xstrfmt("sha256:%s", hex);
	return 0;
}

/* apptainer's stages: "INFO:    Starting build...", "INFO:    Running post scriptlet", "INFO:    Creating SIF
 * file..." (the %post commands' own output stays in the log) */
static int ap_step_line(const char *line, size_t len)
{
	return len > 5 && !strncmp(line, "INFO:", 5);
}

const struct builder_ops builder_apptainer = {
	.name = "apptainer",
	.recipe_format = "apptainer",
	.image_ref = ap_ref,
	.build = ap_build,
	.image_digest = ap_digest,
	.step_line = ap_step_line,
};
