/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_plan.c — bench plan MANIFEST: the expanded list of cases with their stable keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "manifest/manifest.h"
#include "manifest/plan.h"

static const struct opt_cmd cmd = { "plan", "[--json] [--suite NAME[,NAME]] MANIFEST",
				    "List the cases the manifest would run: one line per case, suite and stable case key "
				    "(the key compare matches stacks by). --json adds every case's parameters." };

int cmd_plan(int argc, char **argv)
{
	struct opt_strlist only = OPT_STRLIST_INIT;
	struct manifest m = MANIFEST_INIT;
	struct plan plan = PLAN_INIT;
	int json = 0, n, err, status = 0;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "print the plan as JSON (schema bench.plan/v1)"),
		OPT_LIST('s', "suite", &only, "NAME", "only these suites (comma-separated, repeatable)"),
		OPT_END(),
	};

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		status = n < 0 ? 2 : 0;
		goto cleanup;
	}
	if (n != 1) {
		status = cli_usage_error(cmd.name, cmd.synopsis, n ? "give exactly one manifest" : "no manifest given");
		goto cleanup;
	}
	for (size_t i = 0; i < only.n; i++) {
		if (!suite_find(only.v[i])) {
			char *msg = xstrfmt("unknown suite '%s' in --suite (see 'bench suites')", only.v[i]);

			status = cli_usage_error(cmd.name, cmd.synopsis, msg);
			free(msg);
			goto cleanup;
		}
	}
	if ((status = cli_load_manifest(&m, argv[1])) != 0)
		goto cleanup;
	if ((err = plan_build(&plan, &m)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	if (only.n) {
		size_t k = 0;

		for (size_t i = 0; i < plan.n; i++) {
			int keep = 0;

			for (size_t j = 0; j < only.n; j++)
				keep |= !strcmp(plan.cases[i].suite->name, only.v[j]);
			if (keep)
				plan.cases[k++] = plan.cases[i];
			else {
				free(plan.cases[i].key);
				json_decref(plan.cases[i].params);
			}
		}
		plan.n = k;
	}
	if (json) {
		status = cli_print_json(plan_json(&plan, &m));
		goto cleanup;
	}
	printf("# %s: %zu case%s", m.name, plan.n, plan.n == 1 ? "" : "s");
	for (size_t i = 0; i < plan.n;) {
		size_t j = i;

		while (j < plan.n && plan.cases[j].suite == plan.cases[i].suite)
			j++;
		printf("%s %s %zu", i ? "," : ";", plan.cases[i].suite->name, j - i);
		i = j;
	}
	printf("\n");
	if (m.nvariants) { /* the same cases, once per variant: each a stack of its own */
		printf("# stacks:");
		for (size_t i = 0; i < m.nvariants; i++)
			printf(" %s+%s", m.name, m.variants[i].name);
		printf("\n");
	}
	for (size_t i = 0; i < m.nsuites; i++) { /* every case of such a suite once per cell: the key ends /env:<cell> */
		const struct suite_cfg *sc = &m.suites[i];

		if (!sc->nenv_matrix)
			continue;
		printf("# %s env_matrix: %zu cell%s of", sc->ops->name, suite_env_cells(sc), suite_env_cells(sc) == 1 ? "" : "s");
		for (size_t k = 0; k < sc->nenv_matrix; k++)
			printf("%s %s (%zu)", k ? " x" : "", sc->env_matrix[k].name, sc->env_matrix[k].nvalues);
		printf("\n");
	}
	for (size_t i = 0; i < plan.n; i++)
		printf("%-12s %s\n", plan.cases[i].suite->name, plan.cases[i].key);
cleanup:
	plan_release(&plan);
	manifest_release(&m);
	opt_strlist_release(&only);
	return status;
}
