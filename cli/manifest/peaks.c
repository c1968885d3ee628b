/* SPDX-License-Identifier: Apache-2.0 */
#include "peaks.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "ynode.h"

static double number(const struct ynode *n)
{
	if (!n || n->type != YNODE_SCALAR)
		return 0;
	return strtod(n->value, NULL);
}

int peaks_load(struct peaks *out, struct diag_list *diags, const char *path)
{
	struct ynode *root = NULL;
	char *buf = NULL, *own = NULL;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	if (!path) {
		const char *dir = fs_data_dir();

		if (!dir)
			return BENCH_E_IO;
		path = own = xstrfmt("%s/images/bases/peaks.yaml", dir);
	}
	if ((err = fs_read_file(&buf, &len, path, MANIFEST_PEAKS_MAX)) < 0)
		goto cleanup;
	if ((err = ynode_load(&root, diags, path, buf, len)) < 0)
		goto cleanup;
	out->items = xcalloc(root->n, sizeof(*out->items));
	for (size_t i = 0; i < root->n; i++) {
		const struct ynode *v = root->pairs[i].value;
		const struct ynode *name, *vendor;
		struct peak *p;

		if (!v || v->type != YNODE_MAP || !(name = ynode_map_get(v, "name")) || !(vendor = ynode_map_get(v, "vendor")) ||
		    name->type != YNODE_SCALAR || vendor->type != YNODE_SCALAR) {
			diag_add(diags, path, root->pairs[i].key->line, root->pairs[i].key->col,
				 "entry '%s' needs a mapping with 'name' and 'vendor'", root->pairs[i].key->value);
			err = BENCH_E_MANIFEST;
			continue;
		}
		p = &out->items[out->n++];
		p->key = xstrdup(root->pairs[i].key->value);
		p->name = xstrdup(name->value);
		p->vendor = xstrdup(vendor->value);
		p->bf16_tflops = number(ynode_map_get(v, "bf16_tflops"));
		p->fp8_tflops = number(ynode_map_get(v, "fp8_tflops"));
		p->tf32_tflops = number(ynode_map_get(v, "tf32_tflops"));
		p->fp32_tflops = number(ynode_map_get(v, "fp32_tflops"));
		p->hbm_tbps = number(ynode_map_get(v, "hbm_tbps"));
	}
cleanup:
	if (err < 0)
		peaks_release(out);
	ynode_free(root);
	free(buf);
	free(own);
	return err;
}

const struct peak *peaks_find(const struct peaks *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->items[i].key, key))
			return &p->items[i];
	return NULL;
}

double peaks_tflops_for(const struct peak *p, const char *dtype)
{
	if (dtype && !strncmp(dtype, "fp8", 3))
		return p->fp8_tflops;
	if (dtype && !strcmp(dtype, "fp32"))
		return p->fp32_tflops;
	return p->bf16_tflops;
}

void peaks_release(struct peaks *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->items[i].key);
		free(p->items[i].name);
		free(p->items[i].vendor);
	}
	free(p->items);
	p->items = NULL;
	p->n = 0;
}
