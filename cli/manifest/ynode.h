/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ynode.h — a YAML document as a small tree with source positions, loaded with libyaml's event API.
 *
 * The loader is deliberately narrow: one document, a mapping at the top, no aliases, anchors, tags or merge
 * keys, at most YNODE_MAX_DEPTH levels and YNODE_MAX_KEYS keys in a mapping, valid UTF-8. Loading is n log n in the
 * size of the document: duplicate keys are found by sorting each mapping's keys once. Every violation becomes a positioned diagnostic.
 *
 * Ownership: ynode_load() allocates the tree; ynode_free() frees a node and everything below it. Strings in
 * nodes are owned by their node.
 */
#ifndef BENCH_YNODE_H
#define BENCH_YNODE_H

#include <stddef.h>

#include "core/diag.h"

#define YNODE_MAX_DEPTH 32
#define YNODE_MAX_KEYS 4096 /* keys in one mapping (stack.env included): more is refused at the first one too many */

enum ynode_type { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

struct ynode_pair;

struct ynode {
	enum ynode_type type;
	int line, col;      /* 1-based position of the node's first character */
	int plain;          /* scalar written without quotes or block style */
	char *value;        /* scalar text */
	size_t len;         /* scalar length (may contain NUL when quoted with \0) */
	struct ynode **items; /* sequence */
	struct ynode_pair *pairs; /* mapping, in file order (duplicates kept: the validator reports them) */
	size_t n, alloc;
	const struct ynode *dup_of; /* a mapping key: the earlier key of its mapping with the same text, else NULL */
};

struct ynode_pair {
	struct ynode *key; /* always a scalar */
	struct ynode *value;
};

/* Loads buf (len bytes) named file for messages. Returns 0 with *out set, or BENCH_E_MANIFEST with one or
 * more diagnostics added (then *out is NULL). */
int ynode_load(struct ynode **out, struct diag_list *diags, const char *file, const char *buf, size_t len);
void ynode_free(struct ynode *n);

/* The value of key in mapping map (NULL: map is not a mapping, or has no such key). */
const struct ynode *ynode_map_get(const struct ynode *map, const char *key);
/* A plain scalar that YAML reads as null: empty, "~", "null", "Null", "NULL". */
int ynode_is_null(const struct ynode *n);
/* Adds to d a diagnostic at node n's position in file: "file:line:col: message" (fmt and its arguments). */
void ynode_diag(struct diag_list *d, const char *file, const struct ynode *n, const char *fmt, ...) BENCH_PRINTF(4, 5);
const char *ynode_type_name(const struct ynode *n);
/* The one rule for manifest strings that reach a recipe, a script or a command line: the first control character
 * of scalar n (a byte below 0x20, or 0x7f; with allow_text, tab and newline are allowed), or -1 when it holds none. */
int ynode_control_char(const struct ynode *n, int allow_text);

#endif
