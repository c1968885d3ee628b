/* SPDX-License-Identifier: Apache-2.0 */
#include "escape.h"

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

/* 1 for a code point that is shown as \xNN although it is well-formed: C1; the bidirectional embeddings,
 * overrides, isolates and marks, which reorder what a terminal shows; the invisible ones (zero-width space,
 * joiners, word joiner, invisible operators and the deprecated format controls U+206A..206F, the byte order mark,
 * the soft hyphen, the combining grapheme joiner, the Mongolian vowel separator, the interlinear annotation
 * characters, the variation selectors, the tag characters and the Hangul fillers), the line and paragraph
 * separators, which split text, and the noncharacters (U+FDD0..FDEF and the last two of every plane) */
static int cp_hidden(unsigned cp)
{
	return cp <= 0x9f || cp == 0x00ad || cp == 0x034f || cp == 0x061c || cp == 0x115f || cp == 0x1160 ||
	       cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x206f) ||
	       cp == 0x3164 || (cp >= 0xfdd0 && cp <= 0xfdef) || (cp >= 0xfe00 && cp <= 0xfe0f) || cp == 0xfeff ||
	       cp == 0xffa0 || (cp >= 0xfff9 && cp <= 0xfffb) || (cp & 0xfffe) == 0xfffe ||
	       (cp >= 0xe0000 && cp <= 0xe007f) || (cp >= 0xe0100 && cp <= 0xe01ef);
}

/* One step of the escaper at s: sets *len to the bytes it covers and returns 1 when they must be shown as \xNN
 * (C0, DEL, a C1 code point U+0080..U+009F, a byte that does not start a well-formed UTF-8 sequence: an
 * overlong form, a surrogate, a value past U+10FFFF, a stray continuation byte, a sequence cut short), 0 when
 * they are a printable character copied as they are. Every escaped byte is one \xNN: the output is ASCII plus
 * well-formed UTF-8 sequences, so that a terminal in an 8-bit mode never sees a C1 byte and a JSON encoder
 * never refuses it. */
static int step_at(const unsigned char *s, size_t *len, unsigned *cpo)
{
	unsigned cp, need, min;

	*len = 1;
	if (cpo)
		*cpo = *s;
	if (*s < 0x80)
		return *s < 0x20 || *s == 0x7f;
	if (*s >= 0xc2 && *s <= 0xdf)
		need = 1, cp = *s & 0x1f, min = 0x80;
	else if (*s >= 0xe0 && *s <= 0xef)
		need = 2, cp = *s & 0x0f, min = 0x800;
	else if (*s >= 0xf0 && *s <= 0xf4)
		need = 3, cp = *s & 0x07, min = 0x10000;
	else
		return 1; /* a continuation byte, 0xc0, 0xc1 or 0xf5..0xff: never the start of a character */
	for (unsigned k = 1; k <= need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 1; /* cut short (the NUL terminator included): this byte alone, the next one read afresh */
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 1;
	*len = need + 1;
	if (cpo)
		*cpo = cp;
	return cp_hidden(cp);
}

int esc_needed(const char *s)
{
	size_t n;

	for (const unsigned char *p = (const unsigned char *)s; p && *p; p += n)
		if (step_at(p, &n, NULL))
			return 1;
	return 0;
}

char *esc_text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	if (!s)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p += n) {
		if (!step_at(p, &n, NULL)) {
			strbuf_add(&sb, p, n);
			continue;
		}
		for (size_t k = 0; k < n; k++)
			strbuf_addf(&sb, "\\x%02x", p[k]);
	}
	return strbuf_detach(&sb);
}

char *esc_json_text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned cp;
	size_t n;

	if (!s)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p += n) {
		if (!step_at(p, &n, &cp)) {
			strbuf_add(&sb, p, n);
		} else if (cp < 0x20) {
			strbuf_add(&sb, p, n); /* the encoder's own newlines between tokens (it escapes those in strings) */
		} else if (cp >= 0x80 && n == 1) {
			strbuf_addstr(&sb, "\\ufffd"); /* not well-formed UTF-8: no encoder writes it */
		} else if (cp >= 0x10000) {
			cp -= 0x10000;
			strbuf_addf(&sb, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
		} else {
			strbuf_addf(&sb, "\\u%04x", cp);
		}
	}
	return strbuf_detach(&sb);
}

/* j's string set to e; a value jansson still refuses (it cannot be: e is ASCII and well-formed UTF-8) becomes
 * empty rather than keeping the unescaped original */
static void set_escaped(json_t *j, const char *e)
{
	if (json_string_set(j, e) < 0)
		json_string_set(j, "");
}

void esc_json_tree(json_t *j)
{
	if (json_is_string(j)) {
		if (esc_needed(json_string_value(j))) {
			char *e = esc_text(json_string_value(j));

			set_escaped(j, e);
			free(e);
		}
	} else if (json_is_array(j)) {
		size_t i;
		json_t *v;

		json_array_foreach(j, i, v)
			esc_json_tree(v);
	} else if (json_is_object(j)) {
		const char *k;
		json_t *v, *bad = json_array();
		void *tmp;
		size_t i;

		json_object_foreach_safe(j, tmp, k, v) {
			esc_json_tree(v);
			if (esc_needed(k))
				json_array_append_new(bad, json_string(k));
		}
		json_array_foreach(bad, i, v) {
			const char *key = json_string_value(v);
			char *e = esc_text(key);

			json_object_set(j, e, json_object_get(j, key));
			json_object_del(j, key);
			free(e);
		}
		json_decref(bad);
	}
}

void esc_csv_field(FILE *f, const char *s)
{
	int formula;

	if (!s)
		return;
	formula = strchr("=+-@\t\r", *s) && *s;
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void esc_html(struct strbuf *o, const char *s)
{
	char *t = esc_needed(s) ? esc_text(s) : NULL; /* controls, bidi overrides, bad UTF-8: \xNN, as on a terminal */

	for (const char *c = t ? t : s; c && *c; c++)
		switch (*c) {
		case '&':
			strbuf_addstr(o, "&amp;");
			break;
		case '<':
			strbuf_addstr(o, "&lt;");
			break;
		case '>':
			strbuf_addstr(o, "&gt;");
			break;
		case '"':
			strbuf_addstr(o, "&quot;");
			break;
		case '\'':
			strbuf_addstr(o, "&#39;");
			break;
		default:
			strbuf_addch(o, *c);
		}
	free(t);
}
