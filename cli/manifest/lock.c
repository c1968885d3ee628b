/* SPDX-License-Identifier: Apache-2.0 */
#include "lock.h"
#include "plugin_pins.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <gnu/libc-version.h>

#include <curl/curl.h>
#include <git2.h>
#include <openssl/evp.h>

#include "core/diag.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/jsonarray.h"
#include "core/libscan.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "ynode.h"
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

/* ---- the wheel target ----------------------------------------------------------------------------------------- */

void lock_target_release(struct lock_target *t)
{
	for (size_t i = 0; i < t->nplatforms; i++)
		free(t->platforms[i]);
	free(t->platforms);
	memset(t, 0, sizeof(*t));
}

/* Engine host: the wheel target is this machine: python3's version, glibc and architecture (the vendor file's
 * accelerator). vals[0] python, vals[2] platform; left NULL where they cannot be told. */
static void host_wheel_target(char *vals[4])
{
	char *out = NULL, *py = spawn_which("python3");
	char *const argv[] = { py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])", NULL };
	struct utsname u;
	size_t len;

	if (py && spawn_capture(&out, &len, argv, 64, 60) == 0 && out && !strncmp(out, "3.", 2)) {
		out[strcspn(out, "\n")] = '\0';
		vals[0] = xstrdup(out);
	}
	if (uname(&u) == 0)
		vals[2] = xstrfmt("manylinux_2_%d_%s", atoi(strchr(gnu_get_libc_version(), '.') ? strchr(gnu_get_libc_version(), '.') + 1 : "17"),
				  u.machine);
	free(out);
	free(py);
}

int lock_target_load(struct lock_target *out, const struct manifest *m)
{
	const struct wheel_target *mt = &m->stack.wheel_target;
	const char *mine[] = { mt->python, mt->abi, mt->platform, mt->accelerator };
	static const char *const keys[] = { "python", "abi", "platform", "accelerator" };
	char *vals[4] = { NULL, NULL, NULL, NULL }, *path = NULL, *buf = NULL;
	struct diag_list d = DIAG_LIST_INIT;
	struct ynode *vd = NULL;
	const char *dir = fs_data_dir(), *p;
	size_t len;
	int err = 0, glibc;

	memset(out, 0, sizeof(*out));
	if (!dir)
		return BENCH_E_IO;
	path = xstrfmt("%s/images/bases/%s.yaml", dir, vendor_names[m->target.vendor]);
	if ((err = fs_read_file(&buf, &len, path, 1u << 20)) < 0)
		goto cleanup;
	if ((err = ynode_load(&vd, &d, path, buf, len)) < 0) {
		err = bench_error_set(BENCH_E_MANIFEST, "%s: %s", path, d.n ? d.items[0].msg : "invalid");
		goto cleanup;
	}
	if (m->runtime.engine == ENGINE_HOST) /* a host stack's environment is made with this machine's python3 */
		host_wheel_target(vals);
	for (int i = 0; i < 4; i++) {
		const struct ynode *v = ynode_map_get(ynode_map_get(vd, "wheel_target"), keys[i]);

		if (mine[i]) {
			free(vals[i]);
			vals[i] = xstrdup(mine[i]);
		} else if (!vals[i] && v && v->type == YNODE_SCALAR && v->value[0]) {
			vals[i] = xstrdup(v->value);
		}
	}
	if (!vals[0] || !vals[2] || !vals[3]) {
		err = bench_error_set(BENCH_E_MANIFEST, "%s has no complete 'wheel_target' (python, platform, accelerator) and "
				      "the manifest sets no 'stack.wheel_target'", path);
		goto cleanup;
	}
	/* manylinux_2_<minor>_<arch>: the manifest's is checked by the validator, the vendor file's here */
	if (strncmp(vals[2], "manylinux_2_", 12) || (glibc = atoi(vals[2] + 12)) < 5 || !(p = strchr(vals[2] + 12, '_')) ||
	    !p[1] || strlen(p + 1) >= sizeof(out->arch) || strlen(vals[0]) >= sizeof(out->python) || strncmp(vals[0], "3.", 2) ||
	    strlen(vals[3]) >= sizeof(out->accelerator)) {
		err = bench_error_set(BENCH_E_MANIFEST, "the wheel target (python '%s', platform '%s', accelerator '%s') is not "
				      "of the form python \"3.12\", platform manylinux_2_39_x86_64, accelerator cu130", vals[0],
				      vals[2], vals[3]);
		goto cleanup;
	}
	snprintf(out->python, sizeof(out->python), "%s", vals[0]);
	snprintf(out->pytag, sizeof(out->pytag), "cp3%s", vals[0] + 2);
	snprintf(out->abi, sizeof(out->abi), "%s", vals[1] ? vals[1] : out->pytag);
	snprintf(out->accelerator, sizeof(out->accelerator), "%s", vals[3]);
	snprintf(out->arch, sizeof(out->arch), "%s", p + 1);
	snprintf(out->platform, sizeof(out->platform), "%s", vals[2]);
	/* pip's order: manylinux_2_<glibc> down to manylinux_2_5, each legacy alias after its glibc, then linux_<arch> */
	for (int g = glibc; g >= 5; g--) {
		out->platforms = xrealloc(out->platforms, (out->nplatforms + 2) * sizeof(*out->platforms));
		out->platforms[out->nplatforms++] = xstrfmt("manylinux_2_%d_%s", g, out->arch);
		if (g == 17 || ((g == 12 || g == 5) && (!strcmp(out->arch, "x86_64") || !strcmp(out->arch, "i686"))))
			out->platforms[out->nplatforms++] =
				xstrfmt("manylinux%s_%s", g == 17 ? "2014" : g == 12 ? "2010" : "1", out->arch);
	}
	out->platforms = xrealloc(out->platforms, (out->nplatforms + 1) * sizeof(*out->platforms));
	out->platforms[out->nplatforms++] = xstrfmt("linux_%s", out->arch);
cleanup:
	for (int i = 0; i < 4; i++)
		free(vals[i]);
	ynode_free(vd);
	diag_list_release(&d);
	free(path);
	free(buf);
	if (err)
		lock_target_release(out);
	return err;
}

/* ---- PEP 440 versions ------------------------------------------------------------------------------------------ */

struct pep440 {
	long epoch, rel[16], pre, post, dev;
	int nrel, pre_kind; /* pre_kind: -1 none, 0 a, 1 b, 2 rc */
	int has_post, has_dev;
	char local[64];
};

static int read_num(const char **p, long *out)
{
	char *e;

	if (!isdigit((unsigned char)**p)) {
		*out = 0; /* "1.0a" is "1.0a0" */
		return 0;
	}
	*out = strtol(*p, &e, 10);
	*p = e;
	return 0;
}

/* Parses a version as PEP 440 writes it (its normal form and the usual spellings; "%2B" read as '+').
 * Returns 0, or -1 for what is not a version. */
static int pep440_parse(struct pep440 *v, const char *text)
{
	char buf[128], *w = buf;
	const char *p;

	memset(v, 0, sizeof(*v));
	v->pre_kind = -1;
	for (p = text; *p && w < buf + sizeof(buf) - 1; p++) {
		if (p[0] == '%' && p[1] == '2' && (p[2] == 'B' || p[2] == 'b')) {
			*w++ = '+';
			p += 2;
		} else {
			*w++ = (char)tolower((unsigned char)*p);
		}
	}
	if (*p)
		return -1;
	*w = '\0';
	p = buf;
	if (*p == 'v')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	if (strchr(p, '!')) {
		read_num(&p, &v->epoch);
		if (*p++ != '!')
			return -1;
	}
	do {
		if (!isdigit((unsigned char)*p) || v->nrel == 16)
			return -1;
		read_num(&p, &v->rel[v->nrel++]);
	} while (*p == '.' && isdigit((unsigned char)p[1]) && p++);
	while (*p && *p != '+') {
		static const struct { const char *s; int kind; } pre[] = { { "alpha", 0 }, { "beta", 1 }, { "preview", 2 },
									     { "pre", 2 }, { "rc", 2 }, { "a", 0 },
									     { "b", 1 }, { "c", 2 } };
		size_t k;

		if (*p == '.' || *p == '-' || *p == '_')
			p++;
		for (k = 0; k < sizeof(pre) / sizeof(pre[0]); k++)
			if (!strncmp(p, pre[k].s, strlen(pre[k].s)))
				break;
		if (k < sizeof(pre) / sizeof(pre[0]) && v->pre_kind < 0 && !v->has_post && !v->has_dev) {
			p += strlen(pre[k].s);
			v->pre_kind = pre[k].kind;
		} else if (!strncmp(p, "post", 4) || !strncmp(p, "rev", 3) || (*p == 'r' && isdigit((unsigned char)p[1]))) {
			p += !strncmp(p, "post", 4) ? 4 : !strncmp(p, "rev", 3) ? 3 : 1;
			v->has_post = 1;
		} else if (!strncmp(p, "dev", 3) && !v->has_dev) {
			p += 3;
			v->has_dev = 1;
		} else {
			return -1;
		}
		if (*p == '.' || *p == '-' || *p == '_')
			p++;
		read_num(&p, v->has_dev ? &v->dev : v->has_post ? &v->post : &v->pre);
	}
	if (*p == '+') {
		if (!p[1] || strlen(p + 1) >= sizeof(v->local))
			return -1;
		snprintf(v->local, sizeof(v->local), "%s", p + 1);
		for (w = v->local; *w; w++)
			if (*w == '-' || *w == '_')
				*w = '.';
	}
	return 0;
}

static int cmp_long(long a, long b)
{
	return (a > b) - (a < b);
}

/* PEP 440's order: epoch, release, pre, post, dev (a bare .devN before any pre-release), then the local label
 * (none first; segments compared numerically where both are numbers, a number after a word). */
static int pep440_cmp(const struct pep440 *a, const struct pep440 *b, int with_local)
{
	int n = a->nrel > b->nrel ? a->nrel : b->nrel, r;
	long pa, pb;

	if ((r = cmp_long(a->epoch, b->epoch)))
		return r;
	for (int i = 0; i < n; i++)
		if ((r = cmp_long(i < a->nrel ? a->rel[i] : 0, i < b->nrel ? b->rel[i] : 0)))
			return r;
	pa = a->pre_kind >= 0 ? a->pre_kind * 1000000000L + a->pre : (!a->has_post && a->has_dev) ? -1 : 4000000000L;
	pb = b->pre_kind >= 0 ? b->pre_kind * 1000000000L + b->pre : (!b->has_post && b->has_dev) ? -1 : 4000000000L;
	if ((r = cmp_long(pa, pb)) || (r = cmp_long(a->has_post ? a->post : -1, b->has_post ? b->post : -1)) ||
	    (r = cmp_long(a->has_dev ? a->dev : LONG_MAX, b->has_dev ? b->dev : LONG_MAX)) || !with_local)
		return r;
	if (!a->local[0] || !b->local[0])
		return (a->local[0] != 0) - (b->local[0] != 0);
	{
		const char *x = a->local, *y = b->local;

		while (*x && *y) {
			size_t lx = strcspn(x, "."), ly = strcspn(y, ".");
			int nx = strspn(x, "0123456789") == lx, ny = strspn(y, "0123456789") == ly;

			if (nx && ny)
				r = cmp_long(atol(x), atol(y));
			else if (nx != ny)
				r = nx ? 1 : -1;
			else if (!(r = strncmp(x, y, lx < ly ? lx : ly)))
				r = cmp_long((long)lx, (long)ly);
			if (r)
				return r > 0 ? 1 : -1;
			x += lx + (x[lx] == '.');
			y += ly + (y[ly] == '.');
		}
		return (*x != 0) - (*y != 0);
	}
}

/* A local label naming an accelerator build (cu130, rocm7.1, cpu, xpu): one of these that is not the target's
 * is another target's wheel. A label such as git3f2a1b is not. */
static int accel_like(const char *local)
{
	if (!strcmp(local, "cpu") || !strcmp(local, "xpu"))
		return 1;
	if (!strncmp(local, "cu", 2) && isdigit((unsigned char)local[2]))
		return strspn(local + 2, "0123456789") == strlen(local + 2);
	if (!strncmp(local, "rocm", 4) && isdigit((unsigned char)local[4]))
		return strspn(local + 4, "0123456789.") == strlen(local + 4);
	return 0;
}

/* ---- wheel file names ------------------------------------------------------------------------------------------ */

/* Whether one of the dot-separated tags of set is accepted by ok(). */
static int any_tag(const char *set, int (*ok)(const char *tag, size_t len, const struct lock_target *t),
		   const struct lock_target *t)
{
	for (const char *p = set; *p;) {
		size_t l = strcspn(p, ".");

		if (ok(p, l, t))
			return 1;
		p += l + (p[l] == '.');
	}
	return 0;
}

static int tag_is(const char *tag, size_t len, const char *want)
{
	return strlen(want) == len && !strncmp(tag, want, len);
}

static int py_ok(const char *tag, size_t len, const struct lock_target *t)
{
	char py[16];

	snprintf(py, sizeof(py), "py3%s", t->python + 2);
	if (tag_is(tag, len, t->pytag) || tag_is(tag, len, "py3") || tag_is(tag, len, py))
		return 1;
	/* cp3Y for Y <= the target's minor: an abi3 wheel built for an older interpreter */
	return len > 3 && !strncmp(tag, "cp3", 3) && atoi(tag + 3) <= atoi(t->python + 2) && strspn(tag + 3, "0123456789") == len - 3;
}

static int abi_ok(const char *tag, size_t len, const struct lock_target *t)
{
	return tag_is(tag, len, t->abi) || tag_is(tag, len, "none") || tag_is(tag, len, "abi3");
}

static int plat_ok(const char *tag, size_t len, const struct lock_target *t)
{
	if (tag_is(tag, len, "any"))
		return 1;
	for (size_t i = 0; i < t->nplatforms; i++)
		if (tag_is(tag, len, t->platforms[i]))
			return 1;
	return 0;
}

/* %XX escapes read, in place (a URL's file name: torch-2.11.0%2Bcu130-...). Returns s. */
static char *pct_decode(char *s)
{
	char *w = s;

	for (const char *p = s; *p; p++) {
		if (p[0] == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
			char hex[3] = { p[1], p[2], 0 };

			*w++ = (char)strtol(hex, NULL, 16);
			p += 2;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	return s;
}

/* Splits a wheel file name (NAME-VERSION[-BUILD]-PY-ABI-PLATFORM.whl, '%2B' already read as '+') into its
 * fields, in place. Returns 0, or -1 for what is not a wheel's name. */
static int wheel_split(char *file, char **name, char **version, char **py, char **abi, char **plat)
{
	char *f[7];
	int n = 0;
	size_t l = strlen(file);

	if (l < 5 || strcmp(file + l - 4, ".whl"))
		return -1;
	file[l - 4] = '\0';
	for (char *p = file; n < 7; n++) {
		f[n] = p;
		if (!(p = strchr(p, '-'))) {
			n++;
			break;
		}
		*p++ = '\0';
	}
	if (n != 5 && n != 6)
		return -1;
	*name = f[0];
	*version = f[1];
	*py = f[n - 3];
	*abi = f[n - 2];
	*plat = f[n - 1];
	return 0;
}

/* A wheel file name (its URL's last segment, %-escapes read) fits the target: one of its tags each for the
 * interpreter, the ABI and the platform. */
static int wheel_fits(const char *url, const struct lock_target *t)
{
	const char *slash = strrchr(url, '/');
	char *file = pct_decode(xstrdup(slash ? slash + 1 : url)), *name, *ver, *py, *abi, *plat;
	int ok;

	ok = wheel_split(file, &name, &ver, &py, &abi, &plat) == 0 && any_tag(py, py_ok, t) && any_tag(abi, abi_ok, t) &&
	     any_tag(plat, plat_ok, t);
	free(file);
	return ok;
}

/* ---- choosing the version -------------------------------------------------------------------------------------- */

struct cand {
	char *version;
	struct pep440 v;
};

/* How well a build's local label suits the target: 2 its accelerator, 1 no label, 0 another label that names no
 * accelerator (a commit hash), -1 another accelerator's build. */
static int local_rank(const struct pep440 *v, const struct lock_target *t)
{
	if (!strcmp(v->local, t->accelerator))
		return 2;
	if (!v->local[0])
		return 1;
	return accel_like(v->local) ? -1 : 0;
}

/* A .devN that is a date, YYYYMMDD (PyTorch's nightlies): N, else 0. */
static long dev_date(const struct pep440 *v)
{
	long y = v->dev / 10000, m = v->dev / 100 % 100, d = v->dev % 100;

	return v->has_dev && y >= 2000 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= 31 ? v->dev : 0;
}

int lock_today(char out[11])
{
	const char *fixed = getenv("BENCH_TODAY"), *sde = getenv("SOURCE_DATE_EPOCH");
	time_t now = sde && *sde ? (time_t)atoll(sde) : time(NULL);
	struct tm tm;

	if (fixed && *fixed) {
		if (!manifest_date_ok(fixed))
			return bench_error_set(BENCH_E_FAIL, "BENCH_TODAY must be a date YYYY-MM-DD, got '%s'", fixed);
		memcpy(out, fixed, 11);
		return 0;
	}
	if (!gmtime_r(&now, &tm)) {
		return bench_error_set(BENCH_E_FAIL, "cannot tell today's date (SOURCE_DATE_EPOCH '%s')", sde ? sde : "");
	}
	if (strftime(out, 11, "%Y-%m-%d", &tm) != 10)
		return bench_error_set(BENCH_E_FAIL, "cannot tell today's date");
	return 0;
}

/* What lock_pip() looks for on one index page, and the candidates found there. */
struct pip_query {
	const char *name, *version, *date;
	const struct lock_target *t;
	char *norm;         /* name, PEP 503 normalised */
	int newest;         /* version latest, or nightly without a date: the newest (a final release where one fits) */
	int last_night;     /* nightly of date latest: the newest night, then as newest */
	int dated;          /* nightly of a date: the .devYYYYMMDD of that day (dkey) */
	int exact;          /* a version asked for by number (want) */
	long dkey;
	struct pep440 want;
	struct cand *cands; /* the versions with a wheel for the target, in page order */
	size_t ncands;
	int any_final;      /* one of them is a final release */
	struct strbuf seen; /* exact: the builds of that number the page has, for the message when none fits */
};

/* Reads the PEP 503 page at *url into page; a local index (file:///DIR, a wheel directory laid out as PEP 503)
 * serves each page as index.html, which *url then names. */
static int index_page_read(struct strbuf *page, char **url)
{
	CURL *c = curl_easy_init();
	long code = 0;
	int err = 0;

	if (!strncmp(*url, "file://", 7) && (*url)[strlen(*url) - 1] == '/') {
		char *u = xstrfmt("%sindex.html", *url);

		free(*url);
		*url = u;
	}
	curl_easy_setopt(c, CURLOPT_URL, *url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, page);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
	if (curl_easy_perform(c) != CURLE_OK || (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code),
						 code != 200 && !(code == 0 && !strncmp(*url, "file://", 7))))
		err = bench_error_set(BENCH_E_RESOLVE, "cannot read the package index page %s (HTTP %ld)", *url, code);
	curl_easy_cleanup(c);
	return err;
}

/* One wheel of the page (its file name, split in place): a candidate when it is q's package and fits the target. */
static void page_wheel(struct pip_query *q, const char *href, char *file)
{
	char *wn, *wv, *py, *abi, *plat, *wnorm;
	struct pep440 v;

	if (wheel_split(file, &wn, &wv, &py, &abi, &plat) < 0 || !(wnorm = normalise(wn)))
		return;
	if (!strcmp(wnorm, q->norm) && pep440_parse(&v, wv) == 0) {
		if (q->exact && !pep440_cmp(&v, &q->want, 0) && !strstr(q->seen.buf ? q->seen.buf : "", wv) &&
		    q->seen.len < 200)
			strbuf_addf(&q->seen, "%s%s", q->seen.len ? ", " : "", wv);
		if (wheel_fits(href, q->t)) {
			q->cands = xrealloc(q->cands, (q->ncands + 1) * sizeof(*q->cands));
			q->cands[q->ncands].v = v;
			q->cands[q->ncands++].version = xstrdup(wv);
			q->any_final |= v.pre_kind < 0 && !v.has_dev;
		}
	}
	free(wnorm);
}

/* every <a href="...file.whl#sha256=HEX">: the versions with a wheel for the target */
static void page_candidates(struct pip_query *q, const char *page)
{
	const char *p;

	for (p = page; (p = strstr(p, "href=\"")); p++) {
		const char *h = p + 6, *e = strchr(h, '"');
		char *href, *file;

		if (!e)
			break;
		href = xstrndup(h, (size_t)(e - h));
		href[strcspn(href, "#")] = '\0';
		file = pct_decode(xstrdup(strrchr(href, '/') ? strrchr(href, '/') + 1 : href));
		page_wheel(q, href, file);
		free(file);
		free(href);
	}
}

/* The candidate q asks for, or NULL. */
static struct cand *best_candidate(const struct pip_query *q)
{
	const struct lock_target *t = q->t;
	struct cand *best = NULL;

	for (size_t i = 0; i < q->ncands; i++) {
		struct cand *k = &q->cands[i];
		int rank = local_rank(&k->v, t);

		if (q->newest && (rank < 0 || (q->any_final && (k->v.pre_kind >= 0 || k->v.has_dev))))
			continue;
		if (q->dated && (rank < 0 || !k->v.has_dev || k->v.dev != q->dkey))
			continue;
		if (q->last_night && (rank < 0 || !dev_date(&k->v)))
			continue;
		if (q->last_night && best && dev_date(&k->v) != dev_date(&best->v)) { /* the newest night first */
			if (dev_date(&k->v) > dev_date(&best->v))
				best = k;
			continue;
		}
		if (q->exact && (pep440_cmp(&k->v, &q->want, 0) ||
				 (q->want.local[0] ? strcmp(k->v.local, q->want.local) : rank < 0)))
			continue;
		/* the newest public version; within it the target's own build, then the newest label */
		if (!best) {
			best = k;
		} else {
			int r = pep440_cmp(&k->v, &best->v, 0);

			if (r > 0 || (!r && (rank > local_rank(&best->v, t) ||
					     (rank == local_rank(&best->v, t) && pep440_cmp(&k->v, &best->v, 1) > 0))))
				best = k;
		}
	}
	return best;
}

int lock_pip(char **out_version, char out_date[11], const char *index, const char *name, const char *version,
	     const char *date, const struct lock_target *t)
{
	struct pip_query q = { .name = name, .version = version, .date = date, .t = t, .seen = STRBUF_INIT };
	struct strbuf page = STRBUF_INIT;
	char *url = NULL;
	struct cand *best;
	int err = 0;

	*out_version = NULL;
	if (out_date)
		out_date[0] = '\0';
	q.norm = normalise(name);
	url = xstrfmt("%s%s%s/", index, index[strlen(index) - 1] == '/' ? "" : "/", q.norm);
	q.newest = !strcmp(version, "latest") || (!strcmp(version, "nightly") && !date);
	q.last_night = !strcmp(version, "nightly") && date && !strcmp(date, "latest");
	q.dated = !strcmp(version, "nightly") && date && !q.last_night;
	q.exact = !q.newest && !q.dated && !q.last_night;
	if (q.dated)
		q.dkey = atol(date) * 10000 + atol(date + 5) * 100 + atol(date + 8);
	if (q.exact && pep440_parse(&q.want, version) < 0) {
		err = bench_error_set(BENCH_E_RESOLVE, "'%s' is not a version (PEP 440), 'nightly' or 'latest' (pip component "
				      "'%s')", version, name);
		goto cleanup;
	}
	if ((err = index_page_read(&page, &url)) < 0)
		goto cleanup;
	page_candidates(&q, page.buf);
	if ((best = best_candidate(&q))) {
		/* (unsigned: at -O0 gcc cannot see the digits' bounds of a long) */
		unsigned long dd = out_date ? (unsigned long)dev_date(&best->v) : 0;

		*out_version = xstrdup(best->version);
		if (dd)
			snprintf(out_date, 11, "%04lu-%02lu-%02lu", dd / 10000 % 10000, dd / 100 % 100, dd % 100);
	} else {
		err = bench_error_set(BENCH_E_RESOLVE, "no wheel of %s %s%s%s for %s %s %s (accelerator %s) on %s%s%s%s", name,
				      version, date ? " of " : "", date ? date : "", t->pytag, t->abi, t->platform,
				      t->accelerator, url, q.seen.len ? " (it has " : "", q.seen.len ? q.seen.buf : "",
				      q.seen.len ? ")" : "");
	}
cleanup:
	for (size_t i = 0; i < q.ncands; i++)
		free(q.cands[i].version);
	free(q.cands);
	strbuf_release(&page);
	strbuf_release(&q.seen);
	free(q.norm);
	free(url);
	return err;
}

/* ---- the closure, by pip's resolver ------------------------------------------------------------------------------ */

/* Run as python3 -c PIP_SHIM PYTHON_VERSION ARCH pip-arguments...: pip's own resolver, with the environment
 * markers of Requires-Dist evaluated for the target (pip evaluates them for the interpreter running it, whatever
 * --python-version says). Exit 3 where this python has no pip. */
static const char PIP_SHIM[] =
	"import sys\n"
	"try:\n"
	"    from pip._vendor.packaging import markers\n"
	"    from pip._internal.cli.main import main\n"
	"except ImportError as e:\n"
	"    sys.stderr.write('bench-lock: no pip: %s\\n' % e)\n"
	"    sys.exit(3)\n"
	"v, arch = sys.argv[1], sys.argv[2]\n"
	"env = markers.default_environment()\n"
	"env.update(python_version=v, python_full_version=v + '.0', implementation_version=v + '.0',\n"
	"           platform_machine=arch, platform_system='Linux', sys_platform='linux', os_name='posix',\n"
	"           implementation_name='cpython', platform_python_implementation='CPython')\n"
	"markers.default_environment = lambda: dict(env)\n"
	"sys.exit(main(sys.argv[3:]))\n";

static void push_all(struct strvec *sv, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}

static int keep_line(void *ctx, const char *line, size_t len)
{
	struct strbuf *sb = ctx;

	if (sb->len < (256u << 10)) {
		strbuf_add(sb, line, len);
		strbuf_addch(sb, '\n');
	}
	return 0;
}

static int cmp_pkg(const void *a, const void *b)
{
	char *x = normalise(json_string_value(json_object_get(*(json_t *const *)a, "name")));
	char *y = normalise(json_string_value(json_object_get(*(json_t *const *)b, "name")));
	int r = strcmp(x, y);

	free(x);
	free(y);
	return r;
}

/* One run of pip's resolver for lock_pip_closure(): what it is asked, its temporary directory, its output. */
struct pip_run {
	const char *index, *name, *version;
	const struct lock_target *t;
	char dir[sizeof("/tmp/bench-lock-XXXXXX")];
	int made;      /* dir exists */
	char *python;
	char *report;  /* dir/report.json: pip's installation report */
	char *target;  /* dir/target: pip wants --target with --platform; --dry-run writes nothing there */
	char *req;     /* NAME==VERSION */
	struct strbuf log;
};

/* python3 and the temporary directory */
static int pip_run_start(struct pip_run *p)
{
	if (!(p->python = spawn_which("python3")))
		return bench_error_set(BENCH_E_FAIL, "locking pip component '%s' needs python3 with pip 22.2 or newer (pip's "
				       "resolver gives the closure): install python3-pip", p->name);
	snprintf(p->dir, sizeof(p->dir), "/tmp/bench-lock-XXXXXX");
	if (!mkdtemp(p->dir))
		return bench_error_set(BENCH_E_IO, "cannot make a temporary directory in /tmp");
	p->made = 1;
	p->report = xstrfmt("%s/report.json", p->dir);
	p->target = xstrfmt("%s/target", p->dir);
	p->req = xstrfmt("%s==%s", p->name, p->version);
	return 0;
}

static void pip_run_release(struct pip_run *p)
{
	if (p->made) {
		if (p->report)
			unlink(p->report);
		if (p->target)
			rmdir(p->target);
		rmdir(p->dir);
	}
	strbuf_release(&p->log);
	free(p->python);
	free(p->report);
	free(p->target);
	free(p->req);
}

/* pip install --dry-run --report for the target, through PIP_SHIM */
static void pip_run_argv(struct strvec *av, const struct pip_run *p)
{
	const struct lock_target *t = p->t;
	struct pep440 v;

	push_all(av, p->python, "-c", PIP_SHIM, t->python, t->arch, "install", "--isolated", "--no-input",
		     "--no-cache-dir", "--disable-pip-version-check", "--dry-run", "--ignore-installed", "--target", p->target,
		     "--report", p->report, "--only-binary=:all:", "--implementation", "cp", "--python-version", t->python,
		     "--abi", t->abi, "--index-url", p->index, NULL);
	for (size_t i = 0; i < t->nplatforms; i++)
		push_all(av, "--platform", t->platforms[i], NULL);
	if (pep440_parse(&v, p->version) == 0 && (v.pre_kind >= 0 || v.has_dev))
		strvec_push(av, "--pre"); /* a nightly's own requirements may be nightlies too */
	strvec_push(av, p->req);
}

/* Runs pip's resolver; its report in *rep (a new reference), or an error with pip's reason. */
static int pip_run_resolve(json_t **rep, struct pip_run *p)
{
	const struct lock_target *t = p->t;
	struct strvec av = STRVEC_INIT;
	struct spawn_opts o;
	struct spawn_result r;
	json_error_t je;
	int err = 0;

	pip_run_argv(&av, p);
	memset(&o, 0, sizeof(o));
	o.argv = strvec_argv(&av);
	o.stderr_fd = -1;
	o.stderr_to_stdout = 1;
	o.on_line = keep_line;
	o.ctx = &p->log;
	o.max_line = 4096;
	o.timeout_s = 900;
	if (spawn_run(&r, &o) < 0) {
		err = bench_error_set(BENCH_E_FAIL, "cannot run '%s' for pip component '%s'", p->python, p->name);
	} else if (r.end == SPAWN_EXITED && r.exit_code == 3 && strstr(p->log.buf ? p->log.buf : "", "bench-lock: no pip")) {
		err = bench_error_set(BENCH_E_FAIL, "'%s' has no pip; locking pip component '%s' needs pip 22.2 or newer "
				      "(pip's resolver gives the closure): install python3-pip", p->python, p->name);
	} else if (r.end != SPAWN_EXITED || r.exit_code != 0 || !(*rep = json_load_file(p->report, 0, &je))) {
		/* pip's reason: its last ERROR line */
		const char *why = NULL, *q;

		for (q = p->log.buf; q && (q = strstr(q, "ERROR: ")); q++)
			why = q + 7;
		err = bench_error_set(BENCH_E_RESOLVE, "pip cannot resolve %s for %s %s %s from %s: %.*s", p->req, t->pytag,
				      t->abi, t->platform, p->index, why ? (int)strcspn(why, "\n") : 40,
				      why ? why : (r.end == SPAWN_EXITED ? "no report written" : "pip did not finish"));
	}
	strvec_release(&av);
	return err;
}

/* The packages of pip's report, [{"name", "version", "url", "sha256"}], each a wheel for the target. */
static int closure_of_report(json_t **out, const json_t *rep, const struct pip_run *p)
{
	const struct lock_target *t = p->t;
	json_t *pkgs = json_array(), *item;
	size_t i;
	int err = 0;

	json_array_foreach(json_object_get(rep, "install"), i, item) {
		json_t *di = json_object_get(item, "download_info"), *ai = json_object_get(di, "archive_info");
		const char *pn = json_string_value(json_object_get(json_object_get(item, "metadata"), "name"));
		const char *pv = json_string_value(json_object_get(json_object_get(item, "metadata"), "version"));
		const char *url = json_string_value(json_object_get(di, "url"));
		const char *sha = json_string_value(json_object_get(json_object_get(ai, "hashes"), "sha256"));
		const char *legacy = json_string_value(json_object_get(ai, "hash"));

		if (!sha && legacy && !strncmp(legacy, "sha256=", 7))
			sha = legacy + 7;
		if (!pn || !pv || !url || !sha || strlen(sha) != 64) {
			err = bench_error_set(BENCH_E_RESOLVE, "pip's report for %s lists a package without name, version, URL "
					      "and sha256 (item %zu)", p->req, i + 1);
			goto cleanup;
		}
		if (!wheel_fits(url, t)) {
			err = bench_error_set(BENCH_E_RESOLVE, "pip chose %s for %s, which is not a wheel for %s %s %s", url, pn,
					      t->pytag, t->abi, t->platform);
			goto cleanup;
		}
		json_array_append_new(pkgs, json_pack("{s:s, s:s, s:s, s:s}", "name", pn, "version", pv, "url", url,
						      "sha256", sha));
	}
	jsonarray_sort(pkgs, cmp_pkg); /* by normalised name: the same bytes whatever order pip reported in */
	*out = pkgs;
	pkgs = NULL;
cleanup:
	json_decref(pkgs);
	return err;
}

int lock_pip_closure(json_t **out, const char *index, const char *name, const char *version,
		     const struct lock_target *t)
{
	struct pip_run p = { .index = index, .name = name, .version = version, .t = t, .log = STRBUF_INIT };
	json_t *rep = NULL;
	int err = 0;

	*out = NULL;
	if ((err = pip_run_start(&p)) < 0 || (err = pip_run_resolve(&rep, &p)) < 0)
		goto cleanup;
	err = closure_of_report(out, rep, &p);
cleanup:
	json_decref(rep);
	pip_run_release(&p);
	return err;
}

/* The package of the closure pkgs named name (PEP 503 normalised), or NULL. */
json_t *lock_closure_find(json_t *pkgs, const char *name)
{
	char *want = normalise(name);
	json_t *found = NULL, *p;
	size_t i;

	json_array_foreach(pkgs, i, p) {
		char *pn = normalise(json_string_value(json_object_get(p, "name")));

		if (!strcmp(pn, want))
			found = p;
		free(pn);
		if (found)
			break;
	}
	free(want);
	return found;
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

/* A base already pinned by digest (NAME@sha256:<64 hex>) is immutable: its digest is its pin, asked of no one. */
static int digest_in_ref(char *out, size_t len, const char *ref)
{
	const char *at = strstr(ref, "@sha256:");

	if (!at || strlen(at + 8) != 64 || strspn(at + 8, "0123456789abcdef") != 64)
		return 0;
	snprintf(out, len, "%s", at + 1);
	return 1;
}

struct pip_pin {
	const struct component *c;
	char *version;         /* the exact version, local label included */
	const char *pinned_by; /* the component whose closure set it (a nightly companion), or NULL */
	char *why;             /* why its own reference did not resolve (a nightly companion, until pinned) */
	json_t *pkgs;          /* its closure, sorted by name, itself included */
	char day[11];          /* the YYYY-MM-DD 'date: today' stands for this time, else "" */
	char date[11];         /* the date of the nightly chosen (its .devYYYYMMDD), else "" */
};

static int is_moving(const struct component *c)
{
	return !strcmp(c->pip, "nightly") || !strcmp(c->pip, "latest");
}

/* Each pip component's version, chosen on its index for the target (lock_pip); a nightly or latest one that does
 * not resolve keeps the reason in why (perhaps a companion that another closure pins). */
static int pips_choose(struct pip_pin *pins, size_t *np, const struct manifest *m, const struct lock_target *t)
{
	int err = 0;

	for (size_t i = 0; i < m->stack.ncomponents; i++) {
		const struct component *c = &m->stack.components[i];
		struct pip_pin *p;

		if (c->source != SOURCE_PIP)
			continue;
		p = &pins[(*np)++];
		p->c = c;
		if (!c->index)
			return bench_error_set(BENCH_E_RESOLVE, "pip component '%s' needs an 'index' to be locked", c->name);
		if (c->date && !strcmp(c->date, "today") && (err = lock_today(p->day)) < 0)
			return err;
		if ((err = lock_pip(&p->version, p->date, c->index, c->name, c->pip, p->day[0] ? p->day : c->date, t)) < 0) {
			if (!is_moving(c))
				return err;
			p->why = xstrdup(bench_error_last()); /* perhaps a companion: another closure may pin it */
			err = 0;
		}
	}
	return 0;
}

/* A nightly or latest component that another's closure holds is pinned to the version that closure needs (a
 * nightly companion such as pytorch-triton, versioned by a commit, not a date). */
static int pips_pin_companions(struct pip_pin *pins, size_t np, const struct lock_target *t)
{
	int err = 0;

	for (size_t i = 0; i < np; i++) {
		struct pip_pin *x = &pins[i];

		if (!is_moving(x->c))
			continue;
		for (size_t k = 0; k < np; k++) {
			json_t *need = k != i && pins[k].pkgs && !pins[k].pinned_by ? lock_closure_find(pins[k].pkgs, x->c->name)
										    : NULL;
			const char *v = json_string_value(json_object_get(need, "version"));

			if (!v)
				continue;
			if (!x->version || strcmp(x->version, v)) {
				free(x->version);
				x->version = xstrdup(v);
				json_decref(x->pkgs);
				x->pkgs = NULL;
				if ((err = lock_pip_closure(&x->pkgs, x->c->index, x->c->name, v, t)) < 0)
					return err;
			}
			x->pinned_by = pins[k].c->name;
			break;
		}
		if (!x->version)
			return bench_error_set(BENCH_E_RESOLVE, "%s; no other component requires %s", x->why, x->c->name);
	}
	return 0;
}

/* one version of each package in the image: the same file from two indexes is one build */
static int pips_check_one_build(const struct pip_pin *pins, size_t np)
{
	for (size_t a = 0; a < np; a++)
		for (size_t b = a + 1; b < np; b++) {
			json_t *pa;
			size_t k;

			json_array_foreach(pins[a].pkgs, k, pa) {
				json_t *pb = lock_closure_find(pins[b].pkgs, json_string_value(json_object_get(pa, "name")));

				if (pb && !json_equal(json_object_get(pa, "sha256"), json_object_get(pb, "sha256")))
					return bench_error_set(BENCH_E_RESOLVE, "pip components '%s' and '%s' need different "
							       "builds of %s: %s and %s", pins[a].c->name, pins[b].c->name,
							       json_string_value(json_object_get(pa, "name")),
							       json_string_value(json_object_get(pa, "version")),
							       json_string_value(json_object_get(pb, "version")));
			}
		}
	return 0;
}

/* "bench: lock: NAME: ..." lines: the version chosen and why, then its closure */
static void pip_pin_report(FILE *progress, const struct pip_pin *p, const char *url, const char *sha)
{
	char *file = pct_decode(xstrdup(strrchr(url, '/') ? strrchr(url, '/') + 1 : url));

	if (p->pinned_by)
		fprintf(progress, "bench: lock: %s: pinned by %s's requirement -> %s (%s, sha256 %.16s...)\n", p->c->name,
			p->pinned_by, p->version, file, sha);
	else if (p->c->date && (!strcmp(p->c->date, "today") || !strcmp(p->c->date, "latest")))
		fprintf(progress, "bench: lock: %s: pip %s of %s (%s) -> %s (%s, sha256 %.16s...)\n", p->c->name,
			p->c->pip, p->c->date, p->date, p->version, file, sha);
	else
		fprintf(progress, "bench: lock: %s: pip %s%s%s -> %s (%s, sha256 %.16s...)\n", p->c->name, p->c->pip,
			p->c->date ? " of " : "", p->c->date ? p->c->date : "", p->version, file, sha);
	fprintf(progress, "bench: lock: %s: %zu package%s:", p->c->name, json_array_size(p->pkgs),
		json_array_size(p->pkgs) == 1 ? "" : "s");
	for (size_t k = 0; k < json_array_size(p->pkgs); k++)
		fprintf(progress, " %s==%s", json_string_value(json_object_get(json_array_get(p->pkgs, k), "name")),
			json_string_value(json_object_get(json_array_get(p->pkgs, k), "version")));
	fputc('\n', progress);
	free(file);
}

/* p's entry of the lock's components (and its lines on progress when not NULL) */
static int pip_pin_write(json_t *comps, const struct pip_pin *p, FILE *progress)
{
	json_t *own = lock_closure_find(p->pkgs, p->c->name), *e;
	const char *url = json_string_value(json_object_get(own, "url"));
	const char *sha = json_string_value(json_object_get(own, "sha256"));

	if (!own)
		return bench_error_set(BENCH_E_RESOLVE, "pip's resolution of %s==%s does not list %s itself", p->c->name,
				       p->version, p->c->name);
	e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O}", "source", "pip", "index", p->c->index, "version", p->version,
		      "url", url, "sha256", sha, "packages", p->pkgs);
	if (p->c->date)
		json_object_set_new(e, "date", json_string(p->c->date));
	if (p->c->date && p->date[0] && !p->pinned_by) /* the nightly it stood for this time */
		json_object_set_new(e, "date_resolved", json_string(p->date));
	if (p->pinned_by)
		json_object_set_new(e, "pinned_by", json_string(p->pinned_by));
	json_object_set_new(comps, p->c->name, e);
	if (progress)
		pip_pin_report(progress, p, url, sha);
	return 0;
}

/* Every pip component: its version chosen on its index for the target (lock_pip), its closure by pip's resolver;
 * a nightly or latest component that another's closure holds is pinned to the version that closure needs (a
 * nightly companion such as pytorch-triton, versioned by a commit, not a date); two closures that pin one package
 * differently are an error naming both. */
static int lock_pips(json_t *lock, json_t *comps, const struct manifest *m, FILE *progress)
{
	struct lock_target t;
	struct pip_pin *pins = NULL;
	size_t np = 0;
	int err = 0;

	for (size_t i = 0; i < m->stack.ncomponents; i++)
		np += m->stack.components[i].source == SOURCE_PIP;
	if (!np)
		return 0;
	if ((err = lock_target_load(&t, m)) < 0)
		return err;
	if (progress)
		fprintf(progress, "bench: lock: wheels for python %s (%s, abi %s), %s, accelerator %s\n", t.python, t.pytag,
			t.abi, t.platform, t.accelerator);
	pins = xcalloc(np, sizeof(*pins));
	np = 0;
	if ((err = pips_choose(pins, &np, m, &t)) < 0)
		goto cleanup;
	for (size_t i = 0; i < np; i++)
		if (pins[i].version && (err = lock_pip_closure(&pins[i].pkgs, pins[i].c->index, pins[i].c->name,
							       pins[i].version, &t)) < 0)
			goto cleanup;
	if ((err = pips_pin_companions(pins, np, &t)) < 0 || (err = pips_check_one_build(pins, np)) < 0)
		goto cleanup;
	for (size_t i = 0; i < np; i++)
		if ((err = pip_pin_write(comps, &pins[i], progress)) < 0)
			goto cleanup;
	json_object_set_new(lock, "wheel_target", json_pack("{s:s, s:s, s:s, s:s}", "python", t.python, "abi", t.abi,
							    "platform", t.platform, "accelerator", t.accelerator));
cleanup:
	for (size_t i = 0; i < np; i++) {
		free(pins[i].version);
		free(pins[i].why);
		json_decref(pins[i].pkgs);
	}
	free(pins);
	lock_target_release(&t);
	return err;
}

/* A path component: the shared libraries its prefix provides (libscan_dir: soname, file, sha256), all of them or
 * those its 'libs' patterns name; a prefix that changes under the same path is then a moved pin. */
static int lock_path(json_t **out, const struct component *c, FILE *progress)
{
	json_t *libs = NULL, *l;
	struct stat sb;
	char real[PATH_MAX];
	size_t i;
	int err;

	*out = NULL;
	if (stat(c->path, &sb) != 0 || !S_ISDIR(sb.st_mode) || !realpath(c->path, real))
		return bench_error_set(BENCH_E_RESOLVE, "component '%s': path '%s' %s", c->name, c->path,
				       errno == ENOENT ? "does not exist" : "is not a directory that can be read");
	if ((err = libscan_dir(&libs, c->path, c->libs, c->nlibs)) < 0)
		return err;
	if (!json_array_size(libs)) {
		json_decref(libs);
		return bench_error_set(BENCH_E_RESOLVE, "component '%s': path '%s' holds no shared library%s%s (looked in "
				       "its lib and lib64, else the directory itself)", c->name, c->path,
				       c->nlibs ? " matching " : "", c->nlibs ? c->libs[0] : "");
	}
	json_array_foreach(libs, i, l) /* the real path is the machine's business, not the pin's */
		json_object_del(l, "real");
	*out = json_pack("{s:s, s:s, s:o}", "source", "path", "path", c->path, "libs", libs);
	if (progress) {
		fprintf(progress, "bench: lock: %s: path %s -> %zu librar%s:", c->name, c->path, json_array_size(libs),
			json_array_size(libs) == 1 ? "y" : "ies");
		json_array_foreach(libs, i, l)
			if (i < 8)
				fprintf(progress, " %s (sha256 %.12s)", json_string_value(json_object_get(l, "soname")),
					json_string_value(json_object_get(l, "sha256")));
		fprintf(progress, "%s\n", i > 8 ? " ..." : "");
	}
	return 0;
}

/* Two path components that provide one soname: the loader would take whichever is first on LD_LIBRARY_PATH, and
 * the lock would pin a file the runners never load. Refused (a git component's prefix is checked when built). */
static int lock_one_provider(json_t *comps, const struct manifest *m)
{
	for (size_t a = 0; a < m->stack.ncomponents; a++)
		for (size_t b = a + 1; b < m->stack.ncomponents; b++) {
			json_t *la = json_object_get(json_object_get(comps, m->stack.components[a].name), "libs");
			json_t *lb = json_object_get(json_object_get(comps, m->stack.components[b].name), "libs"), *x, *y;
			size_t i, j;

			json_array_foreach(la, i, x)
				json_array_foreach(lb, j, y)
					if (json_equal(json_object_get(x, "soname"), json_object_get(y, "soname")))
						return bench_error_set(BENCH_E_MANIFEST, "components '%s' and '%s' both provide %s: "
								       "the runners would load only the first; narrow one with "
								       "'libs' or drop it", m->stack.components[a].name,
								       m->stack.components[b].name,
								       json_string_value(json_object_get(x, "soname")));
		}
	return 0;
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
		} else if (c->source == SOURCE_PATH) {
			err = lock_path(&e, c, progress);
		} else if (c->source == SOURCE_APT) {
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
	if (!err)
		err = lock_pips(lock, comps, m, progress);
	if (!err)
		err = lock_one_provider(comps, m);
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
	{ /* the bytes of file and native plug-ins (docs/plugins.md): a lock without any has no "plugins" */
		json_t *pins = NULL;

		if ((err = plugin_pins(&pins, m, m->path)) < 0) {
			json_decref(lock);
			return err;
		}
		if (json_object_size(pins)) {
			const char *k;
			json_t *v;

			json_object_foreach(pins, k, v)
				if (progress)
					fprintf(progress, "bench: lock: plugin %s: %s -> sha256 %s\n", k,
						json_string_value(json_object_get(v, "path")),
						json_string_value(json_object_get(v, "sha256")));
			json_object_set(lock, "plugins", pins);
		}
		json_decref(pins);
	}
	if (m->stack.base && m->runtime.engine != ENGINE_HOST) {
		char digest[128];
		int pinned = digest_in_ref(digest, sizeof(digest), m->stack.base);

		if (!pinned && (err = lock_image_digest(digest, sizeof(digest), m->stack.base)) < 0) {
			json_decref(lock);
			return err;
		}
		if (progress)
			fprintf(progress, "bench: lock: base %s -> %s%s\n", m->stack.base, digest,
				pinned ? " (pinned by digest in the manifest)" : "");
		json_object_set_new(lock, "base", json_pack("{s:s, s:s}", "ref", m->stack.base, "digest", digest));
		json_object_set_new(lock, "base_digest", json_string(digest));
	}
	*out = lock;
	return 0;
}

int lock_keep_unmoved(json_t *lock, json_t *old)
{
	json_t *a, *b;
	int same;

	if (!json_is_object(old) || !json_is_integer(json_object_get(old, "source_date_epoch")))
		return 0;
	a = json_deep_copy(lock);
	b = json_deep_copy(old);
	json_object_del(a, "source_date_epoch");
	json_object_del(b, "source_date_epoch");
	same = json_equal(a, b);
	json_decref(a);
	json_decref(b);
	if (same)
		json_object_set(lock, "source_date_epoch", json_object_get(old, "source_date_epoch"));
	return same;
}

int lock_write(const char *path, json_t *lock)
{
	char *tmp = xstrfmt("%s.tmp", path);
	int fd = fs_open_new(tmp, 0644); /* a link named like it is removed, never written through */
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int err = 0;

	if (fd >= 0 && !f)
		close(fd);
	if (!f || json_dumpf(lock, f, JSON_INDENT(2) | JSON_SORT_KEYS) != 0 || fputc('\n', f) == EOF || fclose(f) != 0 ||
	    rename(tmp, path) != 0)
		err = bench_error_set(BENCH_E_IO, "cannot write '%s'", path);
	free(tmp);
	return err;
}
