/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diag.h — positioned diagnostics ("file:line:col: error: message"), collected so that every problem of a
 * file is reported in one pass.
 *
 * Ownership: a struct diag_list owns its entries and their strings; diag_list_release() frees them. The file
 * name is copied into each entry, so the caller's string need not outlive the list.
 */
#ifndef BENCH_DIAG_H
#define BENCH_DIAG_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

struct diag {
	char *file;
	int line; /* 1-based; 0 when the problem has no position */
	int col;  /* 1-based */
	char *msg;
};

struct diag_list {
	struct diag *items;
	size_t n;
	size_t alloc;
};

#define DIAG_LIST_INIT { NULL, 0, 0 }

void diag_add(struct diag_list *dl, const char *file, int line, int col, const char *fmt, ...) BENCH_PRINTF(5, 6);
/* Orders by position (stable for equal positions), so output follows the file. */
void diag_list_sort(struct diag_list *dl);
void diag_list_print(const struct diag_list *dl, FILE *fp);
void diag_list_release(struct diag_list *dl);

#endif
