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
#include "report/bundle.h"
#include "report/compare.h"
#include "report/escape.h"
#include "report/sign.h"

static const struct opt_cmd cmd = {
	"reproduce", "[--key PUB.pem]... [-o DIR] [-t X] [--json] [-q] BUNDLE.bench.tar.gz",
	"Verify the bundle (exit 8 when it does not verify: nothing is run or written), take its manifest and lock, "
	"check that this machine has the original's GPU model, GPU count and driver (a GPU target; otherwise every "
	"case is 'not reproducible here', named, nothing is run, exit 6), run the same suites into a new run "
	"directory under DIR (with the bundle's lock when it has one), and judge every case against the original: "
	"the ratio here / original of compare's medians with its bootstrap 95% CI; 'reproduced' when the CI "
	"overlaps [1 - X, 1 + X], 'slower' below, 'faster' above, 'not comparable' when a side did not measure. "
	"Writes reproduce.json into the new run, which is packed and signed with your key; its statement names "
	"the original bundle's sha256 as a material. Exit 9 when a case is slower (docs/bench.1)."
};

#define RULE                                                                                                          \
	"ratio = median here / median of the original (compare's statistic), 95% CI by compare's bootstrap; "        \
	"reproduced when the CI overlaps [1 - threshold, 1 + threshold], slower when it lies below, faster above; "   \
	"not comparable when a side did not measure the case or has fewer than 2 samples"

static int write_text(const char *dir, const char *name, const char *text, size_t len)
{
	char *p = xstrfmt("%s/%s", dir, name);
	int err = fs_write_file(p, text, len, 0644);

	free(p);
	return err;
}

/* The hardware facts that decide whether a GPU run can be reproduced here: the first GPU's model and driver, the
 * number of GPUs. */
static json_t *gpu_facts(json_t *env)
{
	json_t *g = json_object_get(env, "gpus"), *g0 = json_array_get(g, 0);
	json_t *name = json_object_get(g0, "name"), *drv = json_object_get(g0, "driver");

	return json_pack("{s:O, s:I, s:O}", "gpu model", json_is_string(name) ? name : json_null(), "gpu count",
			 (json_int_t)json_array_size(g), "driver", json_is_string(drv) ? drv : json_null());
}

static char *fact_text(json_t *v)
{
	if (!v || json_is_null(v))
		return xstrdup("none");
	if (json_is_string(v))
		return esc_text(json_string_value(v));
	{
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT), *e = esc_text(s ? s : "?");

		free(s);
		return e;
	}
}

/* Every fact of a that b lacks or holds otherwise, and every fact only b has: [{what, original, here}]. */
static json_t *facts_differ(json_t *a, json_t *b)
{
	json_t *out = json_array(), *v;
	const char *k;

	json_object_foreach(a, k, v) {
		json_t *w = json_object_get(b, k);

		if (!w || !json_equal(v, w))
			json_array_append_new(out, json_pack("{s:s, s:O, s:O}", "what", k, "original", v, "here", w ? w : json_null()));
	}
	json_object_foreach(b, k, v)
		if (!json_object_get(a, k))
			json_array_append_new(out, json_pack("{s:s, s:n, s:O}", "what", k, "original", "here", v));
	return out;
}

/* "gpu model: A vs B; driver: C vs D" */
static char *differ_text(json_t *differ)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *d;

	json_array_foreach(differ, i, d) {
		char *a = fact_text(json_object_get(d, "original")), *b = fact_text(json_object_get(d, "here"));

		strbuf_addf(&sb, "%s%s: %s vs %s", i ? "; " : "", json_string_value(json_object_get(d, "what")), a, b);
		free(a);
		free(b);
	}
	return strbuf_detach(&sb);
}

/* One row of reproduce.json from one row of compare_build (the original the baseline, the run here the other). */
static json_t *judge_row(json_t *row, size_t counts[5])
{
	json_t *b = json_object_get(row, "baseline"), *o = json_array_get(json_object_get(row, "others"), 0);
	json_t *ci = json_object_get(o, "ci95"), *out;
	const char *v = json_string_value(json_object_get(o, "verdict"));
	double t = json_number_value(json_object_get(row, "threshold"));

	out = json_pack("{s:O, s:O, s:O?, s:O, s:O, s:f}", "suite", json_object_get(row, "suite"), "case",
			json_object_get(row, "case"), "unit", json_object_get(row, "unit"), "original",
			json_object_get(b, "value") ? json_object_get(b, "value") : json_null(), "here",
			json_object_get(o, "value") ? json_object_get(o, "value") : json_null(), "threshold", t);
	if (json_is_number(json_object_get(o, "ratio")))
		json_object_set(out, "ratio", json_object_get(o, "ratio"));
	if (v && !strcmp(v, "missing")) {
		json_object_set_new(out, "verdict", json_string("not comparable"));
		json_object_set_new(out, "why", json_string("not measured here"));
		counts[3]++;
	} else if (json_array_size(ci) != 2 || (v && !strcmp(v, "not comparable"))) {
		const char *why = json_string_value(json_object_get(o, "why"));

		json_object_set_new(out, "verdict", json_string("not comparable"));
		json_object_set_new(out, "why", json_string(why ? why : "no confidence interval"));
		counts[3]++;
	} else {
		double lo = json_number_value(json_array_get(ci, 0)), hi = json_number_value(json_array_get(ci, 1));
		const char *verdict = hi < 1 - t ? "slower" : lo > 1 + t ? "faster" : "reproduced";

		json_object_set(out, "ci95", ci);
		json_object_set_new(out, "verdict", json_string(verdict));
		counts[*verdict == 's' ? 2 : *verdict == 'f' ? 1 : 0]++;
	}
	return out;
}

static void print_num(char *buf, size_t n, json_t *v, const char *fmt)
{
	if (json_is_number(v))
		snprintf(buf, n, fmt, json_number_value(v));
	else
		snprintf(buf, n, "-");
}

static void print_table(json_t *doc, double thr)
{
	json_t *cases = json_object_get(doc, "cases"), *c, *cn = json_object_get(doc, "counts"), *d;
	size_t i;

	printf("%-12s %-44s %11s %11s %7s %-17s %s\n", "suite", "case", "original", "here", "ratio", "95% CI", "verdict");
	json_array_foreach(cases, i, c) {
		char o[32], h[32], r[32], ci[48] = "-";
		char *sc = esc_text(json_string_value(json_object_get(c, "suite"))), *cs = esc_text(json_string_value(json_object_get(c, "case")));
		char *why = json_string_value(json_object_get(c, "why")) ? esc_text(json_string_value(json_object_get(c, "why"))) : NULL;
		const char *v = json_string_value(json_object_get(c, "verdict"));
		json_t *c95 = json_object_get(c, "ci95");

		print_num(o, sizeof(o), json_object_get(c, "original"), "%.4g");
		print_num(h, sizeof(h), json_object_get(c, "here"), "%.4g");
		print_num(r, sizeof(r), json_object_get(c, "ratio"), "%.3f");
		if (json_array_size(c95) == 2)
			snprintf(ci, sizeof(ci), "[%.3f, %.3f]", json_number_value(json_array_get(c95, 0)),
				 json_number_value(json_array_get(c95, 1)));
		if (v && !strcmp(v, "not reproducible here"))
			printf("%-12s %-44s %11s %11s %7s %-17s %s (%s)\n", sc, cs, o, h, r, ci, v, why ? why : "");
		else
			printf("%-12s %-44s %11s %11s %7s %-17s %s%s%s\n", sc, cs, o, h, r, ci, v, why ? ": " : "", why ? why : "");
		free(sc);
		free(cs);
		free(why);
	}
	json_array_foreach(json_object_get(doc, "stack_differs"), i, d) {
		char *a = fact_text(json_object_get(d, "original")), *b = fact_text(json_object_get(d, "here"));
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
		printf("\n%lld reproduced, %lld faster, %lld slower, %lld not comparable (ratio here / original with its 95%% "
		       "CI against 1 +/- %.3g%%)\n",
		       (long long)json_integer_value(json_object_get(cn, "reproduced")),
		       (long long)json_integer_value(json_object_get(cn, "faster")),
		       (long long)json_integer_value(json_object_get(cn, "slower")),
		       (long long)json_integer_value(json_object_get(cn, "not comparable")), 100 * thr);
}

int cmd_reproduce(int argc, char **argv)
{
	static const char *const names[] = { "manifest.yaml", "manifest.lock.json", "plan.json", "env/environment.json",
					     NULL };
	struct opt_strlist keys = OPT_STRLIST_INIT;
	struct bundle_verify_result vr = BUNDLE_VERIFY_RESULT_INIT;
	struct compare_opts co = { 0.02, 0.01, 2000, 0, NULL, NULL };
	struct compare_side sides[2] = { COMPARE_SIDE_INIT, COMPARE_SIDE_INIT };
	struct strvec suites = STRVEC_INIT;
	const char *out = "runs", *thr = NULL, *bname;
	int json = 0, quiet = 0, n, err, rc = 0, started = 0, loaded = 0, run_rc = 0;
	const struct opt opts[] = {
		OPT_LIST('k', "key", &keys, "PUB.pem", "verify with this public key (repeatable); default: trusted keys"),
		OPT_STRING('o', "out", &out, "DIR", "where the new run directory is created (default: runs)"),
		OPT_STRING('t', "threshold", &thr, "X", "relative change that counts (default 0.02)"),
		OPT_BOOL(0, "json", &json, "print reproduce.json instead of the table"),
		OPT_BOOL('q', "quiet", &quiet, "no progress of the run; the verdicts only"),
		OPT_END(),
	};
	json_t *m = NULL, *plan = NULL, *oenv = NULL, *hereenv = NULL, *doc = NULL, *cases = json_array(), *differ = NULL;
	json_t *cmp = NULL, *lockj = NULL, *stack = NULL;
	char *work = NULL, *dir = NULL, *tar = NULL, *env = NULL, *mpath = NULL, *lpath = NULL, *orig = NULL;
	size_t counts[5] = { 0 }; /* reproduced, faster, slower, not comparable, not reproducible here */
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
	co.keys = keys.v;
	bname = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	/* 1. verify; what is used is what verified: one reading of one open file */
	{
		struct bundle_members bm;
		struct bundle_sink sink;
		struct bundle_limits lim;

		bundle_limits_default(&lim);
		bundle_members_init(&bm, &sink, names, 64u << 20);
		if ((err = bundle_verify_read(&vr, argv[1], NULL, keys.v, sign_home(), &lim, &sink)) == 0)
			m = json_incref(bm.out);
		bundle_members_release(&bm);
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
	/* 2. the work directory: the original's manifest and lock, and the verified archive itself */
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
	/* 3. the hardware of a GPU run: the same GPU model, count and driver, or nothing is run */
	if (strcmp(json_string_value(json_object_get(plan, "vendor")) ? json_string_value(json_object_get(plan, "vendor")) : "",
		   "cpu")) {
		char *herep = xstrfmt("%s/here", work);
		json_t *a = gpu_facts(oenv), *b;

		fs_mkdir_p(herep);
		hereenv = envcap_collect(herep);
		free(herep);
		b = gpu_facts(hereenv);
		differ = facts_differ(a, b);
		json_decref(a);
		json_decref(b);
	} else {
		differ = json_array();
	}
	json_object_set(doc, "not_reproducible", differ);
	if (json_array_size(differ)) {
		char *why = differ_text(differ);
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
	memset(&ro, 0, sizeof(ro));
	ro.manifest = mpath;
	ro.out_parent = out;
	ro.only = suites.v;
	ro.nonly = suites.n;
	ro.image_lock = lpath;
	ro.lock = lockj ? lpath : NULL;
	ro.variant = json_string_value(json_object_get(plan, "variant"));
	ro.quiet = quiet;
	if (!quiet) {
		char *r = esc_text(vr.run);

		fprintf(stderr, "bench: reproducing %s (sha256 %.12s..., %s) on this machine\n", r, vr.sha256,
			lockj ? "its lock, --locked" : lpath ? "the image from its lock" : "engine host, this host's stack");
		free(r);
	}
	err = run_execute(&dir, &started, &ro);
	if (err < 0 && (!dir || !started)) { /* as bench run: a manifest's problems are printed already, a lock's are not */
		if (err == BENCH_E_MANIFEST && !dir && !ro.lock)
			rc = 3;
		else
			rc = cli_fail(err);
		if (err == BENCH_E_MANIFEST)
			fprintf(stderr, "bench: error: the manifest of '%s' does not run with this bench; nothing was measured\n",
				bname);
		goto cleanup;
	}
	if (err < 0) { /* a case failed or was wrong: as bench run says it; the verdicts name the cases */
		char *why = esc_text(bench_error_last());

		fprintf(stderr, "bench: %s\n", why);
		free(why);
		run_rc = bench_exit_code(err);
	}
	/* 5. judge: compare's numbers, one run per side, reproduce's rule */
	if ((err = compare_load(&sides[1], dir, &co)) < 0) {
		rc = cli_fail(err);
		goto cleanup;
	}
	loaded = 2;
	cmp = compare_build(sides, 2, 0, &co);
	json_array_foreach(json_object_get(cmp, "cases"), i, v)
		json_array_append_new(cases, judge_row(v, counts));
	{
		json_t *fa = compare_stack_facts(&sides[0]), *fb = compare_stack_facts(&sides[1]);

		stack = facts_differ(fa, fb);
		json_decref(fa);
		json_decref(fb);
	}
	json_object_set(doc, "stack_differs", stack);
	{
		const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;

		json_object_set_new(doc, "run", json_string(base));
	}
report:
	json_object_set(doc, "cases", cases);
	json_object_set_new(doc, "counts", json_pack("{s:I, s:I, s:I, s:I, s:I}", "reproduced", (json_int_t)counts[0], "faster",
						     (json_int_t)counts[1], "slower", (json_int_t)counts[2], "not comparable",
						     (json_int_t)counts[3], "not reproducible here", (json_int_t)counts[4]));
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
		print_table(doc, co.threshold);
		if (dir)
			printf("%s\n%s\n%s\n", dir, tar, env);
	}
	if (!rc)
		rc = run_rc == 7 ? 7 : counts[2] ? 9 : run_rc;
cleanup:
	if (loaded >= 1)
		compare_side_release(&sides[0]);
	if (loaded >= 2)
		compare_side_release(&sides[1]);
	if (work)
		fs_remove_tree(work);
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
	free(work);
	free(dir);
	free(tar);
	free(env);
	free(mpath);
	free(lpath);
	free(orig);
	strvec_release(&suites);
	bundle_verify_result_release(&vr);
	opt_strlist_release(&keys);
	return rc;
}
