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
#include "units.h"

extern char **environ;

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
	double until = units_now_s() + 3.0;

	kill(-pid, SIGTERM);
	while (units_now_s() < until) {
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
	char prev; /* the byte before the ring's first once something was left out: a line's start when '\n' */
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
		if (n > e->tail)
			e->prev = p[n - e->tail - 1];
		else if (e->len)
			e->prev = e->ring[(e->start + e->len - 1) % e->tail];
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
		if (e->len + k > e->tail) { /* the last byte this copy pushes out, before the copy overwrites it */
			size_t ev = e->len + k - e->tail;

			e->prev = ev <= e->len ? e->ring[(e->start + ev - 1) % e->tail] : p[done + (ev - e->len) - 1];
		}
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

/* Writes what was held back: the cut line (when anything was left out), then the tail from its first line's start:
 * a line whose start was left out is left out whole (its rest could be a secret whose name was cut off, which the
 * scrubber could no longer tell: DB_PASSWO|RD=value) */
static void errcap_finish(struct errcap *e)
{
	if (e->cut && e->len && e->prev != '\n') {
		size_t skip = 0;

		while (skip < e->len && e->ring[(e->start + skip) % e->tail] != '\n')
			skip++;
		skip = skip < e->len ? skip + 1 : e->len;
		e->start = (e->start + skip) % e->tail;
		e->len -= skip;
		e->cut += skip;
	}
	if (e->cut) {
		char msg[256];
		int k = snprintf(msg, sizeof(msg), "%sbench: runner stderr cut here: %llu bytes left out (the log keeps "
				 "its first %zu bytes and the whole lines of its last %zu)\n",
				 e->written && e->last != '\n' ? "\n" : "", e->cut, e->head, e->tail);

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
	double until = units_now_s() + 1.0; /* a daemon still writing must not hold the end of the suite */

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
		if (!block || units_now_s() > until)
			return;
	}
}

/* One program under spawn_run(): its pipes, its stdout cut into lines, how far it got. */
struct spawn_state {
	const struct spawn_opts *o;
	pid_t pid;
	int out[2], err[2];     /* stdout's pipe; stderr's when it is capped (else -1) */
	int capped;             /* stderr kept to its head and tail (struct errcap) */
	struct errcap ec;
	struct strbuf line;     /* the stdout line being read: its first max_line bytes */
	size_t linelen, max_line;
	int status, reaped, stop_reading;
	double start;
};

static void spawn_state_init(struct spawn_state *st, const struct spawn_opts *o)
{
	struct strbuf line = STRBUF_INIT;

	memset(st, 0, sizeof(*st));
	st->o = o;
	st->pid = -1;
	st->out[0] = st->out[1] = st->err[0] = st->err[1] = -1;
	st->capped = o->stderr_fd >= 0 && !o->stderr_to_stdout && (o->stderr_head || o->stderr_tail);
	st->ec.fd = o->stderr_fd;
	st->ec.head = o->stderr_head;
	st->ec.tail = o->stderr_tail;
	st->line = line;
	st->max_line = o->max_line ? o->max_line : (1u << 24);
	st->start = units_now_s();
}

/* stdout's pipe, and stderr's when it is capped; both ends close-on-exec (the child gets them by dup2). */
static int spawn_open_pipes(struct spawn_state *st)
{
	int err;

	if (pipe(st->out) < 0)
		return bench_error_set(BENCH_E_FAIL, "cannot create a pipe: %s", strerror(errno));
	fcntl(st->out[0], F_SETFD, FD_CLOEXEC);
	fcntl(st->out[1], F_SETFD, FD_CLOEXEC);
	if (!st->capped)
		return 0;
	if (pipe(st->err) < 0) {
		err = bench_error_set(BENCH_E_FAIL, "cannot create a pipe: %s", strerror(errno));
		close(st->out[0]);
		close(st->out[1]);
		return err;
	}
	fcntl(st->err[0], F_SETFD, FD_CLOEXEC);
	fcntl(st->err[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

/* Starts the program in a process group of its own, its stdout (and stderr) into the pipes, with the default
 * disposition of the signals that end it and none blocked. Our ends of the pipes kept, the child's closed. */
static int spawn_start(struct spawn_state *st)
{
	const struct spawn_opts *o = st->o;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t def, mask;
	int err;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&fa, st->out[1], 1);
	if (o->stderr_to_stdout)
		posix_spawn_file_actions_adddup2(&fa, st->out[1], 2);
	else if (st->capped)
		posix_spawn_file_actions_adddup2(&fa, st->err[1], 2);
	else if (o->stderr_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, o->stderr_fd, 2);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setpgroup(&attr, 0);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &def);
	sigemptyset(&mask);
	posix_spawnattr_setsigmask(&attr, &mask);
	errno = posix_spawn(&st->pid, o->argv[0], &fa, &attr, o->argv, o->envp ? o->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(st->out[1]);
	if (st->err[1] >= 0)
		close(st->err[1]);
	if (errno) {
		err = bench_error_set(BENCH_E_FAIL, "cannot start '%s': %s", o->argv[0], strerror(errno));
		close(st->out[0]);
		if (st->err[0] >= 0)
			close(st->err[0]);
		return err;
	}
	return 0;
}

/* Whether the group must be ended now: SPAWN_STOPPED (the caller's stop flag), SPAWN_TIMEOUT (the deadline), or
 * SPAWN_EXITED to go on. */
static enum spawn_end spawn_must_end(const struct spawn_state *st)
{
	const struct spawn_opts *o = st->o;

	if (o->stop && *o->stop)
		return SPAWN_STOPPED;
	if (o->timeout_s > 0 && units_now_s() - st->start > o->timeout_s)
		return SPAWN_TIMEOUT;
	return SPAWN_EXITED;
}

/* A complete line to the callback: on_overlong for one longer than max_line, else on_line (which may stop the
 * reading). */
static void spawn_pass_line(struct spawn_state *st)
{
	const struct spawn_opts *o = st->o;

	if (st->linelen > st->max_line && o->on_overlong)
		o->on_overlong(o->ctx, st->linelen);
	else if (o->on_line && o->on_line(o->ctx, st->line.buf, st->line.len))
		st->stop_reading = 1;
}

/* n bytes of stdout cut into lines: a line's first max_line bytes are kept; the rest is only counted. */
static void spawn_feed(struct spawn_state *st, const char *p, const char *end)
{
	while (p < end && !st->stop_reading) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = (size_t)((nl ? nl : end) - p);

		if (st->line.len < st->max_line)
			strbuf_add(&st->line, p, k < st->max_line - st->line.len ? k : st->max_line - st->line.len);
		st->linelen += k;
		if (!nl)
			break;
		spawn_pass_line(st);
		strbuf_reset(&st->line);
		st->linelen = 0;
		p = nl + 1;
	}
}

/* Reads stdout (and the capped stderr) until EOF, or until the group is ended (stop, timeout, the callback): then
 * how it was ended, the child reaped. SPAWN_EXITED at EOF, the child not reaped yet. */
static enum spawn_end spawn_read(struct spawn_state *st)
{
	for (;;) {
		struct pollfd pfd[2] = { { st->out[0], POLLIN, 0 }, { st->err[0], POLLIN, 0 } };
		enum spawn_end end = spawn_must_end(st);
		char buf[65536];
		ssize_t n;
		int r;

		if (end == SPAWN_EXITED && st->stop_reading) /* the callback asked for the end */
			end = SPAWN_STOPPED;
		if (end != SPAWN_EXITED) {
			end_group(st->pid, &st->status);
			st->reaped = 1;
			return end;
		}
		r = poll(pfd, 2, 100);
		if (r >= 0 && !(pfd[0].revents) && st->o->on_idle)
			st->o->on_idle(st->o->ctx);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		if (pfd[1].revents)
			errcap_read(&st->ec, &st->err[0], 0);
		if (!pfd[0].revents)
			continue;
		n = read(st->out[0], buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return SPAWN_EXITED; /* EOF: the child (and any grandchild holding stdout) closed it */
		spawn_feed(st, buf, buf + n);
	}
}

/* stdout closed: waits for the exit, still honouring the deadline and the stop flag; nothing of the group outlives
 * it. SPAWN_EXITED, or how the group was ended. */
static enum spawn_end spawn_wait(struct spawn_state *st)
{
	enum spawn_end end = SPAWN_EXITED;

	for (;;) {
		if (waitpid(st->pid, &st->status, WNOHANG) == st->pid)
			break;
		if ((end = spawn_must_end(st)) != SPAWN_EXITED) {
			end_group(st->pid, &st->status);
			break;
		}
		if (st->err[0] >= 0) { /* a child still writing to stderr must not block on a full pipe */
			struct pollfd ep = { st->err[0], POLLIN, 0 };

			if (poll(&ep, 1, 20) > 0)
				errcap_read(&st->ec, &st->err[0], 0);
		} else {
			usleep(20000);
		}
	}
	kill(-st->pid, SIGKILL); /* nothing of the group outlives the suite */
	return end;
}

/* The pipes closed, what was held of stderr written, and the result: time, exit status or signal. */
static void spawn_finish(struct spawn_result *out, struct spawn_state *st)
{
	if (st->capped) {
		errcap_read(&st->ec, &st->err[0], 1); /* what is left in the pipe */
		if (st->err[0] >= 0)
			close(st->err[0]);
		errcap_finish(&st->ec);
		out->stderr_cut = st->ec.cut;
	}
	close(st->out[0]);
	strbuf_release(&st->line);
	out->seconds = units_now_s() - st->start;
	if (out->end == SPAWN_EXITED) {
		if (WIFSIGNALED(st->status)) {
			out->end = SPAWN_SIGNALED;
			out->term_signal = WTERMSIG(st->status);
		} else {
			out->exit_code = WEXITSTATUS(st->status);
		}
	}
}

int spawn_run(struct spawn_result *out, const struct spawn_opts *o)
{
	struct spawn_state st;
	int err;

	memset(out, 0, sizeof(*out));
	spawn_state_init(&st, o);
	if ((err = spawn_open_pipes(&st)) < 0 || (err = spawn_start(&st)) < 0)
		return err;
	out->end = spawn_read(&st);
	if (st.linelen && !st.stop_reading && out->end == SPAWN_EXITED) /* a last line without newline */
		spawn_pass_line(&st);
	if (!st.reaped)
		out->end = spawn_wait(&st);
	spawn_finish(out, &st);
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
		if (units_now_s() >= until)
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
	if (!found || wait_descendants(units_now_s() + grace_s))
		return (int)found;
	for (size_t k = 0; k < 2; k++) {
		size_t n = descendants(&v);

		for (size_t i = 0; i < n; i++)
			kill(v[i], sig[k]);
		free(v);
		if (wait_descendants(units_now_s() + (k == 0 ? grace_s : 5.0)))
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
