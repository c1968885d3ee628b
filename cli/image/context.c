/* SPDX-License-Identifier: Apache-2.0 */
/* context.c — a stack's build context: recipe, source snapshots, and the runner sources. */
#include "context.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "recipe.h"
#include "snapshot.h"

/* Copies the regular files under src to dst (modes kept: 0755 for executables, else 0644), skipping caches,
 * in name order, and feeds each to md as its path below the top, its mode, its size and its bytes: the digest
 * of what the image build receives. */
static int copy_tree(const char *src, const char *dst, const char *rel, EVP_MD_CTX *md)
{
	struct dirent **ents = NULL;
	int n = scandir(src, &ents, NULL, alphasort), err = 0;

	if (n < 0)
		return bench_error_set(BENCH_E_IO, "cannot read '%s': %s", src, strerror(errno));
	if ((err = fs_mkdir_p(dst)) < 0)
		goto cleanup;
	for (int i = 0; i < n && !err; i++) {
		const char *name = ents[i]->d_name;
		char *s, *t, *r;
		struct stat st;

		if (name[0] == '.' || !strcmp(name, "__pycache__"))
			continue;
		s = xstrfmt("%s/%s", src, name);
		t = xstrfmt("%s/%s", dst, name);
		r = xstrfmt("%s%s%s", rel, *rel ? "/" : "", name);
		if (stat(s, &st) == 0 && S_ISDIR(st.st_mode)) {
			err = copy_tree(s, t, r, md);
		} else if (stat(s, &st) == 0 && S_ISREG(st.st_mode)) {
			char *buf = NULL, head[64];
			size_t len;
			mode_t mode = st.st_mode & 0111 ? 0755 : 0644;

			if ((err = fs_read_file(&buf, &len, s, 64u << 20)) == 0)
				err = fs_write_file(t, buf, len, mode);
			if (!err) {
				int hl = snprintf(head, sizeof(head), "%o %zu", (unsigned)mode, len);

				EVP_DigestUpdate(md, r, strlen(r) + 1);
				EVP_DigestUpdate(md, head, (size_t)hl + 1);
				EVP_DigestUpdate(md, buf, len);
			}
			free(buf);
		}
		free(s);
		free(t);
		free(r);
	}
cleanup:
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return err;
}

int image_context_write(char **out_recipe, char out_digest[65], const char *dir, const struct manifest *m,
			json_t *lock, const char *manifest_sha, const char *lock_sha, const char *format, FILE *progress)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char d[32];
	struct recipe r = RECIPE_INIT;
	struct strbuf sb = STRBUF_INIT;
	json_t *comps = json_object_get(lock, "components");
	json_t *sde = json_object_get(lock, "source_date_epoch");
	const char *data = fs_data_dir();
	char *p = NULL, *q = NULL;
	int err;

	*out_recipe = NULL;
	out_digest[0] = '\0';
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	if ((err = recipe_build(&r, m, lock, manifest_sha, lock_sha)) < 0)
		goto cleanup;
	if ((err = !strcmp(format, "apptainer") ? recipe_emit_apptainer(&sb, &r) : recipe_emit_containerfile(&sb, &r)) < 0)
		goto cleanup;
	p = xstrfmt("%s/sources", dir);
	if ((err = fs_mkdir_p(p)) < 0)
		goto cleanup;
	free(p);
	p = NULL;
	for (size_t i = 0; i < m->stack.ncomponents; i++) {
		const struct component *c = &m->stack.components[i];
		const char *commit = json_string_value(json_object_get(json_object_get(comps, c->name), "commit"));

		if (c->source != SOURCE_GIT)
			continue;
		p = xstrfmt("%s/sources/%s-%s.tar.gz", dir, c->name, commit);
		q = xstrfmt("%s-%s", c->name, commit);
		if (access(p, R_OK) != 0) { /* a snapshot is a pure function of the commit: made once */
			if (progress)
				fprintf(progress, "bench: snapshot of %s at %.12s from %s\n", c->name, commit, c->git);
			if ((err = snapshot_git(p, c->git, commit, q, json_integer_value(sde))) < 0)
				goto cleanup;
		}
		free(p);
		free(q);
		p = q = NULL;
	}
	if (!data) {
		err = BENCH_E_IO;
		goto cleanup;
	}
	/* the runner sources: the Makefile and runners/ (the image runs `make -C /opt/bench runners`), copied
	 * afresh (a runner file this bench no longer has must not reach the image) */
	EVP_DigestUpdate(md, sb.buf, sb.len + 1); /* the recipe (it names the lock, and so every source) */
	p = xstrfmt("%s/bench", dir);
	if (fs_remove_tree(p) < 0) {
		err = bench_error_set(BENCH_E_IO, "cannot clear '%s': %s", p, strerror(errno));
		goto cleanup;
	}
	free(p);
	p = xstrfmt("%s/bench/runners", dir);
	q = xstrfmt("%s/runners", data);
	if ((err = copy_tree(q, p, "runners", md)) < 0)
		goto cleanup;
	free(p);
	free(q);
	p = xstrfmt("%s/bench/Makefile", dir);
	q = xstrfmt("%s/Makefile", data);
	{
		char *buf = NULL;
		size_t len;

		if ((err = fs_read_file(&buf, &len, q, 1u << 20)) == 0)
			err = fs_write_file(p, buf, len, 0644);
		if (!err) {
			EVP_DigestUpdate(md, "Makefile", sizeof("Makefile"));
			EVP_DigestUpdate(md, buf, len);
		}
		free(buf);
		if (err < 0)
			goto cleanup;
	}
	free(p);
	p = xstrfmt("%s/%s", dir, strcmp(format, "apptainer") ? "Containerfile" : "bench.def");
	if ((err = fs_write_file(p, sb.buf, sb.len, 0644)) < 0)
		goto cleanup;
	*out_recipe = p;
	p = NULL;
	EVP_DigestFinal_ex(md, d, NULL);
	for (int i = 0; i < 32; i++)
		snprintf(out_digest + 2 * i, 3, "%02x", d[i]);
cleanup:
	EVP_MD_CTX_free(md);
	recipe_release(&r);
	strbuf_release(&sb);
	free(p);
	free(q);
	return err;
}
