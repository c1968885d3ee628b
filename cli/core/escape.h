/* SPDX-License-Identifier: Apache-2.0 */
/*
 * escape.h — text from a bundle made safe for a terminal, a markdown table, a spreadsheet and an HTML page: control
 * characters (C0, DEL, C1 as a code point or a lone byte), bidirectional overrides and every byte that is not part
 * of well-formed UTF-8 shown as \xNN (the text is decoded as UTF-8, so a multi-byte character passes whole and the
 * result is always well-formed UTF-8), CSV fields quoted (RFC 4180) with formula prefixes (= + - @, tab, CR at
 * a field's start) neutralised by a leading apostrophe, HTML's five special characters as entities.
 *
 * Ownership: esc_text() returns a malloc'd string the caller frees; esc_json_tree() rewrites the strings (values
 * and keys) of a document it is given in place; esc_csv_field() writes to the stream given.
 */
#ifndef BENCH_ESCAPE_H
#define BENCH_ESCAPE_H

#include <stdio.h>

#include <jansson.h>

struct strbuf;

/* s with every control character as \xNN (a new string; NULL gives NULL) */
char *esc_text(const char *s);
/* 1 when s holds a character esc_text() would rewrite */
int esc_needed(const char *s);
/* 1 when s holds a character Unicode normalisation may change or join to the one before it (a combining mark, a
 * character NFC replaces): s is not one spelling of its name ("e" + U+0301 and U+00E9 are one name) */
int esc_not_nfc(const char *s);
/* a JSON text (as an encoder wrote it) with every character esc_text() would rewrite as a \uXXXX escape (a
 * surrogate pair past U+FFFF): the same document, nothing hidden on a terminal (a new string; NULL gives NULL) */
char *esc_json_text(const char *s);
/* s when it is well-formed UTF-8, else s through esc_text() (its bad bytes, and its control characters, as \xNN): a
 * name of a file or run that a JSON string can hold (a new string; NULL gives NULL) */
char *esc_utf8(const char *s);
/* a JSON string of s, kept as esc_utf8() keeps it, where json_string() refuses s (NULL for NULL) */
json_t *esc_json_string(const char *s);
/* every string of j, keys included, through esc_text() */
void esc_json_tree(json_t *j);
/* every string value of j (keys kept) made markdown text: what esc_text() rewrites as \xNN, then | \ ` [ ] ! * _ ~ #
 * $ @ with a backslash before each, a ':' before '/' (http://) and the '.' of "www." the same way, and & < > as
 * entities, so that no table cell is broken out of, no HTML is rendered and no text becomes a link (an autolink of
 * GitHub's markdown too: a URL, www.host, an e-mail address), an image, emphasis or math */
void esc_json_tree_markdown(json_t *j);
/* one CSV field of text (nothing for NULL) */
void esc_csv_field(FILE *f, const char *s);
/* s appended to o as HTML text or an attribute value: what esc_text() rewrites as \xNN, then & < > " ' as entities
 * (nothing for NULL) */
void esc_html(struct strbuf *o, const char *s);

#endif
