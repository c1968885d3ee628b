/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_gc.c — bench gc [RUNS_DIR]: remove the runs beyond the retention policy. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/units.h"
#include "report/gc.h"

static const struct opt_cmd cmd = { "gc", "[--keep N] [--repo DIR] [--dry-run] [RUNS_DIR]",
				    "Remove the run directories (with their bundles) under RUNS_DIR (default: runs) beyond the "
				    "retention policy: the newest N runs of each manifest name are kept (--keep, default 10), "
				    "and so is every run whose bundle the results repository --repo holds (by sha256) and every "
				    "run that says running. --dry-run lists what would go, with sizes, and removes nothing." };

int cmd_gc(int argc, char **argv)
{
	struct gc_plan p = GC_PLAN_INIT;
	const char *keeps = "10", *repo = NULL, *runs = "runs";
	int n, err, dry = 0, status = 0;
	const struct opt opts[] = {
		OPT_STRING(0, "keep", &keeps, "N", "runs kept per manifest name (default 10)"),
		OPT_STRING(0, "repo", &repo, "DIR", "a results repository: the runs it holds are kept"),
		OPT_BOOL('n', "dry-run", &dry, "list what would be removed, remove nothing"),
		OPT_END(),
	};
	unsigned long long total = 0;
	char *end = NULL, size[32];
	long keep;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0)
		return n < 0 ? 2 : 0;
	if (n > 1)
		return cli_usage_error(cmd.name, cmd.synopsis, "give at most one runs directory");
	if (n == 1)
		runs = argv[1];
	keep = strtol(keeps, &end, 10);
	if (!*keeps || *end || keep < 0)
		return cli_usage_error(cmd.name, cmd.synopsis, "--keep takes a whole number, 0 or more");
	if ((err = gc_plan_runs(&p, runs, (size_t)keep, repo)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	for (size_t i = 0; i < p.n; i++) {
		units_format_size(size, sizeof(size), p.items[i].bytes);
		printf("%s\t%s%s\n", size, p.items[i].path, p.items[i].bundle ? " (and its bundle)" : "");
		total += p.items[i].bytes;
	}
	if (!dry && (err = gc_apply(&p)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	units_format_size(size, sizeof(size), total);
	fprintf(stderr, "bench: gc: %s %zu run%s (%s), kept %zu\n", dry ? "would remove" : "removed", p.n,
		p.n == 1 ? "" : "s", size, p.kept);
cleanup:
	gc_plan_release(&p);
	return status;
}
