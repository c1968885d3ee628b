/* SPDX-License-Identifier: Apache-2.0 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_msg[1024];

int bench_error_set(int code, const char *fmt, ...)
{
	char msg[sizeof(last_msg)]; /* the arguments may include bench_error_last(): never format onto itself */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(last_msg, msg, sizeof(msg));
	return code;
}

const char *bench_error_last(void)
{
	return last_msg[0] ? last_msg : "unknown error";
}

void bench_error_clear(void)
{
	last_msg[0] = '\0';
}

int bench_exit_code(int err)
{
	if (err >= 0)
		return 0;
	if (err == BENCH_E_EMPTY)
		return 10;
	if (err >= BENCH_E_REGRESSION)
		return -err;
	return 1;
}
