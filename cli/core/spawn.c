/* SPDX-License-Identifier: Apache-2.0 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "strbuf.h"

extern char **environ;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *spawn_which(const char *name)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		strbuf_reset(&sb);
		strbuf_add(&sb, path, n);
		strbuf_addf(&sb, "/%s", name);
		if (access(sb.buf, X_OK) == 0)
			return strbuf_detach(&sb);
		path += n + (path[n] == ':');
	}
	strbuf_release(&sb);
	return NULL;
}

/* Ends the group: SIGTERM, a grace period, then SIGKILL; reaps the child. */
static void end_group(pid_t pid, int *status)
{
	double until = now_s() + 3.0;

	kill(-pid, SIGTERM);
	while (now_s() < until) {
		if (waitpid(pid, status, WNOHANG) == pid) {
			kill(-pid, SIGKILL); /* grandchildren that ignored TERM */
			return;
		}
		usleep(20000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, status, 0);
}

/* Writes all of p (n bytes) to fd; gives up at the first error (a full disk must not stop the run). */
static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* A child's stderr kept to its head (written as it comes) and its tail (a ring held in memory until the end). */
struct errcap {
	int fd;
	size_t head, tail, written;
	char *ring, last;
	size_t start, len;
	unsigned long long cut;
};

static void errcap_add(struct errcap *e, const char *p, size_t n)
{
	if (e->written < e->head) {
		size_t k = n < e->head - e->written ? n : e->head - e->written;

		write_all(e->fd, p, k);
		e->written += k;
		e->last = p[k - 1];
		p += k;
		n -= k;
	}
	if (n == 0)
		return;
	if (e->tail == 0) {
		e->cut += n;
		return;
	}
	if (!e->ring)
		e->ring = xmalloc(e->tail);
	if (n >= e->tail) { /* this read alone fills the ring: keep its last bytes */
		e->cut += e->len + (n - e->tail);
		memcpy(e->ring, p + (n - e->tail), e->tail);
		e->start = 0;
		e->len = e->tail;
		return;
	}
	for (size_t done = 0; done < n;) {
		size_t w = (e->start + e->len) % e->tail, k = e->tail - w;

		if (k > n - done)
			k = n - done;
		memcpy(e->ring + w, p + done, k);
		done += k;
		e->len += k;
		if (e->len > e->tail) {
			e->cut += e->len - e->tail;
			e->start = (e->start + e->len - e->tail) % e->tail;
			e->len = e->tail;
		}
	}
}

/* Writes what was held back: the cut line (when anything was left out), then the tail. */
static void errcap_finish(struct errcap *e)
{
	if (e->cut) {
		char msg[256];
		int k = snprintf(msg, sizeof(msg), "%sbench: runner stderr cut here: %llu bytes left out (the log keeps "
				 "its first %zu and last %zu bytes)\n", e->written && e->last != '\n' ? "\n" : "",
				 e->cut, e->head, e->tail);

		write_all(e->fd, msg, (size_t)k);
	}
	if (e->len) {
		size_t k = e->tail - e->start < e->len ? e->tail - e->start : e->len;

		write_all(e->fd, e->ring + e->start, k);
		write_all(e->fd, e->ring, e->len - k);
	}
	free(e->ring);
	e->ring = NULL;
}

/* Reads what the stderr pipe holds now (all of it when block); closes it at EOF or an error. */
static void errcap_read(struct errcap *e, int *fd, int block)
{
	char buf[65536];
	double until = now_s() + 1.0; /* a daemon still writing must not hold the end of the suite */

	while (*fd >= 0) {
		struct pollfd pfd = { *fd, POLLIN, 0 };
		ssize_t n;

		int r = poll(&pfd, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		n = read(*fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(*fd);
			*fd = -1;
			return;
		}
		errcap_add(e, buf, (size_t)n);
		if (!block || now_s() > until)
			return;
	}
}

int spawn_run(struct spawn_result *out, const struct spawn_opts *o)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct strbuf line = STRBUF_INIT;
	int pipefd[2] = { -1, -1 }, errpipe[2] = { -1, -1 }, status = 0, err = 0, reaped = 0, stop_reading = 0;
	int capped = o->stderr_fd >= 0 && !o->stderr_to_stdout && (o->stderr_head || o->stderr_tail);
	struct errcap ec = { o->stderr_fd, o->stderr_head, o->stderr_tail, 0, NULL, 0, 0, 0, 0 };
	size_t max_line = o->max_line ? o->max_line : (1u << 24), linelen = 0;
	double start = now_s();
	pid_t pid = -1;

	memset(out, 0, sizeof(*out));
	if (pipe(pipefd) < 0)
		return bench_error_set(BENCH_E_FAIL, "cannot create a pipe: %s", strerror(errno));
	fcntl(pipefd[0], F_SETFD, FD_CLOEXEC);
	fcntl(pipefd[1], F_SETFD, FD_CLOEXEC);
	if (capped) {
		if (pipe(errpipe) < 0) {
			err = bench_error_set(BENCH_E_FAIL, "cannot create a pipe: %s", strerror(errno));
			close(pipefd[0]);
			close(pipefd[1]);
			return err;
		}
		fcntl(errpipe[0], F_SETFD, FD_CLOEXEC);
		fcntl(errpipe[1], F_SETFD, FD_CLOEXEC);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	if (o->stderr_to_stdout)
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	else if (capped)
		posix_spawn_file_actions_adddup2(&fa, errpipe[1], 2);
	else if (o->stderr_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, o->stderr_fd, 2);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setpgroup(&attr, 0);
	{
		sigset_t def, mask;

		sigemptyset(&def);
		sigaddset(&def, SIGINT);
		sigaddset(&def, SIGTERM);
		sigaddset(&def, SIGPIPE);
		posix_spawnattr_setsigdefault(&attr, &def);
		sigemptyset(&mask);
		posix_spawnattr_setsigmask(&attr, &mask);
	}
	errno = posix_spawn(&pid, o->argv[0], &fa, &attr, o->argv, o->envp ? o->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(pipefd[1]);
	if (errpipe[1] >= 0)
		close(errpipe[1]);
	if (errno) {
		err = bench_error_set(BENCH_E_FAIL, "cannot start '%s': %s", o->argv[0], strerror(errno));
		close(pipefd[0]);
		if (errpipe[0] >= 0)
			close(errpipe[0]);
		return err;
	}
	for (;;) {
		struct pollfd pfd[2] = { { pipefd[0], POLLIN, 0 }, { errpipe[0], POLLIN, 0 } };
		char buf[65536], *p, *end;
		ssize_t n;
		int r;

		if (o->stop && *o->stop) {
			end_group(pid, &status);
			reaped = 1;
			out->end = SPAWN_STOPPED;
			break;
		}
		if (o->timeout_s > 0 && now_s() - start > o->timeout_s) {
			end_group(pid, &status);
			reaped = 1;
			out->end = SPAWN_TIMEOUT;
			break;
		}
		if (stop_reading) {
			end_group(pid, &status);
			reaped = 1;
			out->end = SPAWN_STOPPED;
			break;
		}
		r = poll(pfd, 2, 100);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		if (pfd[1].revents)
			errcap_read(&ec, &errpipe[0], 0);
		if (!pfd[0].revents)
			continue;
		n = read(pipefd[0], buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break; /* EOF: the child (and any grandchild holding stdout) closed it */
		/* a line's first max_line bytes are kept; the rest is only counted */
		for (p = buf, end = buf + n; p < end && !stop_reading;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t k = (size_t)((nl ? nl : end) - p);

			if (line.len < max_line)
				strbuf_add(&line, p, k < max_line - line.len ? k : max_line - line.len);
			linelen += k;
			if (!nl)
				break;
			if (linelen > max_line && o->on_overlong)
				o->on_overlong(o->ctx, linelen);
			else if (o->on_line && o->on_line(o->ctx, line.buf, line.len))
				stop_reading = 1;
			strbuf_reset(&line);
			linelen = 0;
			p = nl + 1;
		}
	}
	if (linelen && !stop_reading && out->end == SPAWN_EXITED) { /* a last line without newline */
		if (linelen > max_line && o->on_overlong)
			o->on_overlong(o->ctx, linelen);
		else if (o->on_line)
			o->on_line(o->ctx, line.buf, line.len);
	}
	if (!reaped) {
		/* stdout closed; wait for the exit, still honouring the deadline and the stop flag */
		for (;;) {
			pid_t w = waitpid(pid, &status, WNOHANG);

			if (w == pid)
				break;
			if ((o->stop && *o->stop) || (o->timeout_s > 0 && now_s() - start > o->timeout_s)) {
				out->end = (o->stop && *o->stop) ? SPAWN_STOPPED : SPAWN_TIMEOUT;
				end_group(pid, &status);
				break;
			}
			if (errpipe[0] >= 0) { /* a child still writing to stderr must not block on a full pipe */
				struct pollfd ep = { errpipe[0], POLLIN, 0 };

				if (poll(&ep, 1, 20) > 0)
					errcap_read(&ec, &errpipe[0], 0);
			} else {
				usleep(20000);
			}
		}
		kill(-pid, SIGKILL); /* nothing of the group outlives the suite */
	}
	if (capped) {
		errcap_read(&ec, &errpipe[0], 1); /* what is left in the pipe */
		if (errpipe[0] >= 0)
			close(errpipe[0]);
		errcap_finish(&ec);
		out->stderr_cut = ec.cut;
	}
	close(pipefd[0]);
	strbuf_release(&line);
	out->seconds = now_s() - start;
	if (out->end == SPAWN_EXITED) {
		if (WIFSIGNALED(status)) {
			out->end = SPAWN_SIGNALED;
			out->term_signal = WTERMSIG(status);
		} else {
			out->exit_code = WEXITSTATUS(status);
		}
	}
	return 0;
}

static int capture_line(void *ctx, const char *line, size_t len)
{
	struct strbuf *sb = ctx;

	strbuf_add(sb, line, len);
	strbuf_addch(sb, '\n');
	return 0;
}

int spawn_capture(char **out, size_t *len, char *const *argv, size_t max, double timeout_s)
{
	struct strbuf sb = STRBUF_INIT;
	struct spawn_result r;
	struct spawn_opts o;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), err;

	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.stderr_fd = devnull;
	o.timeout_s = timeout_s;
	o.on_line = capture_line;
	o.ctx = &sb;
	o.max_line = max;
	err = spawn_run(&r, &o);
	if (devnull >= 0)
		close(devnull);
	if (!err && (r.end != SPAWN_EXITED || r.exit_code != 0))
		err = bench_error_set(BENCH_E_FAIL, "'%s' failed", argv[0]);
	if (sb.len > max)
		sb.len = max;
	*len = sb.len;
	*out = strbuf_detach(&sb);
	return err;
}

struct log_ctx {
	int fd;
	int (*on_line)(void *ctx, const char *line, size_t len);
	void *ctx;
};

static int log_line(void *ctx, const char *line, size_t len)
{
	struct log_ctx *lc = ctx;

	/* a full disk must not stop the build: its status still counts */
	if (lc->fd >= 0 && write(lc->fd, line, len) >= 0)
		(void)!write(lc->fd, "\n", 1);
	if (lc->on_line)
		lc->on_line(lc->ctx, line, len);
	return 0;
}

int spawn_run_logged_lines(char *const *argv, int log_fd, double timeout_s, volatile sig_atomic_t *stop,
			   int (*on_line)(void *ctx, const char *line, size_t len), void *ctx)
{
	struct log_ctx lc = { log_fd, on_line, ctx };
	struct spawn_result res;
	struct spawn_opts so;

	memset(&so, 0, sizeof(so));
	so.argv = argv;
	so.stderr_fd = log_fd;
	so.stderr_to_stdout = 1;
	so.timeout_s = timeout_s;
	so.stop = stop;
	so.on_line = log_line;
	so.ctx = &lc;
	so.max_line = 1u << 20;
	if (spawn_run(&res, &so) < 0)
		return bench_error_set(BENCH_E_BUILD, "cannot start '%s': %s", argv[0], bench_error_last());
	if (res.end == SPAWN_EXITED && res.exit_code == 0)
		return 0;
	if (res.end == SPAWN_EXITED)
		return bench_error_set(BENCH_E_BUILD, "'%s %s' exited with status %d", argv[0], argv[1] ? argv[1] : "",
				       res.exit_code);
	return bench_error_set(BENCH_E_BUILD, "'%s %s' %s", argv[0], argv[1] ? argv[1] : "",
			       res.end == SPAWN_TIMEOUT ? "timed out" : res.end == SPAWN_STOPPED ? "was interrupted"
											   : "was killed by a signal");
}

int spawn_run_logged(char *const *argv, int log_fd, double timeout_s, volatile sig_atomic_t *stop)
{
	return spawn_run_logged_lines(argv, log_fd, timeout_s, stop, NULL, NULL);
}

int spawn_become_subreaper(void)
{
#ifdef PR_SET_CHILD_SUBREAPER
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -1;
#else
	return -1;
#endif
}

/* The descendants of this process now: pids into *out (caller frees); their number. */
static size_t descendants(pid_t **out)
{
	pid_t *pid = NULL, *ppid = NULL, *res = NULL;
	size_t n = 0, alloc = 0, nres = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[300], buf[512], *p;
		FILE *f;
		int pp = 0;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL; /* the name may hold spaces and ')' */
		fclose(f);
		if (!p || sscanf(p + 1, " %*c %d", &pp) != 1)
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			pid = xrealloc(pid, alloc * sizeof(*pid));
			ppid = xrealloc(ppid, alloc * sizeof(*ppid));
		}
		pid[n] = (pid_t)atoi(e->d_name);
		ppid[n++] = (pid_t)pp;
	}
	if (d)
		closedir(d);
	res = xcalloc(n + 1, sizeof(*res));
	/* breadth first from us: a pid joins when its parent is us or already in */
	for (size_t k = 0; k <= nres; k++) {
		pid_t parent = k == 0 ? getpid() : res[k - 1];

		for (size_t i = 0; i < n; i++)
			if (ppid[i] == parent && pid[i] != getpid())
				res[nres++] = pid[i];
	}
	free(pid);
	free(ppid);
	*out = res;
	return nres;
}

/* Reaps our children that have ended; waits until no descendant is left or the deadline. 1 when none is left. */
static int wait_descendants(double until)
{
	for (;;) {
		pid_t *v;
		size_t n;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		n = descendants(&v);
		free(v);
		if (n == 0)
			return 1;
		if (now_s() >= until)
			return 0;
		usleep(20000);
	}
}

int spawn_end_descendants(double grace_s)
{
	pid_t *v;
	size_t found = descendants(&v);
	int sig[] = { SIGTERM, SIGKILL };

	free(v);
	if (!found || wait_descendants(now_s() + grace_s))
		return (int)found;
	for (size_t k = 0; k < 2; k++) {
		size_t n = descendants(&v);

		for (size_t i = 0; i < n; i++)
			kill(v[i], sig[k]);
		free(v);
		if (wait_descendants(now_s() + (k == 0 ? grace_s : 5.0)))
			break;
	}
	return (int)found;
}

char *spawn_which_required(const char *name, const char *what, int code)
{
	char *p = spawn_which(name);

	if (!p)
		bench_error_set(code, "%s '%s' is not installed here ('%s' is not on PATH)", what, name, name);
	return p;
}
