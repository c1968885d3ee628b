/* SPDX-License-Identifier: Apache-2.0 */
#include "escape.h"

#include <stdlib.h>
#include <string.h>

#include "../core/strbuf.h"

/* the length of the control character at s (1: C0 or DEL; 2: C1 in UTF-8, or a lone C1 byte 1), 0: none */
static size_t control_at(const unsigned char *s)
{
	if (*s < 0x20 || *s == 0x7f)
		return 1;
	if (*s == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	if (*s >= 0x80 && *s <= 0x9f) /* not UTF-8 there: a terminal in an 8-bit mode takes it as C1 */
		return 1;
	return 0;
}

int esc_needed(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
		if (control_at(p))
			return 1;
	return 0;
}

char *esc_text(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	if (!s)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = control_at(p);

		if (!n) {
			strbuf_addch(&sb, *p++);
			continue;
		}
		strbuf_addf(&sb, "\\x%02x", n == 2 ? p[1] : *p);
		p += n;
	}
	return strbuf_detach(&sb);
}

void esc_json_tree(json_t *j)
{
	if (json_is_string(j)) {
		if (esc_needed(json_string_value(j))) {
			char *e = esc_text(json_string_value(j));

			json_string_set(j, e);
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
	for (; s && *s; s++)
		switch (*s) {
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
			strbuf_addch(o, *s);
		}
}
