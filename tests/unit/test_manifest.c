/* SPDX-License-Identifier: Apache-2.0 */
/* test_manifest.c — the YAML loader, the manifest parser and validator, defaults, and the plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/strbuf.h"
#include "manifest/manifest.h"
#include "manifest/peaks.h"
#include "manifest/plan.h"
#include "manifest/ynode.h"

#define HEAD "bench: 1\nname: t\ntarget: {vendor: cpu}\nruntime: {engine: host}\n"
/* collectives need 2 ranks at least */
#define HEAD2 "bench: 1\nname: t\ntarget: {vendor: cpu, gpus_per_node: 2}\nruntime: {engine: host}\n"

static int parse(struct manifest *m, struct diag_list *d, const char *text)
{
	return manifest_parse_buffer(m, d, "m.yaml", text, strlen(text));
}

/* Parses text, expects failure, and returns the diagnostics joined as "L:C: msg\n" lines (caller frees). */
static char *errors_of(const char *text)
{
	struct diag_list d = DIAG_LIST_INIT;
	struct manifest m = MANIFEST_INIT;
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(parse(&m, &d, text), BENCH_E_MANIFEST);
	for (size_t i = 0; i < d.n; i++)
		strbuf_addf(&sb, "%d:%d: %s\n", d.items[i].line, d.items[i].col, d.items[i].msg);
	diag_list_release(&d);
	return strbuf_detach(&sb);
}

static void expect_error(const char *text, const char *want)
{
	char *got = errors_of(text);

	if (!strstr(got, want))
		fail_msg("wanted '%s' in:\n%s", want, got);
	free(got);
}

static void test_ynode_keeps_positions_and_order(void **state)
{
	struct diag_list d = DIAG_LIST_INIT;
	struct ynode *root = NULL;
	const char *y = "a: 1\nb:\n  - x\n  - 'y'\nc: {d: e}\na: 2\n";

	(void)state;
	assert_int_equal(ynode_load(&root, &d, "f", y, strlen(y)), 0);
	assert_int_equal(root->type, YNODE_MAP);
	assert_int_equal(root->n, 4); /* duplicates are kept for the validator to report */
	assert_string_equal(root->pairs[1].key->value, "b");
	assert_int_equal(root->pairs[1].value->type, YNODE_SEQ);
	assert_int_equal(root->pairs[1].value->items[1]->plain, 0);
	assert_int_equal(root->pairs[1].value->items[1]->line, 4);
	assert_int_equal(root->pairs[1].value->items[1]->col, 5);
	assert_int_equal(root->pairs[2].value->pairs[0].value->col, 8);
	assert_string_equal(root->pairs[3].value->value, "2");
	ynode_free(root);
	diag_list_release(&d);
}

static void test_ynode_refuses_alias_anchor_merge_tag(void **state)
{
	(void)state;
	expect_error("bench: 1\nx: &a 1\ny: *a\n", "2:4: anchors ('&a') are not allowed");
	expect_error("bench: 1\nx: &a 1\ny: *a\n", "3:4: aliases ('*a') are not allowed");
	expect_error("bench: 1\nt:\n  <<: {a: 1}\n", "3:3: merge keys ('<<') are not allowed");
	expect_error("bench: !!str 1\n", "1:8: tags ('tag:yaml.org,2002:str') are not allowed");
}

static void test_ynode_alias_bomb_is_refused_fast(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *got;

	(void)state;
	strbuf_addstr(&sb, "a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 10; i++)
		strbuf_addf(&sb, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i - 1, i - 1,
			    i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	got = errors_of(sb.buf);
	assert_non_null(strstr(got, "aliases ('*a8') are not allowed"));
	free(got);
	strbuf_release(&sb);
}

static void test_ynode_utf8_position(void **state)
{
	const char y[] = "bench: 1\nname: \"ok \xc3\xa9 then \xff\"\n";

	(void)state;
	expect_error(y, "2:18: invalid UTF-8 (byte 0xff)"); /* columns count characters */
	expect_error("bench: 1\nx: \"\xed\xa0\x80\"\n", "2:5: invalid UTF-8 (byte 0xed)"); /* a surrogate */
	expect_error("bench: 1\nx: \"\xc0\xaf\"\n", "2:5: invalid UTF-8 (byte 0xc0)");     /* overlong */
}

static void test_parse_design_example(void **state)
{
	struct diag_list d = DIAG_LIST_INIT;
	struct manifest m = MANIFEST_INIT;
	const struct suite_cfg *g;
	char *buf;
	size_t len;
	FILE *f = fopen("tests/vectors/manifest-valid/design-example.yaml", "rb");

	(void)state;
	assert_non_null(f);
	buf = xcalloc(1, 65536);
	len = fread(buf, 1, 65535, f);
	fclose(f);
	assert_int_equal(manifest_parse_buffer(&m, &d, "design.yaml", buf, len), 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(m.name, "h200-torch-stable");
	assert_int_equal(m.channel, CHANNEL_STABLE);
	assert_int_equal(m.target.vendor, VENDOR_CUDA);
	assert_string_equal(m.target.gpu, "h200");
	assert_int_equal(m.stack.ncomponents, 4);
	assert_int_equal(m.stack.components[1].source, SOURCE_PIP);
	assert_string_equal(m.stack.components[1].pip, "nightly");
	assert_string_equal(m.stack.components[1].date, "2026-11-29");
	assert_int_equal(m.stack.components[2].source, SOURCE_GIT);
	assert_string_equal(m.stack.components[2].ref, "develop");
	assert_int_equal(m.stack.components[2].nbuild, 1);
	assert_string_equal(m.stack.components[2].build[0], "./install.sh -idc -a gfx942");
	assert_string_equal(m.stack.components[3].version, "0.3.21+ds-4");
	assert_int_equal(m.stack.nenv, 1);
	assert_string_equal(m.stack.env[0].value, "0");
	assert_int_equal(m.runtime.engine, ENGINE_PODMAN);
	assert_true(m.runtime.timeout_ns == 30LL * 60 * 1000000000LL);
	assert_null(m.runtime.slurm.account);
	assert_string_equal(m.runtime.slurm.partition, "gpu");
	assert_int_equal(m.nsuites, 5);
	g = manifest_suite(&m, "gemm");
	assert_non_null(g);
	assert_int_equal(suite_cfg_get(g, "dtypes")->n, 2);
	assert_string_equal(suite_cfg_get(g, "shapes")->str, "llama70b");
	assert_int_equal(suite_cfg_get(g, "shapes")->n, 5);
	assert_true(suite_cfg_get(g, "warmup")->i == 30000000LL);
	assert_true(suite_cfg_get(manifest_suite(&m, "collectives"), "max_bytes")->i == 16LL << 30);
	assert_true(m.has_pricing && m.usd_per_gpu_hour == 2.5);
	assert_string_equal(m.pricing_source, "example list price, 2026-01");
	manifest_release(&m);
	diag_list_release(&d);
	free(buf);
}

static void test_defaults_depend_on_vendor(void **state)
{
	struct diag_list d = DIAG_LIST_INIT;
	struct manifest m = MANIFEST_INIT;
	const char *cpu = HEAD2 "suites: {gemm: {}, collectives: {}, training: {}}\n";
	const char *rocm = "bench: 1\nname: t\ntarget: {vendor: rocm, gpus_per_node: 2}\nruntime: {engine: host}\nsuites: {collectives: {}}\n";

	(void)state;
	assert_int_equal(parse(&m, &d, cpu), 0);
	assert_string_equal(suite_cfg_get(manifest_suite(&m, "gemm"), "backends")->sv[0], "cblas");
	assert_string_equal(suite_cfg_get(manifest_suite(&m, "gemm"), "dtypes")->sv[0], "fp32");
	assert_string_equal(suite_cfg_get(manifest_suite(&m, "collectives"), "backend")->str, "mpi");
	assert_true(suite_cfg_get(manifest_suite(&m, "collectives"), "max_bytes")->i == 64LL << 20);
	assert_string_equal(suite_cfg_get(manifest_suite(&m, "training"), "models")->sv[0], "tiny");
	assert_int_equal(suite_cfg_get(manifest_suite(&m, "training"), "compile")->i, 0);
	assert_int_equal(m.channel, CHANNEL_CUSTOM);
	assert_int_equal(m.target.nodes, 1);
	manifest_release(&m);
	assert_int_equal(parse(&m, &d, rocm), 0);
	assert_string_equal(suite_cfg_get(manifest_suite(&m, "collectives"), "backend")->str, "rccl");
	manifest_release(&m);
	diag_list_release(&d);
}

static void test_every_builtin_default_is_valid(void **state)
{
	static const char *const vendors[] = { "cuda", "rocm", "cpu" };

	(void)state;
	for (size_t s = 0; suite_registry[s]; s++)
		for (const struct param_def *p = suite_registry[s]->params; p->name; p++)
			for (size_t v = 0; v < 3; v++) {
				struct param_value val;

				memset(&val, 0, sizeof(val));
				if (param_default(&val, p, vendors[v]) != 0)
					fail_msg("default of %s.%s for %s is invalid", suite_registry[s]->name, p->name,
						 vendors[v]);
				param_value_release(&val);
			}
}

static void test_all_errors_in_one_pass(void **state)
{
	char *got = errors_of("bench: 1\nname: Bad\ntarget: {vendor: cpu, nodes: 0}\nruntime: {engine: host}\n"
			      "suites:\n  gemm: {tune: -1, dtpyes: []}\n  training: {steps: 3, warmup_steps: 3}\n");

	(void)state;
	assert_string_equal(got, "2:7: 'name' must match [a-z0-9][a-z0-9._-]* (at most 64 characters), got 'Bad'\n"
				 "3:30: 'nodes' must be between 1 and 4096, got 0\n"
				 "6:16: 'tune' must be between 0 and 64, got -1\n"
				 "6:20: unknown key 'dtpyes' in suite 'gemm' (did you mean 'dtypes'?)\n"
				 "7:38: 'warmup_steps' (3) must be smaller than 'steps' (3)\n");
	free(got);
}

static void test_check_on_default_names_the_default(void **state)
{
	(void)state;
	/* broadcast root defaults to 0, fine; a cpu gemm with blaslt set explicitly is refused at the value */
	expect_error(HEAD "suites: {collectives: {backend: mpi, ops: [broadcast], root: 1}}\n",
		     "'root' is 1 but the run has 1 rank(s)");
	expect_error("bench: 1\nname: t\ntarget: {vendor: cpu}\nruntime: {engine: host}\nsuites: {collectives: {backend: rccl}}\n",
		     "backend 'rccl' needs target.vendor rocm (target is cpu)");
}

static void plan_of(struct plan *p, struct manifest *m, const char *text)
{
	struct diag_list d = DIAG_LIST_INIT;

	assert_int_equal(parse(m, &d, text), 0);
	assert_int_equal(plan_build(p, m), 0);
	diag_list_release(&d);
}

static void test_plan_gemm_keys_and_tune(void **state)
{
	struct manifest m = MANIFEST_INIT;
	struct plan p = PLAN_INIT;

	(void)state;
	plan_of(&p, &m,
		"bench: 1\nname: t\ntarget: {vendor: cuda}\nruntime: {engine: host}\n"
		"suites: {gemm: {dtypes: [bf16, fp8e4m3], backends: [blaslt, torch-scaled-mm], shapes: [[1, 2, 3]], tune: 8}}\n");
	assert_int_equal(p.n, 5); /* blaslt bf16 x {heuristic, tune8}, fp8 x 2, scaled-mm fp8 only */
	assert_string_equal(p.cases[0].key, "blaslt/bf16/tn/1x2x3/heuristic");
	assert_string_equal(p.cases[1].key, "blaslt/bf16/tn/1x2x3/tune8");
	assert_string_equal(p.cases[2].key, "blaslt/fp8e4m3/tn/1x2x3/heuristic");
	assert_string_equal(p.cases[4].key, "torch-scaled-mm/fp8e4m3/tn/1x2x3/default");
	assert_int_equal(json_integer_value(json_object_get(p.cases[0].params, "k")), 3);
	assert_string_equal(json_string_value(json_object_get(p.cases[1].params, "algo")), "tune8");
	assert_string_equal(json_string_value(json_object_get(p.cases[0].params, "workspace")), "auto");
	assert_true(json_real_value(json_object_get(p.cases[0].params, "rep_ms")) == 200.0);
	plan_release(&p);
	manifest_release(&m);
}

/* fp8e5m2 (e5m2 gradient x e4m3 weight): blaslt cases like fp8e4m3's, torch-scaled-mm takes it, CBLAS alone on a
 * GPU target refuses it, and its % of peak is against the fp8 peak. */
static void test_gemm_fp8e5m2(void **state)
{
	struct manifest m = MANIFEST_INIT;
	struct plan p = PLAN_INIT;
	struct peaks pk = PEAKS_INIT;
	struct diag_list d = DIAG_LIST_INIT;
	const struct peak *h;

	(void)state;
	plan_of(&p, &m,
		"bench: 1\nname: t\ntarget: {vendor: cuda}\nruntime: {engine: host}\n"
		"suites: {gemm: {dtypes: [bf16, fp8e5m2], backends: [blaslt, torch-scaled-mm], shapes: [[1, 2, 3]]}}\n");
	assert_int_equal(p.n, 3); /* blaslt bf16, blaslt fp8e5m2, scaled-mm fp8e5m2 only */
	assert_string_equal(p.cases[0].key, "blaslt/bf16/tn/1x2x3/heuristic");
	assert_string_equal(p.cases[1].key, "blaslt/fp8e5m2/tn/1x2x3/heuristic");
	assert_string_equal(p.cases[2].key, "torch-scaled-mm/fp8e5m2/tn/1x2x3/default");
	assert_string_equal(json_string_value(json_object_get(p.cases[1].params, "dtype")), "fp8e5m2");
	plan_release(&p);
	manifest_release(&m);

	expect_error("bench: 1\nname: t\ntarget: {vendor: cuda}\nruntime: {engine: host}\n"
		     "suites: {gemm: {backends: [cblas], dtypes: [fp8e5m2]}}\n",
		     "5:44: dtype 'fp8e5m2' has no CBLAS implementation; use backend 'blaslt'");
	expect_error("bench: 1\nname: t\ntarget: {vendor: cuda}\nruntime: {engine: host}\n"
		     "suites: {gemm: {backends: [torch-scaled-mm], dtypes: [bf16]}}\n",
		     "backend 'torch-scaled-mm' measures fp8 only; add 'fp8e4m3' or 'fp8e5m2' to 'dtypes'");

	assert_int_equal(peaks_load(&pk, &d, "images/bases/peaks.yaml"), 0);
	assert_non_null(h = peaks_find(&pk, "h200"));
	assert_true(h->fp8_tflops > h->bf16_tflops && h->bf16_tflops > 0);
	assert_true(peaks_tflops_for(h, "fp8e5m2") == h->fp8_tflops);
	assert_true(peaks_tflops_for(h, "fp8e4m3") == h->fp8_tflops);
	assert_true(peaks_tflops_for(h, "bf16") == h->bf16_tflops);
	assert_true(peaks_tflops_for(h, "fp32") == h->fp32_tflops);
	peaks_release(&pk);
	diag_list_release(&d);
}

static void test_plan_collective_sweep(void **state)
{
	struct manifest m = MANIFEST_INIT;
	struct plan p = PLAN_INIT;

	(void)state;
	plan_of(&p, &m, HEAD2 "suites: {collectives: {backend: mpi, ops: [all_gather], min_bytes: 1MiB, max_bytes: 16MiB, "
			"factor: 4, sizes: [3MiB, 4MiB], placements: [in-place], dtype: fp16}}\n");
	/* 1, 4, 16 MiB from the sweep, 3 MiB extra, 4 MiB not twice; ascending */
	assert_int_equal(p.n, 4);
	assert_string_equal(p.cases[0].key, "all_gather/fp16/1MiB/in-place/r2n1");
	assert_string_equal(p.cases[1].key, "all_gather/fp16/3MiB/in-place/r2n1");
	assert_string_equal(p.cases[2].key, "all_gather/fp16/4MiB/in-place/r2n1");
	assert_string_equal(p.cases[3].key, "all_gather/fp16/16MiB/in-place/r2n1");
	assert_int_equal(json_integer_value(json_object_get(p.cases[3].params, "bytes")), 16 << 20);
	plan_release(&p);
	manifest_release(&m);
}

static void test_env_matrix_plans_every_case_per_cell(void **state)
{
	struct manifest m = MANIFEST_INIT;
	struct plan p = PLAN_INIT;

	(void)state;
	plan_of(&p, &m, HEAD2 "suites: {collectives: {backend: mpi, ops: [all_reduce], min_bytes: 1MiB, max_bytes: 2MiB, factor: 2, "
			"placements: [in-place], dtype: fp32, env_matrix: {NCCL_ALGO: [Ring, Tree], X: [\"a b/c,d=%\", \"\"]}}}\n");
	assert_int_equal(p.n, 8);
	/* cell-major, the first variable slowest; escapes keep the label one unambiguous word */
	assert_string_equal(p.cases[0].key, "all_reduce/fp32/1MiB/in-place/r2n1/env:NCCL_ALGO=Ring,X=a%20b%2Fc%2Cd%3D%25");
	assert_string_equal(p.cases[1].key, "all_reduce/fp32/2MiB/in-place/r2n1/env:NCCL_ALGO=Ring,X=a%20b%2Fc%2Cd%3D%25");
	assert_string_equal(p.cases[2].key, "all_reduce/fp32/1MiB/in-place/r2n1/env:NCCL_ALGO=Ring,X=");
	assert_string_equal(p.cases[7].key, "all_reduce/fp32/2MiB/in-place/r2n1/env:NCCL_ALGO=Tree,X=");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p.cases[1].params, "env"), "X")), "a b/c,d=%");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p.cases[7].params, "env"), "NCCL_ALGO")), "Tree");
	assert_int_equal(json_integer_value(json_object_get(p.cases[7].params, "bytes")), 2 << 20);
	assert_int_equal(json_object_size(json_object_get(p.cases[0].params, "env")), 2);
	plan_release(&p);
	manifest_release(&m);
}

static void test_env_matrix_is_checked(void **state)
{
	(void)state;
	expect_error(HEAD "suites: {membw: {env_matrix: [A]}}\n", "5:30: 'env_matrix' in suite 'membw' must be a mapping");
	expect_error(HEAD "suites: {membw: {env_matrix: {A: []}}}\n", "5:34: env_matrix 'A' must be a non-empty list");
	expect_error(HEAD "suites: {membw: {env_matrix: {A-B: [x]}}}\n", "environment variable name 'A-B' must match");
	expect_error(HEAD "suites: {membw: {env_matrix: {A: [x, x]}}}\n", "env_matrix 'A' lists 'x' twice");
	expect_error(HEAD "suites: {membw: {env_matrix: {A: [a, b, c, d, e, f, g, h], B: [a, b, c, d, e, f, g, h], C: [a, b]}}}\n",
		     "'env_matrix' in suite 'membw' expands to 128 cells; the limit is 64");
	expect_error(HEAD "suites: {membw: {env_matrx: {A: [x]}}}\n", "unknown key 'env_matrx' in suite 'membw' (did you mean 'env_matrix'?)");
}

static void test_plan_attention_and_training_keys(void **state)
{
	struct manifest m = MANIFEST_INIT;
	struct plan p = PLAN_INIT;

	(void)state;
	plan_of(&p, &m, HEAD "suites:\n  attention: {seq_lens: [4096], causal: [true, false], passes: [fwd_bwd]}\n"
			"  training: {models: [llama3-70b], layers: 4, precision: [bf16, fp8]}\n");
	assert_int_equal(p.n, 4);
	assert_string_equal(p.cases[0].key, "sdpa/bf16/causal/4x4096x16x128/fwd_bwd");
	assert_string_equal(p.cases[1].key, "sdpa/bf16/full/4x4096x16x128/fwd_bwd");
	assert_string_equal(p.cases[2].key, "llama3-70b/L4/bf16/s256/mb1/fsdp/eager");
	assert_string_equal(p.cases[3].key, "llama3-70b/L4/fp8/s256/mb1/fsdp/eager");
	plan_release(&p);
	manifest_release(&m);
}

/* plan_index finds every case by its suite and key, and nothing for a key of another suite or none */
static void test_plan_index_finds_each_case(void **state)
{
	struct manifest m = MANIFEST_INIT;
	struct plan p = PLAN_INIT;
	struct plan_index ix = PLAN_INDEX_INIT;

	(void)state;
	plan_of(&p, &m, HEAD "suites: {membw: {}, gemm: {shapes: [[8, 8, 8], [16, 8, 8], [8, 16, 8]], layouts: [tn, nn]}}\n");
	plan_index_build(&ix, &p);
	assert_int_equal(ix.n, p.n);
	for (size_t i = 0; i < p.n; i++) {
		const char *other = strcmp(p.cases[i].suite->name, "gemm") ? "gemm" : "membw";

		assert_int_equal(plan_index_find(&ix, p.cases[i].suite->name, p.cases[i].key), (long)i);
		assert_int_equal(plan_index_find(&ix, other, p.cases[i].key), -1); /* a key is its suite's */
	}
	assert_int_equal(plan_index_find(&ix, "gemm", "no/such/case"), -1);
	assert_int_equal(plan_index_find(&ix, "attention", p.cases[0].key), -1);
	assert_int_equal(plan_index_find(&ix, "gemm", NULL), -1);
	plan_index_release(&ix);
	plan_release(&p);
	manifest_release(&m);
}

static void test_plan_order_ignores_manifest_order(void **state)
{
	struct manifest m1 = MANIFEST_INIT, m2 = MANIFEST_INIT;
	struct plan p1 = PLAN_INIT, p2 = PLAN_INIT;
	json_t *j1, *j2;
	char *a, *b;

	(void)state;
	plan_of(&p1, &m1, HEAD "suites: {membw: {}, gemm: {shapes: [[8, 8, 8]]}}\n");
	plan_of(&p2, &m2, HEAD "suites: {gemm: {shapes: [[8, 8, 8]]}, membw: {}}\n");
	j1 = plan_json(&p1, &m1);
	j2 = plan_json(&p2, &m2);
	a = json_dumps(j1, JSON_SORT_KEYS);
	b = json_dumps(j2, JSON_SORT_KEYS);
	json_decref(j1);
	json_decref(j2);
	assert_string_equal(a, b);
	assert_string_equal(p1.cases[0].suite->name, "gemm");
	free(a);
	free(b);
	plan_release(&p1);
	plan_release(&p2);
	manifest_release(&m1);
	manifest_release(&m2);
}

#define VARIANTS "suites: {membw: {}}\nvariants:\n  - name: default\n  - name: tuned\n    env_profiles: [rocm-seed-tuning]\n" \
	"    env: {NCCL_MIN_NCHANNELS: \"64\"}\n"

static const char *env_of(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->stack.nenv; i++)
		if (!strcmp(m->stack.env[i].name, name))
			return m->stack.env[i].value;
	return NULL;
}

static void test_env_profile_is_included_and_overridden(void **state)
{
	struct diag_list d = DIAG_LIST_INIT;
	struct manifest m = MANIFEST_INIT;

	(void)state;
	assert_int_equal(parse(&m, &d, HEAD "stack:\n  env: {GPU_MAX_HW_QUEUES: \"4\"}\n  env_profiles: [rocm-seed-tuning]\n"
			       "suites: {membw: {}}\n"), 0);
	assert_int_equal(m.stack.nprofiles, 1);
	assert_string_equal(env_of(&m, "HIP_FORCE_DEV_KERNARG"), "1");
	assert_string_equal(env_of(&m, "TORCH_BLAS_PREFER_HIPBLASLT"), "1");
	assert_string_equal(env_of(&m, "GPU_MAX_HW_QUEUES"), "4"); /* the manifest's own value wins, wherever written */
	manifest_release(&m);
	diag_list_release(&d);
}

static void test_unknown_env_profile_is_placed_and_suggested(void **state)
{
	(void)state;
	expect_error(HEAD "stack:\n  env_profiles: [rocm-seed-tunnig]\nsuites: {membw: {}}\n",
		     "6:18: unknown env profile 'rocm-seed-tunnig' (did you mean 'rocm-seed-tuning'?)");
	expect_error(HEAD "stack: {env_profiles: [zzz]}\nsuites: {membw: {}}\n", "unknown env profile 'zzz'; images/profiles has");
	expect_error(HEAD "stack: {env_profiles: [rocm-seed-tuning, rocm-seed-tuning]}\nsuites: {membw: {}}\n",
		     "env profile 'rocm-seed-tuning' is listed twice");
}

static void test_variants_are_stacks_of_their_own(void **state)
{
	struct diag_list d = DIAG_LIST_INIT;
	struct manifest m = MANIFEST_INIT;

	(void)state;
	assert_int_equal(parse(&m, &d, HEAD VARIANTS), 0);
	assert_int_equal(m.nvariants, 2);
	assert_null(env_of(&m, "HIP_FORCE_DEV_KERNARG")); /* not before a variant is applied */
	assert_int_equal(manifest_apply_variant(&m, "nope"), BENCH_E_USAGE);
	assert_int_equal(manifest_apply_variant(&m, "tuned"), 0);
	assert_string_equal(m.name, "t+tuned");
	assert_string_equal(m.variant, "tuned");
	assert_string_equal(env_of(&m, "HIP_FORCE_DEV_KERNARG"), "1");
	assert_string_equal(env_of(&m, "NCCL_MIN_NCHANNELS"), "64"); /* the variant's own env over its profile */
	assert_int_equal(manifest_apply_variant(&m, "default"), BENCH_E_USAGE); /* one variant per stack */
	manifest_release(&m);
	assert_int_equal(parse(&m, &d, HEAD VARIANTS), 0);
	assert_int_equal(manifest_apply_variant(&m, "default"), 0);
	assert_string_equal(m.name, "t+default");
	assert_null(env_of(&m, "HIP_FORCE_DEV_KERNARG"));
	manifest_release(&m);
	diag_list_release(&d);
}

static void test_variants_are_checked(void **state)
{
	(void)state;
	expect_error(HEAD "suites: {membw: {}}\nvariants: []\n", "'variants' must be a non-empty list");
	expect_error(HEAD "suites: {membw: {}}\nvariants: [{name: a}, {name: a}]\n", "variant 'a' is listed twice");
	expect_error(HEAD "suites: {membw: {}}\nvariants: [{name: A+b}]\n", "variant name 'A+b' must match");
	expect_error(HEAD "suites: {membw: {}}\nvariants: [{env: {}}]\n", "variant 1 needs 'name'");
	expect_error(HEAD "suites: {membw: {}}\nvariants: [{name: a, env_profile: x}]\n",
		     "unknown key 'env_profile' in a variant (did you mean 'env_profiles'?)");
	expect_error(HEAD "suites: {membw: {}}\nvariants: [{name: a, env_profiles: [rocm-seed-tunin]}]\n",
		     "unknown env profile 'rocm-seed-tunin' (did you mean 'rocm-seed-tuning'?)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_profile_is_included_and_overridden),
		cmocka_unit_test(test_unknown_env_profile_is_placed_and_suggested),
		cmocka_unit_test(test_variants_are_stacks_of_their_own),
		cmocka_unit_test(test_variants_are_checked),
		cmocka_unit_test(test_ynode_keeps_positions_and_order),
		cmocka_unit_test(test_ynode_refuses_alias_anchor_merge_tag),
		cmocka_unit_test(test_ynode_alias_bomb_is_refused_fast),
		cmocka_unit_test(test_ynode_utf8_position),
		cmocka_unit_test(test_parse_design_example),
		cmocka_unit_test(test_defaults_depend_on_vendor),
		cmocka_unit_test(test_every_builtin_default_is_valid),
		cmocka_unit_test(test_all_errors_in_one_pass),
		cmocka_unit_test(test_check_on_default_names_the_default),
		cmocka_unit_test(test_plan_gemm_keys_and_tune),
		cmocka_unit_test(test_gemm_fp8e5m2),
		cmocka_unit_test(test_plan_collective_sweep),
		cmocka_unit_test(test_plan_attention_and_training_keys),
		cmocka_unit_test(test_plan_order_ignores_manifest_order),
		cmocka_unit_test(test_plan_index_finds_each_case),
		cmocka_unit_test(test_env_matrix_plans_every_case_per_cell),
		cmocka_unit_test(test_env_matrix_is_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
