/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemm_native.c — a native GEMM plug-in's case (docs/plugins.md, runners/gemm/plugin.h): the shared object is loaded
 * and measured in a child process, which writes its record to a pipe. On the host path the child is a fork (no exec)
 * that runs this runner's own host path; on the GPU path it is bench-gemm executed afresh (/proc/self/exe) on a cases
 * file of that one case, since a CUDA/HIP context does not survive a fork and the parent may hold one (its blaslt
 * cases); the child measures on the blaslt backend's buffers and stream. A crash, a hang past the plug-in's timeout
 * (the child is killed) or a library that does not load fails that case alone; bench-gemm goes on with the next.
 */
#define _GNU_SOURCE /* strsignal */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/record.h"
#include "gemm.h"
#include "plugin.h"

extern char **environ;

struct gemm_plugin_call gemm_plug;

int gemm_plugin_call(void *ctx)
{
	int rc;

	(void)ctx;
	rc = gemm_plug.entry(&gemm_plug.args);
	if (rc && !gemm_plug.rc)
		gemm_plug.rc = rc;
	return rc ? -1 : 0;
}

void gemm_plugin_args_init(struct bench_gemm_args *args, const struct gemm_problem *p, int device, int dtype,
			   int c_dtype, const void *a, const void *b, void *c)
{
	memset(args, 0, sizeof(*args));
	args->abi = BENCH_GEMM_PLUGIN_ABI;
	args->device = device;
	args->dtype = dtype;
	args->c_dtype = c_dtype;
	args->layout = p->tn ? BENCH_GEMM_TN : BENCH_GEMM_NN;
	args->m = p->m;
	args->n = p->n;
	args->k = p->k;
	args->a = a;
	args->b = b;
	args->c = c;
	args->lda = p->k;
	args->ldb = p->tn ? p->k : p->n;
	args->ldc = p->n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Loads the plug-in at path and measures it into rec: on the host path (gpu 0) or the GPU path. */
static void run_loaded(json_t *rec, const struct gemm_problem *p, const char *name, const char *path, int gpu)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*entry)(const struct bench_gemm_args *) = NULL;
	const char *(*why)(void) = NULL;

	(void)p;
	(void)gpu;
	if (!h) {
		record_set_status(rec, "failed", "plug-in '%s' does not load: %s", name, dlerror());
		return;
	}
	*(void **)&entry = dlsym(h, "bench_gemm_plugin");
	*(void **)&why = dlsym(h, "bench_gemm_plugin_error");
	if (!entry) {
		record_set_status(rec, "failed", "plug-in '%s' does not load: %s has no symbol bench_gemm_plugin "
				  "(runners/gemm/plugin.h)", name, path);
		return;
	}
	if (gpu) {
#ifdef BENCH_GPU_GEMM
		char msg[512];
		json_t *info = gemm_blaslt_info(msg, sizeof(msg));

		if (!info) {
			record_set_status(rec, "failed", "%s", msg);
			return;
		}
		record_add_extra(rec, "device", info);
		gemm_blaslt_run_plugin(rec, p, name, entry, why);
#endif
		return;
	}
#ifdef BENCH_CBLAS
	gemm_cblas_run_plugin(rec, p, name, entry, why);
#else
	record_set_status(rec, "skipped", "this bench-gemm was built without its host path (no CBLAS at 'make runners' "
			  "time), where native plug-ins run");
#endif
}

static void write_record(int fd, json_t *rec)
{
	char *s = record_dumps(rec);

	for (size_t off = 0, len = s ? strlen(s) : 0; off < len;) {
		ssize_t w = write(fd, s + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(s);
}

/* The host path's child: load, run, write the record to fd. Never returns. */
static void child(int fd, json_t *rec, const struct gemm_problem *p, const char *name, const char *path)
{
	run_loaded(rec, p, name, path, 0);
	write_record(fd, rec);
	_exit(0);
}

/* The plug-in's library path (the copy under the run's inputs/) and its extra.plugin; NULL with rec failed. */
static char *plugin_path(json_t *rec, json_t *root, json_t *params, const char **namep)
{
	json_t *plugin = json_object_get(params, "plugin"), *info;
	const char *name = json_string_value(json_object_get(plugin, "name"));
	const char *rel = json_string_value(json_object_get(plugin, "path"));
	const char *inputs = json_string_value(json_object_get(root, "inputs"));
	const char *sha256;
	char *path = NULL;

	name = name ? name : "?";
	*namep = name;
	sha256 = json_string_value(json_object_get(json_object_get(root, "plugin_sha256"), name));
	if (!rel) {
		record_set_status(rec, "failed", "plug-in '%s' names no library", name);
		return NULL;
	}
	if (asprintf(&path, "%s/%s", inputs && *inputs ? inputs : ".", rel) < 0) {
		record_set_status(rec, "failed", "out of memory");
		return NULL;
	}
	info = json_pack("{s:s, s:s, s:s, s:s}", "name", name, "kind", "native", "path", rel, "file", path);
	if (sha256)
		json_object_set_new(info, "sha256", json_string(sha256));
	if (!strcmp(param_str(params, "plugin_device", "host"), "gpu"))
		json_object_set_new(info, "device", json_string("gpu"));
	record_add_extra(rec, "plugin", info);
	return path;
}

void gemm_native_run_here(json_t *rec, const struct gemm_problem *p, json_t *root, json_t *params)
{
	const char *name;
	char *path = plugin_path(rec, root, params, &name);
	int out;

	/* the record goes to the parent on our stdout; whatever the plug-in prints goes to stderr */
	fflush(stdout);
	out = dup(1);
	(void)dup2(2, 1);
	if (path)
		run_loaded(rec, p, name, path, 1);
	write_record(out >= 0 ? out : 2, rec);
	if (out >= 0)
		close(out);
	free(path);
}

#ifdef BENCH_GPU_GEMM
/* Starts this program afresh on a cases file of the one case (root's other keys kept, "native_child" set), its
 * stdout on fd; *tmp: the file, for the caller to remove. */
static int spawn_self(pid_t *pid, char **tmp, int fd, int rfd, json_t *root, const char *key, json_t *params)
{
	const char *dir = getenv("TMPDIR");
	json_t *cfg = json_deep_copy(root);
	posix_spawn_file_actions_t fa;
	char *argv[4] = { "bench-gemm", "--config", NULL, NULL };
	FILE *f = NULL;
	int tfd, err;

	if (asprintf(tmp, "%s/bench-gemm-native-XXXXXX", dir && *dir ? dir : "/tmp") < 0) {
		*tmp = NULL;
		json_decref(cfg);
		return ENOMEM;
	}
	json_object_set_new(cfg, "cases", json_pack("[{s:s, s:s, s:O}]", "suite", "gemm", "case", key, "params", params));
	json_object_set_new(cfg, "native_child", json_true());
	errno = 0;
	if ((tfd = mkstemp(*tmp)) >= 0 && !(f = fdopen(tfd, "w")))
		close(tfd);
	err = !f ? (errno ? errno : EIO) : 0;
	if (f && json_dumpf(cfg, f, JSON_COMPACT) != 0)
		err = EIO;
	if (f && fclose(f) != 0 && !err)
		err = errno ? errno : EIO;
	json_decref(cfg);
	if (err)
		return err;
	argv[2] = *tmp;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_addclose(&fa, fd);
	posix_spawn_file_actions_addclose(&fa, rfd);
	err = posix_spawn(pid, "/proc/self/exe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return err;
}
#endif

void gemm_native_run(json_t **recp, const struct gemm_problem *p, json_t *root, const char *key, json_t *params)
{
	json_t *rec = *recp;
	json_t *plugin = json_object_get(params, "plugin");
	double timeout = json_number_value(json_object_get(plugin, "timeout_s"));
	int gpu = !strcmp(param_str(params, "plugin_device", "host"), "gpu");
	char *path, *buf = NULL, *tmp = NULL;
	const char *name;
	size_t len = 0, cap = 0;
	int fds[2] = { -1, -1 }, status = 0, timed_out = 0;
	double deadline;
	pid_t pid = -1;

	(void)key;
	if (!(timeout > 0))
		timeout = 600;
	if (!(path = plugin_path(rec, root, params, &name)))
		return;
#ifndef BENCH_GPU_GEMM
	if (gpu) {
		record_set_status(rec, "skipped", "this bench-gemm was built without a GPU toolkit (no nvcc or hipcc at "
				  "'make runners' time), where native plug-ins of a GPU target run");
		goto cleanup;
	}
#endif
	fflush(stdout);
	fflush(stderr);
	if (pipe(fds) < 0) {
		record_set_status(rec, "failed", "cannot start the plug-in's process: %s", strerror(errno));
		goto cleanup;
	}
#ifdef BENCH_GPU_GEMM
	if (gpu) {
		int err = spawn_self(&pid, &tmp, fds[1], fds[0], root, key, params);

		if (err) {
			record_set_status(rec, "failed", "cannot start the plug-in's process: %s", strerror(err));
			goto cleanup;
		}
	}
#endif
	if (!gpu && (pid = fork()) < 0) {
		record_set_status(rec, "failed", "cannot start the plug-in's process: %s", strerror(errno));
		goto cleanup;
	}
	if (!gpu && pid == 0) {
		close(fds[0]);
		child(fds[1], rec, p, name, path);
	}
	close(fds[1]);
	fds[1] = -1;
	deadline = now_s() + timeout;
	for (;;) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		double left = deadline - now_s();
		int n;

		if (left <= 0) {
			timed_out = 1;
			kill(pid, SIGKILL);
			break;
		}
		n = poll(&pfd, 1, left > 1 ? 1000 : (int)(left * 1000) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			ssize_t r;

			if (len + 65536 + 1 > cap) {
				cap = (len + 65536 + 1) * 2;
				buf = realloc(buf, cap);
				if (!buf) {
					kill(pid, SIGKILL);
					break;
				}
			}
			r = read(fds[0], buf + len, 65536);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break; /* the child closed the pipe: done, or died */
			len += (size_t)r;
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out) {
		record_set_status(rec, "failed", "plug-in '%s' did not finish within %gs (its timeout); its process was killed",
				  name, timeout);
	} else if (WIFSIGNALED(status)) {
		record_set_status(rec, "failed", "plug-in '%s' crashed: signal %d (%s)", name, WTERMSIG(status),
				  strsignal(WTERMSIG(status)));
	} else if (!buf || !len) {
		record_set_status(rec, "failed", "plug-in '%s': its process ended (status %d) without a record", name,
				  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	} else {
		json_t *got;

		buf[len] = '\0';
		if ((got = json_loads(buf, 0, NULL))) {
			json_decref(rec);
			*recp = got;
		} else {
			record_set_status(rec, "failed", "plug-in '%s': its process wrote no readable record", name);
		}
	}
cleanup:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(buf);
	free(path);
	if (tmp) {
		(void)unlink(tmp);
		free(tmp);
	}
}
