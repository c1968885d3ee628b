/* SPDX-License-Identifier: Apache-2.0 */
#include "suggest.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *d = xcalloc((la + 1) * (lb + 1), sizeof(*d));
	size_t w = lb + 1, r;

	for (size_t i = 0; i <= la; i++)
		d[i * w] = i;
	for (size_t j = 0; j <= lb; j++)
		d[j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t v = d[(i - 1) * w + j] + 1;

			if (d[i * w + j - 1] + 1 < v)
				v = d[i * w + j - 1] + 1;
			if (d[(i - 1) * w + j - 1] + cost < v)
				v = d[(i - 1) * w + j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[(i - 2) * w + j - 2] + 1 < v)
				v = d[(i - 2) * w + j - 2] + 1;
			d[i * w + j] = v;
		}
	}
	r = d[la * w + lb];
	free(d);
	return r;
}

const char *suggest_closest(const char *word, const char *const *cands)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, len = strlen(word), limit;

	for (size_t i = 0; cands[i]; i++) {
		size_t dist = suggest_distance(word, cands[i]);

		if (dist < best_d) {
			best_d = dist;
			best = cands[i];
		}
	}
	/* a third of the longer word, at least 1 and at most 3 edits */
	limit = len / 3;
	if (best && strlen(best) / 3 > limit)
		limit = strlen(best) / 3;
	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	if (best && best_d <= limit && best_d < len)
		return best;
	return NULL;
}
