/* SPDX-License-Identifier: Apache-2.0 */
/* run_suite.c — one suite of a run: its runner started through the engine and launcher, its records taken as they
 * come (device honesty, progress, status.json), its failures given their reasons. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/rand.h>

#include "core/fs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "manifest/lock.h"
#include "manifest/manifest.h"
#include "manifest/peaks.h"
#include "manifest/plan.h"
#include "image/recipe.h"
#include "core/escape.h"
#include "core/units.h"
#include "stats/quality.h"
#include "envcap.h"
#include "exec.h"
#include "run_int.h"

extern char **environ;

/* What a runner may write (docs/architecture.md, "Limits"): a stdout line (one record) of at most RUN_MAX_LINE bytes,
 * longer ones are discarded as malformed; of its stderr, logs/<suite>.log keeps the first RUN_STDERR_HEAD bytes and the
 * whole lines of the last RUN_STDERR_TAIL, and says how many were cut between them (well under the bundle's 256 MiB
 * for a log). */
#define RUN_MAX_LINE (64u << 20)
#define RUN_STDERR_HEAD ((size_t)8 << 20)
#define RUN_STDERR_TAIL ((size_t)8 << 20)

/* ---- progress --------------------------------------------------------------------------------------------------- */

struct suite_run {
	struct run *r;
	const struct suite_ops *s;
	FILE *results;
	FILE *log;
	size_t *batch;  /* plan indices of the cases this runner was given */
	size_t nbatch;
	unsigned char *in_batch; /* per plan index: given to this runner */
	size_t done;
	size_t malformed;
	double start;
	json_t *device; /* the device this runner reported on its first record (borrowed from r->runner_devices or owned) */
	const char *program; /* the runner's program (bench-gemm, torch/gemm.py) */
	json_t *lock;        /* the run's manifest.lock.json, or NULL (the pinned versions of pip components) */
};

static void progress(struct suite_run *sr, const char *key, const char *status, json_t *value, const char *unit,
		     const char *why)
{
	double el = units_now_s() - sr->start, eta = sr->done ? el / (double)sr->done * (double)(sr->nbatch - sr->done) : 0;
	char fig[400] = "";

	if (sr->r->o->quiet)
		return;
	if (json_is_number(value) && !why) {
		fig[0] = ' ';
		units_format_scaled(fig + 1, sizeof(fig) - 1, json_number_value(value), unit ? unit : "");
	}
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

/* The env_matrix cell a case belongs to: its params' "env" object (borrowed), or NULL outside any matrix. */
static json_t *case_env(const struct plan_case *c)
{
	json_t *e = json_object_get(c->params, "env");

	return json_is_object(e) ? e : NULL;
}

/* The plan index of this runner's case key, or -1 (log n: a walk over the batch made n records n^2). */
static long find_case(struct suite_run *sr, const char *key)
{
	long i = plan_index_find(&sr->r->pidx, sr->s->name, key);

	return i >= 0 && sr->in_batch[i] ? i : -1;
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

/* ---- proof of what ran: the loaded libraries held against the pinned stack ---------------------------------- */

/* PEP 503 normalisation of a distribution name compared: case, and runs of '-', '_', '.' alike */
static int dist_name_eq(const char *a, const char *b)
{
	for (;;) {
		int sa = *a == '-' || *a == '_' || *a == '.', sb = *b == '-' || *b == '_' || *b == '.';

		if (sa && sb) {
			while (*a == '-' || *a == '_' || *a == '.')
				a++;
			while (*b == '-' || *b == '_' || *b == '.')
				b++;
			continue;
		}
		if (!*a || !*b)
			return !*a && !*b;
		if ((*a | 0x20) != (*b | 0x20) || sa != sb)
			return 0;
		a++;
		b++;
	}
}

/* a lock's version as pip writes it: "%2B" of an href is the '+' of a local version */
static void version_plain(char *out, size_t len, const char *v)
{
	size_t n = 0;

	for (; v && *v && n + 1 < len; v++) {
		if (v[0] == '%' && v[1] == '2' && (v[2] == 'B' || v[2] == 'b')) {
			out[n++] = '+';
			v += 2;
		} else {
			out[n++] = *v;
		}
	}
	out[n] = '\0';
}

static void add_reason(json_t *reasons, const char *text)
{
	size_t i;
	json_t *e;

	json_array_foreach(reasons, i, e)
		if (!strcmp(json_string_value(e), text))
			return;
	json_array_append_new(reasons, json_string(text));
}

/* The pinned components rec's runner did not load (docs/architecture.md, "Proof of what ran"): a git component's
 * library (a soname its prefix /opt/stack/<name>/lib* provides, listed by the runner in stack_libs) loaded from
 * another file, and a pip component whose imported distribution is not the lock's version. Libraries and packages
 * the stack does not pin are not looked at. Returns a new array of reasons (empty when all is as pinned). */
static json_t *loaded_not_pinned(const struct manifest *m, json_t *lock, json_t *rec)
{
	json_t *reasons = json_array(), *libs = json_object_get(rec, "loaded"), *prov = json_object_get(rec, "stack_libs");
	json_t *pkgs = json_object_get(rec, "packages"), *e, *l, *p;
	char buf[2048];
	size_t i, j;

	for (size_t k = 0; k < m->stack.ncomponents; k++) {
		const struct component *c = &m->stack.components[k];

		if (c->source == SOURCE_GIT || c->source == SOURCE_PATH) {
			json_array_foreach(prov, i, e) {
				const char *so = json_string_value(json_object_get(e, "soname"));
				const char *real = json_string_value(json_object_get(e, "real"));
				const char *path = json_string_value(json_object_get(e, "path"));
				const char *comp = json_string_value(json_object_get(e, "component"));

				if (!so || !real || !path || !comp || strcmp(comp, c->name))
					continue;
				/* name the prefix's file by the soname where the prefix has one of that name */
				json_array_foreach(prov, j, p) {
					const char *pp = json_string_value(json_object_get(p, "path")), *base = pp ? strrchr(pp, '/') : NULL;

					if (base && !strcmp(base + 1, so) && !strcmp(json_string_value(json_object_get(p, "real")) ?
										      json_string_value(json_object_get(p, "real")) : "", real))
						path = pp;
				}
				json_array_foreach(libs, j, l) {
					const char *lso = json_string_value(json_object_get(l, "soname"));
					const char *lpath = json_string_value(json_object_get(l, "path"));

					if (lso && lpath && !strcmp(lso, so) && strcmp(lpath, real)) {
						snprintf(buf, sizeof(buf), "loaded-not-pinned: %s: loaded %s, the pinned build is %s",
							 c->name, lpath, path);
						add_reason(reasons, buf);
					}
				}
			}
		} else if (c->source == SOURCE_PIP) {
			const char *want = json_string_value(json_object_get(
				json_object_get(json_object_get(lock, "components"), c->name), "version"));
			char pinned[256];

			if (!want)
				continue;
			version_plain(pinned, sizeof(pinned), want);
			json_array_foreach(pkgs, j, p) {
				const char *name = json_string_value(json_object_get(p, "name"));
				const char *ver = json_string_value(json_object_get(p, "version"));

				if (name && ver && dist_name_eq(name, c->name) && strcmp(ver, pinned)) {
					snprintf(buf, sizeof(buf), "loaded-not-pinned: %s: loaded %s %s, the pinned version is %s",
						 c->name, name, ver, pinned);
					add_reason(reasons, buf);
				}
			}
		}
	}
	return reasons;
}

/* The sha256 of a library file the runner loaded, hashed once per run. */
static const char *lib_sha256(struct run *r, const char *real)
{
	char sha[65];

	if (!r->lib_sha)
		r->lib_sha = json_object();
	if (!json_object_get(r->lib_sha, real))
		json_object_set_new(r->lib_sha, real, fs_sha256_file(sha, real) == 0 ? json_string(sha) : json_null());
	return json_string_value(json_object_get(r->lib_sha, real));
}

/* A host stack's proof of what ran (docs/stacks.md, "Host stacks"): each loaded library a component provides gets
 * the component's name and the sha256 of the file loaded; the record's stack_libs are the stack's libraries, so
 * that loaded_not_pinned() holds a soname loaded from elsewhere against them; a library loaded from the stack's own
 * file whose bytes are not the pinned ones (a prefix changed after lock, a rebuilt prefix) is a reason of its own. */
static void host_stack_annotate(struct run *r, json_t *rec)
{
	json_t *reasons = json_object_get(rec, "loaded_not_pinned"), *l;
	size_t i;

	if (!r->hs_stack_libs) { /* the stack's libraries, the same for every record of the run */
		r->hs_stack_libs = json_array();
		for (size_t k = 0; k < r->hs.n; k++)
			json_array_foreach(r->hs.c[k].libs, i, l)
				json_array_append_new(r->hs_stack_libs, json_pack("{s:s, s:s, s:O, s:O, s:O}", "component",
							r->hs.c[k].name, "path", json_string_value(json_object_get(l, "real")),
							"real", json_object_get(l, "real"), "soname", json_object_get(l, "soname"),
							"sha256", json_object_get(l, "sha256")));
	}
	json_object_set_new(rec, "stack_libs", json_deep_copy(r->hs_stack_libs));
	json_array_foreach(json_object_get(rec, "loaded"), i, l) {
		const char *so = json_string_value(json_object_get(l, "soname")), *path = json_string_value(json_object_get(l, "path"));
		json_t *pin = NULL;
		const struct host_component *c = so && path ? host_stack_provider(&r->hs, so, &pin) : NULL;
		const char *want = json_string_value(json_object_get(pin, "sha256")), *have;
		char buf[2048];

		if (!c || strcmp(path, json_string_value(json_object_get(pin, "real"))))
			continue; /* not the stack's, or loaded from another file: loaded_not_pinned() says so */
		have = lib_sha256(r, path);
		json_object_set_new(l, "component", json_string(c->name));
		json_object_set_new(l, "sha256", have ? json_string(have) : json_null());
		if (want && (!have || strcmp(have, want))) {
			snprintf(buf, sizeof(buf), "loaded-not-pinned: %s: loaded %s with sha256 %.16s..., the %s pins %.16s... "
				 "(the prefix changed after it was %s)", c->name, path, have ? have : "(unreadable)",
				 c->source == SOURCE_PATH ? "lock" : "build", want, c->source == SOURCE_PATH ? "locked" : "built");
			if (!reasons) {
				reasons = json_array();
				json_object_set_new(rec, "host_not_pinned", reasons);
			}
			add_reason(reasons, buf);
		}
	}
}

/* What this runner loaded, over all its records: libraries by path and packages by name in first-seen order, the
 * reasons it loaded something not pinned (environment.json's "loaded", shown by bench show and compare). */
static void note_loaded(struct suite_run *sr, json_t *rec, json_t *reasons)
{
	json_t *acc = json_object_get(sr->r->runner_loaded, sr->program), *e;
	static const char *const lists[] = { "libraries", "packages", NULL };
	static const char *const from[] = { "loaded", "packages", NULL };
	static const char *const keys[] = { "path", "name", NULL };
	size_t i;

	if (!acc) {
		acc = json_pack("{s:[], s:[], s:[]}", "libraries", "packages", "not_pinned");
		json_object_set_new(sr->r->runner_loaded, sr->program, acc);
	}
	for (size_t k = 0; lists[k]; k++) {
		json_t *have = json_object_get(acc, lists[k]);

		json_array_foreach(json_object_get(rec, from[k]), i, e) {
			const char *key = json_string_value(json_object_get(e, keys[k]));
			int seen = 0;
			size_t j;
			json_t *h;

			if (!key || !json_is_object(e))
				continue;
			json_array_foreach(have, j, h)
				seen |= !strcmp(json_string_value(json_object_get(h, keys[k])), key);
			if (!seen)
				json_array_append(have, e);
		}
	}
	json_array_foreach(reasons, i, e) {
		size_t before = json_array_size(json_object_get(acc, "not_pinned"));

		add_reason(json_object_get(acc, "not_pinned"), json_string_value(e));
		/* without --locked a warning, once per reason and runner */
		if (!sr->r->o->lock && json_array_size(json_object_get(acc, "not_pinned")) > before)
			fprintf(stderr, "%sbench: warning: %s: %s (bench run --locked fails such a case)\n",
				sr->r->tty && !sr->r->o->quiet ? "\r\033[K" : "", sr->s->name, json_string_value(e));
	}
}

/* A stdout line longer than RUN_MAX_LINE: its head was kept in memory at most, the rest only counted. */
static void on_overlong(void *ctx, size_t len)
{
	struct suite_run *sr = ctx;

	fprintf(sr->log, "bench: malformed line from the runner: %zu bytes, longer than the limit of %u MiB for a "
		"record; discarded\n", len, RUN_MAX_LINE >> 20);
	sr->malformed++;
}

/* A record in flight: the runner's line parsed, checked and annotated before it is appended. */
struct record {
	json_t *rec;
	long i;             /* its case's index in the plan */
	const char *key;    /* its case's key (in rec) */
	const char *status; /* ok, failed or skipped: the runner's, or failed by one of the checks below */
	int rewrite;        /* rec was changed: written re-serialised, not as the runner's line */
	int unpinned;       /* --locked and not the pinned stack */
};

/* The line parsed into rc: a bench.result/v1 record of a case of this runner still pending. -1 (said in the suite's
 * log) for anything else. */
static int record_parse(struct record *rc, struct suite_run *sr, const char *line, size_t len)
{
	json_error_t jerr;
	const char *schema;

	memset(rc, 0, sizeof(*rc));
	rc->rec = json_loadb(line, len, 0, &jerr);
	if (!rc->rec || !json_is_object(rc->rec)) {
		fprintf(sr->log, "bench: malformed line from the runner (%s): %.200s\n", rc->rec ? "not an object" : jerr.text,
			line);
		sr->malformed++;
		return -1;
	}
	rc->key = json_string_value(json_object_get(rc->rec, "case"));
	rc->status = json_string_value(json_object_get(rc->rec, "status"));
	schema = json_string_value(json_object_get(rc->rec, "schema"));
	if (!rc->key || !rc->status || !schema || strcmp(schema, "bench.result/v1") ||
	    (strcmp(rc->status, "ok") && strcmp(rc->status, "failed") && strcmp(rc->status, "skipped"))) {
		fprintf(sr->log, "bench: line is not a bench.result/v1 record: %.200s\n", line);
		sr->malformed++;
		return -1;
	}
	if ((rc->i = find_case(sr, rc->key)) < 0 || sr->r->st[rc->i] != C_PENDING) {
		fprintf(sr->log, "bench: record for a case %s: '%s'\n", rc->i < 0 ? "not in this run" : "already reported",
			rc->key);
		return -1;
	}
	return 0;
}

/* The case failed by a check: status and error said in the record. */
static void record_fail(struct record *rc, const char *error)
{
	json_object_set_new(rc->rec, "status", json_string("failed"));
	json_object_set_new(rc->rec, "error", json_string(error));
	rc->status = "failed";
	rc->rewrite = 1;
}

/* The env cell the case ran in, in its params whatever the runner echoed. */
static void record_set_env_cell(struct record *rc, const struct suite_run *sr)
{
	json_t *cell = case_env(&sr->r->plan.cases[rc->i]), *params = json_object_get(rc->rec, "params");

	if (!cell)
		return;
	if (!json_is_object(params)) {
		params = json_object();
		json_object_set_new(rc->rec, "params", params);
	}
	if (!json_equal(json_object_get(params, "env"), cell)) {
		json_object_set(params, "env", cell);
		rc->rewrite = 1;
	}
}

/* The device the runner reported (extra.device): the suite's first, and this runner's first. */
static void record_note_device(const struct record *rc, struct suite_run *sr)
{
	json_t *dev = json_object_get(json_object_get(rc->rec, "extra"), "device");

	if (!json_is_object(dev))
		return;
	if (!json_object_get(sr->r->runner_devices, sr->s->name))
		json_object_set(sr->r->runner_devices, sr->s->name, dev);
	if (!sr->device)
		sr->device = json_incref(dev);
}

/* Proof of what ran: what the runner loaded that the stack does not pin, said in the record (loaded_not_pinned) and
 * noted for environment.json; under --locked the case fails. */
static void record_hold_to_lock(struct record *rc, struct suite_run *sr)
{
	struct run *r = sr->r;
	json_t *reasons, *e;
	size_t k;

	if (r->hs.n) {
		host_stack_annotate(r, rc->rec);
		rc->rewrite = 1;
	}
	reasons = loaded_not_pinned(&r->m, sr->lock, rc->rec);
	json_array_foreach(json_object_get(rc->rec, "host_not_pinned"), k, e)
		add_reason(reasons, json_string_value(e));
	json_object_del(rc->rec, "host_not_pinned");
	note_loaded(sr, rc->rec, reasons);
	if (json_array_size(reasons)) {
		json_object_set(rc->rec, "loaded_not_pinned", reasons);
		if (r->o->lock) { /* --locked: what ran is not the pinned stack: the figure is not the stack's */
			struct strbuf why = STRBUF_INIT;

			json_array_foreach(reasons, k, e) {
				if (k)
					strbuf_addstr(&why, "; ");
				strbuf_addstr(&why, json_string_value(e));
			}
			record_fail(rc, why.buf);
			rc->unpinned = 1;
			strbuf_release(&why);
		}
		rc->rewrite = 1;
	}
	json_decref(reasons);
}

/* An ok record held to the manifest's target (device honesty) and given its quality (stats/quality.h). */
static void record_hold_to_target(struct record *rc, const struct suite_run *sr)
{
	char why[512];
	const char *bad;
	json_t *q;

	if (strcmp(rc->status, "ok"))
		return;
	bad = device_mismatch(why, sizeof(why), sr->r, &sr->r->plan.cases[rc->i], sr->device);
	if (bad) { /* the figure stays in the record, but it is not a measurement of the target */
		record_fail(rc, bad);
		return;
	}
	if ((q = quality_eval(rc->rec))) { /* enough samples, little enough spread: the record says */
		json_object_set_new(rc->rec, "quality", q);
		rc->rewrite = 1;
	}
}

/* Appends a record's line to results/<suite>.jsonl, synced: written whole or not at all (a failed write, a full
 * disk, is cut back off the file and said in the suite's log). 0, or -1 when it could not be written. */
static int record_append(struct suite_run *sr, const char *line, size_t len, const char *key)
{
	long off = ftell(sr->results);
	int e;

	if (fwrite(line, 1, len, sr->results) == len && fputc('\n', sr->results) != EOF && fflush(sr->results) == 0 &&
	    fsync(fileno(sr->results)) == 0)
		return 0;
	e = errno;
	clearerr(sr->results);
	if (off >= 0 && ftruncate(fileno(sr->results), off) == 0)
		fseek(sr->results, off, SEEK_SET);
	run_note_write_error(e);
	fprintf(sr->log, "bench: cannot record case '%s': %s\n", key, strerror(e));
	return -1;
}

/* The recorded case's state, headline figure and progress line; status.json rewritten when its time has come
 * (run_note_record). */
static void record_take(const struct record *rc, struct suite_run *sr)
{
	struct run *r = sr->r;
	size_t i = (size_t)rc->i;

	if (!strcmp(rc->status, "ok")) {
		run_set_state(r, i, C_OK, NULL);
		json_decref(r->headline[i]);
		r->headline[i] = json_incref(json_object_get(rc->rec, "value"));
	} else {
		const char *e = json_string_value(json_object_get(rc->rec, "error"));
		/* the reason a person reads is one line: the record keeps the runner's whole text */
		char *why = e && *e != '\0' && *e != '\n' ? xstrndup(e, strcspn(e, "\n")) : NULL;

		run_set_state(r, i, !strcmp(rc->status, "failed") ? C_FAILED : C_SKIPPED,
			      why ? why : "the runner gave no reason (see the suite's log)");
		free(why);
	}
	/* 1: a wrong result; 2: not the pinned stack under --locked (exit 7 both) */
	r->wrong[i] = is_wrong(rc->rec) ? 1 : rc->unpinned ? 2 : 0;
	sr->done++;
	/* a skip is said once, with its reason, in the list after the summary (on a terminal this line is overwritten) */
	progress(sr, rc->key, rc->status, json_object_get(rc->rec, "value"), json_string_value(json_object_get(rc->rec, "unit")),
		 r->st[i] == C_SKIPPED ? NULL : r->err[i]);
	run_note_record(r);
}

/* A line of the runner's stdout: a record taken (checked, annotated, appended, its case's state set), or said in
 * the suite's log as malformed. Returns non-zero only to end the runner (a full disk). */
static int on_record(void *ctx, const char *line, size_t len)
{
	struct suite_run *sr = ctx;
	struct record rc;
	char *rewritten = NULL;
	int err = 0;

	if (record_parse(&rc, sr, line, len) < 0)
		goto cleanup;
	record_set_env_cell(&rc, sr);
	record_note_device(&rc, sr);
	record_hold_to_lock(&rc, sr);
	record_hold_to_target(&rc, sr);
	if (rc.rewrite && (rewritten = json_dumps(rc.rec, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)))) {
		line = rewritten;
		len = strlen(rewritten);
	}
	if (record_append(sr, line, len, rc.key) < 0) {
		err = run_disk_full; /* a full disk ends the runner; another error loses this one record */
		goto cleanup;
	}
	record_take(&rc, sr);
cleanup:
	json_decref(rc.rec);
	free(rewritten);
	return err;
}

/* The runner is quiet: status.json catches up with the records already taken, when its time has come. */
static void on_idle(void *ctx)
{
	struct suite_run *sr = ctx;

	run_status_tick(sr->r);
}

/* ---- the environment handed to runners: ours plus the manifest's stack.env ---------------------------------- */

/* A CPU target measures the host: its runners see no GPU (a GPU machine would otherwise give GPU figures to a CPU
 * manifest), unless the manifest's stack.env sets these itself. */
static const char *const gpu_vars[] = { "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", NULL };

/* entry ("NAME=value", or a bare NAME) names the variable name */
static int env_entry_is(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(entry, name, n) && (entry[n] == '=' || entry[n] == '\0');
}

static int env_sets(const struct manifest *m, const char *entry)
{
	for (size_t i = 0; i < m->stack.nenv; i++)
		if (env_entry_is(entry, m->stack.env[i].name))
			return 1;
	return 0;
}

static int is_gpu_var(const char *entry)
{
	for (size_t k = 0; gpu_vars[k]; k++)
		if (env_entry_is(entry, gpu_vars[k]))
			return 1;
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

/* argv as a person would type it: plain words bare, the rest in single quotes (recipe_sh_quote) */
static void shell_quote(struct strbuf *sb, const char *s)
{
	if (*s && !strpbrk(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~"))
		strbuf_addstr(sb, s);
	else
		recipe_sh_quote(sb, s);
}

/* argv as a person would type it, its words separated by spaces */
static void shell_quote_argv(struct strbuf *sb, const struct strvec *argv)
{
	for (size_t i = 0; i < argv->n; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		shell_quote(sb, argv->v[i]);
	}
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
	fd = fs_open_write(logp, O_APPEND, 0644); /* a resumed run's log: never through a link or into a FIFO */
	free(logp);
	strvec_push(&av, make);
	strvec_push(&av, "-C");
	strvec_push(&av, data);
	strvec_push(&av, "runners");
	memset(&so, 0, sizeof(so));
	so.argv = strvec_argv(&av);
	so.stderr_fd = fd;
	so.timeout_s = 1800;
	so.stop = &run_stop_flag;
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

/* Nothing the runner started outlives its suite: its process group is ended by spawn_run; what left the group and
 * the session (setsid, double fork) came back to us as the subreaper and is ended here. */
static void end_leftovers(FILE *log)
{
	int n = spawn_end_descendants(1.0);

	if (n > 0 && log)
		fprintf(log, "bench: ended %d process%s the runner left behind (outside its process group)\n", n,
			n == 1 ? "" : "es");
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

static int same_cell(json_t *a, json_t *b)
{
	return (!a && !b) || (a && b && json_equal(a, b));
}

/* The manifest's stack.env with a cell's variables over it (later wins), as the runner of that cell sees it: the
 * engine (podman -e), the launcher (mpirun -x) and the batch job all pass stack.env on. Strings are copies. */
static void env_with_cell(struct env_var **out, size_t *nout, const struct manifest *m, json_t *cell)
{
	const char *name;
	json_t *v;

	*out = xcalloc(m->stack.nenv + json_object_size(cell) + 1, sizeof(**out));
	*nout = 0;
	for (size_t i = 0; i < m->stack.nenv; i++) {
		(*out)[*nout].name = xstrdup(m->stack.env[i].name);
		(*out)[(*nout)++].value = xstrdup(m->stack.env[i].value);
	}
	json_object_foreach(cell, name, v) {
		size_t k;

		for (k = 0; k < *nout && strcmp((*out)[k].name, name); k++)
			;
		if (k == *nout) {
			(*out)[k].name = xstrdup(name);
			(*nout)++;
		} else {
			free((*out)[k].value);
		}
		(*out)[k].value = xstrdup(json_string_value(v) ? json_string_value(v) : "");
	}
}

static void env_vars_free(struct env_var *env, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(env[i].name);
		free(env[i].value);
	}
	free(env);
}

/* An env_matrix cell's variables put over the manifest's stack.env while its runner is prepared and runs (the
 * engine's podman -e, the launcher's mpirun -x, the runner's environment); cell_env_restore() puts stack.env back.
 * A NULL cell changes nothing. */
struct cell_env {
	struct env_var *saved, *env; /* stack.env as it was; the cell's over it (NULL: nothing put over) */
	size_t nsaved, nenv;
};

static void cell_env_apply(struct cell_env *ce, struct manifest *m, json_t *cell)
{
	memset(ce, 0, sizeof(*ce));
	ce->saved = m->stack.env;
	ce->nsaved = m->stack.nenv;
	if (!cell)
		return;
	env_with_cell(&ce->env, &ce->nenv, m, cell);
	m->stack.env = ce->env;
	m->stack.nenv = ce->nenv;
}

static void cell_env_restore(struct cell_env *ce, struct manifest *m)
{
	if (!ce->env)
		return;
	m->stack.env = ce->saved;
	m->stack.nenv = ce->nsaved;
	env_vars_free(ce->env, ce->nenv);
	ce->env = NULL;
	ce->nenv = 0;
}

/* One runner's share of a suite: the pending cases of one program and env cell, what starts it and how it ended. */
struct group {
	struct run *r;
	const struct suite_ops *s;
	const char *program;
	json_t *cell;               /* the env_matrix cell whose cases this runner measures (NULL: outside any matrix) */
	const char *tag;            /* names its files: cases/<tag>.json, logs/<tag>.ccl, ... */
	const struct engine_ops *eng;
	const struct launcher_ops *lau;
	long long nproc;            /* the processes the suite asks for (ranks) */
	struct suite_run sr;
	struct strvec argv, env;
	char *cases_path, *res_path, *log_path;
	double timeout_s;
	struct spawn_result res;
	const char *why;            /* why its pending cases were not measured (NULL: a clean end) */
	char whybuf[512], batchwhy[512];
};

static int group_fail(struct group *g, const char *fmt, ...) BENCH_PRINTF(2, 3);
/* The runner cannot start or did not end well: why, said by fmt; -1. */
static int group_fail(struct group *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->whybuf, sizeof(g->whybuf), fmt, ap);
	va_end(ap);
	g->why = g->whybuf;
	return -1;
}

/* The runner cannot start: why, in the words of the step that failed (bench_error_last()); -1. */
static int group_fail_last(struct group *g)
{
	return group_fail(g, "%s", bench_error_last());
}

static void group_init(struct group *g, struct run *r, const struct suite_ops *s, const char *program, json_t *cell,
		       const char *tag)
{
	memset(g, 0, sizeof(*g));
	g->r = r;
	g->s = s;
	g->program = program;
	g->cell = cell;
	g->tag = tag;
	g->eng = engine_find(engine_names[r->m.runtime.engine]);
	g->lau = launcher_find(launcher_names[r->m.runtime.launcher]);
	g->nproc = 1;
	for (size_t i = 0; i < r->m.nsuites; i++)
		if (r->m.suites[i].ops == s && s->processes)
			g->nproc = s->processes(&r->m.suites[i], &r->m);
	g->timeout_s = (double)r->m.runtime.timeout_ns / 1e9;
	g->sr.r = r;
	g->sr.s = s;
	g->sr.program = program;
}

/* The group's cases: those of the suite not yet ok whose runner is its program and whose env cell is its cell, set
 * pending, in plan order. Returns how many. */
static size_t group_select_cases(struct group *g)
{
	struct run *r = g->r;
	char *lp = xstrfmt("%s/manifest.lock.json", r->dir);

	/* the run's lock (--locked, container engines), else the one beside the manifest (warnings only) */
	fs_load_json(&g->sr.lock, lp, 64u << 20, O_NOFOLLOW); /* inside the run directory: not through a link */
	if (!g->sr.lock && r->o->image_lock)
		fs_load_json(&g->sr.lock, r->o->image_lock, 64u << 20, 0);
	free(lp);
	g->sr.batch = xcalloc(r->plan.n, sizeof(*g->sr.batch));
	g->sr.in_batch = xcalloc(r->plan.n ? r->plan.n : 1, 1);
	for (size_t i = 0; i < r->plan.n; i++) {
		if (r->plan.cases[i].suite != g->s || r->st[i] == C_OK ||
		    strcmp(case_program(g->s, &r->plan.cases[i]), g->program) || !same_cell(case_env(&r->plan.cases[i]), g->cell))
			continue;
		run_set_state(r, i, C_PENDING, NULL);
		g->sr.batch[g->sr.nbatch++] = i;
		g->sr.in_batch[i] = 1;
	}
	return g->sr.nbatch;
}

/* The sha256 of each file or native plug-in the cases load, by name (docs/plugins.md), set into cfg as
 * plugin_sha256: for the records of a runner that cannot hash (bench-gemm). */
static void cases_plugin_digests(json_t *cfg, const struct run *r)
{
	json_t *digests = json_object(), *c;
	size_t ci;

	json_array_foreach(json_object_get(cfg, "cases"), ci, c) {
		json_t *pl = json_object_get(json_object_get(c, "params"), "plugin");
		const char *rel = json_string_value(json_object_get(pl, "path"));
		const char *name = json_string_value(json_object_get(pl, "name"));
		char sha[65], *path;

		if (!rel || !name || json_object_get(digests, name))
			continue;
		path = xstrfmt("%s/inputs/%s", r->dir, rel);
		if (fs_sha256_file(sha, path) == 0)
			json_object_set_new(digests, name, json_string(sha));
		free(path);
	}
	if (json_object_size(digests))
		json_object_set(cfg, "plugin_sha256", digests);
	json_decref(digests);
}

/* cases/<tag>.json, the runner's input (bench.cases/v1): its cases, and where it leaves what belongs to the run. */
static int group_write_cases(struct group *g)
{
	struct run *r = g->r;
	json_t *cfg = plan_cases_json(&r->plan, &r->m, g->s, g->sr.batch, 0, g->sr.nbatch);
	char *tag;
	int err;

	/* where a runner may leave files that belong to the run (TunableOp results): packed with it */
	json_object_set_new(cfg, "artifacts", json_sprintf("%s/artifacts/%s", r->dir, g->s->name));
	/* where the file and native plug-ins were copied (docs/plugins.md): the runners load them from there */
	json_object_set_new(cfg, "inputs", json_sprintf("%s/inputs", r->dir));
	cases_plugin_digests(cfg, r);
	/* the target's vendor: how a runner starts its ranks (runners/torch/launch.py forks CPU ranks) */
	json_object_set_new(cfg, "vendor", json_string(vendor_names[r->m.target.vendor]));
	/* where a runner that drives NCCL/RCCL has it write its debug log (runners/common/ccllog.h): never the terminal */
	json_object_set_new(cfg, "ccl_log", json_sprintf("%s/logs/%s.ccl", r->dir, g->tag));
	if (r->peak) /* the denominators of MFU and % of peak, from images/bases/peaks.yaml */
		json_object_set_new(cfg, "gpu_peak", json_pack("{s:s, s:f, s:f, s:f, s:f, s:f}", "gpu", r->peak->key,
							       "bf16_tflops", r->peak->bf16_tflops, "fp8_tflops",
							       r->peak->fp8_tflops, "tf32_tflops", r->peak->tf32_tflops,
							       "fp32_tflops", r->peak->fp32_tflops, "hbm_tbps",
							       r->peak->hbm_tbps));
	tag = xstrfmt("cases/%s.json", g->tag);
	err = run_write_json(r->dir, tag, cfg);
	free(tag);
	json_decref(cfg);
	if (err == 0)
		g->cases_path = xstrfmt("%s/cases/%s.json", r->dir, g->tag);
	return err;
}

/* The launcher's prefix that starts the suite's processes, appended to argv (nothing for one process). */
static int group_prefix_argv(struct group *g)
{
	return g->nproc > 1 && g->lau->prefix_argv ? g->lau->prefix_argv(&g->argv, &g->r->m, g->nproc) : 0;
}

/* The runner's command line: the engine's prefix, the launcher's, the runner with its cases. Runners not built yet
 * (engine host, a runner of ours) are built once per run, then looked up again. -1 with g->why when it cannot start. */
static int group_build_argv(struct group *g, int *tried_make)
{
	struct run *r = g->r;

	if (!g->eng)
		return group_fail(g, "engine '%s' cannot run yet in this bench (implemented: host)",
				  engine_names[r->m.runtime.engine]);
	if (!g->lau)
		return group_fail(g, "launcher '%s' cannot run yet in this bench (implemented: local, mpirun)",
				  launcher_names[r->m.runtime.launcher]);
	/* a batch launcher (slurm) starts the runner itself, in the image where there is one: only the runner here */
	if (g->eng->exec_prefix && !g->lau->run_batch && g->eng->exec_prefix(&g->argv, g->eng, &r->m, r->img.image, r->dir) < 0)
		return group_fail_last(g);
	if (group_prefix_argv(g) < 0)
		return group_fail_last(g);
	if (g->eng->runner_argv(&g->argv, &r->m, g->program, g->cases_path) == 0)
		return 0;
	if (!g->eng->exec_prefix && !*tried_make && !strchr(g->program, '/')) {
		*tried_make = 1;
		if (try_make_runners(r) == 0) {
			strvec_release(&g->argv);
			if (group_prefix_argv(g) == 0 && g->eng->runner_argv(&g->argv, &r->m, g->program, g->cases_path) == 0)
				return 0;
		}
	}
	return group_fail_last(g);
}

static FILE *file_open_append(const char *path)
{
	int fd = fs_open_write(path, O_APPEND, 0644), e;
	FILE *f = fd >= 0 ? fdopen(fd, "ab") : NULL;

	if (fd >= 0 && !f) {
		e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

/* results/<suite>.jsonl (records appended) and logs/<suite>.log, shared by the suite's runners. */
static int group_open_files(struct group *g)
{
	g->res_path = xstrfmt("%s/results/%s.jsonl", g->r->dir, g->s->name);
	g->log_path = xstrfmt("%s/logs/%s.log", g->r->dir, g->s->name);
	/* appended to in a resumed run directory too: never through a link, never a FIFO (fs_open_write) */
	g->sr.results = file_open_append(g->res_path);
	g->sr.log = g->sr.results ? file_open_append(g->log_path) : NULL;
	if (!g->sr.results || !g->sr.log)
		return bench_error_set(BENCH_E_IO, "cannot open '%s': %s", g->sr.results ? g->log_path : g->res_path,
				       fs_open_error(errno, O_NOFOLLOW));
	setvbuf(g->sr.log, NULL, _IOLBF, 0);
	return 0;
}

/* The runner's environment: ours with stack.env (the cell's over it), a host stack's prefixes first on PATH,
 * LD_LIBRARY_PATH and PYTHONPATH, and a pip stack's interpreter for the Python runners. */
static void group_build_env(struct group *g)
{
	struct run *r = g->r;

	build_env(&g->env, &r->m);
	host_stack_apply_env(&g->env, &r->hs);
	for (size_t i = 0; r->hs.python && i + 1 < g->argv.n; i++)
		if (!strcmp(g->argv.v[i], exec_python()) && strstr(g->argv.v[i + 1], ".py")) {
			free(g->argv.v[i]);
			g->argv.v[i] = xstrdup(r->hs.python);
		}
}

/* The command line as a person would type it, into the suite's log (and on stderr with -v). */
static void group_log_command(struct group *g)
{
	struct strbuf cmd = STRBUF_INIT;
	size_t n = g->sr.nbatch;

	shell_quote_argv(&cmd, &g->argv);
	if (g->cell) { /* the cell's variables, as the runner sees them */
		const char *k;
		json_t *v;
		struct strbuf cs = STRBUF_INIT;

		json_object_foreach(g->cell, k, v) {
			strbuf_addf(&cs, "%s%s=", cs.len ? " " : "", k);
			shell_quote(&cs, json_string_value(v) ? json_string_value(v) : "");
		}
		fprintf(g->sr.log, "bench: running %zu case%s of env cell %s: %s\n", n, n == 1 ? "" : "s", cs.buf, cmd.buf);
		strbuf_release(&cs);
	} else {
		fprintf(g->sr.log, "bench: running %zu case%s: %s\n", n, n == 1 ? "" : "s", cmd.buf);
	}
	if (g->r->o->verbose)
		fprintf(stderr, "bench: %s\n", cmd.buf);
	strbuf_release(&cmd);
}

/* env/gpu-<when>-<tag>: the GPUs' clocks, power and temperature before and after the runner. */
static void group_gpu_snapshot(const struct group *g, const char *when)
{
	char *tag = xstrfmt("%s-%s", when, g->tag);

	envcap_gpu_snapshot(g->r->dir, tag);
	free(tag);
}

/* Starts the runner and takes its records until it ends: as a batch job (slurm) or a process of ours. -1 with
 * g->why when it could not be started. */
static int group_launch(struct group *g)
{
	struct run *r = g->r;
	struct spawn_opts so;

	g->sr.start = units_now_s();
	if (g->lau->run_batch) {
		struct batch_job job;

		memset(&job, 0, sizeof(job));
		job.run_dir = r->dir;
		job.tag = g->tag;
		job.argv = strvec_argv(&g->argv);
		job.envp = strvec_argv(&g->env);
		job.ranks = g->nproc;
		job.per_node = batch_per_node(r, g->s);
		job.image = g->eng->exec_prefix ? r->img.image : NULL;
		job.timeout_s = g->timeout_s;
		job.stop = &run_stop_flag;
		job.on_line = on_record;
		job.on_idle = on_idle;
		job.ctx = &g->sr;
		job.log = g->sr.log;
		job.progress = r->o->quiet ? NULL : stderr;
		return g->lau->run_batch(&g->res, g->batchwhy, sizeof(g->batchwhy), &r->m, &job) < 0 ? group_fail_last(g) : 0;
	}
	memset(&so, 0, sizeof(so));
	so.argv = strvec_argv(&g->argv);
	so.envp = strvec_argv(&g->env);
	so.stderr_fd = fileno(g->sr.log);
	so.stderr_head = RUN_STDERR_HEAD;
	so.stderr_tail = RUN_STDERR_TAIL;
	so.timeout_s = g->timeout_s;
	so.stop = &run_stop_flag;
	so.on_line = on_record;
	so.ctx = &g->sr;
	so.max_line = RUN_MAX_LINE;
	so.on_overlong = on_overlong;
	so.on_idle = on_idle;
	return spawn_run(&g->res, &so) < 0 ? group_fail_last(g) : 0;
}

/* Why the runner's end left cases unmeasured (g->why), from how it ended; NULL for a clean end. */
static void group_explain_end(struct group *g)
{
	const struct spawn_result *res = &g->res;

	switch (res->end) {
	case SPAWN_STOPPED:
		g->why = run_disk_full ? "not measured: no space left on device" : run_stop_reason();
		break;
	case SPAWN_TIMEOUT:
		group_fail(g, "the runner did not finish within the suite timeout (%.0fs); its process group was killed",
			   g->timeout_s);
		break;
	case SPAWN_SIGNALED:
		if (g->batchwhy[0]) /* the scheduler ended the job: its own words */
			group_fail(g, "%s", g->batchwhy);
		else
			group_fail(g, "the runner was killed by signal %d (%s) before reporting this case", res->term_signal,
				   strsignal(res->term_signal));
		break;
	case SPAWN_EXITED:
		if (g->sr.done == g->sr.nbatch && res->exit_code == 0)
			break; /* every case reported: a clean end */
		if (res->exit_code && !g->lau->run_batch &&
		    exec_engine_failure(g->whybuf, sizeof(g->whybuf), g->eng, res->exit_code, g->log_path))
			g->why = g->whybuf; /* the engine's own failure (podman 125: a bad mount, a missing image) */
		else if (res->exit_code)
			group_fail(g, "the runner exited with status %d before reporting this case", res->exit_code);
		else
			group_fail(g, "the runner exited without reporting this case");
		break;
	}
}

/* Runs the group's runner from its command line to its end, said in the suite's log. Returns 0 (with g->why when
 * the runner could not start or did not end well), or a negative code only for failures of bench itself. */
static int group_run(struct group *g, int *tried_make)
{
	struct run *r = g->r;
	int err;

	if (group_build_argv(g, tried_make) < 0)
		return 0;
	if ((err = group_open_files(g)) < 0)
		return err;
	group_build_env(g);
	group_log_command(g);
	if (strstr(g->program, ".py") && !g->eng->exec_prefix) /* a Python suite: what pip has installed is part of the stack */
		envcap_pip_list(r->dir, r->hs.python ? r->hs.python : exec_python());
	group_gpu_snapshot(g, "before");
	if (group_launch(g) < 0)
		return 0;
	if (r->tty && !r->o->quiet)
		fprintf(stderr, "\n");
	end_leftovers(g->sr.log);
	group_gpu_snapshot(g, "after");
	group_explain_end(g);
	if (g->sr.malformed)
		fprintf(g->sr.log, "bench: %zu malformed line%s ignored\n", g->sr.malformed, g->sr.malformed == 1 ? "" : "s");
	fprintf(g->sr.log, "bench: runner ended after %.1fs: %s\n", g->res.seconds, g->why ? g->why : "every case reported");
	return 0;
}

/* The group's cases the runner did not report: failed (interrupted on Ctrl-C) with the reason, said on stderr. */
static void group_mark_unmeasured(struct group *g)
{
	struct run *r = g->r;
	size_t n = g->sr.nbatch;
	enum cstate st = g->res.end == SPAWN_STOPPED && g->why && !strncmp(g->why, "interrupted", 11) ? C_INTERRUPTED
												      : C_FAILED;

	for (size_t b = 0; b < n; b++)
		if (r->st[g->sr.batch[b]] == C_PENDING)
			run_set_state(r, g->sr.batch[b], st, g->why);
	if (g->why && g->sr.done < n) /* an error: shown also with -q */
		fprintf(stderr, "bench: suite '%s': %zu of %zu case%s not measured: %s\n", g->s->name, n - g->sr.done, n,
			n == 1 ? "" : "s", g->why);
}

static void group_release(struct group *g)
{
	json_decref(g->sr.device);
	json_decref(g->sr.lock);
	if (g->sr.results)
		fclose(g->sr.results);
	if (g->sr.log)
		fclose(g->sr.log);
	free(g->sr.batch);
	free(g->sr.in_batch);
	free(g->cases_path);
	free(g->res_path);
	free(g->log_path);
	strvec_release(&g->argv);
	strvec_release(&g->env);
}

/* Runs the pending cases of suite s whose runner is `program` and whose env cell is `cell` (NULL: the cases outside
 * any matrix), writing them to cases/<tag_name>.json. Returns 0, or a negative code only for failures of bench. */
static int run_group(struct run *r, const struct suite_ops *s, const char *program, json_t *cell, const char *tag_name,
		     int *tried_make)
{
	struct group g;
	struct cell_env ce = { 0 };
	int err = 0;

	group_init(&g, r, s, program, cell, tag_name);
	if (group_select_cases(&g) == 0)
		goto cleanup;
	cell_env_apply(&ce, &r->m, cell); /* this cell's variables over stack.env while its runner runs */
	if ((err = group_write_cases(&g)) < 0 || (err = group_run(&g, tried_make)) < 0)
		goto cleanup;
	group_mark_unmeasured(&g);
cleanup:
	cell_env_restore(&ce, &r->m);
	group_release(&g);
	run_write_status(r, "running");
	return err;
}

/* Runs a suite: its pending cases grouped by the runner each needs (one group for most suites; gemm's torch
 * backends run in the PyTorch runner), in plan order of the groups' first cases. */
/* The distinct runners of suite s's cases (pending only: the cases not yet ok), in plan order of their first cases;
 * at most max. Returns how many. */
static size_t suite_programs(const char **progs, size_t max, const struct run *r, const struct suite_ops *s, int pending)
{
	size_t np = 0;

	for (size_t i = 0; i < r->plan.n && np < max; i++) {
		const char *p;
		int seen = 0;

		if (r->plan.cases[i].suite != s || (pending && r->st[i] == C_OK))
			continue;
		p = case_program(s, &r->plan.cases[i]);
		for (size_t k = 0; k < np; k++)
			seen |= !strcmp(progs[k], p);
		if (!seen)
			progs[np++] = p;
	}
	return np;
}

/* The distinct env_matrix cells of suite s's cases (params "env"), in plan order (borrowed); at most max. A suite
 * without an env_matrix has one, NULL. Returns how many. */
static size_t suite_cells(json_t **cells, size_t max, const struct run *r, const struct suite_ops *s)
{
	size_t nc = 0;

	for (size_t i = 0; i < r->plan.n && nc < max; i++) {
		json_t *e;
		int seen = 0;

		if (r->plan.cases[i].suite != s)
			continue;
		e = case_env(&r->plan.cases[i]);
		for (size_t k = 0; k < nc; k++)
			seen |= same_cell(cells[k], e);
		if (!seen)
			cells[nc++] = e;
	}
	return nc;
}

/* cases/<tag>.json of a suite's k-th runner (of np) and c-th env cell (of nc) */
static char *group_tag(const char *prefix, const struct suite_ops *s, size_t k, size_t np, size_t c, size_t nc)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s%s", prefix, s->name);
	if (np > 1)
		strbuf_addf(&sb, "-%zu", k + 1);
	if (nc > 1)
		strbuf_addf(&sb, "-env%zu", c + 1);
	return strbuf_detach(&sb);
}

int run_execute_suite(struct run *r, const struct suite_ops *s, int *tried_make)
{
	const char *progs[8];
	json_t *cells[SUITE_MAX_ENV_CELLS];
	size_t np = suite_programs(progs, 8, r, s, 1), nc = suite_cells(cells, SUITE_MAX_ENV_CELLS, r, s);
	int err = 0;

	/* one runner per program and env cell, the cells of one program in sequence (a cell with every case ok on
	 * --resume starts nothing); their records go to the same results/<suite>.jsonl */
	for (size_t k = 0; k < np && !err && !run_stop_flag; k++)
		for (size_t c = 0; c < nc && !err && !run_stop_flag; c++) {
			char *tag = group_tag("", s, k, np, c, nc);

			err = run_group(r, s, progs[k], cells[c], tag, tried_make);
			free(tag);
		}
	return err;
}

/* s on stdout with every control character escaped line by line: a manifest value (stack.env, an env_matrix
 * cell) may hold C1 or bidirectional characters, and the newlines of a job script are kept */
static void dry_puts(const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "\n");
		char *line = xstrndup(s, n), *e = esc_text(line);

		fputs(e, stdout);
		if (s[n] == '\n')
			fputc('\n', stdout);
		free(e);
		free(line);
		s += n + (s[n] == '\n');
	}
}

/* Engine host with components: PATH, LD_LIBRARY_PATH and PYTHONPATH as the runners will get them (the stack's
 * directories first, host_stack_apply_env()), from the lock given (--locked, reproduce's), when its stack is there
 * to load; added to hsenv as NAME=VALUE. A stack not built yet (or no lock) is said so on stdout. */
static void dry_host_env(struct strvec *hsenv, struct run *r)
{
	static const char *const names[] = { "PATH", "LD_LIBRARY_PATH", "PYTHONPATH", NULL };
	const char *lp = r->o->lock ? r->o->lock : r->o->image_lock;
	struct host_stack hs;
	json_t *lock;

	if (r->m.runtime.engine != ENGINE_HOST || !r->m.stack.ncomponents)
		return;
	memset(&hs, 0, sizeof(hs));
	lock = NULL;
	if (lp)
		fs_load_json(&lock, lp, 64u << 20, 0);
	if (!lock || host_stack_load(&hs, &r->m, lock) < 0) {
		printf("# the host stack is not loaded here (%s): its directories go first on PATH, LD_LIBRARY_PATH and "
		       "PYTHONPATH of every runner\n", lock ? "not built yet: bench build" : "no lock: bench lock, then --locked");
	} else {
		for (size_t i = 0; names[i]; i++) { /* the value the runner starts from: bench's, or stack.env's */
			const char *v = getenv(names[i]);

			for (size_t k = 0; k < r->m.stack.nenv; k++)
				if (!strcmp(r->m.stack.env[k].name, names[i]))
					v = r->m.stack.env[k].value;
			if (v)
				strvec_pushf(hsenv, "%s=%s", names[i], v);
		}
		{
			struct strvec all = STRVEC_INIT;

			for (size_t i = 0; i < hsenv->n; i++)
				strvec_push(&all, hsenv->v[i]);
			host_stack_apply_env(&all, &hs);
			strvec_release(hsenv);
			for (size_t i = 0; i < all.n; i++) /* only what the stack changed */
				for (size_t k = 0; names[k]; k++) {
					size_t nl = strlen(names[k]);
					const char *was = !strncmp(all.v[i], names[k], nl) && all.v[i][nl] == '=' ? getenv(names[k]) : NULL;

					if (!strncmp(all.v[i], names[k], nl) && all.v[i][nl] == '=' && (!was || strcmp(was, all.v[i] + nl + 1)))
						strvec_push(hsenv, all.v[i]);
				}
			strvec_release(&all);
		}
	}
	host_stack_release(&hs);
	json_decref(lock);
}

/* One runner's group of a dry run: its cases and the command line that would run them. */
struct dry_group {
	struct run *r;
	const struct suite_ops *ops;
	const struct engine_ops *eng;
	const struct launcher_ops *lau;
	const char *program;
	json_t *cell;       /* its env_matrix cell (NULL: outside any matrix) */
	long long ranks;
	char *tag;          /* names its files: cases/<tag>.json, slurm/<tag>.sbatch */
	char *cases;        /* RUN_DIR/cases/<tag>.json */
	size_t n;           /* how many cases */
	struct strbuf cmd;  /* the variables set and the command, as a person would type them */
	struct strvec argv;
};

/* The group's cases, one line each; counted in d->n. */
static void dry_list_cases(struct dry_group *d)
{
	const struct run *r = d->r;

	for (size_t i = 0; i < r->plan.n; i++)
		if (r->plan.cases[i].suite == d->ops && !strcmp(case_program(d->ops, &r->plan.cases[i]), d->program) &&
		    same_cell(case_env(&r->plan.cases[i]), d->cell)) {
			char *key = esc_text(r->plan.cases[i].key);

			printf("%-12s %s\n", d->ops->name, key);
			free(key);
			d->n++;
		}
}

/* NAME=value (the value quoted) and a space, of the name's first nlen bytes */
static void dry_add_var(struct strbuf *cmd, const char *name, size_t nlen, const char *value)
{
	strbuf_add(cmd, name, nlen);
	strbuf_addch(cmd, '=');
	shell_quote(cmd, value);
	strbuf_addch(cmd, ' ');
}

/* The variables shown set before the command: the cell's (put over stack.env for its runner: podman -e, mpirun -x);
 * with engine host and no batch script, stack.env as the runner's environment has it (the cell's variables win
 * over it), then the host stack's directories (over stack.env). stack_env: stack.env without the cell's. */
static void dry_add_env(struct dry_group *d, const struct env_var *stack_env, size_t stack_nenv,
			const struct strvec *hsenv)
{
	const char *name;
	json_t *v;

	json_object_foreach(d->cell, name, v)
		dry_add_var(&d->cmd, name, strlen(name), json_string_value(v) ? json_string_value(v) : "");
	if (d->r->m.runtime.engine != ENGINE_HOST || (d->lau && d->lau->batch_script))
		return;
	for (size_t i = 0; i < stack_nenv; i++)
		if (!d->cell || !json_object_get(d->cell, stack_env[i].name))
			dry_add_var(&d->cmd, stack_env[i].name, strlen(stack_env[i].name), stack_env[i].value);
	for (size_t i = 0; i < hsenv->n; i++) {
		const char *eq = strchr(hsenv->v[i], '=');

		dry_add_var(&d->cmd, hsenv->v[i], (size_t)(eq - hsenv->v[i]), eq + 1);
	}
}

/* "# SUITE: N cases: " opening the group's command line */
static void dry_print_head(const struct dry_group *d)
{
	printf("# %s: %zu case%s: ", d->ops->name, d->n, d->n == 1 ? "" : "s");
}

/* The group cannot run: why, in the words of the step that failed (bench_error_last()). */
static void dry_print_cannot_run(const struct dry_group *d)
{
	char *why = esc_text(bench_error_last());

	dry_print_head(d);
	printf("cannot run: %s\n", why);
	free(why);
}

/* A batch launcher: the job script, as it will be submitted. */
static void dry_print_batch(struct dry_group *d)
{
	struct batch_job job;
	struct strbuf script = STRBUF_INIT;

	memset(&job, 0, sizeof(job));
	job.run_dir = "RUN_DIR";
	job.tag = d->tag;
	job.ranks = d->ranks;
	job.per_node = batch_per_node(d->r, d->ops);
	job.image = d->eng->exec_prefix ? "IMAGE" : NULL;
	if (d->eng->runner_argv(&d->argv, &d->r->m, d->program, d->cases) == 0 &&
	    (job.argv = strvec_argv(&d->argv), d->lau->batch_script(&script, &d->r->m, &job) == 0)) {
		dry_print_head(d);
		dry_puts(d->cmd.buf);
		printf("sbatch RUN_DIR/slurm/%s.sbatch:\n", d->tag);
		dry_puts(script.buf);
	} else {
		dry_print_cannot_run(d);
	}
	strbuf_release(&script);
}

/* The command line: the engine's prefix, the launcher's, the runner with its cases. -1 when it cannot be made. */
static int dry_print_command(struct dry_group *d)
{
	const struct manifest *m = &d->r->m;

	if ((d->eng->exec_prefix && d->eng->exec_prefix(&d->argv, d->eng, m, "IMAGE", "RUN_DIR") < 0) ||
	    (d->ranks > 1 && d->lau->prefix_argv && d->lau->prefix_argv(&d->argv, m, d->ranks) < 0) ||
	    d->eng->runner_argv(&d->argv, m, d->program, d->cases) < 0)
		return -1;
	shell_quote_argv(&d->cmd, &d->argv);
	dry_print_head(d);
	dry_puts(d->cmd.buf);
	fputc('\n', stdout);
	return 0;
}

/* A group's cases, then how its runner would be started (or why it cannot be). */
static void dry_print_group(struct dry_group *d, const struct strvec *hsenv)
{
	struct cell_env ce;

	dry_list_cases(d);
	cell_env_apply(&ce, &d->r->m, d->cell);
	dry_add_env(d, ce.saved, ce.nsaved, hsenv);
	if (!d->eng)
		bench_error_set(BENCH_E_FAIL, "engine '%s' is not implemented yet", engine_names[d->r->m.runtime.engine]);
	else if (!d->lau)
		bench_error_set(BENCH_E_FAIL, "launcher '%s' is not implemented yet", launcher_names[d->r->m.runtime.launcher]);
	if (d->eng && d->lau && d->lau->batch_script)
		dry_print_batch(d);
	else if (!d->eng || !d->lau || dry_print_command(d) < 0)
		dry_print_cannot_run(d);
	cell_env_restore(&ce, &d->r->m);
}

/* A suite's groups: one per runner program and env cell, as run_execute_suite() runs them. */
static void dry_print_suite(struct run *r, const struct suite_cfg *cfg, const struct strvec *hsenv)
{
	const struct suite_ops *ops = cfg->ops;
	const char *progs[8];
	json_t *cells[SUITE_MAX_ENV_CELLS];
	size_t np = suite_programs(progs, 8, r, ops, 0), nc = suite_cells(cells, SUITE_MAX_ENV_CELLS, r, ops);

	for (size_t kc = 0; kc < np * nc; kc++) {
		size_t k = kc / nc, c = kc % nc;
		struct strbuf cmd0 = STRBUF_INIT;
		struct dry_group d;

		memset(&d, 0, sizeof(d));
		d.r = r;
		d.ops = ops;
		d.eng = engine_find(engine_names[r->m.runtime.engine]);
		d.lau = launcher_find(launcher_names[r->m.runtime.launcher]);
		d.program = progs[k];
		d.cell = cells[c];
		d.ranks = ops->processes ? ops->processes(cfg, &r->m) : 1;
		d.tag = group_tag("", ops, k, np, c, nc);
		d.cases = xstrfmt("RUN_DIR/cases/%s.json", d.tag);
		d.cmd = cmd0;
		dry_print_group(&d, hsenv);
		free(d.tag);
		free(d.cases);
		strbuf_release(&d.cmd);
		strvec_release(&d.argv);
	}
}

void run_print_dry(struct run *r)
{
	struct strvec hsenv = STRVEC_INIT;

	dry_host_env(&hsenv, r);
	printf("# %s: %zu cases; engine %s, launcher %s\n", r->m.name, r->plan.n, engine_names[r->m.runtime.engine],
	       launcher_names[r->m.runtime.launcher]);
	for (size_t s = 0; s < r->m.nsuites; s++)
		dry_print_suite(r, &r->m.suites[s], &hsenv);
	strvec_release(&hsenv);
}
