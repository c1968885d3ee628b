/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_gc.c — bench gc [RUNS_DIR]: remove the runs, and with --caches the caches and images, beyond the retention
 * policy. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "core/error.h"
#include "core/opt.h"
#include "core/units.h"
#include "core/escape.h"
#include "bundle/gc.h"

static const struct opt_cmd cmd = { "gc", "[--keep N] [--repo DIR] [--caches] [--lock FILE]... [--dry-run] [RUNS_DIR]",
				    "Remove the run directories (with their bundles) under RUNS_DIR (default: runs) beyond the "
				    "retention policy: the newest N runs of each manifest name are kept (--keep, default 10), "
				    "and so is every run whose bundle the results repository --repo holds (by sha256) and every "
				    "run that says running. With --caches, also what $BENCH_HOME holds for stacks that no kept "
				    "run and no --lock names: build contexts and git caches (cache/build, cache/git), apptainer "
				    "images (cache/sif), host stacks (stacks/), and the podman or docker image each build "
				    "context that goes was built into; what another bench is building, and images whose build "
				    "context is not in this $BENCH_HOME, are left alone. --dry-run lists what would go, with "
				    "sizes, and removes nothing." };

int cmd_gc(int argc, char **argv)
{
	struct gc_plan p = GC_PLAN_INIT;
	const char *keeps = "10", *repo = NULL, *runs = "runs";
	int n, err, dry = 0, caches = 0, status = 0;
	struct opt_strlist locks = OPT_STRLIST_INIT;
	const struct opt opts[] = {
		OPT_STRING(0, "keep", &keeps, "N", "runs kept per manifest name (default 10)"),
		OPT_STRING(0, "repo", &repo, "DIR", "a results repository: the runs it holds are kept"),
		OPT_BOOL(0, "caches", &caches, "also the caches and images no kept run and no --lock names"),
		OPT_LIST(0, "lock", &locks, "FILE", "a lock whose caches, stacks and images are kept (repeatable; implies --caches)"),
		OPT_BOOL('n', "dry-run", &dry, "list what would be removed, remove nothing"),
		OPT_END(),
	};
	unsigned long long total = 0, ctotal = 0;
	char *end = NULL, size[32];
	long keep;

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		opt_strlist_release(&locks);
		return n < 0 ? 2 : 0;
	}
	if (n > 1) {
		opt_strlist_release(&locks);
		return cli_usage_error(cmd.name, cmd.synopsis, "give at most one runs directory");
	}
	if (n == 1)
		runs = argv[1];
	keep = strtol(keeps, &end, 10);
	if (!*keeps || *end || keep < 0) {
		opt_strlist_release(&locks);
		return cli_usage_error(cmd.name, cmd.synopsis, "--keep takes a whole number, 0 or more");
	}
	if ((err = gc_plan_runs(&p, runs, (size_t)keep, repo)) < 0 ||
	    ((caches || locks.n) && (err = gc_plan_caches(&p, locks.v)) < 0)) {
		status = cli_fail(err);
		goto cleanup;
	}
	for (size_t i = 0; i < p.n; i++) {
		const struct gc_item *it = &p.items[i];

		char *path = esc_text(it->path); /* a run directory's name is anyone's text */

		units_format_size(size, sizeof(size), it->bytes);
		if (it->kind == GC_IMAGE)
			printf("%s\t%s image %s\n", size, it->engine, path);
		else
			printf("%s\t%s%s\n", size, path, it->bundle ? " (and its bundle)" : "");
		free(path);
		if (it->kind == GC_RUN)
			total += it->bytes;
		else
			ctotal += it->bytes;
	}
	if (!dry && (err = gc_apply(&p)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	units_format_size(size, sizeof(size), total);
	fprintf(stderr, "bench: gc: %s %zu run%s (%s), kept %zu\n", dry ? "would remove" : "removed", p.nruns,
		p.nruns == 1 ? "" : "s", size, p.kept);
	if (caches || locks.n) {
		units_format_size(size, sizeof(size), ctotal);
		fprintf(stderr, "bench: gc: %s %zu cache%s and image%s (%s), kept %zu\n", dry ? "would remove" : "removed",
			p.n - p.nruns, p.n - p.nruns == 1 ? "" : "s", p.n - p.nruns == 1 ? "" : "s", size, p.caches_kept);
	}
cleanup:
	gc_plan_release(&p);
	opt_strlist_release(&locks);
	return status;
}
