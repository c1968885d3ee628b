/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jsonarray.h — small operations on jansson arrays that several stages need (a lock's closures, a prefix's
 * libraries): sorting in place, so that the same contents give the same bytes whatever order they came in.
 *
 * Ownership: jsonarray_sort() keeps the array's own references (each element is held once, as before); it
 * allocates nothing that outlives the call.
 */
#ifndef BENCH_JSONARRAY_H
#define BENCH_JSONARRAY_H

#include <jansson.h>

/* Sorts the elements of a with qsort and cmp, which receives two json_t *const * (as qsort passes them). */
void jsonarray_sort(json_t *a, int (*cmp)(const void *, const void *));

#endif
