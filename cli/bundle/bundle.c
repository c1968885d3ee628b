/* SPDX-License-Identifier: Apache-2.0 */
#include "bundle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/sha.h>
#include <zlib.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/ring.h"
#include "core/strbuf.h"
#include "core/scrub.h"
#include "core/escape.h"
#include "core/utf8locale.h"
#include "sign.h"
#include "version.h"

extern char **environ;

/* The unit of every read, write and ring slot. BENCH_BUNDLE_CHUNK overrides it at compile time for the fuzz build
 * only (Makefile, FUZZ_CFLAGS: 16 KiB, under the sanitizers' large-allocation threshold, so that opening a bundle
 * does not cost mmap/munmap and TLB flushes per buffer; smaller chunks also put more of the stream across chunk
 * boundaries). Normal builds never set it. */
#ifdef BENCH_BUNDLE_CHUNK
#define CHUNK (BENCH_BUNDLE_CHUNK)
#else
#define CHUNK (256u << 10)
#endif

/* streaming SHA-256 through EVP (the SHA256_* functions are deprecated in OpenSSL 3) */
struct sha256 {
	EVP_MD_CTX *ctx;
};

/* libarchive's message for a's last error; when it has none (a write that failed in the kernel: a full disk),
 * the errno it or the system recorded, never NULL */
static const char *arc_error(struct archive *a)
{
	int e = errno;
	const char *s = archive_error_string(a);

	if (s && *s)
		return s;
	if (archive_errno(a) > 0)
		return strerror(archive_errno(a));
	return e > 0 ? strerror(e) : "unknown error";
}

static void sha256_init(struct sha256 *h)
{
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		fprintf(stderr, "bench: fatal: cannot initialise SHA-256\n");
		abort();
	}
}

static void sha256_update(struct sha256 *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->ctx, data, len);
}

static void sha256_final(unsigned char md[32], struct sha256 *h)
{
	unsigned int n = 32;

	EVP_DigestFinal_ex(h->ctx, md, &n);
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
}

static void hex(char out[65], const unsigned char md[32])
{
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
}

/* ---- names one on a case-insensitive file system ----------------------------------------------------------- */

struct folded_name {
	char *fold, *key; /* the name without a trailing '/', ASCII letters lowered; and as it is */
	const char *name;
};

static int cmp_folded(const void *a, const void *b)
{
	const struct folded_name *x = a, *y = b;
	int c = strcmp(x->fold, y->fold);

	return c ? c : strcmp(x->key, y->key);
}

/* 1 when the n bytes of a path component at p end in '.' or ' ', which Windows drops: "a." and "a" are one file
 * there (pack and verify refuse such a name) */
static int name_windows_drops(const char *p, size_t n)
{
	return n && (p[n - 1] == '.' || p[n - 1] == ' ');
}

/* 1 with *a and *b set when two of names[0..n) differ but are equal once ASCII letters' case is folded (a trailing
 * '/' aside): one name on macOS's default file system and on Windows, where the second extracted overwrites the
 * first. Other scripts' case is not folded. Sorted by the folded name, adjacent ones compared: n log n. */
static int names_case_clash(const char *const *names, size_t n, const char **a, const char **b)
{
	struct folded_name *v = xcalloc(n ? n : 1, sizeof(*v));
	int found = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		if (len && names[i][len - 1] == '/')
			len--;
		v[i].key = xstrndup(names[i], len);
		v[i].fold = xstrdup(v[i].key);
		for (char *c = v[i].fold; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		v[i].name = names[i];
	}
	qsort(v, n, sizeof(*v), cmp_folded);
	for (size_t i = 1; i < n && !found; i++)
		if (!strcmp(v[i - 1].fold, v[i].fold) && strcmp(v[i - 1].key, v[i].key)) {
			*a = v[i - 1].name;
			*b = v[i].name;
			found = 1;
		}
	for (size_t i = 0; i < n; i++) {
		free(v[i].fold);
		free(v[i].key);
	}
	free(v);
	return found;
}

/* ---- listing the run directory, sorted bytewise ----------------------------------------------------------- */

struct member {
	char *rel;   /* "results/gemm.jsonl", "results/" for directories */
	int dir;
	uint64_t size;
	char sha[65];
};

struct members {
	struct member *v;
	size_t n, alloc;
};

/* 1 when a directory at rel (ending in '/') is named like a document bench reads as a file: a directory
 * results/gemm.jsonl/ or status.json/ would make show and compare pass over the file it stands for in silence */
static int dir_named_like_document(const char *rel)
{
	size_t n = strlen(rel);

	while (n && rel[n - 1] == '/')
		n--;
	return (n >= 5 && !memcmp(rel + n - 5, ".json", 5)) || (n >= 6 && !memcmp(rel + n - 6, ".jsonl", 6)) ||
	       (n >= 5 && !memcmp(rel + n - 5, ".yaml", 5));
}

static int list_dir(struct members *ms, const char *root, const char *rel, const struct bundle_limits *lim)
{
	char *path = *rel ? xstrfmt("%s/%s", root, rel) : xstrdup(root);
	DIR *d = opendir(path);
	struct dirent *e;
	int err = 0;

	if (!d) {
		err = bench_error_set(BENCH_E_IO, "cannot read directory '%s': %s", path, strerror(errno));
		free(path);
		return err;
	}
	while (!err && (e = readdir(d))) {
		char *r, *p;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/* bench run's own bookkeeping at the top of the run directory (the lock naming its holder, the space it
		 * keeps for the final status): never part of what was measured */
		if (!*rel && (!strcmp(e->d_name, ".bench-lock") || !strcmp(e->d_name, ".bench-reserve")))
			continue;
		if (name_windows_drops(e->d_name, strlen(e->d_name))) { /* what verify refuses (tarscan_path) */
			char *n = esc_text(e->d_name);

			err = bench_error_set(BENCH_E_FAIL, "'%s/%s%s': a name ending in '.' or ' ' (one file on Windows with "
					      "the name without it); a bundle holds canonical names only: rename it", root, rel, n);
			free(n);
			break;
		}
		if (esc_needed(e->d_name) || esc_not_nfc(e->d_name)) { /* what verify refuses (tarscan_path): controls,
									 * C1, bidi, invisible, combining marks */
			char *n = esc_text(e->d_name);

			err = bench_error_set(BENCH_E_FAIL, "'%s/%s%s': a name with a %s character; a bundle holds canonical "
					      "names only: rename it", root, rel, n, esc_needed(e->d_name) ? "control, "
					      "bidirectional or invisible" : "combining or normalisation-changing (Unicode)");
			free(n);
			break;
		}
		{ /* a name that holds a secret (a token, user:password@host, password=...): the scrubber rewrites a
		   * file's bytes, never its name, and a signed bundle cannot be recalled: refused, named redacted */
			char *red = scrub_redact_value(e->d_name);

			if (strcmp(red, e->d_name))
				err = bench_error_set(BENCH_E_FAIL, "'%s/%s%s': a file name that holds a secret (shown redacted); "
						      "rename or remove it, then run 'bench pack' again", root, rel, red);
			free(red);
			if (err)
				break;
		}
		if (strlen(e->d_name) > 255) { /* what verify refuses (entry_problem): a name no Linux tar can extract */
			err = bench_error_set(BENCH_E_FAIL, "'%s/%s%s': a name of %zu bytes, over the 255 a path component of "
					      "a bundle may have (tar cannot extract it); rename it", root, rel, e->d_name,
					      strlen(e->d_name));
			break;
		}
		r = *rel ? xstrfmt("%s%s", rel, e->d_name) : xstrdup(e->d_name);
		p = xstrfmt("%s/%s", root, r);
		if (lstat(p, &st) < 0) {
			err = bench_error_set(BENCH_E_IO, "cannot stat '%s': %s", p, strerror(errno));
		} else if (S_ISDIR(st.st_mode) && dir_named_like_document(r)) {
			err = bench_error_set(BENCH_E_FAIL, "'%s' is a directory named like a document bench reads as a file "
					      "(.json, .jsonl, .yaml); a run directory holds that name as a regular file", p);
		} else if (S_ISDIR(st.st_mode)) {
			char *rd = xstrfmt("%s/", r);

			ALLOC_GROW(ms->v, ms->n + 1, ms->alloc);
			ms->v[ms->n++] = (struct member){ rd, 1, 0, "" };
			err = list_dir(ms, root, rd, lim);
		} else if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
			err = bench_error_set(BENCH_E_FAIL, "'%s' is a hard link (%ju names): a run directory holds only files of "
					      "its own; copy it instead", p, (uintmax_t)st.st_nlink);
		} else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > bundle_member_limit(lim, r)) {
			err = bench_error_set(BENCH_E_FAIL, "'%s' is %llu bytes, over the %llu bytes a bundle member of its kind may "
					      "hold (docs/bundle-format.md)", p, (unsigned long long)st.st_size,
					      (unsigned long long)bundle_member_limit(lim, r));
		} else if (S_ISREG(st.st_mode)) {
			ALLOC_GROW(ms->v, ms->n + 1, ms->alloc);
			ms->v[ms->n++] = (struct member){ xstrdup(r), 0, (uint64_t)st.st_size, "" };
		} else {
			err = bench_error_set(BENCH_E_FAIL, "'%s' is not a regular file or directory; a run directory holds "
					      "only those", p);
		}
		free(r);
		free(p);
	}
	closedir(d);
	free(path);
	return err;
}

/* what verify refuses: two names in the run directory that differ only in ASCII letters' case */
static int pack_check_case(const struct members *ms, const char *root)
{
	const char **names = xcalloc(ms->n ? ms->n : 1, sizeof(*names)), *a, *b;
	int err = 0;

	for (size_t i = 0; i < ms->n; i++)
		names[i] = ms->v[i].rel;
	if (names_case_clash(names, ms->n, &a, &b))
		err = bench_error_set(BENCH_E_FAIL, "'%s/%s' and '%s/%s': names that differ only in case: one file on macOS "
				      "and Windows; a bundle holds one spelling per name: rename one", root, a, root, b);
	free(names);
	return err;
}

static int cmp_member(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->rel, ((const struct member *)b)->rel);
}

static void members_release(struct members *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		free(ms->v[i].rel);
	free(ms->v);
	memset(ms, 0, sizeof(*ms));
}

/* ---- the output stream: a file, with the sha256 of every byte written ----------------------------------------- */

/* The compressed stream goes through a ring to a second thread that writes it and hashes it, while this one
 * reads, hashes and compresses the members: two cores, memory bounded by the ring (RING_SLOTS x CHUNK). */
#define RING_SLOTS 8

struct out_stream {
	FILE *f;
	struct sha256 sha;
	uint64_t bytes;
	struct ring ring;
	unsigned char *cur; /* the claimed slot being filled */
	size_t fill;
	pthread_t th;
	int started, werr;  /* werr: errno of a failed write, from the writer thread */
};

static void *out_writer(void *arg)
{
	struct out_stream *o = arg;
	const unsigned char *p;
	size_t len;

	while ((p = ring_take(&o->ring, &len))) {
		if (!o->werr && fwrite(p, 1, len, o->f) != len) {
			o->werr = errno ? errno : EIO;
			ring_done(&o->ring);
			ring_fail(&o->ring);
			break;
		}
		sha256_update(&o->sha, p, len);
		ring_done(&o->ring);
	}
	return NULL;
}

static la_ssize_t out_write(struct archive *a, void *ctx, const void *buf, size_t len)
{
	struct out_stream *o = ctx;
	const unsigned char *p = buf;
	size_t left = len;

	while (left) {
		size_t n;

		if (!o->cur && !(o->cur = ring_claim(&o->ring))) { /* the writer failed: its errno (set before ring_fail) */
			int e = o->werr ? o->werr : EIO;

			archive_set_error(a, e, "%s", strerror(e));
			return -1;
		}
		n = left < o->ring.cap - o->fill ? left : o->ring.cap - o->fill;
		memcpy(o->cur + o->fill, p, n);
		o->fill += n;
		p += n;
		left -= n;
		if (o->fill == o->ring.cap) {
			ring_publish(&o->ring, o->fill);
			o->cur = NULL;
			o->fill = 0;
		}
	}
	o->bytes += len;
	return (la_ssize_t)len;
}

/* Hands the last partial slot over and waits for the writer. Returns 0, or the writer's errno. */
static int out_finish(struct out_stream *o)
{
	if (!o->started)
		return 0;
	if (o->cur && o->fill)
		ring_publish(&o->ring, o->fill);
	o->cur = NULL;
	o->fill = 0;
	ring_close(&o->ring);
	pthread_join(o->th, NULL);
	o->started = 0;
	return o->werr;
}

static time_t parse_utc(const char *s)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
			 &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return timegm(&tm);
}

static json_t *load_json(const char *dir, const char *name)
{
	char *p = xstrfmt("%s/%s", dir, name);
	json_t *j = NULL;

	/* read whole, not with json_loadfd (a read() a byte); absent, unreadable or not JSON: NULL, as before */
	if (fs_load_json(&j, p, BUNDLE_MAX_MEMBER, O_NOFOLLOW) < 0)
		j = NULL;
	bench_error_clear();
	free(p);
	return j;
}

/* SOURCE_DATE_EPOCH: the lock's, else the environment's, else the run's start; the mtime of every entry. */
static time_t source_date_epoch(const char *dir, json_t *status)
{
	json_t *lock = load_json(dir, "manifest.lock.json");
	json_t *v = json_object_get(lock, "source_date_epoch");
	const char *env = getenv("SOURCE_DATE_EPOCH");
	time_t t;

	if (json_is_integer(v))
		t = (time_t)json_integer_value(v);
	else if (env && *env)
		t = (time_t)atoll(env);
	else
		t = parse_utc(json_string_value(json_object_get(status, "started")));
	json_decref(lock);
	return t;
}

static json_t *provenance(const char *dir, const char *run, json_t *status, const char *manifest_sha)
{
	json_t *lock = load_json(dir, "manifest.lock.json"), *env = load_json(dir, "env/environment.json");
	json_t *deps = json_array(), *comps = json_object_get(lock, "components"), *c;
	const char *host = json_string_value(json_object_get(json_object_get(env, "host"), "hostname"));
	const char *key;
	json_t *pred;

	/* resolvedDependencies from the lock: every component with what it resolved to */
	json_object_foreach(comps, key, c) {
		json_t *dep = json_pack("{s:s}", "name", key), *digest = json_object();
		const char *uri = json_string_value(json_object_get(c, "url"));

		if (!uri)
			uri = json_string_value(json_object_get(c, "git"));
		if (uri)
			json_object_set_new(dep, "uri", json_string(uri));
		if (json_is_string(json_object_get(c, "sha256")))
			json_object_set(digest, "sha256", json_object_get(c, "sha256"));
		if (json_is_string(json_object_get(c, "commit")))
			json_object_set(digest, "gitCommit", json_object_get(c, "commit"));
		if (json_object_size(digest))
			json_object_set(dep, "digest", digest);
		json_decref(digest);
		json_array_append_new(deps, dep);
	}
	{ /* pip components: every package of their closures (lock "packages"), once each, by wheel URL and sha256 */
		json_t *seen = json_object(), *p;
		size_t i;

		json_object_foreach(comps, key, c)
			json_array_foreach(json_object_get(c, "packages"), i, p) {
				const char *name = json_string_value(json_object_get(p, "name"));
				const char *url = json_string_value(json_object_get(p, "url"));
				const char *sha = json_string_value(json_object_get(p, "sha256"));

				if (!name || !url || !sha || json_object_get(comps, name) || json_object_get(seen, url))
					continue; /* a component itself is listed above */
				json_object_set_new(seen, url, json_true());
				json_array_append_new(deps, json_pack("{s:s, s:s, s:{s:s}}", "name", name, "uri", url, "digest",
								      "sha256", sha));
			}
		json_decref(seen);
	}
	if (json_is_string(json_object_get(lock, "base_digest")))
		json_array_append_new(deps, json_pack("{s:s, s:{s:s}}", "name", "base-image", "digest", "sha256",
						      json_string_value(json_object_get(lock, "base_digest")) + 7));
	{ /* a reproduction (reproduce.json, bench reproduce): the original bundle is a material, by its archive digest */
		json_t *rep = load_json(dir, "reproduce.json"), *o = json_object_get(rep, "original");
		const char *name = json_string_value(json_object_get(o, "bundle"));
		const char *sha = json_string_value(json_object_get(o, "sha256"));

		json_t *r;
		size_t i;

		if (name && sha && strlen(sha) == 64 && strspn(sha, "0123456789abcdef") == 64) {
			char *uri = xstrfmt("bench-bundle:%s", name);

			json_array_append_new(deps, json_pack("{s:s, s:{s:s}}", "uri", uri, "digest", "sha256", sha));
			free(uri);
		}
		/* and the reproduction's earlier rounds, by their archives' digests */
		json_array_foreach(json_object_get(rep, "earlier_rounds"), i, r) {
			name = json_string_value(json_object_get(r, "bundle"));
			sha = json_string_value(json_object_get(r, "sha256"));
			if (name && sha && strlen(sha) == 64 && strspn(sha, "0123456789abcdef") == 64) {
				char *uri = xstrfmt("bench-bundle:%s", name);

				json_array_append_new(deps, json_pack("{s:s, s:{s:s}}", "uri", uri, "digest", "sha256", sha));
				free(uri);
			}
		}
		json_decref(rep);
	}
	pred = json_pack("{s:{s:s, s:{s:{s:s, s:s}}, s:{s:s, s:s}, s:o}, s:{s:{s:s, s:{s:s, s:s}}, s:{s:s, s:s, s:s}}}",
			 "buildDefinition", "buildType", "https://github.com/bench/bench/run/v1",
			 "externalParameters", "manifest", "path", "manifest.yaml", "sha256", manifest_sha,
			 "internalParameters", "state", json_string_value(json_object_get(status, "state")) ?
			 json_string_value(json_object_get(status, "state")) : "unknown", "run", run,
			 "resolvedDependencies", deps,
			 "runDetails", "builder", "id", host ? host : "unknown-host", "version", "bench", BENCH_VERSION,
			 "commit", BENCH_COMMIT, "metadata", "invocationId", run, "startedOn",
			 json_string_value(json_object_get(status, "started")) ? json_string_value(json_object_get(status, "started")) : "",
			 "finishedOn", json_string_value(json_object_get(status, "finished")) ?
			 json_string_value(json_object_get(status, "finished")) : "");
	json_decref(lock);
	json_decref(env);
	return pred;
}

/* what every entry of a bundle has alike: its name and type, mode 0755 (a directory) or 0644, the run's time,
 * owner 0:0 */
static void entry_set_common(struct archive_entry *e, const char *name, int dir, time_t sde)
{
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, dir ? AE_IFDIR : AE_IFREG);
	archive_entry_set_perm(e, dir ? 0755 : 0644);
	archive_entry_set_mtime(e, sde, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
}

static int write_entry(struct archive *a, const char *dir, const char *run, struct member *m, time_t sde,
		       unsigned char *buf)
{
	struct archive_entry *e = archive_entry_new();
	char *name = xstrfmt("%s/%s", run, m->rel), *path = xstrfmt("%s/%s", dir, m->rel);
	unsigned char md[32];
	struct sha256 c = { NULL };
	uint64_t left = m->size;
	FILE *f = NULL;
	int err = 0;

	entry_set_common(e, name, m->dir, sde);
	archive_entry_set_size(e, m->dir ? 0 : (la_int64_t)m->size);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s' to the archive: %s", name, arc_error(a));
		goto cleanup;
	}
	if (m->dir)
		goto cleanup;
	{
		int fd = fs_open_regular(path, O_NOFOLLOW);
		struct stat st;

		if (fd < 0 || !(f = fdopen(fd, "rb"))) {
			err = bench_error_set(BENCH_E_IO, "cannot open '%s': %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto cleanup;
		}
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1) {
			err = bench_error_set(BENCH_E_FAIL, "'%s' changed while it was packed (no longer a plain file)", path);
			goto cleanup;
		}
	}
	sha256_init(&c);
	while (left > 0) {
		size_t want = left < CHUNK ? (size_t)left : CHUNK, n = fread(buf, 1, want, f);

		if (n == 0) {
			err = bench_error_set(BENCH_E_IO, "'%s' changed while it was packed (shorter than %llu bytes)", path,
					      (unsigned long long)m->size);
			goto cleanup;
		}
		sha256_update(&c, buf, n);
		if (archive_write_data(a, buf, n) != (la_ssize_t)n) {
			err = bench_error_set(BENCH_E_IO, "cannot write '%s' to the archive: %s", name, arc_error(a));
			goto cleanup;
		}
		left -= n;
	}
	sha256_final(md, &c);
	hex(m->sha, md);
cleanup:
	if (c.ctx)
		EVP_MD_CTX_free(c.ctx);
	if (f)
		fclose(f);
	archive_entry_free(e);
	free(name);
	free(path);
	return err;
}

/* bundle_pack()'s state: the run directory and its name, the archive's name and temporary path, its members and
 * their time, the archive being written through the writer thread, and its digest once written */
struct pack {
	char *dir;
	const char *run;
	char *tarname, *tmp;
	struct members ms;
	time_t sde;
	int level;
	struct out_stream os;
	struct archive *a;
	unsigned char *buf;
	char tarsha[65];
};

/* the gzip'd pax archive on p->tmp through the writer thread (p->os) */
static int pack_archive_open(struct pack *p)
{
	static const char *const levels[] = { "0", "1", "2", "3", "4", "5", "6", "7", "8", "9" };
	struct archive *a;
	int fd = fs_open_new(p->tmp, 0644); /* beside the run: a link named like it is removed, not written through */

	if (fd >= 0 && !(p->os.f = fdopen(fd, "wb")))
		close(fd);
	if (!p->os.f)
		return bench_error_set(BENCH_E_IO, "cannot create '%s': %s", p->tmp, strerror(errno));
	sha256_init(&p->os.sha);
	ring_init(&p->os.ring, RING_SLOTS, CHUNK);
	if (pthread_create(&p->os.th, NULL, out_writer, &p->os) != 0)
		return bench_error_set(BENCH_E_FAIL, "cannot start the writer thread");
	p->os.started = 1;
	a = p->a = archive_write_new();
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK || archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_options(a, "gzip:!timestamp") != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "gzip", "compression-level",
					    levels[p->level < 0 || p->level > 9 ? 1 : p->level]) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open(a, &p->os, NULL, out_write, NULL) != ARCHIVE_OK)
		return bench_error_set(BENCH_E_IO, "cannot start the archive: %s", arc_error(a));
	return 0;
}

/* the run directory itself, the archive's first entry */
static int pack_write_root(struct pack *p)
{
	char *name = xstrfmt("%s/", p->run);
	struct archive_entry *e = archive_entry_new();
	int err = 0;

	entry_set_common(e, name, 1, p->sde);
	if (archive_write_header(p->a, e) != ARCHIVE_OK)
		err = bench_error_set(BENCH_E_IO, "cannot write the archive: %s", arc_error(p->a));
	archive_entry_free(e);
	free(name);
	return err;
}

/* the archive written whole: the run directory, then its members; closed, flushed to disk and digested */
/* (a pack's names are UTF-8: written between utf8locale_push() and _pop(), libarchive copies them as they are;
 * in the C locale a non-ASCII name failed, "Can't translate pathname") */
static int pack_archive_entries(struct pack *p)
{
	unsigned char md[32];
	int err;

	if ((err = pack_archive_open(p)) < 0 || (err = pack_write_root(p)) < 0)
		return err;
	for (size_t i = 0; i < p->ms.n; i++)
		if ((err = write_entry(p->a, p->dir, p->run, &p->ms.v[i], p->sde, p->buf)) < 0)
			return err;
	if (archive_write_close(p->a) != ARCHIVE_OK)
		return bench_error_set(BENCH_E_IO, "cannot finish the archive: %s", arc_error(p->a));
	if ((errno = out_finish(&p->os)) != 0)
		return bench_error_set(BENCH_E_IO, "cannot write '%s': %s", p->tmp, strerror(errno));
	if (fflush(p->os.f) != 0 || fsync(fileno(p->os.f)) != 0 || fclose(p->os.f) != 0) {
		p->os.f = NULL;
		return bench_error_set(BENCH_E_IO, "cannot write '%s': %s", p->tmp, strerror(errno));
	}
	p->os.f = NULL;
	sha256_final(md, &p->os.sha);
	hex(p->tarsha, md);
	return 0;
}

static int pack_archive(struct pack *p)
{
	locale_t old = utf8locale_push();
	int err = pack_archive_entries(p);

	utf8locale_pop(old);
	return err;
}

/* the statement: subject 0 is the archive, then every regular member; its predicate the run's provenance */
static json_t *pack_statement(const struct pack *p, json_t *status, const char *manifest_sha)
{
	json_t *subjects = json_array(), *stmt;

	json_array_append_new(subjects, json_pack("{s:s, s:{s:s}}", "name", p->tarname, "digest", "sha256", p->tarsha));
	for (size_t i = 0; i < p->ms.n; i++) {
		if (p->ms.v[i].dir)
			continue;
		json_array_append_new(subjects, json_pack("{s:s++, s:{s:s}}", "name", p->run, "/", p->ms.v[i].rel, "digest",
							  "sha256", p->ms.v[i].sha));
	}
	stmt = json_pack("{s:s, s:O, s:s, s:o}", "_type", "https://in-toto.io/Statement/v1", "subject", subjects,
			 "predicateType", "https://slsa.dev/provenance/v1", "predicate",
			 provenance(p->dir, p->run, status, manifest_sha));
	json_decref(subjects);
	return stmt;
}

/* the statement signed with key into its DSSE envelope, written to envtmp (removed on failure) */
static int pack_write_envelope(const struct pack *p, json_t *status, const char *manifest_sha, EVP_PKEY *key,
			       const char *envtmp)
{
	json_t *stmt = pack_statement(p, status, manifest_sha), *envl = NULL;
	struct strbuf pae = STRBUF_INIT, b64p = STRBUF_INIT, b64s = STRBUF_INIT;
	char *payload = json_dumps(stmt, JSON_COMPACT | JSON_SORT_KEYS), *keyid = NULL;
	unsigned char sig[64];
	FILE *ef = NULL;
	int err = 0, efd;

	dsse_pae(&pae, BUNDLE_PAYLOAD_TYPE, (const unsigned char *)payload, strlen(payload));
	if ((err = sign_ed25519(sig, key, (const unsigned char *)pae.buf, pae.len)) < 0 || (err = sign_keyid(&keyid, key)) < 0)
		goto cleanup;
	base64_encode(&b64p, (const unsigned char *)payload, strlen(payload));
	base64_encode(&b64s, sig, sizeof(sig));
	envl = json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "payload", b64p.buf, "payloadType", BUNDLE_PAYLOAD_TYPE,
			 "signatures", "keyid", keyid, "sig", b64s.buf);
	if ((efd = fs_open_new(envtmp, 0644)) >= 0 && !(ef = fdopen(efd, "wb")))
		close(efd);
	if (!ef || json_dumpf(envl, ef, JSON_COMPACT | JSON_SORT_KEYS) != 0 || fputc('\n', ef) == EOF ||
	    fclose(ef) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", envtmp, strerror(errno));
		unlink(envtmp);
	}
cleanup:
	free(payload);
	free(keyid);
	json_decref(stmt);
	json_decref(envl);
	strbuf_release(&pae);
	strbuf_release(&b64p);
	strbuf_release(&b64s);
	return err;
}

/* the run directory's name and the directory the bundle goes into, from dir (its trailing slashes removed) */
static char *pack_split_dir(const char **run, char *dir)
{
	char *parent;

	while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	*run = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	parent = *run == dir ? xstrdup(".") : xstrndup(dir, (size_t)(*run - 1 - dir));
	if (!*parent) {
		free(parent);
		parent = xstrdup("/");
	}
	return parent;
}

/* What bundle_pack() holds released; after an error (err), the archive's temporary file removed. */
static void pack_release(struct pack *p, int err)
{
	if (p->os.started) { /* an error before the end: stop the writer before its file is closed */
		ring_fail(&p->os.ring);
		pthread_join(p->os.th, NULL);
		p->os.started = 0;
	}
	if (p->a)
		archive_write_free(p->a); /* may still call out_write: the failed ring refuses it */
	p->a = NULL;
	if (p->os.ring.slot)
		ring_release(&p->os.ring);
	if (p->os.sha.ctx)
		EVP_MD_CTX_free(p->os.sha.ctx);
	if (p->os.f) {
		fclose(p->os.f);
		unlink(p->tmp);
	}
	if (err && p->tmp)
		unlink(p->tmp);
	free(p->buf);
	free(p->dir);
	free(p->tmp);
	free(p->tarname);
	members_release(&p->ms);
}

int bundle_pack(char **out_tar, char **out_envelope, const char *run_dir, EVP_PKEY *key, int level)
{
	struct pack p = { .dir = xstrdup(run_dir), .level = level, .buf = xmalloc(CHUNK) };
	struct bundle_limits lim;
	char *parent, *tar = NULL, *envp = NULL, *envtmp = NULL, *mpath = NULL, manifest_sha[65] = "";
	json_t *status = NULL;
	int err = 0;

	*out_tar = *out_envelope = NULL;
	parent = pack_split_dir(&p.run, p.dir);
	if (!(status = load_json(p.dir, "status.json"))) {
		err = bench_error_set(BENCH_E_FAIL, "'%s' is not a run directory (no readable status.json)", p.dir);
		goto cleanup;
	}
	mpath = xstrfmt("%s/manifest.yaml", p.dir);
	if ((err = fs_sha256_file(manifest_sha, mpath)) < 0)
		goto cleanup;
	bundle_limits_default(&lim);
	if ((err = list_dir(&p.ms, p.dir, "", &lim)) < 0 || (err = pack_check_case(&p.ms, p.dir)) < 0)
		goto cleanup;
	qsort(p.ms.v, p.ms.n, sizeof(*p.ms.v), cmp_member);
	p.sde = source_date_epoch(p.dir, status);
	p.tarname = xstrfmt("%s.bench.tar.gz", p.run);
	tar = xstrfmt("%s/%s", parent, p.tarname);
	p.tmp = xstrfmt("%s.tmp", tar);
	if ((err = pack_archive(&p)) < 0)
		goto cleanup;
	envp = xstrfmt("%s.intoto.jsonl", tar);
	envtmp = xstrfmt("%s.tmp", envp);
	if ((err = pack_write_envelope(&p, status, manifest_sha, key, envtmp)) < 0)
		goto cleanup;
	if (rename(p.tmp, tar) != 0 || rename(envtmp, envp) != 0) {
		err = bench_error_set(BENCH_E_IO, "cannot rename the bundle into place: %s", strerror(errno));
		unlink(envtmp);
		goto cleanup;
	}
	*out_tar = tar;
	*out_envelope = envp;
	tar = envp = NULL;
cleanup:
	pack_release(&p, err);
	free(parent);
	free(tar);
	free(envp);
	free(envtmp);
	free(mpath);
	json_decref(status);
	return err;
}

static int load_keys(EVP_PKEY ***keys, char ***origins, size_t *n, size_t *skipped, char *const *paths, const char *home)
{
	struct strbuf sb = STRBUF_INIT;
	DIR *d;
	struct dirent *e;
	int err = 0;

	*keys = NULL;
	*origins = NULL;
	*n = 0;
	*skipped = 0;
	if (paths) {
		for (size_t i = 0; paths[i]; i++) {
			EVP_PKEY *k;

			if ((err = sign_load_public_file(&k, paths[i])) < 0)
				return err;
			*keys = xrealloc(*keys, (*n + 1) * sizeof(**keys));
			*origins = xrealloc(*origins, (*n + 1) * sizeof(**origins));
			(*keys)[*n] = k;
			(*origins)[(*n)++] = xstrfmt("--key %s", paths[i]);
		}
		return 0;
	}
	strbuf_addf(&sb, "%s/trusted", home);
	if ((d = opendir(sb.buf))) {
		while ((e = readdir(d))) {
			size_t l = strlen(e->d_name);
			char *p;
			EVP_PKEY *k;

			if (l < 5 || strcmp(e->d_name + l - 4, ".pem"))
				continue;
			p = xstrfmt("%s/%s", sb.buf, e->d_name);
			if (sign_load_public_file(&k, p) == 0) {
				*keys = xrealloc(*keys, (*n + 1) * sizeof(**keys));
				*origins = xrealloc(*origins, (*n + 1) * sizeof(**origins));
				(*keys)[*n] = k;
				(*origins)[(*n)++] = xstrfmt("trusted/%s", e->d_name);
			} else { /* named, never passed over in silence: a FIFO, a device, a file that is not a key */
				char *why = esc_text(bench_error_last());

				fprintf(stderr, "bench: warning: trusted key skipped: %s\n", why);
				free(why);
				(*skipped)++;
			}
			free(p);
		}
		closedir(d);
	}
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/signing.pub.pem", home);
	{
		EVP_PKEY *k;

		if (access(sb.buf, F_OK) != 0) {
			/* none: nothing to say */
		} else if (sign_load_public_file(&k, sb.buf) == 0) {
			*keys = xrealloc(*keys, (*n + 1) * sizeof(**keys));
			*origins = xrealloc(*origins, (*n + 1) * sizeof(**origins));
			(*keys)[*n] = k;
			(*origins)[(*n)++] = xstrdup("own key (signing.pub.pem)");
		} else { /* there but not a key (a FIFO, a directory, 2 GiB): named, as a key of trusted/ is */
			char *why = esc_text(bench_error_last());

			fprintf(stderr, "bench: warning: trusted key skipped: %s\n", why);
			free(why); /* not counted in *skipped: that number is of trusted/ */
		}
	}
	strbuf_release(&sb);
	bench_error_clear();
	return 0;
}

void bundle_verify_result_release(struct bundle_verify_result *r)
{
	free(r->keyid);
	free(r->key_origin);
	free(r->run);
	free(r->envelope);
	json_decref(r->statement);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* The first signature of sigs by one of keys[0..nkeys) that verifies over pae: its key id and its key's origin
 * into out. An error when a signature by a known key does not verify, or none is by a known key. */
static int verify_signatures(struct bundle_verify_result *out, json_t *sigs, const struct strbuf *pae, EVP_PKEY **keys,
			     char **origins, size_t nkeys)
{
	struct strbuf sig = STRBUF_INIT, ids = STRBUF_INIT;
	int err = BENCH_E_VERIFY;

	for (size_t i = 0; i < json_array_size(sigs) && err; i++) {
		json_t *s = json_array_get(sigs, i);
		const char *kid = json_string_value(json_object_get(s, "keyid"));
		const char *s64 = json_string_value(json_object_get(s, "sig"));

		strbuf_addf(&ids, "%s%s", ids.len ? ", " : "", kid ? kid : "(no keyid)");
		strbuf_reset(&sig);
		if (!s64 || base64_decode(&sig, s64, strlen(s64)) < 0)
			continue;
		for (size_t k = 0; k < nkeys && err; k++) {
			char *id = NULL;

			if (sign_keyid(&id, keys[k]) < 0)
				continue;
			if (kid && !strcmp(kid, id) &&
			    sign_verify_ed25519(keys[k], (const unsigned char *)pae->buf, pae->len, (unsigned char *)sig.buf,
						sig.len) == 0) {
				out->keyid = id;
				out->key_origin = xstrdup(origins[k]);
				err = 0;
				id = NULL;
			} else if (kid && !strcmp(kid, id)) {
				err = bench_error_set(BENCH_E_VERIFY, "the signature by key %s does not verify: the statement "
						      "or the signature was altered", kid);
				free(id);
				goto cleanup;
			}
			free(id);
		}
	}
	if (err)
		err = bench_error_set(BENCH_E_VERIFY, "no signature by a known key (envelope key ids: %s)", ids.buf);
cleanup:
	strbuf_release(&sig);
	strbuf_release(&ids);
	return err;
}

static int verify_envelope(struct bundle_verify_result *out, json_t **stmt, const char *envpath, char *const *keypaths,
			   const char *home)
{
	char *buf = NULL;
	size_t len, nkeys = 0, skipped = 0;
	json_t *env = NULL, *sigs;
	json_error_t jerr;
	struct strbuf payload = STRBUF_INIT, pae = STRBUF_INIT;
	EVP_PKEY **keys = NULL;
	char **origins = NULL;
	const char *type, *p64;
	int err;

	*stmt = NULL;
	if ((err = fs_read_file(&buf, &len, envpath, BUNDLE_MAX_ENVELOPE)) < 0) {
		if (err == BENCH_E_MANIFEST)
			err = bench_error_set(BENCH_E_VERIFY, "envelope '%s' is larger than 64 MiB", envpath);
		goto cleanup;
	}
	if (!(env = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr)) || !json_is_object(env)) {
		err = bench_error_set(BENCH_E_VERIFY, "envelope '%s' is not a JSON object (%s)", envpath, env ? "" : jerr.text);
		goto cleanup;
	}
	type = json_string_value(json_object_get(env, "payloadType"));
	p64 = json_string_value(json_object_get(env, "payload"));
	sigs = json_object_get(env, "signatures");
	if (!type || strcmp(type, BUNDLE_PAYLOAD_TYPE)) {
		err = bench_error_set(BENCH_E_VERIFY, "envelope payloadType is '%s', expected '%s'", type ? type : "(none)",
				      BUNDLE_PAYLOAD_TYPE);
		goto cleanup;
	}
	if (!p64 || base64_decode(&payload, p64, strlen(p64)) < 0) {
		err = bench_error_set(BENCH_E_VERIFY, "envelope payload is not valid base64");
		goto cleanup;
	}
	if (!json_is_array(sigs) || json_array_size(sigs) == 0) {
		err = bench_error_set(BENCH_E_VERIFY, "the envelope carries no signature");
		goto cleanup;
	}
	if ((err = load_keys(&keys, &origins, &nkeys, &skipped, keypaths, home)) < 0)
		goto cleanup;
	if (nkeys == 0 && skipped) {
		err = bench_error_set(BENCH_E_VERIFY, "no key to verify with: the %zu .pem file%s in %s/trusted/ could not be "
				      "read as keys (named above); pass --key PUB.pem or put trusted keys there", skipped,
				      skipped == 1 ? "" : "s", home);
		goto cleanup;
	}
	if (nkeys == 0) {
		err = bench_error_set(BENCH_E_VERIFY, "no key to verify with: pass --key PUB.pem or put trusted keys in %s/trusted/",
				      home);
		goto cleanup;
	}
	dsse_pae(&pae, type, (const unsigned char *)payload.buf, payload.len);
	if ((err = verify_signatures(out, sigs, &pae, keys, origins, nkeys)) < 0)
		goto cleanup;
	if (!(*stmt = json_loadb(payload.buf, payload.len, JSON_REJECT_DUPLICATES, &jerr)) || !json_is_object(*stmt)) {
		err = bench_error_set(BENCH_E_VERIFY, "the signed payload is not a JSON statement");
		goto cleanup;
	}
	out->envelope = buf; /* the bytes that verified: publish writes these, not the file again */
	out->envelope_len = len;
	buf = NULL;
cleanup:
	for (size_t i = 0; i < nkeys; i++) {
		EVP_PKEY_free(keys[i]);
		free(origins[i]);
	}
	free(keys);
	free(origins);
	free(buf);
	json_decref(env);
	strbuf_release(&payload);
	strbuf_release(&pae);
	return err;
}

static int is_hex64(const char *s)
{
	if (!s || strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/* ---- reading: safe against hostile archives --------------------------------------------------------------------- */

static uint64_t env_limit(const char *name, uint64_t def)
{
	const char *e = getenv(name);

	return e && *e ? (uint64_t)strtoull(e, NULL, 10) : def;
}

void bundle_limits_default(struct bundle_limits *l)
{
	l->max_entries = (size_t)env_limit("BENCH_BUNDLE_MAX_ENTRIES", 100000);
	l->max_entry_size = BUNDLE_MAX_MEMBER;
	l->max_results = BUNDLE_MAX_RESULTS;
	l->max_log = BUNDLE_MAX_LOG;
	l->max_total = (uint64_t)4 << 40;
}

uint64_t bundle_member_limit(const struct bundle_limits *l, const char *rel)
{
	if (!strncmp(rel, "results/", 8))
		return l->max_results;
	if (!strncmp(rel, "logs/", 5))
		return l->max_log;
	return l->max_entry_size;
}

uint64_t bundle_pack_member_limit(const char *rel)
{
	struct bundle_limits l;

	bundle_limits_default(&l);
	return bundle_member_limit(&l, rel);
}

struct strset {
	char **v;
	size_t cap, n;
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Adds s; *dup = 1 when it was present already. */
static void strset_add(struct strset *set, const char *s, int *dup)
{
	size_t i;

	if (set->n * 2 >= set->cap) {
		struct strset big = { NULL, set->cap ? set->cap * 2 : 64, 0 };

		big.v = xcalloc(big.cap, sizeof(*big.v));
		for (size_t k = 0; k < set->cap; k++)
			if (set->v[k]) {
				size_t j = fnv(set->v[k]) & (big.cap - 1);

				while (big.v[j])
					j = (j + 1) & (big.cap - 1);
				big.v[j] = set->v[k];
				big.n++;
			}
		free(set->v);
		*set = big;
	}
	for (i = fnv(s) & (set->cap - 1); set->v[i]; i = (i + 1) & (set->cap - 1)) {
		if (!strcmp(set->v[i], s)) {
			*dup = 1;
			return;
		}
	}
	set->v[i] = xstrdup(s);
	set->n++;
	*dup = 0;
}

static int strset_has(const struct strset *set, const char *s)
{
	if (!set->cap)
		return 0;
	for (size_t i = fnv(s) & (set->cap - 1); set->v[i]; i = (i + 1) & (set->cap - 1))
		if (!strcmp(set->v[i], s))
			return 1;
	return 0;
}

static void strset_release(struct strset *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->v[i]);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* The tar headers as bench writes them, checked on the raw stream before libarchive reads it: libarchive applies
 * or skips some header kinds silently (a pax global header, GNU long names, sparse maps, volume labels) where GNU
 * tar and Python apply them, so that two readers would see two archives. bench's writer (libarchive's restricted
 * pax) emits POSIX ustar headers of regular files ('0') and directories ('5'), each after at most one pax
 * extended header ('x') holding only the keys 'path', 'mtime' and 'size' (a member over 8 GiB, which the limits
 * then refuse; below that never other than the ustar size field, which a reader that ignores pax headers steps
 * by), each once; anything else is refused, so that the one reading of a bundle is the reading every common tool
 * makes. A reader that ignores pax headers (treating 'x' as
 * a file, as POSIX asks of one that does not know the type) reads the ustar names alone, so those are held to what
 * bench writes too (tarscan_names). */
#define TARSCAN_PAX_MAX 65536u

struct tar_scan {
	enum { TS_HEADER, TS_PAX, TS_SKIP, TS_END } state;
	unsigned char hdr[512];
	size_t hlen;
	uint64_t skip;      /* TS_SKIP: bytes left to pass */
	uint64_t pax_size;  /* TS_PAX: the extended header's data size */
	char *pax;          /* its bytes so far */
	size_t pax_len;
	int after_pax;      /* the previous header was 'x': an entry must follow */
	int pax_has_size;   /* ... and it set the entry's size to pax_entry_size */
	int pax_has_path;   /* ... and it named the entry (its path checked by tarscan_path) */
	int pax_path_doc;   /* ... a path named like a document (dir_named_like_document) */
	int pax_path_slash; /* ... a path ending in '/' (a directory's only) */
	char pax_path[260]; /* ... that path, cut to fit (for messages) */
	size_t pax_path_off, pax_path_len; /* ... the whole path, in pax */
	unsigned char pax_hdr[512]; /* ... and its own ustar header */
	uint64_t pax_entry_size;
	uint64_t off;       /* tar stream offset of the byte being scanned */
	uint64_t hdr_off;
	char msg[768];      /* why the archive is refused */
};

/* the entry's ustar name (prefix/name), for a message */
static void tarscan_name(const unsigned char *h, char *out, size_t cap)
{
	char name[101], prefix[156];

	memcpy(name, h, 100);
	name[100] = 0;
	memcpy(prefix, h + 345, 155);
	prefix[155] = 0;
	snprintf(out, cap, "%s%s%s", prefix, *prefix ? "/" : "", name);
}

/* an octal ustar number field (digits, then spaces or NULs); base-256 and anything else refused */
static int tarscan_octal(uint64_t *out, const unsigned char *f, size_t len)
{
	size_t i = 0;

	*out = 0;
	while (i < len && f[i] == ' ')
		i++;
	if (i == len || f[i] < '0' || f[i] > '7')
		return -1;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++)
		*out = *out << 3 | (uint64_t)(f[i] - '0');
	for (; i < len; i++)
		if (f[i] != ' ' && f[i] != 0)
			return -1;
	return 0;
}

/* why the n bytes at p are not a member path as bench writes it, or NULL: components joined by one '/', none
 * empty, '.' or '..', no leading '/', a trailing '/' only where slash_ok (a directory), and no character the
 * terminal escaper would rewrite (control, C1, bidirectional or invisible), since a name is printed by every
 * tool that lists the archive. A ustar name is read as prefix + '/' + name, as GNU tar and Python read it. */
static const char *tarscan_path(const char *p, size_t n, int slash_ok)
{
	char *copy;
	int bad;

	if (n && p[n - 1] == '/') {
		if (!slash_ok)
			return "a trailing '/' on a file entry";
		n--;
	}
	if (!n)
		return "an empty path";
	if (p[0] == '/')
		return "an absolute path";
	for (size_t i = 0, c = 0; i <= n; i++) {
		if (i < n && p[i] != '/')
			continue;
		if (i == c)
			return "an empty path component ('//')";
		if (i - c == 1 && p[c] == '.')
			return "a '.' path component";
		if (i - c == 2 && p[c] == '.' && p[c + 1] == '.')
			return "a '..' path component";
		if (name_windows_drops(p + c, i - c))
			return "a path component ending in '.' or ' ' (one file on Windows with the name without it)";
		c = i + 1;
	}
	if (memchr(p, 0, n))
		return "a NUL in its path";
	copy = xstrndup(p, n);
	bad = esc_needed(copy) ? 1 : esc_not_nfc(copy) ? 2 : 0;
	free(copy);
	return bad == 1 ? "a control, bidirectional or invisible character in its name" :
	       bad == 2 ? "a combining mark or a character Unicode normalisation changes in its name (one name, two "
			  "spellings: bench refuses both)" : NULL;
}

static int tarscan_fail(struct tar_scan *ts, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int tarscan_fail(struct tar_scan *ts, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ts->msg, sizeof(ts->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* the records of a pax extended header: "LEN key=value\n", LEN the record's exact length in decimal */
static int tarscan_pax(struct tar_scan *ts)
{
	const char *p = ts->pax, *end = ts->pax + ts->pax_len;
	int seen_path = 0, seen_mtime = 0;

	ts->pax_has_size = 0;
	ts->pax_has_path = 0;
	while (p < end) {
		const char *sp, *eq;
		size_t len = 0;

		for (sp = p; sp < end && *sp >= '0' && *sp <= '9' && len < TARSCAN_PAX_MAX; sp++)
			len = len * 10 + (size_t)(*sp - '0');
		if (sp == p || sp >= end || *sp != ' ' || *p == '0' || len > (size_t)(end - p) || p[len - 1] != '\n')
			return tarscan_fail(ts, "a malformed pax extended header at byte %llu", (unsigned long long)ts->hdr_off);
		sp++;
		eq = memchr(sp, '=', (size_t)(p + len - 1 - sp));
		if (!eq || memchr(sp, 0, (size_t)(p + len - 1 - sp)))
			return tarscan_fail(ts, "a malformed pax extended header at byte %llu", (unsigned long long)ts->hdr_off);
		if ((size_t)(eq - sp) == 4 && !memcmp(sp, "path", 4) && !seen_path++ && eq + 1 < p + len - 1) {
			const char *why = tarscan_path(eq + 1, (size_t)(p + len - 1 - (eq + 1)), 1);

			if (why)
				return tarscan_fail(ts, "a pax 'path' at byte %llu with %s", (unsigned long long)ts->hdr_off, why);
			ts->pax_has_path = 1;
			ts->pax_path_slash = p[len - 2] == '/';
			ts->pax_path_off = (size_t)(eq + 1 - ts->pax);
			ts->pax_path_len = (size_t)(p + len - 1 - (eq + 1));
			snprintf(ts->pax_path, sizeof(ts->pax_path), "%.*s", (int)(p + len - 1 - (eq + 1)), eq + 1);
			{
				char *full = xstrndup(eq + 1, (size_t)(p + len - 1 - (eq + 1)));

				ts->pax_path_doc = dir_named_like_document(full);
				free(full);
			}
		} else if ((size_t)(eq - sp) == 5 && !memcmp(sp, "mtime", 5) && !seen_mtime++) {
			/* what bench writes: a decimal integer of at most 12 digits, optionally a '.' and 1 to 9 digits;
			 * no sign, no exponent, no nan or inf, which GNU tar and Python refuse or read otherwise */
			const char *v = eq + 1, *ve = p + len - 1, *d = v;

			while (d < ve && *d >= '0' && *d <= '9')
				d++;
			if (d == v || d - v > 12)
				return tarscan_fail(ts, "a pax 'mtime' that is not a decimal time at byte %llu",
						    (unsigned long long)ts->hdr_off);
			if (d < ve) {
				const char *f = ++d;

				if (d[-1] != '.')
					return tarscan_fail(ts, "a pax 'mtime' that is not a decimal time at byte %llu",
							    (unsigned long long)ts->hdr_off);
				while (d < ve && *d >= '0' && *d <= '9')
					d++;
				if (d != ve || d == f || d - f > 9)
					return tarscan_fail(ts, "a pax 'mtime' that is not a decimal time at byte %llu",
							    (unsigned long long)ts->hdr_off);
			}
		} else if ((size_t)(eq - sp) == 4 && !memcmp(sp, "size", 4) && !ts->pax_has_size) {
			const char *v = eq + 1, *ve = p + len - 1;

			ts->pax_entry_size = 0;
			if (v == ve || ve - v > 18)
				return tarscan_fail(ts, "a pax 'size' that is not a number at byte %llu",
						    (unsigned long long)ts->hdr_off);
			for (; v < ve; v++) {
				if (*v < '0' || *v > '9')
					return tarscan_fail(ts, "a pax 'size' that is not a number at byte %llu",
							    (unsigned long long)ts->hdr_off);
				ts->pax_entry_size = ts->pax_entry_size * 10 + (uint64_t)(*v - '0');
			}
			ts->pax_has_size = 1;
		} else {
			return tarscan_fail(ts, "a pax extended header at byte %llu with the key '%.*s' (bench writes only "
					    "'path', 'mtime' and 'size', each once; readers differ on the rest)",
					    (unsigned long long)ts->hdr_off, (int)(eq - sp > 64 ? 64 : eq - sp), sp);
		}
		p += len;
	}
	return 0;
}

/* every number as bench writes it: octal digits padded with spaces or NULs (no base-256); the device numbers octal
 * or empty; Python's tarfile stops at a header it cannot read, GNU tar reads on */
static int tarscan_numbers(struct tar_scan *ts, const unsigned char *h, const char *name)
{
	static const struct { unsigned off, len; const char *what; } num[] = {
		{ 100, 8, "mode" }, { 108, 8, "uid" }, { 116, 8, "gid" }, { 136, 12, "mtime" },
		{ 329, 8, "devmajor" }, { 337, 8, "devminor" },
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(num) / sizeof(*num); i++) {
		const unsigned char *f = h + num[i].off;
		size_t z = 0;

		if (num[i].off >= 329)
			while (z < num[i].len && (f[z] == 0 || f[z] == ' '))
				z++;
		if (z < num[i].len && tarscan_octal(&v, f, num[i].len) < 0)
			return tarscan_fail(ts, "refused archive entry '%s': a %s field that is not octal", name, num[i].what);
	}
	return 0;
}

/* a pax extended header of size bytes: its records are read next (TS_PAX) */
static int tarscan_pax_start(struct tar_scan *ts, uint64_t size)
{
	if (ts->after_pax)
		return tarscan_fail(ts, "two pax extended headers in a row at byte %llu", (unsigned long long)ts->hdr_off);
	if (size == 0 || size > TARSCAN_PAX_MAX)
		return tarscan_fail(ts, "a pax extended header of %llu bytes at byte %llu", (unsigned long long)size,
				    (unsigned long long)ts->hdr_off);
	ts->after_pax = 1;
	memcpy(ts->pax_hdr, ts->hdr, sizeof(ts->pax_hdr));
	ts->pax_size = size;
	ts->pax_len = 0;
	ts->pax = xrealloc(ts->pax, (size_t)size);
	ts->state = TS_PAX;
	return 0;
}

/* the fields of a file's or directory's header (shown: its name) as bench writes them (write_entry): uid and gid
 * 0, no user or group name, no link name, mode 0644 or 0755 (no type bits), a directory's name ending in '/';
 * anything else is a feature of some other writer that extracting tools act on (GNU tar as root gives files the
 * named owner) */
static int tarscan_fields(struct tar_scan *ts, const unsigned char *h, const char *shown, int slash)
{
	uint64_t mode = 0, uid = 0, gid = 0;
	size_t k;

	tarscan_octal(&mode, h + 100, 8);
	tarscan_octal(&uid, h + 108, 8);
	tarscan_octal(&gid, h + 116, 8);
	if (uid || gid)
		return tarscan_fail(ts, "refused archive entry '%s': owner uid %llu gid %llu (bench writes 0 and 0)", shown,
				    (unsigned long long)uid, (unsigned long long)gid);
	for (k = 0; k < 64 && !h[265 + k]; k++)
		;
	if (k < 64)
		return tarscan_fail(ts, "refused archive entry '%s': a user or group name (bench writes none)", shown);
	for (k = 0; k < 100 && !h[157 + k]; k++)
		;
	if (k < 100)
		return tarscan_fail(ts, "refused archive entry '%s': a link name on a %s (bench writes none)", shown,
				    h[156] == '5' ? "directory" : "regular file");
	if (!(mode & 07022) && mode != (h[156] == '5' ? 0755u : 0644u))
		return tarscan_fail(ts, "refused archive entry '%s': mode %llo (bench writes %s)", shown,
				    (unsigned long long)mode, h[156] == '5' ? "0755 for a directory" : "0644 for a file");
	if (h[156] == '5' && !slash)
		return tarscan_fail(ts, "refused archive entry '%s': a directory whose name does not end in '/' "
				    "(bench writes it with one)", shown);
	return 0;
}

/* The ustar name libarchive's pax writer gives an entry whose path it puts in a pax 'path' (build_ustar_entry_name
 * of archive_write_set_format_pax.c), from the n bytes at src: the path itself when under 100 bytes, else its
 * leading directories that fit the 155-byte prefix, the trailing ones that fit beside the file name, and the file
 * name cut to fit (a multi-byte character may be cut), a trailing '/' kept; insert ("PaxHeader", for the pax
 * header's own name) goes before the file name. old: the limits of libarchive before 3.8 (99 and 155 bytes);
 * otherwise 98 and 154, of 3.8 and of the security updates that carry its fix (Debian 12's 3.6.2-1+deb12u5): one
 * bench writes either, whichever libarchive it was linked with. out holds at least 260 bytes; returns the length,
 * or SIZE_MAX for a path of slashes alone, which bench never writes. */
static size_t tarscan_ustar_shorten(char *out, const char *src, size_t n, const char *insert, int old)
{
	const char *fend = src + n, *fname, *fcut, *pend, *send;
	size_t slen = old ? 99 : 98, k = 0;
	int slash = 0;

	if (n < 100 && !insert) {
		memcpy(out, src, n);
		return n;
	}
	for (;;) { /* trailing '/' and '/.' dropped, one '/' put back at the end */
		if (fend > src && fend[-1] == '/') {
			fend--;
			slash = 1;
		} else if (fend > src + 1 && fend[-1] == '.' && fend[-2] == '/') {
			fend -= 2;
			slash = 1;
		} else {
			break;
		}
	}
	if (fend == src)
		return SIZE_MAX;
	slen -= (size_t)slash + (insert ? strlen(insert) + 2 : 0);
	for (fname = fend - 1; fname > src && *fname != '/'; fname--)
		;
	if (*fname == '/' && fname < fend - 1)
		fname++;
	fcut = (size_t)(fend - fname) > slen ? fname + slen : fend;
	slen -= (size_t)(fcut - fname);
	pend = (size_t)(fname - src) > (old ? 155u : 154u) ? src + (old ? 155 : 154) : fname;
	while (pend > src && *pend != '/')
		pend--;
	if (pend < fname && *pend == '/')
		pend++;
	send = (size_t)(fname - pend) > slen ? pend + slen : fname;
	while (send > pend && *send != '/')
		send--;
	if (send < fname && *send == '/')
		send++;
	memcpy(out, src, (size_t)(send - src)); /* the prefix section and the suffix section follow each other */
	k = (size_t)(send - src);
	if (insert) {
		memcpy(out + k, insert, strlen(insert));
		k += strlen(insert);
		out[k++] = '/';
	}
	memcpy(out + k, fname, (size_t)(fcut - fname));
	k += (size_t)(fcut - fname);
	if (slash)
		out[k++] = '/';
	return k;
}

/* the name and prefix fields libarchive's ustar header holds for the n-byte name u
 * (__archive_write_format_header_ustar): u in the name field when it fits in 100 bytes, else split at the first '/'
 * that leaves at most 100 bytes after it (never the first byte), the part before it in the prefix field;
 * zero-filled. -1 when u does not fit. */
static int tarscan_ustar_split(unsigned char name[100], unsigned char prefix[155], const char *u, size_t n)
{
	const char *p;

	memset(name, 0, 100);
	memset(prefix, 0, 155);
	if (n <= 100) {
		memcpy(name, u, n);
		return 0;
	}
	p = memchr(u + n - 101, '/', 101);
	if (p == u)
		p = memchr(u + 1, '/', n - 1);
	if (!p || p + 1 == u + n || p - u > 155)
		return -1;
	memcpy(prefix, u, (size_t)(p - u));
	memcpy(name, p + 1, (size_t)(u + n - p - 1));
	return 0;
}

/* whether the header h's name and prefix fields are those libarchive writes for the n-byte name at src (insert:
 * as for tarscan_ustar_shorten), with either version's limits */
static int tarscan_ustar_is(const unsigned char *h, const char *src, size_t n, const char *insert)
{
	char buf[300];
	unsigned char name[100], prefix[155];

	for (int old = 0; old < 2; old++) {
		size_t k = tarscan_ustar_shorten(buf, src, n, insert, old);

		if (k != SIZE_MAX && !tarscan_ustar_split(name, prefix, buf, k) && !memcmp(h, name, 100) &&
		    !memcmp(h + 345, prefix, 155))
			return 1;
	}
	return 0;
}

/* The ustar names of an entry (shown: its name) as bench writes them, for the reader that ignores pax headers:
 * POSIX has a reader treat a type it does not know ('x') as a regular file, so that reader extracts the pax
 * header as a file under the header's own name and the entry under its ustar name, never the pax path. So: the
 * name and prefix fields hold nothing after their first NUL; under a pax 'path', the entry's ustar name is
 * libarchive's for that path (the path itself, or its shortening past 99 bytes: tarscan_ustar_shorten); the pax
 * header is named as libarchive names it after the entry (DIR/PaxHeader/NAME) and has the entry's mode, owner 0:0,
 * no user, group or link name. Anything else (the ustar name '../../x' or '/etc/x' under a canonical pax path, a
 * pax header named '../x') would be written outside the run directory, or over another member, by such a reader. */
static int tarscan_names(struct tar_scan *ts, const unsigned char *h, const char *shown)
{
	char u[260];
	size_t nlen = strnlen((const char *)h, 100), plen = strnlen((const char *)h + 345, 155), k;
	const unsigned char *x = ts->pax_hdr;
	uint64_t xmode = 0, mode = 0, uid = 0, gid = 0;

	for (k = nlen; k < 100 && !h[k]; k++)
		;
	if (k < 100)
		return tarscan_fail(ts, "refused archive entry '%s': bytes after the end of its name in the ustar name "
				    "field (bench writes zeros there)", shown);
	for (k = plen; k < 155 && !h[345 + k]; k++)
		;
	if (k < 155)
		return tarscan_fail(ts, "refused archive entry '%s': bytes after the end of the ustar prefix field's "
				    "text (bench writes zeros there)", shown);
	snprintf(u, sizeof(u), "%.*s%s%.*s", (int)plen, (const char *)h + 345, plen ? "/" : "", (int)nlen,
		 (const char *)h);
	if (ts->after_pax && ts->pax_has_path &&
	    !tarscan_ustar_is(h, ts->pax + ts->pax_path_off, ts->pax_path_len, NULL))
		return tarscan_fail(ts, "refused archive entry '%s': its ustar name '%s' is not what bench writes with "
				    "its pax path (the path, or libarchive's shortening of it); a reader that ignores pax "
				    "headers would extract it there", shown, u);
	if (!ts->after_pax)
		return 0;
	k = strlen(u);
	while (k && u[k - 1] == '/') /* libarchive names the pax header after the name without its trailing '/' */
		k--;
	if (!k || !tarscan_ustar_is(x, u, k, "PaxHeader")) {
		char xn[260];
		size_t xl = strnlen((const char *)x, 100), xp = strnlen((const char *)x + 345, 155);

		snprintf(xn, sizeof(xn), "%.*s%s%.*s", (int)xp, (const char *)x + 345, xp ? "/" : "", (int)xl,
			 (const char *)x);
		return tarscan_fail(ts, "refused archive entry '%s': its pax extended header is named '%s', not as bench "
				    "names it (DIR/PaxHeader/NAME after the entry); a reader that ignores pax headers "
				    "extracts that header as a file there", shown, xn);
	}
	tarscan_octal(&xmode, x + 100, 8);
	tarscan_octal(&mode, h + 100, 8);
	tarscan_octal(&uid, x + 108, 8);
	tarscan_octal(&gid, x + 116, 8);
	for (k = 0; k < 164 && !x[k < 100 ? 157 + k : 265 + (k - 100)]; k++) /* the link name, user and group names */
		;
	if (xmode != mode || uid || gid || k < 164)
		return tarscan_fail(ts, "refused archive entry '%s': its pax extended header has an owner, a user, group "
				    "or link name, or a mode other than the entry's (bench writes 0:0, no names and the "
				    "entry's mode); a reader that ignores pax headers extracts that header as a file", shown);
	return 0;
}

/* a regular file ('0') or directory ('5') of size bytes (its header's; a pax header's before it wins, and must
 * equal it below 8 GiB: libarchive writes a pax 'size' only past the ustar field's reach, which the limits
 * refuse): its name and fields checked, its data skipped */
static int tarscan_entry(struct tar_scan *ts, const unsigned char *h, const char *name, uint64_t size)
{
	uint64_t ustar_size = size;
	int pax_path = ts->after_pax && ts->pax_has_path, err;
	const char *shown = pax_path ? ts->pax_path : name;
	int slash = pax_path ? ts->pax_path_slash : *name && name[strlen(name) - 1] == '/';

	if (!pax_path) {
		const char *why = tarscan_path(name, strlen(name), h[156] == '5');

		if (why || memchr(h, 0, 100) == h) /* the name field itself empty: a prefix alone */
			return tarscan_fail(ts, "refused archive entry '%s': %s", name, why ? why : "an empty name");
	} else if (h[156] != '5' && ts->pax_path_slash) { /* libarchive reads a directory, Python a file */
		return tarscan_fail(ts, "refused archive entry '%s': a trailing '/' on a file entry", shown);
	}
	if (h[156] == '5' && (pax_path ? ts->pax_path_doc : dir_named_like_document(name)))
		return tarscan_fail(ts, "refused archive entry '%s': a directory named like a document bench reads "
				    "as a file (.json, .jsonl, .yaml)", shown);
	if (ts->after_pax && ts->pax_has_size)
		size = ts->pax_entry_size;
	if (h[156] == '5' && size) /* readers skip its "data" or read headers hidden in it: bench writes none */
		return tarscan_fail(ts, "refused archive entry '%s': a directory with a size (%llu bytes); bench "
				    "writes directories with none", shown, (unsigned long long)size);
	/* a reader that ignores pax headers steps by the ustar size, so that the rest would be other members to it; a
	 * size past the field's 8 GiB in pax over a field of 0 (as Python's tarfile writes a member that big;
	 * libarchive's writer puts the size in both) is let through to the limits, which refuse it by its size */
	if (size != ustar_size && !(ustar_size == 0 && size > 077777777777ull))
		return tarscan_fail(ts, "refused archive entry '%s': a pax 'size' of %llu bytes and a ustar size field of "
				    "%llu bytes (bench writes them equal); a reader that ignores pax headers reads "
				    "other members in its data, or its data as headers", shown, (unsigned long long)size,
				    (unsigned long long)ustar_size);
	if ((err = tarscan_fields(ts, h, shown, slash)) < 0 || (err = tarscan_names(ts, h, shown)) < 0)
		return err;
	ts->after_pax = 0;
	ts->pax_has_size = 0;
	ts->pax_has_path = 0;
	ts->skip = (size + 511) / 512 * 512;
	ts->state = ts->skip ? TS_SKIP : TS_HEADER;
	return 0;
}

/* an entry of a type bench never writes (h[156]): refused, named by what it is */
static int tarscan_refuse_type(struct tar_scan *ts, const unsigned char *h, const char *name)
{
	switch (h[156]) {
	case '1':
		return tarscan_fail(ts, "refused archive entry '%s': a hard link", name);
	case '2':
		return tarscan_fail(ts, "refused archive entry '%s': a symbolic link", name);
	case '3':
	case '4':
	case '6':
		return tarscan_fail(ts, "refused archive entry '%s': a device, fifo or other special file", name);
	case 'g':
		return tarscan_fail(ts, "refused archive entry '%s': a pax global header ('g'), which tar readers apply "
				    "differently (bench writes only files, directories and per-entry pax headers)", name);
	case 'L':
	case 'K':
		return tarscan_fail(ts, "refused archive entry '%s': a GNU long name or link header ('%c')", name, h[156]);
	case 'S':
		return tarscan_fail(ts, "refused archive entry '%s': a GNU sparse file ('S')", name);
	case 'V':
		return tarscan_fail(ts, "refused archive entry '%s': a volume label ('V')", name);
	case 0:
		return tarscan_fail(ts, "refused archive entry '%s': an old-style regular file header (type NUL; bench "
				    "writes '0')", name);
	default:
		if (h[156] > 0x20 && h[156] < 0x7f)
			return tarscan_fail(ts, "refused archive entry '%s': a tar header of type '%c' (bench writes only files "
					    "'0', directories '5' and pax headers 'x')", name, h[156]);
		return tarscan_fail(ts, "refused archive entry '%s': a tar header of type 0x%02x (bench writes only files "
				    "'0', directories '5' and pax headers 'x')", name, h[156]);
	}
}

static int tarscan_header(struct tar_scan *ts)
{
	const unsigned char *h = ts->hdr;
	char name[260];
	uint64_t size;
	size_t k;
	int err;

	for (k = 0; k < 512 && !h[k]; k++)
		;
	if (k == 512) { /* the end marker: what follows is checked to be zeros (nonzero_end) */
		if (ts->after_pax)
			return tarscan_fail(ts, "a pax extended header at byte %llu without its entry",
					    (unsigned long long)ts->hdr_off);
		ts->state = TS_END;
		return 0;
	}
	tarscan_name(h, name, sizeof(name));
	if (memcmp(h + 257, "ustar\0" "00", 8))
		return tarscan_fail(ts, "refused archive entry '%s': not a POSIX ustar header (GNU or old tar format)", name);
	if (tarscan_octal(&size, h + 124, 12) < 0)
		return tarscan_fail(ts, "refused archive entry '%s': a size field that is not octal", name);
	if ((err = tarscan_numbers(ts, h, name)) < 0)
		return err;
	if (h[156] == 'x')
		return tarscan_pax_start(ts, size);
	if (h[156] == '0' || h[156] == '5')
		return tarscan_entry(ts, h, name, size);
	return tarscan_refuse_type(ts, h, name);
}

/* scans n bytes of the tar stream; -1 with ts->msg set when the archive is refused */
static int tarscan_feed(struct tar_scan *ts, const unsigned char *p, size_t n)
{
	while (n) {
		size_t k;

		switch (ts->state) {
		case TS_END:
			return 0;
		case TS_HEADER:
			k = 512 - ts->hlen < n ? 512 - ts->hlen : n;
			if (!ts->hlen)
				ts->hdr_off = ts->off;
			memcpy(ts->hdr + ts->hlen, p, k);
			ts->hlen += k;
			if (ts->hlen == 512) {
				ts->hlen = 0;
				if (tarscan_header(ts) < 0)
					return -1;
			}
			break;
		case TS_PAX:
			k = ts->pax_size - ts->pax_len < n ? (size_t)(ts->pax_size - ts->pax_len) : n;
			memcpy(ts->pax + ts->pax_len, p, k);
			ts->pax_len += k;
			if (ts->pax_len == ts->pax_size) {
				if (tarscan_pax(ts) < 0)
					return -1;
				ts->skip = (512 - ts->pax_size % 512) % 512;
				ts->state = ts->skip ? TS_SKIP : TS_HEADER;
			}
			break;
		default: /* TS_SKIP */
			k = ts->skip < n ? (size_t)ts->skip : n;
			ts->skip -= k;
			if (!ts->skip)
				ts->state = TS_HEADER;
			break;
		}
		p += k;
		n -= k;
		ts->off += k;
	}
	return 0;
}

/* A reader thread reads the whole file from one descriptor and hashes it, handing the bytes through a ring to
 * this thread, which inflates them itself (zlib checks the gzip CRC-32 and length; libarchive's gzip filter does
 * not) and hands the tar stream to libarchive: the archive's digest and the members' (inflate, hash) run on two
 * cores, and every byte used is a byte hashed. */
struct in_stream {
	int fd;
	struct sha256 sha;
	struct ring ring;
	pthread_t th;
	int started, held, rerr; /* held: a taken slot is being inflated; rerr: the reader's errno */
	z_stream z;
	int zinit, zend;         /* zend: the gzip stream's end (trailer checked) was reached */
	unsigned char *out;      /* CHUNK bytes of tar stream for libarchive */
	uint64_t tar_bytes;      /* tar stream bytes produced so far */
	uint64_t nonzero_end;    /* offset just past the last non-zero byte of the tar stream */
	char zmsg[768];          /* why inflating failed, or why the tar headers are refused */
	struct tar_scan scan;
	int refused;             /* zmsg says why the tar headers are refused */
	int gz_checked;          /* the gzip header's fixed fields were checked */
};

static void *in_reader(void *arg)
{
	struct in_stream *in = arg;
	unsigned char *p;

	while ((p = ring_claim(&in->ring))) {
		ssize_t n;

		do
			n = read(in->fd, p, in->ring.cap);
		while (n < 0 && errno == EINTR);
		if (n <= 0) {
			if (n < 0)
				in->rerr = errno ? errno : EIO;
			break;
		}
		sha256_update(&in->sha, p, (size_t)n);
		ring_publish(&in->ring, (size_t)n);
	}
	ring_close(&in->ring);
	return NULL;
}

/* Inflates into in->out. Returns the bytes produced (0: the gzip stream ended), or -1 with in->zmsg set. */
static la_ssize_t in_inflate(struct in_stream *in)
{
	for (;;) {
		size_t got;
		int r;

		if (in->zend)
			return 0;
		if (in->z.avail_in == 0) {
			const unsigned char *p;
			size_t n = 0;

			if (in->held)
				ring_done(&in->ring);
			in->held = 0;
			if (!(p = ring_take(&in->ring, &n))) {
				snprintf(in->zmsg, sizeof(in->zmsg), "the gzip stream is truncated (it ends before its trailer)");
				return -1;
			}
			in->held = 1;
			in->z.next_in = (unsigned char *)p;
			in->z.avail_in = (uInt)n;
			/* the gzip header as bench writes it (libarchive, "gzip:!timestamp"): no flags (FTEXT, FHCRC,
			 * FEXTRA, FNAME, FCOMMENT), MTIME 0; XFL and OS (one byte each, no reader acts on them) are not
			 * held to bench's values; what is not gzip at all is refused by inflate below */
			if (!in->gz_checked && n >= 10 && p[0] == 0x1f && p[1] == 0x8b) {
				static const char *const flag[] = { "FTEXT", "FHCRC", "FEXTRA", "FNAME", "FCOMMENT" };

				for (int b = 0; b < 5; b++)
					if (p[3] & (1u << b)) {
						snprintf(in->zmsg, sizeof(in->zmsg), "the gzip header has %s set (bench writes a "
							 "gzip header without flags)", flag[b]);
						return -1;
					}
				if (p[4] || p[5] || p[6] || p[7]) {
					snprintf(in->zmsg, sizeof(in->zmsg), "the gzip header has a timestamp (MTIME %lu; bench "
						 "writes 0)", (unsigned long)p[4] | (unsigned long)p[5] << 8 |
						 (unsigned long)p[6] << 16 | (unsigned long)p[7] << 24);
					return -1;
				}
			}
			in->gz_checked = 1;
		}
		in->z.next_out = in->out;
		in->z.avail_out = CHUNK;
		r = inflate(&in->z, Z_NO_FLUSH);
		if (r == Z_STREAM_END) {
			in->zend = 1;
			if (in->z.avail_in >= 2 && in->z.next_in[0] == 0x1f && in->z.next_in[1] == 0x8b) {
				snprintf(in->zmsg, sizeof(in->zmsg), "a second gzip member at byte %lu (a bundle is one gzip "
					 "stream)", (unsigned long)in->z.total_in);
				return -1;
			}
		} else if (r != Z_OK && r != Z_BUF_ERROR) {
			snprintf(in->zmsg, sizeof(in->zmsg), "gzip decompression failed: %s (a bundle is one gzip stream with a "
				 "correct CRC-32 and length; plain tar is refused)", in->z.msg ? in->z.msg : "corrupt data");
			return -1;
		}
		got = CHUNK - in->z.avail_out;
		for (size_t k = got; k > 0; k--)
			if (in->out[k - 1]) {
				in->nonzero_end = in->tar_bytes + k;
				break;
			}
		in->tar_bytes += got;
		if (got)
			return (la_ssize_t)got;
	}
}

static la_ssize_t in_read(struct archive *a, void *ctx, const void **out)
{
	struct in_stream *in = ctx;
	la_ssize_t n = in_inflate(in);

	if (n > 0 && tarscan_feed(&in->scan, in->out, (size_t)n) < 0) {
		snprintf(in->zmsg, sizeof(in->zmsg), "%s", in->scan.msg);
		in->refused = 1;
		n = -1;
	}
	if (n < 0) {
		archive_set_error(a, EINVAL, "%s", in->zmsg);
		return -1;
	}
	*out = in->out;
	return n;
}

/* The zero padding a tar writer may leave after the end-of-archive marker: the rest of a 10240-byte record, and
 * more than enough beside libarchive's read-ahead of one CHUNK. More is refused, not inflated: a small gzip of
 * gigabytes of zeros would cost seconds of CPU to anyone who verifies or compares it. */
#define TAR_PAD_SLACK ((uint64_t)CHUNK + (1u << 20))

/* After the tar end (end: the tar stream offset libarchive consumed): inflates what libarchive left (the tar's
 * zero padding, at most TAR_PAD_SLACK bytes past end) to the gzip trailer, checks that nothing follows it, reads
 * the rest of the file into the digest and waits for the reader. Returns 0, or BENCH_E_VERIFY / BENCH_E_IO with
 * the reason set. */
static int in_finish(struct in_stream *in, const char *tar, uint64_t end)
{
	int err = 0;
	size_t n;

	if (!in->started)
		return 0;
	while (!in->zend) {
		if (in_inflate(in) < 0) {
			err = bench_error_set(BENCH_E_VERIFY, "%s", in->zmsg);
			break;
		}
		if (in->tar_bytes > end + TAR_PAD_SLACK) {
			err = bench_error_set(BENCH_E_VERIFY, "more than %llu bytes of padding after the end of the tar "
					      "archive (bench writes at most one 10240-byte record)",
					      (unsigned long long)TAR_PAD_SLACK);
			break;
		}
	}
	if (!err && in->z.avail_in)
		err = bench_error_set(BENCH_E_VERIFY, "%u byte(s) of trailing data after the end of the gzip stream",
				      in->z.avail_in);
	if (in->held)
		ring_done(&in->ring);
	in->held = 0;
	while (ring_take(&in->ring, &n)) {
		if (!err && n)
			err = bench_error_set(BENCH_E_VERIFY, "trailing data after the end of the gzip stream");
		ring_done(&in->ring);
	}
	pthread_join(in->th, NULL);
	in->started = 0;
	if (!err && in->rerr)
		err = bench_error_set(BENCH_E_IO, "cannot read '%s': %s", tar, strerror(in->rerr));
	return err;
}

static void in_stop(struct in_stream *in)
{
	if (in->started) { /* an error before the end: stop the reader before its descriptor is closed */
		ring_fail(&in->ring);
		pthread_join(in->th, NULL);
		in->started = 0;
	}
	if (in->ring.slot)
		ring_release(&in->ring);
	if (in->sha.ctx)
		EVP_MD_CTX_free(in->sha.ctx);
	in->sha.ctx = NULL;
	if (in->zinit)
		inflateEnd(&in->z);
	in->zinit = 0;
	free(in->out);
	in->out = NULL;
	free(in->scan.pax);
	in->scan.pax = NULL;
}

static int in_start(struct in_stream *in, int fd)
{
	memset(in, 0, sizeof(*in));
	in->fd = fd;
	in->out = xmalloc(CHUNK);
	if (inflateInit2(&in->z, 16 + MAX_WBITS) != Z_OK) /* gzip only: a zlib or raw stream is refused */
		return bench_error_set(BENCH_E_FAIL, "cannot initialise zlib");
	in->zinit = 1;
	sha256_init(&in->sha);
	ring_init(&in->ring, RING_SLOTS, CHUNK);
	if (pthread_create(&in->th, NULL, in_reader, in) != 0)
		return bench_error_set(BENCH_E_FAIL, "cannot start the reader thread");
	in->started = 1;
	return 0;
}

/* Checks one entry's name, type and mode. Returns NULL when acceptable, else the reason (static). A name is
 * canonical: <run>/ then components that are neither empty nor '.' nor '..' nor longer than 255 bytes, without
 * control characters; a directory's name may end with one '/', a file's may not. */
static const char *entry_problem(struct archive_entry *e, const char *run)
{
	const char *name = archive_entry_pathname(e);
	size_t rl = strlen(run), len;
	mode_t t = archive_entry_filetype(e);

	if (!name || !*name)
		return "an entry without a name";
	len = strlen(name);
	if (len > 4096)
		return "an entry name longer than 4096 bytes";
	if (name[0] == '/')
		return "an absolute path";
	for (const char *p = name; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "a '..' path component";
		if (n == 1 && p[0] == '.')
			return "a '.' path component (not a canonical name)";
		if (n == 0 && !(p[0] == '/' && p[1] == '\0' && p != name))
			return "an empty path component (not a canonical name)";
		if (n > 255) /* NAME_MAX: no Linux file system holds it, GNU tar and Python cannot extract it */
			return "a path component longer than 255 bytes (NAME_MAX: GNU tar and Python cannot extract it)";
		p += n + (p[n] == '/');
	}
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "a control character in the name";
	if (strncmp(name, run, rl) || name[rl] != '/')
		return "an entry outside the run directory";
	if (archive_entry_hardlink(e))
		return "a hard link";
	if (t == AE_IFLNK)
		return "a symbolic link";
	if (t != AE_IFREG && t != AE_IFDIR)
		return "a device, fifo or other special file";
	if (t == AE_IFREG && name[len - 1] == '/')
		return "a file name with a trailing '/' (not a canonical name)";
	if (archive_entry_perm(e) & 07000)
		return "a setuid, setgid or sticky mode";
	if (archive_entry_perm(e) & 0022)
		return "a group- or world-writable mode";
	return NULL;
}

/* The reading pass shared by verify and the unverified reader: every entry checked, every regular member hashed
 * (digests[] filled when subj is given) and handed to sink. */
struct subject {
	const char *name;
	const char *sha;
	int seen;
};

static int find_subject(struct subject *s, size_t n, const char *name)
{
	for (size_t lo = 0, hi = n; lo < hi;) { /* subjects sorted by name */
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s[mid].name, name);

		if (!c)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int cmp_subject(const void *a, const void *b)
{
	return strcmp(((const struct subject *)a)->name, ((const struct subject *)b)->name);
}

struct pass {
	const char *tar, *run;
	const struct bundle_limits *lim;
	const struct bundle_sink *sink;
	struct subject *subj; /* NULL: no statement to check against */
	size_t ns;
	size_t members;
	uint64_t bytes;
	unsigned char tar_md[32];
};

/* the names an archive's entries so far have: every name (one spelling), the files', and every parent of one */
struct entry_names {
	struct strset all, files, parents;
};

/* a file that is also the parent of another entry (RUN/x and RUN/x/y, in either order) verifies as two members,
 * but no extractor can write both: GNU tar and Python stop at the second ("Not a directory") */
static int pass_check_parents(struct entry_names *en, const char *key, int is_dir)
{
	char *p = xstrdup(key), *slash;
	int dup, err = 0;

	if (!is_dir && strset_has(&en->parents, key)) {
		err = bench_error_set(BENCH_E_VERIFY, "refused archive entry '%s': a file, and the parent of another "
				      "entry", key);
		goto cleanup;
	}
	if (!is_dir)
		strset_add(&en->files, key, &dup);
	while ((slash = strrchr(p, '/'))) {
		*slash = '\0';
		if (strset_has(&en->files, p)) {
			err = bench_error_set(BENCH_E_VERIFY, "refused archive entry '%s': its parent '%s' is a file in "
					      "the archive", key, p);
			goto cleanup;
		}
		strset_add(&en->parents, p, &dup);
		if (dup)
			break; /* its own parents were added with it */
	}
cleanup:
	free(p);
	return err;
}

/* after the last entry: no two names, the entries' or their parents', that differ only in ASCII letters' case
 * (RUN/logs/A.log and RUN/logs/a.log, RUN/Logs/x and RUN/logs/y): one file on macOS and Windows */
static int pass_check_case(const struct entry_names *en)
{
	const char **names = xcalloc(en->all.n + en->parents.n + 1, sizeof(*names)), *a, *b;
	size_t n = 0;
	int err = 0;

	for (size_t i = 0; i < en->all.cap; i++)
		if (en->all.v[i])
			names[n++] = en->all.v[i];
	for (size_t i = 0; i < en->parents.cap; i++)
		if (en->parents.v[i])
			names[n++] = en->parents.v[i];
	if (names_case_clash(names, n, &a, &b))
		err = bench_error_set(BENCH_E_VERIFY, "refused archive entries '%s' and '%s': names that differ only in "
				      "case: one file on macOS and Windows", a, b);
	free(names);
	return err;
}

/* the checks of an archive's entry before its data: at most max_entries of them, a name entry_problem() accepts
 * and no other entry has (one spelling per name), no file the parent of another entry; a member's size within
 * its kind's limit and the whole's */
static int pass_check_entry(struct pass *ps, struct archive_entry *e, struct entry_names *en, size_t *entries,
			    uint64_t *total)
{
	const char *name = archive_entry_pathname(e), *why = entry_problem(e, ps->run);
	uint64_t size, limit;
	char *key;
	int dup, err;

	if (++*entries > ps->lim->max_entries)
		return bench_error_set(BENCH_E_VERIFY, "the archive has more than %zu entries", ps->lim->max_entries);
	if (why)
		return bench_error_set(BENCH_E_VERIFY, "refused archive entry '%s': %s", name ? name : "", why);
	key = xstrndup(name, strlen(name) - (name[strlen(name) - 1] == '/')); /* one spelling per name */
	strset_add(&en->all, key, &dup);
	if (!dup && (err = pass_check_parents(en, key, archive_entry_filetype(e) == AE_IFDIR)) < 0) {
		free(key);
		return err;
	}
	free(key);
	if (dup)
		return bench_error_set(BENCH_E_VERIFY, "refused archive entry '%s': a duplicate name", name);
	if (archive_entry_filetype(e) == AE_IFDIR)
		return 0;
	size = (uint64_t)archive_entry_size(e);
	limit = bundle_member_limit(ps->lim, name + strlen(ps->run) + 1);
	if (archive_entry_size(e) < 0 || size > limit || (*total += size) > ps->lim->max_total)
		return bench_error_set(BENCH_E_VERIFY, "refused archive entry '%s': %llu bytes is over the limit (%llu "
				       "bytes for a member of its kind, %llu in all)", name, (unsigned long long)size,
				       (unsigned long long)limit, (unsigned long long)ps->lim->max_total);
	return 0;
}

/* a member's data, digested and handed to the sink; its digest checked against the signed statement's, a member
 * the statement lacks or whose digest differs noted in *member_err (the first such) */
static int pass_read_member(struct pass *ps, struct archive *a, struct in_stream *in, struct archive_entry *e,
			    unsigned char *data, int *member_err)
{
	const char *name = archive_entry_pathname(e), *rel = name + strlen(ps->run) + 1;
	uint64_t size = (uint64_t)archive_entry_size(e);
	unsigned char md[32];
	int idx = -1, want = 0, err;
	struct sha256 c;
	la_ssize_t n;

	if (ps->subj) {
		idx = find_subject(ps->subj, ps->ns, name);
		if (idx < 0 && !*member_err)
			*member_err = bench_error_set(BENCH_E_VERIFY, "member '%s' is in the archive but not in the "
						      "signed statement", name);
	}
	if (ps->sink && (want = ps->sink->open(ps->sink->ctx, rel, size)) < 0)
		return want;
	sha256_init(&c);
	while ((n = archive_read_data(a, data, CHUNK)) > 0) {
		sha256_update(&c, data, (size_t)n);
		if (want && (err = ps->sink->data(ps->sink->ctx, rel, data, (size_t)n)) < 0) {
			EVP_MD_CTX_free(c.ctx);
			return err;
		}
	}
	sha256_final(md, &c);
	if (n < 0 && in->refused)
		return bench_error_set(BENCH_E_VERIFY, "%s", in->zmsg);
	if (n < 0)
		return bench_error_set(BENCH_E_VERIFY, "the archive is corrupt in '%s': %s", name, arc_error(a));
	if (want && (err = ps->sink->data(ps->sink->ctx, rel, NULL, 0)) < 0)
		return err;
	if (idx >= 0) {
		char got[65];

		hex(got, md);
		ps->subj[idx].seen = 1;
		if (strcmp(got, ps->subj[idx].sha) && !*member_err)
			*member_err = bench_error_set(BENCH_E_VERIFY, "member '%s' digest differs from the signed "
						      "statement", name);
	}
	ps->members++;
	ps->bytes += size;
	return 0;
}

/* after the last header (r: what reading the next one returned): the archive ended at its end-of-archive marker,
 * and only zero padding follows what libarchive consumed */
static int pass_check_end(struct pass *ps, struct archive *a, struct in_stream *in, int r)
{
	uint64_t end;
	int err;

	if (r != ARCHIVE_EOF && in->refused)
		return bench_error_set(BENCH_E_VERIFY, "%s", in->zmsg);
	if (r != ARCHIVE_EOF)
		return bench_error_set(BENCH_E_VERIFY, "the archive is corrupt or truncated: %s", arc_error(a));
	end = (uint64_t)archive_filter_bytes(a, 0);
	if ((err = in_finish(in, ps->tar, end)) < 0)
		return err;
	if (in->nonzero_end > end)
		return bench_error_set(BENCH_E_VERIFY, "data after the end of the tar archive (an entry or garbage "
				       "after its end marker)");
	return 0;
}

static int read_pass_entries(struct pass *ps, int fd);

/* (in C.UTF-8, as pack_archive: names as the UTF-8 they are) */
static int read_pass(struct pass *ps, int fd)
{
	locale_t old = utf8locale_push();
	int err = read_pass_entries(ps, fd);

	utf8locale_pop(old);
	return err;
}

static int read_pass_entries(struct pass *ps, int fd)
{
	struct entry_names names;
	struct in_stream in;
	struct archive *a = NULL;
	struct archive_entry *e;
	unsigned char *data = xmalloc(CHUNK);
	size_t entries = 0;
	uint64_t total = 0;
	int err = 0, r, member_err = 0;

	memset(&names, 0, sizeof(names));
	if ((err = in_start(&in, fd)) < 0)
		goto cleanup;
	a = archive_read_new();
	archive_read_support_format_tar(a); /* no filter: the stream is inflated by in_read, gzip only */
	if (archive_read_open(a, &in, NULL, in_read, NULL) != ARCHIVE_OK) {
		if (in.refused)
			err = bench_error_set(BENCH_E_VERIFY, "%s", in.zmsg);
		else if (in.zmsg[0])
			err = bench_error_set(BENCH_E_VERIFY, "'%s': %s", ps->tar, in.zmsg);
		else
			err = bench_error_set(BENCH_E_VERIFY, "'%s' is not a gzip-compressed tar archive: %s", ps->tar,
					      arc_error(a));
		goto cleanup;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		if ((err = pass_check_entry(ps, e, &names, &entries, &total)) < 0)
			goto cleanup;
		if (archive_entry_filetype(e) == AE_IFDIR)
			continue;
		if ((err = pass_read_member(ps, a, &in, e, data, &member_err)) < 0)
			goto cleanup;
	}
	if ((err = pass_check_end(ps, a, &in, r)) < 0 || (err = pass_check_case(&names)) < 0)
		goto cleanup;
	if (member_err) {
		err = member_err;
		goto cleanup;
	}
	sha256_final(ps->tar_md, &in.sha);
cleanup:
	in_stop(&in);
	if (a)
		archive_read_free(a);
	strset_release(&names.all);
	strset_release(&names.files);
	strset_release(&names.parents);
	free(data);
	return err;
}

static int open_bundle(int *fd, const char *tar)
{
	if ((*fd = fs_open_regular(tar, 0)) < 0 && errno == EINVAL)
		return bench_error_set(BENCH_E_VERIFY, "'%s' is not a regular file", tar);
	if (*fd < 0)
		return bench_error_set(BENCH_E_IO, "cannot open '%s': %s", tar, strerror(errno));
	return 0;
}

void bundle_test_hook(const char *stage, const char *path)
{
	const char *prog = getenv("BENCH_TEST_HOOK_AFTER_VERIFY");
	char *argv[4];
	pid_t pid;
	int st;

	if (!prog || !*prog)
		return;
	argv[0] = (char *)prog;
	argv[1] = (char *)stage;
	argv[2] = (char *)path;
	argv[3] = NULL;
	if (posix_spawnp(&pid, prog, NULL, NULL, argv, environ) == 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
}

/* The statement's members: its subjects after the first (the archive), sorted by name, each with a name and a
 * sha256 (borrowed from sa), none listed twice. *out is the caller's to free, also after an error. */
static int statement_members(struct subject **out, size_t *n, json_t *sa)
{
	size_t ns = json_array_size(sa) - 1;
	struct subject *subj = xcalloc(ns + 1, sizeof(*subj));

	*out = subj;
	*n = ns;
	for (size_t i = 0; i < ns; i++) {
		json_t *s = json_array_get(sa, i + 1);

		subj[i].name = json_string_value(json_object_get(s, "name"));
		subj[i].sha = json_string_value(json_object_get(json_object_get(s, "digest"), "sha256"));
		if (!subj[i].name || !is_hex64(subj[i].sha))
			return bench_error_set(BENCH_E_VERIFY, "subject %zu of the statement has no name or sha256", i + 1);
	}
	qsort(subj, ns, sizeof(*subj), cmp_subject);
	for (size_t i = 1; i < ns; i++)
		if (!strcmp(subj[i].name, subj[i - 1].name))
			return bench_error_set(BENCH_E_VERIFY, "the statement lists '%s' twice", subj[i].name);
	return 0;
}

int bundle_verify_read(struct bundle_verify_result *out, const char *tar, const char *envelope, char *const *keys,
		       const char *home, const struct bundle_limits *lim, const struct bundle_sink *sink)
{
	char *envpath = envelope ? xstrdup(envelope) : xstrfmt("%s.intoto.jsonl", tar), *run = NULL;
	const char *base = strrchr(tar, '/') ? strrchr(tar, '/') + 1 : tar, *name0, *sha0;
	struct subject *subj = NULL;
	struct pass ps;
	json_t *stmt = NULL, *sa;
	size_t ns = 0;
	int err, fd = -1;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	memset(&ps, 0, sizeof(ps));
	if ((err = verify_envelope(out, &stmt, envpath, keys, home)) < 0)
		goto cleanup;
	sa = json_object_get(stmt, "subject");
	if (strcmp(json_string_value(json_object_get(stmt, "_type")) ? json_string_value(json_object_get(stmt, "_type")) : "",
		   "https://in-toto.io/Statement/v1") || !json_is_array(sa) || json_array_size(sa) < 1 ||
	    json_array_size(sa) > lim->max_entries + 1) {
		err = bench_error_set(BENCH_E_VERIFY, "the signed payload is not an in-toto Statement v1 with subjects");
		goto cleanup;
	}
	name0 = json_string_value(json_object_get(json_array_get(sa, 0), "name"));
	sha0 = json_string_value(json_object_get(json_object_get(json_array_get(sa, 0), "digest"), "sha256"));
	if (!name0 || !is_hex64(sha0) || strlen(name0) <= strlen(".bench.tar.gz") ||
	    strcmp(name0 + strlen(name0) - strlen(".bench.tar.gz"), ".bench.tar.gz")) {
		err = bench_error_set(BENCH_E_VERIFY, "subject 0 of the statement is not a .bench.tar.gz with a sha256");
		goto cleanup;
	}
	if (strcmp(name0, base)) {
		err = bench_error_set(BENCH_E_VERIFY, "the envelope signs '%s', not '%s' (an envelope of another run?)", name0, base);
		goto cleanup;
	}
	run = xstrndup(name0, strlen(name0) - strlen(".bench.tar.gz"));
	if ((err = statement_members(&subj, &ns, sa)) < 0 || (err = open_bundle(&fd, tar)) < 0)
		goto cleanup;
	ps.tar = tar;
	ps.run = run;
	ps.lim = lim;
	ps.sink = sink;
	ps.subj = subj;
	ps.ns = ns;
	if ((err = read_pass(&ps, fd)) < 0)
		goto cleanup;
	for (size_t k = 0; k < ns; k++)
		if (!subj[k].seen) {
			err = bench_error_set(BENCH_E_VERIFY, "member '%s' of the signed statement is missing from the archive",
					      subj[k].name);
			goto cleanup;
		}
	hex(out->sha256, ps.tar_md);
	if (strcmp(out->sha256, sha0)) {
		err = bench_error_set(BENCH_E_VERIFY, "'%s' digest differs from the signed statement (its members match: bytes "
				      "changed outside them)", base);
		goto cleanup;
	}
	out->members = ps.members;
	out->bytes = ps.bytes;
	out->run = run;
	run = NULL;
	out->statement = stmt;
	stmt = NULL;
	out->fd = fd;
	fd = -1;
	bundle_test_hook("verified", tar);
	err = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	free(envpath);
	free(run);
	free(subj);
	if (err)
		bundle_verify_result_release(out);
	json_decref(stmt);
	return err;
}

int bundle_verify(struct bundle_verify_result *out, const char *tar, const char *envelope, char *const *keys,
		  const char *home, const struct bundle_limits *lim)
{
	return bundle_verify_read(out, tar, envelope, keys, home, lim, NULL);
}

int bundle_copy_verified(const struct bundle_verify_result *r, int dirfd, const char *name)
{
	unsigned char *buf = xmalloc(CHUNK), md[32];
	struct sha256 h;
	char got[65];
	off_t off = 0;
	ssize_t n;
	int out = -1, err = 0;

	sha256_init(&h);
	if ((out = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot create '%s': %s", name, strerror(errno));
		goto cleanup;
	}
	while ((n = pread(r->fd, buf, CHUNK, off)) > 0) {
		sha256_update(&h, buf, (size_t)n);
		for (ssize_t w = 0, k; w < n; w += k)
			if ((k = write(out, buf + w, (size_t)(n - w))) < 0) {
				err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", name, strerror(errno));
				goto cleanup;
			}
		off += n;
	}
	if (n < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot read the verified bundle again: %s", strerror(errno));
		goto cleanup;
	}
	sha256_final(md, &h);
	hex(got, md);
	if (strcmp(got, r->sha256)) {
		err = bench_error_set(BENCH_E_VERIFY, "the bundle changed after it was verified (its bytes no longer match "
				      "the signed digest)");
		goto cleanup;
	}
	if (fsync(out) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", name, strerror(errno));
		goto cleanup;
	}
cleanup:
	if (h.ctx)
		EVP_MD_CTX_free(h.ctx);
	if (out >= 0) {
		close(out);
		if (err)
			unlinkat(dirfd, name, 0);
	}
	free(buf);
	return err;
}

int bundle_read(char **out_run, const char *tar, const struct bundle_sink *sink)
{
	const char *base = strrchr(tar, '/') ? strrchr(tar, '/') + 1 : tar;
	size_t bl = strlen(base), sl = strlen(".bench.tar.gz");
	struct bundle_limits lim;
	struct pass ps;
	char *run = NULL;
	int err, fd = -1;

	*out_run = NULL;
	bundle_limits_default(&lim);
	if (bl <= sl || strcmp(base + bl - sl, ".bench.tar.gz"))
		return bench_error_set(BENCH_E_VERIFY, "'%s' is not named <run>.bench.tar.gz", tar);
	run = xstrndup(base, bl - sl);
	if ((err = open_bundle(&fd, tar)) < 0)
		goto cleanup;
	memset(&ps, 0, sizeof(ps));
	ps.tar = tar;
	ps.run = run;
	ps.lim = &lim;
	ps.sink = sink;
	err = read_pass(&ps, fd);
cleanup:
	if (fd >= 0)
		close(fd);
	if (err)
		free(run);
	else
		*out_run = run;
	return err;
}

/* ---- sinks ------------------------------------------------------------------------------------------------------ */

static int members_open(void *ctx, const char *rel, uint64_t size)
{
	struct bundle_members *m = ctx;

	for (size_t i = 0; m->names[i]; i++)
		if (!strcmp(rel, m->names[i])) {
			if (size > m->max_member)
				return bench_error_set(BENCH_E_VERIFY, "member '%s' is larger than %zu bytes", rel, m->max_member);
			strbuf_reset(&m->cur);
			return 1;
		}
	return 0;
}

static int members_data(void *ctx, const char *rel, const void *buf, size_t len)
{
	struct bundle_members *m = ctx;

	if (len) {
		if (m->cur.len + len > m->max_member) /* the header lied about the size */
			return bench_error_set(BENCH_E_VERIFY, "member '%s' is larger than %zu bytes", rel, m->max_member);
		strbuf_add(&m->cur, buf, len);
	} else {
		json_object_set_new(m->out, rel, json_stringn(m->cur.buf ? m->cur.buf : "", m->cur.len));
		strbuf_reset(&m->cur);
	}
	return 0;
}

void bundle_members_init(struct bundle_members *m, struct bundle_sink *sink, const char *const *names, size_t max_member)
{
	memset(m, 0, sizeof(*m));
	m->names = names;
	m->max_member = max_member;
	m->out = json_object();
	m->cur = (struct strbuf)STRBUF_INIT;
	sink->open = members_open;
	sink->data = members_data;
	sink->ctx = m;
}

void bundle_members_release(struct bundle_members *m)
{
	json_decref(m->out);
	strbuf_release(&m->cur);
	memset(m, 0, sizeof(*m));
}

int bundle_read_members(json_t **out, char **out_run, const char *tar, const char *const *names, size_t max_member)
{
	struct bundle_members m;
	struct bundle_sink sink;
	int err;

	bundle_members_init(&m, &sink, names, max_member);
	err = bundle_read(out_run, tar, &sink);
	*out = err ? NULL : json_incref(m.out);
	bundle_members_release(&m);
	return err;
}

int bundle_dir_member_open(int *fd, uint64_t *size, const char *dir, const char *rel)
{
	char *p = xstrfmt("%s/%s", dir, rel);
	struct bundle_limits lim;
	struct stat st;
	int err = 0;

	*size = 0;
	if ((*fd = fs_open_regular(p, 0)) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			err = bench_error_set(BENCH_E_IO, "cannot read '%s': %s", p,
					      errno == EINVAL ? "not a regular file" : strerror(errno));
		goto cleanup;
	}
	bundle_limits_default(&lim);
	if (fstat(*fd, &st) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot read '%s': %s", p, strerror(errno));
	} else if ((uint64_t)st.st_size > bundle_member_limit(&lim, rel)) {
		err = bench_error_set(BENCH_E_IO, "cannot read '%s': %llu bytes, larger than the %llu MiB a bundle's "
				      "member of its kind may hold", p, (unsigned long long)st.st_size,
				      (unsigned long long)(bundle_member_limit(&lim, rel) >> 20));
	}
	*size = (uint64_t)st.st_size;
	if (err < 0) {
		close(*fd);
		*fd = -1;
	}
cleanup:
	free(p);
	return err;
}

int bundle_read_dir_members(json_t **out, char **out_run, const char *dir, const char *const *names, size_t max_member)
{
	const char *base;
	size_t dl = strlen(dir);
	char *d = NULL;
	uint64_t size;
	int err = 0, fd = -1;

	*out = json_object();
	*out_run = NULL;
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	for (base = dir + dl; base > dir && base[-1] != '/'; base--)
		;
	d = xstrfmt("%.*s", (int)dl, dir);
	if ((err = bundle_dir_member_open(&fd, &size, d, "plan.json")) < 0)
		goto cleanup;
	if (fd < 0) {
		err = bench_error_set(BENCH_E_FAIL, "'%s' is not a run directory or a bundle (no plan.json)", dir);
		goto cleanup;
	}
	close(fd);
	*out_run = xstrfmt("%.*s", (int)(dir + dl - base), base);
	for (size_t i = 0; names[i]; i++) {
		struct strbuf sb = STRBUF_INIT;
		char buf[65536];
		ssize_t n;

		if ((err = bundle_dir_member_open(&fd, &size, d, names[i])) < 0)
			goto cleanup;
		if (fd < 0)
			continue;
		if (size > max_member) {
			close(fd);
			err = bench_error_set(BENCH_E_IO, "cannot read '%s/%s': %llu bytes, larger than %zu MiB", d, names[i],
					      (unsigned long long)size, max_member >> 20);
			goto cleanup;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0 && sb.len + (size_t)n <= max_member)
			strbuf_add(&sb, buf, (size_t)n);
		close(fd);
		if (n != 0) {
			err = bench_error_set(BENCH_E_IO, "cannot read '%s/%s': %s", d, names[i],
					      n < 0 ? strerror(errno) : "it grew while it was read");
			strbuf_release(&sb);
			goto cleanup;
		}
		json_object_set_new(*out, names[i], json_stringn(sb.buf ? sb.buf : "", sb.len));
		strbuf_release(&sb);
	}
cleanup:
	free(d);
	if (err < 0) {
		json_decref(*out);
		*out = NULL;
		free(*out_run);
		*out_run = NULL;
	}
	return err;
}
