/* SPDX-License-Identifier: Apache-2.0 */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char strbuf_slopbuf[1];

static void die_nomem(size_t n)
{
	fprintf(stderr, "bench: fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die_nomem(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die_nomem(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die_nomem(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb);
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;

	if (want <= sb->alloc)
		return;
	if (sb->alloc == 0)
		sb->buf = NULL;
	sb->alloc = sb->alloc ? sb->alloc : 64;
	while (sb->alloc < want)
		sb->alloc *= 2;
	sb->buf = xrealloc(sb->buf, sb->alloc);
	if (sb->len == 0)
		sb->buf[0] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	if (len) /* (data may be NULL then, which memcpy's arguments must not be: UBSan) */
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;

	strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

char *strbuf_detach(struct strbuf *sb)
{
	char *p;

	if (sb->alloc == 0)
		p = xstrdup("");
	else
		p = sb->buf;
	sb->buf = strbuf_slopbuf;
	sb->len = sb->alloc = 0;
	return p;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sb->buf = strbuf_slopbuf;
	sb->len = sb->alloc = 0;
}
