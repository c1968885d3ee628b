/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec.h — engines and launchers as plug-ins (docs/architecture.md, docs/stacks.md). An engine turns a runner
 * program into the argv that runs it (on the host, or inside the stack's image); a launcher prefixes it for
 * multi-rank suites (mpirun, srun). One ops struct per file, one line in the registry arrays in exec.c.
 *
 * Ownership: ops are static constants; argv vectors built here are owned by the caller's struct strvec and
 * freed with strvec_release().
 */
#ifndef BENCH_EXEC_H
#define BENCH_EXEC_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "core/strvec.h"
#include "image/builder.h"
#include "manifest/manifest.h"

struct engine_ops {
	const char *name;
	/* Appends the argv that runs `program` with `--config cases` to out. Returns 0 or a negative code with the
	 * error set (a runner that cannot be found, an engine that cannot run here). */
	int (*runner_argv)(struct strvec *out, const struct manifest *m, const char *program, const char *cases);
	/* Container engines only (NULL for host): the builder that makes their images (cli/image/builder.h). */
	const struct builder_ops *builder;
	/* Appends the argv that runs a command inside image: the run directory mounted at its own path, the
	 * vendor's GPU flags (images/bases/<vendor>.yaml run_flags), host IPC. */
	int (*exec_prefix)(struct strvec *out, const struct engine_ops *e, const struct manifest *m, const char *image,
			   const char *run_dir);
	/* Container engines: the exit statuses that are the engine's own failure, not the runner's (podman and
	 * docker: 125 the engine failed, 126 the command cannot be invoked, 127 not found); 0-terminated. */
	int own_statuses[4];
};

/* A runner started through engine e that exited with one of e's own statuses: writes "<engine> failed (status
 * N): <its last error line>" into why (the last line of log_path, the runner's stderr, that is not bench's own)
 * and returns 1; else returns 0 and leaves why alone. */
int exec_engine_failure(char *why, size_t whylen, const struct engine_ops *e, int exit_code, const char *log_path);

/* A path of the run as a process with another working directory must be given it (a container's mount and
 * its runner's --config, a batch job after its cd): absolute against bench's working directory when it is
 * relative and names something that exists here; else as given (--dry-run's RUN_DIR placeholders). The run
 * directory's name shown to the user stays as the user gave it. Caller frees. */
char *exec_path_shared(const char *path);

/* The shared run side of the OCI engines (podman, docker): engine_podman.c. */
int oci_exec_prefix(struct strvec *out, const struct engine_ops *e, const struct manifest *m, const char *image,
		    const char *run_dir);
/* Runner paths inside an image built by bench's recipe (/opt/bench). */
int container_runner_argv(struct strvec *out, const struct manifest *m, const char *program, const char *cases);
/* The vendor's run flags for engine name from images/bases/<vendor>.yaml, appended to out. */
int exec_vendor_run_flags(struct strvec *out, const struct manifest *m, const char *engine);

/* A suite's runner as a batch job (launcher slurm): argv is what each task runs (the runner, inside the image
 * for container engines); records come back through on_line as the job writes them. */
struct batch_job {
	const char *run_dir;
	const char *tag;             /* names the files: RUN_DIR/slurm/<tag>.sbatch, <tag>-rank<N>.out, ... */
	char *const *argv;
	char *const *envp;           /* the runner's environment (ours plus stack.env); sbatch exports it to the job */
	long long ranks;             /* 1: one task on one node; else nodes x gpus_per_node tasks */
	int per_node;                /* the runner starts its own ranks: one task per node, every GPU of the node */
	const char *image;           /* container engines: the image (tag or SIF); NULL for host */
	double timeout_s;
	volatile sig_atomic_t *stop;
	int (*on_line)(void *ctx, const char *line, size_t len);
	void (*on_idle)(void *ctx);  /* NULL, or called with ctx after each look for new lines (deferred work) */
	void *ctx;
	FILE *log;                   /* the suite's log: submission, job states, the ranks' stderr */
	FILE *progress;              /* job state changes for the user (NULL: quiet) */
};

struct spawn_result;
struct strbuf;

struct launcher_ops {
	const char *name;
	/* Appends the prefix that starts `ranks` processes (nothing for local). */
	int (*prefix_argv)(struct strvec *out, const struct manifest *m, long long ranks);
	/* Batch launchers only: submits the job and follows it to its end. res describes the end as for a local
	 * process (EXITED with the job's exit code, TIMEOUT, STOPPED, SIGNALED for a job the scheduler ended);
	 * why gets the scheduler's reason when there is one. Returns 0, or a negative code when the job could not
	 * be submitted (the error says why: sbatch's own message). */
	int (*run_batch)(struct spawn_result *res, char *why, size_t whylen, const struct manifest *m,
			 const struct batch_job *job);
	/* Batch launchers only: the job script run_batch submits, appended to out (for --dry-run). */
	int (*batch_script)(struct strbuf *out, const struct manifest *m, const struct batch_job *job);
};

extern const struct engine_ops *const engine_registry[];
extern const struct launcher_ops *const launcher_registry[];
const struct engine_ops *engine_find(const char *name);
const struct launcher_ops *launcher_find(const char *name);

/* Where engine host finds runner executables: $BENCH_RUNNERS, else <data dir>/build/runners (a source tree),
 * else <exe>/../libexec/bench (make install). Python runners
 * (paths ending in .py) are resolved against the data dir and run with $BENCH_PYTHON (default python3). */
int exec_resolve_runner(char **out_path, int *is_python, const char *program);
/* The interpreter for Python runners: $BENCH_PYTHON, else the first of `python3` on PATH and /usr/bin/python3
 * that can import torch, else `python3`. Static string, decided once per process. */
const char *exec_python(void);

#endif
