/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8locale.h — the calling thread's LC_CTYPE set to C.UTF-8 for a while. bench runs in the C locale (it never
 * calls setlocale), whose ASCII cannot hold a non-ASCII name; libarchive converts member names between UTF-8 and
 * the locale's charset, so archives are written and read between utf8locale_push() and utf8locale_pop(), names
 * passing through as the UTF-8 they are.
 *
 * Ownership: the C.UTF-8 locale object is made once and kept for the life of the process; push returns the
 * thread's previous locale, which pop restores (both do nothing where the C library has no C.UTF-8).
 */
#ifndef BENCH_UTF8LOCALE_H
#define BENCH_UTF8LOCALE_H

#include <locale.h>

/* Sets this thread's LC_CTYPE to C.UTF-8; returns what utf8locale_pop() needs to undo it. */
locale_t utf8locale_push(void);
/* Restores the locale utf8locale_push() replaced. */
void utf8locale_pop(locale_t old);

#endif
