/* SPDX-License-Identifier: Apache-2.0 */
/* test_coll.c — nccl-tests' size semantics and bus-bandwidth factors, and the data check's expected values
 * against a direct simulation of each collective. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll/coll.h"

static void test_bus_factor_hand_computed(void **state)
{
	(void)state;
	/* all_reduce 2(n-1)/n: n=2 -> 1, n=3 -> 4/3, n=8 -> 1.75 */
	assert_true(fabs(coll_bus_factor(OP_ALL_REDUCE, 2) - 1.0) < 1e-12);
	assert_true(fabs(coll_bus_factor(OP_ALL_REDUCE, 3) - 4.0 / 3.0) < 1e-12);
	assert_true(fabs(coll_bus_factor(OP_ALL_REDUCE, 8) - 1.75) < 1e-12);
	/* all_gather, reduce_scatter, all_to_all (n-1)/n: n=2 -> 0.5, n=3 -> 2/3, n=8 -> 0.875 */
	for (int op = OP_ALL_GATHER; op <= OP_ALL_TO_ALL; op++) {
		assert_true(fabs(coll_bus_factor((enum coll_op)op, 2) - 0.5) < 1e-12);
		assert_true(fabs(coll_bus_factor((enum coll_op)op, 3) - 2.0 / 3.0) < 1e-12);
		assert_true(fabs(coll_bus_factor((enum coll_op)op, 8) - 0.875) < 1e-12);
	}
	assert_true(coll_bus_factor(OP_BROADCAST, 8) == 1.0);
	assert_true(coll_bus_factor(OP_ALL_REDUCE, 1) == 0.0);
}

static void test_busbw_worked_example(void **state)
{
	struct coll_sizes sz;

	(void)state;
	/* 1 GiB all_reduce over 8 ranks in 10 ms: algbw 107.37 GB/s, busbw 187.90 GB/s */
	coll_sizes(&sz, OP_ALL_REDUCE, 1u << 30, 2, 8);
	assert_int_equal(sz.bytes, 1u << 30);
	assert_true(fabs(coll_algbw_gbps(sz.bytes, 0.010) - 107.3741824) < 1e-6);
	assert_true(fabs(coll_algbw_gbps(sz.bytes, 0.010) * coll_bus_factor(OP_ALL_REDUCE, 8) - 187.9048192) < 1e-6);
	/* 3 ranks, all_gather of 16 MiB fp32: per rank floor(4194304/3) = 1398101 floats, S = 3 x that x 4 bytes */
	coll_sizes(&sz, OP_ALL_GATHER, 16u << 20, 4, 3);
	assert_int_equal(sz.in_count, 1398101);
	assert_int_equal(sz.out_count, 4194303);
	assert_int_equal(sz.bytes, 16777212);
	assert_true(fabs(coll_algbw_gbps(sz.bytes, 0.001) * coll_bus_factor(OP_ALL_GATHER, 3) - 11.184808) < 1e-6);
	coll_sizes(&sz, OP_REDUCE_SCATTER, 16u << 20, 4, 3);
	assert_int_equal(sz.in_count, 4194303);
	assert_int_equal(sz.out_count, 1398101);
	coll_sizes(&sz, OP_ALL_TO_ALL, 1000, 2, 8); /* 500 elements -> 62 per peer */
	assert_int_equal(sz.chunk, 62);
	assert_int_equal(sz.bytes, 992);
	coll_sizes(&sz, OP_BROADCAST, 1001, 2, 8);
	assert_int_equal(sz.bytes, 1000);
}

/* Simulates each collective from coll_value inputs and compares with coll_expected. */
static void check_op(enum coll_op op, int n, size_t chunk, int root)
{
	size_t in_count = op == OP_ALL_GATHER ? chunk : op == OP_ALL_REDUCE || op == OP_BROADCAST || op >= OP_SEND_RECV ? chunk : chunk * (size_t)n;
	size_t out_count = op == OP_REDUCE_SCATTER ? chunk : op == OP_ALL_REDUCE || op == OP_BROADCAST || op >= OP_SEND_RECV ? chunk : chunk * (size_t)n;
	float *out = calloc(out_count, sizeof(float));

	for (int r = 0; r < n; r++) {
		for (size_t j = 0; j < out_count; j++) {
			float v = 0;

			switch (op) {
			case OP_ALL_REDUCE:
				for (int q = 0; q < n; q++)
					v += coll_value(q, j);
				break;
			case OP_ALL_GATHER: /* out = concatenation of every rank's input */
				v = coll_value((int)(j / chunk), j % chunk);
				break;
			case OP_REDUCE_SCATTER: /* rank r gets chunk r of the sum */
				for (int q = 0; q < n; q++)
					v += coll_value(q, (size_t)r * chunk + j);
				break;
			case OP_ALL_TO_ALL: /* chunk q of rank r's output = chunk r of rank q's input */
				v = coll_value((int)(j / chunk), (size_t)r * chunk + j % chunk);
				break;
			case OP_BROADCAST:
				v = coll_value(root, j);
				break;
			case OP_SEND_RECV: /* the rank whose send peer (q + 1) % n is r */
				for (int q = 0; q < n; q++)
					if ((q + 1) % n == r)
						v = coll_value(q, j);
				break;
			case OP_P2P: /* the receiver holds the sender's (root's) buffer */
				v = coll_value(root, j);
				break;
			default:
				break;
			}
			out[j] = v;
			assert_true(out[j] == coll_expected(op, r, n, chunk, root, j));
		}
	}
	(void)in_count;
	free(out);
}

static void test_expected_values_match_a_simulation(void **state)
{
	(void)state;
	for (int n = 1; n <= 8; n++)
		for (int op = 0; op < OP_INVALID; op++)
			check_op((enum coll_op)op, n, 37, n - 1);
}

static void test_values_are_exact_in_bf16(void **state)
{
	(void)state;
	/* every input is 0..4 and a sum over 64 ranks is at most 256: exact in bf16 (8 significant bits) */
	for (size_t j = 0; j < 1000; j++)
		for (int r = 0; r < 64; r++)
			assert_true(coll_value(r, j) >= 0 && coll_value(r, j) <= 4 && coll_value(r, j) == floorf(coll_value(r, j)));
	assert_int_equal(coll_op_parse("reduce_scatter"), OP_REDUCE_SCATTER);
	assert_int_equal(coll_op_parse("allreduce"), OP_INVALID);
}

static void test_send_recv_and_p2p_factor_one(void **state)
{
	struct coll_sizes sz;

	(void)state;
	/* nccl-tests sendrecv: S = the whole buffer, busbw = algbw, whatever the rank count */
	for (int n = 2; n <= 8; n++) {
		assert_true(coll_bus_factor(OP_SEND_RECV, n) == 1.0);
		assert_true(coll_bus_factor(OP_P2P, n) == 1.0);
	}
	coll_sizes(&sz, OP_SEND_RECV, 1001, 2, 8); /* whole elements, no split by ranks */
	assert_int_equal(sz.in_count, 500);
	assert_int_equal(sz.out_count, 500);
	assert_int_equal(sz.bytes, 1000);
	assert_int_equal(coll_op_parse("send_recv"), OP_SEND_RECV);
	assert_string_equal(coll_op_name(OP_P2P), "p2p");
}

static void test_groups_are_consecutive_ranks(void **state)
{
	int gr = -1;

	(void)state;
	/* 8 ranks in groups of 2: rank 5 is rank 1 of group 2 */
	assert_int_equal(coll_group_of(5, 8, 2, &gr), 2);
	assert_int_equal(gr, 1);
	assert_int_equal(coll_group_of(3, 8, 4, &gr), 0);
	assert_int_equal(gr, 3);
	assert_int_equal(coll_group_of(7, 8, 8, &gr), 0);
	assert_int_equal(gr, 7);
	/* a size that does not divide the ranks, or exceeds them */
	assert_int_equal(coll_group_of(0, 6, 4, &gr), -1);
	assert_int_equal(coll_group_of(0, 4, 8, &gr), -1);
	assert_int_equal(coll_group_of(0, 4, 0, &gr), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bus_factor_hand_computed),
		cmocka_unit_test(test_busbw_worked_example),
		cmocka_unit_test(test_expected_values_match_a_simulation),
		cmocka_unit_test(test_values_are_exact_in_bf16),
		cmocka_unit_test(test_send_recv_and_p2p_factor_one),
		cmocka_unit_test(test_groups_are_consecutive_ranks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
