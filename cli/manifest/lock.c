#include "lock.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <git2.h>
#include <openssl/evp.h>

#include "../core/error.h"
#include "../core/spawn.h"
#include "../core/strbuf.h"
#include "version.h"

void lock_sha256_hex(char out[65], const void *data, size_t len)
{
	unsigned char md[32];
	unsigned int n = 32;

	EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
}

static int is_hex40(const char *s)
{
	if (strlen(s) != 40)
		return 0;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return 0;
	return 1;
}

int lock_git_ref(char out[41], const char *url, const char *ref)
{
	git_remote *remote = NULL;
	const git_remote_head **heads = NULL;
	size_t n = 0;
	int err = 0, found = 0;
	char *want[3];

	if (is_hex40(ref)) { /* a commit is its own pin */
		for (int i = 0; i < 40; i++)
			out[i] = (char)tolower((unsigned char)ref[i]);
		out[40] = '\0';
		return 0;
	}
	git_libgit2_init();
	want[0] = xstrfmt("refs/heads/%s", ref);
	want[1] = xstrfmt("refs/tags/%s^{}", ref); /* an annotated tag: the commit it points to */
	want[2] = xstrfmt("refs/tags/%s", ref);
	if (git_remote_create_detached(&remote, url) < 0 || git_remote_connect(remote, GIT_DIRECTION_FETCH, NULL, NULL, NULL) < 0) {
		const git_error *e = git_error_last();

		err = bench_error_set(BENCH_E_RESOLVE, "cannot list the refs of '%s': %s", url, e ? e->message : "unknown error");
		goto cleanup;
	}
	if (git_remote_ls(&heads, &n, remote) < 0) {
		err = bench_error_set(BENCH_E_RESOLVE, "cannot list the refs of '%s': %s", url, git_error_last()->message);
		goto cleanup;
	}
	for (int w = 0; w < 3 && !found; w++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(heads[i]->name, want[w])) {
				git_oid_tostr(out, 41, &heads[i]->oid);
				found = 1;
				break;
			}
	if (!found)
		err = bench_error_set(BENCH_E_RESOLVE, "cannot resolve '%s' at %s: no such branch or tag", ref, url);
cleanup:
	if (remote)
		git_remote_free(remote);
	for (int i = 0; i < 3; i++)
		free(want[i]);
	git_libgit2_shutdown();
	return err;
}

static size_t curl_sink(char *p, size_t sz, size_t n, void *ctx)
{
	struct strbuf *sb = ctx;

	if (sb->len + sz * n > (64u << 20))
		return 0; /* an index page larger than 64 MiB is not an index page */
	strbuf_add(sb, p, sz * n);
	return sz * n;
}

/* PEP 503 name normalisation: lower case, runs of -_. become one - */
static char *normalise(const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = name; *p; p++) {
		if (*p == '-' || *p == '_' || *p == '.') {
			if (!sb.len || sb.buf[sb.len - 1] != '-')
				strbuf_addch(&sb, '-');
		} else {
			strbuf_addch(&sb, tolower((unsigned char)*p));
		}
	}
	return strbuf_detach(&sb);
}

/* The version inside a wheel file name: NAME-VERSION-... with NAME's '-' written as '_'. */
static char *wheel_version(const char *file, const char *name)
{
	char *norm = normalise(name), *under = xstrdup(norm), *v = NULL;
	size_t l;

	for (char *p = under; *p; p++)
		if (*p == '-')
			*p = '_';
	l = strlen(under);
	if (!strncasecmp(file, under, l) && file[l] == '-') {
		const char *s = file + l + 1, *e = strchr(s, '-');

		if (e)
			v = xstrndup(s, (size_t)(e - s));
	}
	free(norm);
	free(under);
	return v;
}

static int tags_ok(const char *file)
{
	/* a wheel for x86-64 Linux or any platform; the interpreter tag is left to pip at build time */
	return strstr(file, ".whl") && (strstr(file, "-any.whl") || strstr(file, "linux_x86_64") || strstr(file, "manylinux"));
}

int lock_pip(char **out_url, char **out_sha256, char **out_version, const char *index, const char *name,
	     const char *version, const char *date)
{
	struct strbuf page = STRBUF_INIT;
	char *norm = normalise(name), *url = xstrfmt("%s%s%s/", index, index[strlen(index) - 1] == '/' ? "" : "/", norm);
	CURL *c = curl_easy_init();
	char dkey[16] = "";
	long code = 0;
	int err = 0;
	const char *p;

	*out_url = *out_sha256 = *out_version = NULL;
	if (date && strlen(date) == 10)
		snprintf(dkey, sizeof(dkey), "dev%.4s%.2s%.2s", date, date + 5, date + 8);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &page);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	if (curl_easy_perform(c) != CURLE_OK || (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code), code != 200)) {
		err = bench_error_set(BENCH_E_RESOLVE, "cannot read the package index page %s (HTTP %ld)", url, code);
		goto cleanup;
	}
	/* every <a href="...file.whl#sha256=HEX"> ; the last match wins for nightlies (newest is listed last) */
	for (p = page.buf; (p = strstr(p, "href=\"")); p++) {
		const char *h = p + 6, *e = strchr(h, '"'), *frag, *file;
		char *href, *v;

		if (!e)
			break;
		href = xstrndup(h, (size_t)(e - h));
		frag = strstr(href, "#sha256=");
		file = strrchr(href, '/') ? strrchr(href, '/') + 1 : href;
		v = frag ? wheel_version(file, name) : NULL;
		if (v && tags_ok(file) && strlen(frag + 8) == 64 &&
		    (strcmp(version, "nightly") ? !strcmp(v, version) : (dkey[0] && strstr(v, dkey) != NULL))) {
			free(*out_url);
			free(*out_sha256);
			free(*out_version);
			*out_sha256 = xstrdup(frag + 8);
			*out_version = v;
			v = NULL;
			((char *)frag)[0] = '\0';
			if (strstr(href, "://"))
				*out_url = xstrdup(href);
			else if (href[0] == '/') { /* absolute path on the index host */
				const char *host_end = strchr(strstr(url, "://") + 3, '/');

				*out_url = xstrfmt("%.*s%s", (int)(host_end - url), url, href);
			} else {
				*out_url = xstrfmt("%s%s", url, href);
			}
			if (strcmp(version, "nightly")) { /* a release: the first matching wheel */
				free(href);
				break;
			}
		}
		free(v);
		free(href);
	}
	if (!*out_url)
		err = bench_error_set(BENCH_E_RESOLVE, "no wheel of %s %s%s%s for Linux x86-64 on %s", name, version,
				      date ? " of " : "", date ? date : "", url);
cleanup:
	curl_easy_cleanup(c);
	strbuf_release(&page);
	free(norm);
	free(url);
	return err;
}

/* The base image's digest: from the local image store (podman), else the registry (skopeo). */
static int lock_image_digest(char *out, size_t len, const char *ref)
{
	char *tool, *text = NULL, *dref = xstrfmt("docker://%s", ref);
	size_t n;
	int ok = 0;

	if ((tool = spawn_which("podman"))) {
		char *const argv[] = { tool, "image", "inspect", "--format", "{{.Digest}}", (char *)ref, NULL };

		ok = spawn_capture(&text, &n, argv, 4096, 120) == 0 && !strncmp(text, "sha256:", 7);
		free(tool);
	}
	if (!ok && (tool = spawn_which("skopeo"))) {
		char *const argv[] = { tool, "inspect", "--format", "{{.Digest}}", dref, NULL };

		free(text);
		text = NULL;
		ok = spawn_capture(&text, &n, argv, 4096, 300) == 0 && !strncmp(text, "sha256:", 7);
		free(tool);
	}
	if (ok)
		snprintf(out, len, "%.*s", (int)strcspn(text, " \n"), text);
	free(text);
	free(dref);
	return ok ? 0 : bench_error_set(BENCH_E_RESOLVE, "cannot resolve the digest of base image '%s' (neither a local "
					 "image for podman nor reachable with skopeo)", ref);
}

int lock_resolve(json_t **out, const struct manifest *m, const char *bytes, size_t len, FILE *progress)
{
	json_t *lock = json_object(), *comps = json_object();
	char sha[65];
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	int err = 0;

	*out = NULL;
	lock_sha256_hex(sha, bytes, len);
	for (size_t i = 0; i < m->stack.ncomponents && !err; i++) {
		const struct component *c = &m->stack.components[i];
		json_t *e = NULL;

		if (c->source == SOURCE_GIT) {
			char commit[41];

			if ((err = lock_git_ref(commit, c->git, c->ref)) == 0)
				e = json_pack("{s:s, s:s, s:s, s:s}", "source", "git", "git", c->git, "ref", c->ref, "commit", commit);
			if (e && progress)
				fprintf(progress, "bench: lock: %s: git %s of %s -> %s\n", c->name, c->ref, c->git, commit);
		} else if (c->source == SOURCE_PIP) {
			char *url = NULL, *wsha = NULL, *ver = NULL;

			if (!c->index)
				err = bench_error_set(BENCH_E_RESOLVE, "pip component '%s' needs an 'index' to be locked", c->name);
			else if ((err = lock_pip(&url, &wsha, &ver, c->index, c->name, c->pip, c->date)) == 0)
				e = json_pack("{s:s, s:s, s:s, s:s, s:s}", "source", "pip", "index", c->index, "version", ver, "url", url,
					      "sha256", wsha);
			if (e && c->date)
				json_object_set_new(e, "date", json_string(c->date));
			if (e && progress)
				fprintf(progress, "bench: lock: %s: pip %s%s%s -> %s (%s, sha256 %.16s...)\n", c->name, c->pip,
					c->date ? " of " : "", c->date ? c->date : "", ver, strrchr(url, '/') ? strrchr(url, '/') + 1 : url,
					wsha);
			free(url);
			free(wsha);
			free(ver);
		} else {
			if (!c->version)
				err = bench_error_set(BENCH_E_RESOLVE, "apt component '%s' has no version: pin one ('version:') to lock "
						      "it", c->name);
			else
				e = json_pack("{s:s, s:s, s:s}", "source", "apt", "package", c->apt, "version", c->version);
			if (e && progress)
				fprintf(progress, "bench: lock: %s: apt %s -> %s (the manifest's pin)\n", c->name, c->apt, c->version);
		}
		if (e)
			json_object_set_new(comps, c->name, e);
	}
	if (err) {
		json_decref(lock);
		json_decref(comps);
		return err;
	}
	json_object_set_new(lock, "schema", json_string("bench.lock/v1"));
	json_object_set_new(lock, "manifest_sha256", json_string(sha));
	json_object_set_new(lock, "bench_version", json_string(BENCH_VERSION));
	json_object_set_new(lock, "source_date_epoch", json_integer(sde && *sde ? atoll(sde) : (json_int_t)time(NULL)));
	json_object_set_new(lock, "components", comps);
	if (m->stack.base && m->runtime.engine != ENGINE_HOST) {
		char digest[128];

		if ((err = lock_image_digest(digest, sizeof(digest), m->stack.base)) < 0) {
			json_decref(lock);
			return err;
		}
		if (progress)
			fprintf(progress, "bench: lock: base %s -> %s\n", m->stack.base, digest);
		json_object_set_new(lock, "base", json_pack("{s:s, s:s}", "ref", m->stack.base, "digest", digest));
		json_object_set_new(lock, "base_digest", json_string(digest));
	}
	*out = lock;
	return 0;
}

int lock_write(const char *path, json_t *lock)
{
	char *tmp = xstrfmt("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int err = 0;

	if (!f || json_dumpf(lock, f, JSON_INDENT(2) | JSON_SORT_KEYS) != 0 || fputc('\n', f) == EOF || fclose(f) != 0 ||
	    rename(tmp, path) != 0)
		err = bench_error_set(BENCH_E_IO, "cannot write '%s'", path);
	free(tmp);
	return err;
}
