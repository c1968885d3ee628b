/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_manifest.c — libFuzzer target for the manifest parser and validator (and the plan of what parses).
 * Build: make fuzz. Run: build/fuzz/fuzz_manifest -max_total_time=600 tests/fuzz/corpus
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "manifest/manifest.h"
#include "manifest/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_list diags = DIAG_LIST_INIT;
	struct manifest m = MANIFEST_INIT;
	struct plan plan = PLAN_INIT;

	setenv("BENCH_DATA", BENCH_FUZZ_DATA, 0);
	if (manifest_parse_buffer(&m, &diags, "fuzz.yaml", (const char *)data, size) == 0) {
		/* a manifest that validates must plan; huge sweeps are bounded by the validator */
		if (plan_build(&plan, &m) < 0)
			abort();
		plan_release(&plan);
		manifest_release(&m);
	}
	diag_list_release(&diags);
	return 0;
}
