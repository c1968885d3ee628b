/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coll.h — collectives exactly as nccl-tests defines them (NVIDIA/nccl-tests src/ *.cu, doc/PERFORMANCE.md):
 * what "size" means per operation, the bus-bandwidth factor, and the exactly known values of the data check.
 *
 * Ownership: pure functions; nothing allocated. coll_value()/coll_expected() are usable from device code.
 */
#ifndef BENCH_COLL_H
#define BENCH_COLL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define COLL_FN __host__ __device__ static inline
#else
#define COLL_FN static inline
#endif

/* OP_SEND_RECV: nccl-tests' sendrecv_perf (src/sendrecv.cu): every rank sends its whole buffer to (r+1)%n and
 * receives one from (r-1+n)%n in one group, S = the buffer, busbw = algbw. OP_P2P: one ordered pair alone
 * (src sends, dst receives, the other ranks idle): the cells of the pair matrix (collectives param pairs). */
enum coll_op { OP_ALL_REDUCE, OP_ALL_GATHER, OP_REDUCE_SCATTER, OP_ALL_TO_ALL, OP_BROADCAST, OP_SEND_RECV, OP_P2P,
	       OP_INVALID };

struct coll_sizes {
	size_t in_count;  /* elements in each rank's send buffer */
	size_t out_count; /* elements in each rank's receive buffer */
	size_t chunk;     /* per-rank chunk (all_gather, reduce_scatter, all_to_all), else the count */
	size_t bytes;     /* the size S nccl-tests reports for this operation, after rounding */
};

enum coll_op coll_op_parse(const char *s);
const char *coll_op_name(enum coll_op op);
/* Rounds the nominal size as nccl-tests does: whole elements, and a multiple of n chunks where the op splits. */
void coll_sizes(struct coll_sizes *out, enum coll_op op, size_t nominal_bytes, size_t elem, int n);
/* busbw = algbw x this factor: 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter, all_to_all,
 * 1 for broadcast, send_recv and p2p. */
double coll_bus_factor(enum coll_op op, int n);
/* algbw in GB/s (1e9) for S bytes in t seconds. */
double coll_algbw_gbps(size_t bytes, double seconds);

/* Input element j of rank r: a small integer, so every sum over up to 64 ranks is exact in bf16. */
COLL_FN float coll_value(int r, size_t j)
{
	return (float)(((size_t)r * 7u + j * 3u) % 5u);
}

/* The expected output element j on rank r (p2p: on the receiving rank, with root = the sending rank). */
COLL_FN float coll_expected(int op, int r, int n, size_t chunk, int root, size_t j)
{
	float s = 0;

	switch (op) {
	case OP_ALL_REDUCE:
		for (int q = 0; q < n; q++)
			s += coll_value(q, j);
		return s;
	case OP_ALL_GATHER:
		return coll_value((int)(j / chunk), j % chunk);
	case OP_REDUCE_SCATTER:
		for (int q = 0; q < n; q++)
			s += coll_value(q, (size_t)r * chunk + j);
		return s;
	case OP_ALL_TO_ALL:
		return coll_value((int)(j / chunk), (size_t)r * chunk + j % chunk);
	case OP_BROADCAST:
	case OP_P2P:
		return coll_value(root, j);
	case OP_SEND_RECV:
		return coll_value((r - 1 + n) % n, j);
	}
	return -1;
}

/* Groups of gsize consecutive ranks of n: the group of rank r (r / gsize) and r's rank in it; -1 when gsize does
 * not divide n or r is out of range. */
COLL_FN int coll_group_of(int r, int n, int gsize, int *group_rank)
{
	if (gsize < 1 || gsize > n || n % gsize || r < 0 || r >= n)
		return -1;
	*group_rank = r % gsize;
	return r / gsize;
}

#endif
