/* SPDX-License-Identifier: Apache-2.0 */
/* builder.c — the builders' registry, and a stack's image: the build context, then the builder's build (or the
 * image of the same context, reused), its id recorded. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "manifest/lock.h"
#include "builder.h"
#include "context.h"
#include "snapshot.h"

extern const struct builder_ops builder_podman;
extern const struct builder_ops builder_docker;
extern const struct builder_ops builder_apptainer;

/* The registry: one line per builder. */
const struct builder_ops *const builder_registry[] = { &builder_podman, &builder_docker, &builder_apptainer, NULL };

const struct builder_ops *builder_find(const char *name)
{
	for (size_t i = 0; builder_registry[i]; i++)
		if (!strcmp(builder_registry[i]->name, name))
			return builder_registry[i];
	return NULL;
}

void built_image_release(struct built_image *img)
{
	free(img->image);
	free(img->digest);
	free(img->recipe);
	free(img->context);
	free(img->context_sha);
	free(img->log);
	memset(img, 0, sizeof(*img));
}

struct step_ctx {
	const struct builder_ops *b;
	FILE *progress;
	struct timespec t0;
};

static int show_step(void *ctx, const char *line, size_t len)
{
	struct step_ctx *sc = ctx;
	struct timespec now;
	long s;
	int width = 100;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len || !sc->b->step_line || !sc->b->step_line(line, len))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	s = (long)(now.tv_sec - sc->t0.tv_sec);
	if (len > (size_t)width) /* one terminal line each: a long RUN command is cut */
		fprintf(sc->progress, "bench: [%2ld:%02ld] %.*s...\n", s / 60, s % 60, width - 3, line);
	else
		fprintf(sc->progress, "bench: [%2ld:%02ld] %.*s\n", s / 60, s % 60, (int)len, line);
	fflush(sc->progress);
	return 0;
}

int builder_run(const struct builder_ops *b, char *const *argv, int log_fd, FILE *progress, volatile sig_atomic_t *stop)
{
	struct step_ctx sc = { b, progress, { 0, 0 } };

	clock_gettime(CLOCK_MONOTONIC, &sc.t0);
	return spawn_run_logged_lines(argv, log_fd, 0, stop, progress ? show_step : NULL, &sc);
}

/* The last n lines of a file, to stderr, indented. */
static void show_tail(const char *path, int n)
{
	char *buf = NULL, *p;
	size_t len = 0;
	int seen = 0;

	if (fs_read_file(&buf, &len, path, 64u << 20) < 0 || !len) {
		free(buf);
		return;
	}
	p = buf + len;
	while (p > buf && seen <= n)
		if (*--p == '\n' && p + 1 < buf + len)
			seen++;
	if (*p == '\n')
		p++;
	fprintf(stderr, "bench: the build log ends with:\n");
	for (char *line = strtok(p, "\n"); line; line = strtok(NULL, "\n"))
		fprintf(stderr, "  | %s\n", line);
	free(buf);
}

/* The reason a build step gave for failing: the text after "bench: error: " on the last log line holding it (a
 * recipe's own checks print one, such as a source component that installed nothing into its prefix), trimmed;
 * NULL when no step said why (caller frees). Engines may prefix the line ("#9 0.21 ..."): the marker is sought
 * anywhere in it. */
static char *build_reason(const char *path)
{
	static const char marker[] = "bench: error: ";
	char *buf = NULL, *why = NULL, *p, *end = NULL, *last;
	size_t len = 0;

	if (fs_read_file(&buf, &len, path, 64u << 20) < 0 || !len)
		goto cleanup;
	for (p = strstr(buf, marker); p; p = strstr(end, marker)) {
		p += sizeof(marker) - 1;
		end = p + strcspn(p, "\r\n");
		for (last = end; last > p && (last[-1] == ' ' || last[-1] == '\t'); last--)
			;
		if (last > p) {
			free(why);
			why = xstrndup(p, (size_t)(last - p));
		}
	}
cleanup:
	free(buf);
	return why;
}

/* One bench at a time writes and builds a context: a second one of the same stack waits (saying so), then finds
 * the image the first built. The lock is the context's .lock file, held until *fd is closed. */
static int context_lock(int *fd, const char *context, FILE *progress, volatile sig_atomic_t *stop)
{
	char *path = xstrfmt("%s/.lock", context);
	int err = 0;

	if ((err = fs_mkdir_p(context)) < 0)
		goto cleanup;
	if ((*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot open '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		goto cleanup;
	if (progress)
		fprintf(progress, "bench: another bench is building this stack (%s): waiting\n", context);
	while (flock(*fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			err = bench_error_set(BENCH_E_IO, "cannot lock '%s': %s", path, strerror(errno));
			goto cleanup;
		}
		if (stop && *stop) {
			err = bench_error_set(BENCH_E_BUILD, "interrupted while waiting for another bench's build of '%s'",
					      context);
			goto cleanup;
		}
	}
cleanup:
	free(path);
	return err;
}

/* An image id as bench records it: "sha256:" and 64 lower-case hex digits. */
static int image_id_ok(const char *id)
{
	return id && !strncmp(id, "sha256:", 7) && strlen(id) == 71 && strspn(id + 7, "0123456789abcdef") == 64;
}

int image_build(struct built_image *out, const struct builder_ops *b, const char *prefer, const struct manifest *m,
		const char *mbuf, size_t mlen, const char *lbuf, size_t llen, int force, FILE *progress,
		volatile sig_atomic_t *stop)
{
	json_t *lock = NULL;
	char msha[65], lsha[65], csha[65];
	int err = 0, fd = -1, lk = -1;

	memset(out, 0, sizeof(*out));
	out->builder = b;
	if (!(lock = json_loadb(lbuf, llen, 0, NULL)))
		return bench_error_set(BENCH_E_MANIFEST, "the lock is not valid JSON");
	lock_sha256_hex(msha, mbuf, mlen);
	lock_sha256_hex(lsha, lbuf, llen);
	out->context = xstrfmt("%s/build/%s-%.16s", snapshot_cache_dir(), m->name, lsha);
	if ((err = context_lock(&lk, out->context, progress, stop)) < 0)
		goto cleanup;
	if ((err = image_context_write(&out->recipe, csha, out->context, m, lock, msha, lsha, b->recipe_format,
				       progress)) < 0)
		goto cleanup;
	out->context_sha = xstrdup(csha);
	{ /* what bench gc reads to find the image a lock's context names */
		char *p = xstrfmt("%s/context.sha256", out->context), *line = xstrfmt("%s\n", csha);

		err = fs_write_file(p, line, strlen(line), 0644);
		free(p);
		free(line);
		if (err < 0)
			goto cleanup;
	}
	out->image = b->image_ref(b, m->name, csha, snapshot_cache_dir());
	out->log = xstrfmt("%s/build.log", out->context);
	/* whether an image is here is whether the engine reads its id (one command; the id is out->digest then) */
	if (image_id_ok(prefer) && b->image_digest(&out->digest, b, prefer + 7) == 0) { /* the id without its prefix */
		free(out->image);
		out->image = xstrdup(prefer + 7);
		out->reused = out->recorded = 1;
		if (progress)
			fprintf(progress, "bench: image %.19s... (the recorded id) is here: used as it is\n", prefer);
	} else if (!force && b->image_digest(&out->digest, b, out->image) == 0) {
		if (prefer && progress)
			fprintf(progress, "bench: the recorded image %.19s... is not here: the image of the lock's context\n",
				prefer);
		out->reused = 1;
		if (progress)
			fprintf(progress, "bench: image %s exists (same recipe and runner sources): reused\n", out->image);
	} else {
		if (prefer && progress)
			fprintf(progress, "bench: the recorded image %.19s... is not here: built again from the lock\n", prefer);
		if (progress)
			fprintf(progress, "bench: building %s with %s (log: %s)\n", out->image, b->name, out->log);
		if ((fd = fs_open_new(out->log, 0644)) < 0) { /* a new file: a link or a FIFO of that name is not used */
			err = bench_error_set(BENCH_E_IO, "cannot create '%s': %s", out->log, strerror(errno));
			goto cleanup;
		}
		if ((err = b->build(b, out->context, out->recipe, out->image, fd, progress, stop)) < 0) {
			char *why = build_reason(out->log);

			if (!why)
				why = xstrdup(bench_error_last());
			close(fd);
			fd = -1;
			show_tail(out->log, 20);
			err = bench_error_set(BENCH_E_BUILD, "the image build failed: %s (whole log: %s)", why, out->log);
			free(why);
			goto cleanup;
		}
	}
	if (!out->digest)
		err = b->image_digest(&out->digest, b, out->image);
cleanup:
	if (fd >= 0)
		close(fd);
	if (lk >= 0)
		close(lk); /* releases the lock */
	json_decref(lock);
	return err;
}
