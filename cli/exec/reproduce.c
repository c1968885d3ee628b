/* SPDX-License-Identifier: Apache-2.0 */
/* reproduce.c — bench reproduce's stage: verify a bundle, confirm what its manifest runs, run it again here, judge. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "exec/reproduce.h"
#include "core/diag.h"
#include "core/error.h"
#include "core/escape.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "exec/envcap.h"
#include "exec/run.h"
#include "exec/trust.h"
#include "manifest/lock.h"
#include "manifest/manifest.h"
#include "bundle/bundle.h"
#include "bundle/sign.h"
#include "stats/compare.h"

#define RULE                                                                                                          \
	"per case, the figure of each run here in log space: mean m, standard deviation s over R runs, and the "     \
	"suite's pooled standard deviation S over its cases (D degrees of freedom); the 99% prediction interval of "   \
	"one more run, m +/- t(D) * max(s, S) * sqrt(1 + 1/R), t at 1% Bonferroni-adjusted over the cases judged "          \
	"so, never narrower than +/- log(1 + threshold); reproduced when the original lies inside it and it lies "   \
	"within [1 / (1 + max_band), 1 + max_band], inconclusive when it lies inside a wider one, "                  \
	"slower when the runs here lie below it, faster above; with one run here, compare's bootstrap 95% CI of the " \
	"ratio against 1 +/- threshold (and max_band); not comparable when a side did not measure the case"

/* The sink of the verifying pass: the named members as text (bundle_members), and every member under inputs/ (the
 * file and native plug-ins' files, docs/plugins.md) kept as bytes, written beside the manifest copy later, where
 * plugin_path() reads them: the bytes that verified, no other copy. */
struct reproduce_sink {
	struct bundle_members bm;
	struct bundle_sink inner;
	struct strvec names; /* inputs/... in the order read */
	struct strbuf *data; /* one per name */
	int cur;             /* the input being read, -1 none */
};

/* One reproduction: what the steps share. */
struct repro {
	const struct reproduce_opts *o;
	struct reproduce_result *res;
	struct bundle_verify_result vr;
	struct reproduce_sink rs;
	struct compare_opts co;
	struct compare_side *sides;
	int loaded;                /* sides loaded */
	struct run_outcome *outs;  /* one per round */
	struct run_opts ro;
	struct strvec suites, select;
	char *made_top;            /* the first directory of out that was not there */
	const char *bname;         /* the bundle's file name */
	double max_band;
	json_t *m;                 /* the verified members as text */
	json_t *plan, *oenv, *hereenv, *cases, *lockj, *imagej, *cmp;
	char *work, *dir, *mpath, *lpath, *orig;
};

static int rsink_open(void *ctx, const char *rel, uint64_t size)
{
	struct reproduce_sink *r = ctx;

	r->cur = -1;
	if (!strncmp(rel, "inputs/", 7)) {
		strvec_push(&r->names, rel);
		r->data = xrealloc(r->data, r->names.n * sizeof(*r->data));
		r->data[r->names.n - 1] = (struct strbuf)STRBUF_INIT;
		r->cur = (int)r->names.n - 1;
		return 1;
	}
	return r->inner.open(r->inner.ctx, rel, size);
}

static int rsink_data(void *ctx, const char *rel, const void *buf, size_t len)
{
	struct reproduce_sink *r = ctx;

	if (r->cur >= 0) {
		strbuf_add(&r->data[r->cur], buf, len);
		return 0;
	}
	return r->inner.data(r->inner.ctx, rel, buf, len);
}

static void rsink_release(struct reproduce_sink *r)
{
	for (size_t i = 0; i < r->names.n; i++)
		strbuf_release(&r->data[i]);
	free(r->data);
	strvec_release(&r->names);
	bundle_members_release(&r->bm);
}

static int write_text(const char *dir, const char *name, const char *text, size_t len)
{
	char *p = xstrfmt("%s/%s", dir, name);
	int err = fs_write_file(p, text, len, 0644);

	free(p);
	return err;
}

/* the inputs/ members into work/inputs/, as the run directory had them */
static int write_inputs(const char *work, const struct reproduce_sink *r)
{
	int err = 0;

	for (size_t i = 0; i < r->names.n && !err; i++) {
		char *p = xstrfmt("%s/%s", work, r->names.v[i]), *sl = strrchr(p, '/');

		*sl = 0;
		err = fs_mkdir_p(p);
		*sl = '/';
		if (!err)
			err = fs_write_file(p, r->data[i].buf ? r->data[i].buf : "", r->data[i].len, 0644);
		free(p);
	}
	return err;
}

static const char *member(const struct repro *r, const char *name)
{
	return json_string_value(json_object_get(r->m, name));
}

/* 1. verify; what is used is what verified: one reading of one open file */
static int repro_verify(struct repro *r)
{
	static const char *const names[] = { "manifest.yaml", "manifest.lock.json", "plan.json", "env/environment.json",
					     "image/image.json", NULL };
	struct bundle_sink sink = { rsink_open, rsink_data, &r->rs };
	struct bundle_limits lim;
	const char *k;
	json_t *v;
	int err;

	bundle_limits_default(&lim);
	bundle_members_init(&r->rs.bm, &r->rs.inner, names, 64u << 20);
	if ((err = bundle_verify_read(&r->vr, r->o->bundle, NULL, r->o->keys, sign_home(), &lim, &sink)) == 0)
		r->m = json_incref(r->rs.bm.out);
	if (err < 0) {
		char *why = xstrdup(bench_error_last());

		err = bench_exit_code(err) == 1 ? BENCH_E_VERIFY : err;
		bench_error_set(err, "verification failed: %s; nothing was run", why);
		free(why);
		return err;
	}
	if (!member(r, "manifest.yaml") || !member(r, "plan.json"))
		return bench_error_set(BENCH_E_FAIL, "'%s' holds no manifest.yaml or plan.json: nothing to reproduce",
				       r->o->bundle);
	r->plan = json_loads(member(r, "plan.json"), 0, NULL);
	if (member(r, "env/environment.json"))
		r->oenv = json_loads(member(r, "env/environment.json"), 0, NULL);
	json_object_foreach(json_object_get(r->plan, "suites"), k, v)
		strvec_push(&r->suites, k);
	if (!r->suites.n)
		return bench_error_set(BENCH_E_FAIL, "the plan of '%s' names no suite: nothing to reproduce", r->o->bundle);
	return 0;
}

/* 2. the work directory in out; the directories of out made for it are removed again when they stay empty (a dry
 * run, an unconfirmed one) */
static int repro_make_work(struct repro *r)
{
	char *p = xstrdup(r->o->out), *sl;
	int err;

	while (access(p, F_OK) < 0 && errno == ENOENT) {
		free(r->made_top);
		r->made_top = xstrdup(p);
		if (!(sl = strrchr(p, '/')) || sl == p)
			break;
		*sl = 0;
	}
	free(p);
	if ((err = fs_mkdir_p(r->o->out)) < 0)
		return err;
	r->work = xstrfmt("%s/.reproduce-%s-XXXXXX", r->o->out, r->vr.run);
	if (!mkdtemp(r->work)) {
		err = bench_error_set(BENCH_E_IO, "cannot create a work directory in '%s': %s", r->o->out, strerror(errno));
		free(r->work);
		r->work = NULL;
		return err;
	}
	return 0;
}

/* 2a. into the work directory: the original's manifest and lock, its inputs, and the verified archive itself */
static int repro_fill_work(struct repro *r)
{
	const char *mt = member(r, "manifest.yaml"), *lt = member(r, "manifest.lock.json");
	int wfd = open(r->work, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	const char *name;

	r->orig = xstrfmt("%s/%s.bench.tar.gz", r->work, r->vr.run); /* the name its envelope signs */
	name = r->orig + strlen(r->work) + 1;
	err = write_text(r->work, "manifest.yaml", mt, strlen(mt));
	if (!err)
		err = write_inputs(r->work, &r->rs);
	if (!err && lt)
		err = write_text(r->work, "manifest.lock.json", lt, strlen(lt));
	/* the bytes judged are the bytes that verified: copied from the open file, hashed again */
	if (!err)
		err = wfd < 0 ? bench_error_set(BENCH_E_IO, "cannot open '%s': %s", r->work, strerror(errno))
			      : bundle_copy_verified(&r->vr, wfd, name);
	if (!err) {
		char *e = xstrfmt("%s.intoto.jsonl", name);

		err = write_text(r->work, e, r->vr.envelope, r->vr.envelope_len);
		free(e);
	}
	if (wfd >= 0)
		close(wfd);
	if (err < 0)
		return err;
	r->mpath = xstrfmt("%s/manifest.yaml", r->work);
	if (lt) {
		char sha[65];

		r->lpath = xstrfmt("%s/manifest.lock.json", r->work);
		r->lockj = json_loads(lt, 0, NULL);
		lock_sha256_hex(sha, mt, strlen(mt));
		/* the original ran --locked when its lock is of exactly its manifest */
		if (!json_is_string(json_object_get(r->lockj, "manifest_sha256")) ||
		    strcmp(json_string_value(json_object_get(r->lockj, "manifest_sha256")), sha)) {
			json_decref(r->lockj);
			r->lockj = NULL;
		}
	}
	return 0;
}

/* The listing of the trust gate: who signed the bundle, and every item the manifest makes this machine execute
 * (variables that load code named as such, what the lock pins, the recorded image id). */
static void print_exec_items(FILE *fp, json_t *items, const struct repro *r, const char *image)
{
	/* a key of trusted/ by its full path, the file a person would remove to stop trusting it */
	const char *origin = r->vr.key_origin ? r->vr.key_origin : "";
	char *full = !strncmp(origin, "trusted/", 8) ? xstrfmt("%s/%s", sign_home(), origin) : xstrdup(origin);
	char *k = esc_text(r->vr.keyid), *o = esc_text(full);
	size_t i, hooks = 0, plugins = 0;
	json_t *it;

	fprintf(fp, "bench: the bundle is signed by key id %s, trusted as %s\n", k, o);
	fprintf(fp, "bench: reproducing it executes what its manifest says; here that is:\n");
	if (image) {
		char *e = esc_text(image);

		fprintf(fp, "  %-40s %s\n", "image (recorded id)", e);
		free(e);
	}
	json_array_foreach(items, i, it) {
		const char *what = json_string_value(json_object_get(it, "what"));
		char *w = esc_text(what), *v = esc_text(json_string_value(json_object_get(it, "value")));
		const char *hook = json_string_value(json_object_get(it, "hook"));
		const char *label = json_string_value(json_object_get(it, "hook_label"));

		fprintf(fp, "  %-40s %s\n", w, v);
		if (hook) {
			fprintf(fp, "  %-40s ^ %s: %s\n", "", label ? label : "loads code or changes how programs start", hook);
			if (!strncmp(what, "suites.", 7) && strstr(what, ".plugin."))
				plugins++;
			else
				hooks++;
		}
		free(w);
		free(v);
	}
	if (hooks)
		fprintf(fp, "bench: %zu variable%s above load%s code into the programs it starts, or change%s what the "
			"container engine runs, where compiled code is kept or where a program writes\n", hooks,
			hooks == 1 ? "" : "s", hooks == 1 ? "s" : "", hooks == 1 ? "s" : "");
	if (plugins)
		fprintf(fp, "bench: %zu plug-in%s above run%s the signer's code on this machine\n", plugins,
			plugins == 1 ? "" : "s", plugins == 1 ? "s" : "");
	free(k);
	free(o);
	free(full);
}

/* --yes (or --dry-run): 0; a terminal: 0 on "y" or "yes"; otherwise BENCH_E_MANIFEST, nothing run */
static int ask_to_run(const struct reproduce_opts *o)
{
	char line[64];

	if (o->yes || o->dry_run)
		return 0;
	if (isatty(fileno(o->in))) {
		fprintf(o->msg, "bench: run it? [y/N] ");
		if (fgets(line, sizeof(line), o->in) && (!strcmp(line, "y\n") || !strcmp(line, "yes\n") ||
							 !strcmp(line, "Y\n") || !strcmp(line, "YES\n")))
			return 0;
		return bench_error_set(BENCH_E_MANIFEST, "not confirmed; nothing was run");
	}
	return bench_error_set(BENCH_E_MANIFEST, "the signer's manifest above runs on this machine; pass --yes to run it "
			       "(--dry-run prints the exact commands); nothing was run");
}

/* 2b. the trust gate (docs/bundle-format.md, "Reproducing a bundle: the trust model"): the signer and everything
 * the manifest (its variant applied) executes here, shown; run only once confirmed. A manifest that does not parse:
 * its problems printed. */
static int repro_confirm(struct repro *r)
{
	struct diag_list diags = DIAG_LIST_INIT;
	struct manifest mf = MANIFEST_INIT;
	const char *variant = json_string_value(json_object_get(r->plan, "variant")), *lock = member(r, "manifest.lock.json");
	json_t *items = NULL, *lockj = lock ? json_loads(lock, 0, NULL) : NULL;
	json_t *ij = json_loads(member(r, "image/image.json") ? member(r, "image/image.json") : "null", JSON_DECODE_ANY,
				NULL);
	int err;

	if ((err = manifest_parse_file(&mf, &diags, r->mpath)) < 0) {
		if (diags.n) {
			diag_list_print(&diags, r->o->msg);
			r->res->reported = 1;
		}
		goto cleanup;
	}
	if (variant && (err = manifest_apply_variant(&mf, variant)) < 0) {
		err = BENCH_E_MANIFEST;
		goto cleanup;
	}
	if (!variant && mf.nvariants) { /* bench run writes the variant of every run of such a manifest */
		err = bench_error_set(BENCH_E_VERIFY, "the bundle's manifest has %zu variants and its plan.json names none: "
				      "not a run bench made; nothing was run", mf.nvariants);
		goto cleanup;
	}
	items = trust_exec_items(&mf, lockj, r->mpath);
	print_exec_items(r->o->msg, items, r, json_string_value(json_object_get(ij, "digest")));
	err = ask_to_run(r->o);
cleanup:
	json_decref(items);
	json_decref(lockj);
	json_decref(ij);
	manifest_release(&mf);
	diag_list_release(&diags);
	return err;
}

/* The run of the original's manifest here (its dry run too): the same suites, variant and lock, and the original's
 * own case selection and budgets (bench run -k, --rep, --warmup: plan.json's overrides). */
static void repro_run_opts(struct repro *r)
{
	json_t *ov = json_object_get(r->plan, "overrides"), *p;
	size_t j;

	memset(&r->ro, 0, sizeof(r->ro));
	r->ro.manifest = r->mpath;
	r->ro.out_parent = r->o->out;
	r->ro.only = r->suites.v;
	r->ro.nonly = r->suites.n;
	r->ro.image_lock = r->lpath;
	r->ro.lock = r->lockj ? r->lpath : NULL;
	r->ro.variant = json_string_value(json_object_get(r->plan, "variant"));
	json_array_foreach(json_object_get(ov, "select"), j, p)
		if (json_is_string(p))
			strvec_push(&r->select, json_string_value(p));
	r->ro.select = r->select.v;
	r->ro.nselect = r->select.n;
	r->ro.rep = json_string_value(json_object_get(ov, "rep"));
	r->ro.warmup = json_string_value(json_object_get(ov, "warmup"));
}

/* --dry-run: bench run --dry-run of the same manifest, variant, suites and lock */
static int repro_dry_run(struct repro *r)
{
	char *d = NULL;
	int started = 0, err;

	repro_run_opts(r);
	r->ro.dry_run = 1;
	if ((err = run_execute(&d, &started, &r->ro)) == BENCH_E_MANIFEST)
		r->res->reported = 1; /* its diagnostics are printed */
	free(d);
	return err < 0 ? err : 0;
}

/* 3. the hardware of a GPU run: the same GPU model, count and driver, or every case is "not reproducible here" and
 * nothing is run; 1 then, else 0 */
static int repro_check_hardware(struct repro *r)
{
	const char *vendor = json_string_value(json_object_get(r->plan, "vendor"));
	json_t *differ, *c;
	size_t i;

	if (strcmp(vendor ? vendor : "", "cpu")) {
		char *herep = xstrfmt("%s/here", r->work);
		json_t *a = reproduce_gpu_facts(r->oenv), *b;

		fs_mkdir_p(herep);
		r->hereenv = envcap_collect(herep);
		free(herep);
		b = reproduce_gpu_facts(r->hereenv);
		differ = reproduce_facts_differ(a, b);
		json_decref(a);
		json_decref(b);
	} else {
		differ = json_array();
	}
	json_object_set_new(r->res->doc, "not_reproducible", differ);
	r->res->reproducible = !json_array_size(differ);
	json_object_set_new(r->res->doc, "reproducible", json_boolean(r->res->reproducible));
	if (r->res->reproducible)
		return 0;
	{
		char *why = reproduce_differ_text(differ);

		json_array_foreach(json_object_get(r->plan, "cases"), i, c) {
			json_array_append_new(r->cases, json_pack("{s:O, s:O, s:s, s:s}", "suite", json_object_get(c, "suite"),
								  "case", json_object_get(c, "case"), "verdict",
								  "not reproducible here", "why", why));
			r->res->counts[REPRODUCE_NOT_HERE]++;
		}
		free(why);
	}
	json_object_set_new(r->res->doc, "run", json_null());
	json_object_set_new(r->res->doc, "stack_differs", json_array());
	return 1;
}

/* What the reproduction runs with, said before it starts */
static void print_progress(const struct repro *r)
{
	char *e = esc_text(r->vr.run);

	fprintf(r->o->msg, "bench: reproducing %s (sha256 %.12s..., %s) on this machine\n", e, r->vr.sha256,
		r->ro.image_id ? "its image by its recorded id, or from its lock"
		: r->lockj     ? "its lock, --locked"
		: r->lpath     ? "the image from its lock"
			       : "engine host, this host's stack");
	free(e);
}

/* One round's outcome: a run that did not start, or one that cannot be packed, ends the reproduction (as bench
 * run: a manifest's problems are printed already); a case that failed or was wrong is said as bench run says it,
 * the verdicts name the cases */
static int repro_round_outcome(struct repro *r, const struct run_outcome *oc)
{
	if (oc->started == RUN_UNPACKABLE) /* a name pack refuses (or a full disk): nothing is packed or judged */
		return bench_error_set(oc->err ? oc->err : BENCH_E_FAIL, "%s", oc->error ? oc->error : "failed");
	if (oc->err && (!oc->dir || !oc->started)) {
		r->res->manifest_failed = oc->err == BENCH_E_MANIFEST;
		if (oc->err == BENCH_E_MANIFEST && !oc->dir && !r->ro.lock) {
			r->res->reported = 1;
			return BENCH_E_MANIFEST;
		}
		return bench_error_set(oc->err, "%s", oc->error ? oc->error : "failed");
	}
	if (oc->err) {
		char *why = esc_text(oc->error ? oc->error : "failed");

		fprintf(r->o->msg, "bench: %s\n", why);
		free(why);
		if (r->res->run_err != BENCH_E_CHECK)
			r->res->run_err = oc->err;
	}
	return 0;
}

/* 4. the same suites, the same manifest (its variant), the same lock, o->rounds times */
static int repro_run_rounds(struct repro *r)
{
	int err, oerr;

	repro_run_opts(r);
	/* a container run: the original's image by its recorded id when this machine's engine has it */
	if (member(r, "image/image.json")) {
		r->imagej = json_loads(member(r, "image/image.json"), 0, NULL);
		r->ro.image_id = json_string_value(json_object_get(r->imagej, "digest"));
	}
	r->ro.quiet = r->o->quiet;
	if (!r->o->quiet)
		print_progress(r);
	r->outs = xcalloc((size_t)r->o->rounds, sizeof(*r->outs));
	err = run_interleave(r->outs, &r->ro, 1, r->o->rounds);
	for (long i = 0; i < r->o->rounds; i++)
		if ((oerr = repro_round_outcome(r, &r->outs[i])) < 0)
			return oerr;
	if (err < 0) /* interrupted: what was measured is kept, nothing is judged */
		return err;
	r->dir = xstrdup(r->outs[r->o->rounds - 1].dir);
	return 0;
}

/* 5. judge: the original against the runs made here, reproduce's rule (stats/reproduce.c), and how their stacks
 * differ */
static int repro_judge(struct repro *r)
{
	size_t nr = (size_t)r->o->rounds, *hruns = xcalloc(nr, sizeof(size_t)), orun = 0;
	struct compare_group g[2] = { { NULL, &orun, 1 }, { NULL, hruns, nr } };
	json_t *rows, *fa, *fb;
	int err;

	for (size_t i = 0; i < nr; i++) {
		if ((err = compare_load(&r->sides[1 + i], r->outs[i].dir, &r->co)) < 0) {
			free(hruns);
			return err;
		}
		r->loaded++;
		hruns[i] = 1 + i;
	}
	g[0].label = r->sides[0].label;
	g[1].label = r->sides[1].label;
	r->cmp = compare_build_groups(r->sides, g, 2, 0, &r->co);
	rows = reproduce_judge(r->res->counts, r->cmp, r->sides + 1, nr, r->co.threshold, r->max_band);
	json_array_extend(r->cases, rows);
	json_decref(rows);
	free(hruns);
	fa = compare_stack_facts(&r->sides[0]);
	fb = compare_stack_facts(&r->sides[1]);
	json_object_set_new(r->res->doc, "stack_differs", reproduce_facts_differ(fa, fb));
	json_decref(fa);
	json_decref(fb);
	return 0;
}

/* the earlier rounds, packed now: their bundles are materials of the last one's statement */
static int repro_pack_earlier(struct repro *r)
{
	json_t *rj = json_array();
	int err = 0;

	json_object_set_new(r->res->doc, "rounds", json_integer(r->o->rounds));
	json_object_set_new(r->res->doc, "earlier_rounds", rj);
	for (long i = 0; i + 1 < r->o->rounds && !err; i++) {
		const char *d = r->outs[i].dir, *base = strrchr(d, '/') ? strrchr(d, '/') + 1 : d;
		char *t = NULL, *e = NULL, sha[65];

		err = r->o->pack(&t, &e, d, 1, BUNDLE_LEVEL_DEFAULT);
		if (!err)
			err = fs_sha256_file(sha, t);
		if (!err) {
			const char *tb = strrchr(t, '/') ? strrchr(t, '/') + 1 : t;

			json_array_append_new(rj, json_pack("{s:o, s:o, s:s}", "run", esc_json_string(base), "bundle",
							     esc_json_string(tb), "sha256", sha));
			strvec_push(&r->res->paths, d);
			strvec_push(&r->res->paths, t);
			strvec_push(&r->res->paths, e);
		}
		free(t);
		free(e);
	}
	if (!err)
		json_object_set_new(r->res->doc, "run", esc_json_string(strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir));
	return err;
}

/* 6. the verdicts into reproduce.json of the last run, then packed: its statement names the original as a
 * material */
static int repro_write(struct repro *r)
{
	const size_t *n = r->res->counts;
	char *p, *tar = NULL, *env = NULL;
	int err = 0;

	json_object_set(r->res->doc, "cases", r->cases);
	json_object_set_new(r->res->doc, "counts",
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "reproduced", (json_int_t)n[REPRODUCE_REPRODUCED],
				      "faster", (json_int_t)n[REPRODUCE_FASTER], "slower", (json_int_t)n[REPRODUCE_SLOWER],
				      "not comparable", (json_int_t)n[REPRODUCE_NOT_COMPARABLE], "not reproducible here",
				      (json_int_t)n[REPRODUCE_NOT_HERE], "inconclusive", (json_int_t)n[REPRODUCE_INCONCLUSIVE]));
	json_object_set_new(r->res->doc, "max_band", json_real(r->max_band));
	if (!r->dir)
		return 0;
	p = xstrfmt("%s/reproduce.json", r->dir);
	if (json_dump_file(r->res->doc, p, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) < 0)
		err = bench_error_set(BENCH_E_IO, "cannot write '%s'", p);
	else
		err = r->o->pack(&tar, &env, r->dir, r->o->quiet || r->o->json, BUNDLE_LEVEL_DEFAULT);
	if (!err) {
		strvec_push(&r->res->paths, r->dir);
		strvec_push(&r->res->paths, tar);
		strvec_push(&r->res->paths, env);
	}
	free(p);
	free(tar);
	free(env);
	return err;
}

/* the original as compare reads it, from the copy (verified again: the same bytes, the same keys), and the
 * document's head */
static int repro_load_original(struct repro *r)
{
	int err;

	if ((err = compare_load(&r->sides[0], r->orig, &r->co)) < 0)
		return bench_exit_code(err) == 1 ? BENCH_E_VERIFY : err;
	r->loaded = 1;
	r->res->doc = json_pack("{s:s, s:{s:s, s:s, s:s, s:s}, s:f, s:s}", "schema", "bench.reproduce/v1", "original",
				"bundle", r->bname, "sha256", r->vr.sha256, "run", r->vr.run, "keyid", r->vr.keyid,
				"threshold", r->co.threshold, "rule", RULE);
	return 0;
}

static void repro_release(struct repro *r)
{
	rsink_release(&r->rs);
	for (int i = 0; i < r->loaded; i++)
		compare_side_release(&r->sides[i]);
	free(r->sides);
	if (r->outs)
		for (long i = 0; i < r->o->rounds; i++)
			run_outcome_release(&r->outs[i]);
	free(r->outs);
	if (r->work)
		fs_remove_tree(r->work);
	if (r->made_top) { /* out and its parents made above, each while it is empty */
		char *p = xstrdup(r->o->out), *sl;

		while (rmdir(p) == 0 && strcmp(p, r->made_top) && (sl = strrchr(p, '/')))
			*sl = 0;
		free(p);
		free(r->made_top);
	}
	json_decref(r->m);
	json_decref(r->plan);
	json_decref(r->oenv);
	json_decref(r->hereenv);
	json_decref(r->cases);
	json_decref(r->lockj);
	json_decref(r->imagej);
	json_decref(r->cmp);
	free(r->work);
	free(r->dir);
	free(r->mpath);
	free(r->lpath);
	free(r->orig);
	strvec_release(&r->suites);
	strvec_release(&r->select);
	bundle_verify_result_release(&r->vr);
}

int reproduce_bundle(struct reproduce_result *res, const struct reproduce_opts *o)
{
	struct repro r = { .o = o, .res = res, .vr = BUNDLE_VERIFY_RESULT_INIT,
			   .rs = { .names = STRVEC_INIT, .cur = -1 }, .co = { 0.02, 0.01, 2000, 0, NULL, NULL },
			   .suites = STRVEC_INIT, .select = STRVEC_INIT };
	int err;

	r.co.threshold = o->threshold;
	r.co.keys = o->keys;
	r.max_band = o->max_band < o->threshold ? o->threshold : o->max_band; /* never narrower than the threshold */
	r.sides = xcalloc((size_t)o->rounds + 1, sizeof(*r.sides));
	r.bname = strrchr(o->bundle, '/') ? strrchr(o->bundle, '/') + 1 : o->bundle;
	r.cases = json_array();
	if ((err = repro_verify(&r)) < 0 || (err = repro_make_work(&r)) < 0 || (err = repro_fill_work(&r)) < 0 ||
	    (err = repro_load_original(&r)) < 0 || (err = repro_confirm(&r)) < 0)
		goto cleanup;
	if (o->dry_run) {
		err = repro_dry_run(&r);
		json_decref(res->doc);
		res->doc = NULL;
		goto cleanup;
	}
	if (!repro_check_hardware(&r) &&
	    ((err = repro_run_rounds(&r)) < 0 || (err = repro_judge(&r)) < 0 || (err = repro_pack_earlier(&r)) < 0))
		goto cleanup;
	err = repro_write(&r);
cleanup:
	if (err < 0) { /* the message outlives the clean-up */
		char *msg = xstrdup(bench_error_last());

		repro_release(&r);
		bench_error_set(err, "%s", msg);
		free(msg);
	} else {
		repro_release(&r);
	}
	return err;
}

static void print_num(char *buf, size_t n, json_t *v, const char *fmt)
{
	if (json_is_number(v))
		snprintf(buf, n, fmt, json_number_value(v));
	else
		snprintf(buf, n, "-");
}

/* one case's line of the table */
static void print_case(FILE *fp, json_t *c)
{
	char o[32], h[32], r[32], nz[32], ci[64] = "-";
	char *sc = esc_text(json_string_value(json_object_get(c, "suite"))), *cs = esc_text(json_string_value(json_object_get(c, "case")));
	char *why = json_string_value(json_object_get(c, "why")) ? esc_text(json_string_value(json_object_get(c, "why"))) : NULL;
	const char *v = json_string_value(json_object_get(c, "verdict"));
	json_t *c95 = json_object_get(c, "band") ? json_object_get(c, "band") : json_object_get(c, "ci95");

	print_num(o, sizeof(o), json_object_get(c, "original"), "%.4g");
	print_num(h, sizeof(h), json_object_get(c, "here"), "%.4g");
	print_num(r, sizeof(r), json_object_get(c, "ratio"), "%.3f");
	if (json_is_number(json_object_get(c, "noise_cv")))
		snprintf(nz, sizeof(nz), "%.0f%%", 100 * json_number_value(json_object_get(c, "noise_cv")));
	else
		snprintf(nz, sizeof(nz), "-");
	if (json_array_size(c95) == 2)
		snprintf(ci, sizeof(ci), "[%.3g, %.3g]", json_number_value(json_array_get(c95, 0)),
			 json_number_value(json_array_get(c95, 1)));
	if (v && !strcmp(v, "not reproducible here"))
		fprintf(fp, "%-12s %-44s %11s %11s %7s %6s %-19s %s (%s)\n", sc, cs, o, h, r, nz, ci, v, why ? why : "");
	else
		fprintf(fp, "%-12s %-44s %11s %11s %7s %6s %-19s %s%s%s\n", sc, cs, o, h, r, nz, ci, v, why ? ": " : "",
			why ? why : "");
	free(sc);
	free(cs);
	free(why);
}

/* the counts under the table */
static void print_counts(FILE *fp, json_t *doc)
{
	json_t *cn = json_object_get(doc, "counts");

	if (json_is_false(json_object_get(doc, "reproducible")))
		fprintf(fp, "\n%lld not reproducible here: nothing was run\n",
			(long long)json_integer_value(json_object_get(cn, "not reproducible here")));
	else
		fprintf(fp, "\n%lld reproduced, %lld faster, %lld slower, %lld inconclusive, %lld not comparable (band: %s, at "
			"least 1 +/- %.3g%%; reproduced only within 1 +/- %.3g%%)\n",
			(long long)json_integer_value(json_object_get(cn, "reproduced")),
			(long long)json_integer_value(json_object_get(cn, "faster")),
			(long long)json_integer_value(json_object_get(cn, "slower")),
			(long long)json_integer_value(json_object_get(cn, "inconclusive")),
			(long long)json_integer_value(json_object_get(cn, "not comparable")),
			json_integer_value(json_object_get(doc, "rounds")) > 1 ? "99% prediction interval of one more run here"
									       : "95% CI of the ratio, one run here",
			100 * json_number_value(json_object_get(doc, "threshold")),
			100 * json_number_value(json_object_get(doc, "max_band")));
}

void reproduce_print(FILE *fp, const struct reproduce_result *res)
{
	json_t *c, *d;
	size_t i;

	fprintf(fp, "%-12s %-44s %11s %11s %7s %6s %-19s %s\n", "suite", "case", "original", "here", "ratio", "noise",
		"band", "verdict");
	json_array_foreach(json_object_get(res->doc, "cases"), i, c)
		print_case(fp, c);
	json_array_foreach(json_object_get(res->doc, "stack_differs"), i, d) {
		char *a = reproduce_fact_text(json_object_get(d, "original")), *b = reproduce_fact_text(json_object_get(d, "here"));
		char *w = esc_text(json_string_value(json_object_get(d, "what")));

		fprintf(fp, "%s%s: %s here, %s in the original\n", i ? "               " : "\nstack differs: ", w, b, a);
		free(a);
		free(b);
		free(w);
	}
	print_counts(fp, res->doc);
	for (i = 0; i < res->paths.n; i++)
		fprintf(fp, "%s\n", res->paths.v[i]);
}

void reproduce_result_release(struct reproduce_result *res)
{
	json_decref(res->doc);
	res->doc = NULL;
	strvec_release(&res->paths);
}
