/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gemm_native.c — a native GEMM plug-in's case (docs/plugins.md, runners/gemm/plugin.h): the shared object is loaded
 * and measured in a child process (fork, no exec: the child runs this runner's own host path), which writes its record
 * to a pipe. A crash, a hang past the plug-in's timeout (the child is killed) or a library that does not load fails
 * that case alone; bench-gemm goes on with the next.
 */
#define _GNU_SOURCE /* strsignal */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/record.h"
#include "gemm.h"
#include "plugin.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child: load, run, write the record to fd. Never returns. */
static void child(int fd, json_t *rec, const struct gemm_problem *p, const char *name, const char *path)
{
#ifndef BENCH_CBLAS
	(void)p; /* the problem goes to the host path only */
#endif
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*entry)(const struct bench_gemm_args *) = NULL;
	const char *(*why)(void) = NULL;
	char *s;

	if (!h) {
		record_set_status(rec, "failed", "plug-in '%s' does not load: %s", name, dlerror());
	} else {
		*(void **)&entry = dlsym(h, "bench_gemm_plugin");
		*(void **)&why = dlsym(h, "bench_gemm_plugin_error");
		if (!entry)
			record_set_status(rec, "failed", "plug-in '%s' does not load: %s has no symbol bench_gemm_plugin "
					  "(runners/gemm/plugin.h)", name, path);
		else
#ifdef BENCH_CBLAS
			gemm_cblas_run_plugin(rec, p, name, entry, why);
#else
			record_set_status(rec, "skipped", "this bench-gemm was built without its host path (no CBLAS at "
					  "'make runners' time), where native plug-ins run");
#endif
	}
	s = record_dumps(rec);
	for (size_t off = 0, len = s ? strlen(s) : 0; off < len;) {
		ssize_t w = write(fd, s + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	_exit(0);
}

void gemm_native_run(json_t **recp, const struct gemm_problem *p, json_t *plugin, const char *inputs, const char *sha256)
{
	json_t *rec = *recp, *info;
	const char *name = json_string_value(json_object_get(plugin, "name"));
	const char *rel = json_string_value(json_object_get(plugin, "path"));
	double timeout = json_number_value(json_object_get(plugin, "timeout_s"));
	char *path = NULL, *buf = NULL;
	size_t len = 0, cap = 0;
	int fds[2] = { -1, -1 }, status = 0, timed_out = 0;
	double deadline;
	pid_t pid;

	name = name ? name : "?";
	if (!(timeout > 0))
		timeout = 600;
	if (!rel) {
		record_set_status(rec, "failed", "plug-in '%s' names no library", name);
		return;
	}
	if (asprintf(&path, "%s/%s", inputs && *inputs ? inputs : ".", rel) < 0) {
		record_set_status(rec, "failed", "out of memory");
		return;
	}
	info = json_pack("{s:s, s:s, s:s, s:s}", "name", name, "kind", "native", "path", rel, "file", path);
	if (sha256)
		json_object_set_new(info, "sha256", json_string(sha256));
	record_add_extra(rec, "plugin", info);
	fflush(stdout);
	fflush(stderr);
	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		record_set_status(rec, "failed", "cannot start the plug-in's process: %s", strerror(errno));
		goto cleanup;
	}
	if (pid == 0) {
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
}
