/* build.c — a stack's image: the build context (image stage), then the engine's build, its id recorded. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../core/error.h"
#include "../core/fs.h"
#include "../core/strbuf.h"
#include "../image/context.h"
#include "../image/snapshot.h"
#include "../manifest/lock.h"
#include "exec.h"

void built_image_release(struct built_image *b)
{
	free(b->image);
	free(b->digest);
	free(b->recipe);
	free(b->context);
	free(b->log);
	memset(b, 0, sizeof(*b));
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

int exec_build_image(struct built_image *out, const struct engine_ops *e, const struct manifest *m, const char *mbuf,
		     size_t mlen, const char *lbuf, size_t llen, int force, FILE *progress, volatile sig_atomic_t *stop)
{
	json_t *lock = NULL;
	char msha[65], lsha[65];
	int err = 0, fd = -1;

	memset(out, 0, sizeof(*out));
	out->engine = e;
	if (!e->build) {
		return bench_error_set(BENCH_E_USAGE, "engine '%s' runs the machine's own stack: it builds no image (choose "
				       "podman, docker or apptainer)", e->name);
	}
	if (!(lock = json_loadb(lbuf, llen, 0, NULL)))
		return bench_error_set(BENCH_E_MANIFEST, "the lock is not valid JSON");
	lock_sha256_hex(msha, mbuf, mlen);
	lock_sha256_hex(lsha, lbuf, llen);
	out->context = xstrfmt("%s/build/%s-%.16s", snapshot_cache_dir(), m->name, lsha);
	out->image = e->image_ref(e, m->name, lsha, snapshot_cache_dir());
	if ((err = image_context_write(&out->recipe, out->context, m, lock, msha, lsha, e->recipe_format, progress)) < 0)
		goto cleanup;
	out->log = xstrfmt("%s/build.log", out->context);
	if (!force && e->image_exists(e, out->image)) {
		out->reused = 1;
		if (progress)
			fprintf(progress, "bench: image %s exists (same manifest and lock): reused\n", out->image);
	} else {
		if (progress)
			fprintf(progress, "bench: building %s with %s (log: %s)\n", out->image, e->name, out->log);
		if ((fd = open(out->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
			err = bench_error_set(BENCH_E_IO, "cannot create '%s': %s", out->log, strerror(errno));
			goto cleanup;
		}
		if ((err = e->build(e, out->context, out->recipe, out->image, fd, stop)) < 0) {
			char *why = xstrdup(bench_error_last());

			close(fd);
			fd = -1;
			show_tail(out->log, 20);
			err = bench_error_set(BENCH_E_BUILD, "the image build failed: %s (whole log: %s)", why, out->log);
			free(why);
			goto cleanup;
		}
	}
	err = e->image_digest(&out->digest, e, out->image);
cleanup:
	if (fd >= 0)
		close(fd);
	json_decref(lock);
	return err;
}
