/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench-coll — collective bus bandwidth exactly as nccl-tests defines it (runner contract: docs/architecture.md).
 *   bench-coll --config CASES.json                 one process driving every local GPU, a thread per GPU
 *   mpirun -np N bench-coll --config CASES.json    one rank per GPU (NCCL id over MPI), or backend mpi (CPU)
 * Per case (op, size, placement): warm-up iterations, then `iters` timed iterations cut into `samples` equal
 * batches, an event (GPU) or clock read (CPU) at each batch boundary only: an event recorded between two calls
 * costs the GPU ~2 us, 3-5% of a 16 MiB collective (measured: docs/results/2026-11-30-collectives-h200x2.md).
 * time = mean over iterations and ranks (nccl-tests' figure, in extra); headline = busbw from the median of the
 * samples' per-iteration times (averaged over ranks). Then a data check: inputs filled
 * with exactly known small integers, one more call, every output element compared exactly.
 * Besides the collectives: send_recv (nccl-tests sendrecv_perf: a ring of sends, factor 1); p2p, one ordered pair
 * alone (the cells of pairs: all, timed on the receiver); and any case on one group of consecutive ranks
 * (group_sizes) over a split communicator. Ranks outside a case's pair or group join only its barriers and sums.
 * Telemetry (NCCL/RCCL): each rank that runs a case samples its own GPU over the timed loop; rank 0 writes their
 * combination as the record's extra.telemetry, and extra.energy follows (every GPU's power: power_w_total).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef BENCH_MPI
#include <mpi.h>
#endif

#include "../common/ccllog.h"
#include "../common/dtype.h"
#include "../common/gpu.h"
#include "../common/record.h"
#include "coll.h"

#if defined(BENCH_GPU)
#if defined(BENCH_HIP)
#include <rccl/rccl.h>
#define CCL_NAME "rccl"
#else
#include <nccl.h>
#define CCL_NAME "nccl"
#endif
#define BENCH_CCL 1
#include "../common/telemetry.h"
int gpu_coll_fill(void *p, int dtype, size_t count, int rank, size_t base, gpuStream_t s);
long long gpu_coll_check(const void *p, int dtype, size_t count, int op, int rank, int n, size_t chunk, int root,
			 gpuStream_t s);
#endif

static const char *const usage = "bench-coll --config CASES.json  (under mpirun: one rank per GPU, or backend mpi)";

/* Test hook: BENCH_FAULT=coll-wrong plants one wrong element on rank 0 before the data check, so the tests
 * can prove the check catches it. */
#if !defined(BENCH_MPI) && !defined(BENCH_CCL)
#define COLL_NO_BACKEND __attribute__((unused)) /* built with neither: every case fails with the reason, none runs */
#else
#define COLL_NO_BACKEND
#endif
#ifdef BENCH_CCL
#define COLL_CCL_ONLY
#else
#define COLL_CCL_ONLY __attribute__((unused)) /* the debug-log capture serves NCCL/RCCL alone */
#endif

COLL_NO_BACKEND static int fault_wrong(int rank)
{
	const char *f = getenv("BENCH_FAULT");

	return rank == 0 && f && !strcmp(f, "coll-wrong");
}

/* Test hook: BENCH_FAULT=coll-hang makes the last rank stop answering before the third case (a hung node), so
 * the tests can prove the CLI ends the job at the suite timeout and keeps the two records already written. */
static void fault_hang(int rank, int n, size_t ci)
{
	const char *f = getenv("BENCH_FAULT");

	if (f && !strcmp(f, "coll-hang") && n > 1 && rank == n - 1 && ci == 2)
		for (;;)
			sleep(60);
}

/* ---- a team of ranks: threads of one process, or MPI ranks -------------------------------------------------- */

struct team {
	int rank, n, mpi;
	pthread_barrier_t *bar;
	double **slots; /* thread team: each rank's vector, for sums */
};

static void team_barrier(struct team *t)
{
#ifdef BENCH_MPI
	if (t->mpi) {
		MPI_Barrier(MPI_COMM_WORLD);
		return;
	}
#endif
	pthread_barrier_wait(t->bar);
}

/* v[i] := sum over ranks of v[i] */
static void team_sum(struct team *t, double *v, size_t n)
{
	double *tmp;

#ifdef BENCH_MPI
	if (t->mpi) {
		MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		return;
	}
#endif
	tmp = calloc(n ? n : 1, sizeof(*tmp));
	t->slots[t->rank] = v;
	pthread_barrier_wait(t->bar);
	for (int q = 0; q < t->n; q++)
		for (size_t i = 0; i < n; i++)
			tmp[i] += t->slots[q][i];
	pthread_barrier_wait(t->bar);
	memcpy(v, tmp, n * sizeof(*v));
	free(tmp);
}

/* ---- one case on one rank ------------------------------------------------------------------------------------- */

struct ccase {
	const char *key;
	enum coll_op op;
	enum dtype dt;
	int in_place;
	size_t nominal;
	int root, warmup, iters, check;
	int every; /* timed iterations per sample: an event pair costs the GPU ~2 us per call boundary */
	int src, dst;     /* p2p: the sending and the receiving rank (root = src) */
	int gsize, group; /* a group case: ranks [group x gsize, (group + 1) x gsize) run it, the others idle; 0 = all */
};

struct outcome {
	json_t *telemetry; /* rank 0: the case's extra.telemetry (every active GPU's window), or NULL */
	double *iter_ms; /* per-iteration time of each sample (a batch of `every` iterations), mean over ranks */
	size_t nsamples;
	double loop_ms;  /* whole timed loop / iters, mean over ranks (nccl-tests' time) */
	long long wrong;
	int status;      /* 0 ok, 1 skipped, 2 failed */
	char why[256];
	struct coll_sizes sz;
};

/* One rank's telemetry over a case's timed loop, as numbers a team sum carries: rank r fills slot r of an n x TEL_K
 * vector of zeros, and the sum hands every slot to rank 0. */
enum { TEL_ACTIVE, TEL_OK, TEL_N, TEL_SM_MIN, TEL_SM_MEDIAN, TEL_SM_MAX, TEL_POWER, TEL_TEMP_MAX, TEL_REASONS_LO,
       TEL_REASONS_HI, TEL_WINDOW_MS, TEL_ENERGY_OK, TEL_ENERGY_J, TEL_K };

struct backend {
	const char *name;
	int async; /* GPU streams: the timed loop follows the warm-up without a host sync (see run_case) */
	/* prepare buffers; 1 = does not fit (why set), -1 = error */
	int (*prepare)(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank, int n, char *why, size_t whylen);
	int (*fill)(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank);
	int (*run)(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank, int n, int timed, size_t i);
	/* sync and read the clocks: per-iteration time of each sample into iter_ms (*nsamples of them), loop / iters */
	int (*finish)(void *ctx, const struct ccase *c, double *iter_ms, size_t *nsamples, double *loop_ms);
	long long (*check)(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank, int n);
	/* a communicator of the ranks with the same color (groups of gsize), called by every rank; it becomes the
	 * one the next calls use (gsize 0: the world again); 1 = not available (why set) */
	int (*split)(void *ctx, int gsize, int color, int key, char *why, size_t whylen);
	/* telemetry of this rank's device over the timed loop: window_begin and window_end (which fills one TEL_K
	 * slot) are NULL where there is none (the CPU); telemetry_json, on rank 0, makes the case's extra.telemetry
	 * of every rank's slot (NULL slots where there are no windows) */
	void (*window_begin)(void *ctx);
	void (*window_end)(void *ctx, double *slot);
	json_t *(*telemetry_json)(void *ctx, const double *slots, int n);
	void *ctx;
};

/* Which ranks take part in case c, this rank's rank among them (cr) and their count (cn): a group's ranks, a pair's
 * two (they keep their world ranks: p2p names its peers by them), or every rank. */
static int case_active(const struct ccase *c, const struct team *t, int *cr, int *cn)
{
	*cr = t->rank;
	*cn = t->n;
	if (c->op == OP_P2P)
		return t->rank == c->src || t->rank == c->dst;
	if (c->gsize) {
		int g = coll_group_of(t->rank, t->n, c->gsize, cr);

		*cn = c->gsize;
		return g == c->group;
	}
	return 1;
}

/* Rank 0's extra.telemetry of a case from every active rank's window (mine: this rank's slot); every rank calls it. */
static json_t *case_telemetry(struct team *t, const struct backend *b, int act, const double *mine)
{
	double *all = NULL;
	json_t *out = NULL;

	if (b->window_end) {
		all = calloc((size_t)t->n * TEL_K, sizeof(*all));
		if (act)
			memcpy(all + (size_t)t->rank * TEL_K, mine, TEL_K * sizeof(*all));
		team_sum(t, all, (size_t)t->n * TEL_K);
	}
	if (t->rank == 0)
		out = b->telemetry_json(b->ctx, all, t->n);
	free(all);
	return out;
}

static int run_case(struct outcome *o, struct team *t, const struct backend *b, const struct ccase *c)
{
	double flags[2] = { 0, 0 }, wrong, tel[TEL_K] = { 0 };
	size_t elem = dtype_size(c->dt);
	int rc = 0, cr, cn, act, nact, sgroup, win = 0;

	memset(o, 0, sizeof(*o));
	act = case_active(c, t, &cr, &cn);
	nact = c->op == OP_P2P ? 1 : cn; /* p2p: the receiver's clock alone (the data has arrived) */
	coll_sizes(&o->sz, c->op, c->nominal, elem, cn);
	o->iter_ms = calloc((size_t)c->iters, sizeof(double));
	if (c->op == OP_P2P && (c->src < 0 || c->dst < 0 || c->src >= t->n || c->dst >= t->n || c->src == c->dst)) {
		o->status = 1;
		snprintf(o->why, sizeof(o->why), "pair %d-%d is not two distinct ranks of %d", c->src, c->dst, t->n);
		return 0;
	}
	if (c->gsize && (c->gsize > t->n || t->n % c->gsize || c->group < 0 || c->group >= t->n / c->gsize)) {
		o->status = 1;
		snprintf(o->why, sizeof(o->why), "group %d of size %d does not fit %d ranks (the size must divide the rank "
			 "count)", c->group, c->gsize, t->n);
		return 0;
	}
	if (c->op == OP_BROADCAST && c->root >= cn) {
		o->status = 1;
		snprintf(o->why, sizeof(o->why), "root %d is outside a group of %d ranks", c->root, cn);
		return 0;
	}
	if (o->sz.bytes == 0) {
		o->status = 1;
		snprintf(o->why, sizeof(o->why), "size %zu is smaller than one element per rank (%d ranks)", c->nominal, cn);
		return 0;
	}
	if ((c->op == OP_SEND_RECV || c->op == OP_P2P) && c->in_place) {
		o->status = 1; /* nccl-tests src/sendrecv.cu: "We don't support in-place sendrecv" (it reports no errors) */
		snprintf(o->why, sizeof(o->why), "%s has no in-place form (send and receive buffers must differ)",
			 coll_op_name(c->op));
		return 0;
	}
	/* every rank takes part in a split, members or not */
	sgroup = c->gsize ? coll_group_of(t->rank, t->n, c->gsize, &cr) : 0;
	if (b->split(b->ctx, c->gsize && c->gsize < t->n ? c->gsize : 0, sgroup, cr, o->why, sizeof(o->why)) != 0) {
		o->status = 1;
		if (!o->why[0])
			snprintf(o->why, sizeof(o->why), "cannot split the communicator into groups of %d", c->gsize);
	}
	flags[0] = o->status == 1;
	team_sum(t, flags, 1);
	if (flags[0]) {
		o->status = 1;
		if (!o->why[0])
			snprintf(o->why, sizeof(o->why), "another rank could not split the communicator");
		return 0;
	}
	if (c->op == OP_ALL_TO_ALL && c->in_place && strcmp(b->name, "mpi")) {
		o->status = 1;
		snprintf(o->why, sizeof(o->why), "all_to_all has no in-place form in %s (send/recv need distinct buffers)",
			 b->name);
		return 0;
	}
	if (act)
		rc = b->prepare(b->ctx, c, &o->sz, cr, cn, o->why, sizeof(o->why));
	flags[0] = rc == 1;
	flags[1] = rc < 0;
	team_sum(t, flags, 2); /* every rank skips or fails together */
	if (flags[0] || flags[1]) {
		o->status = flags[1] ? 2 : 1;
		if (!rc)
			snprintf(o->why, sizeof(o->why), "another rank could not allocate the buffers");
		return 0;
	}
	if (act && b->fill(b->ctx, c, &o->sz, cr) < 0)
		goto fail;
	team_barrier(t);
	/* Warm-up (at least one call). On GPU streams the timed loop is enqueued right behind it without a host
	 * sync: the last warm-up collective finishes at the same moment on every rank, so the ranks' timed loops
	 * start aligned, as nccl-tests' do (one thread launching every GPU). A host barrier instead would let
	 * thread or process wake-up skew into the first timed iteration. */
	for (int i = 0; act && i < (c->warmup > 0 ? c->warmup : 1); i++)
		if (b->run(b->ctx, c, &o->sz, cr, cn, 0, 0) < 0)
			goto fail;
	if (!b->async) {
		if (act && b->finish(b->ctx, c, NULL, NULL, NULL) < 0)
			goto fail;
		team_barrier(t);
	}
	/* The telemetry window (each active GPU's own) opens right before the timed loop is enqueued and closes once
	 * finish() has synced: on GPU streams the tail of the warm-up may still run when it opens. */
	if (act && b->window_begin) {
		b->window_begin(b->ctx);
		win = 1;
	}
	for (int i = 0; act && i < c->iters; i++)
		if (b->run(b->ctx, c, &o->sz, cr, cn, 1, (size_t)i) < 0)
			goto fail;
	if (act && b->finish(b->ctx, c, o->iter_ms, &o->nsamples, &o->loop_ms) < 0)
		goto fail;
	if (win) {
		b->window_end(b->ctx, tel);
		win = 0;
	}
	/* idle ranks add zeros: the means are over the ranks that ran the case (p2p: the receiver) */
	o->nsamples = (size_t)((c->iters + c->every - 1) / c->every);
	if (c->op == OP_P2P && t->rank != c->dst) {
		memset(o->iter_ms, 0, o->nsamples * sizeof(*o->iter_ms));
		o->loop_ms = 0;
	}
	team_sum(t, o->iter_ms, o->nsamples);
	for (size_t i = 0; i < o->nsamples; i++)
		o->iter_ms[i] /= nact;
	team_sum(t, &o->loop_ms, 1);
	o->loop_ms /= nact;
	o->telemetry = case_telemetry(t, b, act, tel);
	wrong = 0;
	if (c->check) {
		team_barrier(t);
		if (act && b->fill(b->ctx, c, &o->sz, cr) < 0)
			goto fail;
		team_barrier(t);
		if (act && (b->run(b->ctx, c, &o->sz, cr, cn, 0, 0) < 0 || b->finish(b->ctx, c, NULL, NULL, NULL) < 0))
			goto fail;
		if (act)
			wrong = (double)b->check(b->ctx, c, &o->sz, cr, cn);
	}
	team_sum(t, &wrong, 1);
	o->wrong = (long long)wrong;
	return 0;
fail:
	if (win)
		b->window_end(b->ctx, tel);
	o->status = 2;
	if (!o->why[0])
		snprintf(o->why, sizeof(o->why), "%s %s failed", b->name, coll_op_name(c->op));
	return -1;
}

/* ---- backend mpi: host buffers --------------------------------------------------------------------------------- */
#ifdef BENCH_MPI
struct mpi_ctx {
	unsigned char *send, *recv;
	size_t send_bytes, recv_bytes;
	double t0, loop0;
	double *iter;
	size_t n_iter;
	MPI_Op sum16[2]; /* bf16, fp16 sums */
	MPI_Comm comm;   /* the case's: the world, or this rank's group */
	MPI_Comm split[65]; /* by group size, made on first use */
};

static int mpi_split(void *ctx, int gsize, int color, int key, char *why, size_t whylen)
{
	struct mpi_ctx *m = ctx;

	if (gsize <= 0) {
		m->comm = MPI_COMM_WORLD;
		return 0;
	}
	if (gsize > 64) {
		snprintf(why, whylen, "groups of %d ranks: at most 64", gsize);
		return 1;
	}
	if (m->split[gsize] == MPI_COMM_NULL && MPI_Comm_split(MPI_COMM_WORLD, color, key, &m->split[gsize]) != MPI_SUCCESS) {
		snprintf(why, whylen, "MPI_Comm_split into groups of %d failed", gsize);
		return 1;
	}
	m->comm = m->split[gsize];
	return 0;
}

static void sum_bf16(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	uint16_t *a = in, *b = inout;

	(void)dt;
	for (int i = 0; i < *len; i++)
		b[i] = float_to_bf16(bf16_to_float(a[i]) + bf16_to_float(b[i]));
}

static uint16_t float_to_fp16(float f)
{
	/* exact for the small integers of the data check and for ordinary values; round to nearest */
	uint32_t x, sign, mant;
	int exp;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000;
	exp = (int)((x >> 23) & 0xff) - 127 + 15;
	mant = x & 0x7fffff;
	if (exp <= 0)
		return (uint16_t)sign;
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00);
	mant += 0x1000;
	if (mant & 0x800000) {
		mant = 0;
		exp++;
	}
	return (uint16_t)(sign | (uint32_t)exp << 10 | mant >> 13);
}

static void sum_fp16(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	uint16_t *a = in, *b = inout;

	(void)dt;
	for (int i = 0; i < *len; i++)
		b[i] = float_to_fp16(fp16_to_float(a[i]) + fp16_to_float(b[i]));
}

static MPI_Datatype mpi_type(enum dtype dt)
{
	return dt == DT_FP32 ? MPI_FLOAT : MPI_UINT16_T;
}

static MPI_Op mpi_sum(struct mpi_ctx *m, enum dtype dt)
{
	return dt == DT_FP32 ? MPI_SUM : m->sum16[dt == DT_FP16];
}

static int mpi_prepare(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank, int n, char *why, size_t whylen)
{
	struct mpi_ctx *m = ctx;
	size_t elem = dtype_size(c->dt), sb = sz->in_count * elem, rb = sz->out_count * elem;

	(void)rank;
	(void)n;
	if (c->in_place) /* one buffer holds input and output */
		sb = 0, rb = (sz->in_count > sz->out_count ? sz->in_count : sz->out_count) * elem;
	if (sb > m->send_bytes) {
		free(m->send);
		m->send = malloc(sb);
		m->send_bytes = m->send ? sb : 0;
	}
	if (rb > m->recv_bytes) {
		free(m->recv);
		m->recv = malloc(rb);
		m->recv_bytes = m->recv ? rb : 0;
	}
	if ((sb && !m->send) || !m->recv) {
		snprintf(why, whylen, "out of host memory for %zu + %zu bytes", sb, rb);
		return 1;
	}
	return 0;
}

static void put(unsigned char *p, enum dtype dt, size_t i, float v)
{
	if (dt == DT_FP32)
		((float *)p)[i] = v;
	else if (dt == DT_BF16)
		((uint16_t *)p)[i] = float_to_bf16(v);
	else
		((uint16_t *)p)[i] = float_to_fp16(v);
}

static float get(const unsigned char *p, enum dtype dt, size_t i)
{
	if (dt == DT_FP32)
		return ((const float *)p)[i];
	if (dt == DT_BF16)
		return bf16_to_float(((const uint16_t *)p)[i]);
	return fp16_to_float(((const uint16_t *)p)[i]);
}

/* Where this rank's input lives: the send buffer, or inside the receive buffer when in place. */
static unsigned char *mpi_input(struct mpi_ctx *m, const struct ccase *c, const struct coll_sizes *sz, int rank)
{
	if (!c->in_place)
		return m->send;
	if (c->op == OP_ALL_GATHER)
		return m->recv + (size_t)rank * sz->chunk * dtype_size(c->dt);
	return m->recv;
}

static int mpi_fill(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank)
{
	struct mpi_ctx *m = ctx;
	unsigned char *in = mpi_input(m, c, sz, rank);

	for (size_t j = 0; j < sz->in_count; j++)
		put(in, c->dt, j, coll_value(rank, j));
	if (!c->in_place)
		memset(m->recv, 0xff, sz->out_count * dtype_size(c->dt));
	return 0;
}

static int mpi_run(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank, int n, int timed, size_t i)
{
	struct mpi_ctx *m = ctx;
	size_t elem = dtype_size(c->dt);
	MPI_Datatype t = mpi_type(c->dt);
	void *send = c->in_place ? MPI_IN_PLACE : m->send;
	double t0 = MPI_Wtime();
	int rc = MPI_SUCCESS;

	if (timed && i == 0)
		m->loop0 = t0;
	switch (c->op) {
	case OP_ALL_REDUCE:
		rc = MPI_Allreduce(send, m->recv, (int)sz->in_count, t, mpi_sum(m, c->dt), m->comm);
		break;
	case OP_ALL_GATHER:
		rc = MPI_Allgather(send, (int)sz->chunk, t, m->recv, (int)sz->chunk, t, m->comm);
		break;
	case OP_REDUCE_SCATTER:
		rc = MPI_Reduce_scatter_block(send, c->in_place ? m->recv : m->recv, (int)sz->chunk, t, mpi_sum(m, c->dt),
					      m->comm);
		break;
	case OP_ALL_TO_ALL:
		rc = MPI_Alltoall(send, (int)sz->chunk, t, m->recv, (int)sz->chunk, t, m->comm);
		break;
	case OP_BROADCAST:
		if (!c->in_place && rank == c->root)
			memcpy(m->recv, m->send, sz->in_count * elem);
		rc = MPI_Bcast(m->recv, (int)sz->in_count, t, c->root, m->comm);
		break;
	case OP_SEND_RECV: /* nccl-tests src/sendrecv.cu: send to (r+1)%n, receive from (r-1+n)%n, both at once */
		rc = MPI_Sendrecv(m->send, (int)sz->in_count, t, (rank + 1) % n, 0, m->recv, (int)sz->out_count, t,
				  (rank - 1 + n) % n, 0, m->comm, MPI_STATUS_IGNORE);
		break;
	case OP_P2P: /* one ordered pair alone: ranks are world ranks */
		if (rank == c->src)
			rc = MPI_Send(m->send, (int)sz->in_count, t, c->dst, 1, m->comm);
		else if (rank == c->dst)
			rc = MPI_Recv(m->recv, (int)sz->out_count, t, c->src, 1, m->comm, MPI_STATUS_IGNORE);
		break;
	default:
		return -1;
	}
	if (timed) { /* boundaries, as on GPUs: iteration i runs from the end of i - 1 to the end of i */
		double now = MPI_Wtime();

		if (i >= m->n_iter) {
			m->iter = realloc(m->iter, (i + 1) * 2 * sizeof(double));
			m->n_iter = (i + 1) * 2;
		}
		m->iter[i] = (now - (i == 0 ? t0 : m->t0)) * 1e3;
		m->t0 = now;
	}
	return rc == MPI_SUCCESS ? 0 : -1;
}

static int mpi_finish(void *ctx, const struct ccase *c, double *iter_ms, size_t *nsamples, double *loop_ms)
{
	struct mpi_ctx *m = ctx;

	if (iter_ms) { /* samples as on GPUs: the mean iteration time of each batch of `every` iterations */
		size_t iters = (size_t)c->iters, every = (size_t)c->every, ns = (iters + every - 1) / every;

		for (size_t j = 0; j < ns; j++) {
			size_t len = iters - j * every < every ? iters - j * every : every;
			double sum = 0;

			for (size_t i = j * every; i < j * every + len; i++)
				sum += m->iter[i];
			iter_ms[j] = sum / (double)len;
		}
		*nsamples = ns;
		*loop_ms = (m->t0 - m->loop0) * 1e3 / (double)iters;
	}
	return 0;
}

static json_t *mpi_telemetry_json(void *ctx, const double *slots, int n)
{
	(void)ctx;
	(void)slots;
	(void)n;
	return json_pack("{s:b, s:s}", "available", 0, "why", "no telemetry on the CPU (backend mpi: host buffers)");
}

static long long mpi_check(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank, int n)
{
	struct mpi_ctx *m = ctx;
	const unsigned char *out = m->recv;
	long long wrong = 0;

	if (c->in_place && c->op == OP_REDUCE_SCATTER)
		out = m->recv; /* MPI_Reduce_scatter_block in place leaves this rank's chunk at the start */
	if (c->op == OP_P2P && rank != c->dst)
		return 0; /* the sender has nothing to check */
	if (fault_wrong(c->op == OP_P2P ? 0 : rank))
		put(m->recv, c->dt, 0, 99.0f);
	for (size_t j = 0; j < sz->out_count; j++)
		wrong += get(out, c->dt, j) != coll_expected(c->op, rank, n, sz->chunk, c->root, j);
	return wrong;
}
#endif

/* ---- backend nccl / rccl: a GPU per rank --------------------------------------------------------------------- */
#ifdef BENCH_CCL
struct ccl_ctx {
	int dev;
	gpuStream_t s;
	ncclComm_t comm;
	void *send, *recv;
	size_t send_bytes, recv_bytes;
	gpuEvent_t *ev; /* ev[0] before the first timed call, ev[j + 1] after the last call of sample j */
	size_t nev;
	ncclComm_t world;      /* the communicator of every rank */
	ncclComm_t split[65];  /* by group size, made on first use (ncclCommSplit) */
	struct telemetry tel;  /* NVML on this rank's GPU */
};

/* NVML on this rank's own GPU, found by its PCI bus id; nothing else (NVML's index 0 may be another rank's GPU). */
static void ccl_telemetry_open(struct ccl_ctx *g, int rank)
{
	char bus[32] = "";

	if (gpuDeviceGetPCIBusId(bus, (int)sizeof(bus), g->dev) != gpuSuccess) {
		gpuGetLastError();
		bus[0] = '\0';
	}
	if (!bus[0]) {
		telemetry_close(&g->tel);
		snprintf(g->tel.why, sizeof(g->tel.why), "telemetry unavailable: cannot read GPU %d's PCI bus id", g->dev);
	} else if (telemetry_open(&g->tel, bus) == 0 && strncmp(g->tel.match, "pci bus id", 10)) {
		telemetry_close(&g->tel);
		snprintf(g->tel.why, sizeof(g->tel.why), "telemetry unavailable: NVML has no GPU at PCI bus id %s", bus);
	}
	if (!g->tel.ok)
		fprintf(stderr, "bench-coll: rank %d: %s\n", rank, g->tel.why);
}

static void ccl_window_begin(void *ctx)
{
	struct ccl_ctx *g = ctx;

	telemetry_window_begin(&g->tel);
}

static void ccl_window_end(void *ctx, double *slot)
{
	struct ccl_ctx *g = ctx;
	struct telemetry_summary s;

	telemetry_window_end(&g->tel, &s);
	memset(slot, 0, TEL_K * sizeof(*slot));
	slot[TEL_ACTIVE] = 1;
	slot[TEL_OK] = g->tel.ok && s.available;
	slot[TEL_N] = (double)s.n;
	if (s.n) {
		slot[TEL_SM_MIN] = s.sm_mhz_min;
		slot[TEL_SM_MEDIAN] = s.sm_mhz_median;
		slot[TEL_SM_MAX] = s.sm_mhz_max;
		slot[TEL_POWER] = s.power_w_median;
		slot[TEL_TEMP_MAX] = s.temp_c_max;
		slot[TEL_REASONS_LO] = (double)(s.reasons & 0xffffffffULL); /* 32 bits each: exact in a double */
		slot[TEL_REASONS_HI] = (double)(s.reasons >> 32);
		slot[TEL_WINDOW_MS] = s.window_ms;
		slot[TEL_ENERGY_OK] = s.energy_ok;
		slot[TEL_ENERGY_J] = s.energy_j;
	}
}

/* The case's telemetry over its active GPUs, from their slots (telemetry_combined_json: docs/manifest-format.md,
 * "Energy and cost"). A rank without telemetry or without a sample makes it unavailable, with the reason: rank 0
 * knows only its own (another rank's is on the runner's stderr, and most likely the same). */
static json_t *ccl_telemetry_json(void *ctx, const double *all, int n)
{
	struct ccl_ctx *g = ctx;
	struct telemetry_summary *per = calloc((size_t)n + 1, sizeof(*per));
	size_t k = 0;
	json_t *out;

	for (int r = 0; r < n; r++) {
		const double *v = all + (size_t)r * TEL_K;
		struct telemetry_summary *s = &per[k];

		if (!v[TEL_ACTIVE])
			continue;
		k++;
		s->available = v[TEL_OK] != 0;
		s->n = (size_t)v[TEL_N];
		s->source = g->tel.ok ? g->tel.src.name : "nvml";
		if (!s->available && r == 0)
			snprintf(s->why, sizeof(s->why), "rank 0: %.180s", g->tel.why[0] ? g->tel.why : "telemetry unavailable");
		else if (!s->available && !g->tel.ok)
			snprintf(s->why, sizeof(s->why), "rank %d: telemetry unavailable (rank 0's reason: %.120s)", r, g->tel.why);
		else if (!s->available)
			snprintf(s->why, sizeof(s->why), "rank %d: telemetry unavailable (its reason is on the runner's stderr)", r);
		else if (!s->n)
			snprintf(s->why, sizeof(s->why), "rank %d: the timed window saw no sample", r);
		s->sm_mhz_min = v[TEL_SM_MIN];
		s->sm_mhz_median = v[TEL_SM_MEDIAN];
		s->sm_mhz_max = v[TEL_SM_MAX];
		s->power_w_median = v[TEL_POWER];
		s->temp_c_max = v[TEL_TEMP_MAX];
		s->reasons = (unsigned long long)v[TEL_REASONS_LO] | (unsigned long long)v[TEL_REASONS_HI] << 32;
		s->window_ms = v[TEL_WINDOW_MS];
		s->energy_ok = v[TEL_ENERGY_OK] != 0;
		s->energy_j = v[TEL_ENERGY_J];
	}
	out = telemetry_combined_json(per, k);
	free(per);
	return out;
}

#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
#define CCL_HAVE_SPLIT 1
#endif

static int ccl_split(void *ctx, int gsize, int color, int key, char *why, size_t whylen)
{
	struct ccl_ctx *g = ctx;

	if (gsize <= 0) {
		g->comm = g->world;
		return 0;
	}
	if (gsize > 64) {
		snprintf(why, whylen, "groups of %d ranks: at most 64", gsize);
		return 1;
	}
#ifdef CCL_HAVE_SPLIT
	gpuSetDevice(g->dev);
	if (!g->split[gsize] && ncclCommSplit(g->world, color, key, &g->split[gsize], NULL) != ncclSuccess) {
		g->split[gsize] = NULL;
		snprintf(why, whylen, "ncclCommSplit into groups of %d failed", gsize);
		return 1;
	}
	g->comm = g->split[gsize];
	return 0;
#else
	(void)color;
	(void)key;
	snprintf(why, whylen, "groups need ncclCommSplit (NCCL 2.18 or later); this build's library is older");
	return 1;
#endif
}

static void ccl_release_splits(struct ccl_ctx *g)
{
	for (int i = 0; i <= 64; i++)
		if (g->split[i])
			ncclCommDestroy(g->split[i]);
}

/* all_to_all: NCCL 2.28 has ncclAlltoAll, and nccl-tests calls it wherever the loaded library has it (grouped
 * send/recv before). bench-coll makes the same choice from the loaded library's version (ccl_native_a2a, set
 * once before any rank starts), so both sides time the same call; the records name it (extra.call). */
#if !defined(BENCH_HIP) && defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#define CCL_HAVE_ALLTOALL 1
#endif
static int ccl_native_a2a;

static ncclDataType_t ccl_type(enum dtype dt)
{
	return dt == DT_FP32 ? ncclFloat32 : dt == DT_FP16 ? ncclFloat16 : ncclBfloat16;
}

static int ccl_alloc(void **p, size_t *have, size_t want)
{
	if (want <= *have)
		return 0;
	gpuFree(*p);
	*p = NULL;
	*have = 0;
	if (gpuMalloc(p, want) != gpuSuccess) {
		gpuGetLastError();
		*p = NULL;
		return -1;
	}
	*have = want;
	return 0;
}

static int ccl_prepare(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank, int n, char *why, size_t whylen)
{
	struct ccl_ctx *g = ctx;
	size_t elem = dtype_size(c->dt), sb = sz->in_count * elem, rb = sz->out_count * elem, fr = 0, tot = 0, need;

	(void)rank;
	(void)n;
	gpuSetDevice(g->dev);
	if (c->in_place)
		sb = 0, rb = (sz->in_count > sz->out_count ? sz->in_count : sz->out_count) * elem;
	need = (sb > g->send_bytes ? sb : 0) + (rb > g->recv_bytes ? rb : 0);
	gpuMemGetInfo(&fr, &tot);
	if (need + ((size_t)512 << 20) > fr + g->send_bytes * (sb > g->send_bytes) + g->recv_bytes * (rb > g->recv_bytes)) {
		snprintf(why, whylen, "does not fit: %.2f GiB of buffers per GPU, %.2f GiB free of %.2f GiB (512 MiB kept for "
			 "%s)", (double)(sb + rb) / (1 << 30), (double)fr / (1 << 30), (double)tot / (1 << 30), CCL_NAME);
		return 1;
	}
	if ((sb && ccl_alloc(&g->send, &g->send_bytes, sb) < 0) || ccl_alloc(&g->recv, &g->recv_bytes, rb) < 0) {
		snprintf(why, whylen, "out of memory allocating %.2f GiB on GPU %d", (double)(sb + rb) / (1 << 30), g->dev);
		return 1;
	}
	if ((size_t)c->iters + 1 > g->nev) {
		g->ev = realloc(g->ev, ((size_t)c->iters + 1) * sizeof(*g->ev));
		for (size_t i = g->nev; i < (size_t)c->iters + 1; i++)
			gpuEventCreate(&g->ev[i]);
		g->nev = (size_t)c->iters + 1;
	}
	return 0;
}

static unsigned char *ccl_input(struct ccl_ctx *g, const struct ccase *c, const struct coll_sizes *sz, int rank)
{
	if (!c->in_place)
		return g->send;
	if (c->op == OP_ALL_GATHER)
		return (unsigned char *)g->recv + (size_t)rank * sz->chunk * dtype_size(c->dt);
	return g->recv;
}

static unsigned char *ccl_output(struct ccl_ctx *g, const struct ccase *c, const struct coll_sizes *sz, int rank)
{
	if (c->in_place && c->op == OP_REDUCE_SCATTER)
		return (unsigned char *)g->recv + (size_t)rank * sz->chunk * dtype_size(c->dt);
	return g->recv;
}

static int ccl_fill(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank)
{
	struct ccl_ctx *g = ctx;

	gpuSetDevice(g->dev);
	if (!c->in_place && gpuMemsetAsync(g->recv, 0xff, sz->out_count * dtype_size(c->dt), g->s) != gpuSuccess)
		return -1;
	return gpu_coll_fill(ccl_input(g, c, sz, rank), c->dt, sz->in_count, rank, 0, g->s);
}

static int ccl_run(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank, int n, int timed, size_t i)
{
	struct ccl_ctx *g = ctx;
	size_t elem = dtype_size(c->dt);
	ncclDataType_t t = ccl_type(c->dt);
	unsigned char *in = ccl_input(g, c, sz, rank), *out = ccl_output(g, c, sz, rank);
	ncclResult_t r = ncclSuccess;

	if (timed && i == 0)
		gpuEventRecord(g->ev[0], g->s);
	switch (c->op) {
	case OP_ALL_REDUCE:
		r = ncclAllReduce(in, out, sz->in_count, t, ncclSum, g->comm, g->s);
		break;
	case OP_ALL_GATHER:
		r = ncclAllGather(in, out, sz->chunk, t, g->comm, g->s);
		break;
	case OP_REDUCE_SCATTER:
		r = ncclReduceScatter(in, out, sz->chunk, t, ncclSum, g->comm, g->s);
		break;
	case OP_ALL_TO_ALL:
#ifdef CCL_HAVE_ALLTOALL
		if (ccl_native_a2a) {
			r = ncclAlltoAll(in, out, sz->chunk, t, g->comm, g->s);
			break;
		}
#endif
		r = ncclGroupStart();
		for (int p = 0; p < n && r == ncclSuccess; p++) {
			r = ncclSend(in + (size_t)p * sz->chunk * elem, sz->chunk, t, p, g->comm, g->s);
			if (r == ncclSuccess)
				r = ncclRecv(out + (size_t)p * sz->chunk * elem, sz->chunk, t, p, g->comm, g->s);
		}
		if (r == ncclSuccess)
			r = ncclGroupEnd();
		else
			ncclGroupEnd();
		break;
	case OP_BROADCAST:
		r = ncclBroadcast(in, out, sz->in_count, t, c->root, g->comm, g->s);
		break;
	case OP_SEND_RECV: /* nccl-tests src/sendrecv.cu: one group of a send to (r+1)%n and a receive from (r-1+n)%n */
		r = ncclGroupStart();
		if (r == ncclSuccess)
			r = ncclSend(in, sz->in_count, t, (rank + 1) % n, g->comm, g->s);
		if (r == ncclSuccess)
			r = ncclRecv(out, sz->out_count, t, (rank - 1 + n) % n, g->comm, g->s);
		if (r == ncclSuccess)
			r = ncclGroupEnd();
		else
			ncclGroupEnd();
		break;
	case OP_P2P: /* one ordered pair alone: ranks are world ranks */
		if (rank == c->src)
			r = ncclSend(in, sz->in_count, t, c->dst, g->comm, g->s);
		else if (rank == c->dst)
			r = ncclRecv(out, sz->out_count, t, c->src, g->comm, g->s);
		break;
	default:
		return -1;
	}
	if (timed && ((i + 1) % (size_t)c->every == 0 || i + 1 == (size_t)c->iters)) /* samples sum to the loop */
		gpuEventRecord(g->ev[(i + (size_t)c->every) / (size_t)c->every], g->s);
	return r == ncclSuccess ? 0 : -1;
}

static int ccl_finish(void *ctx, const struct ccase *c, double *iter_ms, size_t *nsamples, double *loop_ms)
{
	struct ccl_ctx *g = ctx;
	size_t iters = (size_t)c->iters, every = (size_t)c->every, ns = (iters + every - 1) / every;
	float f;

	if (gpuStreamSynchronize(g->s) != gpuSuccess)
		return -1;
	if (!iter_ms)
		return 0;
	for (size_t j = 0; j < ns; j++) {
		size_t len = iters - j * every < every ? iters - j * every : every;

		if (gpuEventElapsedTime(&f, g->ev[j], g->ev[j + 1]) != gpuSuccess)
			return -1;
		iter_ms[j] = f / (double)len;
	}
	if (gpuEventElapsedTime(&f, g->ev[0], g->ev[ns]) != gpuSuccess)
		return -1;
	*nsamples = ns;
	*loop_ms = f / (double)iters;
	return 0;
}

static long long ccl_check(void *ctx, const struct ccase *c, const struct coll_sizes *sz, int rank, int n)
{
	struct ccl_ctx *g = ctx;

	if (c->op == OP_P2P && rank != c->dst)
		return 0; /* the sender has nothing to check */
	if (fault_wrong(c->op == OP_P2P ? 0 : rank))
		gpuMemset(ccl_output(g, c, sz, rank), 0x7f, dtype_size(c->dt));
	return gpu_coll_check(ccl_output(g, c, sz, rank), c->dt, sz->out_count, c->op, rank, n, sz->chunk, c->root, g->s);
}
#endif

/* ---- the driver ---------------------------------------------------------------------------------------------- */

struct shared {
	struct runner_config *cfg;
	const char *backend;
	struct team proto;
	int use_mpi_team;
	json_t *nodes; /* MPI: the node of every rank (SLURMD_NODENAME, else the host name), distinct, in rank order */
	json_t *device;
	const char *version;
	const char *model;
	const char *a2a_call; /* the library call all_to_all makes: nccl-tests' choice for the same library */
#ifdef BENCH_CCL
	ncclUniqueId id;
#endif
	struct ccl_capture *cap; /* NCCL/RCCL's debug log, read back by rank 0 (NULL: not captured) */
};

/* The library's own account of what it chose (docs/manifest-format.md, "Effective configuration"): NCCL_DEBUG=INFO
 * with CCLLOG_SUBSYS into the run's logs (the cases file's "ccl_log": a path prefix under logs/), never the
 * terminal; rank 0 reads what was added since the last case after each case. A stack that sets NCCL_DEBUG_FILE
 * keeps its own and nothing is read. */
extern char **environ;

struct ccl_capture {
	char path[1024];
	char why[256]; /* why nothing is captured ("" when it is) */
	long off;      /* how far rank 0 has read */
	json_t *base;  /* the facts so far (everything but the last case's collectives) */
};

COLL_CCL_ONLY static void ccl_capture_setup(struct ccl_capture *cap, json_t *root, int rank, int mpi)
{
	const char *prefix = json_string_value(json_object_get(root, "ccl_log"));

	memset(cap, 0, sizeof(*cap));
	if (getenv("NCCL_DEBUG_FILE")) {
		snprintf(cap->why, sizeof(cap->why), "the stack sets NCCL_DEBUG_FILE=%.200s: its log is its own",
			 getenv("NCCL_DEBUG_FILE"));
		return;
	}
	if (!prefix || !*prefix) {
		snprintf(cap->why, sizeof(cap->why), "no log path in the cases file (ccl_log)");
		return;
	}
	if (mpi)
		snprintf(cap->path, sizeof(cap->path), "%s.rank%d.log", prefix, rank);
	else
		snprintf(cap->path, sizeof(cap->path), "%s.log", prefix);
	/* before the library's first call: it reads these once */
	setenv("NCCL_DEBUG", "INFO", 1);
	setenv("NCCL_DEBUG_SUBSYS", CCLLOG_SUBSYS, 1);
	setenv("NCCL_DEBUG_FILE", cap->path, 1);
	cap->base = json_object();
}

/* The record's extra.ccl_effective: what the log says up to now, this case's collective calls, and the variables
 * asked that did not take effect. New reference. */
COLL_NO_BACKEND static json_t *ccl_capture_case(struct ccl_capture *cap)
{
	size_t len = 0, n = 0;
	long end = cap->off;
	char *text;
	json_t *out;
	const char **env;

	if (!cap->base)
		return json_pack("{s:b, s:s}", "captured", 0, "why", cap->why);
	if ((text = ccllog_read(cap->path, cap->off, &len, &end))) {
		ccllog_parse_into(cap->base, text, len);
		cap->off = end;
		free(text);
	}
	out = json_deep_copy(cap->base);
	json_array_clear(json_object_get(cap->base, "collectives")); /* the next case's calls are its own */
	if (!json_object_get(out, "collectives"))
		json_object_set_new(out, "collectives", json_array());
	for (char **e = environ; *e; e++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	n = 0;
	for (char **e = environ; env && *e; e++)
		if (strncmp(*e, "NCCL_DEBUG", 10)) /* ours */
			env[n++] = *e;
	json_object_set_new(out, "not_effective", ccllog_not_effective(out, env, env ? n : 0));
	free(env);
	json_object_set_new(out, "captured", json_true());
	json_object_set_new(out, "log", json_string(strrchr(cap->path, '/') ? strrchr(cap->path, '/') + 1 : cap->path));
	return out;
}

static double to_busbw(double ms, void *arg)
{
	const double *f = arg; /* bytes, factor */

	return coll_algbw_gbps((size_t)f[0], ms * 1e-3) * f[1];
}

static void emit(struct team *t, const struct shared *sh, size_t ci, const struct ccase *c, const struct outcome *o)
{
	json_t *rec;

	if (t->rank != 0)
		return;
	rec = record_new("collectives", c->key, sh->cfg->cases[ci].params);
	if (ci == 0 && sh->device)
		record_add_extra(rec, "device", json_incref(sh->device));
	record_add_extra(rec, "backend", json_string(sh->backend));
	record_add_extra(rec, "library_version", json_string(sh->version));
	record_add_extra(rec, "process_model", json_string(sh->model));
	if (c->op == OP_ALL_TO_ALL && sh->a2a_call)
		record_add_extra(rec, "call", json_string(sh->a2a_call));
	record_add_extra(rec, "nranks", json_integer(t->n));
	if (sh->cap)
		record_add_extra(rec, "ccl_effective", ccl_capture_case(sh->cap));
	if (o->telemetry) /* extra.energy follows from it (record_emit) */
		record_add_extra(rec, "telemetry", json_incref(o->telemetry));
	if (sh->nodes) {
		record_add_extra(rec, "nodes", json_integer((json_int_t)json_array_size(sh->nodes)));
		record_add_extra(rec, "node_names", json_incref(sh->nodes));
	}
	if (o->status == 1) {
		record_set_status(rec, "skipped", "%s", o->why);
	} else if (o->status == 2) {
		record_set_status(rec, "failed", "%s", o->why);
	} else {
		int cn = c->op == OP_P2P ? 2 : c->gsize ? c->gsize : t->n;
		double f[2] = { (double)o->sz.bytes, coll_bus_factor(c->op, cn) };
		double algbw = coll_algbw_gbps(o->sz.bytes, o->loop_ms * 1e-3);

		record_set_samples(rec, "busbw_gbps", "GB/s", o->iter_ms, o->nsamples, to_busbw, f);
		record_add_extra(rec, "iters_per_sample", json_integer(c->every));
		record_add_extra(rec, "timed_calls", json_integer(c->iters)); /* extra.energy: the counter per iteration */
		record_add_extra(rec, "bytes", json_integer((json_int_t)o->sz.bytes));
		record_add_extra(rec, "count", json_integer((json_int_t)(c->op == OP_ALL_REDUCE || c->op == OP_BROADCAST ? o->sz.in_count : o->sz.chunk)));
		record_add_extra(rec, "in_place", json_boolean(c->in_place));
		record_add_extra(rec, "time_us", json_real(o->loop_ms * 1e3));
		if (c->op == OP_P2P) { /* the pair matrix: bandwidth from the large size, latency from the small one */
			struct stats st;

			record_add_extra(rec, "src", json_integer(c->src));
			record_add_extra(rec, "dst", json_integer(c->dst));
			stats_compute(&st, o->iter_ms, o->nsamples); /* the median of the per-message times */
			record_add_extra(rec, "latency_us", json_real(st.median * 1e3));
		}
		if (c->gsize) {
			record_add_extra(rec, "group_size", json_integer(c->gsize));
			record_add_extra(rec, "group_ranks", json_pack("[ii]", c->group * c->gsize, (c->group + 1) * c->gsize - 1));
		}
		record_add_extra(rec, "algbw_gbps", json_real(algbw));
		record_add_extra(rec, "busbw_mean_gbps", json_real(algbw * f[1]));
		record_add_extra(rec, "bus_factor", json_real(f[1]));
		record_add_extra(rec, "convention", json_string("nccl-tests: time_us = mean over iterations and ranks; "
								"algbw = S / time; busbw = algbw x bus_factor; the headline "
								"uses the median of the samples (each the mean of "
								"iters_per_sample iterations)"));
		record_add_extra(rec, "algorithm", json_null());
		record_add_extra(rec, "algorithm_note", json_string("the library does not report its algorithm/protocol through "
								    "its API: its debug log does (extra.ccl_effective)"));
		if (c->check) {
			record_add_extra(rec, "wrong", json_integer(o->wrong));
			record_add_extra(rec, "check", json_string(o->wrong ? "wrong" : "ok"));
			if (o->wrong)
				record_set_status(rec, "failed", "data check: %lld wrong elements", o->wrong);
		}
	}
	fprintf(stderr, "bench-coll: [%zu/%zu] %s: %s", ci + 1, sh->cfg->n, c->key, json_string_value(json_object_get(rec, "status")));
	if (json_is_number(json_object_get(rec, "value")))
		fprintf(stderr, " busbw %.2f GB/s", json_number_value(json_object_get(rec, "value")));
	fprintf(stderr, "\n");
	record_emit(rec);
}

static int case_from(struct ccase *c, const char *key, json_t *p, char *why, size_t whylen)
{
	int samples;

	memset(c, 0, sizeof(*c));
	c->key = key;
	c->op = coll_op_parse(param_str(p, "op", ""));
	c->dt = dtype_parse(param_str(p, "dtype", "fp32"));
	c->in_place = !strcmp(param_str(p, "placement", "out-of-place"), "in-place");
	c->nominal = (size_t)param_int(p, "bytes", 0);
	c->root = (int)param_int(p, "root", 0);
	c->warmup = (int)param_int(p, "warmup_iters", 5);
	c->iters = (int)param_int(p, "iters", 100);
	samples = (int)param_int(p, "samples", 10);
	if (samples < 1 || samples > c->iters)
		samples = samples < 1 ? 1 : c->iters;
	c->every = (c->iters + samples - 1) / samples;
	c->check = param_bool(p, "check", 1);
	c->src = (int)param_int(p, "src", -1);
	c->dst = (int)param_int(p, "dst", -1);
	if (c->op == OP_P2P)
		c->root = c->src; /* the receiver's expected values are the sender's */
	c->gsize = (int)param_int(p, "group_size", 0);
	c->group = (int)param_int(p, "group", 0);
	if (c->op == OP_INVALID || c->dt == DT_INVALID || dtype_is_fp8(c->dt) || c->iters < 1 || c->warmup < 0) {
		snprintf(why, whylen, "bad case: op '%s', dtype '%s', iters %d", param_str(p, "op", "?"), param_str(p, "dtype", "?"),
			 c->iters);
		return -1;
	}
	return 0;
}

COLL_NO_BACKEND static void run_all(struct team *t, const struct shared *sh, const struct backend *b)
{
	for (size_t i = 0; i < sh->cfg->n; i++) {
		struct ccase c;
		struct outcome o;
		char why[256];

		if (case_from(&c, sh->cfg->cases[i].key, sh->cfg->cases[i].params, why, sizeof(why)) < 0) {
			memset(&o, 0, sizeof(o));
			o.status = 2;
			snprintf(o.why, sizeof(o.why), "%s", why);
			emit(t, sh, i, &c, &o);
			continue;
		}
		fault_hang(t->rank, t->n, i);
		if (c.op == OP_BROADCAST && c.root >= t->n) {
			memset(&o, 0, sizeof(o));
			o.status = 2;
			snprintf(o.why, sizeof(o.why), "root %d but only %d ranks", c.root, t->n);
		} else {
			run_case(&o, t, b, &c);
		}
		emit(t, sh, i, &c, &o);
		json_decref(o.telemetry);
		free(o.iter_ms);
		if (o.status == 2 && !strstr(o.why, "root") && !strstr(o.why, "bad case"))
			break; /* a failed collective leaves the communicator unusable: stop; the CLI marks the rest */
	}
}

#ifdef BENCH_CCL
struct thread_arg {
	struct shared *sh;
	struct team t;
	int rc;
};

static void *ccl_thread(void *arg)
{
	struct thread_arg *a = arg;
	struct ccl_ctx g;
	struct backend b = { CCL_NAME, 1, ccl_prepare, ccl_fill, ccl_run, ccl_finish, ccl_check, ccl_split,
			     ccl_window_begin, ccl_window_end, ccl_telemetry_json, &g };

	memset(&g, 0, sizeof(g));
	g.dev = a->t.rank;
	gpuSetDevice(g.dev);
	gpuStreamCreate(&g.s);
	if (ncclCommInitRank(&g.comm, a->t.n, a->sh->id, a->t.rank) != ncclSuccess) {
		a->rc = -1;
		return NULL;
	}
	g.world = g.comm;
	ccl_telemetry_open(&g, a->t.rank);
	run_all(&a->t, a->sh, &b);
	telemetry_close(&g.tel);
	ccl_release_splits(&g);
	ncclCommDestroy(g.world);
	gpuFree(g.send);
	gpuFree(g.recv);
	return NULL;
}
#endif

static void fail_all(struct shared *sh, const char *why)
{
	for (size_t i = 0; i < sh->cfg->n; i++) {
		json_t *rec = record_new("collectives", sh->cfg->cases[i].key, sh->cfg->cases[i].params);

		record_set_status(rec, "failed", "%s", why);
		record_emit(rec);
	}
}

#ifdef BENCH_MPI
/* Which node each rank runs on: under Slurm the node's name (SLURMD_NODENAME), else the host name. */
static json_t *mpi_nodes(void)
{
	char me[64] = "", *all;
	const char *sl = getenv("SLURMD_NODENAME");
	int n = 1;
	json_t *out = json_array();

	if (sl && *sl)
		snprintf(me, sizeof(me), "%s", sl);
	else
		gethostname(me, sizeof(me) - 1);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	all = calloc((size_t)n, sizeof(me));
	MPI_Allgather(me, sizeof(me), MPI_CHAR, all, sizeof(me), MPI_CHAR, MPI_COMM_WORLD);
	for (int r = 0; r < n; r++) {
		const char *name = all + (size_t)r * sizeof(me);
		int seen = 0;

		for (size_t k = 0; k < json_array_size(out); k++)
			seen |= !strcmp(json_string_value(json_array_get(out, k)), name);
		if (!seen)
			json_array_append_new(out, json_string(name));
	}
	free(all);
	return out;
}
#endif

int main(int argc, char **argv)
{
	struct runner_config cfg = RUNNER_CONFIG_INIT;
	struct shared sh;
	int rc, world = 1, rank = 0, ranks;
	char ver[32] = "";
#ifdef BENCH_CCL
	char why[512];
#endif

	memset(&sh, 0, sizeof(sh));
#ifdef BENCH_MPI
	if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE")) {
		MPI_Init(&argc, &argv);
		MPI_Comm_size(MPI_COMM_WORLD, &world);
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		sh.use_mpi_team = 1;
		sh.nodes = mpi_nodes();
	}
#endif
	if ((rc = runner_config_load(&cfg, argc, argv, "collectives", usage)) != 0)
		goto out;
	sh.cfg = &cfg;
	sh.backend = cfg.n ? param_str(cfg.cases[0].params, "backend", "mpi") : "mpi";
	ranks = (int)param_int(cfg.root, "ranks", world);
	if (rank != 0 && !freopen("/dev/null", "w", stdout)) /* rank 0 alone writes records */
		return 1;
	if (rank == 0)
		fprintf(stderr, "bench-coll: %zu cases, backend %s, %d rank%s%s\n", cfg.n, sh.backend, sh.use_mpi_team ? world : ranks,
			(sh.use_mpi_team ? world : ranks) == 1 ? "" : "s", sh.use_mpi_team ? " (MPI)" : "");
	if (!strcmp(sh.backend, "mpi")) {
#ifdef BENCH_MPI
		struct mpi_ctx m;
		struct backend b = { "mpi", 0, mpi_prepare, mpi_fill, mpi_run, mpi_finish, mpi_check, mpi_split, NULL, NULL,
				     mpi_telemetry_json, &m };
		struct team t = { rank, world, 1, NULL, NULL };
		int len = 0;
		char lib[MPI_MAX_LIBRARY_VERSION_STRING];

		if (!sh.use_mpi_team) {
			MPI_Init(&argc, &argv);
			sh.use_mpi_team = 1;
			sh.nodes = mpi_nodes();
		}
		if (world != ranks && rank == 0)
			fprintf(stderr, "bench-coll: the run asked for %d ranks; MPI started %d\n", ranks, world);
		memset(&m, 0, sizeof(m));
		m.comm = MPI_COMM_WORLD;
		for (int g = 0; g <= 64; g++)
			m.split[g] = MPI_COMM_NULL;
		MPI_Op_create(sum_bf16, 1, &m.sum16[0]);
		MPI_Op_create(sum_fp16, 1, &m.sum16[1]);
		sh.a2a_call = "MPI_Alltoall";
		MPI_Get_library_version(lib, &len);
		lib[strcspn(lib, "\n,")] = '\0';
		sh.version = lib;
		sh.model = "one MPI rank per slot (CPU buffers)";
		sh.device = json_pack("{s:s, s:I}", "vendor", "cpu", "cores", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN));
		run_all(&t, &sh, &b);
		for (int g = 0; g <= 64; g++)
			if (m.split[g] != MPI_COMM_NULL)
				MPI_Comm_free(&m.split[g]);
		MPI_Op_free(&m.sum16[0]);
		MPI_Op_free(&m.sum16[1]);
		free(m.send);
		free(m.recv);
		free(m.iter);
		json_decref(sh.device);
#else
		fail_all(&sh, "this bench-coll was built without MPI (no mpicc at 'make runners' time)");
#endif
	} else {
#ifdef BENCH_CCL
		int ndev = 0, v = 0;
		static struct ccl_capture cap;

		ccl_capture_setup(&cap, cfg.root, rank, sh.use_mpi_team && world > 1);
		sh.cap = &cap;
		ncclGetVersion(&v);
		snprintf(ver, sizeof(ver), "%s %d.%d.%d", CCL_NAME, v / 10000, (v / 100) % 100, v % 100);
		sh.version = ver;
#ifdef CCL_HAVE_ALLTOALL
		ccl_native_a2a = v >= 22800;
#endif
		sh.a2a_call = ccl_native_a2a ? "ncclAlltoAll" : "ncclSend/ncclRecv to every rank in one group";
		if (!(sh.device = gpu_device_info(why, sizeof(why)))) {
			if (rank == 0)
				fail_all(&sh, why);
			goto out;
		}
		gpuGetDeviceCount(&ndev);
		if (sh.use_mpi_team && world > 1) {
#ifdef BENCH_MPI
			struct ccl_ctx g;
			struct backend b = { CCL_NAME, 1, ccl_prepare, ccl_fill, ccl_run, ccl_finish, ccl_check, ccl_split,
					     ccl_window_begin, ccl_window_end, ccl_telemetry_json, &g };
			struct team t = { rank, world, 1, NULL, NULL };
			const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");

			memset(&g, 0, sizeof(g));
			g.dev = (lr ? atoi(lr) : rank) % (ndev ? ndev : 1);
			gpuSetDevice(g.dev);
			gpuStreamCreate(&g.s);
			if (rank == 0)
				ncclGetUniqueId(&sh.id);
			MPI_Bcast(&sh.id, sizeof(sh.id), MPI_BYTE, 0, MPI_COMM_WORLD);
			sh.model = "one MPI rank per GPU";
			if (ncclCommInitRank(&g.comm, world, sh.id, rank) != ncclSuccess) {
				if (rank == 0)
					fail_all(&sh, "ncclCommInitRank failed");
				goto out;
			}
			g.world = g.comm;
			ccl_telemetry_open(&g, rank);
			run_all(&t, &sh, &b);
			telemetry_close(&g.tel);
			ccl_release_splits(&g);
			ncclCommDestroy(g.world);
#endif
		} else {
			pthread_t th[64];
			struct thread_arg args[64];
			pthread_barrier_t bar;
			double *slots[64];

			if (ranks > ndev || ranks > 64) {
				snprintf(why, sizeof(why), "the run needs %d GPUs in this process; %d visible", ranks, ndev);
				fail_all(&sh, why);
				goto out;
			}
			ncclGetUniqueId(&sh.id);
			sh.model = "one process, a thread per GPU";
			pthread_barrier_init(&bar, NULL, (unsigned)ranks);
			for (int r = 0; r < ranks; r++) {
				args[r].sh = &sh;
				args[r].t = (struct team){ r, ranks, 0, &bar, slots };
				args[r].rc = 0;
				pthread_create(&th[r], NULL, ccl_thread, &args[r]);
			}
			for (int r = 0; r < ranks; r++)
				pthread_join(th[r], NULL);
			pthread_barrier_destroy(&bar);
		}
		json_decref(sh.device);
		json_decref(cap.base);
#else
		(void)ver;
		fail_all(&sh, "this bench-coll was built without a GPU toolkit and NCCL/RCCL");
#endif
	}
out:
	runner_config_release(&cfg);
	json_decref(sh.nodes);
#ifdef BENCH_MPI
	if (sh.use_mpi_team)
		MPI_Finalize();
#endif
	return rc;
}
