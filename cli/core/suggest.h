/* SPDX-License-Identifier: Apache-2.0 */
/*
 * suggest.h — "did you mean" for misspelt keys, commands and options.
 *
 * Ownership: returns a pointer into the caller's candidate array (or NULL); nothing is allocated.
 */
#ifndef BENCH_SUGGEST_H
#define BENCH_SUGGEST_H

#include <stddef.h>

/* Optimal-string-alignment distance (Damerau–Levenshtein with adjacent transpositions). */
size_t suggest_distance(const char *a, const char *b);
/* The closest candidate when it is close enough to be a likely typo, else NULL. cands ends with NULL. */
const char *suggest_closest(const char *word, const char *const *cands);

#endif
