/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_validate.c — bench validate FILE...: every problem of every file, then exit 3 if any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "core/strbuf.h"
#include "manifest/secrets.h"
#include "core/escape.h"
#include "core/opt.h"
#include "manifest/manifest.h"
#include "manifest/plan.h"

static const struct opt_cmd cmd = { "validate", "[-q] [--json] MANIFEST...",
				    "Check manifests against format v1 (docs/manifest-format.md) and report every problem "
				    "of each file as file:line:col: error: message. Exit 3 when any file is invalid." };

/* One file: parsed and planned; its JSON result appended to out (json), else its problems or "ok" line, then
 * the warnings of a valid one (not with quiet). Returns 0 or the file's negative code. */
static int validate_one(json_t *out, const char *path, int json, int quiet)
{
	struct diag_list diags = DIAG_LIST_INIT;
	struct manifest m = MANIFEST_INIT;
	struct plan plan = PLAN_INIT;
	int err = manifest_parse_file(&m, &diags, path);

	if (!err)
		err = plan_build_diag(&plan, &m, &diags);
	if (json) {
		json_t *errs = json_array();

		for (size_t k = 0; k < diags.n; k++)
			json_array_append_new(errs, json_pack("{s:i, s:i, s:o}", "line", diags.items[k].line, "col",
							      diags.items[k].col, "message", esc_json_string(diags.items[k].msg)));
		if (err < 0 && diags.n == 0)
			json_array_append_new(errs, json_pack("{s:i, s:i, s:o}", "line", 0, "col", 0, "message",
							      esc_json_string(bench_error_last())));
		json_array_append_new(out, json_pack("{s:o, s:b, s:I, s:o}", "file", esc_json_string(path), "valid", err == 0, "cases",
						     (json_int_t)plan.n, "errors", errs));
	} else if (err < 0 && diags.n) {
		diag_list_print(&diags, stderr);
	} else if (err < 0) {
		cli_fail(err);
	} else if (!quiet) { /* the path escaped as the error lines escape it */
		char *ep = esc_text(path), *en = esc_text(m.name);

		printf("%s: ok (%s, %zu case%s)\n", ep, en, plan.n, plan.n == 1 ? "" : "s");
		free(ep);
		free(en);
	}
	if (err == 0 && !quiet) {
		char *ep = esc_text(path);

		secrets_warn_manifest(stderr, ep, &m);
		free(ep);
	}
	plan_release(&plan);
	manifest_release(&m);
	diag_list_release(&diags);
	return err;
}

int cmd_validate(int argc, char **argv)
{
	int quiet = 0, json = 0, n, status = 0;
	const struct opt opts[] = {
		OPT_BOOL('q', "quiet", &quiet, "print nothing for valid files"),
		OPT_BOOL(0, "json", &json, "print one JSON result per file (problems included) to stdout"),
		OPT_END(),
	};
	json_t *out = json_array();

	n = opt_parse(argc - 1, argv + 1, opts, &cmd);
	if (n == OPT_HELP || n < 0) {
		json_decref(out);
		return n < 0 ? 2 : 0;
	}
	if (n == 0) {
		json_decref(out);
		return cli_usage_error(cmd.name, cmd.synopsis, "no manifest given");
	}
	for (int i = 0; i < n; i++) {
		int err = validate_one(out, argv[1 + i], json, quiet);

		if (err < 0 && (status == 0 || bench_exit_code(err) == 3))
			status = bench_exit_code(err); /* an invalid manifest outranks an unreadable one */
	}
	if (json)
		cli_print_json(out);
	else
		json_decref(out);
	return status;
}
