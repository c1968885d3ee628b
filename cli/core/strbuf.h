/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strbuf.h — a growable NUL-terminated byte buffer, after git's strbuf.
 *
 * Ownership: a struct strbuf owns buf; strbuf_release() frees it and leaves an empty buffer, strbuf_detach()
 * hands buf to the caller (who frees it). buf is never NULL after STRBUF_INIT: it points at a shared empty
 * string until the first append. Allocation failure aborts the process (there is nothing sensible to keep).
 */
#ifndef BENCH_STRBUF_H
#define BENCH_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "error.h"

extern char strbuf_slopbuf[1];

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

#define STRBUF_INIT { strbuf_slopbuf, 0, 0 }

void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) BENCH_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_reset(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);

/* Helpers that abort on allocation failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xstrfmt(const char *fmt, ...) BENCH_PRINTF(1, 2);

/* Grows array p (of nr used elements, alloc capacity) to hold at least n elements. */
#define ALLOC_GROW(p, n, alloc)                                                  \
	do {                                                                     \
		if ((size_t)(n) > (alloc)) {                                     \
			(alloc) = (alloc) ? (alloc) * 2 : 8;                      \
			if ((alloc) < (size_t)(n))                               \
				(alloc) = (n);                                   \
			(p) = xrealloc((p), (alloc) * sizeof(*(p)));             \
		}                                                                \
	} while (0)

#endif
