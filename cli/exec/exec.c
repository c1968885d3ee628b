/* SPDX-License-Identifier: Apache-2.0 */
#include "exec.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "image/recipe.h"
#include "core/spawn.h"
#include "core/strbuf.h"

extern const struct engine_ops engine_host;
extern const struct engine_ops engine_podman;
extern const struct engine_ops engine_docker;
extern const struct engine_ops engine_apptainer;
extern const struct launcher_ops launcher_local;
extern const struct launcher_ops launcher_mpirun;
extern const struct launcher_ops launcher_slurm;

/* The registries: one line per engine / launcher. Names the manifest accepts but no line here implements
 * are refused by bench run with a clear message. */
const struct engine_ops *const engine_registry[] = { &engine_host, &engine_podman, &engine_docker, &engine_apptainer, NULL };
const struct launcher_ops *const launcher_registry[] = { &launcher_local, &launcher_mpirun, &launcher_slurm, NULL };

const struct engine_ops *engine_find(const char *name)
{
	for (size_t i = 0; engine_registry[i]; i++)
		if (!strcmp(engine_registry[i]->name, name))
			return engine_registry[i];
	return NULL;
}

const struct launcher_ops *launcher_find(const char *name)
{
	for (size_t i = 0; launcher_registry[i]; i++)
		if (!strcmp(launcher_registry[i]->name, name))
			return launcher_registry[i];
	return NULL;
}

int exec_resolve_runner(char **out_path, int *is_python, const char *program)
{
	const char *dir = getenv("BENCH_RUNNERS"), *data;
	size_t len = strlen(program);
	char *path;

	*out_path = NULL;
	*is_python = len > 3 && !strcmp(program + len - 3, ".py");
	if (*is_python || strchr(program, '/')) {
		if (!(data = fs_data_dir()))
			return BENCH_E_FAIL;
		path = xstrfmt("%s/%s", data, program);
	} else if (dir && *dir) {
		char *abs = fs_path_absolute(dir);

		path = xstrfmt("%s/%s", abs, program);
		free(abs);
	} else {
		const char *exe = fs_exe_dir();
		char *rel = exe ? xstrfmt("%s/../libexec/bench", exe) : NULL, libexec[PATH_MAX];
		int installed = rel && realpath(rel, libexec) != NULL;

		free(rel);
		if (!(data = fs_data_dir()))
			return BENCH_E_FAIL;
		path = xstrfmt("%s/build/runners/%s", data, program);
		/* make install puts them in PREFIX/libexec/bench, beside PREFIX/bin/bench */
		if (access(path, X_OK) != 0 && installed) {
			free(path);
			path = xstrfmt("%s/%s", libexec, program);
			if (access(path, X_OK) != 0) {
				int err = bench_error_set(BENCH_E_SUITE, "runner '%s' not found at %s (install it with "
							  "'make install')", program, path);

				free(path);
				return err;
			}
		}
	}
	if (access(path, *is_python ? R_OK : X_OK) != 0) {
		int err = bench_error_set(BENCH_E_SUITE, "runner '%s' not found at %s%s", program, path,
					  *is_python ? "" : " (build it with 'make runners')");

		free(path);
		return err;
	}
	*out_path = path;
	return 0;
}

const char *exec_python(void)
{
	static char chosen[512];
	const char *env = getenv("BENCH_PYTHON");
	static const char *const cands[] = { "python3", "/usr/bin/python3", NULL };

	if (chosen[0])
		return chosen;
	if (env && *env) { /* posix_spawn does not search PATH: keep an absolute path */
		char *path = spawn_which(env);

		snprintf(chosen, sizeof(chosen), "%s", path ? path : env);
		free(path);
		return chosen;
	}
	for (size_t i = 0; cands[i]; i++) {
		char *path = spawn_which(cands[i]), *out = NULL;
		/* found, not imported: importing torch costs seconds, and the runner imports it anyway */
		char *const argv[] = { path, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)",
				       NULL };
		size_t len;

		if (path && spawn_capture(&out, &len, argv, 4096, 120) == 0) {
			snprintf(chosen, sizeof(chosen), "%s", path);
			free(path);
			free(out);
			return chosen;
		}
		free(path);
		free(out);
	}
	{
		char *path = spawn_which("python3");

		snprintf(chosen, sizeof(chosen), "%s", path ? path : "python3");
		free(path);
	}
	return chosen;
}

char *exec_path_shared(const char *path)
{
	return path[0] != '/' && access(path, F_OK) == 0 ? fs_path_absolute(path) : xstrdup(path);
}

int exec_engine_failure(char *why, size_t whylen, const struct engine_ops *e, int exit_code, const char *log_path)
{
	char *buf = NULL, *line = NULL, *p;
	size_t len = 0;
	int own = 0;

	for (size_t i = 0; e && exit_code && i < sizeof(e->own_statuses) / sizeof(e->own_statuses[0]) && e->own_statuses[i]; i++)
		own |= e->own_statuses[i] == exit_code;
	if (!own)
		return 0;
	if (fs_read_file(&buf, &len, log_path, 64u << 20) == 0) {
		/* the last line that is not bench's own ("bench: running ..."), trailing blanks dropped */
		for (p = buf + len; p > buf && !line;) {
			char *end = p, *start;

			while (end > buf && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
				end--;
			for (start = end; start > buf && start[-1] != '\n'; start--)
				;
			*end = '\0';
			if (end > start && strncmp(start, "bench: ", 7))
				line = start;
			p = start;
		}
	}
	snprintf(why, whylen, "%s failed (status %d): %s", e->name, exit_code,
		 line ? line : "it wrote no error message (see the suite's log)");
	free(buf);
	return 1;
}

int container_runner_argv(struct strvec *out, const struct manifest *m, const char *program, const char *cases)
{
	size_t len = strlen(program);

	(void)m;
	if (len > 3 && !strcmp(program + len - 3, ".py")) {
		strvec_push(out, "python3");
		strvec_pushf(out, "/opt/bench/%s", program);
	} else if (strchr(program, '/')) {
		strvec_pushf(out, "/opt/bench/%s", program);
	} else {
		strvec_pushf(out, "/opt/bench/build/runners/%s", program);
	}
	strvec_push(out, "--config");
	{
		char *abs = exec_path_shared(cases); /* the image's working directory is not ours */

		strvec_push(out, abs);
		free(abs);
	}
	return 0;
}

int exec_vendor_run_flags(struct strvec *out, const struct manifest *m, const char *engine)
{
	char **fl = NULL;
	size_t n = 0;
	int err = recipe_run_flags(&fl, &n, m, engine);

	for (size_t i = 0; i < n; i++) {
		strvec_push(out, fl[i]);
		free(fl[i]);
	}
	free(fl);
	return err;
}

