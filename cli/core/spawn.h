/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spawn.h — run a program through posix_spawn with an argv vector (never a shell), in its own process group,
 * stream its stdout line by line to a callback, send its stderr to a file descriptor (all of it, or its head and
 * tail only), and end the whole group on a deadline or when the caller's stop flag is raised.
 *
 * Ownership: argv and envp are borrowed for the call; lines passed to the callback are valid only during the
 * callback. The result struct is filled by value.
 */
#ifndef BENCH_SPAWN_H
#define BENCH_SPAWN_H

#include <signal.h>
#include <stddef.h>

enum spawn_end {
	SPAWN_EXITED,    /* exit_code is valid */
	SPAWN_SIGNALED,  /* killed by signal term_signal (not by us) */
	SPAWN_TIMEOUT,   /* we ended the group at the deadline */
	SPAWN_STOPPED,   /* we ended the group because *stop was raised */
};

struct spawn_result {
	enum spawn_end end;
	int exit_code;
	int term_signal;
	double seconds;
	unsigned long long stderr_cut; /* bytes of stderr left out by stderr_head/stderr_tail */
};

struct spawn_opts {
	char *const *argv;
	char *const *envp;          /* NULL: inherit */
	int stderr_fd;              /* -1: inherit */
	/* With stderr_fd: when either is non-zero, stderr comes through a pipe and stderr_fd gets only its first
	 * stderr_head bytes and the whole lines of its last stderr_tail (the tail is held in memory and written when
	 * the program ends; the line it would start inside is left out whole),
	 * with a line "bench: runner stderr cut here: N bytes left out ..." between them. 0 and 0: the program writes
	 * to stderr_fd itself, without limit. */
	size_t stderr_head, stderr_tail;
	int stderr_to_stdout;       /* stderr into the same pipe as stdout (its lines to on_line, in order) */
	double timeout_s;           /* 0: none */
	volatile sig_atomic_t *stop;/* raised by a signal handler: end the group */
	/* Called for every complete stdout line (without its newline); a non-zero return stops reading (the
	 * child is then ended). */
	int (*on_line)(void *ctx, const char *line, size_t len);
	void *ctx;
	size_t max_line;            /* longer lines are passed truncated, flagged by len == max_line ... */
	/* ... unless on_overlong is set: then a line longer than max_line is not passed to on_line; on_overlong gets
	 * its full length once it ends. Either way at most max_line bytes of a line are held in memory. */
	void (*on_overlong)(void *ctx, size_t len);
	/* NULL, or called with ctx when a wait for stdout ends without a line to read (at least every 100 ms while the
	 * program is quiet): for work deferred from on_line. */
	void (*on_idle)(void *ctx);
};

/* Returns 0 when the program ran (whatever its status), or BENCH_E_FAIL if it could not be started. */
int spawn_run(struct spawn_result *out, const struct spawn_opts *o);
/* Runs argv, capturing stdout (at most max bytes) into *out (caller frees). For small helper programs. */
int spawn_capture(char **out, size_t *len, char *const *argv, size_t max, double timeout_s);
/* Runs argv with stdout and stderr to log_fd (-1: discarded); 0 when it exited 0, else BENCH_E_BUILD with what
 * ended it (exit status, timeout, interruption, signal). For builds and image imports. */
int spawn_run_logged(char *const *argv, int log_fd, double timeout_s, volatile sig_atomic_t *stop);
/* spawn_run_logged() that also passes every line, stdout and stderr in the order written, to on_line (NULL:
 * none) once it is in the log: a build's steps shown as they happen. */
int spawn_run_logged_lines(char *const *argv, int log_fd, double timeout_s, volatile sig_atomic_t *stop,
			   int (*on_line)(void *ctx, const char *line, size_t len), void *ctx);
/* Makes this process the reaper of its orphaned descendants (Linux PR_SET_CHILD_SUBREAPER): a runner's daemon that
 * left its process group and session (setsid, double fork) is re-parented here instead of to init, where
 * spawn_end_descendants() finds it. 0, or -1 where the system has no such thing. */
int spawn_become_subreaper(void);
/* Ends every descendant of this process (read from /proc): grace_s seconds to exit on their own, SIGTERM, grace_s
 * more, then SIGKILL; reaps those that are its children. For the end of a suite, when no child of ours may remain.
 * Returns how many were found. */
int spawn_end_descendants(double grace_s);
/* Searches PATH for a program name; returns a malloc'd path or NULL. */
char *spawn_which(const char *name);
/* spawn_which() for a program bench cannot do without: NULL with the error set to code and "<what> '<name>' is
 * not installed here ('<name>' is not on PATH)". */
char *spawn_which_required(const char *name, const char *what, int code);

#endif
