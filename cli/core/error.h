/* SPDX-License-Identifier: Apache-2.0 */
/*
 * error.h — library error codes and the last error message.
 *
 * Ownership: the message set by bench_error_set() lives in a per-thread buffer owned by this module; the
 * pointer from bench_error_last() is valid until the next bench_error_set() on the same thread. Library code
 * returns 0 or one of the negative codes below; only cli/ turns a code into an exit status.
 */
#ifndef BENCH_ERROR_H
#define BENCH_ERROR_H

enum bench_err {
	BENCH_OK = 0,
	BENCH_E_FAIL = -1,       /* exit 1: other failure */
	BENCH_E_USAGE = -2,      /* exit 2: usage error */
	BENCH_E_MANIFEST = -3,   /* exit 3: manifest or lock invalid */
	BENCH_E_RESOLVE = -4,    /* exit 4: reference unresolved or moved */
	BENCH_E_BUILD = -5,      /* exit 5: image build failed */
	BENCH_E_SUITE = -6,      /* exit 6: a suite failed or was interrupted */
	BENCH_E_CHECK = -7,      /* exit 7: a correctness check failed */
	BENCH_E_VERIFY = -8,     /* exit 8: verification failed */
	BENCH_E_REGRESSION = -9, /* exit 9: significant regression */
	BENCH_E_NOMEM = -10,     /* exit 1: out of memory */
	BENCH_E_IO = -11,        /* exit 1: file system or I/O failure */
	BENCH_E_EMPTY = -12,     /* exit 10: nothing was measured (every case skipped) */
};

#if defined(__GNUC__)
#define BENCH_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define BENCH_PRINTF(a, b)
#endif

/* Stores a one-line message and returns code, so callers can write `return bench_error_set(...)`. */
int bench_error_set(int code, const char *fmt, ...) BENCH_PRINTF(2, 3);
const char *bench_error_last(void);
void bench_error_clear(void);
/* The process exit status for a library return value (docs/exit-codes.md). */
int bench_exit_code(int err);

#endif
