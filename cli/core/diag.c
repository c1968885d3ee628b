/* SPDX-License-Identifier: Apache-2.0 */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>

#include "strbuf.h"
#include "core/escape.h"

void diag_add(struct diag_list *dl, const char *file, int line, int col, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	struct diag *d;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(dl->items, dl->n + 1, dl->alloc);
	d = &dl->items[dl->n++];
	d->file = xstrdup(file ? file : "<input>");
	d->line = line;
	d->col = col;
	d->msg = strbuf_detach(&sb);
}

void diag_list_sort(struct diag_list *dl)
{
	/* insertion sort: stable, and lists are short */
	for (size_t i = 1; i < dl->n; i++) {
		struct diag t = dl->items[i];
		size_t j = i;

		while (j > 0 && (dl->items[j - 1].line > t.line ||
				 (dl->items[j - 1].line == t.line && dl->items[j - 1].col > t.col))) {
			dl->items[j] = dl->items[j - 1];
			j--;
		}
		dl->items[j] = t;
	}
}

void diag_list_print(const struct diag_list *dl, FILE *fp)
{
	for (size_t i = 0; i < dl->n; i++) {
		const struct diag *d = &dl->items[i];
		/* a message quotes the file's names and values: no control character reaches the terminal */
		char *f = esc_text(d->file), *m = esc_text(d->msg);

		if (d->line > 0)
			fprintf(fp, "%s:%d:%d: error: %s\n", f, d->line, d->col, m);
		else
			fprintf(fp, "%s: error: %s\n", f, m);
		free(f);
		free(m);
	}
}

void diag_list_release(struct diag_list *dl)
{
	for (size_t i = 0; i < dl->n; i++) {
		free(dl->items[i].file);
		free(dl->items[i].msg);
	}
	free(dl->items);
	dl->items = NULL;
	dl->n = dl->alloc = 0;
}
