/*
 * exec.h — engines and launchers as plug-ins (DESIGN.md §2, §7). An engine turns a runner program into the
 * argv that runs it (on the host, or inside the stack's image); a launcher prefixes it for multi-rank suites
 * (mpirun, srun). One ops struct per file, one line in the registry arrays in exec.c.
 *
 * Ownership: ops are static constants; argv vectors built here are owned by the caller's struct strvec and
 * freed with strvec_release().
 */
#ifndef BENCH_EXEC_H
#define BENCH_EXEC_H

#include <stddef.h>

#include "../manifest/manifest.h"

struct strvec {
	char **v;
	size_t n, alloc;
};

#define STRVEC_INIT { NULL, 0, 0 }

void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...) BENCH_PRINTF(2, 3);
void strvec_release(struct strvec *sv);
/* The vector as a NULL-terminated array (valid until the next push or release). */
char *const *strvec_argv(struct strvec *sv);

struct engine_ops {
	const char *name;
	/* Appends the argv that runs `program` with `--config cases` to out. Returns 0 or a negative code with the
	 * error set (a runner that cannot be found, an engine that cannot run here). */
	int (*runner_argv)(struct strvec *out, const struct manifest *m, const char *program, const char *cases);
};

struct launcher_ops {
	const char *name;
	/* Appends the prefix that starts `ranks` processes (nothing for local). */
	int (*prefix_argv)(struct strvec *out, const struct manifest *m, long long ranks);
};

extern const struct engine_ops *const engine_registry[];
extern const struct launcher_ops *const launcher_registry[];
const struct engine_ops *engine_find(const char *name);
const struct launcher_ops *launcher_find(const char *name);

/* Where engine host finds runner executables: $BENCH_RUNNERS, else <data dir>/build/runners. Python runners
 * (paths ending in .py) are resolved against the data dir and run with $BENCH_PYTHON (default python3). */
int exec_resolve_runner(char **out_path, int *is_python, const char *program);
/* The interpreter for Python runners: $BENCH_PYTHON, else the first of `python3` on PATH and /usr/bin/python3
 * that can import torch, else `python3`. Static string, decided once per process. */
const char *exec_python(void);

#endif
