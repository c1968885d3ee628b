#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/rand.h>

#include "../core/fs.h"
#include "../core/spawn.h"
#include "../core/strbuf.h"
#include "../manifest/lock.h"
#include "../manifest/manifest.h"
#include "../manifest/peaks.h"
#include "../manifest/plan.h"
#include "envcap.h"
#include "exec.h"

extern char **environ;

enum cstate { C_PENDING, C_OK, C_FAILED, C_SKIPPED, C_INTERRUPTED };
static const char *const cstate_names[] = { "pending", "ok", "failed", "skipped", "interrupted" };

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct run {
	json_t *runner_devices; /* suite -> the device/library description its runner reported */
	const struct run_opts *o;
	char *mpath, *mbuf;     /* the manifest's path and text */
	size_t mlen;
	json_t *plan_json;
	struct diag_list diags;
	int tried_make;
	json_t *interleave;     /* bench run A B --rounds N: this run's place in the set (status.json) */
	struct manifest m;
	struct plan plan;
	char *dir;
	enum cstate *st;
	char **err;
	int *wrong;
	json_t **headline; /* value per case (borrowed numbers copied) */
	struct peaks peaks;
	const struct peak *peak;
	int tty;
	char *started;
	char *fatal; /* why the run stopped before any suite started */
	struct built_image img; /* container engines: the stack's image */
};

/* ---- small file helpers --------------------------------------------------------------------------------------- */

/* Writes data to dir/name atomically (temporary file, then rename). */
static int write_atomic(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = xstrfmt("%s/%s", dir, name), *tmp = xstrfmt("%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	int err = 0;

	if (!f || fwrite(data, 1, len, f) != len || fflush(f) != 0 || fsync(fileno(f)) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path, strerror(errno));
		if (f)
			fclose(f);
	} else if (fclose(f) != 0 || rename(tmp, path) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path, strerror(errno));
	}
	free(path);
	free(tmp);
	return err;
}

static int write_json(const char *dir, const char *name, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	struct strbuf sb = STRBUF_INIT;
	int err;

	strbuf_addstr(&sb, s ? s : "null");
	strbuf_addch(&sb, '\n');
	err = write_atomic(dir, name, sb.buf, sb.len);
	free(s);
	strbuf_release(&sb);
	return err;
}

static char *utc_stamp(const char *fmt)
{
	char buf[64];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), fmt, &tm);
	return xstrdup(buf);
}

/* ---- state ------------------------------------------------------------------------------------------------------ */

static int write_status(struct run *r, const char *state)
{
	json_t *cases = json_array(), *root;
	int err;

	for (size_t i = 0; i < r->plan.n; i++) {
		json_t *c = json_pack("{s:s, s:s, s:s}", "suite", r->plan.cases[i].suite->name, "case",
				      r->plan.cases[i].key, "status", cstate_names[r->st[i]]);

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
	if (strcmp(state, "running")) {
		char *fin = utc_stamp("%Y-%m-%dT%H:%M:%SZ");

		json_object_set_new(root, "finished", json_string(fin));
		free(fin);
	}
	err = write_json(r->dir, "status.json", root);
	json_decref(root);
	return err;
}

static void set_state(struct run *r, size_t i, enum cstate s, const char *why)
{
	r->st[i] = s;
	free(r->err[i]);
	r->err[i] = why ? xstrdup(why) : NULL;
}

/* ---- progress --------------------------------------------------------------------------------------------------- */

struct suite_run {
	struct run *r;
	const struct suite_ops *s;
	FILE *results;
	FILE *log;
	size_t *batch;  /* plan indices of the cases this runner was given */
	size_t nbatch;
	size_t done;
	size_t malformed;
	double start;
	json_t *device; /* the device this runner reported on its first record (borrowed from r->runner_devices or owned) */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress(struct suite_run *sr, const char *key, const char *status, json_t *value, const char *unit,
		     const char *why)
{
	double el = now_s() - sr->start, eta = sr->done ? el / (double)sr->done * (double)(sr->nbatch - sr->done) : 0;
	char fig[400] = "";

	if (sr->r->o->quiet)
		return;
	if (json_is_number(value) && !why)
		snprintf(fig, sizeof(fig), " %.4g %s", json_number_value(value), unit ? unit : "");
	else if (why)
		snprintf(fig, sizeof(fig), " (%.360s)", why);
	if (sr->r->interleave) /* several stacks take turns: say whose line this is */
		fprintf(stderr, "%s%s: ", sr->r->tty ? "\r\033[K" : "", sr->r->m.name);
	if (sr->r->tty)
		fprintf(stderr, "%s%-12s [%zu/%zu] %5.0fs eta %4.0fs  %s: %s%s", sr->r->interleave ? "" : "\r\033[K", sr->s->name,
			sr->done, sr->nbatch, el, eta, key, status, fig);
	else
		fprintf(stderr, "%s [%zu/%zu] %.1fs %s: %s%s\n", sr->s->name, sr->done, sr->nbatch, el, key, status, fig);
}

static long find_case(struct suite_run *sr, const char *key)
{
	for (size_t b = 0; b < sr->nbatch; b++) {
		size_t i = sr->batch[b];

		if (!strcmp(sr->r->plan.cases[i].key, key))
			return (long)i;
	}
	return -1;
}

static int is_wrong(json_t *rec)
{
	json_t *extra = json_object_get(rec, "extra");
	json_t *w = json_object_get(extra, "wrong");
	const char *chk = json_string_value(json_object_get(extra, "check"));

	return (chk && !strcmp(chk, "wrong")) || (json_is_integer(w) && json_integer_value(w) > 0);
}

/* Lower-case letters and digits of s, for matching a target's GPU key against a device name. */
static void alnum_lower(char *out, size_t outlen, const char *s)
{
	size_t n = 0;

	for (; s && *s && n + 1 < outlen; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))
			out[n++] = *s;
		else if (*s >= 'A' && *s <= 'Z')
			out[n++] = (char)(*s - 'A' + 'a');
	out[n] = '\0';
}

/* Device honesty: why an ok record of case c, measured on dev (the runner's extra.device), does not measure the
 * manifest's target — another vendor, or another GPU model where both are known — or NULL when it does. */
static const char *device_mismatch(char *buf, size_t len, const struct run *r, const struct plan_case *c, json_t *dev)
{
	const char *want = vendor_names[r->m.target.vendor], *got = json_string_value(json_object_get(dev, "vendor"));
	const char *name = json_string_value(json_object_get(dev, "name"));
	const char *gpu = r->m.target.gpu ? r->m.target.gpu : want;
	char key[64], have[256];

	if (c->suite->on_host && c->suite->on_host(c->params))
		want = "cpu";
	if (!got) /* the runner did not say: nothing to hold it to */
		return NULL;
	if (strcmp(want, got)) {
		const char *why_cpu = json_string_value(json_object_get(dev, "why_cpu"));

		if (!strcmp(got, "cpu"))
			snprintf(buf, len, "target %s (%s) but no %s device is visible: the runner measured the host CPU%s%s%s",
				 gpu, want, !strcmp(want, "cuda") ? "CUDA" : "ROCm", why_cpu ? " (" : "", why_cpu ? why_cpu : "",
				 why_cpu ? ")" : "");
		else
			snprintf(buf, len, "target %s (%s) but the runner measured a %s device (%s)", gpu, want, got,
				 name ? name : "unnamed");
		return buf;
	}
	if (!strcmp(want, "cpu") || !r->m.target.gpu || !name)
		return NULL;
	alnum_lower(key, sizeof(key), r->m.target.gpu);
	alnum_lower(have, sizeof(have), name);
	if (key[0] && !strstr(have, key)) {
		snprintf(buf, len, "target %s (%s) but the runner measured %s", gpu, want, name);
		return buf;
	}
	return NULL;
}

static int on_record(void *ctx, const char *line, size_t len)
{
	struct suite_run *sr = ctx;
	struct run *r = sr->r;
	json_error_t jerr;
	json_t *rec = json_loadb(line, len, 0, &jerr);
	const char *key, *status, *schema;
	char *rewritten = NULL;
	long i;

	if (!rec || !json_is_object(rec)) {
		fprintf(sr->log, "bench: malformed line from the runner (%s): %.200s\n", rec ? "not an object" : jerr.text, line);
		sr->malformed++;
		json_decref(rec);
		return 0;
	}
	key = json_string_value(json_object_get(rec, "case"));
	status = json_string_value(json_object_get(rec, "status"));
	schema = json_string_value(json_object_get(rec, "schema"));
	if (!key || !status || !schema || strcmp(schema, "bench.result/v1") ||
	    (strcmp(status, "ok") && strcmp(status, "failed") && strcmp(status, "skipped"))) {
		fprintf(sr->log, "bench: line is not a bench.result/v1 record: %.200s\n", line);
		sr->malformed++;
		json_decref(rec);
		return 0;
	}
	if ((i = find_case(sr, key)) < 0 || r->st[i] != C_PENDING) {
		fprintf(sr->log, "bench: record for a case %s: '%s'\n", i < 0 ? "not in this run" : "already reported", key);
		json_decref(rec);
		return 0;
	}
	if (json_is_object(json_object_get(json_object_get(rec, "extra"), "device"))) {
		json_t *dev = json_object_get(json_object_get(rec, "extra"), "device");

		if (!json_object_get(r->runner_devices, sr->s->name))
			json_object_set(r->runner_devices, sr->s->name, dev);
		if (!sr->device)
			sr->device = json_incref(dev);
	}
	if (!strcmp(status, "ok")) {
		char why[512];
		const char *bad = device_mismatch(why, sizeof(why), r, &r->plan.cases[i], sr->device);

		if (bad) { /* the figure stays in the record, but it is not a measurement of the target */
			json_object_set_new(rec, "status", json_string("failed"));
			json_object_set_new(rec, "error", json_string(bad));
			status = "failed";
			rewritten = json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
			if (rewritten) {
				line = rewritten;
				len = strlen(rewritten);
			}
		}
	}
	fwrite(line, 1, len, sr->results);
	fputc('\n', sr->results);
	fflush(sr->results);
	fsync(fileno(sr->results));
	if (!strcmp(status, "ok")) {
		set_state(r, (size_t)i, C_OK, NULL);
		json_decref(r->headline[i]);
		r->headline[i] = json_incref(json_object_get(rec, "value"));
	} else {
		const char *e = json_string_value(json_object_get(rec, "error"));

		set_state(r, (size_t)i, !strcmp(status, "failed") ? C_FAILED : C_SKIPPED,
			  e && *e ? e : "the runner gave no reason (see the suite's log)");
	}
	r->wrong[i] = is_wrong(rec);
	sr->done++;
	progress(sr, key, status, json_object_get(rec, "value"), json_string_value(json_object_get(rec, "unit")), r->err[i]);
	write_status(r, "running");
	json_decref(rec);
	free(rewritten);
	return 0;
}

/* ---- the environment handed to runners: ours plus the manifest's stack.env ---------------------------------- */

/* A CPU target measures the host: its runners see no GPU (a GPU machine would otherwise give GPU figures to a CPU
 * manifest), unless the manifest's stack.env sets these itself. */
static const char *const gpu_vars[] = { "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", NULL };

static int env_sets(const struct manifest *m, const char *entry)
{
	for (size_t i = 0; i < m->stack.nenv; i++) {
		size_t n = strlen(m->stack.env[i].name);

		if (!strncmp(entry, m->stack.env[i].name, n) && (entry[n] == '=' || entry[n] == '\0'))
			return 1;
	}
	return 0;
}

static int is_gpu_var(const char *entry)
{
	for (size_t k = 0; gpu_vars[k]; k++) {
		size_t n = strlen(gpu_vars[k]);

		if (!strncmp(entry, gpu_vars[k], n) && (entry[n] == '=' || entry[n] == '\0'))
			return 1;
	}
	return 0;
}

static void build_env(struct strvec *env, const struct manifest *m)
{
	int cpu = m->target.vendor == VENDOR_CPU;

	for (char **e = environ; *e; e++)
		if (!env_sets(m, *e) && !(cpu && is_gpu_var(*e)))
			strvec_push(env, *e);
	for (size_t i = 0; i < m->stack.nenv; i++)
		strvec_pushf(env, "%s=%s", m->stack.env[i].name, m->stack.env[i].value);
	for (size_t k = 0; cpu && gpu_vars[k]; k++)
		if (!env_sets(m, gpu_vars[k]))
			strvec_pushf(env, "%s=", gpu_vars[k]);
}

static void shell_quote(struct strbuf *sb, const char *s)
{
	if (*s && !strpbrk(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~")) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

static int try_make_runners(struct run *r)
{
	const char *data = fs_data_dir();
	char *mk = data ? xstrfmt("%s/Makefile", data) : NULL, *make = spawn_which("make");
	struct strvec av = STRVEC_INIT;
	struct spawn_result res;
	struct spawn_opts so;
	char *logp;
	int fd, err = -1;

	if (!mk || access(mk, R_OK) != 0 || !make || getenv("BENCH_RUNNERS"))
		goto cleanup;
	logp = xstrfmt("%s/logs/build-runners.log", r->dir);
	fd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	free(logp);
	strvec_push(&av, make);
	strvec_push(&av, "-C");
	strvec_push(&av, data);
	strvec_push(&av, "runners");
	memset(&so, 0, sizeof(so));
	so.argv = strvec_argv(&av);
	so.stderr_fd = fd;
	so.timeout_s = 1800;
	so.stop = &stop_flag;
	if (!r->o->quiet)
		fprintf(stderr, "bench: building the runners (make -C %s runners)\n", data);
	if (spawn_run(&res, &so) == 0 && res.end == SPAWN_EXITED && res.exit_code == 0)
		err = 0;
	if (fd >= 0)
		close(fd);
cleanup:
	free(mk);
	free(make);
	strvec_release(&av);
	return err;
}

/* Runs one suite's pending cases. Returns 0, or a negative code only for failures of bench itself. */
static const char *case_program(const struct suite_ops *s, const struct plan_case *c)
{
	const char *p = s->program_for ? s->program_for(c->params) : NULL;

	return p ? p : s->program;
}

/* Runs the pending cases of suite s whose runner is `program`, writing their cases to cases/<tag>.json. */
/* A batch job of suite s starts one task per node when the suite starts its own local ranks (training) and the
 * run has more than one GPU; else one task per rank. */
static int batch_per_node(const struct run *r, const struct suite_ops *s)
{
	return s->ranks_per_node_itself && r->m.target.nodes * r->m.target.gpus_per_node > 1;
}

static int run_group(struct run *r, const struct suite_ops *s, const char *program, const char *tag_name, int *tried_make)
{
	struct suite_run sr;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	const struct engine_ops *eng = engine_find(engine_names[r->m.runtime.engine]);
	const struct launcher_ops *lau = launcher_find(launcher_names[r->m.runtime.launcher]);
	json_t *cfg = json_object(), *cases = json_array();
	char *cases_path = NULL, *res_path = NULL, *log_path = NULL, *tag;
	struct spawn_result res;
	struct spawn_opts so;
	const char *why = NULL;
	char whybuf[512], batchwhy[512] = "";
	int err = 0, logfd = -1;
	long long nproc = 1;

	memset(&sr, 0, sizeof(sr));
	for (size_t i = 0; i < r->m.nsuites; i++)
		if (r->m.suites[i].ops == s && s->processes)
			nproc = s->processes(&r->m.suites[i], &r->m);
	sr.r = r;
	sr.s = s;
	sr.batch = xcalloc(r->plan.n, sizeof(*sr.batch));
	for (size_t i = 0; i < r->plan.n; i++) {
		if (r->plan.cases[i].suite != s || r->st[i] == C_OK || strcmp(case_program(s, &r->plan.cases[i]), program))
			continue;
		set_state(r, i, C_PENDING, NULL);
		sr.batch[sr.nbatch++] = i;
		json_array_append_new(cases, json_pack("{s:s, s:s, s:O}", "suite", s->name, "case", r->plan.cases[i].key,
						       "params", r->plan.cases[i].params));
	}
	if (sr.nbatch == 0)
		goto cleanup;
	json_object_set_new(cfg, "schema", json_string("bench.cases/v1"));
	json_object_set_new(cfg, "suite", json_string(s->name));
	json_object_set_new(cfg, "ranks", json_integer(r->m.target.nodes * r->m.target.gpus_per_node));
	json_object_set_new(cfg, "cases", cases);
	cases = NULL;
	if (r->peak) /* the denominators of MFU and % of peak, from images/bases/peaks.yaml */
		json_object_set_new(cfg, "gpu_peak", json_pack("{s:s, s:f, s:f, s:f}", "gpu", r->peak->key, "bf16_tflops",
							       r->peak->bf16_tflops, "fp8_tflops", r->peak->fp8_tflops,
							       "hbm_tbps", r->peak->hbm_tbps));
	tag = xstrfmt("cases/%s.json", tag_name);
	err = write_json(r->dir, tag, cfg);
	free(tag);
	if (err < 0)
		goto cleanup;
	cases_path = xstrfmt("%s/cases/%s.json", r->dir, tag_name);
	if (!eng) {
		snprintf(whybuf, sizeof(whybuf), "engine '%s' cannot run yet in this bench (implemented: host)",
			 engine_names[r->m.runtime.engine]);
		why = whybuf;
		goto mark;
	}
	if (!lau) {
		snprintf(whybuf, sizeof(whybuf), "launcher '%s' cannot run yet in this bench (implemented: local, mpirun)",
			 launcher_names[r->m.runtime.launcher]);
		why = whybuf;
		goto mark;
	}
	/* a batch launcher (slurm) starts the runner itself, in the image where there is one: only the runner here */
	if (eng->exec_prefix && !lau->run_batch && eng->exec_prefix(&argv, eng, &r->m, r->img.image, r->dir) < 0) {
		snprintf(whybuf, sizeof(whybuf), "%s", bench_error_last());
		why = whybuf;
		goto mark;
	}
	if (nproc > 1 && lau->prefix_argv && lau->prefix_argv(&argv, &r->m, nproc) < 0) {
		snprintf(whybuf, sizeof(whybuf), "%s", bench_error_last());
		why = whybuf;
		goto mark;
	}
	if (eng->runner_argv(&argv, &r->m, program, cases_path) < 0) {
		if (!eng->exec_prefix && !*tried_make && !strchr(program, '/')) {
			*tried_make = 1;
			if (try_make_runners(r) == 0) {
				strvec_release(&argv);
				if (nproc <= 1 || !lau->prefix_argv || lau->prefix_argv(&argv, &r->m, nproc) == 0)
					if (eng->runner_argv(&argv, &r->m, program, cases_path) == 0)
						goto start;
			}
		}
		snprintf(whybuf, sizeof(whybuf), "%s", bench_error_last());
		why = whybuf;
		goto mark;
	}
start:
	res_path = xstrfmt("%s/results/%s.jsonl", r->dir, s->name);
	log_path = xstrfmt("%s/logs/%s.log", r->dir, s->name);
	sr.results = fopen(res_path, "ab");
	sr.log = fopen(log_path, "ab");
	if (!sr.results || !sr.log) {
		err = bench_error_set(BENCH_E_IO, "cannot open '%s': %s", sr.results ? log_path : res_path, strerror(errno));
		goto cleanup;
	}
	setvbuf(sr.log, NULL, _IOLBF, 0);
	logfd = fileno(sr.log);
	build_env(&env, &r->m);
	{
		struct strbuf cmd = STRBUF_INIT;

		for (size_t i = 0; i < argv.n; i++) {
			if (i)
				strbuf_addch(&cmd, ' ');
			shell_quote(&cmd, argv.v[i]);
		}
		fprintf(sr.log, "bench: running %zu case%s: %s\n", sr.nbatch, sr.nbatch == 1 ? "" : "s", cmd.buf);
		if (r->o->verbose)
			fprintf(stderr, "bench: %s\n", cmd.buf);
		strbuf_release(&cmd);
	}
	if (strstr(program, ".py") && !eng->exec_prefix) /* a Python suite: what pip has installed is part of the stack */
		envcap_pip_list(r->dir, exec_python());
	tag = xstrfmt("before-%s", tag_name);
	envcap_gpu_snapshot(r->dir, tag);
	free(tag);
	memset(&so, 0, sizeof(so));
	so.argv = strvec_argv(&argv);
	so.envp = strvec_argv(&env);
	so.stderr_fd = logfd;
	so.timeout_s = (double)r->m.runtime.timeout_ns / 1e9;
	so.stop = &stop_flag;
	so.on_line = on_record;
	so.ctx = &sr;
	so.max_line = 64u << 20;
	sr.start = now_s();
	if (lau->run_batch) {
		struct batch_job job;

		memset(&job, 0, sizeof(job));
		job.run_dir = r->dir;
		job.tag = tag_name;
		job.argv = strvec_argv(&argv);
		job.ranks = nproc;
		job.per_node = batch_per_node(r, s);
		job.image = eng->exec_prefix ? r->img.image : NULL;
		job.timeout_s = so.timeout_s;
		job.stop = &stop_flag;
		job.on_line = on_record;
		job.ctx = &sr;
		job.log = sr.log;
		job.progress = r->o->quiet ? NULL : stderr;
		if (lau->run_batch(&res, batchwhy, sizeof(batchwhy), &r->m, &job) < 0) {
			snprintf(whybuf, sizeof(whybuf), "%s", bench_error_last());
			why = whybuf;
			goto mark;
		}
	} else if (spawn_run(&res, &so) < 0) {
		snprintf(whybuf, sizeof(whybuf), "%s", bench_error_last());
		why = whybuf;
		goto mark;
	}
	if (r->tty && !r->o->quiet)
		fprintf(stderr, "\n");
	tag = xstrfmt("after-%s", tag_name);
	envcap_gpu_snapshot(r->dir, tag);
	free(tag);
	switch (res.end) {
	case SPAWN_STOPPED:
		why = "interrupted (SIGINT/SIGTERM)";
		break;
	case SPAWN_TIMEOUT:
		snprintf(whybuf, sizeof(whybuf), "the runner did not finish within the suite timeout (%.0fs); its process "
			 "group was killed", so.timeout_s);
		why = whybuf;
		break;
	case SPAWN_SIGNALED:
		if (batchwhy[0]) /* the scheduler ended the job: its own words */
			snprintf(whybuf, sizeof(whybuf), "%s", batchwhy);
		else
			snprintf(whybuf, sizeof(whybuf), "the runner was killed by signal %d (%s) before reporting this case",
				 res.term_signal, strsignal(res.term_signal));
		why = whybuf;
		break;
	case SPAWN_EXITED:
		if (sr.done == sr.nbatch && res.exit_code == 0)
			break; /* every case reported: a clean end */
		if (res.exit_code)
			snprintf(whybuf, sizeof(whybuf), "the runner exited with status %d before reporting this case",
				 res.exit_code);
		else
			snprintf(whybuf, sizeof(whybuf), "the runner exited without reporting this case");
		why = whybuf;
		break;
	}
	if (sr.malformed)
		fprintf(sr.log, "bench: %zu malformed line%s ignored\n", sr.malformed, sr.malformed == 1 ? "" : "s");
	fprintf(sr.log, "bench: runner ended after %.1fs: %s\n", res.seconds, why ? why : "every case reported");
mark:
	for (size_t b = 0; b < sr.nbatch; b++) {
		size_t i = sr.batch[b];

		if (r->st[i] == C_PENDING)
			set_state(r, i, res.end == SPAWN_STOPPED && why && !strncmp(why, "interrupted", 11) ? C_INTERRUPTED
											       : C_FAILED,
				  why);
	}
	if (why && sr.done < sr.nbatch) /* an error: shown also with -q */
		fprintf(stderr, "bench: suite '%s': %zu of %zu case%s not measured: %s\n", s->name, sr.nbatch - sr.done,
			sr.nbatch, sr.nbatch == 1 ? "" : "s", why);
cleanup:
	json_decref(sr.device);
	if (sr.results)
		fclose(sr.results);
	if (sr.log)
		fclose(sr.log);
	free(sr.batch);
	free(cases_path);
	free(res_path);
	free(log_path);
	json_decref(cfg);
	json_decref(cases);
	strvec_release(&argv);
	strvec_release(&env);
	write_status(r, "running");
	return err;
}

/* Runs a suite: its pending cases grouped by the runner each needs (one group for most suites; gemm's torch
 * backends run in the PyTorch runner), in plan order of the groups' first cases. */
static int run_suite(struct run *r, const struct suite_ops *s, int *tried_make)
{
	const char *progs[8];
	size_t np = 0;
	int err = 0;

	for (size_t i = 0; i < r->plan.n && np < 8; i++) {
		const char *p;
		int seen = 0;

		if (r->plan.cases[i].suite != s || r->st[i] == C_OK)
			continue;
		p = case_program(s, &r->plan.cases[i]);
		for (size_t k = 0; k < np; k++)
			seen |= !strcmp(progs[k], p);
		if (!seen)
			progs[np++] = p;
	}
	for (size_t k = 0; k < np && !err && !stop_flag; k++) {
		char *tag = np == 1 ? xstrdup(s->name) : xstrfmt("%s-%zu", s->name, k + 1);

		err = run_group(r, s, progs[k], tag, tried_make);
		free(tag);
	}
	return err;
}

/* ---- resume: ok records already on disk are the truth -------------------------------------------------------- */

static int load_previous(struct run *r)
{
	for (size_t s = 0; s < r->m.nsuites; s++) {
		const char *name = r->m.suites[s].ops->name;
		char *path = xstrfmt("%s/results/%s.jsonl", r->dir, name), *buf = NULL, *line, *save = NULL;
		struct strbuf keep = STRBUF_INIT;
		size_t len;

		if (fs_read_file(&buf, &len, path, (size_t)1 << 34) < 0) {
			free(path);
			continue;
		}
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			json_t *rec = json_loads(line, 0, NULL);
			const char *key = json_string_value(json_object_get(rec, "case"));
			const char *status = json_string_value(json_object_get(rec, "status"));

			for (size_t i = 0; key && status && i < r->plan.n; i++) {
				if (r->plan.cases[i].suite != r->m.suites[s].ops || strcmp(r->plan.cases[i].key, key))
					continue;
				if (!strcmp(status, "ok") && r->st[i] != C_OK) {
					set_state(r, i, C_OK, NULL);
					r->headline[i] = json_incref(json_object_get(rec, "value"));
					strbuf_addstr(&keep, line);
					strbuf_addch(&keep, '\n');
				}
			}
			json_decref(rec);
		}
		/* the results file keeps only measured (ok) records; the rest are measured again */
		{
			char *rel = xstrfmt("results/%s.jsonl", name);

			write_atomic(r->dir, rel, keep.buf, keep.len);
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
		if (dt && !strcmp(dt, "fp8e4m3"))
			return r->peak->fp8_tflops;
		if (dt && !strcmp(dt, "fp32"))
			return 0; /* no fp32 tensor-core figure in peaks.yaml */
		return r->peak->bf16_tflops;
	case SUITE_PEAK_HBM:
		return r->peak->hbm_tbps;
	default:
		return 0;
	}
}

static void summarize(struct run *r)
{
	size_t counts[5] = { 0 };
	json_t *cases = json_array(), *root;

	for (size_t i = 0; i < r->plan.n; i++) {
		const struct plan_case *c = &r->plan.cases[i];
		double pk = peak_for(r, c);
		json_t *e = json_pack("{s:s, s:s, s:s, s:O, s:s}", "suite", c->suite->name, "case", c->key, "status",
				      cstate_names[r->st[i]], "value", r->headline[i] ? r->headline[i] : json_null(), "unit",
				      c->suite->unit);

		counts[r->st[i]]++;
		if (r->err[i])
			json_object_set_new(e, "error", json_string(r->err[i]));
		if (pk > 0 && json_is_number(r->headline[i]))
			json_object_set_new(e, "pct_of_peak", json_real(100.0 * json_number_value(r->headline[i]) / pk));
		json_array_append_new(cases, e);
	}
	root = json_pack("{s:s, s:s, s:s, s:{s:I, s:I, s:I, s:I, s:I}, s:o}", "schema", "bench.summary/v1", "run",
			 r->m.name, "gpu", r->peak ? r->peak->name : "", "counts", "ok", (json_int_t)counts[C_OK], "failed",
			 (json_int_t)counts[C_FAILED], "skipped", (json_int_t)counts[C_SKIPPED], "interrupted",
			 (json_int_t)counts[C_INTERRUPTED], "pending", (json_int_t)counts[C_PENDING], "cases", cases);
	write_json(r->dir, "summary.json", root);
	json_decref(root);
	if (r->o->quiet)
		return;
	fprintf(stderr, "\n%-12s %-48s %-12s %12s %-8s %s\n", "suite", "case", "status", "value", "unit",
		r->peak ? "% peak" : "");
	for (size_t i = 0; i < r->plan.n; i++) {
		const struct plan_case *c = &r->plan.cases[i];
		double pk = peak_for(r, c);
		char val[32] = "-", pct[32] = "";

		if (json_is_number(r->headline[i])) {
			snprintf(val, sizeof(val), "%.4g", json_number_value(r->headline[i]));
			if (pk > 0)
				snprintf(pct, sizeof(pct), "%.1f%%", 100.0 * json_number_value(r->headline[i]) / pk);
		}
		fprintf(stderr, "%-12s %-48s %-12s %12s %-8s %s\n", c->suite->name, c->key, cstate_names[r->st[i]], val,
			c->suite->unit, pct);
	}
	/* every case that did not give a figure, with its reason: a person reads why here, not in a log */
	if (counts[C_FAILED] + counts[C_SKIPPED] + counts[C_INTERRUPTED] + counts[C_PENDING])
		fprintf(stderr, "\n");
	for (size_t i = 0; i < r->plan.n; i++)
		if (r->st[i] != C_OK)
			fprintf(stderr, "%s %s/%s: %s\n", cstate_names[r->st[i]], r->plan.cases[i].suite->name,
				r->plan.cases[i].key, r->err[i] ? r->err[i] : "no reason recorded");
	fprintf(stderr, "\n%zu ok, %zu failed, %zu skipped, %zu interrupted — %s\n", counts[C_OK], counts[C_FAILED],
		counts[C_SKIPPED], counts[C_INTERRUPTED], r->dir);
}

/* ---- the run --------------------------------------------------------------------------------------------------- */

/* -s: the run holds the selected suites' cases and no others; a resumed run, the suites its plan.json holds. */
static int select_suites(struct plan *p, const struct run_opts *o, const char *mpath)
{
	struct strvec names = STRVEC_INIT;
	json_t *old = NULL;
	int err = 0;

	if (o->nonly) {
		for (size_t i = 0; i < o->nonly; i++)
			strvec_push(&names, o->only[i]);
	} else if (o->resume) {
		char *pp = xstrfmt("%s/plan.json", o->resume);
		const char *k;
		json_t *v;

		old = json_load_file(pp, 0, NULL);
		free(pp);
		if (!json_is_object(json_object_get(old, "suites")))
			goto cleanup; /* the plan comparison below says what is wrong */
		json_object_foreach(json_object_get(old, "suites"), k, v)
			strvec_push(&names, k);
	} else {
		goto cleanup;
	}
	plan_keep_suites(p, names.v, names.n);
	if (p->n == 0)
		err = bench_error_set(BENCH_E_USAGE, "--suite: %s has no case in '%s'", names.n == 1 ? "that suite" : "those suites",
				      mpath);
cleanup:
	json_decref(old);
	strvec_release(&names);
	return err;
}

static const struct engine_ops *eng_container(const struct run *r)
{
	const struct engine_ops *e = engine_find(engine_names[r->m.runtime.engine]);

	return e && e->exec_prefix ? e : NULL;
}

/* Container engines: the stack's image (built, or found for the same build context), its recipe and id
 * written into the run directory (image/), and the environment captured inside it (env/container.txt).
 * mbuf: the manifest's text (NULL on resume: the run directory already holds the lock). */
static int prepare_image(struct run *r, const char *mbuf, size_t mlen)
{
	const struct engine_ops *e = eng_container(r);
	char *lockp = NULL, *lbuf = NULL, *rbuf = NULL, *mb = NULL, *text = NULL;
	size_t llen = 0, rlen = 0, mblen = 0, tlen = 0;
	json_t *j = NULL;
	int err;

	if (mbuf) {
		const char *lp = r->o->lock ? r->o->lock : r->o->image_lock;

		if (!lp) {
			err = bench_error_set(BENCH_E_MANIFEST, "engine '%s' runs a locked stack: no lock was given", e->name);
			goto cleanup;
		}
		lockp = xstrdup(lp);
	} else {
		char *mp = xstrfmt("%s/manifest.yaml", r->dir);

		lockp = xstrfmt("%s/manifest.lock.json", r->dir);
		err = fs_read_file(&mb, &mblen, mp, MANIFEST_MAX_BYTES + 1);
		free(mp);
		if (err < 0)
			goto cleanup;
		mbuf = mb;
		mlen = mblen;
	}
	if (fs_read_file(&lbuf, &llen, lockp, 16u << 20) < 0) {
		err = bench_error_set(BENCH_E_MANIFEST, "engine '%s' runs a locked stack, and there is no readable lock at '%s' "
				      "(run 'bench lock %s')", e->name, lockp, r->o->manifest ? r->o->manifest : "MANIFEST");
		goto cleanup;
	}
	if ((err = image_build(&r->img, e->builder, &r->m, mbuf, mlen, lbuf, llen, 0, r->o->quiet ? NULL : stderr, &stop_flag)) < 0)
		goto cleanup;
	if ((err = write_atomic(r->dir, "manifest.lock.json", lbuf, llen)) < 0)
		goto cleanup;
	{
		char *d = xstrfmt("%s/image", r->dir);

		err = fs_mkdir_p(d);
		free(d);
		if (err < 0)
			goto cleanup;
	}
	if ((err = fs_read_file(&rbuf, &rlen, r->img.recipe, 16u << 20)) < 0 ||
	    (err = write_atomic(r->dir, !strcmp(e->builder->recipe_format, "apptainer") ? "image/bench.def" : "image/Containerfile",
				rbuf, rlen)) < 0)
		goto cleanup;
	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "schema", "bench.image/v1", "engine", e->name, "image",
		      r->img.image, "digest", r->img.digest, "context_sha256", r->img.context_sha, "reused", r->img.reused);
	if ((err = write_json(r->dir, "image/image.json", j)) < 0)
		goto cleanup;
	/* what is inside: OS, packages, shared libraries, Python packages (a fixed script, no manifest value in it) */
	{
		struct strvec av = STRVEC_INIT;

		if (e->exec_prefix(&av, e, &r->m, r->img.image, r->dir) == 0) {
			strvec_push(&av, "sh");
			strvec_push(&av, "-c");
			strvec_push(&av, "echo '## os-release'; cat /etc/os-release; echo '## uname'; uname -a; "
				    "echo '## dpkg'; dpkg-query -W -f '${Package}\t${Version}\n' 2>/dev/null; "
				    "echo '## ldconfig'; ldconfig -p 2>/dev/null; "
				    "echo '## alternatives'; ls -l /etc/alternatives 2>/dev/null; "
				    "echo '## pip'; python3 -m pip list --format=freeze 2>/dev/null; "
				    "echo '## env'; env | sort");
			if (spawn_capture(&text, &tlen, strvec_argv(&av), 16u << 20, 300) == 0 && text)
				write_atomic(r->dir, "env/container.txt", text, tlen);
		}
		strvec_release(&av);
	}
cleanup:
	json_decref(j);
	free(lockp);
	free(lbuf);
	free(rbuf);
	free(mb);
	free(text);
	return err;
}

static void dry_run(struct run *r)
{
	printf("# %s: %zu cases; engine %s, launcher %s\n", r->m.name, r->plan.n, engine_names[r->m.runtime.engine],
	       launcher_names[r->m.runtime.launcher]);
	for (size_t s = 0; s < r->m.nsuites; s++) {
		const struct suite_ops *ops = r->m.suites[s].ops;
		const struct engine_ops *eng = engine_find(engine_names[r->m.runtime.engine]);
		const struct launcher_ops *lau = launcher_find(launcher_names[r->m.runtime.launcher]);
		long long ranks = ops->processes ? ops->processes(&r->m.suites[s], &r->m) : 1;
		const char *progs[8];
		size_t np = 0;

		for (size_t i = 0; i < r->plan.n && np < 8; i++) {
			const char *p;
			int seen = 0;

			if (r->plan.cases[i].suite != ops)
				continue;
			p = case_program(ops, &r->plan.cases[i]);
			for (size_t k = 0; k < np; k++)
				seen |= !strcmp(progs[k], p);
			if (!seen)
				progs[np++] = p;
		}
		for (size_t k = 0; k < np; k++) {
			struct strvec argv = STRVEC_INIT;
			struct strbuf cmd = STRBUF_INIT;
			char *cases = np == 1 ? xstrfmt("RUN_DIR/cases/%s.json", ops->name)
					      : xstrfmt("RUN_DIR/cases/%s-%zu.json", ops->name, k + 1);
			size_t n = 0;

			for (size_t i = 0; i < r->plan.n; i++)
				if (r->plan.cases[i].suite == ops && !strcmp(case_program(ops, &r->plan.cases[i]), progs[k])) {
					printf("%-12s %s\n", ops->name, r->plan.cases[i].key);
					n++;
				}
			if (!eng)
				bench_error_set(BENCH_E_FAIL, "engine '%s' is not implemented yet", engine_names[r->m.runtime.engine]);
			else if (!lau)
				bench_error_set(BENCH_E_FAIL, "launcher '%s' is not implemented yet", launcher_names[r->m.runtime.launcher]);
			if (eng && lau && lau->batch_script) { /* the job script, as it will be submitted */
				struct batch_job job;
				struct strbuf script = STRBUF_INIT;
				char *tag = np == 1 ? xstrdup(ops->name) : xstrfmt("%s-%zu", ops->name, k + 1);

				memset(&job, 0, sizeof(job));
				job.run_dir = "RUN_DIR";
				job.tag = tag;
				job.ranks = ranks;
				job.per_node = batch_per_node(r, ops);
				job.image = eng->exec_prefix ? "IMAGE" : NULL;
				if (eng->runner_argv(&argv, &r->m, progs[k], cases) == 0 &&
				    (job.argv = strvec_argv(&argv), lau->batch_script(&script, &r->m, &job) == 0))
					printf("# %s: %zu case%s: sbatch RUN_DIR/slurm/%s.sbatch:\n%s", ops->name, n, n == 1 ? "" : "s",
					       tag, script.buf);
				else
					printf("# %s: %zu case%s: cannot run: %s\n", ops->name, n, n == 1 ? "" : "s", bench_error_last());
				strbuf_release(&script);
				free(tag);
			} else if (eng && lau && (!eng->exec_prefix || eng->exec_prefix(&argv, eng, &r->m, "IMAGE", "RUN_DIR") == 0) &&
			    (ranks <= 1 || !lau->prefix_argv || lau->prefix_argv(&argv, &r->m, ranks) == 0) &&
			    eng->runner_argv(&argv, &r->m, progs[k], cases) == 0) {
				for (size_t i = 0; i < argv.n; i++) {
					if (i)
						strbuf_addch(&cmd, ' ');
					shell_quote(&cmd, argv.v[i]);
				}
				printf("# %s: %zu case%s: %s\n", ops->name, n, n == 1 ? "" : "s", cmd.buf);
			} else {
				printf("# %s: %zu case%s: cannot run: %s\n", ops->name, n, n == 1 ? "" : "s", bench_error_last());
			}
			free(cases);
			strbuf_release(&cmd);
			strvec_release(&argv);
		}
	}
}

static int make_run_dir(struct run *r, const char *mbuf, size_t mlen)
{
	const char *parent = r->o->out_parent ? r->o->out_parent : "runs";
	char *stamp = utc_stamp("%Y%m%dT%H%M%SZ");
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
		if (mkdir(r->dir, 0755) == 0)
			break;
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
	err = write_atomic(r->dir, "manifest.yaml", mbuf, mlen);
cleanup:
	free(stamp);
	return err;
}

/* ---- the phases of a run: plan, prepare, execute (run_suite above), collect ---------------------------------- */

/* The manifest's stack.env, set in this process while the environment is captured, then put back. */
static void env_apply(struct strvec *saved, const struct manifest *m)
{
	for (size_t i = 0; i < m->stack.nenv; i++) {
		const char *old = getenv(m->stack.env[i].name);

		strvec_push(saved, m->stack.env[i].name);
		strvec_push(saved, old ? old : "");
		strvec_push(saved, old ? "1" : "0");
		setenv(m->stack.env[i].name, m->stack.env[i].value, 1);
	}
}

static void env_restore(struct strvec *saved)
{
	for (size_t i = 0; i + 2 < saved->n; i += 3) {
		if (!strcmp(saved->v[i + 2], "1"))
			setenv(saved->v[i], saved->v[i + 1], 1);
		else
			unsetenv(saved->v[i]);
	}
	strvec_release(saved);
}

/* --locked: the lock must be of exactly this manifest. */
static int check_locked(const struct run *r)
{
	json_t *lk = json_load_file(r->o->lock, 0, NULL);
	const char *have = json_string_value(json_object_get(lk, "manifest_sha256"));
	char sha[65];
	int err = 0;

	lock_sha256_hex(sha, r->mbuf, r->mlen);
	if (!lk)
		err = bench_error_set(BENCH_E_MANIFEST, "--locked: no readable lock at '%s' (run 'bench lock %s')", r->o->lock,
				      r->mpath);
	else if (!have || strcmp(have, sha))
		err = bench_error_set(BENCH_E_MANIFEST, "--locked: '%s' changed since '%s' was written (run 'bench lock' again)",
				      r->mpath, r->o->lock);
	json_decref(lk);
	return err;
}

/* --resume: the run directory's plan must be this manifest's; its ok records stand. */
static int reopen_run_dir(struct run *r)
{
	char *pp = xstrfmt("%s/plan.json", r->o->resume), *sp = xstrfmt("%s/status.json", r->o->resume);
	json_t *old = json_load_file(pp, 0, NULL), *st = NULL;
	int err = 0;

	if (!old || !json_equal(old, r->plan_json)) {
		err = bench_error_set(BENCH_E_MANIFEST, "'%s/plan.json' does not match the plan of its manifest.yaml; "
				      "this run cannot be resumed by this bench", r->o->resume);
		goto cleanup;
	}
	r->dir = xstrdup(r->o->resume);
	load_previous(r);
	st = json_load_file(sp, 0, NULL);
	r->started = xstrdup(json_string_value(json_object_get(st, "started")) ? json_string_value(json_object_get(st, "started")) : "");
	if (json_is_object(json_object_get(st, "interleave")))
		r->interleave = json_incref(json_object_get(st, "interleave"));
cleanup:
	json_decref(old);
	json_decref(st);
	free(pp);
	free(sp);
	return err;
}

/* Phase 1, plan: read and check the manifest, plan its cases, create the run directory (or reopen it). */
static int run_plan(struct run *r, const struct run_opts *o)
{
	struct diag_list pd = DIAG_LIST_INIT;
	int err;

	r->o = o;
	r->runner_devices = json_object();
	r->mpath = o->resume ? xstrfmt("%s/manifest.yaml", o->resume) : xstrdup(o->manifest);
	err = fs_read_file(&r->mbuf, &r->mlen, r->mpath, MANIFEST_MAX_BYTES + 1);
	if (err < 0 && err != BENCH_E_MANIFEST) {
		if (o->resume)
			bench_error_set(err, "'%s' is not a run directory: %s", o->resume, bench_error_last());
		goto cleanup;
	}
	if ((err = manifest_parse_buffer(&r->m, &r->diags, r->mpath, r->mbuf ? r->mbuf : "",
					 r->mbuf ? r->mlen : MANIFEST_MAX_BYTES + 1)) < 0) {
		diag_list_print(&r->diags, stderr);
		goto cleanup;
	}
	if ((err = plan_build(&r->plan, &r->m)) < 0 || (err = select_suites(&r->plan, o, r->mpath)) < 0)
		goto cleanup;
	if (o->lock && (err = check_locked(r)) < 0)
		goto cleanup;
	r->st = xcalloc(r->plan.n, sizeof(*r->st));
	r->err = xcalloc(r->plan.n, sizeof(*r->err));
	r->wrong = xcalloc(r->plan.n, sizeof(*r->wrong));
	r->headline = xcalloc(r->plan.n, sizeof(*r->headline));
	if (r->m.target.gpu && peaks_load(&r->peaks, &pd, NULL) == 0)
		r->peak = peaks_find(&r->peaks, r->m.target.gpu);
	if (o->dry_run)
		goto cleanup;
	r->tty = isatty(2);
	r->plan_json = plan_json(&r->plan, &r->m);
	if (o->resume) {
		err = reopen_run_dir(r);
		goto cleanup;
	}
	r->started = utc_stamp("%Y-%m-%dT%H:%M:%SZ");
	if ((err = make_run_dir(r, r->mbuf, r->mlen)) < 0 || (err = write_json(r->dir, "plan.json", r->plan_json)) < 0)
		goto cleanup;
	if (o->lock) {
		char *lb = NULL;
		size_t ll;

		if ((err = fs_read_file(&lb, &ll, o->lock, 16u << 20)) == 0)
			err = write_atomic(r->dir, "manifest.lock.json", lb, ll);
		free(lb);
	}
cleanup:
	diag_list_release(&pd);
	return err;
}

/* Phase 2, prepare: the stack's image (container engines) and the environment the runners will see. A failure
 * here means nothing was measured: status.json says not-started and why. */
static int run_prepare(struct run *r)
{
	struct strvec saved = STRVEC_INIT;
	const char *name = r->o->resume ? "env/environment-resume.json" : "env/environment.json";
	json_t *env;
	int err;

	if (eng_container(r) && (err = prepare_image(r, r->o->resume ? NULL : r->mbuf, r->mlen)) < 0) {
		r->fatal = xstrfmt("not started: %s", bench_error_last());
		write_status(r, "not-started");
		return err;
	}
	write_status(r, "running");
	/* the manifest's stack.env is the runners' environment (build_env), recorded with it */
	env_apply(&saved, &r->m);
	env = envcap_collect(r->dir);
	env_restore(&saved);
	json_object_set_new(env, "bench", json_pack("{s:s}", "run_started", r->started));
	write_json(r->dir, name, env);
	json_decref(env);
	if (!r->o->quiet)
		fprintf(stderr, "bench: %s: %zu cases; run directory %s\n", r->m.name, r->plan.n, r->dir);
	return 0;
}

/* Phase 4, collect: final states, what the runners found, the summary; the run's outcome as an error code. */
static int run_collect(struct run *r)
{
	const char *name = r->o->resume ? "env/environment-resume.json" : "env/environment.json";
	char *path = xstrfmt("%s/%s", r->dir, name);
	json_t *envj;
	int any_wrong = 0, any_bad = 0, err = 0;

	for (size_t i = 0; i < r->plan.n; i++) {
		if (r->st[i] == C_PENDING)
			set_state(r, i, C_INTERRUPTED, "interrupted before its suite started");
		any_wrong |= r->wrong[i];
		any_bad |= r->st[i] == C_FAILED || r->st[i] == C_INTERRUPTED;
	}
	write_status(r, stop_flag ? "interrupted" : any_bad ? "failed" : "complete");
	/* what the runners found when they ran: device, driver and the library versions they loaded */
	if ((envj = json_load_file(path, 0, NULL)) != NULL) {
		json_object_set(envj, "runners", r->runner_devices);
		write_json(r->dir, name, envj);
		json_decref(envj);
	}
	free(path);
	summarize(r);
	if (stop_flag)
		err = bench_error_set(BENCH_E_SUITE, "interrupted; measured records are kept in %s; complete the run with "
				      "'bench run --resume %s'", r->dir, r->dir);
	else if (any_wrong)
		err = bench_error_set(BENCH_E_CHECK, "a correctness check failed (wrong results); see %s/results", r->dir);
	else if (any_bad)
		err = bench_error_set(BENCH_E_SUITE, "some cases failed; see %s/status.json and %s/logs", r->dir, r->dir);
	return err;
}

static void run_release(struct run *r)
{
	for (size_t i = 0; r->err && i < r->plan.n; i++) {
		free(r->err[i]);
		json_decref(r->headline[i]);
	}
	free(r->st);
	free(r->err);
	free(r->wrong);
	free(r->headline);
	free(r->dir);
	free(r->started);
	free(r->fatal);
	free(r->mpath);
	free(r->mbuf);
	built_image_release(&r->img);
	json_decref(r->plan_json);
	json_decref(r->runner_devices);
	json_decref(r->interleave);
	plan_release(&r->plan);
	manifest_release(&r->m);
	peaks_release(&r->peaks);
	diag_list_release(&r->diags);
	memset(r, 0, sizeof(*r));
}

struct signals {
	struct sigaction old_int, old_term;
};

static void signals_catch(struct signals *s)
{
	struct sigaction sa;

	stop_flag = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
}

static void signals_restore(struct signals *s)
{
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
}

int run_execute(char **out_dir, int *out_started, const struct run_opts *o)
{
	struct signals sig;
	struct run r;
	int err;

	memset(&r, 0, sizeof(r));
	*out_dir = NULL;
	*out_started = 0;
	signals_catch(&sig);
	if ((err = run_plan(&r, o)) < 0)
		goto cleanup;
	if (o->dry_run) {
		dry_run(&r);
		goto cleanup;
	}
	*out_dir = xstrdup(r.dir);
	if ((err = run_prepare(&r)) < 0)
		goto cleanup;
	*out_started = 1;
	for (size_t s = 0; s < r.m.nsuites && !stop_flag; s++)
		if ((err = run_suite(&r, r.m.suites[s].ops, &r.tried_make)) < 0)
			goto cleanup;
	err = run_collect(&r);
cleanup:
	signals_restore(&sig);
	run_release(&r);
	return err;
}

void run_outcome_release(struct run_outcome *out)
{
	free(out->dir);
	free(out->error);
	memset(out, 0, sizeof(*out));
}

/* Stack k's position in round `round` (1-based): forward in odd rounds, backward in even ones (ABBA), so that over
 * two rounds every stack runs as often first as last. */
static size_t interleave_stack(size_t round, size_t pos, size_t n)
{
	return round % 2 ? pos : n - 1 - pos;
}

int run_interleave(struct run_outcome *out, const struct run_opts *opts, size_t n, long rounds)
{
	struct signals sig;
	struct run *runs = xcalloc(n, sizeof(*runs));
	char group[32];
	unsigned char rnd[4];
	int err = 0;

	signals_catch(&sig);
	if (RAND_bytes(rnd, sizeof(rnd)) != 1) {
		err = bench_error_set(BENCH_E_IO, "cannot draw random bytes for the interleave group");
		goto cleanup;
	}
	snprintf(group, sizeof(group), "%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3]);
	for (long round = 1; round <= rounds && !stop_flag; round++) {
		size_t nsuites = 0;

		/* plan and prepare every stack of this round before any measures: an image build between two suites would
		 * change the machine's state between the sides */
		for (size_t pos = 0; pos < n; pos++) {
			size_t k = interleave_stack((size_t)round, pos, n);
			struct run *r = &runs[k];
			struct run_outcome *oc = &out[(size_t)(round - 1) * n + k];

			memset(r, 0, sizeof(*r));
			if ((oc->err = run_plan(r, &opts[k])) == 0) {
				r->interleave = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "group", group, "round", (json_int_t)round,
							  "rounds", (json_int_t)rounds, "stack", (json_int_t)k + 1, "stacks",
							  (json_int_t)n, "order", (json_int_t)pos + 1);
				oc->dir = xstrdup(r->dir);
				if (!r->o->quiet)
					fprintf(stderr, "bench: round %ld/%ld, stack %zu/%zu (%s): %s\n", round, rounds, k + 1, n,
						r->m.name, r->dir);
				if ((oc->err = run_prepare(r)) == 0)
					oc->started = 1;
			}
			if (oc->err)
				oc->error = xstrdup(bench_error_last());
			if (r->m.nsuites > nsuites)
				nsuites = r->m.nsuites;
		}
		/* suite by suite, the stacks in this round's order */
		for (size_t s = 0; s < nsuites && !stop_flag; s++)
			for (size_t pos = 0; pos < n && !stop_flag; pos++) {
				size_t k = interleave_stack((size_t)round, pos, n);
				struct run *r = &runs[k];
				struct run_outcome *oc = &out[(size_t)(round - 1) * n + k];

				if (!oc->started || oc->err || s >= r->m.nsuites)
					continue;
				if ((oc->err = run_suite(r, r->m.suites[s].ops, &r->tried_make)) < 0)
					oc->error = xstrdup(bench_error_last());
			}
		for (size_t k = 0; k < n; k++) {
			struct run_outcome *oc = &out[(size_t)(round - 1) * n + k];

			if (oc->started && !oc->err && (oc->err = run_collect(&runs[k])) < 0)
				oc->error = xstrdup(bench_error_last());
			run_release(&runs[k]);
		}
	}
	if (stop_flag)
		err = bench_error_set(BENCH_E_SUITE, "interrupted; the runs made so far are kept");
cleanup:
	signals_restore(&sig);
	free(runs);
	return err;
}
