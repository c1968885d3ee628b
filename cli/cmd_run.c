/* cmd_run.c — bench run MANIFEST: validate, plan, then run each suite's cases through its runner. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "core/fs.h"
#include "core/opt.h"
#include "core/strbuf.h"
#include "manifest/manifest.h"
#include "manifest/plan.h"

static const struct opt_cmd cmd = { "run", "[options] MANIFEST",
				    "Validate the manifest, plan its cases, run every suite's runner and collect the "
				    "results into a run directory. --dry-run stops after printing the plan." };

static int runner_present(const char *program)
{
	const char *dir = fs_data_dir();
	char path[PATH_MAX];

	if (!dir)
		return 0;
	if (strchr(program, '/'))
		snprintf(path, sizeof(path), "%s/%s", dir, program);
	else
		snprintf(path, sizeof(path), "%s/build/runners/%s", dir, program);
	return access(path, X_OK) == 0 || (strchr(program, '/') && access(path, R_OK) == 0);
}

int cmd_run(int argc, char **argv)
{
	struct opt_strlist only = OPT_STRLIST_INIT;
	struct diag_list diags = DIAG_LIST_INIT;
	struct manifest m = MANIFEST_INIT;
	struct plan plan = PLAN_INIT;
	int dry = 0, quiet = 0, n, err, status = 0;
	const struct opt opts[] = {
		OPT_LIST('s', "suite", &only, "NAME", "run only these suites (comma-separated, repeatable)"),
		OPT_BOOL('n', "dry-run", &dry, "print the plan and stop"),
		OPT_BOOL('q', "quiet", &quiet, "print only errors"),
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
	err = manifest_parse_file(&m, &diags, argv[1]);
	if (err < 0) {
		if (diags.n)
			diag_list_print(&diags, stderr);
		else
			fprintf(stderr, "bench: error: %s\n", bench_error_last());
		status = bench_exit_code(err);
		goto cleanup;
	}
	if ((err = plan_build(&plan, &m)) < 0) {
		status = cli_fail(err);
		goto cleanup;
	}
	if (!quiet)
		fprintf(stderr, "bench: %s: %zu cases planned\n", m.name, plan.n);
	for (size_t i = 0; i < m.nsuites; i++) {
		const struct suite_ops *s = m.suites[i].ops;
		int want = only.n == 0;

		for (size_t j = 0; j < only.n; j++)
			want |= !strcmp(only.v[j], s->name);
		if (!want)
			continue;
		if (dry) {
			for (size_t k = 0; k < plan.n; k++)
				if (plan.cases[k].suite == s)
					printf("%-12s %s\n", s->name, plan.cases[k].key);
			continue;
		}
		if (!runner_present(s->program)) {
			fprintf(stderr, "bench: error: suite '%s': runner '%s' not built yet\n", s->name, s->program);
			status = 6;
			break;
		}
	}
cleanup:
	plan_release(&plan);
	manifest_release(&m);
	diag_list_release(&diags);
	opt_strlist_release(&only);
	return status;
}
