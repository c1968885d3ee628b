/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ring.h — a bounded queue of byte chunks between one producer thread and one consumer thread, so reading,
 * hashing, compressing and writing a bundle overlap on two cores (bundle.c). Slots are fixed buffers of cap
 * bytes; a slot is claimed, filled and published by the producer, then taken and handed back by the consumer.
 *
 * Ownership: the ring owns its slots (ring_release() frees them); pointers from ring_claim()/ring_take() are
 * valid until the matching ring_publish()/ring_done().
 */
#ifndef BENCH_RING_H
#define BENCH_RING_H

#include <pthread.h>
#include <stddef.h>

struct ring {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char **slot;
	size_t *len;
	size_t nslot, cap;
	size_t head, count; /* published slots: head .. head + count - 1 (mod nslot) */
	int closed, failed;
};

void ring_init(struct ring *r, size_t nslot, size_t cap);
void ring_release(struct ring *r);
/* Producer: an empty slot of r->cap bytes (waits for one), or NULL once the consumer has failed. */
unsigned char *ring_claim(struct ring *r);
void ring_publish(struct ring *r, size_t len);
void ring_close(struct ring *r);
/* Consumer: the next published slot (waits), or NULL at the end (closed and drained) or after ring_fail(). */
const unsigned char *ring_take(struct ring *r, size_t *len);
void ring_done(struct ring *r);
/* Either side gives up: the other's waits return NULL. */
void ring_fail(struct ring *r);

#endif
