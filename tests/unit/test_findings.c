/* SPDX-License-Identifier: Apache-2.0 */
/* test_findings.c — every rule of docs/findings.md with records that fire it and records that do not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/ccllog.h"
#include "stats/findings.h"

/* The findings of the records in text (a JSON array), with summary cases (NULL: none). */
static json_t *eval(const char *records, const char *summary)
{
	json_error_t e;
	json_t *r = json_loads(records, 0, &e), *s = summary ? json_loads(summary, 0, &e) : NULL, *f;

	assert_non_null(r);
	f = findings_eval(r, s);
	json_decref(r);
	json_decref(s);
	return f;
}

/* 1 when the findings hold exactly one finding, of rule id on case key. */
static int only(json_t *f, const char *id, const char *key)
{
	json_t *x = json_array_get(f, 0);

	return json_array_size(f) == 1 && !strcmp(json_string_value(json_object_get(x, "id")), id) &&
	       !strcmp(json_string_value(json_object_get(x, "case")), key) &&
	       json_string_length(json_object_get(x, "message")) > 0 && json_is_object(json_object_get(x, "numbers"));
}

static double num(json_t *f, const char *k)
{
	return json_number_value(json_object_get(json_object_get(json_array_get(f, 0), "numbers"), k));
}

#define GEMM(be, dt, algo, v, extra)                                                                               \
	"{\"suite\": \"gemm\", \"case\": \"" be "/" dt "/tn/4096x4096x4096/" algo "\", \"status\": \"ok\", \"value\": " v \
	", \"unit\": \"TFLOP/s\", \"params\": {\"backend\": \"" be "\", \"dtype\": \"" dt "\", \"layout\": \"tn\", "  \
	"\"m\": 4096, \"n\": 4096, \"k\": 4096, \"algo\": \"" algo "\"}, \"extra\": {" extra "}}"

static void test_linear_slower_than_matmul(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[" GEMM("torch-linear", "bf16", "default", "600", "") "," GEMM("torch-matmul", "bf16", "default", "660", "") "]",
		 NULL);
	assert_true(only(f, "linear-slower-than-matmul", "torch-linear/bf16/tn/4096x4096x4096/default"));
	assert_true(num(f, "gap_pct") > 9.9 && num(f, "gap_pct") < 10.1);
	json_decref(f);
	/* 4% apart: not a finding; nor a matmul twin of another dtype */
	f = eval("[" GEMM("torch-linear", "bf16", "default", "600", "") "," GEMM("torch-matmul", "bf16", "default", "624", "")
		 "," GEMM("torch-matmul", "fp16", "default", "900", "") "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
}

static void test_heuristic_leaves_gain(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[" GEMM("blaslt", "bf16", "tune8", "700", "\"heuristic_gap_pct\": 6.9") "]", NULL);
	assert_true(only(f, "heuristic-leaves-gain", "blaslt/bf16/tn/4096x4096x4096/tune8"));
	json_decref(f);
	f = eval("[" GEMM("blaslt", "bf16", "tune8", "700", "\"heuristic_gap_pct\": 2.5") "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
}

#define CONFIRM(gap, gain, lo, hi)                                                                                   \
	"\"heuristic_gap_pct\": " gap ", \"tune\": {\"confirm\": {\"done\": true, \"pairs\": 5, \"gain_pct\": " gain \
	", \"gain_ci95_pct\": [" lo ", " hi "], \"chosen\": \"winner\"}}"

/* A confirmed record: the paired gain above 3% and its interval above 0; not a gap whose interval holds 0, nor one
 * the confirmation found for the heuristic */
static void test_heuristic_leaves_gain_confirmed(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[" GEMM("blaslt", "bf16", "tune8", "700", CONFIRM("6.9", "6.5", "4.1", "8.9")) "]", NULL);
	assert_true(only(f, "heuristic-leaves-gain", "blaslt/bf16/tn/4096x4096x4096/tune8"));
	assert_true(num(f, "gain_pct") == 6.5 && num(f, "gain_ci95_lo_pct") == 4.1 && num(f, "gain_ci95_hi_pct") == 8.9);
	json_decref(f);
	/* the pooled gap is large but the pairs disagree: the interval holds 0 */
	f = eval("[" GEMM("blaslt", "bf16", "tune8", "700", CONFIRM("6.9", "5.0", "-1.2", "11.6")) "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
	/* a sure gain, but under 3% */
	f = eval("[" GEMM("blaslt", "bf16", "tune8", "700", CONFIRM("2.0", "2.0", "1.5", "2.5")) "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
	/* the screen chose the heuristic's first: nothing confirmed, no finding whatever the gap says */
	f = eval("[" GEMM("blaslt", "bf16", "tune8", "700",
			  "\"heuristic_gap_pct\": 9, \"tune\": {\"confirm\": {\"done\": false, \"why\": \"x\"}}") "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
}

static void test_fp8_not_faster(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[" GEMM("blaslt", "fp8e4m3", "heuristic", "900", "") "," GEMM("blaslt", "bf16", "heuristic", "700", "") "]",
		 NULL);
	assert_true(only(f, "fp8-not-faster", "blaslt/fp8e4m3/tn/4096x4096x4096/heuristic"));
	assert_true(num(f, "ratio") > 1.28 && num(f, "ratio") < 1.29);
	json_decref(f);
	/* fp8e5m2 (e5m2 x e4m3) has the same bf16 twin; with both fp8 dtypes, each is compared on its own */
	f = eval("[" GEMM("blaslt", "fp8e5m2", "heuristic", "800", "") "," GEMM("blaslt", "fp8e4m3", "heuristic", "1100", "")
		 "," GEMM("blaslt", "bf16", "heuristic", "700", "") "]", NULL);
	assert_true(only(f, "fp8-not-faster", "blaslt/fp8e5m2/tn/4096x4096x4096/heuristic"));
	assert_true(num(f, "ratio") > 1.14 && num(f, "ratio") < 1.15);
	json_decref(f);
	f = eval("[" GEMM("torch-scaled-mm", "fp8e5m2", "default", "800", "") "," GEMM("torch-linear", "bf16", "default", "700", "")
		 "]", NULL);
	assert_true(only(f, "fp8-not-faster", "torch-scaled-mm/fp8e5m2/tn/4096x4096x4096/default"));
	json_decref(f);
	/* torch._scaled_mm against F.linear bf16: 1.6x is fine */
	f = eval("[" GEMM("torch-scaled-mm", "fp8e4m3", "default", "1120", "") "," GEMM("torch-linear", "bf16", "default", "700", "")
		 "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
	/* training: fp8 against bf16 of the same model and recipe */
	f = eval("[{\"suite\": \"training\", \"case\": \"llama3-8b/L4/fp8/s4096/mb1/fsdp/compile\", \"status\": \"ok\", "
		 "\"value\": 480, \"params\": {\"model\": \"llama3-8b\", \"layers\": 4, \"precision\": \"fp8\", \"seq_len\": 4096, "
		 "\"micro_batch\": 1, \"parallel\": \"fsdp\", \"compile\": true}},"
		 "{\"suite\": \"training\", \"case\": \"llama3-8b/L4/bf16/s4096/mb1/fsdp/compile\", \"status\": \"ok\", "
		 "\"value\": 427, \"params\": {\"model\": \"llama3-8b\", \"layers\": 4, \"precision\": \"bf16\", \"seq_len\": 4096, "
		 "\"micro_batch\": 1, \"parallel\": \"fsdp\", \"compile\": true}}]", NULL);
	assert_true(only(f, "fp8-not-faster", "llama3-8b/L4/fp8/s4096/mb1/fsdp/compile"));
	json_decref(f);
}

#define ATT(pass, v)                                                                                                 \
	"{\"suite\": \"attention\", \"case\": \"sdpa/bf16/causal/4x4096x16x128/" pass "\", \"status\": \"ok\", "    \
	"\"value\": " v ", \"params\": {\"pass\": \"" pass "\"}}"

static void test_backward_slow(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[" ATT("fwd", "400") "," ATT("bwd", "150") "]", NULL);
	assert_true(only(f, "backward-slow", "sdpa/bf16/causal/4x4096x16x128/bwd"));
	json_decref(f);
	f = eval("[" ATT("fwd", "400") "," ATT("bwd", "300") "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
}

#define SSM(pass, v)                                                                                                 \
	"{\"suite\": \"ssm\", \"case\": \"torch/bf16/chunk256/2x8192x80x64x128/" pass "\", \"status\": \"ok\", "   \
	"\"value\": " v ", \"params\": {\"pass\": \"" pass "\"}}"

/* the SSD layer's backward is held to the same rule, against its own forward only */
static void test_backward_slow_ssm(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[" SSM("fwd", "100") "," SSM("bwd", "40") "]", NULL);
	assert_true(only(f, "backward-slow", "torch/bf16/chunk256/2x8192x80x64x128/bwd"));
	json_decref(f);
	f = eval("[" SSM("fwd", "100") "," SSM("bwd", "60") "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
	f = eval("[" ATT("fwd", "400") "," SSM("bwd", "60") "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
}

static void test_throttled(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[" GEMM("blaslt", "bf16", "heuristic", "700",
			  "\"telemetry\": {\"available\": true, \"throttle_reasons\": [\"sw_power_cap\", \"gpu_idle\"], "
			  "\"sm_clock_mhz\": {\"min\": 1500, \"median\": 1600, \"max\": 1700}, \"power_w_median\": 699}") "]",
		 NULL);
	assert_true(only(f, "throttled", "blaslt/bf16/tn/4096x4096x4096/heuristic"));
	assert_int_equal(json_array_size(json_object_get(json_object_get(json_array_get(f, 0), "numbers"), "throttle_reasons")), 1);
	json_decref(f);
	f = eval("[" GEMM("blaslt", "bf16", "heuristic", "700",
			  "\"telemetry\": {\"available\": true, \"throttle_reasons\": [\"gpu_idle\"]}") "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
}

#define COLL(size, bytes, v)                                                                                         \
	"{\"suite\": \"collectives\", \"case\": \"all_reduce/bf16/" size "/out-of-place/r8n1\", \"status\": \"ok\", " \
	"\"value\": " v ", \"params\": {\"op\": \"all_reduce\", \"dtype\": \"bf16\", \"placement\": \"out-of-place\", " \
	"\"ranks\": 8, \"nodes\": 1, \"bytes\": " bytes "}}"

static void test_busbw_dip(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[" COLL("64MiB", "67108864", "400") "," COLL("16MiB", "16777216", "300") "," COLL("32MiB", "33554432", "450")
		 "]", NULL);
	assert_true(only(f, "busbw-dip", "all_reduce/bf16/64MiB/out-of-place/r8n1"));
	assert_int_equal((int)num(f, "smaller_bytes"), 33554432);
	json_decref(f);
	f = eval("[" COLL("16MiB", "16777216", "300") "," COLL("32MiB", "33554432", "450") "," COLL("64MiB", "67108864", "420")
		 "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
	/* another sweep of the same op, dtype and placement: a group of one GPU (busbw 0 by nccl-tests' factor) or an
	 * env_matrix variant; its sizes are no dip of the whole-node sweep (seen on two H200: "falls 100%") */
	f = eval("[" COLL("16MiB", "16777216", "300") ","
		 "{\"suite\": \"collectives\", \"case\": \"all_reduce/bf16/64MiB/out-of-place/r8n1/g1.0\", \"status\": \"ok\", "
		 "\"value\": 0, \"params\": {\"op\": \"all_reduce\", \"dtype\": \"bf16\", \"placement\": \"out-of-place\", "
		 "\"ranks\": 8, \"nodes\": 1, \"bytes\": 67108864, \"group_size\": 1, \"group\": 0}},"
		 "{\"suite\": \"collectives\", \"case\": \"all_reduce/bf16/64MiB/out-of-place/r8n1/env:NCCL_ALGO=Tree\", "
		 "\"status\": \"ok\", \"value\": 100, \"params\": {\"op\": \"all_reduce\", \"dtype\": \"bf16\", "
		 "\"placement\": \"out-of-place\", \"ranks\": 8, \"nodes\": 1, \"bytes\": 67108864}}]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
	/* within one group's (or one variant's) own sweep a dip is still a dip; 8 ranks and 16 are two sweeps */
	f = eval("[{\"suite\": \"collectives\", \"case\": \"all_reduce/bf16/16MiB/out-of-place/r8n1/g2.0\", \"status\": \"ok\", "
		 "\"value\": 300, \"params\": {\"bytes\": 16777216}},"
		 "{\"suite\": \"collectives\", \"case\": \"all_reduce/bf16/64MiB/out-of-place/r8n1/g2.0\", \"status\": \"ok\", "
		 "\"value\": 200, \"params\": {\"bytes\": 67108864}},"
		 "{\"suite\": \"collectives\", \"case\": \"all_reduce/bf16/64MiB/out-of-place/r16n2\", \"status\": \"ok\", "
		 "\"value\": 100, \"params\": {\"bytes\": 67108864}}]", NULL);
	assert_true(only(f, "busbw-dip", "all_reduce/bf16/64MiB/out-of-place/r8n1/g2.0"));
	json_decref(f);
}

static void test_loaded_not_pinned(void **state)
{
	json_t *f;

	(void)state;
	/* the run stage's reason, as cli/exec/run_suite.c writes it into the record */
	f = eval("[{\"suite\": \"gemm\", \"case\": \"cblas/fp32/tn/64x64x64/default\", \"status\": \"failed\", "
		 "\"value\": null, \"loaded_not_pinned\": [\"loaded-not-pinned: openblas: loaded "
		 "/usr/lib/x86_64-linux-gnu/libopenblas.so.0, the pinned build is /opt/stack/openblas/lib/libopenblas.so.0\"]}]",
		 NULL);
	assert_true(only(f, "loaded-not-pinned", "cblas/fp32/tn/64x64x64/default"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "message")),
			    "openblas: loaded /usr/lib/x86_64-linux-gnu/libopenblas.so.0, the pinned build is "
			    "/opt/stack/openblas/lib/libopenblas.so.0");
	json_decref(f);
	f = eval("[{\"suite\": \"gemm\", \"case\": \"c\", \"status\": \"ok\", \"value\": 1, \"loaded_not_pinned\": []}]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
}

static void test_below_expected(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[]", "[{\"suite\": \"gemm\", \"case\": \"blaslt/bf16/tn/4096x4096x4096/heuristic\", \"status\": \"ok\", "
		       "\"value\": 400, \"pct_of_peak\": 40.4}, {\"suite\": \"membw\", \"case\": \"copy/2GiB\", \"status\": \"ok\", "
		       "\"value\": 4.1, \"pct_of_peak\": 85.0}]");
	assert_true(only(f, "below-expected", "blaslt/bf16/tn/4096x4096x4096/heuristic"));
	json_decref(f);
	f = eval("[]", "[{\"suite\": \"gemm\", \"case\": \"x\", \"status\": \"ok\", \"value\": 700, \"pct_of_peak\": 70.7}]");
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
}

#define TRAIN(par, world, tps)                                                                                       \
	"{\"suite\": \"training\", \"case\": \"llama3-8b/L4/bf16/s4096/mb1/" par "/compile\", \"status\": \"ok\", "  \
	"\"value\": 400, \"params\": {\"model\": \"llama3-8b\", \"layers\": 4, \"precision\": \"bf16\", "            \
	"\"seq_len\": 4096, \"micro_batch\": 1, \"parallel\": \"" par "\", \"compile\": true}, "                     \
	"\"extra\": {\"world_size\": " world ", \"tokens_per_s\": " tps "}}"

static void test_scaling_poor(void **state)
{
	json_t *f;

	(void)state;
	f = eval("[" TRAIN("fsdp", "8", "40000") "," TRAIN("none", "1", "50000") "]", NULL);
	assert_true(only(f, "scaling-poor", "llama3-8b/L4/bf16/s4096/mb1/fsdp/compile"));
	assert_true(num(f, "efficiency") > 0.79 && num(f, "efficiency") < 0.81);
	json_decref(f);
	f = eval("[" TRAIN("fsdp", "8", "45000") "," TRAIN("none", "1", "50000") "]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
	/* scaling: true: the record's own one-GPU measurement (extra.scaling), no one-GPU record needed */
	f = eval("[{\"suite\": \"training\", \"case\": \"t/fsdp\", \"status\": \"ok\", \"value\": 400, \"params\": {}, "
		 "\"extra\": {\"world_size\": 2, \"tokens_per_s\": 40000, \"scaling\": {\"available\": true, "
		 "\"efficiency\": 0.8, \"single_tokens_per_s\": 50000}}}]", NULL);
	assert_true(only(f, "scaling-poor", "t/fsdp"));
	assert_true(num(f, "efficiency") == 0.8 && num(f, "tokens_per_s_one_gpu") == 50000);
	json_decref(f);
	f = eval("[{\"suite\": \"training\", \"case\": \"t/fsdp\", \"status\": \"ok\", \"value\": 400, \"params\": {}, "
		 "\"extra\": {\"world_size\": 2, \"tokens_per_s\": 45000, \"scaling\": {\"available\": true, "
		 "\"efficiency\": 0.9, \"single_tokens_per_s\": 50000}}}]", NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
}

static void test_order_and_failed_records(void **state)
{
	json_t *f;

	(void)state;
	/* a failed record fires nothing; findings come in rule order whatever the record order */
	f = eval("[" ATT("bwd", "100") "," ATT("fwd", "400") ","
		 "{\"suite\": \"gemm\", \"case\": \"g\", \"status\": \"failed\", \"value\": null, \"params\": {}, "
		 "\"extra\": {\"heuristic_gap_pct\": 50}}," GEMM("blaslt", "bf16", "tune8", "700", "\"heuristic_gap_pct\": 6.9")
		 "]", NULL);
	assert_int_equal(json_array_size(f), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "id")), "heuristic-leaves-gain");
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 1), "id")), "backward-slow");
	json_decref(f);
}

/* A collectives record whose extra.ccl_effective is what the runner makes of fixture under the variables env. */
static json_t *coll_record(const char *fixture, const char *const *env, size_t n)
{
	char path[256];
	size_t len;
	long end = 0;
	char *text;
	json_t *eff = json_object(), *rec;

	snprintf(path, sizeof(path), "tests/fixtures/ccl/%s", fixture);
	text = ccllog_read(path, 0, &len, &end);
	assert_non_null(text);
	ccllog_parse_into(eff, text, len);
	free(text);
	json_object_set_new(eff, "not_effective", ccllog_not_effective(eff, env, n));
	json_object_set_new(eff, "not_judged", ccllog_not_judged(eff, env, n));
	rec = json_pack("{s:s, s:s, s:s, s:f, s:{}, s:{s:o}}", "suite", "collectives", "case",
			"all_reduce/bf16/1MiB/out-of-place/r2n1", "status", "ok", "value", 100.0, "params", "extra",
			"ccl_effective", eff);
	return rec;
}

static void test_env_not_effective(void **state)
{
	const char *asked[] = { "NCCL_ALGO=Tree", "NCCL_PROTO=LL" }, *taken[] = { "NCCL_ALGO=Ring", "NCCL_PROTO=LL" };
	json_t *recs = json_array(), *f;

	(void)state;
	/* NCCL read NCCL_ALGO=Tree and ran Ring: one finding, on NCCL_ALGO only (LL was taken) */
	json_array_append_new(recs, coll_record("nccl-2.28-h200x2-algo-ignored.log", asked, 2));
	f = findings_eval(recs, NULL);
	assert_true(only(f, "env-not-effective", "all_reduce/bf16/1MiB/out-of-place/r2n1"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(f, 0), "numbers"), "variable")),
			    "NCCL_ALGO");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(f, 0), "message")), "nccl 2.28.3+cuda12.9"));
	json_decref(f);
	/* taken, and the default run without variables: nothing */
	json_array_clear(recs);
	json_array_append_new(recs, coll_record("nccl-2.28-h200x2-algo-taken.log", taken, 2));
	json_array_append_new(recs, coll_record("nccl-2.28-h200x2-default.log", NULL, 0));
	f = findings_eval(recs, NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
	/* one rank (captured): NCCL printed no TUNING line, so Tree/LL is not judged, and no finding says otherwise */
	json_array_clear(recs);
	json_array_append_new(recs, coll_record("nccl-2.28.3-h200x1-algo-tree-ll.log", asked, 2));
	assert_int_equal(json_array_size(json_object_get(
				 json_object_get(json_object_get(json_array_get(recs, 0), "extra"), "ccl_effective"), "not_judged")),
			 2);
	f = findings_eval(recs, NULL);
	assert_int_equal(json_array_size(f), 0);
	json_decref(f);
	json_decref(recs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear_slower_than_matmul),
		cmocka_unit_test(test_heuristic_leaves_gain),
		cmocka_unit_test(test_heuristic_leaves_gain_confirmed),
		cmocka_unit_test(test_fp8_not_faster),
		cmocka_unit_test(test_backward_slow),
		cmocka_unit_test(test_backward_slow_ssm),
		cmocka_unit_test(test_throttled),
		cmocka_unit_test(test_busbw_dip),
		cmocka_unit_test(test_loaded_not_pinned),
		cmocka_unit_test(test_below_expected),
		cmocka_unit_test(test_scaling_poor),
		cmocka_unit_test(test_order_and_failed_records),
		cmocka_unit_test(test_env_not_effective),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
