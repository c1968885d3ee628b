/* SPDX-License-Identifier: Apache-2.0 */
/* ring.c — the producer/consumer chunk queue. */
#include "ring.h"

#include <stdlib.h>

#include "strbuf.h"

void ring_init(struct ring *r, size_t nslot, size_t cap)
{
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->slot = xcalloc(nslot, sizeof(*r->slot));
	r->len = xcalloc(nslot, sizeof(*r->len));
	for (size_t i = 0; i < nslot; i++)
		r->slot[i] = xmalloc(cap);
	r->nslot = nslot;
	r->cap = cap;
	r->head = r->count = 0;
	r->closed = r->failed = 0;
}

void ring_release(struct ring *r)
{
	for (size_t i = 0; r->slot && i < r->nslot; i++)
		free(r->slot[i]);
	free(r->slot);
	free(r->len);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	r->slot = NULL;
	r->len = NULL;
}

unsigned char *ring_claim(struct ring *r)
{
	unsigned char *p = NULL;

	pthread_mutex_lock(&r->mu);
	while (!r->failed && r->count == r->nslot)
		pthread_cond_wait(&r->cv, &r->mu);
	if (!r->failed)
		p = r->slot[(r->head + r->count) % r->nslot];
	pthread_mutex_unlock(&r->mu);
	return p;
}

void ring_publish(struct ring *r, size_t len)
{
	pthread_mutex_lock(&r->mu);
	r->len[(r->head + r->count) % r->nslot] = len;
	r->count++;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

void ring_close(struct ring *r)
{
	pthread_mutex_lock(&r->mu);
	r->closed = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

const unsigned char *ring_take(struct ring *r, size_t *len)
{
	const unsigned char *p = NULL;

	pthread_mutex_lock(&r->mu);
	while (!r->failed && !r->count && !r->closed)
		pthread_cond_wait(&r->cv, &r->mu);
	if (!r->failed && r->count) {
		p = r->slot[r->head];
		*len = r->len[r->head];
	}
	pthread_mutex_unlock(&r->mu);
	return p;
}

void ring_done(struct ring *r)
{
	pthread_mutex_lock(&r->mu);
	r->head = (r->head + 1) % r->nslot;
	r->count--;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

void ring_fail(struct ring *r)
{
	pthread_mutex_lock(&r->mu);
	r->failed = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}
