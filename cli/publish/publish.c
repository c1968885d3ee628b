/* SPDX-License-Identifier: Apache-2.0 */
#include "publish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "bundle/bundle.h"
#include "stats/compare.h"
#include "render/dashboard.h"
#include "render/html.h"
#include "bundle/sign.h"
#include "summary.h"

struct pub {
	const char *path;
	char *run, *keyid, *name, *channel, *rel;
	struct bundle_verify_result vr; /* open on the verified file: what is committed is what verified */
};

/* the paths written, relative to the repository: staged one by one (never whatever else lies there) */
struct written {
	char **v;
	size_t n, alloc;
};

static void written_add(struct written *w, const char *rel)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], rel))
			return;
	ALLOC_GROW(w->v, w->n + 1, w->alloc);
	w->v[w->n++] = xstrdup(rel);
}

static void written_release(struct written *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

/* a path component from inside a bundle: letters, digits, '.', '_', '-', '+' (not first); not "." or ".." */
static int safe_component(const char *s)
{
	if (!s || !*s || !strcmp(s, ".") || !strcmp(s, "..") || strlen(s) > 128 || *s == '+')
		return 0;
	for (; *s; s++) /* '+': a variant's stack and its runs are named NAME+VARIANT (docs/manifest-format.md) */
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' ||
		      *s == '-' || *s == '+'))
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

/* Opens the directory rel ("runs/<name>/<channel>") under the repository one component at a time, creating
 * what is missing, never through a symbolic link: a link anywhere on the way is refused. *out: a descriptor. */
static int open_dir_nofollow(int *out, int repofd, const char *repo, const char *rel)
{
	char *p = xstrdup(rel), *save = NULL, *c;
	int fd = dup(repofd), err = 0;

	*out = -1;
	for (c = strtok_r(p, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		struct stat st;
		int next;

		if (fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT && mkdirat(fd, c, 0777) < 0 && errno != EEXIST) {
			err = bench_error_set(BENCH_E_IO, "cannot create '%s/%s': %s", repo, rel, strerror(errno));
			break;
		}
		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			err = bench_error_set(BENCH_E_FAIL, "'%s' in '%s/%s' is %s; publish writes only inside the results "
					      "repository and refuses links there", c, repo, rel,
					      errno == ELOOP || errno == ENOTDIR ? "a symbolic link or not a directory" : strerror(errno));
			break;
		}
		close(fd);
		fd = next;
	}
	if (err && fd >= 0) {
		close(fd);
		fd = -1;
	}
	*out = fd;
	free(p);
	return err;
}

/* Writes bytes to dir/name through a temporary file beside it (never staged) and a rename; a link at name is
 * refused. */
static int write_at(int dirfd, const char *shown, const char *name, const void *buf, size_t len)
{
	char *tmp = xstrfmt(".%s.%ld.tmp", name, (long)getpid());
	struct stat st;
	int fd = -1, err = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
		err = bench_error_set(BENCH_E_FAIL, "'%s' is a symbolic link or not a file; publish refuses to write through it",
				      shown);
		goto cleanup;
	}
	unlinkat(dirfd, tmp, 0);
	if ((fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", shown, strerror(errno));
		goto cleanup;
	}
	for (size_t w = 0; w < len;) {
		ssize_t k = write(fd, (const char *)buf + w, len - w);

		if (k < 0) {
			err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", shown, strerror(errno));
			goto cleanup;
		}
		w += (size_t)k;
	}
	if (close(fd) < 0) {
		fd = -1;
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", shown, strerror(errno));
		goto cleanup;
	}
	fd = -1;
	if (renameat(dirfd, tmp, dirfd, name) < 0)
		err = bench_error_set(BENCH_E_IO, "cannot write '%s': %s", shown, strerror(errno));
cleanup:
	if (fd >= 0)
		close(fd);
	if (err)
		unlinkat(dirfd, tmp, 0);
	free(tmp);
	return err;
}

/* 1 when dir/name holds the bytes whose sha256 is sha */
static int same_digest(int dirfd, const char *name, const char *sha)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC); /* a FIFO put there since: not waited on */
	char got[65] = "";
	char *path;
	int same;

	if (fd < 0)
		return 0;
	path = xstrfmt("/proc/self/fd/%d", fd);
	same = fs_sha256_file(got, path) == 0 && !strcmp(got, sha);
	bench_error_clear();
	free(path);
	close(fd);
	return same;
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

/* ---- the summaries, verdicts and site: O(new) per publish ---------------------------------------------------
 *
 * summaries/<sha256>.json (+ .samples.json): each published run summarised once, when published (summary.h);
 * verdicts/<sha256 of machine, series, date>.json: compare's verdicts of a nightly date against the date before it
 * in its series, made when a run of that date (or of the date before it) is published. Both are committed, written
 * once. The site (site/) is generated into the work tree and kept out of the history (.git/info/exclude): the run
 * page of a run is written when it is published, the index and the dashboard (the last 90 days or more, from the
 * start of a quarter; archives/dashboard-YYYY-Qn.html for each quarter before it, written once) from the summaries. */

#define WINDOW_DAYS 90


/* The history: one entry per published run, its facts (run, bundle path, manifest name, channel, date, machine,
 * series) from summaries/index.jsonl, a line per summary (not committed: made from the summaries, rebuilt where it
 * is missing or does not name exactly the summaries there). A run's summary itself (its side) is parsed only when
 * needed: the dashboard's and the index's window, a verdict, an archive page written once. */
struct hist {
	struct compare_side *s; /* loaded[i]: parsed from its summary */
	unsigned char *loaded;
	size_t n, alloc;
	char (*date)[11];
	char **machine, **series, **run, **path, **name, **channel;
	long *day;
	char (*sha)[65]; /* the bundle's, the summary's name */
	int repofd;      /* the repository its files are read from (borrowed) */
	char *refused;   /* the first file of the repository refused (not a regular file, a link, too large): why */
};

#define HIST_INDEX "summaries/index.jsonl"
#define HIST_INDEX_FORMAT 1

static int site_add(const char *repo, int repofd, char *const *keys, const char *rel, const char *sha, struct written *w,
		    struct hist *h);

static const char *plan_channel(const struct compare_side *s)
{
	const char *c = json_string_value(json_object_get(s->plan, "channel"));

	return c ? c : "";
}

static void hist_unload(struct hist *h, size_t i)
{
	if (h->loaded[i])
		compare_side_release(&h->s[i]);
	memset(&h->s[i], 0, sizeof(h->s[i]));
	h->loaded[i] = 0;
}

static void hist_release(struct hist *h)
{
	for (size_t i = 0; i < h->n; i++) {
		hist_unload(h, i);
		free(h->machine[i]);
		free(h->series[i]);
		free(h->run[i]);
		free(h->path[i]);
		free(h->name[i]);
		free(h->channel[i]);
	}
	free(h->s);
	free(h->loaded);
	free(h->date);
	free(h->machine);
	free(h->series);
	free(h->run);
	free(h->path);
	free(h->name);
	free(h->channel);
	free(h->day);
	free(h->sha);
	free(h->refused);
	memset(h, 0, sizeof(*h));
}

static long day_of(const char *date)
{
	int y = 1970, m = 1, d = 1;
	long yy;
	unsigned mm, dd, yoe, doy, doe;
	long era;

	sscanf(date, "%4d-%2d-%2d", &y, &m, &d);
	yy = y - (m <= 2), mm = (unsigned)m, dd = (unsigned)d;
	era = (yy >= 0 ? yy : yy - 399) / 400;
	yoe = (unsigned)(yy - era * 400);
	doy = (153 * (mm + (mm > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

#define SUMMARY_MAX_FILE ((size_t)1 << 30) /* a summary or its samples, as the index */
#define VERDICT_MAX_FILE ((size_t)16 << 20)

/* The JSON document rel ("summaries/<sha256>.json") of the repository, read as a file bench did not create: its
 * directory opened from the repository without following a link, the file without blocking (a FIFO), not through a
 * link, regular and of at most max bytes. NULL when it is absent or not JSON (as it always was); when it is there
 * but refused, the first such refusal is kept in h->refused (publish fails with it: hist_refusal()). */
static json_t *load_json(struct hist *h, const char *repo, const char *rel, size_t max)
{
	const char *slash = strrchr(rel, '/');
	char *dir = xstrndup(rel, (size_t)(slash - rel)), *shown = xstrfmt("%s/%s", repo, rel), *buf = NULL;
	size_t len = 0;
	int dfd = openat(h->repofd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), e = errno;
	json_t *j = NULL;
	int err;

	if (dfd < 0 && e != ENOENT && !h->refused)
		h->refused = xstrfmt("'%s/%s' is %s", repo, dir, e == ELOOP || e == ENOTDIR ? "a symbolic link or not a "
				     "directory" : strerror(e));
	errno = 0;
	if (dfd >= 0 && (err = fs_read_file_at(&buf, &len, dfd, slash + 1, shown, max, O_NOFOLLOW)) < 0) {
		if ((err == BENCH_E_MANIFEST || errno != ENOENT) && !h->refused)
			h->refused = xstrdup(bench_error_last());
	} else if (buf) {
		j = json_loadb(buf, len, JSON_DECODE_ANY, NULL);
	}
	bench_error_clear();
	if (dfd >= 0)
		close(dfd);
	free(buf);
	free(shown);
	free(dir);
	return j;
}

/* the refusal load_json() kept, as publish's error (a results repository holding a FIFO, a link or a huge file
 * where a summary or a verdict should be is refused as a link anywhere in it is) */
static int hist_refusal(const struct hist *h)
{
	if (!h->refused)
		return 0;
	return bench_error_set(BENCH_E_FAIL, "%s; publish reads only regular files in the results repository, never through "
			       "a link; remove it (git restores a committed one), then try again", h->refused);
}

static const char *jget(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* A run's line of the summaries index: its facts, keyed by its bundle's sha256 */
static json_t *hist_facts_of_side(const struct compare_side *s, const char *sha)
{
	char date[11], *series = NULL;
	const char *machine;
	json_t *o;

	dashboard_run_facts(date, &machine, &series, s);
	o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "v", HIST_INDEX_FORMAT, "sha256", sha, "run", s->label,
		      "path", s->path ? s->path : "", "name", jget(s->plan, "name"), "channel", jget(s->plan, "channel"),
		      "date", date, "machine", machine, "series", series);
	free(series);
	return o;
}

/* one more run in the history, from its facts (f, a line of the index); side: its summary parsed, or NULL */
static int hist_push_facts(struct hist *h, json_t *f, struct compare_side *side)
{
	const char *sha = jget(f, "sha256"), *date = jget(f, "date");

	if (json_integer_value(json_object_get(f, "v")) != HIST_INDEX_FORMAT || strlen(sha) != 64 || strlen(date) != 10 ||
	    !safe_component(jget(f, "run")) || !json_is_string(json_object_get(f, "machine")) ||
	    !json_is_string(json_object_get(f, "series")))
		return -1;
	if (h->n == h->alloc) {
		h->alloc = h->alloc ? 2 * h->alloc : 64;
		h->s = xrealloc(h->s, h->alloc * sizeof(*h->s));
		h->loaded = xrealloc(h->loaded, h->alloc * sizeof(*h->loaded));
		h->date = xrealloc(h->date, h->alloc * sizeof(*h->date));
		h->machine = xrealloc(h->machine, h->alloc * sizeof(*h->machine));
		h->series = xrealloc(h->series, h->alloc * sizeof(*h->series));
		h->run = xrealloc(h->run, h->alloc * sizeof(*h->run));
		h->path = xrealloc(h->path, h->alloc * sizeof(*h->path));
		h->name = xrealloc(h->name, h->alloc * sizeof(*h->name));
		h->channel = xrealloc(h->channel, h->alloc * sizeof(*h->channel));
		h->day = xrealloc(h->day, h->alloc * sizeof(*h->day));
		h->sha = xrealloc(h->sha, h->alloc * sizeof(*h->sha));
	}
	memset(&h->s[h->n], 0, sizeof(h->s[h->n]));
	h->loaded[h->n] = 0;
	if (side) {
		h->s[h->n] = *side; /* owned from now on */
		h->loaded[h->n] = 1;
	}
	memcpy(h->date[h->n], date, 11);
	h->machine[h->n] = xstrdup(jget(f, "machine"));
	h->series[h->n] = xstrdup(jget(f, "series"));
	h->run[h->n] = xstrdup(jget(f, "run"));
	h->path[h->n] = xstrdup(jget(f, "path"));
	h->name[h->n] = xstrdup(jget(f, "name"));
	h->channel[h->n] = xstrdup(jget(f, "channel"));
	h->day[h->n] = day_of(date);
	memcpy(h->sha[h->n], sha, 65);
	h->n++;
	return 0;
}

/* one more run in the history, from its summary j (sha, the bundle's digest); *facts: its index line */
static int hist_push(struct hist *h, json_t *j, const char *sha, json_t **facts)
{
	struct compare_side side;
	json_t *f = NULL;
	int err = -1;

	if (summary_side_load(&side, j, NULL) == 0 && safe_component(side.label)) {
		f = hist_facts_of_side(&side, sha);
		if ((err = hist_push_facts(h, f, &side)) < 0)
			compare_side_release(&side);
	} else {
		compare_side_release(&side);
	}
	bench_error_clear();
	if (facts && !err)
		*facts = f;
	else
		json_decref(f);
	return err;
}

/* The side of run i: its summary parsed (without samples) when not yet; NULL when it cannot be read */
static const struct compare_side *hist_side(struct hist *h, const char *repo, size_t i)
{
	char *p;
	json_t *j;

	if (h->loaded[i])
		return h->s[i].records ? &h->s[i] : NULL;
	p = xstrfmt("summaries/%s.json", h->sha[i]);
	j = load_json(h, repo, p, SUMMARY_MAX_FILE);
	free(p);
	h->loaded[i] = 1;
	if (!j || summary_side_load(&h->s[i], j, NULL) < 0) {
		compare_side_release(&h->s[i]);
		memset(&h->s[i], 0, sizeof(h->s[i]));
	}
	bench_error_clear();
	json_decref(j);
	return h->s[i].records ? &h->s[i] : NULL;
}

/* 1 when repo/summaries is a directory of the repository itself (or not there yet): the index is written only
 * then, never through a link that leads out of the repository (publish refuses such a link later, by name) */
static int hist_dir_ok(const char *repo)
{
	char *d = xstrfmt("%s/summaries", repo);
	struct stat st;
	int ok = lstat(d, &st) != 0 ? errno == ENOENT : S_ISDIR(st.st_mode);

	free(d);
	return ok;
}

/* appends a run's facts to the index (a failed write is mended on the next load) */
static void hist_index_append(const char *repo, json_t *facts)
{
	char *p, *line;
	int fd;

	if (!hist_dir_ok(repo))
		return;
	p = xstrfmt("%s/%s", repo, HIST_INDEX);
	line = json_dumps(facts, JSON_SORT_KEYS | JSON_COMPACT);
	fd = fs_open_write(p, O_APPEND, 0644); /* not through a link, never blocking on a FIFO */

	if (fd >= 0) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s\n", line);
		if (write(fd, sb.buf, sb.len) != (ssize_t)sb.len)
			unlink(p); /* rebuilt from the summaries next time */
		strbuf_release(&sb);
		close(fd);
	}
	free(line);
	free(p);
}

/* every summary under repo/summaries, in the order of their names: facts from the index, which is rebuilt where it
 * does not name exactly these summaries (a summary without a line is parsed; a line without a summary dropped) */
static void hist_load(struct hist *h, const char *repo, int repofd)
{
	char **f = NULL, *dir = xstrfmt("%s/summaries", repo), *ipath = xstrfmt("%s/%s", repo, HIST_INDEX), *buf = NULL;
	size_t nf = list(&f, dir), len = 0, lines = 0;
	json_t *byn = json_object();
	int stale = 0;

	h->repofd = repofd;
	/* not through a link: the index is bench's own, and one that cannot be read is made again */
	if (fs_read_file_flags(&buf, &len, ipath, (size_t)1 << 30, O_NOFOLLOW) == 0) {
		for (char *s = buf, *e; s < buf + len; s = e + 1) {
			json_t *x;

			if (!(e = memchr(s, '\n', (size_t)(buf + len - s)))) {
				stale = 1; /* a line cut short */
				break;
			}
			lines++;
			if ((x = json_loadb(s, (size_t)(e - s), 0, NULL)) && strlen(jget(x, "sha256")) == 64 &&
			    !json_object_get(byn, jget(x, "sha256")))
				json_object_set_new(byn, jget(x, "sha256"), x);
			else
				stale = 1, json_decref(x);
		}
	} else {
		stale = 1;
	}
	bench_error_clear();
	free(buf);
	{
		size_t named = 0;

		for (size_t i = 0; i < nf; i++) {
			size_t l = strlen(f[i]);
			char sha[65];
			json_t *x;

			if (l != 64 + 5 || strcmp(f[i] + 64, ".json"))
				continue; /* <sha256>.json only: not the samples, not the index */
			memcpy(sha, f[i], 64);
			sha[64] = '\0';
			if ((x = json_object_get(byn, sha)) && hist_push_facts(h, x, NULL) == 0) {
				named++;
			} else {
				char *path = xstrfmt("summaries/%s", f[i]);
				json_t *j = load_json(h, repo, path, SUMMARY_MAX_FILE);

				free(path);
				stale = 1;
				if (j)
					hist_push(h, j, sha, NULL);
				json_decref(j);
			}
		}
		if (named != lines)
			stale = 1;
	}
	if (stale && hist_dir_ok(repo)) { /* written again, whole, in the order of the summaries' names */
		struct strbuf sb = STRBUF_INIT;
		char *tmp = xstrfmt("%s.%ld.tmp", ipath, (long)getpid());

		for (size_t i = 0; i < h->n; i++) {
			json_t *x = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "v", HIST_INDEX_FORMAT, "sha256", h->sha[i],
					      "run", h->run[i], "path", h->path[i], "name", h->name[i], "channel", h->channel[i],
					      "date", h->date[i], "machine", h->machine[i], "series", h->series[i]);
			char *line = json_dumps(x, JSON_SORT_KEYS | JSON_COMPACT);

			strbuf_addf(&sb, "%s\n", line);
			free(line);
			json_decref(x);
		}
		if (fs_write_file(tmp, sb.buf ? sb.buf : "", sb.len, 0644) < 0 || rename(tmp, ipath) < 0)
			unlink(tmp);
		bench_error_clear();
		strbuf_release(&sb);
		free(tmp);
	}
	json_decref(byn);
	free_list(f, nf);
	free(dir);
	free(ipath);
}

/* The verdicts of date against the date before it in the series of machine, from the samples of those runs;
 * written to verdicts/ (added to *w). Nothing when there is no date before it. */
static int verdict_store(const char *repo, int repofd, struct hist *h, const char *machine,
			 const char *series, const char *date, struct written *w)
{
	struct compare_opts co = { 0.02, 0.01, 2000, 1, NULL, NULL };
	const char *prev = "";
	struct compare_side *sd = NULL;
	size_t ns = 0, *a = NULL, *b = NULL, na = 0, nb = 0;
	int err = 0, vdir = -1;

	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->machine[i], machine) && !strcmp(h->series[i], series) && strcmp(h->date[i], date) < 0 &&
		    strcmp(h->date[i], prev) > 0)
			prev = h->date[i];
	if (!*prev)
		return 0;
	sd = xcalloc(h->n, sizeof(*sd));
	a = xcalloc(h->n, sizeof(*a));
	b = xcalloc(h->n, sizeof(*b));
	for (size_t i = 0; i < h->n; i++) {
		int isa = !strcmp(h->date[i], prev), isb = !strcmp(h->date[i], date);
		const char *sha = h->sha[i];
		char *sp, *pp;
		json_t *sum, *smp;

		if (!(isa || isb) || strcmp(h->machine[i], machine) || strcmp(h->series[i], series))
			continue;
		sp = xstrfmt("summaries/%s.json", sha);
		pp = xstrfmt("summaries/%s.samples.json", sha);
		sum = load_json(h, repo, sp, SUMMARY_MAX_FILE);
		smp = load_json(h, repo, pp, SUMMARY_MAX_FILE);
		if (sum && summary_side_load(&sd[ns], sum, smp) == 0) {
			if (isa)
				a[na++] = ns;
			else
				b[nb++] = ns;
			ns++;
		}
		bench_error_clear();
		json_decref(sum);
		json_decref(smp);
		free(sp);
		free(pp);
	}
	if (na && nb) {
		json_t *v = dashboard_verdicts(sd, a, na, b, nb, prev, date, &co);
		char *key = dashboard_verdict_key(machine, series, date), hex[65], *name, *rel, *txt;

		summary_sha256_str(hex, key);
		json_object_set_new(v, "machine", json_string(machine));
		json_object_set_new(v, "series", json_string(series));
		name = xstrfmt("%s.json", hex);
		rel = xstrfmt("verdicts/%s", name);
		txt = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT);
		if (!(err = open_dir_nofollow(&vdir, repofd, repo, "verdicts")) && !(err = write_at(vdir, rel, name, txt, strlen(txt))))
			written_add(w, rel);
		free(txt);
		free(name);
		free(rel);
		free(key);
		json_decref(v);
	}
	for (size_t i = 0; i < ns; i++)
		compare_side_release(&sd[i]);
	if (vdir >= 0)
		close(vdir);
	free(sd);
	free(a);
	free(b);
	return err;
}

/* the first day of the quarter holding day */
static long quarter_start(long day, char label[16])
{
	time_t t = (time_t)day * 86400;
	struct tm tm;
	char d[48];
	int q, y;

	gmtime_r(&t, &tm);
	q = (tm.tm_mon / 3) % 4;
	y = (tm.tm_year + 1900) % 10000;
	snprintf(d, sizeof(d), "%04d-%02d-01", y, q * 3 + 1);
	if (label)
		snprintf(label, 16, "%04d-Q%d", y, q + 1);
	return day_of(d);
}

/* The window of the latest pages: the runs of the last WINDOW_DAYS days, from the start of that quarter (the
 * returned first day), and the latest run of every non-nightly series on its machine that has none there (a stable
 * reference line stays): keep[i]. From the facts alone: no summary is parsed. */
static long hist_window(const struct hist *h, unsigned char *keep)
{
	long last = 0, from;
	json_t *latest = json_object(); /* machine \x1f series -> index of its latest run, non-nightly series only */

	for (size_t i = 0; i < h->n; i++)
		last = h->day[i] > last ? h->day[i] : last;
	from = quarter_start(last - (WINDOW_DAYS - 1), NULL);
	for (size_t i = 0; i < h->n; i++) {
		keep[i] = h->day[i] >= from;
		if (strcmp(h->channel[i], "nightly")) {
			char *k = xstrfmt("%s\x1f%s", h->machine[i], h->series[i]);
			json_t *j = json_object_get(latest, k);

			if (!j || strcmp(h->date[i], h->date[json_integer_value(j)]) > 0)
				json_object_set_new(latest, k, json_integer((json_int_t)i));
			free(k);
		}
	}
	{
		const char *k;
		json_t *j;

		json_object_foreach(latest, k, j) /* every run of that series on its latest date, as before */
			for (size_t i = 0; i < h->n; i++)
				if (!keep[i] && strcmp(h->channel[i], "nightly") && !strcmp(h->date[i], h->date[json_integer_value(j)]) &&
				    !strncmp(k, h->machine[i], strlen(h->machine[i])) && k[strlen(h->machine[i])] == '\x1f' &&
				    !strcmp(k + strlen(h->machine[i]) + 1, h->series[i]))
					keep[i] = 1;
	}
	json_decref(latest);
	return from;
}

/* the archives' navigation line: "This page: from DATE. Earlier quarters: ..." */
static void archives_nav(struct strbuf *nav, long from, json_t *quarters, const char *page)
{
	time_t t = (time_t)from * 86400;
	struct tm tm;
	char d[16];
	const char *ql;
	json_t *qv;

	if (!json_object_size(quarters))
		return;
	gmtime_r(&t, &tm);
	strftime(d, sizeof(d), "%Y-%m-%d", &tm);
	strbuf_addf(nav, "<p class=\"archives\">This page: from %s. Earlier quarters:", d);
	json_object_foreach(quarters, ql, qv)
		strbuf_addf(nav, " <a href=\"archives/%s-%s.html\">%s</a>", page, ql, ql);
	strbuf_addstr(nav, "</p>\n");
}

/* quarter label -> [indexes of the runs] of the runs before from (all of them: a kept run is in its quarter too) */
static json_t *hist_quarters(const struct hist *h, long from, const unsigned char *keep, int with_kept)
{
	json_t *quarters = json_object();
	char lab[16];

	for (size_t i = 0; i < h->n; i++) {
		json_t *q;

		if (h->day[i] >= from || (keep[i] && !with_kept))
			continue;
		quarter_start(h->day[i], lab);
		if (!(q = json_object_get(quarters, lab)))
			json_object_set_new(quarters, lab, q = json_array());
		json_array_append_new(q, json_integer((json_int_t)i));
	}
	return quarters;
}

/* the stored verdicts of the nightly runs idx[0..n) into verdicts (key -> verdict) */
static void verdicts_load(json_t *verdicts, const char *repo, struct hist *h, const size_t *idx, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		size_t i = idx[k];
		char *key, hex[65], *vp;
		json_t *v;

		if (strcmp(h->channel[i], "nightly"))
			continue;
		key = dashboard_verdict_key(h->machine[i], h->series[i], h->date[i]);
		if (!json_object_get(verdicts, key)) {
			summary_sha256_str(hex, key);
			vp = xstrfmt("verdicts/%s.json", hex);
			if ((v = load_json(h, repo, vp, VERDICT_MAX_FILE)))
				json_object_set_new(verdicts, key, v);
			free(vp);
		}
		free(key);
	}
}

/* The files the latest pages are made from, read before a commit: the window's summaries (kept parsed for the site)
 * and its stored verdicts. A file refused there fails publish before anything of the bundle is committed. */
static int hist_read_window(struct hist *h, const char *repo)
{
	unsigned char *keep = xcalloc(h->n + 1, 1);
	size_t n = 0, *idx = xcalloc(h->n + 1, sizeof(*idx));
	json_t *v = json_object();

	hist_window(h, keep);
	for (size_t i = 0; i < h->n; i++)
		if (keep[i]) {
			hist_side(h, repo, i);
			idx[n++] = i;
		}
	verdicts_load(v, repo, h, idx, n);
	json_decref(v);
	free(idx);
	free(keep);
	return hist_refusal(h);
}

/* The sides of the runs idx[0..n) (parsed where not yet; one that cannot be read left out) into out (borrowed) */
static size_t hist_sides(struct compare_side *out, struct hist *h, const char *repo, size_t *idx, size_t n)
{
	size_t m = 0;

	for (size_t k = 0; k < n; k++) {
		const struct compare_side *s = hist_side(h, repo, idx[k]);

		if (s) {
			idx[m] = idx[k];
			out[m++] = *s;
		}
	}
	return m;
}

/* Each quarter wholly before the window in its archive page site/archives/PAGE-YYYY-Qn.html, written once (the
 * summaries of its runs parsed for it and let go). render(o, h, idx, sides, n) writes the page. */
static int archives_write(const char *repo, int repofd, struct hist *h, const unsigned char *keep, json_t *quarters,
			  const char *page, void (*render)(struct strbuf *, const char *, struct hist *, const size_t *,
							   const struct compare_side *, size_t, const struct compare_opts *),
			  const struct compare_opts *co)
{
	const char *ql;
	json_t *qv;
	int err = 0, arch = -1;

	if (!json_object_size(quarters))
		return 0;
	if ((err = open_dir_nofollow(&arch, repofd, repo, "site/archives")) < 0)
		return err;
	json_object_foreach(quarters, ql, qv) {
		char *name = xstrfmt("%s-%s.html", page, ql), *rel = xstrfmt("site/archives/%s", name);
		struct stat st;

		if (fstatat(arch, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			size_t nq = json_array_size(qv), k, m, *idx = xcalloc(nq + 1, sizeof(*idx));
			struct compare_side *qs = xcalloc(nq + 1, sizeof(*qs));
			struct strbuf out = STRBUF_INIT;
			json_t *ix;

			json_array_foreach(qv, k, ix)
				idx[k] = (size_t)json_integer_value(ix);
			m = hist_sides(qs, h, repo, idx, nq);
			render(&out, repo, h, idx, qs, m, co);
			err = write_at(arch, rel, name, out.buf, out.len);
			strbuf_release(&out);
			for (k = 0; k < m; k++)
				if (!keep[idx[k]])
					hist_unload(h, idx[k]);
			free(qs);
			free(idx);
		}
		free(name);
		free(rel);
		if (err)
			break;
	}
	close(arch);
	return err;
}

static void dashboard_archive_render(struct strbuf *o, const char *repo, struct hist *h, const size_t *idx,
				     const struct compare_side *sides, size_t n, const struct compare_opts *co)
{
	json_t *v = json_object(); /* the archive reads its stored verdicts like the dashboard does */

	verdicts_load(v, repo, h, idx, n);
	dashboard_render(o, sides, n, co, v, "<p class=\"archives\"><a href=\"../dashboard.html\">The latest dashboard</a>.</p>\n",
			 "../");
	json_decref(v);
}

/* The dashboard: the window's runs (hist_window()); each earlier quarter in its own archive page, written once. */
static int dashboard_write(const char *repo, int repofd, int site, struct hist *h, const struct compare_opts *co, long from,
			   const unsigned char *keep)
{
	size_t nw = 0, *idx = xcalloc(h->n + 1, sizeof(*idx));
	struct compare_side *win = xcalloc(h->n + 1, sizeof(*win));
	json_t *verdicts = json_object(), *quarters = hist_quarters(h, from, keep, 0);
	struct strbuf dash = STRBUF_INIT, nav = STRBUF_INIT;
	int err = 0;

	for (size_t i = 0; i < h->n; i++)
		if (keep[i])
			idx[nw++] = i;
	nw = hist_sides(win, h, repo, idx, nw);
	verdicts_load(verdicts, repo, h, idx, nw);
	archives_nav(&nav, from, quarters, "dashboard");
	if ((err = archives_write(repo, repofd, h, keep, quarters, "dashboard", dashboard_archive_render, co)) < 0)
		goto cleanup;
	dashboard_render(&dash, win, nw, co, verdicts, nav.len ? nav.buf : NULL, "");
	err = write_at(site, "site/dashboard.html", "dashboard.html", dash.buf, dash.len);
cleanup:
	json_decref(verdicts);
	json_decref(quarters);
	strbuf_release(&dash);
	strbuf_release(&nav);
	free(win);
	free(idx);
	return err;
}

static int cmp_side_label(const void *a, const void *b)
{
	return strcmp(((const struct compare_side *)a)->label, ((const struct compare_side *)b)->label);
}

/* The groups of an index page (by manifest name and channel, sorted; runs by name) of the runs sides[0..n);
 * base: the way from the page to site/ ("" or "../") */
static void index_groups(struct strbuf *idx, const struct compare_side *sides, size_t n, const char *base)
{
	json_t *groups = json_object(), *g;
	const char *gk;
	const char **ks;
	size_t nk = 0;

	for (size_t i = 0; i < n; i++) {
		char *k = xstrfmt("%s\x1f%s", jget(sides[i].plan, "name"), jget(sides[i].plan, "channel"));

		if (!(g = json_object_get(groups, k)))
			json_object_set_new(groups, k, g = json_array());
		json_array_append_new(g, json_integer((json_int_t)i));
		free(k);
	}
	ks = xcalloc(json_object_size(groups) + 1, sizeof(*ks));
	json_object_foreach(groups, gk, g)
		ks[nk++] = gk;
	qsort(ks, nk, sizeof(*ks), cmp_str);
	for (size_t q = 0; q < nk; q++) {
		json_t *ix;
		size_t k;
		struct compare_side *gs;
		char *nm = xstrdup(ks[q]), *ch = strchr(nm, '\x1f');

		*ch++ = '\0';
		g = json_object_get(groups, ks[q]);
		gs = xcalloc(json_array_size(g) + 1, sizeof(*gs));
		json_array_foreach(g, k, ix)
			gs[k] = sides[json_integer_value(ix)];
		qsort(gs, json_array_size(g), sizeof(*gs), cmp_side_label);
		html_render_index_group(idx, nm, ch, gs, json_array_size(g), base);
		free(gs);
		free(nm);
	}
	free(ks);
	json_decref(groups);
}

static void index_archive_render(struct strbuf *o, const char *repo, struct hist *h, const size_t *idx,
				 const struct compare_side *sides, size_t n, const struct compare_opts *co)
{
	(void)repo, (void)h, (void)idx, (void)co;
	html_page_open(o, "bench results (archive)");
	strbuf_addstr(o, "<h1>bench results: one quarter</h1>\n<p class=\"archives\"><a href=\"../index.html\">The latest "
			 "runs</a>.</p>\n");
	index_groups(o, sides, n, "../");
	strbuf_addstr(o, "</body></html>\n");
}

/* The index, grouped by manifest name and channel, from the summaries: the window's runs (hist_window()); every
 * earlier quarter's runs in its own archive page, written once. */
static int index_write(const char *repo, int repofd, int site, struct hist *h, const struct compare_opts *co, long from,
		       const unsigned char *keep)
{
	struct strbuf idx = STRBUF_INIT, nav = STRBUF_INIT;
	size_t nw = 0, *ix = xcalloc(h->n + 1, sizeof(*ix));
	struct compare_side *win = xcalloc(h->n + 1, sizeof(*win));
	json_t *quarters = hist_quarters(h, from, keep, 1);
	int err;

	for (size_t i = 0; i < h->n; i++)
		if (keep[i])
			ix[nw++] = i;
	nw = hist_sides(win, h, repo, ix, nw);
	archives_nav(&nav, from, quarters, "index");
	if ((err = archives_write(repo, repofd, h, keep, quarters, "index", index_archive_render, co)) < 0)
		goto cleanup;
	html_page_open(&idx, "bench results");
	strbuf_addstr(&idx, "<h1>bench results</h1>\n<p>Every run published here, grouped by manifest and channel. Each "
			    "bundle is kept as signed under <code>runs/</code>; verify one with <code>bench verify</code>.</p>\n"
			    "<p><a href=\"dashboard.html\">Dashboard</a>: what changed last night, every case over time per "
			    "channel and machine.</p>\n");
	if (nav.len)
		strbuf_add(&idx, nav.buf, nav.len);
	index_groups(&idx, win, nw, "");
	strbuf_addstr(&idx, "</body></html>\n");
	err = write_at(site, "site/index.html", "index.html", idx.buf, idx.len);
cleanup:
	json_decref(quarters);
	strbuf_release(&idx);
	strbuf_release(&nav);
	free(win);
	free(ix);
	return err;
}

/* A repository published before summaries existed: each bundle under runs/ summarised once (verified, as
 * publish always did), in the order of run names (their UTC start). */
static int summaries_migrate(const char *repo, int repofd, char *const *keys, const char *skip, struct written *w)
{
	char **names = NULL, *runs_dir = xstrfmt("%s/runs", repo), *sdir = xstrfmt("%s/summaries", repo);
	size_t nn = list(&names, runs_dir), nall = 0, alloc = 0;
	char **all = NULL;
	struct stat st;
	int err = 0;

	if (stat(sdir, &st) == 0)
		goto cleanup; /* migrated */
	for (size_t a = 0; a < nn; a++) {
		char **chans = NULL, *nd = xstrfmt("%s/%s", runs_dir, names[a]);
		size_t nc = list(&chans, nd);

		for (size_t c = 0; c < nc; c++) {
			char **files = NULL, *cd = xstrfmt("%s/%s", nd, chans[c]);
			size_t nf = list(&files, cd);

			for (size_t f = 0; f < nf; f++) {
				size_t l = strlen(files[f]);
				char *rel;

				if (l <= strlen(".bench.tar.gz") || strcmp(files[f] + l - strlen(".bench.tar.gz"), ".bench.tar.gz"))
					continue;
				rel = xstrfmt("runs/%s/%s/%s", names[a], chans[c], files[f]);
				if (!strcmp(rel, skip)) {
					free(rel);
					continue;
				}
				ALLOC_GROW(all, nall + 1, alloc);
				all[nall++] = rel;
			}
			free_list(files, nf);
			free(cd);
		}
		free_list(chans, nc);
		free(nd);
	}
	for (size_t i = 0; i < nall && !err; i++) {
		char sha[65], *full = xstrfmt("%s/%s", repo, all[i]);

		if (fs_sha256_file(sha, full) == 0 && site_add(repo, repofd, keys, all[i], sha, w, NULL) < 0)
			bench_error_clear(); /* one that does not verify is left out, as the site always did */
		free(full);
	}
	if (nall) { /* the verdicts of every nightly date against the one before it */
		struct hist h = { 0 };
		json_t *done = json_object();

		hist_load(&h, repo, repofd);
		for (size_t i = 0; i < h.n && !err; i++) {
			char *key = dashboard_verdict_key(h.machine[i], h.series[i], h.date[i]);

			if (!json_object_get(done, key) &&
			    !strcmp(h.channel[i], "nightly")) {
				json_object_set_new(done, key, json_true());
				err = verdict_store(repo, repofd, &h, h.machine[i], h.series[i], h.date[i], w);
			}
			free(key);
		}
		json_decref(done);
		if (!err)
			err = hist_refusal(&h);
		hist_release(&h);
	}
cleanup:
	free_list(all, nall);
	free_list(names, nn);
	free(runs_dir);
	free(sdir);
	return err;
}

/* Adds the run at rel (a verified bundle in the repository, sha256 sha) to the summaries (committed: added to *w),
 * writes its page once (site/runs/RUN.html, links relative to the page); with h (the history, which it joins), the
 * verdicts its date changes (committed too). */
static int site_add(const char *repo, int repofd, char *const *keys, const char *rel, const char *sha, struct written *w,
		    struct hist *h)
{
	struct compare_opts co = { 0.02, 0.01, 2000, 0, keys, NULL };
	struct compare_side side = COMPARE_SIDE_INIT;
	json_t *sum = NULL, *smp = NULL;
	char *full = xstrfmt("%s/%s", repo, rel), *name = NULL, *srel = NULL, *prel = NULL, *txt = NULL, *series = NULL;
	const char *machine;
	char date[11];
	int err = 0, sdir = -1, site = -1, pages = -1;

	if ((err = compare_load(&side, full, &co)) < 0)
		goto cleanup;
	if ((err = open_dir_nofollow(&sdir, repofd, repo, "summaries")) < 0 ||
	    (err = open_dir_nofollow(&site, repofd, repo, "site")) < 0 ||
	    (err = open_dir_nofollow(&pages, repofd, repo, "site/runs")) < 0)
		goto cleanup;
	sum = summary_of_side(&side, sha, rel);
	smp = summary_samples_of_side(&side);
	name = xstrfmt("%s.json", sha);
	srel = xstrfmt("summaries/%s", name);
	txt = json_dumps(sum, JSON_SORT_KEYS | JSON_COMPACT);
	if ((err = write_at(sdir, srel, name, txt, strlen(txt))) < 0)
		goto cleanup;
	written_add(w, srel);
	free(name), free(srel), free(txt);
	name = xstrfmt("%s.samples.json", sha);
	srel = xstrfmt("summaries/%s", name);
	txt = json_dumps(smp, JSON_SORT_KEYS | JSON_COMPACT);
	if ((err = write_at(sdir, srel, name, txt, strlen(txt))) < 0)
		goto cleanup;
	written_add(w, srel);
	/* its page, once: links relative to site/runs/ */
	{
		struct strbuf page = STRBUF_INIT;
		char *pname = xstrfmt("%s.html", side.label);

		free(side.path);
		side.path = xstrfmt("../../%s", rel);
		prel = xstrfmt("site/runs/%s", pname);
		html_render_report(&page, &side, 1, NULL);
		err = write_at(pages, prel, pname, page.buf, page.len);
		strbuf_release(&page);
		free(pname);
		if (err)
			goto cleanup;
	}
	if (!h)
		goto cleanup; /* summaries_migrate(): the verdicts once all are summarised */
	{
		json_t *facts = NULL;

		if (hist_push(h, sum, sha, &facts) == 0)
			hist_index_append(repo, facts);
		json_decref(facts);
	}
	/* the verdicts this run changes: its date against the one before, the date after it against its date */
	dashboard_run_facts(date, &machine, &series, &side);
	if (!strcmp(plan_channel(&side), "nightly")) {
		const char *next = "";

		if ((err = verdict_store(repo, repofd, h, machine, series, date, w)) < 0)
			goto cleanup;
		for (size_t i = 0; i < h->n; i++)
			if (!strcmp(h->machine[i], machine) && !strcmp(h->series[i], series) && strcmp(h->date[i], date) > 0 &&
			    (!*next || strcmp(h->date[i], next) < 0))
				next = h->date[i];
		if (*next && (err = verdict_store(repo, repofd, h, machine, series, next, w)) < 0)
			goto cleanup;
	}
cleanup:
	if (sdir >= 0)
		close(sdir);
	if (site >= 0)
		close(site);
	if (pages >= 0)
		close(pages);
	compare_side_release(&side);
	json_decref(sum);
	json_decref(smp);
	free(full);
	free(name);
	free(srel);
	free(prel);
	free(txt);
	free(series);
	return err;
}

/* The site from the history: a page missing (site/ removed, or a repository from before pages were written once)
 * made again from its bundle, verified (every other page stays as written), the index and the dashboard. */
static int site_render(const char *repo, int repofd, char *const *keys, struct hist *h)
{
	struct compare_opts co = { 0.02, 0.01, 2000, 0, keys, NULL };
	int err = 0, site = -1, pages = -1;
	unsigned char *keep = NULL;
	long from;

	if ((err = open_dir_nofollow(&site, repofd, repo, "site")) < 0 ||
	    (err = open_dir_nofollow(&pages, repofd, repo, "site/runs")) < 0)
		goto cleanup;
	for (size_t i = 0; i < h->n; i++) {
		char *pname = xstrfmt("%s.html", h->run[i]);
		struct stat st;

		if (fstatat(pages, pname, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			struct compare_side old = COMPARE_SIDE_INIT;
			char *op = xstrfmt("%s/%s", repo, h->path[i]), *orel = xstrfmt("site/runs/%s", pname);

			if (compare_load(&old, op, &co) == 0) {
				struct strbuf page = STRBUF_INIT;

				free(old.path);
				old.path = xstrfmt("../../%s", h->path[i]);
				html_render_report(&page, &old, 1, NULL);
				err = write_at(pages, orel, pname, page.buf, page.len);
				strbuf_release(&page);
			}
			bench_error_clear();
			compare_side_release(&old);
			free(op);
			free(orel);
		}
		free(pname);
		if (err)
			goto cleanup;
	}
	keep = xcalloc(h->n + 1, 1);
	from = hist_window(h, keep);
	if ((err = index_write(repo, repofd, site, h, &co, from, keep)) < 0 ||
	    (err = dashboard_write(repo, repofd, site, h, &co, from, keep)) < 0)
		goto cleanup;
cleanup:
	free(keep);
	if (site >= 0)
		close(site);
	if (pages >= 0)
		close(pages);
	return err;
}

static int git_fail(const char *what, const char *repo)
{
	const git_error *e = git_error_last();

	return bench_error_set(BENCH_E_IO, "%s in '%s': %s", what, repo, e ? e->message : "unknown libgit2 error");
}

/* /site/ and the summaries' index in the repository's info/exclude: generated, not committed */
static int exclude_site(git_repository *r, const char *repo)
{
	static const char *const lines[] = { "/site/\n", "/" HIST_INDEX "\n", NULL };
	char *dir = xstrfmt("%sinfo", git_repository_path(r)), *path = xstrfmt("%s/exclude", dir), *buf = NULL;
	size_t len = 0;
	int err = 0;
	struct strbuf nb = STRBUF_INIT;

	if (fs_read_file(&buf, &len, path, (size_t)1 << 20) < 0)
		bench_error_clear();
	if (buf)
		strbuf_add(&nb, buf, len);
	for (size_t i = 0; lines[i]; i++) {
		char *nl = xstrfmt("\n%s", lines[i]);

		if (!(nb.len && (!strncmp(nb.buf, lines[i], strlen(lines[i])) || strstr(nb.buf, nl)))) {
			if (nb.len && nb.buf[nb.len - 1] != '\n')
				strbuf_addch(&nb, '\n');
			strbuf_addstr(&nb, lines[i]);
		}
		free(nl);
	}
	if (!buf || nb.len != len) {
		if ((err = fs_mkdir_p(dir)) == 0 && (err = fs_write_file(path, nb.buf, nb.len, 0644)) < 0)
			err = bench_error_set(BENCH_E_IO, "cannot write '%s' in '%s'", "info/exclude", repo);
	}
	strbuf_release(&nb);
	free(buf);
	free(dir);
	free(path);
	return err;
}

/* Stages exactly the paths written (not whatever else lies in the work tree) and commits them. */
static int commit_written(git_repository *r, const char *repo, const struct written *w, const char *msg)
{
	git_index *ix = NULL;
	git_oid tree_id, commit_id, parent_id;
	git_tree *tree = NULL;
	git_commit *parent = NULL;
	git_signature *sig = NULL;
	int err = 0, has_parent = git_reference_name_to_id(&parent_id, r, "HEAD") == 0;

	if (git_repository_index(&ix, r) < 0 || git_index_read(ix, 1) < 0) {
		err = git_fail("cannot read the index", repo);
		goto cleanup;
	}
	/* the generated site stays out of the history (a repository published by an older bench had it committed) */
	if (git_index_remove_directory(ix, "site", 0) < 0) {
		err = git_fail("cannot stage the published files", repo);
		goto cleanup;
	}
	for (size_t i = 0; i < w->n; i++)
		if (git_index_add_bypath(ix, w->v[i]) < 0) {
			err = git_fail("cannot stage the published files", repo);
			goto cleanup;
		}
	if (git_index_write(ix) < 0 || git_index_write_tree(&tree_id, ix) < 0 || git_tree_lookup(&tree, r, &tree_id) < 0) {
		err = git_fail("cannot stage the published files", repo);
		goto cleanup;
	}
	if ((has_parent && git_commit_lookup(&parent, r, &parent_id) < 0) ||
	    git_signature_now(&sig, "bench publish", "bench@localhost") < 0 ||
	    git_commit_create(&commit_id, r, "HEAD", sig, sig, NULL, msg, tree, has_parent ? 1 : 0,
			      (const git_commit **)&parent) < 0)
		err = git_fail("cannot commit", repo);
cleanup:
	git_signature_free(sig);
	git_commit_free(parent);
	git_tree_free(tree);
	git_index_free(ix);
	return err;
}


/* One publish call's state, shared by its steps: the locked repository and the history read from it. */
struct publish_ctx {
	const char *repo;
	char *const *keys;
	int repofd; /* open on repo and holding its lock; -1 before */
	git_repository *r;
	int git_up;
	struct hist hist;
	int hist_up; /* hist read (once per call, on the first new bundle) */
};

/* a member read by the verifying pass, parsed ("" when absent): a new reference */
static json_t *member_json(json_t *members, const char *name)
{
	const char *text = json_string_value(json_object_get(members, name));

	return json_loads(text ? text : "", 0, NULL);
}

static char *json_strdup(json_t *o, const char *k)
{
	return xstrdup(json_string_value(json_object_get(o, k)) ? json_string_value(json_object_get(o, k)) : "");
}

/* an incomplete run is refused (its status.json, among the members the verifying pass read) */
static int pub_check_complete(const char *bundle, json_t *members)
{
	json_t *st = member_json(members, "status.json");
	json_t *h = compare_run_health(st);
	int err = 0;

	if (json_is_true(json_object_get(h, "incomplete")))
		err = bench_error_set(BENCH_E_SUITE, "'%s': the run is incomplete (%s%s, %lld case(s) pending, %lld "
				      "interrupted); complete it with 'bench run --resume' and pack it again, or pass "
				      "--allow-incomplete to publish it marked as such; nothing was published", bundle,
				      st ? "state " : "no status.json", st ? json_string_value(json_object_get(h, "state")) : "",
				      (long long)json_integer_value(json_object_get(json_object_get(h, "counts"), "pending")),
				      (long long)json_integer_value(json_object_get(json_object_get(h, "counts"), "interrupted")));
	json_decref(h);
	json_decref(st);
	return err;
}

/* Step 1 for one bundle: it verifies, its run is complete (or allow_incomplete), and its name and channel are
 * safe path components. plan.json and status.json come from the verifying pass itself. */
static int pub_verify(struct pub *p, const char *bundle, char *const *keys, const struct bundle_limits *lim,
		      int allow_incomplete)
{
	static const char *const names[] = { "plan.json", "status.json", NULL };
	struct bundle_members bm;
	struct bundle_sink sink;
	json_t *plan;
	int err;

	p->path = bundle;
	bundle_members_init(&bm, &sink, names, (size_t)1 << 24);
	if ((err = bundle_verify_read(&p->vr, bundle, NULL, keys, sign_home(), lim, &sink)) < 0) {
		err = bench_error_set(BENCH_E_VERIFY, "'%s' does not verify (%s); nothing was published", bundle,
				      bench_error_last());
		goto cleanup;
	}
	p->keyid = xstrdup(p->vr.keyid);
	p->run = xstrdup(p->vr.run);
	plan = member_json(bm.out, "plan.json");
	p->name = json_strdup(plan, "name");
	p->channel = json_strdup(plan, "channel");
	json_decref(plan);
	if (!allow_incomplete && (err = pub_check_complete(bundle, bm.out)) < 0)
		goto cleanup;
	if (!safe_component(p->run) || !safe_component(p->name) || !safe_component(p->channel)) {
		err = bench_error_set(BENCH_E_VERIFY, "'%s': run, manifest name or channel is not a plain name (%s, %s, %s); "
				      "nothing was published", bundle, p->run ? p->run : "?", p->name, p->channel);
		goto cleanup;
	}
	p->rel = xstrfmt("runs/%s/%s/%s.bench.tar.gz", p->name, p->channel, p->run);
cleanup:
	bundle_members_release(&bm);
	return err;
}

/* Step 2: the repository, created on first use, locked: concurrent publishers queue here */
static int pub_repo_open(struct publish_ctx *c)
{
	int err;

	if ((err = mkdirs(c->repo)) < 0)
		return err;
	if ((c->repofd = open(c->repo, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return bench_error_set(BENCH_E_IO, "cannot open '%s': %s", c->repo, strerror(errno));
	while (flock(c->repofd, LOCK_EX) < 0)
		if (errno != EINTR)
			return bench_error_set(BENCH_E_IO, "cannot lock '%s': %s", c->repo, strerror(errno));
	git_libgit2_init();
	c->git_up = 1;
	if (git_repository_open(&c->r, c->repo) < 0 && git_repository_init(&c->r, c->repo, 0) < 0)
		return git_fail("cannot create a git repository", c->repo);
	return exclude_site(c->r, c->repo);
}

/* the file names of one bundle in its directory runs/NAME/CHANNEL */
struct pub_files {
	char *dir, *base, *env_base, *env_rel, *tmp;
};

static void pub_files_init(struct pub_files *f, const struct pub *p)
{
	f->dir = xstrfmt("runs/%s/%s", p->name, p->channel);
	f->base = xstrfmt("%s.bench.tar.gz", p->run);
	f->env_base = xstrfmt("%s.intoto.jsonl", f->base);
	f->env_rel = xstrfmt("%s.intoto.jsonl", p->rel);
	f->tmp = xstrfmt(".%s.%ld.tmp", f->base, (long)getpid());
}

/* An existing file at the bundle's place: the same bundle again is a no-op (0); a link or other contents fail */
static int pub_check_existing(const struct publish_ctx *c, const struct pub *p, int dfd, const char *base)
{
	struct stat st;

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 1;
	if (!S_ISREG(st.st_mode))
		return bench_error_set(BENCH_E_FAIL, "'%s' in '%s' is a symbolic link or not a file; publish refuses "
				       "to write through it", p->rel, c->repo);
	if (!same_digest(dfd, base, p->vr.sha256))
		return bench_error_set(BENCH_E_FAIL, "'%s' is already published with other contents (%s)", p->run, p->rel);
	return 0;
}

/* the verified bundle and its envelope into their directory, the bundle through a temporary name */
static int pub_write_bundle(const struct publish_ctx *c, const struct pub *p, int dfd, const struct pub_files *f)
{
	int err;

	bundle_test_hook("publish", p->path);
	unlinkat(dfd, f->tmp, 0);
	if ((err = bundle_copy_verified(&p->vr, dfd, f->tmp)) < 0)
		return err;
	if ((err = write_at(dfd, f->env_rel, f->env_base, p->vr.envelope, p->vr.envelope_len)) < 0) {
		unlinkat(dfd, f->tmp, 0);
		return err;
	}
	if (renameat(dfd, f->tmp, dfd, f->base) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot write '%s/%s': %s", c->repo, p->rel, strerror(errno));
		unlinkat(dfd, f->tmp, 0);
		return err;
	}
	return 0;
}

/* the history, read once per call, from the summaries (made first where missing) */
static int pub_hist_up(struct publish_ctx *c, const char *rel, struct written *w)
{
	int err = 0;

	if (!c->hist_up) {
		if ((err = summaries_migrate(c->repo, c->repofd, c->keys, rel, w)) == 0)
			hist_load(&c->hist, c->repo, c->repofd);
		c->hist_up = 1;
	}
	return err;
}

/* not published: the bundle (and its summary) does not stay in the work tree to pass for published next time */
static void pub_unwrite(const struct publish_ctx *c, int dfd, const struct pub_files *f, const struct written *w)
{
	unlinkat(dfd, f->base, 0);
	unlinkat(dfd, f->env_base, 0);
	for (size_t k = 0; k < w->n; k++)
		if (!strncmp(w->v[k], "summaries/", 10))
			unlinkat(c->repofd, w->v[k], 0);
}

/* Step 3 for one bundle: one commit holding the bundle, its envelope and the site; *published 1 when new */
static int pub_commit_one(struct publish_ctx *c, const struct pub *p, int *published)
{
	struct pub_files f;
	struct written w = { NULL, 0, 0 };
	char *msg = NULL;
	int dfd = -1, err;

	*published = 0;
	pub_files_init(&f, p);
	if ((err = open_dir_nofollow(&dfd, c->repofd, c->repo, f.dir)) < 0)
		goto cleanup;
	if ((err = pub_check_existing(c, p, dfd, f.base)) <= 0)
		goto cleanup;
	if ((err = pub_write_bundle(c, p, dfd, &f)) < 0)
		goto cleanup;
	written_add(&w, p->rel);
	written_add(&w, f.env_rel);
	msg = xstrfmt("publish %s (channel %s) signed by %s\n\nmanifest: %s\nbundle: %s\n", p->run, p->channel,
		      p->keyid, p->name, p->rel);
	if ((err = pub_hist_up(c, p->rel, &w)) < 0 ||
	    (err = site_add(c->repo, c->repofd, c->keys, p->rel, p->vr.sha256, &w, &c->hist)) < 0 ||
	    (err = hist_read_window(&c->hist, c->repo)) < 0 ||
	    (err = commit_written(c->r, c->repo, &w, msg)) < 0) {
		pub_unwrite(c, dfd, &f, &w);
		goto cleanup;
	}
	*published = 1;
cleanup:
	if (dfd >= 0)
		close(dfd);
	written_release(&w);
	free(f.dir);
	free(f.base);
	free(f.env_base);
	free(f.env_rel);
	free(f.tmp);
	free(msg);
	return err;
}

int publish_bundles(size_t *out_new, const char *repo, const char *const *bundles, size_t n, char *const *keys,
		    int allow_incomplete)
{
	struct pub *p = xcalloc(n ? n : 1, sizeof(*p));
	struct publish_ctx c = { .repo = repo, .keys = keys, .repofd = -1 };
	struct bundle_limits lim;
	int err = 0;

	*out_new = 0;
	bundle_limits_default(&lim);
	for (size_t i = 0; i < n; i++)
		p[i].vr.fd = -1;
	/* 1. every bundle verifies, complete and safely named; else nothing is touched */
	for (size_t i = 0; i < n; i++)
		if ((err = pub_verify(&p[i], bundles[i], keys, &lim, allow_incomplete)) < 0)
			goto cleanup;
	/* 2. the repository, locked */
	if ((err = pub_repo_open(&c)) < 0)
		goto cleanup;
	/* 3. one commit per new bundle */
	for (size_t i = 0; i < n; i++) {
		int published;

		if ((err = pub_commit_one(&c, &p[i], &published)) < 0)
			goto cleanup;
		*out_new += (size_t)published;
	}
	/* the site, once for every bundle of this call: it is not committed */
	if (c.hist_up && (err = site_render(repo, c.repofd, keys, &c.hist)) == 0)
		err = hist_refusal(&c.hist);
cleanup:
	hist_release(&c.hist);
	git_repository_free(c.r);
	if (c.git_up)
		git_libgit2_shutdown();
	if (c.repofd >= 0)
		close(c.repofd); /* and the lock with it */
	for (size_t i = 0; i < n; i++) {
		free(p[i].run);
		free(p[i].keyid);
		free(p[i].name);
		free(p[i].channel);
		free(p[i].rel);
		bundle_verify_result_release(&p[i].vr);
	}
	free(p);
	return err;
}
