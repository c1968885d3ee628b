#include "exec.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/fs.h"
#include "../core/spawn.h"
#include "../core/strbuf.h"

extern const struct engine_ops engine_host;
extern const struct launcher_ops launcher_local;
extern const struct launcher_ops launcher_mpirun;

/* The registries: one line per engine / launcher. Names the manifest accepts but no line here implements
 * are refused by bench run with a clear message. */
const struct engine_ops *const engine_registry[] = { &engine_host, NULL };
const struct launcher_ops *const launcher_registry[] = { &launcher_local, &launcher_mpirun, NULL };

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

void strvec_push(struct strvec *sv, const char *s)
{
	ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = strbuf_detach(&sb);
	sv->v[sv->n] = NULL;
}

void strvec_release(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

char *const *strvec_argv(struct strvec *sv)
{
	if (!sv->v) {
		ALLOC_GROW(sv->v, 1, sv->alloc);
		sv->v[0] = NULL;
	}
	return sv->v;
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
		path = xstrfmt("%s/%s", dir, program);
	} else {
		if (!(data = fs_data_dir()))
			return BENCH_E_FAIL;
		path = xstrfmt("%s/build/runners/%s", data, program);
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
		char *const argv[] = { path, "-c", "import torch", NULL };
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
