/* SPDX-License-Identifier: Apache-2.0 */
/* strvec.c — a growing NULL-terminated vector of owned strings: the argv of a subprocess. */
#include "strvec.h"

#include <stdarg.h>
#include <stdlib.h>

#include "strbuf.h"

void strvec_push(struct strvec *sv, const char *s)
{
	ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = strbuf_detach(&sb);
	sv->v[sv->n] = NULL;
}

void strvec_release(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

char *const *strvec_argv(struct strvec *sv)
{
	if (!sv->v) {
		ALLOC_GROW(sv->v, 1, sv->alloc);
		sv->v[0] = NULL;
	}
	return sv->v;
}
