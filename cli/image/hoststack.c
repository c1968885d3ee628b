/* SPDX-License-Identifier: Apache-2.0 */
/* hoststack.c — host stacks: git components built into content-addressed prefixes, pip closures installed into
 * virtual environments, path components pinned by their libraries; the environment the runners get from them. */
#include "hoststack.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/libscan.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "core/utf8locale.h"
#include "manifest/lock.h"
#include "snapshot.h"

extern char **environ;

const char *host_stack_root(void)
{
	static char dir[4096];

	snprintf(dir, sizeof(dir), "%s/stacks", fs_bench_home());
	return dir;
}

static int exists(const char *p)
{
	struct stat sb;

	return lstat(p, &sb) == 0;
}

/* What names a built component: its commit and build commands (git), its closure (pip). The same pin built the
 * same way is the same directory, whichever manifest names it. */
static void comp_digest(char out[65], const struct component *c, json_t *entry)
{
	json_t *key;
	char *text;

	if (c->source == SOURCE_GIT) {
		json_t *b = json_array();

		for (size_t i = 0; i < c->nbuild; i++)
			json_array_append_new(b, json_string(c->build[i]));
		key = json_pack("{s:s, s:O, s:o}", "source", "git", "commit", json_object_get(entry, "commit"), "build", b);
	} else {
		json_t *pk = json_array(), *p;
		size_t i;

		json_array_foreach(json_object_get(entry, "packages"), i, p)
			json_array_append_new(pk, json_pack("{s:O, s:O, s:O}", "name", json_object_get(p, "name"), "version",
							    json_object_get(p, "version"), "sha256", json_object_get(p, "sha256")));
		key = json_pack("{s:s, s:o}", "source", "pip", "packages", pk);
	}
	text = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS);
	lock_sha256_hex(out, text, strlen(text));
	free(text);
	json_decref(key);
}

static char *comp_dir(const struct component *c, json_t *entry)
{
	char d[65];

	comp_digest(d, c, entry);
	return xstrfmt("%s/%.32s", host_stack_root(), d);
}

/* ---- building ------------------------------------------------------------------------------------------------- */

static int extract_snapshot_entries(const char *tarball, const char *dir);

/* The snapshot's entries ("src/...") extracted under dir, refusing anything that would land outside it; names
 * read as the UTF-8 they are (in the C locale a non-ASCII one came back NULL: core/utf8locale.h) */
static int extract_snapshot(const char *tarball, const char *dir)
{
	locale_t old = utf8locale_push();
	int err = extract_snapshot_entries(tarball, dir);

	utf8locale_pop(old);
	return err;
}

static int extract_snapshot_entries(const char *tarball, const char *dir)
{
	struct archive *in = archive_read_new(), *out = archive_write_disk_new();
	struct archive_entry *e;
	int r, err = 0;

	archive_read_support_format_tar(in);
	archive_read_support_filter_gzip(in);
	/* the names are checked below before dir is put in front of them */
	archive_write_disk_set_options(out, ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
				       ARCHIVE_EXTRACT_SECURE_SYMLINKS);
	if (archive_read_open_filename(in, tarball, 1 << 16) != ARCHIVE_OK) {
		err = bench_error_set(BENCH_E_IO, "cannot read the snapshot '%s': %s", tarball, archive_error_string(in));
		goto cleanup;
	}
	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e), *hl = archive_entry_hardlink(e);
		char *p;
		const void *buf;
		size_t len;
		la_int64_t off;

		if (!name || name[0] == '/' || strstr(name, "..") || (hl && (hl[0] == '/' || strstr(hl, "..")))) {
			err = bench_error_set(BENCH_E_IO, "the snapshot '%s' has an unsafe entry '%s'", tarball, name ? name : "");
			goto cleanup;
		}
		p = xstrfmt("%s/%s", dir, name);
		archive_entry_set_pathname(e, p);
		free(p);
		if (hl) {
			p = xstrfmt("%s/%s", dir, hl);
			archive_entry_set_hardlink(e, p);
			free(p);
		}
		if (archive_write_header(out, e) != ARCHIVE_OK)
			goto fail;
		while ((r = archive_read_data_block(in, &buf, &len, &off)) == ARCHIVE_OK)
			if (archive_write_data_block(out, buf, len, off) != ARCHIVE_OK)
				goto fail;
		if (r != ARCHIVE_EOF || archive_write_finish_entry(out) != ARCHIVE_OK)
			goto fail;
	}
	if (r == ARCHIVE_EOF)
		goto cleanup;
fail:
	err = bench_error_set(BENCH_E_IO, "cannot extract the snapshot '%s' into '%s': %s", tarball, dir,
			      archive_error_string(out) ? archive_error_string(out) : archive_error_string(in));
cleanup:
	archive_read_free(in);
	archive_write_free(out);
	return err;
}

struct build_log {
	FILE *log;
	char last[512];   /* the last line, for the error */
	char reason[512]; /* a line "bench: error: REASON" the build printed */
};

static int on_build_line(void *ctx, const char *line, size_t len)
{
	struct build_log *bl = ctx;

	fprintf(bl->log, "%.*s\n", (int)len, line);
	if (len)
		snprintf(bl->last, sizeof(bl->last), "%.*s", (int)len, line);
	if (len > 14 && !strncmp(line, "bench: error: ", 14))
		snprintf(bl->reason, sizeof(bl->reason), "%.*s", (int)(len - 14), line + 14);
	return 0;
}

/* Runs argv with the build's environment, its output into bl's log. */
static int run_step(struct build_log *bl, char *const *argv, char *const *envp, volatile sig_atomic_t *stop,
		    const char *what)
{
	struct spawn_opts so;
	struct spawn_result res;

	memset(&so, 0, sizeof(so));
	so.argv = argv;
	so.envp = envp;
	so.stderr_fd = -1;
	so.stderr_to_stdout = 1;
	so.stop = stop;
	so.on_line = on_build_line;
	so.ctx = bl;
	so.max_line = 1 << 16;
	bl->last[0] = '\0';
	if (spawn_run(&res, &so) < 0)
		return bench_error_set(BENCH_E_BUILD, "%s: cannot start '%s': %s", what, argv[0], bench_error_last());
	fflush(bl->log);
	if (res.end == SPAWN_STOPPED)
		return bench_error_set(BENCH_E_SUITE, "%s: interrupted", what);
	if (res.end == SPAWN_EXITED && res.exit_code == 0)
		return 0;
	if (res.end == SPAWN_EXITED)
		return bench_error_set(BENCH_E_BUILD, "%s failed (exit %d): %s", what, res.exit_code,
				       bl->reason[0] ? bl->reason : bl->last[0] ? bl->last : "(no output)");
	return bench_error_set(BENCH_E_BUILD, "%s ended by signal %d", what, res.term_signal);
}

static int dir_is_empty(const char *p)
{
	glob_t g;
	char *pat = xstrfmt("%s/*", p);
	int empty = glob(pat, 0, NULL, &g) != 0;

	if (!empty)
		globfree(&g);
	free(pat);
	return empty;
}

static char *utc_now(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

/* The environment of a build: ours, the stack's variables, and BENCH_PREFIX / BENCH_SRC. */
static void build_env(struct strvec *env, const struct manifest *m, const char *prefix, const char *src)
{
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "BENCH_PREFIX=", 13) && strncmp(*e, "BENCH_SRC=", 10))
			strvec_push(env, *e);
	for (size_t i = 0; i < m->stack.nenv; i++)
		strvec_pushf(env, "%s=%s", m->stack.env[i].name, m->stack.env[i].value);
	strvec_pushf(env, "BENCH_PREFIX=%s", prefix);
	if (src)
		strvec_pushf(env, "BENCH_SRC=%s", src);
}

/* One holder of a stack directory at a time: a second bench building the same pin waits for the first. */
static int lock_stack_dir(int *fd, const char *dir)
{
	char *p = xstrfmt("%s/.lock", dir);

	*fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(p);
	if (*fd < 0 || flock(*fd, LOCK_EX) != 0)
		return bench_error_set(BENCH_E_IO, "cannot lock '%s': %s", dir, strerror(errno));
	return 0;
}

static int write_build_json(const char *dir, json_t *rec)
{
	char *p = xstrfmt("%s/build.json", dir), *text = json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS);
	int err = fs_write_file(p, text, strlen(text), 0644);

	free(p);
	free(text);
	return err;
}

/* A build log, created anew (fs_open_new: a link or a FIFO of its name in $BENCH_HOME is not written through). */
static FILE *log_create(const char *path)
{
	int fd = fs_open_new(path, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

static void say_up_to_date(FILE *progress, const struct component *c, const char *dir, double t0)
{
	char *p = xstrfmt("%s/build.json", dir);
	json_t *b = NULL;

	fs_load_json(&b, p, 16u << 20, 0); /* $BENCH_HOME's: read without blocking on what is not a file */

	if (progress)
		fprintf(progress, "bench: build: %s: up to date in %s (built %s in %.1f s; checked in %.3f s)\n", c->name,
			json_string_value(json_object_get(b, "prefix")) ? json_string_value(json_object_get(b, "prefix")) : dir,
			json_string_value(json_object_get(b, "finished")) ? json_string_value(json_object_get(b, "finished")) : "?",
			json_real_value(json_object_get(b, "seconds")), units_now_s() - t0);
	json_decref(b);
	free(p);
}

/* Before building component c into dir: 1 when dir's build.json says it is built (and force is not given), found
 * again after waiting for the directory's lock (*fd) where another bench was building it; else 0 with the old
 * build.json gone, or a negative code. */
static int build_begin(int *fd, const struct component *c, const char *dir, int force, FILE *progress, double t0)
{
	char *marker = xstrfmt("%s/build.json", dir);
	int err = 0;

	if (!force && exists(marker))
		goto up_to_date;
	if ((err = fs_mkdir_p(dir)) < 0 || (err = lock_stack_dir(fd, dir)) < 0)
		goto cleanup;
	if (!force && exists(marker)) /* another bench built it while this one waited */
		goto up_to_date;
	unlink(marker);
	goto cleanup;
up_to_date:
	say_up_to_date(progress, c, dir, t0);
	err = 1;
cleanup:
	free(marker);
	return err;
}

/* A git component's build commands, each run in its source tree by /bin/sh with the build's environment. */
static int git_run_steps(struct build_log *bl, const struct component *c, struct strvec *env, FILE *progress,
			 volatile sig_atomic_t *stop, const char *logp)
{
	struct strvec av = STRVEC_INIT;
	char *what = NULL;
	int err = 0;

	for (size_t i = 0; i < c->nbuild && !err; i++) {
		double ts = units_now_s();

		if (progress)
			fprintf(progress, "bench: build: %s: [%zu/%zu] %s\n", c->name, i + 1, c->nbuild, c->build[i]);
		fprintf(bl->log, "bench: build step %zu of %zu: %s\n", i + 1, c->nbuild, c->build[i]);
		strvec_release(&av);
		/* the manifest's command is an argument of the script, never part of it */
		strvec_push(&av, "/bin/sh");
		strvec_push(&av, "-c");
		strvec_push(&av, "cd \"$BENCH_SRC\" && exec /bin/sh -c \"$1\"");
		strvec_push(&av, "sh");
		strvec_push(&av, c->build[i]);
		free(what);
		what = xstrfmt("component '%s': build step %zu ('%s')", c->name, i + 1, c->build[i]);
		if ((err = run_step(bl, strvec_argv(&av), strvec_argv(env), stop, what)) < 0)
			bench_error_set(err, "%s (whole log: %s)", bench_error_last(), logp);
		else
			fprintf(bl->log, "bench: build step %zu took %.1f s\n", i + 1, units_now_s() - ts);
	}
	strvec_release(&av);
	free(what);
	return err;
}

/* A git component's build.json (bench.hostbuild/v1): what was built, from which commit, into which prefix, when. */
static json_t *git_record(const struct component *c, const char *commit, const char *prefix, const char *started,
			  double t0, json_t *libs, const char *logp)
{
	json_t *b = json_array(), *rec;
	char *finished = utc_now();

	for (size_t i = 0; i < c->nbuild; i++)
		json_array_append_new(b, json_string(c->build[i]));
	rec = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:f, s:O, s:s}", "schema", "bench.hostbuild/v1",
			"component", c->name, "git", c->git, "commit", commit, "build", b, "prefix", prefix, "started",
			started, "finished", finished, "seconds", units_now_s() - t0, "libs", libs, "log", logp);
	free(finished);
	return rec;
}

static int build_git(const struct manifest *m, const struct component *c, json_t *entry, long long sde, int force,
		     FILE *progress, volatile sig_atomic_t *stop)
{
	const char *commit = json_string_value(json_object_get(entry, "commit"));
	char *dir = comp_dir(c, entry), *prefix = xstrfmt("%s/%s", dir, c->name), *src = xstrfmt("%s/src", dir);
	char *logp = xstrfmt("%s/build.log", dir), *tarball = xstrfmt("%s/src.tar.gz", dir), *started = NULL;
	struct build_log bl = { 0 };
	struct strvec env = STRVEC_INIT;
	json_t *libs = NULL, *rec = NULL;
	double t0 = units_now_s();
	int fd = -1, err = 0;

	if (!commit) {
		err = bench_error_set(BENCH_E_MANIFEST, "the lock has no commit for git component '%s': run 'bench lock'", c->name);
		goto cleanup;
	}
	if ((err = build_begin(&fd, c, dir, force, progress, t0)) != 0) {
		err = err > 0 ? 0 : err;
		goto cleanup;
	}
	if (fs_remove_tree(prefix) != 0 || fs_remove_tree(src) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot clear '%s' for a new build: %s", dir, strerror(errno));
		goto cleanup;
	}
	if (progress)
		fprintf(progress, "bench: build: %s: %.12s of %s into %s\n", c->name, commit, c->git, prefix);
	started = utc_now();
	if ((err = snapshot_git(tarball, c->git, commit, "src", sde)) < 0 || (err = extract_snapshot(tarball, dir)) < 0)
		goto cleanup;
	if (!(bl.log = log_create(logp))) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", logp, strerror(errno));
		goto cleanup;
	}
	build_env(&env, m, prefix, src);
	if (!c->nbuild && !exists(src) && (err = fs_mkdir_p(src)) < 0) /* an empty tree has no entry in the archive */
		goto cleanup;
	if (!c->nbuild && rename(src, prefix) != 0) { /* no build: the source tree is the prefix */
		err = bench_error_set(BENCH_E_IO, "cannot move '%s' to '%s': %s", src, prefix, strerror(errno));
		goto cleanup;
	}
	if ((err = git_run_steps(&bl, c, &env, progress, stop, logp)) < 0)
		goto cleanup;
	if (c->nbuild && (!exists(prefix) || dir_is_empty(prefix))) {
		err = bench_error_set(BENCH_E_BUILD, "component '%s' installed nothing into %s: its build must install there "
				      "(make install PREFIX=\"$BENCH_PREFIX\", cmake --install . --prefix \"$BENCH_PREFIX\") "
				      "(whole log: %s)", c->name, prefix, logp);
		goto cleanup;
	}
	if ((err = libscan_dir(&libs, prefix, NULL, 0)) < 0)
		goto cleanup;
	rec = git_record(c, commit, prefix, started, t0, libs, logp);
	if ((err = write_build_json(dir, rec)) < 0)
		goto cleanup;
	if (progress)
		fprintf(progress, "bench: build: %s: built in %.1f s: %zu librar%s in %s (log %s)\n", c->name, units_now_s() - t0,
			json_array_size(libs), json_array_size(libs) == 1 ? "y" : "ies", prefix, logp);
cleanup:
	if (bl.log)
		fclose(bl.log);
	if (exists(src))
		fs_remove_tree(src);
	unlink(tarball);
	if (fd >= 0)
		close(fd);
	strvec_release(&env);
	json_decref(libs);
	json_decref(rec);
	free(dir);
	free(prefix);
	free(src);
	free(logp);
	free(tarball);
	free(started);
	return err;
}

/* dir/requirements.txt: each package of the lock entry's closure as NAME @ URL --hash=sha256:HEX */
static int write_requirements(const char *req, json_t *entry)
{
	struct strbuf rq = STRBUF_INIT;
	json_t *p;
	size_t i;
	int err;

	json_array_foreach(json_object_get(entry, "packages"), i, p)
		strbuf_addf(&rq, "%s @ %s --hash=sha256:%s\n", json_string_value(json_object_get(p, "name")),
			    json_string_value(json_object_get(p, "url")), json_string_value(json_object_get(p, "sha256")));
	err = fs_write_file(req, rq.buf ? rq.buf : "", rq.len, 0644);
	strbuf_release(&rq);
	return err;
}

/* host_py -m pip --python PY install, by hash, nothing resolved or fetched from an index */
static void pip_install_argv(struct strvec *av, const char *host_py, const char *py, const char *req)
{
	static const char *const opts[] = { "install", "--isolated", "--disable-pip-version-check", "--no-deps",
					    "--no-index", "--require-hashes", "-r", NULL };

	strvec_push(av, host_py);
	strvec_push(av, "-m");
	strvec_push(av, "pip");
	strvec_push(av, "--python");
	strvec_push(av, py);
	for (size_t i = 0; opts[i]; i++)
		strvec_push(av, opts[i]);
	strvec_push(av, req);
}

/* The version X.Y of interpreter py, or NULL when it does not start (caller frees). */
static char *python_version(const char *py)
{
	char *const argv[] = { (char *)py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])", NULL };
	char *out = NULL;
	size_t n;

	if (spawn_capture(&out, &n, argv, 64, 60) < 0 || !out) {
		free(out);
		return NULL;
	}
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/* A pip component's build.json (bench.hostbuild/v1): its environment, interpreter and packages. */
static json_t *pip_record(const struct component *c, json_t *entry, const char *venv, const char *py,
			  const char *started, double t0, const char *logp)
{
	json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:O, s:s, s:[]}", "schema", "bench.hostbuild/v1",
				"component", c->name, "prefix", venv, "python", py, "started", started, "seconds",
				units_now_s() - t0, "packages", json_object_get(entry, "packages"), "log", logp, "libs");
	char *fin = utc_now();

	json_object_set_new(rec, "finished", json_string(fin));
	free(fin);
	return rec;
}

/* A pip component's locked closure in a virtual environment of its own (no system site packages), installed by
 * hash with nothing resolved: python3 -m venv --without-pip, then pip --python VENV install --no-deps
 * --require-hashes of each package's locked wheel URL. */
static int build_pip(const struct manifest *m, const struct component *c, json_t *entry, json_t *lock, int force,
		     FILE *progress, volatile sig_atomic_t *stop)
{
	char *dir = comp_dir(c, entry), *venv = xstrfmt("%s/venv", dir), *logp = xstrfmt("%s/build.log", dir);
	char *req = xstrfmt("%s/requirements.txt", dir), *py = NULL, *started = NULL, *vout = NULL, *host_py = NULL;
	const char *want = json_string_value(json_object_get(json_object_get(lock, "wheel_target"), "python"));
	struct build_log bl = { 0 };
	struct strvec env = STRVEC_INIT, av = STRVEC_INIT;
	json_t *rec = NULL;
	double t0 = units_now_s();
	int fd = -1, err = 0;

	if ((err = build_begin(&fd, c, dir, force, progress, t0)) != 0) {
		err = err > 0 ? 0 : err;
		goto cleanup;
	}
	if (fs_remove_tree(venv) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot clear '%s': %s", venv, strerror(errno));
		goto cleanup;
	}
	if (!(bl.log = log_create(logp))) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", logp, strerror(errno));
		goto cleanup;
	}
	started = utc_now();
	if (progress)
		fprintf(progress, "bench: build: %s: %zu package%s into %s\n", c->name, json_array_size(json_object_get(entry, "packages")),
			json_array_size(json_object_get(entry, "packages")) == 1 ? "" : "s", venv);
	build_env(&env, m, venv, NULL);
	if (!(host_py = spawn_which_required("python3", "the interpreter of a pip component's environment", BENCH_E_BUILD))) {
		err = BENCH_E_BUILD;
		goto cleanup;
	}
	strvec_push(&av, host_py);
	strvec_push(&av, "-m");
	strvec_push(&av, "venv");
	strvec_push(&av, "--without-pip");
	strvec_push(&av, venv);
	if ((err = run_step(&bl, strvec_argv(&av), strvec_argv(&env), stop, "python3 -m venv")) < 0)
		goto fail;
	py = xstrfmt("%s/bin/python3", venv);
	if (!(vout = python_version(py))) {
		err = bench_error_set(BENCH_E_BUILD, "component '%s': the environment's python3 does not start", c->name);
		goto fail;
	}
	if (want && strcmp(want, vout)) {
		err = bench_error_set(BENCH_E_MANIFEST, "component '%s': the lock's wheels are for Python %s, and this machine's "
				      "python3 is %s: set stack.wheel_target.python (and abi) to it and lock again", c->name,
				      want, vout);
		goto cleanup;
	}
	if ((err = write_requirements(req, entry)) < 0)
		goto cleanup;
	strvec_release(&av);
	pip_install_argv(&av, host_py, py, req);
	if ((err = run_step(&bl, strvec_argv(&av), strvec_argv(&env), stop, "pip install")) < 0)
		goto fail;
	rec = pip_record(c, entry, venv, py, started, t0, logp);
	if ((err = write_build_json(dir, rec)) < 0)
		goto cleanup;
	if (progress)
		fprintf(progress, "bench: build: %s: environment made in %.1f s: %s\n", c->name, units_now_s() - t0, venv);
	goto cleanup;
fail:
	bench_error_set(err, "component '%s': %s (whole log: %s)", c->name, bench_error_last(), logp);
cleanup:
	if (bl.log)
		fclose(bl.log);
	if (fd >= 0)
		close(fd);
	strvec_release(&env);
	strvec_release(&av);
	json_decref(rec);
	free(dir);
	free(venv);
	free(logp);
	free(req);
	free(py);
	free(started);
	free(vout);
	free(host_py);
	return err;
}

static json_t *lock_entry(json_t *lock, const struct component *c)
{
	json_t *e = json_object_get(json_object_get(lock, "components"), c->name);

	if (!e || strcmp(json_string_value(json_object_get(e, "source")) ? json_string_value(json_object_get(e, "source")) : "",
			 source_names[c->source])) {
		bench_error_set(BENCH_E_MANIFEST, "the lock has no %s entry for component '%s': run 'bench lock' again",
				source_names[c->source], c->name);
		return NULL;
	}
	return e;
}

int host_stack_build(const struct manifest *m, json_t *lock, int force, FILE *progress, volatile sig_atomic_t *stop)
{
	long long sde = json_integer_value(json_object_get(lock, "source_date_epoch"));
	int err = 0;

	for (size_t i = 0; i < m->stack.ncomponents && !err; i++) {
		const struct component *c = &m->stack.components[i];
		json_t *e;

		if (c->source != SOURCE_GIT && c->source != SOURCE_PIP)
			continue;
		if (!(e = lock_entry(lock, c)))
			return BENCH_E_MANIFEST;
		err = c->source == SOURCE_GIT ? build_git(m, c, e, sde, force, progress, stop)
					      : build_pip(m, c, e, lock, force, progress, stop);
	}
	return err;
}

/* ---- what the runners see ----------------------------------------------------------------------------------- */

static void push_if_dir(struct strvec *sv, const char *p)
{
	struct stat sb;

	if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
		strvec_push(sv, p);
}

/* prefix's bin on PATH; its library directories (libdirs) on LD_LIBRARY_PATH; its site-packages on PYTHONPATH
 * (not a virtual environment's: its own python3 finds them, and no other interpreter should) */
static void add_dirs(struct host_stack *hs, const char *prefix, int libdirs, int sitepkgs)
{
	char *bin = xstrfmt("%s/bin", prefix), *pat = xstrfmt("%s/lib/python3*/site-packages", prefix);
	char **dirs = NULL;
	size_t n = 0;
	glob_t g;

	push_if_dir(&hs->path, bin);
	if (libdirs) {
		libscan_lib_dirs(&dirs, &n, prefix);
		for (size_t i = 0; i < n; i++) {
			push_if_dir(&hs->ld, dirs[i]);
			free(dirs[i]);
		}
		free(dirs);
	}
	if (sitepkgs && glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			push_if_dir(&hs->pythonpath, g.gl_pathv[i]);
		globfree(&g);
	}
	free(bin);
	free(pat);
}

const struct host_component *host_stack_provider(const struct host_stack *hs, const char *soname, json_t **out_lib)
{
	for (size_t i = 0; i < hs->n; i++) {
		json_t *l;
		size_t k;

		json_array_foreach(hs->c[i].libs, k, l)
			if (!strcmp(json_string_value(json_object_get(l, "soname")), soname)) {
				if (out_lib)
					*out_lib = l;
				return &hs->c[i];
			}
	}
	return NULL;
}

/* A path component with 'libs': $BENCH_HOME/stacks/view-<digest of its path and files>/lib holds a link per pinned
 * library (named by its soname, to the file the lock pins), and only that directory goes on LD_LIBRARY_PATH, so a
 * library directory that holds more (a wheel's nvidia/cu13/lib: cuBLAS beside cudart, nvrtc, ...) changes no more
 * than the component names. The links are made anew each time (a rename over the old one). */
static char *view_dir(const struct component *c, json_t *libs)
{
	char *text = json_dumps(libs, JSON_COMPACT | JSON_SORT_KEYS), *key = xstrfmt("%s\n%s", c->path, text), sha[65];

	lock_sha256_hex(sha, key, strlen(key));
	free(text);
	free(key);
	return xstrfmt("%s/view-%.32s", host_stack_root(), sha);
}

/* The lock's libraries of path component c (entry e), each with where its file is on this machine now ("real"). */
static json_t *path_libs(const struct component *c, json_t *e)
{
	char real[PATH_MAX];
	json_t *libs = json_deep_copy(json_object_get(e, "libs")), *l;
	size_t k;

	json_array_foreach(libs, k, l) {
		char *p = xstrfmt("%s/%s", c->path, json_string_value(json_object_get(l, "file")));

		json_object_set_new(l, "real", json_string(realpath(p, real) ? real : p));
		free(p);
	}
	return libs;
}

static int link_view(struct host_stack *hs, const struct component *c, json_t *libs)
{
	char *dir = view_dir(c, libs), *lib;
	json_t *l;
	size_t k;
	int err = 0;

	lib = xstrfmt("%s/lib", dir);
	if ((err = fs_mkdir_p(lib)) < 0)
		goto cleanup;
	json_array_foreach(libs, k, l) {
		const char *so = json_string_value(json_object_get(l, "soname"));
		char *target = xstrfmt("%s/%s", c->path, json_string_value(json_object_get(l, "file")));
		char *link = xstrfmt("%s/%s", lib, so), *tmp = xstrfmt("%s/.%s.tmp", lib, so);

		unlink(tmp);
		if (symlink(target, tmp) != 0 || rename(tmp, link) != 0)
			err = bench_error_set(BENCH_E_IO, "cannot link '%s' to '%s': %s", link, target, strerror(errno));
		free(target);
		free(link);
		free(tmp);
		if (err < 0)
			goto cleanup;
	}
	strvec_push(&hs->ld, lib);
cleanup:
	free(dir);
	free(lib);
	return err;
}

static int load_one(struct host_component *hc, struct host_stack *hs, const struct component *c, json_t *e)
{

	hc->name = xstrdup(c->name);
	hc->source = c->source;
	if (c->source == SOURCE_PATH) {
		struct stat sb;

		if (stat(c->path, &sb) != 0 || !S_ISDIR(sb.st_mode))
			return bench_error_set(BENCH_E_MANIFEST, "component '%s': path '%s' %s (it was locked; lock again if it "
					       "moved)", c->name, c->path, errno == ENOENT ? "does not exist" : "is not a directory");
		hc->prefix = xstrdup(c->path);
		hc->libs = path_libs(c, e); /* where each pinned file is on this machine now */
		if (c->nlibs) /* only the libraries it names: a directory of links to them, not the whole lib directory */
			return link_view(hs, c, hc->libs);
		add_dirs(hs, c->path, 1, 1);
		return 0;
	}
	{
		char *dir = comp_dir(c, e), *bp = xstrfmt("%s/build.json", dir);

		fs_load_json(&hc->build, bp, 16u << 20, 0);
		free(bp);
		if (!hc->build) {
			bench_error_set(BENCH_E_MANIFEST, "component '%s' is not built on this host (%s): run 'bench build' of its "
					"manifest", c->name, dir);
			free(dir);
			return BENCH_E_MANIFEST;
		}
		free(dir);
	}
	hc->prefix = xstrdup(json_string_value(json_object_get(hc->build, "prefix")));
	hc->libs = json_deep_copy(json_object_get(hc->build, "libs"));
	if (!hc->libs)
		hc->libs = json_array();
	if (c->source == SOURCE_PIP) {
		free(hs->python);
		hs->python = xstrdup(json_string_value(json_object_get(hc->build, "python")));
	}
	add_dirs(hs, hc->prefix, c->source == SOURCE_GIT, c->source == SOURCE_GIT);
	return 0;
}

void host_stack_dirs(struct strvec *out, const struct manifest *m, json_t *lock)
{
	for (size_t i = 0; i < m->stack.ncomponents; i++) {
		const struct component *c = &m->stack.components[i];
		json_t *e = lock_entry(lock, c);

		if (!e)
			continue;
		if (c->source == SOURCE_GIT || c->source == SOURCE_PIP) {
			char *d = comp_dir(c, e);

			strvec_push(out, d);
			free(d);
		} else if (c->source == SOURCE_PATH && c->nlibs) {
			json_t *libs = path_libs(c, e);

			char *d = view_dir(c, libs);

			strvec_push(out, d);
			free(d);
			json_decref(libs);
		}
	}
}

int host_stack_load(struct host_stack *out, const struct manifest *m, json_t *lock)
{
	int err = 0;

	out->c = xcalloc(m->stack.ncomponents ? m->stack.ncomponents : 1, sizeof(*out->c));
	for (size_t i = 0; i < m->stack.ncomponents && !err; i++) {
		const struct component *c = &m->stack.components[i];
		json_t *e = lock_entry(lock, c), *l;
		size_t k;

		if (!e)
			return BENCH_E_MANIFEST;
		if ((err = load_one(&out->c[out->n], out, c, e)) < 0)
			break;
		json_array_foreach(out->c[out->n].libs, k, l) {
			const struct host_component *other = host_stack_provider(out, json_string_value(json_object_get(l, "soname")), NULL);

			if (other)
				return bench_error_set(BENCH_E_MANIFEST, "components '%s' and '%s' both provide %s: the runners would "
						       "load only the first; narrow the path component with 'libs' or drop one",
						       other->name, c->name, json_string_value(json_object_get(l, "soname")));
		}
		out->n++;
	}
	return err;
}

static void prepend(struct strvec *env, const char *name, const struct strvec *dirs)
{
	size_t nl = strlen(name);
	struct strbuf sb = STRBUF_INIT;
	size_t at = env->n;

	if (!dirs->n)
		return;
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, nl) && env->v[i][nl] == '=')
			at = i;
	strbuf_addf(&sb, "%s=", name);
	for (size_t i = 0; i < dirs->n; i++)
		strbuf_addf(&sb, "%s%s", i ? ":" : "", dirs->v[i]);
	if (at < env->n && env->v[at][nl + 1]) {
		strbuf_addf(&sb, ":%s", env->v[at] + nl + 1);
	}
	if (at < env->n) {
		free(env->v[at]);
		env->v[at] = strbuf_detach(&sb);
	} else {
		strvec_push(env, sb.buf);
		strbuf_release(&sb);
	}
}

void host_stack_apply_env(struct strvec *env, const struct host_stack *hs)
{
	prepend(env, "PATH", &hs->path);
	prepend(env, "LD_LIBRARY_PATH", &hs->ld);
	prepend(env, "PYTHONPATH", &hs->pythonpath);
}

static json_t *dirs_json(const struct strvec *sv)
{
	json_t *a = json_array();

	for (size_t i = 0; i < sv->n; i++)
		json_array_append_new(a, json_string(sv->v[i]));
	return a;
}

json_t *host_stack_json(const struct host_stack *hs)
{
	json_t *comps = json_object();

	for (size_t i = 0; i < hs->n; i++) {
		const struct host_component *c = &hs->c[i];
		json_t *o = json_pack("{s:s, s:s, s:O}", "source", source_names[c->source], "prefix", c->prefix, "libs", c->libs);

		if (c->build) {
			json_t *b = json_object();
			static const char *const keys[] = { "commit", "started", "finished", "seconds", "log", NULL };

			for (size_t k = 0; keys[k]; k++)
				if (json_object_get(c->build, keys[k]))
					json_object_set(b, keys[k], json_object_get(c->build, keys[k]));
			json_object_set_new(o, "build", b);
		}
		json_object_set_new(comps, c->name, o);
	}
	return json_pack("{s:o, s:{s:o, s:o, s:o}, s:s?}", "components", comps, "prepended", "PATH", dirs_json(&hs->path),
			 "LD_LIBRARY_PATH", dirs_json(&hs->ld), "PYTHONPATH", dirs_json(&hs->pythonpath), "python", hs->python);
}

void host_stack_release(struct host_stack *hs)
{
	for (size_t i = 0; i < hs->n; i++) {
		free(hs->c[i].name);
		free(hs->c[i].prefix);
		json_decref(hs->c[i].libs);
		json_decref(hs->c[i].build);
	}
	free(hs->c);
	strvec_release(&hs->path);
	strvec_release(&hs->ld);
	strvec_release(&hs->pythonpath);
	free(hs->python);
	memset(hs, 0, sizeof(*hs));
}
