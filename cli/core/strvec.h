/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strvec.h — a growing vector of strings kept NULL-terminated, for the argv of a program started through
 * posix_spawn (spawn.h): never a shell string.
 *
 * Ownership: the vector owns copies of everything pushed; strvec_release() frees them and leaves it empty and
 * reusable. strvec_argv() lends the array until the next push or release.
 */
#ifndef BENCH_STRVEC_H
#define BENCH_STRVEC_H

#include <stddef.h>

#include "error.h"

struct strvec {
	char **v;
	size_t n, alloc;
};

#define STRVEC_INIT { NULL, 0, 0 }

void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...) BENCH_PRINTF(2, 3);
void strvec_release(struct strvec *sv);
/* The vector as a NULL-terminated array (valid until the next push or release). */
char *const *strvec_argv(struct strvec *sv);

#endif
