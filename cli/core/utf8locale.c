/* SPDX-License-Identifier: Apache-2.0 */
#include "utf8locale.h"

#include <pthread.h>

static locale_t utf8;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_make(void)
{
	utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

locale_t utf8locale_push(void)
{
	pthread_once(&utf8_once, utf8_make);
	return utf8 ? uselocale(utf8) : (locale_t)0;
}

void utf8locale_pop(locale_t old)
{
	if (utf8 && old)
		uselocale(old);
}
