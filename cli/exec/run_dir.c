/* SPDX-License-Identifier: Apache-2.0 */
/* run_dir.c — a run directory: atomic writes, status.json, its name, resume from it, the summary. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/rand.h>

#include "core/fs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "manifest/lock.h"
#include "manifest/manifest.h"
#include "manifest/peaks.h"
#include "manifest/plan.h"
#include "stats/findings.h"
#include "stats/quality.h"
#include "render/terminal.h"
#include "envcap.h"
#include "exec.h"
#include "run_int.h"

const char *const run_cstate_names[] = { "pending", "ok", "failed", "skipped", "interrupted" };

/* ---- small file helpers --------------------------------------------------------------------------------------- */

volatile sig_atomic_t run_disk_full;

void run_note_write_error(int errnum)
{
	if (errnum == ENOSPC || errnum == EDQUOT) {
		run_disk_full = 1;
		run_stop_flag = 1;
	}
}

/* Writes data to dir/name atomically (temporary file, then rename); on failure the temporary file is removed and
 * dir/name is left as it was. The temporary file is always a new one (a link, a FIFO or a file named like it in a
 * resumed run directory is removed first, then O_EXCL | O_NOFOLLOW): nothing is written through a link. In the run
 * directory (fs_confine_dir()), a name with directories ("env/host.json") never goes through a link either. */
int run_write_atomic(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = xstrfmt("%s/%s", dir, name), *tmp = xstrfmt("%s.tmp", path);
	int fd = fs_open_new(tmp, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	int err = 0, e = 0;

	if (!f || fwrite(data, 1, len, f) != len || fflush(f) != 0 || fsync(fileno(f)) != 0) {
		e = errno;
		if (f)
			fclose(f);
		else if (fd >= 0)
			close(fd);
	} else if (fclose(f) != 0 || fs_rename(tmp, path) != 0) {
		e = errno;
	}
	if (e) {
		fs_unlink(tmp);
		run_note_write_error(e);
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path,
				      e == ELOOP || e == EXDEV ? fs_open_error(e, O_NOFOLLOW) : strerror(e));
	}
	free(path);
	free(tmp);
	return err;
}

/* ---- one bench per run directory -------------------------------------------------------------------------------- */

int run_lock_dir(struct run *r, const char *dir)
{
	char *info = xstrfmt("%s/.bench-lock", dir), *holder = NULL, host[256] = "", *since;
	size_t len;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot open the run directory '%s': %s", dir, strerror(errno));
		goto cleanup;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		json_t *j = NULL;
		int e = errno; /* reading .bench-lock below may set errno (ENOENT before the holder writes it) */

		if (e == EWOULDBLOCK && fs_read_file(&holder, &len, info, 4096) == 0)
			j = json_loads(holder, 0, NULL);
		if (e == EWOULDBLOCK || j)
			err = bench_error_set(BENCH_E_FAIL, "the run directory '%s' is in use by another bench (pid %lld on %s, "
					      "since %s); wait for it to end, or stop it, then try again", dir,
					      (long long)json_integer_value(json_object_get(j, "pid")),
					      json_string_value(json_object_get(j, "host")) ? json_string_value(json_object_get(j, "host")) : "?",
					      json_string_value(json_object_get(j, "since")) ? json_string_value(json_object_get(j, "since")) : "?");
		else
			err = bench_error_set(BENCH_E_IO, "cannot lock the run directory '%s': %s", dir, strerror(e));
		json_decref(j);
		close(fd);
		goto cleanup;
	}
	r->lock_fd = fd;
	r->locked = 1;
	/* every write of the run below the directory from its descriptor, never through a link that a directory of it
	 * was swapped for (the directory itself may be one: it was followed once, here) */
	fs_confine_dir(dir, fd);
	/* who holds it, for the next bench that asks; the lock is the flock, this file only says by whom */
	gethostname(host, sizeof(host) - 1);
	since = run_utc_stamp("%Y-%m-%dT%H:%M:%SZ");
	{
		json_t *j = json_pack("{s:I, s:s, s:s}", "pid", (json_int_t)getpid(), "host", host, "since", since);
		char *s = json_dumps(j, JSON_COMPACT);

		if (s)
			run_write_atomic(dir, ".bench-lock", s, strlen(s));
		free(s);
		json_decref(j);
	}
	free(since);
cleanup:
	free(info);
	free(holder);
	return err;
}

#define RUN_RESERVE_BYTES (256u << 10)

int run_reserve_space(struct run *r)
{
	off_t size = (off_t)RUN_RESERVE_BYTES + (off_t)r->plan.n * 1024;
	char *p = xstrfmt("%s/.bench-reserve", r->dir);
	struct stat st;
	int fd = -1, e = 0;

	/* a resumed run directory's .bench-reserve: bench's own left-over file is replaced; anything else (a link to a
	 * file of the user's, a FIFO, a directory) is refused, never written through */
	if (lstat(p, &st) == 0 && !S_ISREG(st.st_mode)) {
		int err = bench_error_set(BENCH_E_IO, "cannot hold space in reserve: '%s' is %s; remove it, then try again", p,
					  S_ISLNK(st.st_mode) ? "a symbolic link (not followed)" : "not a regular file");

		free(p);
		return err;
	}
	unlink(p);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		e = errno;
	} else if ((e = posix_fallocate(fd, 0, size)) != 0 && e != ENOSPC && e != EDQUOT) {
		/* no fallocate here (EOPNOTSUPP): write the bytes */
		char zero[65536];
		off_t done = 0;

		memset(zero, 0, sizeof(zero));
		e = 0;
		while (!e && done < size) {
			ssize_t w = write(fd, zero, (size_t)(size - done) < sizeof(zero) ? (size_t)(size - done) : sizeof(zero));

			if (w < 0)
				e = errno;
			else
				done += w;
		}
		if (!e && fsync(fd) != 0)
			e = errno;
	}
	if (fd >= 0)
		close(fd);
	if (e) {
		unlink(p);
		free(p);
		run_note_write_error(e);
		return bench_error_set(BENCH_E_IO, "cannot hold %lld bytes in reserve in '%s': %s", (long long)size, r->dir,
				       strerror(e));
	}
	free(r->reserve);
	r->reserve = p;
	return 0;
}

void run_release_space(struct run *r)
{
	if (r->reserve) {
		unlink(r->reserve);
		free(r->reserve);
		r->reserve = NULL;
	}
}

void run_unlock_dir(struct run *r)
{
	run_release_space(r);
	if (r->locked) {
		char *info = xstrfmt("%s/.bench-lock", r->dir);

		unlink(info); /* while still holding the lock: the next bench writes its own */
		free(info);
		fs_confine_end(r->lock_fd);
		close(r->lock_fd);
		r->locked = 0;
	}
}

int run_write_json(const char *dir, const char *name, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	struct strbuf sb = STRBUF_INIT;
	int err;

	strbuf_addstr(&sb, s ? s : "null");
	strbuf_addch(&sb, '\n');
	err = run_write_atomic(dir, name, sb.buf, sb.len);
	free(s);
	strbuf_release(&sb);
	return err;
}

char *run_utc_stamp(const char *fmt)
{
	char buf[64];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), fmt, &tm);
	return xstrdup(buf);
}

/* ---- state ------------------------------------------------------------------------------------------------------ */

/* status.json's rewrites while records come: the next one once RUN_STATUS_GAP times the last one's time (building,
 * writing, fsync, rename) has passed since it ended. Each rewrite is O(cases), so a rewrite per record made a run's
 * own work n^2 (5000 cases: 117 s); this way the rewrites take at most 1/RUN_STATUS_GAP of the run's time, whatever
 * its number of cases, and status.json lags the records by at most that gap (docs/architecture.md, "status.json"). */
#define RUN_STATUS_GAP 50.0

int run_write_status(struct run *r, const char *state)
{
	json_t *cases = json_array(), *root;
	double t0 = units_now_s();
	int err;

	for (size_t i = 0; i < r->plan.n; i++) {
		json_t *c = json_pack("{s:s, s:s, s:s}", "suite", r->plan.cases[i].suite->name, "case",
				      r->plan.cases[i].key, "status", run_cstate_names[r->st[i]]);

		if (r->err[i])
			json_object_set_new(c, "error", json_string(r->err[i]));
		json_array_append_new(cases, c);
	}
	root = json_pack("{s:s, s:s, s:s, s:s, s:o}", "schema", "bench.status/v1", "run", r->m.name, "state", state,
			 "started", r->started, "cases", cases);
	if (r->fatal)
		json_object_set_new(root, "error", json_string(r->fatal));
	if (r->interleave)
		json_object_set(root, "interleave", r->interleave);
	if (r->overrides) /* the command line changed the measurement: a method difference (bench compare) */
		json_object_set(root, "overrides", r->overrides);
	if (strcmp(state, "running")) {
		char *fin = run_utc_stamp("%Y-%m-%dT%H:%M:%SZ");

		json_object_set_new(root, "finished", json_string(fin));
		free(fin);
	}
	err = run_write_json(r->dir, "status.json", root);
	json_decref(root);
	r->status_at = units_now_s();
	r->status_cost = r->status_at - t0;
	r->status_behind = 0;
	return err;
}

void run_status_tick(struct run *r)
{
	if (r->status_behind && units_now_s() - r->status_at >= RUN_STATUS_GAP * r->status_cost)
		run_write_status(r, "running");
}

void run_note_record(struct run *r)
{
	r->status_behind++;
	run_status_tick(r);
}

void run_set_state(struct run *r, size_t i, enum cstate s, const char *why)
{
	r->st[i] = s;
	free(r->err[i]);
	r->err[i] = why ? xstrdup(why) : NULL;
}

/* ---- resume: ok records already on disk are the truth -------------------------------------------------------- */

/* Every entry under dir (dir itself is the user's choice and may be a link): a directory or a regular file of one
 * name, or the error naming the first that is not (a hard link's other name may be outside the run directory, and a
 * resumed run appends to its logs and results in place). */
static int check_tree(const char *dir, const char *run, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int err = 0;

	if (!d)
		return bench_error_set(BENCH_E_IO, "cannot resume '%s': cannot read '%s': %s", run, dir, strerror(errno));
	while (!err && (de = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xstrfmt("%s/%s", dir, de->d_name);
		if (lstat(p, &st) < 0) {
			if (errno != ENOENT) /* else gone since readdir */
				err = bench_error_set(BENCH_E_IO, "cannot resume '%s': cannot read '%s': %s", run, p,
						      strerror(errno));
		} else if (S_ISLNK(st.st_mode)) {
			err = bench_error_set(BENCH_E_IO, "cannot resume '%s': '%s' is a symbolic link (bench never writes "
					      "through one, and a bundle holds none); remove it, then try again", run, p);
		} else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			err = bench_error_set(BENCH_E_IO, "cannot resume '%s': '%s' is not a regular file or directory; "
					      "remove it, then try again", run, p);
		} else if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
			err = bench_error_set(BENCH_E_IO, "cannot resume '%s': '%s' is a hard link (%ju names; bench never "
					      "writes through one, and a bundle holds none); copy it instead, then try again",
					      run, p, (uintmax_t)st.st_nlink);
		} else if (S_ISDIR(st.st_mode) && depth >= 32) {
			err = bench_error_set(BENCH_E_IO, "cannot resume '%s': '%s' is nested deeper than 32 directories", run, p);
		} else if (S_ISDIR(st.st_mode)) {
			err = check_tree(p, run, depth + 1);
		}
		free(p);
	}
	closedir(d);
	return err;
}

int run_check_dir(const char *dir)
{
	return check_tree(dir, dir, 0);
}

int run_load_previous(struct run *r)
{
	for (size_t s = 0; s < r->m.nsuites; s++) {
		const char *name = r->m.suites[s].ops->name;
		char *path = xstrfmt("%s/results/%s.jsonl", r->dir, name), *buf = NULL, *line, *save = NULL;
		struct strbuf keep = STRBUF_INIT;
		size_t len;
		int err;

		if ((err = fs_read_file_flags(&buf, &len, path, (size_t)1 << 34, O_NOFOLLOW)) < 0) {
			free(path);
			if (errno == ENOENT) /* the suite had not started */
				continue;
			return err; /* a link, a FIFO, a directory: refused, named */
		}
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			json_t *rec = json_loads(line, 0, NULL);
			const char *key = json_string_value(json_object_get(rec, "case"));
			const char *status = json_string_value(json_object_get(rec, "status"));

			long i = status ? plan_index_find(&r->pidx, name, key) : -1;

			if (i >= 0 && !strcmp(status, "ok") && r->st[i] != C_OK) {
				run_set_state(r, (size_t)i, C_OK, NULL);
				r->headline[i] = json_incref(json_object_get(rec, "value"));
				strbuf_addstr(&keep, line);
				strbuf_addch(&keep, '\n');
			}
			json_decref(rec);
		}
		/* the results file keeps only measured (ok) records; the rest are measured again */
		{
			char *rel = xstrfmt("results/%s.jsonl", name);

			run_write_atomic(r->dir, rel, keep.buf, keep.len);
			free(rel);
		}
		strbuf_release(&keep);
		free(buf);
		free(path);
	}
	return 0;
}

/* ---- summary --------------------------------------------------------------------------------------------------- */

static double peak_for(const struct run *r, const struct plan_case *c)
{
	const char *dt = json_string_value(json_object_get(c->params, "dtype"));

	if (!r->peak)
		return 0;
	switch (c->suite->peak) {
	case SUITE_PEAK_TFLOPS:
		return peaks_tflops_for(r->peak, dt); /* fp32: COMPUTE_32F, no TF32 */
	case SUITE_PEAK_HBM:
		return r->peak->hbm_tbps;
	default:
		return 0;
	}
}

void run_summarize(struct run *r)
{
	size_t counts[5] = { 0 }, flagged = 0;
	json_t *cases = json_array(), *root, *records, *findings, *index;

	/* the records first: each ok case's quality flags go into the summary (stats/quality.h) */
	records = findings_load_records(r->dir);
	index = terminal_record_index(records);
	for (size_t i = 0; i < r->plan.n; i++) {
		const struct plan_case *c = &r->plan.cases[i];
		double pk = peak_for(r, c);
		json_t *e = json_pack("{s:s, s:s, s:s, s:O, s:s}", "suite", c->suite->name, "case", c->key, "status",
				      run_cstate_names[r->st[i]], "value", r->headline[i] ? r->headline[i] : json_null(), "unit",
				      c->suite->unit);

		counts[r->st[i]]++;
		if (r->err[i])
			json_object_set_new(e, "error", json_string(r->err[i]));
		if (pk > 0 && json_is_number(r->headline[i]))
			json_object_set_new(e, "pct_of_peak", json_real(100.0 * json_number_value(r->headline[i]) / pk));
		if (r->st[i] == C_OK) {
			json_t *q = quality_of(terminal_record_of(index, c->suite->name, c->key));

			if (json_array_size(json_object_get(q, "flags")))
				json_object_set(e, "flags", json_object_get(q, "flags"));
			json_decref(q);
		}
		json_array_append_new(cases, e);
	}
	root = json_pack("{s:s, s:s, s:s, s:{s:I, s:I, s:I, s:I, s:I}, s:o}", "schema", "bench.summary/v1", "run",
			 r->m.name, "gpu", r->peak ? r->peak->name : "", "counts", "ok", (json_int_t)counts[C_OK], "failed",
			 (json_int_t)counts[C_FAILED], "skipped", (json_int_t)counts[C_SKIPPED], "interrupted",
			 (json_int_t)counts[C_INTERRUPTED], "pending", (json_int_t)counts[C_PENDING], "cases", cases);
	/* what the records say is wrong with the stack (docs/findings.md) */
	findings = findings_eval(records, cases);
	json_object_set(root, "findings", findings);
	run_write_json(r->dir, "summary.json", root);
	if (r->o->quiet)
		goto cleanup;
	if (r->interleave && !r->o->verbose) { /* one of N rounds: its counts and what went wrong; the table with -v,
						 * the stacks against each other once at the end (cmd_run.c) */
		for (size_t i = 0; i < r->plan.n; i++)
			if (r->st[i] != C_OK)
				fprintf(stderr, "%s %s/%s: %s\n", run_cstate_names[r->st[i]], r->plan.cases[i].suite->name,
					r->plan.cases[i].key, r->err[i] ? r->err[i] : "no reason recorded");
		fprintf(stderr, "%s: %zu ok, %zu failed, %zu skipped, %zu interrupted, %zu finding%s — %s\n", r->m.name,
			counts[C_OK], counts[C_FAILED], counts[C_SKIPPED], counts[C_INTERRUPTED], json_array_size(findings),
			json_array_size(findings) == 1 ? "" : "s", r->dir);
		goto cleanup;
	}
	/* the value scaled for reading (summary.json keeps the raw number and the suite's unit); n and CV from the
	 * case's record */
	fprintf(stderr, "\n%-12s %-48s %-12s %14s %5s %7s %s\n", "suite", "case", "status", "value", "n", "cv",
		r->peak ? "% peak" : "");
	for (size_t i = 0; i < r->plan.n; i++) {
		const struct plan_case *c = &r->plan.cases[i];
		double pk = peak_for(r, c);
		char val[48] = "-", pct[32] = "", n[16] = "-", cv[16] = "-", why[128] = "";

		if (json_is_number(r->headline[i])) {
			units_format_scaled(val, sizeof(val), json_number_value(r->headline[i]), c->suite->unit);
			if (pk > 0)
				snprintf(pct, sizeof(pct), "%.1f%%", 100.0 * json_number_value(r->headline[i]) / pk);
			terminal_spread(n, sizeof(n), cv, sizeof(cv), terminal_record_of(index, c->suite->name, c->key));
		}
		if (r->st[i] == C_OK) /* too few samples, too much spread: said on the row */
			quality_describe(why, sizeof(why), terminal_record_of(index, c->suite->name, c->key));
		flagged += *why != 0;
		fprintf(stderr, "%-12s %-48s %-12s %14s %5s %7s %s%s%s\n", c->suite->name, c->key, run_cstate_names[r->st[i]],
			val, n, cv, pct, *why ? (*pct ? " ! " : "! ") : "", why);
	}
	terminal_print_coll(stderr, records);
	/* every case that did not give a figure, with its reason: a person reads why here, not in a log */
	if (counts[C_FAILED] + counts[C_SKIPPED] + counts[C_INTERRUPTED] + counts[C_PENDING])
		fprintf(stderr, "\n");
	for (size_t i = 0; i < r->plan.n; i++)
		if (r->st[i] != C_OK)
			fprintf(stderr, "%s %s/%s: %s\n", run_cstate_names[r->st[i]], r->plan.cases[i].suite->name,
				r->plan.cases[i].key, r->err[i] ? r->err[i] : "no reason recorded");
	if (json_array_size(findings)) {
		fprintf(stderr, "\nfindings (docs/findings.md):\n");
		findings_print(stderr, findings);
	}
	fprintf(stderr, "\n%zu ok, %zu failed, %zu skipped, %zu interrupted — %s\n", counts[C_OK], counts[C_FAILED],
		counts[C_SKIPPED], counts[C_INTERRUPTED], r->dir);
	quality_print_note(stderr, flagged, counts[C_OK]);
cleanup:
	json_decref(index);
	json_decref(records);
	json_decref(findings);
	json_decref(root);
}

int run_make_dir(struct run *r, const char *mbuf, size_t mlen)
{
	const char *parent = r->o->out_parent ? r->o->out_parent : "runs";
	char *stamp = run_utc_stamp("%Y%m%dT%H%M%SZ");
	unsigned char rnd[3];
	char tag[8];
	static const char *const subdirs[] = { "results", "logs", "cases", "env", "env/raw", NULL };
	int err;

	if ((err = fs_mkdir_p(parent)) < 0)
		goto cleanup;
	/* <name>-<UTC second>-<6 random hex>: sorts by time, and two runs of one manifest started in the same second
	 * (a CI matrix, several nodes, one shared results repository) never share a name */
	for (int k = 1;; k++) {
		if (RAND_bytes(rnd, sizeof(rnd)) != 1) {
			err = bench_error_set(BENCH_E_IO, "cannot draw random bytes for the run name");
			goto cleanup;
		}
		snprintf(tag, sizeof(tag), "%02x%02x%02x", rnd[0], rnd[1], rnd[2]);
		r->dir = xstrfmt("%s/%s-%s-%s", parent, r->m.name, stamp, tag);
		if (mkdir(r->dir, 0755) == 0) {
			if ((err = run_lock_dir(r, r->dir)) < 0)
				goto cleanup;
			break;
		}
		if (errno != EEXIST || k > 100) {
			err = bench_error_set(BENCH_E_IO, "cannot create the run directory '%s': %s", r->dir, strerror(errno));
			goto cleanup;
		}
		free(r->dir);
		r->dir = NULL;
	}
	for (size_t i = 0; subdirs[i]; i++) {
		char *d = xstrfmt("%s/%s", r->dir, subdirs[i]);

		err = fs_mkdir_p(d);
		free(d);
		if (err < 0)
			goto cleanup;
	}
	if ((err = run_reserve_space(r)) < 0)
		goto cleanup;
	err = run_write_atomic(r->dir, "manifest.yaml", mbuf, mlen);
cleanup:
	free(stamp);
	return err;
}

