/* SPDX-License-Identifier: Apache-2.0 */
#include "envprofile.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "ynode.h"

#define ENVPROFILE_MAX_BYTES (64 * 1024)

static const char *const profile_keys[] = { "description", "vendor", "env", NULL };

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void envprofile_names(struct strvec *out)
{
	const char *data = fs_data_dir();
	char *dir = data ? xstrfmt("%s/images/profiles", data) : NULL;
	DIR *dh = dir ? opendir(dir) : NULL;
	struct dirent *e;
	size_t first = out->n;

	while (dh && (e = readdir(dh))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] != '.' && l > 5 && !strcmp(e->d_name + l - 5, ".yaml"))
			strvec_pushf(out, "%.*s", (int)(l - 5), e->d_name);
	}
	if (dh)
		closedir(dh);
	if (out->n > first)
		qsort(out->v + first, out->n - first, sizeof(*out->v), cmp_str);
	free(dir);
}

static int scalar(const struct ynode *n)
{
	return n && n->type == YNODE_SCALAR && !ynode_is_null(n) && strlen(n->value) == n->len;
}

int envprofile_var_name_ok(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

int envprofile_load(struct env_profile *out, struct diag_list *d, const char *name)
{
	const char *data = fs_data_dir();
	struct ynode *root = NULL;
	char *buf = NULL;
	size_t len, before = d->n;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->name = xstrdup(name);
	out->path = xstrfmt("%s/images/profiles/%s.yaml", data ? data : ".", name);
	if (strchr(name, '/') || (err = fs_read_file(&buf, &len, out->path, ENVPROFILE_MAX_BYTES)) < 0) {
		diag_add(d, out->path, 1, 1, "cannot read env profile '%s': %s", name,
			 err ? bench_error_last() : "not a profile name");
		err = BENCH_E_MANIFEST;
		goto cleanup;
	}
	if ((err = ynode_load(&root, d, out->path, buf, len)) < 0)
		goto cleanup;
	if (root->type != YNODE_MAP) {
		diag_add(d, out->path, root->line, root->col, "an env profile must be a mapping with 'env'");
		goto cleanup;
	}
	for (size_t i = 0; i < root->n; i++) {
		const struct ynode *k = root->pairs[i].key, *v = root->pairs[i].value;
		int known = 0;

		for (size_t j = 0; profile_keys[j]; j++)
			known |= !strcmp(profile_keys[j], k->value);
		if (!known || k->dup_of) {
			diag_add(d, out->path, k->line, k->col, "%s key '%s' in an env profile (description, vendor, env)",
				 k->dup_of ? "duplicate" : "unknown", k->value);
			continue;
		}
		if (!strcmp(k->value, "description") && scalar(v)) {
			out->description = xstrdup(v->value);
		} else if (!strcmp(k->value, "vendor") && scalar(v) &&
			   (!strcmp(v->value, "cuda") || !strcmp(v->value, "rocm") || !strcmp(v->value, "cpu"))) {
			out->vendor = xstrdup(v->value);
		} else if (!strcmp(k->value, "env") && v->type == YNODE_MAP) {
			out->names = xcalloc(v->n + 1, sizeof(*out->names));
			out->values = xcalloc(v->n + 1, sizeof(*out->values));
			for (size_t j = 0; j < v->n; j++) {
				const struct ynode *ek = v->pairs[j].key, *ev = v->pairs[j].value;

				if (ek->dup_of || !envprofile_var_name_ok(ek->value) || !scalar(ev) ||
				    ynode_control_char(ev, 0) >= 0) {
					diag_add(d, out->path, ek->line, ek->col, "env '%s' of a profile must be a unique "
						 "[A-Za-z_][A-Za-z0-9_]* name with a string value", ek->value);
					continue;
				}
				out->names[out->n] = xstrdup(ek->value);
				out->values[out->n++] = xstrdup(ev->value);
			}
		} else {
			diag_add(d, out->path, v->line, v->col, "'%s' of an env profile must be %s", k->value,
				 !strcmp(k->value, "env") ? "a mapping of variables to strings" :
				 !strcmp(k->value, "vendor") ? "one of cuda, rocm, cpu" : "a string");
		}
	}
	if (!out->names && d->n == before)
		diag_add(d, out->path, 1, 1, "env profile '%s' has no 'env' mapping", name);
cleanup:
	if (d->n > before)
		err = BENCH_E_MANIFEST;
	ynode_free(root);
	free(buf);
	if (err < 0)
		envprofile_release(out);
	return err;
}

void envprofile_release(struct env_profile *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->names[i]);
		free(p->values[i]);
	}
	free(p->names);
	free(p->values);
	free(p->name);
	free(p->path);
	free(p->description);
	free(p->vendor);
	memset(p, 0, sizeof(*p));
}
