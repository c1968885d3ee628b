/* SPDX-License-Identifier: Apache-2.0 */
/* suite_coll.c — collectives with nccl-tests bus bandwidth (runner bench-coll). */
#include <string.h>

#include "core/strbuf.h"
#include "core/units.h"
#include "manifest.h"
#include "plan.h"

extern const struct suite_ops suite_collectives;

static const char *const backends[] = { "nccl", "rccl", "mpi", NULL };
static const char *const ops[] = { "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv", NULL };
static const char *const pair_modes[] = { "none", "all", NULL };
static const char *const dtypes[] = { "bf16", "fp16", "fp32", NULL };
static const char *const placements[] = { "out-of-place", "in-place", NULL };

#define COLL_MAX_CASES 100000
/* the most sizes a sweep and 'sizes' give (docs/manifest-format.md): a plan of at most 64 + 256 sizes */
#define COLL_MAX_SWEEP 64
#define COLL_MAX_EXTRA_SIZES 256

static const struct param_def coll_params[] = {
	{ "backend", PARAM_ENUM, "nccl", "mpi", "rccl", backends, 0, 0, 0,
	  "nccl (CUDA), rccl (ROCm), mpi (CPU buffers, any MPI)" },
	{ "ops", PARAM_ENUM_LIST, "[all_reduce, all_gather, reduce_scatter, all_to_all]", NULL, NULL, ops, 0, 0, 0,
	  "collective operations" },
	{ "min_bytes", PARAM_SIZE, "1MiB", NULL, NULL, NULL, 8, 1LL << 40, 0, "smallest size of the sweep (nccl-tests -b)" },
	{ "max_bytes", PARAM_SIZE, "16GiB", "64MiB", NULL, NULL, 8, 1LL << 40, 0, "largest size of the sweep (nccl-tests -e)" },
	{ "factor", PARAM_INT, "2", NULL, NULL, NULL, 2, 1024, 0, "multiplication factor between sizes (nccl-tests -f)" },
	{ "sizes", PARAM_SIZE_LIST, "[]", NULL, NULL, NULL, 8, 1LL << 40, PARAM_EMPTY_OK,
	  "extra sizes measured besides the sweep" },
	{ "dtype", PARAM_ENUM, "bf16", "fp32", NULL, dtypes, 0, 0, 0, "element type (sum reduction)" },
	{ "placements", PARAM_ENUM_LIST, "[out-of-place, in-place]", NULL, NULL, placements, 0, 0, 0,
	  "buffer placement: out-of-place, in-place (nccl-tests measures both)" },
	{ "pairs", PARAM_ENUM, "none", NULL, NULL, pair_modes, 0, 0, 0,
	  "all: the point-to-point matrix of the node's GPUs, every ordered pair alone at max_bytes (bandwidth) and "
	  "8 B (latency)" },
	{ "group_sizes", PARAM_INT_LIST, "[]", NULL, NULL, NULL, 1, 64, PARAM_EMPTY_OK,
	  "run the ops on groups of this many consecutive ranks, one group at a time ([]: the whole run)" },
	{ "root", PARAM_INT, "0", NULL, NULL, NULL, 0, 1 << 20, 0, "root rank of broadcast" },
	{ "warmup_iters", PARAM_INT, "5", NULL, NULL, NULL, 0, 100000, 0, "untimed iterations before each size (nccl-tests -w)" },
	{ "iters", PARAM_INT, "100", NULL, NULL, NULL, 1, 1000000, 0, "timed iterations per size, averaged (nccl-tests -n)" },
	{ "samples", PARAM_INT, "10", NULL, NULL, NULL, 1, 1000000, 0,
	  "timing samples per size: the timed loop cut into equal batches, clocks read only between batches (capped at iters)" },
	{ "check", PARAM_BOOL, "true", NULL, NULL, NULL, 0, 0, 0,
	  "check every element against exactly known values; a wrong element fails the case (exit 7)" },
	{ NULL, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL },
};

static int has(const struct param_value *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->sv[i], s))
			return 1;
	return 0;
}

static void coll_check(struct suite_check *c, const struct manifest *m)
{
	const struct param_value *b = suite_cfg_get(c->cfg, "backend");
	const struct param_value *lo = suite_cfg_get(c->cfg, "min_bytes"), *hi = suite_cfg_get(c->cfg, "max_bytes");
	const struct param_value *f = suite_cfg_get(c->cfg, "factor"), *root = suite_cfg_get(c->cfg, "root");
	const struct param_value *gs = suite_cfg_get(c->cfg, "group_sizes"), *pairs = suite_cfg_get(c->cfg, "pairs");
	long long ranks = m->target.nodes * m->target.gpus_per_node;
	unsigned long long n = 0;

	if (ranks < 2) /* one rank moves no data: busbw 0, and an in-place "transfer" that is a no-op */
		suite_check_error(c, NULL, "collectives need at least 2 ranks, the target has %lld (target.nodes x "
				  "target.gpus_per_node; on a cpu target, MPI ranks per node): set target.gpus_per_node: 2 "
				  "or more", ranks);
	if (!strcmp(b->str, "nccl") && m->target.vendor != VENDOR_CUDA)
		suite_check_error(c, b, "backend 'nccl' needs target.vendor cuda (target is %s)", vendor_names[m->target.vendor]);
	if (!strcmp(b->str, "rccl") && m->target.vendor != VENDOR_ROCM)
		suite_check_error(c, b, "backend 'rccl' needs target.vendor rocm (target is %s)", vendor_names[m->target.vendor]);
	if (lo->i > hi->i) {
		char a[32], z[32];

		units_format_size(a, sizeof(a), (uint64_t)lo->i);
		units_format_size(z, sizeof(z), (uint64_t)hi->i);
		suite_check_error(c, hi, "'max_bytes' (%s) must not be smaller than 'min_bytes' (%s)", z, a);
	} else {
		for (unsigned long long s = (unsigned long long)lo->i; s <= (unsigned long long)hi->i && n <= COLL_MAX_CASES;
		     s *= (unsigned long long)f->i)
			n++;
		if (n > COLL_MAX_SWEEP)
			suite_check_error(c, f, "the sweep from 'min_bytes' to 'max_bytes' by 'factor' %lld has %llu sizes; "
					  "at most %d", f->i, n, COLL_MAX_SWEEP);
	}
	if (suite_cfg_get(c->cfg, "sizes")->n > COLL_MAX_EXTRA_SIZES)
		suite_check_error(c, suite_cfg_get(c->cfg, "sizes"), "'sizes' lists %zu sizes; at most %d",
				  suite_cfg_get(c->cfg, "sizes")->n, COLL_MAX_EXTRA_SIZES);
	if (has(suite_cfg_get(c->cfg, "ops"), "broadcast") && root->i >= ranks)
		suite_check_error(c, root, "'root' is %lld but the run has %lld rank(s)", root->i, ranks);
	for (size_t i = 0; i < gs->n; i++) {
		if (gs->iv[i] > ranks || ranks % gs->iv[i])
			suite_check_error(c, gs, "group size %lld does not divide the run's %lld rank(s) (target.gpus_per_node "
					  "x target.nodes)", gs->iv[i], ranks);
		else if (has(suite_cfg_get(c->cfg, "ops"), "broadcast") && root->i >= gs->iv[i])
			suite_check_error(c, root, "'root' is %lld but 'group_sizes' has groups of %lld rank(s)", root->i,
					  gs->iv[i]);
	}
	if (!strcmp(pairs->str, "all") && m->target.gpus_per_node < 2)
		suite_check_error(c, pairs, "'pairs: all' needs at least 2 GPUs per node (target.gpus_per_node is %lld)",
				  (long long)m->target.gpus_per_node);
}

/* backend mpi needs a process per rank; NCCL/RCCL drive every local GPU from one process (a thread each)
 * unless the launcher starts one rank per GPU (mpirun, slurm) */
static long long coll_processes(const struct suite_cfg *cfg, const struct manifest *m)
{
	long long ranks = m->target.nodes * m->target.gpus_per_node;

	if (!strcmp(suite_cfg_get(cfg, "backend")->str, "mpi") || m->runtime.launcher != LAUNCHER_LOCAL)
		return ranks;
	return 1;
}

static int coll_plan(struct plan *out, const struct suite_cfg *cfg, const struct manifest *m)
{
	static const char *const lists[] = { "ops", "min_bytes", "max_bytes", "factor", "sizes", "placements", "pairs",
					     "group_sizes", NULL };
	const struct param_value *o = suite_cfg_get(cfg, "ops"), *pl = suite_cfg_get(cfg, "placements");
	const struct param_value *extra = suite_cfg_get(cfg, "sizes");
	unsigned long long lo = (unsigned long long)suite_cfg_get(cfg, "min_bytes")->i;
	unsigned long long hi = (unsigned long long)suite_cfg_get(cfg, "max_bytes")->i;
	unsigned long long f = (unsigned long long)suite_cfg_get(cfg, "factor")->i;
	const char *dtype = suite_cfg_get(cfg, "dtype")->str;
	const struct param_value *gs = suite_cfg_get(cfg, "group_sizes");
	long long ranks = m->target.nodes * m->target.gpus_per_node, whole[1] = { ranks };
	const long long *groups = gs->n ? gs->iv : whole;
	size_t ngroups = gs->n ? gs->n : 1;
	unsigned long long sizes[COLL_MAX_SWEEP + COLL_MAX_EXTRA_SIZES]; /* coll_check() holds both to these */
	size_t ns = 0;

	for (unsigned long long s = lo; s <= hi && ns < COLL_MAX_SWEEP; s *= f)
		sizes[ns++] = s;
	for (size_t i = 0; i < extra->n && ns < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int dup = 0;

		for (size_t j = 0; j < ns; j++)
			dup |= sizes[j] == (unsigned long long)extra->iv[i];
		if (!dup)
			sizes[ns++] = (unsigned long long)extra->iv[i];
	}
	/* ascending sizes, as nccl-tests prints them */
	for (size_t i = 1; i < ns; i++)
		for (size_t j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
			unsigned long long t = sizes[j];

			sizes[j] = sizes[j - 1];
			sizes[j - 1] = t;
		}
	for (size_t oi = 0; oi < o->n; oi++)
		for (size_t si = 0; si < ns; si++)
			for (size_t pi = 0; pi < pl->n; pi++)
				for (size_t gi = 0; gi < ngroups; gi++) {
					long long g = groups[gi], ng = g > 0 && g < ranks && ranks % g == 0 ? ranks / g : 1;

					/* a group size equal to the run's ranks is the whole run: no group in the key */
					for (long long k = 0; k < ng; k++) {
						json_t *p = suite_params_json(cfg, lists);
						char size[32], grp[48] = "";

						units_format_size(size, sizeof(size), sizes[si]);
						json_object_set_new(p, "op", json_string(o->sv[oi]));
						json_object_set_new(p, "bytes", json_integer((json_int_t)sizes[si]));
						json_object_set_new(p, "placement", json_string(pl->sv[pi]));
						/* the rank and node count are part of what is measured: a 2-rank and an 8-rank
						 * all_reduce must never match in bench compare; so is the group size */
						json_object_set_new(p, "ranks", json_integer((json_int_t)ranks));
						json_object_set_new(p, "nodes", json_integer((json_int_t)m->target.nodes));
						if (g != ranks) {
							json_object_set_new(p, "group_size", json_integer((json_int_t)g));
							json_object_set_new(p, "group", json_integer((json_int_t)k));
							snprintf(grp, sizeof(grp), "/g%lld.%lld", g, k);
						}
						plan_add(out, &suite_collectives,
							 xstrfmt("%s/%s/%s/%s/r%lldn%lld%s", o->sv[oi], dtype, size, pl->sv[pi], ranks,
								 m->target.nodes, grp), p);
					}
				}
	if (!strcmp(suite_cfg_get(cfg, "pairs")->str, "all")) {
		/* the pair matrix of node 0's GPUs: each ordered pair alone, at max_bytes (bandwidth) and 8 B (latency) */
		static const char *const measure[] = { "bandwidth", "latency" };
		unsigned long long at[2] = { hi, 8 };
		long long gpn = m->target.gpus_per_node;

		for (int w = 0; w < 2; w++)
			for (long long i = 0; i < gpn; i++)
				for (long long j = 0; j < gpn; j++) {
					json_t *p;
					char size[32];

					if (i == j)
						continue;
					p = suite_params_json(cfg, lists);
					units_format_size(size, sizeof(size), at[w]);
					json_object_set_new(p, "op", json_string("p2p"));
					json_object_set_new(p, "bytes", json_integer((json_int_t)at[w]));
					json_object_set_new(p, "placement", json_string("out-of-place"));
					json_object_set_new(p, "src", json_integer((json_int_t)i));
					json_object_set_new(p, "dst", json_integer((json_int_t)j));
					json_object_set_new(p, "measure", json_string(measure[w]));
					json_object_set_new(p, "ranks", json_integer((json_int_t)ranks));
					json_object_set_new(p, "nodes", json_integer((json_int_t)m->target.nodes));
					plan_add(out, &suite_collectives,
						 xstrfmt("p2p/%s/%s/%lld-%lld/r%lldn%lld", dtype, size, i, j, ranks, m->target.nodes), p);
				}
	}
	return 0;
}

/* The MPI backend moves host buffers whatever the target. */
static int coll_on_host(const json_t *params)
{
	const char *b = json_string_value(json_object_get(params, "backend"));

	return b && !strcmp(b, "mpi");
}

const struct suite_ops suite_collectives = {
	.name = "collectives",
	.summary = "collective bus bandwidth exactly as nccl-tests defines it (busbw GB/s, algbw and time beside)",
	.program = "bench-coll",
	.metric = "busbw_gbps",
	.unit = "GB/s",
	.min_samples = 10,
	.processes = coll_processes,
	.on_host = coll_on_host,
	.params = coll_params,
	.check = coll_check,
	.plan = coll_plan,
};
