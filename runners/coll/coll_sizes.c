/* SPDX-License-Identifier: Apache-2.0 */
/* coll_sizes.c — nccl-tests' size semantics and bus-bandwidth factors (see coll.h). */
#include <string.h>

#include "coll.h"

static const char *const names[] = { "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv", "p2p" };

enum coll_op coll_op_parse(const char *s)
{
	for (int i = 0; i < OP_INVALID; i++)
		if (!strcmp(s, names[i]))
			return (enum coll_op)i;
	return OP_INVALID;
}

const char *coll_op_name(enum coll_op op)
{
	return op < OP_INVALID ? names[op] : "?";
}

void coll_sizes(struct coll_sizes *out, enum coll_op op, size_t nominal, size_t elem, int n)
{
	size_t count = nominal / elem, per = n > 0 ? count / (size_t)n : 0;

	switch (op) {
	case OP_ALL_GATHER:
		out->in_count = per;
		out->out_count = per * (size_t)n;
		out->chunk = per;
		out->bytes = out->out_count * elem;
		break;
	case OP_REDUCE_SCATTER:
		out->in_count = per * (size_t)n;
		out->out_count = per;
		out->chunk = per;
		out->bytes = out->in_count * elem;
		break;
	case OP_ALL_TO_ALL:
		out->in_count = out->out_count = per * (size_t)n;
		out->chunk = per;
		out->bytes = out->in_count * elem;
		break;
	default: /* all_reduce, broadcast, send_recv, p2p: the whole buffer */
		out->in_count = out->out_count = out->chunk = count;
		out->bytes = count * elem;
		break;
	}
}

double coll_bus_factor(enum coll_op op, int n)
{
	switch (op) {
	case OP_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case OP_ALL_GATHER:
	case OP_REDUCE_SCATTER:
	case OP_ALL_TO_ALL:
		return (double)(n - 1) / n;
	case OP_BROADCAST:
	case OP_SEND_RECV: /* nccl-tests src/sendrecv.cu: factor 1 */
	case OP_P2P:
		return 1.0;
	default:
		return 0;
	}
}

double coll_algbw_gbps(size_t bytes, double seconds)
{
	return (double)bytes / seconds / 1e9;
}
