#include "publish.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <git2.h>
#include <jansson.h>

#include "../core/error.h"
#include "../core/fs.h"
#include "../core/strbuf.h"
#include "bundle.h"
#include "compare.h"
#include "html.h"
#include "sign.h"

struct pub {
	const char *path;
	char *run, *keyid, *name, *channel, *rel;
};

/* a path component from inside a bundle: letters, digits, '.', '_', '-'; not "." or ".." */
static int safe_component(const char *s)
{
	if (!s || !*s || !strcmp(s, ".") || !strcmp(s, "..") || strlen(s) > 128)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' ||
		      *s == '-'))
			return 0;
	return 1;
}

static int mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int err = 0;

	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST)
				err = bench_error_set(BENCH_E_IO, "cannot create '%s': %s", p, strerror(errno));
			*s = '/';
			if (err)
				break;
		}
	if (!err && mkdir(p, 0777) < 0 && errno != EEXIST)
		err = bench_error_set(BENCH_E_IO, "cannot create '%s': %s", p, strerror(errno));
	free(p);
	return err;
}

/* 1 when the files have the same bytes */
static int same_file(const char *a, const char *b)
{
	char *x = NULL, *y = NULL;
	size_t nx, ny;
	int same = fs_read_file(&x, &nx, a, (size_t)1 << 34) == 0 && fs_read_file(&y, &ny, b, (size_t)1 << 34) == 0 && nx == ny &&
		   !memcmp(x, y, nx);

	bench_error_clear();
	free(x);
	free(y);
	return same;
}

static int copy_file(const char *from, const char *to)
{
	char *buf = NULL, *tmp = xstrfmt("%s.tmp", to);
	size_t len;
	FILE *f = NULL;
	int err;

	if ((err = fs_read_file(&buf, &len, from, (size_t)1 << 34)) < 0)
		goto cleanup;
	if (!(f = fopen(tmp, "wb")) || fwrite(buf, 1, len, f) != len || fclose(f) != 0 || rename(tmp, to) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", to, strerror(errno));
		if (f)
			remove(tmp);
	}
cleanup:
	free(buf);
	free(tmp);
	return err;
}

static int write_text(const char *path, const struct strbuf *sb)
{
	char *tmp = xstrfmt("%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	int err = 0;

	if (!f || fwrite(sb->buf, 1, sb->len, f) != sb->len || fclose(f) != 0 || rename(tmp, path) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", path, strerror(errno));
		if (f)
			remove(tmp);
	}
	free(tmp);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the sorted entries of a directory (no dot files) */
static size_t list(char ***out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0, alloc = 0;

	*out = NULL;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			ALLOC_GROW(*out, n + 1, alloc);
			(*out)[n++] = xstrdup(e->d_name);
		}
	if (d)
		closedir(d);
	if (n)
		qsort(*out, n, sizeof(**out), cmp_str);
	return n;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Regenerates site/: every run's report, and the index grouped by name and channel with trends. */
static int site_build(const char *repo, char *const *keys)
{
	struct compare_opts co = { 0.02, 0.01, 2000, 1, keys };
	struct strbuf idx = STRBUF_INIT;
	char **names = NULL, *runs_dir = xstrfmt("%s/runs", repo), *site = xstrfmt("%s/site/runs", repo);
	size_t nn = list(&names, runs_dir);
	int err = 0;

	if ((err = mkdirs(site)) < 0)
		goto cleanup;
	html_page_open(&idx, "bench results");
	strbuf_addstr(&idx, "<h1>bench results</h1>\n<p>Every run published here, grouped by manifest and channel. Each "
			    "bundle is kept as signed under <code>runs/</code>; verify one with <code>bench verify</code>.</p>\n");
	for (size_t a = 0; a < nn && !err; a++) {
		char **chans = NULL, *nd = xstrfmt("%s/%s", runs_dir, names[a]);
		size_t nc = list(&chans, nd);

		for (size_t c = 0; c < nc && !err; c++) {
			char **files = NULL, *cd = xstrfmt("%s/%s", nd, chans[c]);
			size_t nf = list(&files, cd), ns = 0;
			struct compare_side *sides = xcalloc(nf ? nf : 1, sizeof(*sides));

			for (size_t f = 0; f < nf; f++) {
				char *p;
				size_t l = strlen(files[f]);

				if (l <= strlen(".bench.tar.gz") || strcmp(files[f] + l - strlen(".bench.tar.gz"), ".bench.tar.gz"))
					continue;
				p = xstrfmt("%s/%s", cd, files[f]);
				if (compare_load(&sides[ns], p, &co) == 0)
					ns++;
				bench_error_clear();
				free(p);
			}
			html_render_index_group(&idx, names[a], chans[c], sides, ns);
			for (size_t s = 0; s < ns && !err; s++) {
				struct strbuf page = STRBUF_INIT;
				char *out = xstrfmt("%s/%s.html", site, sides[s].label);

				html_render_report(&page, &sides[s], 1, NULL);
				err = write_text(out, &page);
				strbuf_release(&page);
				free(out);
			}
			for (size_t s = 0; s < ns; s++)
				compare_side_release(&sides[s]);
			free(sides);
			free_list(files, nf);
			free(cd);
		}
		free_list(chans, nc);
		free(nd);
	}
	strbuf_addstr(&idx, "</body></html>\n");
	if (!err) {
		char *p = xstrfmt("%s/site/index.html", repo);

		err = write_text(p, &idx);
		free(p);
	}
cleanup:
	strbuf_release(&idx);
	free_list(names, nn);
	free(runs_dir);
	free(site);
	return err;
}

static int git_fail(const char *what, const char *repo)
{
	const git_error *e = git_error_last();

	return bench_error_set(BENCH_E_IO, "%s in '%s': %s", what, repo, e ? e->message : "unknown libgit2 error");
}

static int commit_all(git_repository *r, const char *repo, const char *msg)
{
	git_index *ix = NULL;
	git_oid tree_id, commit_id, parent_id;
	git_tree *tree = NULL;
	git_commit *parent = NULL;
	git_signature *sig = NULL;
	int err = 0, has_parent = git_reference_name_to_id(&parent_id, r, "HEAD") == 0;

	if (git_repository_index(&ix, r) < 0 || git_index_add_all(ix, NULL, 0, NULL, NULL) < 0 || git_index_write(ix) < 0 ||
	    git_index_write_tree(&tree_id, ix) < 0 || git_tree_lookup(&tree, r, &tree_id) < 0) {
		err = git_fail("cannot stage the published files", repo);
		goto cleanup;
	}
	if ((has_parent && git_commit_lookup(&parent, r, &parent_id) < 0) ||
	    git_signature_now(&sig, "bench publish", "bench@localhost") < 0 ||
	    git_commit_create_v(&commit_id, r, "HEAD", sig, sig, NULL, msg, tree, has_parent ? 1 : 0, parent) < 0)
		err = git_fail("cannot commit", repo);
cleanup:
	git_signature_free(sig);
	git_commit_free(parent);
	git_tree_free(tree);
	git_index_free(ix);
	return err;
}

int publish_bundles(size_t *out_new, const char *repo, const char *const *bundles, size_t n, char *const *keys,
		    int allow_incomplete)
{
	struct pub *p = xcalloc(n ? n : 1, sizeof(*p));
	struct bundle_limits lim;
	git_repository *r = NULL;
	int err = 0, git_up = 0;

	*out_new = 0;
	bundle_limits_default(&lim);
	/* 1. every bundle verifies, its run is complete (or allow_incomplete), and its name and channel are safe path
	 * components; else nothing is touched */
	for (size_t i = 0; i < n; i++) {
		struct bundle_verify_result vr = BUNDLE_VERIFY_RESULT_INIT;
		json_t *m = NULL, *plan;
		const char *names[] = { "plan.json", "status.json", NULL };
		char *run = NULL;

		p[i].path = bundles[i];
		if ((err = bundle_verify(&vr, bundles[i], NULL, keys, sign_home(), &lim)) < 0) {
			err = bench_error_set(BENCH_E_VERIFY, "'%s' does not verify (%s); nothing was published", bundles[i],
					      bench_error_last());
			bundle_verify_result_release(&vr);
			goto cleanup;
		}
		p[i].keyid = xstrdup(vr.keyid);
		bundle_verify_result_release(&vr);
		if ((err = bundle_read_members(&m, &run, bundles[i], names, (size_t)1 << 24)) < 0)
			goto cleanup;
		plan = json_loads(json_string_value(json_object_get(m, "plan.json")) ? json_string_value(json_object_get(m, "plan.json")) : "",
				  0, NULL);
		p[i].run = run;
		p[i].name = xstrdup(json_string_value(json_object_get(plan, "name")) ? json_string_value(json_object_get(plan, "name")) : "");
		p[i].channel = xstrdup(json_string_value(json_object_get(plan, "channel")) ? json_string_value(json_object_get(plan, "channel")) : "");
		json_decref(plan);
		if (!allow_incomplete) {
			json_t *st = json_loads(json_string_value(json_object_get(m, "status.json")) ?
						json_string_value(json_object_get(m, "status.json")) : "", 0, NULL);
			json_t *h = compare_run_health(st);

			if (json_is_true(json_object_get(h, "incomplete")))
				err = bench_error_set(BENCH_E_SUITE, "'%s': the run is incomplete (%s%s, %lld case(s) pending, %lld "
						      "interrupted); complete it with 'bench run --resume' and pack it again, or pass "
						      "--allow-incomplete to publish it marked as such; nothing was published", bundles[i],
						      st ? "state " : "no status.json", st ? json_string_value(json_object_get(h, "state")) : "",
						      (long long)json_integer_value(json_object_get(json_object_get(h, "counts"), "pending")),
						      (long long)json_integer_value(json_object_get(json_object_get(h, "counts"), "interrupted")));
			json_decref(h);
			json_decref(st);
			if (err) {
				json_decref(m);
				goto cleanup;
			}
		}
		json_decref(m);
		if (!safe_component(p[i].run) || !safe_component(p[i].name) || !safe_component(p[i].channel)) {
			err = bench_error_set(BENCH_E_VERIFY, "'%s': run, manifest name or channel is not a plain name (%s, %s, %s); "
					      "nothing was published", bundles[i], p[i].run ? p[i].run : "?", p[i].name, p[i].channel);
			goto cleanup;
		}
		p[i].rel = xstrfmt("runs/%s/%s/%s.bench.tar.gz", p[i].name, p[i].channel, p[i].run);
	}
	/* 2. the repository, created on first use */
	git_libgit2_init();
	git_up = 1;
	if (git_repository_open(&r, repo) < 0) {
		if ((err = mkdirs(repo)) < 0)
			goto cleanup;
		if (git_repository_init(&r, repo, 0) < 0) {
			err = git_fail("cannot create a git repository", repo);
			goto cleanup;
		}
	}
	/* 3. one commit per new bundle */
	for (size_t i = 0; i < n; i++) {
		char *dst = xstrfmt("%s/%s", repo, p[i].rel), *env_src = xstrfmt("%s.intoto.jsonl", p[i].path);
		char *env_dst = xstrfmt("%s.intoto.jsonl", dst), *dir = xstrfmt("%s/runs/%s/%s", repo, p[i].name, p[i].channel), *msg = NULL;
		struct stat st;

		if (stat(dst, &st) == 0) {
			if (!same_file(p[i].path, dst))
				err = bench_error_set(BENCH_E_FAIL, "'%s' is already published with other contents (%s)", p[i].run, p[i].rel);
			/* else: the same bundle again, a no-op */
		} else if (!(err = mkdirs(dir)) && !(err = copy_file(p[i].path, dst)) && !(err = copy_file(env_src, env_dst)) &&
			   !(err = site_build(repo, keys))) {
			msg = xstrfmt("publish %s (channel %s) signed by %s\n\nmanifest: %s\nbundle: %s\n", p[i].run, p[i].channel,
				      p[i].keyid, p[i].name, p[i].rel);
			if (!(err = commit_all(r, repo, msg)))
				(*out_new)++;
		}
		free(dst);
		free(env_src);
		free(env_dst);
		free(dir);
		free(msg);
		if (err)
			goto cleanup;
	}
cleanup:
	git_repository_free(r);
	if (git_up)
		git_libgit2_shutdown();
	for (size_t i = 0; i < n; i++) {
		free(p[i].run);
		free(p[i].keyid);
		free(p[i].name);
		free(p[i].channel);
		free(p[i].rel);
	}
	free(p);
	return err;
}
