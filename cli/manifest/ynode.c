/* SPDX-License-Identifier: Apache-2.0 */
#include "ynode.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/strbuf.h"

struct loader {
	yaml_parser_t parser;
	struct diag_list *diags;
	const char *file;
	struct ynode *stack[YNODE_MAX_DEPTH];
	int top;
	struct ynode *root;
	int docs;
	int errors;
	int fatal;
};

static void offset_to_pos(const char *buf, size_t len, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\n') {
			(*line)++;
			*col = 1;
		} else if ((c & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

/* RFC 3629 UTF-8, no overlongs, no surrogates. Returns the offset of the first bad byte, or len. */
static size_t utf8_first_invalid(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t need;
		unsigned int cp;

		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xC2 && c <= 0xDF) {
			need = 1;
			cp = c & 0x1F;
		} else if (c >= 0xE0 && c <= 0xEF) {
			need = 2;
			cp = c & 0x0F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			need = 3;
			cp = c & 0x07;
		} else {
			return i;
		}
		for (size_t k = 1; k <= need; k++) {
			if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
				return i;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return i;
		i += need + 1;
	}
	return len;
}

static struct ynode *node_new(enum ynode_type type, const yaml_mark_t *m)
{
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->type = type;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	return n;
}

void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	free(n->value);
	for (size_t i = 0; n->type == YNODE_SEQ && i < n->n; i++)
		ynode_free(n->items[i]);
	for (size_t i = 0; n->type == YNODE_MAP && i < n->n; i++) {
		ynode_free(n->pairs[i].key);
		ynode_free(n->pairs[i].value);
	}
	free(n->items);
	free(n->pairs);
	free(n);
}

int ynode_control_char(const struct ynode *n, int allow_text)
{
	for (size_t i = 0; n && n->type == YNODE_SCALAR && i < n->len; i++) {
		unsigned char ch = (unsigned char)n->value[i];

		if ((ch < 0x20 || ch == 0x7f) && !(allow_text && (ch == '\t' || ch == '\n')))
			return ch;
	}
	return -1;
}

const struct ynode *ynode_map_get(const struct ynode *map, const char *key)
{
	if (!map || map->type != YNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (!strcmp(map->pairs[i].key->value, key))
			return map->pairs[i].value;
	return NULL;
}

void ynode_diag(struct diag_list *d, const char *file, const struct ynode *n, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	diag_add(d, file, n->line, n->col, "%s", sb.buf);
	strbuf_release(&sb);
}

int ynode_is_null(const struct ynode *n)
{
	if (!n)
		return 1;
	if (n->type != YNODE_SCALAR || !n->plain)
		return 0;
	return n->len == 0 || !strcmp(n->value, "~") || !strcmp(n->value, "null") || !strcmp(n->value, "Null") ||
	       !strcmp(n->value, "NULL");
}

const char *ynode_type_name(const struct ynode *n)
{
	if (!n || ynode_is_null(n))
		return "null";
	switch (n->type) {
	case YNODE_SCALAR:
		return "a scalar";
	case YNODE_SEQ:
		return "a list";
	case YNODE_MAP:
		return "a mapping";
	}
	return "?";
}

static void err_at(struct loader *ld, const yaml_mark_t *m, const char *msg, const char *arg)
{
	diag_add(ld->diags, ld->file, (int)m->line + 1, (int)m->column + 1, msg, arg);
	ld->errors++;
}

/* Attaches n to the open container (or makes it the root). Takes ownership of n. */
static void attach(struct loader *ld, struct ynode *n)
{
	struct ynode *parent;

	if (ld->top == 0) {
		if (ld->root)
			ynode_free(ld->root);
		ld->root = n;
		return;
	}
	parent = ld->stack[ld->top - 1];
	if (parent->type == YNODE_SEQ) {
		ALLOC_GROW(parent->items, parent->n + 1, parent->alloc);
		parent->items[parent->n++] = n;
		return;
	}
	if (parent->n > 0 && parent->pairs[parent->n - 1].value == NULL) {
		parent->pairs[parent->n - 1].value = n;
		return;
	}
	if (n->type != YNODE_SCALAR) {
		diag_add(ld->diags, ld->file, n->line, n->col, "mapping keys must be plain strings, not %s",
			 ynode_type_name(n));
		ld->errors++;
		ld->fatal = 1;
		ynode_free(n);
		return;
	}
	if (parent->n == YNODE_MAX_KEYS) {
		diag_add(ld->diags, ld->file, n->line, n->col, "a mapping holds at most %d keys; this is one too many",
			 YNODE_MAX_KEYS);
		ld->errors++;
		ld->fatal = 1;
		ynode_free(n);
		return;
	}
	if (memchr(n->value, '\0', n->len)) { /* "\u0000" or "\0" in a quoted key: every reader would cut it there */
		diag_add(ld->diags, ld->file, n->line, n->col, "a mapping key holds a NUL character (\\0)");
		ld->errors++;
	}
	if (n->plain && !strcmp(n->value, "<<")) {
		diag_add(ld->diags, ld->file, n->line, n->col, "merge keys ('<<') are not allowed in a manifest");
		ld->errors++;
	}
	ALLOC_GROW(parent->pairs, parent->n + 1, parent->alloc);
	parent->pairs[parent->n].key = n;
	parent->pairs[parent->n].value = NULL;
	parent->n++;
}

static int key_cmp(const void *a, const void *b)
{
	const struct ynode *x = *(const struct ynode *const *)a, *y = *(const struct ynode *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->value, y->value, n);

	if (c || x->len != y->len)
		return c ? c : x->len < y->len ? -1 : 1;
	return x->alloc < y->alloc ? -1 : x->alloc > y->alloc; /* equal keys in file order: the first is the earliest */
}

/* Sets dup_of on every key of map that repeats an earlier one: sorted once, equal neighbours compared. */
static void mark_duplicates(struct ynode *map)
{
	struct ynode **k;

	if (map->n < 2)
		return;
	k = xcalloc(map->n, sizeof(*k));
	for (size_t i = 0; i < map->n; i++) {
		k[i] = map->pairs[i].key;
		k[i]->alloc = i; /* a scalar's alloc is unused: its position in the mapping, for a stable order */
	}
	qsort(k, map->n, sizeof(*k), key_cmp);
	for (size_t i = 0, first = 0; i < map->n; i++) {
		if (i == 0 || k[i]->len != k[first]->len || memcmp(k[i]->value, k[first]->value, k[i]->len)) {
			first = i;
			continue;
		}
		k[i]->dup_of = k[first];
	}
	for (size_t i = 0; i < map->n; i++)
		k[i]->alloc = 0;
	free(k);
}

static void check_props(struct loader *ld, const yaml_mark_t *m, const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor)
		err_at(ld, m, "anchors ('&%s') are not allowed in a manifest", (const char *)anchor);
	if (tag)
		err_at(ld, m, "tags ('%s') are not allowed in a manifest", (const char *)tag);
}

static int handle_event(struct loader *ld, yaml_event_t *ev)
{
	struct ynode *n;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++ld->docs > 1) {
			err_at(ld, &ev->start_mark, "a manifest holds one YAML document; found a second one%s", "");
			ld->fatal = 1;
		}
		break;
	case YAML_ALIAS_EVENT:
		err_at(ld, &ev->start_mark, "aliases ('*%s') are not allowed in a manifest",
		       (const char *)ev->data.alias.anchor);
		n = node_new(YNODE_SCALAR, &ev->start_mark);
		n->plain = 1;
		n->value = xstrdup("");
		attach(ld, n);
		break;
	case YAML_SCALAR_EVENT:
		check_props(ld, &ev->start_mark, ev->data.scalar.anchor, ev->data.scalar.tag);
		n = node_new(YNODE_SCALAR, &ev->start_mark);
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		n->len = ev->data.scalar.length;
		n->value = xstrndup((const char *)ev->data.scalar.value, n->len);
		attach(ld, n);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (ev->type == YAML_SEQUENCE_START_EVENT)
			check_props(ld, &ev->start_mark, ev->data.sequence_start.anchor, ev->data.sequence_start.tag);
		else
			check_props(ld, &ev->start_mark, ev->data.mapping_start.anchor, ev->data.mapping_start.tag);
		if (ld->top == YNODE_MAX_DEPTH) {
			err_at(ld, &ev->start_mark, "nesting deeper than %s levels", "32");
			ld->fatal = 1;
			break;
		}
		n = node_new(ev->type == YAML_SEQUENCE_START_EVENT ? YNODE_SEQ : YNODE_MAP, &ev->start_mark);
		attach(ld, n);
		if (ld->fatal)
			break;
		ld->stack[ld->top++] = n;
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (ld->top > 0 && ld->stack[ld->top - 1]->type == YNODE_MAP)
			mark_duplicates(ld->stack[ld->top - 1]);
		if (ld->top > 0)
			ld->top--;
		break;
	default:
		break;
	}
	return ld->fatal ? -1 : 0;
}

static void parser_error(struct loader *ld, const char *buf, size_t len)
{
	yaml_parser_t *p = &ld->parser;
	int line, col;

	if (p->error == YAML_READER_ERROR) {
		offset_to_pos(buf, len, p->problem_offset, &line, &col);
		diag_add(ld->diags, ld->file, line, col, "invalid YAML: %s", p->problem ? p->problem : "read error");
	} else if (p->error == YAML_MEMORY_ERROR) {
		diag_add(ld->diags, ld->file, 0, 0, "out of memory while parsing");
	} else if (p->context) {
		diag_add(ld->diags, ld->file, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
			 "invalid YAML: %s (%s at line %d)", p->problem ? p->problem : "syntax error", p->context,
			 (int)p->context_mark.line + 1);
	} else {
		diag_add(ld->diags, ld->file, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
			 "invalid YAML: %s", p->problem ? p->problem : "syntax error");
	}
	ld->errors++;
}

int ynode_load(struct ynode **out, struct diag_list *diags, const char *file, const char *buf, size_t len)
{
	struct loader ld;
	size_t bad;
	int done = 0;

	*out = NULL;
	memset(&ld, 0, sizeof(ld));
	ld.diags = diags;
	ld.file = file;

	bad = utf8_first_invalid((const unsigned char *)buf, len);
	if (bad < len) {
		int line, col;

		offset_to_pos(buf, len, bad, &line, &col);
		diag_add(diags, file, line, col, "invalid UTF-8 (byte 0x%02x); a manifest must be UTF-8",
			 (unsigned char)buf[bad]);
		return BENCH_E_MANIFEST;
	}
	if (!yaml_parser_initialize(&ld.parser)) {
		diag_add(diags, file, 0, 0, "cannot initialise the YAML parser");
		return BENCH_E_MANIFEST;
	}
	yaml_parser_set_input_string(&ld.parser, (const unsigned char *)buf, len);
	yaml_parser_set_encoding(&ld.parser, YAML_UTF8_ENCODING);
	while (!done) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&ld.parser, &ev)) {
			parser_error(&ld, buf, len);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		if (handle_event(&ld, &ev) < 0)
			done = 1;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&ld.parser);
	if (!ld.errors) {
		if (!ld.root || ynode_is_null(ld.root)) {
			diag_add(diags, file, 1, 1, "the file is empty; a manifest starts with 'bench: 1'");
			ld.errors++;
		} else if (ld.root->type != YNODE_MAP) {
			diag_add(diags, file, ld.root->line, ld.root->col,
				 "the top level must be a mapping of keys (bench, name, target, ...), not %s",
				 ynode_type_name(ld.root));
			ld.errors++;
		}
	}
	if (ld.errors) {
		ynode_free(ld.root);
		return BENCH_E_MANIFEST;
	}
	*out = ld.root;
	return 0;
}
