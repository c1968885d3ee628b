/* SPDX-License-Identifier: Apache-2.0 */
#include "jsonarray.h"

#include <stdlib.h>

#include "strbuf.h"

void jsonarray_sort(json_t *a, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(a);
	json_t **v = xcalloc(n ? n : 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(a, i));
	qsort(v, n, sizeof(*v), cmp);
	json_array_clear(a);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, v[i]);
	free(v);
}
