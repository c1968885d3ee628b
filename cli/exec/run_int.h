/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_int.h — what the files of bench run share (not an API for other stages): the state of one run, and the
 * phases' helpers. run.c holds the phases (plan, prepare, collect) and the public entry points; run_dir.c the run
 * directory (status.json, summary, resume); run_suite.c executing one suite's runner and taking its records.
 *
 * Ownership: struct run owns everything it points to (released by run.c's run_release()); the helpers below borrow
 * the run for the call. Strings they return are malloc'd for the caller.
 */
#ifndef BENCH_RUN_INT_H
#define BENCH_RUN_INT_H

#include <signal.h>
#include <stddef.h>

#include <jansson.h>

#include "core/diag.h"
#include "image/builder.h"
#include "manifest/manifest.h"
#include "manifest/peaks.h"
#include "manifest/plan.h"
#include "run.h"
#include "image/hoststack.h"

enum cstate { C_PENDING, C_OK, C_FAILED, C_SKIPPED, C_INTERRUPTED };
extern const char *const run_cstate_names[];

/* set by a signal that would end bench (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE) while a run is under way, and by
 * a full disk; run_stop_signal says which signal (0: none) */
extern volatile sig_atomic_t run_stop_flag;
extern volatile sig_atomic_t run_stop_signal;
/* set when a write of the run failed for want of space (ENOSPC, EDQUOT): the run ends as failed */
extern volatile sig_atomic_t run_disk_full;

struct run {
	json_t *runner_devices; /* suite -> the device/library description its runner reported */
	json_t *runner_loaded;  /* runner program -> {libraries, packages, not_pinned}: what its records said it loaded */
	const struct run_opts *o;
	char *mpath, *mbuf;     /* the manifest's path and text */
	size_t mlen;
	json_t *plan_json;
	json_t *old_plan;       /* --resume: the run directory's plan.json as it was read once (NULL: none, not JSON) */
	struct diag_list diags;
	int tried_make;
	json_t *interleave;     /* bench run A B --rounds N: this run's place in the set (status.json) */
	struct manifest m;
	struct plan plan;
	struct plan_index pidx; /* the plan's cases by suite and key (a record's case, a resumed run's results) */
	char *dir;
	enum cstate *st;
	char **err;
	int *wrong;             /* per case: 1 a wrong result, 2 loaded-not-pinned under --locked (both exit 7) */
	json_t **headline; /* value per case (borrowed numbers copied) */
	struct peaks peaks;
	const struct peak *peak;
	int tty;
	char *started;
	char *fatal; /* why the run stopped before any suite started */
	struct built_image img; /* container engines: the stack's image */
	struct host_stack hs;   /* engine host with components: the stack's prefixes (docs/stacks.md, "Host stacks") */
	json_t *hs_lock;        /* its lock */
	json_t *lib_sha;        /* real path -> sha256 of the stack's libraries the runners loaded (hashed once) */
	json_t *hs_stack_libs;  /* the host stack's libraries as each record's stack_libs (made once) */
	int lock_fd;            /* the run directory, flock'ed while this bench owns it (valid when locked) */
	int locked;
	char *reserve;          /* <dir>/.bench-reserve: space held back for the last status.json on a full disk */
	int was_complete;       /* --resume of a run whose status.json says complete: nothing to do */
	int unpackable;         /* its directory was not scrubbed whole (a name holding a secret, refused as bench
				 * pack refuses it; a full disk while scrubbing): it is never packed */
	json_t *overrides;      /* -k, --rep, --warmup as plan.json and status.json record them ({"select", "rep",
				 * "warmup"}), or NULL */
	/* status.json while records come (run_note_record): when its last write ended (CLOCK_MONOTONIC seconds), how
	 * long that write took, and how many records its cases do not show yet */
	double status_at, status_cost;
	size_t status_behind;
};

/* run.c */
struct strvec;
/* "interrupted (SIGPIPE: ...)": why a stopped run's unmeasured cases are interrupted (static). */
const char *run_stop_reason(void);
/* The texts to scrub from what a run records (core/scrub.h): secret values of this process's environment and of the
 * manifest's stack.env. */
void run_secret_values(struct strvec *out, const struct run *r);

/* run_dir.c */
/* Notes a failed write: ENOSPC or EDQUOT raise run_disk_full (and run_stop_flag, which ends the runner). */
void run_note_write_error(int errnum);
/* Takes the run directory for this bench (flock on the directory, holder written to <dir>/.bench-lock): 0, or
 * BENCH_E_FAIL saying which bench holds it (pid, host, since) with nothing touched. */
int run_lock_dir(struct run *r, const char *dir);
/* Holds RUN_RESERVE_BYTES (plus a little per case) in <dir>/.bench-reserve; released on a full disk so that the
 * final status.json and summary.json can still be written, removed at the end of the run. */
int run_reserve_space(struct run *r);
void run_release_space(struct run *r);
/* Releases what run_lock_dir and run_reserve_space took. */
void run_unlock_dir(struct run *r);
/* Writes data to dir/name atomically (temporary file, fsync, rename; the temporary file removed on failure). */
int run_write_atomic(const char *dir, const char *name, const char *data, size_t len);
int run_write_json(const char *dir, const char *name, json_t *j);
char *run_utc_stamp(const char *fmt);
/* Rewrites status.json now (every state change: the start, each runner's end, the end of the run). */
int run_write_status(struct run *r, const char *state);
/* A record was taken: status.json is rewritten once RUN_STATUS_GAP times its last write's time has passed since
 * that write ended, so that its rewrites take a bounded share of the run (each is O(cases)); else at the next
 * record or tick that finds the time passed, or at the next state change. */
void run_note_record(struct run *r);
/* The runner said nothing for a while: status.json catches up with the records taken, when its time has come. */
void run_status_tick(struct run *r);
void run_set_state(struct run *r, size_t i, enum cstate s, const char *why);
/* Creates <out>/<name>-<UTC>-<random>/ with its subfolders and the manifest in it; sets r->dir. */
int run_make_dir(struct run *r, const char *mbuf, size_t mlen);
/* --resume, before anything is written into a run directory bench did not just create: every entry under it is a
 * directory or a regular file (a symbolic link, a FIFO, a socket or a device is refused, named), so that no write of
 * the run (status.json, results/, logs/, cases/, env/, the runners' own files) can leave the directory or block. */
int run_check_dir(const char *dir);
/* --resume: the ok records on disk stand (results/<suite>.jsonl read without following a link); the rest is measured
 * again. Returns 0, or the error of a results file that is there and cannot be read. */
int run_load_previous(struct run *r);
/* summary.json, and unless quiet the table and every case's reason on stderr. */
void run_summarize(struct run *r);

/* run_suite.c */
/* Runs suite s's pending cases (grouped by runner). Returns 0, or a negative code only for failures of bench itself. */
int run_execute_suite(struct run *r, const struct suite_ops *s, int *tried_make);
/* --dry-run: the plan and the exact commands. */
void run_print_dry(struct run *r);

#endif
