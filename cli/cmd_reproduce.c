/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_reproduce.c — bench reproduce BUNDLE: verify a bundle, run its cases again here, judge each against the original. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "exec/envcap.h"
#include "exec/run.h"
#include "manifest/lock.h"
#include "bundle/bundle.h"
#include "stats/compare.h"
#include "stats/reproduce.h"
#include "core/escape.h"
#include "bundle/sign.h"

static const struct opt_cmd cmd = {
	"reproduce", "[--key PUB.pem]... [-o DIR] [-t X] [--max-band Y] [--rounds N] [--yes | --dry-run] [--json] [-q] BUNDLE.bench.tar.gz",
	"Verify the bundle (exit 8 when it does not verify: nothing is run or written), take its manifest and lock, "
	"print who signed it (key id, the trusted-key file it matched) and everything its manifest executes here "
	"(engine, launcher and sbatch arguments, base image, components and build commands, stack.env with the "
	"variables that load code named), and run only once confirmed: --yes, or 'y' at the prompt on a terminal "
	"(otherwise exit 3, nothing run); --dry-run prints that and the exact commands and runs nothing. Then "
	"check that this machine has the original's GPU model, GPU count and driver (a GPU target; otherwise every "
	"case is 'not reproducible here', named, nothing is run, exit 6), run the same suites N times (--rounds, "
	"default 3) into new run directories under DIR (with the bundle's lock when it has one), and judge every case "
	"against the original within this machine's run-to-run spread: 'reproduced' when the original lies inside "
	"the 99% prediction interval of the runs here (never narrower than 1 +/- X) and that band is no wider than "
	"1 +/- Y (default 0.10), 'inconclusive' when it lies inside a wider band (nothing can be told), 'slower' when "
	"the runs here lie below it, 'faster' above, 'not comparable' when a side did not measure (one round: "
	"compare's 95% CI of the ratio against 1 +/- X, and Y). Writes reproduce.json into the last run; every run is packed and signed with your key, "
	"the last one's statement names the original bundle and the other rounds' bundles as materials. Exit 9 when "
	"a case is slower; else 10 when a case is inconclusive (docs/exit-codes.md)."
};

#define RULE                                                                                                          \
	"per case, the figure of each run here in log space: mean m, standard deviation s over R runs, and the "     \
	"suite's pooled standard deviation S over its cases (D degrees of freedom); the 99% prediction interval of "   \
	"one more run, m +/- t(D) * max(s, S) * sqrt(1 + 1/R), t at 1% Bonferroni-adjusted over the cases judged "          \
	"so, never narrower than +/- log(1 + threshold); reproduced when the original lies inside it and it lies "   \
	"within [1 / (1 + max_band), 1 + max_band], inconclusive when it lies inside a wider one, "                  \
	"slower when the runs here lie below it, faster above; with one run here, compare's bootstrap 95% CI of the " \
	"ratio against 1 +/- threshold (and max_band); not comparable when a side did not measure the case"

static int write_text(const char *dir, const char *name, const char *text, size_t len)
{
	char *p = xstrfmt("%s/%s", dir, name);
	int err = fs_write_file(p, text, len, 0644);

	free(p);
	return err;
}

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

static void print_num(char *buf, size_t n, json_t *v, const char *fmt)
{
	if (json_is_number(v))
		snprintf(buf, n, fmt, json_number_value(v));
	else
		snprintf(buf, n, "-");
}

static void print_table(json_t *doc, double thr, double max_band)
{
	json_t *cases = json_object_get(doc, "cases"), *c, *cn = json_object_get(doc, "counts"), *d;
	size_t i;

	printf("%-12s %-44s %11s %11s %7s %6s %-19s %s\n", "suite", "case", "original", "here", "ratio", "noise", "band",
	       "verdict");
	json_array_foreach(cases, i, c) {
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
			printf("%-12s %-44s %11s %11s %7s %6s %-19s %s (%s)\n", sc, cs, o, h, r, nz, ci, v, why ? why : "");
		else
			printf("%-12s %-44s %11s %11s %7s %6s %-19s %s%s%s\n", sc, cs, o, h, r, nz, ci, v, why ? ": " : "",
			       why ? why : "");
		free(sc);
		free(cs);
		free(why);
	}
	json_array_foreach(json_object_get(doc, "stack_differs"), i, d) {
		char *a = reproduce_fact_text(json_object_get(d, "original")), *b = reproduce_fact_text(json_object_get(d, "here"));
		char *w = esc_text(json_string_value(json_object_get(d, "what")));

		printf("%s%s: %s here, %s in the original\n", i ? "               " : "\nstack differs: ", w, b, a);
		free(a);
		free(b);
		free(w);
	}
	if (json_is_false(json_object_get(doc, "reproducible")))
		printf("\n%lld not reproducible here: nothing was run\n",
		       (long long)json_integer_value(json_object_get(cn, "not reproducible here")));
	else
		printf("\n%lld reproduced, %lld faster, %lld slower, %lld inconclusive, %lld not comparable (band: %s, at "
		       "least 1 +/- %.3g%%; reproduced only within 1 +/- %.3g%%)\n",
		       (long long)json_integer_value(json_object_get(cn, "reproduced")),
		       (long long)json_integer_value(json_object_get(cn, "faster")),
		       (long long)json_integer_value(json_object_get(cn, "slower")),
		       (long long)json_integer_value(json_object_get(cn, "inconclusive")),
		       (long long)json_integer_value(json_object_get(cn, "not comparable")),
		       json_integer_value(json_object_get(doc, "rounds")) > 1 ? "99% prediction interval of one more run here"
									       : "95% CI of the ratio, one run here",
		       100 * thr, 100 * max_band);
}

/* The run of the original's manifest here (its dry run too): the same suites, variant and lock, and the original's
 * own case selection and budgets (bench run -k, --rep, --warmup: plan.json's overrides). select holds the patterns. */
static void reproduce_run_opts(struct run_opts *ro, struct strvec *select, const char *mpath, const char *out,
			       const struct strvec *suites, const char *lpath, int locked, json_t *plan)
{
	json_t *ov = json_object_get(plan, "overrides"), *p;
	size_t j;

	memset(ro, 0, sizeof(*ro));
	ro->manifest = mpath;
	ro->out_parent = out;
	ro->only = suites->v;
	ro->nonly = suites->n;
	ro->image_lock = lpath;
	ro->lock = locked ? lpath : NULL;
	ro->variant = json_string_value(json_object_get(plan, "variant"));
	json_array_foreach(json_object_get(ov, "select"), j, p)
		if (json_is_string(p))
			strvec_push(select, json_string_value(p));
	ro->select = select->v;
	ro->nselect = select->n;
	ro->rep = json_string_value(json_object_get(ov, "rep"));
	ro->warmup = json_string_value(json_object_get(ov, "warmup"));
}

int cmd_reproduce(int argc, char **argv)
{
	static const char *const names[] = { "manifest.yaml", "manifest.lock.json", "plan.json", "env/environment.json",
					     "image/image.json", NULL };
	struct opt_strlist keys = OPT_STRLIST_INIT;
	struct bundle_verify_result vr = BUNDLE_VERIFY_RESULT_INIT;
	struct reproduce_sink rs = { .names = STRVEC_INIT, .cur = -1 };
	struct compare_opts co = { 0.02, 0.01, 2000, 0, NULL, NULL };
	struct compare_side *sides = NULL;
	struct run_outcome *outs = NULL;
	struct strvec rounds_j = STRVEC_INIT;
	struct strvec suites = STRVEC_INIT, select = STRVEC_INIT;
	char *made_top = NULL; /* the first directory of out that was not there */
	const char *out = "runs", *thr = NULL, *rounds_s = NULL, *band_s = NULL, *bname;
	double max_band = 0.10;
	long rounds = 3;
	int json = 0, quiet = 0, n, err, rc = 0, loaded = 0, run_rc = 0, yes = 0, dry = 0;
	const struct opt opts[] = {
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify with this public key (repeatable); default: trusted keys"),
		OPT_STRING('o', "out", &out, "DIR", "where the new run directory is created (default: runs)"),
		OPT_STRING('t', "threshold", &thr, "X", "relative change that counts (default 0.02)"),
		OPT_STRING(0, "max-band", &band_s, "Y", "reproduced only within a band of 1 +/- Y at most (default 0.10)"),
		OPT_STRING(0, "rounds", &rounds_s, "N", "runs made here, to measure this machine's run-to-run spread (default 3)"),
		OPT_BOOL(0, "json", &json, "print reproduce.json instead of the table"),
		OPT_BOOL('q', "quiet", &quiet, "no progress of the run; the verdicts only"),
		OPT_BOOL('y', "yes", &yes, "run what the signer's manifest executes without asking (it is printed)"),
		OPT_BOOL('n', "dry-run", &dry, "print the signer, what the manifest executes and the exact commands; run nothing"),
		OPT_END(),
	};
	json_t *m = NULL, *plan = NULL, *oenv = NULL, *hereenv = NULL, *doc = NULL, *cases = json_array(), *differ = NULL;
	json_t *cmp = NULL, *lockj = NULL, *stack = NULL, *imagej = NULL;
	char *work = NULL, *dir = NULL, *tar = NULL, *env = NULL, *mpath = NULL, *lpath = NULL, *orig = NULL;
	size_t counts[REPRODUCE_NVERDICTS] = { 0 };
	struct run_opts ro;
	const char *k;
	json_t *v;
	size_t i;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		rc = n < 0 ? 2 : 0;
		goto cleanup;
	}
	if (n != 1) {
		rc = cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one bundle" : "no bundle given");
		goto cleanup;
	}
	if (thr) {
		char *end;

		co.threshold = strtod(thr, &end);
		if (*end || end == thr || co.threshold <= 0 || co.threshold >= 1) {
			rc = cli_usage_error(cmd.name, cmd.synopsis, "--threshold takes a number in (0, 1), e.g. 0.02");
			goto cleanup;
		}
	}
	if (band_s) {
		char *end;

		max_band = strtod(band_s, &end);
		if (*end || end == band_s || !(max_band > 0) || max_band > 10) {
			rc = cli_usage_error(cmd.name, cmd.synopsis, "--max-band takes a number in (0, 10], e.g. 0.10");
			goto cleanup;
		}
	}
	if (rounds_s) {
		char *end;

		rounds = strtol(rounds_s, &end, 10);
		if (*end || end == rounds_s || rounds < 1 || rounds > 100) {
			rc = cli_usage_error(cmd.name, cmd.synopsis, "--rounds takes a whole number from 1 to 100");
			goto cleanup;
		}
	}
	if (max_band < co.threshold) /* the band is never narrower than the threshold */
		max_band = co.threshold;
	co.keys = keys.v;
	sides = xcalloc((size_t)rounds + 1, sizeof(*sides));
	bname = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	/* 1. verify; what is used is what verified: one reading of one open file */
	{
		struct bundle_sink sink = { rsink_open, rsink_data, &rs };
		struct bundle_limits lim;

		bundle_limits_default(&lim);
		bundle_members_init(&rs.bm, &rs.inner, names, 64u << 20);
		if ((err = bundle_verify_read(&vr, argv[1], NULL, keys.v, sign_home(), &lim, &sink)) == 0)
			m = json_incref(rs.bm.out);
		if (err < 0) {
			char *why = esc_text(bench_error_last());

			fprintf(stderr, "bench: error: verification failed: %s; nothing was run\n", why);
			free(why);
			rc = bench_exit_code(err) == 1 ? 8 : bench_exit_code(err);
			goto cleanup;
		}
	}
	if (!json_is_string(json_object_get(m, "manifest.yaml")) || !json_is_string(json_object_get(m, "plan.json"))) {
		fprintf(stderr, "bench: error: '%s' holds no manifest.yaml or plan.json: nothing to reproduce\n", argv[1]);
		rc = 1;
		goto cleanup;
	}
	plan = json_loads(json_string_value(json_object_get(m, "plan.json")), 0, NULL);
	if (json_is_string(json_object_get(m, "env/environment.json")))
		oenv = json_loads(json_string_value(json_object_get(m, "env/environment.json")), 0, NULL);
	json_object_foreach(json_object_get(plan, "suites"), k, v)
		strvec_push(&suites, k);
	if (!suites.n) {
		fprintf(stderr, "bench: error: the plan of '%s' names no suite: nothing to reproduce\n", argv[1]);
		rc = 1;
		goto cleanup;
	}
	/* 2. the work directory: the original's manifest and lock, and the verified archive itself; the directories
	 * of out made for it are removed again when they stay empty (a dry run, an unconfirmed one) */
	{
		char *p = xstrdup(out), *sl;

		while (access(p, F_OK) < 0 && errno == ENOENT) {
			free(made_top);
			made_top = xstrdup(p);
			if (!(sl = strrchr(p, '/')) || sl == p)
				break;
			*sl = 0;
		}
		free(p);
	}
	if ((err = fs_mkdir_p(out)) < 0) {
		rc = cli_fail(err);
		goto cleanup;
	}
	work = xstrfmt("%s/.reproduce-%s-XXXXXX", out, vr.run);
	if (!mkdtemp(work)) {
		bench_error_set(BENCH_E_IO, "cannot create a work directory in '%s': %s", out, strerror(errno));
		free(work);
		work = NULL;
		rc = cli_fail(BENCH_E_IO);
		goto cleanup;
	}
	{
		const char *mt = json_string_value(json_object_get(m, "manifest.yaml"));
		const char *lt = json_string_value(json_object_get(m, "manifest.lock.json"));
		int wfd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		orig = xstrfmt("%s/%s.bench.tar.gz", work, vr.run); /* the name its envelope signs */

		err = write_text(work, "manifest.yaml", mt, strlen(mt));
		if (!err)
			err = write_inputs(work, &rs);
		if (!err && lt)
			err = write_text(work, "manifest.lock.json", lt, strlen(lt));
		/* the bytes judged are the bytes that verified: copied from the open file, hashed again */
		if (!err)
			err = wfd < 0 ? bench_error_set(BENCH_E_IO, "cannot open '%s': %s", work, strerror(errno))
				      : bundle_copy_verified(&vr, wfd, orig + strlen(work) + 1);
		if (!err) {
			char *e = xstrfmt("%s.intoto.jsonl", orig + strlen(work) + 1);

			err = write_text(work, e, vr.envelope, vr.envelope_len);
			free(e);
		}
		if (wfd >= 0)
			close(wfd);
		if (err < 0) {
			rc = cli_fail(err);
			goto cleanup;
		}
		mpath = xstrfmt("%s/manifest.yaml", work);
		if (lt) {
			char sha[65];

			lpath = xstrfmt("%s/manifest.lock.json", work);
			lockj = json_loads(lt, 0, NULL);
			lock_sha256_hex(sha, mt, strlen(mt));
			/* the original ran --locked when its lock is of exactly its manifest */
			if (!json_is_string(json_object_get(lockj, "manifest_sha256")) ||
			    strcmp(json_string_value(json_object_get(lockj, "manifest_sha256")), sha)) {
				json_decref(lockj);
				lockj = NULL;
			}
		}
	}
	/* the original as compare reads it, from the copy (verified again: the same bytes, the same keys) */
	if ((err = compare_load(&sides[0], orig, &co)) < 0) {
		rc = cli_fail(err) == 1 ? 8 : bench_exit_code(err);
		goto cleanup;
	}
	loaded = 1;
	doc = json_pack("{s:s, s:{s:s, s:s, s:s, s:s}, s:f, s:s}", "schema", "bench.reproduce/v1", "original", "bundle",
			bname, "sha256", vr.sha256, "run", vr.run, "keyid", vr.keyid, "threshold", co.threshold, "rule", RULE);
	/* 2b. the trust gate: the signer and everything its manifest executes, shown; run only once confirmed */
	{
		json_t *ij = json_loads(json_string_value(json_object_get(m, "image/image.json")) ?
					json_string_value(json_object_get(m, "image/image.json")) : "null", JSON_DECODE_ANY, NULL);
		const char *variant = json_string_value(json_object_get(plan, "variant"));

		rc = cli_confirm_signed_manifest(mpath, json_string_value(json_object_get(m, "manifest.lock.json")), variant, json_string_value(json_object_get(ij, "digest")), vr.keyid,
						 vr.key_origin, yes || dry);
		json_decref(ij);
		if (rc)
			goto cleanup;
		if (dry) { /* bench run --dry-run of the same manifest, variant, suites and lock */
			char *d = NULL;
			int started = 0;

			reproduce_run_opts(&ro, &select, mpath, out, &suites, lpath, lockj != NULL, plan);
			ro.dry_run = 1;
			if ((err = run_execute(&d, &started, &ro)) < 0)
				rc = err == BENCH_E_MANIFEST ? 3 : cli_fail(err);
			free(d);
			goto cleanup;
		}
	}
	/* 3. the hardware of a GPU run: the same GPU model, count and driver, or nothing is run */
	if (strcmp(json_string_value(json_object_get(plan, "vendor")) ? json_string_value(json_object_get(plan, "vendor")) : "",
		   "cpu")) {
		char *herep = xstrfmt("%s/here", work);
		json_t *a = reproduce_gpu_facts(oenv), *b;

		fs_mkdir_p(herep);
		hereenv = envcap_collect(herep);
		free(herep);
		b = reproduce_gpu_facts(hereenv);
		differ = reproduce_facts_differ(a, b);
		json_decref(a);
		json_decref(b);
	} else {
		differ = json_array();
	}
	json_object_set(doc, "not_reproducible", differ);
	if (json_array_size(differ)) {
		char *why = reproduce_differ_text(differ);
		json_t *c;

		json_array_foreach(json_object_get(plan, "cases"), i, c) {
			json_array_append_new(cases, json_pack("{s:O, s:O, s:s, s:s}", "suite", json_object_get(c, "suite"), "case",
							       json_object_get(c, "case"), "verdict", "not reproducible here", "why", why));
			counts[4]++;
		}
		free(why);
		json_object_set_new(doc, "reproducible", json_false());
		json_object_set_new(doc, "run", json_null());
		json_object_set_new(doc, "stack_differs", json_array());
		rc = 6;
		goto report;
	}
	json_object_set_new(doc, "reproducible", json_true());
	/* 4. the same suites, the same manifest (its variant), the same lock */
	reproduce_run_opts(&ro, &select, mpath, out, &suites, lpath, lockj != NULL, plan);
	/* a container run: the original's image by its recorded id when this machine's engine has it */
	if (json_is_string(json_object_get(m, "image/image.json"))) {
		imagej = json_loads(json_string_value(json_object_get(m, "image/image.json")), 0, NULL);
		ro.image_id = json_string_value(json_object_get(imagej, "digest"));
	}
	ro.quiet = quiet;
	if (!quiet) {
		char *r = esc_text(vr.run);

		fprintf(stderr, "bench: reproducing %s (sha256 %.12s..., %s) on this machine\n", r, vr.sha256,
			ro.image_id ? "its image by its recorded id, or from its lock" : lockj ? "its lock, --locked" : lpath ? "the image from its lock" : "engine host, this host's stack");
		free(r);
	}
	outs = xcalloc((size_t)rounds, sizeof(*outs));
	err = run_interleave(outs, &ro, 1, rounds);
	for (long r = 0; r < rounds; r++) {
		struct run_outcome *oc = &outs[r];

		if (oc->err && (!oc->dir || !oc->started)) { /* as bench run: a manifest's problems are printed already */
			if (oc->err == BENCH_E_MANIFEST && !oc->dir && !ro.lock) {
				rc = 3;
			} else {
				char *why = esc_text(oc->error ? oc->error : "failed");

				fprintf(stderr, "bench: error: %s\n", why);
				free(why);
				rc = bench_exit_code(oc->err);
			}
			if (oc->err == BENCH_E_MANIFEST)
				fprintf(stderr, "bench: error: the manifest of '%s' does not run with this bench; nothing was measured\n",
					bname);
			goto cleanup;
		}
		if (oc->err) { /* a case failed or was wrong: as bench run says it; the verdicts name the cases */
			char *why = esc_text(oc->error ? oc->error : "failed");

			fprintf(stderr, "bench: %s\n", why);
			free(why);
			if (run_rc != 7)
				run_rc = bench_exit_code(oc->err);
		}
	}
	if (err < 0) { /* interrupted: what was measured is kept, nothing is judged */
		rc = cli_fail(err);
		goto cleanup;
	}
	dir = xstrdup(outs[rounds - 1].dir);
	/* 5. judge: the original against the runs made here, reproduce's rule (stats/reproduce.c) */
	for (long r = 0; r < rounds; r++) {
		if ((err = compare_load(&sides[1 + r], outs[r].dir, &co)) < 0) {
			rc = cli_fail(err);
			goto cleanup;
		}
		loaded++;
	}
	{
		size_t *hruns = xcalloc((size_t)rounds, sizeof(size_t)), orun = 0;
		struct compare_group g[2] = { { sides[0].label, &orun, 1 }, { sides[1].label, hruns, (size_t)rounds } };
		json_t *rows;
		size_t c4[REPRODUCE_NVERDICTS] = { 0 };

		for (long r = 0; r < rounds; r++)
			hruns[r] = 1 + (size_t)r;
		cmp = compare_build_groups(sides, g, 2, 0, &co);
		rows = reproduce_judge(c4, cmp, sides + 1, (size_t)rounds, co.threshold, max_band);
		json_array_extend(cases, rows);
		json_decref(rows);
		for (size_t vi = 0; vi < REPRODUCE_NVERDICTS; vi++)
			counts[vi] += c4[vi];
		free(hruns);
	}
	{
		json_t *fa = compare_stack_facts(&sides[0]), *fb = compare_stack_facts(&sides[1]);

		stack = reproduce_facts_differ(fa, fb);
		json_decref(fa);
		json_decref(fb);
	}
	json_object_set(doc, "stack_differs", stack);
	/* the earlier rounds, packed now: their bundles are materials of the last one's statement */
	{
		json_t *rj = json_array();

		for (long r = 0; r + 1 < rounds; r++) {
			char *t = NULL, *e = NULL, sha[65];
			const char *base = strrchr(outs[r].dir, '/') ? strrchr(outs[r].dir, '/') + 1 : outs[r].dir;

			err = pack_with_own_key(&t, &e, outs[r].dir, 1, BUNDLE_LEVEL_DEFAULT);
			if (!err)
				err = fs_sha256_file(sha, t);
			if (!err) {
				const char *tb = strrchr(t, '/') ? strrchr(t, '/') + 1 : t;

				json_array_append_new(rj, json_pack("{s:s, s:s, s:s}", "run", base, "bundle", tb, "sha256", sha));
				strvec_push(&rounds_j, outs[r].dir);
				strvec_push(&rounds_j, t);
				strvec_push(&rounds_j, e);
			}
			free(t);
			free(e);
			if (err < 0) {
				json_decref(rj);
				rc = cli_fail(err);
				goto cleanup;
			}
		}
		json_object_set_new(doc, "rounds", json_integer(rounds));
		json_object_set_new(doc, "earlier_rounds", rj);
	}
	{
		const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;

		json_object_set_new(doc, "run", json_string(base));
	}
report:
	json_object_set(doc, "cases", cases);
	json_object_set_new(doc, "counts", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "reproduced", (json_int_t)counts[0],
						     "faster", (json_int_t)counts[1], "slower", (json_int_t)counts[2],
						     "not comparable", (json_int_t)counts[3], "not reproducible here",
						     (json_int_t)counts[4], "inconclusive",
						     (json_int_t)counts[REPRODUCE_INCONCLUSIVE]));
	json_object_set_new(doc, "max_band", json_real(max_band));
	if (dir) { /* 6. into the new run, then packed: its statement names the original as a material */
		char *p = xstrfmt("%s/reproduce.json", dir);

		if (json_dump_file(doc, p, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) < 0)
			err = bench_error_set(BENCH_E_IO, "cannot write '%s'", p);
		else
			err = pack_with_own_key(&tar, &env, dir, quiet || json, BUNDLE_LEVEL_DEFAULT);
		free(p);
		if (err < 0) {
			rc = cli_fail(err);
			goto cleanup;
		}
	}
	if (json) {
		cli_print_json(json_incref(doc));
	} else {
		print_table(doc, co.threshold, max_band);
		for (size_t ri = 0; ri < rounds_j.n; ri++)
			printf("%s\n", rounds_j.v[ri]);
		if (dir)
			printf("%s\n%s\n%s\n", dir, tar, env);
	}
	if (!rc)
		rc = run_rc == 7 ? 7 : counts[2] ? 9 : run_rc ? run_rc : counts[REPRODUCE_INCONCLUSIVE] ? 10 : 0;
cleanup:
	rsink_release(&rs);
	for (int si = 0; si < loaded; si++)
		compare_side_release(&sides[si]);
	free(sides);
	if (outs)
		for (long r = 0; r < rounds; r++)
			run_outcome_release(&outs[r]);
	free(outs);
	strvec_release(&rounds_j);
	if (work)
		fs_remove_tree(work);
	if (made_top) { /* out and its parents made above, each while it is empty */
		char *p = xstrdup(out), *sl;

		while (rmdir(p) == 0 && strcmp(p, made_top) && (sl = strrchr(p, '/')))
			*sl = 0;
		free(p);
		free(made_top);
	}
	json_decref(m);
	json_decref(plan);
	json_decref(oenv);
	json_decref(hereenv);
	json_decref(doc);
	json_decref(cases);
	json_decref(differ);
	json_decref(cmp);
	json_decref(lockj);
	json_decref(stack);
	json_decref(imagej);
	free(work);
	free(dir);
	free(tar);
	free(env);
	free(mpath);
	free(lpath);
	free(orig);
	strvec_release(&suites);
	strvec_release(&select);
	bundle_verify_result_release(&vr);
	opt_strlist_release(&keys);
	return rc;
}
