/* SPDX-License-Identifier: Apache-2.0 */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/rand.h>

#include "core/fs.h"
#include "core/scrub.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "bundle/bundle.h"
#include "manifest/lock.h"
#include "manifest/plugin.h"
#include "manifest/plugin_pins.h"
#include "manifest/manifest.h"
#include "manifest/peaks.h"
#include "manifest/plan.h"
#include "envcap.h"
#include "exec.h"
#include "fabric.h"
#include "run_int.h"

extern char **environ;


volatile sig_atomic_t run_stop_flag;
volatile sig_atomic_t run_stop_signal;

/* Every signal that would end bench ends the run instead: the runner's group is ended and the state says interrupted.
 * SIGPIPE too (bench run ... 2>&1 | head -1: the reader went away); the writes that follow fail with EPIPE. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

static void on_signal(int sig)
{
	run_stop_signal = sig;
	run_stop_flag = 1;
}

const char *run_stop_reason(void)
{
	switch (run_stop_signal) {
	case SIGINT:
		return "interrupted (SIGINT)";
	case SIGTERM:
		return "interrupted (SIGTERM)";
	case SIGHUP:
		return "interrupted (SIGHUP: the terminal went away)";
	case SIGQUIT:
		return "interrupted (SIGQUIT)";
	case SIGPIPE:
		return "interrupted (SIGPIPE: the reader of bench's output went away)";
	default:
		return "interrupted";
	}
}

/* ---- the run --------------------------------------------------------------------------------------------------- */

/* The values a run must not leak: those of secret variables (core/scrub.h) of this process and of the manifest's
 * stack.env, which the runners see. */
void run_secret_values(struct strvec *out, const struct run *r)
{
	struct strvec menv = STRVEC_INIT;

	scrub_secret_values(out, environ);
	for (size_t i = 0; i < r->m.stack.nenv; i++)
		strvec_pushf(&menv, "%s=%s", r->m.stack.env[i].name, r->m.stack.env[i].value);
	scrub_secret_values(out, strvec_argv(&menv));
	strvec_release(&menv);
}

/* Before anything is packed: the secret values and credentials scrubbed from every file of the run (logs,
 * records, environment, whatever a runner wrote), with the values bench pack would scrub and those of the manifest's
 * stack.env. Whatever stops it leaves the run unpackable: a full disk (a real ENOSPC or EDQUOT, by errno) ends the
 * run as a full disk does (nothing packed, the files kept, --resume completes it); a name holding a secret is
 * refused as bench pack refuses it, its message kept as the error. 0 or that error. */
static int scrub_run(struct run *r)
{
	struct strvec secrets = STRVEC_INIT;
	int err, e;

	run_secret_values(&secrets, r);
	err = scrub_dir(r->dir, &secrets, bundle_pack_member_limit);
	e = errno;
	strvec_release(&secrets);
	if (err < 0) {
		r->unpackable = 1;
		if (e == ENOSPC || e == EDQUOT)
			run_disk_full = 1;
	}
	return err;
}

/* -s: the run holds the selected suites' cases and no others; a resumed run, the suites its plan.json holds. */
static int select_suites(struct plan *p, const struct run_opts *o, const char *mpath, json_t *old)
{
	struct strvec names = STRVEC_INIT;
	int err = 0;

	if (o->nonly) {
		for (size_t i = 0; i < o->nonly; i++)
			strvec_push(&names, o->only[i]);
	} else if (o->resume) {
		const char *k;
		json_t *v;

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
	strvec_release(&names);
	return err;
}

/* -k, --rep, --warmup, or on --resume those its plan.json recorded: into r->overrides (NULL: none); --rep and
 * --warmup replace the rep and warmup of every suite that times by budget (their records' params say so). */
static int run_overrides(struct run *r, const struct run_opts *o)
{
	static const char *const budgets[] = { "rep", "warmup", NULL };
	json_t *ov = NULL;
	int err = 0;

	if (o->resume) {
		if (json_is_object(json_object_get(r->old_plan, "overrides")))
			ov = json_incref(json_object_get(r->old_plan, "overrides"));
	} else if (o->nselect || o->rep || o->warmup) {
		ov = json_object();
		if (o->nselect) {
			json_t *sel = json_array();

			for (size_t i = 0; i < o->nselect; i++)
				json_array_append_new(sel, json_string(o->select[i]));
			json_object_set_new(ov, "select", sel);
		}
		if (o->rep)
			json_object_set_new(ov, "rep", json_string(o->rep));
		if (o->warmup)
			json_object_set_new(ov, "warmup", json_string(o->warmup));
	}
	for (size_t k = 0; ov && budgets[k]; k++) {
		const char *text = json_string_value(json_object_get(ov, budgets[k]));
		uint64_t ns = 0;
		char why[128] = "must be a duration above 0 such as 20ms";

		if (!text)
			continue;
		if (units_parse_duration(&ns, text, why, sizeof(why)) < 0 || ns == 0) {
			err = bench_error_set(BENCH_E_USAGE, "--%s: %s, got '%s'", budgets[k], why, text);
			goto cleanup;
		}
		for (size_t s = 0; s < r->m.nsuites; s++) {
			struct suite_cfg *cfg = &r->m.suites[s];

			for (size_t i = 0; i < cfg->nvalues; i++)
				if (!strcmp(cfg->values[i].def->name, budgets[k]) && cfg->values[i].def->type == PARAM_DURATION)
					cfg->values[i].i = (long long)ns;
		}
	}
	r->overrides = ov;
	ov = NULL;
cleanup:
	json_decref(ov);
	return err;
}

/* --rep, --warmup on a suite of the run that counts iterations or steps instead: said once, not silently ignored */
static void warn_overrides(const struct run *r)
{
	static const char *const budgets[] = { "rep", "warmup", NULL };

	for (size_t k = 0; r->overrides && !r->o->resume && !r->o->quiet && budgets[k]; k++) {
		if (!json_object_get(r->overrides, budgets[k]))
			continue;
		for (size_t s = 0; s < r->m.nsuites; s++) {
			const struct suite_cfg *cfg = &r->m.suites[s];
			int planned = 0;

			for (size_t c = 0; c < r->plan.n && !planned; c++)
				planned = r->plan.cases[c].suite == cfg->ops;
			if (planned && !suite_cfg_get(cfg, budgets[k]))
				fprintf(stderr, "bench: --%s does not apply to suite '%s' (it counts iterations or steps)\n",
					budgets[k], cfg->ops->name);
		}
	}
}

/* -k: the cases whose SUITE/CASE matches one of the patterns (a glob, matched anywhere: a plain word is a
 * substring); none matching is a usage error, as -s naming no case is. */
static int select_cases(struct plan *p, json_t *overrides, const char *mpath)
{
	json_t *sel = json_object_get(overrides, "select"), *pat;
	size_t w = 0, i;

	if (!json_array_size(sel))
		return 0;
	for (size_t c = 0; c < p->n; c++) {
		char *full = xstrfmt("%s/%s", p->cases[c].suite->name, p->cases[c].key);
		int keep = 0;

		json_array_foreach(sel, i, pat) {
			char *glob = xstrfmt("*%s*", json_string_value(pat) ? json_string_value(pat) : "");

			keep |= fnmatch(glob, full, 0) == 0;
			free(glob);
		}
		free(full);
		if (keep) {
			p->cases[w++] = p->cases[c];
		} else {
			free(p->cases[c].key);
			json_decref(p->cases[c].params);
		}
	}
	p->n = w;
	if (!p->n)
		return bench_error_set(BENCH_E_USAGE, "-k: no case of '%s' matches %s", mpath,
				       json_array_size(sel) == 1 ? "that pattern" : "those patterns");
	return 0;
}

static const struct engine_ops *eng_container(const struct run *r)
{
	const struct engine_ops *e = engine_find(engine_names[r->m.runtime.engine]);

	return e && e->exec_prefix ? e : NULL;
}

/* The lock an image is built from, and the manifest's text: on a fresh run (*mbuf given) the lock given (--locked,
 * or the one beside the manifest); on resume (*mbuf NULL) the run directory's lock and manifest, read into *mb
 * (caller frees) and lent through *mbuf, *mlen. *lockp: the lock's path (caller frees). */
static int image_inputs(char **lockp, char **mb, const char **mbuf, size_t *mlen, const struct run *r,
			const struct engine_ops *e)
{
	const char *lp = r->o->lock ? r->o->lock : r->o->image_lock;
	char *mp;
	size_t mblen = 0;
	int err;

	if (*mbuf) {
		if (!lp)
			return bench_error_set(BENCH_E_MANIFEST, "engine '%s' runs a locked stack: no lock was given", e->name);
		*lockp = xstrdup(lp);
		return 0;
	}
	mp = xstrfmt("%s/manifest.yaml", r->dir);
	*lockp = xstrfmt("%s/manifest.lock.json", r->dir);
	err = fs_read_file(mb, &mblen, mp, MANIFEST_MAX_BYTES + 1);
	free(mp);
	if (err < 0)
		return err;
	*mbuf = *mb;
	*mlen = mblen;
	return 0;
}

/* What the run keeps of its image: the lock, image/Containerfile (or bench.def) and image/image.json. */
static int image_record(const struct run *r, const struct engine_ops *e, const char *lbuf, size_t llen)
{
	char *d = xstrfmt("%s/image", r->dir), *rbuf = NULL;
	size_t rlen = 0;
	json_t *j = NULL;
	int err;

	if ((err = run_write_atomic(r->dir, "manifest.lock.json", lbuf, llen)) < 0 || (err = fs_mkdir_p(d)) < 0)
		goto cleanup;
	if ((err = fs_read_file(&rbuf, &rlen, r->img.recipe, 16u << 20)) < 0 ||
	    (err = run_write_atomic(r->dir, !strcmp(e->builder->recipe_format, "apptainer") ? "image/bench.def" : "image/Containerfile",
				rbuf, rlen)) < 0)
		goto cleanup;
	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:b}", "schema", "bench.image/v1", "engine", e->name, "image",
		      r->img.image, "digest", r->img.digest, "context_sha256", r->img.context_sha, "reused", r->img.reused,
		      "recorded", r->img.recorded);
	err = run_write_json(r->dir, "image/image.json", j);
cleanup:
	json_decref(j);
	free(rbuf);
	free(d);
	return err;
}

/* env/container.txt: what is inside the image (OS, packages, shared libraries, Python packages), by a fixed script
 * with no manifest value in it; secret names' values and URL credentials removed from its env dump (envcap.h). */
static void image_capture_env(struct run *r, const struct engine_ops *e)
{
	struct strvec av = STRVEC_INIT;
	char *text = NULL;
	size_t tlen = 0;

	if (e->exec_prefix(&av, e, &r->m, r->img.image, r->dir) == 0) {
		strvec_push(&av, "sh");
		strvec_push(&av, "-c");
		strvec_push(&av, "echo '## os-release'; cat /etc/os-release; echo '## uname'; uname -a; "
			    "echo '## dpkg'; dpkg-query -W -f '${Package}\t${Version}\n' 2>/dev/null; "
			    "echo '## ldconfig'; ldconfig -p 2>/dev/null; "
			    "echo '## alternatives'; ls -l /etc/alternatives 2>/dev/null; "
			    "echo '## pip'; python3 -m pip list --format=freeze 2>/dev/null || python3 -c \"$1\" 2>/dev/null; "
			    "echo '## env'; env | sort");
		strvec_push(&av, "sh"); /* $0 */
		strvec_push(&av, envcap_py_distributions); /* $1: the same program the host's capture runs */
		if (spawn_capture(&text, &tlen, strvec_argv(&av), 16u << 20, 300) == 0 && text) {
			struct strvec secrets = STRVEC_INIT;
			struct strbuf clean = STRBUF_INIT;

			run_secret_values(&secrets, r);
			scrub_text(&clean, text, tlen, &secrets);
			run_write_atomic(r->dir, "env/container.txt", clean.buf, clean.len);
			strbuf_release(&clean);
			strvec_release(&secrets);
		}
	}
	strvec_release(&av);
	free(text);
}

/* Container engines: the stack's image (built, or found for the same build context), its recipe and id
 * written into the run directory (image/), and the environment captured inside it (env/container.txt).
 * mbuf: the manifest's text (NULL on resume: the run directory already holds the lock). */
static int prepare_image(struct run *r, const char *mbuf, size_t mlen)
{
	const struct engine_ops *e = eng_container(r);
	struct manifest base = MANIFEST_INIT;
	char *lockp = NULL, *lbuf = NULL, *mb = NULL;
	size_t llen = 0;
	int err;

	if ((err = image_inputs(&lockp, &mb, &mbuf, &mlen, r, e)) < 0)
		goto cleanup;
	if (fs_read_file(&lbuf, &llen, lockp, 16u << 20) < 0) {
		err = bench_error_set(BENCH_E_MANIFEST, "engine '%s' runs a locked stack, and there is no readable lock at '%s' "
				      "(run 'bench lock %s')", e->name, lockp, r->o->manifest ? r->o->manifest : "MANIFEST");
		goto cleanup;
	}
	/* a variant's stack runs in the manifest's own image (its name, its stack.env): the variants of a manifest share
	 * one image and differ only in the environment their runners are given */
	if (r->m.variant) {
		struct diag_list bd = DIAG_LIST_INIT;

		if ((err = manifest_parse_buffer(&base, &bd, r->mpath, mbuf, mlen)) < 0)
			diag_list_print(&bd, stderr);
		diag_list_release(&bd);
		if (err < 0)
			goto cleanup;
	}
	if ((err = image_build(&r->img, e->builder, r->o->image_id, r->m.variant ? &base : &r->m, mbuf, mlen, lbuf, llen, 0,
			       r->o->quiet ? NULL : stderr, &run_stop_flag)) < 0 ||
	    (err = image_record(r, e, lbuf, llen)) < 0)
		goto cleanup;
	image_capture_env(r, e);
cleanup:
	manifest_release(&base);
	free(lockp);
	free(lbuf);
	free(mb);
	return err;
}

/* Engine host with components: the stack built on this machine (git components into their prefixes, pip closures
 * into an environment; host_stack_build), loaded as the runners will see it, its lock copied into the run. */
static int prepare_host_stack(struct run *r)
{
	const char *lp = r->o->resume ? NULL : r->o->lock ? r->o->lock : r->o->image_lock;
	char *lockp = lp ? xstrdup(lp) : xstrfmt("%s/manifest.lock.json", r->dir), *lbuf = NULL;
	size_t llen = 0;
	json_error_t je;
	int err;

	if (fs_read_file(&lbuf, &llen, lockp, 16u << 20) < 0) {
		err = bench_error_set(BENCH_E_MANIFEST, "the stack's components are pinned by a lock, and there is no readable "
				      "lock at '%s' (run 'bench lock %s')", lockp, r->o->manifest ? r->o->manifest : "MANIFEST");
		goto cleanup;
	}
	if (!(r->hs_lock = json_loadb(lbuf, llen, 0, &je))) {
		err = bench_error_set(BENCH_E_MANIFEST, "%s:%d:%d: error: not a lock: %s", lockp, je.line, je.column, je.text);
		goto cleanup;
	}
	if ((err = host_stack_build(&r->m, r->hs_lock, 0, r->o->quiet ? NULL : stderr, &run_stop_flag)) < 0 ||
	    (err = host_stack_load(&r->hs, &r->m, r->hs_lock)) < 0)
		goto cleanup;
	if (!r->o->resume)
		err = run_write_atomic(r->dir, "manifest.lock.json", lbuf, llen);
cleanup:
	free(lockp);
	free(lbuf);
	return err;
}

/* ---- the phases of a run: plan, prepare, execute (run_execute_suite above), collect ---------------------------------- */

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
	json_t *lk = NULL;
	const char *have;
	char sha[65];
	int err = 0;

	fs_load_json(&lk, r->o->lock, 64u << 20, 0); /* without blocking; NULL: said below */
	have = json_string_value(json_object_get(lk, "manifest_sha256"));
	lock_sha256_hex(sha, r->mbuf, r->mlen);
	if (!lk)
		err = bench_error_set(BENCH_E_MANIFEST, "--locked: no readable lock at '%s' (run 'bench lock %s')", r->o->lock,
				      r->mpath);
	else if (!have || strcmp(have, sha))
		err = bench_error_set(BENCH_E_MANIFEST, "--locked: '%s' changed since '%s' was written (run 'bench lock' again)",
				      r->mpath, r->o->lock);
	if (!err) { /* the plug-ins' files, as the lock pinned them (docs/plugins.md) */
		json_t *pins = NULL;
		int moved;

		if ((err = plugin_pins(&pins, &r->m, r->mpath)) == 0 &&
		    (moved = plugin_pins_moved(json_object_get(lk, "plugins"), pins, stderr)) > 0)
			err = bench_error_set(BENCH_E_RESOLVE, "--locked: %d plug-in file%s changed since '%s' was written",
					      moved, moved == 1 ? "" : "s", r->o->lock);
		json_decref(pins);
	}
	json_decref(lk);
	return err;
}

/* The file and native plug-ins, copied into the run as inputs/<path>: the bundle carries the bytes that ran, and
 * the runners load that copy (the cases file names the directory). */
static int copy_plugin_inputs(const struct run *r)
{
	json_t *pins = NULL;
	const char *k;
	json_t *v;
	int err;

	if ((err = plugin_pins(&pins, &r->m, r->mpath)) < 0)
		return err;
	json_object_foreach(pins, k, v) {
		const char *rel = json_string_value(json_object_get(v, "path"));
		char *src = plugin_path(r->mpath, rel), *dst = xstrfmt("%s/inputs/%s", r->dir, rel), *buf = NULL;
		char *slash = strrchr(dst, '/');
		size_t len;

		*slash = '\0';
		if ((err = fs_mkdir_p(dst)) == 0) {
			*slash = '/';
			if ((err = fs_read_file(&buf, &len, src, 1u << 30)) == 0 && access(dst, F_OK) != 0)
				err = fs_write_file(dst, buf, len, 0644);
		}
		free(buf);
		free(src);
		free(dst);
		if (err < 0)
			break;
	}
	json_decref(pins);
	return err;
}

/* --resume: dir/name (plan.json, status.json) read without blocking and without following a link. A file that is
 * there and cannot be read (a FIFO, a link, a directory, too large) is an error naming it; one that is absent or not
 * JSON leaves *out NULL (what the caller compares then says what is wrong). */
static int load_resume_json(json_t **out, const char *dir, const char *name)
{
	char *p = xstrfmt("%s/%s", dir, name);
	int err = fs_load_json(out, p, 64u << 20, O_NOFOLLOW);

	if (err == BENCH_E_IO && errno != ENOENT)
		err = bench_error_set(err, "cannot resume '%s': %s", dir, bench_error_last());
	else
		err = 0;
	free(p);
	return err;
}

/* --resume: the run directory's plan must be this manifest's; its ok records stand. */
static int reopen_run_dir(struct run *r)
{
	json_t *st = NULL;
	int err = 0;

	if (!r->old_plan || !json_equal(r->old_plan, r->plan_json)) {
		err = bench_error_set(BENCH_E_MANIFEST, "'%s/plan.json' does not match the plan of its manifest.yaml; "
				      "this run cannot be resumed by this bench", r->o->resume);
		goto cleanup;
	}
	if ((err = load_resume_json(&st, r->o->resume, "status.json")) < 0)
		goto cleanup;
	r->dir = xstrdup(r->o->resume);
	/* a complete run has nothing to resume: nothing in it is touched, not even the lock file (a skipped case would
	 * be skipped again, and a re-signed bundle would differ from the one already published) */
	if ((r->was_complete = !strcmp(json_string_value(json_object_get(st, "state")) ?
				       json_string_value(json_object_get(st, "state")) : "", "complete")))
		goto cleanup;
	/* one bench at a time: nothing is written before the directory is ours (the lock's own file is written anew,
	 * never through a link); then nothing is written through a link or into a FIFO (run_check_dir) */
	if ((err = run_lock_dir(r, r->o->resume)) < 0 || (err = run_check_dir(r->o->resume)) < 0)
		goto cleanup;
	bundle_test_hook("resume-checked", r->o->resume); /* the tests swap a directory of it for a link here */
	if ((err = run_reserve_space(r)) < 0 || (err = run_load_previous(r)) < 0)
		goto cleanup;
	r->started = xstrdup(json_string_value(json_object_get(st, "started")) ? json_string_value(json_object_get(st, "started")) : "");
	if (json_is_object(json_object_get(st, "interleave")))
		r->interleave = json_incref(json_object_get(st, "interleave"));
cleanup:
	json_decref(st);
	return err;
}

/* A manifest with variants runs as one of them (bench run expands it into one run per variant); a resumed run,
 * as the variant its plan.json names. */
static int run_pick_variant(struct run *r, const struct run_opts *o)
{
	const char *v = o->resume ? json_string_value(json_object_get(r->old_plan, "variant")) : o->variant;
	int err = 0;

	if (v)
		err = manifest_apply_variant(&r->m, v);
	else if (r->m.nvariants)
		err = bench_error_set(BENCH_E_USAGE, "'%s' has %zu variants: name one (bench run runs each as a stack of "
				      "its own)", r->mpath, r->m.nvariants);
	return err;
}

/* Phase 1, plan: read and check the manifest, plan its cases, create the run directory (or reopen it). */
static int run_plan(struct run *r, const struct run_opts *o)
{
	struct diag_list pd = DIAG_LIST_INIT;
	int err;

	r->o = o;
	r->runner_devices = json_object();
	r->runner_loaded = json_object();
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
	if ((o->resume && (err = load_resume_json(&r->old_plan, o->resume, "plan.json")) < 0) ||
	    (err = run_pick_variant(r, o)) < 0 || (err = run_overrides(r, o)) < 0)
		goto cleanup;
	if ((err = plan_build_diag(&r->plan, &r->m, &r->diags)) < 0) {
		if (r->diags.n) /* a manifest past the cap of cases: positioned, printed as validate prints it */
			diag_list_print(&r->diags, stderr);
		goto cleanup;
	}
	if ((err = select_suites(&r->plan, o, r->mpath, r->old_plan)) < 0 || (err = select_cases(&r->plan, r->overrides, r->mpath)) < 0)
		goto cleanup;
	warn_overrides(r);
	plan_index_build(&r->pidx, &r->plan);
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
	if (r->overrides)
		json_object_set(r->plan_json, "overrides", r->overrides);
	if (o->resume) {
		err = reopen_run_dir(r);
		goto cleanup;
	}
	r->started = run_utc_stamp("%Y-%m-%dT%H:%M:%SZ");
	if ((err = run_make_dir(r, r->mbuf, r->mlen)) < 0 || (err = run_write_json(r->dir, "plan.json", r->plan_json)) < 0 ||
	    (err = copy_plugin_inputs(r)) < 0)
		goto cleanup;
	if (o->lock) {
		char *lb = NULL;
		size_t ll;

		if ((err = fs_read_file(&lb, &ll, o->lock, 16u << 20)) == 0)
			err = run_write_atomic(r->dir, "manifest.lock.json", lb, ll);
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

	if ((eng_container(r) && (err = prepare_image(r, r->o->resume ? NULL : r->mbuf, r->mlen)) < 0) ||
	    (r->m.runtime.engine == ENGINE_HOST && r->m.stack.ncomponents && (err = prepare_host_stack(r)) < 0)) {
		r->fatal = xstrfmt("not started: %s", bench_error_last());
		run_write_status(r, "not-started");
		return err;
	}
	run_write_status(r, "running");
	/* the manifest's stack.env is the runners' environment (build_env), recorded with it */
	env_apply(&saved, &r->m);
	env = envcap_collect(r->dir);
	env_restore(&saved);
	json_object_set_new(env, "bench", json_pack("{s:s}", "run_started", r->started));
	if (r->hs.n) /* the host stack: each component's prefix and pinned libraries, what was prepended to which variable */
		json_object_set_new(env, "host_stack", host_stack_json(&r->hs));
	{ /* where the stack's variables came from: its env profiles (the stack's, then its variant's) */
		json_t *b = json_object_get(env, "bench"), *pr = json_array();

		for (size_t i = 0; i < r->m.stack.nprofiles; i++)
			json_array_append_new(pr, json_string(r->m.stack.profiles[i]));
		for (size_t i = 0; r->m.variant && i < r->m.nvariants; i++)
			for (size_t k = 0; !strcmp(r->m.variants[i].name, r->m.variant) && k < r->m.variants[i].nprofiles; k++)
				json_array_append_new(pr, json_string(r->m.variants[i].profiles[k]));
		json_object_set_new(b, "env_profiles", pr);
		for (size_t i = 0; i < r->m.nsuites; i++) { /* per suite, the variables its cells set (records' params.env) */
			const struct suite_cfg *sc = &r->m.suites[i];
			json_t *mx = json_object();

			if (!sc->nenv_matrix) {
				json_decref(mx);
				continue;
			}
			for (size_t k = 0; k < sc->nenv_matrix; k++) {
				json_t *vals = json_array();

				for (size_t j = 0; j < sc->env_matrix[k].nvalues; j++)
					json_array_append_new(vals, json_string(sc->env_matrix[k].values[j]));
				json_object_set_new(mx, sc->env_matrix[k].name, vals);
			}
			if (!json_object_get(b, "env_matrix"))
				json_object_set_new(b, "env_matrix", json_object());
			json_object_set_new(json_object_get(b, "env_matrix"), sc->ops->name, mx);
		}
		if (r->m.variant)
			json_object_set_new(b, "variant", json_string(r->m.variant));
	}
	/* not written (a directory of the run swapped for a link since it was checked): the run does not start without
	 * it (a full disk is the end of the run as ever: run_collect()) */
	if ((err = run_write_json(r->dir, name, env)) < 0 && !run_disk_full) {
		json_decref(env);
		r->fatal = xstrfmt("not started: %s", bench_error_last());
		run_write_status(r, "not-started");
		return err;
	}
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
	int any_wrong = 0, any_unpinned = 0, any_bad = 0, any_ok = 0, err = 0;

	if (run_disk_full) { /* the space held back makes the last status.json and summary.json writable */
		run_release_space(r);
		free(r->fatal);
		r->fatal = xstrdup("no space left on device");
	}
	for (size_t i = 0; i < r->plan.n; i++) {
		if (r->st[i] == C_PENDING)
			run_set_state(r, i, run_disk_full ? C_FAILED : C_INTERRUPTED, run_disk_full ?
				      "not measured: no space left on device" : "interrupted before its suite started");
		any_wrong |= r->wrong[i] == 1;
		any_unpinned |= r->wrong[i] == 2;
		any_bad |= r->st[i] == C_FAILED || r->st[i] == C_INTERRUPTED;
		any_ok |= r->st[i] == C_OK;
	}
	run_write_status(r, run_disk_full ? "failed" : run_stop_flag ? "interrupted" : any_bad ? "failed" : "complete");
	/* what the runners found when they ran: device, driver and the library versions they loaded */
	if (fs_load_json(&envj, path, 64u << 20, O_NOFOLLOW) == 0) {
		json_object_set(envj, "runners", r->runner_devices);
		/* and the shared libraries and Python packages each runner's records said it loaded */
		json_object_set(envj, "loaded", r->runner_loaded);
		{ /* every node of a Slurm job: the fabric its job script's capture step dumped into env/fabric/ */
			char *fd = xstrfmt("%s/env/fabric", r->dir);
			json_t *nodes = fabric_collect_nodes(fd), *fab = json_object_get(envj, "fabric");

			if (nodes && json_is_object(fab))
				json_object_set_new(fab, "nodes", nodes);
			else
				json_decref(nodes);
			free(fd);
		}
		run_write_json(r->dir, name, envj);
		json_decref(envj);
	}
	free(path);
	run_summarize(r);
	if ((err = scrub_run(r)) < 0 && !run_disk_full)
		return err; /* a name pack refuses: its message, nothing packed, status.json as written */
	if (run_disk_full)
		err = bench_error_set(BENCH_E_IO, "no space left on device in '%s'; the run is marked failed and its "
				      "measured records are kept: free space, then complete it with 'bench run --resume %s'",
				      r->dir, r->dir);
	else if (run_stop_flag)
		err = bench_error_set(BENCH_E_SUITE, "interrupted; measured records are kept in %s; complete the run with "
				      "'bench run --resume %s'", r->dir, r->dir);
	else if (any_wrong)
		err = bench_error_set(BENCH_E_CHECK, "a correctness check failed (wrong results); see %s/results", r->dir);
	else if (any_unpinned)
		err = bench_error_set(BENCH_E_CHECK, "--locked: a runner loaded a library or package that is not the pinned "
				      "one (loaded-not-pinned); see %s/status.json", r->dir);
	else if (any_bad)
		err = bench_error_set(BENCH_E_SUITE, "some cases failed; see %s/status.json and %s/logs", r->dir, r->dir);
	else if (!any_ok)
		err = bench_error_set(BENCH_E_EMPTY, "nothing was measured: every case was skipped; see %s/status.json",
				      r->dir);
	return err;
}

static void run_release(struct run *r)
{
	run_unlock_dir(r);
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
	host_stack_release(&r->hs);
	json_decref(r->hs_lock);
	json_decref(r->lib_sha);
	json_decref(r->hs_stack_libs);
	json_decref(r->plan_json);
	json_decref(r->old_plan);
	json_decref(r->runner_devices);
	json_decref(r->runner_loaded);
	json_decref(r->interleave);
	json_decref(r->overrides);
	plan_index_release(&r->pidx);
	plan_release(&r->plan);
	manifest_release(&r->m);
	peaks_release(&r->peaks);
	diag_list_release(&r->diags);
	memset(r, 0, sizeof(*r));
}

struct signals {
	struct sigaction old[NSTOP];
};

static void signals_catch(struct signals *s)
{
	struct sigaction sa;

	run_stop_flag = 0;
	run_stop_signal = 0;
	run_disk_full = 0;
	/* a runner's daemons (setsid) come back to us, to be ended with its suite (run_suite.c) */
	spawn_become_subreaper();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &sa, &s->old[i]);
}

static void signals_restore(struct signals *s)
{
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &s->old[i], NULL);
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
		run_print_dry(&r);
		goto cleanup;
	}
	if (r.was_complete) {
		fprintf(stderr, "bench: '%s' is complete: nothing to resume (its records and bundle are left as they are)\n",
			r.dir);
		goto cleanup;
	}
	*out_dir = xstrdup(r.dir);
	if ((err = run_prepare(&r)) < 0)
		goto cleanup;
	*out_started = RUN_STARTED;
	for (size_t s = 0; s < r.m.nsuites && !run_stop_flag; s++)
		if ((err = run_execute_suite(&r, r.m.suites[s].ops, &r.tried_make)) < 0)
			goto cleanup;
	err = run_collect(&r);
	if (r.unpackable)
		*out_started = RUN_UNPACKABLE;
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
	return run_interleave_until(out, opts, n, rounds, NULL);
}

int run_interleave_until(struct run_outcome *out, const struct run_opts *opts, size_t n, long rounds,
			 const struct run_rounds_hook *hook)
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
	for (long round = 1; round <= rounds && !run_stop_flag; round++) {
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
				if (hook && hook->design)
					json_object_set(r->interleave, "sequential", hook->design);
				oc->dir = xstrdup(r->dir);
				if (!r->o->quiet)
					fprintf(stderr, "bench: round %ld/%s%ld, stack %zu/%zu (%s): %s\n", round,
						hook ? "at most " : "", rounds, k + 1, n, r->m.name, r->dir);
				if ((oc->err = run_prepare(r)) == 0)
					oc->started = RUN_STARTED;
			}
			if (oc->err)
				oc->error = xstrdup(bench_error_last());
			if (r->m.nsuites > nsuites)
				nsuites = r->m.nsuites;
		}
		/* suite by suite, the stacks in this round's order */
		for (size_t s = 0; s < nsuites && !run_stop_flag; s++)
			for (size_t pos = 0; pos < n && !run_stop_flag; pos++) {
				size_t k = interleave_stack((size_t)round, pos, n);
				struct run *r = &runs[k];
				struct run_outcome *oc = &out[(size_t)(round - 1) * n + k];

				if (!oc->started || oc->err || s >= r->m.nsuites)
					continue;
				if ((oc->err = run_execute_suite(r, r->m.suites[s].ops, &r->tried_make)) < 0)
					oc->error = xstrdup(bench_error_last());
			}
		for (size_t k = 0; k < n; k++) {
			struct run_outcome *oc = &out[(size_t)(round - 1) * n + k];

			if (oc->started && !oc->err && (oc->err = run_collect(&runs[k])) < 0)
				oc->error = xstrdup(bench_error_last());
			if (runs[k].unpackable)
				oc->started = RUN_UNPACKABLE;
			run_release(&runs[k]);
		}
		if (hook && !run_stop_flag) {
			int more = hook->after_round(hook->ctx, out, n, round);

			if (more < 0) {
				err = more;
				goto cleanup;
			}
			if (more > 0)
				break;
		}
	}
	if (run_stop_flag)
		err = bench_error_set(BENCH_E_SUITE, "interrupted; the runs made so far are kept");
cleanup:
	signals_restore(&sig);
	free(runs);
	return err;
}
